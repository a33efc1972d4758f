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

/* Record a plan warning (cudaload_plan_warning()): problem, a record of
 * its kind, facts and fix steps (taken over: left empty), about file; its
 * words are made for the shell of ctx's naming, and the same words are
 * recorded once. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_plan_add_warning(cudaload_ctx *ctx, cl_problem *problem,
                        const char *file);

/* The shell a fix is written for on ctx's naming: cmd and PowerShell on
 * Windows, else POSIX sh. */
cl_shell_kind cl_plan_shell(const cudaload_ctx *ctx);

#endif
