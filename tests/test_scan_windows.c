/* SPDX-License-Identifier: MIT */
/*
 * test_scan_windows.c - what cudaload_scan() reports for the Windows fixture
 * trees (tests/fixtures/.../windows): wheels, the CUDA toolkit installers
 * (bin and, from CUDA 13, bin\x64), the cuDNN 9 installer (bin\<cuda>),
 * cuDNN 8 in a plain folder, CUDA 11 names, PyTorch's bundled DLLs and decoys.
 *
 * With CUDALOAD_TARGET_WINDOWS the same test runs on Linux (a Linux machine
 * preparing a Windows install: the DLLs are just files) and natively under
 * Wine (the host's own names). Versions come from dist-info for wheels and
 * from the DLLs' VERSIONINFO for everything else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudaload.h"
#include "scan_expect.h"
#include "test_paths.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* Whether path ends with suffix ('/'-separated), comparing '\' and '/' as
 * the same separator, since the library answers in the host's spelling. */
static int path_ends_with(const char *path, const char *suffix) {
  size_t path_len = strlen(path);
  size_t suffix_len = strlen(suffix);
  if (path_len < suffix_len)
    return 0;
  const char *tail = path + path_len - suffix_len;
  for (size_t i = 0; i < suffix_len; i++) {
    char a = tail[i] == '\\' ? '/' : tail[i];
    char b = suffix[i] == '\\' ? '/' : suffix[i];
    if (a != b)
      return 0;
  }
  return 1;
}

static int check_suffix(size_t i, const char *field, const char *actual,
                        const char *suffix) {
  if (actual != NULL && path_ends_with(actual, suffix))
    return 0;
  print_error("  [%lu] %s: expected a path ending in \"%s\", got \"%s\"\n",
              (unsigned long)i, field, suffix, or_null(actual));
  return 1;
}

/* The Windows trees have no symlinks: want->path is the real file. */
static int check_library(const cudaload_ctx *ctx, size_t i,
                         const expected_library *want) {
  int errors = check_library_fields(ctx, i, want);
  errors +=
      check_suffix(i, "version_file", cudaload_library_version_file(ctx, i),
                   want->version_file_suffix);
  /* "/windows/..." so that a path under another tree cannot match. */
  char path_suffix[512];
  snprintf(path_suffix, sizeof path_suffix, "/%s", want->path);
  errors += check_suffix(i, "path", cudaload_library_path(ctx, i), path_suffix);
  return errors;
}

/* Files with CUDA-like names that are in no catalog. */
static const char *const decoys[] = {"cudnnfake64_9.dll", "cublas64.dll", NULL};

/* Compare the whole inventory with want[0..want_count), in order; print
 * every mismatch and the inventory before failing. */
static void check_inventory(const cudaload_ctx *ctx, const char *what,
                            const expected_library *want, size_t want_count) {
  int errors = check_libraries(ctx, want, want_count, check_library);
  errors += check_absent(ctx, decoys);
  fail_on_mismatches(ctx, what, errors);
}

/* The Windows trees need mingw-w64 when the build was configured. */
static int windows_fixtures_missing(void) {
  const char *path = test_fixture_path("windows/site-packages");
  if (is_directory(path))
    return 0;
  print_message("[  SKIPPED ] %s was not built: configure with "
                "x86_64-w64-mingw32-gcc and -windres installed\n",
                path);
  return 1;
}

/* A context that has scanned one root of the windows tree. */
static cudaload_ctx *scan_windows_root(const char *rel, int target) {
  cudaload_ctx *ctx = new_context(target);
  add_fixture_root(ctx, rel);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  return ctx;
}

