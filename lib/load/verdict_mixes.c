/* SPDX-License-Identifier: MIT */
/*
 * verdict_mixes.c - mixes among what one process loads
 * (verdict_mixes.h): one family and major in two versions, libraries of
 * two CUDA majors, and on Windows two copies of one DLL name (the loader
 * gives every user of the name the copy loaded first); each with its fix.
 * Only the versions a finding compares are read.
 */
#include "load/verdict_mixes.h"

#include "common/buf.h"
#include "common/strutil.h"
#include "load/fix_lines.h"
#include "os/platform.h"
#include "load/spec.h"
#include "load/verdict_finding.h"
#include "load/verdict_versions.h"
#include "problem/fix_words.h"
#include "scan/catalog.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"

#include <stdlib.h>
#include <string.h>

/* Whether the objects of a's family and major among at[] are the files of
 * one build: all of them wheel files whose version is unread, in one
 * folder. One wheel installs a build's files in one folder (pip replaces
 * them together), so they share their version: comparing them would list
 * site-packages to learn what cannot differ. */
static int one_unread_build(const cudaload_explain *e, const size_t *at,
                            size_t n, const cl_explain_object *a) {
  const char *base = cl_path_basename(a->path);
  size_t folder = (size_t)(base - a->path);
  for (size_t k = 0; k < n; ++k) {
    const cl_explain_object *o = &e->objects[at[k]];
    if (!o->family || strcmp(o->family, a->family) || o->major != a->major)
      continue;
    if (!o->version_pending ||
        (size_t)(cl_path_basename(o->path) - o->path) != folder ||
        strncmp(o->path, a->path, folder) != 0)
      return 0;
  }
  return 1;
}

/* Read the versions mixes_among compares: those of every family and major
 * among at[] whose files are not one build's. */
static void settle_compared_versions(cudaload_explain *e, const size_t *at,
                                     size_t n) {
  for (size_t i = 0; i < n; ++i) {
    cl_explain_object *a = &e->objects[at[i]];
    if (!a->family || !a->version_pending || one_unread_build(e, at, n, a))
      continue;
    for (size_t k = 0; k < n; ++k) {
      cl_explain_object *o = &e->objects[at[k]];
      if (o->family && strcmp(o->family, a->family) == 0 &&
          o->major == a->major)
        cl_verdict_settle_version(o);
    }
  }
}

/* Windows: whether object k of at[] is a later copy of a DLL name an
 * earlier one has (docs/loader.md, Windows 15). */
static int later_copy(const cudaload_explain *e, const size_t *at, size_t k) {
  if (!e->ctx || cl_ctx_naming(e->ctx) != CL_NAMING_WINDOWS)
    return 0;
  const char *name = cl_path_basename(e->objects[at[k]].path);
  for (size_t i = 0; i < k; ++i)
    if (cl_ascii_equal_nocase(cl_path_basename(e->objects[at[i]].path), name))
      return 1;
  return 0;
}

/* -1, 0, 1 as version a is older, equal or newer than b; 0 when either is
 * unknown. */
static int version_order(const char *a, const char *b) {
  long va[CL_VERSION_PARTS], vb[CL_VERSION_PARTS];
  int na = a ? cl_version_parse(a, va) : 0,
      nb = b ? cl_version_parse(b, vb) : 0;
  return na && nb ? cl_version_compare(va, na, vb, nb) : 0;
}

/* Windows: two copies of one DLL name among at[] (ctranslate2 4.8.5's
 * __init__ loads its bundled cudnn64_9.dll by full path after
 * cudaload.setup() loaded the wheel's). The loader gives every import and
 * LoadLibrary of the name the module loaded first (docs/loader.md, Windows
 * 1, 10 and 15): say which copy the files that name it get, and whether
 * that is a problem: only when the copy they get is older than the other
 * (a consumer built for the newer may take what the older lacks). */
