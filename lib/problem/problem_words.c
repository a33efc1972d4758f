/* SPDX-License-Identifier: MIT */
/*
 * problem_words.c - the words of every problem: its kind's name in reports,
 * each fact's name, and the sentence made from the kind and the facts.
 * Every output (the doctor's text, JSON and YAML, the C accessors, Python's
 * objects) shows the sentence made here; the stages record kinds and facts
 * (problem.h). A stage that still writes its own sentence (the loader
 * model's findings, the plan's warnings) hands it over as `said`, and the
 * table adds what the kind says around it.
 */
#include "problem/problem_words.h"
#include "common/buf.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct kind_row {
  int kind;
  const char *name; /* in reports: "unsatisfied" */
  int note;         /* stops nothing loading */
} kind_row;

static const kind_row kinds[] = {
    {CUDALOAD_PROBLEM_UNSATISFIED, "unsatisfied", 0},
    {CUDALOAD_PROBLEM_NOT_FOUND, "not-found", 0},
    {CUDALOAD_PROBLEM_LAZY_NOT_FOUND, "lazy-not-found", 0},
    {CUDALOAD_PROBLEM_SYMBOLS_MISSING, "symbols-missing", 0},
    {CUDALOAD_PROBLEM_WRONG_LIBRARY, "wrong-library", 0},
    {CUDALOAD_PROBLEM_SHADOWED, "shadowed", 0},
    {CUDALOAD_PROBLEM_BINDS_ELSEWHERE, "binds-elsewhere", 0},
    {CUDALOAD_PROBLEM_TWO_VERSIONS, "two-versions", 0},
    {CUDALOAD_PROBLEM_CUDA_MAJORS, "cuda-majors", 0},
    {CUDALOAD_PROBLEM_PRELOADED_COPY, "preloaded-copy", 0},
    {CUDALOAD_PROBLEM_LOADED_COPY, "loaded-copy", 0},
    {CUDALOAD_PROBLEM_CONFLICT, "conflict", 0},
    {CUDALOAD_PROBLEM_LOAD_FAILED, "load-failed", 0},
    {CUDALOAD_PROBLEM_ROOT_REFUSED, "root-refused", 0},
    {CUDALOAD_PROBLEM_ROOT_UNUSABLE, "root-unusable", 0},
    {CUDALOAD_PROBLEM_ORPHAN, "orphan", 0},
    {CUDALOAD_PROBLEM_LAZY_UNPROVIDED, "lazy-unprovided", 0},
    {CUDALOAD_PROBLEM_DRIVER_ABSENT, "driver-absent", 0},
    {CUDALOAD_PROBLEM_DRIVER_TOO_OLD, "driver-too-old", 0},
    {CUDALOAD_PROBLEM_PROBE_FAILED, "probe-failed", 0},
    {CUDALOAD_PROBLEM_ZLIB_MISSING, "zlib-missing", 0},
    {CUDALOAD_PROBLEM_DEVICE, "device", 0},
    {CUDALOAD_PROBLEM_VARIABLE, "variable", 0},
    {CUDALOAD_PROBLEM_MESSAGE, "message", 0},
    {CUDALOAD_PROBLEM_UNREADABLE, "unreadable", 0},
    {CUDALOAD_PROBLEM_STOPPED, "stopped", 0},
    {CUDALOAD_PROBLEM_IN_PROCESS, "in-process", 0},
    {CUDALOAD_PROBLEM_EMPTY_ENTRY, "empty-entry", 1},
    {CUDALOAD_PROBLEM_PLUGIN_UNUSABLE, "plugin-unusable", 1},
    {CUDALOAD_PROBLEM_PATH_MISSING, "path-missing", 0},
    {CUDALOAD_PROBLEM_OLDER_RELEASE, "older-release", 0},
    {CUDALOAD_PROBLEM_NEWER_RELEASE, "newer-release", 0},
    {CUDALOAD_PROBLEM_CPU_BUILD, "cpu-build", 0},
    {CUDALOAD_PROBLEM_PIN, "pin", 0},
    {CUDALOAD_PROBLEM_DRIVER_HIDDEN, "driver-hidden", 0},
    {CUDALOAD_PROBLEM_UNKNOWN_LIBRARY, "unknown-library", 0},
    {CUDALOAD_PROBLEM_NO_GPU_CODE, "no-gpu-code", 0},
    {CUDALOAD_PROBLEM_CUBLAS_INIT, "cublas-init", 0},
    {CUDALOAD_PROBLEM_SAME_FILES, "same-files", 0},
    {CUDALOAD_PROBLEM_IF_USED, "if-used", 1},
    {CUDALOAD_PROBLEM_PIN_UNREAD, "pin-unread", 0},
};

