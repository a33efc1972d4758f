/* SPDX-License-Identifier: MIT */
/*
 * explain.c - `cudaload explain`: what the loader would open for a consumer
 * file and where its CUDA symbols would bind, from the loader model
 * (resolve.c: search order) and the binding rules (bind.c: symbol
 * versions), or what a running process has mapped. Nothing is loaded: the
 * files are read, and the model answers. The differential tests compare
 * these answers with the real loader's (docs/loader.md).
 */
#include "report/explain.h"

#include "binary/binary_names.h"
#include "load/bind.h"
#include "scan/catalog.h"
#include "core/context.h"
#include "scan/inventory.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "load/resolve.h"
#include "common/strutil.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The process the file would be opened in: this environment's search
 * path (and, on Windows, the file's folder as the application's). */
static int model_environment(cl_loader_model *m, const char *path,
                             cl_naming naming) {
  char *search =
      cl_os_getenv(naming == CL_NAMING_WINDOWS ? "PATH" : "LD_LIBRARY_PATH");
  int rc = cl_loader_model_set(
      naming == CL_NAMING_WINDOWS ? &m->path : &m->ld_library_path, search);
  free(search);
  if (!rc && naming == CL_NAMING_LINUX) {
    /* What LD_PRELOAD puts first (the explained file's process inherits
     * it; cl_verdict_preloads opens each). */
    char *preload = cl_os_getenv("LD_PRELOAD");
    rc = cl_loader_model_set(&m->ld_preload, preload);
    free(preload);
  }
  if (!rc && naming == CL_NAMING_WINDOWS) {
    char *folder = cl_path_dirname(path);
    rc = cl_loader_model_set(&m->app_dir, folder);
    free(folder);
  }
  return rc;
}

/* One file in a process of its own: this environment, the plan already
 * preloaded as cudaload_preload would have it (each planned file loaded,
 * its folder exposed on Windows, with CUDALOAD_PRELOAD_GLOBAL its symbols
 * in the global scope), then the file opened. */
static int explain_one(cudaload_explain *e, cudaload_ctx *ctx, const char *path,
                       unsigned flags) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_loader_model m;
  int rc = cl_loader_model_init_system(&m);
  if (rc)
    return rc;
  rc = model_environment(&m, path, naming);
  /* The global scope is this file's process's: start it empty, with what
   * LD_PRELOAD and /etc/ld.so.preload put first. */
  e->global_count = 0;
  if (!rc)
    rc = cl_verdict_preloads(e, ctx, &m, 0);
  unsigned global = (flags & CUDALOAD_PRELOAD_GLOBAL) ? CL_VERDICT_GLOBAL : 0;
  for (size_t i = 0; !rc && ctx->planned && i < ctx->plan_count; ++i) {
    const cl_plan_entry *p = &ctx->plan[i];
    rc = p->to_load ? cl_verdict_assume_loaded(e, &m, p->path, p->soname,
                                               CL_VERDICT_PRELOAD | global)
                    : cl_verdict_expose_folder(&m, p->path);
  }
  size_t first = e->object_count;
  if (!rc)
    rc = cl_verdict_open(
        e, ctx, &m, path,
        CL_VERDICT_CONSUMER |
            ((flags & CUDALOAD_EXPLAIN_SYMBOLS) ? CL_VERDICT_SYMBOLS : 0));
  if (!rc)
    cl_verdict_mixes(e, first, "in what one process would load for it");
  cl_loader_model_free(&m);
  return rc;
}

int cudaload_explain_files(cudaload_ctx *ctx, const char *const *paths,
                           size_t count, unsigned flags,
                           cudaload_explain **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out || (!paths && count))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_files: NULL argument");
  const unsigned known = CUDALOAD_PRELOAD_GLOBAL | CUDALOAD_EXPLAIN_SYMBOLS;
  if (flags & ~known)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_files: unknown flag bits 0x%x",
                   flags & ~known);
  for (size_t i = 0; i < count; ++i)
    if (!paths[i] || !cl_os_path_is_absolute(paths[i]))
      return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                     "cudaload_explain_files: \"%s\" is not an absolute path",
                     paths[i] ? paths[i] : "(null)");
  int rc = CUDALOAD_OK;
  if (!ctx->scanned)
    rc = cudaload_scan(ctx);
  /* "As if preloaded": the plan decides what is already in the process. */
  if (!rc && ctx->requirement_count && !ctx->planned) {
    rc = cudaload_plan(ctx, 0);
    if (rc == CUDALOAD_E_UNSATISFIED) {
      rc = CUDALOAD_OK; /* explained below as what is not found */
      cl_clear_error();
    }
  }
  if (rc) /* the scan's or the plan's last error says why */
    return *cudaload_last_error() ? rc
                                  : cl_fail(rc, "cudaload_explain_files: %s",
                                            cudaload_strerror(rc));
  cudaload_explain *e = cl_verdict_new();
  if (!e)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload_explain_files: out of memory");
  for (size_t i = 0; i < count && !rc; ++i) {
    cl_file *probe;
    uint64_t size;
    int open_rc = cl_os_file_open(paths[i], &probe, &size);
    if (open_rc) {
      rc = cl_fail_naming(open_rc, paths[i]);
      break;
    }
    cl_os_file_close(probe);
    rc = explain_one(e, ctx, paths[i], flags);
  }
  if (!rc && e->failed)
    rc = cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_files: out of memory");
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  cl_clear_error();
  *out = e;
  return CUDALOAD_OK;
}

