/* SPDX-License-Identifier: MIT */
/*
 * elf.c - a bounds-checked reader for the dynamic section of ELF files.
 *
 * Only the headers, the program (or section) headers, the dynamic section and
 * the few strings it names are read, each with its own small read: real CUDA
 * libraries are hundreds of megabytes, and none of that needs to be touched.
 * Every offset, size and count comes from a possibly hostile file, so each is
 * checked against the file size with arithmetic that cannot overflow, and
 * every loop runs over a capped count.
 *
 * The walk to the dynamic section and the map from its addresses to file
 * offsets are shared with elf_symbols.c (elf_internal.h), which reads the
 * symbol tables the section points at; this file notes their addresses and
 * the flags (DT_SYMBOLIC, DF_1_NODEFLIB) on the way.
 */
#include "binary/binary.h"
#include "binary/binary_internal.h"
#include "binary/elf_internal.h"
#include "common/error.h"
#include "common/strutil.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Caps on counts read from the file. Real files stay far below them; they
 * bound the work a hostile file can cause. */
#define CL_ELF_MAX_PHDRS 65536u
#define CL_ELF_MAX_SECTIONS 65536u
#define CL_ELF_MAX_DYN 65536u
/* A string from the file, its NUL included, may be at most
 * CL_BINARY_MAX_STRING bytes long, all strings of one file together
 * CL_BINARY_MAX_STRING_TOTAL: a few NEEDED entries need a few hundred bytes,
 * so this only stops a file that names one long string 65536 times. */

/* Values from the ELF specification. */
#define CL_EI_CLASS 4
#define CL_EI_DATA 5
#define CL_ELFCLASS32 1
#define CL_ELFCLASS64 2
#define CL_ELFDATA2LSB 1
#define CL_ELFDATA2MSB 2
#define CL_PN_XNUM 0xffffu
#define CL_DT_NULL 0
#define CL_DT_NEEDED 1
#define CL_DT_HASH 4
#define CL_DT_STRTAB 5
#define CL_DT_SYMTAB 6
#define CL_DT_STRSZ 10
#define CL_DT_SYMENT 11
#define CL_DT_SONAME 14
#define CL_DT_RPATH 15
#define CL_DT_SYMBOLIC 16
#define CL_DT_RUNPATH 29
#define CL_DT_FLAGS 30
#define CL_DT_GNU_HASH 0x6ffffef5u
#define CL_DT_VERSYM 0x6ffffff0u
#define CL_DT_FLAGS_1 0x6ffffffbu
#define CL_DT_VERDEF 0x6ffffffcu
#define CL_DT_VERDEFNUM 0x6ffffffdu
#define CL_DT_VERNEED 0x6ffffffeu
#define CL_DT_VERNEEDNUM 0x6fffffffu
#define CL_DF_SYMBOLIC 0x2u
#define CL_DF_1_NODEFLIB 0x800u

#define CL_EM_386 3u
#define CL_EM_PPC64 21u
#define CL_EM_ARM 40u
#define CL_EM_X86_64 62u
#define CL_EM_AARCH64 183u
#define CL_EM_RISCV 243u

uint16_t cl_elf_u16(const cl_elf *e, const unsigned char *p) {
  return cl_u16(p, e->big_endian);
}

uint32_t cl_elf_u32(const cl_elf *e, const unsigned char *p) {
  return cl_u32(p, e->big_endian);
}

uint64_t cl_elf_u64(const cl_elf *e, const unsigned char *p) {
  return cl_u64(p, e->big_endian);
}

uint64_t cl_elf_word(const cl_elf *e, const unsigned char *p) {
  return e->is64 ? cl_elf_u64(e, p) : cl_elf_u32(e, p);
}

static char *elf_machine_name(unsigned machine, int is64, int big_endian) {
  char buf[32];
  switch (machine) {
  case CL_EM_X86_64:
    return cl_strdup("x86_64");
  case CL_EM_386:
    return cl_strdup("i386");
  case CL_EM_AARCH64:
    return cl_strdup("aarch64");
  case CL_EM_ARM:
    return cl_strdup("arm");
  case CL_EM_PPC64:
    return cl_strdup(big_endian ? "ppc64" : "ppc64le");
  case CL_EM_S390:
    return cl_strdup(is64 ? "s390x" : "s390");
  case CL_EM_RISCV:
    return cl_strdup(is64 ? "riscv64" : "riscv32");
  default:
    snprintf(buf, sizeof buf, "unknown(0x%x)", machine);
    return cl_strdup(buf);
  }
}

