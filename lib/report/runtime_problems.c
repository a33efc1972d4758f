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

#include "common/buf.h"
#include "common/shell_word.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "probe/cublas_causes.h"

#include <stdlib.h>
#include <string.h>

typedef struct sink {
  cl_problem_sink add;
  void *opaque;
} sink;

static int stage_failed(const cudaload_probe *p, const char *stage) {
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i)
    if (!strcmp(cudaload_probe_stage_name(p, i), stage))
      return cudaload_probe_stage_status(p, i) == CUDALOAD_STAGE_FAILED;
  return 0;
}

/* WDDM with the watchdog on: a long kernel resets the driver. Not when
 * TdrLevel turned detection off. */
static void watchdog_problem(const cl_runtime_facts *f, size_t i, sink *s) {
  const cudaload_probe *p = f->probe;
  if (cudaload_probe_device_driver_model(p, i) != CUDALOAD_DRIVER_MODEL_WDDM ||
      cudaload_probe_device_kernel_timeout(p, i) != 1 ||
      (f->watchdog->applies && f->watchdog->level.value == CL_TDR_LEVEL_OFF))
    return;
  long delay = f->watchdog->applies ? f->watchdog->delay_s.value
                                    : CL_TDR_DEFAULT_DELAY_S;
  s->add(s->opaque, CUDALOAD_PROBLEM_DEVICE,
         cl_strdup_printf(
             "device %zu (%s) runs under WDDM with Windows' display watchdog "
             "on: when one kernel runs longer than TdrDelay (%ld s), Windows "
             "resets the driver, which shows up as "
             "CUBLAS_STATUS_NOT_INITIALIZED, CUDA_ERROR_LAUNCH_TIMEOUT or a "
             "lost device",
             i, cudaload_probe_device_name(p, i), delay),
         cl_strdup_printf(
             "split the work into shorter kernels (shorter sequences, chunked "
             "prefill, smaller batches); on data-centre and workstation GPUs, "
             "switch the device to TCC (nvidia-smi -i %s -dm 1, as "
             "administrator, then reboot); only as a last resort raise "
             "TdrDelay under HKLM\\" CL_TDR_KEY
             " (a system-wide registry change that needs a reboot)",
             cudaload_probe_device_uuid(p, i)));
}

/* "nvidia-smi -i DEVICE -c DEFAULT", the device named by its UUID as one
 * shell word: the UUID is what the probe's child reported, after running
 * the driver's code, and is pasted by whoever reads the fix. A UUID no
 * spelling keeps literal (Windows: cmd and PowerShell) gives the index. */
static char *default_mode_command(const char *uuid, size_t i) {
  cl_buf b = CL_BUF_INIT;
  cl_buf_puts(&b, "nvidia-smi -i ");
  if (!uuid || !*uuid ||
      !cl_buf_shell_word(&b, uuid,
                         cl_os_host_target() == CUDALOAD_TARGET_WINDOWS
                             ? CL_SHELL_CMD_AND_POWERSHELL
                             : CL_SHELL_POSIX))
    cl_buf_printf(&b, "%zu", i);
  cl_buf_puts(&b, " -c DEFAULT");
  return cl_buf_take(&b);
}

/* Linux: a device that drives a display runs its kernels under the
 * driver's watchdog (the X driver's "Interactive" option, on by default),
 * which kills a kernel after a few seconds. The driver says so with
 * KERNEL_EXEC_TIMEOUT; there is no WDDM model to check. */
static void linux_watchdog_problem(const cl_runtime_facts *f, size_t i,
                                   sink *s) {
  const cudaload_probe *p = f->probe;
  if (cudaload_probe_device_driver_model(p, i) !=
          CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE ||
      cudaload_probe_device_kernel_timeout(p, i) != 1)
    return;
  s->add(s->opaque, CUDALOAD_PROBLEM_DEVICE,
         cl_strdup_printf(
             "device %zu (%s) drives a display, so its kernels run under the "
             "driver's watchdog: a kernel that runs longer than a few "
             "seconds is killed (CUDA_ERROR_LAUNCH_TIMEOUT, then every later "
             "call fails: CUBLAS_STATUS_EXECUTION_FAILED, a lost context)",
             i, cudaload_probe_device_name(p, i)),
         cl_strdup_printf(
             "run the work on a GPU that drives no display "
             "(CUDA_VISIBLE_DEVICES naming it by index or UUID, as nvidia-smi "
             "-L lists them), or stop the display server while it runs (sudo "
             "systemctl isolate multi-user.target), or turn the X driver's "
             "watchdog off for %s: Option \"Interactive\" \"0\" in its "
             "Device section of xorg.conf, then restart X",
             cudaload_probe_device_uuid(p, i)));
}

/* A compute mode that keeps processes off the device. Exclusive modes are
 * a problem only when they kept the probe off device 0: otherwise this
 * process got the device, and the mode is a fact, not a fault. Returns 1
 * when it explains the probe's failure. */
