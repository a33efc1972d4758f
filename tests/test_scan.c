/* SPDX-License-Identifier: MIT */
/*
 * test_scan.c - what cudaload_scan() reports for the Linux fixture trees
 * (tests/fixtures), exactly as docs/scan-contract.md says: every field of
 * every library, in order, the exact count, no decoys; root order, missing and
 * relative roots, rescans; roots given again, many aliases of one file and
 * folders of thousands of files; and the machine's real toolkit where there
 * is one.
 *
 * Mismatches are all printed (with the whole inventory) before the test
 * fails, so one run shows everything the core and the contract disagree on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "cudaload.h"
#include "os/platform.h"
#include "scan_expect.h"
#include "test_paths.h"

/* ------------------------------------------------------------------------ */
/* Paths                                                                    */
/* ------------------------------------------------------------------------ */

static int ends_with(const char *text, const char *suffix) {
  size_t text_len = strlen(text);
  size_t suffix_len = strlen(suffix);
  return text_len >= suffix_len &&
         strcmp(text + text_len - suffix_len, suffix) == 0;
}

/* Calls of cl_os_real_path() on one path: the link wraps the function
 * (-Wl,--wrap=cl_os_real_path, tests/CMakeLists.txt), so a test can tell
 * how often the scan asks the file system the same question. */
static const char *real_path_watched;
static int real_path_calls;
char *__real_cl_os_real_path(const char *path);
char *__wrap_cl_os_real_path(const char *path);
char *__wrap_cl_os_real_path(const char *path) {
  if (real_path_watched && strcmp(path, real_path_watched) == 0)
    ++real_path_calls;
  return __real_cl_os_real_path(path);
}
/* Its answer form, which the scan's lookups call, counts the same. */
char *__real_cl_os_real_path_quiet(const char *path, cl_os_no *no);
char *__wrap_cl_os_real_path_quiet(const char *path, cl_os_no *no);
char *__wrap_cl_os_real_path_quiet(const char *path, cl_os_no *no) {
  if (real_path_watched && strcmp(path, real_path_watched) == 0)
    ++real_path_calls;
  return __real_cl_os_real_path_quiet(path, no);
}

/* The same for cl_os_path_stamp(), the stat of a folder a layout names:
 * the calls on paths below a watched folder. */
static const char *stamp_watched_below;
static int stamp_calls;
int __real_cl_os_path_stamp(const char *path, cl_file_stamp *out);
int __wrap_cl_os_path_stamp(const char *path, cl_file_stamp *out);
int __wrap_cl_os_path_stamp(const char *path, cl_file_stamp *out) {
  if (stamp_watched_below && strstr(path, stamp_watched_below))
    ++stamp_calls;
  return __real_cl_os_path_stamp(path, out);
}

#ifndef _WIN32

/* ------------------------------------------------------------------------ */
/* Inventory checks                                                         */
/* ------------------------------------------------------------------------ */

/* The real (symlink-free) path of a fixture file, as the scan must give it. */
static char *real_fixture_path(const char *rel) {
  const char *path = test_fixture_path(rel);
  char *real = realpath(path, NULL);
  if (real == NULL)
    fail_msg("fixture file %s is missing: rebuild the fixtures", path);
  return real;
}

static int check_library(const cudaload_ctx *ctx, size_t i,
                         const expected_library *want) {
  int errors = check_library_fields(ctx, i, want);

  const char *version_file = cudaload_library_version_file(ctx, i);
  int version_file_ok =
      version_file != NULL &&
      (want->version_file_suffix[0] == '\0'
           ? version_file[0] == '\0'
           : ends_with(version_file, want->version_file_suffix));
  if (!version_file_ok) {
    print_error("  [%zu] version_file: expected %s\"%s\", got \"%s\"\n", i,
                want->version_file_suffix[0] == '\0' ? "" : "a path ending in ",
                want->version_file_suffix, or_null(version_file));
    errors++;
  }

  char *real_path = real_fixture_path(want->path);
  errors += check_string(i, "path", cudaload_library_path(ctx, i), real_path);
  free(real_path);
  return errors;
}

/* Every file is listed once: no two entries share a path. */
static int check_no_duplicates(const cudaload_ctx *ctx) {
  int errors = 0;
  size_t count = cudaload_library_count(ctx);
  for (size_t i = 0; i < count; i++) {
    for (size_t j = i + 1; j < count; j++) {
      const char *a = cudaload_library_path(ctx, i);
      const char *b = cudaload_library_path(ctx, j);
      if (a != NULL && b != NULL && strcmp(a, b) == 0) {
        print_error("  [%zu] and [%zu] are the same file %s\n", i, j, a);
        errors++;
      }
    }
  }
  return errors;
}

/* Compare the whole inventory with want[0..want_count), in order. */
static void check_inventory(const cudaload_ctx *ctx, const char *what,
                            const expected_library *want, size_t want_count,
                            const char *const *decoys) {
  static const char *const no_decoys[] = {NULL};
  int errors = check_libraries(ctx, want, want_count, check_library);
  errors += check_no_duplicates(ctx);
  errors += check_absent(ctx, decoys != NULL ? decoys : no_decoys);
  fail_on_mismatches(ctx, what, errors);
}

/* Skip (visibly) when the fixture trees were not built. */
static int fixtures_missing(const char *tree) {
  const char *path = test_fixture_path(tree);
  int missing = !is_directory(path);
  if (missing) {
    print_message("[  SKIPPED ] fixture tree %s was not built (no host C "
                  "compiler when configuring?)\n",
                  path);
  }
  return missing;
}

/* A context that has scanned one fixture root, with the host's names. */
static cudaload_ctx *scan_fixture_root(const char *rel) {
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  add_fixture_root(ctx, rel);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_string_equal(cudaload_root_origin(ctx, 0), "explicit");
  return ctx;
}

/* ------------------------------------------------------------------------ */
/* The Linux trees                                                          */
/* ------------------------------------------------------------------------ */

#define CU12 "wheels-cu12/site-packages/nvidia/"
#define CU12_CUDNN(name, file)                                                 \
  {                                                                            \
    name, "cudnn", 8, 12, "8.9.7.29", "dist-info",                             \
        "/site-packages/nvidia_cudnn_cu12-8.9.7.29.dist-info/METADATA",        \
        CU12 "cudnn/lib/" file                                                 \
  }

/* pip's CUDA 12 wheels: nvidia/<package>/lib, versions from dist-info, the
 * CUDA major of cuDNN from the -cu12 in its distribution name. */
