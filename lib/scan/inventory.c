/* SPDX-License-Identifier: MIT */
/*
 * inventory.c - cudaload_scan(): roots -> classified library files with
 * their versions. Reads folder listings, wheel metadata and headers; never
 * loads a library and never starts a process. Where each library's version
 * comes from is version_sources.c's.
 */
#include "binary/binary.h"
#include "binary/file_cache.h"
#include "scan/consumers.h"
#include "core/context.h"
#include "scan/inventory.h"
#include "common/error.h"
#include "common/question_log.h"
#include "scan/layouts.h"
#include "scan/ldcache.h"
#include "os/platform.h"
#include "scan/recorded_roots.h"
#include "scan/roots.h"
#include "scan/scan_memo.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "scan/trust.h"
#include "scan/version_sources.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Free what inv's lists hold, keeping the lists for the next scan. */
static void inventory_clear(cl_inventory *inv) {
  if (inv->driver_memo)
    inv->driver_memo_free(inv->driver_memo);
  inv->driver_memo = NULL;
  for (size_t i = 0; i < inv->library_count; ++i) {
    free(inv->libraries[i].version);
    free(inv->libraries[i].version_file);
    free(inv->libraries[i].path);
    free(inv->libraries[i].pending_folder);
    free(inv->libraries[i].pending_name);
    free(inv->libraries[i].include_dir);
    free(inv->libraries[i].include_refused);
    free(inv->libraries[i].version_distrust);
  }
  inv->library_count = 0;
  if (inv->version_cache)
    inv->version_cache_free(inv->version_cache);
  inv->version_cache = NULL;
  for (size_t i = 0; i < inv->shim_count; ++i) {
    free(inv->shims[i].path);
    free(inv->shims[i].package);
  }
  inv->shim_count = 0;
  for (size_t i = 0; i < inv->consumer_count; ++i)
    free(inv->consumers[i].path);
  inv->consumer_count = 0;
  for (size_t i = 0; i < inv->nearby_count; ++i)
    free(inv->nearby_environments[i]);
  inv->nearby_count = 0;
  for (size_t i = 0; i < inv->root_count; ++i) {
    free(inv->roots[i].path);
    free(inv->roots[i].detail);
    free(inv->roots[i].record);
    free(inv->roots[i].fix);
  }
  inv->root_count = 0;
  for (size_t i = 0; i < inv->refusal_count; ++i) {
    free(inv->refusals[i].path);
    free(inv->refusals[i].fix);
  }
  inv->refusal_count = 0;
}

static void inventory_free(cl_inventory *inv) {
  inventory_clear(inv);
  free(inv->roots);
  free(inv->libraries);
  free(inv->shims);
  free(inv->consumers);
  free(inv->nearby_environments);
  free(inv->refusals);
  free(inv);
}

/* A copy of s (NULL stays NULL); *failed set when memory ran out. */
static char *copy_text(const char *s, int *failed) {
  if (!s)
    return NULL;
  char *copy = cl_strdup(s);
  if (!copy)
    *failed = 1;
  return copy;
}

/* Copy from's lists into to's (empty): what a scan found, kept in the
 * process (scan_memo.h) and given back. 0, or CUDALOAD_E_NO_MEMORY with
 * to's lists empty again. */
static int copy_lists(cl_inventory *to, const cl_inventory *from) {
  int failed =
      cl_reserve((void **)&to->roots, &to->root_capacity, from->root_count,
                 sizeof *to->roots) ||
      cl_reserve((void **)&to->libraries, &to->library_capacity,
                 from->library_count, sizeof *to->libraries) ||
      cl_reserve((void **)&to->shims, &to->shim_capacity, from->shim_count,
                 sizeof *to->shims) ||
      cl_reserve((void **)&to->consumers, &to->consumer_capacity,
                 from->consumer_count, sizeof *to->consumers) ||
      cl_reserve((void **)&to->nearby_environments, &to->nearby_capacity,
                 from->nearby_count, sizeof *to->nearby_environments) ||
      cl_reserve((void **)&to->refusals, &to->refusal_capacity,
                 from->refusal_count, sizeof *to->refusals);
  if (failed)
    return CUDALOAD_E_NO_MEMORY;
  /* Each element is copied whole, then its strings replaced by copies, and
   * counted at once, so that a failure frees what was copied so far. */
  for (size_t i = 0; i < from->root_count; ++i) {
    cl_root *r = &to->roots[to->root_count++];
    *r = from->roots[i];
    r->path = copy_text(r->path, &failed);
    r->detail = copy_text(r->detail, &failed);
    r->fix = copy_text(r->fix, &failed);
    r->record = copy_text(r->record, &failed);
  }
  for (size_t i = 0; i < from->library_count; ++i) {
    cl_library *l = &to->libraries[to->library_count++];
    *l = from->libraries[i];
    l->version = copy_text(l->version, &failed);
    l->version_file = copy_text(l->version_file, &failed);
    l->path = copy_text(l->path, &failed);
    l->pending_folder = copy_text(l->pending_folder, &failed);
    l->pending_name = copy_text(l->pending_name, &failed);
    l->include_dir = copy_text(l->include_dir, &failed);
    l->include_refused = copy_text(l->include_refused, &failed);
    l->version_distrust = copy_text(l->version_distrust, &failed);
  }
  for (size_t i = 0; i < from->shim_count; ++i) {
    cl_bundled_shim *s = &to->shims[to->shim_count++];
    *s = from->shims[i];
    s->path = copy_text(s->path, &failed);
    s->package = copy_text(s->package, &failed);
  }
  for (size_t i = 0; i < from->consumer_count; ++i) {
    cl_noticed_consumer *c = &to->consumers[to->consumer_count++];
    *c = from->consumers[i];
    c->path = copy_text(c->path, &failed);
  }
  for (size_t i = 0; i < from->nearby_count; ++i)
    to->nearby_environments[to->nearby_count++] =
        copy_text(from->nearby_environments[i], &failed);
  for (size_t i = 0; i < from->refusal_count; ++i) {
    cl_refusal *r = &to->refusals[to->refusal_count++];
    *r = from->refusals[i];
    r->path = copy_text(r->path, &failed);
    r->fix = copy_text(r->fix, &failed);
  }
  if (failed) {
    inventory_clear(to);
    return CUDALOAD_E_NO_MEMORY;
  }
  return CUDALOAD_OK;
}

/* What a scan found, as the process keeps it (scan_memo.h): its lists, no
 * caches. */
static void kept_free(void *kept) {
  inventory_free(kept);
}

static void keep_scan(cudaload_ctx *ctx, cl_question_log *log, int64_t began) {
  cl_inventory *kept = calloc(1, sizeof *kept);
  if (!kept)
    return;
  if (copy_lists(kept, ctx->inventory)) {
    inventory_free(kept);
    return;
  }
  cl_scan_memo_keep(ctx, kept, kept_free, log, began);
}

static int take_kept(const void *kept, void *opaque) {
  return copy_lists(opaque, kept);
}

