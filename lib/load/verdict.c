/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - the loader model's verdict on files opened in a modelled
 * process (verdict.h): what the loader maps for each (resolve.c), where
 * their CUDA symbols bind (bind.c), and what goes wrong, as findings.
 * Nothing is loaded: the files are read, and the model answers. The
 * differential tests compare these answers with the real loader's
 * (docs/loader.md).
 */
#include "load/verdict.h"

#include "binary/binary_names.h"
#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/shell_word.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/fix_lines.h"
#include "load/python_loads.h"
#include "load/spec.h"
#include "os/platform.h"
#include "problem/problem_words.h"
#include "scan/catalog.h"
#include "scan/consumers.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- findings ------------------------------------------------------------ */

static char *dup_or_null(const char *s) {
  return s ? cl_strdup(s) : NULL;
}

const char *cl_finding_kind_name(cl_finding_kind kind) {
  static const char *const names[] = {NULL,
                                      "not-found",
                                      "undefined-symbols",
                                      "wrong-library",
                                      "sibling-shadowed",
                                      "binds-elsewhere",
                                      "two-versions",
                                      "cuda-majors",
                                      "empty-entry",
                                      "unreadable",
                                      "process",
                                      "plugin-unusable",
                                      "lookups-stopped"};
  return (size_t)kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

static void finding_free(cl_finding *f) {
  cl_problem_free(&f->problem);
  free(f->consumer);
  free(f->name);
  free(f->names);
  free(f->taken);
  free(f->better);
}

/* The problem kind of a finding's kind. */
static int problem_kind(cl_finding_kind kind, int lazy) {
  switch (kind) {
  case CL_FINDING_NOT_FOUND:
    return lazy ? CUDALOAD_PROBLEM_LAZY_NOT_FOUND : CUDALOAD_PROBLEM_NOT_FOUND;
  case CL_FINDING_UNDEFINED_SYMBOLS:
    return CUDALOAD_PROBLEM_SYMBOLS_MISSING;
  case CL_FINDING_WRONG_LIBRARY:
    return CUDALOAD_PROBLEM_WRONG_LIBRARY;
  case CL_FINDING_SIBLING_SHADOWED:
    return CUDALOAD_PROBLEM_SHADOWED;
  case CL_FINDING_BINDS_ELSEWHERE:
    return CUDALOAD_PROBLEM_BINDS_ELSEWHERE;
  case CL_FINDING_TWO_VERSIONS:
    return CUDALOAD_PROBLEM_TWO_VERSIONS;
  case CL_FINDING_CUDA_MAJORS:
    return CUDALOAD_PROBLEM_CUDA_MAJORS;
  case CL_FINDING_EMPTY_ENTRY:
    return CUDALOAD_PROBLEM_EMPTY_ENTRY;
  case CL_FINDING_UNREADABLE:
    return CUDALOAD_PROBLEM_UNREADABLE;
  case CL_FINDING_PROCESS:
    return CUDALOAD_PROBLEM_IN_PROCESS;
  case CL_FINDING_PLUGIN_UNUSABLE:
    return CUDALOAD_PROBLEM_PLUGIN_UNUSABLE;
  default: /* CL_FINDING_STOPPED */
    return CUDALOAD_PROBLEM_STOPPED;
  }
}

/* A finding's problem record: the kind of finding kind, its facts added by
 * the caller (fact(), below). */
static cl_problem finding_record(cl_finding_kind kind, int lazy) {
  cl_problem p;
  cl_problem_init(&p, problem_kind(kind, lazy));
  return p;
}

/* A fact of a finding: what the model found on this machine. */
static void fact(cl_problem *p, int which, const char *value) {
  cl_problem_fact(NULL, p, which, CUDALOAD_FROM_MACHINE, value);
}

static void fact_int(cl_problem *p, int which, long value) {
  cl_problem_factf(NULL, p, which, CUDALOAD_FROM_MACHINE, "%ld", value);
}

/* Whose loader's rules the model applied. */
static const char *platform_of(cl_naming naming) {
  return naming == CL_NAMING_WINDOWS ? "windows" : "linux";
}

/* The shell a finding's fix is written for: the loader's platform's. */
static cl_shell_kind shell_of(const cudaload_explain *e) {
  return e->ctx && cl_ctx_naming(e->ctx) == CL_NAMING_WINDOWS
             ? CL_SHELL_CMD_AND_POWERSHELL
             : CL_SHELL_POSIX;
}

int cl_verdict_reword(cudaload_explain *e, cl_finding *f) {
  if (cl_problem_words(&f->problem, shell_of(e)) != CUDALOAD_OK) {
    e->failed = 1;
    return CUDALOAD_E_NO_MEMORY;
  }
  f->text = f->problem.text;
  f->fix = f->problem.fix.count ? f->problem.fix_text : NULL;
  return CUDALOAD_OK;
}

cl_finding *cl_verdict_add(cudaload_explain *e, cl_finding_kind kind, int lazy,
                           cl_problem *problem, const char *consumer,
                           const char *name, const char *taken,
                           const char *better) {
  cl_finding made;
  memset(&made, 0, sizeof made);
  made.kind = kind;
  made.lazy = lazy;
  made.problem = *problem;
  memset(problem, 0, sizeof *problem);
  if (cl_verdict_reword(e, &made) != CUDALOAD_OK) {
    finding_free(&made);
    return NULL;
  }
  made.note = made.problem.note; /* the caller's, or its kind's */
  for (size_t i = 0; i < e->finding_count; ++i)
    if (strcmp(e->findings[i].text, made.text) == 0) {
      finding_free(&made);
      return NULL;
    }
  made.consumer = dup_or_null(consumer);
  made.name = dup_or_null(name);
  made.taken = dup_or_null(taken);
  made.better = dup_or_null(better);
  if ((consumer && !made.consumer) || (name && !made.name) ||
      (taken && !made.taken) || (better && !made.better) ||
      cl_reserve((void **)&e->findings, &e->finding_capacity,
                 e->finding_count + 1, sizeof *e->findings)) {
    finding_free(&made);
    e->failed = 1;
    return NULL;
  }
  e->findings[e->finding_count] = made;
  return &e->findings[e->finding_count++];
}

/* --- versions ------------------------------------------------------------ */

/* The catalog entry a file is (by its SONAME first: a renamed copy such
 * as ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7 keeps libcudnn.so.8). */
static int catalog_of(const char *path, const char *soname, cl_naming naming,
                      cl_name_match *m) {
  if (soname && soname[0] && cl_catalog_match_renamed(soname, naming, m))
    return 1;
  return cl_catalog_match_renamed(cl_path_basename(path), naming, m);
}

/* The scan's version of the file real in c's inventory: 1 when c has it.
 * defer (NULL: read now): where a wheel's version is left unread, with
 * its CUDA major told by its files (*version stays NULL). */
static int inventory_version(cudaload_ctx *c, const char *real, char **version,
                             int *cuda_major, cl_explain_object *defer) {
  cl_library *lib = cl_inventory_library_at(c, real);
  if (!lib)
    return 0;
  if (lib->pending_folder && defer) {
    int cuda = cl_verdict_library_cuda_major(c, lib);
    if (lib->pending_folder) {
      if (cuda)
        *cuda_major = cuda;
      defer->version_pending = lib;
      defer->version_ctx = c;
      return 1;
    }
  }
  cl_library_settle_version(c, lib);
  if (lib->cuda_major)
    *cuda_major = lib->cuda_major;
  *version = lib->version[0] ? cl_strdup(lib->version) : NULL;
  return 1;
}

/* The ctx that scanned the file's folder as its only root (as --root would),
 * made on first use: a file the loader takes from outside the roots
 * (LD_LIBRARY_PATH, another copy's RUNPATH) gets its version the way the
 * scan tells it (dist-info, headers, VERSIONINFO), so that two versions of
 * one family are seen as two. NULL when none can be made. */
cudaload_ctx *cl_verdict_folder_scan(cudaload_explain *e, cudaload_ctx *ctx,
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
  if (!found && e->folder_scan_count < CL_VERDICT_FOLDER_SCANS &&
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
/* The real paths a verdict asked for, by the path asked about. */
typedef struct real_path_memo {
  char **paths, **reals; /* reals[i] NULL: paths[i] does not resolve */
  size_t count, capacity, reals_capacity;
  cl_str_index by_path;
} real_path_memo;

static void real_path_memo_free(real_path_memo *memo) {
  if (!memo)
    return;
  cl_str_index_free(&memo->by_path);
  for (size_t i = 0; i < memo->count; ++i) {
    free(memo->paths[i]);
    free(memo->reals[i]);
  }
  free(memo->paths);
  free(memo->reals);
  free(memo);
}

/* cl_os_real_path(path), asked of the file system once per verdict
 * (malloc'ed, NULL when it does not resolve; the last error is then the
 * OS's only the first time, which version_of does not keep anyway). */
static char *real_path_once(cudaload_explain *e, const char *path) {
  real_path_memo *memo = e ? e->real_paths : NULL;
  if (e && !memo) {
    memo = e->real_paths = calloc(1, sizeof *memo);
    if (memo)
      cl_str_index_init(&memo->by_path, 0);
  }
  size_t at;
  if (memo && cl_str_index_find(&memo->by_path, path, &at))
    return memo->reals[at] ? cl_strdup(memo->reals[at]) : NULL;
  char *real = cl_os_real_path(path);
  char *key = memo ? cl_strdup(path) : NULL;
  char *kept = real ? cl_strdup(real) : NULL;
  if (key && (kept || !real) &&
      !cl_reserve((void **)&memo->paths, &memo->capacity, memo->count + 1,
                  sizeof *memo->paths) &&
      !cl_reserve((void **)&memo->reals, &memo->reals_capacity, memo->count + 1,
                  sizeof *memo->reals) &&
      !cl_str_index_add(&memo->by_path, key, memo->count)) {
    memo->paths[memo->count] = key;
    memo->reals[memo->count++] = kept;
  } else { /* not remembered: asked again next time */
    free(key);
    free(kept);
  }
  return real;
}

/* defer: as inventory_version's (NULL: read now). */
static char *version_of(cudaload_explain *e, cudaload_ctx *ctx,
                        const char *path, const cl_name_match *m,
                        int *cuda_major, cl_explain_object *defer) {
  *cuda_major = m ? m->cuda_major : 0;
  /* A path that does not resolve, a file whose version cannot be read:
   * answers (the name's version, or none), not failures. */
  char *kept = cl_save_error();
  char *real = real_path_once(e, path);
  char *version = NULL;
  int known = 0;
  if (real && ctx)
    known = inventory_version(ctx, real, &version, cuda_major, defer);
  if (real && ctx && !known) {
    cudaload_ctx *c = cl_verdict_folder_scan(e, ctx, real);
    known = c && inventory_version(c, real, &version, cuda_major, defer);
  }
  free(real);
  cl_restore_error(kept);
  if (known)
    return version;
  return m && m->name_version[0] ? cl_strdup(m->name_version) : NULL;
}

char *cl_verdict_version_of(cudaload_explain *e, cudaload_ctx *ctx,
                            const char *path, int *cuda_major) {
  cl_name_match m;
  int named = catalog_of(path, NULL, cl_ctx_naming(ctx), &m);
  return version_of(e, ctx, path, named ? &m : NULL, cuda_major, NULL);
}

/* --- what CUDA libraries open by name ------------------------------------ */

typedef struct lazy_context {
  cudaload_ctx *ctx;
  cl_naming naming;
  cudaload_explain *e; /* its lazy_cache */
} lazy_context;

/* The run-time names of one file, as lazy_names found them. */
typedef struct lazy_entry {
  char *path;
  char **names;
  size_t count;
} lazy_entry;

typedef struct lazy_cache {
  lazy_entry *entries;
  size_t count, capacity;
} lazy_cache;

static void lazy_cache_free(lazy_cache *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->count; ++i) {
    for (size_t k = 0; k < c->entries[i].count; ++k)
      free(c->entries[i].names[k]);
    free(c->entries[i].names);
    free(c->entries[i].path);
  }
  free(c->entries);
  free(c);
}

/* A copy of a cached list of names (the resolver frees what it gets). */
static char **copy_names(char *const *names, size_t count) {
  char **copy = count ? calloc(count, sizeof *copy) : NULL;
  for (size_t i = 0; copy && i < count; ++i)
    if (!(copy[i] = cl_strdup(names[i]))) {
      for (size_t k = 0; k < i; ++k)
        free(copy[k]);
      free(copy);
      return NULL;
    }
  return copy;
}

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
      cl_catalog_is_driver(m.entry) ||
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

/* The package of a known consumer (consumers.h: ctranslate2's library,
 * which opens libcublas.so.12 at its first cuBLAS call), or NULL. */
static const char *consumer_package(const char *path, cl_naming naming) {
  char *folder = cl_path_dirname(path);
  const char *package =
      folder ? cl_consumer_package_of(cl_path_basename(folder),
                                      cl_path_basename(path), naming)
             : NULL;
  free(folder);
  return package;
}

/* What a known consumer opens by name: the file names of the families its
 * release opens, of the CUDA major it is built for. */
static char **consumer_names(const char *path, size_t *count,
                             cl_naming naming) {
  *count = 0;
  /* Reached through a search list, the path may run through ".."
   * (TensorFlow's modules' $ORIGIN/../libtensorflow_framework.so.2): its
   * package folder is the real path's. */
  char *real = NULL;
  const char *package = consumer_package(path, naming);
  if (!package) {
    char *kept = cl_save_error(); /* no real path: no package */
    real = cl_os_real_path(path);
    cl_restore_error(kept);
    package = real ? consumer_package(real, naming) : NULL;
  }
  if (!package) {
    free(real);
    return NULL;
  }
  char version[32] = "";
  cl_consumer_version_of(real ? real : path, package, version, sizeof version);
  free(real);
  char **names = NULL;
  size_t capacity = 0;
  const cl_known_consumer *c;
  for (size_t k = 0; (c = cl_consumer_need(package, version, naming, k)); ++k) {
    /* What it opens only for a feature is not a load its use makes. */
    if (c->feature)
      continue;
    size_t n;
    const cl_catalog_entry *all = cl_catalog_entries(&n);
    for (size_t e = 0; e < n; ++e) {
      const cl_catalog_entry *entry = &all[e];
      if (entry->role != CL_ROLE_MAIN || strcmp(entry->family, c->family))
        continue;
      for (int major = entry->min_major; major <= entry->max_major; ++major)
        if (c->library_major
                ? major == c->library_major
                : cl_catalog_cuda_major(entry, major) == c->cuda_major) {
          char number[16], file[160];
          snprintf(number, sizeof number, "%d", major);
          cl_catalog_file_name(entry, naming, number, file, sizeof file);
          if (push_name(&names, count, &capacity, file) != CUDALOAD_OK) {
            for (size_t i = 0; i < *count; ++i)
              free(names[i]);
            free(names);
            *count = 0;
            return NULL;
          }
        }
    }
  }
  return names;
}

/* Whether a reference goes to a CUDA library: its version's file is a
 * catalog name, or (unversioned) its name has a CUDA library's prefix. */
static int cuda_reference(const cl_symbol_ref *r, cl_naming naming) {
  cl_name_match m;
  if (r->file)
    return cl_catalog_match(r->file, naming, &m);
  return cl_catalog_family_of_symbol(r->name) != NULL;
}

/* The reference filter of a context's file cache (file_cache.h): a
 * consumer's references to CUDA libraries are what binding asks of it. */
static int keep_cuda_reference(const char *name, const char *file,
                               void *opaque) {
  cl_symbol_ref r;
  memset(&r, 0, sizeof r);
  r.name = (char *)name;
  r.file = (char *)file;
  return cuda_reference(&r, (cl_naming)(uintptr_t)opaque);
}

/* The number the names store knows the filter by: it changes with the
 * catalog's file names and symbol prefixes (what cuda_reference keeps) and
 * the naming. Bump
 * FILTER_RULES when cuda_reference's rules change. */
#define FILTER_RULES 1u
static uint32_t cuda_reference_filter_id(cl_naming naming) {
  uint32_t h = 2166136261u ^ FILTER_RULES;
  size_t n;
  const cl_catalog_entry *all = cl_catalog_entries(&n);
  for (size_t e = 0; e < n; ++e) {
    const char *const *names = all[e].linux_names;
    for (int w = 0; w < 2; ++w, names = all[e].windows_names)
      for (size_t k = 0; k < 3 && names[k]; ++k)
        for (const char *c = names[k]; *c; ++c)
          h = (h ^ (unsigned char)*c) * 16777619u;
    h = (h ^ (uint32_t)all[e].min_major) * 16777619u;
    h = (h ^ (uint32_t)all[e].max_major) * 16777619u;
  }
  size_t families;
  const cl_catalog_family *rows = cl_catalog_families(&families);
  for (size_t f = 0; f < families; ++f)
    for (size_t k = 0; k < 2 && rows[f].symbol_prefixes[k]; ++k) {
      for (const char *c = rows[f].symbol_prefixes[k]; *c; ++c)
        h = (h ^ (unsigned char)*c) * 16777619u;
      h = (h ^ 0xffu) * 16777619u;
    }
  return (h ^ (uint32_t)naming) * 16777619u;
}

cl_file_cache *cl_verdict_files(cudaload_ctx *ctx) {
  cl_file_cache *files = ctx ? cl_file_cache_of(ctx) : NULL;
  if (files) {
    cl_naming naming = cl_ctx_naming(ctx);
    cl_file_cache_set_reference_filter(files, keep_cuda_reference,
                                       (void *)(uintptr_t)naming,
                                       cuda_reference_filter_id(naming));
  }
  return files;
}

/* The CUDA libraries a CUDA library opens by name when it needs them: the
 * names its file holds as text (binary_names.c), each checked against the
 * catalog. cuDNN's shim opens its sub-libraries this way, the
 * sub-libraries cuBLASLt and NVRTC (docs/real-libraries.md). */
static char **scan_lazy_names(const char *path, const cl_binary_info *info,
                              size_t *count, const lazy_context *lc) {
  *count = 0;
  cl_name_match m;
  if (!catalog_of(path, info ? info->soname : NULL, lc->naming, &m))
    return consumer_names(path, count, lc->naming);
  if (cl_catalog_is_driver(m.entry))
    return NULL;
  name_scan ns = {&m, info, lc->naming, NULL, 0, 0, 0};
  cl_file_cache *cache = cl_verdict_files(lc->ctx);
  char *kept = cl_save_error();
  /* A file that imports no loader function opens nothing by name: its
   * symbols (read once, for the bindings too) spare reading its text. A
   * file whose symbols cannot be read is searched. */
  const cl_binary_symbols *symbols = NULL;
  if (cache && cl_file_cache_references(cache, path, &symbols) == CUDALOAD_OK &&
      !cl_binary_symbols_open_by_name(symbols)) {
    cl_restore_error(kept);
    return NULL;
  }
  /* The largest CUDA library (cuBLASLt) is about 550 MB. A file whose
   * names cannot be read opens nothing lazily that we can tell. */
  int unread =
      cl_file_cache_names(cache, path, (uint64_t)2 << 30, collect_name, &ns);
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

char **cl_verdict_lazy_names_of(cudaload_ctx *ctx, const char *path,
                                const cl_binary_info *info, size_t *count) {
  lazy_context lc = {ctx, cl_ctx_naming(ctx), NULL};
  return scan_lazy_names(path, info, count, &lc);
}

/* lazy_names with each file scanned once per verdict: a file is met in
 * every tree that reaches it. */
static char **lazy_names(const char *path, const cl_binary_info *info,
                         size_t *count, void *opaque) {
  const lazy_context *lc = opaque;
  lazy_cache *c = lc->e ? lc->e->lazy_cache : NULL;
  if (lc->e && !c)
    c = lc->e->lazy_cache = calloc(1, sizeof *c);
  for (size_t i = 0; c && i < c->count; ++i)
    if (strcmp(c->entries[i].path, path) == 0) {
      *count = c->entries[i].count;
      char **copy = copy_names(c->entries[i].names, *count);
      if (!copy)
        *count = 0;
      return copy;
    }
  char **names = scan_lazy_names(path, info, count, lc);
  char *key = c ? cl_strdup(path) : NULL;
  char **kept = key ? copy_names(names, *count) : NULL;
  if (key && (kept || !*count) &&
      !cl_reserve((void **)&c->entries, &c->capacity, c->count + 1,
                  sizeof *c->entries)) {
    c->entries[c->count++] = (lazy_entry){key, kept, *count};
  } else {
    free(key);
    for (size_t k = 0; kept && k < *count; ++k)
      free(kept[k]);
    free(kept);
  }
  return names;
}

/* --- a library's CUDA major without listing site-packages --------------- */

/* The CUDA major a file's headers tell (what it needs, the wheel folders
 * its search list names), read through the run's file cache: the plan
 * reads the same headers again when it models the loader. */
static int cuda_major_of_headers(cudaload_ctx *ctx, const char *path) {
  cl_file_cache *cache = cl_file_cache_of(ctx);
  const cl_binary_info *info = NULL;
  if (!cache)
    return 0;
  char *kept = cl_save_error();
  int cuda = cl_file_cache_info(cache, path, &info) == CUDALOAD_OK
                 ? cl_binary_info_cuda_major(info, cl_ctx_naming(ctx))
                 : 0;
  cl_restore_error(kept);
  return cuda;
}

/* The CUDA major of the libraries a file opens by name at run time
 * (cuDNN 8's ops_infer holds libcublas.so.12 and opens it at its first
 * call), read as the loader model reads them (verdict.c), through the same
 * cache; 0 when they tell nothing. */
static int cuda_major_of_opens(cudaload_ctx *ctx, const char *path) {
  cl_file_cache *cache = cl_file_cache_of(ctx);
  const cl_binary_info *info = NULL;
  if (!cache)
    return 0;
  char *kept = cl_save_error();
  if (cl_file_cache_info(cache, path, &info) != CUDALOAD_OK) {
    cl_restore_error(kept);
    return 0;
  }
  size_t count = 0;
  char **names = cl_verdict_lazy_names_of(ctx, path, info, &count);
  cl_restore_error(kept);
  int cuda = 0;
  for (size_t k = 0; k < count; ++k) {
    cl_name_match m;
    if (!cuda && cl_catalog_match(names[k], cl_ctx_naming(ctx), &m))
      cuda = m.cuda_major;
    free(names[k]);
  }
  free(names);
  return cuda;
}

/* Whether other is a file of lib's family and major in lib's folder (the
 * inventory lists them all): one build, one CUDA major. folder: lib's. */
static int same_build(const cl_library *lib, const char *folder,
                      const cl_library *other) {
  if (other->entry == NULL ||
      strcmp(other->entry->family, lib->entry->family) ||
      other->major != lib->major)
    return 0;
  const char *base = cl_path_basename(other->path);
  size_t length = (size_t)(base - other->path);
  while (length > 0 &&
         (other->path[length - 1] == '/' || other->path[length - 1] == '\\'))
    --length;
  return strlen(folder) == length && strncmp(folder, other->path, length) == 0;
}

/* What a file tells of its own CUDA major without I/O (the version in its
 * name: cuSPARSE 12.6 is CUDA 13's), else by its headers; 0: nothing. */
static int own_cuda_major(cudaload_ctx *ctx, const cl_library *lib) {
  int cuda = cl_catalog_cuda_major_of_version(lib->entry, lib->major,
                                              lib->pending_match.name_version);
  return cuda ? cuda : cuda_major_of_headers(ctx, lib->path);
}

int cl_verdict_library_cuda_major(cudaload_ctx *ctx, cl_library *lib) {
  if (!lib->pending_folder || lib->cuda_major)
    return lib->cuda_major;
  int cuda = own_cuda_major(ctx, lib);
  if (cuda) {
    cl_library_note_cuda_major(lib, cuda);
    return lib->cuda_major;
  }
  char *folder = cl_path_dirname(lib->path);
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (int pass = 0; folder && pass < 2 && !cuda; ++pass)
    for (size_t i = 0; i < inv->library_count && !cuda; ++i) {
      const cl_library *other = &inv->libraries[i];
      if (!same_build(lib, folder, other))
        continue;
      if (pass == 0 && other != lib)
        cuda = cuda_major_of_headers(ctx, other->path);
      /* Only a file the catalog says opens CUDA libraries by name has
       * its text read: the loader model reads just those too. */
      else if (pass == 1 && other->entry->lazy_opens[0])
        cuda = cuda_major_of_opens(ctx, other->path);
    }
  /* The build told: each of its files would hear the same when asked
   * (unless it tells its own), so they are answered now, each file's
   * headers read once instead of the build's once per file. */
  for (size_t i = 0; cuda && i < inv->library_count; ++i) {
    cl_library *other = &inv->libraries[i];
    if (other != lib && other->pending_folder && !other->cuda_major &&
        same_build(lib, folder, other)) {
      int own = own_cuda_major(ctx, other);
      cl_library_note_cuda_major(other, own ? own : cuda);
    }
  }
  free(folder);
  if (cuda) {
    cl_library_note_cuda_major(lib, cuda);
    return lib->cuda_major;
  }
  cl_library_settle_version(ctx, lib);
  return lib->cuda_major;
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
  if (catalog_of(path, soname, cl_ctx_naming(ctx), &m)) {
    o->family = m.entry->family;
    o->name = m.entry->name;
    o->major = m.major;
    o->version = version_of(e, ctx, path, &m, &o->cuda_major,
                            e->defer_wheel_versions ? o : NULL);
  }
  e->object_count++;
  return o;
}

void cl_verdict_settle_version(cl_explain_object *o) {
  cl_library *lib = o->version_pending;
  if (!lib)
    return;
  cl_library_settle_version(o->version_ctx, lib);
  o->version_pending = NULL;
  o->version_ctx = NULL;
  if (lib->cuda_major)
    o->cuda_major = lib->cuda_major;
  o->version = lib->version[0] ? cl_strdup(lib->version) : NULL;
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
    if (catalog_of(path, soname, cl_ctx_naming(ctx), &m))
      n->version = version_of(e, ctx, path, &m, &cuda,
                              e->defer_wheel_versions ? &unread : NULL);
  }
  if (!n->name)
    e->failed = 1;
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

static const cl_bind_object *cached_object(cudaload_explain *e,
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
  char *kept = cl_save_error();
  cl_file_cache *files = cl_verdict_files(e->ctx);
  if (files) {
    /* Its references to CUDA libraries; its definitions are asked by name
     * (cl_bind_object.files). */
    if (cl_file_cache_references(files, path, &entry->symbols) != CUDALOAD_OK)
      entry->symbols = NULL;
  } else if (cl_binary_read_symbols_file(path, &entry->own) == CUDALOAD_OK) {
    entry->symbols = &entry->own;
  }
  cl_restore_error(kept);
  entry->object.path = entry->path;
  entry->object.symbols =
      entry->symbols && entry->symbols->format ? entry->symbols : NULL;
  entry->object.files = files;
  c->entries[c->count++] = entry;
  return &entry->object;
}

static void symbol_cache_free(symbol_cache *c) {
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

/* What the author linked against for ref: the index in local (k's own
 * scope) of the file that provides it (the first that defines it), or
 * SIZE_MAX. */
static size_t expected_provider(const cl_bind_object *const *local,
                                size_t n_local, const cl_bind_object *self,
                                const cl_symbol_ref *ref) {
  for (size_t i = 0; i < n_local; ++i)
    if (local[i] != self && local[i]->symbols &&
        cl_bind_object_match(local[i], ref->name, ref->version) >= 0)
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
reference_provider(cudaload_explain *e, const cl_load_tree *t, size_t k,
                   const cl_bind_object *const *order, size_t n_order,
                   const cl_symbol_ref *ref) {
  if (t->objects[k].info.format == CL_FORMAT_PE) {
    size_t to = ref->file ? pe_import_target(t, k, ref->file) : SIZE_MAX;
    if (to >= t->object_count)
      return NULL;
    const cl_bind_object *b = cached_object(e, t->objects[to].path);
    return b && b->symbols && cl_bind_object_match(b, ref->name, NULL) >= 0
               ? b
               : NULL;
  }
  long def;
  size_t got = cl_bind_lookup(order, n_order, ref->name, ref->version, &def);
  return got != SIZE_MAX ? order[got] : NULL;
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
    if (!catalog_of(o->path, o->info.soname, naming, &m))
      continue;
    if (cl_starts_with_nocase(symbol, m.entry->family) &&
        strlen(m.entry->family) >= 4)
      return o->info.soname && o->info.soname[0] ? o->info.soname
                                                 : cl_path_basename(o->path);
  }
  return NULL;
}

static void object_bindings(cudaload_explain *e, cl_explain_object *o,
                            const cl_load_tree *t, size_t k, cl_naming naming,
                            int symbols) {
  const cl_bind_object *self = cached_object(e, t->objects[k].path);
  if (!self || !self->symbols)
    return;
  size_t *scope = malloc(t->object_count * sizeof *scope);
  const cl_bind_object **local = malloc((t->object_count + 1) * sizeof *local);
  const cl_bind_object **order =
      malloc((t->object_count + e->global_count + 2) * sizeof *order);
  if (!scope || !local || !order) {
    e->failed = 1;
    goto done;
  }
  size_t local_count = local_scope(t, group_root(t, k), scope);
  /* k searches its group's scope, which starts at the group's root. */
  size_t n_local = 0;
  for (size_t i = 0; i < local_count; ++i) {
    const cl_bind_object *b = cached_object(e, t->objects[scope[i]].path);
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
    char *kept = cl_save_error();
    if (cl_file_cache_symbols(self->files, self->path, &whole) == CUDALOAD_OK)
      s = whole;
    cl_restore_error(kept);
  }
  for (size_t r = 0; r < s->ref_count; ++r) {
    const cl_symbol_ref *ref = &s->refs[r];
    /* CUDA's references only, unless every one was asked for (the
     * differential tests compare each with the loader's). */
    if (!symbols && !cuda_reference(ref, naming))
      continue;
    const cl_bind_object *got =
        reference_provider(e, t, k, order, n_order, ref);
    size_t want = expected_provider(local, n_local, self, ref);
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

/* --- findings of a tree ------------------------------------------------- */

/* The file of t that a consumer's references to `library` go to (the
 * object its need of that name resolved to), or NULL. */
static const cl_load_object *need_target(const cl_load_tree *t, size_t k,
                                         const char *library, int windows) {
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    if (edge->from != k || edge->to >= t->object_count)
      continue;
    if (windows ? cl_ascii_equal_nocase(edge->name, library)
                : strcmp(edge->name, library) == 0)
      return &t->objects[edge->to];
    /* A versioned reference names the SONAME, which a renamed file
     * keeps. */
    const char *soname = t->objects[edge->to].info.soname;
    if (soname && strcmp(soname, library) == 0)
      return &t->objects[edge->to];
  }
  return NULL;
}

/* How the loader came to a file: the edge of t that resolved to it. */
static const cl_load_edge *edge_to(const cl_load_tree *t,
                                   const cl_load_object *o) {
  for (size_t i = 0; i < t->edge_count; ++i)
    if (t->edges[i].to < t->object_count && &t->objects[t->edges[i].to] == o)
      return &t->edges[i];
  return NULL;
}

/* Whether a file defines every reference of group b (the consumer's
 * references of that library and version). */
static int defines_all(cudaload_explain *e, const char *path,
                       const cl_bind_object *consumer,
                       const cl_explain_binding *b, int windows) {
  const cl_bind_object *candidate = cached_object(e, path);
  if (!candidate || !candidate->symbols || !consumer || !consumer->symbols)
    return 0;
  const cl_binary_symbols *s = consumer->symbols;
  for (size_t r = 0; r < s->ref_count; ++r) {
    const cl_symbol_ref *ref = &s->refs[r];
    if (ref->weak || !ref->file ||
        (windows ? !cl_ascii_equal_nocase(ref->file, b->library)
                 : strcmp(ref->file, b->library) != 0))
      continue;
    if ((ref->version && b->version && strcmp(ref->version, b->version)) ||
        (!ref->version) != (!b->version))
      continue;
    if (cl_bind_object_match(candidate, ref->name,
                             windows ? NULL : ref->version) < 0)
      return 0;
  }
  return 1;
}

/* A file of the inventory, of the same library and major as `taken`, that
 * defines every symbol of group b: where the consumer would find them. */
static const char *inventory_provider(cudaload_explain *e, cudaload_ctx *ctx,
                                      const char *taken, int taken_cuda,
                                      const cl_bind_object *consumer,
                                      const cl_explain_binding *b) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_name_match want;
  if (!ctx || !catalog_of(taken, NULL, naming, &want))
    return NULL;
  char *kept = cl_save_error();
  char *real = cl_os_real_path(taken);
  cl_restore_error(kept);
  const char *found = NULL;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !found; ++i) {
    cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    if (lib->entry != want.entry || lib->major != want.major ||
        (real && strcmp(real, lib->path) == 0))
      continue;
    /* A file of another CUDA major would trade one failure for another. */
    cl_library_settle_version(ctx, lib);
    if (taken_cuda && lib->cuda_major && lib->cuda_major != taken_cuda)
      continue;
    if (defines_all(e, lib->path, consumer, b, naming == CL_NAMING_WINDOWS))
      found = lib->path;
  }
  free(real);
  return found;
}

/* The fix for a file taken from LD_LIBRARY_PATH that lacks symbols: drop
 * its folder, or have cudaload load the one that has them. */
/* What put the object at path first in the process explained
 * ("LD_PRELOAD", "/etc/ld.so.preload"), or NULL. */
static const char *put_first_by(const cudaload_explain *e, const char *path) {
  for (size_t i = 0; i < e->object_count; ++i)
    if (e->objects[i].path && strcmp(e->objects[i].path, path) == 0)
      return e->objects[i].put_first_by;
  return NULL;
}

/* The fix for a file taken that lacks symbols when no file at hand defines
 * them: install a newer release of its major (its wheel, where one ships
 * it), or put the folder of one first. */
static void newer_library_steps(cudaload_ctx *ctx, const char *file,
                                const char *soname, int cuda, cl_fix *fix) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_name_match m;
  if (!catalog_of(file, soname, naming, &m)) {
    cl_fix_add_note(fix,
                    "install the release of %s its consumer was built "
                    "against, or a newer one",
                    cl_path_basename(file));
    return;
  }
  if (!cuda)
    cuda =
        m.cuda_major ? m.cuda_major : cl_catalog_cuda_major(m.entry, m.major);
  const char *package =
      cuda ? cl_fix_package(m.entry->family, cuda, naming) : NULL;
  if (!package) {
    cl_fix_add_note(fix,
                    "install a newer %s %d, or put the folder of one first",
                    m.entry->family, m.major);
    return;
  }
  cl_fix_add_note(fix, "install a newer %s %d:", m.entry->family, m.major);
  cl_fix_step *install = cl_fix_add(fix, CUDALOAD_FIX_INSTALL);
  static const char *const words[] = {"-m", "pip", "install", "-U"};
  cl_fix_arg(fix, install, naming == CL_NAMING_WINDOWS ? "py" : "python3");
  for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
    cl_fix_arg(fix, install, words[k]);
  cl_fix_arg(fix, install, package);
  cl_fix_add_note(fix, "or put the folder of one first");
}

/* Each group of references the file the loader takes does not define: the
 * load fails (ELF: "undefined symbol: X, version V", at load with RTLD_NOW
 * or at the first call; PE: error 127 at load). */
static void undefined_findings(cudaload_explain *e, cudaload_ctx *ctx,
                               const cl_explain_object *o,
                               const cl_load_tree *t, size_t k, int lazy) {
  int windows = t->objects[k].info.format == CL_FORMAT_PE;
  for (size_t i = 0; i < o->binding_count; ++i) {
    const cl_explain_binding *b = &o->bindings[i];
    if (!b->undefined)
      continue;
    const cl_load_object *taken = need_target(t, k, b->library, windows);
    if (!taken)
      continue; /* the file is not found at all: that finding says it */
    const cl_load_edge *how = edge_to(t, taken);
    char *version = NULL;
    int cuda = 0;
    cl_name_match m;
    if (catalog_of(taken->path, taken->info.soname, cl_ctx_naming(ctx), &m))
      version = version_of(e, ctx, taken->path, &m, &cuda, NULL);
    const char *better = inventory_provider(
        e, ctx, taken->path, cuda, cached_object(e, t->objects[k].path), b);
    cl_problem p = finding_record(CL_FINDING_UNDEFINED_SYMBOLS, lazy);
    fact(&p, CUDALOAD_FACT_CONSUMER, o->path);
    fact_int(&p, CUDALOAD_FACT_COUNT, (long)b->undefined);
    fact(&p, CUDALOAD_FACT_NAME, b->library);
    fact(&p, CUDALOAD_FACT_VERSION_NODE, b->version);
    fact(&p, CUDALOAD_FACT_TAKEN, taken->path);
    fact(&p, CUDALOAD_FACT_VERSION, version);
    if (how)
      fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(how->how.rule));
    fact(&p, CUDALOAD_FACT_SYMBOL, b->undefined_example);
    fact(&p, CUDALOAD_FACT_PLATFORM,
         platform_of(windows ? CL_NAMING_WINDOWS : CL_NAMING_LINUX));
    fact(&p, CUDALOAD_FACT_BETTER, better);
    const char *first_by = put_first_by(e, taken->path);
    if (first_by && !strcmp(first_by, "LD_PRELOAD")) {
      /* Nothing cudaload loads comes before it: the variable must go. */
      fact(&p, CUDALOAD_FACT_LOADED_BY, "LD_PRELOAD");
      char *value = cl_os_getenv("LD_PRELOAD");
      cl_fix_drop_from_ld_preload_steps(value, taken->path, &p.fix);
      free(value);
      if (better)
        cl_fix_add_note(&p.fix,
                        "LD_PRELOAD puts that file first, before anything "
                        "cudaload loads; %s defines them",
                        better);
      else
        cl_fix_add_note(&p.fix, "LD_PRELOAD puts that file first, before "
                                "anything cudaload loads");
    } else if (better && how && how->how.rule == CL_RULE_LD_LIBRARY_PATH) {
      char *folder = cl_path_dirname(taken->path);
      cl_fix_add_note(&p.fix,
                      "%s defines them: drop %s from LD_LIBRARY_PATH, or "
                      "have cudaload load that file first",
                      better, folder ? folder : taken->path);
      free(folder);
    } else if (better) {
      cl_fix_add_note(&p.fix, "%s defines them: have cudaload load it first",
                      better);
    } else {
      newer_library_steps(ctx, taken->path, taken->info.soname, cuda, &p.fix);
    }
    cl_finding *f = cl_verdict_add(e, CL_FINDING_UNDEFINED_SYMBOLS, lazy, &p,
                                   o->path, b->library, taken->path, better);
    if (f && how)
      f->rule = how->how.rule;
    free(version);
  }
}

static void binding_findings(cudaload_explain *e, const cl_explain_object *o,
                             int lazy) {
  for (size_t i = 0; i < o->binding_count; ++i) {
    const cl_explain_binding *b = &o->bindings[i];
    if (!b->elsewhere)
      continue;
    cl_problem p = finding_record(CL_FINDING_BINDS_ELSEWHERE, lazy);
    fact_int(&p, CUDALOAD_FACT_COUNT, (long)b->elsewhere);
    fact(&p, CUDALOAD_FACT_CONSUMER, o->path);
    fact_int(&p, CUDALOAD_FACT_TOTAL, (long)b->symbols);
    fact(&p, CUDALOAD_FACT_NAME, b->library);
    fact(&p, CUDALOAD_FACT_VERSION_NODE, b->version);
    fact(&p, CUDALOAD_FACT_TAKEN, b->elsewhere_provider);
    fact(&p, CUDALOAD_FACT_BETTER, b->expected);
    fact(&p, CUDALOAD_FACT_SYMBOL, b->example);
    cl_fix_add_note(&p.fix,
                    "keep %s out of the global scope (open it RTLD_LOCAL), or "
                    "open %s with cudaload_dlopen_isolated()",
                    b->elsewhere_provider ? b->elsewhere_provider
                                          : "the other file",
                    o->path);
    cl_verdict_add(e, CL_FINDING_BINDS_ELSEWHERE, lazy, &p, o->path, b->library,
                   b->elsewhere_provider, NULL);
  }
}

/* Whether two spellings name one folder (torch/lib/../../nvidia/cudnn/lib
 * is nvidia/cudnn/lib): the same identity on disk. */
static int same_folder(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return 1;
  cl_file_identity ia, ib;
  return cl_os_file_identity(a, &ia) && cl_os_file_identity(b, &ib) &&
         ia.device == ib.device && ia.inode == ib.inode;
}

/* A CUDA library that takes a library of its own family from another
 * folder though a file of that name lies beside it (cuDNN 9's shim and its
 * sub-libraries, with another copy first on LD_LIBRARY_PATH or PATH): the
 * two folders are likely two versions, whatever their names say. */
/* The finding for a library that takes siblings of its own from another
 * folder: one per library and folder, naming every sibling so taken. */
static void sibling_finding(cudaload_explain *e, const char *from,
                            const cl_load_edge *edge, const char *own,
                            const char *theirs, int lazy) {
  cl_finding *f = NULL;
  for (size_t i = 0; i < e->finding_count && !f; ++i) {
    cl_finding *g = &e->findings[i];
    char *folder = g->kind == CL_FINDING_SIBLING_SHADOWED && g->taken &&
                           g->consumer && strcmp(g->consumer, from) == 0
                       ? cl_path_dirname(g->taken)
                       : NULL;
    if (folder && strcmp(folder, theirs) == 0)
      f = g;
    free(folder);
  }
  if (f && f->names && strstr(f->names, edge->name))
    return;
  char *names = f ? cl_strdup_printf("%s, %s", f->names, edge->name)
                  : cl_strdup(edge->name);
  if (!names) {
    e->failed = 1;
    return;
  }
  if (f) {
    free(f->names);
    f->names = names;
    fact(&f->problem, CUDALOAD_FACT_NAME, names);
    cl_verdict_reword(e, f);
    return;
  }
  char *beside = cl_path_join(own, edge->name);
  char *taken = cl_path_join(theirs, edge->name);
  cl_problem p = finding_record(CL_FINDING_SIBLING_SHADOWED, lazy);
  fact(&p, CUDALOAD_FACT_CONSUMER, from);
  fact(&p, CUDALOAD_FACT_NAME, names);
  fact(&p, CUDALOAD_FACT_TAKEN, taken);
  fact(&p, CUDALOAD_FACT_BETTER, beside);
  fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(edge->how.rule));
  cl_fix_add_note(&p.fix,
                  "take %s off the search path, or preload the copies beside "
                  "it first (cudaload exec, cudaload.setup())",
                  theirs);
  f = cl_verdict_add(e, CL_FINDING_SIBLING_SHADOWED, lazy, &p, from, edge->name,
                     taken, beside);
  if (f) {
    f->names = names;
    f->rule = edge->how.rule;
  } else {
    free(names);
  }
  free(beside);
  free(taken);
}

