/* SPDX-License-Identifier: MIT */
/*
 * pe.c - a bounds-checked reader for PE (PE32 and PE32+) files: the machine,
 * the imported DLLs (normal and delay-loaded) and the fixed file version of
 * the VERSIONINFO resource.
 *
 * As in elf.c, every offset, size and count comes from a possibly hostile
 * file: each is checked against the file (and, for data inside a section,
 * against the section's file bytes) with arithmetic that cannot overflow, and
 * every loop is bounded by a cap rather than by the file's good behaviour.
 */
#include "binary/binary.h"
#include "binary/binary_internal.h"
#include "common/error.h"
#include "binary/pe_internal.h"
#include "common/strutil.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_PE_DOS_HEADER_SIZE 64u
#define CL_PE_LFANEW_OFFSET 0x3cu
#define CL_PE_COFF_SIZE 20u
#define CL_PE_SECTION_SIZE 40u
#define CL_PE_MAGIC_PE32 0x10bu
#define CL_PE_MAGIC_PE32PLUS 0x20bu
#define CL_PE_MAGIC_ROM 0x107u

#define CL_PE_RT_VERSION 16u
#define CL_PE_RES_HIGH_BIT 0x80000000u
#define CL_PE_FIXEDFILEINFO_SIGNATURE 0xFEEF04BDu
/* VS_VERSIONINFO: three WORDs, the key L"VS_VERSION_INFO\0" (32 bytes) and
 * padding to a 4-byte boundary put VS_FIXEDFILEINFO (52 bytes) at 40. */
#define CL_PE_FIXED_INFO_OFFSET 40u
#define CL_PE_FIXED_INFO_SIZE 52u

/* PE is little-endian on every machine. */
static uint16_t pe_u16(const unsigned char *b) {
  return cl_u16(b, 0);
}

static uint32_t pe_u32(const unsigned char *b) {
  return cl_u32(b, 0);
}

static uint64_t pe_u64(const unsigned char *b) {
  return cl_u64(b, 0);
}

static char *pe_machine_name(unsigned machine) {
  char buf[32];
  switch (machine) {
  case 0x8664u:
    return cl_strdup("x86_64");
  case 0x14cu:
    return cl_strdup("i386");
  case 0xaa64u:
    return cl_strdup("aarch64");
  case 0x1c4u:
    return cl_strdup("arm");
  default:
    snprintf(buf, sizeof buf, "unknown(0x%x)", machine);
    return cl_strdup(buf);
  }
}

int cl_pe_rva_place(const cl_pe *p, uint32_t rva, cl_pe_place *place) {
  unsigned i;
  for (i = 0; i < p->section_count; i++) {
    const cl_pe_section *s = &p->sections[i];
    if (rva >= s->va && rva - s->va < s->span) {
      place->offset = (uint64_t)s->raw_offset + (rva - s->va);
      place->avail = s->span - (rva - s->va);
      return 1;
    }
  }
  return 0;
}

int cl_pe_read_string(const cl_pe *p, uint32_t rva, const char *what,
                      uint64_t *total, uint64_t limit, const char *total_what,
                      char **out) {
  cl_pe_place place;
  uint64_t avail;
  int status;

  *out = NULL;
  if (!cl_pe_rva_place(p, rva, &place)) {
    return cl_binary_malformed(
        &p->src, "%s RVA 0x%" PRIx32 " is outside every section", what, rva);
  }
  avail =
      place.avail < CL_BINARY_MAX_STRING ? place.avail : CL_BINARY_MAX_STRING;
  status = cl_binary_read_string_limit(&p->src, place.offset, avail, what,
                                       total, limit, total_what, out);
  if (status != CUDALOAD_OK || *out != NULL) {
    return status;
  }
  if (avail == CL_BINARY_MAX_STRING) {
    return cl_binary_malformed(&p->src,
                               "%s at RVA 0x%" PRIx32 " longer than %u bytes",
                               what, rva, CL_BINARY_MAX_STRING - 1);
  }
  return cl_binary_malformed(
      &p->src,
      "%s at RVA 0x%" PRIx32
      " not NUL-terminated before the end of its section",
      what, rva);
}

