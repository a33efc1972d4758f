/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ldcache.c - libFuzzer target: the ld.so.cache reader on a memory
 * buffer (cl_ldcache_parse; cl_ldcache_read does the same after reading
 * /etc/ld.so.cache whole). Every input must give a status (never a crash, a
 * hang or a leak); every entry visited must be two NUL-terminated strings
 * within the reader's bound, and no more entries than the image can hold.
 */
#include "binary/binary.h"
#include "cudaload.h"
#include "scan/ldcache.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader's bound on a key or path, its NUL included (ldcache.c). */
#define FUZZ_LDCACHE_MAX_STRING 4096u

static void visit(const char *key, const char *path, void *opaque) {
  size_t *visits = opaque;
  if (!key || !path || strlen(key) >= FUZZ_LDCACHE_MAX_STRING ||
      strlen(path) >= FUZZ_LDCACHE_MAX_STRING)
    abort();
  ++*visits;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cl_memory_source src = {data, size};
  cl_reader r = cl_reader_from_memory(&src);
  size_t visits = 0;
  int rc = cl_ldcache_parse(&r, visit, &visits);
  if (rc != CUDALOAD_OK && rc != CUDALOAD_E_MALFORMED &&
      rc != CUDALOAD_E_UNSUPPORTED)
    abort(); /* the documented statuses only */
  if (rc != CUDALOAD_OK && cudaload_last_error()[0] == '\0')
    abort(); /* a refusal says why */
  /* An entry takes at least 12 bytes (the old format's). */
  if (visits > size / 12)
    abort();
  return 0;
}
