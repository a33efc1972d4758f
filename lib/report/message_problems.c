/* SPDX-License-Identifier: MIT */
/*
 * message_problems.c - what each error message read with --error shows on
 * this machine, as problem records (message_problems.h). The message says
 * what the program met (its facts: the file as written, the symbol and its
 * version node, the versions on either side, the CUDA major the program
 * states); the machine answers only where the files are and what the
 * loader would take. Each fact keeps its source, so a report says which
 * came from the message and which from here.
 */
#include "report/message_problems.h"
#include "binary/binary_symbols.h"
#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/error_meaning.h"
#include "load/error_message.h"
#include "load/fix_lines.h"
#include "loader/loader_model.h"
#include "load/plan_state.h"
#include "load/program_find.h"
#include "loader/resolve.h"
#include "load/spec.h"
#include "load/verdict.h"
#include "os/platform.h"
#include "problem/fix_words.h"
#include "problem/problem.h"
#include "scan/catalog.h"
#include "scan/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct answer {
  const cl_error_message_facts *f;
  cl_problem_list *list;
} answer;

static const char *said(const cl_error_message *m, int fact) {
  return fact > 0 && fact <= CL_ERROR_FACT_LAST ? m->facts[fact] : NULL;
}

static int cause_is(const cl_error_message *m, const char *cause) {
  const char *c = said(m, CUDALOAD_MESSAGE_FACT_CAUSE);
  return c && strcmp(c, cause) == 0;
}

/* A problem's fact from the message. */
static void from_message(answer *a, cl_problem *p, int fact, const char *v) {
  cl_problem_fact(a->list, p, fact, CUDALOAD_FROM_MESSAGE, v);
}

static void from_machine(answer *a, cl_problem *p, int fact, const char *v) {
  cl_problem_fact(a->list, p, fact, CUDALOAD_FROM_MACHINE, v);
}

/* A problem of kind with the message's own line as its evidence. */
static cl_problem *add(answer *a, int kind, const cl_error_message *m) {
  cl_problem *p = cl_problem_add(a->list, kind);
  from_message(a, p, CUDALOAD_FACT_QUOTE, m->quote);
  return p;
}

/* Whether this process can open path for reading (its folders too). */
static int readable(const char *path) {
  cl_file *file = NULL;
  /* "no" is the answer asked for */
  int ok = cl_os_file_open_quiet(path, &file, NULL, NULL) == CUDALOAD_OK;
  if (ok)
    cl_os_file_close(file);
  return ok;
}

/* The library the plan chose for the requirement whose text is spec, NULL
 * when none (unsatisfied, or no plan). */
static const cl_library *chosen_for(const cudaload_ctx *ctx, const char *spec) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t k = 0; spec && k < ps->requirement_count; ++k) {
    if (strcmp(ps->requirements[k].text, spec) != 0)
      continue;
    if (k >= ps->outcome_count || ps->outcomes[k].chosen >= inv->library_count)
      return NULL;
    return &inv->libraries[ps->outcomes[k].chosen];
  }
  return NULL;
}

/* A file of the inventory named `name` (a bare file name), the plan's
 * choice first: the copy of a message's library this machine has. */
static const cl_library *library_named(const cudaload_ctx *ctx,
                                       const char *name) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t r = 0; r < ps->outcome_count; ++r) {
    size_t c = ps->outcomes[r].chosen;
    if (c < inv->library_count &&
        !strcmp(cl_path_basename(inv->libraries[c].path), name))
      return &inv->libraries[c];
  }
  for (size_t i = 0; i < inv->library_count; ++i)
    if (!strcmp(cl_path_basename(inv->libraries[i].path), name))
      return &inv->libraries[i];
  return NULL;
}

/* The loader model of this process as it is, without cudaload, asked to
 * open path as the program does: its findings and tree, or NULL. */
static cudaload_explain *as_it_is(cudaload_ctx *ctx, const char *path) {
  cl_loader_model m;
  cudaload_explain *e = cl_verdict_new();
  if (!e || cl_loader_model_init_host(&m) != CUDALOAD_OK) {
    cudaload_explain_free(e);
    return NULL;
  }
  int rc = cl_verdict_open(e, ctx, &m, path, CL_VERDICT_CONSUMER);
  cl_loader_model_free(&m);
  if (rc == CUDALOAD_E_NO_MEMORY) {
    cudaload_explain_free(e);
    return NULL;
  }
  return e;
}

/* The fix that starts the program through cudaload with its requirement
 * planned (load/fix_lines.c): PROGRAM stands for the command that printed
 * the message, which the message alone does not say. */
static void run_through_cudaload(answer *a, cl_problem *p, const char *spec) {
  if (!p)
    return;
  cl_fix_run_through_cudaload(a->f->ctx, &p->fix, NULL, spec);
  a->list->failed |= p->fix.failed;
}

