/* SPDX-License-Identifier: MIT */
/*
 * python_loads.c - how CPython on Windows loads a package's DLLs
 * (python_loads.h; docs/loader.md, Windows 14). Read from CPython's
 * Python/dynload_win.c (_PyImport_FindSharedFuncptrWindows:
 * LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)) and Lib/ctypes/__init__.py (CDLL's
 * winmode for a path: the same two flags), 3.8 and later.
 */
#include "load/python_loads.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "loader/loader_model.h"
#include "os/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_python_load_free(cl_python_load *p) {
  if (!p)
    return;
  free(p->site);
  free(p->package_dir);
  free(p->package);
  free(p->home);
  free(p->init_dir);
  memset(p, 0, sizeof *p);
}

static int ends_nocase(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && cl_ascii_equal_nocase(s + n - k, suffix);
}

static int is_file(const char *path) {
  return path && cl_os_stat_kind(path, NULL) == CL_KIND_REGULAR;
}

/* "home = C:\Python312" of a pyvenv.cfg, malloc'ed, or NULL. */
static char *venv_home(const char *cfg) {
  char *text = NULL;
  size_t len = 0;
  /* no pyvenv.cfg: no venv */
  int rc = cl_read_file_head_quiet(cfg, 64 * 1024, &text, &len);
  if (rc)
    return NULL;
  char *home = NULL;
  for (char *line = text; line && *line && !home;) {
    char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    while (n && (line[n - 1] == '\r' || cl_ascii_is_space(line[n - 1])))
      --n;
    size_t key = 0;
    while (key < n && cl_ascii_is_space(line[key]))
      ++key;
    if (n - key > 4 && cl_same_nocase(line + key, "home", 4)) {
      size_t at = key + 4;
      while (at < n && cl_ascii_is_space(line[at]))
        ++at;
      if (at < n && line[at] == '=') {
        ++at;
        while (at < n && cl_ascii_is_space(line[at]))
          ++at;
        if (at < n)
          home = cl_strndup(line + at, n - at);
      }
    }
    line = end ? end + 1 : NULL;
  }
  free(text);
  return home;
}

char *cl_python_home_of_site(const char *site) {
  char *lib = cl_path_dirname(site);
  char *prefix = lib && cl_ascii_equal_nocase(cl_path_basename(lib), "Lib")
                     ? cl_path_dirname(lib)
                     : NULL;
  free(lib);
  if (!prefix)
    return NULL;
  char *python = cl_path_join(prefix, "python.exe");
  char *home = NULL;
  if (is_file(python)) {
    home = prefix;
    prefix = NULL;
  } else {
    char *cfg = cl_path_join(prefix, "pyvenv.cfg");
    char *base = cfg ? venv_home(cfg) : NULL;
    char *base_python = base ? cl_path_join(base, "python.exe") : NULL;
    if (is_file(base_python)) {
      home = base;
      base = NULL;
    }
    free(base_python);
    free(base);
    free(cfg);
  }
  free(python);
  free(prefix);
  return home;
}

/* The site-packages folder above path and the top-level folder under it:
 * *site and *top malloc'ed (*top NULL for a file at the site's top). */
static int site_of(const char *path, char **site, char **top) {
  *site = *top = NULL;
  char *child = cl_strdup(path);
  char *folder = child ? cl_path_dirname(child) : NULL;
  while (folder && folder[0] &&
         !cl_ascii_equal_nocase(cl_path_basename(folder), "site-packages")) {
    char *up = cl_path_dirname(folder);
    /* The root: dirname gives it back unchanged. */
    if (!up || strcmp(up, folder) == 0) {
      free(up);
      free(folder);
      free(child);
      return CUDALOAD_OK;
    }
    free(child);
    child = folder;
    folder = up;
  }
  if (!child || !folder) {
    free(child);
    free(folder);
    return CUDALOAD_E_NO_MEMORY;
  }
  if (!folder[0]) {
    free(folder);
    free(child);
    return CUDALOAD_OK;
  }
  *site = folder;
  if (strcmp(child, path) != 0)
    *top = child; /* <site>\<package> */
  else
    free(child);
  return CUDALOAD_OK;
}