/* --- a running process -----------------------------------------------------
 */

typedef struct pid_context {
  cudaload_explain *e;
  cudaload_ctx *ctx;
  cl_naming naming;
} pid_context;

static void visit_module(const char *path, void *opaque) {
  pid_context *pc = opaque;
  cl_name_match m;
  if (!cl_catalog_match(cl_path_basename(path), pc->naming, &m))
    return;
  cl_verdict_object(pc->e, pc->ctx, path, NULL, 0);
}

int cudaload_explain_pid(cudaload_ctx *ctx, long pid, cudaload_explain **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out || pid <= 0)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_explain_pid: %s",
                   pid <= 0 ? "the process id must be positive"
                            : "NULL argument");
  int rc = ctx->scanned ? CUDALOAD_OK : cudaload_scan(ctx);
  if (rc) /* the scan's last error says why */
    return *cudaload_last_error()
               ? rc
               : cl_fail(rc, "cudaload_explain_pid: %s", cudaload_strerror(rc));
  cudaload_explain *e = cl_verdict_new();
  if (!e)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_pid: out of memory");
  e->pid = pid;
  pid_context pc = {e, ctx, cl_ctx_naming(ctx)};
  rc = cl_os_loader_process_modules(pid, visit_module, &pc);
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  /* A cuDNN main library whose sub-libraries come from elsewhere. */
  for (size_t i = 0; i < e->object_count; ++i) {
    const cl_explain_object *main = &e->objects[i];
    if (!main->family || strcmp(main->family, "cudnn") != 0 ||
        strcmp(main->name, "cudnn") != 0)
      continue;
    char *folder = cl_path_dirname(main->path);
    for (size_t j = 0; folder && j < e->object_count; ++j) {
      const cl_explain_object *sub = &e->objects[j];
      if (j == i || !sub->family || strcmp(sub->family, "cudnn") != 0 ||
          sub->major != main->major)
        continue;
      char *sub_folder = cl_path_dirname(sub->path);
      if (sub_folder && strcmp(sub_folder, folder) != 0 && main->version &&
          sub->version && strcmp(main->version, sub->version) != 0)
        cl_verdict_add(
            e, CL_FINDING_PROCESS, 0,
            cl_strdup_printf("the cuDNN %d main library %s (%s) runs "
                             "%s from %s (%s): its sub-libraries come from "
                             "another version",
                             main->major, main->path, main->version, sub->name,
                             sub->path, sub->version),
            NULL, main->path, sub->name, sub->path, NULL);
      free(sub_folder);
    }
    free(folder);
  }
  cl_verdict_mixes(e, 0, "mapped in the process");
  if (e->failed) {
    cudaload_explain_free(e);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_pid: out of memory");
  }
  *out = e;
  return CUDALOAD_OK;
}

/* --- accessors ------------------------------------------------------------ */

static const cl_explain_object *object_at(const cudaload_explain *e, size_t i) {
  return e && i < e->object_count ? &e->objects[i] : NULL;
}

static const cl_explain_need *need_at(const cudaload_explain *e, size_t i,
                                      size_t j) {
  const cl_explain_object *o = object_at(e, i);
  return o && j < o->need_count ? &o->needs[j] : NULL;
}

size_t cudaload_explain_object_count(const cudaload_explain *e) {
  return e ? e->object_count : 0;
}

const char *cudaload_explain_object_path(const cudaload_explain *e, size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->path : NULL;
}

const char *cudaload_explain_object_family(const cudaload_explain *e,
                                           size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->family : NULL;
}

const char *cudaload_explain_object_version(const cudaload_explain *e,
                                            size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->version : NULL;
}

size_t cudaload_explain_need_count(const cudaload_explain *e, size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->need_count : 0;
}

const char *cudaload_explain_need_name(const cudaload_explain *e, size_t i,
                                       size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->name : NULL;
}

int cudaload_explain_need_lazy(const cudaload_explain *e, size_t i, size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->lazy : -1;
}

const char *cudaload_explain_need_path(const cudaload_explain *e, size_t i,
                                       size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->path : NULL;
}

const char *cudaload_explain_need_rule(const cudaload_explain *e, size_t i,
                                       size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->rule : NULL;
}

size_t cudaload_explain_problem_count(const cudaload_explain *e) {
  return e ? e->finding_count : 0;
}

const char *cudaload_explain_problem(const cudaload_explain *e, size_t i) {
  return e && i < e->finding_count ? e->findings[i].text : NULL;
}

int cudaload_explain_report(const cudaload_explain *e, int format, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!e || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_report: NULL argument");
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML && format != CUDALOAD_FORMAT_DOT)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_report: unknown format %d", format);
  *out = cl_explain_render(e, format);
  return *out ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}
