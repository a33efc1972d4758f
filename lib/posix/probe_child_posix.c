/* SPDX-License-Identifier: MIT */
/*
 * probe_child_posix.c - lib/os/probe_child.h for POSIX: the
 * out-of-process probe, in three processes:
 *
 *   the caller   (the host) forks
 *   the keeper   which runs only this file's code, and forks
 *   the prober   which runs the stages (the driver's code runs here) and
 *                writes each to the report pipe as it ends (probe_wire.c).
 *
 * The keeper is there so that whatever the driver starts is found and
 * stopped, without touching the host:
 * - It leads a process group of its own (setpgid in the keeper and in the
 *   caller, whichever runs first), which the prober and what it forks join.
 *   The caller kills that group when the keeper has ended (the keeper's
 *   zombie still holds the group's id, so the id cannot have been reused).
 * - On Linux it is a child subreaper (PR_SET_CHILD_SUBREAPER, a property of
 *   the keeper, not of the host): a process that the driver detached with
 *   setsid() and whose parent exited is re-parented to the keeper rather
 *   than to init. When the prober has ended, or at the caller's word, the
 *   keeper kills its children (found in /proc) and reaps them until it has
 *   none, so nothing below it survives. Elsewhere the group kill is all
 *   there is: a process that left the group (setsid, setpgid) and whose
 *   parent exited cannot be found by an unprivileged process.
 * - It tells the caller how the prober ended (its wait status) over a
 *   socket pair, which is also the caller's way to tell it to stop: the
 *   caller shuts down its side at the deadline, and the kernel closes it
 *   when the caller dies (Ctrl-C at a terminal reaches the caller only: the
 *   keeper's group is not the terminal's foreground group).
 *
 * The caller applies one deadline to everything. It polls the report pipe
 * and asks waitid(WNOWAIT | WNOHANG) after the keeper in 10 ms steps (no
 * SIGCHLD handler: the host's stays as it is), so neither a helper that
 * keeps the pipe open (no end of file, ever) nor a prober that closed it
 * (end of file at once) changes how long it waits. A report that was
 * complete when the keeper ended, or at the deadline, gives the verdict.
 * What the driver prints on stdout goes to stderr: the host's stdout may be
 * carrying a report of its own (`cudaload probe --format json`).
 *
 * fork() in a multithreaded process: the child has only the thread that
 * called fork, and any lock another thread held at that moment (malloc's,
 * the dynamic loader's, stdio's) stays locked in the child for ever. The
 * keeper uses nothing that takes a lock (system calls only); the prober
 * allocates and calls dlopen, so in a process whose other threads are busy
 * with those it can block. The caller's deadline covers that case like a
 * hung driver (REASON_TIMEOUT), so the caller is never stuck, only told
 * "timed out". A caller that needs certainty should probe before starting
 * threads, or run `cudaload probe` as a separate program. The children
 * leave with _exit(), so the host's atexit handlers and stdio buffers are
 * not run or flushed twice.
 */
#include "os/probe_child.h"
#include "probe/probe_child_end.h"
#include "probe/probe_result.h"
#include "probe/probe_stages.h"
#include "probe/probe_wire.h"
#include "os/platform.h"

#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/reason_words.h"
#include "common/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

/* How long the caller gives the keeper, after the deadline, to kill what is
 * left, and then to die itself once killed. */
#define KEEPER_GRACE_MS 3000.0
/* The keeper's own limit on killing what is below it: a process stuck in
 * the kernel (uninterruptible sleep) dies only when the kernel lets it. */
#define KEEPER_GIVE_UP_MS 5000.0
/* The keeper's exit status when it could not start the prober. */
#define KEEPER_NO_PROBER 125

