/* SPDX-License-Identifier: MIT */
/*
 * program_find.h - what a --for target names, found as the program will
 * run (program_find.c): a binary; an interpreter (its import path:
 * scan/import_path.h) or an environment folder, whose programs are the
 * CUDA-using distributions installed there; or a module, found on the
 * import path as `import` finds it (scan/python_module.h), or a
 * distribution by name. program.c reads what this finds.
 */
#ifndef CUDALOAD_PROGRAM_FIND_H
#define CUDALOAD_PROGRAM_FIND_H

#include "core/context.h"
#include "scan/import_path.h"
#include "scan/record_texts.h"

#include <stddef.h>

typedef enum cl_target_kind {
  CL_TARGET_NOTHING = 0,
  CL_TARGET_BINARY,      /* a library or executable file */
  CL_TARGET_ENVIRONMENT, /* an interpreter, a venv or site folder */
  CL_TARGET_MODULE       /* a module or distribution name */
} cl_target_kind;

/* One installed distribution to read. */
typedef struct cl_found_distribution {
  char *site;     /* the folder that holds its dist-info */
  char *distinfo; /* "torch-2.5.1+cu124.dist-info" */
  /* Its rank among the environment's programs: the known programs' order
   * (torch first), the others after; an environment's first program with
   * a CUDA major decides it, the others' needs are "if used". */
  int rank;
} cl_found_distribution;

/* Two distributions of one folder that list the same files: the last
 * installed overwrote the other's (pip keeps both dist-infos). */
typedef struct cl_program_clash {
  char *site;
  char *names[2];    /* distribution names, "onnxruntime-gpu" */
  char *versions[2]; /* "1.22.0" */
  int cuda[2];       /* the wheel's CUDA major (-cu12), 0 when none */
  int uses_cuda[2];  /* named for a GPU build, or pins NVIDIA's wheels */
  size_t shared;     /* files both list */
  char *example;     /* one of them, as RECORD lists it */
  int installed;     /* whose files lie there: 0, 1, or -1 unknown */
  const char *why;   /* how that is known: "installed last" */
} cl_program_clash;

typedef struct cl_program_target {
  cl_target_kind kind;
  cl_import_path path; /* the interpreter's or environment's import path */
  cl_found_distribution *distributions;
  size_t distribution_count, distribution_capacity;
  /* A module found on the path without a distribution that lists it
   * (PYTHONPATH, a source tree): its folder, whose libraries are read. */
  char *module_folder;
  /* How the module was found ("torch in .../site-packages (the venv's
   * site-packages)"), for the requirements' origins; "" otherwise. */
  char *found_how;
  /* Folders that join the context's environment roots: the venv and the
   * site folders the interpreter imports from. */
  char **adopt;
  size_t adopt_count, adopt_capacity;
  cl_program_clash *clashes;
  size_t clash_count, clash_capacity;
  /* The RECORDs read while finding it, kept for reading its
   * distributions: each read once per call (record_texts.h). */
  cl_record_texts records;
  int failed; /* out of memory */
} cl_program_target;

/* Find what target names (an absolute path, or a module or distribution
 * name) for ctx (its environment roots, or the active environment). The
 * kind is CL_TARGET_NOTHING when it names nothing. Free with
 * cl_program_target_free. */
void cl_program_target_find(cudaload_ctx *ctx, const char *target,
                            cl_program_target *out);
void cl_program_target_free(cl_program_target *t);

/* The environment folders' distributions that are programs (known ones,
 * and those pinning NVIDIA's wheels), each site folder of path once, into
 * t->distributions; how many. */
size_t cl_program_find_installed(const cl_import_path *path,
                                 cl_program_target *t);

/* Whether a distribution's name or version says it is a GPU build
 * ("onnxruntime-gpu", "cupy-cuda12x", "2.5.1+cu124") and, when it says
 * which, the CUDA major (*cuda, 0 when it does not say). */
int cl_program_name_says_cuda(const char *name, const char *version, int *cuda);

#endif