/* The byte offset of entry `index` of a table, or an error when it does not
 * fit in 64 bits (index and entsize are both below 2^17, so the product
 * cannot overflow; only the addition can). */
static int elf_table_entry(const cl_elf *e, uint64_t table, uint64_t index,
                           uint64_t entsize, const char *what, uint64_t *off) {
  uint64_t rel = index * entsize;
  if (rel > UINT64_MAX - table) {
    return cl_binary_malformed(&e->src, "%s table at 0x%" PRIx64 " overflows",
                               what, table);
  }
  *off = table + rel;
  return CUDALOAD_OK;
}

static int elf_read_phdr(const cl_elf *e, const cl_elf_layout *l,
                         uint64_t index, cl_elf_phdr *ph) {
  unsigned char buf[56];
  size_t len = e->is64 ? 56 : 32;
  uint64_t off = 0;
  int status =
      elf_table_entry(e, l->phoff, index, l->phentsize, "program header", &off);
  if (status == CUDALOAD_OK) {
    status = cl_binary_read(&e->src, off, buf, len, "program header");
  }
  if (status != CUDALOAD_OK) {
    return status;
  }
  ph->type = cl_elf_u32(e, buf);
  if (e->is64) {
    ph->offset = cl_elf_u64(e, buf + 8);
    ph->vaddr = cl_elf_u64(e, buf + 16);
    ph->filesz = cl_elf_u64(e, buf + 32);
    ph->align = cl_elf_u64(e, buf + 48);
  } else {
    ph->offset = cl_elf_u32(e, buf + 4);
    ph->vaddr = cl_elf_u32(e, buf + 8);
    ph->filesz = cl_elf_u32(e, buf + 16);
    ph->align = cl_elf_u32(e, buf + 28);
  }
  return CUDALOAD_OK;
}

int cl_elf_read_shdr(const cl_elf *e, const cl_elf_layout *l, uint64_t index,
                     cl_elf_shdr *sh) {
  unsigned char buf[64];
  size_t len = e->is64 ? 64 : 40;
  uint64_t off = 0;
  int status =
      elf_table_entry(e, l->shoff, index, l->shentsize, "section header", &off);
  if (status == CUDALOAD_OK) {
    status = cl_binary_read(&e->src, off, buf, len, "section header");
  }
  if (status != CUDALOAD_OK) {
    return status;
  }
  sh->name = cl_elf_u32(e, buf);
  sh->type = cl_elf_u32(e, buf + 4);
  if (e->is64) {
    sh->flags = cl_elf_u64(e, buf + 8);
    sh->addr = cl_elf_u64(e, buf + 16);
    sh->offset = cl_elf_u64(e, buf + 24);
    sh->size = cl_elf_u64(e, buf + 32);
    sh->link = cl_elf_u32(e, buf + 40);
    sh->info = cl_elf_u32(e, buf + 44);
    sh->entsize = cl_elf_u64(e, buf + 56);
  } else {
    sh->flags = cl_elf_u32(e, buf + 8);
    sh->addr = cl_elf_u32(e, buf + 12);
    sh->offset = cl_elf_u32(e, buf + 16);
    sh->size = cl_elf_u32(e, buf + 20);
    sh->link = cl_elf_u32(e, buf + 24);
    sh->info = cl_elf_u32(e, buf + 28);
    sh->entsize = cl_elf_u32(e, buf + 36);
  }
  return CUDALOAD_OK;
}

static int elf_check_table(const cl_elf *e, uint64_t off, uint64_t count,
                           uint64_t entsize, const char *what) {
  uint64_t size = e->src.r->size;
  if (count == 0) {
    return CUDALOAD_OK;
  }
  if (off >= size) {
    return cl_binary_malformed(
        &e->src, "%s offset 0x%" PRIx64 " past end of file (size %" PRIu64 ")",
        what, off, size);
  }
  /* count and entsize are below 2^17 each: the product cannot overflow. */
  if (count * entsize > size - off) {
    return cl_binary_malformed(
        &e->src,
        "%s at 0x%" PRIx64 " (%" PRIu64 " entries of %" PRIu64
        " bytes) runs past end of file (size %" PRIu64 ")",
        what, off, count, entsize, size);
  }
  return CUDALOAD_OK;
}

