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
#include "load/fix_lines.h"
#include "load/python_loads.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_DOCTOR_FLAGS                                                        \
  (CUDALOAD_DOCTOR_PROBE | CUDALOAD_DOCTOR_COLOR |                             \
   CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS)

/* Where the text of a section lines up: labels, then values. */
#define LABEL_WIDTH 14

typedef struct problem {
  char *problem;
  char *fix;
} problem;

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
  problem *problems;
  size_t problem_count, problem_capacity;
  /* What stops nothing loading but a user should know: a search list that
   * looks in the current folder, a plugin the program runs without. Not
   * problems: the exit status does not count them. */
  problem *notes;
  size_t note_count, note_capacity;
  cl_cuda_knobs knobs;          /* the CUDA variables set (scan/cuda_knobs.c) */
  cl_display_watchdog watchdog; /* Windows' TDR settings */
  int probe_explained; /* a runtime problem says why the probe fell back */
  int failed;          /* out of memory somewhere */
} doctor;

/* --- small helpers ----------------------------------------------------- */

static void add_to(doctor *d, problem **list, size_t *count, size_t *capacity,
                   char *text, char *fix) {
  if (!text || !fix ||
      cl_reserve((void **)list, capacity, *count + 1, sizeof(problem))) {
    free(text);
    free(fix);
    d->failed = 1;
    return;
  }
  (*list)[*count].problem = text;
  (*list)[*count].fix = fix;
  ++*count;
}

static void add_problem(doctor *d, char *text, char *fix) {
  add_to(d, &d->problems, &d->problem_count, &d->problem_capacity, text, fix);
}

/* A finding that stops nothing loading, once. */
static void add_note(doctor *d, const char *text, const char *fix) {
  for (size_t i = 0; i < d->note_count; ++i)
    if (strcmp(d->notes[i].problem, text) == 0)
      return;
  add_to(d, &d->notes, &d->note_count, &d->note_capacity, cl_strdup(text),
         cl_strdup(fix ? fix : "cudaload explain says more"));
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

static void unsatisfied_problems(doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r) {
    const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
    if (requirement_satisfied(ctx, r, NULL))
      continue;
    const cl_requirement_outcome *o = r < cl_plan_state_of(ctx)->outcome_count
                                          ? &cl_plan_state_of(ctx)->outcomes[r]
                                          : NULL;
    /* The first rejected candidate says most about why. */
    char *text = o && o->rejected_count
                     ? cl_strdup_printf("%s: no usable %s library (%s: %s)",
                                        req->text, req->entry->family,
                                        o->rejected[0].path, o->rejected[0].why)
                     : cl_strdup_printf(
                           "%s: no usable %s library; no file named like %s "
                           "in the roots searched",
                           req->text, req->entry->family, req->entry->name);
    add_problem(d, text,
                o && o->fix ? cl_strdup(o->fix)
                            : cl_strdup_printf(
                                  "add the folder that holds %s with --root "
                                  "or in the manifest's roots",
                                  req->entry->name));
  }
}

static void conflict_problems(doctor *d) {
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->conflict_count; ++i) {
    const cl_conflict *c = &cl_plan_state_of(d->ctx)->conflicts[i];
    add_problem(d, cl_strdup(c->problem), cl_strdup(c->fix));
  }
}

static void load_failure_problems(doctor *d) {
  for (size_t i = 0; i < cl_plan_state_of(d->ctx)->plan_count; ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(d->ctx)->plan[i];
    if (p->state != CUDALOAD_STATE_FAILED)
      continue;
    /* The path as one shell word (shell_word.h): pasted, it runs nothing
     * else; one no spelling keeps literal in cmd and PowerShell is named
     * apart. */
    cl_buf inspect = CL_BUF_INIT;
    cl_buf_puts(&inspect, "cudaload inspect ");
    if (!cl_buf_shell_word(&inspect, p->path,
                           host_naming() == CL_NAMING_WINDOWS
                               ? CL_SHELL_CMD_AND_POWERSHELL
                               : CL_SHELL_POSIX))
      cl_buf_printf(&inspect, "FILE (FILE: %s)", p->path);
    char *command = cl_buf_take(&inspect);
    add_problem(
        d, cl_strdup_printf("%s could not be loaded by this process", p->path),
        command ? cl_strdup_printf("%s lists what it needs; put the missing "
                                   "libraries beside it or on %s",
                                   command, cudaload_env_name())
                : NULL);
    free(command);
  }
}

