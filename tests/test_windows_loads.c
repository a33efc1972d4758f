/* SPDX-License-Identifier: MIT */
/*
 * test_windows_loads.c - the one loader model's Windows loads as a Python
 * program makes them (docs/loader.md, Windows 14 and 15; issue 45): a
 * package's files opened as CPython opens them (an extension module's
 * imports beside it, its __init__'s os.add_dll_directory and ctypes.CDLL of
 * its DLLs), what they open later by name (LoadLibrary: PATH, never those
 * folders), and two copies of one DLL name. The model is built for Windows
 * on the windows_python fixtures' PE files, so this runs on every host
 * (natively, and in the Windows tier under Wine).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/strutil.h"
#include "core/context.h"
#include "cudaload.h"
#include "load/python_loads.h"
#include "loader/resolve.h"
#include "load/verdict.h"
#include "scan/python_pth.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fixture(const char *rel) {
  return test_fixture_path(rel);
}

#define NEED_FIXTURES()                                                        \
  do {                                                                         \
    if (!test_fixture_exists("windows_python/py312/python312.dll")) {          \
      print_message("skipped: the windows_python fixtures (PE files, built "   \
                    "with mingw-w64) are not in %s\n",                         \
                    CUDALOAD_FIXTURES_DIR);                                    \
      skip();                                                                  \
    }                                                                          \
  } while (0)

/* A Windows process with nothing of its own on PATH: the system's DLLs
 * the fixtures import are loaded, System32 is an empty folder. */
static void windows_process(cl_loader_model *m) {
  cl_loader_model_init(m, CL_NAMING_WINDOWS);
  cl_loader_model_set(&m->system32, fixture("windows_python/no-system32"));
  cl_loader_model_set(&m->path, fixture("windows_python/no-path"));
  cl_loader_model_add_loaded(m, fixture("windows_python/KERNEL32.dll"),
                             "KERNEL32.dll");
  cl_loader_model_add_loaded(m, fixture("windows_python/msvcrt.dll"),
                             "msvcrt.dll");
}

static cudaload_ctx *windows_ctx(const char *home) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS),
                   CUDALOAD_OK);
  char site[512];
  snprintf(site, sizeof site, "windows_python/%s/Lib/site-packages", home);
  assert_int_equal(cudaload_add_root(ctx, fixture(site)), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  return ctx;
}

static const char *file_of(const char *home, const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "windows_python/%s/Lib/site-packages/%s", home,
           rel);
  return fixture(path);
}

/* The not-found findings of e, each "CONSUMER-BASENAME:NAME" with the lazy
 * ones marked, joined by spaces in order. */
static void not_found_list(const cudaload_explain *e, char *out, size_t size) {
  out[0] = '\0';
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    if (f->kind != CL_FINDING_NOT_FOUND)
      continue;
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s%s%s:%s", used ? " " : "",
             f->lazy ? "lazy " : "",
             f->consumer ? cl_path_basename(f->consumer) : "(process)",
             f->name);
  }
}

static const cl_finding *finding_of(const cudaload_explain *e,
                                    cl_finding_kind kind) {
  for (size_t i = 0; i < e->finding_count; ++i)
    if (e->findings[i].kind == kind)
      return &e->findings[i];
  return NULL;
}

/* CPython imports _ext as an extension module: ctranslate2.dll comes from
 * the module's own folder (DLL_LOAD_DIR), python312.dll from the
 * interpreter's (the application folder), libiomp5md.dll and the bundled
 * cudnn64_8.dll beside ctranslate2.dll. Nothing of that fails, though
 * PATH holds none of them (the doctor said "ctranslate2.dll needs
 * libiomp5md.dll, cudnn64_8.dll, which the loader does not find"). What
 * fails is later, by name: ctranslate2.dll's LoadLibraryA("cublas64_12.dll")
 * (the known consumers' row, for the 4.4.0 its dist-info names) and the
 * shim's cudnn_ops_infer64_8.dll, each searched on PATH. */
