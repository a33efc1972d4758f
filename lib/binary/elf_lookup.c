/* SPDX-License-Identifier: MIT */
/*
 * elf_lookup.c - definitions found by name through an ELF file's hash
 * table (elf_lookup.h), the way glibc's do_lookup_x walks DT_GNU_HASH
 * (bloom filter, bucket, chain) or DT_HASH (bucket, chain). A candidate is
 * a symbol whose hash matches; its entry, name and version index are read
 * and it counts when it is what the whole read calls a definition
 * (elf_symbols.c: defined, global, weak or unique, default or protected,
 * not a section or file symbol) and its name is the one asked. Every read
 * is checked against the table the reader of references checked; anything
 * outside it is an error, and the caller reads the whole table instead.
 */
#include "binary/elf_lookup.h"

#include "binary/binary_internal.h"
#include "common/error.h"
#include "cudaload.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define VERSYM_HIDDEN 0x8000u
#define VERSYM_INDEXES 0x8000u
#define VER_NDX_GLOBAL 1u
#define STB_LOCAL 0u
#define STB_GLOBAL 1u
#define STB_WEAK 2u
#define STB_GNU_UNIQUE 10u
#define STT_SECTION 3u
#define STT_FILE 4u
#define STV_DEFAULT 0u
#define STV_PROTECTED 3u
/* The longest sysv chain followed: a cycle in a hostile file ends here. */
#define MAX_CHAIN_STEPS (1u << 22)

void cl_symbol_lookup_free(cl_symbol_lookup *l) {
  if (!l)
    return;
  free(l->def_of_ndx);
  free(l);
}

typedef struct lookup_read {
  const cl_symbol_lookup *l;
  cl_binary_source src;
} lookup_read;

static uint32_t u32(const lookup_read *lr, const unsigned char *p) {
  return cl_u32(p, lr->l->big_endian);
}

static int bad(const lookup_read *lr, const char *what) {
  return cl_binary_malformed(&lr->src, "%s lies outside its table", what);
}

/* Read len bytes at rel into the hash table. */
static int hash_read(const lookup_read *lr, uint64_t rel, void *buf, size_t len,
                     const char *what) {
  const cl_symbol_lookup *l = lr->l;
  if (rel > l->hash_avail || len > l->hash_avail - rel)
    return bad(lr, what);
  return cl_binary_read(&lr->src, l->hash_off + rel, buf, len, what);
}

static uint32_t gnu_hash(const char *name) {
  uint32_t h = 5381;
  for (const unsigned char *p = (const unsigned char *)name; *p; ++p)
    h = h * 33 + *p;
  return h;
}

