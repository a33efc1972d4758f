/* SPDX-License-Identifier: MIT */
/*
 * probe_stages.h - the probe's stages run in this process (probe_stages.c),
 * through function tables filled from the libraries it loads (no CUDA
 * header, no link to CUDA). probe.c and the platform's child
 * (os/probe_child.h) run them.
 */
#ifndef CUDALOAD_PROBE_STAGES_H
#define CUDALOAD_PROBE_STAGES_H

#include "probe/probe_result.h"

/* Called after each stage finishes (the child reports it at once, so a
 * stage that hangs later does not hide the ones before it). */
typedef void (*cl_probe_stage_callback)(const cudaload_probe *p, size_t stage,
                                        void *opaque);

/* Run every stage in this process into p (from cl_probe_new) and conclude.
 * Returns CUDALOAD_OK whatever the verdict, CUDALOAD_E_NO_MEMORY when the
 * result could not be written. */
int cl_probe_run_in_process(cudaload_ctx *ctx, cudaload_probe *p,
                            cl_probe_stage_callback on_stage, void *opaque);

#endif
