/* SPDX-License-Identifier: MIT */
/*
 * plan_dependencies.c - the libraries the chosen ones need, beyond what a
 * requirement names: those a chosen library opens lazily by name (the
 * catalog's, and what the file itself names), those a known consumer
 * opens in a CUDA major of its own, what the program needs only for a
 * feature, and the CUDA libraries a main library names as NEEDED. Each is
 * planned where a root holds it, else a warning says what to install.
 * Apart from plan.c, which chooses the requirements' own files, because
 * this is a second search with its own questions (which CUDA major, which
 * consumer, which symbols) and is most of what a plan grows by.
 */
#include "load/plan_dependencies.h"
#include "binary/binary.h"
#include "binary/binary_symbols.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/fix_lines.h"
#include "load/plan_paths.h"
#include "load/plan_record.h"
#include "load/program.h"
#include "load/spec.h"
#include "load/verdict.h"
#include "os/platform.h"
#include "scan/machine.h"
#include "scan/roots.h"
#include "problem/fix_words.h"
#include "scan/catalog_wheels.h"
#include "scan/consumers.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fix that requires a library of family's (`name`=major) with a root
 * that holds it, and the wheel that ships it (package, NULL for none). */
static void require_steps(cl_fix *fix, const char *what, const char *name,
                          int major, const char *package) {
  cl_fix_add_note(fix, CL_NOTE_REQUIRE_WITH_A_ROOT, what, name, major,
                  package ? CL_NOTE_THE_WHEEL_THAT_SHIPS_IT : "");
  if (!package)
    return;
  cl_fix_step *install = cl_fix_add(fix, CUDALOAD_FIX_INSTALL);
  cl_fix_arg(fix, install, "pip");
  cl_fix_arg(fix, install, "install");
  cl_fix_arg(fix, install, package);
}

/* The ABI major of entry that ships with a CUDA major, 0 when none. */
static int abi_major_for_cuda(const cl_catalog_entry *entry, int cuda) {
  for (int m = entry->min_major; m <= entry->max_major; ++m)
    if (cl_catalog_cuda_major(entry, m) == cuda)
      return m;
  return 0;
}

static int plan_has(const cudaload_ctx *ctx, const cl_catalog_entry *entry,
                    int major) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->plan_count; ++i)
    if (ps->plan[i].entry == entry && ps->plan[i].major == major)
      return 1;
  return 0;
}

/* What a consumer file takes from its dependencies, read on first need
 * (most plans never compare two candidates of one name). */
typedef struct consumer_symbols {
  cudaload_ctx *ctx;
  const char *path;
  int read;                         /* 0 not yet, 1 read, -1 unreadable */
  const cl_binary_symbols *symbols; /* the context's file cache owns it */
} consumer_symbols;

/* The symbols of path, read once per run through the context's cache;
 * NULL when unreadable (the loader is then the judge). */
static const cl_binary_symbols *symbols_of(cudaload_ctx *ctx,
                                           const char *path) {
  const cl_binary_symbols *s = NULL;
  /* Its references to CUDA libraries (the cache's filter), not its whole
   * table. */
  if (cl_file_cache_references_quiet(cl_verdict_files(ctx), path, &s) !=
      CUDALOAD_OK)
    s = NULL;
  return s;
}

/* Whether `candidate` defines every symbol the consumer takes from a file
 * of its name (its SONAME, the name the consumer's references record):
 * what the loader binds them to when it takes that file. A consumer or
 * candidate that cannot be read covers: the loader is then the judge. */
static int covers(consumer_symbols *c, const char *candidate) {
  if (!c->path)
    return 1;
  if (!c->read) {
    c->symbols = symbols_of(c->ctx, c->path);
    c->read = c->symbols ? 1 : -1;
  }
  if (c->read < 0)
    return 1;
  const char *name = cl_path_basename(candidate);
  int windows = c->symbols->format == CL_FORMAT_PE;
  int any = 0;
  for (size_t r = 0; r < c->symbols->ref_count && !any; ++r)
    any = c->symbols->refs[r].file && !c->symbols->refs[r].weak &&
          (windows ? cl_ascii_equal_nocase(c->symbols->refs[r].file, name)
                   : !strcmp(c->symbols->refs[r].file, name));
  if (!any)
    return 1;
  /* The candidate's definitions of those names, looked up by name (its
   * hash table), not its whole table. */
  cl_file_cache *files = cl_verdict_files(c->ctx);
  int all = 1;
  for (size_t r = 0; r < c->symbols->ref_count && all; ++r) {
    const cl_symbol_ref *ref = &c->symbols->refs[r];
    if (ref->weak || !ref->file ||
        !(windows ? cl_ascii_equal_nocase(ref->file, name)
                  : !strcmp(ref->file, name)))
      continue;
    if (cl_bind_defines(files, candidate, ref->name,
                        windows ? NULL : ref->version, &all) != CUDALOAD_OK) {
      all = 1; /* unreadable: the loader is then the judge */
      break;
    }
  }
  return all;
}

