/*
 * elf.c - a bounds-checked reader for the dynamic section of ELF files.
 *
 * Only the headers, the program (or section) headers, the dynamic section and
 * the few strings it names are read, each with its own small read: real CUDA
 * libraries are hundreds of megabytes, and none of that needs to be touched.
 * Every offset, size and count comes from a possibly hostile file, so each is
 * checked against the file size with arithmetic that cannot overflow, and
 * every loop runs over a capped count.
 */
#include "binary.h"
#include "binary_internal.h"
#include "error.h"
#include "strutil.h"

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
#define CL_PT_LOAD 1u
#define CL_PT_DYNAMIC 2u
#define CL_SHT_DYNAMIC 6u
#define CL_DT_NULL 0
#define CL_DT_NEEDED 1
#define CL_DT_STRTAB 5
#define CL_DT_STRSZ 10
#define CL_DT_SONAME 14
#define CL_DT_RPATH 15
#define CL_DT_RUNPATH 29

#define CL_EM_386 3u
#define CL_EM_PPC64 21u
#define CL_EM_S390 22u
#define CL_EM_ARM 40u
#define CL_EM_X86_64 62u
#define CL_EM_AARCH64 183u
#define CL_EM_RISCV 243u

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
} cl_elf_layout;

typedef struct cl_elf_phdr {
  uint32_t type;
  uint64_t offset;
  uint64_t vaddr;
  uint64_t filesz;
} cl_elf_phdr;

typedef struct cl_elf_shdr {
  uint32_t type;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
  uint32_t info;
} cl_elf_shdr;

/* What the dynamic section says, before its strings are looked up. */
typedef struct cl_elf_dynamic {
  int have_strtab, have_strsz, have_soname, have_runpath, have_rpath;
  uint64_t strtab_addr;
  uint64_t strsz;
  uint64_t soname;
  uint64_t runpath;
  uint64_t rpath;
  uint64_t *needed; /* string table indexes, file order */
  size_t needed_count;
} cl_elf_dynamic;

static uint16_t elf_u16(const cl_elf *e, const unsigned char *p) {
  return cl_u16(p, e->big_endian);
}

static uint32_t elf_u32(const cl_elf *e, const unsigned char *p) {
  return cl_u32(p, e->big_endian);
}

static uint64_t elf_u64(const cl_elf *e, const unsigned char *p) {
  return cl_u64(p, e->big_endian);
}

/* An address or offset: 4 bytes in ELF32, 8 in ELF64. */
static uint64_t elf_word(const cl_elf *e, const unsigned char *p) {
  return e->is64 ? elf_u64(e, p) : elf_u32(e, p);
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
  ph->type = elf_u32(e, buf);
  if (e->is64) {
    ph->offset = elf_u64(e, buf + 8);
    ph->vaddr = elf_u64(e, buf + 16);
    ph->filesz = elf_u64(e, buf + 32);
  } else {
    ph->offset = elf_u32(e, buf + 4);
    ph->vaddr = elf_u32(e, buf + 8);
    ph->filesz = elf_u32(e, buf + 16);
  }
  return CUDALOAD_OK;
}

static int elf_read_shdr(const cl_elf *e, const cl_elf_layout *l,
                         uint64_t index, cl_elf_shdr *sh) {
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
  sh->type = elf_u32(e, buf + 4);
  if (e->is64) {
    sh->offset = elf_u64(e, buf + 24);
    sh->size = elf_u64(e, buf + 32);
    sh->link = elf_u32(e, buf + 40);
    sh->info = elf_u32(e, buf + 44);
  } else {
    sh->offset = elf_u32(e, buf + 16);
    sh->size = elf_u32(e, buf + 20);
    sh->link = elf_u32(e, buf + 24);
    sh->info = elf_u32(e, buf + 28);
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
    status = elf_read_shdr(e, l, 0, &sh0);
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
      uint64_t tag = elf_word(e, ent);
      uint64_t val = elf_word(e, ent + entsize / 2);
      switch (tag) {
      case CL_DT_NULL:
        return CUDALOAD_OK;
      case CL_DT_NEEDED:
        d->needed[d->needed_count++] = val;
        break;
      case CL_DT_STRTAB:
        if (!d->have_strtab) {
          d->have_strtab = 1;
          d->strtab_addr = val;
        }
        break;
      case CL_DT_STRSZ:
        if (!d->have_strsz) {
          d->have_strsz = 1;
          d->strsz = val;
        }
        break;
      case CL_DT_SONAME:
        if (!d->have_soname) {
          d->have_soname = 1;
          d->soname = val;
        }
        break;
      case CL_DT_RUNPATH:
        if (!d->have_runpath) {
          d->have_runpath = 1;
          d->runpath = val;
        }
        break;
      case CL_DT_RPATH:
        if (!d->have_rpath) {
          d->have_rpath = 1;
          d->rpath = val;
        }
        break;
      default:
        break;
      }
    }
    i += n;
  }
  return CUDALOAD_OK;
}

/* Translates the string table's address into a file offset through the
 * PT_LOAD segments, and bounds the table by the segment's file bytes. */
