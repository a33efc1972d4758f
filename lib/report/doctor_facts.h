/* SPDX-License-Identifier: MIT */
/*
 * doctor_facts.h - what the doctor gathers before it judges (doctor_facts.c):
 * its own plan for the caller's requirements, the process's CUDA libraries,
 * the driver, the probe, the CUDA variables and the display watchdog; and
 * the few questions of the plan every part of the doctor asks. The doctor's
 * parts read it in order: doctor_problems.c judges, doctor_text.c and
 * doctor_structured.c write, doctor.c runs them.
 */
#ifndef CUDALOAD_DOCTOR_FACTS_H
#define CUDALOAD_DOCTOR_FACTS_H

#include "cudaload.h"
#include "core/context.h"
#include "os/display_watchdog.h"
#include "os/platform.h"
#include "problem/problem.h"
#include "scan/catalog.h"
#include "scan/cuda_knobs.h"
#include "scan/driver_version.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stddef.h>

typedef struct cl_doctor {
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
} cl_doctor;

/* The naming of the files this process loads, whatever the scan target. */
static inline cl_naming cl_doctor_host_naming(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS ? CL_NAMING_WINDOWS
                                                        : CL_NAMING_LINUX;
}

/* The shells the host's fix lines are pasted into. */
static inline cl_shell_kind cl_doctor_host_shell(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS
             ? CL_SHELL_CMD_AND_POWERSHELL
             : CL_SHELL_POSIX;
}

/* The doctor's own plan for the caller's requirements (the caller's plan,
 * users, is read for what it loaded), and what the process and the system
 * say beside the libraries. 0 or the plan's failure. */
int cl_doctor_plan(cl_doctor *d, const cl_plan_state *users);
/* The probe (flags of cudaload_doctor), then the process and the system. */
void cl_doctor_run_probe(cl_doctor *d);
void cl_doctor_gather_system(cl_doctor *d);

/* Whether requirement r has its main library in the plan (*path: its file,
 * may be NULL), the library chosen for it (NULL when none), and what
 * decided that choice ("tier environment (VIRTUAL_ENV), CUDA 12", and why
 * another major when it is not the plan's). */
int cl_doctor_requirement_satisfied(const cudaload_ctx *ctx, size_t r,
                                    const char **path);
cl_library *cl_doctor_chosen_library(const cudaload_ctx *ctx, size_t r);
void cl_doctor_describe_choice(const cudaload_ctx *ctx, size_t r, char *out,
                               size_t size);

/* The machine's architecture name ("x86_64"), "unknown" when not told. */
const char *cl_doctor_host_arch(void);

void cl_doctor_free(cl_doctor *d);

#endif
