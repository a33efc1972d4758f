/* SPDX-License-Identifier: MIT */
/*
 * verdict_search_findings.c - what the loader's search does wrong in a
 * resolved tree (verdict_search_findings.h): a name not found (where it
 * looked, and the requirement or folder that provides it), a name that
 * takes another library, a CUDA library that takes a sibling of its own
 * from another folder though a copy lies beside it, and a search list that
 * looks in the current folder; each with its fix. Binding is judged apart
 * (verdict_binding_findings.c).
 */
#include "load/verdict_search_findings.h"

#include "common/error.h"
#include "common/strutil.h"
#include "load/fix_lines.h"
#include "load/spec.h"
#include "load/verdict_cuda_names.h"
#include "load/verdict_finding.h"
#include "os/platform.h"
#include "problem/fix_words.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_folder(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return 1;
  cl_file_identity ia, ib;
  return cl_os_file_identity(a, &ia) && cl_os_file_identity(b, &ib) &&
         ia.device == ib.device && ia.inode == ib.inode;
}

/* A CUDA library that takes a library of its own family from another
 * folder though a file of that name lies beside it (cuDNN 9's shim and its
 * sub-libraries, with another copy first on LD_LIBRARY_PATH or PATH): the
 * two folders are likely two versions, whatever their names say. */
/* The finding for a library that takes siblings of its own from another
 * folder: one per library and folder, naming every sibling so taken. */
static void sibling_finding(cudaload_explain *e, const char *from,
                            const cl_load_edge *edge, const char *own,
                            const char *theirs, int lazy) {
  cl_finding *f = NULL;
  for (size_t i = 0; i < e->finding_count && !f; ++i) {
    cl_finding *g = &e->findings[i];
    char *folder = g->kind == CL_FINDING_SIBLING_SHADOWED && g->taken &&
                           g->consumer && strcmp(g->consumer, from) == 0
                       ? cl_path_dirname(g->taken)
                       : NULL;
    if (folder && strcmp(folder, theirs) == 0)
      f = g;
    free(folder);
  }
  if (f && f->names && strstr(f->names, edge->name))
    return;
  char *names = f ? cl_strdup_printf("%s, %s", f->names, edge->name)
                  : cl_strdup(edge->name);
  if (!names) {
    e->failed = 1;
    return;
  }
  if (f) {
    free(f->names);
    f->names = names;
    cl_verdict_fact(&f->problem, CUDALOAD_FACT_NAME, names);
    cl_verdict_reword(e, f);
    return;
  }
  char *beside = cl_path_join(own, edge->name);
  char *taken = cl_path_join(theirs, edge->name);
  cl_problem p = cl_verdict_finding_record(CL_FINDING_SIBLING_SHADOWED, lazy);
  cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, from);
  cl_verdict_fact(&p, CUDALOAD_FACT_NAME, names);
  cl_verdict_fact(&p, CUDALOAD_FACT_TAKEN, taken);
  cl_verdict_fact(&p, CUDALOAD_FACT_BETTER, beside);
  cl_verdict_fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(edge->how.rule));
  cl_fix_add_note(&p.fix, CL_NOTE_TAKE_THE_OTHER_FOLDER_OFF_THE_SEARCH_PATH,
                  theirs);
  f = cl_verdict_add(e, CL_FINDING_SIBLING_SHADOWED, lazy, &p, from, edge->name,
                     taken, beside);
  if (f) {
    f->names = names;
    f->rule = edge->how.rule;
  } else {
    free(names);
  }
  free(beside);
  free(taken);
}

static void shadowed_sibling(cudaload_explain *e, const cl_load_tree *t,
                             const cl_load_edge *edge, const char *family,
                             cl_naming naming, int lazy) {
  const cl_load_object *from = &t->objects[edge->from];
  const char *taken = t->objects[edge->to].path;
  cl_name_match self;
  if (!cl_cuda_catalog_of(from->path, from->info.soname, naming, &self) ||
      strcmp(self.entry->family, family) != 0)
    return;
  char *own = cl_path_dirname(from->path);
  char *theirs = cl_path_dirname(taken);
  char *beside = own ? cl_path_join(own, edge->name) : NULL;
  cl_file *f = NULL;
  uint64_t size;
  /* no file beside it: no sibling shadowed */
  int sibling = own && theirs && beside && !same_folder(own, theirs) &&
                cl_os_file_open_quiet(beside, &f, &size, NULL) == CUDALOAD_OK;
  if (sibling) {
    cl_os_file_close(f);
    sibling_finding(e, from->path, edge, own, theirs, lazy || edge->lazy);
  }
  free(own);
  free(theirs);
  free(beside);
}

