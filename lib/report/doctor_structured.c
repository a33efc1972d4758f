/* SPDX-License-Identifier: MIT */
/*
 * doctor_structured.c - the doctor's report as JSON or YAML for a program
 * (doctor_structured.h; docs/doctor.md is the schema).
 */
#include "report/doctor_structured.h"
#include "load/manifest.h"
#include "load/verdict.h"
#include "report/report_inventory.h"
#include "report/report_probe.h"
#include "report/report_watchdog.h"
#include "scan/library_cuda_major.h"
#include "report/error_message_report.h"
#include "scan/roots.h"
#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* --- JSON and YAML ----------------------------------------------------- */

static void write_probe(cl_report_writer *w, const cudaload_probe *p) {
  cl_report_key(w, "probe");
  if (!p) {
    cl_report_null(w);
    return;
  }
  cl_report_begin_object(w);
  cl_report_probe_fields(w, p);
  cl_report_end_object(w);
}

/* Where the report was made: what this libcudaload was built for. */
static void write_platform(cl_report_writer *w) {
  cl_report_key(w, "platform");
  cl_report_begin_object(w);
  cl_report_key(w, "os");
  cl_report_string(w, cl_os_name());
  cl_report_key(w, "arch");
  cl_report_string(w, cl_doctor_host_arch());
  cl_report_key(w, "cudaload_version");
  cl_report_string(w, cudaload_version_string());
  cl_report_end_object(w);
}

/* The driver: the one found or loaded ("driver"), and its version read
 * from its files without loading it ("driver_support"). */
static void write_driver(cl_report_writer *w, const cl_doctor *d) {
  cl_report_key(w, "driver");
  if (d->driver_path) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, d->driver_path);
    cl_report_key(w, "version");
    cl_report_string(w, d->driver_version);
    cl_report_key(w, "cuda_version");
    char cuda[32];
    snprintf(cuda, sizeof cuda, "%d.%d", d->driver_cuda / 1000,
             d->driver_cuda % 1000 / 10);
    cl_report_string(w, d->driver_cuda ? cuda : NULL);
    cl_report_key(w, "source");
    cl_report_string(w, d->driver_source);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }

  /* The driver's version read from its files (never loaded): what the
   * plan checks CUDA majors against. */
  cl_report_key(w, "driver_support");
  if (d->driver_files.found) {
    char cuda[32];
    cl_report_begin_object(w);
    cl_report_key(w, "version");
    cl_report_string(w, d->driver_files.version);
    cl_report_key(w, "source");
    cl_report_string(w, d->driver_files.source);
    cl_report_key(w, "path");
    cl_report_string(w, d->driver_files.path[0] ? d->driver_files.path : NULL);
    cl_report_key(w, "cuda_version");
    snprintf(cuda, sizeof cuda, "%d.%d", d->driver_files.cuda_major,
             d->driver_files.cuda_minor);
    cl_report_string(w, d->driver_files.cuda_major ? cuda : NULL);
    cl_report_key(w, "max_cuda_major");
    cl_report_int(w, d->driver_files.max_major_compat);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }
}

/* The manifest loaded into the context and its policy, or null. */
static void write_manifest(cl_report_writer *w, const cudaload_ctx *ctx) {
  const cl_manifest_state *manifest = cl_manifest_of(ctx);
  cl_report_key(w, "manifest");
  if (manifest) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, manifest->path);
    cl_report_key(w, "sublibraries");
    cl_report_string(w, manifest->preload_flags & CUDALOAD_PRELOAD_ALL_SUBLIBS
                            ? "all"
                            : "minimal");
    cl_report_key(w, "isolation");
    cl_report_bool(w, manifest->isolation);
    cl_report_key(w, "global");
    cl_report_bool(w, (manifest->preload_flags & CUDALOAD_PRELOAD_GLOBAL) != 0);
    cl_report_key(w, "probe");
    cl_report_bool(w, manifest->probe);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }
}

/* Each requirement, where it is satisfied from and the CUDA major the
 * plan takes ("cuda_major"). */
static void write_requirements(cl_report_writer *w, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_report_key(w, "requirements");
  cl_report_begin_array(w);
  for (size_t r = 0; r < ps->requirement_count; ++r) {
    const char *path;
    int ok = cl_doctor_requirement_satisfied(ctx, r, &path);
    cl_report_begin_object(w);
    cl_report_key(w, "spec");
    cl_report_string(w, ps->requirements[r].text);
    cl_report_key(w, "satisfied");
    cl_report_bool(w, ok);
    cl_report_key(w, "path");
    cl_report_string(w, path);
    cl_library *lib = ok ? cl_doctor_chosen_library(ctx, r) : NULL;
    cl_report_key(w, "tier");
    if (lib)
      cl_report_string(
          w, cl_tier_name(cl_origin_tier(inv->roots[lib->root].origin)));
    else
      cl_report_null(w);
    cl_report_key(w, "origin");
    if (lib)
      cl_report_string(w, inv->roots[lib->root].origin);
    else
      cl_report_null(w);
    cl_report_key(w, "cuda_major");
    int cuda = lib ? cl_library_cuda_major(ctx, lib) : 0;
    if (cuda > 0)
      cl_report_int(w, cuda);
    else
      cl_report_null(w);
    cl_report_key(w, "second_cuda_major");
    cl_report_bool(w, ok && ps->outcomes[r].second_major != 0);
    /* Where a requirement derived from the program came from (--for). */
    cl_report_key(w, "from");
    cl_report_string(w,
                     cl_requirement_origin_of(ctx, ps->requirements[r].text));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);

  cl_report_key(w, "cuda_major");
  if (ps->plan_cuda_major) {
    cl_report_begin_object(w);
    cl_report_key(w, "major");
    cl_report_int(w, ps->plan_cuda_major);
    cl_report_key(w, "reason");
    cl_report_string(w, ps->plan_cuda_reason);
    cl_report_end_object(w);
  } else {
    cl_report_null(w);
  }
}

