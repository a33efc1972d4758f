/* SPDX-License-Identifier: MIT */
/*
 * binary_symbols.h - what a library file exports and imports, with ELF
 * symbol versions: the facts the loader's binding of one object's
 * references to another object's definitions depends on (docs/loader.md).
 *
 * Every real NVIDIA library versions its exports with a node named after
 * its SONAME (cudnnCreate@@libcudnn.so.9), and consumers reference the
 * versioned symbol (cudnnCreate@libcudnn.so.8 in libctranslate2): glibc
 * binds a versioned reference only to a definition of that version (or to
 * an object without version information), so which cuDNN a consumer gets
 * cannot be told from names alone. This reader gives the binding model
 * (bind.c) what it needs; like the other readers it never trusts a count
 * or an offset from the file and never loads anything.
 */
#ifndef CUDALOAD_BINARY_SYMBOLS_H
#define CUDALOAD_BINARY_SYMBOLS_H

#include "binary/binary.h"
#include "os/platform.h"

#include <stddef.h>

/* A version node the file defines (ELF DT_VERDEF). */
typedef struct cl_symbol_version {
  char *name;  /* "libcudnn.so.9" */
  int index;   /* vd_ndx, as DT_VERSYM entries refer to it */
  int is_base; /* VER_FLG_BASE: the file's own name, not a real node */
} cl_symbol_version;

/* A symbol the file defines and exports (ELF: a defined dynamic symbol,
 * global or weak binding, default or protected visibility; PE: an export
 * by name). */
typedef struct cl_symbol_def {
  char *name;
  /* ELF: index into cl_binary_symbols.versions of the node it belongs to,
   * or -1 when it has none (the object has no DT_VERSYM, or the entry is
   * VER_NDX_GLOBAL / VER_NDX_LOCAL, or names no DT_VERDEF node: in an
   * executable, a copy-relocated definition carries the needed version of
   * the library it copies). */
  int version;
  int hidden;    /* ELF: the versym hidden bit (not the default version) */
  int weak;      /* ELF: STB_WEAK */
  char *forward; /* PE: "NTDLL.RtlFoo" for a forwarder, else NULL */
} cl_symbol_def;

/* The versions a file requires of one other file (ELF DT_VERNEED). */
typedef struct cl_symbol_need {
  char *file;      /* vn_file: "libcudnn.so.8" */
  char **versions; /* vna_name of each entry: "libcudnn.so.8" */
  size_t version_count;
} cl_symbol_need;

/* A symbol the file references and does not define (ELF: an undefined
 * dynamic symbol; PE: an import by name from one DLL). */
typedef struct cl_symbol_ref {
  char *name;
  char *version; /* ELF: the required version's name, NULL: unversioned */
  char *file;    /* ELF: the DT_VERNEED file naming that version; PE: the
                    DLL imported from; NULL when unknown */
  int weak;      /* ELF: STB_WEAK (an unresolved weak reference is fine) */
} cl_symbol_ref;

/* One definition of a name as a lookup finds it: what binding needs of it
 * (bind.c). */
typedef struct cl_found_def {
  int version; /* as cl_symbol_def.version */
  int hidden;
  int weak;
} cl_found_def;

struct cl_symbol_lookup;

typedef struct cl_binary_symbols {
  cl_binary_format format;
  int versioned; /* ELF: the file has a DT_VERSYM table */
  cl_symbol_version *versions;
  size_t version_count;
  cl_symbol_def *defs; /* in file order */
  size_t def_count;
  cl_symbol_need *needs;
  size_t need_count;
  cl_symbol_ref *refs; /* in file order */
  size_t ref_count;
  /* ELF: the dynamic string table, when the names of defs and refs point
   * into it (then they are not allocations of their own); NULL otherwise. */
  char *name_table;
  /* 1: each ref's version and file are its need's strings (needs[] owns
   * them), not copies. */
  int refs_share_needs;
  /* The definitions by name (cl_binary_symbols_index), so that finding a
   * name's definitions costs the same however many the file has: a
   * consumer of cuBLAS binds thousands of references to each of several
   * providers. def_slots (def_slot_count pairs of a name's hash and its
   * first definition plus one; a power of two of them, 0 when not indexed;
   * binary_symbols.c), def_next each definition's next of the same name
   * plus one (0: none), in file order. */
  struct cl_symbol_slot *def_slots;
  size_t def_slot_count;
  size_t *def_next;
  /* A read of references alone (cl_binary_read_references): refs holds
   * those its filter kept, in file order (refs_filtered), defs is empty and
   * a name's definitions are found through the file's hash table with
   * lookup (elf_lookup.h; NULL when the file has none usable: then only a
   * whole read answers). opens_by_name is cl_binary_symbols_open_by_name's
   * answer over every reference, kept or not. */
  int refs_filtered;
  int opens_by_name;
  struct cl_symbol_lookup *lookup;
} cl_binary_symbols;

/* Read the symbol tables of an ELF or PE image. On failure returns a
 * CUDALOAD_E_* status with the last error naming `name` and the structure
 * at fault, and leaves *out freed and zeroed. Bounded like the other
 * readers: counts are capped and checked against the file size. */
int cl_binary_read_symbols(const cl_reader *r, const char *name,
                           cl_binary_symbols *out);
