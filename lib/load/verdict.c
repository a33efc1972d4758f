/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - the loader model's verdict on files opened in a modelled
 * process (verdict.h): what the loader maps for each (resolve.c), where
 * their CUDA symbols bind (bind.c), and what goes wrong, as findings.
 * Nothing is loaded: the files are read, and the model answers. The
 * differential tests compare these answers with the real loader's
 * (docs/loader.md).
 *
 * Here: opening files in the model (by path, by name, a program's files,
 * the run-time opens, what LD_PRELOAD puts first, a plan's loads) and
 * recording what each maps, its objects and needs; the handle. What each
 * open is judged by has a file of its own: where references bind
 * (verdict_bindings.c) and what fails to (verdict_binding_findings.c),
 * what the search does wrong (verdict_search_findings.c), mixes of
 * versions and CUDA majors (verdict_mixes.c), over a finding's record
 * (verdict_finding.c), the files' versions (verdict_versions.c) and which
 * names are CUDA's (verdict_cuda_names.c).
 */
#include "load/verdict.h"

#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/python_loads.h"
#include "os/platform.h"
#include "problem/fix_words.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "load/plan_state.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s) {
  return s ? cl_strdup(s) : NULL;
}

/* --- objects and needs ---------------------------------------------------- */

cl_explain_object *cl_verdict_object(cudaload_explain *e, cudaload_ctx *ctx,
                                     const char *path, const char *soname,
                                     int consumer) {
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
  if (cl_cuda_catalog_of(path, soname, cl_ctx_naming(ctx), &m)) {
    o->family = m.entry->family;
    o->name = m.entry->name;
    o->major = m.major;
    o->version = cl_verdict_version_of_match(
        e, ctx, path, &m, &o->cuda_major, e->defer_wheel_versions ? o : NULL);
  }
  e->object_count++;
  return o;
}

static void add_need(cudaload_explain *e, cl_explain_object *o,
                     const cl_load_edge *edge, const cl_load_tree *tree,
                     cudaload_ctx *ctx, int lazy) {
  if (cl_reserve((void **)&o->needs, &o->need_capacity, o->need_count + 1,
                 sizeof *o->needs)) {
    e->failed = 1;
    return;
  }
  cl_explain_need *n = &o->needs[o->need_count++];
  memset(n, 0, sizeof *n);
  n->name = cl_strdup(edge->name);
  n->lazy = edge->lazy || lazy;
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
    /* Deferred, a wheel's stays unread: no need's version is compared. */
    cl_explain_object unread;
    memset(&unread, 0, sizeof unread);
    if (cl_cuda_catalog_of(path, soname, cl_ctx_naming(ctx), &m))
      n->version = cl_verdict_version_of_match(
          e, ctx, path, &m, &cuda, e->defer_wheel_versions ? &unread : NULL);
  }
  if (!n->name)
    e->failed = 1;
}

/* --- opening files in the model ------------------------------------------ */

/* On Windows cudaload_preload puts each planned file's folder first on PATH
 * and adds it with AddDllDirectory before loading it (lib/load/preload.c),
 * so that the library's own later LoadLibrary("sibling.dll") finds its
 * siblings: the model does the same. Linux changes nothing (LD_LIBRARY_PATH
 * is read once, at start). */
