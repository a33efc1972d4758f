/* SPDX-License-Identifier: MIT */
/*
 * file_cache.c - each library file read once per run (file_cache.h): its
 * headers, symbols, names and first bytes, each read on the first question
 * that needs it and kept, keyed by the file's stamp. A failure is kept too,
 * for the path it was read as (its message names that path): asked again
 * through the same path it is answered without a read, through another it
 * is read again, so that every message names the path it was asked for.
 */
#include "binary/file_cache.h"

#include "binary/file_chunks.h"
#include "binary/known_builds.h"
#include "binary/names_store.h"

#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "core/context.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_BYTES 64u
/* The files a cache keeps open between questions (file_cache.h,
 * "Holding files open"), and the bytes their chunks may take in all. */
#define MAX_OPEN_FILES 128u
#define CHUNK_BUDGET ((size_t)4 << 20)
/* The references store flags (names_store.h). */
#define REFS_VERSIONED 0x1u
#define REFS_OPEN_BY_NAME 0x2u

typedef struct part {
  int done;
  int status;
  char *error;      /* the last error the failure left */
  char *error_path; /* the path it was asked for */
} part;

typedef struct entry {
  char *key;
  uint64_t size; /* the file's, from its stamp */
  part info_part;
  cl_binary_info info;
  part symbols_part;
  cl_binary_symbols symbols;
  part names_part;
  char **names; /* each once, in the order the scan met them */
  size_t name_count, name_capacity;
  cl_str_index name_index;
  int head_done, head_read_ok;
  size_t head_got;
  unsigned char head[HEAD_BYTES];
  /* What binding reads without the whole symbol table: the references the
   * cache's filter keeps (refs_part, into bind), and where the hash table
   * is (bind.lookup), prepared by that read or on the first lookup
   * (lookup_state: 0 not yet, 1 ready, -1 unusable: ask the whole read). */
  part refs_part;
  cl_binary_symbols bind;
  int lookup_state;
  /* The file, held open between questions, and what lookups read of it. */
  cl_file *file;
  cl_file_chunks chunks;
  /* The whole content of a small file read whole (ld.so.cache). */
  part whole_part;
  unsigned char *whole;
  size_t whole_size;
} entry;

struct cl_file_cache {
  entry **entries;
  size_t count, capacity;
  cl_str_index by_key;
  cl_file_cache_stats stats;
  cl_names_scratch *names_scratch; /* one for every search of the run */
  cl_names_store *store;           /* names kept across processes, or NULL */
  int use_known_builds;            /* known_builds.h, unless switched off */
  cl_clock clock;                  /* the store's "now" (a test's own) */
  /* Which references a consumer's read keeps, and the number the store
   * knows that choice by (cl_file_cache_set_reference_filter). */
  cl_ref_filter keep;
  void *keep_opaque;
  uint32_t keep_id;
  size_t open_files, chunk_bytes;
  int held; /* cl_file_cache_hold's count */
  /* The entries of held files by the path they were opened through: a
   * lookup by name asks the same file thousands of times in a run, and the
   * file held open is the one the run judges, so the path is not looked
   * at again until the files are released. */
  cl_str_index held_paths;
  char **held_names; /* the keys of held_paths, owned */
  size_t held_name_count, held_name_capacity;
};

cl_file_cache *cl_file_cache_new(void) {
  cl_file_cache *c = calloc(1, sizeof *c);
  if (c) {
    cl_str_index_init(&c->by_key, 0);
    cl_str_index_init(&c->held_paths, 0);
    c->use_known_builds = cl_known_builds_enabled();
    c->clock = cl_os_file_time_now;
  }
  return c;
}

void cl_file_cache_set_clock(cl_file_cache *c, cl_clock clock) {
  if (c)
    c->clock = clock ? clock : cl_os_file_time_now;
}

static void part_free(part *p) {
  free(p->error);
  free(p->error_path);
  memset(p, 0, sizeof *p);
}

static void forget_held_paths(cl_file_cache *c) {
  cl_str_index_free(&c->held_paths);
  for (size_t i = 0; i < c->held_name_count; ++i)
    free(c->held_names[i]);
  free(c->held_names);
  c->held_names = NULL;
  c->held_name_count = c->held_name_capacity = 0;
}

/* Index path as a way to e, whose file is held open (held_paths); without
 * memory the path is looked at each time instead. */
static void remember_held_path(cl_file_cache *c, entry *e, const char *path) {
  size_t at;
  if (!cl_str_index_find(&c->by_key, e->key, &at) ||
      cl_reserve((void **)&c->held_names, &c->held_name_capacity,
                 c->held_name_count + 1, sizeof *c->held_names))
    return;
  char *copy = cl_strdup(path);
  if (!copy || cl_str_index_add(&c->held_paths, copy, at) != CUDALOAD_OK) {
    free(copy);
    return;
  }
  c->held_names[c->held_name_count++] = copy;
}

