/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - requirement specs, plans and search-path composition over
 * the fixture trees. Planning reads headers and loads nothing, so these
 * cases share one process; loading scenarios live in test_preload.c.
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
#include <unistd.h>
#endif

static cudaload_ctx *new_ctx(const char *const *roots, size_t n) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  for (size_t i = 0; i < n; ++i)
    assert_int_equal(cudaload_add_root(ctx, test_fixture_path(roots[i])),
                     CUDALOAD_OK);
  return ctx;
}

#ifndef _WIN32
/* The plan scenarios use the Linux fixture trees; under Wine the preload
 * tests cover plans of the Windows trees, and the test below the DLLs of
 * other machines. */

static int has_fixtures(void) {
  FILE *f = fopen(test_fixture_path("cudnn8_compat/libcudnn.so.8"), "rb");
  if (f)
    fclose(f);
  return f != NULL;
}

#define REQUIRE_FIXTURES()                                                     \
  do {                                                                         \
    if (!has_fixtures()) {                                                     \
      print_message("skipped: fixture trees not built in %s\n",                \
                    CUDALOAD_FIXTURES_DIR);                                    \
      skip();                                                                  \
    }                                                                          \
  } while (0)

#endif

static void specs_are_parsed_and_normalised(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_require(ctx, "cudnn=8, cudnn == 9"), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "CUBLAS>=12.1,cudart"), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK); /* dup */
  assert_int_equal(cudaload_require(ctx, "nvjitlink<13,cufft>11,nccl<=2"),
                   CUDALOAD_OK);
  static const char *const expected[] = {
      "cudnn=8",      "cudnn=9",  "cublas>=12.1", "cudart",
      "nvjitlink<13", "cufft>11", "nccl<=2"};
  assert_int_equal(cudaload_requirement_count(ctx), 7);
  for (size_t i = 0; i < 7; ++i)
    assert_string_equal(cudaload_requirement_text(ctx, i), expected[i]);
  assert_null(cudaload_requirement_text(ctx, 7));
  cudaload_destroy(ctx);
  /* Every main library by its name or family, any case; "npp" is NPP's
   * eleven libraries; the driver's are not requirable. */
  ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_require(ctx, "nvjpeg, CUTENSOR=2, cusolverMg>=11, "
                                         "npp=12, cupti=13"),
                   CUDALOAD_OK);
  static const char *const broad[] = {
      "nvjpeg",    "cutensor=2", "cusolverMg>=11", "nppc=12",  "nppial=12",
      "nppicc=12", "nppidei=12", "nppif=12",       "nppig=12", "nppim=12",
      "nppist=12", "nppisu=12",  "nppitc=12",      "npps=12",  "cupti=13"};
  assert_int_equal(cudaload_requirement_count(ctx),
                   sizeof broad / sizeof *broad);
  for (size_t i = 0; i < sizeof broad / sizeof *broad; ++i)
    assert_string_equal(cudaload_requirement_text(ctx, i), broad[i]);
  assert_int_equal(cudaload_require(ctx, "nvml"), CUDALOAD_E_BAD_SPEC);
  assert_int_equal(cudaload_require(ctx, "nvcudla"), CUDALOAD_E_BAD_SPEC);
  cudaload_destroy(ctx);
}

/* What an error message names is a requirement too: a sub-library by its
 * catalog name ("cudnn_ops_infer=8", which scan prints) or a file name
 * (dlopen's "libcublasLt.so.12", Windows' "cudnn_ops_infer64_8.dll") is its
 * family's requirement for the major the name carries. */
