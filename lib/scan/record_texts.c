/* SPDX-License-Identifier: MIT */
/* record_texts.c - the RECORDs one call reads, each once (record_texts.h). */
#include "scan/record_texts.h"
#include "cudaload.h"

#include "common/strutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* folder/distinfo/RECORD, malloc'ed. */
static char *record_path(const char *folder, const char *distinfo) {
  char *dir = cl_path_join(folder, distinfo);
  char *path = dir ? cl_path_join(dir, "RECORD") : NULL;
  free(dir);
  return path;
}

/* The held entry for path; SIZE_MAX when none. A call reads a handful of
 * RECORDs: a list is enough. */
static size_t find_held(const cl_record_texts *r, const char *path) {
  for (size_t i = 0; i < r->count; ++i)
    if (strcmp(r->held[i].path, path) == 0)
      return i;
  return SIZE_MAX;
}

const char *cl_record_text_of(cl_record_texts *r, const char *folder,
                              const char *distinfo, size_t *len, int *failed) {
  *len = 0;
  char *path = record_path(folder, distinfo);
  if (!path) {
    *failed = 1;
    return NULL;
  }
  size_t at = find_held(r, path);
  if (at != SIZE_MAX) {
    free(path);
    *len = r->held[at].len;
    return r->held[at].text;
  }
  if (cl_reserve((void **)&r->held, &r->capacity, r->count + 1,
                 sizeof *r->held)) {
    free(path);
    *failed = 1;
    return NULL;
  }
  cl_record_text t = {path, NULL, 0};
  /* no RECORD, or unreadable: it lists nothing */
  if (cl_read_file_head_quiet(path, CL_RECORD_MAX, &t.text, &t.len) !=
      CUDALOAD_OK) {
    t.text = NULL;
    t.len = 0;
  }
  r->held[r->count++] = t;
  *len = t.len;
  return t.text;
}

int cl_record_text_held(const cl_record_texts *r, const char *folder,
                        const char *distinfo) {
  char *path = record_path(folder, distinfo);
  int held = path && find_held(r, path) != SIZE_MAX;
  free(path);
  return held;
}

void cl_record_text_drop(cl_record_texts *r, const char *folder,
                         const char *distinfo) {
  char *path = record_path(folder, distinfo);
  size_t at = path ? find_held(r, path) : SIZE_MAX;
  free(path);
  if (at == SIZE_MAX)
    return;
  free(r->held[at].path);
  free(r->held[at].text);
  r->held[at] = r->held[--r->count];
}

void cl_record_texts_free(cl_record_texts *r) {
  for (size_t i = 0; i < r->count; ++i) {
    free(r->held[i].path);
    free(r->held[i].text);
  }
  free(r->held);
  memset(r, 0, sizeof *r);
}
