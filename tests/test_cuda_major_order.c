/* SPDX-License-Identifier: MIT */
/*
 * test_cuda_major_order.c - a library's CUDA major is one answer, whoever
 * asks and in whatever order (issue 42, item 6): cudaload_library_cuda_major()
 * of a wheel's library says the same before a plan as after it, and the
 * plan decides the same whether the getter was asked first or not. The
 * trees (fixtures: cuda_major_order/) are wheels whose files and dist-info
 * tell different CUDA majors, or only one of them tells. Planning reads
 * headers and loads nothing, so the cases share one process.
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
/* The trees are ELF files laid out as Linux wheels: under Wine the
 * Windows naming would find none of them. */

#define MAX_LIBRARIES 16

static int has_fixtures(void) {
  FILE *f = fopen(test_fixture_path("cuda_major_order/disagree/site-packages/"
                                    "nvidia/cudnn/lib/libcudnn.so.8"),
                  "rb");
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

/* A handle that has scanned the tree's folder of Python packages only. */
static cudaload_ctx *scanned(const char *tree) {
  char relative[256];
  snprintf(relative, sizeof relative, "cuda_major_order/%s/site-packages",
           tree);
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_add_root(ctx, test_fixture_path(relative)),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_true(cudaload_library_count(ctx) > 0);
  assert_true(cudaload_library_count(ctx) <= MAX_LIBRARIES);
  return ctx;
}

static void plan(cudaload_ctx *ctx, const char *spec) {
  assert_int_equal(cudaload_require(ctx, spec), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
}

/* Every library's CUDA major, by index (the scan lists the same files in
 * the same order in every handle). */
static void cuda_majors(const cudaload_ctx *ctx, int *out) {
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    out[i] = cudaload_library_cuda_major(ctx, i);
}

/* The getter on a fresh handle, then a plan; a plan on a fresh handle,
 * then the getter: each library's CUDA major is `want` every time, and the
 * two plans are the same plan. */
static void one_answer(const char *tree, const char *spec, int want) {
  int first[MAX_LIBRARIES], after_own_plan[MAX_LIBRARIES],
      after_plan[MAX_LIBRARIES];
  cudaload_ctx *asked_first = scanned(tree);
  cuda_majors(asked_first, first);
  plan(asked_first, spec);
  cuda_majors(asked_first, after_own_plan);

  cudaload_ctx *planned_first = scanned(tree);
  plan(planned_first, spec);
  cuda_majors(planned_first, after_plan);

  size_t n = cudaload_library_count(planned_first);
  assert_int_equal(cudaload_library_count(asked_first), n);
  for (size_t i = 0; i < n; ++i) {
    const char *path = cudaload_library_path(planned_first, i);
    assert_string_equal(cudaload_library_path(asked_first, i), path);
    if (first[i] != after_plan[i] || after_own_plan[i] != after_plan[i] ||
        after_plan[i] != want)
      print_message("%s: CUDA %d asked first, %d after its plan, %d after a "
                    "plan on a fresh handle; want %d\n",
                    path, first[i], after_own_plan[i], after_plan[i], want);
    assert_int_equal(first[i], after_plan[i]);
    assert_int_equal(after_own_plan[i], after_plan[i]);
    assert_int_equal(after_plan[i], want);
  }
  assert_int_equal(cudaload_plan_count(asked_first),
                   cudaload_plan_count(planned_first));
  for (size_t i = 0; i < cudaload_plan_count(planned_first); ++i)
    assert_string_equal(cudaload_plan_path(asked_first, i),
                        cudaload_plan_path(planned_first, i));
  assert_int_equal(cudaload_plan_cuda_major(asked_first),
                   cudaload_plan_cuda_major(planned_first));
  cudaload_destroy(asked_first);
  cudaload_destroy(planned_first);
}

/* cuDNN 8's files built for CUDA 11 in a nvidia-cudnn-cu12 wheel: the file
 * is what the process loads, so its 11 is the answer, asked first too. */
static void files_and_dist_info_disagree(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  one_answer("disagree", "cudnn=8", 11);
}

/* No dist-info: only what ops_infer opens (libcublas.so.12) tells. */
static void only_the_files_tell(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  one_answer("files-only", "cudnn=8", 12);
}

/* cuRAND 10's file tells nothing: the dist-info's -cu12 does. */
static void only_the_dist_info_tells(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  one_answer("dist-only", "curand=10", 12);
}

#else

static void linux_wheels_only(void **state) {
  (void)state;
  print_message("skipped: the cuda_major_order trees are Linux wheels\n");
  skip();
}

#endif

int main(void) {
  const struct CMUnitTest tests[] = {
#ifndef _WIN32
      cmocka_unit_test(files_and_dist_info_disagree),
      cmocka_unit_test(only_the_files_tell),
      cmocka_unit_test(only_the_dist_info_tells),
#else
      cmocka_unit_test(linux_wheels_only),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
