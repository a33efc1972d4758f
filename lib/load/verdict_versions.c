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

#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/verdict_cuda_names.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/inventory.h"

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
    int cuda = cl_verdict_library_cuda_major(c, lib);
    if (lib->pending_folder) {
      if (cuda)
        *cuda_major = cuda;
      defer->version_pending = lib;
      defer->version_ctx = c;
      return 1;
    }
  }
  cl_library_settle_version(c, lib);
  if (lib->cuda_major)
    *cuda_major = lib->cuda_major;
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
  int named = cl_verdict_catalog_of(path, NULL, cl_ctx_naming(ctx), &m);
  return cl_verdict_version_of_match(e, ctx, path, named ? &m : NULL,
                                     cuda_major, NULL);
}

/* --- a library's CUDA major without listing site-packages --------------- */

/* The CUDA major a file's headers tell (what it needs, the wheel folders
 * its search list names), read through the run's file cache: the plan
 * reads the same headers again when it models the loader. */
static int cuda_major_of_headers(cudaload_ctx *ctx, const char *path) {
  cl_file_cache *cache = cl_file_cache_of(ctx);
  const cl_binary_info *info = NULL;
  if (!cache)
    return 0;
  int cuda = cl_file_cache_info_quiet(cache, path, &info) == CUDALOAD_OK
                 ? cl_binary_info_cuda_major(info, cl_ctx_naming(ctx))
                 : 0;
  return cuda;
}

/* The CUDA major of the libraries a file opens by name at run time
 * (cuDNN 8's ops_infer holds libcublas.so.12 and opens it at its first
 * call), read as the loader model reads them (verdict_cuda_names.c), through
 * the same cache; 0 when they tell nothing. */
static int cuda_major_of_opens(cudaload_ctx *ctx, const char *path) {
  cl_file_cache *cache = cl_file_cache_of(ctx);
  const cl_binary_info *info = NULL;
  if (!cache)
    return 0;
  if (cl_file_cache_info_quiet(cache, path, &info) != CUDALOAD_OK) {
    return 0;
  }
  size_t count = 0;
  char **names = cl_verdict_lazy_names_of(ctx, path, info, &count);
  int cuda = 0;
  for (size_t k = 0; k < count; ++k) {
    cl_name_match m;
    if (!cuda && cl_catalog_match(names[k], cl_ctx_naming(ctx), &m))
      cuda = m.cuda_major;
    free(names[k]);
  }
  free(names);
  return cuda;
}

/* Whether other is a file of lib's family and major in lib's folder (the
 * inventory lists them all): one build, one CUDA major. folder: lib's. */
static int same_build(const cl_library *lib, const char *folder,
                      const cl_library *other) {
  if (other->entry == NULL ||
      strcmp(other->entry->family, lib->entry->family) ||
      other->major != lib->major)
    return 0;
  const char *base = cl_path_basename(other->path);
  size_t length = (size_t)(base - other->path);
  while (length > 0 &&
         (other->path[length - 1] == '/' || other->path[length - 1] == '\\'))
    --length;
  return strlen(folder) == length && strncmp(folder, other->path, length) == 0;
}

/* What a file tells of its own CUDA major without I/O (the version in its
 * name: cuSPARSE 12.6 is CUDA 13's), else by its headers; 0: nothing. */
static int own_cuda_major(cudaload_ctx *ctx, const cl_library *lib) {
  int cuda = cl_catalog_cuda_major_of_version(lib->entry, lib->major,
                                              lib->pending_match.name_version);
  return cuda ? cuda : cuda_major_of_headers(ctx, lib->path);
}

int cl_verdict_library_cuda_major(cudaload_ctx *ctx, cl_library *lib) {
  if (!lib->pending_folder || lib->cuda_major)
    return lib->cuda_major;
  int cuda = own_cuda_major(ctx, lib);
  if (cuda) {
    cl_library_note_cuda_major(lib, cuda);
    return lib->cuda_major;
  }
  char *folder = cl_path_dirname(lib->path);
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (int pass = 0; folder && pass < 2 && !cuda; ++pass)
    for (size_t i = 0; i < inv->library_count && !cuda; ++i) {
      const cl_library *other = &inv->libraries[i];
      if (!same_build(lib, folder, other))
        continue;
      if (pass == 0 && other != lib)
        cuda = cuda_major_of_headers(ctx, other->path);
      /* Only a file the catalog says opens CUDA libraries by name has
       * its text read: the loader model reads just those too. */
      else if (pass == 1 && other->entry->lazy_opens[0])
        cuda = cuda_major_of_opens(ctx, other->path);
    }
  /* The build told: each of its files would hear the same when asked
   * (unless it tells its own), so they are answered now, each file's
   * headers read once instead of the build's once per file. */
  for (size_t i = 0; cuda && i < inv->library_count; ++i) {
    cl_library *other = &inv->libraries[i];
    if (other != lib && other->pending_folder && !other->cuda_major &&
        same_build(lib, folder, other)) {
      int own = own_cuda_major(ctx, other);
      cl_library_note_cuda_major(other, own ? own : cuda);
    }
  }
  free(folder);
  if (cuda) {
    cl_library_note_cuda_major(lib, cuda);
    return lib->cuda_major;
  }
  cl_library_settle_version(ctx, lib);
  return lib->cuda_major;
}

/* --- an object's version left unread --------------------------------- */

void cl_verdict_settle_version(cl_explain_object *o) {
  cl_library *lib = o->version_pending;
  if (!lib)
    return;
  cl_library_settle_version(o->version_ctx, lib);
  o->version_pending = NULL;
  o->version_ctx = NULL;
  if (lib->cuda_major)
    o->cuda_major = lib->cuda_major;
  o->version = lib->version[0] ? cl_strdup(lib->version) : NULL;
}
