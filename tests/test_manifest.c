/* SPDX-License-Identifier: MIT */
/*
 * test_manifest.c - cudaload_load_manifest(): every accepted form, every
 * refusal with the line and column a user needs to fix the file, and the
 * promise that a refused manifest changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "report/report_writer.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#define SEP "\\"
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define SEP "/"
#endif

/* A fresh folder for this test run, absolute and symlink-free. */
static char test_dir[1024];

static int make_test_dir(void **state) {
  (void)state;
#ifdef _WIN32
  char base[MAX_PATH];
  DWORD n = GetTempPathA(sizeof base, base);
  if (n == 0 || n >= sizeof base)
    return -1;
  snprintf(test_dir, sizeof test_dir, "%scudaload-manifest-%lu", base,
           (unsigned long)GetCurrentProcessId());
  _mkdir(test_dir);
  char full[MAX_PATH];
  if (GetFullPathNameA(test_dir, sizeof full, full, NULL))
    snprintf(test_dir, sizeof test_dir, "%s", full);
#else
  char tmpl[] = "/tmp/cudaload-manifest-XXXXXX";
  if (!mkdtemp(tmpl))
    return -1;
  char *real = realpath(tmpl, NULL);
  if (!real)
    return -1;
  snprintf(test_dir, sizeof test_dir, "%s", real);
  free(real);
#endif
  return 0;
}

/* Remove a folder and what is in it (the tests make only files, folders
 * and a FIFO). */
static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
        continue;
      char child[2048];
      snprintf(child, sizeof child, "%s" SEP "%s", dir, e->d_name);
      if (remove(child) != 0)
        remove_tree(child);
    }
    closedir(d);
  }
#ifdef _WIN32
  _rmdir(dir);
#else
  rmdir(dir);
#endif
}

static int remove_test_dir(void **state) {
  (void)state;
  if (test_dir[0])
    remove_tree(test_dir);
  return 0;
}

/* test_dir/name ('/' in name is turned into the host separator). */
static const char *path_in(const char *name) {
  static char slots[4][2048];
  static unsigned next;
  char *out = slots[next++ % 4];
  snprintf(out, sizeof slots[0], "%s" SEP "%s", test_dir, name);
  for (char *p = out; *p; ++p)
    if (*p == '/')
      *p = SEP[0];
  return out;
}

static void make_folder(const char *name) {
#ifdef _WIN32
  _mkdir(path_in(name));
#else
  mkdir(path_in(name), 0700);
#endif
}

/* Write a manifest and return its path. */
static const char *write_manifest(const char *name, const char *text) {
  const char *path = path_in(name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
  assert_int_equal(fclose(f), 0);
  return path;
}

/* Write len bytes (NULs allowed) as a manifest and return its path. */
static const char *write_manifest_bytes(const char *name, const char *bytes,
                                        size_t len) {
  const char *path = path_in(name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  return path;
}

/* Whether this libcudaload reads manifests (builds with libyaml): one
 * without says CUDALOAD_E_UNSUPPORTED before it opens the file. */
static int have_yaml(void) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  int rc = cudaload_load_manifest(ctx, path_in("no-such-manifest.yaml"));
  cudaload_destroy(ctx);
  return rc != CUDALOAD_E_UNSUPPORTED;
}

#define REQUIRE_YAML()                                                         \
  do {                                                                         \
    if (!have_yaml()) {                                                        \
      print_message("skipped: built without libyaml "                          \
                    "(CUDALOAD_WITH_YAML=OFF)\n");                             \
      skip();                                                                  \
    }                                                                          \
  } while (0)

static cudaload_ctx *new_ctx(void) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  return ctx;
}

/* The roots a scan of ctx searches, in order (explicit roots only). */
static size_t scanned_roots(cudaload_ctx *ctx) {
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  return cudaload_root_count(ctx);
}

static void assert_contains(const char *text, const char *needle) {
  if (!strstr(text, needle))
    fail_msg("\"%s\" does not contain \"%s\"", text, needle);
}

/* --- accepted forms ---------------------------------------------------- */

