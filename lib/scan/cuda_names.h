/* SPDX-License-Identifier: MIT */
/*
 * cuda_names.h - which names are CUDA's (cuda_names.c): the catalog entry a
 * file is, the references a consumer makes to CUDA libraries, and the CUDA
 * libraries a file opens by name at run time. Read from a file cache and
 * the catalog only, so the scan's answer of a library's CUDA major
 * (library_cuda_major.h) and the loader model's verdicts (load/) read them
 * the same way.
 */
#ifndef CUDALOAD_CUDA_NAMES_H
#define CUDALOAD_CUDA_NAMES_H

#include "binary/binary_symbols.h"
#include "binary/file_cache.h"
#include "scan/catalog.h"

#include <stddef.h>

/* The catalog entry a file is (by its SONAME first: a renamed copy such
 * as ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7 keeps libcudnn.so.8):
 * 1 with *m filled, 0 when it is no CUDA library's. */
int cl_cuda_catalog_of(const char *path, const char *soname, cl_naming naming,
                       cl_name_match *m);

/* The package of a known consumer (consumers.h: ctranslate2's library,
 * which opens libcublas.so.12 at its first cuBLAS call), or NULL. */
const char *cl_cuda_consumer_package(const char *path, cl_naming naming);

/* Whether a reference goes to a CUDA library: its version's file is a
 * catalog name, or (unversioned) its name has a CUDA library's prefix. */
int cl_cuda_reference(const cl_symbol_ref *r, cl_naming naming);

/* files (NULL: none) with its reference filter set to the references
 * binding asks of a consumer (those to CUDA libraries): what the plan, the
 * verdicts and the CUDA major of a library's files read symbols through. */
cl_file_cache *cl_cuda_files(cl_file_cache *files, cl_naming naming);

/* The CUDA library names the file at path opens by name at run time (its
 * read-only data, through files, cl_cuda_files's filter set; info: its
 * header, for the DT_NEEDED names that are no lazy open, or NULL).
 * Malloc'ed names and array; NULL with *count 0 when none. */
char **cl_cuda_opens_by_name(cl_file_cache *files, cl_naming naming,
                             const char *path, const cl_binary_info *info,
                             size_t *count);

#endif
