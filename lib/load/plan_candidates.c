/* SPDX-License-Identifier: MIT */
/*
 * plan_candidates.c - judging one candidate file of a family: whether it
 * satisfies a requirement (by the version the scan told, or its program's
 * pin), whether it is better than another (docs/scan-contract.md,
 * "Precedence"), whether the companions it must have beside it are there,
 * and whether it is built for the plan's machine. The plan's choice of a
 * requirement's file and the choice of a dependency's ask the same
 * questions, so the answers are here, apart from both.
 */
#include "load/plan_candidates.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/plan_paths.h"
#include "load/spec.h"
#include "os/platform.h"
#include "scan/machine.h"
#include "scan/roots.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
      snprintf(why, why_len, CL_WORDS_ITS_VERSION_IS_UNKNOWN_NOTHING);
      return 0;
    }
    if (cl_version_compare(v, parts, r->at_least, r->at_least_parts) < 0) {
      char least[64] = "";
      for (int i = 0; i < r->at_least_parts; ++i) {
        size_t used = strlen(least);
        snprintf(least + used, sizeof least - used, "%s%ld", i ? "." : "",
                 r->at_least[i]);
      }
      snprintf(why, why_len, CL_WORDS_VERSION_IS_OLDER_THAN_WHICH, lib->version,
               least);
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
      snprintf(why, why_len, CL_WORDS_ITS_VERSION_IS_UNKNOWN_NOTHING_ON,
               r->text);
      return 0;
    }
    for (int i = 1; i < r->version_parts; ++i)
      if (i >= parts || v[i] != r->version[i]) {
        snprintf(why, why_len, CL_WORDS_VERSION_DOES_NOT_MATCH, lib->version,
                 r->text);
        return 0;
      }
    return 1;
  }
  /* Ranges: with an unknown version, only the major can decide. */
  int cmp = cl_version_compare(v, parts, r->version, r->version_parts);
  int decided_by_major = lib->major != r->version[0];
  if (!known && !decided_by_major && r->version_parts > 1) {
    snprintf(why, why_len, CL_WORDS_ITS_VERSION_IS_UNKNOWN_ONLY, lib->major,
             r->text);
    return 0;
  }
  int ok = (r->op == CL_OP_GE && cmp >= 0) || (r->op == CL_OP_GT && cmp > 0) ||
           (r->op == CL_OP_LE && cmp <= 0) || (r->op == CL_OP_LT && cmp < 0);
  if (!ok)
    snprintf(why, why_len, CL_WORDS_VERSION_IS_OUTSIDE,
             lib->version[0] ? lib->version : "(major only)", r->text);
  return ok;
}

/* Does lib satisfy r? If not, why (into why), with the version source the
 * scan passed over because others can write to it, when there was one:
 * that is why the version is unknown or another. */
int cl_plan_satisfies(const cl_requirement *r, const cl_library *lib, char *why,
                      size_t why_len) {
  int ok = satisfies_by_version(r, lib, why, why_len);
  if (!ok && lib->version_distrust) {
    size_t used = strlen(why);
    snprintf(why + used, why_len - used, CL_WORDS_A_SOURCE_OF_ITS_VERSION,
             lib->version_distrust);
  }
  return ok;
}

/* "<entry>.<major>:<folder of path, with its trailing separator>"; the
 * folder part is what cl_plan_same_folder() compares. malloc'ed. */
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

void cl_companion_index_free(cl_companion_index *c) {
  cl_str_index_free(&c->index);
  for (size_t i = 0; i < c->count; ++i)
    free(c->keys[i]);
  free(c->keys);
}

int cl_companion_index_build(const cudaload_ctx *ctx, cl_companion_index *c) {
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
const cl_catalog_entry *cl_plan_missing_companion(const cl_companion_index *c,
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
    if (cl_plan_same_folder(program, lib->path) ||
        cl_plan_same_folder_on_disk(program, lib->path))
      return 1;
  }
  return 0;
}

int cl_plan_better(const cudaload_ctx *ctx, const cl_library *a,
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
  /* The versions compared are memos of the records (inventory.h). */
  cl_library_settle_version(
      ctx, cl_inventory_memo_of(ctx, (size_t)(a - inv->libraries)));
  cl_library_settle_version(
      ctx, cl_inventory_memo_of(ctx, (size_t)(b - inv->libraries)));
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

/* The machine lib was built for when it is not the one the plan is for
 * (an aarch64 libcudnn.so.9 in a root of an x86_64 process); NULL when it
 * is, or when either is unknown. */
const char *cl_plan_foreign_machine(const cudaload_ctx *ctx, cl_library *lib) {
  const char *want = cl_ctx_machine(ctx);
  const char *have = want ? cl_library_machine(ctx, lib) : NULL;
  return have && strcmp(have, "unknown") != 0 && strcmp(have, want) != 0 ? have
                                                                         : NULL;
}
