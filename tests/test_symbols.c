/* SPDX-License-Identifier: MIT */
/*
 * test_symbols.c - the symbol readers (lib/binary/elf_symbols.c,
 * lib/binary/pe_symbols.c) and the public accessors behind `cudaload inspect
 * --symbols`:
 * - synthetic ELF images in both classes and byte orders, counted through
 *   DT_HASH and through DT_GNU_HASH, with version definitions, needs and
 *   every kind of symbol the reader must keep or skip;
 * - synthetic PE32+ and PE32 images with exports (a forwarder, an export by
 *   ordinal only) and imports by name and ordinal, normal and delay-load
 *   (old-style descriptors holding virtual addresses too);
 * - the fixture libraries of fixtures/symbols (a version script with a
 *   hidden older version, consumers of a versioned and an unversioned
 *   provider, DLLs with a forwarder and an import by ordinal);
 * - every prefix of those files and of the synthetic images, read errors
 *   after each read, and hostile counts, chains and indexes: each must fail
 *   cleanly (a status, a message, nothing left allocated) or succeed, and
 *   huge counts must be refused before anything is allocated for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <dirent.h>
#endif

#include "binary/binary.h"
#include "binary/binary_internal.h"
#include "binary/binary_symbols.h"
#include "bytes_builder.h"
#include "cudaload.h"
#include "common/error.h"
#include "test_paths.h"

/* ---- helpers ----------------------------------------------------------- */

typedef int (*symbols_reader)(const cl_reader *r, const char *name,
                              cl_binary_symbols *out);

static int read_exact(symbols_reader read, const unsigned char *data,
                      size_t len, cl_binary_symbols *out) {
  exact_copy copy;
  cl_reader r = exact_copy_reader(&copy, data, len);
  int status = read(&r, "test.bin", out);
  exact_copy_free(&copy);
  return status;
}

static void assert_zeroed(const cl_binary_symbols *s) {
  assert_null(s->versions);
  assert_null(s->defs);
  assert_null(s->needs);
  assert_null(s->refs);
  assert_int_equal(
      s->version_count + s->def_count + s->need_count + s->ref_count, 0);
}

/* A read either fails with a status, a message and nothing left, or
 * succeeds with every string present. */
static void assert_consistent(int status, const cl_binary_symbols *s) {
  size_t i, j;
  if (status != CUDALOAD_OK) {
    assert_true(status == CUDALOAD_E_MALFORMED ||
                status == CUDALOAD_E_UNSUPPORTED || status == CUDALOAD_E_IO);
    assert_true(cudaload_last_error()[0] != '\0');
    assert_zeroed(s);
    return;
  }
  for (i = 0; i < s->version_count; i++)
    assert_non_null(s->versions[i].name);
  for (i = 0; i < s->def_count; i++) {
    assert_non_null(s->defs[i].name);
    assert_true(s->defs[i].version >= -1 &&
                s->defs[i].version < (int)s->version_count);
  }
  for (i = 0; i < s->need_count; i++) {
    assert_non_null(s->needs[i].file);
    for (j = 0; j < s->needs[i].version_count; j++)
      assert_non_null(s->needs[i].versions[j]);
  }
  for (i = 0; i < s->ref_count; i++) {
    assert_non_null(s->refs[i].name);
    assert_true((s->refs[i].version == NULL) == (s->refs[i].file == NULL) ||
                s->format == CL_FORMAT_PE);
  }
}

static const cl_symbol_def *find_def(const cl_binary_symbols *s,
                                     const char *name, int nth) {
  size_t i;
  for (i = 0; i < s->def_count; i++)
    if (strcmp(s->defs[i].name, name) == 0 && nth-- == 0)
      return &s->defs[i];
  return NULL;
}

static const cl_symbol_ref *find_ref(const cl_binary_symbols *s,
                                     const char *name) {
  size_t i;
  for (i = 0; i < s->ref_count; i++)
    if (strcmp(s->refs[i].name, name) == 0)
      return &s->refs[i];
  return NULL;
}

static const char *def_version(const cl_binary_symbols *s,
                               const cl_symbol_def *d) {
  return d->version >= 0 ? s->versions[d->version].name : NULL;
}

/* Every prefix of an image: a clean failure or a success. */
static void check_every_prefix(symbols_reader read, const unsigned char *data,
                               size_t size, size_t step) {
  size_t len;
  for (len = 0; len < size; len += step) {
    cl_binary_symbols s;
    int status = read_exact(read, data, len, &s);
    assert_consistent(status, &s);
    cl_binary_symbols_free(&s);
  }
}

/* A read error after each number of reads: the error comes back and
 * nothing leaks (the sanitizer and valgrind runs see leaks). */
static void check_read_errors(symbols_reader read, const unsigned char *data,
                              size_t size) {
  int reads;
  for (reads = 0; reads < 400; reads++) {
    failing_source f = {data, size, reads};
    cl_reader r = {size, failing_read_at, &f};
    cl_binary_symbols s;
    int status = read(&r, "failing.bin", &s);
    assert_consistent(status, &s);
    cl_binary_symbols_free(&s);
    if (status == CUDALOAD_OK)
      return;
  }
  fail_msg("still failing after %d reads", reads);
}

/* ---- synthetic ELF ------------------------------------------------------ */

#define E_PH 0x40u
#define E_DYN 0x100u
#define E_HASH 0x300u
#define E_SYMTAB 0x400u
#define E_STRTAB 0x600u
#define E_VERSYM 0x700u
#define E_VERDEF 0x740u
#define E_VERNEED 0x800u
#define E_SIZE 0x900u
#define E_VBASE 0x10000u /* vaddr = offset + E_VBASE */
#define E_NSYMS 12u

#define DT_NULL 0u
#define DT_HASH 4u
#define DT_STRTAB 5u
#define DT_SYMTAB 6u
#define DT_STRSZ 10u
#define DT_SYMENT 11u
#define DT_SONAME 14u
#define DT_SYMBOLIC 16u
#define DT_FLAGS 30u
#define DT_GNU_HASH 0x6ffffef5u
#define DT_VERSYM 0x6ffffff0u
#define DT_FLAGS_1 0x6ffffffbu
#define DT_VERDEF 0x6ffffffcu
#define DT_VERDEFNUM 0x6ffffffdu
#define DT_VERNEED 0x6ffffffeu
#define DT_VERNEEDNUM 0x6fffffffu

typedef struct elf_img {
  unsigned char b[E_SIZE];
  int is64, be;
  size_t dyn_count;
} elf_img;

static const char e_strings[] =
    "\0libx.so.1\0OLD\0libc.so.6\0GLIBC_2.2.5\0GLIBC_2.34\0liby.so.2"
    "\0printf\0y_call\0weak_ref\0x_new\0x_old\0x_weak\0local_sym"
    "\0hidden_vis\0protected_vis\0sect\0uniq";

static uint64_t e_str(const char *s) {
  size_t i;
  for (i = 1; i < sizeof e_strings; i += strlen(e_strings + i) + 1)
    if (strcmp(e_strings + i, s) == 0)
      return i;
  fail_msg("no string %s", s);
  return 0;
}

