/* SPDX-License-Identifier: MIT */
/*
 * binary.h - bounds-checked, read-only readers for ELF and PE files.
 *
 * The readers never load or execute anything and never trust an offset or a
 * count from the file: every read goes through cl_reader, which refuses
 * anything past the end. They work on any host (a Linux machine can read a
 * Windows DLL). Input may be hostile; the fuzzers feed them memory buffers.
 */
#ifndef CUDALOAD_BINARY_H
#define CUDALOAD_BINARY_H

#include <stddef.h>
#include <stdint.h>

/* Random access to the bytes of a file or a memory buffer. */
typedef struct cl_reader {
  uint64_t size;
  /* Read exactly len bytes at offset into buf. Returns 0, or a CUDALOAD_E_*
   * status (MALFORMED when the range passes size, IO on a read error) with
   * the last error set to the reason, which the parsers quote. */
  int (*read_at)(void *opaque, uint64_t offset, void *buf, size_t len);
  void *opaque;
} cl_reader;

/* A reader over a memory buffer (the buffer must outlive the reader). */
typedef struct cl_memory_source {
  const unsigned char *data;
  size_t size;
} cl_memory_source;
cl_reader cl_reader_from_memory(cl_memory_source *src);

typedef enum cl_binary_format {
  CL_FORMAT_UNKNOWN = 0,
  CL_FORMAT_ELF,
  CL_FORMAT_PE
} cl_binary_format;

/* Everything the readers extract. Strings are malloc'ed, never NULL after a
 * successful parse ("" when absent); free with cl_binary_info_free(). */
typedef struct cl_binary_info {
  cl_binary_format format;
  int bits;           /* 32 or 64 */
  int big_endian;     /* ELF only */
  unsigned machine;   /* e_machine / IMAGE_FILE_HEADER.Machine */
  char *machine_name; /* "x86_64", "aarch64", "i386", "unknown(0x1234)" */
  char *soname;       /* ELF DT_SONAME */
  char **needed;      /* ELF DT_NEEDED / PE imported DLL names, file order */
  size_t needed_count;
  char *runpath;      /* ELF DT_RUNPATH */
  char *rpath;        /* ELF DT_RPATH */
  char *file_version; /* PE VERSIONINFO fixed file version "a.b.c.d" */
  /* ELF: DT_SYMBOLIC (or DF_SYMBOLIC in DT_FLAGS): the object looks up its
   * own definitions first, before the global scope (the real libcudnn.so.9
   * and libcublas.so.13 have it). */
  int symbolic;
  /* ELF: DF_1_NODEFLIB in DT_FLAGS_1: the loader skips /etc/ld.so.cache
   * and the default folders for this object's dependencies. */
  int nodeflib;
  /* What identifies the build the file is, read from its headers: an ELF
   * file's GNU build ID ("gnu:" and its bytes in hex), a PE image's link
   * time stamp and image size ("pe:" and the two in hex, the key symbol
   * servers file an image under). "" when the file has none. Two files with
   * the same identity hold the same text (binary/known_builds.h). */
  char build_id[72];
} cl_binary_info;

/* A range of bytes of a file (a section's contents). */
typedef struct cl_file_range {
  uint64_t offset;
  uint64_t size;
} cl_file_range;

/* Which format the first bytes announce (needs at least 4 bytes). */
cl_binary_format cl_binary_sniff(const unsigned char *head, size_t len);

/* Parse. On failure returns a CUDALOAD_E_* status, sets the last error with a
 * reason that starts with `name` and names the structure at fault, and leaves
 * *out freed and zeroed. `name` is used in messages only. */
int cl_elf_parse(const cl_reader *r, const char *name, cl_binary_info *out);
int cl_pe_parse(const cl_reader *r, const char *name, cl_binary_info *out);
/* Sniff and dispatch; CUDALOAD_E_UNSUPPORTED for anything else. */
int cl_binary_parse(const cl_reader *r, const char *name, cl_binary_info *out);

/* Open a file with cl_os_file_open (refusing folders, FIFOs and devices without
 * blocking) and cl_binary_parse it; messages are prefixed with the path.
 * Implemented in binary_file.c. */
int cl_binary_parse_file(const char *path, cl_binary_info *out);
/* Its answer form (common/error.h), for a caller to whom an unreadable
 * file tells nothing: the same status, no last error written. */
int cl_binary_parse_file_quiet(const char *path, cl_binary_info *out);

void cl_binary_info_free(cl_binary_info *info);

#endif