/* --- a file the loader searched for by name ------------------------------ */

static void driver_seen_problem(answer *a, const cl_error_message *m) {
  if (!a->f->driver_path)
    return; /* "no NVIDIA driver" is the doctor's own problem, with a fix */
  const char *name = cl_path_basename(m->file);
  cl_problem *p = add(a, CUDALOAD_PROBLEM_DRIVER_HIDDEN, m);
  from_message(a, p, CUDALOAD_FACT_NAME, name);
  from_machine(a, p, CUDALOAD_FACT_PATH, a->f->driver_path);
  if (p)
    cl_fix_add_note(&p->fix, CL_NOTE_RUN_WHERE_DRIVER_IS_VISIBLE,
                    cl_ends_with(name, ".so")
                        ? CL_NOTE_UNVERSIONED_LIBCUDA_NEEDS_LINK
                        : "");
}

static void unknown_file_problem(answer *a, const cl_error_message *m) {
  const char *name = cl_path_basename(m->file);
  if (cl_starts_with_nocase(name, "zlibwapi.dll")) {
    cl_problem *p = add(a, CUDALOAD_PROBLEM_UNKNOWN_LIBRARY, m);
    from_message(a, p, CUDALOAD_FACT_NAME, name);
    /* cuDNN 8 for Windows needs it and does not ship it. */
    from_machine(a, p, CUDALOAD_FACT_FAMILY, "cudnn");
    from_machine(a, p, CUDALOAD_FACT_MAJOR, "8");
    from_machine(a, p, CUDALOAD_FACT_PLATFORM, "windows");
    from_machine(a, p, CUDALOAD_FACT_REASON, "not-shipped");
    if (p)
      cl_fix_add_note(&p->fix, CL_NOTE_PUT_ZLIBWAPI_BESIDE_CUDNN8);
    return;
  }
  cl_problem *p = add(a, CUDALOAD_PROBLEM_UNKNOWN_LIBRARY, m);
  from_message(a, p, CUDALOAD_FACT_NAME, name);
  if (!p)
    return;
  cl_fix_step *explain = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
  cl_fix_arg(&p->fix, explain, "cudaload");
  cl_fix_arg(&p->fix, explain, "explain");
  cl_fix_arg(&p->fix, explain,
             cl_os_path_is_absolute(m->file) ? m->file : "FILE");
  cl_fix_note(
      &p->fix, explain, CL_NOTE_EXPLAIN_LISTS_WHAT_IS_MISSING,
      cl_os_path_is_absolute(m->file) ? "" : CL_NOTE_FILE_STANDS_FOR_ITS_PATH);
}

/* The message's name is a library the plan found here: the program's
 * loader does not search its folder. Unsatisfied, the doctor's problem for
 * the requirement says what to install. */
static void by_name_problem(answer *a, const cl_error_message *m) {
  cudaload_ctx *ctx = a->f->ctx;
  if (m->requirement) {
    const cl_library *lib = chosen_for(ctx, m->requirement);
    if (!lib)
      return;
    cl_problem *p = add(a, CUDALOAD_PROBLEM_NOT_FOUND, m);
    from_message(a, p, CUDALOAD_FACT_NAME, cl_path_basename(m->file));
    from_message(a, p, CUDALOAD_FACT_REQUIREMENT, m->requirement);
    from_machine(a, p, CUDALOAD_FACT_BETTER, lib->path);
    /* The CUDA major the messages state ("Require cuDNN 9.* and CUDA
     * 12.*"), which the plan took: said with the copy it chose. */
    const cl_plan_state *ps = cl_plan_state_of(ctx);
    if (p && ps->cuda_pin && ps->cuda_pin_source == CUDALOAD_FROM_MESSAGE)
      cl_problem_fact_int(a->list, p, CUDALOAD_FACT_CUDA_MAJOR,
                          CUDALOAD_FROM_MESSAGE, ps->cuda_pin);
    run_through_cudaload(a, p, m->requirement);
  } else if (cl_error_message_driver_file(cl_path_basename(m->file))) {
    driver_seen_problem(a, m);
  } else {
    unknown_file_problem(a, m);
  }
}

/* --- a file loaded by its path ------------------------------------------- */

/* The libraries a file here needs that the loader would not find, as
 * this process is: one problem per file, as the doctor's as-it-is ones.
 * exports_only: only functions missing from what it finds (Windows error
 * 127 says every DLL was found: the program searched otherwise than this
 * process would, so a DLL this search misses is not its cause). */
