/* SPDX-License-Identifier: MIT */
/* library.c - the scanned roots and libraries as the API shows them
 * (cudaload_root_*, cudaload_library_*). A library's version, machine and
 * include folder are looked up on first use and kept. */
#include "common/error.h"
#include "core/context.h"
#include "scan/include_dir.h"
#include "scan/inventory.h"
#include "scan/machine.h"
#include "scan/roots.h"

#include <stddef.h>

/* Accessors: out-of-range or NULL arguments give NULL / -1 / 0. */

size_t cudaload_root_count(const cudaload_ctx *ctx) {
  return ctx ? cl_inventory_of(ctx)->root_count : 0;
}

static const cl_root *root_at(const cudaload_ctx *ctx, size_t i) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  return ctx && i < inv->root_count ? &inv->roots[i] : NULL;
}

const char *cudaload_root_path(const cudaload_ctx *ctx, size_t i) {
  const cl_root *r = root_at(ctx, i);
  return r ? r->path : NULL;
}

const char *cudaload_root_origin(const cudaload_ctx *ctx, size_t i) {
  const cl_root *r = root_at(ctx, i);
  return r ? r->origin : NULL;
}

const char *cudaload_root_tier(const cudaload_ctx *ctx, size_t i) {
  const cl_root *r = root_at(ctx, i);
  return r ? cl_tier_name(cl_origin_tier(r->origin)) : NULL;
}

int cudaload_root_status(const cudaload_ctx *ctx, size_t i) {
  const cl_root *r = root_at(ctx, i);
  return r ? r->status : CUDALOAD_E_INVALID_ARGUMENT;
}

size_t cudaload_library_count(const cudaload_ctx *ctx) {
  return ctx ? cl_inventory_of(ctx)->library_count : 0;
}

static const cl_library *library_at(const cudaload_ctx *ctx, size_t i) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  return ctx && i < inv->library_count ? &inv->libraries[i] : NULL;
}

const char *cudaload_library_name(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = library_at(ctx, i);
  return l ? l->entry->name : NULL;
}

const char *cudaload_library_family(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = library_at(ctx, i);
  return l ? l->entry->family : NULL;
}

int cudaload_library_major(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = library_at(ctx, i);
  return l ? l->major : -1;
}

cl_library *cl_inventory_memo_of(const cudaload_ctx *ctx, size_t i) {
  /* The records are the inventory's, not the handle's: the const of a
   * handle reaches no further than its own fields (inventory.h, "Memos"). */
  const cl_inventory *inv = cl_inventory_of(ctx);
  return ctx && i < inv->library_count ? &inv->libraries[i] : NULL;
}

/* The version fields are looked up on first use (a wheel's dist-info): a
 * memo of the record (inventory.h), the handle stays as it was. */
static const cl_library *settled_library_at(const cudaload_ctx *ctx, size_t i) {
  cl_library *l = cl_inventory_memo_of(ctx, i);
  if (l && l->pending_folder)
    cl_library_settle_version(ctx, l);
  return l;
}

const char *cudaload_library_version(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = settled_library_at(ctx, i);
  return l ? l->version : NULL;
}

const char *cudaload_library_version_source(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = settled_library_at(ctx, i);
  return l ? l->version_source : NULL;
}

const char *cudaload_library_version_file(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = settled_library_at(ctx, i);
  return l ? l->version_file : NULL;
}

const char *cudaload_library_path(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = library_at(ctx, i);
  return l ? l->path : NULL;
}

const char *cudaload_library_include_dir(const cudaload_ctx *ctx, size_t i) {
  cl_clear_error();
  cl_library *l = cl_inventory_memo_of(ctx, i);
  if (!l)
    return NULL;
  /* Looked up once and kept: a memo (inventory.h). */
  const char *dir = cl_library_include_dir(
      l, (ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) != 0);
  if (!dir && l->include_refused)
    cl_fail(CUDALOAD_E_INSECURE,
            "the include folder beside %s is refused: %s; make it writable "
            "only by its owner, or pass CUDALOAD_ALLOW_WRITABLE_ROOTS "
            "(--allow-writable-roots)",
            l->path, l->include_refused);
  else if (!dir)
    cl_fail(CUDALOAD_E_NOT_FOUND,
            "no include folder holding %s beside %s (looked for include/ "
            "next to its lib, lib64 or bin folder); install the family's "
            "headers (the wheel's include/, or the toolkit's) there",
            l->entry->header ? l->entry->header : "its headers", l->path);
  return dir;
}

const char *cudaload_library_machine(const cudaload_ctx *ctx, size_t i) {
  cl_library *l = cl_inventory_memo_of(ctx, i);
  /* Read once and kept: a memo (inventory.h). Not through the file cache,
   * which would hold the file open after this getter returns (the public
   * calls that read through it release at their end). */
  return l ? cl_library_machine(NULL, l) : NULL;
}

size_t cudaload_library_root(const cudaload_ctx *ctx, size_t i) {
  const cl_library *l = library_at(ctx, i);
  return l ? l->root : (size_t)-1;
}
