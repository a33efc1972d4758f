/* SPDX-License-Identifier: MIT */
/*
 * plan_settle.c - settling a chosen plan: which of its files are loaded
 * (a sub-library or lazy dependency is left to its opener where the
 * loader model says the opener finds it itself, else preloaded by
 * absolute path), each one's reason, and the load order (dependencies
 * first). It runs once the files are chosen (plan.c) and asks the loader
 * model (docs/loader.md), which the choice never does: a file of its own.
 */
#include "load/plan_settle.h"
#include "binary/binary.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "loader/bind.h"
#include "load/plan_paths.h"
#include "load/plan_state.h"
#include "loader/resolve.h"
#include "load/spec.h"
#include "load/verdict.h"
#include "os/platform.h"
#include "scan/inventory.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_reason(cl_plan_entry *p, const char *fmt, ...) CL_PRINTF(2, 3);
static void set_reason(cl_plan_entry *p, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  char *copy = cl_strdup(text);
  if (copy) {
    free(p->reason);
    p->reason = copy;
  }
}

/* A bundled copy of p's main library (same family and major) that the scan
 * found in a <pkg>.libs folder, or NULL. Such a copy opens p by its SONAME,
 * and its RUNPATH leads only to its own folder, which lacks p. */
static const cl_bundled_shim *bundled_shim_of(const cudaload_ctx *ctx,
                                              const cl_plan_entry *p) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  for (size_t i = 0; i < inv->shim_count; ++i)
    if (inv->shims[i].major == p->major &&
        strcmp(inv->shims[i].entry->family, p->entry->family) == 0)
      return &inv->shims[i];
  return NULL;
}

/* Header of plan entry i into info[i] and its SONAME into the entry (the
 * file name when it has none, or cannot be parsed: a file we cannot parse
 * is still planned, the OS loader is the judge, and preload reports what it
 * says). Returns 0 or CUDALOAD_E_NO_MEMORY. */
static int read_header(cudaload_ctx *ctx, size_t i, cl_binary_info *info,
                       int parse) {
  cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
  /* unreadable: the OS loader will judge */
  if (!parse || cl_file_cache_parse_quiet(cl_file_cache_of(ctx), p->path,
                                          &info[i]) != CUDALOAD_OK)
    memset(&info[i], 0, sizeof info[i]);
  const char *soname = info[i].soname && info[i].soname[0]
                           ? info[i].soname
                           : cl_path_basename(p->path);
  free(p->soname);
  p->soname = cl_strdup(soname);
  return p->soname ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* What a main library's NEEDED names are in the catalog, matched once per
 * plan (a plan compares every sub-library with every NEEDED name). */
typedef struct needed_names {
  const cl_catalog_entry **entry; /* NULL: not a catalog name */
  int *major;
} needed_names;

static int match_needed(const cl_binary_info *info, needed_names *out) {
  out->entry = calloc(info->needed_count + 1, sizeof *out->entry);
  out->major = calloc(info->needed_count + 1, sizeof *out->major);
  if (!out->entry || !out->major)
    return CUDALOAD_E_NO_MEMORY;
  cl_naming naming =
      info->format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX;
  for (size_t d = 0; d < info->needed_count; ++d) {
    cl_name_match m;
    if (cl_catalog_match(info->needed[d], naming, &m)) {
      out->entry[d] = m.entry;
      out->major[d] = m.major;
    }
  }
  return CUDALOAD_OK;
}

/* Does NEEDED name d of a main library refer to plan entry p? By SONAME, or
 * by catalog name (p's header is not read before it is known to be
 * loaded). */
static int names_entry(const cl_binary_info *info, const needed_names *names,
                       size_t d, const cl_plan_entry *p) {
  return strcmp(info->needed[d], p->soname) == 0 ||
         (names->entry && names->entry[d] == p->entry &&
          names->major[d] == p->major);
}

/* The loader model of this process with every planned folder exposed as
 * cudaload_preload exposes it (Windows: PATH and AddDllDirectory), made on
 * first need: the one model that decides whether a library opened by name
 * later is found by its opener or must be preloaded (docs/loader.md). A
 * plan for the other OS's names (--target) is modelled as a process of that
 * OS with nothing loaded. */
typedef struct finder {
  int ready;
  cl_loader_model model;
} finder;

static void finder_free(finder *f) {
  if (f->ready)
    cl_loader_model_free(&f->model);
  f->ready = 0;
}

static int finder_ready(finder *f, cudaload_ctx *ctx) {
  if (f->ready)
    return CUDALOAD_OK;
  cl_naming naming = cl_ctx_naming(ctx);
  /* no model of this process: an empty one */
  int rc = cl_loader_model_init_host_quiet(&f->model);
  if (rc == CUDALOAD_E_NO_MEMORY)
    return rc;
  if (rc || f->model.naming != naming) {
    if (!rc)
      cl_loader_model_free(&f->model);
    cl_loader_model_init(&f->model, naming);
  }
  f->ready = 1;
  f->model.files = cl_file_cache_of(ctx);
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count && !rc; ++i)
    rc = cl_verdict_expose_folder(&f->model,
                                  cl_plan_state_of(ctx)->plan[i].path);
  return rc;
}

