/*
 * probe_child_posix.c - lib/probe_child.h for POSIX: a monotonic clock, and
 * the out-of-process probe as a forked child that writes its stages through
 * a pipe (probe_wire.c) while the parent poll()s with a deadline.
 *
 * fork() in a multithreaded process: the child has only the thread that
 * called fork, and any lock another thread held at that moment (malloc's,
 * the dynamic loader's, stdio's) stays locked in the child for ever. The
 * probe's child allocates and calls dlopen, so in a process whose other
 * threads are busy with those it can block; the parent's deadline covers
 * that case like a hung driver (REASON_TIMEOUT), so the caller is never
 * stuck, only told "timed out". A caller that needs certainty should probe
 * before starting threads, or run `cudaload probe` as a separate program.
 * The child leaves with _exit(), so the host's atexit handlers and stdio
 * buffers are not run or flushed twice.
 */
#include "probe_child.h"

#include "cudaload.h"
#include "error.h"
#include "strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double cl_probe_clock_ms(void) {
  struct timespec now;
  if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
    return 0;
  return (double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1e6;
}

/* --- the child ----------------------------------------------------------- */

static void write_all(int fd, const char *text) {
  if (!text)
    return;
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(fd, text, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; /* the parent is gone: nobody to tell */
    text += n;
    left -= (size_t)n;
  }
}

static void report_stage(const cudaload_probe *p, size_t stage, void *opaque) {
  char *line = cl_probe_wire_stage(p, stage);
  write_all(*(int *)opaque, line);
  free(line);
}

static void run_child(cudaload_ctx *ctx, int fd) {
  /* The host's crash handlers (a runtime's, a test framework's) were
   * inherited; in this child they would turn a crashing driver into some
   * exit status. Default actions let the parent see the signal itself. */
  static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; ++i)
    signal(crash_signals[i], SIG_DFL);
  char *header = cl_probe_wire_header();
  write_all(fd, header);
  free(header);
  cudaload_probe *p = cl_probe_new();
  if (!p || cl_probe_run_in_process(ctx, p, report_stage, &fd) != CUDALOAD_OK)
    _exit(3);
  char *tail = cl_probe_wire_tail(p);
  write_all(fd, tail);
  _exit(tail ? 0 : 3);
}

/* --- the parent ---------------------------------------------------------- */

typedef struct received {
  char *data;
  size_t len, capacity;
} received;

/* Read what is there; 1 at end of file or on an error, 0 otherwise. */
static int read_some(int fd, received *r) {
  if (cl_reserve((void **)&r->data, &r->capacity, r->len + 4096 + 1, 1))
    return 1;
  ssize_t n = read(fd, r->data + r->len, 4096);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return 0;
  if (n <= 0)
    return 1;
  r->len += (size_t)n;
  r->data[r->len] = '\0';
  return 0;
}

/* Wait for the child; its status, or -1 when it cannot be known (a host
 * that ignores SIGCHLD has its children reaped for it). */
static int wait_child(pid_t pid) {
  int status = 0;
  for (;;) {
    pid_t got = waitpid(pid, &status, 0);
    if (got == pid)
      return status;
    if (got < 0 && errno != EINTR)
      return -1;
  }
}

int cl_probe_run_child(cudaload_ctx *ctx, double timeout_s, cudaload_probe *p) {
  int fds[2];
  if (pipe(fds) != 0)
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)errno,
                      "cudaload_probe_run: cannot make a pipe for the probe "
                      "process");
  /* Neither end leaks into programs the host starts meanwhile. */
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  fflush(NULL); /* buffered output must not be written twice */
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)err,
                      "cudaload_probe_run: cannot start the probe process");
  }
  if (pid == 0) {
    close(fds[0]);
    run_child(ctx, fds[1]);
  }
  close(fds[1]);

  received r = {0};
  double started = cl_probe_clock_ms();
  double deadline = started + timeout_s * 1000.0;
  int timed_out = 0;
  for (int done = 0; !done;) {
    double left = deadline - cl_probe_clock_ms();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd wait_for = {fds[0], POLLIN, 0};
    int ready = poll(&wait_for, 1, left > 1e9 ? 1000000000 : (int)left + 1);
    if (ready < 0 && errno != EINTR)
      break;
    if (ready > 0)
      done = read_some(fds[0], &r);
  }
  close(fds[0]);
  if (timed_out)
    kill(pid, SIGKILL);
  int status = wait_child(pid); /* reaped either way: no zombie is left */

  double elapsed_ms = cl_probe_clock_ms() - started;
  int complete = 0;
  if (r.data)
    cl_probe_wire_parse(r.data, r.len, p, &complete);
  free(r.data);
  char message[256];
  if (timed_out) {
    snprintf(message, sizeof message,
             "the probe did not finish within %g s (a hung driver?); its "
             "process was killed",
             timeout_s);
    cl_probe_mark_unfinished(p, CUDALOAD_REASON_TIMEOUT, elapsed_ms, message);
  } else if (complete) {
    /* The child said everything it had to say. */
  } else if (status != -1 && WIFSIGNALED(status)) {
    int signal_number = WTERMSIG(status);
    snprintf(message, sizeof message,
             "the probe process died from signal %d (%s)", signal_number,
             strsignal(signal_number));
    cl_probe_mark_unfinished(p, CUDALOAD_REASON_PROBE_CRASHED, elapsed_ms,
                             message);
  } else {
    if (status != -1 && WIFEXITED(status))
      snprintf(message, sizeof message,
               "the probe process exited with status %d before it finished",
               WEXITSTATUS(status));
    else
      snprintf(message, sizeof message,
               "the probe process ended before it finished");
    cl_probe_mark_unfinished(p, CUDALOAD_REASON_PROBE_CRASHED, elapsed_ms,
                             message);
  }
  return CUDALOAD_OK;
}
