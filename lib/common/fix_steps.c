/* SPDX-License-Identifier: MIT */
/*
 * fix_steps.c - a fix as steps (fix_steps.h): built by whoever finds the
 * problem, printed for the user's shell by the reports.
 */
#include "common/fix_steps.h"
#include "common/strutil.h"
#include "cudaload.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *cl_fix_action_name(int action) {
  switch (action) {
  case CUDALOAD_FIX_NOTE:
    return "note";
  case CUDALOAD_FIX_INSTALL:
    return "install";
  case CUDALOAD_FIX_SET_VARIABLE:
    return "set-variable";
  case CUDALOAD_FIX_RUN_PROGRAM:
    return "run-program";
  case CUDALOAD_FIX_COMMAND:
    return "command";
  case CUDALOAD_FIX_CHOICE:
    return "choice";
  default:
    return NULL;
  }
}

const char *cudaload_fix_action_name(int action) {
  return cl_fix_action_name(action);
}

cl_fix_step *cl_fix_add(cl_fix *fix, int action) {
  if (fix->failed || cl_reserve((void **)&fix->steps, &fix->capacity,
                                fix->count + 1, sizeof *fix->steps)) {
    fix->failed = 1;
    return NULL;
  }
  cl_fix_step *s = &fix->steps[fix->count++];
  memset(s, 0, sizeof *s);
  s->action = action;
  return s;
}

static void add_word(cl_fix *fix, char ***words, size_t *count,
                     size_t *capacity, char *word) {
  if (!word ||
      cl_reserve((void **)words, capacity, *count + 1, sizeof(char *))) {
    free(word);
    fix->failed = 1;
    return;
  }
  (*words)[(*count)++] = word;
}

void cl_fix_arg(cl_fix *fix, cl_fix_step *step, const char *word) {
  if (!step || fix->failed)
    return;
  add_word(fix, &step->argv, &step->argc, &step->argv_capacity,
           cl_strdup(word));
}

void cl_fix_env(cl_fix *fix, cl_fix_step *step, const char *name,
                const char *value) {
  if (!step || fix->failed)
    return;
  add_word(fix, &step->env, &step->env_count, &step->env_capacity,
           cl_strdup_printf("%s=%s", name, value));
}

static void set_note(cl_fix *fix, cl_fix_step *step, const char *format,
                     va_list ap) CL_PRINTF(3, 0);
static void set_note(cl_fix *fix, cl_fix_step *step, const char *format,
                     va_list ap) {
  cl_buf b = CL_BUF_INIT;
  cl_buf_vprintf(&b, format, ap);
  char *note = cl_buf_take(&b);
  if (!note) {
    fix->failed = 1;
    return;
  }
  free(step->note);
  step->note = note;
}

void cl_fix_note(cl_fix *fix, cl_fix_step *step, const char *format, ...) {
  if (!step || fix->failed)
    return;
  va_list ap;
  va_start(ap, format);
  set_note(fix, step, format, ap);
  va_end(ap);
}

void cl_fix_add_note(cl_fix *fix, const char *format, ...) {
  cl_fix_step *step = cl_fix_add(fix, CUDALOAD_FIX_NOTE);
  if (!step)
    return;
  va_list ap;
  va_start(ap, format);
  set_note(fix, step, format, ap);
  va_end(ap);
}

void cl_fix_append(cl_fix *to, const cl_fix *from) {
  to->failed |= from->failed;
  for (size_t i = 0; i < from->count && !to->failed; ++i) {
    const cl_fix_step *s = &from->steps[i];
    cl_fix_step *c = cl_fix_add(to, s->action);
    for (size_t k = 0; c && k < s->argc; ++k)
      cl_fix_arg(to, c, s->argv[k]);
    for (size_t k = 0; c && k < s->env_count; ++k)
      add_word(to, &c->env, &c->env_count, &c->env_capacity,
               cl_strdup(s->env[k]));
    if (c && s->note)
      cl_fix_note(to, c, "%s", s->note);
  }
}

static void free_words(char **words, size_t count) {
  for (size_t i = 0; i < count; ++i)
    free(words[i]);
  free(words);
}

