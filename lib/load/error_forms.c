/* SPDX-License-Identifier: MIT */
/*
 * error_forms.c - every form of "this library did not load" that cudaload
 * reads, one row each: the loaders' own (glibc's dlopen, Windows'
 * LoadLibrary in every language it speaks), CUDA's, cuDNN's, and each
 * framework's wrapper of them (PyTorch, onnxruntime, ctranslate2, JAX,
 * CuPy, TensorFlow, PaddlePaddle, vLLM, llama.cpp, pip). docs/
 * error-messages.md lists them with the threads they were taken from;
 * tests/error_corpus holds real messages of each.
 *
 * The scan looks for all markers at once: each byte of the text is looked
 * up, by its lower case, in a table of the markers that start with it, so a
 * text is read once however many forms there are.
 */
#include "load/error_forms.h"
#include "common/strutil.h"
#include "cudaload.h"

#include <string.h>

#define MISSING CUDALOAD_MESSAGE_LIBRARY_MISSING
#define OR_DEPENDENCY CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY
#define SYMBOL CUDALOAD_MESSAGE_SYMBOL_MISSING
#define VERSION CUDALOAD_MESSAGE_VERSION_MISMATCH
#define DRIVER_OLD CUDALOAD_MESSAGE_DRIVER_TOO_OLD
#define DRIVER_MISSING CUDALOAD_MESSAGE_DRIVER_MISSING
#define NO_CUDA CUDALOAD_MESSAGE_CUDA_UNAVAILABLE

/* A Windows error text, which says the code in the user's language. */
#define WINDOWS_TEXT(marker, code)                                             \
  {                                                                            \
    marker, 0, CL_ERROR_STATEMENT, CL_READ_WINDOWS_CODE, code, NULL, NULL,     \
        "Windows", NULL                                                        \
  }
#define STATEMENT(marker, reader, strength, source)                            \
  { marker, 0, CL_ERROR_STATEMENT, reader, strength, NULL, NULL, source, NULL }

