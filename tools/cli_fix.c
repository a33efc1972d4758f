/* SPDX-License-Identifier: MIT */
/*
 * cli_fix.c - `cudaload fix`: the doctor's diagnosis for the same
 * arguments, then the installs of its fixes that are safe by construction
 * (the library judges each step: cudaload_fix_step_check(), and says what
 * it does: cudaload_fix_report()), each shown before it runs, after the
 * user said yes; then the doctor again, and what is left.
 */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

const char *const cli_fix_help[] = {
    "NAME\n"
    "  cudaload fix - run the installs the doctor's fixes name, safely, and\n"
    "  say what is left\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload fix [--error TEXT] [--require SPEC]... [--for TARGET]...\n"
    "               [--manifest FILE] [--root DIR]... [--environment DIR]...\n"
    "               [--no-defaults] [--dry-run] [--yes]\n"
    "\n"
    "DESCRIPTION\n"
    "  Diagnoses as cudaload doctor does with the same arguments, then\n"
    "  prints every problem with its fix, each step marked with what fix\n"
    "  does with it: run (the command, exactly as it runs, and the folder\n"
    "  it records), choice, yours, refused (and why) or note. It asks once\n"
    "  before running the commands marked run, runs them one by one, each\n"
    "  shown first, stops at the first that fails, then diagnoses again and\n"
    "  prints what is left.\n"
    "\n"
    "  Safe by construction, it runs nothing but installs of NVIDIA's\n"
    "  wheels: an environment's own pip (its interpreter by path, never a\n"
    "  shell) for packages the catalog's wheel table names, never a name\n"
    "  from the error text or a program's metadata, with PEP 440 versions;\n"
    "  pip gets --only-binary=:all: (no source build runs code) and\n"
    "  --no-input. It installs only into a venv or conda environment (or a\n"
    "  --target folder inside one) that the user it runs as owns and no\n"
    "  other user can write to: never into a system interpreter, never as\n"
    "  root into a user's venv. A choice (one install per CUDA major) is\n"
    "  shown, not run: say the major (--require cuda=12) or the program\n"
    "  (--for PROGRAM) and run fix again. Variables, programs to run and\n"
    "  other commands are yours to run.\n"
    "\n"
    "  A library installed beside the environment (pip --target, which keeps\n"
    "  pip from replacing torch's cuDNN 9 with cuDNN 8) is recorded in the\n"
    "  environment's cudaload.roots, beside its site-packages\n"
    "  (docs/scan-contract.md): later scans, setup(), env, exec, doctor and\n"
    "  explain find it with no --root. pip reads its own configuration\n"
    "  (PIP_INDEX_URL, PIP_FIND_LINKS, pip.conf) as it always does.\n"
    "\n",
    "OPTIONS\n"
    "  -e, --error TEXT    the error message a program printed (- reads\n"
    "                      standard input), as for cudaload doctor\n"
    "  -q, --require SPEC  a requirement, as for cudaload doctor (cuda=12\n"
    "                      says the CUDA major a choice needs)\n"
    "  --for TARGET        require what a program needs (a module such as\n"
    "                      ctranslate2, a binary, an interpreter or a venv)\n"
    "  -m, --manifest FILE read requirements and roots from a cudaload.yaml\n"
    "  -r, --root DIR      search DIR first (may be repeated)\n"
    "  --environment DIR   search DIR as the active environment\n"
    "  --no-defaults       search only the --root and manifest folders\n"
    "  --allow-writable-roots\n"
    "                      accept roots other users can write to (fix\n"
    "                      still installs nowhere others can write)\n"
    "  -n, --dry-run       print what would run; run nothing\n"
    "  -y, --yes           run without asking (where nothing can be asked:\n"
    "                      without it and without a terminal, fix refuses)\n"
    "  -h, --help          show this help\n"
    "\n"
    "EXIT STATUS\n"
    "  0  nothing is left: no problem before, or none after the fix\n"
    "  1  internal error (out of memory, output could not be written)\n"
    "  2  usage error, or commands to run and no terminal to ask at and no\n"
    "     --yes (nothing is run)\n"
    "  3  the manifest could not be read or is invalid\n"
    "  6  problems are left: after the fix, after --dry-run, or when the\n"
    "     answer was no\n"
    "  7  a command it ran failed: it stopped there (standard error names\n"
    "     it, its exit status, and what was done before it)\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload fix --for ctranslate2\n"
    "  cudaload fix --dry-run --error \"Could not load library "
    "libcudnn_ops_infer.so.8\"\n"
    "  cudaload fix --require cudnn=8,cuda=12 --yes\n",
    NULL};

