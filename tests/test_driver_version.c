/* SPDX-License-Identifier: MIT */
/*
 * test_driver_version.c - the driver's version without loading it
 * (lib/scan/driver_version.c): the CUDA table at both sides of every boundary
 * that matters, the three text rules (file name, /proc, VERSIONINFO), and
 * the sources in order over fixture files named like real drivers, including
 * a FIFO, a symlink loop and a huge file where the driver should be.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "scan/driver_version.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* Map `version` with the given naming; returns major * 100 + minor of the
 * newest full support, and the compat major through *compat. */
static int map(cl_naming naming, const char *version, int *compat) {
  cl_driver_cuda d;
  memset(&d, 0, sizeof d);
  snprintf(d.version, sizeof d.version, "%s", version);
  d.found = 1;
  int rc = cl_driver_cuda_map(naming, &d);
  if (compat)
    *compat = rc == 0 ? d.max_major_compat : -1;
  return rc == 0 ? d.cuda_major * 100 + d.cuda_minor : -1;
}

static void linux_table_boundaries(void **state) {
  (void)state;
  int compat = 0;
  /* Each full-support minimum, and the driver just below it. */
  static const struct {
    const char *below, *at;
    int cuda_below, cuda_at;
  } rows[] = {
      {"450.80.01", "450.80.02", 1100, 1100}, /* 11.0 full, 11.x compat */
      {"455.22.99", "455.23", 1100, 1101},
      {"520.61.04", "520.61.05", 1107, 1108},
      {"525.60.12", "525.60.13", 1108, 1200},
      {"530.30.01", "530.30.02", 1200, 1201},
      {"535.54.02", "535.54.03", 1201, 1202},
      {"545.23.05", "545.23.06", 1202, 1203},
      {"550.54.13", "550.54.14", 1203, 1204},
      {"555.42.01", "555.42.02", 1204, 1205},
      {"560.28.02", "560.28.03", 1205, 1206},
      {"570.25.99", "570.26", 1206, 1208},
      {"575.51.02", "575.51.03", 1208, 1209},
      {"580.65.05", "580.65.06", 1209, 1300},
      {"590.44.00", "590.44.01", 1300, 1301},
      {"595.45.03", "595.45.04", 1301, 1302},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; ++i) {
    assert_int_equal(map(CL_NAMING_LINUX, rows[i].below, NULL),
                     rows[i].cuda_below);
    assert_int_equal(map(CL_NAMING_LINUX, rows[i].at, NULL), rows[i].cuda_at);
  }
  /* 535.104.05 (12.2 Update 2's driver): numeric, not text, comparison. */
  assert_int_equal(map(CL_NAMING_LINUX, "535.104.05", &compat), 1202);
  assert_int_equal(compat, 12);
  /* Minor-version compatibility floors per major. */
  assert_int_equal(map(CL_NAMING_LINUX, "450.80.01", &compat), 1100);
  assert_int_equal(compat, 11);
  assert_int_equal(map(CL_NAMING_LINUX, "450.51.05", &compat), 1100);
  assert_int_equal(compat, 11); /* 11.0 in full */
  assert_int_equal(map(CL_NAMING_LINUX, "450.51.04", &compat), 1002);
  assert_int_equal(compat, 10);
  assert_int_equal(map(CL_NAMING_LINUX, "525.60.12", &compat), 1108);
  assert_int_equal(compat, 11);
  assert_int_equal(map(CL_NAMING_LINUX, "525.60.13", &compat), 1200);
  assert_int_equal(compat, 12);
  assert_int_equal(map(CL_NAMING_LINUX, "580.65.05", &compat), 1209);
  assert_int_equal(compat, 12);
  assert_int_equal(map(CL_NAMING_LINUX, "580.65.06", &compat), 1300);
  assert_int_equal(compat, 13);
  /* Older than the table, and a far future driver. */
  assert_int_equal(map(CL_NAMING_LINUX, "390.48", &compat), 0);
  assert_int_equal(compat, 0);
  assert_int_equal(map(CL_NAMING_LINUX, "999.1", &compat), 1302);
  assert_int_equal(compat, 13);
  /* Not a version. */
  assert_int_equal(map(CL_NAMING_LINUX, "latest", &compat), -1);
}