/* The name an opener opens p by: the catalog's file name of its major
 * (cuDNN's shim opens "libcudnn_ops.so" + its major; cuDNN 8 the SONAME). */
static void open_name(const cudaload_ctx *ctx, const cl_plan_entry *p,
                      char *name, size_t size) {
  char major[16];
  snprintf(major, sizeof major, "%d", p->major);
  cl_catalog_file_name(p->entry, cl_ctx_naming(ctx), major, name, size);
}

/* The rule as a reason says it: "runpath, its RUNPATH $ORIGIN". */
typedef struct rule_text {
  char text[1200];
} rule_text;

static void say_rule(rule_text *out, cl_resolve_rule rule,
                     const cl_binary_info *info) {
  const char *list = rule == CL_RULE_RUNPATH ? info->runpath
                     : rule == CL_RULE_RPATH ? info->rpath
                                             : NULL;
  /* On Windows the preload puts each planned folder on PATH and adds it
   * with AddDllDirectory: that is how a by-name open finds it. */
  int exposed = rule == CL_RULE_PATH_VARIABLE || rule == CL_RULE_USER_DIRS;
  snprintf(out->text, sizeof out->text, "%s%s%s%.1000s%s",
           cl_resolve_rule_name(rule), list ? ", its " : "",
           list ? (rule == CL_RULE_RUNPATH ? "RUNPATH " : "RPATH ") : "",
           list ? list : "",
           exposed ? CL_WORDS_THE_PRELOAD_PUTS_ITS_FOLDER : "");
}

/* What `opener` (its header in info; NULL: read here) gets when it opens
 * p by name once the plan is in place: 1 when p's own file (*rule says
 * how), 0 when another file (other) or none (other ""), -1 with *rc set
 * when memory ran out. */
static int opener_finds(finder *f, cudaload_ctx *ctx, const char *opener,
                        const cl_binary_info *info, const cl_plan_entry *p,
                        rule_text *rule, char *other, size_t other_size,
                        int *rc) {
  rule->text[0] = '\0';
  other[0] = '\0';
  if ((*rc = finder_ready(f, ctx)) != CUDALOAD_OK)
    return -1;
  cl_binary_info own;
  memset(&own, 0, sizeof own);
  if (!info) {
    /* unreadable: an opener with no lists */
    if (cl_file_cache_parse_quiet(cl_file_cache_of(ctx), opener, &own) !=
        CUDALOAD_OK)
      memset(&own, 0, sizeof own);
    info = &own;
  }
  char name[160];
  open_name(ctx, p, name, sizeof name);
  cl_requester req = {opener, info, NULL};
  cl_resolution r;
  *rc = cl_resolve(&f->model, &req, name, &r);
  if (!*rc)
    say_rule(rule, r.rule, info);
  cl_binary_info_free(&own);
  if (*rc)
    return -1;
  int found = r.path && cl_plan_same_file(r.path, p->path);
  if (!found && r.path)
    snprintf(other, other_size, "%s", r.path);
  cl_resolution_free(&r);
  return found;
}

/* Why an opener that does not get p would not: "it would get OTHER (rule:
 * R)" or "it would find nothing (rule: not-found; it has no RUNPATH)". */
static void describe_miss(char *out, size_t size, const char *rule,
                          const char *other, const cl_binary_info *info) {
  int lists = info && ((info->runpath && info->runpath[0]) ||
                       (info->rpath && info->rpath[0]));
  int n =
      other[0]
          ? snprintf(out, size, CL_WORDS_IT_WOULD_GET_INSTEAD_RULE, other, rule)
          : snprintf(out, size, CL_WORDS_IT_WOULD_FIND_NOTHING_RULE, rule,
                     lists || (info && info->format == CL_FORMAT_PE)
                         ? ""
                         : CL_WORDS_IT_HAS_NO_RUNPATH_OR);
  /* A path longer than the sentence's room is cut, and says so. */
  if ((n < 0 || (size_t)n >= size) && size > 4)
    memcpy(out + size - 4, "...", 4);
}

