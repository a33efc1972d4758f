/* SPDX-License-Identifier: MIT */
/*
 * resolve_open.c - what the loader maps for one open (resolve.h's
 * cl_resolve_open, cl_resolve_load, cl_resolve_load_flags): the object
 * opened, its DT_NEEDED (PE: import) closure breadth first, each name
 * resolved for the object that names it, then the names each object opens
 * lazily, each with its own closure, into a cl_load_tree; an open that
 * fails is undone, as dlopen and LoadLibrary undo it.
 *
 * Its own file because it is the walk over what an open brings in (glibc's
 * _dl_map_object_deps), not a search rule: it asks resolve.c for each name
 * (cl_resolve_with, resolve_internal.h) and records what the model then
 * holds.
 */
#include "loader/resolve.h"

#include "cudaload.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "loader/loader_model.h"
#include "loader/resolve_internal.h"
#include "loader/resolve_memo.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cl_load_tree_free(cl_load_tree *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->object_count; ++i) {
    free(t->objects[i].path);
    cl_binary_info_free(&t->objects[i].info);
  }
  free(t->objects);
  for (size_t i = 0; i < t->edge_count; ++i) {
    free(t->edges[i].name);
    cl_resolution_free(&t->edges[i].how);
  }
  free(t->edges);
  memset(t, 0, sizeof *t);
}

typedef struct opener {
  cl_loader_model *m;
  cl_load_tree *t;
  cl_lazy_names_fn lazy;
  void *opaque;
  unsigned char *walked; /* per object: its dependencies were resolved */
  size_t walked_capacity;
  /* The tree's objects by path (the first of a name), so that finding one
   * costs the same in a tree of a thousand; on Windows without case, as
   * cl_resolve_names_equal compares. by_path_ok: 0 when memory ran out for it
   * (then each object is compared). */
  cl_str_index by_path;
  int by_path_ok;
} opener;

/* The tree's object for a path (the loader's name for it), or SIZE_MAX. */
static size_t tree_find(const opener *o, const char *path) {
  size_t at;
  if (o->by_path_ok)
    return cl_str_index_find(&o->by_path, path, &at) ? at : SIZE_MAX;
  for (size_t i = 0; i < o->t->object_count; ++i)
    if (cl_resolve_names_equal(o->m, o->t->objects[i].path, path))
      return i;
  return SIZE_MAX;
}

