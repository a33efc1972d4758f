/* SPDX-License-Identifier: MIT */
/*
 * explain.c - `cudaload explain`: what the loader would open for a consumer
 * file and where its CUDA symbols would bind, from the loader model
 * (resolve.c: search order) and the binding rules (bind.c: symbol
 * versions), or what a running process has mapped. Nothing is loaded: the
 * files are read, and the model answers. The differential tests compare
 * these answers with the real loader's (docs/loader.md).
 */
#include "report/explain.h"
#include "common/build_facts.h"

#include "binary/binary_names.h"
#include "load/bind.h"
#include "scan/catalog.h"
#include "core/context.h"
#include "scan/inventory.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "load/resolve.h"
#include "common/strutil.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- small helpers ------------------------------------------------------ */

static void add_problem(cudaload_explain *e, char *text) {
  if (!text || cl_reserve((void **)&e->problems, &e->problem_capacity,
                          e->problem_count + 1, sizeof *e->problems)) {
    free(text);
    e->failed = 1;
    return;
  }
  for (size_t i = 0; i < e->problem_count; ++i)
    if (strcmp(e->problems[i], text) == 0) {
      free(text);
      return;
    }
  e->problems[e->problem_count++] = text;
}

static char *dup_or_null(const char *s) {
  return s ? cl_strdup(s) : NULL;
}

/* The catalog entry a file is (by its SONAME first: a renamed copy such
 * as ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7 keeps libcudnn.so.8). */
static int catalog_of(const char *path, const char *soname, cl_naming naming,
                      cl_name_match *m) {
  if (soname && soname[0] && cl_catalog_match(soname, naming, m))
    return 1;
  return cl_catalog_match(cl_path_basename(path), naming, m);
}

/* The scan's version of the file real in c's inventory: 1 when c has it. */
static int inventory_version(cudaload_ctx *c, const char *real, char **version,
                             int *cuda_major) {
  for (size_t i = 0; i < c->library_count; ++i)
    if (strcmp(c->libraries[i].path, real) == 0) {
      cl_library_settle_version(c, &c->libraries[i]);
      if (c->libraries[i].cuda_major)
        *cuda_major = c->libraries[i].cuda_major;
      *version = c->libraries[i].version[0] ? cl_strdup(c->libraries[i].version)
                                            : NULL;
      return 1;
    }
  return 0;
}

/* At most this many folders outside the roots are scanned for one explain:
 * each is a scan of its own, and a tree's CUDA files sit in a few. */
#define CL_EXPLAIN_FOLDER_SCANS 32

/* The ctx that scanned the file's folder as its only root (as --root would),
 * made on first use: a file the loader takes from outside the roots
 * (LD_LIBRARY_PATH, another copy's RUNPATH) gets its version the way the
 * scan tells it (dist-info, headers, VERSIONINFO), so that two versions of
 * one family are seen as two. NULL when none can be made. */
static cudaload_ctx *folder_scan(cudaload_explain *e, cudaload_ctx *ctx,
                                 const char *real) {
  char *folder = cl_path_dirname(real);
  if (!folder)
    return NULL;
  cudaload_ctx *found = NULL;
  for (size_t i = 0; i < e->folder_scan_count && !found; ++i) {
    cudaload_ctx *c = e->folder_scans[i];
    if (c->explicit_count && strcmp(c->explicit_roots[0], folder) == 0)
      found = c;
  }
  /* A folder that cannot be scanned only has no versions to give. */
  char *kept = cl_save_error();
  if (!found && e->folder_scan_count < CL_EXPLAIN_FOLDER_SCANS &&
      !cl_reserve((void **)&e->folder_scans, &e->folder_scan_capacity,
                  e->folder_scan_count + 1, sizeof *e->folder_scans)) {
    /* The caller's trust in writable folders carries over. */
    found = cudaload_create((ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) |
                            CUDALOAD_NO_DEFAULT_ROOTS);
    if (found && (cudaload_set_target(found, ctx->target) ||
                  cudaload_add_root(found, folder) || cudaload_scan(found))) {
      cudaload_destroy(found);
      found = NULL;
    }
    if (found)
      e->folder_scans[e->folder_scan_count++] = found;
  }
  free(folder);
  cl_restore_error(kept);
  return found;
}

/* The version of a file: the scan's (dist-info, headers, VERSIONINFO) when
 * the inventory or a scan of its folder has it, else what its name
 * carries. */
static char *version_of(cudaload_explain *e, cudaload_ctx *ctx,
                        const char *path, const cl_name_match *m,
                        int *cuda_major) {
  *cuda_major = m ? m->cuda_major : 0;
  /* A path that does not resolve, a file whose version cannot be read:
   * answers (the name's version, or none), not failures. */
  char *kept = cl_save_error();
  char *real = cl_os_real_path(path);
  char *version = NULL;
  int known = 0;
  if (real && ctx)
    known = inventory_version(ctx, real, &version, cuda_major);
  if (real && ctx && !known) {
    cudaload_ctx *c = folder_scan(e, ctx, real);
    known = c && inventory_version(c, real, &version, cuda_major);
  }
  free(real);
  cl_restore_error(kept);
  if (known)
    return version;
  return m && m->name_version[0] ? cl_strdup(m->name_version) : NULL;
}

