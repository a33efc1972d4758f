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
#include "common/buf.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strutil.h"
#include "core/context.h"
#include "load/plan_judge.h"
#include "loader/resolve.h"
#include "load/verdict.h"
#include "scan/machine.h"
#include "os/platform.h"
#include "scan/inventory.h"
#include "load/plan_state.h"
#include "load/env_child.h"
#include "common/reason_words.h"

#include <stdlib.h>
#include <string.h>

/* The child: the system's loader, the composed value, the LD_PRELOAD it
 * will have (preload: this environment's, less what exec drops, after what
 * it adds) and this current folder. */
static int child_model(cudaload_ctx *ctx, cl_loader_model *m, const char *value,
                       const char *preload) {
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
  if (!rc && naming == CL_NAMING_LINUX)
    rc = cl_loader_model_set(&m->ld_preload, preload);
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
                        const char *value, const char *preload) {
  int rc = CUDALOAD_OK;
  for (size_t k = 0; !rc && k < cl_inventory_of(ctx)->library_count; ++k) {
    cl_library *l = &cl_inventory_of(ctx)->libraries[k];
    if (l->entry->role != CL_ROLE_MAIN)
      continue;
    const char *machine = cl_ctx_machine(ctx);
    const char *built = machine ? cl_library_machine(ctx, l) : NULL;
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
    rc = child_model(ctx, &m, value, preload);
    if (!rc)
      rc = cl_verdict_preloads(e, ctx, &m, 0);
    if (!rc)
      rc = cl_verdict_open(e, ctx, &m, l->path, 0);
    if (!rc)
      cl_verdict_mixes_in(e, &m, CL_AMONG_USER);
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
    int variable = first_by && strcmp(first_by, "LD_PRELOAD") == 0;
    char *text =
        first_by
            ? cl_strdup_printf(
                  CL_WORDS_KEEPS_FIRST_IN_THE_STARTED, f->text, first_by,
                  f->taken, first_by,
                  f->better ? CL_WORDS_AND_LET_CUDALOAD_PLAN : "",
                  f->better ? f->better : "",
                  variable ? CL_WORDS_CUDALOAD_EXEC_DROP_STALE_PRELOAD : "")
        : f->fix ? cl_strdup_printf("%s; fix: %s", f->text, f->fix)
                 : cl_strdup(f->text);
    if (!text)
      return CUDALOAD_E_NO_MEMORY;
    ps->env_warning_fatal[ps->env_warning_count] = fails_the_load(f);
    ps->env_warnings[ps->env_warning_count++] = text;
  }
  return CUDALOAD_OK;
}

/* Whether the program is known by its files or by what its packages load
 * themselves: then those say what it opens. */
static int program_known(const cudaload_ctx *ctx) {
  cl_program_set program = cl_program_set_of(ctx);
  return program.file_count || program.preload_count;
}

/* One judgement of the child: LD_LIBRARY_PATH (PATH) value, LD_PRELOAD
 * preload. with_copies: also the other copies of the planned families,
 * each in a process of its own (when the program is not known). */
static int judge_child(cudaload_ctx *ctx, const char *value,
                       const char *preload, int with_copies,
                       cudaload_explain **out) {
  *out = NULL;
  cl_loader_model m;
  cudaload_explain *e = cl_verdict_new();
  if (!e)
    return CUDALOAD_E_NO_MEMORY;
  /* Its objects are never printed: only the versions a finding compares
   * are read (a wheel's means listing site-packages). */
  e->defer_wheel_versions = 1;
  int rc = child_model(ctx, &m, value, preload);
  if (rc == CUDALOAD_OK) {
    /* What LD_PRELOAD puts first, then each required library opened by
     * name, as the program's own DT_NEEDED or dlopen opens it, then the
     * other copies of the planned families that programs load by path. */
    rc = cl_verdict_preloads(e, ctx, &m, 0);
    cl_program_set program = cl_program_set_of(ctx);
    /* A program known by its files or by what its packages load
     * themselves (JAX's plugin: consumers.c) opens what they open. */
    int known = program_known(ctx);
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
      cl_verdict_mixes_in(e, &m, CL_AMONG_PROGRAM);
    cl_loader_model_free(&m);
    /* Without a program, the other copies are what programs may load;
     * with one, its own files and loads say what it loads. */
    if (!rc && with_copies && !known)
      rc = other_copies(e, ctx, value, preload);
  }
  if (rc) {
    cudaload_explain_free(e);
    return rc;
  }
  *out = e;
  return CUDALOAD_OK;
}

/* Whether two paths name one file. */
static int same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return 1;
  cl_file_identity ia, ib;
  return cl_os_file_identity(a, &ia) && cl_os_file_identity(b, &ib) &&
         ia.device == ib.device && ia.inode == ib.inode;
}

