/* SPDX-License-Identifier: MIT */
/*
 * binary_internal.h - what the ELF, PE and ld.so.cache readers share: byte
 * order decoding and bounds-checked reads whose messages name the file, the
 * format and the structure at fault. Implemented in reader.c; not part of
 * the ABI.
 */
#ifndef CUDALOAD_BINARY_INTERNAL_H
#define CUDALOAD_BINARY_INTERNAL_H

#include "binary/binary.h"
#include "common/error.h"

#include <stddef.h>
#include <stdint.h>

/* The file one parse reads, as its messages name it. */
typedef struct cl_binary_source {
  const cl_reader *r;
  const char *label;  /* the name in messages */
  const char *format; /* "ELF", "PE", "ld.so.cache" */
} cl_binary_source;

/* Unsigned numbers of 2, 4 and 8 bytes in either byte order; p need not be
 * aligned. */
static inline uint16_t cl_u16(const unsigned char *p, int big_endian) {
  return big_endian ? (uint16_t)((p[0] << 8) | p[1])
                    : (uint16_t)((p[1] << 8) | p[0]);
}

static inline uint32_t cl_u32(const unsigned char *p, int big_endian) {
  if (big_endian) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
  }
  return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[1] << 8) | (uint32_t)p[0];
}

static inline uint64_t cl_u64(const unsigned char *p, int big_endian) {
  uint64_t first = cl_u32(p, big_endian);
  uint64_t second = cl_u32(p + 4, big_endian);
  return big_endian ? (first << 32) | second : (second << 32) | first;
}

/* "<label>: malformed <format>: <reason>"; returns CUDALOAD_E_MALFORMED. */
int cl_binary_malformed(const cl_binary_source *s, const char *fmt, ...)
    CL_PRINTF(2, 3);
/* "<label>: out of memory reading <format>"; returns CUDALOAD_E_NO_MEMORY. */
int cl_binary_no_memory(const cl_binary_source *s);

/* Read len bytes at off, naming `what` in the message when they are not all
 * inside the file ("<what> offset 0x.. past end of file", "<what> at 0x..
 * (n bytes) runs past end of file"). */
int cl_binary_read(const cl_binary_source *s, uint64_t off, void *buf,
                   size_t len, const char *what);
/* The read alone, the range already checked: a reader's failure keeps the
 * reader's text (an OS error for files) as "<label>: cannot read <format>
 * <what> at 0x..: <text>". */
int cl_binary_read_at(const cl_binary_source *s, uint64_t off, void *buf,
                      size_t len, const char *what);

/* Reads the NUL-terminated string at off, of which at most avail bytes
 * (avail <= CL_BINARY_MAX_STRING) may be taken, in small steps: the usual
 * name is short, and the file may be slow. What the string really takes (its
 * NUL included) is added to *total, which may not pass
 * CL_BINARY_MAX_STRING_TOTAL ("<total_what> exceed N bytes in total").
 * Reads name `what`. Returns 0 with *out a malloc'ed copy, 0 with *out NULL
 * when no NUL came within avail bytes (the caller words that), or an error. */
/* glibc sets no length; TensorFlow 2.21's libtensorflow_framework.so.2
 * has a RUNPATH of 20,357 bytes (its wheel folders, repeated). The total
 * below is what stops a hostile file. */
#define CL_BINARY_MAX_STRING 65536u
#define CL_BINARY_MAX_STRING_TOTAL (1u << 20)
int cl_binary_read_string(const cl_binary_source *s, uint64_t off,
                          uint64_t avail, const char *what, uint64_t *total,
                          const char *total_what, char **out);
/* The same with another limit on *total than CL_BINARY_MAX_STRING_TOTAL:
 * the symbol readers take thousands of names where the header readers take
 * a few. */
int cl_binary_read_string_limit(const cl_binary_source *s, uint64_t off,
                                uint64_t avail, const char *what,
                                uint64_t *total, uint64_t limit,
                                const char *total_what, char **out);

/* How every parser starts: with out and a reader given (else
 * CUDALOAD_E_INVALID_ARGUMENT, "<parser>: no output" or "<label>: no reader
 * given"), *out zeroed and *s filled in, a NULL name called "(memory)". */
int cl_binary_begin(cl_binary_source *s, const char *parser, const char *format,
                    const cl_reader *r, const char *name, cl_binary_info *out);
/* How every parser ends: after a success, absent strings become "" so that
 * callers never see NULL; after a failure, *out is freed and zeroed.
 * Returns status, or CUDALOAD_E_NO_MEMORY. */
int cl_binary_end(const cl_binary_source *s, int status, cl_binary_info *out);

#endif
