/* SPDX-License-Identifier: MIT */
/*
 * test_program.c - cudaload_require_for(): requirements read from the
 * program a user has (a binary, an installed module or distribution, an
 * interpreter or its venv), each with where it came from, on the
 * "programs" fixture tree (tests/fixtures/make_fixtures.py, programs()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32

static int has_fixtures(void) {
  FILE *f = fopen(test_fixture_path("programs/venv/pyvenv.cfg"), "rb");
  if (f)
    fclose(f);
  return f != NULL;
}

#define REQUIRE_FIXTURES()                                                     \
  do {                                                                         \
    if (!has_fixtures()) {                                                     \
      print_message("skipped: the programs fixture tree is not built in %s\n", \
                    CUDALOAD_FIXTURES_DIR);                                    \
      skip();                                                                  \
    }                                                                          \
  } while (0)

static cudaload_ctx *env_ctx(const char *environment) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  if (environment)
    assert_int_equal(
        cudaload_add_environment_root(ctx, test_fixture_path(environment)),
        CUDALOAD_OK);
  return ctx;
}

/* The index of requirement `text`, or SIZE_MAX. */
static size_t requirement(const cudaload_ctx *ctx, const char *text) {
  for (size_t i = 0; i < cudaload_requirement_count(ctx); ++i)
    if (strcmp(cudaload_requirement_text(ctx, i), text) == 0)
      return i;
  return SIZE_MAX;
}

static void assert_origin(const cudaload_ctx *ctx, const char *text,
                          const char *part) {
  size_t i = requirement(ctx, text);
  if (i == SIZE_MAX)
    fail_msg("no requirement %s", text);
  const char *origin = cudaload_requirement_origin(ctx, i);
  if (!origin || !strstr(origin, part))
    fail_msg("requirement %s: origin \"%s\" does not say \"%s\"", text,
             origin ? origin : "(null)", part);
}

/* A module named apart from its distribution (ortlike from ortlike-gpu, as
 * onnxruntime from onnxruntime-gpu): every CUDA library its provider NEEDs
 * is a requirement, saying so; its extras' pins add the least versions;
 * a pin for Windows only does not count on Linux. */
static void a_module_requires_what_its_files_need(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/site-packages");
  assert_int_equal(cudaload_require_for(ctx, "ortlike"), CUDALOAD_OK);
  const char *expected[] = {"cudnn=9", "cublas=12", "cufft=11", "curand=10",
                            "cudart=12"};
  for (size_t k = 0; k < 5; ++k)
    assert_origin(ctx, expected[k],
                  "libortlike_providers_cuda.so (ELF NEEDED)");
  /* NVRTC: no file needs it, the [cuda] extra pins it. */
  assert_origin(ctx, "nvrtc=12",
                "Requires-Dist: nvidia-cuda-nvrtc-cu12 ~=12.0 of ortlike-gpu");
  assert_int_equal(cudaload_requirement_count(ctx), 6);
  assert_origin(ctx, "cudnn=9",
                "Requires-Dist: nvidia-cudnn-cu12 ~=9.0 of ortlike-gpu 1.0");
  assert_int_equal(requirement(ctx, "cusolver=11"), SIZE_MAX);
  /* Both providers are the program's files (the TensorRT one is a plugin
   * the doctor notes: tests/cli). */
  assert_int_equal(cudaload_program_file_count(ctx), 2);
  assert_non_null(strstr(cudaload_program_file(ctx, 0),
                         "ortlike/capi/libortlike_providers_cuda.so"));
  assert_non_null(strstr(cudaload_program_file(ctx, 1),
                         "ortlike/capi/libortlike_providers_tensorrt.so"));
  /* Without the wheels nothing satisfies them, and the plan says so. */
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  /* With them, each is planned, cudart pinning CUDA 12. */
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_cuda_major(ctx), 12);
  cudaload_destroy(ctx);
}

/* torch pins nvJitLink 12.4.127 though no file of its own needs it (its
 * cuSPARSE does): the pin is a requirement, and its version is the least
 * one a file may have. An older nvJitLink first (a CUDA 12.1 toolkit given
 * as an explicit root, which would win) is refused, saying why, and the
 * wheel's is planned. */
