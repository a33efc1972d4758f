/* SPDX-License-Identifier: MIT */
/*
 * import_path.h - the folders an interpreter imports from, in the order
 * `import` tries them (import_path.c), read from the file system without
 * running it, as CPython's getpath and site modules build sys.path:
 * PYTHONPATH; a venv's site-packages (pyvenv.cfg next to the interpreter
 * or one folder up), then, where include-system-site-packages is true,
 * the user site and the base interpreter's site-packages (PEP 405); an
 * interpreter of no venv: the user site, then its prefix's site folders;
 * and the folders each site folder's .pth files name. A Windows CPython
 * with a ._pth file (the embeddable distribution, python_pth.h) imports
 * from what that file lists instead, and from site's folders only when it
 * says "import site". A .pth line that
 * runs code ("import ...") is never run: it is counted, not followed.
 * The variables read (PYTHONPATH, PYTHONNOUSERSITE, PYTHONUSERBASE, HOME,
 * APPDATA) are this process's: the program started from here sees the
 * same ones, and a reset environment (sudo, cron, systemd) gives the
 * reset answer, as it gives the program.
 */
#ifndef CUDALOAD_IMPORT_PATH_H
#define CUDALOAD_IMPORT_PATH_H

#include "common/reason_words.h"

#include <stddef.h>

/* Where a folder of the path came from (static strings; those in words,
 * CL_IMPORT_VENV_SITE, CL_IMPORT_BASE_SITE, CL_IMPORT_USER_SITE,
 * CL_IMPORT_PTH_FILE and CL_IMPORT_GIVEN, are common/reason_words.h's). */
#define CL_IMPORT_PYTHONPATH "PYTHONPATH"
#define CL_IMPORT_SITE "site-packages"
#define CL_IMPORT_PTH "a .pth file"

typedef struct cl_import_folder {
  char *path;
  const char *origin; /* CL_IMPORT_* */
  char *pth;          /* CL_IMPORT_PTH: the file that named it, else NULL */
  int site;           /* a site folder: where pip installs distributions */
} cl_import_folder;

typedef struct cl_import_path {
  cl_import_folder *folders;
  size_t count, capacity;
  /* The interpreter's version where a file tells it (pyvenv.cfg's
   * "version", a lib/python3.X folder): "3.11.7", "3.11"; "" unknown. */
  char python_version[24];
  char *venv;      /* the venv's root when the interpreter is a venv's */
  int system_site; /* that venv sees its base interpreter's site folders */
  /* .pth lines that run code ("import ..."): never run, so the folders
   * they would add are not here. */
  size_t pth_code_lines;
  int failed; /* memory ran out: what is here is a part */
} cl_import_path;

/* An empty path, then PYTHONPATH's folders: the start of every one. */
void cl_import_path_init(cl_import_path *path);

/* Add the folders of the interpreter at `program` (an absolute path; it
 * need not be a real interpreter: only where it lies is read). */
void cl_import_path_add_interpreter(cl_import_path *path, const char *program);

/* Add the folders of an environment folder (--environment, Python's
 * site_packages, VIRTUAL_ENV): a venv or conda root, an interpreter's
 * prefix, or a site folder itself. `given`: the caller named it, which
 * the folders' origin says (CL_IMPORT_GIVEN). */
void cl_import_path_add_root(cl_import_path *path, const char *root, int given);

/* cl_import_path_init() and cl_import_path_add_interpreter(). */
void cl_import_path_of_interpreter(const char *program, cl_import_path *out);

/* cl_import_path_init() and cl_import_path_add_root() of each root. */
void cl_import_path_of_roots(const char *const *roots, size_t count, int given,
                             cl_import_path *out);

void cl_import_path_free(cl_import_path *path);

#endif
