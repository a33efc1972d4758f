/* SPDX-License-Identifier: MIT */
/* consumers.c - the known consumers table (consumers.h) and its matching. */
#include "scan/consumers.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "scan/pep440.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read from the wheels on the index: the name each release's library holds
 * as text and opens at run time (strings libctranslate2-*.so.* | grep
 * libcublas; strings ctranslate2.dll | grep cublas64): 3.24.0
 * "libcublas.so.11"; 4.4.0, 4.6.2 and 4.8.5 "libcublas.so.12", and 4.4.0's
 * win_amd64 ctranslate2.dll "cublas64_12.dll". scripts/acceptance checks the
 * row for 4.4.0 against the installed file. The same files of 4.4.0 and
 * 4.8.5 hold "libnccl.so.2" (and "libmpi.so.40", no CUDA library), opened
 * only in the tensor-parallel mode, the only one that speaks of NCCL; the
 * win_amd64 ctranslate2.dll holds no NCCL name. */
/* TensorFlow 2.21.0 (tensorflow[and-cuda], manylinux_2_27_x86_64):
 * libtensorflow_framework.so.2 defines tsl::internal::DsoLoader
 * (GetCudaRuntimeDsoHandle ... GetCusolverDsoHandle) and holds "Cannot
 * dlopen some GPU libraries" and "Skipping registering GPU devices": at
 * start-up, before it registers a GPU, it dlopens cudart 12, cuBLAS 12,
 * cuFFT 11, cuSOLVER 11, cuSPARSE 12 and cuDNN 9 by name from itself, so
 * through its own RUNPATH, which reaches nvidia/{cublas,cudnn,cufft,
 * cusparse,cuda_runtime,...}/lib but not nvidia/cusolver/lib. The names are
 * made at run time ("lib" + name + ".so." + version), so its text holds
 * none of them. */
#define TF_DSO_LOADER                                                          \
  "libtensorflow_framework.so.2's DSO loader opens it by name at start-up, "   \
  "before it registers a GPU (\"Cannot dlopen some GPU libraries ... "         \
  "Skipping registering GPU devices\")"
static const cl_known_consumer consumers[] = {
    {"ctranslate2", "libctranslate2", "ctranslate2.dll", 3, 3, NULL, "cublas",
     11, 0, "its cuBLAS stub opens libcublas.so.11 at the first cuBLAS call",
     NULL},
    {"ctranslate2", "libctranslate2", "ctranslate2.dll", 4, 4, NULL, "cublas",
     12, 0, "its cuBLAS stub opens libcublas.so.12 at the first cuBLAS call",
     NULL},
    {"ctranslate2", "libctranslate2", NULL, 4, 4, NULL, "nccl", 12, 2,
     "it opens libnccl.so.2 by name (\"Tensor "
     "Parallel mode can run only on cuda\")",
     "its tensor-parallel mode (tensor_parallel=True)"},
    {"tensorflow", "libtensorflow_framework", NULL, 2, 2, "==2.21.*", "cudart",
     12, 12, TF_DSO_LOADER, NULL},
    {"tensorflow", "libtensorflow_framework", NULL, 2, 2, "==2.21.*", "cublas",
     12, 12, TF_DSO_LOADER, NULL},
    {"tensorflow", "libtensorflow_framework", NULL, 2, 2, "==2.21.*", "cufft",
     12, 11, TF_DSO_LOADER, NULL},
    {"tensorflow", "libtensorflow_framework", NULL, 2, 2, "==2.21.*",
     "cusolver", 12, 11, TF_DSO_LOADER, NULL},
    {"tensorflow", "libtensorflow_framework", NULL, 2, 2, "==2.21.*",
     "cusparse", 12, 12, TF_DSO_LOADER, NULL},
    {"tensorflow", "libtensorflow_framework", NULL, 2, 2, "==2.21.*", "cudnn",
     12, 9, TF_DSO_LOADER, NULL},
};
#define CONSUMER_COUNT (sizeof consumers / sizeof consumers[0])