static void test_wheels_cu12(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu12"))
    skip();
  static const expected_library want[] = {
      {"cublas", "cublas", 12, 12, "12.4.5.8", "dist-info",
       "/site-packages/nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA",
       CU12 "cublas/lib/libcublas.so.12"},
      {"cublasLt", "cublas", 12, 12, "12.4.5.8", "dist-info",
       "/site-packages/nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA",
       CU12 "cublas/lib/libcublasLt.so.12"},
      /* NVBLAS ships in the cuBLAS wheel. */
      {"nvblas", "nvblas", 12, 12, "12.4.5.8", "dist-info",
       "/site-packages/nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA",
       CU12 "cublas/lib/libnvblas.so.12"},
      {"nvrtc", "nvrtc", 12, 12, "12.4.127", "dist-info",
       "/site-packages/nvidia_cuda_nvrtc_cu12-12.4.127.dist-info/METADATA",
       CU12 "cuda_nvrtc/lib/libnvrtc.so.12"},
      {"cudart", "cudart", 12, 12, "12.4.127", "dist-info",
       "/site-packages/nvidia_cuda_runtime_cu12-12.4.127.dist-info/METADATA",
       CU12 "cuda_runtime/lib/libcudart.so.12"},
      CU12_CUDNN("cudnn", "libcudnn.so.8"),
      CU12_CUDNN("cudnn_adv_infer", "libcudnn_adv_infer.so.8"),
      CU12_CUDNN("cudnn_adv_train", "libcudnn_adv_train.so.8"),
      CU12_CUDNN("cudnn_cnn_infer", "libcudnn_cnn_infer.so.8"),
      CU12_CUDNN("cudnn_cnn_train", "libcudnn_cnn_train.so.8"),
      CU12_CUDNN("cudnn_ops_infer", "libcudnn_ops_infer.so.8"),
      CU12_CUDNN("cudnn_ops_train", "libcudnn_ops_train.so.8"),
      /* cuFFT 11 is the CUDA 12 cuFFT. */
      {"cufft", "cufft", 11, 12, "11.2.1.3", "dist-info",
       "/site-packages/nvidia_cufft_cu12-11.2.1.3.dist-info/METADATA",
       CU12 "cufft/lib/libcufft.so.11"},
  };
  static const char *const decoys[] = {"libcudnnfake.so.1", NULL};
  cudaload_ctx *ctx = scan_fixture_root("wheels-cu12/site-packages");
  check_inventory(ctx, "wheels-cu12", want, ARRAY_COUNT(want), decoys);
  cudaload_destroy(ctx);
}

#define CU13 "wheels-cu13/site-packages/nvidia/"
#define CU13_CUDNN(name, file)                                                 \
  {                                                                            \
    name, "cudnn", 9, 13, "9.19.0.56", "dist-info",                            \
        "/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA",       \
        CU13 "cudnn/lib/" file                                                 \
  }

/* pip's CUDA 13 wheels share nvidia/cu13/lib; their distribution names carry
 * no -cuNN, so the CUDA major comes from the catalog. */
static void test_wheels_cu13(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu13"))
    skip();
  static const expected_library want[] = {
      {"cublas", "cublas", 13, 13, "13.1.0.3", "dist-info",
       "/site-packages/nvidia_cublas-13.1.0.3.dist-info/METADATA",
       CU13 "cu13/lib/libcublas.so.13"},
      {"cublasLt", "cublas", 13, 13, "13.1.0.3", "dist-info",
       "/site-packages/nvidia_cublas-13.1.0.3.dist-info/METADATA",
       CU13 "cu13/lib/libcublasLt.so.13"},
      {"cudart", "cudart", 13, 13, "13.0.96", "dist-info",
       "/site-packages/nvidia_cuda_runtime-13.0.96.dist-info/METADATA",
       CU13 "cu13/lib/libcudart.so.13"},
      {"nvrtc", "nvrtc", 13, 13, "13.0.88", "dist-info",
       "/site-packages/nvidia_cuda_nvrtc-13.0.88.dist-info/METADATA",
       CU13 "cu13/lib/libnvrtc.so.13"},
      CU13_CUDNN("cudnn", "libcudnn.so.9"),
      CU13_CUDNN("cudnn_adv", "libcudnn_adv.so.9"),
      CU13_CUDNN("cudnn_cnn", "libcudnn_cnn.so.9"),
      CU13_CUDNN("cudnn_engines_precompiled",
                 "libcudnn_engines_precompiled.so.9"),
      CU13_CUDNN("cudnn_engines_runtime_compiled",
                 "libcudnn_engines_runtime_compiled.so.9"),
      CU13_CUDNN("cudnn_engines_tensor_ir", "libcudnn_engines_tensor_ir.so.9"),
      CU13_CUDNN("cudnn_ext", "libcudnn_ext.so.9"),
      CU13_CUDNN("cudnn_graph", "libcudnn_graph.so.9"),
      CU13_CUDNN("cudnn_heuristic", "libcudnn_heuristic.so.9"),
      CU13_CUDNN("cudnn_ops", "libcudnn_ops.so.9"),
  };
  static const char *const decoys[] = {"libnvrtc.alt.so.13",
                                       "libnvrtc-builtins.so.13.0", NULL};
  cudaload_ctx *ctx = scan_fixture_root("wheels-cu13/site-packages");
  check_inventory(ctx, "wheels-cu13", want, ARRAY_COUNT(want), decoys);
  cudaload_destroy(ctx);
}

#define TOOLKIT_LIB "toolkit/cuda-12.4/targets/x86_64-linux/lib/"

/* The expected inventory of the toolkit tree, whichever of its library
 * folders is the root. */
static const expected_library toolkit_want[] = {
    /* Names with only the major: the version comes from the headers. */
    {"cublas", "cublas", 12, 12, "12.4.5", "header", "/include/cublas_api.h",
     TOOLKIT_LIB "libcublas.so.12"},
    {"cublasLt", "cublas", 12, 12, "12.4.5", "header", "/include/cublas_api.h",
     TOOLKIT_LIB "libcublasLt.so.12"},
    /* libcudart.so -> libcudart.so.12 -> libcudart.so.12.4.127: one entry,
     * the real file's name, whose version beats the header's "12.4". */
    {"cudart", "cudart", 12, 12, "12.4.127", "file-name",
     "/libcudart.so.12.4.127", TOOLKIT_LIB "libcudart.so.12.4.127"},
    {"cudnn", "cudnn", 9, 0, "9.1.0", "header", "/include/cudnn_version.h",
     TOOLKIT_LIB "libcudnn.so.9"},
};
/* lib64/stubs/libcuda.so is a link-time stub, never the driver. */
static const char *const toolkit_decoys[] = {"libcuda.so", NULL};

/* A runfile toolkit: lib64 -> targets/x86_64-linux/lib, so both layouts lead
 * to the same files; each must be reported once. */