/* Whether LD_PRELOAD's entry names the file at path: that path, the same
 * file through another, or (an entry the loader searches by name) its file
 * name. */
static int entry_names(const char *entry, const char *path) {
  if (!strchr(entry, '/'))
    return strcmp(entry, cl_path_basename(path)) == 0;
  return same_file(entry, path);
}

/* Append entry to the list being built (glibc splits LD_PRELOAD at colons
 * and spaces; a colon joins the entries written here). */
static void append_entry(cl_buf *b, const char *entry, size_t n) {
  if (b->len)
    cl_buf_puts(b, ":");
  cl_buf_append(b, entry, n);
}

/* The child's LD_PRELOAD without the entries that put first a file the
 * verdict says makes a load fail (a stale copy: exec --drop-stale-preload),
 * each dropped one named in *dropped ("a, b"). NULL when nothing is
 * dropped (*dropped NULL); "" when every entry goes. */
static char *drop_stale(const cudaload_explain *e, const char *preload,
                        char **dropped) {
  *dropped = NULL;
  cl_buf kept = CL_BUF_INIT, gone = CL_BUF_INIT;
  const char *separators = " :\t\n\r";
  for (const char *p = preload; p && *p;) {
    size_t n = strcspn(p, separators);
    char *entry = n ? cl_strndup(p, n) : NULL;
    int stale = 0;
    for (size_t i = 0; entry && i < e->finding_count && !stale; ++i) {
      const cl_finding *f = &e->findings[i];
      stale = fails_the_load(f) && f->taken && put_first_by(e, f->taken) &&
              !strcmp(put_first_by(e, f->taken), "LD_PRELOAD") &&
              entry_names(entry, f->taken);
    }
    if (entry && stale) {
      if (gone.len)
        cl_buf_puts(&gone, ", ");
      cl_buf_puts(&gone, entry);
    } else if (n) {
      append_entry(&kept, p, n);
    }
    if (n && !entry)
      kept.failed = 1;
    free(entry);
    p += n;
    p += strspn(p, separators);
  }
  if (!gone.len) {
    cl_buf_free(&kept);
    cl_buf_free(&gone);
    return NULL;
  }
  *dropped = cl_buf_take(&gone);
  char *rest =
      kept.len ? cl_buf_take(&kept) : (cl_buf_free(&kept), cl_strdup(""));
  if (!*dropped || !rest) {
    free(*dropped);
    free(rest);
    *dropped = NULL;
    return NULL;
  }
  return rest;
}

/* The planned files a file of the child takes another copy of (its
 * DT_RPATH reaches its own folder, which comes before LD_LIBRARY_PATH;
 * the executable's RPATH; an object already loaded under the name): the
 * search-path variable cannot make the plan win there, an object loaded
 * first can. Their absolute paths in plan order, joined for LD_PRELOAD,
 * and in *why one example ("X takes Y by rule rpath"); NULL when none. */
static char *outranked(cudaload_ctx *ctx, const cudaload_explain *e,
                       char **why) {
  *why = NULL;
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf files = CL_BUF_INIT;
  for (size_t i = 0; i < ps->plan_count; ++i) {
    const cl_plan_entry *p = &ps->plan[i];
    if (!p->to_load || p->state == CUDALOAD_STATE_FAILED || !p->path)
      continue;
    const char *name = open_name(p);
    const cl_explain_object *by = NULL;
    const cl_explain_need *need = NULL;
    for (size_t k = 0; k < e->object_count && !need; ++k)
      for (size_t n = 0; n < e->objects[k].need_count && !need; ++n) {
        const cl_explain_need *x = &e->objects[k].needs[n];
        /* A copy LD_PRELOAD or /etc/ld.so.preload puts first is the
         * user's: its finding stops exec, or --drop-stale-preload drops
         * it; loading the plan's beside it would map both. */
        if (x->path && strcmp(x->name, name) == 0 &&
            !same_file(x->path, p->path) && !put_first_by(e, x->path)) {
          need = x;
          by = &e->objects[k];
        }
      }
    if (!need)
      continue;
    append_entry(&files, p->path, strlen(p->path));
    if (!*why)
      *why = cl_strdup_printf(CL_WORDS_WOULD_TAKE_INSTEAD_OF_THE, by->path,
                              need->path, need->rule ? " by rule " : "",
                              need->rule ? need->rule : "", p->path);
  }
  if (!files.len) {
    cl_buf_free(&files);
    free(*why);
    *why = NULL;
    return NULL;
  }
  return cl_buf_take(&files);
}

/* A warning that stops nothing (what exec changes for the child). */
static int add_note_warning(cudaload_ctx *ctx, char *text) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps) {
    free(text);
    return CUDALOAD_E_NO_MEMORY;
  }
  return cl_plan_state_add_env_warning(ps, text, 0);
}

/* The child's LD_PRELOAD: what exec adds (the outranked planned files),
 * then what it keeps of this environment's. malloc'ed; NULL when empty. */
