/* SPDX-License-Identifier: MIT */
/*
 * scan_timer.c - time cudaload_scan() in-process (no process start-up in
 * the figure): runs one untimed scan to warm the page cache, then N timed
 * scans, and prints min / median / max in microseconds.
 *
 * usage: scan_timer N [--no-defaults] [ROOT...]
 */
#define _POSIX_C_SOURCE 200809L
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: scan_timer N [--no-defaults] [ROOT...]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  unsigned flags = 0;
  int first_root = 2;
  if (argc > 2 && strcmp(argv[2], "--no-defaults") == 0) {
    flags = CUDALOAD_NO_DEFAULT_ROOTS;
    first_root = 3;
  }
  if (n < 1)
    n = 1;
  double *t = malloc(sizeof(double) * (size_t)n);
  size_t found = 0;
  for (int i = -1; i < n; ++i) {
    double start = now_us();
    cudaload_ctx *ctx = cudaload_create(flags);
    for (int r = first_root; r < argc; ++r)
      cudaload_add_root(ctx, argv[r]);
    if (cudaload_scan(ctx) != CUDALOAD_OK) {
      fprintf(stderr, "scan failed: %s\n", cudaload_last_error());
      return 1;
    }
    found = cudaload_library_count(ctx);
    cudaload_destroy(ctx);
    if (i >= 0)
      t[i] = now_us() - start;
  }
  qsort(t, (size_t)n, sizeof *t, by_value);
  printf("libraries=%zu runs=%d min_us=%.1f median_us=%.1f max_us=%.1f\n",
         found, n, t[0], t[n / 2], t[n - 1]);
  free(t);
  return 0;
}
