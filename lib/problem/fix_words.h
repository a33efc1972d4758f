/* SPDX-License-Identifier: MIT */
/*
 * fix_words.h - the words of every fix note: the sentence a fix step says
 * beside (or instead of) a command. The stages choose which note a fix
 * gets and fill its facts; the words are here, so rewording a note is an
 * edit of this file alone (problem sentences are problem_words.c's).
 *
 * Each note is a string literal, a printf format where it takes facts, so
 * the compiler still checks every site's arguments against its words
 * (cl_fix_add_note and cl_fix_note are CL_PRINTF). A site passes a
 * CL_NOTE_* name, never a literal of its own: tests/check_architecture.py
 * checks that no file outside lib/problem/ gives a fix note its words.
 *
 * The notes are grouped by the stage that raises them.
 */
#ifndef CUDALOAD_FIX_WORDS_H
#define CUDALOAD_FIX_WORDS_H

/* --- the verdict: what the loader would take (lib/load/verdict*.c) --- */

/* --- the program: what a program needs (lib/load/program*.c) --- */

/* --- the plan and its fix lines (plan*.c, plan_judge.c, fix_lines.c,
 * preload.c) --- */

/* --- the doctor's answers (lib/report/, lib/common/fix_steps.c) --- */

#endif