static int expose_like_preload(cl_loader_model *m, const char *file) {
  if (m->naming != CL_NAMING_WINDOWS)
    return CUDALOAD_OK;
  char *folder = cl_path_dirname(file);
  if (!folder)
    return CUDALOAD_E_NO_MEMORY;
  int rc = CUDALOAD_OK;
  size_t length = strlen(folder);
  int first = m->path && strncmp(m->path, folder, length) == 0 &&
              (m->path[length] == ';' || m->path[length] == '\0');
  /* As the preload does (cl_os_loader_expose_folder): PATH has no quoting,
   * so a folder whose name holds ';' goes to AddDllDirectory only. */
  if (!first && !strchr(folder, ';')) {
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

/* The model gave up on a file naming too many libraries and folders: what
 * it was resolving when it stopped (resolve.c, work_spent). */
static void stopped_finding(cudaload_explain *e, const cl_load_tree *t,
                            const char *opener) {
  const cl_load_object *at =
      t->stopped_at < t->object_count ? &t->objects[t->stopped_at] : NULL;
  cl_problem p = cl_verdict_finding_record(CL_FINDING_STOPPED, 0);
  cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, at ? at->path : opener);
  cl_verdict_fact_int(&p, CUDALOAD_FACT_COUNT, CL_RESOLVE_MAX_WORK);
  cl_verdict_fact(&p, CUDALOAD_FACT_REASON,
                  t->stopped_needed ? CL_WORDS_STOPPED_NEEDS
                                    : CL_WORDS_STOPPED_OPENS);
  if (at) {
    const cl_binary_info *info = &at->info;
    const char *list = info->runpath && info->runpath[0] ? info->runpath
                       : info->rpath && info->rpath[0]   ? info->rpath
                                                         : NULL;
    cl_verdict_fact_int(&p, CUDALOAD_FACT_TOTAL, (long)info->needed_count);
    size_t folders = list ? 1 : 0;
    for (const char *c = list; c && *c; ++c)
      folders += *c == ':';
    if (list)
      cl_problem_factf(NULL, &p, CUDALOAD_FACT_SEARCHED, CUDALOAD_FROM_MACHINE,
                       CL_WORDS_RUNPATH_FOLDERS, folders,
                       list == info->runpath ? "RUNPATH" : "RPATH");
  }
  cl_verdict_add(e, CL_FINDING_STOPPED, 0, &p, opener, NULL, NULL, NULL);
}

/* What each object of t is: CL_CATALOGUED, a library the catalog knows;
 * CL_NEEDS_CUDA, it needs one (a DT_NEEDED name or import the catalog
 * knows): each such is a consumer whose references to that library must
 * bind, wherever in the tree it sits. torch's _C.so reaches
 * libtorch_cuda.so through libtorch_python.so, and it is libtorch_cuda.so
 * that takes ncclCommRegister from libnccl.so.2: an older NCCL put first
 * (LD_PRELOAD) lacks it, and only its bindings show that. calloc'ed flags,
 * one per object, each object matched against the catalog once (NULL when
 * memory ran out). */
enum { CL_CATALOGUED = 1, CL_NEEDS_CUDA = 2 };
static unsigned char *cuda_consumers(const cl_load_tree *t, cl_naming naming) {
  unsigned char *what = calloc(t->object_count + 1, 1);
  if (!what)
    return NULL;
  for (size_t k = 0; k < t->object_count; ++k) {
    cl_name_match m;
    if (cl_cuda_catalog_of(t->objects[k].path, t->objects[k].info.soname,
                           naming, &m))
      what[k] = CL_CATALOGUED;
  }
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    if (!edge->lazy && edge->from < t->object_count &&
        edge->to < t->object_count && (what[edge->to] & CL_CATALOGUED))
      what[edge->from] |= CL_NEEDS_CUDA;
  }
  return what;
}

/* The objects of a resolved tree into e: the file itself, every CUDA
 * library in it and every file that needs one, each with its needs,
 * bindings and findings. */
