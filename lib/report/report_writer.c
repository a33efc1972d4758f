/* SPDX-License-Identifier: MIT */
/* report_writer.c - JSON (own writer) and YAML (libyaml) back ends, into a
 * memory buffer. */
#include "cudaload.h"
#include "report/report_writer.h"
#include "common/buf.h"
#include "common/strutil.h"
#include "common/text_escape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if CUDALOAD_WITH_YAML
#include <yaml.h>
#endif

#define MAX_DEPTH 32

struct cl_report_writer {
  cl_report_format format;
  cl_buf out; /* the document; out.failed: a value was lost */
  /* JSON: per nesting level, whether a value was written yet. */
  int depth;
  int has_items[MAX_DEPTH];
  int after_key;
#if CUDALOAD_WITH_YAML
  yaml_emitter_t emitter;
#endif
};

static void put(cl_report_writer *w, const char *s, size_t n) {
  cl_buf_append(&w->out, s, n);
}

static void puts_(cl_report_writer *w, const char *s) {
  put(w, s, strlen(s));
}

int cl_report_format_supported(cl_report_format format) {
  if (format == CL_REPORT_JSON)
    return 1;
#if CUDALOAD_WITH_YAML
  if (format == CL_REPORT_YAML)
    return 1;
#endif
  return 0;
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

#if CUDALOAD_WITH_YAML
static int yaml_to_buffer(void *data, unsigned char *buffer, size_t size) {
  cl_report_writer *w = data;
  put(w, (const char *)buffer, size);
  return !w->out.failed;
}

static void yaml_emit(cl_report_writer *w, yaml_event_t *event, int ok) {
  if (!ok || !yaml_emitter_emit(&w->emitter, event))
    w->out.failed = 1;
}

static void yaml_scalar(cl_report_writer *w, const char *value, int plain_ok) {
  yaml_event_t e;
  /* libyaml takes UTF-8 only: a byte that is not UTF-8 goes in as the lone
   * surrogate U+DC00+byte, which the emitter writes as "\uDCXX" in a
   * double-quoted scalar (text_escape.h); controls it escapes itself. */
  char *text = cl_text_surrogate_escaped(value);
  if (!text) {
    w->out.failed = 1;
    return;
  }
  /* Not plain-implicit for strings: "9.1" or "null" must stay strings. */
  yaml_emit(w, &e,
            yaml_scalar_event_initialize(&e, NULL, NULL, (yaml_char_t *)text,
                                         (int)strlen(text), plain_ok, !plain_ok,
                                         plain_ok ? YAML_PLAIN_SCALAR_STYLE
                                                  : YAML_ANY_SCALAR_STYLE));
  free(text);
}
#endif

cl_report_writer *cl_report_writer_new(cl_report_format format) {
  if (!cl_report_format_supported(format))
    return NULL;
  cl_report_writer *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->format = format;
#if CUDALOAD_WITH_YAML
  if (format == CL_REPORT_YAML) {
    yaml_event_t e;
    if (!yaml_emitter_initialize(&w->emitter)) {
      free(w);
      return NULL;
    }
    yaml_emitter_set_output(&w->emitter, yaml_to_buffer, w);
    yaml_emitter_set_unicode(&w->emitter, 1);
    yaml_emitter_set_width(&w->emitter, -1);
    yaml_emit(w, &e,
              yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING));
    yaml_emit(w, &e,
              yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 0));
  }
#endif
  return w;
}

char *cl_report_writer_finish(cl_report_writer *w, size_t *len) {
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_event_t e;
    yaml_emit(w, &e, yaml_document_end_event_initialize(&e, 1));
    yaml_emit(w, &e, yaml_stream_end_event_initialize(&e));
    if (!yaml_emitter_flush(&w->emitter))
      w->out.failed = 1;
    yaml_emitter_delete(&w->emitter);
  }
#endif
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
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_event_t e;
    yaml_emit(w, &e,
              yaml_mapping_start_event_initialize(&e, NULL, NULL, 1,
                                                  YAML_BLOCK_MAPPING_STYLE));
    return;
  }
#endif
  json_open(w, "{");
}

void cl_report_end_object(cl_report_writer *w) {
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_event_t e;
    yaml_emit(w, &e, yaml_mapping_end_event_initialize(&e));
    return;
  }
#endif
  json_close(w, "}");
}

void cl_report_begin_array(cl_report_writer *w) {
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_event_t e;
    yaml_emit(w, &e,
              yaml_sequence_start_event_initialize(&e, NULL, NULL, 1,
                                                   YAML_BLOCK_SEQUENCE_STYLE));
    return;
  }
#endif
  json_open(w, "[");
}

void cl_report_end_array(cl_report_writer *w) {
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_event_t e;
    yaml_emit(w, &e, yaml_sequence_end_event_initialize(&e));
    return;
  }
#endif
  json_close(w, "]");
}

void cl_report_key(cl_report_writer *w, const char *key) {
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_scalar(w, key, 1);
    return;
  }
#endif
  json_before_value(w);
  json_string(w, key);
  puts_(w, ": ");
  w->after_key = 1;
}

/* A scalar that YAML may write plain (numbers, booleans, null). */
static void plain_scalar(cl_report_writer *w, const char *text) {
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_scalar(w, text, 1);
    return;
  }
#endif
  json_before_value(w);
  puts_(w, text);
}

void cl_report_string(cl_report_writer *w, const char *value) {
  if (!value) {
    cl_report_null(w);
    return;
  }
#if CUDALOAD_WITH_YAML
  if (w->format == CL_REPORT_YAML) {
    yaml_scalar(w, value, 0);
    return;
  }
#endif
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
