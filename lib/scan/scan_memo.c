/* SPDX-License-Identifier: MIT */
/* scan_memo.c - scans kept in the process (scan_memo.h). */
#include "scan/scan_memo.h"
#include "binary/names_store.h"
#include "common/buf.h"
#include "common/strutil.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct memo_record {
  char *key; /* NULL: an empty slot */
  size_t key_len;
  cl_question *asked;
  size_t asked_count;
  void *kept; /* what the scan found, as its keeper gave it */
  void (*free_kept)(void *kept);
  unsigned long used; /* when last found or kept, for replacing */
} memo_record;

/* Guarded by cl_os_memo_lock(). */
static memo_record records[CL_SCAN_MEMO_RECORDS];
static unsigned long clock_ticks;
static cl_scan_memo_counts counts;

/* --- the key: what decides a scan besides what it asks ------------------- */

static void key_add(cl_buf *b, const char *what, char *const *items,
                    size_t count) {
  cl_buf_printf(b, "%s %zu\n", what, count);
  for (size_t i = 0; i < count; ++i)
    cl_buf_printf(b, "%zu:%s\n", strlen(items[i]), items[i]);
}

/* The key of ctx (malloc'ed, *len its length), or NULL without memory. */
static char *key_of(const cudaload_ctx *ctx, size_t *len) {
  cl_buf b = CL_BUF_INIT;
  cl_buf_printf(&b, "flags %x target %d\n", ctx->flags, ctx->target);
  key_add(&b, "explicit", ctx->explicit_roots, ctx->explicit_count);
  key_add(&b, "environment", ctx->environment_roots, ctx->environment_count);
  key_add(&b, "program", ctx->program_roots, ctx->program_root_count);
  char *key = cl_buf_take(&b);
  if (key)
    *len = strlen(key);
  return key;
}

/* --- the records -------------------------------------------------------- */

static void free_questions(cl_question *asked, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    free(asked[i].subject);
    free(asked[i].answer.text);
  }
  free(asked);
}

static void record_free(memo_record *r) {
  free(r->key);
  free_questions(r->asked, r->asked_count);
  if (r->kept)
    r->free_kept(r->kept);
  memset(r, 0, sizeof *r);
}

static memo_record *record_of(const char *key, size_t len) {
  for (size_t i = 0; i < CL_SCAN_MEMO_RECORDS; ++i)
    if (records[i].key && records[i].key_len == len &&
        memcmp(records[i].key, key, len) == 0)
      return &records[i];
  return NULL;
}

/* 1 when every question r's scan asked is answered the same now. Asks
 * stat-like questions only. */
static int still_true(const memo_record *r) {
  for (size_t i = 0; i < r->asked_count; ++i) {
    const cl_question *q = &r->asked[i];
    cl_os_answer now;
    if (cl_os_answer_now(q->question, q->subject, &now))
      return 0;
    int same = cl_answer_same(&q->answer, &now);
    free(now.text);
    if (!same)
      return 0;
  }
  return 1;
}

int cl_scan_memo_find(const cudaload_ctx *ctx,
                      int (*take)(const void *kept, void *opaque),
                      void *opaque) {
  if (cl_question_log_is_open())
    return 0; /* a scan inside a scan: the outer one must see every question */
  size_t len;
  char *key = key_of(ctx, &len);
  if (!key)
    return 0;
  int found = 0;
  cl_os_memo_lock();
  memo_record *r = record_of(key, len);
  if (r) {
    if (!still_true(r)) {
      counts.changed++;
      record_free(r);
    } else if (take(r->kept, opaque) == CUDALOAD_OK) {
      r->used = ++clock_ticks;
      counts.found++;
      found = 1;
    }
  }
  cl_os_memo_unlock();
  free(key);
  return found;
}

/* 1 when every stamp the log holds is settled by `began`. */
static int settled(const cl_question_log *log, int64_t began) {
  for (size_t i = 0; i < log->count; ++i) {
    const cl_os_answer *a = &log->asked[i].answer;
    if (!a->found || (log->asked[i].question != CL_ASK_STAT &&
                      log->asked[i].question != CL_ASK_LSTAT))
      continue;
    cl_file_stamp stamp;
    memset(&stamp, 0, sizeof stamp);
    stamp.mtime_ns = a->mtime;
    stamp.ctime_ns = a->ctime;
    if (!cl_names_store_settled(&stamp, began))
      return 0;
  }
  return 1;
}

void cl_scan_memo_keep(const cudaload_ctx *ctx, void *kept,
                       void (*free_kept)(void *kept), cl_question_log *log,
                       int64_t began) {
  size_t len;
  char *key = key_of(ctx, &len);
  int keep = key && !log->incomplete && settled(log, began);
  if (!key) {
    free_kept(kept);
    return;
  }
  cl_os_memo_lock();
  memo_record *r = record_of(key, len);
  if (r)
    record_free(r);
  if (!keep) {
    if (!log->incomplete)
      counts.unsettled++;
  } else {
    /* The slot: the one just freed, an empty one, or the least recently
     * used. */
    if (!r) {
      r = &records[0];
      for (size_t i = 0; i < CL_SCAN_MEMO_RECORDS; ++i) {
        if (!records[i].key) {
          r = &records[i];
          break;
        }
        if (records[i].used < r->used)
          r = &records[i];
      }
      record_free(r);
    }
    r->key = key;
    r->key_len = len;
    key = NULL;
    r->asked = log->asked;
    r->asked_count = log->count;
    log->asked = NULL;
    log->count = log->capacity = 0;
    r->kept = kept;
    r->free_kept = free_kept;
    kept = NULL;
    r->used = ++clock_ticks;
    counts.kept++;
  }
  cl_os_memo_unlock();
  free(key);
  if (kept)
    free_kept(kept);
}

void cl_scan_memo_counts_of(cl_scan_memo_counts *out) {
  cl_os_memo_lock();
  *out = counts;
  cl_os_memo_unlock();
}
