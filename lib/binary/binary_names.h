/* SPDX-License-Identifier: MIT */
/*
 * binary_names.h - library names a file holds as text (binary_names.c):
 * what it may open by name at run time, which its DT_NEEDED entries or
 * import table do not tell.
 */
#ifndef CUDALOAD_BINARY_NAMES_H
#define CUDALOAD_BINARY_NAMES_H

#include "binary/binary.h"
#include "os/platform.h"

#include <stddef.h>
#include <stdint.h>

/* Called for each name found ("libcublasLt.so.13", "libcudnn_ops.so",
 * "cudnn_ops_infer64_8.dll"), possibly more than once; a non-zero return
 * stops the scan and is returned. */
typedef int (*cl_name_visitor)(const char *name, void *opaque);

/* Scan the file (regular files only, never blocking; at most max_bytes
 * long when it has no sections to limit the search to, else
 * CUDALOAD_E_UNSUPPORTED) for library file names, ASCII and UTF-16LE. 0 or
 * a CUDALOAD_E_* status with the last error set. */
int cl_binary_names(const char *path, uint64_t max_bytes, cl_name_visitor visit,
                    void *opaque);
/* The buffers a search reads and collects in (about 1 MiB), kept by a
 * reader that searches many files (binary/file_cache.c). NULL when out of
 * memory. */
typedef struct cl_names_scratch cl_names_scratch;
cl_names_scratch *cl_names_scratch_new(void);
void cl_names_scratch_free(cl_names_scratch *s);
/* The same on a file already open (size bytes long; path names it in
 * messages), with scratch's buffers (NULL: its own, for this search). */
int cl_binary_names_in(cl_file *f, uint64_t size, const char *path,
                       uint64_t max_bytes, cl_names_scratch *scratch,
                       cl_name_visitor visit, void *opaque);
/* Where names can be in the file: ELF .rodata and .lrodata sections, PE
 * .rdata, _RDATA and .data (malloc'ed; free it). *ranges is NULL when the
 * file has none of those (neither ELF nor PE, no section headers): then the
 * whole file is searched. 0, or CUDALOAD_E_NO_MEMORY. */
int cl_binary_name_ranges(cl_file *f, uint64_t size, const char *path,
                          cl_file_range **ranges, size_t *count);

#endif
