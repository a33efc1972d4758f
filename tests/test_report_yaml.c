/* SPDX-License-Identifier: MIT */
/*
 * test_report_yaml.c - the report writer's own YAML (report_yaml.c). Every
 * build: a few documents checked against the text they must be, and no raw
 * control character in any. Builds
 * with libyaml: documents of hostile strings (quotes, colons, leading
 * dashes and spaces, '#', line breaks, tabs, controls, DEL, C1, the BOM,
 * U+FFFE, bytes that are not UTF-8, "", "yes", "null", "1.0", long
 * strings) and random ones are written by it and by libyaml's emitter, set
 * up as the report writer used to set it up, and must be the same bytes;
 * libyaml's parser must read back each value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/text_escape.h"
#include "report/report_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if CUDALOAD_WITH_YAML
#include <yaml.h>
#endif

/* --- documents as calls, so that two writers can be driven alike ------- */

typedef struct sink {
  void (*open)(void *self, int mapping);
  void (*close)(void *self, int mapping);
  void (*scalar)(void *self, const char *text, int plain_ok);
  void *self;
} sink;

static void report_open(void *self, int mapping) {
  if (mapping)
    cl_report_begin_object(self);
  else
    cl_report_begin_array(self);
}

static void report_close(void *self, int mapping) {
  if (mapping)
    cl_report_end_object(self);
  else
    cl_report_end_array(self);
}

/* plain_ok 2: a key; 1: a number, boolean or null; 0: a string. */
static void report_scalar(void *self, const char *text, int plain_ok) {
  if (plain_ok == 2)
    cl_report_key(self, text);
  else if (plain_ok == 1 && strcmp(text, "null") == 0)
    cl_report_null(self);
  else if (plain_ok == 1 && strcmp(text, "true") == 0)
    cl_report_bool(self, 1);
  else if (plain_ok == 1)
    cl_report_int(self, strtoll(text, NULL, 10));
  else
    cl_report_string(self, text);
}

typedef void (*document_fn)(const sink *out, unsigned seed);

static char *ours(document_fn document, unsigned seed) {
  cl_report_writer *w = cl_report_writer_new(CL_REPORT_YAML);
  assert_non_null(w);
  sink out = {report_open, report_close, report_scalar, w};
  document(&out, seed);
  char *text = cl_report_writer_finish(w, NULL);
  assert_non_null(text);
  return text;
}

/* --- the strings -------------------------------------------------------- */

static const char *const hostile[] = {
    "",
    "plain",
    "it's",
    "'quoted'",
    "\"double\"",
    "back\\slash",
    "key: value",
    "ends with colon:",
    ":starts",
    "- dash",
    "-dash",
    "---",
    "--- marker",
    "...",
    "? question",
    "?",
    "# comment",
    "a #hash",
    "a#hash",
    " leading space",
    "trailing space ",
    "  ",
    "two\nlines",
    "\nleading break",
    "trailing break\n",
    "break\n\nbreaks",
    "space \nbreak",
    "break\n space",
    "tab\there",
    "\t",
    "cr\rhere",
    "bell\a esc\x1b nul-free \x01\x02\x1f",
    "del\x7f",
    "c1 \xc2\x80 nel \xc2\x85 csi \xc2\x9b",
    "nbsp \xc2\xa0 here",
    /* Two literals, so that the escape stops before "b"; in parentheses,
     * so that clang sees the joining is meant. */
    ("\xef\xbb\xbf"
     "bom first"),
    "bom \xef\xbb\xbf inside",
    "u+fffe \xef\xbf\xbe u+ffff \xef\xbf\xbf u+fffd \xef\xbf\xbd",
    "line sep \xe2\x80\xa8 para sep \xe2\x80\xa9",
    "ls\xe2\x80\xa8only",
    "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87",
    "emoji \xf0\x9f\x98\x80",
    "not utf-8 \xe9 \xff \xc3",
    "\xed\xa0\x80 encoded surrogate",
    "\xc0\xaf overlong",
    "yes",
    "no",
    "null",
    "~",
    "true",
    "1.0",
    "0x1",
    "00001",
    "-1",
    "1e3",
    "[flow]",
    "{flow}",
    "a, b",
    "&anchor",
    "*alias",
    "!tag",
    "|literal",
    ">folded",
    "%directive",
    "@at",
    "`tick",
    "libcudnn.so.9",
    "/usr/lib/x86_64-linux-gnu",
    "C:\\Program Files\\NVIDIA",
};

