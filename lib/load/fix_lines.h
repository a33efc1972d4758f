/* SPDX-License-Identifier: MIT */
/* fix_lines.h - the fix printed for a requirement nothing satisfies. */
#ifndef CUDALOAD_FIX_LINES_H
#define CUDALOAD_FIX_LINES_H

#include "core/context.h"
#include "scan/catalog.h"
#include "load/plan_state.h"

/* One concrete command that fixes the missing requirement r in ctx's
 * situation, malloc'ed; NULL when out of memory. */
char *cl_fix_for_missing(const cudaload_ctx *ctx, const cl_requirement *r);

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
