/* SPDX-License-Identifier: MIT */
/*
 * cli_doctor.c - `cudaload doctor`: the whole diagnosis (cudaload_doctor())
 * for requirements from the command line and/or a cudaload.yaml manifest,
 * with an exit status a script can act on.
 */
#include "cli.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

const char *const cli_doctor_help[] = {
    "NAME\n"
    "  cudaload doctor - diagnose why CUDA libraries would not load, and say\n"
    "  how to fix it\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload doctor [--error TEXT] [--require SPEC]... [--for TARGET]...\n"
    "                  [--manifest FILE]\n"
    "                  [--root DIR]... [--no-defaults] [--probe]\n"
    "                  [--out-of-process] [--verbose]\n"
    "                  [--format text|json|yaml]\n"
    "\n"
    "DESCRIPTION\n"
    "  Prints the answer first, on one screen: a line that says it all, one\n"
    "  line per requirement (ok or FAIL, its version, folder and where it\n"
    "  came from), then each problem with its fix, each command alone on\n"
    "  its line, ready to paste. --verbose prints the whole report in\n"
    "  sections (docs/doctor.md): Error message (what it means); Platform;\n"
    "  Driver; Libraries found (versions and where they came from); Plan\n"
    "  (the files for each requirement in load order, and why); Loaded in\n"
    "  this process; Conflicts; Probe; Display watchdog (Windows: TDR);\n"
    "  Environment (the CUDA variables set); Problems and fixes; Notes\n"
    "  (what stops nothing loading).\n"
    "\n"
    "  The loader model judges the process with the plan loaded and as it\n"
    "  is; what fails only without cudaload says so, with the fix. With\n"
    "  --for, the program's own files are opened as the program opens them.\n"
    "\n"
    "  Problems looked for (docs/doctor.md lists every kind): what the\n"
    "  --error message shows here, requirements without a usable library,\n"
    "  roots, files the loader would not find or that lack symbols, copies\n"
    "  put first or loaded already, conflicts, the driver, libz.so.1 for\n"
    "  cuDNN 9, a sub-library without its main one, the probe's verdict and\n"
    "  the devices, CUDA variables that stop everything.\n"
    "\n"
    "  Colour at a terminal, unless NO_COLOR is set and not empty or TERM is\n"
    "  dumb (on Linux: or unset). json and yaml follow one schema with\n"
    "  \"schema_version\": 3 (docs/doctor.md): each problem a record (kind,\n"
    "  facts and their sources, fix steps as argv); scripts read that.\n"
    "\n",
    "OPTIONS\n"
    "  -e, --error TEXT    the error message a program printed (a whole\n"
    "                      log is fine; - reads standard input, any size);\n"
    "                      its requirements are added (error-messages.md)\n"
    "  -q, --require SPEC  a requirement: FAMILY[OP VERSION], OP one of =\n"
    "                      == >= > <= <; several may be given, or joined\n"
    "                      with commas: cudnn=8,cudnn=9  cublas=12  cudart\n"
    "                      cudnn_ops_infer=8  libcublasLt.so.12\n"
    "  --for TARGET        require what a program needs: a binary, a Python\n"
    "                      interpreter or venv, or an installed module\n"
    "                      (torch); see cudaload env --help\n"
    "  -m, --manifest FILE read requirements, roots (relative to FILE's\n"
    "                      folder), policy and probe: true from a "
    "cudaload.yaml\n"
    "  -r, --root DIR      search DIR first (may be repeated; relative to\n"
    "                      the current folder)\n"
    "  --environment DIR   search DIR as the active environment (may be\n"
    "                      repeated): instead of VIRTUAL_ENV, CONDA_PREFIX\n"
    "                      and the python3 on PATH\n"
    "  --no-defaults       search only the --root and manifest folders\n"
    "  --allow-writable-roots\n"
    "                      accept roots other users can write to\n"
    "  --probe             run the GPU probe in this process (it loads the\n"
    "                      driver and the planned libraries)\n"
    "  --out-of-process    run the probe in a child killed after 30 s: a hung\n"
    "                      driver cannot hang the doctor (implies --probe)\n"
    "  -v, --verbose       the whole report, in sections\n"
    "  --format F          text (default), json or yaml\n"
    "  -h, --help          show this help\n"
    "\n"
    "EXIT STATUS\n"
    "  0  no problems found\n"
    "  1  internal error (out of memory, output could not be written)\n"
    "  2  usage error (unknown option, bad SPEC, an empty path, an\n"
    "     --error TEXT in no form cudaload knows)\n"
    "  3  the manifest could not be read or is invalid (stderr names the\n"
    "     file, line and column)\n"
    "  6  the report lists at least one problem\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload doctor --error \"Could not load library "
    "libcudnn_ops_infer.so.8\"\n"
    "  python app.py 2>&1 | cudaload doctor --error -\n"
    "  cudaload doctor --require cudnn=9,cublas=13\n"
    "  cudaload doctor --manifest /opt/app/cudaload.yaml --probe\n"
    "  cudaload doctor --for torch\n",
    NULL};
