/* SPDX-License-Identifier: MIT */
/*
 * program_scan.c - the state of one cudaload_require_for() read and the
 * requirements it derives (program_scan.h): the sets of names it keeps,
 * each program's CUDA major from its strongest source, each requirement
 * derived once with the reasons it was, and the program's own problems as
 * records. The readers of the program's files (program.c) and of its
 * distributions' pins (program_pins.c) record what they find here.
 */
#include "load/program_scan.h"

#include "common/error.h"
#include "common/strutil.h"
#include "load/spec.h"
#include "scan/catalog.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- small things -------------------------------------------------------- */

void cl_name_set_init(cl_name_set *s, int fold_case) {
  memset(s, 0, sizeof *s);
  cl_str_index_init(&s->index, fold_case);
}

/* Add a copy of name once: 1 when added, 0 when there (or out of memory,
 * with *failed set). */
int cl_name_set_add(cl_name_set *s, const char *name, int *failed) {
  if (cl_str_index_find(&s->index, name, NULL))
    return 0;
  char *copy = cl_strdup(name);
  if (!copy ||
      cl_reserve((void **)&s->names, &s->capacity, s->count + 1,
                 sizeof *s->names) ||
      cl_str_index_add(&s->index, copy, s->count)) {
    free(copy);
    *failed = 1;
    return 0;
  }
  s->names[s->count++] = copy;
  return 1;
}

int cl_name_set_has(const cl_name_set *s, const char *name) {
  return cl_str_index_find(&s->index, name, NULL);
}

/* Empty the set, keeping it usable. */
void cl_name_set_clear(cl_name_set *s) {
  for (size_t i = 0; i < s->count; ++i)
    free(s->names[i]);
  s->count = 0;
  int fold = s->index.fold_case;
  cl_str_index_free(&s->index);
  cl_str_index_init(&s->index, fold);
}

void cl_name_set_free(cl_name_set *s) {
  cl_name_set_clear(s);
  free(s->names);
  cl_str_index_free(&s->index);
  memset(s, 0, sizeof *s);
}

/* PEP 503 normalized comparison of a distribution name with a dist-info
 * folder's name part ("onnxruntime_gpu" in onnxruntime_gpu-1.26.0...). */
int cl_program_same_name(const char *a, size_t a_len, const char *b,
                         size_t b_len) {
  size_t i = 0, j = 0;
  while (i < a_len && j < b_len) {
    int sa = a[i] == '-' || a[i] == '_' || a[i] == '.';
    int sb = b[j] == '-' || b[j] == '_' || b[j] == '.';
    if (sa != sb || (!sa && cl_ascii_lower(a[i]) != cl_ascii_lower(b[j])))
      return 0;
    ++i;
    ++j;
  }
  return i == a_len && j == b_len;
}

int cl_program_is_distinfo(const char *name, const void *arg) {
  (void)arg;
  return cl_ends_with(name, ".dist-info");
}

/* A whole small text file, malloc'ed; NULL when it cannot be read. */
char *cl_program_read_text(const char *path, size_t *len) {
  char *text = NULL;
  /* unreadable: nothing to read */
  if (cl_read_file_head_quiet(path, CL_PROGRAM_TEXT_MAX, &text, len) !=
      CUDALOAD_OK)
    text = NULL;
  return text;
}

/* A problem of the program's own, a record (taken over: left empty) about
 * file. */
void cl_program_add_warning(cl_program_scan *ps, cl_problem *problem,
                            const char *file) {
  cl_plan_warning w;
  if (cl_reserve((void **)&ps->warnings, &ps->warning_capacity,
                 ps->warning_count + 1, sizeof *ps->warnings)) {
    cl_problem_free(problem);
    ps->failed = 1;
    return;
  }
  if (cl_plan_warning_make(&w, problem, file,
                           ps->naming == CL_NAMING_WINDOWS
                               ? CL_SHELL_CMD_AND_POWERSHELL
                               : CL_SHELL_POSIX)) {
    ps->failed = 1;
    return;
  }
  ps->warnings[ps->warning_count++] = w;
}

/* A fact the program's files tell. */
void cl_program_fact(cl_problem *p, int which, const char *value) {
  cl_problem_fact(NULL, p, which, CUDALOAD_FROM_PROGRAM, value);
}

/* --- requirements -------------------------------------------------------- */

