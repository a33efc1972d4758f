/*
 * context.h - what a cudaload_ctx holds: the roots to search and the
 * inventory the last scan produced (roots -> inventory; later stages read
 * the inventory and never the disk again).
 */
#ifndef CUDALOAD_CONTEXT_H
#define CUDALOAD_CONTEXT_H

#include "catalog.h"
#include "cudaload.h"

#include <stddef.h>

/* A folder (or, for "ld.so.cache", a file) the scan searched. */
typedef struct cl_root {
  char *path;
  const char *origin; /* static string: "explicit", "CUDA_PATH", ... */
  int status;         /* CUDALOAD_OK or why it was skipped */
} cl_root;

/* One real library file. */
typedef struct cl_library {
  const cl_catalog_entry *entry;
  int major;
  int cuda_major;
  char *version;              /* "" when unknown */
  const char *version_source; /* static: "dist-info", "file-name", ... */
  char *version_file;         /* "" when unknown */
  char *path;                 /* real, absolute */
  size_t root;
} cl_library;

struct cudaload_ctx {
  unsigned flags;
  int target; /* CUDALOAD_TARGET_* */
  char **explicit_roots;
  size_t explicit_count, explicit_capacity;

  cl_root *roots;
  size_t root_count, root_capacity;
  cl_library *libraries;
  size_t library_count, library_capacity;
};

/* The naming convention a ctx scans for. */
cl_naming cl_ctx_naming(const cudaload_ctx *ctx);

/* Drop the inventory and the root list of the last scan. */
void cl_ctx_clear_inventory(cudaload_ctx *ctx);

/* Append a root (path copied); returns its index via *index. */
int cl_ctx_add_scanned_root(cudaload_ctx *ctx, const char *path,
                            const char *origin, size_t *index);

#endif
