/* SPDX-License-Identifier: MIT */
/*
 * acceptance/side_by_side.c - step 3 of the real-libraries acceptance:
 * one process preloads cudnn=8, cudnn=9 and cublas=12 from real NVIDIA files
 * through libcudaload's C API, then checks, with no GPU and no driver:
 *
 *   - every planned file is loaded from the folder cudaload chose;
 *   - cudnnGetVersion() through the cuDNN 8 handle reports 8.9.x and through
 *     the cuDNN 9 handle 9.x (each handle looked up by absolute path with
 *     RTLD_NOLOAD, so each call goes to that library and not to the global
 *     scope);
 *   - cudnnGetCudartVersion() says which CUDA runtime each build expects;
 *   - cublasGetProperty(MAJOR/MINOR/PATCH) through the cuBLAS handle is 12.x;
 *   - a cuDNN 8 sub-library function is reachable: cudnnCreateTensorDescriptor
 *     through the cuDNN 8 shim makes the shim open libcudnn_ops_infer.so.8
 *     lazily, by name; the call must succeed and /proc/self/maps must then
 *     show that sub-library from the cuDNN 8 folder;
 *   - the same for cuDNN 9 (libcudnn_graph.so.9 / libcudnn_ops.so.9), so the
 *     two majors' sub-libraries are in the process side by side;
 *   - the symbol each handle's cudnnGetVersion comes from is its own file.
 *
 * Usage: side_by_side ROOT... (searched in order, no default roots)
 * Prints one "ok"/"FAIL" line per check and exits 0 only if all passed.
 */
#define _GNU_SOURCE
#include "cudaload.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what) {
  printf("%-4s %s\n", ok ? "ok" : "FAIL", what);
  if (!ok)
    ++failures;
}

/* The loaded path of the plan entry NAME/MAJOR, or NULL. */
static const char *planned(cudaload_ctx *ctx, const char *name, int major) {
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i) {
    if (strcmp(cudaload_plan_name(ctx, i), name) == 0 &&
        cudaload_plan_major(ctx, i) == major) {
      int s = cudaload_plan_state(ctx, i);
      if (s == CUDALOAD_STATE_LOADED || s == CUDALOAD_STATE_ALREADY_LOADED)
        return cudaload_plan_loaded_path(ctx, i);
      return NULL;
    }
  }
  return NULL;
}

/* The folder of PATH, in a static buffer. */
static const char *folder_of(const char *path) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  char *slash = strrchr(buf, '/');
  if (slash)
    *slash = '\0';
  return buf;
}

/* Whether /proc/self/maps maps FOLDER/NAME. */
static int mapped(const char *folder, const char *name) {
  char want[4096];
  snprintf(want, sizeof want, "%s/%s", folder, name);
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 0;
  char line[8192];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    char *p = strchr(line, '/');
    if (!p)
      continue;
    p[strcspn(p, "\n")] = '\0';
    char real[4096];
    if (strcmp(p, want) == 0 || (realpath(want, real) && strcmp(p, real) == 0))
      found = 1;
  }
  fclose(f);
  return found;
}

typedef size_t (*get_version_fn)(void);
typedef int (*create_desc_fn)(void **);
typedef int (*destroy_desc_fn)(void *);
typedef int (*get_property_fn)(int, int *);

