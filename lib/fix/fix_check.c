/* SPDX-License-Identifier: MIT */
/*
 * fix_check.c - the judge of what `cudaload fix` runs (fix_check.h).
 *
 * A step is taken apart word by word and every word must be one the fix
 * lines write (lib/load/fix_lines.c): the interpreter an environment root
 * gave, "-m pip install", --no-deps, --target and a folder, then
 * requirements. A requirement's name is looked up in the catalog's wheel
 * table, never trusted because a step holds it: the step was made from
 * what a message and a program's metadata said, and a name from there
 * could be anyone's package. What the command may change is then asked of
 * the file system: whose it is and who else may write there.
 */
#include "fix/fix_check.h"
#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/shell_word.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "problem/problem.h"
#include "scan/catalog_wheels.h"
#include "scan/layouts.h"
#include "scan/pep440.h"
#include "scan/recorded_roots.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words pip gets before the step's own options: wheels only, and no
 * question it could wait on forever. */
static const char *const pip_safety[] = {"--only-binary=:all:", "--no-input"};

static int is_windows(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS;
}

static int same_name(const char *a, const char *b) {
  /* File names as the host compares them: Windows without case. */
  return cl_os_same_path(a, strlen(a), b, strlen(b));
}

void cl_fix_command_free(cl_fix_command *c) {
  if (!c)
    return;
  free(c->why);
  for (size_t i = 0; i < c->argc; ++i)
    free(c->argv[i]);
  free(c->argv);
  free(c->line);
  free(c->environment);
  free(c->target);
  free(c->record);
  memset(c, 0, sizeof *c);
}

/* The verdict: not run, status and why (printf-style). CUDALOAD_OK, or
 * CUDALOAD_E_NO_MEMORY when the words could not be kept. */
static int refuse(cl_fix_command *c, int status, const char *format, ...)
    CL_PRINTF(3, 4);
static int refuse(cl_fix_command *c, int status, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  cl_buf b = CL_BUF_INIT;
  cl_buf_vprintf(&b, format, ap);
  va_end(ap);
  free(c->why);
  c->why = cl_buf_take(&b);
  c->status = status;
  return c->why ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* Why a step of this action is never run. */
static const char *never_run(int action) {
  switch (action) {
  case CUDALOAD_FIX_CHOICE:
    return CL_WORDS_FIX_ONE_INSTALL_OF_SEVERAL;
  case CUDALOAD_FIX_SET_VARIABLE:
    return CL_WORDS_FIX_SETS_A_VARIABLE_IN_YOUR_SHELL;
  case CUDALOAD_FIX_RUN_PROGRAM:
    return CL_WORDS_FIX_IS_HOW_TO_RUN_YOUR_PROGRAM;
  case CUDALOAD_FIX_COMMAND:
    return CL_WORDS_FIX_NOT_AN_INSTALL_OF_WHEELS;
  case CUDALOAD_FIX_NOTE:
    return CL_WORDS_FIX_WORDS_FOR_YOU;
  default:
    return CL_WORDS_FIX_STEP_UNKNOWN;
  }
}

/* A requirement word: a name the catalog's wheel table knows, then a PEP
 * 440 specifier set (or nothing). NULL when it is one, else why not. */
static const char *requirement_refusal(const char *word, char *why,
                                       size_t size) {
  size_t n = strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "0123456789._-");
  if (n == 0) {
    snprintf(why, size, CL_WORDS_NOT_A_PACKAGE_REQUIREMENT, word);
    return why;
  }
  const cl_catalog_wheel *w = cl_catalog_wheel_by_package(word, n);
  if (!w) {
    snprintf(why, size, CL_WORDS_NOT_A_WHEEL_THE_CATALOG_KNOWS, (int)n, word);
    return why;
  }
  if (w->linux_only && is_windows()) {
    snprintf(why, size, CL_WORDS_HAS_NO_WINDOWS_WHEEL, w->package);
    return why;
  }
  const char *spec = word + n;
  cl_pep440_specifier parsed;
  if (strpbrk(spec, "[;@") ||
      !cl_pep440_specifier_parse(spec, strlen(spec), &parsed)) {
    snprintf(why, size, CL_WORDS_NOT_A_PEP_440_SPECIFIER, spec, w->package);
    return why;
  }
  return NULL;
}

