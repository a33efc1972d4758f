/* SPDX-License-Identifier: MIT */
/*
 * verdict_cuda_names.c - which names are CUDA's, as the verdict asks
 * (verdict_cuda_names.h): the context's file cache with the filter of the
 * references to CUDA libraries, and the loader model's callback for what a
 * file opens by name at run time, each file read once per verdict. The
 * names themselves are the scan's (scan/cuda_names.c), which answers a
 * library's CUDA major from its files with them too.
 */
#include "load/verdict_cuda_names.h"

#include "common/strutil.h"
#include "scan/inventory.h"

#include <stdlib.h>
#include <string.h>

/* The run-time names of one file, as cl_verdict_lazy_names found them. */
typedef struct lazy_entry {
  char *path;
  char **names;
  size_t count;
} lazy_entry;

typedef struct lazy_cache {
  lazy_entry *entries;
  size_t count, capacity;
} lazy_cache;

void cl_verdict_lazy_cache_free(void *cache) {
  lazy_cache *c = cache;
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

cl_file_cache *cl_verdict_files(cudaload_ctx *ctx) {
  return ctx ? cl_cuda_files(cl_file_cache_of(ctx), cl_ctx_naming(ctx)) : NULL;
}

/* cl_verdict_lazy_names with each file scanned once per verdict: a file is met
 * in every tree that reaches it. */
char **cl_verdict_lazy_names(const char *path, const cl_binary_info *info,
                             size_t *count, void *opaque) {
  const cl_verdict_lazy_context *lc = opaque;
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
  char **names = cl_cuda_opens_by_name(cl_verdict_files(lc->ctx), lc->naming,
                                       path, info, count);
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