/* Lazy dependencies (cuBLAS 12 for cuDNN 8): like sub-libraries, left to
 * their opener where the loader model says it finds them itself (its
 * RUNPATH leads there; on Windows the folder exposed on PATH), else
 * preloaded by absolute path, since a lazy open by name takes a file
 * already loaded. */
static int settle_lazy_dependencies(cudaload_ctx *ctx, unsigned flags,
                                    cl_binary_info *info, finder *f) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count && !rc; ++i) {
    cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
    if (!p->opened_by)
      continue;
    char how[4608], other[4096];
    rule_text rule;
    int load = 1;
    if (flags & CUDALOAD_PRELOAD_ALL_SUBLIBS) {
      snprintf(how, sizeof how, CL_WORDS_PRELOADED_ALL_SUB_LIBRARIES_WERE);
    } else {
      int found = opener_finds(f, ctx, p->opened_by, NULL, p, &rule, other,
                               sizeof other, &rc);
      if (found < 0)
        break;
      load = !found;
      if (found)
        snprintf(how, sizeof how, CL_WORDS_ITS_OPENER_FINDS_IT_ITSELF,
                 rule.text);
      else
        snprintf(how, sizeof how, CL_WORDS_PRELOADED_BY_ABSOLUTE_PATH_BY,
                 other[0] ? CL_WORDS_IT_WOULD_GET
                          : CL_WORDS_IT_WOULD_FIND_NOTHING,
                 other, other[0] ? " instead" : "");
      if (!found) {
        size_t used = strlen(how);
        snprintf(how + used, sizeof how - used, " (rule: %s)", rule.text);
      }
    }
    if (!load) {
      p->to_load = 0;
      p->state = CUDALOAD_STATE_NOT_NEEDED;
    } else if (p->entry->role == CL_ROLE_SUB &&
               (rc = read_header(ctx, i, info, 1)) != 0) {
      break;
    }
    set_reason(p, "%s; %s", p->reason, how);
  }
  return rc;
}

/* The state of order_dependencies_first's walk. The entries by SONAME: the
 * first in plan order from the index, the next with the same SONAME from
 * same_next (n: none), so that finding a NEEDED name's entry does not
 * compare it with every entry. */
typedef struct dep_walk {
  size_t n;
  size_t *order;       /* the entries, dependencies first */
  size_t emitted;      /* how many order holds */
  unsigned char *mark; /* 0 new, 1 on stack, 2 done */
  size_t *stack;
  size_t *next_dep; /* per entry: the next NEEDED name to follow */
  size_t *same_next, *same_last;
  cl_str_index by_soname;
} dep_walk;

static int index_by_soname(const cudaload_ctx *ctx, dep_walk *w) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t k = 0; k < w->n; ++k) {
    size_t first;
    w->same_next[k] = w->n;
    if (!cl_str_index_find(&w->by_soname, ps->plan[k].soname, &first)) {
      w->same_last[k] = k;
      if (cl_str_index_add(&w->by_soname, ps->plan[k].soname, k))
        return CUDALOAD_E_NO_MEMORY;
    } else {
      w->same_next[w->same_last[first]] = k;
      w->same_last[first] = k;
    }
  }
  return CUDALOAD_OK;
}

/* Depth first from entry start, emitting each entry after what it needs;
 * an edge to an entry on the stack (a cycle) is not followed. */
static void walk_from(dep_walk *w, const cl_binary_info *info, size_t start) {
  size_t n = w->n, depth = 0;
  w->stack[depth++] = start;
  w->mark[start] = 1;
  while (depth > 0) {
    size_t cur = w->stack[depth - 1];
    int pushed = 0;
    while (w->next_dep[cur] < info[cur].needed_count && !pushed) {
      const char *dep = info[cur].needed[w->next_dep[cur]++];
      size_t k;
      if (!cl_str_index_find(&w->by_soname, dep, &k))
        k = n;
      for (; k < n; k = w->same_next[k])
        if (w->mark[k] == 0) {
          w->mark[k] = 1;
          w->stack[depth++] = k;
          pushed = 1;
          break;
        }
    }
    if (!pushed) {
      w->mark[cur] = 2;
      w->order[w->emitted++] = cur;
      --depth;
    }
  }
}

/* Dependencies first: a depth-first walk in plan order over NEEDED edges
 * inside the plan (info[i]: the header of plan entry i, or zeros); a cycle
 * (none in real CUDA libraries) is broken at the edge that closes it. */