/* Colour only for a person at a terminal who has not asked for none
 * (https://no-color.org: NO_COLOR set and non-empty) and whose terminal
 * shows it: not TERM=dumb (Emacs' shell, editors' output panes), and on
 * POSIX not without TERM at all (a terminal that says nothing of itself;
 * Windows consoles set no TERM, and say what they show by their mode). */
int cli_want_color(void) {
  /* Read as the library reads variables: no narrow getenv on Windows. */
  char *no_color = cl_os_getenv("NO_COLOR");
  int asked_none = no_color && *no_color;
  free(no_color);
  char *term = cl_os_getenv("TERM");
  int dumb = term && strcmp(term, "dumb") == 0;
#ifndef _WIN32
  dumb |= !term || !*term;
#endif
  free(term);
  if (asked_none || dumb)
    return 0;
#ifdef _WIN32
  if (!_isatty(_fileno(stdout)))
    return 0;
  /* A console shows ANSI codes only in virtual-terminal mode. */
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (out == INVALID_HANDLE_VALUE || !GetConsoleMode(out, &mode))
    return 0;
  return SetConsoleMode(out, mode | 0x0004 /* VIRTUAL_TERMINAL_PROCESSING */)
             ? 1
             : 0;
#else
  return isatty(STDOUT_FILENO);
#endif
}

/* Whether the terminal that shows colour also shows the marks (U+2713,
 * U+2717): a UTF-8 locale on POSIX (LC_ALL, else LC_CTYPE, else LANG, as
 * setlocale reads them); a Windows console, which the tool puts in code
 * page 65001 while it runs (cli_console_utf8). */
int cli_want_marks(void) {
  if (!cli_want_color())
    return 0;
#ifdef _WIN32
  return GetConsoleOutputCP() == 65001;
#else
  static const char *const names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    char *value = cl_os_getenv(names[i]);
    if (value && *value) {
      int utf8 = strstr(value, "UTF-8") || strstr(value, "utf-8") ||
                 strstr(value, "UTF8") || strstr(value, "utf8");
      free(value);
      return utf8;
    }
    free(value);
  }
  return 0;
#endif
}

/* Standard input as --error - reads it. A log may be of any size and
 * holds its traceback at the end: all of it is read, in chunks, keeping
 * its first CUDALOAD_ERROR_TEXT_HEAD bytes and, in a ring, its last
 * CUDALOAD_ERROR_TEXT_TAIL + 2, the policy cudaload_read_error_text()
 * applies (the 2 bytes over its limit make it apply it, cutting at line
 * ends, and keep a UTF-16 text's code units whole, the stream having an
 * even length). Bytes as they come (binary mode on Windows: UTF-16 and
 * CR LF pass unchanged). *text malloc'ed, *len its length, *total what the
 * stream held; EXIT_OK or the exit status with the message printed. */
typedef struct stdin_text {
  char *bytes;
  size_t len, total;
} stdin_text;

/* Rotate b[0..n) left by k, in place (the ring's oldest byte first). */
static void rotate(char *b, size_t n, size_t k) {
  for (size_t part = 0; part < 3; ++part) {
    size_t from = part == 0 ? 0 : part == 1 ? k : 0;
    size_t to = part == 0 ? k : n;
    for (size_t i = from, j = to; i + 1 < j; ++i, --j) {
      char t = b[i];
      b[i] = b[j - 1];
      b[j - 1] = t;
    }
  }
}

static int read_stdin(const char *cmd, stdin_text *out) {
  const size_t head = CUDALOAD_ERROR_TEXT_HEAD,
               ring = (size_t)CUDALOAD_ERROR_TEXT_TAIL + 2;
  size_t cap = 1 << 16, len = 0, ring_at = 0, total = 0;
  char *text = malloc(cap);
  char chunk[1 << 16];
#ifdef _WIN32
  _setmode(_fileno(stdin), _O_BINARY);
#endif
  while (text) {
    size_t n = fread(chunk, 1, sizeof chunk, stdin);
    if (n == 0)
      break;
    total += n;
    for (size_t i = 0; i < n;) {
      if (len < head + ring) { /* still filling: head, then the ring */
        size_t take = n - i;
        if (take > head + ring - len)
          take = head + ring - len;
        if (len + take > cap) {
          size_t bigger = cap;
          while (bigger < len + take)
            bigger *= 2;
          if (bigger > head + ring)
            bigger = head + ring;
          char *grown = realloc(text, bigger);
          if (!grown) {
            free(text);
            text = NULL;
            break;
          }
          text = grown;
          cap = bigger;
        }
        memcpy(text + len, chunk + i, take);
        len += take;
        i += take;
        continue;
      }
      /* Full: the newest bytes overwrite the ring's oldest. */
      size_t take = n - i;
      if (take > ring - ring_at)
        take = ring - ring_at;
      memcpy(text + head + ring_at, chunk + i, take);
      ring_at = (ring_at + take) % ring;
      i += take;
    }
  }
  if (!text) {
    cli_error("cudaload: %s: --error -: out of memory\n", cmd);
    return EXIT_INTERNAL;
  }
  if (ferror(stdin)) {
    cli_error("cudaload: %s: --error -: standard input could not be read\n",
              cmd);
    free(text);
    return EXIT_INTERNAL;
  }
  if (ring_at)
    rotate(text + head, ring, ring_at);
  if (total > len) {
    char sizes[160];
    snprintf(sizes, sizeof sizes,
             "held %llu bytes; read are its first %llu and its last %llu",
             (unsigned long long)total, (unsigned long long)head,
             (unsigned long long)(ring - 2));
    cli_error("cudaload: %s: --error -: standard input %s (a log's start-up "
              "messages and its traceback)\n",
              cmd, sizes);
  }
  out->bytes = text;
  out->len = len;
  out->total = total;
  return EXIT_OK;
}