static void libraries_are_required_by_their_own_and_file_names(void **state) {
  (void)state;
  static const struct {
    const char *spec, *text;
  } cases[] = {
      {"cudnn_ops_infer=8", "cudnn=8"},
      {"CUDNN_OPS_INFER", "cudnn=8"}, /* one major only: that one */
      {"cudnn_graph>=9.1", "cudnn>=9.1"},
      {"cublasLt", "cublas"},
      {"cublasLt=12", "cublas=12"},
      {"libcublasLt.so.12", "cublas=12"},
      {"libcudnn_ops_infer.so.8", "cudnn=8"},
      {"libcudnn.so.8.9.7", "cudnn=8"},
      {"libcudart.so.13", "cudart=13"},
      {"libcufft.so.11", "cufft=11"},
      {"cudnn_ops_infer64_8.dll", "cudnn=8"},
      {"cublas64_12.dll", "cublas=12"},
      {"CUBLASLT64_13.DLL", "cublas=13"},
      {"nppig64_12.dll", "nppig=12"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    int rc = cudaload_require(ctx, cases[i].spec);
    if (rc != CUDALOAD_OK)
      fail_msg("spec \"%s\" gave %d: %s", cases[i].spec, rc,
               cudaload_last_error());
    assert_int_equal(cudaload_requirement_count(ctx), 1);
    if (strcmp(cudaload_requirement_text(ctx, 0), cases[i].text) != 0)
      fail_msg("spec \"%s\" became \"%s\", not \"%s\"", cases[i].spec,
               cudaload_requirement_text(ctx, 0), cases[i].text);
    cudaload_destroy(ctx);
  }
  /* Several, as a pasted list: one requirement each, duplicates once. */
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_require(ctx, "libcublas.so.12, libcublasLt.so.12,"
                                         "cudnn_ops_infer=8"),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cublas=12");
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cudnn=8");
  cudaload_destroy(ctx);
}

static void bad_specs_are_refused_and_add_nothing(void **state) {
  (void)state;
  static const struct {
    const char *spec, *needle;
  } bad[] = {
      {"", "empty entry"},
      {"cudnn=8,", "empty entry"},
      {",cudnn=8", "empty entry"},
      {"cudnn=8,,cudnn=9", "empty entry"},
      {"cudnnx=8", "unknown library \"cudnnx\""},
      {"cudnn_ops_infer=9", "cudnn_ops_infer is a library of cudnn 8 only"},
      {"cudnn_graph<9", "cudnn_graph is a library of cudnn 9 only"},
      {"cublasLt=10", "cublasLt exists in cublas 11 to 13 only"},
      {"libcublas.so", "is not the file name of a CUDA library"},
      {"libcudnn_ops_infer.so.8>=8.9", "a file name carries its major"},
      {"libcuda.so.1", "is the NVIDIA driver's library"},
      {"nvcuda.dll", "is the NVIDIA driver's library"},
      {"libz.so.1", "\"libz.so.1\" is not the file name"},
      {"driver", "unknown library"},
      {"cudnn~8", "expected =, ==, >=, >, <= or <"},
      {"cudnn=", "missing version after \"=\""},
      {"cudnn=8.", "is not a version"},
      {"cudnn=.8", "is not a version"},
      {"cudnn=8..9", "is not a version"},
      {"cudnn=eight", "is not a version"},
      {"cudnn=8.9.7.29.1", "is not a version"},
      {"cudnn=8 9", "is not a version"},
      {"cudnn>=-1", "is not a version"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
    int rc = cudaload_require(ctx, bad[i].spec);
    if (rc != CUDALOAD_E_BAD_SPEC)
      fail_msg("spec \"%s\" gave %d, not CUDALOAD_E_BAD_SPEC", bad[i].spec, rc);
    if (!strstr(cudaload_last_error(), bad[i].needle))
      fail_msg("spec \"%s\": \"%s\" lacks \"%s\"", bad[i].spec,
               cudaload_last_error(), bad[i].needle);
    assert_int_equal(cudaload_requirement_count(ctx), 1);
    cudaload_destroy(ctx);
  }
  assert_int_equal(cudaload_require(NULL, "cudnn"),
                   CUDALOAD_E_INVALID_ARGUMENT);
}

/* Numbers a version part cannot hold are refused, not clamped: clamped,
 * "cudnn=9999999999999999999" became a requirement for cuDNN 999999999. */
static void cuda_pins_take_one_major(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  const char *bad[] = {"cuda>=12", "cuda=12.4", "cuda", "cuda=0",
                       "cuda=12,cuda=13"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    assert_int_equal(cudaload_require(ctx, bad[i]), CUDALOAD_E_BAD_SPEC);
    assert_non_null(strstr(cudaload_last_error(), "cuda"));
  }
  assert_int_equal(cudaload_requirement_count(ctx), 0);
  /* A pin is no library requirement; the same pin twice is one. */
  assert_int_equal(cudaload_require(ctx, "CUDA=12,cudnn=9,cuda=12"),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_requirement_count(ctx), 1);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cudnn=9");
  cudaload_destroy(ctx);
}

static void version_numbers_beyond_the_limit_are_refused(void **state) {
  (void)state;
  static const char *const bad[] = {
      "cudnn=9999999999999999999", "cudnn=1000000000", "cublas>=12.99999999999",
      "cudnn=8,cudnn<9.1.2.12345678901"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    assert_int_equal(cudaload_require(ctx, bad[i]), CUDALOAD_E_BAD_SPEC);
    const char *error = cudaload_last_error();
    if (!strstr(error, "larger than 999999999"))
      fail_msg("spec \"%s\": \"%s\" does not name the limit", bad[i], error);
    /* The number itself is named. */
    const char *number = strrchr(bad[i], '=') ? strrchr(bad[i], '=') + 1
                                              : strrchr(bad[i], '<') + 1;
    if (strchr(number, '.'))
      number = strrchr(number, '.') + 1;
    if (!strstr(error, number))
      fail_msg("spec \"%s\": \"%s\" does not name %s", bad[i], error, number);
    assert_int_equal(cudaload_requirement_count(ctx), 0);
    cudaload_destroy(ctx);
  }
  /* The largest number is accepted, and leading zeros do not count against
   * the limit (nor turn 0000000008 into 0). */
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_require(ctx, "cudnn=999999999"), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas>=00000000000012.1"),
                   CUDALOAD_OK);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cudnn=999999999");
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cublas>=12.1");
  cudaload_destroy(ctx);
}

/* "cudnn=1,cudnn=2,...,cudnn=N" plus tail, malloc'ed. */
static char *long_spec(size_t n, const char *tail) {
  char *spec = malloc(n * 16 + strlen(tail) + 1);
  assert_non_null(spec);
  size_t len = 0;
  for (size_t i = 0; i < n; ++i)
    len += (size_t)sprintf(spec + len, "%scudnn=%u", i ? "," : "",
                           (unsigned)(i % 9000 + 1));
  strcpy(spec + len, tail);
  return spec;
}

/* A message quotes a long spec in part: quoted whole, a 7,000-entry spec
 * filled the error buffer and the reason was cut off. */
static void long_specs_keep_the_reason(void **state) {
  (void)state;
  static const struct {
    size_t entries;
    const char *tail, *needles[2];
  } cases[] = {
      {7000, ",", {"empty entry", "entry 7001 of 7001)"}},
      {7000, ",,cudnn=9", {"empty entry", "entry 7001 of 7002)"}},
      {7000, ",cudnn~9", {"expected =, ==, >=, >, <= or <", "found \"~9\""}},
      {7000,
       ",nosuch=1",
       {"unknown library \"nosuch\"", "(expected a library such as cudart"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    char *spec = long_spec(cases[i].entries, cases[i].tail);
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    assert_int_equal(cudaload_require(ctx, spec), CUDALOAD_E_BAD_SPEC);
    const char *error = cudaload_last_error();
    for (int k = 0; k < 2; ++k)
      if (!strstr(error, cases[i].needles[k]))
        fail_msg("case %u: \"%.300s\" lacks \"%s\"", (unsigned)i, error,
                 cases[i].needles[k]);
    /* The spec is quoted by its first 64 bytes. */
    assert_non_null(strstr(error, "requirement \"cudnn=1,cudnn=2,"));
    assert_non_null(strstr(error, "...\""));
    assert_true(strlen(error) < 400);
    assert_int_equal(cudaload_requirement_count(ctx), 0);
    cudaload_destroy(ctx);
    free(spec);
  }
  /* Long pieces of an entry are quoted in part too. */
  char name[5001];
  memset(name, 'x', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_require(ctx, name), CUDALOAD_E_BAD_SPEC);
  assert_non_null(
      strstr(cudaload_last_error(), "(expected a library such as cudart"));
  assert_true(strlen(cudaload_last_error()) < 400);
  char version[200] = "cudnn=";
  memset(version + 6, '1', 100);
  assert_int_equal(cudaload_require(ctx, version), CUDALOAD_E_BAD_SPEC);
  assert_non_null(strstr(cudaload_last_error(), "longer than 63 characters"));
  cudaload_destroy(ctx);
}

/* Thousands of entries, many repeated: each kept once, in the order of its
 * first appearance, after what the ctx already had. */
static void many_requirements_are_deduplicated_in_order(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_require(ctx, "cudnn=5,cublas"), CUDALOAD_OK);
  char *spec = long_spec(20000, ",cublas,cudart"); /* cudnn=1..9000 twice */
  assert_int_equal(cudaload_require(ctx, spec), CUDALOAD_OK);
  free(spec);
  assert_int_equal(cudaload_requirement_count(ctx), 2 + 8999 + 1);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cudnn=5");
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cublas");
  assert_string_equal(cudaload_requirement_text(ctx, 2), "cudnn=1");
  assert_string_equal(cudaload_requirement_text(ctx, 5), "cudnn=4");
  assert_string_equal(cudaload_requirement_text(ctx, 6), "cudnn=6");
  assert_string_equal(cudaload_requirement_text(ctx, 9000), "cudnn=9000");
  assert_string_equal(cudaload_requirement_text(ctx, 9001), "cudart");
  cudaload_destroy(ctx);
}

#ifndef _WIN32
static size_t find_plan(cudaload_ctx *ctx, const char *name, int major) {
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    if (strcmp(cudaload_plan_name(ctx, i), name) == 0 &&
        cudaload_plan_major(ctx, i) == major)
      return i;
  fail_msg("plan has no %s %d", name, major);
  return (size_t)-1;
}

static void cudnn8_without_origin_preloads_its_sub_libraries(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"cudnn8_compat"};
  cudaload_ctx *ctx = new_ctx(roots, 1);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_count(ctx), 7);
  size_t main_index = find_plan(ctx, "cudnn", 8);
  assert_non_null(
      strstr(cudaload_plan_reason(ctx, main_index), "required by cudnn=8"));
  static const char *const subs[] = {"cudnn_ops_infer", "cudnn_ops_train",
                                     "cudnn_cnn_infer", "cudnn_cnn_train",
                                     "cudnn_adv_infer", "cudnn_adv_train"};
  for (size_t s = 0; s < 6; ++s) {
    size_t i = find_plan(ctx, subs[s], 8);
    assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_PLANNED);
    assert_non_null(strstr(cudaload_plan_reason(ctx, i), "RUNPATH"));
    assert_string_equal(cudaload_plan_loaded_path(ctx, i), "");
  }
  cudaload_destroy(ctx);
}

