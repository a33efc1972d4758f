/* SPDX-License-Identifier: MIT */
/*
 * probe_wire.h - the line format between a probing child and its parent
 * (probe_wire.c): a result turned into lines and back, so that a child
 * process can run the probe and report to its parent (os/probe_child.h).
 */
#ifndef CUDALOAD_PROBE_WIRE_H
#define CUDALOAD_PROBE_WIRE_H

#include "probe/probe_result.h"

#include <stddef.h>

/* The first line a child writes. */
char *cl_probe_wire_header(void);
/* One finished stage, as a line. */
char *cl_probe_wire_stage(const cudaload_probe *p, size_t stage);
/* Driver, runtime, devices, verdict and the final "end" line. */
char *cl_probe_wire_tail(const cudaload_probe *p);
/*
 * Read what a child wrote into p (from cl_probe_new). *complete is 1 when
 * the final "end" line arrived after a valid verdict; stages, devices and
 * the verdict read before a cut-off stay in p. Unknown records are skipped
 * (a newer child may say more); numbers out of range are dropped as
 * probe_stages.c drops a driver's (CL_PROBE_MAX_*, probe_result.h).
 * CUDALOAD_OK, or CUDALOAD_E_MALFORMED when the header is wrong.
 */
int cl_probe_wire_parse(const char *text, size_t len, cudaload_probe *p,
                        int *complete);

#endif
