/* SPDX-License-Identifier: MIT */
/* report_inventory.c - the inventory as a report: its members, for scan and
 * the doctor alike (one schema, one writer), and the whole scan report,
 * cudaload_scan_report(), that `cudaload scan` prints. */
#include "report/report_inventory.h"

#include "common/error.h"
#include "core/context.h"
#include "report/report_text.h"
#include "scan/include_dir.h"
#include "scan/inventory.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *cudaload_root_status_name(int status) {
  switch (status) {
  case CUDALOAD_OK:
    return "ok";
  case CUDALOAD_E_NOT_FOUND:
    return "not found";
  case CUDALOAD_E_NOT_A_FILE:
    return "not a folder";
  case CUDALOAD_E_MALFORMED:
    return "malformed";
  case CUDALOAD_E_INSECURE:
    return "writable by other users";
  default:
    return "unreadable";
  }
}

static const char *or_null(const char *s) {
  return s && *s ? s : NULL;
}

void cl_report_write_roots(cl_report_writer *w, const cudaload_ctx *ctx) {
  cl_report_key(w, "roots");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, cudaload_root_path(ctx, i));
    cl_report_key(w, "origin");
    cl_report_string(w, cudaload_root_origin(ctx, i));
    cl_report_key(w, "tier");
    cl_report_string(w, cudaload_root_tier(ctx, i));
    cl_report_key(w, "status");
    cl_report_string(w,
                     cudaload_root_status_name(cudaload_root_status(ctx, i)));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

void cl_report_write_libraries(cl_report_writer *w, const cudaload_ctx *ctx) {
  cl_report_key(w, "libraries");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, cudaload_library_name(ctx, i));
    cl_report_key(w, "family");
    cl_report_string(w, cudaload_library_family(ctx, i));
    cl_report_key(w, "major");
    cl_report_int(w, cudaload_library_major(ctx, i));
    cl_report_key(w, "cuda_major");
    if (cudaload_library_cuda_major(ctx, i) > 0)
      cl_report_int(w, cudaload_library_cuda_major(ctx, i));
    else
      cl_report_null(w);
    cl_report_key(w, "version");
    cl_report_string(w, or_null(cudaload_library_version(ctx, i)));
    cl_report_key(w, "version_source");
    cl_report_string(w, cudaload_library_version_source(ctx, i));
    cl_report_key(w, "version_file");
    cl_report_string(w, or_null(cudaload_library_version_file(ctx, i)));
    cl_report_key(w, "path");
    cl_report_string(w, cudaload_library_path(ctx, i));
    cl_report_key(w, "include_dir");
    /* The lookup itself (include_dir.c), not the public call: a library
     * without headers is no failure here, and the sentence the public call
     * writes for it was formatted 100,000 times for nobody. */
    cl_report_string(w, cl_library_include_dir(
                            cl_inventory_memo_of(ctx, i),
                            (ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) != 0));
    cl_report_key(w, "machine");
    cl_report_string(w, cudaload_library_machine(ctx, i));
    cl_report_key(w, "root");
    cl_report_int(w, (long long)cudaload_library_root(ctx, i));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* ------------------------------------------------------------------------ */
/* The scan report                                                          */
/* ------------------------------------------------------------------------ */

static char *scan_structured(const cudaload_ctx *ctx, int format) {
  cl_report_writer *w = cl_report_writer_new((cl_report_format)format);
  if (!w)
    return NULL;
  cl_report_begin_object(w);
  cl_report_key(w, "schema_version");
  cl_report_int(w, 1);
  cl_report_key(w, "target");
  cl_report_string(w, cl_ctx_naming(ctx) == CL_NAMING_WINDOWS ? "windows"
                                                              : "linux");
  cl_report_write_roots(w, ctx);
  cl_report_write_libraries(w, ctx);
  cl_report_end_object(w);
  size_t len = 0;
  return cl_report_writer_finish(w, &len);
}

void cl_text_nearby_environments(cl_text_report *t, const cudaload_ctx *ctx,
                                 const char *indent) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (size_t i = 0; i < inv->nearby_count; ++i) {
    const char *path = cl_text_shown(t, inv->nearby_environments[i]);
    cl_text_put(t,
                "%snot searched: %s, an environment that is not active "
                "(activate it, or pass --environment %s)\n",
                indent, path, path);
  }
}

void cl_text_roots(cl_text_report *t, const cudaload_ctx *ctx,
                   const char *indent) {
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i) {
    int status = cudaload_root_status(ctx, i);
    cl_text_put(t, "%s%s (%s%s%s)\n", indent,
                cl_text_shown(t, cudaload_root_path(ctx, i)),
                cudaload_root_origin(ctx, i), status ? ", " : "",
                status ? cudaload_root_status_name(status) : "");
  }
}

