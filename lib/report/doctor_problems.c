/* SPDX-License-Identifier: MIT */
/*
 * doctor_problems.c - the doctor's judgement (doctor_problems.h): every problem
 * the gathered facts show, recorded as a problem record (problem/problem.h)
 * with its kind, facts and fix steps, in the order the report lists them.
 */
#include "report/doctor_problems.h"
#include "binary/file_cache.h"
#include "problem/fix_words.h"
#include "problem/problem_words.h"
#include "load/fix_lines.h"
#include "load/python_loads.h"
#include "load/manifest.h"
#include "load/plan_judge.h"
#include "load/verdict.h"
#include "scan/ldcache.h"
#include "scan/library_cuda_major.h"
#include "os/loader.h"
#include "report/message_problems.h"
#include "report/runtime_problems.h"
#include "scan/roots.h"
#include "common/reason_words.h"
#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* A new problem of kind, or NULL when out of memory (then the setters do
 * nothing and the report says it ran out). */
static cl_problem *add(cl_doctor *d, int kind) {
  return cl_problem_add(&d->problems, kind);
}

static void fact(cl_doctor *d, cl_problem *p, int which, int source,
                 const char *value) {
  cl_problem_fact(&d->problems, p, which, source, value);
}

/* A copy of a record a stage made (a finding, a warning), once: one
 * already listed is not listed again. NULL when it was, or out of memory. */
static cl_problem *add_record(cl_doctor *d, const cl_problem *record) {
  if (cl_problem_list_has(&d->problems, record))
    return NULL;
  return cl_problem_add_copy(&d->problems, record);
}

/* A finding that stops nothing loading, once, with its fix or a pointer
 * to explain. */
static void add_note(cl_doctor *d, const cl_problem *record) {
  cl_problem note;
  if (cl_problem_copy(&note, record)) {
    d->failed = 1;
    cl_problem_free(&note);
    return;
  }
  note.note = 1;
  if (!note.fix.count)
    cl_fix_add_note(&note.fix, CL_NOTE_EXPLAIN_SAYS_MORE);
  add_record(d, &note);
  cl_problem_free(&note);
}

/* Where a requirement came from (CUDALOAD_FROM_*). */
static int requirement_source(const cl_requirement *r) {
  return r->source ? r->source : CUDALOAD_FROM_REQUEST;
}

static void unsatisfied_problems(cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r) {
    const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
    if (cl_doctor_requirement_satisfied(ctx, r, NULL))
      continue;
    const cl_requirement_outcome *o = r < cl_plan_state_of(ctx)->outcome_count
                                          ? &cl_plan_state_of(ctx)->outcomes[r]
                                          : NULL;
    cl_problem *p = add(d, CUDALOAD_PROBLEM_UNSATISFIED);
    fact(d, p, CUDALOAD_FACT_REQUIREMENT, requirement_source(req), req->text);
    fact(d, p, CUDALOAD_FACT_FAMILY, CUDALOAD_FROM_MACHINE, req->entry->family);
    fact(d, p, CUDALOAD_FACT_LIBRARY, CUDALOAD_FROM_MACHINE, req->entry->name);
    /* The first rejected candidate says most about why. */
    if (o && o->rejected_count) {
      fact(d, p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE,
           o->rejected[0].path);
      fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
           o->rejected[0].why);
    }
    if (o && o->fix_cuda_major)
      cl_problem_fact_int(&d->problems, p, CUDALOAD_FACT_CUDA_MAJOR,
                          o->fix_cuda_source, o->fix_cuda_major);
    if (p && o && o->fix_steps.count)
      cl_fix_append(&p->fix, &o->fix_steps);
    else if (p)
      cl_fix_add_note(&p->fix, CL_NOTE_ADD_FOLDER_THAT_HOLDS_IT,
                      req->entry->name);
  }
}

static void conflict_problems(cl_doctor *d) {
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->conflict_count; ++i) {
    const cl_conflict *c = &cl_plan_state_of(d->ctx)->conflicts[i];
    add_record(d, &c->problem);
  }
}

static void load_failure_problems(cl_doctor *d) {
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->plan_count; ++i) {
    const cl_plan_entry *e = &cl_plan_state_of(d->ctx)->plan[i];
    if (e->state != CUDALOAD_STATE_FAILED)
      continue;
    cl_problem *p = add(d, CUDALOAD_PROBLEM_LOAD_FAILED);
    fact(d, p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE, e->path);
    if (!p)
      continue;
    cl_fix_step *inspect = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&p->fix, inspect, "cudaload");
    cl_fix_arg(&p->fix, inspect, "inspect");
    cl_fix_arg(&p->fix, inspect, e->path);
    cl_fix_note(&p->fix, inspect, CL_NOTE_INSPECT_THEN_PUT_MISSING_BESIDE,
                cudaload_env_name());
  }
}

static void install_driver_fix(cl_fix *fix) {
  cl_fix_add_note(fix, "%s",
                  cl_doctor_host_naming() == CL_NAMING_WINDOWS
                      ? CL_NOTE_INSTALL_DRIVER_WINDOWS
                      : CL_NOTE_INSTALL_DRIVER_LINUX);
}

/* The oldest driver branch each CUDA major runs on (NVIDIA's CUDA
 * compatibility guide: minor-version compatibility within a major). */
static long minimum_driver_branch(int cuda_major) {
  static const struct {
    int cuda;
    long linux_branch, windows_branch;
  } table[] = {{11, 450, 452}, {12, 525, 527}, {13, 580, 580}};
  for (size_t i = 0; i < sizeof table / sizeof *table; ++i)
    if (table[i].cuda == cuda_major)
      return cl_doctor_host_naming() == CL_NAMING_WINDOWS
                 ? table[i].windows_branch
                 : table[i].linux_branch;
  return 0;
}

