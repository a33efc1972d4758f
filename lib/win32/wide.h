/* SPDX-License-Identifier: MIT */
/*
 * wide.h - UTF-8 <-> UTF-16 for the W APIs, shared by the files in lib/win32/
 * and by the tool (implemented in wide.c, and nowhere else). Every string
 * crosses lib/win32/ as UTF-8 and is converted strictly: bytes that are not
 * UTF-8 name no file rather than a different one.
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

/* 1 when the W APIs take `path` as it is: shorter than the plain Win32
 * limit (MAX_PATH less room for a file name), or a device or verbatim
 * (\\.\, \\?\) path; 0 when it needs cl_os_long_path_form. */
int cl_os_wide_path_is_short(const wchar_t *path);

/* The \\?\ form of `full` (a GetFullPathNameW result, malloc'ed) when it
 * is too long for the plain Win32 limit (MAX_PATH less room for a file
 * name), which lifts the limit: a new string, and full is freed. Short,
 * device and verbatim paths come back as full itself. NULL without memory
 * (full freed). */
wchar_t *cl_os_long_path_form(wchar_t *full);

/* Drop a \\?\ prefix in place: "\\?\C:\x" is "C:\x" and "\\?\UNC\server\x"
 * is "\\server\x". Other paths are left alone. */
void cl_os_strip_verbatim_prefix(wchar_t *path);

/* A call that fills a buffer of `size` units and returns the length it
 * needs, or wrote (GetSystemDirectoryW, GetCurrentDirectoryW, ... wrapped to
 * this shape). */
typedef unsigned (*cl_wide_getter)(wchar_t *buffer, unsigned size);
/* What `get` gives, as malloc'ed UTF-8: asked once for the size, once for
 * the text; NULL when it fails, the text changed size in between, or
 * memory ran out. */
char *cl_os_wide_text_of(cl_wide_getter get);

/* Append arg to the command line being built in line (at: its length so
 * far), after a space unless it is the first, quoted so that
 * CommandLineToArgvW and the C runtime read it back as it is: backslashes
 * are literal unless they precede a quote. line has room for
 * wcslen(arg) * 2 + 3 more units. For CreateProcessW, which takes one
 * command line, not words. */
void cl_os_wide_append_argument(wchar_t *line, size_t *at, const wchar_t *arg);

#endif