/* --- what CUDA libraries open by name ------------------------------------ */

typedef struct lazy_context {
  cudaload_ctx *ctx;
  cl_naming naming;
} lazy_context;

static int push_name(char ***names, size_t *count, size_t *capacity,
                     const char *name) {
  for (size_t i = 0; i < *count; ++i)
    if (strcmp((*names)[i], name) == 0)
      return CUDALOAD_OK;
  if (cl_reserve((void **)names, capacity, *count + 1, sizeof **names))
    return CUDALOAD_E_NO_MEMORY;
  if (!((*names)[*count] = cl_strdup(name)))
    return CUDALOAD_E_NO_MEMORY;
  ++*count;
  return CUDALOAD_OK;
}

/* What one scan of a file's text collects: names of CUDA libraries it may
 * open by name. */
typedef struct name_scan {
  const cl_name_match *self; /* the scanned file's own entry and major */
  const cl_binary_info *info;
  cl_naming naming;
  char **names;
  size_t count, capacity;
  int failed;
} name_scan;

static int collect_name(const char *text, void *opaque) {
  name_scan *ns = opaque;
  char name[160];
  cl_name_match m;
  size_t len = strlen(text);
  /* cuDNN 9's shim holds "libcudnn_ops.so" and appends its own major. */
  if (ns->naming == CL_NAMING_LINUX && len > 3 &&
      strcmp(text + len - 3, ".so") == 0)
    snprintf(name, sizeof name, "%s.%d", text, ns->self->major);
  else
    snprintf(name, sizeof name, "%s", text);
  if (!cl_catalog_match(name, ns->naming, &m) ||
      strcmp(m.entry->family, "driver") == 0 ||
      (m.entry == ns->self->entry && m.major == ns->self->major))
    return 0; /* not CUDA's, the driver (the probe's concern), or itself */
  /* A stem only counts for the opener's own family: another family's
   * major is not the opener's. */
  if (strcmp(name, text) != 0 &&
      strcmp(m.entry->family, ns->self->entry->family) != 0)
    return 0;
  for (size_t i = 0; ns->info && i < ns->info->needed_count; ++i)
    if (strcmp(ns->info->needed[i], name) == 0)
      return 0; /* a DT_NEEDED name, not a lazy open */
  if (push_name(&ns->names, &ns->count, &ns->capacity, name))
    ns->failed = 1;
  return 0;
}

/* The CUDA libraries a CUDA library opens by name when it needs them: the
 * names its file holds as text (binary_names.c), each checked against the
 * catalog. cuDNN's shim opens its sub-libraries this way, the
 * sub-libraries cuBLASLt and NVRTC (docs/real-libraries.md). */
static char **lazy_names(const char *path, const cl_binary_info *info,
                         size_t *count, void *opaque) {
  const lazy_context *lc = opaque;
  *count = 0;
  cl_name_match m;
  if (!catalog_of(path, info ? info->soname : NULL, lc->naming, &m) ||
      strcmp(m.entry->family, "driver") == 0)
    return NULL;
  name_scan ns = {&m, info, lc->naming, NULL, 0, 0, 0};
  /* The largest CUDA library (cuBLASLt) is about 550 MB. A file whose
   * names cannot be read opens nothing lazily that we can tell. */
  char *kept = cl_save_error();
  int unread = cl_binary_names(path, (uint64_t)2 << 30, collect_name, &ns);
  cl_restore_error(kept);
  if (unread || ns.failed) {
    for (size_t i = 0; i < ns.count; ++i)
      free(ns.names[i]);
    free(ns.names);
    return NULL;
  }
  *count = ns.count;
  return ns.names;
}

/* --- objects and needs ---------------------------------------------------- */

static cl_explain_object *object_for(cudaload_explain *e, cudaload_ctx *ctx,
                                     const char *path, const char *soname,
                                     cl_naming naming, int consumer) {
  for (size_t i = 0; i < e->object_count; ++i)
    if (strcmp(e->objects[i].path, path) == 0) {
      e->objects[i].consumer |= consumer;
      return &e->objects[i];
    }
  if (cl_reserve((void **)&e->objects, &e->object_capacity, e->object_count + 1,
                 sizeof *e->objects)) {
    e->failed = 1;
    return NULL;
  }
  cl_explain_object *o = &e->objects[e->object_count];
  memset(o, 0, sizeof *o);
  o->path = cl_strdup(path);
  if (!o->path) {
    e->failed = 1;
    return NULL;
  }
  o->consumer = consumer;
  cl_name_match m;
  if (catalog_of(path, soname, naming, &m)) {
    o->family = m.entry->family;
    o->name = m.entry->name;
    o->major = m.major;
    o->version = version_of(e, ctx, path, &m, &o->cuda_major);
  }
  e->object_count++;
  return o;
}

