/* SPDX-License-Identifier: MIT */
/*
 * manifest.c - cudaload_load_manifest(): a cudaload.yaml that an
 * application or installer ships beside itself.
 *
 *   schema_version: 1          # optional; only 1 is understood
 *   requirements: [cudnn=8, cublas>=12]   # or "cudnn=8,cublas>=12"
 *   roots: [lib/cuda, /opt/cudnn8]        # relative: to the manifest's folder
 *   policy:
 *     sublibraries: minimal    # or all (CUDALOAD_PRELOAD_ALL_SUBLIBS)
 *     isolation: true          # keep every library RTLD_LOCAL
 *     global: false            # CUDALOAD_PRELOAD_GLOBAL
 *   probe: true                # the doctor runs the GPU probe
 *
 * The file is read whole (bounded), parsed with libyaml's event API under
 * limits that keep the cost linear in its size (nesting, no anchors or
 * aliases, few directives), and checked completely into a scratch area
 * before anything is committed to the ctx: a rejected manifest changes
 * nothing. Every error names the file and the line and column of the
 * offending node.
 */
#include "core/context.h"
#include "common/build_facts.h"
#include "load/spec.h"
#include "common/error.h"
#include "load/manifest.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CUDALOAD_WITH_YAML
#include <yaml.h>
#endif

const cl_manifest_state *cl_manifest_of(const cudaload_ctx *ctx) {
  return ctx ? ctx->manifest : NULL;
}

unsigned cl_manifest_preload_flags(const cudaload_ctx *ctx) {
  const cl_manifest_state *m = cl_manifest_of(ctx);
  return m ? m->preload_flags : 0;
}

int cl_manifest_probe(const cudaload_ctx *ctx) {
  const cl_manifest_state *m = cl_manifest_of(ctx);
  return m ? m->probe : 0;
}

unsigned cudaload_manifest_preload_flags(const cudaload_ctx *ctx) {
  return cl_manifest_preload_flags(ctx);
}

int cudaload_manifest_probe(const cudaload_ctx *ctx) {
  return cl_manifest_probe(ctx);
}

#if !CUDALOAD_WITH_YAML

