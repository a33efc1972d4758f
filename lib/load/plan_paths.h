/* SPDX-License-Identifier: MIT */
/*
 * plan_paths.h - when two paths the plan compares are one folder or one
 * file (plan_paths.c).
 */
#ifndef CUDALOAD_PLAN_PATHS_H
#define CUDALOAD_PLAN_PATHS_H

/* Whether two files' paths name the same folder, as spelt. */
int cl_plan_same_folder(const char *a, const char *b);

/* Whether two files' folders are one folder on disk, however spelt. */
int cl_plan_same_folder_on_disk(const char *a, const char *b);

/* Whether two paths are one file (as spelt, or once resolved). */
int cl_plan_same_file(const char *a, const char *b);

#endif
