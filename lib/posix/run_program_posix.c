/* SPDX-License-Identifier: MIT */
/*
 * run_program_posix.c - a program run as its own words and waited for
 * (os/platform.h, cl_os_run_program): posix_spawn of an absolute path,
 * never a shell and never a search of PATH, so that what runs is the
 * file named and its words reach it as they are (a folder named
 * "v$(touch x)" is one argument, not a command).
 */
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"

#include <errno.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

int cl_os_run_program(char *const *argv, int *exit_code) {
  *exit_code = -1;
  if (!argv || !argv[0] || argv[0][0] != '/')
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "a program to run must be named by its absolute path");
  pid_t child;
  int rc = posix_spawn(&child, argv[0], NULL, NULL, argv, environ);
  if (rc != 0)
    return cl_fail_os(rc == ENOENT ? CUDALOAD_E_NOT_FOUND : CUDALOAD_E_IO,
                      (unsigned long)rc, "%s could not be started", argv[0]);
  int status;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR)
      return cl_fail_os(CUDALOAD_E_IO, (unsigned long)errno,
                        "%s: waiting for it failed", argv[0]);
  }
  if (WIFEXITED(status))
    *exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    *exit_code = 128 + WTERMSIG(status);
  return CUDALOAD_OK;
}