static void e_put(elf_img *im, size_t off, uint64_t v, unsigned width) {
  put_bytes(im->b, sizeof im->b, off, v, width, im->be);
}

static void e_word(elf_img *im, size_t off, uint64_t v) {
  e_put(im, off, v, im->is64 ? 8 : 4);
}

static void e_dyn(elf_img *im, uint64_t tag, uint64_t val) {
  size_t ent = im->is64 ? 16 : 8;
  size_t off = E_DYN + im->dyn_count++ * ent;
  e_word(im, off, tag);
  e_word(im, off + ent / 2, val);
}

/* Sets an existing dynamic entry's value (the first with that tag). */
static void e_set_dyn(elf_img *im, uint64_t tag, uint64_t val) {
  size_t ent = im->is64 ? 16 : 8, i;
  for (i = 0; i < im->dyn_count; i++) {
    size_t off = E_DYN + i * ent;
    uint64_t t =
        im->is64 ? cl_u64(im->b + off, im->be) : cl_u32(im->b + off, im->be);
    if (t == tag) {
      e_word(im, off + ent / 2, val);
      return;
    }
  }
  fail_msg("no dynamic tag 0x%llx", (unsigned long long)tag);
}

static void e_sym(elf_img *im, unsigned i, const char *name, unsigned bind,
                  unsigned type, unsigned vis, unsigned shndx) {
  size_t ent = im->is64 ? 24 : 16, off = E_SYMTAB + i * ent;
  unsigned info = (bind << 4) | type;
  e_put(im, off, e_str(name), 4);
  if (im->is64) {
    im->b[off + 4] = (unsigned char)info;
    im->b[off + 5] = (unsigned char)vis;
    e_put(im, off + 6, shndx, 2);
  } else {
    im->b[off + 12] = (unsigned char)info;
    im->b[off + 13] = (unsigned char)vis;
    e_put(im, off + 14, shndx, 2);
  }
}

/* A shared library with 12 dynamic symbols (below), three version
 * definitions (the base libx.so.1, OLD, libx.so.1) and needs of libc.so.6
 * (GLIBC_2.2.5 as index 4, GLIBC_2.34 as 5) and liby.so.2 (6). */
static void build_sym_elf(elf_img *im, int is64, int be, int gnu_hash) {
  size_t i;
  memset(im, 0, sizeof *im);
  im->is64 = is64;
  im->be = be;
  memcpy(im->b,
         "\x7f"
         "ELF",
         4);
  im->b[4] = is64 ? 2 : 1;
  im->b[5] = be ? 2 : 1;
  im->b[6] = 1;
  e_put(im, 16, 3, 2); /* ET_DYN */
  e_put(im, 18, is64 ? 62 : 3, 2);
  e_put(im, 20, 1, 4);
  if (is64) {
    e_put(im, 32, E_PH, 8);
    e_put(im, 52, 64, 2);
    e_put(im, 54, 56, 2);
    e_put(im, 56, 2, 2);
    e_put(im, 58, 64, 2);
  } else {
    e_put(im, 28, E_PH, 4);
    e_put(im, 40, 52, 2);
    e_put(im, 42, 32, 2);
    e_put(im, 44, 2, 2);
    e_put(im, 46, 40, 2);
  }
  /* PT_LOAD of the whole file at E_VBASE, PT_DYNAMIC. */
  for (i = 0; i < 2; i++) {
    size_t off = E_PH + i * (is64 ? 56 : 32);
    uint64_t file_off = i == 0 ? 0 : E_DYN;
    uint64_t size = i == 0 ? E_SIZE : 0x200;
    e_put(im, off, i == 0 ? 1 : 2, 4);
    if (is64) {
      e_put(im, off + 8, file_off, 8);
      e_put(im, off + 16, file_off + E_VBASE, 8);
      e_put(im, off + 32, size, 8);
      e_put(im, off + 40, size, 8);
    } else {
      e_put(im, off + 4, file_off, 4);
      e_put(im, off + 8, file_off + E_VBASE, 4);
      e_put(im, off + 16, size, 4);
      e_put(im, off + 20, size, 4);
    }
  }
  memcpy(im->b + E_STRTAB, e_strings, sizeof e_strings);
  e_dyn(im, DT_SONAME, e_str("libx.so.1"));
  e_dyn(im, DT_STRTAB, E_STRTAB + E_VBASE);
  e_dyn(im, DT_STRSZ, sizeof e_strings);
  e_dyn(im, DT_SYMTAB, E_SYMTAB + E_VBASE);
  e_dyn(im, DT_SYMENT, is64 ? 24 : 16);
  if (gnu_hash) {
    /* nbuckets 1, symoffset 4, one bloom word, bucket -> 4, chains for
     * symbols 4..11, the last with bit 0 set. */
    size_t w = is64 ? 8 : 4, at = E_HASH;
    e_put(im, at, 1, 4);
    e_put(im, at + 4, 4, 4);
    e_put(im, at + 8, 1, 4);
    e_put(im, at + 12, 6, 4);
    at += 16 + w;
    e_put(im, at, 4, 4);
    for (i = 4; i < E_NSYMS; i++)
      e_put(im, at + 4 + 4 * (i - 4), (i == E_NSYMS - 1) ? 0x11 : 0x10, 4);
    e_dyn(im, DT_GNU_HASH, E_HASH + E_VBASE);
  } else {
    e_put(im, E_HASH, 1, 4);           /* nbucket */
    e_put(im, E_HASH + 4, E_NSYMS, 4); /* nchain */
    e_dyn(im, DT_HASH, E_HASH + E_VBASE);
  }
  e_dyn(im, DT_VERSYM, E_VERSYM + E_VBASE);
  e_dyn(im, DT_VERDEF, E_VERDEF + E_VBASE);
  e_dyn(im, DT_VERDEFNUM, 3);
  e_dyn(im, DT_VERNEED, E_VERNEED + E_VBASE);
  e_dyn(im, DT_VERNEEDNUM, 2);
  e_dyn(im, DT_FLAGS, 0x2);     /* DF_SYMBOLIC */
  e_dyn(im, DT_FLAGS_1, 0x800); /* DF_1_NODEFLIB */
  e_dyn(im, DT_NULL, 0);

  /* Symbols (bind: 0 local, 1 global, 2 weak, 10 unique; type: 1 object,
   * 2 func, 3 section; visibility: 0 default, 2 hidden, 3 protected). */
  e_sym(im, 1, "printf", 1, 2, 0, 0);
  e_sym(im, 2, "y_call", 1, 2, 0, 0);
  e_sym(im, 3, "weak_ref", 2, 0, 0, 0);
  e_sym(im, 4, "x_new", 1, 2, 0, 5);
  e_sym(im, 5, "x_old", 1, 2, 0, 5);
  e_sym(im, 6, "x_weak", 2, 2, 0, 5);
  e_sym(im, 7, "local_sym", 0, 2, 0, 5);
  e_sym(im, 8, "hidden_vis", 1, 2, 2, 5);
  e_sym(im, 9, "protected_vis", 1, 2, 3, 5);
  e_sym(im, 10, "sect", 1, 3, 0, 5);
  e_sym(im, 11, "uniq", 10, 1, 0, 5);
  {
    static const unsigned versym[E_NSYMS] = {0, 4, 6, 1, 3, 0x8002,
                                             1, 0, 3, 3, 3, 3};
    for (i = 0; i < E_NSYMS; i++)
      e_put(im, E_VERSYM + 2 * i, versym[i], 2);
  }
  /* Verdefs of 20 bytes, each followed by its one 8-byte aux. */
  {
    static const char *names[3] = {"libx.so.1", "OLD", "libx.so.1"};
    for (i = 0; i < 3; i++) {
      size_t at = E_VERDEF + 28 * i;
      e_put(im, at, 1, 2);
      e_put(im, at + 2, i == 0 ? 1 : 0, 2); /* VER_FLG_BASE */
      e_put(im, at + 4, i + 1, 2);
      e_put(im, at + 6, 1, 2);
      e_put(im, at + 12, 20, 4);
      e_put(im, at + 16, i < 2 ? 28 : 0, 4);
      e_put(im, at + 20, e_str(names[i]), 4);
    }
  }
  /* libc.so.6 with two entries, then liby.so.2 with one. */
  e_put(im, E_VERNEED, 1, 2);
  e_put(im, E_VERNEED + 2, 2, 2);
  e_put(im, E_VERNEED + 4, e_str("libc.so.6"), 4);
  e_put(im, E_VERNEED + 8, 16, 4);
  e_put(im, E_VERNEED + 12, 48, 4);
  e_put(im, E_VERNEED + 16 + 6, 4, 2);
  e_put(im, E_VERNEED + 16 + 8, e_str("GLIBC_2.2.5"), 4);
  e_put(im, E_VERNEED + 16 + 12, 16, 4);
  e_put(im, E_VERNEED + 32 + 6, 5, 2);
  e_put(im, E_VERNEED + 32 + 8, e_str("GLIBC_2.34"), 4);
  e_put(im, E_VERNEED + 48, 1, 2);
  e_put(im, E_VERNEED + 48 + 2, 1, 2);
  e_put(im, E_VERNEED + 48 + 4, e_str("liby.so.2"), 4);
  e_put(im, E_VERNEED + 48 + 8, 16, 4);
  e_put(im, E_VERNEED + 64 + 6, 6, 2);
  e_put(im, E_VERNEED + 64 + 8, e_str("liby.so.2"), 4);
}

