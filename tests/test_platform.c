/* SPDX-License-Identifier: MIT */
/*
 * test_platform.c - the contract of lib/os/platform.h, checked the same way on
 * every host: Linux runs lib/posix/, Windows (or Wine) runs lib/win32/.
 *
 * The tests work in the current folder (ctest runs them in the build tree)
 * with scratch files named test_platform-*, removed before and after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#endif

/* A name outside ASCII: the Windows layer must carry UTF-8 through UTF-16. */
#define PLAIN_FILE "test_platform-plain.bin"
#define UNICODE_FILE "test_platform-\xc3\xa9t\xc3\xa9-\xe2\x82\xac.bin"
#define MISSING_FILE "test_platform-no-such-file"
#define FILE_SIZE 10000u

/* --- helpers that need the OS itself (the layer under test can't write) -- */

#ifdef _WIN32
static wchar_t *test_widen(const char *utf8) {
  int units = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
  wchar_t *wide = malloc((size_t)units * sizeof *wide);
  assert_non_null(wide);
  MultiByteToWideChar(CP_UTF8, 0, utf8, -1, wide, units);
  return wide;
}
#endif

/* fopen takes the ANSI code page on Windows, not UTF-8. */
static FILE *test_fopen(const char *utf8_path, const char *mode) {
#ifdef _WIN32
  wchar_t *path = test_widen(utf8_path);
  wchar_t *wide_mode = test_widen(mode);
  FILE *f = _wfopen(path, wide_mode);
  free(path);
  free(wide_mode);
  return f;
#else
  return fopen(utf8_path, mode);
#endif
}

static void test_remove(const char *utf8_path) {
#ifdef _WIN32
  wchar_t *path = test_widen(utf8_path);
  _wremove(path);
  free(path);
#else
  remove(utf8_path);
#endif
}

/* Set (value != NULL) or delete a variable where cl_os_getenv looks: the
 * process environment block on Windows, environ elsewhere. */
static void test_set_env(const char *name, const char *value) {
#ifdef _WIN32
  wchar_t *wide_name = test_widen(name);
  wchar_t *wide_value = value ? test_widen(value) : NULL;
  assert_true(SetEnvironmentVariableW(wide_name, wide_value));
  free(wide_name);
  free(wide_value);
#else
  if (value)
    assert_int_equal(setenv(name, value, 1), 0);
  else
    assert_int_equal(unsetenv(name), 0);
#endif
}

/* Byte i of the scratch files: not periodic in any power of two, so a read
 * at the wrong offset shows. */
static unsigned char pattern_byte(uint64_t i) {
  return (unsigned char)((i * 7u + i / 251u) & 0xFFu);
}

static void write_pattern_file(const char *path) {
  FILE *f = test_fopen(path, "wb");
  assert_non_null(f);
  for (uint64_t i = 0; i < FILE_SIZE; ++i)
    assert_int_not_equal(fputc(pattern_byte(i), f), EOF);
  assert_int_equal(fclose(f), 0);
}

static int setup_files(void **state) {
  (void)state;
  test_remove(PLAIN_FILE);
  test_remove(UNICODE_FILE);
  write_pattern_file(PLAIN_FILE);
  write_pattern_file(UNICODE_FILE);
  return 0;
}