static int dependency_problems(answer *a, const cl_error_message *m,
                               const char *path, int exports_only) {
  cudaload_explain *e = as_it_is(a->f->ctx, path);
  if (!e) {
    a->list->failed = 1;
    return 0;
  }
  int found = 0;
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *g = &e->findings[i];
    int kind = g->kind == CL_FINDING_NOT_FOUND
                   ? (g->lazy ? CUDALOAD_PROBLEM_LAZY_NOT_FOUND
                              : CUDALOAD_PROBLEM_NOT_FOUND)
               : g->kind == CL_FINDING_UNDEFINED_SYMBOLS
                   ? CUDALOAD_PROBLEM_SYMBOLS_MISSING
                   : 0;
    if (!kind || g->note ||
        (exports_only && kind != CUDALOAD_PROBLEM_SYMBOLS_MISSING))
      continue;
    /* The loader model's record, true of this process as it is. */
    cl_problem *p = cl_problem_add_copy(a->list, &g->problem);
    from_message(a, p, CUDALOAD_FACT_QUOTE, m->quote);
    from_machine(a, p, CUDALOAD_FACT_CONDITION, "as-it-is");
    if (p && !p->fix.count)
      cl_fix_add_note(&p->fix, CL_NOTE_PUT_NEEDED_BESIDE_OR_EXEC);
    ++found;
  }
  cudaload_explain_free(e);
  return found;
}

/* The fix for a path with no file where a copy here would do. A link to
 * that one file is not enough: the loader searches $ORIGIN in the folder of
 * the path it opened, not of the file a link leads to, so the companions a
 * library opens or needs beside it (cuDNN 9's sub-libraries, cuBLASLt) would
 * be looked for in the program's folder, or found elsewhere, of another
 * release or CUDA major. Where that folder is not there, the fix links the
 * whole folder of the copy in its place; where it is, it says so in words
 * (every file would need a link). */
static void link_folder_steps(answer *a, cl_problem *p, const char *path,
                              const char *better) {
  char *folder = cl_path_dirname(path);
  char *parent = folder ? cl_path_dirname(folder) : NULL;
  char *source = cl_path_dirname(better);
  int windows = cl_ctx_naming(a->f->ctx) == CL_NAMING_WINDOWS;
  if (!folder || !parent || !source) {
    a->list->failed = 1;
  } else if (windows || cl_os_stat_kind(folder, NULL) != CL_KIND_MISSING) {
    cl_fix_add_note(&p->fix, CL_NOTE_SET_PATH_OR_PUT_LIBRARIES_THERE, better,
                    source, folder);
  } else {
    cl_fix_step *mkdir = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&p->fix, mkdir, "mkdir");
    cl_fix_arg(&p->fix, mkdir, "-p");
    cl_fix_arg(&p->fix, mkdir, parent);
    cl_fix_step *link = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&p->fix, link, "ln");
    cl_fix_arg(&p->fix, link, "-s");
    cl_fix_arg(&p->fix, link, source);
    cl_fix_arg(&p->fix, link, folder);
    cl_fix_note(&p->fix, link, CL_NOTE_LINKED_FOLDER_HOLDS_COMPANIONS, better,
                folder, better);
  }
  free(folder);
  free(parent);
  free(source);
}

/* The message names a path: that file and no other (a copy loaded under the
 * same name does not satisfy it). Not here, unreadable, or here and a
 * library it needs is not: each its own answer. */
static void path_problem(answer *a, const cl_error_message *m) {
  const char *form = said(m, CUDALOAD_MESSAGE_FACT_FILE_FORM);
  int relative = form && !strcmp(form, "relative-path");
  cl_file_kind kind = cl_os_stat_kind(m->file, NULL);
  if (!relative && kind == CL_KIND_REGULAR &&
      dependency_problems(a, m, m->file, 0))
    return;
  if (!relative && kind == CL_KIND_REGULAR && readable(m->file)) {
    /* Here and whole to the model: what failed is not seen from here. */
    cl_problem *p = add(a, CUDALOAD_PROBLEM_UNKNOWN_LIBRARY, m);
    from_message(a, p, CUDALOAD_FACT_NAME, m->file);
    if (p) {
      cl_fix_step *explain = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
      cl_fix_arg(&p->fix, explain, "cudaload");
      cl_fix_arg(&p->fix, explain, "explain");
      cl_fix_arg(&p->fix, explain, m->file);
      cl_fix_note(&p->fix, explain, CL_NOTE_PROGRAMS_ENVIRONMENT_DIFFERS);
    }
    return;
  }
  cl_problem *p = add(a, CUDALOAD_PROBLEM_PATH_MISSING, m);
  from_message(a, p, CUDALOAD_FACT_PATH, m->file);
  from_message(a, p, CUDALOAD_FACT_REASON,
               relative                                        ? "relative"
               : kind == CL_KIND_REGULAR && !readable(m->file) ? "unreadable"
                                                               : "absent");
  const cl_library *lib = chosen_for(a->f->ctx, m->requirement);
  from_machine(a, p, CUDALOAD_FACT_BETTER, lib ? lib->path : NULL);
  if (!p)
    return;
  if (kind == CL_KIND_REGULAR && !relative)
    cl_fix_add_note(&p->fix, CL_NOTE_GIVE_READ_ACCESS, m->file);
  else if (lib && !relative)
    link_folder_steps(a, p, m->file, lib->path);
  else if (lib)
    cl_fix_add_note(&p->fix, CL_NOTE_PUT_LINK_AT_THE_PATH, lib->path);
  else
    cl_fix_add_note(&p->fix, CL_NOTE_PUT_LIBRARY_AT_THE_PATH);
}

