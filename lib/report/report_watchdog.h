/* SPDX-License-Identifier: MIT */
/*
 * report_watchdog.h - Windows' display watchdog settings (os/
 * display_watchdog.h) in the doctor's report: the JSON/YAML "watchdog"
 * object and the text section (report_watchdog.c).
 */
#ifndef CUDALOAD_REPORT_WATCHDOG_H
#define CUDALOAD_REPORT_WATCHDOG_H

#include "os/display_watchdog.h"
#include "report/report_text.h"
#include "report/report_writer.h"

/* The "watchdog" object (its key written by the caller), docs/doctor.md. */
void cl_report_watchdog(cl_report_writer *w, const cl_display_watchdog *wd);

/* The text section's lines, labels padded to label_width. */
void cl_text_watchdog(cl_text_report *r, int label_width,
                      const cl_display_watchdog *wd);

#endif
