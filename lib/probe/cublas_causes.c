/* SPDX-License-Identifier: MIT */
/*
 * cublas_causes.c - what CUBLAS_STATUS_NOT_INITIALIZED means on this
 * machine. cublasCreate says only that cuBLAS could not set itself up, and
 * users meet it as "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED" at their
 * first matrix product. The causes the probe can see are few and each has
 * its fact: the device had no memory left for cuBLAS's workspace, the
 * cuBLASLt beside cuBLAS is of another release, the runtime is newer than
 * the driver, or a display watchdog (Windows' TDR under WDDM) can reset the
 * driver under it. The message names those the facts support, and the
 * facts themselves when none does.
 */
#include "probe/cublas_causes.h"

#include "common/buf.h"
#include "load/spec.h"
#include "scan/inventory.h"
#include "load/plan_state.h"
#include "common/reason_words.h"

#include <string.h>

/* Less free than this share of a device (1/10), or than this many MiB, and
 * cuBLAS's workspace (a few MiB up to 32 MiB a handle, more with
 * CUBLAS_WORKSPACE_CONFIG) may not fit beside what a framework needs. */
#define LOW_FREE_DIVISOR 10
#define LOW_FREE_MIB 256

int cl_probe_free_memory_low(long long free_mib, unsigned long long total_mib) {
  if (free_mib < 0)
    return 0;
  return free_mib < LOW_FREE_MIB ||
         (total_mib &&
          (unsigned long long)free_mib * LOW_FREE_DIVISOR < total_mib);
}

/* The library of the plan's entry named `name` ("cublas", "cublasLt") for
 * requirement r, as the process has it: the loaded file where the preload
 * recorded one, else the planned one. NULL when not in the inventory. */
static cl_library *planned_library(cudaload_ctx *ctx, size_t r,
                                   const char *name) {
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    const cl_plan_entry *e = &cl_plan_state_of(ctx)->plan[i];
    if (e->requirement != r || !e->entry || strcmp(e->entry->name, name))
      continue;
    const char *path =
        e->loaded_path && e->loaded_path[0] ? e->loaded_path : e->path;
    cl_library *lib = cl_inventory_library_at(ctx, path);
    if (lib)
      cl_library_settle_version(ctx, lib);
    return lib;
  }
  return NULL;
}

/* The same release: major.minor.patch equal (the build number may differ
 * between two packagings of one release). */
static int same_release(const char *a, const char *b) {
  long pa[CL_VERSION_PARTS] = {0}, pb[CL_VERSION_PARTS] = {0};
  if (!cl_version_parse(a, pa) || !cl_version_parse(b, pb))
    return 1; /* not comparable: no evidence of a mismatch */
  return cl_version_compare(pa, 3, pb, 3) == 0;
}

/* Adds the pair's versions to `facts`, and the mismatch to `causes`. */
static void check_pair(cudaload_ctx *ctx, size_t r, cl_buf *causes,
                       cl_buf *facts) {
  const cl_library *blas = planned_library(ctx, r, "cublas");
  const cl_library *lt = planned_library(ctx, r, "cublasLt");
  if (!blas || !lt || !blas->version[0] || !lt->version[0])
    return;
  if (!same_release(blas->version, lt->version)) {
    cl_buf_printf(causes, CL_WORDS_CUBLASLT_OF_ANOTHER_RELEASE,
                  causes->len ? "; " : "", blas->version, lt->version,
                  lt->path);
  } else {
    cl_buf_printf(facts, CL_WORDS_CUBLAS_AND_CUBLASLT_BOTH,
                  facts->len ? ", " : "", blas->version);
  }
}

static void check_memory(const cudaload_probe *p, long long free_mib,
                         cl_buf *causes, cl_buf *facts) {
  if (free_mib < 0 || !p->device_count)
    return;
  unsigned long long total = p->devices[0].memory_mib;
  if (cl_probe_free_memory_low(free_mib, total))
    cl_buf_printf(causes, CL_WORDS_TOO_LITTLE_FREE_FOR_CUBLAS,
                  causes->len ? "; " : "", free_mib, total);
  else
    cl_buf_printf(facts, "%s%lld MiB free", facts->len ? ", " : "", free_mib);
}

static void check_versions(const cudaload_probe *p, cl_buf *causes,
                           cl_buf *facts) {
  int runtime = p->runtime_version, driver = p->driver_version;
  if (!runtime || !driver)
    return;
  if (runtime > driver)
    cl_buf_printf(causes, CL_WORDS_RUNTIME_NEWER_THAN_THE_DRIVER,
                  causes->len ? "; " : "", runtime / 1000, runtime % 1000 / 10,
                  driver / 1000, driver % 1000 / 10);
  else
    cl_buf_printf(facts, CL_WORDS_RUNTIME_NO_NEWER_THAN_THE_DRIVER,
                  facts->len ? ", " : "");
}

static void check_watchdog(const cudaload_probe *p, cl_buf *causes) {
  if (!p->device_count)
    return;
  const cl_probe_device *d = &p->devices[0];
  if (d->driver_model == CUDALOAD_DRIVER_MODEL_WDDM && d->kernel_timeout == 1)
    cl_buf_printf(causes, CL_WORDS_WDDM_WITH_THE_DISPLAY_WATCHDOG_ON,
                  causes->len ? "; " : "");
}

char *cl_cublas_not_initialized_causes(cudaload_ctx *ctx, size_t requirement,
                                       const cudaload_probe *p,
                                       long long free_mib) {
  cl_buf causes = CL_BUF_INIT, facts = CL_BUF_INIT;
  check_memory(p, free_mib, &causes, &facts);
  check_pair(ctx, requirement, &causes, &facts);
  check_versions(p, &causes, &facts);
  check_watchdog(p, &causes);
  cl_buf out = CL_BUF_INIT;
  if (causes.len)
    cl_buf_printf(&out, CL_WORDS_CUBLAS_COULD_NOT_SET_UP_BECAUSE, causes.data);
  else
    cl_buf_printf(&out, CL_WORDS_CUBLAS_COULD_NOT_SET_UP_NO_CAUSE,
                  facts.len ? facts.data : "no facts");
  cl_buf_free(&causes);
  cl_buf_free(&facts);
  return cl_buf_take(&out);
}
