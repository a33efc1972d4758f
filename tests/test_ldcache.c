/* SPDX-License-Identifier: MIT */
/*
 * test_ldcache.c - the ld.so.cache reader on synthetic caches in the new
 * format, the old format with the new one appended, and the old format
 * alone; every truncation and hostile variants; then the host's own cache.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary.h"
#include "bytes_builder.h"
#include "cudaload.h"
#include "common/error.h"
#include "scan/ldcache.h"

/* The flags of the host's ABI, and of another ABI the reader must skip;
 * the same choice the library makes. */
#if defined(__x86_64__) && defined(__ILP32__)
#define HOST_FLAGS 0x0803
#define FOREIGN_FLAGS 0x0303
#elif defined(__x86_64__) || defined(_M_X64)
#define HOST_FLAGS 0x0303
#define FOREIGN_FLAGS 0x0003 /* i386 libc6 */
#elif defined(__aarch64__) || defined(_M_ARM64)
#define HOST_FLAGS 0x0a03
#define FOREIGN_FLAGS 0x0003
#else
#define HOST_FLAGS 0x0003
#define FOREIGN_FLAGS 0x0001 /* libc5 */
#endif

typedef struct cache_entry {
  int32_t flags;
  const char *key;
  const char *path;
} cache_entry;

static const cache_entry entries[] = {
    {HOST_FLAGS, "libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"},
    {FOREIGN_FLAGS, "libc.so.6", "/lib/i386-linux-gnu/libc.so.6"},
    {HOST_FLAGS, "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.12"},
    {0x0803 == HOST_FLAGS ? 0x0303 : 0x0803, "libx.so.1", "/usr/libx32/x.so"},
    {HOST_FLAGS, "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"},
};
#define ENTRY_COUNT (sizeof entries / sizeof entries[0])
#define HOST_ENTRY_COUNT 3u

#define IMAGE_CAPACITY 8192u

typedef struct cache_image {
  unsigned char b[IMAGE_CAPACITY];
  size_t size;
} cache_image;

static void put32(cache_image *im, size_t off, uint32_t v) {
  assert_true(off + 4 <= IMAGE_CAPACITY);
  memcpy(im->b + off, &v, 4);
}

static void put64(cache_image *im, size_t off, uint64_t v) {
  assert_true(off + 8 <= IMAGE_CAPACITY);
  memcpy(im->b + off, &v, 8);
}

static int host_is_big_endian(void) {
  const uint16_t probe = 1;
  unsigned char first;
  memcpy(&first, &probe, 1);
  return first == 0;
}

/* Appends a string at the end of the image; returns its offset. */
static size_t append_string(cache_image *im, const char *s) {
  size_t off = im->size, len = strlen(s) + 1;
  assert_true(off + len <= IMAGE_CAPACITY);
  memcpy(im->b + off, s, len);
  im->size += len;
  return off;
}

/* Writes a new-format cache at im->size (the base its offsets count from).
 * key_offsets/path_offsets receive the strings' file offsets. */
static size_t write_new_format(cache_image *im, size_t key_offsets[],
                               size_t path_offsets[]) {
  size_t base = im->size, i;
  size_t entries_at = base + 48;
  size_t strings_at = entries_at + 24 * ENTRY_COUNT;
  memcpy(im->b + base, "glibc-ld.so.cache1.1", 20);
  put32(im, base + 20, ENTRY_COUNT);
  im->b[base + 28] = host_is_big_endian() ? 3 : 2;
  im->size = strings_at;
  for (i = 0; i < ENTRY_COUNT; i++) {
    key_offsets[i] = append_string(im, entries[i].key);
    path_offsets[i] = append_string(im, entries[i].path);
  }
  put32(im, base + 24, (uint32_t)(im->size - strings_at));
  for (i = 0; i < ENTRY_COUNT; i++) {
    size_t e = entries_at + 24 * i;
    put32(im, e, (uint32_t)entries[i].flags);
    put32(im, e + 4, (uint32_t)(key_offsets[i] - base));
    put32(im, e + 8, (uint32_t)(path_offsets[i] - base));
    put32(im, e + 12, 0);
    put64(im, e + 16, 0);
  }
  return base;
}

