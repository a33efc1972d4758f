/* SPDX-License-Identifier: MIT */
/*
 * error_message.h - reading the error message a user pasted into the
 * requirements it implies and what it means (error_message.c).
 */
#ifndef CUDALOAD_ERROR_MESSAGE_H
#define CUDALOAD_ERROR_MESSAGE_H

#include "core/context.h"

#include <stddef.h>

/* One message cudaload_read_error_message() recognised in a pasted text
 * (load/error_message.c). */
typedef struct cl_error_message {
  int kind;          /* CUDALOAD_MESSAGE_* */
  char *quote;       /* the line it was read from */
  char *file;        /* the file it is about; NULL for none */
  char *needed_by;   /* the library that needed file; NULL when not said */
  char *requirement; /* "cudnn=8"; NULL for none */
  char *diagnosis;   /* what it means */
} cl_error_message;

/* The messages of the last text cudaload_read_error_message() read. Only
 * that call replaces them (the previous ones are freed then, and only when
 * the new text was read whole); planning and scanning leave them alone;
 * freed with the context. */
struct cl_error_messages {
  cl_error_message *items;
  size_t count;
};

/* How many messages ctx holds (0 before a text is read) and the i-th, or
 * NULL past the end. */
size_t cl_error_message_count(const cudaload_ctx *ctx);
const cl_error_message *cl_error_message_at(const cudaload_ctx *ctx, size_t i);

/* 1 when name (a file name) is the NVIDIA driver's library as messages
 * spell it: libcuda.so, libcuda.so.1, nvcuda.dll. */
int cl_error_message_driver_file(const char *name);

#endif