/* What cl_inventory_of() answers before the first scan: readers need not
 * tell "not scanned" from "found nothing". */
static const cl_inventory no_inventory;

const cl_inventory *cl_inventory_of(const cudaload_ctx *ctx) {
  return ctx && ctx->inventory ? ctx->inventory : &no_inventory;
}

void cl_inventory_invalidate(cudaload_ctx *ctx) {
  if (ctx->inventory) {
    ctx->inventory->scanned = 0;
    ctx->inventory->same_run = 1;
  }
}

/* Forget the last scan's findings, and what was read from files with
 * them. */
static void inventory_forget(cudaload_ctx *ctx) {
  if (ctx->inventory)
    inventory_clear(ctx->inventory);
  /* A new scan is a new run: what was read from files is read again, and
   * a long-lived context holds no more than one run's worth. The first
   * scan, and one after new roots (cl_inventory_invalidate), is the same
   * run's as what came before it (cudaload_require_for read the program's
   * files): those are known by their stamps, and asked again. */
  int same_run = !ctx->inventory || ctx->inventory->same_run;
  if (ctx->inventory)
    ctx->inventory->same_run = 0;
  if (same_run)
    return;
  cl_file_cache_forget(ctx);
}

/* An empty inventory for a scan to fill: the last one emptied, or a new one
 * the first time, freed with the context through inventory_free (core/
 * calls no stage). */
static int inventory_begin(cudaload_ctx *ctx) {
  inventory_forget(ctx);
  if (!ctx->inventory) {
    ctx->inventory = calloc(1, sizeof *ctx->inventory);
    if (!ctx->inventory)
      return CUDALOAD_E_NO_MEMORY;
    ctx->inventory_free = inventory_free;
  }
  return CUDALOAD_OK;
}

cl_naming cl_ctx_naming(const cudaload_ctx *ctx) {
  switch (ctx->target) {
  case CUDALOAD_TARGET_LINUX:
  case CUDALOAD_TARGET_LINUX_X86_64:
  case CUDALOAD_TARGET_LINUX_AARCH64:
    return CL_NAMING_LINUX;
  case CUDALOAD_TARGET_WINDOWS:
  case CUDALOAD_TARGET_WINDOWS_X86_64:
  case CUDALOAD_TARGET_WINDOWS_ARM64:
    return CL_NAMING_WINDOWS;
  default:
    return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS ? CL_NAMING_WINDOWS
                                                          : CL_NAMING_LINUX;
  }
}

/* Append a root (path copied); returns its index via *index. */
static int add_scanned_root(cl_inventory *inv, const char *path,
                            const char *origin, size_t *index) {
  if (cl_reserve((void **)&inv->roots, &inv->root_capacity, inv->root_count + 1,
                 sizeof(cl_root)))
    return CUDALOAD_E_NO_MEMORY;
  char *copy = cl_strdup(path);
  if (!copy)
    return CUDALOAD_E_NO_MEMORY;
  cl_root *r = &inv->roots[inv->root_count];
  r->path = copy;
  r->origin = origin;
  r->status = CUDALOAD_OK;
  r->detail = NULL;
  r->fix = NULL;
  r->record = NULL;
  *index = inv->root_count++;
  return CUDALOAD_OK;
}

/* What a scan has seen, indexed so that finding a duplicate costs the same
 * however much was seen (a linear search per file made a folder of 100,000
 * files, or 5,000 roots, quadratic). */
typedef struct scanner {
  cudaload_ctx *ctx;
  cl_naming naming;
  size_t root; /* index of the root being scanned */
  int status;  /* first fatal error (out of memory) */
  /* Per root, what makes two roots one: the real path, else the path as
   * given (tidied); owned here, keys of the two indexes below. */
  char **root_keys;
  size_t root_keys_capacity;
  cl_str_index folder_roots; /* folder roots by key */
  cl_str_index cache_roots;  /* ld.so.cache pseudo-roots by key */
  /* Folder roots by the path as listed (the inventory's roots[i].path), so that
   * a root given again in the same spelling costs no real-path lookup. */
  cl_str_index folder_spellings;
  cl_str_index libraries; /* the inventory's libraries by real path */
  /* Folders listed, by identity ("device:inode", owned in folder_keys):
   * a folder reached again through another spelling or link (a toolkit's
   * lib64, lib and targets/<arch>/lib are often one) is listed once. */
  cl_str_index listed;
  char **folder_keys;
  unsigned char *folder_seen; /* per listed folder: LISTED_* bits */
  size_t folder_count, folder_capacity, seen_capacity;
  /* Per listed folder (parallel to folder_seen), the names its listing
   * held, for a root and the folders directly in it (lib/, lib64/): the
   * layout walk leaves out probes below a name they did not hold. NULL:
   * not kept (another folder, or a listing that failed). */
  struct folder_names **names_of;
  size_t names_capacity;
  /* Each spelling the walk visited a listed folder by (root/lib64,
   * root/lib), owned in spellings -> its index in names_of. */
  cl_str_index spelled;
  char **spellings;
  size_t spelling_count, spelling_capacity;
  cl_str_index shims; /* the inventory's shims by path */
  /* What cl_os_writable_by_others() said of each folder, per use, so that a
   * folder many libraries (or roots) share is asked about once. */
  struct trust_check *checks;
  size_t check_count, check_capacity;
  cl_str_index checked[CL_TRUST_LIBRARY_FILE];
  /* The way up from the last library folder met (folders repeat: a listing
   * gives one folder's files in a row). */
  char *way_folder;    /* that folder, owned; NULL: none yet */
  size_t way_root;     /* the root it was met from */
  char *way_unsafe;    /* the folder on its way others can rename in */
  const char *way_why; /* why, borrowed from checks */
  /* The stamp of the root being scanned, taken before its walk, which
   * visits it first (root_stamped: taken). */
  cl_file_stamp root_stamp;
  int root_stamped;
  /* 1 until the walk lists the root, when its first listing is what tells
   * whether it can be listed (no look of its own before). */
  int root_listing_pending;
} scanner;

/* The names of one folder's listing, compared as ASCII letters in either
 * case (a probe of "Lib" on a case-insensitive file system finds "lib"). */
typedef struct folder_names {
  char **names;
  size_t count, capacity;
  cl_str_index index;
} folder_names;

static void folder_names_free(folder_names *n) {
  if (!n)
    return;
  cl_str_index_free(&n->index);
  for (size_t i = 0; i < n->count; ++i)
    free(n->names[i]);
  free(n->names);
  free(n);
}

/* What cl_os_writable_by_others() said (why malloc'ed, may be NULL). */
typedef struct judgement {
  int unsafe;
  char *why;
} judgement;

typedef struct trust_check {
  char *path; /* owned; the key of checked[use] */
  int unsafe;
  char *why; /* may be NULL when unsafe: memory ran out for the sentence */
} trust_check;

static void out_of_memory(scanner *s) {
  if (!s->status)
    s->status = cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_scan: out of memory");
}

