/* SPDX-License-Identifier: MIT */
/*
 * report_probe.c - the probe's result as JSON or YAML: the one writer of
 * the schema docs/probe.md documents, for cudaload_probe_report() (the
 * tool's `probe --format json`, Python) and the doctor's "probe" field.
 */
#include "report/report_probe.h"

#include "common/error.h"
#include "report/report_probe_text.h"

#include <stdio.h>

static const char *or_null(const char *s) {
  return s && *s ? s : NULL;
}

/* A yes/no fact: true, false, or null when unknown (-1). */
static void yes_no(cl_report_writer *w, const char *key, int value) {
  cl_report_key(w, key);
  if (value < 0)
    cl_report_null(w);
  else
    cl_report_bool(w, value);
}

/* How device i runs (docs/probe.md): unknown values are null. */
static void write_device_mode(cl_report_writer *w, const cudaload_probe *p,
                              size_t i) {
  int model = cudaload_probe_device_driver_model(p, i);
  cl_report_key(w, "driver_model");
  cl_report_string(w, model == CUDALOAD_DRIVER_MODEL_UNKNOWN
                          ? NULL
                          : cudaload_probe_driver_model_name(model));
  yes_no(w, "kernel_timeout", cudaload_probe_device_kernel_timeout(p, i));
  cl_report_key(w, "compute_mode");
  cl_report_string(w, cudaload_probe_compute_mode_name(
                          cudaload_probe_device_compute_mode(p, i)));
  yes_no(w, "integrated", cudaload_probe_device_integrated(p, i));
  cl_report_key(w, "free_memory_mib");
  long long free_mib = cudaload_probe_device_free_mib(p, i);
  if (free_mib < 0)
    cl_report_null(w);
  else
    cl_report_int(w, free_mib);
}

static void write_device(cl_report_writer *w, const cudaload_probe *p,
                         size_t i) {
  char capability[32];
  int cc = cudaload_probe_device_capability(p, i);
  snprintf(capability, sizeof capability, "%d.%d", cc / 10, cc % 10);
  cl_report_begin_object(w);
  cl_report_key(w, "name");
  cl_report_string(w, cudaload_probe_device_name(p, i));
  cl_report_key(w, "compute_capability");
  /* 0: the driver's answer was out of range (the probe warned). */
  cl_report_string(w, cc ? capability : NULL);
  cl_report_key(w, "memory_mib");
  cl_report_int(w, (long long)cudaload_probe_device_memory_mib(p, i));
  cl_report_key(w, "uuid");
  cl_report_string(w, or_null(cudaload_probe_device_uuid(p, i)));
  write_device_mode(w, p, i);
  cl_report_end_object(w);
}

void cl_report_probe_fields(cl_report_writer *w, const cudaload_probe *p) {
  cl_report_key(w, "verdict");
  cl_report_string(w, cudaload_probe_verdict_name(cudaload_probe_verdict(p)));
  cl_report_key(w, "reason");
  int reason = cudaload_probe_reason(p);
  cl_report_string(w, reason == CUDALOAD_REASON_NONE
                          ? NULL
                          : cudaload_probe_reason_name(reason));
  cl_report_key(w, "summary");
  cl_report_string(w, cudaload_probe_summary(p));
  cl_report_key(w, "driver");
  cl_report_begin_object(w);
  cl_report_key(w, "path");
  cl_report_string(w, or_null(cudaload_probe_driver_path(p)));
  cl_report_key(w, "version");
  if (cudaload_probe_driver_version(p))
    cl_report_int(w, cudaload_probe_driver_version(p));
  else
    cl_report_null(w);
  cl_report_end_object(w);
  cl_report_key(w, "runtime_version");
  if (cudaload_probe_runtime_version(p))
    cl_report_int(w, cudaload_probe_runtime_version(p));
  else
    cl_report_null(w);
  cl_report_key(w, "devices");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_probe_device_count(p); ++i)
    write_device(w, p, i);
  cl_report_end_array(w);
  cl_report_key(w, "stages");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, cudaload_probe_stage_name(p, i));
    cl_report_key(w, "status");
    cl_report_string(
        w, cudaload_probe_stage_status_name(cudaload_probe_stage_status(p, i)));
    cl_report_key(w, "ms");
    cl_report_double(w, cudaload_probe_stage_ms(p, i));
    cl_report_key(w, "message");
    cl_report_string(w, cudaload_probe_stage_message(p, i));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

int cudaload_probe_report(const cudaload_probe *probe, int format, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!probe || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_probe_report: NULL argument");
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_probe_report: format %d is not text, JSON or YAML",
                   format);
  if (format == CUDALOAD_FORMAT_TEXT) {
    *out = cl_probe_text(probe);
    return *out ? CUDALOAD_OK
                : cl_fail(CUDALOAD_E_NO_MEMORY,
                          "cudaload_probe_report: out of memory");
  }
  cl_report_writer *w = cl_report_writer_new((cl_report_format)format);
  if (!w)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload_probe_report: out of memory");
  cl_report_begin_object(w);
  cl_report_key(w, "schema_version");
  cl_report_int(w, 1);
  cl_report_probe_fields(w, probe);
  cl_report_end_object(w);
  size_t len = 0;
  *out = cl_report_writer_finish(w, &len);
  return *out ? CUDALOAD_OK
              : cl_fail(CUDALOAD_E_NO_MEMORY,
                        "cudaload_probe_report: out of memory");
}