int cudaload_load_manifest(cudaload_ctx *ctx, const char *path) {
  cl_clear_error();
  if (!ctx || !path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_load_manifest: NULL %s", ctx ? "path" : "ctx");
  return cl_fail(CUDALOAD_E_UNSUPPORTED,
                 "%s: this libcudaload has no YAML reader, so it cannot "
                 "read YAML manifests: %s; pass the requirements with "
                 "cudaload_require() instead",
                 path, cl_build_no_yaml_reason());
}

int cl_manifest_load_text(cudaload_ctx *ctx, const char *path, const char *text,
                          size_t len) {
  (void)text;
  (void)len;
  return cudaload_load_manifest(ctx, path);
}

#else

/* A manifest is a few lines; anything larger is not one, and reading it
 * whole must stay cheap. */
#define CL_MANIFEST_MAX (1024u * 1024u)

/* What the YAML of a manifest may do. A manifest nests two levels deep and
 * needs no anchors and at most one directive. Without these limits libyaml's
 * costs grow with the square of the input (nesting, anchors and %TAG
 * directives are each checked against every earlier one), and a file under
 * the size cap kept a process busy for seconds to minutes (bench/README.md,
 * "Manifest parsing"). With them, parsing is linear in the size of the
 * file. */
#define CL_MANIFEST_MAX_DEPTH 64
#define CL_MANIFEST_MAX_DIRECTIVES 16
/* How much of a value or name a message quotes. */
#define CL_MANIFEST_QUOTE 60

/* Everything a manifest asks for, built aside and committed at the end. */
typedef struct manifest {
  const char *path;
  const char *text;
  size_t len;
  char *folder;         /* absolute folder of the manifest file */
  cl_requirement *reqs; /* parsed with cudaload_require's parser */
  size_t req_count, req_capacity;
  char **roots;
  size_t root_count, root_capacity;
  unsigned preload_flags;
  int isolation, global, probe;
  yaml_mark_t global_mark;
  /* The event stream of the second pass (see parse_manifest). */
  yaml_parser_t parser;
  yaml_event_t event; /* the current event, when have_event */
  int have_event;
} manifest;

static int manifest_fail(const manifest *m, int status, yaml_mark_t mark,
                         const char *fmt, ...) CL_PRINTF(4, 5);
static int manifest_fail(const manifest *m, int status, yaml_mark_t mark,
                         const char *fmt, ...) {
  char detail[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return cl_fail(status, "%s: line %zu, column %zu: %s", m->path, mark.line + 1,
                 mark.column + 1, detail);
}

/* s (len bytes) quoted for a message: at most CL_MANIFEST_QUOTE bytes, and
 * "..." when it was cut. */
typedef struct quote {
  char text[CL_MANIFEST_QUOTE + 4];
} quote;

static const char *quoted(quote *q, const void *s, size_t len) {
  size_t n = cl_quote_length(s, len, CL_MANIFEST_QUOTE);
  memcpy(q->text, s, n);
  memcpy(q->text + n, n < len ? "..." : "", n < len ? 4 : 1);
  return q->text;
}

static const char *scalar(const yaml_event_t *ev) {
  return (const char *)ev->data.scalar.value;
}

static int is_scalar(const yaml_event_t *ev) {
  return ev->type == YAML_SCALAR_EVENT;
}

static int is_plain(const yaml_event_t *ev) {
  return is_scalar(ev) && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* What a node is, for "expected X, found Y" messages; ev is its first
 * event. */
static void describe_node(const yaml_event_t *ev, char *buf, size_t len) {
  quote q;
  switch (ev->type) {
  case YAML_MAPPING_START_EVENT:
    snprintf(buf, len, "a mapping");
    break;
  case YAML_SEQUENCE_START_EVENT:
    snprintf(buf, len, "a sequence");
    break;
  case YAML_SCALAR_EVENT:
    if (ev->data.scalar.length == 0 && is_plain(ev))
      snprintf(buf, len, "nothing");
    else
      snprintf(buf, len, "\"%s\"",
               quoted(&q, scalar(ev), ev->data.scalar.length));
    break;
  default:
    snprintf(buf, len, "an empty node");
  }
}

static int wrong_type(const manifest *m, const char *key,
                      const yaml_event_t *ev, const char *expected) {
  char found[96];
  describe_node(ev, found, sizeof found);
  return manifest_fail(m, CUDALOAD_E_MALFORMED, ev->start_mark,
                       "%s: expected %s, found %s", key, expected, found);
}

/* YAML 1.2 core-schema null: an empty value, ~ or null (plain only). */
static int is_null(const yaml_event_t *ev) {
  if (!is_plain(ev))
    return 0;
  const char *s = scalar(ev);
  return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
         !strcmp(s, "NULL");
}

/* A string scalar: any style, but no NUL inside (C strings end there). */
static int string_value(const manifest *m, const char *key,
                        const yaml_event_t *ev, const char **out) {
  if (!is_scalar(ev) || is_null(ev))
    return wrong_type(m, key, ev, "a string");
  if (strlen(scalar(ev)) != ev->data.scalar.length)
    return manifest_fail(m, CUDALOAD_E_MALFORMED, ev->start_mark,
                         "%s: the value contains a NUL character", key);
  *out = scalar(ev);
  return CUDALOAD_OK;
}

/* true/false as YAML 1.2 spells them; a quoted "true" is a string. */
static int bool_value(const manifest *m, const char *key,
                      const yaml_event_t *ev, int *out) {
  static const char *const yes[] = {"true", "True", "TRUE"};
  static const char *const no[] = {"false", "False", "FALSE"};
  if (is_plain(ev))
    for (int i = 0; i < 3; ++i) {
      if (!strcmp(scalar(ev), yes[i]))
        return *out = 1, CUDALOAD_OK;
      if (!strcmp(scalar(ev), no[i]))
        return *out = 0, CUDALOAD_OK;
    }
  return wrong_type(m, key, ev, "true or false");
}

static int digit_value(char c, int base) {
  int v = c >= '0' && c <= '9'   ? c - '0'
          : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                 : 99;
  return v < base ? v : -1;
}

/* An integer as YAML 1.2's core schema reads a plain scalar: [-+]?[0-9]+
 * (leading zeros allowed: 00001 is 1), 0o[0-7]+ or 0x[0-9a-fA-F]+. 1.0 is
 * a float there and "1" (quoted) a string. Returns 0 when ev is not such an
 * integer; *is_one tells whether it is the integer 1. */
static int core_schema_int(const yaml_event_t *ev, int *is_one) {
  if (!is_plain(ev))
    return 0;
  const char *s = scalar(ev);
  int base = 10, negative = 0;
  if (s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    base = s[1] == 'o' ? 8 : 16;
    s += 2;
  } else if (*s == '-' || *s == '+') {
    negative = *s++ == '-';
  }
  if (!*s)
    return 0;
  /* Only "is it 1" matters, so no value is kept that could overflow. */
  int nonzero_seen = 0, one = 0;
  for (; *s; ++s) {
    int d = digit_value(*s, base);
    if (d < 0)
      return 0;
    if (nonzero_seen)
      one = 0;
    else if (d != 0)
      nonzero_seen = 1, one = d == 1;
  }
  *is_one = one && !negative;
  return 1;
}

static int add_requirement(manifest *m, const yaml_event_t *ev) {
  const char *spec = NULL;
  int rc = string_value(m, "requirements", ev, &spec);
  if (rc)
    return rc;
  /* Parsed here and added to the ctx once, in commit(): adding each entry
   * to a scratch ctx checked it against every earlier one. */
  cl_requirement *parsed;
  size_t n;
  rc = cl_spec_parse(spec, &parsed, &n);
  if (rc) {
    /* Copy: manifest_fail writes the same per-thread buffer. */
    char why[2048];
    snprintf(why, sizeof why, "%s", cudaload_last_error());
    return manifest_fail(m, rc, ev->start_mark, "requirements: %s", why);
  }
  if (cl_reserve((void **)&m->reqs, &m->req_capacity, m->req_count + n,
                 sizeof *m->reqs)) {
    for (size_t i = 0; i < n; ++i)
      free(parsed[i].text);
    free(parsed);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  }
  memcpy(m->reqs + m->req_count, parsed, n * sizeof *parsed);
  m->req_count += n;
  free(parsed);
  return CUDALOAD_OK;
}

/* The syntax error the parser stopped at, with its line and column. */
static int syntax_error(const manifest *m, const yaml_parser_t *parser);

/* The next event of the second pass into m->event, releasing the current
 * one. */
static int next_event(manifest *m) {
  if (m->have_event)
    yaml_event_delete(&m->event);
  m->have_event = 0;
  if (!yaml_parser_parse(&m->parser, &m->event))
    return syntax_error(m, &m->parser);
  m->have_event = 1;
  return CUDALOAD_OK;
}

/* Each parse_* below starts with m->event at the first event of the value
 * and returns with it at the value's last event (the scalar, or the end of
 * the sequence or mapping). */

static int parse_requirements(manifest *m) {
  if (is_null(&m->event))
    return CUDALOAD_OK;
  if (is_scalar(&m->event))
    return add_requirement(m, &m->event); /* "cudnn=8,cudnn=9" */
  if (m->event.type != YAML_SEQUENCE_START_EVENT)
    return wrong_type(m, "requirements", &m->event,
                      "a sequence of requirement strings or one string");
  for (;;) {
    int rc = next_event(m);
    if (rc || m->event.type == YAML_SEQUENCE_END_EVENT)
      return rc;
    rc = add_requirement(m, &m->event);
    if (rc)
      return rc;
  }
}

/* A root as the ctx keeps it: absolute, relative ones under the manifest's
 * folder (so a manifest shipped beside an application works wherever the
 * application is unpacked and whatever the current folder is). */
static char *resolve_root(const manifest *m, const char *dir) {
  if (cl_os_path_is_absolute(dir))
    return cl_strdup(dir);
  while (dir[0] == '.' && (dir[1] == '/' || dir[1] == '\\'))
    dir += 2;
  char *joined = cl_path_join(m->folder, *dir ? dir : ".");
  if (joined && CL_DIR_SEP != '/')
    for (char *p = joined; *p; ++p)
      if (*p == '/')
        *p = CL_DIR_SEP;
  return joined;
}

static int parse_roots(manifest *m) {
  if (is_null(&m->event))
    return CUDALOAD_OK;
  if (m->event.type != YAML_SEQUENCE_START_EVENT)
    return wrong_type(m, "roots", &m->event, "a sequence of folder names");
  for (;;) {
    int rc = next_event(m);
    if (rc || m->event.type == YAML_SEQUENCE_END_EVENT)
      return rc;
    const char *dir = NULL;
    rc = string_value(m, "roots", &m->event, &dir);
    if (rc)
      return rc;
    if (!*dir)
      return manifest_fail(m, CUDALOAD_E_MALFORMED, m->event.start_mark,
                           "roots: an empty folder name");
    char *resolved = resolve_root(m, dir);
    if (!resolved || cl_reserve((void **)&m->roots, &m->root_capacity,
                                m->root_count + 1, sizeof(char *))) {
      free(resolved);
      return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
    }
    m->roots[m->root_count++] = resolved;
  }
}

/* The keys a mapping of the manifest may have, and the line each was first
 * seen on (0: not yet). */
typedef struct key_set {
  const char *where;    /* "" at the top, "policy." in policy */
  const char *expected; /* the names, for messages */
  const char *const *names;
  size_t count;
  size_t first_line[8];
} key_set;

/* m->event is the next event of a mapping: its end (*index = -1), or a key,
 * which must be one of keys' names and appear only once (*index is which).
 */
static int next_key(manifest *m, key_set *keys, int *index) {
  const yaml_event_t *ev = &m->event;
  *index = -1;
  if (ev->type == YAML_MAPPING_END_EVENT)
    return CUDALOAD_OK;
  if (!is_scalar(ev)) {
    /* "policy." names the keys in policy; "policy: " starts the message. */
    size_t section = strlen(keys->where);
    char found[96];
    describe_node(ev, found, sizeof found);
    return manifest_fail(m, CUDALOAD_E_MALFORMED, ev->start_mark,
                         "%.*s%sa key must be a name (%s), found %s",
                         (int)(section ? section - 1 : 0), keys->where,
                         section ? ": " : "", keys->expected, found);
  }
  for (size_t i = 0; i < keys->count; ++i)
    if (ev->data.scalar.length == strlen(keys->names[i]) &&
        !memcmp(scalar(ev), keys->names[i], ev->data.scalar.length)) {
      if (keys->first_line[i])
        return manifest_fail(m, CUDALOAD_E_MALFORMED, ev->start_mark,
                             "key \"%s%s\" appears twice (first on line %zu)",
                             keys->where, keys->names[i], keys->first_line[i]);
      keys->first_line[i] = ev->start_mark.line + 1;
      *index = (int)i;
      return CUDALOAD_OK;
    }
  quote q;
  return manifest_fail(m, CUDALOAD_E_MALFORMED, ev->start_mark,
                       "unknown key \"%s%s\" (expected %s)", keys->where,
                       quoted(&q, scalar(ev), ev->data.scalar.length),
                       keys->expected);
}

static int parse_policy(manifest *m) {
  static const char *const names[] = {"sublibraries", "isolation", "global"};
  key_set keys = {
      "policy.", "sublibraries, isolation or global", names, 3, {0}};
  if (is_null(&m->event))
    return CUDALOAD_OK;
  if (m->event.type != YAML_MAPPING_START_EVENT)
    return wrong_type(m, "policy", &m->event,
                      "a mapping (sublibraries, isolation, global)");
  for (;;) {
    int key, rc = next_event(m);
    if (!rc)
      rc = next_key(m, &keys, &key);
    if (rc)
      return rc;
    if (key < 0)
      break;
    yaml_mark_t key_mark = m->event.start_mark;
    rc = next_event(m);
    if (rc)
      return rc;
    if (key == 0) {
      const char *v = NULL;
      rc = string_value(m, "policy.sublibraries", &m->event, &v);
      if (!rc && !strcmp(v, "all"))
        m->preload_flags |= CUDALOAD_PRELOAD_ALL_SUBLIBS;
      else if (!rc && strcmp(v, "minimal") != 0)
        rc = wrong_type(m, "policy.sublibraries", &m->event, "minimal or all");
    } else if (key == 1) {
      rc = bool_value(m, "policy.isolation", &m->event, &m->isolation);
    } else {
      rc = bool_value(m, "policy.global", &m->event, &m->global);
      m->global_mark = key_mark;
    }
    if (rc)
      return rc;
  }
  if (m->isolation && m->global)
    return manifest_fail(m, CUDALOAD_E_MALFORMED, m->global_mark,
                         "policy: isolation: true and global: true contradict "
                         "each other (isolation keeps every library out of "
                         "the global symbol scope)");
  if (m->global)
    m->preload_flags |= CUDALOAD_PRELOAD_GLOBAL;
  return CUDALOAD_OK;
}

static int parse_schema_version(manifest *m) {
  int is_one = 0;
  if (!core_schema_int(&m->event, &is_one))
    return wrong_type(m, "schema_version", &m->event, "a whole number");
  if (!is_one) {
    quote q;
    return manifest_fail(
        m, CUDALOAD_E_UNSUPPORTED, m->event.start_mark,
        "schema_version %s is not supported (this libcudaload %s reads "
        "schema_version 1)",
        quoted(&q, scalar(&m->event), m->event.data.scalar.length),
        cudaload_version_string());
  }
  return CUDALOAD_OK;
}

/* m->event is the document's root node. */
static int parse_top(manifest *m) {
  static const char *const names[] = {"requirements", "roots", "policy",
                                      "probe", "schema_version"};
  key_set keys = {"",
                  "requirements, roots, policy, probe or schema_version",
                  names,
                  5,
                  {0}};
  if (m->event.type != YAML_MAPPING_START_EVENT) {
    char found[96];
    describe_node(&m->event, found, sizeof found);
    return manifest_fail(m, CUDALOAD_E_MALFORMED, m->event.start_mark,
                         "the manifest must be a mapping of requirements, "
                         "roots, policy and probe; found %s",
                         found);
  }
  for (;;) {
    int key, rc = next_event(m);
    if (!rc)
      rc = next_key(m, &keys, &key);
    if (rc || key < 0)
      return rc;
    rc = next_event(m);
    if (rc)
      return rc;
    switch (key) {
    case 0:
      rc = parse_requirements(m);
      break;
    case 1:
      rc = parse_roots(m);
      break;
    case 2:
      rc = parse_policy(m);
      break;
    case 3:
      rc = bool_value(m, "probe", &m->event, &m->probe);
      break;
    default:
      rc = parse_schema_version(m);
    }
    if (rc)
      return rc;
  }
}

/* Line and column of a byte offset, for errors libyaml reports by offset
 * (bad UTF-8), counted as libyaml counts its marks: a column is a
 * character, not a byte, and CR LF, LF and a lone CR each end a line. */
static yaml_mark_t mark_of_offset(const manifest *m, size_t offset) {
  yaml_mark_t mark = {offset, 0, 0};
  for (size_t i = 0; i < offset && i < m->len; ++i) {
    unsigned char c = (unsigned char)m->text[i];
    if (c == '\n' ||
        (c == '\r' && (i + 1 >= m->len || m->text[i + 1] != '\n'))) {
      mark.line++;
      mark.column = 0;
    } else if ((c & 0xC0) != 0x80 && c != '\r') {
      mark.column++;
    }
  }
  return mark;
}

static int syntax_error(const manifest *m, const yaml_parser_t *parser) {
  if (parser->error == YAML_MEMORY_ERROR)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  if (parser->error == YAML_READER_ERROR)
    return manifest_fail(m, CUDALOAD_E_MALFORMED,
                         mark_of_offset(m, parser->problem_offset),
                         "YAML syntax error: %s",
                         parser->problem ? parser->problem : "unreadable");
  char context[256] = "";
  if (parser->context)
    snprintf(context, sizeof context, " (%s, line %zu, column %zu)",
             parser->context, parser->context_mark.line + 1,
             parser->context_mark.column + 1);
  return manifest_fail(
      m, CUDALOAD_E_MALFORMED, parser->problem_mark, "YAML syntax error: %s%s",
      parser->problem ? parser->problem : "malformed", context);
}

/* One code unit of the text in the encoding libyaml will read it in (it
 * looks for a byte order mark: UTF-16LE, UTF-16BE, else UTF-8). */
typedef struct text_units {
  const unsigned char *p;
  size_t unit; /* 1 (UTF-8) or 2 */
  int big_endian;
} text_units;

static unsigned unit_at(const text_units *t, size_t i) {
  const unsigned char *u = t->p + i * t->unit;
  if (t->unit == 1)
    return u[0];
  return t->big_endian ? (unsigned)u[0] << 8 | u[1]
                       : (unsigned)u[1] << 8 | u[0];
}

/* libyaml keeps every %TAG directive of a document in a list it searches
 * for each new one, before the document's first event: that cost cannot be
 * stopped from the event stream, so directives are counted beforehand.
 * A directive is a '%' at the start of a line (libyaml's line breaks: LF,
 * CR, NEL, LS, PS); counting every such '%' counts the directives and
 * perhaps a line of a multi-line string, which only errs on the safe side.
 */
static int check_directives(const manifest *m) {
  const unsigned char *p = (const unsigned char *)m->text;
  text_units t = {p, 1, 0};
  size_t start = 0;
  if (m->len >= 2 &&
      ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF))) {
    t.unit = 2;
    t.big_endian = p[0] == 0xFE;
    start = 1;
  } else if (m->len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
    start = 3;
  }
  size_t units = m->len / t.unit, count = 0, line = 0;
  int line_start = 1;
  for (size_t i = start; i < units; ++i) {
    unsigned c = unit_at(&t, i);
    if (line_start && c == '%' && ++count > CL_MANIFEST_MAX_DIRECTIVES) {
      yaml_mark_t mark = {i, line, 0};
      return manifest_fail(m, CUDALOAD_E_MALFORMED, mark,
                           "more than %d directives (lines starting with "
                           "%%), the limit for a manifest, which needs at "
                           "most one (%%YAML)",
                           CL_MANIFEST_MAX_DIRECTIVES);
    }
    /* In UTF-8, 0x85 and 0xA8/0xA9 end the sequences of NEL, LS and PS
     * (and occur inside other characters too: more line starts, not
     * fewer). */
    int is_break =
        c == '\n' || c == '\r' || c == 0x85 ||
        (t.unit == 1 ? c == 0xA8 || c == 0xA9 : c == 0x2028 || c == 0x2029);
    if (is_break && !(c == '\r' && i + 1 < units && unit_at(&t, i + 1) == '\n'))
      ++line;
    line_start = is_break;
  }
  return CUDALOAD_OK;
}

/* The first pass: the whole stream through libyaml's event parser, with
 * the limits on nesting and anchors. Syntax errors anywhere in the file are
 * found here, before the second pass judges the first key. */
static int check_stream(const manifest *m) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  yaml_parser_set_input_string(&parser, (const unsigned char *)m->text, m->len);
  int rc = CUDALOAD_OK, done = 0;
  size_t depth = 0;
  while (!rc && !done) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) {
      rc = syntax_error(m, &parser);
      break;
    }
    const yaml_char_t *anchor = NULL;
    switch (ev.type) {
    case YAML_SCALAR_EVENT:
      anchor = ev.data.scalar.anchor;
      break;
    case YAML_SEQUENCE_START_EVENT:
      anchor = ev.data.sequence_start.anchor;
      ++depth;
      break;
    case YAML_MAPPING_START_EVENT:
      anchor = ev.data.mapping_start.anchor;
      ++depth;
      break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      --depth;
      break;
    case YAML_STREAM_END_EVENT:
      done = 1;
      break;
    default:
      break;
    }
    /* Anchors and aliases: a manifest has no use for them (a few short
     * keys), and refusing them outright removes libyaml's quadratic anchor
     * bookkeeping and any billion-laughs expansion at once. */
    quote q;
    if (ev.type == YAML_ALIAS_EVENT)
      rc = manifest_fail(m, CUDALOAD_E_MALFORMED, ev.start_mark,
                         "alias \"*%s\": anchors and aliases are not allowed "
                         "in a manifest",
                         quoted(&q, ev.data.alias.anchor,
                                strlen((const char *)ev.data.alias.anchor)));
    else if (anchor)
      rc = manifest_fail(m, CUDALOAD_E_MALFORMED, ev.start_mark,
                         "anchor \"&%s\": anchors and aliases are not allowed "
                         "in a manifest",
                         quoted(&q, anchor, strlen((const char *)anchor)));
    else if (depth > CL_MANIFEST_MAX_DEPTH)
      rc = manifest_fail(m, CUDALOAD_E_MALFORMED, ev.start_mark,
                         "nesting deeper than %d levels (sequences and "
                         "mappings inside each other), the limit for a "
                         "manifest, which needs 2",
                         CL_MANIFEST_MAX_DEPTH);
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  return rc;
}

