/* SPDX-License-Identifier: MIT */
/*
 * program_find.c - what a --for target names, found as the program runs
 * (program_find.h).
 *
 * A module is looked for as `import` looks: along the interpreter's
 * import path (PYTHONPATH, the venv's site-packages, the user site and
 * the base interpreter's where the venv includes them, .pth folders), the
 * first folder that holds it winning, so that a venv's torch shadows the
 * system's and a venv made with --system-site-packages finds the system's
 * (NGC and Jetson images install torch system-wide). Its distribution is
 * the dist-info beside it whose RECORD lists its files. Where two do (one
 * installed over the other), the one whose files lie there is read and
 * the clash is kept for the report. Nothing of the target is run.
 */
#include "load/program_find.h"

#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/catalog_wheels.h"
#include "scan/distinfo.h"
#include "scan/python_module.h"
#include "scan/roots.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distributions that load CUDA libraries, as PyPI names them, in the order
 * an environment's programs are ranked: the first with a CUDA major
 * decides the environment's (a torch beside a ctranslate2 of another
 * major keeps torch's; ctranslate2's needs are then "if used"). */
static const char *const known_programs[] = {
    "torch",
    "tensorflow",
    "jax-cuda13-plugin",
    "jax-cuda12-plugin",
    "jax-cuda13-pjrt",
    "jax-cuda12-pjrt",
    "onnxruntime-gpu",
    "onnxruntime",
    "cupy-cuda13x",
    "cupy-cuda12x",
    "cupy-cuda11x",
    "paddlepaddle-gpu",
    "ctranslate2",
};
#define KNOWN_COUNT ((int)(sizeof known_programs / sizeof *known_programs))

/* The largest METADATA read. */
#define METADATA_MAX ((size_t)4 << 20)

static int is_distinfo(const char *name, const void *arg) {
  (void)arg;
  return cl_ends_with(name, ".dist-info");
}

/* PEP 503 comparison of a dist-info folder's name part with a name. */
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

static int known_rank(const char *distinfo) {
  size_t len = strcspn(distinfo, "-");
  for (int k = 0; k < KNOWN_COUNT; ++k)
    if (same_name(distinfo, len, known_programs[k], strlen(known_programs[k])))
      return k;
  return -1;
}

int cl_program_name_says_cuda(const char *name, const char *version,
                              int *cuda) {
  *cuda = 0;
  char n[256];
  size_t k = 0;
  for (const char *p = name; *p && k + 1 < sizeof n; ++p)
    n[k++] = *p == '_' || *p == '.' ? '-' : cl_ascii_lower(*p);
  n[k] = '\0';
  int gpu = cl_ends_with(n, "-gpu") || strstr(n, "-gpu-") != NULL;
  /* "cupy-cuda12x", "jax-cuda12-plugin", "nvidia-cudnn-cu12". */
  for (const char *p = n; (p = strstr(p, "-cu")) != NULL; ++p) {
    const char *d = p + 3;
    if (!strncmp(d, "da", 2))
      d += 2;
    size_t digits = strspn(d, "0123456789");
    if (digits == 2 && (d[2] == '\0' || d[2] == '-' || d[2] == 'x')) {
      *cuda = (d[0] - '0') * 10 + (d[1] - '0');
      return 1;
    }
  }
  /* A build tag: "2.5.1+cu124" (CUDA 12.4), "+cu118", "+cu130". */
  const char *plus = version ? strchr(version, '+') : NULL;
  const char *cu = plus ? strstr(plus, "cu") : NULL;
  if (cu) {
    size_t digits = strspn(cu + 2, "0123456789");
    if (digits >= 3 && digits <= 4) {
      *cuda = atoi(cu + 2) / 10;
      if (digits == 4)
        *cuda /= 10;
      return 1;
    }
  }
  return gpu;
}

/* Whether a METADATA pins one of NVIDIA's wheels, or a meta-distribution
 * of them (cuda-toolkit[...]). */
