/* SPDX-License-Identifier: MIT */
/*
 * shell_word.h - one word of a command the library prints for a person to
 * paste (a fix line's folder, a pip requirement, a path to inspect), written
 * so that the shell gives the program exactly that word and runs nothing
 * else: a folder named v$(touch PWNED) must not run touch. POSIX: sh's
 * single quotes, as `cudaload env --shell sh` writes its value. Windows:
 * one form that cmd and PowerShell both read literally (shell_word.c).
 */
#ifndef CUDALOAD_SHELL_WORD_H
#define CUDALOAD_SHELL_WORD_H

#include "common/buf.h"

/* The shells a printed command is for: a POSIX shell, or (Windows) cmd and
 * PowerShell alike, since the same line may be pasted into either. */
typedef enum cl_shell_kind {
  CL_SHELL_POSIX = 0,
  CL_SHELL_CMD_AND_POWERSHELL = 1
} cl_shell_kind;

/* Append word to b as one shell word for kind, and return 1; bare when it
 * holds only characters no shell of that kind treats specially.
 * POSIX: else in single quotes, each ' written '\'' (any word).
 * Windows: else in double quotes, which cmd and PowerShell both read
 * literally unless the word holds a character one of them still acts on
 * there: % (cmd expands %NAME%), ! (cmd with delayed expansion), $ and `
 * (PowerShell expands and escapes), a double quote (ASCII or PowerShell's
 * typographic U+201C..U+201E) or a control character. No one spelling is
 * safe in both for such a word: nothing is appended and 0 is returned, so
 * that the caller names the value apart ("DIR, the folder ..."). */
int cl_buf_shell_word(cl_buf *b, const char *word, cl_shell_kind kind);

#endif
