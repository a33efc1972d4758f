/* SPDX-License-Identifier: MIT */
/* buf.c - the growable text buffer (buf.h). */
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL; 0, or 1 (and failed) without memory. */
static int room_for(cl_buf *b, size_t n) {
  if (b->failed)
    return 1;
  if (n > (size_t)-1 - b->len - 1 ||
      cl_reserve((void **)&b->data, &b->capacity, b->len + n + 1, 1)) {
    b->failed = 1;
    return 1;
  }
  return 0;
}

void cl_buf_append(cl_buf *b, const char *s, size_t n) {
  if (room_for(b, n))
    return;
  if (n)
    memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void cl_buf_puts(cl_buf *b, const char *s) {
  cl_buf_append(b, s, strlen(s));
}

void cl_buf_vprintf(cl_buf *b, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if (room_for(b, (size_t)n))
    return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void cl_buf_printf(cl_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cl_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *cl_buf_space(cl_buf *b, size_t n) {
  return room_for(b, n) ? NULL : b->data + b->len;
}

void cl_buf_grow(cl_buf *b, size_t got) {
  b->len += got;
  b->data[b->len] = '\0';
}

char *cl_buf_take(cl_buf *b) {
  char *text = NULL;
  if (!b->failed)
    text = b->data ? b->data : calloc(1, 1);
  else
    free(b->data);
  b->data = NULL;
  b->len = b->capacity = 0;
  b->failed = 0;
  return text;
}

void cl_buf_free(cl_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->capacity = 0;
  b->failed = 0;
}
