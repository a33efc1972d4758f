/* SPDX-License-Identifier: MIT */
/*
 * preload.c - apply a plan by loading its files by absolute path, once per
 * process, reporting file by file. The OS specifics are behind loader.h.
 */
#include "core/context.h"
#include "load/plan.h"
#include "load/plan_judge.h"
#include "binary/file_cache.h"
#include "loader/resolve.h"
#include "common/buf.h"
#include "common/error.h"
#include "loader/bind.h"
#include "load/library_open.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "load/plan_state.h"
#include "problem/fix_words.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every file cudaload loaded in this process. Loads cannot be undone, so
 * the registry only grows; it lives under cl_os_loader_lock(). */
static char **loaded_paths;
static size_t loaded_count, loaded_capacity;

static int registry_has(const char *path) {
  for (size_t i = 0; i < loaded_count; ++i)
    if (strcmp(loaded_paths[i], path) == 0)
      return 1;
  return 0;
}

static void registry_add(const char *path) {
  char *copy = cl_strdup(path);
  if (!copy || cl_reserve((void **)&loaded_paths, &loaded_capacity,
                          loaded_count + 1, sizeof(char *))) {
    free(copy); /* only costs a redundant, harmless reload check later */
    return;
  }
  loaded_paths[loaded_count++] = copy;
}

static void set_loaded_path(cl_plan_entry *p, const char *path) {
  char *copy = cl_strdup(path);
  if (copy) {
    free(p->loaded_path);
    p->loaded_path = copy;
  }
}

/* Set the last error to the report; when memory ran out while it was
 * written, say so rather than lose part of it in silence. */
static void fail_with_report(int status, cl_buf *r) {
  int lost = r->failed;
  char *text = cl_buf_take(r);
  if (text && !lost)
    cl_fail(status, "%s", text);
  else
    cl_fail(status, "%s (the file-by-file report was lost: out of memory)",
            cudaload_strerror(status));
  free(text);
}

/* Put the folder of path where the OS loader searches for what a library
 * opens by name later (Windows: PATH and AddDllDirectory). Returns 1 when
 * it is there; 0 when PATH could not take it (a name with ';', which PATH
 * cannot quote; PATH at Windows' length limit), with *reason (malloc'ed,
 * when reason is not NULL) saying why: the caller then preloads by
 * absolute path what would be opened from it by name. The caller's last
 * error is kept. */
static int expose_folder_of(const char *path, char **reason) {
  if (reason)
    *reason = NULL;
  char *folder = cl_path_dirname(path);
  if (!folder)
    return 1; /* out of memory: the load itself will say what is missing */
  char *warning = NULL;
  cl_asking refused; /* why PATH cannot take it: *reason, as data */
  cl_asking_begin(&refused);
  int status = cl_os_loader_expose_folder(folder, &warning);
  cl_asking_end(&refused);
  int exposed = status == CUDALOAD_OK && !warning;
  if (!exposed && reason)
    *reason = warning ? warning : cl_strdup(refused.reason);
  else
    free(warning);
  free(folder);
  return exposed;
}

/* The folders whose by-name opens a preload had to make by absolute path,
 * for one plan warning each. */
typedef struct unexposed {
  char *folder, *reason;
  cl_buf names;
} unexposed;

static void note_unexposed(unexposed **list, size_t *count, size_t *capacity,
                           const char *path, char *reason) {
  char *folder = cl_path_dirname(path);
  for (size_t i = 0; folder && i < *count; ++i)
    if (!strcmp((*list)[i].folder, folder)) {
      cl_buf_printf(&(*list)[i].names, ", %s", cl_path_basename(path));
      free(folder);
      free(reason);
      return;
    }
  if (!folder ||
      cl_reserve((void **)list, capacity, *count + 1, sizeof **list)) {
    free(folder);
    free(reason);
    return; /* out of memory: the files were still preloaded */
  }
  unexposed *u = &(*list)[(*count)++];
  u->folder = folder;
  u->reason = reason;
  u->names = (cl_buf)CL_BUF_INIT;
  cl_buf_printf(&u->names, "%s", cl_path_basename(path));
}

/* Say, once per folder, what was preloaded because PATH could not take its
 * folder, and free the list. */
static void warn_unexposed(cudaload_ctx *ctx, unexposed *list, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    char *names = cl_buf_take(&list[i].names);
    cl_problem p;
    cl_problem_init(&p, CUDALOAD_PROBLEM_UNEXPOSED);
    cl_problem_fact(NULL, &p, CUDALOAD_FACT_PATH, CUDALOAD_FROM_MACHINE,
                    list[i].folder);
    cl_problem_fact(NULL, &p, CUDALOAD_FACT_REASON, CUDALOAD_FROM_MACHINE,
                    list[i].reason);
    cl_problem_fact(NULL, &p, CUDALOAD_FACT_NAME, CUDALOAD_FROM_MACHINE, names);
    cl_fix_add_note(&p.fix, CL_NOTE_PRELOADED_BY_ABSOLUTE_PATH,
                    names ? names : "?");
    cl_plan_add_warning(ctx, &p, list[i].folder);
    free(names);
    free(list[i].folder);
    free(list[i].reason);
  }
  free(list);
}

