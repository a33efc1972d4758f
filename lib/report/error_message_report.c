/* SPDX-License-Identifier: MIT */
/*
 * error_message_report.c - the error messages a user pasted
 * (cudaload_read_error_message, load/error_message.c) in the doctor's
 * report: what each says, and the problem it shows on this machine with
 * its fix. The message alone tells what was missing; the inventory, the
 * plan, the driver and the probe tell why: a library the plan finds here
 * was missed because the program's loader does not search its folder, a
 * library found nowhere is an unsatisfied requirement (whose problem the
 * doctor lists already), a driver that is here is not visible to the
 * program.
 */
#include "report/error_message_report.h"
#include "common/strutil.h"
#include "load/error_meaning.h"
#include "load/error_message.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_report_error_messages(cl_report_writer *w, const cudaload_ctx *ctx) {
  cl_report_key(w, "error_messages");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    cl_report_begin_object(w);
    cl_report_key(w, "kind");
    cl_report_string(w, cudaload_error_message_kind_name(m->kind));
    cl_report_key(w, "quote");
    cl_report_string(w, m->quote);
    cl_report_key(w, "file");
    cl_report_string(w, m->file);
    cl_report_key(w, "needed_by");
    cl_report_string(w, m->needed_by);
    cl_report_key(w, "requirement");
    cl_report_string(w, m->requirement);
    cl_report_key(w, "diagnosis");
    cl_report_string(w, m->diagnosis);
    /* Each fact the message states, with the words it was read from: the
     * report says which facts the message gave (these) and which the
     * machine did (the rest of the report). */
    cl_report_key(w, "facts");
    cl_report_begin_object(w);
    for (int f = 1; f <= CL_ERROR_FACT_LAST; ++f) {
      if (!m->facts[f])
        continue;
      cl_report_key(w, cudaload_error_message_fact_name(f));
      cl_report_begin_object(w);
      cl_report_key(w, "value");
      cl_report_string(w, m->facts[f]);
      cl_report_key(w, "source");
      cl_report_string(w, m->sources[f]);
      cl_report_end_object(w);
    }
    cl_report_end_object(w);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

static void line(cl_text_report *r, int width, const char *label,
                 const char *value) {
  if (value)
    cl_text_put(r, "  %-*s%s\n", width, label, cl_text_shown(r, value));
}

void cl_text_error_messages(cl_text_report *r, int label_width,
                            const cudaload_ctx *ctx) {
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    if (i)
      cl_text_put(r, "\n");
    line(r, label_width, "read", m->quote);
    line(r, label_width, "kind", cudaload_error_message_kind_name(m->kind));
    line(r, label_width, "file", m->file);
    line(r, label_width, "needed by", m->needed_by);
    line(r, label_width, "means", m->diagnosis);
    if (m->requirement) {
      char requires[160];
      snprintf(requires, sizeof requires, "%.120s (see Plan)", m->requirement);
      line(r, label_width, "requires", requires);
    }
  }
}
