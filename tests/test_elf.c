/* SPDX-License-Identifier: MIT */
/*
 * test_elf.c - the memory reader, format sniffing and the ELF reader, on
 * synthetic images assembled byte by byte: ELF32 and ELF64 in both byte
 * orders, then every truncation and a catalogue of hostile variants.
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

/* Layout of the synthetic image (offsets in the file). */
#define PH_OFF 0x40u
#define DYN_OFF 0x200u
#define STR_OFF 0x300u
#define SH_OFF 0x380u
#define LOAD1_VADDR 0x10000u
/* The second PT_LOAD maps file offset DYN_OFF here: a different delta from
 * the first, so the string table's translation is really exercised. */
#define LOAD2_VADDR 0x30200u
#define STRTAB_VADDR (LOAD2_VADDR + (STR_OFF - DYN_OFF))

#define PT_LOAD 1u
#define PT_DYNAMIC 2u
#define PT_NOTE 4u
#define SHT_PROGBITS 1u
#define SHT_STRTAB 3u
#define SHT_DYNAMIC 6u
#define DT_NULL 0u
#define DT_NEEDED 1u
#define DT_STRTAB 5u
#define DT_STRSZ 10u
#define DT_SONAME 14u
#define DT_RPATH 15u
#define DT_RUNPATH 29u
#define DT_FLAGS 30u

/* The dynamic string table; DYN_* name the dynamic entries written. */
static const char strtab[] = "\0libfoo.so.1\0libbar.so.2\0libtest.so.1\0"
                             "$ORIGIN/../lib\0/opt/rpath";
enum {
  DYN_NEEDED1,
  DYN_NEEDED2,
  DYN_SONAME,
  DYN_RUNPATH,
  DYN_RPATH,
  DYN_STRTAB,
  DYN_STRSZ,
  DYN_FLAGS,
  DYN_END,
  DYN_COUNT
};
enum { PH_LOAD1, PH_DYNAMIC, PH_LOAD2, PH_COUNT };
enum { SH_NULL, SH_DYNSTR, SH_DYNAMIC, SH_COUNT };

typedef struct elf_image {
  unsigned char *b;
  size_t size;
  int is64;
  int be;
} elf_image;

typedef struct elf_opts {
  int is64;
  int be;
  unsigned machine;
  int no_phdrs; /* exercise the section-header fallback */
} elf_opts;

static void put(const elf_image *im, size_t off, uint64_t v, unsigned width) {
  put_bytes(im->b, im->size, off, v, width, im->be);
}

static void put_word(const elf_image *im, size_t off, uint64_t v) {
  put(im, off, v, im->is64 ? 8 : 4);
}

static size_t entsize_dyn(const elf_image *im) {
  return im->is64 ? 16 : 8;
}
static size_t entsize_ph(const elf_image *im) {
  return im->is64 ? 56 : 32;
}
static size_t entsize_sh(const elf_image *im) {
  return im->is64 ? 64 : 40;
}

static uint64_t strtab_index(const char *s) {
  size_t i;
  for (i = 1; i < sizeof strtab; i++) {
    if (strtab[i - 1] == '\0' && strcmp(strtab + i, s) == 0) {
      return i;
    }
  }
  fail_msg("%s is not in the test string table", s);
  return 0;
}

/* ELF header fields, by (ELF32 offset, ELF64 offset, ELF32 width, ELF64
 * width). */
enum { F_PHOFF, F_SHOFF, F_PHENTSIZE, F_PHNUM, F_SHENTSIZE, F_SHNUM };
static const struct {
  size_t off32, off64;
  unsigned w32, w64;
} ehdr_fields[] = {{28, 32, 4, 8}, {32, 40, 4, 8}, {42, 54, 2, 2},
                   {44, 56, 2, 2}, {46, 58, 2, 2}, {48, 60, 2, 2}};

static void set_ehdr(const elf_image *im, int field, uint64_t v) {
  put(im, im->is64 ? ehdr_fields[field].off64 : ehdr_fields[field].off32, v,
      im->is64 ? ehdr_fields[field].w64 : ehdr_fields[field].w32);
}

