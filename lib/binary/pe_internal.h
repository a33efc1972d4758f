/* SPDX-License-Identifier: MIT */
/*
 * pe_internal.h - what the two PE readers share: pe.c (machine, imported
 * DLLs, VERSIONINFO) and pe_symbols.c (exports by name, forwarders and
 * imported functions). Both start from the same headers and section table
 * and reach data through RVAs the same way. Not part of the ABI.
 */
#ifndef CUDALOAD_PE_INTERNAL_H
#define CUDALOAD_PE_INTERNAL_H

#include "binary/binary.h"
#include "binary/binary_internal.h"

#include <stddef.h>
#include <stdint.h>

#define CL_PE_MAX_DATA_DIRS 16u
#define CL_PE_DIR_EXPORT 0u
#define CL_PE_DIR_IMPORT 1u
#define CL_PE_DIR_RESOURCE 2u
#define CL_PE_DIR_DELAY_IMPORT 13u
#define CL_PE_IMPORT_DESC_SIZE 20u
#define CL_PE_DELAY_DESC_SIZE 32u
/* Import descriptor tables end with an all-zero entry; this caps a table
 * that has none. DLLs import a few dozen others. */
#define CL_PE_MAX_DESCRIPTORS 4096u
/* The PE format's documented limit on NumberOfSections ("the Windows
 * loader limits the number of sections to 96"). Real DLLs have a dozen or
 * so; a file claiming 65,535 would cost a read per section and a walk of
 * them all for every RVA, and no documented loader behaviour covers it. */
#define CL_PE_MAX_SECTIONS 96u

typedef struct cl_pe_section {
  uint32_t va;
  uint32_t span; /* bytes of the section that the file really holds */
  uint32_t raw_offset;
  char name[9]; /* as the section table spells it (8 bytes, NUL added) */
} cl_pe_section;

typedef struct cl_pe {
  cl_binary_source src;
  cl_pe_section *sections;
  unsigned section_count;
  unsigned machine;
  int bits; /* 32 (PE32) or 64 (PE32+) */
  uint64_t image_base;
  uint32_t time_stamp;    /* IMAGE_FILE_HEADER.TimeDateStamp */
  uint32_t size_of_image; /* IMAGE_OPTIONAL_HEADER.SizeOfImage */
  /* The data directories the optional header holds (0 where absent). */
  uint32_t dir_rva[CL_PE_MAX_DATA_DIRS];
  uint32_t dir_size[CL_PE_MAX_DATA_DIRS];
  uint64_t string_bytes; /* against CL_BINARY_MAX_STRING_TOTAL */
  size_t needed_capacity;
} cl_pe;

/* A place in the file reached through an RVA: the offset and how many bytes
 * of its section follow. */
typedef struct cl_pe_place {
  uint64_t offset;
  uint64_t avail;
} cl_pe_place;

/* Reads the DOS, PE and optional headers, the data directories and the
 * section table into *p (p->src set by the caller). Free with
 * cl_pe_free() whatever the result. */
int cl_pe_read_headers(cl_pe *p);
void cl_pe_free(cl_pe *p);

/* Finds the section that holds rva in its file bytes. Returns 0 when none
 * does (the RVA points at nothing, or at zero-filled memory only). */
int cl_pe_rva_place(const cl_pe *p, uint32_t rva, cl_pe_place *place);

/* Reads the NUL-terminated string at an RVA, within its section, adding
 * what it takes to *total, which may not pass limit. */
int cl_pe_read_string(const cl_pe *p, uint32_t rva, const char *what,
                      uint64_t *total, uint64_t limit, const char *total_what,
                      char **out);

/* The DLL name and name table RVAs of an import descriptor (desc_size
 * bytes of the normal or delay-load table). Delay-load descriptors from
 * before Visual C++ 7 (attribute bit 0 clear) hold virtual addresses;
 * *va_based tells the caller to read the name table's entries that way too
 * (cl_pe_delay_rva). */
void cl_pe_import_descriptor(const cl_pe *p, const unsigned char *desc,
                             int delay, uint32_t *name_rva, uint32_t *names_rva,
                             int *va_based);
/* An address from an old delay-load descriptor, as an RVA: taken as a
 * virtual address only when that is the only reading that lands in a
 * section. */
uint32_t cl_pe_delay_rva(const cl_pe *p, uint64_t value);

#endif
