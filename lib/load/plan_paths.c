/* SPDX-License-Identifier: MIT */
/*
 * plan_paths.c - when two paths are one folder or one file. The plan asks
 * it of candidates (a main library's companions come from its own
 * folder), of the loader model's answers and of what a program binds;
 * apart from plan.c so that the files it was split into ask it too.
 */
#include "load/plan_paths.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"

#include <stdlib.h>
#include <string.h>

int cl_plan_same_folder(const char *a, const char *b) {
  const char *ba = cl_path_basename(a), *bb = cl_path_basename(b);
  return ba - a == bb - b && memcmp(a, b, (size_t)(ba - a)) == 0;
}

/* The folders of two files are one folder on disk, however spelt (a
 * program given through a symlinked venv). */
int cl_plan_same_folder_on_disk(const char *a, const char *b) {
  char *fa = cl_path_dirname(a), *fb = cl_path_dirname(b);
  cl_file_identity ia, ib;
  /* a folder not there is not the same one */
  int same = fa && fb && cl_os_file_identity(fa, &ia) &&
             cl_os_file_identity(fb, &ib) && ia.device == ib.device &&
             ia.inode == ib.inode;
  free(fa);
  free(fb);
  return same;
}

int cl_plan_same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return 1;
  /* a path that does not resolve: not same */
  char *ra = cl_os_real_path_quiet(a, NULL),
       *rb = cl_os_real_path_quiet(b, NULL);
  int same = ra && rb && strcmp(ra, rb) == 0;
  free(ra);
  free(rb);
  return same;
}
