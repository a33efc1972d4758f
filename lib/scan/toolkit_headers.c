/* SPDX-License-Identifier: MIT */
/* toolkit_headers.c - versions from a toolkit's headers. */
#include "scan/toolkit_headers.h"
#include "scan/catalog.h"
#include "common/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The version macros sit near the top of each header (cuda_runtime_api.h is
 * 600 KB; CUDART_VERSION is in its first 8 KB). */
#define CL_HEADER_HEAD 65536

static int is_space(char c) {
  return c == ' ' || c == '\t';
}

long cl_header_define(const char *text, size_t len, const char *name) {
  size_t name_len = strlen(name);
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
      eol = end;
    const char *q = p;
    while (q < eol && is_space(*q))
      ++q;
    if (eol - q > 7 && memcmp(q, "#define", 7) == 0) {
      q += 7;
      while (q < eol && is_space(*q))
        ++q;
      if ((size_t)(eol - q) > name_len && memcmp(q, name, name_len) == 0 &&
          is_space(q[name_len])) {
        q += name_len;
        while (q < eol && is_space(*q))
          ++q;
        long value = 0;
        int digits = 0;
        while (q < eol && *q >= '0' && *q <= '9' && digits < 9) {
          value = value * 10 + (*q - '0');
          ++q;
          ++digits;
        }
        if (digits > 0)
          return value;
      }
    }
    p = eol < end ? eol + 1 : end;
  }
  return -1;
}

static char *read_header(const char *include_dir, const char *file,
                         char **path_out, size_t *len) {
  char *path = cl_path_join(include_dir, file);
  char *text = NULL;
  if (!path || cl_read_file_head(path, CL_HEADER_HEAD, &text, len)) {
    free(path);
    return NULL;
  }
  *path_out = path;
  return text;
}

static void load_three_part(const char *include_dir, const char *file,
                            const char *major_macro, const char *minor_macro,
                            const char *patch_macro, cl_header_version *out) {
  size_t len;
  char *path = NULL;
  char *text = read_header(include_dir, file, &path, &len);
  if (!text)
    return;
  long major = cl_header_define(text, len, major_macro);
  long minor = cl_header_define(text, len, minor_macro);
  long patch = cl_header_define(text, len, patch_macro);
  free(text);
  if (major <= 0 || minor < 0 || patch < 0) {
    free(path);
    return;
  }
  out->major = (int)major;
  snprintf(out->version, sizeof out->version, "%ld.%ld.%ld", major, minor,
           patch);
  out->header_path = path;
}

/* A header whose one macro holds major * 1000 + minor * 10 (CUDART_VERSION
 * 12040 = 12.4). */
static void load_encoded(const char *include_dir, const char *file,
                         const char *macro, cl_header_version *out) {
  size_t len;
  char *path = NULL;
  char *text = read_header(include_dir, file, &path, &len);
  if (!text)
    return;
  long v = cl_header_define(text, len, macro);
  free(text);
  if (v < 1000) {
    free(path);
    return;
  }
  out->major = (int)(v / 1000);
  snprintf(out->version, sizeof out->version, "%ld.%ld", v / 1000,
           (v % 1000) / 10);
  out->header_path = path;
}

void cl_toolkit_headers_load(const char *include_dir, cl_toolkit_headers *out) {
  memset(out, 0, sizeof *out);
  out->include_dir = cl_strdup(include_dir);
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  for (size_t e = 0; e < count && out->count < CL_MAX_VERSION_HEADERS; ++e) {
    const cl_catalog_entry *entry = &all[e];
    if (!entry->version_header || entry->role != CL_ROLE_MAIN)
      continue;
    out->items[out->count++].entry = entry;
  }
}

void cl_toolkit_headers_free(cl_toolkit_headers *headers) {
  for (size_t i = 0; i < headers->count; ++i)
    free(headers->items[i].version.header_path);
  free(headers->include_dir);
  memset(headers, 0, sizeof *headers);
}

const cl_header_version *cl_toolkit_headers_for(cl_toolkit_headers *headers,
                                                const char *family) {
  for (size_t i = 0; i < headers->count; ++i) {
    const cl_catalog_entry *entry = headers->items[i].entry;
    if (strcmp(entry->family, family) != 0)
      continue;
    cl_header_version *v = &headers->items[i].version;
    if (!headers->items[i].read && headers->include_dir) {
      headers->items[i].read = 1;
      if (entry->version_macros[1])
        load_three_part(headers->include_dir, entry->version_header,
                        entry->version_macros[0], entry->version_macros[1],
                        entry->version_macros[2], v);
      else
        load_encoded(headers->include_dir, entry->version_header,
                     entry->version_macros[0], v);
    }
    return v->major > 0 ? v : NULL;
  }
  return NULL;
}