static void shadowed_sibling(cudaload_explain *e, const cl_load_tree *t,
                             const cl_load_edge *edge, const char *family,
                             cl_naming naming, int lazy) {
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
  int sibling = own && theirs && beside && !same_folder(own, theirs) &&
                cl_os_file_open(beside, &f, &size) == CUDALOAD_OK;
  cl_restore_error(kept);
  if (sibling) {
    cl_os_file_close(f);
    sibling_finding(e, from->path, edge, own, theirs, lazy || edge->lazy);
  }
  free(own);
  free(theirs);
  free(beside);
}

/* Where the loader looked for a name it did not find: "rpath (/a, /b),
 * ld-so-cache, default-dirs (/lib, /usr/lib)". */
static void places_looked_at(const cl_resolution *how, char *places,
                             size_t size) {
  size_t used = 0;
  places[0] = '\0';
  const cl_resolve_step *previous = NULL; /* the last step shown */
  for (size_t s = 0; s < how->step_count && used + 1 < size; ++s) {
    const cl_resolve_step *st = &how->steps[s];
    /* The hwcaps subfolders of one folder: the folder once. */
    if (previous && st->folder && previous->folder &&
        previous->rule == st->rule && !strcmp(st->folder, previous->folder))
      continue;
    int same = previous && previous->rule == st->rule;
    int n = snprintf(places + used, size - used, "%s%s%s%s",
                     previous && previous->folder && !same ? ")" : "",
                     previous ? ", " : "",
                     same ? "" : cl_resolve_rule_name(st->rule),
                     st->folder ? (same ? "" : " (") : "");
    if (n < 0 || (size_t)n >= size - used)
      break;
    used += (size_t)n;
    if (st->folder) {
      n = snprintf(places + used, size - used, "%s", st->folder);
      if (n < 0 || (size_t)n >= size - used)
        break;
      used += (size_t)n;
    }
    previous = st;
  }
  if (previous && previous->folder && used + 1 < size)
    places[used++] = ')', places[used] = '\0';
  if (!used)
    snprintf(places, size, "nothing");
}

