/* SPDX-License-Identifier: MIT */
/*
 * plan.h - what the plan stage offers the later ones besides
 * cudaload_plan() itself (plan.c); recording a plan warning is
 * plan_record.h's, included here for them.
 */
#ifndef CUDALOAD_PLAN_H
#define CUDALOAD_PLAN_H

#include "core/context.h"
#include "load/plan_record.h" /* cl_plan_add_warning, cl_plan_shell */
#include "load/plan_state.h"

/* Recompute cl_plan_state_of(ctx)->conflicts from the process's global symbol
 * scope. */
int cl_plan_detect_conflicts(cudaload_ctx *ctx);

/* What cudaload_require_for() found wrong with the program itself (two
 * distributions owning its files, a pin not read) as plan warnings, as
 * every plan adds them: for a report with nothing to plan (a program that
 * requires nothing, such as a CPU build installed over the GPU one). */
int cl_plan_add_program_warnings(cudaload_ctx *ctx);

#endif