static const kind_row *row_of(int kind) {
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i)
    if (kinds[i].kind == kind)
      return &kinds[i];
  return NULL;
}

const char *cudaload_problem_kind_name(int kind) {
  const kind_row *r = row_of(kind);
  return r ? r->name : NULL;
}

int cl_problem_kind_is_note(int kind) {
  const kind_row *r = row_of(kind);
  return r && r->note;
}

static const char *const fact_names[] = {
    NULL,         "requirement", "family",    "library", "major",
    "cuda_major", "consumer",    "name",      "taken",   "better",
    "path",       "version",     "wanted",    "symbol",  "version_node",
    "rule",       "reason",      "driver",    "quote",   "package",
    "variable",   "stage",       "condition", "device",
};

const char *cudaload_fact_name(int fact) {
  return fact > 0 && (size_t)fact < sizeof fact_names / sizeof *fact_names
             ? fact_names[fact]
             : NULL;
}

const char *cudaload_fact_source_name(int source) {
  switch (source) {
  case CUDALOAD_FROM_MACHINE:
    return "machine";
  case CUDALOAD_FROM_PROGRAM:
    return "program";
  case CUDALOAD_FROM_MESSAGE:
    return "message";
  case CUDALOAD_FROM_REQUEST:
    return "request";
  default:
    return NULL;
  }
}

/* --- sentences ---------------------------------------------------------- */

static const char *fact(const cl_problem *p, int f) {
  return p->facts[f] ? p->facts[f] : "";
}

static int has(const cl_problem *p, int f) {
  return p->facts[f] != NULL;
}

static int as_it_is(const cl_problem *p) {
  return has(p, CUDALOAD_FACT_CONDITION) &&
         !strcmp(fact(p, CUDALOAD_FACT_CONDITION), "as-it-is");
}

/* How many names a list of them joined by ", " holds. */
static size_t name_count(const char *names) {
  size_t n = *names ? 1 : 0;
  for (const char *c = strstr(names, ", "); c; c = strstr(c + 2, ", "))
    ++n;
  return n;
}

static void not_found_words(cl_buf *b, const cl_problem *p) {
  const char *names = fact(p, CUDALOAD_FACT_NAME);
  size_t n = name_count(names);
  if (p->kind == CUDALOAD_PROBLEM_LAZY_NOT_FOUND) {
    cl_buf_printf(b,
                  "%s opens %s by name when it first needs %s, and the "
                  "loader would not find %s (%s)",
                  fact(p, CUDALOAD_FACT_CONSUMER), names,
                  n == 1 ? "it" : "them", n == 1 ? "it" : "them",
                  has(p, CUDALOAD_FACT_REASON) ? fact(p, CUDALOAD_FACT_REASON)
                                               : "rule: not-found");
    return;
  }
  cl_buf_printf(b,
                "%s needs %s, which the loader does not find, so loading it "
                "fails%s%s%s",
                fact(p, CUDALOAD_FACT_CONSUMER), names,
                has(p, CUDALOAD_FACT_REASON) ? " (" : "",
                fact(p, CUDALOAD_FACT_REASON),
                has(p, CUDALOAD_FACT_REASON) ? ")" : "");
}

/* A symbol the file the loader takes lacks: who needs it, which file is
 * taken and how, and the release that defines it. */
