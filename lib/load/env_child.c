/* SPDX-License-Identifier: MIT */
/*
 * env_child.c - the child's variables besides the search path
 * (env_child.h). CuPy and Numba find NVRTC and the toolkit through
 * CUDA_PATH/CUDA_HOME themselves, by absolute path: a variable naming a
 * CUDA 13 toolkit hands a CUDA 12 program libnvrtc.so.13 whatever the
 * search path says. The plan knows its CUDA major and the scan what each
 * variable's folder holds; where they disagree, the child goes without the
 * variable (the plan's folders are on its search path), and the warning
 * says so. Keeping it pointed elsewhere would need a toolkit of the plan's
 * major, which the plan does not have: its files come from wheels as often
 * as from toolkits.
 */
#include "load/env_child.h"

#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/plan_state.h"
#include "load/verdict.h"
#include "os/loader.h"
#include "os/platform.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"
#include "common/reason_words.h"

#include <stdlib.h>
#include <string.h>

/* The variables, in the order the scan reads them (scan/roots.c). */
static const char *const cuda_variables[] = {"CUDNN_PATH", "CUDA_PATH",
                                             "CUDA_HOME"};

/* Mark the CUDA majors of lib in seen[] (index: major, up to 31) and keep
 * one file name for the warning. */
static void note_major(cudaload_ctx *c, cl_library *lib, unsigned *seen,
                       const char **example, int plan_major) {
  int major = cl_library_cuda_major(c, lib);
  if (major <= 0 || major > 31)
    return;
  *seen |= 1u << major;
  if (major != plan_major && !*example)
    *example = lib->path;
}

/* The CUDA majors of the libraries under the variable's folder: those the
 * scan found through the variable (a root of that origin), else those a
 * scan of the folder alone finds (that ctx in *own, for the caller to
 * destroy). *example: a file of another major than the plan's, malloc'ed. */
static unsigned folder_majors(cudaload_ctx *ctx, const char *variable,
                              const char *folder, int plan_major,
                              char **example, cudaload_ctx **own) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  unsigned seen = 0;
  const char *first = NULL;
  int scanned = 0;
  for (size_t r = 0; r < inv->root_count; ++r) {
    if (strcmp(inv->roots[r].origin, variable) != 0)
      continue;
    scanned = 1;
    for (size_t i = 0; i < inv->library_count; ++i)
      if (inv->libraries[i].root == r)
        note_major(ctx, &inv->libraries[i], &seen, &first, plan_major);
  }
  if (!scanned) {
    /* Not searched (--no-defaults): what the folder holds, read once. */
    cl_asking unscanned; /* a folder that cannot be scanned has no libraries */
    cl_asking_begin(&unscanned);
    cudaload_ctx *c =
        cudaload_create((ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) |
                        CUDALOAD_NO_DEFAULT_ROOTS);
    if (c && (cudaload_set_target(c, ctx->target) ||
              cudaload_add_root(c, folder) || cudaload_scan(c))) {
      cudaload_destroy(c);
      c = NULL;
    }
    cl_asking_end(&unscanned);
    const cl_inventory *mine = c ? cl_inventory_of(c) : NULL;
    for (size_t i = 0; mine && i < mine->library_count; ++i)
      note_major(c, &mine->libraries[i], &seen, &first, plan_major);
    *own = c;
  }
  *example = first ? cl_strdup(first) : NULL;
  return seen;
}

int cl_env_child_variables(cudaload_ctx *ctx) {
  int plan_major = cl_plan_state_of(ctx)->plan_cuda_major;
  if (plan_major <= 0 || plan_major > 31)
    return CUDALOAD_OK;
  int rc = CUDALOAD_OK;
  for (size_t v = 0; !rc && v < sizeof cuda_variables / sizeof *cuda_variables;
       ++v) {
    const char *name = cuda_variables[v];
    char *value = cl_os_getenv(name);
    if (!value || !*value || !cl_os_path_is_absolute(value)) {
      free(value);
      continue;
    }
    char *example = NULL;
    cudaload_ctx *own = NULL;
    unsigned seen = folder_majors(ctx, name, value, plan_major, &example, &own);
    if (seen && !(seen & (1u << plan_major))) {
      int other = 0;
      for (int k = 1; k < 32 && !other; ++k)
        if (seen & (1u << k))
          other = k;
      cl_plan_state *ps = cl_plan_state_make(ctx);
      rc = ps ? cl_plan_state_add_env_change(ps, name, NULL)
              : CUDALOAD_E_NO_MEMORY;
      if (!rc)
        rc = cl_plan_state_add_env_warning(
            ps,
            cl_strdup_printf(CL_WORDS_HOLDS_CUDA_LIBRARIES_AND_THE, name, value,
                             other, example ? example : value, plan_major,
                             name),
            0);
    }
    cudaload_destroy(own);
    free(example);
    free(value);
  }
  return rc;
}

size_t cudaload_env_change_count(const cudaload_ctx *ctx) {
  return ctx ? cl_plan_state_of(ctx)->env_change_count : 0;
}

const char *cudaload_env_change(const cudaload_ctx *ctx, size_t i,
                                const char **value) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (value)
    *value = NULL;
  if (!ctx || i >= ps->env_change_count)
    return NULL;
  if (value)
    *value = ps->env_change_values[i];
  return ps->env_change_names[i];
}

int cudaload_env_apply_changes(cudaload_ctx *ctx) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_env_apply_changes: NULL ctx");
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->env_change_count; ++i) {
    int rc = cl_os_set_env(ps->env_change_names[i], ps->env_change_values[i]);
    if (rc)
      return rc;
  }
  return CUDALOAD_OK;
}