static void driver_problems(cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  /* The probe, when it ran, knows best; its verdict is reported below. */
  if (d->probe)
    return;
  if (!d->driver_path) {
    cl_problem *p = add(d, CUDALOAD_PROBLEM_DRIVER_ABSENT);
    fact(d, p, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE, cl_os_driver_name());
    if (p)
      install_driver_fix(&p->fix);
    return;
  }
  if (!d->driver_version)
    return;
  int cuda_needed = 0;
  const char *needed_by = NULL;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    cl_library *lib =
        cl_inventory_library_at(ctx, cl_plan_state_of(ctx)->plan[i].path);
    int cuda = lib ? cl_library_cuda_major(ctx, lib) : 0;
    if (cuda > cuda_needed) {
      cuda_needed = cuda;
      needed_by = lib->path;
    }
  }
  long branch = strtol(d->driver_version, NULL, 10);
  long minimum = minimum_driver_branch(cuda_needed);
  if (!minimum || branch <= 0 || branch >= minimum)
    return;
  cl_problem *p = add(d, CUDALOAD_PROBLEM_DRIVER_TOO_OLD);
  fact(d, p, CUDALOAD_FACT_DRIVER, CUDALOAD_FROM_MACHINE, d->driver_version);
  cl_problem_fact_int(&d->problems, p, CUDALOAD_FACT_CUDA_MAJOR,
                      CUDALOAD_FROM_MACHINE, cuda_needed);
  fact(d, p, CUDALOAD_FACT_CONSUMER, CUDALOAD_FROM_MACHINE, needed_by);
  cl_problem_fact_int(&d->problems, p, CUDALOAD_FACT_WANTED,
                      CUDALOAD_FROM_MACHINE, minimum);
  if (p)
    cl_fix_add_note(&p->fix, CL_NOTE_UPDATE_DRIVER_TO_BRANCH, minimum,
                    cuda_needed - 1);
}

static const char *probe_fix(int reason) {
  switch (reason) {
  case CUDALOAD_REASON_DRIVER_BROKEN:
    return CL_NOTE_PROBE_DRIVER_BROKEN;
  case CUDALOAD_REASON_INIT_FAILED:
    return CL_NOTE_PROBE_INIT_FAILED;
  case CUDALOAD_REASON_NO_DEVICE:
    return CL_NOTE_PROBE_NO_DEVICE;
  case CUDALOAD_REASON_DRIVER_TOO_OLD:
    return CL_NOTE_PROBE_DRIVER_TOO_OLD;
  case CUDALOAD_REASON_DEVICE_FAILED:
    return CL_NOTE_PROBE_DEVICE_FAILED;
  case CUDALOAD_REASON_MISSING_LIBRARY:
    return CL_NOTE_PROBE_MISSING_LIBRARY;
  case CUDALOAD_REASON_LIBRARY_FAILED:
    return CL_NOTE_PROBE_LIBRARY_FAILED;
  case CUDALOAD_REASON_WRONG_RESULT:
    return CL_NOTE_PROBE_WRONG_RESULT;
  case CUDALOAD_REASON_TIMEOUT:
    return CL_NOTE_PROBE_TIMEOUT;
  case CUDALOAD_REASON_PROBE_CRASHED:
    return CL_NOTE_PROBE_CRASHED;
  default:
    return NULL;
  }
}

static void probe_problems(cl_doctor *d) {
  if (d->probe_error) {
    cl_problem *p = add(d, CUDALOAD_PROBLEM_PROBE_FAILED);
    fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE, d->probe_error);
    if (p) {
      cl_fix_step *again = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
      static const char *const words[] = {"cudaload", "doctor", "--probe",
                                          "--out-of-process"};
      for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
        cl_fix_arg(&p->fix, again, words[k]);
    }
    return;
  }
  if (!d->probe || cudaload_probe_verdict(d->probe) == CUDALOAD_GPU_OK ||
      d->probe_explained)
    return;
  int reason = cudaload_probe_reason(d->probe);
  if (reason == CUDALOAD_REASON_MISSING_LIBRARY && d->plan_error)
    return; /* already a problem of its own, with its fix */
  /* The failed stage says what went wrong; the summary also carries a fix,
   * which the fix line gives on its own. */
  cl_problem *p = add(d, CUDALOAD_PROBLEM_PROBE_FAILED);
  int stage_said = 0;
  for (size_t i = 0; i < cudaload_probe_stage_count(d->probe) && !stage_said;
       ++i)
    if (cudaload_probe_stage_status(d->probe, i) == CUDALOAD_STAGE_FAILED) {
      fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
           cudaload_probe_reason_name(reason));
      fact(d, p, CUDALOAD_FACT_STAGE, CUDALOAD_FROM_MACHINE,
           cudaload_probe_stage_name(d->probe, i));
      fact(d, p, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_MACHINE,
           cudaload_probe_stage_message(d->probe, i));
      stage_said = 1;
    }
  if (!stage_said) {
    fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
         cudaload_probe_reason_name(reason));
    fact(d, p, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_MACHINE,
         cudaload_probe_summary(d->probe));
  }
  const char *fix = probe_fix(reason);
  if (!p)
    return;
  if (reason == CUDALOAD_REASON_NO_DRIVER)
    install_driver_fix(&p->fix);
  else
    cl_fix_add_note(&p->fix, "%s", fix ? fix : CL_NOTE_PROBE_SEE_ITS_STAGES);
}

