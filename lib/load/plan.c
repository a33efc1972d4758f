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
 */
#include "binary/binary.h"
#include "binary/binary_symbols.h"
#include "binary/file_cache.h"
#include "load/bind.h"
#include "scan/consumers.h"
#include "core/context.h"
#include "load/spec.h"
#include "load/plan.h"
#include "load/program.h"
#include "scan/catalog_wheels.h"
#include "scan/inventory.h"
#include "scan/driver_version.h"
#include "common/buf.h"
#include "common/error.h"
#include "load/fix_lines.h"
#include "os/loader.h"
#include "scan/machine.h"
#include "os/platform.h"
#include "load/resolve.h"
#include "load/verdict.h"
#include "scan/roots.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/plan_state.h"
#include "problem/problem_words.h"
#include "problem/fix_words.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_KNOWN_PLAN_FLAGS                                                    \
  (CUDALOAD_PRELOAD_GLOBAL | CUDALOAD_PRELOAD_ALL_SUBLIBS |                    \
   CUDALOAD_PRELOAD_PARTIAL)

static int library_version(const cl_library *lib,
                           long parts[CL_VERSION_PARTS]) {
  int n = lib->version[0] ? cl_version_parse(lib->version, parts) : 0;
  if (n == 0) { /* only the major is known */
    memset(parts, 0, sizeof(long) * CL_VERSION_PARTS);
    parts[0] = lib->major;
  }
  return n;
}

/* Does lib satisfy r by the version the scan told? If not, why. */
static int satisfies_by_version(const cl_requirement *r, const cl_library *lib,
                                char *why, size_t why_len) {
  long v[CL_VERSION_PARTS];
  int known = library_version(lib, v);
  int parts = known ? known : 1;
  if (r->at_least_parts) {
    if (!known) {
      snprintf(why, why_len,
               "its version is unknown (nothing on disk tells more than the "
               "major), so the least version its program pins cannot be "
               "checked");
      return 0;
    }
    if (cl_version_compare(v, parts, r->at_least, r->at_least_parts) < 0) {
      char least[64] = "";
      for (int i = 0; i < r->at_least_parts; ++i) {
        size_t used = strlen(least);
        snprintf(least + used, sizeof least - used, "%s%ld", i ? "." : "",
                 r->at_least[i]);
      }
      snprintf(why, why_len,
               "version %s is older than %s, which its program pins",
               lib->version, least);
      return 0;
    }
  }
  if (r->op == CL_OP_ANY)
    return 1;
  if (r->op == CL_OP_EQ) {
    if (lib->major != r->version[0]) {
      snprintf(why, why_len, "major %d, not %ld", lib->major, r->version[0]);
      return 0;
    }
    if (r->version_parts > 1 && !known) {
      snprintf(why, why_len,
               "its version is unknown (nothing on disk tells more than the "
               "major), so %s cannot be checked",
               r->text);
      return 0;
    }
    for (int i = 1; i < r->version_parts; ++i)
      if (i >= parts || v[i] != r->version[i]) {
        snprintf(why, why_len, "version %s does not match %s", lib->version,
                 r->text);
        return 0;
      }
    return 1;
  }
  /* Ranges: with an unknown version, only the major can decide. */
  int cmp = cl_version_compare(v, parts, r->version, r->version_parts);
  int decided_by_major = lib->major != r->version[0];
  if (!known && !decided_by_major && r->version_parts > 1) {
    snprintf(why, why_len,
             "its version is unknown (only major %d), so %s cannot be "
             "checked",
             lib->major, r->text);
    return 0;
  }
  int ok = (r->op == CL_OP_GE && cmp >= 0) || (r->op == CL_OP_GT && cmp > 0) ||
           (r->op == CL_OP_LE && cmp <= 0) || (r->op == CL_OP_LT && cmp < 0);
  if (!ok)
    snprintf(why, why_len, "version %s is outside %s",
             lib->version[0] ? lib->version : "(major only)", r->text);
  return ok;
}

/* Does lib satisfy r? If not, why (into why), with the version source the
 * scan passed over because others can write to it, when there was one:
 * that is why the version is unknown or another. */
static int satisfies(const cl_requirement *r, const cl_library *lib, char *why,
                     size_t why_len) {
  int ok = satisfies_by_version(r, lib, why, why_len);
  if (!ok && lib->version_distrust) {
    size_t used = strlen(why);
    snprintf(why + used, why_len - used,
             " (a source of its version was passed over: %s)",
             lib->version_distrust);
  }
  return ok;
}

