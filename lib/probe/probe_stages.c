/* SPDX-License-Identifier: MIT */
/*
 * probe_stages.c - "may I use the GPU?", answered in stages: the driver
 * library, cuInit, the devices, a primary context with an allocation and a
 * copy, and for the ctx's requirements the CUDA runtime, cuBLAS (with a tiny
 * SGEMM checked against the CPU) and cuDNN.
 *
 * Nothing here includes a CUDA header or links to CUDA: each library's
 * functions are looked up by name from a static table of symbol names into
 * a table of generic function pointers (void (*)(void)) local to one run,
 * and cast to their real type where they are called. The driver's _v2 entry
 * points are asked for where they exist: the unsuffixed ones are the 32-bit
 * ABI of CUDA 3.x and take 32-bit sizes and device pointers.
 */
#include "probe/probe_stages.h"

#include "core/context.h"
#include "common/buf.h"
#include "common/error.h"
#include "load/library_open.h"
#include "probe/cublas_causes.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "scan/catalog.h"
#include "load/plan_state.h"
#include "common/reason_words.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Function tables                                                          */
/* ------------------------------------------------------------------------ */

typedef void (*cl_generic_fn)(void);

typedef struct cl_symbol_spec {
  const char *name;
  const char *fallback; /* an older name with the same signature, or NULL */
  int required;
} cl_symbol_spec;

/* The CUDA driver API (cuda.h), as the probe uses it. CUresult is an int,
 * CUdevice an int, CUcontext a pointer, CUdeviceptr 64 bits (_v2). */
typedef unsigned long long cl_cu_deviceptr;
typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_driver_get_version_fn)(int *version);
typedef int (*cu_device_get_count_fn)(int *count);
typedef int (*cu_device_get_fn)(int *device, int ordinal);
typedef int (*cu_device_get_name_fn)(char *name, int len, int device);
typedef int (*cu_device_get_attribute_fn)(int *value, int attribute,
                                          int device);
typedef int (*cu_device_total_mem_fn)(size_t *bytes, int device);
typedef int (*cu_device_get_uuid_fn)(unsigned char *uuid, int device);
typedef int (*cu_primary_ctx_retain_fn)(void **context, int device);
typedef int (*cu_primary_ctx_release_fn)(int device);
typedef int (*cu_ctx_set_current_fn)(void *context);
typedef int (*cu_ctx_get_current_fn)(void **context);
typedef int (*cu_mem_alloc_fn)(cl_cu_deviceptr *pointer, size_t bytes);
typedef int (*cu_mem_free_fn)(cl_cu_deviceptr pointer);
typedef int (*cu_memcpy_htod_fn)(cl_cu_deviceptr to, const void *from,
                                 size_t bytes);
typedef int (*cu_memcpy_dtoh_fn)(void *to, cl_cu_deviceptr from, size_t bytes);
typedef int (*cu_get_error_text_fn)(int result, const char **text);
typedef int (*cu_mem_get_info_fn)(size_t *free_bytes, size_t *total_bytes);

enum driver_symbol {
  CU_INIT,
  CU_DRIVER_GET_VERSION,
  CU_DEVICE_GET_COUNT,
  CU_DEVICE_GET,
  CU_DEVICE_GET_NAME,
  CU_DEVICE_GET_ATTRIBUTE,
  CU_DEVICE_TOTAL_MEM,
  CU_DEVICE_GET_UUID,
  CU_PRIMARY_CTX_RETAIN,
  CU_PRIMARY_CTX_RELEASE,
  CU_CTX_SET_CURRENT,
  CU_CTX_GET_CURRENT,
  CU_MEM_ALLOC,
  CU_MEM_FREE,
  CU_MEMCPY_HTOD,
  CU_MEMCPY_DTOH,
  CU_GET_ERROR_NAME,
  CU_GET_ERROR_STRING,
  CU_MEM_GET_INFO,
  DRIVER_SYMBOL_COUNT
};

static const cl_symbol_spec driver_symbols[DRIVER_SYMBOL_COUNT] = {
    [CU_INIT] = {"cuInit", NULL, 1},
    [CU_DRIVER_GET_VERSION] = {"cuDriverGetVersion", NULL, 1},
    [CU_DEVICE_GET_COUNT] = {"cuDeviceGetCount", NULL, 1},
    [CU_DEVICE_GET] = {"cuDeviceGet", NULL, 1},
    [CU_DEVICE_GET_NAME] = {"cuDeviceGetName", NULL, 1},
    [CU_DEVICE_GET_ATTRIBUTE] = {"cuDeviceGetAttribute", NULL, 1},
    [CU_DEVICE_TOTAL_MEM] = {"cuDeviceTotalMem_v2", NULL, 1},
    [CU_DEVICE_GET_UUID] = {"cuDeviceGetUuid_v2", "cuDeviceGetUuid", 1},
    [CU_PRIMARY_CTX_RETAIN] = {"cuDevicePrimaryCtxRetain", NULL, 1},
    [CU_PRIMARY_CTX_RELEASE] = {"cuDevicePrimaryCtxRelease_v2",
                                "cuDevicePrimaryCtxRelease", 1},
    [CU_CTX_SET_CURRENT] = {"cuCtxSetCurrent", NULL, 1},
    [CU_CTX_GET_CURRENT] = {"cuCtxGetCurrent", NULL, 0},
    [CU_MEM_ALLOC] = {"cuMemAlloc_v2", NULL, 1},
    [CU_MEM_FREE] = {"cuMemFree_v2", NULL, 1},
    [CU_MEMCPY_HTOD] = {"cuMemcpyHtoD_v2", NULL, 1},
    [CU_MEMCPY_DTOH] = {"cuMemcpyDtoH_v2", NULL, 1},
    [CU_GET_ERROR_NAME] = {"cuGetErrorName", NULL, 0},
    [CU_GET_ERROR_STRING] = {"cuGetErrorString", NULL, 0},
    [CU_MEM_GET_INFO] = {"cuMemGetInfo_v2", NULL, 0},
};

/* CUresult values the probe tells apart (cuda.h). */
#define CU_SUCCESS 0
#define CU_ERROR_INSUFFICIENT_DRIVER 35
#define CU_ERROR_DEVICE_UNAVAILABLE 46
#define CU_ERROR_NO_DEVICE 100
#define CU_ATTRIBUTE_KERNEL_EXEC_TIMEOUT 17
#define CU_ATTRIBUTE_INTEGRATED 18
#define CU_ATTRIBUTE_COMPUTE_MODE 20
#define CU_ATTRIBUTE_TCC_DRIVER 35
#define CU_ATTRIBUTE_CC_MAJOR 75
#define CU_ATTRIBUTE_CC_MINOR 76

/* The CUDA runtime. */
typedef int (*cuda_runtime_get_version_fn)(int *version);
enum runtime_symbol { CUDA_RUNTIME_GET_VERSION, RUNTIME_SYMBOL_COUNT };
static const cl_symbol_spec runtime_symbols[RUNTIME_SYMBOL_COUNT] = {
    [CUDA_RUNTIME_GET_VERSION] = {"cudaRuntimeGetVersion", NULL, 1},
};