static void cudnn9_with_origin_gets_the_minimal_plan(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"wheels-cu13/site-packages"};
  for (int all = 0; all < 2; ++all) {
    cudaload_ctx *ctx = new_ctx(roots, 1);
    assert_int_equal(cudaload_require(ctx, "cudnn=9"), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, all ? CUDALOAD_PRELOAD_ALL_SUBLIBS : 0),
                     CUDALOAD_OK);
    size_t main_index = find_plan(ctx, "cudnn", 9);
    assert_int_equal(cudaload_plan_state(ctx, main_index),
                     CUDALOAD_STATE_PLANNED);
    size_t graph = find_plan(ctx, "cudnn_graph", 9);
    assert_int_equal(cudaload_plan_state(ctx, graph),
                     all ? CUDALOAD_STATE_PLANNED : CUDALOAD_STATE_NOT_NEEDED);
    if (!all)
      assert_non_null(strstr(cudaload_plan_reason(ctx, graph), "$ORIGIN"));
    cudaload_destroy(ctx);
  }
}

/* A package bundling its own cuDNN 8 shim (auditwheel's
 * ctranslate2.libs/libcudnn-0a1b2c3d.so.8.9.7, as ctranslate2 4.4.0 does)
 * opens the sub-libraries by name from a folder without them: the minimal
 * plan preloads them even though the chosen main has RUNPATH $ORIGIN. */
static void
bundled_shim_makes_the_minimal_plan_preload_sub_libraries(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  static const char *const subs[] = {"cudnn_ops_infer", "cudnn_ops_train",
                                     "cudnn_cnn_infer", "cudnn_cnn_train",
                                     "cudnn_adv_infer", "cudnn_adv_train"};
  for (int with_shim = 0; with_shim < 2; ++with_shim) {
    const char *roots[] = {"preload/bundled/cudnn8",
                           "preload/bundled/site-packages"};
    cudaload_ctx *ctx = new_ctx(roots, with_shim ? 2 : 1);
    assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
    assert_int_equal(cudaload_plan_count(ctx), 7);
    /* The shim is noticed, never listed as a library. */
    for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
      assert_null(strstr(cudaload_library_path(ctx, i), "libcudnn-0a1b2c3d"));
    for (size_t k = 0; k < 6; ++k) {
      size_t i = find_plan(ctx, subs[k], 8);
      const char *reason = cudaload_plan_reason(ctx, i);
      if (!with_shim) {
        assert_int_equal(cudaload_plan_state(ctx, i),
                         CUDALOAD_STATE_NOT_NEEDED);
        continue;
      }
      assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_PLANNED);
      if (!strstr(reason, "ctranslate2.libs/libcudnn-0a1b2c3d.so.8.9.7 (a "
                          "copy bundled by ctranslate2) opens it by name"))
        fail_msg("%s: reason \"%s\" does not name the bundled shim", subs[k],
                 reason);
    }
    cudaload_destroy(ctx);
  }
}

static void cublas_loads_after_cublaslt(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"wheels-cu12/site-packages"};
  cudaload_ctx *ctx = new_ctx(roots, 1);
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  size_t lt = find_plan(ctx, "cublasLt", 12);
  size_t blas = find_plan(ctx, "cublas", 12);
  assert_true(lt < blas);
  assert_int_equal(cudaload_plan_state(ctx, lt), CUDALOAD_STATE_PLANNED);
  assert_non_null(strstr(cudaload_plan_reason(ctx, lt), "needed by"));
  cudaload_destroy(ctx);
}

static void missing_requirement_says_where_and_how_to_fix(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* conda/env has cuDNN 8.9.2 but only one sub-library beside it;
   * wheels-cu13 has only cuDNN 9. */
  const char *roots[] = {"conda/env", "wheels-cu13/site-packages",
                         "no-such-folder"};
  cudaload_ctx *ctx = new_ctx(roots, 3);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cublas=13"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  const char *e = cudaload_last_error();
  assert_non_null(strstr(e, "cudnn=8: no usable cudnn library"));
  assert_non_null(strstr(e, "conda/env"));
  assert_non_null(strstr(e, "no-such-folder"));
  assert_non_null(strstr(e, "not found"));
  assert_non_null(strstr(e, "libcudnn.so.8.9.2: cudnn_cnn_infer 8 is not in "
                            "the same folder"));
  assert_non_null(strstr(e, "libcudnn.so.9: major 9, not 8"));
  /* The cuDNN 9 wheel's folder is taken: a folder of its own
   * (tests/test_fix_lines.c has the cases). */
  assert_non_null(strstr(e, "--no-deps --target"));
  assert_non_null(strstr(e, "'nvidia-cudnn-cu12==8.9.*'"));
  assert_non_null(strstr(e, "CUDNN_PATH"));
  /* The satisfied requirement is planned all the same. */
  find_plan(ctx, "cublas", 13);
  cudaload_destroy(ctx);
}