static int visit_nvidia_pin(const cl_requirement_line *line, void *opaque) {
  (void)opaque;
  return cl_catalog_wheel_by_package(line->name, line->name_len) != NULL ||
         (line->extras_len && line->name_len == 12 &&
          !strncmp(line->name, "cuda-toolkit", 12));
}

static char *read_metadata(const char *site, const char *distinfo,
                           size_t *len) {
  char *folder = cl_path_join(site, distinfo);
  char *metadata = folder ? cl_path_join(folder, "METADATA") : NULL;
  char *text = NULL;
  /* unreadable: it pins nothing */
  if (!metadata || cl_read_file_head_quiet(metadata, METADATA_MAX, &text, len))
    text = NULL;
  free(metadata);
  free(folder);
  return text;
}

static int pins_nvidia(const char *site, const char *distinfo) {
  size_t len = 0;
  char *text = read_metadata(site, distinfo, &len);
  int yes = text && cl_requires_dist_parse(text, len, visit_nvidia_pin, NULL);
  free(text);
  return yes;
}

/* --- what is found ------------------------------------------------------- */

static void add_distribution(cl_program_target *t, const char *site,
                             const char *distinfo, int rank) {
  for (size_t i = 0; i < t->distribution_count; ++i)
    if (!strcmp(t->distributions[i].site, site) &&
        !strcmp(t->distributions[i].distinfo, distinfo))
      return;
  if (cl_reserve((void **)&t->distributions, &t->distribution_capacity,
                 t->distribution_count + 1, sizeof *t->distributions)) {
    t->failed = 1;
    return;
  }
  cl_found_distribution d = {cl_strdup(site), cl_strdup(distinfo), rank};
  if (!d.site || !d.distinfo) {
    free(d.site);
    free(d.distinfo);
    t->failed = 1;
    return;
  }
  t->distributions[t->distribution_count++] = d;
}

static void adopt(cl_program_target *t, const char *folder) {
  for (size_t i = 0; i < t->adopt_count; ++i)
    if (!strcmp(t->adopt[i], folder))
      return;
  char *copy = cl_strdup(folder);
  if (!copy || cl_reserve((void **)&t->adopt, &t->adopt_capacity,
                          t->adopt_count + 1, sizeof *t->adopt)) {
    free(copy);
    t->failed = 1;
    return;
  }
  t->adopt[t->adopt_count++] = copy;
}

static int holds_distinfo(const char *folder) {
  cl_name_list list = {0};
  cl_name_list_read(folder, is_distinfo, NULL, NULL, &list);
  int yes = list.count > 0;
  cl_name_list_free(&list);
  return yes;
}

/* Whether a folder of the path is one pip installs into: a site folder,
 * or a PYTHONPATH or .pth folder holding dist-info (pip --target). */
static int installs_into(const cl_import_folder *f) {
  return f->site || holds_distinfo(f->path);
}

/* The environment roots an interpreter's path brings: its venv, and each
 * folder pip installs into that is not inside it. */
static void adopt_path(cl_program_target *t) {
  const cl_import_path *p = &t->path;
  size_t venv_len = p->venv ? strlen(p->venv) : 0;
  if (p->venv)
    adopt(t, p->venv);
  for (size_t i = 0; i < p->count; ++i) {
    const char *folder = p->folders[i].path;
    int inside = venv_len && !strncmp(folder, p->venv, venv_len) &&
                 (folder[venv_len] == '/' || folder[venv_len] == '\\');
    if (!inside && installs_into(&p->folders[i]))
      adopt(t, folder);
  }
}

static void add_clash(cl_program_target *t, const cl_program_clash *c) {
  if (cl_reserve((void **)&t->clashes, &t->clash_capacity, t->clash_count + 1,
                 sizeof *t->clashes)) {
    t->failed = 1;
    return;
  }
  t->clashes[t->clash_count++] = *c;
}

