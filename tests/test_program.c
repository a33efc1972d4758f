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
#include "load/plan_state.h"
#include "load/program.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

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

/* The plan warning whose text holds every part, with its identity; NULL
 * when none does. */
static const cl_plan_warning *warning_with(const cudaload_ctx *ctx,
                                           const char *const *parts, size_t n) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->plan_warning_count; ++i) {
    size_t k = 0;
    while (k < n && strstr(ps->plan_warnings[i].text, parts[k]))
      ++k;
    if (k == n)
      return &ps->plan_warnings[i];
  }
  return NULL;
}

static void print_warnings(const cudaload_ctx *ctx) {
  for (size_t i = 0; i < cudaload_plan_warning_count(ctx); ++i)
    print_message("warning: %s\n", cudaload_plan_warning(ctx, i));
}

/* Issue 43, item 8 and issue 41, item 4: TensorFlow 2.21 writes its pins
 * upper bound first ("nvidia-cusolver-cu12<12.0,>=11.6.3.83"): every one
 * is read, the major from both bounds, cuDNN, cuRAND, cuSOLVER, cuSPARSE
 * and NCCL included. */
static void pins_are_read_in_any_order(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/pins/site-packages");
  assert_int_equal(cudaload_require_for(ctx, "tensorflow"), CUDALOAD_OK);
  assert_origin(ctx, "cudnn=9",
                "Requires-Dist: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 of "
                "tensorflow 2.21.0");
  assert_origin(ctx, "curand=10", "nvidia-curand-cu12 <11.0,>=10.3.6.82");
  assert_origin(ctx, "cusolver=11", "nvidia-cusolver-cu12 <12.0,>=11.6.3.83");
  assert_origin(ctx, "cusparse=12", "nvidia-cusparse-cu12 <13.0,>=12.5.1.3");
  assert_origin(ctx, "nccl=2", "nvidia-nccl-cu12 <3.0,>=2.27.7");
  assert_origin(ctx, "cufft=11", "nvidia-cufft-cu12 <12.0,>=11.2.3.61");
  assert_origin(ctx, "cublas=12", "import tensorflow finds");
  /* cuBLAS, CUPTI, NVRTC, cudart, cuDNN, cuFFT, cuRAND, cuSOLVER,
   * cuSPARSE, NCCL, nvJitLink: nvcc's wheel holds no library cudaload
   * plans. */
  assert_int_equal(cudaload_requirement_count(ctx), 11);
  /* The least version a pin names is the one a file must have: the
   * fixture's cuDNN 9.1.0.70 is older than 9.3.0.75. */
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  if (!strstr(cudaload_last_error(), "older than 9.3.0.75"))
    fail_msg("the refusal does not say the pin: %s", cudaload_last_error());
  /* nvcc's wheel is pinned for its compiler: no library major, and no
   * pin left unread either. */
  const char *nvcc[] = {"nvidia-cuda-nvcc-cu12"};
  assert_null(warning_with(ctx, nvcc, 1));
  cudaload_destroy(ctx);
}

/* Markers are evaluated for the target's platform, not matched as
 * substrings: a true 'sys_platform == "win32" or platform_system ==
 * "Linux"' keeps its pin, a false 'platform_system != "Linux"' drops its;
 * "(==10.3.5.147)", "===" and "!=" are read; a marker or specifier that
 * is no PEP 508/440 text is said, with what to require instead. */
