/* SPDX-License-Identifier: MIT */
/* context.c - create/destroy a context, the roots it is given, and the
 * clearing of what each stage left in it. It calls no stage: the stages
 * fill it. */
#include "core/context.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

#define CL_KNOWN_FLAGS                                                         \
  (CUDALOAD_NO_DEFAULT_ROOTS | CUDALOAD_ALLOW_WRITABLE_ROOTS |                 \
   CUDALOAD_NO_NAMES_STORE)

cudaload_ctx *cudaload_create(unsigned flags) {
  cl_clear_error();
  if (flags & ~CL_KNOWN_FLAGS) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
            "cudaload_create: unknown flag bits 0x%x", flags & ~CL_KNOWN_FLAGS);
    return NULL;
  }
  cudaload_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_create: out of memory");
    return NULL;
  }
  ctx->flags = flags;
  ctx->target = CUDALOAD_TARGET_HOST;
  return ctx;
}

void cl_ctx_clear_plan(cudaload_ctx *ctx) {
  if (ctx->plan_state && ctx->plan_state_clear)
    ctx->plan_state_clear(ctx->plan_state);
}

void cudaload_destroy(cudaload_ctx *ctx) {
  if (!ctx)
    return;
  if (ctx->inventory && ctx->inventory_free)
    ctx->inventory_free(ctx->inventory);
  if (ctx->file_cache)
    ctx->file_cache_free(ctx->file_cache);
  if (ctx->plan_state && ctx->plan_state_free)
    ctx->plan_state_free(ctx->plan_state);
  for (size_t i = 0; i < ctx->program_root_count; ++i)
    free(ctx->program_roots[i]);
  free(ctx->program_roots);
  for (size_t i = 0; i < ctx->explicit_count; ++i)
    free(ctx->explicit_roots[i]);
  free(ctx->explicit_roots);
  for (size_t i = 0; i < ctx->environment_count; ++i)
    free(ctx->environment_roots[i]);
  free(ctx->environment_roots);
  if (ctx->manifest && ctx->manifest_free)
    ctx->manifest_free(ctx->manifest);
  free(ctx->probe_driver_path);
  if (ctx->doctor_problems && ctx->doctor_problems_free)
    ctx->doctor_problems_free(ctx->doctor_problems);
  if (ctx->fix_state && ctx->fix_state_free)
    ctx->fix_state_free(ctx->fix_state);
  if (ctx->error_messages && ctx->error_messages_free)
    ctx->error_messages_free(ctx->error_messages);
  free(ctx);
}

static int add_root_unquoted(char ***list, size_t *count, size_t *capacity,
                             const char *dir, const char *function);

/* Append a copy of the absolute folder dir to a list of roots; function
 * names the caller in messages. */
static int add_root_to(char ***list, size_t *count, size_t *capacity,
                       const char *dir, const char *function) {
  if (!dir)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: NULL dir", function);
  /* Windows: Explorer's "Copy as path" gives "C:\x\y" with its quotes, and
   * no Windows name holds a '"': one surrounding pair is taken off. */
  size_t length = strlen(dir);
  char *unquoted = NULL;
  if (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS && length >= 2 &&
      dir[0] == '"' && dir[length - 1] == '"') {
    unquoted = cl_strndup(dir + 1, length - 2);
    if (!unquoted)
      return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", function);
    dir = unquoted;
  }
  int status = add_root_unquoted(list, count, capacity, dir, function);
  free(unquoted);
  return status;
}

static int add_root_unquoted(char ***list, size_t *count, size_t *capacity,
                             const char *dir, const char *function) {
  if (!*dir)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: empty folder name",
                   function);
  if (!cl_os_path_is_absolute(dir))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "%s: \"%s\" is a relative path; roots must be absolute so "
                   "that what is found does not depend on the current folder",
                   function, dir);
  if (cl_reserve((void **)list, capacity, *count + 1, sizeof(char *)))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", function);
  char *copy = cl_strdup(dir);
  if (!copy)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", function);
  /* Windows takes '/' as a separator too; reports show the root, and every
   * path found under it, with the host's own ("C:/envs/A" is
   * "C:\envs\A"). */
  if (CL_DIR_SEP != '/')
    for (char *p = copy; *p; ++p)
      if (*p == '/')
        *p = CL_DIR_SEP;
  (*list)[(*count)++] = copy;
  return CUDALOAD_OK;
}