/* Name and version of a dist-info folder as METADATA spells them
 * ("nvidia-nccl-cu12"), else as its folder's name does. */
static void name_and_version(const char *site, const char *distinfo,
                             char **name, char **version) {
  size_t len = 0;
  char *text = read_metadata(site, distinfo, &len);
  if ((!text || cl_metadata_parse(text, len, name, version)) &&
      !cl_distinfo_folder_name_parse(distinfo, name, version)) {
    *name = cl_strndup(distinfo, strcspn(distinfo, "-"));
    *version = cl_strdup("");
  }
  free(text);
}

static void describe_side(cl_program_clash *c, int i, const char *site,
                          const char *distinfo) {
  name_and_version(site, distinfo, &c->names[i], &c->versions[i]);
  const cl_catalog_wheel *w =
      c->names[i]
          ? cl_catalog_wheel_by_package(c->names[i], strlen(c->names[i]))
          : NULL;
  int cuda = 0;
  c->uses_cuda[i] = w != NULL || pins_nvidia(site, distinfo) ||
                    (c->names[i] && cl_program_name_says_cuda(
                                        c->names[i], c->versions[i], &cuda));
  c->cuda[i] = w ? w->cuda_major : cuda;
}

/* NVIDIA wheels of one site folder that list the same library file. */
typedef struct shared_walk {
  cl_program_target *t;
  const char *site;
} shared_walk;

static void visit_shared(const cl_distinfo_index *index, size_t a, size_t b,
                         const cl_distinfo_file *first, size_t shared,
                         void *opaque) {
  shared_walk *w = opaque;
  const cl_distribution *da = &index->distributions[a];
  const cl_distribution *db = &index->distributions[b];
  char *dir_a = cl_path_dirname(da->metadata_path);
  char *dir_b = cl_path_dirname(db->metadata_path);
  char *record_a = dir_a ? cl_path_join(dir_a, "RECORD") : NULL;
  char *record_b = dir_b ? cl_path_join(dir_b, "RECORD") : NULL;
  char *file = cl_path_join(w->site, first->relpath);
  cl_program_clash c;
  memset(&c, 0, sizeof c);
  c.site = cl_strdup(w->site);
  c.shared = shared;
  c.example = cl_strdup(first->relpath);
  describe_side(&c, 0, w->site, cl_path_basename(dir_a ? dir_a : ""));
  describe_side(&c, 1, w->site, cl_path_basename(dir_b ? dir_b : ""));
  c.installed =
      file && record_a && record_b
          ? cl_distinfo_which_installed(
                file, cl_distinfo_listed_size(index, a, first->relpath),
                cl_distinfo_listed_size(index, b, first->relpath), record_a,
                record_b, &c.why)
          : -1;
  if (!c.site || !c.example || !c.names[0] || !c.names[1] || !c.versions[0] ||
      !c.versions[1])
    w->t->failed = 1;
  add_clash(w->t, &c);
  free(file);
  free(record_a);
  free(record_b);
  free(dir_a);
  free(dir_b);
}

/* Every site folder of the path: NVIDIA's wheels that install the same
 * file (nvidia-nccl-cu11 over nvidia-nccl-cu12). */
static void find_wheel_clashes(cl_program_target *t) {
  for (size_t i = 0; i < t->path.count && !t->failed; ++i) {
    if (!t->path.folders[i].site)
      continue;
    cl_distinfo_index index;
    if (cl_distinfo_load(t->path.folders[i].path, &index)) {
      t->failed = 1;
      cl_distinfo_free(&index);
      break;
    }
    shared_walk w = {t, t->path.folders[i].path};
    if (index.distribution_count > 1)
      cl_distinfo_each_shared(&index, visit_shared, &w);
    cl_distinfo_free(&index);
  }
}