/* A plan's warning of kind, its facts from the machine (fact(), below). */
static cl_problem warning_record(int kind) {
  cl_problem p;
  cl_problem_init(&p, kind);
  return p;
}

static void fact(cl_problem *p, int which, const char *value) {
  cl_problem_fact(NULL, p, which, CUDALOAD_FROM_MACHINE, value);
}

static void fact_int(cl_problem *p, int which, long value) {
  cl_problem_factf(NULL, p, which, CUDALOAD_FROM_MACHINE, "%ld", value);
}

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

/* A planned library whose version source the scan passed over, because
 * others can write to it: a plan warning naming that source. */
static int warn_distrusted_versions(cudaload_ctx *ctx) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count && !rc; ++i) {
    const cl_library *lib =
        cl_inventory_library_at(ctx, cl_plan_state_of(ctx)->plan[i].path);
    if (!lib || lib->pending_folder || !lib->version_distrust)
      continue;
    cl_problem p = warning_record(CUDALOAD_PROBLEM_VERSION_UNTRUSTED);
    fact(&p, CUDALOAD_FACT_PATH, lib->path);
    fact(&p, CUDALOAD_FACT_VERSION, lib->version[0] ? lib->version : NULL);
    fact(&p, CUDALOAD_FACT_VALUE, lib->version[0] ? lib->version_source : NULL);
    fact(&p, CUDALOAD_FACT_REASON, lib->version_distrust);
    cl_fix_add_note(&p.fix, CL_NOTE_OWNER_WRITABLE_OR_ALLOW_WRITABLE);
    rc = cl_plan_add_warning(ctx, &p, lib->path);
  }
  return rc;
}

static int same_folder(const char *a, const char *b) {
  const char *ba = cl_path_basename(a), *bb = cl_path_basename(b);
  return ba - a == bb - b && memcmp(a, b, (size_t)(ba - a)) == 0;
}

/* The folders of two files are one folder on disk, however spelt (a
 * program given through a symlinked venv). */
static int same_folder_on_disk(const char *a, const char *b) {
  char *fa = cl_path_dirname(a), *fb = cl_path_dirname(b);
  cl_file_identity ia, ib;
  char *kept = cl_save_error(); /* a folder not there is not the same one */
  int same = fa && fb && cl_os_file_identity(fa, &ia) &&
             cl_os_file_identity(fb, &ib) && ia.device == ib.device &&
             ia.inode == ib.inode;
  cl_restore_error(kept);
  free(fa);
  free(fb);
  return same;
}

/* The required companions the inventory holds, by (catalog entry, major,
 * folder): checking a candidate is then a few lookups, where a pass over
 * the inventory per candidate made a folder of many candidates quadratic. */
typedef struct companion_index {
  cl_str_index index;
  char **keys; /* owned; borrowed by index */
  size_t count, capacity;
} companion_index;

/* "<entry>.<major>:<folder of path, with its trailing separator>"; the
 * folder part is what same_folder() compares. malloc'ed. */
static char *companion_key(const cl_catalog_entry *entry, int major,
                           const char *path) {
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  size_t folder_len = (size_t)(cl_path_basename(path) - path);
  char head[48];
  int n = snprintf(head, sizeof head, "%lu.%d:", (unsigned long)(entry - all),
                   major);
  char *key = n > 0 ? malloc((size_t)n + folder_len + 1) : NULL;
  if (key) {
    memcpy(key, head, (size_t)n);
    memcpy(key + n, path, folder_len);
    key[(size_t)n + folder_len] = '\0';
  }
  return key;
}

static void companion_index_free(companion_index *c) {
  cl_str_index_free(&c->index);
  for (size_t i = 0; i < c->count; ++i)
    free(c->keys[i]);
  free(c->keys);
}

