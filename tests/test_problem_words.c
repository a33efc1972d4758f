/* SPDX-License-Identifier: MIT */
/*
 * test_problem_words.c - the words users read, held against a golden file
 * (tests/golden/problem_words.txt): every problem kind, made from the same
 * facts each time, and each shape of fix in both shells' forms. A change of
 * words is a change of that file, reviewed as text; a new kind without words in
 * it fails here. Run with CUDALOAD_UPDATE_GOLDEN=1 to rewrite the file
 * after a deliberate change (then read the diff).
 *
 * The structure of each report (first line, one line per requirement,
 * problems last) is asserted where the reports are made (test_doctor.c,
 * tests/cli); this file holds only the words (issue 46, item 4).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/fix_steps.h"
#include "cudaload.h"
#include "problem/problem.h"
#include "problem/problem_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUDALOAD_GOLDEN_DIR
#error "CUDALOAD_GOLDEN_DIR must name tests/golden"
#endif

#define GOLDEN_FILE CUDALOAD_GOLDEN_DIR "/problem_words.txt"
#define LAST_KIND CUDALOAD_PROBLEM_PIN_UNREAD

/* One fact of a case: which, from where, its value. */
typedef struct case_fact {
  int fact;
  int source;
  const char *value;
} case_fact;

/* A case: a kind, a label for its variant, its facts (ended by fact 0),
 * and the sentence a stage wrote itself (kinds whose words are still the
 * stage's: the table frames them). */
typedef struct words_case {
  int kind;
  const char *variant;
  case_fact facts[8];
  const char *said;
} words_case;

/* The shapes a fix takes, each printed in both shells' forms. */
enum {
  FIX_PIP,
  FIX_EXEC,
  FIX_CHOICE,
  FIX_CHMOD,
  FIX_ENV,
  FIX_NOTE,
  FIX_SHAPES
};
static const char *const fix_shape_names[FIX_SHAPES] = {
    "install", "run-program", "choice", "command", "set-variable", "note"};

#define M CUDALOAD_FROM_MACHINE
#define P CUDALOAD_FROM_PROGRAM
#define E CUDALOAD_FROM_MESSAGE
#define R CUDALOAD_FROM_REQUEST
#define F(name) CUDALOAD_FACT_##name
#define K(name) CUDALOAD_PROBLEM_##name