/* Checks the table entry sizes and resolves the extended counts: with more
 * than 0xfffe program headers or 0xfeff sections, the real counts live in
 * section header 0. */
static int elf_resolve_layout(const cl_elf *e, cl_elf_layout *l) {
  uint64_t min_ph = e->is64 ? 56 : 32;
  uint64_t min_sh = e->is64 ? 64 : 40;
  int need_section0 = l->phnum == CL_PN_XNUM || (l->shnum == 0 && l->shoff);
  cl_elf_shdr sh0;
  int status;

  if (l->shoff == 0) {
    l->shnum = 0;
  }
  if ((l->shnum > 0 || need_section0) && l->shentsize < min_sh) {
    return cl_binary_malformed(&e->src,
                               "section header size %" PRIu64 " below %" PRIu64,
                               l->shentsize, min_sh);
  }
  if (need_section0) {
    if (l->shoff == 0) {
      return cl_binary_malformed(&e->src,
                                 "extended program header count without "
                                 "section headers");
    }
    status = cl_elf_read_shdr(e, l, 0, &sh0);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (l->phnum == CL_PN_XNUM) {
      l->phnum = sh0.info;
    }
    if (l->shnum == 0) {
      l->shnum = sh0.size;
    }
  }
  if (l->phnum > CL_ELF_MAX_PHDRS) {
    return cl_binary_malformed(&e->src,
                               "%" PRIu64 " program headers, more than %u",
                               l->phnum, CL_ELF_MAX_PHDRS);
  }
  if (l->shnum > CL_ELF_MAX_SECTIONS) {
    return cl_binary_malformed(&e->src,
                               "%" PRIu64 " section headers, more than %u",
                               l->shnum, CL_ELF_MAX_SECTIONS);
  }
  if (l->phnum > 0 && l->phentsize < min_ph) {
    return cl_binary_malformed(&e->src,
                               "program header size %" PRIu64 " below %" PRIu64,
                               l->phentsize, min_ph);
  }
  /* The whole table must be in the file, not only the entries a lazy walk
   * happens to reach; the section table is checked the same way when it is
   * the one used. */
  status = elf_check_table(e, l->phoff, l->phnum, l->phentsize,
                           "program header table");
  if (status == CUDALOAD_OK && l->phnum == 0) {
    status = elf_check_table(e, l->shoff, l->shnum, l->shentsize,
                             "section header table");
  }
  return status;
}

/* Reads the NUL-terminated string at index idx of a string table that starts
 * at file offset table and holds table_size bytes. */
static int elf_read_string(cl_elf *e, uint64_t table, uint64_t table_size,
                           uint64_t idx, const char *what, char **out) {
  uint64_t off, avail;
  int status;

  if (idx >= table_size) {
    return cl_binary_malformed(&e->src,
                               "%s string index %" PRIu64
                               " outside the string table (size %" PRIu64 ")",
                               what, idx, table_size);
  }
  if (idx > UINT64_MAX - table || table + idx >= e->src.r->size) {
    return cl_binary_malformed(&e->src,
                               "%s string at table 0x%" PRIx64 " + %" PRIu64
                               " past end of file (size %" PRIu64 ")",
                               what, table, idx, e->src.r->size);
  }
  off = table + idx;
  avail = table_size - idx;
  if (avail > e->src.r->size - off) {
    avail = e->src.r->size - off;
  }
  if (avail > CL_BINARY_MAX_STRING) {
    avail = CL_BINARY_MAX_STRING;
  }
  status = cl_binary_read_string(&e->src, off, avail, "dynamic string",
                                 &e->string_bytes, "dynamic strings", out);
  if (status != CUDALOAD_OK || *out != NULL) {
    return status;
  }
  if (avail == CL_BINARY_MAX_STRING) {
    return cl_binary_malformed(
        &e->src, "%s string at 0x%" PRIx64 " longer than %u bytes", what, off,
        CL_BINARY_MAX_STRING - 1);
  }
  return cl_binary_malformed(&e->src,
                             "%s string at 0x%" PRIx64
                             " not NUL-terminated before the end of its table",
                             what, off);
}