static int pe_add_needed(cl_pe *p, cl_binary_info *out, char *dll) {
  if (out->needed_count == p->needed_capacity) {
    size_t capacity = p->needed_capacity ? p->needed_capacity * 2 : 8;
    char **grown = realloc(out->needed, capacity * sizeof *grown);
    if (grown == NULL) {
      free(dll);
      return cl_binary_no_memory(&p->src);
    }
    out->needed = grown;
    p->needed_capacity = capacity;
  }
  out->needed[out->needed_count++] = dll;
  return CUDALOAD_OK;
}

static int pe_all_zero(const unsigned char *b, size_t len) {
  size_t i;
  for (i = 0; i < len; i++) {
    if (b[i] != 0) {
      return 0;
    }
  }
  return 1;
}

uint32_t cl_pe_delay_rva(const cl_pe *p, uint64_t value) {
  cl_pe_place probe;
  if (value >= p->image_base && value - p->image_base <= UINT32_MAX &&
      (value > UINT32_MAX || !cl_pe_rva_place(p, (uint32_t)value, &probe)) &&
      cl_pe_rva_place(p, (uint32_t)(value - p->image_base), &probe)) {
    return (uint32_t)(value - p->image_base);
  }
  return (uint32_t)value;
}

void cl_pe_import_descriptor(const cl_pe *p, const unsigned char *desc,
                             int delay, uint32_t *name_rva, uint32_t *names_rva,
                             int *va_based) {
  if (delay) {
    uint32_t attributes = pe_u32(desc);
    *va_based = (attributes & 1u) == 0;
    *name_rva = pe_u32(desc + 4);
    *names_rva = pe_u32(desc + 16);
    if (*va_based) {
      *name_rva = cl_pe_delay_rva(p, *name_rva);
      *names_rva = cl_pe_delay_rva(p, *names_rva);
    }
  } else {
    /* OriginalFirstThunk, the import name table; some old linkers leave
     * it 0 and put the names in FirstThunk only (before binding). */
    *va_based = 0;
    *name_rva = pe_u32(desc + 12);
    *names_rva = pe_u32(desc) != 0 ? pe_u32(desc) : pe_u32(desc + 16);
  }
}

/* Walks a descriptor table (normal or delay imports): descriptors of
 * desc_size bytes with the DLL name's address at name_at, ended by an
 * all-zero descriptor or by the end of the section. */
static int pe_read_import_table(cl_pe *p, cl_binary_info *out, uint32_t rva,
                                int delay) {
  unsigned char desc[CL_PE_DELAY_DESC_SIZE];
  size_t desc_size = delay ? CL_PE_DELAY_DESC_SIZE : CL_PE_IMPORT_DESC_SIZE;
  const char *what =
      delay ? "delay-load import descriptor" : "import descriptor";
  cl_pe_place place;
  unsigned i;
  int status;

  if (!cl_pe_rva_place(p, rva, &place)) {
    return cl_binary_malformed(
        &p->src, "%s table RVA 0x%" PRIx32 " is outside every section", what,
        rva);
  }
  for (i = 0; place.avail >= desc_size; i++) {
    uint32_t name_rva, names_rva;
    int va_based;
    char *dll = NULL;
    if (i == CL_PE_MAX_DESCRIPTORS) {
      return cl_binary_malformed(&p->src, "more than %u %ss",
                                 CL_PE_MAX_DESCRIPTORS, what);
    }
    status = cl_binary_read(&p->src, place.offset, desc, desc_size, what);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (pe_all_zero(desc, desc_size)) {
      break;
    }
    cl_pe_import_descriptor(p, desc, delay, &name_rva, &names_rva, &va_based);
    if (name_rva == 0) {
      return cl_binary_malformed(&p->src, "%s %u has no DLL name", what, i);
    }
    status = cl_pe_read_string(
        p, name_rva, delay ? "delay-load DLL name" : "imported DLL name",
        &p->string_bytes, CL_BINARY_MAX_STRING_TOTAL, "import names", &dll);
    if (status == CUDALOAD_OK) {
      status = pe_add_needed(p, out, dll);
    }
    if (status != CUDALOAD_OK) {
      return status;
    }
    place.offset += desc_size;
    place.avail -= desc_size;
  }
  return CUDALOAD_OK;
}

