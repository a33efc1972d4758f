/* SPDX-License-Identifier: MIT */
/*
 * plan.c - requirements -> chosen files -> load order. Reads the inventory
 * and the chosen files' ELF/PE headers; loads nothing.
 *
 * Choice: one main library per requirement, explicit roots before default
 * roots, then the newest version, then root order. Its companions (cublasLt
 * beside cublas, cuDNN's sub-libraries) come from the same folder: mixing
 * folders mixes builds. Order: dependencies first (ELF NEEDED / PE imports
 * within the chosen set). Sub-libraries the main library opens lazily are
 * preloaded only when it could not find them itself (no RUNPATH $ORIGIN),
 * or when the scan found a bundled copy of the main library (auditwheel's
 * <pkg>.libs/libcudnn-<hex>.so.8...) that opens them by name from a folder
 * without them.
 *
 * This file chooses each requirement's files and the plan's CUDA major;
 * beside it: plan_candidates.c (is a file good enough, and better than
 * another), plan_dependencies.c (what the chosen files need),
 * plan_settle.c (what is loaded, in which order), plan_record.c (the
 * entries and warnings recorded) and plan_paths.c (one folder, one file).
 */
#include "binary/binary.h"
#include "binary/binary_symbols.h"
#include "binary/file_cache.h"
#include "loader/bind.h"
#include "scan/consumers.h"
#include "core/context.h"
#include "load/spec.h"
#include "load/plan.h"
#include "load/program.h"
#include "scan/catalog_wheels.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"
#include "scan/driver_version.h"
#include "common/buf.h"
#include "common/error.h"
#include "load/fix_lines.h"
#include "os/loader.h"
#include "scan/machine.h"
#include "os/platform.h"
#include "loader/resolve.h"
#include "load/verdict.h"
#include "scan/roots.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/plan_state.h"
#include "problem/problem_words.h"
#include "problem/fix_words.h"
#include "load/plan_candidates.h"
#include "load/plan_dependencies.h"
#include "load/plan_paths.h"
#include "load/plan_record.h"
#include "load/plan_settle.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_KNOWN_PLAN_FLAGS                                                    \
  (CUDALOAD_PRELOAD_GLOBAL | CUDALOAD_PRELOAD_ALL_SUBLIBS |                    \
   CUDALOAD_PRELOAD_PARTIAL)

/* A planned library whose version source the scan passed over, because
 * others can write to it: a plan warning naming that source. */
static int warn_distrusted_versions(cudaload_ctx *ctx) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count && !rc; ++i) {
    const cl_library *lib =
        cl_inventory_library_at(ctx, cl_plan_state_of(ctx)->plan[i].path);
    if (!lib || lib->pending_folder || !lib->version_distrust)
      continue;
    cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_VERSION_UNTRUSTED);
    cl_plan_fact(&p, CUDALOAD_FACT_PATH, lib->path);
    cl_plan_fact(&p, CUDALOAD_FACT_VERSION,
                 lib->version[0] ? lib->version : NULL);
    cl_plan_fact(&p, CUDALOAD_FACT_VALUE,
                 lib->version[0] ? lib->version_source : NULL);
    cl_plan_fact(&p, CUDALOAD_FACT_REASON, lib->version_distrust);
    cl_fix_add_note(&p.fix, CL_NOTE_OWNER_WRITABLE_OR_ALLOW_WRITABLE);
    rc = cl_plan_add_warning(ctx, &p, lib->path);
  }
  return rc;
}

/* --- one CUDA major per plan (docs/scan-contract.md, "One CUDA major") --- */

/* The CUDA major a requirement names by itself: cudart=12, cublas=13 (their
 * major is the CUDA major); 0 for cudnn=9, built for several. */
static int named_cuda_major(const cl_requirement *r) {
  if (r->op != CL_OP_EQ)
    return 0;
  return cl_catalog_cuda_major(r->entry, (int)r->version[0]);
}

/* "cudnn=9" is decided by the major the file name gives; anything finer
 * needs the version (a wheel's is looked up then). */
static int needs_version(const cl_requirement *r) {
  return r->at_least_parts ||
         (r->op != CL_OP_ANY && !(r->op == CL_OP_EQ && r->version_parts == 1));
}

/* Which requirements' candidates carry a CUDA major, by tier: the majors
 * present (bit per major < 64) in each tier. */
static void majors_by_tier(cudaload_ctx *ctx,
                           uint64_t present[CL_TIER_SYSTEM + 1]) {
  memset(present, 0, sizeof(uint64_t) * (CL_TIER_SYSTEM + 1));
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count; ++i) {
    cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    int wanted = 0;
    for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count && !wanted;
         ++r)
      wanted = cl_plan_state_of(ctx)->requirements[r].entry == lib->entry;
    if (!wanted)
      continue;
    int cuda = cl_library_cuda_major(ctx, lib);
    if (cuda > 0 && cuda < 64)
      present[cl_origin_tier(cl_inventory_of(ctx)->roots[lib->root].origin)] |=
          (uint64_t)1 << cuda;
  }
}

