/* SPDX-License-Identifier: MIT */
/*
 * plan_record.h - what the plan records: a file planned (an entry) and a
 * warning, a problem record with its facts (plan_record.c).
 */
#ifndef CUDALOAD_PLAN_RECORD_H
#define CUDALOAD_PLAN_RECORD_H

#include "common/strindex.h"
#include "core/context.h"
#include "load/plan_state.h"
#include "problem/problem.h"
#include "scan/inventory.h"

#include <stddef.h>

/* A plan warning's record of kind, its facts to come from the machine. */
cl_problem cl_plan_warning_record(int kind);

/* A fact of p (which, a CUDALOAD_FACT_*), from the machine; as a number. */
void cl_plan_fact(cl_problem *p, int which, const char *value);
void cl_plan_fact_int(cl_problem *p, int which, long value);

/* Plan lib for requirement with reason, once: planned holds the plan's
 * entries by path. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_plan_add_entry(cudaload_ctx *ctx, cl_str_index *planned,
                      const cl_library *lib, size_t requirement,
                      const char *reason);

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