/* Whether lib is a candidate for the opener's dependency: of main_entry and
 * dep_major, built for the plan's machine, its required companions beside
 * it. */
static int dependency_candidate(cudaload_ctx *ctx,
                                const cl_companion_index *companions,
                                const cl_catalog_entry *main_entry,
                                int dep_major, cl_library *lib, int *rc) {
  return lib->entry == main_entry && lib->major == dep_major &&
         !cl_plan_foreign_machine(ctx, lib) &&
         !cl_plan_missing_companion(companions, lib, rc);
}

/* The library of main_entry built for a CUDA major that the opener would
 * best get: the one in its own folder, then one under the chosen file's
 * root (one install, one build), then the plan's precedence (cl_plan_better()).
 * Candidates whose required companions are not beside them are skipped, as
 * for a requirement. NULL when none. */
static const cl_library *find_dependency(cudaload_ctx *ctx,
                                         const cl_companion_index *companions,
                                         const cl_catalog_entry *main_entry,
                                         int dep_major, const char *opener,
                                         const cl_library *chosen, int *rc) {
  const cl_library *best = NULL;
  int best_rank = -1;
  consumer_symbols needs = {ctx, opener, 0, NULL};
  /* The opener's symbols only tell candidates apart: one candidate (a
   * toolkit's one cuBLAS) is taken as it is, without asking it for each
   * symbol the opener takes from it. */
  size_t candidates = 0, only = SIZE_MAX;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !*rc; ++i) {
    if (!dependency_candidate(ctx, companions, main_entry, dep_major,
                              &cl_inventory_of(ctx)->libraries[i], rc))
      continue;
    candidates++;
    only = i;
  }
  if (*rc || candidates < 2)
    return *rc || !candidates ? NULL : &cl_inventory_of(ctx)->libraries[only];
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !*rc; ++i) {
    const cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    if (!dependency_candidate(ctx, companions, main_entry, dep_major,
                              &cl_inventory_of(ctx)->libraries[i], rc))
      continue;
    /* A file that lacks a symbol the opener takes from it fails its load
     * ("undefined symbol"): any that has them all comes first. */
    int rank = (covers(&needs, lib->path) ? 4 : 0) +
               (cl_plan_same_folder(lib->path, opener) ? 2
                : chosen && lib->root == chosen->root  ? 1
                                                       : 0);
    if (rank > best_rank ||
        (rank == best_rank && cl_plan_better(ctx, lib, best))) {
      best = lib;
      best_rank = rank;
    }
  }
  return *rc ? NULL : best;
}

/* The file names of the libraries of family that opener opens lazily,
 * for major: "libcublas.so.12 and libcublasLt.so.12". */
static void lazy_file_names(const cl_catalog_entry *opener, const char *family,
                            int major, cl_naming naming, char *out,
                            size_t size) {
  const char *names[3];
  size_t n = 0;
  for (size_t k = 0; k < 3 && opener->lazy_opens[k]; ++k) {
    const cl_catalog_entry *e = cl_catalog_find(opener->lazy_opens[k]);
    if (e && strcmp(e->family, family) == 0)
      names[n++] = opener->lazy_opens[k];
  }
  char number[16];
  snprintf(number, sizeof number, "%d", major);
  size_t used = 0;
  out[0] = '\0';
  for (size_t k = 0; k < n && used < size; ++k) {
    char file[256];
    cl_catalog_file_name(cl_catalog_find(names[k]), naming, number, file,
                         sizeof file);
    int w = snprintf(out + used, size - used, "%s%s", k == 0 ? "" : ", ", file);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

/* Plan lib (a main library) and its family's sub-libraries in its folder
 * as the lazy dependency of opener, each with the reason given. */
static int add_lazy_entries(cudaload_ctx *ctx, cl_str_index *planned,
                            const cl_library *lib, const char *opener,
                            const char *reason) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !rc; ++i) {
    const cl_library *l = &cl_inventory_of(ctx)->libraries[i];
    if (l != lib && !(l->entry->role == CL_ROLE_SUB && l->major == lib->major &&
                      strcmp(l->entry->family, lib->entry->family) == 0 &&
                      cl_plan_same_folder(l->path, lib->path)))
      continue;
    size_t before = cl_plan_state_of(ctx)->plan_count;
    rc = cl_plan_add_entry(ctx, planned, l, SIZE_MAX, reason);
    if (!rc && cl_plan_state_of(ctx)->plan_count > before) {
      cl_plan_entry *p =
          &cl_plan_state_of(ctx)->plan[cl_plan_state_of(ctx)->plan_count - 1];
      p->opened_by = cl_strdup(opener);
      if (!p->opened_by)
        rc = CUDALOAD_E_NO_MEMORY;
    }
  }
  return rc;
}

