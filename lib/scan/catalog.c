/* SPDX-License-Identifier: MIT */
/*
 * catalog.c - the naming conventions of CUDA libraries, in one table, and
 * the facts of their families, in another (one row each: catalog.h).
 *
 * Sources: the SONAMEs and DLL names NVIDIA ships in its toolkits, wheels
 * and installers (docs/loader.md, "Names and places"). Numbers in names are
 * the library's own ABI major, not the CUDA major: cuFFT is 11 on CUDA 12.
 * Matching is exact against these templates, so libcublasLt.so.12 is never
 * taken for cublas and libcudnn_ops_infer.so.8 never for cudnn.
 */
#include "scan/catalog.h"
#include "common/strutil.h"
#include "os/platform.h"

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off: one row per library reads better as a table. */
/* A cuDNN sub-library; required: a plan needs it beside the main library. */
#define CUDNN_SUB(n, major, required)                                          \
  {                                                                            \
    .name = "cudnn_" n, .family = "cudnn", .role = CL_ROLE_SUB,                \
    .min_major = major, .max_major = major,                                    \
    .linux_names = {"libcudnn_" n ".so.%M%V"},                                 \
    .windows_names = {"cudnn_" n "64_%M.dll"},                                 \
    .required_beside_main = required                                           \
  }
/* A cuDNN sub-library that opens CUDA libraries lazily, by name
 * (docs/real-libraries.md: ops_infer 8 opens libcublas.so.12 and
 * libcublasLt.so.12; engines_precompiled 9 opens libcublasLt.so.N and
 * engines_runtime_compiled 9 libnvrtc.so.N, N its CUDA build's major).
 * cuda: the CUDA major of those opens when the file does not tell. */
#define CUDNN_SUB_LAZY(n, major, required, cuda, ...)                          \
  {                                                                            \
    .name = "cudnn_" n, .family = "cudnn", .role = CL_ROLE_SUB,                \
    .min_major = major, .max_major = major,                                    \
    .linux_names = {"libcudnn_" n ".so.%M%V"},                                 \
    .windows_names = {"cudnn_" n "64_%M.dll"},                                 \
    .required_beside_main = required, .lazy_opens = {__VA_ARGS__},             \
    .lazy_cuda_major = cuda                                                    \
  }

/* One of NPP's eleven libraries: each its own family (applications link
 * them one by one), all of them required by "npp". */
#define NPP(n)                                                                 \
  {                                                                            \
    .name = n, .family = n, .min_major = 11, .max_major = 13,                  \
    .linux_names = {"lib" n ".so.%M%V"}, .windows_names = {n "64_%M.dll"},     \
    .group = "npp", .header = "npp.h", .spec_example = 1                       \
  }
/* A library with its own ABI majors, whose names do not tell a CUDA major;
 * its family is its name. */
#define FIXED_ABI(n, lo, hi, linux_name, windows_name)                         \
  {                                                                            \
    .name = n, .family = n, .min_major = lo, .max_major = hi,                  \
    .linux_names = {linux_name}, .windows_names = {                            \
      windows_name                                                             \
    }                                                                          \
  }