static void explicit_newest_and_ranges_choose(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* cudnn8_compat has no version on disk; the wheel says 8.9.7.29. */
  const char *roots[] = {"cudnn8_compat", "wheels-cu12/site-packages",
                         "wheels-cu13/site-packages"};
  cudaload_ctx *ctx = new_ctx(roots, 3);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_plan_path(ctx, find_plan(ctx, "cudnn", 8)),
                         "wheels-cu12"));
  cudaload_destroy(ctx);

  ctx = new_ctx(roots, 3);
  assert_int_equal(cudaload_require(ctx, "cudnn>=8.9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  find_plan(ctx, "cudnn", 9);
  cudaload_destroy(ctx);

  ctx = new_ctx(roots, 3);
  assert_int_equal(cudaload_require(ctx, "cudnn=8.9.7"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  cudaload_destroy(ctx);

  /* Only the version-less copy: "=8.9" cannot be checked against it. */
  const char *compat[] = {"cudnn8_compat"};
  ctx = new_ctx(compat, 1);
  assert_int_equal(cudaload_require(ctx, "cudnn=8.9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  assert_non_null(strstr(cudaload_last_error(), "version is unknown"));
  cudaload_destroy(ctx);
}

static void two_majors_side_by_side_are_both_planned(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"cudnn8_compat", "wheels-cu13/site-packages"};
  cudaload_ctx *ctx = new_ctx(roots, 2);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cudnn=9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  find_plan(ctx, "cudnn", 8);
  find_plan(ctx, "cudnn", 9);
  cudaload_destroy(ctx);
}

static void search_path_is_prepended_clean_and_idempotent(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"cudnn8_compat", "wheels-cu13/site-packages"};
  cudaload_ctx *ctx = new_ctx(roots, 2);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cudnn=9"), CUDALOAD_OK);
  const char *v = cudaload_env_compose(ctx, "/usr/lib::.:relative/dir:/opt/x:");
  assert_non_null(v);
  char *first = strdup(v);
  char compat[4096], cu13[4096], cu13_lib[4096];
  snprintf(compat, sizeof compat, "%s/cudnn8_compat", CUDALOAD_FIXTURES_DIR);
  snprintf(cu13, sizeof cu13, "%s/wheels-cu13/site-packages/nvidia/cudnn/lib",
           CUDALOAD_FIXTURES_DIR);
  /* cuDNN 9 for CUDA 13 opens cuBLASLt and NVRTC 13 by name: their folder
   * is planned too (lazy dependencies). */
  snprintf(cu13_lib, sizeof cu13_lib,
           "%s/wheels-cu13/site-packages/nvidia/cu13/lib",
           CUDALOAD_FIXTURES_DIR);
  char expected[13000];
  snprintf(expected, sizeof expected, "%s:%s:%s:/usr/lib:/opt/x", compat, cu13,
           cu13_lib);
  assert_string_equal(first, expected);
  /* Composing onto its own result changes nothing. */
  assert_string_equal(cudaload_env_compose(ctx, first), first);
  char plan_only[13000];
  snprintf(plan_only, sizeof plan_only, "%s:%s:%s", compat, cu13, cu13_lib);
  assert_string_equal(cudaload_env_compose(ctx, NULL), plan_only);
  free(first);
  cudaload_destroy(ctx);
}

/* --- lazy dependencies (catalog.h, lazy_opens) ---------------------------- */

/* cuDNN 8 opens libcublas.so.12 and libcublasLt.so.12 by name at its first
 * call: with no cuBLAS 12 in any root the plan still succeeds (the program
 * may never call that far), but says what is missing and how to get it. */
static void a_missing_lazy_dependency_is_a_warning(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"cudnn8_compat"};
  cudaload_ctx *ctx = new_ctx(roots, 1);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 1);
  const char *w = cudaload_plan_warning(ctx, 0);
  assert_non_null(w);
  assert_non_null(strstr(w, "libcublas.so.12 and libcublasLt.so.12"));
  assert_non_null(strstr(w, "no cuBLAS for CUDA 12 was found"));
  assert_non_null(strstr(w, "--require cublas=12"));
  assert_non_null(strstr(w, "pip install nvidia-cublas-cu12"));
  assert_null(cudaload_plan_warning(ctx, 1));
  assert_int_equal(cudaload_plan_count(ctx), 7); /* nothing added */
  /* Cleared with the plan: a plan that finds cuBLAS has none. */
  assert_int_equal(
      cudaload_add_root(ctx, test_fixture_path("wheels-cu12/site-packages")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  cudaload_destroy(ctx);
}

/* Found in another root (a CUDA 12.4 toolkit), the cuBLAS 12 cuDNN 8 opens
 * joins the plan with the cuBLASLt beside it; the tarball cuDNN's RUNPATH does
 * not lead there, so both are preloaded (a lazy open by SONAME takes a loaded
 * file). */
static void a_found_lazy_dependency_joins_the_plan(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"cudnn8_compat", "toolkit/cuda-12.4"};
  cudaload_ctx *ctx = new_ctx(roots, 2);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  assert_non_null(strstr(cudaload_plan_path(ctx, find_plan(ctx, "cudnn", 8)),
                         "/cudnn8_compat/"));
  const char *names[] = {"cublas", "cublasLt"};
  for (size_t k = 0; k < 2; ++k) {
    size_t i = find_plan(ctx, names[k], 12);
    const char *reason = cudaload_plan_reason(ctx, i);
    assert_non_null(strstr(reason, "opened lazily by libcudnn_ops_infer.so.8 "
                                   "(cuDNN 8 needs cuBLAS 12)"));
    assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_PLANNED);
    assert_non_null(strstr(cudaload_plan_path(ctx, i),
                           "/cuda-12.4/targets/x86_64-linux/lib/"));
  }
  const char *v = cudaload_env_compose(ctx, NULL);
  assert_non_null(v);
  assert_non_null(strstr(v, "cuda-12.4/targets/x86_64-linux/lib"));
  cudaload_destroy(ctx);
}

/* The wheels' RUNPATH ($ORIGIN/../../cublas/lib, $ORIGIN/../../cu13/lib)
 * leads to the dependency: planned for its folder, not preloaded. cuDNN 9
 * takes its CUDA build's major from its wheel (-cu13). */
static void a_lazy_dependency_the_opener_finds_is_not_preloaded(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *cu12[] = {"wheels-cu12/site-packages"};
  cudaload_ctx *ctx = new_ctx(cu12, 1);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  size_t i = find_plan(ctx, "cublas", 12);
  assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_NOT_NEEDED);
  assert_non_null(strstr(cudaload_plan_reason(ctx, i), "cuDNN 8 needs"));
  /* Asked for every sub-library, it is preloaded too. */
  assert_int_equal(cudaload_plan(ctx, CUDALOAD_PRELOAD_ALL_SUBLIBS),
                   CUDALOAD_OK);
  i = find_plan(ctx, "cublas", 12);
  assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_PLANNED);
  cudaload_destroy(ctx);

  const char *cu13[] = {"wheels-cu13/site-packages"};
  ctx = new_ctx(cu13, 1);
  assert_int_equal(cudaload_require(ctx, "cudnn=9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  const char *deps[] = {"cublas", "cublasLt", "nvrtc"};
  for (size_t k = 0; k < 3; ++k) {
    i = find_plan(ctx, deps[k], 13);
    assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_NOT_NEEDED);
    assert_non_null(strstr(cudaload_plan_reason(ctx, i), "cuDNN 9 needs"));
  }
  cudaload_destroy(ctx);

  /* A requirement that already plans that family and major: nothing
   * added twice. */
  ctx = new_ctx(cu12, 1);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  i = find_plan(ctx, "cublas", 12);
  assert_non_null(strstr(cudaload_plan_reason(ctx, i), "required by"));
  size_t blas = 0;
  for (size_t k = 0; k < cudaload_plan_count(ctx); ++k)
    blas += strcmp(cudaload_plan_name(ctx, k), "cublas") == 0;
  assert_int_equal(blas, 1);
  cudaload_destroy(ctx);
}

/* CUPTI's Windows DLLs are named after its year versions
 * (cupti64_2025.3.1.dll); each takes the CUDA major it shipped with, so
 * cupti=13 and cupti=12 choose among them (the newest of each). */
