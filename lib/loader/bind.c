/* SPDX-License-Identifier: MIT */
/*
 * bind.c - glibc's symbol binding rules (bind.h), on what binary_symbols.c
 * reads from the files. The matching follows check_match() and
 * do_lookup_x() in glibc's elf/dl-lookup.c; docs/loader.md ("Linux:
 * binding") states the rules and names the tests that check them against
 * the real loader.
 */
#include "loader/bind.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"

#include <stdint.h>
#include <string.h>

/* The name of the version a definition belongs to, as the loader sees it:
 * a definition of VER_NDX_GLOBAL in an object with version definitions
 * belongs to the base version (vd_ndx 1: the file's own name), which the
 * loader treats as a named version too. NULL: no name. */
static const char *version_name(const cl_binary_symbols *s,
                                const cl_symbol_def *d, int *index) {
  if (d->version >= 0 && (size_t)d->version < s->version_count) {
    *index = s->versions[d->version].index;
    return s->versions[d->version].name;
  }
  *index = 1; /* VER_NDX_GLOBAL */
  for (size_t k = 0; k < s->version_count; ++k)
    if (s->versions[k].index == 1)
      return s->versions[k].name;
  return NULL;
}

/* One definition in the matching (check_match): its version (as
 * cl_symbol_def.version) and hidden bit. Returns 1 when it is taken at
 * once; else 0, counting a candidate "only versioned" one in *seen. */
static int match_step(const cl_binary_symbols *s, int def_version, int hidden,
                      const char *version, size_t *versioned_seen,
                      int *only_versioned) {
  /* An object without version information satisfies every reference:
   * "we need a versioned symbol but haven't found any ... we accept the
   * symbol". */
  if (!s->versioned)
    return 1;
  cl_symbol_def d;
  memset(&d, 0, sizeof d);
  d.version = def_version;
  d.hidden = hidden;
  int index;
  const char *have = version_name(s, &d, &index);
  if (version) {
    /* The version asked for, hidden or not; or a definition with no
     * named version that is not hidden. */
    return (have && strcmp(have, version) == 0) || (!have && !hidden);
  }
  /* An unversioned reference (an old consumer, or the test fixtures):
   * VER_NDX_LOCAL, VER_NDX_GLOBAL and the first defined version (index
   * 2) are taken at once; a later version only when it is the one
   * non-hidden definition of that name. */
  if (index < 3)
    return 1;
  if (!hidden && (*versioned_seen)++ == 0)
    *only_versioned = 1;
  return 0;
}

long cl_bind_match(const cl_binary_symbols *s, const char *name,
                   const char *version) {
  if (!s || !name)
    return -1;
  long only_versioned = -1;
  size_t versioned_seen = 0;
  /* The definitions of that name, in file order, through the symbols'
   * index (binary_symbols.c): one hash lookup, not a compare per
   * definition. */
  for (size_t i = cl_binary_symbols_first_def(s, name); i != SIZE_MAX;
       i = cl_binary_symbols_next_def(s, i)) {
    const cl_symbol_def *d = &s->defs[i];
    int first = 0;
    if (match_step(s, d->version, d->hidden, version, &versioned_seen, &first))
      return (long)i;
    if (first)
      only_versioned = (long)i;
  }
  return versioned_seen == 1 ? only_versioned : -1;
}

int cl_bind_defines(cl_file_cache *files, const char *path, const char *name,
                    const char *version, int *match) {
  *match = 0;
  /* A name defined more often than this in one file (a few versions of
   * it) is asked of the whole table. */
  enum { MAX_FOUND = 16 };
  cl_found_def found[MAX_FOUND];
  size_t count = 0;
  const cl_binary_symbols *s = NULL;
  int rc =
      cl_file_cache_defs_quiet(files, path, name, found, MAX_FOUND, &count, &s);
  if (rc != CUDALOAD_OK)
    return rc;
  if (count > MAX_FOUND) {
    rc = cl_file_cache_symbols_quiet(files, path, &s);
    if (rc == CUDALOAD_OK)
      *match = cl_bind_match(s, name, version) >= 0;
    return rc;
  }
  size_t versioned_seen = 0;
  int only = 0;
  for (size_t i = 0; i < count; ++i) {
    int first = 0;
    if (match_step(s, found[i].version, found[i].hidden, version,
                   &versioned_seen, &first)) {
      *match = 1;
      return CUDALOAD_OK;
    }
    only |= first;
  }
  *match = versioned_seen == 1 && only;
  return CUDALOAD_OK;
}

long cl_bind_object_match(const cl_bind_object *o, const char *name,
                          const char *version) {
  if (!o || !o->symbols || !name)
    return -1;
  if (!o->files)
    return cl_bind_match(o->symbols, name, version);
  int match = 0; /* cl_bind_defines sets no error */
  int rc = cl_bind_defines(o->files, o->path, name, version, &match);
  return rc == CUDALOAD_OK && match ? 0 : -1;
}

