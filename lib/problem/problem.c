/* SPDX-License-Identifier: MIT */
/*
 * problem.c - problems as records (problem.h), and the C accessors of the
 * last doctor's problems (cudaload_doctor_problem_*).
 */
#include "problem/problem.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

cl_problem *cl_problem_add(cl_problem_list *list, int kind) {
  if (list->failed || cl_reserve((void **)&list->items, &list->capacity,
                                 list->count + 1, sizeof *list->items)) {
    list->failed = 1;
    return NULL;
  }
  cl_problem *p = &list->items[list->count++];
  memset(p, 0, sizeof *p);
  p->kind = kind;
  return p;
}

void cl_problem_init(cl_problem *p, int kind) {
  memset(p, 0, sizeof *p);
  p->kind = kind;
}

int cl_problem_copy(cl_problem *to, const cl_problem *from) {
  cl_problem_init(to, from->kind);
  to->note = from->note;
  for (int f = 0; f < CL_FACT_SLOTS; ++f)
    if (from->facts[f])
      cl_problem_fact(NULL, to, f, from->sources[f], from->facts[f]);
  cl_fix_append(&to->fix, &from->fix);
  to->failed |= from->failed || to->fix.failed;
  return to->failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}

cl_problem *cl_problem_add_copy(cl_problem_list *list, const cl_problem *from) {
  cl_problem *p = cl_problem_add(list, from->kind);
  if (!p)
    return NULL;
  list->failed |= cl_problem_copy(p, from) != CUDALOAD_OK;
  return p;
}

static int fact_index_ok(int fact) {
  return fact > 0 && fact < CL_FACT_SLOTS;
}

static void set_fact(cl_problem_list *list, cl_problem *p, int fact, int source,
                     char *value) {
  if (!value) {
    p->failed = 1;
    if (list)
      list->failed = 1;
    return;
  }
  free(p->facts[fact]);
  p->facts[fact] = value;
  p->sources[fact] = (unsigned char)source;
}

void cl_problem_fact(cl_problem_list *list, cl_problem *p, int fact, int source,
                     const char *value) {
  if (!p || !value || !fact_index_ok(fact))
    return;
  set_fact(list, p, fact, source, cl_strdup(value));
}

void cl_problem_factf(cl_problem_list *list, cl_problem *p, int fact,
                      int source, const char *format, ...) {
  if (!p || !fact_index_ok(fact))
    return;
  cl_buf b = CL_BUF_INIT;
  va_list ap;
  va_start(ap, format);
  cl_buf_vprintf(&b, format, ap);
  va_end(ap);
  set_fact(list, p, fact, source, cl_buf_take(&b));
}

void cl_problem_fact_int(cl_problem_list *list, cl_problem *p, int fact,
                         int source, long value) {
  if (value)
    cl_problem_factf(list, p, fact, source, "%ld", value);
}

void cl_problem_take_fix(cl_problem_list *list, cl_problem *p, cl_fix *fix) {
  if (!p) {
    cl_fix_free(fix);
    return;
  }
  cl_fix_append(&p->fix, fix);
  p->failed |= p->fix.failed;
  if (list)
    list->failed |= p->fix.failed;
  cl_fix_free(fix);
}

/* Whether q holds every fact p holds, with the same value (q may hold
 * more: the condition, the process as consumer). */
static int holds_facts_of(const cl_problem *q, const cl_problem *p) {
  for (int f = 0; f < CL_FACT_SLOTS; ++f)
    if (p->facts[f] && (!q->facts[f] || strcmp(p->facts[f], q->facts[f])))
      return 0;
  return 1;
}

int cl_problem_list_has(const cl_problem_list *list, const cl_problem *p) {
  for (size_t i = 0; i < list->count; ++i) {
    const cl_problem *q = &list->items[i];
    if (!q->note == !p->note && q->kind == p->kind && holds_facts_of(q, p))
      return 1;
  }
  return 0;
}

size_t cl_problem_list_problems(const cl_problem_list *list) {
  size_t n = 0;
  for (size_t i = 0; i < list->count; ++i)
    n += !list->items[i].note;
  return n;
}

void cl_problem_free(cl_problem *p) {
  for (int f = 0; f < CL_FACT_SLOTS; ++f)
    free(p->facts[f]);
  cl_fix_free(&p->fix);
  free(p->text);
  free(p->fix_text);
  memset(p, 0, sizeof *p);
}

void cl_problem_drop_last(cl_problem_list *list) {
  if (list->count)
    cl_problem_free(&list->items[--list->count]);
}

