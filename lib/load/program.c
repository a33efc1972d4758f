/* SPDX-License-Identifier: MIT */
/*
 * program.c - cudaload_require_for(): requirements from the program the
 * user has, not a spec they must guess (program.h).
 *
 * A target is one of:
 * - a binary (ELF or PE): its own needs;
 * - an interpreter, or a venv or site-packages folder: its environment
 *   becomes the active one (pyvenv.cfg names it: a venv's python run by
 *   path, not activated, still imports from it), and the programs are the
 *   distributions installed there that use CUDA libraries (known_programs);
 * - the name of an installed Python module or distribution ("torch",
 *   "onnxruntime"), looked up in the active environment's site-packages.
 * A distribution's files are those its RECORD lists; of its libraries,
 * each CUDA library name it needs (ELF NEEDED, PE import), each renamed
 * copy of a CUDA library it bundles (auditwheel: SONAME libcudnn.so.8) and
 * each name a known consumer opens at run time (ctranslate2:
 * libcublas.so.12) becomes a requirement of that family and major; its
 * METADATA's Requires-Dist pins of NVIDIA's wheels add the families it
 * pins and the least version of each (torch 2.5.1 pins
 * nvidia-nvjitlink-cu12==12.4.127, which no file of torch needs: cuSPARSE
 * does, and an older nvJitLink breaks it). Each requirement says where it
 * came from (cudaload_requirement_origin).
 */
#include "load/program.h"

#include "binary/binary.h"
#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/resolve.h"
#include "load/spec.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "scan/consumers.h"
#include "scan/distinfo.h"
#include "scan/machine.h"
#include "scan/roots.h"
#include "scan/inventory.h"
#include "load/plan_state.h"
#include "load/python_loads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distributions that load CUDA libraries, as PyPI names them: what an
 * interpreter's environment runs when the program is "that python". */
static const char *const known_programs[] = {
    "torch",
    "onnxruntime-gpu",
    "onnxruntime",
    "ctranslate2",
    "jax-cuda12-plugin",
    "jax-cuda12-pjrt",
    "jax-cuda13-plugin",
    "jax-cuda13-pjrt",
    "cupy-cuda12x",
    "cupy-cuda13x",
    "cupy-cuda11x",
    "tensorflow",
    "paddlepaddle-gpu",
};

/* The largest METADATA or RECORD read (torch's RECORD is about 2 MB). */
#define CL_PROGRAM_TEXT_MAX ((size_t)64 << 20)

/* One requirement derived, before it joins the context. */
typedef struct derived {
  char text[64]; /* "cudnn=9" */
  long at_least[CL_VERSION_PARTS];
  int at_least_parts;
  cl_buf origin; /* "needed by ...; Requires-Dist ..." */
} derived;

typedef struct program_scan {
  cudaload_ctx *ctx;
  cl_naming naming;
  derived *reqs;
  size_t count, capacity;
  char **files; /* program files kept */
  size_t file_count, file_capacity;
  char **plugins; /* of those, the ones no file of their distribution needs */
  size_t plugin_count, plugin_capacity;
  /* Every name the libraries of the distribution being read need. */
  cl_name_list dist_needed;
  char **sites; /* site-packages folders searched */
  size_t site_count, site_capacity;
  const char *distribution; /* "torch 2.5.1", while its files are read */
  const char *site;         /* the site-packages folder being read */
  const char *extras;       /* a meta-distribution's extras asked for */
  int depth;                /* meta-distributions followed */
  char **modules; /* the extension modules of the distribution being read */
  size_t module_count, module_capacity;
  char **search_folders; /* where the loader finds the program's needs */
  size_t search_count, search_capacity;
  int failed;
} program_scan;

/* --- text and names ------------------------------------------------------ */

/* PEP 503 normalized comparison of a distribution name with a dist-info
 * folder's name part ("onnxruntime_gpu" in onnxruntime_gpu-1.26.0...). */
static int same_name(const char *a, size_t a_len, const char *b, size_t b_len) {
  size_t i = 0, j = 0;
  while (i < a_len && j < b_len) {
    int sa = a[i] == '-' || a[i] == '_' || a[i] == '.';
    int sb = b[j] == '-' || b[j] == '_' || b[j] == '.';
    if (sa != sb)
      return 0;
    if (!sa && cl_ascii_lower(a[i]) != cl_ascii_lower(b[j]))
      return 0;
    ++i;
    ++j;
  }
  return i == a_len && j == b_len;
}

static int is_distinfo(const char *name, const void *arg) {
  (void)arg;
  return cl_ends_with(name, ".dist-info");
}

