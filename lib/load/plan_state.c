/* SPDX-License-Identifier: MIT */
/*
 * plan_state.c - the load stage's state in a context: made on first use by
 * the stage, cleared and freed through the functions it sets in the handle
 * (core/ calls no later stage).
 */
#include "load/plan_state.h"
#include "common/error.h"

#include <stdlib.h>

static void clear_conflicts(cl_plan_state *ps) {
  for (size_t i = 0; i < ps->conflict_count; ++i) {
    free(ps->conflicts[i].path);
    free(ps->conflicts[i].problem);
    free(ps->conflicts[i].fix);
    free(ps->conflicts[i].text);
  }
  ps->conflict_count = 0;
}

/* Drop the plan, its warnings and conflicts (requirements stay). */
static void clear_plan(cl_plan_state *ps) {
  for (size_t i = 0; i < ps->plan_count; ++i) {
    free(ps->plan[i].path);
    free(ps->plan[i].soname);
    free(ps->plan[i].reason);
    free(ps->plan[i].loaded_path);
    free(ps->plan[i].opened_by);
  }
  ps->plan_count = 0;
  for (size_t i = 0; i < ps->plan_warning_count; ++i) {
    free(ps->plan_warnings[i].problem);
    free(ps->plan_warnings[i].fix);
    free(ps->plan_warnings[i].file);
    free(ps->plan_warnings[i].text);
  }
  ps->plan_warning_count = 0;
  clear_conflicts(ps);
  for (size_t r = 0; r < ps->outcome_count; ++r) {
    cl_requirement_outcome *o = &ps->outcomes[r];
    for (size_t i = 0; i < o->rejected_count; ++i) {
      free(o->rejected[i].path);
      free(o->rejected[i].why);
    }
    free(o->rejected);
    free(o->fix);
  }
  free(ps->plan_cuda_reason);
  ps->plan_cuda_reason = NULL;
  ps->plan_cuda_major = 0;
  free(ps->outcomes);
  ps->outcomes = NULL;
  ps->outcome_count = 0;
  ps->planned = 0;
}

static void free_plan_state(cl_plan_state *ps) {
  clear_plan(ps);
  free(ps->plan);
  free(ps->plan_warnings);
  free(ps->conflicts);
  for (size_t i = 0; i < ps->requirement_count; ++i)
    free(ps->requirements[i].text);
  free(ps->requirements);
  for (size_t i = 0; i < ps->origin_count; ++i) {
    free(ps->origins[i].text);
    free(ps->origins[i].origin);
  }
  free(ps->origins);
  for (size_t i = 0; i < ps->program_file_count; ++i)
    free(ps->program_files[i]);
  free(ps->program_files);
  for (size_t i = 0; i < ps->program_plugin_count; ++i)
    free(ps->program_plugins[i]);
  free(ps->program_plugins);
  free(ps->env_value);
  for (size_t i = 0; i < ps->env_warning_count; ++i)
    free(ps->env_warnings[i]);
  free(ps->env_warnings);
  free(ps->env_warning_fatal);
  free(ps);
}

/* What cl_plan_state_of() answers before a state is made: readers need not
 * tell "nothing required" from "no state". */
static const cl_plan_state no_plan_state;

const cl_plan_state *cl_plan_state_of(const cudaload_ctx *ctx) {
  return ctx && ctx->plan_state ? ctx->plan_state : &no_plan_state;
}

cl_plan_state *cl_plan_state_make(cudaload_ctx *ctx) {
  if (!ctx->plan_state) {
    cl_plan_state *ps = calloc(1, sizeof *ps);
    if (!ps) {
      cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
      return NULL;
    }
    ctx->plan_state = ps;
    ctx->plan_state_clear = clear_plan;
    ctx->plan_state_free = free_plan_state;
  }
  return ctx->plan_state;
}

void cl_plan_clear_conflicts(cudaload_ctx *ctx) {
  if (ctx->plan_state)
    clear_conflicts(ctx->plan_state);
}
