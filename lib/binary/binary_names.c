/* SPDX-License-Identifier: MIT */
/*
 * binary_names.c - the library names a file holds as text: what it may
 * open by name at run time (dlopen / LoadLibrary), which no DT_NEEDED or
 * import table tells. cuDNN 9's shim holds "libcudnn_ops.so" and adds the
 * version itself; its sub-libraries hold "libcublasLt.so.13" and
 * "libnvrtc.so.13" (docs/real-libraries.md). The file is only read, in
 * bounded windows, and only where such names can be: an ELF file's
 * read-only data (.rodata*, .lrodata*: cuFFT 12 keeps its names in
 * .lrodata), a PE image's .rdata, _RDATA and .data. Anything else is read
 * whole. Each window is searched once for the '.' every suffix starts with
 * (".so" and ".dll", ASCII and UTF-16LE: Windows programs often call
 * LoadLibraryW); each hit is widened to the name around it. A CUDA library
 * can be half a gigabyte, so the search is for the rare byte, not for
 * each suffix in turn.
 */
#include "binary/binary_names.h"

#include "binary/binary_file.h"

#include "binary/elf_sections.h"
#include "binary/pe_sections.h"
#include "common/error.h"
#include "common/strutil.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stdlib.h>
#include <string.h>

/* Names are visited suffix by suffix within a chunk (all ".so" hits, then
 * ".dll", ...), as they always were, so the chunk size is part of the order
 * callers see and stays 4 MiB. A chunk is read in windows of READ bytes,
 * through one buffer per search (a reader that keeps one, the file cache,
 * reuses it): what is read is searched while it is still in the CPU's
 * cache, and no 4 MiB buffer is made and touched for each file. */
#define CHUNK ((size_t)4 << 20)
#define READ ((size_t)1 << 20)
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
 * name; 1 with it in name when it looks like a library's file name. */
static int name_at(const unsigned char *w, size_t len, size_t hit, int width,
                   char name[MAX_NAME + 1]) {
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
  return library;
}

static const struct {
  const char *needle;
  size_t len;
  int width;
} suffixes[] = {{".so", 3, 1},          {".dll", 4, 1},
                {".DLL", 4, 1},         {".\0s\0o\0", 6, 2},
                {".\0d\0l\0l\0", 8, 2}, {".\0D\0L\0L\0", 8, 2}};
#define SUFFIX_COUNT (sizeof suffixes / sizeof *suffixes)

/* The names one suffix's hits gave in a chunk, in order: "\0"-separated
 * in text. */
typedef struct name_list {
  char *text;
  size_t used, capacity;
} name_list;

struct cl_names_scratch {
  unsigned char *window; /* READ bytes and OVERLAP on each side */
  name_list found[SUFFIX_COUNT];
};

/* The names of every hit of every suffix that starts in [from, to) of the
 * window, each added to its suffix's list: one pass for '.', then each
 * suffix's hits in order, as a search per suffix would meet them. */
static int search_window(const unsigned char *w, size_t len, size_t from,
                         size_t to, name_list found[SUFFIX_COUNT]) {
  size_t at = from;
  while (at < to) {
    const unsigned char *dot = memchr(w + at, '.', to - at);
    if (!dot)
      break;
    size_t pos = (size_t)(dot - w);
    /* Every suffix goes on with 's', 'd' or 'D', right after the dot or
     * (UTF-16) after a zero byte: most dots in binary data are passed over
     * on those two tests. */
    unsigned char next = pos + 1 < len ? w[pos + 1] : 0xff;
    unsigned char letter = next == 0 && pos + 2 < len ? w[pos + 2] : next;
    if (letter != 's' && letter != 'd' && letter != 'D') {
      at = pos + 1;
      continue;
    }
    for (size_t s = 0; s < SUFFIX_COUNT; ++s) {
      char name[MAX_NAME + 1];
      if (pos + suffixes[s].len > len ||
          memcmp(w + pos, suffixes[s].needle, suffixes[s].len) != 0 ||
          !name_at(w, len, pos, suffixes[s].width, name))
        continue;
      size_t n = strlen(name) + 1;
      if (cl_reserve((void **)&found[s].text, &found[s].capacity,
                     found[s].used + n, 1))
        return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
      memcpy(found[s].text + found[s].used, name, n);
      found[s].used += n;
    }
    at = pos + 1;
  }
  return 0;
}

/* Visit a chunk's names, suffix by suffix, and empty the lists. */
static int visit_found(name_list found[SUFFIX_COUNT], cl_name_visitor visit,
                       void *opaque) {
  int rc = 0;
  for (size_t s = 0; s < SUFFIX_COUNT; ++s) {
    for (size_t at = 0; !rc && at < found[s].used;
         at += strlen(found[s].text + at) + 1)
      rc = visit(found[s].text + at, opaque);
    found[s].used = 0;
  }
  return rc;
}

/* Search [start, start + size) of the file, chunk by chunk, each chunk in
 * windows of READ bytes. */