static void entry_release(cl_file_cache *c, entry *e) {
  if (!e->file)
    return;
  c->chunk_bytes -= cl_file_chunks_bytes(&e->chunks);
  cl_file_chunks_drop(&e->chunks);
  cl_os_file_close(e->file);
  e->file = NULL;
  c->open_files--;
}

static void entry_free(entry *e) {
  free(e->key);
  part_free(&e->whole_part);
  free(e->whole);
  part_free(&e->refs_part);
  cl_binary_symbols_free(&e->bind);
  part_free(&e->info_part);
  cl_binary_info_free(&e->info);
  part_free(&e->symbols_part);
  cl_binary_symbols_free(&e->symbols);
  part_free(&e->names_part);
  for (size_t i = 0; i < e->name_count; ++i)
    free(e->names[i]);
  free(e->names);
  cl_str_index_free(&e->name_index);
  free(e);
}

void cl_file_cache_free(cl_file_cache *c) {
  if (!c)
    return;
  cl_file_cache_save(c);
  cl_names_store_free(c->store);
  for (size_t i = 0; i < c->count; ++i) {
    entry_release(c, c->entries[i]);
    entry_free(c->entries[i]);
  }
  free(c->entries);
  cl_str_index_free(&c->by_key);
  forget_held_paths(c);
  cl_names_scratch_free(c->names_scratch);
  free(c);
}

cl_file_cache *cl_file_cache_of(cudaload_ctx *ctx) {
  if (!ctx)
    return NULL;
  if (!ctx->file_cache) {
    ctx->file_cache = cl_file_cache_new();
    ctx->file_cache_free = cl_file_cache_free;
    if (ctx->file_cache && !(ctx->flags & CUDALOAD_NO_NAMES_STORE))
      cl_file_cache_use_store(ctx->file_cache, cl_names_store_open_default());
  }
  return ctx->file_cache;
}

void cl_file_cache_forget(cudaload_ctx *ctx) {
  if (ctx->file_cache)
    ctx->file_cache_free(ctx->file_cache);
  ctx->file_cache = NULL;
}

void cl_file_cache_use_store(cl_file_cache *c, cl_names_store *s) {
  if (!c) {
    cl_names_store_free(s);
    return;
  }
  cl_names_store_free(c->store);
  c->store = s;
}

int cl_file_cache_save(cl_file_cache *c) {
  return c ? cl_names_store_save(c->store) : 0;
}

void cl_file_cache_release(cl_file_cache *c) {
  if (!c || c->held)
    return;
  forget_held_paths(c);
  for (size_t i = 0; i < c->count; ++i)
    entry_release(c, c->entries[i]);
}

void cl_file_cache_hold(cl_file_cache *c) {
  if (c)
    c->held++;
}

void cl_file_cache_unhold(cl_file_cache *c) {
  if (c && c->held > 0 && --c->held == 0)
    cl_file_cache_release(c);
}

void cl_file_cache_set_reference_filter(cl_file_cache *c, cl_ref_filter keep,
                                        void *opaque, uint32_t id) {
  if (!c || (c->keep == keep && c->keep_opaque == opaque && c->keep_id == id))
    return;
  c->keep = keep;
  c->keep_opaque = opaque;
  c->keep_id = id;
  /* What was kept by another filter is another answer. */
  for (size_t i = 0; i < c->count; ++i) {
    entry *e = c->entries[i];
    part_free(&e->refs_part);
    cl_binary_symbols_free(&e->bind);
    e->lookup_state = 0;
  }
}

void cl_file_cache_get_stats(const cl_file_cache *c, cl_file_cache_stats *out) {
  if (c)
    *out = c->stats;
  else
    memset(out, 0, sizeof *out);
}

/* --- entries ------------------------------------------------------------- */

static void stamp_key(const cl_file_stamp *s, char *out, size_t size) {
  snprintf(out, size,
           "%" PRIx64 ":%" PRIx64 ":%" PRIx64 ":%" PRIx64 ":%" PRIx64,
           s->device, s->inode, s->size, (uint64_t)s->mtime_ns,
           (uint64_t)s->ctime_ns);
}

static entry *find(const cl_file_cache *c, const cl_file_stamp *s) {
  char key[96];
  stamp_key(s, key, sizeof key);
  size_t at;
  return cl_str_index_find(&c->by_key, key, &at) ? c->entries[at] : NULL;
}

