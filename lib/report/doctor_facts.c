/* SPDX-License-Identifier: MIT */
/*
 * doctor_facts.c - what the doctor gathers before it judges
 * (doctor_facts.h): its own plan, the process's CUDA libraries, the
 * driver, the probe, the CUDA variables and the display watchdog.
 */
#include "report/doctor_facts.h"
#include "load/manifest.h"
#include "load/spec.h"
#include "load/plan.h"
#include "os/loader.h"
#include "scan/library_cuda_major.h"
#include "scan/roots.h"
#include "common/reason_words.h"
#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

const char *cl_doctor_host_arch(void) {
  const char *machine = cl_os_host_machine();
  return machine ? machine : "unknown";
}

/* --- gathering --------------------------------------------------------- */

/* The doctor's own plan for the user's requirements (cudaload_doctor()
 * plans in a handle of its own): the user's plan, and its strings, stay as
 * they were. What the user's plan loaded (a report made after
 * cudaload_preload()) is carried over by path (cl_plan_state_take_loads(),
 * the load stage's, whose plan it is), so the report still says what was
 * loaded. */
int cl_doctor_plan(cl_doctor *d, const cl_plan_state *users) {
  cudaload_ctx *ctx = d->ctx;
  /* Nothing to plan: the program's own problems (--for) are still said. */
  if (cl_plan_state_of(ctx)->requirement_count == 0)
    return cl_plan_add_program_warnings(ctx);
  int rc = cudaload_plan(ctx, cl_manifest_preload_flags(ctx));
  if (rc == CUDALOAD_E_UNSATISFIED) {
    d->plan_error = cl_strdup(cudaload_last_error());
    d->failed |= !d->plan_error;
    rc = CUDALOAD_OK;
  }
  if (!rc && users && cl_plan_state_take_loads(ctx, users))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  return rc;
}

static void collect_loaded(const char *path, void *opaque) {
  cl_doctor *d = opaque;
  cl_name_match m;
  if (!cl_catalog_match(cl_path_basename(path), cl_doctor_host_naming(), &m))
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

static void find_driver(cl_doctor *d) {
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
  /* a path that does not resolve: use it */
  char *real = cl_os_real_path_quiet(d->driver_path, NULL);
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

void cl_doctor_run_probe(cl_doctor *d) {
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
  cl_asking found; /* what it finds is data; none is none */
  cl_asking_begin(&found);
  if (cl_plan_detect_conflicts(d->ctx) == CUDALOAD_E_NO_MEMORY)
    d->failed = 1;
  cl_asking_end(&found);
}

/* What the process and the system say, beside the libraries. */
void cl_doctor_gather_system(cl_doctor *d) {
  cl_os_loader_each_loaded(collect_loaded, d);
  find_driver(d);
  if (cl_cuda_knobs_read(&d->knobs) != CUDALOAD_OK)
    d->failed = 1;
  cl_os_display_watchdog_read(&d->watchdog);
  if (cl_driver_cuda_of(d->ctx, cl_doctor_host_naming(), &d->driver_files) !=
      CUDALOAD_OK)
    d->failed = 1;
}

/* --- problems ---------------------------------------------------------- */

/* The block of the plan's report about one requirement: from the line
 * "<spec>: no usable ..." to the next line that is not indented. */
int cl_doctor_requirement_satisfied(const cudaload_ctx *ctx, size_t r,
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
cl_library *cl_doctor_chosen_library(const cudaload_ctx *ctx, size_t r) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (r >= ps->outcome_count)
    return NULL;
  /* Its CUDA major is a memo of the record (library_cuda_major.h). */
  return cl_inventory_memo_of(ctx, ps->outcomes[r].chosen);
}

/* What decided a choice: "tier environment (VIRTUAL_ENV), CUDA 12", and
 * when it is not the plan's major, why another. */
void cl_doctor_describe_choice(const cudaload_ctx *ctx, size_t r, char *out,
                               size_t size) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_library *lib = cl_doctor_chosen_library(ctx, r);
  out[0] = '\0';
  if (!lib)
    return;
  const char *origin = cl_inventory_of(ctx)->roots[lib->root].origin;
  int n = snprintf(out, size, "tier %s (%s)",
                   cl_tier_name(cl_origin_tier(origin)), origin);
  int second = ps->outcomes[r].second_major;
  int cuda = cl_library_cuda_major(ctx, lib);
  if (n > 0 && (size_t)n < size && cuda > 0)
    snprintf(out + n, size - (size_t)n, ", CUDA %d%s", cuda,
             second ? (cl_catalog_cuda_major(
                           ps->requirements[r].entry,
                           (int)ps->requirements[r].version[0]) == second
                           ? CL_WORDS_A_SECOND_CUDA_MAJOR_NAMED
                           : CL_WORDS_A_SECOND_CUDA_MAJOR_THE)
                    : "");
}

void cl_doctor_free(cl_doctor *d) {
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
