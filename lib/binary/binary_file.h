/* SPDX-License-Identifier: MIT */
/*
 * binary_file.h - a cl_reader over an open file (binary_file.c). The
 * parsers ask for many small pieces (the file header, each program or
 * section header, each dynamic string in 256-byte steps), mostly close
 * together: a 4 KiB read-ahead window serves them.
 */
#ifndef CUDALOAD_BINARY_FILE_H
#define CUDALOAD_BINARY_FILE_H

#include "binary/binary.h"
#include "os/platform.h"

#include <stddef.h>
#include <stdint.h>

#define CL_READ_AHEAD 4096u

typedef struct cl_windowed_file {
  cl_file *file;
  uint64_t size;
  uint64_t start; /* file offset of window[0] */
  size_t filled;  /* bytes of window that hold file data */
  unsigned char window[CL_READ_AHEAD];
} cl_windowed_file;

/* A reader of the open file f (size bytes) through w, which must outlive
 * it. */
cl_reader cl_windowed_reader(cl_windowed_file *w, cl_file *f, uint64_t size);

#endif