/* A whole small text file, malloc'ed; NULL when it cannot be read. */
static char *read_text(const char *path, size_t *len) {
  char *text = NULL;
  char *kept = cl_save_error(); /* unreadable: nothing to read */
  if (cl_read_file_head(path, CL_PROGRAM_TEXT_MAX, &text, len) != CUDALOAD_OK)
    text = NULL;
  cl_restore_error(kept);
  return text;
}

/* --- requirements -------------------------------------------------------- */

/* The main library of a family ("cublas" for cublasLt), NULL for none. */
static derived *derived_of(program_scan *ps, const char *text) {
  for (size_t i = 0; i < ps->count; ++i)
    if (strcmp(ps->reqs[i].text, text) == 0)
      return &ps->reqs[i];
  if (cl_reserve((void **)&ps->reqs, &ps->capacity, ps->count + 1,
                 sizeof *ps->reqs)) {
    ps->failed = 1;
    return NULL;
  }
  derived *d = &ps->reqs[ps->count++];
  memset(d, 0, sizeof *d);
  snprintf(d->text, sizeof d->text, "%s", text);
  d->origin = (cl_buf)CL_BUF_INIT;
  return d;
}

/* Require family's main library of `major`, saying why. */
static void require(program_scan *ps, const cl_catalog_entry *entry, int major,
                    const char *why) {
  if (strcmp(entry->family, "driver") == 0)
    return; /* the driver is the probe's concern, never planned */
  const cl_catalog_entry *main = cl_catalog_family_main(entry->family);
  if (!main || major < main->min_major || major > main->max_major)
    return;
  char text[64];
  snprintf(text, sizeof text, "%s=%d", main->name, major);
  derived *d = derived_of(ps, text);
  if (!d)
    return;
  if (!d->origin.data || !strstr(d->origin.data, why))
    cl_buf_printf(&d->origin, "%s%s", d->origin.len ? "; " : "", why);
}

/* The least version a pin names: "==9.1.0.70", "~=11.0", ">=12.4"; 0 parts
 * for any other form. */
static int pinned_least(const char *spec, size_t len,
                        long parts[CL_VERSION_PARTS]) {
  char text[64];
  if (len >= sizeof text)
    return 0;
  memcpy(text, spec, len);
  text[len] = '\0';
  const char *v = text;
  if (!strncmp(v, "===", 3))
    v += 3;
  else if (!strncmp(v, "==", 2) || !strncmp(v, "~=", 2) || !strncmp(v, ">=", 2))
    v += 2;
  else
    return 0;
  while (*v == ' ')
    ++v;
  if (strchr(v, ',')) /* a range: its first bound only */
    *strchr(text, ',') = '\0';
  return cl_version_parse(v, parts);
}

/* Whether an environment marker holds here. Read as a conjunction of
 * comparisons, the forms NVIDIA's dependents write: platform_system,
 * sys_platform, platform_machine and extra. An extra's pins count: they
 * say what the program needs to use CUDA at all. */
static int marker_holds(const program_scan *ps, const char *marker,
                        size_t len) {
  char text[512];
  snprintf(text, sizeof text, "%.*s", (int)(len < 511 ? len : 511), marker);
  int windows = ps->naming == CL_NAMING_WINDOWS;
  if ((strstr(text, "platform_system == \"Windows\"") ||
       strstr(text, "sys_platform == \"win32\"")) &&
      !windows)
    return 0;
  if ((strstr(text, "platform_system == \"Linux\"") ||
       strstr(text, "sys_platform == \"linux\"")) &&
      windows)
    return 0;
  const char *machine = cl_ctx_machine(ps->ctx);
  const char *m = strstr(text, "platform_machine == \"");
  if (m && machine) {
    m += 21;
    size_t n = strcspn(m, "\"");
    int x86 = !strncmp(machine, "x86_64", 6);
    int same = (x86 && ((n == 6 && !strncmp(m, "x86_64", 6)) ||
                        (n == 5 && !strncmp(m, "AMD64", 5)))) ||
               (!x86 && ((n == 7 && !strncmp(m, "aarch64", 7)) ||
                         (n == 5 && !strncmp(m, "ARM64", 5))));
    if (!same)
      return 0;
  }
  return 1;
}

/* A marker "extra == 'x'" asks for extra x of the distribution it is in:
 * whether the requirer asked for it (ps->extras, "cublas,cudart"; NULL: the
 * program's own extras, all of which count). */
static int extra_asked(const program_scan *ps, const char *marker, size_t len) {
  if (!ps->extras)
    return 1;
  char text[512];
  snprintf(text, sizeof text, "%.*s", (int)(len < 511 ? len : 511), marker);
  const char *at = strstr(text, "extra ==");
  if (!at)
    return 1;
  at += 8;
  while (*at == ' ' || *at == '"' || *at == '\'')
    ++at;
  size_t n = strcspn(at, "\"' ");
  for (const char *e = ps->extras; *e;) {
    size_t k = strcspn(e, ",");
    if (k == n && !strncmp(e, at, n))
      return 1;
    e += k;
    e += strspn(e, ", ");
  }
  return 0;
}

