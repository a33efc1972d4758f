/* SPDX-License-Identifier: MIT */
/*
 * binary_symbols.c - what the symbol readers (elf_symbols.c, pe_symbols.c)
 * build, its release and lookups. The dispatch to them is
 * binary_dispatch.c; cl_binary_read_symbols_file() lives in binary_file.c,
 * beside the file reader it shares with cl_binary_parse_file().
 */
#include "binary/binary_symbols.h"
#include "common/error.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_binary_symbols_free(cl_binary_symbols *s) {
  size_t i, j;
  if (s == NULL) {
    return;
  }
  for (i = 0; s->versions != NULL && i < s->version_count; i++) {
    free(s->versions[i].name);
  }
  free(s->versions);
  for (i = 0; s->defs != NULL && i < s->def_count; i++) {
    if (!s->name_table)
      free(s->defs[i].name);
    free(s->defs[i].forward);
  }
  free(s->defs);
  for (i = 0; s->needs != NULL && i < s->need_count; i++) {
    free(s->needs[i].file);
    for (j = 0; s->needs[i].versions != NULL && j < s->needs[i].version_count;
         j++) {
      free(s->needs[i].versions[j]);
    }
    free(s->needs[i].versions);
  }
  free(s->needs);
  for (i = 0; s->refs != NULL && i < s->ref_count; i++) {
    if (!s->name_table)
      free(s->refs[i].name);
    if (!s->refs_share_needs) {
      free(s->refs[i].version);
      free(s->refs[i].file);
    }
  }
  free(s->refs);
  free(s->name_table);
  free(s->def_slots);
  free(s->def_next);
  cl_symbol_lookup_free(s->lookup);
  memset(s, 0, sizeof *s);
}

/* Eight bytes at a time: C++ names run to hundreds of characters and a
 * library has tens of thousands of them, so a hash of each byte in turn
 * cost more than every lookup it served. Every byte counts: names of one
 * library share long prefixes (_ZN2at6native...) and long suffixes, and
 * differ anywhere between. */