/* The entry of stamp s, made when new; NULL when out of memory. */
static entry *find_or_add(cl_file_cache *c, const cl_file_stamp *s) {
  entry *e = find(c, s);
  if (e)
    return e;
  char key[96];
  stamp_key(s, key, sizeof key);
  if (cl_reserve((void **)&c->entries, &c->capacity, c->count + 1,
                 sizeof *c->entries))
    return NULL;
  e = calloc(1, sizeof *e);
  if (!e || !(e->key = cl_strdup(key)) ||
      cl_str_index_add(&c->by_key, e->key, c->count)) {
    if (e)
      free(e->key);
    free(e);
    return NULL;
  }
  cl_str_index_init(&e->name_index, 0);
  e->size = s->size;
  c->entries[c->count++] = e;
  return e;
}

/* A part already read for this path: 1 with *status (and, for a failure,
 * the last error it left), or 0 when it must be read. */
static int known(cl_file_cache *c, const part *p, const char *path,
                 int *status) {
  if (!p->done)
    return 0;
  if (p->status == CUDALOAD_OK) {
    c->stats.hits++;
    *status = CUDALOAD_OK;
    return 1;
  }
  if (!p->error_path || strcmp(p->error_path, path) != 0)
    return 0;
  c->stats.hits++;
  *status = cl_fail(p->status, "%s", p->error ? p->error : "");
  return 1;
}

static void settle(part *p, int status, const char *path) {
  part_free(p);
  p->done = 1;
  p->status = status;
  if (status != CUDALOAD_OK) {
    p->error = cl_strdup(cudaload_last_error());
    p->error_path = cl_strdup(path);
  }
}

/* Keep the first bytes of an open file when the entry has none yet. */
static void keep_head(cl_file_cache *c, entry *e, cl_file *f) {
  if (e->head_done)
    return;
  /* Unreadable: an answer the entry keeps (head_read_ok). */
  e->head_read_ok =
      cl_os_file_read_upto_quiet(f, 0, e->head, HEAD_BYTES, &e->head_got,
                                 NULL) == CUDALOAD_OK;
  e->head_done = 1;
  c->stats.head_reads++;
}

/* The entry for path whose part `which` is settled: from the cache when it
 * is there, else read through an open of path (read_part fills it). */
typedef int (*part_reader)(cl_file_cache *c, entry *e, cl_file *f,
                           uint64_t size, const char *path, const void *arg);
typedef part *(*part_of)(entry *e);

/* The entry of the file path names, open: held in e->file when the cache
 * may hold one more, else in *temp, which the caller closes. *stamp is the
 * path's stamp when known (NULL: not asked yet). */
/* open_entry's answer form (common/error.h): the same, writing no error;
 * *no says why it could not. */
static int open_entry_quiet(cl_file_cache *c, const char *path,
                            const cl_file_stamp *stamp, entry **out,
                            cl_file **temp, cl_os_no *no) {
  *out = NULL;
  *temp = NULL;
  cl_file_stamp now;
  if (!stamp && cl_os_path_stamp(path, &now))
    stamp = &now;
  entry *e = stamp ? find(c, stamp) : NULL;
  if (e && e->file) {
    *out = e;
    return CUDALOAD_OK;
  }
  cl_file *f;
  uint64_t size;
  int status = cl_os_file_open_quiet(path, &f, &size, no);
  if (status)
    return status;
  /* The open file's own stamp: the file may have been replaced since the
   * path was looked at. */
  cl_os_file_stamp(f, &now);
  e = find_or_add(c, &now);
  if (!e) {
    cl_os_file_close(f);
    no->status = CUDALOAD_E_NO_MEMORY;
    no->from_os = 0;
    no->what = "out of memory";
    return CUDALOAD_E_NO_MEMORY;
  }
  if (!e->file && c->open_files < MAX_OPEN_FILES) {
    e->file = f;
    cl_file_chunks_init(&e->chunks, f, size);
    c->open_files++;
    remember_held_path(c, e, path);
  } else {
    *temp = f;
  }
  *out = e;
  return CUDALOAD_OK;
}

/* The entry of the file at path, opened: its message names the path. */
static int open_entry(cl_file_cache *c, const char *path,
                      const cl_file_stamp *stamp, entry **out, cl_file **temp) {
  cl_os_no no;
  int status = open_entry_quiet(c, path, stamp, out, temp, &no);
  return status ? cl_fail_os_no(status, &no, path) : CUDALOAD_OK;
}

/* The entry of the file held open through path (held_paths), NULL when
 * none: until the files are released, the path is not looked at again. */
static entry *held_entry(cl_file_cache *c, const char *path) {
  size_t at;
  return cl_str_index_find(&c->held_paths, path, &at) && at < c->count &&
                 c->entries[at]->file
             ? c->entries[at]
             : NULL;
}

