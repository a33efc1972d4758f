/* SPDX-License-Identifier: MIT */
/*
 * runtime_problems.c - the doctor's problems of the runtime environment:
 * how the devices run (the probe's device facts), the display watchdog
 * (Windows' TDR, Linux's X driver), and the CUDA variables in effect. Each is
 * told only when the facts show it, with one fix; docs/doctor.md lists them. A
 * Windows troubleshooting note for CUBLAS_STATUS_NOT_INITIALIZED in local LLM
 * inference named most of these causes; none shows in a library's error.
 */
#include "report/runtime_problems.h"

#include "common/strutil.h"
#include "os/platform.h"
#include "problem/fix_words.h"
#include "probe/cublas_causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stage_failed(const cudaload_probe *p, const char *stage) {
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i)
    if (!strcmp(cudaload_probe_stage_name(p, i), stage))
      return cudaload_probe_stage_status(p, i) == CUDALOAD_STAGE_FAILED;
  return 0;
}

static void fact(cl_problem_list *list, cl_problem *p, int which,
                 const char *value) {
  cl_problem_fact(list, p, which, CUDALOAD_FROM_MACHINE, value);
}

/* A problem of device i (CUDALOAD_PROBLEM_DEVICE): its index and name, and
 * what is wrong with it (reason: "wddm-watchdog", "display-watchdog",
 * "compute-prohibited", "compute-busy", "memory-low"). */
static cl_problem *device_problem(cl_problem_list *list,
                                  const cudaload_probe *p, size_t i,
                                  const char *reason) {
  cl_problem *d = cl_problem_add(list, CUDALOAD_PROBLEM_DEVICE);
  cl_problem_factf(list, d, CUDALOAD_FACT_DEVICE, CUDALOAD_FROM_MACHINE, "%zu",
                   i);
  fact(list, d, CUDALOAD_FACT_NAME, cudaload_probe_device_name(p, i));
  fact(list, d, CUDALOAD_FACT_REASON, reason);
  return d;
}

/* `nvidia-smi -i DEVICE words...`, the device named by its UUID (what the
 * probe's child reported), else by its index. */
static cl_fix_step *nvidia_smi(cl_fix *fix, const cudaload_probe *p, size_t i,
                               const char *const *words, size_t count) {
  cl_fix_step *step = cl_fix_add(fix, CUDALOAD_FIX_COMMAND);
  const char *uuid = cudaload_probe_device_uuid(p, i);
  cl_fix_arg(fix, step, "nvidia-smi");
  cl_fix_arg(fix, step, "-i");
  if (uuid && *uuid) {
    cl_fix_arg(fix, step, uuid);
  } else {
    char index[32];
    snprintf(index, sizeof index, "%zu", i);
    cl_fix_arg(fix, step, index);
  }
  for (size_t k = 0; k < count; ++k)
    cl_fix_arg(fix, step, words[k]);
  return step;
}

/* A command of fixed words. */
static cl_fix_step *command(cl_fix *fix, const char *const *words,
                            size_t count) {
  cl_fix_step *step = cl_fix_add(fix, CUDALOAD_FIX_COMMAND);
  for (size_t k = 0; k < count; ++k)
    cl_fix_arg(fix, step, words[k]);
  return step;
}

/* The step that unsets a variable in the user's shell: POSIX `unset NAME`;
 * Windows set "NAME=" (cmd) or $env:NAME = '' (PowerShell), which remove
 * it. */
static cl_fix_step *unset_variable(cl_fix *fix, const char *name) {
  cl_fix_step *step = cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE);
  if (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS) {
    cl_fix_env(fix, step, name, "");
  } else {
    cl_fix_arg(fix, step, "unset");
    cl_fix_arg(fix, step, name);
  }
  return step;
}

/* The default compute mode, set as root or administrator. */
static void default_mode_step(cl_fix *fix, const cudaload_probe *p, size_t i) {
  static const char *const words[] = {"-c", "DEFAULT"};
  cl_fix_note(fix, nvidia_smi(fix, p, i, words, 2),
              CL_NOTE_AS_ROOT_OR_ADMINISTRATOR);
}

/* WDDM with the watchdog on: a long kernel resets the driver. Not when
 * TdrLevel turned detection off. */
