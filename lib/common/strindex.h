/* SPDX-License-Identifier: MIT */
/*
 * strindex.h - a hash index from strings to positions (open addressing,
 * linear probing), so that "was this path seen before?" costs the same
 * however many paths were seen: a scan asks it for every file, root and
 * folder it meets, and a linear search there made discovery quadratic in
 * the number of directory entries (issue 12, item 10).
 *
 * Keys are borrowed, not copied: each must stay valid and unchanged while
 * it is in the index (the callers index strings their own arrays own).
 */
#ifndef CUDALOAD_STRINDEX_H
#define CUDALOAD_STRINDEX_H

#include <stddef.h>

typedef struct cl_str_index_slot {
  const char *key; /* NULL: empty */
  size_t hash;
  size_t value;
} cl_str_index_slot;

typedef struct cl_str_index {
  cl_str_index_slot *slots;
  size_t count, capacity; /* capacity: 0 or a power of two */
  int fold_case;          /* ASCII letters compare case-insensitively */
} cl_str_index;

/* An empty index; fold_case for keys that compare as Windows file names
 * do. Needs no memory until the first key. */
void cl_str_index_init(cl_str_index *index, int fold_case);
/* 1 (and *value, unless value is NULL) when key is in the index, else 0. */
int cl_str_index_find(const cl_str_index *index, const char *key,
                      size_t *value);
/* Add key -> value (a key already there keeps its first value). 0, or
 * CUDALOAD_E_NO_MEMORY with the index unchanged. */
int cl_str_index_add(cl_str_index *index, const char *key, size_t value);
/* Frees the slots (never the keys); the index is empty and usable again. */
void cl_str_index_free(cl_str_index *index);

#endif
