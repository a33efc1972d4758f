/* SPDX-License-Identifier: MIT */
/*
 * elf_symbols.c - the dynamic symbol table of an ELF file with its GNU
 * symbol versions (DT_VERSYM, DT_VERDEF, DT_VERNEED): which symbols the
 * object exports and under which version node, and which it imports with
 * which required version of which file.
 *
 * The dynamic section gives only addresses; elf.c's walk (elf_internal.h)
 * maps them to file offsets through the PT_LOAD segments. The number of
 * symbols is nowhere in the dynamic section: it comes from DT_HASH's nchain,
 * or from the highest symbol DT_GNU_HASH reaches (the last of a bucket's
 * chain), or failing both from the .dynsym section header, as readelf does.
 * The string table, the symbol table and the version index table are each
 * read with one bounded read (real CUDA libraries have thousands of
 * symbols); the version definitions and needs are short chains of small
 * records. As in the other readers, every count and offset from the file is
 * checked against the file and a cap before it is used.
 */
#include "binary/binary_internal.h"
#include "binary/binary_symbols.h"
#include "binary/elf_internal.h"
#include "binary/elf_lookup.h"
#include "common/error.h"
#include "common/strutil.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Caps. The largest CUDA libraries have a few thousand dynamic symbols and
 * under 1 MiB of dynamic strings; big C++ libraries (LLVM) a few hundred
 * thousand. The caps bound what a hostile file can make the reader
 * allocate; a file past them is refused with a message saying so. */
#define CL_ELF_MAX_SYMBOLS (1u << 22)         /* 4M dynamic symbols */
#define CL_ELF_MAX_SYMBOL_STRINGS (64u << 20) /* 64 MiB of names */
#define CL_ELF_MAX_SYMENT 256u                /* DT_SYMENT */
#define CL_ELF_MAX_VERSION_ENTRIES (1u << 16) /* verdefs + vernauxes */
#define CL_ELF_VERSYM_INDEXES 0x8000u         /* 15-bit indexes */
#define CL_ELF_VERSYM_HIDDEN 0x8000u
#define CL_VER_NDX_GLOBAL 1u
#define CL_VER_FLG_BASE 0x1u
#define CL_SHN_UNDEF 0u
#define CL_STB_LOCAL 0u
#define CL_STB_GLOBAL 1u
#define CL_STB_WEAK 2u
#define CL_STB_GNU_UNIQUE 10u
#define CL_STT_SECTION 3u
#define CL_STT_FILE 4u
#define CL_STV_DEFAULT 0u
#define CL_STV_PROTECTED 3u
#define CL_VERDEF_SIZE 20u
#define CL_VERDAUX_SIZE 8u
#define CL_VERNEED_SIZE 16u
#define CL_VERNAUX_SIZE 16u
/* Hash words are read this many at a time. */
#define CL_ELF_HASH_CHUNK 1024u

typedef struct sym_reader {
  cl_elf_file f;
  unsigned char *strtab;
  uint64_t strsz;
  unsigned char *symtab;
  uint64_t syment;
  uint64_t count;
  unsigned char *versym; /* count 16-bit entries, or NULL */
  /* By version index (15 bits): 1 + the index into out->versions of the
   * definition, and 1 + the index into out->needs with the position in its
   * versions; 0 where the index names nothing. */
  uint32_t *def_of_ndx;
  uint32_t *need_of_ndx;
  uint32_t *need_version_of_ndx;
  size_t ndx_capacity; /* entries of each of the three, grown to need */
  size_t version_capacity;
  size_t need_capacity;
  uint64_t version_entries; /* against CL_ELF_MAX_VERSION_ENTRIES */
  /* A read of references alone (cl_elf_read_references): the string table
   * is not read whole (strtab stays NULL); a name is read where it is. */
  int on_demand;
  uint64_t str_off;  /* the string table's file offset */
  uint64_t last_nul; /* 1 + the index of its last NUL; 0: it has none */
  uint64_t symtab_off, versym_off;
} sym_reader;

/* What a read reads: everything; the references alone (the symbol table
 * and the names of references); or nothing of the symbols, only where the
 * tables are and the version definitions (for lookups by name). */
enum { SYM_READ_ALL, SYM_READ_REFERENCES, SYM_READ_LOOKUP };

/* Checks that count entries of entsize bytes at virtual address addr lie in
 * one segment and in the file: *off is where they start. */
static int sym_table_at(sym_reader *sr, uint64_t addr, uint64_t count,
                        uint64_t entsize, const char *what, uint64_t *at) {
  const cl_binary_source *src = &sr->f.e.src;
  uint64_t off = 0, avail = 0, bytes;
  int status;

  status = cl_elf_map_address(&sr->f, addr, what, &off, &avail);
  if (status != CUDALOAD_OK) {
    return status;
  }
  /* count <= 2^22 and entsize <= 2^8 (or count <= 2^26 bytes): no
   * overflow. */
  bytes = count * entsize;
  if (bytes > avail) {
    return cl_binary_malformed(src,
                               "%s at 0x%" PRIx64 " (%" PRIu64
                               " bytes) runs past the end of its segment",
                               what, addr, bytes);
  }
  if (off > src->r->size || bytes > src->r->size - off) {
    return cl_binary_malformed(src,
                               "%s at 0x%" PRIx64 " (%" PRIu64
                               " bytes) runs past end of file (size %" PRIu64
                               ")",
                               what, off, bytes, src->r->size);
  }
  *at = off;
  return CUDALOAD_OK;
}

/* The same, then reads them into a new buffer. */
static int sym_read_table(sym_reader *sr, uint64_t addr, uint64_t count,
                          uint64_t entsize, const char *what,
                          unsigned char **out, uint64_t *at) {
  const cl_binary_source *src = &sr->f.e.src;
  uint64_t off = 0, bytes = count * entsize;
  *out = NULL;
  int status = sym_table_at(sr, addr, count, entsize, what, &off);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (at) {
    *at = off;
  }
  *out = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (*out == NULL) {
    return cl_binary_no_memory(src);
  }
  return cl_binary_read(src, off, *out, (size_t)bytes, what);
}

/* A string table not read whole: whether the name at idx ends before the
 * table does (what memchr over the whole table answers). */
static int sym_terminated(const sym_reader *sr, uint64_t idx) {
  return idx < sr->last_nul;
}