/* The fix for a CUDA name nothing provides, as steps of fix: the
 * requirement that plans it, and the wheel that ships it where one does. */
static void requirement_steps(cudaload_ctx *ctx, const cl_name_match *m,
                              const char *names, cl_naming naming,
                              cl_fix *fix) {
  char spec[96];
  snprintf(spec, sizeof spec, "%s=%d", m->entry->family, m->major);
  /* Installed already, where the loader does not look here (a wheel's
   * folder, which nothing searches on Windows): no install, only the
   * requirement that loads it, or its folder on the search path. */
  const cl_library *have = NULL;
  const cl_inventory *inv = ctx ? cl_inventory_of(ctx) : NULL;
  for (size_t i = 0; inv && i < inv->library_count && !have; ++i)
    if (inv->libraries[i].entry == m->entry &&
        inv->libraries[i].major == m->major)
      have = &inv->libraries[i];
  char *folder = have ? cl_path_dirname(have->path) : NULL;
  if (folder) {
    char *path = naming == CL_NAMING_WINDOWS
                     ? cl_fix_windows_path_first(&folder, 1)
                     : NULL;
    cl_fix_add_note(fix,
                    "add --require %s (%s %d is installed in %s, where the "
                    "loader does not look here; Python: "
                    "cudaload.setup(require=[\"%s\"]) before the import)%s%s",
                    spec, m->entry->family, m->major, folder, spec,
                    path ? ", or put that folder first on PATH before the "
                           "program starts: "
                         : "",
                    path ? path : "");
    free(path);
    free(folder);
    return;
  }
  /* The fix a requirement of that family and major would print (fix_lines.c:
   * the wheel and its version, or the variable), after the requirement. */
  cl_requirement *parsed = NULL;
  size_t n = 0;
  cl_fix install = CL_FIX_INIT;
  char *kept = cl_save_error();
  if (ctx && cl_spec_parse(spec, &parsed, &n) == CUDALOAD_OK && n)
    cl_fix_for_missing_steps(ctx, &parsed[0], &install, NULL);
  cl_restore_error(kept);
  for (size_t i = 0; i < n; ++i)
    free(parsed[i].text);
  free(parsed);
  cl_fix_add_note(fix,
                  "add --require %s with a root that holds it, or the folder "
                  "that holds %s with --root%s",
                  spec, names, install.count ? "; to install it:" : "");
  cl_fix_append(fix, &install);
  cl_fix_free(&install);
}

