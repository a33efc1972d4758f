/* SPDX-License-Identifier: MIT */
/* A program that uses libcudaload the way an outside project would: only the
 * installed header and library, found by find_package(cudaload) or
 * pkg-config. It prints the library's version and how many libraries a scan
 * of the folders given on the command line found (default roots off).
 *
 *   consumer [DIR]...
 *
 * Output: "cudaload VERSION" then "libraries N"; exit 0 on success. */
#include <cudaload.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  cudaload_ctx *ctx;
  int status;
  int i;

  printf("cudaload %s\n", cudaload_version_string());
  if (cudaload_version_number() != CUDALOAD_VERSION_NUMBER) {
    fprintf(stderr, "consumer: header version %d, library version %u\n",
            CUDALOAD_VERSION_NUMBER, cudaload_version_number());
    return 1;
  }
  ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  if (ctx == NULL) {
    fprintf(stderr, "consumer: cudaload_create: %s\n", cudaload_last_error());
    return 1;
  }
  for (i = 1; i < argc; i++) {
    status = cudaload_add_root(ctx, argv[i]);
    if (status != CUDALOAD_OK) {
      fprintf(stderr, "consumer: cudaload_add_root(%s): %s\n", argv[i],
              cudaload_strerror(status));
      cudaload_destroy(ctx);
      return 1;
    }
  }
  status = cudaload_scan(ctx);
  if (status != CUDALOAD_OK) {
    fprintf(stderr, "consumer: cudaload_scan: %s: %s\n",
            cudaload_strerror(status), cudaload_last_error());
    cudaload_destroy(ctx);
    return 1;
  }
  printf("libraries %lu\n", (unsigned long)cudaload_library_count(ctx));
  cudaload_destroy(ctx);
  return 0;
}
