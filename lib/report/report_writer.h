/* SPDX-License-Identifier: MIT */
/*
 * report_writer.h - one way to describe a structured report, written out as
 * JSON (a small writer of our own; the tests parse it with a real JSON
 * parser) or YAML (report_yaml.c, in every build; the tests hold it to
 * libyaml's emitter and parser). Reports are built once, against this
 * interface, into a memory buffer.
 */
#ifndef CUDALOAD_REPORT_WRITER_H
#define CUDALOAD_REPORT_WRITER_H

#include <stddef.h>

typedef enum cl_report_format {
  CL_REPORT_TEXT = 0, /* not handled here: text reports are written by hand */
  CL_REPORT_JSON = 1,
  CL_REPORT_YAML = 2
} cl_report_format;

typedef struct cl_report_writer cl_report_writer;

/* NULL when the format is not one of these two or memory runs out. */
cl_report_writer *cl_report_writer_new(cl_report_format format);
/* Finish the document: the malloc'ed text (NUL-terminated, *len without the
 * NUL), or NULL when writing failed; frees the writer either way. */
char *cl_report_writer_finish(cl_report_writer *w, size_t *len);
/* 1 for JSON and YAML (every build writes both). */
int cl_report_format_supported(cl_report_format format);

void cl_report_begin_object(cl_report_writer *w);
void cl_report_end_object(cl_report_writer *w);
void cl_report_begin_array(cl_report_writer *w);
void cl_report_end_array(cl_report_writer *w);
/* Inside an object: the key of the next value. */
void cl_report_key(cl_report_writer *w, const char *key);
void cl_report_string(cl_report_writer *w, const char *value); /* NULL: null */
void cl_report_int(cl_report_writer *w, long long value);
void cl_report_double(cl_report_writer *w, double value);
void cl_report_null(cl_report_writer *w);
void cl_report_bool(cl_report_writer *w, int value);

#endif
