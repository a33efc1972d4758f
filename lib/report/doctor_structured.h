/* SPDX-License-Identifier: MIT */
/* doctor_structured.h - see doctor_structured.c. */
#ifndef CUDALOAD_DOCTOR_STRUCTURED_H
#define CUDALOAD_DOCTOR_STRUCTURED_H

#include "report/doctor_facts.h"
#include "report/report_writer.h"

/* The report as JSON or YAML (docs/doctor.md), malloc'ed; NULL when out
 * of memory. */
char *cl_doctor_structured(const cl_doctor *d, cl_report_format format);

#endif
