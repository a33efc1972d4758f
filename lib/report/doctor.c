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
 * them stays in the cache (file_cache.h, "Holding files open"). The cache
 * is held across the scan, the plan and the judgement, which ask the same
 * files (the plan's own release would close them between): each file is
 * opened once. */
int cudaload_doctor(cudaload_ctx *ctx, int format, unsigned flags, char **out) {
  cl_file_cache *held = ctx ? cl_file_cache_of(ctx) : NULL;
  cl_file_cache_hold(held);
  int rc = doctor_held(ctx, format, flags, out);
  cl_file_cache_unhold(held);
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
    ctx->doctor_problem_count = 0;
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
  cl_doctor d;
  memset(&d, 0, sizeof d);
  d.ctx = ctx;
  d.flags = flags;
  int rc = cl_inventory_of(ctx)->scanned ? CUDALOAD_OK : cudaload_scan(ctx);
  if (rc)
    return rc;
  cl_plan_state *users;
  if (cl_plan_state_begin_own(ctx, &users))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  rc = cl_doctor_plan(&d, users);
  if (!rc) /* the report prints every version */
    cl_inventory_settle_versions(ctx);
  if (rc) {
    cl_plan_state_end_own(ctx, users);
    cl_doctor_free(&d);
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
  size_t problems = cl_problem_list_problems(&d.problems);
  if (report && cl_problem_list_keep(ctx, &d.problems) != CUDALOAD_OK) {
    free(report);
    report = NULL;
  }
  cl_plan_state_end_own(ctx, users);
  cl_doctor_free(&d);
  if (!report)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_doctor: out of memory");
  cl_clear_error();
  *out = report;
  ctx->doctor_problem_count = problems;
  return CUDALOAD_OK;
}

size_t cudaload_doctor_problem_count(const cudaload_ctx *ctx) {
  return ctx ? ctx->doctor_problem_count : 0;
}

void cudaload_free(void *memory) {
  free(memory);
}
