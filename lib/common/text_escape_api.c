/* SPDX-License-Identifier: MIT */
/*
 * text_escape_api.c - cudaload_escape_text(): the escaping every text
 * report and the tool apply to values from outside (common/text_escape.h),
 * for programs that show such values themselves. The Python package's text
 * (its messages, str() of its records) is escaped here, so that the rule
 * is written once. Apart from text_escape.c because it sets the last error
 * (common/error.h), and error.c escapes with text_escape.c: one file would
 * make an include circle.
 */
#include "common/error.h"
#include "common/text_escape.h"
#include "cudaload.h"

#include <stdlib.h>

int cudaload_escape_text(const char *text, size_t length, unsigned flags,
                         char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!text || !out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_escape_text: NULL argument");
  if (flags & ~(unsigned)CUDALOAD_ESCAPE_KEEP_NEWLINES)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_escape_text: unknown flags 0x%x",
                   flags & ~(unsigned)CUDALOAD_ESCAPE_KEEP_NEWLINES);
  int keep_newlines = (flags & CUDALOAD_ESCAPE_KEEP_NEWLINES) != 0;
  size_t escaped =
      cl_text_escape_bytes_into(NULL, 0, text, length, keep_newlines);
  char *copy = escaped + 1 > escaped ? malloc(escaped + 1) : NULL;
  if (!copy)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload_escape_text: out of memory for %zu bytes",
                   escaped + 1);
  cl_text_escape_bytes_into(copy, escaped + 1, text, length, keep_newlines);
  *out = copy;
  return CUDALOAD_OK;
}
