/* SPDX-License-Identifier: MIT */
/* question_log.c - the questions a thread asked while a log was open. */
#include "common/question_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for need items in *items (strutil.h's cl_reserve is not asked:
 * strutil.c asks the seam, which notes into this file). */
static int reserve(void **items, size_t *capacity, size_t need, size_t size) {
  if (need <= *capacity)
    return 0;
  size_t grown = *capacity ? *capacity * 2 : 16;
  if (grown < need)
    grown = need;
  void *more = realloc(*items, grown * size);
  if (!more)
    return 1;
  *items = more;
  *capacity = grown;
  return 0;
}

/* The log open on this thread, or NULL. */
static CL_THREAD_LOCAL cl_question_log *open_log;

void cl_question_log_init(cl_question_log *log) {
  memset(log, 0, sizeof *log);
  cl_str_index_init(&log->noted, 0);
}

int cl_question_log_open(cl_question_log *log) {
  if (open_log)
    return 0;
  open_log = log;
  return 1;
}

void cl_question_log_close(cl_question_log *log) {
  if (open_log == log)
    open_log = NULL;
}

int cl_question_log_is_open(void) {
  return open_log != NULL;
}

void cl_question_log_free(cl_question_log *log) {
  cl_question_log_close(log);
  for (size_t i = 0; i < log->count; ++i) {
    free(log->asked[i].subject);
    free(log->asked[i].answer.text);
  }
  free(log->asked);
  cl_str_index_free(&log->noted);
  for (size_t i = 0; i < log->key_count; ++i)
    free(log->keys[i]);
  free(log->keys);
  memset(log, 0, sizeof *log);
}

int cl_question_log_wants(cl_os_question question, const char *subject) {
  cl_question_log *log = open_log;
  if (!log || log->incomplete)
    return 0;
  if (!subject) {
    log->incomplete = 1;
    return 0;
  }
  /* The key: the question as one letter, then the subject, compared byte
   * for byte (two spellings are two questions). */
  size_t len = strlen(subject);
  char *key = malloc(len + 2);
  if (!key || reserve((void **)&log->keys, &log->key_capacity,
                      log->key_count + 1, sizeof *log->keys)) {
    free(key);
    log->incomplete = 1;
    return 0;
  }
  key[0] = (char)('A' + (int)question);
  memcpy(key + 1, subject, len + 1);
  if (cl_str_index_find(&log->noted, key, NULL)) {
    free(key);
    return 0;
  }
  if (cl_str_index_add(&log->noted, key, log->key_count)) {
    free(key);
    log->incomplete = 1;
    return 0;
  }
  log->keys[log->key_count++] = key;
  return 1;
}

void cl_question_log_answer(cl_os_question question, const char *subject,
                            cl_os_answer *answer) {
  cl_question_log *log = open_log;
  char *copy = NULL;
  size_t len = subject ? strlen(subject) + 1 : 0;
  if (!log || log->incomplete || !subject || !(copy = malloc(len)) ||
      reserve((void **)&log->asked, &log->capacity, log->count + 1,
              sizeof *log->asked)) {
    free(copy);
    free(answer->text);
    answer->text = NULL;
    if (log)
      log->incomplete = 1;
    return;
  }
  memcpy(copy, subject, len);
  cl_question *q = &log->asked[log->count++];
  q->question = question;
  q->subject = copy;
  q->answer = *answer;
  answer->text = NULL;
}

void cl_question_log_lost(void) {
  if (open_log)
    open_log->incomplete = 1;
}

int cl_answer_same(const cl_os_answer *a, const cl_os_answer *b) {
  if (a->found != b->found || a->device != b->device || a->inode != b->inode ||
      a->size != b->size || a->mtime != b->mtime || a->ctime != b->ctime ||
      a->mode != b->mode || a->owner != b->owner)
    return 0;
  if (!a->text || !b->text)
    return a->text == b->text;
  return strcmp(a->text, b->text) == 0;
}

/* The same for both seams (os/platform.h): they differ in how they ask,
 * not in what they note. */
void cl_question_log_text(cl_os_question question, const char *subject,
                          const char *text) {
  if (!cl_question_log_wants(question, subject))
    return;
  cl_os_answer a;
  memset(&a, 0, sizeof a);
  a.found = text != NULL;
  if (text) {
    size_t size = strlen(text) + 1;
    if (!(a.text = malloc(size))) {
      cl_question_log_lost();
      return;
    }
    memcpy(a.text, text, size);
  }
  cl_question_log_answer(question, subject, &a);
}

void cl_question_log_add_variable(const char *name, const char *value,
                                  void *opaque) {
  char **text = opaque;
  if (!*text)
    return;
  size_t had = strlen(*text), nlen = strlen(name), vlen = strlen(value);
  char *more = realloc(*text, had + nlen + vlen + 32);
  if (!more) {
    free(*text);
    *text = NULL;
    return;
  }
  snprintf(more + had, nlen + vlen + 32, "%zu:%s=%s\n", nlen + vlen + 1, name,
           value);
  *text = more;
}