static void record_tree(cudaload_explain *e, cudaload_ctx *ctx,
                        const char *opener, const cl_load_tree *t,
                        unsigned how) {
  cl_naming naming = cl_ctx_naming(ctx);
  int lazy = (how & CL_VERDICT_LAZY) != 0;
  unsigned char *consumers = cuda_consumers(t, naming);
  if (!consumers)
    e->failed = 1;
  for (size_t k = 0; k < t->object_count && !e->failed; ++k) {
    const cl_load_object *lo = &t->objects[k];
    int is_cuda = (consumers[k] & CL_CATALOGUED) ||
                  cl_cuda_consumer_package(lo->path, naming) != NULL;
    int asked = k == 0 && (how & CL_VERDICT_CONSUMER);
    if (k != 0 && !is_cuda && !(consumers[k] & CL_NEEDS_CUDA))
      continue; /* system libraries: shown as needs, not expanded */
    if (k == 0 && !is_cuda && !asked)
      continue;
    cl_explain_object *o =
        cl_verdict_object(e, ctx, lo->path, lo->info.soname, asked);
    if (!o || o->need_count || o->binding_count)
      continue; /* already explained by an earlier open */
    for (size_t i = 0; i < t->edge_count; ++i)
      if (t->edges[i].from == k)
        add_need(e, o, &t->edges[i], t, ctx, 0);
    cl_verdict_object_bindings(e, o, t, k, naming,
                               (how & CL_VERDICT_SYMBOLS) != 0);
    cl_verdict_undefined_findings(e, ctx, o, t, k, lazy);
    cl_verdict_binding_findings(e, o, lazy);
  }
  free(consumers);
  if ((how & CL_VERDICT_CONSUMER) &&
      (t->object_count == 0 || !t->objects[0].readable)) {
    cl_problem p = cl_verdict_finding_record(CL_FINDING_UNREADABLE, 0);
    cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, opener);
    cl_fix_step *inspect = cl_fix_add(&p.fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&p.fix, inspect, "cudaload");
    cl_fix_arg(&p.fix, inspect, "inspect");
    cl_fix_arg(&p.fix, inspect, opener);
    cl_fix_note(&p.fix, inspect, CL_NOTE_INSPECT_SAYS_WHY);
    cl_verdict_add(e, CL_FINDING_UNREADABLE, 0, &p, opener, NULL, NULL, NULL);
  }
  if (t->stopped)
    stopped_finding(e, t, opener);
  cl_verdict_search_findings(e, t, opener, naming, lazy);
}

/* Objects opened with CL_VERDICT_GLOBAL join the global scope (the file
 * and its dependencies, as RTLD_GLOBAL puts its whole group there). */
static void join_global(cudaload_explain *e, const cl_load_tree *t) {
  for (size_t k = 0; k < t->object_count; ++k) {
    if (t->objects[k].dropped)
      continue;
    const cl_bind_object *b = cl_verdict_bind_object(e, t->objects[k].path);
    if (!b || cl_reserve((void **)&e->global, &e->global_capacity,
                         e->global_count + 1, sizeof *e->global)) {
      e->failed = 1;
      return;
    }
    int seen = 0;
    for (size_t i = 0; i < e->global_count && !seen; ++i)
      seen = e->global[i] == b;
    if (!seen)
      e->global[e->global_count++] = b;
  }
}

static int finish_open(cudaload_explain *e, cudaload_ctx *ctx,
                       const char *opener, cl_load_tree *t, unsigned how,
                       int rc) {
  if (!rc) {
    record_tree(e, ctx, opener, t, how);
    if ((how & CL_VERDICT_GLOBAL) && !t->failed)
      join_global(e, t);
  }
  cl_load_tree_free(t);
  if (!rc && e->failed)
    rc = CUDALOAD_E_NO_MEMORY;
  return rc;
}

/* The model reads files through the context's cache: each file's
 * headers and first bytes once per run, whichever verdict asks. */
static void read_through(cl_loader_model *m, cudaload_ctx *ctx) {
  if (!m->files && ctx)
    m->files = cl_file_cache_of(ctx);
}

/* The path of the module m has loaded under the DLL name `name` (Windows:
 * its file name, any case), or NULL. */
static const char *windows_loaded(const cl_loader_model *m, const char *name,
                                  size_t len) {
  for (size_t i = 0; i < m->loaded_count; ++i) {
    const char *base = cl_path_basename(m->loaded[i].path);
    size_t k = 0;
    while (k < len && base[k] &&
           cl_ascii_lower(base[k]) == cl_ascii_lower(name[k]))
      ++k;
    if (k == len && !base[k])
      return m->loaded[i].path;
  }
  return NULL;
}

/* Whether every name of a ", "-joined list is loaded in m. */
static int all_loaded(const cl_loader_model *m, const char *names) {
  for (const char *s = names; s && *s;) {
    const char *end = strstr(s, ", ");
    size_t len = end ? (size_t)(end - s) : strlen(s);
    if (!windows_loaded(m, s, len))
      return 0;
    s = end ? end + 2 : NULL;
  }
  return 1;
}

