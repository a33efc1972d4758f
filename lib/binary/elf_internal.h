/* SPDX-License-Identifier: MIT */
/*
 * elf_internal.h - what the two ELF readers share: elf.c (the dynamic
 * section: SONAME, NEEDED, search paths, flags) and elf_symbols.c (the
 * dynamic symbol table and its versions). Both start from the same walk
 * over the header, the program (or section) headers and the dynamic
 * section, and turn the section's virtual addresses into file offsets the
 * same way. Not part of the ABI.
 */
#ifndef CUDALOAD_ELF_INTERNAL_H
#define CUDALOAD_ELF_INTERNAL_H

#include "binary/binary.h"
#include "binary/binary_internal.h"

#include <stddef.h>
#include <stdint.h>

/* Values from the ELF specification (gABI) and the GNU extensions. */
#define CL_PT_LOAD 1u
#define CL_PT_DYNAMIC 2u
#define CL_PT_NOTE 4u
#define CL_SHT_DYNSYM 11u
#define CL_SHT_DYNAMIC 6u
#define CL_SHT_NOTE 7u
#define CL_SHT_NOBITS 8u
#define CL_SHF_ALLOC 2u
#define CL_EM_S390 22u

typedef struct cl_elf {
  cl_binary_source src;
  int is64;
  int big_endian;
  uint64_t string_bytes; /* taken so far, against CL_BINARY_MAX_STRING_TOTAL */
} cl_elf;

/* Where the header tables are, after PN_XNUM and friends are resolved. */
typedef struct cl_elf_layout {
  uint64_t phoff;
  uint64_t phentsize;
  uint64_t phnum;
  uint64_t shoff;
  uint64_t shentsize;
  uint64_t shnum;
  uint64_t shstrndx; /* e_shstrndx as read (SHN_XINDEX: see section 0) */
} cl_elf_layout;

typedef struct cl_elf_phdr {
  uint32_t type;
  uint64_t offset;
  uint64_t vaddr;
  uint64_t filesz;
  uint64_t align;
} cl_elf_phdr;

typedef struct cl_elf_shdr {
  uint32_t name; /* offset in the section name table (e_shstrndx) */
  uint32_t type;
  uint64_t flags;
  uint64_t addr;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
  uint32_t info;
  uint64_t entsize;
} cl_elf_shdr;

/* What the dynamic section says, before its strings are looked up. Where a
 * tag occurs twice the first entry counts, except for the flags (below). */
typedef struct cl_elf_dynamic {
  int have_strtab, have_strsz, have_soname, have_runpath, have_rpath;
  uint64_t strtab_addr;
  uint64_t strsz;
  uint64_t soname;
  uint64_t runpath;
  uint64_t rpath;
  uint64_t *needed; /* string table indexes, file order */
  size_t needed_count;
  /* The symbol tables (addresses) for elf_symbols.c. */
  int have_symtab, have_syment, have_hash, have_gnu_hash, have_versym;
  int have_verdef, have_verdefnum, have_verneed, have_verneednum;
  uint64_t symtab_addr;
  uint64_t syment;
  uint64_t hash_addr;
  uint64_t gnu_hash_addr;
  uint64_t versym_addr;
  uint64_t verdef_addr;
  uint64_t verdefnum;
  uint64_t verneed_addr;
  uint64_t verneednum;
  /* DT_SYMBOLIC, or DF_SYMBOLIC in DT_FLAGS; DF_1_NODEFLIB in DT_FLAGS_1.
   * As in glibc's elf_get_dynamic_info, the last DT_FLAGS and DT_FLAGS_1
   * entries are the ones that count. */
  int symbolic;
  int nodeflib;
} cl_elf_dynamic;

/* One ELF file as both readers see it after cl_elf_read_headers(). */
typedef struct cl_elf_file {
  cl_elf e;
  unsigned machine;
  cl_elf_layout l;
  int have_dynamic;
  cl_elf_dynamic d;
  /* Without program headers there is no address map: the dynamic section's
   * section header links to the string table's, whose file offset and size
   * are then taken directly. */
  int strtab_from_section;
  uint64_t strtab_off;
  uint64_t strtab_size;
} cl_elf_file;

/* Decoding in the file's byte order and class. */
uint16_t cl_elf_u16(const cl_elf *e, const unsigned char *p);
uint32_t cl_elf_u32(const cl_elf *e, const unsigned char *p);
uint64_t cl_elf_u64(const cl_elf *e, const unsigned char *p);
/* An address, offset or dynamic value: 4 bytes in ELF32, 8 in ELF64. */
uint64_t cl_elf_word(const cl_elf *e, const unsigned char *p);

/* Reads the identification and the header, resolves the table layout, and
 * finds and reads the dynamic section when there is one (f->have_dynamic).
 * f->e.src must be set; the rest of *f is filled in. Free with
 * cl_elf_file_free() whatever the result. */
int cl_elf_read_headers(cl_elf_file *f);
void cl_elf_file_free(cl_elf_file *f);

int cl_elf_read_shdr(const cl_elf *e, const cl_elf_layout *l, uint64_t index,
                     cl_elf_shdr *sh);

/* The file offset of virtual address addr and how many bytes of file data
 * follow it in its PT_LOAD segment (without program headers: in its
 * allocated section), or an error naming `what` ("<what> address 0x.. is
 * not in any PT_LOAD segment"). */
int cl_elf_map_address(const cl_elf_file *f, uint64_t addr, const char *what,
                       uint64_t *off, uint64_t *avail);

/* The dynamic string table's file offset and size (bounded by DT_STRSZ and
 * by its segment). */
int cl_elf_string_table(const cl_elf_file *f, uint64_t *off, uint64_t *size);

#endif