/* cuBLAS (v2 API: cublas_v2.h maps cublasCreate to cublasCreate_v2). */
typedef int (*cublas_create_fn)(void **handle);
typedef int (*cublas_destroy_fn)(void *handle);
typedef int (*cublas_sgemm_fn)(void *handle, int transa, int transb, int m,
                               int n, int k, const float *alpha, const float *a,
                               int lda, const float *b, int ldb,
                               const float *beta, float *c, int ldc);
typedef const char *(*cublas_status_text_fn)(int status);
enum cublas_symbol {
  CUBLAS_CREATE,
  CUBLAS_DESTROY,
  CUBLAS_SGEMM,
  CUBLAS_GET_STATUS_NAME,
  CUBLAS_SYMBOL_COUNT
};
static const cl_symbol_spec cublas_symbols[CUBLAS_SYMBOL_COUNT] = {
    [CUBLAS_CREATE] = {"cublasCreate_v2", NULL, 1},
    [CUBLAS_DESTROY] = {"cublasDestroy_v2", NULL, 1},
    [CUBLAS_SGEMM] = {"cublasSgemm_v2", NULL, 1},
    [CUBLAS_GET_STATUS_NAME] = {"cublasGetStatusName", NULL, 0},
};
#define CUBLAS_OP_N 0

/* cuDNN. */
typedef size_t (*cudnn_get_version_fn)(void);
typedef int (*cudnn_create_fn)(void **handle);
typedef int (*cudnn_destroy_fn)(void *handle);
typedef const char *(*cudnn_error_string_fn)(int status);
enum cudnn_symbol {
  CUDNN_GET_VERSION,
  CUDNN_CREATE,
  CUDNN_DESTROY,
  CUDNN_GET_ERROR_STRING,
  CUDNN_SYMBOL_COUNT
};
static const cl_symbol_spec cudnn_symbols[CUDNN_SYMBOL_COUNT] = {
    [CUDNN_GET_VERSION] = {"cudnnGetVersion", NULL, 1},
    [CUDNN_CREATE] = {"cudnnCreate", NULL, 1},
    [CUDNN_DESTROY] = {"cudnnDestroy", NULL, 1},
    [CUDNN_GET_ERROR_STRING] = {"cudnnGetErrorString", NULL, 0},
};

static cl_generic_fn as_function(void *address) {
  cl_generic_fn function = NULL;
  if (address)
    memcpy(&function, &address, sizeof function);
  return function;
}

/* Fill table from handle; the first missing required symbol's name, or
 * NULL when all required ones are there. */
static const char *resolve(void *handle, const cl_symbol_spec *specs,
                           size_t count, cl_generic_fn *table) {
  const char *missing = NULL;
  for (size_t i = 0; i < count; ++i) {
    table[i] = as_function(cl_os_loader_symbol(handle, specs[i].name));
    if (!table[i] && specs[i].fallback)
      table[i] = as_function(cl_os_loader_symbol(handle, specs[i].fallback));
    if (!table[i] && specs[i].required && !missing)
      missing = specs[i].name;
  }
  return missing;
}

/* ------------------------------------------------------------------------ */
/* One run                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct probe_run {
  cudaload_ctx *ctx;
  cudaload_probe *p;
  cl_probe_stage_callback on_stage;
  void *opaque;
  int reason;        /* the first failure's, CUDALOAD_REASON_NONE until then */
  double started_ms; /* of the current stage */
  int out_of_memory;

  void *driver;
  cl_generic_fn cu[DRIVER_SYMBOL_COUNT];
  int device;
  int context_retained;
  void *previous_context;

  int preloaded;
  char *preload_error; /* the preload's last error, or NULL */
} probe_run;

static void stage_begin(probe_run *run) {
  run->started_ms = cl_os_clock_ms();
}

static void stage_end(probe_run *run, size_t stage, int status, int reason,
                      const char *fmt, ...) CL_PRINTF(5, 6);
static void stage_end(probe_run *run, size_t stage, int status, int reason,
                      const char *fmt, ...) {
  double ms = cl_os_clock_ms() - run->started_ms;
  cl_buf text = CL_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  cl_buf_vprintf(&text, fmt, ap);
  va_end(ap);
  char *message = cl_buf_take(&text);
  if (!message)
    run->out_of_memory = 1;
  cl_probe_set_stage(run->p, stage, status, ms < 0 ? 0 : ms,
                     message ? message : CL_WORDS_STAGE_OUT_OF_MEMORY);
  free(message);
  if (status == CUDALOAD_STAGE_FAILED && run->reason == CUDALOAD_REASON_NONE)
    run->reason = reason;
  if (run->on_stage)
    run->on_stage(run->p, stage, run->opaque);
}

static void stage_skip(probe_run *run, size_t stage, const char *why) {
  cl_probe_set_stage(run->p, stage, CUDALOAD_STAGE_SKIPPED, 0, why);
  if (run->on_stage)
    run->on_stage(run->p, stage, run->opaque);
}

/* "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected", from the
 * driver where it can tell, else from what cuda.h documents. */