static int compute_mode_problem(const cl_runtime_facts *f, size_t i, sink *s) {
  const cudaload_probe *p = f->probe;
  int mode = cudaload_probe_device_compute_mode(p, i);
  int refused = i == 0 && stage_failed(p, "context");
  if (mode == CUDALOAD_COMPUTE_MODE_PROHIBITED) {
    char *command = default_mode_command(cudaload_probe_device_uuid(p, i), i);
    s->add(
        s->opaque, CUDALOAD_PROBLEM_DEVICE,
        cl_strdup_printf("device %zu (%s) is in compute mode \"prohibited\": "
                         "no process may create a CUDA context on it",
                         i, cudaload_probe_device_name(p, i)),
        command ? cl_strdup_printf("set the default compute mode: %s (as "
                                   "root or administrator)",
                                   command)
                : NULL);
    free(command);
    return refused;
  }
  if (!refused || (mode != CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS &&
                   mode != CUDALOAD_COMPUTE_MODE_EXCLUSIVE_THREAD))
    return 0;
  char *command = default_mode_command(cudaload_probe_device_uuid(p, i), i);
  s->add(s->opaque, CUDALOAD_PROBLEM_DEVICE,
         cl_strdup_printf("device 0 (%s) is in compute mode \"%s\" and "
                          "another process is using it: that is why the "
                          "probe could not create a context there",
                          cudaload_probe_device_name(p, 0),
                          cudaload_probe_compute_mode_name(mode)),
         command ? cl_strdup_printf("stop the other process (nvidia-smi "
                                    "lists it), or set the default compute "
                                    "mode: %s (as root or administrator)",
                                    command)
                 : NULL);
  free(command);
  return 1;
}

/* Little free memory on device 0 when the probe ran. Returns 1 when the
 * probe's cuBLAS failure is what it explains. */
static int memory_problem(const cl_runtime_facts *f, sink *s) {
  const cudaload_probe *p = f->probe;
  long long free_mib = cudaload_probe_device_free_mib(p, 0);
  unsigned long long total = cudaload_probe_device_memory_mib(p, 0);
  if (!cl_probe_free_memory_low(free_mib, total))
    return 0;
  s->add(s->opaque, CUDALOAD_PROBLEM_DEVICE,
         cl_strdup_printf(
             "only %lld MiB of device 0's %llu MiB were free when the probe "
             "ran: another process holds the rest, and a library that cannot "
             "allocate its workspace then fails (cuBLAS with "
             "CUBLAS_STATUS_NOT_INITIALIZED, cuDNN with "
             "CUDNN_STATUS_ALLOC_FAILED)",
             free_mib, total),
         cl_strdup("see which processes hold GPU memory (nvidia-smi) and stop "
                   "them, or make this one ask for less (a smaller model or "
                   "batch; with PyTorch, "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against "
                   "fragmentation)"));
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

static int visible_devices_problem(const cl_runtime_facts *f, sink *s) {
  const char *value = cl_cuda_knob_value(f->knobs, "CUDA_VISIBLE_DEVICES");
  if (!value)
    return 0;
  int probe_found_none =
      f->probe && cudaload_probe_reason(f->probe) == CUDALOAD_REASON_NO_DEVICE;
  if (!probe_found_none && !hides_every_device(value))
    return 0;
  s->add(s->opaque, CUDALOAD_PROBLEM_VARIABLE,
         probe_found_none
             ? cl_strdup_printf(
                   "the GPU probe finds no device, and "
                   "CUDA_VISIBLE_DEVICES=\"%s\" "
                   "is set: CUDA shows a process only the devices it lists, "
                   "and it lists none that exists here",
                   value)
             : cl_strdup_printf("CUDA_VISIBLE_DEVICES=\"%s\" hides every "
                                "device: CUDA programs started from here "
                                "find no GPU",
                                value),
         cl_strdup("unset CUDA_VISIBLE_DEVICES, or list the devices to use by "
                   "index or UUID as nvidia-smi -L shows them (for example "
                   "CUDA_VISIBLE_DEVICES=0)"));
  return probe_found_none;
}

/* CUDA_LAUNCH_BLOCKING on: every launch waits for the GPU. */
static void launch_blocking_problem(const cl_runtime_facts *f, sink *s) {
  const char *blocking = cl_cuda_knob_value(f->knobs, "CUDA_LAUNCH_BLOCKING");
  if (!blocking || !*blocking || strcmp(blocking, "0") == 0)
    return;
  s->add(s->opaque, CUDALOAD_PROBLEM_VARIABLE,
         cl_strdup_printf("CUDA_LAUNCH_BLOCKING=%s: every kernel launch "
                          "waits for the GPU, which makes CUDA slow",
                          blocking),
         cl_strdup("unset CUDA_LAUNCH_BLOCKING outside debugging (it is for "
                   "finding which launch failed, not for production)"));
}

int cl_runtime_problems(const cl_runtime_facts *f, cl_problem_sink add,
                        void *opaque) {
  sink s = {add, opaque};
  int explained = visible_devices_problem(f, &s);
  launch_blocking_problem(f, &s);
  const cudaload_probe *p = f->probe;
  if (!p)
    return explained;
  for (size_t i = 0; i < cudaload_probe_device_count(p); ++i) {
    watchdog_problem(f, i, &s);
    linux_watchdog_problem(f, i, &s);
    explained |= compute_mode_problem(f, i, &s);
  }
  if (cudaload_probe_device_count(p))
    explained |= memory_problem(f, &s);
  return explained;
}
