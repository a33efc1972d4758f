/* toolkit_headers.c - versions from a toolkit's headers. */
#include "scan/toolkit_headers.h"
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

void cl_toolkit_headers_load(const char *include_dir, cl_toolkit_headers *out) {
  memset(out, 0, sizeof *out);
  load_three_part(include_dir, "cudnn_version.h", "CUDNN_MAJOR", "CUDNN_MINOR",
                  "CUDNN_PATCHLEVEL", &out->cudnn);
  load_three_part(include_dir, "cublas_api.h", "CUBLAS_VER_MAJOR",
                  "CUBLAS_VER_MINOR", "CUBLAS_VER_PATCH", &out->cublas);
  size_t len;
  char *path = NULL;
  char *text = read_header(include_dir, "cuda_runtime_api.h", &path, &len);
  if (text) {
    long v = cl_header_define(text, len, "CUDART_VERSION");
    free(text);
    if (v >= 1000) { /* 12040 = 12.4 */
      out->cudart.major = (int)(v / 1000);
      snprintf(out->cudart.version, sizeof out->cudart.version, "%ld.%ld",
               v / 1000, (v % 1000) / 10);
      out->cudart.header_path = path;
    } else {
      free(path);
    }
  }
}

void cl_toolkit_headers_free(cl_toolkit_headers *headers) {
  free(headers->cudnn.header_path);
  free(headers->cublas.header_path);
  free(headers->cudart.header_path);
  memset(headers, 0, sizeof *headers);
}

const cl_header_version *
cl_toolkit_headers_for(const cl_toolkit_headers *headers, const char *family) {
  const cl_header_version *v = NULL;
  if (strcmp(family, "cudnn") == 0)
    v = &headers->cudnn;
  else if (strcmp(family, "cublas") == 0)
    v = &headers->cublas;
  else if (strcmp(family, "cudart") == 0)
    v = &headers->cudart;
  return v && v->major > 0 ? v : NULL;
}
