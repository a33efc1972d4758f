/* SPDX-License-Identifier: MIT */
/*
 * wide.h - UTF-8 <-> UTF-16 for the W APIs, shared by the files in lib/win32/
 * (implemented in platform_win32.c). Every string crosses lib/win32/ as UTF-8
 * and is converted strictly: bytes that are not UTF-8 name no file rather than
 * a different one.
 */
#ifndef CUDALOAD_WIN32_WIDE_H
#define CUDALOAD_WIN32_WIDE_H

#include <wchar.h>

/* A malloc'ed UTF-16 copy of utf8, or NULL when it is not valid UTF-8 (or
 * memory ran out: *status_out tells which). */
wchar_t *cl_os_utf8_to_wide(const char *utf8, int *status_out);

/* A malloc'ed UTF-8 copy of the first `units` UTF-16 units of wide (-1: up
 * to the NUL), or NULL. Unpaired surrogates, which NTFS allows in names,
 * have no UTF-8 form and give NULL. */
char *cl_os_wide_to_utf8(const wchar_t *wide, int units);

/* The \\?\ form of `full` (a GetFullPathNameW result, malloc'ed) when it
 * is too long for the plain Win32 limit (MAX_PATH less room for a file
 * name), which lifts the limit: a new string, and full is freed. Short,
 * device and verbatim paths come back as full itself. NULL without memory
 * (full freed). */
wchar_t *cl_os_long_path_form(wchar_t *full);

/* Drop a \\?\ prefix in place: "\\?\C:\x" is "C:\x" and "\\?\UNC\server\x"
 * is "\\server\x". Other paths are left alone. */
void cl_os_strip_verbatim_prefix(wchar_t *path);

#endif