static int teardown_files(void **state) {
  (void)state;
  test_remove(PLAIN_FILE);
  test_remove(UNICODE_FILE);
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* --- stat ---------------------------------------------------------------- */

static void stat_kinds(void **state) {
  (void)state;
  uint64_t size = 0;
  assert_int_equal(cl_os_stat_kind(PLAIN_FILE, &size), CL_KIND_REGULAR);
  assert_int_equal(size, FILE_SIZE);
  size = 0;
  assert_int_equal(cl_os_stat_kind(UNICODE_FILE, &size), CL_KIND_REGULAR);
  assert_int_equal(size, FILE_SIZE);
  assert_int_equal(cl_os_stat_kind(".", NULL), CL_KIND_DIRECTORY);
  assert_int_equal(cl_os_stat_kind(MISSING_FILE, NULL), CL_KIND_MISSING);
  assert_int_equal(cl_os_stat_kind("", NULL), CL_KIND_MISSING);

  assert_int_equal(cl_os_lstat_kind(PLAIN_FILE), CL_KIND_REGULAR);
  assert_int_equal(cl_os_lstat_kind(UNICODE_FILE), CL_KIND_REGULAR);
  assert_int_equal(cl_os_lstat_kind("."), CL_KIND_DIRECTORY);
  assert_int_equal(cl_os_lstat_kind(MISSING_FILE), CL_KIND_MISSING);
}

/* --- directory listing --------------------------------------------------- */

typedef struct listing {
  int saw_plain;
  int saw_unicode;
  int saw_dot_entries;
  cl_file_kind plain_kind;
  size_t count;
  size_t stop_after; /* 0: never stop */
} listing;

static int record_entry(const char *name, cl_file_kind kind, void *opaque) {
  listing *seen = opaque;
  seen->count++;
  if (strcmp(name, PLAIN_FILE) == 0) {
    seen->saw_plain = 1;
    seen->plain_kind = kind;
  }
  if (strcmp(name, UNICODE_FILE) == 0)
    seen->saw_unicode = 1;
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    seen->saw_dot_entries = 1;
  return seen->stop_after && seen->count >= seen->stop_after;
}

static void list_dir_finds_files(void **state) {
  (void)state;
  listing seen = {0};
  assert_int_equal(cl_os_list_dir(".", record_entry, &seen), CUDALOAD_OK);
  assert_true(seen.saw_plain);
  assert_true(seen.saw_unicode);
  assert_false(seen.saw_dot_entries);
  assert_true(seen.count >= 2);
  /* The listing's own kind, or "ask lstat" where the file system does not
   * say; never a wrong kind. */
  assert_true(seen.plain_kind == CL_KIND_REGULAR ||
              seen.plain_kind == CL_KIND_UNKNOWN);
}

static void check_listable(void **state) {
  (void)state;
  assert_int_equal(cl_os_dir_check_listable("."), CUDALOAD_OK);
  assert_int_equal(cl_os_dir_check_listable(MISSING_FILE),
                   CUDALOAD_E_NOT_FOUND);
  assert_non_null(strstr(cudaload_last_error(), MISSING_FILE));
  assert_int_not_equal(cl_os_dir_check_listable(PLAIN_FILE), CUDALOAD_OK);
}

static void list_dir_stops_when_asked(void **state) {
  (void)state;
  listing seen = {0};
  seen.stop_after = 1;
  assert_int_equal(cl_os_list_dir(".", record_entry, &seen), CUDALOAD_OK);
  assert_int_equal(seen.count, 1);
}

static void list_dir_missing(void **state) {
  (void)state;
  listing seen = {0};
  assert_int_equal(cl_os_list_dir(MISSING_FILE, record_entry, &seen),
                   CUDALOAD_E_NOT_FOUND);
  assert_int_equal(seen.count, 0);
  assert_non_null(strstr(cudaload_last_error(), MISSING_FILE));
}

static void list_dir_of_a_file(void **state) {
  (void)state;
  listing seen = {0};
  assert_int_not_equal(cl_os_list_dir(PLAIN_FILE, record_entry, &seen),
                       CUDALOAD_OK);
  assert_int_equal(seen.count, 0);
}

/* --- real path ----------------------------------------------------------- */

static void real_path_is_absolute_and_stable(void **state) {
  (void)state;
  char *real = cl_os_real_path(UNICODE_FILE);
  assert_non_null(real);
  assert_true(cl_os_path_is_absolute(real));
  assert_true(ends_with(real, UNICODE_FILE));
  assert_int_equal(cl_os_stat_kind(real, NULL), CL_KIND_REGULAR);
  /* Canonical: resolving it again changes nothing. */
  char *again = cl_os_real_path(real);
  assert_non_null(again);
  assert_string_equal(real, again);
  free(again);
  free(real);

  char *dir = cl_os_real_path(".");
  assert_non_null(dir);
  assert_true(cl_os_path_is_absolute(dir));
  assert_int_equal(cl_os_stat_kind(dir, NULL), CL_KIND_DIRECTORY);
  free(dir);
}

#ifndef _WIN32
/* Links in the folder part and in the file itself resolve to the file's own
 * name, as realpath(3) gives it; a FIFO resolves without being opened (an
 * open of a FIFO with no writer would block). */
static void real_path_resolves_links(void **state) {
  (void)state;
  (void)system("rm -rf test_platform-rp && mkdir -p test_platform-rp/target "
               "&& : > test_platform-rp/target/lib.so.1 "
               "&& ln -s target test_platform-rp/link "
               "&& ln -s lib.so.1 test_platform-rp/target/alias.so "
               "&& mkfifo test_platform-rp/target/fifo.so");
  char *expected = realpath("test_platform-rp/target/lib.so.1", NULL);
  assert_non_null(expected);
  char *via_folder = cl_os_real_path("test_platform-rp/link/lib.so.1");
  char *via_file = cl_os_real_path("test_platform-rp/link/alias.so");
  assert_non_null(via_folder);
  assert_non_null(via_file);
  assert_string_equal(via_folder, expected);
  assert_string_equal(via_file, expected);
  char *fifo = cl_os_real_path("test_platform-rp/link/fifo.so");
  assert_non_null(fifo);
  assert_true(ends_with(fifo, "/target/fifo.so"));
  assert_null(cl_os_real_path("test_platform-rp/link/missing.so"));
  assert_non_null(strstr(cudaload_last_error(), "missing.so"));
  free(expected);
  free(via_folder);
  free(via_file);
  free(fifo);
  (void)system("rm -rf test_platform-rp");
}
#endif

static void real_path_missing(void **state) {
  (void)state;
  assert_null(cl_os_real_path(MISSING_FILE));
  assert_non_null(strstr(cudaload_last_error(), MISSING_FILE));
}

/* A path far over Windows' MAX_PATH (260), made of "." steps so that no
 * folder has to be created: the Windows layer must switch to the \\?\ form
 * and still clean the path up. */
static char *long_path_to(const char *name) {
  char *dir = cl_os_real_path(".");
  assert_non_null(dir);
  size_t steps = 200;
  size_t len = strlen(dir) + steps * 2 + 1 + strlen(name) + 1;
  char *path = malloc(len);
  assert_non_null(path);
  char *p = path + strlen(dir);
  memcpy(path, dir, strlen(dir));
  for (size_t i = 0; i < steps; ++i) {
    *p++ = CL_DIR_SEP;
    *p++ = '.';
  }
  *p++ = CL_DIR_SEP;
  memcpy(p, name, strlen(name) + 1);
  free(dir);
  return path;
}

static void long_absolute_paths(void **state) {
  (void)state;
  char *path = long_path_to(UNICODE_FILE);
  assert_true(strlen(path) > 400);
  uint64_t size = 0;
  assert_int_equal(cl_os_stat_kind(path, &size), CL_KIND_REGULAR);
  assert_int_equal(size, FILE_SIZE);
  assert_int_equal(cl_os_lstat_kind(path), CL_KIND_REGULAR);

  cl_file *f = NULL;
  assert_int_equal(cl_os_file_open(path, &f, NULL), CUDALOAD_OK);
  unsigned char byte = 0;
  assert_int_equal(cl_os_file_read_at(f, 1234, &byte, 1), CUDALOAD_OK);
  assert_int_equal(byte, pattern_byte(1234));
  cl_os_file_close(f);

  char *real = cl_os_real_path(path);
  char *expected = cl_os_real_path(UNICODE_FILE);
  assert_non_null(real);
  assert_non_null(expected);
  assert_string_equal(real, expected);
  free(real);
  free(expected);
  free(path);

  char *dir = long_path_to(".");
  listing seen = {0};
  assert_int_equal(cl_os_list_dir(dir, record_entry, &seen), CUDALOAD_OK);
  assert_true(seen.saw_unicode);
  free(dir);
}

/* --- files --------------------------------------------------------------- */

static void file_reads_at_offsets(void **state) {
  (void)state;
  cl_file *f = NULL;
  uint64_t size = 0;
  assert_int_equal(cl_os_file_open(UNICODE_FILE, &f, &size), CUDALOAD_OK);
  assert_non_null(f);
  assert_int_equal(size, FILE_SIZE);

  unsigned char buf[300];
  const uint64_t offsets[] = {0, 1, 4095, 4096, FILE_SIZE - sizeof buf};
  for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; ++k) {
    memset(buf, 0, sizeof buf);
    assert_int_equal(cl_os_file_read_at(f, offsets[k], buf, sizeof buf),
                     CUDALOAD_OK);
    for (size_t i = 0; i < sizeof buf; ++i)
      assert_int_equal(buf[i], pattern_byte(offsets[k] + i));
  }
  /* Nothing at the very end is fine; one byte past it is not. */
  assert_int_equal(cl_os_file_read_at(f, FILE_SIZE, buf, 0), CUDALOAD_OK);
  assert_int_equal(cl_os_file_read_at(f, FILE_SIZE - 10, buf, 11),
                   CUDALOAD_E_MALFORMED);
  assert_int_equal(cl_os_file_read_at(f, FILE_SIZE + 1, buf, 0),
                   CUDALOAD_E_MALFORMED);
  assert_int_equal(cl_os_file_read_at(f, UINT64_MAX, buf, 1),
                   CUDALOAD_E_MALFORMED);
  cl_os_file_close(f);
  cl_os_file_close(NULL);
}