/* A string of n bytes drawn from pieces that each change a choice. */
static const char *const pieces[] = {
    "a",
    "Z",
    "0",
    " ",
    "  ",
    ":",
    ": ",
    "#",
    " #",
    "-",
    "- ",
    "'",
    "\"",
    "\\",
    "\n",
    "\r",
    "\t",
    "\x01",
    "\x7f",
    "\xc2\x85",
    "\xc2\xa0",
    "\xe2\x80\xa8",
    "\xef\xbb\xbf",
    "\xef\xbf\xbe",
    "\xf0\x9f\x98\x80",
    "\xe9",
    "\xff",
    "?",
    ",",
    "[",
    "{",
    "&",
    "*",
    "!",
    "|",
    ">",
    "%",
    "@",
    "`",
    "...",
    "---",
    "\xc3\xa9",
    "\xe4\xb8\xad",
};

static unsigned next_random(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (*state >> 8) & 0xFFFFFF;
}

static void random_string(char *out, size_t cap, unsigned *state) {
  size_t count = next_random(state) % 8, used = 0;
  if (next_random(state) % 10 == 0)
    count = 40 + next_random(state) % 40; /* long: past a simple key's 128 */
  out[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    const char *piece =
        pieces[next_random(state) % (sizeof pieces / sizeof *pieces)];
    size_t n = strlen(piece);
    if (used + n >= cap)
      break;
    memcpy(out + used, piece, n + 1);
    used += n;
  }
}

/* --- documents ---------------------------------------------------------- */

/* Every hostile string as a key, as a value and as a sequence item, and
 * a very long one. */
static void hostile_document(const sink *out, unsigned seed) {
  (void)seed;
  size_t count = sizeof hostile / sizeof *hostile;
  out->open(out->self, 1);
  out->scalar(out->self, "schema_version", 2);
  out->scalar(out->self, "2", 1);
  out->scalar(out->self, "values", 2);
  out->open(out->self, 1);
  for (size_t i = 0; i < count; ++i) {
    char key[16];
    snprintf(key, sizeof key, "v%lu", (unsigned long)i);
    out->scalar(out->self, key, 2);
    out->scalar(out->self, hostile[i], 0);
  }
  out->scalar(out->self, "long", 2);
  char *long_text = malloc(5001);
  assert_non_null(long_text);
  for (size_t i = 0; i < 5000; ++i)
    long_text[i] = "ab c:d#e'f\"-"[i % 12];
  long_text[5000] = '\0';
  out->scalar(out->self, long_text, 0);
  free(long_text);
  out->close(out->self, 1);
  out->scalar(out->self, "keys", 2);
  out->open(out->self, 1);
  for (size_t i = 0; i < count; ++i) {
    out->scalar(out->self, hostile[i], 2);
    out->scalar(out->self, "1", 1);
  }
  out->close(out->self, 1);
  out->scalar(out->self, "items", 2);
  out->open(out->self, 0);
  for (size_t i = 0; i < count; ++i)
    out->scalar(out->self, hostile[i], 0);
  out->close(out->self, 0);
  out->close(out->self, 1);
}

/* Random nesting: mappings and sequences in each other, empty ones,
 * random keys and values. */
static void random_node(const sink *out, unsigned *state, int depth) {
  unsigned kind = next_random(state) % (depth > 4 ? 3 : 6);
  char text[512];
  if (kind < 3) {
    random_string(text, sizeof text, state);
    if (kind == 0)
      out->scalar(out->self, next_random(state) % 2 ? "null" : "-12", 1);
    else
      out->scalar(out->self, text, 0);
    return;
  }
  int mapping = kind == 3 || kind == 5;
  size_t count = next_random(state) % 4;
  out->open(out->self, mapping);
  for (size_t i = 0; i < count; ++i) {
    if (mapping) {
      random_string(text, sizeof text, state);
      out->scalar(out->self, text, 2);
    }
    random_node(out, state, depth + 1);
  }
  out->close(out->self, mapping);
}

