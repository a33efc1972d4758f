/* SPDX-License-Identifier: MIT */
/*
 * ldcache.c - read glibc's ld.so.cache without running `ldconfig -p`.
 *
 * Layout (glibc's elf/cache.c and sysdeps/generic/dl-cache.h describe it):
 *
 * New format, "glibc-ld.so.cache" "1.1":
 *   header (48 bytes): magic[17] version[3] nlibs:u32 len_strings:u32
 *                      flags:u8 pad[3] extension_offset:u32 unused[3]:u32
 *   nlibs entries (24 bytes): flags:i32 key:u32 value:u32 osversion:u32
 *                             hwcap:u64
 *   key and value are offsets of NUL-terminated strings, counted from the
 *   start of the new-format header (the start of the file when it stands
 *   alone).
 *
 * Old format, "ld.so-1.7.0":
 *   header (16 bytes): magic[11] pad[1] nlibs:u32
 *   nlibs entries (12 bytes): flags:i32 key:u32 value:u32
 *   then, aligned to the alignment of the new entry (8, or 4 on i386), a
 *   complete new-format cache, hidden in what old readers take for the
 *   string table. Old-format keys count from the end of the old entries.
 *
 * All numbers are in the byte order of the machine that wrote the cache,
 * which is the host's; the new header's flags say which it was.
 */
#include "scan/ldcache.h"

#include "binary/binary.h"
#include "binary/binary_internal.h"
#include "common/error.h"
#include "os/platform.h"

#include "cudaload.h"
#include "binary/file_cache.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CL_LDCACHE_OLD_MAGIC "ld.so-1.7.0"
#define CL_LDCACHE_OLD_MAGIC_LEN 11u
#define CL_LDCACHE_NEW_MAGIC "glibc-ld.so.cache"
#define CL_LDCACHE_NEW_MAGIC_LEN 17u
#define CL_LDCACHE_NEW_VERSION "1.1"
#define CL_LDCACHE_NEW_VERSION_LEN 3u
#define CL_LDCACHE_OLD_HEADER 16u
#define CL_LDCACHE_OLD_ENTRY 12u
#define CL_LDCACHE_NEW_HEADER 48u
#define CL_LDCACHE_NEW_ENTRY 24u
/* A key or path, its NUL included, may be at most PATH_MAX bytes. */
#define CL_LDCACHE_MAX_STRING 4096u
/* Real caches hold a few thousand entries in well under a megabyte; the
 * whole file is read at once, so refuse the implausible. */
#define CL_LDCACHE_MAX_FILE (64u * 1024u * 1024u)

/* The flags of entries the host's dynamic loader would use: libc6 ELF
 * libraries of the host's ABI (FLAG_ELF_LIBC6 0x0003 plus the ABI bits). */
#define CL_LDCACHE_FLAG_ELF_LIBC6 0x0003
#define CL_LDCACHE_FLAGS_X8664_LIBX32 0x0803
#define CL_LDCACHE_FLAGS_X8664_LIB64 0x0303
#define CL_LDCACHE_FLAGS_AARCH64_LIB64 0x0a03

/* The endianness bits of the new header's flags byte. */
#define CL_LDCACHE_ENDIAN_MASK 3u
#define CL_LDCACHE_ENDIAN_LITTLE 2u
#define CL_LDCACHE_ENDIAN_BIG 3u

typedef struct cl_ldcache {
  cl_binary_source src;
  cl_ldcache_visitor visit;
  void *opaque;
  int32_t host_flags; /* ldcache_host_flags(), asked once per parse */
} cl_ldcache;

/* The flags of the host's ABI (the seam's machine; x32 is x86_64 code with
 * 32-bit pointers), or 0 where any libc6 entry is taken. */
