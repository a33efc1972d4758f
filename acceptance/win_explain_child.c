/* SPDX-License-Identifier: MIT */
/*
 * acceptance/win_explain_child.c - step 7 under Wine: the process whose
 * loader `cudaload explain` is compared with (acceptance/explain_wine.py
 * runs it with WINEDEBUG=+loaddll). Each argument is one action:
 *   load:PATH   LoadLibraryW(PATH)
 *   lazy:NAME   LoadLibraryW(NAME): what a DLL gets when it opens NAME
 *               itself (the search does not depend on the caller: the
 *               program's folder, the system folders, the current folder,
 *               PATH; docs/loader.md, Windows 8)
 * Before each action "ACTION <n> begin" goes to stderr (to cut the +loaddll
 * trace), after it "ACTION <n> ok|fail <GetLastError()>" to stdout. At the
 * end, every module loaded as "MODULE <path>", and for each NAME given
 * after "--", the module that answers it as "ANSWER <name>\t<path>".
 */
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>
#include <psapi.h>

static void widen(const char *s, wchar_t *out, size_t n) {
  if (!MultiByteToWideChar(CP_UTF8, 0, s, -1, out, (int)n))
    out[0] = 0;
}

int main(int argc, char **argv) {
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; ++i) {
    wchar_t w[4096];
    const char *a = argv[i];
    fflush(stdout);
    fprintf(stderr, "ACTION %d begin\n", i);
    fflush(stderr);
    widen(strchr(a, ':') + 1, w, sizeof w / sizeof *w);
    HMODULE h = LoadLibraryW(w);
    printf("ACTION %d %s %lu\n", i, h ? "ok" : "fail",
           h ? 0ul : (unsigned long)GetLastError());
  }
  fflush(stdout);
  fprintf(stderr, "ACTION %d begin\n", i);
  HMODULE mods[1024];
  DWORD bytes = 0;
  if (K32EnumProcessModules(GetCurrentProcess(), mods, sizeof mods, &bytes))
    for (DWORD k = 0; k < bytes / sizeof *mods && k < 1024; ++k) {
      char path[4096];
      if (GetModuleFileNameA(mods[k], path, sizeof path))
        printf("MODULE %s\n", path);
    }
  for (++i; i < argc; ++i) {
    char path[4096];
    wchar_t w[1024];
    widen(argv[i], w, sizeof w / sizeof *w);
    HMODULE h = GetModuleHandleW(w);
    if (h && GetModuleFileNameA(h, path, sizeof path))
      printf("ANSWER %s\t%s\n", argv[i], path);
  }
  return 0;
}