int cli_read_error_message(const char *cmd, cudaload_ctx *ctx,
                           const char *value) {
  int status;
  if (strcmp(value, "-") == 0) {
    stdin_text in;
    int rc = read_stdin(cmd, &in);
    if (rc != EXIT_OK)
      return rc;
    status = cudaload_read_error_text(ctx, in.bytes, in.len);
    free(in.bytes);
  } else {
    status = cudaload_read_error_message(ctx, value);
  }
  if (status == CUDALOAD_OK)
    return EXIT_OK;
  if (status == CUDALOAD_E_NO_MEMORY) {
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    return EXIT_INTERNAL;
  }
  /* A usage error, printed whole: it lists every form read, longer than a
   * usage line. */
  cli_error("cudaload: %s: --error: %s\nTry 'cudaload %s --help'.\n", cmd,
            cudaload_last_error(), cmd);
  return EXIT_USAGE;
}

int cli_load_manifest(const char *cmd, cudaload_ctx *ctx,
                      const char *manifest) {
  int status = cudaload_load_manifest(ctx, manifest);
  if (status == CUDALOAD_OK)
    return EXIT_OK;
  cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
  return status == CUDALOAD_E_NO_MEMORY ? EXIT_INTERNAL : EXIT_INPUT;
}

int cli_doctor(int argc, char **argv) {
  const char *cmd = "doctor";
  char *manifest = NULL; /* absolute (cli_absolute_path) */
  const char *error_text = NULL;
  unsigned flags = 0;
  int format = CUDALOAD_FORMAT_TEXT, verbose = 0;
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
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--format", NULL,
                                     &value))) {
      rc = m < 0 ? EXIT_USAGE : cli_parse_format(cmd, value, 1, &format);
    } else if (strcmp(argv[i], "--verbose") == 0 ||
               strcmp(argv[i], "-v") == 0) {
      verbose = 1;
    } else if (strcmp(argv[i], "--probe") == 0) {
      flags |= CUDALOAD_DOCTOR_PROBE;
    } else if (strcmp(argv[i], "--out-of-process") == 0) {
      flags |= CUDALOAD_DOCTOR_PROBE | CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS;
    } else if (argv[i][0] == '-') {
      rc = cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      rc = cli_usage_error(cmd,
                           "unexpected argument '%s' (use --require SPEC, "
                           "--root DIR or --manifest FILE)",
                           argv[i]);
    }
  }
  /* Command-line roots and requirements first: they are what the user
   * asked for now; the manifest's follow. */
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = cli_search_context(cmd, &search, &ctx);
  if (rc == EXIT_OK && error_text)
    rc = cli_read_error_message(cmd, ctx, error_text);
  if (rc == EXIT_OK && manifest)
    rc = cli_load_manifest(cmd, ctx, manifest);
  if (rc == EXIT_OK && format == CUDALOAD_FORMAT_TEXT && cli_want_color())
    flags |= CUDALOAD_DOCTOR_COLOR;
  /* The answer first (issue 46); --verbose: every section. */
  if (format == CUDALOAD_FORMAT_TEXT && !verbose)
    flags |=
        CUDALOAD_DOCTOR_SHORT | (cli_want_marks() ? CUDALOAD_DOCTOR_MARKS : 0);
  if (rc == EXIT_OK) {
    char *report = NULL;
    int status = cudaload_doctor(ctx, format, flags, &report);
    rc = cli_print_report(cmd, status, report);
    if (rc == EXIT_OK && cudaload_doctor_problem_count(ctx))
      rc = EXIT_PROBLEMS;
  }
  cudaload_destroy(ctx);
  cli_search_options_free(&search);
  free(manifest);
  return rc;
}
