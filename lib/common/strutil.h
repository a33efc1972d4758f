/* SPDX-License-Identifier: MIT */
/* strutil.h - small string, path and growable-array helpers. */
#ifndef CUDALOAD_STRUTIL_H
#define CUDALOAD_STRUTIL_H

#include "common/error.h"

#include <stddef.h>

char *cl_strdup(const char *s);
/* A malloc'ed printf; NULL when out of memory (or a bad format). */
char *cl_strdup_printf(const char *fmt, ...) CL_PRINTF(1, 2);
char *cl_strndup(const char *s, size_t n);
/* "a" + separator + "b" (no doubled separator); malloc'ed. */
char *cl_path_join(const char *a, const char *b);
/* Pointer to the last path component (after '/' or, on any host, '\\'). */
const char *cl_path_basename(const char *path);
/* malloc'ed parent folder of path ("" components kept); NULL if none. */
char *cl_path_dirname(const char *path);
/* Grow *items so it holds at least need elements of elem_size; 0 or
 * CUDALOAD_E_NO_MEMORY. */
int cl_reserve(void **items, size_t *capacity, size_t need, size_t elem_size);
/* ASCII case-insensitive prefix test; a byte-exact suffix test. */
int cl_starts_with_nocase(const char *s, const char *prefix);
/* Whether a and b are equal but for ASCII letter case (how Windows compares
 * module names; never the locale's tolower). */
int cl_ascii_equal_nocase(const char *a, const char *b);
int cl_ends_with(const char *s, const char *suffix);

/* Characters as the names of libraries, specs and files know them: ASCII
 * only, whatever the process's locale. The C library's tolower() and
 * isalnum() follow LC_CTYPE, which a host program such as Python sets from
 * the environment: under tr_TR.UTF-8, tolower('I') is 'I' (its lower case,
 * dotless i, is no single byte), so "CUPTI" would not name cupti, and a
 * Latin-1 locale would take bytes of a UTF-8 name for letters. */
static inline char cl_ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}
static inline int cl_ascii_is_digit(char c) {
  return c >= '0' && c <= '9';
}
static inline int cl_ascii_is_alnum(char c) {
  return cl_ascii_is_digit(c) || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}
static inline int cl_ascii_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}
/* The first n bytes of a and b equal but for the case of ASCII letters. */
int cl_same_nocase(const char *a, const char *b, size_t n);

/* How many of the first len bytes of s to quote in a message that may show
 * at most max of them: len when it fits, else max or fewer, so that the cut
 * falls between UTF-8 characters (the caller marks it, with "..."). Values
 * from outside may be a megabyte long; quoted whole they would push the
 * reason out of the error buffer. */
size_t cl_quote_length(const char *s, size_t len, size_t max);

/* Read at most max bytes from the start of a regular file into a malloc'ed,
 * NUL-terminated buffer (*len excludes the NUL). Refuses folders, FIFOs and
 * devices without blocking. Returns a CUDALOAD_E_* status. */
int cl_read_file_head(const char *path, size_t max, char **text, size_t *len);
/* Its answer form, for a file whose absence or unreadability is an answer
 * (an optional file): the same, writing no error. */
int cl_read_file_head_quiet(const char *path, size_t max, char **text,
                            size_t *len);

/* Names from a folder listing, each malloc'ed. */
typedef struct cl_name_list {
  char **names;
  size_t count, capacity;
} cl_name_list;
/* Whether a name belongs in the list; arg is cl_name_list_read's. */
typedef int (*cl_name_filter)(const char *name, const void *arg);
/* Fills *list with the names in folder dir that keep(name, arg) accepts,
 * writing no error (a folder that cannot be listed is an answer),
 * sorted with order (qsort's comparison of two char **; strcmp's order when
 * NULL) so that nothing depends on the order the file system lists them in.
 * A dir that is not a folder gives an empty list. Returns 0, or
 * CUDALOAD_E_NO_MEMORY with the names collected until then (sorted). Free
 * with cl_name_list_free, also after a failure. */
int cl_name_list_read(const char *dir, cl_name_filter keep, const void *arg,
                      int (*order)(const void *, const void *),
                      cl_name_list *list);
void cl_name_list_free(cl_name_list *list);
#endif
