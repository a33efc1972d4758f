/* SPDX-License-Identifier: MIT */
/* layouts.c - the known sub-folders of a root, per layout. */
#include "scan/layouts.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

/* Fixed sub-folders, in search order, and the naming they matter for
 * (0: both). Linux libraries live in lib folders, Windows DLLs in bin. */
typedef struct fixed_folder {
  const char *relative;
  int naming;
} fixed_folder;

static const fixed_folder toolkit_folders[] = {
    {"lib64", CL_NAMING_LINUX},
    {"lib", CL_NAMING_LINUX},
    {"bin", CL_NAMING_WINDOWS},
    {"bin/x64", CL_NAMING_WINDOWS}, /* CUDA 13 on Windows */
    {"bin/x86_64", CL_NAMING_WINDOWS},
    {"bin/arm64", CL_NAMING_WINDOWS},   /* CUDA 13.4 on Windows ARM64 */
    {"Library/bin", CL_NAMING_WINDOWS}, /* conda on Windows */
    /* Then the folders of a family of its own (NVVM's nvvm/lib64): the
     * catalog rows' toolkit_folders. */
};

/* The folders NVIDIA's CUDA 13 wheels share, before the families' own
 * (the catalog rows' package_folders: nvidia/cuda_nvcc/nvvm/lib64,
 * cutensor/lib, cuquantum/lib, ...). */
static const fixed_folder wheel_folders[] = {
    {"nvidia/cu13/bin/x86_64", CL_NAMING_WINDOWS}, /* CUDA 13 wheels */
    {"nvidia/cu13/bin/arm64", CL_NAMING_WINDOWS},
};

/* After the families' folders: the packages that bundle CUDA libraries. */
static const fixed_folder package_folders[] = {
    {"torch/lib", 0},
    {"ctranslate2", 0},
    /* auditwheel's bundled copies (a renamed cuDNN 8 shim among them). Only
     * known packages are probed: finding every <pkg>.libs would list the
     * whole site-packages folder; pass another as an explicit root. */
    {"ctranslate2.libs", CL_NAMING_LINUX},
    {"onnxruntime/capi", 0},
};

const char *const cl_layout_python_versions[] = {
    "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15", NULL};

typedef struct walk {
  cl_naming naming;
  cl_folder_visitor visit;
  cl_name_absent absent;
  cl_folder_stamper stamp;
  void *opaque;
  int stopped;
} walk;

/* Whether a listing the walk's visitor made says root/relative cannot be
 * there: one of its components is missing from its parent's listing. A
 * parent nobody listed ends the answer: the stat decides. */
static int known_absent(walk *w, const char *root, const char *relative) {
  if (!w->absent)
    return 0;
  char *parent = cl_strdup(root);
  const char *p = relative;
  int absent = 0;
  while (parent && *p && !absent) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    char *name = cl_strndup(p, n);
    char *child = name ? cl_path_join(parent, name) : NULL;
    absent = name && child && w->absent(parent, name, w->opaque);
    free(name);
    free(parent);
    parent = child;
    p = slash ? slash + 1 : p + n;
  }
  free(parent);
  return absent;
}

static int visit_if_folder(walk *w, const char *folder) {
  if (w->stopped)
    return 1;
  cl_file_stamp stamp;
  int found = w->stamp ? w->stamp(folder, &stamp, w->opaque)
                       : cl_os_path_stamp(folder, &stamp);
  if (found && stamp.kind == CL_KIND_DIRECTORY &&
      w->visit(folder, &stamp, w->opaque))
    w->stopped = 1;
  return w->stopped;
}

static int visit_relative(walk *w, const char *root, const char *relative) {
  if (known_absent(w, root, relative))
    return w->stopped;
  char *folder = cl_path_join(root, relative);
  if (!folder) {
    w->stopped = 1;
    return 1;
  }
  /* Templates use '/'; on Windows the OS takes either separator. */
  visit_if_folder(w, folder);
  free(folder);
  return w->stopped;
}

/* Visit dir/<name>/<tail> for every sub-folder name of dir that keep()
 * accepts (the "*" in "targets/x/lib" and "nvidia/x/lib"), in sorted order,
 * so the search order does not depend on the file system's listing order. */
