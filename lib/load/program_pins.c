/* SPDX-License-Identifier: MIT */
/*
 * program_pins.c - what a distribution's METADATA says of the CUDA
 * libraries it needs (program_pins.h): its Requires-Dist pins of NVIDIA's
 * wheels, read as PEP 440 specifiers whose PEP 508 markers hold for the
 * target's platform (the family, the major and the least version each
 * pins; a pin that cannot be read is said, with what to require instead),
 * the meta-distributions it requires that pin them under extras
 * (cuda-toolkit[...]), and the libraries its package loads by path itself
 * (consumers.c). program.c reads the distribution and calls these.
 */
#include "load/program_pins.h"

#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "problem/fix_words.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "scan/consumers.h"
#include "scan/distinfo.h"
#include "scan/pep440.h"
#include "scan/pep508.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- pins ---------------------------------------------------------------- */

/* A pin that could not be read: said, with what to require instead, so
 * that what it pins is not taken silently for nothing. */
static void pin_not_read(cl_program_scan *ps, const cl_requirement_line *line,
                         const cl_catalog_wheel *w, const char *reason) {
  cl_program_info *p = cl_program_current(ps);
  char pinned[256];
  snprintf(pinned, sizeof pinned, "%.*s", (int)line->name_len, line->name);
  const cl_catalog_entry *main = cl_catalog_family_main(w->family);
  int major = main ? cl_program_abi_major_for_cuda(main, w->cuda_major) : 0;
  cl_fix steps = CL_FIX_INIT;
  if (main && major)
    cl_fix_add_note(&steps, CL_NOTE_REQUIRE_THE_PINNED_MAJOR, pinned,
                    main->name, major);
  else
    cl_fix_add_note(&steps, CL_NOTE_REQUIRE_THE_PINNED_LIBRARY, pinned);
  cl_problem problem;
  cl_problem_init(&problem, CUDALOAD_PROBLEM_PIN_UNREAD);
  cl_program_fact(&problem, CUDALOAD_FACT_NAME, pinned);
  cl_problem_factf(NULL, &problem, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_PROGRAM,
                   "%.*s%s%.*s%s%.*s", (int)line->name_len, line->name,
                   line->spec_len ? " " : "", (int)line->spec_len,
                   line->specifier, line->marker_len ? "; " : "",
                   (int)line->marker_len, line->marker);
  cl_program_fact(&problem, CUDALOAD_FACT_CONSUMER, p ? p->label : NULL);
  cl_program_fact(&problem, CUDALOAD_FACT_REASON, reason);
  cl_problem_take_fix(NULL, &problem, &steps);
  cl_program_add_warning(ps, &problem, pinned);
}

/* The version of distribution `name` installed in the site being read,
 * from its dist-info folder's name; 0 when none is. */
static int installed_version(cl_program_scan *ps, const char *name, size_t len,
                             cl_pep440_version *out) {
  if (!ps->site)
    return 0;
  cl_name_list list = {0};
  cl_name_list_read(ps->site, cl_program_is_distinfo, NULL, NULL, &list);
  int found = 0;
  for (size_t i = 0; i < list.count && !found; ++i) {
    const char *entry = list.names[i];
    size_t n = strcspn(entry, "-");
    if (!cl_program_same_name(entry, n, name, len) || !entry[n])
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
static int pinned_major(cl_program_scan *ps, const cl_requirement_line *line,
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

/* A distribution the program requires that is no NVIDIA wheel but pins
 * them itself, for the extras asked (CuPy and torch require
 * cuda-toolkit[cublas,cudart,...], whose METADATA maps each extra to
 * NVIDIA's wheels): its pins, read from its METADATA in the same site. A
 * cuda-toolkit pin says the program's CUDA major too (==12.*). */

static void follow_meta_distribution(cl_program_scan *ps,
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
             line->specifier,
             cl_program_current(ps) ? cl_program_current(ps)->label : "");
    if (count == 1)
      cl_program_note_cuda(ps, only, CL_CUDA_FROM_PINS, why);
  }
  if (ps->depth > 2 || !ps->site || !line->extras_len)
    return;
  cl_name_list list = {0};
  cl_name_list_read(ps->site, cl_program_is_distinfo, NULL, NULL, &list);
  for (size_t i = 0; i < list.count; ++i) {
    const char *entry = list.names[i];
    if (!cl_program_same_name(entry, strcspn(entry, "-"), line->name,
                              line->name_len))
      continue;
    char *extras = cl_strndup(line->extras, line->extras_len);
    char *folder = cl_path_join(ps->site, entry);
    char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
    size_t len = 0;
    char *text = metadata ? cl_program_read_text(metadata, &len) : NULL;
    char *name = NULL, *version = NULL;
    char via[256] = "";
    if (text && cl_metadata_parse(text, len, &name, &version) == CUDALOAD_OK)
      snprintf(via, sizeof via, "%s %s", name, version);
    const char *saved = ps->extras, *saved_via = ps->via;
    ps->extras = extras;
    ps->via = via[0] ? via : NULL;
    ps->depth++;
    if (text && extras)
      cl_requires_dist_parse(text, len, cl_program_visit_pin, ps);
    if (name)
      cl_program_note_preloads(ps, name, version);
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

int cl_program_visit_pin(const cl_requirement_line *line, void *opaque) {
  cl_program_scan *ps = opaque;
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
                       ? CL_WORDS_ITS_ENVIRONMENT_MARKER_IS_NO
                       : CL_WORDS_ITS_ENVIRONMENT_MARKER_READS_WHAT);
    return 0;
  }
  cl_pep440_specifier spec;
  if (!cl_pep440_specifier_parse(line->specifier, line->spec_len, &spec)) {
    if (w)
      pin_not_read(ps, line, w, CL_WORDS_ITS_VERSION_SPECIFIER_IS_NO);
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
      pin_not_read(ps, line, w, CL_WORDS_IT_ADMITS_NO_RELEASE_OF);
    return 0;
  }
  char why[768];
  const char *of =
      cl_program_current(ps) ? cl_program_current(ps)->label : "the program";
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
  cl_program_derived *d = cl_program_require(ps, main, major, why, NULL);
  cl_program_note_cuda(ps, w->cuda_major, CL_CUDA_FROM_PINS, why);
  ps->feature = saved_feature;
  cl_pep440_version least;
  if (d && cl_pep440_least_in_major(&spec, major, &least)) {
    long parts[CL_VERSION_PARTS] = {0};
    int n = least.release_count < CL_VERSION_PARTS ? least.release_count
                                                   : CL_VERSION_PARTS;
    for (int i = 0; i < n; ++i)
      parts[i] = least.release[i];
    cl_program_raise_least(d, parts, n);
  }
  return 0;
}

/* --- what the program loads itself --------------------------------------- */

/* The rows of distribution `name` at `version` (consumers.c): each file a
 * row names that the site folder holds, in the row's order. */
void cl_program_note_preloads(cl_program_scan *ps, const char *name,
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
          cl_name_set_add(&ps->preloads, full, &ps->failed);
        } else if (!cl_name_set_has(&ps->call_files, full)) {
          if (cl_reserve((void **)&ps->call_names, &ps->call_capacity,
                         ps->call_files.count + 1, sizeof *ps->call_names))
            ps->failed = 1;
          else if (cl_name_set_add(&ps->call_files, full, &ps->failed))
            ps->call_names[ps->call_files.count - 1] = row->call;
        }
      }
      free(full);
      free(relative);
    }
  }
}