static int tree_add(opener *o, const char *path, size_t loader, int preexisting,
                    size_t *index) {
  cl_load_tree *t = o->t;
  if (cl_reserve((void **)&t->objects, &t->object_capacity, t->object_count + 1,
                 sizeof *t->objects) != CUDALOAD_OK ||
      cl_reserve((void **)&o->walked, &o->walked_capacity, t->object_count + 1,
                 1) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  cl_load_object *obj = &t->objects[t->object_count];
  memset(obj, 0, sizeof *obj);
  obj->path = cl_strdup(path);
  if (!obj->path)
    return CUDALOAD_E_NO_MEMORY;
  obj->loader = loader;
  obj->preexisting = preexisting;
  char *check = cl_resolve_absolute_for_check(o->m, path);
  /* an unreadable object is told as such */
  if (check &&
      cl_file_cache_parse_quiet(o->m->files, check, &obj->info) == CUDALOAD_OK)
    obj->readable = 1;
  else
    memset(&obj->info, 0, sizeof obj->info);
  free(check);
  o->walked[t->object_count] = 0;
  if (o->by_path_ok &&
      cl_str_index_add(&o->by_path, obj->path, t->object_count) != CUDALOAD_OK)
    o->by_path_ok = 0;
  *index = t->object_count++;
  return CUDALOAD_OK;
}

/* The requester chain of tree object i (its l_loader links), built into
 * chain[] (capacity object_count); returns &chain[0]. */
static const cl_requester *requester_of(const opener *o, size_t i,
                                        cl_requester *chain) {
  size_t depth = 0;
  size_t at = i;
  while (at != SIZE_MAX && depth < o->t->object_count) {
    chain[depth].path = o->t->objects[at].path;
    chain[depth].info = &o->t->objects[at].info;
    chain[depth].loader = NULL;
    if (depth > 0)
      chain[depth - 1].loader = &chain[depth];
    at = o->t->objects[at].loader;
    ++depth;
  }
  return chain;
}

static int add_edge(opener *o, size_t from, const char *name, int lazy,
                    cl_resolution *how, size_t *index) {
  cl_load_tree *t = o->t;
  if (cl_reserve((void **)&t->edges, &t->edge_capacity, t->edge_count + 1,
                 sizeof *t->edges) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  cl_load_edge *e = &t->edges[t->edge_count];
  e->name = cl_strdup(name);
  if (!e->name)
    return CUDALOAD_E_NO_MEMORY;
  e->from = from;
  e->lazy = lazy;
  e->how = *how;
  e->to = SIZE_MAX;
  *index = t->edge_count++;
  return CUDALOAD_OK;
}

/* The object an edge's resolution names: in the tree already, or added
 * (and, when new to the process, recorded in the model). */
static int place_object(opener *o, size_t edge, size_t loader,
                        const char *name) {
  cl_load_tree *t = o->t;
  cl_resolution *how = &t->edges[edge].how;
  if (!how->path)
    return CUDALOAD_OK;
  size_t at = tree_find(o, how->path);
  int status = CUDALOAD_OK;
  if (at == SIZE_MAX) {
    int preexisting = how->rule == CL_RULE_ALREADY_LOADED;
    status = tree_add(o, how->path, preexisting ? SIZE_MAX : loader,
                      preexisting, &at);
    if (status == CUDALOAD_OK && !preexisting) {
      const char *soname =
          t->objects[at].readable ? t->objects[at].info.soname : NULL;
      /* A DLL's module name is its file name. */
      if (o->m->naming == CL_NAMING_WINDOWS)
        soname = cl_resolve_base_name(o->m, how->path);
      status = cl_loader_model_add_loaded(o->m, how->path, soname);
      if (status == CUDALOAD_OK)
        how->loaded_index = o->m->loaded_count - 1;
    }
  }
  if (status == CUDALOAD_OK && how->loaded_index != SIZE_MAX &&
      how->loaded_index < o->m->loaded_count)
    status = cl_resolve_add_name(o->m, how->loaded_index, name);
  t->edges[edge].to = at;
  return status;
}

/* A resolution of `name` asked by tree object `from` (SIZE_MAX: the
 * caller): its edge (which takes how over) and the object it names, mapped
 * for `loader`. */
static int add_resolved(opener *o, size_t from, const char *name, int lazy,
                        size_t loader, cl_resolution *how, size_t *edge) {
  int status = add_edge(o, from, name, lazy, how, edge);
  if (status != CUDALOAD_OK) {
    cl_resolution_free(how);
    return status;
  }
  return place_object(o, *edge, loader, name);
}

/* The tree indices of one open, in the order they are met, each once
 * (queued: per tree index, whether it is in items). */
typedef struct object_queue {
  size_t *items;
  size_t count, capacity;
  unsigned char *queued;
  size_t queued_capacity;
} object_queue;

static int queue_once(object_queue *q, size_t index) {
  size_t known = q->queued_capacity;
  if (cl_reserve((void **)&q->queued, &q->queued_capacity, index + 1, 1) !=
      CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  if (q->queued_capacity > known)
    memset(q->queued + known, 0, q->queued_capacity - known);
  if (q->queued[index])
    return CUDALOAD_OK;
  if (cl_reserve((void **)&q->items, &q->capacity, q->count + 1,
                 sizeof *q->items) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  q->queued[index] = 1;
  q->items[q->count++] = index;
  return CUDALOAD_OK;
}

/* An empty DT_NEEDED name. glibc's _dl_map_object looks among the loaded
 * objects first, and the main program's link map is named "": the name is
 * the program, nothing is searched or opened, and the load goes on. The
 * model has no object for the program (the host's loaded list skips its
 * empty name), so the resolution names none. A PE import with an empty DLL
 * name fails the load. */
static int resolve_empty_needed(const cl_loader_model *m, cl_resolution *how) {
  memset(how, 0, sizeof *how);
  how->loaded_index = SIZE_MAX;
  if (cl_resolve_is_windows(m)) {
    how->detail = cl_strdup(CL_WORDS_AN_IMPORT_WITH_AN_EMPTY);
  } else {
    how->rule = CL_RULE_ALREADY_LOADED;
    how->detail = cl_strdup(CL_WORDS_AN_EMPTY_NAME_WHICH_GLIBC);
  }
  return how->detail ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* Resolve tree object at's DT_NEEDED entry `needed` for it. DSTs in a
 * DT_NEEDED entry expand for the object naming it (glibc's
 * cl_resolve_expand_dst in _dl_map_object_deps); a name holding '/' after that
 * is taken as given. */
static int resolve_needed(opener *o, size_t at, const char *needed,
                          unsigned flags, const char *load_dir,
                          cl_resolution *how) {
  cl_loader_model *m = o->m;
  cl_requester *chain = malloc(o->t->object_count * sizeof *chain);
  if (!chain)
    return CUDALOAD_E_NO_MEMORY;
  const cl_requester *r = requester_of(o, at, chain);
  char *expanded = NULL;
  int status = CUDALOAD_OK;
  if (!cl_resolve_is_windows(m) && strchr(needed, '$')) {
    cl_origin_of og = {o->t->objects[at].path,
                       cl_resolve_requester_is_exe(m, r)};
    expanded = cl_resolve_expand_dst(m, needed, &og);
    if (!expanded)
      status = CUDALOAD_E_NO_MEMORY;
  }
  if (status != CUDALOAD_OK) {
    /* out of memory: nothing resolved */
  } else if (!needed[0]) {
    status = resolve_empty_needed(m, how);
  } else if (expanded && !expanded[0]) {
    /* A token with no value: "empty dynamic string token substitution",
     * and the open fails. */
    memset(how, 0, sizeof *how);
    how->loaded_index = SIZE_MAX;
    how->detail = cl_strdup_printf(
        CL_WORDS_EMPTY_DYNAMIC_STRING_TOKEN_SUBSTITUTION, needed);
    status = how->detail ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
  } else {
    status = cl_resolve_with(m, r, expanded ? expanded : needed, flags,
                             load_dir, how);
  }
  free(expanded);
  free(chain);
  return status;
}

/* One dependency of tree object at: resolved, recorded as an edge, its
 * object placed and queued; *missing set when it was not found. */
static int add_dependency(opener *o, size_t at, const char *needed,
                          unsigned flags, const char *load_dir,
                          object_queue *queue, int *missing) {
  cl_resolution how;
  int status = resolve_needed(o, at, needed, flags, load_dir, &how);
  if (status != CUDALOAD_OK)
    return status;
  size_t e;
  status = add_resolved(o, at, needed, 0, at, &how, &e);
  if (status != CUDALOAD_OK)
    return status;
  size_t to = o->t->edges[e].to;
  if (to == SIZE_MAX) {
    /* Already loaded without an object of its own (the main program an
     * empty name matches), or an API set the loader maps itself
     * (api-ms-win-crt-*: every DLL built with MSVC imports them), is
     * satisfied; anything else is missing. */
    cl_resolve_rule rule = o->t->edges[e].how.rule;
    if (rule != CL_RULE_ALREADY_LOADED && rule != CL_RULE_API_SET)
      *missing = 1;
    return CUDALOAD_OK;
  }
  return queue_once(queue, to);
}

/* Whether the model's work is spent: then the tree says so, naming the
 * object whose dependencies (needed: 1) or lazy opens were being resolved,
 * and nothing more is resolved. */
static int work_spent(opener *o, size_t at, int needed) {
  if (cl_resolve_memo_work_done(o->m->memo) <= CL_RESOLVE_MAX_WORK)
    return 0;
  cl_load_tree *t = o->t;
  if (!t->stopped) {
    t->stopped = 1;
    t->stopped_at = at;
    t->stopped_needed = needed;
  }
  return 1;
}

/* glibc's _dl_map_object_deps from tree object first: breadth first, each
 * object's dependencies resolved for it; *missing set when one was not
 * found. */
static int walk_dependencies(opener *o, size_t first, unsigned flags,
                             const char *load_dir, int *missing) {
  object_queue queue = {0};
  int status = queue_once(&queue, first);
  for (size_t q = 0; q < queue.count && status == CUDALOAD_OK; ++q) {
    size_t at = queue.items[q];
    if (o->walked[at])
      continue;
    o->walked[at] = 1;
    if (!o->t->objects[at].readable)
      continue;
    for (size_t k = 0; k < o->t->objects[at].info.needed_count &&
                       status == CUDALOAD_OK && !work_spent(o, at, 1);
         ++k)
      status = add_dependency(o, at, o->t->objects[at].info.needed[k], flags,
                              load_dir, &queue, missing);
  }
  free(queue.items);
  free(queue.queued);
  return status;
}

/* The loader unmaps what a failed open mapped (dlopen fails as a whole). */
static void undo_open(opener *o, size_t loaded_mark, size_t object_mark) {
  cl_loader_model *m = o->m;
  cl_resolve_memo_loaded_dropped(m->memo, loaded_mark);
  for (size_t i = loaded_mark; i < m->loaded_count; ++i)
    cl_loaded_object_free(&m->loaded[i]);
  m->loaded_count = loaded_mark;
  for (size_t i = object_mark; i < o->t->object_count; ++i)
    o->t->objects[i].dropped = 1;
}

/*
 * One open (the object asked for, or a lazy name) and its closure:
 * glibc's _dl_map_object_deps walks a queue that starts with the object
 * and appends each dependency not yet in it, so the objects are mapped
 * breadth first, each dependency resolved for the object that names it.
 * Windows resolves imports with the flags and DLL folder of the load.
 * A dependency not found fails the open: the process keeps nothing of it.
 */
static int open_one(opener *o, const cl_requester *req, size_t from,
                    const char *name, int lazy, unsigned flags,
                    const char *load_dir_in, int *failed) {
  cl_loader_model *m = o->m;
  cl_load_tree *t = o->t;
  size_t loaded_mark = m->loaded_count;
  size_t object_mark = t->object_count;
  cl_resolution how;
  *failed = 0;
  int status = cl_resolve_with(m, req, name, flags, load_dir_in, &how);
  if (status != CUDALOAD_OK)
    return status;
  size_t edge;
  status = add_resolved(o, from, name, lazy, SIZE_MAX, &how, &edge);
  if (status != CUDALOAD_OK)
    return status;
  if (t->edges[edge].to == SIZE_MAX) {
    *failed = 1;
    return CUDALOAD_OK;
  }

  /* Windows: the folder of the DLL opened, for its imports. */
  const char *opened = t->edges[edge].how.path;
  char *load_dir = NULL;
  if (cl_resolve_is_windows(m) &&
      (flags & (CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
                CL_LOAD_WITH_ALTERED_SEARCH_PATH)) &&
      cl_resolve_is_absolute(m, opened ? opened : ""))
    load_dir = cl_resolve_folder_of(m, opened);
  int missing = 0;
  status = walk_dependencies(o, t->edges[edge].to, flags, load_dir, &missing);
  free(load_dir);
  if (status != CUDALOAD_OK)
    return status;
  if (missing) {
    undo_open(o, loaded_mark, object_mark);
    *failed = 1;
  }
  return CUDALOAD_OK;
}

/* Lazy names: each object, in tree order (those opened lazily too, when
 * the walk reaches them), opens its names as dlopen/LoadLibrary from
 * inside itself; on Windows that is a plain LoadLibrary (the process
 * default order). */
static int open_lazy(opener *o) {
  int status = CUDALOAD_OK;
  cl_requester *chain = NULL;
  for (size_t i = 0; i < o->t->object_count && status == CUDALOAD_OK; ++i) {
    if (!o->lazy || o->t->objects[i].dropped)
      continue;
    size_t count = 0;
    char **names =
        o->lazy(o->t->objects[i].path,
                o->t->objects[i].readable ? &o->t->objects[i].info : NULL,
                &count, o->opaque);
    for (size_t k = 0;
         k < count && status == CUDALOAD_OK && !work_spent(o, i, 0); ++k) {
      free(chain);
      chain = malloc(o->t->object_count * sizeof *chain);
      if (!chain) {
        status = CUDALOAD_E_NO_MEMORY;
        break;
      }
      const cl_requester *r = requester_of(o, i, chain);
      int failed;
      status = open_one(o, r, i, names[k], 1, 0, NULL, &failed);
    }
    for (size_t k = 0; k < count; ++k)
      free(names[k]);
    free(names);
  }
  free(chain);
  return status;
}

static int open_with_flags(cl_loader_model *m, const cl_requester *req,
                           const char *name, unsigned flags,
                           cl_lazy_names_fn lazy, void *opaque,
                           cl_load_tree *out) {
  if (!out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no tree given");
  memset(out, 0, sizeof *out);
  if (!m || !name || !name[0])
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no model or name given");
  opener o;
  memset(&o, 0, sizeof o);
  o.m = m;
  o.t = out;
  o.lazy = lazy;
  o.opaque = opaque;
  cl_str_index_init(&o.by_path, cl_resolve_is_windows(m));
  o.by_path_ok = 1;
  int failed = 0;
  int status = open_one(&o, req, SIZE_MAX, name, 0, flags, NULL, &failed);
  out->failed = failed;
  if (status == CUDALOAD_OK && !failed)
    status = open_lazy(&o);
  free(o.walked);
  cl_str_index_free(&o.by_path);
  if (status != CUDALOAD_OK) {
    cl_load_tree_free(out);
    /* Another failure has its own last error: never called out of memory. */
    return status == CUDALOAD_E_NO_MEMORY ? cl_fail(status, "out of memory")
                                          : status;
  }
  return CUDALOAD_OK;
}

int cl_resolve_open(cl_loader_model *m, const cl_requester *req,
                    const char *name, cl_lazy_names_fn lazy, void *opaque,
                    cl_load_tree *out) {
  return open_with_flags(m, req, name, m ? m->search_flags : 0, lazy, opaque,
                         out);
}

int cl_resolve_load(cl_loader_model *m, const char *path, cl_lazy_names_fn lazy,
                    void *opaque, cl_load_tree *out) {
  return cl_resolve_open(m, NULL, path, lazy, opaque, out);
}

int cl_resolve_load_flags(cl_loader_model *m, const char *path, unsigned flags,
                          cl_lazy_names_fn lazy, void *opaque,
                          cl_load_tree *out) {
  return open_with_flags(m, NULL, path, flags, lazy, opaque, out);
}
