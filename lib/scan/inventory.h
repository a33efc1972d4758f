/* SPDX-License-Identifier: MIT */
/*
 * inventory.h - roots -> inventory: cudaload_scan() makes the context's
 * inventory, the roots it searched and the libraries it found there
 * (inventory.c); a wheel's version is looked up later, on first use.
 */
#ifndef CUDALOAD_INVENTORY_H
#define CUDALOAD_INVENTORY_H

#include "core/context.h"
#include "binary/binary.h"
#include "scan/catalog.h"
#include "scan/version_sources.h"
#include "common/reason_words.h"

#include <stddef.h>

/* A folder (or, for "ld.so.cache", a file) the scan searched. */
typedef struct cl_root {
  char *path;
  const char *origin; /* static string: "explicit", "CUDA_PATH", ... */
  int status;         /* CUDALOAD_OK or why it was skipped */
  char *detail;       /* CUDALOAD_E_INSECURE: which folder, who can write */
  char *fix;          /* CUDALOAD_E_INSECURE: the command that makes what
                         detail names private (cl_os_private_fix) */
  /* CL_ORIGIN_RECORDED: the environment's cudaload.roots that names this
   * folder, or, for a record the scan could not use (path is then the
   * record itself, status why and detail the reason), the record. */
  char *record;
} cl_root;

/* A library file, or a folder of libraries, the scan refused because other
 * users can write to it (inventory.c): what a requirement may have missed,
 * and the command that makes it private. */
typedef struct cl_refusal {
  char *path;                    /* the file or folder others can write to */
  const cl_catalog_entry *entry; /* the library refused; NULL: a folder */
  int major;
  char *fix; /* chmod go-w / icacls line for path */
} cl_refusal;

/* One real library file. */
typedef struct cl_library {
  const cl_catalog_entry *entry;
  int major;
  int cuda_major;
  char *version;              /* "" when unknown */
  const char *version_source; /* static: "dist-info", "file-name", ... */
  char *version_file;         /* "" when unknown */
  char *path;                 /* real, absolute */
  size_t root;
  /* A wheel's version is looked up on first use (inventory.c): until then
   * the folder the file was listed in, its name there and what the name
   * told (pending_match stays after); NULL once settled. Read version,
   * version_source and version_file only after cl_library_settle_version,
   * and a library's CUDA major through cl_library_cuda_major
   * (library_cuda_major.h): cuda_major is what its version source told. */
  char *pending_folder;
  char *pending_name;
  cl_name_match pending_match;
  /* The machine it was built for (machine.h), read on first use. */
  const char *machine; /* static; NULL when unknown */
  int machine_read;
  /* Its family's include folder (include_dir.h), looked up on first use. */
  char *include_dir;     /* NULL when none */
  char *include_refused; /* why the one beside it is refused, or NULL */
  int include_read;
  /* Why a version source was passed over (others can write to it), so that
   * the plan can say so; NULL when none was (version_sources.c). */
  char *version_distrust;
  /* 1 when the scan left its version for later (a wheel's): stays 1 once
   * settled. */
  int version_deferred;
  /* A memo of cl_library_cuda_major (library_cuda_major.c): the CUDA major
   * its own files tell (0: none), once files_asked. */
  int files_cuda_major;
  int files_asked;
} cl_library;

/* A copy of a family's main library that a Python package bundles under a
 * renamed file (auditwheel: site-packages/ctranslate2.libs/
 * libcudnn-463fd6d5.so.8.9.7). The scan notes it but never lists it as a
 * library: nothing requires it by that name. It still opens its
 * sub-libraries by their real SONAMEs, which its folder lacks, so a plan for
 * its family and major preloads them. */
typedef struct cl_bundled_shim {
  const cl_catalog_entry *entry; /* the main library it is a copy of */
  int major;
  char *path;    /* absolute */
  char *package; /* "ctranslate2" (from ctranslate2.libs) */
} cl_bundled_shim;

/* A library of a package that opens CUDA libraries by name at run time
 * (consumers.h: ctranslate2's libctranslate2-<hex>.so.4.4.0), noticed by
 * the scan: a plan holding the family it opens in another major adds its
 * major or warns. */
