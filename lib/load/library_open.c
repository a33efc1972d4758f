/* SPDX-License-Identifier: MIT */
/*
 * library_open.c - the policy in front of the seam's loader: libraries are
 * opened by absolute path only, the same on every OS.
 */
#include "load/library_open.h"

#include "cudaload.h"
#include "common/error.h"
#include "load/load_failure.h"
#include "os/loader.h"
#include "os/platform.h"

#include <stddef.h>

void *cl_library_open(const char *path, cl_open_mode mode) {
  if (!path || !path[0]) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no library path given");
    return NULL;
  }
  if (!cl_os_path_is_absolute(path)) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
            "%s: not an absolute path (libraries are loaded by absolute path "
            "only, so that no search can pick another file)",
            path);
    return NULL;
  }
  void *handle = cl_os_loader_open(path, mode);
  if (!handle)
    cl_explain_load_failure(path);
  return handle;
}
