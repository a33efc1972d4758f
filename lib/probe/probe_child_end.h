/* SPDX-License-Identifier: MIT */
/*
 * probe_child_end.h - the verdict on a probe run in a child process, from
 * its report and how it ended (probe_child_end.c): the one policy both
 * platforms' children (os/probe_child.h) hand their facts to.
 */
#ifndef CUDALOAD_PROBE_CHILD_END_H
#define CUDALOAD_PROBE_CHILD_END_H

#include "cudaload.h"

#include <stddef.h>

/* The most of a child's report the caller reads: a child that writes more
 * is killed, so that a driver flooding the report channel cannot make the
 * host hold gigabytes (a real report is a few KiB). */
#define CL_PROBE_REPORT_CAP (1024 * 1024)

/* How a probe's child ended, as the platform saw it; the verdict is
 * portable (cl_probe_child_verdict). */
typedef struct cl_probe_child_end {
  const char *report; /* what the child wrote, up to CL_PROBE_REPORT_CAP */
  size_t report_len;
  int flooded;   /* it wrote more than CL_PROBE_REPORT_CAP and was killed */
  int timed_out; /* it ran past timeout_s and was killed */
  double timeout_s;
  double elapsed_ms;
  /* Otherwise, how it ended, in the OS's words after "the probe process ":
   * "died from signal 11 (Segmentation fault)", "exited with status 3
   * before it finished". */
  char how[192];
} cl_probe_child_end;

/* Read the child's report into p and conclude it: a report that was
 * complete gives the verdict, whatever happened afterwards; otherwise the
 * child's end does (REASON_TIMEOUT, or REASON_PROBE_CRASHED with how it
 * ended). The same on every OS (probe_child_end.c). */
void cl_probe_child_verdict(cudaload_probe *p, const cl_probe_child_end *end);

#endif
