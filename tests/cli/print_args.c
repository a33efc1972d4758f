/* SPDX-License-Identifier: MIT */
/*
 * print_args.c - a child for `cudaload exec` in tests/cli/test_cli.py: it
 * prints the arguments it received and the library search-path variable it
 * was given, each as UTF-8 in hexadecimal on a line of its own
 * ("arg 4a6f73c3a9", "path ..."), so that the test compares bytes, whatever
 * they hold (quotes, line breaks, text outside any code page). On Windows it
 * takes both in UTF-16 (wmain, GetEnvironmentVariableW): what it prints is
 * what the child was given, not what a code page made of it.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef _WIN32
#include <windows.h>
#endif

static void print_hex(const char *kind, const char *utf8) {
  printf("%s ", kind);
  for (const unsigned char *p = (const unsigned char *)utf8; *p; ++p)
    printf("%02x", *p);
  printf("\n");
}

#ifdef _WIN32
static void print_wide(const char *kind, const wchar_t *wide) {
  int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
  char *utf8 = n > 0 ? malloc((size_t)n) : NULL;
  if (!utf8)
    exit(1);
  WideCharToMultiByte(CP_UTF8, 0, wide, -1, utf8, n, NULL, NULL);
  print_hex(kind, utf8);
  free(utf8);
}

int wmain(int argc, wchar_t **argv) {
  for (int i = 1; i < argc; ++i)
    print_wide("arg", argv[i]);
  DWORD n = GetEnvironmentVariableW(L"PATH", NULL, 0);
  wchar_t *path = n ? malloc(n * sizeof *path) : NULL;
  if (path && GetEnvironmentVariableW(L"PATH", path, n) < n)
    print_wide("path", path);
  free(path);
  return fflush(stdout) == 0 ? 0 : 1;
}
#else
int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    print_hex("arg", argv[i]);
  const char *path = getenv("LD_LIBRARY_PATH");
  if (path)
    print_hex("path", path);
  return fflush(stdout) == 0 ? 0 : 1;
}
#endif