/* The name at index idx (< strsz) of a string table not read whole,
 * copied: read in steps until its NUL, with the whole read's message when
 * there is none. */
static int sym_string_at(const sym_reader *sr, uint64_t idx, const char *what,
                         uint64_t which, char **out) {
  const cl_binary_source *src = &sr->f.e.src;
  if (!sym_terminated(sr, idx)) {
    return cl_binary_malformed(src,
                               "%s %" PRIu64 " name at string %" PRIu64
                               " not NUL-terminated before the end of the "
                               "string table",
                               what, which, idx);
  }
  size_t len = 0, capacity = 0;
  char *text = NULL;
  for (;;) {
    unsigned char step[128];
    uint64_t left = sr->strsz - idx - len;
    size_t n = left < sizeof step ? (size_t)left : sizeof step;
    int status = cl_binary_read(src, sr->str_off + idx + len, step, n,
                                "dynamic string table");
    const unsigned char *nul =
        status == CUDALOAD_OK ? memchr(step, 0, n) : NULL;
    size_t take = nul ? (size_t)(nul - step) : n;
    if (status == CUDALOAD_OK &&
        cl_reserve((void **)&text, &capacity, len + take + 1, 1)) {
      status = cl_binary_no_memory(src);
    }
    if (status != CUDALOAD_OK) {
      free(text);
      return status;
    }
    memcpy(text + len, step, take);
    len += take;
    text[len] = '\0';
    if (nul || n == 0) {
      *out = text;
      return CUDALOAD_OK;
    }
  }
}

/* The name at index idx of the dynamic string table, copied. */
static int sym_string(const sym_reader *sr, uint64_t idx, const char *what,
                      uint64_t which, char **out) {
  const unsigned char *nul;
  *out = NULL;
  if (idx >= sr->strsz) {
    return cl_binary_malformed(&sr->f.e.src,
                               "%s %" PRIu64 " names string %" PRIu64
                               " outside the string table (size %" PRIu64 ")",
                               what, which, idx, sr->strsz);
  }
  if (sr->strtab == NULL) {
    return sym_string_at(sr, idx, what, which, out);
  }
  nul = memchr(sr->strtab + idx, '\0', (size_t)(sr->strsz - idx));
  if (nul == NULL) {
    return cl_binary_malformed(&sr->f.e.src,
                               "%s %" PRIu64 " name at string %" PRIu64
                               " not NUL-terminated before the end of the "
                               "string table",
                               what, which, idx);
  }
  *out = cl_strdup((const char *)sr->strtab + idx);
  return *out != NULL ? CUDALOAD_OK : cl_binary_no_memory(&sr->f.e.src);
}

/* The same string, not copied: a pointer into the string table, which
 * out->name_table keeps (a library's tens of thousands of symbol names
 * cost one allocation, not one each). */
static int sym_name(const sym_reader *sr, uint64_t idx, uint64_t which,
                    char **out) {
  *out = NULL;
  if (idx >= sr->strsz) {
    return cl_binary_malformed(&sr->f.e.src,
                               "dynamic symbol %" PRIu64
                               " names string %" PRIu64
                               " outside the string table (size %" PRIu64 ")",
                               which, idx, sr->strsz);
  }
  if (memchr(sr->strtab + idx, '\0', (size_t)(sr->strsz - idx)) == NULL) {
    return cl_binary_malformed(&sr->f.e.src,
                               "dynamic symbol %" PRIu64
                               " name at string %" PRIu64
                               " not NUL-terminated before the end of the "
                               "string table",
                               which, idx);
  }
  *out = (char *)sr->strtab + idx;
  return CUDALOAD_OK;
}

static int sym_check_count(const sym_reader *sr, uint64_t count,
                           const char *from) {
  if (count > CL_ELF_MAX_SYMBOLS) {
    return cl_binary_malformed(
        &sr->f.e.src, "%s gives %" PRIu64 " dynamic symbols, more than %u",
        from, count, CL_ELF_MAX_SYMBOLS);
  }
  return CUDALOAD_OK;
}

/* DT_HASH: nbucket, nchain, then the tables; nchain is the number of
 * symbols. Its words are 32 bits except on 64-bit s390, where they are 64. */
static int sym_count_from_hash(sym_reader *sr) {
  const cl_elf *e = &sr->f.e;
  int wide = e->is64 && sr->f.machine == CL_EM_S390;
  unsigned char *head = NULL;
  int status = sym_read_table(sr, sr->f.d.hash_addr, 2, wide ? 8 : 4,
                              "DT_HASH table", &head, NULL);
  if (status == CUDALOAD_OK) {
    sr->count = wide ? cl_elf_u64(e, head + 8) : cl_elf_u32(e, head + 4);
    status = sym_check_count(sr, sr->count, "DT_HASH");
  }
  free(head);
  return status;
}

/* The highest first symbol of the nbuckets DT_GNU_HASH buckets at off (0
 * when every bucket is empty). */
static int gnu_hash_highest_bucket(const sym_reader *sr, uint64_t off,
                                   uint64_t nbuckets, uint64_t *highest) {
  const cl_elf *e = &sr->f.e;
  unsigned char chunk[CL_ELF_HASH_CHUNK * 4];
  uint64_t i;
  int status;

  *highest = 0;
  for (i = 0; i < nbuckets;) {
    uint64_t n =
        nbuckets - i < CL_ELF_HASH_CHUNK ? nbuckets - i : CL_ELF_HASH_CHUNK;
    uint64_t k;
    status = cl_binary_read(&e->src, off + i * 4, chunk, (size_t)(n * 4),
                            "DT_GNU_HASH buckets");
    if (status != CUDALOAD_OK) {
      return status;
    }
    for (k = 0; k < n; k++) {
      uint32_t bucket = cl_elf_u32(e, chunk + 4 * k);
      if (bucket > *highest) {
        *highest = bucket;
      }
    }
    i += n;
  }
  return CUDALOAD_OK;
}

/* Walks the chain of symbol index (from symoffset on, the chains start at
 * off + at; the table ends at off + avail) to its end, a chunk of words at
 * a time: the symbol count is one past its last symbol. */