static void add_need(cudaload_explain *e, cl_explain_object *o,
                     const cl_load_edge *edge, const cl_load_tree *tree,
                     cudaload_ctx *ctx, cl_naming naming) {
  if (cl_reserve((void **)&o->needs, &o->need_capacity, o->need_count + 1,
                 sizeof *o->needs)) {
    e->failed = 1;
    return;
  }
  cl_explain_need *n = &o->needs[o->need_count++];
  memset(n, 0, sizeof *n);
  n->name = cl_strdup(edge->name);
  n->lazy = edge->lazy;
  n->rule = cl_resolve_rule_name(edge->how.rule);
  n->detail = dup_or_null(edge->how.detail);
  const char *path = edge->to < tree->object_count
                         ? tree->objects[edge->to].path
                         : edge->how.path;
  n->path = dup_or_null(path);
  if (path) {
    cl_name_match m;
    const char *soname = edge->to < tree->object_count
                             ? tree->objects[edge->to].info.soname
                             : NULL;
    int cuda;
    if (catalog_of(path, soname, naming, &m))
      n->version = version_of(e, ctx, path, &m, &cuda);
  }
  if (!n->name)
    e->failed = 1;
}

/* --- bindings ---------------------------------------------------------------
 */

/* Symbols read once per file for one explain. Each entry is allocated on
 * its own, so the pointers handed out stay valid as the cache grows. */
typedef struct cache_entry {
  cl_binary_symbols symbols; /* format CL_FORMAT_UNKNOWN: unreadable */
  cl_bind_object object;
  char *path;
} cache_entry;

typedef struct symbol_cache {
  cache_entry **entries;
  size_t count, capacity;
} symbol_cache;

static const cl_bind_object *cached_object(symbol_cache *c, const char *path) {
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
  char *kept = cl_save_error();
  if (cl_binary_read_symbols_file(path, &entry->symbols) != CUDALOAD_OK)
    memset(&entry->symbols, 0, sizeof entry->symbols);
  cl_restore_error(kept);
  entry->object.path = entry->path;
  entry->object.symbols = entry->symbols.format ? &entry->symbols : NULL;
  c->entries[c->count++] = entry;
  return &entry->object;
}

static void symbol_cache_free(symbol_cache *c) {
  for (size_t i = 0; i < c->count; ++i) {
    cl_binary_symbols_free(&c->entries[i]->symbols);
    free(c->entries[i]->path);
    free(c->entries[i]);
  }
  free(c->entries);
}

/* Whether a reference goes to a CUDA library: its version's file is a
 * catalog name, or (unversioned) its name has a CUDA library's prefix. */