/* The newest major in a set, at most `limit` when limit > 0. */
static int newest_major(uint64_t set, int limit) {
  for (int m = 63; m > 0; --m)
    if ((set >> m) & 1 && (limit <= 0 || m <= limit))
      return m;
  return 0;
}

/* Does a file built for the plan's CUDA major satisfy r? Only then are
 * the others passed over: a file whose CUDA major is unknown, or another
 * major's, is better than none. */
static int plan_major_satisfies(cudaload_ctx *ctx, const cl_requirement *r) {
  char why[512];
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count; ++i) {
    cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    if (lib->entry != r->entry)
      continue;
    if (needs_version(r))
      cl_library_settle_version(ctx, lib);
    if (cl_library_cuda_major(ctx, lib) ==
            cl_plan_state_of(ctx)->plan_cuda_major &&
        cl_plan_satisfies(r, lib, why, sizeof why))
      return 1;
  }
  return 0;
}

/* Whether NVIDIA builds r's library for the plan's CUDA major (a wheel
 * ships it): then a file of another CUDA major does not satisfy r, even
 * when it is the only one at hand, and the fix installs that build. A
 * library with no build for the plan's major (cuDNN 8 on CUDA 13) may come
 * from another: the only way there is, which the plan says. */
static int plan_major_built(const cudaload_ctx *ctx, const cl_requirement *r) {
  long abi = r->op == CL_OP_EQ ? r->version[0] : 0;
  return cl_catalog_wheel_find(r->entry->family,
                               cl_plan_state_of(ctx)->plan_cuda_major, abi,
                               cl_ctx_naming(ctx)) != NULL;
}

/* Decide the plan's CUDA major, and say what decided it: a cuda=MAJOR pin,
 * a cudart=MAJOR requirement, the CUDA major of the libraries in the
 * strongest tier up to the active environment (the user activated it),
 * else the newest the driver supports, else the newest found. 0 when no
 * candidate carries a CUDA major: nothing is filtered. */
/* The CUDA major the requirements pin (cuda=12, or cudart=12), with why in
 * why; 0 when they pin none. */
static int pinned_cuda_major(const cudaload_ctx *ctx, char *why, size_t cap) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (ps->cuda_pin) {
    if (ps->cuda_pin_why)
      snprintf(why, cap, "%s", ps->cuda_pin_why);
    else
      snprintf(why, cap, CL_WORDS_PINNED_BY_CUDA, ps->cuda_pin);
    return ps->cuda_pin;
  }
  for (size_t r = 0; r < ps->requirement_count; ++r) {
    const cl_requirement *req = &ps->requirements[r];
    if (strcmp(req->entry->family, "cudart") == 0 && named_cuda_major(req)) {
      snprintf(why, cap, "pinned by %s", req->text);
      return named_cuda_major(req);
    }
  }
  return 0;
}

/* The CUDA major of the first tier that has libraries, the explicit roots
 * then the active environment (the newest the driver supports, else the
 * newest), with why in why; 0 when neither has any. */
static int tier_cuda_major(const uint64_t *present, int driver_limit, char *why,
                           size_t cap) {
  for (int t = CL_TIER_EXPLICIT; t <= CL_TIER_ENVIRONMENT; ++t) {
    if (!present[t])
      continue;
    int major = newest_major(present[t], driver_limit);
    if (!major) /* the driver supports none of them: still what they mean */
      major = newest_major(present[t], 0);
    snprintf(why, cap, CL_WORDS_THE_CUDA_MAJOR_OF_THE,
             t == CL_TIER_EXPLICIT ? "explicit" : "active environment's",
             t == CL_TIER_EXPLICIT ? "roots" : "folders");
    return major;
  }
  return 0;
}