static const cl_catalog_entry catalog[] = {
    {.name = "cudart",
     .spec_example = 1,
     .header = "cuda_runtime.h",
     .family = "cudart",
     /* CUDA 10's names are read where messages print them (TensorFlow 2.1
      * to 2.3 asks for cudart64_101.dll and libcusolver.so.10). */
     .min_major = 10,
     .max_major = 13,
     .linux_names = {"libcudart.so.%M%V"},
     /* CUDA 10 and 11 named it after major and minor (cudart64_101.dll,
      * cudart64_110.dll). */
     .windows_names = {"cudart64_%M0.dll", "cudart64_%M.dll",
                       "cudart64_%M%m.dll"},
     .version_header = "cuda_runtime_api.h",
     .version_macros = {"CUDART_VERSION"}},
    {.name = "cublas",
     .spec_example = 1,
     .header = "cublas_v2.h",
     .family = "cublas",
     .min_major = 10,
     .max_major = 13,
     .linux_names = {"libcublas.so.%M%V"},
     /* CUDA 10.0 named it after major and minor (cublas64_100.dll). */
     .windows_names = {"cublas64_%M.dll", "cublas64_%M%m.dll"},
     .version_header = "cublas_api.h",
     .version_macros = {"CUBLAS_VER_MAJOR", "CUBLAS_VER_MINOR",
                        "CUBLAS_VER_PATCH"}},
    {.name = "cublasLt",
     .family = "cublas",
     .role = CL_ROLE_SUB,
     .min_major = 11,
     .max_major = 13,
     .linux_names = {"libcublasLt.so.%M%V"},
     .windows_names = {"cublasLt64_%M.dll"},
     .required_beside_main = 1,
     /* nvidia-cublas-cu11 11.11.3.6's libcublasLt.so.11 (RUNPATH $ORIGIN). */
     .opens_as_is = {"libnvrtc.so"},
     .opens_as_is_until = 11},
    {.name = "cudnn",
     .spec_example = 1,
     .header = "cudnn.h",
     .family = "cudnn",
     .min_major = 8,
     .max_major = 9,
     .linux_names = {"libcudnn.so.%M%V"},
     .windows_names = {"cudnn64_%M.dll"},
     /* cuDNN 8 and 9 export the same names; NVIDIA's builds version them
      * (cudnnGetVersion@@libcudnn.so.9), some rebuilds do not. */
     .scope_probe_symbol = "cudnnGetVersion",
     .version_header = "cudnn_version.h",
     .version_macros = {"CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"}},
    CUDNN_SUB_LAZY("ops_infer", 8, 1, 12, "cublas", "cublasLt"),
    CUDNN_SUB("ops_train", 8, 0),
    CUDNN_SUB("cnn_infer", 8, 1),
    CUDNN_SUB("cnn_train", 8, 0),
    CUDNN_SUB("adv_infer", 8, 0),
    CUDNN_SUB("adv_train", 8, 0),
    CUDNN_SUB("graph", 9, 1),
    CUDNN_SUB("ops", 9, 1),
    CUDNN_SUB("cnn", 9, 0),
    CUDNN_SUB("adv", 9, 0),
    CUDNN_SUB("heuristic", 9, 0),
    CUDNN_SUB_LAZY("engines_precompiled", 9, 0, 0, "cublasLt"),
    CUDNN_SUB_LAZY("engines_runtime_compiled", 9, 0, 0, "nvrtc"),
    CUDNN_SUB("engines_tensor_ir", 9, 0),
    CUDNN_SUB("ext", 9, 0),
    {.name = "nvrtc",
     .spec_example = 1,
     .header = "nvrtc.h",
     .family = "nvrtc",
     .min_major = 11,
     .max_major = 13,
     .linux_names = {"libnvrtc.so.%M%V"},
     /* nvrtc64_120_0.dll: major, one digit of minor, then "_0". */
     .windows_names = {"nvrtc64_%M%m_0.dll"}},
    {.name = "nvJitLink",
     .spec_example = 1,
     .header = "nvJitLink.h",
     .family = "nvjitlink",
     .min_major = 12,
     .max_major = 13,
     .linux_names = {"libnvJitLink.so.%M%V"},
     .windows_names = {"nvJitLink_%M%m_0.dll"}},
    {.name = "cufft",
     .spec_example = 1,
     .header = "cufft.h",
     .family = "cufft",
     .min_major = 10,
     .max_major = 12,
     .linux_names = {"libcufft.so.%M%V"},
     .windows_names = {"cufft64_%M.dll"}},
    /* cuRAND 10 ships with CUDA 11, 12 and 13 (nvidia-curand 10.4); 11
     * is a name NVIDIA's cuda-pathfinder already looks for, of no release
     * yet: its CUDA major is not known. */
    {.name = "curand",
     .spec_example = 1,
     .header = "curand.h",
     .family = "curand",
     .min_major = 10,
     .max_major = 11,
     .linux_names = {"libcurand.so.%M%V"},
     .windows_names = {"curand64_%M.dll"}},
    /* cuSPARSE 12 ships with CUDA 12 and 13; cuSOLVER 11 with CUDA 11 and
     * 12: the name alone cannot tell those apart. */
    {.name = "cusparse",
     .spec_example = 1,
     .header = "cusparse.h",
     .family = "cusparse",
     .min_major = 10,
     .max_major = 12,
     .linux_names = {"libcusparse.so.%M%V"},
     .windows_names = {"cusparse64_%M.dll"}},
    {.name = "cusolver",
     .spec_example = 1,
     .header = "cusolverDn.h",
     .family = "cusolver",
     .min_major = 10,
     .max_major = 12,
     .linux_names = {"libcusolver.so.%M%V"},
     .windows_names = {"cusolver64_%M.dll"}},
    {.name = "nccl",
     .spec_example = 1,
     .header = "nccl.h",
     .family = "nccl",
     .min_major = 2,
     .max_major = 2,
     .linux_names = {"libnccl.so.%M%V"}},
    /* CUPTI on Windows is named after its own year-based version. */
    {.name = "cupti",
     .spec_example = 1,
     .header = "cupti.h",
     .family = "cupti",
     .min_major = 11,
     .max_major = 13,
     .linux_names = {"libcupti.so.%M%V"},
     .windows_names = {"cupti64_%M.dll", "cupti64_%Y.dll"}},
    /* cuFFT's FFTW interface, cuSOLVER's multi-GPU library and NVBLAS (a
     * BLAS that routes to cuBLAS) ship in their families' wheels and
     * toolkit folders with the same majors. */
    {.name = "cufftw",
     .header = "cufftw.h",
     .family = "cufftw",
     .min_major = 10,
     .max_major = 12,
     .linux_names = {"libcufftw.so.%M%V"},
     .windows_names = {"cufftw64_%M.dll"}},
    {.name = "cusolverMg",
     .header = "cusolverMg.h",
     .family = "cusolverMg",
     .min_major = 11,
     .max_major = 12,
     .linux_names = {"libcusolverMg.so.%M%V"},
     .windows_names = {"cusolverMg64_%M.dll"}},
    {.name = "nvblas",
     .header = "nvblas.h",
     .family = "nvblas",
     .min_major = 11,
     .max_major = 13,
     .linux_names = {"libnvblas.so.%M%V"},
     .windows_names = {"nvblas64_%M.dll"}},
    {.name = "nvfatbin",
     .header = "nvFatbin.h",
     .family = "nvfatbin",
     .min_major = 12,
     .max_major = 13,
     .linux_names = {"libnvfatbin.so.%M%V"},
     .windows_names = {"nvfatbin_%M%m_0.dll"}},
    /* NVVM keeps its own ABI major (4 from CUDA 11 to 13; the Windows
     * toolkit of CUDA 13 names it nvvm70.dll) and its own folder,
     * nvvm/lib64 or nvvm/bin. */
    {.name = "nvvm",
     .header = "nvvm.h",
     .family = "nvvm",
     .version_apart_from_abi = 1,
     .min_major = 4,
     .max_major = 7,
     .linux_names = {"libnvvm.so.%M%V", "libnvvm.so"},
     .windows_names = {"nvvm64_%M%m_0.dll", "nvvm%M0.dll", "nvvm64.dll"}},
    {.name = "nvjpeg",
     .spec_example = 1,
     .header = "nvjpeg.h",
     .family = "nvjpeg",
     .min_major = 11,
     .max_major = 13,
     .linux_names = {"libnvjpeg.so.%M%V"},
     .windows_names = {"nvjpeg64_%M.dll"}},
    NPP("nppc"),
    NPP("nppial"),
    NPP("nppicc"),
    NPP("nppidei"),
    NPP("nppif"),
    NPP("nppig"),
    NPP("nppim"),
    NPP("nppist"),
    NPP("nppisu"),
    NPP("nppitc"),
    NPP("npps"),
    {.name = "cufile",
     .family = "cufile",
     .min_major = 0,
     .max_major = 0,
     .linux_names = {"libcufile.so.%M%V"},
     .version_apart_from_abi = 1},
    FIXED_ABI("cudla", 1, 1, "libcudla.so.%M%V", "cudla.dll"),
    /* Math libraries NVIDIA ships beside the toolkit, each with its own ABI
     * major; their CUDA major comes from their wheel (-cu12, -cu13) or
     * their folder's dist-info. */
    FIXED_ABI("cublasmp", 0, 0, "libcublasmp.so.%M%V", NULL),
    {.name = "cufftMp",
     .family = "cufftMp",
     .min_major = 11,
     .max_major = 12,
     .linux_names = {"libcufftMp.so.%M%V"}},
    FIXED_ABI("cusolverMp", 0, 0, "libcusolverMp.so.%M%V", NULL),
    FIXED_ABI("mathdx", 0, 0, "libmathdx.so.%M%V", "mathdx64_%M.dll"),
    FIXED_ABI("cudss", 0, 1, "libcudss.so.%M%V", "cudss64_%M.dll"),
    {.name = "cusparseLt",
     .family = "cusparseLt",
     .min_major = 0,
     .max_major = 0,
     .linux_names = {"libcusparseLt.so.%M%V"},
     /* The CUDA 13 wheel's DLL is named after its CUDA major. */
     .windows_names = {"cusparseLt.dll", "cusparseLt_13.dll"}},
    {.name = "cutensor",
     .family = "cutensor",
     .min_major = 2,
     .max_major = 2,
     .linux_names = {"libcutensor.so.%M%V"},
     .windows_names = {"cutensor.dll"},
     .spec_example = 1},
    FIXED_ABI("cutensorMg", 2, 2, "libcutensorMg.so.%M%V", "cutensorMg.dll"),
    FIXED_ABI("cutensorMp", 2, 2, "libcutensorMp.so.%M%V", NULL),
    /* cuQuantum (site-packages/cuquantum/lib). */
    FIXED_ABI("cudensitymat", 0, 0, "libcudensitymat.so.%M%V", NULL),
    FIXED_ABI("cupauliprop", 0, 0, "libcupauliprop.so.%M%V", NULL),
    FIXED_ABI("cutensornet", 2, 2, "libcutensornet.so.%M%V", NULL),
    FIXED_ABI("custabilizer", 0, 0, "libcustabilizer.so.%M%V", NULL),
    FIXED_ABI("custatevec", 1, 1, "libcustatevec.so.%M%V", NULL),
    FIXED_ABI("nvshmem_host", 3, 3, "libnvshmem_host.so.%M%V", NULL),
    /* NVPL's FFTW (aarch64 servers). */
    FIXED_ABI("nvpl_fftw", 0, 0, "libnvpl_fftw.so.%M%V", NULL),
    /* The driver: the real file carries the driver version
     * (libcuda.so.580.65.06) behind the libcuda.so.1 link. */
    {.name = "cuda",
     .family = "driver",
     .min_major = 1,
     .max_major = 1,
     .linux_names = {"libcuda.so.%D"},
     .windows_names = {"nvcuda.dll"}},
    {.name = "nvml",
     .family = "driver",
     .min_major = 1,
     .max_major = 1,
     .linux_names = {"libnvidia-ml.so.%D"},
     .windows_names = {"nvml.dll"}},
    /* Jetson's DLA driver library, unversioned. */
    {.name = "nvcudla",
     .family = "driver",
     .min_major = 1,
     .max_major = 1,
     .linux_names = {"libnvcudla.so"}},
};

