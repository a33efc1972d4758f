/* SPDX-License-Identifier: MIT */
/*
 * program.c - cudaload_require_for(): requirements from the program the
 * user has, not a spec they must guess (program.h).
 *
 * What the target names is found by program_find.c: a binary; an
 * interpreter or environment folder, whose programs are the CUDA-using
 * distributions on its import path; or a module, found on the import
 * path as `import` finds it. A distribution's files are those its RECORD
 * lists; of its libraries, each CUDA library name it needs (ELF NEEDED,
 * PE import), each renamed copy of a CUDA library it bundles (auditwheel:
 * SONAME libcudnn.so.8) and each name a known consumer opens at run time
 * (ctranslate2: libcublas.so.12; consumers.c) becomes a requirement of
 * that family and major; its METADATA's Requires-Dist pins of NVIDIA's
 * wheels, read as PEP 440 specifiers whose PEP 508 markers hold for the
 * target's platform (scan/pep440.h, scan/pep508.h), add the families it
 * pins and the least version of each (torch 2.5.1 pins
 * nvidia-nvjitlink-cu12==12.4.127, which no file of torch needs: cuSPARSE
 * does, and an older nvJitLink breaks it). Each requirement says where it
 * came from (cudaload_requirement_origin).
 *
 * Hard needs and needs "if used": what the program loads to start (its
 * extension modules and what they bring) decides; a module or library
 * the package loads only for a feature (consumers.c: CuPy's cuTENSOR,
 * onnxruntime's TensorRT provider), and the needs of an environment's
 * other programs built for another CUDA major or another major of a
 * family the first program holds, are kept apart (cl_optional_need): the
 * plan takes them where it can and warns where it cannot, and they never
 * decide its CUDA major. The program's CUDA major is its own: what its
 * files need (libcudart.so.12), what it pins (-cu12), its build tag
 * (+cu124) or its name (cupy-cuda12x), in that order.
 *
 * Here: reading the target's files, distributions and modules, settling
 * its CUDA major and what is only "if used", and putting the result into
 * the context. What one read keeps and the requirements it derives are
 * program_scan.c's; what a distribution's METADATA pins, program_pins.c's.
 */
#include "load/program.h"

#include "binary/binary.h"
#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/plan_state.h"
#include "load/program_pins.h"
#include "load/program_scan.h"
#include "problem/fix_words.h"
#include "load/program_find.h"
#include "loader/resolve.h"
#include "load/spec.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "scan/consumers.h"
#include "scan/distinfo.h"
#include "scan/inventory.h"
#include "scan/machine.h"
#include "scan/pep440.h"
#include "scan/pep508.h"
#include "load/python_loads.h"
#include "scan/roots.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The folders of a module without a distribution that are walked. */
#define MODULE_DEPTH_MAX 16

/* --- the program's files ------------------------------------------------- */

static void keep_file(cl_program_scan *ps, const char *path) {
  cl_name_set_add(&ps->files, path, &ps->failed);
}

/* Whether a file of a Python distribution is an extension module (what
 * `import` loads: foo.cpython-311-x86_64-linux-gnu.so, foo.abi3.so,
 * foo.pyd, or a .so whose name does not start with "lib") rather than a
 * library that something loads. */
static int extension_module(const char *path) {
  const char *name = cl_path_basename(path);
  size_t len = strlen(name);
  if (len > 4 && cl_starts_with_nocase(name + len - 4, ".pyd"))
    return 1;
  if (len > 4 && cl_starts_with_nocase(name + len - 4, ".dll"))
    return 0;
  return strstr(name, ".cpython-") || strstr(name, ".abi3.") ||
         strstr(name, ".pypy") || strncmp(name, "lib", 3) != 0;
}

/* The libraries kept from one distribution (from index `first`) that no
 * library of it needs and that no import loads: plugins the program opens
 * by path when asked for one (onnxruntime's providers), which a program
 * may run without. */
static void find_plugins(cl_program_scan *ps, size_t first) {
  for (size_t i = first; i < ps->files.count; ++i) {
    const char *path = ps->files.names[i];
    if (!extension_module(path) &&
        !cl_name_set_has(&ps->needed, cl_path_basename(path)))
      cl_name_set_add(&ps->plugins, path, &ps->failed);
  }
}

/* Whether a library opens other libraries of its family by name (cuDNN's
 * shim opens its sub-libraries): a renamed copy of it bundled by a program
 * still needs those from elsewhere. A bundled copy of a whole library
 * (torch's libcusparseLt-<hex>.so.0) needs nothing more. */
static int opens_its_family(const cl_catalog_entry *entry) {
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  for (size_t e = 0; e < count; ++e)
    if (all[e].role == CL_ROLE_SUB && all[e].required_beside_main &&
        strcmp(all[e].family, entry->family) == 0 &&
        entry->role == CL_ROLE_MAIN)
      return 1;
  return 0;
}

/* A known consumer's library (ctranslate2's): what it opens by name. */
static int consumer_needs(cl_program_scan *ps, const char *path,
                          cl_naming naming) {
  char *folder = cl_path_dirname(path);
  const char *package =
      folder ? cl_consumer_package_of(cl_path_basename(folder),
                                      cl_path_basename(path), naming)
             : NULL;
  free(folder);
  if (!package)
    return 0;
  int uses = 0;
  char version[32] = "", why[4608];
  cl_consumer_version_of(path, package, version, sizeof version);
  const cl_known_consumer *c;
  for (size_t k = 0; (c = cl_consumer_need(package, version, naming, k)); ++k) {
    const cl_catalog_entry *main = cl_catalog_family_main(c->family);
    int major = !main ? 0
                : c->library_major
                    ? c->library_major
                    : cl_program_abi_major_for_cuda(main, c->cuda_major);
    if (!major)
      continue;
    snprintf(why, sizeof why, "%s (%s %s): %s", path, package, version,
             c->evidence);
    /* A row of a feature (ctranslate2's NCCL) is a need "if used", and
     * says nothing of the program's CUDA major. */
    const char *saved_feature = ps->feature;
    if (c->feature)
      ps->feature = c->feature;
    cl_program_require(ps, main, major, why, path);
    cl_program_note_cuda(ps, c->cuda_major, CL_CUDA_FROM_ROW, why);
    ps->feature = saved_feature;
    uses = 1;
  }
  return uses;
}

