/* SPDX-License-Identifier: MIT */
/*
 * manifest.h - the manifest reader's entry from memory (the fuzz target's;
 * cudaload_load_manifest() reads the file and does the same). Not part of the
 * ABI.
 */
#ifndef CUDALOAD_MANIFEST_H
#define CUDALOAD_MANIFEST_H

#include "core/context.h"
#include "cudaload.h"

#include <stddef.h>

/* What cudaload_load_manifest() committed that has no other home: its
 * requirements and roots join the context's lists. Replaced whole by the
 * next manifest loaded; freed with the context. */
struct cl_manifest_state {
  char *path;             /* the manifest loaded */
  unsigned preload_flags; /* CUDALOAD_PRELOAD_* from its policy */
  int isolation;          /* policy isolation: true */
  int probe;              /* probe: true */
};

/* The last manifest ctx loaded, or NULL when none was. */
const cl_manifest_state *cl_manifest_of(const cudaload_ctx *ctx);
/* Its policy's CUDALOAD_PRELOAD_* flags and whether it asks for the probe:
 * 0 when no manifest was loaded (what cudaload_manifest_preload_flags()
 * and cudaload_manifest_probe() answer). */
unsigned cl_manifest_preload_flags(const cudaload_ctx *ctx);
int cl_manifest_probe(const cudaload_ctx *ctx);

/* Read len bytes of YAML as the manifest `path` (named in messages; its
 * folder is where relative roots point). Same results as
 * cudaload_load_manifest(). */
int cl_manifest_load_text(cudaload_ctx *ctx, const char *path, const char *text,
                          size_t len);

#endif