/* Libraries the chosen ones open by name at their first call, of the CUDA
 * major of the chosen file's build (catalog.h, lazy_opens): a plan that
 * succeeds without them leaves the program to fail later, at that call
 * (ctranslate2: "Library libcublas.so.12 is not found"). Each is added to
 * the plan, so that its folder is exposed and, where the opener would not
 * find it, it is preloaded (cl_plan_settle); when the inventory has none, a
 * warning says what to install. */
/* The CUDA major whose libraries the opener (plan entry i, its library
 * chosen) would open lazily: the chosen file's, else the catalog's, else
 * the plan's; 0 when nothing tells it. */
static int lazy_cuda_major(cudaload_ctx *ctx, size_t i, cl_library *chosen) {
  int cuda = 0;
  if (chosen)
    cuda = cl_library_cuda_major(ctx, chosen);
  if (!cuda)
    cuda = cl_plan_state_of(ctx)->plan[i].entry->lazy_cuda_major;
  if (!cuda)
    cuda = cl_plan_state_of(ctx)->plan_cuda_major;
  return cuda;
}

/* A lazy dependency no root holds: a plan warning naming the files the
 * opener will look for, and the requirement (and wheel) that adds them. */
static int warn_lazy_missing(cudaload_ctx *ctx, const cl_catalog_entry *opener,
                             int opener_major, const char *opener_path,
                             const cl_library *chosen,
                             const cl_catalog_entry *dep,
                             const cl_catalog_entry *dep_main, int dep_major,
                             int cuda) {
  cl_naming naming = cl_ctx_naming(ctx);
  char files[512];
  lazy_file_names(opener, dep->family, dep_major, naming, files, sizeof files);
  const char *package = cl_fix_package(dep->family, cuda, naming);
  cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_LAZY_UNPROVIDED);
  cl_plan_fact(&p, CUDALOAD_FACT_LIBRARY, opener->name);
  cl_plan_fact_int(&p, CUDALOAD_FACT_MAJOR, opener_major);
  cl_plan_fact(&p, CUDALOAD_FACT_CONSUMER, chosen ? chosen->path : opener_path);
  cl_plan_fact(&p, CUDALOAD_FACT_NAME, files);
  cl_plan_fact(&p, CUDALOAD_FACT_FAMILY, dep->family);
  cl_plan_fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, cuda);
  require_steps(&p.fix, "--require", dep_main->name, dep_major, package);
  char first[256];
  snprintf(first, sizeof first, "%.*s", (int)strcspn(files, " ,"), files);
  return cl_plan_add_warning(ctx, &p, first);
}

