/* SPDX-License-Identifier: MIT */
/*
 * verdict_bindings.c - where each CUDA reference of a consumer binds in the
 * modelled process (verdict_bindings.h): the lookup scope of its dlopen
 * group and the global scope, searched as the loader searches (bind.c),
 * grouped by library and version node. The files' symbols are read once
 * per verdict. What fails to bind is judged from these groups
 * (verdict_binding_findings.c).
 */
#include "load/verdict_bindings.h"

#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/verdict_cuda_names.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "common/reason_words.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s) {
  return s ? cl_strdup(s) : NULL;
}

/* --- bindings ---------------------------------------------------------------
 */

/* Symbols read once per file for one verdict. Each entry is allocated on
 * its own, so the pointers handed out stay valid as the cache grows. */
typedef struct cache_entry {
  const cl_binary_symbols *symbols; /* NULL: unreadable */
  cl_binary_symbols own; /* read here when the context has no file cache */
  cl_bind_object object;
  char *path;
} cache_entry;

typedef struct symbol_cache {
  cache_entry **entries;
  size_t count, capacity;
} symbol_cache;

const cl_bind_object *cl_verdict_bind_object(cudaload_explain *e,
                                             const char *path) {
  symbol_cache *c = e->symbol_cache;
  if (!c && !(c = e->symbol_cache = calloc(1, sizeof *c)))
    return NULL;
  for (size_t i = 0; i < c->count; ++i)
    if (strcmp(c->entries[i]->path, path) == 0)
      return &c->entries[i]->object;
  if (cl_reserve((void **)&c->entries, &c->capacity, c->count + 1,
                 sizeof *c->entries))
    return NULL;
  cache_entry *entry = calloc(1, sizeof *entry);
  if (!entry || !(entry->path = cl_strdup(path))) {
    free(entry);
    return NULL;
  }
  /* A file whose symbols cannot be read binds nothing we can tell. */
  cl_file_cache *files = cl_verdict_files(e->ctx);
  if (files) {
    /* Its references to CUDA libraries; its definitions are asked by name
     * (cl_bind_object.files). */
    if (cl_file_cache_references_quiet(files, path, &entry->symbols) !=
        CUDALOAD_OK)
      entry->symbols = NULL;
  } else if (cl_binary_read_symbols_file_quiet(path, &entry->own) ==
             CUDALOAD_OK) {
    entry->symbols = &entry->own;
  }
  entry->object.path = entry->path;
  entry->object.symbols =
      entry->symbols && entry->symbols->format ? entry->symbols : NULL;
  entry->object.files = files;
  c->entries[c->count++] = entry;
  return &entry->object;
}

void cl_verdict_symbol_cache_free(void *cache) {
  symbol_cache *c = cache;
  if (!c)
    return;
  for (size_t i = 0; i < c->count; ++i) {
    if (c->entries[i]->symbols == &c->entries[i]->own)
      cl_binary_symbols_free(&c->entries[i]->own);
    free(c->entries[i]->path);
    free(c->entries[i]);
  }
  free(c->entries);
  free(c);
}

/* The lookup scope of the dlopen group object k belongs to: its group's
 * root (the object opened, or one opened lazily) and everything the root
 * needs, breadth first over DT_NEEDED edges (objects already loaded
 * included), as glibc builds the searchlist of a dlopen. */
static size_t group_root(const cl_load_tree *t, size_t k) {
  size_t guard = t->object_count;
  while (t->objects[k].loader != SIZE_MAX && guard--)
    k = t->objects[k].loader;
  return k;
}

static size_t local_scope(const cl_load_tree *t, size_t root, size_t *out) {
  size_t n = 0;
  out[n++] = root;
  /* The DT_NEEDED edges of each object (first[k] .. first[k + 1] in
   * by_from, in edge order) and the objects met: each edge and object once,
   * not each edge for each object (a graph of a thousand libraries). */
  size_t *first = calloc(t->object_count + 1, sizeof *first);
  size_t *by_from = malloc((t->edge_count + 1) * sizeof *by_from);
  unsigned char *met = calloc(t->object_count + 1, 1);
  size_t *fill = calloc(t->object_count + 1, sizeof *fill);
  if (!first || !by_from || !met || !fill) {
    free(first);
    free(by_from);
    free(met);
    free(fill);
    for (size_t head = 0; head < n; ++head) /* no memory: edge by edge */
      for (size_t i = 0; i < t->edge_count; ++i) {
        const cl_load_edge *edge = &t->edges[i];
        if (edge->from != out[head] || edge->lazy ||
            edge->to >= t->object_count)
          continue;
        int seen = 0;
        for (size_t j = 0; j < n && !seen; ++j)
          seen = out[j] == edge->to;
        if (!seen)
          out[n++] = edge->to;
      }
    return n;
  }
  for (size_t i = 0; i < t->edge_count; ++i)
    if (t->edges[i].from < t->object_count)
      first[t->edges[i].from + 1]++;
  for (size_t k = 0; k < t->object_count; ++k)
    first[k + 1] += first[k];
  for (size_t i = 0; i < t->edge_count; ++i) {
    size_t from = t->edges[i].from;
    if (from < t->object_count)
      by_from[first[from] + fill[from]++] = i;
  }
  met[root] = 1;
  for (size_t head = 0; head < n; ++head)
    for (size_t e = first[out[head]]; e < first[out[head] + 1]; ++e) {
      const cl_load_edge *edge = &t->edges[by_from[e]];
      if (edge->lazy || edge->to >= t->object_count || met[edge->to])
        continue;
      met[edge->to] = 1;
      out[n++] = edge->to;
    }
  free(fill);
  free(first);
  free(by_from);
  free(met);
  return n;
}

