/* SPDX-License-Identifier: MIT */
/*
 * environment.c - the active environment's folders: what the user activated
 * (VIRTUAL_ENV, CONDA_PREFIX), then the Python a command line would run
 * (the first python3 on PATH; Windows: python.exe). They form the
 * environment tier, which wins over the variables, the toolkits and the
 * system (docs/scan-contract.md, "Precedence").
 *
 * The interpreter is never run (a scan starts no process): its folders are
 * read from where it lies. A venv's interpreter has pyvenv.cfg one folder
 * up; another's site folders follow from its real file name (python3.11)
 * and prefix. Only that interpreter's folders are searched, never another
 * installed Python's: its wheels are not what the user runs.
 */
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"
#include "scan/import_path.h"
#include "scan/python_pth.h"
#include "scan/roots.h"
#include "common/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void visit_variable(const char *name, cl_root_visitor visit,
                           void *opaque) {
  char *value = cl_os_getenv(name);
  /* A relative value would make the result depend on the current folder:
   * never search it. */
  if (value && *value && cl_os_path_is_absolute(value))
    visit(value, name, opaque);
  free(value);
}

static int is_kind(const char *folder, const char *relative,
                   cl_file_kind kind) {
  char *path = cl_path_join(folder, relative);
  int yes = path && cl_os_stat_kind(path, NULL) == kind;
  free(path);
  return yes;
}

static void visit_folder_if_present(const char *folder, const char *relative,
                                    cl_root_visitor visit, void *opaque) {
  char *path = cl_path_join(folder, relative);
  if (path && cl_os_stat_kind(path, NULL) == CL_KIND_DIRECTORY)
    visit(path, CL_ORIGIN_PYTHON_ON_PATH, opaque);
  free(path);
}

/* "3.11" from "python3.11" (the interpreter's real file name); "" when the
 * name carries no minor version (a wrapper script, "python3" itself). */
static void python_version_of(const char *name, char *out, size_t size) {
  out[0] = '\0';
  if (strncmp(name, "python3.", 8) != 0)
    return;
  const char *minor = name + 8;
  size_t digits = strspn(minor, "0123456789");
  if (digits == 0 || digits > 3 || minor[digits] != '\0')
    return;
  snprintf(out, size, "3.%s", minor);
}

/* The folders the interpreter imports from beyond its prefix's and its
 * venv's own, as site.py adds them (import_path.c): PYTHONPATH's, the
 * user site (PYTHONUSERBASE, else ~/.local; none with PYTHONNOUSERSITE or
 * in a venv that does not include the system's) and, for a venv with
 * include-system-site-packages = true, its base interpreter's. What pip
 * install --user, --target with PYTHONPATH, or a base image's Python put
 * there is found without --for, and exec's plan searches it too. */
static void imported_folders(const char *program, cl_root_visitor visit,
                             void *opaque) {
  cl_import_path path;
  cl_import_path_of_interpreter(program, &path);
  for (size_t i = 0; i < path.count; ++i) {
    const char *origin = path.folders[i].origin;
    if (!strcmp(origin, CL_IMPORT_PYTHONPATH) ||
        !strcmp(origin, CL_IMPORT_USER_SITE) ||
        !strcmp(origin, CL_IMPORT_BASE_SITE))
      visit(path.folders[i].path, CL_ORIGIN_PYTHON_ON_PATH, opaque);
  }
  cl_import_path_free(&path);
}

/* The folders of the interpreter whose file is `program`, found in the
 * PATH entry `bin`. */
static void interpreter_folders(const char *bin, const char *program,
                                cl_root_visitor visit, void *opaque) {
  char *parent = cl_path_dirname(bin);
  if (!parent)
    return;
  /* A venv: its root holds pyvenv.cfg and finds its own site-packages
   * (lib/python3.X/site-packages, Lib/site-packages) as any venv root. */
  if (is_kind(parent, "pyvenv.cfg", CL_KIND_REGULAR)) {
    visit(parent, CL_ORIGIN_PYTHON_ON_PATH, opaque);
    free(parent);
    if (cl_os_host_target() != CUDALOAD_TARGET_WINDOWS)
      imported_folders(program, visit, opaque);
    return;
  }
  free(parent);
  if (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS) {
    /* The embeddable distribution: its ._pth file is its whole import
     * path (python_pth.h). */
    if (cl_python_pth_roots(program, CL_ORIGIN_PYTHON_ON_PATH, visit, opaque))
      return;
    /* A Windows installation or conda: python.exe in the prefix itself. */
    if (is_kind(bin, "conda-meta", CL_KIND_DIRECTORY))
      visit(bin, CL_ORIGIN_PYTHON_ON_PATH, opaque);
    else
      visit_folder_if_present(bin, "Lib/site-packages", visit, opaque);
    return;
  }
  /* An interpreter whose real file cannot be found has no site folders to
   * give, an answer (no error is written). */
  char *real = cl_os_real_path_quiet(program, NULL);
  char *real_bin = real ? cl_path_dirname(real) : NULL;
  char *prefix = real_bin ? cl_path_dirname(real_bin) : NULL;
  char version[16];
  python_version_of(real ? cl_path_basename(real) : "", version,
                    sizeof version);
  if (prefix && is_kind(prefix, "conda-meta", CL_KIND_DIRECTORY)) {
    /* A conda prefix: its lib/ holds conda's CUDA packages too. */
    visit(prefix, CL_ORIGIN_PYTHON_ON_PATH, opaque);
  } else if (prefix && version[0]) {
    char relative[64];
    snprintf(relative, sizeof relative, "lib/python%s/site-packages", version);
    visit_folder_if_present(prefix, relative, visit, opaque);
    /* Debian's: pip as root installs into /usr/local/lib/python3.X/
     * dist-packages, apt into /usr/lib/python3/dist-packages. */
    snprintf(relative, sizeof relative, "local/lib/python%s/dist-packages",
             version);
    visit_folder_if_present(prefix, relative, visit, opaque);
    visit_folder_if_present(prefix, "lib/python3/dist-packages", visit, opaque);
  }
  if (prefix && !is_kind(prefix, "conda-meta", CL_KIND_DIRECTORY))
    imported_folders(program, visit, opaque);
  free(prefix);
  free(real_bin);
  free(real);
}