size_t cl_bind_lookup(const cl_bind_object *const *order, size_t count,
                      const char *name, const char *version, long *def) {
  for (size_t i = 0; i < count; ++i) {
    if (!order[i] || !order[i]->symbols)
      continue;
    long d = cl_bind_object_match(order[i], name, version);
    if (d >= 0) {
      if (def)
        *def = d;
      return i;
    }
  }
  if (def)
    *def = -1;
  return SIZE_MAX;
}

/* The objects already in a lookup order, by pointer and by path, so that
 * building the order of a thousand objects is not a compare of each with
 * each. seen_ok: 0 when memory ran out for the index (then each is
 * compared). */
typedef struct order_builder {
  const cl_bind_object **out;
  size_t n;
  cl_str_index seen;
  int seen_ok;
} order_builder;

static void append_once(order_builder *b, const cl_bind_object *o) {
  if (!o)
    return;
  if (b->seen_ok) {
    /* By path: a path names one object; objects without one are compared
     * by pointer, as before. */
    if (o->path) {
      if (cl_str_index_find(&b->seen, o->path, NULL))
        return;
    } else {
      for (size_t i = 0; i < b->n; ++i)
        if (b->out[i] == o)
          return;
    }
    if (o->path && cl_str_index_add(&b->seen, o->path, b->n) != CUDALOAD_OK)
      b->seen_ok = 0;
    b->out[b->n++] = o;
    return;
  }
  for (size_t i = 0; i < b->n; ++i)
    if (b->out[i] == o ||
        (b->out[i]->path && o->path && strcmp(b->out[i]->path, o->path) == 0))
      return;
  b->out[b->n++] = o;
}

size_t cl_bind_order(const cl_bind_object *consumer, int symbolic, int deepbind,
                     const cl_bind_object *const *global, size_t global_count,
                     const cl_bind_object *const *local, size_t local_count,
                     const cl_bind_object **out) {
  order_builder b = {out, 0, {0}, 1};
  cl_str_index_init(&b.seen, 0);
  /* DT_SYMBOLIC puts the object's own definitions before everything
   * (elf/dl-lookup.c: "Search the relevant loaded objects ... DT_SYMBOLIC:
   * in the object itself first"). */
  if (symbolic)
    append_once(&b, consumer);
  if (deepbind)
    for (size_t i = 0; i < local_count; ++i)
      append_once(&b, local[i]);
  for (size_t i = 0; i < global_count; ++i)
    append_once(&b, global[i]);
  if (!deepbind) {
    append_once(&b, consumer);
    for (size_t i = 0; i < local_count; ++i)
      append_once(&b, local[i]);
  }
  cl_str_index_free(&b.seen);
  return b.n;
}

/* The name of the version the reference to `symbol` in s asks for
 * (malloc'ed), or NULL. */
static char *reference_version(const cl_binary_symbols *s, const char *symbol,
                               int *found) {
  for (size_t i = 0; i < s->ref_count; ++i)
    if (strcmp(s->refs[i].name, symbol) == 0) {
      *found = 1;
      return s->refs[i].version ? cl_strdup(s->refs[i].version) : NULL;
    }
  return NULL;
}

static int reference_of(const char *consumer, const char *symbol,
                        char **version, int *defines, int *symbolic) {
  *version = NULL;
  *defines = 0;
  *symbolic = 0;
  cl_binary_symbols s;
  int rc = cl_binary_read_symbols_file_quiet(consumer, &s);
  if (rc)
    return rc;
  int found = 0;
  *version = reference_version(&s, symbol, &found);
  *defines = cl_bind_match(&s, symbol, NULL) >= 0;
  cl_binary_symbols_free(&s);
  cl_binary_info info;
  if (cl_binary_parse_file_quiet(consumer, &info) == CUDALOAD_OK) {
    *symbolic = info.symbolic;
    cl_binary_info_free(&info);
  }
  return CUDALOAD_OK;
}

static int definition_version(const char *provider, const char *symbol,
                              char **version) {
  *version = NULL;
  cl_binary_symbols s;
  int rc = cl_binary_read_symbols_file_quiet(provider, &s);
  if (rc)
    return rc;
  long d = cl_bind_match(&s, symbol, NULL);
  if (d >= 0 && s.defs[d].version >= 0 &&
      (size_t)s.defs[d].version < s.version_count) {
    *version = cl_strdup(s.versions[s.defs[d].version].name);
    if (!*version)
      rc = CUDALOAD_E_NO_MEMORY;
  }
  cl_binary_symbols_free(&s);
  return rc;
}

/* A file that cannot be read is an answer to both lookups (the caller asks
 * without a version), not a failure: both read through answer forms and
 * set no error. */
int cl_bind_reference_of(const char *consumer, const char *symbol,
                         char **version, int *defines, int *symbolic) {
  return reference_of(consumer, symbol, version, defines, symbolic);
}

int cl_bind_definition_version(const char *provider, const char *symbol,
                               char **version) {
  return definition_version(provider, symbol, version);
}
