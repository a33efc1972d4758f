/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - cudaload_doctor(): the whole diagnosis in one report, as text
 * for a person or as JSON/YAML for a program (docs/doctor.md is the schema).
 *
 * The doctor gathers first (scan, plan, probe, the process's modules) and
 * writes afterwards, so every format says the same thing. Each problem gets
 * exactly one fix line: a report that only lists symptoms sends the user
 * searching.
 */
#include "scan/catalog.h"
#include "core/context.h"
#include "problem/problem.h"
#include "problem/problem_words.h"
#include "load/error_message.h"
#include "load/manifest.h"
#include "load/spec.h"
#include "load/plan.h"
#include "load/program.h"
#include "scan/inventory.h"
#include "cudaload.h"
#include "scan/cuda_knobs.h"
#include "scan/driver_version.h"
#include "load/plan_judge.h"
#include "load/verdict.h"
#include "common/buf.h"
#include "common/shell_word.h"
#include "common/error.h"
#include "scan/ldcache.h"
#include "os/loader.h"
#include "os/platform.h"
#include "probe/probe_result.h"
#include "report/report_inventory.h"
#include "report/report_probe.h"
#include "report/report_text.h"
#include "report/report_watchdog.h"
#include "report/error_message_report.h"
#include "report/runtime_problems.h"
#include "report/report_writer.h"
#include "load/resolve.h"
#include "scan/roots.h"
#include "common/strutil.h"
#include "common/text_escape.h"
#include "load/plan_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_DOCTOR_FLAGS                                                        \
  (CUDALOAD_DOCTOR_PROBE | CUDALOAD_DOCTOR_COLOR |                             \
   CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS)

/* Where the text of a section lines up: labels, then values. */
#define LABEL_WIDTH 14

typedef struct doctor {
  cudaload_ctx *ctx;
  unsigned flags;
  char *plan_error; /* the plan's explanation when unsatisfied */
  char **loaded;    /* CUDA libraries this process has */
  size_t loaded_count, loaded_capacity;
  cudaload_probe *probe; /* NULL when not run or failed */
  char *probe_error;     /* why the probe could not run */
  char *driver_path;     /* NULL: none found */
  char *driver_version;
  const char *driver_source; /* "probe", "scan", "loaded" */
  int driver_cuda;           /* cuDriverGetVersion, 0 unknown */
  /* The driver's version from its files, without loading it (what the
   * plan checks CUDA majors against). */
  cl_driver_cuda driver_files;
  /* Every problem found, as records (problem/problem.h), in the order
   * found; notes among them (a search list that looks in the current
   * folder, a plugin the program runs without) stop nothing loading, and
   * the exit status does not count them. */
  cl_problem_list problems;
  cl_cuda_knobs knobs;          /* the CUDA variables set (scan/cuda_knobs.c) */
  cl_display_watchdog watchdog; /* Windows' TDR settings */
  int probe_explained; /* a runtime problem says why the probe fell back */
  int failed;          /* out of memory somewhere */
} doctor;

/* --- small helpers ----------------------------------------------------- */

/* The shells the host's fix lines are pasted into. */
static cl_shell_kind host_shell(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS
             ? CL_SHELL_CMD_AND_POWERSHELL
             : CL_SHELL_POSIX;
}

/* A new problem of kind, or NULL when out of memory (then the setters do
 * nothing and the report says it ran out). */
static cl_problem *add(doctor *d, int kind) {
  return cl_problem_add(&d->problems, kind);
}

static void fact(doctor *d, cl_problem *p, int which, int source,
                 const char *value) {
  cl_problem_fact(&d->problems, p, which, source, value);
}

/* A problem whose sentence its stage wrote (a finding, a warning), with a
 * fix its stage gave only in words. */
static cl_problem *add_said(doctor *d, int kind, const char *text,
                            const char *fix_words) {
  cl_problem *p = add(d, kind);
  cl_problem_say(&d->problems, p, text);
  if (p && fix_words)
    cl_fix_add_note(&p->fix, "%s", fix_words);
  return p;
}

/* A finding that stops nothing loading, once. */
static void add_note(doctor *d, int kind, const char *text, const char *fix) {
  for (size_t i = 0; i < d->problems.count; ++i)
    if (d->problems.items[i].note && d->problems.items[i].said &&
        strcmp(d->problems.items[i].said, text) == 0)
      return;
  cl_problem *p =
      add_said(d, kind, text, fix ? fix : "cudaload explain says more");
  if (p)
    p->note = 1;
}

static const char *host_arch(void) {
  const char *machine = cl_os_host_machine();
  return machine ? machine : "unknown";
}

/* The naming of the files this process loads, whatever the scan target. */
static cl_naming host_naming(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS ? CL_NAMING_WINDOWS
                                                        : CL_NAMING_LINUX;
}

/* --- gathering --------------------------------------------------------- */

/* The doctor's own plan for the user's requirements (cudaload_doctor()
 * put a state of its own in the user's place): the user's plan, and its
 * strings, stay as they were. What the user's plan loaded (a report made
 * after cudaload_preload()) is carried over by path, so the report still
 * says what was loaded. */
static int plan_requirements(doctor *d, const cl_plan_state *users) {
  cudaload_ctx *ctx = d->ctx;
  if (cl_plan_state_of(ctx)->requirement_count == 0)
    return CUDALOAD_OK;
  int rc = cudaload_plan(ctx, cl_manifest_preload_flags(ctx));
  if (rc == CUDALOAD_E_UNSATISFIED) {
    d->plan_error = cl_strdup(cudaload_last_error());
    d->failed |= !d->plan_error;
    rc = CUDALOAD_OK;
  }
  const cl_plan_state *own = cl_plan_state_of(ctx);
  for (size_t i = 0; users && i < own->plan_count && !rc; ++i)
    for (size_t k = 0; k < users->plan_count; ++k) {
      const cl_plan_entry *was = &users->plan[k];
      if (was->state == CUDALOAD_STATE_PLANNED ||
          was->state == CUDALOAD_STATE_NOT_NEEDED || !was->loaded_path ||
          strcmp(was->path, own->plan[i].path) != 0)
        continue;
      char *loaded = cl_strdup(was->loaded_path);
      if (!loaded)
        return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
      free(own->plan[i].loaded_path);
      own->plan[i].loaded_path = loaded;
      own->plan[i].state = was->state;
    }
  return rc;
}

static void collect_loaded(const char *path, void *opaque) {
  doctor *d = opaque;
  cl_name_match m;
  if (!cl_catalog_match(cl_path_basename(path), host_naming(), &m))
    return;
  for (size_t i = 0; i < d->loaded_count; ++i)
    if (!strcmp(d->loaded[i], path))
      return;
  char *copy = cl_strdup(path);
  if (!copy || cl_reserve((void **)&d->loaded, &d->loaded_capacity,
                          d->loaded_count + 1, sizeof(char *))) {
    free(copy);
    d->failed = 1;
    return;
  }
  d->loaded[d->loaded_count++] = copy;
}

/* nvcuda.dll's VERSIONINFO encodes the driver: 32.0.15.8097 is 580.97 (the
 * last digit of the third part and the fourth part). */
static char *windows_driver_version(const char *versioninfo) {
  long parts[CL_VERSION_PARTS];
  if (cl_version_parse(versioninfo, parts) != 4 || parts[0] < 20)
    return NULL;
  long branch = (parts[2] % 10) * 100 + parts[3] / 100;
  return cl_strdup_printf("%ld.%02ld", branch, parts[3] % 100);
}

static void find_driver(doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  const cl_library *scanned = NULL;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !scanned; ++i)
    if (!strcmp(cl_inventory_of(ctx)->libraries[i].entry->name, "cuda"))
      scanned = &cl_inventory_of(ctx)->libraries[i];
  if (d->probe) {
    const char *path = cudaload_probe_driver_path(d->probe);
    d->driver_cuda = cudaload_probe_driver_version(d->probe);
    if (path && *path) {
      d->driver_path = cl_strdup(path);
      d->driver_source = "probe";
    }
  }
  if (!d->driver_path && scanned) {
    d->driver_path = cl_strdup(scanned->path);
    d->driver_source = "scan";
  }
  if (!d->driver_path && !d->probe) {
    char *present = cl_os_loader_find_loaded(cl_os_driver_name());
    if (present) {
      d->driver_path = present;
      d->driver_source = "loaded";
    }
  }
  if (!d->driver_path)
    return;
  /* The driver's own version, from its file (name or VERSIONINFO). */
  char *kept = cl_save_error(); /* a path that does not resolve: use it */
  char *real = cl_os_real_path(d->driver_path);
  cl_restore_error(kept);
  const cl_library *lib =
      cl_inventory_library_at(ctx, real ? real : d->driver_path);
  free(real);
  if (!lib)
    lib = scanned;
  if (lib && lib->version[0]) {
    if (!strcmp(lib->version_source, "versioninfo"))
      d->driver_version = windows_driver_version(lib->version);
    else
      d->driver_version = cl_strdup(lib->version);
  }
}

