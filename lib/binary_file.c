/* binary_file.c - parse an ELF or PE file on disk through the platform
 * layer's non-blocking, regular-files-only open. */
#include "binary.h"
#include "cudaload.h"
#include "error.h"
#include "platform.h"

#include <string.h>

static int read_from_file(void *opaque, uint64_t offset, void *buf,
                          size_t len) {
  return cl_file_read_at(opaque, offset, buf, len);
}

int cl_binary_parse_file(const char *path, cl_binary_info *out) {
  memset(out, 0, sizeof *out);
  cl_file *file;
  uint64_t size;
  int status = cl_file_open(path, &file, &size);
  if (status)
    return status; /* the platform layer's message names the path */
  cl_reader reader = {size, read_from_file, file};
  status = cl_binary_parse(&reader, path, out);
  cl_file_close(file);
  return status;
}
