/* SPDX-License-Identifier: MIT */
/*
 * test_doctor.c - cudaload_doctor(): the sections and fields a reader
 * relies on, one fix line per problem, colour only when asked for, and
 * the same facts in text, JSON and YAML. The JSON is parsed by a real
 * parser in tests/cli/test_cli.py (class Doctor); here the structure is
 * checked by its keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/context.h"
#include "cudaload.h"
#include "report/report_writer.h"
#include "test_paths.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#define SEP "\\"
#define DRIVER_FILE "nvcuda.dll"
#define DRIVER_VERSION_IN_NAME 0
#define ORPHAN_FILE "cublasLt64_12.dll"
#define CUBLAS12_FILE "cublas64_12.dll"
/* The pip a fix line names where no interpreter's site folder was searched
 * (fix_lines.c): Windows' launcher where one is installed, else the Python
 * the program runs (issue 45, item 4). */
static const char *pip(void) {
  char found[MAX_PATH];
  return SearchPathA(NULL, "py.exe", NULL, sizeof found, found, NULL)
             ? "py -m pip "
             : "python -m pip ";
}
#else
#include <sys/stat.h>
#include <unistd.h>
#define SEP "/"
#define DRIVER_FILE "libcuda.so.580.65.06"
#define DRIVER_VERSION_IN_NAME 1
#define ORPHAN_FILE "libcublasLt.so.12"
#define CUBLAS12_FILE "libcublas.so.12"
static const char *pip(void) {
  return "pip ";
}
#endif

/* "<prefix><pip><rest>" for a fix line, in a buffer of a small ring. */
static const char *with_pip(const char *prefix, const char *rest) {
  static char slots[4][512];
  static unsigned next;
  char *out = slots[next++ % 4];
  snprintf(out, sizeof slots[0], "%s%s%s", prefix, pip(), rest);
  return out;
}

/* Calls of cl_os_real_path() on paths that end with one file name: the
 * link wraps the function (-Wl,--wrap=cl_os_real_path,
 * tests/CMakeLists.txt). */
static const char *real_path_watched;
static int real_path_calls;
char *__real_cl_os_real_path(const char *path);
char *__wrap_cl_os_real_path(const char *path);
char *__wrap_cl_os_real_path(const char *path) {
  size_t n = strlen(path),
         k = real_path_watched ? strlen(real_path_watched) : 0;
  if (k && n >= k && strcmp(path + n - k, real_path_watched) == 0)
    ++real_path_calls;
  return __real_cl_os_real_path(path);
}

static char test_dir[1024];

static const char *path_in(const char *name) {
  static char slots[4][2048];
  static unsigned next;
  char *out = slots[next++ % 4];
  snprintf(out, sizeof slots[0], "%s" SEP "%s", test_dir, name);
  return out;
}

static void make_folder(const char *name) {
#ifdef _WIN32
  _mkdir(path_in(name));
#else
  mkdir(path_in(name), 0700);
#endif
}

static void touch(const char *name) {
  FILE *f = fopen(path_in(name), "wb");
  assert_non_null(f);
  fclose(f);
}

static int make_test_dir(void **state) {
  (void)state;
#ifdef _WIN32
  char base[MAX_PATH];
  DWORD n = GetTempPathA(sizeof base, base);
  if (n == 0 || n >= sizeof base)
    return -1;
  snprintf(test_dir, sizeof test_dir, "%scudaload-doctor-%lu", base,
           (unsigned long)GetCurrentProcessId());
  _mkdir(test_dir);
#else
  char tmpl[] = "/tmp/cudaload-doctor-XXXXXX";
  if (!mkdtemp(tmpl))
    return -1;
  snprintf(test_dir, sizeof test_dir, "%s", tmpl);
#endif
  return 0;
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
        continue;
      char child[2048];
      snprintf(child, sizeof child, "%s" SEP "%s", dir, e->d_name);
      if (remove(child) != 0)
        remove_tree(child);
    }
    closedir(d);
  }
#ifdef _WIN32
  _rmdir(dir);
#else
  rmdir(dir);
#endif
}

static int remove_test_dir(void **state) {
  (void)state;
  if (test_dir[0])
    remove_tree(test_dir);
  return 0;
}

static void assert_contains(const char *text, const char *needle) {
  if (!strstr(text, needle))
    fail_msg("the report lacks \"%s\":\n%s", needle, text);
}

static void assert_lacks(const char *text, const char *needle) {
  if (strstr(text, needle))
    fail_msg("the report has \"%s\":\n%s", needle, text);
}

/* The report for ctx; fails the test unless the doctor succeeds. */
static char *report(cudaload_ctx *ctx, int format, unsigned flags,
                    size_t *problems) {
  char *text = NULL;
  int rc = cudaload_doctor(ctx, format, flags, &text);
  if (rc != CUDALOAD_OK)
    fail_msg("cudaload_doctor: %d %s", rc, cudaload_last_error());
  assert_non_null(text);
  if (problems)
    *problems = cudaload_doctor_problem_count(ctx);
  return text;
}

static cudaload_ctx *ctx_with_root(const char *root) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  if (root)
    assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  return ctx;
}

/* A cuDNN 8 of the host's own kind, from the fixture trees. */
static const char *cudnn8_tree(void) {
#ifdef _WIN32
  return test_fixture_path("preload/windows/cudnn8");
#else
  return test_fixture_path("cudnn8_compat");
#endif
}

static int has_fixtures(void) {
  DIR *d = opendir(cudnn8_tree());
  if (d)
    closedir(d);
  return d != NULL;
}

#define REQUIRE_FIXTURES()                                                     \
  do {                                                                         \
    if (!has_fixtures()) {                                                     \
      print_message("skipped: fixture trees not built in %s\n",                \
                    CUDALOAD_FIXTURES_DIR);                                    \
      skip();                                                                  \
    }                                                                          \
  } while (0)

/* --- the text report --------------------------------------------------- */