static void assert_sym_elf(const cl_binary_symbols *s) {
  const cl_symbol_def *d;
  const cl_symbol_ref *r;
  assert_int_equal(s->format, CL_FORMAT_ELF);
  assert_true(s->versioned);
  assert_int_equal(s->version_count, 3);
  assert_true(s->versions[0].is_base);
  assert_string_equal(s->versions[0].name, "libx.so.1");
  assert_string_equal(s->versions[1].name, "OLD");
  assert_int_equal(s->versions[2].index, 3);
  assert_int_equal(cl_binary_symbols_version_index(s, "libx.so.1"), 2);
  assert_int_equal(cl_binary_symbols_version_index(s, "OLD"), 1);
  assert_int_equal(cl_binary_symbols_version_index(s, "NONE"), -1);

  /* x_new x_old x_weak protected_vis uniq: not the local, hidden-visibility
   * or section symbols. */
  assert_int_equal(s->def_count, 5);
  d = find_def(s, "x_new", 0);
  assert_non_null(d);
  assert_string_equal(def_version(s, d), "libx.so.1");
  assert_false(d->hidden);
  d = find_def(s, "x_old", 0);
  assert_non_null(d);
  assert_string_equal(def_version(s, d), "OLD");
  assert_true(d->hidden);
  d = find_def(s, "x_weak", 0);
  assert_non_null(d);
  assert_int_equal(d->version, -1);
  assert_true(d->weak);
  assert_non_null(find_def(s, "protected_vis", 0));
  assert_non_null(find_def(s, "uniq", 0));
  assert_null(find_def(s, "local_sym", 0));
  assert_null(find_def(s, "hidden_vis", 0));
  assert_null(find_def(s, "sect", 0));

  assert_int_equal(s->need_count, 2);
  assert_string_equal(s->needs[0].file, "libc.so.6");
  assert_int_equal(s->needs[0].version_count, 2);
  assert_string_equal(s->needs[0].versions[1], "GLIBC_2.34");
  assert_string_equal(s->needs[1].file, "liby.so.2");

  assert_int_equal(s->ref_count, 3);
  r = find_ref(s, "printf");
  assert_non_null(r);
  assert_string_equal(r->version, "GLIBC_2.2.5");
  assert_string_equal(r->file, "libc.so.6");
  r = find_ref(s, "y_call");
  assert_string_equal(r->version, "liby.so.2");
  assert_string_equal(r->file, "liby.so.2");
  r = find_ref(s, "weak_ref");
  assert_null(r->version);
  assert_null(r->file);
  assert_true(r->weak);
}

static void test_elf_variants(void **state) {
  int is64, be, gnu;
  (void)state;
  for (is64 = 0; is64 < 2; is64++)
    for (be = 0; be < 2; be++)
      for (gnu = 0; gnu < 2; gnu++) {
        elf_img im;
        cl_binary_symbols s;
        cl_binary_info info;
        build_sym_elf(&im, is64, be, gnu);
        assert_int_equal(read_exact(cl_elf_read_symbols, im.b, E_SIZE, &s),
                         CUDALOAD_OK);
        assert_sym_elf(&s);
        cl_binary_symbols_free(&s);
        assert_zeroed(&s);
        /* The dispatcher picks the same reader. */
        assert_int_equal(read_exact(cl_binary_read_symbols, im.b, E_SIZE, &s),
                         CUDALOAD_OK);
        assert_int_equal(s.def_count, 5);
        cl_binary_symbols_free(&s);
        /* The header reader's flags. */
        assert_int_equal(
            parse_exact_copy(cl_elf_parse, "x.so", im.b, E_SIZE, &info),
            CUDALOAD_OK);
        assert_true(info.symbolic);
        assert_true(info.nodeflib);
        assert_string_equal(info.soname, "libx.so.1");
        cl_binary_info_free(&info);
      }
}

static void test_elf_flags_variants(void **state) {
  elf_img im;
  cl_binary_info info;
  (void)state;
  /* DT_SYMBOLIC alone; DT_FLAGS without DF_SYMBOLIC; the last DT_FLAGS_1
   * counts, as in glibc. */
  build_sym_elf(&im, 1, 0, 0);
  e_set_dyn(&im, DT_FLAGS, 0x8); /* DF_BIND_NOW only */
  e_set_dyn(&im, DT_FLAGS_1, 0);
  assert_int_equal(parse_exact_copy(cl_elf_parse, "x.so", im.b, E_SIZE, &info),
                   CUDALOAD_OK);
  assert_false(info.symbolic);
  assert_false(info.nodeflib);
  cl_binary_info_free(&info);
  {
    /* The DT_FLAGS entry retagged DT_SYMBOLIC: its presence is enough. */
    size_t i;
    for (i = 0; i < im.dyn_count; i++) {
      size_t off = E_DYN + i * 16;
      if (cl_u64(im.b + off, 0) == DT_FLAGS)
        e_word(&im, off, DT_SYMBOLIC);
    }
  }
  assert_int_equal(parse_exact_copy(cl_elf_parse, "x.so", im.b, E_SIZE, &info),
                   CUDALOAD_OK);
  assert_true(info.symbolic);
  cl_binary_info_free(&info);
}

