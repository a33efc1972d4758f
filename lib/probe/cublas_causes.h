/* SPDX-License-Identifier: MIT */
/*
 * cublas_causes.h - the causes of CUBLAS_STATUS_NOT_INITIALIZED that the
 * probe's facts support (cublas_causes.c), for the cuBLAS stage's message.
 */
#ifndef CUDALOAD_CUBLAS_CAUSES_H
#define CUDALOAD_CUBLAS_CAUSES_H

#include "core/context.h"
#include "probe/probe_result.h"

#include <stddef.h>

/* 1 when free_mib (-1: unknown) of a device of total_mib is so little that
 * a library's workspace may not fit: under 256 MiB or a tenth of the
 * device. The doctor's "little free memory" problem uses the same test. */
int cl_probe_free_memory_low(long long free_mib, unsigned long long total_mib);

/* "cuBLAS could not set itself up, because ..." naming each cause the facts
 * support: free_mib (device 0's free memory right after the failure, -1
 * unknown), the versions of the cuBLAS and cuBLASLt the process has for
 * requirement index `requirement`, the runtime against the driver, and a
 * WDDM device with the display watchdog on. When none applies, the facts
 * that rule them out. malloc'ed; NULL without memory. */
char *cl_cublas_not_initialized_causes(cudaload_ctx *ctx, size_t requirement,
                                       const cudaload_probe *p,
                                       long long free_mib);

#endif