static int cuda_reference(const cl_symbol_ref *r, cl_naming naming) {
  cl_name_match m;
  if (r->file)
    return cl_catalog_match(r->file, naming, &m);
  static const char *const prefixes[] = {
      "cudnn",    "cublas", "cuda",  "cufft",     "curand", "cusparse",
      "cusolver", "nccl",   "nvrtc", "nvJitLink", "cupti",  "cu"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes - 1; ++i)
    if (strncmp(r->name, prefixes[i], strlen(prefixes[i])) == 0)
      return 1;
  return 0;
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
  for (size_t head = 0; head < n; ++head)
    for (size_t i = 0; i < t->edge_count; ++i) {
      const cl_load_edge *edge = &t->edges[i];
      if (edge->from != out[head] || edge->lazy || edge->to >= t->object_count)
        continue;
      int seen = 0;
      for (size_t j = 0; j < n && !seen; ++j)
        seen = out[j] == edge->to;
      if (!seen)
        out[n++] = edge->to;
    }
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

/* Where object k's references to CUDA libraries bind: the global scope
 * (what the caller preloaded RTLD_GLOBAL) first, then k's own group;
 * DT_SYMBOLIC first of all. Each reference is compared with the file of
 * k's own tree that provides it, which is what its author linked against. */
/* What the author linked against for ref: the index in local (k's own
 * scope) of the file that provides it (its DT_VERNEED file, or the first
 * that defines it), or SIZE_MAX. */
static size_t expected_provider(const cl_bind_object *const *local,
                                size_t n_local, const cl_bind_object *self,
                                const cl_symbol_ref *ref) {
  for (size_t i = 0; i < n_local; ++i)
    if (local[i] != self && local[i]->symbols &&
        cl_bind_match(local[i]->symbols, ref->name, ref->version) >= 0)
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

static void explain_bindings(cudaload_explain *e, cl_explain_object *o,
                             const cl_load_tree *t, size_t k,
                             const cl_bind_object *const *global,
                             size_t global_count, symbol_cache *cache,
                             cl_naming naming, int symbols) {
  const cl_bind_object *self = cached_object(cache, t->objects[k].path);
  if (!self || !self->symbols)
    return;
  size_t *scope = malloc(t->object_count * sizeof *scope);
  const cl_bind_object **local = malloc((t->object_count + 1) * sizeof *local);
  const cl_bind_object **order =
      malloc((t->object_count + global_count + 2) * sizeof *order);
  if (!scope || !local || !order) {
    e->failed = 1;
    goto done;
  }
  size_t local_count = local_scope(t, group_root(t, k), scope);
  /* k searches its group's scope, which starts at the group's root. */
  size_t n_local = 0;
  for (size_t i = 0; i < local_count; ++i) {
    const cl_bind_object *b = cached_object(cache, t->objects[scope[i]].path);
    if (b)
      local[n_local++] = b;
  }
  size_t n_order = cl_bind_order(self, t->objects[k].info.symbolic, 0, global,
                                 global_count, local, n_local, order);
  const cl_binary_symbols *s = self->symbols;
  for (size_t r = 0; r < s->ref_count; ++r) {
    const cl_symbol_ref *ref = &s->refs[r];
    /* CUDA's references only, unless every one was asked for (the
     * differential tests compare each with the loader's). */
    if (!symbols && !cuda_reference(ref, naming))
      continue;
    long def;
    size_t got = cl_bind_lookup(order, n_order, ref->name, ref->version, &def);
    size_t want = expected_provider(local, n_local, self, ref);
    if (want == SIZE_MAX && got == SIZE_MAX)
      continue; /* weak, or resolved by nobody: the loader reports that */
    const char *expected = want != SIZE_MAX ? local[want]->path : NULL;
    const char *provider = got != SIZE_MAX ? order[got]->path : NULL;
    const char *library = ref->file  ? ref->file
                          : expected ? cl_path_basename(expected)
                                     : "(unknown)";
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
}

/* --- problems ------------------------------------------------------------ */

/* A CUDA library that takes a library of its own family from another
 * folder though a file of that name lies beside it (cuDNN 9's shim and its
 * sub-libraries, with another copy first on LD_LIBRARY_PATH or PATH): the
 * two folders are likely two versions, whatever their names say. */
static void shadowed_sibling(cudaload_explain *e, const cl_load_tree *t,
                             const cl_load_edge *edge, const char *family,
                             cl_naming naming) {
  const cl_load_object *from = &t->objects[edge->from];
  const char *taken = t->objects[edge->to].path;
  cl_name_match self;
  if (!catalog_of(from->path, from->info.soname, naming, &self) ||
      strcmp(self.entry->family, family) != 0)
    return;
  char *own = cl_path_dirname(from->path);
  char *theirs = cl_path_dirname(taken);
  char *beside = own ? cl_path_join(own, edge->name) : NULL;
  cl_file *f = NULL;
  uint64_t size;
  char *kept = cl_save_error(); /* no file beside it: no sibling shadowed */
  int sibling = own && theirs && beside && strcmp(own, theirs) != 0 &&
                cl_os_file_open(beside, &f, &size) == CUDALOAD_OK;
  cl_restore_error(kept);
  if (sibling) {
    cl_os_file_close(f);
    add_problem(e,
                cl_strdup_printf("%s takes %s from %s (rule: %s), not the copy "
                                 "beside it (%s): a sibling shadowed, likely "
                                 "another version",
                                 from->path, edge->name, taken,
                                 cl_resolve_rule_name(edge->how.rule), beside));
  }
  free(own);
  free(theirs);
  free(beside);
}

static void tree_problems(cudaload_explain *e, const cl_load_tree *t,
                          size_t first_object, cl_naming naming) {
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    const char *from = edge->from < t->object_count
                           ? t->objects[edge->from].path
                           : "the process";
    cl_name_match want;
    int cuda = cl_catalog_match(edge->name, naming, &want);
    if (edge->how.rule == CL_RULE_NOT_FOUND) {
      /* A DT_NEEDED name not found fails the whole open; a lazy one only
       * matters when it is a CUDA library's. */
      if (cuda || !edge->lazy)
        add_problem(e, cl_strdup_printf(
                           edge->lazy ? "%s opens %s by name when it needs it: "
                                        "not found (rule: not-found)"
                                      : "%s needs %s: not found, so loading it "
                                        "fails (rule: not-found)",
                           from, edge->name));
      continue;
    }
    for (size_t s = 0; s < edge->how.step_count; ++s)
      if (edge->how.steps[s].folder && !edge->how.steps[s].folder[0]) {
        add_problem(
            e, cl_strdup_printf(
                   "%s: a search list %s%s holds an empty entry, "
                   "so %s is also looked for in the current "
                   "folder (anyone who controls it could plant "
                   "one)",
                   from, edge->how.steps[s].source ? "of " : "",
                   edge->how.steps[s].source ? edge->how.steps[s].source : "",
                   edge->name));
        break;
      }
    if (!cuda || edge->to >= t->object_count)
      continue;
    cl_name_match got;
    const cl_load_object *to = &t->objects[edge->to];
    if (catalog_of(to->path, to->info.soname, naming, &got) &&
        (got.entry != want.entry || got.major != want.major))
      add_problem(
          e, cl_strdup_printf("%s asks for %s but the loader takes %s, which "
                              "is %s %d (rule: %s)",
                              from, edge->name, to->path, got.entry->name,
                              got.major, cl_resolve_rule_name(edge->how.rule)));
    else if (edge->from < t->object_count)
      shadowed_sibling(e, t, edge, want.entry->family, naming);
  }
  (void)first_object;
}

/* One family and major in two versions, or libraries of two CUDA majors,
 * among the objects from first on: one problem per family and major, each
 * version with the folder it comes from. */
static void mix_problems(cudaload_explain *e, size_t first, const char *what) {
  for (size_t i = first; i < e->object_count; ++i) {
    const cl_explain_object *a = &e->objects[i];
    if (!a->family || !a->version)
      continue;
    /* Report each family and major once: at its first object. */
    int earlier = 0;
    for (size_t k = first; k < i && !earlier; ++k)
      earlier = e->objects[k].family && e->objects[k].version &&
                strcmp(e->objects[k].family, a->family) == 0 &&
                e->objects[k].major == a->major;
    if (earlier)
      continue;
    const cl_explain_object *b = NULL;
    for (size_t j = i + 1; j < e->object_count && !b; ++j) {
      const cl_explain_object *o = &e->objects[j];
      if (o->family && o->version && strcmp(o->family, a->family) == 0 &&
          o->major == a->major && strcmp(o->version, a->version) != 0)
        b = o;
    }
    if (!b)
      continue;
    char *fa = cl_path_dirname(a->path), *fb = cl_path_dirname(b->path);
    add_problem(e, cl_strdup_printf(
                       "%s %d in two versions %s: %s (%s, e.g. %s) and "
                       "%s (%s, e.g. %s); a library of one version "
                       "running with parts of another can fail or "
                       "misbehave",
                       a->family, a->major, what, a->version, fa ? fa : a->path,
                       cl_path_basename(a->path), b->version, fb ? fb : b->path,
                       cl_path_basename(b->path)));
    free(fa);
    free(fb);
  }
  int cuda_seen = 0;
  const cl_explain_object *first_cuda = NULL;
  for (size_t i = first; i < e->object_count; ++i) {
    const cl_explain_object *o = &e->objects[i];
    if (!o->family || !o->cuda_major)
      continue;
    if (!cuda_seen) {
      cuda_seen = o->cuda_major;
      first_cuda = o;
    } else if (o->cuda_major != cuda_seen) {
      add_problem(
          e, cl_strdup_printf("CUDA %d and CUDA %d libraries %s: %s (CUDA %d) "
                              "and %s (CUDA %d)",
                              cuda_seen, o->cuda_major, what, first_cuda->path,
                              cuda_seen, o->path, o->cuda_major));
      break;
    }
  }
}

static void binding_problems(cudaload_explain *e, const cl_explain_object *o) {
  for (size_t i = 0; i < o->binding_count; ++i) {
    const cl_explain_binding *b = &o->bindings[i];
    if (!b->elsewhere)
      continue;
    add_problem(e,
                cl_strdup_printf(
                    "%zu of %s's %zu references to %s%s%s bind to %s, not to "
                    "%s (e.g. %s): %s",
                    b->elsewhere, o->path, b->symbols, b->library,
                    b->version ? " version " : "", b->version ? b->version : "",
                    b->elsewhere_provider ? b->elsewhere_provider : "nothing",
                    b->expected ? b->expected : "its own dependency",
                    b->example ? b->example : "?",
                    b->version ? "another file defines the same version node "
                                 "or has no symbol versions"
                               : "the references carry no symbol version"));
  }
}

/* --- files -------------------------------------------------------------- */

/* On Windows cudaload_preload puts each planned file's folder first on PATH
 * and adds it with AddDllDirectory before loading it (lib/load/preload.c), so
 * that the library's own later LoadLibrary("sibling.dll") finds its
 * siblings: the model does the same. Linux changes nothing (LD_LIBRARY_PATH
 * is read once, at start). */
static int expose_like_preload(cl_loader_model *m, const char *file,
                               cl_naming naming) {
  if (naming != CL_NAMING_WINDOWS)
    return CUDALOAD_OK;
  char *folder = cl_path_dirname(file);
  if (!folder)
    return CUDALOAD_E_NO_MEMORY;
  int rc = CUDALOAD_OK;
  size_t length = strlen(folder);
  int first = m->path && strncmp(m->path, folder, length) == 0 &&
              (m->path[length] == ';' || m->path[length] == '\0');
  if (!first) {
    char *value = m->path ? cl_strdup_printf("%s;%s", folder, m->path) : NULL;
    rc = cl_loader_model_set(&m->path, value ? value : folder);
    free(value);
  }
  int known = 0;
  for (size_t i = 0; i < m->user_dir_count; ++i)
    known |= strcmp(m->user_dirs[i], folder) == 0;
  if (!rc && !known)
    rc = cl_loader_model_append(&m->user_dirs, &m->user_dir_count, folder);
  free(folder);
  return rc;
}

/* The process the file would be opened in: this environment's search
 * path (and, on Windows, the file's folder as the application's). */
static int model_environment(cl_loader_model *m, const char *path,
                             cl_naming naming) {
  char *search =
      cl_os_getenv(naming == CL_NAMING_WINDOWS ? "PATH" : "LD_LIBRARY_PATH");
  int rc = cl_loader_model_set(
      naming == CL_NAMING_WINDOWS ? &m->path : &m->ld_library_path, search);
  free(search);
  if (!rc && naming == CL_NAMING_WINDOWS) {
    char *folder = cl_path_dirname(path);
    rc = cl_loader_model_set(&m->app_dir, folder);
    free(folder);
  }
  return rc;
}

/* The plan already preloaded, as cudaload_preload would: each planned file
 * loaded in the model, and with CUDALOAD_PRELOAD_GLOBAL its symbols in the
 * global scope (*global, *global_count: malloc'ed). */
static int model_preloaded_plan(cl_loader_model *m, cudaload_ctx *ctx,
                                cl_naming naming, unsigned flags,
                                symbol_cache *cache,
                                const cl_bind_object ***global,
                                size_t *global_count) {
  int rc = CUDALOAD_OK;
  if (ctx->planned)
    *global = calloc(ctx->plan_count + 1, sizeof **global);
  for (size_t i = 0; !rc && ctx->planned && i < ctx->plan_count; ++i) {
    const cl_plan_entry *p = &ctx->plan[i];
    rc = expose_like_preload(m, p->path, naming);
    if (rc || !p->to_load)
      continue;
    rc = cl_loader_model_add_loaded(m, p->path, p->soname);
    if (!rc && *global && (flags & CUDALOAD_PRELOAD_GLOBAL)) {
      const cl_bind_object *b = cached_object(cache, p->path);
      if (b)
        (*global)[(*global_count)++] = b;
    }
  }
  return rc;
}

/* The objects of a resolved tree into e: the file itself and every CUDA
 * library in it, each with its needs, bindings and problems. */
static void explain_tree(cudaload_explain *e, cudaload_ctx *ctx,
                         const char *path, const cl_load_tree *t,
                         const cl_bind_object *const *global,
                         size_t global_count, symbol_cache *cache,
                         cl_naming naming, unsigned flags) {
  size_t first = e->object_count;
  for (size_t k = 0; k < t->object_count && !e->failed; ++k) {
    const cl_load_object *lo = &t->objects[k];
    cl_name_match match;
    int is_cuda = catalog_of(lo->path, lo->info.soname, naming, &match);
    if (k != 0 && !is_cuda)
      continue; /* system libraries: shown as needs, not expanded */
    cl_explain_object *o =
        object_for(e, ctx, lo->path, lo->info.soname, naming, k == 0);
    if (!o || o->need_count)
      continue; /* already explained by an earlier file */
    for (size_t i = 0; i < t->edge_count; ++i)
      if (t->edges[i].from == k)
        add_need(e, o, &t->edges[i], t, ctx, naming);
    explain_bindings(e, o, t, k, global, global_count, cache, naming,
                     (flags & CUDALOAD_EXPLAIN_SYMBOLS) != 0);
    binding_problems(e, o);
  }
  if (t->object_count == 0 || !t->objects[0].readable)
    add_problem(e, cl_strdup_printf("%s: cannot be read as a library", path));
  tree_problems(e, t, first, naming);
  mix_problems(e, first, "in what one process would load for it");
}

static int explain_one(cudaload_explain *e, cudaload_ctx *ctx, const char *path,
                       unsigned flags) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_loader_model m;
  int rc = cl_loader_model_init_system(&m);
  if (rc)
    return rc;
  rc = model_environment(&m, path, naming);
  symbol_cache cache = {0};
  const cl_bind_object **global = NULL;
  size_t global_count = 0;
  if (!rc)
    rc = model_preloaded_plan(&m, ctx, naming, flags, &cache, &global,
                              &global_count);
  lazy_context lc = {ctx, naming};
  cl_load_tree t;
  memset(&t, 0, sizeof t);
  if (!rc)
    rc = cl_resolve_load(&m, path, lazy_names, &lc, &t);
  if (!rc)
    explain_tree(e, ctx, path, &t, global, global_count, &cache, naming, flags);
  cl_load_tree_free(&t);
  symbol_cache_free(&cache);
  free(global);
  cl_loader_model_free(&m);
  return rc;
}

static cudaload_explain *explain_new(void) {
  return calloc(1, sizeof(cudaload_explain));
}

int cudaload_explain_files(cudaload_ctx *ctx, const char *const *paths,
                           size_t count, unsigned flags,
                           cudaload_explain **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out || (!paths && count))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_files: NULL argument");
  const unsigned known = CUDALOAD_PRELOAD_GLOBAL | CUDALOAD_EXPLAIN_SYMBOLS;
  if (flags & ~known)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_files: unknown flag bits 0x%x",
                   flags & ~known);
  for (size_t i = 0; i < count; ++i)
    if (!paths[i] || !cl_os_path_is_absolute(paths[i]))
      return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                     "cudaload_explain_files: \"%s\" is not an absolute path",
                     paths[i] ? paths[i] : "(null)");
  int rc = CUDALOAD_OK;
  if (!ctx->scanned)
    rc = cudaload_scan(ctx);
  /* "As if preloaded": the plan decides what is already in the process. */
  if (!rc && ctx->requirement_count && !ctx->planned) {
    rc = cudaload_plan(ctx, 0);
    if (rc == CUDALOAD_E_UNSATISFIED) {
      rc = CUDALOAD_OK; /* explained below as what is not found */
      cl_clear_error();
    }
  }
  if (rc) /* the scan's or the plan's last error says why */
    return *cudaload_last_error() ? rc
                                  : cl_fail(rc, "cudaload_explain_files: %s",
                                            cudaload_strerror(rc));
  cudaload_explain *e = explain_new();
  if (!e)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload_explain_files: out of memory");
  for (size_t i = 0; i < count && !rc; ++i) {
    cl_file *probe;
    uint64_t size;
    int open_rc = cl_os_file_open(paths[i], &probe, &size);
    if (open_rc) {
      rc = cl_fail_naming(open_rc, paths[i]);
      break;
    }
    cl_os_file_close(probe);
    rc = explain_one(e, ctx, paths[i], flags);
  }
  if (!rc && e->failed)
    rc = cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_files: out of memory");
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  cl_clear_error();
  *out = e;
  return CUDALOAD_OK;
}