static void put_phdr(const elf_image *im, size_t i, uint32_t type,
                     uint64_t offset, uint64_t vaddr, uint64_t filesz) {
  size_t base = PH_OFF + i * entsize_ph(im);
  put(im, base, type, 4);
  if (im->is64) {
    put(im, base + 4, 4, 4); /* PF_R */
    put(im, base + 8, offset, 8);
    put(im, base + 16, vaddr, 8);
    put(im, base + 24, vaddr, 8);
    put(im, base + 32, filesz, 8);
    put(im, base + 40, filesz, 8);
    put(im, base + 48, 8, 8);
  } else {
    put(im, base + 4, offset, 4);
    put(im, base + 8, vaddr, 4);
    put(im, base + 12, vaddr, 4);
    put(im, base + 16, filesz, 4);
    put(im, base + 20, filesz, 4);
    put(im, base + 24, 4, 4);
    put(im, base + 28, 4, 4);
  }
}

static void put_shdr(const elf_image *im, size_t i, uint32_t type,
                     uint64_t offset, uint64_t size, uint32_t link,
                     uint32_t info) {
  size_t base = SH_OFF + i * entsize_sh(im);
  put(im, base + 4, type, 4);
  if (im->is64) {
    put(im, base + 24, offset, 8);
    put(im, base + 32, size, 8);
    put(im, base + 40, link, 4);
    put(im, base + 44, info, 4);
  } else {
    put(im, base + 16, offset, 4);
    put(im, base + 20, size, 4);
    put(im, base + 24, link, 4);
    put(im, base + 28, info, 4);
  }
}

static void put_dyn(const elf_image *im, size_t i, uint64_t tag, uint64_t val) {
  size_t base = DYN_OFF + i * entsize_dyn(im);
  put_word(im, base, tag);
  put_word(im, base + entsize_dyn(im) / 2, val);
}

/* Builds a shared library image: three program headers (two PT_LOAD with
 * different file-to-address deltas and PT_DYNAMIC), three section headers
 * (null, .dynstr, .dynamic), nine dynamic entries and the string table. */
static elf_image build_elf(const elf_opts *o) {
  elf_image im;
  im.is64 = o->is64;
  im.be = o->be;
  im.size = SH_OFF + SH_COUNT * (o->is64 ? 64 : 40);
  im.b = calloc(1, im.size);
  assert_non_null(im.b);

  memcpy(im.b,
         "\x7f"
         "ELF",
         4);
  im.b[4] = o->is64 ? 2 : 1;
  im.b[5] = o->be ? 2 : 1;
  im.b[6] = 1;
  put(&im, 16, 3, 2); /* ET_DYN */
  put(&im, 18, o->machine, 2);
  put(&im, 20, 1, 4);
  put(&im, o->is64 ? 52 : 40, o->is64 ? 64 : 52, 2); /* e_ehsize */
  set_ehdr(&im, F_PHOFF, o->no_phdrs ? 0 : PH_OFF);
  set_ehdr(&im, F_PHENTSIZE, entsize_ph(&im));
  set_ehdr(&im, F_PHNUM, o->no_phdrs ? 0 : PH_COUNT);
  set_ehdr(&im, F_SHOFF, SH_OFF);
  set_ehdr(&im, F_SHENTSIZE, entsize_sh(&im));
  set_ehdr(&im, F_SHNUM, SH_COUNT);

  if (!o->no_phdrs) {
    put_phdr(&im, PH_LOAD1, PT_LOAD, 0, LOAD1_VADDR, DYN_OFF);
    put_phdr(&im, PH_DYNAMIC, PT_DYNAMIC, DYN_OFF, LOAD2_VADDR,
             DYN_COUNT * entsize_dyn(&im));
    put_phdr(&im, PH_LOAD2, PT_LOAD, DYN_OFF, LOAD2_VADDR, im.size - DYN_OFF);
  }
  put_shdr(&im, SH_DYNSTR, SHT_STRTAB, STR_OFF, sizeof strtab, 0, 0);
  put_shdr(&im, SH_DYNAMIC, SHT_DYNAMIC, DYN_OFF, DYN_COUNT * entsize_dyn(&im),
           SH_DYNSTR, 0);

  put_dyn(&im, DYN_NEEDED1, DT_NEEDED, strtab_index("libfoo.so.1"));
  put_dyn(&im, DYN_NEEDED2, DT_NEEDED, strtab_index("libbar.so.2"));
  put_dyn(&im, DYN_SONAME, DT_SONAME, strtab_index("libtest.so.1"));
  put_dyn(&im, DYN_RUNPATH, DT_RUNPATH, strtab_index("$ORIGIN/../lib"));
  put_dyn(&im, DYN_RPATH, DT_RPATH, strtab_index("/opt/rpath"));
  put_dyn(&im, DYN_STRTAB, DT_STRTAB, STRTAB_VADDR);
  put_dyn(&im, DYN_STRSZ, DT_STRSZ, sizeof strtab);
  put_dyn(&im, DYN_FLAGS, DT_FLAGS, 8);
  put_dyn(&im, DYN_END, DT_NULL, 0);
  memcpy(im.b + STR_OFF, strtab, sizeof strtab);
  return im;
}