static void an_import_finds_what_cpython_finds(void **state) {
  (void)state;
  NEED_FIXTURES();
  cudaload_ctx *ctx = windows_ctx("py312");
  cl_loader_model m;
  windows_process(&m);
  cudaload_explain *e = cl_verdict_new();
  assert_non_null(e);
  assert_int_equal(cl_verdict_open(e, ctx, &m,
                                   file_of("py312", "ctranslate2/"
                                                    "_ext.cp312-win_amd64.pyd"),
                                   CL_VERDICT_CONSUMER),
                   CUDALOAD_OK);
  char found[2048];
  not_found_list(e, found, sizeof found);
  assert_string_equal(found, "lazy ctranslate2.dll:cublas64_12.dll "
                             "lazy cudnn64_8.dll:cudnn_ops_infer64_8.dll");
  /* Every cuDNN 8 sub-library the shim names, in one finding. */
  const cl_finding *shim = NULL;
  for (size_t i = 0; i < e->finding_count && !shim; ++i)
    if (e->findings[i].names &&
        strstr(e->findings[i].names, "cudnn_ops_infer64_8.dll"))
      shim = &e->findings[i];
  assert_non_null(shim);
  assert_non_null(strstr(shim->names, "cudnn_adv_train64_8.dll"));
  /* The interpreter's folder is the application's, and ctranslate2's
   * __init__ added its own folder. */
  assert_string_equal(m.app_dir, fixture("windows_python/py312"));
  assert_int_equal(m.user_dir_count, 1);
  assert_string_equal(m.user_dirs[0], file_of("py312", "ctranslate2"));
  cudaload_explain_free(e);
  cl_loader_model_free(&m);
  cudaload_destroy(ctx);
}

/* explain of ctranslate2.dll (issue 45, item 2): the same two failures,
 * its own by-name open and its dependency's. */
static void a_dll_lists_its_own_and_its_dependencies_opens(void **state) {
  (void)state;
  NEED_FIXTURES();
  cudaload_ctx *ctx = windows_ctx("py312");
  cl_loader_model m;
  windows_process(&m);
  cudaload_explain *e = cl_verdict_new();
  assert_non_null(e);
  assert_int_equal(cl_verdict_open(e, ctx, &m,
                                   file_of("py312", "ctranslate2/"
                                                    "ctranslate2.dll"),
                                   CL_VERDICT_CONSUMER),
                   CUDALOAD_OK);
  char found[2048];
  not_found_list(e, found, sizeof found);
  assert_string_equal(found, "lazy ctranslate2.dll:cublas64_12.dll "
                             "lazy cudnn64_8.dll:cudnn_ops_infer64_8.dll");
  /* The fix: cuBLAS 12 is installed, where the loader does not look. */
  const cl_finding *blas = finding_of(e, CL_FINDING_NOT_FOUND);
  assert_string_equal(blas->name, "cublas64_12.dll");
  assert_non_null(strstr(blas->fix, "add --require cublas=12 (cublas 12 is "
                                    "installed in"));
  assert_non_null(strstr(blas->fix, "set \"PATH="));
  assert_null(strstr(blas->fix, "pip install"));
  cudaload_explain_free(e);
  cl_loader_model_free(&m);
  cudaload_destroy(ctx);
}

/* After cudaload.setup(): the wheel's cudnn64_8.dll and cuBLAS loaded by
 * full path, their folders exposed. ctranslate2's __init__ then loads its
 * bundled cudnn64_8.dll by full path, a second module of that name, and
 * ctranslate2.dll's import gets the first (checked under Wine with the
 * real loader, tests/windows_python/ct2_scenario.py): said as a note. */
