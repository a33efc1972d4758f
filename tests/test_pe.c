/* SPDX-License-Identifier: MIT */
/*
 * test_pe.c - the PE reader on synthetic PE32+ and PE32 images assembled
 * byte by byte: machine, imports, delay-load imports and the VERSIONINFO
 * file version, then every truncation and a catalogue of hostile variants.
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

/* Layout of the synthetic image. */
#define LFANEW 0x80u
#define COFF_OFF (LFANEW + 4u)
#define OPT_OFF (LFANEW + 24u)
#define IMAGE_SIZE 0xa00u

/* .rdata: imports, delay imports and DLL names. Its virtual size is smaller
 * than its raw size: only the first RDATA_SPAN bytes count. */
#define RDATA_VA 0x1000u
#define RDATA_RAW 0x400u
#define RDATA_SPAN 0x300u
#define IMPORT_RVA 0x1000u
#define DELAY_RVA 0x1080u
#define NAME_KERNEL32 0x1100u
#define NAME_CUDART 0x1110u
#define NAME_CUBLAS 0x1120u
#define NAME_NVCUDA 0x1140u

/* .rsrc: the resource tree (offsets from its root) and VS_VERSIONINFO. */
#define RSRC_VA 0x2000u
#define RSRC_RAW 0x800u
#define RSRC_SIZE 0x200u
#define RES_ROOT 0x00u
#define RES_ICON_DIR 0x38u
#define RES_NAME_DIR 0x50u
#define RES_LANG_DIR 0x68u
#define RES_DATA 0x80u
#define VERSION_RVA 0x2100u
#define VERSION_SIZE 96u
#define HIGH 0x80000000u

#define DIR_IMPORT 1
#define DIR_RESOURCE 2
#define DIR_DELAY 13

typedef struct pe_image {
  unsigned char *b;
  size_t size;
  int pe32plus;
} pe_image;

static void put(const pe_image *im, size_t off, uint64_t v, unsigned width) {
  put_bytes(im->b, im->size, off, v, width, 0);
}

static void put_str(const pe_image *im, size_t off, const char *s) {
  assert_true(off + strlen(s) + 1 <= im->size);
  memcpy(im->b + off, s, strlen(s) + 1);
}

static size_t dir_offset(const pe_image *im) {
  return OPT_OFF + (im->pe32plus ? 112u : 96u);
}

static size_t opt_size(const pe_image *im) {
  return (im->pe32plus ? 112u : 96u) + 16u * 8u;
}

static size_t section_table(const pe_image *im) {
  return OPT_OFF + opt_size(im);
}

static uint64_t image_base(const pe_image *im) {
  return im->pe32plus ? 0x180000000u : 0x10000000u;
}

static void set_dir(const pe_image *im, unsigned index, uint32_t rva,
                    uint32_t size) {
  put(im, dir_offset(im) + 8 * index, rva, 4);
  put(im, dir_offset(im) + 8 * index + 4, size, 4);
}

static void set_section(const pe_image *im, unsigned index, uint32_t va,
                        uint32_t vsize, uint32_t raw_size,
                        uint32_t raw_offset) {
  size_t base = section_table(im) + 40 * index;
  put(im, base + 8, vsize, 4);
  put(im, base + 12, va, 4);
  put(im, base + 16, raw_size, 4);
  put(im, base + 20, raw_offset, 4);
}

/* File offset of an RVA inside the two sections. */
static size_t at(uint32_t rva) {
  return rva >= RSRC_VA ? RSRC_RAW + (rva - RSRC_VA)
                        : RDATA_RAW + (rva - RDATA_VA);
}

static void put_import(const pe_image *im, unsigned i, uint32_t name_rva) {
  size_t base = at(IMPORT_RVA) + 20 * i;
  put(im, base, 0x3000 + 16 * i, 4); /* OriginalFirstThunk */
  put(im, base + 12, name_rva, 4);
  put(im, base + 16, 0x3100 + 16 * i, 4); /* FirstThunk */
}

static void put_delay(const pe_image *im, unsigned i, uint32_t attributes,
                      uint32_t name) {
  size_t base = at(DELAY_RVA) + 32 * i;
  put(im, base, attributes, 4);
  put(im, base + 4, name, 4);
  put(im, base + 12, 0x3200, 4);
}