/* One opener's lazy not-found finding for the family and major of m, to
 * extend with another of its names, or NULL. */
static cl_finding *lazy_not_found_of(cudaload_explain *e, const char *from,
                                     const cl_name_match *m, cl_naming naming) {
  for (size_t i = 0; from && i < e->finding_count; ++i) {
    cl_finding *f = &e->findings[i];
    cl_name_match other;
    if (f->kind == CL_FINDING_NOT_FOUND && f->lazy && f->consumer && f->names &&
        strcmp(f->consumer, from) == 0 &&
        cl_catalog_match(f->name, naming, &other) &&
        strcmp(other.entry->family, m->entry->family) == 0 &&
        other.major == m->major)
      return f;
  }
  return NULL;
}

/* The fix for names not found (joined by ", "): the requirement that
 * plans them (m: their family and major), or the folder that holds them. */
static void not_found_steps(cudaload_explain *e, const cl_name_match *m,
                            const char *names, cl_naming naming, cl_fix *fix) {
  /* "a, b, c" as said: "a, b and c". */
  const char *last = NULL;
  for (const char *c = strstr(names, ", "); c; c = strstr(c + 2, ", "))
    last = c;
  char *said = last ? cl_strdup_printf("%.*s and %s", (int)(last - names),
                                       names, last + 2)
                    : cl_strdup(names);
  if (!said)
    fix->failed = 1;
  else if (m)
    requirement_steps(e->ctx, m, said, naming, fix);
  else
    cl_fix_add_note(fix, "add the folder that holds %s with --root", said);
  free(said);
}

