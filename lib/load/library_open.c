/* SPDX-License-Identifier: MIT */
/*
 * library_open.c - the policy in front of the seam's loader: libraries are
 * opened by absolute path only, and only a regular file is handed to the
 * loader, the same on every OS.
 */
#include "load/library_open.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/load_failure.h"
#include "os/loader.h"
#include "os/platform.h"

#include <stddef.h>
#include <stdlib.h>

/*
 * Only a regular file is handed to the OS loader. Its own open of the file
 * blocks: dlopen()'s open(2) of a FIFO named like a library holds it (and
 * the thread, with the dynamic loader's lock) until a writer comes, which
 * may be never, and a device would be read from; LoadLibraryExW would wait
 * on a named pipe the same way. So the type is found out first, without
 * blocking, as the readers do (cl_os_file_open: O_NONBLOCK then fstat;
 * CreateFileW then GetFileType on the handle). 1, with the last error set,
 * for anything but a regular file; a file that cannot be opened at all is
 * left to the loader, whose message says why. The window between this
 * check and the loader's own open can only be used by someone who may
 * write the library's folder, and such folders are refused as roots
 * (SECURITY.md). It comes before any open of the loader's, an
 * RTLD_NOLOAD probe included: that one opens the file too.
 */
static int refuse_special_file(const char *path) {
  cl_file *file = NULL;
  cl_os_no no;
  /* The reader's "cannot open" is no failure here (its answer form writes
   * no error): only a refusal writes one. */
  int status = cl_os_file_open_quiet(path, &file, NULL, &no);
  if (status == CUDALOAD_OK) {
    cl_os_file_close(file);
    return 0;
  }
  if (status != CUDALOAD_E_NOT_A_FILE)
    return 0;
  /* "<path>: not a regular file (a FIFO)", as cl_os_file_open says it. The
   * loader is named as each system's documentation names it. */
  cl_fail(CUDALOAD_E_LOAD_FAILED,
          "%s: %s: refused (only a regular file is handed to the %s)", path,
          no.what ? no.what : "not a regular file",
          cl_os_host_target() == CUDALOAD_TARGET_WINDOWS ? "loader"
                                                         : "dynamic loader");
  return 1;
}

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
  /* Refused before the loader runs, which has nothing to explain then. */
  if (refuse_special_file(path))
    return NULL;
  void *handle = cl_os_loader_open(path, mode);
  if (!handle)
    cl_explain_load_failure(path);
  return handle;
}