static int gnu_hash_chain_end(sym_reader *sr, uint64_t off, uint64_t avail,
                              uint64_t at, uint64_t symoffset, uint64_t index) {
  const cl_elf *e = &sr->f.e;
  const cl_binary_source *src = &e->src;
  unsigned char chunk[CL_ELF_HASH_CHUNK * 4];
  int status;

  for (;;) {
    uint64_t rel = (index - symoffset) * 4, n, k;
    if (index >= CL_ELF_MAX_SYMBOLS) {
      return sym_check_count(sr, index + 1, "DT_GNU_HASH");
    }
    if (at > avail || rel >= avail - at) {
      return cl_binary_malformed(src,
                                 "DT_GNU_HASH chain of symbol %" PRIu64
                                 " runs past the end of its segment",
                                 index);
    }
    n = (avail - at - rel) / 4;
    if (n > CL_ELF_HASH_CHUNK) {
      n = CL_ELF_HASH_CHUNK;
    }
    if (n == 0) {
      return cl_binary_malformed(src,
                                 "DT_GNU_HASH chain of symbol %" PRIu64
                                 " runs past the end of its segment",
                                 index);
    }
    status = cl_binary_read(src, off + at + rel, chunk, (size_t)(n * 4),
                            "DT_GNU_HASH chain");
    if (status != CUDALOAD_OK) {
      return status;
    }
    for (k = 0; k < n; k++, index++) {
      if (cl_elf_u32(e, chunk + 4 * k) & 1u) {
        sr->count = index + 1;
        return sym_check_count(sr, sr->count, "DT_GNU_HASH");
      }
    }
  }
}

/* DT_GNU_HASH: nbuckets, symoffset, bloom_size, bloom_shift, the bloom
 * filter (words of the ELF class), the buckets (the first symbol of each
 * chain, 0 for none) and the chains (one word per hashed symbol from
 * symoffset on, the last of a chain with bit 0 set). Symbols below
 * symoffset are not hashed (the undefined ones); the hashed ones end the
 * table, so the end of the chain that starts highest is the last symbol. */
static int sym_count_from_gnu_hash(sym_reader *sr) {
  const cl_elf *e = &sr->f.e;
  const cl_binary_source *src = &e->src;
  unsigned char head[16];
  uint64_t off = 0, avail = 0, at, nbuckets, symoffset, bloom_bytes;
  uint64_t highest = 0;
  int status;

  status = cl_elf_map_address(&sr->f, sr->f.d.gnu_hash_addr,
                              "DT_GNU_HASH table", &off, &avail);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (avail < sizeof head) {
    return cl_binary_malformed(src, "DT_GNU_HASH header runs past the end of "
                                    "its segment");
  }
  status = cl_binary_read(src, off, head, sizeof head, "DT_GNU_HASH header");
  if (status != CUDALOAD_OK) {
    return status;
  }
  nbuckets = cl_elf_u32(e, head);
  symoffset = cl_elf_u32(e, head + 4);
  bloom_bytes = (uint64_t)cl_elf_u32(e, head + 8) * (e->is64 ? 8 : 4);
  at = sizeof head + bloom_bytes; /* < 2^36: no overflow */
  if (at > avail || nbuckets * 4 > avail - at) {
    return cl_binary_malformed(src,
                               "DT_GNU_HASH table (%" PRIu64
                               " buckets) runs past the end of its segment",
                               nbuckets);
  }
  status = gnu_hash_highest_bucket(sr, off + at, nbuckets, &highest);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (highest == 0) {
    /* Nothing is hashed: every symbol lies below symoffset. */
    sr->count = symoffset;
    return sym_check_count(sr, sr->count, "DT_GNU_HASH");
  }
  if (highest < symoffset) {
    return cl_binary_malformed(src,
                               "DT_GNU_HASH bucket names symbol %" PRIu64
                               " below its first hashed symbol %" PRIu64,
                               highest, symoffset);
  }
  return gnu_hash_chain_end(sr, off, avail, at + nbuckets * 4, symoffset,
                            highest);
}

/* The .dynsym section header, when the file kept its section headers
 * (readelf's source): *found tells whether one describes DT_SYMTAB. The
 * hash tables only bound the symbols a lookup can reach; a DT_GNU_HASH
 * that hashes nothing says nothing about the undefined symbols before it
 * (some linkers then leave symoffset at 1), which the section still
 * counts. */
static int sym_count_from_sections(sym_reader *sr, uint64_t *count,
                                   int *found) {
  const cl_elf_layout *l = &sr->f.l;
  uint64_t i;
  int status;
  *found = 0;
  for (i = 1; i < l->shnum; i++) {
    cl_elf_shdr sh;
    status = cl_elf_read_shdr(&sr->f.e, l, i, &sh);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (sh.type == CL_SHT_DYNSYM && sh.addr == sr->f.d.symtab_addr) {
      *found = 1;
      *count = sh.size / sr->syment;
      return sym_check_count(sr, *count, ".dynsym section");
    }
  }
  return CUDALOAD_OK;
}

/* A string table not read whole: where its last NUL is (every name from
 * there on is unterminated), read from the end back, a piece at a time;
 * the last byte of a linker's table is one. */
static int sym_find_last_nul(sym_reader *sr) {
  unsigned char piece[512];
  uint64_t end = sr->strsz;
  sr->last_nul = 0;
  while (end > 0) {
    size_t n = end < sizeof piece ? (size_t)end : sizeof piece;
    int status = cl_binary_read(&sr->f.e.src, sr->str_off + end - n, piece, n,
                                "dynamic string table");
    if (status != CUDALOAD_OK) {
      return status;
    }
    for (size_t k = n; k-- > 0;) {
      if (piece[k] == 0) {
        sr->last_nul = end - n + k + 1;
        return CUDALOAD_OK;
      }
    }
    end -= n;
  }
  return CUDALOAD_OK;
}