static int visit_pin(const cl_requirement_line *line, void *opaque);

/* A distribution the program requires that is no NVIDIA wheel but pins
 * them itself, for the extras asked (torch 2.15 requires
 * cuda-toolkit[cublas,cudart,...], whose METADATA maps each extra to
 * NVIDIA's wheels): its pins, read from its METADATA in the same site. */
static void follow_meta_distribution(program_scan *ps,
                                     const cl_requirement_line *line) {
  if (ps->depth > 2 || !ps->site || !line->extras_len)
    return;
  cl_name_list list = {0};
  cl_name_list_read(ps->site, is_distinfo, NULL, NULL, &list);
  for (size_t i = 0; i < list.count; ++i) {
    const char *entry = list.names[i];
    if (!same_name(entry, strcspn(entry, "-"), line->name, line->name_len))
      continue;
    char *extras = cl_strndup(line->extras, line->extras_len);
    char *folder = cl_path_join(ps->site, entry);
    char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
    size_t len = 0;
    char *text = metadata ? read_text(metadata, &len) : NULL;
    const char *saved = ps->extras;
    ps->extras = extras;
    ps->depth++;
    if (text && extras)
      cl_requires_dist_parse(text, len, visit_pin, ps);
    ps->depth--;
    ps->extras = saved;
    free(text);
    free(metadata);
    free(folder);
    free(extras);
  }
  cl_name_list_free(&list);
}

static int visit_pin(const cl_requirement_line *line, void *opaque) {
  program_scan *ps = opaque;
  const char *name = line->name, *spec = line->specifier;
  size_t name_len = line->name_len, spec_len = line->spec_len;
  if (!marker_holds(ps, line->marker, line->marker_len) ||
      !extra_asked(ps, line->marker, line->marker_len))
    return 0;
  const cl_catalog_wheel *w = cl_catalog_wheel_by_package(name, name_len);
  if (!w) {
    follow_meta_distribution(ps, line);
    return 0;
  }
  long least[CL_VERSION_PARTS];
  int parts = pinned_least(spec, spec_len, least);
  const cl_catalog_entry *main = cl_catalog_family_main(w->family);
  /* The pin's first number is the library's ABI major (cuDNN 9.1.0.70,
   * cuFFT 11.2.1.3); without a number, the wheel's CUDA major tells. */
  int major = parts ? (int)least[0] : 0;
  if (!main)
    return 0;
  if (!parts)
    for (int m = main->min_major; m <= main->max_major && !major; ++m)
      if (cl_catalog_cuda_major(main, m) == w->cuda_major)
        major = m;
  if (!major || major < main->min_major || major > main->max_major)
    return 0;
  char why[512];
  snprintf(why, sizeof why, "Requires-Dist: %.*s%s%.*s of %s", (int)name_len,
           name, spec_len ? " " : "", (int)spec_len, spec,
           ps->distribution ? ps->distribution : "the program");
  require(ps, main, major, why);
  char text[64];
  snprintf(text, sizeof text, "%s=%d", main->name, major);
  derived *d = derived_of(ps, text);
  if (d && parts &&
      (!d->at_least_parts ||
       cl_version_compare(least, parts, d->at_least, d->at_least_parts) > 0)) {
    memcpy(d->at_least, least, sizeof least);
    d->at_least_parts = parts;
  }
  return 0;
}

/* --- the program's files ------------------------------------------------- */

static void add_name(char ***names, size_t *count, size_t *capacity,
                     const char *name, int *failed) {
  for (size_t i = 0; i < *count; ++i)
    if (strcmp((*names)[i], name) == 0)
      return;
  char *copy = cl_strdup(name);
  if (!copy ||
      cl_reserve((void **)names, capacity, *count + 1, sizeof **names)) {
    free(copy);
    *failed = 1;
    return;
  }
  (*names)[(*count)++] = copy;
}