typedef struct cl_noticed_consumer {
  const char *package; /* consumers.c's table */
  char *path;          /* absolute */
  char version[32];    /* "4.4.0"; "" when neither name nor dist-info tell */
} cl_noticed_consumer;

/* What the last scan found. Only cudaload_scan() makes it: each scan frees
 * the previous inventory's contents first (and with them the plan, which
 * points into it: cl_plan_entry's paths were copied, outcomes' indexes were
 * not), so a cl_library pointer or index is good until the next scan.
 * cudaload_require_for() (a new program's roots) and a manifest's roots
 * mark it stale (cl_inventory_invalidate), and the next plan scans again.
 * Freed with the context. */
struct cl_inventory {
  cl_root *roots;
  size_t root_count, root_capacity;
  cl_library *libraries;
  size_t library_count, library_capacity;
  cl_version_cache *version_cache;
  /* Frees version_cache: set by the scan that made it (inventory.c). */
  void (*version_cache_free)(cl_version_cache *cache);
  int scanned; /* 1 after a scan that succeeded, until invalidated */
  /* Set by cl_inventory_invalidate: the next scan is the same run's (new
   * roots of a program, a manifest), and keeps what was read from files. */
  int same_run;
  cl_bundled_shim *shims; /* bundled copies the last scan noticed */
  size_t shim_count, shim_capacity;
  cl_noticed_consumer *consumers; /* known consumers the last scan noticed */
  size_t consumer_count, consumer_capacity;
  /* Environments near the current folder that the last scan did not
   * search (scan/environment.c), for the fix lines; absolute. */
  char **nearby_environments;
  size_t nearby_count, nearby_capacity;
  cl_refusal *refusals; /* what the last scan refused as writable by others */
  size_t refusal_count, refusal_capacity;
  /* The driver's version as the plan and the doctor asked for it after
   * this scan (scan/driver_version.h, cl_driver_cuda_of), or NULL. */
  struct cl_driver_memo *driver_memo;
  /* Frees driver_memo: set by the code that made it (driver_version.c). */
  void (*driver_memo_free)(struct cl_driver_memo *memo);
};

/* ctx's inventory: an empty one (nothing scanned) before the first scan
 * or for a NULL ctx (the public getters' case), never NULL. */
const cl_inventory *cl_inventory_of(const cudaload_ctx *ctx);
/* Mark the inventory stale: the next plan scans again (the roots to search
 * changed). Frees nothing: what was found stays readable until that scan,
 * and what was read from files (the file cache, each file known by its
 * stamp) stays for it: `--for` reads the program's files, the doctor's
 * plan and loader model then ask them again. */
void cl_inventory_invalidate(cudaload_ctx *ctx);

/* The naming convention a ctx scans for. */
cl_naming cl_ctx_naming(const cudaload_ctx *ctx);

/* Look up a library's version now if the scan left it for later; keeps the
 * calling thread's last error as it was (inventory.c). A memo: it writes
 * lib and the scan's version cache, never the handle (the scan made that
 * cache before it left any version for later), so a const handle may ask. */
void cl_library_settle_version(const cudaload_ctx *ctx, cl_library *lib);
/* Memos. A library's version from a wheel's dist-info, the CUDA major its
 * files tell (library_cuda_major.h), the machine its file was built for and
 * its include folder are looked up on the first question
 * and kept in its record: filling one changes no answer (it is what the
 * scan would have read), so getters of a const handle fill them. This is
 * the one door to a record for that (library.c): library i of the
 * inventory, or NULL when out of range. Anything else reached through a
 * const handle is read only (docs/architecture.md, "Const means const"). */
cl_library *cl_inventory_memo_of(const cudaload_ctx *ctx, size_t i);
/* The library of the inventory at a (real, absolute) path, or NULL. */
cl_library *cl_inventory_library_at(const cudaload_ctx *ctx, const char *path);
/* Every library's (for reports that print them all). */
void cl_inventory_settle_versions(cudaload_ctx *ctx);

/* What follows a refusal's fix command in every fix line, the other way
 * out with its risk said, is CL_ALLOW_WRITABLE_RISK of
 * common/reason_words.h. */

/* The library of `family` (and major, when not 0) that the last scan
 * refused as writable by others, or NULL. */
const cl_refusal *cl_inventory_refused(const cudaload_ctx *ctx,
                                       const char *family, int major);

#endif
