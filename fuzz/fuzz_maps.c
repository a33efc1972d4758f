/* SPDX-License-Identifier: MIT */
/*
 * fuzz_maps.c - libFuzzer target: the /proc/PID/maps reader of `explain
 * --pid` (lib/posix/proc_maps.c, cl_maps_parse) on a memory buffer, the
 * text a kernel (or a FUSE file system naming its files) writes. Every
 * input must give a status (never a crash, a hang or a leak); each entry
 * must have start <= end, and a path that is absolute, NUL-terminated, no
 * longer than its line and free of the " (deleted)" mark it was given.
 */
#include "cudaload.h"
#include "posix/proc_maps.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct seen {
  size_t size;
  size_t entries;
} seen;

static int check(cl_maps_entry *e, void *opaque) {
  seen *s = opaque;
  if (e->end < e->start)
    abort();
  if (e->path) {
    size_t len = strlen(e->path);
    if (e->path[0] != '/' || len > s->size)
      abort();
  }
  if (!e->path && e->deleted_mark)
    abort(); /* only a path carries the mark */
  ++s->entries;
  cl_maps_entry_free(e);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  seen s = {size, 0};
  int rc = cl_maps_parse((const char *)data, size, check, &s);
  if (rc != CUDALOAD_OK && rc != CUDALOAD_E_MALFORMED &&
      rc != CUDALOAD_E_NO_MEMORY)
    abort(); /* the documented statuses only */
  if (rc != CUDALOAD_OK && cudaload_last_error()[0] == '\0')
    abort(); /* a refusal says why */
  /* A line takes at least "0-0 ---- 0 0:0 0" (16 bytes) and its newline. */
  if (s.entries > size / 16 + 1)
    abort();
  return 0;
}