int cl_plan_add_lazy_dependencies(cudaload_ctx *ctx, cl_str_index *planned,
                                  const cl_companion_index *companions) {
  size_t original = cl_plan_state_of(ctx)->plan_count;
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < original && !rc; ++i) {
    const cl_catalog_entry *opener = cl_plan_state_of(ctx)->plan[i].entry;
    if (cl_plan_state_of(ctx)->plan[i].opened_by || !opener->lazy_opens[0])
      continue;
    size_t r = cl_plan_state_of(ctx)->plan[i].requirement;
    cl_library *chosen =
        r < cl_plan_state_of(ctx)->outcome_count &&
                cl_plan_state_of(ctx)->outcomes[r].chosen <
                    cl_inventory_of(ctx)->library_count
            ? &cl_inventory_of(ctx)
                   ->libraries[cl_plan_state_of(ctx)->outcomes[r].chosen]
            : NULL;
    int cuda = lazy_cuda_major(ctx, i, chosen);
    if (!cuda)
      continue; /* no way to tell which major it would open */
    /* plan[] moves as entries are added: keep what is read later. */
    char *opener_path = cl_strdup(cl_plan_state_of(ctx)->plan[i].path);
    int opener_major = cl_plan_state_of(ctx)->plan[i].major;
    if (!opener_path)
      return CUDALOAD_E_NO_MEMORY;
    for (size_t k = 0; k < 3 && opener->lazy_opens[k] && !rc; ++k) {
      const cl_catalog_entry *dep = cl_catalog_find(opener->lazy_opens[k]);
      const cl_catalog_entry *dep_main =
          dep ? cl_catalog_family_main(dep->family) : NULL;
      int dep_major = dep_main ? abi_major_for_cuda(dep_main, cuda) : 0;
      if (!dep_major || plan_has(ctx, dep, dep_major))
        continue;
      const cl_library *lib = find_dependency(
          ctx, companions, dep_main, dep_major, opener_path, chosen, &rc);
      if (rc)
        break;
      if (!lib) {
        rc = warn_lazy_missing(ctx, opener, opener_major, opener_path, chosen,
                               dep, dep_main, dep_major, cuda);
        continue;
      }
      char text[2048];
      snprintf(text, sizeof text, CL_WORDS_OPENED_LAZILY_BY_NEEDS,
               cl_path_basename(opener_path),
               cl_catalog_family_title(opener->family), opener_major,
               cl_catalog_family_title(dep->family), cuda);
      rc = add_lazy_entries(ctx, planned, lib, opener_path, text);
    }
    free(opener_path);
  }
  return rc;
}

/* What a chosen file itself says it opens by name at run time, beyond the
 * catalog's lazy opens (cuBLASLt 12.9 and 13 name libnvrtc.so.N, 12.4 does
 * not: only the file tells), as the verdict reads it: where a root holds
 * that library it is planned as a lazy dependency, as above; where none
 * does, the verdict reports the open that would fail. */
int cl_plan_add_named_opens(cudaload_ctx *ctx, cl_str_index *planned,
                            const cl_companion_index *companions) {
  cl_naming naming = cl_ctx_naming(ctx);
  size_t original = cl_plan_state_of(ctx)->plan_count;
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < original && !rc; ++i) {
    if (cl_plan_state_of(ctx)->plan[i].opened_by)
      continue;
    char *opener_path = cl_strdup(cl_plan_state_of(ctx)->plan[i].path);
    const char *family = cl_plan_state_of(ctx)->plan[i].entry->family;
    if (!opener_path)
      return CUDALOAD_E_NO_MEMORY;
    const cl_binary_info *info = NULL;
    /* unreadable: it names nothing we know */
    if (cl_file_cache_info_quiet(cl_file_cache_of(ctx), opener_path, &info) !=
        CUDALOAD_OK)
      info = NULL;
    size_t count = 0;
    char **names = info ? cl_cuda_opens_by_name(cl_verdict_files(ctx), naming,
                                                opener_path, info, &count)
                        : NULL;
    for (size_t k = 0; k < count && !rc; ++k) {
      cl_name_match m;
      if (!cl_catalog_match(names[k], naming, &m) ||
          !strcmp(m.entry->family, family))
        continue; /* its own family's files are the sub-library rules' */
      const cl_catalog_entry *dep_main =
          cl_catalog_family_main(m.entry->family);
      if (!dep_main || plan_has(ctx, dep_main, m.major))
        continue;
      const cl_library *lib = find_dependency(ctx, companions, dep_main,
                                              m.major, opener_path, NULL, &rc);
      if (rc || !lib)
        continue;
      char text[2048];
      snprintf(text, sizeof text, CL_WORDS_OPENED_BY_NAME_BY_ITS,
               cl_path_basename(opener_path), names[k]);
      rc = add_lazy_entries(ctx, planned, lib, opener_path, text);
    }
    for (size_t k = 0; k < count; ++k)
      free(names[k]);
    free(names);
    free(opener_path);
  }
  return rc;
}

/* The major of family's main library the plan holds (the first), 0 when it
 * holds none. */
static int planned_major_of(const cudaload_ctx *ctx, const char *family) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->plan_count; ++i)
    if (ps->plan[i].entry->role == CL_ROLE_MAIN &&
        strcmp(ps->plan[i].entry->family, family) == 0)
      return ps->plan[i].major;
  return 0;
}