static void random_document(const sink *out, unsigned seed) {
  unsigned state = seed;
  char key[512];
  int mapping = next_random(&state) % 3 != 0;
  size_t count = next_random(&state) % 6;
  out->open(out->self, mapping);
  for (size_t i = 0; i < count; ++i) {
    if (mapping) {
      random_string(key, sizeof key, &state);
      out->scalar(out->self, key, 2);
    }
    random_node(out, &state, 1);
  }
  out->close(out->self, mapping);
}

/* --- every build: the text itself --------------------------------------- */

static void nested_document(const sink *out, unsigned seed) {
  (void)seed;
  out->open(out->self, 1);
  out->scalar(out->self, "name", 2);
  out->scalar(out->self, "it's", 0);
  out->scalar(out->self, "count", 2);
  out->scalar(out->self, "-12", 1);
  out->scalar(out->self, "none", 2);
  out->scalar(out->self, "null", 1);
  out->scalar(out->self, "empty", 2);
  out->open(out->self, 0);
  out->close(out->self, 0);
  out->scalar(out->self, "nothing", 2);
  out->open(out->self, 1);
  out->close(out->self, 1);
  out->scalar(out->self, "list", 2);
  out->open(out->self, 0);
  out->open(out->self, 1);
  out->scalar(out->self, "path", 2);
  out->scalar(out->self, "a\nb", 0);
  out->scalar(out->self, "bad", 2);
  out->scalar(out->self, "\xe9\t\x1b\x7f\xc2\x85\xef\xbb\xbf", 0);
  out->close(out->self, 1);
  out->open(out->self, 0);
  out->scalar(out->self, "", 0);
  out->scalar(out->self, "trailing ", 0);
  out->close(out->self, 0);
  out->close(out->self, 0);
  out->scalar(out->self, "- key", 2);
  out->scalar(out->self, "true", 1);
  out->close(out->self, 1);
}

static void writes_the_expected_text(void **state) {
  (void)state;
  assert_true(cl_report_format_supported(CL_REPORT_YAML));
  char *text = ours(nested_document, 0);
  assert_string_equal(text, "---\n"
                            "name: 'it''s'\n"
                            "count: -12\n"
                            "none: null\n"
                            "empty: []\n"
                            "nothing: {}\n"
                            "list:\n"
                            "- path: 'a\n"
                            "\n"
                            "    b'\n"
                            "  bad: \"\\uDCE9\\t\\e\\x7F\\N\\uFEFF\"\n"
                            "- - ''\n"
                            "  - 'trailing '\n"
                            "! '- key': true\n");
  free(text);
}

/* A key past 128 bytes or with a line break is a complex key. */
static void complex_key_document(const sink *out, unsigned seed) {
  (void)seed;
  char key[140];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = '\0';
  out->open(out->self, 1);
  out->scalar(out->self, key, 2);
  out->scalar(out->self, "v", 0);
  out->scalar(out->self, "two\nlines", 2);
  out->open(out->self, 0);
  out->scalar(out->self, "x", 0);
  out->close(out->self, 0);
  out->close(out->self, 1);
}