/* --- the families ---------------------------------------------------------
 *
 * One row per family: what every stage asks about a family rather than
 * about one of its files. The wheels were checked against the index on
 * 2026-12-01 (`pip index versions NAME`, and with --platform win_amd64
 * --only-binary=:all: for Windows); newest versions then:
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
 * scripts/acceptance asks the index again for every wheel of every row
 * (cl_catalog_wheels_each).
 *
 * The order of the rows is the order of their libraries in the table
 * above, and it answers where rows share: the first row with a wheel of a
 * distribution is the family that distribution ships (nvidia-cufft: cufft
 * before cufftw), and folders are visited in row order. */

/* The toolkit's wheels: CUDA 11 and 12 keep a folder per package, CUDA
 * 13's are unsuffixed and share nvidia/cu13. */
#define TOOLKIT_WHEELS(fam, pkg, sub)                                          \
  {fam, 11, pkg "-cu11", sub, 0, 0, 0}, {fam, 12, pkg "-cu12", sub, 0, 0, 0},  \
  {                                                                            \
    fam, 13, pkg, "cu13", 0, 0, 0                                              \
  }
/* A library outside the toolkit: -cu12 and -cu13 distributions. */
#define OTHER_WHEELS(fam, pkg, sub, linux)                                     \
  {fam, 12, pkg "-cu12", sub, 0, 0, linux}, {                                  \
    fam, 13, pkg "-cu13", sub, 0, 0, linux                                     \
  }

/* A toolkit family whose ABI major is the CUDA major. */
#define SAME_AS_CUDA(n, title_, pkg, sub)                                      \
  .name = n, .title = title_, .major_rule = CL_MAJOR_IS_CUDA,                  \
  .wheels = {TOOLKIT_WHEELS(n, pkg, sub)}
/* One of NPP's eleven libraries: one wheel for all. */
#define NPP_FAMILY(n)                                                          \
  { SAME_AS_CUDA(n, n, "nvidia-npp", "npp") }
/* A library outside the toolkit with a major of its own, whose -cuNN
 * wheels tell its CUDA major. */
#define OTHER(n, pkg, sub, linux)                                              \
  .name = n, .title = n, .major_rule = CL_MAJOR_KEPT,                          \
  .wheels = {OTHER_WHEELS(n, pkg, sub, linux)}
/* cuQuantum's libraries: their wheels install into cuquantum/lib. */
#define CUQUANTUM(n)                                                           \
  {                                                                            \
    OTHER(n, n, "cuquantum", 1), .package_folders = {                          \
      {"cuquantum/lib", CL_NAMING_LINUX}                                       \
    }                                                                          \
  }

