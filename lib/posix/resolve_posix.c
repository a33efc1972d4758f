/* SPDX-License-Identifier: MIT */
/*
 * resolve_posix.c - the host's facts for the loader model (os/loader.h) on
 * Linux with glibc: the default folders, the hwcaps subfolders, what $LIB
 * and $PLATFORM expand to, and this process's loaded objects with their
 * SONAMEs, all found without loading or opening any library
 * (docs/loader.md, Linux 19).
 *
 * glibc keeps these facts inside ld.so. What a public interface tells is
 * taken from it (dlinfo RTLD_DI_SERINFO lists the default folders,
 * dl_iterate_phdr the loaded objects and their dynamic sections, getauxval
 * AT_SECURE and AT_PLATFORM); the rest is computed as ld.so computes it
 * (the x86-64 ISA levels and platform name from CPUID, as
 * sysdeps/x86/cpu-features.c does), and the differential tests compare
 * the result with ld.so's own LD_DEBUG output.
 */
#include "loader/loader_model.h"

#include "cudaload.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "posix/posix_answer.h"
#include "common/strutil.h"

#include <dlfcn.h>
#include <pthread.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* ------------------------------------------------------------------------ */
/* Loaded objects, read from memory                                         */
/* ------------------------------------------------------------------------ */

/* What the dynamic section of a loaded object says, copied out. */
typedef struct object_facts {
  char *name;   /* dlpi_name: glibc's l_name ("" for the executable) */
  char *soname; /* NULL when none */
  char *rpath, *runpath;
  int nodeflib;
} object_facts;

typedef struct object_list {
  object_facts *items;
  size_t count, capacity;
  int failed;
} object_list;

static void object_list_free(object_list *l) {
  for (size_t i = 0; i < l->count; ++i) {
    free(l->items[i].name);
    free(l->items[i].soname);
    free(l->items[i].rpath);
    free(l->items[i].runpath);
  }
  free(l->items);
  memset(l, 0, sizeof *l);
}

/* Whether [addr, addr+len) lies inside one of the object's PT_LOAD
 * segments: the only memory the strings may be read from. */
static int in_segment(const struct dl_phdr_info *info, uintptr_t addr,
                      size_t len) {
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
    uintptr_t end = start + (uintptr_t)ph->p_memsz;
    if (addr >= start && addr <= end && len <= end - addr)
      return 1;
  }
  return 0;
}

/* A string of the dynamic string table, copied; NULL when the offset is
 * outside the table. */
static char *dynamic_string(const struct dl_phdr_info *info, uintptr_t table,
                            size_t table_size, size_t offset) {
  if (!table || offset >= table_size)
    return NULL;
  const char *s = (const char *)(table + offset);
  size_t max = table_size - offset;
  size_t n = strnlen(s, max);
  if (n == max)
    return NULL;
  (void)info;
  return cl_strndup(s, n);
}

/*
 * The SONAME, RPATH, RUNPATH and DF_1_NODEFLIB of a loaded object, from
 * its dynamic section in memory: no file is opened (a planted FIFO cannot
 * block this) and nothing is loaded. glibc relocates the section's
 * addresses in place on most targets (DT_STRTAB then holds an address),
 * not on others (an offset from the load address): whichever of the two
 * lies in the object's own segments is taken.
 */