/* --- the plan, in this process (for the doctor) ---------------------- */

/* One name not found in a tree: report it when it is a CUDA library's. */
static void report_tree(const cl_load_tree *t, const char *opener_default,
                        int open_is_lazy, cl_naming naming,
                        cl_missing_fn report, void *opaque) {
  for (size_t k = 0; k < t->edge_count; ++k) {
    const cl_load_edge *edge = &t->edges[k];
    cl_name_match want;
    if (edge->how.rule != CL_RULE_NOT_FOUND ||
        !cl_catalog_match(edge->name, naming, &want) ||
        strcmp(want.entry->family, "driver") == 0)
      continue;
    const char *opener = edge->from < t->object_count
                             ? t->objects[edge->from].path
                             : opener_default;
    int lazy = edge->lazy || (open_is_lazy && edge->from == SIZE_MAX);
    report(opener, edge->name, lazy, &edge->how, opaque);
  }
}

int cl_explain_plan_missing(cudaload_ctx *ctx, cl_missing_fn report,
                            void *opaque) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_loader_model m;
  int rc = cl_loader_model_init_host(&m);
  if (rc)
    return rc;
  /* First what cudaload_preload does: each file of the plan opened by
   * absolute path, in plan order (their DT_NEEDED names resolved then). */
  for (size_t i = 0; !rc && i < ctx->plan_count; ++i) {
    const cl_plan_entry *p = &ctx->plan[i];
    rc = expose_like_preload(&m, p->path, naming);
    if (rc || !p->to_load)
      continue;
    cl_load_tree t;
    memset(&t, 0, sizeof t);
    rc = cl_resolve_load(&m, p->path, NULL, NULL, &t);
    if (!rc)
      report_tree(&t, p->path, 0, naming, report, opaque);
    cl_load_tree_free(&t);
  }
  /* Then what the libraries do later, at their first call: open by name
   * what they hold as text, each from inside the library. */
  lazy_context lc = {ctx, naming};
  for (size_t i = 0; !rc && i < ctx->plan_count; ++i) {
    const cl_plan_entry *p = &ctx->plan[i];
    if (!p->to_load && p->entry->role != CL_ROLE_MAIN)
      continue;
    cl_binary_info info;
    char *kept = cl_save_error(); /* unreadable: the preload will say so */
    int unreadable = cl_binary_parse_file(p->path, &info) != CUDALOAD_OK;
    cl_restore_error(kept);
    if (unreadable)
      continue;
    size_t count = 0;
    char **names = lazy_names(p->path, &info, &count, &lc);
    cl_requester req = {p->path, &info, NULL};
    for (size_t n = 0; !rc && n < count; ++n) {
      cl_load_tree t;
      memset(&t, 0, sizeof t);
      rc = cl_resolve_open(&m, &req, names[n], lazy_names, &lc, &t);
      if (!rc)
        report_tree(&t, p->path, 1, naming, report, opaque);
      cl_load_tree_free(&t);
    }
    for (size_t n = 0; n < count; ++n)
      free(names[n]);
    free(names);
    cl_binary_info_free(&info);
  }
  cl_loader_model_free(&m);
  return rc;
}

