/* SPDX-License-Identifier: MIT */
/*
 * verdict_versions.c - the version and CUDA major of each file the verdict
 * meets (verdict_versions.h), as the scan tells them: the inventory's
 * entry, else a scan of the file's folder (a file outside the roots), else
 * its name; a wheel's left unread until a finding compares it. Two
 * versions of one family are seen as two only when each is read the way
 * the scan reads it; the real paths and folder scans are asked once per
 * verdict.
 */
#include "load/verdict_versions.h"

#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/verdict_cuda_names.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"

#include <stdlib.h>
#include <string.h>

/* --- versions ------------------------------------------------------------ */

/* The scan's version of the file real in c's inventory: 1 when c has it.
 * defer (NULL: read now): where a wheel's version is left unread, with
 * its CUDA major told by its files (*version stays NULL). */
static int inventory_version(cudaload_ctx *c, const char *real, char **version,
                             int *cuda_major, cl_explain_object *defer) {
  cl_library *lib = cl_inventory_library_at(c, real);
  if (!lib)
    return 0;
  if (lib->pending_folder && defer) {
    /* Still unsettled after: the name or the files told. */
    int cuda = cl_library_cuda_major(c, lib);
    if (lib->pending_folder) {
      if (cuda)
        *cuda_major = cuda;
      defer->version_pending = lib;
      defer->version_ctx = c;
      return 1;
    }
  }
  cl_library_settle_version(c, lib);
  int cuda = cl_library_cuda_major(c, lib);
  if (cuda)
    *cuda_major = cuda;
  *version = lib->version[0] ? cl_strdup(lib->version) : NULL;
  return 1;
}

/* The ctx that scanned the file's folder as its only root (as --root would),
 * made on first use: a file the loader takes from outside the roots
 * (LD_LIBRARY_PATH, another copy's RUNPATH) gets its version the way the
 * scan tells it (dist-info, headers, VERSIONINFO), so that two versions of
 * one family are seen as two. NULL when none can be made. */
cudaload_ctx *cl_verdict_folder_scan(cudaload_explain *e, cudaload_ctx *ctx,
                                     const char *real) {
  char *folder = cl_path_dirname(real);
  if (!folder)
    return NULL;
  cudaload_ctx *found = NULL;
  for (size_t i = 0; i < e->folder_scan_count && !found; ++i) {
    cudaload_ctx *c = e->folder_scans[i];
    if (c->explicit_count && strcmp(c->explicit_roots[0], folder) == 0)
      found = c;
  }
  /* A folder that cannot be scanned only has no versions to give: the
   * public calls' words go into an answer's reason, not the last error. */
  cl_asking unscanned;
  cl_asking_begin(&unscanned);
  if (!found && e->folder_scan_count < CL_VERDICT_FOLDER_SCANS &&
      !cl_reserve((void **)&e->folder_scans, &e->folder_scan_capacity,
                  e->folder_scan_count + 1, sizeof *e->folder_scans)) {
    /* The caller's trust in writable folders carries over. */
    found = cudaload_create((ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) |
                            CUDALOAD_NO_DEFAULT_ROOTS);
    if (found && (cudaload_set_target(found, ctx->target) ||
                  cudaload_add_root(found, folder) || cudaload_scan(found))) {
      cudaload_destroy(found);
      found = NULL;
    }
    if (found)
      e->folder_scans[e->folder_scan_count++] = found;
  }
  free(folder);
  cl_asking_end(&unscanned);
  return found;
}

/* The version of a file: the scan's (dist-info, headers, VERSIONINFO) when
 * the inventory or a scan of its folder has it, else what its name
 * carries. */
/* The real paths a verdict asked for, by the path asked about. */
typedef struct real_path_memo {
  char **paths, **reals; /* reals[i] NULL: paths[i] does not resolve */
  size_t count, capacity, reals_capacity;
  cl_str_index by_path;
} real_path_memo;

void cl_verdict_real_paths_free(void *cache) {
  real_path_memo *memo = cache;
  if (!memo)
    return;
  cl_str_index_free(&memo->by_path);
  for (size_t i = 0; i < memo->count; ++i) {
    free(memo->paths[i]);
    free(memo->reals[i]);
  }
  free(memo->paths);
  free(memo->reals);
  free(memo);
}

char *cl_verdict_real_path(cudaload_explain *e, const char *path) {
  real_path_memo *memo = e ? e->real_paths : NULL;
  if (e && !memo) {
    memo = e->real_paths = calloc(1, sizeof *memo);
    if (memo)
      cl_str_index_init(&memo->by_path, 0);
  }
  size_t at;
  if (memo && cl_str_index_find(&memo->by_path, path, &at))
    return memo->reals[at] ? cl_strdup(memo->reals[at]) : NULL;
  char *real = cl_os_real_path_quiet(path, NULL);
  char *key = memo ? cl_strdup(path) : NULL;
  char *kept = real ? cl_strdup(real) : NULL;
  if (key && (kept || !real) &&
      !cl_reserve((void **)&memo->paths, &memo->capacity, memo->count + 1,
                  sizeof *memo->paths) &&
      !cl_reserve((void **)&memo->reals, &memo->reals_capacity, memo->count + 1,
                  sizeof *memo->reals) &&
      !cl_str_index_add(&memo->by_path, key, memo->count)) {
    memo->paths[memo->count] = key;
    memo->reals[memo->count++] = kept;
  } else { /* not remembered: asked again next time */
    free(key);
    free(kept);
  }
  return real;
}

/* defer: as inventory_version's (NULL: read now). */
char *cl_verdict_version_of_match(cudaload_explain *e, cudaload_ctx *ctx,
                                  const char *path, const cl_name_match *m,
                                  int *cuda_major, cl_explain_object *defer) {
  *cuda_major = m ? m->cuda_major : 0;
  /* A path that does not resolve, a file whose version cannot be read:
   * answers (the name's version, or none), not failures: each is asked
   * through an answer form. */
  char *real = cl_verdict_real_path(e, path);
  char *version = NULL;
  int known = 0;
  if (real && ctx)
    known = inventory_version(ctx, real, &version, cuda_major, defer);
  if (real && ctx && !known) {
    cudaload_ctx *c = cl_verdict_folder_scan(e, ctx, real);
    known = c && inventory_version(c, real, &version, cuda_major, defer);
  }
  free(real);
  if (known)
    return version;
  return m && m->name_version[0] ? cl_strdup(m->name_version) : NULL;
}

char *cl_verdict_version_of(cudaload_explain *e, cudaload_ctx *ctx,
                            const char *path, int *cuda_major) {
  cl_name_match m;
  int named = cl_cuda_catalog_of(path, NULL, cl_ctx_naming(ctx), &m);
  return cl_verdict_version_of_match(e, ctx, path, named ? &m : NULL,
                                     cuda_major, NULL);
}

/* --- an object's version left unread --------------------------------- */

void cl_verdict_settle_version(cl_explain_object *o) {
  cl_library *lib = o->version_pending;
  if (!lib)
    return;
  cl_library_settle_version(o->version_ctx, lib);
  int cuda = cl_library_cuda_major(o->version_ctx, lib);
  o->version_pending = NULL;
  o->version_ctx = NULL;
  if (cuda)
    o->cuda_major = cuda;
  o->version = lib->version[0] ? cl_strdup(lib->version) : NULL;
}