/* A name the loader does not find: a DT_NEEDED one fails the load, a lazy
 * one the call that opens it. The lazy names of one family from one opener
 * (libcublas.so.12 and libcublasLt.so.12 from cuDNN 8) are one finding. */
static void not_found(cudaload_explain *e, const char *from,
                      const cl_load_edge *edge, const cl_name_match *m,
                      int later, cl_naming naming) {
  char places[1024];
  places_looked_at(&edge->how, places, sizeof places);
  cl_finding *f = later && m ? lazy_not_found_of(e, from, m, naming) : NULL;
  if (f && strstr(f->names, edge->name))
    return; /* the same name met again */
  char *names = f ? cl_strdup_printf("%s, %s", f->names, edge->name)
                  : cl_strdup(edge->name);
  if (!names) {
    e->failed = 1;
    return;
  }
  if (f) {
    /* Another name of the opener's: the finding names them all. */
    free(f->names);
    f->names = names;
    fact(&f->problem, CUDALOAD_FACT_NAME, names);
    cl_fix_free(&f->problem.fix);
    not_found_steps(e, m, names, naming, &f->problem.fix);
    cl_verdict_reword(e, f);
    return;
  }
  cl_problem p = finding_record(CL_FINDING_NOT_FOUND, later);
  fact(&p, CUDALOAD_FACT_CONSUMER, from);
  fact(&p, CUDALOAD_FACT_NAME, names);
  fact(&p, CUDALOAD_FACT_RULE, "not-found");
  fact(&p, CUDALOAD_FACT_SEARCHED, places);
  not_found_steps(e, m, names, naming, &p.fix);
  f = cl_verdict_add(e, CL_FINDING_NOT_FOUND, later, &p, from, edge->name, NULL,
                     NULL);
  if (f && later)
    f->names = names;
  else
    free(names);
}

