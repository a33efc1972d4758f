/* SPDX-License-Identifier: MIT */
/*
 * env_warnings.c - what a process started with the composed search-path
 * variable would get, judged by the loader model (verdict.c) in a model of
 * that child: its LD_LIBRARY_PATH (PATH) the composed value, what
 * LD_PRELOAD puts first, nothing else loaded. Each finding is one sentence
 * of cudaload_env_warnings(), the same as explain's and the doctor's; the
 * ones that make the child's loads fail are marked (cudaload_env_warning_
 * fatal()), and `cudaload exec` stops on them unless --force.
 */
#include "common/error.h"
#include "common/strutil.h"
#include "core/context.h"
#include "load/plan_judge.h"
#include "load/resolve.h"
#include "load/verdict.h"
#include "scan/machine.h"
#include "os/platform.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stdlib.h>
#include <string.h>

/* The child: the system's loader, the composed value, this environment's
 * LD_PRELOAD and current folder. */
static int child_model(cudaload_ctx *ctx, cl_loader_model *m,
                       const char *value) {
  int rc = cl_loader_model_init_system(m);
  if (rc)
    return rc;
  cl_naming naming = cl_ctx_naming(ctx);
  if (naming != m->naming) {
    /* A plan for the other OS's names (--target): nothing to model here. */
    cl_loader_model_free(m);
    cl_loader_model_init(m, naming);
  }
  rc = cl_loader_model_set(
      naming == CL_NAMING_WINDOWS ? &m->path : &m->ld_library_path, value);
  char *preload = naming == CL_NAMING_LINUX ? cl_os_getenv("LD_PRELOAD") : NULL;
  if (!rc)
    rc = cl_loader_model_set(&m->ld_preload, preload);
  free(preload);
  return rc;
}

/* The name a program opens a library by: its SONAME, or its file name. */
static const char *open_name(const cl_plan_entry *p) {
  return p->soname && p->soname[0] ? p->soname : cl_path_basename(p->path);
}

/* Another copy of a planned main library, in another folder (a framework's
 * own cuDNN, reached through that framework's RPATH): with the plan's
 * folder first on the search path, what it finds by name changes. */
static int other_copies(cudaload_explain *e, cudaload_ctx *ctx,
                        const char *value) {
  int rc = CUDALOAD_OK;
  for (size_t k = 0; !rc && k < cl_inventory_of(ctx)->library_count; ++k) {
    cl_library *l = &cl_inventory_of(ctx)->libraries[k];
    if (l->entry->role != CL_ROLE_MAIN)
      continue;
    const char *machine = cl_ctx_machine(ctx);
    const char *built = machine ? cl_library_machine(l) : NULL;
    if (built && strcmp(built, machine) != 0)
      continue; /* never loaded by this machine */
    int planned_family = 0, planned_file = 0;
    for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
      const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
      planned_family |= p->entry == l->entry && p->major == l->major;
      planned_file |= strcmp(p->path, l->path) == 0;
    }
    if (!planned_family || planned_file)
      continue;
    /* A program of its own: a process that loads this copy, and not the
     * plan's. */
    cl_loader_model m;
    rc = child_model(ctx, &m, value);
    if (!rc)
      rc = cl_verdict_preloads(e, ctx, &m, 0);
    if (!rc)
      rc = cl_verdict_open(e, ctx, &m, l->path, 0);
    if (!rc)
      cl_verdict_mixes_in(e, &m, "in what a program that loads it would run");
    cl_loader_model_free(&m);
  }
  return rc;
}

static void clear_warnings(cudaload_ctx *ctx) {
  cl_plan_state *ps = ctx->plan_state;
  if (!ps)
    return;
  for (size_t i = 0; i < ps->env_warning_count; ++i)
    free(ps->env_warnings[i]);
  ps->env_warning_count = 0;
  free(ps->env_warning_fatal);
  ps->env_warning_fatal = NULL;
}

/* Whether a finding makes the child's load of a library fail (a needed
 * file not found, symbols the file taken lacks, another library taken). */
static int fails_the_load(const cl_finding *f) {
  return !f->lazy && (f->kind == CL_FINDING_NOT_FOUND ||
                      f->kind == CL_FINDING_UNDEFINED_SYMBOLS ||
                      f->kind == CL_FINDING_WRONG_LIBRARY);
}

/* What put a file first (LD_PRELOAD, /etc/ld.so.preload), or NULL. */
static const char *put_first_by(const cudaload_explain *e, const char *path) {
  for (size_t i = 0; path && i < e->object_count; ++i)
    if (e->objects[i].put_first_by && strcmp(e->objects[i].path, path) == 0)
      return e->objects[i].put_first_by;
  return NULL;
}

