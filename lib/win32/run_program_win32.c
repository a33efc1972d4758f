/* SPDX-License-Identifier: MIT */
/*
 * run_program_win32.c - a program run as its own words and waited for
 * (os/platform.h, cl_os_run_program) on Windows: CreateProcessW with the
 * program named as the application (no search of PATH, no cmd.exe), its
 * words quoted into the one command line Windows passes, as the C runtime
 * reads them back (win32/wide.c). A batch file would run through cmd.exe,
 * whose parsing no quoting makes safe: only a .exe is started.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "win32/wide.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int ends_with_exe(const char *name) {
  size_t n = strlen(name);
  return n > 4 && cl_ascii_equal_nocase(name + n - 4, ".exe");
}

int cl_os_run_program(char *const *argv, int *exit_code) {
  *exit_code = -1;
  if (!argv || !argv[0] || !cl_os_path_is_absolute(argv[0]) ||
      !ends_with_exe(argv[0]))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "a program to run must be a .exe named by its absolute "
                   "path");
  size_t count = 0;
  while (argv[count])
    ++count;
  wchar_t **wide = calloc(count + 1, sizeof *wide);
  size_t capacity = 1;
  int status = wide ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; status == CUDALOAD_OK && i < count; ++i) {
    wide[i] = cl_os_utf8_to_wide(argv[i], &status);
    if (wide[i])
      capacity += wcslen(wide[i]) * 2 + 3;
  }
  wchar_t *line =
      status == CUDALOAD_OK ? malloc(capacity * sizeof *line) : NULL;
  if (status == CUDALOAD_OK && !line)
    status = CUDALOAD_E_NO_MEMORY;
  if (line) {
    size_t at = 0;
    for (size_t i = 0; i < count; ++i)
      cl_os_wide_append_argument(line, &at, wide[i]);
    line[at] = L'\0';
  }
  if (status == CUDALOAD_OK) {
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    /* The standard handles are this process's: what it prints, the user
     * sees where this process's output goes. */
    if (!CreateProcessW(wide[0], line, NULL, NULL, TRUE, 0, NULL, NULL, &si,
                        &pi)) {
      DWORD err = GetLastError();
      int missing = err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND;
      status = cl_fail_os(missing ? CUDALOAD_E_NOT_FOUND : CUDALOAD_E_IO, err,
                          "%s could not be started", argv[0]);
    } else {
      DWORD code = 0;
      WaitForSingleObject(pi.hProcess, INFINITE);
      if (GetExitCodeProcess(pi.hProcess, &code))
        *exit_code = (int)code;
      CloseHandle(pi.hThread);
      CloseHandle(pi.hProcess);
    }
  } else if (status == CUDALOAD_E_NO_MEMORY) {
    cl_fail(status, "%s: out of memory", argv[0]);
  } else {
    cl_fail(status, "%s: an argument is not UTF-8", argv[0]);
  }
  for (size_t i = 0; wide && i < count; ++i)
    free(wide[i]);
  free(wide);
  free(line);
  return status;
}