static cl_explain_binding *binding_group(cudaload_explain *e,
                                         cl_explain_object *o,
                                         const char *library,
                                         const char *version) {
  for (size_t i = 0; i < o->binding_count; ++i) {
    cl_explain_binding *b = &o->bindings[i];
    if (strcmp(b->library, library) == 0 &&
        ((!b->version && !version) ||
         (b->version && version && strcmp(b->version, version) == 0)))
      return b;
  }
  if (cl_reserve((void **)&o->bindings, &o->binding_capacity,
                 o->binding_count + 1, sizeof *o->bindings)) {
    e->failed = 1;
    return NULL;
  }
  cl_explain_binding *b = &o->bindings[o->binding_count++];
  memset(b, 0, sizeof *b);
  b->library = cl_strdup(library);
  b->version = dup_or_null(version);
  if (!b->library)
    e->failed = 1;
  return b;
}

/* What one reference asked of each file so far: the loader's lookup and
 * the author's scope ask the same files (the scope is part of the lookup
 * order), and each answer is a lookup in the file's hash table. */
typedef struct asked {
  const cl_bind_object **object;
  signed char *defines; /* 1 or 0 */
  size_t count;
} asked;

/* Whether b defines ref for its version, asked once per reference. */
static int defines(asked *a, const cl_bind_object *b,
                   const cl_symbol_ref *ref) {
  for (size_t i = 0; i < a->count; ++i)
    if (a->object[i] == b)
      return a->defines[i];
  int yes = cl_bind_object_match(b, ref->name, ref->version) >= 0;
  a->object[a->count] = b;
  a->defines[a->count++] = (signed char)yes;
  return yes;
}

/* What the author linked against for ref: the index in local (k's own
 * scope) of the file that provides it (the first that defines it), or
 * SIZE_MAX. */
static size_t expected_provider(asked *a, const cl_bind_object *const *local,
                                size_t n_local, const cl_bind_object *self,
                                const cl_symbol_ref *ref) {
  for (size_t i = 0; i < n_local; ++i)
    if (local[i] != self && local[i]->symbols && defines(a, local[i], ref))
      return i;
  return SIZE_MAX;
}

/* Count ref in its binding group b: expected is the file the author linked
 * against, provider the one the loader binds (either may be NULL). 0, or
 * -1 when memory ran out. */
static int count_binding(cl_explain_binding *b, const cl_symbol_ref *ref,
                         const char *expected, const char *provider,
                         int symbols) {
  if (!b->symbols) {
    b->expected = dup_or_null(expected);
    b->provider = dup_or_null(provider);
  }
  b->symbols++;
  if (symbols) {
    size_t capacity = b->each_capacity;
    if (cl_reserve((void **)&b->each_symbol, &capacity, b->each_count + 1,
                   sizeof *b->each_symbol) ||
        cl_reserve((void **)&b->each_provider, &b->each_capacity,
                   b->each_count + 1, sizeof *b->each_provider))
      return -1;
    b->each_symbol[b->each_count] = cl_strdup(ref->name);
    b->each_provider[b->each_count] = dup_or_null(provider);
    b->each_count++;
  }
  if (!provider && !ref->weak) {
    if (!b->undefined && !(b->undefined_example = cl_strdup(ref->name)))
      return -1;
    b->undefined++;
    return 0;
  }
  int same = expected && provider && strcmp(expected, provider) == 0;
  if (!same && (expected || provider)) {
    if (!b->elsewhere) {
      b->example = cl_strdup(ref->name);
      b->elsewhere_provider = dup_or_null(provider);
    }
    b->elsewhere++;
  }
  return 0;
}

/* The object of t a PE import of `dll` from object k resolved to (its
 * edge's target), or SIZE_MAX: Windows binds an import by name to the one
 * module its DLL name was resolved to, nothing else. */
static size_t pe_import_target(const cl_load_tree *t, size_t k,
                               const char *dll) {
  for (size_t i = 0; i < t->edge_count; ++i)
    if (t->edges[i].from == k && cl_ascii_equal_nocase(t->edges[i].name, dll))
      return t->edges[i].to;
  return SIZE_MAX;
}

/* Where one reference of object k binds: the index into order (ELF), or
 * the PE module's bind object (*pe). */
