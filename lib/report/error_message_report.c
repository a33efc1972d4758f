/* SPDX-License-Identifier: MIT */
/*
 * error_message_report.c - the error messages a user pasted
 * (cudaload_read_error_message, load/error_message.c) in the doctor's
 * report: what each says, and the problem it shows on this machine with
 * its fix. The message alone tells what was missing; the inventory, the
 * plan, the driver and the probe tell why: a library the plan finds here
 * was missed because the program's loader does not search its folder, a
 * library found nowhere is an unsatisfied requirement (whose problem the
 * doctor lists already), a driver that is here is not visible to the
 * program.
 */
#include "report/error_message_report.h"
#include "common/strutil.h"
#include "load/error_meaning.h"
#include "load/error_message.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_report_error_messages(cl_report_writer *w, const cudaload_ctx *ctx) {
  cl_report_key(w, "error_messages");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    cl_report_begin_object(w);
    cl_report_key(w, "kind");
    cl_report_string(w, cudaload_error_message_kind_name(m->kind));
    cl_report_key(w, "quote");
    cl_report_string(w, m->quote);
    cl_report_key(w, "file");
    cl_report_string(w, m->file);
    cl_report_key(w, "needed_by");
    cl_report_string(w, m->needed_by);
    cl_report_key(w, "requirement");
    cl_report_string(w, m->requirement);
    cl_report_key(w, "diagnosis");
    cl_report_string(w, m->diagnosis);
    /* Each fact the message states, with the words it was read from: the
     * report says which facts the message gave (these) and which the
     * machine did (the rest of the report). */
    cl_report_key(w, "facts");
    cl_report_begin_object(w);
    for (int f = 1; f <= CL_ERROR_FACT_LAST; ++f) {
      if (!m->facts[f])
        continue;
      cl_report_key(w, cudaload_error_message_fact_name(f));
      cl_report_begin_object(w);
      cl_report_key(w, "value");
      cl_report_string(w, m->facts[f]);
      cl_report_key(w, "source");
      cl_report_string(w, m->sources[f]);
      cl_report_end_object(w);
    }
    cl_report_end_object(w);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

static void line(cl_text_report *r, int width, const char *label,
                 const char *value) {
  if (value)
    cl_text_put(r, "  %-*s%s\n", width, label, cl_text_shown(r, value));
}

void cl_text_error_messages(cl_text_report *r, int label_width,
                            const cudaload_ctx *ctx) {
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    if (i)
      cl_text_put(r, "\n");
    line(r, label_width, "read", m->quote);
    line(r, label_width, "kind", cudaload_error_message_kind_name(m->kind));
    line(r, label_width, "file", m->file);
    line(r, label_width, "needed by", m->needed_by);
    line(r, label_width, "means", m->diagnosis);
    if (m->requirement) {
      char requires[160];
      snprintf(requires, sizeof requires, "%.120s (see Plan)", m->requirement);
      line(r, label_width, "requires", requires);
    }
  }
}

/* --- problems ------------------------------------------------------------ */

/* The library the plan chose for the requirement whose text is spec, NULL
 * when none (unsatisfied, or no plan). */
static const cl_library *chosen_for(const cudaload_ctx *ctx, const char *spec) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t k = 0; k < ps->requirement_count; ++k) {
    if (strcmp(ps->requirements[k].text, spec) != 0)
      continue;
    if (k >= ps->outcome_count || ps->outcomes[k].chosen == SIZE_MAX ||
        ps->outcomes[k].chosen >= inv->library_count)
      return NULL;
    return &inv->libraries[ps->outcomes[k].chosen];
  }
  return NULL;
}

static int is_windows(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS;
}

/* Found here, missed by the program: its loader does not search there. */
static void found_but_missed(const cl_error_message *m, const cl_library *lib,
                             cl_problem_sink add, void *opaque) {
  const char *spec = m->requirement;
  add(opaque, CUDALOAD_PROBLEM_MESSAGE,
      cl_strdup_printf(
          "the error message names %s, which is here (%s, the plan's choice "
          "for %s): the program's loader does not search its folder",
          cl_path_basename(m->file), lib->path, spec),
      is_windows()
          ? cl_strdup_printf(
                "start the program through cudaload: cudaload exec --require "
                "%s -- PROGRAM; from Python, call cudaload.setup(require="
                "[\"%s\"]) before importing the framework",
                spec, spec)
          : cl_strdup_printf(
                "start the program with its folder searched: cudaload exec "
                "--require %s -- PROGRAM (or eval \"$(cudaload env --require "
                "%s)\" first); from Python, call cudaload.setup(require="
                "[\"%s\"]) before importing the framework",
                spec, spec, spec));
}

static void driver_file_problem(const cl_error_message *m,
                                const cl_error_message_facts *f,
                                cl_problem_sink add, void *opaque) {
  if (!f->driver_path)
    return; /* "no NVIDIA driver" is the doctor's own problem, with a fix */
  const char *name = cl_path_basename(m->file);
  add(opaque, CUDALOAD_PROBLEM_MESSAGE,
      cl_strdup_printf("the error message names the driver's %s, and this "
                       "machine has the driver (%s): the program does not "
                       "see it",
                       name, f->driver_path),
      cl_strdup_printf(
          "run the program where the driver is visible (a container: "
          "--gpus all with the NVIDIA container toolkit; WSL: "
          "/usr/lib/wsl/lib on LD_LIBRARY_PATH) and check with nvidia-smi%s",
          cl_ends_with(name, ".so")
              ? "; a program that opens the unversioned libcuda.so needs the "
                "link libcuda.so -> libcuda.so.1 of the driver's development "
                "files"
              : ""));
}

