/* SPDX-License-Identifier: MIT */
/*
 * driver_version.h - the installed NVIDIA driver's version and the newest
 * CUDA it supports, read from files only: the driver is never loaded into
 * this process and CUDA is never initialised, so the plan can ask before it
 * preloads anything ("never choose a CUDA major newer than the driver
 * supports", issue 14).
 *
 * Sources, first that answers wins:
 *   1. the driver the library would use (CUDALOAD_DRIVER or the caller's
 *      override, as the probe picks it): the version in its real file name
 *      (libcuda.so.1 -> libcuda.so.535.104.05), or nvcuda.dll's VERSIONINFO;
 *   2. Linux: libcuda.so.1 in /etc/ld.so.cache, its real file name;
 *   3. Linux: /proc/driver/nvidia/version (the kernel module's version);
 *   4. Windows: nvcuda.dll in System32, its VERSIONINFO;
 *   5. Linux under WSL 2, where libcuda.so.1 is a plain file without a
 *      version in its name and /proc has no NVIDIA entry: the Windows
 *      driver's store folder WSL mounts under /usr/lib/wsl/drivers, the
 *      VERSIONINFO of its nvcuda64.dll (a Windows driver version, mapped
 *      with the Windows column of the table).
 * A source that cannot tell (no file, a name without a version, a FIFO, a
 * symlink loop, garbage) is passed over; none answering is "unknown", never
 * an error.
 */
#ifndef CUDALOAD_DRIVER_VERSION_H
#define CUDALOAD_DRIVER_VERSION_H

#include "scan/catalog.h"
#include "core/context.h"

#include <stddef.h>

/* A driver version has at most this many dot-separated parts (535.104.05). */
#define CL_DRIVER_VERSION_PARTS 3

typedef struct cl_driver_cuda {
  int found;        /* 1: version, cuda_* and source are set */
  char version[32]; /* "535.104.05" (Linux), "560.94" (Windows) */
  /* Where the version came from, for messages: "CUDALOAD_DRIVER",
   * / --driver", "ld.so.cache", "/proc/driver/nvidia/version",
   * "System32", "WSL driver store"; a static
   * string, NULL when not found. */
  const char *source;
  char path[512]; /* the file read ("" when not found or too long) */
  /* The newest CUDA major.minor the driver fully supports (NVIDIA's Table 3);
   * 0.0 when the driver is older than every release in the table. */
  int cuda_major, cuda_minor;
  /* The newest CUDA major whose every minor runs on this driver, at least
   * with minor-version compatibility (Table 2); 0 when none. */
  int max_major_compat;
  /* When not found: why each source said no, for messages ("" otherwise). */
  char why[384];
} cl_driver_cuda;

/* What the reader consults; production values come from cl_driver_cuda_read,
 * tests point each at fixture files. Any field may be NULL: that source is
 * skipped. */
typedef struct cl_driver_sources {
  cl_naming naming;              /* libcuda.so.N + file names, or nvcuda.dll */
  const char *driver;            /* source 1: a path or a bare file name */
  const char *ldcache_path;      /* source 2 ("/etc/ld.so.cache"), Linux only */
  const char *proc_version_path; /* source 3, Linux only */
  const char *system_dir;        /* source 4 (System32), Windows only */
  const char *wsl_drivers_dir;   /* source 5 (/usr/lib/wsl/drivers), Linux */
  /* Where ld.so.cache is read through (binary/file_cache.h): the run's
   * cache, which the scan and each loader model read it through too; NULL:
   * read here. */
  struct cl_file_cache *cache;
} cl_driver_sources;

/*
 * The host's driver. driver_override: the driver the caller was told to use
 * (cudaload_set_driver / --driver), or NULL to honour CUDALOAD_DRIVER as the
 * probe does. Always fills *out (found 0: unknown). Returns CUDALOAD_OK, or
 * CUDALOAD_E_NO_MEMORY; either way the last error is left as it was.
 */
int cl_driver_cuda_read(cl_naming naming, const char *driver_override,
                        cl_driver_cuda *out);
/*
 * The same for ctx (its driver: ctx->probe_driver_path, else
 * CUDALOAD_DRIVER), asked once per scan: the plan and the doctor both ask,
 * and the answer is kept with the scan's inventory (a new scan asks again),
 * ld.so.cache read through ctx's file cache. naming as above.
 */
int cl_driver_cuda_of(cudaload_ctx *ctx, cl_naming naming, cl_driver_cuda *out);
/* What cl_driver_cuda_of keeps for one scan (inventory.c frees it through
 * the inventory's driver_memo_free). */
typedef struct cl_driver_memo cl_driver_memo;
void cl_driver_memo_free(cl_driver_memo *memo);
/* The same from explicit sources (unit tests feed fixture files). */
int cl_driver_cuda_read_from(const cl_driver_sources *sources,
                             cl_driver_cuda *out);

/* 1 when the driver runs CUDA `major` builds (every minor through
 * minor-version compatibility, or the major's first release in full), 0 when
 * it does not; -1 when the driver's version is unknown (the caller decides:
 * the plan must not refuse a major on no evidence). */
int cl_driver_supports_cuda_major(const cl_driver_cuda *d, int major);

/* --- the pieces, for tests and the doctor --------------------------------- */

/* Parse "535.104.05" / "560.94": 2 or 3 numeric parts, nothing else.
 * Returns the number of parts (unused parts 0) or 0 when malformed. */
int cl_driver_version_parse(const char *text,
                            long parts[CL_DRIVER_VERSION_PARTS]);
/* The version in a driver file name: "libcuda.so.535.104.05" -> into out.
 * 1 on success, 0 when the name carries no driver version (libcuda.so.1). */
int cl_driver_version_from_file_name(const char *name, char *out, size_t len);
/* The version in /proc/driver/nvidia/version's text ("NVRM version: NVIDIA
 * UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..."). 1 or 0. */
int cl_driver_version_from_proc_text(const char *text, char *out, size_t len);
/* nvcuda.dll's VERSIONINFO file version to the driver version:
 * "32.0.15.6094" -> "560.94" (the last five digits of the last two fields).
 * 1 or 0. */
int cl_driver_version_from_versioninfo(const char *file_version, char *out,
                                       size_t len);
/* Fill cuda_major/minor and max_major_compat of *d from d->version for the
 * given naming's table (Linux or Windows). 0, or -1 when the version does
 * not parse (then all three are 0). */
int cl_driver_cuda_map(cl_naming naming, cl_driver_cuda *d);

#endif
