/* SPDX-License-Identifier: MIT */
/* include_dir.c - a library's include folder (include_dir.h). */
#include "scan/include_dir.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "scan/trust.h"
#include "common/reason_words.h"

#include <stdlib.h>
#include <string.h>

/* The folder that holds the library's lib/lib64 or bin: "bin/x64",
 * "bin/x86_64" and "bin/arm64" count as bin. malloc'ed; NULL when the
 * library's folder is none of those. */
static char *install_folder(const char *path) {
  char *folder = cl_path_dirname(path);
  if (!folder)
    return NULL;
  const char *base = cl_path_basename(folder);
  if (strcmp(base, "x64") == 0 || strcmp(base, "x86_64") == 0 ||
      strcmp(base, "arm64") == 0) {
    char *up = cl_path_dirname(folder);
    free(folder);
    folder = up;
    base = folder ? cl_path_basename(folder) : "";
    if (folder && cl_starts_with_nocase(base, "bin") && base[3] != '\0')
      base = ""; /* only bin/<arch> */
  }
  int known =
      folder && (strcmp(base, "lib") == 0 || strcmp(base, "lib64") == 0 ||
                 strcmp(base, "bin") == 0 || strcmp(base, "Bin") == 0);
  char *up = known ? cl_path_dirname(folder) : NULL;
  free(folder);
  return up;
}

const char *cl_library_include_dir(cl_library *lib, int allow_writable) {
  if (lib->include_read)
    return lib->include_dir;
  lib->include_read = 1;
  const char *header = lib->entry->header;
  char *top = header ? install_folder(lib->path) : NULL;
  char *include = top ? cl_path_join(top, "include") : NULL;
  char *file = include ? cl_path_join(include, header) : NULL;
  if (file && cl_os_stat_kind(file, NULL) == CL_KIND_REGULAR) {
    /* A compiler reads every header of the folder it is given: the folder
     * (whoever may add a file plants a header), the family's header and,
     * where a link leads away, the way back up to the install must be
     * others' to change no more than the library's own folders. */
    int lost = 0;
    char *refused =
        allow_writable ? NULL : cl_trust_include_refusal(include, file, &lost);
    if (refused || lost) {
      lib->include_refused =
          refused
              ? refused
              : cl_strdup_printf(CL_WORDS_IS_WRITABLE_BY_OTHER_USERS, include);
    } else {
      lib->include_dir = include;
      include = NULL;
    }
  }
  free(top);
  free(include);
  free(file);
  return lib->include_dir;
}