static void windows_copies(cudaload_explain *e, const size_t *at, size_t n,
                           const char *among) {
  for (size_t k = 0; k < n; ++k) {
    if (!later_copy(e, at, k))
      continue;
    const cl_explain_object *b = &e->objects[at[k]], *a = NULL;
    const char *name = cl_path_basename(b->path);
    for (size_t i = 0; i < k && !a; ++i)
      if (cl_ascii_equal_nocase(cl_path_basename(e->objects[at[i]].path), name))
        a = &e->objects[at[i]];
    if (!a)
      continue;
    /* The files that import or open the name: each gets the copy loaded
     * first. */
    cl_buf users = CL_BUF_INIT;
    for (size_t i = 0; i < n; ++i) {
      const cl_explain_object *o = &e->objects[at[i]];
      int uses = 0;
      for (size_t j = 0; j < o->need_count && !uses; ++j)
        uses =
            cl_ascii_equal_nocase(o->needs[j].name, name) && o->needs[j].path;
      if (uses)
        cl_buf_printf(&users, "%s%s", users.len ? ", " : "", o->path);
    }
    char *who = cl_buf_take(&users);
    int older = version_order(a->version, b->version) < 0;
    cl_problem p = cl_verdict_finding_record(CL_FINDING_TWO_VERSIONS, 0);
    /* Only an older first copy is a problem; else one copy serves. */
    p.note = !older;
    cl_verdict_fact(&p, CUDALOAD_FACT_NAME, name);
    cl_verdict_fact(&p, CUDALOAD_FACT_AMONG, among);
    cl_verdict_fact(&p, CUDALOAD_FACT_TAKEN, a->path);
    cl_verdict_fact(&p, CUDALOAD_FACT_VERSION, a->version);
    cl_verdict_fact(&p, CUDALOAD_FACT_OTHER_PATH, b->path);
    cl_verdict_fact(&p, CUDALOAD_FACT_OTHER_VERSION, b->version);
    cl_verdict_fact(&p, CUDALOAD_FACT_CONSUMER, who && who[0] ? who : NULL);
    cl_verdict_fact(&p, CUDALOAD_FACT_PLATFORM,
                    cl_verdict_platform_of(CL_NAMING_WINDOWS));
    if (older) {
      cl_fix_add_note(&p.fix, CL_NOTE_LOAD_THE_NEWER_COPY_FIRST, name);
    } else {
      cl_fix_add_note(&p.fix, CL_NOTE_NOTHING_NEEDS_DOING_LIST_THE_COPIES);
      cl_fix_step *list = cl_fix_add(&p.fix, CUDALOAD_FIX_COMMAND);
      cl_fix_arg(&p.fix, list, "cudaload");
      cl_fix_arg(&p.fix, list, "explain");
      cl_fix_arg(&p.fix, list, "--pid");
      cl_fix_arg(&p.fix, list, "PID");
      cl_fix_note(&p.fix, list, CL_NOTE_PID_IS_THE_PROCESS_ID);
    }
    cl_verdict_add(e, CL_FINDING_TWO_VERSIONS, 0, &p, a->path, name, b->path,
                   NULL);
    free(who);
  }
}

/* Whether o is its family's front (cuDNN's libcudnn.so.N: it finds its
 * parts' functions by name, catalog.h main_fronts_parts). */
static int is_front(const cl_explain_object *o) {
  return o->name && cl_catalog_is_front(cl_catalog_find(o->name));
}

/* Whether two files of one family and major cannot run together: their
 * versions differ, unless one is a front older than the other (a front
 * runs with parts as new or newer, and beside another front that reaches
 * the same parts). A front newer than a part may forward what the part
 * lacks: that stays a clash. */
static int versions_clash(const cl_explain_object *x,
                          const cl_explain_object *y) {
  int order = version_order(x->version, y->version);
  if (strcmp(x->version, y->version) == 0)
    return 0;
  return !((is_front(x) && order < 0) || (is_front(y) && order > 0));
}

/* The first pair of files of *first's family and major, from position ai
 * on, whose versions clash: *first becomes the pair's earlier file, the
 * later one is returned; NULL when they all run together. */
static const cl_explain_object *clashing_pair(cudaload_explain *e,
                                              const size_t *at, size_t n,
                                              size_t ai,
                                              const cl_explain_object **first) {
  const cl_explain_object *a = *first;
  for (size_t i = ai; i < n; ++i) {
    const cl_explain_object *x = &e->objects[at[i]];
    if (later_copy(e, at, i) || !x->family || !x->version ||
        strcmp(x->family, a->family) != 0 || x->major != a->major)
      continue;
    for (size_t j = i + 1; j < n; ++j) {
      const cl_explain_object *y = &e->objects[at[j]];
      if (later_copy(e, at, j) || !y->family || !y->version ||
          strcmp(y->family, a->family) != 0 || y->major != a->major)
        continue;
      if (versions_clash(x, y)) {
        *first = x;
        return y;
      }
    }
  }
  return NULL;
}

/* One family and major in two versions, or libraries of two CUDA majors,
 * among the objects from first on: one finding per family and major, each
 * version with the folder it comes from. On Windows a later copy of a name
 * loaded already is judged apart (windows_copies): nothing reaches it by
 * name, so it runs with no other file of the process. */
/* The library of family and CUDA major cuda this machine has (the
 * inventory's), NULL when none: what a name opened as written should be. */