static void read_dynamic(const struct dl_phdr_info *info, object_facts *f) {
  const ElfW(Dyn) *dyn = NULL;
  size_t dyn_size = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dyn = (const ElfW(Dyn) *)((uintptr_t)info->dlpi_addr +
                                (uintptr_t)info->dlpi_phdr[i].p_vaddr);
      dyn_size = (size_t)info->dlpi_phdr[i].p_memsz;
    }
  }
  if (!dyn || !in_segment(info, (uintptr_t)dyn, dyn_size))
    return;
  uintptr_t strtab = 0;
  size_t strsz = 0;
  long soname = -1, rpath = -1, runpath = -1;
  for (size_t k = 0; k < dyn_size / sizeof *dyn && dyn[k].d_tag != DT_NULL;
       ++k) {
    switch (dyn[k].d_tag) {
    case DT_STRTAB:
      strtab = (uintptr_t)dyn[k].d_un.d_ptr;
      break;
    case DT_STRSZ:
      strsz = (size_t)dyn[k].d_un.d_val;
      break;
    case DT_SONAME:
      soname = (long)dyn[k].d_un.d_val;
      break;
    case DT_RPATH:
      rpath = (long)dyn[k].d_un.d_val;
      break;
    case DT_RUNPATH:
      runpath = (long)dyn[k].d_un.d_val;
      break;
    case DT_FLAGS_1:
      f->nodeflib = (dyn[k].d_un.d_val & DF_1_NODEFLIB) != 0;
      break;
    default:
      break;
    }
  }
  if (!strtab || !strsz)
    return;
  if (!in_segment(info, strtab, strsz)) {
    strtab += (uintptr_t)info->dlpi_addr;
    if (!in_segment(info, strtab, strsz))
      return;
  }
  if (soname >= 0)
    f->soname = dynamic_string(info, strtab, strsz, (size_t)soname);
  if (rpath >= 0)
    f->rpath = dynamic_string(info, strtab, strsz, (size_t)rpath);
  if (runpath >= 0)
    f->runpath = dynamic_string(info, strtab, strsz, (size_t)runpath);
}

static int is_kernel_object(const char *name) {
  return strncmp(name, "linux-vdso", 10) == 0 ||
         strncmp(name, "linux-gate", 10) == 0;
}

/* dl_iterate_phdr's callback runs under the loader's lock: only copies are
 * made here, nothing is looked up. */
static int collect_object(struct dl_phdr_info *info, size_t size,
                          void *opaque) {
  (void)size;
  object_list *l = opaque;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  if (is_kernel_object(name))
    return 0;
  if (cl_reserve((void **)&l->items, &l->capacity, l->count + 1,
                 sizeof *l->items) != CUDALOAD_OK) {
    l->failed = 1;
    return 1;
  }
  object_facts *f = &l->items[l->count];
  memset(f, 0, sizeof *f);
  f->name = cl_strdup(name);
  if (!f->name) {
    l->failed = 1;
    return 1;
  }
  read_dynamic(info, f);
  l->count++;
  return 0;
}

/* CUDALOAD_OK, or CUDALOAD_E_NO_MEMORY with no error set: for
 * cl_os_loader_find_loaded_by_soname a list that could not be made is an
 * answer ("not loaded"); the callers that fail say so themselves. */
static int collect_objects(object_list *l) {
  memset(l, 0, sizeof *l);
  dl_iterate_phdr(collect_object, l);
  if (l->failed) {
    object_list_free(l);
    return CUDALOAD_E_NO_MEMORY;
  }
  return CUDALOAD_OK;
}

static char *executable_path(void) {
  return realpath("/proc/self/exe", NULL);
}

/*
 * The loaded object known by `name`, as glibc's own name match sees it
 * (its l_name, or its SONAME; a name holding '/' also matches the object
 * loaded from that file), found without dlopen: dlopen(name, RTLD_NOLOAD)
 * would search LD_LIBRARY_PATH and RUNPATH for a name that is not loaded,
 * opening every candidate, and a FIFO planted there would block it. The
 * names glibc also remembers (each name an object was opened by) are not
 * visible outside ld.so; for libraries those are their SONAMEs.
 */
char *cl_os_loader_find_loaded_by_soname(const char *name) {
  if (!name || !name[0])
    return NULL;
  object_list l;
  if (collect_objects(&l) != CUDALOAD_OK)
    return NULL;
  char *found = NULL;
  for (size_t i = 0; i < l.count && !found; ++i) {
    const object_facts *f = &l.items[i];
    if (!f->name[0])
      continue; /* the executable is not a library anyone names */
    if (strcmp(f->name, name) == 0 ||
        (f->soname && strcmp(f->soname, name) == 0)) {
      /* The canonical file, or the loader's own name for one that no
       * longer resolves (deleted or replaced since). */
      found = realpath(f->name, NULL);
      if (!found)
        found = cl_strdup(f->name);
    }
  }
  if (!found && strchr(name, '/')) {
    /* The same file under another spelling: compared by identity, as
     * glibc compares st_dev/st_ino. */
    struct stat want;
    if (stat(name, &want) == 0) {
      for (size_t i = 0; i < l.count && !found; ++i) {
        struct stat have;
        if (l.items[i].name[0] && stat(l.items[i].name, &have) == 0 &&
            have.st_dev == want.st_dev && have.st_ino == want.st_ino)
          found = realpath(l.items[i].name, NULL);
      }
    }
  }
  object_list_free(&l);
  return found;
}

