/* SPDX-License-Identifier: MIT */
/*
 * problem_words.c - the words of every problem: its kind's name in reports,
 * each fact's name, and the sentence made from the kind and the facts.
 * Every output (the doctor's text, JSON and YAML, the C accessors, Python's
 * objects) shows the sentence made here; the stages record kinds and facts
 * (problem.h), and no stage writes a sentence of its own: rewording a
 * problem is an edit of this file.
 */
#include "problem/problem_words.h"
#include "common/buf.h"
#include "common/strutil.h"
#include "scan/catalog.h"

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
    {CUDALOAD_PROBLEM_VERSION_UNTRUSTED, "version-untrusted", 0},
    {CUDALOAD_PROBLEM_NEEDED_UNPROVIDED, "needed-unprovided", 0},
    {CUDALOAD_PROBLEM_CASE_TWINS, "case-twins", 0},
    {CUDALOAD_PROBLEM_SHARED_NAME, "shared-name", 0},
    {CUDALOAD_PROBLEM_UNEXPOSED, "unexposed", 0},
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
    NULL,         "requirement",   "family",
    "library",    "major",         "cuda_major",
    "consumer",   "name",          "taken",
    "better",     "path",          "version",
    "wanted",     "symbol",        "version_node",
    "rule",       "reason",        "driver",
    "quote",      "package",       "variable",
    "stage",      "condition",     "device",
    "count",      "total",         "searched",
    "other_path", "other_version", "other_cuda_major",
    "among",      "loaded_by",     "causes",
    "platform",   "value",         "other_package",
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

/* A list of names joined by ", " as said: "a, b and c". */
static void spoken(cl_buf *b, const char *names) {
  const char *last = NULL;
  for (const char *c = strstr(names, ", "); c; c = strstr(c + 2, ", "))
    last = c;
  if (last)
    cl_buf_printf(b, "%.*s and %s", (int)(last - names), names, last + 2);
  else
    cl_buf_puts(b, names);
}

/* The folder of a path, as said (the path itself when it has none). */
static void folder_of(cl_buf *b, const char *path) {
  char *folder = cl_path_dirname(path);
  cl_buf_puts(b, folder ? folder : path);
  free(folder);
}

/* The file a finding is about, or what stands for it. */
static const char *consumer_or(const cl_problem *p, const char *none) {
  return has(p, CUDALOAD_FACT_CONSUMER) ? fact(p, CUDALOAD_FACT_CONSUMER)
                                        : none;
}

/* Which files a mix is among (CUDALOAD_FACT_AMONG, verdict.h's words). */
static const char *among_words(const cl_problem *p) {
  static const char *const among[][2] = {
      {"process", "in what the process would load"},
      {"program", "in what the program would load"},
      {"program-loading-it", "in what a program that loads it would run"},
      {"file", "in what one process would load for it"},
      {"maps", "mapped in the process"}};
  const char *v = fact(p, CUDALOAD_FACT_AMONG);
  for (size_t i = 0; i < sizeof among / sizeof *among; ++i)
    if (!strcmp(among[i][0], v))
      return among[i][1];
  return v;
}

/* Where the loader looked for a name it did not find. */
static void looked_at(cl_buf *b, const cl_problem *p) {
  cl_buf_puts(b, "(rule: not-found");
  if (has(p, CUDALOAD_FACT_SEARCHED))
    cl_buf_printf(b, "; looked at: %s", fact(p, CUDALOAD_FACT_SEARCHED));
  cl_buf_puts(b, ")");
}

static void not_found_words(cl_buf *b, const cl_problem *p) {
  const char *names = fact(p, CUDALOAD_FACT_NAME);
  size_t n = name_count(names);
  cl_buf_printf(b, "%s %s ", consumer_or(p, "the process"),
                p->kind == CUDALOAD_PROBLEM_LAZY_NOT_FOUND ? "opens" : "needs");
  spoken(b, names);
  if (p->kind == CUDALOAD_PROBLEM_LAZY_NOT_FOUND)
    cl_buf_printf(b, " by name when it first needs %s: not found ",
                  n == 1 ? "it" : "them");
  else
    cl_buf_puts(b, ": not found, so loading it fails ");
  looked_at(b, p);
}

/* What the loader model found: the file the loader takes lacks symbols
 * its consumer takes from it, and how the load then fails. */
