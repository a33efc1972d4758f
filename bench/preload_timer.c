/* SPDX-License-Identifier: MIT */
/*
 * preload_timer.c - one preload, measured in a fresh process:
 *   preload_timer cudaload DIR SPEC   cudaload_preload() of SPEC from DIR
 *   preload_timer bare FILE...        dlopen(RTLD_NOW|RTLD_LOCAL) of FILEs in
 *                                     order (the floor: what any preload
 *                                     must at least do)
 * Prints "wall_ms=... cpu_ms=... maxrss_mb=...". The wall time covers
 * everything from the first call to the last load (for cudaload: create,
 * scan, plan, load); the CPU time (user + system) is the whole process's,
 * its start included, which is the same for every mode: on a shared machine
 * it is the steadier figure of what a preload costs.
 */
#define _GNU_SOURCE
#include "cudaload.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: preload_timer cudaload DIR SPEC | bare FILE...\n");
    return 2;
  }
  double start = now_ms();
  if (strcmp(argv[1], "cudaload") == 0 && argc == 4) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
    cudaload_add_root(ctx, argv[2]);
    cudaload_require(ctx, argv[3]);
    if (cudaload_preload(ctx, 0) != CUDALOAD_OK) {
      fprintf(stderr, "%s\n", cudaload_last_error());
      return 1;
    }
    cudaload_destroy(ctx);
  } else if (strcmp(argv[1], "bare") == 0) {
    for (int i = 2; i < argc; ++i)
      if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
      }
  } else {
    return 2;
  }
  double elapsed = now_ms() - start;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
  printf("wall_ms=%.2f cpu_ms=%.2f maxrss_mb=%.1f\n", elapsed, cpu,
         (double)ru.ru_maxrss / 1024);
  return 0;
}
