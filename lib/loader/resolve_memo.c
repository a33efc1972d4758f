/* SPDX-License-Identifier: MIT */
/*
 * resolve_memo.c - the loader model's memory (resolve_memo.h): indexes of
 * the loaded objects kept in step with the model's list (which grows by
 * cl_loader_model_add_loaded and shrinks only when a failed open is
 * unmapped), and the folders found missing.
 */
#include "loader/resolve_memo.h"

#include "common/strindex.h"
#include "common/strutil.h"
#include "cudaload.h"
#include "os/platform.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names one folder holds, as one listing of it said. */
typedef struct listing {
  int asked;  /* names looked for in the folder so far */
  int listed; /* 1: names holds every entry; -1: not listable, or too big */
  cl_str_index names;
  char **owned;
  size_t count, capacity;
} listing;

typedef struct identity {
  int known; /* 1: stat'ed (id valid), -1: cannot be told */
  cl_file_identity id;
  char key[40]; /* "device:inode", the identity index's key */
} identity;

struct cl_resolve_memo {
  /* Loaded objects [0, named) are in by_name; their path pointers, to
   * notice a list that changed behind the memo's back. */
  cl_str_index by_name;
  const char **paths;
  size_t named, paths_capacity;
  /* Loaded objects [0, identified) are stat'ed; by_identity holds those
   * whose identity is known. */
  identity *ids;
  size_t identified, ids_capacity;
  cl_str_index by_identity;
  /* Folders looked at: their state (1: absent, 2: there), names owned. */
  cl_str_index folders;
  char **folder_names;
  unsigned char *folder_state;
  size_t folder_count, folder_capacity, state_capacity;
  /* The names in a folder that is there, listed the second time a name is
   * looked for in it (listings[i] NULL: not listed, or not listable). */
  listing **listings;
  size_t listings_capacity;
  size_t work;
};

static void listing_free(listing *l) {
  if (!l)
    return;
  cl_str_index_free(&l->names);
  for (size_t i = 0; i < l->count; ++i)
    free(l->owned[i]);
  free(l->owned);
  free(l);
}

static void memo_free(void *opaque) {
  cl_resolve_memo *memo = opaque;
  if (!memo)
    return;
  cl_str_index_free(&memo->by_name);
  free(memo->paths);
  free(memo->ids);
  cl_str_index_free(&memo->by_identity);
  cl_str_index_free(&memo->folders);
  for (size_t i = 0; i < memo->folder_count; ++i) {
    free(memo->folder_names[i]);
    listing_free(memo->listings ? memo->listings[i] : NULL);
  }
  free(memo->listings);
  free(memo->folder_names);
  free(memo->folder_state);
  free(memo);
}

cl_resolve_memo *cl_resolve_memo_of(cl_loader_model *m) {
  if (!m->memo) {
    cl_resolve_memo *memo = calloc(1, sizeof *memo);
    if (!memo)
      return NULL;
    cl_str_index_init(&memo->by_name, 0);
    cl_str_index_init(&memo->by_identity, 0);
    cl_str_index_init(&memo->folders, 0);
    m->memo = memo;
    m->memo_free = memo_free;
  }
  return m->memo;
}

/* --- loaded objects by name ---------------------------------------------- */

static void forget_names(cl_resolve_memo *memo) {
  cl_str_index_free(&memo->by_name);
  memo->named = 0;
}

/* Index object i's names (the first object of a name keeps it). 0, or
 * CUDALOAD_E_NO_MEMORY. */
static int index_object(cl_resolve_memo *memo, const cl_loaded_object *o,
                        size_t i) {
  if (cl_str_index_add(&memo->by_name, o->path, i) ||
      (o->soname && cl_str_index_add(&memo->by_name, o->soname, i)))
    return CUDALOAD_E_NO_MEMORY;
  for (size_t k = 0; k < o->name_count; ++k)
    if (cl_str_index_add(&memo->by_name, o->names[k], i))
      return CUDALOAD_E_NO_MEMORY;
  return CUDALOAD_OK;
}

/* Bring by_name up to the model's list: 0, or -1 when it cannot be (no
 * memory: the caller compares one by one). */
static int sync_names(cl_resolve_memo *memo, const cl_loader_model *m) {
  /* A list shorter than what was indexed, or another object where one
   * was: start again. */
  if (memo->named > m->loaded_count ||
      (memo->named &&
       memo->paths[memo->named - 1] != m->loaded[memo->named - 1].path))
    forget_names(memo);
  if (cl_reserve((void **)&memo->paths, &memo->paths_capacity,
                 m->loaded_count + 1, sizeof *memo->paths))
    return -1;
  for (size_t i = memo->named; i < m->loaded_count; ++i) {
    if (index_object(memo, &m->loaded[i], i)) {
      forget_names(memo);
      return -1;
    }
    memo->paths[i] = m->loaded[i].path;
    memo->named = i + 1;
  }
  return 0;
}