static void test_elf_prefixes_and_read_errors(void **state) {
  elf_img im;
  (void)state;
  build_sym_elf(&im, 1, 0, 1);
  check_every_prefix(cl_elf_read_symbols, im.b, E_SIZE, 1);
  check_read_errors(cl_elf_read_symbols, im.b, E_SIZE);
  build_sym_elf(&im, 0, 1, 0);
  check_every_prefix(cl_elf_read_symbols, im.b, E_SIZE, 1);
  check_read_errors(cl_elf_read_symbols, im.b, E_SIZE);
}

/* A variant of the image must be refused, with the message naming what. */
static void assert_elf_refused(const elf_img *im, const char *needle) {
  cl_binary_symbols s;
  int status = read_exact(cl_elf_read_symbols, im->b, E_SIZE, &s);
  if (status == CUDALOAD_OK)
    fail_msg("accepted; expected an error with \"%s\"", needle);
  assert_int_equal(status, CUDALOAD_E_MALFORMED);
  assert_error_contains("test.bin: malformed ELF: ");
  assert_error_contains(needle);
  assert_zeroed(&s);
}

static void test_elf_hostile(void **state) {
  elf_img im;
  cl_binary_symbols s;
  (void)state;

  /* Counts: refused before anything is allocated for them. */
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_HASH + 4, 0xffffffffu, 4);
  assert_elf_refused(&im, "more than 4194304");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_HASH + 4, 4000000u, 4);
  assert_elf_refused(&im, "runs past the end of its segment");
  build_sym_elf(&im, 1, 0, 1);
  e_put(&im, E_HASH, 0x7fffffffu, 4); /* nbuckets */
  assert_elf_refused(&im, "buckets) runs past the end of its segment");
  build_sym_elf(&im, 1, 0, 1);
  e_put(&im, E_HASH + 8, 0xffffffffu, 4); /* bloom_size */
  assert_elf_refused(&im, "runs past the end of its segment");
  build_sym_elf(&im, 1, 1, 0);
  e_set_dyn(&im, DT_VERDEFNUM, 0x7fffffff);
  assert_elf_refused(&im, "DT_VERDEFNUM 2147483647 is more than");
  build_sym_elf(&im, 0, 0, 0);
  e_set_dyn(&im, DT_VERNEEDNUM, 0x10001);
  assert_elf_refused(&im, "DT_VERNEEDNUM 65537 is more than");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERNEED + 2, 0xffff, 2); /* vn_cnt */
  assert_elf_refused(&im, "more than 65536 version definitions and needs");
  build_sym_elf(&im, 1, 0, 0);
  e_set_dyn(&im, DT_STRSZ, 0x7fffffffu);
  assert_elf_refused(&im, "runs past the end of its segment");

  /* A chain without its end bit runs off its segment. */
  build_sym_elf(&im, 1, 0, 1);
  memset(im.b + E_HASH + 16 + 8 + 4, 0, E_SIZE - (E_HASH + 16 + 8 + 4));
  memset(im.b + E_HASH + 16 + 8 + 4, 0x10, 0x40);
  {
    /* Every word of the rest of the file even: no end. */
    size_t off;
    for (off = E_HASH + 16 + 8 + 4; off + 4 <= E_SIZE; off += 4)
      e_put(&im, off, 0x10, 4);
  }
  assert_elf_refused(&im, "DT_GNU_HASH chain of symbol");

  /* A bucket below symoffset. */
  build_sym_elf(&im, 1, 0, 1);
  e_put(&im, E_HASH + 16 + 8, 2, 4);
  assert_elf_refused(&im, "below its first hashed symbol 4");

  /* Names and strings. */
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_SYMTAB + 24 * 4, 0x7000, 4);
  assert_elf_refused(&im, "dynamic symbol 4 names string 28672 outside the "
                          "string table");
  build_sym_elf(&im, 0, 1, 0);
  e_set_dyn(&im, DT_STRSZ, sizeof e_strings - 1); /* cut the last NUL */
  e_put(&im, E_SYMTAB + 16 * 11, e_str("uniq"), 4);
  assert_elf_refused(&im, "not NUL-terminated");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERDEF + 28 + 20, 0x7000, 4);
  assert_elf_refused(&im, "version definition 1 names string");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERNEED + 4, 0x7000, 4);
  assert_elf_refused(&im, "version need 0 names string");

  /* Tables and chains that leave the file or their segment. */
  build_sym_elf(&im, 1, 0, 0);
  e_set_dyn(&im, DT_SYMENT, 8);
  assert_elf_refused(&im, "DT_SYMENT 8 is not between 24 and 256");
  build_sym_elf(&im, 1, 0, 0);
  e_set_dyn(&im, DT_VERSYM, 0x50000);
  assert_elf_refused(&im, "DT_VERSYM table address 0x50000 is not in any "
                          "PT_LOAD segment");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERDEF + 28 + 16, 0xffffff00u, 4); /* vd_next far away */
  assert_elf_refused(&im, "version definition 2 at +0xffffff1c runs past");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERDEF + 12, 0xfff0, 4); /* vd_aux outside */
  assert_elf_refused(&im, "version definition name 0");
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERNEED + 2, 0x100, 2); /* vn_cnt; the aux chain leaves */
  e_put(&im, E_VERNEED + 16 + 12, 0xfffff000u, 4);
  assert_elf_refused(&im, "version need entry 0");
  build_sym_elf(&im, 1, 0, 0);
  {
    /* No DT_STRSZ: the string table's size is unknown. */
    size_t i;
    for (i = 0; i < im.dyn_count; i++)
      if (cl_u64(im.b + E_DYN + 16 * i, 0) == DT_STRSZ)
        e_word(&im, E_DYN + 16 * i, 0x7fff0000u); /* an unknown tag */
  }
  assert_elf_refused(&im, "DT_STRTAB without DT_STRSZ");

  /* A verdef chain that loops (vd_next brings it back to the same record
   * through 32-bit wrap-around is impossible: it only moves on) and a
   * chain longer than DT_VERDEFNUM says: the count bounds the walk. */
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERDEF + 56 + 16, 28, 4); /* the last points on */
  assert_int_equal(read_exact(cl_elf_read_symbols, im.b, E_SIZE, &s),
                   CUDALOAD_OK);
  assert_int_equal(s.version_count, 3);
  cl_binary_symbols_free(&s);

  /* A DT_VERSYM index that names nothing: unversioned, as in glibc. */
  build_sym_elf(&im, 1, 0, 0);
  e_put(&im, E_VERSYM + 2 * 1, 0x7abc, 2);
  e_put(&im, E_VERSYM + 2 * 4, 0x1234, 2);
  assert_int_equal(read_exact(cl_elf_read_symbols, im.b, E_SIZE, &s),
                   CUDALOAD_OK);
  assert_null(find_ref(&s, "printf")->version);
  assert_int_equal(find_def(&s, "x_new", 0)->version, -1);
  cl_binary_symbols_free(&s);

  /* No symbol table at all: nothing, and no error. */
  build_sym_elf(&im, 1, 0, 0);
  {
    size_t i;
    for (i = 0; i < im.dyn_count; i++)
      if (cl_u64(im.b + E_DYN + 16 * i, 0) == DT_SYMTAB)
        e_word(&im, E_DYN + 16 * i, 0x7fff0000u);
  }
  assert_int_equal(read_exact(cl_elf_read_symbols, im.b, E_SIZE, &s),
                   CUDALOAD_OK);
  assert_int_equal(s.def_count + s.ref_count, 0);
  cl_binary_symbols_free(&s);
}