static void markers_hold_for_the_target(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/pins/site-packages");
  assert_int_equal(cudaload_require_for(ctx, "markerlike"), CUDALOAD_OK);
  assert_origin(ctx, "cublas=12", "nvidia-cublas-cu12 ==12.4.5.8");
  assert_origin(ctx, "curand=10", "nvidia-curand-cu12 ==10.3.5.147");
  assert_origin(ctx, "cusparse=12", "nvidia-cusparse-cu12 ===12.3.1.170");
  assert_origin(ctx, "nvjitlink=12", "nvidia-nvjitlink-cu12 !=12.4.99,>=12.4");
  assert_int_equal(requirement(ctx, "cufft=11"), SIZE_MAX);
  assert_int_equal(requirement(ctx, "nvrtc=12"), SIZE_MAX);
  assert_int_equal(requirement(ctx, "cudart=12"), SIZE_MAX);
  assert_int_equal(cudaload_requirement_count(ctx), 4);
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  print_warnings(ctx);
  const char *nvrtc[] = {"nvidia-cuda-nvrtc-cu12", "was not read",
                         "no PEP 508 marker", "--require nvrtc=12"};
  const cl_plan_warning *w = warning_with(ctx, nvrtc, 4);
  assert_non_null(w);
  assert_int_equal(w->problem.kind, CUDALOAD_PROBLEM_PIN_UNREAD);
  const char *url[] = {"nvidia-cuda-runtime-cu12 @ https://example.invalid",
                       "no PEP 440", "--require cudart=12"};
  assert_non_null(warning_with(ctx, url, 3));
  cudaload_destroy(ctx);
  /* The same pins for a Windows program: the "or" holds there too, the
   * "!=" pin counts, the aarch64-or-x86_64 one (not on win32) does not. */
  ctx = env_ctx("programs/pins/site-packages");
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require_for(ctx, "markerlike"), CUDALOAD_OK);
  assert_origin(ctx, "cublas=12", "nvidia-cublas-cu12 ==12.4.5.8");
  assert_origin(ctx, "cufft=11", "nvidia-cufft-cu12 ==11.2.1.3");
  assert_int_equal(requirement(ctx, "curand=10"), SIZE_MAX);
  cudaload_destroy(ctx);
}

/* torch pins nvidia-cusparselt-cu12==0.6.2 (CUDA 13 builds: -cu13==0.8.1),
 * whose library is libcusparseLt.so.0: major 0 is a major, the pin a
 * requirement, not a pin "that admits no release" (a false problem every
 * healthy torch venv got). */
static void a_pin_of_major_zero_is_read(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/pins/site-packages");
  assert_int_equal(cudaload_require_for(ctx, "sparseltlike"), CUDALOAD_OK);
  assert_origin(ctx, "cusparseLt=0", "nvidia-cusparselt-cu12 ==0.6.2");
  assert_int_equal(cudaload_requirement_count(ctx), 1);
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  const char *unread[] = {"nvidia-cusparselt-cu12"};
  assert_null(warning_with(ctx, unread, 1));
  cudaload_destroy(ctx);
}

/* Issue 41, item 4: CuPy's cuTENSOR and NCCL modules are imported only
 * when used (consumers.c): what they need is no requirement, never
 * decides the plan's CUDA major, and a cuTENSOR built for CUDA 13 beside
 * it is no answer for this CUDA 12 CuPy: the warning installs
 * cutensor-cu12. Its cuBLAS module's need, which CuPy loads through
 * cuda-pathfinder first, stays a requirement. */