int cudaload_add_root(cudaload_ctx *ctx, const char *dir) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_add_root: NULL ctx");
  return add_root_to(&ctx->explicit_roots, &ctx->explicit_count,
                     &ctx->explicit_capacity, dir, "cudaload_add_root");
}

int cudaload_add_environment_root(cudaload_ctx *ctx, const char *dir) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_add_environment_root: NULL ctx");
  return add_root_to(&ctx->environment_roots, &ctx->environment_count,
                     &ctx->environment_capacity, dir,
                     "cudaload_add_environment_root");
}

int cudaload_set_target(cudaload_ctx *ctx, int target) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_set_target: NULL ctx");
  if (target < CUDALOAD_TARGET_HOST || target > CUDALOAD_TARGET_WINDOWS_ARM64)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_set_target: unknown target %d", target);
  ctx->target = target;
  return CUDALOAD_OK;
}

/* The driver the plan reads and the probe loads: an input of the handle, as
 * the roots are, so set here and not by the probe, a later stage than the
 * plan that reads it. */
int cudaload_set_driver(cudaload_ctx *ctx, const char *path) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_set_driver: NULL ctx");
  if (path && !cl_os_path_is_absolute(path))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_set_driver: \"%s\" is not an absolute path", path);
  char *copy = NULL;
  if (path && !(copy = cl_strdup(path)))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_set_driver: out of memory");
  free(ctx->probe_driver_path);
  ctx->probe_driver_path = copy;
  return CUDALOAD_OK;
}

int cl_ctx_add_program_root(cudaload_ctx *ctx, char *folder) {
  for (size_t k = 0; k < ctx->program_root_count; ++k)
    if (strcmp(ctx->program_roots[k], folder) == 0) {
      free(folder);
      return CUDALOAD_OK;
    }
  if (cl_reserve((void **)&ctx->program_roots, &ctx->program_root_capacity,
                 ctx->program_root_count + 1, sizeof *ctx->program_roots)) {
    free(folder);
    return CUDALOAD_E_NO_MEMORY;
  }
  ctx->program_roots[ctx->program_root_count++] = folder;
  return CUDALOAD_OK;
}

int cl_ctx_reserve_roots(cudaload_ctx *ctx, size_t count) {
  return cl_reserve((void **)&ctx->explicit_roots, &ctx->explicit_capacity,
                    ctx->explicit_count + count, sizeof(char *))
             ? CUDALOAD_E_NO_MEMORY
             : CUDALOAD_OK;
}

void cl_ctx_take_roots(cudaload_ctx *ctx, char **roots, size_t count) {
  for (size_t i = 0; i < count; ++i)
    ctx->explicit_roots[ctx->explicit_count++] = roots[i];
}

void cl_ctx_lend(const cudaload_ctx *ctx, cudaload_ctx *lent) {
  *lent = *ctx;
}

void cl_ctx_lent_end(const cudaload_ctx *ctx, cudaload_ctx *lent) {
  /* What the report made in its place: its plan state, and any state or
   * cache it made where ctx had none (what ctx lent is the same pointer). */
  if (lent->plan_state != ctx->plan_state && lent->plan_state_free)
    lent->plan_state_free(lent->plan_state);
  if (lent->file_cache != ctx->file_cache && lent->file_cache_free)
    lent->file_cache_free(lent->file_cache);
  if (lent->error_messages != ctx->error_messages && lent->error_messages_free)
    lent->error_messages_free(lent->error_messages);
  if (lent->doctor_problems != ctx->doctor_problems &&
      lent->doctor_problems_free)
    lent->doctor_problems_free(lent->doctor_problems);
  if (lent->fix_state != ctx->fix_state && lent->fix_state_free)
    lent->fix_state_free(lent->fix_state);
  memset(lent, 0, sizeof *lent);
}