static void test_dispatch_and_arguments(void **state) {
  static const unsigned char text[] =
      "just some text, not a library, long enough for any header it might "
      "be taken for";
  cl_binary_symbols s;
  (void)state;
  assert_int_equal(read_exact(cl_binary_read_symbols, text, sizeof text, &s),
                   CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("not an ELF or PE file");
  assert_int_equal(read_exact(cl_binary_read_symbols, text, 2, &s),
                   CUDALOAD_E_UNSUPPORTED);
  assert_int_equal(cl_binary_read_symbols(NULL, "x", &s),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_binary_read_symbols(NULL, "x", NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_elf_read_symbols(NULL, "x", &s),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_pe_read_symbols(NULL, "x", &s),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(read_exact(cl_elf_read_symbols, text, sizeof text, &s),
                   CUDALOAD_E_UNSUPPORTED);
  assert_int_equal(read_exact(cl_pe_read_symbols, text, sizeof text, &s),
                   CUDALOAD_E_UNSUPPORTED);
  cl_binary_symbols_free(NULL);
  assert_int_equal(cl_binary_symbols_version_index(NULL, "x"), -1);
  assert_int_equal(
      cl_binary_read_symbols_file(test_fixture_path("no-such-file.so"), &s),
      CUDALOAD_E_NOT_FOUND);
  assert_zeroed(&s);
}

/* ---- synthetic PE ------------------------------------------------------- */

#define P_LFANEW 0x80u
#define P_SECTION_RAW 0x400u
#define P_VA 0x1000u
#define P_SIZE (P_SECTION_RAW + 0x1000u)
#define P_EXPORT 0x1000u /* export directory, 0x100 bytes */
#define P_EAT 0x1040u
#define P_NPT 0x1060u
#define P_ORD 0x1070u
#define P_IMPORT 0x1100u
#define P_DLL_K32 0x1180u
#define P_DLL_CUDNN 0x1190u
#define P_ILT 0x1200u
#define P_HINT_TICK 0x1280u
#define P_HINT_CREATE 0x12a0u
#define P_DELAY 0x1300u
#define P_DELAY_INT 0x1340u

typedef struct pe_img {
  unsigned char b[P_SIZE];
  int plus; /* PE32+ */
} pe_img;

static size_t p_at(uint32_t rva) {
  return P_SECTION_RAW + (rva - P_VA);
}

static void p_put(pe_img *im, size_t off, uint64_t v, unsigned width) {
  put_bytes(im->b, sizeof im->b, off, v, width, 0);
}

static void p_str(pe_img *im, uint32_t rva, const char *s) {
  memcpy(im->b + p_at(rva), s, strlen(s) + 1);
}

static uint64_t p_base(const pe_img *im) {
  return im->plus ? 0x180000000u : 0x10000000u;
}

/* One section (.rdata at 0x1000) holding an export directory (alpha,
 * beta forwarded to NTDLL.RtlFoo, a third function by ordinal only), the
 * imports of KERNEL32.dll (GetTickCount by name, #7 by ordinal) and a
 * delay-load import of cudnn64_9.dll (cudnnCreate). old_delay: the delay
 * descriptor holds virtual addresses (Visual C++ 6), PE32 only. */
static void build_sym_pe(pe_img *im, int plus, int old_delay) {
  size_t opt = P_LFANEW + 24, dirs = opt + (plus ? 112 : 96);
  size_t opt_size = (plus ? 112 : 96) + 16 * 8;
  size_t sec = opt + opt_size;
  unsigned entsize = plus ? 8 : 4;
  uint64_t ordinal_flag = plus ? (uint64_t)1 << 63 : 0x80000000u;
  uint64_t va;

  memset(im, 0, sizeof *im);
  im->plus = plus;
  va = old_delay ? p_base(im) : 0;
  im->b[0] = 'M';
  im->b[1] = 'Z';
  p_put(im, 0x3c, P_LFANEW, 4);
  memcpy(im->b + P_LFANEW, "PE\0\0", 4);
  p_put(im, P_LFANEW + 4, plus ? 0x8664 : 0x14c, 2);
  p_put(im, P_LFANEW + 6, 1, 2);
  p_put(im, P_LFANEW + 20, opt_size, 2);
  p_put(im, opt, plus ? 0x20b : 0x10b, 2);
  if (plus)
    p_put(im, opt + 24, 0x180000000u, 8);
  else
    p_put(im, opt + 28, 0x10000000u, 4);
  p_put(im, dirs - 4, 16, 4);
  p_put(im, dirs + 0, P_EXPORT, 4);
  p_put(im, dirs + 4, 0x100, 4);
  p_put(im, dirs + 8, P_IMPORT, 4);
  p_put(im, dirs + 12, 40, 4);
  p_put(im, dirs + 13 * 8, P_DELAY, 4);
  p_put(im, dirs + 13 * 8 + 4, 64, 4);
  memcpy(im->b + sec, ".rdata", 6);
  p_put(im, sec + 8, 0x1000, 4);
  p_put(im, sec + 12, P_VA, 4);
  p_put(im, sec + 16, 0x1000, 4);
  p_put(im, sec + 20, P_SECTION_RAW, 4);

  /* Exports: Base 1, 3 functions, 2 names. */
  p_put(im, p_at(P_EXPORT) + 16, 1, 4);
  p_put(im, p_at(P_EXPORT) + 20, 3, 4);
  p_put(im, p_at(P_EXPORT) + 24, 2, 4);
  p_put(im, p_at(P_EXPORT) + 28, P_EAT, 4);
  p_put(im, p_at(P_EXPORT) + 32, P_NPT, 4);
  p_put(im, p_at(P_EXPORT) + 36, P_ORD, 4);
  p_put(im, p_at(P_EAT), 0x2000, 4);
  p_put(im, p_at(P_EAT) + 4, 0x10c0, 4); /* inside the directory */
  p_put(im, p_at(P_EAT) + 8, 0x2010, 4);
  p_put(im, p_at(P_NPT), 0x1080, 4);
  p_put(im, p_at(P_NPT) + 4, 0x1090, 4);
  p_put(im, p_at(P_ORD), 0, 2);
  p_put(im, p_at(P_ORD) + 2, 1, 2);
  p_str(im, 0x1080, "alpha");
  p_str(im, 0x1090, "beta");
  p_str(im, 0x10c0, "NTDLL.RtlFoo");

  /* Imports. */
  p_put(im, p_at(P_IMPORT), P_ILT, 4);
  p_put(im, p_at(P_IMPORT) + 12, P_DLL_K32, 4);
  p_put(im, p_at(P_IMPORT) + 16, P_ILT + 0x40, 4);
  p_str(im, P_DLL_K32, "KERNEL32.dll");
  p_str(im, P_DLL_CUDNN, "cudnn64_9.dll");
  p_put(im, p_at(P_ILT), P_HINT_TICK, entsize);
  p_put(im, p_at(P_ILT) + entsize, ordinal_flag | 7, entsize);
  p_str(im, P_HINT_TICK + 2, "GetTickCount");

  /* Delay imports. */
  p_put(im, p_at(P_DELAY), old_delay ? 0 : 1, 4);
  p_put(im, p_at(P_DELAY) + 4, va + P_DLL_CUDNN, 4);
  p_put(im, p_at(P_DELAY) + 16, va + P_DELAY_INT, 4);
  p_put(im, p_at(P_DELAY_INT), va + P_HINT_CREATE, entsize);
  p_str(im, P_HINT_CREATE + 2, "cudnnCreate");
}

static void assert_sym_pe(const cl_binary_symbols *s) {
  const cl_symbol_def *d;
  assert_int_equal(s->format, CL_FORMAT_PE);
  assert_false(s->versioned);
  assert_int_equal(s->version_count + s->need_count, 0);
  assert_int_equal(s->def_count, 2);
  d = find_def(s, "alpha", 0);
  assert_non_null(d);
  assert_null(d->forward);
  assert_int_equal(d->version, -1);
  d = find_def(s, "beta", 0);
  assert_non_null(d);
  assert_string_equal(d->forward, "NTDLL.RtlFoo");
  assert_int_equal(s->ref_count, 3);
  assert_string_equal(s->refs[0].name, "GetTickCount");
  assert_string_equal(s->refs[0].file, "KERNEL32.dll");
  assert_null(s->refs[0].version);
  assert_string_equal(s->refs[1].name, "#7");
  assert_string_equal(s->refs[1].file, "KERNEL32.dll");
  assert_string_equal(s->refs[2].name, "cudnnCreate");
  assert_string_equal(s->refs[2].file, "cudnn64_9.dll");
}

static void test_pe_variants(void **state) {
  int plus;
  (void)state;
  for (plus = 0; plus < 2; plus++) {
    pe_img im;
    cl_binary_symbols s;
    build_sym_pe(&im, plus, 0);
    assert_int_equal(read_exact(cl_pe_read_symbols, im.b, P_SIZE, &s),
                     CUDALOAD_OK);
    assert_sym_pe(&s);
    cl_binary_symbols_free(&s);
    assert_int_equal(read_exact(cl_binary_read_symbols, im.b, P_SIZE, &s),
                     CUDALOAD_OK);
    assert_sym_pe(&s);
    cl_binary_symbols_free(&s);
  }
  {
    pe_img im;
    cl_binary_symbols s;
    build_sym_pe(&im, 0, 1);
    assert_int_equal(read_exact(cl_pe_read_symbols, im.b, P_SIZE, &s),
                     CUDALOAD_OK);
    assert_sym_pe(&s);
    cl_binary_symbols_free(&s);
  }
}

static void test_pe_prefixes_and_read_errors(void **state) {
  pe_img im;
  (void)state;
  build_sym_pe(&im, 1, 0);
  check_every_prefix(cl_pe_read_symbols, im.b, P_SIZE, 1);
  check_read_errors(cl_pe_read_symbols, im.b, P_SIZE);
  build_sym_pe(&im, 0, 1);
  check_every_prefix(cl_pe_read_symbols, im.b, P_SIZE, 1);
  check_read_errors(cl_pe_read_symbols, im.b, P_SIZE);
}

static void assert_pe_refused(const pe_img *im, const char *needle) {
  cl_binary_symbols s;
  int status = read_exact(cl_pe_read_symbols, im->b, P_SIZE, &s);
  if (status == CUDALOAD_OK)
    fail_msg("accepted; expected an error with \"%s\"", needle);
  assert_int_equal(status, CUDALOAD_E_MALFORMED);
  assert_error_contains("test.bin: malformed PE: ");
  assert_error_contains(needle);
  assert_zeroed(&s);
}

static void test_pe_hostile(void **state) {
  pe_img im;
  size_t off;
  (void)state;
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_EXPORT) + 24, 0xffffffffu, 4);
  assert_pe_refused(&im, "more than 4194304 exports and imports");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_EXPORT) + 24, 100000, 4);
  assert_pe_refused(&im, "export name table at RVA 0x1060 (100000 entries) "
                         "runs past the end of its section");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_EXPORT) + 20, 0xffffffffu, 4); /* capped at 65536 */
  assert_pe_refused(&im, "export address table");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_ORD) + 2, 9, 2);
  assert_pe_refused(&im, "export name 1 has function index 9, outside the 3 "
                         "functions");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_NPT), 0x9000, 4);
  assert_pe_refused(&im, "export name RVA 0x9000 is outside every section");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_EXPORT) + 32, 0x9000, 4);
  assert_pe_refused(&im, "export name table RVA 0x9000 is outside every "
                         "section");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_IMPORT), 0x9000, 4);
  assert_pe_refused(&im, "import name table of KERNEL32.dll at RVA 0x9000");
  build_sym_pe(&im, 1, 0);
  p_put(&im, p_at(P_ILT), 0x9000, 8);
  assert_pe_refused(&im, "import name RVA 0x9002 is outside every section");
  build_sym_pe(&im, 0, 0);
  p_put(&im, p_at(P_ILT), 0x7ffffffe, 4);
  assert_pe_refused(&im, "is outside every section");

  /* A name table that never ends: it runs off its section. */
  build_sym_pe(&im, 1, 0);
  for (off = p_at(P_ILT); off + 8 <= P_SIZE; off += 8)
    p_put(&im, off, ((uint64_t)1 << 63) | 3, 8);
  assert_pe_refused(&im, "import name table of KERNEL32.dll runs past the end "
                         "of its section");
  /* Descriptors without end: capped. */
  build_sym_pe(&im, 1, 0);
  for (off = p_at(P_IMPORT); off + 20 <= P_SIZE; off += 20) {
    p_put(&im, off, 0, 4);
    p_put(&im, off + 12, P_DLL_K32, 4);
  }
  {
    cl_binary_symbols s;
    int status = read_exact(cl_pe_read_symbols, im.b, P_SIZE, &s);
    assert_consistent(status, &s);
    cl_binary_symbols_free(&s);
  }
  /* An export directory at the end of its section. */
  build_sym_pe(&im, 1, 0);
  {
    size_t dirs = P_LFANEW + 24 + 112;
    p_put(&im, dirs, P_VA + 0x1000 - 8, 4);
  }
  assert_pe_refused(&im, "export directory runs past the end of its section");
}

