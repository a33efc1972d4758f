/* SPDX-License-Identifier: MIT */
/*
 * fix_run.c - cudaload_fix_*: what `cudaload fix` and cudaload.fix() ask
 * of the last doctor report's records: whether a step runs and as what
 * command (fix_check.c judges), the one report of what a fix would do,
 * and running a step. Both front ends print this report and call these
 * functions; neither judges a step or words a decision itself.
 */
#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fix_steps.h"
#include "common/strutil.h"
#include "common/text_escape.h"
#include "fix/fix_check.h"
#include "os/platform.h"
#include "problem/problem.h"

#include <stdlib.h>
#include <string.h>

static cl_shell_kind host_shell(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS
             ? CL_SHELL_CMD_AND_POWERSHELL
             : CL_SHELL_POSIX;
}

/* The command of (i, s), or NULL with the last error set and *status. */
static const cl_fix_command *command_of(cudaload_ctx *ctx, size_t i, size_t s,
                                        const char *function, int *status) {
  if (!ctx) {
    *status = cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: NULL ctx", function);
    return NULL;
  }
  const cl_fix_command *c = cl_fix_command_of(ctx, i, s, status);
  if (*status == CUDALOAD_E_NOT_FOUND)
    cl_fail(*status,
            "%s: the last doctor report has no step %zu of problem %zu",
            function, s, i);
  else if (*status)
    cl_fail(*status, "%s: out of memory", function);
  return c;
}

int cudaload_fix_step_check(cudaload_ctx *ctx, size_t i, size_t s) {
  cl_clear_error();
  int status;
  const cl_fix_command *c =
      command_of(ctx, i, s, "cudaload_fix_step_check", &status);
  if (!c)
    return status;
  if (c->status != CUDALOAD_OK)
    return cl_fail(c->status, "not run: %s", c->why ? c->why : "");
  return CUDALOAD_OK;
}

const char *cudaload_fix_step_command(cudaload_ctx *ctx, size_t i, size_t s) {
  cl_clear_error();
  int status;
  const cl_fix_command *c =
      command_of(ctx, i, s, "cudaload_fix_step_command", &status);
  return c && c->status == CUDALOAD_OK ? c->line : NULL;
}

int cudaload_fix_step_run(cudaload_ctx *ctx, size_t i, size_t s) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_fix_step_run: NULL ctx");
  const cl_problem *p = cl_problem_kept(ctx, i);
  if (!p || s >= p->fix.count)
    return cl_fail(CUDALOAD_E_NOT_FOUND,
                   "cudaload_fix_step_run: the last doctor report has no "
                   "step %zu of problem %zu",
                   s, i);
  /* Judged again now, not from what was kept: the environment may have
   * changed hands since it was shown. */
  cl_fix_command c;
  int rc = cl_fix_command_make(&p->fix.steps[s], &c);
  if (rc != CUDALOAD_OK)
    return cl_fail(rc, "cudaload_fix_step_run: out of memory");
  if (c.status != CUDALOAD_OK) {
    rc = cl_fail(c.status, "not run: %s", c.why ? c.why : "");
    cl_fix_command_free(&c);
    return rc;
  }
  int exit_code = -1;
  rc = cl_os_run_program(c.argv, &exit_code);
  if (rc == CUDALOAD_OK && exit_code != 0)
    rc = cl_fail(CUDALOAD_E_IO, "%s exited with status %d", c.line, exit_code);
  else if (rc != CUDALOAD_OK)
    rc = cl_fail(CUDALOAD_E_IO, "%s", cudaload_last_error());
  if (rc == CUDALOAD_OK)
    rc = cl_fix_command_record(&c);
  cl_fix_command_free(&c);
  if (rc == CUDALOAD_OK)
    cl_clear_error();
  return rc;
}

/* --- the report ----------------------------------------------------------- */

enum { RUN, REFUSED, CHOICE, YOURS, NOTE, DECISIONS };
static const char *const labels[DECISIONS] = {
    "run      ", "refused  ", "choice   ", "yours    ", "note     "};
static const char indent[] = "            ";

/* A value from outside (a path, a package, a problem's words), as a text
 * report shows it: control bytes and bytes that are not UTF-8 as \xNN. */
static void put_shown(cl_buf *b, const char *s) {
  if (!cl_text_needs_escape(s, 0)) {
    cl_buf_puts(b, s);
    return;
  }
  char *shown = cl_text_escaped(s, 0);
  if (shown)
    cl_buf_puts(b, shown);
  else
    b->failed = 1;
  free(shown);
}

