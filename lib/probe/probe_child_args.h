/* SPDX-License-Identifier: MIT */
/*
 * probe_child_args.h - the command line of the helper process that runs a
 * probe out of process (probe_child_args.c), for the platforms whose child
 * is a program of its own (Windows: os/probe_child.h).
 */
#ifndef CUDALOAD_PROBE_CHILD_ARGS_H
#define CUDALOAD_PROBE_CHILD_ARGS_H

#include "cudaload.h"

/*
 * The arguments that make the cudaload tool probe like ctx: "probe"
 * "--child" followed by --no-defaults, --root, --require and --driver as
 * the ctx has them. A NULL-terminated, malloc'ed array of malloc'ed
 * strings (free with cl_probe_free_arguments), or NULL without memory.
 */
char **cl_probe_child_arguments(const cudaload_ctx *ctx);
void cl_probe_free_arguments(char **arguments);

#endif