static void driver_error_text(const probe_run *run, int result, char *out,
                              size_t size) {
  static const struct {
    int code;
    const char *name;
  } known[] = {{1, "CUDA_ERROR_INVALID_VALUE"},
               {2, "CUDA_ERROR_OUT_OF_MEMORY"},
               {3, "CUDA_ERROR_NOT_INITIALIZED"},
               {4, "CUDA_ERROR_DEINITIALIZED"},
               {34, "CUDA_ERROR_STUB_LIBRARY"},
               {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
               {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
               {100, "CUDA_ERROR_NO_DEVICE"},
               {101, "CUDA_ERROR_INVALID_DEVICE"},
               {304, "CUDA_ERROR_OPERATING_SYSTEM"},
               {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
               {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
               {999, "CUDA_ERROR_UNKNOWN"}};
  const char *name = NULL, *description = NULL;
  if (run->cu[CU_GET_ERROR_NAME] &&
      ((cu_get_error_text_fn)run->cu[CU_GET_ERROR_NAME])(result, &name) !=
          CU_SUCCESS)
    name = NULL;
  if (run->cu[CU_GET_ERROR_STRING] &&
      ((cu_get_error_text_fn)run->cu[CU_GET_ERROR_STRING])(
          result, &description) != CU_SUCCESS)
    description = NULL;
  for (size_t i = 0; !name && i < sizeof known / sizeof *known; ++i)
    if (known[i].code == result)
      name = known[i].name;
  /* The driver's strings are read no further than the precision: one
   * without a terminator, or a huge one, costs nothing. */
  snprintf(out, size, "%d, %.96s%s%.160s", result,
           name ? name : "unknown CUresult", description ? ": " : "",
           description ? description : "");
}

/* A driver call failed: end the stage with its name and the code. */
static void driver_failure(probe_run *run, size_t stage, int reason,
                           const char *call, int result) {
  char error[256];
  driver_error_text(run, result, error, sizeof error);
  stage_end(run, stage, CUDALOAD_STAGE_FAILED, reason, "%s returned %s", call,
            error);
}

static int is_stub_path(const char *path) {
  return strstr(path, "/stubs/") || strstr(path, "\\stubs\\") ||
         strstr(path, "/stubs\\") || strstr(path, "\\stubs/");
}

/* The driver library the ctx asks for: its own setting, else CUDALOAD_DRIVER
 * from the environment, else the bare default name. malloc'ed. */
static char *driver_choice(const cudaload_ctx *ctx) {
  if (ctx && ctx->probe_driver_path)
    return cl_strdup(ctx->probe_driver_path);
  char *from_environment = cl_os_getenv("CUDALOAD_DRIVER");
  if (from_environment && from_environment[0])
    return from_environment;
  free(from_environment);
  return cl_strdup(cl_os_driver_name());
}

static int has_separator(const char *path) {
  return strchr(path, '/') || strchr(path, '\\');
}

/* 1: the driver library and its functions. */
/* The driver's file for the result: where the loader found the library it
 * opened by name, or the canonical form of the path given; NULL when
 * neither is known (the choice is then shown as given), which is an
 * answer, so no error is written. */
static char *driver_file(const char *choice, int by_name) {
  if (by_name)
    return cl_os_loader_find_loaded(choice); /* sets no error */
  char *path = cl_os_real_path_quiet(choice, NULL);
  return path;
}

static int stage_driver(probe_run *run) {
  stage_begin(run);
  char *choice = driver_choice(run->ctx);
  if (!choice) {
    run->out_of_memory = 1;
    return 0;
  }
  int ok = 0;
  if (is_stub_path(choice)) {
    /* The toolkit's lib64/stubs/libcuda.so only satisfies the linker; its
     * cuInit always fails (CUDA_ERROR_STUB_LIBRARY). */
    stage_end(run, CL_STAGE_DRIVER, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_NO_DRIVER, CL_WORDS_IS_THE_LINK_TIME_STUB,
              choice);
  } else if (has_separator(choice) && !cl_os_path_is_absolute(choice)) {
    stage_end(run, CL_STAGE_DRIVER, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_NO_DRIVER, CL_WORDS_DRIVER_NOT_AN_ABSOLUTE_PATH,
              choice);
  } else {
    int by_name = !has_separator(choice);
    run->driver = by_name ? cl_os_loader_open_system(choice)
                          : cl_library_open(choice, CL_OPEN_LOCAL);
    if (!run->driver) {
      stage_end(run, CL_STAGE_DRIVER, CUDALOAD_STAGE_FAILED,
                CUDALOAD_REASON_NO_DRIVER, "%s", cudaload_last_error());
    } else {
      char *path = driver_file(choice, by_name);
      free(run->p->driver_path);
      run->p->driver_path = path ? path : cl_strdup(choice);
      if (!run->p->driver_path)
        run->out_of_memory = 1;
      const char *missing =
          resolve(run->driver, driver_symbols, DRIVER_SYMBOL_COUNT, run->cu);
      const char *shown = run->p->driver_path ? run->p->driver_path : choice;
      if (missing) {
        stage_end(run, CL_STAGE_DRIVER, CUDALOAD_STAGE_FAILED,
                  CUDALOAD_REASON_DRIVER_BROKEN,
                  CL_WORDS_LACKS_WHAT_EVERY_DRIVER_EXPORTS, shown, missing);
      } else {
        ok = 1;
        stage_end(run, CL_STAGE_DRIVER, CUDALOAD_STAGE_OK, 0,
                  "%s loaded from %s", cl_path_basename(choice), shown);
      }
    }
  }
  free(choice);
  return ok;
}

#define CU(run, symbol, type) ((type)(run)->cu[symbol])

static void version_text(int version, char *out, size_t size) {
  snprintf(out, size, "%d.%d", version / 1000, (version % 1000) / 10);
}

/* When the driver sees no device, CUDA_VISIBLE_DEVICES is the first
 * suspect: the driver shows a process only the devices it lists, and an
 * empty value, -1 or an index past the last device lists none. "" when it
 * is not set; otherwise malloc'ed (NULL without memory). */
static char *visible_devices_clause(void) {
  char *value = cl_os_getenv("CUDA_VISIBLE_DEVICES");
  if (!value)
    return cl_strdup("");
  char *clause = cl_strdup_printf(CL_WORDS_CUDA_VISIBLE_DEVICES_IS_SET, value);
  free(value);
  return clause;
}

/* The driver sees no device: end the stage with why, as far as told. */
static void no_device(probe_run *run, size_t stage, const char *what) {
  char *clause = visible_devices_clause();
  stage_end(run, stage, CUDALOAD_STAGE_FAILED, CUDALOAD_REASON_NO_DEVICE,
            "%s%s", what, clause ? clause : "");
  free(clause);
}

/* cuInit failed: the reason by its code, with what the driver said of
 * itself (version: cuDriverGetVersion's answer, 0 when it gave none). */
static void init_failed(probe_run *run, int result, int version) {
  int reason = result == CU_ERROR_NO_DEVICE ? CUDALOAD_REASON_NO_DEVICE
               : result == CU_ERROR_INSUFFICIENT_DRIVER
                   ? CUDALOAD_REASON_DRIVER_TOO_OLD
                   : CUDALOAD_REASON_INIT_FAILED;
  char error[256];
  driver_error_text(run, result, error, sizeof error);
  if (result == CU_ERROR_INSUFFICIENT_DRIVER &&
      cl_probe_valid_cuda_version(version)) {
    char driver[32];
    version_text(version, driver, sizeof driver);
    stage_end(run, CL_STAGE_INIT, CUDALOAD_STAGE_FAILED, reason,
              CL_WORDS_CUINIT_RETURNED_DRIVER_SUPPORTS, error, driver, version);
  } else if (reason == CUDALOAD_REASON_NO_DEVICE) {
    char what[300];
    snprintf(what, sizeof what, "cuInit(0) returned %s", error);
    no_device(run, CL_STAGE_INIT, what);
  } else {
    stage_end(run, CL_STAGE_INIT, CUDALOAD_STAGE_FAILED, reason,
              "cuInit(0) returned %s", error);
  }
}

/* 2: cuInit and cuDriverGetVersion. */
static int stage_init(probe_run *run) {
  stage_begin(run);
  /* cuDriverGetVersion needs no cuInit: asked first, so that a driver too
   * old for cuInit still says which CUDA it supports. */
  int version = 0;
  int answered = CU(run, CU_DRIVER_GET_VERSION,
                    cu_driver_get_version_fn)(&version) == CU_SUCCESS;
  if (answered && cl_probe_valid_cuda_version(version))
    run->p->driver_version = version;
  int result = CU(run, CU_INIT, cu_init_fn)(0);
  if (result != CU_SUCCESS) {
    init_failed(run, result, answered ? version : 0);
    return 0;
  }
  if (!answered) {
    result = CU(run, CU_DRIVER_GET_VERSION, cu_driver_get_version_fn)(&version);
    if (result != CU_SUCCESS) {
      driver_failure(run, CL_STAGE_INIT, CUDALOAD_REASON_INIT_FAILED,
                     "cuDriverGetVersion", result);
      return 0;
    }
  }
  if (!cl_probe_valid_cuda_version(version)) {
    /* The driver initialised: the GPU may well work, but no version
     * comparison can rest on this number. */
    run->p->driver_version = 0;
    stage_end(run, CL_STAGE_INIT, CUDALOAD_STAGE_WARNING, 0,
              CL_WORDS_CUINIT_SUCCEEDED_INVALID_VERSION, version,
              CL_PROBE_MIN_CUDA_VERSION, CL_PROBE_MAX_CUDA_VERSION);
    return 1;
  }
  run->p->driver_version = version;
  char driver[32];
  version_text(version, driver, sizeof driver);
  stage_end(run, CL_STAGE_INIT, CUDALOAD_STAGE_OK, 0, CL_WORDS_CUINIT_SUCCEEDED,
            driver, version);
  return 1;
}

static void uuid_text(const unsigned char *u, char *out, size_t size) {
  snprintf(out, size,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
           "%02x%02x%02x%02x%02x%02x",
           u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
           u[11], u[12], u[13], u[14], u[15]);
}

/* The device count, checked; 0 with the stage ended when it is no use. */
static int device_count(probe_run *run, int *count) {
  int result = CU(run, CU_DEVICE_GET_COUNT, cu_device_get_count_fn)(count);
  if (result != CU_SUCCESS) {
    driver_failure(run, CL_STAGE_DEVICES, CUDALOAD_REASON_DEVICE_FAILED,
                   "cuDeviceGetCount", result);
    return 0;
  }
  if (*count < 0 || *count > CL_PROBE_MAX_DEVICES) {
    /* Not "no device": a driver that counts nonsense is broken, and a huge
     * count would have the probe ask about (and hold) each device. */
    stage_end(run, CL_STAGE_DEVICES, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_DEVICE_FAILED, CL_WORDS_INVALID_DEVICE_COUNT,
              *count, CL_PROBE_MAX_DEVICES);
    return 0;
  }
  if (*count == 0) {
    no_device(run, CL_STAGE_DEVICES, CL_WORDS_CUDEVICEGETCOUNT_FOUND_NO_DEVICE);
    return 0;
  }
  return 1;
}

/* What the driver says of one device, as it said it. The attributes after
 * uuid only inform (-1: the driver did not answer). */
typedef struct device_facts {
  int device, major, minor;
  char name[256];
  size_t bytes;
  unsigned char uuid[16];
  int tcc_driver, kernel_timeout, compute_mode, integrated;
} device_facts;

/* An attribute that informs the diagnosis but decides nothing: a driver
 * that does not answer leaves it unknown (-1) rather than failing the
 * stage. */
static int informative_attribute(probe_run *run, int attribute, int device) {
  int value = -1;
  if (CU(run, CU_DEVICE_GET_ATTRIBUTE,
         cu_device_get_attribute_fn)(&value, attribute, device) != CU_SUCCESS)
    return -1;
  return value;
}

static void query_device_mode(probe_run *run, device_facts *d) {
  d->tcc_driver =
      informative_attribute(run, CU_ATTRIBUTE_TCC_DRIVER, d->device);
  d->kernel_timeout =
      informative_attribute(run, CU_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, d->device);
  d->compute_mode =
      informative_attribute(run, CU_ATTRIBUTE_COMPUTE_MODE, d->device);
  d->integrated =
      informative_attribute(run, CU_ATTRIBUTE_INTEGRATED, d->device);
}

/* Ask the driver about device `ordinal`; CU_SUCCESS, or the failing
 * CUresult with *call naming the call. */
static int query_device(probe_run *run, int ordinal, device_facts *d,
                        const char **call) {
  memset(d, 0, sizeof *d);
  *call = "cuDeviceGet";
  int result = CU(run, CU_DEVICE_GET, cu_device_get_fn)(&d->device, ordinal);
  if (result == CU_SUCCESS) {
    *call = "cuDeviceGetName";
    result = CU(run, CU_DEVICE_GET_NAME, cu_device_get_name_fn)(
        d->name, (int)sizeof d->name - 1, d->device);
  }
  if (result == CU_SUCCESS) {
    *call = "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)";
    result = CU(run, CU_DEVICE_GET_ATTRIBUTE, cu_device_get_attribute_fn)(
        &d->major, CU_ATTRIBUTE_CC_MAJOR, d->device);
  }
  if (result == CU_SUCCESS) {
    *call = "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)";
    result = CU(run, CU_DEVICE_GET_ATTRIBUTE, cu_device_get_attribute_fn)(
        &d->minor, CU_ATTRIBUTE_CC_MINOR, d->device);
  }
  if (result == CU_SUCCESS) {
    *call = "cuDeviceTotalMem_v2";
    result = CU(run, CU_DEVICE_TOTAL_MEM, cu_device_total_mem_fn)(&d->bytes,
                                                                  d->device);
  }
  if (result == CU_SUCCESS) {
    *call = "cuDeviceGetUuid";
    result =
        CU(run, CU_DEVICE_GET_UUID, cu_device_get_uuid_fn)(d->uuid, d->device);
  }
  if (result == CU_SUCCESS)
    query_device_mode(run, d);
  d->name[sizeof d->name - 1] = '\0'; /* whatever the driver wrote there */
  return result;
}

static int yes_no(int value) {
  return value == 0 || value == 1 ? value : -1;
}

/* The driver model and modes as the public accessors give them: only
 * Windows has driver models (Linux's driver answers TCC_DRIVER 0, which
 * there means nothing); a value out of range is unknown. */
static void record_device_mode(cl_probe_device *device, const device_facts *d) {
  if (cl_os_host_target() != CUDALOAD_TARGET_WINDOWS)
    device->driver_model = CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE;
  else if (d->tcc_driver == 0 || d->tcc_driver == 1)
    device->driver_model =
        d->tcc_driver ? CUDALOAD_DRIVER_MODEL_TCC : CUDALOAD_DRIVER_MODEL_WDDM;
  device->kernel_timeout = yes_no(d->kernel_timeout);
  if (cl_probe_valid_compute_mode(d->compute_mode))
    device->compute_mode = d->compute_mode;
  device->integrated = yes_no(d->integrated);
}

/* Add a device to the result. A value out of range is stored as unknown
 * (0), and the first such one is described in invalid (when still ""). */
static void record_device(probe_run *run, int ordinal, device_facts *d,
                          char *invalid, size_t invalid_size) {
  char uuid_string[48];
  uuid_text(d->uuid, uuid_string, sizeof uuid_string);
  /* Checked before any arithmetic: major * 10 of INT_MAX overflows. */
  int capability = 0;
  if (d->major >= 1 && d->major <= CL_PROBE_MAX_CC_MAJOR && d->minor >= 0 &&
      d->minor <= 9)
    capability = d->major * 10 + d->minor;
  else if (!invalid[0])
    snprintf(invalid, invalid_size, CL_WORDS_INVALID_COMPUTE_CAPABILITY,
             d->major, d->minor, ordinal);
  unsigned long long mib = (unsigned long long)(d->bytes >> 20);
  if (d->bytes == 0 || mib > CL_PROBE_MAX_MEMORY_MIB) {
    if (!invalid[0])
      snprintf(invalid, invalid_size, CL_WORDS_INVALID_TOTAL_MEMORY,
               (unsigned long long)d->bytes, ordinal);
    mib = 0;
  }
  cl_probe_device device = cl_probe_device_unknown();
  device.name = d->name; /* lent: cl_probe_add_device copies it */
  device.capability = capability;
  device.memory_mib = mib;
  device.uuid = uuid_string;
  record_device_mode(&device, d);
  if (cl_probe_add_device(run->p, &device))
    run->out_of_memory = 1;
}

/* 3: the devices. */
static int stage_devices(probe_run *run) {
  stage_begin(run);
  int count = 0;
  if (!device_count(run, &count))
    return 0;
  /* The first invalid value a device reported: the stage passes with it as
   * a warning, and the value is stored as unknown (0). */
  char invalid[192] = "";
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    device_facts d;
    const char *call;
    int result = query_device(run, ordinal, &d, &call);
    if (result != CU_SUCCESS) {
      char what[96];
      snprintf(what, sizeof what, "%s for device %d", call, ordinal);
      driver_failure(run, CL_STAGE_DEVICES, CUDALOAD_REASON_DEVICE_FAILED, what,
                     result);
      return 0;
    }
    if (ordinal == 0)
      run->device = d.device;
    record_device(run, ordinal, &d, invalid, sizeof invalid);
  }
  if (!run->p->device_count) { /* without memory for even one */
    run->out_of_memory = 1;
    return 0;
  }
  const cl_probe_device *first = &run->p->devices[0];
  char capability[32], memory[48];
  cl_probe_capability_text(first->capability, capability, sizeof capability);
  cl_probe_memory_text(first->memory_mib, memory, sizeof memory);
  /* The warning first: it is what the summary's note quotes. */
  stage_end(run, CL_STAGE_DEVICES,
            invalid[0] ? CUDALOAD_STAGE_WARNING : CUDALOAD_STAGE_OK, 0,
            "%s%s%d device%s; device 0: %s, compute capability %s, %s", invalid,
            invalid[0] ? "; " : "", count, count == 1 ? "" : "s", first->name,
            capability, memory);
  return 1;
}

/* Copy host bytes to a new device buffer; 0 or the failing CUresult, with
 * *call naming the call. */
static int device_copy_of(probe_run *run, const void *data, size_t bytes,
                          cl_cu_deviceptr *out, const char **call) {
  *call = "cuMemAlloc_v2";
  int result = CU(run, CU_MEM_ALLOC, cu_mem_alloc_fn)(out, bytes);
  if (result != CU_SUCCESS)
    return result;
  *call = "cuMemcpyHtoD_v2";
  result = CU(run, CU_MEMCPY_HTOD, cu_memcpy_htod_fn)(*out, data, bytes);
  if (result != CU_SUCCESS) {
    CU(run, CU_MEM_FREE, cu_mem_free_fn)(*out);
    *out = 0;
  }
  return result;
}

#define ROUND_TRIP_BYTES (64u * 1024u)

/* Why a context of device 0 may be refused, from its compute mode: "" when
 * the mode allows any process. */
static const char *compute_mode_clause(const probe_run *run) {
  switch (run->p->device_count ? run->p->devices[0].compute_mode : -1) {
  case CUDALOAD_COMPUTE_MODE_PROHIBITED:
    return CL_WORDS_COMPUTE_MODE_PROHIBITED;
  case CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS:
    return CL_WORDS_COMPUTE_MODE_EXCLUSIVE_PROCESS;
  case CUDALOAD_COMPUTE_MODE_EXCLUSIVE_THREAD:
    return CL_WORDS_COMPUTE_MODE_EXCLUSIVE_THREAD;
  default:
    return "";
  }
}

static void context_failure(probe_run *run, const char *call, int result) {
  char error[256];
  driver_error_text(run, result, error, sizeof error);
  stage_end(run, CL_STAGE_CONTEXT, CUDALOAD_STAGE_FAILED,
            CUDALOAD_REASON_DEVICE_FAILED, "%s returned %s%s", call, error,
            compute_mode_clause(run));
}

/* Device 0's free memory in MiB (cuMemGetInfo_v2 in the current context),
 * -1 when the driver does not say. */
static long long free_memory_mib(probe_run *run) {
  size_t free_bytes = 0, total_bytes = 0;
  if (!run->cu[CU_MEM_GET_INFO] || CU(run, CU_MEM_GET_INFO, cu_mem_get_info_fn)(
                                       &free_bytes, &total_bytes) != CU_SUCCESS)
    return -1;
  unsigned long long mib = (unsigned long long)(free_bytes >> 20);
  return mib <= CL_PROBE_MAX_MEMORY_MIB ? (long long)mib : -1;
}

/* The primary context of device 0, made current; 0 with the stage ended. */
static int enter_context(probe_run *run) {
  if (run->cu[CU_CTX_GET_CURRENT])
    CU(run, CU_CTX_GET_CURRENT, cu_ctx_get_current_fn)(&run->previous_context);
  void *context = NULL;
  int result = CU(run, CU_PRIMARY_CTX_RETAIN,
                  cu_primary_ctx_retain_fn)(&context, run->device);
  if (result != CU_SUCCESS) {
    context_failure(run, "cuDevicePrimaryCtxRetain", result);
    return 0;
  }
  run->context_retained = 1;
  result = CU(run, CU_CTX_SET_CURRENT, cu_ctx_set_current_fn)(context);
  if (result != CU_SUCCESS) {
    context_failure(run, "cuCtxSetCurrent", result);
    return 0;
  }
  /* Before the probe's own allocation: what another process left free. */
  run->p->devices[0].free_mib = free_memory_mib(run);
  return 1;
}

/* 4: the primary context, an allocation and a copy there and back. */
static int stage_context(probe_run *run) {
  stage_begin(run);
  if (!enter_context(run))
    return 0;
  unsigned char *sent = malloc(ROUND_TRIP_BYTES);
  unsigned char *back = calloc(1, ROUND_TRIP_BYTES);
  if (!sent || !back) {
    free(sent);
    free(back);
    run->out_of_memory = 1;
    return 0;
  }
  for (size_t i = 0; i < ROUND_TRIP_BYTES; ++i)
    sent[i] = (unsigned char)(i * 31u + 7u);
  cl_cu_deviceptr buffer = 0;
  const char *call;
  int result = device_copy_of(run, sent, ROUND_TRIP_BYTES, &buffer, &call);
  if (result == CU_SUCCESS) {
    call = "cuMemcpyDtoH_v2";
    result = CU(run, CU_MEMCPY_DTOH, cu_memcpy_dtoh_fn)(back, buffer,
                                                        ROUND_TRIP_BYTES);
    CU(run, CU_MEM_FREE, cu_mem_free_fn)(buffer);
  }
  int same = result == CU_SUCCESS && memcmp(sent, back, ROUND_TRIP_BYTES) == 0;
  free(sent);
  free(back);
  if (result != CU_SUCCESS) {
    context_failure(run, call, result);
    return 0;
  }
  if (!same) {
    stage_end(run, CL_STAGE_CONTEXT, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_DEVICE_FAILED,
              CL_WORDS_ROUND_TRIP_CAME_BACK_DIFFERENT, ROUND_TRIP_BYTES);
    return 0;
  }
  char free_text[96] = "";
  const cl_probe_device *first = &run->p->devices[0];
  if (first->free_mib >= 0 && first->memory_mib)
    snprintf(free_text, sizeof free_text, CL_WORDS_MIB_OF_MIB_FREE,
             first->free_mib, first->memory_mib);
  stage_end(run, CL_STAGE_CONTEXT, CUDALOAD_STAGE_OK, 0,
            CL_WORDS_PRIMARY_CONTEXT_ROUND_TRIP_INTACT,
            ROUND_TRIP_BYTES / 1024u, free_text);
  return 1;
}

static void release_context(probe_run *run) {
  if (!run->context_retained)
    return;
  /* Leave the thread as it was found: the host's own context current. */
  CU(run, CU_CTX_SET_CURRENT, cu_ctx_set_current_fn)(run->previous_context);
  CU(run, CU_PRIMARY_CTX_RELEASE, cu_primary_ctx_release_fn)(run->device);
  run->context_retained = 0;
}

/* --- the libraries of the requirements ---------------------------------- */

static int requirement_is(const cl_requirement *r, const char *family) {
  return r->entry && strcmp(r->entry->family, family) == 0;
}

static size_t requirements_of(const cudaload_ctx *ctx, const char *family) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  size_t n = 0;
  for (size_t i = 0; i < ps->requirement_count; ++i)
    n += (size_t)requirement_is(&ps->requirements[i], family);
  return n;
}

static void ensure_preloaded(probe_run *run) {
  if (run->preloaded)
    return;
  run->preloaded = 1;
  /* RTLD_LOCAL: the probe must not put a cuDNN major into the global scope
   * where another part of the process would bind it (docs/loader.md,
   * Linux 3). Best effort (CUDALOAD_PRELOAD_PARTIAL): each stage reports
   * its own requirement, so a missing cuDNN must not keep the cuBLAS stage
   * from testing the cuBLAS that is there. */
  if (cudaload_preload(run->ctx, CUDALOAD_PRELOAD_PARTIAL) != CUDALOAD_OK)
    run->preload_error = cl_strdup(cudaload_last_error());
  /* The preload's error is kept in preload_error and told in the stages'
   * messages; the run goes on without it. */
  cl_clear_error();
}

/* The one-line story of an unsatisfied requirement, from the plan's
 * outcome: what is missing and its fix. */
static char *unsatisfied_text(const probe_run *run, const cl_requirement *r) {
  const cudaload_ctx *ctx = run->ctx;
  size_t index = (size_t)(r - cl_plan_state_of(ctx)->requirements);
  const cl_requirement_outcome *o =
      index < cl_plan_state_of(ctx)->outcome_count
          ? &cl_plan_state_of(ctx)->outcomes[index]
          : NULL;
  if (o && o->fix)
    return cl_strdup_printf(CL_WORDS_NO_USABLE_LIBRARY_FIX, r->text,
                            r->entry->family, o->fix);
  return cl_strdup_printf(CL_WORDS_NO_USABLE_LIBRARY_WAS_FOUND, r->text,
                          r->entry->family);
}

/* The loaded main library of requirement index r: its handle (and path),
 * or NULL with the stage ended (MISSING_LIBRARY / LIBRARY_FAILED). */
static void *requirement_handle(probe_run *run, size_t stage, size_t r,
                                const char **path_out, int *major_out) {
  ensure_preloaded(run);
  const cl_requirement *req = &cl_plan_state_of(run->ctx)->requirements[r];
  for (size_t i = 0; i < cl_plan_state_of(run->ctx)->plan_count; ++i) {
    const cl_plan_entry *e = &cl_plan_state_of(run->ctx)->plan[i];
    if (e->requirement != r || e->entry != req->entry)
      continue;
    if (e->state == CUDALOAD_STATE_FAILED) {
      stage_end(run, stage, CUDALOAD_STAGE_FAILED,
                CUDALOAD_REASON_LIBRARY_FAILED,
                CL_WORDS_PLANNED_FILE_COULD_NOT_BE_LOADED, req->text, e->path,
                run->preload_error ? CL_WORDS_SEE_CUDALOAD_DOCTOR
                                   : CL_WORDS_NO_REASON_GIVEN);
      return NULL;
    }
    const char *path =
        e->loaded_path && e->loaded_path[0] ? e->loaded_path : e->path;
    /* Already in the process: this opens the same object again. */
    void *handle = cl_library_open(path, CL_OPEN_LOCAL);
    if (!handle) {
      stage_end(run, stage, CUDALOAD_STAGE_FAILED,
                CUDALOAD_REASON_LIBRARY_FAILED, "%s: %s", req->text,
                cudaload_last_error());
      cl_clear_error(); /* told in the stage's message; the run goes on */
      return NULL;
    }
    *path_out = path;
    *major_out = e->major;
    return handle;
  }
  char *text = unsatisfied_text(run, req);
  stage_end(run, stage, CUDALOAD_STAGE_FAILED, CUDALOAD_REASON_MISSING_LIBRARY,
            "%s", text ? text : req->text);
  free(text);
  return NULL;
}

static void missing_symbol(probe_run *run, size_t stage, const char *path,
                           const char *symbol) {
  stage_end(run, stage, CUDALOAD_STAGE_FAILED, CUDALOAD_REASON_LIBRARY_FAILED,
            CL_WORDS_LACKS_A_DAMAGED_OR_MISMATCHED_LIBRARY, path, symbol);
}

/* The stage's end: a valid runtime version, held against the driver's. */
static void runtime_against_driver(probe_run *run, int runtime) {
  int driver = run->p->driver_version;
  char runtime_text[32], driver_text[32];
  version_text(runtime, runtime_text, sizeof runtime_text);
  version_text(driver, driver_text, sizeof driver_text);
  if (!driver) {
    stage_end(run, CL_STAGE_RUNTIME, CUDALOAD_STAGE_WARNING, 0,
              CL_WORDS_RUNTIME_NOT_CHECKED_AGAINST_DRIVER, runtime_text,
              runtime);
  } else if (runtime / 1000 > driver / 1000) {
    stage_end(run, CL_STAGE_RUNTIME, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_DRIVER_TOO_OLD,
              CL_WORDS_DRIVER_TOO_OLD_FOR_THE_RUNTIME, runtime_text, runtime,
              runtime / 1000, driver_text, driver);
  } else if (runtime > driver) {
    /* CUDA minor-version compatibility: same major runs, newer PTX and a
     * few APIs do not. */
    stage_end(run, CL_STAGE_RUNTIME, CUDALOAD_STAGE_WARNING, 0,
              CL_WORDS_RUNTIME_NEWER_MINOR_THAN_DRIVER, runtime_text, runtime,
              driver_text, driver);
  } else {
    stage_end(run, CL_STAGE_RUNTIME, CUDALOAD_STAGE_OK, 0,
              CL_WORDS_RUNTIME_ON_A_DRIVER_FOR_CUDA, runtime_text, runtime,
              driver_text);
  }
}

/* 5: the CUDA runtime against the driver (docs/loader.md, CUDA 2). */
static void stage_runtime(probe_run *run) {
  stage_begin(run);
  size_t r = 0;
  while (
      !requirement_is(&cl_plan_state_of(run->ctx)->requirements[r], "cudart"))
    ++r;
  const char *path;
  int major;
  void *handle = requirement_handle(run, CL_STAGE_RUNTIME, r, &path, &major);
  if (!handle)
    return;
  cl_generic_fn table[RUNTIME_SYMBOL_COUNT];
  const char *missing =
      resolve(handle, runtime_symbols, RUNTIME_SYMBOL_COUNT, table);
  if (missing) {
    missing_symbol(run, CL_STAGE_RUNTIME, path, missing);
    return;
  }
  int runtime = 0;
  int result =
      ((cuda_runtime_get_version_fn)table[CUDA_RUNTIME_GET_VERSION])(&runtime);
  if (result != 0) {
    stage_end(run, CL_STAGE_RUNTIME, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_LIBRARY_FAILED,
              CL_WORDS_CUDARUNTIMEGETVERSION_RETURNED_ERROR, result, path);
    return;
  }
  if (!cl_probe_valid_cuda_version(runtime)) {
    stage_end(run, CL_STAGE_RUNTIME, CUDALOAD_STAGE_WARNING, 0,
              CL_WORDS_RUNTIME_REPORTED_AN_INVALID_VERSION, runtime,
              CL_PROBE_MIN_CUDA_VERSION, CL_PROBE_MAX_CUDA_VERSION, path);
    return;
  }
  run->p->runtime_version = runtime;
  runtime_against_driver(run, runtime);
}

#define CUBLAS_STATUS_NOT_INITIALIZED 1

static const char *cublas_status_name(int status) {
  switch (status) {
  case 1:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case 8:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 11:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case 13:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case 16:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  default:
    return CL_WORDS_AN_UNKNOWN_CUBLAS_STATUS;
  }
}

/* The tiny GEMM: C (3x2) = A (3x4) * B (4x2), column-major, small integers
 * so that the CPU's result is exact. */
enum { GEMM_M = 3, GEMM_N = 2, GEMM_K = 4 };

static void gemm_inputs(float *a, float *b) {
  for (int i = 0; i < GEMM_M * GEMM_K; ++i)
    a[i] = (float)(i % 5 + 1);
  for (int i = 0; i < GEMM_K * GEMM_N; ++i)
    b[i] = (float)(i % 3) - 1.0f;
}

static void gemm_on_cpu(const float *a, const float *b, float *c) {
  for (int col = 0; col < GEMM_N; ++col)
    for (int row = 0; row < GEMM_M; ++row) {
      float sum = 0;
      for (int k = 0; k < GEMM_K; ++k)
        sum += a[k * GEMM_M + row] * b[col * GEMM_K + k];
      c[col * GEMM_M + row] = sum;
    }
}

static float *device_floats(cl_cu_deviceptr pointer) {
  return (float *)(uintptr_t)pointer;
}

/* Run the GEMM on the device; 0, or 1 with the stage ended. */
static int run_gemm(probe_run *run, const cl_generic_fn *table, void *handle,
                    const char *path) {
  float a[GEMM_M * GEMM_K], b[GEMM_K * GEMM_N], c[GEMM_M * GEMM_N],
      expected[GEMM_M * GEMM_N];
  gemm_inputs(a, b);
  gemm_on_cpu(a, b, expected);
  memset(c, 0, sizeof c);
  cl_cu_deviceptr da = 0, db = 0, dc = 0;
  const char *call = "";
  int result = device_copy_of(run, a, sizeof a, &da, &call);
  if (result == CU_SUCCESS)
    result = device_copy_of(run, b, sizeof b, &db, &call);
  if (result == CU_SUCCESS)
    result = device_copy_of(run, c, sizeof c, &dc, &call);
  int status = 0;
  if (result == CU_SUCCESS) {
    const float alpha = 1.0f, beta = 0.0f;
    status = ((cublas_sgemm_fn)table[CUBLAS_SGEMM])(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, GEMM_M, GEMM_N, GEMM_K, &alpha,
        device_floats(da), GEMM_M, device_floats(db), GEMM_K, &beta,
        device_floats(dc), GEMM_M);
    /* A synchronous copy on the legacy default stream waits for the GEMM. */
    if (status == 0) {
      call = "cuMemcpyDtoH_v2";
      result = CU(run, CU_MEMCPY_DTOH, cu_memcpy_dtoh_fn)(c, dc, sizeof c);
    }
  }
  if (da)
    CU(run, CU_MEM_FREE, cu_mem_free_fn)(da);
  if (db)
    CU(run, CU_MEM_FREE, cu_mem_free_fn)(db);
  if (dc)
    CU(run, CU_MEM_FREE, cu_mem_free_fn)(dc);
  if (result != CU_SUCCESS) {
    driver_failure(run, CL_STAGE_CUBLAS, CUDALOAD_REASON_DEVICE_FAILED, call,
                   result);
    return 1;
  }
  if (status != 0) {
    stage_end(run, CL_STAGE_CUBLAS, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_LIBRARY_FAILED,
              "cublasSgemm_v2 returned %d (%s) (%s)", status,
              cublas_status_name(status), path);
    return 1;
  }
  for (int i = 0; i < GEMM_M * GEMM_N; ++i)
    if (!(fabsf(c[i] - expected[i]) <= 1e-3f * (1.0f + fabsf(expected[i])))) {
      stage_end(run, CL_STAGE_CUBLAS, CUDALOAD_STAGE_FAILED,
                CUDALOAD_REASON_WRONG_RESULT,
                CL_WORDS_SGEMM_GAVE_WHAT_THE_CPU_DOES_NOT, GEMM_M, GEMM_N,
                GEMM_K, (double)c[i], i % GEMM_M, i / GEMM_M,
                (double)expected[i], path);
      return 1;
    }
  return 0;
}

/* cublasCreate failed: the error users meet at their first GEMM, long
 * after "CUDA available" said yes. NOT_INITIALIZED is told with the causes
 * the facts support (cublas_causes.c), free memory measured now. */
static void cublas_create_failed(probe_run *run, size_t r, int status,
                                 const char *path) {
  char *causes = NULL;
  if (status == CUBLAS_STATUS_NOT_INITIALIZED)
    causes = cl_cublas_not_initialized_causes(run->ctx, r, run->p,
                                              free_memory_mib(run));
  stage_end(run, CL_STAGE_CUBLAS, CUDALOAD_STAGE_FAILED,
            CUDALOAD_REASON_LIBRARY_FAILED,
            "cublasCreate_v2 returned %d (%s)%s%s (%s)", status,
            cublas_status_name(status), causes ? ": " : "",
            causes ? causes : "", path);
  free(causes);
}

/* 6: cuBLAS: a handle and a tiny SGEMM checked against the CPU. */
static void stage_cublas(probe_run *run) {
  stage_begin(run);
  size_t r = 0;
  while (
      !requirement_is(&cl_plan_state_of(run->ctx)->requirements[r], "cublas"))
    ++r;
  const char *path;
  int major;
  void *library = requirement_handle(run, CL_STAGE_CUBLAS, r, &path, &major);
  if (!library)
    return;
  cl_generic_fn table[CUBLAS_SYMBOL_COUNT];
  const char *missing =
      resolve(library, cublas_symbols, CUBLAS_SYMBOL_COUNT, table);
  if (missing) {
    missing_symbol(run, CL_STAGE_CUBLAS, path, missing);
    return;
  }
  void *handle = NULL;
  int status = ((cublas_create_fn)table[CUBLAS_CREATE])(&handle);
  if (status != 0) {
    cublas_create_failed(run, r, status, path);
    return;
  }
  int failed = run_gemm(run, table, handle, path);
  ((cublas_destroy_fn)table[CUBLAS_DESTROY])(handle);
  if (!failed)
    stage_end(run, CL_STAGE_CUBLAS, CUDALOAD_STAGE_OK, 0,
              CL_WORDS_CUBLAS_SGEMM_MATCHES_THE_CPU, major, GEMM_M, GEMM_N,
              GEMM_K, path);
}

/* cudnnGetVersion() as "8.9.7": cuDNN 8 encodes M*1000+m*100+p, cuDNN 9
 * and later M*10000+m*100+p (docs/loader.md, Linux 6). */
static void cudnn_version_text(size_t v, char *out, size_t size, int *major) {
  if (v >= 90000) {
    *major = (int)(v / 10000);
    snprintf(out, size, "%d.%d.%d", *major, (int)(v / 100 % 100),
             (int)(v % 100));
  } else {
    *major = (int)(v / 1000);
    snprintf(out, size, "%d.%d.%d", *major, (int)(v / 100 % 10),
             (int)(v % 100));
  }
}

/* One cuDNN requirement; 1 when it passed, with its line in *line. */
static int probe_one_cudnn(probe_run *run, size_t r, char **line) {
  const char *path;
  int major;
  void *library = requirement_handle(run, CL_STAGE_CUDNN, r, &path, &major);
  if (!library)
    return 0;
  cl_generic_fn table[CUDNN_SYMBOL_COUNT];
  const char *missing =
      resolve(library, cudnn_symbols, CUDNN_SYMBOL_COUNT, table);
  if (missing) {
    missing_symbol(run, CL_STAGE_CUDNN, path, missing);
    return 0;
  }
  size_t number = ((cudnn_get_version_fn)table[CUDNN_GET_VERSION])();
  /* cuDNN 1.0 (1000) to 999.99.99 (9999999): outside, the number decodes
   * to no version at all. */
  if (number < 1000 || number > 9999999) {
    stage_end(run, CL_STAGE_CUDNN, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_LIBRARY_FAILED,
              CL_WORDS_CUDNN_ANSWERED_AN_INVALID_VERSION, path, number);
    return 0;
  }
  char version[48];
  int answered_major = 0;
  cudnn_version_text(number, version, sizeof version, &answered_major);
  if (answered_major != major) {
    stage_end(run, CL_STAGE_CUDNN, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_LIBRARY_FAILED,
              CL_WORDS_CUDNN_ANSWERED_ANOTHER_MAJOR, path, number, version,
              major);
    return 0;
  }
  void *handle = NULL;
  int status = ((cudnn_create_fn)table[CUDNN_CREATE])(&handle);
  if (status != 0) {
    const char *text =
        table[CUDNN_GET_ERROR_STRING]
            ? ((cudnn_error_string_fn)table[CUDNN_GET_ERROR_STRING])(status)
            : NULL;
    stage_end(run, CL_STAGE_CUDNN, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_LIBRARY_FAILED, CL_WORDS_CUDNNCREATE_RETURNED,
              version, status, text ? text : CL_WORDS_NO_ERROR_TEXT, path);
    return 0;
  }
  status = ((cudnn_destroy_fn)table[CUDNN_DESTROY])(handle);
  if (status != 0) {
    stage_end(run, CL_STAGE_CUDNN, CUDALOAD_STAGE_FAILED,
              CUDALOAD_REASON_LIBRARY_FAILED, CL_WORDS_CUDNNDESTROY_RETURNED,
              version, status, path);
    return 0;
  }
  *line = cl_strdup_printf(CL_WORDS_CUDNN_HANDLE_CREATED_AND_DESTROYED, version,
                           number);
  return 1;
}

/* 7: cuDNN, each required major. */
static void stage_cudnn(probe_run *run) {
  stage_begin(run);
  char *message = cl_strdup("");
  for (size_t r = 0; r < cl_plan_state_of(run->ctx)->requirement_count; ++r) {
    if (!requirement_is(&cl_plan_state_of(run->ctx)->requirements[r], "cudnn"))
      continue;
    char *line = NULL;
    if (!probe_one_cudnn(run, r, &line)) {
      free(message);
      return;
    }
    char *joined =
        cl_strdup_printf("%s%s%s", message ? message : "",
                         message && message[0] ? "; " : "", line ? line : "");
    free(message);
    free(line);
    message = joined;
  }
  stage_end(run, CL_STAGE_CUDNN, CUDALOAD_STAGE_OK, 0, "%s",
            message ? message : "");
  free(message);
}

int cl_probe_run_in_process(cudaload_ctx *ctx, cudaload_probe *p,
                            cl_probe_stage_callback on_stage, void *opaque) {
  probe_run run;
  memset(&run, 0, sizeof run);
  run.ctx = ctx;
  run.p = p;
  run.on_stage = on_stage;
  run.opaque = opaque;

  int ok = stage_driver(&run) && stage_init(&run) && stage_devices(&run) &&
           stage_context(&run);
  static const struct {
    size_t stage;
    const char *family;
    void (*run)(probe_run *run);
  } library_stages[] = {{CL_STAGE_RUNTIME, "cudart", stage_runtime},
                        {CL_STAGE_CUBLAS, "cublas", stage_cublas},
                        {CL_STAGE_CUDNN, "cudnn", stage_cudnn}};
  /* The earlier stages end the run at their first failure; every stage
   * after it is reported as skipped, so that all seven are always there. */
  for (size_t s = 0; s <= CL_STAGE_CONTEXT; ++s)
    if (!ok && strcmp(p->stages[s].message, "not run") == 0)
      stage_skip(&run, s, CL_WORDS_AN_EARLIER_STAGE_FAILED);
  for (size_t i = 0; i < sizeof library_stages / sizeof *library_stages; ++i) {
    size_t stage = library_stages[i].stage;
    if (!ok)
      stage_skip(&run, stage, CL_WORDS_AN_EARLIER_STAGE_FAILED);
    else if (!requirements_of(ctx, library_stages[i].family))
      stage_skip(&run, stage, "not required");
    else
      library_stages[i].run(&run);
  }
  release_context(&run);
  free(run.preload_error);
  /* What failed is told in the stages' messages (the driver's open among
   * them); the run itself succeeded, so no error is left behind. */
  cl_clear_error();
  cl_probe_conclude(p, run.reason);
  return run.out_of_memory ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}
