/* SPDX-License-Identifier: MIT */
/*
 * trust.h - what other users can do to the paths a library's facts come
 * from. The scan refuses a library whose file, folder, or a folder on the
 * way from its root others can write to (SECURITY.md, "Writable roots are
 * refused"); the same rules hold for what sits beside a library and speaks
 * for it: its include folder, which a compiler reads headers from (whoever
 * adds a cuda_runtime.h there compiles his code into the caller's NVRTC or
 * nvcc program), and the sources of its version (a wheel's dist-info, a
 * toolkit's headers), which decide what a plan takes (trust.c).
 */
#ifndef CUDALOAD_TRUST_H
#define CUDALOAD_TRUST_H

#include "os/platform.h"

/* Why others can do to `folder` what `use` forbids (borrowed), or NULL:
 * cl_os_writable_by_others(), asked by the caller's own rules and cache. */
typedef const char *(*cl_trust_ask)(void *opaque, const char *folder,
                                    cl_trust_use use);

/* The first folder above `folder` (itself excluded), going up, in which
 * `ask` says others can rename what it holds (CL_TRUST_FOLDER_ON_THE_WAY),
 * malloc'ed, with *why; NULL when there is none or memory ran out. The walk
 * stops at `stop` (a real path: a root, or the folder a source sits beside)
 * or a folder above it, which are not asked: above a root is the caller's
 * choice of root. */
char *cl_trust_unsafe_on_the_way(const char *folder, const char *stop,
                                 cl_trust_ask ask, void *opaque,
                                 const char **why);

/* Why other users can change what `path` says, malloc'ed ("P is writable
 * by every user (mode 0777)"), or NULL when they cannot (or it cannot be
 * told: a path that does not resolve). `path` is a file (a header, a
 * METADATA or RECORD file: the library file's rule on it, the library
 * folder's rule on the folder that holds it) or, with is_folder, a folder
 * whose every entry counts (an include folder, a *.dist-info folder: the
 * library folder's rule, sticky or not). Links are resolved first, and
 * when the real path leads away from `anchor` (the folder the source
 * belongs beside, whose own way the library's checks covered), every
 * folder on the way back up to `anchor` or a folder above it has the rule
 * of a folder on the way. Sets no error; *out_of_memory set when memory
 * ran out (then NULL). */
char *cl_trust_source_refusal(const char *path, int is_folder,
                              const char *anchor, int *out_of_memory);

/* An include folder and a file in it that speaks for a library (the
 * family's header a compiler reads, the header a version is read from):
 * the folder's rule, the file's, and, for links, the way back up to the
 * install folder above include/. As cl_trust_source_refusal(). */
char *cl_trust_include_refusal(const char *include_dir, const char *file,
                               int *out_of_memory);

/* A dist-info by its METADATA path: the folder that holds the *.dist-info
 * folders (whoever may add one there can claim the library in its RECORD),
 * the *.dist-info folder, its METADATA and its RECORD. As
 * cl_trust_source_refusal(). */
char *cl_trust_distinfo_refusal(const char *metadata_path, int *out_of_memory);

/* The two halves of cl_trust_distinfo_refusal(), for a caller that checks
 * many dist-infos of one folder (a toolkit's dist-info/, site-packages):
 * the folder that holds them, once (*holder_real: its real path,
 * malloc'ed, NULL when it does not resolve, and then nothing is refused),
 * then each *.dist-info folder with the files of it that were read (its
 * METADATA with check_metadata, its RECORD with check_record), given that
 * real path. With both, the same answers, in the same words. A dist-info
 * that spoke only by its folder's name needs the holder's half alone:
 * only who can write the holder can add or rename a folder in it. */
char *cl_trust_distinfo_holder_refusal(const char *holder, char **holder_real,
                                       int *out_of_memory);
/* cl_trust_distinfo_holder_refusal() where a real path is known: the
 * holder's own (`real`), else the folder's it is in (`parent_real`), when
 * the holder is no link (one look at it); NULL for either when unknown.
 * The same answers, in the same words. */
char *cl_trust_distinfo_holder_refusal_known(const char *holder,
                                             const char *real,
                                             const char *parent_real,
                                             char **holder_real,
                                             int *out_of_memory);
char *cl_trust_distinfo_entry_refusal(const char *metadata_path,
                                      const char *holder_real,
                                      int check_metadata, int check_record,
                                      int *out_of_memory);

#endif
