/* SPDX-License-Identifier: MIT */
/* trust.c - what other users can do to a library's sources (trust.h). */
#include "scan/trust.h"
#include "common/error.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

/* Whether folder is `stop` or a folder above it: where a walk up ends. */
static int stop_or_above(const char *folder, const char *stop) {
  size_t n = strlen(folder), k = strlen(stop);
  if (n == 0 || n > k || !cl_os_same_path(folder, n, stop, n))
    return 0;
  return n == k || stop[n] == '/' || stop[n] == '\\' || folder[n - 1] == '/' ||
         folder[n - 1] == '\\';
}

char *cl_trust_unsafe_on_the_way(const char *folder, const char *stop,
                                 cl_trust_ask ask, void *opaque,
                                 const char **why) {
  *why = NULL;
  char *up = cl_path_dirname(folder);
  while (up && strpbrk(up, "/\\") && !stop_or_above(up, stop)) {
    if ((*why = ask(opaque, up, CL_TRUST_FOLDER_ON_THE_WAY)) != NULL)
      return up;
    char *next = cl_path_dirname(up);
    if (next && strcmp(next, up) == 0) { /* "/": nothing above */
      free(next);
      next = NULL;
    }
    free(up);
    up = next;
  }
  free(up);
  return NULL;
}

/* cl_os_writable_by_others() for one walk: each answer's sentence is kept
 * until the walk is done (ask hands out borrowed pointers). */
typedef struct direct_asks {
  char *last_why;
} direct_asks;

static const char *ask_directly(void *opaque, const char *folder,
                                cl_trust_use use) {
  direct_asks *a = opaque;
  free(a->last_why);
  a->last_why = NULL;
  if (!cl_os_writable_by_others(folder, use, &a->last_why))
    return NULL;
  if (!a->last_why)
    a->last_why = cl_strdup("writable by other users");
  return a->last_why ? a->last_why : "writable by other users";
}

/* The real path of path, or NULL when it does not resolve: an answer here
 * (nothing is read from it then), so the caller's last error is kept. */
static char *real_quietly(const char *path) {
  char *kept = cl_save_error();
  char *real = cl_os_real_path(path);
  cl_restore_error(kept);
  return real;
}

char *cl_trust_source_refusal(const char *path, int is_folder,
                              const char *anchor, int *out_of_memory) {
  *out_of_memory = 0;
  char *real = real_quietly(path);
  if (!real)
    return NULL;
  char *anchor_real = real_quietly(anchor);
  char *folder = is_folder ? cl_strdup(real) : cl_path_dirname(real);
  /* "P is ...", or for a link "P resolves to R, ...", as the scan says it of
   * a library (inventory.c). */
  int linked = strcmp(path, real) != 0;
  char *shown = linked ? cl_strdup_printf("%s resolves to %s", path, real)
                       : cl_strdup(path);
  char *why = NULL, *through = NULL, *detail = NULL;
  const char *on_the_way = NULL;
  direct_asks asks = {NULL};
  int refused = 1;
  if (!folder || !shown) {
    *out_of_memory = 1;
    refused = 0;
  } else if ((!is_folder &&
              cl_os_writable_by_others(real, CL_TRUST_LIBRARY_FILE, &why)) ||
             (is_folder &&
              cl_os_writable_by_others(real, CL_TRUST_LIBRARY_FOLDER, &why))) {
    detail = cl_strdup_printf("%s%s %s", shown, linked ? ", which is" : " is",
                              why ? why : "writable by other users");
  } else if (!is_folder &&
             cl_os_writable_by_others(folder, CL_TRUST_LIBRARY_FOLDER, &why)) {
    detail = cl_strdup_printf("%s%s %s, which is %s", shown,
                              linked ? ", in" : " is in", folder,
                              why ? why : "writable by other users");
  } else if ((through = cl_trust_unsafe_on_the_way(
                  folder, anchor_real ? anchor_real : anchor, ask_directly,
                  &asks, &on_the_way)) != NULL) {
    detail =
        cl_strdup_printf("%s%s %s, which is %s", shown,
                         linked ? ", reached through" : " is reached through",
                         through, on_the_way);
  } else {
    refused = 0;
  }
  if (refused && !detail)
    *out_of_memory = 1; /* refused, but the sentence was lost */
  free(through);
  free(why);
  free(asks.last_why);
  free(shown);
  free(folder);
  free(anchor_real);
  free(real);
  return detail;
}

char *cl_trust_include_refusal(const char *include_dir, const char *file,
                               int *out_of_memory) {
  char *install = cl_path_dirname(include_dir);
  if (!install) {
    *out_of_memory = 1;
    return NULL;
  }
  char *refused =
      cl_trust_source_refusal(include_dir, 1, install, out_of_memory);
  if (!refused && !*out_of_memory)
    refused = cl_trust_source_refusal(file, 0, include_dir, out_of_memory);
  free(install);
  return refused;
}

char *cl_trust_distinfo_refusal(const char *metadata_path, int *out_of_memory) {
  *out_of_memory = 0;
  char *dist = cl_path_dirname(metadata_path);
  char *holder = dist ? cl_path_dirname(dist) : NULL;
  char *record = dist ? cl_path_join(dist, "RECORD") : NULL;
  char *refused = NULL;
  if (!dist || !holder || !record) {
    *out_of_memory = 1;
  } else {
    const char *const paths[] = {holder, dist, metadata_path, record};
    const char *const anchors[] = {holder, holder, dist, dist};
    for (size_t i = 0; i < 4 && !refused && !*out_of_memory; ++i)
      refused =
          cl_trust_source_refusal(paths[i], i < 2, anchors[i], out_of_memory);
  }
  free(record);
  free(holder);
  free(dist);
  return refused;
}