/* A case of the two switches below: the first entry with a tag counts. */
#define CL_ELF_FIRST(flag, field)                                              \
  if (!d->flag) {                                                              \
    d->flag = 1;                                                               \
    d->field = val;                                                            \
  }                                                                            \
  break

/* The tags elf_symbols.c needs: the first of each counts. */
static void elf_note_symbol_tag(cl_elf_dynamic *d, uint64_t tag, uint64_t val) {
  switch (tag) {
  case CL_DT_SYMTAB:
    CL_ELF_FIRST(have_symtab, symtab_addr);
  case CL_DT_SYMENT:
    CL_ELF_FIRST(have_syment, syment);
  case CL_DT_HASH:
    CL_ELF_FIRST(have_hash, hash_addr);
  case CL_DT_GNU_HASH:
    CL_ELF_FIRST(have_gnu_hash, gnu_hash_addr);
  case CL_DT_VERSYM:
    CL_ELF_FIRST(have_versym, versym_addr);
  case CL_DT_VERDEF:
    CL_ELF_FIRST(have_verdef, verdef_addr);
  case CL_DT_VERDEFNUM:
    CL_ELF_FIRST(have_verdefnum, verdefnum);
  case CL_DT_VERNEED:
    CL_ELF_FIRST(have_verneed, verneed_addr);
  case CL_DT_VERNEEDNUM:
    CL_ELF_FIRST(have_verneednum, verneednum);
  default:
    break;
  }
}

/* One entry of the dynamic section; 1 at DT_NULL, which ends it. */
static int elf_note_dynamic_entry(cl_elf_dynamic *d, uint64_t tag,
                                  uint64_t val) {
  switch (tag) {
  case CL_DT_NULL:
    return 1;
  case CL_DT_NEEDED:
    d->needed[d->needed_count++] = val;
    break;
  case CL_DT_STRTAB:
    CL_ELF_FIRST(have_strtab, strtab_addr);
  case CL_DT_STRSZ:
    CL_ELF_FIRST(have_strsz, strsz);
  case CL_DT_SONAME:
    CL_ELF_FIRST(have_soname, soname);
  case CL_DT_RUNPATH:
    CL_ELF_FIRST(have_runpath, runpath);
  case CL_DT_RPATH:
    CL_ELF_FIRST(have_rpath, rpath);
  case CL_DT_SYMBOLIC:
    d->symbolic = 1;
    break;
  case CL_DT_FLAGS:
    /* glibc sets DT_SYMBOLIC from DF_SYMBOLIC; it never clears it. */
    if (val & CL_DF_SYMBOLIC) {
      d->symbolic = 1;
    }
    break;
  case CL_DT_FLAGS_1:
    d->nodeflib = (val & CL_DF_1_NODEFLIB) != 0;
    break;
  default:
    elf_note_symbol_tag(d, tag, val);
    break;
  }
  return 0;
}
#undef CL_ELF_FIRST

static int elf_read_dynamic(const cl_elf *e, uint64_t dyn_off,
                            uint64_t dyn_size, cl_elf_dynamic *d) {
  /* Entries are read 64 at a time to keep the number of reads small. */
  unsigned char chunk[64 * 16];
  uint64_t entsize = e->is64 ? 16 : 8;
  uint64_t count = dyn_size / entsize;
  uint64_t i = 0, j;
  int status;

  if (count == 0) {
    return CUDALOAD_OK;
  }
  if (dyn_off >= e->src.r->size) {
    return cl_binary_malformed(&e->src,
                               "dynamic section offset 0x%" PRIx64
                               " past end of file (size %" PRIu64 ")",
                               dyn_off, e->src.r->size);
  }
  if (count > (e->src.r->size - dyn_off) / entsize) {
    return cl_binary_malformed(&e->src,
                               "dynamic section at 0x%" PRIx64 " (%" PRIu64
                               " entries) runs past end of file (size %" PRIu64
                               ")",
                               dyn_off, count, e->src.r->size);
  }
  /* DT_NULL ends a real section after a few dozen entries; the cap only
   * bounds the work on a file without one. */
  if (count > CL_ELF_MAX_DYN) {
    count = CL_ELF_MAX_DYN;
  }
  d->needed = malloc((size_t)count * sizeof *d->needed);
  if (d->needed == NULL) {
    return cl_binary_no_memory(&e->src);
  }
  while (i < count) {
    uint64_t n = count - i < 64 ? count - i : 64;
    status = cl_binary_read(&e->src, dyn_off + i * entsize, chunk,
                            (size_t)(n * entsize), "dynamic section");
    if (status != CUDALOAD_OK) {
      return status;
    }
    for (j = 0; j < n; j++) {
      const unsigned char *ent = chunk + j * entsize;
      /* Tags are signed in the specification, but every tag used here is
       * small and positive, so comparing unsigned values is enough. */
      uint64_t tag = cl_elf_word(e, ent);
      uint64_t val = cl_elf_word(e, ent + entsize / 2);
      if (elf_note_dynamic_entry(d, tag, val)) {
        return CUDALOAD_OK;
      }
    }
    i += n;
  }
  return CUDALOAD_OK;
}

