/* SPDX-License-Identifier: MIT */
/*
 * main.c - the command-line tool: its entry point (wmain on Windows, which
 * makes the arguments UTF-8), dispatch, shared option parsing and
 * the top-level help, made from the one table of commands. Each subcommand
 * lives in its own cli_*.c file.
 */
#include "cli.h"
#include "cudaload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include "win32/wide.h"
#endif

/* The top-level help is made from the command table and the exit-status
 * table below, so that the list of commands, their synopses (each taken
 * from the command's own help) and the exit codes exist once; docs/cli.md
 * and the README carry copies that tests/cli/cli_docs.py checks. */
static const char main_help_head[] =
    "NAME\n"
    "  cudaload - find, inspect and load CUDA libraries\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload [--help] [--version] COMMAND [ARGS]\n"
    "  cudaload help [COMMAND]\n";

static const char main_help_description[] =
    "DESCRIPTION\n"
    "  cudaload finds cuBLAS, cuDNN, cudart and their relatives on disk by\n"
    "  their naming conventions (pip wheels, conda, toolkits, installer\n"
    "  folders, the system), tells their exact versions without loading\n"
    "  them, puts what a program needs on its search path, tells whether\n"
    "  the GPU is usable, and diagnoses why a CUDA library would not load.\n"
    "  Paths given on the command line may be relative to the current\n"
    "  folder; reports show them absolute.\n";

static const char main_help_options[] =
    "OPTIONS\n"
    "  -h, --help     show this help and exit\n"
    "  -V, --version  print the version and exit\n";

static const char main_help_tail[] =
    "  Reports go to standard output; warnings and errors go to standard\n"
    "  error, each naming the file and the reason.\n"
    "\n"
    "ENVIRONMENT\n"
    "  CUDALOAD_CACHE_PATH     the folder of the names store, which keeps\n"
    "                          the library names each CUDA library holds\n"
    "                          (found once, read by later runs) (default:\n"
    "                          $XDG_CACHE_HOME/cudaload, ~/.cache/cudaload;\n"
    "                          Windows: %LOCALAPPDATA%\\cudaload)\n"
    "  CUDALOAD_CACHE_DISABLE  1: no names store is read or written\n"
    "  CUDALOAD_KNOWN_BUILDS_DISABLE\n"
    "                          1: search every library for the names it\n"
    "                          opens, also NVIDIA's released builds, whose\n"
    "                          names the tool knows (to check them)\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload doctor --require cudnn=9,cublas=13\n"
    "  cudaload scan --no-defaults --root \"$VIRTUAL_ENV\" --format json\n"
    "  cudaload inspect /usr/local/cuda/lib64/libcublas.so.13\n";

typedef struct exit_status {
  const char *codes;
  const char *meaning;
} exit_status;

static const exit_status exit_statuses[] = {
    {"0", "success"},
    {"1", "internal error (out of memory, output could not be written)"},
    {"2", "usage error (unknown command or option, missing argument)"},
    {"3", "unreadable or malformed input (a file, or a root that does not "
          "exist)"},
    {"4", "a requirement has no usable library (env, exec, include-dir)"},
    {"5", "the GPU is not usable: the probe falls back to CPU (probe)"},
    {"6", "the report lists problems (doctor, explain), or problems are "
          "left (fix)"},
    {"7", "fix: a command it ran failed; it stopped there"},
    {"126", "exec: COMMAND could not be executed"},
    {"127", "exec: COMMAND was not found (otherwise exec exits with "
            "COMMAND's status)"},
};

int cli_usage_error(const char *command, const char *fmt, ...) {
  /* The message echoes what was typed: shown escaped, like every message. */
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  cli_error("cudaload: %s%s%s\nTry 'cudaload %s%s--help'.\n",
            command ? command : "", command ? ": " : "", message,
            command ? command : "", command ? " " : "");
  return EXIT_USAGE;
}

