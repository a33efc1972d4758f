/* SPDX-License-Identifier: MIT */
/*
 * test_paths.h - where the tests find their fixture trees.
 *
 * CUDALOAD_FIXTURES_DIR is the fixtures folder as the build saw it. A Windows
 * test built on Linux and run under Wine sees the Linux file system as drive
 * Z: ("/x/y" is "Z:\x\y"), and the library under test takes Windows paths
 * there, so the name is converted when the test is a Windows program.
 */
#ifndef CUDALOAD_TEST_PATHS_H
#define CUDALOAD_TEST_PATHS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#ifndef CUDALOAD_FIXTURES_DIR
#define CUDALOAD_FIXTURES_DIR ""
#endif

/* Results stay valid for this many later calls, so a test may hold a few
 * paths at once (a root and a file under it). */
#define TEST_PATH_SLOTS 8
#define TEST_PATH_CAPACITY 4096

/*
 * CUDALOAD_FIXTURES_DIR joined with `relative` ('/'-separated, may be "" or
 * NULL), in the host's form: on Windows, '\' separators and a drive letter
 * (Z: for a folder given as a Linux path). Returns a buffer from a small
 * ring; aborts the test program when the result would not fit.
 */
static inline const char *test_fixture_path(const char *relative) {
  static char slots[TEST_PATH_SLOTS][TEST_PATH_CAPACITY];
  static unsigned next_slot;
  char *out = slots[next_slot++ % TEST_PATH_SLOTS];
  const char *base = CUDALOAD_FIXTURES_DIR;
  const char *drive = "";
#ifdef _WIN32
  /* A Linux absolute path, as the build saw it: Wine maps / to Z:. */
  if (base[0] == '/' && base[1] != '/')
    drive = "Z:";
#endif
  if (!relative)
    relative = "";
  int n = snprintf(out, TEST_PATH_CAPACITY, "%s%s%s%s", drive, base,
                   base[0] && relative[0] ? "/" : "", relative);
  if (n < 0 || n >= TEST_PATH_CAPACITY) {
    fprintf(stderr, "test_fixture_path: path too long: %s/%s\n", base,
            relative);
    abort();
  }
#ifdef _WIN32
  for (char *p = out; *p; ++p)
    if (*p == '/')
      *p = '\\';
#endif
  return out;
}

/* 1 when the fixture file or folder `relative` was built. The Windows trees
 * need mingw-w64 (x86_64-w64-mingw32-gcc and -windres), the Linux trees a
 * host C compiler; tests/fixtures/CMakeLists.txt says which were skipped. */
static inline int test_fixture_exists(const char *relative) {
  struct stat st;
  return stat(test_fixture_path(relative), &st) == 0;
}

/* Skip the calling cmocka test, saying why, when a fixture tree it reads was
 * not built. Use after <cmocka.h>. */
#define SKIP_WITHOUT_FIXTURE(relative)                                         \
  do {                                                                         \
    if (!test_fixture_exists(relative)) {                                      \
      print_message("[  SKIPPED ] fixture %s was not built (the Windows "      \
                    "trees need mingw-w64, the Linux trees a host C "          \
                    "compiler)\n",                                             \
                    relative);                                                 \
      skip();                                                                  \
    }                                                                          \
  } while (0)

#endif
