/* SPDX-License-Identifier: MIT */
/*
 * plan_dependencies.h - the libraries the chosen ones need, added to the
 * plan (plan_dependencies.c). Each returns 0 or CUDALOAD_E_NO_MEMORY;
 * planned holds the plan's entries by path, companions the inventory's
 * required companions.
 */
#ifndef CUDALOAD_PLAN_DEPENDENCIES_H
#define CUDALOAD_PLAN_DEPENDENCIES_H

#include "common/strindex.h"
#include "core/context.h"
#include "load/plan_candidates.h"

/* The libraries a chosen one opens by name at run time, by the catalog
 * (cuBLAS 12 for cuDNN 8): planned, or a warning of what is missing. */
int cl_plan_add_lazy_dependencies(cudaload_ctx *ctx, cl_str_index *planned,
                                  const cl_companion_index *companions);

/* What a chosen file itself says it opens by name, beyond the catalog's
 * lazy opens. */
int cl_plan_add_named_opens(cudaload_ctx *ctx, cl_str_index *planned,
                            const cl_companion_index *companions);

/* The CUDA major known consumers (consumers.h) open a family in. */
int cl_plan_add_consumer_needs(cudaload_ctx *ctx, cl_str_index *planned,
                               const cl_companion_index *companions);

/* What the program needs only if it uses a feature. */
int cl_plan_add_optional_needs(cudaload_ctx *ctx, cl_str_index *planned);

/* The CUDA libraries a chosen main library names in its NEEDED entries
 * (PE imports), or a warning naming the one no root holds. */
int cl_plan_add_needed_dependencies(cudaload_ctx *ctx, cl_str_index *planned,
                                    const cl_companion_index *companions);

#endif