static const cl_catalog_family families[] = {
    {SAME_AS_CUDA("cudart", "cudart", "nvidia-cuda-runtime", "cuda_runtime"),
     .symbol_prefixes = {"cuda"}},
    {SAME_AS_CUDA("cublas", "cuBLAS", "nvidia-cublas", "cublas"),
     .symbol_prefixes = {"cublas"}},
    /* cuDNN is versioned apart from CUDA: one distribution per CUDA major
     * carries both cuDNN majors, in nvidia/cudnn, on CUDA 13 too. */
    {.name = "cudnn",
     .title = "cuDNN",
     .main_fronts_parts = 1,
     .major_rule = CL_MAJOR_KEPT,
     .symbol_prefixes = {"cudnn"},
     .path_variable = "CUDNN_PATH",
     .wheels = {{"cudnn", 11, "nvidia-cudnn-cu11", "cudnn", 8, 9, 0},
                {"cudnn", 12, "nvidia-cudnn-cu12", "cudnn", 8, 9, 0},
                {"cudnn", 13, "nvidia-cudnn-cu13", "cudnn", 9, 9, 0}}},
    {SAME_AS_CUDA("nvrtc", "NVRTC", "nvidia-cuda-nvrtc", "cuda_nvrtc"),
     .symbol_prefixes = {"nvrtc"}},
    {.name = "nvjitlink",
     .title = "nvJitLink",
     .major_rule = CL_MAJOR_IS_CUDA,
     .symbol_prefixes = {"nvJitLink"},
     .internal_symbol_prefix = "__nvJitLink",
     .wheels = {{"nvjitlink", 12, "nvidia-nvjitlink-cu12", "nvjitlink", 0, 0,
                 0},
                {"nvjitlink", 13, "nvidia-nvjitlink", "cu13", 0, 0, 0}}},
    {.name = "cufft",
     .title = "cuFFT",
     .major_rule = CL_MAJOR_KEPT,
     .cuda_of_major = {{10, 11}, {11, 12}, {12, 13}},
     .symbol_prefixes = {"cufft"},
     .wheels = {TOOLKIT_WHEELS("cufft", "nvidia-cufft", "cufft")}},
    /* cuRAND 10 ships with CUDA 11, 12 and 13: its version tells which
     * (nvidia-curand-cu11 10.2.x, -cu12 10.3.x, nvidia-curand 10.4 on). */
    {.name = "curand",
     .title = "cuRAND",
     .major_rule = CL_MAJOR_KEPT,
     .releases = {{10, 2, 11}, {10, 3, 12}, {10, 4, 13}},
     .symbol_prefixes = {"curand"},
     .wheels = {TOOLKIT_WHEELS("curand", "nvidia-curand", "curand")}},
    /* cuSPARSE 12 ships with CUDA 12 and 13 (nvidia-cusparse-cu12
     * 12.0.0.76 to 12.5.10.65, nvidia-cusparse 12.6.3.3 on). */
    {.name = "cusparse",
     .title = "cuSPARSE",
     .major_rule = CL_MAJOR_KEPT,
     .cuda_of_major = {{10, 10}, {11, 11}},
     .releases = {{11, 0, 11}, {12, 0, 12}, {12, 6, 13}},
     .symbol_prefixes = {"cusparse"},
     .wheels = {TOOLKIT_WHEELS("cusparse", "nvidia-cusparse", "cusparse")}},
    /* cuSOLVER 11 ships with CUDA 11 and 12. */
    {.name = "cusolver",
     .title = "cuSOLVER",
     .major_rule = CL_MAJOR_KEPT,
     .cuda_of_major = {{12, 13}},
     .symbol_prefixes = {"cusolver"},
     .wheels = {TOOLKIT_WHEELS("cusolver", "nvidia-cusolver", "cusolver")}},
    /* NCCL keeps the suffix on CUDA 13 and its own folder. */
    {.name = "nccl",
     .title = "nccl",
     .major_rule = CL_MAJOR_KEPT,
     .symbol_prefixes = {"nccl"},
     .wheels = {{"nccl", 11, "nvidia-nccl-cu11", "nccl", 0, 0, 1},
                {"nccl", 12, "nvidia-nccl-cu12", "nccl", 0, 0, 1},
                {"nccl", 13, "nvidia-nccl-cu13", "nccl", 0, 0, 1}}},
    {SAME_AS_CUDA("cupti", "CUPTI", "nvidia-cuda-cupti", "cuda_cupti"),
     .symbol_prefixes = {"cupti"}},
    /* Libraries that ship in another family's wheel. */
    {.name = "cufftw",
     .title = "cufftw",
     .major_rule = CL_MAJOR_KEPT,
     .cuda_of_major = {{10, 11}, {11, 12}, {12, 13}},
     .wheels = {TOOLKIT_WHEELS("cufftw", "nvidia-cufft", "cufft")}},
    {.name = "cusolverMg",
     .title = "cusolverMg",
     .major_rule = CL_MAJOR_KEPT,
     .cuda_of_major = {{12, 13}},
     .wheels = {TOOLKIT_WHEELS("cusolverMg", "nvidia-cusolver", "cusolver")}},
    {SAME_AS_CUDA("nvblas", "nvblas", "nvidia-cublas", "cublas")},
    {.name = "nvfatbin",
     .title = "nvfatbin",
     .major_rule = CL_MAJOR_IS_CUDA,
     .wheels = {{"nvfatbin", 12, "nvidia-nvfatbin-cu12", "nvfatbin", 0, 0, 0},
                {"nvfatbin", 13, "nvidia-nvfatbin", "cu13", 0, 0, 0}}},
    /* NVVM keeps its own ABI major and its own folder in toolkits and
     * conda (nvvm/lib64, nvvm/bin), and in nvcc's wheel on CUDA 12
     * (nvidia/cuda_nvcc/nvvm); its own wheel on CUDA 13. */
    {.name = "nvvm",
     .title = "nvvm",
     .major_rule = CL_MAJOR_KEPT,
     .wheels = {{"nvvm", 12, "nvidia-cuda-nvcc-cu12", "cuda_nvcc", 0, 0, 0},
                {"nvvm", 13, "nvidia-nvvm", "cu13", 0, 0, 0}},
     .toolkit_folders = {{"nvvm/lib64", CL_NAMING_LINUX},
                         /* CUDA 13 on Windows */
                         {"nvvm/bin/x64", CL_NAMING_WINDOWS},
                         {"nvvm/bin", CL_NAMING_WINDOWS},
                         {"Library/nvvm/bin", CL_NAMING_WINDOWS}},
     .package_folders = {{"nvidia/cuda_nvcc/nvvm/lib64", CL_NAMING_LINUX},
                         {"nvidia/cuda_nvcc/nvvm/bin", CL_NAMING_WINDOWS}}},
    {SAME_AS_CUDA("nvjpeg", "nvjpeg", "nvidia-nvjpeg", "nvjpeg")},
    NPP_FAMILY("nppc"),
    NPP_FAMILY("nppial"),
    NPP_FAMILY("nppicc"),
    NPP_FAMILY("nppidei"),
    NPP_FAMILY("nppif"),
    NPP_FAMILY("nppig"),
    NPP_FAMILY("nppim"),
    NPP_FAMILY("nppist"),
    NPP_FAMILY("nppisu"),
    NPP_FAMILY("nppitc"),
    NPP_FAMILY("npps"),
    {.name = "cufile",
     .title = "cufile",
     .major_rule = CL_MAJOR_KEPT,
     .wheels = {{"cufile", 12, "nvidia-cufile-cu12", "cufile", 0, 0, 1},
                {"cufile", 13, "nvidia-cufile", "cu13", 0, 0, 1}}},
    /* No wheel: cuDLA comes with JetPack. */
    {.name = "cudla", .title = "cudla", .major_rule = CL_MAJOR_KEPT},
    /* Math libraries outside the toolkit keep -cuNN on CUDA 13 too; some
     * keep a folder per CUDA major under their own. */
    {OTHER("cublasmp", "nvidia-cublasmp", "cublasmp", 1),
     .package_folders = {{"nvidia/cublasmp/cu13/lib", CL_NAMING_LINUX},
                         {"nvidia/cublasmp/cu12/lib", CL_NAMING_LINUX}}},
    {OTHER("cufftMp", "nvidia-cufftmp", "cufftmp", 1),
     .cuda_of_major = {{11, 12}, {12, 13}},
     .package_folders = {{"nvidia/cufftmp/cu13/lib", CL_NAMING_LINUX},
                         {"nvidia/cufftmp/cu12/lib", CL_NAMING_LINUX}}},
    {OTHER("cusolverMp", "nvidia-cusolvermp", "cu13", 1)},
    {OTHER("mathdx", "nvidia-libmathdx", "cu13", 0)},
    {OTHER("cudss", "nvidia-cudss", "cu13", 0)},
    {OTHER("cusparseLt", "nvidia-cusparselt", "cusparselt", 0)},
    /* cuTENSOR installs outside nvidia/ (cutensor/lib, cutensor/bin). */
    {.name = "cutensor",
     .title = "cutensor",
     .major_rule = CL_MAJOR_KEPT,
     .wheels = {{"cutensor", 11, "cutensor-cu11", "cutensor", 0, 0, 0},
                OTHER_WHEELS("cutensor", "cutensor", "cutensor", 0)},
     .package_folders = {{"cutensor/lib", CL_NAMING_LINUX},
                         {"cutensor/bin", CL_NAMING_WINDOWS}}},
    {OTHER("cutensorMg", "cutensor", "cutensor", 0),
     .package_folders = {{"cutensor/lib", CL_NAMING_LINUX},
                         {"cutensor/bin", CL_NAMING_WINDOWS}}},
    {OTHER("cutensorMp", "cutensor", "cutensor", 1),
     .package_folders = {{"cutensor/lib", CL_NAMING_LINUX}}},
    CUQUANTUM("cudensitymat"),
    CUQUANTUM("cupauliprop"),
    CUQUANTUM("cutensornet"),
    CUQUANTUM("custabilizer"),
    CUQUANTUM("custatevec"),
    {OTHER("nvshmem_host", "nvidia-nvshmem", "nvshmem", 1)},
    /* No wheel: NVPL's FFTW comes with NVPL (aarch64 servers), in its own
     * folder of Python packages. */
    {.name = "nvpl_fftw",
     .title = "nvpl_fftw",
     .major_rule = CL_MAJOR_KEPT,
     .package_folders = {{"nvpl/lib", CL_NAMING_LINUX}}},
    /* The driver's libraries: libcuda, NVML, Jetson's DLA driver. */
    {.name = "driver",
     .title = "driver",
     .is_driver = 1,
     .major_rule = CL_MAJOR_KEPT},
};
/* clang-format on */