static void windows_table_boundaries(void **state) {
  (void)state;
  int compat = 0;
  /* 11.0 GA's own driver (451.48) is older than the 11.x compatibility
   * floor (452.39): below it, 11.0 only, and still major 11. */
  assert_int_equal(map(CL_NAMING_WINDOWS, "451.47", &compat), 1002);
  assert_int_equal(compat, 10);
  assert_int_equal(map(CL_NAMING_WINDOWS, "451.48", &compat), 1100);
  assert_int_equal(compat, 11);
  assert_int_equal(map(CL_NAMING_WINDOWS, "456.37", NULL), 1100);
  assert_int_equal(map(CL_NAMING_WINDOWS, "456.38", NULL), 1101);
  assert_int_equal(map(CL_NAMING_WINDOWS, "527.40", &compat), 1108);
  assert_int_equal(compat, 11);
  assert_int_equal(map(CL_NAMING_WINDOWS, "527.41", &compat), 1200);
  assert_int_equal(compat, 12);
  assert_int_equal(map(CL_NAMING_WINDOWS, "536.24", NULL), 1201);
  assert_int_equal(map(CL_NAMING_WINDOWS, "536.25", NULL), 1202);
  assert_int_equal(map(CL_NAMING_WINDOWS, "551.60", NULL), 1203);
  assert_int_equal(map(CL_NAMING_WINDOWS, "551.61", NULL), 1204);
  assert_int_equal(map(CL_NAMING_WINDOWS, "560.94", NULL), 1206);
  assert_int_equal(map(CL_NAMING_WINDOWS, "570.64", NULL), 1206);
  assert_int_equal(map(CL_NAMING_WINDOWS, "570.65", NULL), 1208);
  assert_int_equal(map(CL_NAMING_WINDOWS, "576.02", &compat), 1209);
  assert_int_equal(compat, 12);
  assert_int_equal(map(CL_NAMING_WINDOWS, "580.97", &compat), 1300);
  assert_int_equal(compat, 13);
  /* A Linux-only value must not leak into the Windows column. */
  assert_int_equal(map(CL_NAMING_WINDOWS, "525.60.13", &compat), 1108);
}

static void supports_major(void **state) {
  (void)state;
  cl_driver_cuda d;
  memset(&d, 0, sizeof d);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 12), -1); /* unknown */
  assert_int_equal(cl_driver_supports_cuda_major(NULL, 12), -1);
  snprintf(d.version, sizeof d.version, "535.104.05");
  d.found = 1;
  assert_int_equal(cl_driver_cuda_map(CL_NAMING_LINUX, &d), 0);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 11), 1);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 12), 1);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 13), 0);
}