static void undefined_words(cl_buf *b, const cl_problem *p) {
  int windows = !strcmp(fact(p, CUDALOAD_FACT_PLATFORM), "windows");
  const char *node = fact(p, CUDALOAD_FACT_VERSION_NODE);
  cl_buf_printf(b, "%s takes %s symbol%s from %s%s%s that %s",
                fact(p, CUDALOAD_FACT_CONSUMER), fact(p, CUDALOAD_FACT_COUNT),
                strcmp(fact(p, CUDALOAD_FACT_COUNT), "1") ? "s" : "",
                fact(p, CUDALOAD_FACT_NAME), *node ? " version " : "", node,
                fact(p, CUDALOAD_FACT_TAKEN));
  if (has(p, CUDALOAD_FACT_VERSION))
    cl_buf_printf(b, " (%s)", fact(p, CUDALOAD_FACT_VERSION));
  if (has(p, CUDALOAD_FACT_RULE))
    cl_buf_printf(b, ", which the loader takes by rule %s,",
                  fact(p, CUDALOAD_FACT_RULE));
  cl_buf_printf(b, " does not define (e.g. %s): loading it fails with ",
                fact(p, CUDALOAD_FACT_SYMBOL));
  if (windows)
    cl_buf_puts(b, "error 127, \"The specified procedure could not be "
                   "found\"");
  else
    cl_buf_printf(b,
                  "\"undefined symbol: %s%s%s\" (at load with RTLD_NOW, "
                  "else at the first call)",
                  fact(p, CUDALOAD_FACT_SYMBOL), *node ? ", version " : "",
                  node);
  if (!strcmp(fact(p, CUDALOAD_FACT_LOADED_BY), "LD_PRELOAD"))
    cl_buf_printf(b, "; LD_PRELOAD puts %s first",
                  fact(p, CUDALOAD_FACT_TAKEN));
}

/* A symbol the file the loader takes lacks: who needs it, which file is
 * taken and how, and the release that defines it. */