static void find_zlib_key(const char *key, const char *path, void *opaque) {
  (void)path;
  if (!strcmp(key, "libz.so.1"))
    *(int *)opaque = 1;
}

/* Is the system's zlib visible to the dynamic loader: in its cache, in the
 * usual folders, or already loaded? */
static int have_system_zlib(cudaload_ctx *ctx) {
  int in_cache = 0;
  /* no cache, or a broken one: look further */
  cl_ldcache_read_cached_quiet(cl_file_cache_of(ctx), "/etc/ld.so.cache",
                               find_zlib_key, &in_cache);
  if (in_cache)
    return 1;
  static const char *const folders[] = {"/lib/x86_64-linux-gnu",
                                        "/usr/lib/x86_64-linux-gnu",
                                        "/lib/aarch64-linux-gnu",
                                        "/usr/lib/aarch64-linux-gnu",
                                        "/lib64",
                                        "/usr/lib64",
                                        "/lib",
                                        "/usr/lib"};
  for (size_t i = 0; i < sizeof folders / sizeof *folders; ++i) {
    char *path = cl_path_join(folders[i], "libz.so.1");
    int found = path && cl_os_stat_kind(path, NULL) == CL_KIND_REGULAR;
    free(path);
    if (found)
      return 1;
  }
  char *loaded = cl_os_loader_find_loaded("libz.so.1");
  free(loaded);
  return loaded != NULL;
}

/* cuDNN 9's sub-libraries NEED the system's libz.so.1, which minimal
 * containers lack (docs/loader.md, CUDA 1). */
static void zlib_problem(cl_doctor *d) {
  if (cl_doctor_host_naming() != CL_NAMING_LINUX)
    return;
  const cl_plan_entry *cudnn = NULL;
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->plan_count && !cudnn; ++i)
    if (!strcmp(cl_plan_state_of(d->ctx)->plan[i].entry->family, "cudnn") &&
        cl_plan_state_of(d->ctx)->plan[i].major >= 9)
      cudnn = &cl_plan_state_of(d->ctx)->plan[i];
  if (!cudnn || have_system_zlib(d->ctx))
    return;
  cl_problem *p = add(d, CUDALOAD_PROBLEM_ZLIB_MISSING);
  cl_problem_fact_int(&d->problems, p, CUDALOAD_FACT_MAJOR,
                      CUDALOAD_FROM_MACHINE, cudnn->major);
  fact(d, p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE, cudnn->path);
  if (!p)
    return;
  cl_fix_step *apt = cl_fix_add(&p->fix, CUDALOAD_FIX_INSTALL);
  static const char *const words[] = {"apt-get", "install", "zlib1g"};
  for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
    cl_fix_arg(&p->fix, apt, words[k]);
  cl_fix_note(&p->fix, apt, CL_NOTE_ZLIB_ON_OTHER_DISTRIBUTIONS);
}

/* What the loader model says of the plan once it is preloaded in this
 * process (verdict.c): a library the plan's files need or open by name at
 * run time that the loader would not find (cuDNN 8's ops_infer opens
 * libcublas.so.12 at its first kernel: the plan succeeds, the first
 * convolution fails), a file the loader takes that lacks symbols its
 * consumer takes from it, two versions or two CUDA majors mixed. The same
 * sentences as `cudaload explain`; what is reachable is never reported. */
static int plan_has_second_major(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t r = 0; r < ps->outcome_count; ++r)
    if (ps->outcomes[r].second_major)
      return 1;
  return 0;
}

/* The folders the plan loads from, each once, in plan order (malloc'ed
 * strings and array); *count 0 when none. */
static char **plan_folders(const cudaload_ctx *ctx, size_t *count) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  char **folders =
      ps->plan_count ? calloc(ps->plan_count, sizeof *folders) : NULL;
  *count = 0;
  for (size_t i = 0; folders && i < ps->plan_count; ++i) {
    if (ps->plan[i].state == CUDALOAD_STATE_FAILED)
      continue;
    char *folder = cl_path_dirname(ps->plan[i].path);
    int known = !folder;
    for (size_t k = 0; k < *count && !known; ++k)
      known = cl_ascii_equal_nocase(folders[k], folder);
    if (known)
      free(folder);
    else
      folders[(*count)++] = folder;
  }
  return folders;
}

/* Windows: what fixes a by-name load that fails without cudaload
 * (docs/loader.md, Windows 3 and 14): the plan loaded before the program's
 * import (cudaload.setup(), which loads by full path and puts the folders
 * first on PATH), or the folders first on PATH before the program starts;
 * os.add_dll_directory does not reach LoadLibrary by name; or exec.
 * consumer: the file whose load fails, for the module to name. */