/* The readers behind it, one per format (the fuzzers call them). */
int cl_elf_read_symbols(const cl_reader *r, const char *name,
                        cl_binary_symbols *out);
int cl_pe_read_symbols(const cl_reader *r, const char *name,
                       cl_binary_symbols *out);
/* The ELF side of cl_binary_read_references and cl_binary_prepare_lookup
 * (below). */
typedef int (*cl_ref_filter)(const char *name, const char *file, void *opaque);
int cl_elf_read_references(const cl_reader *r, const char *name,
                           cl_ref_filter keep, void *opaque,
                           cl_binary_symbols *out);
int cl_elf_prepare_lookup(const cl_reader *r, const char *name,
                          cl_binary_symbols *out);
/* The lookup of definitions by name (elf_lookup.c): freed with the
 * symbols; the definitions of `name` (s->lookup's file, read through r)
 * into found[0 .. *count), in symbol table order; *count may exceed cap
 * (then only cap are written and the caller asks the whole table). 0, or a
 * CUDALOAD_E_* status when the table does not hold what its header says
 * (the caller then reads the whole table, which says why). */
void cl_symbol_lookup_free(struct cl_symbol_lookup *l);
int cl_elf_lookup_defs(const cl_binary_symbols *s, const cl_reader *r,
                       const char *label, const char *name,
                       struct cl_found_def *found, size_t cap, size_t *count);
/* The same for a file (refusing folders, FIFOs and devices without
 * blocking); messages start with the path. */
int cl_binary_read_symbols_file(const char *path, cl_binary_symbols *out);
/* Its answer form (common/error.h): the same status, no last error
 * written (a file whose symbols cannot be read binds nothing). */
int cl_binary_read_symbols_file_quiet(const char *path, cl_binary_symbols *out);
/* cl_binary_parse_file() and cl_binary_read_symbols_file() on one open of
 * the file (what `cudaload inspect` reads): both succeed, or both outputs
 * are left freed and zeroed. */
int cl_binary_inspect_file(const char *path, cl_binary_info *info,
                           cl_binary_symbols *symbols);
/* The same on a file already open (size bytes long; path names it in
 * messages): either output may be NULL (binary/file_cache.c reads one part
 * at a time). Symbols come indexed. */
int cl_binary_read_open(cl_file *f, uint64_t size, const char *path,
                        cl_binary_info *info, cl_binary_symbols *symbols);
void cl_binary_symbols_free(cl_binary_symbols *s);

/* Which references a reader of references keeps (cl_ref_filter): name
 * and, for a versioned one, the file its version need names (NULL:
 * unversioned); 1 to keep. */
/* Read what binding needs of a consumer without the whole table: its
 * version definitions and needs, the references `keep` keeps, whether any
 * reference opens libraries by name, and where its hash table is, so that
 * definitions are found by name (cl_binary_symbols_defs). An ELF file's
 * string table is read only where the kept names are (libtorch_cuda.so's
 * holds 11 MB, its references' names a few hundred KB); the checks are the
 * whole read's, so a file this refuses the whole read refuses too. PE
 * files are read whole (refs_filtered 0). Else as cl_binary_read_symbols. */
int cl_binary_read_references(const cl_reader *r, const char *name,
                              cl_ref_filter keep, void *opaque,
                              cl_binary_symbols *out);
/* The same for a file whose references are known already (the names
 * store): the version definitions and where the hash table is, nothing of
 * the symbols; refs and opens_by_name are left to the caller. */
int cl_binary_prepare_lookup(const cl_reader *r, const char *name,
                             cl_binary_symbols *out);

/* The definitions of `name` into found[0 .. *count) in file order (*count
 * may exceed cap: then only cap are written): from the index of a whole
 * read, or through s->lookup reading r (then a failure is a CUDALOAD_E_*
 * status, and the caller reads the whole table instead). */
int cl_binary_symbols_defs(const cl_binary_symbols *s, const cl_reader *r,
                           const char *label, const char *name,
                           cl_found_def *found, size_t cap, size_t *count);

/* Index the definitions by name (the readers above do it after a read).
 * 0, or CUDALOAD_E_NO_MEMORY with s left unindexed, which the lookups below
 * then answer by reading every definition. */
int cl_binary_symbols_index(cl_binary_symbols *s);
/* The first definition of `name` in file order (an index into s->defs), or
 * SIZE_MAX; then the next one after definition i, or SIZE_MAX. */
size_t cl_binary_symbols_first_def(const cl_binary_symbols *s,
                                   const char *name);
size_t cl_binary_symbols_next_def(const cl_binary_symbols *s, size_t i);

/* 1 when the file imports a function that opens a library by name (ELF:
 * dlopen, dlmopen; PE: LoadLibraryA/W, LoadLibraryExA/W, LdrLoadDll), 0
 * when it imports none: such a file can open nothing by name itself, and
 * the names it holds as text are someone else's to open (cuDNN 9's
 * heuristic library, 86 MB, holds no such import and opens nothing). */
int cl_binary_symbols_open_by_name(const cl_binary_symbols *s);
/* Whether name is one of those loader entry points. */
int cl_binary_is_loader_entry(const char *name);

/* The index into s->versions of the node named `name` (a real node before
 * the base entry of the same name), or -1. */
int cl_binary_symbols_version_index(const cl_binary_symbols *s,
                                    const char *name);

#endif
