/* SPDX-License-Identifier: MIT */
/*
 * load_failure.h - a refused load's last error made precise
 * (load_failure.c): the missing import and who imports it, or the other
 * machine a file is built for, where the OS says only a number.
 */
#ifndef CUDALOAD_LOAD_FAILURE_H
#define CUDALOAD_LOAD_FAILURE_H

/* Call right after cl_os_loader_open(path) failed: replaces the last error
 * with one that names the cause when the OS's code calls for it (Windows'
 * 126 and 193) and the model can tell it; otherwise leaves it. */
void cl_explain_load_failure(const char *path);

#endif
