/* SPDX-License-Identifier: MIT */
/*
 * cuda_knobs.c - the environment variables that change how CUDA libraries
 * load or behave (cuda_knobs.h). One table: a variable the doctor should
 * show is a row here.
 */
#include "scan/cuda_knobs.h"

#include "common/buf.h"
#include "common/strutil.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stdlib.h>
#include <string.h>

/* NULL name: the loader's search path (LD_LIBRARY_PATH, Windows PATH),
 * shown with its CUDA entries only. */
static const struct {
  const char *name;
  const char *effect;
} knobs[] = {
    {"CUDA_VISIBLE_DEVICES",
     "which GPUs CUDA shows this process, renumbered from 0; empty or "
     "invalid hides them all (\"no device\")"},
    {"CUDA_DEVICE_ORDER",
     "FASTEST_FIRST (the default) or PCI_BUS_ID: how devices are numbered"},
    {"CUDA_LAUNCH_BLOCKING",
     "1: every kernel launch waits for the GPU, so errors surface where "
     "they happen; a debugging setting, slow"},
    {"CUDA_MODULE_LOADING",
     "LAZY (the default since CUDA 12.2) or EAGER: when kernels are loaded "
     "onto the GPU"},
    {"CUDA_CACHE_DISABLE", "1: no JIT cache; PTX is compiled at every start"},
    {"CUDA_CACHE_PATH", "where the JIT cache of compiled PTX lives"},
    {"CUDA_CACHE_MAXSIZE", "the JIT cache's size limit, in bytes"},
    {"CUBLAS_WORKSPACE_CONFIG",
     "cuBLAS workspace per stream (:4096:8 makes results reproducible, "
     "and uses more memory)"},
    {"CUBLASLT_LOG_LEVEL", "cuBLASLt logs its calls (1 errors .. 5 API trace)"},
    {"CUDNN_LOGLEVEL_DBG", "cuDNN 9 logs (0 off .. 3 info)"},
    {"CUDNN_LOGDEST_DBG", "where cuDNN logs go: stdout, stderr or a file"},
    {"CUDNN_LOGINFO_DBG", "cuDNN 8 logs its API calls (1: on)"},
    {"NVIDIA_TF32_OVERRIDE",
     "0: no TF32 in cuBLAS and cuDNN whatever the framework asks"},
    {"PYTORCH_CUDA_ALLOC_CONF",
     "PyTorch's caching allocator (expandable_segments, max_split_size_mb: "
     "fragmentation)"},
    {"TORCH_CUDNN_V8_API_DISABLED",
     "1: PyTorch uses cuDNN's legacy API instead of the v8 graph API"},
    {"TF_FORCE_GPU_ALLOW_GROWTH",
     "true: TensorFlow allocates GPU memory as needed instead of all of it"},
    {NULL, "its CUDA folders come before a library's own RUNPATH (Linux) "
           "or after its own folder (Windows)"},
    {"LD_PRELOAD", "libraries loaded before anything else, CUDA's included"},
};

/* Does a search-path entry look like CUDA's (a toolkit, a wheel, cuDNN)? */
static int cuda_entry(const char *entry, size_t len) {
  static const char *const marks[] = {"cuda", "nvidia", "cudnn"};
  for (size_t m = 0; m < sizeof marks / sizeof *marks; ++m) {
    size_t n = strlen(marks[m]);
    for (size_t i = 0; i + n <= len; ++i) {
      size_t k = 0;
      while (k < n && cl_ascii_lower(entry[i + k]) == marks[m][k])
        ++k;
      if (k == n)
        return 1;
    }
  }
  return 0;
}

/* The CUDA entries of a search path, joined as they were; NULL when none
 * (or no memory: *failed). */
static char *cuda_entries(const char *value, int *failed) {
  cl_buf b = CL_BUF_INIT;
  const char *p = value;
  while (*p) {
    size_t len = strcspn(p, (char[]){CL_LIST_SEP, 0});
    if (len && cuda_entry(p, len)) {
      if (b.len)
        cl_buf_append(&b, (char[]){CL_LIST_SEP}, 1);
      cl_buf_append(&b, p, len);
    }
    p += len;
    if (*p)
      ++p;
  }
  if (!b.len) {
    cl_buf_free(&b);
    return NULL;
  }
  char *text = cl_buf_take(&b);
  *failed |= !text;
  return text;
}

int cl_cuda_knobs_read(cl_cuda_knobs *out) {
  out->items = calloc(sizeof knobs / sizeof *knobs, sizeof *out->items);
  out->count = 0;
  if (!out->items)
    return CUDALOAD_E_NO_MEMORY;
  int failed = 0;
  for (size_t i = 0; i < sizeof knobs / sizeof *knobs; ++i) {
    const char *name =
        knobs[i].name ? knobs[i].name : cl_os_library_path_variable();
    char *value = cl_os_getenv(name);
    if (value && !knobs[i].name) {
      char *entries = cuda_entries(value, &failed);
      free(value);
      value = entries;
    }
    if (!value)
      continue;
    out->items[out->count].name = name;
    out->items[out->count].value = value;
    out->items[out->count].effect = knobs[i].effect;
    out->count++;
  }
  return failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}

void cl_cuda_knobs_free(cl_cuda_knobs *k) {
  for (size_t i = 0; i < k->count; ++i)
    free(k->items[i].value);
  free(k->items);
  k->items = NULL;
  k->count = 0;
}

const char *cl_cuda_knob_value(const cl_cuda_knobs *k, const char *name) {
  for (size_t i = 0; i < k->count; ++i)
    if (strcmp(k->items[i].name, name) == 0)
      return k->items[i].value;
  return NULL;
}
