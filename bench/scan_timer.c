/* SPDX-License-Identifier: MIT */
/*
 * scan_timer.c - time cudaload_scan() in-process (no process start-up in
 * the figure): runs one untimed scan to warm the page cache (and, since
 * issue 44 item 2, to be kept in the process), then N timed scans, and
 * prints min / median / max in microseconds.
 *
 * usage: scan_timer N [--cpu] [--same-context] [--no-defaults] [ROOT...]
 *   --cpu           the process's CPU time (user and system) instead of the
 *                   monotonic clock
 *   --same-context  scan one context again (cudaload_scan alone); by default
 *                   each timed scan is a new context (create, add the roots,
 *                   scan, destroy)
 */
#define _POSIX_C_SOURCE 200809L
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static clockid_t clock_used = CLOCK_MONOTONIC;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(clock_used, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: scan_timer N [--cpu] [--same-context] "
                    "[--no-defaults] [ROOT...]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  unsigned flags = 0;
  int first_root = 2, same_context = 0;
  for (; first_root < argc && argv[first_root][0] == '-'; ++first_root) {
    if (strcmp(argv[first_root], "--no-defaults") == 0)
      flags = CUDALOAD_NO_DEFAULT_ROOTS;
    else if (strcmp(argv[first_root], "--cpu") == 0)
      clock_used = CLOCK_PROCESS_CPUTIME_ID;
    else if (strcmp(argv[first_root], "--same-context") == 0)
      same_context = 1;
    else {
      fprintf(stderr, "scan_timer: unknown option %s\n", argv[first_root]);
      return 2;
    }
  }
  if (n < 1)
    n = 1;
  double *t = malloc(sizeof(double) * (size_t)n);
  size_t found = 0;
  cudaload_ctx *kept = NULL;
  for (int i = -1; i < n; ++i) {
    double start = now_us();
    cudaload_ctx *ctx = kept;
    if (!ctx) {
      ctx = cudaload_create(flags);
      for (int r = first_root; r < argc; ++r)
        cudaload_add_root(ctx, argv[r]);
    }
    if (same_context && !kept) {
      kept = ctx;
      start = now_us(); /* the scan alone */
    }
    if (cudaload_scan(ctx) != CUDALOAD_OK) {
      fprintf(stderr, "scan failed: %s\n", cudaload_last_error());
      return 1;
    }
    found = cudaload_library_count(ctx);
    if (!kept)
      cudaload_destroy(ctx);
    if (i >= 0)
      t[i] = now_us() - start;
  }
  if (kept)
    cudaload_destroy(kept);
  qsort(t, (size_t)n, sizeof *t, by_value);
  printf("libraries=%zu runs=%d min_us=%.1f median_us=%.1f max_us=%.1f\n",
         found, n, t[0], t[n / 2], t[n - 1]);
  free(t);
  return 0;
}
