/* SPDX-License-Identifier: MIT */
/*
 * platform.h - what each operating system must provide. lib/posix/ and
 * lib/win32/ implement it; CMake picks the folder. This header is the only
 * OS switch outside those folders: portable code includes it and never
 * tests _WIN32 itself (scripts/test checks).
 *
 * All paths are UTF-8. The Windows side converts to and from UTF-16 and uses
 * only the W APIs.
 */
#ifndef CUDALOAD_PLATFORM_H
#define CUDALOAD_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* The path separator of the host, and the separator of PATH-like lists. */
#ifdef _WIN32
#define CL_DIR_SEP '\\'
#define CL_LIST_SEP ';'
#else
#define CL_DIR_SEP '/'
#define CL_LIST_SEP ':'
#endif

/* Whether two spellings of a path that differ only in the case of letters
 * name one file on the host (Windows: NTFS and FAT compare names without
 * case), so that such spellings of a root count as one root. */
#ifdef _WIN32
#define CL_PATH_FOLD_CASE 1
#else
#define CL_PATH_FOLD_CASE 0
#endif

/* What a path names, without following a final symlink (cl_os_lstat_kind) or
 * following it (cl_os_stat_kind). */
typedef enum cl_file_kind {
  CL_KIND_MISSING = 0,
  CL_KIND_REGULAR,
  CL_KIND_DIRECTORY,
  CL_KIND_SYMLINK, /* only from cl_os_lstat_kind */
  CL_KIND_OTHER,   /* FIFO, socket, device */
  CL_KIND_UNKNOWN  /* only from cl_os_list_dir: the listing did not say */
} cl_file_kind;

cl_file_kind cl_os_stat_kind(const char *path, uint64_t *size_out);
cl_file_kind cl_os_lstat_kind(const char *path);

/*
 * Directory listing. Calls visit(name, kind, opaque) for each entry except
 * "." and "..", in the order the OS returns them; kind is what the listing
 * itself tells without following a symlink (d_type; the find data's
 * attributes), CL_KIND_UNKNOWN when it does not (some file systems): then
 * ask cl_os_lstat_kind. Returns 0, or a CUDALOAD_E_* status (with last error
 * set) when the folder cannot be opened. visit returning non-zero stops the
 * walk early (still returns 0).
 */
typedef int (*cl_dir_visitor)(const char *name, cl_file_kind kind,
                              void *opaque);
int cl_os_list_dir(const char *dir, cl_dir_visitor visit, void *opaque);

/*
 * Answer forms (common/error.h): each `cl_os_..._quiet` function does what
 * the function without the suffix does and returns the same status, but
 * writes no last error; where its caller needs to know why, it fills a
 * cl_os_no (which may be NULL). The failing form is the answer form
 * followed by cl_fail_os_no(), so both say no for the same reasons.
 */
typedef struct cl_os_no {
  int status;            /* the CUDALOAD_E_* status of the "no" */
  int from_os;           /* 1: os_code is the OS's reason */
  unsigned long os_code; /* errno; GetLastError() */
  const char *what;      /* static words ("not a regular file (a FIFO)",
                            "read failed"), or NULL */
} cl_os_no;
/* Write the last error for a "no" an answer form gave about path (NULL:
 * none named): path and what joined by ": ", then the OS's text when
 * from_os (cl_fail_os). Returns status. */
int cl_fail_os_no(int status, const cl_os_no *no, const char *path);

/* cl_os_list_dir's answer form: sets no error. */
int cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit, void *opaque,
                         cl_os_no *no);

/* 0 when dir is a folder this process may list, else the status and last
 * error cl_os_list_dir would give, without reading any entry. */
int cl_os_dir_check_listable(const char *dir);
/* Its answer form: the same status, no error written. */
int cl_os_dir_check_listable_quiet(const char *dir, cl_os_no *no);