/* Where the loader looked for a name it did not find: "rpath (/a, /b),
 * ld-so-cache, default-dirs (/lib, /usr/lib)". */
static void places_looked_at(const cl_resolution *how, char *places,
                             size_t size) {
  size_t used = 0;
  places[0] = '\0';
  const cl_resolve_step *previous = NULL; /* the last step shown */
  for (size_t s = 0; s < how->step_count && used + 1 < size; ++s) {
    const cl_resolve_step *st = &how->steps[s];
    /* The hwcaps subfolders of one folder: the folder once. */
    if (previous && st->folder && previous->folder &&
        previous->rule == st->rule && !strcmp(st->folder, previous->folder))
      continue;
    int same = previous && previous->rule == st->rule;
    int n = snprintf(places + used, size - used, "%s%s%s%s",
                     previous && previous->folder && !same ? ")" : "",
                     previous ? ", " : "",
                     same ? "" : cl_resolve_rule_name(st->rule),
                     st->folder ? (same ? "" : " (") : "");
    if (n < 0 || (size_t)n >= size - used)
      break;
    used += (size_t)n;
    if (st->folder) {
      n = snprintf(places + used, size - used, "%s", st->folder);
      if (n < 0 || (size_t)n >= size - used)
        break;
      used += (size_t)n;
    }
    previous = st;
  }
  if (previous && previous->folder && used + 1 < size)
    places[used++] = ')', places[used] = '\0';
  if (!used)
    snprintf(places, size, CL_WORDS_SEARCHED_NOTHING);
}

/* The fix for a CUDA name nothing provides, as steps of fix: the
 * requirement that plans it, and the wheel that ships it where one does. */
static void requirement_steps(cudaload_ctx *ctx, const cl_name_match *m,
                              const char *names, cl_naming naming,
                              cl_fix *fix) {
  char spec[96];
  snprintf(spec, sizeof spec, "%s=%d", m->entry->family, m->major);
  /* Installed already, where the loader does not look here (a wheel's
   * folder, which nothing searches on Windows): no install, only the
   * requirement that loads it, or its folder on the search path. */
  const cl_library *have = NULL;
  const cl_inventory *inv = ctx ? cl_inventory_of(ctx) : NULL;
  for (size_t i = 0; inv && i < inv->library_count && !have; ++i)
    if (inv->libraries[i].entry == m->entry &&
        inv->libraries[i].major == m->major)
      have = &inv->libraries[i];
  char *folder = have ? cl_path_dirname(have->path) : NULL;
  if (folder) {
    char *path = naming == CL_NAMING_WINDOWS
                     ? cl_fix_windows_path_first(&folder, 1)
                     : NULL;
    cl_fix_add_note(fix, CL_NOTE_REQUIRE_WHAT_IS_INSTALLED_ELSEWHERE, spec,
                    m->entry->family, m->major, folder, spec,
                    path ? CL_NOTE_OR_PUT_THAT_FOLDER_FIRST_ON_PATH : "",
                    path ? path : "");
    free(path);
    free(folder);
    return;
  }
  /* The fix a requirement of that family and major would print (fix_lines.c:
   * the wheel and its version, or the variable), after the requirement. */
  cl_requirement *parsed = NULL;
  size_t n = 0;
  cl_fix install = CL_FIX_INIT;
  if (ctx && cl_spec_parse_quiet(spec, &parsed, &n) == CUDALOAD_OK && n)
    cl_fix_for_missing_steps(ctx, &parsed[0], &install, NULL);
  for (size_t i = 0; i < n; ++i)
    free(parsed[i].text);
  free(parsed);
  cl_fix_add_note(fix, CL_NOTE_REQUIRE_IT_WITH_A_ROOT, spec, names,
                  install.count ? CL_NOTE_TO_INSTALL_IT : "");
  cl_fix_append(fix, &install);
  cl_fix_free(&install);
}

