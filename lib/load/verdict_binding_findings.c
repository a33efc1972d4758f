/* SPDX-License-Identifier: MIT */
/*
 * verdict_binding_findings.c - the symbol-binding judgement
 * (verdict_binding_findings.h): a consumer's references the file the loader
 * takes does not define (the load fails: "undefined symbol", error 127),
 * with the file the inventory holds that would define them, and references
 * that bind to another file than the consumer's own dependency; each with
 * its fix. Where the references bind is verdict_bindings.c's.
 */
#include "load/verdict_binding_findings.h"

#include "common/error.h"
#include "common/strutil.h"
#include "load/fix_lines.h"
#include "load/verdict_bindings.h"
#include "load/verdict_cuda_names.h"
#include "load/verdict_finding.h"
#include "load/verdict_versions.h"
#include "os/platform.h"
#include "problem/fix_words.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"

#include <stdlib.h>
#include <string.h>

/* --- findings of a tree ------------------------------------------------- */

/* The file of t that a consumer's references to `library` go to (the
 * object its need of that name resolved to), or NULL. */
static const cl_load_object *need_target(const cl_load_tree *t, size_t k,
                                         const char *library, int windows) {
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    if (edge->from != k || edge->to >= t->object_count)
      continue;
    if (windows ? cl_ascii_equal_nocase(edge->name, library)
                : strcmp(edge->name, library) == 0)
      return &t->objects[edge->to];
    /* A versioned reference names the SONAME, which a renamed file
     * keeps. */
    const char *soname = t->objects[edge->to].info.soname;
    if (soname && strcmp(soname, library) == 0)
      return &t->objects[edge->to];
  }
  return NULL;
}

/* How the loader came to a file: the edge of t that resolved to it. */
static const cl_load_edge *edge_to(const cl_load_tree *t,
                                   const cl_load_object *o) {
  for (size_t i = 0; i < t->edge_count; ++i)
    if (t->edges[i].to < t->object_count && &t->objects[t->edges[i].to] == o)
      return &t->edges[i];
  return NULL;
}

/* Whether a file defines every reference of group b (the consumer's
 * references of that library and version). */
static int defines_all(cudaload_explain *e, const char *path,
                       const cl_bind_object *consumer,
                       const cl_explain_binding *b, int windows) {
  const cl_bind_object *candidate = cl_verdict_bind_object(e, path);
  if (!candidate || !candidate->symbols || !consumer || !consumer->symbols)
    return 0;
  const cl_binary_symbols *s = consumer->symbols;
  for (size_t r = 0; r < s->ref_count; ++r) {
    const cl_symbol_ref *ref = &s->refs[r];
    if (ref->weak || !ref->file ||
        (windows ? !cl_ascii_equal_nocase(ref->file, b->library)
                 : strcmp(ref->file, b->library) != 0))
      continue;
    if ((ref->version && b->version && strcmp(ref->version, b->version)) ||
        (!ref->version) != (!b->version))
      continue;
    if (cl_bind_object_match(candidate, ref->name,
                             windows ? NULL : ref->version) < 0)
      return 0;
  }
  return 1;
}

/* A file of the inventory, of the same library and major as `taken`, that
 * defines every symbol of group b: where the consumer would find them. */
static const char *inventory_provider(cudaload_explain *e, cudaload_ctx *ctx,
                                      const char *taken, int taken_cuda,
                                      const cl_bind_object *consumer,
                                      const cl_explain_binding *b) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_name_match want;
  if (!ctx || !cl_cuda_catalog_of(taken, NULL, naming, &want))
    return NULL;
  char *real = cl_os_real_path_quiet(taken, NULL);
  const char *found = NULL;
  for (size_t i = 0; i < cl_inventory_of(ctx)->library_count && !found; ++i) {
    cl_library *lib = &cl_inventory_of(ctx)->libraries[i];
    if (lib->entry != want.entry || lib->major != want.major ||
        (real && strcmp(real, lib->path) == 0))
      continue;
    /* A file of another CUDA major would trade one failure for another. */
    cl_library_settle_version(ctx, lib);
    int cuda = cl_library_cuda_major(ctx, lib);
    if (taken_cuda && cuda && cuda != taken_cuda)
      continue;
    if (defines_all(e, lib->path, consumer, b, naming == CL_NAMING_WINDOWS))
      found = lib->path;
  }
  free(real);
  return found;
}

