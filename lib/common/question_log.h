/* SPDX-License-Identifier: MIT */
/*
 * question_log.h - the questions one thread asked of the file system and
 * the environment while a log was open, each once, with the answer it got
 * (os/platform.h: cl_os_question, cl_os_answer). The seam's functions note
 * into the calling thread's open log; the scan opens one around a scan and
 * keeps the scan while every answer stays the same (scan/scan_memo.c). In
 * common/ because both the seam and the scan need it and the seam calls no
 * stage.
 */
#ifndef CUDALOAD_QUESTION_LOG_H
#define CUDALOAD_QUESTION_LOG_H

#include "common/strindex.h"
#include "os/platform.h"

#include <stddef.h>

typedef struct cl_question {
  cl_os_question question;
  char *subject; /* owned */
  cl_os_answer answer;
} cl_question;

typedef struct cl_question_log {
  cl_question *asked;
  size_t count, capacity;
  /* Which (question, subject) were noted: keys owned in keys. */
  cl_str_index noted;
  char **keys;
  size_t key_count, key_capacity;
  /* 1 when a question could not be noted (out of memory): the log does not
   * hold every question, so nothing may be trusted by it. */
  int incomplete;
} cl_question_log;

/* An empty log. */
void cl_question_log_init(cl_question_log *log);
/* Open log on the calling thread: 1, or 0 when another log is open
 * on it (a scan inside a scan: its questions go to the outer log, and it
 * keeps nothing). */
int cl_question_log_open(cl_question_log *log);
/* Close the thread's log (it keeps what was noted). */
void cl_question_log_close(cl_question_log *log);
/* 1 when a log is open on the calling thread. */
int cl_question_log_is_open(void);
void cl_question_log_free(cl_question_log *log);

/* For the seam: 1 when a log is open on this thread and question of
 * subject was not noted in it yet; it counts as noted from now on, and the
 * caller gives the answer with cl_question_log_answer(). */
int cl_question_log_wants(cl_os_question question, const char *subject);
/* The answer to the question cl_question_log_wants() just said it wants
 * (answer's text is taken over, even on failure). */
void cl_question_log_answer(cl_os_question question, const char *subject,
                            cl_os_answer *answer);

/* For the seam: the answer to a question it wants could not be kept (out
 * of memory): the thread's log no longer holds every question. */
void cl_question_log_lost(void);

/* For the seam: note a question whose answer is text (NULL: none), from
 * the answer the question itself got, when the thread's log wants it. */
void cl_question_log_text(cl_os_question question, const char *subject,
                          const char *text);

/* For the seam: a callback that appends "name=value" to *opaque (a
 * malloc'ed text; NULL once memory ran out), each after its length, so
 * that no two sets of variables with a prefix read the same. */
void cl_question_log_add_variable(const char *name, const char *value,
                                  void *opaque);

/* 1 when two answers are the same. */
int cl_answer_same(const cl_os_answer *a, const cl_os_answer *b);

#endif