static void build_new(cache_image *im) {
  size_t keys[ENTRY_COUNT], paths[ENTRY_COUNT];
  memset(im, 0, sizeof *im);
  write_new_format(im, keys, paths);
}

/* The old format, then (with_new) the new format aligned to 8 bytes. The
 * old entries point at the same strings, counted from their own end. */
static void build_old(cache_image *im, int with_new) {
  size_t keys[ENTRY_COUNT], paths[ENTRY_COUNT], i;
  size_t entries_end = 16 + 12 * ENTRY_COUNT;
  memset(im, 0, sizeof *im);
  memcpy(im->b, "ld.so-1.7.0", 11);
  put32(im, 12, ENTRY_COUNT);
  im->size = entries_end;
  if (with_new) {
    im->size = (entries_end + 7) & ~(size_t)7;
    write_new_format(im, keys, paths);
  } else {
    for (i = 0; i < ENTRY_COUNT; i++) {
      keys[i] = append_string(im, entries[i].key);
      paths[i] = append_string(im, entries[i].path);
    }
  }
  for (i = 0; i < ENTRY_COUNT; i++) {
    put32(im, 16 + 12 * i, (uint32_t)entries[i].flags);
    put32(im, 16 + 12 * i + 4, (uint32_t)(keys[i] - entries_end));
    put32(im, 16 + 12 * i + 8, (uint32_t)(paths[i] - entries_end));
  }
}

typedef struct visits {
  size_t count;
  char keys[8][64];
  char paths[8][128];
  int saw_libc;
  int libc_absolute;
  size_t total;
} visits;

static void record(const char *key, const char *path, void *opaque) {
  visits *v = opaque;
  if (v->count < 8) {
    snprintf(v->keys[v->count], sizeof v->keys[0], "%s", key);
    snprintf(v->paths[v->count], sizeof v->paths[0], "%s", path);
  }
  v->count++;
}

/* Parses the first len bytes from a buffer of exactly that size. */
static int parse_prefix(const cache_image *im, size_t len, visits *v) {
  exact_copy copy;
  cl_reader r = exact_copy_reader(&copy, im->b, len);
  int status;
  memset(v, 0, sizeof *v);
  status = cl_ldcache_parse(&r, record, v);
  exact_copy_free(&copy);
  return status;
}

/* The visits are the host's entries, in file order: all of them, or (after
 * a fault) the first few. */
static void assert_host_entries(const visits *v, int complete) {
  size_t i, seen = 0;
  if (complete) {
    assert_int_equal(v->count, HOST_ENTRY_COUNT);
  }
  assert_true(v->count <= HOST_ENTRY_COUNT);
  for (i = 0; i < ENTRY_COUNT && seen < v->count; i++) {
    if (entries[i].flags != HOST_FLAGS) {
      continue;
    }
    assert_string_equal(v->keys[seen], entries[i].key);
    assert_string_equal(v->paths[seen], entries[i].path);
    seen++;
  }
}

static void test_new_format(void **state) {
  cache_image im;
  visits v;
  (void)state;
  build_new(&im);
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_OK);
  assert_host_entries(&v, 1);
}

static void test_old_with_new_format(void **state) {
  cache_image im;
  visits v;
  (void)state;
  build_old(&im, 1);
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_OK);
  assert_host_entries(&v, 1);
}

static void test_old_format_only(void **state) {
  cache_image im;
  visits v;
  (void)state;
  build_old(&im, 0);
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_OK);
  assert_host_entries(&v, 1);
}

static void test_every_truncation(void **state) {
  int variant;
  (void)state;
  for (variant = 0; variant < 3; variant++) {
    cache_image im;
    size_t len;
    if (variant == 0) {
      build_new(&im);
    } else {
      build_old(&im, variant == 1);
    }
    for (len = 0; len <= im.size; len++) {
      visits v;
      int status = parse_prefix(&im, len, &v);
      if (status == CUDALOAD_OK) {
        assert_host_entries(&v, 1);
      } else {
        assert_true(status == CUDALOAD_E_MALFORMED ||
                    status == CUDALOAD_E_UNSUPPORTED);
        assert_true(cudaload_last_error()[0] != '\0');
        assert_host_entries(&v, 0);
      }
    }
  }
}

