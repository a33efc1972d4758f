/* SPDX-License-Identifier: MIT */
/* trust.c - what other users can do to a library's sources (trust.h). */
#include "scan/trust.h"
#include "common/error.h"
#include "common/strutil.h"
#include "common/reason_words.h"

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
    a->last_why = cl_strdup(CL_WORDS_WRITABLE_BY_OTHER_USERS);
  return a->last_why ? a->last_why : CL_WORDS_WRITABLE_BY_OTHER_USERS;
}

/* The real path of path, or NULL when it does not resolve: an answer here
 * (nothing is read from it then), so no error is written. */
static char *real_quietly(const char *path) {
  char *real = cl_os_real_path_quiet(path, NULL);
  return real;
}

/* The real path of `path`, a path below the folder `base` whose real path
 * is base_real: base_real and the rest, when no entry below base is a link
 * (one lstat each: a dist-info's METADATA is one entry below its folder),
 * else resolved whole. NULL when it does not resolve. */
static char *real_below(const char *path, const char *base,
                        const char *base_real) {
  size_t n = strlen(base);
  if (!base_real || strncmp(path, base, n) != 0 ||
      (path[n] != '/' && path[n] != '\\'))
    return real_quietly(path);
  for (const char *p = path + n + 1;; ++p) {
    if (*p != '/' && *p != '\\' && *p != '\0')
      continue;
    char *prefix = cl_strndup(path, (size_t)(p - path));
    cl_file_kind kind = prefix ? cl_os_lstat_kind(prefix) : CL_KIND_MISSING;
    free(prefix);
    if (kind == CL_KIND_SYMLINK)
      return real_quietly(path);
    if (kind == CL_KIND_MISSING)
      return NULL;
    if (*p == '\0')
      break;
  }
  return cl_path_join(base_real, path + n + 1);
}

/* The checks of cl_trust_source_refusal() on a path whose real path is
 * known; the folder that holds a file is asked about unless the caller has
 * (folder_checked), and the walk stops at `stop` (a real path). */
static char *refusal_judged(const char *path, const char *real, int is_folder,
                            int folder_checked, const char *stop,
                            int *out_of_memory, const int *judged,
                            char *judged_why);

static char *refusal_resolved(const char *path, const char *real, int is_folder,
                              int folder_checked, const char *stop,
                              int *out_of_memory) {
  return refusal_judged(path, real, is_folder, folder_checked, stop,
                        out_of_memory, NULL, NULL);
}

/* refusal_resolved(), with the answer for `real` itself already known when
 * judged is not NULL (*judged: others can write to it, judged_why: why,
 * malloc'ed, taken over). */
