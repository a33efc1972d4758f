/* SPDX-License-Identifier: MIT */
/*
 * user_cache_posix.c - the per-user cache folder and its private files
 * (os/platform.h) on POSIX: where the folder is, a read that trusts only
 * what this user alone could have written, and a whole-file replace by
 * rename, which readers and racing writers see as one step. Both reach the
 * folder one component at a time from "/" (open_private_dir), so that no
 * folder or link of another user's on the way decides where they read or
 * write. The same replace for a file others may read (0644) in a folder
 * that exists: the record of roots `cudaload fix` keeps in an environment.
 */
#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t cl_os_file_time_now(void) {
  struct timespec now;
  if (clock_gettime(CLOCK_REALTIME, &now) != 0)
    return 0; /* no clock: every stamp is too young, nothing is kept */
  return (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_nsec;
}

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

/* Whose a folder or link on the way to the cache may be: this user's or
 * root's. Another user could put his own folder or link there, and root
 * would then read and write where that user chose: under `sudo` HOME is
 * often still the user's, and ~/.cache the user's link to a folder of
 * root's. root keeps no store below another user's folder at all (one of
 * root's there could be neither trusted nor written by the user's own
 * runs). */
static int owner_trusted(const struct stat *st) {
  return st->st_uid == geteuid() || st->st_uid == 0;
}

/* The links one walk follows at most (Linux's own limit). */
#define MAX_LINKS 40

/* Replace the walk's rest of the path with `target` (what a link says)
 * followed by `after` (what was left after the link); 0, or -1 when out of
 * memory. */
static int splice_link(char **rest, const char *target, size_t tlen,
                       const char *after) {
  size_t alen = strlen(after);
  char *joined = malloc(tlen + alen + 2);
  if (!joined)
    return -1;
  memcpy(joined, target, tlen);
  joined[tlen] = '/';
  memcpy(joined + tlen + 1, after, alen + 1);
  free(*rest);
  *rest = joined;
  return 0;
}

/* The folder dir (absolute), opened (O_DIRECTORY) in *fd, reached from "/"
 * one component at a time with openat(O_NOFOLLOW): each folder on the way,
 * and each link met (read with readlinkat and followed from where it is,
 * at most MAX_LINKS of them), is this user's or root's, and the folder
 * itself is this user's and writable by no other (the mode). What is
 * checked is what is then used: the descriptors are held, so no rename on
 * the way between a check and a write moves the write elsewhere. With
 * `make`, missing folders are made (0700, the XDG rules' mode) in the
 * folder the walk has reached. 0, CUDALOAD_E_NOT_FOUND for a missing
 * folder (without `make`), else CUDALOAD_E_IO or CUDALOAD_E_NO_MEMORY. */
static int open_private_dir(const char *dir, int make, int *fd) {
  *fd = -1;
  if (dir[0] != '/')
    return CUDALOAD_E_IO;
  char *rest = cl_strdup(dir);
  if (!rest)
    return CUDALOAD_E_NO_MEMORY;
  int at = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int status = at < 0 ? CUDALOAD_E_IO : CUDALOAD_OK;
  struct stat st;
  if (status == CUDALOAD_OK && (fstat(at, &st) != 0 || !owner_trusted(&st)))
    status = CUDALOAD_E_IO;
  char *p = rest;
  int links = 0;
  while (status == CUDALOAD_OK && *p) {
    while (*p == '/')
      ++p;
    size_t len = strcspn(p, "/");
    if (len == 0 || (len == 1 && p[0] == '.')) {
      p += len;
      continue;
    }
    char name[NAME_MAX + 1];
    if (len > NAME_MAX) {
      status = CUDALOAD_E_IO;
      break;
    }
    memcpy(name, p, len);
    name[len] = '\0';
    p += len;
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int next = openat(at, name, flags);
    if (next < 0 && errno == ENOENT && make &&
        (mkdirat(at, name, 0700) == 0 || errno == EEXIST))
      next = openat(at, name, flags);
    if (next < 0) {
      /* A link (Linux says ELOOP, FreeBSD EMLINK, some ENOTDIR), or a
       * component that is missing or no folder. */
      int err = errno;
      if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        status = err == ENOENT ? CUDALOAD_E_NOT_FOUND : CUDALOAD_E_IO;
        break;
      }
      char target[PATH_MAX];
      ssize_t n;
      if (!S_ISLNK(st.st_mode) || !owner_trusted(&st) || ++links > MAX_LINKS ||
          (n = readlinkat(at, name, target, sizeof target)) <= 0 ||
          (size_t)n >= sizeof target) {
        status = CUDALOAD_E_IO;
        break;
      }
      if (splice_link(&rest, target, (size_t)n, p)) {
        status = CUDALOAD_E_NO_MEMORY;
        break;
      }
      p = rest;
      if (target[0] == '/') {
        close(at);
        at = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (at < 0)
          status = CUDALOAD_E_IO;
      }
      continue;
    }
    close(at);
    at = next;
    if (fstat(at, &st) != 0 || !owner_trusted(&st))
      status = CUDALOAD_E_IO;
  }
  free(rest);
  /* The folder itself: a folder of someone else's, or one others may
   * write in, could have the file swapped after it is written. */
  if (status == CUDALOAD_OK && (fstat(at, &st) != 0 || st.st_uid != geteuid() ||
                                (st.st_mode & (S_IWGRP | S_IWOTH))))
    status = CUDALOAD_E_IO;
  if (status != CUDALOAD_OK) {
    if (at >= 0)
      close(at);
    return status;
  }
  *fd = at;
  return CUDALOAD_OK;
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

