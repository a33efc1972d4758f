/* SPDX-License-Identifier: MIT */
/*
 * file_cache.h - what was read from a library file, kept for the rest of
 * the run (file_cache.c): its headers, its symbols, the names it holds as
 * text and its first bytes, each read at most once, whoever asks and
 * through whatever path or link. A doctor asks the same files the same
 * questions many times over (the plan, the loader model of each open, the
 * lazy names of each library the model meets): cuBLASLt was opened 15
 * times and read 286 MB over for one `cudaload doctor`.
 *
 * Entries are keyed by the file's stamp (os/platform.h: device, inode,
 * size, last write time), which is looked up again on every question, so
 * that a file replaced or changed since is read again; within one call
 * (until cl_file_cache_release), a file held open answers through the
 * path it was opened by without that look: the file held is the one the
 * call judges. A context keeps one
 * cache (cl_file_cache_of); the cache is not thread-safe, as a context is
 * not. The names, which depend on a file's content alone, are kept across
 * processes too, in the names store a context's cache is given
 * (binary/names_store.h).
 */
#ifndef CUDALOAD_FILE_CACHE_H
#define CUDALOAD_FILE_CACHE_H

#include "binary/binary.h"
#include "binary/binary_names.h"
#include "binary/binary_symbols.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cl_file_cache cl_file_cache;

/* An empty cache, or NULL when out of memory. */
cl_file_cache *cl_file_cache_new(void);
void cl_file_cache_free(cl_file_cache *c);
/* The context's cache, made on first use and freed with the context; NULL
 * when out of memory (the functions below then read the file each time). */
cl_file_cache *cl_file_cache_of(cudaload_ctx *ctx);
/* Free the context's cache (a new run reads every file again: the scan's);
 * the next cl_file_cache_of makes a new one. */
void cl_file_cache_forget(cudaload_ctx *ctx);

/* Answer names questions from s too, and keep what searches find in it
 * (the cache owns s; NULL: none). cl_file_cache_of gives a context's
 * cache the store the environment asks for (cl_names_store_open_default)
 * unless the context was made with CUDALOAD_NO_NAMES_STORE; a cache made
 * by cl_file_cache_new has none. */
struct cl_names_store;
void cl_file_cache_use_store(cl_file_cache *c, struct cl_names_store *s);
/* The clock the store's rule on young stamps reads (names_store.h):
 * cl_os_file_time_now unless a test gives its own (NULL: that one). */
typedef int64_t (*cl_clock)(void);
void cl_file_cache_set_clock(cl_file_cache *c, cl_clock clock);
/* Write what searches found since the last save to the store (freeing the
 * cache does it too); a failure changes nothing else. 1 when written. */
int cl_file_cache_save(cl_file_cache *c);

/* The whole content of a small file (at most max bytes, else
 * CUDALOAD_E_MALFORMED): read once per run however often it is asked
 * (ld.so.cache: the scan, each loader model, the doctor's checks), owned by
 * the cache and valid until it is freed. */
int cl_file_cache_whole(cl_file_cache *c, const char *path, uint64_t max,
                        const unsigned char **data, size_t *size);
/* The headers of the file at path (cl_binary_parse_file's answer), owned
 * by the cache and valid until it is freed. 0, or what cl_binary_parse_file
 * returns, with its last error. */
int cl_file_cache_info(cl_file_cache *c, const char *path,
                       const cl_binary_info **out);
/* The same, copied into *out for the caller to free with
 * cl_binary_info_free (c may be NULL: then a plain cl_binary_parse_file). */
int cl_file_cache_parse(cl_file_cache *c, const char *path,
                        cl_binary_info *out);
/* The symbols (cl_binary_read_symbols_file's answer), indexed, owned by
 * the cache. */
int cl_file_cache_symbols(cl_file_cache *c, const char *path,
                          const cl_binary_symbols **out);
/* References and definitions by name.
 *
 * Binding (loader/bind.h) asks a consumer for its references to CUDA
 * libraries and each file of its lookup order for the definitions of
 * those names, not for whole symbol tables: libtorch_cpu.so holds 85,000
 * symbols whose names take 6 MB, of which a consumer of cuBLAS asks a few
 * hundred names, none of them there. The caller says once which references
 * it needs (the filter, and a number that names it in the names store);
 * without one, every question reads the whole table. */
void cl_file_cache_set_reference_filter(cl_file_cache *c, cl_ref_filter keep,
                                        void *opaque, uint32_t id);
