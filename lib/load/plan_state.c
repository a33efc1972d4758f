/* SPDX-License-Identifier: MIT */
/*
 * plan_state.c - the load stage's state in a context: made on first use by
 * the stage, cleared and freed through the functions it sets in the handle
 * (core/ calls no later stage).
 */
#include "load/plan_state.h"
#include "common/error.h"
#include "common/strutil.h"
#include "problem/problem_words.h"

#include <stdlib.h>
#include <string.h>

static void clear_conflicts(cl_plan_state *ps) {
  for (size_t i = 0; i < ps->conflict_count; ++i) {
    free(ps->conflicts[i].path);
    cl_problem_free(&ps->conflicts[i].problem);
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
    cl_plan_warning_free(&ps->plan_warnings[i]);
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
    cl_fix_free(&o->fix_steps);
    free(o->fix_cuda_why);
  }
  free(ps->plan_cuda_reason);
  ps->plan_cuda_reason = NULL;
  ps->plan_cuda_major = 0;
  ps->plan_cuda_guessed = 0;
  free(ps->outcomes);
  ps->outcomes = NULL;
  ps->outcome_count = 0;
  ps->planned = 0;
}

void cl_plan_warning_free(cl_plan_warning *w) {
  cl_problem_free(&w->problem);
  free(w->file);
  free(w->text);
  memset(w, 0, sizeof *w);
}

int cl_plan_warning_make(cl_plan_warning *w, cl_problem *problem,
                         const char *file, cl_shell_kind shell) {
  memset(w, 0, sizeof *w);
  w->problem = *problem;
  memset(problem, 0, sizeof *problem);
  w->file = cl_strdup(file ? file : "");
  if (w->file && cl_problem_words(&w->problem, shell) == CUDALOAD_OK)
    w->text = cl_strdup_printf("%s: %s", w->problem.text, w->problem.fix_text);
  if (w->text)
    return CUDALOAD_OK;
  cl_plan_warning_free(w);
  return CUDALOAD_E_NO_MEMORY;
}

int cl_plan_warning_copy(cl_plan_warning *to, const cl_plan_warning *from) {
  memset(to, 0, sizeof *to);
  int rc = cl_problem_copy(&to->problem, &from->problem);
  to->file = cl_strdup(from->file);
  to->text = cl_strdup(from->text);
  to->problem.text = from->problem.text ? cl_strdup(from->problem.text) : NULL;
  to->problem.fix_text =
      from->problem.fix_text ? cl_strdup(from->problem.fix_text) : NULL;
  if (!rc && to->file && to->text && to->problem.text && to->problem.fix_text)
    return CUDALOAD_OK;
  cl_plan_warning_free(to);
  return CUDALOAD_E_NO_MEMORY;
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
  for (size_t i = 0; i < ps->program_preload_count; ++i)
    free(ps->program_preloads[i]);
  free(ps->program_preloads);
  for (size_t i = 0; i < ps->program_call_file_count; ++i)
    free(ps->program_call_files[i]);
  free(ps->program_call_files);
  free(ps->program_call_names);
  for (size_t i = 0; i < ps->optional_need_count; ++i) {
    free(ps->optional_needs[i].opener);
    free(ps->optional_needs[i].why);
  }
  free(ps->optional_needs);
  free(ps->program_cuda_reason);
  for (size_t i = 0; i < ps->program_warning_count; ++i)
    cl_plan_warning_free(&ps->program_warnings[i]);
  free(ps->program_warnings);
  for (size_t i = 0; i < ps->for_target_count; ++i)
    free(ps->for_targets[i]);
  free(ps->for_targets);
  cl_plan_state_clear_env_changes(ps);
  free(ps->env_change_names);
  free(ps->env_change_values);
  free(ps->env_value);
  for (size_t i = 0; i < ps->env_warning_count; ++i)
    free(ps->env_warnings[i]);
  free(ps->env_warnings);
  free(ps->env_warning_fatal);
  free(ps->cuda_pin_why);
  free(ps->program_targets);
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

int cl_plan_pin_cuda(cudaload_ctx *ctx, int major, int source,
                     const char *why) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  if (ps->cuda_pin && ps->cuda_pin_source == CUDALOAD_FROM_REQUEST)
    return CUDALOAD_OK; /* the caller's own word stands */
  char *copy = why ? cl_strdup(why) : NULL;
  if (why && !copy)
    return CUDALOAD_E_NO_MEMORY;
  free(ps->cuda_pin_why);
  ps->cuda_pin = major;
  ps->cuda_pin_source = source;
  ps->cuda_pin_why = copy;
  return CUDALOAD_OK;
}

