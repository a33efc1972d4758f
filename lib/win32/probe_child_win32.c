/* SPDX-License-Identifier: MIT */
/*
 * probe_child_win32.c - lib/os/probe_child.h for Windows: the
 * out-of-process probe. Windows has no fork, so the child is a
 * helper program: the cudaload tool beside this library (the folder of the
 * module that holds this code), or the program CUDALOAD_PROBE_HELPER names,
 * started hidden as "cudaload probe --child --report-handle H ..." with the
 * ctx's roots, requirements and driver on its command line.
 *
 * - The report, in the line format of probe_wire.c, comes through a pipe of
 *   its own whose write end the helper inherits (H is its value). The
 *   helper's stdout and stderr are the caller's stderr (or NUL): what the
 *   driver prints never mixes with the report, nor reaches the caller's
 *   stdout.
 * - The helper runs in a job object (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE),
 *   assigned while it is still suspended, so every process it or the
 *   driver starts is in the job too (no breakaway is allowed). The job is
 *   terminated when the helper has ended, or at the deadline, and closing
 *   it kills whatever is left should the caller die first. Where the job
 *   cannot be had (Windows 7 in a job without nesting), the helper alone
 *   is terminated.
 * - The caller drains the pipe while it waits for the helper's exit (not
 *   for the pipe's end: a process the driver started may hold the write
 *   end for ever), reads at most CL_PROBE_REPORT_CAP bytes, and keeps a
 *   report that was complete by the time the helper ended or the deadline
 *   passed.
 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif

#include "os/probe_child.h"
#include "probe/probe_child_args.h"
#include "probe/probe_child_end.h"
#include "probe/probe_result.h"
#include "probe/probe_stages.h"
#include "probe/probe_wire.h"

#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/reason_words.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "win32/wide.h"

#include <windows.h>

#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* --- the helper program ------------------------------------------------- */

/* CUDALOAD_PROBE_HELPER, else cudaload.exe in the folder of the module that
 * holds this code (cudaload.dll, or a program linking the static library).
 * malloc'ed UTF-16, or NULL with the last error set. */