static void sleep_ms(int ms) {
  struct timespec pause = {0, (long)ms * 1000000L};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

/* --- the prober ---------------------------------------------------------- */

static int write_all(int fd, const char *text) {
  if (!text)
    return 1;
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(fd, text, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 1; /* the reader is gone: nobody to tell */
    text += n;
    left -= (size_t)n;
  }
  return 0;
}

static void report_stage(const cudaload_probe *p, size_t stage, void *opaque) {
  char *line = cl_probe_wire_stage(p, stage);
  write_all(*(int *)opaque, line);
  free(line);
}

/* Issue 12: a driver that prints on stdout must not put its text into the
 * host's stdout, which may carry a report. fd 1 becomes a copy of stderr,
 * where diagnostics go, or /dev/null when there is no stderr. */
static void stdout_to_stderr(void) {
  if (fcntl(2, F_GETFD) != -1) {
    dup2(2, 1);
    return;
  }
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0 && null != 1) {
    dup2(null, 1);
    close(null);
  }
}

/* Run the stages and write them to fd; CUDALOAD_OK, or an error status
 * when the result could not be made or written. */
static int probe_into(cudaload_ctx *ctx, int fd) {
  /* The host's crash handlers (a runtime's, a test framework's) were
   * inherited; here they would turn a crashing driver into some exit
   * status. Default actions let the parent see the signal itself. */
  static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; ++i)
    signal(crash_signals[i], SIG_DFL);
  char *header = cl_probe_wire_header();
  int failed = write_all(fd, header);
  free(header);
  cudaload_probe *p = cl_probe_new();
  if (!p || cl_probe_run_in_process(ctx, p, report_stage, &fd) != CUDALOAD_OK) {
    cudaload_probe_free(p);
    return CUDALOAD_E_NO_MEMORY;
  }
  char *tail = cl_probe_wire_tail(p);
  failed = failed || !tail || write_all(fd, tail);
  free(tail);
  cudaload_probe_free(p);
  return failed ? CUDALOAD_E_IO : CUDALOAD_OK;
}

static void run_prober(cudaload_ctx *ctx, int report_fd, pid_t keeper) {
#if defined(__linux__)
  /* Should the keeper be killed (the caller's last resort), the prober goes
   * with it rather than hang on unseen. */
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != keeper)
    _exit(3);
#else
  (void)keeper;
#endif
  _exit(probe_into(ctx, report_fd) == CUDALOAD_OK ? 0 : 3);
}

/* --- the keeper ---------------------------------------------------------- */

#if defined(__linux__)
/* The parent of process `pid` from /proc/PID/stat, or -1. System calls
 * only: the keeper may be the fork of a multithreaded host. */
static pid_t parent_of(const char *pid) {
  char path[64] = "/proc/";
  size_t at = strlen(path);
  for (const char *c = pid; *c && at < sizeof path - 6; ++c)
    path[at++] = *c;
  memcpy(path + at, "/stat", 6);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char text[512];
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0)
    return -1;
  text[n] = '\0';
  /* "PID (COMM) STATE PPID ...": COMM may hold ')' itself. */
  const char *end = strrchr(text, ')');
  if (!end || end[1] != ' ' || !end[2] || end[3] != ' ')
    return -1;
  long parent = 0;
  for (const char *c = end + 4; *c >= '0' && *c <= '9'; ++c)
    parent = parent * 10 + (*c - '0');
  return (pid_t)parent;
}

/* The layout getdents64 returns (linux_dirent64). */
struct dirent64_header {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
};
#define DIRENT64_NAME_OFFSET 19

/* SIGKILL every child of this process, found in /proc. A child is not
 * reaped before this process reaps it, so its pid cannot have been reused
 * between the look and the kill. 0 when /proc could not be read. */
static int kill_own_children(void) {
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return 0;
  pid_t self = getpid();
  union {
    struct dirent64_header aligned;
    char bytes[8192];
  } buffer;
  for (;;) {
    long got = syscall(SYS_getdents64, dir, buffer.bytes, sizeof buffer);
    if (got <= 0)
      break;
    for (long at = 0; at + DIRENT64_NAME_OFFSET < got;) {
      struct dirent64_header entry;
      memcpy(&entry, buffer.bytes + at, sizeof entry);
      const char *name = buffer.bytes + at + DIRENT64_NAME_OFFSET;
      if (entry.reclen == 0)
        break;
      at += entry.reclen;
      if (name[0] < '1' || name[0] > '9')
        continue;
      if (parent_of(name) == self) {
        long pid = 0;
        for (const char *c = name; *c >= '0' && *c <= '9'; ++c)
          pid = pid * 10 + (*c - '0');
        kill((pid_t)pid, SIGKILL);
      }
    }
  }
  close(dir);
  return 1;
}
#endif