static size_t name_hash(const char *name) {
  size_t length = strlen(name);
  uint64_t h = 0x9e3779b97f4a7c15u ^ length;
  size_t i = 0;
  for (; i + 8 <= length; i += 8) {
    uint64_t word;
    memcpy(&word, name + i, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdu;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  memcpy(&tail, name + i, length - i);
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53u;
  h ^= h >> 32;
  return (size_t)h;
}

static int def_named(const cl_binary_symbols *s, size_t i, const char *name) {
  return strcmp(s->defs[i].name ? s->defs[i].name : "", name) == 0;
}

/* A slot: the hash of its name beside the first definition (plus one), so
 * that a probe compares names only when their hashes are equal. */
typedef struct cl_symbol_slot {
  size_t hash;
  size_t first;
} def_slot;

int cl_binary_symbols_index(cl_binary_symbols *s) {
  if (!s || s->def_slots || s->def_count == 0)
    return CUDALOAD_OK;
  size_t capacity = 16;
  while (capacity < s->def_count * 2 && capacity < SIZE_MAX / 4)
    capacity *= 2;
  def_slot *slots = calloc(capacity, sizeof *slots);
  size_t *next = calloc(s->def_count, sizeof *next);
  size_t *last = calloc(capacity, sizeof *last); /* per slot: its tail + 1 */
  if (!slots || !next || !last) {
    free(slots);
    free(next);
    free(last);
    return CUDALOAD_E_NO_MEMORY;
  }
  for (size_t i = 0; i < s->def_count; ++i) {
    const char *name = s->defs[i].name ? s->defs[i].name : "";
    size_t hash = name_hash(name);
    size_t at = hash & (capacity - 1);
    /* Linear probing over names: a slot holds one name's chain. */
    while (slots[at].first &&
           (slots[at].hash != hash || !def_named(s, slots[at].first - 1, name)))
      at = (at + 1) & (capacity - 1);
    if (!slots[at].first) {
      slots[at].first = i + 1;
      slots[at].hash = hash;
    } else {
      next[last[at] - 1] = i + 1;
    }
    last[at] = i + 1;
  }
  free(last);
  s->def_slots = slots;
  s->def_slot_count = capacity;
  s->def_next = next;
  return CUDALOAD_OK;
}

size_t cl_binary_symbols_first_def(const cl_binary_symbols *s,
                                   const char *name) {
  if (!s || !name)
    return SIZE_MAX;
  if (!s->def_slots) {
    for (size_t i = 0; i < s->def_count; ++i)
      if (def_named(s, i, name))
        return i;
    return SIZE_MAX;
  }
  const def_slot *slots = s->def_slots;
  size_t mask = s->def_slot_count - 1;
  size_t hash = name_hash(name);
  for (size_t at = hash & mask; slots[at].first; at = (at + 1) & mask)
    if (slots[at].hash == hash && def_named(s, slots[at].first - 1, name))
      return slots[at].first - 1;
  return SIZE_MAX;
}

size_t cl_binary_symbols_next_def(const cl_binary_symbols *s, size_t i) {
  if (!s || i >= s->def_count)
    return SIZE_MAX;
  if (s->def_next)
    return s->def_next[i] ? s->def_next[i] - 1 : SIZE_MAX;
  const char *name = s->defs[i].name ? s->defs[i].name : "";
  for (size_t k = i + 1; k < s->def_count; ++k)
    if (def_named(s, k, name))
      return k;
  return SIZE_MAX;
}

int cl_binary_is_loader_entry(const char *name) {
  /* glibc's (also libdl's before 2.34) and Windows' loader entry points;
   * PE imports by ordinal are not refs, and kernel32's are never imported
   * that way. */
  static const char *const openers[] = {
      "dlopen",         "dlmopen",        "LoadLibraryA", "LoadLibraryW",
      "LoadLibraryExA", "LoadLibraryExW", "LdrLoadDll"};
  if (!name || (name[0] != 'd' && name[0] != 'L'))
    return 0;
  for (size_t k = 0; k < sizeof openers / sizeof *openers; ++k)
    if (strcmp(name, openers[k]) == 0)
      return 1;
  return 0;
}

int cl_binary_symbols_open_by_name(const cl_binary_symbols *s) {
  if (s->refs_filtered)
    return s->opens_by_name;
  for (size_t r = 0; r < s->ref_count; ++r)
    if (cl_binary_is_loader_entry(s->refs[r].name))
      return 1;
  return 0;
}

int cl_binary_symbols_defs(const cl_binary_symbols *s, const cl_reader *r,
                           const char *label, const char *name,
                           cl_found_def *found, size_t cap, size_t *count) {
  *count = 0;
  if (!s || !name)
    return CUDALOAD_OK;
  if (s->refs_filtered && s->format == CL_FORMAT_ELF) {
    if (!s->lookup || !r)
      return cl_fail(CUDALOAD_E_UNSUPPORTED,
                     "%s: no hash table to look a name up in", label);
    return cl_elf_lookup_defs(s, r, label, name, found, cap, count);
  }
  for (size_t i = cl_binary_symbols_first_def(s, name); i != SIZE_MAX;
       i = cl_binary_symbols_next_def(s, i)) {
    if (*count < cap)
      found[*count] = (cl_found_def){s->defs[i].version, s->defs[i].hidden,
                                     s->defs[i].weak};
    ++*count;
  }
  return CUDALOAD_OK;
}

int cl_binary_symbols_version_index(const cl_binary_symbols *s,
                                    const char *name) {
  size_t i;
  if (s == NULL || name == NULL) {
    return -1;
  }
  /* A real node before the base entry: the base carries the file's own
   * name, which is often also the name of its one real node
   * (libcudnn.so.9), and symbols are defined under the real node. */
  for (i = 0; i < s->version_count; i++) {
    if (!s->versions[i].is_base && strcmp(s->versions[i].name, name) == 0) {
      return (int)i;
    }
  }
  for (i = 0; i < s->version_count; i++) {
    if (strcmp(s->versions[i].name, name) == 0) {
      return (int)i;
    }
  }
  return -1;
}