static int with_part(cl_file_cache *c, const char *path, part_of which,
                     part_reader read_part, const void *arg, entry **out) {
  *out = NULL;
  int status;
  /* A file held open this call answers what it was asked before without
   * a stat of its path: the plan, the loader model and the judgement ask
   * each file the same questions tens of times in one call. */
  entry *held = held_entry(c, path);
  if (held && known(c, which(held), path, &status)) {
    *out = held;
    return status;
  }
  cl_file_stamp stamp;
  int stamped = cl_os_path_stamp(path, &stamp);
  if (stamped) {
    entry *e = find(c, &stamp);
    if (e && known(c, which(e), path, &status)) {
      *out = e;
      return status;
    }
  }
  entry *e;
  cl_file *temp;
  status = open_entry(c, path, stamped ? &stamp : NULL, &e, &temp);
  if (status)
    return status;
  cl_file *f = temp ? temp : e->file;
  if (!known(c, which(e), path, &status)) {
    status = read_part(c, e, f, e->size, path, arg);
    settle(which(e), status, path);
  }
  keep_head(c, e, f);
  if (temp)
    cl_os_file_close(temp);
  *out = e;
  return status;
}

/* --- headers -------------------------------------------------------------- */

static part *info_part(entry *e) {
  return &e->info_part;
}

static int read_info(cl_file_cache *c, entry *e, cl_file *f, uint64_t size,
                     const char *path, const void *arg) {
  (void)arg;
  c->stats.info_reads++;
  cl_binary_info_free(&e->info);
  return cl_binary_read_open(f, size, path, &e->info, NULL);
}

int cl_file_cache_info(cl_file_cache *c, const char *path,
                       const cl_binary_info **out) {
  *out = NULL;
  if (!c)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  entry *e;
  int status = with_part(c, path, info_part, read_info, NULL, &e);
  if (status == CUDALOAD_OK)
    *out = &e->info;
  return status;
}

/* --- small files read whole ----------------------------------------------- */

static part *whole_part(entry *e) {
  return &e->whole_part;
}

static int read_whole(cl_file_cache *c, entry *e, cl_file *f, uint64_t size,
                      const char *path, const void *arg) {
  (void)c;
  uint64_t max = *(const uint64_t *)arg;
  free(e->whole);
  e->whole = NULL;
  e->whole_size = 0;
  if (size > max)
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: %" PRIu64
                   " bytes is implausibly large (at most %" PRIu64 ")",
                   path, size, max);
  e->whole = malloc(size ? (size_t)size : 1);
  if (!e->whole)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  int status =
      size ? cl_os_file_read_at(f, 0, e->whole, (size_t)size) : CUDALOAD_OK;
  if (status != CUDALOAD_OK) {
    free(e->whole);
    e->whole = NULL;
    return cl_fail_naming(status, path);
  }
  e->whole_size = (size_t)size;
  return CUDALOAD_OK;
}

int cl_file_cache_whole(cl_file_cache *c, const char *path, uint64_t max,
                        const unsigned char **data, size_t *size) {
  *data = NULL;
  *size = 0;
  if (!c)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  entry *e;
  int status = with_part(c, path, whole_part, read_whole, &max, &e);
  if (status == CUDALOAD_OK) {
    *data = e->whole;
    *size = e->whole_size;
  }
  return status;
}

static char *copy_or_null(const char *s, int *failed) {
  char *copy = s ? cl_strdup(s) : NULL;
  if (s && !copy)
    *failed = 1;
  return copy;
}

int cl_file_cache_parse(cl_file_cache *c, const char *path,
                        cl_binary_info *out) {
  if (!c)
    return cl_binary_parse_file(path, out);
  memset(out, 0, sizeof *out);
  const cl_binary_info *in;
  int status = cl_file_cache_info(c, path, &in);
  if (status)
    return status;
  int failed = 0;
  *out = *in;
  out->machine_name = copy_or_null(in->machine_name, &failed);
  out->soname = copy_or_null(in->soname, &failed);
  out->runpath = copy_or_null(in->runpath, &failed);
  out->rpath = copy_or_null(in->rpath, &failed);
  out->file_version = copy_or_null(in->file_version, &failed);
  out->needed = NULL;
  out->needed_count = 0;
  if (in->needed_count) {
    out->needed = calloc(in->needed_count, sizeof *out->needed);
    failed |= !out->needed;
    for (size_t i = 0; out->needed && i < in->needed_count; ++i) {
      out->needed[i] = copy_or_null(in->needed[i], &failed);
      out->needed_count = i + 1;
    }
  }
  if (failed) {
    cl_binary_info_free(out);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  }
  return CUDALOAD_OK;
}

/* --- symbols -------------------------------------------------------------- */

static part *symbols_part(entry *e) {
  return &e->symbols_part;
}

static int read_symbols(cl_file_cache *c, entry *e, cl_file *f, uint64_t size,
                        const char *path, const void *arg) {
  (void)arg;
  c->stats.symbol_reads++;
  cl_binary_symbols_free(&e->symbols);
  return cl_binary_read_open(f, size, path, NULL, &e->symbols);
}

