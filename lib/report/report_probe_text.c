/* SPDX-License-Identifier: MIT */
/* report_probe_text.c - the probe's result as text for a person
 * (report_probe_text.h). */
#include "report/report_probe_text.h"

#include "report/report_text.h"

#include <stdio.h>
#include <string.h>

static const char *yes_no(int value, const char *yes, const char *no) {
  return value == 1 ? yes : value == 0 ? no : "unknown";
}

/* How device i runs, on a line of its own under the device. */
static void device_mode(cl_text_report *t, const cudaload_probe *p, size_t i) {
  int model = cudaload_probe_device_driver_model(p, i);
  const char *mode = cudaload_probe_compute_mode_name(
      cudaload_probe_device_compute_mode(p, i));
  cl_text_put(
      t, "  driver model %s, display watchdog %s, compute mode %s, %s",
      model == CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE
          ? "not applicable (Linux)"
          : cudaload_probe_driver_model_name(model),
      yes_no(cudaload_probe_device_kernel_timeout(p, i), "on", "off"),
      mode ? mode : "unknown",
      yes_no(cudaload_probe_device_integrated(p, i), "integrated", "discrete"));
  long long free_mib = cudaload_probe_device_free_mib(p, i);
  if (free_mib >= 0)
    cl_text_put(t, ", %lld MiB free", free_mib);
  cl_text_put(t, "\n");
}

/* The stages as an aligned table under a header line. */
static void stages(cl_text_report *t, const cudaload_probe *p) {
  size_t count = cudaload_probe_stage_count(p);
  size_t name_width = strlen("STAGE"), status_width = strlen("STATUS");
  size_t ms_width = strlen("MS");
  char ms[32];
  for (size_t i = 0; i < count; ++i) {
    const char *status =
        cudaload_probe_stage_status_name(cudaload_probe_stage_status(p, i));
    snprintf(ms, sizeof ms, "%.2f", cudaload_probe_stage_ms(p, i));
    if (strlen(cudaload_probe_stage_name(p, i)) > name_width)
      name_width = strlen(cudaload_probe_stage_name(p, i));
    if (strlen(status) > status_width)
      status_width = strlen(status);
    if (strlen(ms) > ms_width)
      ms_width = strlen(ms);
  }
  cl_text_put(t, "%-*s  %-*s  %*s  %s\n", (int)name_width, "STAGE",
              (int)status_width, "STATUS", (int)ms_width, "MS", "MESSAGE");
  for (size_t i = 0; i < count; ++i) {
    snprintf(ms, sizeof ms, "%.2f", cudaload_probe_stage_ms(p, i));
    cl_text_put(
        t, "%-*s  %-*s  %*s  %s\n", (int)name_width,
        cudaload_probe_stage_name(p, i), (int)status_width,
        cudaload_probe_stage_status_name(cudaload_probe_stage_status(p, i)),
        (int)ms_width, ms,
        cl_text_shown(t, cudaload_probe_stage_message(p, i)));
  }
}

char *cl_probe_text(const cudaload_probe *p) {
  cl_text_report t = CL_TEXT_REPORT_INIT;
  cl_text_put(&t, "%s: %s\n\n",
              cudaload_probe_verdict_name(cudaload_probe_verdict(p)),
              cl_text_shown(&t, cudaload_probe_summary(p)));
  stages(&t, p);
  const char *driver = cudaload_probe_driver_path(p);
  int version = cudaload_probe_driver_version(p);
  if (driver && driver[0]) {
    cl_text_put(&t, "\ndriver: %s", cl_text_shown(&t, driver));
    if (version)
      cl_text_put(&t, " (CUDA %d.%d, cuDriverGetVersion %d)", version / 1000,
                  (version % 1000) / 10, version);
    cl_text_put(&t, "\n");
  }
  for (size_t i = 0; i < cudaload_probe_device_count(p); ++i) {
    /* 0 is "unknown": the driver's answer was out of range (the probe
     * warned about it in its stage). */
    int cc = cudaload_probe_device_capability(p, i);
    unsigned long long mib = cudaload_probe_device_memory_mib(p, i);
    char capability[32] = "unknown", memory[48] = "unknown memory";
    if (cc)
      snprintf(capability, sizeof capability, "%d.%d", cc / 10, cc % 10);
    if (mib)
      snprintf(memory, sizeof memory, "%llu MiB", mib);
    cl_text_put(&t, "device %zu: %s, compute capability %s, %s, %s\n", i,
                cl_text_shown(&t, cudaload_probe_device_name(p, i)), capability,
                memory, cl_text_shown(&t, cudaload_probe_device_uuid(p, i)));
    device_mode(&t, p, i);
  }
  return cl_text_finish(&t);
}