void cl_plan_clear_conflicts(cudaload_ctx *ctx) {
  if (ctx->plan_state)
    clear_conflicts(ctx->plan_state);
}

/* Copy n strings; 0, or 1 with what was copied freed. */
static int copy_strings(char ***to, size_t *to_count, size_t *to_capacity,
                        char *const *from, size_t n) {
  if (!n)
    return 0;
  *to = calloc(n, sizeof **to);
  if (!*to)
    return 1;
  *to_capacity = n;
  for (*to_count = 0; *to_count < n; ++*to_count)
    if (!((*to)[*to_count] = cl_strdup(from[*to_count])))
      return 1;
  return 0;
}

/* The requirements and what came with them; 0, or 1 when out of memory
 * (what was copied is freed with to). */
static int copy_requirements(cl_plan_state *to, const cl_plan_state *from) {
  to->cuda_pin = from->cuda_pin;
  to->cuda_pin_source = from->cuda_pin_source;
  if (from->program_targets &&
      !(to->program_targets = cl_strdup(from->program_targets)))
    return 1;
  if (from->cuda_pin_why && !(to->cuda_pin_why = cl_strdup(from->cuda_pin_why)))
    return 1;
  if (from->requirement_count) {
    to->requirements =
        calloc(from->requirement_count, sizeof *to->requirements);
    if (!to->requirements)
      return 1;
    to->requirement_capacity = from->requirement_count;
    for (size_t i = 0; i < from->requirement_count; ++i) {
      to->requirements[i] = from->requirements[i];
      to->requirements[i].text = cl_strdup(from->requirements[i].text);
      to->requirement_count = i + 1;
      if (!to->requirements[i].text)
        return 1;
    }
  }
  if (from->origin_count) {
    to->origins = calloc(from->origin_count, sizeof *to->origins);
    if (!to->origins)
      return 1;
    to->origin_capacity = from->origin_count;
    for (size_t i = 0; i < from->origin_count; ++i) {
      to->origins[i].text = cl_strdup(from->origins[i].text);
      to->origins[i].origin = cl_strdup(from->origins[i].origin);
      to->origin_count = i + 1;
      if (!to->origins[i].text || !to->origins[i].origin)
        return 1;
    }
  }
  if (from->optional_need_count) {
    to->optional_needs =
        calloc(from->optional_need_count, sizeof *to->optional_needs);
    if (!to->optional_needs)
      return 1;
    to->optional_need_capacity = from->optional_need_count;
    for (size_t i = 0; i < from->optional_need_count; ++i) {
      const cl_optional_need *n = &from->optional_needs[i];
      cl_optional_need *t = &to->optional_needs[i];
      *t = *n;
      t->opener = cl_strdup(n->opener);
      t->why = cl_strdup(n->why);
      to->optional_need_count = i + 1;
      if (!t->opener || !t->why)
        return 1;
    }
  }
  if (from->program_warning_count) {
    to->program_warnings =
        calloc(from->program_warning_count, sizeof *to->program_warnings);
    if (!to->program_warnings)
      return 1;
    to->program_warning_capacity = from->program_warning_count;
    for (size_t i = 0; i < from->program_warning_count; ++i) {
      if (cl_plan_warning_copy(&to->program_warnings[i],
                               &from->program_warnings[i]))
        return 1;
      to->program_warning_count = i + 1;
    }
  }
  to->program_cuda_major = from->program_cuda_major;
  if (from->program_cuda_reason &&
      !(to->program_cuda_reason = cl_strdup(from->program_cuda_reason)))
    return 1;
  if (from->program_call_file_count) {
    to->program_call_names =
        malloc(from->program_call_file_count * sizeof *to->program_call_names);
    if (!to->program_call_names)
      return 1;
    memcpy(to->program_call_names, from->program_call_names,
           from->program_call_file_count * sizeof *to->program_call_names);
    to->program_call_name_capacity = from->program_call_file_count;
  }
  return copy_strings(&to->program_files, &to->program_file_count,
                      &to->program_file_capacity, from->program_files,
                      from->program_file_count) ||
         copy_strings(&to->program_plugins, &to->program_plugin_count,
                      &to->program_plugin_capacity, from->program_plugins,
                      from->program_plugin_count) ||
         copy_strings(&to->program_preloads, &to->program_preload_count,
                      &to->program_preload_capacity, from->program_preloads,
                      from->program_preload_count) ||
         copy_strings(&to->program_call_files, &to->program_call_file_count,
                      &to->program_call_file_capacity, from->program_call_files,
                      from->program_call_file_count) ||
         copy_strings(&to->for_targets, &to->for_target_count,
                      &to->for_target_capacity, from->for_targets,
                      from->for_target_count);
}