size_t cl_resolve_memo_loaded_by_name(cl_resolve_memo *memo,
                                      const cl_loader_model *m,
                                      const char *name) {
  size_t at;
  if (memo && sync_names(memo, m) == 0)
    return cl_str_index_find(&memo->by_name, name, &at) ? at : SIZE_MAX;
  for (size_t i = 0; i < m->loaded_count; ++i) {
    const cl_loaded_object *o = &m->loaded[i];
    if (strcmp(o->path, name) == 0 ||
        (o->soname && strcmp(o->soname, name) == 0))
      return i;
    for (size_t k = 0; k < o->name_count; ++k)
      if (strcmp(o->names[k], name) == 0)
        return i;
  }
  return SIZE_MAX;
}

void cl_resolve_memo_name_added(cl_resolve_memo *memo, size_t index,
                                const char *name) {
  if (!memo || index >= memo->named)
    return; /* indexed when the memo catches up */
  size_t at;
  if (cl_str_index_find(&memo->by_name, name, &at)) {
    if (at > index)
      forget_names(memo); /* an earlier object now answers to it */
    return;
  }
  if (cl_str_index_add(&memo->by_name, name, index))
    forget_names(memo);
}

/* --- loaded objects by file ---------------------------------------------- */

static int rebuild_identities(cl_resolve_memo *memo, size_t count) {
  cl_str_index_free(&memo->by_identity);
  memo->identified = count < memo->identified ? count : memo->identified;
  for (size_t i = 0; i < memo->identified; ++i)
    if (memo->ids[i].known == 1 &&
        cl_str_index_add(&memo->by_identity, memo->ids[i].key, i))
      return -1;
  return 0;
}

void cl_resolve_memo_loaded_dropped(cl_resolve_memo *memo, size_t count) {
  if (!memo)
    return;
  if (memo->named > count)
    forget_names(memo);
  if (memo->identified > count && rebuild_identities(memo, count)) {
    cl_str_index_free(&memo->by_identity);
    memo->identified = 0;
  }
}

size_t cl_resolve_memo_loaded_by_identity(cl_resolve_memo *memo,
                                          const cl_loader_model *m,
                                          const cl_file_identity *id,
                                          cl_memo_check_path check) {
  if (memo && memo->identified > m->loaded_count &&
      rebuild_identities(memo, m->loaded_count)) {
    cl_str_index_free(&memo->by_identity);
    memo->identified = 0;
  }
  size_t capacity = memo ? memo->ids_capacity : 0;
  int indexed = memo && cl_reserve((void **)&memo->ids, &memo->ids_capacity,
                                   m->loaded_count + 1, sizeof *memo->ids) == 0;
  /* The index holds the keys where they lie in ids: a move of the array
   * takes them with it, so the index is made again over the new place. */
  if (indexed && capacity && memo->ids_capacity != capacity &&
      rebuild_identities(memo, memo->identified)) {
    cl_str_index_free(&memo->by_identity);
    memo->identified = 0;
  }
  for (size_t i = indexed ? memo->identified : 0; i < m->loaded_count; ++i) {
    identity one;
    memset(&one, 0, sizeof one);
    char *path = check(m, m->loaded[i].path);
    one.known = path && cl_os_file_identity(path, &one.id) ? 1 : -1;
    free(path);
    if (!indexed) {
      if (one.known == 1 && one.id.device == id->device &&
          one.id.inode == id->inode)
        return i;
      continue;
    }
    snprintf(one.key, sizeof one.key, "%" PRIx64 ":%" PRIx64, one.id.device,
             one.id.inode);
    memo->ids[i] = one;
    if (one.known == 1 &&
        cl_str_index_add(&memo->by_identity, memo->ids[i].key, i)) {
      /* No memory for the index: answer by comparing, this once. */
      cl_str_index_free(&memo->by_identity);
      memo->identified = 0;
      return cl_resolve_memo_loaded_by_identity(NULL, m, id, check);
    }
    memo->identified = i + 1;
  }
  if (!indexed)
    return SIZE_MAX;
  char key[40];
  snprintf(key, sizeof key, "%" PRIx64 ":%" PRIx64, id->device, id->inode);
  size_t at;
  return cl_str_index_find(&memo->by_identity, key, &at) ? at : SIZE_MAX;
}

/* --- folders -------------------------------------------------------------- */

static int listed(cl_resolve_memo *memo, size_t at);

/* 1 when the longest folder above `folder` the memo knows tells that
 * `folder` is not there: it is absent itself, or its listing does not
 * hold the next name down (glibc's hwcaps subfolders, tls/haswell/...,
 * looked for under every search folder: one listing of the search folder
 * says which of them are there). 0 when nothing known tells. */