int cl_catalog_decode_dll_stamp(const char *file_version, char *out,
                                size_t size) {
  static const char prefix[] = "6.14.11.";
  if (strncmp(file_version, prefix, sizeof prefix - 1) != 0)
    return 0;
  const char *d = file_version + sizeof prefix - 1;
  if (strlen(d) != 4)
    return 0;
  for (int i = 0; i < 4; ++i)
    if (d[i] < '0' || d[i] > '9')
      return 0;
  snprintf(out, size, "%c%c.%c.%c", d[0], d[1], d[2], d[3]);
  return 1;
}

int cl_catalog_version_agrees(const cl_catalog_entry *entry, int major,
                              const char *version) {
  if (!version || !version[0] || entry->version_apart_from_abi || major < 0)
    return 1;
  char *end = NULL;
  long first = strtol(version, &end, 10);
  if (end == version || (*end && *end != '.'))
    return 0; /* no leading number: nothing that says which version */
  int cuda = cl_catalog_cuda_major(entry, major);
  return first == major || (cuda && first == cuda);
}

const cl_catalog_entry *cl_catalog_entries(size_t *count) {
  *count = sizeof catalog / sizeof catalog[0];
  return catalog;
}

const cl_catalog_entry *cl_catalog_find(const char *name) {
  for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; ++i)
    if (strcmp(catalog[i].name, name) == 0)
      return &catalog[i];
  return NULL;
}

const cl_catalog_entry *cl_catalog_family_main(const char *family) {
  for (size_t i = 0; family && i < sizeof catalog / sizeof catalog[0]; ++i)
    if (catalog[i].role == CL_ROLE_MAIN &&
        strcmp(catalog[i].family, family) == 0)
      return &catalog[i];
  return NULL;
}

const cl_catalog_family *cl_catalog_families(size_t *count) {
  *count = sizeof families / sizeof families[0];
  return families;
}

const cl_catalog_family *cl_catalog_family_find(const char *family) {
  for (size_t i = 0; family && i < sizeof families / sizeof families[0]; ++i)
    if (strcmp(families[i].name, family) == 0)
      return &families[i];
  return NULL;
}

const cl_catalog_family *cl_catalog_family_named(const char *name, size_t len) {
  for (size_t i = 0; name && i < sizeof families / sizeof families[0]; ++i)
    if (strlen(families[i].name) == len &&
        cl_same_nocase(families[i].name, name, len))
      return &families[i];
  return NULL;
}

/* Each entry's family row by the entry's index, built once on first use by
 * the first thread there (others meanwhile look the row up by name): the
 * matcher asks it for every name it matches. */
static atomic_int family_index_state; /* 0: not built, 1: building, 2 */
static unsigned char family_index[sizeof catalog / sizeof catalog[0]];

static void build_family_index(void) {
  for (size_t e = 0; e < sizeof catalog / sizeof catalog[0]; ++e) {
    const cl_catalog_family *f = cl_catalog_family_find(catalog[e].family);
    family_index[e] = f ? (unsigned char)(f - families) : UCHAR_MAX;
  }
}

const cl_catalog_family *cl_catalog_family_of(const cl_catalog_entry *entry) {
  uintptr_t at = (uintptr_t)entry, first = (uintptr_t)catalog;
  size_t e = (size_t)(at - first) / sizeof catalog[0];
  if (!entry || at < first || e >= sizeof catalog / sizeof catalog[0])
    return entry ? cl_catalog_family_find(entry->family) : NULL;
  int state = atomic_load_explicit(&family_index_state, memory_order_acquire);
  int expected = 0;
  if (state == 0 && atomic_compare_exchange_strong_explicit(
                        &family_index_state, &expected, 1, memory_order_acq_rel,
                        memory_order_acquire)) {
    build_family_index();
    atomic_store_explicit(&family_index_state, 2, memory_order_release);
    state = 2;
  }
  if (state != 2)
    return cl_catalog_family_find(entry->family);
  return family_index[e] == UCHAR_MAX ? NULL : &families[family_index[e]];
}

int cl_catalog_is_driver(const cl_catalog_entry *entry) {
  const cl_catalog_family *f = cl_catalog_family_of(entry);
  return f && f->is_driver;
}

int cl_catalog_opens_as_is(const cl_catalog_entry *entry, int major,
                           const char *name) {
  if (!entry || major > entry->opens_as_is_until)
    return 0;
  for (size_t k = 0; k < 2 && entry->opens_as_is[k]; ++k)
    if (!strcmp(entry->opens_as_is[k], name))
      return 1;
  return 0;
}

int cl_catalog_is_front(const cl_catalog_entry *entry) {
  const cl_catalog_family *f = cl_catalog_family_of(entry);
  return f && f->main_fronts_parts && entry->role == CL_ROLE_MAIN;
}

const char *cl_catalog_family_title(const char *family) {
  const cl_catalog_family *f = cl_catalog_family_find(family);
  return f && f->title ? f->title : family;
}

const cl_catalog_family *cl_catalog_family_of_symbol(const char *name) {
  for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i)
    for (const char *const *p = families[i].symbol_prefixes;
         p < families[i].symbol_prefixes + 2 && *p; ++p)
      if (strncmp(name, *p, strlen(*p)) == 0)
        return &families[i];
  return NULL;
}