static void watchdog_problem(const cl_runtime_facts *f, size_t i,
                             cl_problem_list *list) {
  const cudaload_probe *p = f->probe;
  if (cudaload_probe_device_driver_model(p, i) != CUDALOAD_DRIVER_MODEL_WDDM ||
      cudaload_probe_device_kernel_timeout(p, i) != 1 ||
      (f->watchdog->applies && f->watchdog->level.value == CL_TDR_LEVEL_OFF))
    return;
  long delay = f->watchdog->applies ? f->watchdog->delay_s.value
                                    : CL_TDR_DEFAULT_DELAY_S;
  cl_problem *d = device_problem(list, p, i, "wddm-watchdog");
  fact(list, d, CUDALOAD_FACT_VARIABLE, "TdrDelay");
  cl_problem_factf(list, d, CUDALOAD_FACT_VALUE, CUDALOAD_FROM_MACHINE, "%ld",
                   delay);
  if (!d)
    return;
  cl_fix_add_note(&d->fix, CL_NOTE_SPLIT_WORK_OR_SWITCH_TO_TCC);
  static const char *const tcc[] = {"-dm", "1"};
  cl_fix_note(&d->fix, nvidia_smi(&d->fix, p, i, tcc, 2),
              CL_NOTE_AS_ADMINISTRATOR_THEN_REBOOT);
  cl_fix_add_note(&d->fix, CL_NOTE_RAISE_TDR_DELAY_LAST_RESORT, CL_TDR_KEY);
}

/* Linux: a device that drives a display runs its kernels under the
 * driver's watchdog (the X driver's "Interactive" option, on by default),
 * which kills a kernel after a few seconds. The driver says so with
 * KERNEL_EXEC_TIMEOUT; there is no WDDM model to check. */
static void linux_watchdog_problem(const cl_runtime_facts *f, size_t i,
                                   cl_problem_list *list) {
  const cudaload_probe *p = f->probe;
  if (cudaload_probe_device_driver_model(p, i) !=
          CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE ||
      cudaload_probe_device_kernel_timeout(p, i) != 1)
    return;
  cl_problem *d = device_problem(list, p, i, "display-watchdog");
  if (!d)
    return;
  cl_fix_add_note(&d->fix, CL_NOTE_RUN_ON_GPU_WITHOUT_DISPLAY);
  static const char *const list_gpus[] = {"nvidia-smi", "-L"};
  command(&d->fix, list_gpus, 2);
  cl_fix_add_note(&d->fix, CL_NOTE_OR_STOP_DISPLAY_SERVER);
  static const char *const text_mode[] = {"sudo", "systemctl", "isolate",
                                          "multi-user.target"};
  command(&d->fix, text_mode, 4);
  cl_fix_add_note(&d->fix, CL_NOTE_OR_TURN_OFF_X_WATCHDOG,
                  cudaload_probe_device_uuid(p, i));
}

/* A compute mode that keeps processes off the device. Exclusive modes are
 * a problem only when they kept the probe off device 0: otherwise this
 * process got the device, and the mode is a fact, not a fault. Returns 1
 * when it explains the probe's failure. */
static int compute_mode_problem(const cl_runtime_facts *f, size_t i,
                                cl_problem_list *list) {
  const cudaload_probe *p = f->probe;
  int mode = cudaload_probe_device_compute_mode(p, i);
  int refused = i == 0 && stage_failed(p, "context");
  if (mode == CUDALOAD_COMPUTE_MODE_PROHIBITED) {
    cl_problem *d = device_problem(list, p, i, "compute-prohibited");
    fact(list, d, CUDALOAD_FACT_VALUE, cudaload_probe_compute_mode_name(mode));
    if (d) {
      cl_fix_add_note(&d->fix, CL_NOTE_SET_DEFAULT_COMPUTE_MODE);
      default_mode_step(&d->fix, p, i);
    }
    return refused;
  }
  if (!refused || (mode != CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS &&
                   mode != CUDALOAD_COMPUTE_MODE_EXCLUSIVE_THREAD))
    return 0;
  cl_problem *d = device_problem(list, p, 0, "compute-busy");
  fact(list, d, CUDALOAD_FACT_VALUE, cudaload_probe_compute_mode_name(mode));
  if (d) {
    cl_fix_add_note(&d->fix, CL_NOTE_STOP_OTHER_PROCESS_OR_DEFAULT_MODE);
    default_mode_step(&d->fix, p, i);
  }
  return 1;
}

/* Little free memory on device 0 when the probe ran. Returns 1 when the
 * probe's cuBLAS failure is what it explains. */
