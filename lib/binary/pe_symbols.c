/* SPDX-License-Identifier: MIT */
/*
 * pe_symbols.c - what a PE image exports by name (with forwarders) and
 * which functions it imports from each DLL (normal and delay-load imports,
 * by name or by ordinal): the PE analogue of ELF symbols. Windows binds an
 * import to the DLL it names, never to whichever module defines the name
 * first, so there are no versions here; a forwarder ("NTDLL.RtlFoo") sends
 * the binding on to another DLL.
 *
 * The export directory's three tables are read with one bounded read each;
 * the names themselves are short strings read through the file's read-ahead
 * window. As in pe.c, every RVA is placed in a section's file bytes and
 * every count is checked against a cap and the section before it is used.
 */
#include "binary/binary_internal.h"
#include "binary/binary_symbols.h"
#include "common/error.h"
#include "binary/pe_internal.h"
#include "common/strutil.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Caps, as for ELF: the biggest real DLLs export a few thousand names. */
#define CL_PE_MAX_SYMBOLS (1u << 22)         /* exports + imports */
#define CL_PE_MAX_SYMBOL_STRINGS (64u << 20) /* their names together */
/* Name ordinals are 16-bit: no name reaches past this many functions. */
#define CL_PE_MAX_ORDINALS 65536u
#define CL_PE_EXPORT_DIR_SIZE 40u
#define CL_PE_THUNK_CHUNK 512u

typedef struct pe_sym {
  cl_pe p;
  uint64_t string_bytes; /* against CL_PE_MAX_SYMBOL_STRINGS */
  size_t def_capacity;
  size_t ref_capacity;
} pe_sym;

static uint32_t sym_u32(const unsigned char *b) {
  return cl_u32(b, 0);
}

static int sym_string(pe_sym *s, uint32_t rva, const char *what, char **out) {
  return cl_pe_read_string(&s->p, rva, what, &s->string_bytes,
                           CL_PE_MAX_SYMBOL_STRINGS, "symbol names", out);
}

static int sym_check_total(pe_sym *s, const cl_binary_symbols *out,
                           uint64_t more) {
  if (out->def_count + out->ref_count + more > CL_PE_MAX_SYMBOLS) {
    return cl_binary_malformed(&s->p.src, "more than %u exports and imports",
                               CL_PE_MAX_SYMBOLS);
  }
  return CUDALOAD_OK;
}

/* Reads count entries of entsize bytes at an RVA into a new buffer: they
 * must all be in the file bytes of one section. */
static int sym_read_table(pe_sym *s, uint32_t rva, uint64_t count,
                          unsigned entsize, const char *what,
                          unsigned char **out) {
  cl_pe_place place;
  uint64_t bytes = count * entsize; /* count < 2^23: no overflow */
  *out = NULL;
  if (!cl_pe_rva_place(&s->p, rva, &place)) {
    return cl_binary_malformed(
        &s->p.src, "%s RVA 0x%" PRIx32 " is outside every section", what, rva);
  }
  if (bytes > place.avail) {
    return cl_binary_malformed(&s->p.src,
                               "%s at RVA 0x%" PRIx32 " (%" PRIu64
                               " entries) runs past the end of its section",
                               what, rva, count);
  }
  *out = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (*out == NULL) {
    return cl_binary_no_memory(&s->p.src);
  }
  return cl_binary_read(&s->p.src, place.offset, *out, (size_t)bytes, what);
}

static int sym_add_def(pe_sym *s, cl_binary_symbols *out, char *name,
                       char *forward) {
  cl_symbol_def *d;
  if (out->def_count == s->def_capacity) {
    size_t capacity = s->def_capacity ? s->def_capacity * 2 : 16;
    cl_symbol_def *grown = realloc(out->defs, capacity * sizeof *grown);
    if (grown == NULL) {
      free(name);
      free(forward);
      return cl_binary_no_memory(&s->p.src);
    }
    out->defs = grown;
    s->def_capacity = capacity;
  }
  d = &out->defs[out->def_count++];
  memset(d, 0, sizeof *d);
  d->name = name;
  d->version = -1;
  d->forward = forward;
  return CUDALOAD_OK;
}