static void the_copy_loaded_first_serves_the_program(void **state) {
  (void)state;
  NEED_FIXTURES();
  cudaload_ctx *ctx = windows_ctx("py312");
  cl_loader_model m;
  windows_process(&m);
  cudaload_explain *e = cl_verdict_new();
  assert_non_null(e);
  const char *wheel = file_of("py312", "nvidia/cudnn/bin/cudnn64_8.dll");
  char wheel_copy[512];
  snprintf(wheel_copy, sizeof wheel_copy, "%s", wheel);
  assert_int_equal(cl_verdict_open(e, ctx, &m, wheel_copy,
                                   CL_VERDICT_PRELOAD | CL_VERDICT_NO_LAZY),
                   CUDALOAD_OK);
  assert_int_equal(
      cl_verdict_open(e, ctx, &m,
                      file_of("py312", "nvidia/cublas/bin/cublas64_12.dll"),
                      CL_VERDICT_PRELOAD | CL_VERDICT_NO_LAZY),
      CUDALOAD_OK);
  assert_int_equal(
      cl_verdict_open(e, ctx, &m,
                      file_of("py312", "ctranslate2/_ext.cp312-win_amd64.pyd"),
                      CL_VERDICT_CONSUMER | CL_VERDICT_NO_LAZY),
      CUDALOAD_OK);
  cl_verdict_mixes(e, 0, CL_AMONG_PROCESS);
  char found[2048];
  not_found_list(e, found, sizeof found);
  assert_string_equal(found, "");
  const cl_finding *copies = finding_of(e, CL_FINDING_TWO_VERSIONS);
  assert_non_null(copies);
  assert_true(copies->note);
  /* The record: the name, the copy loaded first (which ctranslate2.dll's
   * import gets) and the file that imports it. */
  const cl_problem *said = &copies->problem;
  assert_int_equal(said->kind, CUDALOAD_PROBLEM_TWO_VERSIONS);
  assert_string_equal(said->facts[CUDALOAD_FACT_NAME], "cudnn64_8.dll");
  assert_string_equal(said->facts[CUDALOAD_FACT_TAKEN], wheel_copy);
  assert_non_null(said->facts[CUDALOAD_FACT_CONSUMER]);
  assert_non_null(
      strstr(said->facts[CUDALOAD_FACT_CONSUMER], "ctranslate2.dll"));
  cudaload_explain_free(e);
  cl_loader_model_free(&m);
  cudaload_destroy(ctx);
}

/* ctranslate2 4.8.5: its DLL names no cuDNN, its __init__ loads the
 * bundled cudnn64_9.dll 9.10.2.21. Loaded after the wheel's 9.28.0.42 it
 * serves nothing by name: a note. Loaded before a newer copy, what loads
 * the name gets the older: a problem. */
static void an_older_first_copy_is_a_problem(void **state) {
  (void)state;
  NEED_FIXTURES();
  const char *order[2][2] = {
      {"nvidia/cudnn/bin/cudnn64_9.dll", "ctranslate2/cudnn64_9.dll"},
      {"ctranslate2/cudnn64_9.dll", "nvidia/cudnn/bin/cudnn64_9.dll"}};
  for (int older_first = 0; older_first < 2; ++older_first) {
    cudaload_ctx *ctx = windows_ctx("py313");
    cl_loader_model m;
    windows_process(&m);
    cudaload_explain *e = cl_verdict_new();
    assert_non_null(e);
    for (int k = 0; k < 2; ++k)
      assert_int_equal(cl_verdict_open(e, ctx, &m,
                                       file_of("py313", order[older_first][k]),
                                       CL_VERDICT_NO_LAZY),
                       CUDALOAD_OK);
    cl_verdict_mixes(e, 0, CL_AMONG_PROCESS);
    const cl_finding *copies = finding_of(e, CL_FINDING_TWO_VERSIONS);
    assert_non_null(copies);
    assert_non_null(strstr(copies->text, "two copies of cudnn64_9.dll"));
    assert_non_null(strstr(copies->text, "(9.28.0.42)"));
    assert_non_null(strstr(copies->text, "(9.10.2.21)"));
    assert_int_equal(copies->note, !older_first);
    /* One finding for the pair, no generic "two versions" beside it. */
    size_t mixes = 0;
    for (size_t i = 0; i < e->finding_count; ++i)
      mixes += e->findings[i].kind == CL_FINDING_TWO_VERSIONS;
    assert_int_equal(mixes, 1);
    cudaload_explain_free(e);
    cl_loader_model_free(&m);
    cudaload_destroy(ctx);
  }
}

/* Whether e loaded the file at path (a fixture path). */
static int loaded_object(const cudaload_explain *e, const char *path) {
  for (size_t i = 0; i < e->object_count; ++i)
    if (!strcmp(e->objects[i].path, path))
      return 1;
  return 0;
}