static const char *copy_of_major(cudaload_explain *e, const char *family,
                                 int cuda) {
  if (!e->ctx)
    return NULL;
  const cl_inventory *inv = cl_inventory_of(e->ctx);
  for (size_t i = 0; i < inv->library_count; ++i) {
    cl_library *lib = &inv->libraries[i];
    if (strcmp(lib->entry->family, family) != 0)
      continue;
    cl_library_settle_version(e->ctx, lib);
    if (cl_library_cuda_major(e->ctx, lib) == cuda &&
        lib->entry->role == CL_ROLE_MAIN)
      return lib->path;
  }
  return NULL;
}

/* A name an opener opens as written (cuBLASLt 11's libnvrtc.so,
 * catalog.h opens_as_is) that the loader finds as a file of another CUDA
 * major: only a toolkit's development link has that name, so the process
 * gets the machine's toolkit, whatever its major. One finding per pair,
 * whose fix links the name beside the opener to the opener's major: its
 * own search ($ORIGIN) finds that first. Marks in skip[] the files it
 * reported, which the CUDA majors below then leave. */
static void as_is_majors(cudaload_explain *e, const size_t *at, size_t n,
                         const char *among, unsigned char *skip) {
  for (size_t i = 0; i < n; ++i) {
    const cl_explain_object *x = &e->objects[at[i]];
    const cl_catalog_entry *entry = x->name ? cl_catalog_find(x->name) : NULL;
    if (!entry || !entry->opens_as_is[0] || !x->cuda_major)
      continue;
    for (size_t j = 0; j < n; ++j) {
      const cl_explain_object *y = &e->objects[at[j]];
      const char *name = cl_path_basename(y->path);
      if (skip[j] || !y->family || !y->cuda_major ||
          y->cuda_major == x->cuda_major ||
          !cl_catalog_opens_as_is(entry, x->major, name))
        continue;
      skip[j] = 1;
      cl_problem p = cl_verdict_finding_record(CL_FINDING_CUDA_MAJORS, 0);
      cl_verdict_fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, x->cuda_major);
      cl_verdict_fact(&p, CUDALOAD_FACT_PATH, x->path);
      cl_verdict_fact_int(&p, CUDALOAD_FACT_OTHER_CUDA_MAJOR, y->cuda_major);
      cl_verdict_fact(&p, CUDALOAD_FACT_OTHER_PATH, y->path);
      cl_verdict_fact(&p, CUDALOAD_FACT_AMONG, among);
      cl_verdict_fact(&p, CUDALOAD_FACT_NAME, name);
      char *folder = cl_path_dirname(x->path);
      char *link = folder ? cl_path_join(folder, name) : NULL;
      const char *target = copy_of_major(e, y->family, x->cuda_major);
      cl_fix_add_note(&p.fix, CL_NOTE_OPENS_THE_NAME_AS_WRITTEN,
                      cl_path_basename(x->path), name, y->cuda_major);
      /* Found in a folder of LD_LIBRARY_PATH, which the loader searches
       * before the opener's own list: that entry goes first. */
      char *value = cl_os_getenv("LD_LIBRARY_PATH");
      char *found_in = cl_path_dirname(y->path);
      for (const char *c = value; c && found_in && *c;) {
        size_t len = strcspn(c, ":");
        if (len && cl_os_same_path(c, len, found_in, strlen(found_in))) {
          cl_fix_drop_from_path_list("LD_LIBRARY_PATH", value, found_in, ':',
                                     &p.fix);
          break;
        }
        c += len + (c[len] == ':');
      }
      free(value);
      free(found_in);
      if (target && link) {
        cl_verdict_fact(&p, CUDALOAD_FACT_BETTER, target);
        cl_fix_step *ln = cl_fix_add(&p.fix, CUDALOAD_FIX_COMMAND);
        cl_fix_arg(&p.fix, ln, "ln");
        cl_fix_arg(&p.fix, ln, "-s");
        cl_fix_arg(&p.fix, ln, target);
        cl_fix_arg(&p.fix, ln, link);
        cl_fix_note(&p.fix, ln, CL_NOTE_THE_LINK_ITS_OWN_SEARCH_FINDS,
                    x->cuda_major);
      } else {
        cl_fix_add_note(&p.fix, CL_NOTE_INSTALL_THE_BUILD_FOR_THE_CUDA_MAJOR,
                        x->cuda_major, y->family);
        cl_fix_add_note(&p.fix, CL_NOTE_THEN_LINK_IT_AS_THE_NAME, name,
                        folder ? folder : x->path);
      }
      e->failed |= !folder || !link;
      free(folder);
      free(link);
      cl_verdict_add(e, CL_FINDING_CUDA_MAJORS, 0, &p, x->path, name, y->path,
                     NULL);
    }
  }
}