static int sym_add_ref(pe_sym *s, cl_binary_symbols *out, char *name,
                       const char *dll) {
  cl_symbol_ref *r;
  char *file = cl_strdup(dll);
  if (file == NULL) {
    free(name);
    return cl_binary_no_memory(&s->p.src);
  }
  if (out->ref_count == s->ref_capacity) {
    size_t capacity = s->ref_capacity ? s->ref_capacity * 2 : 16;
    cl_symbol_ref *grown = realloc(out->refs, capacity * sizeof *grown);
    if (grown == NULL) {
      free(name);
      free(file);
      return cl_binary_no_memory(&s->p.src);
    }
    out->refs = grown;
    s->ref_capacity = capacity;
  }
  r = &out->refs[out->ref_count++];
  memset(r, 0, sizeof *r);
  r->name = name;
  r->file = file;
  return CUDALOAD_OK;
}

/* The export directory: NumberOfFunctions addresses (the export address
 * table, indexed by ordinal - Base), NumberOfNames name RVAs in ascending
 * name order, and as many 16-bit indexes into the address table. An
 * address inside the export directory itself is no code but a forwarder
 * string, "DLL.Function" or "DLL.#ordinal". */
/* The export directory at dir_rva, CL_PE_EXPORT_DIR_SIZE bytes into dir. */
static int sym_read_export_dir(pe_sym *s, uint32_t dir_rva,
                               unsigned char *dir) {
  cl_pe_place place;
  if (!cl_pe_rva_place(&s->p, dir_rva, &place)) {
    return cl_binary_malformed(
        &s->p.src,
        "export directory RVA 0x%" PRIx32 " is outside every section", dir_rva);
  }
  if (place.avail < CL_PE_EXPORT_DIR_SIZE) {
    return cl_binary_malformed(&s->p.src, "export directory runs past the end "
                                          "of its section");
  }
  return cl_binary_read(&s->p.src, place.offset, dir, CL_PE_EXPORT_DIR_SIZE,
                        "export directory");
}

/* The name pointer and ordinal tables (count entries) and the address
 * table (functions entries) the export directory dir points to; the caller
 * frees them, whatever the status. */
static int sym_read_export_tables(pe_sym *s, const unsigned char *dir,
                                  uint64_t count, uint64_t functions,
                                  unsigned char **names,
                                  unsigned char **ordinals,
                                  unsigned char **addresses) {
  int status = sym_read_table(s, sym_u32(dir + 32), count, 4,
                              "export name table", names);
  if (status == CUDALOAD_OK) {
    status = sym_read_table(s, sym_u32(dir + 36), count, 2,
                            "export ordinal table", ordinals);
  }
  if (status == CUDALOAD_OK) {
    status = sym_read_table(s, sym_u32(dir + 28), functions, 4,
                            "export address table", addresses);
  }
  return status;
}

