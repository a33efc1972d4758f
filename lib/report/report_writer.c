/* SPDX-License-Identifier: MIT */
/* report_writer.c - the JSON back end and the interface over it and the
 * YAML one (report_yaml.c), into a memory buffer. */
#include "cudaload.h"
#include "report/report_writer.h"
#include "report/report_yaml.h"
#include "common/buf.h"
#include "common/strutil.h"
#include "common/text_escape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

struct cl_report_writer {
  cl_report_format format;
  cl_buf out; /* the document; out.failed: a value was lost */
  /* JSON: per nesting level, whether a value was written yet. */
  int depth;
  int has_items[MAX_DEPTH];
  int after_key;
  cl_yaml_emitter yaml;
};

static void put(cl_report_writer *w, const char *s, size_t n) {
  cl_buf_append(&w->out, s, n);
}

static void puts_(cl_report_writer *w, const char *s) {
  put(w, s, strlen(s));
}

int cl_report_format_supported(cl_report_format format) {
  /* Both in every build: YAML is written here, not by libyaml. */
  return format == CL_REPORT_JSON || format == CL_REPORT_YAML;
}

int cudaload_format_supported(int format) {
  switch (format) {
  case CUDALOAD_FORMAT_TEXT:
  case CUDALOAD_FORMAT_DOT:
    return 1; /* written by hand, in every build */
  case CUDALOAD_FORMAT_JSON:
  case CUDALOAD_FORMAT_YAML:
    return cl_report_format_supported((cl_report_format)format);
  default:
    return 0;
  }
}

cl_report_writer *cl_report_writer_new(cl_report_format format) {
  if (!cl_report_format_supported(format))
    return NULL;
  cl_report_writer *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->format = format;
  if (format == CL_REPORT_YAML)
    cl_yaml_begin(&w->yaml, &w->out);
  return w;
}

char *cl_report_writer_finish(cl_report_writer *w, size_t *len) {
  if (w->format == CL_REPORT_YAML)
    cl_yaml_end(&w->yaml);
  if (w->format == CL_REPORT_JSON)
    puts_(w, "\n");
  size_t length = w->out.len;
  char *text = cl_buf_take(&w->out);
  if (text && len)
    *len = length;
  free(w);
  return text;
}

/* --- JSON ------------------------------------------------------------- */

static void json_indent(cl_report_writer *w) {
  puts_(w, "\n");
  for (int i = 0; i < w->depth; ++i)
    puts_(w, "  ");
}

/* Separator and indentation before a value or key at the current level. */
static void json_before_value(cl_report_writer *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->depth > 0) {
    if (w->has_items[w->depth])
      puts_(w, ",");
    w->has_items[w->depth] = 1;
    json_indent(w);
  }
}

/* Printable ASCII that JSON takes as it is: most of every report, copied
 * a run at a time rather than a byte at a time. */
static int json_plain(unsigned char c) {
  return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

static void json_string(cl_report_writer *w, const char *s) {
  puts_(w, "\"");
  const unsigned char *end = (const unsigned char *)s + strlen(s);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    char esc[8];
    if (json_plain(*p)) {
      const unsigned char *run = p;
      while (p + 1 < end && json_plain(p[1]))
        ++p;
      put(w, (const char *)run, (size_t)(p - run) + 1);
      continue;
    }
    switch (*p) {
    case '"':
      puts_(w, "\\\"");
      break;
    case '\\':
      puts_(w, "\\\\");
      break;
    case '\n':
      puts_(w, "\\n");
      break;
    case '\r':
      puts_(w, "\\r");
      break;
    case '\t':
      puts_(w, "\\t");
      break;
    default: {
      /* Valid UTF-8 as it is; controls (also DEL and C1, which JSON allows
       * raw but a terminal showing the document would obey) as \u00XX; a
       * byte that is not UTF-8 as the lone surrogate \udcXX
       * (text_escape.h), so the document stays valid and lossless. */
      unsigned code;
      size_t n = cl_utf8_sequence(p, (size_t)(end - p), &code);
      if (n == 0) {
        snprintf(esc, sizeof esc, "\\udc%02x", *p);
        puts_(w, esc);
      } else if (code < 0x20 || code == 0x7F ||
                 (code >= 0x80 && code <= 0x9F)) {
        snprintf(esc, sizeof esc, "\\u%04x", code);
        puts_(w, esc);
        p += n - 1;
      } else {
        put(w, (const char *)p, n);
        p += n - 1;
      }
    }
    }
  }
  puts_(w, "\"");
}

static void json_open(cl_report_writer *w, const char *bracket) {
  json_before_value(w);
  puts_(w, bracket);
  if (w->depth + 1 < MAX_DEPTH)
    w->depth++;
  else
    w->out.failed = 1;
  w->has_items[w->depth] = 0;
}

static void json_close(cl_report_writer *w, const char *bracket) {
  int had_items = w->has_items[w->depth];
  if (w->depth > 0)
    w->depth--;
  if (had_items)
    json_indent(w);
  puts_(w, bracket);
}

/* --- the interface ----------------------------------------------------- */

void cl_report_begin_object(cl_report_writer *w) {
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_open(&w->yaml, 1);
    return;
  }
  json_open(w, "{");
}

void cl_report_end_object(cl_report_writer *w) {
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_close(&w->yaml);
    return;
  }
  json_close(w, "}");
}

void cl_report_begin_array(cl_report_writer *w) {
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_open(&w->yaml, 0);
    return;
  }
  json_open(w, "[");
}

void cl_report_end_array(cl_report_writer *w) {
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_close(&w->yaml);
    return;
  }
  json_close(w, "]");
}

void cl_report_key(cl_report_writer *w, const char *key) {
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_scalar(&w->yaml, key, 1);
    return;
  }
  json_before_value(w);
  json_string(w, key);
  puts_(w, ": ");
  w->after_key = 1;
}

/* A scalar that YAML may write plain (numbers, booleans, null). */
static void plain_scalar(cl_report_writer *w, const char *text) {
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_scalar(&w->yaml, text, 1);
    return;
  }
  json_before_value(w);
  puts_(w, text);
}

void cl_report_string(cl_report_writer *w, const char *value) {
  if (!value) {
    cl_report_null(w);
    return;
  }
  if (w->format == CL_REPORT_YAML) {
    cl_yaml_scalar(&w->yaml, value, 0);
    return;
  }
  json_before_value(w);
  json_string(w, value);
}

void cl_report_int(cl_report_writer *w, long long value) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", value);
  plain_scalar(w, buf);
}

void cl_report_double(cl_report_writer *w, double value) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.3f", value);
  plain_scalar(w, buf);
}

void cl_report_null(cl_report_writer *w) {
  plain_scalar(w, "null");
}

void cl_report_bool(cl_report_writer *w, int value) {
  plain_scalar(w, value ? "true" : "false");
}
