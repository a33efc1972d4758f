/* SPDX-License-Identifier: MIT */
/* test_catalog.c - exact-name matching of the naming-convention catalog, and
 * the family rows every stage asks (adding a family is a row and this test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/strutil.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "scan/layouts.h"
#include "scan/roots.h"

#include <stdio.h>
#include <string.h>

typedef struct expectation {
  const char *file_name;
  cl_naming naming;
  const char *name; /* NULL: must not match */
  const char *family;
  int major;
  int cuda_major;
  const char *name_version;
} expectation;

static const expectation cases[] = {
    /* Exact names: the family's siblings are never mistaken for it. */
    {"libcublas.so.12", CL_NAMING_LINUX, "cublas", "cublas", 12, 12, ""},
    {"libcublasLt.so.12", CL_NAMING_LINUX, "cublasLt", "cublas", 12, 12, ""},
    {"libcudnn.so.8", CL_NAMING_LINUX, "cudnn", "cudnn", 8, 0, ""},
    {"libcudnn.so.8.9.7", CL_NAMING_LINUX, "cudnn", "cudnn", 8, 0, "8.9.7"},
    {"libcudnn_ops_infer.so.8", CL_NAMING_LINUX, "cudnn_ops_infer", "cudnn", 8,
     0, ""},
    {"libcudnn_adv_train.so.8.9.2", CL_NAMING_LINUX, "cudnn_adv_train", "cudnn",
     8, 0, "8.9.2"},
    {"libcudnn_ops.so.9", CL_NAMING_LINUX, "cudnn_ops", "cudnn", 9, 0, ""},
    {"libcudnn_engines_tensor_ir.so.9", CL_NAMING_LINUX,
     "cudnn_engines_tensor_ir", "cudnn", 9, 0, ""},
    {"libcudnn_ext.so.9", CL_NAMING_LINUX, "cudnn_ext", "cudnn", 9, 0, ""},
    {"libcudart.so.11.0", CL_NAMING_LINUX, "cudart", "cudart", 11, 11, ""},
    {"libcudart.so.12.4.127", CL_NAMING_LINUX, "cudart", "cudart", 12, 12,
     "12.4.127"},
    {"libcudart.so.13", CL_NAMING_LINUX, "cudart", "cudart", 13, 13, ""},
    {"libnvrtc.so.13", CL_NAMING_LINUX, "nvrtc", "nvrtc", 13, 13, ""},
    {"libnvJitLink.so.12", CL_NAMING_LINUX, "nvJitLink", "nvjitlink", 12, 12,
     ""},
    {"libcufft.so.10", CL_NAMING_LINUX, "cufft", "cufft", 10, 11, ""},
    {"libcufft.so.11", CL_NAMING_LINUX, "cufft", "cufft", 11, 12, ""},
    {"libcufft.so.12", CL_NAMING_LINUX, "cufft", "cufft", 12, 13, ""},
    {"libcurand.so.10", CL_NAMING_LINUX, "curand", "curand", 10, 0, ""},
    {"libcusparse.so.12", CL_NAMING_LINUX, "cusparse", "cusparse", 12, 0, ""},
    {"libcusolver.so.11", CL_NAMING_LINUX, "cusolver", "cusolver", 11, 0, ""},
    {"libcusolver.so.12", CL_NAMING_LINUX, "cusolver", "cusolver", 12, 13, ""},
    {"libnccl.so.2", CL_NAMING_LINUX, "nccl", "nccl", 2, 0, ""},
    {"libcupti.so.12", CL_NAMING_LINUX, "cupti", "cupti", 12, 12, ""},
    {"libcuda.so.1", CL_NAMING_LINUX, "cuda", "driver", 1, 0, ""},
    {"libcuda.so.580.65.06", CL_NAMING_LINUX, "cuda", "driver", 1, 0,
     "580.65.06"},
    {"libnvidia-ml.so.1", CL_NAMING_LINUX, "nvml", "driver", 1, 0, ""},
    {"libcurand.so.11", CL_NAMING_LINUX, "curand", "curand", 11, 0, ""},
    {"libnvvm.so.4", CL_NAMING_LINUX, "nvvm", "nvvm", 4, 0, ""},
    {"libnvvm.so.4.0.0", CL_NAMING_LINUX, "nvvm", "nvvm", 4, 0, "4.0.0"},
    {"libnvvm.so", CL_NAMING_LINUX, "nvvm", "nvvm", 4, 0, ""},
    {"libnvcudla.so", CL_NAMING_LINUX, "nvcudla", "driver", 1, 0, ""},
    {"libnppc.so.13", CL_NAMING_LINUX, "nppc", "nppc", 13, 13, ""},
    {"libnpps.so.12.3.1.54", CL_NAMING_LINUX, "npps", "npps", 12, 12,
     "12.3.1.54"},
    {"libcufftMp.so.11", CL_NAMING_LINUX, "cufftMp", "cufftMp", 11, 12, ""},
    {"libcusolverMg.so.12", CL_NAMING_LINUX, "cusolverMg", "cusolverMg", 12, 13,
     ""},
    {"libcutensor.so.2", CL_NAMING_LINUX, "cutensor", "cutensor", 2, 0, ""},
    {"libcutensorMg.so.2", CL_NAMING_LINUX, "cutensorMg", "cutensorMg", 2, 0,
     ""},
    {"libcustatevec.so.1", CL_NAMING_LINUX, "custatevec", "custatevec", 1, 0,
     ""},
    {"libnvshmem_host.so.3", CL_NAMING_LINUX, "nvshmem_host", "nvshmem_host", 3,
     0, ""},
    /* Unversioned development links of libraries loaded by SONAME. */
    {"libcufile.so", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libnppc.so", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcutensor.so.1", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    /* Not CUDA libraries, or not a name any loader asks for. */
    {"libcudnnfake.so.1", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn.so", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn_ops.so.8", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn_ops_infer.so.9", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn.so.7", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libnvrtc.alt.so.13", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libnvrtc-builtins.so.13.0", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcublas.so.12.", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcublas.so.12x", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"cublas64_12.dll", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    /* Windows names. */
    {"cudart64_110.dll", CL_NAMING_WINDOWS, "cudart", "cudart", 11, 11, ""},
    {"cudart64_12.dll", CL_NAMING_WINDOWS, "cudart", "cudart", 12, 12, ""},
    {"cudart64_13.dll", CL_NAMING_WINDOWS, "cudart", "cudart", 13, 13, ""},
    {"cublas64_12.dll", CL_NAMING_WINDOWS, "cublas", "cublas", 12, 12, ""},
    {"cublasLt64_13.dll", CL_NAMING_WINDOWS, "cublasLt", "cublas", 13, 13, ""},
    {"CUBLAS64_12.DLL", CL_NAMING_WINDOWS, "cublas", "cublas", 12, 12, ""},
    {"cudnn64_8.dll", CL_NAMING_WINDOWS, "cudnn", "cudnn", 8, 0, ""},
    {"cudnn_cnn_infer64_8.dll", CL_NAMING_WINDOWS, "cudnn_cnn_infer", "cudnn",
     8, 0, ""},
    {"cudnn_engines_precompiled64_9.dll", CL_NAMING_WINDOWS,
     "cudnn_engines_precompiled", "cudnn", 9, 0, ""},
    {"nvrtc64_112_0.dll", CL_NAMING_WINDOWS, "nvrtc", "nvrtc", 11, 11, ""},
    {"nvrtc64_120_0.dll", CL_NAMING_WINDOWS, "nvrtc", "nvrtc", 12, 12, ""},
    {"nvJitLink_130_0.dll", CL_NAMING_WINDOWS, "nvJitLink", "nvjitlink", 13, 13,
     ""},
    {"cufft64_11.dll", CL_NAMING_WINDOWS, "cufft", "cufft", 11, 12, ""},
    {"curand64_10.dll", CL_NAMING_WINDOWS, "curand", "curand", 10, 0, ""},
    /* CUPTI's year versions take the CUDA major they shipped with. */
    {"cupti64_2025.1.0.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 12, 12,
     "2025.1.0"},
    {"cupti64_2022.4.1.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 12, 12,
     "2022.4.1"},
    {"cupti64_2025.2.1.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 12, 12,
     "2025.2.1"},
    {"cupti64_2025.3.1.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 13, 13,
     "2025.3.1"},
    {"cupti64_2026.1.2.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 13, 13,
     "2026.1.2"},
    {"cupti64_2022.3.0.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 11, 11,
     "2022.3.0"},
    {"cupti64_13.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 13, 13, ""},
    {"cupti64_2019.1.0.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    /* The breadth of NVIDIA's libraries (docs/scan-contract.md). */
    {"curand64_11.dll", CL_NAMING_WINDOWS, "curand", "curand", 11, 0, ""},
    {"nvvm64_40_0.dll", CL_NAMING_WINDOWS, "nvvm", "nvvm", 4, 0, ""},
    {"nvvm70.dll", CL_NAMING_WINDOWS, "nvvm", "nvvm", 7, 0, ""},
    {"nvfatbin_130_0.dll", CL_NAMING_WINDOWS, "nvfatbin", "nvfatbin", 13, 13,
     ""},
    {"nppig64_12.dll", CL_NAMING_WINDOWS, "nppig", "nppig", 12, 12, ""},
    {"cusparseLt_13.dll", CL_NAMING_WINDOWS, "cusparseLt", "cusparseLt", 0, 0,
     ""},
    {"cudss64_0.dll", CL_NAMING_WINDOWS, "cudss", "cudss", 0, 0, ""},
    {"cufftw64_12.dll", CL_NAMING_WINDOWS, "cufftw", "cufftw", 12, 13, ""},
    {"nvcuda.dll", CL_NAMING_WINDOWS, "cuda", "driver", 1, 0, ""},
    {"nvml.dll", CL_NAMING_WINDOWS, "nvml", "driver", 1, 0, ""},
    {"cudnnfake64_9.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    {"cublas64.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    {"cudart64_1100.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    {"libcublas.so.12", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
};

static void every_case_matches_as_documented(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const expectation *e = &cases[i];
    cl_name_match m;
    memset(&m, 0, sizeof m);
    int matched = cl_catalog_match(e->file_name, e->naming, &m);
    if (!e->name) {
      if (matched)
        fail_msg("%s must not match, matched %s", e->file_name, m.entry->name);
      continue;
    }
    if (!matched)
      fail_msg("%s did not match", e->file_name);
    assert_string_equal(m.entry->name, e->name);
    assert_string_equal(m.entry->family, e->family);
    assert_int_equal(m.major, e->major);
    assert_int_equal(m.cuda_major, e->cuda_major);
    assert_string_equal(m.name_version, e->name_version);
  }
}

/* Every file name in NVIDIA's cuda-pathfinder 1.9.1 descriptor catalog
 * (cuda/pathfinder/_dynamic_libs/descriptor_catalog.py: linux_sonames and
 * windows_dlls), with the library it names there. The acceptance tier reads
 * the installed package's catalog too, so a newer release's names show up
 * there as failures. */
static const struct {
  const char *file_name;
  cl_naming naming;
  const char *library;
} pathfinder_names[] = {
    {"libcudart.so.13", CL_NAMING_LINUX, "cudart"},
    {"libcudart.so.12", CL_NAMING_LINUX, "cudart"},
    {"cudart64_13.dll", CL_NAMING_WINDOWS, "cudart"},
    {"cudart64_12.dll", CL_NAMING_WINDOWS, "cudart"},
    {"libnvfatbin.so.13", CL_NAMING_LINUX, "nvfatbin"},
    {"libnvfatbin.so.12", CL_NAMING_LINUX, "nvfatbin"},
    {"nvfatbin_130_0.dll", CL_NAMING_WINDOWS, "nvfatbin"},
    {"nvfatbin_120_0.dll", CL_NAMING_WINDOWS, "nvfatbin"},
    {"libnvJitLink.so.13", CL_NAMING_LINUX, "nvJitLink"},
    {"libnvJitLink.so.12", CL_NAMING_LINUX, "nvJitLink"},
    {"nvJitLink_130_0.dll", CL_NAMING_WINDOWS, "nvJitLink"},
    {"nvJitLink_120_0.dll", CL_NAMING_WINDOWS, "nvJitLink"},
    {"libnvrtc.so.13", CL_NAMING_LINUX, "nvrtc"},
    {"libnvrtc.so.12", CL_NAMING_LINUX, "nvrtc"},
    {"nvrtc64_130_0.dll", CL_NAMING_WINDOWS, "nvrtc"},
    {"nvrtc64_120_0.dll", CL_NAMING_WINDOWS, "nvrtc"},
    {"libnvvm.so.4", CL_NAMING_LINUX, "nvvm"},
    {"libnvvm.so", CL_NAMING_LINUX, "nvvm"},
    {"nvvm70.dll", CL_NAMING_WINDOWS, "nvvm"},
    {"nvvm64_40_0.dll", CL_NAMING_WINDOWS, "nvvm"},
    {"nvvm64.dll", CL_NAMING_WINDOWS, "nvvm"},
    {"libcublas.so.13", CL_NAMING_LINUX, "cublas"},
    {"libcublas.so.12", CL_NAMING_LINUX, "cublas"},
    {"cublas64_13.dll", CL_NAMING_WINDOWS, "cublas"},
    {"cublas64_12.dll", CL_NAMING_WINDOWS, "cublas"},
    {"libcublasLt.so.13", CL_NAMING_LINUX, "cublasLt"},
    {"libcublasLt.so.12", CL_NAMING_LINUX, "cublasLt"},
    {"cublasLt64_13.dll", CL_NAMING_WINDOWS, "cublasLt"},
    {"cublasLt64_12.dll", CL_NAMING_WINDOWS, "cublasLt"},
    {"libcufft.so.12", CL_NAMING_LINUX, "cufft"},
    {"libcufft.so.11", CL_NAMING_LINUX, "cufft"},
    {"cufft64_12.dll", CL_NAMING_WINDOWS, "cufft"},
    {"cufft64_11.dll", CL_NAMING_WINDOWS, "cufft"},
    {"libcufftw.so.12", CL_NAMING_LINUX, "cufftw"},
    {"libcufftw.so.11", CL_NAMING_LINUX, "cufftw"},
    {"cufftw64_12.dll", CL_NAMING_WINDOWS, "cufftw"},
    {"cufftw64_11.dll", CL_NAMING_WINDOWS, "cufftw"},
    {"libcurand.so.11", CL_NAMING_LINUX, "curand"},
    {"libcurand.so.10", CL_NAMING_LINUX, "curand"},
    {"curand64_11.dll", CL_NAMING_WINDOWS, "curand"},
    {"curand64_10.dll", CL_NAMING_WINDOWS, "curand"},
    {"libcusolver.so.12", CL_NAMING_LINUX, "cusolver"},
    {"libcusolver.so.11", CL_NAMING_LINUX, "cusolver"},
    {"cusolver64_12.dll", CL_NAMING_WINDOWS, "cusolver"},
    {"cusolver64_11.dll", CL_NAMING_WINDOWS, "cusolver"},
    {"libcusolverMg.so.12", CL_NAMING_LINUX, "cusolverMg"},
    {"libcusolverMg.so.11", CL_NAMING_LINUX, "cusolverMg"},
    {"cusolverMg64_12.dll", CL_NAMING_WINDOWS, "cusolverMg"},
    {"cusolverMg64_11.dll", CL_NAMING_WINDOWS, "cusolverMg"},
    {"libcusparse.so.12", CL_NAMING_LINUX, "cusparse"},
    {"cusparse64_12.dll", CL_NAMING_WINDOWS, "cusparse"},
    {"libnppc.so.13", CL_NAMING_LINUX, "nppc"},
    {"libnppc.so.12", CL_NAMING_LINUX, "nppc"},
    {"nppc64_13.dll", CL_NAMING_WINDOWS, "nppc"},
    {"nppc64_12.dll", CL_NAMING_WINDOWS, "nppc"},
    {"libnppial.so.13", CL_NAMING_LINUX, "nppial"},
    {"libnppial.so.12", CL_NAMING_LINUX, "nppial"},
    {"nppial64_13.dll", CL_NAMING_WINDOWS, "nppial"},
    {"nppial64_12.dll", CL_NAMING_WINDOWS, "nppial"},
    {"libnppicc.so.13", CL_NAMING_LINUX, "nppicc"},
    {"libnppicc.so.12", CL_NAMING_LINUX, "nppicc"},
    {"nppicc64_13.dll", CL_NAMING_WINDOWS, "nppicc"},
    {"nppicc64_12.dll", CL_NAMING_WINDOWS, "nppicc"},
    {"libnppidei.so.13", CL_NAMING_LINUX, "nppidei"},
    {"libnppidei.so.12", CL_NAMING_LINUX, "nppidei"},
    {"nppidei64_13.dll", CL_NAMING_WINDOWS, "nppidei"},
    {"nppidei64_12.dll", CL_NAMING_WINDOWS, "nppidei"},
    {"libnppif.so.13", CL_NAMING_LINUX, "nppif"},
    {"libnppif.so.12", CL_NAMING_LINUX, "nppif"},
    {"nppif64_13.dll", CL_NAMING_WINDOWS, "nppif"},
    {"nppif64_12.dll", CL_NAMING_WINDOWS, "nppif"},
    {"libnppig.so.13", CL_NAMING_LINUX, "nppig"},
    {"libnppig.so.12", CL_NAMING_LINUX, "nppig"},
    {"nppig64_13.dll", CL_NAMING_WINDOWS, "nppig"},
    {"nppig64_12.dll", CL_NAMING_WINDOWS, "nppig"},
    {"libnppim.so.13", CL_NAMING_LINUX, "nppim"},
    {"libnppim.so.12", CL_NAMING_LINUX, "nppim"},
    {"nppim64_13.dll", CL_NAMING_WINDOWS, "nppim"},
    {"nppim64_12.dll", CL_NAMING_WINDOWS, "nppim"},
    {"libnppist.so.13", CL_NAMING_LINUX, "nppist"},
    {"libnppist.so.12", CL_NAMING_LINUX, "nppist"},
    {"nppist64_13.dll", CL_NAMING_WINDOWS, "nppist"},
    {"nppist64_12.dll", CL_NAMING_WINDOWS, "nppist"},
    {"libnppisu.so.13", CL_NAMING_LINUX, "nppisu"},
    {"libnppisu.so.12", CL_NAMING_LINUX, "nppisu"},
    {"nppisu64_13.dll", CL_NAMING_WINDOWS, "nppisu"},
    {"nppisu64_12.dll", CL_NAMING_WINDOWS, "nppisu"},
    {"libnppitc.so.13", CL_NAMING_LINUX, "nppitc"},
    {"libnppitc.so.12", CL_NAMING_LINUX, "nppitc"},
    {"nppitc64_13.dll", CL_NAMING_WINDOWS, "nppitc"},
    {"nppitc64_12.dll", CL_NAMING_WINDOWS, "nppitc"},
    {"libnpps.so.13", CL_NAMING_LINUX, "npps"},
    {"libnpps.so.12", CL_NAMING_LINUX, "npps"},
    {"npps64_13.dll", CL_NAMING_WINDOWS, "npps"},
    {"npps64_12.dll", CL_NAMING_WINDOWS, "npps"},
    {"libnvblas.so.13", CL_NAMING_LINUX, "nvblas"},
    {"libnvblas.so.12", CL_NAMING_LINUX, "nvblas"},
    {"nvblas64_13.dll", CL_NAMING_WINDOWS, "nvblas"},
    {"nvblas64_12.dll", CL_NAMING_WINDOWS, "nvblas"},
    {"libnvjpeg.so.13", CL_NAMING_LINUX, "nvjpeg"},
    {"libnvjpeg.so.12", CL_NAMING_LINUX, "nvjpeg"},
    {"nvjpeg64_13.dll", CL_NAMING_WINDOWS, "nvjpeg"},
    {"nvjpeg64_12.dll", CL_NAMING_WINDOWS, "nvjpeg"},
    {"libcufile.so.0", CL_NAMING_LINUX, "cufile"},
    {"libcupti.so.13", CL_NAMING_LINUX, "cupti"},
    {"libcupti.so.12", CL_NAMING_LINUX, "cupti"},
    {"cupti64_13.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.3.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.3.0.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.2.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.2.0.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.1.2.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.1.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2026.1.0.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2025.4.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2025.3.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2025.2.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2025.1.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2024.3.2.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2024.2.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2024.1.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2023.3.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2023.2.2.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2023.1.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"cupti64_2022.4.1.dll", CL_NAMING_WINDOWS, "cupti"},
    {"libcudla.so.1", CL_NAMING_LINUX, "cudla"},
    {"cudla.dll", CL_NAMING_WINDOWS, "cudla"},
    {"libcublasmp.so.0", CL_NAMING_LINUX, "cublasmp"},
    {"libcufftMp.so.12", CL_NAMING_LINUX, "cufftMp"},
    {"libcufftMp.so.11", CL_NAMING_LINUX, "cufftMp"},
    {"libcudnn.so.9", CL_NAMING_LINUX, "cudnn"},
    {"cudnn64_9.dll", CL_NAMING_WINDOWS, "cudnn"},
    {"libcusolverMp.so.0", CL_NAMING_LINUX, "cusolverMp"},
    {"libmathdx.so.0", CL_NAMING_LINUX, "mathdx"},
    {"mathdx64_0.dll", CL_NAMING_WINDOWS, "mathdx"},
    {"libcudss.so.1", CL_NAMING_LINUX, "cudss"},
    {"libcudss.so.0", CL_NAMING_LINUX, "cudss"},
    {"cudss64_1.dll", CL_NAMING_WINDOWS, "cudss"},
    {"cudss64_0.dll", CL_NAMING_WINDOWS, "cudss"},
    {"libcusparseLt.so.0", CL_NAMING_LINUX, "cusparseLt"},
    {"cusparseLt_13.dll", CL_NAMING_WINDOWS, "cusparseLt"},
    {"cusparseLt.dll", CL_NAMING_WINDOWS, "cusparseLt"},
    {"libcutensor.so.2", CL_NAMING_LINUX, "cutensor"},
    {"cutensor.dll", CL_NAMING_WINDOWS, "cutensor"},
    {"libcutensorMg.so.2", CL_NAMING_LINUX, "cutensorMg"},
    {"cutensorMg.dll", CL_NAMING_WINDOWS, "cutensorMg"},
    {"libcutensorMp.so.2", CL_NAMING_LINUX, "cutensorMp"},
    {"libcudensitymat.so.0", CL_NAMING_LINUX, "cudensitymat"},
    {"libcupauliprop.so.0", CL_NAMING_LINUX, "cupauliprop"},
    {"libcutensornet.so.2", CL_NAMING_LINUX, "cutensornet"},
    {"libcustabilizer.so.0", CL_NAMING_LINUX, "custabilizer"},
    {"libcustatevec.so.1", CL_NAMING_LINUX, "custatevec"},
    {"libnccl.so.2", CL_NAMING_LINUX, "nccl"},
    {"libnvpl_fftw.so.0", CL_NAMING_LINUX, "nvpl_fftw"},
    {"libnvshmem_host.so.3", CL_NAMING_LINUX, "nvshmem_host"},
    {"libcuda.so.1", CL_NAMING_LINUX, "cuda"},
    {"nvcuda.dll", CL_NAMING_WINDOWS, "cuda"},
    {"libnvcudla.so", CL_NAMING_LINUX, "nvcudla"},
    {"libnvidia-ml.so.1", CL_NAMING_LINUX, "nvml"},
    {"nvml.dll", CL_NAMING_WINDOWS, "nvml"},
};

/* cuda-pathfinder names each library once, by its own name: every one of its
 * file names must be recognised as that library. */
static void every_pathfinder_name_is_recognised(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof pathfinder_names / sizeof *pathfinder_names;
       ++i) {
    cl_name_match m;
    if (!cl_catalog_match(pathfinder_names[i].file_name,
                          pathfinder_names[i].naming, &m))
      fail_msg("%s (%s) is not recognised", pathfinder_names[i].file_name,
               pathfinder_names[i].library);
    if (strcmp(m.entry->name, pathfinder_names[i].library) != 0)
      fail_msg("%s is %s, pathfinder says %s", pathfinder_names[i].file_name,
               m.entry->name, pathfinder_names[i].library);
  }
}

/* Every entry: well formed, and each of its name templates, filled in for
 * each ABI major it allows, is recognised as that entry and major. */
static void every_catalog_name_matches_its_entry(void **state) {
  (void)state;
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  assert_true(count > 0);
  for (size_t i = 0; i < count; ++i) {
    const cl_catalog_entry *e = &all[i];
    assert_non_null(e->linux_names[0]);
    assert_true(e->min_major <= e->max_major);
    assert_ptr_equal(cl_catalog_find(e->name), e);
    for (int naming = CL_NAMING_LINUX; naming <= CL_NAMING_WINDOWS; ++naming) {
      const char *const *names =
          naming == CL_NAMING_LINUX ? e->linux_names : e->windows_names;
      for (size_t t = 0; t < 3 && names[t]; ++t) {
        for (int major = e->min_major; major <= e->max_major; ++major) {
          /* Fill the template: %M the major, %m a 0, %V nothing, %D a
           * driver version, %Y a year version of CUDA 13. */
          char file[256];
          size_t n = 0;
          int has_major = 0, fixed = 1;
          for (const char *c = names[t]; *c && n + 16 < sizeof file; ++c) {
            if (c[0] != '%') {
              file[n++] = *c;
              continue;
            }
            ++c;
            if (*c == 'M')
              n += (size_t)snprintf(file + n, sizeof file - n, "%d", major),
                  has_major = 1;
            else if (*c == 'm')
              file[n++] = '0';
            else if (*c == 'D')
              n += (size_t)snprintf(file + n, sizeof file - n, "580.65.06");
            else if (*c == 'Y')
              n += (size_t)snprintf(file + n, sizeof file - n, "2025.3.1"),
                  fixed = 0;
          }
          file[n] = '\0';
          cl_name_match m;
          if (!cl_catalog_match(file, (cl_naming)naming, &m))
            fail_msg("%s (%s) is not recognised", file, e->name);
          if (m.entry != e)
            fail_msg("%s is %s, not %s", file, m.entry->name, e->name);
          int want = has_major ? major : fixed ? e->min_major : 13;
          if (m.major != want)
            fail_msg("%s: major %d, expected %d", file, m.major, want);
          if (!has_major)
            break; /* one name, one major */
        }
      }
    }
  }
}

/* The index cl_catalog_match goes through gives the answer of trying
 * every template in table order: for every template filled in many ways,
 * in both namings and letter cases, and for names close to them. */
static void compare_with_unindexed(const char *name, cl_naming naming) {
  cl_name_match a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  int ra = cl_catalog_match(name, naming, &a);
  int rb = cl_catalog_match_unindexed(name, naming, &b);
  if (ra != rb)
    fail_msg("%s: indexed %d, unindexed %d", name, ra, rb);
  if (ra && (a.entry != b.entry || a.major != b.major ||
             a.cuda_major != b.cuda_major ||
             strcmp(a.name_version, b.name_version) != 0))
    fail_msg("%s: indexed %s %d, unindexed %s %d", name, a.entry->name, a.major,
             b.entry->name, b.major);
}

static void indexed_matching_answers_as_every_template_does(void **state) {
  (void)state;
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  static const char *const fills[] = {
      "12", "9", "8.9.7", "120", "13.0.88", "2025.1.0", "", "1", "00", "x"};
  for (size_t i = 0; i < count; ++i)
    for (int naming = CL_NAMING_LINUX; naming <= CL_NAMING_WINDOWS; ++naming) {
      const char *const *names =
          naming == CL_NAMING_LINUX ? all[i].linux_names : all[i].windows_names;
      for (size_t t = 0; t < 3 && names[t]; ++t)
        for (size_t f = 0; f < sizeof fills / sizeof *fills; ++f)
          for (int upper = 0; upper < 2; ++upper) {
            char file[256];
            size_t n = 0;
            for (const char *c = names[t]; *c && n + 16 < sizeof file; ++c) {
              if (c[0] == '%' && c[1]) {
                n +=
                    (size_t)snprintf(file + n, sizeof file - n, "%s", fills[f]);
                ++c;
              } else {
                file[n++] = upper && *c >= 'a' && *c <= 'z'
                                ? (char)(*c - 'a' + 'A')
                                : *c;
              }
            }
            file[n] = '\0';
            compare_with_unindexed(file, (cl_naming)naming);
            for (size_t cut = 1; cut < n; cut += 3) { /* near misses */
              char near[256];
              memcpy(near, file, cut);
              near[cut] = '\0';
              compare_with_unindexed(near, (cl_naming)naming);
            }
          }
    }
  static const char *const others[] = {
      "libc.so.6",        "libstdc++.so.6",       "libcudart.so",
      "libcuda.so.1",     "libnvidia-ml.so.1",    "libcudnn.so.9.1.0.70",
      "nvvm64_40_0.dll",  "nvvm70.dll",           "cudart64_110.dll",
      "CUDNN64_9.DLL",    "cupti64_2025.1.0.dll", "libcublasLt.so.12.4.5.8",
      "libnvrtc.so.12.4", "libcusparseLt.so.0",   "kernel32.dll"};
  for (size_t i = 0; i < sizeof others / sizeof *others; ++i) {
    compare_with_unindexed(others[i], CL_NAMING_LINUX);
    compare_with_unindexed(others[i], CL_NAMING_WINDOWS);
  }
}

/* cl_catalog_match remembers its last answers per thread (a verdict asks
 * the same few names again and again): a remembered answer is the answer,
 * for the naming it was asked in, whatever was asked in between; and a
 * name it does not know leaves the caller's match as it was. */
static void remembered_answers_are_the_answers(void **state) {
  (void)state;
  static const char *const names[] = {
      "libcudnn.so.9",          "CUDNN64_9.DLL",         "cudnn64_9.dll",
      "libcublasLt.so.13",      "libcublas.so.13.1.0.3", "libc.so.6",
      "libcudnn_ops.so.9",      "cublasLt64_13.dll",     "libnvrtc.so.12.4",
      "cupti64_2025.1.0.dll",   "libcudart.so.12",       "libstdc++.so.6",
      "libcusparseLt.so.0",     "nvrtc64_120_0.dll",     "libcudnn.so.8.9.7",
      "libnvJitLink.so.12.4.1", "libcufft.so.12",        "kernel32.dll"};
  size_t count = sizeof names / sizeof *names;
  /* Many names, so that slots are taken over, asked in both namings and in
   * a different order each round: every answer as the first time's. */
  for (int round = 0; round < 4; ++round)
    for (size_t i = 0; i < count; ++i) {
      const char *name = names[(i * (size_t)(2 * round + 1)) % count];
      compare_with_unindexed(name, CL_NAMING_LINUX);
      compare_with_unindexed(name, CL_NAMING_WINDOWS);
      compare_with_unindexed(name, CL_NAMING_LINUX);
    }
  /* A name longer than a remembered one: matched each time. */
  char long_name[300];
  memset(long_name, '0', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  memcpy(long_name, "libcudnn.so.9.", 14);
  for (int round = 0; round < 2; ++round)
    compare_with_unindexed(long_name, CL_NAMING_LINUX);
  /* No match: what the caller had stays, the first time and the next. */
  for (int round = 0; round < 2; ++round) {
    cl_name_match m;
    memset(&m, 0, sizeof m);
    m.major = 77;
    assert_int_equal(cl_catalog_match("libc.so.6", CL_NAMING_LINUX, &m), 0);
    assert_int_equal(m.major, 77);
    assert_null(m.entry);
  }
}

static void long_and_odd_names_are_rejected_quickly(void **state) {
  (void)state;
  char name[5000];
  memset(name, '9', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  memcpy(name, "libcudnn.so.", 12);
  cl_name_match m;
  assert_false(cl_catalog_match(name, CL_NAMING_LINUX, &m));
  memcpy(name, "libcudnn.so.8", 13);
  for (size_t i = 13; i + 2 < sizeof name; i += 2) {
    name[i] = '.';
    name[i + 1] = '1';
  }
  assert_false(cl_catalog_match(name, CL_NAMING_LINUX, &m));
  assert_false(cl_catalog_match("", CL_NAMING_LINUX, &m));
  assert_false(cl_catalog_match("", CL_NAMING_WINDOWS, &m));
  assert_false(cl_catalog_match(".dll", CL_NAMING_WINDOWS, &m));
}

static void nvidia_dll_stamps_are_decoded(void **state) {
  (void)state;
  char out[16] = "untouched";
  /* cublas64_12.dll of cuBLAS 12.1.3 carries 6.14.11.1213. */
  assert_true(cl_catalog_decode_dll_stamp("6.14.11.1213", out, sizeof out));
  assert_string_equal(out, "12.1.3");
  assert_true(cl_catalog_decode_dll_stamp("6.14.11.1245", out, sizeof out));
  assert_string_equal(out, "12.4.5");
  static const char *const kept[] = {"8.9.7.29",      "6.14.11.12",
                                     "6.14.11.12130", "6.14.11.12a3",
                                     "6.14.10.1213",  ""};
  for (size_t i = 0; i < sizeof kept / sizeof *kept; ++i) {
    strcpy(out, "untouched");
    assert_false(cl_catalog_decode_dll_stamp(kept[i], out, sizeof out));
    assert_string_equal(out, "untouched");
  }
}

/* A version a file claims must fit its own name: its ABI major, or the CUDA
 * major that ABI major belongs to; NVVM is versioned with the toolkit. */
static void versions_are_checked_against_the_name(void **state) {
  (void)state;
  const cl_catalog_entry *cudnn = cl_catalog_find("cudnn");
  const cl_catalog_entry *cufft = cl_catalog_find("cufft");
  const cl_catalog_entry *nvvm = cl_catalog_find("nvvm");
  assert_non_null(cudnn);
  assert_non_null(cufft);
  assert_non_null(nvvm);
  assert_true(cl_catalog_version_agrees(cudnn, 8, "8.9.7.29"));
  assert_true(cl_catalog_version_agrees(cudnn, 9, "9.1.0.70"));
  /* ctranslate2 4.4.0's cudnn64_8.dll: 6.14.11.6050, decoded 60.5.0. */
  assert_false(cl_catalog_version_agrees(cudnn, 8, "60.5.0"));
  assert_false(cl_catalog_version_agrees(cudnn, 8, "6.14.11.6050"));
  assert_false(cl_catalog_version_agrees(cudnn, 9, "8.9.7"));
  assert_false(cl_catalog_version_agrees(cudnn, 8, "garbage"));
  /* cuFFT 11 is CUDA 12's: both numbers are its own. */
  assert_true(cl_catalog_version_agrees(cufft, 11, "11.2.1.3"));
  assert_true(cl_catalog_version_agrees(cufft, 11, "12.4.0"));
  assert_false(cl_catalog_version_agrees(cufft, 11, "13.0.0"));
  assert_true(cl_catalog_version_agrees(nvvm, 4, "12.4.131"));
  /* Nothing claimed, nothing contradicted. */
  assert_true(cl_catalog_version_agrees(cudnn, 8, ""));
}

/* --- the family rows ------------------------------------------------------ */

/* Families no wheel ships, and what installs them instead: a row without
 * wheels must be here (or be the driver's). */
static const char *const installed_without_pip[][2] = {
    {"cudla", "JetPack"},
    {"nvpl_fftw", "NVPL's own installers"},
};

static int without_pip(const char *family) {
  for (size_t i = 0;
       i < sizeof installed_without_pip / sizeof *installed_without_pip; ++i)
    if (strcmp(installed_without_pip[i][0], family) == 0)
      return 1;
  return 0;
}

static int starts_nocase(const char *s, const char *prefix) {
  size_t n = strlen(prefix);
  return strlen(s) >= n && cl_same_nocase(s, prefix, n);
}

static int same_nocase(const char *a, const char *b) {
  return strlen(a) == strlen(b) && cl_same_nocase(a, b, strlen(a));
}

static void check_folders(const cl_catalog_family *f,
                          const cl_family_folder *list, size_t room) {
  for (size_t k = 0; k < room && list[k].relative; ++k) {
    const char *r = list[k].relative;
    if (!r[0] || r[0] == '/' || strchr(r, '\\') || strstr(r, ".."))
      fail_msg("%s: folder \"%s\" is not a relative path with '/'", f->name, r);
    if (list[k].naming != 0 && list[k].naming != CL_NAMING_LINUX &&
        list[k].naming != CL_NAMING_WINDOWS)
      fail_msg("%s: folder %s has naming %d", f->name, r, list[k].naming);
    for (size_t j = 0; j < k; ++j)
      if (!strcmp(list[j].relative, r) && list[j].naming == list[k].naming)
        fail_msg("%s: folder %s twice", f->name, r);
  }
}

static void check_wheels(const cl_catalog_family *f,
                         const cl_catalog_entry *main) {
  int count = 0;
  for (const cl_catalog_wheel *w = f->wheels;
       w < f->wheels + CL_FAMILY_WHEELS && w->package; ++w, ++count) {
    if (!w->family || strcmp(w->family, f->name) != 0)
      fail_msg("%s: its wheel %s says family %s", f->name, w->package,
               w->family ? w->family : "(none)");
    if (w->cuda_major < 11 || w->cuda_major > 13 || !w->package[0] ||
        !w->folder || !w->folder[0])
      fail_msg("%s: wheel %s (CUDA %d) lacks a CUDA major, name or folder",
               f->name, w->package, w->cuda_major);
    if (w > f->wheels && w[-1].cuda_major > w->cuda_major)
      fail_msg("%s: wheels not in ascending CUDA major", f->name);
    if (w->min_abi &&
        (w->min_abi > w->max_abi || w->min_abi < main->min_major ||
         w->max_abi > main->max_major))
      fail_msg("%s: wheel %s ships majors %d-%d, the catalog knows %d-%d",
               f->name, w->package, w->min_abi, w->max_abi, main->min_major,
               main->max_major);
    /* The questions asked of the wheels read this row. */
    if (cl_catalog_wheel_find(f->name, w->cuda_major, w->min_abi,
                              CL_NAMING_LINUX) == NULL)
      fail_msg("%s: its CUDA %d wheel is not found", f->name, w->cuda_major);
    const cl_catalog_wheel *owner =
        cl_catalog_wheel_by_package(w->package, strlen(w->package));
    if (!owner || strcmp(owner->package, w->package) != 0)
      fail_msg("%s: the distribution %s is not known as a wheel", f->name,
               w->package);
  }
  if (count == 0) {
    if (!f->is_driver && !without_pip(f->name))
      fail_msg("%s: no wheel; a row without one is the driver's or in "
               "installed_without_pip",
               f->name);
    return;
  }
  /* A wheel for each CUDA major the family ships (of NVIDIA's wheels:
   * CUDA 11 on). */
  for (int abi = main->min_major; abi <= main->max_major; ++abi) {
    int cuda = cl_catalog_cuda_major(main, abi);
    if (cuda < 11)
      continue;
    int found = 0;
    for (const cl_catalog_wheel *w = f->wheels;
         w < f->wheels + CL_FAMILY_WHEELS && w->package; ++w)
      found |= w->cuda_major == cuda;
    if (!found)
      fail_msg("%s %d ships with CUDA %d: no wheel for it", f->name, abi, cuda);
  }
}

static void check_prefixes(const cl_catalog_family *f,
                           const cl_catalog_entry *main,
                           const cl_catalog_family *rows, size_t count) {
  for (size_t p = 0; p < 2 && f->symbol_prefixes[p]; ++p) {
    const char *prefix = f->symbol_prefixes[p];
    /* A symbol prefix is its family's name or its main library's, or the
     * start of it (the runtime's "cuda" of "cudart"). */
    if (!prefix[0] ||
        (!starts_nocase(f->name, prefix) && !starts_nocase(main->name, prefix)))
      fail_msg("%s: symbol prefix \"%s\" is not the start of %s or %s", f->name,
               prefix, f->name, main->name);
    if (cl_catalog_family_of_symbol(prefix) != f)
      fail_msg("%s: a symbol \"%s...\" is not found to be its", f->name,
               prefix);
    /* No prefix starts another row's: the order the rows are asked in
     * does not change an answer. */
    for (size_t o = 0; o < count; ++o)
      for (size_t q = 0; q < 2 && rows[o].symbol_prefixes[q]; ++q)
        if (&rows[o] != f && starts_nocase(rows[o].symbol_prefixes[q], prefix))
          fail_msg("%s's prefix %s starts %s's %s", f->name, prefix,
                   rows[o].name, rows[o].symbol_prefixes[q]);
  }
  if (f->internal_symbol_prefix) {
    const char *internal = f->internal_symbol_prefix;
    if (strncmp(internal, "__", 2) != 0 || !f->symbol_prefixes[0] ||
        !same_nocase(internal + 2, f->symbol_prefixes[0]))
      fail_msg("%s: internal prefix %s is not __ and its API's prefix", f->name,
               internal);
  }
}

/* Adding a family is one row (lib/scan/catalog.c's families) beside its
 * libraries' entries, and this test: every row holds each fact a stage
 * asks of it, and agrees with the library table. */
static void every_family_row_is_whole(void **state) {
  (void)state;
  size_t count, entry_count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  const cl_catalog_entry *entries = cl_catalog_entries(&entry_count);
  assert_true(count >= 40);
  size_t drivers = 0;
  for (size_t i = 0; i < count; ++i) {
    const cl_catalog_family *f = &rows[i];
    if (!f->name || !f->name[0])
      fail_msg("row %lu has no name", (unsigned long)i);
    for (size_t j = 0; j < i; ++j)
      if (strcmp(rows[j].name, f->name) == 0)
        fail_msg("two rows for %s", f->name);
    assert_ptr_equal(cl_catalog_family_find(f->name), f);
    assert_ptr_equal(cl_catalog_family_named(f->name, strlen(f->name)), f);
    /* The title is the name as its documentation spells it. */
    if (!f->title || !same_nocase(f->title, f->name))
      fail_msg("%s: title %s is not its name as NVIDIA spells it", f->name,
               f->title ? f->title : "(none)");
    assert_string_equal(cl_catalog_family_title(f->name), f->title);
    if (f->major_rule != CL_MAJOR_IS_CUDA && f->major_rule != CL_MAJOR_KEPT)
      fail_msg("%s: does it keep its major across CUDA majors? "
               "(major_rule unset)",
               f->name);
    const cl_catalog_entry *main = cl_catalog_family_main(f->name);
    if (!main)
      fail_msg("%s: no main library in the catalog", f->name);
    assert_ptr_equal(cl_catalog_family_of(main), f);
    /* A requirement names a family by its name or its main library's. */
    if (!f->is_driver && !same_nocase(main->name, f->name))
      fail_msg("%s: its main library is %s", f->name, main->name);
    drivers += f->is_driver != 0;
    for (const cl_cuda_of_major *m = f->cuda_of_major; m->abi_major; ++m)
      if (f->major_rule != CL_MAJOR_KEPT || m->abi_major < main->min_major ||
          m->abi_major > main->max_major || m->cuda_major < 10 ||
          m->cuda_major > 13)
        fail_msg("%s: CUDA major of ABI major %d: %d", f->name, m->abi_major,
                 m->cuda_major);
    for (const cl_cuda_release *r = f->releases; r->abi_major; ++r)
      if (f->major_rule != CL_MAJOR_KEPT || r->abi_major < main->min_major ||
          r->abi_major > main->max_major ||
          (r > f->releases && (r[-1].abi_major > r->abi_major ||
                               r[-1].cuda_major >= r->cuda_major)))
        fail_msg("%s: release %d.%d of CUDA %d out of order or range", f->name,
                 r->abi_major, r->minor_from, r->cuda_major);
    check_prefixes(f, main, rows, count);
    if (f->path_variable) {
      for (const char *c = f->path_variable; *c; ++c)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
          fail_msg("%s: variable %s", f->name, f->path_variable);
      /* A variable a fix line says to set is a root the scan reads. */
      assert_string_equal(cl_catalog_path_variable(f->name), f->path_variable);
      assert_int_equal(cl_origin_tier(f->path_variable), CL_TIER_VARIABLE);
    } else {
      assert_string_equal(cl_catalog_path_variable(f->name), "CUDA_PATH");
    }
    check_wheels(f, main);
    check_folders(f, f->toolkit_folders, CL_FAMILY_TOOLKIT_FOLDERS);
    check_folders(f, f->package_folders, CL_FAMILY_PACKAGE_FOLDERS);
    if (f->is_driver &&
        (f->wheels[0].package || f->symbol_prefixes[0] || f->path_variable))
      fail_msg("%s", "the driver's row has a wheel, a prefix or a variable");
  }
  if (drivers != 1)
    fail_msg("%lu rows are the driver's; exactly one is",
             (unsigned long)drivers);
  /* Every library has its family's row, and is the driver's as it says. */
  for (size_t e = 0; e < entry_count; ++e) {
    const cl_catalog_family *f = cl_catalog_family_of(&entries[e]);
    if (!f || strcmp(f->name, entries[e].family) != 0)
      fail_msg("%s: no row for its family %s", entries[e].name,
               entries[e].family);
    assert_int_equal(cl_catalog_is_driver(&entries[e]), f->is_driver);
  }
}

/* What the stages ask of the rows, answered from them. */
static void the_stages_ask_the_family_rows(void **state) {
  (void)state;
  assert_string_equal(cl_catalog_family_title("cudnn"), "cuDNN");
  assert_string_equal(cl_catalog_family_title("nvjitlink"), "nvJitLink");
  assert_string_equal(cl_catalog_family_title("unknown"), "unknown");
  assert_ptr_equal(cl_catalog_family_named("CUDNN", 5),
                   cl_catalog_family_find("cudnn"));
  assert_null(cl_catalog_family_named("cudnn", 4));
  assert_string_equal(cl_catalog_family_of_symbol("cudnnCreate")->name,
                      "cudnn");
  assert_string_equal(cl_catalog_family_of_symbol("cudaMalloc")->name,
                      "cudart");
  assert_string_equal(cl_catalog_family_of_symbol("cublasLtCreate")->name,
                      "cublas");
  /* The driver's API (cuInit) is no library's; a binary's reference is
   * compared letter for letter, a message's word in any case and with the
   * names nvJitLink.h maps its API to. */
  assert_null(cl_catalog_family_of_symbol("cuInit"));
  assert_null(cl_catalog_family_of_symbol("__nvJitLinkCreate_12_4"));
  const char *word = "__nvjitlinkcreate_12_4";
  assert_string_equal(
      cl_catalog_family_of_symbol_word(word, strlen(word))->name, "nvjitlink");
  assert_null(cl_catalog_family_of_symbol_word("cudnn", 5));
  cl_name_match m;
  assert_true(cl_catalog_match("libcuda.so.1", CL_NAMING_LINUX, &m));
  assert_true(cl_catalog_is_driver(m.entry));
  assert_true(cl_catalog_match("libcudnn.so.9", CL_NAMING_LINUX, &m));
  assert_false(cl_catalog_is_driver(m.entry));
  /* The driver's development link is not a library a program opens. */
  assert_false(cl_catalog_match_unversioned("libcuda.so", &m));
  assert_true(cl_catalog_match_unversioned("libcudnn.so", &m));
}

typedef struct seen_folders {
  char list[64][160];
  size_t count;
} seen_folders;

static int note_folder(const char *folder, const cl_file_stamp *stamp,
                       void *opaque) {
  (void)stamp;
  seen_folders *s = opaque;
  if (s->count < 64) {
    snprintf(s->list[s->count], sizeof s->list[0], "%s", folder);
    for (char *c = s->list[s->count]; *c; ++c)
      if (*c == '\\')
        *c = '/';
    s->count++;
  }
  return 0;
}

static int every_folder_is_there(const char *folder, cl_file_stamp *stamp,
                                 void *opaque) {
  (void)folder;
  (void)opaque;
  memset(stamp, 0, sizeof *stamp);
  stamp->kind = CL_KIND_DIRECTORY;
  return 1;
}

static size_t position_of(const seen_folders *s, const char *root,
                          const char *relative) {
  char want[160];
  snprintf(want, sizeof want, "%s/%s", root, relative);
  for (size_t i = 0; i < s->count; ++i)
    if (strcmp(s->list[i], want) == 0)
      return i;
  return SIZE_MAX;
}

/* The layouts visit each row's folders, once each, in row order: a
 * toolkit's (nvvm/lib64) under a toolkit root, a folder of Python
 * packages' (cutensor/lib) under site-packages. */
static void the_layouts_visit_each_family_folder(void **state) {
  (void)state;
  static const char *const roots[] = {"/nowhere/cuda",
                                      "/nowhere/site-packages"};
  size_t count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  for (int naming = CL_NAMING_LINUX; naming <= CL_NAMING_WINDOWS; ++naming)
    for (int toolkit = 0; toolkit < 2; ++toolkit) {
      const char *root = roots[!toolkit];
      seen_folders seen;
      memset(&seen, 0, sizeof seen);
      cl_layout_folders(root, (cl_naming)naming, note_folder, NULL,
                        every_folder_is_there, &seen);
      size_t last = 0;
      for (size_t i = 0; i < count; ++i) {
        const cl_family_folder *list =
            toolkit ? rows[i].toolkit_folders : rows[i].package_folders;
        size_t room =
            toolkit ? CL_FAMILY_TOOLKIT_FOLDERS : CL_FAMILY_PACKAGE_FOLDERS;
        for (size_t k = 0; k < room && list[k].relative; ++k) {
          if (list[k].naming && list[k].naming != naming)
            continue;
          size_t at = position_of(&seen, root, list[k].relative);
          if (at == SIZE_MAX)
            fail_msg("%s: %s/%s is not visited", rows[i].name, root,
                     list[k].relative);
          if (at + 1 < last)
            fail_msg("%s: %s visited out of row order", rows[i].name,
                     list[k].relative);
          last = at + 1 > last ? at + 1 : last;
        }
      }
      for (size_t i = 0; i < seen.count; ++i)
        for (size_t j = 0; j < i; ++j)
          if (strcmp(seen.list[i], seen.list[j]) == 0)
            fail_msg("%s visited twice", seen.list[i]);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(versions_are_checked_against_the_name),
      cmocka_unit_test(every_case_matches_as_documented),
      cmocka_unit_test(every_pathfinder_name_is_recognised),
      cmocka_unit_test(every_catalog_name_matches_its_entry),
      cmocka_unit_test(indexed_matching_answers_as_every_template_does),
      cmocka_unit_test(remembered_answers_are_the_answers),
      cmocka_unit_test(long_and_odd_names_are_rejected_quickly),
      cmocka_unit_test(nvidia_dll_stamps_are_decoded),
      cmocka_unit_test(every_family_row_is_whole),
      cmocka_unit_test(the_stages_ask_the_family_rows),
      cmocka_unit_test(the_layouts_visit_each_family_folder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