/* One level of the resource tree: the directory at rel (an offset from the
 * resource root) and, in *entry_out, the entry chosen. With want_id set the
 * entry with that numeric ID is chosen, else the first entry. Returns 0 with
 * *found = 0 when there is no such entry. */
static int pe_resource_entry(const cl_pe *p, const cl_pe_place *root,
                             uint32_t rel, int want_id, uint32_t id,
                             uint32_t *target, int *found) {
  unsigned char dir[16], entry[8];
  uint32_t count, i;
  int status;

  *found = 0;
  if (rel > root->avail || root->avail - rel < sizeof dir) {
    return cl_binary_malformed(&p->src,
                               "resource directory at +0x%" PRIx32
                               " outside the resource section",
                               rel);
  }
  status = cl_binary_read(&p->src, root->offset + rel, dir, sizeof dir,
                          "resource directory");
  if (status != CUDALOAD_OK) {
    return status;
  }
  /* Named entries come first, then ID entries; each count is 16 bits, so
   * the walk is bounded by 131070 entries. */
  count = (uint32_t)pe_u16(dir + 12) + pe_u16(dir + 14);
  for (i = 0; i < count; i++) {
    uint64_t at = (uint64_t)rel + sizeof dir + (uint64_t)i * sizeof entry;
    uint32_t name;
    if (at > root->avail || root->avail - at < sizeof entry) {
      return cl_binary_malformed(&p->src,
                                 "resource directory at +0x%" PRIx32
                                 " has %" PRIu32
                                 " entries, more than its section holds",
                                 rel, count);
    }
    status = cl_binary_read(&p->src, root->offset + at, entry, sizeof entry,
                            "resource directory entry");
    if (status != CUDALOAD_OK) {
      return status;
    }
    name = pe_u32(entry);
    if (!want_id || ((name & CL_PE_RES_HIGH_BIT) == 0 && name == id)) {
      *target = pe_u32(entry + 4);
      *found = 1;
      return CUDALOAD_OK;
    }
  }
  return CUDALOAD_OK;
}

/* The VS_VERSIONINFO bytes read: up to the end of VS_FIXEDFILEINFO. */
#define CL_PE_VERSION_HEAD (CL_PE_FIXED_INFO_OFFSET + CL_PE_FIXED_INFO_SIZE)

/* The resource tree has exactly three levels (type, name, language), so the
 * walk below takes three fixed steps instead of recursing. An entry that
 * points back at a parent directory therefore cannot loop: it shows up as a
 * directory where the third level must hold data, and is refused. On
 * success *target is the RT_VERSION data entry's offset from the root, or
 * *found is 0 when there is none. */
static int pe_find_version_entry(const cl_pe *p, const cl_pe_place *root,
                                 uint32_t *target, int *found) {
  int status =
      pe_resource_entry(p, root, 0, 1, CL_PE_RT_VERSION, target, found);
  if (status != CUDALOAD_OK || !*found) {
    return status; /* no RT_VERSION: no version, not an error */
  }
  if ((*target & CL_PE_RES_HIGH_BIT) == 0) {
    return cl_binary_malformed(&p->src,
                               "RT_VERSION resource entry is not a directory");
  }
  status = pe_resource_entry(p, root, *target & ~CL_PE_RES_HIGH_BIT, 0, 0,
                             target, found);
  if (status != CUDALOAD_OK || !*found) {
    return status;
  }
  if ((*target & CL_PE_RES_HIGH_BIT) == 0) {
    return cl_binary_malformed(&p->src,
                               "RT_VERSION name entry is not a directory");
  }
  status = pe_resource_entry(p, root, *target & ~CL_PE_RES_HIGH_BIT, 0, 0,
                             target, found);
  if (status != CUDALOAD_OK || !*found) {
    return status;
  }
  if ((*target & CL_PE_RES_HIGH_BIT) != 0) {
    return cl_binary_malformed(&p->src,
                               "resource tree deeper than 3 levels under "
                               "RT_VERSION (a cycle?)");
  }
  return CUDALOAD_OK;
}

/* The first bytes of the VS_VERSIONINFO block that the data entry at
 * +target names (into info, CL_PE_VERSION_HEAD bytes), and its size. */
