/* SPDX-License-Identifier: MIT */
/*
 * cli_explain.c - `cudaload explain`: who binds to what. For consumer
 * files, the loader model's tree (cudaload_explain_files); for a running
 * process, what it has mapped (cudaload_explain_pid).
 */
#include "cli.h"
#include "cudaload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_explain_help[] = {
    "NAME\n"
    "  cudaload explain - show what the loader would open for a program or\n"
    "  library, by which rule, and where its CUDA symbols bind\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload explain FILE... [--root DIR]... [--require SPEC]...\n"
    "                   [--no-defaults] [--global] [--symbols]\n"
    "                   [--format FORMAT]\n"
    "  cudaload explain --pid PID [--root DIR]... [--format FORMAT]\n"
    "\n"
    "DESCRIPTION\n"
    "  For each FILE (an application, libtorch_cuda.so, libctranslate2.so,\n"
    "  a cuDNN shim, a DLL), as if it were opened into a new process with\n"
    "  this environment (LD_LIBRARY_PATH or PATH): every library it needs\n"
    "  (DT_NEEDED, imports) and opens lazily by name, recursively through\n"
    "  the CUDA libraries of its tree (system libraries are shown as needs,\n"
    "  not expanded), the file the OS loader would take for each and the\n"
    "  rule that decided (already-loaded, rpath, ld-library-path, runpath,\n"
    "  ld-so-cache, default-dirs, not-found; on Windows known-dll,\n"
    "  application-folder, system32, path-variable, ...: docs/loader.md),\n"
    "  its version, and where the file's references to CUDA symbols bind,\n"
    "  honouring symbol versions. With --require the plan is applied first,\n"
    "  as if cudaload_preload had loaded it; --global puts those files in\n"
    "  the global scope (as RTLD_GLOBAL would). Nothing is loaded.\n"
    "\n"
    "  With --pid: the CUDA libraries the running process PID has mapped,\n"
    "  with families and versions: the mapped file's, never that of a file\n"
    "  that replaced it under its name (said as a problem) or of the host's\n"
    "  file of a container's name.\n"
    "\n"
    "  Problems are listed last: a dependency not found, another major\n"
    "  taken, one family in two versions, a cuDNN whose sub-libraries come\n"
    "  from another version, CUDA majors mixed, references that bind to\n"
    "  another file than the one the consumer was linked against, a search\n"
    "  list that includes the current folder.\n"
    "\n"
    "OPTIONS\n"
    "  -r, --root DIR      search DIR first for versions and the plan (may\n"
    "                      be repeated)\n"
    "  -q, --require SPEC  preload the plan for SPEC first (may be repeated)\n"
    "  --environment DIR   search DIR as the active environment (may be\n"
    "                      repeated): instead of VIRTUAL_ENV, CONDA_PREFIX\n"
    "                      and the python3 on PATH\n"
    "  --no-defaults       search only the roots given with --root\n"
    "  --global            the plan's files in the global scope\n"
    "  --symbols           list each CUDA symbol reference and where it binds\n"
    "  --pid PID           explain the running process PID instead of files\n"
    "  --format FORMAT     text (default), json, yaml or dot (Graphviz:\n"
    "                      consumer -> library name -> file, problems red)\n"
    "  -h, --help          show this help\n"
    "\n"
    "EXIT STATUS\n"
    "  0  the explanation lists no problem\n"
    "  1  internal error\n"
    "  2  usage error\n"
    "  3  a FILE could not be read, or no such process / not allowed to\n"
    "     look at it\n"
    "  6  the explanation lists at least one problem\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload explain venv/lib/python3.11/site-packages/ctranslate2/*.so\n"
    "  cudaload explain --require cudnn=8 --format dot app | dot -Tsvg\n"
    "  cudaload explain --pid 4242 --format json\n",
    NULL};
/* What the command line asks for. */
typedef struct explain_options {
  cli_search_options search;
  char **files; /* absolute (cli_absolute_path) */
  size_t file_count;
  unsigned flags; /* CUDALOAD_PRELOAD_GLOBAL, CUDALOAD_EXPLAIN_SYMBOLS */
  long pid;
  int format;
} explain_options;

