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

#include "binary/file_cache.h"

#include "binary/binary_names.h"
#include "loader/bind.h"
#include "scan/catalog.h"
#include "core/context.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "loader/resolve.h"
#include "load/python_loads.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/plan_state.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The process the file would be opened in: this environment's search
 * path (and, on Windows, the file's folder as the application's). */
static int model_environment(cl_loader_model *m, const char *path,
                             cl_naming naming) {
  char *search = cl_os_getenv(cl_resolve_search_variable(naming));
  int rc = cl_loader_model_set(
      naming == CL_NAMING_WINDOWS ? &m->path : &m->ld_library_path, search);
  free(search);
  if (!rc && naming == CL_NAMING_LINUX) {
    /* What LD_PRELOAD puts first (the explained file's process inherits
     * it; cl_verdict_preloads opens each). */
    char *preload = cl_os_getenv("LD_PRELOAD");
    rc = cl_loader_model_set(&m->ld_preload, preload);
    free(preload);
  }
  if (!rc && naming == CL_NAMING_WINDOWS) {
    /* A file of a Python package runs in the interpreter's process, whose
     * folder is the application's (unknown: none); the verdict opens it as
     * CPython does (docs/loader.md, Windows 14). */
    cl_python_load py;
    int python = 0;
    rc = cl_python_load_of(path, &py, &python);
    char *folder = rc || python ? NULL : cl_path_dirname(path);
    if (!rc)
      rc = cl_loader_model_set(&m->app_dir, python ? py.home : folder);
    free(folder);
    if (python)
      cl_python_load_free(&py);
  }
  return rc;
}

/* One file in a process of its own: this environment, the plan already
 * preloaded as cudaload_preload would have it (each planned file loaded,
 * its folder exposed on Windows, with CUDALOAD_PRELOAD_GLOBAL its symbols
 * in the global scope), then the file opened. */
static int explain_one(cudaload_explain *e, cudaload_ctx *ctx, const char *path,
                       unsigned flags) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_loader_model m;
  int rc = cl_loader_model_init_system(&m);
  if (rc)
    return rc;
  m.files = cl_file_cache_of(ctx);
  rc = model_environment(&m, path, naming);
  /* The global scope is this file's process's: start it empty, with what
   * LD_PRELOAD and /etc/ld.so.preload put first. */
  e->global_count = 0;
  if (!rc)
    rc = cl_verdict_preloads(e, ctx, &m, 0);
  unsigned global = (flags & CUDALOAD_PRELOAD_GLOBAL) ? CL_VERDICT_GLOBAL : 0;
  for (size_t i = 0; !rc && cl_plan_state_of(ctx)->planned &&
                     i < cl_plan_state_of(ctx)->plan_count;
       ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    rc = p->to_load ? cl_verdict_assume_loaded(e, &m, p->path, p->soname,
                                               CL_VERDICT_PRELOAD | global)
                    : cl_verdict_expose_folder(&m, p->path);
  }
  size_t first = e->object_count;
  if (!rc)
    rc = cl_verdict_open(
        e, ctx, &m, path,
        CL_VERDICT_CONSUMER |
            ((flags & CUDALOAD_EXPLAIN_SYMBOLS) ? CL_VERDICT_SYMBOLS : 0));
  if (!rc)
    cl_verdict_mixes(e, first, CL_AMONG_FILE);
  cl_loader_model_free(&m);
  return rc;
}

static int explain_files_held(cudaload_ctx *ctx, const char *const *paths,
                              size_t count, unsigned flags,
                              cudaload_explain **out);

/* What explain made through the handle it was lent names the caller's
 * again before it is returned: the lent handle ends with the call, and
 * what the object asks later (a wheel's version on first question, the
 * naming) is the caller's inventory's, which it lent. */
