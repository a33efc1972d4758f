/* SPDX-License-Identifier: MIT */
/*
 * verdict_finding.c - a finding of the verdict as a record (verdict_finding.h):
 * the problem kind of each finding kind, its facts, its words made by the
 * one table (problem/problem_words.c) and the finding added once. Every
 * judgement of the verdict (verdict_*_findings.c, verdict_mixes.c,
 * verdict.c) records what it finds through here, so a finding is made the
 * same way wherever it is found.
 */
#include "load/verdict_finding.h"

#include "common/shell_word.h"
#include "common/strutil.h"
#include "problem/problem_words.h"
#include "scan/inventory.h"

#include <stdlib.h>
#include <string.h>

/* --- findings ------------------------------------------------------------ */

static char *dup_or_null(const char *s) {
  return s ? cl_strdup(s) : NULL;
}

const char *cl_finding_kind_name(cl_finding_kind kind) {
  static const char *const names[] = {NULL,
                                      "not-found",
                                      "undefined-symbols",
                                      "wrong-library",
                                      "sibling-shadowed",
                                      "binds-elsewhere",
                                      "two-versions",
                                      "cuda-majors",
                                      "empty-entry",
                                      "unreadable",
                                      "process",
                                      "plugin-unusable",
                                      "lookups-stopped"};
  return (size_t)kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

void cl_verdict_finding_free(cl_finding *f) {
  cl_problem_free(&f->problem);
  free(f->consumer);
  free(f->name);
  free(f->names);
  free(f->taken);
  free(f->better);
}

/* The problem kind of a finding's kind. */
static int problem_kind(cl_finding_kind kind, int lazy) {
  switch (kind) {
  case CL_FINDING_NOT_FOUND:
    return lazy ? CUDALOAD_PROBLEM_LAZY_NOT_FOUND : CUDALOAD_PROBLEM_NOT_FOUND;
  case CL_FINDING_UNDEFINED_SYMBOLS:
    return CUDALOAD_PROBLEM_SYMBOLS_MISSING;
  case CL_FINDING_WRONG_LIBRARY:
    return CUDALOAD_PROBLEM_WRONG_LIBRARY;
  case CL_FINDING_SIBLING_SHADOWED:
    return CUDALOAD_PROBLEM_SHADOWED;
  case CL_FINDING_BINDS_ELSEWHERE:
    return CUDALOAD_PROBLEM_BINDS_ELSEWHERE;
  case CL_FINDING_TWO_VERSIONS:
    return CUDALOAD_PROBLEM_TWO_VERSIONS;
  case CL_FINDING_CUDA_MAJORS:
    return CUDALOAD_PROBLEM_CUDA_MAJORS;
  case CL_FINDING_EMPTY_ENTRY:
    return CUDALOAD_PROBLEM_EMPTY_ENTRY;
  case CL_FINDING_UNREADABLE:
    return CUDALOAD_PROBLEM_UNREADABLE;
  case CL_FINDING_PROCESS:
    return CUDALOAD_PROBLEM_IN_PROCESS;
  case CL_FINDING_PLUGIN_UNUSABLE:
    return CUDALOAD_PROBLEM_PLUGIN_UNUSABLE;
  default: /* CL_FINDING_STOPPED */
    return CUDALOAD_PROBLEM_STOPPED;
  }
}

/* A finding's problem record: the kind of finding kind, its facts added by
 * the caller (cl_verdict_fact(), below). */
cl_problem cl_verdict_finding_record(cl_finding_kind kind, int lazy) {
  cl_problem p;
  cl_problem_init(&p, problem_kind(kind, lazy));
  return p;
}

/* A fact of a finding: what the model found on this machine. */
void cl_verdict_fact(cl_problem *p, int which, const char *value) {
  cl_problem_fact(NULL, p, which, CUDALOAD_FROM_MACHINE, value);
}

void cl_verdict_fact_int(cl_problem *p, int which, long value) {
  cl_problem_factf(NULL, p, which, CUDALOAD_FROM_MACHINE, "%ld", value);
}

/* Whose loader's rules the model applied. */
const char *cl_verdict_platform_of(cl_naming naming) {
  return naming == CL_NAMING_WINDOWS ? "windows" : "linux";
}

/* The shell a finding's fix is written for: the loader's platform's. */
static cl_shell_kind shell_of(const cudaload_explain *e) {
  return e->ctx && cl_ctx_naming(e->ctx) == CL_NAMING_WINDOWS
             ? CL_SHELL_CMD_AND_POWERSHELL
             : CL_SHELL_POSIX;
}

int cl_verdict_reword(cudaload_explain *e, cl_finding *f) {
  if (cl_problem_words(&f->problem, shell_of(e)) != CUDALOAD_OK) {
    e->failed = 1;
    return CUDALOAD_E_NO_MEMORY;
  }
  f->text = f->problem.text;
  f->fix = f->problem.fix.count ? f->problem.fix_text : NULL;
  return CUDALOAD_OK;
}

cl_finding *cl_verdict_add(cudaload_explain *e, cl_finding_kind kind, int lazy,
                           cl_problem *problem, const char *consumer,
                           const char *name, const char *taken,
                           const char *better) {
  cl_finding made;
  memset(&made, 0, sizeof made);
  made.kind = kind;
  made.lazy = lazy;
  made.problem = *problem;
  memset(problem, 0, sizeof *problem);
  if (cl_verdict_reword(e, &made) != CUDALOAD_OK) {
    cl_verdict_finding_free(&made);
    return NULL;
  }
  made.note = made.problem.note; /* the caller's, or its kind's */
  for (size_t i = 0; i < e->finding_count; ++i)
    if (strcmp(e->findings[i].text, made.text) == 0) {
      cl_verdict_finding_free(&made);
      return NULL;
    }
  made.consumer = dup_or_null(consumer);
  made.name = dup_or_null(name);
  made.taken = dup_or_null(taken);
  made.better = dup_or_null(better);
  if ((consumer && !made.consumer) || (name && !made.name) ||
      (taken && !made.taken) || (better && !made.better) ||
      cl_reserve((void **)&e->findings, &e->finding_capacity,
                 e->finding_count + 1, sizeof *e->findings)) {
    cl_verdict_finding_free(&made);
    e->failed = 1;
    return NULL;
  }
  e->findings[e->finding_count] = made;
  return &e->findings[e->finding_count++];
}