/* A malloc'ed canonical absolute path with every symlink resolved, or NULL
 * (last error set) when the path does not resolve. */
char *cl_os_real_path(const char *path);
/* cl_os_real_path's answer form: NULL when the path does not resolve, and
 * no error is written. */
char *cl_os_real_path_quiet(const char *path, cl_os_no *no);

/* 1 if the path is absolute on the host (Windows: drive or UNC). */
int cl_os_path_is_absolute(const char *path);

/*
 * A read-only open file. cl_os_file_open refuses anything but a regular file
 * (CUDALOAD_E_NOT_A_FILE) and never blocks opening a FIFO or device.
 */
typedef struct cl_file cl_file;
int cl_os_file_open(const char *path, cl_file **out, uint64_t *size_out);
/* Read exactly len bytes at offset; CUDALOAD_E_MALFORMED past the end,
 * CUDALOAD_E_IO on a read error. */
int cl_os_file_read_at(cl_file *f, uint64_t offset, void *buf, size_t len);
/* Read up to len bytes from offset on, until the end of the file as reading
 * finds it, whatever size the file reported: *got is what was read. For
 * readers that must notice a file whose size says nothing about its content
 * (/proc and /sys files report 0 bytes or a page). CUDALOAD_E_IO on a read
 * error. */
int cl_os_file_read_upto(cl_file *f, uint64_t offset, void *buf, size_t len,
                         size_t *got);
/* The answer forms of the three above: the same statuses, no error
 * written. */
int cl_os_file_open_quiet(const char *path, cl_file **out, uint64_t *size_out,
                          cl_os_no *no);
int cl_os_file_read_at_quiet(cl_file *f, uint64_t offset, void *buf, size_t len,
                             cl_os_no *no);
int cl_os_file_read_upto_quiet(cl_file *f, uint64_t offset, void *buf,
                               size_t len, size_t *got, cl_os_no *no);
void cl_os_file_close(cl_file *f);

/* What names a file and what it was when looked at: its identity (st_dev
 * and st_ino; the volume serial and file index), its size and its last
 * write time. Two stamps that are equal name the same unchanged file, so
 * that what was read from it once can serve every later question in a run
 * (binary/file_cache.c), whatever spelling or link reached it. */
typedef struct cl_file_stamp {
  uint64_t device, inode, size;
  int64_t mtime_ns; /* nanoseconds (Windows: 100 ns units) of an OS epoch */
  /* POSIX: the last status change (st_ctim), which no program can set
   * back, so that a rewrite whose mtime was put back (`touch -d`) still
   * differs; 0 on Windows, whose handle information has no such time. */
  int64_t ctime_ns;
  cl_file_kind kind;
} cl_file_stamp;
/* The stamp of an open file (as fstat saw it when it was opened). */
void cl_os_file_stamp(const cl_file *f, cl_file_stamp *out);
/* The stamp of what path names, following links: 1, or 0 when it names
 * nothing that can be stat'ed (no error is written). */
int cl_os_path_stamp(const char *path, cl_file_stamp *out);

/* The stamp's times' units in one second (POSIX: nanoseconds; Windows:
 * FILETIME's 100 ns), and the time now in those units and from the same
 * epoch (the clock a file system stamps files with, as a process reads
 * it), for the names store's rule on stamps too young to be trusted
 * (binary/names_store.h). */
#ifdef _WIN32
#define CL_FILE_TIME_SECOND ((int64_t)10000000)
#else
#define CL_FILE_TIME_SECOND ((int64_t)1000000000)
#endif
int64_t cl_os_file_time_now(void);

/* cudaload's own per-user cache folder (binary/names_store.c), as the OS
 * places such caches: POSIX $XDG_CACHE_HOME/cudaload (when absolute), else
 * $HOME/.cache/cudaload; Windows %LOCALAPPDATA%\cudaload. Malloc'ed, NULL
 * when the variables do not tell. Sets no error. */