int cl_file_cache_symbols(cl_file_cache *c, const char *path,
                          const cl_binary_symbols **out) {
  *out = NULL;
  if (!c)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  entry *e;
  int status = with_part(c, path, symbols_part, read_symbols, NULL, &e);
  if (status == CUDALOAD_OK)
    *out = &e->symbols;
  return status;
}

/* --- names ---------------------------------------------------------------- */

static part *names_part(entry *e) {
  return &e->names_part;
}

/* keep_name's answer form: the same, writing no error (out of memory
 * leaves a settled answer unsettled, no failure). */
static int keep_name_quiet(const char *name, entry *e) {
  if (cl_str_index_find(&e->name_index, name, NULL))
    return 0;
  char *copy = cl_strdup(name);
  if (!copy || cl_reserve((void **)&e->names, &e->name_capacity,
                          e->name_count + 1, sizeof *e->names)) {
    free(copy);
    return CUDALOAD_E_NO_MEMORY;
  }
  e->names[e->name_count] = copy;
  if (cl_str_index_add(&e->name_index, copy, e->name_count)) {
    free(copy);
    return CUDALOAD_E_NO_MEMORY;
  }
  e->name_count++;
  return 0;
}

static int keep_name(const char *name, void *opaque) {
  int status = keep_name_quiet(name, opaque);
  return status ? cl_fail(status, "out of memory") : 0;
}

/* What a names search is asked with: the largest file to search whole
 * (one without sections to limit the search to), and the moment before
 * the file was opened, which decides whether the store may keep the
 * answer (cl_names_store_add). */
typedef struct names_question {
  uint64_t max_bytes;
  int64_t asked_at;
} names_question;

static int read_names(cl_file_cache *c, entry *e, cl_file *f, uint64_t size,
                      const char *path, const void *arg) {
  const names_question *q = arg;
  c->stats.name_reads++;
  for (size_t i = 0; i < e->name_count; ++i)
    free(e->names[i]);
  e->name_count = 0;
  cl_str_index_free(&e->name_index);
  if (!c->names_scratch)
    c->names_scratch = cl_names_scratch_new(); /* NULL: one per search */
  int status = cl_binary_names_in(f, size, path, q->max_bytes, c->names_scratch,
                                  keep_name, e);
  if (status == CUDALOAD_OK && c->store) {
    cl_file_stamp stamp;
    cl_os_file_stamp(f, &stamp);
    cl_names_store_add(c->store, &stamp, q->asked_at, e->names, e->name_count);
  }
  return status;
}

/* Settle e's names as a search would have left them, from an answer
 * found without one (the store, the known builds): 1, or 0 when memory
 * ran out, e's names left empty for a search to fill. */
static int settle_names(entry *e, const char *const *names, size_t count,
                        const char *path) {
  int status = CUDALOAD_OK;
  for (size_t i = 0; status == CUDALOAD_OK && i < count; ++i)
    status = keep_name_quiet(names[i], e);
  if (status != CUDALOAD_OK) {
    for (size_t i = 0; i < e->name_count; ++i)
      free(e->names[i]);
    e->name_count = 0;
    cl_str_index_free(&e->name_index);
    return 0;
  }
  settle(&e->names_part, CUDALOAD_OK, path);
  return 1;
}

/* The names of the file path names now from the store, when the store
 * knows its stamp, the stamp is old enough at `now` to be trusted, and
 * this run has not read them yet: settled in its entry as a search would
 * have left them. A file larger than max_bytes is searched as the caller
 * asked, whatever the store says. */
static void names_from_store(cl_file_cache *c, const char *path,
                             uint64_t max_bytes, int64_t now) {
  cl_file_stamp stamp;
  if (!c->store || !cl_os_path_stamp(path, &stamp) ||
      stamp.kind != CL_KIND_REGULAR || stamp.size > max_bytes)
    return;
  entry *e = find(c, &stamp);
  if (e && e->names_part.done)
    return;
  char *const *names;
  size_t count;
  if (!cl_names_store_find(c->store, &stamp, now, &names, &count))
    return;
  e = find_or_add(c, &stamp);
  if (!e)
    return;
  if (!settle_names(e, (const char *const *)names, count, path))
    return;
  c->stats.store_hits++;
}

/* The names of the file path names now from the table of known builds
 * (known_builds.h), when its headers (read once per run, for the plan and
 * the verdict too) give an identity the table holds at the file's size:
 * settled in its entry as a search would have left them, before the store
 * is asked or the file read. */
