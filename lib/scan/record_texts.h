/* SPDX-License-Identifier: MIT */
/*
 * record_texts.h - the RECORDs one call reads, each read once (issue 44,
 * item 1). Finding a module's distribution (python_module.h), telling
 * which of two owns its files and reading the program's libraries
 * (program.c) all read the same dist-info's RECORD (torch's is 1.5 MB):
 * the first reader reads the file and keeps its text here, the others are
 * served from it, and the last one drops it. A RECORD that cannot be read
 * is remembered as such (it lists nothing). Held by whoever makes the
 * call (cl_program_target), freed when the call ends.
 */
#ifndef CUDALOAD_RECORD_TEXTS_H
#define CUDALOAD_RECORD_TEXTS_H

#include <stddef.h>

/* The largest RECORD read (torch's is about 1.5 MB). */
#define CL_RECORD_MAX ((size_t)64 << 20)

typedef struct cl_record_text {
  char *path; /* .../torch-2.5.1.dist-info/RECORD */
  char *text; /* NULL: no RECORD, or unreadable */
  size_t len;
} cl_record_text;

typedef struct cl_record_texts {
  cl_record_text *held;
  size_t count, capacity;
} cl_record_texts;

/* The text of folder/distinfo/RECORD (*len its length): read from disk
 * the first time it is asked for, from memory after. NULL when there is
 * none or it cannot be read (both say it lists nothing), or when memory
 * runs out (*failed set). Valid until dropped or freed. */
const char *cl_record_text_of(cl_record_texts *r, const char *folder,
                              const char *distinfo, size_t *len, int *failed);

/* Whether the text of folder/distinfo/RECORD is held (read already). */
int cl_record_text_held(const cl_record_texts *r, const char *folder,
                        const char *distinfo);

/* Forget folder/distinfo/RECORD's text: its last reader is done. */
void cl_record_text_drop(cl_record_texts *r, const char *folder,
                         const char *distinfo);

void cl_record_texts_free(cl_record_texts *r);

#endif