/* A clash of two distributions over module `name` of one folder. */
static void module_clash(cl_program_target *t, const char *folder,
                         const cl_module_found *m) {
  if (m->provider_count < 2 || !m->shared)
    return;
  for (size_t i = 0; i < t->clash_count; ++i)
    if (!strcmp(t->clashes[i].site, folder) &&
        !strcmp(t->clashes[i].example,
                m->shared_example ? m->shared_example : ""))
      return;
  cl_program_clash c;
  memset(&c, 0, sizeof c);
  c.site = cl_strdup(folder);
  c.shared = m->shared;
  c.example = cl_strdup(m->shared_example ? m->shared_example : "");
  describe_side(&c, 0, folder, m->providers[0]);
  describe_side(&c, 1, folder, m->providers[1]);
  c.installed = m->installed == SIZE_MAX ? -1 : (int)m->installed;
  c.why = m->installed_why;
  if (!c.site || !c.example)
    t->failed = 1;
  add_clash(t, &c);
}

/* The top-level modules a distribution's RECORD installs ("onnxruntime"
 * of onnxruntime/capi/...), each once. */
typedef struct top_levels {
  cl_name_list names;
  int failed;
} top_levels;

static int visit_top_level(const char *path, size_t len, void *opaque) {
  top_levels *t = opaque;
  const char *slash = memchr(path, '/', len);
  if (!slash || slash == path)
    return 0;
  char name[256];
  size_t n = (size_t)(slash - path);
  if (n >= sizeof name)
    return 0;
  memcpy(name, path, n);
  name[n] = '\0';
  if (!cl_python_module_name(name))
    return 0; /* foo-1.0.dist-info, foo.data, .. */
  for (size_t i = 0; i < t->names.count; ++i)
    if (!strcmp(t->names.names[i], name))
      return 0;
  char *copy = cl_strdup(name);
  if (!copy || cl_reserve((void **)&t->names.names, &t->names.capacity,
                          t->names.count + 1, sizeof *t->names.names)) {
    free(copy);
    t->failed = 1;
    return 1;
  }
  t->names.names[t->names.count++] = copy;
  return 0;
}

/* An environment's programs that another distribution of their folder
 * overwrote (onnxruntime installed over onnxruntime-gpu): their top-level
 * modules' owners. */
static void find_program_clashes(cl_program_target *t) {
  for (size_t i = 0; i < t->distribution_count && !t->failed; ++i) {
    const cl_found_distribution *d = &t->distributions[i];
    size_t len = 0;
    const char *text =
        cl_record_text_of(&t->records, d->site, d->distinfo, &len, &t->failed);
    top_levels tops = {{0}, 0};
    if (text)
      cl_record_parse(text, len, visit_top_level, &tops);
    for (size_t k = 0; k < tops.names.count && !t->failed; ++k) {
      cl_module_found m;
      cl_python_module_owners(d->site, tops.names.names[k], &t->records, &m);
      module_clash(t, d->site, &m);
      t->failed |= m.failed;
      cl_module_found_free(&m);
    }
    t->failed |= tops.failed;
    cl_name_list_free(&tops.names);
  }
}

/* --- environments -------------------------------------------------------- */

size_t cl_program_find_installed(const cl_import_path *path,
                                 cl_program_target *t) {
  size_t found = 0;
  for (size_t s = 0; s < path->count && !t->failed; ++s) {
    if (!installs_into(&path->folders[s]))
      continue;
    const char *site = path->folders[s].path;
    cl_name_list list = {0};
    cl_name_list_read(site, is_distinfo, NULL, NULL, &list);
    for (size_t i = 0; i < list.count; ++i) {
      const char *entry = list.names[i];
      /* NVIDIA's own wheels are the libraries, not programs; nor are
       * its CUDA Python distributions (cuda-toolkit pins the wheels under
       * its extras for the programs that ask for them, cuda-pathfinder
       * finds them): what a program asks of them is read with the
       * program. */
      if (cl_catalog_wheel_by_package(entry, strcspn(entry, "-")) ||
          !strncmp(entry, "cuda_", 5) || !strncmp(entry, "cuda-", 5))
        continue;
      int rank = known_rank(entry);
      if (rank < 0 && pins_nvidia(site, entry))
        rank = KNOWN_COUNT;
      if (rank >= 0) {
        add_distribution(t, site, entry, rank);
        ++found;
      }
    }
    cl_name_list_free(&list);
  }
  return found;
}

