/* SPDX-License-Identifier: MIT */
/*
 * plan_record.c - what the plan records: the files it takes (entries) and
 * its warnings (problem records whose words are made once). Every part of
 * the plan adds to both (the choice, the dependencies, the preload, the
 * judge of what is loaded already), so the records have a file of their
 * own that none of them needs to include the others for.
 */
#include "load/plan_record.h"
#include "common/error.h"
#include "common/strutil.h"
#include "problem/problem_words.h"

#include <stdlib.h>
#include <string.h>

/* A plan's warning of kind, its facts from the machine (cl_plan_fact(), below).
 */
cl_problem cl_plan_warning_record(int kind) {
  cl_problem p;
  cl_problem_init(&p, kind);
  return p;
}

void cl_plan_fact(cl_problem *p, int which, const char *value) {
  cl_problem_fact(NULL, p, which, CUDALOAD_FROM_MACHINE, value);
}

void cl_plan_fact_int(cl_problem *p, int which, long value) {
  cl_problem_factf(NULL, p, which, CUDALOAD_FROM_MACHINE, "%ld", value);
}

/* planned: the plan's entries by path (borrowed), so that adding one to a
 * plan of thousands (a folder of sub-libraries) does not compare it with
 * each. */
int cl_plan_add_entry(cudaload_ctx *ctx, cl_str_index *planned,
                      const cl_library *lib, size_t requirement,
                      const char *reason) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  if (cl_str_index_find(planned, lib->path, NULL))
    return CUDALOAD_OK; /* two requirements chose the same file */
  if (cl_reserve((void **)&ps->plan, &ps->plan_capacity, ps->plan_count + 1,
                 sizeof(cl_plan_entry)))
    return CUDALOAD_E_NO_MEMORY;
  cl_plan_entry *p = &ps->plan[ps->plan_count];
  memset(p, 0, sizeof *p);
  p->entry = lib->entry;
  p->major = lib->major;
  p->path = cl_strdup(lib->path);
  p->reason = cl_strdup(reason);
  p->loaded_path = cl_strdup("");
  p->requirement = requirement;
  p->state = CUDALOAD_STATE_PLANNED;
  p->to_load = 1;
  if (!p->path || !p->reason || !p->loaded_path) {
    free(p->path);
    free(p->reason);
    free(p->loaded_path);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->plan_count++;
  return cl_str_index_add(planned, p->path, ps->plan_count - 1);
}

cl_shell_kind cl_plan_shell(const cudaload_ctx *ctx) {
  return cl_ctx_naming(ctx) == CL_NAMING_WINDOWS ? CL_SHELL_CMD_AND_POWERSHELL
                                                 : CL_SHELL_POSIX;
}

/* Record a warning once (two sub-libraries can miss the same library). */
int cl_plan_add_warning(cudaload_ctx *ctx, cl_problem *problem,
                        const char *file) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  cl_plan_warning w;
  if (!ps || cl_reserve((void **)&ps->plan_warnings, &ps->plan_warning_capacity,
                        ps->plan_warning_count + 1, sizeof(cl_plan_warning))) {
    cl_problem_free(problem);
    return CUDALOAD_E_NO_MEMORY;
  }
  if (cl_plan_warning_make(&w, problem, file, cl_plan_shell(ctx)))
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->plan_warning_count; ++i)
    if (strcmp(ps->plan_warnings[i].text, w.text) == 0) {
      cl_plan_warning_free(&w);
      return CUDALOAD_OK;
    }
  ps->plan_warnings[ps->plan_warning_count++] = w;
  return CUDALOAD_OK;
}