static int order_dependencies_first(cudaload_ctx *ctx,
                                    const cl_binary_info *info) {
  size_t n = cl_plan_state_of(ctx)->plan_count;
  dep_walk w = {0};
  w.n = n;
  w.order = malloc(n * sizeof *w.order);
  w.mark = calloc(n, 1);
  w.stack = malloc(n * sizeof *w.stack);
  w.next_dep = calloc(n, sizeof *w.next_dep);
  w.same_next = malloc(n * sizeof *w.same_next);
  w.same_last = malloc(n * sizeof *w.same_last);
  cl_str_index_init(&w.by_soname, 0);
  cl_plan_entry *sorted = malloc(n * sizeof *sorted);
  int rc = w.order && w.mark && w.stack && w.next_dep && w.same_next &&
                   w.same_last && sorted
               ? index_by_soname(ctx, &w)
               : CUDALOAD_E_NO_MEMORY;
  for (size_t start = 0; start < n && !rc; ++start)
    if (!w.mark[start])
      walk_from(&w, info, start);
  if (!rc) {
    for (size_t i = 0; i < n; ++i)
      sorted[i] = cl_plan_state_of(ctx)->plan[w.order[i]];
    memcpy(cl_plan_state_of(ctx)->plan, sorted, n * sizeof *sorted);
  }
  free(sorted);
  free(w.order);
  free(w.mark);
  free(w.stack);
  free(w.next_dep);
  free(w.same_next);
  free(w.same_last);
  cl_str_index_free(&w.by_soname);
  return rc;
}

/* What cl_plan_settle knows of the plan's files while it decides. */
typedef struct settling {
  size_t n;             /* plan entries */
  cl_binary_info *info; /* per entry: its header, when read */
  needed_names *names;  /* per main library: its NEEDED names matched */
  size_t *mains;        /* the main libraries in plan order */
  size_t main_count;    /* how many of them */
  size_t *main_of;      /* per requirement: its main library (n: none) */
  finder finder;        /* the loader model that decides */
} settling;

/* Read every main library's header (and match its NEEDED names) and note
 * the main library of each requirement: the last in plan order, should one
 * requirement have two. Asked for each sub-library, and a plan can hold
 * thousands of them. */
static int read_main_headers(cudaload_ctx *ctx, settling *st) {
  int rc = CUDALOAD_OK;
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r)
    st->main_of[r] = st->n;
  for (size_t i = 0; i < st->n && !rc; ++i) {
    int is_main = cl_plan_state_of(ctx)->plan[i].entry->role != CL_ROLE_SUB;
    rc = read_header(ctx, i, st->info, is_main);
    if (is_main && !rc)
      rc = match_needed(&st->info[i], &st->names[i]);
    if (cl_plan_state_of(ctx)->plan[i].entry->role == CL_ROLE_MAIN) {
      st->mains[st->main_count++] = i;
      if (cl_plan_state_of(ctx)->plan[i].requirement <
          cl_plan_state_of(ctx)->requirement_count)
        st->main_of[cl_plan_state_of(ctx)->plan[i].requirement] = i;
    }
  }
  return rc;
}

/* The planned main library whose NEEDED names p, or NULL. */
static const char *main_needing(const cudaload_ctx *ctx, const settling *st,
                                const cl_plan_entry *p) {
  for (size_t j = 0; j < st->main_count; ++j) {
    size_t k = st->mains[j];
    for (size_t d = 0; d < st->info[k].needed_count; ++d)
      if (names_entry(&st->info[k], &st->names[k], d, p))
        return cl_plan_state_of(ctx)->plan[k].soname;
  }
  return NULL;
}

/* A sub-library not preloaded: its main library finds it itself, by the
 * rule given. */
static void left_to_main(cl_plan_entry *p, const char *main_name,
                         const char *rule) {
  p->to_load = 0;
  p->state = CUDALOAD_STATE_NOT_NEEDED;
  set_reason(p, CL_WORDS_SUB_LIBRARY_OF_WHICH_FINDS, main_name, rule);
}

/* Whether sub-library i is loaded: when something planned NEEDs it, when
 * all were asked for, or when one of its openers (its main library, a
 * bundled copy of it) would not get this very file opening it by name, as
 * the loader model says; and why. */
