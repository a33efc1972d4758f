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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ._pth file is a few lines; a larger one is not the distribution's. */
#define CL_PTH_MAX_BYTES (64 * 1024)

static int is_pth(const char *name, const void *arg) {
  (void)arg;
  size_t n = strlen(name);
  return n > 5 && cl_ascii_equal_nocase(name + n - 5, "._pth");
}

/* Whether name is "python3<digits>._pth" (the interpreter's DLL's own,
 * python312._pth); its version ("3.12") into version when so. */
static int dll_pth_name(const char *name, char *version, size_t size) {
  size_t n = strlen(name);
  if (n < 13 || !cl_starts_with_nocase(name, "python3") ||
      !cl_ascii_equal_nocase(name + n - 5, "._pth"))
    return 0;
  const char *minor = name + 7;
  size_t digits = strspn(minor, "0123456789");
  if (digits == 0 || digits > 3 || minor + digits != name + n - 5)
    return 0;
  snprintf(version, size, "3.%.*s", (int)digits, minor);
  return 1;
}

/* The ._pth file that governs program, as getpath looks (library first):
 * python3X._pth where python3X.dll lies beside it (the DLL python.exe
 * loads), else "<stem>._pth" (python._pth). Malloc'ed path and the
 * version the name tells, or NULL. */
static char *pth_file_of(const char *program, char *version, size_t size) {
  char *folder = cl_path_dirname(program);
  if (!folder)
    return NULL;
  const char *base = cl_path_basename(program);
  const char *dot = strrchr(base, '.');
  char *stem = dot ? cl_strndup(base, (size_t)(dot - base)) : cl_strdup(base);
  char *mine = stem ? cl_strdup_printf("%s._pth", stem) : NULL;
  char *found = NULL;
  cl_name_list list = {0};
  /* an unreadable folder: no ._pth */
  cl_name_list_read(folder, is_pth, NULL, NULL, &list);
  for (int pass = 0; pass < 2 && !found && mine; ++pass)
    for (size_t i = 0; i < list.count && !found; ++i) {
      const char *name = list.names[i];
      char told[16] = "";
      int wanted = 0;
      if (pass == 0 && dll_pth_name(name, told, sizeof told)) {
        /* python3X._pth goes with python3X.dll beside it. */
        char *dll = cl_strndup(name, strlen(name) - 5);
        char *dll_name = dll ? cl_strdup_printf("%s.dll", dll) : NULL;
        char *dll_path = dll_name ? cl_path_join(folder, dll_name) : NULL;
        wanted = dll_path && cl_os_stat_kind(dll_path, NULL) == CL_KIND_REGULAR;
        free(dll_path);
        free(dll_name);
        free(dll);
      } else if (pass == 1) {
        wanted = cl_ascii_equal_nocase(name, mine);
        dll_pth_name(name, told, sizeof told);
      }
      if (wanted && (found = cl_path_join(folder, name)) != NULL)
        snprintf(version, size, "%s", told);
    }
  cl_name_list_free(&list);
  free(mine);
  free(stem);
  free(folder);
  return found;
}

void cl_python_pth_free(cl_python_pth *pth) {
  for (size_t i = 0; i < pth->count; ++i)
    free(pth->folders[i]);
  free(pth->folders);
  free(pth->file);
  free(pth->prefix);
  memset(pth, 0, sizeof *pth);
}

/* One line of the file, as getpath takes it: up to its first '#',
 * stripped. */
static int read_line(cl_python_pth *out, const char *line, size_t n,
                     size_t *capacity) {
  const char *hash = memchr(line, '#', n);
  if (hash)
    n = (size_t)(hash - line);
  while (n && cl_ascii_is_space(*line)) {
    ++line;
    --n;
  }
  while (n && cl_ascii_is_space(line[n - 1]))
    --n;
  if (!n || memchr(line, '\0', n))
    return 0;
  if (n == 11 && !memcmp(line, "import site", 11)) {
    out->site = 1;
    return 0;
  }
  if (n >= 7 && !memcmp(line, "import ", 7))
    return 0; /* CPython warns and ignores it */
  char *entry = cl_strndup(line, n);
  char *folder = !entry ? NULL
                 : cl_os_path_is_absolute(entry)
                     ? cl_strdup(entry)
                     : cl_path_join(out->prefix, entry);
  free(entry);
  if (!folder || cl_reserve((void **)&out->folders, capacity, out->count + 1,
                            sizeof *out->folders)) {
    free(folder);
    return -1;
  }
  out->folders[out->count++] = folder;
  return 0;
}

int cl_python_pth_read(const char *program, cl_python_pth *out) {
  memset(out, 0, sizeof *out);
  out->file = pth_file_of(program, out->version, sizeof out->version);
  char *text = NULL;
  size_t len = 0;
  int unread = !out->file || cl_read_file_head_quiet(
                                 out->file, CL_PTH_MAX_BYTES, &text, &len) != 0;
  out->prefix = unread ? NULL : cl_path_dirname(out->file);
  if (unread || !out->prefix) {
    free(text);
    cl_python_pth_free(out);
    return 0;
  }
  const char *s = text, *end = text + len;
  /* A UTF-8 file may start with a byte order mark. */
  if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
    s += 3;
  size_t capacity = 0;
  int rc = 0;
  while (s < end && !rc) {
    const char *eol = memchr(s, '\n', (size_t)(end - s));
    const char *stop = eol ? eol : end;
    rc = read_line(out, s, (size_t)(stop - s), &capacity);
    s = eol ? eol + 1 : end;
  }
  free(text);
  if (rc) {
    cl_python_pth_free(out);
    return -1;
  }
  return 1;
}

static int is_distinfo(const char *name, const void *arg) {
  (void)arg;
  size_t n = strlen(name);
  return n > 10 && strcmp(name + n - 10, ".dist-info") == 0;
}

static int holds_distributions(const char *folder) {
  cl_name_list list = {0};
  /* an unreadable folder holds none */
  cl_name_list_read(folder, is_distinfo, NULL, NULL, &list);
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
  cl_python_pth pth;
  int rc = cl_python_pth_read(program, &pth);
  if (rc <= 0)
    return 0;
  char **seen = NULL;
  size_t count = 0, capacity = 0;
  for (size_t i = 0; i < pth.count; ++i)
    if (cl_os_stat_kind(pth.folders[i], NULL) == CL_KIND_DIRECTORY &&
        holds_distributions(pth.folders[i]))
      visit_once(pth.folders[i], origin, visit, opaque, &seen, &count,
                 &capacity);
  if (pth.site) {
    /* site.getsitepackages() on Windows: the prefix and its
     * Lib\site-packages; the prefix holds the interpreter, not
     * distributions. */
    char *packages = cl_path_join(pth.prefix, "Lib/site-packages");
    if (packages && cl_os_stat_kind(packages, NULL) == CL_KIND_DIRECTORY)
      visit_once(packages, origin, visit, opaque, &seen, &count, &capacity);
    free(packages);
  }
  for (size_t i = 0; i < count; ++i)
    free(seen[i]);
  free(seen);
  cl_python_pth_free(&pth);
  return 1;
}
