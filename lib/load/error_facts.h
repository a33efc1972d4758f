/* SPDX-License-Identifier: MIT */
/*
 * error_facts.h - what each form found in a text says (error_facts.c): the
 * file, the library that needed it, the symbol, the versions stated, the
 * Windows error, the Python package and environment, read from the hit and
 * from the statements around it (a traceback's frames, "Runtime API
 * Version: 11.7", "+cu121"), each with the piece of text it came from.
 */
#ifndef CUDALOAD_ERROR_FACTS_H
#define CUDALOAD_ERROR_FACTS_H

#include "load/error_forms.h"
#include "load/error_words.h"

#include <stddef.h>

/* CUDALOAD_MESSAGE_FACT_* run from 1 to CL_ERROR_FACT_LAST. */
#define CL_ERROR_FACT_LAST 21

/* One fact: a piece of the text, or a value made from one ("11.4" from
 * "found version 11040"), and where it was read. */
typedef struct cl_error_fact {
  cl_error_span value; /* in the text; s NULL: made, in own */
  char own[40];        /* "" with value.s NULL: no fact */
  cl_error_span source;
  int list; /* value is written "a, b, c": copied as "a,b,c" */
} cl_error_fact;

/* A message while the text is read: spans into the text, no allocation. */
typedef struct cl_error_draft {
  const cl_error_form *form;
  int kind;
  size_t at, line_start, line_end;
  cl_error_span marker;    /* the form's words as the text has them */
  cl_error_span file;      /* as written; empty: about no file */
  cl_error_span needed_by; /* empty: not said */
  const char *family;      /* a family it is about without a file, static */
  /* How strongly its CUDA major fact speaks for the program: 3 its own
   * requirement or build ("Require ... CUDA 12.*", "+cu121"), 2 a library
   * name it opens or opened, 1 a name seen in passing (a wheel's "-cu12");
   * 0: none. */
  int cuda_strength;
  cl_error_fact facts[CL_ERROR_FACT_LAST + 1];
} cl_error_draft;

/* What the text says around its messages, as it is read. */
typedef struct cl_error_scene {
  const char *text;
  /* The program's CUDA major as the text states it: the strongest
   * statement's, and whether statements that strong disagree. */
  int cuda_major, cuda_minor, cuda_strength, cuda_disagree;
  cl_error_span cuda_source;
  /* The CUDA version the driver supports, as the text states it. */
  char driver_cuda[16];
  cl_error_span driver_source;
  /* The Windows error code on the line being read. */
  int code;
  size_t code_line;
  cl_error_span code_source;
  /* The last Python package a path went through, and its environment. */
  cl_error_span module, environment, module_source;
  /* The first such package in the whole text (a traceback printed after
   * the message it explains). */
  cl_error_span first_module, first_environment, first_module_source;
  /* The program "P: error while loading shared libraries" names. */
  cl_error_span consumer;
  size_t consumer_line;
} cl_error_scene;

void cl_error_scene_init(cl_error_scene *s, const char *text);

/* Read a message form's hit into d. 1 when it is a message; 0 when the hit
 * only looks like one (a word that names no library, a family cudaload
 * does not know). Statements the hit makes (a CUDA major it requires) go
 * into s as well. */
int cl_error_draft_read(cl_error_draft *d, const cl_error_hit *hit,
                        cl_error_scene *s);

/* Note a statement's (or a consumer's) hit in s; last is the message
 * drafted last, or NULL: a Windows code on its line is its. */
void cl_error_scene_note(cl_error_scene *s, const cl_error_hit *hit,
                         cl_error_draft *last);

/* What a new draft takes from the scene as it is read: the code and the
 * consumer of its line, the Python package of the innermost frame before
 * it. */
void cl_error_draft_place(cl_error_draft *d, const cl_error_scene *s);

/* What a message takes from the opener whose reason it is ("Failed to
 * load library P with error: X: cannot open ..."): needed by P, and P's
 * consumer and environment where it names none. */
void cl_error_draft_inherit(cl_error_draft *d, const cl_error_draft *opener);

/* Fold a second reading of the same failure into d (an opener's reason
 * that names its file again: "Could not load dynamic library 'X';
 * dlerror: X: cannot open ..."): the reason's kind and file, every fact d
 * lacks. */
void cl_error_draft_merge(cl_error_draft *d, const cl_error_draft *reason);

/* Once the whole text is read: the CUDA and driver versions the text
 * states, what the catalog reads from the names, the kind a Windows code
 * makes precise, and the cause. */
void cl_error_draft_complete(cl_error_draft *d, const cl_error_scene *s);

/* The fact's value as a NUL-terminated string into out (cut to size). "" for
 * none. */
void cl_error_fact_text(const cl_error_fact *f, char *out, size_t size);

/* 1 when d and e are the same message (kind, and file name, family,
 * distribution or symbol), for reading a repeating log once. */
int cl_error_draft_same(const cl_error_draft *d, const cl_error_draft *e);

#endif
