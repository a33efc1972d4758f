/* SPDX-License-Identifier: MIT */
/*
 * problem_words.h - the one table from a problem's kind and facts to the
 * words a person reads (problem_words.c). Rewording a problem is an edit
 * of that file; what a problem is, and its facts, stay where it is found.
 */
#ifndef CUDALOAD_PROBLEM_WORDS_H
#define CUDALOAD_PROBLEM_WORDS_H

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

#endif
