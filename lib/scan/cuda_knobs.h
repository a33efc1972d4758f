/* SPDX-License-Identifier: MIT */
/*
 * cuda_knobs.h - the environment variables that change how CUDA libraries
 * load or behave, as this process has them (cuda_knobs.c): one table,
 * each with a line on what it does, for the doctor's "Environment".
 */
#ifndef CUDALOAD_CUDA_KNOBS_H
#define CUDALOAD_CUDA_KNOBS_H

#include <stddef.h>

typedef struct cl_cuda_knob {
  const char *name;   /* the variable */
  char *value;        /* as set (the search path: its CUDA entries only) */
  const char *effect; /* one line: what it does */
} cl_cuda_knob;

typedef struct cl_cuda_knobs {
  cl_cuda_knob *items; /* in the table's order, only those set */
  size_t count;
} cl_cuda_knobs;

/* The knobs set in this process's environment. CUDALOAD_OK, or
 * CUDALOAD_E_NO_MEMORY (what was read so far is kept); sets no error. */
int cl_cuda_knobs_read(cl_cuda_knobs *out);
void cl_cuda_knobs_free(cl_cuda_knobs *k);

/* The value of knob name in k, or NULL when it is not set. */
const char *cl_cuda_knob_value(const cl_cuda_knobs *k, const char *name);

#endif
