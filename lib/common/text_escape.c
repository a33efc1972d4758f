/* SPDX-License-Identifier: MIT */
/* text_escape.c - see text_escape.h. */
#include "common/text_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cl_utf8_sequence(const unsigned char *p, size_t left, unsigned *code) {
  if (left == 0)
    return 0;
  unsigned c = p[0];
  size_t n;
  unsigned min;
  if (c < 0x80) {
    *code = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    n = 2, min = 0x80, c &= 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, min = 0x800, c &= 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, min = 0x10000, c &= 0x07;
  } else {
    return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF */
  }
  if (left < n)
    return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (p[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return 0;
  *code = c;
  return n;
}

/* Whether code point c is shown escaped: C0 controls, DEL, C1 controls. */
static int is_control(unsigned c, int keep_newlines) {
  if (c == '\n')
    return !keep_newlines;
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F);
}

int cl_text_needs_escape(const char *s, int keep_newlines) {
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s);
  while (left > 0) {
    unsigned code;
    size_t n = cl_utf8_sequence(p, left, &code);
    if (n == 0 || is_control(code, keep_newlines))
      return 1;
    p += n;
    left -= n;
  }
  return 0;
}

size_t cl_text_escape_into(char *out, size_t cap, const char *s,
                           int keep_newlines) {
  return cl_text_escape_bytes_into(out, cap, s, strlen(s), keep_newlines);
}

size_t cl_text_escape_bytes_into(char *out, size_t cap, const char *s,
                                 size_t length, int keep_newlines) {
  const unsigned char *p = (const unsigned char *)s;
  size_t left = length, used = 0, total = 0;
  int full = 0;
  while (left > 0) {
    unsigned code;
    size_t n = cl_utf8_sequence(p, left, &code);
    char piece[16];
    size_t piece_len;
    if (n == 0) {
      n = 1; /* one byte that is not UTF-8 */
      piece_len = (size_t)snprintf(piece, sizeof piece, "\\x%02x", p[0]);
    } else if (is_control(code, keep_newlines)) {
      /* A C1 control is two bytes in UTF-8; its code point says it. */
      piece_len = (size_t)snprintf(piece, sizeof piece,
                                   code < 0x80 ? "\\x%02x" : "\\u%04x", code);
    } else {
      memcpy(piece, p, n);
      piece_len = n;
    }
    if (!full && used + piece_len < cap) {
      memcpy(out + used, piece, piece_len);
      used += piece_len;
    } else {
      full = 1; /* cut at a whole escape or character, never inside one */
    }
    total += piece_len;
    p += n;
    left -= n;
  }
  if (cap > 0)
    out[used < cap ? used : cap - 1] = '\0';
  return total;
}

char *cl_text_escaped(const char *s, int keep_newlines) {
  size_t len = cl_text_escape_into(NULL, 0, s, keep_newlines);
  char *out = malloc(len + 1);
  if (out)
    cl_text_escape_into(out, len + 1, s, keep_newlines);
  return out;
}

char *cl_text_surrogate_escaped(const char *s) {
  size_t len = strlen(s);
  /* Each byte becomes at most three. */
  char *out = malloc(len * 3 + 1);
  if (!out)
    return NULL;
  const unsigned char *p = (const unsigned char *)s;
  size_t used = 0;
  while (len > 0) {
    unsigned code;
    size_t n = cl_utf8_sequence(p, len, &code);
    if (n == 0) {
      unsigned surrogate = 0xDC00u + p[0];
      out[used++] = (char)(0xE0 | (surrogate >> 12));
      out[used++] = (char)(0x80 | ((surrogate >> 6) & 0x3F));
      out[used++] = (char)(0x80 | (surrogate & 0x3F));
      n = 1;
    } else {
      memcpy(out + used, p, n);
      used += n;
    }
    p += n;
    len -= n;
  }
  out[used] = '\0';
  return out;
}
