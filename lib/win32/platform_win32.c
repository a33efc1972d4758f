/* SPDX-License-Identifier: MIT */
/*
 * platform_win32.c - lib/os/platform.h for Windows (Windows 7 and later).
 *
 * Every path and environment string crosses this file as UTF-8 and is
 * converted to UTF-16 for the W APIs, so names outside the ANSI code page work
 * and nothing depends on the process's code page. Conversions are strict
 * (MB_ERR_INVALID_CHARS / WC_ERR_INVALID_CHARS): a byte sequence that is not
 * UTF-8 names no file rather than a different one.
 *
 * Calls that touch the file system run with SEM_FAILCRITICALERRORS set for
 * the calling thread, so probing an empty card reader or a disconnected
 * network drive fails with an error instead of showing a dialog box.
 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* SetThreadErrorMode, FindExInfoBasic */
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "cudaload.h"
#include "common/error.h"
#include "common/question_log.h"
#include "common/reason_words.h"
#include "os/platform.h"
#include "win32/acl_win32.h"
#include "win32/wide.h"

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

static int status_for_win32_error(DWORD err) {
  switch (err) {
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_NAME:  /* "C:\a<b": names nothing that can exist */
  case ERROR_INVALID_DRIVE: /* "Q:\" with no drive Q */
  case ERROR_BAD_NETPATH:   /* "\\nosuchserver\share" */
  case ERROR_BAD_NET_NAME:  /* "\\server\nosuchshare" */
  case ERROR_DIRECTORY:     /* listing a file as if it were a folder */
  case ERROR_NOT_READY:     /* a removable drive without media */
    return CUDALOAD_E_NOT_FOUND;
  case ERROR_NOT_ENOUGH_MEMORY:
  case ERROR_OUTOFMEMORY:
    return CUDALOAD_E_NO_MEMORY;
  default:
    return CUDALOAD_E_IO;
  }
}

/* Suppress the "There is no disk in the drive" style dialogs for this thread
 * only (SetErrorMode would change the whole process behind the host
 * application's back). Returns the mode to restore. */
static DWORD quiet_errors_begin(void) {
  DWORD old_mode = 0;
  if (!SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX,
                          &old_mode))
    old_mode = GetThreadErrorMode();
  return old_mode;
}

/* Restore the thread's error mode without disturbing GetLastError(), which
 * the caller has usually not read yet. */
static void quiet_errors_end(DWORD old_mode) {
  DWORD saved_error = GetLastError();
  SetThreadErrorMode(old_mode, NULL);
  SetLastError(saved_error);
}

/*
 * The UTF-16 form of `path` for the W APIs, malloc'ed into *out. Long
 * absolute paths get the \\?\ form, which lifts the MAX_PATH limit; since
 * that form turns off the API's own clean-up ('/' to '\', "." and ".."),
 * GetFullPathNameW does it first. Returns a status, with the last error
 * naming `path` on failure.
 */
/* Fill *no (when asked for) with the OS's reason err and return status. */
static int os_no(cl_os_no *no, int status, DWORD err) {
  if (no) {
    no->status = status;
    no->from_os = 1;
    no->os_code = err;
    no->what = NULL;
  }
  return status;
}

/* Fill *no (when asked for) with our own reason and return status. */
static int own_no(cl_os_no *no, int status, const char *what) {
  if (no) {
    no->status = status;
    no->from_os = 0;
    no->os_code = 0;
    no->what = what;
  }
  return status;
}

static int to_win_path_quiet(const char *path, wchar_t **out, cl_os_no *no);

static int to_win_path(const char *path, wchar_t **out) {
  cl_os_no no;
  int status = to_win_path_quiet(path, out, &no);
  return status ? cl_fail_os_no(status, &no, path) : CUDALOAD_OK;
}

/* to_win_path's answer form: sets no error. */
static int to_win_path_quiet(const char *path, wchar_t **out, cl_os_no *no) {
  int status;
  wchar_t *wide = cl_os_utf8_to_wide(path, &status);
  *out = NULL;
  if (!wide) {
    if (status == CUDALOAD_E_NO_MEMORY)
      return own_no(no, status, "out of memory");
    return own_no(no, status, "not a valid UTF-8 path");
  }
  *out = wide;
  if (cl_os_wide_path_is_short(wide) || !cl_os_path_is_absolute(path))
    return CUDALOAD_OK;

  DWORD needed = GetFullPathNameW(wide, 0, NULL, NULL);
  if (needed == 0)
    return CUDALOAD_OK; /* let the real call report the problem */
  wchar_t *full = malloc((size_t)needed * sizeof *full);
  DWORD got = full ? GetFullPathNameW(wide, needed, full, NULL) : 0;
  if (got == 0 || got >= needed) {
    free(full);
    return CUDALOAD_OK;
  }
  wchar_t *verbatim = cl_os_long_path_form(full);
  if (verbatim) {
    free(wide);
    *out = verbatim;
  }
  return CUDALOAD_OK;
}

/* ------------------------------------------------------------------------ */
/* What a path names                                                        */
/* ------------------------------------------------------------------------ */