/* --- a symbol the file taken lacks --------------------------------------- */

/* Whether version (a file's, "12.4.127") is at least wanted ("12.4"); 1
 * when wanted is not said, 0 when version is not known. */
static int at_least(const char *version, const char *wanted) {
  long have[CL_VERSION_PARTS] = {0}, want[CL_VERSION_PARTS] = {0};
  if (!wanted || !*wanted)
    return 1;
  if (!version || cl_version_parse(version, have) <= 0 ||
      cl_version_parse(wanted, want) <= 0)
    return 0;
  for (int i = 0; i < CL_VERSION_PARTS; ++i)
    if (have[i] != want[i])
      return have[i] > want[i];
  return 1;
}

/* The file the loader takes for `name` when `consumer` (a file here) is
 * opened as this process is: its path and rule from the model's tree, and
 * whether it lacks symbols (the finding). */
static void taken_for(answer *a, cl_problem *p, const char *consumer,
                      const char *name) {
  cudaload_explain *e = as_it_is(a->f->ctx, consumer);
  if (!e)
    return;
  for (size_t i = 0; i < e->object_count; ++i)
    for (size_t k = 0; k < e->objects[i].need_count; ++k) {
      const cl_explain_need *n = &e->objects[i].needs[k];
      if (!n->path || strcmp(n->name, name) != 0 ||
          (p && p->facts[CUDALOAD_FACT_TAKEN]))
        continue;
      from_machine(a, p, CUDALOAD_FACT_TAKEN, n->path);
      from_machine(a, p, CUDALOAD_FACT_RULE, n->rule);
      from_machine(a, p, CUDALOAD_FACT_VERSION, n->version);
    }
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *g = &e->findings[i];
    if (g->kind == CL_FINDING_UNDEFINED_SYMBOLS && g->better)
      from_machine(a, p, CUDALOAD_FACT_BETTER, g->better);
  }
  cudaload_explain_free(e);
}

/* The folder of taken when the loader found it through LD_LIBRARY_PATH
 * (rule "ld-library-path"): a step that drops that entry. */
static void drop_search_entry(answer *a, cl_problem *p) {
  const char *rule = p->facts[CUDALOAD_FACT_RULE];
  const char *taken = p->facts[CUDALOAD_FACT_TAKEN];
  if (!rule || !taken ||
      strcmp(rule, cl_resolve_rule_name(CL_RULE_LD_LIBRARY_PATH)) != 0)
    return;
  char *folder = cl_path_dirname(taken);
  char *value = cl_os_getenv("LD_LIBRARY_PATH");
  if (folder && value) {
    cl_fix_drop_from_path_list("LD_LIBRARY_PATH", value, folder, ':', &p->fix);
    cl_fix_note(&p->fix, &p->fix.steps[p->fix.count - 1],
                CL_NOTE_DROPS_FOLDER_WITH_OLD_COPY, folder);
  }
  a->list->failed |= !folder;
  free(folder);
  free(value);
}