char *cl_os_user_cache_dir(void);
/* Read a file of that cache whole, trusting it only when no one else could
 * have written it: a regular file (not a link, FIFO or device; opened
 * without following a link and without blocking), owned by this user and
 * writable by no other (POSIX: the mode; Windows: the DACL), at most max
 * bytes. 0 with *data malloc'ed (NUL-terminated) and *len, else a
 * CUDALOAD_E_* status; sets no error. */
int cl_os_private_file_read(const char *path, size_t max, char **data,
                            size_t *len);
/* Replace dir/name with data whole, so that a reader sees the old file or
 * the new one and never a part: dir (and its missing parents) made private
 * to this user (POSIX 0700), data written to a new file beside (0600) and
 * renamed over the old one; two writers racing leave one of their files.
 * The temporary files of name a killed writer left (name.*.tmp, last
 * written more than CL_OS_LEFTOVER_SECONDS ago) are removed first. 0, or a
 * CUDALOAD_E_* status; sets no error. */
#define CL_OS_LEFTOVER_SECONDS 600
int cl_os_private_file_replace(const char *dir, const char *name,
                               const void *data, size_t len);

/* Identity of a file (st_dev/st_ino; the volume serial and file index),
 * following links, so that two names of one file compare equal (the loader
 * model's "already loaded" by file). 1 with *out filled, or 0 when it
 * cannot be told (no such file). Sets no error. */
typedef struct cl_file_identity {
  uint64_t device, inode;
} cl_file_identity;
int cl_os_file_identity(const char *path, cl_file_identity *out);

/* Environment: a secure getenv (NULL for setuid/elevated processes). The
 * returned string is malloc'ed (Windows converts from UTF-16); free it. */
char *cl_os_getenv(const char *name);

/* What a path is to a library the scan lists, which decides what other
 * users must not be able to do to it (cl_os_writable_by_others). */
typedef enum cl_trust_use {
  /* A folder whose libraries are listed, or that a plan puts on a search
   * path: whoever may add a file to it plants a library. */
  CL_TRUST_LIBRARY_FOLDER,
  /* A folder above one, on the way from a root (or from where a link leads)
   * to a library's folder: whoever may rename or remove what it holds puts
   * a folder of his own in its place. Adding a file is harmless there. */
  CL_TRUST_FOLDER_ON_THE_WAY,
  /* The library itself: whoever may write to it changes its code. */
  CL_TRUST_LIBRARY_FILE
} cl_trust_use;

/* 1 when other users can do to `path` what `use` forbids (see
 * CUDALOAD_ALLOW_WRITABLE_ROOTS), with *why a malloc'ed sentence ("writable
 * by every user (mode 0777)"); 0 when not, or when it cannot tell (what
 * cannot be stat'ed is not listed anyway). POSIX: from the mode (a sticky
 * folder on the way is safe: others cannot rename what they do not own).
 * Windows: from the DACL (rights of a group of other users such as
 * Everyone, or no DACL). Sets no error. */
int cl_os_writable_by_others(const char *path, cl_trust_use use, char **why);
/* The same of `path` itself when it is not a link, in one look at the file
 * system where the OS allows (POSIX: one lstat instead of an lstat to tell a
 * link and a stat to judge it): *is_link set to 1 and 0 returned for a link
 * (the caller resolves it and asks of its target), else as
 * cl_os_writable_by_others(). A version source's checks ask this of each
 * entry (trust.c). */
int cl_os_writable_by_others_unless_link(const char *path, cl_trust_use use,
                                         char **why, int *is_link);
/* What the link at `path` says (its target as written, "libnvvm.so.4"),
 * malloc'ed; NULL when path is no link or cannot be read, and on Windows,
 * where a link is resolved whole. Sets no error. */
