/* SPDX-License-Identifier: MIT */
/*
 * fix_check.h - which steps of a doctor's fix `cudaload fix` runs, and as
 * what command (fix_check.c): safe by construction. Only an install of
 * NVIDIA's wheels runs: an environment's own pip, given packages the
 * catalog's wheel table names (never a name from the pasted text or a
 * program's metadata) with PEP 440 versions and the options the fix lines
 * use (--no-deps, --target inside the environment), for a venv or conda
 * environment the user of this process owns and no other user can write
 * to. pip gets --only-binary=:all: (a source distribution's build would
 * run its code) and --no-input. Everything else is shown, never run.
 */
#ifndef CUDALOAD_FIX_CHECK_H
#define CUDALOAD_FIX_CHECK_H

#include "common/fix_steps.h"
#include "core/context.h"

#include <stddef.h>

/* What a step comes to. */
typedef struct cl_fix_command {
  int status;  /* CUDALOAD_OK: it runs; else the CUDALOAD_E_* why not */
  char *why;   /* why not, in words; NULL when it runs */
  char **argv; /* what runs, NULL-terminated */
  size_t argc;
  char *line;        /* argv as one line for this system's shell */
  char *environment; /* the venv or conda prefix it installs into */
  char *target;      /* pip's --target folder, NULL for site-packages */
  char *record;      /* the cudaload.roots target goes into, or NULL */
} cl_fix_command;

/* Judge step (of the host's naming) into *out (zeroed first).
 * CUDALOAD_OK with the verdict in out->status, or CUDALOAD_E_NO_MEMORY. */
int cl_fix_command_make(const cl_fix_step *step, cl_fix_command *out);
void cl_fix_command_free(cl_fix_command *c);

/* After the command ran and exited 0: the --target folder (if any) checked
 * as a root is (not writable by others) and recorded in the environment's
 * cudaload.roots. 0, or a CUDALOAD_E_* status with the last error set. */
int cl_fix_command_record(const cl_fix_command *c);

/* The command made of step s of problem i of ctx's last report, kept in
 * ctx until the next report or a question about another step; NULL for
 * (i, s) out of range or out of memory (*status says which). */
const cl_fix_command *cl_fix_command_of(cudaload_ctx *ctx, size_t i, size_t s,
                                        int *status);

#endif
