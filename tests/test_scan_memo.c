/* SPDX-License-Identifier: MIT */
/*
 * test_scan_memo.c - a second scan in the same process answers from the
 * first while every question the first asked is answered the same, and
 * scans again when anything it asked changed (issue 44, item 2;
 * scan/scan_memo.h). Real fixture files, copied into a tree of this test's
 * own and changed between two scans in this process: a library added,
 * removed, rewritten in place, made writable by others, a header rewritten
 * in place with its last write time put back, the root renamed, a variable
 * changed. The scan's calls to the seam that list a folder or open a file
 * are counted (wrapped, tests/CMakeLists.txt): a second scan that nothing
 * changed makes none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <utime.h>
#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#else
#include <pthread.h>
#include <unistd.h>
#endif

#include "cudaload.h"
#include "os/platform.h"
#include "scan/scan_memo.h"

/* --- the seam's listings and opens, counted ------------------------------ */

/* Atomic: the threads test scans from many threads at once. */
static _Atomic unsigned long listings, opens;

int __real_cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit,
                                void *opaque, cl_os_no *no);
int __wrap_cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit,
                                void *opaque, cl_os_no *no);
int __wrap_cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit,
                                void *opaque, cl_os_no *no) {
  listings++;
  return __real_cl_os_list_dir_quiet(dir, visit, opaque, no);
}
int __real_cl_os_list_dir(const char *dir, cl_dir_visitor visit, void *opaque);
int __wrap_cl_os_list_dir(const char *dir, cl_dir_visitor visit, void *opaque);
int __wrap_cl_os_list_dir(const char *dir, cl_dir_visitor visit, void *opaque) {
  listings++;
  return __real_cl_os_list_dir(dir, visit, opaque);
}
int __real_cl_os_dir_check_listable_quiet(const char *dir, cl_os_no *no);
int __wrap_cl_os_dir_check_listable_quiet(const char *dir, cl_os_no *no);
int __wrap_cl_os_dir_check_listable_quiet(const char *dir, cl_os_no *no) {
  listings++;
  return __real_cl_os_dir_check_listable_quiet(dir, no);
}
int __real_cl_os_file_open_quiet(const char *path, cl_file **out,
                                 uint64_t *size_out, cl_os_no *no);
int __wrap_cl_os_file_open_quiet(const char *path, cl_file **out,
                                 uint64_t *size_out, cl_os_no *no);
int __wrap_cl_os_file_open_quiet(const char *path, cl_file **out,
                                 uint64_t *size_out, cl_os_no *no) {
  opens++;
  return __real_cl_os_file_open_quiet(path, out, size_out, no);
}
int __real_cl_os_file_open(const char *path, cl_file **out, uint64_t *size_out);
int __wrap_cl_os_file_open(const char *path, cl_file **out, uint64_t *size_out);
int __wrap_cl_os_file_open(const char *path, cl_file **out,
                           uint64_t *size_out) {
  opens++;
  return __real_cl_os_file_open(path, out, size_out);
}

/* --- the trees ----------------------------------------------------------- */

static char scratch[700];
/* The scratch folder's name: each ctest entry of this program its own. */
static const char *scratch_name = "scan-memo-scratch";

static int is_windows(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS;
}

/* scratch/relative in the host's form (Wine: drive Z:, backslashes). */
static const char *at(const char *relative) {
  static char slots[8][1024];
  static unsigned next;
  char *out = slots[next++ % 8];
  snprintf(out, sizeof slots[0], "%s%s/%s",
           is_windows() && scratch[0] == '/' ? "Z:" : "", scratch, relative);
  if (is_windows())
    for (char *p = out; *p; ++p)
      if (*p == '/')
        *p = '\\';
  return out;
}

static void make_dir(const char *relative) {
#ifdef _WIN32
  assert_int_equal(_mkdir(at(relative)), 0);
#else
  assert_int_equal(mkdir(at(relative), 0755), 0);
#endif
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  unsigned char *data = malloc(1 << 20);
  assert_non_null(data);
  *len = fread(data, 1, 1 << 20, f);
  fclose(f);
  return data;
}

