/* SPDX-License-Identifier: MIT */
/* known_builds.c - the names NVIDIA's released builds hold (known_builds.h):
 * the lookup; the rows are in known_builds_table.h. */
#include "binary/known_builds.h"

#include "os/platform.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct known_build {
  const char *build_id;
  uint64_t file_size; /* of the file the names were read from */
  const char *what;   /* the file and release it was read from, for people */
  const char *const *names;
  size_t count;
} known_build;

#define NAMES(...) ((const char *const[]){__VA_ARGS__})
#define ROW(id, size, what, ...)                                               \
  {                                                                            \
    id, size, what, NAMES(__VA_ARGS__),                                        \
        sizeof NAMES(__VA_ARGS__) / sizeof(const char *)                       \
  }
/* A build whose search finds no name at all. */
#define ROW_NONE(id, size, what)                                               \
  { id, size, what, NULL, 0 }

/* Sorted by build_id, then file size (scripts/known-builds writes them so;
 * the lookup halves the table). */
static const known_build table[] = {
#include "binary/known_builds_table.h"
};

int cl_known_build_names(const char *build_id, uint64_t file_size,
                         const char *const **names, size_t *count) {
  size_t lo = 0, hi = sizeof table / sizeof *table;
  if (!build_id || !build_id[0])
    return 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int order = strcmp(build_id, table[mid].build_id);
    if (order == 0 && file_size != table[mid].file_size)
      order = file_size < table[mid].file_size ? -1 : 1;
    if (order == 0) {
      *names = table[mid].names;
      *count = table[mid].count;
      return 1;
    }
    if (order < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return 0;
}

/* CUDA_CACHE_DISABLE's rule: set to anything but empty or 0. */
int cl_known_builds_enabled(void) {
  char *v = cl_os_getenv("CUDALOAD_KNOWN_BUILDS_DISABLE");
  int off = v && v[0] && strcmp(v, "0") != 0;
  free(v);
  return !off;
}