static void visit_each_child(walk *w, const char *root, const char *dir_rel,
                             cl_name_filter keep, const char *tail) {
  if (known_absent(w, root, dir_rel))
    return;
  char *dir = cl_path_join(root, dir_rel);
  if (!dir) {
    w->stopped = 1;
    return;
  }
  cl_name_list l;
  /* A folder that cannot be listed only hides its children (an answer:
   * cl_name_list_read writes no error). */
  int failed = cl_name_list_read(dir, keep, NULL, NULL, &l);
  for (size_t i = 0; i < l.count; ++i) {
    char *child = cl_path_join(dir, l.names[i]);
    char *folder = child && tail ? cl_path_join(child, tail) : NULL;
    if (!child || (tail && !folder))
      w->stopped = 1;
    else
      visit_if_folder(w, tail ? folder : child);
    free(folder);
    free(child);
  }
  cl_name_list_free(&l);
  free(dir);
  if (failed)
    w->stopped = 1;
}

static int any_name(const char *name, const void *arg) {
  (void)arg;
  return name[0] != '.';
}

/* "12.4": the cuDNN Windows installer's per-CUDA-version folders. */
static int cuda_version_name(const char *name, const void *arg) {
  const char *p = name;
  (void)arg;
  if (*p < '0' || *p > '9')
    return 0;
  while (*p >= '0' && *p <= '9')
    ++p;
  if (*p != '.')
    return 0;
  ++p;
  if (*p < '0' || *p > '9')
    return 0;
  while (*p >= '0' && *p <= '9')
    ++p;
  return *p == '\0';
}

static int applies(const fixed_folder *f, cl_naming naming) {
  return f->naming == 0 || f->naming == (int)naming;
}

static size_t room(int toolkit) {
  return toolkit ? CL_FAMILY_TOOLKIT_FOLDERS : CL_FAMILY_PACKAGE_FOLDERS;
}

/* Whether an earlier family row, or an earlier folder of this one, has
 * the same folder: each is visited once (cuQuantum's five libraries share
 * cuquantum/lib). */
static int listed_before(const cl_catalog_family *rows, size_t row,
                         size_t folder, int toolkit) {
  const cl_family_folder *f = toolkit ? &rows[row].toolkit_folders[folder]
                                      : &rows[row].package_folders[folder];
  for (size_t i = 0; i <= row; ++i) {
    const cl_family_folder *list =
        toolkit ? rows[i].toolkit_folders : rows[i].package_folders;
    size_t end = i < row ? room(toolkit) : folder;
    for (size_t k = 0; k < end && list[k].relative; ++k)
      if (list[k].naming == f->naming &&
          strcmp(list[k].relative, f->relative) == 0)
        return 1;
  }
  return 0;
}

/* Visit the families' own folders of a toolkit (toolkit 1) or of a folder
 * of Python packages, in row order; skip_nvidia: not those below nvidia/,
 * which the root does not have. */
static void visit_family_folders(walk *w, const char *root, int toolkit,
                                 int skip_nvidia) {
  size_t count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  for (size_t i = 0; i < count && !w->stopped; ++i) {
    const cl_family_folder *list =
        toolkit ? rows[i].toolkit_folders : rows[i].package_folders;
    for (size_t k = 0; k < room(toolkit) && list[k].relative && !w->stopped;
         ++k) {
      fixed_folder f = {list[k].relative, list[k].naming};
      if (applies(&f, w->naming) && !listed_before(rows, i, k, toolkit) &&
          !(skip_nvidia && strncmp(f.relative, "nvidia/", 7) == 0))
        visit_relative(w, root, f.relative);
    }
  }
}

/* A site-packages folder holds packages, never libraries, and can hold
 * thousands of entries: listing it would make a scan's cost grow with the
 * number of unrelated packages. Known by its name only: a folder that holds
 * an nvidia/ sub-folder may be a pip --target folder, or a system library
 * folder with the driver's nvidia/current beside its own libraries. */
static int named_site_packages(const char *root) {
  const char *base = cl_path_basename(root);
  return strncmp(base, "site-packages", 13) == 0 ||
         strncmp(base, "dist-packages", 13) == 0;
}

