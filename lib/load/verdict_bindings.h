/* SPDX-License-Identifier: MIT */
/*
 * verdict_bindings.h - where each CUDA reference of a consumer binds in the
 * modelled process (verdict_bindings.c).
 */
#ifndef CUDALOAD_VERDICT_BINDINGS_H
#define CUDALOAD_VERDICT_BINDINGS_H

#include "load/verdict_types.h"

/* The bind object of the file at path (its symbols read once per
 * verdict, through the context's file cache), or NULL when memory ran out;
 * its symbols NULL when they cannot be read. */
const cl_bind_object *cl_verdict_bind_object(cudaload_explain *e,
                                             const char *path);

/* Record in o where the references of object k of t bind, grouped by
 * library and version node (cl_explain_binding): CUDA's references, or
 * every one with symbols (the differential tests compare each). */
void cl_verdict_object_bindings(cudaload_explain *e, cl_explain_object *o,
                                const cl_load_tree *t, size_t k,
                                cl_naming naming, int symbols);

/* Free a verdict's symbol_cache (NULL: nothing). */
void cl_verdict_symbol_cache_free(void *cache);

#endif