static const words_case cases[] = {
    {K(UNSATISFIED),
     "a file of another major",
     {{F(REQUIREMENT), R, "cudnn=9"},
      {F(FAMILY), M, "cudnn"},
      {F(PATH), M, "/opt/app/lib/libcudnn.so.8"},
      {F(REASON), M, "major 8, not 9"}},
     NULL},
    {K(UNSATISFIED),
     "nothing named like it",
     {{F(REQUIREMENT), R, "cufft=11"},
      {F(FAMILY), M, "cufft"},
      {F(LIBRARY), M, "cufft"},
      {F(CUDA_MAJOR), R, "12"}},
     NULL},
    {K(NOT_FOUND),
     "a needed name",
     {{F(CONSUMER), P,
       "/venv/lib/python3.11/site-packages/torch/lib/"
       "libtorch_cuda.so"},
      {F(NAME), P, "libcudnn.so.9"},
      {F(REASON), M, "rule: not-found; looked at: ld-so-cache, default-dirs"}},
     NULL},
    {K(NOT_FOUND),
     "the message's name, which is here",
     {{F(NAME), E, "libcudnn_ops_infer.so.8"},
      {F(BETTER), M, "/opt/cudnn8/lib/libcudnn_ops_infer.so.8"}},
     NULL},
    {K(LAZY_NOT_FOUND),
     "two names opened later",
     {{F(CONSUMER), M, "/opt/cudnn8/lib/libcudnn_ops_infer.so.8"},
      {F(NAME), M, "libcublas.so.12, libcublasLt.so.12"}},
     NULL},
    {K(LAZY_NOT_FOUND),
     "as it is, without cudaload",
     {{F(CONSUMER), M, "/opt/cudnn8/lib/libcudnn.so.8"},
      {F(NAME), M, "libcudnn_ops_infer.so.8"},
      {F(CONDITION), M, "as-it-is"}},
     NULL},
    {K(SYMBOLS_MISSING),
     "the file taken, its version and rule",
     {{F(CONSUMER), P,
       "/venv/lib/python3.11/site-packages/torch/lib/"
       "libtorch_cuda.so"},
      {F(SYMBOL), P, "cublasLtGetVersion"},
      {F(VERSION_NODE), P, "libcublasLt.so.12"},
      {F(TAKEN), M, "/usr/local/cuda-12.1/lib64/libcublasLt.so.12"},
      {F(VERSION), M, "12.1.3.1"},
      {F(RULE), M, "ld-library-path"},
      {F(FAMILY), M, "cublas"},
      {F(WANTED), M, "12.4.5.8"}},
     NULL},
    {K(SYMBOLS_MISSING),
     "from the message alone",
     {{F(SYMBOL), E, "cudnnGetLibConfig"}, {F(NAME), E, "libcudnn.so.9"}},
     NULL},
    {K(WRONG_LIBRARY),
     "said by the loader model",
     {{F(NAME), M, "libcublas.so.12"}},
     "libcublas.so.12 is taken from /usr/lib/x86_64-linux-gnu/libcublas.so.12 "
     "(12.0.1), not the wheel's"},
    {K(SHADOWED),
     "said by the loader model",
     {{F(NAME), M, "libcudnn.so.9"}},
     "/opt/old/libcudnn.so.9 (LD_LIBRARY_PATH) is taken before the wheel's"},
    {K(BINDS_ELSEWHERE),
     "said by the loader model",
     {{F(SYMBOL), M, "cublasLtMatmul"}},
     "cublasLtMatmul binds to /opt/a/libcublasLt.so.12, not the file linked "
     "against"},
    {K(TWO_VERSIONS),
     "said by the loader model",
     {{F(FAMILY), M, "cudnn"}},
     "cudnn is loaded in two versions: 9.1.0 and 9.19.0"},
    {K(CUDA_MAJORS),
     "said by the loader model",
     {{F(CUDA_MAJOR), M, "12"}},
     "CUDA 12 and CUDA 13 libraries in one process"},
    {K(PRELOADED_COPY),
     "said by the loader model",
     {{F(VARIABLE), M, "LD_PRELOAD"}},
     "LD_PRELOAD puts /opt/nccl/libnccl.so.2 (2.18.1) before the program's "
     "own"},
    {K(LOADED_COPY),
     "said by the loader model",
     {{F(NAME), M, "libcudnn.so.9"}},
     "this process has /opt/other/libcudnn.so.9 loaded"},
    {K(CONFLICT),
     "said by the plan",
     {{F(NAME), M, "libcudnn.so.8"}},
     "libcudnn.so.8 of the plan collides with a copy in the global scope"},
    {K(LOAD_FAILED),
     "a planned file",
     {{F(PATH), M, "/opt/app/lib/libcudnn.so.9"}},
     NULL},
    {K(ROOT_REFUSED),
     "writable by others",
     {{F(PATH), R, "/srv/open"},
      {F(REASON), M, "writable by every user (mode 0777)"}},
     NULL},
    {K(ROOT_UNUSABLE),
     "not a folder",
     {{F(PATH), R, "/opt/missing"}, {F(REASON), M, "not found"}},
     NULL},
    {K(ORPHAN),
     "a sub-library alone",
     {{F(FAMILY), M, "cudnn"},
      {F(MAJOR), M, "8"},
      {F(PATH), M, "/opt/app/lib/libcudnn_ops_infer.so.8"}},
     NULL},
    {K(LAZY_UNPROVIDED),
     "said by the plan",
     {{F(NAME), M, "libcublasLt.so.12"}},
     "cudnn=8 opens libcublasLt.so.12 later, and the plan provides none"},
    {K(DRIVER_ABSENT), "no driver", {{F(NAME), M, "libcuda.so.1"}}, NULL},
    {K(DRIVER_TOO_OLD),
     "the machine's driver",
     {{F(DRIVER), M, "525.60.13"},
      {F(CUDA_MAJOR), P, "12"},
      {F(CONSUMER), M, "/venv/nvidia/cuda_runtime/lib/libcudart.so.12"},
      {F(WANTED), M, "527.41"}},
     NULL},
    {K(DRIVER_TOO_OLD),
     "the message's driver",
     {{F(DRIVER), E, "11.4"}, {F(CUDA_MAJOR), E, "12"}},
     NULL},
    {K(DRIVER_TOO_OLD), "the message, no version", {{0, 0, NULL}}, NULL},
    {K(PROBE_FAILED),
     "a stage failed",
     {{F(REASON), M, "no-device"},
      {F(STAGE), M, "cuInit"},
      {F(QUOTE), M, "CUDA_ERROR_NO_DEVICE"}},
     NULL},
    {K(PROBE_FAILED),
     "could not run",
     {{F(REASON), M, "the driver could not be loaded"}},
     NULL},
    {K(ZLIB_MISSING),
     "cuDNN 9",
     {{F(MAJOR), M, "9"}, {F(PATH), M, "/opt/cudnn/lib/libcudnn.so.9"}},
     NULL},
    {K(DEVICE),
     "said by the probe",
     {{F(DEVICE), M, "0"}},
     "device 0 is in exclusive-process mode and busy"},
    {K(VARIABLE),
     "said by the environment check",
     {{F(VARIABLE), M, "CUDA_VISIBLE_DEVICES"}},
     "CUDA_VISIBLE_DEVICES=-1 hides every device"},
    {K(MESSAGE),
     "said by the message reader",
     {{F(QUOTE), E, "CUDA driver version is insufficient"}},
     "the error message says the driver is too old"},
    {K(UNREADABLE),
     "said by the loader model",
     {{F(PATH), M, "/opt/app/lib/libcudnn.so.9"}},
     "/opt/app/lib/libcudnn.so.9 is not an ELF library (truncated header)"},
    {K(STOPPED),
     "said by the loader model",
     {{F(PATH), M, "/opt/app/lib/libcudnn.so.9"}},
     "the loader model stopped at /opt/app/lib/libcudnn.so.9: 100000 needed "
     "names"},
    {K(IN_PROCESS),
     "said by the process reader",
     {{F(PATH), M, "/opt/app/lib/libcublas.so.12"}},
     "/opt/app/lib/libcublas.so.12 is mapped in process 4242 only"},
    {K(EMPTY_ENTRY),
     "a note",
     {{F(VARIABLE), M, "LD_LIBRARY_PATH"}},
     "LD_LIBRARY_PATH holds an empty entry: the current folder is searched"},
    {K(PLUGIN_UNUSABLE),
     "a note",
     {{F(PATH), M, "/opt/app/lib/libcudnn_engines_precompiled.so.9"}},
     "a cuDNN engine plugin cannot load: the engines it holds are skipped"},
    {K(PATH_MISSING),
     "absolute, another would do",
     {{F(PATH), E, "/opt/app/lib/libcudnn.so.8"},
      {F(REASON), M, "missing"},
      {F(BETTER), M, "/opt/cudnn8/lib/libcudnn.so.8"}},
     NULL},
    {K(PATH_MISSING),
     "relative, unreadable",
     {{F(PATH), E, "lib/libcudnn.so.8"}, {F(REASON), M, "relative"}},
     NULL},
    {K(OLDER_RELEASE),
     "JAX's words",
     {{F(FAMILY), E, "cudnn"},
      {F(WANTED), E, "8.6.0"},
      {F(VERSION), E, "8.5.0"},
      {F(TAKEN), M, "/opt/cudnn/lib/libcudnn.so.8"}},
     NULL},
    {K(NEWER_RELEASE),
     "the program's consumer",
     {{F(CONSUMER), P, "tensorflow"},
      {F(FAMILY), E, "cudnn"},
      {F(WANTED), E, "8.6.0"},
      {F(VERSION), E, "9.1.0"}},
     NULL},
    {K(CPU_BUILD),
     "a package's CPU build",
     {{F(CONSUMER), P, "torch 2.5.1+cpu"}, {F(PACKAGE), P, "torch"}},
     NULL},
    {K(PIN),
     "another version installed",
     {{F(CONSUMER), P, "torch 2.5.1"},
      {F(PACKAGE), P, "nvidia-cudnn-cu12"},
      {F(WANTED), P, "==9.1.0.70"},
      {F(VERSION), M, "9.19.0.56"}},
     NULL},
    {K(PIN),
     "not installed",
     {{F(PACKAGE), P, "nvidia-cublas-cu12"}, {F(WANTED), P, "==12.4.5.8"}},
     NULL},
    {K(DRIVER_HIDDEN),
     "the driver is here",
     {{F(NAME), E, "libcuda.so.1"},
      {F(PATH), M, "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}},
     NULL},
    {K(UNKNOWN_LIBRARY),
     "not a CUDA library",
     {{F(NAME), E, "libonnxruntime_providers_cuda.so"}},
     NULL},
    {K(NO_GPU_CODE), "the message", {{F(QUOTE), E, "no kernel image"}}, NULL},
    {K(CUBLAS_INIT),
     "the message",
     {{F(QUOTE), E, "CUBLAS_STATUS_NOT_INITIALIZED"}},
     NULL},
    {K(SAME_FILES),
     "said by the program reader",
     {{F(PACKAGE), P, "nvidia-cudnn-cu12"}},
     "nvidia-cudnn-cu12 and nvidia-cudnn-cu11 install the same files: the "
     "one installed last won"},
    {K(IF_USED),
     "a note",
     {{F(PACKAGE), P, "nvidia-cufft-cu12"}},
     "torch needs cufft only when it computes FFTs"},
    {K(PIN_UNREAD),
     "said by the program reader",
     {{F(PACKAGE), P, "nvidia-cudnn-cu12"}},
     "nvidia-cudnn-cu12 (>=9,<<10) is no PEP 440 pin: it is not read"},
};

/* A fix of each shape, built by the same steps the stages use. */
static void build_fix(cl_fix *fix, int which) {
  cl_fix_step *s;
  switch (which) {
  case FIX_PIP:
    s = cl_fix_add(fix, CUDALOAD_FIX_INSTALL);
    cl_fix_arg(fix, s, "pip");
    cl_fix_arg(fix, s, "install");
    cl_fix_arg(fix, s, "nvidia-cublas-cu12==12.4.*");
    cl_fix_note(fix, s, "then pass its site-packages folder as a root");
    break;
  case FIX_EXEC:
    s = cl_fix_add(fix, CUDALOAD_FIX_RUN_PROGRAM);
    cl_fix_arg(fix, s, "cudaload");
    cl_fix_arg(fix, s, "exec");
    cl_fix_arg(fix, s, "--root");
    cl_fix_arg(fix, s, "/opt/app dir/lib");
    cl_fix_arg(fix, s, "--require");
    cl_fix_arg(fix, s, "cudnn=8");
    cl_fix_arg(fix, s, "--");
    cl_fix_arg(fix, s, "PROGRAM");
    cl_fix_note(fix, s, "PROGRAM: the program's command");
    break;
  case FIX_CHOICE:
    cl_fix_add_note(fix, "nothing says which CUDA major the program is built "
                         "for: install the build for it, one of:");
    for (int major = 13; major >= 12; --major) {
      char spec[64];
      snprintf(spec, sizeof spec, "nvidia-cudnn-cu%d==9.*", major);
      cl_fix_add_note(fix, "for a program built for CUDA %d:", major);
      s = cl_fix_add(fix, CUDALOAD_FIX_CHOICE);
      cl_fix_arg(fix, s, "pip");
      cl_fix_arg(fix, s, "install");
      cl_fix_arg(fix, s, spec);
    }
    break;
  case FIX_CHMOD:
    s = cl_fix_add(fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(fix, s, "chmod");
    cl_fix_arg(fix, s, "go-w");
    cl_fix_arg(fix, s, "/srv/open dir");
    cl_fix_note(fix, s, "or, accepting the risk, --allow-writable-roots");
    break;
  case FIX_ENV:
    s = cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE);
    cl_fix_env(fix, s, "LD_LIBRARY_PATH", "/opt/R&D dir/it's/lib");
    cl_fix_note(fix, s, "before the program starts");
    break;
  default:
    cl_fix_add_note(fix, "install the NVIDIA driver, then check with "
                         "nvidia-smi");
    break;
  }
}

/* Every case's words, as the golden file holds them. */
static char *render_all(void) {
  cl_buf out = CL_BUF_INIT;
  cl_buf_printf(&out,
                "# The words of every problem kind (tests/test_problem_words.c"
                " makes\n# them from fixed facts). Rewrite with "
                "CUDALOAD_UPDATE_GOLDEN=1 and read the diff.\n");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const words_case *c = &cases[i];
    cl_problem_list list = CL_PROBLEM_LIST_INIT;
    cl_problem *p = cl_problem_add(&list, c->kind);
    assert_non_null(p);
    for (size_t f = 0; f < 8 && c->facts[f].fact; ++f)
      cl_problem_fact(&list, p, c->facts[f].fact, c->facts[f].source,
                      c->facts[f].value);
    if (c->said)
      cl_problem_say(&list, p, c->said);
    assert_int_equal(cl_problem_words(p, CL_SHELL_POSIX), CUDALOAD_OK);
    cl_buf_printf(&out, "\n[%s: %s]%s\n%s\n",
                  cudaload_problem_kind_name(c->kind), c->variant,
                  p->note ? " (a note)" : "", p->text);
    cl_problem_list_free(&list);
  }
  /* A fix on one line, as the plan's error and env's warnings print it. */
  for (int shape = 0; shape < FIX_SHAPES; ++shape) {
    cl_fix fix = {0};
    build_fix(&fix, shape);
    char *posix = cl_fix_line_text(&fix, CL_SHELL_POSIX);
    char *windows = cl_fix_line_text(&fix, CL_SHELL_CMD_AND_POWERSHELL);
    assert_non_null(posix);
    assert_non_null(windows);
    cl_buf_printf(&out, "\n[fix: %s]\n%s\nWindows: %s\n",
                  fix_shape_names[shape], posix, windows);
    free(posix);
    free(windows);
    cl_fix_free(&fix);
  }
  char *text = cl_buf_take(&out);
  assert_non_null(text);
  return text;
}

static char *read_golden(void) {
  FILE *f = fopen(GOLDEN_FILE, "rb");
  if (!f)
    return NULL;
  cl_buf b = CL_BUF_INIT;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    cl_buf_append(&b, chunk, n);
  fclose(f);
  /* A checkout with CRLF line ends holds the same words. */
  char *text = cl_buf_take(&b);
  char *to = text;
  for (const char *from = text; text && *from; ++from)
    if (!(from[0] == '\r' && from[1] == '\n'))
      *to++ = *from;
  if (text)
    *to = '\0';
  return text;
}

/* The line (1-based) where a and b first differ, and that line of each. */
static void first_difference(const char *a, const char *b) {
  size_t line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') {
      ++line;
      la = a + 1;
      lb = b + 1;
    }
    ++a, ++b;
  }
  print_message("first difference at line %lu:\n  golden: %.*s\n  now:    "
                "%.*s\n",
                (unsigned long)line, (int)strcspn(lb, "\n"), lb,
                (int)strcspn(la, "\n"), la);
}

