/* SPDX-License-Identifier: MIT */
/*
 * resolve_memo.h - what the loader model remembers while it resolves
 * (resolve_memo.c), as glibc's loader does: the loaded objects by every
 * name they answer to and by file identity, gathered once rather than
 * compared one by one for each new file (a 1,000-library graph stat'ed
 * every loaded object's path for each file found: 515,674 stat calls);
 * the folders that do not exist, looked at once (glibc's r_search_path_
 * elem status); and the work an open has cost, which a hostile file of
 * 2,000 NEEDED names and 1,000 RUNPATH folders would drive to minutes.
 * Answers are those of the plain comparisons they replace.
 */
#ifndef CUDALOAD_RESOLVE_MEMO_H
#define CUDALOAD_RESOLVE_MEMO_H

#include "loader/loader_model.h"
#include "os/platform.h"

#include <stddef.h>

typedef struct cl_resolve_memo cl_resolve_memo;

/* The model's memo, made on first use (NULL when out of memory: the
 * callers then compare one by one). Freed with the model. */
cl_resolve_memo *cl_resolve_memo_of(cl_loader_model *m);

/* The first loaded object (in load order) whose path, SONAME or one of the
 * names it was opened by is `name`, compared byte for byte (Linux), or
 * SIZE_MAX. */
size_t cl_resolve_memo_loaded_by_name(cl_resolve_memo *memo,
                                      const cl_loader_model *m,
                                      const char *name);
/* The first loaded object whose file is the file `id` names, or SIZE_MAX.
 * check(m, path) gives the path to stat for a loaded object's path
 * (malloc'ed; NULL: none). */
typedef char *(*cl_memo_check_path)(const cl_loader_model *m, const char *path);
size_t cl_resolve_memo_loaded_by_identity(cl_resolve_memo *memo,
                                          const cl_loader_model *m,
                                          const cl_file_identity *id,
                                          cl_memo_check_path check);
/* The model dropped its loaded objects from index `count` on (a failed
 * open is unmapped), or gave loaded object `index` another name: what the
 * memo knows of them is brought up to date. */
void cl_resolve_memo_loaded_dropped(cl_resolve_memo *memo, size_t count);
void cl_resolve_memo_name_added(cl_resolve_memo *memo, size_t index,
                                const char *name);

/* 1 when `folder` (absolute) does not exist, looked at once per model. */
int cl_resolve_memo_folder_absent(cl_resolve_memo *memo, const char *folder);

/* 1 when `folder` (absolute, and there: cl_resolve_memo_folder_absent
 * said 0) does not hold `name`, as a listing of it says: the folder is
 * listed once per model, from the second name looked for in it on, when
 * it can be listed and is not huge; 0 when the name is there or the
 * listing does not tell (then the file itself is looked at). A name the
 * listing holds may still be no file the loader takes. */
int cl_resolve_memo_name_absent(cl_resolve_memo *memo, const char *folder,
                                const char *name);

/* The work done so far (candidate files looked at and steps recorded), for
 * a budget per open. */
void cl_resolve_memo_work(cl_resolve_memo *memo, size_t amount);
size_t cl_resolve_memo_work_done(const cl_resolve_memo *memo);

#endif
