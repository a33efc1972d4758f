/* SPDX-License-Identifier: MIT */
/*
 * plan_judge.c - a plan's verdict as a decision (plan_judge.h). The
 * sentences are the verdict's (verdict.c): explain, the doctor, preload and
 * exec say the same thing of the same files.
 */
#include "load/plan_judge.h"

#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/plan.h"
#include "load/spec.h"
#include "load/fix_lines.h"
#include "load/verdict.h"
#include "load/verdict_versions.h"
#include "os/platform.h"
#include "scan/inventory.h"
#include "load/plan_state.h"
#include "problem/problem_words.h"
#include "problem/fix_words.h"

#include <stdlib.h>
#include <string.h>

void cl_plan_judgement_free(cl_plan_judgement *j) {
  free(j->why);
  memset(j, 0, sizeof *j);
}

/* Whether a finding makes the open of a planned file fail: a needed name
 * not found, a needed file of another library, or symbols the file taken
 * lacks (glibc's RTLD_NOW and Windows' imports fail at load). What a
 * library opens later, at its first call, only fails that call. */
static int fails_the_load(const cl_finding *f) {
  if (f->lazy)
    return 0;
  return f->kind == CL_FINDING_NOT_FOUND ||
         f->kind == CL_FINDING_UNDEFINED_SYMBOLS ||
         f->kind == CL_FINDING_WRONG_LIBRARY;
}

/* The object m has loaded under name (SONAME or a name it was opened by),
 * or NULL. */
static const cl_loaded_object *loaded_under(const cl_loader_model *m,
                                            const char *name) {
  int windows = m->naming == CL_NAMING_WINDOWS;
  for (size_t i = 0; name && i < m->loaded_count; ++i) {
    const cl_loaded_object *o = &m->loaded[i];
    if (o->soname && (windows ? cl_ascii_equal_nocase(o->soname, name)
                              : strcmp(o->soname, name) == 0))
      return o;
    if (windows && cl_ascii_equal_nocase(cl_path_basename(o->path), name))
      return o;
    for (size_t k = 0; k < o->name_count; ++k)
      if (strcmp(o->names[k], name) == 0)
        return o;
  }
  return NULL;
}

/* Who put a loaded copy of `name` in the process (CUDALOAD_FACT_LOADED_BY):
 * "LD_PRELOAD", or the first loaded object that needs it; "program" (the
 * program, before cudaload ran) when nothing tells. malloc'ed. */
static char *who_loaded(const cl_loader_model *m, const cl_loaded_object *o,
                        const char *name) {
  char *preload = cl_os_getenv("LD_PRELOAD");
  int preloaded =
      preload && (strstr(preload, o->path) || strstr(preload, name));
  free(preload);
  if (preloaded)
    return cl_strdup("LD_PRELOAD");
  for (size_t i = 0; i < m->loaded_count; ++i) {
    const cl_loaded_object *by = &m->loaded[i];
    if (by == o)
      continue;
    cl_binary_info info;
    /* unreadable: it tells nothing */
    int read = cl_file_cache_parse_quiet(NULL, by->path, &info) == CUDALOAD_OK;
    int needs = 0;
    for (size_t k = 0; read && k < info.needed_count && !needs; ++k)
      needs = strcmp(info.needed[k], name) == 0;
    if (read)
      cl_binary_info_free(&info);
    if (needs)
      return cl_strdup(by->path);
  }
  return cl_strdup("program");
}

/* -1, 0, 1 as version a is older, equal or newer than b; 0 when either is
 * unknown. */
static int version_order(const char *a, const char *b) {
  long va[CL_VERSION_PARTS], vb[CL_VERSION_PARTS];
  int na = a ? cl_version_parse(a, va) : 0,
      nb = b ? cl_version_parse(b, vb) : 0;
  if (!na || !nb)
    return 0;
  return cl_version_compare(va, na, vb, nb);
}

static void add_reason(cl_plan_judgement *out, cl_buf *why, int status,
                       const char *text, const char *fix) {
  cl_buf_printf(why, "  %s\n", text);
  if (fix)
    cl_buf_printf(why, "    fix: %s\n", fix);
  /* A conflict with what the process has says more than a load failure. */
  if (out->status != CUDALOAD_E_CONFLICT)
    out->status = status;
  out->count++;
}

/* The same for a problem record (freed here), in its words. */
static int add_reason_of(const cudaload_ctx *ctx, cl_plan_judgement *out,
                         cl_buf *why, int status, cl_problem *p) {
  int rc = cl_problem_words(p, cl_plan_shell(ctx));
  if (!rc)
    add_reason(out, why, status, p->text, p->fix.count ? p->fix_text : NULL);
  cl_problem_free(p);
  return rc;
}

