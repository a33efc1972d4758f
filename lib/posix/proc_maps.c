/* SPDX-License-Identifier: MIT */
/* proc_maps.c - /proc/PID/maps lines (proc_maps.h). */
#include "posix/proc_maps.h"
#include "cudaload.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

/* A cursor over one line. */
typedef struct cursor {
  const char *p, *end;
} cursor;

static int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* A number in base 16 or 10, at most 16 hex or 19 decimal digits (what a
 * 64-bit value needs; the kernel pads hex to 8 or more), stopping at the
 * first other character. */
static int read_number(cursor *c, int base, uint64_t *out) {
  uint64_t v = 0;
  int digits = 0, max = base == 16 ? 16 : 19;
  while (c->p < c->end) {
    int d = base == 16 ? hex_digit(*c->p)
                       : (*c->p >= '0' && *c->p <= '9' ? *c->p - '0' : -1);
    if (d < 0)
      break;
    if (++digits > max)
      return 0;
    v = v * (uint64_t)base + (uint64_t)d;
    ++c->p;
  }
  *out = v;
  return digits > 0;
}

static int expect(cursor *c, char ch) {
  if (c->p >= c->end || *c->p != ch)
    return 0;
  ++c->p;
  return 1;
}

/* One or more spaces (the kernel pads the path column with spaces). */
static int spaces(cursor *c) {
  const char *start = c->p;
  while (c->p < c->end && *c->p == ' ')
    ++c->p;
  return c->p > start;
}

static int maps_malformed(const char *field) {
  return cl_fail(CUDALOAD_E_MALFORMED, "maps line: %s", field);
}

/* The path field [p, end), \012 read back as a newline. */
static char *unescape_path(const char *p, const char *end) {
  char *out = malloc((size_t)(end - p) + 1);
  if (!out)
    return NULL;
  size_t n = 0;
  while (p < end) {
    if (end - p >= 4 && p[0] == '\\' && p[1] == '0' && p[2] == '1' &&
        p[3] == '2') {
      out[n++] = '\n';
      p += 4;
    } else {
      out[n++] = *p++;
    }
  }
  out[n] = '\0';
  return out;
}

int cl_maps_parse_line(const char *line, size_t len, cl_maps_entry *out) {
  memset(out, 0, sizeof *out);
  if (memchr(line, '\0', len))
    return maps_malformed("a NUL byte");
  cursor c = {line, line + len};
  uint64_t offset, major, minor;
  if (!read_number(&c, 16, &out->start) || !expect(&c, '-') ||
      !read_number(&c, 16, &out->end) || out->end < out->start)
    return maps_malformed("the address range");
  if (!spaces(&c))
    return maps_malformed("the permissions");
  for (int i = 0; i < 4; ++i)
    if (c.p >= c.end || !strchr("rwxps-", *c.p++))
      return maps_malformed("the permissions");
  if (!spaces(&c) || !read_number(&c, 16, &offset))
    return maps_malformed("the offset");
  if (!spaces(&c) || !read_number(&c, 16, &major) || !expect(&c, ':') ||
      !read_number(&c, 16, &minor) || major > 0xFFFFFFFFu ||
      minor > 0xFFFFFFFFu)
    return maps_malformed("the device");
  out->dev_major = (unsigned long)major;
  out->dev_minor = (unsigned long)minor;
  if (!spaces(&c) || !read_number(&c, 10, &out->inode))
    return maps_malformed("the inode");
  if (c.p == c.end)
    return CUDALOAD_OK; /* anonymous memory: no path column */
  if (!spaces(&c))
    return maps_malformed("the path");
  /* Only a path names a file; [heap], [vdso], [anon:...] and an empty
   * column do not. */
  if (c.p == c.end || *c.p != '/')
    return CUDALOAD_OK;
  const char *end = c.end;
  static const char mark[] = " (deleted)";
  size_t mark_len = sizeof mark - 1;
  if ((size_t)(end - c.p) > mark_len &&
      memcmp(end - mark_len, mark, mark_len) == 0) {
    out->deleted_mark = 1;
    end -= mark_len;
  }
  out->path = unescape_path(c.p, end);
  if (!out->path)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "maps line: out of memory");
  return CUDALOAD_OK;
}

int cl_maps_parse(const char *text, size_t len, cl_maps_visitor visit,
                  void *opaque) {
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = eol ? eol : end;
    cl_maps_entry entry;
    int rc = cl_maps_parse_line(p, (size_t)(line_end - p), &entry);
    if (rc)
      return rc;
    if (visit(&entry, opaque))
      return CUDALOAD_OK;
    p = eol ? eol + 1 : end;
  }
  return CUDALOAD_OK;
}

void cl_maps_entry_free(cl_maps_entry *entry) {
  if (entry) {
    free(entry->path);
    entry->path = NULL;
  }
}