static void symbols_words(cl_buf *b, const cl_problem *p) {
  const char *consumer = has(p, CUDALOAD_FACT_CONSUMER)
                             ? fact(p, CUDALOAD_FACT_CONSUMER)
                             : "the program";
  cl_buf_printf(b, "%s needs %s", consumer, fact(p, CUDALOAD_FACT_SYMBOL));
  if (has(p, CUDALOAD_FACT_VERSION_NODE))
    cl_buf_printf(b, " (version %s)", fact(p, CUDALOAD_FACT_VERSION_NODE));
  if (has(p, CUDALOAD_FACT_TAKEN)) {
    cl_buf_printf(b, ", which %s lacks", fact(p, CUDALOAD_FACT_TAKEN));
    if (has(p, CUDALOAD_FACT_VERSION) || has(p, CUDALOAD_FACT_RULE))
      cl_buf_printf(b, " (%s%s%s%s)", fact(p, CUDALOAD_FACT_VERSION),
                    has(p, CUDALOAD_FACT_VERSION) && has(p, CUDALOAD_FACT_RULE)
                        ? ", "
                        : "",
                    has(p, CUDALOAD_FACT_RULE) ? "found by rule " : "",
                    fact(p, CUDALOAD_FACT_RULE));
  } else {
    cl_buf_printf(b, ", which the copy of %s it loaded lacks",
                  has(p, CUDALOAD_FACT_NAME) ? fact(p, CUDALOAD_FACT_NAME)
                                             : "its library");
  }
  if (has(p, CUDALOAD_FACT_WANTED))
    cl_buf_printf(b, "; %s %s or newer defines it",
                  has(p, CUDALOAD_FACT_FAMILY) ? fact(p, CUDALOAD_FACT_FAMILY)
                                               : "a release",
                  fact(p, CUDALOAD_FACT_WANTED));
  else
    cl_buf_printf(b, "; a newer release defines it");
}