static void windows_as_is_fix(const cudaload_ctx *ctx, cl_fix *fix,
                              const char *consumer, const char *first) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (first)
    cl_fix_add_note(fix, "%s", first);
  /* setup()'s arguments, Python code: the words are around them. */
  cl_buf call = CL_BUF_INIT;
  cl_buf_printf(&call, "require=[");
  for (size_t r = 0; r < ps->requirement_count; ++r)
    cl_buf_printf(&call, "%s\"%s\"", r ? ", " : "", ps->requirements[r].text);
  cl_buf_printf(&call, "]");
  if (ctx->explicit_count) {
    cl_buf_printf(&call, ", roots=[");
    for (size_t i = 0; i < ctx->explicit_count; ++i)
      cl_buf_printf(&call, "%sr\"%s\"", i ? ", " : "", ctx->explicit_roots[i]);
    cl_buf_printf(&call, "]");
  }
  char *arguments = cl_buf_take(&call);
  cl_python_load py;
  int python = 0;
  if (!consumer || cl_python_load_of(consumer, &py, &python) != CUDALOAD_OK)
    python = 0;
  cl_buf b = CL_BUF_INIT;
  if (!arguments)
    fix->failed = 1;
  else if (python && py.package)
    cl_buf_printf(&b, CL_NOTE_SETUP_BEFORE_IMPORT_OF, arguments, py.package);
  else
    cl_buf_printf(&b, CL_NOTE_SETUP_BEFORE_THE_IMPORT, arguments);
  free(arguments);
  if (python)
    cl_python_load_free(&py);
  size_t count = 0;
  char **folders = plan_folders(ctx, &count);
  char *path = cl_fix_windows_path_first(folders, count);
  for (size_t i = 0; i < count; ++i)
    free(folders[i]);
  free(folders);
  if (path)
    cl_buf_printf(&b, CL_NOTE_OR_PUT_FOLDERS_FIRST_ON_PATH, path);
  free(path);
  cl_buf_printf(&b, CL_NOTE_OR_RUN_THROUGH_CUDALOAD);
  char *words = cl_buf_take(&b);
  if (words)
    cl_fix_add_note(fix, "%s", words);
  else
    fix->failed = 1;
  free(words);
  cl_fix_run_through_cudaload(ctx, fix, NULL, NULL);
}

/* The fix for what fails only without cudaload, on this host: have it
 * load the plan (load/fix_lines.c; Windows: setup(), PATH or exec). */
static void through_cudaload_fix(const cudaload_ctx *ctx, cl_fix *fix,
                                 const char *consumer, const char *first) {
  if (cl_doctor_host_naming() == CL_NAMING_WINDOWS)
    windows_as_is_fix(ctx, fix, consumer, first);
  else
    cl_fix_run_through_cudaload(ctx, fix, first, NULL);
}

/* Whether a problem listed names file (one of its names). */
static int names_reported(const cl_doctor *d, const char *file) {
  size_t n = strlen(file);
  for (size_t i = 0; i < d->problems.count; ++i) {
    const cl_problem *p = &d->problems.items[i];
    const char *names = p->facts[CUDALOAD_FACT_NAME];
    for (const char *c = names; !p->note && c && *c;) {
      size_t len = strcspn(c, ",");
      if (len == n && strncmp(c, file, n) == 0)
        return 1;
      c += len;
      c += strspn(c, ", ");
    }
  }
  return 0;
}

/* The programs of the environment roots the scan searched (a venv, a
 * conda prefix), when none was given (--for): what the user runs there. */
static int environment_programs(cl_doctor *d, cl_program_set *set) {
  const cudaload_ctx *ctx = d->ctx;
  size_t file_capacity = 0, plugin_capacity = 0;
  memset(set, 0, sizeof *set);
  for (size_t r = 0; r < cl_inventory_of(ctx)->root_count; ++r) {
    if (cl_origin_tier(cl_inventory_of(ctx)->roots[r].origin) !=
        CL_TIER_ENVIRONMENT)
      continue;
    cl_program_set more;
    int rc =
        cl_program_files_in(d->ctx, cl_inventory_of(ctx)->roots[r].path, &more);
    if (rc) {
      cl_program_set_free(set);
      return rc;
    }
    for (size_t i = 0; i < more.file_count; ++i) {
      int have = 0;
      for (size_t k = 0; k < set->file_count && !have; ++k)
        have = strcmp(set->files[k], more.files[i]) == 0;
      if (have || cl_reserve((void **)&set->files, &file_capacity,
                             set->file_count + 1, sizeof *set->files))
        continue; /* kept in `more`, freed below */
      set->files[set->file_count++] = more.files[i];
      more.files[i] = NULL;
    }
    for (size_t i = 0; i < more.plugin_count; ++i) {
      if (cl_reserve((void **)&set->plugins, &plugin_capacity,
                     set->plugin_count + 1, sizeof *set->plugins))
        continue;
      set->plugins[set->plugin_count++] = more.plugins[i];
      more.plugins[i] = NULL;
    }
    cl_program_set_free(&more);
  }
  return CUDALOAD_OK;
}

/* Windows: the program as it will run without cudaload (docs/loader.md,
 * Windows 14), in this process: its files opened as CPython opens them
 * (with no program given, the environment's programs'); then each required
 * main library the program did not reach, opened by name as a program that
 * loads it by name does (LoadLibrary: the application folder, the system
 * folders, PATH), unless its failure is said already. A library is not
 * opened by its path: nothing on Windows finds a wheel's DLL by path but
 * cudaload and the program's own code, which the program's files show.
 * With no program given, every finding counts for the required families
 * only (*environment_first 0). */
static cudaload_explain *verdict_as_it_is_windows(cl_doctor *d,
                                                  size_t *environment_first) {
  cl_loader_model m;
  cudaload_explain *e = cl_verdict_new();
  int rc = e ? cl_loader_model_init_host(&m) : CUDALOAD_E_NO_MEMORY;
  *environment_first = SIZE_MAX;
  if (rc) {
    cudaload_explain_free(e);
    d->failed |= rc == CUDALOAD_E_NO_MEMORY;
    return NULL;
  }
  cl_program_set program = cl_program_set_of(d->ctx);
  cl_program_set around = {0};
  if (!program.file_count) {
    rc = environment_programs(d, &around);
    *environment_first = 0;
  }
  const cl_program_set *set = program.file_count ? &program : &around;
  if (!rc && set->file_count)
    rc = cl_verdict_open_program(e, d->ctx, &m, set, CL_VERDICT_CONSUMER);
  const cl_plan_state *ps = cl_plan_state_of(d->ctx);
  for (size_t i = 0; !rc && !program.file_count && i < ps->plan_count; ++i) {
    const cl_plan_entry *p = &ps->plan[i];
    const char *name = cl_path_basename(p->path);
    if (p->entry->role == CL_ROLE_MAIN &&
        p->requirement < ps->requirement_count &&
        !cl_verdict_not_found_named(e, name, CL_NAMING_WINDOWS))
      rc = cl_verdict_open_by_name(e, d->ctx, &m, NULL, name, CL_VERDICT_LAZY);
  }
  if (!rc && ps->program_file_count)
    cl_verdict_mixes_in(e, &m, CL_AMONG_PROGRAM);
  cl_loader_model_free(&m);
  cl_program_set_free(&around);
  d->failed |= rc == CUDALOAD_E_NO_MEMORY;
  return e;
}