static void file_open_refuses_a_directory(void **state) {
  (void)state;
  cl_file *f = (cl_file *)&f; /* must be reset to NULL */
  assert_int_equal(cl_os_file_open(".", &f, NULL), CUDALOAD_E_NOT_A_FILE);
  assert_null(f);
  assert_non_null(strstr(cudaload_last_error(), "directory"));
}

static void file_open_missing(void **state) {
  (void)state;
  cl_file *f = NULL;
  assert_int_equal(cl_os_file_open(MISSING_FILE, &f, NULL),
                   CUDALOAD_E_NOT_FOUND);
  assert_null(f);
  /* "<path>: <OS text>" */
  const char *message = cudaload_last_error();
  assert_non_null(strstr(message, MISSING_FILE ": "));
  assert_true(strlen(message) > strlen(MISSING_FILE ": "));
  assert_null(strchr(message, '\n'));
  assert_null(strchr(message, '\r'));
}

/* --- answer forms -------------------------------------------------------- */

static int keep_every_name(const char *name, const void *arg) {
  (void)name;
  (void)arg;
  return 1;
}

/* A lookup whose "no" is an answer (an optional file, a folder that may be
 * missing) asks the `_quiet` form: the same status as the failing form, the
 * reason in a cl_os_no, and the caller's last error untouched. */