/* Read from the packages' source, as the wheels on the index hold it.
 * CuPy 14.2.0 (cupy-cuda12x): cupy_backends/cuda/libs/__init__.py imports
 * each library module lazily, calling cuda-pathfinder's
 * load_nvidia_dynamic_lib() for its library first; cupy/cuda/__init__.py
 * does the same for cupy.cuda.cufft and imports cupy.cuda.jitify only
 * when asked for; cupyx/cusolver.py imports cupy_backends.cuda.libs
 * .cusolver before cupyx._cusolver; cupy/__init__.py's
 * _preload_library('cutensor') only logs a failure, and
 * cupy/cuda/nccl.py loads NCCL when imported. NVRTC is "run-time linked"
 * (its module NEEDs nothing) and loaded through cuda-pathfinder at the
 * first compile. onnxruntime-gpu 1.31.1: the TensorRT provider is
 * loaded only for a session that asks for TensorrtExecutionProvider. */
static const cl_module_behaviour modules[] = {
    {"cupy_backends/cuda/libs/cutensor.", CL_MODULE_OPTIONAL, NULL,
     "cuTENSOR (cupy.cuda.cutensor, cupyx.cutensor)",
     "CuPy imports it only when cuTENSOR is used; cupy/__init__.py's "
     "_preload_library('cutensor') only logs a failure"},
    {"cupy_backends/cuda/libs/nccl.", CL_MODULE_OPTIONAL, NULL,
     "NCCL (cupy.cuda.nccl)", "CuPy imports it only when NCCL is used"},
    {"cupy_backends/cuda/libs/cusparselt.", CL_MODULE_OPTIONAL, NULL,
     "cuSPARSELt (cupy.cuda.cusparselt)",
     "CuPy imports it only when cuSPARSELt is used"},
    {"cupy/cuda/jitify.", CL_MODULE_OPTIONAL, NULL,
     "Jitify (compiling with jitify=True)",
     "cupy/cuda/__init__.py imports it only when asked for"},
    {"cupy_backends/cuda/libs/cublas.", CL_MODULE_PRELOADED, "cublas", NULL,
     "cupy_backends/cuda/libs/__init__.py loads it through cuda-pathfinder "
     "first"},
    {"cupy_backends/cuda/libs/cusolver.", CL_MODULE_PRELOADED, "cusolver", NULL,
     "cupy_backends/cuda/libs/__init__.py loads it through cuda-pathfinder "
     "first"},
    {"cupyx/_cusolver.", CL_MODULE_PRELOADED, "cusolver", NULL,
     "cupyx/cusolver.py imports cupy_backends.cuda.libs.cusolver first"},
    {"cupy_backends/cuda/libs/cusparse.", CL_MODULE_PRELOADED, "cusparse", NULL,
     "cupy_backends/cuda/libs/__init__.py loads it through cuda-pathfinder "
     "first"},
    {"cupy_backends/cuda/libs/curand.", CL_MODULE_PRELOADED, "curand", NULL,
     "cupy_backends/cuda/libs/__init__.py loads it through cuda-pathfinder "
     "first"},
    {"cupy/cuda/cufft.", CL_MODULE_PRELOADED, "cufft", NULL,
     "cupy/cuda/__init__.py loads it through cuda-pathfinder first"},
    {"cupy_backends/cuda/libs/nvrtc.", CL_MODULE_LOADS, "nvrtc", NULL,
     "CuPy loads NVRTC through cuda-pathfinder at the first kernel it "
     "compiles"},
    {"onnxruntime/capi/libonnxruntime_providers_tensorrt.", CL_MODULE_OPTIONAL,
     NULL, "the TensorRT execution provider (TensorrtExecutionProvider)",
     "onnxruntime loads it only for a session that asks for it"},
    {"onnxruntime/capi/onnxruntime_providers_tensorrt.", CL_MODULE_OPTIONAL,
     NULL, "the TensorRT execution provider (TensorrtExecutionProvider)",
     "onnxruntime loads it only for a session that asks for it"},
};

