/* SPDX-License-Identifier: MIT */
/*
 * user_cache_posix.c - the per-user cache folder and its private files
 * (os/platform.h) on POSIX: where the folder is, a read that trusts only
 * what this user alone could have written, and a whole-file replace by
 * rename, which readers and racing writers see as one step.
 */
#include "cudaload.h"
#include "common/strutil.h"
#include "os/platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *cl_os_user_cache_dir(void) {
  /* The XDG base directory rules ignore a relative XDG_CACHE_HOME. */
  char *base = cl_os_getenv("XDG_CACHE_HOME");
  if (base && base[0] == '/') {
    char *dir = cl_path_join(base, "cudaload");
    free(base);
    return dir;
  }
  free(base);
  char *home = cl_os_getenv("HOME");
  char *dir =
      home && home[0] == '/' ? cl_path_join(home, ".cache/cudaload") : NULL;
  free(home);
  return dir;
}

int cl_os_private_file_read(const char *path, size_t max, char **data,
                            size_t *len) {
  *data = NULL;
  *len = 0;
  /* O_NOFOLLOW: a link planted in the folder is not followed to a file
   * someone else wrote; O_NONBLOCK: a FIFO does not wait for a writer. */
  int fd =
      open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? CUDALOAD_E_NOT_FOUND : CUDALOAD_E_IO;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) || (uint64_t)st.st_size > max) {
    close(fd);
    return CUDALOAD_E_MALFORMED;
  }
  size_t size = (size_t)st.st_size;
  char *buf = malloc(size + 1);
  if (!buf) {
    close(fd);
    return CUDALOAD_E_NO_MEMORY;
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; /* an error, or a file cut short under us */
    got += (size_t)n;
  }
  close(fd);
  if (got != size) {
    free(buf);
    return CUDALOAD_E_IO;
  }
  buf[size] = '\0';
  *data = buf;
  *len = size;
  return CUDALOAD_OK;
}

/* Whether this process may make a folder inside parent. root may not make
 * one in a folder of another user's: under `sudo` HOME is often still the
 * user's, and a store folder made there would be root's, which the user's
 * own runs can then neither trust nor write, for good. */
static int may_make_in(const char *parent) {
  if (geteuid() != 0)
    return 1;
  struct stat st;
  return stat(parent, &st) == 0 && st.st_uid == 0;
}

/* The folder that holds path ("/" for "/x"); NULL when out of memory. */
static char *parent_of(const char *path) {
  size_t n = strlen(path);
  char *parent = malloc(n + 2);
  if (!parent)
    return NULL;
  memcpy(parent, path, n + 1);
  char *cut = strrchr(parent, '/');
  if (!cut)
    strcpy(parent, ".");
  else if (cut == parent)
    parent[1] = '\0';
  else
    *cut = '\0';
  return parent;
}

/* dir and its missing parents, each new one 0700 (the XDG rules' mode). A
 * folder on the way may be a link (~/.cache often is); the store's own
 * folder is checked without following one (cl_os_private_file_replace). */
static int make_private_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0)
    return S_ISDIR(st.st_mode) ? CUDALOAD_OK : CUDALOAD_E_IO;
  if (errno != ENOENT)
    return CUDALOAD_E_IO;
  char *parent = parent_of(dir);
  if (!parent)
    return CUDALOAD_E_NO_MEMORY;
  int status =
      strcmp(parent, dir) == 0 ? CUDALOAD_E_IO : make_private_dir(parent);
  if (status == CUDALOAD_OK && !may_make_in(parent))
    status = CUDALOAD_E_IO;
  free(parent);
  if (status)
    return status;
  return mkdir(dir, 0700) == 0 || errno == EEXIST ? CUDALOAD_OK : CUDALOAD_E_IO;
}

/* Temporary files of name that a writer killed between writing and
 * renaming left in dir: this user's, last written more than
 * CL_OS_LEFTOVER_SECONDS ago (a writer keeps its own for milliseconds). */
static void remove_leftovers(const char *dir, const char *name) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  size_t nlen = strlen(name);
  time_t now = time(NULL);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t elen = strlen(e->d_name);
    if (elen <= nlen + 5 || strncmp(e->d_name, name, nlen) != 0 ||
        e->d_name[nlen] != '.' || strcmp(e->d_name + elen - 4, ".tmp") != 0)
      continue;
    char *path = cl_path_join(dir, e->d_name);
    struct stat st;
    if (path && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && now - st.st_mtime > CL_OS_LEFTOVER_SECONDS)
      unlink(path);
    free(path);
  }
  closedir(d);
}

int cl_os_private_file_replace(const char *dir, const char *name,
                               const void *data, size_t len) {
  int status = make_private_dir(dir);
  if (status)
    return status;
  struct stat st;
  /* A folder of someone else's, or one others may write in, could have
   * the file swapped after we write it: nothing is written there. */
  if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)))
    return CUDALOAD_E_IO;
  remove_leftovers(dir, name);
  char *target = cl_path_join(dir, name);
  size_t tlen = target ? strlen(target) + 40 : 0;
  char *temp = target ? malloc(tlen) : NULL;
  if (!temp) {
    free(target);
    return CUDALOAD_E_NO_MEMORY;
  }
  /* The thread's own name for its temporary file, made anew (O_EXCL): a
   * racing writer has another (its process, or its thread's counter, whose
   * address differs), and a leftover of a crash is not reused. */
  static CL_THREAD_LOCAL unsigned serial;
  snprintf(temp, tlen, "%s.%ld.%lx.%u.tmp", target, (long)getpid(),
           (unsigned long)(uintptr_t)&serial, serial++);
  int fd =
      open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  status = fd < 0 ? CUDALOAD_E_IO : CUDALOAD_OK;
  const char *p = data;
  size_t left = len;
  while (status == CUDALOAD_OK && left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      status = CUDALOAD_E_IO;
      break;
    }
    p += n;
    left -= (size_t)n;
  }
  if (fd >= 0 && close(fd) != 0)
    status = CUDALOAD_E_IO;
  if (status == CUDALOAD_OK && rename(temp, target) != 0)
    status = CUDALOAD_E_IO;
  if (status != CUDALOAD_OK && fd >= 0)
    unlink(temp);
  free(temp);
  free(target);
  return status;
}
