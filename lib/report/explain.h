/* SPDX-License-Identifier: MIT */
/*
 * explain.h - who binds to what: for consumer files, the tree of what the
 * loader would open for their CUDA dependencies, by which rule, and where
 * their CUDA symbols bind; for a running process, the CUDA libraries it has
 * mapped and what is wrong with them (explain.c). The public entry points
 * are cudaload_explain_* in cudaload.h; `cudaload explain` prints them.
 */
#ifndef CUDALOAD_EXPLAIN_H
#define CUDALOAD_EXPLAIN_H

#include "cudaload.h"
#include "load/verdict.h"

#include <stddef.h>

/* The report in a CUDALOAD_FORMAT_*, malloc'ed; NULL with the last error
 * set. */
char *cl_explain_render(const cudaload_explain *e, int format);

#endif
