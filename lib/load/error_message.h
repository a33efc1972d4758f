/* SPDX-License-Identifier: MIT */
/*
 * error_message.h - the messages cudaload_read_error_message() read from a
 * pasted text, as the context keeps them (error_message.c): the text is
 * made readable (error_text.c), its forms found (error_forms.c), each read
 * (error_facts.c) and given its meaning (error_meaning.c).
 */
#ifndef CUDALOAD_ERROR_MESSAGE_H
#define CUDALOAD_ERROR_MESSAGE_H

#include "core/context.h"
#include "load/error_facts.h"

#include <stddef.h>

/* One message cudaload_read_error_message() recognised in a pasted text. */
typedef struct cl_error_message {
  int kind;          /* CUDALOAD_MESSAGE_* */
  char *quote;       /* the line it was read from */
  char *file;        /* the file it is about, as written; NULL for none */
  char *needed_by;   /* the library that needed file; NULL when not said */
  char *requirement; /* "cudnn=8"; NULL for none */
  char *diagnosis;   /* what it means */
  int cuda_strength; /* how strongly its CUDA major speaks (error_facts.h) */
  /* CUDALOAD_MESSAGE_FACT_* (index 0 unused): the value, and the piece of
   * the text it was read from; NULL where the message does not tell. */
  char *facts[CL_ERROR_FACT_LAST + 1];
  char *sources[CL_ERROR_FACT_LAST + 1];
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

#endif