static void cupti_year_dlls_are_required_by_cuda_major(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  FILE *built = fopen(test_fixture_path("catalog/windows/expected.txt"), "r");
  if (!built) {
    print_message("skipped: catalog/windows was not built (no mingw-w64 "
                  "when configuring)\n");
    skip();
  }
  fclose(built);
  static const struct {
    const char *spec, *file;
  } cases[] = {{"cupti=13", "cupti64_2026.3.1.dll"},
               {"cupti=12", "cupti64_2025.2.1.dll"}};
  for (size_t k = 0; k < 2; ++k) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS),
                     CUDALOAD_OK);
    assert_int_equal(
        cudaload_add_root(ctx, test_fixture_path("catalog/windows")),
        CUDALOAD_OK);
    assert_int_equal(cudaload_require(ctx, cases[k].spec), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
    size_t i = find_plan(ctx, "cupti", k == 0 ? 13 : 12);
    const char *path = cudaload_plan_path(ctx, i);
    if (!strstr(path, cases[k].file))
      fail_msg("%s chose %s, not %s", cases[k].spec, path, cases[k].file);
    cudaload_destroy(ctx);
  }
}

/* NVIDIA ships the same names for x86_64 and aarch64 (ARM64 on Windows): a
 * plan never takes a file the loader would refuse, says why it passed one
 * over, and a target with an architecture plans for that machine. */
static void files_of_another_machine_are_never_planned(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
#if defined(__x86_64__)
  const char *both[] = {"machines/aarch64", "machines/x86_64"};
  /* The aarch64 folder comes first, and is passed over. */
  cudaload_ctx *ctx = new_ctx(both, 2);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    assert_string_equal(cudaload_library_machine(ctx, i),
                        strstr(cudaload_library_path(ctx, i), "/aarch64/")
                            ? "aarch64"
                            : "x86_64");
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_plan_path(ctx, find_plan(ctx, "cublas", 12)),
                         "/machines/x86_64/"));
  assert_non_null(
      strstr(cudaload_plan_path(ctx, find_plan(ctx, "cublasLt", 12)),
             "/machines/x86_64/"));
  cudaload_destroy(ctx);
  /* Only aarch64 files: unsatisfied, and the reason says so. */
  ctx = new_ctx(both, 1);
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  if (!strstr(cudaload_last_error(), "libcublas.so.12: built for aarch64; "
                                     "this process runs x86_64 code"))
    fail_msg("error \"%s\"", cudaload_last_error());
  cudaload_destroy(ctx);
  /* For an aarch64 target, the other way round. */
  ctx = new_ctx(both, 2);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_LINUX_AARCH64),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_plan_path(ctx, find_plan(ctx, "cublas", 12)),
                         "/machines/aarch64/"));
  cudaload_destroy(ctx);
  /* Windows ARM64 and x64 DLLs. */
  FILE *built =
      fopen(test_fixture_path("machines/windows/arm64/cublas64_13.dll"), "rb");
  if (!built)
    return; /* PE trees not built: the Linux half above still ran */
  fclose(built);
  const char *win[] = {"machines/windows/arm64", "machines/windows/x86",
                       "machines/windows/x64"};
  static const struct {
    int target;
    const char *folder;
  } cases[] = {{CUDALOAD_TARGET_WINDOWS_X86_64, "/windows/x64/"},
               {CUDALOAD_TARGET_WINDOWS_ARM64, "/windows/arm64/"}};
  for (size_t k = 0; k < 2; ++k) {
    ctx = new_ctx(win, 3);
    assert_int_equal(cudaload_set_target(ctx, cases[k].target), CUDALOAD_OK);
    assert_int_equal(cudaload_require(ctx, "cublas=13"), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
    assert_non_null(
        strstr(cudaload_plan_path(ctx, find_plan(ctx, "cublas", 13)),
               cases[k].folder));
    cudaload_destroy(ctx);
  }
#else
  print_message("skipped: the expectations are written for an x86_64 "
                "host\n");
  skip();
#endif
}

/* --- known consumers (consumers.h) ---------------------------------------- */

static cudaload_ctx *consumer_ctx(int target, const char *const *roots,
                                  size_t n) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_set_target(ctx, target), CUDALOAD_OK);
  for (size_t i = 0; i < n; ++i)
    assert_int_equal(cudaload_add_root(ctx, test_fixture_path(roots[i])),
                     CUDALOAD_OK);
  return ctx;
}

/* ctranslate2 4.4.0 beside a CUDA 13 torch opens cuBLAS 12 by name at its
 * first cuBLAS call ("Library libcublas.so.12 is not found"): a plan that
 * holds cuBLAS 13 warns of it, or, with a cuBLAS 12 in a root, plans it:
 * preloaded on Linux (ctranslate2's library has no RUNPATH to it), its
 * folder exposed on Windows. The version comes from the
 * auditwheel name on Linux and from the dist-info on Windows. */