int cl_python_load_of(const char *path, cl_python_load *out, int *is) {
  memset(out, 0, sizeof *out);
  *is = 0;
  int extension = ends_nocase(path, ".pyd");
  if (!extension && !ends_nocase(path, ".dll"))
    return CUDALOAD_OK;
  int rc = site_of(path, &out->site, &out->package_dir);
  if (rc || (!out->site && !extension)) {
    cl_python_load_free(out);
    return rc;
  }
  *is = 1;
  /* NULL: an interpreter nothing tells, whose folder the model leaves as
   * the process has it. */
  if (out->site)
    out->home = cl_python_home_of_site(out->site);
  if (out->package_dir) {
    out->package = cl_strdup(cl_path_basename(out->package_dir));
    if (!out->package) {
      cl_python_load_free(out);
      *is = 0;
      return CUDALOAD_E_NO_MEMORY;
    }
    /* Its version lists the site folder: only for a package a row names.
     * The dist-info lies in the site folder, however deep the file is
     * (torch\lib\torch_cuda.dll). */
    char version[32];
    if (cl_consumer_has_windows_init(out->package) && out->site &&
        cl_consumer_version_from_site(out->site, out->package, version,
                                      sizeof version))
      out->init = cl_consumer_windows_init_of(out->package, version);
    if (out->init)
      out->init_dir =
          out->init->dll_folder
              ? cl_path_join(out->package_dir, out->init->dll_folder)
              : cl_strdup(out->package_dir);
    if (out->init && !out->init_dir) {
      cl_python_load_free(out);
      *is = 0;
      return CUDALOAD_E_NO_MEMORY;
    }
  }
  return CUDALOAD_OK;
}

static int is_dll(const char *name, const void *arg) {
  (void)arg;
  return ends_nocase(name, ".dll");
}

/* NTFS keeps a folder's names in the order of their upper-case forms. */
static int upper_order(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  for (;; ++x, ++y) {
    char cx = *x >= 'a' && *x <= 'z' ? (char)(*x - 'a' + 'A') : *x;
    char cy = *y >= 'a' && *y <= 'z' ? (char)(*y - 'a' + 'A') : *y;
    if (cx != cy || !cx)
      return (unsigned char)cx - (unsigned char)cy;
  }
}

int cl_python_folder_dlls(const char *folder, char ***paths, size_t *count) {
  *paths = NULL;
  *count = 0;
  cl_name_list list = {0};
  int rc = cl_name_list_read(folder, is_dll, NULL, upper_order, &list);
  char **out = !rc && list.count ? calloc(list.count, sizeof *out) : NULL;
  if (!rc && list.count && !out)
    rc = CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; !rc && i < list.count; ++i) {
    char *full = cl_path_join(folder, list.names[i]);
    if (!full)
      rc = CUDALOAD_E_NO_MEMORY;
    else if (is_file(full))
      out[(*count)++] = full;
    else
      free(full); /* a folder named *.dll is no DLL */
  }
  cl_name_list_free(&list);
  if (rc) {
    for (size_t i = 0; i < *count; ++i)
      free(out[i]);
    free(out);
    *count = 0;
    return rc;
  }
  *paths = out;
  return CUDALOAD_OK;
}

int cl_python_prepare_model(cl_loader_model *m, const cl_python_load *py,
                            char ***dlls, size_t *count) {
  *dlls = NULL;
  *count = 0;
  int rc = py->home ? cl_loader_model_set(&m->app_dir, py->home) : CUDALOAD_OK;
  if (rc || !py->init || !py->init_dir || !py->init->adds_own_folder)
    return rc;
  /* The package's folder among the AddDllDirectory folders: its __init__
   * has run in this process. */
  for (size_t i = 0; i < m->user_dir_count; ++i)
    if (cl_ascii_equal_nocase(m->user_dirs[i], py->init_dir))
      return CUDALOAD_OK;
  rc = cl_loader_model_append(&m->user_dirs, &m->user_dir_count, py->init_dir);
  if (!rc && py->init->loads_own_dlls)
    rc = cl_python_folder_dlls(py->init_dir, dlls, count);
  return rc;
}

int cl_python_loaded_by_init(const char *path) {
  cl_python_load py;
  int is = 0;
  if (cl_python_load_of(path, &py, &is) != CUDALOAD_OK || !is)
    return 0;
  char *folder = cl_path_dirname(path);
  int loaded = py.init && py.init->loads_own_dlls && py.init_dir && folder &&
               cl_ascii_equal_nocase(folder, py.init_dir);
  free(folder);
  cl_python_load_free(&py);
  return loaded;
}