static void every_kind_has_its_words_in_the_golden_file(void **state) {
  (void)state;
  /* Every kind has a case: a new kind gets words here before it ships. */
  for (int kind = 1; kind <= LAST_KIND; ++kind) {
    int covered = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
      covered |= cases[i].kind == kind;
    if (!covered)
      fail_msg("problem kind %d (%s) has no case in tests/test_problem_words.c",
               kind, cudaload_problem_kind_name(kind));
  }
  assert_null(cudaload_problem_kind_name(LAST_KIND + 1));

  char *now = render_all();
  const char *update = getenv("CUDALOAD_UPDATE_GOLDEN");
  if (update && !strcmp(update, "1")) {
    FILE *f = fopen(GOLDEN_FILE, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(now, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    print_message("wrote %s\n", GOLDEN_FILE);
  }
  char *golden = read_golden();
  if (!golden)
    fail_msg("cannot read %s: make it with CUDALOAD_UPDATE_GOLDEN=1",
             GOLDEN_FILE);
  if (strcmp(golden, now) != 0) {
    first_difference(golden, now);
    fail_msg("the words differ from %s: if the change is meant, rerun with "
             "CUDALOAD_UPDATE_GOLDEN=1 and commit the file",
             GOLDEN_FILE);
  }
  free(golden);
  free(now);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_kind_has_its_words_in_the_golden_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
