/* SPDX-License-Identifier: MIT */
/*
 * text_escape.h - names from the disk, manifests and drivers made safe to
 * show. Folder names, manifest values, spec text and strings a driver
 * reports are bytes, not text: they may hold terminal control sequences
 * (ESC, BEL, CR, the C1 controls such as CSI) and bytes that are not UTF-8.
 *
 * - For people (text reports, messages on stderr, cudaload_last_error()):
 *   every control byte, DEL, C1 control and byte that is not part of a
 *   valid UTF-8 sequence is shown as \xNN, so nothing reaches a terminal
 *   that could move the cursor, retitle the window or hide a line.
 * - For machines (JSON, YAML): the exact value, with each byte that is not
 *   UTF-8 written as the lone surrogate U+DC00+byte, the convention of
 *   Python's "surrogateescape" (os.fsencode() of the decoded string gives
 *   the original bytes back). docs/scan-contract.md documents it.
 */
#ifndef CUDALOAD_TEXT_ESCAPE_H
#define CUDALOAD_TEXT_ESCAPE_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at p (at most left bytes): 1 to 4,
 * or 0 when the bytes there are not UTF-8 (stray continuation, overlong
 * form, surrogate, beyond U+10FFFF, truncated). *code receives the code
 * point of a valid sequence. */
size_t cl_utf8_sequence(const unsigned char *p, size_t left, unsigned *code);

/* Whether s needs escaping to be shown (keep_newlines: '\n' may stay). */
int cl_text_needs_escape(const char *s, int keep_newlines);

/* s escaped for a person, into out (capacity cap, always NUL-terminated
 * when cap > 0; a value that does not fit is cut at a whole escape). With
 * keep_newlines, '\n' stays (multi-line messages). Returns the length the
 * whole escaped text would have, as snprintf does. */
size_t cl_text_escape_into(char *out, size_t cap, const char *s,
                           int keep_newlines);

/* As cl_text_escape_into, for the length bytes at s, NUL bytes included
 * (shown \x00): text that did not come as a C string. */
size_t cl_text_escape_bytes_into(char *out, size_t cap, const char *s,
                                 size_t length, int keep_newlines);

/* s escaped for a person, malloc'ed (NULL when memory runs out). */
char *cl_text_escaped(const char *s, int keep_newlines);

/* The bytes of s as valid UTF-8 for a machine format: every byte that is
 * not part of a valid sequence becomes U+DC00+byte, encoded the way libyaml
 * and the JSON writer take it (three bytes, ED B2..B3 xx). malloc'ed; NULL
 * when memory runs out. Valid UTF-8 comes back unchanged. */
char *cl_text_surrogate_escaped(const char *s);

#endif
