/* SPDX-License-Identifier: MIT */
/*
 * ldcache.h - read glibc's /etc/ld.so.cache directly (no `ldconfig -p`
 * subprocess). Both the "glibc-ld.so.cache1.1" format and the old "ld.so-1.7.0"
 * format with the new one appended are understood; input may be hostile.
 */
#ifndef CUDALOAD_LDCACHE_H
#define CUDALOAD_LDCACHE_H

#include "binary/binary.h"

/* Called for each entry of the host's ABI (x86-64 libc6 entries on an x86-64
 * build, ...): key is the library name ("libcudnn.so.9"), path its file.
 * Both strings live only for the duration of the call. */
typedef void (*cl_ldcache_visitor)(const char *key, const char *path,
                                   void *opaque);

/* Parse a cache image. Returns 0 or CUDALOAD_E_MALFORMED / _UNSUPPORTED with
 * the last error set; entries visited before a fault are kept. */
int cl_ldcache_parse(const cl_reader *r, cl_ldcache_visitor visit,
                     void *opaque);
/* Open the file (normally "/etc/ld.so.cache") and parse it. */
int cl_ldcache_read(const char *path, cl_ldcache_visitor visit, void *opaque);
/* The same, the file's bytes read once per run through the file cache c
 * (binary/file_cache.h; NULL: read here): the scan, each loader model and
 * the doctor's checks each parse it, none reads it again. */
struct cl_file_cache;
int cl_ldcache_read_cached(struct cl_file_cache *c, const char *path,
                           cl_ldcache_visitor visit, void *opaque);
/* Its answer form (common/error.h), for a caller to whom a missing or
 * damaged cache is one the loader cannot use either: the same status, no
 * last error written. */
int cl_ldcache_read_cached_quiet(struct cl_file_cache *c, const char *path,
                                 cl_ldcache_visitor visit, void *opaque);

#endif
