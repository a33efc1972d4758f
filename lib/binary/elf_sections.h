/* SPDX-License-Identifier: MIT */
/* elf_sections.h - the file ranges of an ELF file's read-only data
 * (elf_sections.c). */
#ifndef CUDALOAD_ELF_SECTIONS_H
#define CUDALOAD_ELF_SECTIONS_H

#include "binary/binary.h"

#include <stddef.h>
#include <stdint.h>

/* The .rodata* and .lrodata* sections of an ELF image, as file ranges
 * (malloc'ed array; free it). 0, or a CUDALOAD_E_* status with the last
 * error naming `name` (not ELF, no section headers, malformed). */
int cl_elf_rodata_ranges(const cl_reader *r, const char *name,
                         cl_file_range **ranges, size_t *count);

#endif