static void run_probe(doctor *d) {
  unsigned probe_flags = (d->flags & CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS)
                             ? CUDALOAD_PROBE_OUT_OF_PROCESS
                             : 0;
  cudaload_probe *probe = NULL;
  int rc = cudaload_probe_run(d->ctx, probe_flags, 0, &probe);
  if (rc != CUDALOAD_OK) {
    d->probe_error = cl_strdup_printf("%s", cudaload_last_error());
    d->failed |= !d->probe_error;
    cudaload_probe_free(probe);
    return;
  }
  d->probe = probe;
  /* An in-process probe preloads the plan: see what that did to the
   * global scope. */
  char *kept = cl_save_error(); /* what it finds is data; none is none */
  if (cl_plan_detect_conflicts(d->ctx) == CUDALOAD_E_NO_MEMORY)
    d->failed = 1;
  cl_restore_error(kept);
}

/* What the process and the system say, beside the libraries. */
static void gather_system(doctor *d) {
  cl_os_loader_each_loaded(collect_loaded, d);
  find_driver(d);
  if (cl_cuda_knobs_read(&d->knobs) != CUDALOAD_OK)
    d->failed = 1;
  cl_os_display_watchdog_read(&d->watchdog);
  if (cl_driver_cuda_read(host_naming(), d->ctx->probe_driver_path,
                          &d->driver_files) != CUDALOAD_OK)
    d->failed = 1;
}

/* --- problems ---------------------------------------------------------- */

/* The block of the plan's report about one requirement: from the line
 * "<spec>: no usable ..." to the next line that is not indented. */
static int requirement_satisfied(const cudaload_ctx *ctx, size_t r,
                                 const char **path) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->plan_count; ++i)
    if (ps->plan[i].requirement == r &&
        ps->plan[i].entry->role == CL_ROLE_MAIN) {
      if (path)
        *path = ps->plan[i].path;
      return 1;
    }
  if (path)
    *path = NULL;
  return 0;
}

/* The library chosen for requirement r, NULL when none. */
static const cl_library *chosen_library(const cudaload_ctx *ctx, size_t r) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (r >= ps->outcome_count || ps->outcomes[r].chosen >= inv->library_count)
    return NULL;
  return &inv->libraries[ps->outcomes[r].chosen];
}

/* What decided a choice: "tier environment (VIRTUAL_ENV), CUDA 12", and
 * when it is not the plan's major, why another. */
static void describe_choice(const cudaload_ctx *ctx, size_t r, char *out,
                            size_t size) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  const cl_library *lib = chosen_library(ctx, r);
  out[0] = '\0';
  if (!lib)
    return;
  const char *origin = cl_inventory_of(ctx)->roots[lib->root].origin;
  int n = snprintf(out, size, "tier %s (%s)",
                   cl_tier_name(cl_origin_tier(origin)), origin);
  int second = ps->outcomes[r].second_major;
  if (n > 0 && (size_t)n < size && lib->cuda_major > 0)
    snprintf(out + n, size - (size_t)n, ", CUDA %d%s", lib->cuda_major,
             second ? (cl_catalog_cuda_major(
                           ps->requirements[r].entry,
                           (int)ps->requirements[r].version[0]) == second
                           ? ": a second CUDA major, named by the requirement"
                           : ": a second CUDA major, the only one that "
                             "satisfies the requirement")
                    : "");
}

/* Where a requirement came from (CUDALOAD_FROM_*). */
static int requirement_source(const cl_requirement *r) {
  return r->source ? r->source : CUDALOAD_FROM_REQUEST;
}

static void unsatisfied_problems(doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r) {
    const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
    if (requirement_satisfied(ctx, r, NULL))
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
      cl_fix_add_note(&p->fix,
                      "add the folder that holds %s with --root or in the "
                      "manifest's roots",
                      req->entry->name);
  }
}

static void conflict_problems(doctor *d) {
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->conflict_count; ++i) {
    const cl_conflict *c = &cl_plan_state_of(d->ctx)->conflicts[i];
    cl_problem *p = add_said(d, CUDALOAD_PROBLEM_CONFLICT, c->problem, c->fix);
    fact(d, p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE, c->path);
  }
}

static void load_failure_problems(doctor *d) {
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
    cl_fix_note(&p->fix, inspect,
                "it lists what the file needs; put the missing libraries "
                "beside it or on %s",
                cudaload_env_name());
  }
}

static void install_driver_fix(cl_fix *fix) {
  cl_fix_add_note(fix, "%s",
                  host_naming() == CL_NAMING_WINDOWS
                      ? "install the NVIDIA driver "
                        "(https://www.nvidia.com/drivers), then check with "
                        "nvidia-smi"
                      : "install the NVIDIA driver (Ubuntu: sudo "
                        "ubuntu-drivers install; others: "
                        "https://www.nvidia.com/drivers), then check with "
                        "nvidia-smi");
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
      return host_naming() == CL_NAMING_WINDOWS ? table[i].windows_branch
                                                : table[i].linux_branch;
  return 0;
}

