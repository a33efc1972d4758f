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
 * that a file replaced or changed since is read again. A context keeps one
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
} cl_file_cache_stats;
void cl_file_cache_get_stats(const cl_file_cache *c, cl_file_cache_stats *out);

#endif