/* Translates a virtual address into a file offset through the PT_LOAD
 * segments, and says how many of the segment's file bytes follow it. */
static int elf_map_by_segments(const cl_elf_file *f, uint64_t addr,
                               const char *what, uint64_t *off,
                               uint64_t *avail) {
  uint64_t i;
  int status;
  for (i = 0; i < f->l.phnum; i++) {
    cl_elf_phdr ph;
    uint64_t delta;
    status = elf_read_phdr(&f->e, &f->l, i, &ph);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (ph.type != CL_PT_LOAD || addr < ph.vaddr) {
      continue;
    }
    delta = addr - ph.vaddr;
    if (delta >= ph.filesz) {
      continue;
    }
    if (delta > UINT64_MAX - ph.offset) {
      return cl_binary_malformed(
          &f->e.src, "PT_LOAD segment at offset 0x%" PRIx64 " overflows",
          ph.offset);
    }
    *off = ph.offset + delta;
    *avail = ph.filesz - delta;
    return CUDALOAD_OK;
  }
  return cl_binary_malformed(
      &f->e.src, "%s address 0x%" PRIx64 " is not in any PT_LOAD segment", what,
      addr);
}

/* The same through the allocated sections, for a file without program
 * headers (which no loader maps, but whose tables can still be read). */
static int elf_map_by_sections(const cl_elf_file *f, uint64_t addr,
                               const char *what, uint64_t *off,
                               uint64_t *avail) {
  uint64_t i;
  int status;
  for (i = 1; i < f->l.shnum; i++) {
    cl_elf_shdr sh;
    uint64_t delta;
    status = cl_elf_read_shdr(&f->e, &f->l, i, &sh);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if ((sh.flags & CL_SHF_ALLOC) == 0 || sh.type == CL_SHT_NOBITS ||
        addr < sh.addr) {
      continue;
    }
    delta = addr - sh.addr;
    if (delta >= sh.size) {
      continue;
    }
    if (delta > UINT64_MAX - sh.offset) {
      return cl_binary_malformed(
          &f->e.src, "section at offset 0x%" PRIx64 " overflows", sh.offset);
    }
    *off = sh.offset + delta;
    *avail = sh.size - delta;
    return CUDALOAD_OK;
  }
  return cl_binary_malformed(
      &f->e.src, "%s address 0x%" PRIx64 " is not in any allocated section",
      what, addr);
}

int cl_elf_map_address(const cl_elf_file *f, uint64_t addr, const char *what,
                       uint64_t *off, uint64_t *avail) {
  return f->l.phnum > 0 ? elf_map_by_segments(f, addr, what, off, avail)
                        : elf_map_by_sections(f, addr, what, off, avail);
}

int cl_elf_string_table(const cl_elf_file *f, uint64_t *off, uint64_t *size) {
  const cl_elf_dynamic *d = &f->d;
  int status;
  if (f->strtab_from_section) {
    *off = f->strtab_off;
    *size = f->strtab_size;
    return CUDALOAD_OK;
  }
  if (!d->have_strtab) {
    return cl_binary_malformed(&f->e.src,
                               "dynamic section names strings but has no "
                               "DT_STRTAB");
  }
  status =
      cl_elf_map_address(f, d->strtab_addr, "dynamic string table", off, size);
  if (status == CUDALOAD_OK && d->have_strsz && d->strsz < *size) {
    *size = d->strsz;
  }
  return status;
}

