/* SPDX-License-Identifier: MIT */
/*
 * binary_names.c - the library names a file holds as text: what it may
 * open by name at run time (dlopen / LoadLibrary), which no DT_NEEDED or
 * import table tells. cuDNN 9's shim holds "libcudnn_ops.so" and adds the
 * version itself; its sub-libraries hold "libcublasLt.so.13" and
 * "libnvrtc.so.13" (docs/real-libraries.md). The file is only read, in
 * bounded windows, and searched for the suffixes ".so" and ".dll" (ASCII,
 * and UTF-16LE: Windows programs often call LoadLibraryW) with memmem;
 * each hit is widened to the name around it. A CUDA library can be half a
 * gigabyte, so the search is for the rare suffix, not byte by byte.
 */
#include "binary/binary_names.h"

#include "cudaload.h"
#include "binary/elf_sections.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)4 << 20)
#define MAX_NAME 128
/* Context kept on each side of a window: a name (UTF-16: twice its bytes)
 * that straddles two windows is whole in one of them. */
#define OVERLAP (2 * MAX_NAME + 16)

static int name_char(unsigned c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' || c == '+';
}

/* The character at index k of a name of `width` bytes per character (1:
 * ASCII, 2: UTF-16LE, whose high byte must be 0), or 0 when there is none
 * or it is not a name character. */
static unsigned char_at(const unsigned char *p, size_t len, size_t at,
                        int width) {
  if (at + (size_t)width > len)
    return 0;
  if (width == 2 && p[at + 1] != 0)
    return 0;
  return name_char(p[at]) ? p[at] : 0;
}

/* A hit of a suffix at byte `hit` of the window: widen it to the whole
 * name and visit it when it looks like a library's file name. */
static int visit_hit(const unsigned char *w, size_t len, size_t hit, int width,
                     cl_name_visitor visit, void *opaque) {
  size_t start = hit;
  size_t chars = 0;
  while (start >= (size_t)width && chars < MAX_NAME &&
         char_at(w, len, start - (size_t)width, width)) {
    start -= (size_t)width;
    chars++;
  }
  size_t end = hit;
  while (chars < MAX_NAME && char_at(w, len, end, width)) {
    end += (size_t)width;
    chars++;
  }
  if (chars >= MAX_NAME)
    return 0; /* a run of text, not a name */
  char name[MAX_NAME + 1];
  size_t n = 0;
  for (size_t at = start; at < end; at += (size_t)width)
    name[n++] = (char)w[at];
  name[n] = '\0';
  /* Linux: lib*.so[.N...]; Windows: *.dll, either case. */
  int library = 0;
  if (n > 6 && strncmp(name, "lib", 3) == 0) {
    const char *so = strstr(name, ".so");
    library = so && (so[3] == '\0' || so[3] == '.');
    for (const char *p = so ? so + 3 : ""; library && *p; ++p)
      library = *p == '.' || (*p >= '0' && *p <= '9');
  }
  if (n > 4 &&
      (strcmp(name + n - 4, ".dll") == 0 || strcmp(name + n - 4, ".DLL") == 0))
    library = 1;
  return library ? visit(name, opaque) : 0;
}

/* The first occurrence of needle in [p, p + len), or NULL: memchr for its
 * last non-zero byte ('o', 'l' or 'L' here: rarer than the '.' the
 * suffixes start with, and far rarer than the zero bytes of UTF-16 and of
 * binaries), then a compare. ISO C has no memmem. */
static const unsigned char *find(const unsigned char *p, size_t len,
                                 const char *needle, size_t nlen) {
  if (nlen == 0 || len < nlen)
    return NULL;
  size_t k = nlen - 1;
  while (k > 0 && needle[k] == 0)
    --k;
  unsigned char key = (unsigned char)needle[k];
  const unsigned char *at = p + k, *end = p + len - (nlen - 1 - k);
  while (at < end) {
    const unsigned char *hit = memchr(at, key, (size_t)(end - at));
    if (!hit)
      return NULL;
    if (memcmp(hit - k, needle, nlen) == 0)
      return hit - k;
    at = hit + 1;
  }
  return NULL;
}