static int decide_cuda_major(cudaload_ctx *ctx) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  free(ps->plan_cuda_reason);
  ps->plan_cuda_reason = NULL;
  ps->plan_cuda_major = 0;
  ps->plan_cuda_guessed = 0;
  char why[512] = "";
  int major = 0;
  /* The driver is read from files (its name, /proc, VERSIONINFO), never
   * loaded: planning loads nothing. */
  cl_driver_cuda driver;
  if (cl_driver_cuda_of(ctx, cl_ctx_naming(ctx), &driver) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  int driver_known = driver.found;
  int driver_limit = driver_known ? driver.max_major_compat : 0;
  uint64_t present[CL_TIER_SYSTEM + 1];
  majors_by_tier(ctx, present);
  /* The program's own CUDA major (--for), before a cudart requirement and
   * the libraries found: a stray wheel of another major beside it is not
   * what the program is built for. Only cuda=MAJOR comes first. */
  if (!ps->cuda_pin && ps->program_cuda_major) {
    major = ps->program_cuda_major;
    snprintf(why, sizeof why, CL_WORDS_THE_PROGRAM_S_OWN,
             ps->program_cuda_reason ? ps->program_cuda_reason : "");
  }
  if (!major)
    major = pinned_cuda_major(ctx, why, sizeof why);
  if (!major)
    major = tier_cuda_major(present, driver_limit, why, sizeof why);
  uint64_t all = 0;
  for (int t = 0; t <= CL_TIER_SYSTEM; ++t)
    all |= present[t];
  int guessed = !major;
  if (!major && all && driver_known && newest_major(all, driver_limit)) {
    major = newest_major(all, driver_limit);
    snprintf(why, sizeof why, CL_WORDS_THE_NEWEST_CUDA_MAJOR_THE,
             driver.version, driver.cuda_major, driver.cuda_minor,
             driver.path[0] ? driver.path
                            : (driver.source ? driver.source : "?"));
  } else if (!major && all) {
    major = newest_major(all, 0);
    snprintf(why, sizeof why, CL_WORDS_THE_NEWEST_CUDA_MAJOR_FOUND,
             driver_known ? CL_WORDS_THE_DRIVER_SUPPORTS_NONE_OF
                          : CL_WORDS_THE_DRIVER_WAS_NOT_CONSULTED);
  }
  if (!major)
    return CUDALOAD_OK;
  size_t used = strlen(why);
  if (driver_known && major > driver_limit && used < sizeof why)
    snprintf(why + used, sizeof why - used,
             CL_WORDS_THE_DRIVER_SUPPORTS_CUDA_UP, driver.version,
             driver.cuda_major, driver.cuda_minor);
  ps->plan_cuda_major = major;
  ps->plan_cuda_guessed = guessed;
  ps->plan_cuda_reason = cl_strdup(why);
  return ps->plan_cuda_reason ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* Record why a candidate was not taken (the text is copied). */
static int reject(cl_requirement_outcome *o, const char *path, const char *fmt,
                  ...) CL_PRINTF(3, 4);
static int reject(cl_requirement_outcome *o, const char *path, const char *fmt,
                  ...) {
  char why[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (cl_reserve((void **)&o->rejected, &o->rejected_capacity,
                 o->rejected_count + 1, sizeof *o->rejected))
    return CUDALOAD_E_NO_MEMORY;
  cl_rejection *r = &o->rejected[o->rejected_count];
  r->path = cl_strdup(path);
  r->why = cl_strdup(why);
  if (!r->path || !r->why) {
    free(r->path);
    free(r->why);
    return CUDALOAD_E_NO_MEMORY;
  }
  o->rejected_count++;
  return CUDALOAD_OK;
}

/* The roots searched, and for a refused one why (the first folder or
 * file others can write to) and the flag that accepts it. Returns whether
 * one was refused. */
static int describe_roots(cl_buf *b, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  int refused = 0;
  cl_buf_printf(b, "  searched %zu root%s:\n", inv->root_count,
                inv->root_count == 1 ? "" : "s");
  for (size_t i = 0; i < inv->root_count; ++i) {
    const cl_root *r = &inv->roots[i];
    cl_buf_printf(b, "    %s (%s%s%s)\n", r->path, r->origin,
                  r->status == CUDALOAD_OK ? "" : ", ",
                  r->status == CUDALOAD_OK ? ""
                  : r->status == CUDALOAD_E_INSECURE
                      ? CL_WORDS_WRITABLE_BY_OTHER_USERS_REFUSED
                  : r->status == CUDALOAD_E_NOT_FOUND  ? "not found"
                  : r->status == CUDALOAD_E_NOT_A_FILE ? "not a folder"
                                                       : "unreadable");
    if (r->status == CUDALOAD_E_INSECURE) {
      refused = 1;
      if (r->detail)
        cl_buf_printf(
            b, "      refused: %s; fix: %s, " CL_ALLOW_WRITABLE_RISK "\n",
            r->detail, r->fix ? r->fix : CL_WORDS_MAKE_IT_WRITABLE_ONLY_BY);
    }
  }
  return refused;
}

/* The main library and every sub-library of its family and major in its
 * folder (required and optional), main first. */
static int add_chosen(cudaload_ctx *ctx, cl_str_index *planned,
                      const cl_library *main_lib, size_t requirement) {
  char reason[256];
  snprintf(reason, sizeof reason, "required by %s",
           cl_plan_state_of(ctx)->requirements[requirement].text);
  int rc = cl_plan_add_entry(ctx, planned, main_lib, requirement, reason);
  snprintf(reason, sizeof reason, CL_WORDS_BELONGS_TO_SAME_FOLDER,
           cl_path_basename(main_lib->path));
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !rc; ++i) {
    const cl_library *l = &cl_inventory_of(ctx)->libraries[i];
    if (l->entry->role == CL_ROLE_SUB && l->major == main_lib->major &&
        strcmp(l->entry->family, main_lib->entry->family) == 0 &&
        cl_plan_same_folder(l->path, main_lib->path))
      rc = cl_plan_add_entry(ctx, planned, l, requirement, reason);
  }
  return rc;
}

/* What cudaload_require_for() found wrong with the program itself: a
 * warning of every plan. */
int cl_plan_add_program_warnings(cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < ps->program_warning_count && !rc; ++i) {
    cl_problem p;
    rc = cl_problem_copy(&p, &ps->program_warnings[i].problem);
    if (rc)
      cl_problem_free(&p);
    else
      rc = cl_plan_add_warning(ctx, &p, ps->program_warnings[i].file);
  }
  return rc;
}

