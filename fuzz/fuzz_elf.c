/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.c - libFuzzer target: the ELF readers on a memory buffer: the
 * dynamic section (cl_elf_parse) and the dynamic symbols with their
 * versions (cl_elf_read_symbols). Every input must give a status (never a
 * crash, a hang or a leak); a success must leave every string non-NULL and
 * every version index inside the version table.
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
  if (cl_elf_read_symbols(&r, "fuzz.so", &symbols) == 0) {
    if (touch_symbols(&symbols) == (size_t)-1)
      abort();
    cl_binary_symbols_free(&symbols);
  }
  return 0;
}