static void known_consumer_case(int windows) {
  const char *site =
      windows ? "consumers/windows/site-packages" : "consumers/site-packages";
  const char *cublas12 =
      windows ? "consumers/windows/cublas12" : "consumers/cublas12";
  const char *file = windows ? "cublas64_12.dll" : "libcublas.so.12";
  const char *opener =
      windows ? "ctranslate2.dll" : "libctranslate2-0a1b2c3d.so.4.4.0";
  int target = windows ? CUDALOAD_TARGET_WINDOWS : CUDALOAD_TARGET_LINUX;
  const char *roots[] = {site, cublas12};
  /* Not found: a warning naming the consumer, its version and the fix. */
  cudaload_ctx *ctx = consumer_ctx(target, roots, 1);
  assert_int_equal(cudaload_require(ctx, "cublas"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_count(ctx), 2);
  assert_int_equal(cudaload_plan_major(ctx, find_plan(ctx, "cublas", 13)), 13);
  assert_int_equal(cudaload_plan_warning_count(ctx), 1);
  const char *w = cudaload_plan_warning(ctx, 0);
  char want[256];
  snprintf(want, sizeof want,
           "ctranslate2 4.4.0 (%s) opens %s by name at its first cuBLAS "
           "call; the plan has cuBLAS 13, no cuBLAS for CUDA 12 was found",
           "", file);
  if (!strstr(w, "ctranslate2 4.4.0 (") || !strstr(w, opener) ||
      !strstr(w, strstr(want, ") opens")) ||
      !strstr(w, "--require cublas=12") ||
      !strstr(w, "pip install nvidia-cublas-cu12"))
    fail_msg("warning \"%s\"", w);
  cudaload_destroy(ctx);
  /* Found in another root: planned as ctranslate2's, preloaded. */
  ctx = consumer_ctx(target, roots, 2);
  assert_int_equal(cudaload_require(ctx, "cublas=13"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  const char *names[] = {"cublas", "cublasLt"};
  for (size_t k = 0; k < 2; ++k) {
    size_t i = find_plan(ctx, names[k], 12);
    const char *reason = cudaload_plan_reason(ctx, i);
    snprintf(want, sizeof want,
             "opened lazily by %s (ctranslate2 4.4.0 needs cuBLAS 12)", opener);
    if (!strstr(reason, want))
      fail_msg("%s 12: reason \"%s\"", names[k], reason);
    /* Windows: its folder goes on PATH and AddDllDirectory instead. */
    assert_int_equal(cudaload_plan_state(ctx, i),
                     windows ? CUDALOAD_STATE_NOT_NEEDED
                             : CUDALOAD_STATE_PLANNED);
  }
  assert_int_equal(cudaload_plan_count(ctx), 4);
  cudaload_destroy(ctx);
  /* The consumer's own major required: nothing added, nothing said. */
  ctx = consumer_ctx(target, roots, 2);
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_count(ctx), 2);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  cudaload_destroy(ctx);
  /* A plan without cuBLAS is left alone: the program asked for none. */
  ctx = consumer_ctx(target, roots, 2);
  assert_int_equal(cudaload_require(ctx, "cudart"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_count(ctx), 1);
  assert_int_equal(cudaload_plan_warning_count(ctx), 0);
  cudaload_destroy(ctx);
}

static void a_known_consumer_gets_the_cublas_it_opens(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  known_consumer_case(0);
}

/* The same with the Windows names: ctranslate2.dll opens cublas64_12.dll. */
static void a_known_consumer_gets_the_cublas_dll_it_opens(void **state) {
  (void)state;
  SKIP_WITHOUT_FIXTURE("consumers/windows/site-packages");
  known_consumer_case(1);
  /* ctranslate2 3.x was built for CUDA 11: its stub opens cuBLAS 11. */
  const char *old[] = {"consumers/old-site-packages", "consumers/cublas12"};
  cudaload_ctx *ctx = consumer_ctx(CUDALOAD_TARGET_LINUX, old, 2);
  assert_int_equal(cudaload_require(ctx, "cublas"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_warning_count(ctx), 1);
  const char *w = cudaload_plan_warning(ctx, 0);
  if (!strstr(w, "ctranslate2 3.24.0 (") ||
      !strstr(w, "opens libcublas.so.11 by name") ||
      !strstr(w, "the plan has cuBLAS 12"))
    fail_msg("warning \"%s\"", w);
  cudaload_destroy(ctx);
}

/* --- precedence and one CUDA major (docs/scan-contract.md) --------------- */

static cudaload_ctx *env_ctx(const char *const *env, size_t n) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  for (size_t i = 0; i < n; ++i)
    assert_int_equal(
        cudaload_add_environment_root(ctx, test_fixture_path(env[i])),
        CUDALOAD_OK);
  return ctx;
}

static const char *planned_path(cudaload_ctx *ctx, const char *name,
                                int major) {
  return cudaload_plan_path(ctx, find_plan(ctx, name, major));
}

static void an_earlier_tier_wins_over_a_newer_version(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* The toolkit's cuBLAS is 12.4.5, the venv's 12.4.5.8: given as an
   * explicit root, the older one is what the user means. */
  const char *venv[] = {"wheels-cu12/site-packages"};
  cudaload_ctx *ctx = env_ctx(venv, 1);
  assert_int_equal(
      cudaload_add_root(ctx, test_fixture_path("toolkit/cuda-12.4")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(planned_path(ctx, "cublas", 12), "toolkit/cuda-12.4"));
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i)
    assert_string_equal(cudaload_root_tier(ctx, i),
                        strstr(cudaload_root_path(ctx, i), "toolkit")
                            ? "explicit"
                            : "environment");
  cudaload_destroy(ctx);
}

static void the_environments_cuda_major_holds_for_every_family(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* A venv of CUDA 12 wheels (cuDNN 9 for CUDA 12) and CUDA 13 wheels
   * beside it in a weaker tier: every family comes from CUDA 12. */
  const char *venv[] = {"wheels-cu12-cudnn9/site-packages"};
  cudaload_ctx *ctx = env_ctx(venv, 1);
  /* Same tier, newer: the CUDA 13 wheels would win every family alone. */
  assert_int_equal(cudaload_add_environment_root(
                       ctx, test_fixture_path("wheels-cu13/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudart,cublas,cudnn=9,cuda=12"),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_requirement_count(ctx), 3); /* cuda=12: a pin */
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_cuda_major(ctx), 12);
  assert_string_equal(cudaload_plan_cuda_reason(ctx), "pinned by cuda=12");
  assert_non_null(strstr(planned_path(ctx, "cudart", 12), "wheels-cu12"));
  assert_non_null(strstr(planned_path(ctx, "cublas", 12), "wheels-cu12"));
  const char *cudnn = planned_path(ctx, "cudnn", 9);
  assert_non_null(strstr(cudnn, "wheels-cu12-cudnn9"));
  cudaload_destroy(ctx);

  /* Without the pin the newest CUDA major of the environment: 13, and
   * cuDNN 9 follows it (9.19 for CUDA 13, not 9.1 for CUDA 12). */
  ctx = env_ctx(venv, 1);
  assert_int_equal(cudaload_add_environment_root(
                       ctx, test_fixture_path("wheels-cu13/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudart,cudnn=9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_cuda_major(ctx), 13);
  assert_non_null(strstr(cudaload_plan_cuda_reason(ctx), "active environment"));
  assert_non_null(strstr(planned_path(ctx, "cudnn", 9), "wheels-cu13"));
  cudaload_destroy(ctx);

  /* cudart=12 pins too: cuBLAS follows it. */
  ctx = env_ctx(venv, 1);
  assert_int_equal(cudaload_add_environment_root(
                       ctx, test_fixture_path("wheels-cu13/site-packages")),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudart=12,cublas"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_string_equal(cudaload_plan_cuda_reason(ctx), "pinned by cudart=12");
  assert_non_null(strstr(planned_path(ctx, "cublas", 12), "wheels-cu12"));
  cudaload_destroy(ctx);
}

static void
another_major_is_taken_only_when_named_or_the_only_one(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* A CUDA 13 environment and CUDA 12 wheels beside it: cudnn=8 exists
   * only for CUDA 12, and cublas=12 names CUDA 12. */
  const char *env[] = {"wheels-cu13/site-packages",
                       "wheels-cu12/site-packages"};
  cudaload_ctx *ctx = env_ctx(env, 2);
  assert_int_equal(cudaload_require(ctx, "cudart,cudnn=8,cublas=12"),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_plan_cuda_major(ctx), 13);
  assert_non_null(strstr(planned_path(ctx, "cudart", 13), "wheels-cu13"));
  assert_non_null(strstr(planned_path(ctx, "cudnn", 8), "wheels-cu12"));
  assert_non_null(strstr(planned_path(ctx, "cublas", 12), "wheels-cu12"));
  cudaload_destroy(ctx);

  /* Under a CUDA 12 pin, cuDNN 9 for CUDA 12 (9.1) over the newer one for
   * CUDA 13; cudnn=9.19 is here only for CUDA 13, but NVIDIA builds it for
   * CUDA 12 too (nvidia-cudnn-cu12): the CUDA 13 file is refused, since two
   * CUDA majors in one process do not mix, and the fix installs the CUDA 12
   * build. */
  const char *both[] = {"wheels-cu13/site-packages",
                        "wheels-cu12-cudnn9/site-packages"};
  ctx = env_ctx(both, 2);
  assert_int_equal(cudaload_require(ctx, "cuda=12,cudnn=9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(planned_path(ctx, "cudnn", 9), "wheels-cu12-cudnn9"));
  cudaload_destroy(ctx);
  ctx = env_ctx(both, 2);
  assert_int_equal(cudaload_require(ctx, "cuda=12,cudnn=9.19"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  const char *why = cudaload_last_error();
  if (!strstr(why, "built for CUDA 13; the plan takes CUDA 12") ||
      !strstr(why, "nvidia-cudnn-cu12==9.19"))
    fail_msg("the refusal does not say why and what to install: %s", why);
  cudaload_destroy(ctx);
}

/* A plan that meets files it cannot read on the way (a driver and a cuDNN
 * that are text, in a root of their own) passes them over and succeeds
 * with no last error left behind: each lookup's "no" was an answer
 * (common/error.h, answer forms), not a failure. A plan that fails still
 * says what and why. */
static void a_plan_past_unreadable_files_leaves_no_error(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  char dir[] = "/tmp/cudaload-unreadable-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char driver[512], cudnn[512];
  snprintf(driver, sizeof driver, "%s/libcuda.so.580.65.06", dir);
  snprintf(cudnn, sizeof cudnn, "%s/libcudnn.so.9", dir);
  const char *files[] = {driver, cudnn};
  for (int k = 0; k < 2; ++k) {
    FILE *f = fopen(files[k], "wb");
    assert_non_null(f);
    fputs("not a library, named like one\n", f);
    fclose(f);
  }
  setenv("CUDALOAD_DRIVER", driver, 1);
  const char *env[] = {"wheels-cu13/site-packages"};
  cudaload_ctx *ctx = env_ctx(env, 1);
  assert_int_equal(cudaload_add_root(ctx, dir), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudart,cudnn=9"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(planned_path(ctx, "cudnn", 9), "wheels-cu13"));
  assert_string_equal(cudaload_last_error(), "");
  cudaload_destroy(ctx);
  /* Alone, the unreadable cuDNN leaves the requirement unsatisfied, and
   * the error names the requirement, not a lookup on the way. */
  ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_add_root(ctx, dir), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=9"), CUDALOAD_OK);
  assert_int_not_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  const char *why = cudaload_last_error();
  if (!strstr(why, "cudnn"))
    fail_msg("the failed plan's error does not name cudnn: %s", why);
  cudaload_destroy(ctx);
  unsetenv("CUDALOAD_DRIVER");
  remove(driver);
  remove(cudnn);
  rmdir(dir);
}

static void the_driver_decides_between_majors(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* Drivers named as real ones are (the file is not loaded): 535.104.05
   * runs CUDA 12 (up to 12.2), 580.65.06 CUDA 13.0. */
  char dir[] = "/tmp/cudaload-driver-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *versions[] = {"535.104.05", "580.65.06"};
  const int expected[] = {12, 13};
  const char *env[] = {"wheels-cu12-cudnn9/site-packages",
                       "wheels-cu13/site-packages"};
  for (int k = 0; k < 2; ++k) {
    char driver[512];
    snprintf(driver, sizeof driver, "%s/libcuda.so.%s", dir, versions[k]);
    FILE *f = fopen(driver, "wb");
    assert_non_null(f);
    fputs("not loaded\n", f);
    fclose(f);
    setenv("CUDALOAD_DRIVER", driver, 1);
    cudaload_ctx *ctx = env_ctx(env, 2);
    assert_int_equal(cudaload_require(ctx, "cudart,cudnn=9"), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
    assert_int_equal(cudaload_plan_cuda_major(ctx), expected[k]);
    assert_non_null(strstr(planned_path(ctx, "cudart", expected[k]),
                           expected[k] == 12 ? "wheels-cu12" : "wheels-cu13"));
    assert_non_null(strstr(planned_path(ctx, "cudnn", 9),
                           expected[k] == 12 ? "wheels-cu12" : "wheels-cu13"));
    cudaload_destroy(ctx);
    unsetenv("CUDALOAD_DRIVER");
    remove(driver);
  }
  rmdir(dir);
}
#endif

#if defined(_WIN32) && (defined(__x86_64__) || defined(_M_X64))
/* This process's own machine decides, with no target set: DLLs built for
 * ARM64 or 32-bit x86 in the first roots are passed over for the x64 ones
 * in the last, and alone they leave the requirement unsatisfied, saying
 * why (the loader would refuse them with error 193). */
static void dlls_of_another_machine_are_passed_over(void **state) {
  (void)state;
  FILE *built =
      fopen(test_fixture_path("machines/windows/x86/cublas64_13.dll"), "rb");
  if (!built) {
    print_message("skipped: the machines/windows trees were not built\n");
    skip();
  }
  fclose(built);
  const char *roots[] = {"machines/windows/arm64", "machines/windows/x86",
                         "machines/windows/x64"};
  cudaload_ctx *ctx = new_ctx(roots, 3);
  assert_int_equal(cudaload_require(ctx, "cublas=13"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    if (!strstr(cudaload_plan_path(ctx, i), "x64"))
      fail_msg("planned %s", cudaload_plan_path(ctx, i));
  cudaload_destroy(ctx);
  static const char *const alone[][2] = {
      {"machines/windows/arm64", "cublas64_13.dll: built for aarch64; this "
                                 "process runs x86_64 code"},
      {"machines/windows/x86", "cublas64_13.dll: built for i386; this "
                               "process runs x86_64 code"}};
  for (size_t k = 0; k < 2; ++k) {
    ctx = new_ctx(&alone[k][0], 1);
    assert_int_equal(cudaload_require(ctx, "cublas=13"), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
    if (!strstr(cudaload_last_error(), alone[k][1]))
      fail_msg("error \"%s\" lacks \"%s\"", cudaload_last_error(), alone[k][1]);
    cudaload_destroy(ctx);
  }
}

#endif

#ifdef _WIN32
/* A PATH entry written with quotes ("C:\q dir", which cmd and CreateProcess
 * accept) is the user's: `env` and `exec` keep it as written. It is not
 * taken for the plan's folder, since the DLL loader does not strip the
 * quotes: the plan's folder still goes first, unquoted. */
static void quoted_path_entries_are_kept(void **state) {
  (void)state;
  const char *roots[] = {"machines/windows/x64"};
  cudaload_ctx *ctx = new_ctx(roots, 1);
  assert_int_equal(cudaload_require(ctx, "cublas=13"), CUDALOAD_OK);
  const char *folder = test_fixture_path("machines/windows/x64");
  char current[TEST_PATH_CAPACITY * 2 + 64];
  snprintf(current, sizeof current, "\"C:\\q dir\";\"%s\";C:\\windows", folder);
  const char *value = NULL;
  assert_int_equal(cudaload_env_value(ctx, current, &value), CUDALOAD_OK);
  char expected[TEST_PATH_CAPACITY * 3 + 64];
  snprintf(expected, sizeof expected, "%s;%s", folder, current);
  if (strcmp(value, expected))
    fail_msg("PATH \"%s\", expected \"%s\"", value, expected);
  cudaload_destroy(ctx);
}
#endif

/* cudart64_12.dll beside CUDART64_12.DLL: the plan takes the one spelt as
 * NVIDIA ships it, whatever the listing's order, and warns about the
 * other. */
static void case_twins_take_the_canonical_spelling(void **state) {
  (void)state;
  FILE *built =
      fopen(test_fixture_path("case_twins/windows/cudart64_12.dll"), "rb");
  if (!built) {
    print_message("skipped: the case_twins/windows tree was not built\n");
    skip();
  }
  fclose(built);
  const char *roots[] = {"case_twins/windows"};
  cudaload_ctx *ctx = new_ctx(roots, 1);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS_X86_64),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(cudaload_library_count(ctx), 2);
  assert_int_equal(cudaload_require(ctx, "cudart"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  const char *path = cudaload_plan_path(ctx, 0);
  if (!strstr(path, "cudart64_12.dll"))
    fail_msg("planned %s", path);
  size_t warnings = cudaload_plan_warning_count(ctx);
  int warned = 0;
  for (size_t i = 0; i < warnings; ++i)
    warned |= strstr(cudaload_plan_warning(ctx, i),
                     "and CUDART64_12.DLL differ only in letter case") != NULL;
  if (!warned)
    fail_msg("no warning about CUDART64_12.DLL (%lu warnings)",
             (unsigned long)warnings);
  cudaload_destroy(ctx);
}

#ifndef _WIN32
static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char block[8192];
  size_t n;
  while ((n = fread(block, 1, sizeof block, in)) > 0)
    assert_int_equal(fwrite(block, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
}

/* The case twins' fix, "delete the other", followed as printed (issue 27,
 * item 3): the file the warning names goes, and the plan of the folder
 * then says nothing. A case-sensitive folder (Linux) holds both names;
 * Windows' own calls cannot tell them apart to delete one. */
static void case_twins_fix_is_followed_as_printed(void **state) {
  (void)state;
  static const char *const names[] = {"cudart64_12.dll", "CUDART64_12.DLL"};
  char from[1024], dir[] = "/tmp/cudaload-case-twins-XXXXXX", to[1100];
  snprintf(from, sizeof from, "%s",
           test_fixture_path("case_twins/windows/cudart64_12.dll"));
  FILE *built = fopen(from, "rb");
  if (!built) {
    print_message("skipped: the case_twins/windows tree was not built\n");
    skip();
  }
  fclose(built);
  assert_non_null(mkdtemp(dir));
  for (size_t i = 0; i < 2; ++i) {
    snprintf(from, sizeof from, "%s/%s",
             test_fixture_path("case_twins/windows"), names[i]);
    snprintf(to, sizeof to, "%s/%s", dir, names[i]);
    copy_file(from, to);
  }
  char other[256] = "";
  for (int pass = 0; pass < 2; ++pass) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    assert_non_null(ctx);
    assert_int_equal(cudaload_add_root(ctx, dir), CUDALOAD_OK);
    assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS_X86_64),
                     CUDALOAD_OK);
    assert_int_equal(cudaload_require(ctx, "cudart"), CUDALOAD_OK);
    assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
    size_t warnings = cudaload_plan_warning_count(ctx);
    if (pass == 0) {
      assert_int_equal(warnings, 1);
      const char *w = cudaload_plan_warning(ctx, 0);
      const char *between = strstr(w, " and "),
                 *end = strstr(w, " differ only");
      if (!between || !end || end < between ||
          !strstr(w, "the plan takes the one spelt as NVIDIA ships it; "
                     "delete the other"))
        fail_msg("warning \"%s\"", w);
      snprintf(other, sizeof other, "%.*s", (int)(end - between - 5),
               between + 5);
      snprintf(to, sizeof to, "%s/%s", dir, other);
      assert_int_equal(unlink(to), 0); /* as printed */
    } else {
      if (warnings)
        fail_msg("after deleting %s: \"%s\"", other,
                 cudaload_plan_warning(ctx, 0));
      if (!strstr(cudaload_plan_path(ctx, 0), "cudart64_12.dll"))
        fail_msg("planned %s", cudaload_plan_path(ctx, 0));
    }
    cudaload_destroy(ctx);
  }
  assert_string_equal(other, "CUDART64_12.DLL");
  snprintf(to, sizeof to, "%s/cudart64_12.dll", dir);
  assert_int_equal(unlink(to), 0);
  assert_int_equal(rmdir(dir), 0);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(specs_are_parsed_and_normalised),
    cmocka_unit_test(libraries_are_required_by_their_own_and_file_names),
    cmocka_unit_test(bad_specs_are_refused_and_add_nothing),
    cmocka_unit_test(version_numbers_beyond_the_limit_are_refused),
    cmocka_unit_test(cuda_pins_take_one_major),
    cmocka_unit_test(long_specs_keep_the_reason),
    cmocka_unit_test(many_requirements_are_deduplicated_in_order),
    cmocka_unit_test(case_twins_take_the_canonical_spelling),
#ifndef _WIN32
    cmocka_unit_test(case_twins_fix_is_followed_as_printed),
#endif
#ifdef _WIN32
    cmocka_unit_test(quoted_path_entries_are_kept),
#endif
#if defined(_WIN32) && (defined(__x86_64__) || defined(_M_X64))
    cmocka_unit_test(dlls_of_another_machine_are_passed_over),
#endif
#ifndef _WIN32
    cmocka_unit_test(cudnn8_without_origin_preloads_its_sub_libraries),
    cmocka_unit_test(cudnn9_with_origin_gets_the_minimal_plan),
    cmocka_unit_test(bundled_shim_makes_the_minimal_plan_preload_sub_libraries),
    cmocka_unit_test(cublas_loads_after_cublaslt),
    cmocka_unit_test(missing_requirement_says_where_and_how_to_fix),
    cmocka_unit_test(explicit_newest_and_ranges_choose),
    cmocka_unit_test(two_majors_side_by_side_are_both_planned),
    cmocka_unit_test(search_path_is_prepended_clean_and_idempotent),
    cmocka_unit_test(a_missing_lazy_dependency_is_a_warning),
    cmocka_unit_test(a_found_lazy_dependency_joins_the_plan),
    cmocka_unit_test(a_lazy_dependency_the_opener_finds_is_not_preloaded),
    cmocka_unit_test(an_earlier_tier_wins_over_a_newer_version),
    cmocka_unit_test(the_environments_cuda_major_holds_for_every_family),
    cmocka_unit_test(another_major_is_taken_only_when_named_or_the_only_one),
    cmocka_unit_test(the_driver_decides_between_majors),
    cmocka_unit_test(a_plan_past_unreadable_files_leaves_no_error),
    cmocka_unit_test(a_known_consumer_gets_the_cublas_it_opens),
    cmocka_unit_test(a_known_consumer_gets_the_cublas_dll_it_opens),
    cmocka_unit_test(cupti_year_dlls_are_required_by_cuda_major),
    cmocka_unit_test(files_of_another_machine_are_never_planned),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