/* torch's Windows wheel bundles its CUDA DLLs in torch\lib, and its
 * __init__ adds that folder and loads each DLL of it by full path before
 * import torch._C (issue 45, item 3). _C's .pyd imports torch_python.dll,
 * which lies in torch\lib, not beside the module: found through the
 * added folder. Every CUDA DLL torch_cuda.dll imports is the bundled copy,
 * though NVIDIA's cuDNN and cuBLAS wheels lie in the same site-packages;
 * nothing is missing (the cuDNN shim's sub-libraries are loaded already,
 * by name). */
static void torch_uses_the_copies_it_bundles(void **state) {
  (void)state;
  NEED_FIXTURES();
  cudaload_ctx *ctx = windows_ctx("torchvenv");
  cl_loader_model m;
  windows_process(&m);
  cudaload_explain *e = cl_verdict_new();
  assert_non_null(e);
  assert_int_equal(
      cl_verdict_open(e, ctx, &m,
                      file_of("torchvenv", "torch/_C.cp312-win_amd64.pyd"),
                      CL_VERDICT_CONSUMER),
      CUDALOAD_OK);
  char found[2048];
  not_found_list(e, found, sizeof found);
  assert_string_equal(found, "");
  assert_int_equal(m.user_dir_count, 1);
  assert_string_equal(m.user_dirs[0], file_of("torchvenv", "torch/lib"));
  assert_true(
      loaded_object(e, file_of("torchvenv", "torch/lib/cudnn64_9.dll")));
  assert_true(
      loaded_object(e, file_of("torchvenv", "torch/lib/cublas64_12.dll")));
  assert_false(
      loaded_object(e, file_of("torchvenv", "nvidia/cudnn/bin/cudnn64_9.dll")));
  cudaload_explain_free(e);
  cl_loader_model_free(&m);
  cudaload_destroy(ctx);
}

/* cudaload.setup() before import torch: the wheel's cudnn64_9.dll
 * (9.10.2.21) is loaded first, then torch's __init__ loads its bundled
 * 9.5.1.17 by full path; torch_cuda.dll's import gets the first, the
 * newer: a note that says so, no problem. */
static void torch_after_setup_gets_the_copy_loaded_first(void **state) {
  (void)state;
  NEED_FIXTURES();
  cudaload_ctx *ctx = windows_ctx("torchvenv");
  cl_loader_model m;
  windows_process(&m);
  cudaload_explain *e = cl_verdict_new();
  assert_non_null(e);
  char wheel[512];
  snprintf(wheel, sizeof wheel, "%s",
           file_of("torchvenv", "nvidia/cudnn/bin/cudnn64_9.dll"));
  assert_int_equal(cl_verdict_open(e, ctx, &m, wheel,
                                   CL_VERDICT_PRELOAD | CL_VERDICT_NO_LAZY),
                   CUDALOAD_OK);
  assert_int_equal(
      cl_verdict_open(e, ctx, &m,
                      file_of("torchvenv", "torch/_C.cp312-win_amd64.pyd"),
                      CL_VERDICT_CONSUMER | CL_VERDICT_NO_LAZY),
      CUDALOAD_OK);
  cl_verdict_mixes(e, 0, "in what the process would load");
  const cl_finding *copies = finding_of(e, CL_FINDING_TWO_VERSIONS);
  assert_non_null(copies);
  assert_true(copies->note);
  assert_non_null(strstr(copies->text, "two copies of cudnn64_9.dll"));
  assert_non_null(strstr(copies->text, "(9.10.2.21), loaded first"));
  assert_non_null(strstr(copies->text, "(9.5.1.17), loaded by its full path"));
  char gets[1200];
  snprintf(gets, sizeof gets, "torch_cuda.dll gets %s", wheel);
  if (!strstr(copies->text, gets))
    fail_msg("%s\nnot in: %s", gets, copies->text);
  cudaload_explain_free(e);
  cl_loader_model_free(&m);
  cudaload_destroy(ctx);
}

/* Which files CPython loads beside themselves, and the interpreter a site
 * folder belongs to. */