static void answer_forms_write_no_error(void **state) {
  (void)state;
  cl_fail(CUDALOAD_E_IO, "the caller's own error");
  cl_os_no no;
  memset(&no, 0, sizeof no);
  cl_file *f = (cl_file *)&f; /* must be reset to NULL */
  assert_int_equal(cl_os_file_open_quiet(MISSING_FILE, &f, NULL, &no),
                   CUDALOAD_E_NOT_FOUND);
  assert_null(f);
  assert_true(no.from_os);
  assert_int_equal(no.status, CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cl_os_file_open_quiet(".", &f, NULL, &no),
                   CUDALOAD_E_NOT_A_FILE);
  assert_string_equal(no.what, "not a regular file (a directory)");
  assert_false(no.from_os);
  assert_null(cl_os_real_path_quiet(MISSING_FILE, &no));
  assert_int_equal(no.status, CUDALOAD_E_NOT_FOUND);
  assert_null(cl_os_real_path_quiet(MISSING_FILE, NULL));
  listing seen = {0};
  assert_int_equal(cl_os_list_dir_quiet(MISSING_FILE, record_entry, &seen, &no),
                   CUDALOAD_E_NOT_FOUND);
  assert_int_equal(seen.count, 0);
  assert_int_equal(cl_os_dir_check_listable_quiet(MISSING_FILE, &no),
                   CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cl_os_dir_check_listable_quiet(".", NULL), CUDALOAD_OK);
  uint64_t size = 0;
  assert_int_equal(cl_os_file_open_quiet(PLAIN_FILE, &f, &size, NULL),
                   CUDALOAD_OK);
  unsigned char buf[16];
  assert_int_equal(cl_os_file_read_at_quiet(f, size, buf, 1, &no),
                   CUDALOAD_E_MALFORMED);
  size_t got = 0;
  assert_int_equal(
      cl_os_file_read_upto_quiet(f, 0, buf, sizeof buf, &got, NULL),
      CUDALOAD_OK);
  assert_int_equal(got, sizeof buf);
  cl_os_file_close(f);
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(cl_read_file_head_quiet(MISSING_FILE, 64, &text, &len),
                   CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cl_read_file_head_quiet(".", 64, &text, &len),
                   CUDALOAD_E_NOT_A_FILE);
  assert_null(text);
  cl_name_list names;
  assert_int_equal(
      cl_name_list_read(MISSING_FILE, keep_every_name, NULL, NULL, &names),
      CUDALOAD_OK);
  assert_int_equal(names.count, 0);
  cl_name_list_free(&names);
  assert_string_equal(cudaload_last_error(), "the caller's own error");
}