static char *refusal_judged(const char *path, const char *real, int is_folder,
                            int folder_checked, const char *stop,
                            int *out_of_memory, const int *judged,
                            char *judged_why) {
  char *folder = is_folder ? cl_strdup(real) : cl_path_dirname(real);
  /* "P is ...", or for a link "P resolves to R, ...", as the scan says it of
   * a library (inventory.c). */
  int linked = strcmp(path, real) != 0;
  char *shown = linked ? cl_strdup_printf("%s resolves to %s", path, real)
                       : cl_strdup(path);
  char *why = judged && *judged ? judged_why : NULL;
  char *through = NULL, *detail = NULL;
  if (why != judged_why)
    free(judged_why);
  const char *on_the_way = NULL;
  direct_asks asks = {NULL};
  int refused = 1;
  if (!folder || !shown) {
    *out_of_memory = 1;
    refused = 0;
  } else if (judged
                 ? *judged
                 : cl_os_writable_by_others(real,
                                            is_folder ? CL_TRUST_LIBRARY_FOLDER
                                                      : CL_TRUST_LIBRARY_FILE,
                                            &why)) {
    detail = cl_strdup_printf("%s%s %s", shown, linked ? ", which is" : " is",
                              why ? why : CL_WORDS_WRITABLE_BY_OTHER_USERS);
  } else if (!is_folder && !(folder_checked && strcmp(folder, stop) == 0) &&
             cl_os_writable_by_others(folder, CL_TRUST_LIBRARY_FOLDER, &why)) {
    detail = cl_strdup_printf("%s%s %s, which is %s", shown,
                              linked ? ", in" : " is in", folder,
                              why ? why : CL_WORDS_WRITABLE_BY_OTHER_USERS);
  } else if ((through = cl_trust_unsafe_on_the_way(
                  folder, stop, ask_directly, &asks, &on_the_way)) != NULL) {
    detail = cl_strdup_printf("%s%s %s, which is %s", shown,
                              linked ? ", reached through"
                                     : CL_WORDS_IS_REACHED_THROUGH,
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
  return detail;
}

char *cl_trust_source_refusal(const char *path, int is_folder,
                              const char *anchor, int *out_of_memory) {
  *out_of_memory = 0;
  char *anchor_real = real_quietly(anchor);
  char *real = real_below(path, anchor, anchor_real);
  char *refused =
      real ? refusal_resolved(path, real, is_folder, 0,
                              anchor_real ? anchor_real : anchor, out_of_memory)
           : NULL;
  free(real);
  free(anchor_real);
  return refused;
}

char *cl_trust_include_refusal(const char *include_dir, const char *file,
                               int *out_of_memory) {
  *out_of_memory = 0;
  char *install = cl_path_dirname(include_dir);
  char *install_real = install ? real_quietly(install) : NULL;
  char *include_real =
      install ? real_below(include_dir, install, install_real) : NULL;
  char *file_real =
      include_real ? real_below(file, include_dir, include_real) : NULL;
  char *refused = NULL;
  if (!install) {
    *out_of_memory = 1;
  } else if (include_real) {
    refused =
        refusal_resolved(include_dir, include_real, 1, 0,
                         install_real ? install_real : install, out_of_memory);
    if (!refused && !*out_of_memory && file_real)
      refused =
          refusal_resolved(file, file_real, 0, 1, include_real, out_of_memory);
  }
  free(file_real);
  free(include_real);
  free(install_real);
  free(install);
  return refused;
}

char *cl_trust_distinfo_holder_refusal(const char *holder, char **holder_real,
                                       int *out_of_memory) {
  *out_of_memory = 0;
  *holder_real = real_quietly(holder);
  if (!*holder_real)
    return NULL;
  return refusal_resolved(holder, *holder_real, 1, 0, *holder_real,
                          out_of_memory);
}

char *cl_trust_distinfo_holder_refusal_known(const char *holder,
                                             const char *real,
                                             const char *parent_real,
                                             char **holder_real,
                                             int *out_of_memory) {
  *out_of_memory = 0;
  *holder_real = NULL;
  if (real) {
    if (!(*holder_real = cl_strdup(real))) {
      *out_of_memory = 1;
      return NULL;
    }
    return refusal_resolved(holder, real, 1, 0, real, out_of_memory);
  }
  if (!parent_real)
    return cl_trust_distinfo_holder_refusal(holder, holder_real, out_of_memory);
  /* One look that judges a folder that is no link; a link is resolved. */
  char *why = NULL;
  int is_link = 0;
  int unsafe = cl_os_writable_by_others_unless_link(
      holder, CL_TRUST_LIBRARY_FOLDER, &why, &is_link);
  if (is_link) {
    free(why);
    return cl_trust_distinfo_holder_refusal(holder, holder_real, out_of_memory);
  }
  *holder_real = cl_path_join(parent_real, cl_path_basename(holder));
  if (!*holder_real) {
    free(why);
    *out_of_memory = 1;
    return NULL;
  }
  return refusal_judged(holder, *holder_real, 1, 0, *holder_real, out_of_memory,
                        &unsafe, why);
}

/* The checks of refusal_resolved() on `path`, one entry below `base`
 * (whose real path is base_real), the walk stopping at base_real: a path
 * that is no link is judged in the same look at the file system that tells
 * it is none (cl_os_writable_by_others_unless_link), a link is resolved
 * first. *real_out (when not NULL): the real path, malloc'ed, NULL when
 * it does not resolve. */
static char *entry_refusal(const char *path, const char *base,
                           const char *base_real, int is_folder,
                           char **real_out, int *out_of_memory) {
  char *why = NULL, *real = NULL, *refused = NULL;
  int is_link = 0;
  int unsafe = cl_os_writable_by_others_unless_link(
      path, is_folder ? CL_TRUST_LIBRARY_FOLDER : CL_TRUST_LIBRARY_FILE, &why,
      &is_link);
  if (is_link) {
    free(why);
    real = real_below(path, base, base_real);
    if (real)
      refused =
          refusal_resolved(path, real, is_folder, 1, base_real, out_of_memory);
  } else {
    /* Not a link (or missing, when nothing is refused and nothing read):
     * its real path is its folder's and its name. */
    real = cl_path_join(base_real, cl_path_basename(path));
    if (!real) {
      free(why);
      *out_of_memory = 1;
    } else {
      refused = refusal_judged(path, real, is_folder, 1, base_real,
                               out_of_memory, &unsafe, why);
    }
  }
  if (real_out)
    *real_out = real;
  else
    free(real);
  return refused;
}

char *cl_trust_distinfo_entry_refusal(const char *metadata_path,
                                      const char *holder_real,
                                      int check_metadata, int check_record,
                                      int *out_of_memory) {
  *out_of_memory = 0;
  char *dist = cl_path_dirname(metadata_path);
  char *holder = dist ? cl_path_dirname(dist) : NULL;
  char *record = dist ? cl_path_join(dist, "RECORD") : NULL;
  char *dist_real = NULL;
  char *refused = NULL;
  if (!dist || !holder || !record) {
    *out_of_memory = 1;
  } else if (holder_real) {
    /* the dist-info folder, then the files read in it, the folder they
     * are in being checked */
    refused =
        entry_refusal(dist, holder, holder_real, 1, &dist_real, out_of_memory);
    const char *const files[] = {check_metadata ? metadata_path : NULL,
                                 check_record ? record : NULL};
    for (size_t i = 0; i < 2 && dist_real && !refused && !*out_of_memory; ++i)
      if (files[i])
        refused =
            entry_refusal(files[i], dist, dist_real, 0, NULL, out_of_memory);
  }
  free(dist_real);
  free(record);
  free(holder);
  free(dist);
  return refused;
}

char *cl_trust_distinfo_refusal(const char *metadata_path, int *out_of_memory) {
  *out_of_memory = 0;
  char *dist = cl_path_dirname(metadata_path);
  char *holder = dist ? cl_path_dirname(dist) : NULL;
  char *holder_real = NULL;
  char *refused = NULL;
  if (!dist || !holder) {
    *out_of_memory = 1;
  } else {
    /* the folder of the dist-info folders first, then the entry */
    refused =
        cl_trust_distinfo_holder_refusal(holder, &holder_real, out_of_memory);
    if (!refused && !*out_of_memory && holder_real)
      refused = cl_trust_distinfo_entry_refusal(metadata_path, holder_real, 1,
                                                1, out_of_memory);
  }
  free(holder_real);
  free(holder);
  free(dist);
  return refused;
}
