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
 */
#include "load/program.h"

#include "binary/binary.h"
#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "load/plan_state.h"
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest METADATA or RECORD read (torch's RECORD is about 2 MB). */
#define CL_PROGRAM_TEXT_MAX ((size_t)64 << 20)
/* The reasons one requirement's origin lists; more are counted. A
 * distribution of 40,000 modules that each need cudart would otherwise
 * make one origin of megabytes, searched at every addition. */
#define REASONS_SHOWN 4
/* The folders of a module without a distribution that are walked. */
#define MODULE_DEPTH_MAX 16

/* Where a program's CUDA major was read, the strongest first. */
enum { CUDA_FROM_NEEDS = 1, CUDA_FROM_PINS, CUDA_FROM_NAME, CUDA_FROM_ROW };

/* One requirement derived, before it joins the context. */
typedef struct derived {
  char key[72];  /* "cudnn=9", "cudnn=9?" for one needed only if used */
  char text[64]; /* "cudnn=9" */
  const cl_catalog_entry *main;
  int major;
  long at_least[CL_VERSION_PARTS];
  int at_least_parts;
  cl_buf origin; /* "needed by ...; Requires-Dist ..." */
  size_t reasons;
  int optional;
  char *opener;   /* optional: the first file that would load it */
  size_t program; /* the distribution it came from */
} derived;

/* One program read: a binary, or a distribution. */
typedef struct program_info {
  char label[256]; /* "torch 2.5.1+cu124" */
  int rank;        /* among an environment's programs (program_find.h) */
  int cuda_major, cuda_from;
  char cuda_reason[512];
} program_info;

/* A family a module loads by name at its first use (consumers.c,
 * CL_MODULE_LOADS), of its program's CUDA major, known at the end. */
typedef struct deferred_load {
  size_t program;
  const char *family;
  char *why;
} deferred_load;

/* A list of strings, each once, found in constant time. */
typedef struct name_set {
  char **names;
  size_t count, capacity;
  cl_str_index index;
} name_set;

typedef struct program_scan {
  cudaload_ctx *ctx;
  cl_naming naming;
  cl_marker_env markers;
  derived *reqs;
  size_t count, capacity;
  cl_str_index req_index; /* by key */
  name_set files;         /* program files kept */
  name_set plugins;       /* of those, the ones no file of theirs needs */
  name_set needed;        /* the names the current distribution needs */
  name_set modules;       /* its extension modules not kept (yet) */
  name_set search_folders;
  /* What the program's packages load by path themselves (consumers.h,
   * cl_package_preload): on their own, in their order; and when the
   * program calls a function, each file with that call (parallel). */
  name_set preloads;
  name_set call_files;
  const char **call_names;
  size_t call_capacity;
  program_info *programs;
  size_t program_count, program_capacity;
  size_t program;      /* the one being read */
  const char *site;    /* the site folder being read */
  const char *extras;  /* a meta-distribution's extras asked for */
  const char *via;     /* that meta-distribution: "cuda-toolkit 12.4.1" */
  int depth;           /* meta-distributions followed */
  const char *feature; /* the file being read is loaded only for this */
  /* The distribution whose METADATA is being read (its pins). */
  const char *dist_name, *dist_version;
  deferred_load *loads;
  size_t load_count, load_capacity;
  cl_plan_warning *warnings;
  size_t warning_count, warning_capacity;
  int failed;
} program_scan;

/* --- small things -------------------------------------------------------- */

static void set_init(name_set *s, int fold_case) {
  memset(s, 0, sizeof *s);
  cl_str_index_init(&s->index, fold_case);
}

/* Add a copy of name once: 1 when added, 0 when there (or out of memory,
 * with *failed set). */
static int set_add(name_set *s, const char *name, int *failed) {
  if (cl_str_index_find(&s->index, name, NULL))
    return 0;
  char *copy = cl_strdup(name);
  if (!copy ||
      cl_reserve((void **)&s->names, &s->capacity, s->count + 1,
                 sizeof *s->names) ||
      cl_str_index_add(&s->index, copy, s->count)) {
    free(copy);
    *failed = 1;
    return 0;
  }
  s->names[s->count++] = copy;
  return 1;
}

static int set_has(const name_set *s, const char *name) {
  return cl_str_index_find(&s->index, name, NULL);
}

/* Empty the set, keeping it usable. */
static void set_clear(name_set *s) {
  for (size_t i = 0; i < s->count; ++i)
    free(s->names[i]);
  s->count = 0;
  int fold = s->index.fold_case;
  cl_str_index_free(&s->index);
  cl_str_index_init(&s->index, fold);
}

static void set_free(name_set *s) {
  set_clear(s);
  free(s->names);
  cl_str_index_free(&s->index);
  memset(s, 0, sizeof *s);
}

/* PEP 503 normalized comparison of a distribution name with a dist-info
 * folder's name part ("onnxruntime_gpu" in onnxruntime_gpu-1.26.0...). */
static int same_name(const char *a, size_t a_len, const char *b, size_t b_len) {
  size_t i = 0, j = 0;
  while (i < a_len && j < b_len) {
    int sa = a[i] == '-' || a[i] == '_' || a[i] == '.';
    int sb = b[j] == '-' || b[j] == '_' || b[j] == '.';
    if (sa != sb || (!sa && cl_ascii_lower(a[i]) != cl_ascii_lower(b[j])))
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

/* A problem of the program's own, a record (taken over: left empty) about
 * file. */
static void add_warning(program_scan *ps, cl_problem *problem,
                        const char *file) {
  cl_plan_warning w;
  if (cl_reserve((void **)&ps->warnings, &ps->warning_capacity,
                 ps->warning_count + 1, sizeof *ps->warnings)) {
    cl_problem_free(problem);
    ps->failed = 1;
    return;
  }
  if (cl_plan_warning_make(&w, problem, file,
                           ps->naming == CL_NAMING_WINDOWS
                               ? CL_SHELL_CMD_AND_POWERSHELL
                               : CL_SHELL_POSIX)) {
    ps->failed = 1;
    return;
  }
  ps->warnings[ps->warning_count++] = w;
}

/* A fact the program's files tell. */
static void program_fact(cl_problem *p, int which, const char *value) {
  cl_problem_fact(NULL, p, which, CUDALOAD_FROM_PROGRAM, value);
}

/* --- requirements -------------------------------------------------------- */

/* The main library of a family ("cublas" for cublasLt), NULL for none. */
/* The ABI major of main built for CUDA major cuda, 0 when none says. */
static int abi_major_for_cuda(const cl_catalog_entry *main, int cuda) {
  for (int m = main->min_major; m <= main->max_major; ++m)
    if (cl_catalog_cuda_major(main, m) == cuda)
      return m;
  return 0;
}

static program_info *current(program_scan *ps) {
  return ps->program < ps->program_count ? &ps->programs[ps->program] : NULL;
}

/* The current program's CUDA major, from the strongest source seen. */
static void note_cuda(program_scan *ps, int cuda, int from, const char *why) {
  program_info *p = current(ps);
  if (!p || cuda <= 0 || ps->feature || (p->cuda_from && p->cuda_from <= from))
    return;
  p->cuda_major = cuda;
  p->cuda_from = from;
  snprintf(p->cuda_reason, sizeof p->cuda_reason, "%.511s", why);
}

static derived *derived_of(program_scan *ps, const cl_catalog_entry *main,
                           int major, int optional) {
  char key[72];
  snprintf(key, sizeof key, "%s=%d%s", main->name, major, optional ? "?" : "");
  size_t at;
  if (cl_str_index_find(&ps->req_index, key, &at))
    return &ps->reqs[at];
  /* The index holds keys inside the array, which may move: it is rebuilt
   * when the array grows. */
  size_t before = ps->capacity;
  if (cl_reserve((void **)&ps->reqs, &ps->capacity, ps->count + 1,
                 sizeof *ps->reqs)) {
    ps->failed = 1;
    return NULL;
  }
  derived *d = &ps->reqs[ps->count];
  memset(d, 0, sizeof *d);
  snprintf(d->key, sizeof d->key, "%s", key);
  snprintf(d->text, sizeof d->text, "%s=%d", main->name, major);
  d->main = main;
  d->major = major;
  d->optional = optional;
  d->program = ps->program;
  d->origin = (cl_buf)CL_BUF_INIT;
  ps->count++;
  if (ps->capacity != before) {
    cl_str_index_free(&ps->req_index);
    cl_str_index_init(&ps->req_index, 0);
    for (size_t i = 0; i < ps->count && !ps->failed; ++i)
      if (cl_str_index_add(&ps->req_index, ps->reqs[i].key, i))
        ps->failed = 1;
  } else if (cl_str_index_add(&ps->req_index, d->key, ps->count - 1)) {
    ps->failed = 1;
  }
  return d;
}

static void add_reason(derived *d, const char *why) {
  if (d->origin.data && strstr(d->origin.data, why))
    return;
  if (d->reasons < REASONS_SHOWN)
    cl_buf_printf(&d->origin, "%s%s", d->origin.len ? "; " : "", why);
  d->reasons++;
}

/* Require family's main library of `major`, saying why: a hard need, or
 * one "if used" while a file of a feature is read (ps->feature). */
static derived *require(program_scan *ps, const cl_catalog_entry *entry,
                        int major, const char *why, const char *opener) {
  if (cl_catalog_is_driver(entry))
    return NULL; /* the driver is the probe's concern, never planned */
  const cl_catalog_entry *main = cl_catalog_family_main(entry->family);
  if (!main || major < main->min_major || major > main->max_major)
    return NULL;
  derived *d = derived_of(ps, main, major, ps->feature != NULL);
  if (!d)
    return NULL;
  if (ps->feature) {
    char text[4608];
    snprintf(text, sizeof text, "%s, only if %s is used", why, ps->feature);
    add_reason(d, text);
  } else {
    add_reason(d, why);
  }
  if (opener && !d->opener && !(d->opener = cl_strdup(opener)))
    ps->failed = 1;
  return d;
}

static void raise_derived_least(derived *d, const long *least, int parts) {
  if (parts &&
      (!d->at_least_parts ||
       cl_version_compare(least, parts, d->at_least, d->at_least_parts) > 0)) {
    memcpy(d->at_least, least, sizeof d->at_least);
    d->at_least_parts = parts;
  }
}

/* --- pins ---------------------------------------------------------------- */

/* A pin that could not be read: said, with what to require instead, so
 * that what it pins is not taken silently for nothing. */
static void pin_not_read(program_scan *ps, const cl_requirement_line *line,
                         const cl_catalog_wheel *w, const char *reason) {
  program_info *p = current(ps);
  char pinned[256];
  snprintf(pinned, sizeof pinned, "%.*s", (int)line->name_len, line->name);
  const cl_catalog_entry *main = cl_catalog_family_main(w->family);
  int major = main ? abi_major_for_cuda(main, w->cuda_major) : 0;
  cl_fix steps = CL_FIX_INIT;
  if (main && major)
    cl_fix_add_note(&steps,
                    "if the program needs %s, add --require %s=%d beside "
                    "--for",
                    pinned, main->name, major);
  else
    cl_fix_add_note(&steps,
                    "if the program needs %s, require its library with "
                    "--require beside --for",
                    pinned);
  cl_problem problem;
  cl_problem_init(&problem, CUDALOAD_PROBLEM_PIN_UNREAD);
  program_fact(&problem, CUDALOAD_FACT_NAME, pinned);
  cl_problem_factf(NULL, &problem, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_PROGRAM,
                   "%.*s%s%.*s%s%.*s", (int)line->name_len, line->name,
                   line->spec_len ? " " : "", (int)line->spec_len,
                   line->specifier, line->marker_len ? "; " : "",
                   (int)line->marker_len, line->marker);
  program_fact(&problem, CUDALOAD_FACT_CONSUMER, p ? p->label : NULL);
  program_fact(&problem, CUDALOAD_FACT_REASON, reason);
  cl_problem_take_fix(NULL, &problem, &steps);
  add_warning(ps, &problem, pinned);
}

/* The version of distribution `name` installed in the site being read,
 * from its dist-info folder's name; 0 when none is. */
static int installed_version(program_scan *ps, const char *name, size_t len,
                             cl_pep440_version *out) {
  if (!ps->site)
    return 0;
  cl_name_list list = {0};
  char *kept = cl_save_error();
  cl_name_list_read(ps->site, is_distinfo, NULL, NULL, &list);
  cl_restore_error(kept);
  int found = 0;
  for (size_t i = 0; i < list.count && !found; ++i) {
    const char *entry = list.names[i];
    size_t n = strcspn(entry, "-");
    if (!same_name(entry, n, name, len) || !entry[n])
      continue;
    const char *v = entry + n + 1;
    found = cl_pep440_parse(v, strlen(v) - strlen(".dist-info"), out);
  }
  cl_name_list_free(&list);
  return found;
}

/* The library major a pin of wheel w means: of the majors its specifier
 * set admits and the wheel ships, the installed wheel's, else the newest
 * (what pip installs). -1 when it admits none (0 is a major: cuSPARSELt's
 * libcusparseLt.so.0). */
static int pinned_major(program_scan *ps, const cl_requirement_line *line,
                        const cl_catalog_wheel *w, const cl_catalog_entry *main,
                        const cl_pep440_specifier *spec) {
  int newest = -1, admitted = 0;
  for (int m = main->min_major; m <= main->max_major; ++m) {
    int cuda = cl_catalog_cuda_major(main, m);
    if ((w->min_abi && (m < w->min_abi || m > w->max_abi)) ||
        (cuda && cuda != w->cuda_major) || !cl_pep440_admits_major(spec, m))
      continue;
    newest = m;
    ++admitted;
  }
  cl_pep440_version v;
  if (admitted > 1 && installed_version(ps, line->name, line->name_len, &v) &&
      v.release_count && v.release[0] >= main->min_major &&
      v.release[0] <= main->max_major &&
      cl_pep440_admits_major(spec, v.release[0]) &&
      (!w->min_abi ||
       (v.release[0] >= w->min_abi && v.release[0] <= w->max_abi)))
    return (int)v.release[0];
  return newest;
}

static int visit_pin(const cl_requirement_line *line, void *opaque);

/* A distribution the program requires that is no NVIDIA wheel but pins
 * them itself, for the extras asked (CuPy and torch require
 * cuda-toolkit[cublas,cudart,...], whose METADATA maps each extra to
 * NVIDIA's wheels): its pins, read from its METADATA in the same site. A
 * cuda-toolkit pin says the program's CUDA major too (==12.*). */
static void note_preloads(program_scan *ps, const char *name,
                          const char *version);

static void follow_meta_distribution(program_scan *ps,
                                     const cl_requirement_line *line,
                                     const cl_pep440_specifier *spec) {
  if (line->name_len == 12 && !strncmp(line->name, "cuda-toolkit", 12)) {
    int only = 0, count = 0;
    for (int m = 11; m <= 13; ++m)
      if (cl_pep440_admits_major(spec, m))
        only = m, ++count;
    char why[512];
    snprintf(why, sizeof why, "Requires-Dist: %.*s%.*s of %s",
             (int)line->name_len, line->name, (int)line->spec_len,
             line->specifier, current(ps) ? current(ps)->label : "");
    if (count == 1)
      note_cuda(ps, only, CUDA_FROM_PINS, why);
  }
  if (ps->depth > 2 || !ps->site || !line->extras_len)
    return;
  cl_name_list list = {0};
  char *kept = cl_save_error();
  cl_name_list_read(ps->site, is_distinfo, NULL, NULL, &list);
  cl_restore_error(kept);
  for (size_t i = 0; i < list.count; ++i) {
    const char *entry = list.names[i];
    if (!same_name(entry, strcspn(entry, "-"), line->name, line->name_len))
      continue;
    char *extras = cl_strndup(line->extras, line->extras_len);
    char *folder = cl_path_join(ps->site, entry);
    char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
    size_t len = 0;
    char *text = metadata ? read_text(metadata, &len) : NULL;
    char *name = NULL, *version = NULL;
    char via[256] = "";
    if (text && cl_metadata_parse(text, len, &name, &version) == CUDALOAD_OK)
      snprintf(via, sizeof via, "%s %s", name, version);
    const char *saved = ps->extras, *saved_via = ps->via;
    ps->extras = extras;
    ps->via = via[0] ? via : NULL;
    ps->depth++;
    if (text && extras)
      cl_requires_dist_parse(text, len, visit_pin, ps);
    if (name)
      note_preloads(ps, name, version);
    ps->depth--;
    ps->extras = saved;
    ps->via = saved_via;
    free(name);
    free(version);
    free(text);
    free(metadata);
    free(folder);
    free(extras);
  }
  cl_name_list_free(&list);
}

static int visit_pin(const cl_requirement_line *line, void *opaque) {
  program_scan *ps = opaque;
  const cl_catalog_wheel *w =
      cl_catalog_wheel_by_package(line->name, line->name_len);
  /* Pins of other distributions are not ours to read, but for those that
   * pin NVIDIA's wheels themselves under extras (cuda-toolkit[...]). */
  if (!w && !line->extras_len &&
      !(line->name_len == 12 && !strncmp(line->name, "cuda-toolkit", 12)))
    return 0;
  cl_marker_value holds = cl_marker_evaluate(line->marker, line->marker_len,
                                             &ps->markers, ps->extras);
  if (holds == CL_MARKER_FALSE)
    return 0;
  if (holds != CL_MARKER_TRUE) {
    if (w)
      pin_not_read(ps, line, w,
                   holds == CL_MARKER_MALFORMED
                       ? "its environment marker is no PEP 508 marker"
                       : "its environment marker reads what no file here "
                         "tells (the interpreter's version)");
    return 0;
  }
  cl_pep440_specifier spec;
  if (!cl_pep440_specifier_parse(line->specifier, line->spec_len, &spec)) {
    if (w)
      pin_not_read(ps, line, w, "its version specifier is no PEP 440 one");
    return 0;
  }
  if (!w) {
    follow_meta_distribution(ps, line, &spec);
    return 0;
  }
  const cl_catalog_entry *main = cl_catalog_family_main(w->family);
  /* A wheel whose library is versioned apart from its ABI major (nvcc's
   * NVVM goes with the toolkit, 12.9.86 being libnvvm.so.4; cuFile 1.14 is
   * libcufile.so.0) is pinned for more than the library (nvcc's ptxas and
   * libdevice): the pin says no major to plan by, the files that need the
   * library do. */
  if (!main || main->version_apart_from_abi)
    return 0;
  int major = pinned_major(ps, line, w, main, &spec);
  if (major < 0) {
    if (main)
      pin_not_read(ps, line, w,
                   "it admits no release of the library that "
                   "cudaload knows");
    return 0;
  }
  char why[768];
  const char *of = current(ps) ? current(ps)->label : "the program";
  snprintf(why, sizeof why, "Requires-Dist: %.*s%s%.*s of %s%s%s%s",
           (int)line->name_len, line->name, line->spec_len ? " " : "",
           (int)line->spec_len, line->specifier, ps->via ? ps->via : of,
           ps->via ? " (which " : "", ps->via ? of : "",
           ps->via ? " requires)" : "");
  /* A pin the package's build for this platform never loads
   * (consumers.c: onnxruntime-gpu 1.26's cuRAND and NVRTC on Windows) is
   * a need only if used, and says nothing of the CUDA major. */
  const char *saved_feature = ps->feature;
  const char *unloaded =
      ps->via
          ? NULL
          : cl_consumer_pin_unloaded(ps->dist_name, ps->dist_version,
                                     ps->naming, line->name, line->name_len);
  if (unloaded)
    ps->feature = unloaded;
  derived *d = require(ps, main, major, why, NULL);
  note_cuda(ps, w->cuda_major, CUDA_FROM_PINS, why);
  ps->feature = saved_feature;
  cl_pep440_version least;
  if (d && cl_pep440_least_in_major(&spec, major, &least)) {
    long parts[CL_VERSION_PARTS] = {0};
    int n = least.release_count < CL_VERSION_PARTS ? least.release_count
                                                   : CL_VERSION_PARTS;
    for (int i = 0; i < n; ++i)
      parts[i] = least.release[i];
    raise_derived_least(d, parts, n);
  }
  return 0;
}

/* --- what the program loads itself --------------------------------------- */

/* The rows of distribution `name` at `version` (consumers.c): each file a
 * row names that the site folder holds, in the row's order. */
static void note_preloads(program_scan *ps, const char *name,
                          const char *version) {
  const cl_package_preload *row;
  for (size_t k = 0; ps->site && (row = cl_consumer_preload(name, version, k));
       ++k) {
    for (const char *p = row->files; *p;) {
      size_t len = strcspn(p, " ");
      char *relative = cl_strndup(p, len);
      char *full = relative ? cl_path_join(ps->site, relative) : NULL;
      p += len;
      p += strspn(p, " ");
      if (!full) {
        ps->failed = 1;
      } else if (cl_os_stat_kind(full, NULL) == CL_KIND_REGULAR) {
        if (!row->call) {
          set_add(&ps->preloads, full, &ps->failed);
        } else if (!set_has(&ps->call_files, full)) {
          if (cl_reserve((void **)&ps->call_names, &ps->call_capacity,
                         ps->call_files.count + 1, sizeof *ps->call_names))
            ps->failed = 1;
          else if (set_add(&ps->call_files, full, &ps->failed))
            ps->call_names[ps->call_files.count - 1] = row->call;
        }
      }
      free(full);
      free(relative);
    }
  }
}

/* --- the program's files ------------------------------------------------- */

static void keep_file(program_scan *ps, const char *path) {
  set_add(&ps->files, path, &ps->failed);
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
static void find_plugins(program_scan *ps, size_t first) {
  for (size_t i = first; i < ps->files.count; ++i) {
    const char *path = ps->files.names[i];
    if (!extension_module(path) &&
        !set_has(&ps->needed, cl_path_basename(path)))
      set_add(&ps->plugins, path, &ps->failed);
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
static int consumer_needs(program_scan *ps, const char *path,
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
    int major = !main              ? 0
                : c->library_major ? c->library_major
                                   : abi_major_for_cuda(main, c->cuda_major);
    if (!major)
      continue;
    snprintf(why, sizeof why, "%s (%s %s): %s", path, package, version,
             c->evidence);
    /* A row of a feature (ctranslate2's NCCL) is a need "if used", and
     * says nothing of the program's CUDA major. */
    const char *saved_feature = ps->feature;
    if (c->feature)
      ps->feature = c->feature;
    require(ps, main, major, why, path);
    note_cuda(ps, c->cuda_major, CUDA_FROM_ROW, why);
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
static int read_program_file(program_scan *ps, const char *path,
                             const char *relpath, size_t rel_len) {
  const cl_module_behaviour *row =
      relpath ? cl_consumer_module(relpath, rel_len) : NULL;
  const cl_binary_info *info = NULL;
  char *kept = cl_save_error(); /* not a library: nothing to require */
  int unread =
      cl_file_cache_info(cl_file_cache_of(ps->ctx), path, &info) != CUDALOAD_OK;
  cl_restore_error(kept);
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
    set_add(&ps->needed, info->needed[d], &ps->failed);
  for (size_t d = 0; d < info->needed_count; ++d) {
    cl_name_match m;
    if (!cl_catalog_match(info->needed[d], naming, &m) ||
        cl_catalog_is_driver(m.entry))
      continue;
    int first = row && row->kind == CL_MODULE_PRELOADED &&
                !strcmp(row->family, m.entry->family);
    snprintf(why, sizeof why, "needed by %s (%s)%s%s", path,
             naming == CL_NAMING_WINDOWS ? "PE import" : "ELF NEEDED",
             first ? "; the package loads it first: " : "",
             first ? row->evidence : "");
    require(ps, m.entry, m.major, why, path);
    if (m.cuda_major) {
      snprintf(why, sizeof why, "%s needed by %s", info->needed[d], path);
      note_cuda(ps, m.cuda_major, CUDA_FROM_NEEDS, why);
    }
    uses = 1;
  }
  cl_name_match self;
  char original[256];
  if (info->soname && !cl_catalog_match(info->soname, naming, &self) &&
      cl_catalog_auditwheel_original(info->soname, original, sizeof original) &&
      cl_catalog_match(original, naming, &self) &&
      opens_its_family(self.entry)) {
    snprintf(why, sizeof why, "a copy of %s bundled as %s", info->soname, path);
    require(ps, self.entry, self.major, why, path);
    uses = 1;
  } else if (naming == CL_NAMING_WINDOWS &&
             cl_catalog_match(cl_path_basename(path), naming, &self) &&
             opens_its_family(self.entry) && cl_python_loaded_by_init(path)) {
    /* Its package's __init__ loads it (issue 45): its sub-libraries are
     * the program's need, imported or not. */
    snprintf(why, sizeof why, "%s, loaded by its package's __init__", path);
    require(ps, self.entry, self.major, why, path);
    uses = 1;
  }
  uses |= consumer_needs(ps, path, naming);
  if (row && row->kind == CL_MODULE_LOADS) {
    if (cl_reserve((void **)&ps->loads, &ps->load_capacity, ps->load_count + 1,
                   sizeof *ps->loads)) {
      ps->failed = 1;
    } else {
      deferred_load l = {ps->program, row->family,
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
    set_add(&ps->modules, path, &ps->failed);
  ps->feature = saved_feature;
  return 1;
}

/* The extension modules of the distribution just read that need one of its
 * kept files (from index `first`): the program imports them, and they
 * bring those files with their search lists (ctranslate2's _ext, whose
 * RPATH finds the bundled libctranslate2-*.so and its libgomp): kept too,
 * so that the files are judged as the import loads them. */
static void keep_importers(program_scan *ps, size_t first) {
  size_t kept = ps->files.count;
  cl_str_index names;
  cl_str_index_init(&names, ps->naming == CL_NAMING_WINDOWS);
  for (size_t k = first; k < kept && !ps->failed; ++k)
    if (cl_str_index_add(&names, cl_path_basename(ps->files.names[k]), k))
      ps->failed = 1;
  for (size_t i = 0; i < ps->modules.count && kept > first; ++i) {
    const cl_binary_info *info = NULL;
    char *saved = cl_save_error(); /* unreadable: nothing to keep */
    if (cl_file_cache_info(cl_file_cache_of(ps->ctx), ps->modules.names[i],
                           &info) != CUDALOAD_OK)
      info = NULL;
    cl_restore_error(saved);
    int brings = 0;
    for (size_t d = 0; info && d < info->needed_count && !brings; ++d)
      brings = cl_str_index_find(&names, info->needed[d], NULL);
    if (brings)
      keep_file(ps, ps->modules.names[i]);
  }
  cl_str_index_free(&names);
  set_clear(&ps->modules);
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
    set_add(&ps->search_folders, folder, &ps->failed);
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
          cl_catalog_is_driver(match.entry))
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
        set_add(&ps->search_folders, folder, &ps->failed);
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
  read_program_file(w->ps, full, relative, len);
  free(full);
  return 0;
}

/* A new program (a binary, a distribution) being read. */
static void begin_program(program_scan *ps, const char *label, int rank) {
  if (cl_reserve((void **)&ps->programs, &ps->program_capacity,
                 ps->program_count + 1, sizeof *ps->programs)) {
    ps->failed = 1;
    ps->program = SIZE_MAX;
    return;
  }
  program_info *p = &ps->programs[ps->program_count];
  memset(p, 0, sizeof *p);
  snprintf(p->label, sizeof p->label, "%s", label);
  p->rank = rank;
  ps->program = ps->program_count++;
}

/* After a distribution's files: which of its modules bring them, which of
 * its libraries are plugins. */
static void end_distribution(program_scan *ps, size_t first) {
  keep_importers(ps, first);
  find_plugins(ps, first);
  set_clear(&ps->needed);
}

/* One installed distribution: its METADATA pins and its RECORD's
 * libraries. */
static void read_distribution(program_scan *ps, const char *site,
                              const char *distinfo, int rank) {
  char *folder = cl_path_join(site, distinfo);
  char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
  char *record = folder ? cl_path_join(folder, "RECORD") : NULL;
  size_t len = 0;
  char *text = metadata ? read_text(metadata, &len) : NULL;
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
    note_cuda(ps, cuda, CUDA_FROM_NAME, why);
  }
  ps->dist_name = name;
  ps->dist_version = version;
  if (text)
    cl_requires_dist_parse(text, len, visit_pin, ps);
  ps->dist_name = ps->dist_version = NULL;
  if (name)
    note_preloads(ps, name, version);
  free(text);
  text = record ? read_text(record, &len) : NULL;
  record_walk w = {ps, site};
  size_t first = ps->files.count;
  if (text)
    cl_record_parse(text, len, visit_record, &w);
  end_distribution(ps, first);
  ps->site = NULL;
  free(text);
  free(name);
  free(version);
  free(metadata);
  free(record);
  free(folder);
}

/* A module found without a distribution that lists it (a PYTHONPATH
 * folder, a source tree): its libraries, walked. */
typedef struct module_walk {
  program_scan *ps;
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
  char *kept = cl_save_error(); /* an unreadable folder holds nothing */
  cl_os_list_dir(folder, visit_module_entry, w);
  cl_restore_error(kept);
}

static void read_module_folder(program_scan *ps, const char *location) {
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
static size_t deciding_program(const program_scan *ps) {
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < ps->program_count; ++i)
    if (ps->programs[i].cuda_major &&
        (best == SIZE_MAX || ps->programs[i].rank < ps->programs[best].rank))
      best = i;
  return best;
}

/* The families a module loads by name, of its program's CUDA major. */
static void settle_loads(program_scan *ps) {
  for (size_t i = 0; i < ps->load_count; ++i) {
    deferred_load *l = &ps->loads[i];
    const cl_catalog_entry *main = cl_catalog_family_main(l->family);
    int cuda = l->program < ps->program_count
                   ? ps->programs[l->program].cuda_major
                   : 0;
    int major = main && cuda ? abi_major_for_cuda(main, cuda) : 0;
    if (!major)
      continue;
    size_t saved = ps->program;
    ps->program = l->program;
    require(ps, main, major, l->why, NULL);
    ps->program = saved;
  }
}

/* An environment's needs that its deciding program does not share: a
 * program built for another CUDA major, or another major of a family the
 * deciding program holds, is needed only if that program is used. */
static void demote_others(program_scan *ps, size_t decider) {
  if (decider == SIZE_MAX)
    return;
  const program_info *first = &ps->programs[decider];
  for (size_t i = 0; i < ps->count; ++i) {
    derived *d = &ps->reqs[i];
    if (d->optional || d->program == decider || d->program >= ps->program_count)
      continue;
    const program_info *p = &ps->programs[d->program];
    int other_cuda = p->cuda_major && p->cuda_major != first->cuda_major;
    int other_major = 0;
    for (size_t k = 0; k < ps->count && !other_major; ++k) {
      const derived *e = &ps->reqs[k];
      other_major = !e->optional && e->main == d->main &&
                    e->major != d->major && e->program < ps->program_count &&
                    ps->programs[e->program].rank < p->rank;
    }
    if (!other_cuda && !other_major)
      continue;
    d->optional = 1;
    char note[1024];
    if (other_cuda)
      snprintf(note, sizeof note,
               "only if %s is used: it is built for CUDA %d, the "
               "environment's %s for CUDA %d",
               p->label, p->cuda_major, first->label, first->cuda_major);
    else
      snprintf(note, sizeof note,
               "only if %s is used: another program of the environment "
               "needs another major",
               p->label);
    cl_buf_printf(&d->origin, "%s%s", d->origin.len ? "; " : "", note);
  }
}

/* --- the clashes --------------------------------------------------------- */

/* Two distributions that own the same files, as a problem with the
 * reinstall that fixes it: the one wanted is the one built for the
 * program's CUDA major, else the one that uses CUDA. */
static void word_clash(program_scan *ps, const cl_program_clash *c, int cuda) {
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
  program_fact(&problem, CUDALOAD_FACT_PACKAGE, c->names[0]);
  program_fact(&problem, CUDALOAD_FACT_VERSION, c->versions[0]);
  program_fact(&problem, CUDALOAD_FACT_OTHER_PACKAGE, c->names[1]);
  program_fact(&problem, CUDALOAD_FACT_OTHER_VERSION, c->versions[1]);
  program_fact(&problem, CUDALOAD_FACT_NAME, c->example);
  cl_problem_factf(NULL, &problem, CUDALOAD_FACT_COUNT, CUDALOAD_FROM_PROGRAM,
                   "%zu", c->shared);
  program_fact(&problem, CUDALOAD_FACT_PATH, c->site);
  if (c->installed >= 0) {
    program_fact(&problem, CUDALOAD_FACT_TAKEN, c->names[c->installed]);
    program_fact(&problem, CUDALOAD_FACT_REASON, c->why);
  }
  if (wanted >= 0 && c->installed == 1 - wanted)
    program_fact(&problem, CUDALOAD_FACT_WANTED, c->names[wanted]);
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
    cl_fix_add_note(&steps, "keep one of them:");
    cl_fix_step *uninstall = cl_fix_add(&steps, CUDALOAD_FIX_COMMAND);
    static const char *const words[] = {"pip", "uninstall", "-y"};
    for (size_t k = 0; k < sizeof words / sizeof *words; ++k)
      cl_fix_arg(&steps, uninstall, words[k]);
    cl_fix_arg(&steps, uninstall, c->names[0]);
    cl_fix_arg(&steps, uninstall, c->names[1]);
    cl_fix_note(&steps, uninstall,
                "then pip install the one the program needs");
  }
  cl_problem_take_fix(NULL, &problem, &steps);
  add_warning(ps, &problem, cl_path_basename(c->example));
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

/* The origin of d as the report shows it: its reasons, and how many more
 * there were. */
static char *origin_text(const derived *d) {
  if (d->reasons <= REASONS_SHOWN)
    return cl_strdup(d->origin.data ? d->origin.data : "");
  return cl_strdup_printf("%s; and %zu more", d->origin.data,
                          d->reasons - REASONS_SHOWN);
}

static int add_derived(cudaload_ctx *ctx, const derived *d) {
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
static int add_optional(cudaload_ctx *ctx, const program_scan *scan,
                        const derived *d) {
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
                      name_set *from) {
  for (size_t i = 0; i < from->count; ++i) {
    if (cl_reserve((void **)to, capacity, *count + 1, sizeof **to))
      return CUDALOAD_E_NO_MEMORY;
    (*to)[(*count)++] = from->names[i];
    from->names[i] = NULL;
  }
  return CUDALOAD_OK;
}

static int add_files(cudaload_ctx *ctx, program_scan *ps) {
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
    int known = 0;
    for (size_t k = 0; k < ctx->program_root_count && !known; ++k)
      known = strcmp(ctx->program_roots[k], ps->search_folders.names[i]) == 0;
    if (known)
      continue;
    if (cl_reserve((void **)&ctx->program_roots, &ctx->program_root_capacity,
                   ctx->program_root_count + 1, sizeof *ctx->program_roots))
      return CUDALOAD_E_NO_MEMORY;
    ctx->program_roots[ctx->program_root_count++] = ps->search_folders.names[i];
    ps->search_folders.names[i] = NULL;
  }
  return CUDALOAD_OK;
}

static int add_warnings_and_major(cudaload_ctx *ctx, program_scan *ps,
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
    const program_info *p = &ps->programs[decider];
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

static void program_scan_init(program_scan *ps, cudaload_ctx *ctx) {
  memset(ps, 0, sizeof *ps);
  ps->ctx = ctx;
  ps->naming = cl_ctx_naming(ctx);
  ps->program = SIZE_MAX;
  cl_str_index_init(&ps->req_index, 0);
  set_init(&ps->files, 0);
  set_init(&ps->plugins, 0);
  set_init(&ps->needed, ps->naming == CL_NAMING_WINDOWS);
  set_init(&ps->modules, 0);
  set_init(&ps->search_folders, 0);
  set_init(&ps->preloads, 0);
  set_init(&ps->call_files, 0);
  cl_marker_env_for(&ps->markers, ps->naming, cl_ctx_machine(ctx), NULL);
}

static void program_scan_free(program_scan *ps) {
  for (size_t i = 0; i < ps->count; ++i) {
    cl_buf_free(&ps->reqs[i].origin);
    free(ps->reqs[i].opener);
  }
  free(ps->reqs);
  cl_str_index_free(&ps->req_index);
  set_free(&ps->files);
  set_free(&ps->plugins);
  set_free(&ps->needed);
  set_free(&ps->modules);
  set_free(&ps->search_folders);
  set_free(&ps->preloads);
  set_free(&ps->call_files);
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
    cl_buf_printf(b, "no environment is active (no VIRTUAL_ENV, no "
                     "CONDA_PREFIX, no python3 on PATH): activate it, or "
                     "pass --environment DIR, or give the interpreter's "
                     "path");
    return;
  }
  cl_buf_printf(b, "looked in");
  for (size_t i = 0; i < t->path.count; ++i)
    cl_buf_printf(b, "%s %s", i ? "," : "", t->path.folders[i].path);
  char *venv = cl_os_getenv("VIRTUAL_ENV");
  if (!venv || !*venv)
    cl_buf_printf(b, "; VIRTUAL_ENV is not set (sudo, cron and systemd start "
                     "programs without it): a venv's program is found by "
                     "giving its interpreter's path, "
                     "--for /path/to/venv/bin/python");
  free(venv);
}

/* The marker variables of the target: its platform, and its Python where
 * the import path tells. */
static void target_markers(program_scan *ps, const cl_program_target *t) {
  cl_marker_env_for(&ps->markers, ps->naming, cl_ctx_machine(ps->ctx),
                    t->path.python_version[0] ? t->path.python_version : NULL);
  if (t->path.python_version[0]) {
    ps->markers.implementation_name = "cpython";
    ps->markers.platform_python_implementation = "CPython";
  }
}

/* Read what the target names; 0 when it names nothing. */
static int read_target(program_scan *ps, const char *target,
                       cl_program_target *t) {
  target_markers(ps, t);
  if (t->kind == CL_TARGET_BINARY) {
    begin_program(ps, target, 0);
    if (!read_program_file(ps, target, NULL, 0))
      return 0;
    keep_file(ps, target); /* the program itself, needs or not */
    const cl_binary_info *info = NULL;
    char *kept = cl_save_error(); /* read above: unreadable now, nothing */
    if (cl_file_cache_info(cl_file_cache_of(ps->ctx), target, &info) ==
        CUDALOAD_OK)
      note_search_folders(ps, target, info);
    cl_restore_error(kept);
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
                      t->distributions[i].distinfo, t->distributions[i].rank);
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
  program_scan ps;
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
  program_scan ps;
  program_scan_init(&ps, ctx);
  for (size_t i = 0; i < t.distribution_count; ++i)
    read_distribution(&ps, t.distributions[i].site, t.distributions[i].distinfo,
                      t.distributions[i].rank);
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
