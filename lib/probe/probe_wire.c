/* SPDX-License-Identifier: MIT */
/*
 * probe_wire.c - the line format a probing child process writes to its
 * parent (a forked child on POSIX, "cudaload probe --child" on Windows):
 *
 *   cudaload-probe 1
 *   stage   INDEX STATUS MICROSECONDS MESSAGE   (one per stage, as it ends)
 *   driver  PATH VERSION
 *   runtime VERSION
 *   device  NAME CAPABILITY MEMORY_MIB UUID     (one per device)
 *   facts   DRIVER_MODEL KERNEL_TIMEOUT COMPUTE_MODE INTEGRATED FREE_MIB
 *                                               (after each device line)
 *   verdict VERDICT REASON SUMMARY
 *   end
 *
 * Fields are separated by one tab; in text fields '\\', tab, CR and newline
 * are escaped as \\, \t, \r and \n, so a record is always one line. Numbers
 * are integers (no locale can change how they are written). Stages are
 * written as they finish, so a parent that must kill a hung child still
 * knows which stages passed and which one hung. A reader skips records it
 * does not know, so a newer child may say more.
 */
#include "probe/probe_wire.h"

#include "common/buf.h"
#include "common/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIRE_MAGIC "cudaload-probe 1"

/* --- writing ------------------------------------------------------------- */

/* A record is written into a cl_buf; a lost allocation makes the whole
 * record NULL (finish), never a truncated line. */
static void put_bytes(cl_buf *b, const char *s, size_t n) {
  cl_buf_append(b, s, n);
}

static void put(cl_buf *b, const char *s) {
  put_bytes(b, s, strlen(s));
}

static void put_escaped(cl_buf *b, const char *s) {
  put(b, "\t");
  for (; s && *s; ++s) {
    switch (*s) {
    case '\\':
      put(b, "\\\\");
      break;
    case '\t':
      put(b, "\\t");
      break;
    case '\n':
      put(b, "\\n");
      break;
    case '\r':
      put(b, "\\r");
      break;
    default:
      put_bytes(b, s, 1);
    }
  }
}

static void put_number(cl_buf *b, long long value) {
  char text[32];
  snprintf(text, sizeof text, "\t%lld", value);
  put(b, text);
}

static char *finish(cl_buf *b) {
  return cl_buf_take(b);
}

char *cl_probe_wire_header(void) {
  return cl_strdup(WIRE_MAGIC "\n");
}

char *cl_probe_wire_stage(const cudaload_probe *p, size_t stage) {
  if (stage >= CL_PROBE_STAGE_COUNT)
    return NULL;
  const cl_probe_stage *s = &p->stages[stage];
  cl_buf b = CL_BUF_INIT;
  put(&b, "stage");
  put_number(&b, (long long)stage);
  put_number(&b, s->status);
  put_number(&b, (long long)(s->ms * 1000.0 + 0.5));
  put_escaped(&b, s->message);
  put(&b, "\n");
  /* The driver as soon as it is known, so that a child killed later still
   * told which driver it had. */
  if (stage == CL_STAGE_DRIVER || stage == CL_STAGE_INIT) {
    put(&b, "driver");
    put_escaped(&b, p->driver_path);
    put_number(&b, p->driver_version);
    put(&b, "\n");
  }
  return finish(&b);
}

char *cl_probe_wire_tail(const cudaload_probe *p) {
  cl_buf b = CL_BUF_INIT;
  put(&b, "driver");
  put_escaped(&b, p->driver_path);
  put_number(&b, p->driver_version);
  put(&b, "\nruntime");
  put_number(&b, p->runtime_version);
  put(&b, "\n");
  for (size_t i = 0; i < p->device_count; ++i) {
    const cl_probe_device *d = &p->devices[i];
    put(&b, "device");
    put_escaped(&b, d->name);
    put_number(&b, d->capability);
    put_number(&b, (long long)d->memory_mib);
    put_escaped(&b, d->uuid);
    put(&b, "\nfacts");
    put_number(&b, d->driver_model);
    put_number(&b, d->kernel_timeout);
    put_number(&b, d->compute_mode);
    put_number(&b, d->integrated);
    put_number(&b, d->free_mib);
    put(&b, "\n");
  }
  put(&b, "verdict");
  put_number(&b, p->verdict);
  put_number(&b, p->reason);
  put_escaped(&b, p->summary);
  put(&b, "\nend\n");
  return finish(&b);
}

/* --- reading ------------------------------------------------------------- */

#define MAX_FIELDS 6

/* Split one line (without its newline) at tabs, unescaping each field in
 * place in a copy. Returns the number of fields, 0 without memory. */
static size_t split_line(const char *line, size_t len, char **copy,
                         char *fields[MAX_FIELDS]) {
  *copy = cl_strndup(line, len);
  if (!*copy)
    return 0;
  size_t count = 0;
  char *field = *copy;
  for (;;) {
    char *tab = count + 1 < MAX_FIELDS ? strchr(field, '\t') : NULL;
    if (tab)
      *tab = '\0';
    /* Unescape in place: the text only gets shorter. */
    char *to = field;
    for (const char *from = field; *from; ++from) {
      if (*from == '\\' && from[1]) {
        ++from;
        *to++ = *from == 't'   ? '\t'
                : *from == 'n' ? '\n'
                : *from == 'r' ? '\r'
                               : *from;
      } else {
        *to++ = *from;
      }
    }
    *to = '\0';
    fields[count++] = field;
    if (!tab)
      break;
    field = tab + 1;
  }
  return count;
}

/* strtoll saturates at the ends of long long: no text makes it overflow.
 * The callers check the range before anything narrows it. */
static long long number(const char *text) {
  return strtoll(text, NULL, 10);
}

