/* SPDX-License-Identifier: MIT */
/*
 * cli_run.c - starting exec's COMMAND once the search-path variable is set.
 * Linux replaces the tool with it. Windows has no exec: the tool runs it as
 * a child with CreateProcessW, which takes one command line, so the
 * arguments are quoted into it, and which would run a batch file through
 * cmd.exe, whose parsing no quoting makes safe: such a COMMAND is refused
 * (docs/cli.md, "exec"; SECURITY.md, "exec and batch files").
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include "win32/wide.h"

#include <windows.h>
#else
#include <errno.h>
#include <unistd.h>
#endif

#ifdef _WIN32
/* The child's command line as it grows; lost once an allocation failed. */
typedef struct wide_line {
  wchar_t *text;
  size_t len, cap;
  int lost;
} wide_line;

static wchar_t *line_room(wide_line *line, size_t more) {
  if (line->lost)
    return NULL;
  if (line->len + more + 1 > line->cap) {
    size_t cap = (line->len + more + 1) * 2;
    wchar_t *grown = realloc(line->text, cap * sizeof *grown);
    if (!grown) {
      line->lost = 1;
      return NULL;
    }
    line->text = grown;
    line->cap = cap;
  }
  return line->text + line->len;
}

/* One argument, quoted so that the child's C runtime (and
 * CommandLineToArgvW, whose rules it shares) gives it back exactly:
 * backslashes are literal unless they come before a quote, where 2n+1 of
 * them are n and a literal quote. */
static void append_quoted(wide_line *line, const wchar_t *arg) {
  wchar_t *out = line_room(line, wcslen(arg) * 2 + 3);
  if (!out)
    return;
  int quote = !*arg || wcspbrk(arg, L" \t\n\v\"") != NULL;
  if (line->len)
    *out++ = L' ';
  if (quote)
    *out++ = L'"';
  for (const wchar_t *p = arg;; ++p) {
    size_t slashes = 0;
    while (*p == L'\\') {
      ++p;
      ++slashes;
    }
    /* Before the closing quote or a literal one, each backslash doubles. */
    size_t doubled = !*p ? (quote ? slashes * 2 : slashes)
                         : (*p == L'"' ? slashes * 2 + 1 : slashes);
    for (size_t s = 0; s < doubled; ++s)
      *out++ = L'\\';
    if (!*p)
      break;
    *out++ = *p;
  }
  if (quote)
    *out++ = L'"';
  *out = 0;
  line->len = (size_t)(out - line->text);
}

/*
 * Whether CreateProcessW would run `name` through cmd.exe: it does so for a
 * name ending in .bat or .cmd, in any case. Windows drops trailing dots and
 * spaces from a file name, so "t.bat." and "t.bat " run t.bat too (the hole
 * left in Rust's first fix, CVE-2024-43402). A name without an extension
 * cannot reach a batch file: CreateProcessW appends ".exe" and never reads
 * PATHEXT, which only cmd.exe and ShellExecute use (tests/cli: CommandLine).
 */
static int runs_through_cmd(const char *name) {
  size_t n = strlen(name);
  while (n > 0 && (name[n - 1] == '.' || name[n - 1] == ' '))
    --n;
  if (n < 4 || name[n - 4] != '.')
    return 0;
  char ext[4] = {0};
  for (int i = 0; i < 3; ++i) {
    char c = name[n - 3 + i];
    ext[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return strcmp(ext, "bat") == 0 || strcmp(ext, "cmd") == 0;
}

/* 0 when COMMAND may be started, else 126 with the reason printed. */
static int refuse_command(const char *name) {
  if (runs_through_cmd(name)) {
    /* cmd.exe knows no escape for '"' and expands %NAME% even in quotes:
     * an argument holding `" & other "` would run `other`
     * (CVE-2024-24576, "BatBadBut"). Refused, whatever the arguments. */
    cli_error("cudaload: exec: %s: a batch file, which Windows runs through "
              "cmd.exe, whose parsing no quoting makes safe (a quote, &, |, "
              "<, >, ^ or %% in an argument could run other commands); not "
              "started. To run it anyway, name cmd.exe as COMMAND and quote "
              "for cmd yourself (-- cmd /d /c %s ...), or save the line of "
              "'cudaload env --shell cmd' as a batch file and call it "
              "first\n",
              name, name);
    return 126;
  }
  /* CreateProcessW finds the program by its own rule, up to the next
   * quote: a quote in the name would make it run another file. */
  if (strchr(name, '"')) {
    cli_error("cudaload: exec: %s: not a Windows file name (it holds '\"'); "
              "not started\n",
              name);
    return 126;
  }
  return 0;
}

/* The command line for args, or NULL (message printed). */
static wchar_t *command_line(char **args, int count) {
  wide_line line = {NULL, 0, 0, 0};
  for (int i = 0; i < count && !line.lost; ++i) {
    int status;
    wchar_t *w = cl_os_utf8_to_wide(args[i], &status);
    if (!w) {
      free(line.text);
      cli_error("cudaload: exec: %s\n", status == CUDALOAD_E_NO_MEMORY
                                            ? "out of memory"
                                            : "an argument is not UTF-8");
      return NULL;
    }
    append_quoted(&line, w);
    free(w);
  }
  if (line.lost || !line.text) {
    free(line.text);
    cli_error("cudaload: exec: out of memory\n");
    return NULL;
  }
  return line.text;
}

int cli_run_command(char **args, int count) {
  int refused = refuse_command(args[0]);
  if (refused)
    return refused;
  wchar_t *line = command_line(args, count);
  if (!line)
    return EXIT_INTERNAL;
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  memset(&si, 0, sizeof si);
  si.cb = sizeof si;
  /* The child shares the console and expects the user's code page. */
  cli_console_restore();
  if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
    DWORD err = GetLastError();
    cli_error("cudaload: exec: %s: cannot run (Windows error %lu)\n", args[0],
              (unsigned long)err);
    free(line);
    return err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? 127
                                                                      : 126;
  }
  free(line);
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 1;
  GetExitCodeProcess(pi.hProcess, &code);
  CloseHandle(pi.hProcess);
  CloseHandle(pi.hThread);
  return (int)code;
}
#else
int cli_run_command(char **args, int count) {
  (void)count;
  fflush(stdout);
  execvp(args[0], args);
  int err = errno;
  cli_error("cudaload: exec: %s: %s\n", args[0], strerror(err));
  return err == ENOENT ? 127 : 126;
}
#endif
