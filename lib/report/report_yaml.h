/* SPDX-License-Identifier: MIT */
/*
 * report_yaml.h - the YAML back end of the report writer, in every build:
 * block mappings and sequences, empty ones as {} and [], and scalars laid
 * out and quoted byte for byte as libyaml's emitter writes them (so that
 * the documents of builds with and without libyaml are the same, and
 * tests/test_report_yaml.c can hold it to libyaml's output).
 */
#ifndef CUDALOAD_REPORT_YAML_H
#define CUDALOAD_REPORT_YAML_H

#include "common/buf.h"

#include <stddef.h>

#define CL_YAML_MAX_DEPTH 32

typedef struct cl_yaml_level {
  int mapping;    /* 1: a mapping (keys and values alternate); 0: a sequence */
  int indent;     /* the column its keys or dashes start at */
  size_t items;   /* scalars and collections written in it so far */
  int simple_key; /* a mapping whose last key fits on one line, "key:" */
} cl_yaml_level;

typedef struct cl_yaml_emitter {
  cl_buf *out;
  int depth; /* levels in use; 0 at the document's top */
  cl_yaml_level level[CL_YAML_MAX_DEPTH];
  /* Where the text stands, as libyaml tracks it: the column (characters),
   * whether the last thing written was white space, and whether only
   * indentation was written on this line so far. */
  size_t column;
  int whitespace, indention;
} cl_yaml_emitter;

/* Start the document ("---") into out; out->failed records any loss. */
void cl_yaml_begin(cl_yaml_emitter *e, cl_buf *out);
/* Finish the document (its last line break). */
void cl_yaml_end(cl_yaml_emitter *e);
void cl_yaml_open(cl_yaml_emitter *e, int mapping);
void cl_yaml_close(cl_yaml_emitter *e);
/* A scalar: a mapping key or value, or a sequence item. plain_ok: it may
 * be written without quotes (keys, numbers, booleans, null) when YAML
 * allows; a string is quoted so that "9.1" or "null" stays a string. */
void cl_yaml_scalar(cl_yaml_emitter *e, const char *value, int plain_ok);

#endif