static void symbol_problem(answer *a, const cl_error_message *m) {
  const char *node = said(m, CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION);
  /* The file with the reference: the message's "needed by"; its file is
   * the provider ("libcusparse.so.12: undefined symbol: ..., version
   * libnvJitLink.so.12" is about libnvJitLink.so.12). */
  const char *consumer = m->needed_by;
  cl_problem *p = add(a, CUDALOAD_PROBLEM_SYMBOLS_MISSING, m);
  from_message(a, p, CUDALOAD_FACT_SYMBOL,
               said(m, CUDALOAD_MESSAGE_FACT_SYMBOL));
  from_message(a, p, CUDALOAD_FACT_VERSION_NODE, node);
  from_message(a, p, CUDALOAD_FACT_CONSUMER, consumer);
  from_message(a, p, CUDALOAD_FACT_WANTED,
               said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION));
  /* The provider: the version node names its SONAME (glibc); else the
   * family the message is about. */
  cl_name_match provider;
  int known = node && cl_catalog_match(node, CL_NAMING_LINUX, &provider);
  from_message(a, p, CUDALOAD_FACT_NAME, node);
  if (known)
    from_message(a, p, CUDALOAD_FACT_FAMILY, provider.entry->family);
  if (!p)
    return;
  /* Which file this machine's loader takes for it, from the consumer's
   * copy here: the message's path, else the file of that name the plan or
   * the scan has. */
  const char *here = NULL;
  if (consumer && cl_os_path_is_absolute(consumer) &&
      cl_os_stat_kind(consumer, NULL) == CL_KIND_REGULAR)
    here = consumer;
  const cl_library *lib =
      here || !consumer ? NULL
                        : library_named(a->f->ctx, cl_path_basename(consumer));
  if (!here && lib)
    here = lib->path;
  if (here && node)
    taken_for(a, p, here, node);
  /* A copy here that has it: the plan's choice, when it is at least the
   * release the message needs and is not the file taken. */
  const cl_library *chosen = chosen_for(a->f->ctx, m->requirement);
  const char *wanted = said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION);
  if (!p->facts[CUDALOAD_FACT_BETTER] && chosen &&
      at_least(chosen->version, wanted) &&
      !(p->facts[CUDALOAD_FACT_TAKEN] &&
        cl_os_same_path(chosen->path, strlen(chosen->path),
                        p->facts[CUDALOAD_FACT_TAKEN],
                        strlen(p->facts[CUDALOAD_FACT_TAKEN]))))
    from_machine(a, p, CUDALOAD_FACT_BETTER, chosen->path);
  drop_search_entry(a, p);
  if (p->facts[CUDALOAD_FACT_BETTER] && m->requirement) {
    char *first = cl_strdup_printf(CL_NOTE_OR_LOAD_COPY_THAT_HAS_IT,
                                   p->facts[CUDALOAD_FACT_BETTER]);
    cl_fix_run_through_cudaload(a->f->ctx, &p->fix, first, m->requirement);
    a->list->failed |= !first || p->fix.failed;
    free(first);
  } else if (known && !chosen) {
    /* No copy of it here at all: the requirement's own problem installs
     * one, a release that defines it. */
    cl_fix_add_note(&p->fix, CL_NOTE_NO_COPY_OF_IT_HERE, node,
                    m->requirement ? m->requirement : CL_NOTE_ITS_LIBRARY,
                    said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION)
                        ? said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION)
                        : CL_NOTE_THE_RELEASE_BUILT_WITH);
  } else if (known) {
    cl_fix_cuda cuda;
    int rc =
        cl_fix_for_release(a->f->ctx, provider.entry->family, provider.major,
                           said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION),
                           CUDALOAD_FROM_MESSAGE, &p->fix, &cuda);
    a->list->failed |= rc == CUDALOAD_E_NO_MEMORY;
    if (cuda.major)
      cl_problem_fact_int(a->list, p, CUDALOAD_FACT_CUDA_MAJOR, cuda.source,
                          cuda.major);
  } else {
    cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_ONE_RELEASE_THAT_DEFINES_IT);
  }
}

/* How many of the functions consumer imports from the DLL named name the
 * file at other lacks, out of *wanted; *example, one of them (the
 * consumer's, valid while the cache lives). */
static size_t lacking(cl_file_cache *cache, const cl_binary_symbols *consumer,
                      const char *name, const char *other, size_t *wanted,
                      const char **example) {
  size_t missing = 0;
  *wanted = 0;
  *example = NULL;
  for (size_t r = 0; r < consumer->ref_count; ++r) {
    const cl_symbol_ref *ref = &consumer->refs[r];
    if (!ref->file || !cl_ascii_equal_nocase(ref->file, name))
      continue;
    ++*wanted;
    size_t count = 0;
    cl_found_def def;
    const cl_binary_symbols *versions;
    /* an unreadable copy defines nothing */
    if (cl_file_cache_defs_quiet(cache, other, ref->name, &def, 1, &count,
                                 &versions) != CUDALOAD_OK)
      count = 0;
    if (!count && !missing++)
      *example = ref->name;
  }
  return missing;
}

/* Windows error 127 where every DLL the loader gives the file here has
 * all it imports: the process had loaded another copy of one of them
 * first, and Windows gives every later import of that name the module
 * loaded under it (docs/loader.md, Windows 15). The copies this machine
 * has elsewhere that lack what the file imports from them: one problem
 * each, with how many functions and one of them. */