static void full_manifest_is_read(void **state) {
  (void)state;
  REQUIRE_YAML();
  make_folder("app");
  const char *path =
      write_manifest("app/cudaload.yaml", "# shipped beside the application\n"
                                          "schema_version: 1\n"
                                          "requirements:\n"
                                          "  - cudnn=8\n"
                                          "  - \"cublas >= 12.1\"\n"
                                          "roots:\n"
                                          "  - lib\n"
                                          "  - ./cuda/lib64\n"
                                          "  - " SEP "opt" SEP "cudnn8\n"
                                          "policy:\n"
                                          "  sublibraries: all\n"
                                          "  isolation: false\n"
                                          "  global: true\n"
                                          "probe: true\n");
  cudaload_ctx *ctx = new_ctx();
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_OK);
  assert_string_equal(cudaload_last_error(), "");
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cudnn=8");
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cublas>=12.1");
  assert_int_equal(cudaload_manifest_preload_flags(ctx),
                   CUDALOAD_PRELOAD_ALL_SUBLIBS | CUDALOAD_PRELOAD_GLOBAL);
  assert_int_equal(cudaload_manifest_probe(ctx), 1);
  /* Relative roots are under the manifest's folder, absolute ones kept. */
  assert_int_equal(scanned_roots(ctx), 3);
  assert_string_equal(cudaload_root_path(ctx, 0), path_in("app/lib"));
  assert_string_equal(cudaload_root_path(ctx, 1), path_in("app/cuda/lib64"));
#ifndef _WIN32
  assert_string_equal(cudaload_root_path(ctx, 2), "/opt/cudnn8");
#endif
  assert_string_equal(cudaload_root_origin(ctx, 0), "explicit");
  cudaload_destroy(ctx);
}

static void short_forms_are_read(void **state) {
  (void)state;
  REQUIRE_YAML();
  static const struct {
    const char *text;
    size_t requirements;
    unsigned flags;
    int probe;
  } cases[] = {
      {"requirements: cudnn=8, cudnn=9\n", 2, 0, 0},
      {"requirements: [cudnn=8, cublas=12, cudart]\nprobe: false\n", 3, 0, 0},
      {"{requirements: [nccl], policy: {sublibraries: minimal}}\n", 1, 0, 0},
      {"requirements:\nroots:\npolicy:\n", 0, 0, 0},
      {"", 0, 0, 0},
      {"# nothing but a comment\n", 0, 0, 0},
      {"---\nprobe: True\npolicy:\n  isolation: true\n...\n", 0, 0, 1},
      {"requirements: [cudnn=8, cudnn=8]\n", 1, 0, 0},
      {"policy: {sublibraries: all}\n", 0, CUDALOAD_PRELOAD_ALL_SUBLIBS, 0},
      /* schema_version: the integer 1 as YAML 1.2's core schema spells it */
      {"schema_version: 00001\n", 0, 0, 0},
      {"schema_version: +1\n", 0, 0, 0},
      {"schema_version: 0x1\n", 0, 0, 0},
      {"schema_version: 0o1\n", 0, 0, 0},
      {"schema_version: 0x0001\n", 0, 0, 0},
      /* one directive is no problem */
      {"%YAML 1.1\n---\nprobe: true\n", 0, 0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    cudaload_ctx *ctx = new_ctx();
    const char *path = write_manifest("short.yaml", cases[i].text);
    if (cudaload_load_manifest(ctx, path) != CUDALOAD_OK)
      fail_msg("case %u (%s): %s", (unsigned)i, cases[i].text,
               cudaload_last_error());
    assert_int_equal(cudaload_requirement_count(ctx), cases[i].requirements);
    assert_int_equal(cudaload_manifest_preload_flags(ctx), cases[i].flags);
    assert_int_equal(cudaload_manifest_probe(ctx), cases[i].probe);
    cudaload_destroy(ctx);
  }
}

static void manifest_adds_to_what_is_there(void **state) {
  (void)state;
  REQUIRE_YAML();
  cudaload_ctx *ctx = new_ctx();
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  const char *path =
      write_manifest("add.yaml", "requirements: [cudnn=8, cudnn=9]\n");
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_OK);
  /* cudnn=8 twice is one requirement, as with cudaload_require(). */
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cudnn=9");
  cudaload_destroy(ctx);
}

