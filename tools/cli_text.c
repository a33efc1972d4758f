/* SPDX-License-Identifier: MIT */
/*
 * cli_text.c - what the tool shows people: values from outside (paths,
 * names read from files, spec text, a driver's strings) escaped so that no
 * control byte or byte that is not UTF-8 reaches the terminal as it is
 * (lib/common/text_escape.h), and messages on standard error written the
 * same way. JSON and YAML reports keep the exact values; they do not come
 * here.
 */
#include "cli.h"
#include "common/text_escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#endif

/* The tool is one thread; a few values are shown per line, so a small ring
 * of buffers lets several cli_shown() results sit in one printf. */
enum { SHOWN_SLOTS = 8 };
static char *shown_slots[SHOWN_SLOTS];
static unsigned shown_next;

const char *cli_shown(const char *s) {
  if (!s || !cl_text_needs_escape(s, 0))
    return s;
  char *copy = cl_text_escaped(s, 0);
  if (!copy)
    return "(out of memory)";
  unsigned slot = shown_next++ % SHOWN_SLOTS;
  free(shown_slots[slot]);
  shown_slots[slot] = copy;
  return copy;
}

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *raw = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!raw) {
    fputs("cudaload: out of memory\n", stderr);
    return;
  }
  va_start(ap, fmt);
  vsnprintf(raw, (size_t)n + 1, fmt, ap);
  va_end(ap);
  /* The message's own line breaks stay; everything else from outside is
   * shown escaped. */
  char *text = cl_text_escaped(raw, 1);
  fputs(text ? text : raw, stderr);
  free(text);
  free(raw);
}

int cli_finish_output(const char *command) {
  /* stdio keeps the first write error: flush, then ask. */
  errno = 0;
  int failed = fflush(stdout) != 0 || ferror(stdout);
  int err = errno;
  if (!failed)
    return EXIT_OK;
  cli_error("cudaload: %s: could not write to standard output: %s\n",
            command ? command : "", err ? strerror(err) : "write error");
  return EXIT_INTERNAL;
}

#ifdef _WIN32
/* The console's output code page before cli_console_utf8() changed it; 0
 * while unchanged. Taken with InterlockedExchange, so that the Ctrl+C
 * handler's thread and the main thread restore it once between them. */
static volatile LONG console_saved_cp;

static void restore_code_page(void) {
  UINT saved = (UINT)InterlockedExchange(&console_saved_cp, 0);
  if (saved)
    SetConsoleOutputCP(saved);
}

/* Ctrl+C, Ctrl+Break, closing the window: the console outlives the tool
 * and is the user's shell's; give its code page back, then let the default
 * handler end the process. */
static BOOL WINAPI restore_on_break(DWORD event) {
  (void)event;
  restore_code_page();
  return FALSE;
}

void cli_console_utf8(void) {
  DWORD mode;
  if (!GetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), &mode) &&
      !GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode))
    return; /* pipes and files: the UTF-8 bytes go out as written */
  UINT cp = GetConsoleOutputCP();
  if (cp == 0 || cp == CP_UTF8 || !SetConsoleOutputCP(CP_UTF8))
    return;
  InterlockedExchange(&console_saved_cp, (LONG)cp);
  SetConsoleCtrlHandler(restore_on_break, TRUE);
}

void cli_console_restore(void) {
  /* What is still buffered was written for UTF-8: out with it first. */
  fflush(stdout);
  fflush(stderr);
  restore_code_page();
}
#else
void cli_console_utf8(void) {}
void cli_console_restore(void) {}
#endif
