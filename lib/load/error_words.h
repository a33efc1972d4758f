/* SPDX-License-Identifier: MIT */
/*
 * error_words.h - the words of an error message (error_words.c): where a
 * file name or path written in a message begins and ends, spaces and
 * parentheses of a path included; whether a word names a shared library;
 * what kind of path it is; the Python environment and module a path runs
 * through. Spans point into the text read; nothing is copied.
 */
#ifndef CUDALOAD_ERROR_WORDS_H
#define CUDALOAD_ERROR_WORDS_H

#include <stddef.h>

/* A piece of the text read. */
typedef struct cl_error_span {
  const char *s; /* NULL: none */
  size_t len;
} cl_error_span;

/* The most bytes a file name or path in a message may have: a longer
 * "word" is not a name (and a bound keeps every look linear). */
#define CL_ERROR_WORD_MAX 4096

/* 1 for a character that ends an unquoted file name in a message (space,
 * quote, bracket, comma, semicolon, colon, equals). */
int cl_error_word_ends(char c);

/* Whether the word s[0..len), or its last path component, is a shared
 * library's name: "X.dll", "X.so", "X.so.N[.N...]". "module" in "module is
 * not found" is not. */
int cl_error_library_file_name(const char *s, size_t len);

/* The file name or path just before `at` on the line that starts at
 * line_start: back to a space, quote or bracket, or, for a path, back to
 * where the path starts ("/opt/my app/lib/x.so", "C:\Program Files
 * (x86)\...\x.dll"), as long as no ": " or quote lies between. Empty when
 * none. */
cl_error_span cl_error_path_before(const char *line_start, const char *at);

/* The word or quoted text from p (spaces before it skipped) to before
 * line_end: a quoted one whole, spaces included, to its closing quote or
 * the line's end; an unquoted one to a space or bracket, sentence
 * punctuation after it left out ("libcudnn_cnn_infer.so.8."). */
cl_error_span cl_error_word_after(const char *p, const char *line_end);

/* What a file as written is. */
typedef enum cl_error_path_form {
  CL_ERROR_NAME = 0,     /* "libcudnn.so.9": looked up by name */
  CL_ERROR_ABSOLUTE = 1, /* "/opt/app/lib/libcudnn.so.9", "C:\x\y.dll" */
  CL_ERROR_RELATIVE = 2  /* "lib/libcudnn.so.9", "./x.so", "..\x.dll" */
} cl_error_path_form;

cl_error_path_form cl_error_path_form_of(const char *s, size_t len);

/* The last path component of s[0..len) ('/' or '\\'). */
cl_error_span cl_error_basename(const char *s, size_t len);

/* A path through a Python environment ("/home/u/.venv/lib/python3.12/
 * site-packages/torch/lib/libtorch_cuda.so", "C:\...\Lib\site-packages\
 * torch\lib\x.dll"): around the "site-packages" (or "dist-packages") at
 * marker, on the line [line_start, line_end): *env the folder up to and
 * including it, *module the package under it (not "nvidia", whose wheels
 * hold libraries, not programs; "six.py" is "six"). 1 when both were
 * found. */
int cl_error_site_packages(const char *line_start, const char *marker,
                           const char *line_end, cl_error_span *env,
                           cl_error_span *module);

/* The number written at s (digits and dots: "11.7", "8.9.2.26"), at most
 * max_len bytes; its length, 0 when s starts with no digit. A trailing dot
 * is left out ("11.7." is 11.7). */
size_t cl_error_version_at(const char *s, size_t max_len);

#endif