/* The failing forms are the answer forms plus the words they always had. */
static void failing_forms_keep_their_words(void **state) {
  (void)state;
  cl_file *f = NULL;
  assert_int_equal(cl_os_file_open(".", &f, NULL), CUDALOAD_E_NOT_A_FILE);
  assert_string_equal(cudaload_last_error(),
                      ".: not a regular file (a directory)");
  char *text = NULL;
  size_t len = 0;
  cl_clear_error();
  assert_int_equal(cl_read_file_head(".", 64, &text, &len),
                   CUDALOAD_E_NOT_A_FILE);
  assert_string_equal(cudaload_last_error(),
                      ".: not a regular file (a directory)");
  cl_clear_error();
  assert_int_equal(cl_read_file_head(MISSING_FILE, 64, &text, &len),
                   CUDALOAD_E_NOT_FOUND);
  assert_non_null(strstr(cudaload_last_error(), MISSING_FILE ": "));
  cl_clear_error();
  assert_null(cl_os_real_path(MISSING_FILE));
  assert_non_null(strstr(cudaload_last_error(), MISSING_FILE ": "));
  uint64_t size = 0;
  assert_int_equal(cl_os_file_open(PLAIN_FILE, &f, &size), CUDALOAD_OK);
  unsigned char buf[2];
  assert_int_equal(cl_os_file_read_at(f, size - 1, buf, 2),
                   CUDALOAD_E_MALFORMED);
  assert_string_equal(cudaload_last_error(),
                      "read of 2 bytes at offset 9999 passes the end of the "
                      "file (size 10000)");
  cl_os_file_close(f);
}

/* --- paths --------------------------------------------------------------- */

static void path_is_absolute(void **state) {
  (void)state;
  assert_false(cl_os_path_is_absolute(NULL));
  assert_false(cl_os_path_is_absolute(""));
  assert_false(cl_os_path_is_absolute("relative"));
  assert_false(cl_os_path_is_absolute("relative/sub"));
  assert_false(cl_os_path_is_absolute("./x"));
  if (CL_DIR_SEP == '\\') {
    assert_true(cl_os_path_is_absolute("C:\\x"));
    assert_true(cl_os_path_is_absolute("c:/x"));
    assert_true(cl_os_path_is_absolute("C:\\"));
    assert_true(cl_os_path_is_absolute("\\\\server\\share"));
    assert_true(cl_os_path_is_absolute("\\\\?\\C:\\x"));
    assert_false(cl_os_path_is_absolute("C:x")); /* drive-relative */
    assert_false(cl_os_path_is_absolute("\\x")); /* relative to the drive */
    assert_false(cl_os_path_is_absolute("1:\\x"));
  } else {
    assert_true(cl_os_path_is_absolute("/"));
    assert_true(cl_os_path_is_absolute("/usr/lib"));
    assert_false(cl_os_path_is_absolute("C:\\x"));
  }
}

static void fixture_path_is_host_form(void **state) {
  (void)state;
  const char *path = test_fixture_path("a/b.so");
  char expected_tail[8];
  snprintf(expected_tail, sizeof expected_tail, "a%cb.so", CL_DIR_SEP);
  assert_true(ends_with(path, expected_tail));
  if (CUDALOAD_FIXTURES_DIR[0]) {
    assert_true(cl_os_path_is_absolute(path));
    assert_true(cl_os_path_is_absolute(test_fixture_path("")));
  }
  /* The ring keeps earlier results intact. */
  const char *first = test_fixture_path("one");
  const char *second = test_fixture_path("two");
  assert_true(ends_with(first, "one"));
  assert_true(ends_with(second, "two"));
}

/* --- environment --------------------------------------------------------- */

