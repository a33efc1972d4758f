/* SPDX-License-Identifier: MIT */
/*
 * plan_candidates.h - judging a candidate file of a family
 * (plan_candidates.c): does it satisfy a requirement, is it better than
 * another, are its required companions beside it, is it this machine's.
 */
#ifndef CUDALOAD_PLAN_CANDIDATES_H
#define CUDALOAD_PLAN_CANDIDATES_H

#include "common/strindex.h"
#include "core/context.h"
#include "load/plan_state.h"
#include "scan/catalog.h"
#include "scan/inventory.h"

#include <stddef.h>

/* The required companions the inventory holds, by (catalog entry, major,
 * folder): checking a candidate is then a few lookups, where a pass over
 * the inventory per candidate made a folder of many candidates quadratic. */
typedef struct cl_companion_index {
  cl_str_index index;
  char **keys; /* owned; borrowed by index */
  size_t count, capacity;
} cl_companion_index;

/* Index the inventory's required companions; freed by
 * cl_companion_index_free (also after a failure). 0 or
 * CUDALOAD_E_NO_MEMORY. */
int cl_companion_index_build(const cudaload_ctx *ctx, cl_companion_index *c);
void cl_companion_index_free(cl_companion_index *c);

/* The first required companion of main_lib missing from its folder, or
 * NULL; *status set to CUDALOAD_E_NO_MEMORY when out of memory. */
const cl_catalog_entry *cl_plan_missing_companion(const cl_companion_index *c,
                                                  const cl_library *main_lib,
                                                  int *status);

/* Does lib satisfy r? If not, why (into why). */
int cl_plan_satisfies(const cl_requirement *r, const cl_library *lib, char *why,
                      size_t why_len);

/* Is a better than b for a requirement (a program's own siblings, the
 * earlier tier, the newer version, the canonical spelling, the earlier
 * root)? */
int cl_plan_better(const cudaload_ctx *ctx, const cl_library *a,
                   const cl_library *b);

/* The machine lib was built for when it is not the plan's; else NULL. */
const char *cl_plan_foreign_machine(const cudaload_ctx *ctx, cl_library *lib);

#endif