int cl_os_file_identity(const char *path, cl_file_identity *out) {
  struct stat st;
  if (!path || !out)
    return 0;
  int found = stat(path, &st) == 0;
  cl_posix_note_stat(CL_ASK_STAT, path, found ? &st : NULL);
  if (!found)
    return 0;
  out->device = (uint64_t)st.st_dev;
  out->inode = (uint64_t)st.st_ino;
  return 1;
}

/* ------------------------------------------------------------------------ */
/* The machine                                                              */
/* ------------------------------------------------------------------------ */

/* Class, byte order and machine of this process from its executable's
 * header (exact for x32 and the like): 1, or 0 when it cannot be read. */
/* The executable's header, read once per process: it is the same file for
 * the life of the process, and each loader model asks. */
static pthread_once_t exe_header_once = PTHREAD_ONCE_INIT;
static unsigned char exe_header[20];
static int exe_header_read;

static void read_exe_header(void) {
  cl_file *f = NULL;
  size_t got = 0;
  /* An unreadable /proc is an answer here ("use the build's target"): the
   * answer forms read it, writing no error. */
  if (cl_os_file_open_quiet("/proc/self/exe", &f, NULL, NULL) == CUDALOAD_OK) {
    exe_header_read =
        cl_os_file_read_upto_quiet(f, 0, exe_header, sizeof exe_header, &got,
                                   NULL) == CUDALOAD_OK &&
        got == sizeof exe_header && memcmp(exe_header, ELFMAG, SELFMAG) == 0;
    cl_os_file_close(f);
  }
}

static int executable_machine(cl_loader_model *m) {
  pthread_once(&exe_header_once, read_exe_header);
  if (!exe_header_read)
    return 0;
  const unsigned char *h = exe_header;
  m->bits = h[EI_CLASS] == ELFCLASS32 ? 32 : 64;
  m->big_endian = h[EI_DATA] == ELFDATA2MSB;
  m->machine = m->big_endian ? (unsigned)h[18] << 8 | h[19]
                             : (unsigned)h[19] << 8 | h[18];
  return 1;
}

/* Class, byte order and machine of this process: its executable's, or the
 * build's target. */
static void host_machine(cl_loader_model *m) {
  if (executable_machine(m))
    return;
  m->bits = (int)(sizeof(void *) * 8);
  m->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
#if defined(__x86_64__)
  m->machine = EM_X86_64;
#elif defined(__i386__)
  m->machine = EM_386;
#elif defined(__aarch64__)
  m->machine = EM_AARCH64;
#elif defined(__arm__)
  m->machine = EM_ARM;
#elif defined(__powerpc64__)
  m->machine = EM_PPC64;
#elif defined(__s390x__)
  m->machine = EM_S390;
#else
  m->machine = 0;
#endif
}

/* ------------------------------------------------------------------------ */
/* hwcaps subfolders and $PLATFORM                                          */
/* ------------------------------------------------------------------------ */

/* glibc's version as a number (2.36 -> 236), 0 when not glibc. */
static int glibc_version(void) {
#ifdef __GLIBC__
  int major = 0, minor = 0;
  if (sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) == 2)
    return major * 100 + minor;
#endif
  return 0;
}

/* What ld.so derives from the CPU (sysdeps/x86/cpu-features.c,
 * get-isa-level.h): "usable" features (the OS saves the AVX and AVX-512
 * state), the x86-64 ISA levels, the legacy platform and hwcap bits. */
typedef struct cpu_facts {
  int level;                     /* 1 baseline, 2, 3, 4: x86-64-vN */
  const char *platform_override; /* "haswell", "xeon_phi" or NULL */
  int avx512_1;
} cpu_facts;

#if defined(__x86_64__)
static uint64_t read_xcr0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t)hi << 32 | lo;
}