/* A resource directory with `named` name entries and `ids` ID entries. */
static void put_res_dir(const pe_image *im, uint32_t rel, unsigned named,
                        unsigned ids) {
  put(im, at(RSRC_VA) + rel + 12, named, 2);
  put(im, at(RSRC_VA) + rel + 14, ids, 2);
}

static void put_res_entry(const pe_image *im, uint32_t dir_rel, unsigned i,
                          uint32_t name, uint32_t target) {
  size_t base = at(RSRC_VA) + dir_rel + 16 + 8 * i;
  put(im, base, name, 4);
  put(im, base + 4, target, 4);
}

static void put_version_info(const pe_image *im, uint32_t signature) {
  static const char key[] = "VS_VERSION_INFO";
  size_t base = at(VERSION_RVA), k;
  put(im, base, VERSION_SIZE, 2);
  put(im, base + 2, 52, 2);
  put(im, base + 4, 0, 2);
  for (k = 0; k < sizeof key; k++) {
    put(im, base + 6 + 2 * k, (unsigned char)key[k], 2);
  }
  put(im, base + 40, signature, 4);
  put(im, base + 44, 0x00010000u, 4);
  put(im, base + 48, (9u << 16) | 1u, 4);  /* file version MS: 9.1 */
  put(im, base + 52, (0u << 16) | 70u, 4); /* file version LS: 0.70 */
  put(im, base + 56, (9u << 16) | 1u, 4);  /* product version */
  put(im, base + 60, 70u, 4);
}

static pe_image build_pe(int pe32plus, unsigned machine) {
  pe_image im;
  im.pe32plus = pe32plus;
  im.size = IMAGE_SIZE;
  im.b = calloc(1, im.size);
  assert_non_null(im.b);

  im.b[0] = 'M';
  im.b[1] = 'Z';
  put(&im, 0x3c, LFANEW, 4);
  memcpy(im.b + LFANEW, "PE\0\0", 4);
  put(&im, COFF_OFF, machine, 2);
  put(&im, COFF_OFF + 2, 2, 2); /* NumberOfSections */
  put(&im, COFF_OFF + 16, opt_size(&im), 2);
  put(&im, COFF_OFF + 18, 0x2022, 2); /* DLL | EXECUTABLE | LARGE_ADDRESS */
  put(&im, OPT_OFF, pe32plus ? 0x20b : 0x10b, 2);
  if (pe32plus) {
    put(&im, OPT_OFF + 24, image_base(&im), 8);
  } else {
    put(&im, OPT_OFF + 28, image_base(&im), 4);
  }
  put(&im, dir_offset(&im) - 4, 16, 4); /* NumberOfRvaAndSizes */
  set_dir(&im, DIR_IMPORT, IMPORT_RVA, 4 * 20);
  set_dir(&im, DIR_RESOURCE, RSRC_VA, RSRC_SIZE);
  set_dir(&im, DIR_DELAY, DELAY_RVA, 2 * 32);
  memcpy(im.b + section_table(&im), ".rdata", 6);
  set_section(&im, 0, RDATA_VA, RDATA_SPAN, 0x400, RDATA_RAW);
  memcpy(im.b + section_table(&im) + 40, ".rsrc", 5);
  set_section(&im, 1, RSRC_VA, RSRC_SIZE, RSRC_SIZE, RSRC_RAW);

  put_import(&im, 0, NAME_KERNEL32);
  put_import(&im, 1, NAME_CUDART);
  put_import(&im, 2, NAME_CUBLAS);
  put_delay(&im, 0, 1, NAME_NVCUDA);
  put_str(&im, at(NAME_KERNEL32), "KERNEL32.dll");
  put_str(&im, at(NAME_CUDART), "cudart64_12.dll");
  put_str(&im, at(NAME_CUBLAS), "cublas64_12.dll");
  put_str(&im, at(NAME_NVCUDA), "nvcuda.dll");

  /* Root: a named entry (skipped), RT_ICON, then RT_VERSION. */
  put_res_dir(&im, RES_ROOT, 1, 2);
  put_res_entry(&im, RES_ROOT, 0, HIGH | 0x1f0, HIGH | RES_ICON_DIR);
  put_res_entry(&im, RES_ROOT, 1, 3, HIGH | RES_ICON_DIR);
  put_res_entry(&im, RES_ROOT, 2, 16, HIGH | RES_NAME_DIR);
  put_res_dir(&im, RES_ICON_DIR, 0, 0);
  put_res_dir(&im, RES_NAME_DIR, 0, 1);
  put_res_entry(&im, RES_NAME_DIR, 0, 1, HIGH | RES_LANG_DIR);
  put_res_dir(&im, RES_LANG_DIR, 0, 1);
  put_res_entry(&im, RES_LANG_DIR, 0, 0x409, RES_DATA);
  put(&im, at(RSRC_VA) + RES_DATA, VERSION_RVA, 4);
  put(&im, at(RSRC_VA) + RES_DATA + 4, VERSION_SIZE, 4);
  put_version_info(&im, 0xfeef04bdu);
  return im;
}

