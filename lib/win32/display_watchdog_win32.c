/* SPDX-License-Identifier: MIT */
/*
 * display_watchdog_win32.c - TdrDelay, TdrDdiDelay and TdrLevel from
 * HKLM\SYSTEM\CurrentControlSet\Control\GraphicsDrivers (display_watchdog.h),
 * read with RegGetValueW, which needs no handle to close and checks the
 * type: a value of another type is reported, not misread. Nothing is
 * written: changing these is a system-wide decision the doctor only
 * describes.
 */
#include "os/display_watchdog.h"

#include "common/reason_words.h"

#include <windows.h>

#include <stdio.h>
#include <string.h>

static void read_value(const wchar_t *name, const char *name_utf8,
                       long default_value, cl_tdr_setting *out,
                       cl_display_watchdog *w) {
  DWORD value = 0, size = sizeof value;
  LSTATUS status =
      RegGetValueW(HKEY_LOCAL_MACHINE,
                   L"SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers", name,
                   RRF_RT_REG_DWORD, NULL, &value, &size);
  out->value = default_value;
  out->set = 0;
  if (status == ERROR_SUCCESS && value <= 0x7fffffffu) {
    out->value = (long)value;
    out->set = 1;
  } else if (status != ERROR_FILE_NOT_FOUND && !w->error[0]) {
    /* Absent is the usual case; anything else (a REG_SZ, no access) is
     * worth saying, once. */
    snprintf(w->error, sizeof w->error, CL_WORDS_TDR_VALUE_COULD_NOT_BE_READ,
             name_utf8, (unsigned long)status,
             status == ERROR_UNSUPPORTED_TYPE ? CL_WORDS_NOT_A_REG_DWORD : "");
  }
}

void cl_os_display_watchdog_read(cl_display_watchdog *out) {
  memset(out, 0, sizeof *out);
  out->applies = 1;
  read_value(L"TdrDelay", "TdrDelay", CL_TDR_DEFAULT_DELAY_S, &out->delay_s,
             out);
  read_value(L"TdrDdiDelay", "TdrDdiDelay", CL_TDR_DEFAULT_DDI_DELAY_S,
             &out->ddi_delay_s, out);
  read_value(L"TdrLevel", "TdrLevel", CL_TDR_DEFAULT_LEVEL, &out->level, out);
}