/* A search list that looks in the current folder: an empty entry, or a
 * relative one (ctranslate2 4.4.0's bundled cuDNN has RPATH
 * "ctranslate2.libs"), which the loader takes relative to the process's
 * current folder: anyone who controls that folder could plant a library
 * there. One finding per list and entry. */
static void search_list_hazards(cudaload_explain *e, const cl_load_edge *edge,
                                const char *from, int later) {
  for (size_t s = 0; s < edge->how.step_count; ++s) {
    const cl_resolve_step *st = &edge->how.steps[s];
    if (!st->folder ||
        (st->folder[0] && (st->folder[0] == '/' || st->folder[0] == '\\' ||
                           (st->folder[0] && st->folder[1] == ':'))))
      continue;
    /* The resolver names an empty entry "." (what glibc opens). */
    int empty = !st->folder[0] || strcmp(st->folder, ".") == 0;
    cl_problem p = finding_record(CL_FINDING_EMPTY_ENTRY, later);
    fact(&p, CUDALOAD_FACT_CONSUMER, from);
    fact(&p, CUDALOAD_FACT_PATH, st->source);
    fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(st->rule));
    fact(&p, CUDALOAD_FACT_VALUE, st->folder);
    cl_fix_add_note(&p.fix, "%s",
                    !empty ? "make the entry absolute ($ORIGIN/...) in the "
                             "library (patchelf --set-rpath), or run from a "
                             "folder only you can write to"
                           : "drop the empty entry (a leading, trailing or "
                             "doubled separator) from that search list "
                             "(patchelf --set-rpath), or run from a folder "
                             "only you can write to");
    /* A hazard; the load itself works (a note by its kind). */
    cl_verdict_add(e, CL_FINDING_EMPTY_ENTRY, later, &p, from, edge->name, NULL,
                   NULL);
  }
}

/* A name that asks for one library, and the loader takes another. */
static void wrong_library(cudaload_explain *e, const char *from,
                          const cl_load_edge *edge, const char *taken,
                          const cl_name_match *got, int later) {
  cl_problem p = finding_record(CL_FINDING_WRONG_LIBRARY, later);
  fact(&p, CUDALOAD_FACT_CONSUMER, from);
  fact(&p, CUDALOAD_FACT_NAME, edge->name);
  fact(&p, CUDALOAD_FACT_TAKEN, taken);
  fact(&p, CUDALOAD_FACT_LIBRARY, got->entry->name);
  fact_int(&p, CUDALOAD_FACT_MAJOR, got->major);
  fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(edge->how.rule));
  cl_fix_add_note(&p.fix,
                  "remove %s, which is misnamed, or put the folder of the "
                  "right %s first",
                  taken, edge->name);
  cl_verdict_add(e, CL_FINDING_WRONG_LIBRARY, later, &p, from, edge->name,
                 taken, NULL);
}

static void tree_findings(cudaload_explain *e, const cl_load_tree *t,
                          const char *opener, cl_naming naming, int lazy) {
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    const char *from =
        edge->from < t->object_count ? t->objects[edge->from].path : opener;
    int later = lazy || edge->lazy;
    cl_name_match want;
    int cuda = cl_catalog_match(edge->name, naming, &want);
    search_list_hazards(e, edge, from, later);
    if (edge->how.rule == CL_RULE_NOT_FOUND) {
      /* A DT_NEEDED name not found fails the whole open; a lazy one only
       * matters when it is a CUDA library's (the driver is the probe's
       * concern). */
      int driver = cuda && cl_catalog_is_driver(want.entry);
      if ((cuda && !driver) || (!later && !driver))
        not_found(e, from, edge, cuda ? &want : NULL, later, naming);
      continue;
    }
    if (!cuda || edge->to >= t->object_count)
      continue;
    cl_name_match got;
    const cl_load_object *to = &t->objects[edge->to];
    if (catalog_of(to->path, to->info.soname, naming, &got) &&
        (got.entry != want.entry || got.major != want.major))
      wrong_library(e, from, edge, to->path, &got, later);
    else if (edge->from < t->object_count)
      shadowed_sibling(e, t, edge, want.entry->family, naming, later);
  }
}

/* Whether the objects of a's family and major among at[] are the files of
 * one build: all of them wheel files whose version is unread, in one
 * folder. One wheel installs a build's files in one folder (pip replaces
 * them together), so they share their version: comparing them would list
 * site-packages to learn what cannot differ. */