void cl_fix_free(cl_fix *fix) {
  for (size_t i = 0; i < fix->count; ++i) {
    free_words(fix->steps[i].argv, fix->steps[i].argc);
    free_words(fix->steps[i].env, fix->steps[i].env_count);
    free(fix->steps[i].note);
  }
  free(fix->steps);
  memset(fix, 0, sizeof *fix);
}

/* One word, or 0 when kind has no literal spelling of it. */
static int word(cl_buf *b, const char *w, cl_shell_kind kind) {
  return cl_buf_shell_word(b, w, kind);
}

int cl_fix_command_line(cl_buf *b, const cl_fix_step *step,
                        cl_shell_kind kind) {
  int spelled = 1;
  for (size_t i = 0; i < step->env_count; ++i) {
    const char *eq = strchr(step->env[i], '=');
    size_t name_len = eq ? (size_t)(eq - step->env[i]) : strlen(step->env[i]);
    const char *value = eq ? eq + 1 : "";
    if (kind == CL_SHELL_POSIX) {
      if (!step->argc)
        cl_buf_puts(b, i ? "; export " : "export ");
      else if (i)
        cl_buf_puts(b, " ");
      cl_buf_append(b, step->env[i], name_len);
      cl_buf_puts(b, "=");
      spelled &= word(b, value, kind);
    } else {
      /* cmd: set "NAME=value" keeps & | < > ^ and spaces in the value
       * without the quotes becoming part of it (set NAME=C:\R&D\bin would
       * run "D\bin"). A quote, a % (cmd expands %VAR% inside quotes) or a
       * line end cannot be written so: DIR stands for the value. */
      int writable = !strpbrk(value, "\"%\r\n");
      cl_buf_printf(b, "%sset \"%.*s=%s\"", i ? " & " : "", (int)name_len,
                    step->env[i], writable ? value : "DIR");
      spelled &= writable;
    }
  }
  /* Variables alone on Windows: PowerShell's form too (its set is
   * Set-Variable, not the environment). */
  if (kind != CL_SHELL_POSIX && step->env_count && !step->argc && spelled) {
    cl_buf_puts(b, " (cmd) or ");
    for (size_t i = 0; i < step->env_count; ++i) {
      const char *eq = strchr(step->env[i], '=');
      size_t name_len = eq ? (size_t)(eq - step->env[i]) : strlen(step->env[i]);
      cl_buf_printf(b, "%s$env:%.*s = '", i ? "; " : "", (int)name_len,
                    step->env[i]);
      for (const char *c = eq ? eq + 1 : ""; *c; ++c) {
        if (*c == '\'') /* '' is a quote inside PowerShell's quotes */
          cl_buf_puts(b, "'");
        cl_buf_append(b, c, 1);
      }
      cl_buf_puts(b, "'");
    }
    cl_buf_puts(b, " (PowerShell)");
  }
  if (step->env_count && step->argc)
    cl_buf_puts(b, kind == CL_SHELL_POSIX ? " " : " & ");
  for (size_t i = 0; i < step->argc; ++i) {
    if (i)
      cl_buf_puts(b, " ");
    if (!word(b, step->argv[i], kind)) {
      cl_buf_puts(b, "DIR");
      spelled = 0;
    }
  }
  return spelled;
}

void cl_fix_line(cl_buf *b, const cl_fix *fix, cl_shell_kind kind) {
  for (size_t i = 0; i < fix->count; ++i) {
    const cl_fix_step *s = &fix->steps[i];
    int command = s->argc || s->env_count;
    /* A note that leads into the next step ("if it lacks the library:")
     * is followed by it, not by a new clause. */
    const char *before = fix->steps[i ? i - 1 : 0].note;
    if (i)
      cl_buf_puts(b, before && cl_ends_with(before, ":") ? " " : "; ");
    if (command)
      cl_fix_command_line(b, s, kind);
    if (s->note)
      cl_buf_printf(b, "%s%s", command ? "; " : "", s->note);
  }
}

char *cl_fix_line_text(const cl_fix *fix, cl_shell_kind kind) {
  if (fix->failed)
    return NULL;
  cl_buf b = CL_BUF_INIT;
  cl_fix_line(&b, fix, kind);
  return cl_buf_take(&b);
}