static int sym_read_exports(pe_sym *s, cl_binary_symbols *out) {
  uint32_t dir_rva = s->p.dir_rva[CL_PE_DIR_EXPORT];
  uint32_t dir_size = s->p.dir_size[CL_PE_DIR_EXPORT];
  unsigned char dir[CL_PE_EXPORT_DIR_SIZE];
  unsigned char *names = NULL, *ordinals = NULL, *addresses = NULL;
  uint64_t functions, count, i;
  int status;

  if (dir_rva == 0) {
    return CUDALOAD_OK;
  }
  status = sym_read_export_dir(s, dir_rva, dir);
  if (status != CUDALOAD_OK) {
    return status;
  }
  functions = sym_u32(dir + 20);
  count = sym_u32(dir + 24);
  if (count == 0) {
    return CUDALOAD_OK;
  }
  status = sym_check_total(s, out, count);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (functions > CL_PE_MAX_ORDINALS) {
    functions = CL_PE_MAX_ORDINALS;
  }
  status = sym_read_export_tables(s, dir, count, functions, &names, &ordinals,
                                  &addresses);
  for (i = 0; status == CUDALOAD_OK && i < count; i++) {
    unsigned index = cl_u16(ordinals + 2 * i, 0);
    uint32_t target;
    char *name = NULL, *forward = NULL;
    if (index >= functions) {
      status = cl_binary_malformed(&s->p.src,
                                   "export name %" PRIu64
                                   " has function index %u, outside the "
                                   "%" PRIu64 " functions",
                                   i, index, functions);
      break;
    }
    target = sym_u32(addresses + 4 * index);
    status = sym_string(s, sym_u32(names + 4 * i), "export name", &name);
    if (status == CUDALOAD_OK && target >= dir_rva &&
        target - dir_rva < dir_size) {
      status = sym_string(s, target, "export forwarder", &forward);
    }
    if (status == CUDALOAD_OK) {
      status = sym_add_def(s, out, name, forward);
    } else {
      free(name);
    }
  }
  free(names);
  free(ordinals);
  free(addresses);
  return status;
}

/* One entry of an import name table: by ordinal (the top bit set; the
 * ordinal in the low 16 bits) or the RVA of a hint/name entry (a 16-bit
 * hint, then the name). */
static int sym_import_entry(pe_sym *s, cl_binary_symbols *out, const char *dll,
                            uint64_t entry, int va_based) {
  uint64_t ordinal_flag = s->p.bits == 64 ? (uint64_t)1 << 63 : 0x80000000u;
  char *name = NULL;
  int status = sym_check_total(s, out, 1);
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (entry & ordinal_flag) {
    char buf[16];
    snprintf(buf, sizeof buf, "#%u", (unsigned)(entry & 0xffffu));
    name = cl_strdup(buf);
    if (name == NULL) {
      return cl_binary_no_memory(&s->p.src);
    }
  } else {
    uint32_t rva = va_based ? cl_pe_delay_rva(&s->p, entry)
                            : (uint32_t)(entry & 0x7fffffffu);
    if (rva > UINT32_MAX - 2) {
      return cl_binary_malformed(
          &s->p.src, "import name RVA 0x%" PRIx32 " overflows", rva);
    }
    status = sym_string(s, rva + 2, "import name", &name);
    if (status != CUDALOAD_OK) {
      return status;
    }
  }
  return sym_add_ref(s, out, name, dll);
}

/* The import name table of one DLL: entries of 4 (PE32) or 8 (PE32+)
 * bytes, ended by a zero entry, read a chunk at a time within their
 * section. */
static int sym_import_names(pe_sym *s, cl_binary_symbols *out, const char *dll,
                            uint32_t rva, int va_based) {
  unsigned char chunk[CL_PE_THUNK_CHUNK * 8];
  unsigned entsize = s->p.bits == 64 ? 8 : 4;
  cl_pe_place place;
  int status;

  if (!cl_pe_rva_place(&s->p, rva, &place)) {
    return cl_binary_malformed(&s->p.src,
                               "import name table of %s at RVA 0x%" PRIx32
                               " is outside every section",
                               dll, rva);
  }
  for (;;) {
    uint64_t n = place.avail / entsize, k;
    if (n > CL_PE_THUNK_CHUNK) {
      n = CL_PE_THUNK_CHUNK;
    }
    if (n == 0) {
      return cl_binary_malformed(&s->p.src,
                                 "import name table of %s runs past the end "
                                 "of its section",
                                 dll);
    }
    status = cl_binary_read(&s->p.src, place.offset, chunk,
                            (size_t)(n * entsize), "import name table");
    if (status != CUDALOAD_OK) {
      return status;
    }
    for (k = 0; k < n; k++) {
      uint64_t entry =
          entsize == 8 ? cl_u64(chunk + 8 * k, 0) : cl_u32(chunk + 4 * k, 0);
      if (entry == 0) {
        return CUDALOAD_OK;
      }
      status = sym_import_entry(s, out, dll, entry, va_based);
      if (status != CUDALOAD_OK) {
        return status;
      }
    }
    place.offset += n * entsize;
    place.avail -= n * entsize;
  }
}

