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
/* Makes sure the last error names path: the text already set (or, when none
 * is, the status's own) is kept, prefixed with "path: " when it does not
 * already contain path. Returns status. */
int cl_fail_naming(int status, const char *path);

#endif
