/* SPDX-License-Identifier: MIT */
/*
 * spec.h - requirements: parsing a spec ("cudnn=8,cublas>=12"), adding
 * them to a context, and the version arithmetic they use (spec.c).
 */
#ifndef CUDALOAD_SPEC_H
#define CUDALOAD_SPEC_H

#include "core/context.h"
#include "load/plan_state.h"

#include <stddef.h>

/* Compare dotted versions numerically ("9.10" > "9.9"); missing parts are
 * 0. Returns <0, 0, >0. */
int cl_version_compare(const long *a, int a_parts, const long *b, int b_parts);
/* Parse "8.9.7.29" into parts; returns the number of parts (0 if none). */
int cl_version_parse(const char *text, long parts[CL_VERSION_PARTS]);

/* Append the n requirements of reqs to ctx's, in order, leaving out those
 * whose text ctx already has or an earlier one of reqs has (their text is
 * freed): the requirements of reqs belong to ctx afterwards. A cuda=MAJOR
 * pin (entry NULL) sets cl_plan_state_of(ctx)->cuda_pin instead. Linear in the
 * number of requirements. On failure nothing has changed and reqs still belong
 * to the caller: CUDALOAD_E_NO_MEMORY, or CUDALOAD_E_BAD_SPEC (two different
 * pins, the last error says which). */
int cl_requirements_add(cudaload_ctx *ctx, cl_requirement *reqs, size_t n);
/* cudaload_require(ctx, spec) for requirements that come from source
 * (CUDALOAD_FROM_*: the error message read, the program), recorded in
 * each requirement; the last error is set on failure, as there. */
int cl_require_from(cudaload_ctx *ctx, const char *spec, int source);
/* Parse a spec ("cudnn=8,cublas>=12") into a malloc'ed array of *count
 * requirements (free each text, then the array), as cudaload_require() does
 * before adding them. A CUDALOAD_E_* status with the last error set (and
 * nothing to free) on a bad spec. */
int cl_spec_parse(const char *spec, cl_requirement **parsed, size_t *count);
/* Its answer form (common/error.h), for a caller to whom a spec it cannot
 * parse is an answer (it means nothing to fix): the same, no last error
 * written. */
int cl_spec_parse_quiet(const char *spec, cl_requirement **parsed,
                        size_t *count);

#endif