static void driver_problems(doctor *d) {
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
    const cl_library *lib =
        cl_inventory_library_at(ctx, cl_plan_state_of(ctx)->plan[i].path);
    if (lib && lib->cuda_major > cuda_needed) {
      cuda_needed = lib->cuda_major;
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
    cl_fix_add_note(&p->fix,
                    "update the NVIDIA driver to %ld or newer, or use CUDA %d "
                    "builds of the libraries",
                    minimum, cuda_needed - 1);
}

static const char *probe_fix(int reason) {
  switch (reason) {
  case CUDALOAD_REASON_DRIVER_BROKEN:
    return "reinstall the NVIDIA driver: its libcuda lacks entry points";
  case CUDALOAD_REASON_INIT_FAILED:
    return "run nvidia-smi; if it fails too, reload the driver (reboot after "
           "a driver update)";
  case CUDALOAD_REASON_NO_DEVICE:
    return "make a GPU visible: check nvidia-smi and CUDA_VISIBLE_DEVICES; "
           "in a container, run it with --gpus all";
  case CUDALOAD_REASON_DRIVER_TOO_OLD:
    return "update the NVIDIA driver to one that supports the planned CUDA "
           "runtime, or require an older CUDA major";
  case CUDALOAD_REASON_DEVICE_FAILED:
    return "check nvidia-smi for errors and for GPU memory used up by other "
           "processes";
  case CUDALOAD_REASON_MISSING_LIBRARY:
    return "add the missing library: see the fix lines of the requirements";
  case CUDALOAD_REASON_LIBRARY_FAILED:
    return "reinstall the library that failed as one release of the CUDA "
           "major of the runtime and driver: cuBLAS and cuBLASLt together, "
           "cuDNN with its sub-libraries (pip install --force-reinstall of "
           "one CUDA major's wheels, or the toolkit's package)";
  case CUDALOAD_REASON_WRONG_RESULT:
    return "check nvidia-smi -q for ECC errors and update the NVIDIA driver";
  case CUDALOAD_REASON_TIMEOUT:
    return "the driver hung: run nvidia-smi; a reboot usually clears it";
  case CUDALOAD_REASON_PROBE_CRASHED:
    return "update the NVIDIA driver; run cudaload doctor --probe in-process "
           "under a debugger to see where it crashes";
  default:
    return NULL;
  }
}

static void probe_problems(doctor *d) {
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
  if (!stage_said)
    cl_problem_say(&d->problems, p, cudaload_probe_summary(d->probe));
  const char *fix = probe_fix(reason);
  if (!p)
    return;
  if (reason == CUDALOAD_REASON_NO_DRIVER)
    install_driver_fix(&p->fix);
  else
    cl_fix_add_note(&p->fix, "%s", fix ? fix : "see the probe's stages above");
}

static void find_zlib_key(const char *key, const char *path, void *opaque) {
  (void)path;
  if (!strcmp(key, "libz.so.1"))
    *(int *)opaque = 1;
}

/* Is the system's zlib visible to the dynamic loader: in its cache, in the
 * usual folders, or already loaded? */
static int have_system_zlib(void) {
  int in_cache = 0;
  char *kept = cl_save_error(); /* no cache, or a broken one: look further */
  cl_ldcache_read("/etc/ld.so.cache", find_zlib_key, &in_cache);
  cl_restore_error(kept);
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
static void zlib_problem(doctor *d) {
  if (host_naming() != CL_NAMING_LINUX)
    return;
  const cl_plan_entry *cudnn = NULL;
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->plan_count && !cudnn; ++i)
    if (!strcmp(cl_plan_state_of(d->ctx)->plan[i].entry->family, "cudnn") &&
        cl_plan_state_of(d->ctx)->plan[i].major >= 9)
      cudnn = &cl_plan_state_of(d->ctx)->plan[i];
  if (!cudnn || have_system_zlib())
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
  cl_fix_note(&p->fix, apt,
              "Fedora/RHEL: dnf install zlib; Alpine: apk add zlib");
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

/* The options that give the tool this doctor's search: --no-defaults and
 * every root given, so that a printed command finds what the doctor found;
 * then the requirements. As words of step. */
static void search_words(cl_fix *fix, cl_fix_step *step,
                         const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS)
    cl_fix_arg(fix, step, "--no-defaults");
  for (size_t i = 0; i < ctx->explicit_count; ++i) {
    cl_fix_arg(fix, step, "--root");
    cl_fix_arg(fix, step, ctx->explicit_roots[i]);
  }
  cl_buf specs = CL_BUF_INIT;
  for (size_t r = 0; r < ps->requirement_count; ++r)
    cl_buf_printf(&specs, "%s%s", r ? "," : "", ps->requirements[r].text);
  char *joined = cl_buf_take(&specs);
  cl_fix_arg(fix, step, "--require");
  if (joined)
    cl_fix_arg(fix, step, joined);
  else
    fix->failed = 1;
  free(joined);
}

/* The same options as one line of text, for the note that names the other
 * ways (env, Python). */
static void search_text(cl_buf *b, const cudaload_ctx *ctx) {
  cl_fix words = CL_FIX_INIT;
  cl_fix_step *s = cl_fix_add(&words, CUDALOAD_FIX_COMMAND);
  search_words(&words, s, ctx);
  if (s && !words.failed) {
    cl_buf_puts(b, " ");
    /* An unspellable root reads DIR here, as in the command. */
    (void)cl_fix_command_line(b, s, host_shell());
  } else {
    b->failed = 1;
  }
  cl_fix_free(&words);
}

/* The fix for what fails only without cudaload: have it load the plan. */
static void through_cudaload_fix(const cudaload_ctx *ctx, cl_fix *fix,
                                 const char *first) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (first)
    cl_fix_add_note(fix, "%s", first);
  cl_fix_step *exec = cl_fix_add(fix, CUDALOAD_FIX_RUN_PROGRAM);
  cl_fix_arg(fix, exec, "cudaload");
  cl_fix_arg(fix, exec, "exec");
  search_words(fix, exec, ctx);
  cl_fix_arg(fix, exec, "--");
  cl_fix_arg(fix, exec, "PROGRAM");
  cl_buf b = CL_BUF_INIT;
  cl_buf_printf(&b, "run the program through cudaload (PROGRAM: the "
                    "program's command); or ");
  if (host_naming() == CL_NAMING_WINDOWS) {
    cl_buf_printf(&b, "run what cudaload env --shell cmd");
    search_text(&b, ctx);
    cl_buf_printf(&b, " prints (PowerShell: --shell powershell) before it");
  } else {
    cl_buf_printf(&b, "eval \"$(cudaload env");
    search_text(&b, ctx);
    cl_buf_printf(&b, ")\" before it");
  }
  cl_buf_printf(&b, "; in Python, cudaload.setup(require=[");
  for (size_t r = 0; r < ps->requirement_count; ++r)
    cl_buf_printf(&b, "%s\"%s\"", r ? ", " : "", ps->requirements[r].text);
  cl_buf_printf(&b, "]");
  if (ctx->explicit_count) {
    cl_buf_printf(&b, ", roots=[");
    for (size_t i = 0; i < ctx->explicit_count; ++i)
      cl_buf_printf(&b, "%sr\"%s\"", i ? ", " : "", ctx->explicit_roots[i]);
    cl_buf_printf(&b, "]");
  }
  cl_buf_printf(&b, ") before the import");
  char *note = cl_buf_take(&b);
  if (note)
    cl_fix_note(fix, exec, "%s", note);
  else
    fix->failed = 1;
  free(note);
}

static int reported(const doctor *d, const char *text) {
  return cl_problem_list_says(&d->problems, text);
}

/* The programs of the environment roots the scan searched (a venv, a
 * conda prefix), when none was given (--for): what the user runs there. */
static int environment_programs(doctor *d, cl_program_set *set) {
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

/* The plan's files as the process has them now, without cudaload: the
 * program's own files, when it is known (--for), opened as it opens them;
 * else each main library opened by absolute path (however the program
 * finds it), and the programs of the active environment. Their needs and
 * run-time opens are resolved in this environment as it is. What fails
 * here and not once the plan is preloaded is what the user's error comes
 * from, and cudaload is its fix. */
static cudaload_explain *verdict_as_it_is(doctor *d,
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
  rc = cl_verdict_preloads(e, d->ctx, &m, 1);
  cl_program_set program = cl_program_set_of(d->ctx);
  if (!rc && program.file_count)
    rc = cl_verdict_open_program(e, d->ctx, &m, &program, CL_VERDICT_CONSUMER);
  for (size_t i = 0;
       !rc && !program.file_count && i < cl_plan_state_of(d->ctx)->plan_count;
       ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(d->ctx)->plan[i];
    if (p->entry->role == CL_ROLE_MAIN &&
        p->requirement < cl_plan_state_of(d->ctx)->requirement_count)
      rc = cl_verdict_open(e, d->ctx, &m, p->path, 0);
  }
  if (!rc && cl_plan_state_of(d->ctx)->program_file_count)
    cl_verdict_mixes_in(e, &m, "in what the program would load");
  cl_loader_model_free(&m);
  /* The environment's programs, each in a process of its own that has
   * loaded nothing by path before them. */
  cl_program_set around = {0};
  if (!rc && !program.file_count)
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

/* The names one opener needs (lazy 0) or opens by name (lazy 1) that are
 * not found as it is, joined: "libcublasLt.so.12, libcublas.so.12". */
static char *names_not_found_from(const cudaload_explain *e,
                                  const char *consumer, int lazy,
                                  size_t *count) {
  cl_buf b = CL_BUF_INIT;
  *count = 0;
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    if (f->kind != CL_FINDING_NOT_FOUND || !f->lazy != !lazy || !f->consumer ||
        strcmp(f->consumer, consumer) != 0)
      continue;
    cl_buf_printf(&b, "%s%s", *count ? ", " : "", f->name);
    ++*count;
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
        g->consumer && strcmp(g->consumer, f->consumer) == 0 &&
        (k < environment_first || required_name(ctx, g->name)))
      return 0;
  }
  return 1;
}