/* One opener's lazy not-found finding for the family and major of m, to
 * extend with another of its names, or NULL. */
static cl_finding *lazy_not_found_of(cudaload_explain *e, const char *from,
                                     const cl_name_match *m, cl_naming naming) {
  for (size_t i = 0; from && i < e->finding_count; ++i) {
    cl_finding *f = &e->findings[i];
    cl_name_match other;
    if (f->kind == CL_FINDING_NOT_FOUND && f->lazy && f->consumer && f->names &&
        strcmp(f->consumer, from) == 0 &&
        cl_catalog_match(f->name, naming, &other) &&
        strcmp(other.entry->family, m->entry->family) == 0 &&
        other.major == m->major)
      return f;
  }
  return NULL;
}

/* The fix for names not found (joined by ", "): the requirement that
 * plans them (m: their family and major), or the folder that holds them. */
static void not_found_steps(cudaload_explain *e, const cl_name_match *m,
                            const char *names, cl_naming naming, cl_fix *fix) {
  /* "a, b, c" as said: "a, b and c". */
  const char *last = NULL;
  for (const char *c = strstr(names, ", "); c; c = strstr(c + 2, ", "))
    last = c;
  char *said = last ? cl_strdup_printf(CL_NOTE_WORDS_NAMES_AND_THE_LAST,
                                       (int)(last - names), names, last + 2)
                    : cl_strdup(names);
  if (!said)
    fix->failed = 1;
  else if (m)
    requirement_steps(e->ctx, m, said, naming, fix);
  else
    cl_fix_add_note(fix, CL_NOTE_ADD_THE_FOLDER_WITH_ROOT, said);
  free(said);
}

/* A name the loader does not find: a DT_NEEDED one fails the load, a lazy
 * one the call that opens it. The lazy names of one family from one opener
 * (libcublas.so.12 and libcublasLt.so.12 from cuDNN 8) are one finding. */
static void not_found(cudaload_explain *e, const char *from,
                      const cl_load_edge *edge, const cl_name_match *m,
                      int later, cl_naming naming) {
  /* A name opened as written (catalog.h, opens_as_is) is optional: the
   * opener goes on without it. */
  cl_name_match opener;
  if (later && from && cl_cuda_catalog_of(from, NULL, naming, &opener) &&
      cl_catalog_opens_as_is(opener.entry, opener.major, edge->name))
    return;
  char places[1024];
  places_looked_at(&edge->how, places, sizeof places);
  cl_finding *f = later && m ? lazy_not_found_of(e, from, m, naming) : NULL;
  if (f && strstr(f->names, edge->name))
    return; /* the same name met again */
  char *names = f ? cl_strdup_printf("%s, %s", f->names, edge->name)
                  : cl_strdup(edge->name);
  if (!names) {
    e->failed = 1;
    return;
  }
  if (f) {
    /* Another name of the opener's: the finding names them all. */
    free(f->names);
    f->names = names;
    cl_verdict_fact(&f->problem, CUDALOAD_FACT_NAME, names);
    cl_fix_free(&f->problem.fix);
    not_found_steps(e, m, names, naming, &f->problem.fix);
    cl_verdict_reword(e, f);
    return;
  }
  cl_problem p = cl_verdict_finding_record(CL_FINDING_NOT_FOUND, later);
  cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, from);
  cl_verdict_fact(&p, CUDALOAD_FACT_NAME, names);
  cl_verdict_fact(&p, CUDALOAD_FACT_RULE, "not-found");
  cl_verdict_fact(&p, CUDALOAD_FACT_SEARCHED, places);
  not_found_steps(e, m, names, naming, &p.fix);
  f = cl_verdict_add(e, CL_FINDING_NOT_FOUND, later, &p, from, edge->name, NULL,
                     NULL);
  if (f && later)
    f->names = names;
  else
    free(names);
}

