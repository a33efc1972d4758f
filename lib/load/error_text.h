/* SPDX-License-Identifier: MIT */
/*
 * error_text.h - a pasted error text made readable before its forms are
 * looked for (error_text.c): whatever encoding and shape it came in (UTF-8
 * with or without BOM, UTF-16 from PowerShell's `>`, NUL bytes, CR LF,
 * colour codes, lines a console wrapped at its width, a log of gigabytes),
 * one UTF-8 text of '\n'-separated lines, of bounded size.
 */
#ifndef CUDALOAD_ERROR_TEXT_H
#define CUDALOAD_ERROR_TEXT_H

#include <stddef.h>

/* A text as the reader sees it. */
typedef struct cl_error_text {
  char *text; /* UTF-8, NUL-terminated, lines separated by '\n' only */
  size_t len;
  const char *encoding; /* "UTF-8", "UTF-16LE" or "UTF-16BE" (static) */
  size_t size;          /* bytes given */
  size_t dropped;       /* bytes left out in the middle (size policy) */
  size_t lines;         /* lines in text */
  size_t rejoined;      /* lines a console had wrapped, joined again */
  int console_width;    /* the width they were wrapped at; 0: none found */
} cl_error_text;

/* Make bytes[0..size) readable: decoded by its BOM (UTF-16LE/BE; a UTF-8
 * BOM dropped; UTF-16 without BOM recognised by its zero bytes), NUL bytes
 * and CR (alone or before LF) turned into line ends, terminal escape
 * sequences removed, lines a console wrapped at a fixed width joined
 * again, and a text longer than CUDALOAD_ERROR_TEXT_HEAD +
 * CUDALOAD_ERROR_TEXT_TAIL read as its first and last bytes of those sizes,
 * cut at line ends. Linear in size. 0, or CUDALOAD_E_NO_MEMORY with *out
 * empty. */
int cl_error_text_read(const void *bytes, size_t size, cl_error_text *out);
void cl_error_text_free(cl_error_text *t);

/* The columns a terminal gives the UTF-8 line s[0..len): East Asian wide
 * characters two, other characters one (for finding the console width). */
size_t cl_error_text_columns(const char *s, size_t len);

#endif