static void an_optional_module_is_needed_only_if_used(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx("programs/cupy/site-packages");
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(
      cudaload_add_root(ctx,
                        test_fixture_path("programs/cutensor13/site-packages")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_require_for(ctx, "cupy"), CUDALOAD_OK);
  assert_origin(ctx, "cublas=12", "the package loads it first");
  assert_origin(ctx, "cudart=12", "of cuda-toolkit 12.4.1"); /* [ctk] */
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  assert_int_equal(requirement(ctx, "cutensor=2"), SIZE_MAX);
  assert_int_equal(requirement(ctx, "nccl=2"), SIZE_MAX);
  /* The modules loaded after cuda-pathfinder are not judged as if the
   * loader alone looked for what they need. */
  assert_int_equal(cudaload_program_file_count(ctx), 0);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_cuda_major(ctx), 12);
  assert_non_null(strstr(cudaload_plan_cuda_reason(ctx), "the program's own"));
  assert_non_null(strstr(cudaload_plan_cuda_reason(ctx), "cupy-cuda12x"));
  print_warnings(ctx);
  const char *cutensor[] = {"only if cuTENSOR", "libcutensor.so.2",
                            "pip install cutensor-cu12"};
  const cl_plan_warning *w = warning_with(ctx, cutensor, 3);
  assert_non_null(w);
  assert_int_equal(w->problem.kind, CUDALOAD_PROBLEM_IF_USED);
  const char *cu13[] = {"cutensor-cu13"};
  assert_null(warning_with(ctx, cu13, 1));
  const char *nccl[] = {"only if NCCL", "pip install nvidia-nccl-cu12"};
  assert_non_null(warning_with(ctx, nccl, 2));
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    assert_null(strstr(cudaload_plan_path(ctx, i), "cutensor13"));
  cudaload_destroy(ctx);
  /* The environment as a whole: NVIDIA's cuda-toolkit meta-distribution
   * is no program of its own; what CuPy asks of it ([cublas,cudart]) is
   * required, its other extras (CUPTI, cuFile) are not. */
  ctx = env_ctx(NULL);
  assert_int_equal(cudaload_require_for(
                       ctx, test_fixture_path("programs/cupy/site-packages")),
                   CUDALOAD_OK);
  assert_origin(ctx, "cudart=12", "of cuda-toolkit 12.4.1");
  assert_origin(ctx, "cublas=12", "of cuda-toolkit 12.4.1");
  assert_int_equal(requirement(ctx, "cupti=12"), SIZE_MAX);
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  cudaload_destroy(ctx);
}

/* Issue 41, item 4: an environment's other program never decides nor
 * blocks: a ctranslate2 3.x built for CUDA 11 with cuDNN 8 beside a CUDA
 * 12 torch needs its libraries only if it is used; torch's CUDA major is
 * the plan's, and the plan succeeds with the CUDA 12 wheels alone. */
static void
another_program_of_the_environment_is_needed_only_if_used(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = env_ctx(NULL);
  assert_int_equal(cudaload_add_root(
                       ctx, test_fixture_path("programs/wheels/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require_for(
                       ctx, test_fixture_path("programs/mixed/site-packages")),
                   CUDALOAD_OK);
  assert_origin(ctx, "cusparse=12", "libtorchlike_cuda.so");
  assert_origin(ctx, "cudart=12", "libtorchlike_cuda.so");
  assert_int_equal(requirement(ctx, "cudart=11"), SIZE_MAX);
  assert_int_equal(requirement(ctx, "cudnn=8"), SIZE_MAX);
  assert_int_equal(requirement(ctx, "cublas=11"), SIZE_MAX);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_cuda_major(ctx), 12);
  assert_non_null(strstr(cudaload_plan_cuda_reason(ctx), "torch 2.5.1"));
  print_warnings(ctx);
  const char *cudnn[] = {"only if ctranslate2 3.24.0 is used",
                         "built for CUDA 11", "torch 2.5.1 for CUDA 12",
                         "no libcudnn.so.8 for CUDA 11",
                         "pip install 'nvidia-cudnn-cu11==8.*'"};
  const cl_plan_warning *w = warning_with(ctx, cudnn, 5);
  assert_non_null(w);
  assert_int_equal(w->problem.kind, CUDALOAD_PROBLEM_IF_USED);
  cudaload_destroy(ctx);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Issue 41, item 4: nvidia-nccl-cu11 installed over nvidia-nccl-cu12 (a
 * stray wheel of another program): both list nvidia/nccl/lib/libnccl.so.2,
 * and the file there is cu11's (its RECORD's size). For a CUDA 12
 * program that is a problem with the reinstall of cu12's that fixes it,
 * and the plan's CUDA major stays the program's. */