static int absent_above(cl_resolve_memo *memo, const char *folder) {
  /* glibc's deepest hwcaps subfolder, tls/haswell/avx512_1/x86_64, is four
   * names below its search folder: no folder further up is asked. */
  enum { LEVELS = 4 };
  char *prefix = cl_strdup(folder);
  int absent = 0;
  size_t end = prefix ? strlen(prefix) : 0;
  for (int level = 0; level < LEVELS; ++level) {
    while (end > 0 && folder[end - 1] != '/')
      --end;
    if (end <= 1)
      break; /* the root folder: nothing above it known */
    const char *below = folder + end;
    size_t below_len = strcspn(below, "/");
    prefix[--end] = '\0';
    size_t at;
    if (!cl_str_index_find(&memo->folders, prefix, &at))
      continue;
    int dots = (below_len == 1 && below[0] == '.') ||
               (below_len == 2 && below[0] == '.' && below[1] == '.');
    if (memo->folder_state[at] == 1) {
      absent = 1;
    } else if (below_len && !dots && below_len < 256 && listed(memo, at)) {
      char name[256];
      memcpy(name, below, below_len);
      name[below_len] = '\0';
      absent = !cl_str_index_find(&memo->listings[at]->names, name, NULL);
    }
    break; /* the nearest known folder above decides, or nothing does */
  }
  free(prefix);
  return absent;
}

int cl_resolve_memo_folder_absent(cl_resolve_memo *memo, const char *folder) {
  size_t at;
  if (memo && cl_str_index_find(&memo->folders, folder, &at))
    return memo->folder_state[at] == 1;
  int absent = (memo && absent_above(memo, folder)) ||
               cl_os_stat_kind(folder, NULL) == CL_KIND_MISSING;
  if (!memo)
    return absent;
  char *copy = cl_strdup(folder);
  if (!copy ||
      cl_reserve((void **)&memo->folder_names, &memo->folder_capacity,
                 memo->folder_count + 1, sizeof *memo->folder_names) ||
      cl_reserve((void **)&memo->folder_state, &memo->state_capacity,
                 memo->folder_count + 1, 1) ||
      cl_reserve((void **)&memo->listings, &memo->listings_capacity,
                 memo->folder_count + 1, sizeof *memo->listings) ||
      cl_str_index_add(&memo->folders, copy, memo->folder_count)) {
    free(copy);
    return absent; /* not remembered: looked at again next time */
  }
  memo->folder_names[memo->folder_count] = copy;
  memo->folder_state[memo->folder_count] = absent ? 1 : 2;
  memo->listings[memo->folder_count] = NULL;
  memo->folder_count++;
  return absent;
}

/* A folder holding more entries than this is not kept listed: its names
 * are looked for one stat at a time, as before. */
#define LISTING_MAX 4096

static int keep_listed(const char *name, cl_file_kind kind, void *opaque) {
  (void)kind;
  listing *l = opaque;
  if (l->count >= LISTING_MAX) {
    l->listed = -1;
    return 1;
  }
  char *copy = cl_strdup(name);
  if (!copy ||
      cl_reserve((void **)&l->owned, &l->capacity, l->count + 1,
                 sizeof *l->owned) ||
      cl_str_index_add(&l->names, copy, l->count)) {
    free(copy);
    l->listed = -1;
    return 1;
  }
  l->owned[l->count++] = copy;
  return 0;
}

/* Whether folder `at` (there) is listed, listing it now when it is not
 * yet; 0 when it cannot be (not listable, huge, no memory). */
static int listed(cl_resolve_memo *memo, size_t at) {
  listing *l = memo->listings[at];
  if (!l) {
    l = memo->listings[at] = calloc(1, sizeof *l);
    if (!l)
      return 0;
    cl_str_index_init(&l->names, 0);
  }
  if (!l->listed) {
    l->listed = 1;
    if (cl_os_list_dir_quiet(memo->folder_names[at], keep_listed, l, NULL) !=
        CUDALOAD_OK)
      l->listed = -1;
  }
  return l->listed == 1;
}

int cl_resolve_memo_name_absent(cl_resolve_memo *memo, const char *folder,
                                const char *name) {
  size_t at;
  if (!memo || !cl_str_index_find(&memo->folders, folder, &at) ||
      memo->folder_state[at] != 2)
    return 0;
  listing *l = memo->listings[at];
  if (!l) {
    l = memo->listings[at] = calloc(1, sizeof *l);
    if (!l)
      return 0;
    cl_str_index_init(&l->names, 0);
  }
  /* A folder asked for one name is looked at with one stat, as the loader
   * does; asked for a second, it is listed once, and each name it does
   * not hold costs nothing more (torch's RUNPATH of eleven folders, asked
   * for each of its libraries' NEEDED names). */
  if (!l->listed && ++l->asked < 2)
    return 0;
  return listed(memo, at) && !cl_str_index_find(&l->names, name, NULL);
}

/* --- work ----------------------------------------------------------------- */

void cl_resolve_memo_work(cl_resolve_memo *memo, size_t amount) {
  if (memo)
    memo->work += amount;
}

size_t cl_resolve_memo_work_done(const cl_resolve_memo *memo) {
  return memo ? memo->work : 0;
}