static void x86_cpu(cpu_facts *c) {
  unsigned a, b, cx, d;
  unsigned max = 0, ecx1 = 0, edx1 = 0, ebx7 = 0, ecx81 = 0;
  char vendor[13] = {0};
  memset(c, 0, sizeof *c);
  if (!__get_cpuid(0, &a, &b, &cx, &d))
    return;
  max = a;
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &d, 4);
  memcpy(vendor + 8, &cx, 4);
  if (__get_cpuid(1, &a, &b, &cx, &d)) {
    ecx1 = cx;
    edx1 = d;
  }
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, cx, d);
    ebx7 = b;
  }
  if (__get_cpuid(0x80000001u, &a, &b, &cx, &d))
    ecx81 = cx;
  uint64_t xcr0 = (ecx1 >> 27 & 1) ? read_xcr0() : 0;
  int ymm = (xcr0 & 6) == 6;
  int zmm = ymm && (xcr0 & 0xe0) == 0xe0;
#define BIT(v, n) (((v) >> (n)) & 1u)
  int avx = BIT(ecx1, 28) && ymm, avx2 = BIT(ebx7, 5) && ymm;
  int fma = BIT(ecx1, 12) && ymm, f16c = BIT(ecx1, 29) && ymm;
  int lzcnt = BIT(ecx81, 5), movbe = BIT(ecx1, 22), popcnt = BIT(ecx1, 23);
  int bmi1 = BIT(ebx7, 3), bmi2 = BIT(ebx7, 8);
  int f512 = BIT(ebx7, 16) && zmm, dq = BIT(ebx7, 17) && zmm;
  int pf = BIT(ebx7, 26) && zmm, er = BIT(ebx7, 27) && zmm;
  int cd = BIT(ebx7, 28) && zmm, bw = BIT(ebx7, 30) && zmm;
  int vl = BIT(ebx7, 31) && zmm;
  int baseline = BIT(edx1, 15) && BIT(edx1, 8) && BIT(edx1, 0) &&
                 BIT(edx1, 24) && BIT(edx1, 23) && BIT(edx1, 25) &&
                 BIT(edx1, 26);
  int v2 = baseline && BIT(ecx1, 13) && BIT(ecx81, 0) && popcnt &&
           BIT(ecx1, 0) && BIT(ecx1, 9) && BIT(ecx1, 19) && BIT(ecx1, 20);
  int v3 = v2 && avx && avx2 && f16c && fma && lzcnt && movbe;
  int v4 = v3 && f512 && bw && cd && dq && vl;
#undef BIT
  c->level = v4 ? 4 : v3 ? 3 : v2 ? 2 : baseline ? 1 : 0;
  /* The legacy platform and AVX512_1 bit are set for Intel only. */
  if (strcmp(vendor, "GenuineIntel") == 0) {
    if (cd) {
      if (er) {
        if (pf)
          c->platform_override = "xeon_phi";
      } else if (bw && dq && vl) {
        c->avx512_1 = 1;
      }
    }
    if (!c->platform_override && avx2 && fma && bmi1 && bmi2 && lzcnt &&
        movbe && popcnt)
      c->platform_override = "haswell";
  }
}
#endif

/* $PLATFORM: GLRO(dl_platform), the kernel's AT_PLATFORM unless ld.so
 * replaced it (x86-64 Intel CPUs: "haswell", "xeon_phi"). */
static const char *platform_name(const cpu_facts *c) {
  if (c->platform_override)
    return c->platform_override;
  const char *p = (const char *)(uintptr_t)getauxval(AT_PLATFORM);
  return p && p[0] ? p : NULL;
}

/*
 * The subfolders glibc tries in every search folder, in its order
 * (elf/dl-hwcaps.c _dl_important_hwcaps): the glibc-hwcaps levels the CPU
 * supports, best first (glibc 2.33 and later); then, before glibc 2.37,
 * the legacy power set of {hwcap names, platform, "tls"}: every subset,
 * the set of all first, each written from "tls" down (the entry whose
 * subset is empty is the folder itself). Exact for x86-64; elsewhere the
 * legacy part uses AT_PLATFORM alone and the glibc-hwcaps part is empty.
 */
