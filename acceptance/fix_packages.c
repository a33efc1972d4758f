/* SPDX-License-Identifier: MIT */
/*
 * acceptance/fix_packages.c - print every PyPI distribution a fix line can
 * name (lib/load/fix_lines.c), one "family cuda_major package" line each, so
 * that scripts/acceptance can ask the index whether each exists and is not
 * a 0.0.x placeholder. Built against the static library (the lister is
 * internal), without cmocka.
 */
#include "load/fix_lines.h"

#include <stdio.h>

static void print(const char *family, int cuda_major, const char *package,
                  void *opaque) {
  (void)opaque;
  printf("%s %d %s\n", family, cuda_major, package);
}

int main(void) {
  cl_fix_packages_each(print, NULL);
  return 0;
}