/* The import or delay-load import descriptors, as pe.c walks them for the
 * DLL names, with each DLL's function names. */
static int sym_read_imports(pe_sym *s, cl_binary_symbols *out, int delay) {
  uint32_t rva =
      s->p.dir_rva[delay ? CL_PE_DIR_DELAY_IMPORT : CL_PE_DIR_IMPORT];
  unsigned char desc[CL_PE_DELAY_DESC_SIZE];
  size_t desc_size = delay ? CL_PE_DELAY_DESC_SIZE : CL_PE_IMPORT_DESC_SIZE;
  const char *what =
      delay ? "delay-load import descriptor" : "import descriptor";
  cl_pe_place place;
  unsigned i;
  int status;

  if (rva == 0) {
    return CUDALOAD_OK;
  }
  if (!cl_pe_rva_place(&s->p, rva, &place)) {
    return cl_binary_malformed(
        &s->p.src, "%s table RVA 0x%" PRIx32 " is outside every section", what,
        rva);
  }
  for (i = 0; place.avail >= desc_size; i++) {
    uint32_t name_rva, names_rva;
    int va_based, j;
    char *dll = NULL;
    if (i == CL_PE_MAX_DESCRIPTORS) {
      return cl_binary_malformed(&s->p.src, "more than %u %ss",
                                 CL_PE_MAX_DESCRIPTORS, what);
    }
    status = cl_binary_read(&s->p.src, place.offset, desc, desc_size, what);
    if (status != CUDALOAD_OK) {
      return status;
    }
    for (j = 0; j < (int)desc_size && desc[j] == 0; j++) {
    }
    if (j == (int)desc_size) {
      break;
    }
    cl_pe_import_descriptor(&s->p, desc, delay, &name_rva, &names_rva,
                            &va_based);
    if (name_rva == 0) {
      return cl_binary_malformed(&s->p.src, "%s %u has no DLL name", what, i);
    }
    status = sym_string(
        s, name_rva, delay ? "delay-load DLL name" : "imported DLL name", &dll);
    /* A descriptor without a name table imports nothing by name. */
    if (status == CUDALOAD_OK && names_rva != 0) {
      status = sym_import_names(s, out, dll, names_rva, va_based);
    }
    free(dll);
    if (status != CUDALOAD_OK) {
      return status;
    }
    place.offset += desc_size;
    place.avail -= desc_size;
  }
  return CUDALOAD_OK;
}

int cl_pe_read_symbols(const cl_reader *r, const char *name,
                       cl_binary_symbols *out) {
  pe_sym s;
  int status;

  if (out == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cl_pe_read_symbols: no output");
  }
  memset(out, 0, sizeof *out);
  memset(&s, 0, sizeof s);
  s.p.src.r = r;
  s.p.src.label = name != NULL ? name : "(memory)";
  s.p.src.format = "PE";
  if (r == NULL || r->read_at == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no reader given",
                   s.p.src.label);
  }
  status = cl_pe_read_headers(&s.p);
  if (status == CUDALOAD_OK) {
    out->format = CL_FORMAT_PE;
    status = sym_read_exports(&s, out);
  }
  if (status == CUDALOAD_OK) {
    status = sym_read_imports(&s, out, 0);
  }
  if (status == CUDALOAD_OK) {
    status = sym_read_imports(&s, out, 1);
  }
  cl_pe_free(&s.p);
  if (status != CUDALOAD_OK) {
    cl_binary_symbols_free(out);
  }
  return status;
}