static void expect_root(const char *rel, const expected_library *want,
                        size_t want_count) {
  cudaload_ctx *ctx = scan_windows_root(rel, CUDALOAD_TARGET_WINDOWS);
  check_inventory(ctx, rel, want, want_count);
  cudaload_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* The trees                                                                */
/* ------------------------------------------------------------------------ */

#define WHEEL "windows/site-packages/nvidia/"
#define WHEEL_CUDNN(name, file)                                                \
  {                                                                            \
    name, "cudnn", 9, 12, "9.1.0.70", "dist-info",                             \
        "/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info/METADATA",        \
        WHEEL "cudnn/bin/" file                                                \
  }

/* pip's Windows wheels: nvidia/<package>/bin. The DLLs carry VERSIONINFO
 * too, but dist-info comes first. */
static void test_windows_wheels(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      {"cublas", "cublas", 12, 12, "12.4.5.8", "dist-info",
       "/site-packages/nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA",
       WHEEL "cublas/bin/cublas64_12.dll"},
      {"cublasLt", "cublas", 12, 12, "12.4.5.8", "dist-info",
       "/site-packages/nvidia_cublas_cu12-12.4.5.8.dist-info/METADATA",
       WHEEL "cublas/bin/cublasLt64_12.dll"},
      {"nvrtc", "nvrtc", 12, 12, "12.4.127", "dist-info",
       "/site-packages/nvidia_cuda_nvrtc_cu12-12.4.127.dist-info/METADATA",
       WHEEL "cuda_nvrtc/bin/nvrtc64_120_0.dll"},
      {"cudart", "cudart", 12, 12, "12.4.127", "dist-info",
       "/site-packages/nvidia_cuda_runtime_cu12-12.4.127.dist-info/METADATA",
       WHEEL "cuda_runtime/bin/cudart64_12.dll"},
      WHEEL_CUDNN("cudnn", "cudnn64_9.dll"),
      WHEEL_CUDNN("cudnn_adv", "cudnn_adv64_9.dll"),
      WHEEL_CUDNN("cudnn_cnn", "cudnn_cnn64_9.dll"),
      WHEEL_CUDNN("cudnn_engines_precompiled",
                  "cudnn_engines_precompiled64_9.dll"),
      WHEEL_CUDNN("cudnn_engines_runtime_compiled",
                  "cudnn_engines_runtime_compiled64_9.dll"),
      WHEEL_CUDNN("cudnn_graph", "cudnn_graph64_9.dll"),
      WHEEL_CUDNN("cudnn_heuristic", "cudnn_heuristic64_9.dll"),
      WHEEL_CUDNN("cudnn_ops", "cudnn_ops64_9.dll"),
  };
  expect_root("windows/site-packages", want, ARRAY_COUNT(want));
}

#define CUDA_DIR "windows/Program Files/NVIDIA GPU Computing Toolkit/CUDA/"

/* The CUDA 12 installer: DLLs in bin, versions from VERSIONINFO. */
static void test_windows_toolkit_12(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      {"cublas", "cublas", 12, 12, "12.4.5.8", "versioninfo",
       "/cublas64_12.dll", CUDA_DIR "v12.4/bin/cublas64_12.dll"},
      {"cublasLt", "cublas", 12, 12, "12.4.5.8", "versioninfo",
       "/cublasLt64_12.dll", CUDA_DIR "v12.4/bin/cublasLt64_12.dll"},
      {"cudart", "cudart", 12, 12, "12.4.127.0", "versioninfo",
       "/cudart64_12.dll", CUDA_DIR "v12.4/bin/cudart64_12.dll"},
      /* nvrtc64_120_0.dll: the 12 is the major, the 0 the minor it keeps
       * ABI with. */
      {"nvrtc", "nvrtc", 12, 12, "12.4.127.0", "versioninfo",
       "/nvrtc64_120_0.dll", CUDA_DIR "v12.4/bin/nvrtc64_120_0.dll"},
  };
  expect_root(CUDA_DIR "v12.4", want, ARRAY_COUNT(want));
}

