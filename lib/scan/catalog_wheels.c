/* SPDX-License-Identifier: MIT */
/*
 * catalog_wheels.c - where NVIDIA's pip wheels install each family: the
 * PyPI distribution per family and CUDA major, the folder under
 * site-packages it fills, and the variable that names a family's folder.
 * Family facts, so catalog data (catalog_wheels.h); the fix lines
 * (load/fix_lines.c) and the plan's warnings name packages from here.
 */
#include "scan/catalog_wheels.h"

#include <string.h>

/* One wheel: the PyPI distribution that ships a family's libraries for one
 * CUDA major, and the folder under site-packages/nvidia it installs them to.
 *
 * Checked against the index on 2026-12-01 (`pip index versions NAME`, and
 * with --platform win_amd64 --only-binary=:all: for Windows); newest
 * versions then:
 *   CUDA 11: nvidia-cuda-runtime-cu11 11.8.89, nvidia-cublas-cu11 11.11.3.6,
 *     nvidia-cuda-nvrtc-cu11 11.8.89, nvidia-cufft-cu11 10.9.0.58,
 *     nvidia-curand-cu11 10.3.0.86, nvidia-cusparse-cu11 11.7.5.86,
 *     nvidia-cusolver-cu11 11.4.1.48, nvidia-cuda-cupti-cu11 11.8.87,
 *     nvidia-nccl-cu11 2.21.5, nvidia-cudnn-cu11 9.10.2.21 (8.5 to 8.9.6
 *     too; Windows 8.9.5.2). No nvidia-nvjitlink-cu11 (nvJitLink is
 *     CUDA 12+).
 *   CUDA 12: the same names with -cu12 (cuda-runtime 12.9.79, cublas
 *     12.9.3.13, nvrtc 12.9.86, nvjitlink 12.9.86, cufft 11.4.1.4, curand
 *     10.3.10.19, cusparse 12.5.10.65, cusolver 11.7.5.82, cupti 12.9.79,
 *     nccl 2.32.3, cudnn 9.28.0.42 with 8.8/8.9 too).
 *   CUDA 13: nvidia-cuda-runtime 13.5.37, nvidia-cublas 13.10.0.20,
 *     nvidia-cuda-nvrtc 13.5.37, nvidia-nvjitlink 13.5.37, nvidia-cufft
 *     12.5.0.14, nvidia-curand 10.4.5.25, nvidia-cusparse 12.9.4.2,
 *     nvidia-cusolver 12.4.1.2, nvidia-cuda-cupti 13.5.25, nvidia-nccl-cu13
 *     2.32.3, nvidia-cudnn-cu13 9.28.1.4 (no cuDNN 8). Not usable:
 *     nvidia-cublas-cu13, nvidia-cuda-runtime-cu13, nvidia-cufft-cu13 are
 *     0.0.1 placeholders; nvidia-nccl and nvidia-cudnn do not exist.
 *   Windows: every name above has win_amd64 wheels except NCCL's (NCCL
 *     has no Windows build; the catalog has no Windows name for it).
 * scripts/acceptance asks the index again for every name listed here
 * (cl_catalog_wheels_each). */

/* CUDA 11 and 12 wheels keep a folder per package; CUDA 13's toolkit wheels
 * share nvidia/cu13. */
#define TOOLKIT(fam, name, sub)                                                \
  {fam, 11, name "-cu11", sub, 0, 0, 0},                                       \
      {fam, 12, name "-cu12", sub, 0, 0, 0}, {                                 \
    fam, 13, name, "cu13", 0, 0, 0                                             \
  }

/* A library outside the toolkit: -cu12 and -cu13 distributions. */
#define OTHER(fam, name, sub, linux)                                           \
  {fam, 12, name "-cu12", sub, 0, 0, linux}, {                                 \
    fam, 13, name "-cu13", sub, 0, 0, linux                                    \
  }