static void names_from_known_build(cl_file_cache *c, const char *path) {
  if (!c->use_known_builds)
    return;
  cl_asking unread; /* no headers: no known build to ask */
  cl_asking_begin(&unread);
  entry *e;
  int status = with_part(c, path, info_part, read_info, NULL, &e);
  cl_asking_end(&unread);
  const char *const *names;
  size_t count;
  if (status == CUDALOAD_OK && !e->names_part.done &&
      cl_known_build_names(e->info.build_id, e->size, &names, &count) &&
      settle_names(e, names, count, path))
    c->stats.known_builds++;
}

int cl_file_cache_names(cl_file_cache *c, const char *path, uint64_t max_bytes,
                        cl_name_visitor visit, void *opaque) {
  if (!c)
    return cl_binary_names(path, max_bytes, visit, opaque);
  /* Before the file is looked at: a change after this moment may keep
   * the stamp only where the stamp is younger than it (names_store.h). */
  names_question q = {max_bytes, c->clock()};
  names_from_known_build(c, path);
  names_from_store(c, path, max_bytes, q.asked_at);
  entry *e;
  int status = with_part(c, path, names_part, read_names, &q, &e);
  for (size_t i = 0; status == CUDALOAD_OK && i < e->name_count; ++i)
    status = visit(e->names[i], opaque);
  return status;
}

/* --- references and definitions by name ---------------------------------- */

static part *refs_part(entry *e) {
  return &e->refs_part;
}

/* A reader of f through e's chunks when f is e's held file, else through
 * *own (initialised here; the caller drops it). */
static cl_reader chunk_reader(entry *e, cl_file *f, cl_file_chunks *own) {
  memset(own, 0, sizeof *own);
  if (f == e->file)
    return cl_file_chunks_reader(&e->chunks);
  cl_file_chunks_init(own, f, e->size);
  return cl_file_chunks_reader(own);
}

/* Count what e's chunks hold now against the run's budget (they held
 * `before` bytes); past it, every file's chunks are dropped. */
static void count_chunks(cl_file_cache *c, entry *e, size_t before) {
  c->chunk_bytes += cl_file_chunks_bytes(&e->chunks);
  c->chunk_bytes -= before;
  if (c->chunk_bytes <= CHUNK_BUDGET)
    return;
  for (size_t i = 0; i < c->count; ++i)
    cl_file_chunks_drop(&c->entries[i]->chunks);
  c->chunk_bytes = 0;
}

static int read_refs(cl_file_cache *c, entry *e, cl_file *f, uint64_t size,
                     const char *path, const void *arg) {
  (void)size;
  const int64_t *asked_at = arg;
  c->stats.reference_reads++;
  cl_binary_symbols_free(&e->bind);
  e->lookup_state = 0;
  cl_file_chunks own;
  size_t before = cl_file_chunks_bytes(&e->chunks);
  cl_reader reader = chunk_reader(e, f, &own);
  int status = cl_binary_read_references(&reader, path, c->keep, c->keep_opaque,
                                         &e->bind);
  cl_file_chunks_drop(&own);
  count_chunks(c, e, before);
  if (status != CUDALOAD_OK)
    return status;
  e->lookup_state = 1;
  if (c->store && e->bind.refs_filtered) {
    cl_file_stamp stamp;
    cl_os_file_stamp(f, &stamp);
    cl_names_store_add_refs(
        c->store, &stamp, *asked_at, c->keep_id,
        (e->bind.versioned ? REFS_VERSIONED : 0u) |
            (e->bind.opens_by_name ? REFS_OPEN_BY_NAME : 0u),
        e->bind.refs, e->bind.ref_count);
  }
  return CUDALOAD_OK;
}

/* e's references from the store's, as a read would have left them (the
 * hash table's place is found on the first lookup). 1, or 0 when memory
 * ran out (then the file is read). */
static int settle_refs(entry *e, unsigned flags, const cl_symbol_ref *refs,
                       size_t count, const char *path) {
  cl_binary_symbols *b = &e->bind;
  cl_binary_symbols_free(b);
  e->lookup_state = 0;
  b->format = CL_FORMAT_ELF;
  b->refs_filtered = 1;
  b->versioned = (flags & REFS_VERSIONED) != 0;
  b->opens_by_name = (flags & REFS_OPEN_BY_NAME) != 0;
  int failed = count && !(b->refs = calloc(count, sizeof *b->refs));
  for (size_t i = 0; !failed && i < count; ++i) {
    cl_symbol_ref *r = &b->refs[i];
    b->ref_count = i + 1;
    r->weak = refs[i].weak;
    failed = !(r->name = cl_strdup(refs[i].name)) ||
             (refs[i].version && (!(r->version = cl_strdup(refs[i].version)) ||
                                  !(r->file = cl_strdup(refs[i].file))));
  }
  if (failed) {
    cl_binary_symbols_free(b);
    return 0;
  }
  settle(&e->refs_part, CUDALOAD_OK, path);
  return 1;
}

