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

void cl_ctx_clear_inventory(cudaload_ctx *ctx) {
  for (size_t i = 0; i < ctx->library_count; ++i) {
    free(ctx->libraries[i].version);
    free(ctx->libraries[i].version_file);
    free(ctx->libraries[i].path);
    free(ctx->libraries[i].pending_folder);
    free(ctx->libraries[i].pending_name);
    free(ctx->libraries[i].include_dir);
    free(ctx->libraries[i].include_refused);
    free(ctx->libraries[i].version_distrust);
  }
  ctx->library_count = 0;
  if (ctx->version_cache)
    ctx->version_cache_free(ctx->version_cache);
  ctx->version_cache = NULL;
  /* A new scan is a new run: what was read from files is read again, and
   * a long-lived context holds no more than one run's worth. */
  if (ctx->file_cache)
    ctx->file_cache_free(ctx->file_cache);
  ctx->file_cache = NULL;
  for (size_t i = 0; i < ctx->shim_count; ++i) {
    free(ctx->shims[i].path);
    free(ctx->shims[i].package);
  }
  ctx->shim_count = 0;
  for (size_t i = 0; i < ctx->consumer_count; ++i)
    free(ctx->consumers[i].path);
  ctx->consumer_count = 0;
  for (size_t i = 0; i < ctx->nearby_count; ++i)
    free(ctx->nearby_environments[i]);
  ctx->nearby_count = 0;
  for (size_t i = 0; i < ctx->root_count; ++i) {
    free(ctx->roots[i].path);
    free(ctx->roots[i].detail);
    free(ctx->roots[i].fix);
  }
  ctx->root_count = 0;
  for (size_t i = 0; i < ctx->refusal_count; ++i) {
    free(ctx->refusals[i].path);
    free(ctx->refusals[i].fix);
  }
  ctx->refusal_count = 0;
}

void cl_ctx_clear_conflicts(cudaload_ctx *ctx) {
  for (size_t i = 0; i < ctx->conflict_count; ++i) {
    free(ctx->conflicts[i].path);
    free(ctx->conflicts[i].problem);
    free(ctx->conflicts[i].fix);
    free(ctx->conflicts[i].text);
  }
  ctx->conflict_count = 0;
}

void cl_ctx_clear_plan(cudaload_ctx *ctx) {
  for (size_t i = 0; i < ctx->plan_count; ++i) {
    free(ctx->plan[i].path);
    free(ctx->plan[i].soname);
    free(ctx->plan[i].reason);
    free(ctx->plan[i].loaded_path);
    free(ctx->plan[i].opened_by);
  }
  ctx->plan_count = 0;
  for (size_t i = 0; i < ctx->plan_warning_count; ++i) {
    free(ctx->plan_warnings[i].problem);
    free(ctx->plan_warnings[i].fix);
    free(ctx->plan_warnings[i].file);
    free(ctx->plan_warnings[i].text);
  }
  ctx->plan_warning_count = 0;
  cl_ctx_clear_conflicts(ctx);
  for (size_t r = 0; r < ctx->outcome_count; ++r) {
    cl_requirement_outcome *o = &ctx->outcomes[r];
    for (size_t i = 0; i < o->rejected_count; ++i) {
      free(o->rejected[i].path);
      free(o->rejected[i].why);
    }
    free(o->rejected);
    free(o->fix);
  }
  free(ctx->plan_cuda_reason);
  ctx->plan_cuda_reason = NULL;
  ctx->plan_cuda_major = 0;
  free(ctx->outcomes);
  ctx->outcomes = NULL;
  ctx->outcome_count = 0;
  ctx->planned = 0;
}

void cudaload_destroy(cudaload_ctx *ctx) {
  if (!ctx)
    return;
  cl_ctx_clear_inventory(ctx);
  cl_ctx_clear_plan(ctx);
  free(ctx->plan);
  free(ctx->plan_warnings);
  free(ctx->conflicts);
  for (size_t i = 0; i < ctx->requirement_count; ++i)
    free(ctx->requirements[i].text);
  free(ctx->requirements);
  for (size_t i = 0; i < ctx->origin_count; ++i) {
    free(ctx->origins[i].text);
    free(ctx->origins[i].origin);
  }
  free(ctx->origins);
  for (size_t i = 0; i < ctx->program_file_count; ++i)
    free(ctx->program_files[i]);
  free(ctx->program_files);
  for (size_t i = 0; i < ctx->program_plugin_count; ++i)
    free(ctx->program_plugins[i]);
  free(ctx->program_plugins);
  free(ctx->env_value);
  for (size_t i = 0; i < ctx->env_warning_count; ++i)
    free(ctx->env_warnings[i]);
  free(ctx->env_warnings);
  free(ctx->env_warning_fatal);
  free(ctx->libraries);
  free(ctx->shims);
  free(ctx->consumers);
  free(ctx->nearby_environments);
  for (size_t i = 0; i < ctx->program_root_count; ++i)
    free(ctx->program_roots[i]);
  free(ctx->program_roots);
  free(ctx->refusals);
  free(ctx->roots);
  for (size_t i = 0; i < ctx->explicit_count; ++i)
    free(ctx->explicit_roots[i]);
  free(ctx->explicit_roots);
  for (size_t i = 0; i < ctx->environment_count; ++i)
    free(ctx->environment_roots[i]);
  free(ctx->environment_roots);
  if (ctx->manifest && ctx->manifest_free)
    ctx->manifest_free(ctx->manifest);
  free(ctx->probe_driver_path);
  cl_ctx_clear_error_messages(ctx);
  free(ctx);
}

void cl_ctx_clear_error_messages(cudaload_ctx *ctx) {
  for (size_t i = 0; i < ctx->error_message_count; ++i) {
    cl_error_message *m = &ctx->error_messages[i];
    free(m->quote);
    free(m->file);
    free(m->needed_by);
    free(m->requirement);
    free(m->diagnosis);
  }
  free(ctx->error_messages);
  ctx->error_messages = NULL;
  ctx->error_message_count = 0;
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

cl_naming cl_ctx_naming(const cudaload_ctx *ctx) {
  switch (ctx->target) {
  case CUDALOAD_TARGET_LINUX:
  case CUDALOAD_TARGET_LINUX_X86_64:
  case CUDALOAD_TARGET_LINUX_AARCH64:
    return CL_NAMING_LINUX;
  case CUDALOAD_TARGET_WINDOWS:
  case CUDALOAD_TARGET_WINDOWS_X86_64:
  case CUDALOAD_TARGET_WINDOWS_ARM64:
    return CL_NAMING_WINDOWS;
  default:
    return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS ? CL_NAMING_WINDOWS
                                                          : CL_NAMING_LINUX;
  }
}

int cl_ctx_add_scanned_root(cudaload_ctx *ctx, const char *path,
                            const char *origin, size_t *index) {
  if (cl_reserve((void **)&ctx->roots, &ctx->root_capacity, ctx->root_count + 1,
                 sizeof(cl_root)))
    return CUDALOAD_E_NO_MEMORY;
  char *copy = cl_strdup(path);
  if (!copy)
    return CUDALOAD_E_NO_MEMORY;
  cl_root *r = &ctx->roots[ctx->root_count];
  r->path = copy;
  r->origin = origin;
  r->status = CUDALOAD_OK;
  r->detail = NULL;
  r->fix = NULL;
  *index = ctx->root_count++;
  return CUDALOAD_OK;
}