static int hwcaps_subdirs(cl_loader_model *m, const cpu_facts *c,
                          const char *platform, int version) {
  int status = CUDALOAD_OK;
  if (version >= 233) {
    for (int level = 4; level >= 2 && status == CUDALOAD_OK; --level) {
      if (c->level < level)
        continue;
      char sub[32];
      snprintf(sub, sizeof sub, "glibc-hwcaps/x86-64-v%d/", level);
      status = cl_loader_model_append(&m->hwcaps_subdirs,
                                      &m->hwcaps_subdir_count, sub);
    }
  }
  if (version != 0 && version < 237) {
    const char *parts[4];
    int count = 0;
#if defined(__x86_64__)
    parts[count++] = "x86_64"; /* HWCAP_X86_64, always set */
    if (c->avx512_1)
      parts[count++] = "avx512_1";
#endif
    if (platform)
      parts[count++] = platform;
    parts[count++] = "tls";
    for (int mask = (1 << count) - 1; mask >= 0 && status == CUDALOAD_OK;
         --mask) {
      char sub[128] = "";
      for (int i = count - 1; i >= 0; --i) {
        if (mask & (1 << i)) {
          strncat(sub, parts[i], sizeof sub - strlen(sub) - 1);
          strncat(sub, "/", sizeof sub - strlen(sub) - 1);
        }
      }
      status = cl_loader_model_append(&m->hwcaps_subdirs,
                                      &m->hwcaps_subdir_count, sub);
    }
  } else if (status == CUDALOAD_OK) {
    status =
        cl_loader_model_append(&m->hwcaps_subdirs, &m->hwcaps_subdir_count, "");
  }
  return status;
}

/* ------------------------------------------------------------------------ */
/* Default folders and $LIB                                                 */
/* ------------------------------------------------------------------------ */

/* The environment the process started with (/proc/self/environ), read once
 * per process: it never changes, and every model of the host asks it. */
static pthread_once_t startup_once = PTHREAD_ONCE_INIT;
static char *startup_environ; /* NUL-separated entries; NULL: unreadable */
static size_t startup_environ_len;

static void read_startup_environ(void) {
  /* An unreadable /proc is an answer here ("the environment as it is
   * now"): the answer forms read it, writing no error. */
  /* /proc files report a size of 0: read until the end. */
  cl_file *f = NULL;
  if (cl_os_file_open_quiet("/proc/self/environ", &f, NULL, NULL) ==
      CUDALOAD_OK) {
    size_t capacity = 0, len = 0;
    char *buf = NULL;
    int status = CUDALOAD_OK;
    for (;;) {
      size_t got = 0;
      if (cl_reserve((void **)&buf, &capacity, len + 65536, 1) != CUDALOAD_OK) {
        status = CUDALOAD_E_NO_MEMORY;
        break;
      }
      status = cl_os_file_read_upto_quiet(f, len, buf + len, 65536, &got, NULL);
      if (status != CUDALOAD_OK || got == 0)
        break;
      len += got;
    }
    cl_os_file_close(f);
    if (status == CUDALOAD_OK) {
      startup_environ = buf;
      startup_environ_len = len;
    } else {
      free(buf);
    }
  }
}

/* A variable as ld.so read it: from the environment the process started
 * with (a later setenv does not reach the loader); the environment as it
 * is now where /proc cannot tell. */
static char *startup_variable(const char *name) {
  pthread_once(&startup_once, read_startup_environ);
  if (startup_environ) {
    const char *buf = startup_environ;
    size_t len = startup_environ_len, key = strlen(name);
    for (size_t at = 0; at < len;) {
      const char *entry = buf + at;
      size_t n = strnlen(entry, len - at);
      if (n > key && strncmp(entry, name, key) == 0 && entry[key] == '=')
        return cl_strndup(entry + key + 1, n - key - 1);
      at += n + 1;
    }
    return NULL;
  }
  const char *v = getenv(name);
  return v ? cl_strdup(v) : NULL;
}

static char *startup_ld_library_path(void) {
  return startup_variable("LD_LIBRARY_PATH");
}

/* /etc/ld.so.preload's entries, or NULL when there is none: glibc loads
 * them after LD_PRELOAD's, in every process, secure ones too. Read once
 * per process, as glibc reads it once at its start: each loader model a
 * run makes (the plan's, each open's) asks. */
static pthread_once_t preload_once = PTHREAD_ONCE_INIT;
static char *preload_text; /* NULL: none, or unreadable */

static void read_system_preload(void) {
  /* no such file: an answer */
  size_t len = 0;
  if (cl_read_file_head_quiet("/etc/ld.so.preload", 65536, &preload_text,
                              &len) != CUDALOAD_OK)
    preload_text = NULL;
}

static char *system_preload(void) {
  pthread_once(&preload_once, read_system_preload);
  /* Out of memory: no entries, as when the file could not be read. */
  return preload_text ? cl_strdup(preload_text) : NULL;
}

