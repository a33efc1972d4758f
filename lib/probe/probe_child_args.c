/* SPDX-License-Identifier: MIT */
/*
 * probe_child_args.c - the command line of the helper process that runs a
 * probe out of process (`cudaload probe --serve`-style arguments that
 * rebuild the caller's context), for the platform's probe_child_*.c.
 */
#include "probe/probe_child_args.h"

#include "core/context.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/plan_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Arguments for a helper process                                           */
/* ------------------------------------------------------------------------ */

void cl_probe_free_arguments(char **arguments) {
  if (!arguments)
    return;
  for (char **a = arguments; *a; ++a)
    free(*a);
  free(arguments);
}

char **cl_probe_child_arguments(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  size_t capacity = 4 + (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS ? 1 : 0) +
                    2 * ctx->explicit_count + 2 * ctx->environment_count +
                    2 * ps->requirement_count + 2 + 2;
  char **arguments = calloc(capacity, sizeof *arguments);
  if (!arguments)
    return NULL;
  size_t n = 0;
  int ok = 1;
#define ADD(text)                                                              \
  do {                                                                         \
    if (ok && !(arguments[n++] = cl_strdup(text)))                             \
      ok = 0;                                                                  \
  } while (0)
  ADD("probe");
  ADD("--child");
  if (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS)
    ADD("--no-defaults");
  for (size_t i = 0; i < ctx->explicit_count; ++i) {
    ADD("--root");
    ADD(ctx->explicit_roots[i]);
  }
  /* The same tiers in the child: its plan must choose what this one
   * did. */
  for (size_t i = 0; i < ctx->environment_count; ++i) {
    ADD("--environment");
    ADD(ctx->environment_roots[i]);
  }
  for (size_t i = 0; i < ps->requirement_count; ++i) {
    ADD("--require");
    ADD(ps->requirements[i].text);
  }
  char pin[32];
  if (ps->cuda_pin) {
    snprintf(pin, sizeof pin, "cuda=%d", ps->cuda_pin);
    ADD("--require");
    ADD(pin);
  }
  if (ctx->probe_driver_path) {
    ADD("--driver");
    ADD(ctx->probe_driver_path);
  }
#undef ADD
  if (!ok) {
    cl_probe_free_arguments(arguments);
    return NULL;
  }
  return arguments;
}
