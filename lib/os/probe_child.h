/* SPDX-License-Identifier: MIT */
/*
 * probe_child.h - the platform part of the GPU probe: running the probe in
 * a child process that can be killed when a hung driver keeps it from
 * answering. lib/posix/probe_child_posix.c forks; lib/win32/
 * probe_child_win32.c starts the cudaload tool as a helper ("cudaload probe
 * --child --report-handle H", cl_os_probe_serve_child). Both run the stages
 * of probe/probe_stages.h, report in the line format of probe/probe_wire.h
 * and hand how the child ended to the portable verdict
 * (probe/probe_child_end.h).
 */
#ifndef CUDALOAD_OS_PROBE_CHILD_H
#define CUDALOAD_OS_PROBE_CHILD_H

#include "cudaload.h"

/*
 * Run the probe of ctx in a child process and read its report into p (from
 * cl_probe_new), waiting at most timeout_s seconds for the child to end:
 * neither a process the driver started that keeps the report channel open
 * nor a driver that closes it makes the wait longer. At the end, or at the
 * deadline, the child and every process it started that can be found are
 * killed (POSIX: a process group, and on Linux a subreaper; Windows: a job
 * object; SECURITY.md says what escapes). A report that was complete by
 * then gives the verdict; otherwise a child that did not finish in time is
 * REASON_TIMEOUT, one that wrote more than CL_PROBE_REPORT_CAP bytes, died
 * or reported nothing is REASON_PROBE_CRASHED. What the driver prints on
 * stdout goes to stderr, never into the report or the caller's stdout.
 * Returns CUDALOAD_OK with p concluded in those cases too; an error status
 * only when no child could be started (last error set).
 */
int cl_os_probe_run_child(cudaload_ctx *ctx, double timeout_s,
                          cudaload_probe *p);

/*
 * The child's side when the child is a program of its own (Windows: the
 * cudaload tool run as "cudaload probe --child --report-handle H ..."):
 * stdout is pointed at stderr, then the probe of ctx runs and its report
 * goes, in the line format of probe_wire.c, to the channel that `channel`
 * names: the text after --report-handle (Windows: the value of a pipe
 * handle inherited from the parent; POSIX: a file descriptor number).
 * CUDALOAD_OK, or an error status with the last error set when `channel`
 * names no open channel or the report could not be made or written.
 */
int cl_os_probe_serve_child(cudaload_ctx *ctx, const char *channel);

#endif