/* What one library file of the program needs: its CUDA NEEDED names
 * (imports), what it is when it is a renamed copy of a CUDA library, and
 * what it opens by name when it is a known consumer. relpath (RECORD's,
 * NULL for a binary) says what the package does with it (consumers.c). A
 * file that cannot be read as a library is not one (a Python file named
 * .so by mistake): 0. */
static int read_program_file(cl_program_scan *ps, const char *path,
                             const char *relpath, size_t rel_len) {
  const cl_module_behaviour *row =
      relpath ? cl_consumer_module(relpath, rel_len) : NULL;
  const cl_binary_info *info = NULL;
  /* not a library: nothing to require */
  int unread = cl_file_cache_info_quiet(cl_file_cache_of(ps->ctx), path,
                                        &info) != CUDALOAD_OK;
  if (unread)
    return 0;
  cl_naming naming =
      info->format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX;
  const char *saved_feature = ps->feature;
  if (row && row->kind == CL_MODULE_OPTIONAL)
    ps->feature = row->feature;
  int uses = 0;
  char why[4608];
  for (size_t d = 0; ps->site && !ps->feature && d < info->needed_count; ++d)
    cl_name_set_add(&ps->needed, info->needed[d], &ps->failed);
  for (size_t d = 0; d < info->needed_count; ++d) {
    cl_name_match m;
    if (!cl_catalog_match(info->needed[d], naming, &m) ||
        cl_catalog_is_driver(m.entry))
      continue;
    int first = row && row->kind == CL_MODULE_PRELOADED &&
                !strcmp(row->family, m.entry->family);
    snprintf(why, sizeof why, "needed by %s (%s)%s%s", path,
             naming == CL_NAMING_WINDOWS ? "PE import" : "ELF NEEDED",
             first ? CL_WORDS_THE_PACKAGE_LOADS_IT_FIRST : "",
             first ? row->evidence : "");
    cl_program_require(ps, m.entry, m.major, why, path);
    if (m.cuda_major) {
      snprintf(why, sizeof why, "%s needed by %s", info->needed[d], path);
      cl_program_note_cuda(ps, m.cuda_major, CL_CUDA_FROM_NEEDS, why);
    }
    uses = 1;
  }
  cl_name_match self;
  char original[256];
  if (info->soname && !cl_catalog_match(info->soname, naming, &self) &&
      cl_catalog_auditwheel_original(info->soname, original, sizeof original) &&
      cl_catalog_match(original, naming, &self) &&
      opens_its_family(self.entry)) {
    snprintf(why, sizeof why, CL_WORDS_A_COPY_OF_BUNDLED_AS, info->soname,
             path);
    cl_program_require(ps, self.entry, self.major, why, path);
    uses = 1;
  } else if (naming == CL_NAMING_WINDOWS &&
             cl_catalog_match(cl_path_basename(path), naming, &self) &&
             opens_its_family(self.entry) && cl_python_loaded_by_init(path)) {
    /* Its package's __init__ loads it (issue 45): its sub-libraries are
     * the program's need, imported or not. */
    snprintf(why, sizeof why, CL_WORDS_LOADED_BY_ITS_PACKAGE_S, path);
    cl_program_require(ps, self.entry, self.major, why, path);
    uses = 1;
  }
  uses |= consumer_needs(ps, path, naming);
  if (row && row->kind == CL_MODULE_LOADS) {
    if (cl_reserve((void **)&ps->loads, &ps->load_capacity, ps->load_count + 1,
                   sizeof *ps->loads)) {
      ps->failed = 1;
    } else {
      cl_program_deferred_load l = {
          ps->program, row->family,
          cl_strdup_printf("%s: %s", path, row->evidence)};
      ps->loads[ps->load_count++] = l;
      ps->failed |= !l.why;
    }
  }
  /* A module imported only for a feature, or after the package loaded
   * what it needs, is not opened as the program starts: not judged so. A
   * library of a feature that is opened by path (onnxruntime's TensorRT
   * provider) stays a file of the program, a plugin (find_plugins): the
   * report notes what it would take. */
  int judged =
      !(row && ((row->kind == CL_MODULE_OPTIONAL && extension_module(path)) ||
                row->kind == CL_MODULE_PRELOADED));
  if (uses && judged)
    keep_file(ps, path);
  else if (ps->site && judged && extension_module(path))
    cl_name_set_add(&ps->modules, path, &ps->failed);
  ps->feature = saved_feature;
  return 1;
}

/* The extension modules of the distribution just read that need one of its
 * kept files (from index `first`): the program imports them, and they
 * bring those files with their search lists (ctranslate2's _ext, whose
 * RPATH finds the bundled libctranslate2-*.so and its libgomp): kept too,
 * so that the files are judged as the import loads them. */