static int sym_read_strings(sym_reader *sr) {
  const cl_binary_source *src = &sr->f.e.src;
  uint64_t off = 0, size = 0;
  int status;

  if (!sr->f.strtab_from_section && !sr->f.d.have_strsz) {
    return cl_binary_malformed(src, "DT_STRTAB without DT_STRSZ: the size of "
                                    "the dynamic string table is unknown");
  }
  status = cl_elf_string_table(&sr->f, &off, &size);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (!sr->f.strtab_from_section && sr->f.d.strsz > size) {
    return cl_binary_malformed(src,
                               "dynamic string table (DT_STRSZ %" PRIu64
                               ") runs past the end of its segment",
                               sr->f.d.strsz);
  }
  if (size > CL_ELF_MAX_SYMBOL_STRINGS) {
    return cl_binary_malformed(
        src, "dynamic string table of %" PRIu64 " bytes, more than %u", size,
        CL_ELF_MAX_SYMBOL_STRINGS);
  }
  if (off > src->r->size || size > src->r->size - off) {
    return cl_binary_malformed(src,
                               "dynamic string table at 0x%" PRIx64 " (%" PRIu64
                               " bytes) runs past end of file (size %" PRIu64
                               ")",
                               off, size, src->r->size);
  }
  if (sr->on_demand) {
    sr->str_off = off;
    sr->strsz = size;
    return sym_find_last_nul(sr);
  }
  sr->strtab = malloc(size > 0 ? (size_t)size : 1);
  if (sr->strtab == NULL) {
    return cl_binary_no_memory(src);
  }
  sr->strsz = size;
  return cl_binary_read(src, off, sr->strtab, (size_t)size,
                        "dynamic string table");
}

static int sym_count_version_entries(sym_reader *sr, uint64_t more) {
  sr->version_entries += more;
  if (sr->version_entries > CL_ELF_MAX_VERSION_ENTRIES) {
    return cl_binary_malformed(&sr->f.e.src,
                               "more than %u version definitions and needs",
                               CL_ELF_MAX_VERSION_ENTRIES);
  }
  return CUDALOAD_OK;
}

/* Reads a record of len bytes at rel bytes into the segment that starts at
 * file offset base and holds avail bytes. */
static int sym_read_record(const sym_reader *sr, uint64_t base, uint64_t avail,
                           uint64_t rel, unsigned char *buf, size_t len,
                           const char *what, uint64_t which) {
  if (rel > avail || avail - rel < len) {
    return cl_binary_malformed(&sr->f.e.src,
                               "%s %" PRIu64 " at +0x%" PRIx64
                               " runs past the end of its segment",
                               what, which, rel);
  }
  return cl_binary_read(&sr->f.e.src, base + rel, buf, len, what);
}

/* Room in the three index tables for version index ndx: they grow to the
 * largest index the file uses (a few dozen), zero-filled, rather than
 * starting at all 32,768 (384 KiB cleared for every file read). */
static int sym_reserve_ndx(sym_reader *sr, unsigned ndx) {
  if (ndx < sr->ndx_capacity)
    return CUDALOAD_OK;
  size_t capacity = sr->ndx_capacity ? sr->ndx_capacity : 16;
  while (capacity <= ndx)
    capacity *= 2;
  uint32_t **tables[] = {&sr->def_of_ndx, &sr->need_of_ndx,
                         &sr->need_version_of_ndx};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; ++t) {
    uint32_t *grown = realloc(*tables[t], capacity * sizeof **tables[t]);
    if (grown == NULL) {
      return cl_binary_no_memory(&sr->f.e.src);
    }
    memset(grown + sr->ndx_capacity, 0,
           (capacity - sr->ndx_capacity) * sizeof *grown);
    *tables[t] = grown;
  }
  sr->ndx_capacity = capacity;
  return CUDALOAD_OK;
}

/* Reads the i-th record of a version chain, at rel bytes into the segment
 * that starts at file offset base and holds avail bytes; *next is the
 * offset from it to the next record, 0 at the end. */
typedef int (*sym_version_record)(sym_reader *sr, cl_binary_symbols *out,
                                  uint64_t base, uint64_t avail, uint64_t rel,
                                  uint64_t i, uint32_t *next);

/* Walks the chain of version records at addr (the table tag's; its count
 * is the table tag's NUM, when the file gives one): at most that many
 * records, and no further than a next of 0, as glibc walks it. */
static int sym_walk_versions(sym_reader *sr, cl_binary_symbols *out,
                             uint64_t addr, int have_count, uint64_t count,
                             const char *table, sym_version_record read_one) {
  uint64_t base = 0, avail = 0, rel = 0, n, i;
  int status;

  n = have_count ? count : CL_ELF_MAX_VERSION_ENTRIES;
  if (n > CL_ELF_MAX_VERSION_ENTRIES) {
    return cl_binary_malformed(&sr->f.e.src,
                               "%sNUM %" PRIu64 " is more than %u", table, n,
                               CL_ELF_MAX_VERSION_ENTRIES);
  }
  status = cl_elf_map_address(&sr->f, addr, table, &base, &avail);
  for (i = 0; status == CUDALOAD_OK && i < n; i++) {
    uint32_t next = 0;
    status = read_one(sr, out, base, avail, rel, i, &next);
    if (status != CUDALOAD_OK || next == 0) {
      break;
    }
    rel += next;
  }
  return status;
}

/* One Elf_Verdef record at rel (the i-th) and the name its first
 * Elf_Verdaux gives the node; *next is its vd_next. */
static int sym_read_verdef(sym_reader *sr, cl_binary_symbols *out,
                           uint64_t base, uint64_t avail, uint64_t rel,
                           uint64_t i, uint32_t *next) {
  const cl_elf *e = &sr->f.e;
  unsigned char vd[CL_VERDEF_SIZE], aux[CL_VERDAUX_SIZE];
  cl_symbol_version *v;
  uint32_t aux_at;
  unsigned ndx;
  int status;

  status = sym_read_record(sr, base, avail, rel, vd, sizeof vd,
                           "version definition", i);
  if (status == CUDALOAD_OK) {
    status = sym_count_version_entries(sr, 1);
  }
  if (status == CUDALOAD_OK) {
    status = sym_reserve_ndx(sr, cl_elf_u16(e, vd + 4) &
                                     (CL_ELF_VERSYM_INDEXES - 1));
  }
  if (status != CUDALOAD_OK) {
    return status;
  }
  aux_at = cl_elf_u32(e, vd + 12);
  *next = cl_elf_u32(e, vd + 16);
  status = sym_read_record(sr, base, avail, rel + aux_at, aux, sizeof aux,
                           "version definition name", i);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (cl_reserve((void **)&out->versions, &sr->version_capacity,
                 out->version_count + 1, sizeof *out->versions)) {
    return cl_binary_no_memory(&e->src);
  }
  v = &out->versions[out->version_count];
  memset(v, 0, sizeof *v);
  status =
      sym_string(sr, cl_elf_u32(e, aux), "version definition", i, &v->name);
  if (status != CUDALOAD_OK) {
    return status;
  }
  ndx = cl_elf_u16(e, vd + 4);
  v->index = (int)ndx;
  v->is_base = (cl_elf_u16(e, vd + 2) & CL_VER_FLG_BASE) != 0;
  ndx &= CL_ELF_VERSYM_INDEXES - 1;
  if (sr->def_of_ndx[ndx] == 0) {
    sr->def_of_ndx[ndx] = (uint32_t)out->version_count + 1;
  }
  out->version_count++;
  return CUDALOAD_OK;
}