static void keep_file(program_scan *ps, const char *path) {
  add_name(&ps->files, &ps->file_count, &ps->file_capacity, path, &ps->failed);
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
 * by path when asked for one (onnxruntime's TensorRT provider), which a
 * program may run without. */
static void find_plugins(program_scan *ps, size_t first) {
  for (size_t i = first; i < ps->file_count; ++i) {
    const char *name = cl_path_basename(ps->files[i]);
    int needed = extension_module(ps->files[i]);
    for (size_t k = 0; k < ps->dist_needed.count && !needed; ++k)
      needed = ps->naming == CL_NAMING_WINDOWS
                   ? cl_ascii_equal_nocase(ps->dist_needed.names[k], name)
                   : strcmp(ps->dist_needed.names[k], name) == 0;
    if (!needed)
      add_name(&ps->plugins, &ps->plugin_count, &ps->plugin_capacity,
               ps->files[i], &ps->failed);
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

/* What one library file of the program needs: its CUDA NEEDED names
 * (imports), what it is when it is a renamed copy of a CUDA library, and
 * what it opens by name when it is a known consumer. A file that cannot be
 * read as a library is not one (a Python file named .so by mistake). */
static int read_program_file(program_scan *ps, const char *path) {
  cl_binary_info info;
  char *kept = cl_save_error(); /* not a library: nothing to require */
  int unread = cl_binary_parse_file(path, &info) != CUDALOAD_OK;
  cl_restore_error(kept);
  if (unread)
    return 0;
  cl_naming naming =
      info.format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX;
  int uses = 0;
  char why[4608];
  for (size_t d = 0; ps->distribution && d < info.needed_count; ++d)
    add_name(&ps->dist_needed.names, &ps->dist_needed.count,
             &ps->dist_needed.capacity, info.needed[d], &ps->failed);
  for (size_t d = 0; d < info.needed_count; ++d) {
    cl_name_match m;
    if (!cl_catalog_match(info.needed[d], naming, &m) ||
        strcmp(m.entry->family, "driver") == 0)
      continue;
    snprintf(why, sizeof why, "needed by %s (%s)", path,
             naming == CL_NAMING_WINDOWS ? "PE import" : "ELF NEEDED");
    require(ps, m.entry, m.major, why);
    uses = 1;
  }
  cl_name_match self;
  char original[256];
  if (info.soname && !cl_catalog_match(info.soname, naming, &self) &&
      cl_catalog_auditwheel_original(info.soname, original, sizeof original) &&
      cl_catalog_match(original, naming, &self) &&
      opens_its_family(self.entry)) {
    snprintf(why, sizeof why, "a copy of %s bundled as %s", info.soname, path);
    require(ps, self.entry, self.major, why);
    uses = 1;
  } else if (naming == CL_NAMING_WINDOWS &&
             cl_catalog_match(cl_path_basename(path), naming, &self) &&
             opens_its_family(self.entry) && cl_python_loaded_by_init(path)) {
    /* Its package's __init__ loads it (issue 45): its sub-libraries are
     * the program's need, imported or not. */
    snprintf(why, sizeof why, "%s, loaded by its package's __init__", path);
    require(ps, self.entry, self.major, why);
    uses = 1;
  }
  char *folder = cl_path_dirname(path);
  const char *package =
      folder ? cl_consumer_package_of(cl_path_basename(folder),
                                      cl_path_basename(path), naming)
             : NULL;
  if (package) {
    char version[32] = "";
    cl_consumer_version_of(path, package, version, sizeof version);
    const cl_known_consumer *c;
    for (size_t k = 0; (c = cl_consumer_need(package, version, k)); ++k) {
      const cl_catalog_entry *main = cl_catalog_family_main(c->family);
      int major = 0;
      for (int m = main ? main->min_major : 1; main && m <= main->max_major;
           ++m)
        if (cl_catalog_cuda_major(main, m) == c->cuda_major)
          major = m;
      if (!main || !major)
        continue;
      snprintf(why, sizeof why, "%s (%s %s): %s", path, package, version,
               c->evidence);
      require(ps, main, major, why);
      uses = 1;
    }
  }
  free(folder);
  if (uses)
    keep_file(ps, path);
  else if (ps->distribution && extension_module(path))
    add_name(&ps->modules, &ps->module_count, &ps->module_capacity, path,
             &ps->failed);
  cl_binary_info_free(&info);
  return 1;
}

/* The extension modules of the distribution just read that need one of its
 * kept files (from index `first`): the program imports them, and they
 * bring those files with their search lists (ctranslate2's _ext, whose
 * RPATH finds the bundled libctranslate2-*.so and its libgomp): kept too,
 * so that the files are judged as the import loads them. */
static void keep_importers(program_scan *ps, size_t first) {
  size_t kept = ps->file_count;
  for (size_t i = 0; i < ps->module_count; ++i) {
    const cl_binary_info *info = NULL;
    char *saved = cl_save_error(); /* unreadable: nothing to keep */
    if (cl_file_cache_info(cl_file_cache_of(ps->ctx), ps->modules[i], &info) !=
        CUDALOAD_OK)
      info = NULL;
    cl_restore_error(saved);
    int brings = 0;
    for (size_t d = 0; info && d < info->needed_count && !brings; ++d)
      for (size_t k = first; k < kept && !brings; ++k)
        brings = strcmp(info->needed[d], cl_path_basename(ps->files[k])) == 0;
    if (brings)
      keep_file(ps, ps->modules[i]);
  }
  for (size_t i = 0; i < ps->module_count; ++i)
    free(ps->modules[i]);
  ps->module_count = 0;
}

/* A program that is a CUDA library itself (a cuDNN 9 shim) needs a library
 * of its own family (libcudnn_ops.so.9) that lies beside it: its folder is
 * searched too, whatever the loader would take now, since the loader model
 * judges another folder's copy "a sibling shadowed" (verdict.c), and the
 * plan takes the one beside it. */
static void note_own_siblings(program_scan *ps, const char *path,
                              const char *need, const cl_name_match *wanted,
                              cl_naming naming) {
  cl_name_match self;
  if (!cl_catalog_match_renamed(cl_path_basename(path), naming, &self) ||
      strcmp(self.entry->family, wanted->entry->family) != 0)
    return;
  char *folder = cl_path_dirname(path);
  char *beside = folder ? cl_path_join(folder, need) : NULL;
  if (beside && cl_os_stat_kind(beside, NULL) == CL_KIND_REGULAR)
    add_name(&ps->search_folders, &ps->search_count, &ps->search_capacity,
             folder, &ps->failed);
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
static void note_search_folders(program_scan *ps, const char *path,
                                const cl_binary_info *info) {
  cl_loader_model m;
  char *kept = cl_save_error(); /* no model of this process: nothing noted */
  int no_model = cl_loader_model_init_host(&m) != CUDALOAD_OK;
  cl_restore_error(kept);
  if (no_model)
    return;
  if (m.naming ==
      (info->format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX)) {
    m.files = cl_file_cache_of(ps->ctx);
    cl_requester req = {path, info, NULL};
    for (size_t d = 0; d < info->needed_count && !ps->failed; ++d) {
      cl_name_match match;
      if (!cl_catalog_match(info->needed[d], m.naming, &match) ||
          strcmp(match.entry->family, "driver") == 0)
        continue;
      cl_resolution r;
      kept = cl_save_error();
      int rc = cl_resolve(&m, &req, info->needed[d], &r);
      cl_restore_error(kept);
      if (rc == CUDALOAD_E_NO_MEMORY)
        ps->failed = 1;
      if (rc)
        continue;
      char *folder = r.path ? cl_path_dirname(r.path) : NULL;
      if (folder)
        add_name(&ps->search_folders, &ps->search_count, &ps->search_capacity,
                 folder, &ps->failed);
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
  for (size_t i = 0; i + 3 <= len; ++i)
    if (!memcmp(path + i, ".so", 3) && (i + 3 == len || path[i + 3] == '.'))
      return 1;
  return 0;
}

typedef struct record_walk {
  program_scan *ps;
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
  read_program_file(w->ps, full);
  free(full);
  return 0;
}

/* One installed distribution: its METADATA pins and its RECORD's
 * libraries. */
static void read_distribution(program_scan *ps, const char *site,
                              const char *distinfo) {
  char *folder = cl_path_join(site, distinfo);
  char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
  char *record = folder ? cl_path_join(folder, "RECORD") : NULL;
  size_t len = 0;
  char *text = metadata ? read_text(metadata, &len) : NULL;
  char *name = NULL, *version = NULL;
  char label[256] = "";
  if (text && cl_metadata_parse(text, len, &name, &version) == CUDALOAD_OK)
    snprintf(label, sizeof label, "%s %s", name, version);
  ps->distribution = label[0] ? label : distinfo;
  ps->site = site;
  if (text)
    cl_requires_dist_parse(text, len, visit_pin, ps);
  free(text);
  text = record ? read_text(record, &len) : NULL;
  record_walk w = {ps, site};
  size_t first = ps->file_count;
  if (text)
    cl_record_parse(text, len, visit_record, &w);
  keep_importers(ps, first);
  find_plugins(ps, first);
  cl_name_list_free(&ps->dist_needed);
  ps->distribution = NULL;
  free(text);
  free(name);
  free(version);
  free(metadata);
  free(record);
  free(folder);
}

/* --- finding distributions ----------------------------------------------- */

/* Whether a RECORD lists files of module `module` ("onnxruntime/..."). */
typedef struct module_check {
  const char *module;
  size_t len;
  int found;
} module_check;

static int visit_module_file(const char *path, size_t len, void *opaque) {
  module_check *c = opaque;
  if (len > c->len && !memcmp(path, c->module, c->len) &&
      (path[c->len] == '/' || path[c->len] == '.')) {
    c->found = 1;
    return 1;
  }
  return 0;
}

static int provides_module(const char *site, const char *distinfo,
                           const char *module) {
  char *folder = cl_path_join(site, distinfo);
  char *record = folder ? cl_path_join(folder, "RECORD") : NULL;
  size_t len = 0;
  char *text = record ? read_text(record, &len) : NULL;
  module_check c = {module, strlen(module), 0};
  if (text)
    cl_record_parse(text, len, visit_module_file, &c);
  free(text);
  free(record);
  free(folder);
  return c.found;
}

/* Read the distributions of `site` that `target` names: by distribution
 * name, else the ones providing a module of that name (onnxruntime comes
 * from onnxruntime-gpu). Returns how many. */
static size_t read_named(program_scan *ps, const char *site, const char *target,
                         int by_module) {
  cl_name_list list = {0};
  cl_name_list_read(site, is_distinfo, NULL, NULL, &list);
  size_t found = 0, target_len = strlen(target);
  for (size_t i = 0; i < list.count; ++i) {
    const char *entry = list.names[i];
    size_t name_len = strcspn(entry, "-");
    int match = by_module ? provides_module(site, entry, target)
                          : same_name(entry, name_len, target, target_len);
    if (match) {
      read_distribution(ps, site, entry);
      ++found;
    }
  }
  cl_name_list_free(&list);
  return found;
}

/* --- sites --------------------------------------------------------------- */

static void add_site(program_scan *ps, const char *site) {
  for (size_t i = 0; i < ps->site_count; ++i)
    if (strcmp(ps->sites[i], site) == 0)
      return;
  char *copy = cl_strdup(site);
  if (!copy || cl_reserve((void **)&ps->sites, &ps->site_capacity,
                          ps->site_count + 1, sizeof *ps->sites)) {
    free(copy);
    ps->failed = 1;
    return;
  }
  ps->sites[ps->site_count++] = copy;
}

static int is_python_lib(const char *name, const void *arg) {
  (void)arg;
  return strncmp(name, "python3", 7) == 0;
}

static int has_distinfo(const char *folder) {
  cl_name_list list = {0};
  cl_name_list_read(folder, is_distinfo, NULL, NULL, &list);
  int yes = list.count > 0;
  cl_name_list_free(&list);
  return yes;
}

/* The site-packages folders of an environment root: the root itself when
 * it holds dist-info folders, else lib/python3.X/site-packages (a venv or
 * conda prefix on Linux) and Lib/site-packages (Windows). */
static void sites_of(const char *root, void *opaque) {
  program_scan *ps = opaque;
  if (has_distinfo(root)) {
    add_site(ps, root);
    return;
  }
  char *lib = cl_path_join(root, "lib");
  cl_name_list pythons = {0};
  if (lib)
    cl_name_list_read(lib, is_python_lib, NULL, NULL, &pythons);
  for (size_t i = 0; i < pythons.count; ++i) {
    char *python = cl_path_join(lib, pythons.names[i]);
    char *site = python ? cl_path_join(python, "site-packages") : NULL;
    if (site && cl_os_stat_kind(site, NULL) == CL_KIND_DIRECTORY)
      add_site(ps, site);
    free(site);
    free(python);
  }
  cl_name_list_free(&pythons);
  free(lib);
  char *win = cl_path_join(root, "Lib/site-packages");
  if (win && cl_os_stat_kind(win, NULL) == CL_KIND_DIRECTORY)
    add_site(ps, win);
  free(win);
}

static void visit_root(const char *path, const char *origin, void *opaque) {
  (void)origin;
  sites_of(path, opaque);
}

/* An interpreter's environment becomes the active one: its folders are the
 * context's environment roots (as --environment gives them). */
static void adopt_root(const char *path, const char *origin, void *opaque) {
  (void)origin;
  program_scan *ps = opaque;
  int known = 0;
  for (size_t i = 0; i < ps->ctx->environment_count && !known; ++i)
    known = strcmp(ps->ctx->environment_roots[i], path) == 0;
  if (!known && cudaload_add_environment_root(ps->ctx, path) != CUDALOAD_OK)
    ps->failed = 1;
  sites_of(path, ps);
}

/* Whether a METADATA pins one of NVIDIA's wheels (torch, onnxruntime-gpu's
 * extras, the jax CUDA plugins). */
static int visit_nvidia_pin(const cl_requirement_line *line, void *opaque) {
  (void)opaque;
  /* NVIDIA's wheels, or a meta-distribution of them (cuda-toolkit[...]). */
  return cl_catalog_wheel_by_package(line->name, line->name_len) != NULL ||
         (line->extras_len && line->name_len == 12 &&
          !strncmp(line->name, "cuda-toolkit", 12));
}

static int pins_nvidia(const char *site, const char *distinfo) {
  char *folder = cl_path_join(site, distinfo);
  char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
  size_t len = 0;
  char *text = metadata ? read_text(metadata, &len) : NULL;
  int yes = text && cl_requires_dist_parse(text, len, visit_nvidia_pin, NULL);
  free(text);
  free(metadata);
  free(folder);
  return yes;
}

static int is_known_program(const char *distinfo) {
  size_t len = strcspn(distinfo, "-");
  for (size_t k = 0; k < sizeof known_programs / sizeof *known_programs; ++k)
    if (same_name(distinfo, len, known_programs[k], strlen(known_programs[k])))
      return 1;
  return 0;
}

/* The environment's programs: each distribution there that uses CUDA
 * libraries: a known one, or one whose METADATA pins NVIDIA's wheels. */
static size_t read_known_programs(program_scan *ps) {
  size_t found = 0;
  for (size_t s = 0; s < ps->site_count; ++s) {
    cl_name_list list = {0};
    cl_name_list_read(ps->sites[s], is_distinfo, NULL, NULL, &list);
    for (size_t i = 0; i < list.count; ++i) {
      const char *entry = list.names[i];
      /* NVIDIA's own wheels are the libraries, not programs. */
      if (cl_catalog_wheel_by_package(entry, strcspn(entry, "-")))
        continue;
      if (is_known_program(entry) || pins_nvidia(ps->sites[s], entry)) {
        read_distribution(ps, ps->sites[s], entry);
        ++found;
      }
    }
    cl_name_list_free(&list);
  }
  return found;
}

/* --- the target ---------------------------------------------------------- */

/* Whether path is a venv's interpreter (its folder's parent holds
 * pyvenv.cfg) or named like a Python interpreter. */
static int is_interpreter(const char *path) {
  char *bin = cl_path_dirname(path);
  char *root = bin ? cl_path_dirname(bin) : NULL;
  char *cfg = root ? cl_path_join(root, "pyvenv.cfg") : NULL;
  int venv = cfg && cl_os_stat_kind(cfg, NULL) == CL_KIND_REGULAR;
  free(cfg);
  free(root);
  free(bin);
  const char *name = cl_path_basename(path);
  return venv || !strncmp(name, "python", 6) || !strncmp(name, "pypy", 4);
}

static size_t resolve_target(program_scan *ps, const char *target) {
  if (cl_os_path_is_absolute(target)) {
    cl_file_kind kind = cl_os_stat_kind(target, NULL);
    if (kind == CL_KIND_DIRECTORY) {
      adopt_root(target, NULL, ps);
      return read_known_programs(ps);
    }
    if (kind != CL_KIND_REGULAR)
      return 0;
    if (is_interpreter(target)) {
      /* Its environment is the one it runs in, CUDA programs or none: a
       * venv without them is no error, only nothing to require. */
      cl_interpreter_roots(target, adopt_root, ps);
      return 1 + read_known_programs(ps);
    }
    if (!read_program_file(ps, target))
      return 0;
    keep_file(ps, target); /* the program itself, needs or not */
    cl_binary_info info;
    char *kept = cl_save_error(); /* read above: unreadable now, nothing */
    if (cl_file_cache_parse(cl_file_cache_of(ps->ctx), target, &info) ==
        CUDALOAD_OK) {
      note_search_folders(ps, target, &info);
      cl_binary_info_free(&info);
    }
    cl_restore_error(kept);
    return 1;
  }
  /* A module or distribution of the active environment. */
  if (ps->ctx->environment_count)
    for (size_t i = 0; i < ps->ctx->environment_count; ++i)
      sites_of(ps->ctx->environment_roots[i], ps);
  else
    cl_environment_roots(visit_root, ps);
  size_t found = 0;
  for (size_t s = 0; s < ps->site_count; ++s)
    found += read_named(ps, ps->sites[s], target, 0);
  for (size_t s = 0; s < ps->site_count && !found; ++s)
    found += read_named(ps, ps->sites[s], target, 1);
  return found;
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

static void raise_least(cl_requirement *r, const derived *d) {
  if (d->at_least_parts &&
      (!r->at_least_parts ||
       cl_version_compare(d->at_least, d->at_least_parts, r->at_least,
                          r->at_least_parts) > 0)) {
    memcpy(r->at_least, d->at_least, sizeof r->at_least);
    r->at_least_parts = d->at_least_parts;
  }
}

static int add_derived(cudaload_ctx *ctx, const derived *d) {
  cl_requirement *parsed = NULL;
  size_t n = 0;
  int rc = cl_spec_parse(d->text, &parsed, &n);
  if (rc)
    return rc;
  /* Recorded under the requirement's normalised text ("nvjitlink=12"). */
  for (size_t i = 0; !rc && i < n; ++i)
    rc = set_origin(ctx, parsed[i].text, d->origin.data ? d->origin.data : "");
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

static int add_files(cudaload_ctx *ctx, program_scan *ps) {
  cl_plan_state *state = cl_plan_state_make(ctx);
  if (!state)
    return CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; i < ps->file_count; ++i) {
    if (cl_reserve((void **)&state->program_files,
                   &state->program_file_capacity, state->program_file_count + 1,
                   sizeof *state->program_files))
      return CUDALOAD_E_NO_MEMORY;
    state->program_files[state->program_file_count++] = ps->files[i];
    ps->files[i] = NULL;
  }
  for (size_t i = 0; i < ps->plugin_count; ++i) {
    if (cl_reserve(
            (void **)&state->program_plugins, &state->program_plugin_capacity,
            state->program_plugin_count + 1, sizeof *state->program_plugins))
      return CUDALOAD_E_NO_MEMORY;
    state->program_plugins[state->program_plugin_count++] = ps->plugins[i];
    ps->plugins[i] = NULL;
  }
  for (size_t i = 0; i < ps->search_count; ++i) {
    int known = 0;
    for (size_t k = 0; k < ctx->program_root_count && !known; ++k)
      known = strcmp(ctx->program_roots[k], ps->search_folders[i]) == 0;
    if (known)
      continue;
    if (cl_reserve((void **)&ctx->program_roots, &ctx->program_root_capacity,
                   ctx->program_root_count + 1, sizeof *ctx->program_roots))
      return CUDALOAD_E_NO_MEMORY;
    ctx->program_roots[ctx->program_root_count++] = ps->search_folders[i];
    ps->search_folders[i] = NULL;
  }
  return CUDALOAD_OK;
}

cl_program_set cl_program_set_of(const cudaload_ctx *ctx) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_program_set set = {ps->program_files, ps->program_file_count,
                        ps->program_plugins, ps->program_plugin_count};
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
static void program_scan_free(program_scan *ps) {
  for (size_t i = 0; i < ps->count; ++i)
    cl_buf_free(&ps->reqs[i].origin);
  free(ps->reqs);
  for (size_t i = 0; i < ps->file_count; ++i)
    free(ps->files[i]);
  free(ps->files);
  for (size_t i = 0; i < ps->plugin_count; ++i)
    free(ps->plugins[i]);
  free(ps->plugins);
  cl_name_list_free(&ps->dist_needed);
  for (size_t i = 0; i < ps->module_count; ++i)
    free(ps->modules[i]);
  free(ps->modules);
  for (size_t i = 0; i < ps->search_count; ++i)
    free(ps->search_folders[i]);
  free(ps->search_folders);
  for (size_t i = 0; i < ps->site_count; ++i)
    free(ps->sites[i]);
  free(ps->sites);
}

/* Where it was looked for, for the error of a target not found. */
static void say_sites(cl_buf *b, const program_scan *ps) {
  if (!ps->site_count) {
    cl_buf_printf(b, "no environment is active (no VIRTUAL_ENV, no "
                     "CONDA_PREFIX, no python3 on PATH): activate it, or "
                     "pass --environment DIR, or give the interpreter's "
                     "path");
    return;
  }
  cl_buf_printf(b, "looked in");
  for (size_t i = 0; i < ps->site_count; ++i)
    cl_buf_printf(b, "%s %s", i ? "," : "", ps->sites[i]);
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

int cudaload_require_for(cudaload_ctx *ctx, const char *target) {
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
  program_scan ps;
  memset(&ps, 0, sizeof ps);
  ps.ctx = ctx;
  ps.naming = cl_ctx_naming(ctx);
  size_t found = resolve_target(&ps, target);
  int rc = ps.failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
  if (!rc && !found) {
    cl_buf why = CL_BUF_INIT;
    say_sites(&why, &ps);
    char *where = cl_buf_take(&why);
    rc = cl_fail(CUDALOAD_E_NOT_FOUND,
                 "cudaload_require_for: \"%s\" is no program file, "
                 "interpreter or environment folder, nor a Python module or "
                 "distribution installed in the active environment (%s)",
                 target, where ? where : "");
    free(where);
    program_scan_free(&ps);
    return rc;
  }
  for (size_t i = 0; !rc && i < ps.count; ++i)
    rc = add_derived(ctx, &ps.reqs[i]);
  if (!rc)
    rc = add_files(ctx, &ps);
  if (!rc)
    rc = remember_target(ctx, target);
  program_scan_free(&ps);
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
  program_scan ps;
  memset(&ps, 0, sizeof ps);
  memset(set, 0, sizeof *set);
  ps.ctx = ctx;
  ps.naming = cl_ctx_naming(ctx);
  sites_of(root, &ps);
  read_known_programs(&ps);
  int rc = ps.failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
  if (!rc) {
    set->files = ps.files;
    set->file_count = ps.file_count;
    set->plugins = ps.plugins;
    set->plugin_count = ps.plugin_count;
    ps.files = ps.plugins = NULL;
    ps.file_count = ps.plugin_count = 0;
  }
  program_scan_free(&ps);
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