/* Kill the prober (unless it ended by itself) and everything below the
 * keeper, and reap it all, until the keeper has no child left. On Linux
 * that is every process the prober started, whichever session or group it
 * moved to (the keeper is their subreaper); elsewhere the keeper's only
 * child is the prober, and the caller's group kill does the rest. */
static void kill_everything_below(pid_t prober, int prober_reaped) {
  if (!prober_reaped)
    kill(prober, SIGKILL);
  double give_up = cl_os_clock_ms() + KEEPER_GIVE_UP_MS;
  for (;;) {
    pid_t got = waitpid(-1, NULL, WNOHANG);
    if (got == prober)
      prober_reaped = 1;
    if (got > 0 || (got < 0 && errno == EINTR))
      continue;
    if (got < 0)
      return; /* ECHILD: nothing is left below the keeper */
    int found = 0;
#if defined(__linux__)
    found = kill_own_children();
#endif
    /* Without /proc the only child the keeper knows is the prober: once it
     * is reaped, what is left is for the caller's group kill. */
    if ((!found && prober_reaped) || cl_os_clock_ms() > give_up)
      return;
    sleep_ms(5);
  }
}

static void run_keeper(cudaload_ctx *ctx, int report_fd, int control_fd) {
  setpgid(0, 0);
  /* Children are waited for here: a host that ignores SIGCHLD would have
   * them reaped unseen, and their exit statuses lost. */
  signal(SIGCHLD, SIG_DFL);
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
  /* Kernels before 3.4 refuse: the group kill is then all there is. */
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
  stdout_to_stderr();
  pid_t keeper = getpid();
  pid_t prober = fork();
  if (prober == 0) {
    close(control_fd);
    run_prober(ctx, report_fd, keeper);
  }
  close(report_fd); /* only the prober and what it starts write there */
  if (prober < 0)
    _exit(KEEPER_NO_PROBER);
  /* The caller may be gone when the status is written. */
  signal(SIGPIPE, SIG_IGN);

  int status = 0, prober_reaped = 0;
  for (;;) {
    pid_t got = waitpid(prober, &status, WNOHANG);
    if (got == prober) {
      prober_reaped = 1;
      break;
    }
    if (got < 0 && errno != EINTR)
      break;
    /* The caller never writes: readable means its deadline (shutdown) or
     * its death (closed). */
    struct pollfd word = {control_fd, POLLIN, 0};
    if (poll(&word, 1, 10) > 0) {
      char c;
      ssize_t n = read(control_fd, &c, 1);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
        break;
    }
  }
  kill_everything_below(prober, prober_reaped);
  if (prober_reaped) {
    /* The same machine reads it: the raw wait status is its language. */
    ssize_t sent = write(control_fd, &status, sizeof status);
    (void)sent;
  }
  _exit(0);
}

/* --- the caller ---------------------------------------------------------- */

typedef struct received {
  cl_buf text;
  int ended;   /* end of file, or a read error */
  int flooded; /* more than CL_PROBE_REPORT_CAP bytes came */
} received;