/* Every occurrence of needle (nlen bytes) that starts in [from, to) of the
 * window. */
static int search(const unsigned char *w, size_t len, size_t from, size_t to,
                  const char *needle, size_t nlen, int width,
                  cl_name_visitor visit, void *opaque) {
  size_t at = from;
  while (at < to && at + nlen <= len) {
    const unsigned char *hit = find(w + at, len - at, needle, nlen);
    if (!hit)
      return 0;
    size_t pos = (size_t)(hit - w);
    if (pos >= to)
      return 0;
    int rc = visit_hit(w, len, pos, width, visit, opaque);
    if (rc)
      return rc;
    at = pos + 1;
  }
  return 0;
}

static int read_plain(void *opaque, uint64_t offset, void *buf, size_t len) {
  return cl_os_file_read_at(opaque, offset, buf, len);
}

static const struct {
  const char *needle;
  size_t len;
  int width;
} suffixes[] = {{".so", 3, 1},          {".dll", 4, 1},
                {".DLL", 4, 1},         {".\0s\0o\0", 6, 2},
                {".\0d\0l\0l\0", 8, 2}, {".\0D\0L\0L\0", 8, 2}};

/* Search [start, start + size) of the file in windows. */
static int scan_range(cl_file *f, uint64_t start, uint64_t size,
                      unsigned char *window, cl_name_visitor visit,
                      void *opaque) {
  int rc = 0;
  uint64_t stop = start + size;
  for (uint64_t offset = start; !rc && offset < stop; offset += CHUNK) {
    /* The window: the chunk with OVERLAP bytes of context on each side
     * (inside the range); hits are taken only inside the chunk, so none is
     * seen twice. */
    uint64_t begin = offset - start > OVERLAP ? offset - OVERLAP : start;
    uint64_t end = offset + CHUNK + OVERLAP;
    if (end > stop)
      end = stop;
    size_t len = (size_t)(end - begin);
    rc = cl_os_file_read_at(f, begin, window, len);
    size_t from = (size_t)(offset - begin);
    size_t to = from + CHUNK;
    for (size_t s = 0; !rc && s < sizeof suffixes / sizeof *suffixes; ++s)
      rc = search(window, len, from, to, suffixes[s].needle, suffixes[s].len,
                  suffixes[s].width, visit, opaque);
  }
  return rc;
}

int cl_binary_names(const char *path, uint64_t max_bytes, cl_name_visitor visit,
                    void *opaque) {
  cl_file *f;
  uint64_t size;
  int rc = cl_os_file_open(path, &f, &size);
  if (rc)
    return rc;
  /* An ELF file's names are in its read-only data sections: only those are
   * read (a few MB of a 500 MB library). Anything else, or an ELF file
   * without section headers, is searched whole, within max_bytes. */
  cl_reader reader = {size, read_plain, f};
  cl_file_range *ranges = NULL;
  size_t range_count = 0;
  /* Not ELF, or no sections: an answer (search it whole), not a failure. */
  char *saved = cl_save_error();
  int no_ranges = cl_elf_rodata_ranges(&reader, path, &ranges, &range_count);
  cl_restore_error(saved);
  if (no_ranges != CUDALOAD_OK || range_count == 0) {
    free(ranges);
    ranges = NULL;
    range_count = 0;
  }
  if (!ranges && size > max_bytes) {
    cl_os_file_close(f);
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: %llu bytes, more than the %llu read for names", path,
                   (unsigned long long)size, (unsigned long long)max_bytes);
  }
  unsigned char *window = malloc(CHUNK + 2 * OVERLAP);
  if (!window) {
    free(ranges);
    cl_os_file_close(f);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  }
  if (ranges) {
    for (size_t i = 0; !rc && i < range_count; ++i)
      rc = scan_range(f, ranges[i].offset, ranges[i].size, window, visit,
                      opaque);
  } else {
    rc = scan_range(f, 0, size, window, visit, opaque);
  }
  free(window);
  free(ranges);
  cl_os_file_close(f);
  return rc;
}