static int elf_locate_strtab(const cl_elf *e, const cl_elf_layout *l,
                             const cl_elf_dynamic *d, uint64_t *table,
                             uint64_t *table_size) {
  uint64_t i;
  int status;
  if (!d->have_strtab) {
    return cl_binary_malformed(&e->src,
                               "dynamic section names strings but has no "
                               "DT_STRTAB");
  }
  for (i = 0; i < l->phnum; i++) {
    cl_elf_phdr ph;
    uint64_t delta;
    status = elf_read_phdr(e, l, i, &ph);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (ph.type != CL_PT_LOAD || d->strtab_addr < ph.vaddr) {
      continue;
    }
    delta = d->strtab_addr - ph.vaddr;
    if (delta >= ph.filesz) {
      continue;
    }
    if (delta > UINT64_MAX - ph.offset) {
      return cl_binary_malformed(
          &e->src, "PT_LOAD segment at offset 0x%" PRIx64 " overflows",
          ph.offset);
    }
    *table = ph.offset + delta;
    *table_size = ph.filesz - delta;
    if (d->have_strsz && d->strsz < *table_size) {
      *table_size = d->strsz;
    }
    return CUDALOAD_OK;
  }
  return cl_binary_malformed(&e->src,
                             "dynamic string table address 0x%" PRIx64
                             " is not in any PT_LOAD segment",
                             d->strtab_addr);
}

static int elf_parse(cl_elf *e, cl_binary_info *out) {
  unsigned char eh[64];
  cl_elf_layout l;
  cl_elf_dynamic d;
  uint64_t dyn_off = 0, dyn_size = 0;
  uint64_t table = 0, table_size = 0;
  int have_dynamic = 0, strtab_from_section = 0;
  uint64_t i;
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

  out->format = CL_FORMAT_ELF;
  out->bits = e->is64 ? 64 : 32;
  out->big_endian = e->big_endian;
  out->machine = elf_u16(e, eh + 18);
  out->machine_name = elf_machine_name(out->machine, e->is64, e->big_endian);
  if (out->machine_name == NULL) {
    return cl_binary_no_memory(&e->src);
  }

  if (e->is64) {
    l.phoff = elf_u64(e, eh + 32);
    l.shoff = elf_u64(e, eh + 40);
    l.phentsize = elf_u16(e, eh + 54);
    l.phnum = elf_u16(e, eh + 56);
    l.shentsize = elf_u16(e, eh + 58);
    l.shnum = elf_u16(e, eh + 60);
  } else {
    l.phoff = elf_u32(e, eh + 28);
    l.shoff = elf_u32(e, eh + 32);
    l.phentsize = elf_u16(e, eh + 42);
    l.phnum = elf_u16(e, eh + 44);
    l.shentsize = elf_u16(e, eh + 46);
    l.shnum = elf_u16(e, eh + 48);
  }
  status = elf_resolve_layout(e, &l);
  if (status != CUDALOAD_OK) {
    return status;
  }

  /* The loader's view first: PT_DYNAMIC. Only a file without program
   * headers (stripped of them, or an odd linker's output) falls back to the
   * section headers. */
  for (i = 0; i < l.phnum && !have_dynamic; i++) {
    cl_elf_phdr ph;
    status = elf_read_phdr(e, &l, i, &ph);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (ph.type == CL_PT_DYNAMIC) {
      have_dynamic = 1;
      dyn_off = ph.offset;
      dyn_size = ph.filesz;
    }
  }
  for (i = 0; l.phnum == 0 && i < l.shnum && !have_dynamic; i++) {
    cl_elf_shdr sh, strtab;
    status = elf_read_shdr(e, &l, i, &sh);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (sh.type != CL_SHT_DYNAMIC) {
      continue;
    }
    /* Without program headers there is no address map, so the section's
     * link to its string table gives the file offset directly. */
    if (sh.link == 0 || sh.link >= l.shnum) {
      return cl_binary_malformed(
          &e->src,
          "dynamic section links to string table section "
          "%u of %" PRIu64,
          sh.link, l.shnum);
    }
    status = elf_read_shdr(e, &l, sh.link, &strtab);
    if (status != CUDALOAD_OK) {
      return status;
    }
    have_dynamic = 1;
    strtab_from_section = 1;
    dyn_off = sh.offset;
    dyn_size = sh.size;
    table = strtab.offset;
    table_size = strtab.size;
  }

  status = CUDALOAD_OK;
  memset(&d, 0, sizeof d);
  if (have_dynamic) {
    status = elf_read_dynamic(e, dyn_off, dyn_size, &d);
  }
  if (status == CUDALOAD_OK && !strtab_from_section &&
      (d.have_soname || d.have_runpath || d.have_rpath || d.needed_count > 0)) {
    status = elf_locate_strtab(e, &l, &d, &table, &table_size);
  }
  if (status == CUDALOAD_OK && d.have_soname) {
    status = elf_read_string(e, table, table_size, d.soname, "DT_SONAME",
                             &out->soname);
  }
  if (status == CUDALOAD_OK && d.needed_count > 0) {
    out->needed = calloc(d.needed_count, sizeof *out->needed);
    if (out->needed == NULL) {
      status = cl_binary_no_memory(&e->src);
    }
  }
  for (i = 0; status == CUDALOAD_OK && i < d.needed_count; i++) {
    status = elf_read_string(e, table, table_size, d.needed[i], "DT_NEEDED",
                             &out->needed[i]);
    if (status == CUDALOAD_OK) {
      out->needed_count++;
    }
  }
  if (status == CUDALOAD_OK && d.have_runpath) {
    status = elf_read_string(e, table, table_size, d.runpath, "DT_RUNPATH",
                             &out->runpath);
  }
  if (status == CUDALOAD_OK && d.have_rpath) {
    status =
        elf_read_string(e, table, table_size, d.rpath, "DT_RPATH", &out->rpath);
  }
  free(d.needed);
  return status;
}

int cl_elf_parse(const cl_reader *r, const char *name, cl_binary_info *out) {
  cl_elf e;
  int status;

  memset(&e, 0, sizeof e);
  status = cl_binary_begin(&e.src, "cl_elf_parse", "ELF", r, name, out);
  if (status != CUDALOAD_OK) {
    return status;
  }
  return cl_binary_end(&e.src, elf_parse(&e, out), out);
}