/* DT_VERDEF: a chain of Elf_Verdef records (vd_version, vd_flags, vd_ndx,
 * vd_cnt, vd_hash, vd_aux, vd_next), each with Elf_Verdaux records
 * (vda_name, vda_next) of which the first names the node and the others
 * its parents, which nothing here needs. DT_VERDEFNUM counts the records;
 * the chain also ends at a vd_next of 0, as glibc walks it. */
static int sym_read_verdefs(sym_reader *sr, cl_binary_symbols *out) {
  const cl_elf_dynamic *d = &sr->f.d;
  if (!d->have_verdef) {
    return CUDALOAD_OK;
  }
  return sym_walk_versions(sr, out, d->verdef_addr, d->have_verdefnum,
                           d->verdefnum, "DT_VERDEF", sym_read_verdef);
}

/* The cnt Elf_Vernaux records of need (the i-th Elf_Verneed) from aux_rel
 * on: the versions it requires and the indexes DT_VERSYM gives them. */
static int sym_read_vernauxes(sym_reader *sr, cl_binary_symbols *out,
                              cl_symbol_need *need, uint64_t base,
                              uint64_t avail, uint64_t aux_rel, uint32_t cnt,
                              uint64_t i) {
  const cl_elf *e = &sr->f.e;
  uint32_t j;
  int status = CUDALOAD_OK;

  for (j = 0; status == CUDALOAD_OK && j < cnt; j++) {
    unsigned char aux[CL_VERNAUX_SIZE];
    unsigned ndx;
    status = sym_read_record(sr, base, avail, aux_rel, aux, sizeof aux,
                             "version need entry", i);
    if (status == CUDALOAD_OK) {
      status = sym_string(sr, cl_elf_u32(e, aux + 8), "version need entry", i,
                          &need->versions[j]);
    }
    if (status != CUDALOAD_OK) {
      return status;
    }
    need->version_count++;
    ndx = cl_elf_u16(e, aux + 6) & (CL_ELF_VERSYM_INDEXES - 1);
    status = sym_reserve_ndx(sr, ndx);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (sr->need_of_ndx[ndx] == 0) {
      sr->need_of_ndx[ndx] = (uint32_t)out->need_count;
      sr->need_version_of_ndx[ndx] = j;
    }
    if (cl_elf_u32(e, aux + 12) == 0) {
      break;
    }
    aux_rel += cl_elf_u32(e, aux + 12);
  }
  return status;
}

/* One Elf_Verneed record at rel (the i-th): the file it names and its
 * versions; *next is its vn_next. */
static int sym_read_verneed(sym_reader *sr, cl_binary_symbols *out,
                            uint64_t base, uint64_t avail, uint64_t rel,
                            uint64_t i, uint32_t *next) {
  const cl_elf *e = &sr->f.e;
  unsigned char vn[CL_VERNEED_SIZE];
  cl_symbol_need *need;
  uint32_t cnt;
  uint64_t aux_rel;
  int status;

  status =
      sym_read_record(sr, base, avail, rel, vn, sizeof vn, "version need", i);
  if (status != CUDALOAD_OK) {
    return status;
  }
  cnt = cl_elf_u16(e, vn + 2);
  aux_rel = rel + cl_elf_u32(e, vn + 8);
  *next = cl_elf_u32(e, vn + 12);
  status = sym_count_version_entries(sr, 1 + (uint64_t)cnt);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (cl_reserve((void **)&out->needs, &sr->need_capacity, out->need_count + 1,
                 sizeof *out->needs)) {
    return cl_binary_no_memory(&e->src);
  }
  need = &out->needs[out->need_count++];
  memset(need, 0, sizeof *need);
  status =
      sym_string(sr, cl_elf_u32(e, vn + 4), "version need", i, &need->file);
  if (status == CUDALOAD_OK && cnt > 0) {
    need->versions = calloc(cnt, sizeof *need->versions);
    if (need->versions == NULL) {
      status = cl_binary_no_memory(&e->src);
    }
  }
  if (status != CUDALOAD_OK) {
    return status;
  }
  return sym_read_vernauxes(sr, out, need, base, avail, aux_rel, cnt, i);
}

/* DT_VERNEED: a chain of Elf_Verneed records (vn_version, vn_cnt, vn_file,
 * vn_aux, vn_next), each with vn_cnt Elf_Vernaux records (vna_hash,
 * vna_flags, vna_other, vna_name, vna_next); vna_other is the version
 * index the DT_VERSYM entries of the references use. */
static int sym_read_verneeds(sym_reader *sr, cl_binary_symbols *out) {
  const cl_elf_dynamic *d = &sr->f.d;
  if (!d->have_verneed) {
    return CUDALOAD_OK;
  }
  return sym_walk_versions(sr, out, d->verneed_addr, d->have_verneednum,
                           d->verneednum, "DT_VERNEED", sym_read_verneed);
}

/* What one symbol table entry is to the loader. */
enum { SYM_SKIP, SYM_DEF, SYM_REF };

typedef struct sym_entry {
  uint32_t name;
  unsigned bind;
  unsigned type;
  unsigned visibility;
  unsigned shndx;
} sym_entry;

static sym_entry sym_decode(const sym_reader *sr, uint64_t i) {
  const cl_elf *e = &sr->f.e;
  const unsigned char *p = sr->symtab + i * sr->syment;
  sym_entry s;
  unsigned info, other;
  s.name = cl_elf_u32(e, p);
  if (e->is64) {
    info = p[4];
    other = p[5];
    s.shndx = cl_elf_u16(e, p + 6);
  } else {
    info = p[12];
    other = p[13];
    s.shndx = cl_elf_u16(e, p + 14);
  }
  s.bind = info >> 4;
  s.type = info & 0xfu;
  s.visibility = other & 0x3u;
  return s;
}

/* A definition other objects can bind to: defined, global, weak or unique,
 * default or protected visibility, not a section or file symbol. A
 * reference: undefined and not local. */
