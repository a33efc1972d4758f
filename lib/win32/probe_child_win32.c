/*
 * probe_child_win32.c - lib/probe_child.h for Windows: a monotonic clock,
 * and the out-of-process probe. Windows has no fork, so the child is a
 * helper program: the cudaload tool beside this library (the folder of the
 * module that holds this code), or the program CUDALOAD_PROBE_HELPER names,
 * started hidden as "cudaload probe --child ..." with the ctx's roots,
 * requirements and driver on its command line. It writes the line format of
 * probe_wire.c to a pipe; the parent drains the pipe while it waits, and
 * calls TerminateProcess when the deadline passes.
 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "probe_child.h"

#include "cudaload.h"
#include "error.h"
#include "platform.h"
#include "strutil.h"
#include "wide.h"

#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

double cl_probe_clock_ms(void) {
  static LARGE_INTEGER frequency; /* constant while the system runs */
  LARGE_INTEGER now;
  if (!frequency.QuadPart && !QueryPerformanceFrequency(&frequency))
    return (double)GetTickCount64();
  QueryPerformanceCounter(&now);
  return (double)now.QuadPart * 1000.0 / (double)frequency.QuadPart;
}

/* --- the helper program ------------------------------------------------- */

/* CUDALOAD_PROBE_HELPER, else cudaload.exe in the folder of the module that
 * holds this code (cudaload.dll, or a program linking the static library).
 * malloc'ed UTF-16, or NULL with the last error set. */
static wchar_t *helper_program(void) {
  char *chosen = cl_getenv("CUDALOAD_PROBE_HELPER");
  if (chosen && chosen[0]) {
    int status;
    wchar_t *wide = cl_utf8_to_wide(chosen, &status);
    if (!wide)
      cl_fail(status, "CUDALOAD_PROBE_HELPER=%s: not valid UTF-8", chosen);
    free(chosen);
    return wide;
  }
  free(chosen);
  /* The address of a function here, as the LPCWSTR FROM_ADDRESS takes. */
  double (*self)(void) = cl_probe_clock_ms;
  const wchar_t *address;
  memcpy(&address, &self, sizeof address);
  HMODULE module = NULL;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                              GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          address, &module)) {
    cl_fail_os(
        CUDALOAD_E_NOT_FOUND, GetLastError(),
        "cudaload_probe_run: cannot tell which module holds libcudaload");
    return NULL;
  }
  DWORD capacity = 32768;
  wchar_t *path = malloc((capacity + 16) * sizeof *path);
  if (!path) {
    cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_probe_run: out of memory");
    return NULL;
  }
  DWORD got = GetModuleFileNameW(module, path, capacity);
  if (got == 0 || got >= capacity) {
    free(path);
    cl_fail(CUDALOAD_E_NOT_FOUND, "cudaload_probe_run: the module's file name "
                                  "is unknown");
    return NULL;
  }
  wchar_t *slash = wcsrchr(path, L'\\');
  wcscpy(slash ? slash + 1 : path, L"cudaload.exe");
  return path;
}

/* Append one argument quoted as CommandLineToArgvW and the C runtime read
 * it back: backslashes are literal unless they precede a quote. */
static void append_argument(wchar_t *line, size_t *at, const wchar_t *arg) {
  if (*at)
    line[(*at)++] = L' ';
  if (arg[0] && !wcspbrk(arg, L" \t\"")) {
    for (; *arg; ++arg)
      line[(*at)++] = *arg;
    return;
  }
  line[(*at)++] = L'"';
  for (;;) {
    size_t backslashes = 0;
    while (*arg == L'\\') {
      ++backslashes;
      ++arg;
    }
    if (!*arg) {
      for (size_t i = 0; i < backslashes * 2; ++i)
        line[(*at)++] = L'\\';
      break;
    }
    if (*arg == L'"') {
      for (size_t i = 0; i < backslashes * 2 + 1; ++i)
        line[(*at)++] = L'\\';
    } else {
      for (size_t i = 0; i < backslashes; ++i)
        line[(*at)++] = L'\\';
    }
    line[(*at)++] = *arg++;
  }
  line[(*at)++] = L'"';
}

/* The whole command line, malloc'ed, or NULL with the last error set. */
static wchar_t *command_line(const wchar_t *program, char **arguments) {
  size_t count = 0;
  for (char **a = arguments; *a; ++a)
    ++count;
  wchar_t **wide = calloc(count + 1, sizeof *wide);
  size_t capacity = (wcslen(program) * 2 + 3) + 1;
  int status = CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; wide && i < count; ++i) {
    if (!(wide[i] = cl_utf8_to_wide(arguments[i], &status)))
      break;
    capacity += wcslen(wide[i]) * 2 + 3;
  }
  wchar_t *line = NULL;
  if (wide && (count == 0 || wide[count - 1]))
    line = malloc(capacity * sizeof *line);
  if (line) {
    size_t at = 0;
    append_argument(line, &at, program);
    for (size_t i = 0; i < count; ++i)
      append_argument(line, &at, wide[i]);
    line[at] = L'\0';
  } else {
    cl_fail(status, "cudaload_probe_run: cannot build the helper's command "
                    "line");
  }
  for (size_t i = 0; wide && i < count; ++i)
    free(wide[i]);
  free(wide);
  return line;
}