static int companion_index_build(const cudaload_ctx *ctx, companion_index *c) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  memset(c, 0, sizeof *c);
  cl_str_index_init(&c->index, 0);
  for (size_t i = 0; i < inv->library_count; ++i) {
    const cl_library *l = &inv->libraries[i];
    if (l->entry->role != CL_ROLE_SUB || !l->entry->required_beside_main)
      continue;
    char *key = companion_key(l->entry, l->major, l->path);
    if (!key || cl_reserve((void **)&c->keys, &c->capacity, c->count + 1,
                           sizeof(char *))) {
      free(key);
      return CUDALOAD_E_NO_MEMORY;
    }
    c->keys[c->count++] = key;
    if (cl_str_index_add(&c->index, key, i))
      return CUDALOAD_E_NO_MEMORY;
  }
  return CUDALOAD_OK;
}

/* The first required companion of main missing from its folder, or NULL;
 * *status set to CUDALOAD_E_NO_MEMORY when out of memory. */
static const cl_catalog_entry *missing_companion(const companion_index *c,
                                                 const cl_library *main_lib,
                                                 int *status) {
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  for (size_t e = 0; e < count; ++e) {
    const cl_catalog_entry *sub = &all[e];
    if (sub->role != CL_ROLE_SUB || !sub->required_beside_main ||
        strcmp(sub->family, main_lib->entry->family) != 0 ||
        main_lib->major < sub->min_major || main_lib->major > sub->max_major)
      continue;
    char *key = companion_key(sub, main_lib->major, main_lib->path);
    if (!key) {
      *status = CUDALOAD_E_NO_MEMORY;
      return NULL;
    }
    int found = cl_str_index_find(&c->index, key, NULL);
    free(key);
    if (!found)
      return sub;
  }
  return NULL;
}

/* Is a better than b for a requirement? The versions of both are looked up
 * if the scan left them for later (a wheel's dist-info): that fills the
 * context's version cache, which is why const is cast away; what the
 * context says of anything does not change. */
static int canonical_spelling(const cudaload_ctx *ctx, const cl_library *lib) {
  return cl_catalog_canonical_name(lib->entry, cl_path_basename(lib->path),
                                   cl_ctx_naming(ctx));
}

/* Whether lib lies in the folder of a program file of its own family (the
 * program `--for` names is a cuDNN shim, lib one of its sub-libraries
 * beside it): the loader model calls any other copy of it "a sibling
 * shadowed, likely another version" (verdict.c), so that copy wins. */
static int beside_own_program(const cudaload_ctx *ctx, const cl_library *lib) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->program_file_count; ++i) {
    const char *program = ps->program_files[i];
    cl_name_match m;
    if (!cl_catalog_match_renamed(cl_path_basename(program), cl_ctx_naming(ctx),
                                  &m) ||
        strcmp(m.entry->family, lib->entry->family) != 0)
      continue;
    if (same_folder(program, lib->path) ||
        same_folder_on_disk(program, lib->path))
      return 1;
  }
  return 0;
}