static void check_cudnn(const char *path, int major) {
  char what[4096];
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  snprintf(what, sizeof what,
           "cuDNN %d handle by absolute path (RTLD_NOLOAD): %s", major, path);
  check(h != NULL, what);
  if (!h)
    return;
  get_version_fn version =
      (get_version_fn)(uintptr_t)dlsym(h, "cudnnGetVersion");
  get_version_fn cudart =
      (get_version_fn)(uintptr_t)dlsym(h, "cudnnGetCudartVersion");
  size_t v = version ? version() : 0;
  size_t rt = cudart ? cudart() : 0;
  unsigned vmaj = major == 8 ? (unsigned)(v / 1000) : (unsigned)(v / 10000);
  unsigned vmin =
      major == 8 ? (unsigned)(v % 1000 / 100) : (unsigned)(v % 10000 / 100);
  unsigned vpat = (unsigned)(v % 100);
  snprintf(what, sizeof what,
           "cudnnGetVersion() through the cuDNN %d handle = %zu (%u.%u.%u), "
           "cudnnGetCudartVersion() = %zu",
           major, v, vmaj, vmin, vpat, rt);
  check(vmaj == (unsigned)major, what);
  if (major == 8) {
    snprintf(what, sizeof what, "cuDNN 8 is 8.9.x (read %u.%u.%u)", vmaj, vmin,
             vpat);
    check(vmaj == 8 && vmin == 9, what);
  }

  /* Which file provides the symbol to this handle. */
  Dl_info info;
  memset(&info, 0, sizeof info);
  if (version)
    dladdr((void *)(uintptr_t)version, &info);
  char real_path[4096], real_provider[4096];
  int same = info.dli_fname && realpath(path, real_path) &&
             realpath(info.dli_fname, real_provider) &&
             strcmp(real_path, real_provider) == 0;
  snprintf(what, sizeof what, "cuDNN %d's cudnnGetVersion comes from %s", major,
           info.dli_fname ? info.dli_fname : "(unknown)");
  check(same, what);

  /* A sub-library function: the shim opens the sub-library lazily. */
  create_desc_fn create =
      (create_desc_fn)(uintptr_t)dlsym(h, "cudnnCreateTensorDescriptor");
  destroy_desc_fn destroy =
      (destroy_desc_fn)(uintptr_t)dlsym(h, "cudnnDestroyTensorDescriptor");
  void *desc = NULL;
  int status = create ? create(&desc) : -1;
  const char *sub =
      major == 8 ? "libcudnn_ops_infer.so.8" : "libcudnn_graph.so.9";
  snprintf(what, sizeof what,
           "cudnnCreateTensorDescriptor() through the cuDNN %d shim = %d "
           "(0 = CUDNN_STATUS_SUCCESS; the shim opened its sub-library lazily)",
           major, status);
  check(status == 0 && desc != NULL, what);
  if (status == 0 && destroy)
    destroy(desc);
  snprintf(what, sizeof what, "%s is mapped from %s", sub, folder_of(path));
  check(mapped(folder_of(path), sub), what);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: side_by_side ROOT...\n");
    return 2;
  }
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  for (int i = 1; i < argc; ++i)
    cudaload_add_root(ctx, argv[i]);
  cudaload_require(ctx, "cudnn=8,cudnn=9,cublas=12");
  int rc = cudaload_preload(ctx, 0);
  if (rc != CUDALOAD_OK)
    fprintf(stderr, "cudaload_preload: %s\n%s\n", cudaload_strerror(rc),
            cudaload_last_error());
  check(rc == CUDALOAD_OK,
        "cudaload_preload(cudnn=8,cudnn=9,cublas=12) = CUDALOAD_OK");
  printf("plan:\n");
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    printf("  state=%d %-32s %2d %s\n", cudaload_plan_state(ctx, i),
           cudaload_plan_name(ctx, i), cudaload_plan_major(ctx, i),
           cudaload_plan_path(ctx, i));

  const char *cudnn8 = planned(ctx, "cudnn", 8);
  const char *cudnn9 = planned(ctx, "cudnn", 9);
  const char *cublas = planned(ctx, "cublas", 12);
  check(cudnn8 != NULL, "libcudnn.so.8 loaded by cudaload");
  check(cudnn9 != NULL, "libcudnn.so.9 loaded by cudaload");
  check(cublas != NULL, "libcublas.so.12 loaded by cudaload");
  if (cudnn8)
    check_cudnn(cudnn8, 8);
  if (cudnn9)
    check_cudnn(cudnn9, 9);
  if (cudnn8 && cudnn9) {
    check(mapped(folder_of(cudnn8), "libcudnn_ops_infer.so.8") &&
              mapped(folder_of(cudnn9), "libcudnn_graph.so.9"),
          "cuDNN 8 and cuDNN 9 sub-libraries are in the process side by side");
  }
  if (cublas) {
    void *h = dlopen(cublas, RTLD_NOW | RTLD_NOLOAD);
    get_property_fn prop =
        h ? (get_property_fn)(uintptr_t)dlsym(h, "cublasGetProperty") : NULL;
    int v[3] = {-1, -1, -1};
    for (int i = 0; prop && i < 3; ++i)
      prop(i, &v[i]);
    char what[256];
    snprintf(what, sizeof what,
             "cublasGetProperty() through the cuBLAS handle = %d.%d.%d", v[0],
             v[1], v[2]);
    check(v[0] == 12, what);
  }
  cudaload_destroy(ctx);
  printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
