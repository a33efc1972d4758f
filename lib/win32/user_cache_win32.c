/* SPDX-License-Identifier: MIT */
/*
 * user_cache_win32.c - the per-user cache folder and its private files
 * (os/platform.h) on Windows: %LOCALAPPDATA%\cudaload, a read that trusts
 * only a plain file no other user may write (its DACL), and a whole-file
 * replace by MoveFileExW, which readers and racing writers see as one step.
 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"
#include "win32/wide.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t cl_os_file_time_now(void) {
  FILETIME now;
  GetSystemTimeAsFileTime(&now);
  return (int64_t)((uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime);
}

char *cl_os_user_cache_dir(void) {
  char *base = cl_os_getenv("LOCALAPPDATA");
  if (!base || !base[0] || !cl_os_path_is_absolute(base)) {
    free(base);
    return NULL;
  }
  size_t n = strlen(base);
  char *dir = malloc(n + sizeof "\\cudaload");
  if (dir) {
    memcpy(dir, base, n);
    memcpy(dir + n, "\\cudaload", sizeof "\\cudaload");
  }
  free(base);
  return dir;
}

/* No "insert a disk" dialog for this thread (not the process's mode). */
static DWORD quiet_begin(void) {
  DWORD old_mode = 0;
  if (!SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX,
                          &old_mode))
    old_mode = GetThreadErrorMode();
  return old_mode;
}

static wchar_t *wide_of(const char *path) {
  int status;
  return cl_os_utf8_to_wide(path, &status);
}

/* Whether no component of path (a folder's, or with `file`, a file's,
 * whose last component is left to the caller) is a reparse point: a
 * junction or symbolic link another user made could lead the read or the
 * write anywhere; a path of plain folders goes where it says. The drive or
 * share itself is not asked; a missing component ends the walk (what is
 * made below it is a plain folder). */
static int plain_on_the_way(const wchar_t *path, int file) {
  size_t n = wcslen(path);
  wchar_t *copy = malloc((n + 1) * sizeof *copy);
  if (!copy)
    return 0;
  memcpy(copy, path, (n + 1) * sizeof *copy);
  /* Past the root: "C:\", or "\\server\share\". */
  size_t at = 0;
  if (n >= 2 && copy[1] == L':')
    at = 2;
  else if (n >= 2 && (copy[0] == L'\\' || copy[0] == L'/') &&
           (copy[1] == L'\\' || copy[1] == L'/'))
    for (int seps = 0; at < n && seps < 4; ++at)
      seps += copy[at] == L'\\' || copy[at] == L'/';
  int plain = 1;
  for (size_t i = at + 1; plain && i <= n; ++i) {
    int end = i == n;
    if (!end && copy[i] != L'\\' && copy[i] != L'/')
      continue;
    if (end && file)
      break;
    if (i == 0 || copy[i - 1] == L'\\' || copy[i - 1] == L'/')
      continue;
    wchar_t was = copy[i];
    copy[i] = L'\0';
    DWORD attrs = GetFileAttributesW(copy);
    copy[i] = was;
    if (attrs == INVALID_FILE_ATTRIBUTES)
      break;
    plain = !(attrs & FILE_ATTRIBUTE_REPARSE_POINT);
  }
  free(copy);
  return plain;
}

