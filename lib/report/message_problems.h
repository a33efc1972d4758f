/* SPDX-License-Identifier: MIT */
/*
 * message_problems.h - what the error messages read with --error show on
 * this machine, as problem records (message_problems.c).
 */
#ifndef CUDALOAD_MESSAGE_PROBLEMS_H
#define CUDALOAD_MESSAGE_PROBLEMS_H

#include "problem/problem.h"
#include "report/error_message_report.h"

/* Record in list the problem each message of f->ctx shows here, its facts
 * from the message and from the machine, each with its source, and its
 * fix as steps; nothing for what the doctor's own problems say already
 * (an unsatisfied requirement, no driver). list->failed on out of memory. */
void cl_message_problems(const cl_error_message_facts *f,
                         cl_problem_list *list);

#endif