static char *joined_preload(const char *added, const char *kept) {
  int a = added && *added, k = kept && *kept;
  if (a && k)
    return cl_strdup_printf("%s:%s", added, kept);
  return a ? cl_strdup(added) : k ? cl_strdup(kept) : NULL;
}

int cudaload_env_check(cudaload_ctx *ctx, unsigned flags, size_t *count) {
  cl_clear_error();
  if (count)
    *count = 0;
  if (!ctx || !count)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_env_check: NULL %s",
                   ctx ? "count" : "ctx");
  if (flags & ~(unsigned)CUDALOAD_ENV_DROP_STALE_PRELOAD)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_env_check: unknown flags 0x%x", flags);
  clear_warnings(ctx);
  if (ctx->plan_state)
    cl_plan_state_clear_env_changes(ctx->plan_state);
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
  int linux_child = cl_ctx_naming(ctx) == CL_NAMING_LINUX;
  char *inherited = linux_child ? cl_os_getenv("LD_PRELOAD") : NULL;
  char *kept = inherited ? cl_strdup(inherited) : NULL;
  char *added = NULL, *dropped = NULL, *why = NULL;
  cudaload_explain *e = NULL;
  rc = inherited && !kept ? CUDALOAD_E_NO_MEMORY
                          : judge_child(ctx, value, kept, 0, &e);
  /* A stale copy LD_PRELOAD puts first, dropped from the child's when the
   * caller asks (exec --drop-stale-preload); else it stays, and its
   * finding stops exec. */
  if (!rc && kept && (flags & CUDALOAD_ENV_DROP_STALE_PRELOAD)) {
    char *rest = drop_stale(e, kept, &dropped);
    if (rest) {
      free(kept);
      kept = rest;
      cudaload_explain_free(e);
      rc = judge_child(ctx, value, kept, 0, &e);
    }
  }
  /* A planned file a consumer takes from another copy, which the search
   * path cannot beat (its RPATH comes first): the child preloads it, as
   * cudaload_preload() does in-process (docs/cli.md, "exec"). */
  if (!rc && linux_child)
    added = outranked(ctx, e, &why);
  /* The verdict kept: under the child's LD_PRELOAD, and without a program
   * the other copies too (with one, the judgement above is that). */
  int again = added || !program_known(ctx);
  if (!rc) {
    char *both = joined_preload(added, kept);
    if (again) {
      cudaload_explain_free(e);
      e = NULL;
      int some = (added && *added) || (kept && *kept);
      rc = some && !both ? CUDALOAD_E_NO_MEMORY
                         : judge_child(ctx, value, both, 1, &e);
    }
    /* What exec sets for the child, where it differs from this
     * environment's. */
    int same = (!both && !inherited) ||
               (both && inherited && strcmp(both, inherited) == 0);
    cl_plan_state *ps = !rc && !same ? cl_plan_state_make(ctx) : NULL;
    if (!rc && !same)
      rc = ps ? cl_plan_state_add_env_change(ps, "LD_PRELOAD", both)
              : CUDALOAD_E_NO_MEMORY;
    free(both);
  }
  if (!rc)
    cl_plan_absorb_findings(ctx, e);
  if (!rc)
    rc = keep_findings(ctx, e);
  if (!rc && dropped)
    rc = add_note_warning(
        ctx, cl_strdup_printf(CL_WORDS_THE_STARTED_PROGRAM_S_LD, dropped));
  if (!rc && added)
    rc = add_note_warning(
        ctx,
        cl_strdup_printf(CL_WORDS_THE_STARTED_PROGRAM_GETS_LD, added,
                         kept && *kept ? ":" : "", kept ? kept : "",
                         why ? why : CL_WORDS_A_CONSUMER_WOULD_TAKE_ANOTHER));
  if (!rc)
    rc = cl_env_child_variables(ctx);
  cudaload_explain_free(e);
  free(inherited);
  free(kept);
  free(added);
  free(dropped);
  free(why);
  if (rc)
    return rc == CUDALOAD_E_NO_MEMORY
               ? cl_fail(rc, "cudaload_env_check: out of memory")
               : rc;
  cl_clear_error(); /* an unsatisfied plan still has its folders */
  *count = cl_plan_state_of(ctx)->env_warning_count;
  return CUDALOAD_OK;
}

static int env_warnings_held(cudaload_ctx *ctx, size_t *count);

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_env_warnings(cudaload_ctx *ctx, size_t *count) {
  int rc = env_warnings_held(ctx, count);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int env_warnings_held(cudaload_ctx *ctx, size_t *count) {
  if (!ctx || !count) {
    cl_clear_error();
    if (count)
      *count = 0;
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_env_warnings: NULL %s", ctx ? "count" : "ctx");
  }
  return cudaload_env_check(ctx, 0, count);
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
