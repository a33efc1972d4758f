/* SPDX-License-Identifier: MIT */
/*
 * loader_win32.c - lib/os/loader.h for Windows (7 and later): LoadLibraryExW by
 * absolute path, GetModuleHandleW look-ups, K32EnumProcessModules, PATH and
 * AddDllDirectory for the libraries' own later LoadLibrary calls.
 *
 * Only the W APIs are used; strings cross this file as UTF-8 (wide.h).
 * Windows binds each import to a DLL by name, so cuDNN 8 and 9 never take
 * each other's symbols (docs/loader.md, Windows 1): there is no global scope,
 * and the open mode is ignored.
 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* SetThreadErrorMode, InitOnceExecuteOnce */
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "cudaload.h"
#include "common/error.h"
#include "common/reason_words.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "win32/wide.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Older mingw-w64 headers lack these (Windows 8, and Windows 7 with
 * KB2533623). */
#ifndef LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100
#endif
#ifndef LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
#define LOAD_LIBRARY_SEARCH_DEFAULT_DIRS 0x00001000
#endif
#ifndef LOAD_LIBRARY_SEARCH_SYSTEM32
#define LOAD_LIBRARY_SEARCH_SYSTEM32 0x00000800
#endif

/* In kernel32 since Windows 7 (psapi.dll only forwards to it); declared here
 * so that neither psapi.h's PSAPI_VERSION rules nor psapi.lib are needed. */
BOOL WINAPI K32EnumProcessModules(HANDLE process, HMODULE *modules, DWORD bytes,
                                  DWORD *bytes_needed);

/* The longest path Windows handles, in UTF-16 units. */
#define CL_LONGEST_PATH 32768

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* The clean absolute UTF-16 form of an absolute UTF-8 path, malloc'ed:
 * GetFullPathNameW turns '/' into '\' and drops "." and "..", which
 * LoadLibraryExW and PATH entries need. NULL with the last error set. */
static wchar_t *full_wide_path(const char *path, int *status_out) {
  wchar_t *wide = cl_os_utf8_to_wide(path, status_out);
  if (!wide) {
    cl_fail(*status_out, "%s: %s", path,
            *status_out == CUDALOAD_E_NO_MEMORY ? "out of memory"
                                                : "not a valid UTF-8 path");
    return NULL;
  }
  DWORD needed = GetFullPathNameW(wide, 0, NULL, NULL);
  wchar_t *full = needed ? malloc((size_t)needed * sizeof *full) : NULL;
  DWORD got = full ? GetFullPathNameW(wide, needed, full, NULL) : 0;
  if (got == 0 || got >= needed) {
    /* The path could not be cleaned up: let the API that uses it judge. */
    free(full);
    return wide;
  }
  free(wide);
  return full;
}

/* The file name of a loaded module, UTF-8 and malloc'ed, or NULL (the
 * module was unloaded meanwhile, or the name has no UTF-8 form). */
static char *module_file_name(HMODULE module) {
  for (DWORD capacity = MAX_PATH; capacity <= 2 * CL_LONGEST_PATH;
       capacity *= 2) {
    wchar_t *buffer = malloc((size_t)capacity * sizeof *buffer);
    if (!buffer)
      return NULL;
    DWORD got = GetModuleFileNameW(module, buffer, capacity);
    if (got == 0) {
      free(buffer);
      return NULL;
    }
    if (got < capacity) { /* it fitted: a longer buffer gives the same */
      cl_os_strip_verbatim_prefix(buffer);
      char *utf8 = cl_os_wide_to_utf8(buffer, -1);
      free(buffer);
      return utf8;
    }
    free(buffer); /* truncated: try again with room for more */
  }
  return NULL;
}

/* A function of kernel32 that older Windows versions lack, or NULL. The
 * intermediate void (*)(void) is the generic function pointer type, which
 * keeps -Wcast-function-type quiet. */
typedef void (*generic_function)(void);

static generic_function kernel32_function(const char *name) {
  HMODULE kernel32 = GetModuleHandleW(L"kernel32.dll");
  return kernel32 ? (generic_function)GetProcAddress(kernel32, name) : NULL;
}

