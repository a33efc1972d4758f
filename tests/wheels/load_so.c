/* SPDX-License-Identifier: MIT */
/*
 * load_so.c - open a libcudaload.so.1 by absolute path and call into it, the
 * way the Python package opens the one in a manylinux wheel (ctypes gives
 * dlopen the package's full path). tests/wheels/check-wheels cross-compiles
 * it for aarch64 and runs it under qemu-user on the library extracted from
 * the manylinux2014_aarch64 wheel.
 *
 *   load_so /abs/path/libcudaload.so.1 [ROOT]
 *       prints "version X.Y.Z", then scans ROOT alone (default: the
 *       library's own folder) and prints "scan: N libraries".
 *
 * Only dlsym, no link against the library: what is tested is the file as a
 * user receives it. Exit status 0 on success, 1 with the reason on stderr,
 * 2 on a usage error.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef const char *(*version_string_fn)(void);
typedef void *(*create_fn)(unsigned);
typedef void (*destroy_fn)(void *);
typedef int (*ctx_path_fn)(void *, const char *);
typedef int (*ctx_fn)(void *);
typedef size_t (*count_fn)(const void *);
typedef const char *(*last_error_fn)(void);

/* From include/cudaload.h; not included, so that this file depends on
 * nothing but the library. */
#define NO_DEFAULT_ROOTS 0x1u

/* dlsym into a typed function pointer *out (copied, not cast: ISO C has no
 * conversion from void * to a function pointer). 0 when it is missing. */
static int lookup(void *library, const char *name, void *out, size_t size) {
  void *found = dlsym(library, name);
  if (!found || size != sizeof found) {
    fprintf(stderr, "load_so: dlsym(%s): %s\n", name,
            found ? "unexpected size" : dlerror());
    return 0;
  }
  memcpy(out, &found, sizeof found);
  return 1;
}
#define LOOKUP(library, var, name) lookup(library, name, &(var), sizeof(var))

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || argv[1][0] != '/') {
    fprintf(stderr, "usage: load_so /ABSOLUTE/PATH/libcudaload.so.1 [ROOT]\n");
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "load_so: dlopen: %s\n", dlerror());
    return 1;
  }
  version_string_fn version_string;
  create_fn create;
  destroy_fn destroy;
  ctx_path_fn add_root;
  ctx_fn scan;
  count_fn library_count;
  last_error_fn last_error;
  if (!LOOKUP(library, version_string, "cudaload_version_string") ||
      !LOOKUP(library, create, "cudaload_create") ||
      !LOOKUP(library, destroy, "cudaload_destroy") ||
      !LOOKUP(library, add_root, "cudaload_add_root") ||
      !LOOKUP(library, scan, "cudaload_scan") ||
      !LOOKUP(library, library_count, "cudaload_library_count") ||
      !LOOKUP(library, last_error, "cudaload_last_error"))
    return 1;
  printf("version %s\n", version_string());
  char root[4096];
  snprintf(root, sizeof root, "%s", argc == 3 ? argv[2] : argv[1]);
  if (argc == 2)
    *strrchr(root, '/') = '\0';
  void *ctx = create(NO_DEFAULT_ROOTS);
  if (!ctx || add_root(ctx, root) != 0 || scan(ctx) != 0) {
    fprintf(stderr, "load_so: scanning %s: %s\n", root, last_error());
    destroy(ctx);
    return 1;
  }
  printf("scan: %zu libraries\n", library_count(ctx));
  destroy(ctx);
  return 0;
}