/* The environment an interpreter belongs to: its prefix (Linux
 * <prefix>/bin/python*, Windows <prefix>\Scripts\python.exe or
 * <prefix>\python.exe), malloc'ed, when that holds pyvenv.cfg (a venv) or
 * conda-meta\ (conda); else NULL (*prefix_out the prefix anyway). */
static char *environment_of(const char *python, char **prefix_out) {
  *prefix_out = NULL;
  char *bin = cl_path_dirname(python);
  if (!bin)
    return NULL;
  char *prefix = NULL;
  if (is_windows())
    prefix = same_name(cl_path_basename(bin), "Scripts") ? cl_path_dirname(bin)
                                                         : cl_strdup(bin);
  else if (strcmp(cl_path_basename(bin), "bin") == 0)
    prefix = cl_path_dirname(bin);
  free(bin);
  if (!prefix)
    return NULL;
  *prefix_out = prefix;
  char *venv = cl_path_join(prefix, "pyvenv.cfg");
  char *conda = cl_path_join(prefix, "conda-meta");
  int is_env = (venv && cl_os_stat_kind(venv, NULL) == CL_KIND_REGULAR) ||
               (conda && cl_os_stat_kind(conda, NULL) == CL_KIND_DIRECTORY);
  free(venv);
  free(conda);
  return is_env ? cl_strdup(prefix) : NULL;
}

/* The environment's site-packages, where its pip installs: Windows
 * <prefix>\Lib\site-packages; Linux lib/pythonX.Y/site-packages of the
 * interpreter's own X.Y when its name says it (python3.11), else the one
 * such folder there is. NULL when none can be told. */
static char *site_of(const char *prefix, const char *python) {
  if (is_windows()) {
    char *site = cl_path_join(prefix, "Lib/site-packages");
    if (site && cl_os_stat_kind(site, NULL) == CL_KIND_DIRECTORY)
      return site;
    free(site);
    return NULL;
  }
  const char *name = cl_path_basename(python);
  char *found = NULL;
  int several = 0;
  for (size_t i = 0; cl_layout_python_versions[i] && !several; ++i) {
    char *relative = cl_strdup_printf("lib/python%s/site-packages",
                                      cl_layout_python_versions[i]);
    char *site = relative ? cl_path_join(prefix, relative) : NULL;
    free(relative);
    int named = strncmp(name, "python", 6) == 0 &&
                strcmp(name + 6, cl_layout_python_versions[i]) == 0;
    if (site && cl_os_stat_kind(site, NULL) == CL_KIND_DIRECTORY) {
      if (named) {
        free(found);
        return site;
      }
      several = found != NULL;
      if (!found) {
        found = site;
        continue;
      }
    }
    free(site);
  }
  if (several) {
    free(found);
    return NULL;
  }
  return found;
}

/* Whether path lies inside folder (both absolute, lexically: the caller
 * checks the real paths too). */
static int inside(const char *path, const char *folder) {
  size_t n = strlen(folder);
  while (n > 1 && (folder[n - 1] == '/' || folder[n - 1] == '\\'))
    --n;
  return strlen(path) > n && cl_os_same_path(path, n, folder, n) &&
         (path[n] == '/' || path[n] == '\\');
}

static int has_dot_dot(const char *path) {
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, "/\\");
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return 1;
    p += n;
    p += *p != '\0';
  }
  return 0;
}

/* The refusal for one folder or file the command writes to, or 0 (the
 * verdict unchanged): it must be this user's (a root-owned file in a
 * user's venv is one the user cannot update or remove) and no other
 * user's to write (a folder the scan would refuse to load from). A path
 * that does not exist yet is not asked. */