/* CUDA 13 moved the DLLs to bin\x64. */
static void test_windows_toolkit_13(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      {"cublas", "cublas", 13, 13, "13.1.0.3", "versioninfo",
       "/cublas64_13.dll", CUDA_DIR "v13.0/bin/x64/cublas64_13.dll"},
      {"cublasLt", "cublas", 13, 13, "13.1.0.3", "versioninfo",
       "/cublasLt64_13.dll", CUDA_DIR "v13.0/bin/x64/cublasLt64_13.dll"},
      {"cudart", "cudart", 13, 13, "13.0.96.0", "versioninfo",
       "/cudart64_13.dll", CUDA_DIR "v13.0/bin/x64/cudart64_13.dll"},
  };
  expect_root(CUDA_DIR "v13.0", want, ARRAY_COUNT(want));
}

#define CUDNN_INSTALLER "windows/Program Files/NVIDIA/CUDNN/v9.1/bin/12.4/"
#define INSTALLER_CUDNN(name, file)                                            \
  {                                                                            \
    name, "cudnn", 9, 0, "9.1.0.70", "versioninfo", "/" file,                  \
        CUDNN_INSTALLER file                                                   \
  }

/* The cuDNN 9 installer nests its DLLs by CUDA version (bin\12.4); nothing
 * there names the CUDA major in a way the contract reads, so it is 0. */
static void test_windows_cudnn9_installer(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      INSTALLER_CUDNN("cudnn", "cudnn64_9.dll"),
      INSTALLER_CUDNN("cudnn_adv", "cudnn_adv64_9.dll"),
      INSTALLER_CUDNN("cudnn_cnn", "cudnn_cnn64_9.dll"),
      INSTALLER_CUDNN("cudnn_engines_precompiled",
                      "cudnn_engines_precompiled64_9.dll"),
      INSTALLER_CUDNN("cudnn_engines_runtime_compiled",
                      "cudnn_engines_runtime_compiled64_9.dll"),
      INSTALLER_CUDNN("cudnn_graph", "cudnn_graph64_9.dll"),
      INSTALLER_CUDNN("cudnn_heuristic", "cudnn_heuristic64_9.dll"),
      INSTALLER_CUDNN("cudnn_ops", "cudnn_ops64_9.dll"),
  };
  expect_root("windows/Program Files/NVIDIA/CUDNN/v9.1", want,
              ARRAY_COUNT(want));
}

#define CUDNN8(name, file)                                                     \
  {                                                                            \
    name, "cudnn", 8, 0, "8.9.7.29", "versioninfo", "/" file,                  \
        "windows/cudnn8/" file                                                 \
  }

static void test_windows_cudnn8_folder(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      CUDNN8("cudnn", "cudnn64_8.dll"),
      CUDNN8("cudnn_adv_infer", "cudnn_adv_infer64_8.dll"),
      CUDNN8("cudnn_adv_train", "cudnn_adv_train64_8.dll"),
      CUDNN8("cudnn_cnn_infer", "cudnn_cnn_infer64_8.dll"),
      CUDNN8("cudnn_cnn_train", "cudnn_cnn_train64_8.dll"),
      CUDNN8("cudnn_ops_infer", "cudnn_ops_infer64_8.dll"),
      CUDNN8("cudnn_ops_train", "cudnn_ops_train64_8.dll"),
  };
  expect_root("windows/cudnn8", want, ARRAY_COUNT(want));
}

/* CUDA 11 names: cudart64_110.dll is cudart 11, nvrtc64_112_0.dll nvrtc 11. */
static void test_windows_cuda11_names(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      {"cudart", "cudart", 11, 11, "11.8.89.0", "versioninfo",
       "/cudart64_110.dll", "windows/legacy/cudart64_110.dll"},
      {"nvrtc", "nvrtc", 11, 11, "11.8.89.0", "versioninfo",
       "/nvrtc64_112_0.dll", "windows/legacy/nvrtc64_112_0.dll"},
  };
  expect_root("windows/legacy", want, ARRAY_COUNT(want));
}

/* PyTorch's Windows wheels bundle cuDNN and cuBLAS in torch\lib; the root is
 * the folder holding torch (site-packages in real life). */