static int better(const cudaload_ctx *ctx, const cl_library *a,
                  const cl_library *b) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  /* A program's own siblings first, whatever the tiers: the loader model
   * judges any other copy shadowing them. */
  int sa = beside_own_program(ctx, a), sb = beside_own_program(ctx, b);
  if (sa != sb)
    return sa;
  /* The earlier tier wins whatever the versions (docs/scan-contract.md,
   * "Precedence"): the environment the user activated is what they mean. */
  cl_root_tier ta = cl_origin_tier(inv->roots[a->root].origin);
  cl_root_tier tb = cl_origin_tier(inv->roots[b->root].origin);
  if (ta != tb)
    return ta < tb;
  cl_library_settle_version((cudaload_ctx *)ctx, (cl_library *)a);
  cl_library_settle_version((cudaload_ctx *)ctx, (cl_library *)b);
  long va[CL_VERSION_PARTS], vb[CL_VERSION_PARTS];
  int na = library_version(a, va), nb = library_version(b, vb);
  int cmp = cl_version_compare(va, na ? na : 1, vb, nb ? nb : 1);
  if (cmp != 0)
    return cmp > 0;
  if (a->root == b->root) {
    /* Two spellings of one name in one folder (a case-sensitive one):
     * the one spelt as NVIDIA ships it. */
    int ca = canonical_spelling(ctx, a), cb = canonical_spelling(ctx, b);
    if (ca != cb)
      return ca;
  }
  return a->root < b->root;
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
    int cuda = cl_verdict_library_cuda_major(ctx, lib);
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
    if (cl_verdict_library_cuda_major(ctx, lib) ==
            cl_plan_state_of(ctx)->plan_cuda_major &&
        satisfies(r, lib, why, sizeof why))
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
      snprintf(why, cap, "pinned by cuda=%d", ps->cuda_pin);
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
    snprintf(why, cap, "the CUDA major of the libraries in the %s %s",
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
  if (cl_driver_cuda_read(cl_ctx_naming(ctx), ctx->probe_driver_path,
                          &driver) != CUDALOAD_OK)
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
    snprintf(why, sizeof why, "the program's own (%.400s)",
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
    snprintf(why, sizeof why,
             "the newest CUDA major the driver supports (driver %.32s, up "
             "to CUDA %d.%d, read from %.200s)",
             driver.version, driver.cuda_major, driver.cuda_minor,
             driver.path[0] ? driver.path
                            : (driver.source ? driver.source : "?"));
  } else if (!major && all) {
    major = newest_major(all, 0);
    snprintf(why, sizeof why, "the newest CUDA major found; %s",
             driver_known ? "the driver supports none of those found"
                          : "the driver was not consulted: none found");
  }
  if (!major)
    return CUDALOAD_OK;
  size_t used = strlen(why);
  if (driver_known && major > driver_limit && used < sizeof why)
    snprintf(why + used, sizeof why - used,
             "; the driver (%.32s) supports CUDA up to %d.%d: update it",
             driver.version, driver.cuda_major, driver.cuda_minor);
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
                      ? "writable by other users: refused"
                  : r->status == CUDALOAD_E_NOT_FOUND  ? "not found"
                  : r->status == CUDALOAD_E_NOT_A_FILE ? "not a folder"
                                                       : "unreadable");
    if (r->status == CUDALOAD_E_INSECURE) {
      refused = 1;
      if (r->detail)
        cl_buf_printf(
            b, "      refused: %s; fix: %s, " CL_ALLOW_WRITABLE_RISK "\n",
            r->detail, r->fix ? r->fix : "make it writable only by its owner");
    }
  }
  return refused;
}

/* planned: the plan's entries by path (borrowed), so that adding one to a
 * plan of thousands (a folder of sub-libraries) does not compare it with
 * each. */
static int add_entry(cudaload_ctx *ctx, cl_str_index *planned,
                     const cl_library *lib, size_t requirement,
                     const char *reason) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  if (cl_str_index_find(planned, lib->path, NULL))
    return CUDALOAD_OK; /* two requirements chose the same file */
  if (cl_reserve((void **)&ps->plan, &ps->plan_capacity, ps->plan_count + 1,
                 sizeof(cl_plan_entry)))
    return CUDALOAD_E_NO_MEMORY;
  cl_plan_entry *p = &ps->plan[ps->plan_count];
  memset(p, 0, sizeof *p);
  p->entry = lib->entry;
  p->major = lib->major;
  p->path = cl_strdup(lib->path);
  p->reason = cl_strdup(reason);
  p->loaded_path = cl_strdup("");
  p->requirement = requirement;
  p->state = CUDALOAD_STATE_PLANNED;
  p->to_load = 1;
  if (!p->path || !p->reason || !p->loaded_path) {
    free(p->path);
    free(p->reason);
    free(p->loaded_path);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->plan_count++;
  return cl_str_index_add(planned, p->path, ps->plan_count - 1);
}

/* The main library and every sub-library of its family and major in its
 * folder (required and optional), main first. */
static int add_chosen(cudaload_ctx *ctx, cl_str_index *planned,
                      const cl_library *main_lib, size_t requirement) {
  char reason[256];
  snprintf(reason, sizeof reason, "required by %s",
           cl_plan_state_of(ctx)->requirements[requirement].text);
  int rc = add_entry(ctx, planned, main_lib, requirement, reason);
  snprintf(reason, sizeof reason, "belongs to %s (same folder)",
           cl_path_basename(main_lib->path));
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !rc; ++i) {
    const cl_library *l = &cl_inventory_of(ctx)->libraries[i];
    if (l->entry->role == CL_ROLE_SUB && l->major == main_lib->major &&
        strcmp(l->entry->family, main_lib->entry->family) == 0 &&
        same_folder(l->path, main_lib->path))
      rc = add_entry(ctx, planned, l, requirement, reason);
  }
  return rc;
}

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
  char *kept = cl_save_error(); /* unreadable: the OS loader will judge */
  if (!parse || cl_file_cache_parse(cl_file_cache_of(ctx), p->path, &info[i]) !=
                    CUDALOAD_OK)
    memset(&info[i], 0, sizeof info[i]);
  cl_restore_error(kept);
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