const cl_module_behaviour *cl_consumer_module(const char *relpath, size_t len) {
  for (size_t i = 0; i < sizeof modules / sizeof *modules; ++i) {
    size_t n = strlen(modules[i].path);
    if (len > n && !memcmp(relpath, modules[i].path, n))
      return &modules[i];
  }
  return NULL;
}

static int is_hex8(const char *s) {
  for (int i = 0; i < 8; ++i)
    if (!cl_ascii_is_digit(s[i]) &&
        !(cl_ascii_lower(s[i]) >= 'a' && cl_ascii_lower(s[i]) <= 'f'))
      return 0;
  return 1;
}

/* "lib<stem>-<8 hex>.so<tail>" or "lib<stem>.so<tail>", where tail is empty
 * or ".<version>". */
static int linux_name_is(const char *name, const char *stem) {
  size_t n = strlen(stem);
  if (strncmp(name, stem, n) != 0)
    return 0;
  const char *rest = name + n;
  if (rest[0] == '-' && is_hex8(rest + 1))
    rest += 9;
  return strncmp(rest, ".so", 3) == 0 && (rest[3] == '\0' || rest[3] == '.');
}

const char *cl_consumer_package_of(const char *folder_base,
                                   const char *file_name, cl_naming naming) {
  for (size_t i = 0; i < CONSUMER_COUNT; ++i) {
    const cl_known_consumer *c = &consumers[i];
    size_t n = strlen(c->package);
    int in_package = strcmp(folder_base, c->package) == 0;
    int in_libs = strncmp(folder_base, c->package, n) == 0 &&
                  strcmp(folder_base + n, ".libs") == 0;
    if (naming == CL_NAMING_WINDOWS) {
      if (in_package && c->windows_name &&
          strlen(file_name) == strlen(c->windows_name) &&
          cl_starts_with_nocase(file_name, c->windows_name))
        return c->package;
    } else if ((in_package || in_libs) &&
               linux_name_is(file_name, c->linux_stem)) {
      return c->package;
    }
  }
  return NULL;
}

/* Copy a version ("4.4.0") that starts at s and ends at end or at the
 * first character that is neither a digit nor a dot. */
static int copy_version(const char *s, const char *end, char *out,
                        size_t size) {
  size_t n = 0;
  while (s + n < end && (cl_ascii_is_digit(s[n]) || s[n] == '.'))
    ++n;
  if (n == 0 || !cl_ascii_is_digit(s[0]) || n >= size)
    return 0;
  memcpy(out, s, n);
  out[n] = '\0';
  return 1;
}

int cl_consumer_version_from_name(const char *file_name, char *out,
                                  size_t size) {
  const char *so = strstr(file_name, ".so.");
  return so && copy_version(so + 4, so + strlen(so), out, size);
}

typedef struct site_search {
  const char *package;
  char *out;
  size_t size;
  int found;
} site_search;

static int visit_site_entry(const char *name, cl_file_kind kind, void *opaque) {
  site_search *s = opaque;
  (void)kind;
  size_t n = strlen(s->package), len = strlen(name);
  /* "ctranslate2-4.4.0.dist-info"; wheels write the name with '_' for
   * '-', which a package name without either keeps as it is. */
  if (len > n + 11 && cl_starts_with_nocase(name, s->package) &&
      name[n] == '-' && strcmp(name + len - 10, ".dist-info") == 0)
    s->found = copy_version(name + n + 1, name + len - 10, s->out, s->size);
  return s->found;
}

