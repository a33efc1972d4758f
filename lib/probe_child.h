/*
 * probe_child.h - the platform part of the GPU probe: a monotonic clock,
 * and running the probe in a child process that can be killed when a hung
 * driver keeps it from answering. lib/posix/probe_child_posix.c forks;
 * lib/win32/probe_child_win32.c starts the cudaload tool as a helper
 * ("cudaload probe --child"). Both read the line format of probe_wire.c.
 */
#ifndef CUDALOAD_PROBE_CHILD_H
#define CUDALOAD_PROBE_CHILD_H

#include "probe.h"

/* Milliseconds from an arbitrary start, never going back. */
double cl_probe_clock_ms(void);

/*
 * Run the probe of ctx in a child process and read its report into p (from
 * cl_probe_new), waiting at most timeout_s seconds. A child that does not
 * finish in time is killed (REASON_TIMEOUT); one that dies or reports
 * nothing is REASON_PROBE_CRASHED. Returns CUDALOAD_OK with p concluded in
 * those cases too; an error status only when no child could be started
 * (last error set).
 */
int cl_probe_run_child(cudaload_ctx *ctx, double timeout_s, cudaload_probe *p);

/*
 * The arguments that make the cudaload tool probe like ctx: "probe"
 * "--child" followed by --no-defaults, --root, --require and --driver as
 * the ctx has them. A NULL-terminated, malloc'ed array of malloc'ed
 * strings (free with cl_probe_free_arguments), or NULL without memory.
 */
char **cl_probe_child_arguments(const cudaload_ctx *ctx);
void cl_probe_free_arguments(char **arguments);

#endif