/* ---- the fixture libraries ----------------------------------------------- */

static int read_fixture(const char *rel, cl_binary_symbols *s) {
  const char *path = test_fixture_path(rel);
  int status = cl_binary_read_symbols_file(path, s);
  if (status == CUDALOAD_E_NOT_FOUND) {
    printf("SKIP: %s was not built (no host compiler or mingw-w64)\n", path);
    return 0;
  }
  if (status != CUDALOAD_OK)
    fail_msg("%s: %s", path, cudaload_last_error());
  return 1;
}

static unsigned char *slurp(const char *rel, size_t *size) {
  FILE *f = fopen(test_fixture_path(rel), "rb");
  unsigned char *data;
  long n;
  if (f == NULL)
    return NULL;
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  n = ftell(f);
  assert_true(n > 0);
  rewind(f);
  data = malloc((size_t)n);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return data;
}

static void test_fixture_provider(void **state) {
  cl_binary_symbols s;
  const cl_symbol_def *d;
  int foo_default = 0, foo_old = 0, k;
  (void)state;
  if (!read_fixture("symbols/versioned/libfoo.so.1", &s))
    skip();
  assert_true(s.versioned);
  assert_int_equal(s.version_count, 3); /* base, OLD, libfoo.so.1 */
  assert_true(s.versions[0].is_base);
  assert_int_equal(cl_binary_symbols_version_index(&s, "OLD"), 1);
  assert_int_equal(cl_binary_symbols_version_index(&s, "libfoo.so.1"), 2);
  d = find_def(&s, "foo_bar", 0);
  assert_non_null(d);
  assert_string_equal(def_version(&s, d), "libfoo.so.1");
  assert_false(d->hidden);
  for (k = 0; (d = find_def(&s, "foo", k)) != NULL; k++) {
    if (strcmp(def_version(&s, d), "OLD") == 0) {
      assert_true(d->hidden);
      foo_old++;
    } else {
      assert_string_equal(def_version(&s, d), "libfoo.so.1");
      assert_false(d->hidden);
      foo_default++;
    }
  }
  assert_int_equal(foo_default, 1);
  assert_int_equal(foo_old, 1);
  assert_null(find_def(&s, "old_foo", 0)); /* local: * */
  cl_binary_symbols_free(&s);
}

