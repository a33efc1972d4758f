/* SPDX-License-Identifier: MIT */
/* strutil.c - small string, path and growable-array helpers. */
#include "common/strutil.h"
#include "common/error.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cl_strndup(const char *s, size_t n) {
  char *copy = malloc(n + 1);
  if (copy) {
    memcpy(copy, s, n);
    copy[n] = '\0';
  }
  return copy;
}

char *cl_strdup(const char *s) {
  return cl_strndup(s, strlen(s));
}

static int is_separator(char c) {
  return c == '/' || c == '\\';
}

char *cl_path_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  while (la > 1 && is_separator(a[la - 1]))
    --la;
  int need_sep = la > 0 && !is_separator(a[la - 1]);
  char *out = malloc(la + (size_t)need_sep + lb + 1);
  if (!out)
    return NULL;
  memcpy(out, a, la);
  if (need_sep)
    out[la] = CL_DIR_SEP;
  memcpy(out + la + (size_t)need_sep, b, lb + 1);
  /* A relative part written with '/' ("Lib/site-packages", "nvidia/cudnn/
   * bin") takes the host's separator: Windows paths are shown with '\'
   * throughout, never "envs\A\Lib/site-packages\nvidia". */
  if (CL_DIR_SEP != '/')
    for (char *p = out + la + (size_t)need_sep; *p; ++p)
      if (*p == '/')
        *p = CL_DIR_SEP;
  return out;
}

const char *cl_path_basename(const char *path) {
  const char *base = path;
  for (const char *p = path; *p; ++p)
    if (is_separator(*p) && p[1])
      base = p + 1;
  return base;
}

char *cl_path_dirname(const char *path) {
  size_t n = strlen(path);
  while (n > 1 && is_separator(path[n - 1]))
    --n;
  while (n > 0 && !is_separator(path[n - 1]))
    --n;
  if (n == 0)
    return NULL;
  while (n > 1 && is_separator(path[n - 1]))
    --n;
  return cl_strndup(path, n);
}

int cl_reserve(void **items, size_t *capacity, size_t need, size_t elem_size) {
  if (need <= *capacity)
    return CUDALOAD_OK;
  size_t cap = *capacity ? *capacity : 8;
  while (cap < need) {
    if (cap > SIZE_MAX / 2 / elem_size)
      return CUDALOAD_E_NO_MEMORY;
    cap *= 2;
  }
  void *grown = realloc(*items, cap * elem_size);
  if (!grown)
    return CUDALOAD_E_NO_MEMORY;
  *items = grown;
  *capacity = cap;
  return CUDALOAD_OK;
}

int cl_starts_with_nocase(const char *s, const char *prefix) {
  for (; *prefix; ++s, ++prefix)
    if (cl_ascii_lower(*s) != cl_ascii_lower(*prefix))
      return 0;
  return 1;
}

int cl_same_nocase(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (cl_ascii_lower(a[i]) != cl_ascii_lower(b[i]))
      return 0;
  return 1;
}

int cl_ascii_equal_nocase(const char *a, const char *b) {
  for (; *a && *b; ++a, ++b)
    if (cl_ascii_lower(*a) != cl_ascii_lower(*b))
      return 0;
  return *a == *b;
}

int cl_ends_with(const char *s, const char *suffix) {
  size_t ls = strlen(s), lx = strlen(suffix);
  return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

size_t cl_quote_length(const char *s, size_t len, size_t max) {
  if (len <= max)
    return len;
  size_t n = max;
  /* s[n] continuing a character means the character starts before the cut:
   * leave all of it out. */
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
    --n;
  return n;
}

/* cl_read_file_head's reading, writing no error: *reading tells whether a
 * "no" in *no came from the read (no path in its words) or the open. */
static int read_file_head(const char *path, size_t max, char **text,
                          size_t *len, cl_os_no *no, int *reading) {
  *text = NULL;
  *len = 0;
  *reading = 0;
  cl_file *f;
  uint64_t size;
  int rc = cl_os_file_open_quiet(path, &f, &size, no);
  if (rc)
    return rc;
  size_t n = size < max ? (size_t)size : max;
  char *buf = malloc(n + 1);
  if (!buf) {
    cl_os_file_close(f);
    no->status = CUDALOAD_E_NO_MEMORY;
    no->from_os = 0;
    no->what = NULL; /* as before: no words of its own */
    *reading = -1;
    return CUDALOAD_E_NO_MEMORY;
  }
  *reading = 1;
  rc = n ? cl_os_file_read_at_quiet(f, 0, buf, n, no) : CUDALOAD_OK;
  cl_os_file_close(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return CUDALOAD_OK;
}

int cl_read_file_head_quiet(const char *path, size_t max, char **text,
                            size_t *len) {
  cl_os_no no;
  int reading;
  return read_file_head(path, max, text, len, &no, &reading);
}

int cl_read_file_head(const char *path, size_t max, char **text, size_t *len) {
  cl_os_no no;
  int reading;
  int rc = read_file_head(path, max, text, len, &no, &reading);
  if (rc == CUDALOAD_OK || reading < 0)
    return rc;
  return cl_fail_os_no(rc, &no, reading ? NULL : path);
}

typedef struct name_collector {
  cl_name_list *list;
  cl_name_filter keep;
  const void *arg;
  int failed;
} name_collector;

static int collect_name(const char *name, cl_file_kind kind, void *opaque) {
  (void)kind;
  name_collector *c = opaque;
  cl_name_list *l = c->list;
  if (!c->keep(name, c->arg))
    return 0;
  if (cl_reserve((void **)&l->names, &l->capacity, l->count + 1,
                 sizeof(char *)) ||
      !(l->names[l->count] = cl_strdup(name))) {
    c->failed = 1;
    return 1;
  }
  l->count++;
  return 0;
}

static int by_strcmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int cl_name_list_read(const char *dir, cl_name_filter keep, const void *arg,
                      int (*order)(const void *, const void *),
                      cl_name_list *list) {
  name_collector c = {list, keep, arg, 0};
  memset(list, 0, sizeof *list);
  /* Listed without asking first whether dir is a folder (a look of its
   * own at the file system): a listing of anything else fails, and gives
   * the same empty list, an answer. */
  cl_os_list_dir_quiet(dir, collect_name, &c, NULL);
  if (list->count > 1)
    qsort(list->names, list->count, sizeof(char *), order ? order : by_strcmp);
  return c.failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}

void cl_name_list_free(cl_name_list *list) {
  for (size_t i = 0; i < list->count; ++i)
    free(list->names[i]);
  free(list->names);
  memset(list, 0, sizeof *list);
}

char *cl_strdup_printf(const char *fmt, ...) {
  /* Most results (paths, short reasons) fit the stack buffer: formatted
   * once, not measured first and formatted again (the loader model makes
   * one per folder and name it tries). */
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  char *out = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!out)
    return NULL;
  if ((size_t)n < sizeof small) {
    memcpy(out, small, (size_t)n + 1);
    return out;
  }
  va_start(ap, fmt);
  vsnprintf(out, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return out;
}