static void two_wheels_that_own_one_file_are_a_problem(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  char dir[] = "/tmp/cudaload-test-program-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[512];
  snprintf(path, sizeof path, "%s/nvidia", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/nvidia/nccl", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/nvidia/nccl/lib", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/nvidia/nccl/lib/libnccl.so.2", dir);
  write_file(path, "0123456789"); /* 10 bytes: cu11's RECORD says so */
  const char *dists[][3] = {
      {"nvidia_nccl_cu12-2.21.5.dist-info", "nvidia-nccl-cu12", "2048"},
      {"nvidia_nccl_cu11-2.21.5.dist-info", "nvidia-nccl-cu11", "10"}};
  for (int i = 0; i < 2; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, dists[i][0]);
    assert_int_equal(mkdir(path, 0755), 0);
    char text[512];
    snprintf(path, sizeof path, "%s/%s/METADATA", dir, dists[i][0]);
    snprintf(text, sizeof text,
             "Metadata-Version: 2.1\nName: %s\nVersion: "
             "2.21.5\n\n",
             dists[i][1]);
    write_file(path, text);
    snprintf(path, sizeof path, "%s/%s/RECORD", dir, dists[i][0]);
    snprintf(text, sizeof text,
             "nvidia/nccl/lib/libnccl.so.2,sha256=x,%s\n%s/RECORD,,\n",
             dists[i][2], dists[i][0]);
    write_file(path, text);
  }
  cudaload_ctx *ctx = env_ctx("programs/site-packages");
  assert_int_equal(cudaload_add_environment_root(ctx, dir), CUDALOAD_OK);
  assert_int_equal(cudaload_require_for(ctx, "torchlike"), CUDALOAD_OK);
  (void)cudaload_plan(ctx, 0);
  print_warnings(ctx);
  const char *parts[] = {
      "nvidia-nccl-cu11 2.21.5 and nvidia-nccl-cu12 2.21.5 both install "
      "nvidia/nccl/lib/libnccl.so.2",
      "the files there are nvidia-nccl-cu11 2.21.5's",
      "pip uninstall -y nvidia-nccl-cu11; pip install "
      "--force-reinstall --no-deps nvidia-nccl-cu12==2.21.5"};
  const cl_plan_warning *w =
      warning_with(ctx, parts, sizeof parts / sizeof *parts);
  assert_non_null(w);
  assert_int_equal(w->problem.kind, CUDALOAD_PROBLEM_SAME_FILES);
  /* The fix as steps: the uninstall, then the reinstall. */
  assert_int_equal(w->problem.fix.count, 2);
  assert_int_equal(w->problem.fix.steps[0].action, CUDALOAD_FIX_COMMAND);
  assert_string_equal(w->problem.fix.steps[0].argv[3], "nvidia-nccl-cu11");
  assert_int_equal(w->problem.fix.steps[1].action, CUDALOAD_FIX_INSTALL);
  assert_string_equal(w->problem.fix.steps[1].argv[4],
                      "nvidia-nccl-cu12==2.21.5");
  assert_int_equal(cudaload_plan_cuda_major(ctx), 12);
  cudaload_destroy(ctx);
  const char *names[] = {"nvidia/nccl/lib/libnccl.so.2",
                         "nvidia_nccl_cu12-2.21.5.dist-info/METADATA",
                         "nvidia_nccl_cu12-2.21.5.dist-info/RECORD",
                         "nvidia_nccl_cu11-2.21.5.dist-info/METADATA",
                         "nvidia_nccl_cu11-2.21.5.dist-info/RECORD",
                         "nvidia_nccl_cu12-2.21.5.dist-info",
                         "nvidia_nccl_cu11-2.21.5.dist-info",
                         "nvidia/nccl/lib",
                         "nvidia/nccl",
                         "nvidia",
                         ""};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    (void)(i < 5 ? unlink(path) : rmdir(path));
  }
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
      cmocka_unit_test(pins_are_read_in_any_order),
      cmocka_unit_test(markers_hold_for_the_target),
      cmocka_unit_test(a_pin_of_major_zero_is_read),
      cmocka_unit_test(an_optional_module_is_needed_only_if_used),
      cmocka_unit_test(two_wheels_that_own_one_file_are_a_problem),
      cmocka_unit_test(
          another_program_of_the_environment_is_needed_only_if_used),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