/* A step the library runs: problem i, step s, and the line it shows. */
typedef struct runnable {
  size_t problem, step;
  char *line;
} runnable;

/* Whether an answer can be asked: standard input and output at a
 * terminal. */
static int can_ask(void) {
#ifdef _WIN32
  return _isatty(_fileno(stdin)) && _isatty(_fileno(stdout));
#else
  return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
#endif
}

/* 1 for an answer that means yes ("y", "yes", any case). */
static int ask_yes(size_t count) {
  printf("\nRun %s %lu command%s? [y/N] ", count == 1 ? "this" : "these",
         (unsigned long)count, count == 1 ? "" : "s");
  fflush(stdout);
  char answer[32];
  if (!fgets(answer, sizeof answer, stdin))
    return 0;
  size_t n = strcspn(answer, "\r\n");
  answer[n] = '\0';
  for (size_t i = 0; i < n; ++i)
    if (answer[i] >= 'A' && answer[i] <= 'Z')
      answer[i] = (char)(answer[i] - 'A' + 'a');
  return strcmp(answer, "y") == 0 || strcmp(answer, "yes") == 0;
}

/* The steps that run, in order; *count. EXIT_OK or EXIT_INTERNAL. */
static int runnable_steps(const char *cmd, cudaload_ctx *ctx, runnable **out,
                          size_t *count) {
  *out = NULL;
  *count = 0;
  size_t capacity = 0;
  for (size_t i = 0; i < cudaload_doctor_problem_count(ctx); ++i)
    for (size_t s = 0; s < cudaload_doctor_fix_step_count(ctx, i); ++s) {
      if (cudaload_fix_step_check(ctx, i, s) != CUDALOAD_OK)
        continue;
      const char *line = cudaload_fix_step_command(ctx, i, s);
      /* Two problems with one fix: the command runs once. */
      int again = 0;
      for (size_t k = 0; line && k < *count && !again; ++k)
        again = strcmp((*out)[k].line, line) == 0;
      if (again)
        continue;
      if (*count == capacity) {
        capacity = capacity ? capacity * 2 : 4;
        runnable *grown = realloc(*out, capacity * sizeof **out);
        if (!grown) {
          cli_error("cudaload: %s: out of memory\n", cmd);
          return EXIT_INTERNAL;
        }
        *out = grown;
      }
      runnable *r = &(*out)[(*count)++];
      r->problem = i;
      r->step = s;
      size_t n = line ? strlen(line) + 1 : 0;
      r->line = n ? malloc(n) : NULL;
      if (r->line)
        memcpy(r->line, line, n);
      if (!r->line) {
        cli_error("cudaload: %s: out of memory\n", cmd);
        return EXIT_INTERNAL;
      }
    }
  return EXIT_OK;
}

static void runnables_free(runnable *r, size_t count) {
  for (size_t i = 0; i < count; ++i)
    free(r[i].line);
  free(r);
}

/* The doctor's short text of ctx (rescanned: the fix changed the disk),
 * printed under "What is left"; EXIT_OK, EXIT_PROBLEMS or EXIT_INTERNAL. */
static int print_what_is_left(const char *cmd, cudaload_ctx *ctx) {
  if (cudaload_scan(ctx) != CUDALOAD_OK) {
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    return EXIT_INTERNAL;
  }
  unsigned flags = CUDALOAD_DOCTOR_SHORT;
  if (cli_want_color())
    flags |=
        CUDALOAD_DOCTOR_COLOR | (cli_want_marks() ? CUDALOAD_DOCTOR_MARKS : 0);
  char *report = NULL;
  int status = cudaload_doctor(ctx, CUDALOAD_FORMAT_TEXT, flags, &report);
  fputs("\nWhat is left (cudaload doctor with the same arguments):\n", stdout);
  int rc = cli_print_report(cmd, status, report);
  if (rc == EXIT_OK && cudaload_doctor_problem_count(ctx))
    rc = EXIT_PROBLEMS;
  return rc;
}

/* Run the steps in order, each shown first; stop at the first that fails,
 * saying what was done before it. */
static int run_steps(const char *cmd, cudaload_ctx *ctx, const runnable *r,
                     size_t count) {
  for (size_t k = 0; k < count; ++k) {
    printf("\n$ %s\n", cli_shown(r[k].line));
    if (cli_finish_output(cmd) != EXIT_OK)
      return EXIT_INTERNAL;
    if (cudaload_fix_step_run(ctx, r[k].problem, r[k].step) == CUDALOAD_OK)
      continue;
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    cli_error("cudaload: %s: stopped at command %lu of %lu; ", cmd,
              (unsigned long)(k + 1), (unsigned long)count);
    if (k == 0)
      cli_error("nothing was done before it\n");
    for (size_t d = 0; d < k; ++d)
      cli_error("%s%s%s", d ? "" : "done before it: ", r[d].line,
                d + 1 < k ? "; " : "\n");
    return EXIT_FIX_FAILED;
  }
  return EXIT_OK;
}

