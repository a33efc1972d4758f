/* SPDX-License-Identifier: MIT */
/*
 * verdict_cuda_names.h - which names are CUDA's, as the verdict asks
 * (verdict_cuda_names.c): the catalog entry a file is, the references a
 * consumer makes to CUDA libraries, and the CUDA libraries a file opens by
 * name at run time.
 */
#ifndef CUDALOAD_VERDICT_CUDA_NAMES_H
#define CUDALOAD_VERDICT_CUDA_NAMES_H

#include "load/verdict_types.h"
#include "binary/file_cache.h"
#include "scan/catalog.h"

#include <stddef.h>

/* The catalog entry a file is (by its SONAME first: a renamed copy such
 * as ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7 keeps libcudnn.so.8):
 * 1 with *m filled, 0 when it is no CUDA library's. */
int cl_verdict_catalog_of(const char *path, const char *soname,
                          cl_naming naming, cl_name_match *m);

/* The package of a known consumer (consumers.h: ctranslate2's library,
 * which opens libcublas.so.12 at its first cuBLAS call), or NULL. */
const char *cl_verdict_consumer_package(const char *path, cl_naming naming);

/* Whether a reference goes to a CUDA library: its version's file is a
 * catalog name, or (unversioned) its name has a CUDA library's prefix. */
int cl_verdict_cuda_reference(const cl_symbol_ref *r, cl_naming naming);

/* The context's file cache, its reference filter set to the references
 * binding asks of a consumer (those to CUDA libraries): what the plan and
 * the verdicts read symbols through. NULL without a context. */
cl_file_cache *cl_verdict_files(cudaload_ctx *ctx);

/* The CUDA library names the file at path opens by name at run time, as
 * the verdict finds them (its read-only data, through ctx's file cache;
 * info: its header, for the DT_NEEDED names that are no lazy open, or
 * NULL). Malloc'ed names and array; NULL with *count 0 when none. */
char **cl_verdict_lazy_names_of(cudaload_ctx *ctx, const char *path,
                                const cl_binary_info *info, size_t *count);

/* What the loader model's run-time opens callback (cl_verdict_lazy_names)
 * reads with: e (NULL: none) keeps what each file opens, read once. */
typedef struct cl_verdict_lazy_context {
  cudaload_ctx *ctx;
  cl_naming naming;
  cudaload_explain *e; /* its lazy_cache */
} cl_verdict_lazy_context;

/* cl_verdict_lazy_names_of as the loader model's callback (opaque: a
 * cl_verdict_lazy_context), each file scanned once per verdict: a file is
 * met in every tree that reaches it. */
char **cl_verdict_lazy_names(const char *path, const cl_binary_info *info,
                             size_t *count, void *opaque);

/* Free a verdict's lazy_cache (NULL: nothing). */
void cl_verdict_lazy_cache_free(void *cache);

#endif
