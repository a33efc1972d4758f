/* SPDX-License-Identifier: MIT */
/*
 * process_posix.c - the files another process has mapped (loader.h,
 * cl_os_loader_process_modules), from Linux's /proc/PID/maps. Reading it
 * needs the same rights as attaching a debugger (PTRACE_MODE_READ): the
 * caller's own processes, or root's.
 *
 * A maps line gives the name the file had when it was mapped, and its
 * device and inode. The name may lead elsewhere now: to a new file that
 * replaced it (a pip upgrade), to the host's file of that name when the
 * process lives in a container, to another file when a name held a
 * newline (written \012, and a real "\012" is not escaped) or ended in
 * " (deleted)". So each file is reached through a path whose device and
 * inode are checked against the line: the name here, the name in the
 * process's own root (/proc/PID/root), or the mapping itself
 * (/proc/PID/map_files, root only). Paths are stat'ed, never opened: a
 * mapped device (/dev/nvidiactl) must not be opened by an explain.
 */
#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "os/loader.h"
#include "posix/proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif
#include <unistd.h>

/* What one read of maps collects: each file once, in first-mapped order. */
typedef struct maps_files {
  cl_maps_entry *files;
  size_t count, capacity;
  cl_str_index seen; /* keys: device, inode and name (keys[]) */
  char **keys;
  size_t key_capacity;
  int failed; /* out of memory */
} maps_files;

static int collect(cl_maps_entry *entry, void *opaque) {
  maps_files *m = opaque;
  if (!entry->path)
    return 0; /* not a file's memory */
  /* A file is mapped several times (text, data, relro): once per device,
   * inode and name, found through the index (a linear search made 14,000
   * mapped files take 13.5 s). */
  char *key = cl_strdup_printf("%lx:%lx:%" PRIu64 ":%d:%s", entry->dev_major,
                               entry->dev_minor, entry->inode,
                               entry->deleted_mark, entry->path);
  if (key && cl_str_index_find(&m->seen, key, NULL)) {
    free(key);
    cl_maps_entry_free(entry);
    return 0;
  }
  if (!key ||
      cl_reserve((void **)&m->files, &m->capacity, m->count + 1,
                 sizeof *m->files) ||
      cl_reserve((void **)&m->keys, &m->key_capacity, m->count + 1,
                 sizeof *m->keys) ||
      cl_str_index_add(&m->seen, key, m->count)) {
    free(key);
    cl_maps_entry_free(entry);
    m->failed = 1;
    return 1;
  }
  m->keys[m->count] = key;
  m->files[m->count++] = *entry;
  return 0;
}

static void maps_files_free(maps_files *m) {
  cl_str_index_free(&m->seen);
  for (size_t i = 0; i < m->count; ++i) {
    cl_maps_entry_free(&m->files[i]);
    free(m->keys[i]);
  }
  free(m->files);
  free(m->keys);
}

/* Read maps whole lines at a time, whatever their length: a chunk is
 * parsed up to its last newline, the rest kept for the next. */
static int read_maps(long pid, int fd, maps_files *m) {
  cl_buf pending = CL_BUF_INIT;
  char chunk[65536];
  int rc = CUDALOAD_OK;
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      rc =
          cl_fail_os(CUDALOAD_E_IO, (unsigned long)err,
                     "process %ld: /proc/%ld/maps could not be read", pid, pid);
      break;
    }
    if (n == 0) {
      if (pending.failed)
        m->failed = 1;
      else if (pending.len)
        rc = cl_maps_parse(pending.data, pending.len, collect, m);
      break;
    }
    const char *last = NULL;
    for (ssize_t i = n; i > 0; --i)
      if (chunk[i - 1] == '\n') {
        last = chunk + i;
        break;
      }
    cl_buf_append(&pending, chunk, last ? (size_t)(last - chunk) : (size_t)n);
    if (pending.failed) {
      m->failed = 1;
      break;
    }
    if (last) {
      rc = cl_maps_parse(pending.data, pending.len, collect, m);
      cl_buf_free(&pending);
      cl_buf_append(&pending, last, (size_t)(chunk + n - last));
    }
    if (rc || m->failed)
      break;
  }
  cl_buf_free(&pending);
  if (!rc && m->failed)
    rc = cl_fail(CUDALOAD_E_NO_MEMORY, "process %ld: out of memory", pid);
  else if (rc == CUDALOAD_E_MALFORMED) {
    char why[512];
    snprintf(why, sizeof why, "%s", cudaload_last_error());
    rc = cl_fail(rc, "process %ld: /proc/%ld/maps: %s", pid, pid, why);
  }
  return rc;
}

/* stat() of a path of any length: one longer than PATH_MAX (a maps line
 * may hold one) is walked a piece at a time, each piece opened O_PATH
 * (which opens nothing) relative to the folder before it. */