static int pe_read_version_head(const cl_pe *p, const cl_pe_place *root,
                                uint32_t target, unsigned char *info,
                                uint32_t *data_size) {
  unsigned char data_entry[16];
  cl_pe_place data;
  uint32_t data_rva;
  int status;

  if (target > root->avail || root->avail - target < sizeof data_entry) {
    return cl_binary_malformed(&p->src,
                               "resource data entry at +0x%" PRIx32
                               " outside the resource section",
                               target);
  }
  status = cl_binary_read(&p->src, root->offset + target, data_entry,
                          sizeof data_entry, "resource data entry");
  if (status != CUDALOAD_OK) {
    return status;
  }
  data_rva = pe_u32(data_entry);
  *data_size = pe_u32(data_entry + 4);
  if (!cl_pe_rva_place(p, data_rva, &data)) {
    return cl_binary_malformed(
        &p->src, "VS_VERSIONINFO RVA 0x%" PRIx32 " is outside every section",
        data_rva);
  }
  if (*data_size > data.avail) {
    return cl_binary_malformed(&p->src,
                               "VS_VERSIONINFO of %" PRIu32
                               " bytes runs past the end of its section",
                               *data_size);
  }
  if (*data_size < 6) {
    return cl_binary_malformed(
        &p->src, "VS_VERSIONINFO of %" PRIu32 " bytes is too short",
        *data_size);
  }
  return cl_binary_read(&p->src, data.offset, info,
                        *data_size < CL_PE_VERSION_HEAD ? *data_size
                                                        : CL_PE_VERSION_HEAD,
                        "VS_VERSIONINFO");
}

static int pe_read_version(cl_pe *p, cl_binary_info *out, uint32_t rva) {
  static const char key[] = "VS_VERSION_INFO";
  unsigned char info[CL_PE_VERSION_HEAD];
  cl_pe_place root;
  uint32_t target = 0, data_size = 0, ms, ls;
  size_t k;
  int found, status;
  char version[64];

  if (!cl_pe_rva_place(p, rva, &root)) {
    return cl_binary_malformed(
        &p->src,
        "resource directory RVA 0x%" PRIx32 " is outside every section", rva);
  }
  status = pe_find_version_entry(p, &root, &target, &found);
  if (status != CUDALOAD_OK || !found) {
    return status;
  }
  status = pe_read_version_head(p, &root, target, info, &data_size);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (pe_u16(info + 2) == 0) {
    return CUDALOAD_OK; /* no VS_FIXEDFILEINFO: no version */
  }
  if (data_size < sizeof info || pe_u16(info + 2) < CL_PE_FIXED_INFO_SIZE) {
    return cl_binary_malformed(&p->src,
                               "VS_VERSIONINFO too short for VS_FIXEDFILEINFO");
  }
  /* The key is UTF-16LE; every character of it is ASCII. */
  for (k = 0; k < sizeof key; k++) {
    if (info[6 + 2 * k] != (unsigned char)key[k] || info[7 + 2 * k] != 0) {
      return cl_binary_malformed(&p->src, "VERSIONINFO resource key is not "
                                          "VS_VERSION_INFO");
    }
  }
  if (pe_u32(info + CL_PE_FIXED_INFO_OFFSET) != CL_PE_FIXEDFILEINFO_SIGNATURE) {
    return cl_binary_malformed(
        &p->src, "VS_FIXEDFILEINFO signature 0x%08" PRIX32 " is not 0xFEEF04BD",
        pe_u32(info + CL_PE_FIXED_INFO_OFFSET));
  }
  ms = pe_u32(info + CL_PE_FIXED_INFO_OFFSET + 8);
  ls = pe_u32(info + CL_PE_FIXED_INFO_OFFSET + 12);
  snprintf(version, sizeof version, "%u.%u.%u.%u", (unsigned)(ms >> 16),
           (unsigned)(ms & 0xffffu), (unsigned)(ls >> 16),
           (unsigned)(ls & 0xffffu));
  out->file_version = cl_strdup(version);
  return out->file_version != NULL ? CUDALOAD_OK : cl_binary_no_memory(&p->src);
}