static void keep_importers(cl_program_scan *ps, size_t first) {
  size_t kept = ps->files.count;
  cl_str_index names;
  cl_str_index_init(&names, ps->naming == CL_NAMING_WINDOWS);
  for (size_t k = first; k < kept && !ps->failed; ++k)
    if (cl_str_index_add(&names, cl_path_basename(ps->files.names[k]), k))
      ps->failed = 1;
  for (size_t i = 0; i < ps->modules.count && kept > first; ++i) {
    const cl_binary_info *info = NULL;
    /* unreadable: nothing to keep */
    if (cl_file_cache_info_quiet(cl_file_cache_of(ps->ctx),
                                 ps->modules.names[i], &info) != CUDALOAD_OK)
      info = NULL;
    int brings = 0;
    for (size_t d = 0; info && d < info->needed_count && !brings; ++d)
      brings = cl_str_index_find(&names, info->needed[d], NULL);
    if (brings)
      keep_file(ps, ps->modules.names[i]);
  }
  cl_str_index_free(&names);
  cl_name_set_clear(&ps->modules);
}

/* A program that is a CUDA library itself (a cuDNN 9 shim) needs a library
 * of its own family (libcudnn_ops.so.9) that lies beside it: its folder is
 * searched too, whatever the loader would take now, since the loader model
 * judges another folder's copy "a sibling shadowed"
 * (verdict_search_findings.c), and the plan takes the one beside it. */
static void note_own_siblings(cl_program_scan *ps, const char *path,
                              const char *need, const cl_name_match *wanted,
                              cl_naming naming) {
  cl_name_match self;
  if (!cl_catalog_match_renamed(cl_path_basename(path), naming, &self) ||
      strcmp(self.entry->family, wanted->entry->family) != 0)
    return;
  char *folder = cl_path_dirname(path);
  char *beside = folder ? cl_path_join(folder, need) : NULL;
  if (beside && cl_os_stat_kind(beside, NULL) == CL_KIND_REGULAR)
    cl_name_set_add(&ps->search_folders, folder, &ps->failed);
  else if (!folder || !beside)
    ps->failed = 1;
  free(beside);
  free(folder);
}

/* The folders where the loader, opening the program file at path, finds
 * the CUDA libraries it needs: searched as roots of their own, so that a
 * program that finds its libraries itself (an app's $ORIGIN/lib, a folder
 * on LD_LIBRARY_PATH) is planned with them, not refused for want of a
 * root. The loader model decides, as for everything else. */
static void note_search_folders(cl_program_scan *ps, const char *path,
                                const cl_binary_info *info) {
  cl_loader_model m;
  /* no model of this process: nothing noted */
  int no_model = cl_loader_model_init_host_quiet(&m) != CUDALOAD_OK;
  if (no_model)
    return;
  if (m.naming ==
      (info->format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX)) {
    m.files = cl_file_cache_of(ps->ctx);
    cl_requester req = {path, info, NULL};
    for (size_t d = 0; d < info->needed_count && !ps->failed; ++d) {
      cl_name_match match;
      if (!cl_catalog_match(info->needed[d], m.naming, &match) ||
          cl_catalog_is_driver(match.entry))
        continue;
      cl_resolution r;
      int rc = cl_resolve(&m, &req, info->needed[d], &r);
      if (rc == CUDALOAD_E_NO_MEMORY)
        ps->failed = 1;
      if (rc)
        continue;
      char *folder = r.path ? cl_path_dirname(r.path) : NULL;
      if (folder)
        cl_name_set_add(&ps->search_folders, folder, &ps->failed);
      free(folder);
      cl_resolution_free(&r);
      note_own_siblings(ps, path, info->needed[d], &match, m.naming);
    }
  }
  cl_loader_model_free(&m);
}

/* Whether a RECORD path names a library file: .so, .so.N..., .dll, .pyd. */
static int library_path(const char *path, size_t len) {
  if (len > 4 && (cl_starts_with_nocase(path + len - 4, ".dll") ||
                  cl_starts_with_nocase(path + len - 4, ".pyd")))
    return 1;
  /* From dot to dot (torch's RECORD: 30,000 rows, most of them .py). */
  for (const char *dot = memchr(path, '.', len); dot;) {
    size_t left = len - (size_t)(dot - path);
    if (left >= 3 && dot[1] == 's' && dot[2] == 'o' &&
        (left == 3 || dot[3] == '.'))
      return 1;
    dot = left > 1 ? memchr(dot + 1, '.', left - 1) : NULL;
  }
  return 0;
}

typedef struct record_walk {
  cl_program_scan *ps;
  const char *site;
} record_walk;

static int visit_record(const char *path, size_t len, void *opaque) {
  record_walk *w = opaque;
  /* Files outside site-packages (scripts, ../../bin) are not the module's. */
  if (!library_path(path, len) || len >= 4096)
    return 0;
  for (size_t i = 0; i + 1 < len; ++i)
    if (path[i] == '.' && path[i + 1] == '.')
      return 0;
  char relative[4096];
  memcpy(relative, path, len);
  relative[len] = '\0';
  char *full = cl_path_join(w->site, relative);
  if (!full) {
    w->ps->failed = 1;
    return 1;
  }
  read_program_file(w->ps, full, relative, len);
  free(full);
  return 0;
}

/* A new program (a binary, a distribution) being read. */
static void begin_program(cl_program_scan *ps, const char *label, int rank) {
  if (cl_reserve((void **)&ps->programs, &ps->program_capacity,
                 ps->program_count + 1, sizeof *ps->programs)) {
    ps->failed = 1;
    ps->program = SIZE_MAX;
    return;
  }
  cl_program_info *p = &ps->programs[ps->program_count];
  memset(p, 0, sizeof *p);
  snprintf(p->label, sizeof p->label, "%s", label);
  p->rank = rank;
  ps->program = ps->program_count++;
}

/* After a distribution's files: which of its modules bring them, which of
 * its libraries are plugins. */
static void end_distribution(cl_program_scan *ps, size_t first) {
  keep_importers(ps, first);
  find_plugins(ps, first);
  cl_name_set_clear(&ps->needed);
}

/* One installed distribution: its METADATA pins and its RECORD's
 * libraries. Its RECORD comes from records when finding the target read
 * it already, and is dropped there after: this is its last reader. */
