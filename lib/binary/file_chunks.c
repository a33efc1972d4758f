/* SPDX-License-Identifier: MIT */
/*
 * file_chunks.c - reads of an open file kept in aligned chunks
 * (file_chunks.h).
 */
#include "binary/file_chunks.h"

#include "common/error.h"
#include "common/strutil.h"
#include "cudaload.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void cl_file_chunks_init(cl_file_chunks *c, cl_file *f, uint64_t size) {
  cl_file_chunks_drop(c);
  c->file = f;
  c->size = size;
}

void cl_file_chunks_drop(cl_file_chunks *c) {
  for (size_t i = 0; i < c->count; ++i)
    free(c->chunks[i].data);
  free(c->chunks);
  c->chunks = NULL;
  c->count = c->capacity = 0;
}

size_t cl_file_chunks_bytes(const cl_file_chunks *c) {
  return c->count * (size_t)CL_FILE_CHUNK;
}

/* The position of chunk `index` in the sorted array: where it is, or
 * where it goes. */
static size_t position_of(const cl_file_chunks *c, uint64_t index) {
  size_t lo = 0, hi = c->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->chunks[mid].index < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Chunk `index`, read when it is not kept yet; NULL with the last error
 * when the read fails. */
static const cl_file_chunk *chunk_at(cl_file_chunks *c, uint64_t index) {
  size_t at = position_of(c, index);
  if (at < c->count && c->chunks[at].index == index)
    return &c->chunks[at];
  if (c->count >= CL_FILE_CHUNKS_MAX) {
    /* The bound: start again rather than keep more (a file read all
     * over is read as if each lookup were the first). */
    cl_file_chunks_drop(c);
    at = 0;
  }
  uint64_t start = index * CL_FILE_CHUNK;
  size_t len = c->size - start < CL_FILE_CHUNK ? (size_t)(c->size - start)
                                               : CL_FILE_CHUNK;
  unsigned char *data = malloc(len ? len : 1);
  if (!data) {
    cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
    return NULL;
  }
  c->reads++;
  if (cl_os_file_read_at(c->file, start, data, len) != CUDALOAD_OK) {
    free(data);
    return NULL;
  }
  if (cl_reserve((void **)&c->chunks, &c->capacity, c->count + 1,
                 sizeof *c->chunks)) {
    free(data);
    cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
    return NULL;
  }
  memmove(c->chunks + at + 1, c->chunks + at,
          (c->count - at) * sizeof *c->chunks);
  c->chunks[at] = (cl_file_chunk){index, len, data};
  c->count++;
  return &c->chunks[at];
}

static int chunks_read_at(void *opaque, uint64_t offset, void *buf,
                          size_t len) {
  cl_file_chunks *c = opaque;
  if (offset > c->size || len > c->size - offset)
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "read of %zu bytes at offset 0x%" PRIx64
                   " past end of file (size %" PRIu64 ")",
                   len, offset, c->size);
  if (len > 2 * (size_t)CL_FILE_CHUNK) {
    c->reads++;
    return cl_os_file_read_at(c->file, offset, buf, len);
  }
  unsigned char *out = buf;
  while (len > 0) {
    const cl_file_chunk *k = chunk_at(c, offset / CL_FILE_CHUNK);
    if (!k)
      return CUDALOAD_E_IO;
    size_t in = (size_t)(offset - k->index * CL_FILE_CHUNK);
    if (in >= k->len)
      return cl_fail(CUDALOAD_E_MALFORMED, "the file shrank while it was read");
    size_t n = k->len - in < len ? k->len - in : len;
    memcpy(out, k->data + in, n);
    out += n;
    offset += n;
    len -= n;
  }
  return CUDALOAD_OK;
}

cl_reader cl_file_chunks_reader(cl_file_chunks *c) {
  cl_reader r = {c->size, chunks_read_at, c};
  return r;
}
