/* SPDX-License-Identifier: MIT */
/*
 * error_words.c - finding the file a message names where it is written. A
 * loader writes a path as it was asked for, so a message may hold
 * "/opt/my app/lib/libcudnn.so.9" or "C:\Program Files (x86)\App\x.dll":
 * a word ends at a space or a bracket, but a path that does not start where
 * such a word starts goes on back to the start of its path. Every look is
 * bounded by CL_ERROR_WORD_MAX, so reading a text stays linear in it.
 */
#include "load/error_words.h"
#include "common/strutil.h"

#include <string.h>

static int is_quote(char c) {
  return c == '"' || c == '\'' || c == '`';
}

static int is_separator(char c) {
  return c == '/' || c == '\\';
}

static int is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int cl_error_word_ends(char c) {
  return c == '\0' || cl_ascii_is_space(c) || is_quote(c) ||
         strchr("()[]{}<>,;:=|", c) != NULL;
}

/* "C:\" or "C:/" at s, with room for it before end. */
static int drive_at(const char *s, const char *end) {
  return end - s >= 3 && is_letter(s[0]) && s[1] == ':' && is_separator(s[2]);
}

cl_error_span cl_error_basename(const char *s, size_t len) {
  if (!s) {
    cl_error_span none = {NULL, 0};
    return none;
  }
  size_t i = len;
  while (i > 0 && !is_separator(s[i - 1]))
    --i;
  cl_error_span b = {s + i, len - i};
  return b;
}

int cl_error_library_file_name(const char *s, size_t len) {
  cl_error_span b = cl_error_basename(s, len);
  if (b.len > 4 && cl_same_nocase(b.s + b.len - 4, ".dll", 4))
    return 1;
  for (size_t i = 0; i + 3 <= b.len; ++i)
    if (b.s[i] == '.' && b.s[i + 1] == 's' && b.s[i + 2] == 'o' && i > 0 &&
        (i + 3 == b.len || b.s[i + 3] == '.'))
      return 1;
  return 0;
}

cl_error_path_form cl_error_path_form_of(const char *s, size_t len) {
  if (len == 0)
    return CL_ERROR_NAME;
  if (is_separator(s[0]) || s[0] == '~' || drive_at(s, s + len))
    return CL_ERROR_ABSOLUTE;
  for (size_t i = 0; i < len; ++i)
    if (is_separator(s[i]))
      return CL_ERROR_RELATIVE;
  return CL_ERROR_NAME;
}

/* Where a path that includes [from, ...) starts, going back over spaces
 * and brackets to an absolute start ("/", "\", "~", "C:\") that follows a
 * space, bracket or quote; NULL when none comes first, before a quote or
 * ": ", within the bound. */
static const char *absolute_start(const char *line_start, const char *from) {
  const char *limit = from - line_start > CL_ERROR_WORD_MAX
                          ? from - CL_ERROR_WORD_MAX
                          : line_start;
  for (const char *q = from; q >= limit; --q) {
    if (q < from && (is_quote(*q) || *q == '\t' || *q == '\n'))
      return NULL;
    if (q + 1 < from && q[0] == ':' && q[1] == ' ')
      return NULL;
    int starts = is_separator(*q) || *q == '~' || drive_at(q, from);
    int after_gap = q == line_start || cl_ascii_is_space(q[-1]) ||
                    is_quote(q[-1]) || q[-1] == '(' || q[-1] == '[' ||
                    q[-1] == '=';
    if (starts && after_gap && q < from)
      return q;
  }
  return NULL;
}

cl_error_span cl_error_path_before(const char *line_start, const char *at) {
  const char *p = at;
  int separator = 0; /* one in [p, at): what is read is a path */
  while (p > line_start && at - p < CL_ERROR_WORD_MAX) {
    char c = p[-1];
    /* A drive's colon belongs to the path: "C:\x\y.dll: cannot open". */
    if (c == ':' && p - 1 > line_start && is_letter(p[-2]) &&
        is_separator(*p) &&
        (p - 2 == line_start || cl_error_word_ends(p[-3]))) {
      p -= 2;
      break;
    }
    /* Brackets end a word, not a path: "(x86)\App\x.dll". */
    if ((c == '(' || c == ')') && separator) {
      --p;
      continue;
    }
    if (cl_error_word_ends(c))
      break;
    separator |= is_separator(c);
    --p;
  }
  cl_error_span w = {p, (size_t)(at - p)};
  if (w.len && cl_error_path_form_of(w.s, w.len) == CL_ERROR_RELATIVE &&
      p > line_start) {
    const char *q = absolute_start(line_start, p);
    if (q) {
      w.s = q;
      w.len = (size_t)(at - q);
    }
  }
  return w;
}

cl_error_span cl_error_word_after(const char *p, const char *line_end) {
  while (p < line_end && (*p == ' ' || *p == '\t'))
    ++p;
  size_t room = (size_t)(line_end - p);
  if (room > CL_ERROR_WORD_MAX)
    room = CL_ERROR_WORD_MAX;
  cl_error_span w = {p, 0};
  if (room && is_quote(*p)) {
    const char *end = memchr(p + 1, *p, room - 1);
    w.s = p + 1;
    w.len = end ? (size_t)(end - w.s) : room - 1;
    return w;
  }
  const char *e = p;
  if (drive_at(p, p + room))
    e += 2;
  while ((size_t)(e - p) < room && !cl_error_word_ends(*e))
    ++e;
  while (e > p && (e[-1] == '.' || e[-1] == '!'))
    --e;
  w.len = (size_t)(e - p);
  return w;
}

int cl_error_site_packages(const char *line_start, const char *marker,
                           const char *line_end, cl_error_span *env,
                           cl_error_span *module) {
  static const size_t marker_len = sizeof "site-packages" - 1;
  env->s = module->s = NULL;
  env->len = module->len = 0;
  const char *after = marker + marker_len;
  if (after >= line_end || !is_separator(*after))
    return 0;
  /* The package: the next component, as a module name is written. */
  const char *m = after + 1, *e = m;
  while (e < line_end && e - m < 256 &&
         (cl_ascii_is_alnum(*e) || *e == '_' || *e == '-' || *e == '.'))
    ++e;
  size_t mlen = (size_t)(e - m);
  if (mlen > 3 && memcmp(e - 3, ".py", 3) == 0)
    mlen -= 3;
  if (mlen == 0 || memchr(m, '.', mlen) ||
      (mlen == 6 && !memcmp(m, "nvidia", 6)))
    mlen = 0;
  /* The environment: back to where the path starts. */
  const char *start = absolute_start(line_start, marker);
  if (!start) {
    start = marker;
    while (start > line_start && marker - start < CL_ERROR_WORD_MAX &&
           !is_quote(start[-1]) && !cl_ascii_is_space(start[-1]) &&
           !(start[-1] == ' ' && start - 1 > line_start && start[-2] == ':'))
      --start;
  }
  env->s = start;
  env->len = (size_t)(after - start);
  module->s = mlen ? m : NULL;
  module->len = mlen;
  return mlen != 0;
}

size_t cl_error_version_at(const char *s, size_t max_len) {
  size_t n = 0;
  if (max_len == 0 || !cl_ascii_is_digit(s[0]))
    return 0;
  while (n < max_len &&
         (cl_ascii_is_digit(s[n]) ||
          (s[n] == '.' && n + 1 < max_len && cl_ascii_is_digit(s[n + 1]))))
    ++n;
  return n;
}