static void version_parser(void **state) {
  (void)state;
  long p[CL_DRIVER_VERSION_PARTS];
  assert_int_equal(cl_driver_version_parse("535.104.05", p), 3);
  assert_int_equal(p[0], 535);
  assert_int_equal(p[1], 104);
  assert_int_equal(p[2], 5);
  assert_int_equal(cl_driver_version_parse("570.26", p), 2);
  static const char *bad[] = {
      "",          "1",      "535.",   ".535",   "535..104",  "535.1a",
      "535.1.2.3", "-535.1", " 535.1", "535.1 ", "1234567.1", "535.104.05\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
    assert_int_equal(cl_driver_version_parse(bad[i], p), 0);
  assert_int_equal(cl_driver_version_parse(NULL, p), 0);
}

static void file_name_rule(void **state) {
  (void)state;
  char v[32];
  assert_int_equal(
      cl_driver_version_from_file_name("libcuda.so.535.104.05", v, sizeof v),
      1);
  assert_string_equal(v, "535.104.05");
  assert_int_equal(
      cl_driver_version_from_file_name("libcuda.so.570.26", v, sizeof v), 1);
  assert_string_equal(v, "570.26");
  static const char *bad[] = {"libcuda.so.1",     "libcuda.so",
                              "libcuda.so.",      "libcudart.so.12.4.127",
                              "libcuda.so.535.x", "libnvidia-ml.so.535.104.05"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
    assert_int_equal(cl_driver_version_from_file_name(bad[i], v, sizeof v), 0);
  /* Too small a buffer is a refusal, not an overflow. */
  char small[6];
  assert_int_equal(cl_driver_version_from_file_name("libcuda.so.535.104.05",
                                                    small, sizeof small),
                   0);
}

static void proc_rule(void **state) {
  (void)state;
  char v[32];
  assert_int_equal(
      cl_driver_version_from_proc_text(
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat "
          "Aug 19 01:15:15 UTC 2023\nGCC version:  gcc version 12.2.0\n",
          v, sizeof v),
      1);
  assert_string_equal(v, "535.104.05");
  assert_int_equal(cl_driver_version_from_proc_text(
                       "NVRM version: NVIDIA UNIX Open Kernel Module for "
                       "aarch64  580.65.06  Release Build  (dvs-builder@U16)\n",
                       v, sizeof v),
                   1);
  assert_string_equal(v, "580.65.06");
  /* The GCC line's version is not the driver's. */
  assert_int_equal(cl_driver_version_from_proc_text(
                       "NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"
                       "GCC version:  gcc version 12.2.0\n",
                       v, sizeof v),
                   0);
  assert_int_equal(cl_driver_version_from_proc_text("", v, sizeof v), 0);
  assert_int_equal(
      cl_driver_version_from_proc_text("garbage 535.104.05\n", v, sizeof v), 0);
}

static void versioninfo_rule(void **state) {
  (void)state;
  char v[32];
  static const struct {
    const char *in, *out;
  } good[] = {{"32.0.15.6094", "560.94"},  {"32.0.15.8097", "580.97"},
              {"31.0.15.3623", "536.23"},  {"30.0.14.7141", "471.41"},
              {"27.21.14.5671", "456.71"}, {"32.0.15.7602", "576.02"},
              {"32.0.15.0601", "506.01"}};
  for (size_t i = 0; i < sizeof good / sizeof *good; ++i) {
    assert_int_equal(
        cl_driver_version_from_versioninfo(good[i].in, v, sizeof v), 1);
    assert_string_equal(v, good[i].out);
  }
  static const char *bad[] = {"12.4.0.0",
                              "32.0.15",
                              "32.0.15.60940",
                              "32.0.5.6094",
                              "32.0.15.6094.1",
                              "32.0.x.6094",
                              "",
                              "32.0.100.6094"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
    assert_int_equal(cl_driver_version_from_versioninfo(bad[i], v, sizeof v),
                     0);
}

static void nothing_found(void **state) {
  (void)state;
  cl_driver_sources s = {CL_NAMING_LINUX, NULL, NULL, NULL, NULL, NULL, NULL};
  cl_driver_cuda d;
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 0);
  assert_null(d.source);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 12), -1);
  s.naming = CL_NAMING_WINDOWS;
  s.driver = "relative/nvcuda.dll";
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 0);
  assert_non_null(strstr(d.why, "not an absolute path"));
}

/* A real PE nvcuda.dll whose VERSIONINFO (12.4.0.0, the fixture's CUDA
 * version) is not an NVIDIA driver's: read through the PE reader on every
 * host, and refused as "no driver version", as the override and as
 * System32's file. */
static void versioninfo_of_a_non_driver(void **state) {
  (void)state;
  SKIP_WITHOUT_FIXTURE("fake_cuda/windows/driver/nvcuda.dll");
  const char *dll = test_fixture_path("fake_cuda/windows/driver/nvcuda.dll");
  const char *folder = test_fixture_path("fake_cuda/windows/driver");
  cl_driver_sources s = {
      CL_NAMING_WINDOWS, dll, NULL, NULL, folder, NULL, NULL};
  cl_driver_cuda d;
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 0);
  assert_non_null(strstr(d.why, "VERSIONINFO"));
  assert_non_null(strstr(d.why, "nvcuda.dll"));
}

/* WSL 2, laid out as it is: /usr/lib/wsl/lib/libcuda.so.1 a plain file
 * named by its SONAME, no /proc/driver/nvidia/version, and the Windows
 * driver's store mounted under /usr/lib/wsl/drivers beside another
 * vendor's. The version comes from the store's nvcuda64.dll (WDDM
 * 32.0.15.6094: driver 560.94), mapped with the Windows column (560.94
 * supports CUDA 12.6 there; as a Linux number it would be 12.5). */
