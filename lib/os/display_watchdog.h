/* SPDX-License-Identifier: MIT */
/*
 * display_watchdog.h - Windows' display watchdog, Timeout Detection and
 * Recovery (TDR), as the registry sets it: when one GPU job runs longer
 * than TdrDelay seconds on a WDDM device, Windows resets the driver, and
 * every CUDA context on it is lost (users see CUBLAS_STATUS_NOT_INITIALIZED,
 * CUDA_ERROR_LAUNCH_TIMEOUT or a lost device). Read-only, for the doctor
 * (display_watchdog_win32.c); Linux has no such setting
 * (display_watchdog_posix.c): a display there limits kernels too, which the
 * probe sees as a device's kernel timeout.
 */
#ifndef CUDALOAD_DISPLAY_WATCHDOG_H
#define CUDALOAD_DISPLAY_WATCHDOG_H

/* Where the settings live, under HKEY_LOCAL_MACHINE. */
#define CL_TDR_KEY "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"

/* What Windows uses when a value is absent. */
#define CL_TDR_DEFAULT_DELAY_S 2
#define CL_TDR_DEFAULT_DDI_DELAY_S 5
#define CL_TDR_LEVEL_OFF 0 /* detection disabled */
#define CL_TDR_LEVEL_RECOVER 3
#define CL_TDR_DEFAULT_LEVEL CL_TDR_LEVEL_RECOVER

typedef struct cl_tdr_setting {
  long value; /* in effect: the registry's, else the default */
  int set;    /* 1: read from the registry; 0: absent, the default applies */
} cl_tdr_setting;

typedef struct cl_display_watchdog {
  int applies;                /* 0: this system has no TDR to read (Linux) */
  cl_tdr_setting delay_s;     /* TdrDelay */
  cl_tdr_setting ddi_delay_s; /* TdrDdiDelay */
  cl_tdr_setting level;       /* TdrLevel */
  char error[192]; /* "" or why a value could not be read (then default) */
} cl_display_watchdog;

/* Read the settings (never fails: what cannot be read is the default, with
 * error saying so). */
void cl_os_display_watchdog_read(cl_display_watchdog *out);

#endif