/* Known consumers (consumers.h) the scan noticed: a package's library that
 * opens a family by name at run time, of a CUDA major neither its name nor
 * its NEEDED entries tell (ctranslate2 4.x: libcublas.so.12). When the plan
 * holds that family in another major only (cuBLAS 13 beside a CUDA 13
 * torch), the consumer's major is added as for a lazy dependency, or a
 * warning says what to install. A plan without the family is left alone:
 * the program asked for none of it, and may not use that package at all. */
int cl_plan_add_consumer_needs(cudaload_ctx *ctx, cl_str_index *planned,
                               const cl_companion_index *companions) {
  cl_naming naming = cl_ctx_naming(ctx);
  int rc = CUDALOAD_OK;
  for (size_t c = 0; c < cl_inventory_of(ctx)->consumer_count && !rc; ++c) {
    const cl_noticed_consumer *consumer = &cl_inventory_of(ctx)->consumers[c];
    const cl_known_consumer *need;
    for (size_t k = 0;
         !rc && (need = cl_consumer_need(consumer->package, consumer->version,
                                         naming, k)) != NULL;
         ++k) {
      if (need->feature)
        continue; /* a need only if used: the program's scan plans it */
      const cl_catalog_entry *dep = cl_catalog_family_main(need->family);
      int dep_major = dep ? abi_major_for_cuda(dep, need->cuda_major) : 0;
      int held = planned_major_of(ctx, need->family);
      if (!dep_major || !held || plan_has(ctx, dep, dep_major))
        continue;
      const cl_library *lib = find_dependency(ctx, companions, dep, dep_major,
                                              consumer->path, NULL, &rc);
      char text[2048];
      if (rc)
        break;
      if (lib) {
        snprintf(text, sizeof text, CL_WORDS_OPENED_LAZILY_BY_NEEDS_VERSION,
                 cl_path_basename(consumer->path), consumer->package,
                 consumer->version, cl_catalog_family_title(need->family),
                 need->cuda_major);
        rc = add_lazy_entries(ctx, planned, lib, consumer->path, text);
        continue;
      }
      char number[16], file[256];
      snprintf(number, sizeof number, "%d", dep_major);
      cl_catalog_file_name(dep, naming, number, file, sizeof file);
      const char *package =
          cl_fix_package(need->family, need->cuda_major, naming);
      cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_LAZY_UNPROVIDED);
      cl_plan_fact(&p, CUDALOAD_FACT_PACKAGE, consumer->package);
      cl_plan_fact(&p, CUDALOAD_FACT_VERSION, consumer->version);
      cl_plan_fact(&p, CUDALOAD_FACT_CONSUMER, consumer->path);
      cl_plan_fact(&p, CUDALOAD_FACT_NAME, file);
      cl_plan_fact(&p, CUDALOAD_FACT_FAMILY, need->family);
      cl_plan_fact_int(&p, CUDALOAD_FACT_MAJOR, held);
      cl_plan_fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, need->cuda_major);
      require_steps(&p.fix, "--require", dep->name, dep_major, package);
      rc = cl_plan_add_warning(ctx, &p, file);
    }
  }
  return rc;
}

/* What the program needs only if it uses a feature (program.c's optional
 * needs: CuPy's cuTENSOR module, onnxruntime's TensorRT provider, another
 * program of the environment): planned like a library opened later, from
 * the plan's CUDA major, where a root holds one; else a warning that
 * names it and its fix. Never unsatisfied: the program runs without. */