static int one_unread_build(const cudaload_explain *e, const size_t *at,
                            size_t n, const cl_explain_object *a) {
  const char *base = cl_path_basename(a->path);
  size_t folder = (size_t)(base - a->path);
  for (size_t k = 0; k < n; ++k) {
    const cl_explain_object *o = &e->objects[at[k]];
    if (!o->family || strcmp(o->family, a->family) || o->major != a->major)
      continue;
    if (!o->version_pending ||
        (size_t)(cl_path_basename(o->path) - o->path) != folder ||
        strncmp(o->path, a->path, folder) != 0)
      return 0;
  }
  return 1;
}

/* Read the versions mixes_among compares: those of every family and major
 * among at[] whose files are not one build's. */
static void settle_compared_versions(cudaload_explain *e, const size_t *at,
                                     size_t n) {
  for (size_t i = 0; i < n; ++i) {
    cl_explain_object *a = &e->objects[at[i]];
    if (!a->family || !a->version_pending || one_unread_build(e, at, n, a))
      continue;
    for (size_t k = 0; k < n; ++k) {
      cl_explain_object *o = &e->objects[at[k]];
      if (o->family && strcmp(o->family, a->family) == 0 &&
          o->major == a->major)
        cl_verdict_settle_version(o);
    }
  }
}

/* Windows: whether object k of at[] is a later copy of a DLL name an
 * earlier one has (docs/loader.md, Windows 15). */
static int later_copy(const cudaload_explain *e, const size_t *at, size_t k) {
  if (!e->ctx || cl_ctx_naming(e->ctx) != CL_NAMING_WINDOWS)
    return 0;
  const char *name = cl_path_basename(e->objects[at[k]].path);
  for (size_t i = 0; i < k; ++i)
    if (cl_ascii_equal_nocase(cl_path_basename(e->objects[at[i]].path), name))
      return 1;
  return 0;
}

/* -1, 0, 1 as version a is older, equal or newer than b; 0 when either is
 * unknown. */
static int version_order(const char *a, const char *b) {
  long va[CL_VERSION_PARTS], vb[CL_VERSION_PARTS];
  int na = a ? cl_version_parse(a, va) : 0,
      nb = b ? cl_version_parse(b, vb) : 0;
  return na && nb ? cl_version_compare(va, na, vb, nb) : 0;
}

/* Windows: two copies of one DLL name among at[] (ctranslate2 4.8.5's
 * __init__ loads its bundled cudnn64_9.dll by full path after
 * cudaload.setup() loaded the wheel's). The loader gives every import and
 * LoadLibrary of the name the module loaded first (docs/loader.md, Windows
 * 1, 10 and 15): say which copy the files that name it get, and whether
 * that is a problem: only when the copy they get is older than the other
 * (a consumer built for the newer may take what the older lacks). */
static void windows_copies(cudaload_explain *e, const size_t *at, size_t n,
                           const char *among) {
  for (size_t k = 0; k < n; ++k) {
    if (!later_copy(e, at, k))
      continue;
    const cl_explain_object *b = &e->objects[at[k]], *a = NULL;
    const char *name = cl_path_basename(b->path);
    for (size_t i = 0; i < k && !a; ++i)
      if (cl_ascii_equal_nocase(cl_path_basename(e->objects[at[i]].path), name))
        a = &e->objects[at[i]];
    if (!a)
      continue;
    /* The files that import or open the name: each gets the copy loaded
     * first. */
    cl_buf users = CL_BUF_INIT;
    for (size_t i = 0; i < n; ++i) {
      const cl_explain_object *o = &e->objects[at[i]];
      int uses = 0;
      for (size_t j = 0; j < o->need_count && !uses; ++j)
        uses =
            cl_ascii_equal_nocase(o->needs[j].name, name) && o->needs[j].path;
      if (uses)
        cl_buf_printf(&users, "%s%s", users.len ? ", " : "", o->path);
    }
    char *who = cl_buf_take(&users);
    int older = version_order(a->version, b->version) < 0;
    cl_problem p = finding_record(CL_FINDING_TWO_VERSIONS, 0);
    /* Only an older first copy is a problem; else one copy serves. */
    p.note = !older;
    fact(&p, CUDALOAD_FACT_NAME, name);
    fact(&p, CUDALOAD_FACT_AMONG, among);
    fact(&p, CUDALOAD_FACT_TAKEN, a->path);
    fact(&p, CUDALOAD_FACT_VERSION, a->version);
    fact(&p, CUDALOAD_FACT_OTHER_PATH, b->path);
    fact(&p, CUDALOAD_FACT_OTHER_VERSION, b->version);
    fact(&p, CUDALOAD_FACT_CONSUMER, who && who[0] ? who : NULL);
    fact(&p, CUDALOAD_FACT_PLATFORM, platform_of(CL_NAMING_WINDOWS));
    if (older) {
      cl_fix_add_note(&p.fix,
                      "load the newer %s first (cudaload.setup() with the "
                      "requirement it satisfies), or remove the older",
                      name);
    } else {
      cl_fix_add_note(&p.fix, "nothing needs doing; to list the copies the "
                              "running program maps:");
      cl_fix_step *list = cl_fix_add(&p.fix, CUDALOAD_FIX_COMMAND);
      cl_fix_arg(&p.fix, list, "cudaload");
      cl_fix_arg(&p.fix, list, "explain");
      cl_fix_arg(&p.fix, list, "--pid");
      cl_fix_arg(&p.fix, list, "PID");
      cl_fix_note(&p.fix, list, "PID: the running program's process id");
    }
    cl_verdict_add(e, CL_FINDING_TWO_VERSIONS, 0, &p, a->path, name, b->path,
                   NULL);
    free(who);
  }
}

/* Whether o is its family's front (cuDNN's libcudnn.so.N: it finds its
 * parts' functions by name, catalog.h main_fronts_parts). */
static int is_front(const cl_explain_object *o) {
  return o->name && cl_catalog_is_front(cl_catalog_find(o->name));
}

/* Whether two files of one family and major cannot run together: their
 * versions differ, unless one is a front older than the other (a front
 * runs with parts as new or newer, and beside another front that reaches
 * the same parts). A front newer than a part may forward what the part
 * lacks: that stays a clash. */
static int versions_clash(const cl_explain_object *x,
                          const cl_explain_object *y) {
  int order = version_order(x->version, y->version);
  if (strcmp(x->version, y->version) == 0)
    return 0;
  return !((is_front(x) && order < 0) || (is_front(y) && order > 0));
}

/* The first pair of files of *first's family and major, from position ai
 * on, whose versions clash: *first becomes the pair's earlier file, the
 * later one is returned; NULL when they all run together. */
static const cl_explain_object *clashing_pair(cudaload_explain *e,
                                              const size_t *at, size_t n,
                                              size_t ai,
                                              const cl_explain_object **first) {
  const cl_explain_object *a = *first;
  for (size_t i = ai; i < n; ++i) {
    const cl_explain_object *x = &e->objects[at[i]];
    if (later_copy(e, at, i) || !x->family || !x->version ||
        strcmp(x->family, a->family) != 0 || x->major != a->major)
      continue;
    for (size_t j = i + 1; j < n; ++j) {
      const cl_explain_object *y = &e->objects[at[j]];
      if (later_copy(e, at, j) || !y->family || !y->version ||
          strcmp(y->family, a->family) != 0 || y->major != a->major)
        continue;
      if (versions_clash(x, y)) {
        *first = x;
        return y;
      }
    }
  }
  return NULL;
}

/* One family and major in two versions, or libraries of two CUDA majors,
 * among the objects from first on: one finding per family and major, each
 * version with the folder it comes from. On Windows a later copy of a name
 * loaded already is judged apart (windows_copies): nothing reaches it by
 * name, so it runs with no other file of the process. */
static void mixes_among(cudaload_explain *e, const size_t *at, size_t n,
                        const char *among) {
  settle_compared_versions(e, at, n);
  windows_copies(e, at, n, among);
  for (size_t ai = 0; ai < n; ++ai) {
    const cl_explain_object *a = &e->objects[at[ai]];
    if (!a->family || !a->version || later_copy(e, at, ai))
      continue;
    /* Report each family and major once: at its first object. */
    int earlier = 0;
    for (size_t k = 0; k < ai && !earlier; ++k) {
      const cl_explain_object *o = &e->objects[at[k]];
      earlier = o->family && o->version && strcmp(o->family, a->family) == 0 &&
                o->major == a->major;
    }
    if (earlier)
      continue;
    const cl_explain_object *b = clashing_pair(e, at, n, ai, &a);
    if (!b)
      continue;
    cl_problem p = finding_record(CL_FINDING_TWO_VERSIONS, 0);
    fact(&p, CUDALOAD_FACT_FAMILY, a->family);
    fact_int(&p, CUDALOAD_FACT_MAJOR, a->major);
    fact(&p, CUDALOAD_FACT_AMONG, among);
    fact(&p, CUDALOAD_FACT_PATH, a->path);
    fact(&p, CUDALOAD_FACT_VERSION, a->version);
    fact(&p, CUDALOAD_FACT_OTHER_PATH, b->path);
    fact(&p, CUDALOAD_FACT_OTHER_VERSION, b->version);
    cl_fix_add_note(&p.fix,
                    "keep one %s %d: load the files of one folder (cudaload "
                    "exec, cudaload.setup()), or take the other off the "
                    "search path",
                    a->family, a->major);
    cl_verdict_add(e, CL_FINDING_TWO_VERSIONS, 0, &p, a->path, NULL, b->path,
                   NULL);
  }
  int cuda_seen = 0;
  const cl_explain_object *first_cuda = NULL;
  for (size_t i = 0; i < n; ++i) {
    const cl_explain_object *o = &e->objects[at[i]];
    if (!o->family || !o->cuda_major)
      continue;
    if (!cuda_seen) {
      cuda_seen = o->cuda_major;
      first_cuda = o;
    } else if (o->cuda_major != cuda_seen) {
      cl_problem p = finding_record(CL_FINDING_CUDA_MAJORS, 0);
      fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, cuda_seen);
      fact(&p, CUDALOAD_FACT_PATH, first_cuda->path);
      fact_int(&p, CUDALOAD_FACT_OTHER_CUDA_MAJOR, o->cuda_major);
      fact(&p, CUDALOAD_FACT_OTHER_PATH, o->path);
      fact(&p, CUDALOAD_FACT_AMONG, among);
      cl_fix_add_note(&p.fix,
                      "install the CUDA %d build of %s, or require the CUDA "
                      "major the program needs (--require cuda=N)",
                      cuda_seen, o->family);
      cl_verdict_add(e, CL_FINDING_CUDA_MAJORS, 0, &p, first_cuda->path, NULL,
                     o->path, NULL);
      break;
    }
  }
}