static void handle_again(cudaload_explain *e, const cudaload_ctx *lent,
                         cudaload_ctx *ctx) {
  if (e->ctx == lent)
    e->ctx = ctx;
  for (size_t i = 0; i < e->object_count; ++i)
    if (e->objects[i].version_ctx == lent)
      e->objects[i].version_ctx = ctx;
}

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_explain_files(cudaload_ctx *ctx, const char *const *paths,
                           size_t count, unsigned flags,
                           cudaload_explain **out) {
  int rc = explain_files_held(ctx, paths, count, flags, out);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int explain_files_held(cudaload_ctx *ctx, const char *const *paths,
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
  if (!cl_inventory_of(ctx)->scanned)
    rc = cudaload_scan(ctx);
  /* "As if preloaded": the plan decides what is already in the process.
   * The caller's when there is one; else a plan of explain's own, in a
   * handle of its own lent the caller's roots, inventory and caches
   * (core/context.h, cl_ctx_lend()), so that the caller's (unplanned) state
   * is read and never written. The file cache is made first, in the
   * caller's handle, so that what explain reads is kept there. */
  int own = !rc && cl_plan_state_of(ctx)->requirement_count &&
            !cl_plan_state_of(ctx)->planned;
  cudaload_ctx lent;
  cudaload_ctx *judge = ctx;
  if (own) {
    cl_file_cache_of(ctx);
    cl_ctx_lend(ctx, &lent);
    if (cl_plan_state_own(&lent, cl_plan_state_of(ctx)))
      return cl_fail(CUDALOAD_E_NO_MEMORY,
                     "cudaload_explain_files: out of memory");
    judge = &lent;
    rc = cudaload_plan(judge, 0);
    if (rc == CUDALOAD_E_UNSATISFIED) {
      rc = CUDALOAD_OK; /* explained below as what is not found */
      cl_clear_error();
    }
  }
  cudaload_explain *e = rc ? NULL : cl_verdict_new();
  if (!e) {
    if (own)
      cl_ctx_lent_end(ctx, &lent);
    if (!rc)
      return cl_fail(CUDALOAD_E_NO_MEMORY,
                     "cudaload_explain_files: out of memory");
    /* the scan's or the plan's last error says why */
    return *cudaload_last_error() ? rc
                                  : cl_fail(rc, "cudaload_explain_files: %s",
                                            cudaload_strerror(rc));
  }
  for (size_t i = 0; i < count && !rc; ++i) {
    cl_file *probe;
    uint64_t size;
    int open_rc = cl_os_file_open(paths[i], &probe, &size);
    if (open_rc) {
      rc = cl_fail_naming(open_rc, paths[i]);
      break;
    }
    cl_os_file_close(probe);
    rc = explain_one(e, judge, paths[i], flags);
  }
  if (!rc && e->failed)
    rc = cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_files: out of memory");
  if (own) {
    handle_again(e, &lent, ctx);
    cl_ctx_lent_end(ctx, &lent);
  }
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  cl_clear_error();
  *out = e;
  return CUDALOAD_OK;
}

/* --- a running process -----------------------------------------------------
 * What the process maps, each file once, reached through a path whose device
 * and inode the seam checked (os/loader.h, cl_mapped_file): a version comes
 * from the file the process runs, never from whatever its name leads to now
 * (a newer file that replaced it, the host's file of a container's name).
 * Every lookup goes through an index, so the cost follows the number of
 * mapped files, not its square.
 */

/* A ctx's libraries by real path (the ctx's own, or a folder scan's). */
typedef struct library_index {
  cudaload_ctx *ctx;
  cl_str_index by_path;
} library_index;

typedef struct pid_context {
  cudaload_explain *e;
  cudaload_ctx *ctx;
  cl_naming naming;
  /* e->objects by path (keys: their paths), apart for the deleted files
   * mapped: a library deleted, replaced and mapped again is two objects. */
  cl_str_index objects, deleted_objects;
  library_index indexes[1 + CL_VERDICT_FOLDER_SCANS];
  size_t index_count;
} pid_context;

/* The library of c whose real path is real, its version settled; NULL when
 * c has none (or no index could be built: then the version is the name's). */
static cl_library *indexed_library(pid_context *pc, cudaload_ctx *c,
                                   const char *real) {
  library_index *x = NULL;
  for (size_t i = 0; i < pc->index_count && !x; ++i)
    if (pc->indexes[i].ctx == c)
      x = &pc->indexes[i];
  if (!x) {
    if (pc->index_count == sizeof pc->indexes / sizeof *pc->indexes)
      return NULL;
    x = &pc->indexes[pc->index_count++];
    x->ctx = c;
    cl_str_index_init(&x->by_path, 0);
    const cl_inventory *inv = cl_inventory_of(c);
    for (size_t i = 0; i < inv->library_count; ++i)
      if (cl_str_index_add(&x->by_path, inv->libraries[i].path, i)) {
        pc->e->failed = 1;
        return NULL;
      }
  }
  size_t at;
  if (!cl_str_index_find(&x->by_path, real, &at))
    return NULL;
  cl_library *lib = &cl_inventory_of(c)->libraries[at];
  cl_library_settle_version(c, lib);
  return lib;
}

/* The version of a mapped file as the scan tells it (dist-info, headers),
 * from the file the process maps: through its name here (the inventory, or
 * a scan of its folder), or through the process's root (a scan of its
 * folder there); else what its name carries. */
static char *mapped_version(pid_context *pc, const cl_mapped_file *f,
                            const cl_name_match *m, int *cuda_major) {
  *cuda_major = m->cuda_major;
  cl_library *lib = NULL;
  cudaload_ctx *owner = NULL; /* the ctx whose inventory lib is of */
  /* an answer, not a failure */
  if (!f->deleted &&
      (f->reach == CL_REACHED_HERE || f->reach == CL_REACHED_IN_ROOT)) {
    char *real = cl_os_real_path_quiet(f->access, NULL);
    if (real && f->reach == CL_REACHED_HERE)
      lib = indexed_library(pc, owner = pc->ctx, real);
    cudaload_ctx *c =
        real && !lib ? cl_verdict_folder_scan(pc->e, pc->ctx, f->access) : NULL;
    if (c)
      lib = indexed_library(pc, owner = c, real);
    free(real);
  }
  if (lib) {
    int cuda = cl_library_cuda_major(owner, lib);
    if (cuda)
      *cuda_major = cuda;
    return lib->version[0] ? cl_strdup(lib->version) : NULL;
  }
  return m->name_version[0] ? cl_strdup(m->name_version) : NULL;
}

/* A finding about what a running process maps (CUDALOAD_PROBLEM_IN_PROCESS):
 * what is seen there (reason), its facts added by the caller. */
static cl_problem process_record(const char *reason) {
  cl_problem p;
  cl_problem_init(&p, CUDALOAD_PROBLEM_IN_PROCESS);
  cl_problem_fact(NULL, &p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
                  reason);
  return p;
}

/* What the explain says of a file it cannot describe from the file itself:
 * a mapped file deleted or replaced on disk, or one whose path now names
 * another file (reason "deleted", "other-file", or "other-file-unread"
 * when that one cannot be read from here). */
static void mapped_problem(pid_context *pc, const cl_mapped_file *f,
                           const cl_explain_object *o) {
  const char *reason = f->deleted                       ? "deleted"
                       : f->reach == CL_REACHED_NOT     ? "other-file-unread"
                       : f->reach == CL_REACHED_MAPPING ? "other-file"
                                                        : NULL;
  if (!reason)
    return;
  cl_problem p = process_record(reason);
  cl_problem_fact(NULL, &p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE, f->path);
  cl_problem_fact(NULL, &p, CUDALOAD_FACT_LIBRARY, CUDALOAD_FROM_MACHINE,
                  o->name);
  cl_problem_fact_int(NULL, &p, CUDALOAD_FACT_MAJOR, CUDALOAD_FROM_MACHINE,
                      o->major);
  cl_problem_fact(NULL, &p, CUDALOAD_FACT_VERSION, CUDALOAD_FROM_MACHINE,
                  o->version);
  cl_verdict_add(pc->e, CL_FINDING_PROCESS, 0, &p, NULL, NULL, NULL, NULL);
}

/* Only CUDA libraries are looked up (os/loader.h). */
static int wanted_mapped(const char *path, void *opaque) {
  const pid_context *pc = opaque;
  cl_name_match m;
  return cl_catalog_match_renamed(cl_path_basename(path), pc->naming, &m);
}

static void visit_mapped(const cl_mapped_file *f, void *opaque) {
  pid_context *pc = opaque;
  cudaload_explain *e = pc->e;
  cl_name_match m;
  cl_str_index *seen = f->deleted ? &pc->deleted_objects : &pc->objects;
  if (e->failed ||
      !cl_catalog_match_renamed(cl_path_basename(f->path), pc->naming, &m) ||
      cl_str_index_find(seen, f->path, NULL))
    return; /* not a CUDA library, or met under that name already */
  if (cl_reserve((void **)&e->objects, &e->object_capacity, e->object_count + 1,
                 sizeof *e->objects)) {
    e->failed = 1;
    return;
  }
  cl_explain_object *o = &e->objects[e->object_count];
  memset(o, 0, sizeof *o);
  o->path = cl_strdup(f->path);
  if (!o->path || cl_str_index_add(seen, o->path, e->object_count)) {
    free(o->path);
    e->failed = 1;
    return;
  }
  o->family = m.entry->family;
  o->name = m.entry->name;
  o->major = m.major;
  o->version = mapped_version(pc, f, &m, &o->cuda_major);
  e->object_count++;
  mapped_problem(pc, f, o);
}

/* At most this many problems of cuDNN sub-libraries from another version:
 * each is found by a walk over the sub-libraries, and a process that maps
 * thousands of cuDNN copies is told of the first few. */
#define CL_EXPLAIN_CUDNN_MIXES 16

/* Whether a cuDNN main library (folder, version) runs a sub-library of its
 * major from another folder and of another version, answered by counts
 * rather than a walk over every sub-library for every main one: of the
 * distinct (folder, version) pairs of the major's sub-libraries, those
 * neither in the main library's folder nor of its version are all, less
 * those in its folder, less those of its version, plus the one pair that is
 * both (counted twice). Keys carry the major: "9", "9\nfolder",
 * "9\n\nversion", "9\nfolder\nversion". */
typedef struct cudnn_subs {
  cl_str_index index;
  char **keys;
  size_t *counts;
  size_t count, key_capacity, count_capacity;
  int failed;
} cudnn_subs;

/* The count under key (taken over), added at 0 when new; NULL without
 * memory. */
static size_t *sub_count(cudnn_subs *s, char *key) {
  size_t at;
  if (key && cl_str_index_find(&s->index, key, &at)) {
    free(key);
    return &s->counts[at];
  }
  if (!key ||
      cl_reserve((void **)&s->keys, &s->key_capacity, s->count + 1,
                 sizeof *s->keys) ||
      cl_reserve((void **)&s->counts, &s->count_capacity, s->count + 1,
                 sizeof *s->counts) ||
      cl_str_index_add(&s->index, key, s->count)) {
    free(key);
    s->failed = 1;
    return NULL;
  }
  s->keys[s->count] = key;
  s->counts[s->count] = 0;
  return &s->counts[s->count++];
}

static size_t sub_count_of(const cudnn_subs *s, char *key) {
  size_t at, n = 0;
  if (key && cl_str_index_find(&s->index, key, &at))
    n = s->counts[at];
  free(key);
  return n;
}

static int is_cudnn(const cl_explain_object *o, int main) {
  return o->family && o->version && strcmp(o->family, "cudnn") == 0 &&
         (strcmp(o->name, "cudnn") == 0) == main;
}

static void count_cudnn_subs(const cudaload_explain *e, cudnn_subs *s) {
  for (size_t j = 0; j < e->object_count && !s->failed; ++j) {
    const cl_explain_object *sub = &e->objects[j];
    if (!is_cudnn(sub, 0))
      continue;
    char *folder = cl_path_dirname(sub->path);
    size_t *pair = folder
                       ? sub_count(s, cl_strdup_printf("%d\n%s\n%s", sub->major,
                                                       folder, sub->version))
                       : NULL;
    if (pair && !*pair) {
      *pair = 1;
      size_t *all = sub_count(s, cl_strdup_printf("%d", sub->major));
      size_t *in_folder =
          sub_count(s, cl_strdup_printf("%d\n%s", sub->major, folder));
      size_t *of_version =
          sub_count(s, cl_strdup_printf("%d\n\n%s", sub->major, sub->version));
      if (all && in_folder && of_version) {
        ++*all;
        ++*in_folder;
        ++*of_version;
      }
    }
    if (!folder || !pair)
      s->failed = 1;
    free(folder);
  }
}

/* A cuDNN main library whose sub-libraries come from elsewhere, in another
 * version: the first CL_EXPLAIN_CUDNN_MIXES are named (each found by a
 * walk), the rest counted. */
static void cudnn_mix_problems(cudaload_explain *e) {
  cudnn_subs s;
  memset(&s, 0, sizeof s);
  cl_str_index_init(&s.index, 0);
  count_cudnn_subs(e, &s);
  size_t reported = 0, more = 0;
  for (size_t i = 0; i < e->object_count && !s.failed; ++i) {
    const cl_explain_object *main = &e->objects[i];
    char *folder = is_cudnn(main, 1) ? cl_path_dirname(main->path) : NULL;
    if (!folder)
      continue;
    int d = main->major;
    size_t others =
        sub_count_of(&s, cl_strdup_printf("%d", d)) -
        sub_count_of(&s, cl_strdup_printf("%d\n%s", d, folder)) -
        sub_count_of(&s, cl_strdup_printf("%d\n\n%s", d, main->version)) +
        sub_count_of(&s,
                     cl_strdup_printf("%d\n%s\n%s", d, folder, main->version));
    for (size_t j = 0;
         others && reported < CL_EXPLAIN_CUDNN_MIXES && j < e->object_count;
         ++j) {
      const cl_explain_object *sub = &e->objects[j];
      if (!is_cudnn(sub, 0) || sub->major != d ||
          strcmp(main->version, sub->version) == 0)
        continue;
      char *sub_folder = cl_path_dirname(sub->path);
      int elsewhere = sub_folder && strcmp(sub_folder, folder) != 0;
      free(sub_folder);
      if (!elsewhere)
        continue;
      cl_problem p = process_record("sub-library-mix");
      cl_problem_fact_int(NULL, &p, CUDALOAD_FACT_MAJOR, CUDALOAD_FROM_MACHINE,
                          d);
      cl_problem_fact(NULL, &p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE,
                      main->path);
      cl_problem_fact(NULL, &p, CUDALOAD_FACT_VERSION, CUDALOAD_FROM_MACHINE,
                      main->version);
      cl_problem_fact(NULL, &p, CUDALOAD_FACT_LIBRARY, CUDALOAD_FROM_MACHINE,
                      sub->name);
      cl_problem_fact(NULL, &p, CUDALOAD_FACT_OTHER_PATH, CUDALOAD_FROM_MACHINE,
                      sub->path);
      cl_problem_fact(NULL, &p, CUDALOAD_FACT_OTHER_VERSION,
                      CUDALOAD_FROM_MACHINE, sub->version);
      cl_verdict_add(e, CL_FINDING_PROCESS, 0, &p, NULL, NULL, NULL, NULL);
      reported++;
      others = 0;
    }
    more += others != 0;
    free(folder);
  }
  if (more) {
    cl_problem p = process_record("more-mixes");
    cl_problem_factf(NULL, &p, CUDALOAD_FACT_COUNT, CUDALOAD_FROM_MACHINE,
                     "%zu", more);
    cl_verdict_add(e, CL_FINDING_PROCESS, 0, &p, NULL, NULL, NULL, NULL);
  }
  cl_str_index_free(&s.index);
  for (size_t k = 0; k < s.count; ++k)
    free(s.keys[k]);
  free(s.keys);
  free(s.counts);
  if (s.failed)
    e->failed = 1;
}

static int explain_pid_held(cudaload_ctx *ctx, long pid,
                            cudaload_explain **out);

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_explain_pid(cudaload_ctx *ctx, long pid, cudaload_explain **out) {
  int rc = explain_pid_held(ctx, pid, out);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int explain_pid_held(cudaload_ctx *ctx, long pid,
                            cudaload_explain **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out || pid <= 0)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_explain_pid: %s",
                   pid <= 0 ? "the process id must be positive"
                            : "NULL argument");
  int rc = cl_inventory_of(ctx)->scanned ? CUDALOAD_OK : cudaload_scan(ctx);
  if (rc) /* the scan's last error says why */
    return *cudaload_last_error()
               ? rc
               : cl_fail(rc, "cudaload_explain_pid: %s", cudaload_strerror(rc));
  cudaload_explain *e = cl_verdict_new();
  if (!e)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_pid: out of memory");
  e->pid = pid;
  pid_context pc;
  memset(&pc, 0, sizeof pc);
  pc.e = e;
  pc.ctx = ctx;
  pc.naming = cl_ctx_naming(ctx);
  cl_str_index_init(&pc.objects, 0);
  cl_str_index_init(&pc.deleted_objects, 0);
  rc = cl_os_loader_process_modules(pid, wanted_mapped, visit_mapped, &pc);
  cl_str_index_free(&pc.objects);
  cl_str_index_free(&pc.deleted_objects);
  for (size_t i = 0; i < pc.index_count; ++i)
    cl_str_index_free(&pc.indexes[i].by_path);
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  cudnn_mix_problems(e);
  cl_verdict_mixes(e, 0, CL_AMONG_MAPS);
  if (e->failed) {
    cudaload_explain_free(e);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_explain_pid: out of memory");
  }
  *out = e;
  return CUDALOAD_OK;
}

/* --- accessors ------------------------------------------------------------ */

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
  return e ? e->finding_count : 0;
}

const char *cudaload_explain_problem(const cudaload_explain *e, size_t i) {
  return e && i < e->finding_count ? e->findings[i].text : NULL;
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
  *out = cl_explain_render(e, format);
  return *out ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}