/* A package's __init__ loads every DLL of its folder before anything of
 * the package runs (torch's torch\lib: the cuDNN shim, then its
 * sub-libraries): what one of them opens by name when it first needs it
 * is, by then, a module loaded under that name, which LoadLibrary gives
 * back. The lazy not-found findings from `first` on whose names are all
 * loaded now are no failure: dropped, and each object's lazy need of such
 * a name points at the module it gets. */
static void settle_init_opens(cudaload_explain *e, const cl_loader_model *m,
                              size_t first) {
  size_t kept = first;
  for (size_t k = first; k < e->finding_count; ++k) {
    cl_finding *f = &e->findings[k];
    if (f->kind == CL_FINDING_NOT_FOUND && f->lazy &&
        all_loaded(m, f->names ? f->names : f->name))
      cl_verdict_finding_free(f);
    else
      e->findings[kept++] = *f;
  }
  e->finding_count = kept;
  for (size_t i = 0; i < e->object_count; ++i) {
    cl_explain_object *o = &e->objects[i];
    for (size_t j = 0; j < o->need_count; ++j) {
      cl_explain_need *n = &o->needs[j];
      const char *path = n->lazy && !n->path
                             ? windows_loaded(m, n->name, strlen(n->name))
                             : NULL;
      if (path)
        n->path = cl_strdup(path); /* NULL when out of memory: not found */
    }
  }
}

/* How a Windows program opens the file at path (docs/loader.md, Windows
 * 14): cudaload_preload and CPython (an extension module, a package's
 * ctypes.CDLL) with CL_LOAD_BESIDE_ITSELF, in CPython's case in the
 * interpreter's process, after its package's __init__ (the DLLs it opens
 * first, modelled before it); anything else as the model's loads go. */
static int windows_open_flags(cudaload_explain *e, cudaload_ctx *ctx,
                              cl_loader_model *m, const char *path,
                              unsigned how, unsigned *flags, int *settle) {
  *flags = m->search_flags;
  *settle = 0;
  if (m->naming != CL_NAMING_WINDOWS)
    return CUDALOAD_OK;
  if (how & CL_VERDICT_PRELOAD) {
    *flags = CL_LOAD_BESIDE_ITSELF; /* as cl_os_loader_open loads */
    return CUDALOAD_OK;
  }
  cl_python_load py;
  int python = 0;
  int rc = cl_python_load_of(path, &py, &python);
  if (rc || !python)
    return rc;
  *flags = CL_LOAD_BESIDE_ITSELF;
  char **dlls = NULL;
  size_t count = 0;
  rc = cl_python_prepare_model(m, &py, &dlls, &count);
  for (size_t i = 0; !rc && i < count; ++i)
    rc = cl_verdict_open(e, ctx, m, dlls[i], how);
  *settle = py.init && py.init->loads_own_dlls;
  for (size_t i = 0; i < count; ++i)
    free(dlls[i]);
  free(dlls);
  cl_python_load_free(&py);
  return rc;
}

int cl_verdict_open(cudaload_explain *e, cudaload_ctx *ctx, cl_loader_model *m,
                    const char *path, unsigned how) {
  read_through(m, ctx);
  if (!e->ctx)
    e->ctx = ctx;
  int rc = CUDALOAD_OK;
  if (how & CL_VERDICT_PRELOAD)
    rc = expose_like_preload(m, path);
  unsigned flags = 0;
  int settle = 0;
  size_t first = e->finding_count;
  if (!rc)
    rc = windows_open_flags(e, ctx, m, path, how, &flags, &settle);
  if (rc)
    return rc;
  cl_verdict_lazy_context lc = {ctx, cl_ctx_naming(ctx), e};
  cl_load_tree t;
  memset(&t, 0, sizeof t);
  rc = cl_resolve_load_flags(
      m, path, flags, (how & CL_VERDICT_NO_LAZY) ? NULL : cl_verdict_lazy_names,
      &lc, &t);
  rc = finish_open(e, ctx, path, &t, how, rc);
  if (!rc && settle)
    settle_init_opens(e, m, first);
  return rc;
}