static void test_fixture_consumers(void **state) {
  cl_binary_symbols s;
  const cl_symbol_ref *r;
  size_t i;
  int saw = 0;
  (void)state;
  if (!read_fixture("symbols/consumers/libuses_foo.so", &s))
    skip();
  for (i = 0; i < s.need_count; i++)
    if (strcmp(s.needs[i].file, "libfoo.so.1") == 0) {
      assert_int_equal(s.needs[i].version_count, 1);
      assert_string_equal(s.needs[i].versions[0], "libfoo.so.1");
      saw = 1;
    }
  assert_true(saw);
  r = find_ref(&s, "foo_bar");
  assert_non_null(r);
  assert_string_equal(r->version, "libfoo.so.1");
  assert_string_equal(r->file, "libfoo.so.1");
  r = find_ref(&s, "foo");
  assert_string_equal(r->version, "libfoo.so.1");
  assert_non_null(find_def(&s, "uses_foo", 0));
  cl_binary_symbols_free(&s);

  assert_true(read_fixture("symbols/consumers/libuses_bar.so", &s));
  r = find_ref(&s, "bar_one");
  assert_non_null(r);
  assert_null(r->version);
  assert_null(r->file);
  cl_binary_symbols_free(&s);

  assert_true(read_fixture("symbols/unversioned/libbar.so.1", &s));
  assert_int_equal(s.version_count, 0);
  assert_int_equal(find_def(&s, "bar_one", 0)->version, -1);
  assert_int_equal(find_def(&s, "bar_two", 0)->version, -1);
  cl_binary_symbols_free(&s);
}

static void test_fixture_dlls(void **state) {
  cl_binary_symbols s;
  const cl_symbol_def *d;
  size_t i;
  int by_name = 0, by_ordinal = 0;
  (void)state;
  if (!read_fixture("symbols/windows/foo.dll", &s))
    skip();
  assert_int_equal(s.def_count, 2); /* foo_baz is exported by ordinal only */
  d = find_def(&s, "foo_bar", 0);
  assert_non_null(d);
  assert_null(d->forward);
  d = find_def(&s, "foo_ticks", 0);
  assert_non_null(d);
  assert_string_equal(d->forward, "KERNEL32.GetTickCount");
  assert_null(find_def(&s, "foo_baz", 0));
  cl_binary_symbols_free(&s);

  assert_true(read_fixture("symbols/windows/uses_foo.dll", &s));
  for (i = 0; i < s.ref_count; i++) {
    if (strcmp(s.refs[i].file, "foo.dll") != 0)
      continue;
    if (strcmp(s.refs[i].name, "foo_bar") == 0)
      by_name++;
    if (strcmp(s.refs[i].name, "#2") == 0)
      by_ordinal++;
  }
  assert_int_equal(by_name, 1);
  assert_int_equal(by_ordinal, 1);
  assert_string_equal(find_ref(&s, "GetTickCount")->file, "KERNEL32.dll");
  cl_binary_symbols_free(&s);
}

/* Every prefix of the real files: built by the real toolchains, with the
 * layouts the synthetic images only imitate. */
static void test_fixture_prefixes(void **state) {
  static const char *const elf[] = {"symbols/versioned/libfoo.so.1",
                                    "symbols/consumers/libuses_foo.so"};
  static const char *const pe[] = {"symbols/windows/foo.dll",
                                   "symbols/windows/uses_foo.dll"};
  size_t i, size;
  int any = 0;
  (void)state;
  for (i = 0; i < sizeof elf / sizeof elf[0]; i++) {
    unsigned char *data = slurp(elf[i], &size);
    if (data == NULL)
      continue;
    any = 1;
    check_every_prefix(cl_elf_read_symbols, data, size, 1);
    check_read_errors(cl_elf_read_symbols, data, size);
    free(data);
  }
  for (i = 0; i < sizeof pe / sizeof pe[0]; i++) {
    unsigned char *data = slurp(pe[i], &size);
    if (data == NULL)
      continue;
    any = 1;
    check_every_prefix(cl_pe_read_symbols, data, size, 1);
    check_read_errors(cl_pe_read_symbols, data, size);
    free(data);
  }
  if (!any) {
    printf("SKIP: the symbols fixtures were not built\n");
    skip();
  }
}