static int judge_path(cl_fix_command *c, const char *path, int is_file,
                      int *refused) {
  char *owner = NULL, *me = NULL;
  int owned = cl_os_owned_by_this_user(path, &owner, &me);
  int rc = CUDALOAD_OK;
  if (owned == 0) {
    rc = refuse(c, CUDALOAD_E_INSECURE, CL_WORDS_FIX_OWNED_BY_ANOTHER_USER,
                path, owner ? owner : "another user", me ? me : "another");
    *refused = 1;
  }
  free(owner);
  free(me);
  if (*refused || owned < 0)
    return rc;
  char *why = NULL;
  if (cl_os_writable_by_others(
          path, is_file ? CL_TRUST_LIBRARY_FILE : CL_TRUST_LIBRARY_FOLDER,
          &why)) {
    char *fix = cl_os_private_fix(path, is_file ? CL_TRUST_LIBRARY_FILE
                                                : CL_TRUST_LIBRARY_FOLDER);
    rc = refuse(c, CUDALOAD_E_INSECURE, CL_WORDS_FIX_REFUSED_AS_A_ROOT, path,
                why ? why : CL_WORDS_WRITABLE_BY_OTHER_USERS,
                fix ? fix : CL_WORDS_WRITABLE_ONLY_BY_ITS_OWNER);
    free(fix);
    *refused = 1;
  }
  free(why);
  return rc;
}

/* Every existing folder from `from` up to `prefix`, both included. */
static int judge_way(cl_fix_command *c, const char *from, const char *prefix,
                     int *refused) {
  char *at = cl_strdup(from);
  int rc = at ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
  while (at && rc == CUDALOAD_OK && !*refused) {
    if (cl_os_stat_kind(at, NULL) != CL_KIND_MISSING)
      rc = judge_path(c, at, 0, refused);
    if (!inside(at, prefix))
      break;
    char *up = cl_path_dirname(at);
    free(at);
    at = up;
    if (!at)
      rc = CUDALOAD_E_NO_MEMORY;
  }
  free(at);
  return rc;
}

/* The real path of `path`'s nearest existing folder inside prefix's real
 * path: the lexical check holds for what the names lead to. */
static int lands_inside(const char *path, const char *prefix) {
  char *real_prefix = cl_os_real_path_quiet(prefix, NULL);
  char *at = cl_strdup(path);
  int ok = 0;
  while (at && real_prefix) {
    if (cl_os_stat_kind(at, NULL) != CL_KIND_MISSING) {
      char *real = cl_os_real_path_quiet(at, NULL);
      ok = real && (inside(real, real_prefix) ||
                    cl_os_same_path(real, strlen(real), real_prefix,
                                    strlen(real_prefix)));
      free(real);
      break;
    }
    char *up = cl_path_dirname(at);
    if (!up || strcmp(up, at) == 0) {
      free(up);
      break;
    }
    free(at);
    at = up;
  }
  free(at);
  free(real_prefix);
  return ok;
}

/* The words that run: the step's, with pip's safety words after
 * "install"; and the line shown. */
static int build_command(cl_fix_command *c, const cl_fix_step *step) {
  size_t n = step->argc + sizeof pip_safety / sizeof *pip_safety;
  c->argv = calloc(n + 1, sizeof *c->argv);
  if (!c->argv)
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0, k = 0; i < step->argc; ++i) {
    if (!(c->argv[k++] = cl_strdup(step->argv[i])))
      return CUDALOAD_E_NO_MEMORY;
    c->argc = k;
    if (i == 3) /* after "install" */
      for (size_t j = 0; j < sizeof pip_safety / sizeof *pip_safety; ++j) {
        if (!(c->argv[k++] = cl_strdup(pip_safety[j])))
          return CUDALOAD_E_NO_MEMORY;
        c->argc = k;
      }
  }
  cl_fix_step shown;
  memset(&shown, 0, sizeof shown);
  shown.argv = c->argv;
  shown.argc = c->argc;
  cl_buf b = CL_BUF_INIT;
  (void)cl_fix_command_line(
      &b, &shown, is_windows() ? CL_SHELL_CMD_AND_POWERSHELL : CL_SHELL_POSIX);
  c->line = cl_buf_take(&b);
  return c->line ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* The install step's words, read as the fix lines write them. */
