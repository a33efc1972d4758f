/* SPDX-License-Identifier: MIT */
/* platform_posix.c - lib/os/platform.h for Linux and other POSIX systems. */
#include "cudaload.h"
#include "common/error.h"
#include "common/question_log.h"
#include "common/reason_words.h"
#include "os/platform.h"
#include "posix/posix_answer.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#if defined(__linux__)
#include <sys/auxv.h>
#include <sys/xattr.h>
#endif
#include <time.h>
#include <unistd.h>

extern char **environ;

static int status_for_errno(int err) {
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    return CUDALOAD_E_NOT_FOUND;
  case ENOMEM:
    return CUDALOAD_E_NO_MEMORY;
  default:
    return CUDALOAD_E_IO;
  }
}

static cl_file_kind kind_of_mode(mode_t mode) {
  if (S_ISREG(mode))
    return CL_KIND_REGULAR;
  if (S_ISDIR(mode))
    return CL_KIND_DIRECTORY;
  if (S_ISLNK(mode))
    return CL_KIND_SYMLINK;
  return CL_KIND_OTHER;
}

/* ------------------------------------------------------------------------ */
/* The questions a scan asks, noted (common/question_log.h)                 */
/* ------------------------------------------------------------------------ */

static void answer_of_stat(const struct stat *st, cl_os_answer *a) {
  memset(a, 0, sizeof *a);
  a->found = 1;
  a->device = (uint64_t)st->st_dev;
  a->inode = (uint64_t)st->st_ino;
  a->size = (uint64_t)st->st_size;
  a->mtime =
      (int64_t)st->st_mtim.tv_sec * 1000000000 + (int64_t)st->st_mtim.tv_nsec;
  a->ctime =
      (int64_t)st->st_ctim.tv_sec * 1000000000 + (int64_t)st->st_ctim.tv_nsec;
  a->mode = (uint64_t)st->st_mode;
  a->owner = (uint64_t)st->st_uid << 32 | (uint64_t)st->st_gid;
}

void cl_posix_note_stat(cl_os_question question, const char *path,
                        const struct stat *st) {
  if (!cl_question_log_wants(question, path))
    return;
  cl_os_answer a;
  if (st)
    answer_of_stat(st, &a);
  else
    memset(&a, 0, sizeof a);
  cl_question_log_answer(question, path, &a);
}

/* The answer to a stat-like question cl_question_log_wants() wanted, from
 * a stat of it. */
static void note_answer(cl_os_question question, const char *path,
                        const struct stat *st) {
  cl_os_answer a;
  answer_of_stat(st, &a);
  cl_question_log_answer(question, path, &a);
}

/* Note the answer to a stat-like question that cl_question_log_wants()
 * wanted, from the errno of a look that failed: nothing there when the
 * path names nothing; else (a folder that may not be searched, an I/O
 * error) the log cannot hold what the look saw. */
static void note_failure(cl_os_question question, const char *path, int err) {
  if (err != ENOENT && err != ENOTDIR) {
    cl_question_log_lost();
    return;
  }
  cl_os_answer a;
  memset(&a, 0, sizeof a);
  cl_question_log_answer(question, path, &a);
}

/* Note a question by asking it now, before what it is about is read: what
 * changes after this look changes the answer asked again. */
static void note_now(cl_os_question question, const char *subject) {
  if (!cl_question_log_wants(question, subject))
    return;
  cl_os_answer a;
  if (cl_os_answer_now(question, subject, &a)) {
    cl_question_log_lost();
    return;
  }
  cl_question_log_answer(question, subject, &a);
}

cl_file_kind cl_os_stat_kind(const char *path, uint64_t *size_out) {
  struct stat st;
  int found = stat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_STAT, path, found ? &st : NULL);
  if (!found)
    return CL_KIND_MISSING;
  if (size_out)
    *size_out = (uint64_t)st.st_size;
  return kind_of_mode(st.st_mode);
}

cl_file_kind cl_os_lstat_kind(const char *path) {
  struct stat st;
  int found = lstat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_LSTAT, path, found ? &st : NULL);
  if (!found)
    return CL_KIND_MISSING;
  return kind_of_mode(st.st_mode);
}

