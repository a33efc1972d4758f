/* SPDX-License-Identifier: MIT */
/*
 * scan_expect.h - what test_scan.c (the Linux fixture trees) and
 * test_scan_windows.c (the Windows ones) share: contexts that scan fixture
 * roots, and the comparison of an inventory with the libraries that
 * docs/scan-contract.md says a scan must report. Every mismatch is printed
 * (with the whole inventory) before the test fails, so one run shows
 * everything the core and the contract disagree on.
 *
 * (%lu and casts rather than %zu: mingw checks formats against msvcrt.)
 */
#ifndef CUDALOAD_TEST_SCAN_EXPECT_H
#define CUDALOAD_TEST_SCAN_EXPECT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cudaload.h"
#include "test_paths.h"

#define ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static inline int is_directory(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR;
}

static inline const char *or_null(const char *text) {
  return text != NULL ? text : "(null)";
}

/* The last component of a path, after '/' or '\'. */
static inline const char *base_name(const char *path) {
  const char *name = path;
  for (const char *c = path; *c != '\0'; c++) {
    if (*c == '/' || *c == '\\')
      name = c + 1;
  }
  return name;
}

/* ------------------------------------------------------------------------ */
/* Scanning                                                                 */
/* ------------------------------------------------------------------------ */

/* A context without the default roots, for target (set unless it is the
 * host's, which a new context has). */
static inline cudaload_ctx *new_context(int target) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  if (ctx == NULL)
    fail_msg("cudaload_create: %s", cudaload_last_error());
  if (target != CUDALOAD_TARGET_HOST)
    assert_int_equal(cudaload_set_target(ctx, target), CUDALOAD_OK);
  return ctx;
}

static inline void add_fixture_root(cudaload_ctx *ctx, const char *rel) {
  const char *path = test_fixture_path(rel);
  int status = cudaload_add_root(ctx, path);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_add_root(%s): %s", path, cudaload_last_error());
}

static inline void scan_or_fail(cudaload_ctx *ctx) {
  int status = cudaload_scan(ctx);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_scan: %s (%s)", cudaload_strerror(status),
             cudaload_last_error());
}

/* ------------------------------------------------------------------------ */
/* Inventory checks                                                         */
/* ------------------------------------------------------------------------ */

/* One library as docs/scan-contract.md says a scan must report it. */
typedef struct expected_library {
  const char *name;
  const char *family;
  int major;
  int cuda_major;
  const char *version;
  const char *version_source;
  /* The file behind the version, as a path suffix ("" in test_scan.c for
   * "none"). */
  const char *version_file_suffix;
  /* The file, relative to the fixtures folder. */
  const char *path;
} expected_library;

static inline void print_inventory(const cudaload_ctx *ctx) {
  size_t count = cudaload_library_count(ctx);
  print_message("  inventory (%lu libraries):\n", (unsigned long)count);
  for (size_t i = 0; i < count; i++) {
    print_message("  [%lu] %s family=%s major=%d cuda=%d version=\"%s\" "
                  "source=%s root=%lu\n       path=%s\n       file=%s\n",
                  (unsigned long)i, or_null(cudaload_library_name(ctx, i)),
                  or_null(cudaload_library_family(ctx, i)),
                  cudaload_library_major(ctx, i),
                  cudaload_library_cuda_major(ctx, i),
                  or_null(cudaload_library_version(ctx, i)),
                  or_null(cudaload_library_version_source(ctx, i)),
                  (unsigned long)cudaload_library_root(ctx, i),
                  or_null(cudaload_library_path(ctx, i)),
                  or_null(cudaload_library_version_file(ctx, i)));
  }
}

static inline int check_string(size_t i, const char *field, const char *actual,
                               const char *expected) {
  if (actual != NULL && strcmp(actual, expected) == 0)
    return 0;
  print_error("  [%lu] %s: expected \"%s\", got \"%s\"\n", (unsigned long)i,
              field, expected, or_null(actual));
  return 1;
}

static inline int check_int(size_t i, const char *field, int actual,
                            int expected) {
  if (actual == expected)
    return 0;
  print_error("  [%lu] %s: expected %d, got %d\n", (unsigned long)i, field,
              expected, actual);
  return 1;
}

/* The fields every tree checks the same way: all but the files. */
static inline int check_library_fields(const cudaload_ctx *ctx, size_t i,
                                       const expected_library *want) {
  int errors = 0;
  errors += check_string(i, "name", cudaload_library_name(ctx, i), want->name);
  errors +=
      check_string(i, "family", cudaload_library_family(ctx, i), want->family);
  errors += check_int(i, "major", cudaload_library_major(ctx, i), want->major);
  errors += check_int(i, "cuda_major", cudaload_library_cuda_major(ctx, i),
                      want->cuda_major);
  errors += check_string(i, "version", cudaload_library_version(ctx, i),
                         want->version);
  errors +=
      check_string(i, "version_source", cudaload_library_version_source(ctx, i),
                   want->version_source);
  return errors;
}