static void test_toolkit_reports_each_file_once(void **state) {
  (void)state;
  if (fixtures_missing("toolkit"))
    skip();
  cudaload_ctx *ctx = scan_fixture_root("toolkit/cuda-12.4");
  check_inventory(ctx, "toolkit/cuda-12.4", toolkit_want,
                  ARRAY_COUNT(toolkit_want), toolkit_decoys);
  cudaload_destroy(ctx);
}

/* The library folder itself as the root finds the headers too. */
static void test_toolkit_library_folder_as_root(void **state) {
  (void)state;
  if (fixtures_missing("toolkit"))
    skip();
  cudaload_ctx *ctx = scan_fixture_root("toolkit/cuda-12.4/lib64");
  check_inventory(ctx, "toolkit/cuda-12.4/lib64", toolkit_want,
                  ARRAY_COUNT(toolkit_want), toolkit_decoys);
  cudaload_destroy(ctx);
}

/* A conda prefix: versioned names behind symlink chains in lib, and a pip
 * wheel in lib/python3.11/site-packages. */
static const expected_library conda_want[] = {
    {"cudnn", "cudnn", 8, 0, "8.9.2", "file-name", "/lib/libcudnn.so.8.9.2",
     "conda/env/lib/libcudnn.so.8.9.2"},
    {"cudnn_ops_infer", "cudnn", 8, 0, "8.9.2", "file-name",
     "/lib/libcudnn_ops_infer.so.8.9.2",
     "conda/env/lib/libcudnn_ops_infer.so.8.9.2"},
    {"cublas", "cublas", 12, 12, "12.1.3.1", "dist-info",
     "/site-packages/nvidia_cublas_cu12-12.1.3.1.dist-info/METADATA",
     "conda/env/lib/python3.11/site-packages/nvidia/cublas/lib/"
     "libcublas.so.12"},
    {"cublasLt", "cublas", 12, 12, "12.1.3.1", "dist-info",
     "/site-packages/nvidia_cublas_cu12-12.1.3.1.dist-info/METADATA",
     "conda/env/lib/python3.11/site-packages/nvidia/cublas/lib/"
     "libcublasLt.so.12"},
};
/* libcudnn.so (no major) only leads to libcudnn.so.8.9.2: no entry of its
 * own. */
static const char *const conda_decoys[] = {"libcudnn.so", NULL};

static void test_conda_prefix(void **state) {
  (void)state;
  if (fixtures_missing("conda"))
    skip();
  cudaload_ctx *ctx = scan_fixture_root("conda/env");
  check_inventory(ctx, "conda/env", conda_want, ARRAY_COUNT(conda_want),
                  conda_decoys);
  cudaload_destroy(ctx);
}

static size_t library_named(const cudaload_ctx *ctx, const char *name) {
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    if (strcmp(cudaload_library_name(ctx, i), name) == 0)
      return i;
  fail_msg("no library %s in the inventory", name);
  return 0;
}

/* A wheel's version is read from its dist-info at the first question, not
 * during the scan (docs/scan-contract.md, "When"): a plan for a major needs
 * no listing of site-packages. The answer is the dist-info's, a plan finer
 * than the major still gets it, and asking leaves the caller's last error
 * alone. */
static void test_wheel_version_on_first_question(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu12"))
    skip();
  char command[4096];
  snprintf(command, sizeof command,
           "rm -rf test_scan-lazy && mkdir test_scan-lazy && "
           "cp -R '%s' test_scan-lazy/",
           test_fixture_path("wheels-cu12/site-packages"));
  assert_int_equal(system(command), 0);
  char *root = realpath("test_scan-lazy/site-packages", NULL);
  assert_non_null(root);

  /* Asked after a plan for a major: the dist-info's version. */
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas=="), CUDALOAD_E_BAD_SPEC);
  char before[1024];
  snprintf(before, sizeof before, "%s", cudaload_last_error());
  assert_true(before[0] != '\0');
  size_t i = library_named(ctx, "cublas");
  assert_string_equal(cudaload_library_version(ctx, i), "12.4.5.8");
  assert_string_equal(cudaload_library_version_source(ctx, i), "dist-info");
  assert_true(ends_with(cudaload_library_version_file(ctx, i),
                        "nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA"));
  assert_int_equal(
      cudaload_library_cuda_major(ctx, library_named(ctx, "cudnn")),
      12); /* from the -cu12 of nvidia-cudnn-cu12 */
  assert_string_equal(cudaload_last_error(), before);
  cudaload_destroy(ctx);

  /* A requirement finer than the major reads the versions it compares. */
  ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas>=12.4.5"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  cudaload_destroy(ctx);
  ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas>=12.5"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  assert_non_null(strstr(cudaload_last_error(), "12.4.5.8"));
  cudaload_destroy(ctx);

  /* What the first question finds is what is on disk then: the metadata
   * is not read before it is asked for. */
  ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(
      system("mv test_scan-lazy/site-packages/"
             "nvidia_cublas_cu12-12.4.5.8.dist-info test_scan-lazy/moved"),
      0);
  i = library_named(ctx, "cublas");
  assert_string_equal(cudaload_library_version(ctx, i), "");
  assert_string_equal(cudaload_library_version_source(ctx, i), "none");
  cudaload_destroy(ctx);
  free(root);
  assert_int_equal(system("rm -rf test_scan-lazy"), 0);
}

/* A RECORD or METADATA that cannot be read (here a folder in the file's
 * place) only costs the versions it would have told: the lookups behind a
 * getter take that "no" as an answer and leave the caller's last error as
 * it was (issue 42, item 5). */
static void test_unreadable_wheel_files_are_answers(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu12"))
    skip();
  char command[4096];
  snprintf(
      command, sizeof command,
      "rm -rf test_scan-unreadable && mkdir test_scan-unreadable && "
      "cp -R '%s' test_scan-unreadable/ && cd "
      "test_scan-unreadable/site-packages && "
      "rm nvidia_cufft_cu12-11.2.1.3.dist-info/RECORD && "
      "mkdir nvidia_cufft_cu12-11.2.1.3.dist-info/RECORD && "
      "mv nvidia_cudnn_cu12-8.9.7.29.dist-info nvidia_cudnn_cu12.dist-info "
      "&& rm nvidia_cudnn_cu12.dist-info/METADATA && "
      "mkdir nvidia_cudnn_cu12.dist-info/METADATA",
      test_fixture_path("wheels-cu12/site-packages"));
  assert_int_equal(system(command), 0);
  char *root = realpath("test_scan-unreadable/site-packages", NULL);
  assert_non_null(root);

  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_string_equal(cudaload_last_error(), "");
  assert_int_equal(cudaload_require(ctx, "cublas=="), CUDALOAD_E_BAD_SPEC);
  char before[1024];
  snprintf(before, sizeof before, "%s", cudaload_last_error());
  assert_true(before[0] != '\0');
  size_t i = library_named(ctx, "cublas");
  assert_string_equal(cudaload_library_version(ctx, i), "12.4.5.8");
  /* Every library's version asked: each RECORD and METADATA read. */
  for (size_t k = 0; k < cudaload_library_count(ctx); ++k)
    (void)cudaload_library_version(ctx, k);
  assert_string_equal(cudaload_last_error(), before);
  cudaload_destroy(ctx);
  free(root);
  assert_int_equal(system("rm -rf test_scan-unreadable"), 0);
}

