/*
 * cudaload.c - the command-line tool: dispatch, shared option parsing and
 * the top-level help. Each subcommand lives in its own cli_*.c file.
 */
#include "cli.h"
#include "cudaload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char main_help[] =
    "NAME\n"
    "  cudaload - find, inspect and load CUDA libraries\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload [--help] [--version] COMMAND [ARGS]\n"
    "  cudaload help COMMAND\n"
    "\n"
    "DESCRIPTION\n"
    "  cudaload finds cuBLAS, cuDNN, cudart and their relatives on disk by\n"
    "  their naming conventions (pip wheels, conda, toolkits, installer\n"
    "  folders, the system) and tells their exact versions without loading\n"
    "  them.\n"
    "\n"
    "COMMANDS\n"
    "  scan      list the CUDA libraries found under the search roots\n"
    "  inspect   show the ELF or PE headers of library files\n"
    "  env       print the library search path for requirements\n"
    "  exec      run a program with its CUDA libraries on the search path\n"
    "  probe     tell whether the GPU is usable, stage by stage\n"
    "  doctor    diagnose the CUDA setup and print a fix for each problem\n"
    "  help      show the help of a command\n"
    "\n"
    "OPTIONS\n"
    "  -h, --help     show this help and exit\n"
    "  -V, --version  print the version and exit\n"
    "\n"
    "EXIT STATUS\n"
    "  0  success\n"
    "  1  internal error (out of memory, output could not be written)\n"
    "  2  usage error (unknown command or option, missing argument)\n"
    "  3  unreadable or malformed input (a file, or a root that does not\n"
    "     exist)\n"
    "  4  a requirement has no usable library (env, exec)\n"
    "  5  the GPU is not usable: the probe falls back to CPU (probe)\n"
    "  6  the doctor found problems (doctor)\n"
    "\n"
    "  Reports go to standard output; warnings and errors go to standard\n"
    "  error, each naming the file and the reason.\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload scan\n"
    "  cudaload scan --no-defaults --root \"$VIRTUAL_ENV\" --format json\n"
    "  cudaload inspect /usr/local/cuda/lib64/libcublas.so.13\n";

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "cudaload: %s%s", command ? command : "",
          command ? ": " : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'cudaload %s%s--help'.\n", command ? command : "",
          command ? " " : "");
  return EXIT_USAGE;
}

int cli_parse_format(const char *command, const char *value, int allow_yaml,
                     cl_report_format *out) {
  if (strcmp(value, "text") == 0)
    *out = CL_REPORT_TEXT;
  else if (strcmp(value, "json") == 0)
    *out = CL_REPORT_JSON;
  else if (allow_yaml && strcmp(value, "yaml") == 0 &&
           !cl_report_format_supported(CL_REPORT_YAML))
    return cli_usage_error(command, "this build has no YAML support (built "
                                    "with CUDALOAD_WITH_YAML=OFF)");
  else if (allow_yaml && strcmp(value, "yaml") == 0)
    *out = CL_REPORT_YAML;
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

int cli_print_report(const char *command, cl_report_writer *w) {
  size_t len = 0;
  char *text = cl_report_writer_finish(w, &len);
  int ok = text && fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
  free(text);
  if (!ok)
    fprintf(stderr, "cudaload: %s: could not write the report\n", command);
  return ok ? EXIT_OK : EXIT_INTERNAL;
}

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} command;

static const command commands[] = {
    {"scan", cli_scan, cli_scan_help},
    {"inspect", cli_inspect, cli_inspect_help},
    {"env", cli_env, cli_env_help},
    {"exec", cli_exec, cli_exec_help},
    {"probe", cli_probe, cli_probe_help},
    {"doctor", cli_doctor, cli_doctor_help},
};

static const command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof *commands; ++i)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static int print_text(const char *text) {
  if (fputs(text, stdout) < 0 || fflush(stdout) != 0)
    return EXIT_INTERNAL;
  return EXIT_OK;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error(NULL, "missing command (scan, inspect, env, exec)");
  const char *first = argv[1];
  if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0)
    return print_text(main_help);
  if (strcmp(first, "-V") == 0 || strcmp(first, "--version") == 0) {
    printf("cudaload %s\n", cudaload_version_string());
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
  }
  if (strcmp(first, "help") == 0) {
    if (argc < 3)
      return print_text(main_help);
    const command *c = find_command(argv[2]);
    if (!c)
      return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    return print_text(c->help);
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
      return print_text(c->help);
  }
  return c->run(argc - 1, argv + 1);
}
