/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spec.c - libFuzzer target: requirement specs through
 * cudaload_require() on a fresh context. A rejected spec must add nothing.
 */
#include "cudaload.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *spec = malloc(size + 1);
  if (!spec)
    return 0;
  memcpy(spec, data, size);
  spec[size] = '\0';
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  if (ctx) {
    int rc = cudaload_require(ctx, spec);
    size_t count = cudaload_requirement_count(ctx);
    if (rc != CUDALOAD_OK && count != 0)
      abort(); /* a malformed spec added something */
    for (size_t i = 0; i < count; ++i) {
      const char *text = cudaload_requirement_text(ctx, i);
      /* The normalised text must itself be a valid spec. */
      if (!text || cudaload_require(ctx, text) != CUDALOAD_OK)
        abort();
    }
    if (cudaload_requirement_count(ctx) != count)
      abort(); /* requiring the same thing twice is one requirement */
    cudaload_destroy(ctx);
  }
  free(spec);
  return 0;
}
