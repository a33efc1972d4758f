/* SPDX-License-Identifier: MIT */
/*
 * test_inspect.c - the public file inspection API on real files of the host
 * (skipped with a printed reason when absent) and on things that are not
 * libraries: a folder, a FIFO, a device, a missing file, an empty file, a
 * text file and a truncated ELF file. Every failure must leave a last error
 * that names the path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "cudaload.h"

static void assert_error_contains(const char *needle) {
  const char *text = cudaload_last_error();
  if (strstr(text, needle) == NULL) {
    fail_msg("last error \"%s\" lacks \"%s\"", text, needle);
  }
}

/* Inspects path, or skips the test with a visible reason when it is not
 * there. */
static cudaload_file *inspect_or_skip(const char *path) {
  cudaload_file *file = NULL;
  int status = cudaload_inspect(path, &file);
  if (status == CUDALOAD_E_NOT_FOUND) {
    printf("SKIP: %s is not on this machine\n", path);
    skip();
  }
  if (status != CUDALOAD_OK) {
    fail_msg("cudaload_inspect(%s) = %d: %s", path, status,
             cudaload_last_error());
  }
  assert_non_null(file);
  return file;
}

static int needs(const cudaload_file *file, const char *name) {
  size_t i;
  for (i = 0; i < cudaload_file_needed_count(file); i++) {
    if (strcmp(cudaload_file_needed(file, i), name) == 0) {
      return 1;
    }
  }
  return 0;
}

/* Writes a file in the working folder (portable: no temp-folder API). */
static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  if (len > 0) {
    assert_int_equal(fwrite(data, 1, len, f), len);
  }
  assert_int_equal(fclose(f), 0);
}

static void test_bin_ls(void **state) {
  cudaload_file *file;
  (void)state;
  file = inspect_or_skip("/bin/ls");
  assert_string_equal(cudaload_file_format(file), "elf");
  assert_true(cudaload_file_bits(file) == 32 || cudaload_file_bits(file) == 64);
  assert_true(strlen(cudaload_file_machine(file)) > 0);
  assert_true(needs(file, "libc.so.6"));
  assert_null(cudaload_file_needed(file, cudaload_file_needed_count(file)));
  assert_string_equal(cudaload_file_version(file), "");
  cudaload_file_close(file);
}

static void test_libc_soname(void **state) {
  static const char *candidates[] = {"/lib/x86_64-linux-gnu/libc.so.6",
                                     "/lib/aarch64-linux-gnu/libc.so.6",
                                     "/lib/powerpc64le-linux-gnu/libc.so.6",
                                     "/lib64/libc.so.6",
                                     "/usr/lib64/libc.so.6",
                                     "/lib/libc.so.6"};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    cudaload_file *file = NULL;
    int status = cudaload_inspect(candidates[i], &file);
    if (status == CUDALOAD_E_NOT_FOUND) {
      continue;
    }
    if (status != CUDALOAD_OK) {
      fail_msg("%s: %s", candidates[i], cudaload_last_error());
    }
    printf("%s: %s %d-bit, SONAME %s\n", candidates[i],
           cudaload_file_machine(file), cudaload_file_bits(file),
           cudaload_file_soname(file));
    assert_string_equal(cudaload_file_soname(file), "libc.so.6");
    assert_string_equal(cudaload_file_format(file), "elf");
    cudaload_file_close(file);
    return;
  }
  printf("SKIP: no libc.so.6 in the usual places\n");
  skip();
}

/* The real toolkit's file "<stem>.so.N" in /usr/local/cuda/lib64, the
 * highest N, into out; NULL (the test then skips, saying so) when this
 * machine has none. Tests of it check what every release has, not this
 * machine's numbers. */
#define TOOLKIT_LIB "/usr/local/cuda/lib64"
static const char *toolkit_library(const char *stem, char *out, size_t size,
                                   int *major) {
  *major = -1;
#ifndef _WIN32
  DIR *d = opendir(TOOLKIT_LIB);
  if (!d)
    return NULL;
  size_t n = strlen(stem);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    const char *name = e->d_name;
    if (strncmp(name, stem, n) != 0 || strncmp(name + n, ".so.", 4) != 0)
      continue;
    const char *digits = name + n + 4;
    if (!*digits || strspn(digits, "0123456789") != strlen(digits))
      continue;
    int m = atoi(digits);
    if (m > *major) {
      *major = m;
      snprintf(out, size, "%s/%s", TOOLKIT_LIB, name);
    }
  }
  closedir(d);
#else
  (void)stem;
  (void)out;
  (void)size;
#endif
  return *major >= 0 ? out : NULL;
}

