/* SPDX-License-Identifier: MIT */
/*
 * probe.c - the probe's entry points: which driver to use, and a run in
 * this process (probe_stages.c) or in a child that reports back over a pipe
 * (the platform's probe_child_*.c, which runs the same stages).
 */
#include "probe/probe_result.h"
#include "probe/probe_stages.h"

#include "core/context.h"
#include "common/error.h"
#include "os/platform.h"
#include "os/probe_child.h"
#include "common/strutil.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Public API (cudaload_set_driver() is core/context.c's: the driver chosen
 * is the handle's input, read by the plan as well as the probe)            */
/* ------------------------------------------------------------------------ */

#define CL_KNOWN_PROBE_FLAGS CUDALOAD_PROBE_OUT_OF_PROCESS
#define CL_DEFAULT_PROBE_TIMEOUT_S 30.0

int cudaload_probe_run(cudaload_ctx *ctx, unsigned flags, double timeout_s,
                       cudaload_probe **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_probe_run: NULL %s",
                   ctx ? "out" : "ctx");
  if (flags & ~(unsigned)CL_KNOWN_PROBE_FLAGS)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_probe_run: unknown flag bits 0x%x",
                   flags & ~(unsigned)CL_KNOWN_PROBE_FLAGS);
  if (!(timeout_s >= 0) || timeout_s > 86400.0)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_probe_run: timeout %g s is out of range (0 to "
                   "86400; 0 means %g s)",
                   timeout_s, CL_DEFAULT_PROBE_TIMEOUT_S);
  cudaload_probe *p = cl_probe_new();
  if (!p)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_probe_run: out of memory");
  int status;
  if (flags & CUDALOAD_PROBE_OUT_OF_PROCESS)
    status = cl_os_probe_run_child(
        ctx, timeout_s > 0 ? timeout_s : CL_DEFAULT_PROBE_TIMEOUT_S, p);
  else
    status = cl_probe_run_in_process(ctx, p, NULL, NULL);
  if (status != CUDALOAD_OK) {
    cudaload_probe_free(p);
    if (status == CUDALOAD_E_NO_MEMORY)
      return cl_fail(status, "cudaload_probe_run: out of memory");
    return status; /* the last error says why no child could start */
  }
  cl_clear_error();
  *out = p;
  return CUDALOAD_OK;
}

int cudaload_probe_serve(cudaload_ctx *ctx, const char *channel) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_probe_serve: NULL ctx");
  return cl_os_probe_serve_child(ctx, channel);
}
