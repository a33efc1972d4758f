/* SPDX-License-Identifier: MIT */
/*
 * report_probe.h - the probe's fields as a report writes them
 * (report_probe.c; schema: docs/probe.md).
 */
#ifndef CUDALOAD_REPORT_PROBE_H
#define CUDALOAD_REPORT_PROBE_H

#include "cudaload.h"
#include "report/report_writer.h"

/* The probe's fields (verdict, reason, summary, driver, runtime_version,
 * devices, stages) into the object the writer has open: the document of
 * cudaload_probe_report() and the doctor's "probe" object alike. */
void cl_report_probe_fields(cl_report_writer *w, const cudaload_probe *p);

#endif