static void writes_complex_keys(void **state) {
  (void)state;
  char *text = ours(complex_key_document, 0);
  char expected[512];
  snprintf(
      expected, sizeof expected,
      "---\n? %.*s\n: 'v'\n? ! 'two\n\n  lines'\n: - 'x'\n", 139,
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk");
  assert_string_equal(text, expected);
  free(text);
}

/* Every build: whatever a value holds, the document is valid UTF-8 with
 * no control character but the line break, no DEL and no C1 control (a
 * terminal showing it obeys none), and no BOM, U+FFFE or U+FFFF. */
static void check_only_printable(const char *text) {
  const unsigned char *p = (const unsigned char *)text;
  size_t left = strlen(text);
  while (left > 0) {
    unsigned code;
    size_t n = cl_utf8_sequence(p, left, &code);
    if (n == 0 || (code < 0x20 && code != '\n') || code == 0x7F ||
        (code >= 0x80 && code <= 0x9F) || code == 0xFEFF || code == 0xFFFE ||
        code == 0xFFFF)
      fail_msg("byte %lu of the document is raw: 0x%02x",
               (unsigned long)(p - (const unsigned char *)text), *p);
    p += n;
    left -= n;
  }
}

static void documents_hold_no_raw_controls(void **state) {
  (void)state;
  char *text = ours(hostile_document, 0);
  check_only_printable(text);
  free(text);
  for (unsigned seed = 1; seed <= 2000; ++seed) {
    text = ours(random_document, seed);
    check_only_printable(text);
    free(text);
  }
}

/* --- builds with libyaml: the same bytes as its emitter ---------------- */

#if CUDALOAD_WITH_YAML
typedef struct libyaml_sink {
  yaml_emitter_t emitter;
  char *text;
  size_t len;
  int failed;
} libyaml_sink;

static int libyaml_write(void *data, unsigned char *buffer, size_t size) {
  libyaml_sink *s = data;
  char *grown = realloc(s->text, s->len + size + 1);
  assert_non_null(grown);
  memcpy(grown + s->len, buffer, size);
  s->text = grown;
  s->len += size;
  s->text[s->len] = '\0';
  return 1;
}

static void libyaml_emit(libyaml_sink *s, yaml_event_t *event, int ok) {
  if (!ok || !yaml_emitter_emit(&s->emitter, event))
    s->failed = 1;
}

static void libyaml_open(void *self, int mapping) {
  yaml_event_t e;
  libyaml_emit(self, &e,
               mapping ? yaml_mapping_start_event_initialize(
                             &e, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE)
                       : yaml_sequence_start_event_initialize(
                             &e, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
}

static void libyaml_close(void *self, int mapping) {
  yaml_event_t e;
  libyaml_emit(self, &e,
               mapping ? yaml_mapping_end_event_initialize(&e)
                       : yaml_sequence_end_event_initialize(&e));
}

/* As the report writer called libyaml before it wrote YAML itself: plain
 * and plain-implicit for keys, numbers, booleans and null; any style but
 * not plain-implicit for strings; bytes that are not UTF-8 as
 * surrogates. */
static void libyaml_scalar(void *self, const char *text, int plain_ok) {
  yaml_event_t e;
  char *escaped = cl_text_surrogate_escaped(text);
  assert_non_null(escaped);
  int plain = plain_ok != 0;
  libyaml_emit(self, &e,
               yaml_scalar_event_initialize(
                   &e, NULL, NULL, (yaml_char_t *)escaped, (int)strlen(escaped),
                   plain, !plain,
                   plain ? YAML_PLAIN_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
  free(escaped);
}

static char *theirs(document_fn document, unsigned seed) {
  libyaml_sink s = {0};
  yaml_event_t e;
  assert_true(yaml_emitter_initialize(&s.emitter));
  yaml_emitter_set_output(&s.emitter, libyaml_write, &s);
  yaml_emitter_set_unicode(&s.emitter, 1);
  yaml_emitter_set_width(&s.emitter, -1);
  libyaml_emit(&s, &e,
               yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING));
  libyaml_emit(&s, &e,
               yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 0));
  sink out = {libyaml_open, libyaml_close, libyaml_scalar, &s};
  document(&out, seed);
  libyaml_emit(&s, &e, yaml_document_end_event_initialize(&e, 1));
  libyaml_emit(&s, &e, yaml_stream_end_event_initialize(&e));
  assert_true(yaml_emitter_flush(&s.emitter));
  yaml_emitter_delete(&s.emitter);
  assert_false(s.failed);
  assert_non_null(s.text);
  return s.text;
}

/* The scalars libyaml's parser reads from text, in order, each after
 * its position (as "\x01" + value), joined. */
typedef struct scalars {
  char *text;
  size_t len;
} scalars;

static void scalars_add(scalars *all, const char *value, size_t n) {
  char *grown = realloc(all->text, all->len + n + 2);
  assert_non_null(grown);
  all->text = grown;
  all->text[all->len++] = '\x01';
  memcpy(all->text + all->len, value, n);
  all->len += n;
  all->text[all->len] = '\0';
}

/* A sink that records the scalars a document holds, as the parser should
 * give them back (surrogate-escaped, numbers as written). */
static void record_open(void *self, int mapping) {
  (void)self;
  (void)mapping;
}

static void record_scalar(void *self, const char *text, int plain_ok) {
  (void)plain_ok;
  char *escaped = cl_text_surrogate_escaped(text);
  assert_non_null(escaped);
  scalars_add(self, escaped, strlen(escaped));
  free(escaped);
}

static int has_invalid_utf8(const char *text) {
  char *escaped = cl_text_surrogate_escaped(text);
  assert_non_null(escaped);
  int differs = strcmp(escaped, text) != 0;
  free(escaped);
  return differs;
}

static void check_round_trip(document_fn document, unsigned seed,
                             const char *text) {
  scalars expected = {0}, got = {0};
  sink out = {record_open, record_open, record_scalar, &expected};
  document(&out, seed);
  yaml_parser_t parser;
  assert_true(yaml_parser_initialize(&parser));
  yaml_parser_set_input_string(&parser, (const unsigned char *)text,
                               strlen(text));
  for (int done = 0; !done;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event))
      fail_msg("libyaml cannot read back:\n%s\n%s", text, parser.problem);
    if (event.type == YAML_SCALAR_EVENT)
      scalars_add(&got, (const char *)event.data.scalar.value,
                  event.data.scalar.length);
    done = event.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&event);
  }
  yaml_parser_delete(&parser);
  assert_int_equal(got.len, expected.len);
  assert_memory_equal(got.text, expected.text, got.len);
  free(expected.text);
  free(got.text);
}