/* The problem kind of a loader model's finding. */
static int finding_kind(const cl_finding *f) {
  switch (f->kind) {
  case CL_FINDING_NOT_FOUND:
    return f->lazy ? CUDALOAD_PROBLEM_LAZY_NOT_FOUND
                   : CUDALOAD_PROBLEM_NOT_FOUND;
  case CL_FINDING_UNDEFINED_SYMBOLS:
    return CUDALOAD_PROBLEM_SYMBOLS_MISSING;
  case CL_FINDING_WRONG_LIBRARY:
    return CUDALOAD_PROBLEM_WRONG_LIBRARY;
  case CL_FINDING_SIBLING_SHADOWED:
    return CUDALOAD_PROBLEM_SHADOWED;
  case CL_FINDING_BINDS_ELSEWHERE:
    return CUDALOAD_PROBLEM_BINDS_ELSEWHERE;
  case CL_FINDING_TWO_VERSIONS:
    return CUDALOAD_PROBLEM_TWO_VERSIONS;
  case CL_FINDING_CUDA_MAJORS:
    return CUDALOAD_PROBLEM_CUDA_MAJORS;
  case CL_FINDING_EMPTY_ENTRY:
    return CUDALOAD_PROBLEM_EMPTY_ENTRY;
  case CL_FINDING_UNREADABLE:
    return CUDALOAD_PROBLEM_UNREADABLE;
  case CL_FINDING_PROCESS:
    return CUDALOAD_PROBLEM_IN_PROCESS;
  case CL_FINDING_PLUGIN_UNUSABLE:
    return CUDALOAD_PROBLEM_PLUGIN_UNUSABLE;
  default: /* CL_FINDING_STOPPED */
    return CUDALOAD_PROBLEM_STOPPED;
  }
}

/* A problem of kind from finding f, its facts the finding's; its sentence
 * the loader model's (verdict.c). */
static cl_problem *finding_problem(doctor *d, int kind, const cl_finding *f,
                                   const char *said) {
  cl_problem *p = add(d, kind);
  cl_problem_say(&d->problems, p, said);
  fact(d, p, CUDALOAD_FACT_CONSUMER, CUDALOAD_FROM_MACHINE, f->consumer);
  fact(d, p, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE,
       f->names ? f->names : f->name);
  fact(d, p, CUDALOAD_FACT_TAKEN, CUDALOAD_FROM_MACHINE, f->taken);
  fact(d, p, CUDALOAD_FACT_BETTER, CUDALOAD_FROM_MACHINE, f->better);
  if (f->taken)
    fact(d, p, CUDALOAD_FACT_RULE, CUDALOAD_FROM_MACHINE,
         cl_resolve_rule_name(f->rule));
  return p;
}

/* One problem for all an opener does not find, as it is: the names it
 * needs (its load fails at the first), or those it opens by name later. */
static void not_found_problem(doctor *d, const cudaload_explain *as_is,
                              size_t i, size_t environment_first) {
  const cl_finding *f = &as_is->findings[i];
  if (!first_not_found_of(d->ctx, as_is, i, environment_first))
    return;
  size_t count;
  char *names = names_not_found_from(as_is, f->consumer, f->lazy, &count);
  if (!names) {
    d->failed = 1;
    return;
  }
  /* One name: the loader model's own sentence says where it looked. */
  cl_problem *p = finding_problem(d, finding_kind(f), f,
                                  count == 1 && !f->lazy ? f->text : NULL);
  fact(d, p, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE, names);
  fact(d, p, CUDALOAD_FACT_CONDITION, CUDALOAD_FROM_MACHINE, "as-it-is");
  /* Where the loader looked, as the first finding says it. */
  const char *looked = strstr(f->text, " (rule: not-found");
  if (looked && !f->lazy && count > 1) {
    char *inside = cl_strndup(
        looked + 2, strlen(looked + 2) - (cl_ends_with(looked, ")") ? 1 : 0));
    fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE, inside);
    d->failed |= !inside;
    free(inside);
  }
  if (p)
    through_cudaload_fix(d->ctx, &p->fix, NULL);
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

static void as_it_is_problems(doctor *d, const cudaload_explain *as_is,
                              size_t environment_first,
                              const cudaload_explain *with_plan) {
  for (size_t i = 0; as_is && i < as_is->finding_count; ++i) {
    const cl_finding *f = &as_is->findings[i];
    /* The environment's programs, not asked about, count for the names
     * the requirements plan (what cudaload would load for them). */
    if (i >= environment_first && !required_name(d->ctx, f->name))
      continue;
    if (f->note) {
      add_note(d, finding_kind(f), f->text, f->fix);
      continue;
    }
    if (f->kind == CL_FINDING_CUDA_MAJORS ||
        f->kind == CL_FINDING_TWO_VERSIONS || reported(d, f->text) ||
        fails_with_plan(with_plan, f))
      continue;
    if (f->kind == CL_FINDING_NOT_FOUND && f->consumer) {
      not_found_problem(d, as_is, i, environment_first);
      continue;
    }
    cl_problem *p = finding_problem(d, finding_kind(f), f, f->text);
    fact(d, p, CUDALOAD_FACT_CONDITION, CUDALOAD_FROM_MACHINE, "as-it-is");
    if (p)
      through_cudaload_fix(d->ctx, &p->fix,
                           f->kind == CL_FINDING_NOT_FOUND ? NULL : f->fix);
  }
}

static void verdict_problems(doctor *d) {
  cl_loader_model m;
  cudaload_explain *e = NULL;
  /* A library that cannot be read is the preload's to report. */
  char *kept = cl_save_error();
  int rc = cl_loader_model_init_host(&m);
  int have_model = rc == CUDALOAD_OK;
  if (!rc)
    rc = cl_verdict_of_plan(d->ctx, &m, cl_manifest_preload_flags(d->ctx), &e);
  size_t environment_first = SIZE_MAX;
  cudaload_explain *as_is = cl_plan_state_of(d->ctx)->plan_count
                                ? verdict_as_it_is(d, &environment_first)
                                : NULL;
  cl_restore_error(kept);
  if (rc == CUDALOAD_E_NO_MEMORY)
    d->failed = 1;
  for (size_t i = 0; e && i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    /* A second CUDA major the plan took on purpose (named by a requirement,
     * or the only one there is) is said in the plan, not a problem. */
    if (f->kind == CL_FINDING_CUDA_MAJORS && plan_has_second_major(d->ctx))
      continue;
    if (f->note) {
      add_note(d, finding_kind(f), f->text, f->fix);
      continue;
    }
    /* A copy this process has already: who loaded it, and that fix, as
     * cudaload_preload says it. */
    char *text = NULL;
    cl_fix fix = CL_FIX_INIT;
    int preloaded = 0;
    int had = have_model ? cl_plan_finding_in_process_steps(&m, f, &text, &fix,
                                                            &preloaded)
                         : 0;
    if (had > 0) {
      cl_problem *p =
          finding_problem(d,
                          preloaded ? CUDALOAD_PROBLEM_PRELOADED_COPY
                                    : CUDALOAD_PROBLEM_LOADED_COPY,
                          f, text);
      cl_problem_take_fix(&d->problems, p, &fix);
      free(text);
      continue;
    }
    cl_fix_free(&fix);
    d->failed |= had < 0;
    cl_problem *p = finding_problem(d, finding_kind(f), f, f->text);
    if (p)
      cl_fix_add_note(&p->fix, "%s",
                      f->fix ? f->fix : "cudaload explain says more");
  }
  if (have_model)
    cl_loader_model_free(&m);
  as_it_is_problems(d, as_is, environment_first, e);
  cudaload_explain_free(as_is);
  cudaload_explain_free(e);
}