static void read_distribution(cl_program_scan *ps, const char *site,
                              const char *distinfo, int rank,
                              cl_record_texts *records) {
  char *folder = cl_path_join(site, distinfo);
  char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
  size_t len = 0;
  char *text = metadata ? cl_program_read_text(metadata, &len) : NULL;
  char *name = NULL, *version = NULL;
  char label[256] = "";
  if (text && cl_metadata_parse(text, len, &name, &version) == CUDALOAD_OK)
    snprintf(label, sizeof label, "%s %s", name, version);
  begin_program(ps, label[0] ? label : distinfo, rank);
  ps->site = site;
  int cuda = 0;
  if (name && cl_program_name_says_cuda(name, version, &cuda) && cuda) {
    char why[512];
    snprintf(why, sizeof why, "%s %s says so", name, version);
    cl_program_note_cuda(ps, cuda, CL_CUDA_FROM_NAME, why);
  }
  ps->dist_name = name;
  ps->dist_version = version;
  if (text)
    cl_requires_dist_parse(text, len, cl_program_visit_pin, ps);
  ps->dist_name = ps->dist_version = NULL;
  if (name)
    cl_program_note_preloads(ps, name, version);
  free(text);
  const char *record =
      cl_record_text_of(records, site, distinfo, &len, &ps->failed);
  record_walk w = {ps, site};
  size_t first = ps->files.count;
  if (record)
    cl_record_parse(record, len, visit_record, &w);
  end_distribution(ps, first);
  cl_record_text_drop(records, site, distinfo);
  ps->site = NULL;
  free(name);
  free(version);
  free(metadata);
  free(folder);
}

/* A module found without a distribution that lists it (a PYTHONPATH
 * folder, a source tree): its libraries, walked. */
typedef struct module_walk {
  cl_program_scan *ps;
  const char *top; /* the folder that holds the module */
  int depth;
  size_t seen;
} module_walk;

static void walk_module(module_walk *w, const char *folder);

static int visit_module_entry(const char *name, cl_file_kind kind,
                              void *opaque) {
  module_walk *w = opaque;
  if (w->ps->failed || ++w->seen > 1000000)
    return 1;
  if (!strcmp(name, ".") || !strcmp(name, ".."))
    return 0;
  char *path = cl_path_join(w->top, name);
  if (!path) {
    w->ps->failed = 1;
    return 1;
  }
  if (kind == CL_KIND_UNKNOWN || kind == CL_KIND_SYMLINK)
    kind = cl_os_stat_kind(path, NULL);
  if (kind == CL_KIND_DIRECTORY && w->depth < MODULE_DEPTH_MAX) {
    module_walk inner = {w->ps, path, w->depth + 1, w->seen};
    walk_module(&inner, path);
    w->seen = inner.seen;
  } else if (kind == CL_KIND_REGULAR && library_path(name, strlen(name))) {
    read_program_file(w->ps, path, NULL, 0);
  }
  free(path);
  return 0;
}

static void walk_module(module_walk *w, const char *folder) {
  /* an unreadable folder holds nothing */
  cl_os_list_dir_quiet(folder, visit_module_entry, w, NULL);
}

static void read_module_folder(cl_program_scan *ps, const char *location) {
  begin_program(ps, location, 0);
  const char *saved = ps->site;
  ps->site = location; /* its files need what its files need */
  size_t first = ps->files.count;
  if (cl_os_stat_kind(location, NULL) == CL_KIND_DIRECTORY) {
    module_walk w = {ps, location, 0, 0};
    walk_module(&w, location);
  } else {
    read_program_file(ps, location, NULL, 0);
  }
  end_distribution(ps, first);
  ps->site = saved;
}

/* --- the program's CUDA major, and what is only "if used" ---------------- */

/* The program that decides the CUDA major: the best ranked that has one.
 * SIZE_MAX when none has. */
static size_t deciding_program(const cl_program_scan *ps) {
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < ps->program_count; ++i)
    if (ps->programs[i].cuda_major &&
        (best == SIZE_MAX || ps->programs[i].rank < ps->programs[best].rank))
      best = i;
  return best;
}

/* The families a module loads by name, of its program's CUDA major. */
static void settle_loads(cl_program_scan *ps) {
  for (size_t i = 0; i < ps->load_count; ++i) {
    cl_program_deferred_load *l = &ps->loads[i];
    const cl_catalog_entry *main = cl_catalog_family_main(l->family);
    int cuda = l->program < ps->program_count
                   ? ps->programs[l->program].cuda_major
                   : 0;
    int major = main && cuda ? cl_program_abi_major_for_cuda(main, cuda) : 0;
    if (!major)
      continue;
    size_t saved = ps->program;
    ps->program = l->program;
    cl_program_require(ps, main, major, l->why, NULL);
    ps->program = saved;
  }
}

/* An environment's needs that its deciding program does not share: a
 * program built for another CUDA major, or another major of a family the
 * deciding program holds, is needed only if that program is used. */
static void demote_others(cl_program_scan *ps, size_t decider) {
  if (decider == SIZE_MAX)
    return;
  const cl_program_info *first = &ps->programs[decider];
  for (size_t i = 0; i < ps->count; ++i) {
    cl_program_derived *d = &ps->reqs[i];
    if (d->optional || d->program == decider || d->program >= ps->program_count)
      continue;
    const cl_program_info *p = &ps->programs[d->program];
    int other_cuda = p->cuda_major && p->cuda_major != first->cuda_major;
    int other_major = 0;
    for (size_t k = 0; k < ps->count && !other_major; ++k) {
      const cl_program_derived *e = &ps->reqs[k];
      other_major = !e->optional && e->main == d->main &&
                    e->major != d->major && e->program < ps->program_count &&
                    ps->programs[e->program].rank < p->rank;
    }
    if (!other_cuda && !other_major)
      continue;
    d->optional = 1;
    char note[1024];
    if (other_cuda)
      snprintf(note, sizeof note, CL_WORDS_ONLY_IF_IS_USED_IT, p->label,
               p->cuda_major, first->label, first->cuda_major);
    else
      snprintf(note, sizeof note, CL_WORDS_ONLY_IF_IS_USED_ANOTHER, p->label);
    cl_buf_printf(&d->origin, "%s%s", d->origin.len ? "; " : "", note);
  }
}