static int judge_words(cl_fix_command *c, const cl_fix_step *step,
                       const char **target) {
  char why[512];
  *target = NULL;
  if (step->env_count)
    return refuse(c, CUDALOAD_E_INVALID_ARGUMENT,
                  CL_WORDS_FIX_SETS_VARIABLES_FOR_THE_COMMAND);
  const char *python = step->argc ? step->argv[0] : "";
  if (step->argc < 5 || strcmp(step->argv[1], "-m") != 0 ||
      strcmp(step->argv[2], "pip") != 0 ||
      strcmp(step->argv[3], "install") != 0 || !cl_os_path_is_absolute(python))
    return refuse(c, CUDALOAD_E_UNSUPPORTED, CL_WORDS_FIX_NAMES_NO_INTERPRETER,
                  python[0] ? python : "no command");
  size_t requirements = 0;
  for (size_t i = 4; i < step->argc; ++i) {
    const char *w = step->argv[i];
    if (strcmp(w, "--no-deps") == 0)
      continue;
    if (strcmp(w, "--target") == 0) {
      if (*target || i + 1 >= step->argc ||
          !cl_os_path_is_absolute(step->argv[i + 1]) ||
          has_dot_dot(step->argv[i + 1]))
        return refuse(c, CUDALOAD_E_INVALID_ARGUMENT,
                      CL_WORDS_FIX_TARGET_NEEDS_ONE_FOLDER);
      *target = step->argv[++i];
      continue;
    }
    if (w[0] == '-')
      return refuse(c, CUDALOAD_E_INVALID_ARGUMENT,
                    CL_WORDS_FIX_PIP_OPTION_NOT_PASSED, w);
    if (requirement_refusal(w, why, sizeof why))
      return refuse(c, CUDALOAD_E_INVALID_ARGUMENT, "%s", why);
    ++requirements;
  }
  if (!requirements)
    return refuse(c, CUDALOAD_E_INVALID_ARGUMENT,
                  CL_WORDS_FIX_INSTALLS_NO_PACKAGE);
  return CUDALOAD_OK;
}

/* Where the command writes, and whose it is. */
static int judge_environment(cl_fix_command *c, const char *python,
                             const char *target) {
  int refused = 0;
  if (cl_os_stat_kind(python, NULL) != CL_KIND_REGULAR)
    return refuse(c, CUDALOAD_E_NOT_FOUND, CL_WORDS_IS_NOT_THERE, python);
  size_t name_len = strlen(python);
  if (is_windows() &&
      !(name_len > 4 && cl_ascii_equal_nocase(python + name_len - 4, ".exe")))
    return refuse(c, CUDALOAD_E_UNSUPPORTED, CL_WORDS_FIX_NOT_AN_EXE, python);
  char *prefix = NULL;
  c->environment = environment_of(python, &prefix);
  if (!c->environment) {
    int rc = prefix ? refuse(c, CUDALOAD_E_UNSUPPORTED,
                             CL_WORDS_FIX_SYSTEM_INTERPRETER, python, prefix)
                    : refuse(c, CUDALOAD_E_UNSUPPORTED,
                             CL_WORDS_FIX_IN_NO_ENVIRONMENT, python);
    free(prefix);
    return rc;
  }
  free(prefix);
  char *site = site_of(c->environment, python);
  if (target && !(inside(target, c->environment) &&
                  lands_inside(target, c->environment))) {
    free(site);
    return refuse(c, CUDALOAD_E_INSECURE,
                  CL_WORDS_FIX_TARGET_OUTSIDE_THE_ENVIRONMENT, target,
                  c->environment);
  }
  if (target && !site) {
    free(site);
    return refuse(c, CUDALOAD_E_UNSUPPORTED,
                  CL_WORDS_FIX_NO_SITE_PACKAGES_FOLDER, c->environment, target);
  }
  int rc = judge_path(c, c->environment, 0, &refused);
  if (rc == CUDALOAD_OK && !refused && site)
    rc = judge_way(c, site, c->environment, &refused);
  if (rc == CUDALOAD_OK && !refused && target) {
    rc = judge_way(c, target, c->environment, &refused);
    c->target = cl_strdup(target);
    c->record = cl_recorded_roots_path(site);
    if (rc == CUDALOAD_OK && (!c->target || !c->record))
      rc = CUDALOAD_E_NO_MEMORY;
    if (rc == CUDALOAD_OK && !refused &&
        cl_os_stat_kind(c->record, NULL) != CL_KIND_MISSING)
      rc = judge_path(c, c->record, 1, &refused);
  }
  free(site);
  return rc;
}

