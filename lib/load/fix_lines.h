/* SPDX-License-Identifier: MIT */
/* fix_lines.h - the fix printed for a requirement nothing satisfies. */
#ifndef CUDALOAD_FIX_LINES_H
#define CUDALOAD_FIX_LINES_H

#include "common/fix_steps.h"
#include "core/context.h"
#include "scan/catalog.h"
#include "load/plan_state.h"

/* The fix for the missing requirement r in ctx's situation, as steps
 * appended to fix: the package that provides it, for the CUDA major the
 * consumer is built for, installed where the next scan looks (or into a
 * folder of its own where that would replace another release), and the
 * variable that points at a folder holding it; where nothing tells that
 * CUDA major, one CUDALOAD_FIX_CHOICE step per CUDA major that ships it.
 * *cuda (may be NULL) receives the CUDA major and who says it.
 * 0 or CUDALOAD_E_NO_MEMORY. */
typedef struct cl_fix_cuda {
  int major;     /* the CUDA major installed for; 0: nothing tells */
  int source;    /* who says so: CUDALOAD_FROM_* */
  char why[256]; /* in words: "the error message says CUDA 12" */
} cl_fix_cuda;
int cl_fix_for_missing_steps(const cudaload_ctx *ctx, const cl_requirement *r,
                             cl_fix *fix, cl_fix_cuda *cuda);
/* The same as one line for the shell of ctx's naming, malloc'ed; NULL when
 * out of memory. */
char *cl_fix_for_missing(const cudaload_ctx *ctx, const cl_requirement *r);

/* The fix that installs a release of family's ABI major `major` of at least
 * at_least ("12.4"; NULL or another major's: any release of that major),
 * as cl_fix_for_missing_steps() installs a missing one; source is who asks
 * (CUDALOAD_FROM_*). 0, CUDALOAD_E_NOT_FOUND for a family the catalog
 * does not know, or CUDALOAD_E_NO_MEMORY. */
int cl_fix_for_release(const cudaload_ctx *ctx, const char *family, long major,
                       const char *at_least, int source, cl_fix *fix,
                       cl_fix_cuda *cuda);

/* The fix that runs the program through cudaload, with the search ctx was
 * given (--no-defaults, every root) and spec (NULL: every requirement of
 * ctx): a first note when given, then `cudaload exec ... -- PROGRAM`
 * (CUDALOAD_FIX_RUN_PROGRAM), its note naming the other ways (env, Python's
 * setup()). */
void cl_fix_run_through_cudaload(const cudaload_ctx *ctx, cl_fix *fix,
                                 const char *first, const char *spec);

/* A step that sets the search list `variable` (value: as it is now,
 * entries split by separator) without the entry `folder` (a trailing
 * separator ignored); "unset VARIABLE" when nothing is left. */
void cl_fix_drop_from_path_list(const char *variable, const char *value,
                                const char *folder, char separator,
                                cl_fix *fix);

/* How a fix runs pip for a Windows interpreter (python, its python.exe;
 * site, its site folder), as argv words, so that each is quoted for the
 * shell it is printed for: its own pip when it has one (site\pip);
 * else the py launcher's, where one is installed (the Windows folder,
 * %LOCALAPPDATA%\Programs\Python\Launcher or PATH), which the caller
 * aims at site with --target (it runs another Python); else none (the
 * embeddable distribution has neither pip nor ensurepip): `before` holds
 * the commands that give it one (get-pip.py), then its own. */
#define CL_PIP_WORDS 8
typedef enum cl_pip_source {
  CL_PIP_OWN = 1,  /* "...\python.exe" -m pip install */
  CL_PIP_LAUNCHER, /* py -m pip install (with --target site) */
  CL_PIP_MISSING   /* before[], then "...\python.exe" -m pip install */
} cl_pip_source;
typedef struct cl_pip_command {
  cl_pip_source source;
  char *argv[CL_PIP_WORDS]; /* the words up to "install" */
  size_t argc;
  char *before[2][CL_PIP_WORDS]; /* commands to run first, in order */
  size_t before_argc[2];
  size_t before_count;
} cl_pip_command;
/* 0 (out filled) or CUDALOAD_E_NO_MEMORY. */
int cl_fix_windows_pip(const char *python, const char *site,
                       cl_pip_command *out);
void cl_pip_command_free(cl_pip_command *c);

/* The lines that put folders first on PATH before a Windows program
 * starts, for cmd and for PowerShell: set "PATH=A;B;%PATH%" (cmd) or
 * $env:PATH = 'A;B;' + $env:PATH (PowerShell). Malloc'ed; NULL when a
 * folder cannot be written there (it holds '%', '"' or ';', which cmd's
 * set or PATH itself would take for syntax) or out of memory. */
char *cl_fix_windows_path_first(char *const *folders, size_t count);

/* The sh command that takes `file` out of LD_PRELOAD (ld_preload, its
 * value: entries split by ':' or blanks, as ld.so reads it): "unset
 * LD_PRELOAD" when nothing else is left, else "export LD_PRELOAD=REST",
 * REST one shell word. Malloc'ed; NULL when out of memory. */
char *cl_fix_drop_from_ld_preload(const char *ld_preload, const char *file);
/* The same as a step appended to fix (CUDALOAD_FIX_SET_VARIABLE). */
void cl_fix_drop_from_ld_preload_steps(const char *ld_preload, const char *file,
                                       cl_fix *fix);

/* Call fn with every (family, CUDA major, PyPI distribution) a fix can
 * name, so that tests and scripts/acceptance can ask the index about each
 * (acceptance/fix_packages.c). */
void cl_fix_packages_each(void (*fn)(const char *family, int cuda_major,
                                     const char *package, void *opaque),
                          void *opaque);

/* The PyPI distribution that ships family's libraries for a CUDA major
 * ("nvidia-cublas-cu12"), NULL when none does (for the plan's warning
 * about a library opened lazily that nothing provides). */
const char *cl_fix_package(const char *family, int cuda_major,
                           cl_naming naming);

#endif