static int sym_kind(const sym_entry *s) {
  if (s->shndx == CL_SHN_UNDEF) {
    return s->bind != CL_STB_LOCAL ? SYM_REF : SYM_SKIP;
  }
  if (s->bind != CL_STB_GLOBAL && s->bind != CL_STB_WEAK &&
      s->bind != CL_STB_GNU_UNIQUE) {
    return SYM_SKIP;
  }
  if (s->visibility != CL_STV_DEFAULT && s->visibility != CL_STV_PROTECTED) {
    return SYM_SKIP;
  }
  if (s->type == CL_STT_SECTION || s->type == CL_STT_FILE) {
    return SYM_SKIP;
  }
  return SYM_DEF;
}

/* Counts the definitions and references first, so that each array is
 * allocated once at its size. */
static int sym_alloc_entries(const sym_reader *sr, cl_binary_symbols *out) {
  uint64_t i, defs = 0, refs = 0;
  for (i = 1; i < sr->count; i++) {
    sym_entry s = sym_decode(sr, i);
    int kind = sym_kind(&s);
    defs += kind == SYM_DEF;
    refs += kind == SYM_REF;
  }
  if (defs > 0) {
    out->defs = calloc((size_t)defs, sizeof *out->defs);
  }
  if (refs > 0) {
    out->refs = calloc((size_t)refs, sizeof *out->refs);
  }
  if ((defs > 0 && out->defs == NULL) || (refs > 0 && out->refs == NULL)) {
    return cl_binary_no_memory(&sr->f.e.src);
  }
  return CUDALOAD_OK;
}

static int sym_fill(sym_reader *sr, cl_binary_symbols *out) {
  const cl_elf *e = &sr->f.e;
  uint64_t i;
  int status = sym_alloc_entries(sr, out);

  for (i = 1; status == CUDALOAD_OK && i < sr->count; i++) {
    sym_entry s = sym_decode(sr, i);
    int kind = sym_kind(&s);
    unsigned versym = sr->versym ? cl_elf_u16(e, sr->versym + 2 * i) : 0;
    unsigned ndx = versym & (CL_ELF_VERSYM_INDEXES - 1);
    if (kind == SYM_DEF) {
      cl_symbol_def *d = &out->defs[out->def_count];
      status = sym_name(sr, s.name, i, &d->name);
      if (status != CUDALOAD_OK) {
        break;
      }
      out->def_count++;
      d->weak = s.bind == CL_STB_WEAK;
      d->hidden = (versym & CL_ELF_VERSYM_HIDDEN) != 0;
      /* 0 and 1 (VER_NDX_LOCAL, VER_NDX_GLOBAL) name no node. */
      d->version = ndx > CL_VER_NDX_GLOBAL && ndx < sr->ndx_capacity &&
                           sr->def_of_ndx[ndx] != 0
                       ? (int)sr->def_of_ndx[ndx] - 1
                       : -1;
    } else if (kind == SYM_REF) {
      cl_symbol_ref *r = &out->refs[out->ref_count];
      status = sym_name(sr, s.name, i, &r->name);
      if (status != CUDALOAD_OK) {
        break;
      }
      out->ref_count++;
      r->weak = s.bind == CL_STB_WEAK;
      /* An index no DT_VERNEED entry names leaves the reference
       * unversioned, as glibc treats it (its version slot has no hash). */
      if (ndx > CL_VER_NDX_GLOBAL && ndx < sr->ndx_capacity &&
          sr->need_of_ndx[ndx] != 0) {
        /* The need's own strings, which it keeps (refs_share_needs). */
        const cl_symbol_need *need = &out->needs[sr->need_of_ndx[ndx] - 1];
        r->version = need->versions[sr->need_version_of_ndx[ndx]];
        r->file = need->file;
      }
    }
  }
  return status;
}

/* The number of dynamic symbols: from a hash table, raised to what the
 * .dynsym section header says when the file kept one. */
static int sym_count(sym_reader *sr) {
  const cl_elf_dynamic *d = &sr->f.d;
  int status = CUDALOAD_OK;
  if (d->have_hash) {
    status = sym_count_from_hash(sr);
  } else if (d->have_gnu_hash) {
    status = sym_count_from_gnu_hash(sr);
  }
  if (status == CUDALOAD_OK) {
    uint64_t from_section = 0;
    int found = 0;
    status = sym_count_from_sections(sr, &from_section, &found);
    if (status == CUDALOAD_OK && !found && !d->have_hash && !d->have_gnu_hash) {
      status = cl_binary_malformed(&sr->f.e.src,
                                   "DT_SYMTAB without DT_HASH, DT_GNU_HASH or "
                                   "a .dynsym section: the number of dynamic "
                                   "symbols is unknown");
    }
    if (found && from_section > sr->count) {
      sr->count = from_section;
    }
  }
  return status;
}

/* A definition's or reference's name in a string table not read whole:
 * the whole read's checks (sym_name), without reading the name. */
static int sym_name_valid(const sym_reader *sr, uint64_t idx, uint64_t which) {
  if (idx >= sr->strsz) {
    return cl_binary_malformed(&sr->f.e.src,
                               "dynamic symbol %" PRIu64
                               " names string %" PRIu64
                               " outside the string table (size %" PRIu64 ")",
                               which, idx, sr->strsz);
  }
  if (!sym_terminated(sr, idx)) {
    return cl_binary_malformed(&sr->f.e.src,
                               "dynamic symbol %" PRIu64
                               " name at string %" PRIu64
                               " not NUL-terminated before the end of the "
                               "string table",
                               which, idx);
  }
  return CUDALOAD_OK;
}

/* A reference met in the symbol table, before its name is read. */
typedef struct sym_pending {
  uint64_t name;   /* string table index */
  uint64_t symbol; /* its index in the symbol table */
  unsigned bind, ndx;
  char *text; /* its name once read; NULL when not kept */
} sym_pending;

static int by_name_offset(const void *a, const void *b) {
  const sym_pending *x = a, *y = b;
  return x->name < y->name ? -1 : x->name > y->name;
}

static int by_symbol(const void *a, const void *b) {
  const sym_pending *x = a, *y = b;
  return x->symbol < y->symbol ? -1 : x->symbol > y->symbol;
}

