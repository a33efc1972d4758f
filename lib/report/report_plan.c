/* SPDX-License-Identifier: MIT */
/* report_plan.c - the plan as text for a person (report_plan.h): its table
 * and cudaload_plan_report(). */
#include "report/report_plan.h"

#include "common/error.h"
#include "load/plan_state.h"
#include "scan/inventory.h"

#include <string.h>

/* Column widths of a table: the header's, widened by every cell. */
static void widen(size_t *width, const char *cell) {
  size_t n = strlen(cell);
  if (n > *width)
    *width = n;
}

void cl_text_plan_table(cl_text_report *t, const cudaload_ctx *ctx,
                        const cl_plan_table_layout *layout) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  const char *in = layout->indent;
  if (ps->plan_count == 0)
    return;
  size_t ws = strlen("STATE"), wn = strlen("NAME");
  for (size_t i = 0; i < ps->plan_count; ++i) {
    widen(&ws, cudaload_plan_state_name(ps->plan[i].state));
    widen(&wn, ps->plan[i].entry->name);
  }
  cl_text_put(t, "%s%-*s  %-*s  MAJOR  PATH\n", in, (int)ws, "STATE", (int)wn,
              "NAME");
  for (size_t i = 0; i < ps->plan_count; ++i) {
    const cl_plan_entry *p = &ps->plan[i];
    cl_text_put(t, "%s%-*s  %-*s  %-5d  %s\n", in, (int)ws,
                cudaload_plan_state_name(p->state), (int)wn, p->entry->name,
                p->major, cl_text_shown(t, p->path));
    if (p->state != CUDALOAD_STATE_NOT_NEEDED || layout->why_of_not_needed)
      cl_text_put(t, "%s%-*s  %-*s         why: %s\n", in, (int)ws, "", (int)wn,
                  "", cl_text_shown(t, p->reason));
    if (layout->file_used_elsewhere && p->loaded_path && p->loaded_path[0] &&
        strcmp(p->loaded_path, p->path) != 0)
      cl_text_put(t, "%s%-*s  %-*s         uses: %s\n", in, (int)ws, "",
                  (int)wn, "", cl_text_shown(t, p->loaded_path));
  }
}

/* The requirements, the table, the conflicts and what the scan found. */
static char *plan_text(const cudaload_ctx *ctx) {
  static const cl_plan_table_layout layout = {
      .indent = "  ", .why_of_not_needed = 1, .file_used_elsewhere = 1};
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  const cl_inventory *inv = cl_inventory_of(ctx);
  cl_text_report t = CL_TEXT_REPORT_INIT;
  if (ps->requirement_count) {
    cl_text_put(&t, "requirements:");
    for (size_t r = 0; r < ps->requirement_count; ++r)
      cl_text_put(&t, "%s %s", r ? "," : "",
                  cl_text_shown(&t, ps->requirements[r].text));
    cl_text_put(&t, "\n");
  }
  if (ps->plan_count) {
    cl_text_put(&t, "plan (%zu %s, in load order):\n", ps->plan_count,
                ps->plan_count == 1 ? "file" : "files");
    cl_text_plan_table(&t, ctx, &layout);
  }
  for (size_t i = 0; i < ps->conflict_count; ++i)
    cl_text_put(&t, "conflict: %s\n  %s\n",
                cl_text_shown(&t, ps->conflicts[i].path),
                cl_text_shown(&t, ps->conflicts[i].text));
  cl_text_put(&t, "%zu %s found in %zu %s\n", inv->library_count,
              inv->library_count == 1 ? "library" : "libraries",
              inv->root_count, inv->root_count == 1 ? "root" : "roots");
  return cl_text_finish(&t);
}

int cudaload_plan_report(const cudaload_ctx *ctx, int format, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_plan_report: NULL argument");
  if (format != CUDALOAD_FORMAT_TEXT)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_plan_report: format %d is not text (the plan as "
                   "data is the doctor's \"plan\" member of its JSON and YAML)",
                   format);
  *out = plan_text(ctx);
  return *out ? CUDALOAD_OK
              : cl_fail(CUDALOAD_E_NO_MEMORY,
                        "cudaload_plan_report: out of memory");
}
