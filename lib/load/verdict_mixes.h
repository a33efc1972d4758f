/* SPDX-License-Identifier: MIT */
/*
 * verdict_mixes.h - two versions of one family and major, two CUDA
 * majors, or two copies of one DLL name among what one process loads
 * (verdict_mixes.c).
 */
#ifndef CUDALOAD_VERDICT_MIXES_H
#define CUDALOAD_VERDICT_MIXES_H

#include "load/verdict_types.h"

/* Which files a mix of versions or CUDA majors is among (the finding's
 * CUDALOAD_FACT_AMONG; problem_words.c says it in words). */
#define CL_AMONG_PROCESS "process" /* what the process would load */
#define CL_AMONG_PROGRAM "program" /* what the program would load */
#define CL_AMONG_USER                                                          \
  "program-loading-it" /* what a program that loads the                        \
                          file would run */
#define CL_AMONG_FILE                                                          \
  "file"                     /* what one process would load                    \
                                for the file asked about */
#define CL_AMONG_MAPS "maps" /* what a running process maps */

/* Two versions of one family and major, or two CUDA majors, among the
 * objects from `first` on (among: a CL_AMONG_* word). */
void cl_verdict_mixes(cudaload_explain *e, size_t first, const char *among);
/* The same among the objects e has recorded that m has loaded: what one
 * modelled process holds, whichever open recorded them first. */
void cl_verdict_mixes_in(cudaload_explain *e, const cl_loader_model *m,
                         const char *among);

#endif