int cl_plan_add_optional_needs(cudaload_ctx *ctx, cl_str_index *planned) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_naming naming = cl_ctx_naming(ctx);
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < ps->optional_need_count && !rc; ++i) {
    const cl_optional_need *n = &ps->optional_needs[i];
    if (plan_has(ctx, n->entry, n->major))
      continue;
    const cl_library *best = NULL;
    for (size_t k = 0; k < cl_inventory_of(ctx)->library_count; ++k) {
      cl_library *lib = &cl_inventory_of(ctx)->libraries[k];
      int cuda = lib->entry == n->entry && lib->major == n->major &&
                         !cl_plan_foreign_machine(ctx, lib)
                     ? cl_library_cuda_major(ctx, lib)
                     : -1;
      int want = n->cuda_major ? n->cuda_major : ps->plan_cuda_major;
      if (cuda < 0 || (cuda && want && cuda != want))
        continue;
      if (!best || cl_plan_better(ctx, lib, best))
        best = lib;
    }
    if (best) {
      rc = add_lazy_entries(ctx, planned, best, n->opener, n->why);
      continue;
    }
    char number[16], file[256];
    snprintf(number, sizeof number, "%d", n->major);
    cl_catalog_file_name(n->entry, naming, number, file, sizeof file);
    int cuda = cl_catalog_cuda_major(n->entry, n->major);
    if (!cuda)
      cuda = n->cuda_major ? n->cuda_major : ps->plan_cuda_major;
    const char *package =
        cuda ? cl_fix_package(n->entry->family, cuda, naming) : NULL;
    /* A wheel that ships several majors (nvidia-cudnn-cu11: cuDNN 8 and
     * 9) is pinned to the one needed. */
    const cl_catalog_wheel *w =
        cuda ? cl_catalog_wheel_find(n->entry->family, cuda, n->major, naming)
             : NULL;
    cl_fix steps = CL_FIX_INIT;
    if (package) {
      cl_fix_step *install = cl_fix_add(&steps, CUDALOAD_FIX_INSTALL);
      char *word = w && w->min_abi && w->min_abi != w->max_abi
                       ? cl_strdup_printf("%s==%d.*", package, n->major)
                       : cl_strdup(package);
      cl_fix_arg(&steps, install, "pip");
      cl_fix_arg(&steps, install, "install");
      if (word)
        cl_fix_arg(&steps, install, word);
      else
        steps.failed = 1;
      free(word);
      cl_fix_note(&steps, install, CL_NOTE_ONLY_IF_THE_PROGRAM_USES_IT);
    } else {
      cl_fix_add_note(&steps, CL_NOTE_ONLY_IF_USED_REQUIRE_WITH_A_ROOT,
                      n->entry->name, n->major);
    }
    cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_IF_USED);
    cl_plan_fact(&p, CUDALOAD_FACT_REASON, n->why);
    cl_plan_fact(&p, CUDALOAD_FACT_NAME, file);
    if (cuda)
      cl_plan_fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, cuda);
    cl_problem_take_fix(NULL, &p, &steps);
    rc = cl_plan_add_warning(ctx, &p, file);
  }
  return rc;
}

/* Plan lib (a main library) and its family's sub-libraries in its folder,
 * each with the reason given; unlike a lazy dependency nothing opens them
 * by name later, the loader binds them while it loads their dependent. */
static int add_family_entries(cudaload_ctx *ctx, cl_str_index *planned,
                              const cl_library *lib, const char *reason) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !rc; ++i) {
    const cl_library *l = &cl_inventory_of(ctx)->libraries[i];
    if (l == lib || (l->entry->role == CL_ROLE_SUB && l->major == lib->major &&
                     strcmp(l->entry->family, lib->entry->family) == 0 &&
                     cl_plan_same_folder(l->path, lib->path)))
      rc = cl_plan_add_entry(ctx, planned, l, SIZE_MAX, reason);
  }
  return rc;
}

/* Does info NEED entry's library of this major? */
static int needs_entry(const cl_binary_info *info, cl_naming naming,
                       const cl_catalog_entry *entry, int major) {
  for (size_t d = 0; d < info->needed_count; ++d) {
    cl_name_match m;
    if (cl_catalog_match(info->needed[d], naming, &m) && m.entry == entry &&
        m.major == major)
      return 1;
  }
  return 0;
}

/* Libraries of other families that the planned main libraries NEED (ELF
 * NEEDED, PE imports): cuSOLVER needs cuBLAS, cuBLASLt, cuSPARSE and
 * nvJitLink, cuFFTW needs cuFFT. In a toolkit they share one folder; in
 * pip wheels each is in its own package, and the dependent's RUNPATH
 * ($ORIGIN) does not lead to the others, so a load of the dependent alone
 * fails ("libcublas.so.13: cannot open shared object file"). Each is
 * added to the plan, so its folder is exposed and it is loaded first; a
 * dependency found nowhere is a warning that names the package to install.
 * The plan grows while it is walked: a dependency's own are added too. */
/* The CUDA major a library was built for, as its NEEDED names tell
 * (libcublas.so.13: CUDA 13); 0 when none does. */