/* Load one entry; returns 0, or 1 when the OS loader refused it. */
static int load_entry(cl_plan_entry *p, cl_open_mode mode, cl_buf *failures) {
  if (registry_has(p->path)) {
    p->state = CUDALOAD_STATE_LOADED;
    set_loaded_path(p, p->path);
    return 0;
  }
  /* What the process already has under this name: loading a second copy
   * by path would give two copies of one library's state. */
  char *present = cl_os_loader_find_loaded(p->soname);
  if (present) {
    /* unresolvable: the loader's own name */
    char *real = cl_os_real_path_quiet(present, NULL);
    int same = strcmp(real ? real : present, p->path) == 0;
    p->state =
        same ? CUDALOAD_STATE_ALREADY_LOADED : CUDALOAD_STATE_LOADED_ELSEWHERE;
    set_loaded_path(p, real ? real : present);
    free(real);
    free(present);
    return 0;
  }
  expose_folder_of(p->path, NULL);
  if (cl_library_open(p->path, mode)) {
    p->state = CUDALOAD_STATE_LOADED;
    set_loaded_path(p, p->path);
    registry_add(p->path);
    return 0;
  }
  p->state = CUDALOAD_STATE_FAILED;
  /* The loader's message starts with the path already (dlerror(), and
   * cl_os_loader_open's for Windows): not twice. */
  const char *error = cudaload_last_error();
  size_t n = strlen(p->path);
  if (strncmp(error, p->path, n) == 0 && error[n] == ':')
    cl_buf_printf(failures, "  %s\n", error);
  else
    cl_buf_printf(failures, "  %s: %s\n", p->path, error);
  return 1;
}

static void say_plan(cl_buf *r, const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf_printf(r, CL_WORDS_PLAN_FILE_BY_FILE);
  for (size_t i = 0; i < ps->plan_count; ++i)
    cl_buf_printf(r, "  %-16s %s%s%s\n",
                  cudaload_plan_state_name(ps->plan[i].state), ps->plan[i].path,
                  ps->plan[i].state == CUDALOAD_STATE_LOADED_ELSEWHERE ? " -> "
                                                                       : "",
                  ps->plan[i].state == CUDALOAD_STATE_LOADED_ELSEWHERE
                      ? ps->plan[i].loaded_path
                      : "");
}

/* The plan is known to fail before anything is loaded: load nothing and
 * say so first, then why (the plan's own explanation), then the plan.
 * Takes `unsatisfied` (the plan's last error, or NULL: none, or out of
 * memory copying it). */
static int refuse_plan(cudaload_ctx *ctx, int plan_rc, char *unsatisfied) {
  cl_buf r = CL_BUF_INIT;
  int status = plan_rc != CUDALOAD_OK ? plan_rc : CUDALOAD_E_CONFLICT;
  cl_buf_printf(&r, CL_WORDS_NOTHING_WAS_LOADED_AND_A,
                plan_rc != CUDALOAD_OK ? CL_WORDS_A_REQUIREMENT_IS_UNSATISFIED
                                       : CL_WORDS_A_CONFLICT_IS_KNOWN_BEFORE);
  if (unsatisfied)
    cl_buf_printf(&r, "%s", unsatisfied);
  if (unsatisfied && unsatisfied[0] &&
      unsatisfied[strlen(unsatisfied) - 1] != '\n')
    cl_buf_printf(&r, "\n");
  for (size_t i = 0; i < cl_plan_state_of(ctx)->conflict_count; ++i)
    cl_buf_printf(&r, "conflict: %s\n",
                  cl_plan_state_of(ctx)->conflicts[i].text);
  say_plan(&r, ctx);
  fail_with_report(status, &r);
  free(unsatisfied);
  return status;
}

/* The loader model says the plan would fail in this process (a needed file
 * not found, a file taken that lacks symbols its consumer takes, an older
 * copy the process already has): load nothing, say why and the fix. */
static int refuse_judged(cudaload_ctx *ctx, const cl_plan_judgement *j) {
  cl_buf r = CL_BUF_INIT;
  cl_buf_printf(&r, CL_WORDS_NOTHING_WAS_LOADED_AND_A_PRELOAD,
                j->status == CUDALOAD_E_CONFLICT
                    ? CL_WORDS_THE_PROCESS_ALREADY_HAS_A
                    : CL_WORDS_THE_LOADER_WOULD_REFUSE_THE,
                j->why ? j->why : "");
  say_plan(&r, ctx);
  fail_with_report(j->status, &r);
  return j->status;
}

