/* SPDX-License-Identifier: MIT */
/*
 * posix_answer.h - what the POSIX side of the seam shares to note the
 * questions a scan asks (os/platform.h, cl_os_question): a stat-like
 * question noted from the stat it made, so that noting costs no second
 * look (platform_posix.c; resolve_posix.c's cl_os_file_identity asks it).
 */
#ifndef CUDALOAD_POSIX_ANSWER_H
#define CUDALOAD_POSIX_ANSWER_H

#include "os/platform.h"

#include <sys/stat.h>

/* Note question (CL_ASK_STAT or CL_ASK_LSTAT) of path in the calling
 * thread's open question log, from what a stat of it said (NULL: it named
 * nothing), the first time it is asked. */
void cl_posix_note_stat(cl_os_question question, const char *path,
                        const struct stat *st);

#endif
