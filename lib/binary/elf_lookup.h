/* SPDX-License-Identifier: MIT */
/*
 * elf_lookup.h - an ELF file's definitions found by name through the
 * file's own hash table (elf_lookup.c), as the loader finds them, instead
 * of reading every symbol and every name: a consumer of cuBLAS asks a few
 * hundred names of each file in its lookup order, and libtorch_cpu.so
 * holds 85,000 symbols whose names take 6 MB. DT_GNU_HASH first, else
 * DT_HASH, as glibc's do_lookup_x: the bloom filter answers most names
 * absent from one word, a bucket and its chain the rest, and only a
 * symbol whose hash matches has its entry, name and version index read.
 *
 * What the lookup needs is where the tables are, which the reader of
 * references (elf_symbols.c, cl_elf_read_references) works out as it reads
 * the symbol table, or cl_elf_prepare_lookup without reading it. Not part
 * of the ABI.
 */
#ifndef CUDALOAD_ELF_LOOKUP_H
#define CUDALOAD_ELF_LOOKUP_H

#include "binary/binary.h"
#include "binary/binary_symbols.h"

#include <stddef.h>
#include <stdint.h>

/* Where an ELF file's dynamic symbols are (file offsets), as checked by the
 * reader that filled it: everything a lookup reads lies in the file. */
typedef struct cl_symbol_lookup {
  int is64, big_endian;
  uint64_t symtab_off, syment, count;
  uint64_t strtab_off, strsz;
  uint64_t versym_off; /* with have_versym */
  int have_versym;
  /* DT_GNU_HASH (gnu) or DT_HASH (sysv) at hash_off, hash_avail bytes of
   * its segment; the GNU table's header. */
  int gnu, sysv;
  uint64_t hash_off, hash_avail;
  uint32_t nbuckets, symoffset, bloom_words, bloom_shift;
  /* By version index (15 bits): 1 + the index into the symbols' versions of
   * the definition, 0 where none (elf_symbols.c's def_of_ndx). */
  uint32_t *def_of_ndx;
  size_t ndx_capacity;
} cl_symbol_lookup;

/* cl_symbol_lookup_free and cl_elf_lookup_defs are declared in
 * binary_symbols.h, whose reader dispatches to them. */

#endif
