/* SPDX-License-Identifier: MIT */
/*
 * probe_child_end.c - the verdict on a probe run in a child process, from
 * its report and how it ended: the one policy both platforms' children
 * (probe_child_posix.c, probe_child_win32.c) hand their facts to.
 */
#include "probe/probe_child_end.h"
#include "probe/probe_result.h"
#include "probe/probe_wire.h"

#include "cudaload.h"
#include "common/reason_words.h"

#include <stdio.h>

void cl_probe_child_verdict(cudaload_probe *p, const cl_probe_child_end *end) {
  int complete = 0;
  if (end->report)
    cl_probe_wire_parse(end->report,
                        end->report_len > CL_PROBE_REPORT_CAP
                            ? CL_PROBE_REPORT_CAP
                            : end->report_len,
                        p, &complete);
  if (complete)
    return; /* the child said everything before the deadline */
  char message[256];
  int reason = CUDALOAD_REASON_PROBE_CRASHED;
  if (end->flooded) {
    snprintf(message, sizeof message, CL_WORDS_PROBE_PROCESS_FLOODED_ITS_REPORT,
             CL_PROBE_REPORT_CAP);
  } else if (end->timed_out) {
    reason = CUDALOAD_REASON_TIMEOUT;
    snprintf(message, sizeof message, CL_WORDS_PROBE_DID_NOT_FINISH_WITHIN,
             end->timeout_s);
  } else {
    snprintf(message, sizeof message, CL_WORDS_THE_PROBE_PROCESS,
             end->how[0] ? end->how : CL_WORDS_ENDED_BEFORE_IT_FINISHED);
  }
  cl_probe_mark_unfinished(p, reason, end->elapsed_ms, message);
}
