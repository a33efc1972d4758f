/* SPDX-License-Identifier: MIT */
/*
 * fuzz_manifest.c - libFuzzer target: the YAML manifest reader, from memory
 * (cl_manifest_load_text does what cudaload_load_manifest does after
 * reading the file). A rejected manifest must change nothing in the ctx.
 */
#include "cudaload.h"
#include "load/manifest.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  if (!ctx)
    return 0;
  /* "/" exists everywhere: relative roots resolve under it. */
  int rc = cl_manifest_load_text(ctx, "/cudaload-fuzz.yaml", (const char *)data,
                                 size);
  if (rc != CUDALOAD_OK && (cudaload_requirement_count(ctx) != 0 ||
                            cudaload_manifest_preload_flags(ctx) != 0 ||
                            cudaload_manifest_probe(ctx) != 0))
    abort(); /* a rejected manifest changed the ctx */
  cudaload_destroy(ctx);
  return 0;
}
