/* SPDX-License-Identifier: MIT */
/*
 * program.h - requirements from the program itself (cudaload_require_for):
 * the CUDA libraries a binary, an installed Python module or distribution,
 * or an interpreter's environment needs, read from its files (their NEEDED
 * names and imports, the renamed copies they bundle, the names a known
 * consumer opens at run time) and its distribution's Requires-Dist pins,
 * each with where it came from (program.c).
 */
#ifndef CUDALOAD_PROGRAM_H
#define CUDALOAD_PROGRAM_H

#include "core/context.h"

/* The origin recorded for requirement text in ctx, or NULL. */
const char *cl_requirement_origin_of(const cudaload_ctx *ctx, const char *text);

#endif