/* Read what the (non-blocking) pipe holds now, up to just past the cap. */
static void drain(int fd, received *r) {
  while (!r->ended && !r->flooded) {
    if (r->text.len > CL_PROBE_REPORT_CAP) {
      r->flooded = 1;
      return;
    }
    char *space = cl_buf_space(&r->text, 4096);
    if (!space) {
      r->ended = 1; /* without memory, what came is all there is */
      return;
    }
    ssize_t n = read(fd, space, 4096);
    if (n > 0) {
      cl_buf_grow(&r->text, (size_t)n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      r->ended = 1;
    }
  }
}

enum keeper_state {
  KEEPER_RUNNING,
  KEEPER_ENDED, /* a zombie: its pid, and so its group's id, still held */
  KEEPER_REAPED_UNSEEN /* a host that ignores SIGCHLD reaped it already */
};

/* Whether the keeper has ended, without reaping it. */
static enum keeper_state keeper_state(pid_t keeper) {
  for (;;) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)keeper, &info, WEXITED | WNOHANG | WNOWAIT) == 0)
      return info.si_pid == keeper ? KEEPER_ENDED : KEEPER_RUNNING;
    if (errno != EINTR)
      return KEEPER_REAPED_UNSEEN;
  }
}

static enum keeper_state wait_for_keeper(pid_t keeper, double wait_ms) {
  double until = cl_os_clock_ms() + wait_ms;
  for (;;) {
    enum keeper_state state = keeper_state(keeper);
    if (state != KEEPER_RUNNING || cl_os_clock_ms() > until)
      return state;
    sleep_ms(5);
  }
}

static void set_cloexec(int fd) {
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void set_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* The report pipe and the control socket pair, neither leaking into
 * programs the host starts meanwhile; the last error set on failure. */
static int open_channels(int report[2], int control[2]) {
  if (pipe(report) != 0)
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)errno,
                      "cudaload_probe_run: cannot make a pipe for the probe "
                      "process");
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, control) != 0) {
    int err = errno;
    close(report[0]);
    close(report[1]);
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)err,
                      "cudaload_probe_run: cannot make a socket pair for the "
                      "probe process");
  }
  set_cloexec(report[0]);
  set_cloexec(report[1]);
  set_cloexec(control[0]);
  set_cloexec(control[1]);
  return CUDALOAD_OK;
}

/* Read the report until the keeper ends, the report floods or the deadline
 * passes (*timed_out), then what the pipe holds, and close it. Returns the
 * keeper's state at the end. */
static enum keeper_state read_report(pid_t keeper, int report_fd,
                                     double deadline, received *r,
                                     int *timed_out) {
  enum keeper_state state;
  while ((state = keeper_state(keeper)) == KEEPER_RUNNING && !r->flooded) {
    double left = deadline - cl_os_clock_ms();
    if (left <= 0) {
      *timed_out = 1;
      break;
    }
    /* After the end of file the pipe is not polled (it would report
     * POLLHUP at once, for ever); the step is then a plain sleep. */
    struct pollfd report_ready = {r->ended ? -1 : report_fd, POLLIN, 0};
    poll(&report_ready, 1, left < 10 ? (int)left + 1 : 10);
    if (report_ready.revents)
      drain(report_fd, r);
  }
  /* What is in the pipe now was written before the deadline (or before
   * the prober ended); nothing later counts. */
  drain(report_fd, r);
  close(report_fd);
  return state;
}

/* Stop a keeper that still runs (its word, then its group's kill), kill
 * what is left in its group and reap it. Returns the keeper's wait status,
 * or -1 when it was not reaped here. */
static int stop_keeper(pid_t keeper, int control_fd, enum keeper_state state) {
  if (state == KEEPER_RUNNING) {
    shutdown(control_fd, SHUT_WR); /* the keeper's word to kill */
    state = wait_for_keeper(keeper, KEEPER_GRACE_MS);
    if (state == KEEPER_RUNNING) {
      /* A keeper that does not end: its group goes, and it with it. */
      kill(-keeper, SIGKILL);
      kill(keeper, SIGKILL);
      state = wait_for_keeper(keeper, KEEPER_GRACE_MS);
    }
  }
  int keeper_status = -1;
  if (state == KEEPER_ENDED) {
    /* Whatever of the prober's is left in the group (all of it, where the
     * keeper is no subreaper): the keeper's zombie still holds the id. */
    kill(-keeper, SIGKILL);
    while (waitpid(keeper, &keeper_status, 0) < 0 && errno == EINTR) {
    }
  }
  /* A keeper that still runs (stuck in the kernel) is left unreaped: the
   * caller is not held hostage to it. */
  return keeper_status;
}