static void text_has_every_section_in_order(void **state) {
  (void)state;
  cudaload_ctx *ctx = ctx_with_root(NULL);
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  static const char *const sections[] = {"\nPlatform\n",
                                         "\nDriver\n",
                                         "\nLibraries found\n",
                                         "\nPlan\n",
                                         "\nLoaded in this process\n",
                                         "\nConflicts\n",
                                         "\nProbe\n",
#ifdef _WIN32 /* only Windows has a display watchdog to report */
                                         "\nDisplay watchdog\n",
#endif
                                         "\nEnvironment\n",
                                         "\nProblems and fixes\n"};
  const char *at = text;
  for (size_t i = 0; i < sizeof sections / sizeof *sections; ++i) {
    const char *found = strstr(at, sections[i]);
    if (!found)
      fail_msg("section %s missing or out of order:\n%s", sections[i] + 1,
               text);
    at = found + 1;
  }
  assert_contains(text, cudaload_version_string());
  assert_contains(text, "none (give --require SPEC or a manifest)");
  /* No colour unless asked for: the text goes to files and pipes too. */
  assert_lacks(text, "\033[");
  cudaload_free(text);
  text = report(ctx, CUDALOAD_FORMAT_TEXT, CUDALOAD_DOCTOR_COLOR, NULL);
  assert_contains(text, "\033[1mPlatform\033[0m");
  cudaload_free(text);
  cudaload_destroy(ctx);
}

/* The text names the roots it searched, as env and exec do: "0 libraries
 * in 3 roots searched (2 absent or unreadable)" alone left the reader
 * guessing which. */
static void text_lists_the_roots_searched(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  char missing[4200];
  snprintf(missing, sizeof missing, "%s" SEP "no-such-root", cudnn8_tree());
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_add_root(ctx, missing), CUDALOAD_OK);
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  char expected[9000];
  snprintf(expected, sizeof expected,
           " in 2 roots searched (1 absent or unreadable):\n"
           "    %s (explicit)\n"
           "    %s (explicit, not found)\n",
           cudnn8_tree(), missing);
  assert_contains(text, expected);
  cudaload_free(text);
  cudaload_destroy(ctx);
}

static void missing_requirement_is_a_problem_with_its_fix(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cudnn=9"), CUDALOAD_OK);
  size_t problems = 0;
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, &problems);
  assert_contains(text, "cudnn=8  ok");
  assert_contains(text, "cudnn=9  MISSING");
  assert_contains(text, "cudnn=9: no usable cudnn library");
  assert_contains(text, "major 8, not 9");
  /* The plan's own fix, word for word: quoted for sh, or for cmd and
   * PowerShell (Windows: the launcher's pip), each command alone on its
   * line. A compat folder does not say its CUDA major, nor does anything
   * else here: one command per CUDA major that ships cuDNN 9, to choose. */
#ifdef _WIN32
  assert_contains(
      text, with_pip("\n          ", "install \"nvidia-cudnn-cu12==9.*\"\n"));
#else
  assert_contains(
      text, with_pip("\n          ", "install 'nvidia-cudnn-cu12==9.*'\n"));
#endif
  assert_contains(text, "for a program built for CUDA 12:");
  assert_contains(text, "which CUDA major the program is built for");
  assert_true(problems >= 1);
  size_t unsatisfied = SIZE_MAX;
  for (size_t i = 0; i < problems; ++i)
    if (cudaload_doctor_problem_kind(ctx, i) == CUDALOAD_PROBLEM_UNSATISFIED)
      unsatisfied = i;
  assert_true(unsatisfied != SIZE_MAX);
  int source = 0;
  assert_string_equal(cudaload_doctor_problem_fact(
                          ctx, unsatisfied, CUDALOAD_FACT_REQUIREMENT, &source),
                      "cudnn=9");
  assert_int_equal(source, CUDALOAD_FROM_REQUEST);
  /* Nothing told the CUDA major: no fact claims one, and the installs are
   * choices (never run unasked), not steps to follow in order. */
  assert_null(cudaload_doctor_problem_fact(ctx, unsatisfied,
                                           CUDALOAD_FACT_CUDA_MAJOR, NULL));
  size_t choices = 0, installs = 0;
  for (size_t k = 0; k < cudaload_doctor_fix_step_count(ctx, unsatisfied);
       ++k) {
    int action = cudaload_doctor_fix_step_action(ctx, unsatisfied, k);
    choices += action == CUDALOAD_FIX_CHOICE;
    installs += action == CUDALOAD_FIX_INSTALL;
  }
  assert_true(choices >= 2);
  assert_int_equal(installs, 0);
  /* The satisfied requirement's files are in the plan, main first. */
  assert_contains(text, "cudnn_ops_infer");
  assert_contains(text, "why: required by cudnn=8");
  cudaload_free(text);
  cudaload_destroy(ctx);
}

/* A cuBLAS 12 of the host's own kind, from the fixture trees. */
static const char *cublas12_tree(void) {
#ifdef _WIN32
  return test_fixture_path("preload/windows/cublas12");
#else
  return test_fixture_path("preload/cublas12");
#endif
}

/* cuDNN 8 opens cuBLAS lazily (docs/real-libraries.md): a healthy setup
 * plans it too, and its files find each other as the environment is: on
 * Linux NVIDIA's wheels (RUNPATH $ORIGIN/../../cublas/lib), on Windows the
 * folders on PATH, as `cudaload env` puts them (cudaload_env_apply). */
static void a_healthy_setup_has_no_problems(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  make_folder("driver");
  touch("driver" SEP DRIVER_FILE);
#ifdef _WIN32
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_add_root(ctx, cublas12_tree()), CUDALOAD_OK);
#else
  cudaload_ctx *ctx =
      ctx_with_root(test_fixture_path("wheels-cu12/site-packages"));
#endif
  assert_int_equal(cudaload_add_root(ctx, path_in("driver")), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cublas=12"), CUDALOAD_OK);
#ifdef _WIN32
  /* This process's PATH changes: the tests after this one get it back. */
  static char saved[32768];
  DWORD had = GetEnvironmentVariableA("PATH", saved, sizeof saved);
  assert_int_equal(cudaload_env_apply(ctx), CUDALOAD_OK);
#endif
  size_t problems = 99;
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, &problems);
#ifdef _WIN32
  SetEnvironmentVariableA("PATH", had ? saved : NULL);
#endif
  if (problems != 0)
    fail_msg("%u problems in:\n%s", (unsigned)problems, text);
  assert_contains(text, "Problems and fixes\n  none\n");
  assert_contains(text, DRIVER_FILE);
  cudaload_free(text);
  cudaload_destroy(ctx);
}

/* The user's error comes from the environment as it is: a cuDNN 8 folder
 * whose main library opens its sub-libraries by name from a folder the
 * loader does not search (no RUNPATH on Linux; not on PATH on Windows).
 * The plan is fine once cudaload loads it; the doctor says what fails
 * without it, and that running through cudaload is the fix. */