/* --- the clashes --------------------------------------------------------- */

/* Two distributions that own the same files, as a problem with the
 * reinstall that fixes it: the one wanted is the one built for the
 * program's CUDA major, else the one that uses CUDA. */
static void word_clash(cl_program_scan *ps, const cl_program_clash *c,
                       int cuda) {
  int wanted = -1;
  for (int i = 0; i < 2 && wanted < 0; ++i)
    if (cuda && c->cuda[i] == cuda && c->cuda[1 - i] != cuda)
      wanted = i;
  if (wanted < 0 && c->uses_cuda[0] != c->uses_cuda[1])
    wanted = c->uses_cuda[0] ? 0 : 1;
  /* The pair, the files they share and where, and whose files lie there
   * (when known), not the program's when the other is wanted. */
  cl_problem problem;
  cl_problem_init(&problem, CUDALOAD_PROBLEM_SAME_FILES);
  cl_program_fact(&problem, CUDALOAD_FACT_PACKAGE, c->names[0]);
  cl_program_fact(&problem, CUDALOAD_FACT_VERSION, c->versions[0]);
  cl_program_fact(&problem, CUDALOAD_FACT_OTHER_PACKAGE, c->names[1]);
  cl_program_fact(&problem, CUDALOAD_FACT_OTHER_VERSION, c->versions[1]);
  cl_program_fact(&problem, CUDALOAD_FACT_NAME, c->example);
  cl_problem_factf(NULL, &problem, CUDALOAD_FACT_COUNT, CUDALOAD_FROM_PROGRAM,
                   "%zu", c->shared);
  cl_program_fact(&problem, CUDALOAD_FACT_PATH, c->site);
  if (c->installed >= 0) {
    cl_program_fact(&problem, CUDALOAD_FACT_TAKEN, c->names[c->installed]);
    cl_program_fact(&problem, CUDALOAD_FACT_REASON, c->why);
  }
  if (wanted >= 0 && c->installed == 1 - wanted)
    cl_program_fact(&problem, CUDALOAD_FACT_WANTED, c->names[wanted]);
  cl_fix steps = CL_FIX_INIT;
  if (wanted >= 0) {
    cl_fix_step *uninstall = cl_fix_add(&steps, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(&steps, uninstall, "pip");
    cl_fix_arg(&steps, uninstall, "uninstall");
    cl_fix_arg(&steps, uninstall, "-y");
    cl_fix_arg(&steps, uninstall, c->names[1 - wanted]);
    cl_fix_step *install = cl_fix_add(&steps, CUDALOAD_FIX_INSTALL);
    cl_fix_arg(&steps, install, "pip");
    cl_fix_arg(&steps, install, "install");
    cl_fix_arg(&steps, install, "--force-reinstall");
    cl_fix_arg(&steps, install, "--no-deps");
    char *word =
        cl_strdup_printf("%s==%s", c->names[wanted], c->versions[wanted]);
    if (word)
      cl_fix_arg(&steps, install, word);
    else
      steps.failed = 1;
    free(word);
  } else {
    cl_fix_add_note(&steps, CL_NOTE_KEEP_ONE_OF_THE_TWO_DISTRIBUTIONS);
    cl_fix_step *uninstall = cl_fix_add(&steps, CUDALOAD_FIX_COMMAND);
    static const char *const words[] = {"pip", "uninstall", "-y"};
    for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
      cl_fix_arg(&steps, uninstall, words[k]);
    cl_fix_arg(&steps, uninstall, c->names[0]);
    cl_fix_arg(&steps, uninstall, c->names[1]);
    cl_fix_note(&steps, uninstall, CL_NOTE_THEN_INSTALL_THE_ONE_NEEDED);
  }
  cl_problem_take_fix(NULL, &problem, &steps);
  cl_program_add_warning(ps, &problem, cl_path_basename(c->example));
}

/* --- into the context ---------------------------------------------------- */

static int set_origin(cudaload_ctx *ctx, const char *text, const char *why) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->origin_count; ++i)
    if (strcmp(ps->origins[i].text, text) == 0) {
      char *joined = cl_strdup_printf("%s; %s", ps->origins[i].origin, why);
      if (!joined)
        return CUDALOAD_E_NO_MEMORY;
      free(ps->origins[i].origin);
      ps->origins[i].origin = joined;
      return CUDALOAD_OK;
    }
  if (cl_reserve((void **)&ps->origins, &ps->origin_capacity,
                 ps->origin_count + 1, sizeof *ps->origins))
    return CUDALOAD_E_NO_MEMORY;
  cl_requirement_origin o = {cl_strdup(text), cl_strdup(why)};
  if (!o.text || !o.origin) {
    free(o.text);
    free(o.origin);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->origins[ps->origin_count++] = o;
  return CUDALOAD_OK;
}

static void raise_least(cl_requirement *r, const cl_program_derived *d) {
  if (d->at_least_parts &&
      (!r->at_least_parts ||
       cl_version_compare(d->at_least, d->at_least_parts, r->at_least,
                          r->at_least_parts) > 0)) {
    memcpy(r->at_least, d->at_least, sizeof r->at_least);
    r->at_least_parts = d->at_least_parts;
  }
}