static int known_stage_status(long long status) {
  return status == CUDALOAD_STAGE_OK || status == CUDALOAD_STAGE_FAILED ||
         status == CUDALOAD_STAGE_SKIPPED || status == CUDALOAD_STAGE_WARNING;
}

static void replace(char **slot, const char *text) {
  char *copy = cl_strdup(text);
  if (copy) {
    free(*slot);
    *slot = copy;
  }
}

static void read_device(cudaload_probe *p, char **f) {
  long long capability = number(f[2]);
  long long memory_mib = number(f[3]);
  cl_probe_device d = cl_probe_device_unknown();
  d.name = f[1];
  d.capability = cl_probe_valid_capability(capability) ? (int)capability : 0;
  d.memory_mib =
      memory_mib > 0 && memory_mib <= (long long)CL_PROBE_MAX_MEMORY_MIB
          ? (unsigned long long)memory_mib
          : 0;
  d.uuid = f[4];
  cl_probe_add_device(p, &d);
}

/* A yes/no fact: 1, 0, or -1 for unknown and anything else. */
static int yes_no(const char *text) {
  long long value = number(text);
  return value == 0 || value == 1 ? (int)value : -1;
}

/* The facts of the device read last; what is out of range stays unknown. */
static void read_facts(cl_probe_device *d, char **f) {
  long long model = number(f[1]);
  long long mode = number(f[3]);
  long long free_mib = number(f[5]);
  d->driver_model = cl_probe_valid_driver_model(model)
                        ? (int)model
                        : CUDALOAD_DRIVER_MODEL_UNKNOWN;
  d->kernel_timeout = yes_no(f[2]);
  d->compute_mode = cl_probe_valid_compute_mode(mode)
                        ? (int)mode
                        : CUDALOAD_COMPUTE_MODE_UNKNOWN;
  d->integrated = yes_no(f[4]);
  d->free_mib = free_mib >= 0 && free_mib <= (long long)CL_PROBE_MAX_MEMORY_MIB
                    ? free_mib
                    : -1;
}

/*
 * The child writes only what probe.c checked, but the channel is open to
 * the driver running in it: every number is checked again here, as the
 * driver's own answers are, before it is narrowed or stored. A value out of
 * range is dropped (0: unknown); a stage with a status the parent does not
 * know is not taken, nor a verdict, which leaves the report unfinished.
 */
static void read_record(cudaload_probe *p, char **f, size_t n, int *has_verdict,
                        int *ended) {
  if (strcmp(f[0], "stage") == 0 && n >= 5) {
    long long stage = number(f[1]);
    long long status = number(f[2]);
    long long microseconds = number(f[3]);
    /* At most a day, the longest timeout: past that it is not a time. */
    if (microseconds < 0 || microseconds > 86400LL * 1000000)
      microseconds = 0;
    if (stage >= 0 && stage < CL_PROBE_STAGE_COUNT &&
        known_stage_status(status))
      cl_probe_set_stage(p, (size_t)stage, (int)status,
                         (double)microseconds / 1000.0, f[4]);
  } else if (strcmp(f[0], "driver") == 0 && n >= 3) {
    long long version = number(f[2]);
    replace(&p->driver_path, f[1]);
    p->driver_version = cl_probe_valid_cuda_version(version) ? (int)version : 0;
  } else if (strcmp(f[0], "runtime") == 0 && n >= 2) {
    long long version = number(f[1]);
    p->runtime_version =
        cl_probe_valid_cuda_version(version) ? (int)version : 0;
  } else if (strcmp(f[0], "device") == 0 && n >= 5 &&
             p->device_count < CL_PROBE_MAX_DEVICES) {
    read_device(p, f);
  } else if (strcmp(f[0], "facts") == 0 && n >= 6 && p->device_count) {
    read_facts(&p->devices[p->device_count - 1], f);
  } else if (strcmp(f[0], "verdict") == 0 && n >= 4) {
    long long verdict = number(f[1]);
    long long reason = number(f[2]);
    int gpu_ok = verdict == CUDALOAD_GPU_OK && reason == CUDALOAD_REASON_NONE;
    int fallback = verdict == CUDALOAD_CPU_FALLBACK &&
                   reason > CUDALOAD_REASON_NONE &&
                   reason <= CUDALOAD_REASON_PROBE_CRASHED;
    if (gpu_ok || fallback) {
      p->verdict = (int)verdict;
      p->reason = (int)reason;
      replace(&p->summary, f[3]);
      *has_verdict = 1;
    }
  } else if (strcmp(f[0], "end") == 0) {
    *ended = 1;
  }
}

int cl_probe_wire_parse(const char *text, size_t len, cudaload_probe *p,
                        int *complete) {
  *complete = 0;
  size_t magic = strlen(WIRE_MAGIC);
  if (len < magic + 1 || memcmp(text, WIRE_MAGIC, magic) != 0 ||
      (text[magic] != '\n' && text[magic] != '\r'))
    return CUDALOAD_E_MALFORMED;
  size_t at = 0;
  int has_verdict = 0, ended = 0;
  while (at < len && !ended) {
    const char *line = text + at;
    const char *newline = memchr(line, '\n', len - at);
    if (!newline)
      break; /* a line cut off by a killed child carries nothing sure */
    size_t line_len = (size_t)(newline - line);
    at += line_len + 1;
    if (line_len && line[line_len - 1] == '\r') /* a Windows text stream */
      --line_len;
    if (line == text) /* the header */
      continue;
    char *copy = NULL;
    char *fields[MAX_FIELDS];
    size_t n = split_line(line, line_len, &copy, fields);
    if (n)
      read_record(p, fields, n, &has_verdict, &ended);
    free(copy);
  }
  /* Complete only with a verdict the parent could take. */
  *complete = ended && has_verdict;
  return CUDALOAD_OK;
}
