/*
 * fuzz_pe.c - libFuzzer target: the PE reader (headers, import directory,
 * VERSIONINFO resource) on a memory buffer.
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
  if (cl_pe_parse(&r, "fuzz.dll", &info) == 0) {
    size_t n = strlen(info.machine_name) + strlen(info.file_version);
    for (size_t i = 0; i < info.needed_count; ++i)
      n += strlen(info.needed[i]);
    if (n == (size_t)-1)
      abort();
    cl_binary_info_free(&info);
  }
  return 0;
}