/* --- a running process -----------------------------------------------------
 */

typedef struct pid_context {
  cudaload_explain *e;
  cudaload_ctx *ctx;
  cl_naming naming;
} pid_context;

static void visit_module(const char *path, void *opaque) {
  pid_context *pc = opaque;
  cl_name_match m;
  if (!catalog_of(path, NULL, pc->naming, &m))
    return;
  object_for(pc->e, pc->ctx, path, NULL, pc->naming, 0);
}

int cudaload_explain_pid(cudaload_ctx *ctx, long pid, cudaload_explain **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out || pid <= 0)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_explain_pid: %s",
                   pid <= 0 ? "the process id must be positive"
                            : "NULL argument");
  int rc = ctx->scanned ? CUDALOAD_OK : cudaload_scan(ctx);
  if (rc) /* the scan's last error says why */
    return *cudaload_last_error()
               ? rc
               : cl_fail(rc, "cudaload_explain_pid: %s", cudaload_strerror(rc));
  cudaload_explain *e = explain_new();
  if (!e)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_pid: out of memory");
  e->pid = pid;
  pid_context pc = {e, ctx, cl_ctx_naming(ctx)};
  rc = cl_os_loader_process_modules(pid, visit_module, &pc);
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  /* A cuDNN main library whose sub-libraries come from elsewhere. */
  for (size_t i = 0; i < e->object_count; ++i) {
    const cl_explain_object *main = &e->objects[i];
    if (!main->family || strcmp(main->family, "cudnn") != 0 ||
        strcmp(main->name, "cudnn") != 0)
      continue;
    char *folder = cl_path_dirname(main->path);
    for (size_t j = 0; folder && j < e->object_count; ++j) {
      const cl_explain_object *sub = &e->objects[j];
      if (j == i || !sub->family || strcmp(sub->family, "cudnn") != 0 ||
          sub->major != main->major)
        continue;
      char *sub_folder = cl_path_dirname(sub->path);
      if (sub_folder && strcmp(sub_folder, folder) != 0 && main->version &&
          sub->version && strcmp(main->version, sub->version) != 0)
        add_problem(
            e, cl_strdup_printf("the cuDNN %d main library %s (%s) runs "
                                "%s from %s (%s): its sub-libraries come from "
                                "another version",
                                main->major, main->path, main->version,
                                sub->name, sub->path, sub->version));
      free(sub_folder);
    }
    free(folder);
  }
  mix_problems(e, 0, "mapped in the process");
  if (e->failed) {
    cudaload_explain_free(e);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_pid: out of memory");
  }
  *out = e;
  return CUDALOAD_OK;
}

