/*
 * fuzz_elf.c - libFuzzer target: the ELF reader on a memory buffer.
 * Every input must give a status (never a crash, a hang or a leak); a
 * success must leave every string non-NULL.
 */
#include "binary.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cl_memory_source src = {data, size};
  cl_reader r = cl_reader_from_memory(&src);
  cl_binary_info info;
  if (cl_elf_parse(&r, "fuzz.so", &info) == 0) {
    /* Touch what a caller reads. */
    size_t n = strlen(info.machine_name) + strlen(info.soname) +
               strlen(info.runpath) + strlen(info.rpath);
    for (size_t i = 0; i < info.needed_count; ++i)
      n += strlen(info.needed[i]);
    if (n == (size_t)-1)
      abort();
    cl_binary_info_free(&info);
  }
  return 0;
}
