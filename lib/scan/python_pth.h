/* SPDX-License-Identifier: MIT */
/*
 * python_pth.h - the import path of a CPython whose ._pth file fixes it
 * (python_pth.c): the Windows embeddable distribution ships
 * python3X._pth beside python.exe, and then sys.path is exactly what that
 * file lists, relative to its folder (python312.zip, "."), with no
 * PYTHONPATH, registry or user site; a line "import site" (commented out
 * as shipped, "#import site") runs site, which adds <prefix>\Lib\
 * site-packages. Read from CPython's PC/getpathp.c and Modules/getpath.py
 * and the "Finding modules" section of its Windows documentation.
 */
#ifndef CUDALOAD_PYTHON_PTH_H
#define CUDALOAD_PYTHON_PTH_H

#include "scan/roots.h"

/* The folders where the interpreter at `program` (python.exe) finds
 * installed distributions when a ._pth file fixes its import path
 * (<program's stem>._pth or python3X._pth beside it, the first that is
 * there): each folder the file lists that holds a *.dist-info folder, and
 * with "import site" <prefix>\Lib\site-packages; each visited once with
 * `origin`. Returns 1 when such a file governs the interpreter (then these
 * are its whole import path), 0 when none is there or it cannot be read
 * (the caller's search stands; the last error is kept). */
int cl_python_pth_roots(const char *program, const char *origin,
                        cl_root_visitor visit, void *opaque);

#endif
