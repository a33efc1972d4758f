/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pe.c - libFuzzer target: the PE readers (headers, import directory,
 * VERSIONINFO resource; exports, forwarders and imported functions) on a
 * memory buffer.
 */
#include "binary/binary.h"
#include "binary/binary_symbols.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cl_memory_source src = {data, size};
  cl_reader r = cl_reader_from_memory(&src);
  cl_binary_info info;
  cl_binary_symbols symbols;
  if (cl_pe_parse(&r, "fuzz.dll", &info) == 0) {
    size_t n = strlen(info.machine_name) + strlen(info.file_version);
    for (size_t i = 0; i < info.needed_count; ++i)
      n += strlen(info.needed[i]);
    if (n == (size_t)-1)
      abort();
    cl_binary_info_free(&info);
  }
  if (cl_pe_read_symbols(&r, "fuzz.dll", &symbols) == 0) {
    size_t n = 0;
    for (size_t i = 0; i < symbols.def_count; ++i)
      n += strlen(symbols.defs[i].name) +
           (symbols.defs[i].forward ? strlen(symbols.defs[i].forward) : 0);
    for (size_t i = 0; i < symbols.ref_count; ++i)
      n += strlen(symbols.refs[i].name) + strlen(symbols.refs[i].file);
    if (n == (size_t)-1 || symbols.version_count || symbols.need_count)
      abort();
    cl_binary_symbols_free(&symbols);
  }
  return 0;
}