/* --- modules ------------------------------------------------------------- */

typedef struct root_list {
  char **roots;
  size_t count, capacity;
  int failed;
} root_list;

static void collect_root(const char *path, const char *origin, void *opaque) {
  (void)origin;
  root_list *l = opaque;
  char *copy = cl_strdup(path);
  if (!copy || cl_reserve((void **)&l->roots, &l->capacity, l->count + 1,
                          sizeof *l->roots)) {
    free(copy);
    l->failed = 1;
    return;
  }
  l->roots[l->count++] = copy;
}

/* Whether folder is one of roots or inside one. */
static int under_any(const root_list *l, const char *folder) {
  for (size_t i = 0; i < l->count; ++i) {
    size_t n = strlen(l->roots[i]);
    if (!strncmp(folder, l->roots[i], n) &&
        (folder[n] == '\0' || folder[n] == '/' || folder[n] == '\\'))
      return 1;
  }
  return 0;
}

/* The distributions of the path's folders named `target` (PEP 503). */
static size_t find_by_name(cl_program_target *t, const char *target) {
  size_t found = 0, len = strlen(target);
  for (size_t s = 0; s < t->path.count && !found; ++s) {
    if (!installs_into(&t->path.folders[s]))
      continue;
    cl_name_list list = {0};
    cl_name_list_read(t->path.folders[s].path, is_distinfo, NULL, NULL, &list);
    for (size_t i = 0; i < list.count; ++i)
      if (same_name(list.names[i], strcspn(list.names[i], "-"), target, len)) {
        int rank = known_rank(list.names[i]);
        add_distribution(t, t->path.folders[s].path, list.names[i],
                         rank < 0 ? KNOWN_COUNT : rank);
        ++found;
      }
    cl_name_list_free(&list);
  }
  return found;
}

static void find_module(cl_program_target *t, const char *target) {
  cl_module_found m;
  if (!cl_python_module_find(&t->path, target, &t->records, &m)) {
    if (find_by_name(t, target))
      t->kind = CL_TARGET_MODULE;
    return;
  }
  const cl_import_folder *f = &t->path.folders[m.folder];
  t->kind = CL_TARGET_MODULE;
  t->found_how =
      cl_strdup_printf(CL_WORDS_IMPORT_FINDS_IN, target, m.location, f->path,
                       f->origin, f->pth ? ": " : "", f->pth ? f->pth : "");
  if (!t->found_how)
    t->failed = 1;
  for (size_t i = 0; i < m.provider_count; ++i)
    /* Of two that list its files, the one whose files lie there, or both
     * when nothing tells. */
    if (m.provider_count < 2 || m.installed == SIZE_MAX || m.installed == i) {
      int rank = known_rank(m.providers[i]);
      add_distribution(t, f->path, m.providers[i],
                       rank < 0 ? KNOWN_COUNT : rank);
    }
  module_clash(t, f->path, &m);
  if (!m.provider_count && !(t->module_folder = cl_strdup(m.location)))
    t->failed = 1;
  t->failed |= m.failed;
  cl_module_found_free(&m);
}

