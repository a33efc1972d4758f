/* SPDX-License-Identifier: MIT */
/*
 * fix_steps.h - a fix as data (fix_steps.c): the steps a user (or `cudaload
 * fix`) follows, in order, each a command as its words with the variables
 * it needs, or a note in words. Whoever finds a problem builds its fix
 * here; the reports print the steps for the user's shell, JSON and YAML
 * write them as they are, and nothing parses a printed line back.
 */
#ifndef CUDALOAD_FIX_STEPS_H
#define CUDALOAD_FIX_STEPS_H

#include "common/buf.h"
#include "common/shell_word.h"

#include <stddef.h>

/* One step. action is a CUDALOAD_FIX_* value (cudaload.h): what the
 * command does, so that a program can tell an install it may run from a
 * command that starts the user's program, without reading the words. */
typedef struct cl_fix_step {
  int action;
  char **argv; /* the command's words, as the program receives them */
  size_t argc, argv_capacity;
  char **env; /* "NAME=value": set for the command, or, with no words, in
                 the shell the user goes on in (CUDALOAD_FIX_SET_VARIABLE) */
  size_t env_count, env_capacity;
  char *note; /* words for a person: after the command, or the step itself */
} cl_fix_step;

typedef struct cl_fix {
  cl_fix_step *steps;
  size_t count, capacity;
  int failed; /* a step was lost to out of memory: the fix is incomplete */
} cl_fix;

#define CL_FIX_INIT                                                            \
  { NULL, 0, 0, 0 }

/* The action's name in reports: "note", "install", "set-variable",
 * "run-program", "command", "choice"; NULL for none. */
const char *cl_fix_action_name(int action);

/* A new step of action at the end of fix, or NULL (and fix->failed) when
 * out of memory; the adds below do nothing with a NULL step. */
cl_fix_step *cl_fix_add(cl_fix *fix, int action);
/* The next word of step's command. */
void cl_fix_arg(cl_fix *fix, cl_fix_step *step, const char *word);
/* A variable the step sets: NAME=value. */
void cl_fix_env(cl_fix *fix, cl_fix_step *step, const char *name,
                const char *value);
/* The step's note (printf-style); replaces an earlier one. */
void cl_fix_note(cl_fix *fix, cl_fix_step *step, const char *format, ...)
    CL_PRINTF(3, 4);
/* A step that is only a note. */
void cl_fix_add_note(cl_fix *fix, const char *format, ...) CL_PRINTF(2, 3);

/* A deep copy of from appended to to (its steps after to's). */
void cl_fix_append(cl_fix *to, const cl_fix *from);
void cl_fix_free(cl_fix *fix);

/* The fix as one line for a person, each command written for shell kind
 * (shell_word.h) and followed by its note, steps joined by "; ". A word no
 * spelling keeps literal (cmd and PowerShell) is written as a placeholder
 * named after it in the note; a command's note follows it after "; ".
 * Appended to b. */
void cl_fix_line(cl_buf *b, const cl_fix *fix, cl_shell_kind kind);
/* The same, malloc'ed; NULL when out of memory or fix->failed. */
char *cl_fix_line_text(const cl_fix *fix, cl_shell_kind kind);
/* One command step as the shell line it is (variables first: POSIX
 * "NAME=value cmd ...", "export NAME=value" alone; Windows 'set
 * "NAME=value"' before it, and alone PowerShell's $env:NAME = '...' too),
 * without its note; 0 when a word cannot be
 * spelled for kind (then the line holds the words that could). */
int cl_fix_command_line(cl_buf *b, const cl_fix_step *step, cl_shell_kind kind);

#endif
