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
/* The calling thread's last error, kept around a call that writes one the
 * caller must not keep: the few pairs left wrap such calls into code not
 * yet given answer forms (new code uses a `_quiet` form instead).
 * cl_restore_error() puts it back. malloc'ed; NULL when there was none (or
 * no memory to keep it: the error is then cleared on restore). */
char *cl_save_error(void);
/* Put back what cl_save_error() kept and free it; NULL clears. */
void cl_restore_error(char *saved);
/* Makes sure the last error names path: the text already set (or, when none
 * is, the status's own) is kept, prefixed with "path: " when it does not
 * already contain path. Returns status. */
int cl_fail_naming(int status, const char *path);

#endif