#if defined(DT_UNKNOWN)
static cl_file_kind kind_of_type(unsigned char type) {
  switch (type) {
  case DT_REG:
    return CL_KIND_REGULAR;
  case DT_DIR:
    return CL_KIND_DIRECTORY;
  case DT_LNK:
    return CL_KIND_SYMLINK;
  case DT_UNKNOWN:
    return CL_KIND_UNKNOWN;
  default:
    return CL_KIND_OTHER;
  }
}
#endif

#if !(defined(__linux__) && defined(SYS_getdents64))
static cl_file_kind kind_of_dirent(const struct dirent *entry) {
#if defined(DT_UNKNOWN)
  return kind_of_type(entry->d_type);
#else
  (void)entry;
  return CL_KIND_UNKNOWN;
#endif
}
#endif

/* Fill *no (when asked for) with the OS's reason err and return status. */
static int os_no(cl_os_no *no, int status, int err) {
  if (no) {
    no->status = status;
    no->from_os = 1;
    no->os_code = (unsigned long)err;
    no->what = NULL;
  }
  return status;
}

/* Fill *no (when asked for) with our own reason and return status. */
static int own_no(cl_os_no *no, int status, int err, const char *what) {
  if (no) {
    no->status = status;
    no->from_os = err != 0;
    no->os_code = (unsigned long)err;
    no->what = what;
  }
  return status;
}

int cl_os_list_dir(const char *dir, cl_dir_visitor visit, void *opaque) {
  cl_os_no no;
  int status = cl_os_list_dir_quiet(dir, visit, opaque, &no);
  return status ? cl_fail_os_no(status, &no, dir) : CUDALOAD_OK;
}

#if defined(__linux__) && defined(SYS_getdents64)
/* A record of the kernel's getdents64 (linux/dirent.h): its layout is the
 * kernel's ABI, the same on every architecture. */
struct kernel_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* On Linux the folder is listed from a descriptor of our own: the one
 * fstat that notes the listing's question (taken before any entry is
 * read) is the one glibc's opendir makes anyway, so noting costs the scan
 * no call. */
int cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit, void *opaque,
                         cl_os_no *no) {
  int noting = cl_question_log_wants(CL_ASK_STAT, dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (noting)
      note_failure(CL_ASK_STAT, dir, err);
    return os_no(no, status_for_errno(err), err);
  }
  if (noting) {
    struct stat st;
    if (fstat(fd, &st) == 0)
      note_answer(CL_ASK_STAT, dir, &st);
    else
      note_failure(CL_ASK_STAT, dir, errno);
  }
  enum { LISTING_BUFFER = 32768 }; /* glibc's opendir reads as much */
  char *buffer = malloc(LISTING_BUFFER);
  if (!buffer) {
    close(fd);
    return own_no(no, CUDALOAD_E_NO_MEMORY, 0, "out of memory");
  }
  int stop = 0;
  while (!stop) {
    /* An error partway ends the listing, as readdir's NULL does. */
    long got = syscall(SYS_getdents64, fd, buffer, (size_t)LISTING_BUFFER);
    if (got <= 0)
      break;
    for (long at = 0; at < got && !stop;) {
      const struct kernel_dirent64 *e =
          (const struct kernel_dirent64 *)(const void *)(buffer + at);
      at += e->d_reclen;
      const char *name = e->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && !name[2])))
        continue;
      stop = visit(name, kind_of_type(e->d_type), opaque);
    }
  }
  free(buffer);
  close(fd);
  return CUDALOAD_OK;
}
#else
int cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit, void *opaque,
                         cl_os_no *no) {
  note_now(CL_ASK_STAT, dir);
  DIR *d = opendir(dir);
  if (!d) {
    int err = errno;
    return os_no(no, status_for_errno(err), err);
  }
  struct dirent *entry;
  while ((entry = readdir(d)) != NULL) {
    const char *name = entry->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && !name[2])))
      continue;
    if (visit(name, kind_of_dirent(entry), opaque))
      break;
  }
  closedir(d);
  return CUDALOAD_OK;
}
#endif