/* The file header: class, byte order, machine, and where the program and
 * section headers are (checked by elf_resolve_layout). */
static int elf_read_file_header(cl_elf_file *f) {
  cl_elf *e = &f->e;
  cl_elf_layout *l = &f->l;
  unsigned char eh[64];
  int status;

  status = cl_binary_read(&e->src, 0, eh, 16, "identification");
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (memcmp(eh,
             "\x7f"
             "ELF",
             4) != 0) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED, "%s: not an ELF file (bad magic)",
                   e->src.label);
  }
  if (eh[CL_EI_CLASS] != CL_ELFCLASS32 && eh[CL_EI_CLASS] != CL_ELFCLASS64) {
    return cl_binary_malformed(&e->src, "unknown class %u", eh[CL_EI_CLASS]);
  }
  if (eh[CL_EI_DATA] != CL_ELFDATA2LSB && eh[CL_EI_DATA] != CL_ELFDATA2MSB) {
    return cl_binary_malformed(&e->src, "unknown data encoding %u",
                               eh[CL_EI_DATA]);
  }
  e->is64 = eh[CL_EI_CLASS] == CL_ELFCLASS64;
  e->big_endian = eh[CL_EI_DATA] == CL_ELFDATA2MSB;
  status = cl_binary_read(&e->src, 0, eh, e->is64 ? 64 : 52, "header");
  if (status != CUDALOAD_OK) {
    return status;
  }
  f->machine = cl_elf_u16(e, eh + 18);

  if (e->is64) {
    l->phoff = cl_elf_u64(e, eh + 32);
    l->shoff = cl_elf_u64(e, eh + 40);
    l->phentsize = cl_elf_u16(e, eh + 54);
    l->phnum = cl_elf_u16(e, eh + 56);
    l->shentsize = cl_elf_u16(e, eh + 58);
    l->shnum = cl_elf_u16(e, eh + 60);
    l->shstrndx = cl_elf_u16(e, eh + 62);
  } else {
    l->phoff = cl_elf_u32(e, eh + 28);
    l->shoff = cl_elf_u32(e, eh + 32);
    l->phentsize = cl_elf_u16(e, eh + 42);
    l->phnum = cl_elf_u16(e, eh + 44);
    l->shentsize = cl_elf_u16(e, eh + 46);
    l->shnum = cl_elf_u16(e, eh + 48);
    l->shstrndx = cl_elf_u16(e, eh + 50);
  }
  return CUDALOAD_OK;
}

/* The loader's view: the file range of PT_DYNAMIC, if there is one. */
static int elf_find_dynamic_segment(cl_elf_file *f, uint64_t *dyn_off,
                                    uint64_t *dyn_size) {
  uint64_t i;
  int status;
  for (i = 0; i < f->l.phnum && !f->have_dynamic; i++) {
    cl_elf_phdr ph;
    status = elf_read_phdr(&f->e, &f->l, i, &ph);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (ph.type == CL_PT_DYNAMIC) {
      f->have_dynamic = 1;
      *dyn_off = ph.offset;
      *dyn_size = ph.filesz;
    }
  }
  return CUDALOAD_OK;
}

/* For a file without program headers: the SHT_DYNAMIC section's range and
 * that of the string table it links to. */
static int elf_find_dynamic_section(cl_elf_file *f, uint64_t *dyn_off,
                                    uint64_t *dyn_size) {
  cl_elf *e = &f->e;
  cl_elf_layout *l = &f->l;
  uint64_t i;
  int status;
  for (i = 0; l->phnum == 0 && i < l->shnum && !f->have_dynamic; i++) {
    cl_elf_shdr sh, strtab;
    status = cl_elf_read_shdr(e, l, i, &sh);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (sh.type != CL_SHT_DYNAMIC) {
      continue;
    }
    /* Without program headers there is no address map, so the section's
     * link to its string table gives the file offset directly. */
    if (sh.link == 0 || sh.link >= l->shnum) {
      return cl_binary_malformed(
          &e->src,
          "dynamic section links to string table section "
          "%u of %" PRIu64,
          sh.link, l->shnum);
    }
    status = cl_elf_read_shdr(e, l, sh.link, &strtab);
    if (status != CUDALOAD_OK) {
      return status;
    }
    f->have_dynamic = 1;
    f->strtab_from_section = 1;
    *dyn_off = sh.offset;
    *dyn_size = sh.size;
    f->strtab_off = strtab.offset;
    f->strtab_size = strtab.size;
  }
  return CUDALOAD_OK;
}

