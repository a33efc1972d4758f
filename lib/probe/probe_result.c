/* SPDX-License-Identifier: MIT */
/*
 * probe_result.c - a probe's result as data: its stages, devices, verdict,
 * reason and summary sentence, the names of its reasons and stage
 * statuses, and the accessors of the public API. The stages that fill it
 * are probe_stages.c; the wire format a child sends it in is probe_wire.c.
 */
#include "probe/probe_result.h"

#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "common/reason_words.h"
#include "problem/fix_words.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "driver", "init", ... by stage index. */
static const char *const stage_names[CL_PROBE_STAGE_COUNT] = {
    "driver", "init", "devices", "context", "runtime", "cublas", "cudnn"};

/* ------------------------------------------------------------------------ */
/* The result                                                               */
/* ------------------------------------------------------------------------ */

cudaload_probe *cl_probe_new(void) {
  cudaload_probe *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->verdict = CUDALOAD_CPU_FALLBACK;
  p->summary = cl_strdup("");
  p->driver_path = cl_strdup("");
  int ok = p->summary && p->driver_path;
  for (size_t i = 0; i < CL_PROBE_STAGE_COUNT; ++i) {
    p->stages[i].status = CUDALOAD_STAGE_SKIPPED;
    p->stages[i].message = cl_strdup("not run");
    ok = ok && p->stages[i].message;
  }
  if (!ok) {
    cudaload_probe_free(p);
    return NULL;
  }
  return p;
}

void cl_probe_set_stage(cudaload_probe *p, size_t stage, int status, double ms,
                        const char *message) {
  if (!p || stage >= CL_PROBE_STAGE_COUNT)
    return;
  p->stages[stage].status = status;
  p->stages[stage].ms = ms;
  char *copy = cl_strdup(message ? message : "");
  if (copy) { /* without memory the old message stays: still a string */
    free(p->stages[stage].message);
    p->stages[stage].message = copy;
  }
}

cl_probe_device cl_probe_device_unknown(void) {
  cl_probe_device d = {0};
  d.driver_model = CUDALOAD_DRIVER_MODEL_UNKNOWN;
  d.kernel_timeout = -1;
  d.compute_mode = CUDALOAD_COMPUTE_MODE_UNKNOWN;
  d.integrated = -1;
  d.free_mib = -1;
  return d;
}

int cl_probe_valid_driver_model(long long model) {
  return model >= CUDALOAD_DRIVER_MODEL_UNKNOWN &&
         model <= CUDALOAD_DRIVER_MODEL_TCC;
}

int cl_probe_valid_compute_mode(long long mode) {
  return mode >= CUDALOAD_COMPUTE_MODE_UNKNOWN &&
         mode <= CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS;
}

int cl_probe_add_device(cudaload_probe *p, const cl_probe_device *d) {
  cl_probe_device *grown =
      realloc(p->devices, (p->device_count + 1) * sizeof *grown);
  if (!grown)
    return CUDALOAD_E_NO_MEMORY;
  p->devices = grown;
  cl_probe_device *copy = &p->devices[p->device_count];
  *copy = *d;
  copy->name = cl_strdup(d->name ? d->name : "");
  copy->uuid = cl_strdup(d->uuid ? d->uuid : "");
  if (!copy->name || !copy->uuid) {
    free(copy->name);
    free(copy->uuid);
    return CUDALOAD_E_NO_MEMORY;
  }
  p->device_count++;
  return CUDALOAD_OK;
}

const char *cudaload_probe_verdict_name(int verdict) {
  switch (verdict) {
  case CUDALOAD_GPU_OK:
    return "GPU_OK";
  case CUDALOAD_CPU_FALLBACK:
    return "CPU_FALLBACK";
  default:
    return NULL;
  }
}

const char *cudaload_probe_reason_name(int reason) {
  static const char *const names[] = {
      "none",           "no_driver",      "driver_broken", "init_failed",
      "no_device",      "driver_too_old", "device_failed", "missing_library",
      "library_failed", "wrong_result",   "timeout",       "probe_crashed"};
  if (reason < 0 || (size_t)reason >= sizeof names / sizeof *names)
    return NULL;
  return names[reason];
}