static int same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return 1;
  char *kept = cl_save_error(); /* a path that does not resolve: not same */
  char *ra = cl_os_real_path(a), *rb = cl_os_real_path(b);
  cl_restore_error(kept);
  int same = ra && rb && strcmp(ra, rb) == 0;
  free(ra);
  free(rb);
  return same;
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
  char *kept = cl_save_error(); /* no model of this process: an empty one */
  int rc = cl_loader_model_init_host(&f->model);
  cl_restore_error(kept);
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
           exposed ? ": the preload puts its folder on PATH and "
                     "AddDllDirectory"
                   : "");
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
    char *kept = cl_save_error(); /* unreadable: an opener with no lists */
    if (cl_file_cache_parse(cl_file_cache_of(ctx), opener, &own) != CUDALOAD_OK)
      memset(&own, 0, sizeof own);
    cl_restore_error(kept);
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
  int found = r.path && same_file(r.path, p->path);
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
  int n = other[0]
              ? snprintf(out, size, "it would get %s instead (rule: %s)", other,
                         rule)
              : snprintf(out, size, "it would find nothing (rule: %s%s)", rule,
                         lists || (info && info->format == CL_FORMAT_PE)
                             ? ""
                             : "; it has no RUNPATH or RPATH");
  /* A path longer than the sentence's room is cut, and says so. */
  if ((n < 0 || (size_t)n >= size) && size > 4)
    memcpy(out + size - 4, "...", 4);
}

/* --- lazy dependencies ------------------------------------------------- */

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

cl_shell_kind cl_plan_shell(const cudaload_ctx *ctx) {
  return cl_ctx_naming(ctx) == CL_NAMING_WINDOWS ? CL_SHELL_CMD_AND_POWERSHELL
                                                 : CL_SHELL_POSIX;
}

/* Record a warning once (two sub-libraries can miss the same library). */
int cl_plan_add_warning(cudaload_ctx *ctx, cl_problem *problem,
                        const char *file) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  cl_plan_warning w;
  if (!ps || cl_reserve((void **)&ps->plan_warnings, &ps->plan_warning_capacity,
                        ps->plan_warning_count + 1, sizeof(cl_plan_warning))) {
    cl_problem_free(problem);
    return CUDALOAD_E_NO_MEMORY;
  }
  if (cl_plan_warning_make(&w, problem, file, cl_plan_shell(ctx)))
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->plan_warning_count; ++i)
    if (strcmp(ps->plan_warnings[i].text, w.text) == 0) {
      cl_plan_warning_free(&w);
      return CUDALOAD_OK;
    }
  ps->plan_warnings[ps->plan_warning_count++] = w;
  return CUDALOAD_OK;
}

/* The machine lib was built for when it is not the one the plan is for
 * (an aarch64 libcudnn.so.9 in a root of an x86_64 process); NULL when it
 * is, or when either is unknown. */
static const char *foreign_machine(const cudaload_ctx *ctx, cl_library *lib) {
  const char *want = cl_ctx_machine(ctx);
  const char *have = want ? cl_library_machine(lib) : NULL;
  return have && strcmp(have, "unknown") != 0 && strcmp(have, want) != 0 ? have
                                                                         : NULL;
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
  char *kept = cl_save_error();
  /* Its references to CUDA libraries (the cache's filter), not its whole
   * table. */
  if (cl_file_cache_references(cl_verdict_files(ctx), path, &s) != CUDALOAD_OK)
    s = NULL;
  cl_restore_error(kept);
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
  char *kept = cl_save_error();
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
  cl_restore_error(kept);
  return all;
}

/* The library of main_entry built for a CUDA major that the opener would
 * best get: the one in its own folder, then one under the chosen file's
 * root (one install, one build), then the plan's precedence (better()).
 * Candidates whose required companions are not beside them are skipped, as
 * for a requirement. NULL when none. */
