/* SPDX-License-Identifier: MIT */
/*
 * test_hostile.c - scans over hostile folders: FIFOs, folders, dangling
 * links and link loops named like libraries, a 10 GB sparse "DLL", a
 * truncated "DLL". Each scan must finish, report what is real, and never
 * block or read a file whole. (File-level hostile inputs for the ELF and PE
 * readers are in test_elf.c / test_pe.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char tree[256];

static void make_path(char *out, size_t len, const char *name) {
  snprintf(out, len, "%s/%s", tree, name);
}

static void write_file(const char *name, const char *content) {
  char path[512];
  make_path(path, sizeof path, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(content, f);
  fclose(f);
}

static int setup_tree(void **state) {
  (void)state;
  snprintf(tree, sizeof tree, "/tmp/cudaload-hostile-XXXXXX");
  if (!mkdtemp(tree))
    return -1;
  char path[512];
  make_path(path, sizeof path, "libcudnn.so.9");
  if (mkfifo(path, 0600) != 0) /* a FIFO named like a library */
    return -1;
  make_path(path, sizeof path, "libcublas.so.12");
  mkdir(path, 0700); /* a folder named like a library */
  make_path(path, sizeof path, "libcudart.so.12");
  if (symlink("does-not-exist.so", path) != 0) /* dangling */
    return -1;
  make_path(path, sizeof path, "libnvrtc.so.12");
  if (symlink("libnvrtc.so.12", path) != 0) /* a loop onto itself */
    return -1;
  make_path(path, sizeof path, "libcufft.so.11");
  if (symlink("libcurand.so.10", path) != 0) /* two-link cycle */
    return -1;
  make_path(path, sizeof path, "libcurand.so.10");
  if (symlink("libcufft.so.11", path) != 0)
    return -1;
  make_path(path, sizeof path, "cudnn64_9.dll");
  if (mkfifo(path, 0600) != 0) /* would block a blocking open */
    return -1;
  /* A 10 GB sparse file: the PE reader must read headers, not the file. */
  make_path(path, sizeof path, "cublas64_12.dll");
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd < 0 || write(fd, "MZ", 2) != 2 ||
      ftruncate(fd, (off_t)10 * 1024 * 1024 * 1024) != 0)
    return -1;
  close(fd);
  write_file("cudart64_12.dll", "MZ truncated");
  write_file("libcusolver.so.11", "not an ELF file, but named like one");
  return 0;
}

static int remove_tree(void **state) {
  (void)state;
  static const char *const names[] = {
      "libcudnn.so.9",   "libcudart.so.12", "libnvrtc.so.12",
      "libcufft.so.11",  "libcurand.so.10", "cudnn64_9.dll",
      "cublas64_12.dll", "cudart64_12.dll", "libcusolver.so.11"};
  char path[512];
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    make_path(path, sizeof path, names[i]);
    unlink(path);
  }
  make_path(path, sizeof path, "libcublas.so.12");
  rmdir(path);
  rmdir(tree);
  return 0;
}

static const char *find_library(cudaload_ctx *ctx, const char *name) {
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    if (strcmp(cudaload_library_name(ctx, i), name) == 0)
      return cudaload_library_path(ctx, i);
  return NULL;
}

static void linux_scan_skips_what_is_not_a_file(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_add_root(ctx, tree), CUDALOAD_OK);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_LINUX),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  /* Only the regular file is real; the scan does not judge its contents. */
  assert_int_equal(cudaload_library_count(ctx), 1);
  assert_string_equal(cudaload_library_name(ctx, 0), "cusolver");
  assert_null(find_library(ctx, "cudnn"));
  assert_null(find_library(ctx, "cublas"));
  assert_null(find_library(ctx, "cudart"));
  assert_null(find_library(ctx, "nvrtc"));
  cudaload_destroy(ctx);
}

static void windows_scan_reads_headers_only_and_never_blocks(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_add_root(ctx, tree), CUDALOAD_OK);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS),
                   CUDALOAD_OK);
  /* Returns at all: the FIFO named cudnn64_9.dll is not opened blocking. */
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_null(find_library(ctx, "cudnn"));
  /* Malformed DLLs are still listed (they are files with the right name),
   * with no version. */
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i) {
    assert_string_equal(cudaload_library_version_source(ctx, i), "none");
    assert_string_equal(cudaload_library_version(ctx, i), "");
  }
  assert_non_null(find_library(ctx, "cublas"));
  assert_non_null(find_library(ctx, "cudart"));
  assert_int_equal(cudaload_library_count(ctx), 2);
  cudaload_destroy(ctx);
}

static void inspect_refuses_fifo_without_blocking(void **state) {
  (void)state;
  char path[512];
  make_path(path, sizeof path, "libcudnn.so.9");
  cudaload_file *f = (cudaload_file *)1;
  assert_int_equal(cudaload_inspect(path, &f), CUDALOAD_E_NOT_A_FILE);
  assert_null(f);
  assert_non_null(strstr(cudaload_last_error(), path));
  make_path(path, sizeof path, "cublas64_12.dll");
  assert_int_equal(cudaload_inspect(path, &f), CUDALOAD_E_MALFORMED);
  assert_non_null(strstr(cudaload_last_error(), path));
}

static void root_that_is_a_file_or_missing_is_reported(void **state) {
  (void)state;
  char file_root[512], missing[512];
  make_path(file_root, sizeof file_root, "libcusolver.so.11");
  make_path(missing, sizeof missing, "no/such/folder");
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_add_root(ctx, file_root), CUDALOAD_OK);
  assert_int_equal(cudaload_add_root(ctx, missing), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(cudaload_root_count(ctx), 2);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_NOT_A_FILE);
  assert_int_equal(cudaload_root_status(ctx, 1), CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cudaload_library_count(ctx), 0);
  cudaload_destroy(ctx);
}

static void very_long_root_is_handled(void **state) {
  (void)state;
  size_t len = 4096 + 64;
  char *root = malloc(len + 1);
  assert_non_null(root);
  root[0] = '/';
  for (size_t i = 1; i < len; ++i)
    root[i] = (i % 200 == 0) ? '/' : 'a';
  root[len] = '\0';
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_not_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  cudaload_destroy(ctx);
  free(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(linux_scan_skips_what_is_not_a_file),
      cmocka_unit_test(windows_scan_reads_headers_only_and_never_blocks),
      cmocka_unit_test(inspect_refuses_fifo_without_blocking),
      cmocka_unit_test(root_that_is_a_file_or_missing_is_reported),
      cmocka_unit_test(very_long_root_is_handled),
  };
  return cmocka_run_group_tests(tests, setup_tree, remove_tree);
}
#else
static void posix_only(void **state) {
  (void)state;
  print_message("skipped: FIFOs and symlink loops are POSIX fixtures\n");
  skip();
}
int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(posix_only)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
