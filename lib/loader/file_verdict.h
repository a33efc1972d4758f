/* SPDX-License-Identifier: MIT */
/*
 * file_verdict.h - what the loader makes of a file it meets while it
 * searches (file_verdict.c): takes it, passes over it (another ELF class
 * or machine) or fails the whole load on it (not an object it can map).
 */
#ifndef CUDALOAD_FILE_VERDICT_H
#define CUDALOAD_FILE_VERDICT_H

#include "loader/loader_model.h"

typedef enum cl_file_verdict {
  CL_FILE_ABSENT = 0, /* nothing there, or not openable: the search goes on */
  CL_FILE_TAKEN,
  CL_FILE_SKIPPED, /* other class or machine: the search goes on */
  CL_FILE_FATAL    /* the load fails here */
} cl_file_verdict;

/* The verdict of m's loader on `file` (an absolute path), by m's naming:
 * glibc's open_verify on an ELF header, or the Windows loader's image
 * check. *why receives a malloc'ed reason for a file skipped or fatal (or
 * NULL: none, or no memory for it). Reads the file through m->files. */
cl_file_verdict cl_file_verdict_of(const cl_loader_model *m, const char *file,
                                   char **why);

#endif