static int starts_nocase(const char *name, size_t len, const char *prefix) {
  size_t n = prefix ? strlen(prefix) : 0;
  return n && len > n && cl_same_nocase(name, prefix, n);
}

const cl_catalog_family *cl_catalog_family_of_symbol_word(const char *name,
                                                          size_t len) {
  for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i) {
    const cl_catalog_family *f = &families[i];
    if (starts_nocase(name, len, f->internal_symbol_prefix))
      return f;
    for (size_t p = 0; p < 2 && f->symbol_prefixes[p]; ++p)
      if (starts_nocase(name, len, f->symbol_prefixes[p]))
        return f;
  }
  return NULL;
}

int cl_catalog_cuda_major_of_version(const cl_catalog_entry *entry,
                                     int abi_major, const char *version) {
  int major = 0, minor = 0;
  if (!version || sscanf(version, "%d.%d", &major, &minor) != 2 ||
      major != abi_major)
    return 0;
  const cl_catalog_family *f = cl_catalog_family_of(entry);
  int cuda = 0;
  for (const cl_cuda_release *r = f ? f->releases : NULL; r && r->abi_major;
       ++r)
    if (r->abi_major == abi_major && minor >= r->minor_from)
      cuda = r->cuda_major;
  return cuda;
}

int cl_catalog_cuda_major(const cl_catalog_entry *entry, int abi_major) {
  const cl_catalog_family *f = cl_catalog_family_of(entry);
  if (!f)
    return 0;
  for (const cl_cuda_of_major *m = f->cuda_of_major; m->abi_major; ++m)
    if (m->abi_major == abi_major)
      return m->cuda_major;
  /* Year-based majors (CUPTI on Windows) are not CUDA majors. */
  if (f->major_rule == CL_MAJOR_IS_CUDA && abi_major < 100)
    return abi_major;
  return 0;
}

/* What a template match captured. */
typedef struct captures {
  const char *major;
  size_t major_len;
  const char *tail; /* %V: ".9.7" */
  size_t tail_len;
  const char *dotted; /* %D or %Y */
  size_t dotted_len;
  int have_year;
  int fold_case; /* Windows file names are case-insensitive */
} captures;

static char fold(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Length of a run of 1..max digits starting at s (0 when none). */
static size_t digit_run(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && is_digit(s[n]))
    ++n;
  return n;
}

/* Match template t against the rest of name s, backtracking over the
 * variable-length fields. Templates are short and fixed, names are file
 * names, so the recursion depth is bounded by the template length. */
static int match_template(const char *t, const char *s, captures *cap) {
  if (*t == '\0')
    return *s == '\0';
  if (t[0] != '%') {
    int same = cap->fold_case ? fold(*t) == fold(*s) : *t == *s;
    return same && match_template(t + 1, s + 1, cap);
  }
  switch (t[1]) {
  case 'M': {
    /* Longest first, so "cudart64_%M.dll" takes all digits. */
    for (size_t n = digit_run(s, 4); n >= 1; --n) {
      cap->major = s;
      cap->major_len = n;
      if (match_template(t + 2, s + n, cap))
        return 1;
    }
    return 0;
  }
  case 'm':
    return is_digit(*s) && match_template(t + 2, s + 1, cap);
  case 'V': {
    /* Zero or more ".digits" groups, longest first. */
    size_t ends[8];
    size_t count = 0, pos = 0;
    ends[count++] = 0;
    while (count < 8 && s[pos] == '.') {
      size_t n = digit_run(s + pos + 1, 9);
      if (n == 0)
        break;
      pos += 1 + n;
      ends[count++] = pos;
    }
    while (count-- > 0) {
      cap->tail = s;
      cap->tail_len = ends[count];
      if (match_template(t + 2, s + ends[count], cap))
        return 1;
    }
    return 0;
  }
  case 'D':
  case 'Y': {
    /* digits(.digits)*, the whole dotted run (no backtracking needed: what
     * follows in these templates is never a digit or a dot). */
    size_t pos = digit_run(s, 9);
    if (pos == 0)
      return 0;
    while (s[pos] == '.' && is_digit(s[pos + 1]))
      pos += 1 + digit_run(s + pos + 1, 9);
    cap->dotted = s;
    cap->dotted_len = pos;
    cap->have_year = t[1] == 'Y';
    return match_template(t + 2, s + pos, cap);
  }
  default:
    return 0;
  }
}

static int parse_int(const char *s, size_t len) {
  int v = 0;
  for (size_t i = 0; i < len && i < 9; ++i)
    v = v * 10 + (s[i] - '0');
  return v;
}

static size_t count_components(const char *s) {
  size_t n = *s ? 1 : 0;
  for (; *s; ++s)
    n += *s == '.';
  return n;
}

/* The CUDA major a CUPTI year version shipped with: the first year.release
 * of each, read from NVIDIA's win_amd64 wheels (nvidia-cuda-cupti-cu12
 * 12.1.105: cupti64_2023.1.1.dll, 12.4.127: 2024.1.1, 12.6.80: 2024.3.2,
 * 12.8.90: 2025.1.1, 12.9.79: 2025.2.1; nvidia-cuda-cupti 13.0.85:
 * 2025.3.1, 13.1.115: 2025.4.1, 13.2.86: 2026.1.2). CUDA 12.0 shipped
 * 2022.4 and 11.8 2022.3; releases after the table's last row are taken
 * for its CUDA major until a row says otherwise. 0 before CUDA 11. */
static int cuda_of_year_version(int year, int release) {
  static const struct {
    int year, release, cuda;
  } firsts[] = {{2025, 3, 13}, {2022, 4, 12}, {2020, 1, 11}};
  for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; ++i)
    if (year > firsts[i].year ||
        (year == firsts[i].year && release >= firsts[i].release))
      return firsts[i].cuda;
  return 0;
}

static int match_entry(const cl_catalog_entry *e, const char *tmpl,
                       const char *file_name, cl_naming naming,
                       cl_name_match *out) {
  captures cap;
  memset(&cap, 0, sizeof cap);
  cap.fold_case = naming == CL_NAMING_WINDOWS;
  if (!match_template(tmpl, file_name, &cap))
    return 0;
  char version[64] = "";
  int major;
  if (cap.major) {
    major = parse_int(cap.major, cap.major_len);
    if (major < e->min_major || major > e->max_major)
      return 0;
    snprintf(version, sizeof version, "%.*s%.*s", (int)cap.major_len, cap.major,
             (int)cap.tail_len, cap.tail ? cap.tail : "");
  } else if (cap.have_year) {
    /* CUPTI's Windows DLL carries its year-based version; its major is the
     * CUDA major that version shipped with, so cupti=13 selects it. */
    size_t year_len = digit_run(cap.dotted, 9);
    int release = cap.dotted[year_len] == '.'
                      ? parse_int(cap.dotted + year_len + 1,
                                  digit_run(cap.dotted + year_len + 1, 9))
                      : 0;
    major = cuda_of_year_version(parse_int(cap.dotted, year_len), release);
    if (major < e->min_major || major > e->max_major)
      return 0;
    snprintf(version, sizeof version, "%.*s", (int)cap.dotted_len, cap.dotted);
  } else {
    major = e->min_major; /* fixed ABI (driver) */
    if (cap.dotted)
      snprintf(version, sizeof version, "%.*s", (int)cap.dotted_len,
               cap.dotted);
  }
  out->entry = e;
  out->major = major;
  out->cuda_major = cl_catalog_cuda_major(e, major);
  /* Only a name carrying major.minor.patch tells more than the SONAME does
   * (libcudart.so.11.0 is CUDA 11's SONAME, not a full version). */
  if (count_components(version) >= 3)
    memcpy(out->name_version, version, sizeof version);
  else
    out->name_version[0] = '\0';
  return 1;
}