static wchar_t *helper_program(void) {
  char *chosen = cl_os_getenv("CUDALOAD_PROBE_HELPER");
  if (chosen && chosen[0]) {
    int status;
    wchar_t *wide = cl_os_utf8_to_wide(chosen, &status);
    if (!wide)
      cl_fail(status, "CUDALOAD_PROBE_HELPER=%s: not valid UTF-8", chosen);
    free(chosen);
    return wide;
  }
  free(chosen);
  /* The address of a function here, as the LPCWSTR FROM_ADDRESS takes. */
  double (*self)(void) = cl_os_clock_ms;
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

/* The whole command line, malloc'ed, or NULL with the last error set. */
static wchar_t *command_line(const wchar_t *program, char **arguments) {
  size_t count = 0;
  for (char **a = arguments; *a; ++a)
    ++count;
  wchar_t **wide = calloc(count + 1, sizeof *wide);
  size_t capacity = (wcslen(program) * 2 + 3) + 1;
  int status = CUDALOAD_E_NO_MEMORY;
  for (size_t i = 0; wide && i < count; ++i) {
    if (!(wide[i] = cl_os_utf8_to_wide(arguments[i], &status)))
      break;
    capacity += wcslen(wide[i]) * 2 + 3;
  }
  wchar_t *line = NULL;
  if (wide && (count == 0 || wide[count - 1]))
    line = malloc(capacity * sizeof *line);
  if (line) {
    size_t at = 0;
    cl_os_wide_append_argument(line, &at, program);
    for (size_t i = 0; i < count; ++i)
      cl_os_wide_append_argument(line, &at, wide[i]);
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

/* The ctx's arguments and "--report-handle" with the value of `report`,
 * as the helper reads it back (cl_os_probe_serve_child). NULL without memory.
 */
static char **helper_arguments(const cudaload_ctx *ctx, HANDLE report) {
  char **base = cl_probe_child_arguments(ctx);
  if (!base)
    return NULL;
  size_t count = 0;
  while (base[count])
    ++count;
  char **all = calloc(count + 3, sizeof *all);
  char value[32];
  snprintf(value, sizeof value, "%llu", (unsigned long long)(uintptr_t)report);
  if (all && (all[count] = cl_strdup("--report-handle")) &&
      (all[count + 1] = cl_strdup(value))) {
    memcpy(all, base, count * sizeof *all);
    free(base); /* its strings now belong to `all` */
    return all;
  }
  if (all) {
    free(all[count]);
    free(all);
  }
  cl_probe_free_arguments(base);
  return NULL;
}

/* --- running it ---------------------------------------------------------- */

typedef struct received {
  cl_buf text;
  int flooded; /* more than CL_PROBE_REPORT_CAP bytes came */
} received;

/* Read whatever the pipe holds now, without blocking, up to just past the
 * cap: a flooding helper is stopped, not followed. */
static void drain(HANDLE pipe, received *r) {
  while (!r->flooded) {
    if (r->text.len > CL_PROBE_REPORT_CAP) {
      r->flooded = 1;
      return;
    }
    DWORD available = 0;
    if (!PeekNamedPipe(pipe, NULL, 0, NULL, &available, NULL) || !available)
      return;
    if (available > 65536)
      available = 65536;
    char *space = cl_buf_space(&r->text, available);
    if (!space)
      return;
    DWORD got = 0;
    if (!ReadFile(pipe, space, available, &got, NULL) || !got)
      return;
    cl_buf_grow(&r->text, got);
  }
}

/* The job every process of the probe runs in, or NULL (the helper is then
 * terminated on its own). */
static HANDLE make_job(void) {
  HANDLE job = CreateJobObjectW(NULL, NULL);
  if (!job)
    return NULL;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
  memset(&limits, 0, sizeof limits);
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits,
                               sizeof limits)) {
    CloseHandle(job);
    return NULL;
  }
  return job;
}

/* Terminate every process of the job and wait (at most wait_ms) until the
 * job says none is left. */
static void end_job(HANDLE job, DWORD wait_ms) {
  TerminateJobObject(job, 1);
  ULONGLONG until = GetTickCount64() + wait_ms;
  for (;;) {
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION accounting;
    if (!QueryInformationJobObject(job, JobObjectBasicAccountingInformation,
                                   &accounting, sizeof accounting, NULL) ||
        accounting.ActiveProcesses == 0 || GetTickCount64() > until)
      return;
    Sleep(5);
  }
}

/* An inheritable handle for the helper's stdout and stderr: a copy of the
 * caller's stderr, or NUL when there is none. NULL when neither opens
 * (the helper then has no stdout at all, which is no harm). */
static HANDLE helper_output(void) {
  HANDLE mine = GetStdHandle(STD_ERROR_HANDLE);
  HANDLE copy = NULL;
  if (mine && mine != INVALID_HANDLE_VALUE &&
      DuplicateHandle(GetCurrentProcess(), mine, GetCurrentProcess(), &copy, 0,
                      TRUE, DUPLICATE_SAME_ACCESS))
    return copy;
  SECURITY_ATTRIBUTES inheritable = {sizeof inheritable, NULL, TRUE};
  copy = CreateFileW(L"NUL", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                     &inheritable, OPEN_EXISTING, 0, NULL);
  return copy == INVALID_HANDLE_VALUE ? NULL : copy;
}

/* The helper is not there: say where it was looked for, and how to fix it. */
static int helper_missing(const wchar_t *program) {
  char *shown = cl_os_wide_to_utf8(program, -1);
  int rc = cl_fail(CUDALOAD_E_NOT_FOUND,
                   "cudaload_probe_run: the probe helper %s does not exist "
                   "(put cudaload.exe beside cudaload.dll, or set "
                   "CUDALOAD_PROBE_HELPER to its path)",
                   shown ? shown : "cudaload.exe");
  free(shown);
  return rc;
}

/* Suspended, so that it is in the job before it runs a single
 * instruction, and so is everything it starts. */
static BOOL launch_suspended(const wchar_t *program, wchar_t *line,
                             HANDLE output, PROCESS_INFORMATION *child) {
  STARTUPINFOW startup;
  memset(&startup, 0, sizeof startup);
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = INVALID_HANDLE_VALUE;
  startup.hStdOutput = output;
  startup.hStdError = output;
  memset(child, 0, sizeof *child);
  return CreateProcessW(program, line, NULL, NULL, TRUE,
                        CREATE_NO_WINDOW | CREATE_SUSPENDED, NULL, NULL,
                        &startup, child);
}

/* Start the helper suspended, the write end of a new report pipe its only
 * inherited handle of ours; *read_end is the caller's end. The last error
 * set on failure. */
static int start_helper(cudaload_ctx *ctx, const wchar_t *program,
                        HANDLE *read_end, PROCESS_INFORMATION *child) {
  SECURITY_ATTRIBUTES inheritable = {sizeof inheritable, NULL, TRUE};
  HANDLE write_end = NULL;
  if (!CreatePipe(read_end, &write_end, &inheritable, 65536)) {
    DWORD err = GetLastError();
    return cl_fail_os(CUDALOAD_E_IO, err,
                      "cudaload_probe_run: cannot make a pipe for the helper");
  }
  /* Only the child's end is inherited. */
  SetHandleInformation(*read_end, HANDLE_FLAG_INHERIT, 0);
  char **arguments = helper_arguments(ctx, write_end);
  wchar_t *line = arguments ? command_line(program, arguments) : NULL;
  cl_probe_free_arguments(arguments);
  if (!line) {
    CloseHandle(*read_end);
    CloseHandle(write_end);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_probe_run: out of memory");
  }
  HANDLE output = helper_output();
  BOOL launched = launch_suspended(program, line, output, child);
  DWORD err = launched ? ERROR_SUCCESS : GetLastError();
  CloseHandle(write_end);
  if (output)
    CloseHandle(output);
  free(line);
  if (!launched) {
    char *shown = cl_os_wide_to_utf8(program, -1);
    CloseHandle(*read_end);
    int rc = cl_fail_os(CUDALOAD_E_IO, err,
                        "cudaload_probe_run: cannot start the probe helper %s",
                        shown ? shown : "cudaload.exe");
    free(shown);
    return rc;
  }
  return CUDALOAD_OK;
}

/* Put the suspended helper into a job (NULL when none could be made: it is
 * then terminated on its own), then let it run. */
static HANDLE resume_in_job(PROCESS_INFORMATION *child) {
  HANDLE job = make_job();
  if (job && !AssignProcessToJobObject(job, child->hProcess)) {
    CloseHandle(job);
    job = NULL;
  }
  ResumeThread(child->hThread);
  CloseHandle(child->hThread);
  return job;
}

/* Read the report until the helper ends, the report floods or the deadline
 * passes; 1 when the deadline passed. */
static int read_report(HANDLE read_end, HANDLE process, double deadline,
                       received *r) {
  int timed_out = 0;
  for (;;) {
    drain(read_end, r);
    if (r->flooded)
      break;
    double left = deadline - cl_os_clock_ms();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    /* Short waits, so that a child writing more than the pipe holds is
     * never left blocked on a full pipe. */
    DWORD wait = left > 20 ? 20 : (DWORD)left + 1;
    if (WaitForSingleObject(process, wait) == WAIT_OBJECT_0)
      break;
  }
  /* What is in the pipe now came before the deadline, or before the helper
   * ended; nothing later counts. */
  drain(read_end, r);
  return timed_out;
}

/* The helper, if it still runs, and whatever it started, stopped; its exit
 * code. */
static DWORD stop_helper(HANDLE job, HANDLE process) {
  if (job) {
    end_job(job, 5000);
  } else if (WaitForSingleObject(process, 0) != WAIT_OBJECT_0) {
    TerminateProcess(process, 1);
  }
  WaitForSingleObject(process, 5000);
  DWORD exit_code = 0;
  GetExitCodeProcess(process, &exit_code);
  return exit_code;
}

int cl_os_probe_run_child(cudaload_ctx *ctx, double timeout_s,
                          cudaload_probe *p) {
  wchar_t *program = helper_program();
  if (!program)
    return cudaload_last_error()[0] ? CUDALOAD_E_NOT_FOUND
                                    : CUDALOAD_E_NO_MEMORY;
  if (GetFileAttributesW(program) == INVALID_FILE_ATTRIBUTES) {
    int rc = helper_missing(program);
    free(program);
    return rc;
  }
  HANDLE read_end = NULL;
  PROCESS_INFORMATION child;
  int status = start_helper(ctx, program, &read_end, &child);
  free(program);
  if (status != CUDALOAD_OK)
    return status;
  HANDLE job = resume_in_job(&child);

  received r;
  memset(&r, 0, sizeof r);
  double started = cl_os_clock_ms();
  int timed_out =
      read_report(read_end, child.hProcess, started + timeout_s * 1000.0, &r);
  DWORD exit_code = stop_helper(job, child.hProcess);
  CloseHandle(child.hProcess);
  CloseHandle(read_end);
  if (job)
    CloseHandle(job);

  cl_probe_child_end end = {r.text.data, r.text.len, r.flooded,
                            timed_out,   timeout_s,  cl_os_clock_ms() - started,
                            ""};
  /* NTSTATUS exception codes (0xC0000005 access violation, ...) are what
   * a crashed process exits with. */
  if (exit_code >= 0xC0000000u)
    snprintf(end.how, sizeof end.how, CL_WORDS_DIED_FROM_EXCEPTION,
             (unsigned long)exit_code);
  else
    snprintf(end.how, sizeof end.how,
             CL_WORDS_EXITED_WITH_EXIT_CODE_BEFORE_IT_FINISHED,
             (unsigned long)exit_code);
  cl_probe_child_verdict(p, &end);
  cl_buf_free(&r.text);
  return CUDALOAD_OK;
}

/* --- the helper's side (cudaload probe --child) -------------------------- */

static int write_all(HANDLE channel, const char *text) {
  size_t left = text ? strlen(text) : 0;
  while (left > 0) {
    DWORD wrote = 0;
    DWORD want = left > 65536 ? 65536 : (DWORD)left;
    if (!WriteFile(channel, text, want, &wrote, NULL) || !wrote)
      return 1; /* the caller is gone: nobody to tell */
    text += wrote;
    left -= wrote;
  }
  return 0;
}

static void report_stage(const cudaload_probe *p, size_t stage, void *opaque) {
  char *line = cl_probe_wire_stage(p, stage);
  write_all(*(HANDLE *)opaque, line);
  free(line);
}

int cl_os_probe_serve_child(cudaload_ctx *ctx, const char *channel) {
  char *end = NULL;
  unsigned long long value =
      channel && channel[0] ? strtoull(channel, &end, 0) : 0;
  HANDLE report = (HANDLE)(uintptr_t)value;
  if (!channel || !channel[0] || !end || *end || !value ||
      GetFileType(report) == FILE_TYPE_UNKNOWN)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "--report-handle %s: not an open handle",
                   channel ? channel : "(none)");
  /* Not handed to programs the driver starts. */
  SetHandleInformation(report, HANDLE_FLAG_INHERIT, 0);
  /* The caller gave this process its stderr as stdout already; a helper
   * started some other way gets the same here, for the C runtime and for
   * the process's standard handle alike. */
  fflush(stdout);
  HANDLE error = GetStdHandle(STD_ERROR_HANDLE);
  if (error && error != INVALID_HANDLE_VALUE) {
    SetStdHandle(STD_OUTPUT_HANDLE, error);
    _dup2(_fileno(stderr), _fileno(stdout));
  }
  char *header = cl_probe_wire_header();
  int failed = write_all(report, header);
  free(header);
  cudaload_probe *p = cl_probe_new();
  if (!p || cl_probe_run_in_process(ctx, p, report_stage, &report)) {
    cudaload_probe_free(p);
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload probe --child: out of memory");
  }
  char *tail = cl_probe_wire_tail(p);
  failed = failed || !tail || write_all(report, tail);
  free(tail);
  cudaload_probe_free(p);
  if (failed)
    return cl_fail(CUDALOAD_E_IO,
                   "cudaload probe --child: the report could "
                   "not be written to handle %s",
                   channel);
  return CUDALOAD_OK;
}