/* Parses the first len bytes from a buffer of exactly that size. */
static int parse_prefix(const pe_image *im, size_t len, cl_binary_info *info) {
  return parse_exact_copy(cl_pe_parse, "test.dll", im->b, len, info);
}

static int parse_image(const pe_image *im, cl_binary_info *info) {
  return parse_prefix(im, im->size, info);
}

static void assert_consistent(int status, const cl_binary_info *info) {
  size_t i;
  if (status == CUDALOAD_OK) {
    assert_int_equal(info->format, CL_FORMAT_PE);
    assert_non_null(info->machine_name);
    assert_string_equal(info->soname, "");
    assert_string_equal(info->runpath, "");
    assert_string_equal(info->rpath, "");
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
  assert_null(info->needed);
  assert_int_equal(info->needed_count, 0);
  assert_null(info->file_version);
  assert_true(cudaload_last_error()[0] != '\0');
}

static void assert_full_fields(const cl_binary_info *info, int bits) {
  assert_int_equal(info->format, CL_FORMAT_PE);
  assert_int_equal(info->bits, bits);
  assert_int_equal(info->big_endian, 0);
  assert_string_equal(info->soname, "");
  assert_string_equal(info->runpath, "");
  assert_string_equal(info->rpath, "");
  assert_int_equal(info->needed_count, 4);
  assert_string_equal(info->needed[0], "KERNEL32.dll");
  assert_string_equal(info->needed[1], "cudart64_12.dll");
  assert_string_equal(info->needed[2], "cublas64_12.dll");
  assert_string_equal(info->needed[3], "nvcuda.dll"); /* delay-loaded */
  assert_string_equal(info->file_version, "9.1.0.70");
}

/* ---- well-formed images ------------------------------------------------- */

static void test_pe32plus(void **state) {
  pe_image im = build_pe(1, 0x8664);
  cl_binary_info info;
  (void)state;
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_full_fields(&info, 64);
  assert_int_equal(info.machine, 0x8664);
  assert_string_equal(info.machine_name, "x86_64");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_pe32(void **state) {
  pe_image im = build_pe(0, 0x14c);
  cl_binary_info info;
  (void)state;
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_full_fields(&info, 32);
  assert_string_equal(info.machine_name, "i386");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_machine_names(void **state) {
  static const struct {
    unsigned machine;
    const char *name;
  } cases[] = {{0x8664, "x86_64"},
               {0x14c, "i386"},
               {0xaa64, "aarch64"},
               {0x1c4, "arm"},
               {0x1234, "unknown(0x1234)"}};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pe_image im = build_pe(1, cases[i].machine);
    cl_binary_info info;
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_int_equal(info.machine, cases[i].machine);
    assert_string_equal(info.machine_name, cases[i].name);
    cl_binary_info_free(&info);
    free(im.b);
  }
}

static void test_binary_parse_dispatches_pe(void **state) {
  pe_image im = build_pe(1, 0xaa64);
  cl_memory_source src;
  cl_reader r;
  cl_binary_info info;
  (void)state;
  src.data = im.b;
  src.size = im.size;
  r = cl_reader_from_memory(&src);
  assert_int_equal(cl_binary_parse(&r, "arm64.dll", &info), CUDALOAD_OK);
  assert_full_fields(&info, 64);
  assert_string_equal(info.machine_name, "aarch64");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_no_imports_no_resources(void **state) {
  pe_image im = build_pe(1, 0x8664);
  cl_binary_info info;
  (void)state;
  set_dir(&im, DIR_IMPORT, 0, 0);
  set_dir(&im, DIR_DELAY, 0, 0);
  set_dir(&im, DIR_RESOURCE, 0, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_consistent(CUDALOAD_OK, &info);
  assert_int_equal(info.needed_count, 0);
  assert_string_equal(info.file_version, "");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_few_data_directories(void **state) {
  pe_image im = build_pe(0, 0x14c);
  cl_binary_info info;
  (void)state;
  /* Only the export and import directories are declared. */
  put(&im, dir_offset(&im) - 4, 2, 4);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_int_equal(info.needed_count, 3);
  assert_string_equal(info.file_version, "");
  cl_binary_info_free(&info);

  /* Declared, but the optional header is too short to hold them. */
  put(&im, dir_offset(&im) - 4, 16, 4);
  put(&im, COFF_OFF + 16, 96 + 8 * 2, 2);
  /* The section table moves with the optional header's size. */
  memmove(im.b + OPT_OFF + 96 + 16, im.b + section_table(&im), 80);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_int_equal(info.needed_count, 3);
  assert_string_equal(info.file_version, "");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_import_ends_at_section_end(void **state) {
  pe_image im = build_pe(1, 0x8664);
  cl_binary_info info;
  uint32_t last = RDATA_VA + RDATA_SPAN - 20;
  (void)state;
  /* One descriptor in the section's last 20 bytes and no terminator. */
  put(&im, at(last) + 12, NAME_CUDART, 4);
  set_dir(&im, DIR_IMPORT, last, 20);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_int_equal(info.needed_count, 2);
  assert_string_equal(info.needed[0], "cudart64_12.dll");
  assert_string_equal(info.needed[1], "nvcuda.dll");
  cl_binary_info_free(&info);
  free(im.b);
}

static void test_old_style_delay_descriptor(void **state) {
  pe_image im = build_pe(0, 0x14c);
  cl_binary_info info;
  (void)state;
  /* Before VC 7, delay descriptors held virtual addresses. */
  put_delay(&im, 0, 0, (uint32_t)(image_base(&im) + NAME_NVCUDA));
  assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
  assert_full_fields(&info, 32);
  cl_binary_info_free(&info);
  free(im.b);
}

/* ---- truncations and hostile variants ----------------------------------- */

static void test_every_truncation(void **state) {
  int variant;
  (void)state;
  for (variant = 0; variant < 2; variant++) {
    pe_image im = build_pe(variant, variant ? 0x8664 : 0x14c);
    size_t len, ok = 0;
    for (len = 0; len <= im.size; len++) {
      cl_binary_info info;
      int status = parse_prefix(&im, len, &info);
      assert_consistent(status, &info);
      if (status == CUDALOAD_OK) {
        ok++;
        assert_full_fields(&info, variant ? 64 : 32);
      }
      cl_binary_info_free(&info);
    }
    assert_true(ok >= 1);
    free(im.b);
  }
}

static void test_bad_lfanew(void **state) {
  pe_image im = build_pe(1, 0x8664);
  cl_binary_info info;
  (void)state;
  put(&im, 0x3c, 0x100000, 4);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("test.dll: malformed PE:");
  assert_error_contains("e_lfanew");
  assert_error_contains("past end of file");
  assert_consistent(CUDALOAD_E_MALFORMED, &info);

  put(&im, 0x3c, IMAGE_SIZE - 10, 4); /* the headers would cross the end */
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);

  put(&im, 0x3c, 0xfffffff0u, 4);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("negative");
  put(&im, 0x3c, 0x80000000u, 4);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("negative");

  put(&im, 0x3c, 0x40, 4); /* inside the DOS stub: no signature there */
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("PE signature");
  free(im.b);
}

static void test_bad_optional_header(void **state) {
  cl_binary_info info;
  (void)state;
  {
    pe_image im = build_pe(1, 0x8664);
    put(&im, COFF_OFF + 16, 50, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("too short");
    put(&im, COFF_OFF + 16, 0, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    free(im.b);
  }
  {
    pe_image im = build_pe(1, 0x8664);
    put(&im, OPT_OFF, 0x107, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_UNSUPPORTED);
    put(&im, OPT_OFF, 0x999, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("magic");
    free(im.b);
  }
  {
    pe_image im = build_pe(1, 0x8664);
    put(&im, COFF_OFF + 2, 90, 2); /* section table past the end */
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("section header");
    /* More than the format allows: refused before a single read. */
    put(&im, COFF_OFF + 2, 0xffff, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("65535 sections (the PE format allows at most 96)");
    put(&im, COFF_OFF + 2, 97, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("97 sections");
    put(&im, COFF_OFF + 2, 0, 2); /* no sections: nothing maps an RVA */
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("outside every section");
    free(im.b);
  }
  {
    pe_image im = build_pe(1, 0x8664);
    im.b[0] = 'X';
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_UNSUPPORTED);
    free(im.b);
  }
}

static void test_import_pointing_outside(void **state) {
  pe_image im = build_pe(1, 0x8664);
  cl_binary_info info;
  (void)state;
  set_dir(&im, DIR_IMPORT, 0x9000, 40);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("import descriptor table RVA 0x9000");
  set_dir(&im, DIR_IMPORT, IMPORT_RVA, 80);

  put_import(&im, 1, 0x7777);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("RVA 0x7777");
  assert_consistent(CUDALOAD_E_MALFORMED, &info);

  /* In the section's raw bytes, but past its virtual size. */
  put_import(&im, 1, RDATA_VA + RDATA_SPAN + 8);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);

  /* A descriptor without a name. */
  put_import(&im, 1, 0);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("no DLL name");

  /* A name running into the end of its section without a NUL. */
  memset(im.b + at(RDATA_VA + RDATA_SPAN - 4), 'x', 4);
  put_import(&im, 1, RDATA_VA + RDATA_SPAN - 4);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("NUL");

  /* The delay-load table outside too. */
  put_import(&im, 1, NAME_CUDART);
  put_delay(&im, 0, 1, 0x7777);
  assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
  assert_error_contains("delay-load");
  free(im.b);
}

/* An image whose .rdata holds `count` non-zero import descriptors, then
 * nothing else: the section's end is the only terminator. */
static pe_image build_many_imports(unsigned count) {
  pe_image base = build_pe(1, 0x8664);
  pe_image im;
  uint32_t span = count * 20 + 16;
  uint32_t name_rva = RDATA_VA + count * 20;
  unsigned i;
  im.pe32plus = 1;
  im.size = IMAGE_SIZE + span;
  im.b = calloc(1, im.size);
  assert_non_null(im.b);
  memcpy(im.b, base.b, IMAGE_SIZE);
  free(base.b);
  set_section(&im, 0, RDATA_VA, span, span, IMAGE_SIZE);
  set_dir(&im, DIR_DELAY, 0, 0);
  for (i = 0; i < count; i++) {
    put(&im, IMAGE_SIZE + 20 * i + 12, name_rva, 4);
  }
  put_str(&im, IMAGE_SIZE + count * 20, "a.dll");
  return im;
}

static void test_descriptor_cap(void **state) {
  cl_binary_info info;
  (void)state;
  {
    pe_image im = build_many_imports(4096);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_int_equal(info.needed_count, 4096);
    assert_string_equal(info.needed[4095], "a.dll");
    cl_binary_info_free(&info);
    free(im.b);
  }
  {
    pe_image im = build_many_imports(4097);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("more than 4096");
    free(im.b);
  }
}

static void test_resource_cycles(void **state) {
  cl_binary_info info;
  int status;
  (void)state;
  {
    /* The language level points back at the root. */
    pe_image im = build_pe(1, 0x8664);
    put_res_entry(&im, RES_LANG_DIR, 0, 0x409, HIGH | RES_ROOT);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("deeper than 3 levels");
    free(im.b);
  }
  {
    /* The name level points at itself. */
    pe_image im = build_pe(1, 0x8664);
    put_res_entry(&im, RES_NAME_DIR, 0, 1, HIGH | RES_NAME_DIR);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("deeper than 3 levels");
    free(im.b);
  }
  {
    /* RT_VERSION points back at the root: the walk reaches the empty icon
     * directory and finds no version, in three steps. */
    pe_image im = build_pe(1, 0x8664);
    put_res_entry(&im, RES_ROOT, 2, 16, HIGH | RES_ROOT);
    status = parse_image(&im, &info);
    assert_int_equal(status, CUDALOAD_OK);
    assert_string_equal(info.file_version, "");
    assert_int_equal(info.needed_count, 4);
    cl_binary_info_free(&info);
    free(im.b);
  }
  {
    /* Every level points at the root, the root at itself. */
    pe_image im = build_pe(1, 0x8664);
    put_res_dir(&im, RES_ROOT, 0, 1);
    put_res_entry(&im, RES_ROOT, 0, 16, HIGH | RES_ROOT);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    free(im.b);
  }
  {
    /* Offsets and counts outside the resource section. */
    pe_image im = build_pe(1, 0x8664);
    put_res_entry(&im, RES_ROOT, 2, 16, HIGH | 0x7ffffff0u);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("outside the resource section");
    /* Counts far beyond the section, and no RT_VERSION to stop early. */
    put_res_entry(&im, RES_ROOT, 2, 17, HIGH | RES_NAME_DIR);
    put_res_dir(&im, RES_ROOT, 0xffff, 0xffff);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("more than its section holds");
    free(im.b);
  }
  {
    /* RT_VERSION given as data, not a directory. */
    pe_image im = build_pe(0, 0x14c);
    put_res_entry(&im, RES_ROOT, 2, 16, RES_DATA);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("not a directory");
    free(im.b);
  }
}

static void test_version_info_checks(void **state) {
  cl_binary_info info;
  (void)state;
  {
    pe_image im = build_pe(1, 0x8664);
    put_version_info(&im, 0xdeadbeefu);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("0xDEADBEEF");
    assert_error_contains("0xFEEF04BD");
    assert_consistent(CUDALOAD_E_MALFORMED, &info);
    free(im.b);
  }
  {
    pe_image im = build_pe(1, 0x8664);
    im.b[at(VERSION_RVA) + 6] = 'W';
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("VS_VERSION_INFO");
    free(im.b);
  }
  {
    /* No VS_FIXEDFILEINFO at all is allowed. */
    pe_image im = build_pe(1, 0x8664);
    put(&im, at(VERSION_RVA) + 2, 0, 2);
    assert_int_equal(parse_image(&im, &info), CUDALOAD_OK);
    assert_string_equal(info.file_version, "");
    cl_binary_info_free(&info);
    free(im.b);
  }
  {
    pe_image im = build_pe(1, 0x8664);
    put(&im, at(RSRC_VA) + RES_DATA + 4, 0x10000, 4); /* size too big */
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    put(&im, at(RSRC_VA) + RES_DATA + 4, 40, 4); /* size too small */
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    put(&im, at(RSRC_VA) + RES_DATA + 4, VERSION_SIZE, 4);
    put(&im, at(RSRC_VA) + RES_DATA, 0x5000, 4); /* RVA outside */
    assert_int_equal(parse_image(&im, &info), CUDALOAD_E_MALFORMED);
    assert_error_contains("VS_VERSIONINFO RVA");
    free(im.b);
  }
}

static void test_read_errors(void **state) {
  pe_image im = build_pe(1, 0x8664);
  int reads;
  (void)state;
  for (reads = 0; reads < 200; reads++) {
    failing_source src = {im.b, im.size, reads};
    cl_reader r = {im.size, failing_read_at, &src};
    cl_binary_info info;
    int status = cl_pe_parse(&r, "flaky.dll", &info);
    if (status == CUDALOAD_OK) {
      assert_full_fields(&info, 64);
      cl_binary_info_free(&info);
      break;
    }
    assert_int_equal(status, CUDALOAD_E_IO);
    assert_error_contains("flaky.dll");
    assert_error_contains("simulated read error");
    assert_null(info.needed);
  }
  assert_true(reads < 200);
  free(im.b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pe32plus),
      cmocka_unit_test(test_pe32),
      cmocka_unit_test(test_machine_names),
      cmocka_unit_test(test_binary_parse_dispatches_pe),
      cmocka_unit_test(test_no_imports_no_resources),
      cmocka_unit_test(test_few_data_directories),
      cmocka_unit_test(test_import_ends_at_section_end),
      cmocka_unit_test(test_old_style_delay_descriptor),
      cmocka_unit_test(test_every_truncation),
      cmocka_unit_test(test_bad_lfanew),
      cmocka_unit_test(test_bad_optional_header),
      cmocka_unit_test(test_import_pointing_outside),
      cmocka_unit_test(test_descriptor_cap),
      cmocka_unit_test(test_resource_cycles),
      cmocka_unit_test(test_version_info_checks),
      cmocka_unit_test(test_read_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
