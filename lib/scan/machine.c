/* SPDX-License-Identifier: MIT */
/* machine.c - the machine of a library file and of a plan (machine.h). */
#include "scan/machine.h"
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

const char *cl_file_machine_name(const char *path) {
  cl_file *f = NULL;
  uint64_t size = 0;
  unsigned char head[64];
  const char *name = NULL;
  /* An unreadable file only has no machine: the answer forms write no
   * error. */
  if (cl_os_file_open_quiet(path, &f, &size, NULL) == CUDALOAD_OK &&
      size >= sizeof head &&
      cl_os_file_read_at_quiet(f, 0, head, sizeof head, NULL) == CUDALOAD_OK) {
    if (memcmp(head, "\177ELF", 4) == 0) {
      int big = head[5] == 2;
      unsigned m = big ? (unsigned)head[18] << 8 | head[19]
                       : (unsigned)head[19] << 8 | head[18];
      name = elf_machine(m, head[4] == 2, big);
    } else if (head[0] == 'M' && head[1] == 'Z') {
      uint32_t pe = (uint32_t)head[0x3c] | (uint32_t)head[0x3d] << 8 |
                    (uint32_t)head[0x3e] << 16 | (uint32_t)head[0x3f] << 24;
      unsigned char sig[6];
      if ((uint64_t)pe + sizeof sig <= size &&
          cl_os_file_read_at_quiet(f, pe, sig, sizeof sig, NULL) ==
              CUDALOAD_OK &&
          memcmp(sig, "PE\0\0", 4) == 0)
        name = pe_machine((unsigned)sig[4] | (unsigned)sig[5] << 8);
    }
  }
  if (f)
    cl_os_file_close(f);
  return name;
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

const char *cl_library_machine(cl_library *lib) {
  if (!lib->machine_read) {
    lib->machine = cl_file_machine_name(lib->path);
    lib->machine_read = 1;
  }
  return lib->machine;
}