int cl_fix_command_make(const cl_fix_step *step, cl_fix_command *out) {
  memset(out, 0, sizeof *out);
  if (step->action != CUDALOAD_FIX_INSTALL)
    return refuse(out, CUDALOAD_E_UNSUPPORTED, "%s", never_run(step->action));
  const char *target = NULL;
  int rc = judge_words(out, step, &target);
  if (rc == CUDALOAD_OK && !out->why)
    rc = judge_environment(out, step->argv[0], target);
  if (rc == CUDALOAD_OK && !out->why)
    rc = build_command(out, step);
  if (rc != CUDALOAD_OK)
    cl_fix_command_free(out);
  return rc;
}

int cl_fix_command_record(const cl_fix_command *c) {
  if (!c->target)
    return CUDALOAD_OK;
  if (cl_os_stat_kind(c->target, NULL) != CL_KIND_DIRECTORY)
    return cl_fail(CUDALOAD_E_IO,
                   "pip exited 0 but left no folder %s: nothing is recorded",
                   c->target);
  char *why = NULL;
  if (cl_os_writable_by_others(c->target, CL_TRUST_LIBRARY_FOLDER, &why)) {
    char *fix = cl_os_private_fix(c->target, CL_TRUST_LIBRARY_FOLDER);
    int rc = cl_fail(CUDALOAD_E_INSECURE,
                     "pip made %s %s (the umask): cudaload would refuse to "
                     "load from it, so it is not recorded; %s, then run "
                     "cudaload fix again",
                     c->target, why ? why : "writable by other users",
                     fix ? fix : "make it writable only by its owner");
    free(fix);
    free(why);
    return rc;
  }
  return cl_recorded_roots_add(c->record, c->target);
}

/* --- kept in the context ------------------------------------------------ */

struct cl_fix_state {
  unsigned long serial; /* the report the command was made of */
  size_t problem, step;
  cl_fix_command command;
};

static void fix_state_free(cl_fix_state *state) {
  if (!state)
    return;
  cl_fix_command_free(&state->command);
  free(state);
}

const cl_fix_command *cl_fix_command_of(cudaload_ctx *ctx, size_t i, size_t s,
                                        int *status) {
  *status = CUDALOAD_OK;
  const cl_problem *p = cl_problem_kept(ctx, i);
  if (!p || s >= p->fix.count) {
    *status = CUDALOAD_E_NOT_FOUND;
    return NULL;
  }
  cl_fix_state *state = ctx->fix_state;
  if (!state) {
    if (!(state = calloc(1, sizeof *state))) {
      *status = CUDALOAD_E_NO_MEMORY;
      return NULL;
    }
    ctx->fix_state = state;
    /* Set by the stage that makes it: core/ frees it without knowing it. */
    ctx->fix_state_free = fix_state_free;
  } else if (state->serial == ctx->doctor_serial && state->problem == i &&
             state->step == s && (state->command.line || state->command.why)) {
    return &state->command;
  }
  cl_fix_command_free(&state->command);
  state->serial = ctx->doctor_serial;
  state->problem = i;
  state->step = s;
  *status = cl_fix_command_make(&p->fix.steps[s], &state->command);
  return *status == CUDALOAD_OK ? &state->command : NULL;
}