static int built_for_cuda(const cl_binary_info *info, cl_naming naming) {
  for (size_t d = 0; d < info->needed_count; ++d) {
    cl_name_match m;
    if (cl_catalog_match(info->needed[d], naming, &m) && m.cuda_major)
      return m.cuda_major;
  }
  return 0;
}

/* A NEEDED library no root holds: a plan warning naming the dependent,
 * the file and the package that has it. The package of a dependency whose
 * ABI major ships with several CUDA majors (cuSPARSE 12 is in CUDA 12 and
 * 13) follows the dependent's (built_for). */
static int warn_needed_missing(cudaload_ctx *ctx, const char *opener,
                               const char *needed, cl_naming naming,
                               const cl_catalog_entry *dep, int major,
                               int built_for) {
  int cuda = cl_catalog_cuda_major(dep, major);
  if (!cuda)
    cuda = built_for;
  const char *package = cuda ? cl_fix_package(dep->family, cuda, naming) : NULL;
  cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_NEEDED_UNPROVIDED);
  cl_plan_fact(&p, CUDALOAD_FACT_CONSUMER, opener);
  cl_plan_fact(&p, CUDALOAD_FACT_NAME, needed);
  cl_plan_fact(&p, CUDALOAD_FACT_PLATFORM,
               naming == CL_NAMING_WINDOWS ? "windows" : "linux");
  cl_plan_fact(&p, CUDALOAD_FACT_FAMILY, dep->family);
  cl_plan_fact_int(&p, CUDALOAD_FACT_MAJOR, major);
  cl_fix_add_note(&p.fix, CL_NOTE_ADD_A_ROOT_THAT_HOLDS,
                  cl_catalog_family_title(dep->family), major,
                  package ? CL_NOTE_THE_WHEEL_THAT_SHIPS_IT : "");
  if (package) {
    cl_fix_step *install = cl_fix_add(&p.fix, CUDALOAD_FIX_INSTALL);
    cl_fix_arg(&p.fix, install, "pip");
    cl_fix_arg(&p.fix, install, "install");
    cl_fix_arg(&p.fix, install, package);
  }
  return cl_plan_add_warning(ctx, &p, needed);
}

int cl_plan_add_needed_dependencies(cudaload_ctx *ctx, cl_str_index *planned,
                                    const cl_companion_index *companions) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count && !rc; ++i) {
    if (cl_plan_state_of(ctx)->plan[i].entry->role != CL_ROLE_MAIN)
      continue;
    cl_binary_info info;
    /* Unparseable: the loader will judge it (cl_plan_settle says so). */
    int unparsed = cl_file_cache_parse_quiet(
        cl_file_cache_of(ctx), cl_plan_state_of(ctx)->plan[i].path, &info);
    if (unparsed)
      continue;
    /* plan[] moves as entries are added: keep what is read later. */
    char *opener = cl_strdup(cl_plan_state_of(ctx)->plan[i].path);
    const cl_catalog_entry *opener_entry = cl_plan_state_of(ctx)->plan[i].entry;
    if (!opener)
      rc = CUDALOAD_E_NO_MEMORY;
    cl_naming naming =
        info.format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX;
    int built_for = built_for_cuda(&info, naming);
    for (size_t d = 0; d < info.needed_count && !rc; ++d) {
      cl_name_match m;
      if (!cl_catalog_match(info.needed[d], naming, &m) ||
          strcmp(m.entry->family, opener_entry->family) == 0)
        continue; /* not CUDA's, or a sub-library: cl_plan_settle */
      const cl_catalog_entry *dep = cl_catalog_family_main(m.entry->family);
      if (!dep || plan_has(ctx, m.entry, m.major) ||
          plan_has(ctx, dep, m.major) ||
          (m.entry != dep && needs_entry(&info, naming, dep, m.major)))
        continue; /* cuBLASLt comes with the cuBLAS it also NEEDs */
      const cl_library *lib =
          find_dependency(ctx, companions, dep, m.major, opener, NULL, &rc);
      if (rc)
        break;
      if (!lib) {
        rc = warn_needed_missing(ctx, opener, info.needed[d], naming, dep,
                                 m.major, built_for);
        continue;
      }
      char text[2048];
      snprintf(text, sizeof text, "needed by %s (%s)", cl_path_basename(opener),
               naming == CL_NAMING_WINDOWS ? "PE import" : "ELF NEEDED");
      rc = add_family_entries(ctx, planned, lib, text);
    }
    free(opener);
    cl_binary_info_free(&info);
  }
  return rc;
}
