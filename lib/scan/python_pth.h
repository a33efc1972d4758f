/* SPDX-License-Identifier: MIT */
/*
 * python_pth.h - the import path of a CPython whose ._pth file fixes it
 * (python_pth.c): the Windows embeddable distribution ships
 * python3X._pth beside python.exe, and then sys.path is exactly what that
 * file lists, relative to its folder (python312.zip, "."), with no
 * PYTHONPATH, registry or user variables (isolated mode); a line "import
 * site" (commented out as shipped, "#import site") runs site, which adds
 * the prefix's site folders (<prefix>\Lib\site-packages) and their .pth
 * files. Read from CPython's Modules/getpath.py and the "Finding modules"
 * section of its Windows documentation.
 */
#ifndef CUDALOAD_PYTHON_PTH_H
#define CUDALOAD_PYTHON_PTH_H

#include "scan/roots.h"

#include <stddef.h>

/* A ._pth file as CPython's getpath reads it. */
typedef struct cl_python_pth {
  char *file;     /* the ._pth file */
  char *prefix;   /* its folder, which relative lines are taken from */
  char **folders; /* each line that names a folder, made absolute, in the
                     file's order (there or not: sys.path keeps them) */
  size_t count;
  int site; /* a line "import site": site runs at start-up */
  /* "3.12" from a python312._pth (the interpreter's DLL's name), "" when
   * the file's name does not tell. */
  char version[16];
} cl_python_pth;

/* The ._pth file that governs the interpreter at `program` (python.exe),
 * read as getpath reads it: the one named after the interpreter's DLL
 * beside it (python312._pth beside python312.dll) first, else the one
 * named after the program (python._pth); each line up to its first '#',
 * stripped; "import site" turns site on; any other "import " line is
 * ignored. Returns 1 and fills *out (cl_python_pth_free) when such a file
 * governs the interpreter, 0 when none is there or it cannot be read, and
 * CUDALOAD_E_NO_MEMORY (negative) when memory ran out. */
int cl_python_pth_read(const char *program, cl_python_pth *out);

void cl_python_pth_free(cl_python_pth *pth);

/* The folders where the interpreter at `program` (python.exe) finds
 * installed distributions when a ._pth file fixes its import path: each
 * folder the file lists that holds a *.dist-info folder, and with "import
 * site" <prefix>\Lib\site-packages; each visited once with `origin`.
 * Returns 1 when such a file governs the interpreter (then these are its
 * whole import path), 0 when none is there or it cannot be read (the
 * caller's search stands). Sets no error. */
int cl_python_pth_roots(const char *program, const char *origin,
                        cl_root_visitor visit, void *opaque);

#endif