/* The plan's files as the process has them now, without cudaload: the
 * program's own files, when it is known (--for), opened as it opens them;
 * else each main library opened by absolute path (however the program
 * finds it), and the programs of the active environment. Their needs and
 * run-time opens are resolved in this environment as it is. What fails
 * here and not once the plan is preloaded is what the user's error comes
 * from, and cudaload is its fix. */
static cudaload_explain *verdict_as_it_is(cl_doctor *d,
                                          size_t *environment_first) {
  if (cl_doctor_host_naming() == CL_NAMING_WINDOWS)
    return verdict_as_it_is_windows(d, environment_first);
  cl_loader_model m;
  cudaload_explain *e = cl_verdict_new();
  int rc = e ? cl_loader_model_init_host(&m) : CUDALOAD_E_NO_MEMORY;
  *environment_first = SIZE_MAX;
  if (rc) {
    cudaload_explain_free(e);
    d->failed |= rc == CUDALOAD_E_NO_MEMORY;
    return NULL;
  }
  rc = cl_verdict_preloads(e, d->ctx, &m, 1);
  cl_program_set program = cl_program_set_of(d->ctx);
  /* A program whose packages load libraries themselves (JAX's plugin) is
   * known by those loads, files of its own or not. */
  int known = program.file_count || program.preload_count;
  if (!rc && known)
    rc = cl_verdict_open_program(e, d->ctx, &m, &program, CL_VERDICT_CONSUMER);
  for (size_t i = 0; !rc && !known && i < cl_plan_state_of(d->ctx)->plan_count;
       ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(d->ctx)->plan[i];
    if (p->entry->role == CL_ROLE_MAIN &&
        p->requirement < cl_plan_state_of(d->ctx)->requirement_count)
      rc = cl_verdict_open(e, d->ctx, &m, p->path, 0);
  }
  if (!rc && cl_plan_state_of(d->ctx)->program_file_count)
    cl_verdict_mixes_in(e, &m, CL_AMONG_PROGRAM);
  cl_loader_model_free(&m);
  /* The environment's programs, each in a process of its own that has
   * loaded nothing by path before them. */
  cl_program_set around = {0};
  if (!rc && !known)
    rc = environment_programs(d, &around);
  *environment_first = e->finding_count;
  if (!rc && around.file_count && !(rc = cl_loader_model_init_host(&m))) {
    rc = cl_verdict_preloads(e, d->ctx, &m, 1);
    if (!rc)
      rc = cl_verdict_open_program(e, d->ctx, &m, &around, CL_VERDICT_CONSUMER);
    cl_loader_model_free(&m);
  }
  cl_program_set_free(&around);
  d->failed |= rc == CUDALOAD_E_NO_MEMORY;
  return e;
}

/* Whether name is a library of a family the requirements name. */
static int required_name(const cudaload_ctx *ctx, const char *name) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_name_match m;
  if (!name || !cl_catalog_match(name, cl_ctx_naming(ctx), &m))
    return 0;
  for (size_t r = 0; r < ps->requirement_count; ++r)
    if (strcmp(ps->requirements[r].entry->family, m.entry->family) == 0)
      return 1;
  return 0;
}

/* Who opens or needs the name a finding is about: its consumer, or the
 * process itself where no file of the model did (Windows: a required
 * library opened by name as the program opens it, docs/loader.md, Windows
 * 14), as the finding's sentence says; NULL for a finding about no open. */
static const char *opener_of(const cl_finding *f) {
  if (f->consumer)
    return f->consumer;
  return f->kind == CL_FINDING_NOT_FOUND || f->kind == CL_FINDING_WRONG_LIBRARY
             ? CL_VERDICT_THE_PROCESS
             : NULL;
}

/* The names one opener needs (lazy 0) or opens by name (lazy 1) that are
 * not found as it is, joined: "libcublasLt.so.12, libcublas.so.12". */
static char *names_not_found_from(const cudaload_explain *e,
                                  const char *consumer, int lazy,
                                  size_t *count) {
  cl_buf b = CL_BUF_INIT;
  *count = 0;
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    if (f->kind != CL_FINDING_NOT_FOUND || !f->lazy != !lazy ||
        strcmp(opener_of(f), consumer) != 0)
      continue;
    /* A lazy finding holds every name of its family its opener opens. */
    const char *names = f->names ? f->names : f->name;
    cl_buf_printf(&b, "%s%s", *count ? ", " : "", names);
    for (++*count; *names; ++names)
      *count += *names == ',';
  }
  return cl_buf_take(&b);
}

/* Whether finding i is the first not-found of its opener and kind that
 * counts: of the environment's programs (from environment_first), only
 * those naming a required family do. */