/* The plan's warnings (a library a chosen one opens lazily that no root
 * holds, plan.c), unless the loader model above already reported a lazy
 * open of that file: the model sees only what the files say, the plan what
 * the catalog knows (a sub-library left to its main library is not
 * modelled), so each can miss what the other finds. */
static void plan_warning_problems(doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_warning_count; ++i) {
    const cl_plan_warning *w = &cl_plan_state_of(ctx)->plan_warnings[i];
    if (reported(d, w->file))
      continue;
    cl_problem *p =
        add_said(d, CUDALOAD_PROBLEM_LAZY_UNPROVIDED, w->problem, w->fix);
    fact(d, p, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE, w->file);
  }
}

/* A sub-library (cublasLt, cudnn_ops) whose main library of the same major
 * is nowhere: a broken or partial install that nothing can use. */
static void orphan_problems(doctor *d) {
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
      cl_fix_add_note(&p->fix,
                      "reinstall %s %d completely into %s, or delete the "
                      "stray %s",
                      sub->entry->family, sub->major,
                      folder ? folder : "its folder",
                      cl_path_basename(sub->path));
    free(folder);
  }
}

static void root_problems(doctor *d) {
  for (size_t i = 0; i < cl_inventory_of(d->ctx)->root_count; ++i) {
    const cl_root *r = &cl_inventory_of(d->ctx)->roots[i];
    int source = strcmp(r->origin, "explicit") == 0 ? CUDALOAD_FROM_REQUEST
                                                    : CUDALOAD_FROM_MACHINE;
    if (r->status == CUDALOAD_E_INSECURE) {
      cl_problem *p = add(d, CUDALOAD_PROBLEM_ROOT_REFUSED);
      fact(d, p, CUDALOAD_FACT_PATH, source, r->path);
      fact(d, p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE, r->detail);
      if (p)
        cl_fix_add_note(&p->fix, "%s, " CL_ALLOW_WRITABLE_RISK,
                        r->fix ? r->fix : "make it writable only by its owner");
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
      cl_fix_add_note(&p->fix,
                      "a root is a folder: give the one that holds that "
                      "file, --root \"%s\" (Python: roots=[...]; or in the "
                      "manifest's roots)",
                      folder ? folder : r->path);
      free(folder);
      continue;
    }
    cl_fix_add_note(
        &p->fix,
        "correct the folder given with --root or in the "
        "manifest's roots%s",
        r->status == CUDALOAD_E_NOT_FOUND ? "" : ", or make it readable");
  }
}

static void add_sink_problem(void *opaque, int kind, char *text, char *fix) {
  doctor *d = opaque;
  if (!text || !fix)
    d->failed = 1;
  else
    add_said(d, kind, text, fix);
  free(text);
  free(fix);
}

/* The devices, the display watchdog and the CUDA variables
 * (runtime_problems.c). */
static void runtime_problems(doctor *d) {
  cl_runtime_facts facts = {d->probe, &d->knobs, &d->watchdog};
  d->probe_explained = cl_runtime_problems(&facts, add_sink_problem, d);
}

/* What the error messages read into ctx show here (error_message_report.c). */
static void error_message_problems(doctor *d) {
  cl_error_message_facts facts = {d->ctx, d->driver_path, &d->driver_files,
                                  d->probe};
  cl_error_message_problems(&facts, add_sink_problem, d);
}

static void find_problems(doctor *d) {
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

/* --- text ------------------------------------------------------------- */

/* The text report (report_text.h), in colour when asked for. */
typedef struct text {
  cl_text_report r;
  int color;
} text;

/* A value from outside (a path, a version read from a file, a driver's
 * string, spec text) as it may be shown: escaped when it holds control
 * bytes or bytes that are not UTF-8 (text_escape.h). The colours below are
 * the only escape sequences the text report may carry. */
static const char *shown_value(text *t, const char *s, int keep_newlines) {
  return keep_newlines ? cl_text_shown_lines(&t->r, s)
                       : cl_text_shown(&t->r, s);
}

static const char *shown(text *t, const char *s) {
  return shown_value(t, s, 0);
}

static void put(text *t, const char *fmt, ...) CL_PRINTF(2, 3);
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cl_buf_vprintf(&t->r.text, fmt, ap);
  va_end(ap);
}

/* ANSI SGR codes, only when asked for (a terminal that wants colour). */
static const char *sgr(const text *t, const char *code) {
  return t->color ? code : "";
}
#define BOLD "\033[1m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

static void heading(text *t, const char *title) {
  put(t, "\n%s%s%s\n", sgr(t, BOLD), title, sgr(t, RESET));
}

static void field(text *t, const char *label, const char *value) {
  put(t, "  %-*s%s\n", LABEL_WIDTH, label, shown(t, value));
}

/* Column widths of a table: the header's, widened by every cell. */
static void widen(size_t *width, const char *cell) {
  size_t n = strlen(cell);
  if (n > *width)
    *width = n;
}

static void text_libraries(text *t, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  static const cl_library_table_layout doctor_layout = {
      .indent = "  ", .family_first = 1, .header_without_rows = 0};
  heading(t, "Libraries found");
  cl_text_library_table(&t->r, ctx, &doctor_layout);
  size_t missing = 0;
  for (size_t i = 0; i < inv->root_count; ++i)
    missing += inv->roots[i].status != CUDALOAD_OK;
  put(t, "  %zu %s in %zu %s searched (%zu absent or unreadable)%s\n",
      inv->library_count, inv->library_count == 1 ? "library" : "libraries",
      inv->root_count, inv->root_count == 1 ? "root" : "roots", missing,
      inv->root_count ? ":" : "");
  cl_text_roots(&t->r, ctx, "    ");
  cl_text_nearby_environments(&t->r, ctx, "  ");
}

static void text_plan(text *t, const doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  const cl_manifest_state *manifest = cl_manifest_of(ctx);
  heading(t, "Plan");
  if (manifest) {
    char policy[160];
    snprintf(policy, sizeof policy, "%s (sub-libraries %s, %s%s, probe %s)",
             manifest->path,
             manifest->preload_flags & CUDALOAD_PRELOAD_ALL_SUBLIBS ? "all"
                                                                    : "minimal",
             manifest->preload_flags & CUDALOAD_PRELOAD_GLOBAL ? "global"
                                                               : "local",
             manifest->isolation ? ", isolation" : "",
             manifest->probe ? "on" : "off");
    field(t, "manifest", policy);
  }
  if (cl_plan_state_of(ctx)->requirement_count == 0) {
    field(t, "requirements", "none (give --require SPEC or a manifest)");
    return;
  }
  if (cl_plan_state_of(ctx)->plan_cuda_major) {
    char major[700];
    snprintf(major, sizeof major, "%d (%.600s)",
             cl_plan_state_of(ctx)->plan_cuda_major,
             cl_plan_state_of(ctx)->plan_cuda_reason
                 ? cl_plan_state_of(ctx)->plan_cuda_reason
                 : "");
    field(t, "cuda major", major);
  }
  size_t w = 4;
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r)
    widen(&w, shown(t, cl_plan_state_of(ctx)->requirements[r].text));
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r) {
    const char *path;
    int ok = requirement_satisfied(ctx, r, &path);
    put(t, "  %-*s  %s%-7s%s  %s\n", (int)w,
        shown(t, cl_plan_state_of(ctx)->requirements[r].text),
        sgr(t, ok ? GREEN : RED), ok ? "ok" : "MISSING", sgr(t, RESET),
        ok ? shown(t, path) : "no usable library (see Problems and fixes)");
    char decided[256];
    describe_choice(ctx, r, decided, sizeof decided);
    if (ok && decided[0])
      put(t, "  %-*s           decided by %s\n", (int)w, "", decided);
    const char *from = cl_requirement_origin_of(
        ctx, cl_plan_state_of(ctx)->requirements[r].text);
    if (from)
      put(t, "  %-*s           from %s\n", (int)w, "", shown(t, from));
  }
  if (cl_plan_state_of(ctx)->plan_count == 0)
    return;
  size_t ws = 5, wn = 4;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    widen(&ws, cudaload_plan_state_name(cl_plan_state_of(ctx)->plan[i].state));
    widen(&wn, cl_plan_state_of(ctx)->plan[i].entry->name);
  }
  put(t, "\n  %-*s  %-*s  MAJOR  PATH\n", (int)ws, "STATE", (int)wn, "NAME");
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    put(t, "  %-*s  %-*s  %-5d  %s\n", (int)ws,
        cudaload_plan_state_name(p->state), (int)wn, p->entry->name, p->major,
        shown(t, p->path));
    /* "not-needed" says it all; its reason repeats for every sibling. */
    if (p->state != CUDALOAD_STATE_NOT_NEEDED)
      put(t, "  %-*s  %-*s         why: %s\n", (int)ws, "", (int)wn, "",
          shown(t, p->reason));
  }
}