/* Copy v into lib; 1 when out of memory (lib keeps what it had). */
static int store_version(cl_library *lib, cl_found_version *v) {
  char *version = cl_strdup(v->version);
  char *file = cl_strdup(v->file);
  if (!version || !file) {
    free(version);
    free(file);
    return 1;
  }
  free(lib->version);
  free(lib->version_file);
  free(lib->version_distrust);
  lib->version = version;
  lib->version_file = file;
  lib->version_source = v->source;
  lib->cuda_major = v->cuda_major;
  lib->version_distrust = v->distrust;
  v->distrust = NULL;
  return 0;
}

/* Asked only for a library the scan left pending, so after a scan made the
 * inventory. */
static cl_version_cache *version_cache_of(cudaload_ctx *ctx) {
  cl_inventory *inv = ctx->inventory;
  if (!inv->version_cache) {
    inv->version_cache = cl_version_cache_make(ctx);
    inv->version_cache_free = cl_version_cache_free;
  }
  return inv->version_cache;
}

const cl_refusal *cl_inventory_refused(const cudaload_ctx *ctx,
                                       const char *family, int major) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (size_t i = 0; i < inv->refusal_count; ++i) {
    const cl_refusal *r = &inv->refusals[i];
    if (r->entry && !strcmp(r->entry->family, family) &&
        (!major || r->major == major))
      return r;
  }
  return NULL;
}

cl_library *cl_inventory_library_at(const cudaload_ctx *ctx, const char *path) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (size_t i = 0; i < inv->library_count; ++i)
    if (!strcmp(inv->libraries[i].path, path))
      return &inv->libraries[i];
  return NULL;
}

void cl_library_settle_version(const cudaload_ctx *ctx, cl_library *lib) {
  if (!lib || !lib->pending_folder)
    return;
  /* add_library() made it before it left the version for later. */
  cl_version_cache *c = ctx->inventory->version_cache;
  if (c) {
    cl_found_version v;
    cl_find_version(c, cl_ctx_naming(ctx), lib->pending_folder,
                    lib->pending_name, lib->path, &lib->pending_match, &v);
    store_version(lib, &v); /* out of memory: the version stays unknown */
    cl_binary_info_free(&v.pe);
    free(v.distrust); /* NULL when stored */
  }
  free(lib->pending_folder);
  free(lib->pending_name);
  lib->pending_folder = lib->pending_name = NULL;
}

void cl_inventory_settle_versions(cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (size_t i = 0; i < inv->library_count; ++i)
    cl_library_settle_version(ctx, &inv->libraries[i]);
}

/* Add a library. A wheel's version waits for the first question about it:
 * the dist-info folder that owns the file can only be found by listing
 * site-packages, which may hold thousands of unrelated packages, and a plan
 * for "cudnn=9" needs no more than the major its file name gives. */
static int add_library(scanner *s, const cl_name_match *m, const char *folder,
                       const char *name, char *real_path) {
  cudaload_ctx *ctx = s->ctx;
  if (cl_str_index_find(&s->libraries, real_path, NULL)) {
    free(real_path); /* an alias, or reached again from a later root */
    return 0;
  }
  cl_version_cache *c = version_cache_of(ctx);
  if (!c || cl_reserve((void **)&ctx->inventory->libraries,
                       &ctx->inventory->library_capacity,
                       ctx->inventory->library_count + 1, sizeof(cl_library))) {
    free(real_path);
    out_of_memory(s);
    return 1;
  }
  cl_library *lib = &ctx->inventory->libraries[ctx->inventory->library_count];
  memset(lib, 0, sizeof *lib);
  lib->entry = m->entry;
  lib->major = m->major;
  lib->cuda_major = m->cuda_major;
  lib->version_source = "none";
  lib->path = real_path;
  lib->root = s->root;
  int failed = 0;
  if (cl_wheel_package_start(folder)) {
    lib->version = cl_strdup("");
    lib->version_file = cl_strdup("");
    lib->pending_folder = cl_strdup(folder);
    lib->pending_name = cl_strdup(name);
    lib->pending_match = *m;
    lib->version_deferred = 1;
    failed = !lib->version || !lib->version_file || !lib->pending_folder ||
             !lib->pending_name;
  } else {
    cl_found_version v;
    cl_find_version(c, s->naming, folder, name, real_path, m, &v);
    failed = store_version(lib, &v) || cl_version_cache_out_of_memory(c);
    cl_binary_info_free(&v.pe);
    free(v.distrust); /* NULL when stored */
  }
  /* The index borrows the path the library owns. */
  if (failed || cl_str_index_add(&s->libraries, real_path,
                                 ctx->inventory->library_count)) {
    free(lib->version);
    free(lib->version_file);
    free(lib->version_distrust);
    free(lib->pending_folder);
    free(lib->pending_name);
    free(real_path);
    out_of_memory(s);
    return 1;
  }
  ctx->inventory->library_count++;
  return 0;
}

/* The real path of path, or NULL when it does not resolve (missing, a
 * loop): an answer here, so no error is written. */
static char *resolve_quietly(const char *path) {
  return cl_os_real_path_quiet(path, NULL);
}

/* --- what other users can do to a library's folders and file ------------ */

/* Why other users can do to the folder `path` what `use` forbids, or NULL.
 * Asked of the OS once per folder and use. */
/* Remember what cl_os_writable_by_others() said of path for use (why is
 * taken over); the answer, as unsafe_because() gives it. */
static const char *remember_check(scanner *s, const char *path,
                                  cl_trust_use use, int unsafe, char *why) {
  static const char unknown[] = CL_WORDS_WRITABLE_BY_OTHER_USERS;
  char *key = cl_strdup(path);
  if (!key ||
      cl_reserve((void **)&s->checks, &s->check_capacity, s->check_count + 1,
                 sizeof *s->checks) ||
      cl_str_index_add(&s->checked[use], key, s->check_count)) {
    free(key); /* not remembered: asked again next time */
    free(why);
    return unsafe ? unknown : NULL;
  }
  trust_check *c = &s->checks[s->check_count++];
  c->path = key;
  c->unsafe = unsafe;
  c->why = why;
  return !unsafe ? NULL : why ? why : unknown;
}

static const char *unsafe_because(scanner *s, const char *path,
                                  cl_trust_use use) {
  static const char unknown[] = CL_WORDS_WRITABLE_BY_OTHER_USERS;
  size_t at;
  if (cl_str_index_find(&s->checked[use], path, &at))
    return !s->checks[at].unsafe ? NULL
           : s->checks[at].why   ? s->checks[at].why
                                 : unknown;
  char *why = NULL;
  int unsafe = cl_os_writable_by_others(path, use, &why);
  return remember_check(s, path, use, unsafe, why);
}

/* The stamp of a folder the scan may list, and, from the same look at the
 * file system, whether others can add to it (the answer refuse_writable()
 * then finds remembered). The root's was taken before its walk. */
