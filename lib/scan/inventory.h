/* SPDX-License-Identifier: MIT */
/*
 * inventory.h - roots -> inventory: cudaload_scan() fills the context's
 * roots and libraries (inventory.c); a wheel's version is looked up later,
 * on first use.
 */
#ifndef CUDALOAD_INVENTORY_H
#define CUDALOAD_INVENTORY_H

#include "core/context.h"

/* Look up a library's version now if the scan left it for later; keeps the
 * calling thread's last error as it was (inventory.c). */
void cl_library_settle_version(cudaload_ctx *ctx, cl_library *lib);
/* The library of the inventory at a (real, absolute) path, or NULL. */
cl_library *cl_inventory_library_at(const cudaload_ctx *ctx, const char *path);
/* Every library's (for reports that print them all). */
void cl_inventory_settle_versions(cudaload_ctx *ctx);

/* What follows a refusal's fix command in every fix line: the other way
 * out, with its risk said. */
#define CL_ALLOW_WRITABLE_RISK                                                 \
  "or, accepting that whoever can write there can run their own code in "      \
  "this process, --allow-writable-roots (Python: "                             \
  "allow_writable_roots=True; C: CUDALOAD_ALLOW_WRITABLE_ROOTS)"

/* The library of `family` (and major, when not 0) that the last scan
 * refused as writable by others, or NULL. */
const cl_refusal *cl_inventory_refused(const cudaload_ctx *ctx,
                                       const char *family, int major);

#endif