/* clang-format off: one row per form reads better as a table. */
static const cl_error_form forms[] = {
    /* --- the loaders ---------------------------------------------------- */
    {": cannot open shared object file", MISSING, CL_ERROR_MESSAGE,
     CL_READ_FILE_BEFORE, 0, NULL, NULL, "glibc's dlopen",
     "libX.so.N: cannot open shared object file"},
    {": error while loading shared libraries: ", 0, CL_ERROR_CONSUMER,
     CL_READ_CONSUMER_BEFORE, 0, NULL, NULL, "glibc's loader", NULL},
    {"undefined symbol: ", SYMBOL, CL_ERROR_MESSAGE, CL_READ_UNDEFINED_SYMBOL,
     0, NULL, NULL, "glibc's dlopen",
     "libX.so.N: undefined symbol: S, version libY.so.N"},
    {": symbol ", SYMBOL, CL_ERROR_MESSAGE, CL_READ_SYMBOL_NOT_DEFINED, 0, NULL,
     NULL, "glibc's loader",
     "X: symbol S version N not defined in file F with link time reference"},
    {"could not find module ", OR_DEPENDENCY, CL_ERROR_MESSAGE,
     CL_READ_FILE_AFTER, 0, NULL, NULL, "Python's ctypes on Windows",
     "[WinError 126] ... Could not find module 'X' (or one of its "
     "dependencies)"},
    {"[winerror 126]", OR_DEPENDENCY, CL_ERROR_SUMMARY, CL_READ_WINDOWS_CODE,
     126, NULL, NULL, "Python on Windows", "[WinError 126]"},
    {"[winerror 127]", SYMBOL, CL_ERROR_SUMMARY, CL_READ_WINDOWS_CODE, 127,
     NULL, NULL, "Python on Windows", "[WinError 127]"},
    {"dll load failed while importing ", OR_DEPENDENCY, CL_ERROR_SUMMARY,
     CL_READ_DLL_IMPORT, 0, NULL, NULL, "Python on Windows",
     "DLL load failed while importing X: ..."},
    {"dll load failed:", OR_DEPENDENCY, CL_ERROR_SUMMARY, CL_READ_DLL_IMPORT, 0,
     NULL, NULL, "Python on Windows", NULL},
    STATEMENT("error 126", CL_READ_WINDOWS_CODE, 126, "LoadLibrary"),
    STATEMENT("error 127", CL_READ_WINDOWS_CODE, 127, "LoadLibrary"),
    STATEMENT("error code 126", CL_READ_WINDOWS_CODE, 126, "cuDNN"),
    STATEMENT("error code 127", CL_READ_WINDOWS_CODE, 127, "cuDNN"),
    STATEMENT("error code is 126", CL_READ_WINDOWS_CODE, 126, "PaddlePaddle"),
    STATEMENT("error code is 127", CL_READ_WINDOWS_CODE, 127, "PaddlePaddle"),
    /* Windows' own texts of ERROR_MOD_NOT_FOUND (126) and
     * ERROR_PROC_NOT_FOUND (127) in the languages it ships; letters other
     * than ASCII are matched in their case, so no marker starts with a
     * capital one. */
    WINDOWS_TEXT("the specified module could not be found", 126),
    WINDOWS_TEXT("the specified module cannot be found", 126),
    WINDOWS_TEXT("module spécifié est introuvable", 126),
    WINDOWS_TEXT("das angegebene modul wurde nicht gefunden", 126),
    WINDOWS_TEXT("encontrar el módulo especificado", 126),
    WINDOWS_TEXT("encontrar o módulo especificado", 126),
    WINDOWS_TEXT("impossibile trovare il modulo specificato", 126),
    WINDOWS_TEXT("找不到指定的模块", 126),
    WINDOWS_TEXT("找不到指定的模組", 126),
    WINDOWS_TEXT("指定されたモジュールが見つかりません", 126),
    WINDOWS_TEXT("지정된 모듈을 찾을 수 없습니다", 126),
    WINDOWS_TEXT("найден указанный модуль", 126),
    WINDOWS_TEXT("odnaleźć określonego modułu", 126),
    WINDOWS_TEXT("belirtilen modül bulunamadı", 126),
    WINDOWS_TEXT("the specified procedure could not be found", 127),
    WINDOWS_TEXT("procédure spécifiée est introuvable", 127),
    WINDOWS_TEXT("die angegebene prozedur wurde nicht gefunden", 127),
    WINDOWS_TEXT("encontró el proceso especificado", 127),
    WINDOWS_TEXT("encontrar o procedimento especificado", 127),
    WINDOWS_TEXT("impossibile trovare la procedura specificata", 127),
    WINDOWS_TEXT("找不到指定的程序", 127),
    WINDOWS_TEXT("指定されたプロシージャが見つかりません", 127),
    WINDOWS_TEXT("지정된 프로시저를 찾을 수 없습니다", 127),
    WINDOWS_TEXT("найдена указанная процедура", 127),
    WINDOWS_TEXT("odnaleźć określonej procedury", 127),
    WINDOWS_TEXT("belirtilen yordam bulunamadı", 127),
    /* --- cuDNN, and PyTorch, ctranslate2 <= 4.4 which pass on its words - */
    {"could not load library ", MISSING, CL_ERROR_OPENER, CL_READ_FILE_AFTER, 0,
     NULL, NULL, "cuDNN 8, PyTorch",
     "Could not load library libX.so.N. Error: ..."},
    {"could not locate ", MISSING, CL_ERROR_MESSAGE, CL_READ_FILE_AFTER, 0,
     NULL, NULL, "cuDNN 8 on Windows, ctranslate2",
     "Could not locate X64_N.dll"},
    {"cudnn_status_sublibrary_loading_failed", MISSING, CL_ERROR_SUMMARY,
     CL_READ_NO_FILE, 0, "cudnn", NULL, "cuDNN 9",
     "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED"},
    /* --- ctranslate2 (faster-whisper) ----------------------------------- */
    {" is not found", MISSING, CL_ERROR_MESSAGE, CL_READ_FILE_BEFORE, 0, NULL,
     NULL, "ctranslate2", "Library libX.so.N is not found or cannot be loaded"},
    {"unable to load any of {", MISSING, CL_ERROR_MESSAGE, CL_READ_CANDIDATES,
     0, NULL, NULL, "ctranslate2 >= 4.5",
     "Unable to load any of {libX.so.N.M.P, libX.so.N.M, libX.so.N}"},
    {"cannot load symbol ", MISSING, CL_ERROR_SUMMARY, CL_READ_SYMBOL_AFTER, 0,
     NULL, NULL, "ctranslate2 >= 4.5", NULL},
    /* --- PyTorch -------------------------------------------------------- */
    {"error loading ", OR_DEPENDENCY, CL_ERROR_OPENER, CL_READ_FILE_AFTER, 0,
     NULL, NULL, "PyTorch and onnxruntime on Windows",
     "Error loading \"X\" or one of its dependencies"},
    {"cudnn version incompatibility", VERSION, CL_ERROR_MESSAGE,
     CL_READ_TORCH_CUDNN, 0, "cudnn", "torch", "PyTorch",
     "cuDNN version incompatibility: PyTorch was compiled against (A, B, C) "
     "but found runtime version (D, E, F)"},
    {"cudnn version mismatch", VERSION, CL_ERROR_MESSAGE, CL_READ_TORCH_CUDNN,
     0, "cudnn", "torch", "PyTorch", NULL},
    {"the nvidia driver on your system is too old", DRIVER_OLD,
     CL_ERROR_MESSAGE, CL_READ_DRIVER_FOUND, 0, NULL, "torch", "PyTorch",
     "The NVIDIA driver on your system is too old (found version N)"},
    {"found no nvidia driver on your system", DRIVER_MISSING, CL_ERROR_MESSAGE,
     CL_READ_NO_FILE, 0, NULL, "torch", "PyTorch",
     "Found no NVIDIA driver on your system"},
    {"torch not compiled with cuda enabled", NO_CUDA, CL_ERROR_MESSAGE,
     CL_READ_NO_FILE, 0, NULL, "torch", "PyTorch",
     "Torch not compiled with CUDA enabled"},
    /* --- onnxruntime ---------------------------------------------------- */
    {"failed to load library ", OR_DEPENDENCY, CL_ERROR_OPENER,
     CL_READ_FILE_AFTER, 0, NULL, "onnxruntime", "onnxruntime",
     "Failed to load library X with error: ..."},
    {"when trying to load ", OR_DEPENDENCY, CL_ERROR_MESSAGE,
     CL_READ_FILE_AFTER, 0, NULL, "onnxruntime", "onnxruntime on Windows",
     "LoadLibrary failed with error 126 \"\" when trying to load X"},
    {"\" which is missing", MISSING, CL_ERROR_MESSAGE, CL_READ_QUOTED_BEFORE, 0,
     NULL, "onnxruntime", "onnxruntime >= 1.20 on Windows",
     "Error loading \"X\" which depends on \"Y\" which is missing"},
    {"require cudnn ", OR_DEPENDENCY, CL_ERROR_SUMMARY, CL_READ_REQUIRE, 3,
     "cudnn", "onnxruntime", "onnxruntime",
     "Failed to create CUDAExecutionProvider. Require cuDNN N.* and CUDA "
     "M.*"},
    {"is not in available provider names", NO_CUDA, CL_ERROR_MESSAGE,
     CL_READ_NO_FILE, 0, NULL, "onnxruntime", "onnxruntime",
     "Specified provider 'CUDAExecutionProvider' is not in available provider "
     "names"},
    /* --- JAX and TensorFlow (XLA) --------------------------------------- */
    {"unable to load ", MISSING, CL_ERROR_MESSAGE, CL_READ_FAMILY_AFTER, 0,
     NULL, "jax", "JAX", "Unable to load cuSPARSE. Is it installed?"},
    {" library was not found", MISSING, CL_ERROR_MESSAGE, CL_READ_FAMILY_BEFORE,
     0, NULL, "jax", "JAX", "The cuSPARSE library was not found"},
    {"loaded runtime cudnn library: ", VERSION, CL_ERROR_MESSAGE,
     CL_READ_LOADED_COMPILED, 0, "cudnn", NULL, "JAX, TensorFlow",
     "Loaded runtime CuDNN library: A but source was compiled with: B"},
    {"a cuda-enabled jaxlib is not installed", NO_CUDA, CL_ERROR_SUMMARY,
     CL_READ_NO_FILE, 0, NULL, "jax", "JAX", NULL},
    {"could not load dynamic library ", MISSING, CL_ERROR_OPENER,
     CL_READ_FILE_AFTER, 0, NULL, "tensorflow", "TensorFlow",
     "Could not load dynamic library 'libX.so.N'; dlerror: ..."},
    {" not found", MISSING, CL_ERROR_MESSAGE, CL_READ_FILE_BEFORE, 0, NULL,
     NULL, "TensorFlow on Windows, PaddlePaddle",
     "dlerror: X64_N.dll not found"},
    {"cannot dlopen some gpu libraries", MISSING, CL_ERROR_SUMMARY,
     CL_READ_NO_FILE, 0, NULL, "tensorflow", "TensorFlow",
     "Cannot dlopen some GPU libraries"},
    {"could not find cuda drivers on your machine", DRIVER_MISSING,
     CL_ERROR_MESSAGE, CL_READ_NO_FILE, 0, NULL, "tensorflow", "TensorFlow",
     NULL},
    /* --- CuPy, PaddlePaddle, vLLM, llama.cpp ---------------------------- */
    {"cupy failed to load ", MISSING, CL_ERROR_OPENER, CL_READ_FILE_AFTER, 0,
     NULL, "cupy", "CuPy", "CuPy failed to load libX.so.N: OSError: ..."},
    {"the third-party dynamic library (", MISSING, CL_ERROR_OPENER,
     CL_READ_FILE_AFTER, 0, NULL, "paddle", "PaddlePaddle",
     "The third-party dynamic library (libX.so) that Paddle depends on is "
     "not configured correctly"},
    {"failed to find dynamic library: ", MISSING, CL_ERROR_OPENER,
     CL_READ_FILE_AFTER, 0, NULL, "paddle", "PaddlePaddle", NULL},
    {"failed to load nccl library from ", OR_DEPENDENCY, CL_ERROR_MESSAGE,
     CL_READ_FILE_AFTER, 0, NULL, "vllm", "vLLM",
     "Failed to load NCCL library from libnccl.so.2"},
    {"cannot find ", MISSING, CL_ERROR_MESSAGE, CL_READ_FILE_AFTER, 0, NULL,
     NULL, "vLLM", NULL},
    {"failed to load shared library ", MISSING, CL_ERROR_OPENER,
     CL_READ_FILE_AFTER, 0, NULL, "llama_cpp", "llama-cpp-python",
     "Failed to load shared library 'X': ..."},
    /* --- CUDA itself ---------------------------------------------------- */
    {"cublas_status_not_initialized", CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED,
     CL_ERROR_MESSAGE, CL_READ_NO_FILE, 0, "cublas", NULL, "cuBLAS",
     "CUBLAS_STATUS_NOT_INITIALIZED"},
    {"cuda driver version is insufficient for cuda runtime version", DRIVER_OLD,
     CL_ERROR_MESSAGE, CL_READ_NO_FILE, 0, NULL, NULL,
     "the CUDA runtime (llama.cpp's ggml_cuda_init, any framework)",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {"cudaerrorinsufficientdriver", DRIVER_OLD, CL_ERROR_MESSAGE,
     CL_READ_NO_FILE, 0, NULL, NULL, "the CUDA runtime", NULL},
    {"no cuda-capable device is detected", DRIVER_MISSING, CL_ERROR_MESSAGE,
     CL_READ_NO_FILE, 0, NULL, NULL, "the CUDA runtime",
     "no CUDA-capable device is detected"},
    {"no kernel image is available for execution on the device",
     CUDALOAD_MESSAGE_NO_KERNEL_IMAGE, CL_ERROR_MESSAGE, CL_READ_NO_FILE, 0,
     NULL, NULL, "the CUDA runtime",
     "no kernel image is available for execution on the device"},
    {"cudaerrornokernelimagefordevice", CUDALOAD_MESSAGE_NO_KERNEL_IMAGE,
     CL_ERROR_MESSAGE, CL_READ_NO_FILE, 0, NULL, NULL, "the CUDA runtime",
     NULL},
    {"cuda_error_no_binary_for_gpu", CUDALOAD_MESSAGE_NO_KERNEL_IMAGE,
     CL_ERROR_MESSAGE, CL_READ_NO_FILE, 0, NULL, NULL, "the CUDA driver", NULL},
    /* --- pip ------------------------------------------------------------ */
    {" requires nvidia-", CUDALOAD_MESSAGE_PACKAGE_CONFLICT, CL_ERROR_MESSAGE,
     CL_READ_PIP, 0, NULL, NULL, "pip's resolver",
     "D V requires nvidia-X-cuN==A, but you have nvidia-X-cuN B which is "
     "incompatible"},
    /* --- what the text says of versions and places ---------------------- */
    STATEMENT("runtime api version: ", CL_READ_RUNTIME_API, 3, "PaddlePaddle"),
    STATEMENT("driver api version: ", CL_READ_DRIVER_API, 0, "PaddlePaddle"),
    STATEMENT("cuda version: ", CL_READ_DRIVER_API, 0, "nvidia-smi"),
    STATEMENT("+cu", CL_READ_BUILD_TAG, 3, "a wheel's local version"),
    STATEMENT("xla_cuda", CL_READ_CUDA_IN_NAME, 3, "JAX's plugin"),
    STATEMENT("jax_cuda", CL_READ_CUDA_IN_NAME, 3, "JAX's plugin"),
    STATEMENT("jax-cuda", CL_READ_CUDA_IN_NAME, 3, "JAX's plugin"),
    STATEMENT("-cu1", CL_READ_CUDA_IN_NAME, 1, "a wheel's name"),
    STATEMENT("_cu1", CL_READ_CUDA_IN_NAME, 1, "a wheel's name"),
    STATEMENT("successfully opened dynamic library ", CL_READ_OPENED, 2,
              "TensorFlow"),
    STATEMENT("site-packages", CL_READ_SITE_PACKAGES, 0, "Python"),
    STATEMENT("dist-packages", CL_READ_SITE_PACKAGES, 0, "Python"),
};
/* clang-format on */
#define FORM_COUNT (sizeof forms / sizeof forms[0])

const cl_error_form *cl_error_forms(size_t *count) {
  *count = FORM_COUNT;
  return forms;
}

/* The forms whose marker starts with each byte (letters by lower case), in
 * table order: those of byte c are order[first[c]] to order[first[c + 1]]. */
typedef struct first_bytes {
  unsigned short first[257];
  unsigned char order[FORM_COUNT];
} first_bytes;

static void index_forms(first_bytes *x) {
  unsigned short count[256] = {0};
  for (size_t f = 0; f < FORM_COUNT; ++f)
    count[(unsigned char)forms[f].marker[0]]++;
  x->first[0] = 0;
  for (unsigned c = 0; c < 256; ++c)
    x->first[c + 1] = (unsigned short)(x->first[c] + count[c]);
  unsigned short next[256];
  memcpy(next, x->first, sizeof next);
  for (size_t f = 0; f < FORM_COUNT; ++f)
    x->order[next[(unsigned char)forms[f].marker[0]]++] = (unsigned char)f;
}

/* The marker at p, whose first byte matched: the rest compared, ASCII
 * letters in any case; end is the text's end. A marker's last space may be
 * a line's end: a logger that wraps at words leaves "Error loading" at the
 * end of one line and the file at the start of the next. */
static int marker_at(const char *p, const char *end, const char *marker) {
  size_t i = 1;
  for (; marker[i]; ++i)
    if (p + i >= end || (cl_ascii_lower(p[i]) != marker[i] &&
                         !(marker[i] == ' ' && !marker[i + 1] && p[i] == '\n')))
      return 0;
  return 1;
}

int cl_error_forms_scan(const char *text, size_t len, cl_error_hit_fn fn,
                        void *opaque) {
  first_bytes x; /* a few hundred bytes: made per scan, no shared state */
  index_forms(&x);
  const char *end = text + len;
  size_t line_start = 0, line_end = (size_t)-1;
  for (const char *p = text; p < end; ++p) {
    unsigned char c = (unsigned char)cl_ascii_lower(*p);
    if (*p == '\n') {
      line_start = (size_t)(p - text) + 1;
      line_end = (size_t)-1;
      continue;
    }
    for (unsigned k = x.first[c]; k < x.first[c + 1]; ++k) {
      const cl_error_form *f = &forms[x.order[k]];
      if (!marker_at(p, end, f->marker))
        continue;
      if (line_end == (size_t)-1) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        line_end = nl ? (size_t)(nl - text) : len;
      }
      size_t after = (size_t)(p - text) + strlen(f->marker);
      cl_error_hit hit = {f,     text,       (size_t)(p - text),
                          after, line_start, line_end};
      if (after - 1 == line_end) { /* read on in the next line */
        const char *nl = memchr(text + after, '\n', len - after);
        hit.line_end = nl ? (size_t)(nl - text) : len;
      }
      int rc = fn(&hit, opaque);
      if (rc)
        return rc;
    }
  }
  return 0;
}
