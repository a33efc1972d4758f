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

/* The files of the programs installed in an environment root (a venv,
 * conda prefix or site-packages folder): the known CUDA-using
 * distributions there and those pinning NVIDIA's wheels, as
 * cudaload_require_for() of an interpreter of that environment finds them.
 * *files is a malloc'ed array of *count malloc'ed paths (NULL, 0: none). 0
 * or CUDALOAD_E_NO_MEMORY. */
int cl_program_files_in(cudaload_ctx *ctx, const char *root, char ***files,
                        size_t *count);

#endif