int cl_os_dir_check_listable(const char *dir) {
  cl_os_no no;
  int status = cl_os_dir_check_listable_quiet(dir, &no);
  return status ? cl_fail_os_no(status, &no, dir) : CUDALOAD_OK;
}

int cl_os_dir_check_listable_quiet(const char *dir, cl_os_no *no) {
  /* Opening a folder for reading needs the permission to list it; unlike
   * opendir, this reads no entry (a site-packages folder has thousands). */
  note_now(CL_ASK_STAT, dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return os_no(no, status_for_errno(err), err);
  }
  close(fd);
  return CUDALOAD_OK;
}

#if defined(__linux__) && defined(O_PATH)
/* The kernel's name for what path leads to: an O_PATH descriptor (which
 * opens nothing, so a FIFO cannot block) read back through /proc. One
 * lookup instead of realpath()'s readlink per component. NULL when /proc is
 * not there or the answer is not a plain absolute path (a deleted file,
 * another mount namespace): realpath() then decides. */
static char *kernel_real_path(const char *path) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  char link[32], target[PATH_MAX + 1];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target);
  close(fd);
  if (n <= 0 || (size_t)n >= sizeof target || target[0] != '/')
    return NULL;
  target[n] = '\0';
  static const char deleted[] = " (deleted)";
  size_t dlen = sizeof deleted - 1;
  if ((size_t)n >= dlen && strcmp(target + n - dlen, deleted) == 0)
    return NULL;
  return strdup(target);
}
#endif

char *cl_os_real_path(const char *path) {
  cl_os_no no;
  char *resolved = cl_os_real_path_quiet(path, &no);
  if (!resolved)
    cl_fail_os_no(no.status, &no, path);
  return resolved;
}

static char *real_path_of(const char *path, cl_os_no *no) {
#if defined(__linux__) && defined(O_PATH)
  char *fast = kernel_real_path(path);
  if (fast)
    return fast;
#endif
  char *resolved = realpath(path, NULL);
  if (!resolved) {
    int err = errno;
    os_no(no, status_for_errno(err), err);
  }
  return resolved;
}

char *cl_os_real_path_quiet(const char *path, cl_os_no *no) {
  char *resolved = real_path_of(path, no);
  cl_question_log_text(CL_ASK_REAL_PATH, path, resolved);
  return resolved;
}

int cl_os_path_is_absolute(const char *path) {
  return path && path[0] == '/';
}

struct cl_file {
  int fd;
  uint64_t size;
  cl_file_stamp stamp;
};

static void stamp_of(const struct stat *st, cl_file_stamp *out) {
  out->device = (uint64_t)st->st_dev;
  out->inode = (uint64_t)st->st_ino;
  out->size = (uint64_t)st->st_size;
  out->mtime_ns =
      (int64_t)st->st_mtim.tv_sec * 1000000000 + (int64_t)st->st_mtim.tv_nsec;
  out->ctime_ns =
      (int64_t)st->st_ctim.tv_sec * 1000000000 + (int64_t)st->st_ctim.tv_nsec;
  out->kind = kind_of_mode(st->st_mode);
}

void cl_os_file_stamp(const cl_file *f, cl_file_stamp *out) {
  *out = f->stamp;
}

int cl_os_path_stamp(const char *path, cl_file_stamp *out) {
  struct stat st;
  if (!path)
    return 0;
  int found = stat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_STAT, path, found ? &st : NULL);
  if (!found)
    return 0;
  stamp_of(&st, out);
  return 1;
}

int cl_os_file_open(const char *path, cl_file **out, uint64_t *size_out) {
  cl_os_no no;
  int status = cl_os_file_open_quiet(path, out, size_out, &no);
  return status ? cl_fail_os_no(status, &no, path) : CUDALOAD_OK;
}