static void wsl_driver_store(void **state) {
  (void)state;
  /* The store's DLLs are PE fixtures: built with mingw-w64 only. */
  SKIP_WITHOUT_FIXTURE("fake_cuda/wsl/usr/lib/wsl/drivers/"
                       "nv_dispi.inf_amd64_7cc7738d8e428783/nvcuda64.dll");
  const char *libcuda =
      test_fixture_path("fake_cuda/wsl/usr/lib/wsl/lib/libcuda.so.1");
  const char *store = test_fixture_path("fake_cuda/wsl/usr/lib/wsl/drivers");
  const char *no_proc = test_fixture_path("fake_cuda/wsl/proc/driver/nvidia/"
                                          "version");
  cl_driver_sources s = {
      CL_NAMING_LINUX, libcuda, NULL, no_proc, NULL, NULL, NULL};
  cl_driver_cuda d;
  /* Before: the file sources find nothing. */
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 0);
  assert_non_null(strstr(d.why, "names no driver version"));
  s.wsl_drivers_dir = store;
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  if (!d.found)
    fail_msg("no driver version from %s: %s", store, d.why);
  assert_string_equal(d.version, "560.94");
  assert_string_equal(d.source, "WSL driver store");
  assert_non_null(strstr(d.path, "nv_dispi.inf_amd64_7cc7738d8e428783"));
  assert_non_null(strstr(d.path, "nvcuda64.dll"));
  assert_int_equal(d.cuda_major * 100 + d.cuda_minor, 1206);
  assert_int_equal(d.max_major_compat, 12);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 13), 0);
  /* Not WSL: the folder is not there, and nothing is made up. (The other
   * sources off: the fixture's long paths would fill `why`.) */
  s.driver = s.proc_version_path = NULL;
  s.wsl_drivers_dir = test_fixture_path("fake_cuda/wsl/no-such-folder");
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 0);
  assert_non_null(strstr(d.why, "not WSL"));
  /* A store without NVIDIA's folder (another vendor's only). */
  s.wsl_drivers_dir = test_fixture_path(
      "fake_cuda/wsl/usr/lib/wsl/drivers/iigd_dch.inf_amd64_0a1b2c3d4e5f6071");
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 0);
  assert_non_null(strstr(d.why, "no folder with nvcuda64.dll"));
}

#ifndef _WIN32
static char dir[256];

static const char *at(const char *name) {
  static char slots[8][512];
  static unsigned next;
  char *out = slots[next++ % 8];
  snprintf(out, sizeof slots[0], "%s/%s", dir, name);
  return out;
}

static void put_file(const char *path, const char *content) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(content, f);
  fclose(f);
}

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/cudaload-driver-version-XXXXXX");
  if (!mkdtemp(dir))
    return -1;
  char path[512];
  static const char *const subdirs[] = {"a", "b", "c", "stubs"};
  for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, subdirs[i]);
    if (mkdir(path, 0755) != 0)
      return -1;
  }
  return 0;
}

static int remove_dir(void **state) {
  (void)state;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* The override: libcuda.so.1 -> libcuda.so.525.60.13, as the driver
 * installs it; the version comes from the real file's name. */
static void override_follows_symlink(void **state) {
  (void)state;
  put_file(at("a/libcuda.so.525.60.13"), "not really ELF");
  assert_int_equal(symlink("libcuda.so.525.60.13", at("a/libcuda.so.1")), 0);
  cl_driver_sources s = {
      CL_NAMING_LINUX, at("a/libcuda.so.1"), NULL, NULL, NULL, NULL, NULL};
  cl_driver_cuda d;
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.found, 1);
  assert_string_equal(d.version, "525.60.13");
  assert_string_equal(d.source, "CUDALOAD_DRIVER / --driver");
  assert_non_null(strstr(d.path, "libcuda.so.525.60.13"));
  assert_int_equal(d.cuda_major, 12);
  assert_int_equal(d.cuda_minor, 0);
  assert_int_equal(d.max_major_compat, 12);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 13), 0);
  /* The same through cl_driver_cuda_read (the override parameter). */
  assert_int_equal(
      cl_driver_cuda_read(CL_NAMING_LINUX, at("a/libcuda.so.1"), &d),
      CUDALOAD_OK);
  assert_string_equal(d.version, "525.60.13");
  /* One below the 12.x floor: 11.8 only. */
  put_file(at("b/libcuda.so.525.60.12"), "x");
  s.driver = at("b/libcuda.so.525.60.12");
  assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
  assert_int_equal(d.cuda_major * 100 + d.cuda_minor, 1108);
  assert_int_equal(cl_driver_supports_cuda_major(&d, 12), 0);
}

