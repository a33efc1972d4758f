/* SPDX-License-Identifier: MIT */
/*
 * manifest.h - the manifest reader's entry from memory (the fuzz target's;
 * cudaload_load_manifest() reads the file and does the same). Not part of the
 * ABI.
 */
#ifndef CUDALOAD_MANIFEST_H
#define CUDALOAD_MANIFEST_H

#include "cudaload.h"

#include <stddef.h>

/* Read len bytes of YAML as the manifest `path` (named in messages; its
 * folder is where relative roots point). Same results as
 * cudaload_load_manifest(). */
int cl_manifest_load_text(cudaload_ctx *ctx, const char *path, const char *text,
                          size_t len);

#endif
