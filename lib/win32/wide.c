/* SPDX-License-Identifier: MIT */
/*
 * wide.c - UTF-8 <-> UTF-16 and the path forms of the W APIs (wide.h), the
 * one file every other file of lib/win32/ and the tool convert through.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "win32/wide.h"

#include "cudaload.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Below this many UTF-16 units a path works with every API; above it a path
 * must use the \\?\ form. 248 rather than MAX_PATH (260) because directory
 * APIs need room for an 8.3 file name. */
#define CL_SHORT_PATH_LIMIT 248

wchar_t *cl_os_utf8_to_wide(const char *utf8, int *status_out) {
  int units =
      MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
  if (units <= 0) {
    *status_out = CUDALOAD_E_INVALID_ARGUMENT;
    return NULL;
  }
  wchar_t *wide = malloc((size_t)units * sizeof *wide);
  if (!wide) {
    *status_out = CUDALOAD_E_NO_MEMORY;
    return NULL;
  }
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, wide, units);
  *status_out = CUDALOAD_OK;
  return wide;
}

char *cl_os_wide_to_utf8(const wchar_t *wide, int units) {
  int bytes = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide, units,
                                  NULL, 0, NULL, NULL);
  if (bytes <= 0 && units != 0)
    return NULL;
  /* With an explicit length the result has no NUL: leave room for one. */
  char *utf8 = malloc((size_t)bytes + 1);
  if (!utf8)
    return NULL;
  if (bytes > 0)
    WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide, units, utf8, bytes,
                        NULL, NULL);
  utf8[bytes] = '\0';
  return utf8;
}

static int starts_with_verbatim_prefix(const wchar_t *path) {
  return wcsncmp(path, L"\\\\?\\", 4) == 0;
}

/* \\?\ and \\.\ paths are taken as they are by every API. */
static int is_device_or_verbatim(const wchar_t *path) {
  return starts_with_verbatim_prefix(path) || wcsncmp(path, L"\\\\.\\", 4) == 0;
}

int cl_os_wide_path_is_short(const wchar_t *path) {
  return wcslen(path) < CL_SHORT_PATH_LIMIT || is_device_or_verbatim(path);
}

wchar_t *cl_os_long_path_form(wchar_t *full) {
  if (cl_os_wide_path_is_short(full))
    return full;
  size_t len = wcslen(full);
  /* "\\server\share\x" becomes "\\?\UNC\server\share\x" (the
   * server's two backslashes give way to the prefix) and "C:\x" becomes
   * "\\?\C:\x". */
  int unc = full[0] == L'\\' && full[1] == L'\\';
  wchar_t *verbatim = malloc((len + 8) * sizeof *verbatim);
  if (verbatim) {
    wcscpy(verbatim, unc ? L"\\\\?\\UNC\\" : L"\\\\?\\");
    wcscat(verbatim, unc ? full + 2 : full);
  }
  free(full);
  return verbatim;
}

/* GetFinalPathNameByHandleW (platform_win32.c) and GetModuleFileNameW
 * (loader_win32.c) give \\?\ names; see wide.h. */
void cl_os_strip_verbatim_prefix(wchar_t *path) {
  if (!starts_with_verbatim_prefix(path))
    return;
  if (wcsncmp(path + 4, L"UNC\\", 4) == 0) {
    /* keep one '\' of "\\?\" and the one after UNC: "\\server..." */
    memmove(path + 1, path + 7, (wcslen(path + 7) + 1) * sizeof *path);
    path[0] = L'\\';
  } else if (path[4] != L'\0' && path[5] == L':') {
    memmove(path, path + 4, (wcslen(path + 4) + 1) * sizeof *path);
  }
}

char *cl_os_wide_text_of(cl_wide_getter get) {
  unsigned need = get(NULL, 0);
  if (need == 0)
    return NULL;
  wchar_t *buffer = malloc((size_t)need * sizeof *buffer);
  if (!buffer)
    return NULL;
  unsigned got = get(buffer, need);
  char *utf8 = got > 0 && got < need ? cl_os_wide_to_utf8(buffer, -1) : NULL;
  free(buffer);
  return utf8;
}

void cl_os_wide_append_argument(wchar_t *line, size_t *at, const wchar_t *arg) {
  if (*at)
    line[(*at)++] = L' ';
  if (arg[0] && !wcspbrk(arg, L" \t\"")) {
    for (; *arg; ++arg)
      line[(*at)++] = *arg;
    return;
  }
  line[(*at)++] = L'"';
  for (;;) {
    size_t backslashes = 0;
    while (*arg == L'\\') {
      ++backslashes;
      ++arg;
    }
    if (!*arg) {
      for (size_t i = 0; i < backslashes * 2; ++i)
        line[(*at)++] = L'\\';
      break;
    }
    if (*arg == L'"') {
      for (size_t i = 0; i < backslashes * 2 + 1; ++i)
        line[(*at)++] = L'\\';
    } else {
      for (size_t i = 0; i < backslashes; ++i)
        line[(*at)++] = L'\\';
    }
    line[(*at)++] = *arg++;
  }
  line[(*at)++] = L'"';
}