/* A system library folder that also holds the driver's nvidia/ sub-folder
 * (Debian: /usr/lib/x86_64-linux-gnu/nvidia/current) is still a library
 * folder: its own files are found, not taken for a site-packages folder. */
static void test_library_folder_with_nvidia_subfolder(void **state) {
  (void)state;
  if (fixtures_missing("cudnn8_compat"))
    skip();
  char command[4096];
  snprintf(
      command, sizeof command,
      "rm -rf test_scan-syslib && mkdir -p test_scan-syslib/nvidia/current "
      "&& cp '%s' test_scan-syslib/",
      test_fixture_path("cudnn8_compat/libcudnn.so.8"));
  assert_int_equal(system(command), 0);
  char *root = realpath("test_scan-syslib", NULL);
  assert_non_null(root);
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_library_count(ctx), 1);
  assert_string_equal(cudaload_library_name(ctx, 0), "cudnn");
  assert_true(ends_with(cudaload_library_path(ctx, 0),
                        "/test_scan-syslib/libcudnn.so.8"));
  cudaload_destroy(ctx);
  free(root);
  assert_int_equal(system("rm -rf test_scan-syslib"), 0);
}

#define COMPAT_CUDNN(name, file)                                               \
  { name, "cudnn", 8, 0, "", "none", "", "cudnn8_compat/" file }

/* A flat folder with nothing but the binaries: majors, and no version. */
static const expected_library compat_want[] = {
    COMPAT_CUDNN("cudnn", "libcudnn.so.8"),
    COMPAT_CUDNN("cudnn_adv_infer", "libcudnn_adv_infer.so.8"),
    COMPAT_CUDNN("cudnn_adv_train", "libcudnn_adv_train.so.8"),
    COMPAT_CUDNN("cudnn_cnn_infer", "libcudnn_cnn_infer.so.8"),
    COMPAT_CUDNN("cudnn_cnn_train", "libcudnn_cnn_train.so.8"),
    COMPAT_CUDNN("cudnn_ops_infer", "libcudnn_ops_infer.so.8"),
    COMPAT_CUDNN("cudnn_ops_train", "libcudnn_ops_train.so.8"),
};

static void test_cudnn8_compat_has_no_version(void **state) {
  (void)state;
  if (fixtures_missing("cudnn8_compat"))
    skip();
  cudaload_ctx *ctx = scan_fixture_root("cudnn8_compat");
  check_inventory(ctx, "cudnn8_compat", compat_want, ARRAY_COUNT(compat_want),
                  NULL);
  cudaload_destroy(ctx);
}

/* A scan for Windows names ignores .so files. */
/* The header folder beside a wheel's libraries: nvidia/cuda_runtime/include
 * (CUDA 12), the shared nvidia/cu13/include (CUDA 13); none for a family
 * whose headers are not installed (the cuDNN wheel fixture has none). */
static void test_include_dirs(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu12"))
    skip();
  static const struct {
    const char *root, *name, *suffix;
  } cases[] = {
      {"wheels-cu12/site-packages", "cudart",
       "/wheels-cu12/site-packages/nvidia/cuda_runtime/include"},
      {"wheels-cu12/site-packages", "cudnn", NULL},
      {"wheels-cu13/site-packages", "cudart",
       "/wheels-cu13/site-packages/nvidia/cu13/include"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
    cudaload_ctx *ctx = scan_fixture_root(cases[k].root);
    size_t found = SIZE_MAX;
    for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
      if (strcmp(cudaload_library_name(ctx, i), cases[k].name) == 0)
        found = i;
    assert_true(found != SIZE_MAX);
    const char *dir = cudaload_library_include_dir(ctx, found);
    if (!cases[k].suffix) {
      if (dir)
        fail_msg("%s: %s has include folder %s", cases[k].root, cases[k].name,
                 dir);
      /* Why not: the header looked for, and beside which library. */
      if (!strstr(cudaload_last_error(), "no include folder holding cudnn.h") ||
          !strstr(cudaload_last_error(), cudaload_library_path(ctx, found)))
        fail_msg("last error \"%s\"", cudaload_last_error());
    } else if (!dir || !ends_with(dir, cases[k].suffix)) {
      fail_msg("%s: %s: include folder %s, expected ...%s", cases[k].root,
               cases[k].name, dir ? dir : "(none)", cases[k].suffix);
    }
    /* Asked again: the same string. */
    assert_ptr_equal(cudaload_library_include_dir(ctx, found), dir);
    cudaload_destroy(ctx);
  }
}

/* One real file for every Linux name of NVIDIA's cuda-pathfinder catalog
 * and cudaload's own (tests/fixtures/make_fixtures.py, catalog_tree), each
 * in the folder its layout puts it: a scan recognises every one as the
 * library expected.txt names, and lists nothing else. (The Windows names:
 * test_scan_windows.c.) */
static void test_every_catalog_name_linux(void **state) {
  (void)state;
  if (fixtures_missing("catalog"))
    skip();
  check_catalog_tree("catalog", CUDALOAD_TARGET_LINUX);
}

static void test_windows_target_ignores_shared_objects(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu12"))
    skip();
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_WINDOWS);
  add_fixture_root(ctx, "wheels-cu12/site-packages");
  add_fixture_root(ctx, "cudnn8_compat");
  scan_or_fail(ctx);
  check_inventory(ctx, "Windows names over Linux trees", NULL, 0, NULL);
  cudaload_destroy(ctx);
}

/* first followed by second, for the inventory of two roots. */
static expected_library *concatenate(const expected_library *first,
                                     size_t first_count,
                                     const expected_library *second,
                                     size_t second_count) {
  expected_library *both = malloc((first_count + second_count) * sizeof(*both));
  assert_non_null(both);
  memcpy(both, first, first_count * sizeof(*both));
  memcpy(both + first_count, second, second_count * sizeof(*both));
  return both;
}

static void scan_two_roots_in_order(const char *first_root,
                                    const expected_library *first,
                                    size_t first_count, const char *second_root,
                                    const expected_library *second,
                                    size_t second_count) {
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  add_fixture_root(ctx, first_root);
  add_fixture_root(ctx, second_root);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 2);
  assert_true(ends_with(cudaload_root_path(ctx, 0), first_root));
  assert_true(ends_with(cudaload_root_path(ctx, 1), second_root));
  expected_library *both =
      concatenate(first, first_count, second, second_count);
  check_inventory(ctx, "two roots", both, first_count + second_count, NULL);
  free(both);
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    assert_int_equal(cudaload_library_root(ctx, i), i < first_count ? 0 : 1);
  cudaload_destroy(ctx);
}