/* The names a plugin needs that nothing provides and cudaload does not
 * know, among the findings from `first` on, joined; NULL when none. */
static char *unknown_missing(const cudaload_explain *e, size_t first,
                             const char *plugin, cl_naming naming,
                             size_t *count) {
  cl_buf b = CL_BUF_INIT;
  *count = 0;
  for (size_t i = first; i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    cl_name_match match;
    if (f->kind != CL_FINDING_NOT_FOUND || f->lazy || !f->consumer ||
        !f->name || strcmp(f->consumer, plugin) != 0 ||
        cl_catalog_match(f->name, naming, &match))
      continue;
    cl_buf_printf(&b, "%s%s", *count ? ", " : "", f->name);
    ++*count;
  }
  return cl_buf_take(&b);
}

/* Whether another file of the program needs path (by its SONAME, else its
 * file name): then the program never opens it by path, it comes with that
 * file, found by that file's search list (ctranslate2's _ext RPATH to the
 * bundled libctranslate2-*.so, which has no RUNPATH of its own). */
static int needed_by_another(cudaload_ctx *ctx, const cl_program_set *set,
                             size_t i) {
  cl_file_cache *files = cl_file_cache_of(ctx);
  const cl_binary_info *mine = NULL;
  /* unreadable: opened, and said so */
  if (cl_file_cache_info_quiet(files, set->files[i], &mine) != CUDALOAD_OK)
    mine = NULL;
  const char *name =
      mine && mine->soname ? mine->soname : cl_path_basename(set->files[i]);
  int needed = 0;
  for (size_t k = 0; k < set->file_count && !needed; ++k) {
    const cl_binary_info *other = NULL;
    if (k == i ||
        cl_file_cache_info_quiet(files, set->files[k], &other) != CUDALOAD_OK)
      continue;
    for (size_t d = 0; d < other->needed_count && !needed; ++d)
      needed = strcmp(other->needed[d], name) == 0;
  }
  return needed;
}

int cl_verdict_open_program(cudaload_explain *e, cudaload_ctx *ctx,
                            cl_loader_model *m, const cl_program_set *set,
                            unsigned how) {
  int rc = CUDALOAD_OK;
  /* What its packages load themselves by path comes first (JAX's plugin
   * loads the NVIDIA wheels' libraries before its own): in the process,
   * by SONAME, when the program's files and those libraries open names.
   * Their own run-time opens come once all are loaded, at their first
   * use. */
  for (size_t i = 0; !rc && i < set->preload_count; ++i)
    rc = cl_verdict_open(e, ctx, m, set->preloads[i], how | CL_VERDICT_NO_LAZY);
  /* The files the program opens by path: those no other file of it needs.
   * When every file is needed by another (a cycle), each is opened. */
  size_t roots = 0;
  for (size_t i = 0; i < set->file_count; ++i)
    roots += !needed_by_another(ctx, set, i);
  for (size_t i = 0; !rc && i < set->file_count; ++i) {
    const char *path = set->files[i];
    if (roots && needed_by_another(ctx, set, i))
      continue;
    size_t first = e->finding_count;
    rc = cl_verdict_open(e, ctx, m, path, how);
    size_t count = 0;
    char *names =
        !rc && cl_program_plugin(set, path)
            ? unknown_missing(e, first, path, cl_ctx_naming(ctx), &count)
            : NULL;
    if (!count) {
      free(names);
      continue;
    }
    /* The plugin cannot load, and the program runs without it: one note
     * for what it would take, not each of its needs as a problem. */
    size_t kept = first;
    for (size_t k = first; k < e->finding_count; ++k) {
      if (e->findings[k].consumer && strcmp(e->findings[k].consumer, path) == 0)
        cl_verdict_finding_free(&e->findings[k]);
      else
        e->findings[kept++] = e->findings[k];
    }
    e->finding_count = kept;
    cl_problem p = cl_verdict_finding_record(CL_FINDING_PLUGIN_UNUSABLE, 0);
    cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, path);
    cl_verdict_fact(&p, CUDALOAD_FACT_NAME, names);
    cl_fix_add_note(&p.fix, CL_NOTE_PROVIDE_WHAT_THE_PLUGIN_NEEDS, names);
    cl_verdict_add(e, CL_FINDING_PLUGIN_UNUSABLE, 0, &p, path, NULL, NULL,
                   NULL);
    free(names);
  }
  for (size_t i = 0; !rc && i < set->preload_count; ++i)
    rc = cl_verdict_open_lazy_of(e, ctx, m, set->preloads[i], how);
  return rc;
}

