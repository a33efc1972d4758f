/* report_writer.c - JSON (own writer) and YAML (libyaml) back ends. */
#include "report_writer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 32

struct report_writer {
  report_format format;
  FILE *out;
  int failed;
  /* JSON state: per nesting level, whether a value was written yet. */
  int depth;
  int has_items[MAX_DEPTH];
  int after_key;
  /* YAML state */
  yaml_emitter_t emitter;
};

static int write_to_file(void *data, unsigned char *buffer, size_t size) {
  return fwrite(buffer, 1, size, (FILE *)data) == size;
}

static void yaml_emit(report_writer *w, yaml_event_t *event, int ok) {
  if (!ok || !yaml_emitter_emit(&w->emitter, event))
    w->failed = 1;
}

report_writer *report_writer_new(report_format format, FILE *out) {
  if (format != FORMAT_JSON && format != FORMAT_YAML)
    return NULL;
  report_writer *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->format = format;
  w->out = out;
  if (format == FORMAT_YAML) {
    yaml_event_t e;
    if (!yaml_emitter_initialize(&w->emitter)) {
      free(w);
      return NULL;
    }
    yaml_emitter_set_output(&w->emitter, write_to_file, out);
    yaml_emitter_set_unicode(&w->emitter, 1);
    yaml_emitter_set_width(&w->emitter, -1);
    yaml_emit(w, &e,
              yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING));
    yaml_emit(w, &e,
              yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 0));
  }
  return w;
}

int report_writer_finish(report_writer *w) {
  int failed;
  if (w->format == FORMAT_YAML) {
    yaml_event_t e;
    yaml_emit(w, &e, yaml_document_end_event_initialize(&e, 1));
    yaml_emit(w, &e, yaml_stream_end_event_initialize(&e));
    yaml_emitter_delete(&w->emitter);
  } else {
    fputc('\n', w->out);
  }
  failed = w->failed || fflush(w->out) != 0 || ferror(w->out);
  free(w);
  return failed ? -1 : 0;
}

/* --- JSON ------------------------------------------------------------- */

static void json_indent(report_writer *w) {
  fputc('\n', w->out);
  for (int i = 0; i < w->depth; ++i)
    fputs("  ", w->out);
}

/* Separator and indentation before a value or key at the current level. */
static void json_before_value(report_writer *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->depth > 0) {
    if (w->has_items[w->depth])
      fputc(',', w->out);
    w->has_items[w->depth] = 1;
    json_indent(w);
  }
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    switch (*p) {
    case '"':
      fputs("\\\"", out);
      break;
    case '\\':
      fputs("\\\\", out);
      break;
    case '\n':
      fputs("\\n", out);
      break;
    case '\r':
      fputs("\\r", out);
      break;
    case '\t':
      fputs("\\t", out);
      break;
    default:
      if (*p < 0x20)
        fprintf(out, "\\u%04x", *p);
      else
        fputc(*p, out);
    }
  }
  fputc('"', out);
}

static void json_open(report_writer *w, char bracket) {
  json_before_value(w);
  fputc(bracket, w->out);
  if (w->depth + 1 < MAX_DEPTH)
    w->depth++;
  else
    w->failed = 1;
  w->has_items[w->depth] = 0;
}

static void json_close(report_writer *w, char bracket) {
  int had_items = w->has_items[w->depth];
  if (w->depth > 0)
    w->depth--;
  if (had_items)
    json_indent(w);
  fputc(bracket, w->out);
}

/* --- YAML ------------------------------------------------------------- */

static void yaml_scalar(report_writer *w, const char *value, int plain_ok) {
  yaml_event_t e;
  yaml_emit(w, &e,
            yaml_scalar_event_initialize(
                &e, NULL, NULL, (yaml_char_t *)value, (int)strlen(value),
                plain_ok, !plain_ok,
                plain_ok ? YAML_PLAIN_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
}

/* --- the interface ----------------------------------------------------- */

void report_begin_object(report_writer *w) {
  if (w->format == FORMAT_JSON) {
    json_open(w, '{');
  } else {
    yaml_event_t e;
    yaml_emit(w, &e,
              yaml_mapping_start_event_initialize(&e, NULL, NULL, 1,
                                                  YAML_BLOCK_MAPPING_STYLE));
  }
}

void report_end_object(report_writer *w) {
  if (w->format == FORMAT_JSON) {
    json_close(w, '}');
  } else {
    yaml_event_t e;
    yaml_emit(w, &e, yaml_mapping_end_event_initialize(&e));
  }
}

void report_begin_array(report_writer *w) {
  if (w->format == FORMAT_JSON) {
    json_open(w, '[');
  } else {
    yaml_event_t e;
    yaml_emit(w, &e,
              yaml_sequence_start_event_initialize(&e, NULL, NULL, 1,
                                                   YAML_BLOCK_SEQUENCE_STYLE));
  }
}

void report_end_array(report_writer *w) {
  if (w->format == FORMAT_JSON) {
    json_close(w, ']');
  } else {
    yaml_event_t e;
    yaml_emit(w, &e, yaml_sequence_end_event_initialize(&e));
  }
}

void report_key(report_writer *w, const char *key) {
  if (w->format == FORMAT_JSON) {
    json_before_value(w);
    json_string(w->out, key);
    fputs(": ", w->out);
    w->after_key = 1;
  } else {
    yaml_scalar(w, key, 1);
  }
}

void report_string(report_writer *w, const char *value) {
  if (!value) {
    report_null(w);
    return;
  }
  if (w->format == FORMAT_JSON) {
    json_before_value(w);
    json_string(w->out, value);
  } else {
    /* Not plain-implicit: "9.1" or "null" must stay strings. */
    yaml_scalar(w, value, 0);
  }
}

void report_int(report_writer *w, long long value) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", value);
  if (w->format == FORMAT_JSON) {
    json_before_value(w);
    fputs(buf, w->out);
  } else {
    yaml_scalar(w, buf, 1);
  }
}

void report_null(report_writer *w) {
  if (w->format == FORMAT_JSON) {
    json_before_value(w);
    fputs("null", w->out);
  } else {
    yaml_scalar(w, "null", 1);
  }
}

void report_bool(report_writer *w, int value) {
  if (w->format == FORMAT_JSON) {
    json_before_value(w);
    fputs(value ? "true" : "false", w->out);
  } else {
    yaml_scalar(w, value ? "true" : "false", 1);
  }
}
