/* SPDX-License-Identifier: MIT */
/*
 * verdict_cuda_names.h - which names are CUDA's, as the verdict asks
 * (verdict_cuda_names.c): the context's file cache filtered to the
 * references to CUDA libraries, and the loader model's callback for the
 * CUDA libraries a file opens by name at run time. The names are the
 * scan's (scan/cuda_names.h).
 */
#ifndef CUDALOAD_VERDICT_CUDA_NAMES_H
#define CUDALOAD_VERDICT_CUDA_NAMES_H

#include "load/verdict_types.h"
#include "binary/file_cache.h"
#include "scan/catalog.h"
#include "scan/cuda_names.h"

#include <stddef.h>

/* The context's file cache, its reference filter set to the references
 * binding asks of a consumer (those to CUDA libraries): what the plan and
 * the verdicts read symbols through. NULL without a context. */
cl_file_cache *cl_verdict_files(cudaload_ctx *ctx);

/* What the loader model's run-time opens callback (cl_verdict_lazy_names)
 * reads with: e (NULL: none) keeps what each file opens, read once. */
typedef struct cl_verdict_lazy_context {
  cudaload_ctx *ctx;
  cl_naming naming;
  cudaload_explain *e; /* its lazy_cache */
} cl_verdict_lazy_context;

/* cl_cuda_opens_by_name as the loader model's callback (opaque: a
 * cl_verdict_lazy_context), each file scanned once per verdict: a file is
 * met in every tree that reaches it. */
char **cl_verdict_lazy_names(const char *path, const cl_binary_info *info,
                             size_t *count, void *opaque);

/* Free a verdict's lazy_cache (NULL: nothing). */
void cl_verdict_lazy_cache_free(void *cache);

#endif