static int scan_range(cl_file *f, uint64_t start, uint64_t size,
                      cl_names_scratch *scratch, cl_name_visitor visit,
                      void *opaque) {
  int rc = 0;
  uint64_t stop = start + size;
  for (uint64_t chunk = start; !rc && chunk < stop; chunk += CHUNK) {
    uint64_t chunk_end = chunk + CHUNK < stop ? chunk + CHUNK : stop;
    for (uint64_t offset = chunk; !rc && offset < chunk_end; offset += READ) {
      /* The window: READ bytes with OVERLAP bytes of context on each side
       * (inside the range), wider than any name the search widens a hit
       * to; hits are taken only inside the READ bytes, so none is seen
       * twice. */
      uint64_t begin = offset - start > OVERLAP ? offset - OVERLAP : start;
      uint64_t end = offset + READ + OVERLAP;
      if (end > stop)
        end = stop;
      size_t len = (size_t)(end - begin);
      rc = cl_os_file_read_at(f, begin, scratch->window, len);
      size_t from = (size_t)(offset - begin);
      uint64_t hits_end = offset + READ < chunk_end ? offset + READ : chunk_end;
      size_t to = (size_t)(hits_end - begin);
      if (!rc)
        rc = search_window(scratch->window, len, from, to, scratch->found);
    }
    if (rc) {
      for (size_t s = 0; s < SUFFIX_COUNT; ++s)
        scratch->found[s].used = 0;
    } else {
      rc = visit_found(scratch->found, visit, opaque);
    }
  }
  return rc;
}

cl_names_scratch *cl_names_scratch_new(void) {
  cl_names_scratch *s = calloc(1, sizeof *s);
  if (s && !(s->window = malloc(READ + 2 * OVERLAP))) {
    free(s);
    s = NULL;
  }
  return s;
}

void cl_names_scratch_free(cl_names_scratch *s) {
  if (!s)
    return;
  for (size_t i = 0; i < SUFFIX_COUNT; ++i)
    free(s->found[i].text);
  free(s->window);
  free(s);
}

int cl_binary_name_ranges(cl_file *f, uint64_t size, const char *path,
                          cl_file_range **ranges, size_t *count) {
  *ranges = NULL;
  *count = 0;
  /* The section table and names in small pieces, through a window. */
  cl_windowed_file *w = malloc(sizeof *w);
  if (!w)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  cl_reader reader = cl_windowed_reader(w, f, size);
  unsigned char head[4];
  /* Neither ELF nor PE, or no sections: an answer (search it whole), not a
   * failure. */
  cl_asking unsectioned; /* no sections: the file is searched whole */
  cl_asking_begin(&unsectioned);
  cl_binary_format format =
      size >= sizeof head && reader.read_at(reader.opaque, 0, head, 4) == 0
          ? cl_binary_sniff(head, sizeof head)
          : CL_FORMAT_UNKNOWN;
  int status = format == CL_FORMAT_ELF
                   ? cl_elf_rodata_ranges(&reader, path, ranges, count)
               : format == CL_FORMAT_PE
                   ? cl_pe_data_ranges(&reader, path, ranges, count)
                   : CUDALOAD_E_UNSUPPORTED;
  cl_asking_end(&unsectioned);
  free(w);
  if (status == CUDALOAD_E_NO_MEMORY)
    return cl_fail(status, "%s: out of memory", path);
  if (status != CUDALOAD_OK || *count == 0) {
    free(*ranges);
    *ranges = NULL;
    *count = 0;
  }
  return CUDALOAD_OK;
}

int cl_binary_names_in(cl_file *f, uint64_t size, const char *path,
                       uint64_t max_bytes, cl_names_scratch *scratch,
                       cl_name_visitor visit, void *opaque) {
  cl_file_range *ranges = NULL;
  size_t range_count = 0;
  int rc = cl_binary_name_ranges(f, size, path, &ranges, &range_count);
  if (rc)
    return rc;
  cl_file_range whole = {0, size};
  if (!ranges && size > max_bytes)
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: %llu bytes, more than the %llu read for names", path,
                   (unsigned long long)size, (unsigned long long)max_bytes);
  const cl_file_range *list = ranges ? ranges : &whole;
  size_t list_count = ranges ? range_count : 1;
  cl_names_scratch *own = NULL;
  if (!scratch && !(scratch = own = cl_names_scratch_new())) {
    free(ranges);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  }
  for (size_t i = 0; !rc && i < list_count; ++i)
    rc = scan_range(f, list[i].offset, list[i].size, scratch, visit, opaque);
  cl_names_scratch_free(own);
  free(ranges);
  return rc;
}

int cl_binary_names(const char *path, uint64_t max_bytes, cl_name_visitor visit,
                    void *opaque) {
  cl_file *f;
  uint64_t size;
  int rc = cl_os_file_open(path, &f, &size);
  if (rc)
    return rc;
  rc = cl_binary_names_in(f, size, path, max_bytes, NULL, visit, opaque);
  cl_os_file_close(f);
  return rc;
}