/* The second pass: the manifest's meaning, from the same events. */
static int parse_events(manifest *m) {
  int rc = next_event(m); /* the stream's start */
  if (!rc)
    rc = next_event(m);
  /* An empty file is an empty manifest: it asks for nothing. */
  if (rc || m->event.type == YAML_STREAM_END_EVENT)
    return rc;
  rc = next_event(m); /* the document's start: its root node */
  if (!rc)
    rc = parse_top(m);
  if (!rc)
    rc = next_event(m); /* the document's end */
  if (!rc)
    rc = next_event(m);
  /* One manifest per file: a second document would be ignored silently. */
  if (!rc && m->event.type == YAML_DOCUMENT_START_EVENT) {
    rc = next_event(m);
    if (!rc)
      rc = manifest_fail(m, CUDALOAD_E_MALFORMED, m->event.start_mark,
                         "a second YAML document; a manifest is one "
                         "document");
  }
  return rc;
}

/* Parse m->text into m (nothing committed yet). Two passes over libyaml's
 * events, never its document loader: the first checks the syntax and the
 * limits, the second reads the meaning. The limits must hold before
 * anything else is done, and a syntax error anywhere is reported before a
 * wrong value on an earlier line, as a whole-document parser would. */
static int parse_manifest(manifest *m) {
  int rc = check_directives(m);
  if (!rc)
    rc = check_stream(m);
  if (rc)
    return rc;
  if (!yaml_parser_initialize(&m->parser))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  yaml_parser_set_input_string(&m->parser, (const unsigned char *)m->text,
                               m->len);
  rc = parse_events(m);
  if (m->have_event)
    yaml_event_delete(&m->event);
  m->have_event = 0;
  yaml_parser_delete(&m->parser);
  return rc;
}

