/* SPDX-License-Identifier: MIT */
/*
 * child_windows.c - the Windows program whose loading the differential
 * tests watch under Wine (tests/loader_oracle/oracle.py builds it with
 * mingw-w64 and runs it with WINEDEBUG=+loaddll).
 *
 * It first prints the modules it starts with ("INIT path"), its PATH and
 * current folder, then does each argument as an action, in order:
 *   load:FLAGS:NAME   LoadLibraryExA(NAME, NULL, FLAGS) (FLAGS in hex)
 *   adddir:DIR        AddDllDirectory(DIR)
 *   setdefault:FLAGS  SetDefaultDllDirectories(FLAGS)
 *   setdlldir:DIR     SetDllDirectoryA(DIR)
 *   lazy:DLL:SYM      call SYM of the loaded module DLL: it makes a plain
 *                     LoadLibraryA by name from inside that DLL
 * printing "ACTION i ok" or "ACTION i fail ERROR" for each (and marking the
 * start of each on stderr, so the loader's trace can be cut per action),
 * then "MODULE path" for every module of the process.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

BOOL WINAPI K32EnumProcessModules(HANDLE process, HMODULE *modules, DWORD bytes,
                                  DWORD *bytes_needed);
typedef void *(WINAPI *add_dll_directory_fn)(const wchar_t *);
typedef BOOL(WINAPI *set_default_fn)(DWORD);
typedef void *(*lazy_fn)(void);

static void print_modules(const char *tag) {
  HMODULE modules[512];
  DWORD needed = 0;
  if (!K32EnumProcessModules(GetCurrentProcess(), modules, sizeof modules,
                             &needed))
    return;
  for (DWORD i = 0; i < needed / sizeof modules[0] && i < 512; ++i) {
    char name[MAX_PATH * 4];
    if (GetModuleFileNameA(modules[i], name, sizeof name))
      printf("%s %s\n", tag, name);
  }
}

static FARPROC kernel32(const char *name) {
  return GetProcAddress(GetModuleHandleA("kernel32.dll"), name);
}

int main(int argc, char **argv) {
  char buffer[32768];
  setvbuf(stdout, NULL, _IONBF, 0);
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  print_modules("INIT");
  if (GetEnvironmentVariableA("PATH", buffer, sizeof buffer))
    printf("PATH %s\n", buffer);
  if (GetCurrentDirectoryA(sizeof buffer, buffer))
    printf("CWD %s\n", buffer);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    fprintf(stderr, "ACTION %d begin\n", i);
    DWORD error = 0;
    int ok = 0;
    if (strncmp(a, "load:", 5) == 0) {
      char *end = NULL;
      DWORD flags = (DWORD)strtoul(a + 5, &end, 16);
      HMODULE h = LoadLibraryExA(end + 1, NULL, flags);
      ok = h != NULL;
      error = ok ? 0 : GetLastError();
    } else if (strncmp(a, "adddir:", 7) == 0) {
      wchar_t wide[4096];
      MultiByteToWideChar(CP_ACP, 0, a + 7, -1, wide, 4096);
      add_dll_directory_fn add;
      FARPROC p = kernel32("AddDllDirectory");
      memcpy(&add, &p, sizeof add);
      ok = add && add(wide) != NULL;
      error = ok ? 0 : GetLastError();
    } else if (strncmp(a, "setdefault:", 11) == 0) {
      set_default_fn set;
      FARPROC p = kernel32("SetDefaultDllDirectories");
      memcpy(&set, &p, sizeof set);
      ok = set && set((DWORD)strtoul(a + 11, NULL, 16));
      error = ok ? 0 : GetLastError();
    } else if (strncmp(a, "setdlldir:", 10) == 0) {
      ok = SetDllDirectoryA(a + 10) != 0;
      error = ok ? 0 : GetLastError();
    } else if (strncmp(a, "lazy:", 5) == 0) {
      char dll[MAX_PATH];
      const char *colon = strchr(a + 5, ':');
      size_t n = colon ? (size_t)(colon - (a + 5)) : 0;
      if (colon && n < sizeof dll) {
        memcpy(dll, a + 5, n);
        dll[n] = '\0';
        HMODULE module = GetModuleHandleA(dll);
        FARPROC p = module ? GetProcAddress(module, colon + 1) : NULL;
        lazy_fn fn;
        memcpy(&fn, &p, sizeof fn);
        if (p) {
          ok = fn() != NULL;
          error = ok ? 0 : GetLastError();
        } else {
          error = GetLastError();
        }
      }
    }
    fprintf(stderr, "ACTION %d end\n", i);
    if (ok)
      printf("ACTION %d ok\n", i);
    else
      printf("ACTION %d fail %lu\n", i, (unsigned long)error);
  }
  print_modules("MODULE");
  return 0;
}