int cl_elf_read_headers(cl_elf_file *f) {
  uint64_t dyn_off = 0, dyn_size = 0;
  int status = elf_read_file_header(f);
  if (status == CUDALOAD_OK) {
    status = elf_resolve_layout(&f->e, &f->l);
  }
  /* The loader's view first: PT_DYNAMIC. Only a file without program
   * headers (stripped of them, or an odd linker's output) falls back to the
   * section headers. */
  if (status == CUDALOAD_OK) {
    status = elf_find_dynamic_segment(f, &dyn_off, &dyn_size);
  }
  if (status == CUDALOAD_OK) {
    status = elf_find_dynamic_section(f, &dyn_off, &dyn_size);
  }
  if (status == CUDALOAD_OK && f->have_dynamic) {
    status = elf_read_dynamic(&f->e, dyn_off, dyn_size, &f->d);
  }
  return status;
}

void cl_elf_file_free(cl_elf_file *f) {
  free(f->d.needed);
  f->d.needed = NULL;
  f->d.needed_count = 0;
}

/* The GNU build ID among the notes of one PT_NOTE segment (bytes of them
 * read): "gnu:" and its bytes in hex into id, else id left as it was. */
static void elf_build_id_in(const cl_elf *e, const unsigned char *notes,
                            size_t len, uint64_t align, char *id,
                            size_t id_size) {
  size_t at = 0;
  /* Notes are padded to 4 bytes, or 8 where the segment says so (64-bit
   * .note.gnu.property). */
  size_t pad = align == 8 ? 8 : 4;
  while (len - at >= 12) {
    uint32_t namesz = cl_elf_u32(e, notes + at);
    uint32_t descsz = cl_elf_u32(e, notes + at + 4);
    uint32_t type = cl_elf_u32(e, notes + at + 8);
    size_t name_at = at + 12;
    if (namesz > len - name_at)
      return;
    size_t desc_at = name_at + ((namesz + pad - 1) / pad) * pad;
    if (desc_at > len || descsz > len - desc_at)
      return;
    /* NT_GNU_BUILD_ID (3) of owner "GNU"; a longer ID than a 256-bit
     * hash is no ID we know. */
    if (type == 3 && namesz == 4 && memcmp(notes + name_at, "GNU", 4) == 0 &&
        descsz > 0 && 4 + 2 * (size_t)descsz < id_size) {
      /* Two hex digits a byte, without a formatting per byte: every file
       * the model parses has one (a preload parses about 20). */
      static const char hex[] = "0123456789abcdef";
      strcpy(id, "gnu:");
      for (uint32_t k = 0; k < descsz; ++k) {
        id[4 + 2 * k] = hex[notes[desc_at + k] >> 4];
        id[5 + 2 * k] = hex[notes[desc_at + k] & 15];
      }
      id[4 + 2 * (size_t)descsz] = '\0';
      return;
    }
    size_t next = desc_at + ((descsz + pad - 1) / pad) * pad;
    if (next <= at || next > len)
      return;
    at = next;
  }
}

/* The notes of len bytes at offset of the file, searched for the build
 * ID. */
static void elf_build_id_at(cl_elf_file *f, uint64_t offset, uint64_t size,
                            uint64_t align, char *id, size_t id_size) {
  unsigned char notes[1024];
  if (size < 12 || offset > f->e.src.r->size ||
      size > f->e.src.r->size - offset)
    return;
  size_t len = size < sizeof notes ? (size_t)size : sizeof notes;
  if (cl_binary_read(&f->e.src, offset, notes, len, "note") == CUDALOAD_OK)
    elf_build_id_in(&f->e, notes, len, align, id, id_size);
}