/*
 * The default folders: dlinfo(RTLD_DI_SERINFO) on the executable's handle
 * lists its search path — its DT_RPATH (when it has no DT_RUNPATH),
 * LD_LIBRARY_PATH, its DT_RUNPATH, then the default folders (unless it has
 * DF_1_NODEFLIB) — so the default folders are what follows the first
 * three, counted as ld.so splits them. dlopen(NULL) opens no file.
 */
static int default_dirs(cl_loader_model *m, const object_facts *exe,
                        const char *llp, int secure,
                        cl_search_list_counter count_list) {
  void *self = dlopen(NULL, RTLD_LAZY);
  if (!self) {
    dlerror();
    return CUDALOAD_E_UNSUPPORTED;
  }
  Dl_serinfo size;
  Dl_serinfo *info = NULL;
  int status = CUDALOAD_E_UNSUPPORTED;
  if (dlinfo(self, RTLD_DI_SERINFOSIZE, &size) == 0 &&
      (info = malloc(size.dls_size)) != NULL) {
    info->dls_size = size.dls_size;
    info->dls_cnt = size.dls_cnt;
    if (dlinfo(self, RTLD_DI_SERINFO, info) == 0) {
      size_t skip = 0;
      if (exe && !(exe->runpath && exe->runpath[0]))
        skip += count_list(m, exe ? exe->rpath : NULL, ":");
      if (!secure)
        skip += count_list(m, llp, ":;");
      if (exe)
        skip += count_list(m, exe->runpath, ":");
      if (exe && exe->nodeflib)
        skip = info->dls_cnt; /* not listed: fall back */
      status = skip < info->dls_cnt ? CUDALOAD_OK : CUDALOAD_E_UNSUPPORTED;
      for (size_t i = skip; i < info->dls_cnt && status == CUDALOAD_OK; ++i)
        status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                        info->dls_serpath[i].dls_name);
    }
  }
  dlerror();
  free(info);
  dlclose(self);
  return status;
}

static void free_default_dirs(cl_loader_model *m) {
  for (size_t i = 0; i < m->default_dir_count; ++i)
    free(m->default_dirs[i]);
  free(m->default_dirs);
  m->default_dirs = NULL;
  m->default_dir_count = 0;
}

/* Where the default folders cannot be read (an executable with
 * DF_1_NODEFLIB hides them): the layouts glibc is built with. */
static int guess_default_dirs(cl_loader_model *m) {
  static const char *const multiarch[] = {
#if defined(__x86_64__) && !defined(__ILP32__)
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
#endif
    NULL
  };
  int status = CUDALOAD_OK;
  if (multiarch[0] &&
      cl_os_stat_kind(multiarch[0], NULL) == CL_KIND_DIRECTORY) {
    for (size_t i = 0; multiarch[i] && status == CUDALOAD_OK; ++i)
      status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                      multiarch[i]);
    if (status == CUDALOAD_OK)
      status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                      "/lib");
    if (status == CUDALOAD_OK)
      status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                      "/usr/lib");
  } else if (sizeof(void *) == 8 &&
             cl_os_stat_kind("/lib64", NULL) == CL_KIND_DIRECTORY &&
             cl_os_stat_kind("/usr/lib64", NULL) == CL_KIND_DIRECTORY) {
    status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                    "/lib64");
    if (status == CUDALOAD_OK)
      status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                      "/usr/lib64");
  } else {
    status =
        cl_loader_model_append(&m->default_dirs, &m->default_dir_count, "/lib");
    if (status == CUDALOAD_OK)
      status = cl_loader_model_append(&m->default_dirs, &m->default_dir_count,
                                      "/usr/lib");
  }
  return status;
}

/* $LIB is glibc's DL_DST_LIB, the last component of its slibdir (elf/
 * Makefile), which is the first default folder ("/lib64" -> "lib64",
 * "/usr/lib" -> "lib"); Debian's multiarch build makes it
 * "lib/<triplet>" (LD_DEBUG shows "/x/lib/x86_64-linux-gnu" for "/x/$LIB"),
 * so a triplet keeps its parent. */