static void check_same(document_fn document, unsigned seed) {
  char *mine = ours(document, seed);
  char *reference = theirs(document, seed);
  if (strcmp(mine, reference) != 0) {
    /* Where they part, with the text before it. */
    size_t at = 0;
    while (mine[at] == reference[at])
      ++at;
    size_t from = at > 200 ? at - 200 : 0;
    fail_msg("seed %u, byte %lu: libyaml wrote\n%.300s\n--- and "
             "report_yaml.c wrote\n%.300s",
             seed, (unsigned long)at, reference + from, mine + from);
  }
  free(reference);
  free(mine);
}

static void hostile_strings_as_libyaml_writes_them(void **state) {
  (void)state;
  check_same(hostile_document, 0);
  check_same(nested_document, 0);
  check_same(complex_key_document, 0);
}

static void random_documents_as_libyaml_writes_them(void **state) {
  (void)state;
  for (unsigned seed = 1; seed <= 20000; ++seed)
    check_same(random_document, seed);
}

/* libyaml's parser refuses the escape \uDCXX (a lone surrogate), which
 * its emitter writes for a byte that is not UTF-8 (Python's
 * surrogateescape reading takes it): such values are checked above for
 * the same bytes only. */
static void hostile_document_valid(const sink *out, unsigned seed) {
  (void)seed;
  out->open(out->self, 1);
  size_t count = sizeof hostile / sizeof *hostile;
  for (size_t i = 0; i < count; ++i) {
    if (has_invalid_utf8(hostile[i]))
      continue;
    char key[16];
    snprintf(key, sizeof key, "v%lu", (unsigned long)i);
    out->scalar(out->self, key, 2);
    out->scalar(out->self, hostile[i], 0);
    out->scalar(out->self, hostile[i], 2);
    out->open(out->self, 0);
    out->scalar(out->self, hostile[i], 0);
    out->close(out->self, 0);
  }
  out->close(out->self, 1);
}

static void libyaml_reads_back_the_values(void **state) {
  (void)state;
  char *text = ours(hostile_document_valid, 0);
  check_round_trip(hostile_document_valid, 0, text);
  free(text);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(writes_the_expected_text),
    cmocka_unit_test(writes_complex_keys),
    cmocka_unit_test(documents_hold_no_raw_controls),
#if CUDALOAD_WITH_YAML
    cmocka_unit_test(hostile_strings_as_libyaml_writes_them),
    cmocka_unit_test(random_documents_as_libyaml_writes_them),
    cmocka_unit_test(libyaml_reads_back_the_values),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
