/* SPDX-License-Identifier: MIT */
/* cli.h - what the subcommands of the cudaload tool share. */
#ifndef CUDALOAD_CLI_H
#define CUDALOAD_CLI_H

#include "cudaload.h"

/* Exit codes. Their descriptions, printed by --help and checked against
 * docs/cli.md, are the table cli_exit_statuses in main.c. */
#define EXIT_OK 0
#define EXIT_INTERNAL 1    /* out of memory, write error */
#define EXIT_USAGE 2       /* bad command line */
#define EXIT_INPUT 3       /* unreadable or malformed input */
#define EXIT_UNSATISFIED 4 /* a requirement has no usable library */
/* probe: the GPU is not usable (CPU_FALLBACK) */
#define EXIT_CPU_FALLBACK 5
#define EXIT_PROBLEMS 6   /* doctor, explain, fix: problems are listed, left */
#define EXIT_FIX_FAILED 7 /* fix: a command it ran failed; it stopped there */

/* Print "cudaload: <command>: <message>" to stderr and return EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Messages on standard error: fmt as printf, the result written with
 * control bytes and bytes that are not UTF-8 shown as \xNN (its own line
 * breaks kept), since paths and names in it come from outside. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A value from outside as a text report shows it: s itself, or an escaped
 * copy valid until eight more cli_shown() calls. */
const char *cli_shown(const char *s);

/* Windows: every text the tool writes is UTF-8, which a console shows as
 * such only in code page 65001. cli_console_utf8() switches a console on
 * stdout or stderr to it (pipes and files are left alone: they receive the
 * UTF-8 bytes unchanged); cli_console_restore() flushes and gives the
 * console its code page back, before a child runs on it (exec) and when
 * the tool ends (Ctrl+C too). Elsewhere they do nothing. */
void cli_console_utf8(void);
void cli_console_restore(void);

/* Flush standard output: EXIT_OK, or EXIT_INTERNAL with a message naming
 * the command and the reason (a full disk, a closed pipe) when anything
 * written to it was lost. */
int cli_finish_output(const char *command);

/* Write a report the library made (status: what making it returned) to
 * stdout and free it; EXIT_OK, or EXIT_INTERNAL with a message naming the
 * command when it could not be made or written. */
int cli_print_report(const char *command, int status, char *report);

/* Parse --format's value into a CUDALOAD_FORMAT_*: text, json, and yaml
 * where allow_yaml (every build writes YAML). */
int cli_parse_format(const char *command, const char *value, int allow_yaml,
                     int *out);

/* Match "--name VALUE", "--name=VALUE" (and a short alias "-x VALUE").
 * Returns 1 and sets *value (advancing *i) on a match, 0 when argv[*i] is
 * another option, -1 when the value is missing (error printed). */
int cli_option_value(const char *command, int argc, char **argv, int *i,
                     const char *long_name, const char *short_name,
                     const char **value);

/* The options of every command that searches roots. */
typedef struct cli_search_options {
  const char **roots; /* --root/-r DIR, in order, as typed */
  size_t root_count;
  const char **environments; /* --environment DIR, in order, as typed */
  size_t environment_count;
  const char **specs; /* --require/-q SPEC, in order */
  size_t spec_count;
  const char **programs; /* --for TARGET, in order, as typed */
  size_t program_count;
  unsigned create_flags; /* --no-defaults, --allow-writable-roots */
} cli_search_options;

/* Room for argc roots and specs; EXIT_OK or EXIT_INTERNAL. */
int cli_search_options_init(cli_search_options *o, int argc);
void cli_search_options_free(cli_search_options *o);
/* If argv[*i] is one of those options, take it (and its value): 1; not
 * one: 0; its value is missing: -1 (message printed). takes_requirements:
 * 0 none, 1 --require, 2 --require and --for. */
int cli_search_option(const char *command, int argc, char **argv, int *i,
                      cli_search_options *o, int takes_requirements);
/* A context with the roots (made absolute: cli_absolute_path) and the
 * requirements added; EXIT_OK, or an exit code with the message printed
 * (an empty root or a bad spec: usage). */
/* Add what `target` needs (cudaload_require_for), a path made absolute
 * first; EXIT_OK, or an exit code with the message printed (a target that
 * is none of what --for takes: EXIT_INPUT). */
int cli_require_for(const char *command, cudaload_ctx *ctx, const char *target);
int cli_search_context(const char *command, const cli_search_options *o,
                       cudaload_ctx **out);

/* Run COMMAND (args[0], with args[1..count-1]) with the environment this
 * process has now, as `cudaload exec` does (cli_run.c): Linux replaces the
 * tool with it (execvp) and returns only when that fails; Windows runs it as
 * a child and returns its exit code. 126 when it could not be run (Windows:
 * a batch file, refused), 127 when it was not found; the message printed. */
int cli_run_command(char **args, int count);

/* What the doctor and fix share (cli_doctor.c): the requirements of an
 * error message (--error TEXT, or - for standard input) and of a manifest
 * (--manifest FILE, absolute), EXIT_OK or the exit status with the message
 * printed; whether standard output is a terminal that wants colour
 * (NO_COLOR, TERM) and shows the marks U+2713 and U+2717. */
int cli_read_error_message(const char *command, cudaload_ctx *ctx,
                           const char *value);
int cli_load_manifest(const char *command, cudaload_ctx *ctx,
                      const char *manifest);
int cli_want_color(void);
int cli_want_marks(void);

int cli_scan(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_env(int argc, char **argv);
int cli_exec(int argc, char **argv);
int cli_probe(int argc, char **argv);
int cli_doctor(int argc, char **argv);
int cli_fix(int argc, char **argv);
int cli_explain(int argc, char **argv);
int cli_include_dir(int argc, char **argv);
/* Each command's help, in parts (a C string literal may be at most 4095
 * characters), NULL-terminated: NAME and SYNOPSIS are in the first. */
extern const char *const cli_scan_help[];
extern const char *const cli_inspect_help[];
extern const char *const cli_env_help[];
extern const char *const cli_exec_help[];
extern const char *const cli_probe_help[];
extern const char *const cli_doctor_help[];
extern const char *const cli_fix_help[];
extern const char *const cli_explain_help[];
extern const char *const cli_include_dir_help[];

/* A path argument (--root, --driver, --manifest) as the tool uses and
 * prints it from parsing on (cli_paths.c): an absolute one as given; a
 * relative one joined to the current folder ($PWD when it names the same
 * folder as ".", else getcwd(); Windows: GetFullPathNameW), with "." and
 * ".." resolved lexically and symbolic links left alone. *out is malloc'ed.
 * EXIT_OK; EXIT_USAGE for an empty value (the message names option);
 * EXIT_INPUT when the current folder cannot be told; EXIT_INTERNAL. */
int cli_absolute_path(const char *command, const char *option,
                      const char *value, char **out);

#endif