static void refs_from_store(cl_file_cache *c, const char *path, int64_t now) {
  cl_file_stamp stamp;
  if (!c->store || !cl_os_path_stamp(path, &stamp) ||
      stamp.kind != CL_KIND_REGULAR)
    return;
  entry *e = find(c, &stamp);
  if (e && (e->refs_part.done || e->symbols_part.done))
    return;
  unsigned flags;
  const cl_symbol_ref *refs;
  size_t count;
  if (!cl_names_store_find_refs(c->store, &stamp, now, c->keep_id, &flags,
                                &refs, &count))
    return;
  e = find_or_add(c, &stamp);
  if (e && settle_refs(e, flags, refs, count, path))
    c->stats.reference_store_hits++;
}

int cl_file_cache_references(cl_file_cache *c, const char *path,
                             const cl_binary_symbols **out) {
  *out = NULL;
  if (!c)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  if (!c->keep)
    return cl_file_cache_symbols(c, path, out);
  /* A whole read done already answers too. */
  cl_file_stamp stamp;
  entry *held = held_entry(c, path);
  if (held || cl_os_path_stamp(path, &stamp)) {
    entry *e = held ? held : find(c, &stamp);
    if (e && e->symbols_part.done && e->symbols_part.status == CUDALOAD_OK) {
      c->stats.hits++;
      *out = &e->symbols;
      return CUDALOAD_OK;
    }
  }
  int64_t asked_at = c->clock();
  refs_from_store(c, path, asked_at);
  entry *e;
  int status = with_part(c, path, refs_part, read_refs, &asked_at, &e);
  if (status == CUDALOAD_OK)
    *out = &e->bind;
  return status;
}

/* Where e's hash table is, for a lookup: known after a read of its
 * references, else read now (its headers, the table's header and the
 * version definitions: a few KB). Sets e->lookup_state. */
static void prepare_lookup(cl_file_cache *c, entry *e, cl_file *f,
                           const char *path) {
  if (e->lookup_state)
    return;
  e->lookup_state = -1;
  cl_file_chunks own;
  size_t before = cl_file_chunks_bytes(&e->chunks);
  cl_reader reader = chunk_reader(e, f, &own);
  cl_binary_symbols found;
  cl_asking unprepared; /* no table to look in: the whole one is read */
  cl_asking_begin(&unprepared);
  int status = cl_binary_prepare_lookup(&reader, path, &found);
  cl_asking_end(&unprepared);
  cl_file_chunks_drop(&own);
  count_chunks(c, e, before);
  if (status != CUDALOAD_OK)
    return;
  c->stats.lookup_preparations++;
  cl_binary_symbols *b = &e->bind;
  if (e->refs_part.done && e->refs_part.status == CUDALOAD_OK) {
    /* The references came from the store: add the rest. */
    b->versions = found.versions;
    b->version_count = found.version_count;
    b->lookup = found.lookup;
    b->versioned = found.versioned;
    b->refs_filtered = found.refs_filtered;
    found.versions = NULL;
    found.version_count = 0;
    found.lookup = NULL;
    cl_binary_symbols_free(&found);
  } else {
    cl_binary_symbols_free(b);
    *b = found;
  }
  e->lookup_state = 1;
}

int cl_file_cache_defs(cl_file_cache *c, const char *path, const char *name,
                       cl_found_def *found, size_t cap, size_t *count,
                       const cl_binary_symbols **symbols) {
  *count = 0;
  *symbols = NULL;
  if (!c)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  cl_file_stamp stamp;
  size_t at;
  entry *e = NULL;
  int held = cl_str_index_find(&c->held_paths, path, &at) &&
             c->entries[at]->file != NULL;
  if (held)
    e = c->entries[at];
  else if (cl_os_path_stamp(path, &stamp) && (e = find(c, &stamp)) != NULL &&
           e->file)
    remember_held_path(c, e, path); /* another path to a held file */
  if (!e || !e->symbols_part.done) {
    cl_file *temp = NULL;
    int opened = CUDALOAD_OK;
    if (!held) {
      cl_os_no no; /* a file that cannot be opened defines nothing */
      opened = open_entry_quiet(c, path, e ? &stamp : NULL, &e, &temp, &no);
    }
    if (opened == CUDALOAD_OK) {
      cl_file *f = temp ? temp : e->file;
      prepare_lookup(c, e, f, path);
      int status = -1;
      if (e->lookup_state == 1 && e->bind.refs_filtered && e->bind.lookup) {
        cl_file_chunks own;
        size_t before = cl_file_chunks_bytes(&e->chunks);
        cl_reader reader = chunk_reader(e, f, &own);
        cl_asking unread; /* the status says it */
        cl_asking_begin(&unread);
        status = cl_binary_symbols_defs(&e->bind, &reader, path, name, found,
                                        cap, count);
        cl_asking_end(&unread);
        cl_file_chunks_drop(&own);
        count_chunks(c, e, before);
        c->stats.lookups++;
      } else if (e->lookup_state == 1 && !e->bind.refs_filtered) {
        /* What was read is the whole table (a PE file, or none). */
        status = cl_binary_symbols_defs(&e->bind, NULL, path, name, found, cap,
                                        count);
      }
      if (temp)
        cl_os_file_close(temp);
      if (status == CUDALOAD_OK && *count <= cap) {
        *symbols = &e->bind;
        return CUDALOAD_OK;
      }
      e->lookup_state = -1; /* the whole read says what is wrong */
    }
  }
  const cl_binary_symbols *whole;
  int status = cl_file_cache_symbols(c, path, &whole);
  if (status != CUDALOAD_OK)
    return status;
  *symbols = whole;
  return cl_binary_symbols_defs(whole, NULL, path, name, found, cap, count);
}

