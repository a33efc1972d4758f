/* SPDX-License-Identifier: MIT */
/* machine.c - the machine of a library file and of a plan (machine.h). */
#include "scan/machine.h"
#include "binary/file_cache.h"
#include "core/context.h"
#include "common/error.h"
#include "os/platform.h"

#include <stdint.h>
#include <string.h>

/* The names match those `cudaload inspect` gives (elf.c, pe.c). */
static const char *elf_machine(unsigned machine, int is64, int big_endian) {
  switch (machine) {
  case 62:
    return "x86_64";
  case 3:
    return "i386";
  case 183:
    return "aarch64";
  case 40:
    return "arm";
  case 21:
    return big_endian ? "ppc64" : "ppc64le";
  case 22:
    return is64 ? "s390x" : "s390";
  case 243:
    return is64 ? "riscv64" : "riscv32";
  default:
    return "unknown";
  }
}

static const char *pe_machine(unsigned machine) {
  switch (machine) {
  case 0x8664u:
    return "x86_64";
  case 0x14cu:
    return "i386";
  case 0xaa64u:
    return "aarch64";
  case 0x1c4u:
    return "arm";
  default:
    return "unknown";
  }
}

/* The machine in a file's first 64 bytes: an ELF header's (1, *name set),
 * or, for a PE file, 0 with *pe its header's offset (the machine is
 * there); -1 when neither. */
static int machine_in_head(const unsigned char *head, const char **name,
                           uint32_t *pe) {
  if (memcmp(head, "\177ELF", 4) == 0) {
    int big = head[5] == 2;
    unsigned m = big ? (unsigned)head[18] << 8 | head[19]
                     : (unsigned)head[19] << 8 | head[18];
    *name = elf_machine(m, head[4] == 2, big);
    return 1;
  }
  if (head[0] == 'M' && head[1] == 'Z') {
    *pe = (uint32_t)head[0x3c] | (uint32_t)head[0x3d] << 8 |
          (uint32_t)head[0x3e] << 16 | (uint32_t)head[0x3f] << 24;
    return 0;
  }
  return -1;
}

/* The machine of a PE file whose header is at offset pe. */
static const char *pe_machine_at(cl_file *f, uint64_t size, uint32_t pe) {
  unsigned char sig[6];
  if ((uint64_t)pe + sizeof sig <= size &&
      cl_os_file_read_at_quiet(f, pe, sig, sizeof sig, NULL) == CUDALOAD_OK &&
      memcmp(sig, "PE\0\0", 4) == 0)
    return pe_machine((unsigned)sig[4] | (unsigned)sig[5] << 8);
  return NULL;
}

const char *cl_file_machine_name(const char *path) {
  cl_file *f = NULL;
  uint64_t size = 0;
  unsigned char head[64];
  const char *name = NULL;
  uint32_t pe = 0;
  /* An unreadable file only has no machine: the answer forms write no
   * error. */
  if (cl_os_file_open_quiet(path, &f, &size, NULL) == CUDALOAD_OK &&
      size >= sizeof head &&
      cl_os_file_read_at_quiet(f, 0, head, sizeof head, NULL) == CUDALOAD_OK &&
      machine_in_head(head, &name, &pe) == 0)
    name = pe_machine_at(f, size, pe);
  if (f)
    cl_os_file_close(f);
  return name;
}

/* The same through the run's file cache (binary/file_cache.h): the first
 * bytes it keeps, so that an ELF file is not opened again for this
 * question. */
static const char *cached_machine_name(cl_file_cache *c, const char *path) {
  unsigned char head[64];
  cl_file_head got;
  cl_file_cache_head(c, path, head, sizeof head, &got);
  const char *name = NULL;
  uint32_t pe = 0;
  if (got.kind != CL_KIND_REGULAR || !got.opened || !got.read_ok ||
      got.got < sizeof head || got.size < sizeof head)
    return NULL;
  /* A PE file's machine is past the first bytes: read where it is. */
  return machine_in_head(head, &name, &pe) != 0 ? name
                                                : cl_file_machine_name(path);
}

const char *cl_ctx_machine(const cudaload_ctx *ctx) {
  switch (ctx->target) {
  case CUDALOAD_TARGET_LINUX_X86_64:
  case CUDALOAD_TARGET_WINDOWS_X86_64:
    return "x86_64";
  case CUDALOAD_TARGET_LINUX_AARCH64:
  case CUDALOAD_TARGET_WINDOWS_ARM64:
    return "aarch64";
  case CUDALOAD_TARGET_HOST:
    return cl_os_host_machine();
  default: /* the plain LINUX or WINDOWS target: the host's own, or any */
    return ctx->target == cl_os_host_target() ? cl_os_host_machine() : NULL;
  }
}

const char *cl_library_machine(const cudaload_ctx *ctx, cl_library *lib) {
  if (!lib->machine_read) {
    lib->machine = ctx && ctx->file_cache
                       ? cached_machine_name(ctx->file_cache, lib->path)
                       : cl_file_machine_name(lib->path);
    lib->machine_read = 1;
  }
  return lib->machine;
}
