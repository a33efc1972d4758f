/* SPDX-License-Identifier: MIT */
/*
 * program_pins.h - what a distribution's METADATA says of the CUDA
 * libraries it needs (program_pins.c): its pins and what its package loads
 * itself.
 */
#ifndef CUDALOAD_PROGRAM_PINS_H
#define CUDALOAD_PROGRAM_PINS_H

#include "load/program_scan.h"
#include "scan/distinfo.h"

/* One Requires-Dist line of the distribution being read (opaque: its
 * cl_program_scan), as cl_requires_dist_parse calls it: a pin of one of
 * NVIDIA's wheels whose marker holds requires its family and major, with
 * the least version it pins; a meta-distribution (cuda-toolkit[...]) is
 * followed for its extras. 0 (read on). */
int cl_program_visit_pin(const cl_requirement_line *line, void *opaque);

/* The libraries distribution `name` at `version` loads by path itself
 * (consumers.c): each file a row names that the site folder holds, in the
 * row's order, recorded in ps->preloads (or ps->call_files with the call
 * that loads it). */
void cl_program_note_preloads(cl_program_scan *ps, const char *name,
                              const char *version);

#endif