/* The references of the file at path the filter keeps, with its version
 * definitions, owned by the cache: from the names store when it knows the
 * file (binary/names_store.h, "References"), else read (a read of
 * references alone: cl_binary_read_references). refs_filtered is 0 when
 * the answer is a whole read (a PE file, or a table read whole for another
 * question): then every reference is there. Errors as
 * cl_file_cache_symbols. */
int cl_file_cache_references(cl_file_cache *c, const char *path,
                             const cl_binary_symbols **out);
/* The definitions of name in the file at path, in file order, into
 * found[0 .. *count) (*count may exceed cap: then only cap are written),
 * looked up through the file's hash table (binary/elf_lookup.h) where it
 * has one, else from the whole table; *symbols is what their version
 * indexes index (its versions), owned by the cache. Errors as
 * cl_file_cache_symbols (the file cannot be read: it defines nothing). */
int cl_file_cache_defs(cl_file_cache *c, const char *path, const char *name,
                       cl_found_def *found, size_t cap, size_t *count,
                       const cl_binary_symbols **symbols);

/* Answer forms (common/error.h) of the five above and of
 * cl_file_cache_names (below), for a caller to whom a
 * file that cannot be read is an answer (it tells nothing, defines
 * nothing): the same status and out-parameters, and no last error written
 * (the cache keeps the reason, and the failing form says it when asked). */
int cl_file_cache_info_quiet(cl_file_cache *c, const char *path,
                             const cl_binary_info **out);
int cl_file_cache_parse_quiet(cl_file_cache *c, const char *path,
                              cl_binary_info *out);
int cl_file_cache_symbols_quiet(cl_file_cache *c, const char *path,
                                const cl_binary_symbols **out);
int cl_file_cache_references_quiet(cl_file_cache *c, const char *path,
                                   const cl_binary_symbols **out);
int cl_file_cache_names_quiet(cl_file_cache *c, const char *path,
                              uint64_t max_bytes, cl_name_visitor visit,
                              void *opaque);
int cl_file_cache_defs_quiet(cl_file_cache *c, const char *path,
                             const char *name, cl_found_def *found, size_t cap,
                             size_t *count, const cl_binary_symbols **symbols);

/* Holding files open.
 *
 * A run asks one file many questions (its headers, its first bytes, its
 * references, definitions by name): the cache keeps each file it opened
 * open (at most 128), so that a run opens it once, until released:
 * cl_file_cache_release closes them (and frees what lookups read), unless
 * a caller holds the cache (cl_file_cache_hold, as many times as it is
 * unheld; the last unhold releases). The public calls that read files
 * release at their end (the plan, a preload before its loads); a command
 * that plans and then judges (the doctor, explain) holds the cache across
 * both. Freeing the cache releases too. */
void cl_file_cache_release(cl_file_cache *c);
void cl_file_cache_hold(cl_file_cache *c);
void cl_file_cache_unhold(cl_file_cache *c);

/* Visit the library names the file holds as text (cl_binary_names), each
 * once, in the order a scan first meets them (c may be NULL). */
int cl_file_cache_names(cl_file_cache *c, const char *path, uint64_t max_bytes,
                        cl_name_visitor visit, void *opaque);

/* The first bytes of what path names, as a loader reading a candidate
 * meets them: *kind is what the path is (CL_KIND_MISSING when nothing);
 * for a regular file, *opened tells whether it could be opened and *got
 * how many of the `want` (at most 64) bytes were read into buf, *read_ok
 * whether reading failed. Never writes the last error. */
typedef struct cl_file_head {
  cl_file_kind kind;
  int opened;
  int read_ok;
  size_t got;
  uint64_t size;
} cl_file_head;
void cl_file_cache_head(cl_file_cache *c, const char *path, unsigned char *buf,
                        size_t want, cl_file_head *out);

/* What the cache did, for tests and benchmarks: files read for each part,
 * questions answered from the cache, and files whose names came from the
 * names store (binary/names_store.h) instead of a search. */
typedef struct cl_file_cache_stats {
  size_t info_reads, symbol_reads, name_reads, head_reads, hits, store_hits;
  size_t known_builds; /* names taken from the table of known builds */
  /* References read, and taken from the store; hash tables found without
   * a read of references; definitions looked up by name. */
  size_t reference_reads, reference_store_hits, lookup_preparations, lookups;
} cl_file_cache_stats;
void cl_file_cache_get_stats(const cl_file_cache *c, cl_file_cache_stats *out);

#endif