static cudaload_file *toolkit_or_skip(const char *stem, int *major) {
  char path[512];
  if (!toolkit_library(stem, path, sizeof path, major)) {
    printf("SKIP: no %s.so.N in " TOOLKIT_LIB " (no CUDA toolkit here)\n",
           stem);
    skip();
  }
  return inspect_or_skip(path);
}

/* The machine of this host's own programs (/bin/sh), as the reader names
 * it: a toolkit in /usr/local/cuda is built for the host. Not this test's
 * own executable: a cross-built test run under an emulator (the aarch64
 * tier's qemu-user) reads the host's x86_64 toolkit. */
static const char *host_machine(void) {
  static char machine[32];
  cudaload_file *self = inspect_or_skip("/bin/sh");
  snprintf(machine, sizeof machine, "%s", cudaload_file_machine(self));
  cudaload_file_close(self);
  return machine;
}

static void test_cublas(void **state) {
  int major;
  char name[64];
  (void)state;
  cudaload_file *file = toolkit_or_skip("libcublas", &major);
  assert_string_equal(cudaload_file_format(file), "elf");
  assert_string_equal(cudaload_file_machine(file), host_machine());
  assert_int_equal(cudaload_file_bits(file), 64);
  snprintf(name, sizeof name, "libcublas.so.%d", major);
  assert_string_equal(cudaload_file_soname(file), name);
  snprintf(name, sizeof name, "libcublasLt.so.%d", major);
  assert_true(needs(file, name));
  assert_non_null(strstr(cudaload_file_runpath(file), "$ORIGIN"));
  cudaload_file_close(file);
}

static void test_cudnn(void **state) {
  int major;
  char name[64];
  (void)state;
  cudaload_file *file = toolkit_or_skip("libcudnn", &major);
  snprintf(name, sizeof name, "libcudnn.so.%d", major);
  assert_string_equal(cudaload_file_soname(file), name);
  assert_string_equal(cudaload_file_rpath(file), "");
  /* cuDNN 9 finds its sub-libraries through RUNPATH $ORIGIN; some cuDNN 8
   * builds have none (docs/real-libraries.md). */
  if (major >= 9)
    assert_string_equal(cudaload_file_runpath(file), "$ORIGIN");
  cudaload_file_close(file);
}

static void test_directory(void **state) {
  cudaload_file *file = (cudaload_file *)&file;
  (void)state;
  assert_int_equal(cudaload_inspect(".", &file), CUDALOAD_E_NOT_A_FILE);
  assert_null(file);
  assert_error_contains(".");
  assert_error_contains("not a regular file");
}

static void test_missing_file(void **state) {
  static const char path[] = "cudaload-no-such-library.so.1";
  cudaload_file *file = NULL;
  (void)state;
  assert_int_equal(cudaload_inspect(path, &file), CUDALOAD_E_NOT_FOUND);
  assert_null(file);
  assert_error_contains(path);
}

static void test_empty_and_text_files(void **state) {
  static const char empty[] = "cudaload-test-inspect-empty.so";
  static const char text[] = "cudaload-test-inspect-text.so";
  static const char script[] = "/* GNU ld script */\nGROUP ( libc.so.6 )\n";
  cudaload_file *file = NULL;
  int status;
  (void)state;

  write_file(empty, "", 0);
  status = cudaload_inspect(empty, &file);
  assert_true(status == CUDALOAD_E_UNSUPPORTED ||
              status == CUDALOAD_E_MALFORMED);
  assert_null(file);
  assert_error_contains(empty);
  remove(empty);

  write_file(text, script, sizeof script - 1);
  status = cudaload_inspect(text, &file);
  assert_true(status == CUDALOAD_E_UNSUPPORTED ||
              status == CUDALOAD_E_MALFORMED);
  assert_null(file);
  assert_error_contains(text);
  remove(text);
}

static void test_truncated_elf_file(void **state) {
  static const char path[] = "cudaload-test-inspect-truncated.so";
  unsigned char header[64];
  cudaload_file *file = NULL;
  (void)state;
  /* An ELF64 header whose program headers lie past the end of the file. */
  memset(header, 0, sizeof header);
  memcpy(header,
         "\x7f"
         "ELF\x02\x01\x01",
         7);
  header[18] = 62;          /* EM_X86_64 */
  header[32] = 0x40;        /* e_phoff */
  header[0x20 + 0x16] = 56; /* e_phentsize */
  header[0x20 + 0x18] = 4;  /* e_phnum */
  write_file(path, header, sizeof header);
  assert_int_equal(cudaload_inspect(path, &file), CUDALOAD_E_MALFORMED);
  assert_null(file);
  assert_error_contains(path);
  assert_error_contains("malformed ELF");
  assert_error_contains("program header");
  printf("%s\n", cudaload_last_error());
  remove(path);
}

