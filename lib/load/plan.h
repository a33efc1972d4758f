/* SPDX-License-Identifier: MIT */
/*
 * plan.h - what the plan stage offers the later ones besides
 * cudaload_plan() itself (plan.c).
 */
#ifndef CUDALOAD_PLAN_H
#define CUDALOAD_PLAN_H

#include "core/context.h"
#include "load/plan_state.h"

/* Recompute cl_plan_state_of(ctx)->conflicts from the process's global symbol
 * scope. */
int cl_plan_detect_conflicts(cudaload_ctx *ctx);

/* Record a plan warning (cudaload_plan_warning()): "problem: fix", about
 * file; the same text only once. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_plan_add_warning(cudaload_ctx *ctx, const char *problem, const char *fix,
                        const char *file);
/* The same with the warning's identity (cl_plan_warning.identity). */
/* The same with its problem kind (CUDALOAD_PROBLEM_*) and its fix as
 * steps (copied; NULL: fix in words only). */
int cl_plan_add_warning_as(cudaload_ctx *ctx, const char *problem,
                           const char *fix, const char *file, int kind,
                           const cl_fix *steps);
/* What cudaload_require_for() found wrong with the program itself (two
 * distributions owning its files, a pin not read) as plan warnings, as
 * every plan adds them: for a report with nothing to plan (a program that
 * requires nothing, such as a CPU build installed over the GPU one). */
int cl_plan_add_program_warnings(cudaload_ctx *ctx);

#endif