static int stamp_folder(const char *folder, cl_file_stamp *stamp,
                        void *opaque) {
  scanner *s = opaque;
  if (s->root_stamped &&
      strcmp(folder, s->ctx->inventory->roots[s->root].path) == 0) {
    *stamp = s->root_stamp;
    return 1;
  }
  int unsafe;
  char *why;
  int found = cl_os_path_stamp_judged(folder, CL_TRUST_LIBRARY_FOLDER, stamp,
                                      &unsafe, &why);
  if (found && stamp->kind == CL_KIND_DIRECTORY &&
      !cl_str_index_find(&s->checked[CL_TRUST_LIBRARY_FOLDER], folder, NULL))
    remember_check(s, folder, CL_TRUST_LIBRARY_FOLDER, unsafe, why);
  else
    free(why);
  return found;
}

/* Mark the root being scanned CUDALOAD_E_INSECURE, keeping the first
 * reason (detail, malloc'ed, may be NULL) for its report, and record what
 * was refused: `path` (a library when m is given, else a folder), with the
 * command that makes it private for `use`. */
static void mark_insecure(scanner *s, char *detail, const char *path,
                          cl_trust_use use, const cl_name_match *m) {
  cudaload_ctx *ctx = s->ctx;
  char *fix = cl_os_private_fix(path, use);
  char *copy = cl_strdup(path);
  if (!fix || !copy ||
      cl_reserve((void **)&ctx->inventory->refusals,
                 &ctx->inventory->refusal_capacity,
                 ctx->inventory->refusal_count + 1,
                 sizeof *ctx->inventory->refusals)) {
    free(copy);
    free(fix);
    free(detail);
    out_of_memory(s);
    return;
  }
  cl_refusal *r = &ctx->inventory->refusals[ctx->inventory->refusal_count++];
  r->path = copy;
  r->entry = m ? m->entry : NULL;
  r->major = m ? m->major : 0;
  r->fix = fix;
  cl_root *root = &ctx->inventory->roots[s->root];
  if (root->status == CUDALOAD_OK || !root->detail) {
    root->status = CUDALOAD_E_INSECURE;
    free(root->detail);
    free(root->fix);
    root->detail = detail;
    root->fix = cl_strdup(fix);
    return;
  }
  free(detail);
}

/* A folder other users can write to is refused (its libraries are not
 * listed) unless the ctx allows it; the root is marked CUDALOAD_E_INSECURE
 * with the first such folder named. Returns 1 when refused. */
static int refuse_writable(scanner *s, const char *folder) {
  if (s->ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS)
    return 0;
  const char *why = unsafe_because(s, folder, CL_TRUST_LIBRARY_FOLDER);
  if (!why)
    return 0;
  mark_insecure(s, cl_strdup_printf("%s is %s", folder, why), folder,
                CL_TRUST_LIBRARY_FOLDER, NULL);
  return 1;
}

/* unsafe_because() as the walk up asks it (trust.h). */
static const char *ask_scanner(void *opaque, const char *folder,
                               cl_trust_use use) {
  return unsafe_because(opaque, folder, use);
}

/* The first folder above `folder`, up to the root being scanned, in which
 * others can rename what it holds (borrowed, with *why), or NULL. The
 * answer for the last folder asked is kept: a folder's files come in a
 * row. */
static const char *unsafe_on_the_way(scanner *s, const char *folder,
                                     const char **why) {
  if (s->way_folder && s->way_root == s->root &&
      strcmp(s->way_folder, folder) == 0) {
    *why = s->way_why;
    return s->way_unsafe;
  }
  free(s->way_folder);
  free(s->way_unsafe);
  s->way_folder = cl_strdup(folder);
  s->way_root = s->root;
  s->way_unsafe = NULL;
  /* The root is checked itself; the folders above a root are the caller's
   * choice of root (SECURITY.md). */
  s->way_unsafe = cl_trust_unsafe_on_the_way(folder, s->root_keys[s->root],
                                             ask_scanner, s, &s->way_why);
  *why = s->way_why;
  return s->way_unsafe;
}

/* Refuse the library listed as `listed` whose real file is `real` when
 * others can write to that file, add a file to its folder (the folder a
 * plan puts on the search path; a link may lead out of the root), or
 * rename what a folder on the way to it holds. The ld.so.cache pseudo-root
 * has no way to walk: the file and its folder are checked. file_judged:
 * what a stat of `real` already said of it (NULL: asked here). Returns 1
 * when refused, with the root marked CUDALOAD_E_INSECURE. */
static int refuse_unsafe_library(scanner *s, const char *listed,
                                 const char *real, const cl_name_match *m,
                                 const judgement *file_judged) {
  /* What was judged of the file, if it was (its why is freed here). */
  char *file_why = file_judged ? file_judged->why : NULL;
  if (s->ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) {
    free(file_why);
    return 0;
  }
  int linked = strcmp(listed, real) != 0;
  char *folder = cl_path_dirname(real);
  char *shown = linked ? cl_strdup_printf("%s resolves to %s", listed, real)
                       : cl_strdup(listed);
  if (!folder || !shown) {
    free(folder);
    free(shown);
    free(file_why);
    out_of_memory(s);
    return 1;
  }
  const char *why = NULL, *through = NULL;
  char *detail = NULL;
  const char *culprit = NULL; /* what others can write to */
  cl_trust_use use = CL_TRUST_LIBRARY_FILE;
  if (file_judged
          ? file_judged->unsafe
          : cl_os_writable_by_others(real, CL_TRUST_LIBRARY_FILE, &file_why)) {
    detail = cl_strdup_printf("%s%s %s", shown, linked ? ", which is" : " is",
                              file_why ? file_why
                                       : CL_WORDS_WRITABLE_BY_OTHER_USERS);
    culprit = real;
  } else if ((why = unsafe_because(s, folder, CL_TRUST_LIBRARY_FOLDER))) {
    detail = cl_strdup_printf("%s%s %s, which is %s", shown,
                              linked ? ", in" : " is in", folder, why);
    culprit = folder;
    use = CL_TRUST_LIBRARY_FOLDER;
  } else if (strcmp(s->ctx->inventory->roots[s->root].origin,
                    CL_ORIGIN_LDCACHE) != 0 &&
             (through = unsafe_on_the_way(s, folder, &why))) {
    detail = cl_strdup_printf("%s%s %s, which is %s", shown,
                              linked ? ", reached through"
                                     : CL_WORDS_IS_REACHED_THROUGH,
                              through, why);
    culprit = through;
    use = CL_TRUST_FOLDER_ON_THE_WAY;
  }
  if (culprit)
    mark_insecure(s, detail, culprit, use, m);
  free(file_why);
  free(shown);
  free(folder);
  return culprit != NULL;
}

/* Classify folder/name and add it. Symlinks count as their real file, under
 * the real file's name when that is a catalog name (libcudnn.so.8 ->
 * libcudnn.so.8.9.2 reports 8.9.2). Folders, FIFOs and devices named like
 * libraries are skipped: they are never opened here. */
typedef struct candidate {
  char *name;
  cl_file_kind kind; /* as the listing saw it */
  cl_name_match match;
} candidate;

static int by_candidate_name(const void *a, const void *b) {
  return strcmp(((const candidate *)a)->name, ((const candidate *)b)->name);
}