typedef void *(WINAPI *add_dll_directory_function)(const wchar_t *folder);

static add_dll_directory_function add_dll_directory(void) {
  return (add_dll_directory_function)kernel32_function("AddDllDirectory");
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */
/* ------------------------------------------------------------------------ */

/* LoadLibraryExW's error of this thread's last failed open, for the
 * caller that explains it (load/load_failure.c). */
static CL_THREAD_LOCAL unsigned long open_failure;

unsigned long cl_os_loader_open_failure(void) {
  return open_failure;
}

void *cl_os_loader_open(const char *path, cl_open_mode mode) {
  (void)mode; /* imports bind per DLL name: nothing to isolate from */
  open_failure = 0;
  if (!path || !path[0]) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no library path given");
    return NULL;
  }
  int status;
  wchar_t *wide = full_wide_path(path, &status);
  /* Longer than MAX_PATH: the \\?\ form, as the scanner reads it. */
  if (wide && !(wide = cl_os_long_path_form(wide)))
    cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  if (!wide)
    return NULL;

  /* No "missing DLL" or "bad image" dialog box: only this thread, only
   * now, so the host application's own error mode is untouched. */
  DWORD old_mode = 0;
  BOOL quiet = SetThreadErrorMode(
      SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode);
  /* DLL_LOAD_DIR: the DLL's static imports are found beside it (cuBLAS
   * beside cuBLASLt) without any search path. */
  HMODULE module = LoadLibraryExW(wide, NULL,
                                  LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
                                      LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
  DWORD err = module ? ERROR_SUCCESS : GetLastError();
  if (!module && err == ERROR_INVALID_PARAMETER && !add_dll_directory()) {
    /* Windows 7 without KB2533623 knows no LOAD_LIBRARY_SEARCH_* flags.
     * For an absolute path, the altered search path also looks beside the
     * DLL first. */
    module = LoadLibraryExW(wide, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    err = module ? ERROR_SUCCESS : GetLastError();
  }
  if (quiet)
    SetThreadErrorMode(old_mode, NULL);
  free(wide);
  if (!module) {
    open_failure = err;
    cl_fail_os(CUDALOAD_E_LOAD_FAILED, err, "%s", path);
    return NULL;
  }
  return module;
}

void *cl_os_loader_open_system(const char *name) {
  if (!name || !name[0] || strchr(name, '/') || strchr(name, '\\') ||
      strchr(name, ':')) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
            "%s: not a bare library name (only the driver is opened by name)",
            name ? name : "(null)");
    return NULL;
  }
  int status;
  wchar_t *wide = cl_os_utf8_to_wide(name, &status);
  if (!wide) {
    cl_fail(status, "%s: not a valid UTF-8 name", name);
    return NULL;
  }
  DWORD old_mode = 0;
  BOOL quiet = SetThreadErrorMode(
      SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode);
  /* The display driver installs nvcuda.dll into System32; searching only
   * there keeps a copy in the current folder or on PATH from being taken
   * for the driver. */
  HMODULE module = LoadLibraryExW(wide, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
  DWORD err = module ? ERROR_SUCCESS : GetLastError();
  if (!module && err == ERROR_INVALID_PARAMETER && !add_dll_directory()) {
    /* Windows 7 without KB2533623: no LOAD_LIBRARY_SEARCH_* flags. */
    module = LoadLibraryExW(wide, NULL, 0);
    err = module ? ERROR_SUCCESS : GetLastError();
  }
  if (quiet)
    SetThreadErrorMode(old_mode, NULL);
  free(wide);
  if (!module)
    cl_fail_os(CUDALOAD_E_LOAD_FAILED, err, "%s", name);
  return module;
}

void *cl_os_loader_symbol(void *handle, const char *name) {
  if (!handle || !name || !name[0])
    return NULL;
  generic_function function =
      (generic_function)GetProcAddress((HMODULE)handle, name);
  /* A function address as void *: copied, since ISO C has no cast between
   * function and object pointers. */
  void *address;
  memcpy(&address, &function, sizeof address);
  return address;
}

/* ------------------------------------------------------------------------ */
/* What is loaded                                                           */
/* ------------------------------------------------------------------------ */

char *cl_os_loader_find_loaded(const char *name) {
  /* GetModuleHandleW(NULL) is the executable. */
  if (!name || !name[0])
    return NULL;
  int status;
  wchar_t *wide = cl_os_utf8_to_wide(name, &status);
  if (!wide)
    return NULL;
  /* Looks only at the process's module list; loads nothing. */
  HMODULE module = GetModuleHandleW(wide);
  free(wide);
  return module ? module_file_name(module) : NULL;
}

void cl_os_loader_each_loaded(cl_module_visitor visit, void *opaque) {
  HANDLE process = GetCurrentProcess();
  HMODULE *modules = NULL;
  DWORD count = 0;
  /* Modules may be loaded between two calls: ask until the list fits. */
  for (DWORD capacity = 256; capacity <= 65536; capacity *= 2) {
    HMODULE *grown = realloc(modules, (size_t)capacity * sizeof *modules);
    if (!grown)
      break;
    modules = grown;
    DWORD needed = 0;
    if (!K32EnumProcessModules(process, modules,
                               capacity * (DWORD)sizeof *modules, &needed))
      break;
    if (needed <= capacity * sizeof *modules) {
      count = needed / (DWORD)sizeof *modules;
      break;
    }
  }
  for (DWORD i = 0; i < count; ++i) {
    char *path = module_file_name(modules[i]);
    if (path)
      visit(path, opaque);
    free(path);
  }
  free(modules);
}

/* ------------------------------------------------------------------------ */
/* Who provides a symbol                                                    */
/* ------------------------------------------------------------------------ */

char *cl_os_loader_global_provider(const char *symbol, const char *version) {
  (void)symbol; /* no global scope on Windows */
  (void)version;
  return NULL;
}

char *cl_os_loader_handle_path(void *handle) {
  return handle ? module_file_name((HMODULE)handle) : NULL;
}

char *cl_os_loader_symbol_provider(void *handle, const char *symbol,
                                   const char *version) {
  (void)version; /* imports bind per DLL name: no versions */
  if (!handle || !symbol || !symbol[0])
    return NULL;
  /* GetProcAddress follows export forwarders, so the address is in the
   * module that really implements the function. */
  generic_function function =
      (generic_function)GetProcAddress((HMODULE)handle, symbol);
  if (!function)
    return NULL;
  /* The address of a function as the LPCWSTR that FROM_ADDRESS expects;
   * copied, since ISO C has no cast between the two kinds of pointer. */
  const wchar_t *address;
  memcpy(&address, &function, sizeof address);
  HMODULE owner = NULL;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                              GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          address, &owner))
    return NULL;
  return module_file_name(owner);
}

