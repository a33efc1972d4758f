/* SPDX-License-Identifier: MIT */
/*
 * python_pth.c - the import path a ._pth file gives an embeddable CPython
 * (python_pth.h).
 */
#include "scan/python_pth.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"

#include <stdlib.h>
#include <string.h>

/* A ._pth file is a few lines; a larger one is not the distribution's. */
#define CL_PTH_MAX_BYTES (64 * 1024)

static int is_pth(const char *name, const void *arg) {
  (void)arg;
  size_t n = strlen(name);
  return n > 5 && cl_ascii_equal_nocase(name + n - 5, "._pth");
}

/* The ._pth file beside program: "<stem>._pth" first (python._pth), else
 * that of the interpreter's DLL (python3X._pth: named like a python3X.dll
 * beside it). Malloc'ed path, or NULL. */
static char *pth_file_of(const char *program) {
  char *folder = cl_path_dirname(program);
  if (!folder)
    return NULL;
  const char *base = cl_path_basename(program);
  const char *dot = strrchr(base, '.');
  char *stem = dot ? cl_strndup(base, (size_t)(dot - base)) : cl_strdup(base);
  char *mine = stem ? cl_strdup_printf("%s._pth", stem) : NULL;
  char *found = NULL;
  cl_name_list list = {0};
  char *kept = cl_save_error(); /* an unreadable folder: no ._pth */
  cl_name_list_read(folder, is_pth, NULL, NULL, &list);
  cl_restore_error(kept);
  for (int pass = 0; pass < 2 && !found && mine; ++pass)
    for (size_t i = 0; i < list.count && !found; ++i) {
      const char *name = list.names[i];
      int wanted = pass == 0 ? cl_ascii_equal_nocase(name, mine) : 0;
      if (pass == 1 && cl_starts_with_nocase(name, "python3")) {
        /* python3X._pth goes with python3X.dll beside it. */
        char *dll = cl_strndup(name, strlen(name) - 5);
        char *dll_name = dll ? cl_strdup_printf("%s.dll", dll) : NULL;
        char *dll_path = dll_name ? cl_path_join(folder, dll_name) : NULL;
        wanted = dll_path && cl_os_stat_kind(dll_path, NULL) == CL_KIND_REGULAR;
        free(dll_path);
        free(dll_name);
        free(dll);
      }
      if (wanted)
        found = cl_path_join(folder, name);
    }
  cl_name_list_free(&list);
  free(mine);
  free(stem);
  free(folder);
  return found;
}

static int is_distinfo(const char *name, const void *arg) {
  (void)arg;
  size_t n = strlen(name);
  return n > 10 && strcmp(name + n - 10, ".dist-info") == 0;
}

static int holds_distributions(const char *folder) {
  cl_name_list list = {0};
  char *kept = cl_save_error(); /* an unreadable folder holds none */
  cl_name_list_read(folder, is_distinfo, NULL, NULL, &list);
  cl_restore_error(kept);
  int yes = list.count > 0;
  cl_name_list_free(&list);
  return yes;
}

/* Visit folder unless it was visited already (seen: a list of visited
 * paths, grown here). */
static void visit_once(const char *folder, const char *origin,
                       cl_root_visitor visit, void *opaque, char ***seen,
                       size_t *count, size_t *capacity) {
  for (size_t i = 0; i < *count; ++i)
    if (cl_ascii_equal_nocase((*seen)[i], folder))
      return;
  char *copy = cl_strdup(folder);
  if (!copy || cl_reserve((void **)seen, capacity, *count + 1, sizeof **seen)) {
    free(copy);
    return; /* out of memory: visited, not remembered */
  }
  (*seen)[(*count)++] = copy;
  visit(folder, origin, opaque);
}

int cl_python_pth_roots(const char *program, const char *origin,
                        cl_root_visitor visit, void *opaque) {
  char *pth = pth_file_of(program);
  char *text = NULL;
  size_t len = 0;
  char *kept = cl_save_error();
  int unread =
      !pth || cl_read_file_head(pth, CL_PTH_MAX_BYTES, &text, &len) != 0;
  cl_restore_error(kept);
  char *prefix = pth ? cl_path_dirname(pth) : NULL;
  if (unread || !prefix) {
    free(text);
    free(prefix);
    free(pth);
    return 0;
  }
  char **seen = NULL;
  size_t count = 0, capacity = 0;
  int site = 0;
  for (char *line = text; line && *line;) {
    char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    while (n && (line[n - 1] == '\r' || cl_ascii_is_space(line[n - 1])))
      --n;
    char *entry = cl_strndup(line, n);
    /* A UTF-8 file may start with a byte order mark. */
    const char *e = entry;
    if (e && line == text && !strncmp(e, "\xef\xbb\xbf", 3))
      e += 3;
    if (e && !strncmp(e, "import ", 7)) {
      site |= strcmp(e, "import site") == 0; /* then site runs */
    } else if (e && e[0] && e[0] != '#') {
      char *folder =
          cl_os_path_is_absolute(e) ? cl_strdup(e) : cl_path_join(prefix, e);
      if (folder && cl_os_stat_kind(folder, NULL) == CL_KIND_DIRECTORY &&
          holds_distributions(folder))
        visit_once(folder, origin, visit, opaque, &seen, &count, &capacity);
      free(folder);
    }
    free(entry);
    line = end ? end + 1 : NULL;
  }
  if (site) {
    /* site.getsitepackages() on Windows: the prefix and its
     * Lib\site-packages; the prefix holds the interpreter, not
     * distributions. */
    char *packages = cl_path_join(prefix, "Lib/site-packages");
    if (packages && cl_os_stat_kind(packages, NULL) == CL_KIND_DIRECTORY)
      visit_once(packages, origin, visit, opaque, &seen, &count, &capacity);
    free(packages);
  }
  for (size_t i = 0; i < count; ++i)
    free(seen[i]);
  free(seen);
  free(text);
  free(prefix);
  free(pth);
  return 1;
}