static void what_fails_without_cudaload_is_a_problem(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_add_root(ctx, cublas12_tree()), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cublas=12"), CUDALOAD_OK);
  size_t problems = 0;
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, &problems);
  assert_contains(text, "without cudaload (this environment as it is): ");
#ifdef _WIN32
  /* No program is known: a library is not opened by its path, which
   * nothing on Windows finds but cudaload; opened by name (docs/loader.md,
   * Windows 14), cuDNN 8 itself is on no folder LoadLibrary searches. The
   * fix: setup() before the import, the PATH line, or exec. The process
   * is their opener: one problem for both names it opens, as for a file
   * that opens names on Linux. */
  assert_contains(text, "the process opens cudnn64_8.dll and " CUBLAS12_FILE
                        " by name when it first needs them: not found (rule: "
                        "not-found; looked at: ");
  assert_lacks(text, "needs cublasLt64_12.dll");
  assert_contains(text, "fix: in Python, cudaload.setup(require=[\"cudnn=8\", "
                        "\"cublas=12\"], roots=[r\"");
  assert_contains(text, "set \"PATH=");
  assert_contains(text, "cudaload exec --no-defaults --root ");
#else
  assert_contains(text, "libcudnn.so.8 opens libcudnn_ops_infer.so.8");
  /* The command alone on its line, ready to paste. */
  assert_contains(text, "fix: cudaload exec --no-defaults --root ");
  assert_contains(text, "cudaload.setup(require=[\"cudnn=8\", "
                        "\"cublas=12\"], roots=[r\"");
#endif
#ifdef _WIN32
  /* PowerShell reads a comma as an array: the word is quoted. */
  assert_contains(text, " --require \"cudnn=8,cublas=12\" -- PROGRAM\n");
#else
  assert_contains(text, " --require cudnn=8,cublas=12 -- PROGRAM\n");
#endif
  assert_true(problems >= 1);
  /* As a record: a name not found as it is, fixed by running the program
   * through cudaload, the command as its words. */
  size_t found = SIZE_MAX;
  for (size_t i = 0; i < problems && found == SIZE_MAX; ++i) {
    const char *condition =
        cudaload_doctor_problem_fact(ctx, i, CUDALOAD_FACT_CONDITION, NULL);
    if (condition && !strcmp(condition, "as-it-is"))
      found = i;
  }
  assert_true(found != SIZE_MAX);
  int kind = cudaload_doctor_problem_kind(ctx, found);
  assert_true(kind == CUDALOAD_PROBLEM_LAZY_NOT_FOUND ||
              kind == CUDALOAD_PROBLEM_NOT_FOUND);
  int source = 0;
  const char *consumer =
      cudaload_doctor_problem_fact(ctx, found, CUDALOAD_FACT_CONSUMER, &source);
  assert_non_null(consumer);
  assert_int_equal(source, CUDALOAD_FROM_MACHINE);
#ifdef _WIN32
  /* No file of the model opens it: the program itself does. */
  assert_string_equal(consumer, "the process");
#else
  assert_non_null(strstr(consumer, "libcudnn.so.8"));
#endif
  /* Where the loader looked, as on Linux. */
  assert_non_null(
      cudaload_doctor_problem_fact(ctx, found, CUDALOAD_FACT_SEARCHED, NULL));
  size_t steps = cudaload_doctor_fix_step_count(ctx, found);
  assert_true(steps >= 1);
  /* Windows says setup() and the PATH line first: the exec step follows. */
  size_t run = 0;
  while (run < steps && cudaload_doctor_fix_step_action(ctx, found, run) !=
                            CUDALOAD_FIX_RUN_PROGRAM)
    ++run;
  assert_true(run < steps);
  assert_string_equal(cudaload_doctor_fix_step_arg(ctx, found, run, 0),
                      "cudaload");
  assert_string_equal(cudaload_doctor_fix_step_arg(ctx, found, run, 1), "exec");
  size_t argc = 0;
  while (cudaload_doctor_fix_step_arg(ctx, found, run, argc))
    ++argc;
  assert_string_equal(cudaload_doctor_fix_step_arg(ctx, found, run, argc - 1),
                      "PROGRAM");
  assert_string_equal(cudaload_doctor_fix_step_arg(ctx, found, run, argc - 2),
                      "--");
  assert_null(cudaload_doctor_fix_step_arg(ctx, found, run, argc));
  assert_non_null(cudaload_doctor_fix_step_note(ctx, found, run));
  /* Out of range: nothing. */
  assert_int_equal(cudaload_doctor_problem_kind(ctx, problems), 0);
  assert_null(cudaload_doctor_problem_text(ctx, problems));
  assert_int_equal(cudaload_doctor_fix_step_action(ctx, found, steps), 0);
  cudaload_free(text);
  cudaload_destroy(ctx);
}

/* cuDNN 8's ops_infer opens libcublas / libcublasLt lazily, by name, at its
 * first kernel: a plan with cuDNN 8 and no cuBLAS succeeds, but the doctor
 * says what will fail and how to fix it. A compat folder does not tell the
 * CUDA major of the build, and the problem says so. */
static void cudnn_without_cublas_is_a_problem(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  size_t problems = 0;
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, &problems);
  /* The loader model decides, naming the rule and where it looked. */
#ifdef _WIN32
  assert_contains(text, "cudnn_ops_infer64_8.dll opens cublas64_12.dll");
#else
  assert_contains(text, "libcudnn_ops_infer.so.8 opens libcublas.so.12 and "
                        "libcublasLt.so.12 by name when it first needs them");
  assert_contains(text, "libcublasLt.so.12");
#endif
  assert_contains(text, ": not found (rule: not-found; looked at:");
  assert_contains(text, "fix: add --require cublas=12 with a root that holds "
                        "it");
  /* The install alone on its line, after the note that leads to it. */
  assert_contains(text, with_pip("to install it:\n          ", "install"));
  assert_contains(text, "nvidia-cublas-cu12");
  assert_true(problems >= 1);
  cudaload_free(text);
  cudaload_destroy(ctx);
  /* Planned beside it: no such problem. */
  ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_add_root(ctx, cublas12_tree()), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cublas=12"), CUDALOAD_OK);
  text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
