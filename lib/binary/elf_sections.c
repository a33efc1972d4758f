/* SPDX-License-Identifier: MIT */
/*
 * elf_sections.c - where an ELF file keeps its read-only data: the file
 * ranges of its .rodata and .lrodata sections, by name. The names of the
 * libraries a CUDA library opens at run time are string constants there;
 * the rest of the file (code, and .nv_fatbin: GPU code, most of a 500 MB
 * cuBLASLt) need not be read to find them (binary_names.c).
 */
#include "binary/elf_internal.h"
#include "binary/elf_sections.h"

#include "cudaload.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

#define CL_SHN_XINDEX 0xffffu
#define CL_SHT_PROGBITS 1u

/* Whether the section name at table offset `name` starts with one of the
 * read-only data prefixes. */
static int is_rodata(const cl_elf *e, const cl_elf_shdr *names, uint32_t name) {
  char text[16] = "";
  uint64_t avail = names->size > name ? names->size - name : 0;
  size_t len = avail < sizeof text - 1 ? (size_t)avail : sizeof text - 1;
  if (len == 0 || cl_binary_read(&e->src, names->offset + name, text, len,
                                 "section name") != CUDALOAD_OK)
    return 0;
  text[len] = '\0';
  return strncmp(text, ".rodata", 7) == 0 || strncmp(text, ".lrodata", 8) == 0;
}

int cl_elf_rodata_ranges(const cl_reader *r, const char *name,
                         cl_file_range **ranges, size_t *count) {
  *ranges = NULL;
  *count = 0;
  cl_elf_file f;
  memset(&f, 0, sizeof f);
  f.e.src.r = r;
  f.e.src.label = name;
  f.e.src.format = "ELF";
  int status = cl_elf_read_headers(&f);
  uint64_t index = f.l.shstrndx;
  cl_elf_shdr names, sh;
  if (status == CUDALOAD_OK && index == CL_SHN_XINDEX && f.l.shnum > 0) {
    status = cl_elf_read_shdr(&f.e, &f.l, 0, &sh);
    index = sh.link;
  }
  if (status == CUDALOAD_OK && (f.l.shnum == 0 || index >= f.l.shnum))
    status = cl_binary_malformed(&f.e.src, "no section name table");
  if (status == CUDALOAD_OK)
    status = cl_elf_read_shdr(&f.e, &f.l, index, &names);
  size_t capacity = 0;
  for (uint64_t i = 0; status == CUDALOAD_OK && i < f.l.shnum; ++i) {
    status = cl_elf_read_shdr(&f.e, &f.l, i, &sh);
    if (status != CUDALOAD_OK || sh.type != CL_SHT_PROGBITS || sh.size == 0 ||
        sh.offset > r->size || sh.size > r->size - sh.offset ||
        !is_rodata(&f.e, &names, sh.name))
      continue;
    if (cl_reserve((void **)ranges, &capacity, *count + 1, sizeof **ranges)) {
      status = cl_binary_no_memory(&f.e.src);
      break;
    }
    (*ranges)[*count].offset = sh.offset;
    (*ranges)[*count].size = sh.size;
    ++*count;
  }
  cl_elf_file_free(&f);
  if (status != CUDALOAD_OK) {
    free(*ranges);
    *ranges = NULL;
    *count = 0;
  }
  return status;
}