static const cl_library *find_dependency(cudaload_ctx *ctx,
                                         const companion_index *companions,
                                         const cl_catalog_entry *main_entry,
                                         int dep_major, const char *opener,
                                         const cl_library *chosen, int *rc) {
  const cl_library *best = NULL;
  int best_rank = -1;
  consumer_symbols needs = {ctx, opener, 0, NULL};
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !*rc; ++i) {
    const cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    if (lib->entry != main_entry || lib->major != dep_major ||
        foreign_machine(ctx, &cl_inventory_of(ctx)->libraries[i]) ||
        missing_companion(companions, lib, rc))
      continue;
    /* A file that lacks a symbol the opener takes from it fails its load
     * ("undefined symbol"): any that has them all comes first. */
    int rank = (covers(&needs, lib->path) ? 4 : 0) +
               (same_folder(lib->path, opener)        ? 2
                : chosen && lib->root == chosen->root ? 1
                                                      : 0);
    if (rank > best_rank || (rank == best_rank && better(ctx, lib, best))) {
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
                      same_folder(l->path, lib->path)))
      continue;
    size_t before = cl_plan_state_of(ctx)->plan_count;
    rc = add_entry(ctx, planned, l, SIZE_MAX, reason);
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
 * find it, it is preloaded (settle_plan); when the inventory has none, a
 * warning says what to install. */
/* The CUDA major whose libraries the opener (plan entry i, its library
 * chosen) would open lazily: the chosen file's, else the catalog's, else
 * the plan's; 0 when nothing tells it. */
static int lazy_cuda_major(cudaload_ctx *ctx, size_t i, cl_library *chosen) {
  int cuda = 0;
  if (chosen)
    cuda = cl_verdict_library_cuda_major(ctx, chosen);
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
  cl_problem p = warning_record(CUDALOAD_PROBLEM_LAZY_UNPROVIDED);
  fact(&p, CUDALOAD_FACT_LIBRARY, opener->name);
  fact_int(&p, CUDALOAD_FACT_MAJOR, opener_major);
  fact(&p, CUDALOAD_FACT_CONSUMER, chosen ? chosen->path : opener_path);
  fact(&p, CUDALOAD_FACT_NAME, files);
  fact(&p, CUDALOAD_FACT_FAMILY, dep->family);
  fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, cuda);
  require_steps(&p.fix, "--require", dep_main->name, dep_major, package);
  char first[256];
  snprintf(first, sizeof first, "%.*s", (int)strcspn(files, " ,"), files);
  return cl_plan_add_warning(ctx, &p, first);
}