/* The origin of d as the report shows it: its reasons, and how many more
 * there were. */
static char *origin_text(const cl_program_derived *d) {
  if (d->reasons <= CL_PROGRAM_REASONS_SHOWN)
    return cl_strdup(d->origin.data ? d->origin.data : "");
  return cl_strdup_printf("%s; and %zu more", d->origin.data,
                          d->reasons - CL_PROGRAM_REASONS_SHOWN);
}

static int add_derived(cudaload_ctx *ctx, const cl_program_derived *d) {
  cl_requirement *parsed = NULL;
  size_t n = 0;
  int rc = cl_spec_parse(d->text, &parsed, &n);
  if (rc)
    return rc;
  char *origin = origin_text(d);
  if (!origin)
    rc = CUDALOAD_E_NO_MEMORY;
  /* Recorded under the requirement's normalised text ("nvjitlink=12"). */
  for (size_t i = 0; !rc && i < n; ++i)
    rc = set_origin(ctx, parsed[i].text, origin);
  free(origin);
  size_t kept = 0;
  for (size_t i = 0; !rc && i < n; ++i) {
    int held = 0;
    for (size_t k = 0; k < cl_plan_state_of(ctx)->requirement_count && !held;
         ++k)
      if (strcmp(cl_plan_state_of(ctx)->requirements[k].text, parsed[i].text) ==
          0) {
        raise_least(&cl_plan_state_of(ctx)->requirements[k], d);
        held = 1;
      }
    if (held) {
      free(parsed[i].text);
      continue;
    }
    raise_least(&parsed[i], d);
    parsed[i].source = CUDALOAD_FROM_PROGRAM;
    parsed[kept++] = parsed[i];
  }
  if (!rc && (rc = cl_requirements_add(ctx, parsed, kept)) != CUDALOAD_OK)
    for (size_t i = 0; i < kept; ++i)
      free(parsed[i].text);
  free(parsed);
  return rc;
}

/* A need only if used: kept once per library, unless it is a hard one
 * too. */
static int add_optional(cudaload_ctx *ctx, const cl_program_scan *scan,
                        const cl_program_derived *d) {
  for (size_t i = 0; i < scan->count; ++i)
    if (!scan->reqs[i].optional && scan->reqs[i].main == d->main &&
        scan->reqs[i].major == d->major)
      return CUDALOAD_OK;
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->optional_need_count; ++i)
    if (ps->optional_needs[i].entry == d->main &&
        ps->optional_needs[i].major == d->major)
      return CUDALOAD_OK;
  if (cl_reserve((void **)&ps->optional_needs, &ps->optional_need_capacity,
                 ps->optional_need_count + 1, sizeof *ps->optional_needs))
    return CUDALOAD_E_NO_MEMORY;
  int cuda = d->program < scan->program_count
                 ? scan->programs[d->program].cuda_major
                 : 0;
  cl_optional_need n = {d->main, d->major, cuda,
                        cl_strdup(d->opener ? d->opener : ""), origin_text(d)};
  if (!n.opener || !n.why) {
    free(n.opener);
    free(n.why);
    return CUDALOAD_E_NO_MEMORY;
  }
  ps->optional_needs[ps->optional_need_count++] = n;
  return CUDALOAD_OK;
}

static int move_names(char ***to, size_t *count, size_t *capacity,
                      cl_name_set *from) {
  for (size_t i = 0; i < from->count; ++i) {
    if (cl_reserve((void **)to, capacity, *count + 1, sizeof **to))
      return CUDALOAD_E_NO_MEMORY;
    (*to)[(*count)++] = from->names[i];
    from->names[i] = NULL;
  }
  return CUDALOAD_OK;
}

static int add_files(cudaload_ctx *ctx, cl_program_scan *ps) {
  cl_plan_state *state = cl_plan_state_make(ctx);
  if (!state ||
      move_names(&state->program_files, &state->program_file_count,
                 &state->program_file_capacity, &ps->files) ||
      move_names(&state->program_plugins, &state->program_plugin_count,
                 &state->program_plugin_capacity, &ps->plugins) ||
      move_names(&state->program_preloads, &state->program_preload_count,
                 &state->program_preload_capacity, &ps->preloads))
    return CUDALOAD_E_NO_MEMORY;
  /* Each file with its call (static text, consumers.c): the names are
   * placed first, the files then moved after them. */
  size_t first = state->program_call_file_count;
  if (cl_reserve((void **)&state->program_call_names,
                 &state->program_call_name_capacity,
                 first + ps->call_files.count + 1,
                 sizeof *state->program_call_names))
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->call_files.count; ++i)
    state->program_call_names[first + i] = ps->call_names[i];
  if (move_names(&state->program_call_files, &state->program_call_file_count,
                 &state->program_call_file_capacity, &ps->call_files))
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->search_folders.count; ++i) {
    char *folder = ps->search_folders.names[i];
    ps->search_folders.names[i] = NULL;
    if (cl_ctx_add_program_root(ctx, folder) != CUDALOAD_OK)
      return CUDALOAD_E_NO_MEMORY;
  }
  return CUDALOAD_OK;
}