int cli_fix(int argc, char **argv) {
  const char *cmd = "fix";
  char *manifest = NULL;
  const char *error_text = NULL;
  int dry_run = 0, yes = 0;
  cli_search_options search;
  int rc = cli_search_options_init(&search, argc);
  for (int i = 1; i < argc && rc == EXIT_OK; ++i) {
    const char *value;
    int m;
    if ((m = cli_search_option(cmd, argc, argv, &i, &search, 2))) {
      if (m < 0)
        rc = EXIT_USAGE;
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--manifest", "-m",
                                     &value))) {
      if (m < 0)
        rc = EXIT_USAGE;
      else if (manifest)
        rc = cli_usage_error(cmd, "--manifest given twice");
      else
        rc = cli_absolute_path(cmd, "--manifest", value, &manifest);
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--error", "-e",
                                     &value))) {
      if (m < 0)
        rc = EXIT_USAGE;
      else if (error_text)
        rc = cli_usage_error(cmd, "--error given twice (put both messages "
                                  "in one text)");
      else
        error_text = value;
    } else if (strcmp(argv[i], "--dry-run") == 0 ||
               strcmp(argv[i], "-n") == 0) {
      dry_run = 1;
    } else if (strcmp(argv[i], "--yes") == 0 || strcmp(argv[i], "-y") == 0) {
      yes = 1;
    } else if (argv[i][0] == '-') {
      rc = cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      rc = cli_usage_error(cmd,
                           "unexpected argument '%s' (use --require SPEC, "
                           "--for TARGET or --error TEXT)",
                           argv[i]);
    }
  }
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = cli_search_context(cmd, &search, &ctx);
  if (rc == EXIT_OK && error_text)
    rc = cli_read_error_message(cmd, ctx, error_text);
  if (rc == EXIT_OK && manifest)
    rc = cli_load_manifest(cmd, ctx, manifest);
  /* The diagnosis: its records are what fix reads. */
  char *text = NULL;
  if (rc == EXIT_OK) {
    int status = cudaload_doctor(ctx, CUDALOAD_FORMAT_TEXT,
                                 CUDALOAD_DOCTOR_SHORT, &text);
    cudaload_free(text);
    text = NULL;
    if (status == CUDALOAD_OK)
      status = cudaload_fix_report(ctx, CUDALOAD_FORMAT_TEXT, &text);
    rc = cli_print_report(cmd, status, text);
  }
  runnable *steps = NULL;
  size_t count = 0;
  if (rc == EXIT_OK && cudaload_doctor_problem_count(ctx) == 0)
    goto done; /* nothing to fix: the report said so */
  if (rc == EXIT_OK)
    rc = runnable_steps(cmd, ctx, &steps, &count);
  if (rc == EXIT_OK && (dry_run || count == 0)) {
    printf("\n%s\n", dry_run ? "--dry-run: nothing was run."
                             : "Nothing here for cudaload fix to run: the "
                               "steps above are yours.");
    rc = cli_finish_output(cmd);
    if (rc == EXIT_OK)
      rc = EXIT_PROBLEMS;
    goto done;
  }
  if (rc == EXIT_OK && !yes && !can_ask()) {
    cli_error("cudaload: %s: %lu command%s to run, and no terminal to ask "
              "before running %s (standard input or output is not one): "
              "nothing was run; pass --yes to run %s, or --dry-run\n",
              cmd, (unsigned long)count, count == 1 ? "" : "s",
              count == 1 ? "it" : "them", count == 1 ? "it" : "them");
    rc = EXIT_USAGE;
    goto done;
  }
  if (rc == EXIT_OK && !yes && !ask_yes(count)) {
    printf("Nothing was run.\n");
    rc = cli_finish_output(cmd);
    if (rc == EXIT_OK)
      rc = EXIT_PROBLEMS;
    goto done;
  }
  if (rc == EXIT_OK)
    rc = run_steps(cmd, ctx, steps, count);
  if (rc == EXIT_OK)
    rc = print_what_is_left(cmd, ctx);
done:
  runnables_free(steps, count);
  cudaload_destroy(ctx);
  cli_search_options_free(&search);
  free(manifest);
  return rc;
}
