/* SPDX-License-Identifier: MIT */
/*
 * bytes_builder.h - what the tests of the byte readers (test_elf.c,
 * test_pe.c, test_ldcache.c) share: numbers written into a synthetic image,
 * exact-size copies behind a memory reader, a reader that fails after a
 * number of reads, and checks on the last error's text.
 */
#ifndef CUDALOAD_TEST_BYTES_BUILDER_H
#define CUDALOAD_TEST_BYTES_BUILDER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "binary/binary.h"
#include "cudaload.h"
#include "common/error.h"

/* Writes the low `width` bytes of v at off in an image of size bytes, in
 * either byte order; the write must fit. */
static inline void put_bytes(unsigned char *b, size_t size, size_t off,
                             uint64_t v, unsigned width, int big_endian) {
  unsigned i;
  assert_true(off + width <= size);
  for (i = 0; i < width; i++) {
    unsigned shift = big_endian ? (width - 1 - i) * 8 : i * 8;
    b[off + i] = (unsigned char)(v >> shift);
  }
}

/* The first len bytes of an image copied into a buffer of exactly that
 * size, behind a memory reader, so that AddressSanitizer sees any read past
 * the end. */
typedef struct exact_copy {
  unsigned char *bytes;
  cl_memory_source src;
} exact_copy;

static inline cl_reader
exact_copy_reader(exact_copy *c, const unsigned char *data, size_t len) {
  c->bytes = malloc(len > 0 ? len : 1);
  assert_non_null(c->bytes);
  memcpy(c->bytes, data, len);
  c->src.data = c->bytes;
  c->src.size = len;
  return cl_reader_from_memory(&c->src);
}

static inline void exact_copy_free(exact_copy *c) {
  free(c->bytes);
}

/* Parses the first len bytes of data from an exact-size copy. */
typedef int (*binary_parser)(const cl_reader *r, const char *name,
                             cl_binary_info *out);

static inline int parse_exact_copy(binary_parser parse, const char *name,
                                   const unsigned char *data, size_t len,
                                   cl_binary_info *info) {
  exact_copy copy;
  cl_reader r = exact_copy_reader(&copy, data, len);
  int status = parse(&r, name, info);
  exact_copy_free(&copy);
  return status;
}

/* A reader that fails with an I/O error after a number of reads. */
typedef struct failing_source {
  const unsigned char *data;
  uint64_t size;
  int reads_left;
} failing_source;

static inline int failing_read_at(void *opaque, uint64_t offset, void *buf,
                                  size_t len) {
  failing_source *f = opaque;
  if (f->reads_left-- <= 0) {
    return cl_fail(CUDALOAD_E_IO, "simulated read error");
  }
  assert_true(offset <= f->size && len <= f->size - offset);
  memcpy(buf, f->data + offset, len);
  return CUDALOAD_OK;
}

static inline void assert_error_contains(const char *needle) {
  const char *text = cudaload_last_error();
  if (strstr(text, needle) == NULL) {
    fail_msg("last error \"%s\" lacks \"%s\"", text, needle);
  }
}

#endif