#ifdef _WIN32
  /* (Without cudaload nothing puts either folder on PATH: the process's
   * own by-name opens are said as such.) */
  assert_lacks(text, "cudnn_ops_infer64_8.dll opens " CUBLAS12_FILE);
#else
  assert_lacks(text, "opens " CUBLAS12_FILE " by name");
#endif
  cudaload_free(text);
  cudaload_destroy(ctx);
#ifndef _WIN32
  /* NVIDIA's wheels: ops_infer's RUNPATH $ORIGIN/../../cublas/lib finds
   * nvidia-cublas-cu12 beside it, so nothing needs planning. */
  ctx = ctx_with_root(test_fixture_path("wheels-cu12/site-packages"));
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  assert_contains(text, "nvidia/cudnn/lib/libcudnn_ops_infer.so.8");
  assert_lacks(text, "opens " CUBLAS12_FILE " by name");
  cudaload_free(text);
  cudaload_destroy(ctx);
#endif
}

static void no_driver_is_a_problem(void **state) {
  (void)state;
  cudaload_ctx *ctx = ctx_with_root(path_in("nothing-here"));
  size_t problems = 0;
  char *text = report(ctx, CUDALOAD_FORMAT_JSON, 0, &problems);
  assert_contains(text, "\"driver\": null");
  assert_contains(text, "no NVIDIA driver");
  assert_contains(text, "install the NVIDIA driver");
  /* The explicit root that does not exist is a problem too. */
  assert_contains(text, "nothing-here: not found");
  assert_int_equal(problems, 2);
  cudaload_free(text);
  cudaload_destroy(ctx);
}

static void an_old_driver_for_the_planned_cuda_is_a_problem(void **state) {
  (void)state;
  if (!DRIVER_VERSION_IN_NAME) {
    print_message("skipped: nvcuda.dll names carry no driver version\n");
    skip();
  }
  DIR *d = opendir(test_fixture_path("wheels-cu12/site-packages"));
  if (!d) {
    print_message("skipped: fixture trees not built\n");
    skip();
  }
  closedir(d);
  make_folder("old-driver");
  touch("old-driver" SEP "libcuda.so.470.82.01");
  cudaload_ctx *ctx =
      ctx_with_root(test_fixture_path("wheels-cu12/site-packages"));
  assert_int_equal(cudaload_add_root(ctx, path_in("old-driver")), CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas=12"), CUDALOAD_OK);
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  assert_contains(text, "470.82.01 is too old for CUDA 12");
  assert_contains(text, "fix: update the NVIDIA driver to 525 or newer");
  cudaload_free(text);
  cudaload_destroy(ctx);
}

static void a_sub_library_without_its_main_is_a_problem(void **state) {
  (void)state;
  make_folder("orphan");
  touch("orphan" SEP ORPHAN_FILE);
  cudaload_ctx *ctx = ctx_with_root(path_in("orphan"));
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  assert_contains(text, "cublas 12 found only as sub-library");
  assert_contains(text, "fix: reinstall cublas 12 completely");
  cudaload_free(text);
  cudaload_destroy(ctx);
}

/* --- JSON and YAML ------------------------------------------------------ */

static void json_has_the_documented_keys(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_require(ctx, "cudnn=8,cublas=12"), CUDALOAD_OK);
  char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  assert_true(json[0] == '{');
  assert_contains(json, "\"schema_version\": 3,");
  static const char *const keys[] = {
      "\"platform\": {",
      "\"os\": ",
      "\"arch\": ",
      "\"cudaload_version\": ",
      "\"driver\": ",
      "\"manifest\": null",
      "\"roots\": [",
      "\"libraries\": [",
      "\"version_source\": ",
      "\"requirements\": [",
      "\"spec\": \"cudnn=8\"",
      "\"satisfied\": true",
      "\"satisfied\": false",
      "\"plan\": [",
      "\"state\": \"planned\"",
      "\"reason\": \"required by cudnn=8\"",
      "\"loaded\": [",
      "\"conflicts\": [",
      "\"probe\": null",
      "\"problems\": [",
      "\"kind\": \"unsatisfied\"",
      "\"problem\": \"cublas=12: no usable cublas library",
      "\"requirement\": {\n          \"value\": \"cublas=12\",\n          "
      "\"from\": \"request\"",
      "\"fix\": [",
      "\"action\": \"install\"",
      "\"nvidia-cublas-cu12\"",
      NULL};
  for (size_t i = 0; keys[i]; ++i)
    assert_contains(json, keys[i]);
  assert_contains(json, with_pip("\"fix_text\": \"",
                                 "install nvidia-cublas-cu12; then pass"));
  cudaload_free(json);
  cudaload_destroy(ctx);
}

static void yaml_follows_the_same_schema(void **state) {
  (void)state;
  cudaload_ctx *ctx = ctx_with_root(NULL);
  char *yaml = NULL;
  /* Every build writes YAML (report_yaml.c), with libyaml or without. */
  assert_true(cudaload_format_supported(CUDALOAD_FORMAT_YAML));
  int rc = cudaload_doctor(ctx, CUDALOAD_FORMAT_YAML, 0, &yaml);
  assert_int_equal(rc, CUDALOAD_OK);
  assert_contains(yaml, "schema_version: 3\n");
  assert_contains(yaml, "\nplatform:\n");
  assert_contains(yaml, "\nproblems:\n");
  cudaload_free(yaml);
  cudaload_destroy(ctx);
}

/* Whether this libcudaload reads manifests (builds with libyaml): one
 * without says CUDALOAD_E_UNSUPPORTED before it opens the file. */
static int reads_manifests(void) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  int rc = cudaload_load_manifest(ctx, path_in("no-such-manifest.yaml"));
  cudaload_destroy(ctx);
  return rc != CUDALOAD_E_UNSUPPORTED;
}

static void manifest_policy_is_reported(void **state) {
  (void)state;
  if (!reads_manifests()) {
    print_message("skipped: built without libyaml, no manifests\n");
    skip();
  }
  const char *path = path_in("cudaload.yaml");
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("requirements: [cudart]\npolicy: {sublibraries: all}\n", f);
  fclose(f);
  cudaload_ctx *ctx = ctx_with_root(NULL);
  assert_int_equal(cudaload_load_manifest(ctx, path), CUDALOAD_OK);
  char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  assert_contains(json, "\"sublibraries\": \"all\"");
  assert_contains(json, "\"spec\": \"cudart\"");
  assert_contains(json, "cudaload.yaml");
  cudaload_free(json);
  cudaload_destroy(ctx);
}