static int first_not_found_of(const cudaload_ctx *ctx,
                              const cudaload_explain *e, size_t i,
                              size_t environment_first) {
  const cl_finding *f = &e->findings[i];
  for (size_t k = 0; k < i; ++k) {
    const cl_finding *g = &e->findings[k];
    if (g->kind == CL_FINDING_NOT_FOUND && !g->lazy == !f->lazy &&
        strcmp(opener_of(g), opener_of(f)) == 0 &&
        (k < environment_first || required_name(ctx, g->name)))
      return 0;
  }
  return 1;
}

/* A problem from finding f: its record (its kind, facts and fix), as the
 * loader model made it (verdict.c); a name no file of the model opened is
 * the process's (its consumer fact, as its words say). */
static cl_problem *finding_problem(cl_doctor *d, const cl_finding *f) {
  cl_problem *p = cl_problem_add_copy(&d->problems, &f->problem);
  if (p && !p->facts[CUDALOAD_FACT_CONSUMER])
    fact(d, p, CUDALOAD_FACT_CONSUMER, CUDALOAD_FROM_MACHINE, opener_of(f));
  return p;
}

/* The program's own way out, where it has one: a package function that
 * loads by path the files of the names not found (onnxruntime's
 * preload_dlls(): consumers.c), called by the program before the library
 * that needs them is loaded. A step in words: it is the program's code. */
static void call_preload_step(cl_doctor *d, cl_fix *fix, const char *names) {
  cl_program_set set = cl_program_set_of(d->ctx);
  const char *call = NULL;
  cl_buf files = CL_BUF_INIT;
  for (size_t i = 0; i < set.call_file_count; ++i) {
    const char *base = cl_path_basename(set.call_files[i]);
    size_t n = strlen(base);
    int named = 0;
    for (const char *p = names; *p && !named;) {
      size_t len = strcspn(p, ",");
      named = len == n && strncmp(p, base, n) == 0;
      p += len;
      p += strspn(p, ", ");
    }
    if (!named || (call && strcmp(call, set.call_names[i]) != 0))
      continue;
    call = set.call_names[i];
    cl_buf_printf(&files, "%s%s", files.len ? ", " : "", set.call_files[i]);
  }
  char *loads = cl_buf_take(&files);
  /* The names it does not load (onnxruntime 1.26's Windows list has no
   * curand64_10.dll, which its CUDA provider imports): the call alone
   * does not do. */
  cl_buf left = CL_BUF_INIT;
  for (const char *p = names; call && *p;) {
    size_t len = strcspn(p, ",");
    int loaded = 0;
    for (size_t i = 0; i < set.call_file_count && !loaded; ++i) {
      const char *base = cl_path_basename(set.call_files[i]);
      loaded = !strcmp(call, set.call_names[i]) && strlen(base) == len &&
               !strncmp(p, base, len);
    }
    if (!loaded)
      cl_buf_printf(&left, "%s%.*s", left.len ? ", " : "", (int)len, p);
    p += len;
    p += strspn(p, ", ");
  }
  char *missed = cl_buf_take(&left);
  if (call && loads && missed && missed[0])
    cl_fix_add_note(fix, CL_NOTE_PRELOAD_CALL_NOT_ENOUGH, call, loads, missed);
  else if (call && loads)
    cl_fix_add_note(fix, CL_NOTE_OR_CALL_PRELOAD_FUNCTION, call, loads);
  d->failed |= call && (!loads || !missed);
  free(missed);
  free(loads);
}

/* One problem for all an opener does not find, as it is: the names it
 * needs (its load fails at the first), or those it opens by name later. */
static void not_found_problem(cl_doctor *d, const cudaload_explain *as_is,
                              size_t i, size_t environment_first) {
  const cl_finding *f = &as_is->findings[i];
  if (!first_not_found_of(d->ctx, as_is, i, environment_first))
    return;
  size_t count;
  char *names = names_not_found_from(as_is, opener_of(f), f->lazy, &count);
  if (!names) {
    d->failed = 1;
    return;
  }
  /* The first finding's record (where the loader looked), naming them
   * all; its fix is the one that runs the program through cudaload. */
  cl_problem *p = finding_problem(d, f);
  fact(d, p, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE, names);
  fact(d, p, CUDALOAD_FACT_CONDITION, CUDALOAD_FROM_MACHINE, "as-it-is");
  if (p)
    cl_fix_free(&p->fix);
  if (p)
    through_cudaload_fix(d->ctx, &p->fix, f->consumer, NULL);
  if (p)
    call_preload_step(d, &p->fix, names);
  free(names);
}

/* What fails only without cudaload, one problem per opener for the names it
 * does not find, each with the fix that runs the program through
 * cudaload. */
/* Whether f fails the same way with the plan loaded (same kind, consumer
 * and name): then the plan's problem says it, and "run it through
 * cudaload" would not fix it. */
static int fails_with_plan(const cudaload_explain *with_plan,
                           const cl_finding *f) {
  for (size_t i = 0; with_plan && i < with_plan->finding_count; ++i) {
    const cl_finding *g = &with_plan->findings[i];
    if (g->kind == f->kind && g->consumer && f->consumer && g->name &&
        f->name && strcmp(g->consumer, f->consumer) == 0 &&
        strcmp(g->name, f->name) == 0)
      return 1;
  }
  return 0;
}

/* A finding about a copy this process has already (put first by LD_PRELOAD,
 * or loaded before cudaload ran): who loaded it, and that fix, as
 * cudaload_preload says it. 1 when it was reported so, 0 when it is no
 * such finding, -1 out of memory. */