static int loaded_first_problems(answer *a, const cl_error_message *m,
                                 const char *path) {
  cudaload_ctx *ctx = a->f->ctx;
  cl_file_cache *cache = cl_verdict_files(ctx);
  const cl_binary_symbols *imports = NULL;
  /* a file whose imports cannot be read */
  int read = cache && cl_file_cache_references_quiet(cache, path, &imports) ==
                          CUDALOAD_OK;
  char *folder = cl_path_dirname(path);
  if (!read || !folder) {
    a->list->failed |= read && !folder;
    free(folder);
    return 0;
  }
  const cl_inventory *inv = cl_inventory_of(ctx);
  int found = 0;
  for (size_t i = 0; i < inv->library_count; ++i) {
    cl_library *lib = &inv->libraries[i];
    const char *name = cl_path_basename(lib->path);
    char *own = cl_path_join(folder, name);
    if (!own ||
        cl_os_same_path(own, strlen(own), lib->path, strlen(lib->path))) {
      a->list->failed |= !own;
      free(own);
      continue; /* the copy beside it: the one the loader gives it */
    }
    size_t wanted;
    const char *example;
    size_t missing =
        lacking(cache, imports, name, lib->path, &wanted, &example);
    if (missing) {
      cl_library_settle_version(ctx, lib);
      cl_problem *p = add(a, CUDALOAD_PROBLEM_SYMBOLS_MISSING, m);
      from_message(a, p, CUDALOAD_FACT_CONSUMER, path);
      from_machine(a, p, CUDALOAD_FACT_NAME, name);
      from_machine(a, p, CUDALOAD_FACT_TAKEN, lib->path);
      from_machine(a, p, CUDALOAD_FACT_VERSION,
                   lib->version[0] ? lib->version : NULL);
      from_machine(a, p, CUDALOAD_FACT_SYMBOL, example);
      cl_problem_fact_int(a->list, p, CUDALOAD_FACT_COUNT,
                          CUDALOAD_FROM_MACHINE, (long)missing);
      cl_problem_fact_int(a->list, p, CUDALOAD_FACT_TOTAL,
                          CUDALOAD_FROM_MACHINE, (long)wanted);
      if (cl_os_stat_kind(own, NULL) == CL_KIND_REGULAR)
        from_machine(a, p, CUDALOAD_FACT_BETTER, own);
      from_machine(a, p, CUDALOAD_FACT_REASON, "loaded-first");
      if (p) {
        cl_fix_add_note(&p->fix, CL_NOTE_LOAD_THE_COPY_BESIDE_FIRST, name,
                        folder);
        cl_fix_add_note(&p->fix, CL_NOTE_OR_TAKE_THE_OLDER_COPY_AWAY,
                        lib->path);
      }
      ++found;
    }
    free(own);
  }
  free(folder);
  return found;
}

/* Windows error 127: a DLL that loaded lacks a function its importer
 * needs. The file's imports, modelled here, say which: from the copies
 * the loader gives it, else from the copies here a process could have
 * loaded first. */
static void export_problem(answer *a, const cl_error_message *m) {
  if (m->file && cl_os_path_is_absolute(m->file) &&
      cl_os_stat_kind(m->file, NULL) == CL_KIND_REGULAR &&
      (dependency_problems(a, m, m->file, 1) ||
       loaded_first_problems(a, m, m->file)))
    return;
  cl_problem *p = add(a, CUDALOAD_PROBLEM_SYMBOLS_MISSING, m);
  from_message(a, p, CUDALOAD_FACT_CONSUMER, m->file);
  from_message(a, p, CUDALOAD_FACT_REASON, "missing-export");
  if (!p)
    return;
  cl_fix_step *explain = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
  cl_fix_arg(&p->fix, explain, "cudaload");
  cl_fix_arg(&p->fix, explain, "explain");
  cl_fix_arg(&p->fix, explain, "--pid");
  cl_fix_arg(&p->fix, explain, "PID");
  cl_fix_note(&p->fix, explain, CL_NOTE_EXPLAIN_PID_NAMES_COPIES);
}

/* --- versions the message states ----------------------------------------- */

static void release_problem(answer *a, const cl_error_message *m, int older) {
  const char *family = said(m, CUDALOAD_MESSAGE_FACT_FAMILY);
  const char *wanted = said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION);
  cl_problem *p = add(a,
                      older ? CUDALOAD_PROBLEM_OLDER_RELEASE
                            : CUDALOAD_PROBLEM_NEWER_RELEASE,
                      m);
  from_message(a, p, CUDALOAD_FACT_FAMILY, family);
  from_message(a, p, CUDALOAD_FACT_WANTED, wanted);
  from_message(a, p, CUDALOAD_FACT_VERSION,
               said(m, CUDALOAD_MESSAGE_FACT_FOUND_VERSION));
  from_message(a, p, CUDALOAD_FACT_CONSUMER,
               said(m, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE));
  const cl_library *lib = chosen_for(a->f->ctx, m->requirement);
  from_machine(a, p, CUDALOAD_FACT_TAKEN, lib ? lib->path : NULL);
  if (!p)
    return;
  long major = 0;
  if (wanted)
    major = strtol(wanted, NULL, 10);
  if (lib && older && at_least(lib->version, wanted)) {
    /* A copy here is new enough: the program took an older one earlier
     * in its search; have cudaload load this one first. */
    from_machine(a, p, CUDALOAD_FACT_BETTER, lib->path);
    char *first = cl_strdup_printf(CL_NOTE_COPY_HERE_IS_NEW_ENOUGH, lib->path,
                                   lib->version, wanted);
    cl_fix_run_through_cudaload(a->f->ctx, &p->fix, first, m->requirement);
    a->list->failed |= !first || p->fix.failed;
    free(first);
  } else if (m->requirement && !lib) {
    /* None here: the requirement's own problem says what to install. */
    cl_fix_add_note(&p->fix, CL_NOTE_NO_RELEASE_HERE,
                    family ? family : CL_NOTE_A_COPY, m->requirement,
                    wanted ? wanted : CL_NOTE_THE_RELEASE_BUILT_WITH);
  } else if (family && major) {
    char at_least[64];
    /* Older: that release or newer; newer than supported: that major.minor. */
    snprintf(at_least, sizeof at_least, "%s", wanted);
    cl_fix_cuda cuda;
    int rc =
        cl_fix_for_release(a->f->ctx, family, major, older ? at_least : NULL,
                           CUDALOAD_FROM_MESSAGE, &p->fix, &cuda);
    a->list->failed |= rc == CUDALOAD_E_NO_MEMORY;
    if (cuda.major)
      cl_problem_fact_int(a->list, p, CUDALOAD_FACT_CUDA_MAJOR, cuda.source,
                          cuda.major);
    if (!older)
      cl_fix_add_note(&p->fix, CL_NOTE_OR_BUILD_FOR_INSTALLED_RELEASE, family);
  } else {
    cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_RELEASE_BUILT_WITH);
  }
}

