/* SPDX-License-Identifier: MIT */
/*
 * report_text.h - a report for people, built in memory: printf-style
 * appends into a cl_buf, and values from outside (paths, names read from
 * files, version strings) shown escaped (common/text_escape.h) so that no
 * control byte or byte that is not UTF-8 reaches a terminal as it is. The
 * text of explain, scan and inspect is written this way.
 */
#ifndef CUDALOAD_REPORT_TEXT_H
#define CUDALOAD_REPORT_TEXT_H

#include "common/buf.h"

typedef struct cl_text_report {
  cl_buf text;
  /* The escaped copies handed out by cl_text_shown, alive until the
   * report is finished, so that several can sit in one cl_text_put. */
  char **copies;
  size_t copy_count, copy_capacity;
  int failed; /* an escaped copy was lost to out-of-memory */
} cl_text_report;

#define CL_TEXT_REPORT_INIT                                                    \
  { CL_BUF_INIT, NULL, 0, 0, 0 }

void cl_text_put(cl_text_report *r, const char *fmt, ...) CL_PRINTF(2, 3);

/* s as a person should see it: s itself when it needs no escaping, else an
 * escaped copy that lives until cl_text_finish. NULL stays NULL. */
const char *cl_text_shown(cl_text_report *r, const char *s);
/* As cl_text_shown, keeping s's own line breaks (a message of several
 * lines). */
const char *cl_text_shown_lines(cl_text_report *r, const char *s);

/* The malloc'ed text, or NULL when anything was lost to out-of-memory;
 * frees everything else either way. */
char *cl_text_finish(cl_text_report *r);

#endif
