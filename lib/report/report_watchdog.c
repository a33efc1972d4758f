/* SPDX-License-Identifier: MIT */
/*
 * report_watchdog.c - the display watchdog settings as the doctor reports
 * them: each value in effect and whether it came from the registry or is
 * Windows' default, and on Linux that there is nothing to read.
 */
#include "report/report_watchdog.h"

#include <stdio.h>

#define NOTHING_TO_READ                                                        \
  "nothing to read: only Windows has TDR; on Linux a display attached to "     \
  "a GPU limits its kernels, which the probe shows as the device's "           \
  "display watchdog"

/* TdrLevel as the reports write it: "off", "bugcheck", "recover_vga",
 * "recover"; "unknown" for any other value. */
static const char *tdr_level_name(long level) {
  static const char *const names[] = {"off", "bugcheck", "recover_vga",
                                      "recover"};
  return level >= 0 && level < 4 ? names[level] : "unknown";
}

static const char *source(const cl_tdr_setting *s) {
  return s->set ? "registry" : "default";
}

static void setting(cl_report_writer *w, const char *key,
                    const char *source_key, const cl_tdr_setting *s,
                    int applies) {
  cl_report_key(w, key);
  if (applies)
    cl_report_int(w, s->value);
  else
    cl_report_null(w);
  cl_report_key(w, source_key);
  cl_report_string(w, applies ? source(s) : NULL);
}

void cl_report_watchdog(cl_report_writer *w, const cl_display_watchdog *wd) {
  int on = wd->applies;
  cl_report_begin_object(w);
  cl_report_key(w, "applies");
  cl_report_bool(w, on);
  cl_report_key(w, "key");
  cl_report_string(w, on ? "HKLM\\" CL_TDR_KEY : NULL);
  setting(w, "tdr_delay_s", "tdr_delay_source", &wd->delay_s, on);
  setting(w, "tdr_ddi_delay_s", "tdr_ddi_delay_source", &wd->ddi_delay_s, on);
  cl_report_key(w, "tdr_level");
  cl_report_string(w, on ? tdr_level_name(wd->level.value) : NULL);
  cl_report_key(w, "tdr_level_source");
  cl_report_string(w, on ? source(&wd->level) : NULL);
  cl_report_key(w, "error");
  cl_report_string(w, on && wd->error[0] ? wd->error : NULL);
  cl_report_key(w, "note");
  cl_report_string(w, on ? NULL : NOTHING_TO_READ);
  cl_report_end_object(w);
}

static void text_setting(cl_text_report *r, int width, const char *name,
                         const cl_tdr_setting *s, const char *unit) {
  cl_text_put(r, "  %-*s%ld%s (%s)\n", width, name, s->value, unit,
              s->set ? "set in the registry" : "Windows' default: not set");
}

void cl_text_watchdog(cl_text_report *r, int width,
                      const cl_display_watchdog *wd) {
  if (!wd->applies) {
    cl_text_put(r, "  %s\n", NOTHING_TO_READ);
    return;
  }
  text_setting(r, width, "TdrDelay", &wd->delay_s, " s");
  text_setting(r, width, "TdrDdiDelay", &wd->ddi_delay_s, " s");
  cl_text_put(r, "  %-*s%s (%ld; %s)\n", width, "TdrLevel",
              tdr_level_name(wd->level.value), wd->level.value,
              wd->level.set ? "set in the registry"
                            : "Windows' default: not set");
  if (wd->error[0])
    cl_text_put(r, "  %-*s%s\n", width, "error", wd->error);
}
