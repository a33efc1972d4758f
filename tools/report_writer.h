/*
 * report_writer.h - one way to describe a structured report, written out as
 * JSON (a small writer of our own; the tests parse it with a real JSON
 * parser) or YAML (through libyaml's emitter). Commands build their reports
 * once, against this interface.
 */
#ifndef CUDALOAD_REPORT_WRITER_H
#define CUDALOAD_REPORT_WRITER_H

#include <stdio.h>

typedef enum report_format {
  FORMAT_TEXT,
  FORMAT_JSON,
  FORMAT_YAML
} report_format;

typedef struct report_writer report_writer;

/* NULL on an unsupported format or out of memory. Output goes to out. */
report_writer *report_writer_new(report_format format, FILE *out);
/* Finish the document; returns 0, or -1 if writing failed. */
int report_writer_finish(report_writer *w);

void report_begin_object(report_writer *w);
void report_end_object(report_writer *w);
void report_begin_array(report_writer *w);
void report_end_array(report_writer *w);
/* Inside an object: the key of the next value. */
void report_key(report_writer *w, const char *key);
void report_string(report_writer *w, const char *value); /* NULL -> null */
void report_int(report_writer *w, long long value);
void report_null(report_writer *w);
void report_bool(report_writer *w, int value);

#endif
