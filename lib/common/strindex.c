/* SPDX-License-Identifier: MIT */
/* strindex.c - a hash index from strings to positions (strindex.h). */
#include "common/strindex.h"
#include "cudaload.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned char fold(unsigned char c, int fold_case) {
  return fold_case && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* FNV-1a over bytes where case folds (Windows names, few and short);
 * otherwise eight bytes at a time, each word multiplied in and its high
 * bits folded down: the keys are paths of 50 to 150 bytes, hashed on
 * every lookup (a symbol's definitions are asked for by path). No seed
 * needed: the keys come from the file system, and a crafted set of
 * colliding names only costs probing time, bounded by the load factor
 * below, never correctness. */
static size_t hash_of(const char *key, int fold_case) {
  uint64_t h = UINT64_C(14695981039346656037);
  const unsigned char *p = (const unsigned char *)key;
  if (fold_case) {
    for (; *p; ++p) {
      h ^= fold(*p, 1);
      h *= UINT64_C(1099511628211);
    }
    return (size_t)(h ^ (h >> 32));
  }
  size_t n = strlen(key);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 32;
  }
  for (; n; --n, ++p) {
    h ^= *p;
    h *= UINT64_C(1099511628211);
  }
  h ^= h >> 29;
  h *= UINT64_C(0xBF58476D1CE4E5B9);
  return (size_t)(h ^ (h >> 32));
}

static int same_key(const char *a, const char *b, int fold_case) {
  if (!fold_case)
    return strcmp(a, b) == 0;
  for (; *a && *b; ++a, ++b)
    if (fold((unsigned char)*a, 1) != fold((unsigned char)*b, 1))
      return 0;
  return *a == *b;
}

void cl_str_index_init(cl_str_index *index, int fold_case) {
  memset(index, 0, sizeof *index);
  index->fold_case = fold_case;
}

/* The slot holding key, or the empty slot where it would go. */
static cl_str_index_slot *slot_for(const cl_str_index *index, const char *key,
                                   size_t hash) {
  size_t mask = index->capacity - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    cl_str_index_slot *slot = &index->slots[i];
    if (!slot->key ||
        (slot->hash == hash && same_key(slot->key, key, index->fold_case)))
      return slot;
  }
}

int cl_str_index_find(const cl_str_index *index, const char *key,
                      size_t *value) {
  if (index->count == 0)
    return 0;
  const cl_str_index_slot *slot =
      slot_for(index, key, hash_of(key, index->fold_case));
  if (!slot->key)
    return 0;
  if (value)
    *value = slot->value;
  return 1;
}

/* Twice the slots, every key moved to its new place (hashes are kept). */
static int grow(cl_str_index *index) {
  size_t capacity = index->capacity ? index->capacity * 2 : 16;
  if (capacity > SIZE_MAX / sizeof(cl_str_index_slot))
    return CUDALOAD_E_NO_MEMORY;
  cl_str_index_slot *slots = calloc(capacity, sizeof *slots);
  if (!slots)
    return CUDALOAD_E_NO_MEMORY;
  cl_str_index grown = *index;
  grown.slots = slots;
  grown.capacity = capacity;
  for (size_t i = 0; i < index->capacity; ++i)
    if (index->slots[i].key)
      *slot_for(&grown, index->slots[i].key, index->slots[i].hash) =
          index->slots[i];
  free(index->slots);
  *index = grown;
  return CUDALOAD_OK;
}

int cl_str_index_add(cl_str_index *index, const char *key, size_t value) {
  /* At most half full, so a probe run stays short. */
  if ((index->count + 1) * 2 > index->capacity && grow(index))
    return CUDALOAD_E_NO_MEMORY;
  size_t hash = hash_of(key, index->fold_case);
  cl_str_index_slot *slot = slot_for(index, key, hash);
  if (slot->key)
    return CUDALOAD_OK; /* already there: the first value stays */
  slot->key = key;
  slot->hash = hash;
  slot->value = value;
  index->count++;
  return CUDALOAD_OK;
}

void cl_str_index_free(cl_str_index *index) {
  free(index->slots);
  index->slots = NULL;
  index->count = index->capacity = 0;
}