/* Reparse points that behave like symbolic links: symlinks and junctions.
 * Others (cloud placeholders, deduplicated files, app execution aliases) are
 * the files they stand for. */
static int is_link_reparse_tag(DWORD tag) {
  return tag == IO_REPARSE_TAG_SYMLINK || tag == IO_REPARSE_TAG_MOUNT_POINT;
}

static cl_file_kind kind_of_attributes(DWORD attributes) {
  if (attributes & FILE_ATTRIBUTE_DIRECTORY)
    return CL_KIND_DIRECTORY;
  if (attributes & FILE_ATTRIBUTE_DEVICE)
    return CL_KIND_OTHER;
  return CL_KIND_REGULAR;
}

/* The reparse tag of the reparse point at wide_path, or 0 when it cannot be
 * read. */
static DWORD reparse_tag_of(const wchar_t *wide_path) {
  HANDLE h = CreateFileW(
      wide_path, FILE_READ_ATTRIBUTES,
      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
      OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
      NULL);
  if (h == INVALID_HANDLE_VALUE)
    return 0;
  FILE_ATTRIBUTE_TAG_INFO info;
  DWORD tag = 0;
  if (GetFileInformationByHandleEx(h, FileAttributeTagInfo, &info, sizeof info))
    tag = info.ReparseTag;
  CloseHandle(h);
  return tag;
}

/* The questions a scan asks are noted (common/question_log.h) by asking
 * each now, before what it is about is read: what changes after this look
 * changes the answer asked again. */
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
  note_now(CL_ASK_STAT, path);
  wchar_t *wide;
  if (to_win_path(path, &wide) != CUDALOAD_OK)
    return CL_KIND_MISSING;
  DWORD old_mode = quiet_errors_begin();
  cl_file_kind kind = CL_KIND_MISSING;
  WIN32_FILE_ATTRIBUTE_DATA data;
  if (GetFileAttributesExW(wide, GetFileExInfoStandard, &data)) {
    DWORD attributes = data.dwFileAttributes;
    uint64_t size = ((uint64_t)data.nFileSizeHigh << 32) | data.nFileSizeLow;
    if (attributes & FILE_ATTRIBUTE_REPARSE_POINT) {
      /* GetFileAttributesExW describes the link itself; opening without
       * FILE_FLAG_OPEN_REPARSE_POINT follows it to the target, as stat()
       * does. A dangling link is missing, as with stat(). */
      HANDLE h =
          CreateFileW(wide, FILE_READ_ATTRIBUTES,
                      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                      NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
      BY_HANDLE_FILE_INFORMATION info;
      if (h == INVALID_HANDLE_VALUE) {
        attributes = INVALID_FILE_ATTRIBUTES;
      } else {
        if (GetFileInformationByHandle(h, &info)) {
          attributes = info.dwFileAttributes;
          size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
        } else {
          attributes = INVALID_FILE_ATTRIBUTES;
        }
        CloseHandle(h);
      }
    }
    if (attributes != INVALID_FILE_ATTRIBUTES) {
      kind = kind_of_attributes(attributes);
      if (size_out)
        *size_out = kind == CL_KIND_REGULAR ? size : 0;
    }
  }
  quiet_errors_end(old_mode);
  free(wide);
  return kind;
}

cl_file_kind cl_os_lstat_kind(const char *path) {
  note_now(CL_ASK_LSTAT, path);
  wchar_t *wide;
  if (to_win_path(path, &wide) != CUDALOAD_OK)
    return CL_KIND_MISSING;
  DWORD old_mode = quiet_errors_begin();
  cl_file_kind kind = CL_KIND_MISSING;
  WIN32_FILE_ATTRIBUTE_DATA data;
  if (GetFileAttributesExW(wide, GetFileExInfoStandard, &data)) {
    kind = kind_of_attributes(data.dwFileAttributes);
    /* When the tag cannot be read, a reparse point is reported as a link:
     * callers then resolve it with cl_os_real_path, which is always right. */
    if (data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
      DWORD tag = reparse_tag_of(wide);
      if (tag == 0 || is_link_reparse_tag(tag))
        kind = CL_KIND_SYMLINK;
    }
  }
  quiet_errors_end(old_mode);
  free(wide);
  return kind;
}

/* ------------------------------------------------------------------------ */
/* Folders                                                                  */
/* ------------------------------------------------------------------------ */

/* "<dir>\*", the pattern that finds every entry of dir; NULL without
 * memory. */
static wchar_t *every_entry_pattern(const wchar_t *wide) {
  size_t units = wcslen(wide);
  wchar_t *pattern = malloc((units + 3) * sizeof *pattern);
  if (!pattern)
    return NULL;
  memcpy(pattern, wide, units * sizeof *pattern);
  if (units > 0 && pattern[units - 1] != L'\\' && pattern[units - 1] != L'/')
    pattern[units++] = L'\\';
  pattern[units++] = L'*';
  pattern[units] = L'\0';
  return pattern;
}