static int decision_of(const cl_fix_step *step, const cl_fix_command *c) {
  if (c && c->status == CUDALOAD_OK)
    return RUN;
  switch (step->action) {
  case CUDALOAD_FIX_INSTALL:
    return REFUSED;
  case CUDALOAD_FIX_CHOICE:
    return CHOICE;
  case CUDALOAD_FIX_NOTE:
    return NOTE;
  default:
    return YOURS;
  }
}

static void step_text(cl_buf *b, const cl_fix_step *step,
                      const cl_fix_command *c, int decision) {
  cl_buf_printf(b, "   %s", labels[decision]);
  if (decision == RUN) {
    put_shown(b, c->line);
    cl_buf_puts(b, "\n");
    if (c->target) {
      cl_buf_printf(b, "%sthen records ", indent);
      put_shown(b, c->target);
      cl_buf_puts(b, " in ");
      put_shown(b, c->record);
      cl_buf_puts(b, "\n");
    }
    return;
  }
  int command = step->argc || step->env_count;
  if (command) {
    cl_buf line = CL_BUF_INIT;
    (void)cl_fix_command_line(&line, step, host_shell());
    char *text = cl_buf_take(&line);
    if (text)
      put_shown(b, text);
    else
      b->failed = 1;
    free(text);
    cl_buf_puts(b, "\n");
  }
  if (step->note) {
    cl_buf_puts(b, command ? indent : "");
    put_shown(b, step->note);
    cl_buf_puts(b, "\n");
  }
  if (decision == REFUSED && c && c->why) {
    cl_buf_printf(b, "%snot run: ", indent);
    put_shown(b, c->why);
    cl_buf_puts(b, "\n");
  }
}

int cudaload_fix_report(cudaload_ctx *ctx, int format, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_fix_report: NULL %s",
                   ctx ? "out" : "ctx");
  if (format != CUDALOAD_FORMAT_TEXT)
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "cudaload_fix_report: format %d (only "
                   "CUDALOAD_FORMAT_TEXT)",
                   format);
  cl_buf body = CL_BUF_INIT;
  size_t counts[DECISIONS] = {0}, problems = 0;
  for (size_t i = 0; cl_problem_kept(ctx, i); ++i) {
    const cl_problem *p = cl_problem_kept(ctx, i);
    ++problems;
    cl_buf_printf(&body, "%s%zu. ", i ? "\n" : "", i + 1);
    put_shown(&body, p->text ? p->text : "");
    cl_buf_puts(&body, "\n");
    char *choice_why = NULL; /* a copy: the next step's command replaces c */
    for (size_t s = 0; s < p->fix.count; ++s) {
      int status;
      const cl_fix_command *c = cl_fix_command_of(ctx, i, s, &status);
      if (status == CUDALOAD_E_NO_MEMORY)
        body.failed = 1;
      int decision = decision_of(&p->fix.steps[s], c);
      ++counts[decision];
      step_text(&body, &p->fix.steps[s], c, decision);
      if (decision == CHOICE && c && c->why && !choice_why &&
          !(choice_why = cl_strdup(c->why)))
        body.failed = 1; /* the same for each: said once, after them */
    }
    if (choice_why) {
      cl_buf_printf(&body, "%snot run: ", indent);
      put_shown(&body, choice_why);
      cl_buf_puts(&body, "\n");
    }
    free(choice_why);
  }
  cl_buf b = CL_BUF_INIT;
  if (!problems) {
    cl_buf_puts(&b, "cudaload fix: no problems: nothing to fix\n");
  } else {
    cl_buf_printf(&b, "cudaload fix: %zu problem%s; %zu command%s to run",
                  problems, problems == 1 ? "" : "s", counts[RUN],
                  counts[RUN] == 1 ? "" : "s");
    if (counts[REFUSED])
      cl_buf_printf(&b, ", %zu refused", counts[REFUSED]);
    if (counts[CHOICE])
      cl_buf_printf(&b, ", %zu to choose from", counts[CHOICE]);
    if (counts[YOURS])
      cl_buf_printf(&b, ", %zu for you to run", counts[YOURS]);
    cl_buf_puts(&b, "\n\n");
    if (body.data)
      cl_buf_append(&b, body.data, body.len);
  }
  if (body.failed)
    b.failed = 1;
  cl_buf_free(&body);
  *out = cl_buf_take(&b);
  return *out ? CUDALOAD_OK
              : cl_fail(CUDALOAD_E_NO_MEMORY,
                        "cudaload_fix_report: out of memory");
}