static int32_t ldcache_host_flags(void) {
  const char *machine = cl_os_host_machine();
  if (machine && strcmp(machine, "x86_64") == 0)
    return sizeof(void *) == 4 ? CL_LDCACHE_FLAGS_X8664_LIBX32
                               : CL_LDCACHE_FLAGS_X8664_LIB64;
  if (machine && strcmp(machine, "aarch64") == 0)
    return CL_LDCACHE_FLAGS_AARCH64_LIB64;
  return 0;
}

static int ldcache_host_abi(const cl_ldcache *c, int32_t flags) {
  if (c->host_flags)
    return flags == c->host_flags;
  return (flags & 0xff) == CL_LDCACHE_FLAG_ELF_LIBC6;
}

static int ldcache_host_is_big_endian(void) {
  const uint16_t probe = 1;
  unsigned char first;
  memcpy(&first, &probe, 1);
  return first == 0;
}

/* Numbers are in host order: copy them out (the buffer may be unaligned). */
static uint32_t ldcache_u32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static int32_t ldcache_i32(const unsigned char *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static int ldcache_read(const cl_ldcache *c, uint64_t off, void *buf,
                        size_t len, const char *what) {
  uint64_t size = c->src.r->size;
  if (off > size || len > size - off) {
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: malformed ld.so.cache: %s at 0x%" PRIx64 " (%" PRIu64
                   " bytes) runs past end of file (size %" PRIu64 ")",
                   c->src.label, what, off, (uint64_t)len, size);
  }
  return cl_binary_read_at(&c->src, off, buf, len, what);
}

/* Reads the NUL-terminated string at base + rel into buf. */
static int ldcache_string(const cl_ldcache *c, uint64_t base, uint32_t rel,
                          const char *what, char buf[CL_LDCACHE_MAX_STRING]) {
  uint64_t off = base + rel; /* both below 2^33: no overflow */
  uint64_t avail, got = 0;
  int status;

  if (off >= c->src.r->size) {
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: malformed ld.so.cache: %s offset 0x%" PRIx64
                   " past end of file (size %" PRIu64 ")",
                   c->src.label, what, off, c->src.r->size);
  }
  avail = c->src.r->size - off;
  if (avail > CL_LDCACHE_MAX_STRING) {
    avail = CL_LDCACHE_MAX_STRING;
  }
  while (got < avail) {
    size_t step = (size_t)(avail - got < 128 ? avail - got : 128);
    status = ldcache_read(c, off + got, buf + got, step, what);
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (memchr(buf + got, '\0', step) != NULL) {
      return CUDALOAD_OK;
    }
    got += step;
  }
  return cl_fail(CUDALOAD_E_MALFORMED,
                 "%s: malformed ld.so.cache: %s at 0x%" PRIx64
                 " is not NUL-terminated within %" PRIu64 " bytes",
                 c->src.label, what, off, avail);
}

/* Visits one entry if it belongs to the host's ABI. */
static int ldcache_entry(const cl_ldcache *c, uint64_t strings, int32_t flags,
                         uint32_t key, uint32_t value) {
  char key_buf[CL_LDCACHE_MAX_STRING], path_buf[CL_LDCACHE_MAX_STRING];
  int status;
  if (!ldcache_host_abi(c, flags)) {
    return CUDALOAD_OK;
  }
  status = ldcache_string(c, strings, key, "entry name", key_buf);
  if (status == CUDALOAD_OK) {
    status = ldcache_string(c, strings, value, "entry path", path_buf);
  }
  if (status == CUDALOAD_OK) {
    c->visit(key_buf, path_buf, c->opaque);
  }
  return status;
}