/* The sentence of kinds whose words are made here from facts alone. */
static void sentence(cl_buf *b, const cl_problem *p) {
  switch (p->kind) {
  case CUDALOAD_PROBLEM_UNSATISFIED:
    if (has(p, CUDALOAD_FACT_PATH))
      cl_buf_printf(b, "%s: no usable %s library (%s: %s)",
                    fact(p, CUDALOAD_FACT_REQUIREMENT),
                    fact(p, CUDALOAD_FACT_FAMILY), fact(p, CUDALOAD_FACT_PATH),
                    fact(p, CUDALOAD_FACT_REASON));
    else
      cl_buf_printf(b,
                    "%s: no usable %s library; no file named like %s in the "
                    "roots searched",
                    fact(p, CUDALOAD_FACT_REQUIREMENT),
                    fact(p, CUDALOAD_FACT_FAMILY),
                    fact(p, CUDALOAD_FACT_LIBRARY));
    return;
  case CUDALOAD_PROBLEM_ROOT_REFUSED:
    cl_buf_printf(b, "root %s refused: %s", fact(p, CUDALOAD_FACT_PATH),
                  has(p, CUDALOAD_FACT_REASON) ? fact(p, CUDALOAD_FACT_REASON)
                                               : "writable by other users");
    return;
  case CUDALOAD_PROBLEM_ROOT_UNUSABLE:
    cl_buf_printf(b, "root %s: %s", fact(p, CUDALOAD_FACT_PATH),
                  fact(p, CUDALOAD_FACT_REASON));
    return;
  case CUDALOAD_PROBLEM_LOAD_FAILED:
    cl_buf_printf(b, "%s could not be loaded by this process",
                  fact(p, CUDALOAD_FACT_PATH));
    return;
  case CUDALOAD_PROBLEM_DRIVER_ABSENT:
    cl_buf_printf(b,
                  "no NVIDIA driver (%s): not in the roots searched and not "
                  "loaded in this process",
                  fact(p, CUDALOAD_FACT_NAME));
    return;
  case CUDALOAD_PROBLEM_DRIVER_TOO_OLD:
    if (p->sources[CUDALOAD_FACT_DRIVER] == CUDALOAD_FROM_MESSAGE) {
      cl_buf_printf(b,
                    "the error message says the NVIDIA driver supports CUDA "
                    "up to %s%s%s",
                    fact(p, CUDALOAD_FACT_DRIVER),
                    has(p, CUDALOAD_FACT_CUDA_MAJOR)
                        ? ", and the program is built for CUDA "
                        : "",
                    fact(p, CUDALOAD_FACT_CUDA_MAJOR));
      return;
    }
    if (!has(p, CUDALOAD_FACT_DRIVER)) {
      cl_buf_printf(b, "the error message says the NVIDIA driver is older "
                       "than the program's CUDA runtime");
      return;
    }
    cl_buf_printf(b,
                  "the NVIDIA driver %s is too old for CUDA %s (%s needs "
                  "driver %s or newer)",
                  fact(p, CUDALOAD_FACT_DRIVER),
                  fact(p, CUDALOAD_FACT_CUDA_MAJOR),
                  cl_path_basename(fact(p, CUDALOAD_FACT_CONSUMER)),
                  fact(p, CUDALOAD_FACT_WANTED));
    return;
  case CUDALOAD_PROBLEM_ZLIB_MISSING:
    cl_buf_printf(b,
                  "libz.so.1 is missing: cuDNN %s's sub-libraries need it "
                  "(planned: %s)",
                  fact(p, CUDALOAD_FACT_MAJOR), fact(p, CUDALOAD_FACT_PATH));
    return;
  case CUDALOAD_PROBLEM_ORPHAN:
    cl_buf_printf(b,
                  "%s %s found only as sub-library (%s) without its main "
                  "library %s %s",
                  fact(p, CUDALOAD_FACT_FAMILY), fact(p, CUDALOAD_FACT_MAJOR),
                  fact(p, CUDALOAD_FACT_PATH), fact(p, CUDALOAD_FACT_FAMILY),
                  fact(p, CUDALOAD_FACT_MAJOR));
    return;
  case CUDALOAD_PROBLEM_PROBE_FAILED:
    if (has(p, CUDALOAD_FACT_STAGE))
      cl_buf_printf(b, "the GPU probe falls back to CPU (%s, stage %s): %s",
                    fact(p, CUDALOAD_FACT_REASON), fact(p, CUDALOAD_FACT_STAGE),
                    fact(p, CUDALOAD_FACT_QUOTE));
    else
      cl_buf_printf(b, "the GPU probe could not run: %s",
                    fact(p, CUDALOAD_FACT_REASON));
    return;
  case CUDALOAD_PROBLEM_NOT_FOUND:
  case CUDALOAD_PROBLEM_LAZY_NOT_FOUND:
    if (has(p, CUDALOAD_FACT_BETTER) && !has(p, CUDALOAD_FACT_CONSUMER))
      /* The message's name, which is here: where the loader looks. */
      cl_buf_printf(b,
                    "the error message names %s, which is here (%s): the "
                    "program's loader does not search its folder",
                    fact(p, CUDALOAD_FACT_NAME), fact(p, CUDALOAD_FACT_BETTER));
    else
      not_found_words(b, p);
    return;
  case CUDALOAD_PROBLEM_SYMBOLS_MISSING:
    symbols_words(b, p);
    return;
  case CUDALOAD_PROBLEM_PATH_MISSING:
    cl_buf_printf(b, "the program loads %s by its path%s, and ",
                  fact(p, CUDALOAD_FACT_PATH),
                  !strcmp(fact(p, CUDALOAD_FACT_REASON), "relative")
                      ? " (relative to its working folder)"
                      : "");
    if (!strcmp(fact(p, CUDALOAD_FACT_REASON), "unreadable"))
      cl_buf_printf(b, "the file is here but cannot be read");
    else
      cl_buf_printf(b, "there is no such file here");
    if (has(p, CUDALOAD_FACT_BETTER))
      cl_buf_printf(b, "; %s would do", fact(p, CUDALOAD_FACT_BETTER));
    return;
  case CUDALOAD_PROBLEM_OLDER_RELEASE:
  case CUDALOAD_PROBLEM_NEWER_RELEASE:
    cl_buf_printf(b, "%s was built with %s %s and loaded %s, %s",
                  has(p, CUDALOAD_FACT_CONSUMER)
                      ? fact(p, CUDALOAD_FACT_CONSUMER)
                      : "the program",
                  fact(p, CUDALOAD_FACT_FAMILY), fact(p, CUDALOAD_FACT_WANTED),
                  fact(p, CUDALOAD_FACT_VERSION),
                  p->kind == CUDALOAD_PROBLEM_OLDER_RELEASE
                      ? "an older release, which lacks what it uses"
                      : "a newer release than it supports");
    if (has(p, CUDALOAD_FACT_TAKEN))
      cl_buf_printf(b, " (here: %s)", fact(p, CUDALOAD_FACT_TAKEN));
    return;
  case CUDALOAD_PROBLEM_CPU_BUILD:
    cl_buf_printf(
        b, "%s is a build without CUDA: it cannot use the GPU%s%s",
        has(p, CUDALOAD_FACT_CONSUMER) ? fact(p, CUDALOAD_FACT_CONSUMER)
                                       : "the program",
        has(p, CUDALOAD_FACT_PACKAGE) ? " (" : "",
        has(p, CUDALOAD_FACT_PACKAGE) ? fact(p, CUDALOAD_FACT_PACKAGE) : "");
    if (has(p, CUDALOAD_FACT_PACKAGE))
      cl_buf_puts(b, ")");
    return;
  case CUDALOAD_PROBLEM_PIN:
    /* A PEP 440 specifier follows the name as pip spells it
     * (nvidia-cudnn-cu12==9.1.0.70); a bare version after a space. */
    cl_buf_printf(b, "%s needs %s%s%s, and %s",
                  has(p, CUDALOAD_FACT_CONSUMER)
                      ? fact(p, CUDALOAD_FACT_CONSUMER)
                      : "a distribution",
                  fact(p, CUDALOAD_FACT_PACKAGE),
                  strchr("=<>!~", fact(p, CUDALOAD_FACT_WANTED)[0]) &&
                          fact(p, CUDALOAD_FACT_WANTED)[0]
                      ? ""
                      : " ",
                  fact(p, CUDALOAD_FACT_WANTED),
                  has(p, CUDALOAD_FACT_VERSION) ? "another version is installed"
                                                : "it is not installed");
    if (has(p, CUDALOAD_FACT_VERSION))
      cl_buf_printf(b, " (%s)", fact(p, CUDALOAD_FACT_VERSION));
    return;
  case CUDALOAD_PROBLEM_DRIVER_HIDDEN:
    cl_buf_printf(b,
                  "the error message names the driver's %s, and this machine "
                  "has the driver (%s): the program does not see it",
                  fact(p, CUDALOAD_FACT_NAME), fact(p, CUDALOAD_FACT_PATH));
    return;
  case CUDALOAD_PROBLEM_UNKNOWN_LIBRARY:
    cl_buf_printf(b,
                  "the error message names %s, which is not a CUDA library "
                  "cudaload knows: it, or a library it needs, could not be "
                  "loaded",
                  fact(p, CUDALOAD_FACT_NAME));
    return;
  case CUDALOAD_PROBLEM_NO_GPU_CODE:
    cl_buf_printf(b, "the error message says the program has no GPU code for "
                     "this GPU");
    return;
  case CUDALOAD_PROBLEM_CUBLAS_INIT:
    cl_buf_printf(b, "the error message is CUBLAS_STATUS_NOT_INITIALIZED: "
                     "cuBLAS could not create its handle");
    return;
  default:
    cl_buf_printf(b, "%s",
                  cudaload_problem_kind_name(p->kind)
                      ? cudaload_problem_kind_name(p->kind)
                      : "a problem");
    return;
  }
}

int cl_problem_words(cl_problem *p, cl_shell_kind shell) {
  cl_buf b = CL_BUF_INIT;
  /* What is true only of the environment as it is: cudaload is its fix. */
  if (as_it_is(p))
    cl_buf_puts(&b, "without cudaload (this environment as it is): ");
  if (p->said)
    cl_buf_puts(&b, p->said);
  else
    sentence(&b, p);
  free(p->text);
  p->text = cl_buf_take(&b);
  free(p->fix_text);
  p->fix_text = cl_fix_line_text(&p->fix, shell);
  p->note = p->note || cl_problem_kind_is_note(p->kind);
  return p->text && p->fix_text ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

int cl_problem_list_finish(cl_problem_list *list, cl_shell_kind shell) {
  for (size_t i = 0; i < list->count && !list->failed; ++i)
    list->failed |= cl_problem_words(&list->items[i], shell) != CUDALOAD_OK;
  return list->failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}