char *cl_python_on_path(void) {
  char *path = cl_os_getenv("PATH");
  char *found = NULL;
  for (char *entry = path; entry && *entry && !found;) {
    char *end = strchr(entry, CL_LIST_SEP);
    if (end)
      *end = '\0';
    /* Relative entries depend on the current folder: never searched. */
    if (*entry && cl_os_path_is_absolute(entry)) {
      char *program = cl_path_join(entry, cl_os_python_name());
      uint64_t size = 0;
      /* The Windows Store's alias is an empty reparse point, not Python. */
      if (program && cl_os_stat_kind(program, &size) == CL_KIND_REGULAR &&
          size > 0)
        found = program;
      else
        free(program);
    }
    entry = end ? end + 1 : NULL;
  }
  free(path);
  return found;
}

/* The first PATH entry holding the interpreter, as a shell would take it. */
static void python_on_path(cl_root_visitor visit, void *opaque) {
  char *program = cl_python_on_path();
  char *bin = program ? cl_path_dirname(program) : NULL;
  if (bin)
    interpreter_folders(bin, program, visit, opaque);
  free(bin);
  free(program);
}

void cl_interpreter_roots(const char *program, cl_root_visitor visit,
                          void *opaque) {
  char *bin = cl_path_dirname(program);
  if (bin)
    interpreter_folders(bin, program, visit, opaque);
  free(bin);
}

/* A venv (pyvenv.cfg) or a conda environment (conda-meta/) at folder. */
static int is_environment(const char *folder) {
  return is_kind(folder, "pyvenv.cfg", CL_KIND_REGULAR) ||
         is_kind(folder, "conda-meta", CL_KIND_DIRECTORY);
}

void cl_nearby_environments(cl_root_visitor visit, void *opaque) {
  /* The names uv, Poetry, virtualenv and `conda create -p` use; a fixed
   * list, so the current folder is never listed (it may be /tmp). */
  static const char *const names[] = {".venv", "venv", ".env", "env", ".conda"};
  char *cwd = cl_os_current_dir();
  if (!cwd)
    return;
  if (is_environment(cwd))
    visit(cwd, CL_ORIGIN_NEARBY, opaque);
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    char *path = cl_path_join(cwd, names[i]);
    if (path && is_environment(path))
      visit(path, CL_ORIGIN_NEARBY, opaque);
    free(path);
  }
  free(cwd);
}

void cl_environment_roots(cl_root_visitor visit, void *opaque) {
  visit_variable("VIRTUAL_ENV", visit, opaque);
  visit_variable("CONDA_PREFIX", visit, opaque);
  python_on_path(visit, opaque);
}

/* The interpreter in an environment's prefix, or NULL. */
static char *prefix_interpreter(const char *prefix) {
  static const char *const linux_names[] = {"bin/python3", "bin/python"};
  static const char *const windows_names[] = {"Scripts/python.exe",
                                              "python.exe"};
  int windows = cl_os_host_target() == CUDALOAD_TARGET_WINDOWS;
  const char *const *names = windows ? windows_names : linux_names;
  for (size_t i = 0; i < 2; ++i) {
    char *path = cl_path_join(prefix, names[i]);
    if (windows && path)
      for (char *p = path; *p; ++p)
        if (*p == '/')
          *p = CL_DIR_SEP;
    if (path && cl_os_stat_kind(path, NULL) == CL_KIND_REGULAR)
      return path;
    free(path);
  }
  return NULL;
}

/* The prefix a site-packages folder lies in: lib/python3.X/site-packages
 * (Lib/site-packages on Windows) under it; NULL when it is no such folder. */
static char *prefix_of_site(const char *folder) {
  if (strcmp(cl_path_basename(folder), "site-packages") != 0 &&
      strcmp(cl_path_basename(folder), "dist-packages") != 0)
    return NULL;
  char *up = cl_path_dirname(folder); /* lib/python3.X, or Lib */
  char *prefix = up ? cl_path_dirname(up) : NULL;
  if (prefix && strncmp(cl_path_basename(up), "python", 6) == 0) {
    char *lib = prefix;
    prefix = cl_path_dirname(lib); /* past lib/ */
    free(lib);
  }
  free(up);
  return prefix;
}

char *cl_environment_interpreter(const char *folder) {
  char *found = NULL;
  if (folder) {
    found = prefix_interpreter(folder);
    char *prefix = found ? NULL : prefix_of_site(folder);
    if (prefix)
      found = prefix_interpreter(prefix);
    free(prefix);
  } else {
    static const char *const variables[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
    for (size_t i = 0; i < 2 && !found; ++i) {
      char *value = cl_os_getenv(variables[i]);
      if (value && *value && cl_os_path_is_absolute(value))
        found = prefix_interpreter(value);
      free(value);
    }
    if (!found)
      found = cl_python_on_path();
  }
  return found;
}