static int memory_problem(const cl_runtime_facts *f, cl_problem_list *list) {
  const cudaload_probe *p = f->probe;
  long long free_mib = cudaload_probe_device_free_mib(p, 0);
  unsigned long long total = cudaload_probe_device_memory_mib(p, 0);
  if (!cl_probe_free_memory_low(free_mib, total))
    return 0;
  cl_problem *d = device_problem(list, p, 0, "memory-low");
  cl_problem_factf(list, d, CUDALOAD_FACT_COUNT, CUDALOAD_FROM_MACHINE, "%lld",
                   free_mib);
  cl_problem_factf(list, d, CUDALOAD_FACT_TOTAL, CUDALOAD_FROM_MACHINE, "%llu",
                   total);
  if (d) {
    static const char *const smi[] = {"nvidia-smi"};
    cl_fix_note(&d->fix, command(&d->fix, smi, 1),
                CL_NOTE_NVIDIA_SMI_SHOWS_MEMORY_HOLDERS);
    cl_fix_step *alloc = cl_fix_add(&d->fix, CUDALOAD_FIX_SET_VARIABLE);
    cl_fix_env(&d->fix, alloc, "PYTORCH_CUDA_ALLOC_CONF",
               "expandable_segments:True");
    cl_fix_note(&d->fix, alloc, CL_NOTE_PYTORCH_AGAINST_FRAGMENTATION);
  }
  return stage_failed(p, "cublas") || stage_failed(p, "cudnn");
}

/* Whether CUDA_VISIBLE_DEVICES lists no device whatever the machine has:
 * empty, or a first entry that is neither an index nor a UUID (-1, "none";
 * the driver reads the list up to the first entry that names no device). */
static int hides_every_device(const char *value) {
  if (!*value || *value == ',')
    return 1;
  if (!strncmp(value, "GPU-", 4) || !strncmp(value, "MIG-", 4))
    return 0;
  char *end = NULL;
  long index = strtol(value, &end, 10);
  return end == value || index < 0 || (*end != ',' && *end != '\0');
}

/* A CUDA variable set so that nothing runs well (CUDALOAD_PROBLEM_VARIABLE):
 * its name and value, and what it does (reason). */
static cl_problem *variable_problem(cl_problem_list *list, const char *name,
                                    const char *value, const char *reason) {
  cl_problem *v = cl_problem_add(list, CUDALOAD_PROBLEM_VARIABLE);
  fact(list, v, CUDALOAD_FACT_VARIABLE, name);
  fact(list, v, CUDALOAD_FACT_VALUE, value);
  fact(list, v, CUDALOAD_FACT_REASON, reason);
  return v;
}

static int visible_devices_problem(const cl_runtime_facts *f,
                                   cl_problem_list *list) {
  const char *value = cl_cuda_knob_value(f->knobs, "CUDA_VISIBLE_DEVICES");
  if (!value)
    return 0;
  int probe_found_none =
      f->probe && cudaload_probe_reason(f->probe) == CUDALOAD_REASON_NO_DEVICE;
  if (!probe_found_none && !hides_every_device(value))
    return 0;
  cl_problem *v =
      variable_problem(list, "CUDA_VISIBLE_DEVICES", value,
                       probe_found_none ? "no-device" : "hides-every-device");
  if (v) {
    unset_variable(&v->fix, "CUDA_VISIBLE_DEVICES");
    cl_fix_add_note(&v->fix, CL_NOTE_OR_LIST_DEVICES_TO_USE);
    static const char *const list_gpus[] = {"nvidia-smi", "-L"};
    command(&v->fix, list_gpus, 2);
    cl_fix_step *first = cl_fix_add(&v->fix, CUDALOAD_FIX_SET_VARIABLE);
    cl_fix_env(&v->fix, first, "CUDA_VISIBLE_DEVICES", "0");
    cl_fix_note(&v->fix, first, CL_NOTE_FOR_EXAMPLE_THE_FIRST);
  }
  return probe_found_none;
}

/* CUDA_LAUNCH_BLOCKING on: every launch waits for the GPU. */
static void launch_blocking_problem(const cl_runtime_facts *f,
                                    cl_problem_list *list) {
  const char *blocking = cl_cuda_knob_value(f->knobs, "CUDA_LAUNCH_BLOCKING");
  if (!blocking || !*blocking || strcmp(blocking, "0") == 0)
    return;
  cl_problem *v =
      variable_problem(list, "CUDA_LAUNCH_BLOCKING", blocking, "slow");
  if (v)
    cl_fix_note(&v->fix, unset_variable(&v->fix, "CUDA_LAUNCH_BLOCKING"),
                CL_NOTE_UNSET_OUTSIDE_DEBUGGING);
}

int cl_runtime_problems(const cl_runtime_facts *f, cl_problem_list *list) {
  int explained = visible_devices_problem(f, list);
  launch_blocking_problem(f, list);
  const cudaload_probe *p = f->probe;
  if (!p)
    return explained;
  for (size_t i = 0; i < cudaload_probe_device_count(p); ++i) {
    watchdog_problem(f, i, list);
    linux_watchdog_problem(f, i, list);
    explained |= compute_mode_problem(f, i, list);
  }
  if (cudaload_probe_device_count(p))
    explained |= memory_problem(f, list);
  return explained;
}
