/* SPDX-License-Identifier: MIT */
/* binary_file.c - parse an ELF or PE file on disk through the platform
 * layer's non-blocking, regular-files-only open.
 *
 * The parsers ask for many small pieces (the file header, each program
 * header, each dynamic string in 256-byte steps), mostly close together: a
 * 4 KiB read-ahead window serves them, so a cuBLAS header costs 3-4 reads
 * instead of 35. */
#include "binary/binary.h"
#include "binary/binary_file.h"
#include "binary/binary_symbols.h"
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"

#include <string.h>

static int read_from_file(void *opaque, uint64_t offset, void *buf,
                          size_t len) {
  cl_windowed_file *w = opaque;
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
   * answer form reads it, writing no error. */
  int ahead = want < len ? CUDALOAD_E_MALFORMED
                         : cl_os_file_read_at_quiet(w->file, offset, w->window,
                                                    want, NULL);
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

cl_reader cl_windowed_reader(cl_windowed_file *w, cl_file *f, uint64_t size) {
  w->file = f;
  w->size = size;
  w->start = 0;
  w->filled = 0;
  cl_reader reader = {size, read_from_file, w};
  return reader;
}

int cl_binary_read_open(cl_file *f, uint64_t size, const char *path,
                        cl_binary_info *info, cl_binary_symbols *symbols) {
  cl_windowed_file w;
  cl_reader reader = cl_windowed_reader(&w, f, size);
  if (info)
    memset(info, 0, sizeof *info);
  if (symbols)
    memset(symbols, 0, sizeof *symbols);
  int status = CUDALOAD_OK;
  if (info)
    status = cl_binary_parse(&reader, path, info);
  if (status == CUDALOAD_OK && symbols) {
    status = cl_binary_read_symbols(&reader, path, symbols);
    if (status != CUDALOAD_OK && info)
      cl_binary_info_free(info);
  }
  return status;
}

/* Opens path and runs the parser and/or the symbol reader on one reader
 * (either output may be NULL). */
static int read_file(const char *path, cl_binary_info *info,
                     cl_binary_symbols *symbols) {
  if (info)
    memset(info, 0, sizeof *info);
  if (symbols)
    memset(symbols, 0, sizeof *symbols);
  cl_file *f;
  uint64_t size;
  int status = cl_os_file_open(path, &f, &size);
  if (status)
    return status; /* the platform layer's message names the path */
  status = cl_binary_read_open(f, size, path, info, symbols);
  cl_os_file_close(f);
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

int cl_binary_parse_file_quiet(const char *path, cl_binary_info *out) {
  cl_asking a; /* the parsers fail through each cl_reader's words */
  cl_asking_begin(&a);
  int status = cl_binary_parse_file(path, out);
  cl_asking_end(&a);
  return status;
}

int cl_binary_read_symbols_file_quiet(const char *path,
                                      cl_binary_symbols *out) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_binary_read_symbols_file(path, out);
  cl_asking_end(&a);
  return status;
}

int cl_binary_inspect_file(const char *path, cl_binary_info *info,
                           cl_binary_symbols *symbols) {
  if (info == NULL || symbols == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", path);
  return read_file(path, info, symbols);
}