/* Explicit roots are searched in the order added, and each library knows
 * its root: either order gives the inventories one after the other. */
static void test_explicit_roots_keep_their_order(void **state) {
  (void)state;
  if (fixtures_missing("cudnn8_compat") || fixtures_missing("conda"))
    skip();
  scan_two_roots_in_order("conda/env", conda_want, ARRAY_COUNT(conda_want),
                          "cudnn8_compat", compat_want,
                          ARRAY_COUNT(compat_want));
  scan_two_roots_in_order("cudnn8_compat", compat_want,
                          ARRAY_COUNT(compat_want), "conda/env", conda_want,
                          ARRAY_COUNT(conda_want));
}

/* The same real file reached from two roots is reported once, under the
 * first root. */
static void test_same_file_from_two_roots_once(void **state) {
  (void)state;
  if (fixtures_missing("toolkit"))
    skip();
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  add_fixture_root(ctx, "toolkit/cuda-12.4/targets/x86_64-linux/lib");
  add_fixture_root(ctx, "toolkit/cuda-12.4");
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 2);
  check_inventory(ctx, "toolkit from two roots", toolkit_want,
                  ARRAY_COUNT(toolkit_want), toolkit_decoys);
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    assert_int_equal(cudaload_library_root(ctx, i), 0);
  cudaload_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* Repetitions: roots and files met more than once                          */
/* ------------------------------------------------------------------------ */

/* A folder made for one test, under the test's current folder: removed
 * first, created empty; returns its absolute (real) path, malloc'ed. */
static char *fresh_folder(const char *name) {
  char command[PATH_MAX + 64];
  snprintf(command, sizeof command, "rm -rf '%s' && mkdir '%s'", name, name);
  assert_int_equal(system(command), 0);
  char *real = realpath(name, NULL);
  assert_non_null(real);
  return real;
}

static void remove_folder(const char *name) {
  char command[PATH_MAX + 64];
  snprintf(command, sizeof command, "rm -rf '%s'", name);
  assert_int_equal(system(command), 0);
}

static void make_file(const char *folder, const char *name) {
  char path[PATH_MAX];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", folder, name) >= sizeof path)
    fail_msg("path too long: %s/%s", folder, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    fail_msg("cannot create %s", path);
  fclose(f);
}

static void make_link(const char *target, const char *folder,
                      const char *name) {
  char path[PATH_MAX];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", folder, name) >= sizeof path)
    fail_msg("path too long: %s/%s", folder, name);
  if (symlink(target, path) != 0)
    fail_msg("cannot link %s -> %s", path, target);
}

/* A root given again is the same real folder: in the same spelling, with a
 * trailing slash, "/." or a doubled slash, through a symlink. It is listed
 * once, at its first position with its first spelling and origin, searched
 * once, and the inventory is that of each root given once. (Before, each
 * repetition was listed and searched again: 5,000 --root arguments naming
 * one folder took a minute.) */
static void test_repeated_root_listed_and_scanned_once(void **state) {
  (void)state;
  if (fixtures_missing("cudnn8_compat") || fixtures_missing("conda"))
    skip();
  char compat[PATH_MAX], conda[PATH_MAX];
  snprintf(compat, sizeof compat, "%s", test_fixture_path("cudnn8_compat"));
  snprintf(conda, sizeof conda, "%s", test_fixture_path("conda/env"));
  char *links = fresh_folder("test_scan-roots");
  make_link(compat, links, "compat");
  char through_link[PATH_MAX + 16], through_link_slash[PATH_MAX + 16];
  snprintf(through_link, sizeof through_link, "%s/compat", links);
  snprintf(through_link_slash, sizeof through_link_slash, "%s/compat/", links);
  char slash[PATH_MAX + 2], dot[PATH_MAX + 2], doubled[PATH_MAX + 2],
      conda_slash[PATH_MAX + 2];
  snprintf(slash, sizeof slash, "%s/", compat);
  snprintf(dot, sizeof dot, "%s/.", compat);
  snprintf(doubled, sizeof doubled, "%s//", compat);
  snprintf(conda_slash, sizeof conda_slash, "%s/", conda);

  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  const char *const spellings[] = {
      compat,       conda,       compat,
      slash,        dot,         doubled,
      through_link, conda_slash, through_link_slash};
  for (size_t i = 0; i < ARRAY_COUNT(spellings); i++)
    assert_int_equal(cudaload_add_root(ctx, spellings[i]), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 2);
  assert_string_equal(cudaload_root_path(ctx, 0), compat);
  assert_string_equal(cudaload_root_path(ctx, 1), conda);
  for (size_t i = 0; i < 2; i++) {
    assert_string_equal(cudaload_root_origin(ctx, i), "explicit");
    assert_int_equal(cudaload_root_status(ctx, i), CUDALOAD_OK);
  }
  expected_library *both = concatenate(compat_want, ARRAY_COUNT(compat_want),
                                       conda_want, ARRAY_COUNT(conda_want));
  check_inventory(ctx, "a root given again", both,
                  ARRAY_COUNT(compat_want) + ARRAY_COUNT(conda_want), NULL);
  free(both);
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    assert_int_equal(cudaload_library_root(ctx, i),
                     i < ARRAY_COUNT(compat_want) ? 0 : 1);
  cudaload_destroy(ctx);

  /* The first spelling wins: given through the link first, the link is
   * what the report shows. */
  ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, through_link), CUDALOAD_OK);
  assert_int_equal(cudaload_add_root(ctx, compat), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  assert_string_equal(cudaload_root_path(ctx, 0), through_link);
  check_inventory(ctx, "a root through a link, then directly", compat_want,
                  ARRAY_COUNT(compat_want), NULL);
  cudaload_destroy(ctx);
  free(links);
  remove_folder("test_scan-roots");
}

/* Many symlink aliases of one file are one library: the real file, under
 * the name and version the real file's name gives, at the position of the
 * first alias in name order; aliases in another layout folder of the root
 * too. A real file whose name is no catalog name is reported under its
 * first alias in name order. */
