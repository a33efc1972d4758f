/* SPDX-License-Identifier: MIT */
/*
 * problem_words.h - the one table from a problem's kind and facts to the
 * words a person reads (problem_words.c). Rewording a problem is an edit
 * of that file; what a problem is, and its facts, stay where it is found.
 */
#ifndef CUDALOAD_PROBLEM_WORDS_H
#define CUDALOAD_PROBLEM_WORDS_H

#include "common/buf.h"
#include "problem/problem.h"

/* Make p's sentence (p->text) from its kind and facts, and its fix as one
 * line (p->fix_text) for shell. 0 or
 * CUDALOAD_E_NO_MEMORY. */
int cl_problem_words(cl_problem *p, cl_shell_kind shell);

/* Make every problem's sentence and fix line, the fix for shell. 0, or
 * CUDALOAD_E_NO_MEMORY when list->failed or a word could not be made. */
int cl_problem_list_finish(cl_problem_list *list, cl_shell_kind shell);

/* Whether kind stops nothing loading (a note), by the table. */
int cl_problem_kind_is_note(int kind);

/* The words of the plan's failure (cudaload_plan()'s last error), line by
 * line: a requirement no file satisfied (its fix line, NULL for none);
 * the i-th file rejected for it and why; or, none rejected, that no file
 * was named like name (outside the roots refused, where one was). */
void cl_problem_unsatisfied_verdict(cl_buf *b, const char *requirement,
                                    const char *family, const char *fix);
void cl_problem_unsatisfied_rejected(cl_buf *b, size_t i, const char *path,
                                     const char *why);
void cl_problem_unsatisfied_unnamed(cl_buf *b, const char *name, int refused);

#endif