/* The real path of the link `full`, listed in a folder whose real path is
 * folder_real beside `listed` (its catalog names, sorted by name), when it
 * names a file of that listing that is no link (libnvvm.so ->
 * libnvvm.so.4): one readlink instead of resolving it whole. NULL
 * otherwise (then it is resolved). */
static char *sibling_target(const char *full, const char *folder_real,
                            const candidate *listed, size_t count) {
  if (!folder_real || !listed)
    return NULL;
  char *target = cl_os_link_target(full);
  candidate key;
  key.name = target;
  const candidate *hit =
      target && !strpbrk(target, "/\\") && strcmp(target, ".") != 0 &&
              strcmp(target, "..") != 0
          ? bsearch(&key, listed, count, sizeof *listed, by_candidate_name)
          : NULL;
  char *real = hit && hit->kind == CL_KIND_REGULAR
                   ? cl_path_join(folder_real, target)
                   : NULL;
  free(target);
  return real;
}

static void consider_file(scanner *s, const char *folder,
                          const char *folder_real, const candidate *listed,
                          size_t listed_count, const char *name,
                          cl_file_kind kind, const cl_name_match *m) {
  char *full = cl_path_join(folder, name);
  if (!full) {
    out_of_memory(s);
    return;
  }
  if (kind == CL_KIND_UNKNOWN) /* the listing did not say */
    kind = cl_os_lstat_kind(full);
  char *real = NULL;
  cl_name_match real_match = *m;
  /* A link's target is stat'ed to tell a file: that look judges it too. */
  judgement target = {0, NULL};
  int judged = 0;
  if (kind == CL_KIND_REGULAR) {
    real =
        folder_real ? cl_path_join(folder_real, name) : resolve_quietly(full);
  } else if (kind == CL_KIND_SYMLINK) {
    real = sibling_target(full, folder_real, listed, listed_count);
    if (!real)
      real = resolve_quietly(full);
    cl_file_stamp stamp;
    judged =
        real && cl_os_path_stamp_judged(real, CL_TRUST_LIBRARY_FILE, &stamp,
                                        &target.unsafe, &target.why);
    if (real && (!judged || stamp.kind != CL_KIND_REGULAR)) {
      free(real);
      real = NULL;
    }
    if (real)
      cl_catalog_match(cl_path_basename(real), s->naming, &real_match);
  }
  if (real && !cl_str_index_find(&s->libraries, real, NULL)) {
    /* target.why is refuse_unsafe_library()'s to free */
    if (refuse_unsafe_library(s, full, real, &real_match,
                              judged ? &target : NULL)) {
      free(real);
      real = NULL;
    }
  } else {
    free(target.why);
  }
  free(full);
  if (real)
    add_library(s, &real_match, folder, name, real);
}

typedef struct folder_listing {
  scanner *s;
  candidate *items;
  size_t count, capacity;
  const char *folder;
  int libs_folder;     /* a <pkg>.libs folder: look for renamed copies too */
  folder_names *names; /* every name listed, when kept; NULL: not kept */
} folder_listing;

/* Keep name among the listing's names; out of memory, the names are
 * dropped (then no probe is left out). */
static void keep_name(folder_listing *l, const char *name) {
  folder_names *n = l->names;
  if (!n || cl_str_index_find(&n->index, name, NULL))
    return;
  char *copy = cl_strdup(name);
  if (!copy ||
      cl_reserve((void **)&n->names, &n->capacity, n->count + 1,
                 sizeof *n->names) ||
      cl_str_index_add(&n->index, copy, n->count)) {
    free(copy);
    folder_names_free(n);
    l->names = NULL;
    return;
  }
  n->names[n->count++] = copy;
}

/* The real path of name in the listed folder (the joined path when it
 * cannot be resolved); malloc'ed, NULL when out of memory. */
static char *listed_path(const folder_listing *l, const char *name) {
  char *full = cl_path_join(l->folder, name);
  char *real = full ? resolve_quietly(full) : NULL;
  if (!real)
    return full;
  free(full);
  return real;
}

/* Note a bundled copy of a main library in a <pkg>.libs folder. */
static void note_bundled_shim(folder_listing *l, const char *name) {
  char original[256];
  cl_name_match m;
  if (!cl_catalog_auditwheel_original(name, original, sizeof original) ||
      !cl_catalog_match(original, CL_NAMING_LINUX, &m) ||
      m.entry->role != CL_ROLE_MAIN)
    return;
  cudaload_ctx *ctx = l->s->ctx;
  char *path = listed_path(l, name);
  const char *base = cl_path_basename(l->folder);
  char *package = cl_strndup(base, strlen(base) - 5); /* minus ".libs" */
  int duplicate = path && cl_str_index_find(&l->s->shims, path, NULL);
  if (!path || !package || duplicate ||
      cl_reserve((void **)&ctx->inventory->shims,
                 &ctx->inventory->shim_capacity, ctx->inventory->shim_count + 1,
                 sizeof(cl_bundled_shim)) ||
      cl_str_index_add(&l->s->shims, path, ctx->inventory->shim_count)) {
    if (!path || !package || !duplicate)
      out_of_memory(l->s);
    free(path);
    free(package);
    return;
  }
  cl_bundled_shim *shim = &ctx->inventory->shims[ctx->inventory->shim_count++];
  shim->entry = m.entry;
  shim->major = m.major;
  shim->path = path;
  shim->package = package;
}

/* Note a known consumer's library (consumers.h) in its package folder,
 * with the package's version from the file name or the site folder's
 * dist-info. */
static void note_known_consumer(folder_listing *l, const char *name) {
  const char *package =
      cl_consumer_package_of(cl_path_basename(l->folder), name, l->s->naming);
  if (!package)
    return;
  cudaload_ctx *ctx = l->s->ctx;
  char *path = listed_path(l, name);
  for (size_t i = 0; path && i < ctx->inventory->consumer_count; ++i)
    if (strcmp(ctx->inventory->consumers[i].path, path) == 0) {
      free(path); /* the same folder reached from two roots */
      return;
    }
  if (!path || cl_reserve((void **)&ctx->inventory->consumers,
                          &ctx->inventory->consumer_capacity,
                          ctx->inventory->consumer_count + 1,
                          sizeof(cl_noticed_consumer))) {
    free(path);
    out_of_memory(l->s);
    return;
  }
  cl_noticed_consumer *c =
      &ctx->inventory->consumers[ctx->inventory->consumer_count++];
  c->package = package;
  c->path = path;
  c->version[0] = '\0';
  if (!cl_consumer_version_from_name(name, c->version, sizeof c->version)) {
    char *site = cl_path_dirname(l->folder);
    if (site)
      cl_consumer_version_from_site(site, package, c->version,
                                    sizeof c->version);
    free(site);
  }
}