static void getenv_reads_values(void **state) {
  (void)state;
  test_set_env("CLTEST_PLATFORM_VALUE", "caf\xc3\xa9 \xe2\x82\xac");
  char *value = cl_os_getenv("CLTEST_PLATFORM_VALUE");
  assert_non_null(value);
  assert_string_equal(value, "caf\xc3\xa9 \xe2\x82\xac");
  free(value);

  test_set_env("CLTEST_PLATFORM_VALUE", NULL);
  assert_null(cl_os_getenv("CLTEST_PLATFORM_VALUE"));
  assert_null(cl_os_getenv("CLTEST_PLATFORM_NEVER_SET"));
}

typedef struct env_seen {
  int alpha;
  int beta;
  int others;
} env_seen;

static void record_env(const char *name, const char *value, void *opaque) {
  env_seen *seen = opaque;
  if (strcmp(name, "CLTEST_PREFIX_ALPHA") == 0 && strcmp(value, "1") == 0)
    seen->alpha++;
  else if (strcmp(name, "CLTEST_PREFIX_BETA") == 0 &&
           strcmp(value, "b\xc3\xa9ta") == 0)
    seen->beta++;
  else
    seen->others++;
}

static void env_each_with_prefix(void **state) {
  (void)state;
  test_set_env("CLTEST_PREFIX_ALPHA", "1");
  test_set_env("CLTEST_PREFIX_BETA", "b\xc3\xa9ta");
  test_set_env("CLTEST_PREFIXED_NOT", "0"); /* shares only "CLTEST_PREFIX" */
  env_seen seen = {0};
  cl_os_env_each_with_prefix("CLTEST_PREFIX_", record_env, &seen);
  assert_int_equal(seen.alpha, 1);
  assert_int_equal(seen.beta, 1);
  assert_int_equal(seen.others, 0);
  test_set_env("CLTEST_PREFIX_ALPHA", NULL);
  test_set_env("CLTEST_PREFIX_BETA", NULL);
  test_set_env("CLTEST_PREFIXED_NOT", NULL);
}

static void home_dir_when_set(void **state) {
  (void)state;
  char *home = cl_os_home_dir();
  /* CI may run with no HOME; when there is one it is a real path. */
  if (home) {
    assert_true(home[0] != '\0');
    assert_true(cl_os_path_is_absolute(home));
  }
  free(home);
}

static void os_error_text_is_one_line(void **state) {
  (void)state;
  char text[256];
  memset(text, 'x', sizeof text);
  cl_os_error_text(2, text, sizeof text); /* ENOENT / ERROR_FILE_NOT_FOUND */
  assert_true(strlen(text) > 0);
  assert_true(strlen(text) < sizeof text);
  assert_null(strchr(text, '\n'));
  assert_null(strchr(text, '\r'));
  /* A tiny buffer still gets a terminated string. */
  char tiny[4];
  cl_os_error_text(2, tiny, sizeof tiny);
  assert_true(strlen(tiny) < sizeof tiny);
#ifdef _WIN32
  /* 193's text names its subject with an insert ("%1 is not a valid Win32
   * application"): none is left in what a user reads. */
  cl_os_error_text(193, text, sizeof text);
  print_message("193: %s\n", text);
  assert_null(strstr(text, "%1"));
  assert_non_null(strstr(text, "Windows error 193"));
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stat_kinds),
      cmocka_unit_test(list_dir_finds_files),
      cmocka_unit_test(list_dir_stops_when_asked),
      cmocka_unit_test(check_listable),
      cmocka_unit_test(list_dir_missing),
      cmocka_unit_test(list_dir_of_a_file),
      cmocka_unit_test(real_path_is_absolute_and_stable),
      cmocka_unit_test(real_path_missing),
#ifndef _WIN32
      cmocka_unit_test(real_path_resolves_links),
#endif
      cmocka_unit_test(long_absolute_paths),
      cmocka_unit_test(file_reads_at_offsets),
      cmocka_unit_test(file_open_refuses_a_directory),
      cmocka_unit_test(file_open_missing),
      cmocka_unit_test(answer_forms_write_no_error),
      cmocka_unit_test(failing_forms_keep_their_words),
      cmocka_unit_test(path_is_absolute),
      cmocka_unit_test(fixture_path_is_host_form),
      cmocka_unit_test(getenv_reads_values),
      cmocka_unit_test(env_each_with_prefix),
      cmocka_unit_test(home_dir_when_set),
      cmocka_unit_test(os_error_text_is_one_line),
  };
  return cmocka_run_group_tests(tests, setup_files, teardown_files);
}