static void manifest_state_free(cl_manifest_state *state) {
  if (state)
    free(state->path);
  free(state);
}

/* Move what m holds into ctx. Only allocations can fail, and they all
 * happen before the first change. */
static int commit(cudaload_ctx *ctx, manifest *m) {
  int added = CUDALOAD_OK;
  char *path_copy = cl_strdup(m->path);
  cl_manifest_state *state = calloc(1, sizeof *state);
  if (!path_copy || !state || cl_ctx_reserve_roots(ctx, m->root_count) ||
      /* The same requirement twice is one requirement (as
       * cudaload_require); this is the last step that can fail. */
      (added = cl_requirements_add(ctx, m->reqs, m->req_count))) {
    free(path_copy);
    free(state);
    if (added == CUDALOAD_E_BAD_SPEC) {
      /* The message names the two pins; copied before it is rewritten. */
      char *why = cl_strdup(cudaload_last_error());
      int rc = cl_fail(added, "%s: %s", m->path, why ? why : "two cuda pins");
      free(why);
      return rc;
    }
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  }
  m->req_count = 0;
  size_t added_roots = m->root_count;
  cl_ctx_take_roots(ctx, m->roots, m->root_count);
  m->root_count = 0;
  state->path = path_copy;
  state->preload_flags = m->preload_flags;
  state->isolation = m->isolation;
  state->probe = m->probe;
  manifest_state_free(ctx->manifest);
  ctx->manifest = state;
  ctx->manifest_free = manifest_state_free;
  /* New requirements or roots make the plan stale, and new roots the
   * inventory: the next plan or doctor must search them. */
  cl_ctx_clear_plan(ctx);
  if (added_roots)
    cl_inventory_invalidate(ctx);
  return CUDALOAD_OK;
}