int cli_parse_format(const char *command, const char *value, int allow_yaml,
                     int *out) {
  if (strcmp(value, "text") == 0)
    *out = CUDALOAD_FORMAT_TEXT;
  else if (strcmp(value, "json") == 0)
    *out = CUDALOAD_FORMAT_JSON;
  else if (allow_yaml && strcmp(value, "yaml") == 0)
    *out = CUDALOAD_FORMAT_YAML;
  else
    return cli_usage_error(command,
                           "unknown format '%s' (expected text, json%s)", value,
                           allow_yaml ? " or yaml" : "");
  return EXIT_OK;
}

int cli_option_value(const char *command, int argc, char **argv, int *i,
                     const char *long_name, const char *short_name,
                     const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(long_name);
  if (strncmp(arg, long_name, n) == 0 && arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (strcmp(arg, long_name) != 0 &&
      !(short_name && strcmp(arg, short_name) == 0))
    return 0;
  if (*i + 1 >= argc) {
    cli_usage_error(command, "option '%s' needs a value", arg);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

int cli_print_report(const char *command, int status, char *report) {
  if (status != CUDALOAD_OK || !report) {
    cli_error("cudaload: %s: %s\n", command, cudaload_last_error());
    cudaload_free(report);
    return EXIT_INTERNAL;
  }
  fputs(report, stdout);
  cudaload_free(report);
  return cli_finish_output(command);
}

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  /* NAME, SYNOPSIS, ... as `cudaload help NAME` prints, in parts (NAME and
   * SYNOPSIS in the first), NULL-terminated. */
  const char *const *help;
} command;

/* Every command, in the order the help lists them. */
static const command commands[] = {
    {"scan", cli_scan, cli_scan_help},
    {"inspect", cli_inspect, cli_inspect_help},
    {"env", cli_env, cli_env_help},
    {"exec", cli_exec, cli_exec_help},
    {"probe", cli_probe, cli_probe_help},
    {"doctor", cli_doctor, cli_doctor_help},
    {"fix", cli_fix, cli_fix_help},
    {"explain", cli_explain, cli_explain_help},
    {"include-dir", cli_include_dir, cli_include_dir_help},
};
enum { COMMAND_COUNT = sizeof commands / sizeof *commands };

static const command *find_command(const char *name) {
  for (size_t i = 0; i < COMMAND_COUNT; ++i)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

/* The lines of a help text's section (after "TITLE\n", up to the blank line
 * that ends it), or an empty span. */
static void help_section(const char *help, const char *title,
                         const char **begin, size_t *len) {
  size_t title_len = strlen(title);
  const char *p = help;
  *begin = "";
  *len = 0;
  while (*p) {
    const char *eol = strchr(p, '\n');
    if (!eol)
      return;
    if ((size_t)(eol - p) == title_len && strncmp(p, title, title_len) == 0) {
      const char *end = strstr(eol + 1, "\n\n");
      *begin = eol + 1;
      *len = end ? (size_t)(end - *begin) + 1 : strlen(*begin);
      return;
    }
    p = eol + 1;
  }
}

/* "  cudaload scan - list the ..." (maybe wrapped) -> "list the ...". */
static void print_summary(FILE *out, const command *c) {
  const char *name;
  size_t len;
  help_section(c->help[0], "NAME", &name, &len);
  const char *dash = strstr(name, " - ");
  const char *text = dash && (size_t)(dash - name) < len ? dash + 3 : name;
  const char *end = name + len;
  enum { INDENT = 15, WIDTH = 79 }; /* "include-dir" and two spaces */
  int column = fprintf(out, "  %-*s", INDENT - 2, c->name);
  while (text < end) {
    while (text < end && (*text == ' ' || *text == '\n'))
      ++text;
    const char *word = text;
    while (text < end && *text != ' ' && *text != '\n')
      ++text;
    int word_len = (int)(text - word);
    if (word_len == 0)
      break;
    if (column > INDENT && column + 1 + word_len > WIDTH)
      column = fprintf(out, "\n%*s", INDENT, "") - 1;
    else if (column > INDENT)
      column += fprintf(out, " ");
    column += fprintf(out, "%.*s", word_len, word);
  }
  fputc('\n', out);
}

static int print_main_help(void) {
  FILE *out = stdout;
  fputs(main_help_head, out);
  for (size_t i = 0; i < COMMAND_COUNT; ++i) {
    const char *synopsis;
    size_t len;
    help_section(commands[i].help[0], "SYNOPSIS", &synopsis, &len);
    fprintf(out, "%.*s", (int)len, synopsis);
  }
  fputs("\n", out);
  fputs(main_help_description, out);
  fputs("\nCOMMANDS\n", out);
  for (size_t i = 0; i < COMMAND_COUNT; ++i)
    print_summary(out, &commands[i]);
  fprintf(out, "  %-13s%s\n\n", "help", "show the help of a command");
  fputs(main_help_options, out);
  fputs("\nEXIT STATUS\n", out);
  for (size_t i = 0; i < sizeof exit_statuses / sizeof *exit_statuses; ++i)
    fprintf(out, "  %-5s%s\n", exit_statuses[i].codes,
            exit_statuses[i].meaning);
  fputs("\n", out);
  fputs(main_help_tail, out);
  return cli_finish_output("help");
}

/* "scan, inspect, env, exec, probe, doctor" for the missing-command error. */
static int missing_command(void) {
  char names[128] = "";
  for (size_t i = 0; i < COMMAND_COUNT; ++i) {
    if (i)
      strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, commands[i].name, sizeof names - strlen(names) - 1);
  }
  return cli_usage_error(NULL, "missing command (%s, help)", names);
}

static int print_help(const char *const *parts) {
  for (; *parts; ++parts)
    fputs(*parts, stdout);
  return cli_finish_output("help");
}

/* The tool itself, on arguments in UTF-8. */
static int run_tool(int argc, char **argv) {
  if (argc < 2)
    return missing_command();
  const char *first = argv[1];
  if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0)
    return print_main_help();
  if (strcmp(first, "-V") == 0 || strcmp(first, "--version") == 0) {
    printf("cudaload %s\n", cudaload_version_string());
    return cli_finish_output("version");
  }
  if (strcmp(first, "help") == 0) {
    if (argc < 3)
      return print_main_help();
    const command *c = find_command(argv[2]);
    if (!c)
      return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    return print_help(c->help);
  }
  if (first[0] == '-')
    return cli_usage_error(NULL, "unknown option '%s'", first);
  const command *c = find_command(first);
  if (!c)
    return cli_usage_error(NULL, "unknown command '%s'", first);
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--") == 0)
      break;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      return print_help(c->help);
  }
  return c->run(argc - 1, argv + 1);
}