/* The file a reference's version need names, or NULL (unversioned). */
static const cl_symbol_need *sym_need_of(const sym_reader *sr,
                                         const cl_binary_symbols *out,
                                         unsigned ndx, char **version) {
  if (ndx > CL_VER_NDX_GLOBAL && ndx < sr->ndx_capacity &&
      sr->need_of_ndx[ndx] != 0) {
    const cl_symbol_need *need = &out->needs[sr->need_of_ndx[ndx] - 1];
    *version = need->versions[sr->need_version_of_ndx[ndx]];
    return need;
  }
  *version = NULL;
  return NULL;
}

/* The names of the references in p[0..n) (sorted by where they are), read
 * a window at a time: the references of one file sit in a few stretches
 * of its string table. A name kept (keep) is copied into p[i].text. */
static int sym_read_reference_names(sym_reader *sr, cl_binary_symbols *out,
                                    sym_pending *p, size_t n,
                                    cl_ref_filter keep, void *opaque) {
  enum { WINDOW = 65536 };
  const cl_binary_source *src = &sr->f.e.src;
  unsigned char *window = malloc(WINDOW);
  uint64_t start = 0, filled = 0;
  int status = window ? CUDALOAD_OK : cl_binary_no_memory(src);
  for (size_t i = 0; status == CUDALOAD_OK && i < n; ++i) {
    uint64_t at = p[i].name;
    const unsigned char *nul = NULL;
    if (at >= start && at < start + filled)
      nul = memchr(window + (at - start), 0, (size_t)(start + filled - at));
    if (!nul) {
      uint64_t left = sr->strsz - at;
      filled = left < WINDOW ? left : WINDOW;
      start = at;
      status = cl_binary_read(src, sr->str_off + at, window, (size_t)filled,
                              "dynamic string table");
      if (status != CUDALOAD_OK)
        break;
      nul = memchr(window, 0, (size_t)filled);
    }
    char *name = NULL;
    if (nul) {
      name = cl_strndup((const char *)window + (at - start),
                        (size_t)(nul - (window + (at - start))));
      if (!name)
        status = cl_binary_no_memory(src);
    } else {
      /* A name longer than the window: read on its own. */
      status = sym_string_at(sr, at, "dynamic symbol", p[i].symbol, &name);
    }
    if (status != CUDALOAD_OK)
      break;
    if (cl_binary_is_loader_entry(name))
      out->opens_by_name = 1;
    char *version;
    const cl_symbol_need *need = sym_need_of(sr, out, p[i].ndx, &version);
    if (keep(name, need ? need->file : NULL, opaque))
      p[i].text = name;
    else
      free(name);
  }
  free(window);
  return status;
}

/* sym_fill for a read of references alone: every definition's and
 * reference's name checked as the whole read checks it, the references'
 * names read where they are, those `keep` keeps in out->refs. */