static void write_file(const char *path, const unsigned char *data,
                       size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* The toolkit fixture's file `name` (lib/ or include/) copied to `to`. */
static void copy_fixture(const char *name, const char *to) {
  char from[1024];
  snprintf(from, sizeof from, "%s%s/toolkit/cuda-12.4/targets/x86_64-linux/%s",
           is_windows() && CUDALOAD_FIXTURES_DIR[0] == '/' ? "Z:" : "",
           CUDALOAD_FIXTURES_DIR, name);
  size_t len;
  unsigned char *data = slurp(from, &len);
  write_file(at(to), data, len);
  free(data);
}

/* A toolkit of its own for each test: NAME/lib64 with cuDNN 9 and cuBLAS
 * 12, NAME/include with their version headers. */
static void make_tree(const char *name) {
  char p[300];
  make_dir(name);
  snprintf(p, sizeof p, "%s/lib64", name);
  make_dir(p);
  snprintf(p, sizeof p, "%s/include", name);
  make_dir(p);
  snprintf(p, sizeof p, "%s/lib64/libcudnn.so.9", name);
  copy_fixture("lib/libcudnn.so.9", p);
  snprintf(p, sizeof p, "%s/lib64/libcublas.so.12", name);
  copy_fixture("lib/libcublas.so.12", p);
  snprintf(p, sizeof p, "%s/include/cudnn_version.h", name);
  copy_fixture("include/cudnn_version.h", p);
  snprintf(p, sizeof p, "%s/include/cublas_api.h", name);
  copy_fixture("include/cublas_api.h", p);
}

static const char *trees[] = {"unchanged", "added",    "removed", "header",
                              "rewritten", "writable", "renamed", "var-a",
                              "var-b",     "var-home", "threads"};

static void wait_seconds(unsigned seconds) {
#ifdef _WIN32
  Sleep(seconds * 1000);
#else
  sleep(seconds);
#endif
}

/* --- scanning ------------------------------------------------------------ */

static cl_scan_memo_counts counts_now(void) {
  cl_scan_memo_counts c;
  cl_scan_memo_counts_of(&c);
  return c;
}

/* A context for Linux names (the fixtures' own, also under Wine) that
 * searches the root `tree` (NULL: the default roots). */
static cudaload_ctx *context_for(const char *tree) {
  cudaload_ctx *ctx = cudaload_create(tree ? CUDALOAD_NO_DEFAULT_ROOTS : 0);
  assert_non_null(ctx);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_LINUX), 0);
  if (tree)
    assert_int_equal(cudaload_add_root(ctx, at(tree)), 0);
  return ctx;
}

/* Scan a new context of `tree` until the scan is kept: the files were
 * made at the test's start, and a scan whose stamps are younger than the
 * file system's granularity and a second is not (the racily-clean rule). */
static cudaload_ctx *first_scan(const char *tree) {
  for (int tries = 0; tries < 8; ++tries) {
    cl_scan_memo_counts before = counts_now();
    cudaload_ctx *ctx = context_for(tree);
    assert_int_equal(cudaload_scan(ctx), 0);
    if (counts_now().kept > before.kept)
      return ctx;
    cudaload_destroy(ctx);
    wait_seconds(1);
  }
  fail_msg("no scan of %s was kept", tree ? tree : "the default roots");
  return NULL;
}

/* A scan in a new context of the same key; *answered says whether a kept
 * scan answered it. */
static cudaload_ctx *again(const char *tree, int *answered) {
  cl_scan_memo_counts before = counts_now();
  cudaload_ctx *ctx = context_for(tree);
  assert_int_equal(cudaload_scan(ctx), 0);
  *answered = counts_now().found > before.found;
  return ctx;
}

static const char *version_of(const cudaload_ctx *ctx, const char *family) {
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    if (strcmp(cudaload_library_family(ctx, i), family) == 0)
      return cudaload_library_version(ctx, i);
  return NULL;
}

