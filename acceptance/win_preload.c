/* SPDX-License-Identifier: MIT */
/*
 * acceptance/win_preload.c - step 5 under Wine: preload the real Windows
 * DLLs of NVIDIA's win_amd64 wheels (cuDNN 8.9.7, cuBLAS 12) through
 * libcudaload, then call into them with no GPU and no nvcuda.dll:
 *   cudnnGetVersion / cudnnGetCudartVersion   (cudnn64_8.dll itself)
 *   cudnnCreateTensorDescriptor               (cudnn64_8.dll opens
 *                                              cudnn_ops_infer64_8.dll lazily
 *                                              with LoadLibrary, by name)
 *   cublasGetProperty                         (cublas64_12.dll)
 * It records what happens; whatever the DLLs do under Wine is printed, and
 * the exit status is 0 when the preload and the version calls worked.
 *
 * Usage: win_preload ROOT SPEC
 */
#include "cudaload.h"

#include <stdio.h>
#include <string.h>
#include <windows.h>

typedef size_t(__stdcall *version_fn)(void);
typedef int(__stdcall *create_fn)(void **);
typedef int(__stdcall *property_fn)(int, int *);

static int failures;

static void check(int ok, const char *what) {
  printf("%-4s %s\n", ok ? "ok" : "FAIL", what);
  fflush(stdout);
  if (!ok)
    ++failures;
}

static FARPROC proc(const wchar_t *module, const char *name) {
  HMODULE h = GetModuleHandleW(module);
  return h ? GetProcAddress(h, name) : NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: win_preload ROOT SPEC\n");
    return 2;
  }
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  cudaload_add_root(ctx, argv[1]);
  cudaload_require(ctx, argv[2]);
  int rc = cudaload_preload(ctx, 0);
  char what[1024];
  snprintf(what, sizeof what, "cudaload_preload(%s) = %d (%s)", argv[2], rc,
           cudaload_strerror(rc));
  check(rc == CUDALOAD_OK, what);
  if (rc != CUDALOAD_OK)
    printf("%s\n", cudaload_last_error());
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    printf("  state=%d %-20s %2d %s\n", cudaload_plan_state(ctx, i),
           cudaload_plan_name(ctx, i), cudaload_plan_major(ctx, i),
           cudaload_plan_path(ctx, i));
  fflush(stdout);

  version_fn v =
      (version_fn)(void (*)(void))proc(L"cudnn64_8.dll", "cudnnGetVersion");
  version_fn rt = (version_fn)(void (*)(void))proc(L"cudnn64_8.dll",
                                                   "cudnnGetCudartVersion");
  size_t version = v ? v() : 0;
  snprintf(
      what, sizeof what,
      "cudnnGetVersion() in cudnn64_8.dll = %zu, cudnnGetCudartVersion() = %zu",
      version, rt ? rt() : (size_t)0);
  check(version / 1000 == 8, what);

  property_fn p = (property_fn)(void (*)(void))proc(L"cublas64_12.dll",
                                                    "cublasGetProperty");
  int major = -1, minor = -1, patch = -1;
  if (p) {
    p(0, &major);
    p(1, &minor);
    p(2, &patch);
  }
  snprintf(what, sizeof what,
           "cublasGetProperty() in cublas64_12.dll = %d.%d.%d", major, minor,
           patch);
  check(major == 12, what);

  /* Recorded, not required: what the lazy sub-library open does under Wine. */
  create_fn c = (create_fn)(void (*)(void))proc(L"cudnn64_8.dll",
                                                "cudnnCreateTensorDescriptor");
  void *desc = NULL;
  int status = c ? c(&desc) : -1;
  printf(
      "info cudnnCreateTensorDescriptor() = %d; cudnn_ops_infer64_8.dll %s\n",
      status,
      GetModuleHandleW(L"cudnn_ops_infer64_8.dll") ? "loaded" : "not loaded");
  printf("info nvcuda.dll %s\n",
         GetModuleHandleW(L"nvcuda.dll") ? "loaded" : "not loaded (no driver)");
  cudaload_destroy(ctx);
  printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