/* --- accessors ------------------------------------------------------------ */

void cudaload_explain_free(cudaload_explain *e) {
  if (!e)
    return;
  for (size_t i = 0; i < e->folder_scan_count; ++i)
    cudaload_destroy(e->folder_scans[i]);
  free(e->folder_scans);
  for (size_t i = 0; i < e->object_count; ++i) {
    cl_explain_object *o = &e->objects[i];
    for (size_t j = 0; j < o->need_count; ++j) {
      free(o->needs[j].name);
      free(o->needs[j].path);
      free(o->needs[j].detail);
      free(o->needs[j].version);
    }
    for (size_t j = 0; j < o->binding_count; ++j) {
      free(o->bindings[j].library);
      free(o->bindings[j].version);
      free(o->bindings[j].expected);
      free(o->bindings[j].provider);
      free(o->bindings[j].example);
      free(o->bindings[j].elsewhere_provider);
      for (size_t k = 0; k < o->bindings[j].each_count; ++k) {
        free(o->bindings[j].each_symbol[k]);
        free(o->bindings[j].each_provider[k]);
      }
      free(o->bindings[j].each_symbol);
      free(o->bindings[j].each_provider);
    }
    free(o->needs);
    free(o->bindings);
    free(o->path);
    free(o->version);
  }
  free(e->objects);
  for (size_t i = 0; i < e->problem_count; ++i)
    free(e->problems[i]);
  free(e->problems);
  free(e);
}