static void test_many_aliases_reported_once(void **state) {
  (void)state;
  char *root = fresh_folder("test_scan-aliases");
  char lib64[PATH_MAX + 8], lib[PATH_MAX + 8];
  snprintf(lib64, sizeof lib64, "%s/lib64", root);
  snprintf(lib, sizeof lib, "%s/lib", root);
  assert_int_equal(mkdir(lib64, 0755), 0);
  assert_int_equal(mkdir(lib, 0755), 0);

  /* The root folder: a file with no catalog name and three aliases. */
  make_file(root, "cudnn-real.bin");
  make_link("cudnn-real.bin", root, "libcudnn.so.9");
  make_link("cudnn-real.bin", root, "libcudnn.so.8.1.0");
  make_link("libcudnn.so.9", root, "libcudnn.so.8"); /* a chain */

  /* lib64: libcudnn.so.8.9.7 and 300 aliases, some chained; lib: more. */
  make_file(lib64, "libcudnn.so.8.9.7");
  make_link("libcudnn.so.8.9.7", lib64, "libcudnn.so.8");
  char name[64], target[64];
  for (int i = 0; i < 300; i++) {
    snprintf(name, sizeof name, "libcudnn.so.8.0.%d", i);
    snprintf(target, sizeof target, "%s",
             i % 2 ? "libcudnn.so.8" : "libcudnn.so.8.9.7");
    make_link(target, lib64, name);
  }
  make_link("../lib64/libcudnn.so.8.9.7", lib, "libcudnn.so.8");
  make_link("../lib64/libcudnn.so.8", lib, "libcudnn.so.8.0.0");

  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  scan_or_fail(ctx);
  if (cudaload_library_count(ctx) != 2) {
    print_inventory(ctx);
    fail_msg("expected 2 libraries, got %lu",
             (unsigned long)cudaload_library_count(ctx));
  }
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/cudnn-real.bin", root);
  assert_string_equal(cudaload_library_path(ctx, 0), path);
  assert_string_equal(cudaload_library_name(ctx, 0), "cudnn");
  assert_int_equal(cudaload_library_major(ctx, 0), 8); /* libcudnn.so.8 */
  assert_string_equal(cudaload_library_version_source(ctx, 0), "none");
  snprintf(path, sizeof path, "%s/libcudnn.so.8.9.7", lib64);
  assert_string_equal(cudaload_library_path(ctx, 1), path);
  assert_string_equal(cudaload_library_name(ctx, 1), "cudnn");
  assert_int_equal(cudaload_library_major(ctx, 1), 8);
  assert_string_equal(cudaload_library_version(ctx, 1), "8.9.7");
  assert_string_equal(cudaload_library_version_source(ctx, 1), "file-name");
  for (size_t i = 0; i < 2; i++)
    assert_int_equal(cudaload_library_root(ctx, i), 0);
  cudaload_destroy(ctx);
  free(root);
  remove_folder("test_scan-aliases");
}

/* One name of the big folder below: a real file, or a link to one. */
typedef struct big_entry {
  char name[48];
  char target[48]; /* "" for a real file */
} big_entry;

static int by_entry_name(const void *a, const void *b) {
  return strcmp(((const big_entry *)a)->name, ((const big_entry *)b)->name);
}

/* A folder of thousands of files gives the report the contract describes,
 * the same as for a few: every library once, in file-name order, a link
 * reported at its own position when it comes before its file (as the real
 * file, with the real file's version), skipped when it comes after; names
 * that are no catalog name ignored. The expected inventory is worked out
 * here from the names alone, the way docs/scan-contract.md says. */
/* The folder that holds a wheel's dist-info folders is checked once for
 * all of them (trust.h): a venv's or a toolkit's dist-infos share it, and
 * the check resolved it again for each (issue 28: scan of the CUDA 13
 * toolkit, 12 distributions). Its real path is asked for the root and for
 * the check, however many distributions speak for the libraries. */
static void test_distinfo_holder_checked_once(void **state) {
  (void)state;
  if (fixtures_missing("wheels-cu12"))
    skip();
  const char *root = test_fixture_path("wheels-cu12/site-packages");
  char holder[4096];
  snprintf(holder, sizeof holder, "%s", root);
  real_path_watched = holder;
  real_path_calls = 0;
  cudaload_ctx *ctx = scan_fixture_root("wheels-cu12/site-packages");
  size_t from_distinfo = 0;
  const char *sources[16] = {NULL};
  size_t source_count = 0;
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i) {
    if (strcmp(cudaload_library_version_source(ctx, i), "dist-info") != 0)
      continue;
    ++from_distinfo;
    const char *file = cudaload_library_version_file(ctx, i);
    size_t k = 0;
    while (k < source_count && strcmp(sources[k], file) != 0)
      ++k;
    if (k == source_count && source_count < 16)
      sources[source_count++] = file;
  }
  real_path_watched = NULL;
  /* the fixture's point: several distributions in one folder */
  assert_true(source_count >= 5);
  assert_true(from_distinfo >= source_count);
  if (real_path_calls > 2)
    fprintf(stderr, "%s resolved %d times for %zu distributions\n", holder,
            real_path_calls, source_count);
  assert_true(real_path_calls <= 2);
  cudaload_destroy(ctx);
}

/* A root with no nvidia/ folder (a toolkit) is not probed for the wheel
 * folders below one (nvidia/cublasmp/cu13/lib, ...): the stat that found
 * nvidia/ missing answers for them all (issue 28). */
static void test_no_wheel_probes_without_nvidia(void **state) {
  (void)state;
  if (fixtures_missing("toolkit"))
    skip();
  stamp_watched_below = "/nvidia/";
  stamp_calls = 0;
  cudaload_ctx *ctx = scan_fixture_root("toolkit/cuda-12.4");
  stamp_watched_below = NULL;
  assert_true(cudaload_library_count(ctx) > 0);
  if (stamp_calls)
    fprintf(stderr, "%d folders below nvidia/ probed\n", stamp_calls);
  assert_int_equal(stamp_calls, 0);
  cudaload_destroy(ctx);
}