enum { TABLE_COLUMNS = 6 };

/* One row of the table: the cells of library i ("-" for no version), the
 * name and the family in the layout's order. */
static void table_row(cl_text_report *t, const cudaload_ctx *ctx, size_t i,
                      int family_first, char major[16],
                      const char *cells[TABLE_COLUMNS]) {
  snprintf(major, 16, "%d", cudaload_library_major(ctx, i));
  const char *version = cudaload_library_version(ctx, i);
  cells[family_first ? 1 : 0] = cudaload_library_name(ctx, i);
  cells[family_first ? 0 : 1] = cudaload_library_family(ctx, i);
  cells[2] = major;
  cells[3] = version && *version ? cl_text_shown(t, version) : "-";
  cells[4] = cudaload_library_version_source(ctx, i);
  cells[5] = cl_text_shown(t, cudaload_library_path(ctx, i));
}

static void table_line(cl_text_report *t, const char *indent,
                       const size_t width[TABLE_COLUMNS],
                       const char *const cells[TABLE_COLUMNS]) {
  cl_text_put(t, "%s", indent);
  for (int c = 0; c < TABLE_COLUMNS - 1; ++c)
    cl_text_put(t, "%-*s  ", (int)width[c], cells[c]);
  cl_text_put(t, "%s\n", cells[TABLE_COLUMNS - 1]);
}

void cl_text_library_table(cl_text_report *t, const cudaload_ctx *ctx,
                           const cl_library_table_layout *layout) {
  const char *header[TABLE_COLUMNS] = {"NAME",    "FAMILY", "MAJOR",
                                       "VERSION", "SOURCE", "PATH"};
  if (layout->family_first) {
    header[0] = "FAMILY";
    header[1] = "NAME";
  }
  size_t n = cudaload_library_count(ctx);
  if (n == 0 && !layout->header_without_rows)
    return;
  size_t width[TABLE_COLUMNS];
  for (int c = 0; c < TABLE_COLUMNS; ++c)
    width[c] = strlen(header[c]);
  char major[16];
  const char *cells[TABLE_COLUMNS];
  for (size_t i = 0; i < n; ++i) {
    table_row(t, ctx, i, layout->family_first, major, cells);
    for (int c = 0; c < TABLE_COLUMNS - 1; ++c)
      if (strlen(cells[c]) > width[c])
        width[c] = strlen(cells[c]);
  }
  table_line(t, layout->indent, width, header);
  for (size_t i = 0; i < n; ++i) {
    table_row(t, ctx, i, layout->family_first, major, cells);
    table_line(t, layout->indent, width, cells);
  }
}

/* The libraries as an aligned table, the count, and the roots given
 * explicitly that could not be searched (most default roots are absent on
 * any given machine, so those are not listed). */
static char *scan_text(const cudaload_ctx *ctx) {
  static const cl_library_table_layout scan_layout = {
      .indent = "", .family_first = 0, .header_without_rows = 1};
  cl_text_report t = CL_TEXT_REPORT_INIT;
  cl_text_library_table(&t, ctx, &scan_layout);
  size_t n = cudaload_library_count(ctx);
  size_t roots = cudaload_root_count(ctx);
  cl_text_put(&t, "\n%zu %s in %zu %s\n", n, n == 1 ? "library" : "libraries",
              roots, roots == 1 ? "root" : "roots");
  cl_text_nearby_environments(&t, ctx, "");
  for (size_t i = 0; i < roots; ++i)
    if (cudaload_root_status(ctx, i) != CUDALOAD_OK &&
        strcmp(cudaload_root_origin(ctx, i), "explicit") == 0)
      cl_text_put(&t, "root %s: %s\n",
                  cudaload_root_status_name(cudaload_root_status(ctx, i)),
                  cl_text_shown(&t, cudaload_root_path(ctx, i)));
  return cl_text_finish(&t);
}

int cudaload_scan_report(const cudaload_ctx *ctx, int format, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!ctx || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_scan_report: NULL argument");
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_scan_report: format %d is not text, JSON or YAML",
                   format);
  *out = format == CUDALOAD_FORMAT_TEXT ? scan_text(ctx)
                                        : scan_structured(ctx, format);
  if (!*out)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_scan_report: out of memory");
  cl_clear_error(); /* a library without an include folder is in the report */
  return CUDALOAD_OK;
}
