/*
 * binary_symbols.c - the symbol readers' entry point: sniff the format and
 * hand the reader to elf_symbols.c or pe_symbols.c, and release what they
 * built. cl_binary_read_symbols_file() lives in binary_file.c, beside the
 * file reader it shares with cl_binary_parse_file().
 */
#include "binary_symbols.h"
#include "error.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cl_binary_read_symbols(const cl_reader *r, const char *name,
                           cl_binary_symbols *out) {
  unsigned char head[4];
  const char *label = name != NULL ? name : "(memory)";
  int status;

  if (out == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", label);
  }
  memset(out, 0, sizeof *out);
  if (r == NULL || r->read_at == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no reader given", label);
  }
  if (r->size < sizeof head) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: only %" PRIu64 " bytes long, not an ELF or PE file",
                   label, r->size);
  }
  cl_clear_error();
  status = r->read_at(r->opaque, 0, head, sizeof head);
  if (status != CUDALOAD_OK) {
    /* The reader's own text (an OS error for files) is the reason; it is
     * copied first, since cl_fail rewrites the buffer it lives in. */
    char reason[256];
    snprintf(reason, sizeof reason, "%s", cudaload_last_error());
    return cl_fail(status, "%s: cannot read the file header: %s", label,
                   reason[0] != '\0' ? reason : cudaload_strerror(status));
  }
  switch (cl_binary_sniff(head, sizeof head)) {
  case CL_FORMAT_ELF:
    return cl_elf_read_symbols(r, name, out);
  case CL_FORMAT_PE:
    return cl_pe_read_symbols(r, name, out);
  default:
    return cl_fail(CUDALOAD_E_UNSUPPORTED, "%s: not an ELF or PE file", label);
  }
}

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