int cl_verdict_expose_folder(cl_loader_model *m, const char *path) {
  return expose_like_preload(m, path);
}

int cl_verdict_assume_loaded(cudaload_explain *e, cl_loader_model *m,
                             const char *path, const char *soname,
                             unsigned how) {
  int rc = m && (how & CL_VERDICT_PRELOAD) ? expose_like_preload(m, path)
                                           : CUDALOAD_OK;
  if (!rc && m)
    rc = cl_loader_model_add_loaded(m, path, soname);
  if (!rc && (how & CL_VERDICT_GLOBAL)) {
    const cl_bind_object *b = cl_verdict_bind_object(e, path);
    if (!b || cl_reserve((void **)&e->global, &e->global_capacity,
                         e->global_count + 1, sizeof *e->global))
      return CUDALOAD_E_NO_MEMORY;
    e->global[e->global_count++] = b;
  }
  return rc;
}

int cl_verdict_open_by_name(cudaload_explain *e, cudaload_ctx *ctx,
                            cl_loader_model *m, const char *requester,
                            const char *name, unsigned how) {
  read_through(m, ctx);
  if (!e->ctx)
    e->ctx = ctx;
  /* The requester's headers as the context's file cache holds them: read
   * once for the plan, the verdict and every later open. */
  static const cl_binary_info none;
  const cl_binary_info *info = &none;
  if (requester) {
    /* unreadable: an open with no lists */
    if (cl_file_cache_info_quiet(cl_verdict_files(ctx), requester, &info) !=
        CUDALOAD_OK)
      info = &none;
  }
  cl_requester req = {requester, info, NULL};
  cl_verdict_lazy_context lc = {ctx, cl_ctx_naming(ctx), e};
  cl_load_tree t;
  memset(&t, 0, sizeof t);
  int rc = cl_resolve_open(
      m, requester ? &req : NULL, name,
      (how & CL_VERDICT_NO_LAZY) ? NULL : cl_verdict_lazy_names, &lc, &t);
  /* The open itself is the edge from the requester: its not-found names
   * the requester. */
  rc = finish_open(e, ctx, requester, &t, how, rc);
  return rc;
}

int cl_verdict_not_found_named(const cudaload_explain *e, const char *name,
                               cl_naming naming) {
  int windows = naming == CL_NAMING_WINDOWS;
  size_t n = strlen(name);
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    if (f->kind != CL_FINDING_NOT_FOUND)
      continue;
    if (f->name && (windows ? cl_ascii_equal_nocase(f->name, name)
                            : strcmp(f->name, name) == 0))
      return 1;
    /* f->names: "a, b, c", each name once. */
    for (const char *p = f->names; p && *p;) {
      size_t len = strcspn(p, ",");
      if (len == n &&
          (windows ? cl_same_nocase(p, name, n) : strncmp(p, name, n) == 0))
        return 1;
      p += len;
      p += strspn(p, ", ");
    }
  }
  return 0;
}

int cl_verdict_open_lazy_of(cudaload_explain *e, cudaload_ctx *ctx,
                            cl_loader_model *m, const char *path,
                            unsigned how) {
  read_through(m, ctx);
  const cl_binary_info *info = NULL;
  /* unreadable: it opens nothing we can tell */
  int unreadable = cl_file_cache_info_quiet(cl_verdict_files(ctx), path,
                                            &info) != CUDALOAD_OK;
  if (unreadable)
    return CUDALOAD_OK;
  cl_verdict_lazy_context lc = {ctx, cl_ctx_naming(ctx), e};
  size_t count = 0;
  char **names = cl_verdict_lazy_names(path, info, &count, &lc);
  int rc = CUDALOAD_OK;
  for (size_t n = 0; !rc && n < count; ++n)
    rc = cl_verdict_open_by_name(e, ctx, m, path, names[n],
                                 how | CL_VERDICT_LAZY);
  for (size_t n = 0; n < count; ++n)
    free(names[n]);
  free(names);
  return rc;
}