/* --- the tests ----------------------------------------------------------- */

static void
an_unchanged_scan_is_answered_without_listing_or_opening(void **state) {
  (void)state;
  listings = opens = 0;
  cudaload_ctx *first = first_scan("unchanged");
  assert_true(listings > 0); /* what the count would see */
  assert_true(opens > 0);    /* the version headers */
  listings = opens = 0;
  int answered;
  cudaload_ctx *second = again("unchanged", &answered);
  assert_true(answered);
  assert_int_equal(listings, 0);
  assert_int_equal(opens, 0);
  assert_int_equal(cudaload_library_count(second),
                   cudaload_library_count(first));
  assert_int_equal(cudaload_library_count(second), 2);
  for (size_t i = 0; i < cudaload_library_count(first); ++i) {
    assert_string_equal(cudaload_library_path(second, i),
                        cudaload_library_path(first, i));
    assert_string_equal(cudaload_library_version(second, i),
                        cudaload_library_version(first, i));
  }
  assert_int_equal(cudaload_root_count(second), cudaload_root_count(first));
  /* The same context scanned again is answered too. */
  cl_scan_memo_counts before = counts_now();
  assert_int_equal(cudaload_scan(second), 0);
  assert_true(counts_now().found > before.found);
  assert_int_equal(cudaload_library_count(second), 2);
  cudaload_destroy(first);
  cudaload_destroy(second);
}

static void an_added_library_is_found(void **state) {
  (void)state;
  cudaload_ctx *first = first_scan("added");
  assert_int_equal(cudaload_library_count(first), 2);
  copy_fixture("lib/libcublasLt.so.12", "added/lib64/libcublasLt.so.12");
  int answered;
  cudaload_ctx *second = again("added", &answered);
  assert_int_equal(cudaload_library_count(second), 3);
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
}

static void a_removed_library_is_gone(void **state) {
  (void)state;
  cudaload_ctx *first = first_scan("removed");
  assert_int_equal(cudaload_library_count(first), 2);
  assert_int_equal(remove(at("removed/lib64/libcublas.so.12")), 0);
  int answered;
  cudaload_ctx *second = again("removed", &answered);
  assert_int_equal(cudaload_library_count(second), 1);
  assert_null(version_of(second, "cublas"));
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
}

/* A header rewritten in place, same size, its last write time put back:
 * the status change (POSIX ctime, Windows ChangeTime) still tells. */
static void a_header_rewritten_in_place_gives_its_new_version(void **state) {
  (void)state;
  cudaload_ctx *first = first_scan("header");
  assert_string_equal(version_of(first, "cudnn"), "9.1.0");
  const char *header = at("header/include/cudnn_version.h");
  struct stat was;
  assert_int_equal(stat(header, &was), 0);
  size_t len;
  unsigned char *data = slurp(header, &len);
  char *minor = strstr((char *)data, "CUDNN_MINOR 1");
  assert_non_null(minor);
  minor[strlen("CUDNN_MINOR ")] = '7';
  write_file(header, data, len);
  free(data);
  struct utimbuf back = {was.st_atime, was.st_mtime};
  assert_int_equal(utime(header, &back), 0);
  int answered;
  cudaload_ctx *second = again("header", &answered);
  assert_string_equal(version_of(second, "cudnn"), "9.7.0");
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
}

/* A library rewritten in place at the same size: its stamp changed, so a
 * plan may not be given what was known of the old file. */
static void a_library_rewritten_in_place_is_looked_at_again(void **state) {
  (void)state;
  cudaload_ctx *first = first_scan("rewritten");
  const char *lib = at("rewritten/lib64/libcudnn.so.9");
  size_t len;
  unsigned char *data = slurp(lib, &len);
  data[len - 1] ^= 0x5a; /* the end of the file: no header or section */
  write_file(lib, data, len);
  free(data);
  int answered;
  cudaload_ctx *second = again("rewritten", &answered);
  assert_int_equal(cudaload_library_count(second), 2);
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
}