static int keep_findings(cudaload_ctx *ctx, const cudaload_explain *e) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  size_t n = e->finding_count;
  if (!n)
    return CUDALOAD_OK;
  if (cl_reserve((void **)&ps->env_warnings, &ps->env_warning_capacity, n,
                 sizeof *ps->env_warnings) ||
      !(ps->env_warning_fatal = calloc(n, sizeof *ps->env_warning_fatal)))
    return CUDALOAD_E_NO_MEMORY;
  int second_major = 0;
  for (size_t r = 0; r < ps->outcome_count; ++r)
    second_major |= ps->outcomes[r].second_major != 0;
  for (size_t i = 0; i < n; ++i) {
    const cl_finding *f = &e->findings[i];
    /* A second CUDA major the plan took on purpose is the plan's to say. */
    if (f->kind == CL_FINDING_CUDA_MAJORS && second_major)
      continue;
    const char *first_by = put_first_by(e, f->taken);
    char *text =
        first_by ? cl_strdup_printf("%s; %s keeps %s first in the started "
                                    "program (it inherits the variable); "
                                    "fix: drop that entry from %s%s%s",
                                    f->text, first_by, f->taken, first_by,
                                    f->better ? ", and let cudaload plan " : "",
                                    f->better ? f->better : "")
        : f->fix ? cl_strdup_printf("%s; fix: %s", f->text, f->fix)
                 : cl_strdup(f->text);
    if (!text)
      return CUDALOAD_E_NO_MEMORY;
    ps->env_warning_fatal[ps->env_warning_count] = fails_the_load(f);
    ps->env_warnings[ps->env_warning_count++] = text;
  }
  return CUDALOAD_OK;
}

int cudaload_env_warnings(cudaload_ctx *ctx, size_t *count) {
  cl_clear_error();
  if (count)
    *count = 0;
  if (!ctx || !count)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_env_warnings: NULL %s", ctx ? "count" : "ctx");
  clear_warnings(ctx);
  int rc = cl_plan_state_of(ctx)->planned ? CUDALOAD_OK : cudaload_plan(ctx, 0);
  if (rc != CUDALOAD_OK && rc != CUDALOAD_E_UNSATISFIED)
    return rc;
  const char *value = cl_plan_state_of(ctx)->env_value;
  if (!value) {
    char *current = cl_os_getenv(cudaload_env_name());
    rc = cudaload_env_value(ctx, current, &value);
    free(current);
    if (rc)
      return rc;
  }
  cl_loader_model m;
  cudaload_explain *e = cl_verdict_new();
  /* Its objects are never printed: only the versions a finding compares
   * are read (a wheel's means listing site-packages). */
  if (e)
    e->defer_wheel_versions = 1;
  rc = e ? child_model(ctx, &m, value) : CUDALOAD_E_NO_MEMORY;
  if (rc == CUDALOAD_OK) {
    /* What LD_PRELOAD puts first, then each required library opened by
     * name, as the program's own DT_NEEDED or dlopen opens it, then the
     * other copies of the planned families that programs load by path. */
    rc = cl_verdict_preloads(e, ctx, &m, 0);
    cl_program_set program = cl_program_set_of(ctx);
    /* A program known by its files or by what its packages load
     * themselves (JAX's plugin: consumers.c) opens what they open. */
    int known = program.file_count || program.preload_count;
    if (!rc)
      rc = cl_verdict_open_program(e, ctx, &m, &program, CL_VERDICT_CONSUMER);
    for (size_t i = 0; !rc && !known && i < cl_plan_state_of(ctx)->plan_count;
         ++i) {
      const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
      if (p->entry->role == CL_ROLE_MAIN &&
          p->requirement < cl_plan_state_of(ctx)->requirement_count)
        rc = cl_verdict_open_by_name(e, ctx, &m, NULL, open_name(p), 0);
    }
    if (!rc)
      cl_verdict_mixes_in(e, &m, "in what the program would load");
    cl_loader_model_free(&m);
    /* Without a program, the other copies are what programs may load;
     * with one, its own files and loads say what it loads. */
    if (!rc && !known)
      rc = other_copies(e, ctx, value);
  }
  if (!rc)
    cl_plan_absorb_findings(ctx, e);
  if (!rc)
    rc = keep_findings(ctx, e);
  cudaload_explain_free(e);
  if (rc)
    return rc == CUDALOAD_E_NO_MEMORY
               ? cl_fail(rc, "cudaload_env_warnings: out of memory")
               : rc;
  cl_clear_error(); /* an unsatisfied plan still has its folders */
  *count = cl_plan_state_of(ctx)->env_warning_count;
  return CUDALOAD_OK;
}

const char *cudaload_env_warning(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->env_warning_count ? ps->env_warnings[i] : NULL;
}

int cudaload_env_warning_fatal(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->env_warning_count && ps->env_warning_fatal
             ? ps->env_warning_fatal[i]
             : 0;
}
