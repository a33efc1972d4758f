/* SPDX-License-Identifier: MIT */
/*
 * env_warnings.c - what setting the search-path variable would change
 * beyond the plan, as sentences (cudaload_env_warnings()): the folders
 * cl_env_shadows() finds, each with why and what to do instead.
 */
#include "common/error.h"
#include "common/strutil.h"
#include "core/context.h"
#include "load/env.h"
#include "load/plan.h"

#include <stdlib.h>

typedef struct warning_list {
  cudaload_ctx *ctx;
  int failed;
} warning_list;

static void add_shadow(const char *folder, const char *family, int major,
                       const char *version, const char *planned_folder,
                       const char *planned_version, void *opaque) {
  warning_list *list = opaque;
  cudaload_ctx *ctx = list->ctx;
  char *text = cl_strdup_printf(
      "%s %d%s%s in %s is found by RUNPATH from its own folder; with %s "
      "first on %s, a program that loads it (through its own RPATH, like "
      "torch) would run the %s%s%s files of %s instead; to keep each on its "
      "own, preload in-process (cudaload_preload / cudaload.setup) rather "
      "than set the variable",
      family, major, version[0] ? " " : "", version, folder, planned_folder,
      cudaload_env_name(), family, planned_version[0] ? " " : "",
      planned_version, planned_folder);
  if (!text ||
      cl_reserve((void **)&ctx->env_warnings, &ctx->env_warning_capacity,
                 ctx->env_warning_count + 1, sizeof *ctx->env_warnings)) {
    free(text);
    list->failed = 1;
    return;
  }
  ctx->env_warnings[ctx->env_warning_count++] = text;
}

int cudaload_env_warnings(cudaload_ctx *ctx, size_t *count) {
  cl_clear_error();
  if (count)
    *count = 0;
  if (!ctx || !count)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_env_warnings: NULL %s", ctx ? "count" : "ctx");
  for (size_t i = 0; i < ctx->env_warning_count; ++i)
    free(ctx->env_warnings[i]);
  ctx->env_warning_count = 0;
  int rc = ctx->planned ? CUDALOAD_OK : cudaload_plan(ctx, 0);
  if (rc != CUDALOAD_OK && rc != CUDALOAD_E_UNSATISFIED)
    return rc;
  warning_list list = {ctx, 0};
  if (cl_env_shadows(ctx, add_shadow, &list) != CUDALOAD_OK || list.failed)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload_env_warnings: out of memory");
  cl_clear_error(); /* an unsatisfied plan still has its folders */
  *count = ctx->env_warning_count;
  return CUDALOAD_OK;
}

const char *cudaload_env_warning(const cudaload_ctx *ctx, size_t i) {
  return ctx && i < ctx->env_warning_count ? ctx->env_warnings[i] : NULL;
}
