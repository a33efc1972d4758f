/* SPDX-License-Identifier: MIT */
/*
 * pe_sections.c - where a PE image keeps its constant and initialised data:
 * the file ranges of its .rdata, _RDATA and .data sections, by name. The
 * names of the DLLs a library loads at run time (LoadLibrary("cudnn_ops_
 * infer64_8.dll"), ASCII or UTF-16) are string constants there; the rest of
 * the file (code, and .nv_fatb: GPU code, 473 of cudnn_cnn_infer64_8.dll's
 * 582 MB) need not be read to find them (binary_names.c).
 */
#include "binary/pe_sections.h"

#include "binary/pe_internal.h"
#include "common/strutil.h"

#include "cudaload.h"

#include <stdlib.h>
#include <string.h>

static int holds_names(const cl_pe_section *s) {
  return strcmp(s->name, ".rdata") == 0 || strcmp(s->name, "_RDATA") == 0 ||
         strcmp(s->name, ".data") == 0;
}

int cl_pe_data_ranges(const cl_reader *r, const char *name,
                      cl_file_range **ranges, size_t *count) {
  *ranges = NULL;
  *count = 0;
  cl_pe p;
  memset(&p, 0, sizeof p);
  p.src.r = r;
  p.src.label = name ? name : "(memory)";
  p.src.format = "PE";
  int status = cl_pe_read_headers(&p);
  size_t capacity = 0;
  for (unsigned i = 0; status == CUDALOAD_OK && i < p.section_count; ++i) {
    const cl_pe_section *s = &p.sections[i];
    if (!holds_names(s) || s->span == 0 || s->raw_offset >= r->size)
      continue;
    uint64_t size = s->span;
    if (size > r->size - s->raw_offset)
      size = r->size - s->raw_offset; /* the file is shorter than it says */
    if (cl_reserve((void **)ranges, &capacity, *count + 1, sizeof **ranges)) {
      status = cl_binary_no_memory(&p.src);
      break;
    }
    (*ranges)[*count].offset = s->raw_offset;
    (*ranges)[*count].size = size;
    ++*count;
  }
  cl_pe_free(&p);
  if (status != CUDALOAD_OK) {
    free(*ranges);
    *ranges = NULL;
    *count = 0;
  }
  return status;
}