static void test_windows_torch_bundle(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      {"cublas", "cublas", 12, 12, "12.4.5.8", "versioninfo",
       "/cublas64_12.dll", "windows/torch/lib/cublas64_12.dll"},
      {"cublasLt", "cublas", 12, 12, "12.4.5.8", "versioninfo",
       "/cublasLt64_12.dll", "windows/torch/lib/cublasLt64_12.dll"},
      {"cudnn", "cudnn", 9, 0, "9.1.0.70", "versioninfo", "/cudnn64_9.dll",
       "windows/torch/lib/cudnn64_9.dll"},
  };
  expect_root("windows", want, ARRAY_COUNT(want));
}

/* ctranslate2 4.4.0 bundles a cudnn64_8.dll whose VERSIONINFO is
 * 6.14.11.6050, which NVIDIA's stamp rule (6.14.11.MMmp) would read as cuDNN
 * 60.5.0: a version its own name (major 8) contradicts is not reported. */
static void test_windows_contradicting_versioninfo(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const expected_library want[] = {
      {"cudnn", "cudnn", 8, 0, "", "none", "",
       "windows/ct2/site-packages/ctranslate2/cudnn64_8.dll"},
  };
  expect_root("windows/ct2/site-packages", want, ARRAY_COUNT(want));
}

/* cudnnfake64_9.dll and cublas64.dll (no major) are not CUDA libraries. */
static void test_windows_decoys_not_reported(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  expect_root("windows/decoys", NULL, 0);
}

/* A scan for Linux names ignores DLLs, even in the layouts it searches. */
/* One real DLL for every Windows name of NVIDIA's cuda-pathfinder catalog
 * and cudaload's own (tests/fixtures/make_fixtures.py, catalog_tree), each
 * in the folder its layout puts it (bin, nvvm\bin, nvvm\bin\x64,
 * site-packages\cutensor\bin, ...): a scan recognises every one as the
 * library expected.txt names, and lists nothing else. */
static void test_windows_every_catalog_name(void **state) {
  (void)state;
  if (!is_directory(test_fixture_path("catalog/windows"))) {
    print_message("[  SKIPPED ] catalog/windows was not built (no "
                  "x86_64-w64-mingw32-gcc when configuring)\n");
    skip();
  }
  check_catalog_tree("catalog/windows", CUDALOAD_TARGET_WINDOWS);
}

static void test_linux_target_ignores_dlls(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  static const char *const roots[] = {"windows/site-packages", CUDA_DIR "v12.4",
                                      "windows/cudnn8", "windows"};
  for (size_t i = 0; i < ARRAY_COUNT(roots); i++) {
    cudaload_ctx *ctx = scan_windows_root(roots[i], CUDALOAD_TARGET_LINUX);
    check_inventory(ctx, roots[i], NULL, 0);
    cudaload_destroy(ctx);
  }
}

/* On Windows the host's names are the Windows ones. */
static void test_host_target_is_windows_on_windows(void **state) {
  (void)state;
#ifndef _WIN32
  print_message("[  SKIPPED ] the host target is Windows only on Windows\n");
  skip();
#else
  if (windows_fixtures_missing())
    skip();
  cudaload_ctx *ctx = scan_windows_root("windows/cudnn8", CUDALOAD_TARGET_HOST);
  assert_int_equal(cudaload_library_count(ctx), 7);
  assert_string_equal(cudaload_library_name(ctx, 0), "cudnn");
  assert_string_equal(cudaload_library_version(ctx, 0), "8.9.7.29");
  cudaload_destroy(ctx);
#endif
}

/* A root given again in another spelling of the same folder is listed and
 * searched once, under its first spelling: with a trailing separator, and
 * on Windows also with '/' for '\\' and in another case (Windows compares
 * file names without case). */
