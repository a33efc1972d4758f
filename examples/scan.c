/* SPDX-License-Identifier: MIT */
/* scan.c - list the CUDA libraries cudaload finds, with their versions.
 * usage: scan [ROOT...]   (ROOTs are searched before the default roots) */
#include <cudaload.h>
#include <stdio.h>

int main(int argc, char **argv) {
  cudaload_ctx *ctx = cudaload_create(0);
  if (!ctx) {
    fprintf(stderr, "cudaload_create: %s\n", cudaload_last_error());
    return 1;
  }
  for (int i = 1; i < argc; ++i)
    if (cudaload_add_root(ctx, argv[i]) != CUDALOAD_OK) {
      fprintf(stderr, "%s\n", cudaload_last_error());
      cudaload_destroy(ctx);
      return 2;
    }
  if (cudaload_scan(ctx) != CUDALOAD_OK) {
    fprintf(stderr, "scan: %s\n", cudaload_last_error());
    cudaload_destroy(ctx);
    return 1;
  }
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i) {
    const char *version = cudaload_library_version(ctx, i);
    printf("%-16s major %-3d %-12s (%s) %s\n", cudaload_library_name(ctx, i),
           cudaload_library_major(ctx, i), *version ? version : "-",
           cudaload_library_version_source(ctx, i),
           cudaload_library_path(ctx, i));
  }
  cudaload_destroy(ctx);
  return 0;
}
