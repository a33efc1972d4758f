/* SPDX-License-Identifier: MIT */
/*
 * error_message_report.h - the error messages a user pasted, in the
 * doctor's report: the "error_messages" field, the text section and the
 * problems they show on this machine (error_message_report.c).
 */
#ifndef CUDALOAD_ERROR_MESSAGE_REPORT_H
#define CUDALOAD_ERROR_MESSAGE_REPORT_H

#include "core/context.h"
#include "report/report_text.h"
#include "report/report_writer.h"
#include "scan/driver_version.h"

/* What the doctor gathered that the messages are judged against. */
typedef struct cl_error_message_facts {
  cudaload_ctx *ctx;       /* its messages, requirements, plan; the loader
                              model opens files through its file cache */
  const char *driver_path; /* NULL: no driver found */
  const cl_driver_cuda *driver_files; /* its version from its files */
  const cudaload_probe *probe;        /* NULL: the probe did not run */
} cl_error_message_facts;

/* The "error_messages" array, key included (docs/doctor.md). */
void cl_report_error_messages(cl_report_writer *w, const cudaload_ctx *ctx);

/* The text section's lines, labels padded to label_width. */
void cl_text_error_messages(cl_text_report *r, int label_width,
                            const cudaload_ctx *ctx);

#endif
