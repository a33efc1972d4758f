/* SPDX-License-Identifier: MIT */
/*
 * binary_symbols.c - what the symbol readers (elf_symbols.c, pe_symbols.c)
 * build, its release and lookups. The dispatch to them is
 * binary_dispatch.c; cl_binary_read_symbols_file() lives in binary_file.c,
 * beside the file reader it shares with cl_binary_parse_file().
 */
#include "binary/binary_symbols.h"
#include "common/error.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cl_binary_symbols_free(cl_binary_symbols *s) {
  size_t i, j;
  if (s == NULL) {
    return;
  }
  for (i = 0; s->versions != NULL && i < s->version_count; i++) {
    free(s->versions[i].name);
  }
  free(s->versions);
  for (i = 0; s->defs != NULL && i < s->def_count; i++) {
    free(s->defs[i].name);
    free(s->defs[i].forward);
  }
  free(s->defs);
  for (i = 0; s->needs != NULL && i < s->need_count; i++) {
    free(s->needs[i].file);
    for (j = 0; s->needs[i].versions != NULL && j < s->needs[i].version_count;
         j++) {
      free(s->needs[i].versions[j]);
    }
    free(s->needs[i].versions);
  }
  free(s->needs);
  for (i = 0; s->refs != NULL && i < s->ref_count; i++) {
    free(s->refs[i].name);
    free(s->refs[i].version);
    free(s->refs[i].file);
  }
  free(s->refs);
  memset(s, 0, sizeof *s);
}

int cl_binary_symbols_version_index(const cl_binary_symbols *s,
                                    const char *name) {
  size_t i;
  if (s == NULL || name == NULL) {
    return -1;
  }
  /* A real node before the base entry: the base carries the file's own
   * name, which is often also the name of its one real node
   * (libcudnn.so.9), and symbols are defined under the real node. */
  for (i = 0; i < s->version_count; i++) {
    if (!s->versions[i].is_base && strcmp(s->versions[i].name, name) == 0) {
      return (int)i;
    }
  }
  for (i = 0; i < s->version_count; i++) {
    if (strcmp(s->versions[i].name, name) == 0) {
      return (int)i;
    }
  }
  return -1;
}
