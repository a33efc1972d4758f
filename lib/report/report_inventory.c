/* report_inventory.c - the inventory as report members, for scan and the
 * doctor alike (one schema, one writer). */
#include "report/report_inventory.h"

#include <stddef.h>

const char *cl_root_status_name(int status) {
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
    cl_report_string(w, cl_root_status_name(cudaload_root_status(ctx, i)));
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
    cl_report_string(w, cudaload_library_include_dir(ctx, i));
    cl_report_key(w, "machine");
    cl_report_string(w, cudaload_library_machine(ctx, i));
    cl_report_key(w, "root");
    cl_report_int(w, (long long)cudaload_library_root(ctx, i));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}