static char *install_driver_fix(void) {
  return cl_strdup(host_naming() == CL_NAMING_WINDOWS
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
    add_problem(
        d,
        cl_strdup_printf("no NVIDIA driver (%s): not in the roots searched "
                         "and not loaded in this process",
                         cl_os_driver_name()),
        install_driver_fix());
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
  if (minimum && branch > 0 && branch < minimum)
    add_problem(
        d,
        cl_strdup_printf("the NVIDIA driver %s is too old for CUDA %d "
                         "(%s needs driver %ld or newer)",
                         d->driver_version, cuda_needed,
                         cl_path_basename(needed_by), minimum),
        cl_strdup_printf("update the NVIDIA driver to %ld or newer, or use "
                         "CUDA %d builds of the libraries",
                         minimum, cuda_needed - 1));
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
    add_problem(
        d, cl_strdup_printf("the GPU probe could not run: %s", d->probe_error),
        cl_strdup("run cudaload doctor --probe --out-of-process"));
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
  char *text = NULL;
  for (size_t i = 0; i < cudaload_probe_stage_count(d->probe) && !text; ++i)
    if (cudaload_probe_stage_status(d->probe, i) == CUDALOAD_STAGE_FAILED)
      text =
          cl_strdup_printf("the GPU probe falls back to CPU (%s, stage %s): %s",
                           cudaload_probe_reason_name(reason),
                           cudaload_probe_stage_name(d->probe, i),
                           cudaload_probe_stage_message(d->probe, i));
  if (!text)
    text = cl_strdup_printf("%s", cudaload_probe_summary(d->probe));
  const char *fix = probe_fix(reason);
  add_problem(d, text,
              reason == CUDALOAD_REASON_NO_DRIVER
                  ? install_driver_fix()
                  : cl_strdup(fix ? fix : "see the probe's stages above"));
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
  add_problem(d,
              cl_strdup_printf("libz.so.1 is missing: cuDNN %d's sub-libraries "
                               "need it (planned: %s)",
                               cudnn->major, cudnn->path),
              cl_strdup("apt-get install zlib1g (Fedora/RHEL: dnf install "
                        "zlib; Alpine: apk add zlib)"));
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

/* A word of a command line as the shell takes it back (shell_word.h); a
 * word no one spelling keeps literal in cmd and PowerShell is written
 * DIR, and the caller's fix names it. */
static void command_word(cl_buf *b, const char *word) {
  cl_shell_kind kind = host_naming() == CL_NAMING_WINDOWS
                           ? CL_SHELL_CMD_AND_POWERSHELL
                           : CL_SHELL_POSIX;
  if (!cl_buf_shell_word(b, word, kind))
    cl_buf_printf(b, "DIR");
}

/* The options that give the tool this doctor's search: --no-defaults and
 * every root given, so that a printed command finds what the doctor found. */
static void search_options(cl_buf *b, const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS)
    cl_buf_printf(b, " --no-defaults");
  for (size_t i = 0; i < ctx->explicit_count; ++i) {
    cl_buf_printf(b, " --root ");
    command_word(b, ctx->explicit_roots[i]);
  }
  cl_buf_printf(b, " --require %s", "");
  for (size_t r = 0; r < ps->requirement_count; ++r)
    cl_buf_printf(b, "%s%s", r ? "," : "", ps->requirements[r].text);
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
 * os.add_dll_directory does not reach LoadLibrary by name. consumer: the
 * file whose load fails, for the module to name. */
static char *windows_as_is_fix(const cudaload_ctx *ctx, const char *consumer,
                               const char *first) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf b = CL_BUF_INIT;
  if (first)
    cl_buf_printf(&b, "%s; ", first);
  cl_buf_printf(&b, "in Python, cudaload.setup(require=[");
  for (size_t r = 0; r < ps->requirement_count; ++r)
    cl_buf_printf(&b, "%s\"%s\"", r ? ", " : "", ps->requirements[r].text);
  cl_buf_printf(&b, "]");
  if (ctx->explicit_count) {
    cl_buf_printf(&b, ", roots=[");
    for (size_t i = 0; i < ctx->explicit_count; ++i)
      cl_buf_printf(&b, "%sr\"%s\"", i ? ", " : "", ctx->explicit_roots[i]);
    cl_buf_printf(&b, "]");
  }
  cl_python_load py;
  int python = 0;
  if (!consumer || cl_python_load_of(consumer, &py, &python) != CUDALOAD_OK)
    python = 0;
  if (python && py.package)
    cl_buf_printf(&b, ") before import %s", py.package);
  else
    cl_buf_printf(&b, ") before the import");
  if (python)
    cl_python_load_free(&py);
  size_t count = 0;
  char **folders = plan_folders(ctx, &count);
  char *path = cl_fix_windows_path_first(folders, count);
  for (size_t i = 0; i < count; ++i)
    free(folders[i]);
  free(folders);
  if (path)
    cl_buf_printf(&b,
                  "; or, for any program, put the folders first on PATH "
                  "before it starts (LoadLibrary by name searches PATH; "
                  "os.add_dll_directory does not reach it): %s",
                  path);
  free(path);
  cl_buf_printf(&b, "; or run the program through cudaload: cudaload exec");
  search_options(&b, ctx);
  cl_buf_printf(&b, " -- PROGRAM");
  return cl_buf_take(&b);
}

/* The fix for what fails only without cudaload: have it load the plan. */
static char *through_cudaload_fix(const cudaload_ctx *ctx, const char *first) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf b = CL_BUF_INIT;
  if (first)
    cl_buf_printf(&b, "%s; ", first);
  cl_buf_printf(&b, "run the program through cudaload: cudaload exec");
  search_options(&b, ctx);
  if (host_naming() == CL_NAMING_WINDOWS) {
    cl_buf_printf(&b, " -- PROGRAM, or run what cudaload env --shell cmd");
    search_options(&b, ctx);
    cl_buf_printf(&b, " prints (PowerShell: --shell powershell) before it");
  } else {
    cl_buf_printf(&b, " -- PROGRAM, or eval \"$(cudaload env");
    search_options(&b, ctx);
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
  return cl_buf_take(&b);
}

/* What fixes a failure that happens only without cudaload, on this host. */
static char *as_is_fix(const cudaload_ctx *ctx, const char *consumer,
                       const char *first) {
  return host_naming() == CL_NAMING_WINDOWS
             ? windows_as_is_fix(ctx, consumer, first)
             : through_cudaload_fix(ctx, first);
}

static int reported(const doctor *d, const char *text) {
  for (size_t k = 0; k < d->problem_count; ++k)
    if (strstr(d->problems[k].problem, text))
      return 1;
  return 0;
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
static cudaload_explain *verdict_as_it_is_windows(doctor *d,
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
    cl_verdict_mixes_in(e, &m, "in what the program would load");
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
static cudaload_explain *verdict_as_it_is(doctor *d,
                                          size_t *environment_first) {
  if (host_naming() == CL_NAMING_WINDOWS)
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
        g->consumer && strcmp(g->consumer, f->consumer) == 0 &&
        (k < environment_first || required_name(ctx, g->name)))
      return 0;
  }
  return 1;
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
  /* Where the loader looked, as the first finding says it. */
  const char *looked = strstr(f->text, " (rule: not-found");
  char *text =
      f->lazy
          ? cl_strdup_printf("without cudaload (this environment as it is): "
                             "%s opens %s by name when it first needs %s, and "
                             "the loader would not find %s%s",
                             f->consumer, names, count == 1 ? "it" : "them",
                             count == 1 ? "it" : "them",
                             looked ? looked : " (rule: not-found)")
      : count == 1
          ? cl_strdup_printf("without cudaload (this environment as "
                             "it is): %s",
                             f->text)
          : cl_strdup_printf("without cudaload (this environment as it is): %s "
                             "needs %s, which the loader does not find, so "
                             "loading it fails%s",
                             f->consumer, names, looked ? looked : "");
  add_problem(d, text, as_is_fix(d->ctx, f->consumer, NULL));
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
      add_note(d, f->text, f->fix);
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
    add_problem(d,
                cl_strdup_printf("without cudaload (this environment as it "
                                 "is): %s",
                                 f->text),
                as_is_fix(d->ctx, f->consumer,
                          f->kind == CL_FINDING_NOT_FOUND ? NULL : f->fix));
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
      add_note(d, f->text, f->fix);
      continue;
    }
    /* A copy this process has already: who loaded it, and that fix, as
     * cudaload_preload says it. */
    char *text = NULL, *fix = NULL;
    if (have_model && cl_plan_finding_in_process(&m, f, &text, &fix) > 0) {
      add_problem(d, text, fix);
      continue;
    }
    add_problem(d, cl_strdup(f->text),
                cl_strdup(f->fix ? f->fix : "cudaload explain says more"));
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
    int reported = 0;
    for (size_t k = 0; k < d->problem_count && !reported; ++k)
      reported = strstr(d->problems[k].problem, w->file) != NULL;
    if (!reported)
      add_problem(d, cl_strdup(w->problem), cl_strdup(w->fix));
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
    add_problem(
        d,
        cl_strdup_printf("%s %d found only as sub-library (%s) without its "
                         "main library %s %d",
                         sub->entry->family, sub->major, sub->path,
                         sub->entry->family, sub->major),
        cl_strdup_printf("reinstall %s %d completely into %s, or delete "
                         "the stray %s",
                         sub->entry->family, sub->major,
                         folder ? folder : "its folder",
                         cl_path_basename(sub->path)));
    free(folder);
  }
}