char *cl_os_link_target(const char *path);
/* cl_os_path_stamp() and cl_os_writable_by_others() of `path` for `use`, in
 * one look at the file system where the OS allows (POSIX: one stat, where
 * a scan asked for each apart of a folder it lists and judges). Returns
 * what cl_os_path_stamp() does; *unsafe and *why as
 * cl_os_writable_by_others() says (0 and NULL when nothing was stat'ed). */
int cl_os_path_stamp_judged(const char *path, cl_trust_use use,
                            cl_file_stamp *out, int *unsafe, char **why);
/* Calls visit(name, value) for every environment variable whose name starts
 * with prefix (CUDA_PATH_V12_4 for "CUDA_PATH_V"). Secure like cl_os_getenv. */
typedef void (*cl_env_visitor)(const char *name, const char *value,
                               void *opaque);
void cl_os_env_each_with_prefix(const char *prefix, cl_env_visitor visit,
                                void *opaque);

/* The folder the OS keeps its own libraries in and the NVIDIA display
 * driver installs nvcuda.dll into (Windows: GetSystemDirectoryW, System32),
 * malloc'ed; NULL on POSIX, which has no such single folder (the loader's
 * cache says where libcuda is). */
char *cl_os_system_dir(void);

/* The user's home folder (malloc'ed) or NULL. */
char *cl_os_home_dir(void);
/* The process's current folder, absolute (malloc'ed), or NULL when it
 * cannot be told (removed, or out of memory). */
char *cl_os_current_dir(void);

/* The host, as the portable code asks for it instead of testing _WIN32
 * (the OS switch is these files alone: posix/, win32/). */
/* CUDALOAD_TARGET_WINDOWS on Windows, CUDALOAD_TARGET_LINUX elsewhere: the
 * naming convention of the libraries this process can load. */
int cl_os_host_target(void);
/* The machine this code was built for, named as `cudaload inspect` names a
 * file's ("x86_64", "aarch64", "i386", "ppc64le"), NULL when none of those:
 * the machine of the libraries this process can load. */
const char *cl_os_host_machine(void);
/* "linux", "windows", "macos" or "unknown", for reports. */
const char *cl_os_name(void);
/* The variable the loader searches: "LD_LIBRARY_PATH" or "PATH". */
const char *cl_os_library_path_variable(void);
/* Do the two paths (lengths given, trailing separators already cut) name
 * the same folder as the OS compares them? Windows: without case, '/' and
 * '\' alike; POSIX: byte for byte. */
int cl_os_same_path(const char *a, size_t alen, const char *b, size_t blen);
/* The file name of the Python interpreter on PATH: "python3",
 * "python.exe". */
const char *cl_os_python_name(void);
/* The NVIDIA driver library's name as the loader finds it: "libcuda.so.1",
 * "nvcuda.dll". */
const char *cl_os_driver_name(void);
/* The command that takes from other users what `use` forbids them on
 * `path` (the file or folder cl_os_writable_by_others refused), for a fix
 * line: POSIX `chmod go-w "PATH"`; Windows `icacls "PATH" /inheritance:d
 * /grant:r *SID:(RX) ...` for each group its DACL lets write (read and run
 * stay theirs), or `icacls "PATH" /reset` for a missing DACL. Malloc'ed,
 * NULL when out of memory. Sets no error. */
char *cl_os_private_fix(const char *path, cl_trust_use use);

/* Whether the user this process acts as (POSIX: the effective uid;
 * Windows: the token's user, or a group of the token that owns it, as an
 * elevated administrator's files are owned by Administrators) owns what
 * `path` names, following links: 1 yes; 0 no, with *owner a malloc'ed
 * description of who does ("uid 0", "S-1-5-18") and *me who this process
 * is; -1 when it cannot be told (no such file). `cudaload fix` writes only
 * into an environment its user owns: a root-owned file in a user's venv
 * is one its owner can no longer remove or update. Sets no error. */
int cl_os_owned_by_this_user(const char *path, char **owner, char **me);

