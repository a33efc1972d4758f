/* SPDX-License-Identifier: MIT */
/*
 * load_dll.c - load a cudaload.dll by absolute path and call into it, the
 * way a Windows Python loads the one in the win_amd64 wheel (ctypes gives
 * LoadLibrary the package's full path). tests/wheels/check-wheels
 * cross-compiles it with mingw-w64 and runs it under Wine on the DLL
 * extracted from the wheel.
 *
 *   load_dll.exe C:\abs\path\cudaload.dll          prints "version X.Y.Z"
 *   load_dll.exe C:\abs\path\cudaload.dll --probe  also runs the probe out
 *       of process: the DLL starts cudaload.exe from its own folder, so this
 *       fails when the wheel lacks it. Prints "probe: <summary>".
 *
 * Only GetProcAddress, no import library: what is tested is the DLL as a
 * user receives it. Exit status 0 on success, 1 with the reason on stderr,
 * 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

typedef const char *(*version_string_fn)(void);
typedef void *(*create_fn)(unsigned);
typedef void (*destroy_fn)(void *);
typedef int (*probe_run_fn)(void *, unsigned, double, void **);
typedef const char *(*probe_summary_fn)(const void *);
typedef void (*probe_free_fn)(void *);
typedef const char *(*last_error_fn)(void);

/* Values from include/cudaload.h; not included, so that this file depends on
 * nothing but the DLL. */
#define NO_DEFAULT_ROOTS 0x1u
#define PROBE_OUT_OF_PROCESS 0x1u

/* GetProcAddress into a typed function pointer *out. The FARPROC is copied
 * rather than cast: a cast between function pointer types is what
 * -Wcast-function-type warns about. 0 when the DLL lacks the name. */
static int lookup(HMODULE dll, const char *name, void *out, size_t size) {
  FARPROC found = GetProcAddress(dll, name);
  if (!found || size != sizeof found) {
    fprintf(stderr, "load_dll: GetProcAddress(%s) failed (error %lu)\n", name,
            (unsigned long)GetLastError());
    return 0;
  }
  memcpy(out, &found, sizeof found);
  return 1;
}
#define LOOKUP(dll, var, name) lookup(dll, name, &(var), sizeof(var))

static int run_probe(HMODULE dll) {
  create_fn create;
  destroy_fn destroy;
  probe_run_fn probe_run;
  probe_summary_fn summary;
  probe_free_fn probe_free;
  last_error_fn last_error;
  if (!LOOKUP(dll, create, "cudaload_create") ||
      !LOOKUP(dll, destroy, "cudaload_destroy") ||
      !LOOKUP(dll, probe_run, "cudaload_probe_run") ||
      !LOOKUP(dll, summary, "cudaload_probe_summary") ||
      !LOOKUP(dll, probe_free, "cudaload_probe_free") ||
      !LOOKUP(dll, last_error, "cudaload_last_error"))
    return 1;
  void *ctx = create(NO_DEFAULT_ROOTS);
  if (!ctx) {
    fprintf(stderr, "load_dll: cudaload_create: %s\n", last_error());
    return 1;
  }
  void *probe = NULL;
  int status = probe_run(ctx, PROBE_OUT_OF_PROCESS, 60.0, &probe);
  if (status != 0) {
    fprintf(stderr, "load_dll: cudaload_probe_run returned %d: %s\n", status,
            last_error());
    destroy(ctx);
    return 1;
  }
  printf("probe: %s\n", summary(probe));
  probe_free(probe);
  destroy(ctx);
  return 0;
}

int wmain(int argc, wchar_t **argv) {
  int probe = argc == 3 && wcscmp(argv[2], L"--probe") == 0;
  if (argc != 2 && !probe) {
    fprintf(stderr,
            "usage: load_dll ABSOLUTE_PATH_OF_cudaload.dll [--probe]\n");
    return 2;
  }
  /* By absolute path only: a bare name would let the search order pick some
   * other cudaload.dll, and the test would prove nothing about the wheel's. */
  const wchar_t *path = argv[1];
  int absolute =
      (path[0] && path[1] == L':' && (path[2] == L'\\' || path[2] == L'/')) ||
      (path[0] == L'\\' && path[1] == L'\\');
  if (!absolute) {
    fprintf(stderr, "load_dll: %ls: not an absolute path\n", path);
    return 2;
  }
  /* No "cannot find DLL" dialog box: an error code instead. */
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  HMODULE dll = LoadLibraryW(path);
  if (!dll) {
    fprintf(stderr, "load_dll: LoadLibraryW(%ls) failed (error %lu)\n", path,
            (unsigned long)GetLastError());
    return 1;
  }
  version_string_fn version_string;
  if (!LOOKUP(dll, version_string, "cudaload_version_string"))
    return 1;
  const char *version = version_string();
  printf("version %s\n", version ? version : "(null)");
  fflush(stdout);
  int rc = probe ? run_probe(dll) : 0;
  FreeLibrary(dll);
  return rc;
}