/* ------------------------------------------------------------------------ */
/* PATH and the DLL directories                                             */
/* ------------------------------------------------------------------------ */

/* The value of a variable of the process environment block, malloc'ed;
 * NULL when it is not set (or memory ran out). */
static wchar_t *process_variable(const wchar_t *name) {
  DWORD capacity = 1024;
  for (;;) {
    wchar_t *buffer = malloc((size_t)capacity * sizeof *buffer);
    if (!buffer)
      return NULL;
    SetLastError(ERROR_SUCCESS);
    DWORD got = GetEnvironmentVariableW(name, buffer, capacity);
    if (got == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND) {
      free(buffer);
      return NULL;
    }
    if (got < capacity)
      return buffer;
    /* Too small: got is the size needed. It may grow again meanwhile. */
    free(buffer);
    capacity = got;
  }
}

/*
 * Set a variable in the process environment block (what LoadLibrary
 * searches and child processes inherit) and in the copy kept by the C
 * runtime this library is linked with (msvcrt or ucrt), which _wgetenv
 * reads. Other C runtimes in the process (a static CRT, another ucrt or
 * msvcr*.dll) keep their own copies, and Python's os.environ is a snapshot
 * taken at start: those do not see the change (docs/loader.md, Windows 4).
 * value NULL removes the variable.
 */