static int parse_pid(const char *cmd, const char *value, long *pid) {
  char *end = NULL;
  errno = 0;
  long parsed = strtol(value, &end, 10);
  if (!*value || *end || errno || parsed <= 0)
    return cli_usage_error(cmd, "--pid '%s': not a process id", value);
  *pid = parsed;
  return EXIT_OK;
}

/* EXIT_OK, or the exit status with the message printed. */
static int parse_explain_options(const char *cmd, int argc, char **argv,
                                 explain_options *o) {
  int rc = EXIT_OK;
  int options_done = 0;
  for (int i = 1; i < argc && rc == EXIT_OK; ++i) {
    const char *value;
    int m;
    if (!options_done && strcmp(argv[i], "--") == 0) {
      options_done = 1;
    } else if (!options_done &&
               (m = cli_search_option(cmd, argc, argv, &i, &o->search, 1))) {
      if (m < 0)
        rc = EXIT_USAGE;
    } else if (!options_done &&
               (m = cli_option_value(cmd, argc, argv, &i, "--format", NULL,
                                     &value))) {
      if (m < 0)
        rc = EXIT_USAGE;
      else if (strcmp(value, "dot") == 0)
        o->format = CUDALOAD_FORMAT_DOT;
      else
        rc = cli_parse_format(cmd, value, 1, &o->format);
    } else if (!options_done && (m = cli_option_value(cmd, argc, argv, &i,
                                                      "--pid", NULL, &value))) {
      rc = m < 0 ? EXIT_USAGE : parse_pid(cmd, value, &o->pid);
    } else if (!options_done && strcmp(argv[i], "--global") == 0) {
      o->flags |= CUDALOAD_PRELOAD_GLOBAL;
    } else if (!options_done && strcmp(argv[i], "--symbols") == 0) {
      o->flags |= CUDALOAD_EXPLAIN_SYMBOLS;
    } else if (!options_done && argv[i][0] == '-' && argv[i][1]) {
      rc = cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      rc = cli_absolute_path(cmd, "FILE", argv[i], &o->files[o->file_count]);
      if (rc == EXIT_OK)
        o->file_count++;
    }
  }
  if (rc == EXIT_OK && !o->pid && o->file_count == 0)
    rc = cli_usage_error(cmd, "no FILE and no --pid given");
  if (rc == EXIT_OK && o->pid && o->file_count)
    rc = cli_usage_error(cmd, "give FILEs or --pid, not both");
  return rc;
}

/* Explain and print: EXIT_OK, EXIT_PROBLEMS when the report lists
 * problems, or an error status with the message printed. */
static int explain_and_print(const char *cmd, cudaload_ctx *ctx,
                             const explain_options *o) {
  cudaload_explain *e = NULL;
  int status = o->pid
                   ? cudaload_explain_pid(ctx, o->pid, &e)
                   : cudaload_explain_files(ctx, (const char *const *)o->files,
                                            o->file_count, o->flags, &e);
  if (status != CUDALOAD_OK) {
    cli_error("cudaload: explain: %s\n", cudaload_last_error());
    return status == CUDALOAD_E_NO_MEMORY ? EXIT_INTERNAL : EXIT_INPUT;
  }
  char *report = NULL;
  status = cudaload_explain_report(e, o->format, &report);
  int rc = cli_print_report(cmd, status, report);
  if (rc == EXIT_OK && cudaload_explain_problem_count(e))
    rc = EXIT_PROBLEMS;
  cudaload_explain_free(e);
  return rc;
}

int cli_explain(int argc, char **argv) {
  const char *cmd = "explain";
  explain_options o = {.format = CUDALOAD_FORMAT_TEXT};
  int rc = cli_search_options_init(&o.search, argc);
  if (rc == EXIT_OK && !(o.files = calloc((size_t)argc, sizeof *o.files))) {
    cli_error("cudaload: explain: out of memory\n");
    rc = EXIT_INTERNAL;
  }
  if (rc == EXIT_OK)
    rc = parse_explain_options(cmd, argc, argv, &o);
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = cli_search_context(cmd, &o.search, &ctx);
  if (rc == EXIT_OK)
    rc = explain_and_print(cmd, ctx, &o);
  cudaload_destroy(ctx);
  for (size_t i = 0; i < o.file_count; ++i)
    free(o.files[i]);
  free(o.files);
  cli_search_options_free(&o.search);
  return rc;
}