void cl_problem_list_free(cl_problem_list *list) {
  for (size_t i = 0; i < list->count; ++i)
    cl_problem_free(&list->items[i]);
  free(list->items);
  memset(list, 0, sizeof *list);
}

static void kept_free(cl_problem_list *list) {
  cl_problem_list_free(list);
  free(list);
}

int cl_problem_list_keep(cudaload_ctx *ctx, cl_problem_list *list) {
  cl_problem_list *kept = ctx->doctor_problems;
  if (!kept) {
    kept = calloc(1, sizeof *kept);
    if (!kept) {
      cl_problem_list_free(list);
      return CUDALOAD_E_NO_MEMORY;
    }
    /* Set by the stage that makes it: core/ frees it without knowing it. */
    ctx->doctor_problems = kept;
    ctx->doctor_problems_free = kept_free;
  }
  cl_problem_list_free(kept);
  /* Problems only, in their order: the accessors' i is the report's. */
  size_t n = 0;
  for (size_t i = 0; i < list->count; ++i) {
    if (list->items[i].note) {
      cl_problem_free(&list->items[i]);
      continue;
    }
    list->items[n++] = list->items[i];
  }
  list->count = n;
  *kept = *list;
  memset(list, 0, sizeof *list);
  ++ctx->doctor_serial;
  return CUDALOAD_OK;
}

/* --- the accessors ------------------------------------------------------ */

const cl_problem *cl_problem_kept(const cudaload_ctx *ctx, size_t i) {
  const cl_problem_list *kept = ctx ? ctx->doctor_problems : NULL;
  /* The count is the last report's: 0 while a report is made or after one
   * failed. */
  return kept && i < kept->count && i < ctx->doctor_problem_count
             ? &kept->items[i]
             : NULL;
}

void cl_problem_kept_hide(cudaload_ctx *ctx) {
  ctx->doctor_problem_count = 0;
}

void cl_problem_kept_show(cudaload_ctx *ctx) {
  ctx->doctor_problem_count =
      ctx->doctor_problems ? ctx->doctor_problems->count : 0;
}

size_t cl_problem_kept_count(const cudaload_ctx *ctx) {
  return ctx ? ctx->doctor_problem_count : 0;
}

static const cl_fix_step *step_at(const cudaload_ctx *ctx, size_t i, size_t s) {
  const cl_problem *p = cl_problem_kept(ctx, i);
  return p && s < p->fix.count ? &p->fix.steps[s] : NULL;
}

int cudaload_doctor_problem_kind(const cudaload_ctx *ctx, size_t i) {
  const cl_problem *p = cl_problem_kept(ctx, i);
  return p ? p->kind : 0;
}

const char *cudaload_doctor_problem_text(const cudaload_ctx *ctx, size_t i) {
  const cl_problem *p = cl_problem_kept(ctx, i);
  return p ? p->text : NULL;
}

const char *cudaload_doctor_problem_fact(const cudaload_ctx *ctx, size_t i,
                                         int fact, int *source) {
  const cl_problem *p = cl_problem_kept(ctx, i);
  const char *value = p && fact_index_ok(fact) ? p->facts[fact] : NULL;
  if (source)
    *source = value ? p->sources[fact] : 0;
  return value;
}

size_t cudaload_doctor_fix_step_count(const cudaload_ctx *ctx, size_t i) {
  const cl_problem *p = cl_problem_kept(ctx, i);
  return p ? p->fix.count : 0;
}

int cudaload_doctor_fix_step_action(const cudaload_ctx *ctx, size_t i,
                                    size_t s) {
  const cl_fix_step *step = step_at(ctx, i, s);
  return step ? step->action : 0;
}

const char *cudaload_doctor_fix_step_arg(const cudaload_ctx *ctx, size_t i,
                                         size_t s, size_t k) {
  const cl_fix_step *step = step_at(ctx, i, s);
  return step && k < step->argc ? step->argv[k] : NULL;
}

const char *cudaload_doctor_fix_step_env(const cudaload_ctx *ctx, size_t i,
                                         size_t s, size_t k) {
  const cl_fix_step *step = step_at(ctx, i, s);
  return step && k < step->env_count ? step->env[k] : NULL;
}

const char *cudaload_doctor_fix_step_note(const cudaload_ctx *ctx, size_t i,
                                          size_t s) {
  const cl_fix_step *step = step_at(ctx, i, s);
  return step ? step->note : NULL;
}