const char *cudaload_probe_driver_model_name(int model) {
  switch (model) {
  case CUDALOAD_DRIVER_MODEL_UNKNOWN:
    return "unknown";
  case CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE:
    return "not_applicable";
  case CUDALOAD_DRIVER_MODEL_WDDM:
    return "WDDM";
  case CUDALOAD_DRIVER_MODEL_TCC:
    return "TCC";
  default:
    return NULL;
  }
}

const char *cudaload_probe_compute_mode_name(int mode) {
  switch (mode) {
  case CUDALOAD_COMPUTE_MODE_DEFAULT:
    return "default";
  case CUDALOAD_COMPUTE_MODE_EXCLUSIVE_THREAD:
    return "exclusive_thread";
  case CUDALOAD_COMPUTE_MODE_PROHIBITED:
    return "prohibited";
  case CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS:
    return "exclusive_process";
  default:
    return NULL;
  }
}

const char *cudaload_probe_stage_status_name(int status) {
  switch (status) {
  case CUDALOAD_STAGE_OK:
    return "ok";
  case CUDALOAD_STAGE_FAILED:
    return "failed";
  case CUDALOAD_STAGE_SKIPPED:
    return "skipped";
  case CUDALOAD_STAGE_WARNING:
    return "warning";
  default:
    return NULL;
  }
}

/* What happened, and what to do about it, per reason. */
static const struct {
  const char *because;
  const char *fix;
} reason_texts[] = {
    [CUDALOAD_REASON_NO_DRIVER] =
        {CL_WORDS_PROBE_NO_DRIVER,
         CL_NOTE_PROBE_SUMMARY_NO_DRIVER}, /* + the driver's name */
    [CUDALOAD_REASON_DRIVER_BROKEN] = {CL_WORDS_PROBE_DRIVER_BROKEN,
                                       CL_NOTE_PROBE_SUMMARY_DRIVER_BROKEN},
    [CUDALOAD_REASON_INIT_FAILED] = {CL_WORDS_PROBE_INIT_FAILED,
                                     CL_NOTE_PROBE_SUMMARY_INIT_FAILED},
    [CUDALOAD_REASON_NO_DEVICE] = {CL_WORDS_PROBE_NO_DEVICE,
                                   CL_NOTE_PROBE_SUMMARY_NO_DEVICE},
    [CUDALOAD_REASON_DRIVER_TOO_OLD] = {CL_WORDS_PROBE_DRIVER_TOO_OLD,
                                        CL_NOTE_PROBE_SUMMARY_DRIVER_TOO_OLD},
    [CUDALOAD_REASON_DEVICE_FAILED] = {CL_WORDS_PROBE_DEVICE_FAILED,
                                       CL_NOTE_PROBE_SUMMARY_DEVICE_FAILED},
    [CUDALOAD_REASON_MISSING_LIBRARY] = {CL_WORDS_PROBE_MISSING_LIBRARY, NULL},
    [CUDALOAD_REASON_LIBRARY_FAILED] = {CL_WORDS_PROBE_LIBRARY_FAILED,
                                        CL_NOTE_PROBE_SUMMARY_LIBRARY_FAILED},
    [CUDALOAD_REASON_WRONG_RESULT] = {CL_WORDS_PROBE_WRONG_RESULT,
                                      CL_NOTE_PROBE_SUMMARY_WRONG_RESULT},
    [CUDALOAD_REASON_TIMEOUT] = {CL_WORDS_PROBE_TIMEOUT,
                                 CL_NOTE_PROBE_SUMMARY_TIMEOUT},
    [CUDALOAD_REASON_PROBE_CRASHED] = {CL_WORDS_PROBE_CRASHED,
                                       CL_NOTE_PROBE_SUMMARY_CRASHED},
};

static const char *first_failure_message(const cudaload_probe *p) {
  for (size_t i = 0; i < CL_PROBE_STAGE_COUNT; ++i)
    if (p->stages[i].status == CUDALOAD_STAGE_FAILED)
      return p->stages[i].message;
  return "";
}

