/* SPDX-License-Identifier: MIT */
/*
 * names_store.h - the library names each file holds as text, kept across
 * processes (names_store.c), as ld.so.cache keeps the loader's search and
 * CUDA's ComputeCache its compiled kernels. The names a file holds depend
 * on its content alone, and searching for them read 89 MiB for one
 * setup() of torch's needs: the answer is kept in one small file per user,
 * keyed by the file's stamp (device, inode, size, last write and, on
 * POSIX, last status change), so that a later process asks the file
 * system for the stamp and reads nothing of the file. Only a stamp older
 * than the search by more than its file system's granularity is kept or
 * trusted (cl_names_store_settled): a younger one may not change when the
 * file does.
 *
 * Where: $CUDALOAD_CACHE_PATH, else the OS's per-user cache folder
 * (cl_os_user_cache_dir); CUDALOAD_CACHE_DISABLE=1 switches it off. The
 * file is read once, on the first question, and trusted only when it is
 * this user's alone and well formed throughout; anything else is ignored
 * (the names are then searched for, as without a store). What a run found
 * is written back by cl_names_store_save, merged with the file as it is by
 * then. Nothing here writes the last error: the store only spares work.
 */
#ifndef CUDALOAD_NAMES_STORE_H
#define CUDALOAD_NAMES_STORE_H

#include "binary/binary_symbols.h"
#include "os/platform.h"

#include <stddef.h>

/* The file's name in the folder; a new format gets a new name, so that
 * versions that differ never read each other's. */
#define CL_NAMES_STORE_FILE "names-v2"
/* What is read and written at most: a larger file is ignored, and the
 * oldest entries are left out of what is written. */
#define CL_NAMES_STORE_MAX_BYTES ((size_t)4 << 20)
#define CL_NAMES_STORE_MAX_ENTRIES 8192u
#define CL_NAMES_STORE_MAX_NAMES 4096u

typedef struct cl_names_store cl_names_store;

/* The store the environment asks for (see above), NULL when switched off,
 * when no folder is known, or when out of memory. Reads nothing yet. */
cl_names_store *cl_names_store_open_default(void);
/* A store kept in dir (NULL when out of memory). Reads nothing yet. */
cl_names_store *cl_names_store_open(const char *dir);
void cl_names_store_free(cl_names_store *s);

/* Whether a stamp taken no earlier than `when` (cl_os_file_time_now())
 * tells the file apart from the same file changed after `when`: git's rule
 * for a "racily clean" index entry. A file system stamps a change with its
 * clock cut to its granularity (FAT: 2 s; ext3, ext4 with 128-byte inodes,
 * HFS+, many NFS servers: 1 s), so a file rewritten in place, or removed
 * and made again on the same inode, within the same tick and at the same
 * size keeps device, inode, size, mtime and ctime. Such a change comes at
 * or after `when`, so its times are later than `when` less one tick: a
 * stamp whose last write and status change are older than that, by the
 * granularity (granularity_of in names_store.c) and
 * CL_NAMES_STORE_CLOCK_SLACK_SECONDS more, cannot be a changed file's.
 * 1 when it is so old (an entry may be kept and trusted), else 0. */
int cl_names_store_settled(const cl_file_stamp *stamp, int64_t when);
/* For the clocks: a file system stamps with the kernel's coarse clock, a
 * tick behind the one a process reads, and a file server with its own. */
#define CL_NAMES_STORE_CLOCK_SLACK_SECONDS 1

/* The names kept for the file of `stamp`, asked at `now`, in the order the
 * search met them: 1 with *names (owned by the store, valid until it is
 * freed) and *count, or 0 when the store does not know the file, or when
 * the stamp is too recent to be trusted (cl_names_store_settled). */
int cl_names_store_find(cl_names_store *s, const cl_file_stamp *stamp,
                        int64_t now, char *const **names, size_t *count);
/* Keep a search's answer for the file of `stamp` (names each once, in
 * order), to be written by the next cl_names_store_save. searched_at is the
 * moment before the file was opened for the search: a stamp not settled by
 * then is not kept (the file could change without its stamp), nor names
 * that no search could have found. */
void cl_names_store_add(cl_names_store *s, const cl_file_stamp *stamp,
                        int64_t searched_at, char *const *names, size_t count);
/* Write what was added since the last save, merged with the file as it is
 * now; nothing when nothing was added. 1 when the file was written. */
int cl_names_store_save(cl_names_store *s);

/* References.
 *
 * What binding needs of a consumer is the references its filter keeps
 * (those to CUDA libraries), which a whole read of its symbol table finds
 * among megabytes of others: libtorch_cuda.so's table and names take 12
 * MB, its 400 references to CUDA libraries 15 KB. A file's kept
 * references are stored beside its names, keyed the same way (its stamp)
 * and by the filter (a number that changes when what the filter keeps
 * does: the catalog of CUDA's names), under the same rule on young stamps
 * (cl_names_store_settled) and the same bounds on the whole file: at most
 * CL_NAMES_STORE_MAX_REFS references of at most CL_NAMES_STORE_MAX_REF_NAME
 * characters each, CL_NAMES_STORE_MAX_REF_LINE bytes per file, in the
 * characters of symbol and version names; a file whose references do not
 * fit is not kept, and is read again by every process (what a store that
 * cannot be written costs). flags are the caller's (at most 8 bits). */
#define CL_NAMES_STORE_MAX_REFS 4096u
#define CL_NAMES_STORE_MAX_REF_NAME 512u
#define CL_NAMES_STORE_MAX_REF_LINE ((size_t)256 << 10)
/* The references kept for the file of stamp by filter, asked at now: 1
 * with *flags and refs[0 .. *count) (owned by the store), else 0 (as
 * cl_names_store_find). */
int cl_names_store_find_refs(cl_names_store *s, const cl_file_stamp *stamp,
                             int64_t now, uint32_t filter, unsigned *flags,
                             const cl_symbol_ref **refs, size_t *count);
/* Keep a read's references for the file of stamp (as cl_names_store_add:
 * searched_at is the moment before the file was opened). */
void cl_names_store_add_refs(cl_names_store *s, const cl_file_stamp *stamp,
                             int64_t searched_at, uint32_t filter,
                             unsigned flags, const cl_symbol_ref *refs,
                             size_t count);

/* Parse a store's text into s (the fuzz target's entry): 0 when it is well
 * formed throughout, else -1 and s keeps nothing of it. */
int cl_names_store_parse(cl_names_store *s, const char *text, size_t len);

#endif
