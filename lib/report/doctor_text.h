/* SPDX-License-Identifier: MIT */
/* doctor_text.h - see doctor_text.c. */
#ifndef CUDALOAD_DOCTOR_TEXT_H
#define CUDALOAD_DOCTOR_TEXT_H

#include "report/doctor_facts.h"

/* The report as text (colour with CUDALOAD_DOCTOR_COLOR in d->flags),
 * malloc'ed; NULL when out of memory. */
char *cl_doctor_text(const cl_doctor *d);

#endif
