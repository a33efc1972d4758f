/* SPDX-License-Identifier: MIT */
/*
 * library_cuda_major.c - the CUDA major of a library of the inventory
 * (library_cuda_major.h): the scan's, or, for a wheel's library whose name
 * does not tell it, what its files tell before its dist-info.
 *
 * It is the scan's answer, not the plan's: everything it reads (the
 * inventory, the catalog, the file cache, the names a file opens by name,
 * cuda_names.c) is the scan's or below it, so the plan, the verdicts and
 * the public getter ask the one function, and the record keeps the answer
 * as a memo of its own stage (issue 42, item 6: no later stage writes it).
 * The public getter (cudaload_library_cuda_major) is here for that reason.
 */
#include "scan/library_cuda_major.h"

#include "binary/file_cache.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/cuda_names.h"
#include "scan/inventory.h"

#include <stdlib.h>
#include <string.h>

/* The file cache the scan read through (the version cache holds it: made by
 * the scan that listed a wheel's library, before it left its version for
 * later); NULL without one (out of memory: the files then tell nothing). */
static cl_file_cache *files_of(const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  return inv->version_cache ? cl_version_cache_files(inv->version_cache) : NULL;
}

/* The CUDA major a file's headers tell (what it needs, the wheel folders
 * its search list names), read through the run's file cache: the plan
 * reads the same headers again when it models the loader. */
static int cuda_major_of_headers(const cudaload_ctx *ctx, const char *path) {
  cl_file_cache *cache = files_of(ctx);
  const cl_binary_info *info = NULL;
  if (!cache || cl_file_cache_info_quiet(cache, path, &info) != CUDALOAD_OK)
    return 0;
  return cl_binary_info_cuda_major(info, cl_ctx_naming(ctx));
}

/* The CUDA major of the libraries a file opens by name at run time
 * (cuDNN 8's ops_infer holds libcublas.so.12 and opens it at its first
 * call), read as the loader model reads them, through the same cache; 0
 * when they tell nothing. */
static int cuda_major_of_opens(const cudaload_ctx *ctx, const char *path) {
  cl_file_cache *cache = files_of(ctx);
  const cl_binary_info *info = NULL;
  if (!cache || cl_file_cache_info_quiet(cache, path, &info) != CUDALOAD_OK)
    return 0;
  cl_naming naming = cl_ctx_naming(ctx);
  size_t count = 0;
  char **names = cl_cuda_opens_by_name(cache, naming, path, info, &count);
  int cuda = 0;
  for (size_t k = 0; k < count; ++k) {
    cl_name_match m;
    if (!cuda && cl_catalog_match(names[k], naming, &m))
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
static int own_cuda_major(const cudaload_ctx *ctx, const cl_library *lib) {
  int cuda = cl_catalog_cuda_major_of_version(lib->entry, lib->major,
                                              lib->pending_match.name_version);
  return cuda ? cuda : cuda_major_of_headers(ctx, lib->path);
}

/* Whether the files of lib are asked for its CUDA major: a wheel's library
 * (the scan left its version for later) whose name does not tell it. */
static int files_tell(const cl_library *lib) {
  return lib->version_deferred && !lib->pending_match.cuda_major;
}

static void keep(cl_library *lib, int cuda) {
  lib->files_cuda_major = cuda;
  lib->files_asked = 1;
}

/* What lib's files tell, asked once and kept in the record. */
static int files_cuda_major(const cudaload_ctx *ctx, cl_library *lib) {
  if (lib->files_asked)
    return lib->files_cuda_major;
  int cuda = own_cuda_major(ctx, lib);
  if (cuda) {
    keep(lib, cuda);
    return cuda;
  }
  /* The build's answer does not depend on which of its files asks: a file
   * whose own headers tell never gets here, so skipping the asker skips
   * nothing that would tell. */
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
    cl_library *other = cl_inventory_memo_of(ctx, i);
    if (other != lib && files_tell(other) && !other->files_asked &&
        same_build(lib, folder, other)) {
      int own = own_cuda_major(ctx, other);
      keep(other, own ? own : cuda);
    }
  }
  free(folder);
  keep(lib, cuda);
  return cuda;
}

int cl_library_cuda_major(const cudaload_ctx *ctx, cl_library *lib) {
  if (!lib)
    return 0;
  /* A wheel's whose name tells: settling would keep it, and costs a
   * listing of site-packages. */
  if (lib->version_deferred && lib->pending_match.cuda_major)
    return lib->pending_match.cuda_major;
  if (files_tell(lib)) {
    int cuda = files_cuda_major(ctx, lib);
    if (cuda)
      return cuda;
  }
  cl_library_settle_version(ctx, lib);
  return lib->cuda_major;
}

int cl_library_cuda_major_known(const cl_library *lib) {
  /* An unsettled wheel's is not known here, whatever its files told: the
   * fix lines have always read it so (their words stay as they were). */
  if (lib->pending_folder)
    return 0;
  if (files_tell(lib) && lib->files_asked && lib->files_cuda_major)
    return lib->files_cuda_major;
  return lib->cuda_major;
}

int cudaload_library_cuda_major(const cudaload_ctx *ctx, size_t i) {
  /* The plan's answer, whether or not a plan asked first: its record is
   * reached through the memos' one door (library.c). */
  return cl_library_cuda_major(ctx, cl_inventory_memo_of(ctx, i));
}