static int has_wheels(walk *w, const char *root) {
  if (known_absent(w, root, "nvidia"))
    return 0;
  char *nvidia = cl_path_join(root, "nvidia");
  int found = nvidia && cl_os_stat_kind(nvidia, NULL) == CL_KIND_DIRECTORY;
  free(nvidia);
  return found;
}

int cl_layout_visits_root(const char *root) {
  return !named_site_packages(root);
}

static void walk_root(walk *w, const char *root, int nested) {
  int named = nested || named_site_packages(root);
  if (!named)
    visit_if_folder(w, root);
  /* A folder of Python packages has no toolkit folders (lib64, bin) and no
   * lib/pythonX.Y inside: not probing them keeps a wheel-only scan to the
   * folders that can hold NVIDIA's wheels. */
  int site_packages = named || has_wheels(w, root);
  for (size_t i = 0;
       i < sizeof toolkit_folders / sizeof *toolkit_folders && !site_packages;
       ++i)
    if (applies(&toolkit_folders[i], w->naming) && !w->stopped) {
      visit_relative(w, root, toolkit_folders[i].relative);
      if (strcmp(toolkit_folders[i].relative, "lib") == 0)
        visit_each_child(w, root, "targets", any_name, "lib");
    }
  if (!site_packages && !w->stopped)
    visit_family_folders(w, root, 1, 0);
  if (w->naming == CL_NAMING_WINDOWS && !w->stopped && !site_packages)
    visit_each_child(w, root, "bin", cuda_version_name, NULL);
  /* NVIDIA's wheels: nvidia/<package>/lib (Linux) or /bin (Windows);
   * CUDA 13 wheels share nvidia/cu13. */
  /* has_wheels() said whether a folder not named site-packages holds
   * nvidia/: when it does not, nothing below it is probed. */
  int no_nvidia = !named && !site_packages;
  if (!w->stopped && !no_nvidia)
    visit_each_child(w, root, "nvidia", any_name,
                     w->naming == CL_NAMING_LINUX ? "lib" : "bin");
  for (size_t i = 0; i < sizeof wheel_folders / sizeof *wheel_folders; ++i)
    if (applies(&wheel_folders[i], w->naming) && !w->stopped && !no_nvidia)
      visit_relative(w, root, wheel_folders[i].relative);
  visit_family_folders(w, root, 0, no_nvidia);
  for (size_t i = 0; i < sizeof package_folders / sizeof *package_folders; ++i)
    if (applies(&package_folders[i], w->naming) && !w->stopped &&
        !(no_nvidia && strncmp(package_folders[i].relative, "nvidia/", 7) == 0))
      visit_relative(w, root, package_folders[i].relative);
  if (site_packages || w->stopped)
    return;
  /* A venv or conda prefix holds a site-packages folder: search it as a
   * site-packages root. Probing names is cheaper than listing lib/, which
   * in a conda prefix holds thousands of files. */
  for (size_t i = 0; cl_layout_python_versions[i]; ++i) {
    char rel[64];
    strcpy(rel, "lib/python");
    strcat(rel, cl_layout_python_versions[i]);
    strcat(rel, "/site-packages");
    if (known_absent(w, root, rel))
      continue;
    char *sp = cl_path_join(root, rel);
    if (!sp) {
      w->stopped = 1;
      return;
    }
    if (cl_os_stat_kind(sp, NULL) == CL_KIND_DIRECTORY)
      walk_root(w, sp, 1);
    free(sp);
    if (w->stopped)
      return;
  }
  if (known_absent(w, root, "Lib/site-packages"))
    return;
  char *win_sp = cl_path_join(root, "Lib/site-packages");
  if (!win_sp) {
    w->stopped = 1;
    return;
  }
  if (cl_os_stat_kind(win_sp, NULL) == CL_KIND_DIRECTORY)
    walk_root(w, win_sp, 1);
  free(win_sp);
}

int cl_layout_folders(const char *root, cl_naming naming,
                      cl_folder_visitor visit, cl_name_absent absent,
                      cl_folder_stamper stamp, void *opaque) {
  walk w = {naming, visit, absent, stamp, opaque, 0};
  walk_root(&w, root, 0);
  return w.stopped;
}
