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
#include "report_writer.h"

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

static int have_yaml(void) {
  return cl_report_format_supported(CL_REPORT_YAML);
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

static void bad_utf8_is_reported_with_its_line(void **state) {
  (void)state;
  REQUIRE_YAML();
  cudaload_ctx *ctx = new_ctx();
  const char *path =
      write_manifest("utf8.yaml", "probe: true\nroots: [\"a\xff\"]\n");
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_E_MALFORMED);
  assert_contains(cudaload_last_error(), "line 2, column 11");
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
  assert_contains(cudaload_last_error(), "larger than");
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
  assert_contains(cudaload_last_error(), "without libyaml");
  assert_int_equal(cudaload_requirement_count(ctx), 0);
  cudaload_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(full_manifest_is_read),
      cmocka_unit_test(short_forms_are_read),
      cmocka_unit_test(manifest_adds_to_what_is_there),
      cmocka_unit_test(refused_manifests_say_where_and_why),
      cmocka_unit_test(bad_utf8_is_reported_with_its_line),
      cmocka_unit_test(a_refused_manifest_changes_nothing),
      cmocka_unit_test(relative_roots_do_not_depend_on_the_current_folder),
      cmocka_unit_test(files_that_are_not_manifests_are_refused),
      cmocka_unit_test(without_libyaml_manifests_are_unsupported),
  };
  return cmocka_run_group_tests(tests, make_test_dir, remove_test_dir);
}
