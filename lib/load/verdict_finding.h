/* SPDX-License-Identifier: MIT */
/*
 * verdict_finding.h - a finding as a record (verdict_finding.c): its
 * problem record made, its facts added, its words made and the finding
 * added to the verdict once.
 */
#ifndef CUDALOAD_VERDICT_FINDING_H
#define CUDALOAD_VERDICT_FINDING_H

#include "load/verdict_types.h"

/* The name of a kind in reports: "not-found", "undefined-symbols", ... */
const char *cl_finding_kind_name(cl_finding_kind kind);

/* A finding's problem record: the problem kind of finding kind (lazy: a
 * name opened at run time), its facts added by the caller
 * (cl_verdict_fact). */
cl_problem cl_verdict_finding_record(cl_finding_kind kind, int lazy);

/* A fact of a finding: what the model found on this machine. */
void cl_verdict_fact(cl_problem *p, int which, const char *value);
void cl_verdict_fact_int(cl_problem *p, int which, long value);

/* Whose loader's rules the model applied: "linux" or "windows" (the
 * finding's CUDALOAD_FACT_PLATFORM). */
const char *cl_verdict_platform_of(cl_naming naming);

/* Add a finding whose problem record (its kind, facts and fix steps) is
 * problem, taken over (left empty); its words are made here. The other
 * strings are copied; any may be NULL. The same words are recorded once.
 * Returns the finding, NULL when it was there already or memory ran out. */
cl_finding *cl_verdict_add(cudaload_explain *e, cl_finding_kind kind, int lazy,
                           cl_problem *problem, const char *consumer,
                           const char *name, const char *taken,
                           const char *better);
/* Make f's words again after a change to its record (another name joined
 * it). 0 or CUDALOAD_E_NO_MEMORY (then e->failed). */
int cl_verdict_reword(cudaload_explain *e, cl_finding *f);

/* Free what a finding owns (its record and strings), not f itself. */
void cl_verdict_finding_free(cl_finding *f);

#endif