/* How the prober ended, for a report that is not complete: "" when the
 * keeper could not tell. */
static void describe_end(int prober_status, int keeper_status, char *how,
                         size_t size) {
  if (prober_status != -1 && WIFSIGNALED(prober_status)) {
    int signal_number = WTERMSIG(prober_status);
    snprintf(how, size, CL_WORDS_DIED_FROM_SIGNAL, signal_number,
             strsignal(signal_number));
  } else if (prober_status != -1 && WIFEXITED(prober_status)) {
    snprintf(how, size, CL_WORDS_EXITED_WITH_STATUS_BEFORE_IT_FINISHED,
             WEXITSTATUS(prober_status));
  } else if (keeper_status != -1 && WIFEXITED(keeper_status) &&
             WEXITSTATUS(keeper_status) == KEEPER_NO_PROBER) {
    snprintf(how, size, CL_WORDS_COULD_NOT_BE_STARTED_FORK_FAILED);
  }
}

int cl_os_probe_run_child(cudaload_ctx *ctx, double timeout_s,
                          cudaload_probe *p) {
  int report[2], control[2];
  int status = open_channels(report, control);
  if (status != CUDALOAD_OK)
    return status;
  fflush(NULL); /* buffered output must not be written twice */
  pid_t keeper = fork();
  if (keeper < 0) {
    int err = errno;
    close(report[0]);
    close(report[1]);
    close(control[0]);
    close(control[1]);
    return cl_fail_os(CUDALOAD_E_IO, (unsigned long)err,
                      "cudaload_probe_run: cannot start the probe process");
  }
  if (keeper == 0) {
    close(report[0]);
    close(control[0]);
    run_keeper(ctx, report[1], control[1]);
  }
  /* Also here, so that the group exists whichever of the two runs first;
   * it fails harmlessly when the keeper did it already. */
  setpgid(keeper, keeper);
  close(report[1]);
  close(control[1]);
  set_nonblocking(report[0]);
  set_nonblocking(control[0]);

  received r;
  memset(&r, 0, sizeof r);
  double started = cl_os_clock_ms();
  int timed_out = 0;
  enum keeper_state state = read_report(
      keeper, report[0], started + timeout_s * 1000.0, &r, &timed_out);
  int keeper_status = stop_keeper(keeper, control[0], state);
  int prober_status = -1;
  ssize_t got = read(control[0], &prober_status, sizeof prober_status);
  if (got != (ssize_t)sizeof prober_status)
    prober_status = -1;
  close(control[0]);

  cl_probe_child_end end = {r.text.data, r.text.len, r.flooded,
                            timed_out,   timeout_s,  cl_os_clock_ms() - started,
                            ""};
  describe_end(prober_status, keeper_status, end.how, sizeof end.how);
  cl_probe_child_verdict(p, &end);
  cl_buf_free(&r.text);
  return CUDALOAD_OK;
}

/* --- a helper program's side (cudaload probe --child) -------------------- */

int cl_os_probe_serve_child(cudaload_ctx *ctx, const char *channel) {
  char *end = NULL;
  long fd = channel ? strtol(channel, &end, 10) : -1;
  if (!channel || !channel[0] || !end || *end || fd < 0 || fd > INT32_MAX ||
      fcntl((int)fd, F_GETFD) == -1)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "--report-handle %s: not an open file descriptor",
                   channel ? channel : "(none)");
  set_cloexec((int)fd);
  stdout_to_stderr();
  int status = probe_into(ctx, (int)fd);
  if (status == CUDALOAD_E_NO_MEMORY)
    return cl_fail(status, "cudaload probe --child: out of memory");
  if (status != CUDALOAD_OK)
    return cl_fail(status,
                   "cudaload probe --child: the report could not be "
                   "written to descriptor %ld",
                   fd);
  return CUDALOAD_OK;
}