int cl_consumer_version_from_site(const char *site, const char *package,
                                  char *out, size_t size) {
  site_search s = {package, out, size, 0};
  /* An unreadable folder only hides the version: an answer, no error. */
  cl_os_list_dir_quiet(site, visit_site_entry, &s, NULL);
  return s.found;
}

/* Whether version satisfies the PEP 440 specifier `versions` (NULL: any). */
static int version_in(const char *version, const char *versions) {
  if (!versions)
    return 1;
  cl_pep440_version v;
  cl_pep440_specifier spec;
  return version && cl_pep440_parse(version, strlen(version), &v) &&
         cl_pep440_specifier_parse(versions, strlen(versions), &spec) &&
         cl_pep440_contains(&spec, &v);
}

const cl_known_consumer *cl_consumer_need(const char *package,
                                          const char *version, cl_naming naming,
                                          size_t index) {
  int major = version ? atoi(version) : 0;
  for (size_t i = 0; i < CONSUMER_COUNT; ++i) {
    const cl_known_consumer *c = &consumers[i];
    if (strcmp(c->package, package) != 0 || major < c->first_major ||
        major > c->last_major || !version_in(version, c->versions) ||
        (naming == CL_NAMING_WINDOWS && !c->windows_name))
      continue;
    if (index-- == 0)
      return c;
  }
  return NULL;
}

int cl_consumer_version_of(const char *path, const char *package, char *out,
                           size_t size) {
  /* A whole version (libctranslate2-<hex>.so.4.4.0); a name that carries
   * only its library's major (libtensorflow_framework.so.2) says less than
   * the dist-info. */
  if (cl_consumer_version_from_name(cl_path_basename(path), out, size) &&
      strchr(out, '.'))
    return 1;
  char *folder = cl_path_dirname(path);
  char *site = folder ? cl_path_dirname(folder) : NULL;
  int found = site && cl_consumer_version_from_site(site, package, out, size);
  free(site);
  free(folder);
  return found;
}

/* Read from the win_amd64 wheels' ctranslate2/__init__.py: 4.4.0 and 4.8.5
 * call os.add_dll_directory(package_dir), then ctypes.CDLL(library) for
 * each glob("*.dll") of it (ctranslate2.dll, cudnn64_8.dll or cudnn64_9.dll,
 * libiomp5md.dll), then import ctranslate2._ext. */
/* torch 2.x's win_amd64 wheels (download.pytorch.org, +cu118 to +cu128)
 * bundle cudart, cuBLAS, cuDNN, cuFFT, cuRAND, cuSPARSE, cuSOLVER and NVRTC
 * in torch\lib; torch/__init__.py's _load_dll_libraries() calls
 * os.add_dll_directory(torch\lib), then kernel32.LoadLibraryExW(dll, None,
 * 0x1100) (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR,
 * ctypes.CDLL's flags) for each glob("torch\lib\*.dll"), before it
 * imports torch._C: its bundled copies, by full path, whatever else is
 * installed. */
static const cl_consumer_windows_init windows_inits[] = {
    {"ctranslate2", 4, 4, 1, 1,
     "its __init__ adds its folder with os.add_dll_directory and loads each "
     "DLL of it with ctypes.CDLL",
     NULL},
    {"torch", 1, 2, 1, 1,
     "torch/__init__.py adds torch\\lib with os.add_dll_directory and loads "
     "each DLL of it by full path (LoadLibraryExW) before import torch._C",
     "lib"},
};

int cl_consumer_has_windows_init(const char *package) {
  for (size_t i = 0; i < sizeof windows_inits / sizeof *windows_inits; ++i)
    if (strcmp(windows_inits[i].package, package) == 0)
      return 1;
  return 0;
}

const cl_consumer_windows_init *
cl_consumer_windows_init_of(const char *package, const char *version) {
  int major = version ? atoi(version) : 0;
  for (size_t i = 0; i < sizeof windows_inits / sizeof *windows_inits; ++i) {
    const cl_consumer_windows_init *w = &windows_inits[i];
    if (strcmp(w->package, package) == 0 && major >= w->first_major &&
        major <= w->last_major)
      return w;
  }
  return NULL;
}