static void a_pin_sets_the_least_version(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/site-packages");
  assert_int_equal(
      cudaload_add_root(ctx, test_fixture_path("programs/old-toolkit")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require_for(ctx, "torchlike"), CUDALOAD_OK);
  assert_origin(ctx, "nvjitlink=12",
                "Requires-Dist: nvidia-nvjitlink-cu12 ==12.4.127 of "
                "torchlike 2.5.1");
  assert_origin(ctx, "cusparse=12", "libtorchlike_cuda.so (ELF NEEDED)");
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  size_t r = requirement(ctx, "nvjitlink=12");
  size_t chosen = cudaload_requirement_library(ctx, r);
  assert_non_null(strstr(cudaload_library_path(ctx, chosen),
                         "wheels/site-packages/nvidia/nvjitlink"));
  cudaload_destroy(ctx);
  /* The same pin without the wheel: the old file is all there is, and it
   * does not do. */
  ctx = env_ctx("programs/site-packages");
  assert_int_equal(
      cudaload_add_root(ctx, test_fixture_path("programs/old-toolkit")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_require_for(ctx, "torchlike"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  const char *why = cudaload_last_error();
  if (!strstr(why, "version 12.1.105 is older than 12.4.127, which its "
                   "program pins"))
    fail_msg("the refusal does not say why: %s", why);
  cudaload_destroy(ctx);
}

/* A venv's interpreter run by path, nothing activated: its pyvenv.cfg
 * names its environment, which becomes the active one, and what is
 * installed there is the program. */
static void an_interpreter_brings_its_venv(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx(NULL);
  assert_int_equal(
      cudaload_require_for(ctx, test_fixture_path("programs/venv/bin/python")),
      CUDALOAD_OK);
  assert_origin(ctx, "cusparse=12",
                "venv/lib/python3.11/site-packages/"
                "torchlike/lib/libtorchlike_cuda.so");
  assert_origin(ctx, "nvjitlink=12", "of torchlike 2.5.1");
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  int venv_root = 0;
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i)
    venv_root |= strstr(cudaload_root_path(ctx, i), "programs/venv") != NULL &&
                 strcmp(cudaload_root_tier(ctx, i), "environment") == 0;
  assert_true(venv_root);
  cudaload_destroy(ctx);
}

/* A binary: what it needs. */
static void a_binary_requires_what_it_needs(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx(NULL);
  const char *file = test_fixture_path(
      "programs/site-packages/torchlike/lib/libtorchlike_cuda.so");
  assert_int_equal(cudaload_require_for(ctx, file), CUDALOAD_OK);
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  assert_origin(ctx, "cusparse=12", "ELF NEEDED");
  assert_origin(ctx, "cudart=12", "ELF NEEDED");
  cudaload_destroy(ctx);
}

/* What is not a program says where it looked and how to name the
 * environment; a relative path is refused; nothing is added. */
static void a_target_that_is_nothing_says_where_it_looked(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/site-packages");
  assert_int_equal(cudaload_require_for(ctx, "no_such_module"),
                   CUDALOAD_E_NOT_FOUND);
  assert_non_null(strstr(cudaload_last_error(), "programs/site-packages"));
  assert_int_equal(cudaload_requirement_count(ctx), 0);
  assert_int_equal(cudaload_require_for(ctx, "lib/app"),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(
      cudaload_require_for(ctx, test_fixture_path("programs/venv/pyvenv.cfg")),
      CUDALOAD_E_NOT_FOUND);
  assert_int_equal(cudaload_require_for(ctx, ""), CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_require_for(NULL, "x"),
                   CUDALOAD_E_INVALID_ARGUMENT);
  cudaload_destroy(ctx);
}

/* One consumer's requirement does not replace what another, installed in
 * the environment, binds: torch13like binds its pinned cuDNN 9.26 through
 * its RUNPATH; cudnn=9 with a root of CUDA 12 wheels (cuDNN 9.28, for
 * another consumer) keeps torch13like's, which satisfies it; cudnn>=9.28,
 * which it does not, plans 9.28 and warns that the two cannot share one
 * process. */
static void what_a_program_binds_is_kept(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/env13/site-packages");
  assert_int_equal(cudaload_add_root(ctx, test_fixture_path("programs/cu12")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  size_t chosen = cudaload_requirement_library(ctx, 0);
  assert_non_null(strstr(cudaload_library_path(ctx, chosen),
                         "env13/site-packages/nvidia/cudnn"));
  cudaload_destroy(ctx);

  ctx = env_ctx("programs/env13/site-packages");
  assert_int_equal(cudaload_add_root(ctx, test_fixture_path("programs/cu12")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn>=9.28"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  chosen = cudaload_requirement_library(ctx, 0);
  assert_non_null(strstr(cudaload_library_path(ctx, chosen), "programs/cu12/"));
  int said = 0;
  for (size_t i = 0; i < cudaload_plan_warning_count(ctx); ++i)
    said |= strstr(cudaload_plan_warning(ctx, i), "cannot share one process") &&
            strstr(cudaload_plan_warning(ctx, i), "libtorch13like_cuda.so");
  assert_true(said);
  cudaload_destroy(ctx);
}

#endif

int main(void) {
#ifdef _WIN32
  print_message("[  SKIPPED ] test_program: the programs tree is a Linux "
                "tree (the Windows Python tier runs the real ones)\n");
  return 0;
#else
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_module_requires_what_its_files_need),
      cmocka_unit_test(a_pin_sets_the_least_version),
      cmocka_unit_test(an_interpreter_brings_its_venv),
      cmocka_unit_test(a_binary_requires_what_it_needs),
      cmocka_unit_test(a_target_that_is_nothing_says_where_it_looked),
      cmocka_unit_test(what_a_program_binds_is_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
