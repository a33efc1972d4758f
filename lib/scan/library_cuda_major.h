/* SPDX-License-Identifier: MIT */
/*
 * library_cuda_major.h - the CUDA major of a library of the inventory, one
 * answer whoever asks and in whatever order (library_cuda_major.c).
 */
#ifndef CUDALOAD_LIBRARY_CUDA_MAJOR_H
#define CUDALOAD_LIBRARY_CUDA_MAJOR_H

#include "core/context.h"

struct cl_library;

/* The CUDA major a library of ctx's inventory belongs to, 0 when nothing
 * tells: what the plan, the verdicts, the doctor, explain, the public
 * getter (cudaload_library_cuda_major) and the reports all ask.
 *
 * A wheel's library whose name does not tell it (cuDNN 8 is built for
 * CUDA 11 and 12) would otherwise have it from its dist-info's name (-cu12),
 * which means listing site-packages, thousands of unrelated distributions
 * perhaps (issue 28). Its files tell first, the ones the plan reads
 * anyway: the version in the file's name; what the file needs or names in
 * its search list; the same of the other files of its build (its family
 * and major, in its folder, as the inventory lists them); what the files
 * of its build that the catalog says open CUDA libraries by name open
 * (cuDNN 8's ops_infer holds libcublas.so.12: the real files need nothing
 * of CUDA). The file is what the process will load, so what it tells stands
 * over the dist-info's -cuNN, whether or not the version was settled
 * first; only when no file tells is the version settled and its CUDA major
 * answered. Every other library's is the scan's.
 *
 * A memo of the record (inventory.h, "Memos"): what the files told is kept
 * in it, so a const handle may ask. Keeps the last error as it was. */
int cl_library_cuda_major(const cudaload_ctx *ctx, struct cl_library *lib);

/* What is known of a library's CUDA major without reading a file, for
 * those that must not read the disk (the fix lines): the answer of
 * cl_library_cuda_major once its version is settled, else 0 (a wheel's
 * left for later, even when its files told). */
int cl_library_cuda_major_known(const struct cl_library *lib);

#endif