/* --- the driver, the device, the build ----------------------------------- */

static void driver_too_old_problem(answer *a, const cl_error_message *m) {
  const char *stated = said(m, CUDALOAD_MESSAGE_FACT_DRIVER_CUDA_VERSION);
  /* Without a driver the CUDA runtime says "insufficient" too; the
   * doctor's "no NVIDIA driver" problem has that fix. */
  if (!a->f->driver_path && !stated)
    return;
  cl_problem *p = add(a, CUDALOAD_PROBLEM_DRIVER_TOO_OLD, m);
  from_message(a, p, CUDALOAD_FACT_DRIVER, stated);
  from_message(a, p, CUDALOAD_FACT_CUDA_MAJOR,
               said(m, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR));
  if (!p)
    return;
  const cl_driver_cuda *d = a->f->driver_files;
  if (d && d->found && d->cuda_major)
    cl_fix_add_note(&p->fix, CL_NOTE_DRIVER_SUPPORTS_UP_TO, d->version,
                    d->cuda_major, d->cuda_minor, d->cuda_major, d->cuda_major,
                    d->cuda_major);
  else
    cl_fix_add_note(&p->fix, CL_NOTE_UPDATE_DRIVER_OR_OLDER_BUILD);
}

static void cublas_problem(answer *a, const cl_error_message *m) {
  const cudaload_probe *probe = a->f->probe;
  cl_problem *p = add(a, CUDALOAD_PROBLEM_CUBLAS_INIT, m);
  if (!p)
    return;
  if (!probe) {
    cl_fix_step *run = cl_fix_add(&p->fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&p->fix, run, "cudaload");
    cl_fix_arg(&p->fix, run, "doctor");
    cl_fix_arg(&p->fix, run, "--probe");
    cl_fix_note(&p->fix, run, CL_NOTE_PROBE_NAMES_CUBLAS_CAUSE);
  } else if (cudaload_probe_verdict(probe) == CUDALOAD_GPU_OK) {
    cl_fix_add_note(&p->fix, CL_NOTE_CUBLAS_WORKS_HERE_FREE_MEMORY);
  } else {
    cl_fix_add_note(&p->fix, CL_NOTE_PROBE_FELL_BACK_TO_CPU);
  }
}

static void no_gpu_code_problem(answer *a, const cl_error_message *m) {
  const cudaload_probe *probe = a->f->probe;
  cl_problem *p = add(a, CUDALOAD_PROBLEM_NO_GPU_CODE, m);
  if (!p)
    return;
  char gpu[300] = CL_NOTE_THE_PROBE_SHOWS_THE_GPU;
  if (probe && cudaload_probe_device_count(probe) > 0) {
    int cc = cudaload_probe_device_capability(probe, 0);
    snprintf(gpu, sizeof gpu, CL_NOTE_THIS_GPU_IS,
             cudaload_probe_device_name(probe, 0), cc / 10, cc % 10);
  }
  cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_BUILD_FOR_THIS_GPU, gpu);
}

/* onnxruntime installed over onnxruntime-gpu in the environment the
 * message came from (the message names neither version; the machine says
 * where the module's files are, as --for finds them): the same fix as
 * --for's same-files problem, the GPU build's own release reinstalled,
 * into fix. 0 when the environment holds no such pair. */