static void root_problems(doctor *d) {
  for (size_t i = 0; i < cl_inventory_of(d->ctx)->root_count; ++i) {
    const cl_root *r = &cl_inventory_of(d->ctx)->roots[i];
    if (r->status == CUDALOAD_E_INSECURE) {
      add_problem(
          d,
          cl_strdup_printf("root %s refused: %s", r->path,
                           r->detail ? r->detail : "writable by other users"),
          cl_strdup_printf("%s, " CL_ALLOW_WRITABLE_RISK,
                           r->fix ? r->fix
                                  : "make it writable only by its owner"));
      continue;
    }
    if (r->status == CUDALOAD_OK || strcmp(r->origin, "explicit") != 0)
      continue;
    if (r->status == CUDALOAD_E_NOT_A_FILE) {
      /* A file given as a root: no permission makes it a folder; the one
       * that holds it is what was meant. */
      char *folder = cl_path_dirname(r->path);
      add_problem(d,
                  cl_strdup_printf("root %s: %s", r->path,
                                   cudaload_root_status_name(r->status)),
                  cl_strdup_printf("a root is a folder: give the one that "
                                   "holds that file, --root \"%s\" (Python: "
                                   "roots=[...]; or in the manifest's roots)",
                                   folder ? folder : r->path));
      free(folder);
      continue;
    }
    add_problem(
        d,
        cl_strdup_printf("root %s: %s", r->path,
                         cudaload_root_status_name(r->status)),
        cl_strdup_printf(
            "correct the folder given with --root or in the "
            "manifest's roots%s",
            r->status == CUDALOAD_E_NOT_FOUND ? "" : ", or make it readable"));
  }
}