/* --- the index of templates by the text they start with ------------------
 *
 * Every template starts with literal text ("libcublasLt.so.", "cudart64_")
 * before its first % field. A name can only match a template whose literal
 * start it begins with, so the index maps each literal start to its
 * templates, and a name is looked up once per distinct length of those
 * starts (a dozen hash lookups) instead of being tried against every
 * template: a scan meets ld.so.cache's 775 names, an explain tens of
 * thousands of symbol references. Built once per naming, on first use,
 * by the first thread there; others meanwhile match without it. */

#define INDEX_SLOTS 256u /* a power of two, over twice the templates */
#define INDEX_REFS 8u    /* templates sharing one literal start, at most */
#define INDEX_LENGTHS 48u

typedef struct template_ref {
  unsigned short entry, slot; /* catalog[entry].*_names[slot] */
} template_ref;

typedef struct start_bucket {
  const char *start; /* the template's text, its first `length` bytes */
  size_t length;
  template_ref refs[INDEX_REFS];
  size_t count;
} start_bucket;

typedef struct template_index {
  atomic_int state; /* 0: not built, 1: being built, 2: built, 3: unusable */
  start_bucket buckets[INDEX_SLOTS];
  size_t lengths[INDEX_LENGTHS]; /* distinct start lengths, ascending */
  size_t length_count;
} template_index;

static template_index indexes[2]; /* Linux, Windows */

static size_t start_hash(const char *s, size_t length, int fold_case) {
  size_t h = 2166136261u;
  for (size_t i = 0; i < length; ++i)
    h = (h ^ (unsigned char)(fold_case ? fold(s[i]) : s[i])) * 16777619u;
  return h;
}

static int same_start(const char *a, const char *b, size_t length,
                      int fold_case) {
  for (size_t i = 0; i < length; ++i)
    if (fold_case ? fold(a[i]) != fold(b[i]) : a[i] != b[i])
      return 0;
  return 1;
}

static start_bucket *bucket_for(template_index *x, const char *start,
                                size_t length, int fold_case) {
  size_t mask = INDEX_SLOTS - 1;
  for (size_t i = start_hash(start, length, fold_case) & mask, n = 0;
       n < INDEX_SLOTS; i = (i + 1) & mask, ++n) {
    start_bucket *b = &x->buckets[i];
    if (!b->start ||
        (b->length == length && same_start(b->start, start, length, fold_case)))
      return b;
  }
  return NULL;
}

/* 1 when built, 0 when the table does not fit the index (then matching
 * goes on without it). */
static int build_index(template_index *x, cl_naming naming) {
  int fold_case = naming == CL_NAMING_WINDOWS;
  for (size_t e = 0; e < sizeof catalog / sizeof catalog[0]; ++e) {
    const char *const *names = naming == CL_NAMING_LINUX
                                   ? catalog[e].linux_names
                                   : catalog[e].windows_names;
    for (size_t t = 0; t < 3 && names[t]; ++t) {
      size_t length = strcspn(names[t], "%");
      start_bucket *b = bucket_for(x, names[t], length, fold_case);
      if (!b || (b->start && b->count == INDEX_REFS))
        return 0;
      if (!b->start) {
        b->start = names[t];
        b->length = length;
        size_t at = 0;
        while (at < x->length_count && x->lengths[at] < length)
          ++at;
        if (at == x->length_count || x->lengths[at] != length) {
          if (x->length_count == INDEX_LENGTHS)
            return 0;
          memmove(&x->lengths[at + 1], &x->lengths[at],
                  (x->length_count - at) * sizeof x->lengths[0]);
          x->lengths[at] = length;
          x->length_count++;
        }
      }
      b->refs[b->count].entry = (unsigned short)e;
      b->refs[b->count].slot = (unsigned short)t;
      b->count++;
    }
  }
  return 1;
}

static template_index *index_of(cl_naming naming) {
  template_index *x = &indexes[naming == CL_NAMING_WINDOWS];
  int state = atomic_load_explicit(&x->state, memory_order_acquire);
  if (state == 2)
    return x;
  int expected = 0;
  if (state != 0 ||
      !atomic_compare_exchange_strong_explicit(
          &x->state, &expected, 1, memory_order_acq_rel, memory_order_acquire))
    return NULL; /* another thread builds it, or it cannot be built */
  atomic_store_explicit(&x->state, build_index(x, naming) ? 2 : 3,
                        memory_order_release);
  return atomic_load_explicit(&x->state, memory_order_acquire) == 2 ? x : NULL;
}

static int ref_before(template_ref a, template_ref b) {
  return a.entry < b.entry || (a.entry == b.entry && a.slot < b.slot);
}

/* Match through the index: the templates whose literal start the name
 * begins with, tried in table order, as the plain loop tries them. */