static int in_process_problem(cl_doctor *d, const cl_loader_model *m,
                              const cl_finding *f) {
  cl_problem copy;
  int had = m ? cl_plan_finding_in_process(m, f, &copy) : 0;
  if (had > 0) {
    d->failed |= !cl_problem_add_copy(&d->problems, &copy);
    cl_problem_free(&copy);
    return 1;
  }
  return had;
}

/* m: this process (NULL when it could not be modelled). A copy it has
 * already that the environment's programs would take (an older NCCL put
 * first by LD_PRELOAD, under torch's libtorch_cuda.so) is no "without
 * cudaload" problem: running them through cudaload keeps that copy (exec
 * refuses, setup() raises), so it is said as the plan's own is. */
static void as_it_is_problems(cl_doctor *d, const cudaload_explain *as_is,
                              size_t environment_first,
                              const cudaload_explain *with_plan,
                              const cl_loader_model *m) {
  for (size_t i = 0; as_is && i < as_is->finding_count; ++i) {
    const cl_finding *f = &as_is->findings[i];
    /* The environment's programs, not asked about, count for the names
     * the requirements plan (what cudaload would load for them). */
    if (i >= environment_first && !required_name(d->ctx, f->name))
      continue;
    if (f->note) {
      add_note(d, &f->problem);
      continue;
    }
    if (f->kind == CL_FINDING_CUDA_MAJORS ||
        f->kind == CL_FINDING_TWO_VERSIONS ||
        cl_problem_list_has(&d->problems, &f->problem) ||
        fails_with_plan(with_plan, f))
      continue;
    if (f->kind == CL_FINDING_NOT_FOUND) {
      not_found_problem(d, as_is, i, environment_first);
      continue;
    }
    int had = in_process_problem(d, m, f);
    d->failed |= had < 0;
    if (had)
      continue;
    /* The finding's own fix, said first, then the one that runs the
     * program through cudaload. */
    cl_problem *p = finding_problem(d, f);
    fact(d, p, CUDALOAD_FACT_CONDITION, CUDALOAD_FROM_MACHINE, "as-it-is");
    if (p && f->kind == CL_FINDING_NOT_FOUND)
      cl_fix_free(&p->fix);
    if (p)
      through_cudaload_fix(d->ctx, &p->fix, f->consumer, NULL);
  }
}

static void verdict_problems(cl_doctor *d) {
  cl_loader_model m;
  cudaload_explain *e = NULL;
  /* A library that cannot be read is the preload's to report. */
  cl_asking unread; /* a library that cannot be read is the preload's */
  cl_asking_begin(&unread);
  int rc = cl_loader_model_init_host(&m);
  int have_model = rc == CUDALOAD_OK;
  if (!rc)
    rc = cl_verdict_of_plan(d->ctx, &m, cl_manifest_preload_flags(d->ctx), &e);
  size_t environment_first = SIZE_MAX;
  cudaload_explain *as_is = cl_plan_state_of(d->ctx)->plan_count
                                ? verdict_as_it_is(d, &environment_first)
                                : NULL;
  cl_asking_end(&unread);
  if (rc == CUDALOAD_E_NO_MEMORY)
    d->failed = 1;
  for (size_t i = 0; e && i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    /* A second CUDA major the plan took on purpose (named by a requirement,
     * or the only one there is) is said in the plan, not a problem. */
    if (f->kind == CL_FINDING_CUDA_MAJORS && plan_has_second_major(d->ctx))
      continue;
    if (f->note) {
      add_note(d, &f->problem);
      continue;
    }
    /* A copy this process has already: who loaded it, and that fix. */
    int had = in_process_problem(d, have_model ? &m : NULL, f);
    d->failed |= had < 0;
    if (had)
      continue;
    cl_problem *p = finding_problem(d, f);
    if (p && !p->fix.count)
      cl_fix_add_note(&p->fix, CL_NOTE_EXPLAIN_SAYS_MORE);
  }
  as_it_is_problems(d, as_is, environment_first, e, have_model ? &m : NULL);
  if (have_model)
    cl_loader_model_free(&m);
  cudaload_explain_free(as_is);
  cudaload_explain_free(e);
}

/* The plan's warnings (a library a chosen one opens lazily that no root
 * holds, plan.c), unless the loader model above already reported a lazy
 * open of that file: the model sees only what the files say, the plan what
 * the catalog knows (a sub-library left to its main library is not
 * modelled), so each can miss what the other finds. */
static void plan_warning_problems(cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_warning_count; ++i) {
    const cl_plan_warning *w = &cl_plan_state_of(ctx)->plan_warnings[i];
    /* The plan's own lazy open repeats what the loader model said; the
     * program's own problems (--for) are said once, whatever the model. */
    if (w->problem.kind == CUDALOAD_PROBLEM_LAZY_UNPROVIDED &&
        names_reported(d, w->file))
      continue;
    add_record(d, &w->problem);
  }
}

/* A sub-library (cublasLt, cudnn_ops) whose main library of the same major
 * is nowhere: a broken or partial install that nothing can use. */