static const cl_bind_object *
reference_provider(cudaload_explain *e, asked *a, const cl_load_tree *t,
                   size_t k, const cl_bind_object *const *order, size_t n_order,
                   const cl_symbol_ref *ref) {
  if (t->objects[k].info.format == CL_FORMAT_PE) {
    size_t to = ref->file ? pe_import_target(t, k, ref->file) : SIZE_MAX;
    if (to >= t->object_count)
      return NULL;
    const cl_bind_object *b = cl_verdict_bind_object(e, t->objects[to].path);
    return b && b->symbols && cl_bind_object_match(b, ref->name, NULL) >= 0
               ? b
               : NULL;
  }
  /* The first file of the lookup order that defines it (cl_bind_lookup),
   * each answer kept for the author's scope. */
  for (size_t i = 0; i < n_order; ++i)
    if (order[i] && order[i]->symbols && defines(a, order[i], ref))
      return order[i];
  return NULL;
}

/* The dependency an unversioned reference nothing defines was meant for:
 * the file of the consumer's scope whose family names the symbol's prefix
 * (ncclCommRegister -> libnccl.so.2, which versions nothing: an older NCCL
 * found first fails by plain name). Its SONAME or file name, or NULL. */
static const char *unversioned_owner(const cl_load_tree *t, const size_t *scope,
                                     size_t count, const char *symbol,
                                     cl_naming naming) {
  for (size_t i = 1; scope && i < count; ++i) {
    const cl_load_object *o = &t->objects[scope[i]];
    cl_name_match m;
    if (!cl_cuda_catalog_of(o->path, o->info.soname, naming, &m))
      continue;
    if (cl_starts_with_nocase(symbol, m.entry->family) &&
        strlen(m.entry->family) >= 4)
      return o->info.soname && o->info.soname[0] ? o->info.soname
                                                 : cl_path_basename(o->path);
  }
  return NULL;
}

void cl_verdict_object_bindings(cudaload_explain *e, cl_explain_object *o,
                                const cl_load_tree *t, size_t k,
                                cl_naming naming, int symbols) {
  const cl_bind_object *self = cl_verdict_bind_object(e, t->objects[k].path);
  if (!self || !self->symbols)
    return;
  size_t *scope = malloc(t->object_count * sizeof *scope);
  const cl_bind_object **local = malloc((t->object_count + 1) * sizeof *local);
  const cl_bind_object **order =
      malloc((t->object_count + e->global_count + 2) * sizeof *order);
  /* Each file of the order and of the scope answers once per reference. */
  size_t most = t->object_count + e->global_count + t->object_count + 3;
  asked a = {malloc(most * sizeof *a.object), malloc(most), 0};
  if (!scope || !local || !order || !a.object || !a.defines) {
    e->failed = 1;
    goto done;
  }
  size_t local_count = local_scope(t, group_root(t, k), scope);
  /* k searches its group's scope, which starts at the group's root. */
  size_t n_local = 0;
  for (size_t i = 0; i < local_count; ++i) {
    const cl_bind_object *b =
        cl_verdict_bind_object(e, t->objects[scope[i]].path);
    if (b)
      local[n_local++] = b;
  }
  size_t n_order =
      cl_bind_order(self, t->objects[k].info.symbolic, 0, e->global,
                    e->global_count, local, n_local, order);
  const cl_binary_symbols *s = self->symbols;
  /* Every reference asked for: the whole table (a read of references
   * keeps CUDA's alone). */
  const cl_binary_symbols *whole = NULL;
  if (symbols && s->refs_filtered && self->files) {
    if (cl_file_cache_symbols_quiet(self->files, self->path, &whole) ==
        CUDALOAD_OK)
      s = whole;
  }
  for (size_t r = 0; r < s->ref_count; ++r) {
    const cl_symbol_ref *ref = &s->refs[r];
    /* CUDA's references only, unless every one was asked for (the
     * differential tests compare each with the loader's). */
    if (!symbols && !cl_cuda_reference(ref, naming))
      continue;
    a.count = 0;
    const cl_bind_object *got =
        reference_provider(e, &a, t, k, order, n_order, ref);
    size_t want = expected_provider(&a, local, n_local, self, ref);
    /* A reference nothing defines is a finding when it names its file (a
     * versioned or imported one): the loader fails on it. An unversioned
     * one of no known file (weak, or the loader's own) is left to it. */
    const char *owner = NULL;
    if (!got && want == SIZE_MAX && !ref->weak && !ref->file)
      owner = unversioned_owner(t, local_count ? scope : NULL, local_count,
                                ref->name, naming);
    if (!got && want == SIZE_MAX && (ref->weak || (!ref->file && !owner)))
      continue;
    const char *expected = want != SIZE_MAX ? local[want]->path : NULL;
    const char *provider = got ? got->path : NULL;
    const char *library = ref->file  ? ref->file
                          : expected ? cl_path_basename(expected)
                          : owner    ? owner
                                     : CL_WORDS_LIBRARY_UNKNOWN;
    cl_explain_binding *b = binding_group(e, o, library, ref->version);
    if (!b)
      break;
    if (count_binding(b, ref, expected, provider, symbols)) {
      e->failed = 1;
      break;
    }
  }
done:
  free(scope);
  free(local);
  free(order);
  free(a.object);
  free(a.defines);
}