/* "9.0", or "unknown" for the 0 an invalid answer left. */
void cl_probe_capability_text(int capability, char *out, size_t size) {
  if (capability)
    snprintf(out, size, "%d.%d", capability / 10, capability % 10);
  else
    snprintf(out, size, "unknown");
}

/* "81559 MiB", or "unknown memory". */
void cl_probe_memory_text(unsigned long long mib, char *out, size_t size) {
  if (mib)
    snprintf(out, size, "%llu MiB", mib);
  else
    snprintf(out, size, "unknown memory");
}

static char *gpu_ok_summary(const cudaload_probe *p) {
  char device[512] = CL_WORDS_NO_DEVICE_LISTED;
  if (p->device_count) {
    const cl_probe_device *d = &p->devices[0];
    char capability[32], memory[48];
    cl_probe_capability_text(d->capability, capability, sizeof capability);
    cl_probe_memory_text(d->memory_mib, memory, sizeof memory);
    snprintf(device, sizeof device, "%s (compute %s, %s)%s", d->name,
             capability, memory, p->device_count > 1 ? " and more" : "");
  }
  const char *warning = "";
  for (size_t i = 0; i < CL_PROBE_STAGE_COUNT && !warning[0]; ++i)
    if (p->stages[i].status == CUDALOAD_STAGE_WARNING)
      warning = p->stages[i].message;
  char driver[48] = CL_WORDS_AN_UNKNOWN_CUDA_VERSION;
  if (p->driver_version)
    snprintf(driver, sizeof driver, "CUDA %d.%d", p->driver_version / 1000,
             (p->driver_version % 1000) / 10);
  return cl_strdup_printf(CL_WORDS_GPU_USABLE, device, driver,
                          warning[0] ? "; note: " : "", warning);
}

void cl_probe_conclude(cudaload_probe *p, int reason) {
  p->reason = reason;
  p->verdict =
      reason == CUDALOAD_REASON_NONE ? CUDALOAD_GPU_OK : CUDALOAD_CPU_FALLBACK;
  char *summary;
  if (reason == CUDALOAD_REASON_NONE) {
    summary = gpu_ok_summary(p);
  } else if (reason > 0 &&
             (size_t)reason < sizeof reason_texts / sizeof *reason_texts &&
             reason_texts[reason].because) {
    const char *fix = reason_texts[reason].fix;
    summary = cl_strdup_printf(
        CL_WORDS_FALL_BACK_TO_CPU_BECAUSE, reason_texts[reason].because,
        first_failure_message(p), fix ? "; " : "", fix ? fix : "",
        reason == CUDALOAD_REASON_NO_DRIVER ? cl_os_driver_name() : "");
  } else {
    summary = cl_strdup_printf(CL_WORDS_FALL_BACK_TO_CPU_BECAUSE_OF_REASON,
                               reason, first_failure_message(p));
  }
  if (summary) {
    free(p->summary);
    p->summary = summary;
  }
}

void cl_probe_mark_unfinished(cudaload_probe *p, int reason, double elapsed_ms,
                              const char *message) {
  size_t first = CL_PROBE_STAGE_COUNT;
  /* A stage reported by the child has another message than "not run". */
  for (size_t i = 0; i < CL_PROBE_STAGE_COUNT && first == CL_PROBE_STAGE_COUNT;
       ++i)
    if (p->stages[i].status == CUDALOAD_STAGE_SKIPPED &&
        strcmp(p->stages[i].message, "not run") == 0)
      first = i;
  if (first == CL_PROBE_STAGE_COUNT)
    first = CL_PROBE_STAGE_COUNT - 1; /* everything reported: blame the end */
  double reported_ms = 0;
  for (size_t i = 0; i < first; ++i)
    reported_ms += p->stages[i].ms;
  cl_probe_set_stage(p, first, CUDALOAD_STAGE_FAILED,
                     elapsed_ms > reported_ms ? elapsed_ms - reported_ms : 0,
                     message);
  for (size_t i = first + 1; i < CL_PROBE_STAGE_COUNT; ++i)
    cl_probe_set_stage(p, i, CUDALOAD_STAGE_SKIPPED, 0,
                       CL_WORDS_NOT_RUN_THE_PROBE_DID_NOT_GET_THIS_FAR);
  cl_probe_conclude(p, reason);
}