/* Checks library i against want; returns the number of mismatches. */
typedef int (*library_check)(const cudaload_ctx *ctx, size_t i,
                             const expected_library *want);

/* The count, then each library against want[0..want_count) in order, then
 * the ones missing; returns the number of mismatches. */
static inline int check_libraries(const cudaload_ctx *ctx,
                                  const expected_library *want,
                                  size_t want_count, library_check check) {
  int errors = 0;
  size_t count = cudaload_library_count(ctx);
  if (count != want_count) {
    print_error("  count: expected %lu libraries, got %lu\n",
                (unsigned long)want_count, (unsigned long)count);
    errors++;
  }
  for (size_t i = 0; i < count && i < want_count; i++)
    errors += check(ctx, i, &want[i]);
  for (size_t i = count; i < want_count; i++) {
    print_error("  [%lu] missing: %s (%s)\n", (unsigned long)i, want[i].name,
                want[i].path);
    errors++;
  }
  return errors;
}

/* Decoys: files with CUDA-like names that are in no catalog (a
 * NULL-terminated list). */
static inline int check_absent(const cudaload_ctx *ctx,
                               const char *const *decoys) {
  int errors = 0;
  size_t count = cudaload_library_count(ctx);
  for (const char *const *decoy = decoys; *decoy != NULL; decoy++) {
    for (size_t i = 0; i < count; i++) {
      const char *path = cudaload_library_path(ctx, i);
      if (path != NULL && strcmp(base_name(path), *decoy) == 0) {
        print_error("  [%lu] decoy %s was reported as %s\n", (unsigned long)i,
                    *decoy, or_null(cudaload_library_name(ctx, i)));
        errors++;
      }
    }
  }
  return errors;
}

/* After the checks: with any mismatch, print the inventory and fail. */
static inline void fail_on_mismatches(const cudaload_ctx *ctx, const char *what,
                                      int errors) {
  if (errors != 0) {
    print_inventory(ctx);
    fail_msg("%s: %d mismatch(es) with docs/scan-contract.md (listed above)",
             what, errors);
  }
}

/* Whether path ends with "/" + rel, comparing '\' and '/' as the same
 * separator (the library answers in the host's spelling). */
static inline int path_ends_with_folder(const char *path, const char *rel) {
  size_t n = strlen(path), m = strlen(rel);
  if (n < m + 1)
    return 0;
  const char *tail = path + n - m - 1;
  if (*tail != '/' && *tail != '\\')
    return 0;
  for (size_t k = 0; k < m; ++k) {
    char a = tail[1 + k] == '\\' ? '/' : tail[1 + k];
    char b = rel[k] == '\\' ? '/' : rel[k];
    if (a != b)
      return 0;
  }
  return 1;
}

/* The "catalog" fixture trees (make_fixtures.py, catalog_tree): one real
 * file for every name of NVIDIA's cuda-pathfinder catalog and cudaload's
 * own, in its layout's folder, listed in expected.txt with the library it
 * is. A scan of tree and tree/site-packages must recognise every one as
 * that library and list nothing else. */
static inline void check_catalog_tree(const char *tree, int target) {
  char rel[256];
  snprintf(rel, sizeof rel, "%s/expected.txt", tree);
  FILE *f = fopen(test_fixture_path(rel), "r");
  assert_non_null(f);
  cudaload_ctx *ctx = new_context(target);
  add_fixture_root(ctx, tree);
  snprintf(rel, sizeof rel, "%s/site-packages", tree);
  add_fixture_root(ctx, rel);
  scan_or_fail(ctx);
  char line[512];
  size_t lines = 0;
  while (fgets(line, sizeof line, f)) {
    char file[400], library[64];
    if (sscanf(line, "%399s %63s", file, library) != 2)
      continue;
    ++lines;
    size_t found = (size_t)-1;
    for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
      if (path_ends_with_folder(cudaload_library_path(ctx, i), file))
        found = i;
    if (found == (size_t)-1)
      fail_msg("%s: %s was not recognised", tree, file);
    if (strcmp(cudaload_library_name(ctx, found), library) != 0)
      fail_msg("%s: %s is %s, expected %s", tree, file,
               cudaload_library_name(ctx, found), library);
  }
  fclose(f);
  assert_true(lines > 50);
  assert_int_equal(cudaload_library_count(ctx), lines);
  cudaload_destroy(ctx);
}

#endif