/* Read from each package's source in its wheel on the index:
 *  - jax-cuda12-plugin 0.10.2 requires jax-cuda12-pjrt 0.10.2, whose
 *    jax_plugins/xla_cuda12/__init__.py initialize() calls
 *    _load_nvidia_libraries() first: ctypes.cdll.LoadLibrary of
 *    nvidia/<module>/lib/<name> for each pair below, in this order, when
 *    the nvidia.<module> package imports (a missing one is skipped), before
 *    it imports its extensions and registers xla_cuda_plugin.so, whose
 *    RPATH misses nvidia/cuda_nvrtc and nvidia/cusolver. Its comment: "By
 *    loading the libraries here, later lookups will find these copies."
 *  - onnxruntime-gpu 1.26.0 (a CUDA 12 build): onnxruntime/__init__.py's
 *    preload_dlls(cuda=True, cudnn=True) loads, on Linux, these files of
 *    _get_nvidia_dll_paths() with ctypes.CDLL when they exist; nothing
 *    calls it on import: the program must ("When the installed PyTorch is
 *    compatible ... there is no need to call this function if `import
 *    torch` is done before"). Its CUDA provider NEEDs them and has no
 *    RUNPATH to them. */
static const cl_package_preload preloads[] = {
    {"jax-cuda12-plugin", "==0.10.*", NULL,
     "nvidia/cuda_runtime/lib/libcudart.so.12 "
     "nvidia/cuda_nvrtc/lib/libnvrtc.so.12 "
     "nvidia/cublas/lib/libcublas.so.12 "
     "nvidia/cublas/lib/libcublasLt.so.12 nvidia/nccl/lib/libnccl.so.2 "
     "nvidia/cuda_cupti/lib/libcupti.so.12 "
     "nvidia/cusparse/lib/libcusparse.so.12 "
     "nvidia/cusolver/lib/libcusolver.so.11 "
     "nvidia/cufft/lib/libcufft.so.11 "
     "nvidia/nvshmem/lib/libnvshmem_host.so.3 "
     "nvidia/cudnn/lib/libcudnn.so.9",
     "jax_plugins/xla_cuda12/__init__.py (jax-cuda12-pjrt, which it "
     "requires) loads them by path before its plugin "
     "(_load_nvidia_libraries)"},
    {"onnxruntime-gpu", "==1.26.*", "onnxruntime.preload_dlls()",
     "nvidia/cublas/lib/libcublasLt.so.12 nvidia/cublas/lib/libcublas.so.12 "
     "nvidia/cuda_nvrtc/lib/libnvrtc.so.12 "
     "nvidia/curand/lib/libcurand.so.10 nvidia/cufft/lib/libcufft.so.11 "
     "nvidia/cuda_runtime/lib/libcudart.so.12 "
     "nvidia/cudnn/lib/libcudnn.so.9",
     "onnxruntime/__init__.py's preload_dlls() loads them by path from the "
     "NVIDIA wheels; nothing calls it on import"},
    /* The same function's Windows list (_get_nvidia_dll_paths(is_windows=
     * True)): no cuRAND and no NVRTC, which the Windows CUDA provider does
     * not import either (objdump -p of the 1.26.0 win_amd64 wheel's
     * onnxruntime_providers_cuda.dll: cublasLt64_12, cublas64_12,
     * cufft64_11, cudart64_12, cudnn64_9); cuDNN's sub-libraries first,
     * then the shim. */
    {"onnxruntime-gpu", "==1.26.*", "onnxruntime.preload_dlls()",
     "nvidia/cublas/bin/cublasLt64_12.dll nvidia/cublas/bin/cublas64_12.dll "
     "nvidia/cufft/bin/cufft64_11.dll "
     "nvidia/cuda_runtime/bin/cudart64_12.dll "
     "nvidia/cudnn/bin/cudnn_engines_runtime_compiled64_9.dll "
     "nvidia/cudnn/bin/cudnn_engines_precompiled64_9.dll "
     "nvidia/cudnn/bin/cudnn_heuristic64_9.dll "
     "nvidia/cudnn/bin/cudnn_ops64_9.dll nvidia/cudnn/bin/cudnn_adv64_9.dll "
     "nvidia/cudnn/bin/cudnn_graph64_9.dll nvidia/cudnn/bin/cudnn64_9.dll",
     "onnxruntime/__init__.py's preload_dlls() loads them by path from the "
     "NVIDIA wheels on Windows; nothing calls it on import"},
};