static int ldcache_parse_new(const cl_ldcache *c, uint64_t base) {
  unsigned char header[CL_LDCACHE_NEW_HEADER];
  unsigned char entry[CL_LDCACHE_NEW_ENTRY];
  uint64_t nlibs, i, endian;
  int status;

  status = ldcache_read(c, base, header, sizeof header, "header");
  if (status != CUDALOAD_OK) {
    return status;
  }
  if (memcmp(header + CL_LDCACHE_NEW_MAGIC_LEN, CL_LDCACHE_NEW_VERSION,
             CL_LDCACHE_NEW_VERSION_LEN) != 0) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: ld.so.cache version \"%.3s\" is not 1.1", c->src.label,
                   (const char *)header + CL_LDCACHE_NEW_MAGIC_LEN);
  }
  endian = header[28] & CL_LDCACHE_ENDIAN_MASK;
  if ((endian == CL_LDCACHE_ENDIAN_LITTLE && ldcache_host_is_big_endian()) ||
      (endian == CL_LDCACHE_ENDIAN_BIG && !ldcache_host_is_big_endian())) {
    return cl_fail(CUDALOAD_E_UNSUPPORTED,
                   "%s: ld.so.cache written for the other byte order",
                   c->src.label);
  }
  nlibs = ldcache_u32(header + 20);
  if (nlibs > (c->src.r->size - base - sizeof header) / sizeof entry) {
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: malformed ld.so.cache: %" PRIu64
                   " entries run past end of file (size %" PRIu64 ")",
                   c->src.label, nlibs, c->src.r->size);
  }
  for (i = 0; i < nlibs; i++) {
    status = ldcache_read(c, base + sizeof header + i * sizeof entry, entry,
                          sizeof entry, "entry");
    if (status == CUDALOAD_OK) {
      status = ldcache_entry(c, base, ldcache_i32(entry),
                             ldcache_u32(entry + 4), ldcache_u32(entry + 8));
    }
    if (status != CUDALOAD_OK) {
      return status;
    }
  }
  return CUDALOAD_OK;
}

static int ldcache_has_new_magic(const cl_ldcache *c, uint64_t off) {
  unsigned char magic[CL_LDCACHE_NEW_MAGIC_LEN];
  if (off > c->src.r->size || c->src.r->size - off < CL_LDCACHE_NEW_HEADER) {
    return 0;
  }
  return c->src.r->read_at(c->src.r->opaque, off, magic, sizeof magic) ==
             CUDALOAD_OK &&
         memcmp(magic, CL_LDCACHE_NEW_MAGIC, sizeof magic) == 0;
}

static int ldcache_parse_old(const cl_ldcache *c) {
  unsigned char header[CL_LDCACHE_OLD_HEADER];
  unsigned char entry[CL_LDCACHE_OLD_ENTRY];
  uint64_t nlibs, entries_end, i;
  int status;

  status = ldcache_read(c, 0, header, sizeof header, "old-format header");
  if (status != CUDALOAD_OK) {
    return status;
  }
  nlibs = ldcache_u32(header + 12);
  if (nlibs > (c->src.r->size - sizeof header) / sizeof entry) {
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: malformed ld.so.cache: %" PRIu64
                   " old-format entries run past end of file (size %" PRIu64
                   ")",
                   c->src.label, nlibs, c->src.r->size);
  }
  entries_end = sizeof header + nlibs * sizeof entry;
  /* The new format follows, aligned for its 64-bit hwcap field: to 8 bytes,
   * or to 4 where (as on i386) that is the alignment of a uint64_t. */
  if (ldcache_has_new_magic(c, (entries_end + 7u) & ~(uint64_t)7u)) {
    return ldcache_parse_new(c, (entries_end + 7u) & ~(uint64_t)7u);
  }
  if (ldcache_has_new_magic(c, entries_end)) {
    return ldcache_parse_new(c, entries_end);
  }
  /* A cache from before glibc 2.3 holds the old format only. */
  for (i = 0; i < nlibs; i++) {
    status = ldcache_read(c, sizeof header + i * sizeof entry, entry,
                          sizeof entry, "old-format entry");
    if (status == CUDALOAD_OK) {
      status = ldcache_entry(c, entries_end, ldcache_i32(entry),
                             ldcache_u32(entry + 4), ldcache_u32(entry + 8));
    }
    if (status != CUDALOAD_OK) {
      return status;
    }
  }
  return CUDALOAD_OK;
}