static const char *yes_no(int value, const char *yes, const char *no) {
  return value == 1 ? yes : value == 0 ? no : "unknown";
}

/* How device i runs, under its line. */
static void text_device_mode(text *t, const cudaload_probe *p, size_t i) {
  int model = cudaload_probe_device_driver_model(p, i);
  const char *mode = cudaload_probe_compute_mode_name(
      cudaload_probe_device_compute_mode(p, i));
  char free_text[48] = "";
  long long free_mib = cudaload_probe_device_free_mib(p, i);
  if (free_mib >= 0)
    snprintf(free_text, sizeof free_text, ", %lld MiB free", free_mib);
  put(t,
      "  %-*s  driver model %s, display watchdog %s, compute mode %s, %s%s\n",
      LABEL_WIDTH, "",
      model == CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE
          ? "not applicable (Linux)"
          : cudaload_probe_driver_model_name(model),
      yes_no(cudaload_probe_device_kernel_timeout(p, i), "on", "off"),
      mode ? mode : "unknown",
      yes_no(cudaload_probe_device_integrated(p, i), "integrated", "discrete"),
      free_text);
}

static void text_probe(text *t, const doctor *d) {
  heading(t, "Probe");
  if (d->probe_error) {
    field(t, "error", d->probe_error);
    return;
  }
  if (!d->probe) {
    field(t, "not run", "cudaload doctor --probe runs it");
    return;
  }
  const cudaload_probe *p = d->probe;
  int ok = cudaload_probe_verdict(p) == CUDALOAD_GPU_OK;
  put(t, "  %-*s%s%s%s\n", LABEL_WIDTH, "verdict", sgr(t, ok ? GREEN : RED),
      ok ? "GPU usable" : "fall back to CPU", sgr(t, RESET));
  field(t, "summary", cudaload_probe_summary(p));
  for (size_t i = 0; i < cudaload_probe_device_count(p); ++i) {
    /* 0 is "unknown": the driver's answer was out of range. */
    char device[512], capability[32] = "unknown", memory[48] = "unknown";
    int cc = cudaload_probe_device_capability(p, i);
    unsigned long long mib = cudaload_probe_device_memory_mib(p, i);
    if (cc)
      snprintf(capability, sizeof capability, "%d.%d", cc / 10, cc % 10);
    if (mib)
      snprintf(memory, sizeof memory, "%llu MiB", mib);
    snprintf(device, sizeof device, "%s (compute %s, %s, %s)",
             cudaload_probe_device_name(p, i), capability, memory,
             cudaload_probe_device_uuid(p, i));
    field(t, i ? "" : "devices", device);
    text_device_mode(t, p, i);
  }
  size_t wn = 5, wst = 6;
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i) {
    widen(&wn, cudaload_probe_stage_name(p, i));
    widen(&wst,
          cudaload_probe_stage_status_name(cudaload_probe_stage_status(p, i)));
  }
  put(t, "\n  %-*s  %-*s  %9s  MESSAGE\n", (int)wn, "STAGE", (int)wst, "STATUS",
      "MS");
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i) {
    int status = cudaload_probe_stage_status(p, i);
    const char *color = status == CUDALOAD_STAGE_OK        ? GREEN
                        : status == CUDALOAD_STAGE_FAILED  ? RED
                        : status == CUDALOAD_STAGE_WARNING ? YELLOW
                                                           : "";
    put(t, "  %-*s  %s%-*s%s  %9.1f  %s\n", (int)wn,
        cudaload_probe_stage_name(p, i), sgr(t, color), (int)wst,
        cudaload_probe_stage_status_name(status), sgr(t, *color ? RESET : ""),
        cudaload_probe_stage_ms(p, i),
        shown(t, cudaload_probe_stage_message(p, i)));
  }
}

/* Where the driver is, its version, and the CUDA versions it supports. */
static void text_driver(text *t, const doctor *d) {
  heading(t, "Driver");
  if (d->driver_path) {
    char where[64];
    snprintf(where, sizeof where, "found by the %s", d->driver_source);
    field(t, "path", d->driver_path);
    field(t, "version", d->driver_version ? d->driver_version : "unknown");
    if (d->driver_cuda) {
      char cuda[32];
      snprintf(cuda, sizeof cuda, "%d.%d", d->driver_cuda / 1000,
               d->driver_cuda % 1000 / 10);
      field(t, "CUDA version", cuda);
    }
    field(t, "source", where);
  } else {
    put(t,
        "  %-*s%snone found%s (%s: not in the roots searched, not "
        "loaded)\n",
        LABEL_WIDTH, "path", sgr(t, RED), sgr(t, RESET), cl_os_driver_name());
  }
  if (d->driver_files.found) {
    char support[96];
    snprintf(support, sizeof support, "up to CUDA %d.%d, %d.x (%s)",
             d->driver_files.cuda_major, d->driver_files.cuda_minor,
             d->driver_files.max_major_compat, d->driver_files.source);
    field(t, "supports", support);
  } else {
    field(t, "supports", "driver not consulted: none found");
  }
}

/* The CUDA variables set, each with what it does. */
static void text_environment(text *t, const doctor *d) {
  heading(t, "Environment");
  if (d->knobs.count == 0)
    put(t, "  no CUDA variable set\n");
  for (size_t i = 0; i < d->knobs.count; ++i)
    put(t, "  %s=%s\n    %s\n", d->knobs.items[i].name,
        shown(t, d->knobs.items[i].value), d->knobs.items[i].effect);
}

/* A fix as the user follows it: each command alone on its line, ready to
 * paste, each note on its own line after it. */
static void text_fix(text *t, const cl_fix *fix, int indent) {
  for (size_t i = 0; i < fix->count; ++i) {
    const cl_fix_step *s = &fix->steps[i];
    const char *label = i == 0 ? "fix: " : "     ";
    if (s->argc || s->env_count) {
      cl_buf line = CL_BUF_INIT;
      (void)cl_fix_command_line(&line, s, host_shell());
      char *command = cl_buf_take(&line);
      put(t, "%*s%s%s\n", indent, "", label, command ? shown(t, command) : "");
      free(command);
      if (s->note)
        put(t, "%*s     %s\n", indent, "", shown_value(t, s->note, 1));
    } else {
      put(t, "%*s%s%s\n", indent, "", label,
          shown_value(t, s->note ? s->note : "", 1));
    }
  }
}