static int pe_read_sections(cl_pe *p, uint64_t table, unsigned count) {
  unsigned char sec[CL_PE_SECTION_SIZE];
  unsigned i;
  int status;

  if (count == 0) {
    return CUDALOAD_OK;
  }
  if (count > CL_PE_MAX_SECTIONS) {
    return cl_binary_malformed(&p->src,
                               "%u sections (the PE format allows at most %u)",
                               count, CL_PE_MAX_SECTIONS);
  }
  p->sections = calloc(count, sizeof *p->sections);
  if (p->sections == NULL) {
    return cl_binary_no_memory(&p->src);
  }
  for (i = 0; i < count; i++) {
    uint32_t vsize, raw_size;
    status = cl_binary_read(&p->src, table + (uint64_t)i * CL_PE_SECTION_SIZE,
                            sec, sizeof sec, "section header");
    if (status != CUDALOAD_OK) {
      return status;
    }
    vsize = pe_u32(sec + 8);
    raw_size = pe_u32(sec + 16);
    p->sections[i].va = pe_u32(sec + 12);
    p->sections[i].raw_offset = pe_u32(sec + 20);
    memcpy(p->sections[i].name, sec, 8);
    p->sections[i].name[8] = '\0';
    /* Raw bytes past the virtual size are file padding the loader never
     * maps; bytes past the raw size exist only as zeros in memory. */
    p->sections[i].span = vsize != 0 && vsize < raw_size ? vsize : raw_size;
    /* Keep the RVA range inside 32 bits so later sums cannot wrap. */
    if (p->sections[i].span > UINT32_MAX - p->sections[i].va) {
      p->sections[i].span = UINT32_MAX - p->sections[i].va;
    }
    p->section_count = i + 1;
  }
  return CUDALOAD_OK;
}

/* The DOS header's pointer to the PE header, and the PE signature and COFF
 * header there (into nt). */
static int pe_read_nt_header(cl_pe *p, uint32_t *lfanew,
                             unsigned char nt[4 + CL_PE_COFF_SIZE]) {
  unsigned char dos[CL_PE_DOS_HEADER_SIZE];
  int status;

  status = cl_binary_read(&p->src, 0, dos, sizeof dos, "DOS header");
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (dos[0] != 'M' || dos[1] != 'Z') {
    return cl_fail(CUDALOAD_E_UNSUPPORTED, "%s: not a PE file (no MZ)",
                   p->src.label);
  }
  *lfanew = pe_u32(dos + CL_PE_LFANEW_OFFSET);
  if (*lfanew & 0x80000000u) {
    return cl_binary_malformed(&p->src, "e_lfanew %" PRId32 " is negative",
                               (int32_t)(*lfanew - 0x80000000u) - INT32_MAX -
                                   1);
  }
  status = cl_binary_read(&p->src, *lfanew, nt, 4 + CL_PE_COFF_SIZE,
                          "PE header (e_lfanew)");
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (memcmp(nt, "PE\0\0", 4) != 0) {
    return cl_binary_malformed(
        &p->src, "no PE signature at e_lfanew 0x%" PRIx32, *lfanew);
  }
  return CUDALOAD_OK;
}

/* The optional header of opt_size bytes at offset: PE32 or PE32+, the image
 * base and the data directories. */
