/* SPDX-License-Identifier: MIT */
/*
 * known_builds.h - the library names that NVIDIA's released builds hold as
 * text (binary_names.h), known before any read. Finding what a CUDA
 * library opens by name means searching its read-only data: 57 MB of
 * cuBLASLt 13, 187 MB of the cuSPARSELt torch bundles. For the builds in
 * this table the answer is the table's: each row is keyed by the build's
 * identity (cl_binary_info.build_id: the GNU build ID of an ELF file, the
 * link stamp and image size of a PE image), which the headers give, and
 * holds the names a search of that build finds, in the order it finds
 * them. An identity is the linker's, not the content's: a build ID is only
 * a hash of what was linked, which anyone can link into another file (a
 * 15 KB library with the build ID of cuDNN 9.19's libcudnn.so.9 was
 * answered with cuDNN's names, its own dlopen of cuBLASLt 12 unreported),
 * and a tool that edits a file keeps it. So a row holds the size of the
 * file its names were read from too, and answers only a file of that
 * identity and that size: anything else, a copy patchelf grew included, is
 * searched. An edit that keeps the size (a name overwritten by one of its
 * length) is not told by any stamp; only the search, which the table
 * exists to spare, would see it. scripts/known-builds writes the rows from
 * the real files and checks them against the files wherever they are on
 * disk; a build the table does not know is searched as before, so the
 * table changes how fast an answer comes, never what it is.
 *
 * CUDALOAD_KNOWN_BUILDS_DISABLE set to anything but "" or "0" leaves the
 * table unused (every build is searched): how the check compares the two.
 */
#ifndef CUDALOAD_KNOWN_BUILDS_H
#define CUDALOAD_KNOWN_BUILDS_H

#include <stddef.h>
#include <stdint.h>

/* The names a search of the build with this identity finds, for a file
 * of file_size bytes: 1 with *names (static) and *count, 0 when the table
 * does not know the build, or knows it at another size. */
int cl_known_build_names(const char *build_id, uint64_t file_size,
                         const char *const **names, size_t *count);

/* 0 when CUDALOAD_KNOWN_BUILDS_DISABLE switches the table off. */
int cl_known_builds_enabled(void);

#endif