/* --- first bytes ---------------------------------------------------------- */

void cl_file_cache_head(cl_file_cache *c, const char *path, unsigned char *buf,
                        size_t want, cl_file_head *out) {
  memset(out, 0, sizeof *out);
  if (want > HEAD_BYTES)
    want = HEAD_BYTES;
  cl_file_stamp stamp;
  if (!cl_os_path_stamp(path, &stamp)) {
    out->kind = CL_KIND_MISSING;
    return;
  }
  out->kind = stamp.kind;
  out->size = stamp.size;
  if (stamp.kind != CL_KIND_REGULAR)
    return;
  entry *e = c ? find(c, &stamp) : NULL;
  if (e && e->head_done) {
    c->stats.hits++;
  } else if (c) {
    /* Opened as every other question opens it (held open while the cache
     * may hold one more), so that the headers or symbols asked next read
     * the same open file instead of opening it again. Not openable, or not
     * readable: answers for the caller, not failures; not kept (a later
     * open may succeed). */
    cl_file *temp;
    cl_os_no no;
    int status = open_entry_quiet(c, path, &stamp, &e, &temp, &no);
    if (status == CUDALOAD_OK) {
      keep_head(c, e, temp ? temp : e->file);
      if (temp)
        cl_os_file_close(temp);
    } else if (status != CUDALOAD_E_NO_MEMORY) {
      return;
    }
  }
  if (!e || !e->head_done) {
    cl_file *f;
    uint64_t size;
    out->opened = cl_os_file_open_quiet(path, &f, &size, NULL) == CUDALOAD_OK;
    if (out->opened) {
      if (c) {
        cl_os_file_stamp(f, &stamp);
        e = find_or_add(c, &stamp);
      }
      if (e) {
        keep_head(c, e, f);
      } else {
        if (c)
          c->stats.head_reads++;
        out->read_ok = cl_os_file_read_upto_quiet(f, 0, buf, want, &out->got,
                                                  NULL) == CUDALOAD_OK;
      }
      cl_os_file_close(f);
    }
    if (!e)
      return;
  }
  out->opened = 1;
  out->read_ok = e->head_read_ok;
  out->got = e->head_got < want ? e->head_got : want;
  memcpy(buf, e->head, out->got);
}

/* --- answer forms --------------------------------------------------------- */

/* Each is its failing form asked inside a cl_asking (common/error.h): the
 * part's reason is kept in the cache as before, the last error untouched. */

int cl_file_cache_info_quiet(cl_file_cache *c, const char *path,
                             const cl_binary_info **out) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_file_cache_info(c, path, out);
  cl_asking_end(&a);
  return status;
}

int cl_file_cache_parse_quiet(cl_file_cache *c, const char *path,
                              cl_binary_info *out) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_file_cache_parse(c, path, out);
  cl_asking_end(&a);
  return status;
}

int cl_file_cache_symbols_quiet(cl_file_cache *c, const char *path,
                                const cl_binary_symbols **out) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_file_cache_symbols(c, path, out);
  cl_asking_end(&a);
  return status;
}

int cl_file_cache_references_quiet(cl_file_cache *c, const char *path,
                                   const cl_binary_symbols **out) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_file_cache_references(c, path, out);
  cl_asking_end(&a);
  return status;
}

int cl_file_cache_names_quiet(cl_file_cache *c, const char *path,
                              uint64_t max_bytes, cl_name_visitor visit,
                              void *opaque) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_file_cache_names(c, path, max_bytes, visit, opaque);
  cl_asking_end(&a);
  return status;
}

int cl_file_cache_defs_quiet(cl_file_cache *c, const char *path,
                             const char *name, cl_found_def *found, size_t cap,
                             size_t *count, const cl_binary_symbols **symbols) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_file_cache_defs(c, path, name, found, cap, count, symbols);
  cl_asking_end(&a);
  return status;
}