static int ldcache_parse(const cl_ldcache *c) {
  unsigned char magic[CL_LDCACHE_NEW_MAGIC_LEN];
  uint64_t size = c->src.r->size;

  if (size >= CL_LDCACHE_OLD_MAGIC_LEN) {
    int status = ldcache_read(c, 0, magic,
                              size < sizeof magic ? (size_t)size : sizeof magic,
                              "magic");
    if (status != CUDALOAD_OK) {
      return status;
    }
    if (memcmp(magic, CL_LDCACHE_OLD_MAGIC, CL_LDCACHE_OLD_MAGIC_LEN) == 0) {
      return ldcache_parse_old(c);
    }
    if (size >= sizeof magic &&
        memcmp(magic, CL_LDCACHE_NEW_MAGIC, sizeof magic) == 0) {
      return ldcache_parse_new(c, 0);
    }
  }
  return cl_fail(CUDALOAD_E_UNSUPPORTED,
                 "%s: not an ld.so.cache (unknown magic)", c->src.label);
}

static int ldcache_run(const cl_reader *r, const char *label,
                       cl_ldcache_visitor visit, void *opaque) {
  cl_ldcache c;
  if (r == NULL || r->read_at == NULL || visit == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "%s: no reader or visitor given", label);
  }
  c.src.r = r;
  c.src.label = label;
  c.src.format = "ld.so.cache";
  c.visit = visit;
  c.host_flags = ldcache_host_flags();
  c.opaque = opaque;
  return ldcache_parse(&c);
}

int cl_ldcache_parse(const cl_reader *r, cl_ldcache_visitor visit,
                     void *opaque) {
  return ldcache_run(r, "ld.so.cache", visit, opaque);
}

int cl_ldcache_read(const char *path, cl_ldcache_visitor visit, void *opaque) {
  cl_file *file = NULL;
  uint64_t size = 0;
  unsigned char *data;
  cl_memory_source src;
  cl_reader r;
  int status;

  if (path == NULL || path[0] == '\0') {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "ld.so.cache: no path given");
  }
  status = cl_os_file_open(path, &file, &size);
  if (status != CUDALOAD_OK) {
    return cl_fail_naming(status, path);
  }
  if (size > CL_LDCACHE_MAX_FILE) {
    cl_os_file_close(file);
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: malformed ld.so.cache: %" PRIu64
                   " bytes is implausibly large",
                   path, size);
  }
  /* The cache is small and every entry is visited, so one read of the
   * whole file beats thousands of small ones. */
  data = malloc(size > 0 ? (size_t)size : 1);
  if (data == NULL) {
    cl_os_file_close(file);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  }
  status =
      size > 0 ? cl_os_file_read_at(file, 0, data, (size_t)size) : CUDALOAD_OK;
  cl_os_file_close(file);
  if (status != CUDALOAD_OK) {
    free(data);
    return cl_fail_naming(status, path);
  }
  src.data = data;
  src.size = (size_t)size;
  r = cl_reader_from_memory(&src);
  status = ldcache_run(&r, path, visit, opaque);
  free(data);
  return status;
}

int cl_ldcache_read_cached(struct cl_file_cache *c, const char *path,
                           cl_ldcache_visitor visit, void *opaque) {
  if (!c || path == NULL || path[0] == '\0')
    return cl_ldcache_read(path, visit, opaque);
  const unsigned char *data = NULL;
  size_t size = 0;
  int status = cl_file_cache_whole(c, path, CL_LDCACHE_MAX_FILE, &data, &size);
  if (status != CUDALOAD_OK)
    return status; /* its last error names the file */
  cl_memory_source src;
  src.data = data;
  src.size = size;
  cl_reader r = cl_reader_from_memory(&src);
  return ldcache_run(&r, path, visit, opaque);
}

int cl_ldcache_read_cached_quiet(struct cl_file_cache *c, const char *path,
                                 cl_ldcache_visitor visit, void *opaque) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_ldcache_read_cached(c, path, visit, opaque);
  cl_asking_end(&a);
  return status;
}