static void a_library_made_writable_by_others_is_refused(void **state) {
  (void)state;
#ifdef _WIN32
  print_message("[  SKIPPED ] POSIX mode bits: Windows judges the DACL, "
                "which this test does not change\n");
  skip();
#else
  cudaload_ctx *first = first_scan("writable");
  assert_int_equal(cudaload_library_count(first), 2);
  assert_int_equal(chmod(at("writable/lib64/libcudnn.so.9"), 0666), 0);
  int answered;
  cudaload_ctx *second = again("writable", &answered);
  assert_int_equal(cudaload_library_count(second), 1);
  assert_null(version_of(second, "cudnn"));
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
#endif
}

static void a_renamed_root_finds_nothing(void **state) {
  (void)state;
  cudaload_ctx *first = first_scan("renamed");
  assert_int_equal(cudaload_library_count(first), 2);
  assert_int_equal(rename(at("renamed"), at("renamed-away")), 0);
  int answered;
  cudaload_ctx *second = again("renamed", &answered);
  assert_int_equal(cudaload_library_count(second), 0);
  assert_int_equal(cudaload_root_count(second), 1);
  assert_int_not_equal(cudaload_root_status(second, 0), 0);
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
}

/* The racily-clean rule: a scan of files made this second is not kept,
 * since a change in the same tick of the file system's clock could leave
 * every stamp as it was. */
static void a_scan_of_young_files_is_not_kept(void **state) {
  (void)state;
  make_tree("young");
  cl_scan_memo_counts before = counts_now();
  cudaload_ctx *ctx = context_for("young");
  assert_int_equal(cudaload_scan(ctx), 0);
  assert_int_equal(cudaload_library_count(ctx), 2);
  assert_int_equal(counts_now().kept, before.kept);
  assert_true(counts_now().unsettled > before.unsettled);
  int answered;
  cudaload_ctx *second = again("young", &answered);
  assert_false(answered);
  cudaload_destroy(ctx);
  cudaload_destroy(second);
}

static void set_variable(const char *name, const char *value) {
#ifdef _WIN32
  assert_int_equal(_putenv_s(name, value ? value : ""), 0);
#else
  if (value)
    assert_int_equal(setenv(name, value, 1), 0);
  else
    assert_int_equal(unsetenv(name), 0);
#endif
}

/* The default roots, with a variable that names one: the same key, another
 * answer. Everything else the defaults read is what this machine has; the
 * environment and current folder are made quiet, so that a young stamp of
 * the test's own folders does not keep the first scan from being kept. */
static void a_changed_variable_gives_its_roots(void **state) {
  (void)state;
  static const char *quiet[] = {"VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_HOME",
                                "CUDNN_PATH",  "PYTHONPATH",   "PYTHONHOME"};
  for (size_t i = 0; i < sizeof quiet / sizeof *quiet; ++i)
    set_variable(quiet[i], NULL);
  set_variable("PATH", at("var-home"));
  set_variable("HOME", at("var-home"));
  set_variable("PYTHONNOUSERSITE", "1");
#ifdef _WIN32
  assert_int_equal(_chdir(at("var-home")), 0);
#else
  assert_int_equal(chdir(at("var-home")), 0);
#endif
  set_variable("CUDA_PATH", at("var-a"));
  cudaload_ctx *first = first_scan(NULL);
  assert_non_null(version_of(first, "cudnn"));
  int found_a = 0;
  for (size_t i = 0; i < cudaload_root_count(first); ++i)
    found_a |= strcmp(cudaload_root_path(first, i), at("var-a")) == 0;
  assert_true(found_a);
  set_variable("CUDA_PATH", at("var-b"));
  int answered;
  cudaload_ctx *second = again(NULL, &answered);
  int found_b = 0;
  for (size_t i = 0; i < cudaload_root_count(second); ++i) {
    found_b |= strcmp(cudaload_root_path(second, i), at("var-b")) == 0;
    assert_string_not_equal(cudaload_root_path(second, i), at("var-a"));
  }
  assert_true(found_b);
  assert_false(answered); /* and a kept scan did not answer */
  cudaload_destroy(first);
  cudaload_destroy(second);
}

