/* SPDX-License-Identifier: MIT */
/*
 * report_plan.h - the plan as text for a person: the one table of the plan
 * (the doctor's "Plan" section writes it too) and the whole plan report,
 * cudaload_plan_report() in cudaload.h, which `cudaload env --dry-run`,
 * `cudaload exec --dry-run` and the Python package's str(Report) print.
 */
#ifndef CUDALOAD_REPORT_PLAN_H
#define CUDALOAD_REPORT_PLAN_H

#include "cudaload.h"
#include "report/report_text.h"

/* How a report lays the plan table out. The doctor leaves out what its
 * other sections say: the reason of a sub-library its main library finds
 * (the same for every sibling) and the file a process loaded (its own
 * section). The plan report shows both. */
typedef struct cl_plan_table_layout {
  const char *indent;      /* before every line */
  int why_of_not_needed;   /* the reason of a "not-needed" entry too */
  int file_used_elsewhere; /* "uses: PATH" where another file was loaded */
} cl_plan_table_layout;

/* The plan's entries in load order as an aligned table under a header line
 * (STATE NAME MAJOR PATH), each with "why:" its reason on the line below;
 * values from outside escaped (report_text.h). Nothing when the plan is
 * empty. */
void cl_text_plan_table(cl_text_report *t, const cudaload_ctx *ctx,
                        const cl_plan_table_layout *layout);

#endif