/* The fix for a file taken from LD_LIBRARY_PATH that lacks symbols: drop
 * its folder, or have cudaload load the one that has them. */
/* What put the object at path first in the process explained
 * ("LD_PRELOAD", "/etc/ld.so.preload"), or NULL. */
static const char *put_first_by(const cudaload_explain *e, const char *path) {
  for (size_t i = 0; i < e->object_count; ++i)
    if (e->objects[i].path && strcmp(e->objects[i].path, path) == 0)
      return e->objects[i].put_first_by;
  return NULL;
}

/* The fix for a file taken that lacks symbols when no file at hand defines
 * them: install a newer release of its major (its wheel, where one ships
 * it), or put the folder of one first. */
static void newer_library_steps(cudaload_ctx *ctx, const char *file,
                                const char *soname, int cuda, cl_fix *fix) {
  cl_naming naming = cl_ctx_naming(ctx);
  cl_name_match m;
  if (!cl_cuda_catalog_of(file, soname, naming, &m)) {
    cl_fix_add_note(fix, CL_NOTE_INSTALL_THE_RELEASE_BUILT_AGAINST,
                    cl_path_basename(file));
    return;
  }
  if (!cuda)
    cuda =
        m.cuda_major ? m.cuda_major : cl_catalog_cuda_major(m.entry, m.major);
  const char *package =
      cuda ? cl_fix_package(m.entry->family, cuda, naming) : NULL;
  if (!package) {
    cl_fix_add_note(fix, CL_NOTE_INSTALL_NEWER_OR_PUT_ONE_FIRST,
                    m.entry->family, m.major);
    return;
  }
  cl_fix_add_note(fix, CL_NOTE_INSTALL_NEWER, m.entry->family, m.major);
  cl_fix_step *install = cl_fix_add(fix, CUDALOAD_FIX_INSTALL);
  static const char *const words[] = {"-m", "pip", "install", "-U"};
  cl_fix_arg(fix, install, naming == CL_NAMING_WINDOWS ? "py" : "python3");
  for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
    cl_fix_arg(fix, install, words[k]);
  cl_fix_arg(fix, install, package);
  cl_fix_add_note(fix, CL_NOTE_OR_PUT_THE_FOLDER_OF_ONE_FIRST);
}

/* Each group of references the file the loader takes does not define: the
 * load fails (ELF: "undefined symbol: X, version V", at load with RTLD_NOW
 * or at the first call; PE: error 127 at load). */
