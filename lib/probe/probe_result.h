/* SPDX-License-Identifier: MIT */
/*
 * probe_result.h - the GPU probe's result as data (probe_result.c): its
 * stages, devices, verdict and summary, and the limits every value a driver
 * or a child reports is checked against. The stages that fill it are
 * probe_stages.h; the line format a child sends it in is probe_wire.h.
 */
#ifndef CUDALOAD_PROBE_RESULT_H
#define CUDALOAD_PROBE_RESULT_H

#include "cudaload.h"

#include <stddef.h>

#define CL_PROBE_STAGE_COUNT 7

/* Stage indexes, in the order they run. */
enum {
  CL_STAGE_DRIVER = 0,
  CL_STAGE_INIT,
  CL_STAGE_DEVICES,
  CL_STAGE_CONTEXT,
  CL_STAGE_RUNTIME,
  CL_STAGE_CUBLAS,
  CL_STAGE_CUDNN
};

/*
 * What a driver or a CUDA library reports is checked against these before
 * it is used or stored (probe_stages.c), and again where a parent reads it back
 * from a child's report (probe_wire.c): a broken driver's INT_MAX is a
 * stage warning or failure naming the value, never arithmetic on it.
 */
/* More devices than any machine has; also what keeps a report (about 350
 * bytes a device) well under CL_PROBE_REPORT_CAP. */
#define CL_PROBE_MAX_DEVICES 1024
/* CUDA versions are major * 1000 + minor * 10: 1000 is CUDA 1.0, and the
 * upper end leaves room for any CUDA to come. */
#define CL_PROBE_MIN_CUDA_VERSION 1000
#define CL_PROBE_MAX_CUDA_VERSION 999999
/* A compute capability is stored as major * 10 + minor: minor 0-9. */
#define CL_PROBE_MAX_CC_MAJOR 99
/* Total device memory: more than nothing, at most 1 PiB. */
#define CL_PROBE_MAX_MEMORY_MIB (1ull << 30)

static inline int cl_probe_valid_cuda_version(long long version) {
  return version >= CL_PROBE_MIN_CUDA_VERSION &&
         version <= CL_PROBE_MAX_CUDA_VERSION;
}

/* A stored capability (major * 10 + minor), 0 meaning unknown. */
static inline int cl_probe_valid_capability(long long capability) {
  return capability >= 10 && capability <= CL_PROBE_MAX_CC_MAJOR * 10 + 9;
}

typedef struct cl_probe_stage {
  int status; /* CUDALOAD_STAGE_* */
  double ms;
  char *message; /* never NULL once the probe is made */
} cl_probe_stage;

typedef struct cl_probe_device {
  char *name;
  int capability; /* major * 10 + minor; 0 when the driver's was invalid */
  unsigned long long memory_mib; /* 0 when the driver's was invalid */
  char *uuid; /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
  /* How the device runs: the public accessors' values, -1 (or
   * CUDALOAD_DRIVER_MODEL_UNKNOWN) when the driver did not say. */
  int driver_model;   /* CUDALOAD_DRIVER_MODEL_* */
  int kernel_timeout; /* 1, 0, -1 */
  int compute_mode;   /* CUDALOAD_COMPUTE_MODE_* */
  int integrated;     /* 1, 0, -1 */
  long long free_mib; /* device 0 only, -1 when not measured */
} cl_probe_device;

/* A device with every fact unknown; name and uuid NULL. */
cl_probe_device cl_probe_device_unknown(void);

/* Whether a fact read from a driver or a child is one the accessors may
 * return; anything else is stored as unknown. */
int cl_probe_valid_driver_model(long long model);
int cl_probe_valid_compute_mode(long long mode);

struct cudaload_probe {
  int verdict; /* CUDALOAD_GPU_OK / CUDALOAD_CPU_FALLBACK */
  int reason;  /* CUDALOAD_REASON_* */
  char *summary;
  cl_probe_stage stages[CL_PROBE_STAGE_COUNT];
  char *driver_path;
  int driver_version;  /* 0: unknown, or what the driver said was invalid */
  int runtime_version; /* 0: not asked, or invalid */
  cl_probe_device *devices;
  size_t device_count;
};

/* A result with every stage SKIPPED ("not run"), or NULL without memory. */
cudaload_probe *cl_probe_new(void);

/* Set a stage's status, time and message (replacing the old message). */
void cl_probe_set_stage(cudaload_probe *p, size_t stage, int status, double ms,
                        const char *message);

/* Append a copy of device d (its strings copied; NULL ones as "").
 * 0 or CUDALOAD_E_NO_MEMORY. */
int cl_probe_add_device(cudaload_probe *p, const cl_probe_device *d);

/* Set verdict and reason (GPU_OK when reason is CUDALOAD_REASON_NONE) and
 * write the summary sentence from the stages. */
void cl_probe_conclude(cudaload_probe *p, int reason);

/* A compute capability (90) as text ("9.0", or "unknown" for 0). */
void cl_probe_capability_text(int capability, char *out, size_t size);
/* Device memory in MiB as text ("81559 MiB", or "unknown memory"). */
void cl_probe_memory_text(unsigned long long mib, char *out, size_t size);

/* Fill in what a child that never finished leaves open: the first stage it
 * did not report fails with `message` and the time the reported stages
 * leave of elapsed_ms, the later ones are skipped, and the verdict is
 * CPU_FALLBACK with `reason`. */
void cl_probe_mark_unfinished(cudaload_probe *p, int reason, double elapsed_ms,
                              const char *message);

#endif
