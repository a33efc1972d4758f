/* SPDX-License-Identifier: MIT */
/*
 * resolve_internal.h - what the search rules for one name (resolve.c)
 * share with an open's closure (resolve_open.c): the resolution of a name
 * with the flags and DLL folder of one load, how a model's naming compares
 * names and paths, $ORIGIN and the other dynamic string tokens, and the
 * names a loaded object was opened by. Not part of the ABI.
 *
 * Defined in resolve.c. This header includes no header of resolve.c's
 * (resolve.h), so that resolve.c including it makes no circle; it names
 * resolve.h's types as structs.
 */
#ifndef CUDALOAD_RESOLVE_INTERNAL_H
#define CUDALOAD_RESOLVE_INTERNAL_H

#include "loader/loader_model.h"

#include <stddef.h>

struct cl_requester;
struct cl_resolution;

/* Whether m models a Windows process (its names compare without case, its
 * paths take '\\' too). */
static inline int cl_resolve_is_windows(const cl_loader_model *m) {
  return m->naming == CL_NAMING_WINDOWS;
}

/* Whether two module names (or paths) are one to m's loader. */
int cl_resolve_names_equal(const cl_loader_model *m, const char *a,
                           const char *b);
/* The last component of path, by m's separators (a pointer into path). */
const char *cl_resolve_base_name(const cl_loader_model *m, const char *path);
/* Whether path is absolute to m's loader. */
int cl_resolve_is_absolute(const cl_loader_model *m, const char *path);
/* The path m looks at for path (relative ones joined to its current
 * folder), malloc'ed; NULL when the current folder is unknown. */
char *cl_resolve_absolute_for_check(const cl_loader_model *m, const char *path);
/* The folder of the DLL at the root of a Windows load, malloc'ed. */
char *cl_resolve_folder_of(const cl_loader_model *m, const char *path);
/* Record that loaded object `index` was opened by `name` as well. */
int cl_resolve_add_name(cl_loader_model *m, size_t index, const char *name);
/* Whether the requester is m's executable. */
int cl_resolve_requester_is_exe(const cl_loader_model *m,
                                const struct cl_requester *r);

/* The object whose $ORIGIN a list or name expands with. */
typedef struct cl_origin_of {
  const char *path; /* NULL: the executable */
  int is_exe;
} cl_origin_of;

/* glibc's _dl_dst_substitute of input for the object o (malloc'ed; ""
 * when the entry is discarded; NULL: no memory). */
char *cl_resolve_expand_dst(const cl_loader_model *m, const char *input,
                            const cl_origin_of *o);

/* cl_resolve() with the LoadLibraryExW flags of one load and the folder of
 * the DLL it opened (load_dir, NULL: none), which its imports search on
 * Windows. */
int cl_resolve_with(cl_loader_model *m, const struct cl_requester *req,
                    const char *name, unsigned flags, const char *load_dir,
                    struct cl_resolution *out);

#endif
