/* SPDX-License-Identifier: MIT */
/*
 * binary_dispatch.c - the entry points above the parsers: read a binary's
 * first bytes, tell ELF from PE, and hand the reader to elf.c or pe.c
 * (headers) and to elf_symbols.c or pe_symbols.c (symbols). The parsers
 * use reader.c's primitives below them; nothing below calls up here.
 */
#include "binary/binary.h"
#include "binary/binary_symbols.h"
#include "common/error.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Check the reader and read the first bytes: the format, or a failure
 * status with the last error naming the file (label) and the reason. */
static int sniff_reader(const cl_reader *r, const char *label,
                        cl_binary_format *format) {
  unsigned char head[4];
  if (r == NULL || r->read_at == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no reader given", label);
  if (r->size == 0)
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: empty file, not an ELF or PE file", label);
  if (r->size < sizeof head)
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: only %" PRIu64 " bytes long, not an ELF or PE file",
                   label, r->size);
  int status = r->read_at(r->opaque, 0, head, sizeof head);
  if (status != CUDALOAD_OK) {
    /* The reader's own text (an OS error for files) is the better reason;
     * it is copied first, since cl_fail rewrites the buffer it lives in. */
    char reason[256];
    snprintf(reason, sizeof reason, "%s", cudaload_last_error());
    return cl_fail(status, "%s: cannot read the file header: %s", label,
                   reason[0] != '\0' ? reason : cudaload_strerror(status));
  }
  *format = cl_binary_sniff(head, sizeof head);
  if (*format == CL_FORMAT_UNKNOWN)
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: not an ELF or PE file (starts with bytes %02x %02x "
                   "%02x %02x)",
                   label, head[0], head[1], head[2], head[3]);
  return CUDALOAD_OK;
}

int cl_binary_parse(const cl_reader *r, const char *name, cl_binary_info *out) {
  const char *label = name != NULL ? name : "(memory)";
  if (out == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", label);
  memset(out, 0, sizeof *out);
  cl_binary_format format;
  int status = sniff_reader(r, label, &format);
  if (status != CUDALOAD_OK)
    return status;
  return format == CL_FORMAT_ELF ? cl_elf_parse(r, name, out)
                                 : cl_pe_parse(r, name, out);
}

int cl_binary_read_symbols(const cl_reader *r, const char *name,
                           cl_binary_symbols *out) {
  const char *label = name != NULL ? name : "(memory)";
  if (out == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", label);
  memset(out, 0, sizeof *out);
  cl_binary_format format;
  int status = sniff_reader(r, label, &format);
  if (status != CUDALOAD_OK)
    return status;
  status = format == CL_FORMAT_ELF ? cl_elf_read_symbols(r, name, out)
                                   : cl_pe_read_symbols(r, name, out);
  /* Without memory for the index the lookups read every definition: the
   * same answers, more slowly. */
  if (status == CUDALOAD_OK)
    (void)cl_binary_symbols_index(out);
  return status;
}

int cl_binary_read_references(const cl_reader *r, const char *name,
                              cl_ref_filter keep, void *opaque,
                              cl_binary_symbols *out) {
  const char *label = name != NULL ? name : "(memory)";
  if (out == NULL || keep == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", label);
  memset(out, 0, sizeof *out);
  cl_binary_format format;
  int status = sniff_reader(r, label, &format);
  if (status != CUDALOAD_OK)
    return status;
  if (format == CL_FORMAT_ELF)
    return cl_elf_read_references(r, name, keep, opaque, out);
  /* A DLL's imports and exports are read whole (its export table is
   * sorted by name, and its imports few). */
  status = cl_pe_read_symbols(r, name, out);
  if (status == CUDALOAD_OK) {
    (void)cl_binary_symbols_index(out);
    out->opens_by_name = cl_binary_symbols_open_by_name(out);
  }
  return status;
}

int cl_binary_prepare_lookup(const cl_reader *r, const char *name,
                             cl_binary_symbols *out) {
  const char *label = name != NULL ? name : "(memory)";
  if (out == NULL)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "%s: no output given", label);
  memset(out, 0, sizeof *out);
  cl_binary_format format;
  int status = sniff_reader(r, label, &format);
  if (status != CUDALOAD_OK)
    return status;
  if (format != CL_FORMAT_ELF)
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: only an ELF file's definitions are looked up by name",
                   label);
  return cl_elf_prepare_lookup(r, name, out);
}