static void probe_section_when_asked(void **state) {
  (void)state;
  /* No requirements: the probe stops at the driver and the GPU stages, and
   * loads no library of the plan into this test process. */
  cudaload_ctx *ctx = ctx_with_root(NULL);
  char *json = report(ctx, CUDALOAD_FORMAT_JSON, CUDALOAD_DOCTOR_PROBE, NULL);
  assert_lacks(json, "\"probe\": null");
  assert_contains(json, "\"verdict\": ");
  assert_contains(json, "\"stages\": [");
  static const char *const stages[] = {
      "driver", "init", "devices", "context", "runtime", "cublas", "cudnn"};
  char needle[64];
  for (size_t i = 0; i < sizeof stages / sizeof *stages; ++i) {
    snprintf(needle, sizeof needle, "\"name\": \"%s\"", stages[i]);
    assert_contains(json, needle);
  }
  cudaload_free(json);
  cudaload_destroy(ctx);
}

/* Each state, reason and stage status has one name, from the library: the
 * names the reports write and the tool and Python show, NULL for a value
 * that is none of them. */
static void names_come_from_one_table(void **state) {
  (void)state;
  static const char *const states[] = {"planned",        "loaded",
                                       "already-loaded", "loaded-elsewhere",
                                       "failed",         "not-needed"};
  for (int i = 0; i < 6; ++i)
    assert_string_equal(cudaload_plan_state_name(i), states[i]);
  assert_int_equal(CUDALOAD_STATE_NOT_NEEDED, 5);
  assert_null(cudaload_plan_state_name(-1));
  assert_null(cudaload_plan_state_name(6));
  assert_string_equal(cudaload_probe_verdict_name(CUDALOAD_GPU_OK), "GPU_OK");
  assert_string_equal(cudaload_probe_verdict_name(CUDALOAD_CPU_FALLBACK),
                      "CPU_FALLBACK");
  assert_null(cudaload_probe_verdict_name(2));
  assert_string_equal(cudaload_probe_reason_name(CUDALOAD_REASON_NONE), "none");
  assert_string_equal(cudaload_probe_reason_name(CUDALOAD_REASON_NO_DRIVER),
                      "no_driver");
  assert_string_equal(cudaload_probe_reason_name(CUDALOAD_REASON_PROBE_CRASHED),
                      "probe_crashed");
  assert_null(cudaload_probe_reason_name(CUDALOAD_REASON_PROBE_CRASHED + 1));
  assert_null(cudaload_probe_reason_name(-1));
  assert_string_equal(cudaload_probe_stage_status_name(CUDALOAD_STAGE_OK),
                      "ok");
  assert_string_equal(cudaload_probe_stage_status_name(CUDALOAD_STAGE_WARNING),
                      "warning");
  assert_null(cudaload_probe_stage_status_name(4));
  assert_string_equal(cudaload_root_status_name(CUDALOAD_OK), "ok");
  assert_string_equal(cudaload_root_status_name(CUDALOAD_E_NOT_FOUND),
                      "not found");
  assert_string_equal(cudaload_root_status_name(CUDALOAD_E_INSECURE),
                      "writable by other users");
  assert_string_equal(cudaload_root_status_name(CUDALOAD_E_IO), "unreadable");
  assert_true(cudaload_format_supported(CUDALOAD_FORMAT_TEXT));
  assert_true(cudaload_format_supported(CUDALOAD_FORMAT_JSON));
  assert_true(cudaload_format_supported(CUDALOAD_FORMAT_DOT));
  assert_false(cudaload_format_supported(-1));
  assert_false(cudaload_format_supported(4));
}

/* A value from outside as every report shows it (cudaload_escape_text):
 * controls, DEL, C1 controls and bytes that are not UTF-8 escaped, NUL
 * bytes inside the length included, valid UTF-8 kept; bad arguments named.
 * The fix actions are named by the library too. */