static int add_warnings_and_major(cudaload_ctx *ctx, cl_program_scan *ps,
                                  size_t decider) {
  cl_plan_state *state = cl_plan_state_make(ctx);
  if (!state)
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->warning_count; ++i) {
    int same = 0;
    for (size_t k = 0; k < state->program_warning_count && !same; ++k)
      same = !strcmp(state->program_warnings[k].text, ps->warnings[i].text);
    if (same)
      continue;
    if (cl_reserve(
            (void **)&state->program_warnings, &state->program_warning_capacity,
            state->program_warning_count + 1, sizeof *state->program_warnings))
      return CUDALOAD_E_NO_MEMORY;
    state->program_warnings[state->program_warning_count++] = ps->warnings[i];
    memset(&ps->warnings[i], 0, sizeof ps->warnings[i]);
  }
  if (decider != SIZE_MAX && !state->program_cuda_major) {
    const cl_program_info *p = &ps->programs[decider];
    char *reason = cl_strdup_printf("%s: %s", p->label, p->cuda_reason);
    if (!reason)
      return CUDALOAD_E_NO_MEMORY;
    free(state->program_cuda_reason);
    state->program_cuda_reason = reason;
    state->program_cuda_major = p->cuda_major;
  }
  return CUDALOAD_OK;
}

cl_program_set cl_program_set_of(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_program_set set = {ps->program_files,          ps->program_file_count,
                        ps->program_plugins,        ps->program_plugin_count,
                        ps->program_preloads,       ps->program_preload_count,
                        ps->program_call_files,     ps->program_call_names,
                        ps->program_call_file_count};
  return set;
}

int cl_program_plugin(const cl_program_set *set, const char *path) {
  for (size_t i = 0; set && path && i < set->plugin_count; ++i)
    if (strcmp(set->plugins[i], path) == 0)
      return 1;
  return 0;
}

void cl_program_set_free(cl_program_set *set) {
  for (size_t i = 0; i < set->file_count; ++i)
    free(set->files[i]);
  free(set->files);
  for (size_t i = 0; i < set->plugin_count; ++i)
    free(set->plugins[i]);
  free(set->plugins);
  memset(set, 0, sizeof *set);
}

static void program_scan_init(cl_program_scan *ps, cudaload_ctx *ctx) {
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  ps->naming = cl_ctx_naming(ctx);
  ps->program = SIZE_MAX;
  cl_str_index_init(&ps->req_index, 0);
  cl_name_set_init(&ps->files, 0);
  cl_name_set_init(&ps->plugins, 0);
  cl_name_set_init(&ps->needed, ps->naming == CL_NAMING_WINDOWS);
  cl_name_set_init(&ps->modules, 0);
  cl_name_set_init(&ps->search_folders, 0);
  cl_name_set_init(&ps->preloads, 0);
  cl_name_set_init(&ps->call_files, 0);
  cl_marker_env_for(&ps->markers, ps->naming, cl_ctx_machine(ctx), NULL);
}

static void program_scan_free(cl_program_scan *ps) {
  for (size_t i = 0; i < ps->count; ++i) {
    cl_buf_free(&ps->reqs[i].origin);
    free(ps->reqs[i].opener);
  }
  free(ps->reqs);
  cl_str_index_free(&ps->req_index);
  cl_name_set_free(&ps->files);
  cl_name_set_free(&ps->plugins);
  cl_name_set_free(&ps->needed);
  cl_name_set_free(&ps->modules);
  cl_name_set_free(&ps->search_folders);
  cl_name_set_free(&ps->preloads);
  cl_name_set_free(&ps->call_files);
  free(ps->call_names);
  free(ps->programs);
  for (size_t i = 0; i < ps->load_count; ++i)
    free(ps->loads[i].why);
  free(ps->loads);
  for (size_t i = 0; i < ps->warning_count; ++i)
    cl_plan_warning_free(&ps->warnings[i]);
  free(ps->warnings);
}

/* Where it was looked for, for the error of a target not found. */
static void say_where(cl_buf *b, const cl_program_target *t) {
  if (!t->path.count) {
    cl_buf_printf(b, CL_WORDS_NO_ENVIRONMENT_IS_ACTIVE_NO);
    return;
  }
  cl_buf_printf(b, "looked in");
  for (size_t i = 0; i < t->path.count; ++i)
    cl_buf_printf(b, "%s %s", i ? "," : "", t->path.folders[i].path);
  char *venv = cl_os_getenv("VIRTUAL_ENV");
  if (!venv || !*venv)
    cl_buf_printf(b, CL_WORDS_VIRTUAL_ENV_IS_NOT_SET);
  free(venv);
}

/* The marker variables of the target: its platform, and its Python where
 * the import path tells. */
static void target_markers(cl_program_scan *ps, const cl_program_target *t) {
  cl_marker_env_for(&ps->markers, ps->naming, cl_ctx_machine(ps->ctx),
                    t->path.python_version[0] ? t->path.python_version : NULL);
  if (t->path.python_version[0]) {
    ps->markers.implementation_name = "cpython";
    ps->markers.platform_python_implementation = "CPython";
  }
}

/* Read what the target names; 0 when it names nothing. */
static int read_target(cl_program_scan *ps, const char *target,
                       cl_program_target *t) {
  target_markers(ps, t);
  if (t->kind == CL_TARGET_BINARY) {
    begin_program(ps, target, 0);
    if (!read_program_file(ps, target, NULL, 0))
      return 0;
    keep_file(ps, target); /* the program itself, needs or not */
    const cl_binary_info *info = NULL;
    /* read above: unreadable now, nothing */
    if (cl_file_cache_info_quiet(cl_file_cache_of(ps->ctx), target, &info) ==
        CUDALOAD_OK)
      note_search_folders(ps, target, info);
    return 1;
  }
  for (size_t i = 0; i < t->adopt_count && !ps->failed; ++i) {
    int known = 0;
    for (size_t k = 0; k < ps->ctx->environment_count && !known; ++k)
      known = strcmp(ps->ctx->environment_roots[k], t->adopt[i]) == 0;
    if (!known && cudaload_add_environment_root(ps->ctx, t->adopt[i]))
      ps->failed = 1;
  }
  for (size_t i = 0; i < t->distribution_count; ++i)
    read_distribution(ps, t->distributions[i].site,
                      t->distributions[i].distinfo, t->distributions[i].rank,
                      &t->records);
  if (t->module_folder)
    read_module_folder(ps, t->module_folder);
  if (t->found_how) /* the origin says which module import takes */
    for (size_t i = 0; i < ps->count; ++i)
      if (!ps->reqs[i].optional)
        cl_buf_printf(&ps->reqs[i].origin, "; %s", t->found_how);
  return t->kind != CL_TARGET_NOTHING;
}

