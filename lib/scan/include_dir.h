/* SPDX-License-Identifier: MIT */
/*
 * include_dir.h - the folder of a library's headers, found the way the
 * library was: beside its folder in the same install. NVRTC and nvJitLink
 * programs pass the CUDA include folder (cuda_fp16.h, cuda_runtime.h) to the
 * compiler at run time and must find it as they find the libraries
 * (include_dir.c).
 */
#ifndef CUDALOAD_INCLUDE_DIR_H
#define CUDALOAD_INCLUDE_DIR_H

#include "scan/inventory.h"

/* lib's include folder, looked up once and kept: the "include" beside the
 * folder that holds its lib/lib64 (wheels: nvidia/<pkg>/include,
 * nvidia/cu13/include; toolkits and conda: include, targets/<arch>/include;
 * NVVM: nvvm/include) or bin (Windows: bin, bin/x64, Library/bin), when it
 * holds the family's header (catalog.h, header). NULL when there is none or
 * the family ships no header, and NULL, with lib->include_refused saying
 * why, when other users can change what the compiler would read there
 * (trust.h), unless allow_writable (CUDALOAD_ALLOW_WRITABLE_ROOTS). */
const char *cl_library_include_dir(cl_library *lib, int allow_writable);

#endif