static void mixes_among(cudaload_explain *e, const size_t *at, size_t n,
                        const char *among) {
  settle_compared_versions(e, at, n);
  windows_copies(e, at, n, among);
  for (size_t ai = 0; ai < n; ++ai) {
    const cl_explain_object *a = &e->objects[at[ai]];
    if (!a->family || !a->version || later_copy(e, at, ai))
      continue;
    /* Report each family and major once: at its first object. */
    int earlier = 0;
    for (size_t k = 0; k < ai && !earlier; ++k) {
      const cl_explain_object *o = &e->objects[at[k]];
      earlier = o->family && o->version && strcmp(o->family, a->family) == 0 &&
                o->major == a->major;
    }
    if (earlier)
      continue;
    const cl_explain_object *b = clashing_pair(e, at, n, ai, &a);
    if (!b)
      continue;
    cl_problem p = cl_verdict_finding_record(CL_FINDING_TWO_VERSIONS, 0);
    cl_verdict_fact(&p, CUDALOAD_FACT_FAMILY, a->family);
    cl_verdict_fact_int(&p, CUDALOAD_FACT_MAJOR, a->major);
    cl_verdict_fact(&p, CUDALOAD_FACT_AMONG, among);
    cl_verdict_fact(&p, CUDALOAD_FACT_PATH, a->path);
    cl_verdict_fact(&p, CUDALOAD_FACT_VERSION, a->version);
    cl_verdict_fact(&p, CUDALOAD_FACT_OTHER_PATH, b->path);
    cl_verdict_fact(&p, CUDALOAD_FACT_OTHER_VERSION, b->version);
    cl_fix_add_note(&p.fix, CL_NOTE_KEEP_ONE_VERSION, a->family, a->major);
    cl_verdict_add(e, CL_FINDING_TWO_VERSIONS, 0, &p, a->path, NULL, b->path,
                   NULL);
  }
  unsigned char *skip = calloc(n + 1, 1);
  if (!skip) {
    e->failed = 1;
    return;
  }
  as_is_majors(e, at, n, among, skip);
  int cuda_seen = 0;
  const cl_explain_object *first_cuda = NULL;
  for (size_t i = 0; i < n; ++i) {
    const cl_explain_object *o = &e->objects[at[i]];
    if (skip[i] || !o->family || !o->cuda_major)
      continue;
    if (!cuda_seen) {
      cuda_seen = o->cuda_major;
      first_cuda = o;
    } else if (o->cuda_major != cuda_seen) {
      cl_problem p = cl_verdict_finding_record(CL_FINDING_CUDA_MAJORS, 0);
      cl_verdict_fact_int(&p, CUDALOAD_FACT_CUDA_MAJOR, cuda_seen);
      cl_verdict_fact(&p, CUDALOAD_FACT_PATH, first_cuda->path);
      cl_verdict_fact_int(&p, CUDALOAD_FACT_OTHER_CUDA_MAJOR, o->cuda_major);
      cl_verdict_fact(&p, CUDALOAD_FACT_OTHER_PATH, o->path);
      cl_verdict_fact(&p, CUDALOAD_FACT_AMONG, among);
      cl_fix_add_note(&p.fix, CL_NOTE_INSTALL_THE_BUILD_FOR_THE_CUDA_MAJOR,
                      cuda_seen, o->family);
      cl_verdict_add(e, CL_FINDING_CUDA_MAJORS, 0, &p, first_cuda->path, NULL,
                     o->path, NULL);
      break;
    }
  }
  free(skip);
}

void cl_verdict_mixes(cudaload_explain *e, size_t first, const char *among) {
  size_t n = first < e->object_count ? e->object_count - first : 0;
  size_t *at = malloc((n + 1) * sizeof *at);
  if (!at) {
    e->failed = 1;
    return;
  }
  for (size_t i = 0; i < n; ++i)
    at[i] = first + i;
  mixes_among(e, at, n, among);
  free(at);
}

void cl_verdict_mixes_in(cudaload_explain *e, const cl_loader_model *m,
                         const char *among) {
  size_t *at = malloc((e->object_count + 1) * sizeof *at);
  if (!at) {
    e->failed = 1;
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < e->object_count; ++i)
    for (size_t k = 0; k < m->loaded_count; ++k)
      if (strcmp(m->loaded[k].path, e->objects[i].path) == 0) {
        at[n++] = i;
        break;
      }
  mixes_among(e, at, n, among);
  free(at);
}
