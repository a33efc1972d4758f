/* SPDX-License-Identifier: MIT */
/* doctor_problems.h - see doctor_problems.c. */
#ifndef CUDALOAD_DOCTOR_PROBLEMS_H
#define CUDALOAD_DOCTOR_PROBLEMS_H

#include "report/doctor_facts.h"

/* Record every problem the gathered facts show in d->problems, in the
 * order the report lists them (d->failed on out of memory). */
void cl_doctor_find_problems(cl_doctor *d);

#endif