/* The manifest's folder, absolute, so relative roots do not depend on the
 * current folder at the time of the scan. */
static int manifest_folder(manifest *m) {
  char *dir = cl_path_dirname(m->path);
  char *real = cl_os_real_path(dir ? dir : ".");
  free(dir);
  if (!real)
    return cl_fail(CUDALOAD_E_IO, "%s: cannot resolve the manifest's folder",
                   m->path);
  m->folder = real;
  return CUDALOAD_OK;
}

static int too_large(const char *path, unsigned long long size) {
  return cl_fail(CUDALOAD_E_MALFORMED,
                 "%s: larger than %u KiB (%llu bytes), the limit for a "
                 "manifest; a manifest is a short YAML file",
                 path, CL_MANIFEST_MAX / 1024u, size);
}

static int load_text(cudaload_ctx *ctx, manifest *m);

/* The whole file into *text, or a refusal. The file must be what its size
 * says: a file in /proc reports 0 bytes and one in /sys a page whatever
 * they hold, and taking such a size on trust read /proc/self/status as an
 * empty manifest, which was accepted. So one byte more than the size is
 * asked for, and any difference refuses the file. */
static int read_manifest(manifest *m, char **text) {
  cl_file *f = NULL;
  uint64_t size = 0;
  int rc = cl_os_file_open(m->path, &f, &size);
  switch (rc) {
  case CUDALOAD_OK:
    break;
  case CUDALOAD_E_NOT_FOUND:
    return cl_fail(rc, "%s: no such manifest file", m->path);
  case CUDALOAD_E_NOT_A_FILE:
    return cl_fail(rc,
                   "%s: not a regular file (a folder, FIFO or device); a "
                   "manifest must be a YAML file",
                   m->path);
  case CUDALOAD_E_NO_MEMORY:
    return cl_fail(rc, "%s: out of memory", m->path);
  default: {
    char why[2048];
    snprintf(why, sizeof why, "%s", cudaload_last_error());
    return cl_fail(rc, "%s: cannot read the manifest: %s", m->path, why);
  }
  }
  if (size > CL_MANIFEST_MAX) {
    cl_os_file_close(f);
    return too_large(m->path, (unsigned long long)size);
  }
  size_t got = 0;
  char *buf = malloc((size_t)size + 2);
  rc = buf ? cl_os_file_read_upto(f, 0, buf, (size_t)size + 1, &got)
           : CUDALOAD_E_NO_MEMORY;
  cl_os_file_close(f);
  if (rc) {
    free(buf);
    if (rc == CUDALOAD_E_NO_MEMORY)
      return cl_fail(rc, "%s: out of memory", m->path);
    char why[2048];
    snprintf(why, sizeof why, "%s", cudaload_last_error());
    return cl_fail(rc, "%s: cannot read the manifest: %s", m->path, why);
  }
  if (got != size) {
    free(buf);
    return cl_fail(CUDALOAD_E_NOT_A_FILE,
                   "%s: not a regular file: its size says %llu bytes, "
                   "reading it gives %s%zu (a file in /proc or /sys, or one "
                   "being written); a manifest must be a YAML file",
                   m->path, (unsigned long long)size,
                   got > size ? "more than " : "", got > size ? got - 1 : got);
  }
  buf[got] = '\0';
  *text = buf;
  m->text = buf;
  m->len = got;
  return CUDALOAD_OK;
}