/* Record a conflict (its record taken over: left empty) with provider
 * (taken over too). */
static int add_conflict(cudaload_ctx *ctx, char *provider,
                        cl_problem *problem) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps || cl_reserve((void **)&ps->conflicts, &ps->conflict_capacity,
                        ps->conflict_count + 1, sizeof(cl_conflict))) {
    free(provider);
    cl_problem_free(problem);
    return CUDALOAD_E_NO_MEMORY;
  }
  cl_conflict *c = &ps->conflicts[ps->conflict_count++];
  c->path = provider;
  c->problem = *problem;
  memset(problem, 0, sizeof *problem);
  c->text = cl_problem_words(&c->problem, CL_SHELL_POSIX) == CUDALOAD_OK
                ? cl_strdup_printf("%s. Fix: %s", c->problem.text,
                                   c->problem.fix_text)
                : NULL;
  return c->text ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* A required family's symbol that a consumer of the planned file would
 * bind somewhere else, because another file in the global scope answers
 * its reference first (docs/loader.md, "Linux: binding"). Which reference:
 * a consumer linked against the planned file records the version node of
 * its definition (cudnnCreate@libcudnn.so.8), and glibc binds that only to
 * a definition of the same node, or to an object without versions. So a
 * real cuDNN 9 in the global scope takes nothing from a cuDNN 8 consumer,
 * while an unversioned build of it would, and so would a second copy of
 * the same node (two cuDNN 9 of different minors: the first loaded wins
 * for everyone). */
/* The main library planned for requirement r (the last in plan order), or
 * NULL. */
static const cl_plan_entry *planned_main_of(const cudaload_ctx *ctx, size_t r) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  const cl_plan_entry *planned = NULL;
  for (size_t i = 0; i < ps->plan_count; ++i)
    if (ps->plan[i].requirement == r && ps->plan[i].entry->role == CL_ROLE_MAIN)
      planned = &ps->plan[i];
  return planned;
}

/* The file in the global scope that would take a consumer's reference to
 * symbol instead of planned (malloc'ed), or NULL; *version the version
 * node of planned's definition (malloc'ed, NULL: none). */
static char *global_rival(const cl_plan_entry *planned, const char *symbol,
                          char **version) {
  *version = NULL;
  /* A cheap unversioned look first: when nothing in the global scope
   * defines the name, or only the planned file does, nothing can take
   * the consumers' calls, and no file needs reading. */
  char *provider = cl_os_loader_global_provider(symbol, NULL);
  if (!provider || cl_plan_same_file(provider, planned->path)) {
    free(provider);
    return NULL;
  }
  cl_bind_definition_version(planned->path, symbol, version);
  if (*version) {
    /* What the loader gives a reference of that version. */
    free(provider);
    provider = cl_os_loader_global_provider(symbol, *version);
    if (!provider || cl_plan_same_file(provider, planned->path)) {
      free(provider);
      free(*version);
      *version = NULL;
      return NULL;
    }
  }
  return provider;
}

int cl_plan_detect_conflicts(cudaload_ctx *ctx) {
  cl_plan_clear_conflicts(ctx);
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r) {
    const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
    const char *symbol = req->entry->scope_probe_symbol;
    const cl_plan_entry *planned = symbol ? planned_main_of(ctx, r) : NULL;
    if (!planned)
      continue;
    char *version;
    char *provider = global_rival(planned, symbol, &version);
    if (!provider)
      continue;
    cl_name_match m;
    int is_family =
        cl_catalog_match(cl_path_basename(provider), CL_NAMING_LINUX, &m) &&
        strcmp(m.entry->family, req->entry->family) == 0;
    int duplicate = 0;
    for (size_t i = 0; i < cl_plan_state_of(ctx)->conflict_count; ++i)
      duplicate |=
          strcmp(cl_plan_state_of(ctx)->conflicts[i].path, provider) == 0;
    /* Without versions, only another major is a conflict here: the same
     * major from another file is the process's choice of that library. */
    if (!is_family || duplicate || (!version && m.major == planned->major)) {
      free(provider);
      free(version);
      continue;
    }
    /* The rival (its family and major, the version node it answers) and
     * the planned file whose consumers' references it takes. */
    cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_CONFLICT);
    cl_plan_fact(&p, CUDALOAD_FACT_PATH, provider);
    cl_plan_fact(&p, CUDALOAD_FACT_FAMILY, req->entry->family);
    cl_plan_fact_int(&p, CUDALOAD_FACT_MAJOR, m.major);
    cl_plan_fact(&p, CUDALOAD_FACT_VERSION_NODE, version);
    cl_plan_fact(&p, CUDALOAD_FACT_OTHER_PATH, planned->path);
    cl_plan_fact_int(&p, CUDALOAD_FACT_WANTED, planned->major);
    cl_plan_fact(&p, CUDALOAD_FACT_SYMBOL, symbol);
    cl_fix_add_note(&p.fix, CL_NOTE_OPEN_THE_CONSUMER_ISOLATED,
                    cl_path_basename(provider));
    free(version);
    if (add_conflict(ctx, provider, &p))
      return CUDALOAD_E_NO_MEMORY;
  }
  return CUDALOAD_OK;
}

