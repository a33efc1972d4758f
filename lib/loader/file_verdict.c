/* SPDX-License-Identifier: MIT */
/*
 * file_verdict.c - what the loader makes of a file it meets (file_verdict.h):
 * the header checks of glibc's open_verify for ELF, the image check of the
 * Windows loader for PE. Its own file because it is a question about one
 * file, asked for every candidate of every search (resolve.c's try_file),
 * and answered from the file's headers alone, with nothing of the search
 * in it.
 */
#include "loader/file_verdict.h"

#include "cudaload.h"
#include "binary/binary.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *elf_machine_text(unsigned machine) {
  switch (machine) {
  case 3:
    return "i386";
  case 8:
    return "mips";
  case 20:
    return "ppc";
  case 21:
    return "ppc64";
  case 22:
    return "s390";
  case 40:
    return "arm";
  case 62:
    return "x86_64";
  case 183:
    return "aarch64";
  case 243:
    return "riscv";
  default:
    return NULL;
  }
}

static const char *pe_machine_text(unsigned machine) {
  switch (machine) {
  case 0x14c:
    return "i386";
  case 0x8664:
    return "x64";
  case 0xaa64:
    return "arm64";
  case 0x1c4:
    return "arm";
  default:
    return NULL;
  }
}

static unsigned read_u16(const unsigned char *p, int big_endian) {
  return big_endian ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

static uint32_t read_u32(const unsigned char *p, int big_endian) {
  return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                          (uint32_t)p[2] << 8 | p[3]
                    : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
                          (uint32_t)p[1] << 8 | p[0];
}

/* The first bytes of a candidate as the loader reads them (52 for 32-bit,
 * 64 for 64-bit): CL_FILE_TAKEN when h holds them, else the file's
 * verdict (missing, a folder, unopenable, short). */
static cl_file_verdict elf_read_header(const cl_loader_model *m,
                                       const char *file, unsigned char h[64],
                                       char **why) {
  size_t want = m->bits == 32 ? 52 : 64;
  /* One stat, and the first bytes read once per run (file_cache.c). */
  cl_file_head head;
  cl_file_cache_head(m->files, file, h, want, &head);
  if (head.kind == CL_KIND_MISSING)
    return CL_FILE_ABSENT;
  if (head.kind == CL_KIND_DIRECTORY) {
    *why = cl_strdup(CL_WORDS_A_FOLDER_CANNOT_READ_FILE);
    return CL_FILE_FATAL;
  }
  if (head.kind != CL_KIND_REGULAR) {
    *why = cl_strdup(CL_WORDS_NOT_A_REGULAR_FILE_THE);
    return CL_FILE_FATAL;
  }
  /* A file that cannot be opened or read is a verdict, not a failure. */
  if (!head.opened) {
    *why = cl_strdup(CL_WORDS_CANNOT_BE_OPENED_THE_LOADER);
    return CL_FILE_SKIPPED;
  }
  if (!head.read_ok || head.got < want) {
    *why = cl_strdup(!head.read_ok ? CL_WORDS_CANNOT_READ_FILE_DATA_THE
                                   : CL_WORDS_FILE_TOO_SHORT_THE_LOAD);
    return CL_FILE_FATAL;
  }
  return CL_FILE_TAKEN;
}

/* e_ident: the magic, then the class (another is passed over), the byte
 * order, the version, the OS ABI and the padding (any wrong one fails the
 * load). CL_FILE_TAKEN when all are right. */
static cl_file_verdict elf_ident_verdict(const cl_loader_model *m,
                                         const unsigned char *h, char **why) {
  if (memcmp(h, "\177ELF", 4) != 0) {
    *why = cl_strdup(CL_WORDS_INVALID_ELF_HEADER_THE_LOAD);
    return CL_FILE_FATAL;
  }
  int bits = h[4] == 1 ? 32 : h[4] == 2 ? 64 : 0;
  if (bits != m->bits) {
    *why = cl_strdup_printf(CL_WORDS_OTHER_ELF_CLASS_ELFCLASS_PASSED,
                            bits == 32   ? "32"
                            : bits == 64 ? "64"
                                         : "NONE");
    return CL_FILE_SKIPPED;
  }
  if ((h[5] != 1 && h[5] != 2) || (h[5] == 2) != m->big_endian) {
    *why = cl_strdup_printf(CL_WORDS_ELF_FILE_DATA_ENCODING_NOT,
                            m->big_endian ? "big" : "little");
    return CL_FILE_FATAL;
  }
  if (h[6] != 1) {
    *why = cl_strdup(CL_WORDS_ELF_FILE_VERSION_IDENT_DOES);
    return CL_FILE_FATAL;
  }
  /* Linux accepts the System V and GNU OS ABIs (MORE_ELF_HEADER_DATA). */
  if (h[7] != 0 && h[7] != 3) {
    *why = cl_strdup(CL_WORDS_ELF_FILE_OS_ABI_INVALID);
    return CL_FILE_FATAL;
  }
  if (h[7] == 0 && h[8] != 0) {
    *why = cl_strdup(CL_WORDS_ELF_FILE_ABI_VERSION_INVALID);
    return CL_FILE_FATAL;
  }
  for (int i = 9; i < 16; ++i) {
    if (h[i] != 0) {
      *why = cl_strdup(CL_WORDS_NONZERO_PADDING_IN_E_IDENT);
      return CL_FILE_FATAL;
    }
  }
  return CL_FILE_TAKEN;
}

/*
 * glibc's open_verify (elf/dl-load.c) on the header of a candidate file:
 * another ELF class, or another machine, is passed over (the search goes
 * on); anything else wrong (not ELF, the other byte order, a bad version,
 * OS ABI or padding, a type other than ET_DYN/ET_EXEC, a short file, a
 * folder) fails the whole load. The header is read here with the
 * platform's non-blocking open; the loader's own open of a FIFO would
 * block, which is reported as fatal rather than modelled.
 */
static cl_file_verdict elf_verdict(const cl_loader_model *m, const char *file,
                                   char **why) {
  unsigned char h[64];
  *why = NULL;
  cl_file_verdict v = elf_read_header(m, file, h, why);
  if (v == CL_FILE_TAKEN)
    v = elf_ident_verdict(m, h, why);
  if (v != CL_FILE_TAKEN)
    return v;
  int big = h[5] == 2;
  unsigned type = read_u16(h + 16, big);
  unsigned machine = read_u16(h + 18, big);
  if (read_u32(h + 20, big) != 1) {
    *why = cl_strdup(CL_WORDS_ELF_FILE_VERSION_DOES_NOT);
    return CL_FILE_FATAL;
  }
  if (machine != m->machine) {
    const char *name = elf_machine_text(machine);
    *why =
        name ? cl_strdup_printf(CL_WORDS_OTHER_MACHINE_PASSED_OVER, name)
             : cl_strdup_printf(CL_WORDS_OTHER_MACHINE_0X_PASSED_OVER, machine);
    return CL_FILE_SKIPPED;
  }
  if (type != 2 && type != 3) {
    *why = cl_strdup(CL_WORDS_ONLY_ET_DYN_AND_ET);
    return CL_FILE_FATAL;
  }
  unsigned phentsize = read_u16(h + (m->bits == 64 ? 54 : 42), big);
  if (phentsize != (m->bits == 64 ? 56u : 32u)) {
    *why = cl_strdup(CL_WORDS_ELF_FILE_S_PHENTSIZE_NOT);
    return CL_FILE_FATAL;
  }
  return CL_FILE_TAKEN;
}

/*
 * The Windows loader maps the first file of the name it finds: a folder or
 * a device of that name is not a file and the search goes on; a file that
 * is not an image, or one for another machine, ends the load with
 * ERROR_BAD_EXE_FORMAT (193) ("Dynamic-Link Library Search Order" lists
 * places, not checks: docs/loader.md, Windows 11), unless the model says
 * the host's loader passes over other machines (Wine).
 */
static cl_file_verdict pe_verdict(const cl_loader_model *m, const char *file,
                                  char **why) {
  *why = NULL;
  cl_file_kind kind = cl_os_stat_kind(file, NULL);
  if (kind == CL_KIND_MISSING || kind == CL_KIND_DIRECTORY ||
      kind == CL_KIND_OTHER)
    return CL_FILE_ABSENT;
  cl_binary_info info;
  memset(&info, 0, sizeof info);
  /* unreadable is a verdict, not a failure */
  int status = cl_file_cache_parse_quiet(m->files, file, &info);
  if (status != CUDALOAD_OK || info.format != CL_FORMAT_PE) {
    cl_binary_info_free(&info);
    *why = cl_strdup(CL_WORDS_NOT_A_VALID_IMAGE_THE);
    return CL_FILE_FATAL;
  }
  unsigned machine = info.machine;
  cl_binary_info_free(&info);
  if (machine != m->machine) {
    const char *name = pe_machine_text(machine);
    char *what =
        name ? cl_strdup_printf(CL_WORDS_FOR_ANOTHER_MACHINE, name)
             : cl_strdup_printf(CL_WORDS_FOR_ANOTHER_MACHINE_0X, machine);
    if (m->other_machine_skipped) {
      *why = what ? cl_strdup_printf("%s: passed over", what) : NULL;
      free(what);
      return CL_FILE_SKIPPED;
    }
    *why = what ? cl_strdup_printf(CL_WORDS_THE_LOAD_FAILS_193, what) : NULL;
    free(what);
    return CL_FILE_FATAL;
  }
  return CL_FILE_TAKEN;
}

cl_file_verdict cl_file_verdict_of(const cl_loader_model *m, const char *file,
                                   char **why) {
  return m->naming == CL_NAMING_WINDOWS ? pe_verdict(m, file, why)
                                        : elf_verdict(m, file, why);
}