static int add_lazy_dependencies(cudaload_ctx *ctx, cl_str_index *planned,
                                 const companion_index *companions) {
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
      snprintf(text, sizeof text, "opened lazily by %s (%s %d needs %s %d)",
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
static int add_named_opens(cudaload_ctx *ctx, cl_str_index *planned,
                           const companion_index *companions) {
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
    char *kept = cl_save_error(); /* unreadable: it names nothing we know */
    if (cl_file_cache_info(cl_file_cache_of(ctx), opener_path, &info) !=
        CUDALOAD_OK)
      info = NULL;
    size_t count = 0;
    char **names =
        info ? cl_verdict_lazy_names_of(ctx, opener_path, info, &count) : NULL;
    cl_restore_error(kept);
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
      snprintf(text, sizeof text,
               "opened by name by %s (its file names %s), from a root "
               "that holds it",
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
static int add_consumer_needs(cudaload_ctx *ctx, cl_str_index *planned,
                              const companion_index *companions) {
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
        snprintf(text, sizeof text, "opened lazily by %s (%s %s needs %s %d)",
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
      cl_problem p = warning_record(CUDALOAD_PROBLEM_LAZY_UNPROVIDED);
      fact(&p, CUDALOAD_FACT_PACKAGE, consumer->package);
      fact(&p, CUDALOAD_FACT_VERSION, consumer->version);
      fact(&p, CUDALOAD_FACT_CONSUMER, consumer->path);
      fact(&p, CUDALOAD_FACT_NAME, file);
      fact(&p, CUDALOAD_FACT_FAMILY, need->family);
      fact_int(&p, CUDALOAD_FACT_MAJOR, held);
      fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, need->cuda_major);
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
static int add_optional_needs(cudaload_ctx *ctx, cl_str_index *planned) {
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
                         !foreign_machine(ctx, lib)
                     ? cl_verdict_library_cuda_major(ctx, lib)
                     : -1;
      int want = n->cuda_major ? n->cuda_major : ps->plan_cuda_major;
      if (cuda < 0 || (cuda && want && cuda != want))
        continue;
      if (!best || better(ctx, lib, best))
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
    cl_problem p = warning_record(CUDALOAD_PROBLEM_IF_USED);
    fact(&p, CUDALOAD_FACT_REASON, n->why);
    fact(&p, CUDALOAD_FACT_NAME, file);
    if (cuda)
      fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, cuda);
    cl_problem_take_fix(NULL, &p, &steps);
    rc = cl_plan_add_warning(ctx, &p, file);
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
                     same_folder(l->path, lib->path)))
      rc = add_entry(ctx, planned, l, SIZE_MAX, reason);
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
  cl_problem p = warning_record(CUDALOAD_PROBLEM_NEEDED_UNPROVIDED);
  fact(&p, CUDALOAD_FACT_CONSUMER, opener);
  fact(&p, CUDALOAD_FACT_NAME, needed);
  fact(&p, CUDALOAD_FACT_PLATFORM,
       naming == CL_NAMING_WINDOWS ? "windows" : "linux");
  fact(&p, CUDALOAD_FACT_FAMILY, dep->family);
  fact_int(&p, CUDALOAD_FACT_MAJOR, major);
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

static int add_needed_dependencies(cudaload_ctx *ctx, cl_str_index *planned,
                                   const companion_index *companions) {
  int rc = CUDALOAD_OK;
  for (size_t i = 0; i < cl_plan_state_of(ctx)->plan_count && !rc; ++i) {
    if (cl_plan_state_of(ctx)->plan[i].entry->role != CL_ROLE_MAIN)
      continue;
    cl_binary_info info;
    /* Unparseable: the loader will judge it (settle_plan says so). */
    char *kept = cl_save_error();
    int unparsed = cl_file_cache_parse(
        cl_file_cache_of(ctx), cl_plan_state_of(ctx)->plan[i].path, &info);
    cl_restore_error(kept);
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
        continue; /* not CUDA's, or a sub-library: settle_plan */
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
      snprintf(how, sizeof how, "preloaded: all sub-libraries were asked for");
    } else {
      int found = opener_finds(f, ctx, p->opened_by, NULL, p, &rule, other,
                               sizeof other, &rc);
      if (found < 0)
        break;
      load = !found;
      if (found)
        snprintf(how, sizeof how, "its opener finds it itself (rule: %s)",
                 rule.text);
      else
        snprintf(how, sizeof how,
                 "preloaded by absolute path: by its opener's own search "
                 "%s%s%s",
                 other[0] ? "it would get " : "it would find nothing", other,
                 other[0] ? " instead" : "");
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

/* What settle_plan knows of the plan's files while it decides. */
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
  set_reason(p, "sub-library of %s, which finds it itself (rule: %s)",
             main_name, rule);
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
                              : "its main library";
  int rc = CUDALOAD_OK;
  if (needed_by || (flags & CUDALOAD_PRELOAD_ALL_SUBLIBS)) {
    if ((rc = read_header(ctx, i, st->info, 1)) != 0)
      return rc;
    if (needed_by)
      set_reason(p, "needed by %s (ELF NEEDED / PE import)", needed_by);
    else
      set_reason(p, "sub-library of %s; all sub-libraries were asked for",
                 main_name);
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
      set_reason(p,
                 "sub-library: %s (a copy bundled by %s) opens it by name: "
                 "%s",
                 shim->path, shim->package, miss);
      return CUDALOAD_OK;
    }
  }
  if (main_index >= n) {
    if ((rc = read_header(ctx, i, st->info, 1)) != 0)
      return rc;
    set_reason(p, "sub-library whose main library is not planned");
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
  set_reason(p,
             "sub-library of %s, preloaded by absolute path: when %s opens "
             "it by name, %s",
             main_name, main_name, miss);
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
static int settle_plan(cudaload_ctx *ctx, unsigned flags) {
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
  if (!provider || same_file(provider, planned->path)) {
    free(provider);
    return NULL;
  }
  cl_bind_definition_version(planned->path, symbol, version);
  if (*version) {
    /* What the loader gives a reference of that version. */
    free(provider);
    provider = cl_os_loader_global_provider(symbol, *version);
    if (!provider || same_file(provider, planned->path)) {
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
    cl_problem p = warning_record(CUDALOAD_PROBLEM_CONFLICT);
    fact(&p, CUDALOAD_FACT_PATH, provider);
    fact(&p, CUDALOAD_FACT_FAMILY, req->entry->family);
    fact_int(&p, CUDALOAD_FACT_MAJOR, m.major);
    fact(&p, CUDALOAD_FACT_VERSION_NODE, version);
    fact(&p, CUDALOAD_FACT_OTHER_PATH, planned->path);
    fact_int(&p, CUDALOAD_FACT_WANTED, planned->major);
    fact(&p, CUDALOAD_FACT_SYMBOL, symbol);
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
                           const companion_index *companions,
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
  if (!satisfies(req, lib, why, sizeof why))
    return reject(o, lib->path, "%s", why);
  if ((machine = foreign_machine(ctx, &cl_inventory_of(ctx)->libraries[i])))
    return reject(o, lib->path,
                  "built for %s; this process runs %s code (the loader "
                  "would refuse it)",
                  machine, cl_ctx_machine(ctx));
  if (filter && lib->cuda_major > 0 &&
      lib->cuda_major != cl_plan_state_of(ctx)->plan_cuda_major)
    return reject(o, lib->path,
                  "built for CUDA %d; the plan takes CUDA %d (%s), and "
                  "libraries of two CUDA majors in one process do not mix",
                  lib->cuda_major, cl_plan_state_of(ctx)->plan_cuda_major,
                  cl_plan_state_of(ctx)->plan_cuda_reason);
  if ((missing = missing_companion(companions, lib, &rc)))
    return reject(o, lib->path, "%s %d is not in the same folder",
                  missing->name, lib->major);
  if (rc)
    return rc;
  if (!*best || better(ctx, lib, *best)) {
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
    cl_problem p = warning_record(CUDALOAD_PROBLEM_CASE_TWINS);
    fact(&p, CUDALOAD_FACT_PATH, chosen->path);
    fact(&p, CUDALOAD_FACT_OTHER_PATH, other->path);
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
    char *kept = cl_save_error(); /* no model: that program tells nothing */
    int no_model = cl_loader_model_init_system(&m) != CUDALOAD_OK;
    cl_restore_error(kept);
    if (no_model)
      break;
    cl_load_tree t;
    memset(&t, 0, sizeof t);
    *rc = cl_resolve_load(&m, files[i], NULL, NULL, &t);
    for (size_t k = 0; !*rc && !binder && k < t.object_count; ++k)
      if (same_file(t.objects[k].path, twin->path) &&
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
 * two cannot share the process. Returns the library to plan. */
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
  if (satisfies(req, twin, why, sizeof why)) {
    *rc = reject(o, best->path,
                 "%s binds %s through its own search list; a library of "
                 "that name loaded first would be used in its place, so "
                 "that file is kept",
                 binder, twin->path);
    free(binder);
    return twin;
  }
  cl_problem p = warning_record(CUDALOAD_PROBLEM_SHARED_NAME);
  fact(&p, CUDALOAD_FACT_PATH, best->path);
  fact(&p, CUDALOAD_FACT_REQUIREMENT, req->text);
  fact(&p, CUDALOAD_FACT_OTHER_PATH, twin->path);
  fact(&p, CUDALOAD_FACT_CONSUMER, binder);
  fact(&p, CUDALOAD_FACT_REASON, why);
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
        foreign_machine(ctx, lib))
      continue;
    cl_library_settle_version(ctx, lib);
    if (!satisfies(req, lib, why, sizeof why))
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
                            const companion_index *companions,
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
  if (!rc && best && cl_plan_state_of(ctx)->plan_cuda_major &&
      best->cuda_major > 0 &&
      best->cuda_major != cl_plan_state_of(ctx)->plan_cuda_major)
    o->second_major = best->cuda_major;
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
  companion_index companions;
  int rc = companion_index_build(ctx, &companions);
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
    rc = add_lazy_dependencies(ctx, &planned, &companions);
  if (!rc)
    rc = add_named_opens(ctx, &planned, &companions);
  if (!rc)
    rc = add_consumer_needs(ctx, &planned, &companions);
  if (!rc)
    rc = add_optional_needs(ctx, &planned);
  if (!rc)
    rc = cl_plan_add_program_warnings(ctx);
  if (!rc)
    rc = add_needed_dependencies(ctx, &planned, &companions);
  companion_index_free(&companions);
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
    rc = settle_plan(ctx, flags);
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