int cl_plan_state_take_loads(cudaload_ctx *ctx, const cl_plan_state *users) {
  cl_plan_state *own = ctx->plan_state;
  for (size_t i = 0; own && i < own->plan_count; ++i)
    for (size_t k = 0; k < users->plan_count; ++k) {
      const cl_plan_entry *was = &users->plan[k];
      if (was->state == CUDALOAD_STATE_PLANNED ||
          was->state == CUDALOAD_STATE_NOT_NEEDED || !was->loaded_path ||
          strcmp(was->path, own->plan[i].path) != 0)
        continue;
      char *loaded = cl_strdup(was->loaded_path);
      if (!loaded)
        return CUDALOAD_E_NO_MEMORY;
      free(own->plan[i].loaded_path);
      own->plan[i].loaded_path = loaded;
      own->plan[i].state = was->state;
    }
  return CUDALOAD_OK;
}

int cl_plan_state_own(cudaload_ctx *report, const cl_plan_state *users) {
  cl_plan_state *own = calloc(1, sizeof *own);
  if (!own || copy_requirements(own, users)) {
    if (own)
      free_plan_state(own);
    return CUDALOAD_E_NO_MEMORY;
  }
  report->plan_state = own;
  report->plan_state_clear = clear_plan;
  report->plan_state_free = free_plan_state;
  return CUDALOAD_OK;
}

int cl_plan_state_add_program_target(cudaload_ctx *ctx, const char *target) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->for_target_count; ++i)
    if (strcmp(ps->for_targets[i], target) == 0)
      return CUDALOAD_OK;
  char *copy = cl_strdup(target);
  if (!copy || cl_reserve((void **)&ps->for_targets, &ps->for_target_capacity,
                          ps->for_target_count + 1, sizeof *ps->for_targets)) {
    free(copy);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->for_targets[ps->for_target_count++] = copy;
  return CUDALOAD_OK;
}

void cl_plan_state_clear_env_changes(cl_plan_state *ps) {
  for (size_t i = 0; i < ps->env_change_count; ++i) {
    free(ps->env_change_names[i]);
    free(ps->env_change_values[i]);
  }
  ps->env_change_count = 0;
}

int cl_plan_state_add_env_change(cl_plan_state *ps, const char *name,
                                 const char *value) {
  size_t capacity = ps->env_change_capacity;
  if (cl_reserve((void **)&ps->env_change_names, &capacity,
                 ps->env_change_count + 1, sizeof *ps->env_change_names) ||
      cl_reserve((void **)&ps->env_change_values, &ps->env_change_capacity,
                 ps->env_change_count + 1, sizeof *ps->env_change_values))
    return CUDALOAD_E_NO_MEMORY;
  char *n = cl_strdup(name);
  char *v = value ? cl_strdup(value) : NULL;
  if (!n || (value && !v)) {
    free(n);
    free(v);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->env_change_names[ps->env_change_count] = n;
  ps->env_change_values[ps->env_change_count] = v;
  ps->env_change_count++;
  return CUDALOAD_OK;
}

int cl_plan_state_add_env_warning(cl_plan_state *ps, char *text, int fatal) {
  if (!text ||
      cl_reserve((void **)&ps->env_warnings, &ps->env_warning_capacity,
                 ps->env_warning_count + 1, sizeof *ps->env_warnings)) {
    free(text);
    return CUDALOAD_E_NO_MEMORY;
  }
  unsigned char *flags =
      realloc(ps->env_warning_fatal, ps->env_warning_count + 1);
  if (!flags) {
    free(text);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->env_warning_fatal = flags;
  flags[ps->env_warning_count] = (unsigned char)(fatal != 0);
  ps->env_warnings[ps->env_warning_count++] = text;
  return CUDALOAD_OK;
}