static char *lib_token(const cl_loader_model *m) {
  if (!m->default_dir_count)
    return NULL;
  const char *first = m->default_dirs[0];
  const char *last = strrchr(first, '/');
  if (!last || !last[1])
    return NULL;
  if (strstr(last + 1, "-linux-") && last > first) {
    const char *parent = last - 1;
    while (parent > first && *parent != '/')
      --parent;
    return cl_strdup(*parent == '/' ? parent + 1 : parent);
  }
  return cl_strdup(last + 1);
}

/* ------------------------------------------------------------------------ */
/* The seam                                                                 */
/* ------------------------------------------------------------------------ */

int cl_os_loader_defaults(cl_loader_model *m, cl_search_list_counter count) {
  cl_loader_model_init(m, CL_NAMING_LINUX);
  host_machine(m);
  int status = CUDALOAD_OK;
  if (cl_os_stat_kind("/etc/ld.so.cache", NULL) == CL_KIND_REGULAR)
    status = cl_loader_model_set(&m->ld_so_cache, "/etc/ld.so.cache");
  if (status == CUDALOAD_OK)
    m->system_preload = system_preload();

  cpu_facts cpu;
  memset(&cpu, 0, sizeof cpu);
#if defined(__x86_64__)
  x86_cpu(&cpu);
#endif
  const char *platform = platform_name(&cpu);
  if (status == CUDALOAD_OK)
    status = cl_loader_model_set(&m->platform_token, platform);
  if (status == CUDALOAD_OK)
    status = hwcaps_subdirs(m, &cpu, platform, glibc_version());

  /* The default folders need the executable's lists and LD_LIBRARY_PATH
   * to be told apart from them; $LIB is unknown until they are read, and
   * any value counts the same. */
  object_list objects;
  memset(&objects, 0, sizeof objects);
  if (status == CUDALOAD_OK)
    status = collect_objects(&objects);
  if (status == CUDALOAD_OK) {
    const object_facts *exe = NULL;
    for (size_t i = 0; i < objects.count && !exe; ++i)
      if (!objects.items[i].name[0])
        exe = &objects.items[i];
    char *llp = startup_ld_library_path();
    char *exe_path = executable_path();
    m->exe_path = exe_path; /* for $ORIGIN while counting */
    m->lib_token = cl_strdup("lib");
    int secure = getauxval(AT_SECURE) != 0;
    if (default_dirs(m, exe, llp, secure, count) != CUDALOAD_OK ||
        m->default_dir_count == 0) {
      free_default_dirs(m);
      status = guess_default_dirs(m);
    }
    free(m->lib_token);
    m->lib_token = lib_token(m);
    m->exe_path = NULL;
    free(exe_path);
    free(llp);
  }
  object_list_free(&objects);
  if (status != CUDALOAD_OK)
    return cl_fail(status, "cannot read the dynamic loader's search places");
  return CUDALOAD_OK;
}

int cl_os_loader_process(cl_loader_model *m) {
  object_list objects;
  int status = collect_objects(&objects);
  if (status != CUDALOAD_OK)
    return cl_fail(status, "out of memory");
  char *exe = executable_path();
  char *cwd = getcwd(NULL, 0);
  status = cl_loader_model_set(&m->exe_path, exe);
  if (status == CUDALOAD_OK)
    status = cl_loader_model_set(&m->current_dir, cwd);
  free(cwd);
  m->secure = getauxval(AT_SECURE) != 0;
  if (status == CUDALOAD_OK) {
    free(m->ld_library_path);
    m->ld_library_path = startup_ld_library_path();
    free(m->ld_preload);
    /* A secure process ignores LD_PRELOAD but for trusted names; the
     * objects it did load are in the list below all the same. */
    m->ld_preload = startup_variable("LD_PRELOAD");
  }
  for (size_t i = 0; i < objects.count && status == CUDALOAD_OK; ++i) {
    const object_facts *f = &objects.items[i];
    if (!f->name[0]) {
      /* The executable: its DT_RPATH counts for every search that reaches
       * the end of a chain; with DT_RUNPATH it has none. */
      if (!(f->runpath && f->runpath[0]) && f->rpath && f->rpath[0])
        status = cl_loader_model_set(&m->exe_rpath, f->rpath);
      if (status == CUDALOAD_OK && exe)
        status = cl_loader_model_add_loaded(m, exe, f->soname);
      continue;
    }
    status = cl_loader_model_add_loaded(m, f->name, f->soname);
  }
  free(exe);
  object_list_free(&objects);
  return status;
}