static int set_process_variable(const wchar_t *name, const wchar_t *value,
                                const char *utf8_name) {
  if (!SetEnvironmentVariableW(name, value)) {
    DWORD err = GetLastError();
    return cl_fail_os(err == ERROR_NOT_ENOUGH_MEMORY || err == ERROR_OUTOFMEMORY
                          ? CUDALOAD_E_NO_MEMORY
                          : CUDALOAD_E_INVALID_ARGUMENT,
                      err, "cannot set %s", utf8_name);
  }
  /* _wputenv_s with "" removes the variable from the C runtime's copy. */
  if (_wputenv_s(name, value ? value : L"") != 0)
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "%s: set for Windows, but the C runtime's copy could not "
                   "be updated",
                   utf8_name);
  return CUDALOAD_OK;
}

/* Whether a PATH entry names folder (clean, no trailing '\') for the DLL
 * loader: Windows compares file names without regard to case, and users
 * write entries with '/' or a trailing '\'. An entry in quotes is not the
 * folder: cmd and CreateProcess strip the quotes when they search PATH for
 * programs, the DLL loader does not, so a DLL's own LoadLibrary would not
 * find its siblings through it. */
static int path_entry_names(const wchar_t *entry, size_t length,
                            const wchar_t *folder) {
  /* Keep the '\' of a drive's root ("C:\"). */
  while (length > 3 &&
         (entry[length - 1] == L'\\' || entry[length - 1] == L'/'))
    --length;
  if (length != wcslen(folder))
    return 0;
  wchar_t *copy = malloc((length + 1) * sizeof *copy);
  if (!copy)
    return 0;
  for (size_t i = 0; i < length; ++i)
    copy[i] = entry[i] == L'/' ? L'\\' : entry[i];
  copy[length] = L'\0';
  int same = CompareStringOrdinal(copy, (int)length, folder, (int)length,
                                  TRUE) == CSTR_EQUAL;
  free(copy);
  return same;
}

/* Length of the PATH entry starting at entry (up to ';' or the end). */
static size_t entry_length(const wchar_t *entry) {
  const wchar_t *end = wcschr(entry, L';');
  return end ? (size_t)(end - entry) : wcslen(entry);
}

/* PATH with folder first and nowhere else, malloc'ed; NULL when PATH has it
 * first already (*status_out CUDALOAD_OK) or memory ran out. Other entries
 * keep their order and spelling. */
static wchar_t *path_with_folder_first(const wchar_t *current,
                                       const wchar_t *folder, int *status_out) {
  *status_out = CUDALOAD_OK;
  if (current && path_entry_names(current, entry_length(current), folder))
    return NULL;
  size_t folder_length = wcslen(folder);
  size_t current_length = current ? wcslen(current) : 0;
  wchar_t *value =
      malloc((folder_length + 1 + current_length + 1) * sizeof *value);
  if (!value) {
    *status_out = CUDALOAD_E_NO_MEMORY;
    return NULL;
  }
  memcpy(value, folder, folder_length * sizeof *value);
  size_t used = folder_length;
  /* A later copy of the folder is dropped rather than kept: the folder
   * moves to the front, where it wins over other copies of the same DLLs. */
  for (const wchar_t *entry = current; entry && *entry;) {
    size_t length = entry_length(entry);
    if (!path_entry_names(entry, length, folder)) {
      value[used++] = L';';
      memcpy(value + used, entry, length * sizeof *value);
      used += length;
    }
    entry += length;
    if (*entry == L';')
      ++entry;
  }
  value[used] = L'\0';
  return value;
}

/* Folders already given to AddDllDirectory, so that a second call does not
 * add another cookie for the same folder. Guarded by the loader lock. */
static wchar_t **added_dll_directories;
static size_t added_dll_directory_count;

static int dll_directory_added(const wchar_t *folder) {
  for (size_t i = 0; i < added_dll_directory_count; ++i)
    if (CompareStringOrdinal(added_dll_directories[i], -1, folder, -1, TRUE) ==
        CSTR_EQUAL)
      return 1;
  return 0;
}