static int stat_any_length(const char *path, struct stat *st) {
  size_t len = strlen(path);
  if (len < PATH_MAX)
    return stat(path, st);
#if defined(__linux__) && defined(O_PATH)
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char *p = path;
  while (dir >= 0) {
    while (*p == '/')
      ++p;
    const char *last = strrchr(p, '/');
    if (!last || (size_t)(last - p) < PATH_MAX / 2) {
      /* the rest fits in one call */
      int rc = strlen(p) < PATH_MAX ? fstatat(dir, p, st, 0) : -1;
      close(dir);
      return rc;
    }
    /* the longest run of whole components below half of PATH_MAX */
    const char *cut = p;
    for (const char *q = p; *q && (size_t)(q - p) < PATH_MAX / 2; ++q)
      if (*q == '/')
        cut = q;
    if (cut == p) { /* one component longer than that: not a path */
      close(dir);
      return -1;
    }
    char piece[PATH_MAX];
    memcpy(piece, p, (size_t)(cut - p));
    piece[cut - p] = '\0';
    int next = openat(dir, piece, O_PATH | O_DIRECTORY | O_CLOEXEC);
    close(dir);
    dir = next;
    p = cut;
  }
  return -1;
#else
  errno = ENAMETOOLONG;
  return -1;
#endif
}

/* Whether path leads to the entry's file (stat, never open), a regular
 * file: *regular says which, when it does. */
static int leads_to(const char *path, const cl_maps_entry *e, int *regular) {
  struct stat st;
  if (stat_any_length(path, &st) != 0 || st.st_ino != e->inode)
    return 0;
#if defined(__linux__)
  if (major(st.st_dev) != e->dev_major || minor(st.st_dev) != e->dev_minor)
    return 0;
#endif
  *regular = S_ISREG(st.st_mode) != 0;
  return 1;
}

/* Visit one mapped file, reached through a checked path when one leads to
 * it. Mapped devices (/dev/zero, /dev/nvidiactl) are not visited. */
static int visit_file(long pid, cl_maps_entry *e, cl_mapped_file_wanted wanted,
                      cl_mapped_file_visitor visit, void *opaque) {
  /* The names to try, here then in the process's root: with the kernel's
   * " (deleted)" mark, first the name as written, in case it really ends
   * so; then the name without it. */
  char *names[2] = {NULL, e->path};
  char *paths[5] = {NULL};
  int status = CUDALOAD_OK;
  if (e->deleted_mark &&
      !(names[0] = cl_strdup_printf("%s (deleted)", e->path)))
    return CUDALOAD_E_NO_MEMORY;
  if (wanted && !wanted(e->path, opaque) &&
      !(names[0] && wanted(names[0], opaque))) {
    free(names[0]);
    return CUDALOAD_OK;
  }
  cl_mapped_file f = {e->path, NULL, CL_REACHED_NOT, e->deleted_mark};
  int regular = 1;
  for (int where = 0; where < 2 && !f.access && !status; ++where)
    for (int k = 0; k < 2 && !f.access && !status; ++k) {
      if (!names[k])
        continue;
      char *path = where == 0
                       ? cl_strdup(names[k])
                       : cl_strdup_printf("/proc/%ld/root%s", pid, names[k]);
      if (!path) {
        status = CUDALOAD_E_NO_MEMORY;
        break;
      }
      paths[where * 2 + k] = path;
      if (leads_to(path, e, &regular)) {
        f.path = names[k];
        f.access = path;
        f.reach = where == 0 ? CL_REACHED_HERE : CL_REACHED_IN_ROOT;
        f.deleted = 0; /* the name leads to it: not the kernel's mark */
      }
    }
  /* The mapping itself: a deleted file, or one whose name leads elsewhere
   * everywhere (following it needs root). */
  if (!f.access && !status) {
    paths[4] = cl_strdup_printf("/proc/%ld/map_files/%" PRIx64 "-%" PRIx64, pid,
                                e->start, e->end);
    if (!paths[4])
      status = CUDALOAD_E_NO_MEMORY;
    else if (leads_to(paths[4], e, &regular)) {
      f.access = paths[4];
      f.reach = CL_REACHED_MAPPING;
    }
  }
  if (!status && regular)
    visit(&f, opaque);
  for (size_t i = 0; i < 5; ++i)
    free(paths[i]);
  free(names[0]);
  return status;
}

int cl_os_loader_process_modules(long pid, cl_mapped_file_wanted wanted,
                                 cl_mapped_file_visitor visit, void *opaque) {
  char maps[64];
  snprintf(maps, sizeof maps, "/proc/%ld/maps", pid);
  int fd = open(maps, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT)
      return cl_fail(CUDALOAD_E_NOT_FOUND,
                     "process %ld: no such process (or no /proc on this "
                     "system)",
                     pid);
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)err,
                      "process %ld: cannot read its libraries (%s; a "
                      "process of another user needs that user or root)",
                      pid, maps);
  }
  maps_files m;
  memset(&m, 0, sizeof m);
  cl_str_index_init(&m.seen, 0);
  int status = read_maps(pid, fd, &m);
  close(fd);
  for (size_t i = 0; i < m.count && !status; ++i)
    if (visit_file(pid, &m.files[i], wanted, visit, opaque))
      status = cl_fail(CUDALOAD_E_NO_MEMORY, "process %ld: out of memory", pid);
  maps_files_free(&m);
  return status;
}