/* --- what is loaded before everything ------------------------------------ */

/* A loaded object whose path is `entry`, or whose SONAME or file name is. */
static size_t loaded_entry(const cl_loader_model *m, const char *entry) {
  for (size_t i = 0; i < m->loaded_count; ++i) {
    const cl_loaded_object *o = &m->loaded[i];
    if (strcmp(o->path, entry) == 0 ||
        (o->soname && strcmp(o->soname, entry) == 0) ||
        strcmp(cl_path_basename(o->path), entry) == 0)
      return i;
  }
  /* A path through a link (libnvJitLink.so.12 -> .so.12.1.105): the
   * same file. */
  cl_file_identity id;
  if (!strchr(entry, '/') || !cl_os_file_identity(entry, &id))
    return SIZE_MAX;
  for (size_t i = 0; i < m->loaded_count; ++i) {
    cl_file_identity other;
    if (cl_os_file_identity(m->loaded[i].path, &other) &&
        other.device == id.device && other.inode == id.inode)
      return i;
  }
  return SIZE_MAX;
}

/* Mark the objects recorded since `first` as put first by `by`. */
static void mark_put_first(cudaload_explain *e, size_t first, const char *by) {
  for (size_t i = first; i < e->object_count; ++i)
    if (!e->objects[i].put_first_by)
      e->objects[i].put_first_by = by;
}

static int preload_list(cudaload_explain *e, cudaload_ctx *ctx,
                        cl_loader_model *m, const char *list, int in_process,
                        const char *by) {
  int rc = CUDALOAD_OK;
  /* glibc splits LD_PRELOAD at spaces and colons, ld.so.preload at any
   * white space and colons. */
  const char *separators = " :\t\n\r";
  for (const char *p = list; p && *p && !rc;) {
    size_t n = strcspn(p, separators);
    char *entry = n ? cl_strndup(p, n) : NULL;
    if (n && !entry)
      return CUDALOAD_E_NO_MEMORY;
    size_t first = e->object_count;
    if (entry && in_process) {
      size_t k = loaded_entry(m, entry);
      if (k != SIZE_MAX) {
        const cl_loaded_object *o = &m->loaded[k];
        cl_verdict_object(e, ctx, o->path, o->soname, 0);
        rc =
            cl_verdict_assume_loaded(e, NULL, o->path, NULL, CL_VERDICT_GLOBAL);
      }
    } else if (entry) {
      rc =
          strchr(entry, '/')
              ? cl_verdict_open(e, ctx, m, entry,
                                CL_VERDICT_GLOBAL | CL_VERDICT_NO_LAZY)
              : cl_verdict_open_by_name(e, ctx, m, NULL, entry,
                                        CL_VERDICT_GLOBAL | CL_VERDICT_NO_LAZY);
    }
    mark_put_first(e, first, by);
    free(entry);
    p += n;
    p += strspn(p, separators);
  }
  return rc;
}

int cl_verdict_preloads(cudaload_explain *e, cudaload_ctx *ctx,
                        cl_loader_model *m, int in_process) {
  read_through(m, ctx);
  if (m->naming != CL_NAMING_LINUX)
    return CUDALOAD_OK;
  int rc = preload_list(e, ctx, m, m->secure ? NULL : m->ld_preload, in_process,
                        "LD_PRELOAD");
  if (!rc)
    rc = preload_list(e, ctx, m, m->system_preload, in_process,
                      "/etc/ld.so.preload");
  return rc;
}

/* --- a plan's verdict -------------------------------------------------- */

/* The object m has loaded under `name` (its SONAME, a name it was opened
 * by, or its file name), or SIZE_MAX. */