/* The target as given, for the reports' first line ("torch"). */
static int remember_target(cudaload_ctx *ctx, const char *target) {
  cl_plan_state *state = cl_plan_state_make(ctx);
  if (!state)
    return CUDALOAD_E_NO_MEMORY;
  char *joined =
      state->program_targets
          ? cl_strdup_printf("%s, %s", state->program_targets, target)
          : cl_strdup(target);
  if (!joined)
    return CUDALOAD_E_NO_MEMORY;
  free(state->program_targets);
  state->program_targets = joined;
  return CUDALOAD_OK;
}

static int require_for_held(cudaload_ctx *ctx, const char *target);

/* The files its reads held open are closed at its end; what was read of
 * them stays in the cache (file_cache.h, "Holding files open"). */
int cudaload_require_for(cudaload_ctx *ctx, const char *target) {
  int rc = require_for_held(ctx, target);
  if (ctx)
    cl_file_cache_release(ctx->file_cache);
  return rc;
}

static int require_for_held(cudaload_ctx *ctx, const char *target) {
  cl_clear_error();
  if (!ctx || !target)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_require_for: NULL %s",
                   ctx ? "target" : "ctx");
  if (!*target)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_require_for: an empty target");
  if ((strchr(target, '/') || strchr(target, '\\')) &&
      !cl_os_path_is_absolute(target))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_require_for: \"%s\" is a relative path; give "
                   "the program's absolute path, or a module name",
                   target);
  cl_program_target t;
  cl_program_target_find(ctx, target, &t);
  cl_program_scan ps;
  program_scan_init(&ps, ctx);
  int found = t.failed ? 0 : read_target(&ps, target, &t);
  int rc = ps.failed || t.failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
  if (!rc && !found) {
    cl_buf why = CL_BUF_INIT;
    say_where(&why, &t);
    char *where = cl_buf_take(&why);
    rc = cl_fail(CUDALOAD_E_NOT_FOUND,
                 "cudaload_require_for: \"%s\" is no program file, "
                 "interpreter or environment folder, nor a Python module or "
                 "distribution installed in the active environment (%s)",
                 target, where ? where : "");
    free(where);
    program_scan_free(&ps);
    cl_program_target_free(&t);
    return rc;
  }
  settle_loads(&ps);
  size_t decider = deciding_program(&ps);
  demote_others(&ps, decider);
  for (size_t i = 0; !rc && i < t.clash_count; ++i)
    word_clash(&ps, &t.clashes[i],
               decider == SIZE_MAX ? 0 : ps.programs[decider].cuda_major);
  for (size_t i = 0; !rc && i < ps.count; ++i)
    rc = ps.reqs[i].optional ? add_optional(ctx, &ps, &ps.reqs[i])
                             : add_derived(ctx, &ps.reqs[i]);
  if (!rc)
    rc = add_files(ctx, &ps);
  if (!rc)
    rc = add_warnings_and_major(ctx, &ps, decider);
  if (!rc)
    rc = remember_target(ctx, target);
  if (!rc && ps.failed)
    rc = CUDALOAD_E_NO_MEMORY;
  if (!rc) /* the doctor's fix runs the program through exec --for target */
    rc = cl_plan_state_add_program_target(ctx, target);
  program_scan_free(&ps);
  cl_program_target_free(&t);
  if (rc)
    return rc == CUDALOAD_E_NO_MEMORY
               ? cl_fail(rc, "cudaload_require_for: out of memory")
               : rc;
  cl_ctx_clear_plan(ctx);
  /* A new environment root means a new scan. */
  cl_inventory_invalidate(ctx);
  return CUDALOAD_OK;
}

int cl_program_files_in(cudaload_ctx *ctx, const char *root,
                        cl_program_set *set) {
  memset(set, 0, sizeof *set);
  cl_program_target t;
  memset(&t, 0, sizeof t);
  const char *roots[] = {root};
  cl_import_path_of_roots(roots, 1, 1, &t.path);
  cl_program_find_installed(&t.path, &t);
  cl_program_scan ps;
  program_scan_init(&ps, ctx);
  for (size_t i = 0; i < t.distribution_count; ++i)
    read_distribution(&ps, t.distributions[i].site, t.distributions[i].distinfo,
                      t.distributions[i].rank, &t.records);
  int rc = ps.failed || t.failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
  if (!rc) {
    set->files = ps.files.names;
    set->file_count = ps.files.count;
    set->plugins = ps.plugins.names;
    set->plugin_count = ps.plugins.count;
    ps.files.names = ps.plugins.names = NULL;
    ps.files.count = ps.plugins.count = 0;
  }
  program_scan_free(&ps);
  cl_program_target_free(&t);
  return rc;
}

const char *cl_requirement_origin_of(const cudaload_ctx *ctx,
                                     const char *text) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; ctx && i < ps->origin_count; ++i)
    if (strcmp(ps->origins[i].text, text) == 0)
      return ps->origins[i].origin;
  return NULL;
}

const char *cudaload_requirement_origin(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (!ctx || i >= ps->requirement_count)
    return NULL;
  return cl_requirement_origin_of(ctx, ps->requirements[i].text);
}

size_t cudaload_program_file_count(const cudaload_ctx *ctx) {
  return ctx ? cl_plan_state_of(ctx)->program_file_count : 0;
}

const char *cudaload_program_file(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->program_file_count ? ps->program_files[i] : NULL;
}