static void test_windows_repeated_root_listed_once(void **state) {
  (void)state;
  if (windows_fixtures_missing())
    skip();
  char first[TEST_PATH_CAPACITY], trailing[TEST_PATH_CAPACITY + 2];
  snprintf(first, sizeof first, "%s", test_fixture_path("windows/cudnn8"));
  snprintf(trailing, sizeof trailing, "%s%c", first,
#ifdef _WIN32
           '\\'
#else
           '/'
#endif
  );
  char slashes[TEST_PATH_CAPACITY], upper[TEST_PATH_CAPACITY];
  snprintf(slashes, sizeof slashes, "%s", first);
  snprintf(upper, sizeof upper, "%s", first);
#ifdef _WIN32
  for (char *p = slashes; *p; p++)
    if (*p == '\\')
      *p = '/';
  for (char *p = upper; *p; p++)
    if (*p >= 'a' && *p <= 'z')
      *p = (char)(*p - 'a' + 'A');
#endif
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_WINDOWS);
  const char *const spellings[] = {first, trailing, slashes, upper, first};
  for (size_t i = 0; i < ARRAY_COUNT(spellings); i++)
    assert_int_equal(cudaload_add_root(ctx, spellings[i]), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_int_equal(cudaload_root_count(ctx), 1);
  assert_string_equal(cudaload_root_path(ctx, 0), first);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_library_count(ctx), 7);
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    assert_int_equal(cudaload_library_root(ctx, i), 0);
  cudaload_destroy(ctx);
}

/* Windows paths as people write them (issue 29, item 7): a root in quotes
 * (Explorer's "Copy as path") is the folder inside them; a root given with
 * '/' is reported with '\\', and so is every library found under it. */
static void test_windows_roots_as_people_write_them(void **state) {
  (void)state;
#ifndef _WIN32
  print_message("[  SKIPPED ] quotes and '/' in Windows paths: Windows only\n");
  skip();
#else
  if (windows_fixtures_missing())
    skip();
  const char *folder = test_fixture_path("windows/cudnn8");
  char quoted[TEST_PATH_CAPACITY + 2];
  snprintf(quoted, sizeof quoted, "\"%s\"", folder);
  cudaload_ctx *ctx = new_context(CUDALOAD_TARGET_HOST);
  assert_int_equal(cudaload_add_root(ctx, quoted), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_string_equal(cudaload_root_path(ctx, 0), folder);
  assert_int_equal(cudaload_library_count(ctx), 7);
  cudaload_destroy(ctx);
  /* The tree holding torch\\lib, given with '/'. */
  char venv[TEST_PATH_CAPACITY];
  snprintf(venv, sizeof venv, "%s", test_fixture_path("windows"));
  for (char *p = venv; *p; p++)
    if (*p == '\\')
      *p = '/';
  ctx = new_context(CUDALOAD_TARGET_HOST);
  assert_int_equal(cudaload_add_root(ctx, venv), CUDALOAD_OK);
  scan_or_fail(ctx);
  assert_true(strchr(cudaload_root_path(ctx, 0), '/') == NULL);
  assert_true(cudaload_library_count(ctx) > 0);
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    if (strchr(cudaload_library_path(ctx, i), '/'))
      fail_msg("a path with '/': %s", cudaload_library_path(ctx, i));
  cudaload_destroy(ctx);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_windows_roots_as_people_write_them),
      cmocka_unit_test(test_windows_wheels),
      cmocka_unit_test(test_windows_every_catalog_name),
      cmocka_unit_test(test_windows_toolkit_12),
      cmocka_unit_test(test_windows_toolkit_13),
      cmocka_unit_test(test_windows_cudnn9_installer),
      cmocka_unit_test(test_windows_cudnn8_folder),
      cmocka_unit_test(test_windows_cuda11_names),
      cmocka_unit_test(test_windows_torch_bundle),
      cmocka_unit_test(test_windows_contradicting_versioninfo),
      cmocka_unit_test(test_windows_decoys_not_reported),
      cmocka_unit_test(test_linux_target_ignores_dlls),
      cmocka_unit_test(test_host_target_is_windows_on_windows),
      cmocka_unit_test(test_windows_repeated_root_listed_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