static void add_runtime_problem(void *opaque, char *text, char *fix) {
  add_problem(opaque, text, fix);
}

/* The devices, the display watchdog and the CUDA variables
 * (runtime_problems.c). */
static void runtime_problems(doctor *d) {
  cl_runtime_facts facts = {d->probe, &d->knobs, &d->watchdog};
  d->probe_explained = cl_runtime_problems(&facts, add_runtime_problem, d);
}

/* What the error messages read into ctx show here (error_message_report.c). */
static void error_message_problems(doctor *d) {
  cl_error_message_facts facts = {d->ctx, d->driver_path, &d->driver_files,
                                  d->probe};
  cl_error_message_problems(&facts, add_runtime_problem, d);
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

/* Each problem with the one line that fixes it. */
static void text_problems(text *t, const doctor *d) {
  heading(t, "Problems and fixes");
  if (d->problem_count == 0)
    put(t, "  %snone%s\n", sgr(t, GREEN), sgr(t, RESET));
  for (size_t i = 0; i < d->problem_count; ++i)
    put(t, "  %s%zu. %s%s\n  %*s fix: %s\n", sgr(t, RED), i + 1,
        shown_value(t, d->problems[i].problem, 1), sgr(t, RESET),
        i + 1 >= 10 ? 3 : 2, "", shown_value(t, d->problems[i].fix, 1));
  if (!d->note_count)
    return;
  heading(t, "Notes (nothing here stops a library loading)");
  for (size_t i = 0; i < d->note_count; ++i)
    put(t, "  - %s\n    what to do: %s\n",
        shown_value(t, d->notes[i].problem, 1),
        shown_value(t, d->notes[i].fix, 1));
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

/* Every problem with its one fix line. */
static void write_problems(cl_report_writer *w, const doctor *d) {
  cl_report_key(w, "problems");
  cl_report_begin_array(w);
  for (size_t i = 0; i < d->problem_count; ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "problem");
    cl_report_string(w, d->problems[i].problem);
    cl_report_key(w, "fix");
    cl_report_string(w, d->problems[i].fix);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
  cl_report_key(w, "notes");
  cl_report_begin_array(w);
  for (size_t i = 0; i < d->note_count; ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "note");
    cl_report_string(w, d->notes[i].problem);
    cl_report_key(w, "fix");
    cl_report_string(w, d->notes[i].fix);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
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
  cl_report_int(w, 2); /* 2: the probe in its own schema */

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
  for (size_t i = 0; i < d->problem_count; ++i) {
    free(d->problems[i].problem);
    free(d->problems[i].fix);
  }
  free(d->problems);
  for (size_t i = 0; i < d->note_count; ++i) {
    free(d->notes[i].problem);
    free(d->notes[i].fix);
  }
  free(d->notes);
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
  char *report = NULL;
  if (!d.failed)
    report = format == CUDALOAD_FORMAT_TEXT
                 ? write_text(&d)
                 : write_structured(&d, format == CUDALOAD_FORMAT_JSON
                                            ? CL_REPORT_JSON
                                            : CL_REPORT_YAML);
  size_t problems = d.problem_count;
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