int cl_os_file_open_quiet(const char *path, cl_file **out, uint64_t *size_out,
                          cl_os_no *no) {
  *out = NULL;
  /* O_NONBLOCK: opening a FIFO named like a library must not wait for a
   * writer. The type is checked on the open descriptor, so a file swapped
   * for something else between a stat and the open is still caught. */
  int noting = cl_question_log_wants(CL_ASK_STAT, path);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (noting)
      note_failure(CL_ASK_STAT, path, err);
    return os_no(no, status_for_errno(err), err);
  }
  /* Noted from the open file's own stat, taken before anything is read. */
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    if (noting)
      note_failure(CL_ASK_STAT, path, err);
    return os_no(no, CUDALOAD_E_IO, err);
  }
  if (noting)
    note_answer(CL_ASK_STAT, path, &st);
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return own_no(no, CUDALOAD_E_NOT_A_FILE, 0,
                  S_ISDIR(st.st_mode)    ? CL_WORDS_NOT_A_REGULAR_FILE_DIRECTORY
                  : S_ISFIFO(st.st_mode) ? CL_WORDS_NOT_A_REGULAR_FILE_FIFO
                  : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                      ? CL_WORDS_NOT_A_REGULAR_FILE_DEVICE
                      : CL_WORDS_NOT_A_REGULAR_FILE_SPECIAL);
  }
  cl_file *f = malloc(sizeof *f);
  if (!f) {
    close(fd);
    return own_no(no, CUDALOAD_E_NO_MEMORY, 0, "out of memory");
  }
  f->fd = fd;
  f->size = (uint64_t)st.st_size;
  stamp_of(&st, &f->stamp);
  if (size_out)
    *size_out = f->size;
  *out = f;
  return CUDALOAD_OK;
}

int cl_os_file_read_at(cl_file *f, uint64_t offset, void *buf, size_t len) {
  cl_os_no no;
  int status = cl_os_file_read_at_quiet(f, offset, buf, len, &no);
  if (status && !no.what)
    return cl_fail(status,
                   "read of %zu bytes at offset %llu passes the end of the "
                   "file (size %llu)",
                   len, (unsigned long long)offset,
                   (unsigned long long)f->size);
  return status ? cl_fail_os_no(status, &no, NULL) : CUDALOAD_OK;
}

int cl_os_file_read_at_quiet(cl_file *f, uint64_t offset, void *buf, size_t len,
                             cl_os_no *no) {
  if (offset > f->size || len > f->size - offset)
    return own_no(no, CUDALOAD_E_MALFORMED, 0, NULL); /* past the end */
  unsigned char *p = buf;
  while (len > 0) {
    ssize_t n = pread(f->fd, p, len, (off_t)offset);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      return own_no(no, CUDALOAD_E_IO, err, "read failed");
    }
    if (n == 0) /* the file shrank under us */
      return own_no(no, CUDALOAD_E_MALFORMED, 0,
                    "file truncated while reading");
    p += n;
    len -= (size_t)n;
    offset += (uint64_t)n;
  }
  return CUDALOAD_OK;
}

int cl_os_file_read_upto(cl_file *f, uint64_t offset, void *buf, size_t len,
                         size_t *got) {
  cl_os_no no;
  int status = cl_os_file_read_upto_quiet(f, offset, buf, len, got, &no);
  return status ? cl_fail_os_no(status, &no, NULL) : CUDALOAD_OK;
}

int cl_os_file_read_upto_quiet(cl_file *f, uint64_t offset, void *buf,
                               size_t len, size_t *got, cl_os_no *no) {
  unsigned char *p = buf;
  *got = 0;
  while (len > 0) {
    ssize_t n = pread(f->fd, p, len, (off_t)offset);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      return own_no(no, CUDALOAD_E_IO, err, "read failed");
    }
    if (n == 0)
      break;
    p += n;
    len -= (size_t)n;
    offset += (uint64_t)n;
    *got += (size_t)n;
  }
  return CUDALOAD_OK;
}

void cl_os_file_close(cl_file *f) {
  if (f) {
    close(f->fd);
    free(f);
  }
}

/* ------------------------------------------------------------------------ */
/* Writable roots                                                           */
/* ------------------------------------------------------------------------ */