/* Bad overrides fall through to the next source, which answers. */
static void bad_override_falls_through(void **state) {
  (void)state;
  put_file(at("proc_version"),
           "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed "
           "Feb 26 01:05:41 UTC 2025\n");
  /* A symlink loop, a FIFO, a version-less real name, a stub. */
  assert_int_equal(symlink("loop2", at("c/loop1")), 0);
  assert_int_equal(symlink("loop1", at("c/loop2")), 0);
  assert_int_equal(mkfifo(at("c/libcuda.so.535.104.05"), 0600), 0);
  put_file(at("c/libcuda.so.1"), "a real file named by its SONAME (WSL)");
  put_file(at("stubs/libcuda.so.550.54.14"), "stub");
  const char *overrides[] = {at("c/loop1"), at("c/libcuda.so.535.104.05"),
                             at("c/libcuda.so.1"),
                             at("stubs/libcuda.so.550.54.14"), at("c/missing")};
  for (size_t i = 0; i < sizeof overrides / sizeof *overrides; ++i) {
    cl_driver_sources s = {CL_NAMING_LINUX,
                           overrides[i],
                           NULL,
                           at("proc_version"),
                           NULL,
                           NULL,
                           NULL};
    cl_driver_cuda d;
    assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
    assert_int_equal(d.found, 1);
    assert_string_equal(d.version, "570.124.06");
    assert_string_equal(d.source, "/proc/driver/nvidia/version");
    assert_int_equal(d.cuda_major * 100 + d.cuda_minor, 1208);
  }
}

/* /proc at hostile paths: a FIFO (must not block), a huge file with no
 * version in its first page, garbage, a folder: unknown, with reasons. */
static void hostile_proc(void **state) {
  (void)state;
  assert_int_equal(mkfifo(at("fifo"), 0600), 0);
  FILE *f = fopen(at("huge"), "wb");
  assert_non_null(f);
  for (int i = 0; i < 100000; ++i)
    fputs("garbage garbage garbage garbage garbage garbage\n", f);
  fputs("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n", f);
  fclose(f);
  put_file(at("garbage"), "NVRM version: \xff\xfe 99999999999.1.1.1\n");
  const char *paths[] = {at("fifo"), at("huge"), at("garbage"), at("a"),
                         at("nonexistent")};
  for (size_t i = 0; i < sizeof paths / sizeof *paths; ++i) {
    cl_driver_sources s = {
        CL_NAMING_LINUX, NULL, NULL, paths[i], NULL, NULL, NULL};
    cl_driver_cuda d;
    assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
    assert_int_equal(d.found, 0);
    assert_null(d.source);
    assert_true(d.why[0] != '\0');
  }
}

/* A cache that is not a cache, and a missing one: passed over. */
static void hostile_ldcache(void **state) {
  (void)state;
  put_file(at("ld.so.cache"), "glibc-ld.so.cache1.1 but nothing after");
  put_file(at("proc_ok"), "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                          "550.54.14  x\n");
  const char *caches[] = {at("ld.so.cache"), at("fifo"), at("missing.cache")};
  for (size_t i = 0; i < sizeof caches / sizeof *caches; ++i) {
    cl_driver_sources s = {
        CL_NAMING_LINUX, NULL, caches[i], at("proc_ok"), NULL, NULL, NULL};
    cl_driver_cuda d;
    assert_int_equal(cl_driver_cuda_read_from(&s, &d), CUDALOAD_OK);
    assert_int_equal(d.found, 1);
    assert_string_equal(d.version, "550.54.14");
    assert_int_equal(d.cuda_major * 100 + d.cuda_minor, 1204);
  }
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(linux_table_boundaries),
      cmocka_unit_test(windows_table_boundaries),
      cmocka_unit_test(supports_major),
      cmocka_unit_test(version_parser),
      cmocka_unit_test(file_name_rule),
      cmocka_unit_test(proc_rule),
      cmocka_unit_test(versioninfo_rule),
      cmocka_unit_test(nothing_found),
      cmocka_unit_test(versioninfo_of_a_non_driver),
      cmocka_unit_test(wsl_driver_store),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
#ifndef _WIN32
  const struct CMUnitTest fs_tests[] = {
      cmocka_unit_test(override_follows_symlink),
      cmocka_unit_test(bad_override_falls_through),
      cmocka_unit_test(hostile_proc),
      cmocka_unit_test(hostile_ldcache),
  };
  failed += cmocka_run_group_tests(fs_tests, make_dir, remove_dir);
#endif
  return failed;
}
