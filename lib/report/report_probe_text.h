/* SPDX-License-Identifier: MIT */
/*
 * report_probe_text.h - the probe's result as text for a person
 * (report_probe_text.c): cudaload_probe_report()'s CUDALOAD_FORMAT_TEXT,
 * which `cudaload probe` and the Python package's str(Probe) print.
 */
#ifndef CUDALOAD_REPORT_PROBE_TEXT_H
#define CUDALOAD_REPORT_PROBE_TEXT_H

#include "cudaload.h"

/* The verdict and its summary, the stages as a table (name, status,
 * milliseconds, message), the driver and each device with how it runs;
 * values from outside escaped (report_text.h). malloc'ed; NULL when memory
 * ran out. */
char *cl_probe_text(const cudaload_probe *p);

#endif