static void test_null_arguments(void **state) {
  cudaload_file *file = NULL;
  (void)state;
  assert_int_equal(cudaload_inspect(NULL, &file), CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_inspect("", &file), CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_inspect("/bin/ls", NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  cudaload_file_close(NULL);
  assert_string_equal(cudaload_file_format(NULL), "");
  assert_string_equal(cudaload_file_machine(NULL), "");
  assert_int_equal(cudaload_file_bits(NULL), 0);
  assert_string_equal(cudaload_file_soname(NULL), "");
  assert_int_equal(cudaload_file_needed_count(NULL), 0);
  assert_null(cudaload_file_needed(NULL, 0));
  assert_string_equal(cudaload_file_runpath(NULL), "");
  assert_string_equal(cudaload_file_rpath(NULL), "");
  assert_string_equal(cudaload_file_version(NULL), "");
}

#ifndef _WIN32
static void test_fifo_does_not_block(void **state) {
  char dir[] = "/tmp/cudaload-inspect-XXXXXX";
  char fifo[64];
  cudaload_file *file = NULL;
  int status;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(fifo, sizeof fifo, "%s/libcudnn.so.9", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  /* Opening a FIFO for reading blocks until a writer comes; a watchdog
   * turns such a hang into a failure. */
  alarm(10);
  status = cudaload_inspect(fifo, &file);
  alarm(0);
  unlink(fifo);
  rmdir(dir);
  assert_int_equal(status, CUDALOAD_E_NOT_A_FILE);
  assert_null(file);
  assert_error_contains(fifo);
}

static void test_dev_null(void **state) {
  cudaload_file *file = NULL;
  (void)state;
  assert_int_equal(cudaload_inspect("/dev/null", &file), CUDALOAD_E_NOT_A_FILE);
  assert_null(file);
  assert_error_contains("/dev/null");
}
#endif

/* The report `cudaload inspect` prints is the library's: a file that was
 * read is described, one that was not is listed under "errors" with the
 * reason alone (the path has a field of its own), and the call succeeds
 * either way. */
static void test_inspect_report(void **state) {
  static const char missing[] = "cudaload-no-such-library.so.1";
  static const char ls[] = "/bin/ls";
  cudaload_file *file = inspect_or_skip(ls);
  (void)state;
  cudaload_file_close(file);
  const char *const paths[] = {ls, missing};
  char *json = NULL;
  assert_int_equal(cudaload_inspect_report(paths, 2, CUDALOAD_FORMAT_JSON,
                                           CUDALOAD_INSPECT_SYMBOLS, &json),
                   CUDALOAD_OK);
  assert_string_equal(cudaload_last_error(), "");
  assert_non_null(strstr(json, "\"path\": \"/bin/ls\""));
  assert_non_null(strstr(json, "\"format\": \"elf\""));
  assert_non_null(strstr(json, "\"symbols\": ["));
  const char *errors = strstr(json, "\"errors\"");
  assert_non_null(errors);
  assert_non_null(
      strstr(errors, "\"path\": \"cudaload-no-such-library.so.1\""));
  assert_null(strstr(errors, "\"error\": \"cudaload-no-such-library"));
  cudaload_free(json);

  char *text = NULL;
  assert_int_equal(
      cudaload_inspect_report(paths, 2, CUDALOAD_FORMAT_TEXT, 0, &text),
      CUDALOAD_OK);
  static const char head[] = "/bin/ls\n  format    elf (";
  assert_true(strncmp(text, head, sizeof head - 1) == 0);
  assert_null(strstr(text, missing));
  assert_null(strstr(text, "  export  ")); /* symbols only when asked */
  cudaload_free(text);

  assert_int_equal(cudaload_inspect_report(paths, 2, 9, 0, &text),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(text);
  assert_int_equal(
      cudaload_inspect_report(paths, 2, CUDALOAD_FORMAT_JSON, 0x80u, &text),
      CUDALOAD_E_INVALID_ARGUMENT);
  assert_error_contains("0x80");
  assert_int_equal(
      cudaload_inspect_report(NULL, 1, CUDALOAD_FORMAT_JSON, 0, &text),
      CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(
      cudaload_inspect_report(paths, 2, CUDALOAD_FORMAT_JSON, 0, NULL),
      CUDALOAD_E_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bin_ls),
      cmocka_unit_test(test_libc_soname),
      cmocka_unit_test(test_cublas),
      cmocka_unit_test(test_cudnn),
      cmocka_unit_test(test_directory),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_empty_and_text_files),
      cmocka_unit_test(test_truncated_elf_file),
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_inspect_report),
#ifndef _WIN32
      cmocka_unit_test(test_fifo_does_not_block),
      cmocka_unit_test(test_dev_null),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