/* A planned file whose name the process already has from another file that
 * is older: cudaload_preload loads no second copy, so whatever needs the
 * name gets the older one. */
/* The package that bundles the file at path (a copy in the folder of a
 * known consumer's library, or a shim the scan noticed: ctranslate2's own
 * cudnn64_9.dll), or NULL. Such a copy is the program's choice. */
static const char *bundled_by(const cudaload_ctx *ctx, const char *path) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  char *folder = cl_path_dirname(path);
  const char *package = NULL;
  for (size_t i = 0; folder && i < inv->shim_count && !package; ++i)
    if (cl_os_same_path(inv->shims[i].path, strlen(inv->shims[i].path), path,
                        strlen(path)))
      package = inv->shims[i].package;
  for (size_t i = 0; folder && i < inv->consumer_count && !package; ++i) {
    char *theirs = cl_path_dirname(inv->consumers[i].path);
    if (theirs &&
        cl_os_same_path(theirs, strlen(theirs), folder, strlen(folder)))
      package = inv->consumers[i].package;
    free(theirs);
  }
  free(folder);
  return package;
}

static void older_copies(cudaload_ctx *ctx, cl_loader_model *m,
                         cudaload_explain *e, cl_plan_judgement *out,
                         cl_buf *why) {
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    const cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    const cl_loaded_object *o = p->to_load ? loaded_under(m, p->soname) : NULL;
    if (!o)
      continue;
    char *real = cl_verdict_real_path(e, o->path);
    int same = real && strcmp(real, p->path) == 0;
    free(real);
    if (same)
      continue;
    int cuda;
    char *have = cl_verdict_version_of(e, ctx, o->path, &cuda);
    char *want = cl_verdict_version_of(e, ctx, p->path, &cuda);
    const char *bundler = bundled_by(ctx, o->path);
    int older = version_order(have, want) < 0;
    char *by = older && !bundler ? who_loaded(m, o, p->soname) : NULL;
    /* The copy the process has, older than the planned one, and who put
     * it there: the program's own (it runs with it, and the plan's other
     * files, the sub-libraries it opens by name, serve it), or one that
     * everything needing the name gets. */
    cl_problem copy;
    cl_problem_init(&copy, by && !strcmp(by, "LD_PRELOAD")
                               ? CUDALOAD_PROBLEM_PRELOADED_COPY
                               : CUDALOAD_PROBLEM_LOADED_COPY);
    cl_problem_fact(NULL, &copy, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE,
                    p->soname);
    cl_problem_fact(NULL, &copy, CUDALOAD_FACT_VERSION, CUDALOAD_FROM_MACHINE,
                    have);
    cl_problem_fact(NULL, &copy, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE,
                    o->path);
    cl_problem_fact(NULL, &copy, CUDALOAD_FACT_OTHER_PATH,
                    CUDALOAD_FROM_MACHINE, p->path);
    cl_problem_fact(NULL, &copy, CUDALOAD_FACT_OTHER_VERSION,
                    CUDALOAD_FROM_MACHINE, want);
    if (older && bundler) {
      cl_problem_fact(NULL, &copy, CUDALOAD_FACT_PACKAGE, CUDALOAD_FROM_MACHINE,
                      bundler);
      cl_fix_add_note(&copy.fix, CL_NOTE_BUNDLER_KEEPS_ITS_COPY, bundler,
                      bundler);
      cl_plan_add_warning(ctx, &copy, o->path);
    } else if (older) {
      cl_problem_fact(NULL, &copy, CUDALOAD_FACT_LOADED_BY,
                      CUDALOAD_FROM_MACHINE, by ? by : "program");
      cl_fix_add_note(&copy.fix, CL_NOTE_LOAD_THE_PLAN_FIRST_OR_REMOVE_THE_COPY,
                      o->path,
                      copy.kind == CUDALOAD_PROBLEM_PRELOADED_COPY
                          ? CL_NOTE_DROP_IT_FROM_LD_PRELOAD
                          : "");
      add_reason_of(ctx, out, why, CUDALOAD_E_CONFLICT, &copy);
    } else {
      cl_problem_free(&copy);
    }
    free(by);
    free(have);
    free(want);
  }
}

/* The plan's own warning about a name opened later that no root holds
 * (plan.c reads the catalog) says what the verdict says of the same file:
 * the verdict's sentence stays, the same in explain and the doctor. */