/* The file's GNU build ID: from its PT_NOTE segments (beside the program
 * headers, in the first page the read-ahead window already holds), else
 * from its SHT_NOTE sections: patchelf, which NVIDIA's wheels and
 * auditwheel run, can leave PT_NOTE pointing at other bytes and the note
 * section moved to the end of the file. Notes are no part of what the
 * loader needs, so notes that cannot be read leave the file without an
 * identity rather than failing its parse. */
static void elf_read_build_id(cl_elf_file *f, char *id, size_t id_size) {
  cl_asking unread; /* notes that cannot be read: no identity */
  cl_asking_begin(&unread);
  for (uint64_t i = 0; i < f->l.phnum && !id[0]; i++) {
    cl_elf_phdr ph;
    if (elf_read_phdr(&f->e, &f->l, i, &ph) != CUDALOAD_OK)
      break;
    if (ph.type == CL_PT_NOTE)
      elf_build_id_at(f, ph.offset, ph.filesz, ph.align, id, id_size);
  }
  /* A section table of more entries than any real library has is not
   * walked for an identity. */
  for (uint64_t i = 0; !id[0] && f->l.shnum <= 4096 && i < f->l.shnum; i++) {
    cl_elf_shdr sh;
    if (cl_elf_read_shdr(&f->e, &f->l, i, &sh) != CUDALOAD_OK)
      break;
    /* 4: a build ID note is padded to 4 whatever its section's alignment
     * says (patchelf leaves the moved section 8-aligned). */
    if (sh.type == CL_SHT_NOTE)
      elf_build_id_at(f, sh.offset, sh.size, 4, id, id_size);
  }
  cl_asking_end(&unread);
}

static int elf_parse(cl_elf_file *f, cl_binary_info *out) {
  cl_elf *e = &f->e;
  const cl_elf_dynamic *d = &f->d;
  uint64_t table = 0, table_size = 0;
  size_t i;
  int status;

  status = cl_elf_read_headers(f);
  if (status != CUDALOAD_OK) {
    return status;
  }
  out->format = CL_FORMAT_ELF;
  out->bits = e->is64 ? 64 : 32;
  out->big_endian = e->big_endian;
  out->machine = f->machine;
  out->machine_name = elf_machine_name(out->machine, e->is64, e->big_endian);
  if (out->machine_name == NULL) {
    return cl_binary_no_memory(&e->src);
  }
  out->symbolic = d->symbolic;
  out->nodeflib = d->nodeflib;
  elf_read_build_id(f, out->build_id, sizeof out->build_id);

  if (d->have_soname || d->have_runpath || d->have_rpath ||
      d->needed_count > 0) {
    status = cl_elf_string_table(f, &table, &table_size);
  }
  if (status == CUDALOAD_OK && d->have_soname) {
    status = elf_read_string(e, table, table_size, d->soname, "DT_SONAME",
                             &out->soname);
  }
  if (status == CUDALOAD_OK && d->needed_count > 0) {
    out->needed = calloc(d->needed_count, sizeof *out->needed);
    if (out->needed == NULL) {
      status = cl_binary_no_memory(&e->src);
    }
  }
  for (i = 0; status == CUDALOAD_OK && i < d->needed_count; i++) {
    status = elf_read_string(e, table, table_size, d->needed[i], "DT_NEEDED",
                             &out->needed[i]);
    if (status == CUDALOAD_OK) {
      out->needed_count++;
    }
  }
  if (status == CUDALOAD_OK && d->have_runpath) {
    status = elf_read_string(e, table, table_size, d->runpath, "DT_RUNPATH",
                             &out->runpath);
  }
  if (status == CUDALOAD_OK && d->have_rpath) {
    status = elf_read_string(e, table, table_size, d->rpath, "DT_RPATH",
                             &out->rpath);
  }
  return status;
}

int cl_elf_parse(const cl_reader *r, const char *name, cl_binary_info *out) {
  cl_elf_file f;
  int status;

  memset(&f, 0, sizeof f);
  status = cl_binary_begin(&f.e.src, "cl_elf_parse", "ELF", r, name, out);
  if (status != CUDALOAD_OK) {
    return status;
  }
  status = cl_binary_end(&f.e.src, elf_parse(&f, out), out);
  cl_elf_file_free(&f);
  return status;
}
