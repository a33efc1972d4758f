/* SPDX-License-Identifier: MIT */
/*
 * scan_memo.h - scans kept in the process, so that a second scan or find
 * costs a look at what the first one asked instead of a walk
 * (docs/scan-contract.md, "A second scan in the same process").
 *
 * A scan is kept with the questions it asked of the file system and the
 * environment and their answers (common/question_log.h: each folder it
 * listed and file it stat'ed, opened or judged, by identity, size, times,
 * mode and owner; each real path and link target it read; each variable
 * and the current folder), under the key of what decides it besides
 * those: the roots given, the interpreter's and the program's roots, the
 * flags and the target. A later scan with the same key asks each question
 * again (stat-like questions only: no folder is listed, no file opened)
 * and takes a copy of the kept inventory when every answer is the same;
 * otherwise it scans and replaces what was kept. A scan whose stamps were
 * too recent to tell a later change apart (the racily-clean rule,
 * binary/names_store.h: cl_names_store_settled) is not kept. At most
 * CL_SCAN_MEMO_RECORDS are kept, the least recently used replaced, under a
 * process-wide lock (cl_os_memo_lock): contexts on many threads share them.
 */
#ifndef CUDALOAD_SCAN_MEMO_H
#define CUDALOAD_SCAN_MEMO_H

#include "common/question_log.h"
#include "core/context.h"

#include <stdint.h>

#define CL_SCAN_MEMO_RECORDS 4

/* When a scan of ctx's key is kept and every question it asked is
 * answered the same now, call take(kept, opaque) (under the lock: it copies
 * what was kept, scan/inventory.c) and return 1 when it returned 0; else
 * 0. A kept scan found untrue is dropped. */
int cl_scan_memo_find(const cudaload_ctx *ctx,
                      int (*take)(const void *kept, void *opaque),
                      void *opaque);

/* Keep what a scan of ctx found (kept, owned from now on, freed with
 * free_kept) and asked (log, whose questions are taken over), the scan
 * having begun at `began` (cl_os_file_time_now()): not when the log is
 * incomplete or a stamp in it is not settled by then (kept is then freed
 * at once); a scan kept for the same key is dropped either way. */
void cl_scan_memo_keep(const cudaload_ctx *ctx, void *kept,
                       void (*free_kept)(void *kept), cl_question_log *log,
                       int64_t began);

/* What the memo did in this process, for tests and benchmarks. */
typedef struct cl_scan_memo_counts {
  unsigned long found;     /* scans answered from a kept one */
  unsigned long changed;   /* kept scans not trusted: an answer changed */
  unsigned long kept;      /* scans kept */
  unsigned long unsettled; /* scans not kept: a stamp too recent */
} cl_scan_memo_counts;
void cl_scan_memo_counts_of(cl_scan_memo_counts *out);

#endif