/* The plan in load order, what this process has loaded, and the
 * conflicts in its global scope. */
static void write_plan(cl_report_writer *w, const cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  cl_report_key(w, "plan");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, p->entry->name);
    cl_report_key(w, "major");
    cl_report_int(w, p->major);
    cl_report_key(w, "path");
    cl_report_string(w, p->path);
    cl_report_key(w, "state");
    cl_report_string(w, cudaload_plan_state_name(p->state));
    cl_report_key(w, "reason");
    cl_report_string(w, p->reason);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);

  cl_report_key(w, "loaded");
  cl_report_begin_array(w);
  for (size_t i = 0; i < d->loaded_count; ++i)
    cl_report_string(w, d->loaded[i]);
  cl_report_end_array(w);

  cl_report_key(w, "conflicts");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cl_plan_state_of(ctx)->conflict_count; ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, cl_plan_state_of(ctx)->conflicts[i].path);
    cl_report_key(w, "text");
    cl_report_string(w, cl_plan_state_of(ctx)->conflicts[i].text);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* A problem's kind, facts (each with its source) and fix steps. */
static void write_problem(cl_report_writer *w, const cl_problem *p) {
  cl_report_begin_object(w);
  cl_report_key(w, "kind");
  cl_report_string(w, cudaload_problem_kind_name(p->kind));
  cl_report_key(w, p->note ? "note" : "problem");
  cl_report_string(w, p->text);
  cl_report_key(w, "facts");
  cl_report_begin_object(w);
  for (int f = 1; f < CL_FACT_SLOTS; ++f)
    if (p->facts[f] && cudaload_fact_name(f)) {
      cl_report_key(w, cudaload_fact_name(f));
      cl_report_begin_object(w);
      cl_report_key(w, "value");
      cl_report_string(w, p->facts[f]);
      cl_report_key(w, "from");
      cl_report_string(w, cudaload_fact_source_name(p->sources[f]));
      cl_report_end_object(w);
    }
  cl_report_end_object(w);
  cl_report_key(w, "fix");
  cl_report_begin_array(w);
  for (size_t i = 0; i < p->fix.count; ++i) {
    const cl_fix_step *s = &p->fix.steps[i];
    cl_report_begin_object(w);
    cl_report_key(w, "action");
    cl_report_string(w, cl_fix_action_name(s->action));
    if (s->argc || s->env_count) {
      cl_report_key(w, "argv");
      cl_report_begin_array(w);
      for (size_t k = 0; k < s->argc; ++k)
        cl_report_string(w, s->argv[k]);
      cl_report_end_array(w);
      cl_report_key(w, "env");
      cl_report_begin_object(w);
      for (size_t k = 0; k < s->env_count; ++k) {
        const char *eq = strchr(s->env[k], '=');
        char *name = cl_strndup(s->env[k], eq ? (size_t)(eq - s->env[k])
                                              : strlen(s->env[k]));
        cl_report_key(w, name ? name : "");
        cl_report_string(w, eq ? eq + 1 : "");
        free(name);
      }
      cl_report_end_object(w);
    }
    if (s->note) {
      cl_report_key(w, "note");
      cl_report_string(w, s->note);
    }
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
  cl_report_key(w, "fix_text");
  cl_report_string(w, p->fix_text);
  cl_report_end_object(w);
}

/* Every problem, then every note. */
static void write_problems(cl_report_writer *w, const cl_doctor *d) {
  for (int notes = 0; notes < 2; ++notes) {
    cl_report_key(w, notes ? "notes" : "problems");
    cl_report_begin_array(w);
    for (size_t i = 0; i < d->problems.count; ++i)
      if (!d->problems.items[i].note == !notes)
        write_problem(w, &d->problems.items[i]);
    cl_report_end_array(w);
  }
}

static void write_environment(cl_report_writer *w, const cl_doctor *d) {
  cl_report_key(w, "environment");
  cl_report_begin_array(w);
  for (size_t i = 0; i < d->knobs.count; ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, d->knobs.items[i].name);
    cl_report_key(w, "value");
    cl_report_string(w, d->knobs.items[i].value);
    cl_report_key(w, "effect");
    cl_report_string(w, d->knobs.items[i].effect);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

char *cl_doctor_structured(const cl_doctor *d, cl_report_format format) {
  const cudaload_ctx *ctx = d->ctx;
  cl_report_writer *w = cl_report_writer_new(format);
  if (!w)
    return NULL;
  cl_report_begin_object(w);
  cl_report_key(w, "schema_version");
  /* 2: the probe in its own schema; 3: problems as records (kind, facts,
   * fix steps). */
  cl_report_int(w, 3);

  write_platform(w);
  write_driver(w, d);
  write_manifest(w, ctx);
  cl_report_write_roots(w, ctx);
  cl_report_write_libraries(w, ctx);

  cl_report_error_messages(w, ctx);
  write_requirements(w, ctx);
  write_plan(w, d);
  write_probe(w, d->probe);
  cl_report_key(w, "watchdog");
  cl_report_watchdog(w, &d->watchdog);
  write_environment(w, d);

  write_problems(w, d);
  cl_report_end_object(w);
  return cl_report_writer_finish(w, NULL);
}
