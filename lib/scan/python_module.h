/* SPDX-License-Identifier: MIT */
/*
 * python_module.h - where `import NAME` finds a module on an interpreter's
 * import path (import_path.h), and which installed distributions put it
 * there (python_module.c): the first folder of the path that holds it as
 * a package (NAME/__init__.py), a module file (NAME.py, an extension
 * module NAME.<tag>.so or .pyd) or, when no folder does, the first that
 * holds it as a namespace package; then the dist-info folders beside it
 * whose RECORD lists its files. Two of those own the same files when one
 * was installed over the other (onnxruntime over onnxruntime-gpu): which
 * one's files lie there is told by the RECORDs (distinfo.h).
 */
#ifndef CUDALOAD_PYTHON_MODULE_H
#define CUDALOAD_PYTHON_MODULE_H

#include "scan/import_path.h"
#include "scan/record_texts.h"

#include <stddef.h>

typedef struct cl_module_found {
  size_t folder;  /* the import path's folder that holds it */
  char *location; /* ".../site-packages/torch" or ".../foo.cpython-311...so" */
  int namespace_package;
  /* The dist-info folders (names) in that folder whose RECORD lists the
   * module's files, in name order. */
  char **providers;
  size_t provider_count, provider_capacity;
  /* Two providers or more: the index of the one whose files lie there
   * (SIZE_MAX when nothing tells), why ("installed last"), how many files
   * two of them share and one of those, as RECORD lists it. */
  size_t installed;
  const char *installed_why;
  size_t shared;
  char *shared_example;
  int failed; /* out of memory */
} cl_module_found;

/* Whether name is a module name (an identifier: "torch", "onnxruntime";
 * "onnxruntime-gpu" is a distribution's). */
int cl_python_module_name(const char *name);

/* Find module `name` on `path`: 1 (and *out filled; free it with
 * cl_module_found_free) when a folder holds it, 0 when none does. The
 * RECORDs read whole are read through records, and stay there for the
 * call's other readers (record_texts.h). */
int cl_python_module_find(const cl_import_path *path, const char *name,
                          cl_record_texts *records, cl_module_found *out);
void cl_module_found_free(cl_module_found *found);

/* The distributions of one folder that own module `name` there, and which
 * of two owns its files, as cl_python_module_find() tells them (out->folder
 * unset, out->location NULL). */
void cl_python_module_owners(const char *folder, const char *name,
                             cl_record_texts *records, cl_module_found *out);

#endif