static void test_big_folder_same_report(void **state) {
  (void)state;
  enum { MAJORS = 40, PATCHES = 50, UNRELATED = 2000 };
  size_t total = MAJORS * PATCHES + MAJORS + MAJORS + UNRELATED;
  big_entry *entries = calloc(total, sizeof *entries);
  assert_non_null(entries);
  size_t n = 0;
  for (int m = 0; m < MAJORS; m++) {
    for (int p = 0; p < PATCHES; p++)
      snprintf(entries[n++].name, sizeof entries->name, "libcublas.so.12.%d.%d",
               m, p);
    /* Before its file in name order ("12.7" < "12.7.0"): listed there. */
    snprintf(entries[n].name, sizeof entries->name, "libcublas.so.12.%d", m);
    snprintf(entries[n++].target, sizeof entries->target,
             "libcublas.so.12.%d.%d", m, PATCHES - 1);
    /* After it ("libcublasLt" > "libcublas."): skipped. */
    snprintf(entries[n].name, sizeof entries->name, "libcublasLt.so.12.%d", m);
    snprintf(entries[n++].target, sizeof entries->target,
             "libcublas.so.12.%d.0", m);
  }
  for (int i = 0; i < UNRELATED; i++)
    snprintf(entries[n++].name, sizeof entries->name, "libunrelated.so.%d", i);
  assert_int_equal(n, total);

  char *root = fresh_folder("test_scan-big");
  for (size_t i = 0; i < n; i++) {
    if (entries[i].target[0])
      make_link(entries[i].target, root, entries[i].name);
    else
      make_file(root, entries[i].name);
  }
  qsort(entries, n, sizeof *entries, by_entry_name);
  /* Expected: the real file names, in the order of first appearance. */
  const char **want = calloc(n, sizeof *want);
  assert_non_null(want);
  size_t want_count = 0;
  for (size_t i = 0; i < n; i++) {
    if (strncmp(entries[i].name, "libunrelated", 12) == 0)
      continue;
    const char *real =
        entries[i].target[0] ? entries[i].target : entries[i].name;
    int seen = 0;
    for (size_t k = 0; k < want_count && !seen; k++)
      seen = strcmp(want[k], real) == 0;
    if (!seen)
      want[want_count++] = real;
  }
  assert_int_equal(want_count, MAJORS * PATCHES);

  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  scan_or_fail(ctx);
  int errors = 0;
  if (cudaload_library_count(ctx) != want_count) {
    print_error("  count: expected %zu, got %zu\n", want_count,
                cudaload_library_count(ctx));
    errors++;
  }
  char path[PATH_MAX + 64];
  for (size_t i = 0; i < want_count && i < cudaload_library_count(ctx); i++) {
    snprintf(path, sizeof path, "%s/%s", root, want[i]);
    errors += check_string(i, "path", cudaload_library_path(ctx, i), path);
    errors += check_string(i, "name", cudaload_library_name(ctx, i), "cublas");
    /* "libcublas.so.12.7.3" -> "12.7.3" */
    errors += check_string(i, "version", cudaload_library_version(ctx, i),
                           want[i] + strlen("libcublas.so."));
  }
  errors += check_no_duplicates(ctx);
  if (errors != 0)
    fail_msg("big folder: %d mismatch(es) with docs/scan-contract.md", errors);
  cudaload_destroy(ctx);
  free(want);
  free(entries);
  free(root);
  remove_folder("test_scan-big");
}

#endif /* !_WIN32 */

/* ------------------------------------------------------------------------ */
/* Roots: missing, relative, rescans (any host)                             */
/* ------------------------------------------------------------------------ */

/* A missing root given again (also with a trailing separator) is listed
 * once, with its first spelling. */
static void test_repeated_missing_root_listed_once(void **state) {
  (void)state;
  char missing[TEST_PATH_CAPACITY], slash[TEST_PATH_CAPACITY + 2];
  snprintf(missing, sizeof missing, "%s", test_fixture_path("no-such-tree"));
  snprintf(slash, sizeof slash, "%s/", missing);
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_HOST);
  assert_int_equal(cudaload_add_root(ctx, missing), CUDALOAD_OK);
  assert_int_equal(cudaload_add_root(ctx, slash), CUDALOAD_OK);
  assert_int_equal(cudaload_add_root(ctx, missing), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  assert_string_equal(cudaload_root_path(ctx, 0), missing);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_NOT_FOUND);
  cudaload_destroy(ctx);
}

/* A root that does not exist is listed with its status; the scan goes on. */
static void test_missing_root_is_listed_not_fatal(void **state) {
  (void)state;
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_HOST);
  add_fixture_root(ctx, "no-such-tree");
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  assert_true(ends_with(cudaload_root_path(ctx, 0), "no-such-tree"));
  assert_string_equal(cudaload_root_origin(ctx, 0), "explicit");
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cudaload_library_count(ctx), 0);
  /* Out of range: the documented sentinels. */
  assert_null(cudaload_root_path(ctx, 1));
  assert_null(cudaload_root_origin(ctx, 1));
  cudaload_destroy(ctx);
}

#ifndef _WIN32
/* Jetson puts the driver and its DLA library in
 * /usr/lib/aarch64-linux-gnu/tegra, which a container's ld.so.cache may
 * lack: an aarch64 build searches it by default, an x86_64 build never. */
static void test_tegra_folder_is_a_default_root_on_aarch64(void **state) {
  (void)state;
  static const char tegra[] = "/usr/lib/aarch64-linux-gnu/tegra";
  cudaload_ctx *ctx = cudaload_create(0);
  if (ctx == NULL)
    fail_msg("cudaload_create: %s", cudaload_last_error());
  scan_or_fail(ctx);
  size_t at = SIZE_MAX;
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i)
    if (strcmp(cudaload_root_path(ctx, i), tegra) == 0)
      at = i;
#if defined(__aarch64__)
  if (at == SIZE_MAX)
    fail_msg("%s is not among the default roots", tegra);
  assert_string_equal(cudaload_root_tier(ctx, at), "system");
#else
  if (at != SIZE_MAX)
    fail_msg("%s is a default root of a non-aarch64 build", tegra);
#endif
  cudaload_destroy(ctx);
}

/* ... and the roots after it are still read. */
static void test_missing_root_does_not_hide_others(void **state) {
  (void)state;
  if (fixtures_missing("cudnn8_compat"))
    skip();
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  add_fixture_root(ctx, "no-such-tree");
  add_fixture_root(ctx, "cudnn8_compat");
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 2);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cudaload_root_status(ctx, 1), CUDALOAD_OK);
  check_inventory(ctx, "missing root then cudnn8_compat", compat_want,
                  ARRAY_COUNT(compat_want), NULL);
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    assert_int_equal(cudaload_library_root(ctx, i), 1);
  cudaload_destroy(ctx);
}
#endif

/* A root must be absolute: a relative one would depend on the current
 * folder at scan time. */
static void test_relative_root_rejected(void **state) {
  (void)state;
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_HOST);
  assert_int_equal(cudaload_add_root(ctx, "relative/dir"),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_string_not_equal(cudaload_last_error(), "");
  assert_int_equal(cudaload_add_root(ctx, "./lib"),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_add_root(ctx, ""), CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_add_root(ctx, NULL), CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_add_root(NULL, "/abs"),
                   CUDALOAD_E_INVALID_ARGUMENT);
#ifdef _WIN32
  assert_int_equal(cudaload_add_root(ctx, "relative\\dir"),
                   CUDALOAD_E_INVALID_ARGUMENT);
#endif
  /* Rejected roots leave nothing behind. */
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 0);
  assert_int_equal(cudaload_library_count(ctx), 0);
  cudaload_destroy(ctx);
}