static void python_files_and_their_interpreter(void **state) {
  (void)state;
  NEED_FIXTURES();
  cl_python_load py;
  int is = 0;
  assert_int_equal(cl_python_load_of(file_of("py312", "ctranslate2/"
                                                      "ctranslate2.dll"),
                                     &py, &is),
                   CUDALOAD_OK);
  assert_true(is);
  assert_string_equal(py.package, "ctranslate2");
  assert_string_equal(py.home, fixture("windows_python/py312"));
  assert_non_null(py.init);
  assert_true(py.init->adds_own_folder && py.init->loads_own_dlls);
  cl_python_load_free(&py);
  /* A DLL outside any site-packages is no Python file; a .pyd is. */
  assert_int_equal(cl_python_load_of(fixture("windows_python/py312/"
                                             "python312.dll"),
                                     &py, &is),
                   CUDALOAD_OK);
  assert_false(is);
  char **dlls = NULL;
  size_t count = 0;
  assert_int_equal(
      cl_python_folder_dlls(file_of("py312", "ctranslate2"), &dlls, &count),
      CUDALOAD_OK);
  /* NTFS's order, glob's: by upper-case name. */
  assert_int_equal(count, 3);
  assert_string_equal(cl_path_basename(dlls[0]), "ctranslate2.dll");
  assert_string_equal(cl_path_basename(dlls[1]), "cudnn64_8.dll");
  assert_string_equal(cl_path_basename(dlls[2]), "libiomp5md.dll");
  for (size_t i = 0; i < count; ++i)
    free(dlls[i]);
  free(dlls);
  /* torch's __init__ adds torch\lib and loads its DLLs: its version is
   * read from the site folder's dist-info (2.7.1+cu126), however deep the
   * file lies. */
  assert_int_equal(
      cl_python_load_of(file_of("torchvenv", "torch/lib/torch_cuda.dll"), &py,
                        &is),
      CUDALOAD_OK);
  assert_true(is);
  assert_string_equal(py.package, "torch");
  assert_non_null(py.init);
  assert_string_equal(py.init_dir, file_of("torchvenv", "torch/lib"));
  cl_python_load_free(&py);
  assert_true(cl_python_loaded_by_init(
      file_of("torchvenv", "torch/lib/cudnn64_9.dll")));
  assert_false(cl_python_loaded_by_init(
      file_of("torchvenv", "nvidia/cudnn/bin/cudnn64_9.dll")));
}

static void count_visit(const char *path, const char *origin, void *opaque) {
  (void)origin;
  char *seen = opaque;
  size_t used = strlen(seen);
  snprintf(seen + used, 4096 - used, "%s%s", used ? ";" : "", path);
}

/* The embeddable distribution's import path is what its ._pth lists
 * (issue 45, item 3): with "import site", Lib\site-packages too; with
 * "#import site" as shipped, a folder it lists and not Lib\site-packages;
 * without a ._pth, none (the caller's search stands). */
static void a_pth_file_is_the_import_path(void **state) {
  (void)state;
  NEED_FIXTURES();
  char seen[4096] = "";
  assert_int_equal(cl_python_pth_roots(fixture("windows_python/py312/"
                                               "python.exe"),
                                       "test", count_visit, seen),
                   1);
  assert_string_equal(seen, fixture("windows_python/py312/Lib/site-packages"));
  seen[0] = '\0';
  assert_int_equal(cl_python_pth_roots(fixture("windows_python/embedded/"
                                               "python.exe"),
                                       "test", count_visit, seen),
                   1);
  assert_string_equal(seen, fixture("windows_python/embedded/packages"));
  seen[0] = '\0';
  /* An interpreter with no ._pth beside it. */
  assert_int_equal(cl_python_pth_roots(file_of("py312", "ctranslate2/"
                                                        "python.exe"),
                                       "test", count_visit, seen),
                   0);
  assert_string_equal(seen, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(an_import_finds_what_cpython_finds),
      cmocka_unit_test(a_dll_lists_its_own_and_its_dependencies_opens),
      cmocka_unit_test(the_copy_loaded_first_serves_the_program),
      cmocka_unit_test(an_older_first_copy_is_a_problem),
      cmocka_unit_test(torch_uses_the_copies_it_bundles),
      cmocka_unit_test(torch_after_setup_gets_the_copy_loaded_first),
      cmocka_unit_test(python_files_and_their_interpreter),
      cmocka_unit_test(a_pth_file_is_the_import_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