/* A search list that looks in the current folder: an empty entry, or a
 * relative one (ctranslate2 4.4.0's bundled cuDNN has RPATH
 * "ctranslate2.libs"), which the loader takes relative to the process's
 * current folder: anyone who controls that folder could plant a library
 * there. One finding per list and entry. */
static void search_list_hazards(cudaload_explain *e, const cl_load_edge *edge,
                                const char *from, int later) {
  for (size_t s = 0; s < edge->how.step_count; ++s) {
    const cl_resolve_step *st = &edge->how.steps[s];
    if (!st->folder ||
        (st->folder[0] && (st->folder[0] == '/' || st->folder[0] == '\\' ||
                           (st->folder[0] && st->folder[1] == ':'))))
      continue;
    /* The resolver names an empty entry "." (what glibc opens). */
    int empty = !st->folder[0] || strcmp(st->folder, ".") == 0;
    cl_problem p = cl_verdict_finding_record(CL_FINDING_EMPTY_ENTRY, later);
    cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, from);
    cl_verdict_fact(&p, CUDALOAD_FACT_PATH, st->source);
    cl_verdict_fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(st->rule));
    cl_verdict_fact(&p, CUDALOAD_FACT_VALUE, st->folder);
    if (!empty)
      cl_fix_add_note(&p.fix, CL_NOTE_MAKE_THE_ENTRY_ABSOLUTE);
    else
      cl_fix_add_note(&p.fix, CL_NOTE_DROP_THE_EMPTY_ENTRY);
    /* A hazard; the load itself works (a note by its kind). */
    cl_verdict_add(e, CL_FINDING_EMPTY_ENTRY, later, &p, from, edge->name, NULL,
                   NULL);
  }
}

/* A name that asks for one library, and the loader takes another. */
static void wrong_library(cudaload_explain *e, const char *from,
                          const cl_load_edge *edge, const char *taken,
                          const cl_name_match *got, int later) {
  cl_problem p = cl_verdict_finding_record(CL_FINDING_WRONG_LIBRARY, later);
  cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, from);
  cl_verdict_fact(&p, CUDALOAD_FACT_NAME, edge->name);
  cl_verdict_fact(&p, CUDALOAD_FACT_TAKEN, taken);
  cl_verdict_fact(&p, CUDALOAD_FACT_LIBRARY, got->entry->name);
  cl_verdict_fact_int(&p, CUDALOAD_FACT_MAJOR, got->major);
  cl_verdict_fact(&p, CUDALOAD_FACT_RULE, cl_resolve_rule_name(edge->how.rule));
  cl_fix_add_note(&p.fix, CL_NOTE_REMOVE_THE_MISNAMED_FILE, taken, edge->name);
  cl_verdict_add(e, CL_FINDING_WRONG_LIBRARY, later, &p, from, edge->name,
                 taken, NULL);
}

void cl_verdict_search_findings(cudaload_explain *e, const cl_load_tree *t,
                                const char *opener, cl_naming naming,
                                int lazy) {
  for (size_t i = 0; i < t->edge_count; ++i) {
    const cl_load_edge *edge = &t->edges[i];
    const char *from =
        edge->from < t->object_count ? t->objects[edge->from].path : opener;
    int later = lazy || edge->lazy;
    cl_name_match want;
    int cuda = cl_catalog_match(edge->name, naming, &want);
    search_list_hazards(e, edge, from, later);
    if (edge->how.rule == CL_RULE_NOT_FOUND) {
      /* A DT_NEEDED name not found fails the whole open; a lazy one only
       * matters when it is a CUDA library's (the driver is the probe's
       * concern). */
      int driver = cuda && cl_catalog_is_driver(want.entry);
      if ((cuda && !driver) || (!later && !driver))
        not_found(e, from, edge, cuda ? &want : NULL, later, naming);
      continue;
    }
    if (!cuda || edge->to >= t->object_count)
      continue;
    cl_name_match got;
    const cl_load_object *to = &t->objects[edge->to];
    if (cl_cuda_catalog_of(to->path, to->info.soname, naming, &got) &&
        (got.entry != want.entry || got.major != want.major))
      wrong_library(e, from, edge, to->path, &got, later);
    else if (edge->from < t->object_count)
      shadowed_sibling(e, t, edge, want.entry->family, naming, later);
  }
}