static const cl_explain_object *object_at(const cudaload_explain *e, size_t i) {
  return e && i < e->object_count ? &e->objects[i] : NULL;
}

static const cl_explain_need *need_at(const cudaload_explain *e, size_t i,
                                      size_t j) {
  const cl_explain_object *o = object_at(e, i);
  return o && j < o->need_count ? &o->needs[j] : NULL;
}

size_t cudaload_explain_object_count(const cudaload_explain *e) {
  return e ? e->object_count : 0;
}

const char *cudaload_explain_object_path(const cudaload_explain *e, size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->path : NULL;
}

const char *cudaload_explain_object_family(const cudaload_explain *e,
                                           size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->family : NULL;
}

const char *cudaload_explain_object_version(const cudaload_explain *e,
                                            size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->version : NULL;
}

size_t cudaload_explain_need_count(const cudaload_explain *e, size_t i) {
  const cl_explain_object *o = object_at(e, i);
  return o ? o->need_count : 0;
}

const char *cudaload_explain_need_name(const cudaload_explain *e, size_t i,
                                       size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->name : NULL;
}

int cudaload_explain_need_lazy(const cudaload_explain *e, size_t i, size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->lazy : -1;
}

const char *cudaload_explain_need_path(const cudaload_explain *e, size_t i,
                                       size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->path : NULL;
}

const char *cudaload_explain_need_rule(const cudaload_explain *e, size_t i,
                                       size_t j) {
  const cl_explain_need *n = need_at(e, i, j);
  return n ? n->rule : NULL;
}

size_t cudaload_explain_problem_count(const cudaload_explain *e) {
  return e ? e->problem_count : 0;
}

const char *cudaload_explain_problem(const cudaload_explain *e, size_t i) {
  return e && i < e->problem_count ? e->problems[i] : NULL;
}

int cudaload_explain_report(const cudaload_explain *e, int format, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!e || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_report: NULL argument");
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML && format != CUDALOAD_FORMAT_DOT)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_explain_report: unknown format %d", format);
  if (!cudaload_format_supported(format))
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "cudaload_explain_report: this libcudaload has no YAML "
                   "support: %s; ask for JSON, text or DOT",
                   cl_build_no_yaml_reason());
  *out = cl_explain_render(e, format);
  return *out ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}
