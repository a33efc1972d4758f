/* SPDX-License-Identifier: MIT */
/* binary_file.c - parse an ELF or PE file on disk through the platform
 * layer's non-blocking, regular-files-only open.
 *
 * The parsers ask for many small pieces (the file header, each program
 * header, each dynamic string in 256-byte steps), mostly close together: a
 * 4 KiB read-ahead window serves them, so a cuBLAS header costs 3-4 reads
 * instead of 35. */
#include "binary/binary.h"
#include "binary/binary_symbols.h"
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"

#include <string.h>

#define CL_READ_AHEAD 4096u

typedef struct windowed_file {
  cl_file *file;
  uint64_t size;
  uint64_t start; /* file offset of window[0] */
  size_t filled;  /* bytes of window that hold file data */
  unsigned char window[CL_READ_AHEAD];
} windowed_file;

static int read_from_file(void *opaque, uint64_t offset, void *buf,
                          size_t len) {
  windowed_file *w = opaque;
  if (offset >= w->start && offset - w->start <= w->filled &&
      len <= w->filled - (offset - w->start)) {
    memcpy(buf, w->window + (offset - w->start), len);
    return CUDALOAD_OK;
  }
  if (len > CL_READ_AHEAD || offset >= w->size)
    return cl_os_file_read_at(w->file, offset, buf, len);
  size_t want = w->size - offset < CL_READ_AHEAD ? (size_t)(w->size - offset)
                                                 : CL_READ_AHEAD;
  /* A read-ahead that fails is no failure of the read asked for: the
   * caller's last error is kept around it. */
  char *saved = cl_save_error();
  int ahead = want < len ? CUDALOAD_E_MALFORMED
                         : cl_os_file_read_at(w->file, offset, w->window, want);
  cl_restore_error(saved);
  if (ahead) {
    /* The file may have shrunk since it was opened: read just what was
     * asked for, so that the error (if any) is about that range. */
    w->filled = 0;
    return cl_os_file_read_at(w->file, offset, buf, len);
  }
  w->start = offset;
  w->filled = want;
  memcpy(buf, w->window, len);
  return CUDALOAD_OK;
}

/* Opens path and runs the parser and/or the symbol reader on one reader
 * (either output may be NULL). */
static int read_file(const char *path, cl_binary_info *info,
                     cl_binary_symbols *symbols) {
  windowed_file w;
  w.start = 0;
  w.filled = 0;
  if (info)
    memset(info, 0, sizeof *info);
  if (symbols)
    memset(symbols, 0, sizeof *symbols);
  int status = cl_os_file_open(path, &w.file, &w.size);
  if (status)
    return status; /* the platform layer's message names the path */
  cl_reader reader = {w.size, read_from_file, &w};
  if (info)
    status = cl_binary_parse(&reader, path, info);
  if (status == CUDALOAD_OK && symbols) {
    status = cl_binary_read_symbols(&reader, path, symbols);
    if (status != CUDALOAD_OK && info)
      cl_binary_info_free(info);
  }
  cl_os_file_close(w.file);
  return status;
}

int cl_binary_parse_file(const char *path, cl_binary_info *out) {
  return read_file(path, out, NULL);
}

int cl_binary_read_symbols_file(const char *path, cl_binary_symbols *out) {
  if (out == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", path);
  return read_file(path, NULL, out);
}

int cl_binary_inspect_file(const char *path, cl_binary_info *info,
                           cl_binary_symbols *symbols) {
  if (info == NULL || symbols == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", path);
  return read_file(path, info, symbols);
}
