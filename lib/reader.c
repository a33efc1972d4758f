/*
 * reader.c - the memory-backed cl_reader, format sniffing and dispatch, and
 * the release of a cl_binary_info. The parsers themselves live in elf.c and
 * pe.c; they only ever see a cl_reader, so the fuzzers can feed them memory.
 */
#include "binary.h"
#include "error.h"

#include "cudaload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cl_memory_read_at(void *opaque, uint64_t offset, void *buf,
                             size_t len) {
  const cl_memory_source *src = opaque;
  /* Written as two comparisons so that offset + len cannot overflow. */
  if (offset > src->size || len > src->size - offset) {
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "read of %" PRIu64 " bytes at offset 0x%" PRIx64
                   " past end of buffer (size %" PRIu64 ")",
                   (uint64_t)len, offset, (uint64_t)src->size);
  }
  if (len > 0) {
    memcpy(buf, src->data + offset, len);
  }
  return CUDALOAD_OK;
}

cl_reader cl_reader_from_memory(cl_memory_source *src) {
  cl_reader r;
  r.size = src != NULL ? (uint64_t)src->size : 0;
  r.read_at = cl_memory_read_at;
  r.opaque = src;
  return r;
}

cl_binary_format cl_binary_sniff(const unsigned char *head, size_t len) {
  if (head == NULL || len < 4) {
    return CL_FORMAT_UNKNOWN;
  }
  if (head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
    return CL_FORMAT_ELF;
  }
  if (head[0] == 'M' && head[1] == 'Z') {
    return CL_FORMAT_PE;
  }
  return CL_FORMAT_UNKNOWN;
}

int cl_binary_parse(const cl_reader *r, const char *name, cl_binary_info *out) {
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
  if (r->size == 0) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: empty file, not an ELF or PE file", label);
  }
  if (r->size < sizeof head) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: only %" PRIu64 " bytes long, not an ELF or PE file",
                   label, r->size);
  }
  status = r->read_at(r->opaque, 0, head, sizeof head);
  if (status != CUDALOAD_OK) {
    /* The reader's own text (an OS error for files) is the better reason;
     * copy it first because cl_fail rewrites the same buffer. */
    char reason[256];
    snprintf(reason, sizeof reason, "%s", cudaload_last_error());
    return cl_fail(status, "%s: cannot read the file header: %s", label,
                   reason[0] != '\0' ? reason : cudaload_strerror(status));
  }
  switch (cl_binary_sniff(head, sizeof head)) {
  case CL_FORMAT_ELF:
    return cl_elf_parse(r, name, out);
  case CL_FORMAT_PE:
    return cl_pe_parse(r, name, out);
  default:
    return cl_fail(
        CUDALOAD_E_UNSUPPORTED,
        "%s: not an ELF or PE file (starts with bytes %02x %02x %02x "
        "%02x)",
        label, head[0], head[1], head[2], head[3]);
  }
}

void cl_binary_info_free(cl_binary_info *info) {
  size_t i;
  if (info == NULL) {
    return;
  }
  free(info->machine_name);
  free(info->soname);
  if (info->needed != NULL) {
    for (i = 0; i < info->needed_count; i++) {
      free(info->needed[i]);
    }
    free(info->needed);
  }
  free(info->runpath);
  free(info->rpath);
  free(info->file_version);
  memset(info, 0, sizeof *info);
}