/* Each problem with what fixes it. */
static void text_problems(text *t, const doctor *d) {
  heading(t, "Problems and fixes");
  size_t n = 0;
  for (size_t i = 0; i < d->problems.count; ++i) {
    const cl_problem *p = &d->problems.items[i];
    if (p->note)
      continue;
    ++n;
    put(t, "  %s%zu. %s%s\n", sgr(t, RED), n, shown_value(t, p->text, 1),
        sgr(t, RESET));
    text_fix(t, &p->fix, n >= 10 ? 6 : 5);
  }
  if (n == 0)
    put(t, "  %snone%s\n", sgr(t, GREEN), sgr(t, RESET));
  if (n == d->problems.count)
    return;
  heading(t, "Notes (nothing here stops a library loading)");
  for (size_t i = 0; i < d->problems.count; ++i) {
    const cl_problem *p = &d->problems.items[i];
    if (!p->note)
      continue;
    put(t, "  - %s\n    what to do: %s\n", shown_value(t, p->text, 1),
        shown_value(t, p->fix_text, 1));
  }
}

static char *write_text(const doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  text t = {CL_TEXT_REPORT_INIT, 0};
  t.color = (d->flags & CUDALOAD_DOCTOR_COLOR) != 0;
  put(&t, "%scudaload doctor%s %s\n", sgr(&t, BOLD), sgr(&t, RESET),
      cudaload_version_string());

  if (cl_error_message_count(ctx)) {
    heading(&t, "Error message");
    cl_text_error_messages(&t.r, LABEL_WIDTH, ctx);
  }

  heading(&t, "Platform");
  field(&t, "os", cl_os_name());
  field(&t, "arch", host_arch());
  field(&t, "cudaload", cudaload_version_string());

  text_driver(&t, d);
  text_libraries(&t, ctx);
  text_plan(&t, d);

  heading(&t, "Loaded in this process");
  if (d->loaded_count == 0)
    put(&t, "  none\n");
  for (size_t i = 0; i < d->loaded_count; ++i)
    put(&t, "  %s\n", shown(&t, d->loaded[i]));

  heading(&t, "Conflicts");
  if (cl_plan_state_of(ctx)->conflict_count == 0)
    put(&t, "  none\n");
  for (size_t i = 0; i < cl_plan_state_of(ctx)->conflict_count; ++i)
    put(&t, "  %s\n", shown(&t, cl_plan_state_of(ctx)->conflicts[i].text));

  text_probe(&t, d);
  if (d->watchdog.applies) { /* Windows only: nothing to say elsewhere */
    heading(&t, "Display watchdog");
    cl_text_watchdog(&t.r, LABEL_WIDTH, &d->watchdog);
  }
  text_environment(&t, d);

  text_problems(&t, d);
  return cl_text_finish(&t.r); /* NULL: out of memory, said by the caller */
}

/* --- JSON and YAML ----------------------------------------------------- */

static void write_probe(cl_report_writer *w, const cudaload_probe *p) {
  cl_report_key(w, "probe");
  if (!p) {
    cl_report_null(w);
    return;
  }
  cl_report_begin_object(w);
  cl_report_probe_fields(w, p);
  cl_report_end_object(w);
}

/* Where the report was made: what this libcudaload was built for. */
static void write_platform(cl_report_writer *w) {
  cl_report_key(w, "platform");
  cl_report_begin_object(w);
  cl_report_key(w, "os");
  cl_report_string(w, cl_os_name());
  cl_report_key(w, "arch");
  cl_report_string(w, host_arch());
  cl_report_key(w, "cudaload_version");
  cl_report_string(w, cudaload_version_string());
  cl_report_end_object(w);
}

/* The driver: the one found or loaded ("driver"), and its version read
 * from its files without loading it ("driver_support"). */
static void write_driver(cl_report_writer *w, const doctor *d) {
  cl_report_key(w, "driver");
  if (d->driver_path) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, d->driver_path);
    cl_report_key(w, "version");
    cl_report_string(w, d->driver_version);
    cl_report_key(w, "cuda_version");
    char cuda[32];
    snprintf(cuda, sizeof cuda, "%d.%d", d->driver_cuda / 1000,
             d->driver_cuda % 1000 / 10);
    cl_report_string(w, d->driver_cuda ? cuda : NULL);
    cl_report_key(w, "source");
    cl_report_string(w, d->driver_source);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }

  /* The driver's version read from its files (never loaded): what the
   * plan checks CUDA majors against. */
  cl_report_key(w, "driver_support");
  if (d->driver_files.found) {
    char cuda[32];
    cl_report_begin_object(w);
    cl_report_key(w, "version");
    cl_report_string(w, d->driver_files.version);
    cl_report_key(w, "source");
    cl_report_string(w, d->driver_files.source);
    cl_report_key(w, "path");
    cl_report_string(w, d->driver_files.path[0] ? d->driver_files.path : NULL);
    cl_report_key(w, "cuda_version");
    snprintf(cuda, sizeof cuda, "%d.%d", d->driver_files.cuda_major,
             d->driver_files.cuda_minor);
    cl_report_string(w, d->driver_files.cuda_major ? cuda : NULL);
    cl_report_key(w, "max_cuda_major");
    cl_report_int(w, d->driver_files.max_major_compat);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }
}

/* The manifest loaded into the context and its policy, or null. */
static void write_manifest(cl_report_writer *w, const cudaload_ctx *ctx) {
  const cl_manifest_state *manifest = cl_manifest_of(ctx);
  cl_report_key(w, "manifest");
  if (manifest) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, manifest->path);
    cl_report_key(w, "sublibraries");
    cl_report_string(w, manifest->preload_flags & CUDALOAD_PRELOAD_ALL_SUBLIBS
                            ? "all"
                            : "minimal");
    cl_report_key(w, "isolation");
    cl_report_bool(w, manifest->isolation);
    cl_report_key(w, "global");
    cl_report_bool(w, (manifest->preload_flags & CUDALOAD_PRELOAD_GLOBAL) != 0);
    cl_report_key(w, "probe");
    cl_report_bool(w, manifest->probe);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }
}

/* Each requirement, where it is satisfied from and the CUDA major the
 * plan takes ("cuda_major"). */
static void write_requirements(cl_report_writer *w, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_report_key(w, "requirements");
  cl_report_begin_array(w);
  for (size_t r = 0; r < ps->requirement_count; ++r) {
    const char *path;
    int ok = requirement_satisfied(ctx, r, &path);
    cl_report_begin_object(w);
    cl_report_key(w, "spec");
    cl_report_string(w, ps->requirements[r].text);
    cl_report_key(w, "satisfied");
    cl_report_bool(w, ok);
    cl_report_key(w, "path");
    cl_report_string(w, path);
    const cl_library *lib = ok ? chosen_library(ctx, r) : NULL;
    cl_report_key(w, "tier");
    if (lib)
      cl_report_string(
          w, cl_tier_name(cl_origin_tier(inv->roots[lib->root].origin)));
    else
      cl_report_null(w);
    cl_report_key(w, "origin");
    if (lib)
      cl_report_string(w, inv->roots[lib->root].origin);
    else
      cl_report_null(w);
    cl_report_key(w, "cuda_major");
    if (lib && lib->cuda_major > 0)
      cl_report_int(w, lib->cuda_major);
    else
      cl_report_null(w);
    cl_report_key(w, "second_cuda_major");
    cl_report_bool(w, ok && ps->outcomes[r].second_major != 0);
    /* Where a requirement derived from the program came from (--for). */
    cl_report_key(w, "from");
    cl_report_string(w,
                     cl_requirement_origin_of(ctx, ps->requirements[r].text));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);

  cl_report_key(w, "cuda_major");
  if (ps->plan_cuda_major) {
    cl_report_begin_object(w);
    cl_report_key(w, "major");
    cl_report_int(w, ps->plan_cuda_major);
    cl_report_key(w, "reason");
    cl_report_string(w, ps->plan_cuda_reason);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }
}