static int installed_over_gpu_build(cudaload_ctx *ctx, cl_fix *fix) {
  cl_program_target t;
  cl_asking none; /* nothing found: the answer in words */
  cl_asking_begin(&none);
  cl_program_target_find(ctx, "onnxruntime", &t);
  cl_asking_end(&none);
  const cl_program_clash *pair = NULL;
  int gpu = -1;
  for (size_t i = 0; i < t.clash_count && !pair; ++i)
    for (int k = 0; k < 2 && !pair; ++k)
      if (!strcmp(t.clashes[i].names[k], "onnxruntime-gpu") &&
          !strcmp(t.clashes[i].names[1 - k], "onnxruntime")) {
        pair = &t.clashes[i];
        gpu = k;
      }
  if (pair) {
    cl_fix_step *uninstall = cl_fix_add(fix, CUDALOAD_FIX_COMMAND);
    static const char *const words[] = {"pip", "uninstall", "-y",
                                        "onnxruntime"};
    for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
      cl_fix_arg(fix, uninstall, words[k]);
    cl_fix_note(fix, uninstall, CL_NOTE_ONNXRUNTIME_LIES_OVER_GPU_BUILD);
    cl_fix_step *install = cl_fix_add(fix, CUDALOAD_FIX_INSTALL);
    static const char *const again[] = {"pip", "install", "--force-reinstall",
                                        "--no-deps"};
    for (size_t k = 0; k < sizeof again / sizeof *again; ++k)
      cl_fix_arg(fix, install, again[k]);
    char *word = cl_strdup_printf("onnxruntime-gpu==%s", pair->versions[gpu]);
    if (word)
      cl_fix_arg(fix, install, word);
    else
      fix->failed = 1;
    free(word);
  }
  cl_program_target_free(&t);
  return pair != NULL;
}

static void cpu_build_problem(answer *a, const cl_error_message *m) {
  const char *module = said(m, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE);
  cl_problem *p = add(a, CUDALOAD_PROBLEM_CPU_BUILD, m);
  from_message(a, p, CUDALOAD_FACT_CONSUMER, module);
  from_message(a, p, CUDALOAD_FACT_PACKAGE,
               said(m, CUDALOAD_MESSAGE_FACT_DISTRIBUTION));
  if (!p)
    return;
  if (module && !strcmp(module, "onnxruntime")) {
    if (!installed_over_gpu_build(a->f->ctx, &p->fix))
      cl_fix_add_note(&p->fix, CL_NOTE_ONNXRUNTIME_GPU_ALONE);
  } else if (module && !strcmp(module, "torch")) {
    cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_CUDA_BUILD_OF_TORCH);
  } else {
    cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_PROGRAMS_CUDA_BUILD);
  }
}

static void pin_problem(answer *a, const cl_error_message *m) {
  cl_problem *p = add(a, CUDALOAD_PROBLEM_PIN, m);
  from_message(a, p, CUDALOAD_FACT_PACKAGE,
               said(m, CUDALOAD_MESSAGE_FACT_DISTRIBUTION));
  from_message(a, p, CUDALOAD_FACT_WANTED,
               said(m, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION));
  from_message(a, p, CUDALOAD_FACT_VERSION,
               said(m, CUDALOAD_MESSAGE_FACT_FOUND_VERSION));
  from_message(a, p, CUDALOAD_FACT_CONSUMER,
               said(m, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE));
  if (p)
    cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_PIN_OR_KEEP_OTHER_APART);
}

/* --- every message ------------------------------------------------------- */

void cl_message_problems(const cl_error_message_facts *f,
                         cl_problem_list *list) {
  answer a = {f, list};
  const cudaload_ctx *ctx = f->ctx;
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    const char *form = said(m, CUDALOAD_MESSAGE_FACT_FILE_FORM);
    int path = m->file && form && strcmp(form, "name") != 0;
    if (cause_is(m, "older-library") || cause_is(m, "undefined-symbol"))
      symbol_problem(&a, m);
    else if (cause_is(m, "missing-export"))
      export_problem(&a, m);
    else if (cause_is(m, "older-runtime"))
      release_problem(&a, m, 1);
    else if (cause_is(m, "newer-runtime"))
      release_problem(&a, m, 0);
    else if (cause_is(m, "driver-too-old"))
      driver_too_old_problem(&a, m);
    else if (cause_is(m, "no-gpu-code"))
      no_gpu_code_problem(&a, m);
    else if (cause_is(m, "cublas-init-failed"))
      cublas_problem(&a, m);
    else if (cause_is(m, "cpu-build"))
      cpu_build_problem(&a, m);
    else if (cause_is(m, "pin-mismatch") || cause_is(m, "pin-not-installed"))
      pin_problem(&a, m);
    else if (cause_is(m, "no-driver") && f->driver_path && m->file)
      driver_seen_problem(&a, m);
    else if (m->file && path)
      path_problem(&a, m);
    else if (m->file)
      by_name_problem(&a, m);
  }
}