static void text_is_escaped_by_the_library(void **state) {
  (void)state;
  static const char raw[] = "a\x1b[31m\0b\xff\xc2\x9b\n\xc3\xa9\x7f";
  char *out = NULL;
  assert_int_equal(cudaload_escape_text(raw, sizeof raw - 1, 0, &out),
                   CUDALOAD_OK);
  assert_string_equal(out, "a\\x1b[31m\\x00b\\xff\\u009b\\x0a\xc3\xa9\\x7f");
  cudaload_free(out);
  assert_int_equal(cudaload_escape_text("one\ntwo\r", 8,
                                        CUDALOAD_ESCAPE_KEEP_NEWLINES, &out),
                   CUDALOAD_OK);
  assert_string_equal(out, "one\ntwo\\x0d");
  cudaload_free(out);
  assert_int_equal(cudaload_escape_text("", 0, 0, &out), CUDALOAD_OK);
  assert_string_equal(out, "");
  cudaload_free(out);
  out = (char *)raw;
  assert_int_equal(cudaload_escape_text(NULL, 0, 0, &out),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(out);
  assert_int_equal(cudaload_escape_text("x", 1, 0, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_escape_text("x", 1, 0x6, &out),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(out);
  assert_contains(cudaload_last_error(), "unknown flags 0x6");
  static const char *const actions[] = {
      "note", "install", "set-variable", "run-program", "command", "choice"};
  for (int i = 0; i < 6; ++i)
    assert_string_equal(cudaload_fix_action_name(CUDALOAD_FIX_NOTE + i),
                        actions[i]);
  assert_null(cudaload_fix_action_name(CUDALOAD_FIX_CHOICE + 1));
  assert_null(cudaload_fix_action_name(-1));
}

/* The plan's text (cudaload_plan_report) is text only: the plan as data is
 * the doctor's JSON and YAML. An empty plan says what the scan found. */
static void plan_report_is_text(void **state) {
  (void)state;
#ifdef _WIN32
  static const char missing_root[] = "C:\\nonexistent\\cudaload-root";
#else
  static const char missing_root[] = "/nonexistent/cudaload-root";
#endif
  cudaload_ctx *ctx = ctx_with_root(missing_root);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  char *text = NULL;
  assert_int_equal(cudaload_plan_report(ctx, CUDALOAD_FORMAT_TEXT, &text),
                   CUDALOAD_OK);
  assert_string_equal(text, "0 libraries found in 1 root\n");
  cudaload_free(text);
  assert_int_equal(cudaload_plan_report(ctx, CUDALOAD_FORMAT_JSON, &text),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(text);
  assert_contains(cudaload_last_error(), "format 1 is not text");
  assert_int_equal(cudaload_plan_report(NULL, CUDALOAD_FORMAT_TEXT, &text),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_plan_report(ctx, CUDALOAD_FORMAT_TEXT, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  cudaload_destroy(ctx);
}

/* The scan's report (what `cudaload scan` prints) is the library's: the
 * table with its count and the roots that could not be searched, or the
 * JSON schema of docs/cli.md. */
static void scan_report_is_the_tools(void **state) {
  (void)state;
#ifdef _WIN32
  static const char missing_root[] = "C:\\nonexistent\\cudaload-root";
#else
  static const char missing_root[] = "/nonexistent/cudaload-root";
#endif
  char line[128];
  snprintf(line, sizeof line, "root not found: %s\n", missing_root);
  cudaload_ctx *ctx = ctx_with_root(missing_root);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  char *text = NULL;
  assert_int_equal(cudaload_scan_report(ctx, CUDALOAD_FORMAT_TEXT, &text),
                   CUDALOAD_OK);
  assert_contains(text, "NAME  ");
  assert_contains(text, "0 libraries in 1 root\n");
  assert_contains(text, line);
  cudaload_free(text);
  assert_int_equal(cudaload_scan_report(ctx, CUDALOAD_FORMAT_JSON, &text),
                   CUDALOAD_OK);
  assert_contains(text, "\"schema_version\": 1");
  assert_contains(text, "\"status\": \"not found\"");
  assert_contains(text, "\"libraries\": []");
  cudaload_free(text);
  assert_int_equal(cudaload_scan_report(ctx, CUDALOAD_FORMAT_DOT, &text),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(text);
  assert_int_equal(cudaload_scan_report(NULL, CUDALOAD_FORMAT_JSON, &text),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_scan_report(ctx, CUDALOAD_FORMAT_JSON, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  /* No plan yet: no library chosen for anything. */
  assert_int_equal(cudaload_requirement_library(ctx, 0), (size_t)-1);
  assert_int_equal(cudaload_doctor_problem_count(ctx), 0);
  cudaload_destroy(ctx);
}

static void set_env(const char *name, const char *value) {
#ifdef _WIN32
  _putenv_s(name, value ? value : "");
  SetEnvironmentVariableA(name, value);
#else
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
#endif
}

/* The CUDA variables set are listed with what each does, in text and
 * JSON; CUDA_LAUNCH_BLOCKING=1 is a problem with its fix, =0 is not. */
/* The step that unsets a variable, in the user's shell's spelling. */
#ifdef _WIN32
#define UNSET_LAUNCH_BLOCKING "fix: set \"CUDA_LAUNCH_BLOCKING=\""
#else
#define UNSET_LAUNCH_BLOCKING "fix: unset CUDA_LAUNCH_BLOCKING"
#endif

static void environment_lists_the_cuda_variables(void **state) {
  (void)state;
  set_env("CUDA_LAUNCH_BLOCKING", "1");
  set_env("CUBLAS_WORKSPACE_CONFIG", ":4096:8");
  cudaload_ctx *ctx = ctx_with_root(NULL);
  size_t problems = 0;
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, &problems);
  assert_contains(text, "\nEnvironment\n");
  assert_contains(text, "  CUBLAS_WORKSPACE_CONFIG=:4096:8\n");
  assert_contains(text, "makes results reproducible");
  assert_contains(text, "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits");
  assert_contains(text, UNSET_LAUNCH_BLOCKING);
  cudaload_free(text);
  char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  assert_contains(json, "\"environment\": [");
  assert_contains(json, "\"name\": \"CUBLAS_WORKSPACE_CONFIG\"");
  assert_contains(json, "\"value\": \":4096:8\"");
  cudaload_free(json);

  set_env("CUDA_LAUNCH_BLOCKING", "0");
  size_t without = 0;
  text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, &without);
  assert_contains(text, "  CUDA_LAUNCH_BLOCKING=0\n");
  assert_lacks(text, UNSET_LAUNCH_BLOCKING);
  assert_int_equal(without + 1, problems);
  cudaload_free(text);
  set_env("CUDA_LAUNCH_BLOCKING", NULL);
  set_env("CUBLAS_WORKSPACE_CONFIG", NULL);
  cudaload_destroy(ctx);
}

/* CUDA_VISIBLE_DEVICES that can list no device on any machine is a
 * problem even without the probe; one that names a device is not. */
static void visible_devices_that_hide_every_device(void **state) {
  (void)state;
  cudaload_ctx *ctx = ctx_with_root(NULL);
  static const char *const hiding[] = {"-1", "", "none", "NoDevFiles"};
  for (size_t i = 0; i < sizeof hiding / sizeof *hiding; ++i) {
    set_env("CUDA_VISIBLE_DEVICES", hiding[i]);
#ifdef _WIN32
    if (!hiding[i][0])
      continue; /* Windows has no variable set to "": setting it unsets it */
#endif
    char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
    char needle[96];
    snprintf(needle, sizeof needle,
             "CUDA_VISIBLE_DEVICES=\\\"%s\\\" hides every device", hiding[i]);
    assert_contains(json, needle);
    assert_contains(json, "nvidia-smi -L");
    cudaload_free(json);
  }
  static const char *const naming[] = {"0", "1,0", "GPU-0123abcd"};
  for (size_t i = 0; i < sizeof naming / sizeof *naming; ++i) {
    set_env("CUDA_VISIBLE_DEVICES", naming[i]);
    char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
    assert_lacks(json, "hides every device");
    cudaload_free(json);
  }
  set_env("CUDA_VISIBLE_DEVICES", NULL);
  cudaload_destroy(ctx);
}

#ifdef _WIN32
/* reg.exe (Wine's in the test prefix, or Windows') on the TDR key:
 * reg VERB KEY ARGUMENTS /f. */
static void reg(const char *verb, const char *arguments) {
  char command[512];
  snprintf(command, sizeof command,
           "reg %s \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\"
           "GraphicsDrivers\" %s /f >NUL 2>&1",
           verb, arguments);
  int status = system(command);
  print_message("%s: %d\n", command, status);
}
#endif

/* Windows' display watchdog settings: the defaults when absent, the
 * registry's values when set (and a value of the wrong type said so);
 * Linux has nothing to read, and says so. */
static void display_watchdog_settings(void **state) {
  (void)state;
  cudaload_ctx *ctx = ctx_with_root(NULL);
#ifdef _WIN32
  reg("delete", "/v TdrDelay");
  reg("delete", "/v TdrDdiDelay");
  reg("delete", "/v TdrLevel");
  char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  assert_contains(json, "\"applies\": true");
  assert_contains(json, "\"tdr_delay_s\": 2,\n    \"tdr_delay_source\": "
                        "\"default\"");
  assert_contains(json, "\"tdr_ddi_delay_s\": 5");
  assert_contains(json, "\"tdr_level\": \"recover\"");
  cudaload_free(json);
  reg("add", "/v TdrDelay /t REG_DWORD /d 8");
  reg("add", "/v TdrLevel /t REG_DWORD /d 0");
  reg("add", "/v TdrDdiDelay /t REG_SZ /d ten");
  json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  reg("delete", "/v TdrDelay");
  reg("delete", "/v TdrDdiDelay");
  reg("delete", "/v TdrLevel");
  assert_contains(json, "\"tdr_delay_s\": 8,\n    \"tdr_delay_source\": "
                        "\"registry\"");
  assert_contains(json, "\"tdr_level\": \"off\"");
  assert_contains(json, "TdrDdiDelay could not be read");
  assert_contains(text, "  TdrDelay      8 s (set in the registry)\n");
  assert_contains(text, "  TdrDdiDelay   5 s (Windows' default: not set)\n");
  assert_contains(text, "  TdrLevel      off (0; set in the registry)\n");
  cudaload_free(text);
#else
  char *json = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  assert_contains(json, "\"watchdog\": {\n    \"applies\": false");
  assert_contains(json, "\"tdr_delay_s\": null");
  assert_contains(json, "nothing to read: only Windows has TDR");
  /* The text leaves out a section that cannot apply here. */
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  assert_lacks(text, "Display watchdog");
  assert_lacks(text, "TDR");
  cudaload_free(text);
#endif
  cudaload_free(json);
  cudaload_destroy(ctx);
}

static void bad_arguments_are_refused(void **state) {
  (void)state;
  cudaload_ctx *ctx = ctx_with_root(NULL);
  char *out = (char *)"untouched";
  assert_int_equal(cudaload_doctor(NULL, CUDALOAD_FORMAT_TEXT, 0, &out),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(out);
  assert_int_equal(cudaload_doctor(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_doctor(ctx, 7, 0, &out),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_doctor(ctx, CUDALOAD_FORMAT_TEXT, 0x100u, &out),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_contains(cudaload_last_error(), "0x100");
  cudaload_free(NULL);
  cudaload_destroy(ctx);
}

/* The lazy opens explain finds in `folder`'s cuDNN engines library: how
 * many of its needs are opened by name, and of those how many name
 * cuBLASLt 13. */
static void engines_lazy_opens(const char *folder, int *lazy, int *cublaslt) {
#ifdef _WIN32
  static const char *const file = "cudnn_engines_precompiled64_9.dll";
  static const char *const opened = "cublasLt64_13.dll";
  char rel[256];
  snprintf(rel, sizeof rel, "opens_by_name/windows/%s/%s", folder, file);
#else
  static const char *const file = "libcudnn_engines_precompiled.so.9";
  static const char *const opened = "libcublasLt.so.13";
  char rel[256];
  snprintf(rel, sizeof rel, "opens_by_name/%s/%s", folder, file);
#endif
  const char *list[] = {test_fixture_path(rel)};
  cudaload_ctx *ctx = ctx_with_root(NULL);
  cudaload_explain *e = NULL;
  assert_int_equal(cudaload_explain_files(ctx, list, 1, 0, &e), CUDALOAD_OK);
  *lazy = *cublaslt = 0;
  for (size_t i = 0; i < cudaload_explain_object_count(e); ++i) {
    if (!strstr(cudaload_explain_object_path(e, i), file))
      continue;
    for (size_t j = 0; j < cudaload_explain_need_count(e, i); ++j) {
      if (cudaload_explain_need_lazy(e, i, j) != 1)
        continue;
      ++*lazy;
      *cublaslt += !strcmp(cudaload_explain_need_name(e, i, j), opened);
    }
  }
  cudaload_explain_free(e);
  cudaload_destroy(ctx);
}

/* A library opens by name what it holds as text only when it imports the
 * loader (dlopen, LoadLibrary) itself, as NVIDIA's do (issue 28): one that
 * holds the same name and imports no loader function (cuDNN 9's heuristic
 * library, 86 MB of text, opens nothing) has no lazy open, and its text is
 * not read for names. */
static void only_a_loader_import_opens_by_name(void **state) {
  (void)state;
#ifdef _WIN32
  SKIP_WITHOUT_FIXTURE("opens_by_name/windows");
#else
  SKIP_WITHOUT_FIXTURE("opens_by_name");
#endif
  int lazy, cublaslt;
  engines_lazy_opens("calls", &lazy, &cublaslt);
  assert_int_equal(lazy, 1);
  assert_int_equal(cublaslt, 1);
  engines_lazy_opens("text", &lazy, &cublaslt);
  assert_int_equal(lazy, 0);
  assert_int_equal(cublaslt, 0);
}

#ifndef _WIN32
/* How often explain resolved libcudnn_ops_infer.so.8 for these consumers
 * of the cuDNN 8 wheel. */
static int ops_infer_resolutions(const char *const *names, size_t count) {
  const char *lib = "wheels-cu12/site-packages/nvidia/cudnn/lib/";
  char paths[8][2048];
  const char *list[8];
  for (size_t i = 0; i < count && i < 8; ++i) {
    snprintf(paths[i], sizeof paths[i], "%s%s", test_fixture_path(lib),
             names[i]);
    list[i] = paths[i];
  }
  cudaload_ctx *ctx =
      ctx_with_root(test_fixture_path("wheels-cu12/site-packages"));
  real_path_watched = "/libcudnn_ops_infer.so.8";
  real_path_calls = 0;
  cudaload_explain *e = NULL;
  assert_int_equal(cudaload_explain_files(ctx, list, count, 0, &e),
                   CUDALOAD_OK);
  int calls = real_path_calls;
  real_path_watched = NULL;
  cudaload_explain_free(e);
  cudaload_destroy(ctx);
  return calls;
}
#endif

/* explain asks a file's real path once, however many edges reach it
 * (issue 28): cuDNN 8's shim opens ops_infer and its sub-libraries all need
 * it, and each edge resolved it again (an open, a readlink of
 * /proc/self/fd and a close each: 7 times for the shim alone). */
static void explain_resolves_each_file_once(void **state) {
  (void)state;
#ifdef _WIN32
  skip(); /* the wrapped function is the same; the fixture names differ */
#else
  if (!test_fixture_exists("wheels-cu12"))
    skip();
  static const char *const one[] = {"libcudnn.so.8"};
  static const char *const all[] = {
      "libcudnn.so.8", "libcudnn_adv_infer.so.8", "libcudnn_cnn_infer.so.8",
      "libcudnn_ops_train.so.8", "libcudnn_adv_train.so.8"};
  int once = ops_infer_resolutions(one, 1);
  int many = ops_infer_resolutions(all, 5);
  if (once != 1 || many != 1)
    fprintf(stderr, "ops_infer resolved %d times for 1 consumer, %d for 5\n",
            once, many);
  assert_int_equal(once, 1);
  assert_int_equal(many, 1);
#endif
}

/* The doctor and explain plan for themselves (issue 34): a plan the caller
 * made, and the strings it gave out, are as they were after either, and a
 * context that was not planned is still not planned. */
static void the_callers_plan_is_left_as_it_was(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  size_t planned = cudaload_plan_count(ctx);
  assert_true(planned > 0);
  const char *path = cudaload_plan_path(ctx, 0);
  char *text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  cudaload_free(text);
  assert_int_equal(cudaload_plan_count(ctx), planned);
  assert_ptr_equal(cudaload_plan_path(ctx, 0), path);
  cudaload_destroy(ctx);

  ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  assert_contains(text, "cudnn");
  cudaload_free(text);
  assert_int_equal(cudaload_plan_count(ctx), 0);
#ifndef _WIN32
  char file[4096];
  snprintf(file, sizeof file, "%s/libcudnn.so.8", cudnn8_tree());
  const char *const files[] = {file};
  cudaload_explain *e = NULL;
  assert_int_equal(cudaload_explain_files(ctx, files, 1, 0, &e), CUDALOAD_OK);
  cudaload_explain_free(e);
  assert_int_equal(cudaload_plan_count(ctx), 0);
#endif
  cudaload_destroy(ctx);
}

/* The doctor and explain plan in a handle of their own, lent the caller's
 * roots and inventory (issue 42, item 6): the caller's handle is read, and
 * its plan state is never written, not even swapped out and put back. A
 * handle with no plan state has none after a report (a swap left the load
 * stage's functions in its place), and a planned one holds the same state,
 * at the same address, with the same functions. */
static void a_report_writes_no_plan_state_of_the_callers(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  cudaload_ctx *ctx = ctx_with_root(cudnn8_tree());
  assert_null(ctx->plan_state);
  char *text = report(ctx, CUDALOAD_FORMAT_JSON, 0, NULL);
  cudaload_free(text);
  assert_null(ctx->plan_state);
  assert_null(ctx->plan_state_clear);
  assert_null(ctx->plan_state_free);
  cudaload_destroy(ctx);

  ctx = ctx_with_root(cudnn8_tree());
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  const void *held = ctx->plan_state;
  void (*clear)(cl_plan_state *) = ctx->plan_state_clear;
  void (*release)(cl_plan_state *) = ctx->plan_state_free;
  assert_non_null(held);
  text = report(ctx, CUDALOAD_FORMAT_TEXT, 0, NULL);
  cudaload_free(text);
#ifndef _WIN32
  char file[4096];
  snprintf(file, sizeof file, "%s/libcudnn.so.8", cudnn8_tree());
  const char *const files[] = {file};
  cudaload_explain *e = NULL;
  assert_int_equal(cudaload_explain_files(ctx, files, 1, 0, &e), CUDALOAD_OK);
  /* What the object asks later is the caller's handle's, not the one
   * explain was lent for the call. */
  assert_true(cudaload_explain_object_count(e) > 0);
  char *explained = NULL;
  assert_int_equal(cudaload_explain_report(e, CUDALOAD_FORMAT_JSON, &explained),
                   CUDALOAD_OK);
  assert_contains(explained, "libcudnn.so.8");
  cudaload_free(explained);
  cudaload_explain_free(e);
#endif
  assert_ptr_equal(ctx->plan_state, held);
  assert_true(ctx->plan_state_clear == clear);
  assert_true(ctx->plan_state_free == release);
  assert_int_equal(cudaload_plan_count(ctx), 0);
  cudaload_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(text_has_every_section_in_order),
      cmocka_unit_test(text_lists_the_roots_searched),
      cmocka_unit_test(missing_requirement_is_a_problem_with_its_fix),
      cmocka_unit_test(a_healthy_setup_has_no_problems),
      cmocka_unit_test(what_fails_without_cudaload_is_a_problem),
      cmocka_unit_test(cudnn_without_cublas_is_a_problem),
      cmocka_unit_test(no_driver_is_a_problem),
      cmocka_unit_test(an_old_driver_for_the_planned_cuda_is_a_problem),
      cmocka_unit_test(a_sub_library_without_its_main_is_a_problem),
      cmocka_unit_test(json_has_the_documented_keys),
      cmocka_unit_test(yaml_follows_the_same_schema),
      cmocka_unit_test(manifest_policy_is_reported),
      cmocka_unit_test(probe_section_when_asked),
      cmocka_unit_test(bad_arguments_are_refused),
      cmocka_unit_test(names_come_from_one_table),
      cmocka_unit_test(scan_report_is_the_tools),
      cmocka_unit_test(environment_lists_the_cuda_variables),
      cmocka_unit_test(visible_devices_that_hide_every_device),
      cmocka_unit_test(display_watchdog_settings),
      cmocka_unit_test(explain_resolves_each_file_once),
      cmocka_unit_test(only_a_loader_import_opens_by_name),
      cmocka_unit_test(the_callers_plan_is_left_as_it_was),
      cmocka_unit_test(a_report_writes_no_plan_state_of_the_callers),
      cmocka_unit_test(text_is_escaped_by_the_library),
      cmocka_unit_test(plan_report_is_text),
  };
  return cmocka_run_group_tests(tests, make_test_dir, remove_test_dir);
}