/* Replace dir/name with data whole, as cl_os_private_file_replace() does
 * (a new file beside it, renamed over the old one), for a file other users
 * may read but not write: dir must exist and is not changed; the new file
 * is POSIX 0644 whatever the umask (Windows: the folder's inherited ACL).
 * 0, or a CUDALOAD_E_* status with the last error set. */
int cl_os_shared_file_replace(const char *dir, const char *name,
                              const void *data, size_t len);

/* Run the program argv[0] (an absolute path; Windows: a .exe, never a
 * batch file) with the arguments argv[1..] (NULL-terminated) as its own
 * words, never through a shell, with this process's environment, current
 * folder and standard streams, and wait for it to end. 0 with *exit_code
 * its status (POSIX: 128 + N when signal N ended it), or a CUDALOAD_E_*
 * status with the last error set when it could not be started. */
int cl_os_run_program(char *const *argv, int *exit_code);

/*
 * The questions a scan asks of the file system and the environment, and
 * what answered them, so that a scan kept in the process (scan/scan_memo.c)
 * is trusted only while every one is answered the same way. Each function
 * of this seam that a scan asks notes its question and its answer in the
 * calling thread's question log while one is open (common/question_log.h),
 * the first time it is asked, from what the question itself saw where the
 * OS allows (POSIX: the stat, lstat or fstat it made; a folder's fstat
 * before its entries are read): a change after that look changes the
 * answer asked again.
 */
typedef enum cl_os_question {
  /* What a path names, following links: asked by a stat, a folder listing,
   * an open, a real-path lookup's target, a trust judgement. */
  CL_ASK_STAT = 1,
  /* What a path names itself, a link not followed. */
  CL_ASK_LSTAT,
  CL_ASK_REAL_PATH,   /* the real path it resolves to */
  CL_ASK_LINK_TARGET, /* what the link at the path says */
  CL_ASK_VARIABLE,    /* an environment variable's value (subject: name) */
  /* Every variable whose name starts with the subject, and their values. */
  CL_ASK_VARIABLES_WITH_PREFIX,
  CL_ASK_CURRENT_DIR /* the process's current folder (subject: "") */
} cl_os_question;

/* An answer. For CL_ASK_STAT and CL_ASK_LSTAT: the identity, size, times
 * (last write; POSIX st_ctim, Windows ChangeTime, which a change of the
 * mode, owner or ACL moves too) and, on POSIX, mode and owner; for the
 * others, text. found is 0 when there was nothing to stat or no text. */
typedef struct cl_os_answer {
  int found;
  uint64_t device, inode, size;
  int64_t mtime,
      ctime; /* CL_FILE_TIME_SECOND units, cl_os_file_time_now's epoch */
  uint64_t mode, owner; /* POSIX st_mode, uid << 32 | gid; Windows attributes */
  char *text;           /* malloc'ed, or NULL */
} cl_os_answer;

/* Ask question of subject now, the way the seam's functions note it: 0 with
 * *out filled (found 0 when it names nothing), or CUDALOAD_E_NO_MEMORY.
 * Notes nothing; sets no error. Free out->text. */
int cl_os_answer_now(cl_os_question question, const char *subject,
                     cl_os_answer *out);

/* A process-wide lock for what the library keeps across contexts (the
 * scans kept, scan/scan_memo.c). Not recursive. */
void cl_os_memo_lock(void);
void cl_os_memo_unlock(void);

/* A monotonic clock in milliseconds, for timeouts and stage timings. */
double cl_os_clock_ms(void);

/* Text for an OS error number (errno / GetLastError) into buf. */
void cl_os_error_text(unsigned long code, char *buf, size_t len);

/* Thread-local storage for the last-error buffer. */
#if defined(_MSC_VER)
#define CL_THREAD_LOCAL __declspec(thread)
#else
#define CL_THREAD_LOCAL _Thread_local
#endif

#endif