#ifdef _WIN32
/*
 * Windows hands `main` its arguments in the ANSI code page ("José" arrives
 * as "Jos\xE9" in code page 1252, "日本" as "??"), while the library and
 * every report take UTF-8. So the tool starts at wmain (mingw: -municode,
 * tools/CMakeLists.txt), takes the command line as UTF-16, the form Windows
 * keeps it in, and converts it to UTF-8 once, here. Not CommandLineToArgvW:
 * it parses the same way but needs shell32.dll; not an activeCodePage UTF-8
 * manifest: Windows before 10 version 1903 ignores it silently and the
 * arguments would be mangled again (docs/architecture.md, "The tool and
 * the bindings").
 */
int wmain(int argc, wchar_t **wargv) {
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  if (!argv) {
    fputs("cudaload: out of memory\n", stderr);
    return EXIT_INTERNAL;
  }
  int rc = EXIT_OK;
  for (int i = 0; i < argc && rc == EXIT_OK; ++i) {
    argv[i] = cl_os_wide_to_utf8(wargv[i], -1);
    /* An unpaired surrogate (which Windows allows in a command line) has
     * no UTF-8 form: no file or variable the library could be given. */
    if (!argv[i])
      rc = cli_usage_error(NULL,
                           "argument %d has no UTF-8 form (it holds an "
                           "unpaired UTF-16 surrogate)",
                           i);
  }
  if (rc == EXIT_OK) {
    cli_console_utf8();
    rc = run_tool(argc, argv);
    cli_console_restore();
  }
  for (int i = 0; i < argc; ++i)
    free(argv[i]);
  free(argv);
  return rc;
}
#else
int main(int argc, char **argv) {
  return run_tool(argc, argv);
}
#endif