/* The plan judged by the loader model in this process, before anything is
 * loaded: what would fail refuses it (all or nothing), the rest are plan
 * warnings. *refused: the status of a refusal, 0 when it may go on. */
static int judge_in_this_process(cudaload_ctx *ctx, unsigned flags,
                                 cl_plan_judgement *j) {
  cl_loader_model m;
  /* no model: the loader itself will judge */
  int rc = cl_loader_model_init_host_quiet(&m);
  if (rc == CUDALOAD_OK) {
    rc = cl_plan_judge(ctx, &m, flags, j);
    cl_loader_model_free(&m);
  }
  return rc == CUDALOAD_E_NO_MEMORY ? rc : CUDALOAD_OK;
}

/* Say file by file what happened, so nothing is half-done in silence: the
 * last error of a preload that did not get the whole plan in. Returns its
 * status: unsatisfied, a load failed, or another major in the global
 * scope. */
static int report_preload(const cudaload_ctx *ctx, int plan_rc,
                          const char *unsatisfied, size_t failed,
                          const cl_buf *failures) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf r = CL_BUF_INIT;
  int status;
  if (plan_rc != CUDALOAD_OK) {
    status = CUDALOAD_E_UNSATISFIED;
    cl_buf_printf(&r, "%s", unsatisfied ? unsatisfied : "");
  } else if (failed) {
    status = CUDALOAD_E_LOAD_FAILED;
    cl_buf_printf(&r, CL_WORDS_OF_THE_PLANNED_FILES_COULD, failed,
                  failures->data ? failures->data : "");
  } else {
    status = CUDALOAD_E_CONFLICT;
    for (size_t i = 0; i < ps->conflict_count; ++i)
      cl_buf_printf(&r, "conflict: %s\n", ps->conflicts[i].text);
  }
  if (plan_rc != CUDALOAD_OK && failed)
    cl_buf_printf(&r, CL_WORDS_ALSO_PLANNED_FILES_COULD_NOT, failed,
                  failures->data ? failures->data : "");
  say_plan(&r, ctx);
  r.failed |= failures->failed; /* a failure's line was lost */
  if (ps->plan_count == 0)
    cl_buf_printf(&r, CL_WORDS_NOTHING_WAS_LOADED);
  fail_with_report(status, &r);
  return status;
}

static int preload_held(cudaload_ctx *ctx, unsigned flags);

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_preload(cudaload_ctx *ctx, unsigned flags) {
  int rc = preload_held(ctx, flags);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int preload_held(cudaload_ctx *ctx, unsigned flags) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_preload: NULL ctx");
  int plan_rc = cudaload_plan(ctx, flags);
  if (plan_rc != CUDALOAD_OK && plan_rc != CUDALOAD_E_UNSATISFIED)
    return plan_rc;
  char *unsatisfied = plan_rc ? cl_strdup(cudaload_last_error()) : NULL;
  /* All or nothing: loads cannot be undone, so a plan that is already known
   * to fail (a requirement without a file, another major in the global
   * scope) must not leave half of itself in the process, where it would
   * decide what a later, corrected call or the program's own imports get.
   * CUDALOAD_PRELOAD_PARTIAL asks for the best effort instead. */
  if (!(flags & CUDALOAD_PRELOAD_PARTIAL) &&
      (plan_rc != CUDALOAD_OK || cl_plan_state_of(ctx)->conflict_count != 0))
    return refuse_plan(ctx, plan_rc, unsatisfied);
  cl_plan_judgement judged;
  memset(&judged, 0, sizeof judged);
  if (plan_rc == CUDALOAD_OK &&
      judge_in_this_process(ctx, flags, &judged) != CUDALOAD_OK) {
    free(unsatisfied);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_preload: out of memory");
  }
  if (judged.status && !(flags & CUDALOAD_PRELOAD_PARTIAL)) {
    int status = refuse_judged(ctx, &judged);
    cl_plan_judgement_free(&judged);
    free(unsatisfied);
    return status;
  }
  cl_plan_judgement_free(&judged);
  /* What judging searched, kept before the loads (which may not return). */
  cl_file_cache_save(ctx->file_cache);
  /* Nor are the files it read held open while the loader maps them. */
  cl_file_cache_release(ctx->file_cache);
  cl_open_mode mode =
      (flags & CUDALOAD_PRELOAD_GLOBAL) ? CL_OPEN_GLOBAL : CL_OPEN_LOCAL;
  cl_buf failures = CL_BUF_INIT;
  size_t failed = 0;
  unexposed *unexposed_list = NULL;
  size_t unexposed_count = 0, unexposed_capacity = 0;
  cl_os_loader_lock();
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count; ++i) {
    cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    char *reason = NULL;
    if (p->to_load) {
      /* One its main library opens by name later, loaded by path because
       * PATH cannot take its folder: said, as below. */
      if ((p->opened_by || p->entry->role == CL_ROLE_SUB) &&
          !(flags & CUDALOAD_PRELOAD_ALL_SUBLIBS) &&
          !expose_folder_of(p->path, &reason))
        note_unexposed(&unexposed_list, &unexposed_count, &unexposed_capacity,
                       p->path, reason);
      failed += (size_t)load_entry(p, mode, &failures);
    } else if (!expose_folder_of(p->path, &reason)) {
      /* Its main library opens it by name later, which needs its folder on
       * PATH (Windows); where PATH cannot take the folder, a silent success
       * would leave that open to fail: load it by absolute path now, and
       * say so. */
      failed += (size_t)load_entry(p, mode, &failures);
      note_unexposed(&unexposed_list, &unexposed_count, &unexposed_capacity,
                     p->path, reason);
    }
  }
  cl_os_loader_unlock();
  warn_unexposed(ctx, unexposed_list, unexposed_count);
  cl_plan_detect_conflicts(ctx);

  if (plan_rc == CUDALOAD_OK && !failed &&
      cl_plan_state_of(ctx)->conflict_count == 0) {
    cl_buf_free(&failures);
    cl_clear_error();
    return CUDALOAD_OK;
  }
  int status = report_preload(ctx, plan_rc, unsatisfied, failed, &failures);
  cl_buf_free(&failures);
  free(unsatisfied);
  return status;
}