static int process_in_group(gid_t gid) {
  if (gid == getegid() || gid == getgid())
    return 1;
  gid_t groups[256];
  int n = getgroups((int)(sizeof groups / sizeof groups[0]), groups);
  for (int i = 0; i < n; ++i)
    if (groups[i] == gid)
      return 1;
  return 0;
}

/* What others may do, in words, for a mode that lets them write: the
 * library folder and file cases, where any write is too much. */
static void describe_writers(const struct stat *st, const char *extra,
                             char *text, size_t size) {
  unsigned mode = (unsigned)(st->st_mode & 07777);
  if (st->st_mode & S_IWOTH)
    snprintf(text, size, CL_WORDS_WRITABLE_BY_EVERY_USER_MODE, mode, extra);
  else
    snprintf(text, size, CL_WORDS_WRITABLE_BY_GROUP_NOT_IN,
             (unsigned long)st->st_gid, mode);
}

/* --- POSIX access control lists ----------------------------------------
 * Linux keeps a file's ACL in the extended attribute system.posix_acl_access
 * in a documented, fixed format (the kernel's include/uapi/linux/
 * posix_acl_xattr.h): a little-endian 32-bit version (2), then entries of
 * tag (16 bits), permissions (16 bits) and id (32 bits). It is read here
 * without libacl. A named user or group entry (setfacl -m u:nobody:rwx)
 * gives write to someone the mode does not show: through the mask, the
 * group bits of the mode then show the mask (775), whoever the owning group
 * is. */
#define CL_ACL_VERSION 2u
#define CL_ACL_USER_OBJ 0x01u
#define CL_ACL_USER 0x02u
#define CL_ACL_GROUP_OBJ 0x04u
#define CL_ACL_GROUP 0x08u
#define CL_ACL_MASK 0x10u
#define CL_ACL_OTHER 0x20u
#define CL_ACL_WRITE 0x02u
/* ext4 keeps at most ~500 entries in a block, XFS and others fewer or a few
 * thousand: 64 KiB holds any (8 bytes each). */
#define CL_ACL_MAX_BYTES 65536u

typedef struct acl_writers {
  int present;         /* the file has an access ACL */
  int group_obj_write; /* the owning group's entry, through the mask */
  int user_writer;     /* a named user other than root and this process's */
  unsigned long user;
  int group_writer; /* a named group other than root's and this process's */
  unsigned long group;
} acl_writers;

static unsigned acl_u16(const unsigned char *p) {
  return (unsigned)p[0] | ((unsigned)p[1] << 8);
}

static unsigned long acl_u32(const unsigned char *p) {
  return (unsigned long)p[0] | ((unsigned long)p[1] << 8) |
         ((unsigned long)p[2] << 16) | ((unsigned long)p[3] << 24);
}

/* Who the ACL of path lets write, beyond what the mode says. A file
 * without an ACL, a file system without them, or an ACL that cannot be
 * read or is malformed gives present = 0: the mode decides, as for a
 * folder that cannot be stat'ed ("cannot tell"). */