/* Judge library i for requirement r: rejected (the outcome says why), or
 * the best so far (*best; the one it displaces is rejected). */
static int judge_candidate(cudaload_ctx *ctx, size_t r, size_t i, int filter,
                           const cl_companion_index *companions,
                           const cl_library **best) {
  const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
  cl_requirement_outcome *o = &cl_plan_state_of(ctx)->outcomes[r];
  const cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
  char why[512];
  const cl_catalog_entry *missing;
  int rc = CUDALOAD_OK;
  if (needs_version(req))
    cl_library_settle_version(ctx, &cl_inventory_of(ctx)->libraries[i]);
  const char *machine = NULL;
  if (!cl_plan_satisfies(req, lib, why, sizeof why))
    return reject(o, lib->path, "%s", why);
  if ((machine =
           cl_plan_foreign_machine(ctx, &cl_inventory_of(ctx)->libraries[i])))
    return reject(o, lib->path, CL_WORDS_BUILT_FOR_THIS_PROCESS_RUNS, machine,
                  cl_ctx_machine(ctx));
  int cuda =
      filter ? cl_library_cuda_major(ctx, cl_inventory_memo_of(ctx, i)) : 0;
  if (cuda > 0 && cuda != cl_plan_state_of(ctx)->plan_cuda_major)
    return reject(o, lib->path, CL_WORDS_BUILT_FOR_CUDA_THE_PLAN, cuda,
                  cl_plan_state_of(ctx)->plan_cuda_major,
                  cl_plan_state_of(ctx)->plan_cuda_reason);
  if ((missing = cl_plan_missing_companion(companions, lib, &rc)))
    return reject(o, lib->path, CL_WORDS_IS_NOT_IN_THE_SAME, missing->name,
                  lib->major);
  if (rc)
    return rc;
  if (!*best || cl_plan_better(ctx, lib, *best)) {
    if (*best)
      rc = reject(o, (*best)->path, "%s was preferred", lib->path);
    *best = lib;
    return rc;
  }
  return reject(o, lib->path, "%s was preferred", (*best)->path);
}

/* Whether two paths are one folder's files whose names differ only in
 * letter case. */
static int case_twins(const char *a, const char *b) {
  const char *na = cl_path_basename(a), *nb = cl_path_basename(b);
  if ((size_t)(na - a) != (size_t)(nb - b) || strncmp(a, b, (size_t)(na - a)) ||
      !strcmp(na, nb) || strlen(na) != strlen(nb))
    return 0;
  for (; *na; ++na, ++nb)
    if (cl_ascii_lower(*na) != cl_ascii_lower(*nb))
      return 0;
  return 1;
}

/* A Windows name spelt twice in one folder (possible in a case-sensitive
 * one, and in a tree copied from Linux): Windows takes both for one name
 * and loads whichever it meets first, so the plan says which it took. */
static int warn_case_twins(cudaload_ctx *ctx, const cl_library *chosen) {
  if (cl_ctx_naming(ctx) != CL_NAMING_WINDOWS)
    return CUDALOAD_OK;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count; ++i) {
    const cl_library *other = &cl_inventory_of(ctx)->libraries[i];
    if (other == chosen || !case_twins(chosen->path, other->path))
      continue;
    cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_CASE_TWINS);
    cl_plan_fact(&p, CUDALOAD_FACT_PATH, chosen->path);
    cl_plan_fact(&p, CUDALOAD_FACT_OTHER_PATH, other->path);
    cl_fix_add_note(&p.fix, CL_NOTE_CASE_TWINS_DELETE_THE_OTHER);
    int rc = cl_plan_add_warning(ctx, &p, chosen->path);
    if (rc)
      return rc;
  }
  return CUDALOAD_OK;
}

/* --- what a program already in the environment binds ------------------- */

/* The environment-tier library of lib's entry and major in another file,
 * of the same name (a planned copy of it loaded first would be used in its
 * place, by name), or NULL. */
static cl_library *environment_twin(cudaload_ctx *ctx, const cl_library *lib) {
  if (cl_origin_tier(cl_inventory_of(ctx)->roots[lib->root].origin) ==
      CL_TIER_ENVIRONMENT)
    return NULL;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count; ++i) {
    cl_library *e = &cl_inventory_of(ctx)->libraries[i];
    if (e != lib && e->entry == lib->entry && e->major == lib->major &&
        cl_origin_tier(cl_inventory_of(ctx)->roots[e->root].origin) ==
            CL_TIER_ENVIRONMENT &&
        !strcmp(cl_path_basename(e->path), cl_path_basename(lib->path)))
      return e;
  }
  return NULL;
}

/* The first program file (ctx's program, else the programs installed in
 * twin's environment root) whose own load, as it is, maps twin: it binds
 * that file by its RPATH or RUNPATH. A copy of that name preloaded first
 * would be used in its place. malloc'ed path, or NULL. */