void cl_verdict_mixes(cudaload_explain *e, size_t first, const char *among) {
  size_t n = first < e->object_count ? e->object_count - first : 0;
  size_t *at = malloc((n + 1) * sizeof *at);
  if (!at) {
    e->failed = 1;
    return;
  }
  for (size_t i = 0; i < n; ++i)
    at[i] = first + i;
  mixes_among(e, at, n, among);
  free(at);
}

void cl_verdict_mixes_in(cudaload_explain *e, const cl_loader_model *m,
                         const char *among) {
  size_t *at = malloc((e->object_count + 1) * sizeof *at);
  if (!at) {
    e->failed = 1;
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < e->object_count; ++i)
    for (size_t k = 0; k < m->loaded_count; ++k)
      if (strcmp(m->loaded[k].path, e->objects[i].path) == 0) {
        at[n++] = i;
        break;
      }
  mixes_among(e, at, n, among);
  free(at);
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
  cl_problem p = finding_record(CL_FINDING_STOPPED, 0);
  fact(&p, CUDALOAD_FACT_CONSUMER, at ? at->path : opener);
  fact_int(&p, CUDALOAD_FACT_COUNT, CL_RESOLVE_MAX_WORK);
  fact(&p, CUDALOAD_FACT_REASON, t->stopped_needed ? "needs" : "opens");
  if (at) {
    const cl_binary_info *info = &at->info;
    const char *list = info->runpath && info->runpath[0] ? info->runpath
                       : info->rpath && info->rpath[0]   ? info->rpath
                                                         : NULL;
    fact_int(&p, CUDALOAD_FACT_TOTAL, (long)info->needed_count);
    size_t folders = list ? 1 : 0;
    for (const char *c = list; c && *c; ++c)
      folders += *c == ':';
    if (list)
      cl_problem_factf(NULL, &p, CUDALOAD_FACT_SEARCHED, CUDALOAD_FROM_MACHINE,
                       "%zu %s folders", folders,
                       list == info->runpath ? "RUNPATH" : "RPATH");
  }
  cl_verdict_add(e, CL_FINDING_STOPPED, 0, &p, opener, NULL, NULL, NULL);
}

/* Which objects of t need a CUDA library (a DT_NEEDED name or import the
 * catalog knows): each is a consumer whose references to that library must
 * bind, wherever in the tree it sits. torch's _C.so reaches
 * libtorch_cuda.so through libtorch_python.so, and it is libtorch_cuda.so
 * that takes ncclCommRegister from libnccl.so.2: an older NCCL put first
 * (LD_PRELOAD) lacks it, and only its bindings show that. calloc'ed flags,
 * one per object (NULL when memory ran out: none marked). */
static unsigned char *cuda_consumers(const cl_load_tree *t, cl_naming naming) {
  unsigned char *is_cuda = calloc(t->object_count + 1, 1);
  unsigned char *needs = calloc(t->object_count + 1, 1);
  if (!is_cuda || !needs) {
    free(is_cuda);
    free(needs);
    return NULL;
  }
  for (size_t k = 0; k < t->object_count; ++k) {
    cl_name_match m;
    is_cuda[k] = (unsigned char)catalog_of(
        t->objects[k].path, t->objects[k].info.soname, naming, &m);
  }
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    if (!edge->lazy && edge->from < t->object_count &&
        edge->to < t->object_count && is_cuda[edge->to])
      needs[edge->from] = 1;
  }
  free(is_cuda);
  return needs;
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
    cl_name_match match;
    int is_cuda = catalog_of(lo->path, lo->info.soname, naming, &match) ||
                  consumer_package(lo->path, naming) != NULL;
    int asked = k == 0 && (how & CL_VERDICT_CONSUMER);
    if (k != 0 && !is_cuda && !consumers[k])
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
    object_bindings(e, o, t, k, naming, (how & CL_VERDICT_SYMBOLS) != 0);
    undefined_findings(e, ctx, o, t, k, lazy);
    binding_findings(e, o, lazy);
  }
  free(consumers);
  if ((how & CL_VERDICT_CONSUMER) &&
      (t->object_count == 0 || !t->objects[0].readable)) {
    cl_problem p = finding_record(CL_FINDING_UNREADABLE, 0);
    fact(&p, CUDALOAD_FACT_CONSUMER, opener);
    cl_fix_step *inspect = cl_fix_add(&p.fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&p.fix, inspect, "cudaload");
    cl_fix_arg(&p.fix, inspect, "inspect");
    cl_fix_arg(&p.fix, inspect, opener);
    cl_fix_note(&p.fix, inspect, "it says why");
    cl_verdict_add(e, CL_FINDING_UNREADABLE, 0, &p, opener, NULL, NULL, NULL);
  }
  if (t->stopped)
    stopped_finding(e, t, opener);
  tree_findings(e, t, opener, naming, lazy);
}

/* Objects opened with CL_VERDICT_GLOBAL join the global scope (the file
 * and its dependencies, as RTLD_GLOBAL puts its whole group there). */
static void join_global(cudaload_explain *e, const cl_load_tree *t) {
  for (size_t k = 0; k < t->object_count; ++k) {
    if (t->objects[k].dropped)
      continue;
    const cl_bind_object *b = cached_object(e, t->objects[k].path);
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
      finding_free(f);
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
  lazy_context lc = {ctx, cl_ctx_naming(ctx), e};
  cl_load_tree t;
  memset(&t, 0, sizeof t);
  rc = cl_resolve_load_flags(
      m, path, flags, (how & CL_VERDICT_NO_LAZY) ? NULL : lazy_names, &lc, &t);
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
  char *kept = cl_save_error(); /* unreadable: opened, and said so */
  if (cl_file_cache_info(files, set->files[i], &mine) != CUDALOAD_OK)
    mine = NULL;
  const char *name =
      mine && mine->soname ? mine->soname : cl_path_basename(set->files[i]);
  int needed = 0;
  for (size_t k = 0; k < set->file_count && !needed; ++k) {
    const cl_binary_info *other = NULL;
    if (k == i ||
        cl_file_cache_info(files, set->files[k], &other) != CUDALOAD_OK)
      continue;
    for (size_t d = 0; d < other->needed_count && !needed; ++d)
      needed = strcmp(other->needed[d], name) == 0;
  }
  cl_restore_error(kept);
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
        finding_free(&e->findings[k]);
      else
        e->findings[kept++] = e->findings[k];
    }
    e->finding_count = kept;
    cl_problem p = finding_record(CL_FINDING_PLUGIN_UNUSABLE, 0);
    fact(&p, CUDALOAD_FACT_CONSUMER, path);
    fact(&p, CUDALOAD_FACT_NAME, names);
    cl_fix_add_note(&p.fix,
                    "if the program needs this plugin, install what provides "
                    "%s and add its folder with --root",
                    names);
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
    const cl_bind_object *b = cached_object(e, path);
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
    char *kept = cl_save_error(); /* unreadable: an open with no lists */
    if (cl_file_cache_info(cl_verdict_files(ctx), requester, &info) !=
        CUDALOAD_OK)
      info = &none;
    cl_restore_error(kept);
  }
  cl_requester req = {requester, info, NULL};
  lazy_context lc = {ctx, cl_ctx_naming(ctx), e};
  cl_load_tree t;
  memset(&t, 0, sizeof t);
  int rc =
      cl_resolve_open(m, requester ? &req : NULL, name,
                      (how & CL_VERDICT_NO_LAZY) ? NULL : lazy_names, &lc, &t);
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
  char *kept = cl_save_error(); /* unreadable: it opens nothing we can tell */
  int unreadable =
      cl_file_cache_info(cl_verdict_files(ctx), path, &info) != CUDALOAD_OK;
  cl_restore_error(kept);
  if (unreadable)
    return CUDALOAD_OK;
  lazy_context lc = {ctx, cl_ctx_naming(ctx), e};
  size_t count = 0;
  char **names = lazy_names(path, info, &count, &lc);
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
    finding_free(&e->findings[i]);
  free(e->findings);
  symbol_cache_free(e->symbol_cache);
  lazy_cache_free(e->lazy_cache);
  real_path_memo_free(e->real_paths);
  free(e->global);
  free(e);
}
