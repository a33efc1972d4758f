/* SPDX-License-Identifier: MIT */
/*
 * buf.h - the one growable text buffer (buf.c): appends that remember a
 * lost allocation, so that a sequence of them is checked once, at the end,
 * and an out-of-memory is reported by the caller instead of text silently
 * going missing.
 */
#ifndef CUDALOAD_BUF_H
#define CUDALOAD_BUF_H

#include "common/strutil.h"

#include <stdarg.h>
#include <stddef.h>

typedef struct cl_buf {
  char *data; /* NUL-terminated once anything was appended; NULL before */
  size_t len, capacity;
  int failed; /* an append ran out of memory: the text is incomplete */
} cl_buf;

/* Start empty (same as = {0}). */
#define CL_BUF_INIT                                                            \
  { NULL, 0, 0, 0 }

/* Append n bytes of s (which need not be NUL-terminated). Nothing happens
 * once the buffer has failed. */
void cl_buf_append(cl_buf *b, const char *s, size_t n);
/* Append a NUL-terminated string. */
void cl_buf_puts(cl_buf *b, const char *s);
/* Append formatted text. */
void cl_buf_printf(cl_buf *b, const char *fmt, ...) CL_PRINTF(2, 3);
void cl_buf_vprintf(cl_buf *b, const char *fmt, va_list ap) CL_PRINTF(2, 0);
/* Room for n more bytes at the end, for a read() straight into the buffer:
 * a pointer to them, or NULL (and failed) without memory. cl_buf_grow(b,
 * got) then counts the bytes written there (got <= n). */
char *cl_buf_space(cl_buf *b, size_t n);
void cl_buf_grow(cl_buf *b, size_t got);
/* The text, malloc'ed and owned by the caller ("" when nothing was
 * appended), or NULL when an append failed or memory ran out now; the
 * buffer is empty afterwards either way. */
char *cl_buf_take(cl_buf *b);
/* Drop the text. */
void cl_buf_free(cl_buf *b);

#endif
