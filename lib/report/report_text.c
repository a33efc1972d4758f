/* SPDX-License-Identifier: MIT */
/*
 * report_text.c - a report for people, built in memory, with values from
 * outside shown escaped (report_text.h).
 */
#include "report/report_text.h"

#include "common/text_escape.h"

#include <stdarg.h>
#include <stdlib.h>

void cl_text_put(cl_text_report *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cl_buf_vprintf(&r->text, fmt, ap);
  va_end(ap);
}

static const char *shown(cl_text_report *r, const char *s, int keep_newlines) {
  if (!s || !cl_text_needs_escape(s, keep_newlines))
    return s;
  char *copy = cl_text_escaped(s, keep_newlines);
  if (!copy || cl_reserve((void **)&r->copies, &r->copy_capacity,
                          r->copy_count + 1, sizeof *r->copies)) {
    free(copy);
    r->failed = 1;
    return "";
  }
  r->copies[r->copy_count++] = copy;
  return copy;
}

const char *cl_text_shown(cl_text_report *r, const char *s) {
  return shown(r, s, 0);
}

const char *cl_text_shown_lines(cl_text_report *r, const char *s) {
  return shown(r, s, 1);
}

char *cl_text_finish(cl_text_report *r) {
  for (size_t i = 0; i < r->copy_count; ++i)
    free(r->copies[i]);
  free(r->copies);
  r->copies = NULL;
  r->copy_count = r->copy_capacity = 0;
  if (r->failed) {
    cl_buf_free(&r->text);
    return NULL;
  }
  return cl_buf_take(&r->text);
}