/* --- running it ---------------------------------------------------------- */

typedef struct received {
  char *data;
  size_t len, capacity;
} received;

/* Read whatever the pipe holds now, without blocking. */
static void drain(HANDLE pipe, received *r) {
  for (;;) {
    DWORD available = 0;
    if (!PeekNamedPipe(pipe, NULL, 0, NULL, &available, NULL) || !available)
      return;
    if (cl_reserve((void **)&r->data, &r->capacity, r->len + available + 1, 1))
      return;
    DWORD got = 0;
    if (!ReadFile(pipe, r->data + r->len, available, &got, NULL) || !got)
      return;
    r->len += got;
    r->data[r->len] = '\0';
  }
}

int cl_probe_run_child(cudaload_ctx *ctx, double timeout_s, cudaload_probe *p) {
  wchar_t *program = helper_program();
  if (!program)
    return cudaload_last_error()[0] ? CUDALOAD_E_NOT_FOUND
                                    : CUDALOAD_E_NO_MEMORY;
  if (GetFileAttributesW(program) == INVALID_FILE_ATTRIBUTES) {
    char *shown = cl_wide_to_utf8(program, -1);
    free(program);
    int rc = cl_fail(CUDALOAD_E_NOT_FOUND,
                     "cudaload_probe_run: the probe helper %s does not exist "
                     "(put cudaload.exe beside cudaload.dll, or set "
                     "CUDALOAD_PROBE_HELPER to its path)",
                     shown ? shown : "cudaload.exe");
    free(shown);
    return rc;
  }
  char **arguments = cl_probe_child_arguments(ctx);
  wchar_t *line = arguments ? command_line(program, arguments) : NULL;
  cl_probe_free_arguments(arguments);
  if (!line) {
    free(program);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_probe_run: out of memory");
  }

  SECURITY_ATTRIBUTES inheritable = {sizeof inheritable, NULL, TRUE};
  HANDLE read_end = NULL, write_end = NULL;
  if (!CreatePipe(&read_end, &write_end, &inheritable, 65536)) {
    DWORD err = GetLastError();
    free(program);
    free(line);
    return cl_fail_os(CUDALOAD_E_IO, err,
                      "cudaload_probe_run: cannot make a pipe for the helper");
  }
  /* Only the child's end is inherited. */
  SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
  STARTUPINFOW startup;
  memset(&startup, 0, sizeof startup);
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = INVALID_HANDLE_VALUE;
  startup.hStdOutput = write_end;
  startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION child;
  memset(&child, 0, sizeof child);
  BOOL launched =
      CreateProcessW(program, line, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL,
                     NULL, &startup, &child);
  DWORD err = launched ? ERROR_SUCCESS : GetLastError();
  CloseHandle(write_end);
  free(line);
  if (!launched) {
    char *shown = cl_wide_to_utf8(program, -1);
    free(program);
    CloseHandle(read_end);
    int rc = cl_fail_os(CUDALOAD_E_IO, err,
                        "cudaload_probe_run: cannot start the probe helper %s",
                        shown ? shown : "cudaload.exe");
    free(shown);
    return rc;
  }
  free(program);
  CloseHandle(child.hThread);

  received r = {0};
  double started = cl_probe_clock_ms();
  double deadline = started + timeout_s * 1000.0;
  int timed_out = 0;
  for (;;) {
    drain(read_end, &r);
    double left = deadline - cl_probe_clock_ms();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    /* Short waits, so that a child writing more than the pipe holds is
     * never left blocked on a full pipe. */
    DWORD wait = left > 20 ? 20 : (DWORD)left + 1;
    if (WaitForSingleObject(child.hProcess, wait) == WAIT_OBJECT_0)
      break;
  }
  if (timed_out) {
    TerminateProcess(child.hProcess, 1);
    WaitForSingleObject(child.hProcess, 5000);
  }
  drain(read_end, &r);
  DWORD exit_code = 0;
  GetExitCodeProcess(child.hProcess, &exit_code);
  CloseHandle(child.hProcess);
  CloseHandle(read_end);

  double elapsed_ms = cl_probe_clock_ms() - started;
  int complete = 0;
  if (r.data)
    cl_probe_wire_parse(r.data, r.len, p, &complete);
  free(r.data);
  char message[256];
  if (timed_out) {
    snprintf(message, sizeof message,
             "the probe did not finish within %g s (a hung driver?); its "
             "process was terminated",
             timeout_s);
    cl_probe_mark_unfinished(p, CUDALOAD_REASON_TIMEOUT, elapsed_ms, message);
  } else if (!complete) {
    /* NTSTATUS exception codes (0xC0000005 access violation, ...) are what
     * a crashed process exits with. */
    if (exit_code >= 0xC0000000u)
      snprintf(message, sizeof message,
               "the probe process died from exception 0x%08lX",
               (unsigned long)exit_code);
    else
      snprintf(message, sizeof message,
               "the probe process exited with status %lu before it finished",
               (unsigned long)exit_code);
    cl_probe_mark_unfinished(p, CUDALOAD_REASON_PROBE_CRASHED, elapsed_ms,
                             message);
  }
  return CUDALOAD_OK;
}
