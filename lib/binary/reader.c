/* SPDX-License-Identifier: MIT */
/*
 * reader.c - the memory-backed cl_reader, format sniffing, the
 * bounds-checked reads the parsers share (binary_internal.h), and the
 * release of a cl_binary_info: the primitives below the parsers (elf.c,
 * pe.c, ldcache.c), which only ever see a cl_reader, so the fuzzers can
 * feed them memory. The dispatch above them is binary_dispatch.c.
 */
#include "binary/binary.h"
#include "binary/binary_internal.h"
#include "common/error.h"
#include "common/strutil.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cl_memory_read_at(void *opaque, uint64_t offset, void *buf,
                             size_t len) {
  const cl_memory_source *src = opaque;
  /* Written as two comparisons so that offset + len cannot overflow. */
  if (offset > src->size || len > src->size - offset) {
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "read of %" PRIu64 " bytes at offset 0x%" PRIx64
                   " past end of buffer (size %" PRIu64 ")",
                   (uint64_t)len, offset, (uint64_t)src->size);
  }
  if (len > 0) {
    memcpy(buf, src->data + offset, len);
  }
  return CUDALOAD_OK;
}

cl_reader cl_reader_from_memory(cl_memory_source *src) {
  cl_reader r;
  r.size = src != NULL ? (uint64_t)src->size : 0;
  r.read_at = cl_memory_read_at;
  r.opaque = src;
  return r;
}

/* The text a failed read left (or the status's own text when it left none),
 * copied into buf: cl_fail rewrites the buffer the text lives in. */
static const char *reader_reason(int status, char *buf, size_t size) {
  snprintf(buf, size, "%s", cudaload_last_error());
  return buf[0] != '\0' ? buf : cudaload_strerror(status);
}

int cl_binary_malformed(const cl_binary_source *s, const char *fmt, ...) {
  char reason[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  return cl_fail(CUDALOAD_E_MALFORMED, "%s: malformed %s: %s", s->label,
                 s->format, reason);
}

int cl_binary_no_memory(const cl_binary_source *s) {
  return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory reading %s", s->label,
                 s->format);
}

int cl_binary_read_at(const cl_binary_source *s, uint64_t off, void *buf,
                      size_t len, const char *what) {
  int status;
  status = s->r->read_at(s->r->opaque, off, buf, len);
  if (status != CUDALOAD_OK) {
    char reason[256];
    return cl_fail(status, "%s: cannot read %s %s at 0x%" PRIx64 ": %s",
                   s->label, s->format, what, off,
                   reader_reason(status, reason, sizeof reason));
  }
  return CUDALOAD_OK;
}

int cl_binary_read(const cl_binary_source *s, uint64_t off, void *buf,
                   size_t len, const char *what) {
  uint64_t size = s->r->size;
  if (len > 0 && off >= size) {
    return cl_binary_malformed(
        s, "%s offset 0x%" PRIx64 " past end of file (size %" PRIu64 ")", what,
        off, size);
  }
  if (len > size - off) {
    return cl_binary_malformed(s,
                               "%s at 0x%" PRIx64 " (%" PRIu64
                               " bytes) runs past end of file (size %" PRIu64
                               ")",
                               what, off, (uint64_t)len, size);
  }
  return cl_binary_read_at(s, off, buf, len, what);
}

int cl_binary_read_string(const cl_binary_source *s, uint64_t off,
                          uint64_t avail, const char *what, uint64_t *total,
                          const char *total_what, char **out) {
  return cl_binary_read_string_limit(
      s, off, avail, what, total, CL_BINARY_MAX_STRING_TOTAL, total_what, out);
}

int cl_binary_read_string_limit(const cl_binary_source *s, uint64_t off,
                                uint64_t avail, const char *what,
                                uint64_t *total, uint64_t limit,
                                const char *total_what, char **out) {
  /* A short stack buffer for the usual name; a longer string (a RUNPATH
   * of many folders) grows into the heap, up to CL_BINARY_MAX_STRING. */
  char small[512];
  char *buf = small;
  size_t capacity = sizeof small;
  uint64_t got = 0;
  int status = CUDALOAD_OK;

  *out = NULL;
  if (avail > CL_BINARY_MAX_STRING) {
    avail = CL_BINARY_MAX_STRING;
  }
  while (got < avail) {
    size_t step = (size_t)(avail - got < 256 ? avail - got : 256);
    const char *nul;
    if (got + step > capacity) {
      size_t grown = capacity * 4 < avail ? capacity * 4 : (size_t)avail;
      char *bigger = buf == small ? malloc(grown) : realloc(buf, grown);
      if (bigger == NULL) {
        status = cl_binary_no_memory(s);
        break;
      }
      if (buf == small) {
        memcpy(bigger, small, (size_t)got);
      }
      buf = bigger;
      capacity = grown;
    }
    status = cl_binary_read(s, off + got, buf + got, step, what);
    if (status != CUDALOAD_OK) {
      break;
    }
    nul = memchr(buf + got, '\0', step);
    /* Count what the string really takes, its NUL included. */
    *total += nul != NULL ? (uint64_t)(nul - (buf + got)) + 1 : step;
    got += step;
    if (*total > limit) {
      status = cl_binary_malformed(s, "%s exceed %" PRIu64 " bytes in total",
                                   total_what, limit);
      break;
    }
    if (nul != NULL) {
      *out = cl_strdup(buf);
      if (*out == NULL) {
        status = cl_binary_no_memory(s);
      }
      break;
    }
  }
  if (buf != small) {
    free(buf);
  }
  return status;
}

/* Absent strings become "" so that callers never see NULL. Returns 0 when
 * out of memory, else 1. */
static int fill_empty(cl_binary_info *out) {
  char **fields[] = {&out->soname, &out->runpath, &out->rpath,
                     &out->file_version};
  size_t i;
  for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (*fields[i] == NULL) {
      *fields[i] = cl_strdup("");
      if (*fields[i] == NULL) {
        return 0;
      }
    }
  }
  return 1;
}

int cl_binary_begin(cl_binary_source *s, const char *parser, const char *format,
                    const cl_reader *r, const char *name, cl_binary_info *out) {
  if (out == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output", parser);
  }
  memset(out, 0, sizeof *out);
  s->r = r;
  s->label = name != NULL ? name : "(memory)";
  s->format = format;
  if (r == NULL || r->read_at == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no reader given",
                   s->label);
  }
  return CUDALOAD_OK;
}

int cl_binary_end(const cl_binary_source *s, int status, cl_binary_info *out) {
  if (status == CUDALOAD_OK && !fill_empty(out)) {
    status = cl_binary_no_memory(s);
  }
  if (status != CUDALOAD_OK) {
    cl_binary_info_free(out);
  }
  return status;
}

cl_binary_format cl_binary_sniff(const unsigned char *head, size_t len) {
  if (head == NULL || len < 4) {
    return CL_FORMAT_UNKNOWN;
  }
  if (head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
    return CL_FORMAT_ELF;
  }
  if (head[0] == 'M' && head[1] == 'Z') {
    return CL_FORMAT_PE;
  }
  return CL_FORMAT_UNKNOWN;
}

void cl_binary_info_free(cl_binary_info *info) {
  size_t i;
  if (info == NULL) {
    return;
  }
  free(info->machine_name);
  free(info->soname);
  if (info->needed != NULL) {
    for (i = 0; i < info->needed_count; i++) {
      free(info->needed[i]);
    }
    free(info->needed);
  }
  free(info->runpath);
  free(info->rpath);
  free(info->file_version);
  memset(info, 0, sizeof *info);
}