static void remember_dll_directory(const wchar_t *folder) {
  wchar_t **grown =
      realloc(added_dll_directories,
              (added_dll_directory_count + 1) * sizeof *added_dll_directories);
  if (!grown)
    return; /* a later call would add the folder again: harmless */
  added_dll_directories = grown;
  size_t bytes = (wcslen(folder) + 1) * sizeof *folder;
  wchar_t *copy = malloc(bytes);
  if (!copy)
    return;
  memcpy(copy, folder, bytes);
  added_dll_directories[added_dll_directory_count++] = copy;
}

/*
 * Two ways for a DLL's own later LoadLibrary("sibling.dll") to find its
 * siblings (docs/loader.md, Windows 2 and 3): PATH, which plain LoadLibrary
 * searches in a process with the default search order (ctranslate2,
 * cuDNN 8), and AddDllDirectory, which counts only for loads with
 * LOAD_LIBRARY_SEARCH_USER_DIRS, or for every load once the process has
 * called SetDefaultDllDirectories (which also stops PATH being searched).
 * Both are done, since this library cannot know which the process uses.
 */
/* The longest PATH value that Windows and the C runtime both take: a
 * variable holds at most 32,767 characters with its NUL, and _wputenv_s
 * counts "PATH=" in it. */
#define CL_PATH_VALUE_MAX (32767 - 1 - 5)

/* PATH with the clean folder `wide` first (path_with_folder_first). When
 * that would pass CL_PATH_VALUE_MAX, PATH is left as it is, entry for
 * entry, and *warning says so: never truncated, never an entry lost. */
static int prepend_to_path(const char *folder, const wchar_t *wide,
                           char **warning) {
  int status;
  wchar_t *current = process_variable(L"PATH");
  wchar_t *value = path_with_folder_first(current, wide, &status);
  size_t current_length = current ? wcslen(current) : 0;
  free(current);
  if (status != CUDALOAD_OK)
    return cl_fail(status, "%s: out of memory", folder);
  if (!value)
    return CUDALOAD_OK; /* first already */
  if (wcslen(value) > CL_PATH_VALUE_MAX) {
    free(value);
    if (warning)
      *warning = cl_strdup_printf(CL_WORDS_PATH_WOULD_PASS_WINDOWS_LIMIT,
                                  (unsigned long)current_length, folder);
    return CUDALOAD_OK;
  }
  status = set_process_variable(L"PATH", value, "PATH");
  free(value);
  return status;
}

/* add_to_dll_directories' answer form (common/error.h): sets no error;
 * *err is the OS's reason for a "no". */
static int add_to_dll_directories_quiet(const wchar_t *wide, DWORD *err) {
  add_dll_directory_function add = add_dll_directory();
  /* Without AddDllDirectory (Windows 7 without KB2533623) there is no
   * SetDefaultDllDirectories either: PATH is all plain LoadLibrary uses. */
  if (!add || dll_directory_added(wide))
    return CUDALOAD_OK;
  if (!add(wide)) {
    *err = GetLastError();
    return *err == ERROR_FILE_NOT_FOUND || *err == ERROR_PATH_NOT_FOUND
               ? CUDALOAD_E_NOT_FOUND
               : CUDALOAD_E_IO;
  }
  remember_dll_directory(wide);
  return CUDALOAD_OK;
}

static int add_to_dll_directories(const char *folder, const wchar_t *wide) {
  DWORD err = 0;
  int status = add_to_dll_directories_quiet(wide, &err);
  if (status != CUDALOAD_OK)
    return cl_fail_os(status, err, "%s: AddDllDirectory failed", folder);
  return CUDALOAD_OK;
}