/* Parses the first len bytes from a buffer of exactly that size, so that
 * AddressSanitizer sees any read past the end. */
static int parse_prefix(const elf_image *im, size_t len, cl_binary_info *info) {
  return parse_exact_copy(cl_elf_parse, "test.so", im->b, len, info);
}

static int parse_image(const elf_image *im, cl_binary_info *info) {
  return parse_prefix(im, im->size, info);
}

/* A parse either fails with the result zeroed and a reason set, or succeeds
 * with every string present. */
static void assert_consistent(int status, const cl_binary_info *info) {
  size_t i;
  if (status == CUDALOAD_OK) {
    assert_non_null(info->machine_name);
    assert_non_null(info->soname);
    assert_non_null(info->runpath);
    assert_non_null(info->rpath);
    assert_non_null(info->file_version);
    assert_true(info->needed_count == 0 || info->needed != NULL);
    for (i = 0; i < info->needed_count; i++) {
      assert_non_null(info->needed[i]);
    }
    return;
  }
  assert_true(status == CUDALOAD_E_MALFORMED ||
              status == CUDALOAD_E_UNSUPPORTED);
  assert_int_equal(info->format, CL_FORMAT_UNKNOWN);
  assert_null(info->machine_name);
  assert_null(info->soname);
  assert_null(info->needed);
  assert_int_equal(info->needed_count, 0);
  assert_null(info->runpath);
  assert_null(info->rpath);
  assert_null(info->file_version);
  assert_true(cudaload_last_error()[0] != '\0');
}

static void assert_full_fields(const cl_binary_info *info, const elf_opts *o) {
  assert_int_equal(info->format, CL_FORMAT_ELF);
  assert_int_equal(info->bits, o->is64 ? 64 : 32);
  assert_int_equal(info->big_endian, o->be);
  assert_int_equal(info->machine, o->machine);
  assert_string_equal(info->soname, "libtest.so.1");
  assert_int_equal(info->needed_count, 2);
  assert_string_equal(info->needed[0], "libfoo.so.1");
  assert_string_equal(info->needed[1], "libbar.so.2");
  assert_string_equal(info->runpath, "$ORIGIN/../lib");
  assert_string_equal(info->rpath, "/opt/rpath");
  assert_string_equal(info->file_version, "");
}

static void check_variant(const elf_opts *o, const char *machine_name) {
  elf_image im = build_elf(o);
  cl_binary_info info;
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_full_fields(&info, o);
  assert_string_equal(info.machine_name, machine_name);
  cl_binary_info_free(&info);
  assert_null(info.soname);
  free(im.b);
}

/* ---- the memory reader, sniffing, dispatch ----------------------------- */

static void test_memory_reader_bounds(void **state) {
  static const unsigned char data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  cl_memory_source src = {data, sizeof data};
  cl_reader r = cl_reader_from_memory(&src);
  unsigned char buf[8];
  (void)state;
  assert_int_equal(r.size, 8);
  assert_int_equal(r.read_at(r.opaque, 2, buf, 3), CUDALOAD_OK);
  assert_memory_equal(buf, data + 2, 3);
  assert_int_equal(r.read_at(r.opaque, 0, buf, 8), CUDALOAD_OK);
  assert_int_equal(r.read_at(r.opaque, 8, buf, 0), CUDALOAD_OK);
  assert_int_equal(r.read_at(r.opaque, 7, buf, 2), CUDALOAD_E_MALFORMED);
  assert_int_equal(r.read_at(r.opaque, 9, buf, 0), CUDALOAD_E_MALFORMED);
  assert_int_equal(r.read_at(r.opaque, UINT64_MAX, buf, 1),
                   CUDALOAD_E_MALFORMED);
  assert_int_equal(r.read_at(r.opaque, 1, buf, SIZE_MAX), CUDALOAD_E_MALFORMED);
}

