/* SPDX-License-Identifier: MIT */
/* error.h - the per-thread last-error text behind cudaload_last_error(). */
#ifndef CUDALOAD_ERROR_H
#define CUDALOAD_ERROR_H

#include <stdarg.h>

#if defined(__MINGW32__)
/* With _GNU_SOURCE, mingw uses its own C99 printf (%zu works), so check the
 * formats against GNU rules rather than MSVCRT's. */
#define CL_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define CL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CL_PRINTF(f, a)
#endif

/* Set the calling thread's last error and return status, so callers can
 * write `return cl_fail(CUDALOAD_E_IO, "%s: ...", path);`. */
int cl_fail(int status, const char *fmt, ...) CL_PRINTF(2, 3);
/* As cl_fail, appending ": " and the OS text for os_code. */
int cl_fail_os(int status, unsigned long os_code, const char *fmt, ...)
    CL_PRINTF(3, 4);
void cl_clear_error(void);
/*
 * Answer forms. A helper whose "no" is an answer for some callers (an
 * optional file, a folder that may be missing, a path that may not
 * resolve) and a failure for others comes in two forms:
 *  - `name_quiet(...)`, the answer form: it returns the status (and, for
 *    the OS seam, why in a cl_os_no, os/platform.h) and writes no last
 *    error;
 *  - `name(...)`, the failing form: the answer form, then cl_fail() or
 *    cl_fail_os_no() with its words.
 * A caller that takes "no" for an answer calls the `_quiet` form. A helper
 * whose only use is as an answer has one form whose header says "sets no
 * error". See docs/architecture.md, "Errors".
 */
/*
 * Asking below an answer form. Some code an answer form stands on still
 * fails with words (the binary parsers through each cl_reader, a loader
 * model's reads, a scan of one folder through the public calls): the
 * answer form asks it inside a cl_asking. While one is open, the calling
 * thread's failures write their words into it (cl_fail, cl_fail_os,
 * cl_clear_error and cudaload_last_error all use it), never into the last
 * error: after cl_asking_end, a->reason is why the answer is no, as data
 * (a file cache part keeps it). Opened only where an answer form is
 * defined, never around a call at its call site: tests/check_architecture.py
 * lists those files. Scopes nest; each is closed before its outer one.
 */
#define CL_REASON_CAPACITY 8192
typedef struct cl_asking {
  char reason[CL_REASON_CAPACITY];
  struct cl_asking *outer;
} cl_asking;
void cl_asking_begin(cl_asking *a);
void cl_asking_end(cl_asking *a);
/* Makes sure the last error names path: the text already set (or, when none
 * is, the status's own) is kept, prefixed with "path: " when it does not
 * already contain path. Returns status. */
int cl_fail_naming(int status, const char *path);

#endif