#ifndef _WIN32
/* A rescan replaces the inventory: nothing doubles, new roots appear. */
static void test_rescan_replaces_inventory(void **state) {
  (void)state;
  if (fixtures_missing("cudnn8_compat") || fixtures_missing("conda"))
    skip();
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  add_fixture_root(ctx, "cudnn8_compat");
  scan_or_fail(ctx);
  assert_int_equal(cudaload_library_count(ctx), ARRAY_COUNT(compat_want));
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  check_inventory(ctx, "cudnn8_compat scanned twice", compat_want,
                  ARRAY_COUNT(compat_want), NULL);

  add_fixture_root(ctx, "conda/env");
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 2);
  expected_library *both = concatenate(compat_want, ARRAY_COUNT(compat_want),
                                       conda_want, ARRAY_COUNT(conda_want));
  check_inventory(ctx, "rescan with a root added", both,
                  ARRAY_COUNT(compat_want) + ARRAY_COUNT(conda_want), NULL);
  free(both);
  cudaload_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* The real toolkit of this machine                                         */
/* ------------------------------------------------------------------------ */

#define REAL_TOOLKIT "/usr/local/cuda"

static long find_library(const cudaload_ctx *ctx, const char *name) {
  for (size_t i = 0; i < cudaload_library_count(ctx); i++) {
    if (strcmp(cudaload_library_name(ctx, i), name) == 0)
      return (long)i;
  }
  return -1;
}

/* digits(.digits)*: what a version read from a file must look like. */
static int well_formed_version(const char *v) {
  if (!*v || *v == '.')
    return 0;
  for (const char *p = v; *p; ++p)
    if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
      return 0;
  return 1;
}

/* The "Version:" of a dist-info METADATA file, into out ("" when none). */
static void metadata_version(const char *metadata, char *out, size_t size) {
  out[0] = '\0';
  FILE *f = fopen(metadata, "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "Version: ", 9) == 0) {
      line[strcspn(line, "\r\n")] = '\0';
      snprintf(out, size, "%s", line + 9);
      break;
    }
  }
  fclose(f);
}

/* A library whose version came from a wheel's dist-info: the version is
 * the one the dist-info folder is named for and its METADATA says. */
static void expect_dist_info_version(const cudaload_ctx *ctx, size_t i) {
  const char *version = cudaload_library_version(ctx, i);
  const char *file = cudaload_library_version_file(ctx, i);
  char folder_tail[600], said[600];
  snprintf(folder_tail, sizeof folder_tail, "-%s.dist-info/METADATA", version);
  metadata_version(file, said, sizeof said);
  if (!ends_with(file, folder_tail) || strcmp(said, version) != 0)
    fail_msg("%s: version %s from dist-info, but its file %s says \"%s\"",
             cudaload_library_path(ctx, i), version, file, said);
}

/* Whatever CUDA toolkit this machine has in /usr/local/cuda (or none: then
 * skipped): each file once, NVRTC's companions not taken for libraries,
 * cudart found, every version well formed, and a version read from a
 * wheel's dist-info equal to what the dist-info says. Properties, not this
 * machine's numbers. */
static void test_real_toolkit(void **state) {
  (void)state;
  if (!is_directory(REAL_TOOLKIT "/lib64")) {
    print_message("[  SKIPPED ] no CUDA toolkit in " REAL_TOOLKIT "\n");
    skip();
  }
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_add_root(ctx, REAL_TOOLKIT "/lib64"), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  if (check_no_duplicates(ctx) != 0) {
    print_inventory(ctx);
    fail_msg("%s", "a file of " REAL_TOOLKIT " was listed twice");
  }
  static const char *const decoys[] = {"libnvrtc.alt.so.13",
                                       "libnvrtc-builtins.so.13.0",
                                       "libnvrtc-builtins.alt.so.13.0", NULL};
  if (check_absent(ctx, decoys) != 0) {
    print_inventory(ctx);
    fail_msg("%s", "NVRTC's companions were reported as libraries");
  }
  if (find_library(ctx, "cudart") < 0) {
    print_inventory(ctx);
    fail_msg("%s", "no cudart in " REAL_TOOLKIT "/lib64");
  }
  size_t from_dist_info = 0;
  for (size_t i = 0; i < cudaload_library_count(ctx); i++) {
    const char *version = cudaload_library_version(ctx, i);
    const char *source = cudaload_library_version_source(ctx, i);
    if (*version && !well_formed_version(version))
      fail_msg("%s: version \"%s\" (from %s) is not digits and dots",
               cudaload_library_path(ctx, i), version, source);
    if (strcmp(source, "dist-info") == 0) {
      expect_dist_info_version(ctx, i);
      from_dist_info++;
    }
  }
  print_message("%lu of %lu libraries of " REAL_TOOLKIT " have a dist-info "
                "version, each the one its METADATA says\n",
                (unsigned long)from_dist_info,
                (unsigned long)cudaload_library_count(ctx));
  cudaload_destroy(ctx);
}
#endif /* !_WIN32 */

int main(void) {
  const struct CMUnitTest tests[] = {
#ifndef _WIN32
      cmocka_unit_test(test_wheels_cu12),
      cmocka_unit_test(test_wheels_cu13),
      cmocka_unit_test(test_toolkit_reports_each_file_once),
      cmocka_unit_test(test_toolkit_library_folder_as_root),
      cmocka_unit_test(test_conda_prefix),
      cmocka_unit_test(test_cudnn8_compat_has_no_version),
      cmocka_unit_test(test_library_folder_with_nvidia_subfolder),
      cmocka_unit_test(test_wheel_version_on_first_question),
      cmocka_unit_test(test_unreadable_wheel_files_are_answers),
      cmocka_unit_test(test_windows_target_ignores_shared_objects),
      cmocka_unit_test(test_every_catalog_name_linux),
      cmocka_unit_test(test_include_dirs),
      cmocka_unit_test(test_explicit_roots_keep_their_order),
      cmocka_unit_test(test_same_file_from_two_roots_once),
      cmocka_unit_test(test_missing_root_does_not_hide_others),
      cmocka_unit_test(test_tegra_folder_is_a_default_root_on_aarch64),
      cmocka_unit_test(test_rescan_replaces_inventory),
      cmocka_unit_test(test_real_toolkit),
      cmocka_unit_test(test_repeated_root_listed_and_scanned_once),
      cmocka_unit_test(test_many_aliases_reported_once),
      cmocka_unit_test(test_big_folder_same_report),
      cmocka_unit_test(test_distinfo_holder_checked_once),
      cmocka_unit_test(test_no_wheel_probes_without_nvidia),
#endif
      cmocka_unit_test(test_missing_root_is_listed_not_fatal),
      cmocka_unit_test(test_repeated_missing_root_listed_once),
      cmocka_unit_test(test_relative_root_rejected),
  };
#ifdef _WIN32
  print_message("note: the Linux fixture trees (ELF names, symlinks) are "
                "checked by the Linux build; test_scan_windows covers this "
                "host\n");
#endif
  return cmocka_run_group_tests(tests, NULL, NULL);
}
