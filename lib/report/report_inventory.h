/* SPDX-License-Identifier: MIT */
/*
 * report_inventory.h - the inventory as a report: the "roots" and
 * "libraries" members that `cudaload scan` and the doctor both write, and
 * the whole scan report (cudaload_scan_report(), cudaload_root_status_name()
 * in cudaload.h).
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

/* One line per root searched, indented: its path, its origin and, when it
 * could not be searched, why ("/opt/cuda (toolkit, not found)"). */
void cl_text_roots(cl_text_report *t, const cudaload_ctx *ctx,
                   const char *indent);

#endif