static void orphan_problems(cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count; ++i) {
    const cl_library *sub = &cl_inventory_of(ctx)->libraries[i];
    if (sub->entry->role != CL_ROLE_SUB)
      continue;
    int main_found = 0, reported = 0;
    for (size_t k = 0; k < cl_inventory_of(ctx)->library_count && !main_found;
         ++k) {
      const cl_library *l = &cl_inventory_of(ctx)->libraries[k];
      main_found = l->entry->role == CL_ROLE_MAIN && l->major == sub->major &&
                   !strcmp(l->entry->family, sub->entry->family);
    }
    /* One problem per family and major. */
    for (size_t k = 0; k < i && !reported; ++k) {
      const cl_library *l = &cl_inventory_of(ctx)->libraries[k];
      reported = l->entry->role == CL_ROLE_SUB && l->major == sub->major &&
                 !strcmp(l->entry->family, sub->entry->family);
    }
    if (main_found || reported)
      continue;
    char *folder = cl_path_dirname(sub->path);
    cl_problem *p = add(d, CUDALOAD_PROBLEM_ORPHAN);
    fact(d, p, CUDALOAD_FACT_FAMILY, CUDALOAD_FROM_MACHINE, sub->entry->family);
    fact(d, p, CUDALOAD_FACT_LIBRARY, CUDALOAD_FROM_MACHINE, sub->entry->name);
    cl_problem_fact_int(&d->problems, p, CUDALOAD_FACT_MAJOR,
                        CUDALOAD_FROM_MACHINE, sub->major);
    fact(d, p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE, sub->path);
    if (p)
      cl_fix_add_note(&p->fix, CL_NOTE_REINSTALL_WHOLE_OR_DELETE_STRAY,
                      sub->entry->family, sub->major,
                      folder ? folder : CL_NOTE_ITS_FOLDER,
                      cl_path_basename(sub->path));
    free(folder);
  }
}

/* A folder an environment's cudaload.roots names that cannot be searched,
 * or the record itself (scan/recorded_roots.h): the environment said the
 * folder is its own, so its loss is a problem wherever the roots came
 * from. The fix names the record and its line. */
static void recorded_root_problem(cl_doctor *d, const cl_root *r) {
  int is_record = strcmp(r->path, r->record) == 0;
  cl_problem *p = add(d, CUDALOAD_PROBLEM_ROOT_UNUSABLE);
  fact(d, p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE, r->path);
  if (is_record)
    fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
         r->detail ? r->detail : cudaload_root_status_name(r->status));
  else if (p)
    cl_problem_factf(&d->problems, p, CUDALOAD_FACT_REASON,
                     CUDALOAD_FROM_MACHINE, CL_WORDS_NAMED_IN_THE_RECORD,
                     cudaload_root_status_name(r->status), r->record);
  if (!p)
    return;
  if (is_record)
    cl_fix_add_note(&p->fix, CL_NOTE_CORRECT_ROOTS_RECORD, r->record);
  else
    cl_fix_add_note(&p->fix, CL_NOTE_REMOVE_RECORDED_ROOT_LINE, r->record);
}

static void root_problems(cl_doctor *d) {
  for (size_t i = 0; i < cl_inventory_of(d->ctx)->root_count; ++i) {
    const cl_root *r = &cl_inventory_of(d->ctx)->roots[i];
    int source = strcmp(r->origin, "explicit") == 0 ? CUDALOAD_FROM_REQUEST
                                                    : CUDALOAD_FROM_MACHINE;
    if (r->status == CUDALOAD_E_INSECURE) {
      cl_problem *p = add(d, CUDALOAD_PROBLEM_ROOT_REFUSED);
      fact(d, p, CUDALOAD_FACT_PATH, source, r->path);
      fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE, r->detail);
      if (p)
        cl_fix_add_note(&p->fix, CL_NOTE_ROOT_FIX_THEN_RISK,
                        r->fix ? r->fix : CL_NOTE_MAKE_WRITABLE_ONLY_BY_OWNER,
                        CL_ALLOW_WRITABLE_RISK);
      continue;
    }
    if (r->status != CUDALOAD_OK && r->record &&
        strcmp(r->origin, CL_ORIGIN_RECORDED) == 0) {
      recorded_root_problem(d, r);
      continue;
    }
    if (r->status == CUDALOAD_OK || strcmp(r->origin, "explicit") != 0)
      continue;
    cl_problem *p = add(d, CUDALOAD_PROBLEM_ROOT_UNUSABLE);
    fact(d, p, CUDALOAD_FACT_PATH, source, r->path);
    fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
         cudaload_root_status_name(r->status));
    if (!p)
      continue;
    if (r->status == CUDALOAD_E_NOT_A_FILE) {
      /* A file given as a root: no permission makes it a folder; the one
       * that holds it is what was meant. */
      char *folder = cl_path_dirname(r->path);
      cl_fix_add_note(&p->fix, CL_NOTE_ROOT_IS_A_FOLDER,
                      folder ? folder : r->path);
      free(folder);
      continue;
    }
    cl_fix_add_note(
        &p->fix, CL_NOTE_CORRECT_ROOT_FOLDER,
        r->status == CUDALOAD_E_NOT_FOUND ? "" : CL_NOTE_OR_MAKE_IT_READABLE);
  }
}

/* The devices, the display watchdog and the CUDA variables
 * (runtime_problems.c). */
static void runtime_problems(cl_doctor *d) {
  cl_runtime_facts facts = {d->probe, &d->knobs, &d->watchdog};
  d->probe_explained = cl_runtime_problems(&facts, &d->problems);
}

/* What the error messages read into ctx show here (message_problems.c). */
static void error_message_problems(cl_doctor *d) {
  cl_error_message_facts facts = {d->ctx, d->driver_path, &d->driver_files,
                                  d->probe};
  cl_message_problems(&facts, &d->problems);
}

void cl_doctor_find_problems(cl_doctor *d) {
  error_message_problems(d);
  unsatisfied_problems(d);
  root_problems(d);
  load_failure_problems(d);
  conflict_problems(d);
  driver_problems(d);
  zlib_problem(d);
  verdict_problems(d);
  plan_warning_problems(d);
  orphan_problems(d);
  runtime_problems(d);
  probe_problems(d);
}