static int collect_candidate(const char *name, cl_file_kind kind,
                             void *opaque) {
  folder_listing *l = opaque;
  cl_name_match m;
  keep_name(l, name);
  if (!cl_catalog_match(name, l->s->naming, &m)) {
    if (l->libs_folder)
      note_bundled_shim(l, name);
    note_known_consumer(l, name);
    return l->s->status != 0;
  }
  if (cl_reserve((void **)&l->items, &l->capacity, l->count + 1,
                 sizeof(candidate)) ||
      !(l->items[l->count].name = cl_strdup(name))) {
    out_of_memory(l->s);
    return 1;
  }
  l->items[l->count].kind = kind;
  l->items[l->count++].match = m;
  return 0;
}

#define LISTED_CANDIDATES 1u /* its listing held catalog names */
#define LISTED_REFUSED 2u    /* and its folder was refused as writable */

/* Whether folder (whose stat is stamp) was listed before under another
 * spelling, and then what its listing found; else it is remembered now
 * (*at: its index, for the outcome). */
static int listed_before(scanner *s, const cl_file_stamp *stamp, unsigned *seen,
                         size_t *at) {
  char key[48];
  *at = SIZE_MAX;
  if (stamp->device == 0 && stamp->inode == 0)
    return 0; /* a file system that tells no identity: listed each time */
  snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)stamp->device,
           (unsigned long long)stamp->inode);
  if (cl_str_index_find(&s->listed, key, at)) {
    *seen = s->folder_seen[*at];
    return 1;
  }
  char *copy = cl_strdup(key);
  if (!copy ||
      cl_reserve((void **)&s->folder_keys, &s->folder_capacity,
                 s->folder_count + 1, sizeof *s->folder_keys) ||
      cl_reserve((void **)&s->folder_seen, &s->seen_capacity,
                 s->folder_count + 1, 1) ||
      cl_reserve((void **)&s->names_of, &s->names_capacity, s->folder_count + 1,
                 sizeof *s->names_of) ||
      cl_str_index_add(&s->listed, copy, s->folder_count)) {
    free(copy); /* not remembered: listed again if met again */
    return 0;
  }
  s->folder_keys[s->folder_count] = copy;
  s->folder_seen[s->folder_count] = 0;
  s->names_of[s->folder_count] = NULL;
  *at = s->folder_count++;
  return 0;
}

/* Remember that the walk reached listed folder `at` by this spelling. */
static void note_spelling(scanner *s, const char *folder, size_t at) {
  if (at == SIZE_MAX || cl_str_index_find(&s->spelled, folder, NULL))
    return;
  char *copy = cl_strdup(folder);
  if (!copy ||
      cl_reserve((void **)&s->spellings, &s->spelling_capacity,
                 s->spelling_count + 1, sizeof *s->spellings) ||
      cl_str_index_add(&s->spelled, copy, at)) {
    free(copy); /* not remembered: its probes are made */
    return;
  }
  s->spellings[s->spelling_count++] = copy;
}

/* Whether folder is the root being scanned or a folder directly in it
 * (the parents of the layout walk's probes). */
static int root_or_child(const scanner *s, const char *folder) {
  const char *root = s->ctx->inventory->roots[s->root].path;
  if (strcmp(folder, root) == 0)
    return 1;
  char *parent = cl_path_dirname(folder);
  int child = parent && strcmp(parent, root) == 0;
  free(parent);
  return child;
}

static int name_absent(const char *folder, const char *name, void *opaque) {
  scanner *s = opaque;
  size_t at;
  if (!cl_str_index_find(&s->spelled, folder, &at) || !s->names_of[at])
    return 0;
  return !cl_str_index_find(&s->names_of[at]->index, name, NULL);
}

/* The listed folder's judgement (stamp_folder(), a stat that followed its
 * links) is its real path's too: its libraries' folder is asked by that. */
static void seed_real_folder_check(scanner *s, const char *folder,
                                   const char *folder_real) {
  size_t at;
  cl_str_index *checked = &s->checked[CL_TRUST_LIBRARY_FOLDER];
  if (!folder_real || !cl_str_index_find(checked, folder, &at) ||
      cl_str_index_find(checked, folder_real, NULL))
    return;
  char *why = s->checks[at].why ? cl_strdup(s->checks[at].why) : NULL;
  if (s->checks[at].why && !why)
    return; /* not remembered: asked again */
  remember_check(s, folder_real, CL_TRUST_LIBRARY_FOLDER, s->checks[at].unsafe,
                 why);
}

static int scan_folder(const char *folder, const cl_file_stamp *stamp,
                       void *opaque) {
  scanner *s = opaque;
  unsigned seen = 0;
  size_t at;
  cl_root *root = &s->ctx->inventory->roots[s->root];
  int is_root = s->root_listing_pending && strcmp(folder, root->path) == 0;
  s->root_listing_pending = 0; /* the walk visits the root first */
  int before = listed_before(s, stamp, &seen, &at);
  note_spelling(s, folder, at);
  if (before && is_root) {
    /* Listed as a folder of another root: asked whether it can be. */
    int rc = cl_os_dir_check_listable_quiet(folder, NULL);
    if (rc) {
      root->status = rc;
      return 1;
    }
  }
  if (before) {
    /* The same files as before, each already taken or turned down (a
     * library is known by its real path): only this spelling's own way
     * there is checked, as a listing would. A folder refused before may
     * be reachable safely this way: then it is listed after all. */
    if (!(seen & LISTED_CANDIDATES) || refuse_writable(s, folder) ||
        !(seen & LISTED_REFUSED))
      return s->status != 0;
  }
  const char *base = cl_path_basename(folder);
  size_t base_len = strlen(base);
  folder_listing l = {s,
                      NULL,
                      0,
                      0,
                      folder,
                      s->naming == CL_NAMING_LINUX && base_len > 5 &&
                          strcmp(base + base_len - 5, ".libs") == 0,
                      NULL};
  if (at != SIZE_MAX && !s->names_of[at] && root_or_child(s, folder) &&
      (l.names = calloc(1, sizeof *l.names)) != NULL)
    cl_str_index_init(&l.names->index, 1);
  /* An unreadable sub-folder only hides its own files. */
  int listed = cl_os_list_dir_quiet(folder, collect_candidate, &l, NULL);
  if (is_root && listed != CUDALOAD_OK) {
    /* A root that cannot be listed is reported, not taken as empty; its
     * walk stops, as if it had not started. */
    root->status = listed;
    folder_names_free(l.names);
    for (size_t i = 0; i < l.count; ++i)
      free(l.items[i].name);
    free(l.items);
    return 1;
  }
  /* Only a whole listing tells what is not there. */
  if (listed == CUDALOAD_OK && !s->status && l.names)
    s->names_of[at] = l.names;
  else
    folder_names_free(l.names);
  int refused = l.count > 0 && refuse_writable(s, folder);
  if (at != SIZE_MAX)
    s->folder_seen[at] = (unsigned char)((l.count > 0 ? LISTED_CANDIDATES : 0) |
                                         (refused ? LISTED_REFUSED : 0));
  if (l.count > 0 && !refused) {
    qsort(l.items, l.count, sizeof(candidate), by_candidate_name);
    char *folder_real = resolve_quietly(folder);
    seed_real_folder_check(s, folder, folder_real);
    for (size_t i = 0; i < l.count && !s->status; ++i)
      consider_file(s, folder, folder_real, l.items, l.count, l.items[i].name,
                    l.items[i].kind, &l.items[i].match);
    free(folder_real);
  }
  for (size_t i = 0; i < l.count; ++i)
    free(l.items[i].name);
  free(l.items);
  return s->status != 0;
}

