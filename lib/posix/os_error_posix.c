/* SPDX-License-Identifier: MIT */
/*
 * os_error_posix.c - the text of an errno value, for the last error
 * (common/error.c). Below everything else: it calls nothing of the
 * library, so error.c can use it and every seam file can fail.
 */
#include "os/platform.h"

#include <errno.h>
#include <string.h>

void cl_os_error_text(unsigned long code, char *buf, size_t len) {
  if (len == 0)
    return;
  /* strerror_r comes in two flavours; strerror is fine under our own
   * per-thread buffer because glibc's strerror is thread-safe for known
   * codes. */
  const char *text = strerror((int)code);
  size_t n = strlen(text);
  if (n >= len)
    n = len - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
}