int cl_os_private_file_read(const char *path, size_t max, char **data,
                            size_t *len) {
  *data = NULL;
  *len = 0;
  const char *base = strrchr(path, '/');
  char *dir = parent_of(path);
  if (!dir)
    return CUDALOAD_E_NO_MEMORY;
  int dfd;
  int status =
      base && base[1] ? open_private_dir(dir, 0, &dfd) : CUDALOAD_E_NOT_FOUND;
  free(dir);
  if (status)
    return status;
  /* O_NOFOLLOW: a link planted in the folder is not followed to a file
   * someone else wrote; O_NONBLOCK: a FIFO does not wait for a writer. */
  int fd = openat(dfd, base + 1,
                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  int err = errno;
  close(dfd);
  if (fd < 0)
    return err == ENOENT ? CUDALOAD_E_NOT_FOUND : CUDALOAD_E_IO;
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

/* Temporary files of name that a writer killed between writing and
 * renaming left in the folder dfd: this user's, last written more than
 * CL_OS_LEFTOVER_SECONDS ago (a writer keeps its own for milliseconds). */
static void remove_leftovers(int dfd, const char *name) {
  int listed = dup(dfd);
  DIR *d = listed < 0 ? NULL : fdopendir(listed);
  if (!d) {
    if (listed >= 0)
      close(listed);
    return;
  }
  size_t nlen = strlen(name);
  time_t now = time(NULL);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t elen = strlen(e->d_name);
    if (elen <= nlen + 5 || strncmp(e->d_name, name, nlen) != 0 ||
        e->d_name[nlen] != '.' || strcmp(e->d_name + elen - 4, ".tmp") != 0)
      continue;
    struct stat st;
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        now - st.st_mtime > CL_OS_LEFTOVER_SECONDS)
      unlinkat(dfd, e->d_name, 0);
  }
  closedir(d);
}

int cl_os_private_file_replace(const char *dir, const char *name,
                               const void *data, size_t len) {
  int dfd;
  int status = open_private_dir(dir, 1, &dfd);
  if (status)
    return status;
  remove_leftovers(dfd, name);
  size_t tlen = strlen(name) + 40;
  char *temp = malloc(tlen);
  if (!temp) {
    close(dfd);
    return CUDALOAD_E_NO_MEMORY;
  }
  /* The thread's own name for its temporary file, made anew (O_EXCL): a
   * racing writer has another (its process, or its thread's counter, whose
   * address differs), and a leftover of a crash is not reused. */
  static CL_THREAD_LOCAL unsigned serial;
  snprintf(temp, tlen, "%s.%ld.%lx.%u.tmp", name, (long)getpid(),
           (unsigned long)(uintptr_t)&serial, serial++);
  int fd = openat(dfd, temp,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
  if (status == CUDALOAD_OK && renameat(dfd, temp, dfd, name) != 0)
    status = CUDALOAD_E_IO;
  if (status != CUDALOAD_OK && fd >= 0)
    unlinkat(dfd, temp, 0);
  close(dfd);
  free(temp);
  return status;
}

int cl_os_shared_file_replace(const char *dir, const char *name,
                              const void *data, size_t len) {
  /* The folder as it is: O_DIRECTORY refuses anything else, O_NOFOLLOW a
   * link put in its place since it was judged. */
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0)
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)errno, "%s", dir);
  remove_leftovers(dfd, name);
  static CL_THREAD_LOCAL unsigned serial;
  char *temp = cl_strdup_printf("%s.%ld.%lx.%u.tmp", name, (long)getpid(),
                                (unsigned long)(uintptr_t)&serial, serial++);
  if (!temp) {
    close(dfd);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", dir);
  }
  int fd = openat(dfd, temp,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int status = CUDALOAD_OK, os_code = 0;
  if (fd < 0) {
    status = CUDALOAD_E_IO;
    os_code = errno;
  }
  const char *p = data;
  size_t left = len;
  while (status == CUDALOAD_OK && left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      status = CUDALOAD_E_IO;
      os_code = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= (size_t)n;
  }
  /* Readable by all, writable by its owner alone, whatever the umask: the
   * scan refuses a record others may write. */
  if (status == CUDALOAD_OK && fchmod(fd, 0644) != 0) {
    status = CUDALOAD_E_IO;
    os_code = errno;
  }
  if (fd >= 0 && close(fd) != 0 && status == CUDALOAD_OK) {
    status = CUDALOAD_E_IO;
    os_code = errno;
  }
  if (status == CUDALOAD_OK && renameat(dfd, temp, dfd, name) != 0) {
    status = CUDALOAD_E_IO;
    os_code = errno;
  }
  if (status != CUDALOAD_OK && fd >= 0)
    unlinkat(dfd, temp, 0);
  close(dfd);
  free(temp);
  if (status != CUDALOAD_OK)
    return cl_fail_os(status, (unsigned long)os_code, "%s%c%s", dir, CL_DIR_SEP,
                      name);
  return CUDALOAD_OK;
}