static void consider_cache_entry(const char *key, const char *path,
                                 void *opaque) {
  scanner *s = opaque;
  cl_name_match m;
  if (s->status || !cl_catalog_match(key, s->naming, &m))
    return;
  char *folder = cl_path_dirname(path);
  if (!folder) {
    return;
  }
  consider_file(s, folder, NULL, NULL, 0, cl_path_basename(path),
                CL_KIND_UNKNOWN, &m);
  free(folder);
}

static void scan_root(scanner *s, size_t index) {
  cl_root *root = &s->ctx->inventory->roots[index];
  s->root = index;
  /* A root that cannot be read is noted in its status, not failed: the
   * scan goes on to the next one, keeping the last error it had. */
  if (strcmp(root->origin, CL_ORIGIN_LDCACHE) == 0) {
    int rc = cl_ldcache_read_cached_quiet(cl_file_cache_of(s->ctx), root->path,
                                          consider_cache_entry, s);
    if (rc)
      root->status = rc;
    return;
  }
  s->root_stamped = 0;
  s->root_stamped = stamp_folder(root->path, &s->root_stamp, s);
  cl_file_kind kind = s->root_stamped ? s->root_stamp.kind : CL_KIND_MISSING;
  if (kind == CL_KIND_MISSING) {
    root->status = CUDALOAD_E_NOT_FOUND;
    return;
  }
  if (kind != CL_KIND_DIRECTORY) {
    root->status = CUDALOAD_E_NOT_A_FILE;
    return;
  }
  /* A root that cannot be listed is reported, not taken as empty. The
   * walk's first listing, of the root, tells; asked apart only where the
   * walk does not list it, or where a root others can write to must
   * report that it cannot be listed before that it is refused. */
  int listing_tells = cl_layout_visits_root(root->path) &&
                      !unsafe_because(s, root->path, CL_TRUST_LIBRARY_FOLDER);
  if (!listing_tells) {
    int rc = cl_os_dir_check_listable_quiet(root->path, NULL);
    if (rc) {
      root->status = rc;
      return;
    }
  }
  if (refuse_writable(s, root->path))
    return;
  s->root_listing_pending = listing_tells;
  cl_layout_folders(root->path, s->naming, scan_folder, name_absent,
                    stamp_folder, s);
  s->root_listing_pending = 0;
  s->root_stamped = 0;
}

/* What makes two spellings of a root one root: its real path (symlinks,
 * "." and "..", a trailing separator, on Windows the case of letters, all
 * resolved by the OS); for a root that does not resolve (missing), the
 * path as given without trailing separators and, on Windows, with '/'
 * written as '\\'. malloc'ed. */
static char *root_key(const char *path, int *resolved) {
  char *key = resolve_quietly(path);
  *resolved = key != NULL;
  if (key)
    return key;
  key = cl_strdup(path);
  if (!key)
    return NULL;
  size_t n = strlen(key);
  for (size_t i = 0; i < n; ++i)
    if (key[i] == '/')
      key[i] = CL_DIR_SEP;
  /* Keep the separator of "/" and "C:\\": there it names the top. */
  while (n > 1 && key[n - 1] == CL_DIR_SEP &&
         !(cl_os_host_target() == CUDALOAD_TARGET_WINDOWS && key[n - 2] == ':'))
    key[--n] = '\0';
  return key;
}

static void add_root(scanner *s, const char *path, const char *origin);

/* A folder an environment's record names becomes a root of its tier; a
 * record that cannot be used is listed among the roots with why, as a
 * root that cannot be read is, so that reports and the doctor say it. */
static void add_recorded_root(const char *record, const char *folder,
                              int status, const char *detail, void *opaque) {
  scanner *s = opaque;
  if (s->status)
    return;
  cl_inventory *inv = s->ctx->inventory;
  size_t before = inv->root_count, index;
  if (folder) {
    add_root(s, folder, CL_ORIGIN_RECORDED);
    if (inv->root_count == before || s->status)
      return; /* a root already, by another way: it keeps that one */
    /* The first of the roots it added is this folder (its own records are
     * not followed). */
    index = before;
  } else {
    /* Not a folder: no key of the root indexes, but a slot of root_keys,
     * which has one per root. */
    if (cl_reserve((void **)&s->root_keys, &s->root_keys_capacity,
                   inv->root_count + 1, sizeof(char *)) ||
        add_scanned_root(inv, record, CL_ORIGIN_RECORDED, &index)) {
      out_of_memory(s);
      return;
    }
    s->root_keys[index] = NULL;
    inv->roots[index].status = status;
    if (!(inv->roots[index].detail = cl_strdup(detail))) {
      out_of_memory(s);
      return;
    }
  }
  if (!(inv->roots[index].record = cl_strdup(record)))
    out_of_memory(s);
}

/* Search a root, unless the same real folder is a root already: then it
 * keeps its first position and origin, and is neither listed nor searched
 * again (5,000 --root arguments naming one folder are one root). The
 * ld.so.cache pseudo-root names a file, never a folder to list: it is only
 * ever the same as another cache root. */
static void add_root(scanner *s, const char *path, const char *origin) {
  if (s->status)
    return;
  int cache = strcmp(origin, CL_ORIGIN_LDCACHE) == 0;
  if (!cache && cl_str_index_find(&s->folder_spellings, path, NULL))
    return;
  int resolved;
  char *key = root_key(path, &resolved);
  if (!key) {
    out_of_memory(s);
    return;
  }
  cl_str_index *seen = cache ? &s->cache_roots : &s->folder_roots;
  if (cl_str_index_find(seen, key, NULL)) {
    free(key);
    return;
  }
  size_t index;
  if (cl_reserve((void **)&s->root_keys, &s->root_keys_capacity,
                 s->ctx->inventory->root_count + 1, sizeof(char *)) ||
      add_scanned_root(s->ctx->inventory, path, origin, &index)) {
    free(key);
    out_of_memory(s);
    return;
  }
  s->root_keys[index] = key; /* owned here, borrowed by the index */
  if (cl_str_index_add(seen, key, index) ||
      (!cache &&
       cl_str_index_add(&s->folder_spellings,
                        s->ctx->inventory->roots[index].path, index))) {
    out_of_memory(s);
    return;
  }
  if (resolved && !cache)
    cl_version_cache_note_real(version_cache_of(s->ctx),
                               s->ctx->inventory->roots[index].path, key);
  scan_root(s, index);
  /* An environment's own record of folders beside it (scan/
   * recorded_roots.h) follows it, of its tier. */
  if (cl_origin_tier(origin) == CL_TIER_ENVIRONMENT &&
      strcmp(origin, CL_ORIGIN_RECORDED) != 0 &&
      s->ctx->inventory->roots[index].status == CUDALOAD_OK)
    cl_recorded_roots_of(s->ctx->inventory->roots[index].path,
                         (s->ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) != 0,
                         add_recorded_root, s);
}

