/* SPDX-License-Identifier: MIT */
/*
 * file_chunks.h - a reader over an open file that keeps what it read, in
 * aligned chunks (file_chunks.c), for readers that ask for a few bytes here
 * and there and often again: a lookup of one symbol by name reads a word of
 * the bloom filter, a bucket, a chain, a symbol, a name and a version
 * index, each in another part of the file, and the next lookup reads
 * beside them. The chunks are read on first need and kept until dropped,
 * at most CL_FILE_CHUNKS_MAX of them (then all are dropped and reading
 * starts again), so what a file costs in memory stays bounded whatever it
 * holds. Reads larger than two chunks go to the file and are not kept.
 */
#ifndef CUDALOAD_FILE_CHUNKS_H
#define CUDALOAD_FILE_CHUNKS_H

#include "binary/binary.h"
#include "os/platform.h"

#include <stddef.h>
#include <stdint.h>

/* A page: a lookup's reads are scattered over tables of megabytes (one
 * bloom word, one bucket, one chain, one symbol each), so a larger chunk
 * reads more that is never asked (16 KiB read 8.4 MB for `doctor --for
 * torch`, 4 KiB 6.6 MB, in about the same number of reads). */
#define CL_FILE_CHUNK 4096u
#define CL_FILE_CHUNKS_MAX 128u

typedef struct cl_file_chunk {
  uint64_t index; /* offset / CL_FILE_CHUNK */
  size_t len;     /* bytes of the file it holds (less at the file's end) */
  unsigned char *data;
} cl_file_chunk;

typedef struct cl_file_chunks {
  cl_file *file; /* borrowed: the caller opens and closes it */
  uint64_t size;
  cl_file_chunk *chunks; /* sorted by index */
  size_t count, capacity;
  size_t reads; /* reads of the file made, for tests */
} cl_file_chunks;

/* Start reading the open file f of size bytes (c was zeroed, or dropped). */
void cl_file_chunks_init(cl_file_chunks *c, cl_file *f, uint64_t size);
/* A reader through c, which must outlive it. */
cl_reader cl_file_chunks_reader(cl_file_chunks *c);
/* Free the chunks kept (the file is the caller's). */
void cl_file_chunks_drop(cl_file_chunks *c);
/* The bytes the chunks kept hold, for the bound on all of a run's. */
size_t cl_file_chunks_bytes(const cl_file_chunks *c);

#endif