static int pe_read_optional_header(cl_pe *p, uint64_t offset,
                                   unsigned opt_size) {
  /* The largest optional header read: PE32+ with 16 data directories. */
  unsigned char opt[112 + 8 * CL_PE_MAX_DATA_DIRS];
  unsigned magic, dir_offset, dir_count, i;
  uint64_t rva_count;
  int status;

  if (opt_size < 2) {
    return cl_binary_malformed(&p->src, "no optional header (size %u)",
                               opt_size);
  }
  status = cl_binary_read(&p->src, offset, opt,
                          opt_size < sizeof opt ? opt_size : sizeof opt,
                          "optional header");
  if (status != CUDALOAD_OK) {
    return status;
  }
  magic = pe_u16(opt);
  if (magic == CL_PE_MAGIC_PE32) {
    p->bits = 32;
    dir_offset = 96;
  } else if (magic == CL_PE_MAGIC_PE32PLUS) {
    p->bits = 64;
    dir_offset = 112;
  } else if (magic == CL_PE_MAGIC_ROM) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED, "%s: ROM image PE, not supported",
                   p->src.label);
  } else {
    return cl_binary_malformed(&p->src, "unknown optional header magic 0x%x",
                               magic);
  }
  if (opt_size < dir_offset) {
    return cl_binary_malformed(
        &p->src, "optional header of %u bytes too short for %s", opt_size,
        magic == CL_PE_MAGIC_PE32 ? "PE32" : "PE32+");
  }
  p->image_base =
      magic == CL_PE_MAGIC_PE32 ? pe_u32(opt + 28) : pe_u64(opt + 24);
  p->size_of_image = pe_u32(opt + 56); /* at 56 in PE32 and PE32+ alike */
  /* Directories the header claims but its size does not hold are absent. */
  rva_count = pe_u32(opt + dir_offset - 4);
  dir_count = (opt_size - dir_offset) / 8;
  if (dir_count > CL_PE_MAX_DATA_DIRS) {
    dir_count = CL_PE_MAX_DATA_DIRS;
  }
  if (rva_count < dir_count) {
    dir_count = (unsigned)rva_count;
  }
  for (i = 0; i < CL_PE_MAX_DATA_DIRS; i++) {
    p->dir_rva[i] = i < dir_count ? pe_u32(opt + dir_offset + 8 * i) : 0;
    p->dir_size[i] = i < dir_count ? pe_u32(opt + dir_offset + 8 * i + 4) : 0;
  }
  return CUDALOAD_OK;
}

int cl_pe_read_headers(cl_pe *p) {
  unsigned char nt[4 + CL_PE_COFF_SIZE];
  uint32_t lfanew = 0;
  unsigned section_count, opt_size;
  int status;

  status = pe_read_nt_header(p, &lfanew, nt);
  if (status != CUDALOAD_OK) {
    return status;
  }
  p->machine = pe_u16(nt + 4);
  p->time_stamp = pe_u32(nt + 8);
  section_count = pe_u16(nt + 6);
  opt_size = pe_u16(nt + 20);
  status = pe_read_optional_header(p, (uint64_t)lfanew + sizeof nt, opt_size);
  if (status != CUDALOAD_OK) {
    return status;
  }
  return pe_read_sections(p, (uint64_t)lfanew + sizeof nt + opt_size,
                          section_count);
}

void cl_pe_free(cl_pe *p) {
  free(p->sections);
  p->sections = NULL;
  p->section_count = 0;
}

static int pe_parse(cl_pe *p, cl_binary_info *out) {
  int status = cl_pe_read_headers(p);
  if (status != CUDALOAD_OK) {
    return status;
  }
  out->format = CL_FORMAT_PE;
  out->bits = p->bits;
  out->machine = p->machine;
  out->machine_name = pe_machine_name(out->machine);
  if (out->machine_name == NULL) {
    return cl_binary_no_memory(&p->src);
  }
  /* The symbol servers' key of an image: a linker that leaves the time
   * stamp 0 (reproducible builds without a hash in its place) gives no
   * identity, as two builds would share it. */
  if (p->time_stamp != 0) {
    snprintf(out->build_id, sizeof out->build_id, "pe:%08" PRIX32 "%" PRIX32,
             p->time_stamp, p->size_of_image);
  }
  if (p->dir_rva[CL_PE_DIR_IMPORT] != 0) {
    status = pe_read_import_table(p, out, p->dir_rva[CL_PE_DIR_IMPORT], 0);
  }
  if (status == CUDALOAD_OK && p->dir_rva[CL_PE_DIR_DELAY_IMPORT] != 0) {
    status =
        pe_read_import_table(p, out, p->dir_rva[CL_PE_DIR_DELAY_IMPORT], 1);
  }
  if (status == CUDALOAD_OK && p->dir_rva[CL_PE_DIR_RESOURCE] != 0) {
    status = pe_read_version(p, out, p->dir_rva[CL_PE_DIR_RESOURCE]);
  }
  return status;
}

int cl_pe_parse(const cl_reader *r, const char *name, cl_binary_info *out) {
  cl_pe p;
  int status;

  memset(&p, 0, sizeof p);
  status = cl_binary_begin(&p.src, "cl_pe_parse", "PE", r, name, out);
  if (status != CUDALOAD_OK) {
    return status;
  }
  status = cl_binary_end(&p.src, pe_parse(&p, out), out);
  cl_pe_free(&p);
  return status;
}
