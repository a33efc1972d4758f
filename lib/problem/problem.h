/* SPDX-License-Identifier: MIT */
/*
 * problem.h - a problem as a record (problem.c): a kind from one enum
 * (CUDALOAD_PROBLEM_* in cudaload.h), its facts, each with where it came
 * from (the machine, the program, the error message, the request), and its
 * fix as steps (common/fix_steps.h). Every stage that finds something wrong
 * records it so; the words a person reads are made from the record by one
 * table (problem_words.c), and every output (text, JSON, YAML, the C
 * accessors, the Python objects) shows the same record.
 */
#ifndef CUDALOAD_PROBLEM_H
#define CUDALOAD_PROBLEM_H

#include "common/fix_steps.h"
#include "core/context.h"

#include <stddef.h>

/* Room for every CUDALOAD_FACT_* value, and for those to come: a fact is
 * an index here (facts[0] is unused). */
#define CL_FACT_SLOTS 40

typedef struct cl_problem {
  int kind; /* CUDALOAD_PROBLEM_* */
  /* A note: worth knowing, stops nothing loading (the doctor's Notes; the
   * exit status does not count it). */
  int note;
  char *facts[CL_FACT_SLOTS];           /* by CUDALOAD_FACT_* */
  unsigned char sources[CL_FACT_SLOTS]; /* CUDALOAD_FROM_*, 0 none */
  cl_fix fix;
  /* The sentence and the fix as one line (problem_words.c makes both from
   * the kind and the facts). */
  char *text;
  char *fix_text;
  /* A fact was lost to out of memory: the record is incomplete. */
  int failed;
} cl_problem;

typedef struct cl_problem_list {
  cl_problem *items;
  size_t count, capacity;
  int failed; /* out of memory on the way: the list is incomplete */
} cl_problem_list;

#define CL_PROBLEM_LIST_INIT                                                   \
  { NULL, 0, 0, 0 }

/* A new, empty problem of kind at the end of list; NULL (and list->failed)
 * when out of memory. The setters below do nothing with a NULL problem. */
cl_problem *cl_problem_add(cl_problem_list *list, int kind);
/* A problem of kind that stands alone until it joins a list (a finding of
 * the loader model, a plan's warning): the setters take a NULL list, and
 * p->failed says what was lost. Free it with cl_problem_free(). */
void cl_problem_init(cl_problem *p, int kind);
void cl_problem_free(cl_problem *p);
/* A copy of from into to (kind, facts, fix; its words are made again):
 * 0, or CUDALOAD_E_NO_MEMORY with to->failed. */
int cl_problem_copy(cl_problem *to, const cl_problem *from);
/* The same at the end of list; NULL (and list->failed) when out of
 * memory. */
cl_problem *cl_problem_add_copy(cl_problem_list *list, const cl_problem *from);
/* Fact (CUDALOAD_FACT_*) from source (CUDALOAD_FROM_*); a NULL value
 * leaves it unset. Replaces an earlier value. list may be NULL for a
 * problem that stands alone. */
void cl_problem_fact(cl_problem_list *list, cl_problem *p, int fact, int source,
                     const char *value);
void cl_problem_factf(cl_problem_list *list, cl_problem *p, int fact,
                      int source, const char *format, ...) CL_PRINTF(5, 6);
void cl_problem_fact_int(cl_problem_list *list, cl_problem *p, int fact,
                         int source, long value);
/* Take over a fix built elsewhere (fix is left empty). */
void cl_problem_take_fix(cl_problem_list *list, cl_problem *p, cl_fix *fix);

/* Whether a problem already in list (a note when p is one) has p's kind
 * and every fact p has, with the same value: p is said already. */
int cl_problem_list_has(const cl_problem_list *list, const cl_problem *p);
/* The number of problems, notes left out. */
size_t cl_problem_list_problems(const cl_problem_list *list);

/* Drop the last problem added (one found to repeat another). */
void cl_problem_drop_last(cl_problem_list *list);

void cl_problem_list_free(cl_problem_list *list);

/* The last doctor's problems, kept in ctx for the accessors
 * (cudaload_doctor_problem_*): list is moved in (left empty), notes are
 * left out, and the previous list is freed. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_problem_list_keep(cudaload_ctx *ctx, cl_problem_list *list);
/* Problem i of those kept (what cudaload_doctor_problem_*() read), NULL
 * out of range; valid until the next report. */
const cl_problem *cl_problem_kept(const cudaload_ctx *ctx, size_t i);
/* What the accessors show: none while a report is made or after one failed
 * (hide), the problems the last cl_problem_list_keep() kept once its report
 * is made (show). The count is the problem stage's, beside the records. */
void cl_problem_kept_hide(cudaload_ctx *ctx);
void cl_problem_kept_show(cudaload_ctx *ctx);
size_t cl_problem_kept_count(const cudaload_ctx *ctx);

#endif
