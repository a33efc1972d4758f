/* SPDX-License-Identifier: MIT */
/*
 * version_sources.h - a library's version and where it was read
 * (version_sources.c): the sources a scan reads (dist-info, toolkit
 * headers), kept in a cache per inventory for versions looked up later,
 * and the CUDA major a file's own headers tell.
 */
#ifndef CUDALOAD_VERSION_SOURCES_H
#define CUDALOAD_VERSION_SOURCES_H

#include "binary/binary.h"
#include "core/context.h"
#include "scan/catalog.h"

/* The version sources a scan read (dist-info, headers), kept for versions
 * looked up later (the inventory holds it, scan/inventory.h). */
typedef struct cl_version_cache cl_version_cache;

/* An empty cache for ctx's scan (NULL: no memory): it reads version
 * sources others can write to only with CUDALOAD_ALLOW_WRITABLE_ROOTS, and
 * files through ctx's file cache. */
cl_version_cache *cl_version_cache_make(cudaload_ctx *ctx);
void cl_version_cache_free(cl_version_cache *c);
/* 1 when memory ran out while the cache read a source. */
int cl_version_cache_out_of_memory(const cl_version_cache *c);
/* The file cache it reads files through (the scanning ctx's; NULL when
 * there was none): what a library's files tell of its CUDA major is read
 * through it too (library_cuda_major.c), from a const handle. */
cl_file_cache *cl_version_cache_files(const cl_version_cache *c);
/* Remember the real path the scan resolved for a root (path as listed),
 * so that a dist-info or toolkit in it needs no lookup of its own; forget
 * them all once the scan is done (a version asked later resolves what is
 * there then). */
void cl_version_cache_note_real(cl_version_cache *c, const char *path,
                                const char *real);
void cl_version_cache_forget_reals(cl_version_cache *c);

/* The separator before the "nvidia" package of a folder inside
 * site-packages ("SP/nvidia/cudnn/lib"), or NULL: whether a library is a
 * wheel's, whose version waits for its first use. */
const char *cl_wheel_package_start(const char *folder);

/* A library's version and where it was read; the strings point into the
 * cache or into pe/stamp. */
typedef struct cl_found_version {
  const char *version;
  const char *source;
  const char *file;
  int cuda_major;
  char stamp[16];
  cl_binary_info pe;
  char *distrust; /* malloc'ed: why a source was passed over, or NULL */
} cl_found_version;

/* The version of the library real_path, listed as `name` in `folder` and
 * matched as m, from the first source that tells (the owning dist-info,
 * the file name, a DLL's VERSIONINFO, the toolkit's headers). Sets no
 * error. Free v->pe (cl_binary_info_free) and v->distrust. */
void cl_find_version(cl_version_cache *c, cl_naming naming, const char *folder,
                     const char *name, const char *real_path,
                     const cl_name_match *m, cl_found_version *v);

/* The CUDA major a file's headers tell: the catalog's major of a library
 * it needs (libcublasLt.so.12), else the wheel folder its search list
 * names ($ORIGIN/../../cu13/lib); 0 when they tell nothing. */
int cl_binary_info_cuda_major(const cl_binary_info *info, cl_naming naming);

#endif