void cl_plan_absorb_findings(cudaload_ctx *ctx, const cudaload_explain *e) {
  cl_plan_state *ps = ctx->plan_state;
  if (!ps)
    return;
  size_t kept = 0;
  for (size_t i = 0; i < ps->plan_warning_count; ++i) {
    cl_plan_warning *w = &ps->plan_warnings[i];
    int said = 0;
    for (size_t k = 0; k < e->finding_count && !said; ++k) {
      const cl_finding *f = &e->findings[k];
      said = f->kind == CL_FINDING_NOT_FOUND && f->names &&
             strstr(f->names, w->file) != NULL;
    }
    if (said) {
      cl_plan_warning_free(w);
    } else {
      ps->plan_warnings[kept++] = *w;
    }
  }
  ps->plan_warning_count = kept;
}

int cl_plan_finding_in_process(const cl_loader_model *m, const cl_finding *f,
                               cl_problem *out) {
  const cl_loaded_object *o = f->taken && f->rule == CL_RULE_ALREADY_LOADED
                                  ? loaded_under(m, f->name)
                                  : NULL;
  if (!o)
    return 0;
  /* The process had it before the plan: say who put it there. */
  char *by = who_loaded(m, o, f->name);
  int preloaded = by && strcmp(by, "LD_PRELOAD") == 0;
  cl_problem_init(out, preloaded ? CUDALOAD_PROBLEM_PRELOADED_COPY
                                 : CUDALOAD_PROBLEM_LOADED_COPY);
  for (int k = 0; k < CL_FACT_SLOTS; ++k)
    if (f->problem.facts[k])
      cl_problem_fact(NULL, out, k, f->problem.sources[k], f->problem.facts[k]);
  cl_problem_fact(NULL, out, CUDALOAD_FACT_CAUSES, CUDALOAD_FROM_MACHINE,
                  cudaload_problem_kind_name(f->problem.kind));
  cl_problem_fact(NULL, out, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE,
                  o->path);
  cl_problem_fact(NULL, out, CUDALOAD_FACT_LOADED_BY, CUDALOAD_FROM_MACHINE,
                  by ? by : "program");
  const char *has = f->better ? f->better : CL_NOTE_A_NEWER_RELEASE;
  if (preloaded) {
    cl_fix_drop_from_ld_preload_steps(m->ld_preload, o->path, &out->fix);
    cl_fix_add_note(&out->fix, CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST_OR_THE_PLANNED,
                    has);
  } else {
    cl_fix_add_note(&out->fix, CL_NOTE_LOAD_THE_PLAN_FIRST_NEWER_HAS_IT, has);
  }
  free(by);
  if (!out->failed && !out->fix.failed)
    return 1;
  cl_problem_free(out);
  return -1;
}

int cl_plan_judge(cudaload_ctx *ctx, cl_loader_model *m, unsigned flags,
                  cl_plan_judgement *out) {
  memset(out, 0, sizeof *out);
  cudaload_explain *e = NULL;
  int rc = cl_verdict_of_plan(ctx, m, flags, &e);
  if (rc)
    return rc;
  cl_buf why = CL_BUF_INIT;
  cl_plan_absorb_findings(ctx, e);
  older_copies(ctx, m, e, out, &why);
  for (size_t i = 0; i < e->finding_count && !rc; ++i) {
    const cl_finding *f = &e->findings[i];
    if (fails_the_load(f)) {
      cl_problem copy;
      int had = cl_plan_finding_in_process(m, f, &copy);
      if (had < 0) {
        rc = CUDALOAD_E_NO_MEMORY;
        break;
      }
      if (had)
        rc = add_reason_of(ctx, out, &why, CUDALOAD_E_CONFLICT, &copy);
      else
        add_reason(out, &why, CUDALOAD_E_LOAD_FAILED, f->text, f->fix);
      continue;
    }
    /* A second CUDA major the plan took on purpose is the plan's to say. */
    if (f->kind == CL_FINDING_CUDA_MAJORS)
      continue;
    cl_problem p;
    rc = cl_problem_copy(&p, &f->problem);
    if (rc)
      cl_problem_free(&p);
    else
      rc = cl_plan_add_warning(ctx, &p,
                               f->name    ? f->name
                               : f->taken ? f->taken
                                          : f->consumer);
  }
  cudaload_explain_free(e);
  if (!rc && out->count) {
    out->why = cl_buf_take(&why);
    if (!out->why)
      rc = CUDALOAD_E_NO_MEMORY;
  } else {
    cl_buf_free(&why);
  }
  return rc;
}