/* The public accessors behind `cudaload inspect`. */
static void test_public_api(void **state) {
  cudaload_file *f = NULL;
  const char *path = test_fixture_path("symbols/versioned/libfoo.so.1");
  size_t i, n;
  int saw_default = 0, saw_old = 0;
  (void)state;
  if (cudaload_inspect(path, &f) == CUDALOAD_E_NOT_FOUND) {
    printf("SKIP: %s was not built\n", path);
    skip();
  }
  assert_non_null(f);
  assert_true(cudaload_file_flags(f) & CUDALOAD_FILE_SYMBOLIC);
  assert_true(cudaload_file_flags(f) & CUDALOAD_FILE_VERSIONED);
  assert_false(cudaload_file_flags(f) & CUDALOAD_FILE_NODEFLIB);
  assert_int_equal(cudaload_file_version_count(f), 2); /* no base entry */
  for (i = 0; i < cudaload_file_version_count(f); i++) {
    const char *name = cudaload_file_version_name(f, i);
    if (strcmp(name, "libfoo.so.1") == 0) {
      assert_int_equal(cudaload_file_version_is_default(f, i), 1);
      saw_default = 1;
    } else {
      assert_string_equal(name, "OLD");
      assert_int_equal(cudaload_file_version_is_default(f, i), 0);
      saw_old = 1;
    }
  }
  assert_true(saw_default && saw_old);
  assert_null(cudaload_file_version_name(f, 2));
  assert_int_equal(cudaload_file_version_is_default(f, 2), 0);
  n = cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_EXPORT);
  assert_true(n >= 4);
  for (i = 0; i < n; i++) {
    const char *name = cudaload_file_symbol_name(f, CUDALOAD_SYMBOL_EXPORT, i);
    int flags = cudaload_file_symbol_flags(f, CUDALOAD_SYMBOL_EXPORT, i);
    if (strcmp(name, "foo_bar") == 0) {
      assert_string_equal(
          cudaload_file_symbol_version(f, CUDALOAD_SYMBOL_EXPORT, i),
          "libfoo.so.1");
      assert_int_equal(flags & CUDALOAD_SYMBOL_HIDDEN, 0);
      assert_string_equal(
          cudaload_file_symbol_library(f, CUDALOAD_SYMBOL_EXPORT, i), "");
    }
  }
  assert_null(cudaload_file_symbol_name(f, CUDALOAD_SYMBOL_EXPORT, n));
  assert_null(cudaload_file_symbol_version(f, CUDALOAD_SYMBOL_EXPORT, n));
  assert_null(cudaload_file_symbol_library(f, CUDALOAD_SYMBOL_IMPORT, 99999));
  assert_int_equal(cudaload_file_symbol_flags(f, CUDALOAD_SYMBOL_EXPORT, n), 0);
  assert_int_equal(cudaload_file_symbol_count(f, 7), 0);
  assert_null(cudaload_file_symbol_name(f, 7, 0));
  assert_int_equal(cudaload_file_need_count(f), cudaload_file_need_count(f));
  assert_null(cudaload_file_need_file(f, 999));
  assert_int_equal(cudaload_file_need_version_count(f, 999), 0);
  assert_null(cudaload_file_need_version(f, 999, 0));
  cudaload_file_close(f);

  assert_int_equal(
      cudaload_inspect(test_fixture_path("symbols/consumers/libuses_foo.so"),
                       &f),
      CUDALOAD_OK);
  assert_true(cudaload_file_flags(f) & CUDALOAD_FILE_NODEFLIB);
  n = cudaload_file_need_count(f);
  for (i = 0; i < n; i++)
    if (strcmp(cudaload_file_need_file(f, i), "libfoo.so.1") == 0) {
      assert_int_equal(cudaload_file_need_version_count(f, i), 1);
      assert_string_equal(cudaload_file_need_version(f, i, 0), "libfoo.so.1");
      assert_null(cudaload_file_need_version(f, i, 1));
      break;
    }
  assert_true(i < n);
  for (i = 0; i < cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_IMPORT); i++)
    if (strcmp(cudaload_file_symbol_name(f, CUDALOAD_SYMBOL_IMPORT, i),
               "foo_bar") == 0) {
      assert_string_equal(
          cudaload_file_symbol_version(f, CUDALOAD_SYMBOL_IMPORT, i),
          "libfoo.so.1");
      assert_string_equal(
          cudaload_file_symbol_library(f, CUDALOAD_SYMBOL_IMPORT, i),
          "libfoo.so.1");
    }
  cudaload_file_close(f);

  /* NULL is accepted everywhere. */
  assert_int_equal(cudaload_file_flags(NULL), 0);
  assert_int_equal(cudaload_file_version_count(NULL), 0);
  assert_null(cudaload_file_version_name(NULL, 0));
  assert_int_equal(cudaload_file_version_is_default(NULL, 0), 0);
  assert_int_equal(cudaload_file_need_count(NULL), 0);
  assert_null(cudaload_file_need_file(NULL, 0));
  assert_int_equal(cudaload_file_need_version_count(NULL, 0), 0);
  assert_null(cudaload_file_need_version(NULL, 0, 0));
  assert_int_equal(cudaload_file_symbol_count(NULL, 0), 0);
  assert_null(cudaload_file_symbol_name(NULL, 0, 0));
  assert_null(cudaload_file_symbol_version(NULL, 0, 0));
  assert_null(cudaload_file_symbol_library(NULL, 0, 0));
  assert_int_equal(cudaload_file_symbol_flags(NULL, 0, 0), 0);
}

/* The real toolkit's cuDNN, whichever major this machine has (or none:
 * skipped): cudnnCreate exported under the version node named after the
 * SONAME (libcudnn.so.N); cuDNN 9 also links DT_SYMBOLIC. */
static void test_real_cudnn(void **state) {
  cudaload_file *f = NULL;
  char path[512] = "", soname[64];
  size_t i, n;
  int found = 0, major = -1;
  (void)state;
#ifdef _WIN32
  printf("SKIP: the Linux toolkit is not read from a Windows test\n");
  skip();
#else
  DIR *d = opendir("/usr/local/cuda/lib64");
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    const char *digits = e->d_name + strlen("libcudnn.so.");
    if (strncmp(e->d_name, "libcudnn.so.", strlen("libcudnn.so.")) == 0 &&
        *digits && strspn(digits, "0123456789") == strlen(digits) &&
        atoi(digits) > major) {
      major = atoi(digits);
      snprintf(path, sizeof path, "/usr/local/cuda/lib64/%s", e->d_name);
    }
  }
  if (d)
    closedir(d);
#endif
  if (major < 0 || cudaload_inspect(path, &f) != CUDALOAD_OK) {
    printf("SKIP: no libcudnn.so.N in /usr/local/cuda/lib64 (no CUDA toolkit "
           "with cuDNN here)\n");
    skip();
  }
  snprintf(soname, sizeof soname, "libcudnn.so.%d", major);
  if (major >= 9)
    assert_true(cudaload_file_flags(f) & CUDALOAD_FILE_SYMBOLIC);
  n = cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_EXPORT);
  for (i = 0; i < n; i++)
    if (strcmp(cudaload_file_symbol_name(f, CUDALOAD_SYMBOL_EXPORT, i),
               "cudnnCreate") == 0) {
      assert_string_equal(
          cudaload_file_symbol_version(f, CUDALOAD_SYMBOL_EXPORT, i), soname);
      assert_int_equal(
          cudaload_file_symbol_flags(f, CUDALOAD_SYMBOL_EXPORT, i) &
              CUDALOAD_SYMBOL_HIDDEN,
          0);
      found = 1;
    }
  assert_true(found);
  cudaload_file_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elf_variants),
      cmocka_unit_test(test_elf_flags_variants),
      cmocka_unit_test(test_elf_prefixes_and_read_errors),
      cmocka_unit_test(test_elf_hostile),
      cmocka_unit_test(test_dispatch_and_arguments),
      cmocka_unit_test(test_pe_variants),
      cmocka_unit_test(test_pe_prefixes_and_read_errors),
      cmocka_unit_test(test_pe_hostile),
      cmocka_unit_test(test_fixture_provider),
      cmocka_unit_test(test_fixture_consumers),
      cmocka_unit_test(test_fixture_dlls),
      cmocka_unit_test(test_fixture_prefixes),
      cmocka_unit_test(test_public_api),
      cmocka_unit_test(test_real_cudnn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
