/*
 * doctor.h - the doctor's report with its problem count, for the
 * command-line tool, whose exit status says whether problems were found
 * (cudaload_doctor() itself returns only the text).
 */
#ifndef CUDALOAD_DOCTOR_H
#define CUDALOAD_DOCTOR_H

#include "cudaload.h"

#include <stddef.h>

/* As cudaload_doctor(); *problem_count (may be NULL) receives the number of
 * entries of the report's "Problems and fixes". */
int cl_doctor_report(cudaload_ctx *ctx, int format, unsigned flags, char **out,
                     size_t *problem_count);

#endif
