/* SPDX-License-Identifier: MIT */
/*
 * resolve_win32.c - the host's facts for the loader model (os/loader.h) on
 * Windows: System32, the System and Windows folders, KnownDLLs and
 * SafeDllSearchMode from the registry, and this process's modules, folder,
 * current folder, PATH and SetDllDirectory folder (docs/loader.md,
 * Windows 13). Nothing is loaded.
 *
 * Not visible from inside a process, so left empty: the folders added with
 * AddDllDirectory and the flags given to SetDefaultDllDirectories (Windows
 * has no call that reads either back).
 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "loader/loader_model.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/question_log.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "win32/wide.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define CL_SESSION_MANAGER                                                     \
  L"SYSTEM\\CurrentControlSet\\Control\\Session Manager"

static unsigned system_folder(wchar_t *buffer, unsigned size) {
  return GetSystemDirectoryW(buffer, size);
}

static unsigned windows_folder(wchar_t *buffer, unsigned size) {
  return GetWindowsDirectoryW(buffer, size);
}

/* The KnownDLLs list: each value of the key names a DLL the loader maps
 * from its \KnownDlls section, never from a search ("Dynamic-Link Library
 * Search Order", "Factors that affect searching"). DllDirectory and
 * DllDirectory32 name folders, not DLLs. */
static int read_known_dlls(cl_loader_model *m) {
  HKEY key;
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, CL_SESSION_MANAGER L"\\KnownDLLs", 0,
                    KEY_READ, &key) != ERROR_SUCCESS)
    return CUDALOAD_OK;
  int status = CUDALOAD_OK;
  for (DWORD i = 0; status == CUDALOAD_OK; ++i) {
    wchar_t name[256];
    wchar_t data[512];
    DWORD name_len = sizeof name / sizeof name[0];
    DWORD data_size = sizeof data - sizeof data[0];
    DWORD type = 0;
    LONG r = RegEnumValueW(key, i, name, &name_len, NULL, &type, (BYTE *)data,
                           &data_size);
    if (r == ERROR_NO_MORE_ITEMS)
      break;
    if (r != ERROR_SUCCESS || type != REG_SZ)
      continue;
    data[data_size / sizeof data[0]] = L'\0';
    if (_wcsnicmp(name, L"DllDirectory", 12) == 0)
      continue;
    char *utf8 = cl_os_wide_to_utf8(data, -1);
    if (utf8 && utf8[0])
      status =
          cl_loader_model_append(&m->known_dlls, &m->known_dll_count, utf8);
    free(utf8);
  }
  RegCloseKey(key);
  return status;
}

/* SafeDllSearchMode: a DWORD under Session Manager; absent means on. */
static int safe_dll_search_mode(void) {
  DWORD value = 1, size = sizeof value, type = 0;
  HKEY key;
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, CL_SESSION_MANAGER, 0, KEY_READ,
                    &key) != ERROR_SUCCESS)
    return 1;
  if (RegQueryValueExW(key, L"SafeDllSearchMode", NULL, &type, (BYTE *)&value,
                       &size) != ERROR_SUCCESS ||
      type != REG_DWORD)
    value = 1;
  RegCloseKey(key);
  return value != 0;
}

int cl_os_loader_defaults(cl_loader_model *m, cl_search_list_counter count) {
  (void)count; /* no search lists to count on Windows */
  cl_loader_model_init(m, CL_NAMING_WINDOWS);
#if defined(_M_ARM64) || defined(__aarch64__)
  m->machine = 0xaa64;
#elif defined(_M_IX86) || defined(__i386__)
  m->machine = 0x14c;
#else
  m->machine = 0x8664;
#endif
  m->bits = (int)(sizeof(void *) * 8);
  /* A DLL for another machine, first of its name in the search, fails the
   * load with ERROR_BAD_EXE_FORMAT (193): Windows, and Wine 8 as well
   * (tests/loader_oracle, scenario windows_other_machine). */
  m->other_machine_skipped = 0;
  m->system32 = cl_os_wide_text_of(system_folder);
  m->windows_dir = cl_os_wide_text_of(windows_folder);
  if (!m->system32 || !m->windows_dir)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cannot read the System32 and Windows folders");
  m->system_dir = cl_path_join(m->windows_dir, "System");
  if (!m->system_dir)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
  m->safe_dll_search_mode = safe_dll_search_mode();
  return read_known_dlls(m);
}

static void add_module(const char *path, void *opaque) {
  cl_loader_model *m = opaque;
  /* A module's name is its file name. Without memory the module goes
   * unlisted: the model then answers as if it were not loaded (the caller
   * keeps its last error around the walk). */
  cl_loader_model_add_loaded(m, path, cl_path_basename(path));
}

static char *current_folder(void) {
  return cl_os_current_dir();
}

static unsigned dll_directory_of(wchar_t *buffer, unsigned size) {
  return GetDllDirectoryW(size, buffer);
}

/* PATH as the loader reads it: the process environment block (not the C
 * runtime's copy, and also in an elevated process). */
static char *path_variable(void) {
  DWORD need = GetEnvironmentVariableW(L"PATH", NULL, 0);
  if (need == 0)
    return NULL;
  wchar_t *buffer = malloc((size_t)need * sizeof *buffer);
  if (!buffer)
    return NULL;
  DWORD got = GetEnvironmentVariableW(L"PATH", buffer, need);
  char *utf8 = got < need ? cl_os_wide_to_utf8(buffer, -1) : NULL;
  free(buffer);
  return utf8;
}

static char *executable_folder(void) {
  wchar_t buffer[32768];
  DWORD got = GetModuleFileNameW(NULL, buffer, 32768);
  if (got == 0 || got >= 32768)
    return NULL;
  cl_os_strip_verbatim_prefix(buffer);
  char *utf8 = cl_os_wide_to_utf8(buffer, -1);
  char *folder = utf8 ? cl_path_dirname(utf8) : NULL;
  free(utf8);
  return folder;
}

int cl_os_loader_process(cl_loader_model *m) {
  cl_asking unlisted; /* a module that cannot be listed is not in the model */
  cl_asking_begin(&unlisted);
  cl_os_loader_each_loaded(add_module, m);
  cl_asking_end(&unlisted);
  m->app_dir = executable_folder();
  m->current_dir = current_folder();
  m->dll_directory = cl_os_wide_text_of(dll_directory_of);
  m->path = path_variable();
  return CUDALOAD_OK;
}

char *cl_os_loader_find_loaded_by_soname(const char *name) {
  return cl_os_loader_find_loaded(name);
}

int cl_os_file_identity(const char *path, cl_file_identity *out) {
  /* Noted as a stat of the path, asked before the look (platform.h). */
  if (path && cl_question_log_wants(CL_ASK_STAT, path)) {
    cl_os_answer a;
    if (cl_os_answer_now(CL_ASK_STAT, path, &a))
      cl_question_log_lost();
    else
      cl_question_log_answer(CL_ASK_STAT, path, &a);
  }
  int status;
  wchar_t *wide = path ? cl_os_utf8_to_wide(path, &status) : NULL;
  if (!wide || !out) {
    free(wide);
    return 0;
  }
  HANDLE h = CreateFileW(wide, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  free(wide);
  if (h == INVALID_HANDLE_VALUE)
    return 0;
  BY_HANDLE_FILE_INFORMATION info;
  int ok = GetFileInformationByHandle(h, &info) != 0;
  CloseHandle(h);
  if (!ok)
    return 0;
  out->device = info.dwVolumeSerialNumber;
  out->inode = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
  return 1;
}
