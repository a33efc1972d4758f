/* SPDX-License-Identifier: MIT */
/*
 * child_linux.c - the program whose loading the differential tests watch
 * (tests/loader_oracle/oracle.py builds it per scenario, with the
 * scenario's link flags, and runs it under LD_DEBUG=libs,files).
 *
 * Each argument is one action, done in order:
 *   open:NAME   dlopen(NAME, RTLD_NOW | RTLD_LOCAL) from the program itself
 *               (a path, or a bare name searched as the program's own)
 *   open-global:NAME  the same with RTLD_GLOBAL, as cudaload_preload does
 *               with CUDALOAD_PRELOAD_GLOBAL (its symbols then come first
 *               for every later object)
 *   lazy:SYM    call SYM, found in an object an earlier open brought in:
 *               it makes the dlopen by name from inside its library
 * It marks the start of each on stderr ("ACTION i begin", amid LD_DEBUG's
 * lines) and prints "ACTION i ok" or "ACTION i fail REASON" for each, then
 * "MAPPED name" for every object in the process (glibc's l_name; the
 * program itself as "" is printed as its own path by the driver).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  printf("MAPPED %s\n", info->dlpi_name ? info->dlpi_name : "");
  return 0;
}

int main(int argc, char **argv) {
  void *handles[64];
  int handle_count = 0;
  setvbuf(stdout, NULL, _IONBF, 0);
  setvbuf(stderr, NULL, _IONBF, 0);
  for (int i = 1; i < argc; ++i) {
    const char *action = argv[i];
    /* On stderr, between ld.so's own LD_DEBUG lines: the driver cuts the
     * trace at these marks. */
    fprintf(stderr, "ACTION %d begin\n", i);
    int global = strncmp(action, "open-global:", 12) == 0;
    if (global || strncmp(action, "open:", 5) == 0) {
      void *h = dlopen(action + (global ? 12 : 5),
                       RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
      if (h && handle_count < 64)
        handles[handle_count++] = h;
      if (h)
        printf("ACTION %d ok\n", i);
      else
        printf("ACTION %d fail %s\n", i, dlerror());
    } else if (strncmp(action, "lazy:", 5) == 0) {
      void *(*fn)(void) = NULL;
      for (int k = 0; k < handle_count && !fn; ++k) {
        void *sym = dlsym(handles[k], action + 5);
        if (sym)
          memcpy(&fn, &sym, sizeof fn);
      }
      if (!fn) {
        printf("ACTION %d fail no symbol %s\n", i, action + 5);
        continue;
      }
      void *h = fn();
      if (h)
        printf("ACTION %d ok\n", i);
      else
        printf("ACTION %d fail %s\n", i, dlerror());
    } else {
      printf("ACTION %d fail unknown action %s\n", i, action);
    }
  }
  dl_iterate_phdr(print_object, NULL);
  return 0;
}