static const cl_catalog_wheel wheels[] = {
    TOOLKIT("cudart", "nvidia-cuda-runtime", "cuda_runtime"),
    TOOLKIT("cublas", "nvidia-cublas", "cublas"),
    TOOLKIT("nvrtc", "nvidia-cuda-nvrtc", "cuda_nvrtc"),
    {"nvjitlink", 12, "nvidia-nvjitlink-cu12", "nvjitlink", 0, 0, 0},
    {"nvjitlink", 13, "nvidia-nvjitlink", "cu13", 0, 0, 0},
    TOOLKIT("cufft", "nvidia-cufft", "cufft"),
    TOOLKIT("curand", "nvidia-curand", "curand"),
    TOOLKIT("cusparse", "nvidia-cusparse", "cusparse"),
    TOOLKIT("cusolver", "nvidia-cusolver", "cusolver"),
    TOOLKIT("cupti", "nvidia-cuda-cupti", "cuda_cupti"),
    /* NCCL keeps the suffix on CUDA 13 and its own folder. */
    {"nccl", 11, "nvidia-nccl-cu11", "nccl", 0, 0, 1},
    {"nccl", 12, "nvidia-nccl-cu12", "nccl", 0, 0, 1},
    {"nccl", 13, "nvidia-nccl-cu13", "nccl", 0, 0, 1},
    /* cuDNN is versioned apart from CUDA: one distribution per CUDA major
     * carries both cuDNN majors, in nvidia/cudnn, on CUDA 13 too. */
    {"cudnn", 11, "nvidia-cudnn-cu11", "cudnn", 8, 9, 0},
    {"cudnn", 12, "nvidia-cudnn-cu12", "cudnn", 8, 9, 0},
    {"cudnn", 13, "nvidia-cudnn-cu13", "cudnn", 9, 9, 0},
    /* Libraries that ship in another family's wheel. */
    TOOLKIT("cufftw", "nvidia-cufft", "cufft"),
    TOOLKIT("cusolverMg", "nvidia-cusolver", "cusolver"),
    TOOLKIT("nvblas", "nvidia-cublas", "cublas"),
    TOOLKIT("nvjpeg", "nvidia-nvjpeg", "nvjpeg"),
    /* NPP's eleven libraries: one wheel. */
    TOOLKIT("nppc", "nvidia-npp", "npp"),
    TOOLKIT("nppial", "nvidia-npp", "npp"),
    TOOLKIT("nppicc", "nvidia-npp", "npp"),
    TOOLKIT("nppidei", "nvidia-npp", "npp"),
    TOOLKIT("nppif", "nvidia-npp", "npp"),
    TOOLKIT("nppig", "nvidia-npp", "npp"),
    TOOLKIT("nppim", "nvidia-npp", "npp"),
    TOOLKIT("nppist", "nvidia-npp", "npp"),
    TOOLKIT("nppisu", "nvidia-npp", "npp"),
    TOOLKIT("nppitc", "nvidia-npp", "npp"),
    TOOLKIT("npps", "nvidia-npp", "npp"),
    {"nvfatbin", 12, "nvidia-nvfatbin-cu12", "nvfatbin", 0, 0, 0},
    {"nvfatbin", 13, "nvidia-nvfatbin", "cu13", 0, 0, 0},
    /* NVVM: nvcc's wheel (nvidia/cuda_nvcc/nvvm) on CUDA 12, its own on 13. */
    {"nvvm", 12, "nvidia-cuda-nvcc-cu12", "cuda_nvcc", 0, 0, 0},
    {"nvvm", 13, "nvidia-nvvm", "cu13", 0, 0, 0},
    {"cufile", 12, "nvidia-cufile-cu12", "cufile", 0, 0, 1},
    {"cufile", 13, "nvidia-cufile", "cu13", 0, 0, 1},
    /* Math libraries outside the toolkit keep -cuNN on CUDA 13 too. */
    OTHER("cublasmp", "nvidia-cublasmp", "cublasmp", 1),
    OTHER("cufftMp", "nvidia-cufftmp", "cufftmp", 1),
    OTHER("cusolverMp", "nvidia-cusolvermp", "cu13", 1),
    OTHER("mathdx", "nvidia-libmathdx", "cu13", 0),
    OTHER("cudss", "nvidia-cudss", "cu13", 0),
    OTHER("cusparseLt", "nvidia-cusparselt", "cusparselt", 0),
    OTHER("nvshmem_host", "nvidia-nvshmem", "nvshmem", 1),
    /* cuTENSOR and cuQuantum install outside nvidia/ (cutensor/lib,
     * cuquantum/lib). */
    {"cutensor", 11, "cutensor-cu11", "cutensor", 0, 0, 0},
    OTHER("cutensor", "cutensor", "cutensor", 0),
    OTHER("cutensorMg", "cutensor", "cutensor", 0),
    OTHER("cutensorMp", "cutensor", "cutensor", 1),
    OTHER("custatevec", "custatevec", "cuquantum", 1),
    OTHER("cutensornet", "cutensornet", "cuquantum", 1),
    OTHER("cudensitymat", "cudensitymat", "cuquantum", 1),
    OTHER("cupauliprop", "cupauliprop", "cuquantum", 1),
    OTHER("custabilizer", "custabilizer", "cuquantum", 1),
    /* No wheel: cuDLA comes with JetPack, NVPL's FFTW with NVPL (aarch64). */
};