/* --- refusals ---------------------------------------------------------- */

typedef struct refusal {
  const char *text;
  int status;
  const char *needles[3];
} refusal;

static void refused_manifests_say_where_and_why(void **state) {
  (void)state;
  REQUIRE_YAML();
  static const refusal cases[] = {
      /* YAML syntax: line and column from libyaml */
      {"requirements: [cudnn=8\nprobe: true\n",
       CUDALOAD_E_MALFORMED,
       {"YAML syntax error", "line 2, column"}},
      {"probe: true\n  roots: x\n",
       CUDALOAD_E_MALFORMED,
       {"YAML syntax error", "line 2, column 8"}},
      {"requirements: \"cudnn=8\n",
       CUDALOAD_E_MALFORMED,
       {"YAML syntax error", "line 2, column 1"}},
      /* unknown keys, with their line */
      {"requirements: [cudnn=8]\nprobes: true\n",
       CUDALOAD_E_MALFORMED,
       {"line 2, column 1", "unknown key \"probes\""}},
      {"policy:\n  sublibraries: all\n  globl: true\n",
       CUDALOAD_E_MALFORMED,
       {"line 3, column 3", "unknown key \"policy.globl\""}},
      /* wrong types: the key, what was expected, the line */
      {"roots: 5\n",
       CUDALOAD_E_MALFORMED,
       {"line 1, column 8", "roots: expected a sequence", "found \"5\""}},
      {"requirements: {cudnn: 8}\n",
       CUDALOAD_E_MALFORMED,
       {"line 1", "requirements: expected", "found a mapping"}},
      {"roots:\n  - [a, b]\n",
       CUDALOAD_E_MALFORMED,
       {"line 2, column 5", "roots: expected a string"}},
      {"probe: maybe\n",
       CUDALOAD_E_MALFORMED,
       {"line 1, column 8", "probe: expected true or false"}},
      {"probe: \"true\"\n",
       CUDALOAD_E_MALFORMED,
       {"probe: expected true or false"}},
      {"policy: all\n", CUDALOAD_E_MALFORMED, {"policy: expected a mapping"}},
      {"policy:\n  sublibraries: some\n",
       CUDALOAD_E_MALFORMED,
       {"line 2, column 17", "policy.sublibraries: expected minimal or all"}},
      {"policy:\n  isolation: true\n  global: true\n",
       CUDALOAD_E_MALFORMED,
       {"line 3", "contradict"}},
      {"schema_version: one\n",
       CUDALOAD_E_MALFORMED,
       {"schema_version: expected a whole number"}},
      {"schema_version: 2\n",
       CUDALOAD_E_UNSUPPORTED,
       {"schema_version 2 is not supported"}},
      {"- cudnn=8\n",
       CUDALOAD_E_MALFORMED,
       {"line 1, column 1", "must be a mapping", "found a sequence"}},
      {"probe: true\nprobe: false\n",
       CUDALOAD_E_MALFORMED,
       {"line 2", "\"probe\" appears twice (first on line 1)"}},
      {"probe: true\n---\nprobe: false\n",
       CUDALOAD_E_MALFORMED,
       {"line 3", "second YAML document"}},
      {"roots: [\"\"]\n", CUDALOAD_E_MALFORMED, {"roots: an empty folder"}},
      /* requirements: cudaload_require's parser, and the line */
      {"requirements:\n  - cudnn=8\n  - cudnn~9\n",
       CUDALOAD_E_BAD_SPEC,
       {"line 3, column 5", "requirement \"cudnn~9\"", "expected ="}},
      {"requirements: cudnn=8,,cublas\n",
       CUDALOAD_E_BAD_SPEC,
       {"line 1, column 15", "empty entry"}},
      {"requirements: [driver]\n",
       CUDALOAD_E_BAD_SPEC,
       {"unknown library \"driver\""}},
      /* a key that is not a name: said with its place, not ": expected" */
      {"[a, b]: 1\n",
       CUDALOAD_E_MALFORMED,
       {"line 1, column 1: a key must be a name (requirements, roots",
        "found a sequence"}},
      {"probe: true\n? {a: b}\n: 1\n",
       CUDALOAD_E_MALFORMED,
       {"line 2, column 3: a key must be a name", "found a mapping"}},
      {"policy:\n  ? [global]\n  : true\n",
       CUDALOAD_E_MALFORMED,
       {"line 2, column 5: policy: a key must be a name (sublibraries, "
        "isolation or global), found a sequence"}},
      /* the limits that keep parsing linear */
      {"requirements: [&a cudnn=8]\n",
       CUDALOAD_E_MALFORMED,
       {"line 1, column 16", "anchor \"&a\": anchors and aliases are not "
                             "allowed"}},
      {"requirements: [cudnn=8]\nroots: *r\n",
       CUDALOAD_E_MALFORMED,
       {"line 2, column 8", "alias \"*r\": anchors and aliases"}},
      {"policy: &p {global: true}\n", CUDALOAD_E_MALFORMED, {"anchor \"&p\""}},
      {"%TAG !a! x:\n%TAG !b! x:\n%TAG !c! x:\n%TAG !d! x:\n%TAG !e! x:\n"
       "%TAG !f! x:\n%TAG !g! x:\n%TAG !h! x:\n%TAG !i! x:\n%TAG !j! x:\n"
       "%TAG !k! x:\n%TAG !l! x:\n%TAG !m! x:\n%TAG !n! x:\n%TAG !o! x:\n"
       "%TAG !p! x:\n%TAG !q! x:\n---\nprobe: true\n",
       CUDALOAD_E_MALFORMED,
       {"line 17, column 1", "more than 16 directives"}},
      /* schema_version: YAML 1.2 core-schema integers */
      {"schema_version: 1.0\n",
       CUDALOAD_E_MALFORMED,
       {"line 1, column 17", "schema_version: expected a whole number",
        "found \"1.0\""}},
      {"schema_version: \"1\"\n",
       CUDALOAD_E_MALFORMED,
       {"schema_version: expected a whole number"}},
      {"schema_version: 0x\n",
       CUDALOAD_E_MALFORMED,
       {"schema_version: expected a whole number"}},
      {"schema_version: +0x1\n",
       CUDALOAD_E_MALFORMED,
       {"schema_version: expected a whole number"}},
      {"schema_version: -1\n",
       CUDALOAD_E_UNSUPPORTED,
       {"schema_version -1 is not supported"}},
      {"schema_version: 0x10\n",
       CUDALOAD_E_UNSUPPORTED,
       {"schema_version 0x10 is not supported"}},
      {"schema_version: 010\n",
       CUDALOAD_E_UNSUPPORTED,
       {"schema_version 010 is not supported"}},
      {"schema_version: 100000000000000000000000000000000000000000000001\n",
       CUDALOAD_E_UNSUPPORTED,
       {"schema_version 100000000000000000000000000000000000000000000001 is "
        "not supported"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    cudaload_ctx *ctx = new_ctx();
    const char *path = write_manifest("bad.yaml", cases[i].text);
    int rc = cudaload_load_manifest(ctx, path);
    const char *error = cudaload_last_error();
    if (rc != cases[i].status)
      fail_msg("case %u (%s): status %d, expected %d: %s", (unsigned)i,
               cases[i].text, rc, cases[i].status, error);
    /* Every message starts with the file. */
    if (strncmp(error, path, strlen(path)) != 0)
      fail_msg("case %u: \"%s\" does not start with the path", (unsigned)i,
               error);
    for (int k = 0; k < 3 && cases[i].needles[k]; ++k)
      if (!strstr(error, cases[i].needles[k]))
        fail_msg("case %u (%s): \"%s\" lacks \"%s\"", (unsigned)i,
                 cases[i].text, error, cases[i].needles[k]);
    cudaload_destroy(ctx);
  }
}

/* prefix + count copies of unit + suffix, malloc'ed; *len is its length. */
static char *repeated(const char *prefix, const char *unit, size_t count,
                      const char *suffix, size_t *len) {
  size_t lp = strlen(prefix), lu = strlen(unit), ls = strlen(suffix);
  char *text = malloc(lp + lu * count + ls + 1);
  assert_non_null(text);
  memcpy(text, prefix, lp);
  for (size_t i = 0; i < count; ++i)
    memcpy(text + lp + i * lu, unit, lu);
  memcpy(text + lp + lu * count, suffix, ls + 1);
  *len = lp + lu * count + ls;
  return text;
}

/* Load text as a manifest into a fresh ctx; returns the status, the ctx
 * unchanged when refused. */
static int load_bytes(const char *text, size_t len) {
  const char *path = write_manifest_bytes("limits.yaml", text, len);
  cudaload_ctx *ctx = new_ctx();
  int rc = cudaload_load_manifest(ctx, path);
  if (rc != CUDALOAD_OK) {
    assert_int_equal(cudaload_requirement_count(ctx), 0);
    assert_int_equal(cudaload_manifest_probe(ctx), 0);
  }
  cudaload_destroy(ctx);
  return rc;
}

/* Inputs whose parse used to take seconds to minutes (libyaml's document
 * loader checks each nesting level, anchor and %TAG directive against the
 * earlier ones): refused at the limit, naming it and where. */
static void limits_are_named(void **state) {
  (void)state;
  REQUIRE_YAML();
  static const struct {
    const char *prefix, *unit;
    size_t count;
    const char *suffix, *needles[2];
  } cases[] = {
      /* 64 levels (the mapping and 63 sequences) are parsed; 65 are not. */
      {"requirements: ", "[", 63, "", {"YAML syntax error", NULL}},
      {"requirements: ",
       "[",
       64,
       "",
       {"line 1, column 78", "nesting deeper "
                             "than 64 levels"}},
      {"requirements: ",
       "[",
       100000,
       "\n",
       {"line 1, column 78", "nesting deeper than 64 levels"}},
      {"", "[", 1024 * 1024, "", {"line 1, column 65", "nesting deeper than"}},
      {"requirements: [",
       "&a cudnn=8, ",
       60000,
       "cudnn=9]\n",
       {"line 1, column 16", "anchor \"&a\": anchors and aliases are not"}},
      {"",
       "%TAG !t! tag:x:\n",
       60000,
       "---\nprobe: true\n",
       {"line 17, column 1", "more than 16 directives"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    size_t len;
    char *text = repeated(cases[i].prefix, cases[i].unit, cases[i].count,
                          cases[i].suffix, &len);
    int rc = load_bytes(text, len);
    free(text);
    if (rc != CUDALOAD_E_MALFORMED)
      fail_msg("case %u: status %d: %s", (unsigned)i, rc,
               cudaload_last_error());
    for (int k = 0; k < 2 && cases[i].needles[k]; ++k)
      if (!strstr(cudaload_last_error(), cases[i].needles[k]))
        fail_msg("case %u: \"%s\" lacks \"%s\"", (unsigned)i,
                 cudaload_last_error(), cases[i].needles[k]);
  }
  /* Nested block mappings count as well: 65 levels of "a:" indented. */
  char block[65 * 70];
  size_t used = (size_t)sprintf(block, "policy:\n");
  for (int level = 1; level < 65; ++level)
    used += (size_t)sprintf(block + used, "%*sk%d:\n", 2 * level, "", level);
  assert_int_equal(load_bytes(block, used), CUDALOAD_E_MALFORMED);
  assert_contains(cudaload_last_error(), "nesting deeper than 64 levels");
  /* Directives in UTF-16 (a byte order mark, then two bytes a character)
   * are counted as well. */
  static const char tag[] = "%TAG !t! tag:x:\n";
  char utf16[2 + 20 * 2 * (sizeof tag - 1)];
  utf16[0] = '\xff';
  utf16[1] = '\xfe';
  for (size_t i = 0; i < 20 * (sizeof tag - 1); ++i) {
    utf16[2 + 2 * i] = tag[i % (sizeof tag - 1)];
    utf16[3 + 2 * i] = '\0';
  }
  assert_int_equal(load_bytes(utf16, sizeof utf16), CUDALOAD_E_MALFORMED);
  assert_contains(cudaload_last_error(), "more than 16 directives");
}

/* UTF-16 with a byte order mark, as Windows PowerShell 5 redirects text. */
static void utf16_manifests_are_read(void **state) {
  (void)state;
  REQUIRE_YAML();
  static const char text[] = "probe: true\nrequirements: [cudnn=8]\n";
  char utf16[2 + 2 * (sizeof text - 1)];
  utf16[0] = '\xff';
  utf16[1] = '\xfe';
  for (size_t i = 0; i < sizeof text - 1; ++i) {
    utf16[2 + 2 * i] = text[i];
    utf16[3 + 2 * i] = '\0';
  }
  const char *path = write_manifest_bytes("utf16.yaml", utf16, sizeof utf16);
  cudaload_ctx *ctx = new_ctx();
  if (cudaload_load_manifest(ctx, path) != CUDALOAD_OK)
    fail_msg("%s", cudaload_last_error());
  assert_int_equal(cudaload_manifest_probe(ctx), 1);
  assert_int_equal(cudaload_requirement_count(ctx), 1);
  cudaload_destroy(ctx);
}

/* A message quotes long values, names and specs in part, so that the
 * reason stays in the error buffer. */
static void long_values_keep_the_reason(void **state) {
  (void)state;
  REQUIRE_YAML();
  size_t len;
  /* An explicit key: an implicit one is at most 1024 characters. */
  char *text = repeated("probe: true\n? ", "x", 10000, "\n: 1\n", &len);
  assert_int_equal(load_bytes(text, len), CUDALOAD_E_MALFORMED);
  free(text);
  assert_contains(cudaload_last_error(), "line 2, column 3: unknown key \"xxx");
  assert_contains(cudaload_last_error(), "...\" (expected requirements");
  assert_true(strlen(cudaload_last_error()) < 400);
  text = repeated("requirements: \"", "cudnn=8,", 7000, "\"\n", &len);
  assert_int_equal(load_bytes(text, len), CUDALOAD_E_BAD_SPEC);
  free(text);
  assert_contains(cudaload_last_error(), "line 1, column 15: requirements:");
  assert_contains(cudaload_last_error(), "empty entry");
  assert_contains(cudaload_last_error(), "entry 7001 of 7001");
  assert_true(strlen(cudaload_last_error()) < 400);
  text = repeated("probe: ", "y", 10000, "\n", &len);
  assert_int_equal(load_bytes(text, len), CUDALOAD_E_MALFORMED);
  free(text);
  assert_contains(cudaload_last_error(), "probe: expected true or false");
  assert_contains(cudaload_last_error(), "yyy...\"");
  assert_true(strlen(cudaload_last_error()) < 400);
}

/* Thousands of requirements: each kept once, in order. (Each was checked
 * against every earlier one, twice: 60,000 took 15 s.) */
static void many_requirements_are_read(void **state) {
  (void)state;
  REQUIRE_YAML();
  char *text = malloc(40000 * 24 + 64);
  assert_non_null(text);
  size_t len = (size_t)sprintf(text, "requirements:\n");
  for (unsigned i = 0; i < 40000; ++i)
    len += (size_t)sprintf(text + len, "  - cudnn=%u\n", i % 30000);
  len += (size_t)sprintf(text + len, "  - cudnn=1,cudart,cudnn=2\n");
  const char *path = write_manifest_bytes("many.yaml", text, len);
  free(text);
  cudaload_ctx *ctx = new_ctx();
  assert_int_equal(cudaload_require(ctx, "cudnn=7"), CUDALOAD_OK);
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_OK);
  assert_int_equal(cudaload_requirement_count(ctx), 30001);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cudnn=7");
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cudnn=0");
  assert_string_equal(cudaload_requirement_text(ctx, 7), "cudnn=6");
  assert_string_equal(cudaload_requirement_text(ctx, 8), "cudnn=8");
  assert_string_equal(cudaload_requirement_text(ctx, 29999), "cudnn=29999");
  assert_string_equal(cudaload_requirement_text(ctx, 30000), "cudart");
  cudaload_destroy(ctx);
}

static void bad_utf8_is_reported_with_its_line(void **state) {
  (void)state;
  REQUIRE_YAML();
  cudaload_ctx *ctx = new_ctx();
  const char *path =
      write_manifest("utf8.yaml", "probe: true\nroots: [\"a\xff\"]\n");
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_E_MALFORMED);
  assert_contains(cudaload_last_error(), "line 2, column 11");
  /* Columns count characters, as libyaml's own marks do ("\xc3\xa9" is
   * one), and a lone CR ends a line as it does for libyaml. */
  path = write_manifest("utf8.yaml", "probe: true\rroots: [\"\xc3\xa9\", "
                                     "\"a\xff\"]\n");
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_E_MALFORMED);
  assert_contains(cudaload_last_error(), "line 2, column 16");
  cudaload_destroy(ctx);
}

static void a_refused_manifest_changes_nothing(void **state) {
  (void)state;
  REQUIRE_YAML();
  cudaload_ctx *ctx = new_ctx();
  const char *good =
      write_manifest("good.yaml", "requirements: [cudart]\nroots: [first]\n"
                                  "policy: {sublibraries: all}\nprobe: true\n");
  assert_int_equal(cudaload_load_manifest(ctx, good), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  /* Everything valid up to the last line, which is not. */
  static const char *const bad[] = {
      "requirements: [cublas=12, cufft]\nroots: [second, third]\n"
      "policy: {global: true}\nprobe: false\nrequirements2: x\n",
      "requirements: [cublas=12, cufft]\nroots: [second]\nprobe: false\n"
      "policy: {global: true, sublibraries: everything}\n",
      "roots: [second]\nprobe: false\nrequirements: [cublas=12, nope]\n",
      "requirements: [cublas=12]\nroots: [second]\nprobe: false\n"
      "policy: {global: true\n",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    const char *path = write_manifest("bad.yaml", bad[i]);
    assert_int_not_equal(cudaload_load_manifest(ctx, path), CUDALOAD_OK);
    assert_int_equal(cudaload_requirement_count(ctx), 2);
    assert_string_equal(cudaload_requirement_text(ctx, 0), "cudart");
    assert_string_equal(cudaload_requirement_text(ctx, 1), "cudnn=8");
    assert_int_equal(cudaload_manifest_preload_flags(ctx),
                     CUDALOAD_PRELOAD_ALL_SUBLIBS);
    assert_int_equal(cudaload_manifest_probe(ctx), 1);
    assert_int_equal(scanned_roots(ctx), 1);
    assert_string_equal(cudaload_root_path(ctx, 0), path_in("first"));
  }
  cudaload_destroy(ctx);
}

static void relative_roots_do_not_depend_on_the_current_folder(void **state) {
  (void)state;
  REQUIRE_YAML();
  make_folder("elsewhere");
  make_folder("elsewhere/app");
  write_manifest("elsewhere/app/cudaload.yaml", "roots: [lib, ../shared]\n");
  char cwd[2048];
#ifdef _WIN32
  assert_non_null(_getcwd(cwd, sizeof cwd));
  assert_int_equal(_chdir(path_in("elsewhere")), 0);
#else
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(path_in("elsewhere")), 0);
#endif
  cudaload_ctx *ctx = new_ctx();
  int rc = cudaload_load_manifest(ctx, "app" SEP "cudaload.yaml");
#ifdef _WIN32
  assert_int_equal(_chdir(cwd), 0);
#else
  assert_int_equal(chdir(cwd), 0);
#endif
  if (rc != CUDALOAD_OK)
    fail_msg("%s", cudaload_last_error());
  assert_int_equal(scanned_roots(ctx), 2);
  assert_string_equal(cudaload_root_path(ctx, 0), path_in("elsewhere/app/lib"));
  assert_string_equal(cudaload_root_path(ctx, 1),
                      path_in("elsewhere/app/../shared"));
  cudaload_destroy(ctx);
}

static void files_that_are_not_manifests_are_refused(void **state) {
  (void)state;
  REQUIRE_YAML();
  cudaload_ctx *ctx = new_ctx();
  assert_int_equal(cudaload_load_manifest(ctx, path_in("no-such.yaml")),
                   CUDALOAD_E_NOT_FOUND);
  assert_contains(cudaload_last_error(), "no-such.yaml");
  make_folder("a-folder.yaml");
  assert_int_equal(cudaload_load_manifest(ctx, path_in("a-folder.yaml")),
                   CUDALOAD_E_NOT_A_FILE);
  assert_contains(cudaload_last_error(), "not a regular file");
#ifndef _WIN32
  /* A FIFO nobody writes to would block a plain open() forever. */
  const char *fifo = path_in("fifo.yaml");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  assert_int_equal(cudaload_load_manifest(ctx, fifo), CUDALOAD_E_NOT_A_FILE);
  unlink(fifo);
#endif
  /* Larger than any manifest: refused without being parsed. */
  const char *big = path_in("big.yaml");
  FILE *f = fopen(big, "wb");
  assert_non_null(f);
  for (int i = 0; i < 120000; ++i)
    fputs("# padding\n", f);
  fclose(f);
  assert_int_equal(cudaload_load_manifest(ctx, big), CUDALOAD_E_MALFORMED);
  assert_contains(cudaload_last_error(), "larger than 1024 KiB (1200000 "
                                         "bytes), the limit for a manifest");
#ifdef __linux__
  /* Files in /proc report a size of 0 whatever they hold: read as empty,
   * /proc/self/status was an empty manifest, accepted. */
  assert_int_equal(cudaload_load_manifest(ctx, "/proc/self/status"),
                   CUDALOAD_E_NOT_A_FILE);
  assert_contains(cudaload_last_error(),
                  "/proc/self/status: not a regular file: its size says 0 "
                  "bytes, reading it gives more than 0");
#endif
  /* An empty regular file is still an empty manifest (documented). */
  assert_int_equal(
      cudaload_load_manifest(ctx, write_manifest("empty.yaml", "")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_load_manifest(NULL, big),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_load_manifest(ctx, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_requirement_count(ctx), 0);
  assert_int_equal(cudaload_manifest_preload_flags(NULL), 0);
  assert_int_equal(cudaload_manifest_probe(NULL), 0);
  cudaload_destroy(ctx);
}

static void without_libyaml_manifests_are_unsupported(void **state) {
  (void)state;
  if (have_yaml()) {
    print_message("skipped: this build has libyaml; the stub is tested in "
                  "builds with CUDALOAD_WITH_YAML=OFF\n");
    skip();
  }
  cudaload_ctx *ctx = new_ctx();
  const char *path = write_manifest("any.yaml", "requirements: [cudnn=8]\n");
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_E_UNSUPPORTED);
  assert_contains(cudaload_last_error(), "cannot read YAML manifests");
  assert_int_equal(cudaload_requirement_count(ctx), 0);
  cudaload_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(full_manifest_is_read),
      cmocka_unit_test(short_forms_are_read),
      cmocka_unit_test(manifest_adds_to_what_is_there),
      cmocka_unit_test(refused_manifests_say_where_and_why),
      cmocka_unit_test(limits_are_named),
      cmocka_unit_test(utf16_manifests_are_read),
      cmocka_unit_test(long_values_keep_the_reason),
      cmocka_unit_test(many_requirements_are_read),
      cmocka_unit_test(bad_utf8_is_reported_with_its_line),
      cmocka_unit_test(a_refused_manifest_changes_nothing),
      cmocka_unit_test(relative_roots_do_not_depend_on_the_current_folder),
      cmocka_unit_test(files_that_are_not_manifests_are_refused),
      cmocka_unit_test(without_libyaml_manifests_are_unsupported),
  };
  return cmocka_run_group_tests(tests, make_test_dir, remove_test_dir);
}