static int match_indexed(template_index *x, const char *file_name, size_t len,
                         cl_naming naming, cl_name_match *out) {
  int fold_case = naming == CL_NAMING_WINDOWS;
  template_ref found[INDEX_LENGTHS * INDEX_REFS];
  size_t count = 0;
  for (size_t l = 0; l < x->length_count && x->lengths[l] <= len; ++l) {
    const start_bucket *b = bucket_for(x, file_name, x->lengths[l], fold_case);
    for (size_t r = 0; b && b->start && r < b->count; ++r) {
      /* Insertion in table order: a handful at most. */
      size_t at = count++;
      while (at > 0 && ref_before(b->refs[r], found[at - 1])) {
        found[at] = found[at - 1];
        --at;
      }
      found[at] = b->refs[r];
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const cl_catalog_entry *e = &catalog[found[i].entry];
    const char *t = naming == CL_NAMING_LINUX ? e->linux_names[found[i].slot]
                                              : e->windows_names[found[i].slot];
    if (match_entry(e, t, file_name, naming, out))
      return 1;
  }
  return 0;
}

/* --- answers remembered ----------------------------------------------------
 *
 * The same few names are asked again and again: a verdict asks of every
 * object of every tree it resolves, of each CUDA reference's version file
 * and of each name a library holds as text (a preload of cuDNN and cuBLAS
 * asked about 1,700 times for about 150 names). Each thread keeps the
 * answers for the last names it asked in a small table, one slot per hash
 * of the name: the catalog never changes, so an answer never goes stale.
 * A name too long for a slot is matched every time. */

#define MEMO_SLOTS 64u /* a power of two */
#define MEMO_NAME 96u  /* longer names are not remembered */

typedef struct match_memo {
  char name[MEMO_NAME];
  unsigned char naming, known, matched;
  cl_name_match match;
} match_memo;

static CL_THREAD_LOCAL match_memo memos[MEMO_SLOTS];

/* The slot of file_name (its answer when known is set and the name and
 * naming are the same), or NULL when the name is not remembered. */
static match_memo *memo_of(const char *file_name, size_t len,
                           cl_naming naming) {
  if (len >= MEMO_NAME)
    return NULL;
  size_t h = 2166136261u ^ (size_t)naming;
  for (size_t i = 0; i < len; ++i)
    h = (h ^ (unsigned char)file_name[i]) * 16777619u;
  match_memo *memo = &memos[(h ^ (h >> 11)) & (MEMO_SLOTS - 1)];
  if (memo->known && (memo->naming != (unsigned char)naming ||
                      memcmp(memo->name, file_name, len + 1) != 0))
    memo->known = 0; /* another name's: taken over */
  return memo;
}

int cl_catalog_match(const char *file_name, cl_naming naming,
                     cl_name_match *out) {
  /* Cheap rejections first: scans call this for every file in a folder. */
  size_t len = strlen(file_name);
  if (naming == CL_NAMING_LINUX) {
    /* libnvvm.so and libnvcudla.so are loaded by that name. */
    if (len < 7 || strncmp(file_name, "lib", 3) != 0 ||
        (!strstr(file_name, ".so.") && strcmp(file_name + len - 3, ".so")))
      return 0;
  } else {
    if (len < 5 || fold(file_name[len - 1]) != 'l' ||
        fold(file_name[len - 2]) != 'l' || fold(file_name[len - 3]) != 'd' ||
        file_name[len - 4] != '.')
      return 0;
  }
  match_memo *memo = memo_of(file_name, len, naming);
  if (memo && memo->known) {
    if (memo->matched)
      *out = memo->match;
    return memo->matched;
  }
  template_index *x = index_of(naming);
  cl_name_match m;
  int matched = x ? match_indexed(x, file_name, len, naming, &m)
                  : cl_catalog_match_unindexed(file_name, naming, &m);
  if (matched)
    *out = m;
  if (memo) {
    memcpy(memo->name, file_name, len + 1);
    memo->naming = (unsigned char)naming;
    memo->known = 1;
    memo->matched = (unsigned char)matched;
    if (matched)
      memo->match = m;
  }
  return matched;
}

int cl_catalog_match_unindexed(const char *file_name, cl_naming naming,
                               cl_name_match *out) {
  for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; ++i) {
    const cl_catalog_entry *e = &catalog[i];
    const char *const *names =
        naming == CL_NAMING_LINUX ? e->linux_names : e->windows_names;
    for (size_t t = 0; t < 3 && names[t]; ++t)
      if (match_entry(e, names[t], file_name, naming, out))
        return 1;
  }
  return 0;
}

int cl_catalog_match_unversioned(const char *name, cl_name_match *out) {
  size_t len = strlen(name);
  if (len < 7 || strncmp(name, "lib", 3) != 0 ||
      strcmp(name + len - 3, ".so") != 0)
    return 0;
  for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; ++i) {
    const char *t = catalog[i].linux_names[0];
    /* "libX.so.%M%V": the same name up to the major. */
    if (!t || strncmp(t, name, len) != 0 || strcmp(t + len, ".%M%V") != 0 ||
        cl_catalog_is_driver(&catalog[i]))
      continue;
    memset(out, 0, sizeof *out);
    out->entry = &catalog[i];
    return 1;
  }
  return 0;
}

int cl_catalog_canonical_name(const cl_catalog_entry *entry,
                              const char *file_name, cl_naming naming) {
  const char *const *names =
      naming == CL_NAMING_LINUX ? entry->linux_names : entry->windows_names;
  for (size_t t = 0; t < 3 && names[t]; ++t) {
    captures cap;
    memset(&cap, 0, sizeof cap); /* fold_case 0: letter for letter */
    if (match_template(names[t], file_name, &cap))
      return 1;
  }
  return 0;
}

void cl_catalog_file_name(const cl_catalog_entry *entry, cl_naming naming,
                          const char *major, char *out, size_t size) {
  const char *t = naming == CL_NAMING_WINDOWS ? entry->windows_names[0]
                                              : entry->linux_names[0];
  size_t n = 0;
  if (size == 0)
    return;
  out[0] = '\0';
  for (; t && *t && n + 1 < size; ++t) {
    if (t[0] == '%' && t[1] == 'M') {
      n += (size_t)snprintf(out + n, size - n, "%s", major);
      ++t;
    } else if (t[0] == '%' && t[1] == 'm') {
      /* A major's own name: its .0 release's (nvrtc64_120_0.dll, which
       * every CUDA 12 NVRTC keeps; nvJitLink_130_0.dll), not "nvrtc64_12_0". */
      n += (size_t)snprintf(out + n, size - n, "0");
      ++t;
    } else if (t[0] == '%' && t[1]) {
      ++t; /* %V and the like: the version tail, left out */
    } else {
      out[n++] = *t;
      out[n] = '\0';
    }
    if (n >= size)
      n = size - 1;
  }
}

/* auditwheel renames what it bundles lib<name>-<8 hex>.so<tail>
 * (libcudnn-463fd6d5.so.8.9.7); write the original name
 * (libcudnn.so.8.9.7) into out. Returns 0 for any other name. */
int cl_catalog_auditwheel_original(const char *name, char *out, size_t size) {
  const char *so = strstr(name, ".so");
  if (!so || so - name < 9 || strncmp(name, "lib", 3) != 0)
    return 0;
  const char *dash = so - 9;
  if (*dash != '-')
    return 0;
  for (const char *h = dash + 1; h < so; ++h)
    if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')))
      return 0;
  size_t head = (size_t)(dash - name), tail = strlen(so);
  if (head + tail + 1 > size)
    return 0;
  memcpy(out, name, head);
  memcpy(out + head, so, tail + 1);
  return 1;
}

int cl_catalog_match_renamed(const char *file_name, cl_naming naming,
                             cl_name_match *out) {
  if (cl_catalog_match(file_name, naming, out))
    return 1;
  char original[256];
  return naming == CL_NAMING_LINUX &&
         cl_catalog_auditwheel_original(file_name, original, sizeof original) &&
         cl_catalog_match(original, naming, out);
}
