/* SPDX-License-Identifier: MIT */
/*
 * env_child.h - what a child started with a plan needs beyond the
 * search-path variable (env_child.c): the variables that would send it to
 * another CUDA major, and the changes cudaload_env_check() decided, as
 * cudaload_env_change() answers them.
 */
#ifndef CUDALOAD_ENV_CHILD_H
#define CUDALOAD_ENV_CHILD_H

#include "core/context.h"

/* The CUDA variables programs search themselves (CUDA_PATH, CUDA_HOME,
 * CUDNN_PATH: CuPy, Numba, TensorFlow's build) that name a folder of
 * another CUDA major than the plan's: each is unset for the child (a
 * change), with a warning naming it. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_env_child_variables(cudaload_ctx *ctx);

#endif