void cl_program_target_find(cudaload_ctx *ctx, const char *target,
                            cl_program_target *out) {
  memset(out, 0, sizeof *out);
  if (cl_os_path_is_absolute(target)) {
    cl_file_kind kind = cl_os_stat_kind(target, NULL);
    const char *name = cl_path_basename(target);
    char *bin = cl_path_dirname(target);
    char *up = bin ? cl_path_dirname(bin) : NULL;
    /* A venv's interpreter: in bin/ (Scripts\), pyvenv.cfg one up. */
    char *cfg_up = up ? cl_path_join(up, "pyvenv.cfg") : NULL;
    int venv = cfg_up && cl_os_stat_kind(cfg_up, NULL) == CL_KIND_REGULAR;
    free(cfg_up);
    free(up);
    free(bin);
    if (kind == CL_KIND_DIRECTORY) {
      const char *roots[] = {target};
      cl_import_path_of_roots(roots, 1, 1, &out->path);
      out->kind = CL_TARGET_ENVIRONMENT;
      adopt(out, target); /* a conda prefix's lib/ too */
    } else if (kind == CL_KIND_REGULAR &&
               (venv || !strncmp(name, "python", 6) ||
                !strncmp(name, "pypy", 4))) {
      cl_import_path_of_interpreter(target, &out->path);
      out->kind = CL_TARGET_ENVIRONMENT;
      /* Its venv root, conda prefix or site folders, as the scan has
       * always taken an interpreter's. */
      root_list own = {0};
      cl_interpreter_roots(target, collect_root, &own);
      for (size_t i = 0; i < own.count; ++i) {
        adopt(out, own.roots[i]);
        free(own.roots[i]);
      }
      free(own.roots);
      out->failed |= own.failed;
    } else if (kind == CL_KIND_REGULAR) {
      out->kind = CL_TARGET_BINARY;
      return;
    } else {
      return;
    }
    adopt_path(out);
    cl_program_find_installed(&out->path, out);
    find_program_clashes(out);
    find_wheel_clashes(out);
    out->failed |= out->path.failed;
    return;
  }
  /* A module or distribution of the environment given, or the active
   * one. */
  root_list defaults = {0};
  int given = ctx->environment_count > 0;
  if (given)
    cl_import_path_of_roots((const char *const *)ctx->environment_roots,
                            ctx->environment_count, 1, &out->path);
  else {
    /* The interpreter a command line runs: the activated venv's or conda
     * environment's, then the python3 on PATH. */
    cl_environment_roots(collect_root, &defaults);
    cl_import_path_init(&out->path);
    static const char *const variables[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    for (size_t i = 0; i < 2; ++i) {
      char *root = cl_os_getenv(variables[i]);
      if (root && *root && cl_os_path_is_absolute(root))
        cl_import_path_add_root(&out->path, root, 0);
      free(root);
    }
    char *python = cl_python_on_path();
    if (python)
      cl_import_path_add_interpreter(&out->path, python);
    free(python);
  }
  find_module(out, target);
  /* Found where the active environment's roots do not reach (the base
   * interpreter's site-packages of a venv that includes them, the user
   * site, PYTHONPATH): the interpreter's whole path is the environment. */
  if (out->kind == CL_TARGET_MODULE && !given && out->distribution_count &&
      !under_any(&defaults, out->distributions[0].site))
    adopt_path(out);
  if (out->kind == CL_TARGET_MODULE)
    find_wheel_clashes(out);
  out->failed |= out->path.failed || defaults.failed;
  for (size_t i = 0; i < defaults.count; ++i)
    free(defaults.roots[i]);
  free(defaults.roots);
}

void cl_program_target_free(cl_program_target *t) {
  cl_import_path_free(&t->path);
  for (size_t i = 0; i < t->distribution_count; ++i) {
    free(t->distributions[i].site);
    free(t->distributions[i].distinfo);
  }
  free(t->distributions);
  free(t->module_folder);
  free(t->found_how);
  for (size_t i = 0; i < t->adopt_count; ++i)
    free(t->adopt[i]);
  free(t->adopt);
  for (size_t i = 0; i < t->clash_count; ++i) {
    cl_program_clash *c = &t->clashes[i];
    free(c->site);
    free(c->example);
    for (int k = 0; k < 2; ++k) {
      free(c->names[k]);
      free(c->versions[k]);
    }
  }
  free(t->clashes);
  cl_record_texts_free(&t->records);
  memset(t, 0, sizeof *t);
}