/* PEP 503's comparison: case, and runs of '-', '_' and '.', ignored. */
static int same_distribution(const char *a, const char *b) {
  for (;;) {
    int sa = *a == '-' || *a == '_' || *a == '.';
    int sb = *b == '-' || *b == '_' || *b == '.';
    if (sa && sb) {
      while (*a == '-' || *a == '_' || *a == '.')
        ++a;
      while (*b == '-' || *b == '_' || *b == '.')
        ++b;
      continue;
    }
    if (cl_ascii_lower(*a) != cl_ascii_lower(*b))
      return 0;
    if (!*a)
      return 1;
    ++a;
    ++b;
  }
}

const cl_package_preload *
cl_consumer_preload(const char *package, const char *version, size_t index) {
  for (size_t i = 0; package && i < sizeof preloads / sizeof *preloads; ++i) {
    const cl_package_preload *p = &preloads[i];
    if (!same_distribution(p->package, package) ||
        !version_in(version, p->versions))
      continue;
    if (index-- == 0)
      return p;
  }
  return NULL;
}

/* Read from the wheels on the index: a package's own pins (under an
 * extra) of NVIDIA wheels that its build for one platform never loads.
 * onnxruntime-gpu 1.26.0's METADATA pins nvidia-curand-cu12 and
 * nvidia-cuda-nvrtc-cu12 under [cuda] for every platform, but its
 * win_amd64 onnxruntime_providers_cuda.dll imports neither (objdump -p:
 * cublasLt64_12, cublas64_12, cufft64_11, cudart64_12, cudnn64_9), holds
 * neither name as text, and preload_dlls()'s Windows list has neither:
 * installed without them, the provider loads (scripts/test-windows-python,
 * check 4). On Linux its provider NEEDs libcurand.so.10. */
static const cl_unloaded_pin unloaded_pins[] = {
    {"onnxruntime-gpu", "==1.26.*", CL_NAMING_WINDOWS,
     "nvidia-curand-cu12 nvidia-cuda-nvrtc-cu12",
     "a part of it other than its CUDA provider (whose Windows build, "
     "onnxruntime_providers_cuda.dll, loads neither cuRAND nor NVRTC)"},
};

const char *cl_consumer_pin_unloaded(const char *package, const char *version,
                                     cl_naming naming, const char *wheel,
                                     size_t wheel_len) {
  char pinned[128], row[128];
  if (!package || wheel_len >= sizeof pinned)
    return NULL;
  snprintf(pinned, sizeof pinned, "%.*s", (int)wheel_len, wheel);
  for (size_t i = 0; i < sizeof unloaded_pins / sizeof *unloaded_pins; ++i) {
    const cl_unloaded_pin *u = &unloaded_pins[i];
    if (u->naming != naming || !same_distribution(package, u->package) ||
        !version_in(version, u->versions))
      continue;
    for (const char *w = u->wheels; *w;) {
      size_t n = strcspn(w, " ");
      snprintf(row, sizeof row, "%.*s", (int)n, w);
      if (same_distribution(row, pinned))
        return u->feature;
      w += n + strspn(w + n, " ");
    }
  }
  return NULL;
}
