/* SPDX-License-Identifier: MIT */
/*
 * plan_judge.h - the loader model's verdict on a plan (verdict.h), turned
 * into a decision: what makes loading the plan fail in the modelled
 * process (a needed file not found, a file taken that lacks symbols its
 * consumer takes, an older copy already loaded), and what only warns (a
 * name opened later that nothing provides, two versions, two CUDA majors).
 * cudaload_preload() judges the plan in this process before loading
 * anything; `exec` judges it in the child it is about to start.
 */
#ifndef CUDALOAD_PLAN_JUDGE_H
#define CUDALOAD_PLAN_JUDGE_H

#include "common/fix_steps.h"
#include "core/context.h"
#include "loader/resolve.h"
#include "problem/problem.h"

typedef struct cl_plan_judgement {
  /* CUDALOAD_OK; CUDALOAD_E_CONFLICT (a copy the process already has would
   * be used instead of a planned one, and it would not do); or
   * CUDALOAD_E_LOAD_FAILED (the loader would refuse a planned file). */
  int status;
  /* The reasons, one "  problem\n    fix: ...\n" block each; NULL when
   * status is CUDALOAD_OK. */
  char *why;
  size_t count;
} cl_plan_judgement;

/* Judge ctx's plan in m (this process, or a child about to start): the
 * reasons it would fail go into out, the rest become plan warnings
 * (cudaload_plan_warning(), with the same sentences as explain and the
 * doctor). flags are the preload's. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_plan_judge(cudaload_ctx *ctx, cl_loader_model *m, unsigned flags,
                  cl_plan_judgement *out);
void cl_plan_judgement_free(cl_plan_judgement *j);

/* A finding about a copy the process in m already has (the loader takes
 * it by rule already-loaded), as a problem record into *out: the
 * finding's facts, kind CUDALOAD_PROBLEM_PRELOADED_COPY (LD_PRELOAD put
 * the copy there) or _LOADED_COPY, what it causes (CUDALOAD_FACT_CAUSES:
 * the finding's kind), the copy (_PATH) and who loaded it (_LOADED_BY),
 * with the fix for that. 1 when it is one, 0 when not, -1 when memory ran
 * out. cl_problem_free(out) after 1. */
struct cl_finding;
int cl_plan_finding_in_process(const cl_loader_model *m,
                               const struct cl_finding *f, cl_problem *out);

/* Drop the plan's own warnings (plan.c reads the catalog) about a name
 * opened later that the verdict e reports as not found: the verdict's
 * sentence stands, the same in explain, the doctor, preload and env. */
struct cudaload_explain;
void cl_plan_absorb_findings(cudaload_ctx *ctx,
                             const struct cudaload_explain *e);

#endif