static int settle_sublibrary(cudaload_ctx *ctx, settling *st, size_t i,
                             unsigned flags) {
  size_t n = st->n;
  cl_plan_entry *p = &cl_plan_state_of(ctx)->plan[i];
  const char *needed_by = main_needing(ctx, st, p);
  size_t main_index = p->requirement < cl_plan_state_of(ctx)->requirement_count
                          ? st->main_of[p->requirement]
                          : n;
  const char *main_name = main_index < n
                              ? cl_plan_state_of(ctx)->plan[main_index].soname
                              : CL_WORDS_ITS_MAIN_LIBRARY;
  int rc = CUDALOAD_OK;
  if (needed_by || (flags & CUDALOAD_PRELOAD_ALL_SUBLIBS)) {
    if ((rc = read_header(ctx, i, st->info, 1)) != 0)
      return rc;
    if (needed_by)
      set_reason(p, CL_WORDS_NEEDED_BY_ELF_NEEDED_PE, needed_by);
    else
      set_reason(p, CL_WORDS_SUB_LIBRARY_OF_ALL_SUB, main_name);
    return CUDALOAD_OK;
  }
  char other[4096], miss[4608];
  rule_text rule;
  /* A bundled copy of the main library (auditwheel's <pkg>.libs) opens it
   * by name too, from a folder of its own. */
  const cl_bundled_shim *shim = bundled_shim_of(ctx, p);
  if (shim) {
    int found = opener_finds(&st->finder, ctx, shim->path, NULL, p, &rule,
                             other, sizeof other, &rc);
    if (found < 0)
      return rc;
    if (!found) {
      if ((rc = read_header(ctx, i, st->info, 1)) != 0)
        return rc;
      describe_miss(miss, sizeof miss, rule.text, other, NULL);
      set_reason(p, CL_WORDS_SUB_LIBRARY_A_COPY_BUNDLED, shim->path,
                 shim->package, miss);
      return CUDALOAD_OK;
    }
  }
  if (main_index >= n) {
    if ((rc = read_header(ctx, i, st->info, 1)) != 0)
      return rc;
    set_reason(p, CL_WORDS_SUB_LIBRARY_WHOSE_MAIN_LIBRARY);
    return CUDALOAD_OK;
  }
  const cl_binary_info *main_info = &st->info[main_index];
  int found = opener_finds(&st->finder, ctx,
                           cl_plan_state_of(ctx)->plan[main_index].path,
                           main_info, p, &rule, other, sizeof other, &rc);
  if (found < 0)
    return rc;
  if (found) {
    left_to_main(p, main_name, rule.text);
    return CUDALOAD_OK;
  }
  if ((rc = read_header(ctx, i, st->info, 1)) != 0)
    return rc;
  describe_miss(miss, sizeof miss, rule.text, other, main_info);
  set_reason(p, CL_WORDS_SUB_LIBRARY_OF_PRELOADED_BY, main_name, main_name,
             miss);
  return CUDALOAD_OK;
}

static void settling_free(settling *st) {
  for (size_t k = 0; st->names && k < st->n; ++k) {
    free(st->names[k].entry);
    free(st->names[k].major);
  }
  finder_free(&st->finder);
  free(st->names);
  free(st->mains);
  free(st->main_of);
}

/* Read the headers of the chosen files; decide which sub-libraries to load;
 * order dependencies first. Only the main libraries' headers and those of
 * the sub-libraries that will be loaded are read: the others (cuDNN 9's
 * seven, with the minimal plan) cost a file open each and tell nothing the
 * plan uses. */
int cl_plan_settle(cudaload_ctx *ctx, unsigned flags) {
  size_t n = cl_plan_state_of(ctx)->plan_count;
  if (n == 0)
    return CUDALOAD_OK;
  cl_binary_info *info = calloc(n, sizeof *info);
  if (!info)
    return CUDALOAD_E_NO_MEMORY;
  settling st = {0};
  st.n = n;
  st.info = info;
  st.names = calloc(n, sizeof *st.names);
  st.mains = malloc(n * sizeof *st.mains);
  st.main_of = malloc((cl_plan_state_of(ctx)->requirement_count + 1) *
                      sizeof *st.main_of);
  int header_rc = st.names && st.mains && st.main_of
                      ? read_main_headers(ctx, &st)
                      : CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < n && !header_rc; ++i)
    if (cl_plan_state_of(ctx)->plan[i].entry->role == CL_ROLE_SUB &&
        !cl_plan_state_of(ctx)->plan[i].opened_by)
      header_rc = settle_sublibrary(ctx, &st, i, flags);
  /* lazy dependencies (opened_by) are settled apart */
  if (!header_rc)
    header_rc = settle_lazy_dependencies(ctx, flags, info, &st.finder);
  settling_free(&st);
  int rc = header_rc ? header_rc : order_dependencies_first(ctx, info);
  for (size_t k = 0; k < n; ++k)
    cl_binary_info_free(&info[k]);
  free(info);
  return rc;
}