int cl_os_private_file_read(const char *path, size_t max, char **data,
                            size_t *len) {
  *data = NULL;
  *len = 0;
  wchar_t *wide = wide_of(path);
  if (!wide)
    return CUDALOAD_E_NOT_FOUND;
  DWORD old_mode = quiet_begin();
  if (!plain_on_the_way(wide, 1)) {
    SetThreadErrorMode(old_mode, NULL);
    free(wide);
    return CUDALOAD_E_IO;
  }
  /* FILE_FLAG_OPEN_REPARSE_POINT: a link is opened as itself, and refused
   * below, rather than followed to a file someone else wrote. */
  HANDLE h =
      CreateFileW(wide, GENERIC_READ,
                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                  OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  DWORD err = GetLastError();
  SetThreadErrorMode(old_mode, NULL);
  free(wide);
  if (h == INVALID_HANDLE_VALUE)
    return err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND
               ? CUDALOAD_E_NOT_FOUND
               : CUDALOAD_E_IO;
  BY_HANDLE_FILE_INFORMATION info;
  int ok = GetFileType(h) == FILE_TYPE_DISK &&
           GetFileInformationByHandle(h, &info) &&
           !(info.dwFileAttributes &
             (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) &&
           info.nFileSizeHigh == 0 && info.nFileSizeLow <= max;
  char *why = NULL; /* cl_os_writable_by_others sets no error */
  if (ok && cl_os_writable_by_others(path, CL_TRUST_LIBRARY_FILE, &why))
    ok = 0;
  free(why);
  if (!ok) {
    CloseHandle(h);
    return CUDALOAD_E_MALFORMED;
  }
  size_t size = info.nFileSizeLow;
  char *buf = malloc(size + 1);
  if (!buf) {
    CloseHandle(h);
    return CUDALOAD_E_NO_MEMORY;
  }
  size_t got = 0;
  while (got < size) {
    DWORD n = 0;
    if (!ReadFile(h, buf + got, (DWORD)(size - got), &n, NULL) || n == 0)
      break;
    got += n;
  }
  CloseHandle(h);
  if (got != size) {
    free(buf);
    return CUDALOAD_E_IO;
  }
  buf[size] = '\0';
  *data = buf;
  *len = size;
  return CUDALOAD_OK;
}

/* dir and its missing parents; under %LOCALAPPDATA% they inherit its
 * DACL, which is this user's alone. */
static int make_dir(wchar_t *dir) {
  if (CreateDirectoryW(dir, NULL) || GetLastError() == ERROR_ALREADY_EXISTS)
    return CUDALOAD_OK;
  if (GetLastError() != ERROR_PATH_NOT_FOUND)
    return CUDALOAD_E_IO;
  wchar_t *cut = wcsrchr(dir, L'\\');
  wchar_t *slash = wcsrchr(dir, L'/');
  if (slash && (!cut || slash > cut))
    cut = slash;
  if (!cut || cut == dir || cut[-1] == L':')
    return CUDALOAD_E_IO;
  wchar_t was = *cut;
  *cut = L'\0';
  int status = make_dir(dir);
  *cut = was;
  if (status)
    return status;
  return CreateDirectoryW(dir, NULL) || GetLastError() == ERROR_ALREADY_EXISTS
             ? CUDALOAD_OK
             : CUDALOAD_E_IO;
}

/* Temporary files of name that a writer killed between writing and
 * renaming left in dir, last written more than CL_OS_LEFTOVER_SECONDS ago
 * (a writer keeps its own for milliseconds). */
static void remove_leftovers(const wchar_t *dir, const char *name) {
  size_t dlen = wcslen(dir);
  wchar_t *wname = wide_of(name);
  wchar_t *pattern =
      wname ? malloc((dlen + wcslen(wname) + 8) * sizeof *pattern) : NULL;
  if (!pattern) {
    free(wname);
    return;
  }
  swprintf(pattern, dlen + wcslen(wname) + 8, L"%ls\\%ls.*.tmp", dir, wname);
  WIN32_FIND_DATAW found;
  HANDLE h = FindFirstFileW(pattern, &found);
  FILETIME now_ft;
  GetSystemTimeAsFileTime(&now_ft);
  ULONGLONG now =
      ((ULONGLONG)now_ft.dwHighDateTime << 32) | now_ft.dwLowDateTime;
  if (h != INVALID_HANDLE_VALUE) {
    do {
      ULONGLONG written =
          ((ULONGLONG)found.ftLastWriteTime.dwHighDateTime << 32) |
          found.ftLastWriteTime.dwLowDateTime;
      /* FILETIME counts 100 ns. */
      if ((found.dwFileAttributes &
           (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) ||
          now < written ||
          (now - written) / 10000000u <= CL_OS_LEFTOVER_SECONDS)
        continue;
      size_t flen = wcslen(found.cFileName);
      wchar_t *path = malloc((dlen + flen + 2) * sizeof *path);
      if (path) {
        swprintf(path, dlen + flen + 2, L"%ls\\%ls", dir, found.cFileName);
        DeleteFileW(path);
        free(path);
      }
    } while (FindNextFileW(h, &found));
    FindClose(h);
  }
  free(pattern);
  free(wname);
}

int cl_os_private_file_replace(const char *dir, const char *name,
                               const void *data, size_t len) {
  if (len > 0xffffffffu)
    return CUDALOAD_E_INVALID_ARGUMENT;
  size_t dlen = strlen(dir), nlen = strlen(name);
  char *target = malloc(dlen + nlen + 2);
  char *temp = malloc(dlen + nlen + 64);
  wchar_t *wdir = wide_of(dir);
  int status = target && temp && wdir ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
  wchar_t *wtarget = NULL, *wtemp = NULL;
  if (status == CUDALOAD_OK) {
    memcpy(target, dir, dlen);
    target[dlen] = '\\';
    memcpy(target + dlen + 1, name, nlen + 1);
    /* The thread's own name for its temporary file, made anew
     * (CREATE_NEW): a racing writer has another. */
    static CL_THREAD_LOCAL unsigned serial;
    snprintf(temp, dlen + nlen + 64, "%s.%lu.%lu.%u.tmp", target,
             (unsigned long)GetCurrentProcessId(),
             (unsigned long)GetCurrentThreadId(), serial++);
    wtarget = wide_of(target);
    wtemp = wide_of(temp);
    if (!wtarget || !wtemp)
      status = CUDALOAD_E_NO_MEMORY;
  }
  DWORD old_mode = quiet_begin();
  if (status == CUDALOAD_OK && !plain_on_the_way(wdir, 0))
    status = CUDALOAD_E_IO;
  if (status == CUDALOAD_OK)
    status = make_dir(wdir);
  /* Made now: nothing on the way may have become a link meanwhile. */
  if (status == CUDALOAD_OK && !plain_on_the_way(wdir, 0))
    status = CUDALOAD_E_IO;
  if (status == CUDALOAD_OK) {
    /* A folder others may add files to could have the store swapped after
     * it is written: nothing is written there (as on POSIX). */
    char *why = NULL; /* cl_os_writable_by_others sets no error */
    if (cl_os_writable_by_others(dir, CL_TRUST_LIBRARY_FOLDER, &why))
      status = CUDALOAD_E_IO;
    free(why);
  }
  if (status == CUDALOAD_OK)
    remove_leftovers(wdir, name);
  HANDLE h = INVALID_HANDLE_VALUE;
  if (status == CUDALOAD_OK) {
    h = CreateFileW(wtemp, GENERIC_WRITE, 0, NULL, CREATE_NEW,
                    FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
      status = CUDALOAD_E_IO;
  }
  if (status == CUDALOAD_OK) {
    DWORD wrote = 0;
    if (!WriteFile(h, data, (DWORD)len, &wrote, NULL) || wrote != len)
      status = CUDALOAD_E_IO;
  }
  if (h != INVALID_HANDLE_VALUE)
    CloseHandle(h);
  if (status == CUDALOAD_OK &&
      !MoveFileExW(wtemp, wtarget, MOVEFILE_REPLACE_EXISTING))
    status = CUDALOAD_E_IO;
  if (status != CUDALOAD_OK && h != INVALID_HANDLE_VALUE)
    DeleteFileW(wtemp);
  SetThreadErrorMode(old_mode, NULL);
  free(wtemp);
  free(wtarget);
  free(wdir);
  free(temp);
  free(target);
  return status;
}

int cl_os_shared_file_replace(const char *dir, const char *name,
                              const void *data, size_t len) {
  if (len > 0xffffffffu)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: too long", name);
  size_t dlen = strlen(dir), nlen = strlen(name);
  char *target = malloc(dlen + nlen + 2);
  char *temp = malloc(dlen + nlen + 64);
  wchar_t *wdir = wide_of(dir), *wtarget = NULL, *wtemp = NULL;
  int status = target && temp && wdir ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
  if (status == CUDALOAD_OK) {
    memcpy(target, dir, dlen);
    target[dlen] = '\\';
    memcpy(target + dlen + 1, name, nlen + 1);
    static CL_THREAD_LOCAL unsigned serial;
    snprintf(temp, dlen + nlen + 64, "%s.%lu.%lu.%u.tmp", target,
             (unsigned long)GetCurrentProcessId(),
             (unsigned long)GetCurrentThreadId(), serial++);
    wtarget = wide_of(target);
    wtemp = wide_of(temp);
    if (!wtarget || !wtemp)
      status = CUDALOAD_E_NO_MEMORY;
  }
  DWORD old_mode = quiet_begin();
  DWORD err = 0;
  if (status == CUDALOAD_OK && !plain_on_the_way(wdir, 0))
    status = CUDALOAD_E_IO; /* a junction put on the way since */
  if (status == CUDALOAD_OK)
    remove_leftovers(wdir, name);
  /* The new file takes the folder's inherited ACL: readable as the
   * environment's other files are, writable by no one they are not. */
  HANDLE h = INVALID_HANDLE_VALUE;
  if (status == CUDALOAD_OK) {
    h = CreateFileW(wtemp, GENERIC_WRITE, 0, NULL, CREATE_NEW,
                    FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
      status = CUDALOAD_E_IO;
      err = GetLastError();
    }
  }
  if (status == CUDALOAD_OK) {
    DWORD wrote = 0;
    if (!WriteFile(h, data, (DWORD)len, &wrote, NULL) || wrote != len) {
      status = CUDALOAD_E_IO;
      err = GetLastError();
    }
  }
  if (h != INVALID_HANDLE_VALUE)
    CloseHandle(h);
  if (status == CUDALOAD_OK &&
      !MoveFileExW(wtemp, wtarget, MOVEFILE_REPLACE_EXISTING)) {
    status = CUDALOAD_E_IO;
    err = GetLastError();
  }
  if (status != CUDALOAD_OK && h != INVALID_HANDLE_VALUE)
    DeleteFileW(wtemp);
  SetThreadErrorMode(old_mode, NULL);
  free(wtemp);
  free(wtarget);
  free(wdir);
  free(temp);
  if (status == CUDALOAD_E_NO_MEMORY)
    cl_fail(status, "%s: out of memory", dir);
  else if (status != CUDALOAD_OK && err)
    cl_fail_os(status, err, "%s", target);
  else if (status != CUDALOAD_OK)
    cl_fail(status, "%s: a link or junction lies on the way to it", dir);
  free(target);
  return status;
}