static void test_hostile(void **state) {
  cache_image im;
  visits v;
  (void)state;

  build_new(&im);
  put32(&im, 20, 0xffffffffu); /* nlibs */
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_MALFORMED);
  assert_error_contains("entries run past end of file");
  assert_int_equal(v.count, 0);

  build_new(&im);
  put32(&im, 48 + 24 * 2 + 4, 0x7ffffff0u); /* a key far past the end */
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_MALFORMED);
  assert_error_contains("past end of file");
  assert_int_equal(v.count, 1); /* the entry before the fault is kept */
  assert_string_equal(v.keys[0], "libcudnn.so.9");

  /* The last string loses its NUL at the end of the file. */
  build_new(&im);
  assert_int_equal(parse_prefix(&im, im.size - 1, &v), CUDALOAD_E_MALFORMED);
  assert_error_contains("NUL");
  assert_int_equal(v.count, 2);

  /* A path longer than PATH_MAX. */
  build_new(&im);
  memset(im.b + im.size - 1, 'a', 5000);
  im.size += 5000;
  im.b[im.size++] = '\0';
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_MALFORMED);
  assert_error_contains("NUL-terminated within 4096");

  build_new(&im);
  memcpy(im.b + 17, "1.2", 3);
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("version");

  build_new(&im);
  im.b[28] = host_is_big_endian() ? 2 : 3;
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("byte order");

  build_new(&im);
  im.b[0] = 'X';
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("not an ld.so.cache");

  build_old(&im, 0);
  put32(&im, 12, 0x20000000u); /* old nlibs */
  assert_int_equal(parse_prefix(&im, im.size, &v), CUDALOAD_E_MALFORMED);

  assert_int_equal(cl_ldcache_parse(NULL, record, &v),
                   CUDALOAD_E_INVALID_ARGUMENT);
}

static void find_libc(const char *key, const char *path, void *opaque) {
  visits *v = opaque;
  v->total++;
  if (strcmp(key, "libc.so.6") == 0) {
    v->saw_libc = 1;
    v->libc_absolute = path[0] == '/';
  }
}

static void test_host_cache(void **state) {
  visits v;
  int status;
  (void)state;
  memset(&v, 0, sizeof v);
  status = cl_ldcache_read("/etc/ld.so.cache", find_libc, &v);
  if (status == CUDALOAD_E_NOT_FOUND) {
    printf("SKIP: /etc/ld.so.cache is not there (%s)\n", cudaload_last_error());
    skip();
  }
  assert_int_equal(status, CUDALOAD_OK);
  printf("/etc/ld.so.cache: %u entries of the host ABI\n", (unsigned)v.total);
  if (v.total == 0 && getenv("CUDALOAD_TEST_EMULATOR")) {
    /* Emulated (the aarch64 tier): the cache is the host's, of another ABI. */
    printf("SKIP: this process runs under an emulator; /etc/ld.so.cache "
           "belongs to the host's ABI\n");
    skip();
  }
  assert_true(v.saw_libc);
  assert_true(v.libc_absolute);
}

static void test_missing_cache(void **state) {
  visits v;
  (void)state;
  memset(&v, 0, sizeof v);
  assert_int_equal(
      cl_ldcache_read("/nonexistent-cudaload/ld.so.cache", find_libc, &v),
      CUDALOAD_E_NOT_FOUND);
  assert_error_contains("/nonexistent-cudaload/ld.so.cache");
  assert_int_equal(v.total, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_format),
      cmocka_unit_test(test_old_with_new_format),
      cmocka_unit_test(test_old_format_only),
      cmocka_unit_test(test_every_truncation),
      cmocka_unit_test(test_hostile),
      cmocka_unit_test(test_host_cache),
      cmocka_unit_test(test_missing_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
