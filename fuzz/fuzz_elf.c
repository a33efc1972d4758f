/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.c - libFuzzer target: the ELF readers on a memory buffer: the
 * dynamic section (cl_elf_parse) and the dynamic symbols with their
 * versions (cl_elf_read_symbols). Every input must give a status (never a
 * crash, a hang or a leak); a success must leave every string non-NULL and
 * every version index inside the version table. The read of references
 * alone (cl_elf_read_references) and the lookups by name through the hash
 * table (cl_elf_lookup_defs) run on the same input: a file the read of
 * references refuses, the whole read refuses too, and a lookup gives a
 * status and version indexes inside the table.
 */
#include "binary/binary.h"
#include "binary/binary_symbols.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t touch_symbols(const cl_binary_symbols *s) {
  size_t n = 0, i, j;
  for (i = 0; i < s->version_count; i++)
    n += strlen(s->versions[i].name);
  for (i = 0; i < s->def_count; i++) {
    if (s->defs[i].version < -1 || s->defs[i].version >= (int)s->version_count)
      abort();
    n += strlen(s->defs[i].name) +
         (s->defs[i].version >= 0 ? strlen(s->versions[s->defs[i].version].name)
                                  : 0);
  }
  for (i = 0; i < s->need_count; i++) {
    n += strlen(s->needs[i].file);
    for (j = 0; j < s->needs[i].version_count; j++)
      n += strlen(s->needs[i].versions[j]);
  }
  for (i = 0; i < s->ref_count; i++) {
    n += strlen(s->refs[i].name);
    if ((s->refs[i].version == NULL) != (s->refs[i].file == NULL))
      abort();
    if (s->refs[i].version)
      n += strlen(s->refs[i].version) + strlen(s->refs[i].file);
  }
  return n;
}

static int keep_every(const char *name, const char *file, void *opaque) {
  (void)file;
  (void)opaque;
  return name[0] != 'x'; /* some kept, some not */
}

/* Look up each name the whole read defines (and one it does not) through
 * refs' hash table. */
static void look_up(const cl_binary_symbols *refs, const cl_reader *r,
                    const cl_binary_symbols *whole) {
  cl_found_def found[8];
  size_t count;
  size_t asked = whole ? whole->def_count : 0;
  if (asked > 64)
    asked = 64;
  for (size_t i = 0; i <= asked; ++i) {
    const char *name = i < asked ? whole->defs[i].name : "cudnnCreate";
    if (cl_elf_lookup_defs(refs, r, "fuzz.so", name, found, 8, &count) != 0)
      continue;
    for (size_t k = 0; k < count && k < 8; ++k)
      if (found[k].version < -1 || found[k].version >= (int)refs->version_count)
        abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cl_memory_source src = {data, size};
  cl_reader r = cl_reader_from_memory(&src);
  cl_binary_info info;
  cl_binary_symbols symbols;
  if (cl_elf_parse(&r, "fuzz.so", &info) == 0) {
    /* Touch what a caller reads. */
    size_t n = strlen(info.machine_name) + strlen(info.soname) +
               strlen(info.runpath) + strlen(info.rpath);
    for (size_t i = 0; i < info.needed_count; ++i)
      n += strlen(info.needed[i]);
    if (n == (size_t)-1)
      abort();
    cl_binary_info_free(&info);
  }
  int whole = cl_elf_read_symbols(&r, "fuzz.so", &symbols);
  if (whole == 0 && touch_symbols(&symbols) == (size_t)-1)
    abort();
  cl_binary_symbols refs;
  int partial = cl_elf_read_references(&r, "fuzz.so", keep_every, NULL, &refs);
  if (partial != 0 && whole == 0)
    abort(); /* refused where the whole read was not */
  if (partial == 0) {
    if (touch_symbols(&refs) == (size_t)-1)
      abort();
    if (refs.lookup)
      look_up(&refs, &r, whole == 0 ? &symbols : NULL);
    cl_binary_symbols_free(&refs);
  }
  if (whole == 0)
    cl_binary_symbols_free(&symbols);
  return 0;
}