static int expose_folder_locked(const char *folder, char **warning) {
  int status;
  wchar_t *wide = full_wide_path(folder, &status);
  if (!wide)
    return status;
  /* "C:\x\" and "C:\x" are one entry; a drive's root keeps its '\'. */
  size_t length = wcslen(wide);
  while (length > 3 && wide[length - 1] == L'\\')
    wide[--length] = L'\0';

  /* Checked before PATH is touched, so that a failure changes nothing. */
  DWORD old_mode = 0;
  BOOL quiet = SetThreadErrorMode(
      SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode);
  DWORD attributes = GetFileAttributesW(wide);
  DWORD err = GetLastError();
  if (quiet)
    SetThreadErrorMode(old_mode, NULL);
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    free(wide);
    return cl_fail_os(CUDALOAD_E_NOT_FOUND, err, "%s", folder);
  }
  if (!(attributes & FILE_ATTRIBUTE_DIRECTORY)) {
    free(wide);
    return cl_fail(CUDALOAD_E_NOT_FOUND, "%s: not a folder", folder);
  }

  status = prepend_to_path(folder, wide, warning);
  /* AddDllDirectory whatever became of PATH: where PATH could not take the
   * folder, it is what is left. PATH's own failure is what is reported. */
  DWORD ignored = 0;
  int added = status != CUDALOAD_OK
                  ? add_to_dll_directories_quiet(wide, &ignored)
                  : add_to_dll_directories(folder, wide);
  free(wide);
  return status != CUDALOAD_OK ? status : added;
}

int cl_os_loader_expose_folder(const char *folder, char **warning) {
  if (warning)
    *warning = NULL;
  if (!folder || !folder[0])
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "an empty folder cannot be added to PATH");
  /* A relative entry would mean another folder whenever the current folder
   * changes. */
  if (!cl_os_path_is_absolute(folder))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "%s: not an absolute folder; only absolute folders are "
                   "added to PATH",
                   folder);
  /* PATH has no quoting: a ';' would split the folder into two entries.
   * AddDllDirectory has no such limit: it still gets an existing folder,
   * for processes that called SetDefaultDllDirectories; PATH's refusal is
   * what is returned, so that the caller preloads by path instead. */
  if (strchr(folder, ';')) {
    int status;
    wchar_t *wide = full_wide_path(folder, &status);
    DWORD attributes =
        wide ? GetFileAttributesW(wide) : INVALID_FILE_ATTRIBUTES;
    if (attributes != INVALID_FILE_ATTRIBUTES &&
        (attributes & FILE_ATTRIBUTE_DIRECTORY)) {
      cl_os_loader_lock();
      DWORD ignored = 0;
      add_to_dll_directories_quiet(wide, &ignored);
      cl_os_loader_unlock();
    }
    free(wide);
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "%s: a folder whose name holds ';' cannot be put in PATH, "
                   "which would split it in two",
                   folder);
  }
  cl_os_loader_lock();
  int status = expose_folder_locked(folder, warning);
  cl_os_loader_unlock();
  return status;
}

int cl_os_set_env(const char *name, const char *value) {
  if (!name || !name[0] || strchr(name, '='))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "'%s' is not an environment variable name",
                   name ? name : "(null)");
  int status;
  wchar_t *wide_name = cl_os_utf8_to_wide(name, &status);
  if (!wide_name)
    return cl_fail(status, "%s: not a valid UTF-8 name", name);
  wchar_t *wide_value = NULL;
  if (value) {
    wide_value = cl_os_utf8_to_wide(value, &status);
    if (!wide_value) {
      free(wide_name);
      return cl_fail(status, "the value for %s is not valid UTF-8", name);
    }
  }
  status = set_process_variable(wide_name, wide_value, name);
  free(wide_name);
  free(wide_value);
  return status;
}

/* ------------------------------------------------------------------------ */
/* The preload lock                                                         */
/* ------------------------------------------------------------------------ */

/* A CRITICAL_SECTION, because it is recursive (an SRWLOCK is not). It is
 * initialised on first use, once, whichever thread comes first. */
static CRITICAL_SECTION loader_section;
static INIT_ONCE loader_section_once = INIT_ONCE_STATIC_INIT;

static BOOL CALLBACK init_loader_section(INIT_ONCE *once, void *parameter,
                                         void **context) {
  (void)once;
  (void)parameter;
  (void)context;
  InitializeCriticalSection(&loader_section);
  return TRUE;
}

void cl_os_loader_lock(void) {
  InitOnceExecuteOnce(&loader_section_once, init_loader_section, NULL, NULL);
  EnterCriticalSection(&loader_section);
}

void cl_os_loader_unlock(void) {
  LeaveCriticalSection(&loader_section);
}