/* The plan in load order, what this process has loaded, and the
 * conflicts in its global scope. */
static void write_plan(cl_report_writer *w, const doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  cl_report_key(w, "plan");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, p->entry->name);
    cl_report_key(w, "major");
    cl_report_int(w, p->major);
    cl_report_key(w, "path");
    cl_report_string(w, p->path);
    cl_report_key(w, "state");
    cl_report_string(w, cudaload_plan_state_name(p->state));
    cl_report_key(w, "reason");
    cl_report_string(w, p->reason);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);

  cl_report_key(w, "loaded");
  cl_report_begin_array(w);
  for (size_t i = 0; i < d->loaded_count; ++i)
    cl_report_string(w, d->loaded[i]);
  cl_report_end_array(w);

  cl_report_key(w, "conflicts");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cl_plan_state_of(ctx)->conflict_count; ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, cl_plan_state_of(ctx)->conflicts[i].path);
    cl_report_key(w, "text");
    cl_report_string(w, cl_plan_state_of(ctx)->conflicts[i].text);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* A problem's kind, facts (each with its source) and fix steps. */
static void write_problem(cl_report_writer *w, const cl_problem *p) {
  cl_report_begin_object(w);
  cl_report_key(w, "kind");
  cl_report_string(w, cudaload_problem_kind_name(p->kind));
  cl_report_key(w, p->note ? "note" : "problem");
  cl_report_string(w, p->text);
  cl_report_key(w, "facts");
  cl_report_begin_object(w);
  for (int f = 1; f < CL_FACT_SLOTS; ++f)
    if (p->facts[f] && cudaload_fact_name(f)) {
      cl_report_key(w, cudaload_fact_name(f));
      cl_report_begin_object(w);
      cl_report_key(w, "value");
      cl_report_string(w, p->facts[f]);
      cl_report_key(w, "from");
      cl_report_string(w, cudaload_fact_source_name(p->sources[f]));
      cl_report_end_object(w);
    }
  cl_report_end_object(w);
  cl_report_key(w, "fix");
  cl_report_begin_array(w);
  for (size_t i = 0; i < p->fix.count; ++i) {
    const cl_fix_step *s = &p->fix.steps[i];
    cl_report_begin_object(w);
    cl_report_key(w, "action");
    cl_report_string(w, cl_fix_action_name(s->action));
    if (s->argc || s->env_count) {
      cl_report_key(w, "argv");
      cl_report_begin_array(w);
      for (size_t k = 0; k < s->argc; ++k)
        cl_report_string(w, s->argv[k]);
      cl_report_end_array(w);
      cl_report_key(w, "env");
      cl_report_begin_object(w);
      for (size_t k = 0; k < s->env_count; ++k) {
        const char *eq = strchr(s->env[k], '=');
        char *name = cl_strndup(s->env[k], eq ? (size_t)(eq - s->env[k])
                                              : strlen(s->env[k]));
        cl_report_key(w, name ? name : "");
        cl_report_string(w, eq ? eq + 1 : "");
        free(name);
      }
      cl_report_end_object(w);
    }
    if (s->note) {
      cl_report_key(w, "note");
      cl_report_string(w, s->note);
    }
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
  cl_report_key(w, "fix_text");
  cl_report_string(w, p->fix_text);
  cl_report_end_object(w);
}

/* Every problem, then every note. */
static void write_problems(cl_report_writer *w, const doctor *d) {
  for (int notes = 0; notes < 2; ++notes) {
    cl_report_key(w, notes ? "notes" : "problems");
    cl_report_begin_array(w);
    for (size_t i = 0; i < d->problems.count; ++i)
      if (!d->problems.items[i].note == !notes)
        write_problem(w, &d->problems.items[i]);
    cl_report_end_array(w);
  }
}

static void write_environment(cl_report_writer *w, const doctor *d) {
  cl_report_key(w, "environment");
  cl_report_begin_array(w);
  for (size_t i = 0; i < d->knobs.count; ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, d->knobs.items[i].name);
    cl_report_key(w, "value");
    cl_report_string(w, d->knobs.items[i].value);
    cl_report_key(w, "effect");
    cl_report_string(w, d->knobs.items[i].effect);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

static char *write_structured(const doctor *d, cl_report_format format) {
  const cudaload_ctx *ctx = d->ctx;
  cl_report_writer *w = cl_report_writer_new(format);
  if (!w)
    return NULL;
  cl_report_begin_object(w);
  cl_report_key(w, "schema_version");
  /* 2: the probe in its own schema; 3: problems as records (kind, facts,
   * fix steps). */
  cl_report_int(w, 3);

  write_platform(w);
  write_driver(w, d);
  write_manifest(w, ctx);
  cl_report_write_roots(w, ctx);
  cl_report_write_libraries(w, ctx);

  cl_report_error_messages(w, ctx);
  write_requirements(w, ctx);
  write_plan(w, d);
  write_probe(w, d->probe);
  cl_report_key(w, "watchdog");
  cl_report_watchdog(w, &d->watchdog);
  write_environment(w, d);

  write_problems(w, d);
  cl_report_end_object(w);
  return cl_report_writer_finish(w, NULL);
}

/* --- entry points ------------------------------------------------------ */

static void doctor_free(doctor *d) {
  free(d->plan_error);
  for (size_t i = 0; i < d->loaded_count; ++i)
    free(d->loaded[i]);
  free(d->loaded);
  cudaload_probe_free(d->probe);
  free(d->probe_error);
  free(d->driver_path);
  free(d->driver_version);
  cl_cuda_knobs_free(&d->knobs);
  cl_problem_list_free(&d->problems);
}

int cudaload_doctor(cudaload_ctx *ctx, int format, unsigned flags, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (ctx)
    ctx->doctor_problem_count = 0;
  if (!ctx || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_doctor: NULL %s",
                   ctx ? "out" : "ctx");
  if (flags & ~CL_DOCTOR_FLAGS)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_doctor: unknown flag bits 0x%x",
                   flags & ~CL_DOCTOR_FLAGS);
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_doctor: unknown format %d", format);
  doctor d;
  memset(&d, 0, sizeof d);
  d.ctx = ctx;
  d.flags = flags;
  int rc = cl_inventory_of(ctx)->scanned ? CUDALOAD_OK : cudaload_scan(ctx);
  if (rc)
    return rc;
  cl_plan_state *users;
  if (cl_plan_state_begin_own(ctx, &users))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  rc = plan_requirements(&d, users);
  if (!rc) /* the report prints every version */
    cl_inventory_settle_versions(ctx);
  if (rc) {
    cl_plan_state_end_own(ctx, users);
    doctor_free(&d);
    return rc;
  }
  if (flags & (CUDALOAD_DOCTOR_PROBE | CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS) ||
      cl_manifest_probe(ctx))
    run_probe(&d);
  gather_system(&d);
  find_problems(&d);
  d.failed |= cl_problem_list_finish(&d.problems, host_shell()) != CUDALOAD_OK;
  char *report = NULL;
  if (!d.failed)
    report = format == CUDALOAD_FORMAT_TEXT
                 ? write_text(&d)
                 : write_structured(&d, format == CUDALOAD_FORMAT_JSON
                                            ? CL_REPORT_JSON
                                            : CL_REPORT_YAML);
  size_t problems = cl_problem_list_problems(&d.problems);
  if (report && cl_problem_list_keep(ctx, &d.problems) != CUDALOAD_OK) {
    free(report);
    report = NULL;
  }
  cl_plan_state_end_own(ctx, users);
  doctor_free(&d);
  if (!report)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  cl_clear_error();
  *out = report;
  ctx->doctor_problem_count = problems;
  return CUDALOAD_OK;
}

size_t cudaload_doctor_problem_count(const cudaload_ctx *ctx) {
  return ctx ? ctx->doctor_problem_count : 0;
}

void cudaload_free(void *memory) {
  free(memory);
}