static void unknown_file_problem(const cl_error_message *m, cl_problem_sink add,
                                 void *opaque) {
  const char *name = cl_path_basename(m->file);
  if (cl_starts_with_nocase(name, "zlibwapi.dll")) {
    add(opaque, CUDALOAD_PROBLEM_MESSAGE,
        cl_strdup("the error message names zlibwapi.dll, which cuDNN 8 for "
                  "Windows needs and does not ship"),
        cl_strdup("put an x64 zlibwapi.dll beside cudnn64_8.dll or in a "
                  "folder on PATH, or use cuDNN 9, which does not need it"));
    return;
  }
  int absolute = cl_os_path_is_absolute(m->file);
  add(opaque, CUDALOAD_PROBLEM_MESSAGE,
      cl_strdup_printf("the error message names %s, which is not a CUDA "
                       "library cudaload knows: it, or a library it needs, "
                       "could not be loaded",
                       name),
      cl_strdup_printf("cudaload explain %s%s lists each library it needs, "
                       "where the loader would find it and what is missing",
                       absolute ? "" : "PATH/TO/", absolute ? m->file : name));
}

static void cublas_problem(const cl_error_message_facts *f, cl_problem_sink add,
                           void *opaque) {
  const char *fix;
  if (!f->probe)
    fix = "run cudaload doctor --probe: it creates a cuBLAS handle as the "
          "program does and names the cause";
  else if (cudaload_probe_verdict(f->probe) == CUDALOAD_GPU_OK)
    fix = "the probe created a cuBLAS handle here, so the program's own use "
          "of the GPU is the likely cause: free GPU memory (nvidia-smi lists "
          "the processes holding it) or lower its batch size";
  else
    fix = "the probe fell back to CPU: its problem below names the cause";
  add(opaque, CUDALOAD_PROBLEM_MESSAGE,
      cl_strdup("the error message is CUBLAS_STATUS_NOT_INITIALIZED: cuBLAS "
                "could not create its handle"),
      cl_strdup(fix));
}

static void driver_too_old_problem(const cl_error_message_facts *f,
                                   cl_problem_sink add, void *opaque) {
  /* Without a driver the CUDA runtime says "insufficient" too; the
   * doctor's "no NVIDIA driver" problem has that fix. */
  if (!f->driver_path)
    return;
  const cl_driver_cuda *d = f->driver_files;
  char *fix;
  if (d && d->found && d->cuda_major)
    fix = cl_strdup_printf(
        "this driver (%s) supports CUDA up to %d.%d: update it "
        "(https://www.nvidia.com/drivers), or use the program's build for "
        "CUDA %d (pip: its CUDA %d wheels; cudaload plans for it with "
        "cuda=%d)",
        d->version, d->cuda_major, d->cuda_minor, d->cuda_major, d->cuda_major,
        d->cuda_major);
  else
    fix = cl_strdup("update the NVIDIA driver (https://www.nvidia.com/"
                    "drivers), or use the program's build for an older CUDA "
                    "major");
  add(opaque, CUDALOAD_PROBLEM_MESSAGE,
      cl_strdup("the error message says the NVIDIA driver is older than the "
                "program's CUDA runtime"),
      fix);
}

static void no_kernel_image_problem(const cl_error_message_facts *f,
                                    cl_problem_sink add, void *opaque) {
  char gpu[300] = " (cudaload doctor --probe shows it)";
  if (f->probe && cudaload_probe_device_count(f->probe) > 0) {
    int cc = cudaload_probe_device_capability(f->probe, 0);
    snprintf(gpu, sizeof gpu, " (%.200s: compute %d.%d)",
             cudaload_probe_device_name(f->probe, 0), cc / 10, cc % 10);
  }
  add(opaque, CUDALOAD_PROBLEM_MESSAGE,
      cl_strdup("the error message says the program has no GPU code for this "
                "GPU"),
      cl_strdup_printf(
          "install a build of the program made for this GPU's compute "
          "capability%s; PyTorch: torch.cuda.get_arch_list() lists the "
          "architectures a build has, and a newer GPU needs a build for a "
          "newer CUDA",
          gpu));
}

void cl_error_message_problems(const cl_error_message_facts *f,
                               cl_problem_sink add, void *opaque) {
  const cudaload_ctx *ctx = f->ctx;
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    switch (m->kind) {
    case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
      cublas_problem(f, add, opaque);
      continue;
    case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
      driver_too_old_problem(f, add, opaque);
      continue;
    case CUDALOAD_MESSAGE_NO_KERNEL_IMAGE:
      no_kernel_image_problem(f, add, opaque);
      continue;
    case CUDALOAD_MESSAGE_LIBRARY_MISSING:
    case CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY:
      break;
    default:
      /* A missing symbol, a version mismatch, no driver, a build without
       * CUDA, a pip pin: what it means is the message's diagnosis, its
       * facts are in the report; the answers built on them are the
       * problem model's (issue 42). Never "its folder is not searched". */
      continue;
    }
    if (!m->file)
      continue;
    /* A path is that file: the loader searched no folder for it, so "the
     * loader does not search its folder" would be no answer. */
    const char *form = m->facts[CUDALOAD_MESSAGE_FACT_FILE_FORM];
    if (form && strcmp(form, "name") != 0)
      continue;
    if (m->requirement) {
      /* Unsatisfied: the doctor's problem for the requirement has the
       * fix (what to install, where). */
      const cl_library *lib = chosen_for(ctx, m->requirement);
      if (lib)
        found_but_missed(m, lib, add, opaque);
    } else if (cl_error_message_driver_file(cl_path_basename(m->file))) {
      driver_file_problem(m, f, add, opaque);
    } else {
      unknown_file_problem(m, add, opaque);
    }
  }
}
