/* SPDX-License-Identifier: MIT */
/*
 * bind.h - which loaded object provides a symbol to a consumer's reference,
 * by glibc's rules (docs/loader.md, "Linux: binding"): the objects are
 * searched in the consumer's lookup order, and the first whose definition
 * matches the reference's version wins.
 *
 * A definition matches a reference when:
 * - the reference names a version V: the definition has version V (hidden
 *   or not); or it has no version of its own (VER_NDX_GLOBAL) and is not
 *   hidden; or the object has no version information at all (an
 *   unversioned object satisfies any versioned reference);
 * - the reference names no version: the definition has no version, or is
 *   the object's first defined version (index 2, the version script's node
 *   of a library built with one), or is the only non-hidden definition of
 *   that name (the "default" version a versioned library offers to an old,
 *   unversioned consumer).
 * The lookup order: the consumer itself first when it was linked with
 * -Bsymbolic (DT_SYMBOLIC), then the global scope (the executable, its
 * libraries, everything opened RTLD_GLOBAL, in load order), then the
 * consumer's own scope (itself and its dependencies, breadth first); with
 * RTLD_DEEPBIND its own scope comes before the global one.
 */
#ifndef CUDALOAD_BIND_H
#define CUDALOAD_BIND_H

#include "binary/binary_symbols.h"
#include "binary/file_cache.h"

#include <stddef.h>

/* An object that can provide definitions. With files, its definitions are
 * asked by name through that cache (cl_file_cache_defs: the file's hash
 * table, not its whole symbol table), and symbols may be a read of
 * references alone (refs_filtered). */
typedef struct cl_bind_object {
  const char *path;
  const cl_binary_symbols *symbols; /* NULL: not readable, defines nothing */
  cl_file_cache *files;
} cl_bind_object;

/* The index into s->defs of the definition of `name` that satisfies a
 * reference of `version` (NULL: an unversioned reference), or -1. */
long cl_bind_match(const cl_binary_symbols *s, const char *name,
                   const char *version);

/* Whether the file at path defines `name` for a reference of `version`,
 * its definitions looked up by name through files: 1 or 0 into *match. 0,
 * or a CUDALOAD_E_* status when the file cannot be read (it defines
 * nothing the caller can tell). Sets no error: both callers take "cannot
 * be read" for an answer. */
int cl_bind_defines(cl_file_cache *files, const char *path, const char *name,
                    const char *version, int *match);

/* cl_bind_match for an object: 0 or more when it defines a match (with
 * files, 0: which definition is not said), else -1. */
long cl_bind_object_match(const cl_bind_object *o, const char *name,
                          const char *version);

/* The first object of order[0..count) whose definition satisfies the
 * reference, or SIZE_MAX; *def receives cl_bind_object_match's answer for
 * it. */
size_t cl_bind_lookup(const cl_bind_object *const *order, size_t count,
                      const char *name, const char *version, long *def);

/* A consumer's lookup order, built from the global scope and the
 * consumer's own scope (both in their load order, the consumer first in
 * its own): into out (capacity global_count + local_count + 1), each
 * object once; returns the count. */
size_t cl_bind_order(const cl_bind_object *consumer, int symbolic, int deepbind,
                     const cl_bind_object *const *global, size_t global_count,
                     const cl_bind_object *const *local, size_t local_count,
                     const cl_bind_object **out);

/* For a live answer: what `consumer` (a file) asks of `symbol`: the
 * version its reference names (*version malloc'ed, NULL: an unversioned
 * reference or none), whether it defines the symbol itself, and whether it
 * was linked -Bsymbolic. 0 or a CUDALOAD_E_* status (the file could not be
 * read: the caller then asks without a version); never writes the last
 * error. */
int cl_bind_reference_of(const char *consumer, const char *symbol,
                         char **version, int *defines, int *symbolic);

/* The version node `provider`'s definition of `symbol` belongs to, as a
 * consumer linked against it records in its reference (*version
 * malloc'ed; NULL when the definition has no version or is absent). Never
 * writes the last error. */
int cl_bind_definition_version(const char *provider, const char *symbol,
                               char **version);

#endif