static char *program_binding(cudaload_ctx *ctx, const cl_library *twin,
                             int *rc) {
  char **files = cl_plan_state_of(ctx)->program_files;
  size_t count = cl_plan_state_of(ctx)->program_file_count;
  cl_program_set own = {0};
  if (!count) {
    *rc = cl_program_files_in(ctx, cl_inventory_of(ctx)->roots[twin->root].path,
                              &own);
    files = own.files;
    count = own.file_count;
  }
  char *binder = NULL;
  for (size_t i = 0; !*rc && !binder && i < count; ++i) {
    cl_loader_model m;
    /* no model: that program tells nothing */
    int no_model = cl_loader_model_init_system_quiet(&m) != CUDALOAD_OK;
    if (no_model)
      break;
    cl_load_tree t;
    memset(&t, 0, sizeof t);
    *rc = cl_resolve_load(&m, files[i], NULL, NULL, &t);
    for (size_t k = 0; !*rc && !binder && k < t.object_count; ++k)
      if (cl_plan_same_file(t.objects[k].path, twin->path) &&
          !(binder = cl_strdup(files[i])))
        *rc = CUDALOAD_E_NO_MEMORY;
    cl_load_tree_free(&t);
    cl_loader_model_free(&m);
  }
  cl_program_set_free(&own);
  return binder;
}

/* What one consumer already in the environment binds (torch's pinned
 * cuDNN, through its RPATH) is kept: a requirement given for another
 * consumer does not replace it with a file of the same name from another
 * root, which, loaded first, every program would get. The program's own
 * copy is taken when it satisfies the requirement; else the plan says the
 * two cannot share the process, unless the binder is the program planned
 * for (--for): then the requirement is that program's own, its copy fails
 * it, and the planned file loaded first in its place is the fix (torch
 * 2.5.1's wheel folder holding NCCL 2.18.1 where it pins 2.21.5).
 * Returns the library to plan. */
static const cl_library *kept_for_programs(cudaload_ctx *ctx, size_t r,
                                           const cl_library *best, int *rc) {
  cl_library *twin = best ? environment_twin(ctx, best) : NULL;
  char *binder = twin ? program_binding(ctx, twin, rc) : NULL;
  if (!binder)
    return best;
  const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
  cl_requirement_outcome *o = &cl_plan_state_of(ctx)->outcomes[r];
  char why[512];
  cl_library_settle_version(ctx, twin);
  if (cl_plan_satisfies(req, twin, why, sizeof why)) {
    *rc = reject(o, best->path, CL_WORDS_BINDS_THROUGH_ITS_OWN_SEARCH, binder,
                 twin->path);
    free(binder);
    return twin;
  }
  if (cl_plan_state_of(ctx)->program_file_count) {
    *rc = reject(o, twin->path, CL_WORDS_BINDS_IT_BUT_THE_PLANNED_FILE_IS_USED,
                 binder, why);
    free(binder);
    return best;
  }
  cl_problem p = cl_plan_warning_record(CUDALOAD_PROBLEM_SHARED_NAME);
  cl_plan_fact(&p, CUDALOAD_FACT_PATH, best->path);
  cl_plan_fact(&p, CUDALOAD_FACT_REQUIREMENT, req->text);
  cl_plan_fact(&p, CUDALOAD_FACT_OTHER_PATH, twin->path);
  cl_plan_fact(&p, CUDALOAD_FACT_CONSUMER, binder);
  cl_plan_fact(&p, CUDALOAD_FACT_REASON, why);
  cl_fix_add_note(&p.fix, CL_NOTE_RUN_IN_A_PROCESS_OF_ITS_OWN);
  *rc = cl_plan_add_warning(ctx, &p, cl_path_basename(best->path));
  free(binder);
  return best;
}

/* When every candidate of the plan's CUDA major is refused: a file of the
 * active environment that satisfies r and that a program there binds
 * through its own search list (torch 2.15's CUDA 13 cuDNN 9, beside a
 * cuDNN 8 and cuBLAS 12 planned for ctranslate2) is that program's own,
 * and planned as the second CUDA major it is. NULL when there is none. */
static const cl_library *bound_by_a_program(cudaload_ctx *ctx, size_t r,
                                            int *rc) {
  const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !*rc; ++i) {
    cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    char why[512];
    if (lib->entry != req->entry ||
        cl_origin_tier(cl_inventory_of(ctx)->roots[lib->root].origin) !=
            CL_TIER_ENVIRONMENT ||
        cl_plan_foreign_machine(ctx, lib))
      continue;
    cl_library_settle_version(ctx, lib);
    if (!cl_plan_satisfies(req, lib, why, sizeof why))
      continue;
    char *binder = program_binding(ctx, lib, rc);
    if (binder) {
      free(binder);
      return lib;
    }
  }
  return NULL;
}

/* Choose the file for requirement r among the inventory and plan it, or
 * count it unsatisfied (with its fix). */