static void test_sniff(void **state) {
  (void)state;
  assert_int_equal(cl_binary_sniff((const unsigned char *)"\x7f"
                                                          "ELF",
                                   4),
                   CL_FORMAT_ELF);
  assert_int_equal(cl_binary_sniff((const unsigned char *)"MZ\x90\0", 4),
                   CL_FORMAT_PE);
  assert_int_equal(cl_binary_sniff((const unsigned char *)"\x7f"
                                                          "EL",
                                   3),
                   CL_FORMAT_UNKNOWN);
  assert_int_equal(cl_binary_sniff((const unsigned char *)"#!/b", 4),
                   CL_FORMAT_UNKNOWN);
  assert_int_equal(cl_binary_sniff(NULL, 4), CL_FORMAT_UNKNOWN);
}

static void test_binary_parse_dispatch(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  cl_memory_source src = {im.b, im.size};
  cl_reader r = cl_reader_from_memory(&src);
  cl_binary_info info;
  static const unsigned char text[] = "hello, world\n";
  (void)state;

  assert_int_equal(cl_binary_parse(&r, "lib.so", &info), CUDALOAD_OK);
  assert_full_fields(&info, &o);
  cl_binary_info_free(&info);

  src.data = text;
  src.size = sizeof text - 1;
  r = cl_reader_from_memory(&src);
  assert_int_equal(cl_binary_parse(&r, "notes.txt", &info),
                   CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("notes.txt");
  assert_null(info.machine_name);

  src.size = 0;
  r = cl_reader_from_memory(&src);
  assert_int_equal(cl_binary_parse(&r, "empty", &info), CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("empty");
  src.size = 3;
  r = cl_reader_from_memory(&src);
  assert_int_equal(cl_binary_parse(&r, "tiny", &info), CUDALOAD_E_UNSUPPORTED);
  assert_error_contains("tiny");

  assert_int_equal(cl_binary_parse(NULL, "x", &info),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_binary_parse(&r, "x", NULL), CUDALOAD_E_INVALID_ARGUMENT);
  cl_binary_info_free(NULL);
  free(im.b);
}

/* ---- well-formed images ------------------------------------------------- */

static void test_elf64_le(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  (void)state;
  check_variant(&o, "x86_64");
}

static void test_elf32_be(void **state) {
  static const elf_opts o = {0, 1, 20, 0};
  (void)state;
  check_variant(&o, "unknown(0x14)");
}

static void test_elf64_be(void **state) {
  static const elf_opts o = {1, 1, 21, 0};
  (void)state;
  check_variant(&o, "ppc64");
}

static void test_elf32_le(void **state) {
  static const elf_opts o = {0, 0, 3, 0};
  (void)state;
  check_variant(&o, "i386");
}

static void test_machine_names(void **state) {
  static const struct {
    int is64, be;
    unsigned machine;
    const char *name;
  } cases[] = {
      {1, 0, 62, "x86_64"},
      {0, 0, 3, "i386"},
      {1, 0, 183, "aarch64"},
      {0, 0, 40, "arm"},
      {1, 0, 21, "ppc64le"},
      {1, 1, 21, "ppc64"},
      {1, 1, 22, "s390x"},
      {1, 0, 243, "riscv64"},
      {1, 0, 0x1234, "unknown(0x1234)"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    elf_opts o = {cases[i].is64, cases[i].be, cases[i].machine, 0};
    check_variant(&o, cases[i].name);
  }
}

static void test_section_fallback(void **state) {
  static const elf_opts variants[] = {{1, 0, 62, 1}, {0, 1, 40, 1}};
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    elf_image im = build_elf(&variants[i]);
    cl_binary_info info;
    /* DT_STRTAB means nothing without program headers: the section link
     * must be what finds the strings. */
    put_dyn(&im, DYN_STRTAB, DT_STRTAB, 0xdead0000u);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_full_fields(&info, &variants[i]);
    cl_binary_info_free(&info);

    /* A link to a missing string table section. */
    put_shdr(&im, SH_DYNAMIC, SHT_DYNAMIC, DYN_OFF,
             DYN_COUNT * entsize_dyn(&im), 7, 0);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("string table section");
    free(im.b);
  }
}

static void test_extended_phnum(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  (void)state;
  /* PN_XNUM: the real count is in section 0's sh_info. */
  set_ehdr(&im, F_PHNUM, 0xffff);
  put_shdr(&im, SH_NULL, 0, 0, 0, 0, PH_COUNT);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_full_fields(&info, &o);
  cl_binary_info_free(&info);

  put_shdr(&im, SH_NULL, 0, 0, 0, 0, 70000);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("program headers");

  set_ehdr(&im, F_SHOFF, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  free(im.b);
}

static void test_static_executable(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  (void)state;
  put_phdr(&im, PH_DYNAMIC, PT_NOTE, DYN_OFF, LOAD2_VADDR, 16);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_int_equal(info.format, CL_FORMAT_ELF);
  assert_string_equal(info.machine_name, "x86_64");
  assert_string_equal(info.soname, "");
  assert_int_equal(info.needed_count, 0);
  assert_string_equal(info.runpath, "");
  assert_string_equal(info.rpath, "");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_relocatable_object(void **state) {
  static const elf_opts o = {1, 0, 62, 1};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  (void)state;
  put(&im, 16, 1, 2); /* ET_REL */
  put_shdr(&im, SH_DYNAMIC, SHT_PROGBITS, DYN_OFF, 16, 0, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_string_equal(info.soname, "");
  assert_int_equal(info.needed_count, 0);
  cl_binary_info_free(&info);

  /* No section headers at all either. */
  set_ehdr(&im, F_SHOFF, 0);
  set_ehdr(&im, F_SHNUM, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_int_equal(info.needed_count, 0);
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_no_dt_null(void **state) {
  static const elf_opts o = {0, 1, 40, 0};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  (void)state;
  /* The end of the segment ends the walk as well as DT_NULL does. */
  put_dyn(&im, DYN_END, DT_FLAGS, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_full_fields(&info, &o);
  cl_binary_info_free(&info);
  free(im.b);
}

/* ---- truncations and hostile variants ----------------------------------- */

static void test_every_truncation(void **state) {
  static const elf_opts variants[] = {{1, 0, 62, 0}, {0, 1, 20, 0},
                                      {1, 1, 22, 0}, {0, 0, 3, 0},
                                      {1, 0, 62, 1}, {0, 1, 40, 1}};
  size_t v, len;
  (void)state;
  for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    elf_image im = build_elf(&variants[v]);
    size_t ok = 0;
    for (len = 0; len <= im.size; len++) {
      cl_binary_info info;
      int status = parse_prefix(&im, len, &info);
      assert_consistent(status, &info);
      if (status == CUDALOAD_OK) {
        ok++;
      }
      cl_binary_info_free(&info);
    }
    /* The complete image parses; a prefix cut inside the tables may not. */
    assert_true(ok >= 1);
    free(im.b);
  }
}

static void test_dynamic_offset_past_end(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  char expected[160];
  (void)state;
  put_phdr(&im, PH_DYNAMIC, PT_DYNAMIC, 0x12345, LOAD2_VADDR, 64);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  snprintf(expected, sizeof expected,
           "test.so: malformed ELF: dynamic section offset 0x12345 past end "
           "of file (size %u)",
           (unsigned)im.size);
  assert_string_equal(cudaload_last_error(), expected);
  assert_consistent(CUDALOAD_E_MALFORMED, &info);

  /* A size running past the end, and one that would wrap around. */
  put_phdr(&im, PH_DYNAMIC, PT_DYNAMIC, DYN_OFF, LOAD2_VADDR,
           (uint64_t)1 << 40);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("dynamic section");
  put_phdr(&im, PH_DYNAMIC, PT_DYNAMIC, UINT64_MAX - 8, LOAD2_VADDR, 64);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  free(im.b);
}

static void test_bad_headers(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  cl_binary_info info;
  (void)state;
  {
    elf_image im = build_elf(&o);
    set_ehdr(&im, F_PHOFF, 0x100000);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("program header");
    set_ehdr(&im, F_PHOFF, UINT64_MAX - 16);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    free(im.b);
  }
  {
    elf_image im = build_elf(&o);
    set_ehdr(&im, F_PHNUM, 0xfffe); /* far more than the file holds */
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    free(im.b);
  }
  {
    elf_image im = build_elf(&o);
    set_ehdr(&im, F_PHENTSIZE, 10);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("program header size");
    free(im.b);
  }
  {
    elf_opts fallback = o;
    elf_image im;
    fallback.no_phdrs = 1;
    im = build_elf(&fallback);
    set_ehdr(&im, F_SHENTSIZE, 12);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("section header size");
    free(im.b);
  }
  {
    elf_image im = build_elf(&o);
    im.b[4] = 3;
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("class");
    im.b[4] = 2;
    im.b[5] = 0;
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("encoding");
    im.b[5] = 1;
    im.b[0] = 'M';
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_UNSUPPORTED);
    free(im.b);
  }
}

static void test_strtab_not_loaded(void **state) {
  static const elf_opts o = {0, 1, 40, 0};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  (void)state;
  put_dyn(&im, DYN_STRTAB, DT_STRTAB, 0x999999);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("not in any PT_LOAD");
  assert_consistent(CUDALOAD_E_MALFORMED, &info);

  /* Just past the end of the second segment's file bytes. */
  put_dyn(&im, DYN_STRTAB, DT_STRTAB, LOAD2_VADDR + (im.size - DYN_OFF));
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);

  /* No DT_STRTAB at all while strings are named. */
  put_dyn(&im, DYN_STRTAB, DT_FLAGS, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("DT_STRTAB");
  free(im.b);
}

static void test_string_bounds(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  cl_binary_info info;
  (void)state;
  /* DT_STRSZ ends the table inside "/opt/rpath": no NUL before its end. */
  put_dyn(&im, DYN_STRSZ, DT_STRSZ, sizeof strtab - 3);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("DT_RPATH");
  assert_error_contains("NUL");

  /* An index outside the table. */
  put_dyn(&im, DYN_STRSZ, DT_STRSZ, sizeof strtab);
  put_dyn(&im, DYN_NEEDED2, DT_NEEDED, sizeof strtab + 5);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("outside the string table");
  put_dyn(&im, DYN_NEEDED2, DT_NEEDED, UINT64_MAX);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);

  /* The file ends before the last string's NUL (the section headers that
   * follow in the full image are not needed to read it). */
  put_dyn(&im, DYN_NEEDED2, DT_NEEDED, strtab_index("libbar.so.2"));
  assert_int_equal(parse_prefix(&im, STR_OFF + sizeof strtab - 1, &info),
                   CUDALOAD_E_MALFORMED);
  assert_error_contains("NUL");
  assert_int_equal(parse_prefix(&im, STR_OFF + sizeof strtab, &info),
                   CUDALOAD_OK);
  assert_full_fields(&info, &o);
  cl_binary_info_free(&info);
  free(im.b);
}

/* An ELF64 LE image with one PT_LOAD over the whole file, STRTAB and STRSZ
 * first, then `needed` DT_NEEDED entries all naming one string of
 * string_len bytes, then DT_NULL. */
static elf_image build_many_needed(size_t needed, size_t string_len) {
  elf_image im;
  size_t dyn_off = 0x100, i;
  size_t dyn_size = (needed + 3) * 16;
  size_t str_off = dyn_off + dyn_size;
  im.is64 = 1;
  im.be = 0;
  im.size = str_off + string_len + 2;
  im.b = calloc(1, im.size);
  assert_non_null(im.b);
  memcpy(im.b,
         "\x7f"
         "ELF\x02\x01\x01",
         7);
  put(&im, 16, 3, 2);
  put(&im, 18, 62, 2);
  set_ehdr(&im, F_PHOFF, PH_OFF);
  set_ehdr(&im, F_PHENTSIZE, 56);
  set_ehdr(&im, F_PHNUM, 2);
  put_phdr(&im, 0, PT_LOAD, 0, 0, im.size);
  put_phdr(&im, 1, PT_DYNAMIC, dyn_off, dyn_off, dyn_size);
  put(&im, dyn_off, DT_STRTAB, 8);
  put(&im, dyn_off + 8, str_off, 8);
  put(&im, dyn_off + 16, DT_STRSZ, 8);
  put(&im, dyn_off + 24, string_len + 2, 8);
  for (i = 0; i < needed; i++) {
    put(&im, dyn_off + 32 + i * 16, DT_NEEDED, 8);
    put(&im, dyn_off + 40 + i * 16, 1, 8);
  }
  memset(im.b + str_off + 1, 'a', string_len);
  return im;
}

static void test_huge_counts(void **state) {
  cl_binary_info info;
  (void)state;
  {
    /* More entries than the cap: the walk stops at 65536 entries. */
    elf_image im = build_many_needed(70000, 11);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_int_equal(info.needed_count, 65536 - 2);
    assert_string_equal(info.needed[65533], "aaaaaaaaaaa");
    cl_binary_info_free(&info);
    free(im.b);
  }
  {
    /* Long strings named many times exhaust the total string budget. */
    elf_image im = build_many_needed(300, 4000);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("in total");
    free(im.b);
  }
  {
    elf_image im = build_many_needed(1, 4095);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_int_equal(strlen(info.needed[0]), 4095);
    cl_binary_info_free(&info);
    free(im.b);
  }
  {
    /* As long as TensorFlow 2.21's RUNPATH (20,357 bytes): read whole. */
    elf_image im = build_many_needed(1, 20357);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_int_equal(strlen(info.needed[0]), 20357);
    cl_binary_info_free(&info);
    free(im.b);
  }
  {
    elf_image im = build_many_needed(1, 70000);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("longer than 65535");
    free(im.b);
  }
}

static void test_read_errors(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  int reads;
  (void)state;
  for (reads = 0; reads < 64; reads++) {
    failing_source src = {im.b, im.size, reads};
    cl_reader r = {im.size, failing_read_at, &src};
    cl_binary_info info;
    int status = cl_elf_parse(&r, "flaky.so", &info);
    if (status == CUDALOAD_OK) {
      assert_full_fields(&info, &o);
      cl_binary_info_free(&info);
      break;
    }
    assert_int_equal(status, CUDALOAD_E_IO);
    assert_error_contains("flaky.so");
    assert_error_contains("simulated read error");
    assert_null(info.machine_name);
  }
  assert_true(reads < 64);
  free(im.b);
}

static void test_null_name(void **state) {
  static const elf_opts o = {1, 0, 62, 0};
  elf_image im = build_elf(&o);
  cl_memory_source src;
  cl_reader r;
  cl_binary_info info;
  (void)state;
  put_phdr(&im, PH_DYNAMIC, PT_DYNAMIC, 0x12345, LOAD2_VADDR, 64);
  src.data = im.b;
  src.size = im.size;
  r = cl_reader_from_memory(&src);
  assert_int_equal(cl_elf_parse(&r, NULL, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("(memory)");
  assert_int_equal(cl_elf_parse(NULL, "x", &info), CUDALOAD_E_INVALID_ARGUMENT);
  free(im.b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_reader_bounds),
      cmocka_unit_test(test_sniff),
      cmocka_unit_test(test_binary_parse_dispatch),
      cmocka_unit_test(test_elf64_le),
      cmocka_unit_test(test_elf32_be),
      cmocka_unit_test(test_elf64_be),
      cmocka_unit_test(test_elf32_le),
      cmocka_unit_test(test_machine_names),
      cmocka_unit_test(test_section_fallback),
      cmocka_unit_test(test_extended_phnum),
      cmocka_unit_test(test_static_executable),
      cmocka_unit_test(test_relocatable_object),
      cmocka_unit_test(test_no_dt_null),
      cmocka_unit_test(test_every_truncation),
      cmocka_unit_test(test_dynamic_offset_past_end),
      cmocka_unit_test(test_bad_headers),
      cmocka_unit_test(test_strtab_not_loaded),
      cmocka_unit_test(test_string_bounds),
      cmocka_unit_test(test_huge_counts),
      cmocka_unit_test(test_read_errors),
      cmocka_unit_test(test_null_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