/* ------------------------------------------------------------------------ */
/* Accessors                                                                */
/* ------------------------------------------------------------------------ */

void cudaload_probe_free(cudaload_probe *probe) {
  if (!probe)
    return;
  free(probe->summary);
  free(probe->driver_path);
  for (size_t i = 0; i < CL_PROBE_STAGE_COUNT; ++i)
    free(probe->stages[i].message);
  for (size_t i = 0; i < probe->device_count; ++i) {
    free(probe->devices[i].name);
    free(probe->devices[i].uuid);
  }
  free(probe->devices);
  free(probe);
}

int cudaload_probe_verdict(const cudaload_probe *probe) {
  return probe ? probe->verdict : CUDALOAD_CPU_FALLBACK;
}

int cudaload_probe_reason(const cudaload_probe *probe) {
  return probe ? probe->reason : CUDALOAD_REASON_NONE;
}

const char *cudaload_probe_summary(const cudaload_probe *probe) {
  return probe ? probe->summary : NULL;
}

size_t cudaload_probe_stage_count(const cudaload_probe *probe) {
  return probe ? CL_PROBE_STAGE_COUNT : 0;
}

const char *cudaload_probe_stage_name(const cudaload_probe *probe, size_t i) {
  return probe && i < CL_PROBE_STAGE_COUNT ? stage_names[i] : NULL;
}

int cudaload_probe_stage_status(const cudaload_probe *probe, size_t i) {
  return probe && i < CL_PROBE_STAGE_COUNT ? probe->stages[i].status
                                           : CUDALOAD_STAGE_SKIPPED;
}

const char *cudaload_probe_stage_message(const cudaload_probe *probe,
                                         size_t i) {
  return probe && i < CL_PROBE_STAGE_COUNT ? probe->stages[i].message : NULL;
}

double cudaload_probe_stage_ms(const cudaload_probe *probe, size_t i) {
  return probe && i < CL_PROBE_STAGE_COUNT ? probe->stages[i].ms : 0.0;
}

const char *cudaload_probe_driver_path(const cudaload_probe *probe) {
  return probe ? probe->driver_path : NULL;
}

int cudaload_probe_driver_version(const cudaload_probe *probe) {
  return probe ? probe->driver_version : 0;
}

int cudaload_probe_runtime_version(const cudaload_probe *probe) {
  return probe ? probe->runtime_version : 0;
}

size_t cudaload_probe_device_count(const cudaload_probe *probe) {
  return probe ? probe->device_count : 0;
}

static const cl_probe_device *device_at(const cudaload_probe *probe, size_t i) {
  return probe && i < probe->device_count ? &probe->devices[i] : NULL;
}

const char *cudaload_probe_device_name(const cudaload_probe *probe, size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->name : NULL;
}

int cudaload_probe_device_capability(const cudaload_probe *probe, size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->capability : 0;
}

unsigned long long cudaload_probe_device_memory_mib(const cudaload_probe *probe,
                                                    size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->memory_mib : 0;
}

const char *cudaload_probe_device_uuid(const cudaload_probe *probe, size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->uuid : NULL;
}

int cudaload_probe_device_driver_model(const cudaload_probe *probe, size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->driver_model : CUDALOAD_DRIVER_MODEL_UNKNOWN;
}

int cudaload_probe_device_kernel_timeout(const cudaload_probe *probe,
                                         size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->kernel_timeout : -1;
}

int cudaload_probe_device_compute_mode(const cudaload_probe *probe, size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->compute_mode : CUDALOAD_COMPUTE_MODE_UNKNOWN;
}

int cudaload_probe_device_integrated(const cudaload_probe *probe, size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->integrated : -1;
}

long long cudaload_probe_device_free_mib(const cudaload_probe *probe,
                                         size_t i) {
  const cl_probe_device *d = device_at(probe, i);
  return d ? d->free_mib : -1;
}