static int plan_requirement(cudaload_ctx *ctx, size_t r,
                            const cl_companion_index *companions,
                            cl_str_index *planned, size_t *unsatisfied) {
  const cl_requirement *req = &cl_plan_state_of(ctx)->requirements[r];
  cl_requirement_outcome *o = &cl_plan_state_of(ctx)->outcomes[r];
  const cl_library *best = NULL;
  int rc = CUDALOAD_OK;
  /* One CUDA major per plan, unless the requirement names another itself
   * (cublas=12 beside CUDA 13: deliberate), or nothing of the plan's major
   * satisfies it (cudnn=8 has no CUDA 13 build): then it takes the best
   * there is, and the outcome says which major. */
  int filter = cl_plan_state_of(ctx)->plan_cuda_major &&
               !named_cuda_major(req) &&
               (plan_major_satisfies(ctx, req) || plan_major_built(ctx, req));
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !rc; ++i)
    if (cl_inventory_of(ctx)->libraries[i].entry == req->entry)
      rc = judge_candidate(ctx, r, i, filter, companions, &best);
  if (!rc)
    best = kept_for_programs(ctx, r, best, &rc);
  if (!rc && !best && filter)
    best = bound_by_a_program(ctx, r, &rc);
  int best_cuda =
      !rc && best && cl_plan_state_of(ctx)->plan_cuda_major
          ? cl_library_cuda_major(
                ctx, cl_inventory_memo_of(
                         ctx, (size_t)(best - cl_inventory_of(ctx)->libraries)))
          : 0;
  if (best_cuda > 0 && best_cuda != cl_plan_state_of(ctx)->plan_cuda_major)
    o->second_major = best_cuda;
  o->chosen =
      best ? (size_t)(best - cl_inventory_of(ctx)->libraries) : SIZE_MAX;
  if (rc)
    return rc; /* out of memory: reported by the caller */
  if (best && (rc = warn_case_twins(ctx, best)))
    return rc;
  if (best)
    return add_chosen(ctx, planned, best, r);
  ++*unsatisfied;
  /* A file of the family was there but refused because others can write
   * to it: the permission is the problem, not a missing package. */
  const cl_refusal *refused = cl_inventory_refused(
      ctx, req->entry->family, req->op == CL_OP_EQ ? (int)req->version[0] : 0);
  if (refused)
    cl_fix_add_note(&o->fix_steps, CL_NOTE_REFUSED_AS_WRITABLE_RUN_AGAIN,
                    refused->fix, CL_ALLOW_WRITABLE_RISK);
  else {
    cl_fix_cuda cuda;
    cl_fix_for_missing_steps(ctx, req, &o->fix_steps, &cuda);
    o->fix_cuda_major = cuda.major;
    o->fix_cuda_source = cuda.source;
    o->fix_cuda_why = cuda.why[0] ? cl_strdup(cuda.why) : NULL;
    o->fix_steps.failed |= cuda.why[0] && !o->fix_cuda_why;
  }
  o->fix =
      cl_fix_line_text(&o->fix_steps, cl_ctx_naming(ctx) == CL_NAMING_WINDOWS
                                          ? CL_SHELL_CMD_AND_POWERSHELL
                                          : CL_SHELL_POSIX);
  return o->fix ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* Each requirement's file, then what those files need: lazy dependencies,
 * the consumers' NEEDED libraries, the chosen files' own NEEDED ones. */
static int plan_requirements(cudaload_ctx *ctx, size_t *unsatisfied) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  cl_companion_index companions;
  int rc = cl_companion_index_build(ctx, &companions);
  cl_str_index planned;
  cl_str_index_init(&planned, 0);
  if (!rc && ps->requirement_count) {
    ps->outcomes = calloc(ps->requirement_count, sizeof *ps->outcomes);
    if (!ps->outcomes)
      rc = CUDALOAD_E_NO_MEMORY;
    else
      ps->outcome_count = ps->requirement_count;
  }
  if (!rc)
    rc = decide_cuda_major(ctx);
  for (size_t r = 0; r < ps->requirement_count && !rc; ++r)
    rc = plan_requirement(ctx, r, &companions, &planned, unsatisfied);
  if (!rc)
    rc = cl_plan_add_lazy_dependencies(ctx, &planned, &companions);
  if (!rc)
    rc = cl_plan_add_named_opens(ctx, &planned, &companions);
  if (!rc)
    rc = cl_plan_add_consumer_needs(ctx, &planned, &companions);
  if (!rc)
    rc = cl_plan_add_optional_needs(ctx, &planned);
  if (!rc)
    rc = cl_plan_add_program_warnings(ctx);
  if (!rc)
    rc = cl_plan_add_needed_dependencies(ctx, &planned, &companions);
  cl_companion_index_free(&companions);
  cl_str_index_free(&planned);
  return rc;
}

/* The explanation of every unsatisfied requirement of the last plan, as
 * cudaload_last_error() has it after cudaload_plan() (what is missing, the
 * roots searched, each candidate rejected and why, the fix), rendered from
 * cl_plan_state_of(ctx)->outcomes; malloc'ed, NULL when memory runs out. */
static char *unsatisfied_report(const cudaload_ctx *ctx);

