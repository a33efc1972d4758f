/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - cudaload_doctor(): the whole diagnosis in one report, as text
 * for a person or as JSON/YAML for a program (docs/doctor.md is the schema).
 *
 * The doctor gathers first (scan, plan, probe, the process's modules) and
 * writes afterwards, so every format says the same thing. Each problem gets
 * exactly one fix line: a report that only lists symptoms sends the user
 * searching.
 */
#include "binary/file_cache.h"
#include "report/doctor_problems.h"
#include "report/doctor_structured.h"
#include "report/doctor_text.h"
#include "problem/problem_words.h"
#include "load/manifest.h"
#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#define CL_DOCTOR_FLAGS                                                        \
  (CUDALOAD_DOCTOR_PROBE | CUDALOAD_DOCTOR_COLOR |                             \
   CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS | CUDALOAD_DOCTOR_SHORT |              \
   CUDALOAD_DOCTOR_MARKS)

/* --- entry points ------------------------------------------------------ */

static int doctor_held(cudaload_ctx *ctx, int format, unsigned flags,
                       char **out);

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_doctor(cudaload_ctx *ctx, int format, unsigned flags, char **out) {
  int rc = doctor_held(ctx, format, flags, out);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int doctor_held(cudaload_ctx *ctx, int format, unsigned flags,
                       char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (ctx)
    cl_problem_kept_hide(ctx);
  if (!ctx || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_doctor: NULL %s",
                   ctx ? "out" : "ctx");
  if (flags & ~CL_DOCTOR_FLAGS)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_doctor: unknown flag bits 0x%x",
                   flags & ~CL_DOCTOR_FLAGS);
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_doctor: unknown format %d", format);
  int rc = cl_inventory_of(ctx)->scanned ? CUDALOAD_OK : cudaload_scan(ctx);
  if (rc)
    return rc;
  /* The doctor plans for the user's requirements and judges in a handle of
   * its own, lent the user's roots, inventory and caches (core/context.h,
   * cl_ctx_lend()): the user's handle, its plan and the plan's strings, are
   * read and never written. The file cache is made first, in the user's
   * handle, so that what the report reads is kept there as a plan's is. */
  cl_file_cache_of(ctx);
  cudaload_ctx own;
  cl_ctx_lend(ctx, &own);
  if (cl_plan_state_own(&own, cl_plan_state_of(ctx)))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  cl_doctor d;
  memset(&d, 0, sizeof d);
  d.ctx = &own;
  d.flags = flags;
  rc = cl_doctor_plan(&d, cl_plan_state_of(ctx));
  if (!rc) /* the report prints every version */
    cl_inventory_settle_versions(&own);
  if (rc) {
    cl_doctor_free(&d);
    cl_ctx_lent_end(ctx, &own);
    return rc;
  }
  if (flags & (CUDALOAD_DOCTOR_PROBE | CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS) ||
      cl_manifest_probe(ctx))
    cl_doctor_run_probe(&d);
  cl_doctor_gather_system(&d);
  cl_doctor_find_problems(&d);
  d.failed |= cl_problem_list_finish(&d.problems, cl_doctor_host_shell()) !=
              CUDALOAD_OK;
  char *report = NULL;
  if (!d.failed)
    report = format == CUDALOAD_FORMAT_TEXT
                 ? cl_doctor_text(&d)
                 : cl_doctor_structured(&d, format == CUDALOAD_FORMAT_JSON
                                                ? CL_REPORT_JSON
                                                : CL_REPORT_YAML);
  if (report && cl_problem_list_keep(ctx, &d.problems) != CUDALOAD_OK) {
    free(report);
    report = NULL;
  }
  cl_doctor_free(&d);
  cl_ctx_lent_end(ctx, &own);
  if (!report)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  cl_clear_error();
  *out = report;
  cl_problem_kept_show(ctx);
  return CUDALOAD_OK;
}

size_t cudaload_doctor_problem_count(const cudaload_ctx *ctx) {
  return cl_problem_kept_count(ctx);
}

void cudaload_free(void *memory) {
  free(memory);
}
