/* SPDX-License-Identifier: MIT */
/*
 * report_inventory.h - the inventory as a report: the "roots" and
 * "libraries" members and the library table that `cudaload scan` and the
 * doctor both write, and the whole scan report (cudaload_scan_report(),
 * cudaload_root_status_name() in cudaload.h).
 */
#ifndef CUDALOAD_REPORT_INVENTORY_H
#define CUDALOAD_REPORT_INVENTORY_H

#include "cudaload.h"
#include "report/report_text.h"
#include "report/report_writer.h"

/* Inside an object: "roots": [{path, origin, status}] and "libraries":
 * [{name, family, major, cuda_major, version, version_source, version_file,
 * path, root}] (docs/cli.md, docs/doctor.md). */
void cl_report_write_roots(cl_report_writer *w, const cudaload_ctx *ctx);
void cl_report_write_libraries(cl_report_writer *w, const cudaload_ctx *ctx);

/* One line per environment near the current folder that was not searched
 * (an inactive venv or conda environment, scan/environment.c); nothing
 * when there is none. */
void cl_text_nearby_environments(cl_text_report *t, const cudaload_ctx *ctx,
                                 const char *indent);

/* How a report lays the library table out. `cudaload scan` leads with the
 * name, at the margin, and prints the header over no rows; the doctor
 * leads with the family, indented under its heading, and prints nothing
 * when there is no library. */
typedef struct cl_library_table_layout {
  const char *indent; /* before every line */
  int family_first;   /* FAMILY NAME ... rather than NAME FAMILY ... */
  int header_without_rows;
} cl_library_table_layout;

/* The libraries found as an aligned table, one line each: name, family,
 * major, version ("-" when none was found), where the version came from,
 * path; values from outside escaped (report_text.h). The one table of the
 * inventory, for scan and the doctor alike. */
void cl_text_library_table(cl_text_report *t, const cudaload_ctx *ctx,
                           const cl_library_table_layout *layout);

/* One line per root searched, indented: its path, its origin and, when it
 * could not be searched, why ("/opt/cuda (toolkit, not found)"). */
void cl_text_roots(cl_text_report *t, const cudaload_ctx *ctx,
                   const char *indent);

#endif
