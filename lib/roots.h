/*
 * roots.h - the default search roots of the host, in search order:
 * environment (CUDA_PATH, CUDA_PATH_V*_*, CUDA_HOME, CUDNN_PATH,
 * CONDA_PREFIX, VIRTUAL_ENV), Python site-packages folders, toolkit folders,
 * then the system (Linux: /etc/ld.so.cache read directly, then the default
 * library folders; Windows: System32 for the driver).
 */
#ifndef CUDALOAD_ROOTS_H
#define CUDALOAD_ROOTS_H

#include "catalog.h"

/* The origin given to the ld.so.cache pseudo-root, whose "path" is the cache
 * file: the scan reads the cache's entries instead of listing a folder. */
#define CL_ORIGIN_LDCACHE "ld.so.cache"

/* origin is a static string naming where the root came from. */
typedef void (*cl_root_visitor)(const char *path, const char *origin,
                                void *opaque);

void cl_default_roots(cl_naming naming, cl_root_visitor visit, void *opaque);

#endif
