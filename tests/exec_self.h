/* SPDX-License-Identifier: MIT */
/*
 * exec_self.h - a test that re-runs its own executable in a child process
 * (one scenario per process, a child with another environment). Where an
 * emulator runs the tests (the aarch64 tier: qemu-user, which in a CI
 * container has no binfmt_misc to start an aarch64 program by itself), it
 * names itself in CUDALOAD_TEST_EMULATOR (scripts/qemu-run) and the child
 * is started through it. POSIX only.
 */
#ifndef CUDALOAD_TEST_EXEC_SELF_H
#define CUDALOAD_TEST_EXEC_SELF_H

#include <stdlib.h>
#include <unistd.h>

/* Replace this (child) process with the test executable run with the
 * arguments args (NULL-terminated, at most 8); _exit(127) when that fails. */
static inline void exec_self(const char *const *args) {
  char *argv[12];
  size_t n = 0;
  const char *emulator = getenv("CUDALOAD_TEST_EMULATOR");
  /* Under qemu-user /proc/self/exe reads as the emulated program. */
  char *self = realpath("/proc/self/exe", NULL);
  if (emulator && *emulator)
    argv[n++] = (char *)emulator;
  argv[n++] = self ? self : (char *)"/proc/self/exe";
  for (size_t i = 0; args[i] && i < 8; ++i)
    argv[n++] = (char *)args[i];
  argv[n] = NULL;
  execv(argv[0], argv);
  _exit(127);
}

#endif