static void add_default_root(const char *path, const char *origin,
                             void *opaque) {
  add_root(opaque, path, origin);
}

/* An environment near the current folder: noted for the fix lines unless
 * it is one of the roots searched (the python3 on PATH's venv often is). */
static void note_nearby(const char *path, const char *origin, void *opaque) {
  scanner *s = opaque;
  (void)origin;
  if (s->status)
    return;
  int resolved;
  char *key = root_key(path, &resolved);
  char *copy = cl_strdup(path);
  cudaload_ctx *ctx = s->ctx;
  if (!key || !copy ||
      cl_reserve((void **)&ctx->inventory->nearby_environments,
                 &ctx->inventory->nearby_capacity,
                 ctx->inventory->nearby_count + 1, sizeof(char *))) {
    free(key);
    free(copy);
    out_of_memory(s);
    return;
  }
  if (cl_str_index_find(&s->folder_roots, key, NULL))
    free(copy);
  else
    ctx->inventory->nearby_environments[ctx->inventory->nearby_count++] = copy;
  free(key);
}

static void scanner_init(scanner *s, cudaload_ctx *ctx) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->naming = cl_ctx_naming(ctx);
  cl_str_index_init(&s->folder_roots, CL_PATH_FOLD_CASE);
  cl_str_index_init(&s->cache_roots, CL_PATH_FOLD_CASE);
  cl_str_index_init(&s->folder_spellings, CL_PATH_FOLD_CASE);
  /* File paths keep comparing byte for byte, as before: which alias is
   * reported must not change. */
  cl_str_index_init(&s->libraries, 0);
  cl_str_index_init(&s->listed, 0);
  cl_str_index_init(&s->shims, 0);
  cl_str_index_init(&s->spelled, 0);
  for (size_t i = 0; i < CL_TRUST_LIBRARY_FILE; ++i)
    cl_str_index_init(&s->checked[i], CL_PATH_FOLD_CASE);
}

/* Everything but s->status. */
static void scanner_free(scanner *s) {
  cl_str_index_free(&s->folder_roots);
  cl_str_index_free(&s->cache_roots);
  cl_str_index_free(&s->folder_spellings);
  cl_str_index_free(&s->libraries);
  cl_str_index_free(&s->listed);
  for (size_t i = 0; i < s->folder_count; ++i)
    free(s->folder_keys[i]);
  free(s->folder_keys);
  free(s->folder_seen);
  for (size_t i = 0; s->names_of && i < s->folder_count; ++i)
    folder_names_free(s->names_of[i]);
  free(s->names_of);
  cl_str_index_free(&s->spelled);
  for (size_t i = 0; i < s->spelling_count; ++i)
    free(s->spellings[i]);
  free(s->spellings);
  cl_str_index_free(&s->shims);
  for (size_t i = 0; i < CL_TRUST_LIBRARY_FILE; ++i)
    cl_str_index_free(&s->checked[i]);
  for (size_t i = 0; i < s->check_count; ++i) {
    free(s->checks[i].path);
    free(s->checks[i].why);
  }
  free(s->checks);
  free(s->way_folder);
  free(s->way_unsafe);
  for (size_t i = 0; i < s->ctx->inventory->root_count; ++i)
    free(s->root_keys[i]);
  free(s->root_keys);
}

static int scan_done(cudaload_ctx *ctx);

int cudaload_scan(cudaload_ctx *ctx) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_scan: NULL ctx");
  cl_ctx_clear_plan(ctx); /* a plan refers to the inventory it came from */
  if (inventory_begin(ctx))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_scan: out of memory");
  /* The same scan kept in the process, while every question it asked is
   * answered the same (scan_memo.h). */
  if (cl_scan_memo_find(ctx, take_kept, ctx->inventory)) {
    if (ctx->inventory->library_count && !version_cache_of(ctx)) {
      inventory_forget(ctx);
      return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_scan: out of memory");
    }
    return scan_done(ctx);
  }
  /* What the scan asks is noted, to keep it; not when files read before it
   * in this run (the file cache) answer without being asked again. */
  int64_t began = cl_os_file_time_now();
  cl_question_log log;
  cl_question_log_init(&log);
  int noting = !ctx->file_cache && cl_question_log_open(&log);
  scanner s;
  scanner_init(&s, ctx);
  /* In precedence order (docs/scan-contract.md, "Precedence"): a folder
   * met again later keeps its first, stronger origin. */
  for (size_t i = 0; i < ctx->explicit_count; ++i)
    add_root(&s, ctx->explicit_roots[i], "explicit");
  for (size_t i = 0; i < ctx->environment_count; ++i)
    add_root(&s, ctx->environment_roots[i], CL_ORIGIN_INTERPRETER);
  if (!(ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS))
    cl_default_roots(s.naming, ctx->environment_count == 0, add_default_root,
                     &s);
  /* Where the program given to cudaload_require_for finds its libraries
   * itself: last, and whatever the defaults, since the loader looks there
   * for that program whatever the roots. */
  for (size_t i = 0; i < ctx->program_root_count; ++i)
    add_root(&s, ctx->program_roots[i], CL_ORIGIN_PROGRAM);
  /* What the user may have meant but did not activate; only when the
   * active environment is the scan's own guess. */
  if (!(ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS) && ctx->environment_count == 0)
    cl_nearby_environments(note_nearby, &s);
  scanner_free(&s);
  if (ctx->inventory->version_cache)
    cl_version_cache_forget_reals(ctx->inventory->version_cache);
  if (noting) {
    cl_question_log_close(&log);
    if (!s.status)
      keep_scan(ctx, &log, began);
  }
  cl_question_log_free(&log);
  if (s.status) {
    int status = s.status;
    inventory_forget(ctx);
    return cl_fail(status, "cudaload_scan: out of memory");
  }
  return scan_done(ctx);
}

/* A scan's end, whether it walked or a kept scan answered. */
static int scan_done(cudaload_ctx *ctx) {
  ctx->inventory->scanned = 1;
  /* The scan succeeded, but say why a root was refused: the caller who
   * looks at cudaload_last_error() learns which folder and who can write. */
  for (size_t i = 0; i < ctx->inventory->root_count; ++i)
    if (ctx->inventory->roots[i].status == CUDALOAD_E_INSECURE) {
      cl_fail(CUDALOAD_E_INSECURE,
              "root %s refused: %s; fix: %s, " CL_ALLOW_WRITABLE_RISK,
              ctx->inventory->roots[i].path,
              ctx->inventory->roots[i].detail ? ctx->inventory->roots[i].detail
                                              : "writable by other users",
              ctx->inventory->roots[i].fix
                  ? ctx->inventory->roots[i].fix
                  : "make it writable only by its owner");
      break;
    }
  return CUDALOAD_OK;
}
