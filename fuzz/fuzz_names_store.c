/* SPDX-License-Identifier: MIT */
/*
 * fuzz_names_store.c - libFuzzer target: the names store's text
 * (binary/names_store.c), which another process, or someone else, may
 * have left in the user's cache folder. A text the parser takes must hold
 * only names a search could have found; one it refuses leaves nothing.
 */
#include "binary/names_store.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' || c == '+';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cl_names_store *s = cl_names_store_open(NULL);
  if (!s)
    return 0;
  int ok = cl_names_store_parse(s, (const char *)data, size) == 0;
  /* Ask for the stamp the first line names, when there is one: what the
   * store answers must be names, each of at most 128 characters. */
  cl_file_stamp stamp;
  memset(&stamp, 0, sizeof stamp);
  const char *nl = memchr(data, '\n', size);
  if (nl) {
    unsigned long long k[5] = {0, 0, 0, 0, 0};
    const char *p = nl + 1;
    for (int i = 0; i < 5 && p < (const char *)data + size; ++i) {
      while (p < (const char *)data + size && *p != ' ' && *p != '\n') {
        char c = *p++;
        k[i] = k[i] << 4 |
               (unsigned long long)(c >= 'a' ? c - 'a' + 10 : (c - '0') & 15);
      }
      ++p;
    }
    stamp.device = k[0];
    stamp.inode = k[1];
    stamp.size = k[2];
    stamp.mtime_ns = (int64_t)k[3];
    stamp.ctime_ns = (int64_t)k[4];
  }
  char *const *names;
  size_t count;
  if (cl_names_store_find(s, &stamp, INT64_MAX, &names, &count)) {
    if (!ok)
      abort(); /* a refused text left an entry */
    for (size_t i = 0; i < count; ++i) {
      size_t len = strlen(names[i]);
      if (len == 0 || len > 128)
        abort();
      for (size_t j = 0; j < len; ++j)
        if (!name_char(names[i][j]))
          abort();
    }
  }
  cl_names_store_free(s);
  return 0;
}