static uint32_t sysv_hash(const char *name) {
  uint32_t h = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; ++p) {
    h = (h << 4) + *p;
    uint32_t g = h & 0xf0000000u;
    if (g)
      h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

/* Symbol i, when it is a definition named `name`: into found (as the
 * whole read's cl_symbol_def would be). */
static int candidate(const lookup_read *lr, uint64_t i, const char *name,
                     size_t name_len, const cl_binary_symbols *s,
                     cl_found_def *found, uint64_t *where, size_t cap,
                     size_t *count) {
  const cl_symbol_lookup *l = lr->l;
  if (i == 0 || i >= l->count)
    return bad(lr, "a hash chain's symbol");
  unsigned char entry[24];
  size_t want = l->is64 ? 24 : 16;
  int status = cl_binary_read(&lr->src, l->symtab_off + i * l->syment, entry,
                              want, "dynamic symbol");
  if (status != CUDALOAD_OK)
    return status;
  uint32_t st_name = u32(lr, entry);
  unsigned info = l->is64 ? entry[4] : entry[12];
  unsigned other = l->is64 ? entry[5] : entry[13];
  unsigned shndx = cl_u16(l->is64 ? entry + 6 : entry + 14, l->big_endian);
  unsigned bind = info >> 4, type = info & 0xfu, visibility = other & 0x3u;
  if (shndx == 0 ||
      (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
      (visibility != STV_DEFAULT && visibility != STV_PROTECTED) ||
      type == STT_SECTION || type == STT_FILE)
    return CUDALOAD_OK;
  /* The name and its NUL, when the table holds that many bytes there. */
  if (st_name >= l->strsz || name_len + 1 > l->strsz - st_name)
    return CUDALOAD_OK;
  char stack[256];
  char *text = name_len + 1 <= sizeof stack ? stack : malloc(name_len + 1);
  if (!text)
    return cl_binary_no_memory(&lr->src);
  status = cl_binary_read(&lr->src, l->strtab_off + st_name, text, name_len + 1,
                          "dynamic symbol name");
  int same = status == CUDALOAD_OK && text[name_len] == '\0' &&
             memcmp(text, name, name_len) == 0;
  if (text != stack)
    free(text);
  if (status != CUDALOAD_OK || !same)
    return status;
  unsigned versym = 0;
  if (l->have_versym) {
    unsigned char v[2];
    status = cl_binary_read(&lr->src, l->versym_off + 2 * i, v, 2,
                            "DT_VERSYM entry");
    if (status != CUDALOAD_OK)
      return status;
    versym = cl_u16(v, l->big_endian);
  }
  unsigned ndx = versym & (VERSYM_INDEXES - 1);
  if (*count < cap) {
    if (where)
      where[*count] = i;
    cl_found_def *d = &found[*count];
    d->weak = bind == STB_WEAK;
    d->hidden = (versym & VERSYM_HIDDEN) != 0;
    d->version = ndx > VER_NDX_GLOBAL && ndx < l->ndx_capacity &&
                         l->def_of_ndx[ndx] != 0 &&
                         l->def_of_ndx[ndx] - 1 < s->version_count
                     ? (int)l->def_of_ndx[ndx] - 1
                     : -1;
  }
  ++*count;
  return CUDALOAD_OK;
}

static int gnu_lookup(const lookup_read *lr, const cl_binary_symbols *s,
                      const char *name, cl_found_def *found, size_t cap,
                      size_t *count) {
  const cl_symbol_lookup *l = lr->l;
  uint32_t h = gnu_hash(name);
  size_t name_len = strlen(name);
  unsigned bits = l->is64 ? 64 : 32;
  size_t word_size = l->is64 ? 8 : 4;
  unsigned char word[8];
  uint64_t at = 16 + (uint64_t)((h / bits) % l->bloom_words) * word_size;
  int status = hash_read(lr, at, word, word_size, "DT_GNU_HASH bloom word");
  if (status != CUDALOAD_OK)
    return status;
  uint64_t bloom = l->is64 ? cl_u64(word, l->big_endian) : u32(lr, word);
  /* The shift is the file's: one of 32 or more (a 64-bit table allows up
   * to 63) shifts the 32-bit hash as a 64-bit value would, to 0, where
   * shifting the 32-bit value would be undefined. */
  unsigned shift = l->bloom_shift % bits;
  if (!((bloom >> (h % bits)) & (bloom >> (((uint64_t)h >> shift) % bits)) &
        1u))
    return CUDALOAD_OK; /* absent, as the loader's first test says */
  uint64_t buckets = 16 + (uint64_t)l->bloom_words * word_size;
  unsigned char four[4];
  status = hash_read(lr, buckets + 4 * (uint64_t)(h % l->nbuckets), four, 4,
                     "DT_GNU_HASH bucket");
  if (status != CUDALOAD_OK)
    return status;
  uint64_t i = u32(lr, four);
  if (i == 0)
    return CUDALOAD_OK;
  if (i < l->symoffset)
    return bad(lr, "a DT_GNU_HASH bucket");
  uint64_t chains = buckets + 4 * (uint64_t)l->nbuckets;
  for (;; ++i) {
    status = hash_read(lr, chains + 4 * (i - l->symoffset), four, 4,
                       "DT_GNU_HASH chain");
    if (status != CUDALOAD_OK)
      return status;
    uint32_t link = u32(lr, four);
    if (((link ^ h) >> 1) == 0) {
      status = candidate(lr, i, name, name_len, s, found, NULL, cap, count);
      if (status != CUDALOAD_OK)
        return status;
    }
    if (link & 1u)
      return CUDALOAD_OK;
    if (i + 1 >= l->count)
      return bad(lr, "a DT_GNU_HASH chain");
  }
}

static int sysv_lookup(const lookup_read *lr, const cl_binary_symbols *s,
                       const char *name, cl_found_def *found, size_t cap,
                       size_t *count) {
  const cl_symbol_lookup *l = lr->l;
  uint32_t h = sysv_hash(name);
  size_t name_len = strlen(name);
  unsigned char four[4];
  int status = hash_read(lr, 8 + 4 * (uint64_t)(h % l->nbuckets), four, 4,
                         "DT_HASH bucket");
  if (status != CUDALOAD_OK)
    return status;
  uint64_t chains = 8 + 4 * (uint64_t)l->nbuckets;
  uint64_t i = u32(lr, four);
  /* A DT_HASH chain runs in the order the linker chained it (GNU ld: from
   * the last symbol back), not the file's: what is found is put in symbol
   * table order after, as the whole read lists it. */
  uint64_t *where = cap ? malloc(cap * sizeof *where) : NULL;
  if (cap && !where)
    return cl_binary_no_memory(&lr->src);
  for (uint32_t steps = 0; i != 0; ++steps) {
    if (steps >= MAX_CHAIN_STEPS) {
      free(where);
      return bad(lr, "a DT_HASH chain");
    }
    status = candidate(lr, i, name, name_len, s, found, where, cap, count);
    if (status == CUDALOAD_OK)
      status = hash_read(lr, chains + 4 * i, four, 4, "DT_HASH chain");
    if (status != CUDALOAD_OK) {
      free(where);
      return status;
    }
    i = u32(lr, four);
  }
  size_t n = *count < cap ? *count : cap;
  for (size_t a = 1; a < n; ++a)
    for (size_t b = a; b > 0 && where[b - 1] > where[b]; --b) {
      uint64_t w = where[b];
      where[b] = where[b - 1];
      where[b - 1] = w;
      cl_found_def d = found[b];
      found[b] = found[b - 1];
      found[b - 1] = d;
    }
  free(where);
  return CUDALOAD_OK;
}

int cl_elf_lookup_defs(const cl_binary_symbols *s, const cl_reader *r,
                       const char *label, const char *name, cl_found_def *found,
                       size_t cap, size_t *count) {
  *count = 0;
  lookup_read lr = {s->lookup, {r, label ? label : "(memory)", "ELF"}};
  if (!lr.l)
    return cl_fail(CUDALOAD_E_UNSUPPORTED, "%s: no hash table", lr.src.label);
  if (lr.l->gnu)
    return gnu_lookup(&lr, s, name, found, cap, count);
  return sysv_lookup(&lr, s, name, found, cap, count);
}
