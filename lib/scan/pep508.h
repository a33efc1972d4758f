/* SPDX-License-Identifier: MIT */
/*
 * pep508.h - PEP 508 environment markers ("platform_system == 'Linux' and
 * platform_machine == 'x86_64'", "extra == 'and-cuda'") evaluated for the
 * platform a program runs on, which need not be this host's (pep508.c).
 * Pure: no file, no allocation.
 */
#ifndef CUDALOAD_PEP508_H
#define CUDALOAD_PEP508_H

#include "scan/catalog.h"

#include <stddef.h>

/* A marker's value: a variable the environment does not know (the
 * interpreter's version where no file tells it) makes the comparisons
 * that read it unknown, and "and"/"or" carry that as three-valued logic
 * does ("false and unknown" is false). */
typedef enum cl_marker_value {
  CL_MARKER_FALSE = 0,
  CL_MARKER_TRUE = 1,
  CL_MARKER_UNKNOWN = 2,
  CL_MARKER_MALFORMED = -1 /* not a PEP 508 marker */
} cl_marker_value;

/* The marker variables' values; NULL for one that is not known. */
typedef struct cl_marker_env {
  const char *os_name;                        /* "posix", "nt" */
  const char *sys_platform;                   /* "linux", "win32" */
  const char *platform_system;                /* "Linux", "Windows" */
  const char *platform_machine;               /* "x86_64", "AMD64" */
  const char *platform_release;               /* unknown here */
  const char *platform_version;               /* unknown here */
  const char *implementation_name;            /* "cpython" */
  const char *platform_python_implementation; /* "CPython" */
  /* python_version ("3.11") and python_full_version ("3.11.7", also
   * implementation_version): held here, so that the struct can be copied;
   * "" when not known. */
  char python_version[24], python_full_version[40];
} cl_marker_env;

/* The values for a program of naming's platform on machine ("x86_64",
 * "aarch64"; NULL: unknown) under Python python_version ("3.11" or
 * "3.11.7"; NULL: unknown). The strings are static or env's own. */
void cl_marker_env_for(cl_marker_env *env, cl_naming naming,
                       const char *machine, const char *python_version);

/* Evaluate the marker text[0..len) with `extra` set to each of extras
 * ("cublas,cudart": the extras a requirement asked of a distribution; ""
 * for none) and also to "": TRUE when one of those makes it hold, as pip
 * installs a distribution's requirements for the extras asked. extras
 * NULL: every extra counts, so "extra == 'cuda'" holds (what a program's
 * own Requires-Dist says it needs for some use). An empty marker holds. */
cl_marker_value cl_marker_evaluate(const char *text, size_t len,
                                   const cl_marker_env *env,
                                   const char *extras);

#endif