/* Hand visit each entry of a search, from the first one (in entry), but
 * "." and "..", until it asks to stop. */
static void visit_entries(HANDLE find, WIN32_FIND_DATAW *entry,
                          cl_dir_visitor visit, void *opaque) {
  do {
    const wchar_t *name = entry->cFileName;
    if (name[0] == L'.' &&
        (name[1] == L'\0' || (name[1] == L'.' && name[2] == L'\0')))
      continue;
    /* A name that has no UTF-8 form (an unpaired surrogate) cannot be passed
     * back to any function here, so it is not listed. */
    char *utf8 = cl_os_wide_to_utf8(name, -1);
    if (!utf8)
      continue;
    /* A reparse point may be a link or the file it stands for: let the
     * caller ask cl_os_lstat_kind, which reads the tag. */
    cl_file_kind kind = (entry->dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
                            ? CL_KIND_UNKNOWN
                            : kind_of_attributes(entry->dwFileAttributes);
    int stop = visit(utf8, kind, opaque);
    free(utf8);
    if (stop)
      break;
  } while (FindNextFileW(find, entry));
}

int cl_os_list_dir(const char *dir, cl_dir_visitor visit, void *opaque) {
  cl_os_no no;
  int status = cl_os_list_dir_quiet(dir, visit, opaque, &no);
  return status ? cl_fail_os_no(status, &no, dir) : CUDALOAD_OK;
}

int cl_os_list_dir_quiet(const char *dir, cl_dir_visitor visit, void *opaque,
                         cl_os_no *no) {
  note_now(CL_ASK_STAT, dir);
  wchar_t *wide;
  int status = to_win_path_quiet(dir, &wide, no);
  if (status != CUDALOAD_OK)
    return status;
  wchar_t *pattern = every_entry_pattern(wide);
  if (!pattern) {
    free(wide);
    return own_no(no, CUDALOAD_E_NO_MEMORY, "out of memory");
  }

  DWORD old_mode = quiet_errors_begin();
  WIN32_FIND_DATAW entry;
  /* FindExInfoBasic skips the 8.3 short names nobody here needs; the large
   * fetch reads big folders (torch\lib, CUDA bin) in fewer round trips. */
  HANDLE find =
      FindFirstFileExW(pattern, FindExInfoBasic, &entry, FindExSearchNameMatch,
                       NULL, FIND_FIRST_EX_LARGE_FETCH);
  if (find == INVALID_HANDLE_VALUE) {
    DWORD err = GetLastError();
    /* A drive's root has no "." or "..": when empty, nothing matches "*". */
    DWORD attributes = GetFileAttributesW(wide);
    if (err == ERROR_FILE_NOT_FOUND && attributes != INVALID_FILE_ATTRIBUTES &&
        (attributes & FILE_ATTRIBUTE_DIRECTORY))
      status = CUDALOAD_OK;
    else
      status = os_no(no, status_for_win32_error(err), err);
    quiet_errors_end(old_mode);
    free(pattern);
    free(wide);
    return status;
  }
  quiet_errors_end(old_mode);

  visit_entries(find, &entry, visit, opaque);
  FindClose(find);
  free(pattern);
  free(wide);
  return status;
}

static int stop_at_first(const char *name, cl_file_kind kind, void *opaque) {
  (void)name;
  (void)kind;
  (void)opaque;
  return 1;
}

int cl_os_dir_check_listable(const char *dir) {
  /* FindFirstFileExW is what tells whether a folder may be listed; it
   * returns one batch of entries, and the walk stops after the first. */
  return cl_os_list_dir(dir, stop_at_first, NULL);
}

int cl_os_dir_check_listable_quiet(const char *dir, cl_os_no *no) {
  return cl_os_list_dir_quiet(dir, stop_at_first, NULL, no);
}

/* ------------------------------------------------------------------------ */
/* Paths                                                                    */
/* ------------------------------------------------------------------------ */

/* The final path of an open handle, malloc'ed, or NULL. */
static wchar_t *final_path_of(HANDLE h) {
  DWORD needed = GetFinalPathNameByHandleW(
      h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  if (needed == 0)
    return NULL;
  wchar_t *path = malloc(((size_t)needed + 1) * sizeof *path);
  if (!path)
    return NULL;
  DWORD got = GetFinalPathNameByHandleW(h, path, needed + 1,
                                        FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  if (got == 0 || got > needed) {
    free(path);
    return NULL;
  }
  return path;
}

/* GetFullPathNameW of wide, malloc'ed, or NULL. */
static wchar_t *full_path_of(const wchar_t *wide) {
  DWORD needed = GetFullPathNameW(wide, 0, NULL, NULL);
  if (needed == 0)
    return NULL;
  wchar_t *path = malloc((size_t)needed * sizeof *path);
  if (!path)
    return NULL;
  DWORD got = GetFullPathNameW(wide, needed, path, NULL);
  if (got == 0 || got >= needed) {
    free(path);
    return NULL;
  }
  return path;
}

char *cl_os_real_path(const char *path) {
  cl_os_no no;
  char *resolved = cl_os_real_path_quiet(path, &no);
  if (!resolved)
    cl_fail_os_no(no.status, &no, path);
  return resolved;
}

static char *real_path_of(const char *path, cl_os_no *no);

char *cl_os_real_path_quiet(const char *path, cl_os_no *no) {
  char *resolved = real_path_of(path, no);
  cl_question_log_text(CL_ASK_REAL_PATH, path, resolved);
  return resolved;
}

static char *real_path_of(const char *path, cl_os_no *no) {
  wchar_t *wide;
  if (to_win_path_quiet(path, &wide, no) != CUDALOAD_OK)
    return NULL;
  DWORD old_mode = quiet_errors_begin();
  /* FILE_FLAG_BACKUP_SEMANTICS lets folders be opened too; no access right
   * is asked for, only the name, so a file we may not read still resolves. */
  HANDLE h = CreateFileW(wide, 0,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD err = GetLastError();
    quiet_errors_end(old_mode);
    free(wide);
    os_no(no, status_for_win32_error(err), err);
    return NULL;
  }
  wchar_t *resolved = final_path_of(h);
  CloseHandle(h);
  if (!resolved) {
    /* Wine (8.0) cannot always map a handle back to a DOS name (files
     * reached through some Unix mounts); the file does exist, since it
     * opened, so fall back to the clean absolute name. On Wine, Unix
     * symlinks are resolved below the Windows layer and never show in a
     * name anyway. */
    resolved = full_path_of(wide);
  }
  DWORD err = GetLastError();
  quiet_errors_end(old_mode);
  free(wide);
  if (!resolved) {
    os_no(no, status_for_win32_error(err), err);
    if (no)
      no->what = "cannot resolve the path";
    return NULL;
  }
  cl_os_strip_verbatim_prefix(resolved);
  char *utf8 = cl_os_wide_to_utf8(resolved, -1);
  free(resolved);
  if (!utf8)
    own_no(no, CUDALOAD_E_IO, "the resolved path has no UTF-8 form");
  return utf8;
}

static int is_separator(char c) {
  return c == '\\' || c == '/';
}

int cl_os_path_is_absolute(const char *path) {
  if (!path)
    return 0;
  /* "C:\x" and "C:/x". "C:x" is relative to drive C's current folder and
   * "\x" to the current drive: neither names one place. */
  if (((path[0] >= 'A' && path[0] <= 'Z') ||
       (path[0] >= 'a' && path[0] <= 'z')) &&
      path[1] == ':' && is_separator(path[2]))
    return 1;
  /* "\\server\share", "\\?\C:\x", "\\.\device" (and their '/' spellings). */
  return is_separator(path[0]) && is_separator(path[1]);
}

/* ------------------------------------------------------------------------ */
/* Files                                                                    */
/* ------------------------------------------------------------------------ */

struct cl_file {
  HANDLE handle;
  uint64_t size;
  cl_file_stamp stamp;
};

static void stamp_of(const BY_HANDLE_FILE_INFORMATION *info,
                     cl_file_stamp *out) {
  out->device = info->dwVolumeSerialNumber;
  out->inode = (uint64_t)info->nFileIndexHigh << 32 | info->nFileIndexLow;
  out->size = ((uint64_t)info->nFileSizeHigh << 32) | info->nFileSizeLow;
  out->mtime_ns =
      (int64_t)((uint64_t)info->ftLastWriteTime.dwHighDateTime << 32 |
                info->ftLastWriteTime.dwLowDateTime);
  out->ctime_ns = 0;
  out->kind = info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY
                  ? CL_KIND_DIRECTORY
                  : CL_KIND_REGULAR;
}

void cl_os_file_stamp(const cl_file *f, cl_file_stamp *out) {
  *out = f->stamp;
}

char *cl_os_link_target(const char *path) {
  (void)path;
  return NULL;
}

/* Windows asks the DACL apart from the stamp: two looks, as before. */
int cl_os_path_stamp_judged(const char *path, cl_trust_use use,
                            cl_file_stamp *out, int *unsafe, char **why) {
  *why = NULL;
  *unsafe = 0;
  if (!cl_os_path_stamp(path, out))
    return 0;
  *unsafe = cl_os_writable_by_others(path, use, why);
  return 1;
}

int cl_os_path_stamp(const char *path, cl_file_stamp *out) {
  if (path)
    note_now(CL_ASK_STAT, path);
  wchar_t *wide;
  /* "no stamp" is an answer, not a failure */
  if (!path || to_win_path_quiet(path, &wide, NULL) != CUDALOAD_OK)
    return 0;
  DWORD old_mode = quiet_errors_begin();
  HANDLE h = CreateFileW(wide, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  quiet_errors_end(old_mode);
  free(wide);
  if (h == INVALID_HANDLE_VALUE)
    return 0;
  BY_HANDLE_FILE_INFORMATION info;
  int ok = GetFileType(h) == FILE_TYPE_DISK &&
           GetFileInformationByHandle(h, &info) != 0;
  CloseHandle(h);
  if (ok)
    stamp_of(&info, out);
  return ok;
}

static const char *describe_file_type(DWORD type) {
  switch (type) {
  case FILE_TYPE_CHAR:
    return CL_WORDS_NOT_A_REGULAR_FILE_DEVICE;
  case FILE_TYPE_PIPE:
    return CL_WORDS_NOT_A_REGULAR_FILE_PIPE;
  default:
    return CL_WORDS_NOT_A_REGULAR_FILE_SPECIAL;
  }
}

int cl_os_file_open(const char *path, cl_file **out, uint64_t *size_out) {
  cl_os_no no;
  int status = cl_os_file_open_quiet(path, out, size_out, &no);
  return status ? cl_fail_os_no(status, &no, path) : CUDALOAD_OK;
}

int cl_os_file_open_quiet(const char *path, cl_file **out, uint64_t *size_out,
                          cl_os_no *no) {
  note_now(CL_ASK_STAT, path);
  *out = NULL;
  wchar_t *wide;
  int status = to_win_path_quiet(path, &wide, no);
  if (status != CUDALOAD_OK)
    return status;
  DWORD old_mode = quiet_errors_begin();
  /* Share everything: the file may be in use by a process that has it
   * loaded, or be replaced by an installer while we read it. Backup
   * semantics let a folder open, so that it is reported as a folder rather
   * than as "access denied". */
  HANDLE h = CreateFileW(wide, GENERIC_READ,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  DWORD err = GetLastError();
  quiet_errors_end(old_mode);
  free(wide);
  if (h == INVALID_HANDLE_VALUE)
    return os_no(no, status_for_win32_error(err), err);

  /* The type is checked on the open handle, so a file swapped for something
   * else after a cl_os_stat_kind is still caught. */
  DWORD type = GetFileType(h);
  if (type != FILE_TYPE_DISK) {
    CloseHandle(h);
    return own_no(no, CUDALOAD_E_NOT_A_FILE, describe_file_type(type));
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) {
    err = GetLastError();
    CloseHandle(h);
    return os_no(no, CUDALOAD_E_IO, err);
  }
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
    CloseHandle(h);
    return own_no(no, CUDALOAD_E_NOT_A_FILE,
                  CL_WORDS_NOT_A_REGULAR_FILE_DIRECTORY);
  }

  cl_file *f = malloc(sizeof *f);
  if (!f) {
    CloseHandle(h);
    return own_no(no, CUDALOAD_E_NO_MEMORY, "out of memory");
  }
  f->handle = h;
  f->size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
  stamp_of(&info, &f->stamp);
  if (size_out)
    *size_out = f->size;
  *out = f;
  return CUDALOAD_OK;
}

int cl_os_file_read_at(cl_file *f, uint64_t offset, void *buf, size_t len) {
  cl_os_no no;
  int status = cl_os_file_read_at_quiet(f, offset, buf, len, &no);
  /* %llu rather than %zu: mingw checks formats against MSVCRT's rules. */
  if (status && !no.what)
    return cl_fail(status,
                   "read of %llu bytes at offset %llu passes the end of the "
                   "file (size %llu)",
                   (unsigned long long)len, (unsigned long long)offset,
                   (unsigned long long)f->size);
  return status ? cl_fail_os_no(status, &no, NULL) : CUDALOAD_OK;
}

int cl_os_file_read_at_quiet(cl_file *f, uint64_t offset, void *buf, size_t len,
                             cl_os_no *no) {
  if (offset > f->size || len > f->size - offset)
    return own_no(no, CUDALOAD_E_MALFORMED, NULL); /* past the end */
  unsigned char *p = buf;
  while (len > 0) {
    /* ReadFile takes a DWORD count; the offset rides in the OVERLAPPED, so
     * no shared file pointer is moved. */
    DWORD chunk = len > (1u << 30) ? (1u << 30) : (DWORD)len;
    OVERLAPPED at;
    memset(&at, 0, sizeof at);
    at.Offset = (DWORD)(offset & 0xFFFFFFFFu);
    at.OffsetHigh = (DWORD)(offset >> 32);
    DWORD got = 0;
    if (!ReadFile(f->handle, p, chunk, &got, &at)) {
      DWORD err = GetLastError();
      if (err == ERROR_HANDLE_EOF)
        return own_no(no, CUDALOAD_E_MALFORMED, "file truncated while reading");
      os_no(no, CUDALOAD_E_IO, err);
      if (no)
        no->what = "read failed";
      return CUDALOAD_E_IO;
    }
    if (got == 0) /* the file shrank under us */
      return own_no(no, CUDALOAD_E_MALFORMED, "file truncated while reading");
    p += got;
    len -= got;
    offset += got;
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
    DWORD chunk = len > (1u << 30) ? (1u << 30) : (DWORD)len;
    OVERLAPPED at;
    memset(&at, 0, sizeof at);
    at.Offset = (DWORD)(offset & 0xFFFFFFFFu);
    at.OffsetHigh = (DWORD)(offset >> 32);
    DWORD n = 0;
    if (!ReadFile(f->handle, p, chunk, &n, &at)) {
      DWORD err = GetLastError();
      if (err == ERROR_HANDLE_EOF)
        break;
      os_no(no, CUDALOAD_E_IO, err);
      if (no)
        no->what = "read failed";
      return CUDALOAD_E_IO;
    }
    if (n == 0)
      break;
    p += n;
    len -= n;
    offset += n;
    *got += n;
  }
  return CUDALOAD_OK;
}

void cl_os_file_close(cl_file *f) {
  if (f) {
    CloseHandle(f->handle);
    free(f);
  }
}

/* ------------------------------------------------------------------------ */
/* Environment                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Windows has no setuid: a process runs with its caller's token and
 * environment (an elevated process started by the same user is still that
 * user's choice), so the caller's environment is trusted here and nothing is
 * filtered. The variables are read from the process environment block, the
 * one LoadLibrary searches, not from a C runtime's private copy (see
 * docs/loader.md, Windows 4).
 */
static char *variable_of(const char *name);

char *cl_os_getenv(const char *name) {
  char *value = variable_of(name);
  cl_question_log_text(CL_ASK_VARIABLE, name, value);
  return value;
}

static char *variable_of(const char *name) {
  int status;
  wchar_t *wide_name = cl_os_utf8_to_wide(name, &status);
  if (!wide_name)
    return NULL;
  char *value = NULL;
  DWORD capacity = 256;
  for (;;) {
    wchar_t *buf = malloc((size_t)capacity * sizeof *buf);
    if (!buf)
      break;
    SetLastError(ERROR_SUCCESS);
    DWORD got = GetEnvironmentVariableW(wide_name, buf, capacity);
    if (got == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND) {
      free(buf);
      break;
    }
    if (got < capacity) { /* fits (an empty value gives 0 and no error) */
      value = cl_os_wide_to_utf8(buf, (int)got);
      free(buf);
      break;
    }
    /* Too small: got is the size needed, NUL included. The variable may
     * grow again before the next call, hence the loop. */
    free(buf);
    capacity = got;
  }
  free(wide_name);
  return value;
}

/* ------------------------------------------------------------------------ */
/* Writable roots                                                           */
/* ------------------------------------------------------------------------ */

/* A reparse point is told apart first, then judged as a path (the DACL is
 * read through a handle either way). */
int cl_os_writable_by_others_unless_link(const char *path, cl_trust_use use,
                                         char **why, int *is_link) {
  *why = NULL;
  *is_link = cl_os_lstat_kind(path) == CL_KIND_SYMLINK;
  return *is_link ? 0 : cl_os_writable_by_others(path, use, why);
}

/*
 * Walks the DACL of the folder or file the way the access check does, in
 * order: a deny ACE for a broad group (or for Everyone, which every member
 * of the other groups is in) takes its bits away from later allow ACEs.
 * Inherit-only ACEs are skipped: they apply to what is created inside, not
 * to the folder. A NULL DACL grants everyone everything. When the DACL
 * cannot be read (no READ_CONTROL, a file system without ACLs such as FAT)
 * the answer is "cannot tell", 0, as on POSIX.
 */
/* "S-1-5-21-...", malloc'ed; NULL without memory. */
static char *sid_text(PSID sid) {
  wchar_t *wide = NULL;
  char *text = NULL;
  if (ConvertSidToStringSidW(sid, &wide)) {
    text = cl_os_wide_to_utf8(wide, -1);
    LocalFree(wide);
  }
  return text;
}

/* The token's user (TOKEN_USER, malloc'ed), or NULL. */
static TOKEN_USER *token_user(HANDLE token) {
  DWORD size = 0;
  GetTokenInformation(token, TokenUser, NULL, 0, &size);
  TOKEN_USER *user = size ? malloc(size) : NULL;
  if (user && !GetTokenInformation(token, TokenUser, user, size, &size)) {
    free(user);
    user = NULL;
  }
  return user;
}

int cl_os_owned_by_this_user(const char *path, char **owner, char **me) {
  *owner = NULL;
  *me = NULL;
  wchar_t *wide = NULL;
  int status = to_win_path_quiet(path, &wide, NULL);
  if (status != CUDALOAD_OK) {
    free(wide);
    return -1;
  }
  PSID owner_sid = NULL;
  PSECURITY_DESCRIPTOR descriptor = NULL;
  DWORD old_mode = quiet_errors_begin();
  DWORD err =
      GetNamedSecurityInfoW(wide, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION,
                            &owner_sid, NULL, NULL, NULL, &descriptor);
  quiet_errors_end(old_mode);
  free(wide);
  if (err != ERROR_SUCCESS || !owner_sid) {
    if (descriptor)
      LocalFree(descriptor);
    return -1;
  }
  HANDLE token = NULL;
  TOKEN_USER *user = NULL;
  int owned = -1;
  if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token) &&
      (user = token_user(token)) != NULL) {
    BOOL member = FALSE;
    /* An elevated administrator's files belong to Administrators: a
     * group of this token that owns it is this user's too. */
    owned = EqualSid(owner_sid, user->User.Sid) ||
            (CheckTokenMembership(NULL, owner_sid, &member) && member);
    if (!owned) {
      *owner = sid_text(owner_sid);
      *me = sid_text(user->User.Sid);
    }
  }
  free(user);
  if (token)
    CloseHandle(token);
  LocalFree(descriptor);
  return owned;
}

int cl_os_writable_by_others(const char *path, cl_trust_use use, char **why) {
  *why = NULL;
  note_now(CL_ASK_STAT, path);
  wchar_t *wide = NULL;
  /* It fails only for a path that is not UTF-8, which the scan never hands
   * over; "cannot tell" is then the answer, and no error is written. */
  int status = to_win_path_quiet(path, &wide, NULL);
  if (status != CUDALOAD_OK) {
    free(wide);
    return 0;
  }
  PACL dacl = NULL;
  PSECURITY_DESCRIPTOR descriptor = NULL;
  DWORD old_mode = quiet_errors_begin();
  DWORD err =
      GetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                            NULL, NULL, &dacl, NULL, &descriptor);
  quiet_errors_end(old_mode);
  free(wide);
  if (err != ERROR_SUCCESS)
    return 0;

  char text[640];
  int writable = 0;
  if (!dacl) {
    snprintf(text, sizeof text, CL_WORDS_WRITABLE_BY_EVERY_USER_NO_ACL);
    writable = 1;
  } else {
    writable = cl_os_dacl_writable_by_others(dacl, use, text, sizeof text);
  }
  LocalFree(descriptor);
  if (writable) {
    /* Copied here: common/strutil.c reads files through this seam, so the
     * seam does not call back into it. */
    size_t size = strlen(text) + 1;
    *why = malloc(size);
    if (*why)
      memcpy(*why, text, size);
  }
  return writable;
}

/* ASCII-only case folding: environment variable names are compared without
 * regard to case on Windows ("Cuda_Path" is CUDA_PATH). */
static int ascii_lower(int c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int has_prefix_ignoring_case(const char *s, const char *prefix) {
  for (; *prefix; ++s, ++prefix)
    if (ascii_lower((unsigned char)*s) != ascii_lower((unsigned char)*prefix))
      return 0;
  return 1;
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
  wchar_t *block = GetEnvironmentStringsW();
  if (!block)
    return;
  /* The block is "NAME=VALUE\0NAME=VALUE\0...\0". Entries starting with '='
   * ("=C:=C:\work") are per-drive current folders, not variables. */
  for (const wchar_t *entry = block; *entry; entry += wcslen(entry) + 1) {
    if (entry[0] == L'=')
      continue;
    char *utf8 = cl_os_wide_to_utf8(entry, -1);
    if (!utf8)
      continue;
    char *equals = strchr(utf8, '=');
    if (equals && has_prefix_ignoring_case(utf8, prefix)) {
      *equals = '\0';
      visit(utf8, equals + 1, opaque);
    }
    free(utf8);
  }
  FreeEnvironmentStringsW(block);
}

static unsigned system_folder(wchar_t *buffer, unsigned size) {
  return GetSystemDirectoryW(buffer, size);
}

char *cl_os_system_dir(void) {
  /* Asked of the system rather than built from %SystemRoot%, which the
   * caller's environment could point anywhere. */
  return cl_os_wide_text_of(system_folder);
}

static unsigned current_folder(wchar_t *buffer, unsigned size) {
  return GetCurrentDirectoryW(size, buffer);
}

char *cl_os_current_dir(void) {
  char *here = cl_os_wide_text_of(current_folder);
  cl_question_log_text(CL_ASK_CURRENT_DIR, "", here);
  return here;
}

/* What a path names (link_too: the link itself): its file index, size,
 * last write and change times (ChangeTime moves with a new DACL or
 * attributes too) and attributes. */
static void answer_of_path(const char *path, int link_too, cl_os_answer *out) {
  wchar_t *wide;
  if (to_win_path_quiet(path, &wide, NULL) != CUDALOAD_OK)
    return;
  DWORD old_mode = quiet_errors_begin();
  HANDLE h = CreateFileW(wide, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS |
                             (link_too ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
                         NULL);
  quiet_errors_end(old_mode);
  free(wide);
  if (h == INVALID_HANDLE_VALUE)
    return;
  BY_HANDLE_FILE_INFORMATION info;
  FILE_BASIC_INFO basic;
  if (GetFileInformationByHandle(h, &info)) {
    out->found = 1;
    out->device = info.dwVolumeSerialNumber;
    out->inode = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
    out->size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
    out->mtime = (int64_t)((uint64_t)info.ftLastWriteTime.dwHighDateTime << 32 |
                           info.ftLastWriteTime.dwLowDateTime);
    out->mode = info.dwFileAttributes;
    if (GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof basic))
      out->ctime = basic.ChangeTime.QuadPart;
  }
  CloseHandle(h);
}

int cl_os_answer_now(cl_os_question question, const char *subject,
                     cl_os_answer *out) {
  memset(out, 0, sizeof *out);
  char *text = NULL;
  switch (question) {
  case CL_ASK_STAT:
  case CL_ASK_LSTAT:
    answer_of_path(subject, question == CL_ASK_LSTAT, out);
    return CUDALOAD_OK;
  case CL_ASK_REAL_PATH:
    text = real_path_of(subject, NULL);
    break;
  case CL_ASK_LINK_TARGET:
    break; /* a link is resolved whole on Windows: cl_os_link_target */
  case CL_ASK_VARIABLE:
    text = variable_of(subject);
    break;
  case CL_ASK_VARIABLES_WITH_PREFIX:
    if (!(text = calloc(1, 1)))
      return CUDALOAD_E_NO_MEMORY;
    each_with_prefix(subject, cl_question_log_add_variable, &text);
    if (!text)
      return CUDALOAD_E_NO_MEMORY;
    break;
  case CL_ASK_CURRENT_DIR:
    text = cl_os_wide_text_of(current_folder);
    break;
  }
  out->found = text != NULL;
  out->text = text;
  return CUDALOAD_OK;
}

static SRWLOCK memo_lock = SRWLOCK_INIT;

void cl_os_memo_lock(void) {
  AcquireSRWLockExclusive(&memo_lock);
}

void cl_os_memo_unlock(void) {
  ReleaseSRWLockExclusive(&memo_lock);
}

char *cl_os_home_dir(void) {
  char *home = cl_os_getenv("USERPROFILE");
  if (home && home[0])
    return home;
  free(home);
  /* Services and some old setups have no USERPROFILE. */
  char *drive = cl_os_getenv("HOMEDRIVE");
  char *rest = cl_os_getenv("HOMEPATH");
  home = NULL;
  if (drive && rest && drive[0] && rest[0]) {
    size_t drive_len = strlen(drive), rest_len = strlen(rest);
    home = malloc(drive_len + rest_len + 1);
    if (home) {
      memcpy(home, drive, drive_len);
      memcpy(home + drive_len, rest, rest_len + 1);
    }
  }
  free(drive);
  free(rest);
  return home;
}

/* ------------------------------------------------------------------------ */
/* The host                                                                 */
/* ------------------------------------------------------------------------ */

int cl_os_host_target(void) {
  return CUDALOAD_TARGET_WINDOWS;
}

const char *cl_os_host_machine(void) {
#if defined(__x86_64__) || defined(_M_X64) || defined(_M_AMD64)
  return "x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
  return "aarch64";
#elif defined(__i386__) || defined(_M_IX86)
  return "i386";
#else
  return NULL;
#endif
}

const char *cl_os_name(void) {
  return "windows";
}

const char *cl_os_library_path_variable(void) {
  return "PATH";
}

static char folded(char c) {
  if (c >= 'A' && c <= 'Z')
    return (char)(c + 32);
  return c == '/' ? '\\' : c;
}

int cl_os_same_path(const char *a, size_t alen, const char *b, size_t blen) {
  if (alen != blen)
    return 0;
  for (size_t i = 0; i < alen; ++i)
    if (folded(a[i]) != folded(b[i]))
      return 0;
  return 1;
}

const char *cl_os_python_name(void) {
  return "python.exe";
}

const char *cl_os_driver_name(void) {
  return "nvcuda.dll";
}

char *cl_os_private_fix(const char *path, cl_trust_use use) {
  wchar_t *wide = NULL;
  int status = to_win_path_quiet(path, &wide, NULL);
  PACL dacl = NULL;
  PSECURITY_DESCRIPTOR descriptor = NULL;
  DWORD err = ERROR_INVALID_NAME;
  if (status == CUDALOAD_OK) {
    DWORD old_mode = quiet_errors_begin();
    err = GetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                                NULL, NULL, &dacl, NULL, &descriptor);
    quiet_errors_end(old_mode);
  }
  free(wide);
  char grants[512] = "";
  if (err == ERROR_SUCCESS && dacl)
    cl_os_dacl_private_grants(dacl, use, grants, sizeof grants);
  LocalFree(descriptor);
  if (err == ERROR_SUCCESS && !dacl)
    grants[0] = '\0';
  else if (!grants[0]) /* cannot tell who: the groups a DACL usually names */
    cl_os_dacl_private_grants(NULL, use, grants, sizeof grants);
  const char *how =
      err == ERROR_SUCCESS && !dacl ? " /reset" : " /inheritance:d";
  size_t size = strlen(path) + strlen(how) + strlen(grants) + 16;
  char *fix = malloc(size);
  if (fix)
    snprintf(fix, size, "icacls \"%s\"%s%s", path, how, grants);
  return fix;
}

double cl_os_clock_ms(void) {
  static LARGE_INTEGER frequency; /* constant while the system runs */
  LARGE_INTEGER now;
  if (!frequency.QuadPart && !QueryPerformanceFrequency(&frequency))
    return (double)GetTickCount64();
  QueryPerformanceCounter(&now);
  return (double)now.QuadPart * 1000.0 / (double)frequency.QuadPart;
}