static void symbols_words(cl_buf *b, const cl_problem *p) {
  if (!strcmp(fact(p, CUDALOAD_FACT_REASON), "loaded-first")) {
    cl_buf_printf(b,
                  "%s imports %s of its %s functions from %s that the copy "
                  "%s%s%s%s lacks (e.g. %s): a process that loaded that copy "
                  "first gets Windows error 127 loading it",
                  fact(p, CUDALOAD_FACT_CONSUMER), fact(p, CUDALOAD_FACT_COUNT),
                  fact(p, CUDALOAD_FACT_TOTAL), fact(p, CUDALOAD_FACT_NAME),
                  fact(p, CUDALOAD_FACT_TAKEN),
                  has(p, CUDALOAD_FACT_VERSION) ? " (" : "",
                  fact(p, CUDALOAD_FACT_VERSION),
                  has(p, CUDALOAD_FACT_VERSION) ? ")" : "",
                  fact(p, CUDALOAD_FACT_SYMBOL));
    if (has(p, CUDALOAD_FACT_BETTER))
      cl_buf_printf(b, "; the copy beside it, %s, has them",
                    fact(p, CUDALOAD_FACT_BETTER));
    return;
  }
  if (has(p, CUDALOAD_FACT_COUNT)) {
    undefined_words(b, p);
    return;
  }
  if (!strcmp(fact(p, CUDALOAD_FACT_REASON), "missing-export")) {
    cl_buf_printf(b,
                  "%s loaded, but a DLL it imports lacks a function it needs "
                  "(Windows error 127): another release of that DLL was "
                  "loaded first",
                  has(p, CUDALOAD_FACT_CONSUMER)
                      ? cl_path_basename(fact(p, CUDALOAD_FACT_CONSUMER))
                      : "the DLL");
    return;
  }
  const char *consumer = consumer_or(p, "the program");
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

/* A library of its own family taken from another folder, though copies
 * lie beside it. */
static void shadowed_words(cl_buf *b, const cl_problem *p) {
  int several = name_count(fact(p, CUDALOAD_FACT_NAME)) > 1;
  cl_buf_printf(b, "%s takes ", fact(p, CUDALOAD_FACT_CONSUMER));
  spoken(b, fact(p, CUDALOAD_FACT_NAME));
  cl_buf_puts(b, " from ");
  folder_of(b, fact(p, CUDALOAD_FACT_TAKEN));
  cl_buf_printf(b, " (rule: %s), not the cop%s beside it in ",
                fact(p, CUDALOAD_FACT_RULE), several ? "ies" : "y");
  folder_of(b, fact(p, CUDALOAD_FACT_BETTER));
  cl_buf_printf(b, ": %s shadowed, likely another version",
                several ? "siblings" : "a sibling");
}

static void binds_elsewhere_words(cl_buf *b, const cl_problem *p) {
  const char *node = fact(p, CUDALOAD_FACT_VERSION_NODE);
  cl_buf_printf(
      b,
      "%s of %s's %s references to %s%s%s bind to %s, not to %s (e.g. %s): "
      "%s",
      fact(p, CUDALOAD_FACT_COUNT), fact(p, CUDALOAD_FACT_CONSUMER),
      fact(p, CUDALOAD_FACT_TOTAL), fact(p, CUDALOAD_FACT_NAME),
      *node ? " version " : "", node,
      has(p, CUDALOAD_FACT_TAKEN) ? fact(p, CUDALOAD_FACT_TAKEN) : "nothing",
      has(p, CUDALOAD_FACT_BETTER) ? fact(p, CUDALOAD_FACT_BETTER)
                                   : "its own dependency",
      has(p, CUDALOAD_FACT_SYMBOL) ? fact(p, CUDALOAD_FACT_SYMBOL) : "?",
      *node ? "another file defines the same version node or has no symbol "
              "versions"
            : "the references carry no symbol version");
}

/* Windows: a second copy of a DLL name, loaded by its full path after the
 * first (docs/loader.md, Windows 15). A note unless the first is older. */
static void windows_copies_words(cl_buf *b, const cl_problem *p) {
  const char *name = fact(p, CUDALOAD_FACT_NAME);
  cl_buf_printf(
      b,
      "two copies of %s %s: %s (%s), loaded first, and %s (%s), loaded by "
      "its full path; Windows gives every import and LoadLibrary of %s the "
      "module of that name loaded first, so ",
      name, among_words(p), fact(p, CUDALOAD_FACT_TAKEN),
      has(p, CUDALOAD_FACT_VERSION) ? fact(p, CUDALOAD_FACT_VERSION)
                                    : "version unknown",
      fact(p, CUDALOAD_FACT_OTHER_PATH),
      has(p, CUDALOAD_FACT_OTHER_VERSION) ? fact(p, CUDALOAD_FACT_OTHER_VERSION)
                                          : "version unknown",
      name);
  if (has(p, CUDALOAD_FACT_CONSUMER)) {
    spoken(b, fact(p, CUDALOAD_FACT_CONSUMER));
    cl_buf_printf(b, " get%s %s",
                  name_count(fact(p, CUDALOAD_FACT_CONSUMER)) > 1 ? "" : "s",
                  fact(p, CUDALOAD_FACT_TAKEN));
  } else {
    cl_buf_puts(b, "whatever loads it by name gets the first (no file here "
                   "imports it or opens it by name)");
  }
  cl_buf_printf(b,
                "; the other copy is reached only through the handle of its "
                "own load: %s",
                p->note ? "one copy serves the process, not a problem"
                        : "the copy they get is the older, which may lack "
                          "what a program built for the newer takes");
}

static void two_versions_words(cl_buf *b, const cl_problem *p) {
  if (!strcmp(fact(p, CUDALOAD_FACT_PLATFORM), "windows")) {
    windows_copies_words(b, p);
    return;
  }
  const char *a = fact(p, CUDALOAD_FACT_PATH);
  const char *other = fact(p, CUDALOAD_FACT_OTHER_PATH);
  cl_buf_printf(b, "%s %s in two versions %s: %s (",
                fact(p, CUDALOAD_FACT_FAMILY), fact(p, CUDALOAD_FACT_MAJOR),
                among_words(p), fact(p, CUDALOAD_FACT_VERSION));
  folder_of(b, a);
  cl_buf_printf(b, ", e.g. %s) and %s (", cl_path_basename(a),
                fact(p, CUDALOAD_FACT_OTHER_VERSION));
  folder_of(b, other);
  cl_buf_printf(b,
                ", e.g. %s); a library of one version running with parts of "
                "another can fail or misbehave",
                cl_path_basename(other));
}

/* A search list that also looks in the current folder. */
static void empty_entry_words(cl_buf *b, const cl_problem *p) {
  const char *entry = fact(p, CUDALOAD_FACT_VALUE);
  cl_buf_printf(b, "%s: the search list of %s (rule: %s) holds ",
                consumer_or(p, "the process"),
                has(p, CUDALOAD_FACT_PATH) ? fact(p, CUDALOAD_FACT_PATH)
                                           : "the process",
                fact(p, CUDALOAD_FACT_RULE));
  if (!*entry || !strcmp(entry, "."))
    cl_buf_puts(b, "an empty entry (or \".\"), so the loader also looks for "
                   "names in the current folder");
  else
    cl_buf_printf(b,
                  "the relative entry \"%s\", which the loader takes "
                  "relative to the current folder",
                  entry);
  cl_buf_puts(b, ": whoever controls that folder could plant a library there");
}

/* What explain --pid says of a mapped file it cannot read as mapped. */
static void in_process_words(cl_buf *b, const cl_problem *p) {
  const char *reason = fact(p, CUDALOAD_FACT_REASON);
  if (!strcmp(reason, "sub-library-mix")) {
    cl_buf_printf(b,
                  "the cuDNN %s main library %s (%s) runs %s from %s (%s): "
                  "its sub-libraries come from another version",
                  fact(p, CUDALOAD_FACT_MAJOR), fact(p, CUDALOAD_FACT_PATH),
                  fact(p, CUDALOAD_FACT_VERSION),
                  fact(p, CUDALOAD_FACT_LIBRARY),
                  fact(p, CUDALOAD_FACT_OTHER_PATH),
                  fact(p, CUDALOAD_FACT_OTHER_VERSION));
    return;
  }
  if (!strcmp(reason, "more-mixes")) {
    cl_buf_printf(b,
                  "%s more cuDNN main libraries run sub-libraries of another "
                  "version from another folder",
                  fact(p, CUDALOAD_FACT_COUNT));
    return;
  }
  cl_buf_printf(b, "%s (%s %s)", fact(p, CUDALOAD_FACT_PATH),
                fact(p, CUDALOAD_FACT_LIBRARY), fact(p, CUDALOAD_FACT_MAJOR));
  if (!strcmp(reason, "deleted")) {
    cl_buf_printf(b,
                  " was deleted or replaced on disk after the process mapped "
                  "it: the process runs the file it mapped then, not the one "
                  "at that path now, so its version is not read from there%s",
                  has(p, CUDALOAD_FACT_VERSION) ? "" : " (unknown)");
    return;
  }
  cl_buf_printf(b,
                ": the file at that path is not the one the process maps "
                "(another device or inode)%s, so its version is %s",
                !strcmp(reason, "other-file-unread")
                    ? " and that one cannot be read from here (following "
                      "/proc/PID/map_files needs root)"
                    : "",
                has(p, CUDALOAD_FACT_VERSION) ? "only what its name tells"
                                              : "unknown");
}

/* The model gave up on a file that names too many libraries and folders. */
static void stopped_words(cl_buf *b, const cl_problem *p) {
  cl_buf_printf(
      b,
      "%s: the loader model stopped after %s lookups resolving what "
      "it %s (%s DT_NEEDED names%s%s): what it would load beyond "
      "that is not modelled",
      fact(p, CUDALOAD_FACT_CONSUMER), fact(p, CUDALOAD_FACT_COUNT),
      !strcmp(fact(p, CUDALOAD_FACT_REASON), "opens") ? "opens by name"
                                                      : "needs",
      has(p, CUDALOAD_FACT_TOTAL) ? fact(p, CUDALOAD_FACT_TOTAL) : "?",
      has(p, CUDALOAD_FACT_SEARCHED) ? ", " : "",
      fact(p, CUDALOAD_FACT_SEARCHED));
}

/* Who loaded a copy the process has (CUDALOAD_FACT_LOADED_BY). */
static void loaded_by_words(cl_buf *b, const cl_problem *p) {
  const char *by = fact(p, CUDALOAD_FACT_LOADED_BY);
  if (!strcmp(by, "LD_PRELOAD"))
    cl_buf_puts(b, "LD_PRELOAD");
  else if (!*by || !strcmp(by, "program"))
    cl_buf_puts(b, "the program, before cudaload ran");
  else
    cl_buf_printf(b, "%s, which needs it", by);
}

/* A copy the process has already, older than the planned file, that the
 * plan's loads would meet (plan_judge.c). */
static void older_copy_words(cl_buf *b, const cl_problem *p) {
  cl_buf_printf(b, "%s %s is already loaded from %s",
                fact(p, CUDALOAD_FACT_NAME), fact(p, CUDALOAD_FACT_VERSION),
                fact(p, CUDALOAD_FACT_PATH));
  if (has(p, CUDALOAD_FACT_PACKAGE)) {
    cl_buf_printf(b,
                  ", the copy %s ships, older than the planned %s (%s): the "
                  "program keeps its own copy, and the plan's other files "
                  "are loaded beside it",
                  fact(p, CUDALOAD_FACT_PACKAGE),
                  fact(p, CUDALOAD_FACT_OTHER_PATH),
                  fact(p, CUDALOAD_FACT_OTHER_VERSION));
    return;
  }
  cl_buf_puts(b, " (loaded by ");
  loaded_by_words(b, p);
  cl_buf_printf(b,
                "), older than the planned %s (%s): cudaload loads no second "
                "copy of a name, so everything that needs %s gets the older "
                "one",
                fact(p, CUDALOAD_FACT_OTHER_PATH),
                fact(p, CUDALOAD_FACT_OTHER_VERSION),
                fact(p, CUDALOAD_FACT_NAME));
}

/* Another file in the global symbol scope that takes the references of
 * the planned file's consumers (plan.c, cl_plan_detect_conflicts). */
static void conflict_words(cl_buf *b, const cl_problem *p) {
  const char *node = fact(p, CUDALOAD_FACT_VERSION_NODE);
  cl_buf_printf(b, "%s (%s %s) is in the global symbol scope",
                fact(p, CUDALOAD_FACT_PATH), fact(p, CUDALOAD_FACT_FAMILY),
                fact(p, CUDALOAD_FACT_MAJOR));
  if (*node &&
      !strcmp(fact(p, CUDALOAD_FACT_MAJOR), fact(p, CUDALOAD_FACT_WANTED)))
    cl_buf_printf(b,
                  " and defines the same version node %s as the planned %s: "
                  "a library linked to %s will call its %s and relatives, "
                  "not the planned file's (the first one loaded wins for "
                  "everyone)",
                  node, fact(p, CUDALOAD_FACT_OTHER_PATH), node,
                  fact(p, CUDALOAD_FACT_SYMBOL));
  else if (*node)
    cl_buf_printf(b,
                  " and answers references to version %s (it has no symbol "
                  "versions, or defines that node): a library linked to %s "
                  "%s will call its %s and relatives instead of its own",
                  node, fact(p, CUDALOAD_FACT_FAMILY),
                  fact(p, CUDALOAD_FACT_WANTED), fact(p, CUDALOAD_FACT_SYMBOL));
  else
    cl_buf_printf(b,
                  ": a library linked to %s %s will call its %s and relatives "
                  "instead of its own (the planned file has no symbol "
                  "versions to keep them apart)",
                  fact(p, CUDALOAD_FACT_FAMILY), fact(p, CUDALOAD_FACT_WANTED),
                  fact(p, CUDALOAD_FACT_SYMBOL));
}

/* A library a planned file (or a package's, PACKAGE) opens by name later
 * that no root holds for the CUDA major it opens. */
static void lazy_unprovided_words(cl_buf *b, const cl_problem *p) {
  const char *family = cl_catalog_family_title(fact(p, CUDALOAD_FACT_FAMILY));
  if (has(p, CUDALOAD_FACT_PACKAGE)) {
    cl_buf_printf(b,
                  "%s %s (%s) opens %s by name at its first %s call; the plan "
                  "has %s %s, no %s for CUDA %s was found",
                  fact(p, CUDALOAD_FACT_PACKAGE),
                  fact(p, CUDALOAD_FACT_VERSION),
                  fact(p, CUDALOAD_FACT_CONSUMER), fact(p, CUDALOAD_FACT_NAME),
                  family, family, fact(p, CUDALOAD_FACT_MAJOR), family,
                  fact(p, CUDALOAD_FACT_CUDA_MAJOR));
    return;
  }
  cl_buf_printf(b, "%s %s (%s) opens ", fact(p, CUDALOAD_FACT_LIBRARY),
                fact(p, CUDALOAD_FACT_MAJOR), fact(p, CUDALOAD_FACT_CONSUMER));
  spoken(b, fact(p, CUDALOAD_FACT_NAME));
  cl_buf_printf(b,
                " by name when it first needs %s; no %s for CUDA %s was "
                "found",
                name_count(fact(p, CUDALOAD_FACT_NAME)) > 1 ? "them" : "it",
                family, fact(p, CUDALOAD_FACT_CUDA_MAJOR));
}

/* Two distributions that install the same files, one over the other. */
static void same_files_words(cl_buf *b, const cl_problem *p) {
  const char *taken = fact(p, CUDALOAD_FACT_TAKEN);
  cl_buf_printf(b,
                "%s %s and %s %s both install %s (%s file%s) into %s, one "
                "over the other: ",
                fact(p, CUDALOAD_FACT_PACKAGE), fact(p, CUDALOAD_FACT_VERSION),
                fact(p, CUDALOAD_FACT_OTHER_PACKAGE),
                fact(p, CUDALOAD_FACT_OTHER_VERSION),
                fact(p, CUDALOAD_FACT_NAME), fact(p, CUDALOAD_FACT_COUNT),
                strcmp(fact(p, CUDALOAD_FACT_COUNT), "1") ? "s" : "",
                fact(p, CUDALOAD_FACT_PATH));
  if (*taken)
    cl_buf_printf(b, "the files there are %s %s's (%s)", taken,
                  !strcmp(taken, fact(p, CUDALOAD_FACT_PACKAGE))
                      ? fact(p, CUDALOAD_FACT_VERSION)
                      : fact(p, CUDALOAD_FACT_OTHER_VERSION),
                  fact(p, CUDALOAD_FACT_REASON));
  else
    cl_buf_puts(b, "which one's files lie there is not known");
  if (has(p, CUDALOAD_FACT_WANTED))
    cl_buf_printf(b, ", not the program's %s", fact(p, CUDALOAD_FACT_WANTED));
}

/* How a device runs that keeps CUDA from working well on it
 * (runtime_problems.c). */
static void device_words(cl_buf *b, const cl_problem *p) {
  const char *reason = fact(p, CUDALOAD_FACT_REASON);
  const char *device = fact(p, CUDALOAD_FACT_DEVICE);
  const char *name = fact(p, CUDALOAD_FACT_NAME);
  if (!strcmp(reason, "wddm-watchdog"))
    cl_buf_printf(b,
                  "device %s (%s) runs under WDDM with Windows' display "
                  "watchdog on: when one kernel runs longer than TdrDelay (%s "
                  "s), Windows resets the driver, which shows up as "
                  "CUBLAS_STATUS_NOT_INITIALIZED, CUDA_ERROR_LAUNCH_TIMEOUT or "
                  "a lost device",
                  device, name, fact(p, CUDALOAD_FACT_VALUE));
  else if (!strcmp(reason, "display-watchdog"))
    cl_buf_printf(b,
                  "device %s (%s) drives a display, so its kernels run under "
                  "the driver's watchdog: a kernel that runs longer than a "
                  "few seconds is killed (CUDA_ERROR_LAUNCH_TIMEOUT, then "
                  "every later call fails: CUBLAS_STATUS_EXECUTION_FAILED, a "
                  "lost context)",
                  device, name);
  else if (!strcmp(reason, "compute-prohibited"))
    cl_buf_printf(b,
                  "device %s (%s) is in compute mode \"prohibited\": no "
                  "process may create a CUDA context on it",
                  device, name);
  else if (!strcmp(reason, "compute-busy"))
    cl_buf_printf(b,
                  "device %s (%s) is in compute mode \"%s\" and another "
                  "process is using it: that is why the probe could not "
                  "create a context there",
                  device, name, fact(p, CUDALOAD_FACT_VALUE));
  else if (!strcmp(reason, "memory-low"))
    cl_buf_printf(b,
                  "only %s MiB of device %s's %s MiB were free when the probe "
                  "ran: another process holds the rest, and a library that "
                  "cannot allocate its workspace then fails (cuBLAS with "
                  "CUBLAS_STATUS_NOT_INITIALIZED, cuDNN with "
                  "CUDNN_STATUS_ALLOC_FAILED)",
                  fact(p, CUDALOAD_FACT_COUNT), device,
                  fact(p, CUDALOAD_FACT_TOTAL));
  else
    cl_buf_printf(b, "device %s (%s) cannot be used as it runs (%s)", device,
                  name, reason);
}

/* A CUDA variable set so that nothing runs well (runtime_problems.c). */
static void variable_words(cl_buf *b, const cl_problem *p) {
  const char *reason = fact(p, CUDALOAD_FACT_REASON);
  const char *name = fact(p, CUDALOAD_FACT_VARIABLE);
  const char *value = fact(p, CUDALOAD_FACT_VALUE);
  if (!strcmp(reason, "no-device"))
    cl_buf_printf(b,
                  "the GPU probe finds no device, and %s=\"%s\" is set: CUDA "
                  "shows a process only the devices it lists, and it lists "
                  "none that exists here",
                  name, value);
  else if (!strcmp(reason, "hides-every-device"))
    cl_buf_printf(b,
                  "%s=\"%s\" hides every device: CUDA programs started from "
                  "here find no GPU",
                  name, value);
  else if (!strcmp(reason, "slow"))
    cl_buf_printf(b,
                  "%s=%s: every kernel launch waits for the GPU, which makes "
                  "CUDA slow",
                  name, value);
  else
    cl_buf_printf(b, "%s=%s is set (%s)", name, value, reason);
}

static void sentence(cl_buf *b, const cl_problem *p);

/* A copy the process has already, and what it causes: the words of that
 * kind, then who loaded the copy. */
static void loaded_copy_words(cl_buf *b, const cl_problem *p) {
  int causes = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds && !causes; ++i)
    if (!strcmp(kinds[i].name, fact(p, CUDALOAD_FACT_CAUSES)))
      causes = kinds[i].kind;
  if (!causes || causes == p->kind) {
    older_copy_words(b, p);
    return;
  }
  /* Who loaded the copy is said once, after what it causes. */
  cl_problem inner = *p;
  inner.kind = causes;
  inner.facts[CUDALOAD_FACT_LOADED_BY] = NULL;
  sentence(b, &inner);
  cl_buf_printf(b, "; %s was loaded by ", fact(p, CUDALOAD_FACT_PATH));
  loaded_by_words(b, p);
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
    else if (has(p, CUDALOAD_FACT_QUOTE))
      cl_buf_printf(b, "the GPU probe falls back to CPU (%s): %s",
                    fact(p, CUDALOAD_FACT_REASON),
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
  case CUDALOAD_PROBLEM_WRONG_LIBRARY:
    cl_buf_printf(b,
                  "%s asks for %s but the loader takes %s, which is %s %s "
                  "(rule: %s)",
                  consumer_or(p, "the process"), fact(p, CUDALOAD_FACT_NAME),
                  fact(p, CUDALOAD_FACT_TAKEN), fact(p, CUDALOAD_FACT_LIBRARY),
                  fact(p, CUDALOAD_FACT_MAJOR), fact(p, CUDALOAD_FACT_RULE));
    return;
  case CUDALOAD_PROBLEM_SHADOWED:
    shadowed_words(b, p);
    return;
  case CUDALOAD_PROBLEM_BINDS_ELSEWHERE:
    binds_elsewhere_words(b, p);
    return;
  case CUDALOAD_PROBLEM_TWO_VERSIONS:
    two_versions_words(b, p);
    return;
  case CUDALOAD_PROBLEM_CUDA_MAJORS:
    cl_buf_printf(b,
                  "CUDA %s and CUDA %s libraries %s: %s (CUDA %s) and %s "
                  "(CUDA %s)",
                  fact(p, CUDALOAD_FACT_CUDA_MAJOR),
                  fact(p, CUDALOAD_FACT_OTHER_CUDA_MAJOR), among_words(p),
                  fact(p, CUDALOAD_FACT_PATH),
                  fact(p, CUDALOAD_FACT_CUDA_MAJOR),
                  fact(p, CUDALOAD_FACT_OTHER_PATH),
                  fact(p, CUDALOAD_FACT_OTHER_CUDA_MAJOR));
    return;
  case CUDALOAD_PROBLEM_EMPTY_ENTRY:
    empty_entry_words(b, p);
    return;
  case CUDALOAD_PROBLEM_UNREADABLE:
    cl_buf_printf(b, "%s: cannot be read as a library",
                  fact(p, CUDALOAD_FACT_CONSUMER));
    return;
  case CUDALOAD_PROBLEM_STOPPED:
    stopped_words(b, p);
    return;
  case CUDALOAD_PROBLEM_IN_PROCESS:
    in_process_words(b, p);
    return;
  case CUDALOAD_PROBLEM_PLUGIN_UNUSABLE:
    cl_buf_printf(b,
                  "%s is a plugin (no file of its distribution needs it; the "
                  "program opens it by path when asked to) and needs %s, "
                  "which no root holds and which is no CUDA library cudaload "
                  "knows: the program runs, and fails only if it asks for "
                  "this plugin",
                  fact(p, CUDALOAD_FACT_CONSUMER), fact(p, CUDALOAD_FACT_NAME));
    return;
  case CUDALOAD_PROBLEM_PRELOADED_COPY:
  case CUDALOAD_PROBLEM_LOADED_COPY:
    loaded_copy_words(b, p);
    return;
  case CUDALOAD_PROBLEM_CONFLICT:
    conflict_words(b, p);
    return;
  case CUDALOAD_PROBLEM_LAZY_UNPROVIDED:
    lazy_unprovided_words(b, p);
    return;
  case CUDALOAD_PROBLEM_IF_USED:
    cl_buf_printf(b, "%s; no %s%s%s was found", fact(p, CUDALOAD_FACT_REASON),
                  fact(p, CUDALOAD_FACT_NAME),
                  has(p, CUDALOAD_FACT_CUDA_MAJOR) ? " for CUDA " : "",
                  fact(p, CUDALOAD_FACT_CUDA_MAJOR));
    return;
  case CUDALOAD_PROBLEM_SAME_FILES:
    same_files_words(b, p);
    return;
  case CUDALOAD_PROBLEM_PIN_UNREAD:
    cl_buf_printf(b, "Requires-Dist: %s of %s was not read: %s",
                  fact(p, CUDALOAD_FACT_QUOTE), consumer_or(p, "the program"),
                  fact(p, CUDALOAD_FACT_REASON));
    return;
  case CUDALOAD_PROBLEM_VERSION_UNTRUSTED:
    cl_buf_printf(b,
                  "%s: a source of its version was passed over, so the "
                  "version is %s%s%s: %s",
                  fact(p, CUDALOAD_FACT_PATH),
                  has(p, CUDALOAD_FACT_VERSION) ? fact(p, CUDALOAD_FACT_VERSION)
                                                : "unknown",
                  has(p, CUDALOAD_FACT_VALUE) ? " from its " : "",
                  fact(p, CUDALOAD_FACT_VALUE), fact(p, CUDALOAD_FACT_REASON));
    return;
  case CUDALOAD_PROBLEM_NEEDED_UNPROVIDED:
    cl_buf_printf(b,
                  "%s needs %s (%s), which is in none of the roots searched; "
                  "the loader must find it elsewhere or the load fails",
                  fact(p, CUDALOAD_FACT_CONSUMER), fact(p, CUDALOAD_FACT_NAME),
                  !strcmp(fact(p, CUDALOAD_FACT_PLATFORM), "windows")
                      ? "PE import"
                      : "ELF NEEDED");
    return;
  case CUDALOAD_PROBLEM_CASE_TWINS:
    cl_buf_printf(b,
                  "%s and %s differ only in letter case: Windows takes them "
                  "for one name and loads whichever it meets first",
                  fact(p, CUDALOAD_FACT_PATH),
                  cl_path_basename(fact(p, CUDALOAD_FACT_OTHER_PATH)));
    return;
  case CUDALOAD_PROBLEM_SHARED_NAME:
    cl_buf_printf(
        b,
        "%s (for %s) and %s, which %s binds through its own search "
        "list, have one name: loaded first, %s would be used by "
        "both, and %s does not satisfy %s (%s)",
        fact(p, CUDALOAD_FACT_PATH), fact(p, CUDALOAD_FACT_REQUIREMENT),
        fact(p, CUDALOAD_FACT_OTHER_PATH), fact(p, CUDALOAD_FACT_CONSUMER),
        fact(p, CUDALOAD_FACT_PATH), fact(p, CUDALOAD_FACT_OTHER_PATH),
        fact(p, CUDALOAD_FACT_REQUIREMENT), fact(p, CUDALOAD_FACT_REASON));
    return;
  case CUDALOAD_PROBLEM_UNEXPOSED:
    cl_buf_printf(b,
                  "%s could not be put on PATH (%s), so a library's own later "
                  "LoadLibrary of a file there by name would not find it",
                  fact(p, CUDALOAD_FACT_PATH),
                  has(p, CUDALOAD_FACT_REASON) ? fact(p, CUDALOAD_FACT_REASON)
                                               : "unknown reason");
    return;
  case CUDALOAD_PROBLEM_DEVICE:
    device_words(b, p);
    return;
  case CUDALOAD_PROBLEM_VARIABLE:
    variable_words(b, p);
    return;
  case CUDALOAD_PROBLEM_MESSAGE:
    cl_buf_printf(b, "the error message says: %s",
                  fact(p, CUDALOAD_FACT_QUOTE));
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
    if (!strcmp(fact(p, CUDALOAD_FACT_REASON), "not-shipped")) {
      cl_buf_printf(b,
                    "the error message names %s, which %s %s%s needs and does "
                    "not ship",
                    fact(p, CUDALOAD_FACT_NAME),
                    cl_catalog_family_title(fact(p, CUDALOAD_FACT_FAMILY)),
                    fact(p, CUDALOAD_FACT_MAJOR),
                    !strcmp(fact(p, CUDALOAD_FACT_PLATFORM), "windows")
                        ? " for Windows"
                        : "");
      return;
    }
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

/* The plan's failure, cudaload_plan()'s last error: per requirement no
 * file satisfied, the verdict and its fix first, on one line (issue 46),
 * then what the search passed over (the plan writes the roots searched
 * between the two). */
void cl_problem_unsatisfied_verdict(cl_buf *b, const char *requirement,
                                    const char *family, const char *fix) {
  cl_buf_printf(b, "%s: no usable %s library; fix: %s\n", requirement, family,
                fix ? fix : "");
}

void cl_problem_unsatisfied_rejected(cl_buf *b, size_t i, const char *path,
                                     const char *why) {
  if (i == 0)
    cl_buf_printf(b, "  rejected:\n");
  cl_buf_printf(b, "    %s: %s\n", path, why);
}

void cl_problem_unsatisfied_unnamed(cl_buf *b, const char *name, int refused) {
  cl_buf_printf(b, "  no file named like %s was found%s\n", name,
                refused ? " outside what was refused" : "");
}

int cl_problem_words(cl_problem *p, cl_shell_kind shell) {
  cl_buf b = CL_BUF_INIT;
  /* What is true only of the environment as it is: cudaload is its fix. */
  if (as_it_is(p))
    cl_buf_puts(&b, "without cudaload (this environment as it is): ");
  sentence(&b, p);
  free(p->text);
  p->text = cl_buf_take(&b);
  free(p->fix_text);
  p->fix_text = cl_fix_line_text(&p->fix, shell);
  p->note = p->note || cl_problem_kind_is_note(p->kind);
  return p->text && p->fix_text && !p->failed ? CUDALOAD_OK
                                              : CUDALOAD_E_NO_MEMORY;
}

int cl_problem_list_finish(cl_problem_list *list, cl_shell_kind shell) {
  for (size_t i = 0; i < list->count && !list->failed; ++i)
    list->failed |= cl_problem_words(&list->items[i], shell) != CUDALOAD_OK;
  return list->failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}