static int sym_fill_references(sym_reader *sr, cl_binary_symbols *out,
                               cl_ref_filter keep, void *opaque) {
  const cl_elf *e = &sr->f.e;
  sym_pending *p = NULL;
  size_t n = 0, capacity = 0;
  int status = CUDALOAD_OK;
  for (uint64_t i = 1; status == CUDALOAD_OK && i < sr->count; i++) {
    sym_entry s = sym_decode(sr, i);
    int kind = sym_kind(&s);
    if (kind == SYM_SKIP)
      continue;
    status = sym_name_valid(sr, s.name, i);
    if (status != CUDALOAD_OK || kind != SYM_REF)
      continue;
    if (cl_reserve((void **)&p, &capacity, n + 1, sizeof *p)) {
      status = cl_binary_no_memory(&e->src);
      break;
    }
    unsigned versym = sr->versym ? cl_elf_u16(e, sr->versym + 2 * i) : 0;
    p[n++] = (sym_pending){s.name, i, s.bind,
                           versym & (CL_ELF_VERSYM_INDEXES - 1), NULL};
  }
  if (status == CUDALOAD_OK && n > 0) {
    qsort(p, n, sizeof *p, by_name_offset);
    status = sym_read_reference_names(sr, out, p, n, keep, opaque);
    qsort(p, n, sizeof *p, by_symbol);
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    kept += p[i].text != NULL;
  if (status == CUDALOAD_OK && kept &&
      !(out->refs = calloc(kept, sizeof *out->refs)))
    status = cl_binary_no_memory(&e->src);
  for (size_t i = 0; i < n; ++i) {
    if (status != CUDALOAD_OK || !p[i].text) {
      free(p[i].text);
      continue;
    }
    cl_symbol_ref *r = &out->refs[out->ref_count++];
    r->name = p[i].text;
    r->weak = p[i].bind == CL_STB_WEAK;
    char *version;
    const cl_symbol_need *need = sym_need_of(sr, out, p[i].ndx, &version);
    if (need) {
      r->version = version; /* out->needs' own string, borrowed */
      r->file = need->file;
    }
  }
  free(p);
  return status;
}

/* Where the hash table a lookup by name reads is (elf_lookup.h), when the
 * file has one a lookup can use: DT_GNU_HASH first, else DT_HASH, as
 * glibc. A table that does not fit where it says leaves out->lookup NULL:
 * the whole read answers instead (and says what is wrong). */
static int sym_lookup_state(sym_reader *sr, cl_binary_symbols *out) {
  const cl_elf *e = &sr->f.e;
  const cl_elf_dynamic *d = &sr->f.d;
  cl_symbol_lookup *l = calloc(1, sizeof *l);
  if (l == NULL) {
    return cl_binary_no_memory(&e->src);
  }
  l->is64 = e->is64;
  l->big_endian = e->big_endian;
  l->symtab_off = sr->symtab_off;
  l->syment = sr->syment;
  l->count = sr->count;
  l->strtab_off = sr->str_off;
  l->strsz = sr->strsz;
  l->have_versym = d->have_versym;
  l->versym_off = sr->versym_off;
  char *kept = cl_save_error();
  uint64_t off = 0, avail = 0;
  unsigned char head[16];
  if (d->have_gnu_hash &&
      cl_elf_map_address(&sr->f, d->gnu_hash_addr, "DT_GNU_HASH table", &off,
                         &avail) == CUDALOAD_OK &&
      avail >= sizeof head &&
      cl_binary_read(&e->src, off, head, sizeof head, "DT_GNU_HASH header") ==
          CUDALOAD_OK) {
    l->nbuckets = cl_elf_u32(e, head);
    l->symoffset = cl_elf_u32(e, head + 4);
    l->bloom_words = cl_elf_u32(e, head + 8);
    l->bloom_shift = cl_elf_u32(e, head + 12);
    uint64_t need = sizeof head + (uint64_t)l->bloom_words * (e->is64 ? 8 : 4) +
                    (uint64_t)l->nbuckets * 4;
    l->gnu = l->nbuckets > 0 && l->bloom_words > 0 && need <= avail &&
             off <= e->src.r->size && avail <= e->src.r->size - off;
  } else if (d->have_hash && !(e->is64 && sr->f.machine == CL_EM_S390) &&
             cl_elf_map_address(&sr->f, d->hash_addr, "DT_HASH table", &off,
                                &avail) == CUDALOAD_OK &&
             avail >= 8 &&
             cl_binary_read(&e->src, off, head, 8, "DT_HASH table") ==
                 CUDALOAD_OK) {
    l->nbuckets = cl_elf_u32(e, head);
    uint64_t nchain = cl_elf_u32(e, head + 4);
    l->sysv = l->nbuckets > 0 &&
              8 + 4 * ((uint64_t)l->nbuckets + nchain) <= avail &&
              off <= e->src.r->size && avail <= e->src.r->size - off;
  }
  cl_restore_error(kept);
  if (!l->gnu && !l->sysv) {
    free(l);
    return CUDALOAD_OK;
  }
  l->hash_off = off;
  l->hash_avail = avail;
  /* The version index map goes with it (the reader's is freed). */
  l->def_of_ndx = sr->def_of_ndx;
  l->ndx_capacity = sr->ndx_capacity;
  sr->def_of_ndx = NULL;
  out->lookup = l;
  return CUDALOAD_OK;
}

static int sym_read(sym_reader *sr, cl_binary_symbols *out, int what,
                    cl_ref_filter keep, void *opaque) {
  const cl_elf_dynamic *d = &sr->f.d;
  uint64_t standard;
  int status = cl_elf_read_headers(&sr->f);
  if (status != CUDALOAD_OK) {
    return status;
  }
  out->format = CL_FORMAT_ELF;
  sr->on_demand = what != SYM_READ_ALL;
  /* No dynamic section (a static executable, an object file) or no
   * dynamic symbol table: nothing exported or imported at run time (and
   * nothing left to look up: the read is whole). */
  if (!sr->f.have_dynamic || !d->have_symtab) {
    return CUDALOAD_OK;
  }
  standard = sr->f.e.is64 ? 24 : 16;
  sr->syment = d->have_syment ? d->syment : standard;
  if (sr->syment < standard || sr->syment > CL_ELF_MAX_SYMENT) {
    return cl_binary_malformed(
        &sr->f.e.src, "DT_SYMENT %" PRIu64 " is not between %" PRIu64 " and %u",
        sr->syment, standard, CL_ELF_MAX_SYMENT);
  }
  status = sym_count(sr);
  if (status != CUDALOAD_OK || sr->count == 0) {
    return status;
  }
  out->refs_filtered = what != SYM_READ_ALL;
  if (what == SYM_READ_LOOKUP) {
    status = sym_table_at(sr, d->symtab_addr, sr->count, sr->syment,
                          "dynamic symbol table", &sr->symtab_off);
  } else {
    status =
        sym_read_table(sr, d->symtab_addr, sr->count, sr->syment,
                       "dynamic symbol table", &sr->symtab, &sr->symtab_off);
  }
  if (status == CUDALOAD_OK) {
    status = sym_read_strings(sr);
  }
  if (status == CUDALOAD_OK && d->have_versym) {
    out->versioned = 1;
    status =
        what == SYM_READ_LOOKUP
            ? sym_table_at(sr, d->versym_addr, sr->count, 2, "DT_VERSYM table",
                           &sr->versym_off)
            : sym_read_table(sr, d->versym_addr, sr->count, 2,
                             "DT_VERSYM table", &sr->versym, &sr->versym_off);
  }
  if (status == CUDALOAD_OK) {
    status = sym_read_verdefs(sr, out);
  }
  if (status == CUDALOAD_OK && what != SYM_READ_LOOKUP) {
    status = sym_read_verneeds(sr, out);
  }
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (what == SYM_READ_ALL) {
    /* From here the names of definitions and references point into the
     * string table, and the versions of references into needs[]: the
     * symbols keep both. */
    out->name_table = (char *)sr->strtab;
    out->refs_share_needs = 1;
    return sym_fill(sr, out);
  }
  out->refs_share_needs = 1;
  if (what == SYM_READ_REFERENCES) {
    status = sym_fill_references(sr, out, keep, opaque);
  }
  if (status == CUDALOAD_OK) {
    status = sym_lookup_state(sr, out);
  }
  return status;
}

static int sym_run(const cl_reader *r, const char *name, int what,
                   cl_ref_filter keep, void *opaque, cl_binary_symbols *out) {
  sym_reader sr;
  int status;

  if (out == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cl_elf_read_symbols: no output");
  }
  memset(out, 0, sizeof *out);
  memset(&sr, 0, sizeof sr);
  sr.f.e.src.r = r;
  sr.f.e.src.label = name != NULL ? name : "(memory)";
  sr.f.e.src.format = "ELF";
  if (r == NULL || r->read_at == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no reader given",
                   sr.f.e.src.label);
  }
  status = sym_read(&sr, out, what, keep, opaque);
  cl_elf_file_free(&sr.f);
  if (out->name_table != (char *)sr.strtab) {
    free(sr.strtab); /* not handed over: the read stopped before */
  }
  free(sr.symtab);
  free(sr.versym);
  free(sr.def_of_ndx);
  free(sr.need_of_ndx);
  free(sr.need_version_of_ndx);
  if (status != CUDALOAD_OK) {
    cl_binary_symbols_free(out);
  }
  return status;
}

int cl_elf_read_symbols(const cl_reader *r, const char *name,
                        cl_binary_symbols *out) {
  return sym_run(r, name, SYM_READ_ALL, NULL, NULL, out);
}

int cl_elf_read_references(const cl_reader *r, const char *name,
                           cl_ref_filter keep, void *opaque,
                           cl_binary_symbols *out) {
  return sym_run(r, name, SYM_READ_REFERENCES, keep, opaque, out);
}

int cl_elf_prepare_lookup(const cl_reader *r, const char *name,
                          cl_binary_symbols *out) {
  return sym_run(r, name, SYM_READ_LOOKUP, NULL, NULL, out);
}