static void read_acl_writers(const char *path, acl_writers *out) {
  memset(out, 0, sizeof *out);
#if defined(__linux__)
  unsigned char stack[1024];
  unsigned char *buf = stack;
  ssize_t n = getxattr(path, "system.posix_acl_access", stack, sizeof stack);
  if (n < 0 && errno == ERANGE) {
    ssize_t need = getxattr(path, "system.posix_acl_access", NULL, 0);
    if (need <= 0 || (size_t)need > CL_ACL_MAX_BYTES ||
        !(buf = malloc((size_t)need)))
      return;
    n = getxattr(path, "system.posix_acl_access", buf, (size_t)need);
  }
  if (n >= 4 && (n - 4) % 8 == 0 && acl_u32(buf) == CL_ACL_VERSION) {
    unsigned mask = 7, group_obj = 0;
    int has_mask = 0;
    for (ssize_t at = 4; at < n; at += 8)
      if (acl_u16(buf + at) == CL_ACL_MASK) {
        mask = acl_u16(buf + at + 2);
        has_mask = 1;
      }
    out->present = 1;
    for (ssize_t at = 4; at < n; at += 8) {
      unsigned tag = acl_u16(buf + at), perm = acl_u16(buf + at + 2);
      unsigned long id = acl_u32(buf + at + 4);
      /* The mask caps named entries and the owning group's. */
      int writes = (perm & (has_mask ? mask : 7) & CL_ACL_WRITE) != 0;
      if (tag == CL_ACL_GROUP_OBJ)
        group_obj = perm;
      else if (tag == CL_ACL_USER && writes && id != 0 &&
               id != (unsigned long)geteuid() &&
               id != (unsigned long)getuid() && !out->user_writer) {
        out->user_writer = 1;
        out->user = id;
      } else if (tag == CL_ACL_GROUP && writes && id != 0 &&
                 !process_in_group((gid_t)id) && !out->group_writer) {
        out->group_writer = 1;
        out->group = id;
      }
    }
    out->group_obj_write = (group_obj & mask & CL_ACL_WRITE) != 0;
  }
  if (buf != stack)
    free(buf);
#else
  (void)path;
#endif
}

/* World-writable, or group-writable by a group other than root's that this
 * process is not in. For a library folder a sticky bit does not help: it
 * stops others from removing or renaming files they do not own, not from
 * adding one. For a folder on the way it does: adding a folder there
 * changes nothing on the way, and renaming the one that is needs its owner. */
static int writable_judged(const char *path, const struct stat *sp,
                           cl_trust_use use, char **why);

int cl_os_writable_by_others(const char *path, cl_trust_use use, char **why) {
  *why = NULL;
  struct stat st;
  int found = stat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_STAT, path, found ? &st : NULL);
  if (!found)
    return 0;
  return writable_judged(path, &st, use, why);
}

static char *link_target_of(const char *path) {
  char target[PATH_MAX + 1];
  ssize_t n = readlink(path, target, sizeof target);
  if (n <= 0 || (size_t)n >= sizeof target)
    return NULL;
  char *copy = malloc((size_t)n + 1);
  if (copy) {
    memcpy(copy, target, (size_t)n);
    copy[n] = '\0';
  }
  return copy;
}

char *cl_os_link_target(const char *path) {
  char *target = link_target_of(path);
  cl_question_log_text(CL_ASK_LINK_TARGET, path, target);
  return target;
}

int cl_os_path_stamp_judged(const char *path, cl_trust_use use,
                            cl_file_stamp *out, int *unsafe, char **why) {
  *why = NULL;
  *unsafe = 0;
  struct stat st;
  if (!path)
    return 0;
  int found = stat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_STAT, path, found ? &st : NULL);
  if (!found)
    return 0;
  stamp_of(&st, out);
  *unsafe = writable_judged(path, &st, use, why);
  return 1;
}

int cl_os_writable_by_others_unless_link(const char *path, cl_trust_use use,
                                         char **why, int *is_link) {
  *why = NULL;
  *is_link = 0;
  struct stat st;
  int found = lstat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_LSTAT, path, found ? &st : NULL);
  if (!found)
    return 0;
  if (S_ISLNK(st.st_mode)) {
    *is_link = 1;
    return 0;
  }
  return writable_judged(path, &st, use, why);
}