static int plan_held(cudaload_ctx *ctx, unsigned flags);

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_plan(cudaload_ctx *ctx, unsigned flags) {
  int rc = plan_held(ctx, flags);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int plan_held(cudaload_ctx *ctx, unsigned flags) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_plan: NULL ctx");
  if (flags & ~CL_KNOWN_PLAN_FLAGS)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_plan: unknown flag bits 0x%x",
                   flags & ~CL_KNOWN_PLAN_FLAGS);
  if (!cl_inventory_of(ctx)->scanned) {
    int rc = cudaload_scan(ctx);
    if (rc)
      return rc;
  }
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  cl_ctx_clear_plan(ctx);
  size_t unsatisfied = 0;
  int rc = plan_requirements(ctx, &unsatisfied);
  if (!rc)
    rc = warn_distrusted_versions(ctx);
  if (!rc)
    rc = cl_plan_settle(ctx, flags);
  if (!rc)
    rc = cl_plan_detect_conflicts(ctx);
  ps->planned = rc == CUDALOAD_OK;
  /* The names the plan searched for are kept for the next process now: a
   * host that plans and exits without destroying the context (Python's
   * setup() leaves its context to the report) would otherwise keep none. */
  cl_file_cache_save(ctx->file_cache);
  if (rc == CUDALOAD_E_NO_MEMORY)
    return cl_fail(rc, "cudaload_plan: out of memory");
  if (rc) /* never called out of memory: the helper's error, or the status */
    return *cudaload_last_error()
               ? rc
               : cl_fail(rc, "cudaload_plan: %s", cudaload_strerror(rc));
  if (unsatisfied) {
    char *report = unsatisfied_report(ctx);
    rc = cl_fail(CUDALOAD_E_UNSATISFIED, "%s",
                 report ? report : "requirements unsatisfied");
    free(report);
    return rc;
  }
  return CUDALOAD_OK;
}

static char *unsatisfied_report(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf b = CL_BUF_INIT;
  for (size_t r = 0; r < ps->outcome_count; ++r) {
    const cl_requirement *req = &ps->requirements[r];
    const cl_requirement_outcome *o = &ps->outcomes[r];
    if (o->chosen != SIZE_MAX)
      continue;
    /* The verdict and its fix first, on one line (issue 46): the rest
     * says where the search looked and what it passed over. */
    cl_problem_unsatisfied_verdict(&b, req->text, req->entry->family, o->fix);
    int refused = describe_roots(&b, ctx);
    for (size_t i = 0; i < o->rejected_count; ++i)
      cl_problem_unsatisfied_rejected(&b, i, o->rejected[i].path,
                                      o->rejected[i].why);
    if (!o->rejected_count)
      cl_problem_unsatisfied_unnamed(&b, req->entry->name, refused);
  }
  return cl_buf_take(&b);
}

/* Accessors. */
static const cl_plan_entry *plan_at(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->plan_count ? &ps->plan[i] : NULL;
}

size_t cudaload_plan_count(const cudaload_ctx *ctx) {
  return ctx ? cl_plan_state_of(ctx)->plan_count : 0;
}

const char *cudaload_plan_path(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_entry *p = plan_at(ctx, i);
  return p ? p->path : NULL;
}

const char *cudaload_plan_name(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_entry *p = plan_at(ctx, i);
  return p ? p->entry->name : NULL;
}

int cudaload_plan_major(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_entry *p = plan_at(ctx, i);
  return p ? p->major : -1;
}

const char *cudaload_plan_reason(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_entry *p = plan_at(ctx, i);
  return p ? p->reason : NULL;
}

const char *cudaload_plan_state_name(int state) {
  static const char *const names[] = {"planned",        "loaded",
                                      "already-loaded", "loaded-elsewhere",
                                      "failed",         "not-needed"};
  if (state < 0 || (size_t)state >= sizeof names / sizeof *names)
    return NULL;
  return names[state];
}

int cudaload_plan_state(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_entry *p = plan_at(ctx, i);
  return p ? p->state : -1;
}

const char *cudaload_plan_loaded_path(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_entry *p = plan_at(ctx, i);
  return p ? p->loaded_path : NULL;
}

size_t cudaload_conflict_count(const cudaload_ctx *ctx) {
  return ctx ? cl_plan_state_of(ctx)->conflict_count : 0;
}

const char *cudaload_conflict_path(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->conflict_count ? ps->conflicts[i].path : NULL;
}

const char *cudaload_conflict_text(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->conflict_count ? ps->conflicts[i].text : NULL;
}

int cudaload_plan_cuda_major(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && ps->planned ? ps->plan_cuda_major : 0;
}

const char *cudaload_plan_cuda_reason(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && ps->planned && ps->plan_cuda_major ? ps->plan_cuda_reason
                                                   : NULL;
}

size_t cudaload_plan_warning_count(const cudaload_ctx *ctx) {
  return ctx ? cl_plan_state_of(ctx)->plan_warning_count : 0;
}

const char *cudaload_plan_warning(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->plan_warning_count ? ps->plan_warnings[i].text : NULL;
}

size_t cudaload_requirement_library(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && ps->planned && i < ps->outcome_count ? ps->outcomes[i].chosen
                                                     : (size_t)-1;
}