void *cudaload_dlopen_isolated(const char *path) {
  cl_clear_error();
  if (!path || !cl_os_path_is_absolute(path)) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
            "cudaload_dlopen_isolated: \"%s\" is not an absolute path",
            path ? path : "(null)");
    return NULL;
  }
  cl_os_loader_lock();
  void *handle = cl_library_open(path, CL_OPEN_DEEPBIND);
  cl_os_loader_unlock();
  return handle;
}

int cudaload_open_isolated(cudaload_ctx *ctx, const char *path, unsigned flags,
                           void **handle) {
  cl_clear_error();
  if (handle)
    *handle = NULL;
  if (!ctx || !handle)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_open_isolated: NULL %s", ctx ? "handle" : "ctx");
  if (!path || !cl_os_path_is_absolute(path))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_open_isolated: \"%s\" is not an absolute path",
                   path ? path : "(null)");
  if (flags & ~CUDALOAD_PRELOAD_ALL_SUBLIBS)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_open_isolated: flags 0x%x: only "
                   "CUDALOAD_PRELOAD_ALL_SUBLIBS is taken (RTLD_GLOBAL would "
                   "put the plan in the scope the consumer is isolated from)",
                   flags);
  /* An unsatisfied plan loads nothing, as a preload would not. */
  int status = cudaload_plan(ctx, flags);
  if (status != CUDALOAD_OK)
    return status;
  /* A conflict in the global scope is why the caller isolates: load the
   * plan RTLD_LOCAL anyway. */
  status = cudaload_preload(ctx, flags | CUDALOAD_PRELOAD_PARTIAL);
  if (status != CUDALOAD_OK && status != CUDALOAD_E_CONFLICT)
    return status;
  *handle = cudaload_dlopen_isolated(path);
  return *handle ? CUDALOAD_OK : CUDALOAD_E_LOAD_FAILED;
}

const char *cudaload_symbol_provider(void *handle, const char *symbol) {
  static CL_THREAD_LOCAL char provider[4096];
  cl_clear_error();
  if (!handle || !symbol) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_symbol_provider: NULL %s",
            handle ? "symbol" : "handle");
    return NULL;
  }
  /* The loader binds the consumer's reference, which may name a version
   * (cudnnCreate@libcudnn.so.8): ask for exactly that, so another major's
   * definition of the same name does not answer (docs/loader.md, "Linux:
   * binding"). A consumer linked -Bsymbolic that defines the symbol binds
   * its own. */
  char *consumer = cl_os_loader_handle_path(handle);
  char *version = NULL;
  int defines = 0, symbolic = 0;
  if (consumer)
    cl_bind_reference_of(consumer, symbol, &version, &defines, &symbolic);
  cl_clear_error();
  char *path = symbolic && defines
                   ? cl_strdup(consumer)
                   : cl_os_loader_symbol_provider(handle, symbol, version);
  free(consumer);
  free(version);
  if (!path)
    return NULL;
  snprintf(provider, sizeof provider, "%s", path);
  free(path);
  return provider;
}
