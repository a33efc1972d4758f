/* SPDX-License-Identifier: MIT */
/*
 * error_meaning.h - what a message read from a text means (error_meaning.c):
 * the requirement it implies and the sentence that says what went wrong,
 * from its kind and facts alone. What this machine makes of it is the
 * doctor's (report/error_message_report.c).
 */
#ifndef CUDALOAD_ERROR_MEANING_H
#define CUDALOAD_ERROR_MEANING_H

#include "load/error_facts.h"

/* The requirement d implies, as a spec cudaload_require() takes ("cudnn=8",
 * "cublas"), malloc'ed; NULL for none (the driver, a library cudaload does
 * not know, a build without CUDA). *failed is set when memory ran out. */
char *cl_error_requirement(const cl_error_draft *d, int *failed);

/* What d means, in a sentence or two; malloc'ed, NULL out of memory. */
char *cl_error_diagnosis(const cl_error_draft *d);

/* 1 when name (a file name) is the NVIDIA driver's library as messages
 * spell it: libcuda.so, libcuda.so.1, nvcuda.dll. */
int cl_error_message_driver_file(const char *name);

#endif