int cudaload_load_manifest(cudaload_ctx *ctx, const char *path) {
  cl_clear_error();
  if (!ctx || !path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_load_manifest: NULL %s", ctx ? "path" : "ctx");
  if (!*path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_load_manifest: empty file name");
  manifest m;
  memset(&m, 0, sizeof m);
  m.path = path;
  char *text = NULL;
  int rc = read_manifest(&m, &text);
  if (!rc)
    rc = load_text(ctx, &m);
  free(text);
  return rc;
}

/* From memory (the fuzzer's entry): path names the file in messages and
 * gives the folder relative roots are resolved against. */
int cl_manifest_load_text(cudaload_ctx *ctx, const char *path, const char *text,
                          size_t len) {
  cl_clear_error();
  if (!ctx || !path || !*path || (!text && len))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cl_manifest_load_text: NULL or empty argument");
  if (len > CL_MANIFEST_MAX)
    return too_large(path, (unsigned long long)len);
  manifest m;
  memset(&m, 0, sizeof m);
  m.path = path;
  m.text = text ? text : "";
  m.len = len;
  return load_text(ctx, &m);
}

/* Everything after the read: m->path, m->text and m->len are set. */
static int load_text(cudaload_ctx *ctx, manifest *m) {
  int rc = manifest_folder(m);
  if (!rc)
    rc = parse_manifest(m);
  if (!rc)
    rc = commit(ctx, m);
  for (size_t i = 0; i < m->root_count; ++i)
    free(m->roots[i]);
  free(m->roots);
  free(m->folder);
  for (size_t i = 0; i < m->req_count; ++i)
    free(m->reqs[i].text);
  free(m->reqs);
  if (!rc)
    cl_clear_error();
  return rc;
}

#endif /* CUDALOAD_WITH_YAML */
