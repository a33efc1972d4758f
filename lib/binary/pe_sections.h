/* SPDX-License-Identifier: MIT */
/* pe_sections.h - the file ranges of a PE image's data sections
 * (pe_sections.c). */
#ifndef CUDALOAD_PE_SECTIONS_H
#define CUDALOAD_PE_SECTIONS_H

#include "binary/binary.h"

#include <stddef.h>

/* The .rdata, _RDATA and .data sections of a PE image, as file ranges
 * (malloc'ed array; free it). 0, or a CUDALOAD_E_* status with the last
 * error naming `name` (not PE, malformed). */
int cl_pe_data_ranges(const cl_reader *r, const char *name,
                      cl_file_range **ranges, size_t *count);

#endif
