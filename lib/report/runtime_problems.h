/* SPDX-License-Identifier: MIT */
/*
 * runtime_problems.h - the doctor's problems of the runtime environment
 * (runtime_problems.c): device facts from the probe, Windows' display
 * watchdog, the CUDA variables in effect.
 */
#ifndef CUDALOAD_RUNTIME_PROBLEMS_H
#define CUDALOAD_RUNTIME_PROBLEMS_H

#include "cudaload.h"
#include "os/display_watchdog.h"
#include "problem/problem.h"
#include "scan/cuda_knobs.h"

typedef struct cl_runtime_facts {
  const cudaload_probe *probe; /* NULL when the probe did not run */
  const cl_cuda_knobs *knobs;
  const cl_display_watchdog *watchdog;
} cl_runtime_facts;

/* Add to list each problem the facts show, as a record (its kind, facts
 * and fix steps). Returns 1 when one of them is why the probe fell back to
 * CPU (the doctor then leaves out the probe's own, less precise problem),
 * else 0. */
int cl_runtime_problems(const cl_runtime_facts *facts, cl_problem_list *list);

#endif
