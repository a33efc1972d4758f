/* SPDX-License-Identifier: MIT */
/* error.c - status texts and the per-thread last-error buffer. */
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/text_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long enough for a path of 4096 bytes plus a reason and an OS message. */
#define CL_ERROR_CAPACITY CL_REASON_CAPACITY

static CL_THREAD_LOCAL char last_error_text[CL_ERROR_CAPACITY];
/* The innermost cl_asking open on this thread, or NULL (error.h). */
static CL_THREAD_LOCAL cl_asking *asking;

/* Where this thread's failures write their words: the open cl_asking's
 * reason, else the last error. */
static char *words(void) {
  return asking ? asking->reason : last_error_text;
}

static void format_into(char *buf, size_t len, const char *fmt, va_list ap)
    CL_PRINTF(3, 0);

/* The message is formatted whole, then escaped for a terminal (control
 * bytes and bytes that are not UTF-8 shown as \xNN; its own line breaks
 * kept): the paths, manifest values and driver strings in it are bytes
 * from outside, and callers print this text as it is (text_escape.h). */
static void format_into(char *buf, size_t len, const char *fmt, va_list ap) {
  int n = vsnprintf(buf, len, fmt, ap);
  if (n < 0)
    buf[0] = '\0';
}

static void set_last_error(const char *raw) {
  cl_text_escape_into(words(), CL_ERROR_CAPACITY, raw, 1);
}

int cl_fail(int status, const char *fmt, ...) {
  char raw[CL_ERROR_CAPACITY];
  va_list ap;
  va_start(ap, fmt);
  format_into(raw, sizeof raw, fmt, ap);
  va_end(ap);
  set_last_error(raw);
  return status;
}

int cl_fail_os(int status, unsigned long os_code, const char *fmt, ...) {
  char raw[CL_ERROR_CAPACITY];
  va_list ap;
  va_start(ap, fmt);
  format_into(raw, sizeof raw, fmt, ap);
  va_end(ap);
  size_t used = strlen(raw);
  if (used + 3 < sizeof raw) {
    memcpy(raw + used, ": ", 3);
    cl_os_error_text(os_code, raw + used + 2, sizeof raw - used - 2);
  }
  set_last_error(raw);
  return status;
}

int cl_fail_os_no(int status, const cl_os_no *no, const char *path) {
  const char *what = no ? no->what : NULL;
  const char *sep = path && what ? ": " : "";
  if (no && no->from_os)
    return cl_fail_os(status, no->os_code, "%s%s%s", path ? path : "", sep,
                      what ? what : "");
  return cl_fail(status, "%s%s%s", path ? path : "", sep, what ? what : "");
}

void cl_clear_error(void) {
  words()[0] = '\0';
}

void cl_asking_begin(cl_asking *a) {
  a->reason[0] = '\0';
  a->outer = asking;
  asking = a;
}

void cl_asking_end(cl_asking *a) {
  /* Closed in the order opened: an answer form's own scope. */
  asking = a->outer;
}

const char *cudaload_last_error(void) {
  /* Inside an answer form's cl_asking, the words its failures wrote. */
  return words();
}

const char *cudaload_strerror(int status) {
  switch (status) {
  case CUDALOAD_OK:
    return "success";
  case CUDALOAD_E_INVALID_ARGUMENT:
    return "invalid argument";
  case CUDALOAD_E_NO_MEMORY:
    return "out of memory";
  case CUDALOAD_E_IO:
    return "input/output error";
  case CUDALOAD_E_MALFORMED:
    return "malformed or truncated file";
  case CUDALOAD_E_NOT_FOUND:
    return "not found";
  case CUDALOAD_E_UNSUPPORTED:
    return "unsupported format or platform";
  case CUDALOAD_E_NOT_A_FILE:
    return "not a regular file";
  case CUDALOAD_E_BAD_SPEC:
    return "malformed requirement spec";
  case CUDALOAD_E_UNSATISFIED:
    return "a requirement has no usable library";
  case CUDALOAD_E_LOAD_FAILED:
    return "the loader refused a library";
  case CUDALOAD_E_INSECURE:
    return "refused: a planting hazard (a folder others can write to, or "
           "one a search path cannot hold)";
  case CUDALOAD_E_CONFLICT:
    return "the process already has a library that conflicts with the plan "
           "(another major in the global symbol scope, or an older copy)";
  default:
    return "unknown status";
  }
}

int cl_fail_naming(int status, const char *path) {
  const char *text = cudaload_last_error();
  char reason[1024];
  if (text[0] != '\0' && strstr(text, path) != NULL) {
    return status;
  }
  /* cl_fail rewrites the buffer the text lives in: copy it first. */
  snprintf(reason, sizeof reason, "%s",
           text[0] != '\0' ? text : cudaload_strerror(status));
  return cl_fail(status, "%s: %s", path, reason);
}