#ifndef _WIN32
/* Many threads, each with contexts of its own, scan the same root while
 * the kept scan is found, dropped and kept again: each answer whole (the
 * tsan tier runs this). */
enum { THREADS = 8, SCANS = 40 };

typedef struct scanning {
  const char *root;
  int wrong;
} scanning;

static void *scan_often(void *opaque) {
  scanning *job = opaque;
  for (int i = 0; i < SCANS; ++i) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    if (!ctx || cudaload_set_target(ctx, CUDALOAD_TARGET_LINUX) ||
        cudaload_add_root(ctx, job->root) || cudaload_scan(ctx) ||
        cudaload_library_count(ctx) != 2)
      job->wrong++;
    cudaload_destroy(ctx);
  }
  return NULL;
}

static void threads_share_the_kept_scans(void **state) {
  (void)state;
  static char roots[2][1024];
  snprintf(roots[0], sizeof roots[0], "%s", at("unchanged"));
  snprintf(roots[1], sizeof roots[1], "%s", at("threads"));
  cudaload_destroy(first_scan("unchanged"));
  cl_scan_memo_counts before = counts_now();
  pthread_t threads[THREADS];
  scanning jobs[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    jobs[i].root = roots[i % 2];
    jobs[i].wrong = 0;
    assert_int_equal(pthread_create(&threads[i], NULL, scan_often, &jobs[i]),
                     0);
  }
  /* A change while they scan: the kept scan of one root is dropped. */
  copy_fixture("lib/libcublas.so.12", "threads/lib64/libcublas.so.12");
  for (int i = 0; i < THREADS; ++i)
    pthread_join(threads[i], NULL);
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(jobs[i].wrong, 0);
  assert_true(counts_now().found > before.found);
}
#endif

static int setup(void **state) {
  (void)state;
  snprintf(scratch, sizeof scratch, "%s/%s", CUDALOAD_FIXTURES_DIR,
           scratch_name);
  char command[1600];
#ifdef _WIN32
  char native[800];
  snprintf(native, sizeof native, "%s", at(""));
  if ((size_t)snprintf(command, sizeof command, "rmdir /s /q \"%s\" 2>NUL",
                       native) < sizeof command)
    (void)system(command);
  if (_mkdir(native) != 0)
    return -1;
#else
  if ((size_t)snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'",
                       scratch, scratch) >= sizeof command ||
      system(command) != 0)
    return -1;
#endif
  for (size_t i = 0; i < sizeof trees / sizeof *trees; ++i)
    make_tree(trees[i]);
  /* Past the racily-clean margin of the stamps just made (a second and the
   * file system's granularity; first_scan waits more where it must). */
  wait_seconds(2);
  return 0;
}

int main(int argc, char **argv) {
#ifndef _WIN32
  /* `test_scan_memo threads`: the ctest entry the tsan tier runs. */
  if (argc > 1 && strcmp(argv[1], "threads") == 0) {
    scratch_name = "scan-memo-threads-scratch";
    const struct CMUnitTest threaded[] = {
        cmocka_unit_test(threads_share_the_kept_scans),
    };
    return cmocka_run_group_tests(threaded, setup, NULL);
  }
#endif
  (void)argc;
  (void)argv;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(
          an_unchanged_scan_is_answered_without_listing_or_opening),
      cmocka_unit_test(an_added_library_is_found),
      cmocka_unit_test(a_removed_library_is_gone),
      cmocka_unit_test(a_header_rewritten_in_place_gives_its_new_version),
      cmocka_unit_test(a_library_rewritten_in_place_is_looked_at_again),
      cmocka_unit_test(a_library_made_writable_by_others_is_refused),
      cmocka_unit_test(a_renamed_root_finds_nothing),
      cmocka_unit_test(a_changed_variable_gives_its_roots),
      cmocka_unit_test(a_scan_of_young_files_is_not_kept),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
