/* SPDX-License-Identifier: MIT */
/*
 * process_posix.c - the libraries another process has mapped (loader.h,
 * cl_os_loader_process_modules), from Linux's /proc/PID/maps. Reading it
 * needs the same rights as attaching a debugger (PTRACE_MODE_READ): the
 * caller's own processes, or root's.
 */
#include "cudaload.h"
#include "common/error.h"
#include "os/loader.h"
#include "common/strutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file of one maps line ("addr perms offset dev inode   path"), or
 * NULL for anonymous memory, [heap], [vdso] and the like. A file deleted
 * since it was mapped ends in " (deleted)": its old name is kept. */
static char *mapped_file(char *line) {
  line[strcspn(line, "\n")] = '\0';
  char *p = line;
  for (int field = 0; field < 5; ++field) {
    p += strcspn(p, " ");
    p += strspn(p, " ");
  }
  if (*p != '/')
    return NULL;
  static const char deleted[] = " (deleted)";
  size_t len = strlen(p);
  if (len > sizeof deleted - 1 &&
      strcmp(p + len - (sizeof deleted - 1), deleted) == 0)
    p[len - (sizeof deleted - 1)] = '\0';
  return p;
}

int cl_os_loader_process_modules(long pid, cl_module_visitor visit,
                                 void *opaque) {
  char maps[64];
  snprintf(maps, sizeof maps, "/proc/%ld/maps", pid);
  FILE *f = fopen(maps, "re");
  if (!f) {
    int err = errno;
    if (err == ENOENT)
      return cl_fail(CUDALOAD_E_NOT_FOUND,
                     "process %ld: no such process (or no /proc on this "
                     "system)",
                     pid);
    return cl_fail_os(err == EACCES || err == EPERM ? CUDALOAD_E_IO
                                                    : CUDALOAD_E_IO,
                      (unsigned long)err,
                      "process %ld: cannot read its libraries (%s; a "
                      "process of another user needs that user or root)",
                      pid, maps);
  }
  /* Each file is mapped several times (text, data, relro): report it once,
   * in the order it first appears, which is load order. */
  char **seen = NULL;
  size_t count = 0, capacity = 0;
  char line[8192];
  int status = CUDALOAD_OK;
  while (fgets(line, sizeof line, f)) {
    char *file = mapped_file(line);
    if (!file)
      continue;
    int known = 0;
    for (size_t i = 0; i < count && !known; ++i)
      known = strcmp(seen[i], file) == 0;
    if (known)
      continue;
    if (cl_reserve((void **)&seen, &capacity, count + 1, sizeof *seen) ||
        !(seen[count] = cl_strdup(file))) {
      status = cl_fail(CUDALOAD_E_NO_MEMORY, "process %ld: out of memory", pid);
      break;
    }
    count++;
  }
  int read_error = ferror(f);
  fclose(f);
  if (!status && read_error)
    status =
        cl_fail(CUDALOAD_E_IO, "process %ld: %s could not be read", pid, maps);
  for (size_t i = 0; i < count; ++i) {
    if (!status)
      visit(seen[i], opaque);
    free(seen[i]);
  }
  free(seen);
  return status;
}
