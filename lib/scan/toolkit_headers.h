/* SPDX-License-Identifier: MIT */
/*
 * toolkit_headers.h - versions from a toolkit's include folder beside its
 * library folder, for the families whose catalog entry names a version
 * header (cudnn_version.h, cublas_api.h, cuda_runtime_api.h). Only a
 * header whose major equals a library's major may name its version.
 */
#ifndef CUDALOAD_TOOLKIT_HEADERS_H
#define CUDALOAD_TOOLKIT_HEADERS_H

#include <stddef.h>

typedef struct cl_header_version {
  int major;         /* 0: header absent or unreadable */
  char version[64];  /* "9.19.0" */
  char *header_path; /* malloc'ed */
} cl_header_version;

/* The most families the catalog gives a version header. */
#define CL_MAX_VERSION_HEADERS 8

typedef struct cl_toolkit_headers {
  char *include_dir; /* malloc'ed; NULL when out of memory (nothing read) */
  size_t count;
  struct {
    const struct cl_catalog_entry *entry; /* the catalog's main library */
    int read;                             /* 1: version below is settled */
    cl_header_version version;
  } items[CL_MAX_VERSION_HEADERS];
} cl_toolkit_headers;

/* The catalog's version headers of include_dir, each read on the first
 * question about its family (a scan asks about the families it met
 * without another version source: often none). */
void cl_toolkit_headers_load(const char *include_dir, cl_toolkit_headers *out);
void cl_toolkit_headers_free(cl_toolkit_headers *headers);

/* The header version for a catalog family ("cudnn", "cublas", "cudart"),
 * or NULL when its header was absent or the catalog names none. */
const cl_header_version *cl_toolkit_headers_for(cl_toolkit_headers *headers,
                                                const char *family);

/* Pure parser (fuzzing target): the value of "#define NAME <integer>" in
 * text, or -1 when absent. */
long cl_header_define(const char *text, size_t len, const char *name);

#endif