/* The main library of a family ("cublas" for cublasLt), NULL for none. */
/* The ABI major of main built for CUDA major cuda, 0 when none says. */
int cl_program_abi_major_for_cuda(const cl_catalog_entry *main, int cuda) {
  for (int m = main->min_major; m <= main->max_major; ++m)
    if (cl_catalog_cuda_major(main, m) == cuda)
      return m;
  return 0;
}

cl_program_info *cl_program_current(cl_program_scan *ps) {
  return ps->program < ps->program_count ? &ps->programs[ps->program] : NULL;
}

/* The current program's CUDA major, from the strongest source seen. */
void cl_program_note_cuda(cl_program_scan *ps, int cuda, int from,
                          const char *why) {
  cl_program_info *p = cl_program_current(ps);
  if (!p || cuda <= 0 || ps->feature || (p->cuda_from && p->cuda_from <= from))
    return;
  p->cuda_major = cuda;
  p->cuda_from = from;
  snprintf(p->cuda_reason, sizeof p->cuda_reason, "%.511s", why);
}

static cl_program_derived *derived_of(cl_program_scan *ps,
                                      const cl_catalog_entry *main, int major,
                                      int optional) {
  char key[72];
  snprintf(key, sizeof key, "%s=%d%s", main->name, major, optional ? "?" : "");
  size_t at;
  if (cl_str_index_find(&ps->req_index, key, &at))
    return &ps->reqs[at];
  /* The index holds keys inside the array, which may move: it is rebuilt
   * when the array grows. */
  size_t before = ps->capacity;
  if (cl_reserve((void **)&ps->reqs, &ps->capacity, ps->count + 1,
                 sizeof *ps->reqs)) {
    ps->failed = 1;
    return NULL;
  }
  cl_program_derived *d = &ps->reqs[ps->count];
  memset(d, 0, sizeof *d);
  snprintf(d->key, sizeof d->key, "%s", key);
  snprintf(d->text, sizeof d->text, "%s=%d", main->name, major);
  d->main = main;
  d->major = major;
  d->optional = optional;
  d->program = ps->program;
  d->origin = (cl_buf)CL_BUF_INIT;
  ps->count++;
  if (ps->capacity != before) {
    cl_str_index_free(&ps->req_index);
    cl_str_index_init(&ps->req_index, 0);
    for (size_t i = 0; i < ps->count && !ps->failed; ++i)
      if (cl_str_index_add(&ps->req_index, ps->reqs[i].key, i))
        ps->failed = 1;
  } else if (cl_str_index_add(&ps->req_index, d->key, ps->count - 1)) {
    ps->failed = 1;
  }
  return d;
}

static void add_reason(cl_program_derived *d, const char *why) {
  if (d->origin.data && strstr(d->origin.data, why))
    return;
  if (d->reasons < CL_PROGRAM_REASONS_SHOWN)
    cl_buf_printf(&d->origin, "%s%s", d->origin.len ? "; " : "", why);
  d->reasons++;
}

/* Require family's main library of `major`, saying why: a hard need, or
 * one "if used" while a file of a feature is read (ps->feature). */
cl_program_derived *cl_program_require(cl_program_scan *ps,
                                       const cl_catalog_entry *entry, int major,
                                       const char *why, const char *opener) {
  if (cl_catalog_is_driver(entry))
    return NULL; /* the driver is the probe's concern, never planned */
  const cl_catalog_entry *main = cl_catalog_family_main(entry->family);
  if (!main || major < main->min_major || major > main->max_major)
    return NULL;
  cl_program_derived *d = derived_of(ps, main, major, ps->feature != NULL);
  if (!d)
    return NULL;
  if (ps->feature) {
    char text[4608];
    snprintf(text, sizeof text, CL_WORDS_ONLY_IF_IS_USED, why, ps->feature);
    add_reason(d, text);
  } else {
    add_reason(d, why);
  }
  if (opener && !d->opener && !(d->opener = cl_strdup(opener)))
    ps->failed = 1;
  return d;
}

void cl_program_raise_least(cl_program_derived *d, const long *least,
                            int parts) {
  if (parts &&
      (!d->at_least_parts ||
       cl_version_compare(least, parts, d->at_least, d->at_least_parts) > 0)) {
    memcpy(d->at_least, least, sizeof d->at_least);
    d->at_least_parts = parts;
  }
}