void cl_catalog_wheels_each(void (*fn)(const char *family, int cuda_major,
                                       const char *package, void *opaque),
                            void *opaque) {
  for (size_t i = 0; i < sizeof wheels / sizeof *wheels; ++i)
    fn(wheels[i].family, wheels[i].cuda_major, wheels[i].package, opaque);
}

const cl_catalog_wheel *cl_catalog_wheel_find(const char *family, int cuda,
                                              long abi, cl_naming naming) {
  for (size_t i = 0; i < sizeof wheels / sizeof *wheels; ++i) {
    const cl_catalog_wheel *w = &wheels[i];
    if (strcmp(w->family, family) != 0 || w->cuda_major != cuda)
      continue;
    if (abi && w->min_abi && (abi < w->min_abi || abi > w->max_abi))
      continue;
    if (w->linux_only && naming == CL_NAMING_WINDOWS)
      continue;
    return w;
  }
  return NULL;
}

const char *cl_catalog_path_variable(const char *family) {
  /* cuDNN ships apart from the toolkit; frameworks read CUDNN_PATH. */
  return strcmp(family, "cudnn") == 0 ? "CUDNN_PATH" : "CUDA_PATH";
}

/* PEP 503's normalized form compares: letters without case, and runs of
 * '-', '_' and '.' as one '-'. */
static int same_distribution(const char *a, size_t a_len, const char *b) {
  size_t i = 0, j = 0, b_len = strlen(b);
  while (i < a_len && j < b_len) {
    int sa = a[i] == '-' || a[i] == '_' || a[i] == '.';
    int sb = b[j] == '-' || b[j] == '_' || b[j] == '.';
    if (sa != sb)
      return 0;
    if (sa) {
      while (i < a_len && (a[i] == '-' || a[i] == '_' || a[i] == '.'))
        ++i;
      while (j < b_len && (b[j] == '-' || b[j] == '_' || b[j] == '.'))
        ++j;
      continue;
    }
    char ca = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
    char cb = b[j] >= 'A' && b[j] <= 'Z' ? (char)(b[j] - 'A' + 'a') : b[j];
    if (ca != cb)
      return 0;
    ++i;
    ++j;
  }
  return i == a_len && j == b_len;
}

const cl_catalog_wheel *cl_catalog_wheel_by_package(const char *package,
                                                    size_t len) {
  for (size_t i = 0; i < sizeof wheels / sizeof wheels[0]; ++i)
    if (same_distribution(package, len, wheels[i].package))
      return &wheels[i];
  return NULL;
}

const cl_catalog_wheel *cl_catalog_wheel_ships(const char *package,
                                               const char *family, long abi,
                                               int cuda, const char *folder) {
  size_t len = strlen(package);
  for (size_t i = 0; i < sizeof wheels / sizeof wheels[0]; ++i) {
    const cl_catalog_wheel *w = &wheels[i];
    if (strcmp(w->family, family) == 0 && (!cuda || w->cuda_major == cuda) &&
        (!w->min_abi || (abi >= w->min_abi && abi <= w->max_abi)) &&
        (!folder || strcmp(w->folder, folder) == 0) &&
        same_distribution(package, len, w->package))
      return w;
  }
  return NULL;
}