void cl_verdict_undefined_findings(cudaload_explain *e, cudaload_ctx *ctx,
                                   const cl_explain_object *o,
                                   const cl_load_tree *t, size_t k, int lazy) {
  int windows = t->objects[k].info.format == CL_FORMAT_PE;
  for (size_t i = 0; i < o->binding_count; ++i) {
    const cl_explain_binding *b = &o->bindings[i];
    if (!b->undefined)
      continue;
    const cl_load_object *taken = need_target(t, k, b->library, windows);
    if (!taken)
      continue; /* the file is not found at all: that finding says it */
    const cl_load_edge *how = edge_to(t, taken);
    char *version = NULL;
    int cuda = 0;
    cl_name_match m;
    if (cl_cuda_catalog_of(taken->path, taken->info.soname, cl_ctx_naming(ctx),
                           &m))
      version =
          cl_verdict_version_of_match(e, ctx, taken->path, &m, &cuda, NULL);
    const char *better =
        inventory_provider(e, ctx, taken->path, cuda,
                           cl_verdict_bind_object(e, t->objects[k].path), b);
    cl_problem p =
        cl_verdict_finding_record(CL_FINDING_UNDEFINED_SYMBOLS, lazy);
    cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, o->path);
    cl_verdict_fact_int(&p, CUDALOAD_FACT_COUNT, (long)b->undefined);
    cl_verdict_fact(&p, CUDALOAD_FACT_NAME, b->library);
    cl_verdict_fact(&p, CUDALOAD_FACT_VERSION_NODE, b->version);
    cl_verdict_fact(&p, CUDALOAD_FACT_TAKEN, taken->path);
    cl_verdict_fact(&p, CUDALOAD_FACT_VERSION, version);
    if (how)
      cl_verdict_fact(&p, CUDALOAD_FACT_RULE,
                      cl_resolve_rule_name(how->how.rule));
    cl_verdict_fact(&p, CUDALOAD_FACT_SYMBOL, b->undefined_example);
    cl_verdict_fact(
        &p, CUDALOAD_FACT_PLATFORM,
        cl_verdict_platform_of(windows ? CL_NAMING_WINDOWS : CL_NAMING_LINUX));
    cl_verdict_fact(&p, CUDALOAD_FACT_BETTER, better);
    const char *first_by = put_first_by(e, taken->path);
    if (first_by && !strcmp(first_by, "LD_PRELOAD")) {
      /* Nothing cudaload loads comes before it: the variable must go. */
      cl_verdict_fact(&p, CUDALOAD_FACT_LOADED_BY, "LD_PRELOAD");
      char *value = cl_os_getenv("LD_PRELOAD");
      cl_fix_drop_from_ld_preload_steps(value, taken->path, &p.fix);
      free(value);
      if (better)
        cl_fix_add_note(&p.fix, CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST_BETTER,
                        better);
      else
        cl_fix_add_note(&p.fix, CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST);
    } else if (better && how && how->how.rule == CL_RULE_LD_LIBRARY_PATH) {
      char *folder = cl_path_dirname(taken->path);
      cl_fix_add_note(&p.fix, CL_NOTE_DROP_FROM_LD_LIBRARY_PATH_OR_LOAD_BETTER,
                      better, folder ? folder : taken->path);
      free(folder);
    } else if (better) {
      cl_fix_add_note(&p.fix, CL_NOTE_LOAD_THE_FILE_THAT_DEFINES_THEM, better);
    } else {
      newer_library_steps(ctx, taken->path, taken->info.soname, cuda, &p.fix);
    }
    cl_finding *f = cl_verdict_add(e, CL_FINDING_UNDEFINED_SYMBOLS, lazy, &p,
                                   o->path, b->library, taken->path, better);
    if (f && how)
      f->rule = how->how.rule;
    free(version);
  }
}

void cl_verdict_binding_findings(cudaload_explain *e,
                                 const cl_explain_object *o, int lazy) {
  for (size_t i = 0; i < o->binding_count; ++i) {
    const cl_explain_binding *b = &o->bindings[i];
    if (!b->elsewhere)
      continue;
    cl_problem p = cl_verdict_finding_record(CL_FINDING_BINDS_ELSEWHERE, lazy);
    cl_verdict_fact_int(&p, CUDALOAD_FACT_COUNT, (long)b->elsewhere);
    cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, o->path);
    cl_verdict_fact_int(&p, CUDALOAD_FACT_TOTAL, (long)b->symbols);
    cl_verdict_fact(&p, CUDALOAD_FACT_NAME, b->library);
    cl_verdict_fact(&p, CUDALOAD_FACT_VERSION_NODE, b->version);
    cl_verdict_fact(&p, CUDALOAD_FACT_TAKEN, b->elsewhere_provider);
    cl_verdict_fact(&p, CUDALOAD_FACT_BETTER, b->expected);
    cl_verdict_fact(&p, CUDALOAD_FACT_SYMBOL, b->example);
    cl_fix_add_note(&p.fix, CL_NOTE_KEEP_IT_OUT_OF_THE_GLOBAL_SCOPE,
                    b->elsewhere_provider ? b->elsewhere_provider
                                          : CL_NOTE_WORDS_THE_OTHER_FILE,
                    o->path);
    cl_verdict_add(e, CL_FINDING_BINDS_ELSEWHERE, lazy, &p, o->path, b->library,
                   b->elsewhere_provider, NULL);
  }
}

/* Whether two spellings name one folder (torch/lib/../../nvidia/cudnn/lib
 * is nvidia/cudnn/lib): the same identity on disk. */