/* cl_os_writable_by_others() on what a stat of path said. */
static int writable_judged(const char *path, const struct stat *sp,
                           cl_trust_use use, char **why) {
  struct stat st = *sp;
  int is_file = use == CL_TRUST_LIBRARY_FILE;
  if (is_file ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))
    return 0;
  /* With an ACL the mode's group bits are its mask, which caps every
   * named entry: without group write in the mode no entry can write, and
   * the attribute need not be read (most folders: 0755). */
  acl_writers acl;
  memset(&acl, 0, sizeof acl);
  if (st.st_mode & S_IWGRP)
    read_acl_writers(path, &acl);
  int others = (st.st_mode & S_IWOTH) != 0;
  /* With an ACL the mode's group bits are its mask: the owning group writes
   * only when its own entry, through the mask, says so. */
  int group_writes =
      acl.present ? acl.group_obj_write : (st.st_mode & S_IWGRP) != 0;
  int group =
      !others && group_writes && st.st_gid != 0 && !process_in_group(st.st_gid);
  int named = !others && !group && (acl.user_writer || acl.group_writer);
  if (!others && !group && !named)
    return 0;
  int sticky = !is_file && (st.st_mode & S_ISVTX);
  if (use == CL_TRUST_FOLDER_ON_THE_WAY && sticky)
    return 0;
  char text[256];
  if (named) {
    unsigned mode = (unsigned)(st.st_mode & 07777);
    if (acl.user_writer)
      snprintf(text, sizeof text, CL_WORDS_WRITABLE_BY_USER_THROUGH_ACL,
               acl.user, mode);
    else
      snprintf(text, sizeof text, CL_WORDS_WRITABLE_BY_GROUP_THROUGH_ACL,
               acl.group, mode);
    if (use == CL_TRUST_FOLDER_ON_THE_WAY) {
      size_t used = strlen(text);
      snprintf(text + used, sizeof text - used,
               CL_WORDS_NOT_STICKY CL_WORDS_THEY_CAN_RENAME_WHAT_IT_HOLDS);
    }
  } else if (use == CL_TRUST_FOLDER_ON_THE_WAY) {
    describe_writers(&st, CL_WORDS_NOT_STICKY, text, sizeof text);
    size_t used = strlen(text);
    snprintf(text + used, sizeof text - used,
             CL_WORDS_THEY_CAN_RENAME_WHAT_IT_HOLDS);
  } else {
    describe_writers(&st,
                     sticky ? CL_WORDS_STICKY_BIT_DOES_NOT_STOP_ADDING : "",
                     text, sizeof text);
  }
  *why = strdup(text);
  return 1;
}

/* A setuid/setgid or otherwise privileged (AT_SECURE) process must not let
 * its caller's environment steer which code it loads. */
static int process_is_secure(void) {
#if defined(__linux__)
  return getauxval(AT_SECURE) != 0;
#else
  return getuid() != geteuid() || getgid() != getegid();
#endif
}

static const char *variable_of(const char *name) {
  return process_is_secure() ? NULL : getenv(name);
}

char *cl_os_getenv(const char *name) {
  const char *v = variable_of(name);
  cl_question_log_text(CL_ASK_VARIABLE, name, v);
  return v ? strdup(v) : NULL;
}

static void each_with_prefix(const char *prefix, cl_env_visitor visit,
                             void *opaque);

void cl_os_env_each_with_prefix(const char *prefix, cl_env_visitor visit,
                                void *opaque) {
  note_now(CL_ASK_VARIABLES_WITH_PREFIX, prefix);
  each_with_prefix(prefix, visit, opaque);
}

static void each_with_prefix(const char *prefix, cl_env_visitor visit,
                             void *opaque) {
  if (process_is_secure())
    return;
  size_t plen = strlen(prefix);
  for (char **e = environ; e && *e; ++e) {
    if (strncmp(*e, prefix, plen) != 0)
      continue;
    const char *eq = strchr(*e, '=');
    if (!eq)
      continue;
    size_t nlen = (size_t)(eq - *e);
    char name[256];
    if (nlen >= sizeof name)
      continue;
    memcpy(name, *e, nlen);
    name[nlen] = '\0';
    visit(name, eq + 1, opaque);
  }
}

char *cl_os_system_dir(void) {
  return NULL;
}

char *cl_os_home_dir(void) {
  return cl_os_getenv("HOME");
}

char *cl_os_current_dir(void) {
  char *here = getcwd(NULL, 0); /* glibc and musl allocate it */
  cl_question_log_text(CL_ASK_CURRENT_DIR, "", here);
  return here;
}