static size_t loaded_as(const cl_loader_model *m, const char *name) {
  int windows = m->naming == CL_NAMING_WINDOWS;
  for (size_t i = 0; name && i < m->loaded_count; ++i) {
    const cl_loaded_object *o = &m->loaded[i];
    const char *base = cl_path_basename(o->path);
    if (windows && cl_ascii_equal_nocase(base, name))
      return i;
    if (o->soname && (windows ? cl_ascii_equal_nocase(o->soname, name)
                              : strcmp(o->soname, name) == 0))
      return i;
    for (size_t k = 0; k < o->name_count; ++k)
      if (strcmp(o->names[k], name) == 0)
        return i;
  }
  return SIZE_MAX;
}

int cl_verdict_of_plan(cudaload_ctx *ctx, cl_loader_model *m, unsigned flags,
                       cudaload_explain **out) {
  *out = NULL;
  read_through(m, ctx);
  cudaload_explain *e = cl_verdict_new();
  if (!e)
    return CUDALOAD_E_NO_MEMORY;
  unsigned global = (flags & CUDALOAD_PRELOAD_GLOBAL) ? CL_VERDICT_GLOBAL : 0;
  /* This process: what LD_PRELOAD put first is in the global scope. */
  int rc = cl_verdict_preloads(e, ctx, m, 1);
  /* First what cudaload_preload does: each file of the plan opened by
   * absolute path, in plan order (their DT_NEEDED names resolved then);
   * a file left to its opener only has its folder exposed (Windows). */
  for (size_t i = 0; !rc && cl_plan_state_of(ctx)->planned &&
                     i < cl_plan_state_of(ctx)->plan_count;
       ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    if (p->state == CUDALOAD_STATE_FAILED)
      continue;
    /* cudaload_preload loads no second copy of a name the process has:
     * what needs it gets the copy already there (preload.c). */
    if (p->to_load && loaded_as(m, p->soname) != SIZE_MAX)
      continue;
    rc = p->to_load
             ? cl_verdict_open(e, ctx, m, p->path,
                               CL_VERDICT_PRELOAD | CL_VERDICT_NO_LAZY | global)
             : expose_like_preload(m, p->path);
  }
  /* Then the program's own files (cudaload_require_for), opened as it
   * opens them once the plan is in: what they need binds to what the
   * plan loaded, or to their own copies. */
  cl_program_set program = cl_program_set_of(ctx);
  if (!rc)
    rc = cl_verdict_open_program(e, ctx, m, &program,
                                 CL_VERDICT_CONSUMER | CL_VERDICT_NO_LAZY);
  /* Then what the libraries do later, at their first call: open by name
   * what they hold as text, each from inside the library. */
  for (size_t i = 0; !rc && cl_plan_state_of(ctx)->planned &&
                     i < cl_plan_state_of(ctx)->plan_count;
       ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    if (!p->to_load && p->entry->role != CL_ROLE_MAIN)
      continue;
    rc = cl_verdict_open_lazy_of(e, ctx, m, p->path, 0);
  }
  if (!rc)
    cl_verdict_mixes(e, 0, CL_AMONG_PROCESS);
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  *out = e;
  return CUDALOAD_OK;
}

/* --- the handle ---------------------------------------------------------- */

cudaload_explain *cl_verdict_new(void) {
  return calloc(1, sizeof(cudaload_explain));
}

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
      cl_explain_binding *b = &o->bindings[j];
      free(b->library);
      free(b->version);
      free(b->expected);
      free(b->provider);
      free(b->example);
      free(b->elsewhere_provider);
      free(b->undefined_example);
      for (size_t k = 0; k < b->each_count; ++k) {
        free(b->each_symbol[k]);
        free(b->each_provider[k]);
      }
      free(b->each_symbol);
      free(b->each_provider);
    }
    free(o->needs);
    free(o->bindings);
    free(o->path);
    free(o->version);
  }
  free(e->objects);
  for (size_t i = 0; i < e->finding_count; ++i)
    cl_verdict_finding_free(&e->findings[i]);
  free(e->findings);
  cl_verdict_symbol_cache_free(e->symbol_cache);
  cl_verdict_lazy_cache_free(e->lazy_cache);
  cl_verdict_real_paths_free(e->real_paths);
  free(e->global);
  free(e);
}
