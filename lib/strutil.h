/* strutil.h - small string, path and growable-array helpers. */
#ifndef CUDALOAD_STRUTIL_H
#define CUDALOAD_STRUTIL_H

#include <stddef.h>

char *cl_strdup(const char *s);
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
/* ASCII case-insensitive prefix/suffix tests. */
int cl_starts_with_nocase(const char *s, const char *prefix);
int cl_ends_with(const char *s, const char *suffix);

/* Read at most max bytes from the start of a regular file into a malloc'ed,
 * NUL-terminated buffer (*len excludes the NUL). Refuses folders, FIFOs and
 * devices without blocking. Returns a CUDALOAD_E_* status. */
int cl_read_file_head(const char *path, size_t max, char **text, size_t *len);
#endif