int cl_os_answer_now(cl_os_question question, const char *subject,
                     cl_os_answer *out) {
  memset(out, 0, sizeof *out);
  struct stat st;
  char *text = NULL;
  switch (question) {
  case CL_ASK_STAT:
    if (stat(subject, &st) == 0)
      answer_of_stat(&st, out);
    return CUDALOAD_OK;
  case CL_ASK_LSTAT:
    if (lstat(subject, &st) == 0)
      answer_of_stat(&st, out);
    return CUDALOAD_OK;
  case CL_ASK_REAL_PATH:
    text = real_path_of(subject, NULL);
    break;
  case CL_ASK_LINK_TARGET:
    text = link_target_of(subject);
    break;
  case CL_ASK_VARIABLE: {
    const char *v = variable_of(subject);
    if (v && !(text = strdup(v)))
      return CUDALOAD_E_NO_MEMORY;
    break;
  }
  case CL_ASK_VARIABLES_WITH_PREFIX:
    if (!(text = calloc(1, 1)))
      return CUDALOAD_E_NO_MEMORY;
    each_with_prefix(subject, cl_question_log_add_variable, &text);
    if (!text)
      return CUDALOAD_E_NO_MEMORY;
    break;
  case CL_ASK_CURRENT_DIR:
    text = getcwd(NULL, 0);
    break;
  }
  out->found = text != NULL;
  out->text = text;
  return CUDALOAD_OK;
}

static pthread_mutex_t memo_mutex = PTHREAD_MUTEX_INITIALIZER;

void cl_os_memo_lock(void) {
  pthread_mutex_lock(&memo_mutex);
}

void cl_os_memo_unlock(void) {
  pthread_mutex_unlock(&memo_mutex);
}

/* ------------------------------------------------------------------------ */
/* The host                                                                 */
/* ------------------------------------------------------------------------ */

int cl_os_host_target(void) {
  return CUDALOAD_TARGET_LINUX;
}

const char *cl_os_host_machine(void) {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__i386__)
  return "i386";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
  return "ppc64le";
#else
  return NULL;
#endif
}

const char *cl_os_name(void) {
#if defined(__linux__)
  return "linux";
#elif defined(__APPLE__)
  return "macos";
#else
  return "unknown";
#endif
}

const char *cl_os_library_path_variable(void) {
  return "LD_LIBRARY_PATH";
}

int cl_os_same_path(const char *a, size_t alen, const char *b, size_t blen) {
  return alen == blen && memcmp(a, b, alen) == 0;
}

const char *cl_os_python_name(void) {
  return "python3";
}

const char *cl_os_driver_name(void) {
  return "libcuda.so.1";
}

char *cl_os_private_fix(const char *path, cl_trust_use use) {
  (void)use; /* a file or a folder: the same bits */
  /* The path is one shell word, whatever its name holds: a folder named
   * v$(touch PWNED) must not run touch when the line is pasted. Inside
   * '...' nothing is special; a ' is written '\'' (end, an escaped quote,
   * start again). The os layer is below common/shell_word.c, hence here. */
  static const char head[] = "chmod go-w '";
  size_t quotes = 0;
  for (const char *p = path; *p; ++p)
    quotes += *p == '\'';
  size_t size = sizeof head + strlen(path) + 3 * quotes + 2;
  char *fix = malloc(size);
  if (!fix)
    return NULL;
  char *out = fix + (sizeof head - 1);
  memcpy(fix, head, sizeof head - 1);
  for (const char *p = path; *p; ++p) {
    if (*p == '\'') {
      memcpy(out, "'\\''", 4);
      out += 4;
    } else {
      *out++ = *p;
    }
  }
  *out++ = '\'';
  *out = '\0';
  return fix;
}

int cl_os_owned_by_this_user(const char *path, char **owner, char **me) {
  *owner = NULL;
  *me = NULL;
  struct stat st;
  if (stat(path, &st) != 0)
    return -1;
  uid_t euid = geteuid();
  if (st.st_uid == euid)
    return 1;
  char text[32];
  snprintf(text, sizeof text, "uid %lu", (unsigned long)st.st_uid);
  *owner = strdup(text);
  snprintf(text, sizeof text, "uid %lu", (unsigned long)euid);
  *me = strdup(text);
  return 0;
}

double cl_os_clock_ms(void) {
  struct timespec now;
  if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
    return 0;
  return (double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1e6;
}
