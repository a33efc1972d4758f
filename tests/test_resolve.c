/* SPDX-License-Identifier: MIT */
/*
 * test_resolve.c - the loader model's rules (lib/loader/resolve.c), each alone
 * and in their order, on hand-built models over small trees of files made here
 * (ELF headers, PE images, an ld.so.cache). Nothing is loaded: whether the
 * rules are the loader's is what tests/loader_oracle checks against the
 * real loader; this checks that the code says what docs/loader.md says.
 *
 * The glibc rules run on POSIX hosts (their trees use symlinks, FIFOs and
 * '/' paths); the Windows rules run everywhere (under Wine too).
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
#include "cudaload.h"
#include "os/loader.h"
#include "os/platform.h"
#include "loader/resolve.h"
#include "common/strutil.h"
#include "test_paths.h"

#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#define SEP "\\"
#else
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_self.h"
#define SEP "/"
#endif

/* ------------------------------------------------------------------------ */
/* A scratch tree                                                           */
/* ------------------------------------------------------------------------ */

static char root[1024];

/* Paths under the scratch root, from a ring so a test may hold a few. */
static const char *at(const char *rel) {
  static char slots[16][2048];
  static unsigned next;
  char *out = slots[next++ % 16];
  snprintf(out, sizeof slots[0], "%s%s%s", root, rel[0] ? SEP : "", rel);
#ifdef _WIN32
  for (char *p = out; *p; ++p)
    if (*p == '/')
      *p = '\\';
#endif
  return out;
}

static void make_dirs(const char *rel) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", at(rel));
  for (char *p = buf + strlen(root) + 1; *p; ++p) {
    if (*p == '/' || *p == '\\') {
      char keep = *p;
      *p = '\0';
#ifdef _WIN32
      _mkdir(buf);
#else
      mkdir(buf, 0755);
#endif
      *p = keep;
    }
  }
#ifdef _WIN32
  _mkdir(buf);
#else
  mkdir(buf, 0755);
#endif
}

static void write_bytes(const char *rel, const unsigned char *b, size_t n) {
  char dir[2048];
  snprintf(dir, sizeof dir, "%s", rel);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0';
    make_dirs(dir);
  }
  FILE *f = fopen(at(rel), "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  fclose(f);
}

#ifndef _WIN32
/* The glibc rules' files. */
/* An ELF header that glibc's open_verify accepts (or, for another class
 * or machine, passes over): 64 bytes, ET_DYN. */
static void write_elf(const char *rel, int bits, unsigned machine) {
  unsigned char h[64] = {0x7f, 'E', 'L', 'F'};
  h[4] = bits == 32 ? 1 : 2;
  h[5] = 1;
  h[6] = 1;
  h[16] = 3; /* ET_DYN */
  h[18] = (unsigned char)(machine & 0xff);
  h[19] = (unsigned char)(machine >> 8);
  h[20] = 1; /* e_version */
  if (bits == 32)
    h[42] = 32; /* e_phentsize */
  else
    h[54] = 56;
  write_bytes(rel, h, sizeof h);
}

static void write_text(const char *rel, const char *text) {
  write_bytes(rel, (const unsigned char *)text, strlen(text));
}
#endif

/* A PE32+ image the reader accepts: headers only, no section. */
static void write_pe(const char *rel, unsigned machine) {
  unsigned char b[512] = {'M', 'Z'};
  b[0x3c] = 0x80;
  memcpy(b + 0x80, "PE\0\0", 4);
  b[0x84] = (unsigned char)(machine & 0xff);
  b[0x85] = (unsigned char)(machine >> 8);
  b[0x84 + 16] = 240; /* SizeOfOptionalHeader */
  b[0x84 + 18] = 0x22;
  b[0x84 + 19] = 0x20; /* DLL | EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE */
  b[0x98] = 0x0b;
  b[0x99] = 0x02;     /* PE32+ */
  b[0x98 + 108] = 16; /* NumberOfRvaAndSizes */
  write_bytes(rel, b, sizeof b);
}

/* A 64-bit DLL whose import table names `imports` (NULL-terminated), as a
 * linker writes it: one section holding the descriptors, the names and a
 * zero thunk per DLL. */
static void write_pe_imports(const char *rel, const char *const *imports) {
  unsigned char b[0x400] = {'M', 'Z'};
  b[0x3c] = 0x80;
  memcpy(b + 0x80, "PE\0\0", 4);
  b[0x84] = 0x64;
  b[0x85] = 0x86;     /* x64 */
  b[0x86] = 1;        /* one section */
  b[0x84 + 16] = 240; /* SizeOfOptionalHeader */
  b[0x84 + 18] = 0x22;
  b[0x84 + 19] = 0x20;
  unsigned char *opt = b + 0x98;
  opt[0] = 0x0b;
  opt[1] = 0x02;                  /* PE32+ */
  opt[56 + 1] = 0x20;             /* SizeOfImage 0x2000 */
  opt[60 + 1] = 0x02;             /* SizeOfHeaders 0x200 */
  opt[108] = 16;                  /* NumberOfRvaAndSizes */
  opt[112 + 8 + 1] = 0x10;        /* import table at RVA 0x1000 */
  opt[112 + 12] = 0xff;           /* its size */
  unsigned char *sec = opt + 240; /* the section header */
  memcpy(sec, ".idata", 6);
  sec[8 + 1] = 0x02;  /* VirtualSize 0x200 */
  sec[12 + 1] = 0x10; /* VirtualAddress 0x1000 */
  sec[16 + 1] = 0x02; /* SizeOfRawData 0x200 */
  sec[20 + 1] = 0x02; /* PointerToRawData 0x200 */
  unsigned char *idata = b + 0x200;
  size_t name_at = 0x100, k = 0;
  for (; imports[k]; ++k) {
    unsigned char *desc = idata + 20 * k;
    unsigned rva = 0x1000 + (unsigned)name_at;
    desc[12] = (unsigned char)(rva & 0xff); /* Name */
    desc[13] = (unsigned char)(rva >> 8);
    desc[16] = 0xf0; /* FirstThunk: a zero entry at RVA 0x10f0 */
    desc[17] = 0x10;
    size_t n = strlen(imports[k]) + 1;
    assert_true(name_at + n <= 0x200);
    memcpy(idata + name_at, imports[k], n);
    name_at += n;
  }
  assert_true(20 * (k + 1) <= 0xf0);
  write_bytes(rel, b, sizeof b);
}

static int remove_entry(const char *name, cl_file_kind kind, void *opaque);

static void remove_tree(const char *path) {
  cl_os_list_dir(path, remove_entry, (void *)path);
#ifdef _WIN32
  _rmdir(path);
#else
  rmdir(path);
#endif
}

static int remove_entry(const char *name, cl_file_kind kind, void *opaque) {
  char child[2048];
  snprintf(child, sizeof child, "%s%s%s", (const char *)opaque, SEP, name);
  if (kind == CL_KIND_UNKNOWN)
    kind = cl_os_lstat_kind(child);
  if (kind == CL_KIND_DIRECTORY)
    remove_tree(child);
  else
    remove(child);
  return 0;
}

static int setup(void **state) {
  (void)state;
#ifdef _WIN32
  char tmp[MAX_PATH];
  GetTempPathA(sizeof tmp, tmp);
  snprintf(root, sizeof root, "%sh13res%lu", tmp,
           (unsigned long)GetCurrentProcessId());
  _mkdir(root);
#else
  snprintf(root, sizeof root, "/tmp/test_resolve.XXXXXX");
  if (!mkdtemp(root))
    return -1;
#endif
  return 0;
}

static int teardown(void **state) {
  (void)state;
  remove_tree(root);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */
/* ------------------------------------------------------------------------ */

static void resolve_ok(cl_loader_model *m, const cl_requester *req,
                       const char *name, cl_resolution *r) {
  assert_int_equal(cl_resolve(m, req, name, r), CUDALOAD_OK);
}

static void expect(const cl_resolution *r, cl_resolve_rule rule,
                   const char *path) {
  if (r->rule != rule) {
    print_error("rule %s, expected %s (%s)\n", cl_resolve_rule_name(r->rule),
                cl_resolve_rule_name(rule), r->detail ? r->detail : "");
    fail();
  }
  if (path)
    assert_string_equal(r->path, path);
  else
    assert_null(r->path);
}

/* The rules of the steps, in order, as "rule:kind" words. */
static void expect_steps(const cl_resolution *r, const char *want) {
  char got[4096] = "";
  static const char *const kinds[] = {"absent", "taken", "skipped", "fatal"};
  for (size_t i = 0; i < r->step_count; ++i) {
    size_t n = strlen(got);
    snprintf(got + n, sizeof got - n, "%s%s:%s", i ? " " : "",
             cl_resolve_rule_name(r->steps[i].rule), kinds[r->steps[i].kind]);
  }
  if (strcmp(got, want) != 0) {
    print_error("steps \"%s\",\nexpected \"%s\"\n", got, want);
    fail();
  }
}

static void test_rule_names(void **state) {
  (void)state;
  assert_string_equal(cl_resolve_rule_name(CL_RULE_NOT_FOUND), "not-found");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_AS_GIVEN), "as-given");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_ALREADY_LOADED),
                      "already-loaded");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_RPATH), "rpath");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_LD_LIBRARY_PATH),
                      "ld-library-path");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_RUNPATH), "runpath");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_LD_SO_CACHE), "ld-so-cache");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_DEFAULT_DIRS),
                      "default-dirs");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_KNOWN_DLL), "known-dll");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_APP_DIR),
                      "application-folder");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_DLL_LOAD_DIR),
                      "dll-load-folder");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_USER_DIRS), "user-folders");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_SYSTEM32), "system32");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_SYSTEM), "system");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_WINDOWS_DIR),
                      "windows-folder");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_CURRENT_DIR),
                      "current-folder");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_PATH_VARIABLE),
                      "path-variable");
  assert_string_equal(cl_resolve_rule_name(CL_RULE_API_SET), "api-set");
}

#ifndef _WIN32
/* ------------------------------------------------------------------------ */
/* Linux (glibc)                                                            */
/* ------------------------------------------------------------------------ */

/* A Linux model whose default folder is the tree's "sys" (no cache). */
static void linux_model(cl_loader_model *m) {
  cl_loader_model_init(m, CL_NAMING_LINUX);
  assert_int_equal(cl_loader_model_append(&m->default_dirs,
                                          &m->default_dir_count, at("sys")),
                   CUDALOAD_OK);
  make_dirs("sys");
}

static cl_binary_info lists(const char *rpath, const char *runpath) {
  cl_binary_info info;
  memset(&info, 0, sizeof info);
  info.rpath = (char *)(rpath ? rpath : "");
  info.runpath = (char *)(runpath ? runpath : "");
  return info;
}

/* Linux 2: by SONAME, wherever it was loaded from, with no search. */
static void test_linux_already_loaded_by_soname(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("lib/libfoo.so.1", 64, 62);
  cl_loader_model_add_loaded(&m, "/elsewhere/libfoo-1.2.so", "libfoo.so.1");
  cl_binary_info info = lists(NULL, at("lib"));
  cl_requester req = {at("app/libapp.so"), &info, NULL};
  resolve_ok(&m, &req, "libfoo.so.1", &r);
  expect(&r, CL_RULE_ALREADY_LOADED, "/elsewhere/libfoo-1.2.so");
  assert_int_equal(r.loaded_index, 0);
  expect_steps(&r, "already-loaded:taken");
  cl_resolution_free(&r);
  /* By the name the loader has for it, too. */
  resolve_ok(&m, NULL, "/elsewhere/libfoo-1.2.so", &r);
  expect(&r, CL_RULE_ALREADY_LOADED, "/elsewhere/libfoo-1.2.so");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* A name holding '/' is opened as written; tokens expand for the
 * requester. */
static void test_linux_as_given(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("given/libg.so", 64, 62);
  resolve_ok(&m, NULL, at("given/libg.so"), &r);
  expect(&r, CL_RULE_AS_GIVEN, at("given/libg.so"));
  cl_resolution_free(&r);
  cl_binary_info info = lists(NULL, NULL);
  cl_requester req = {at("given/libreq.so"), &info, NULL};
  resolve_ok(&m, &req, "$ORIGIN/libg.so", &r);
  expect(&r, CL_RULE_AS_GIVEN, at("given/libg.so"));
  cl_resolution_free(&r);
  resolve_ok(&m, NULL, at("given/libnone.so"), &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "as-given:absent");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 9: DT_RPATH of the requester, then of each object up its chain,
 * then the executable's. */
static void test_linux_rpath_chain(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("top/libx.so.1", 64, 62);
  write_elf("exe/liby.so.1", 64, 62);
  cl_binary_info top_info = lists("$ORIGIN", NULL);
  cl_binary_info mid_info = lists(NULL, NULL);
  cl_requester top = {at("top/libtop.so"), &top_info, NULL};
  cl_requester mid = {at("mid/libmid.so"), &mid_info, &top};
  resolve_ok(&m, &mid, "libx.so.1", &r);
  expect(&r, CL_RULE_RPATH, at("top/libx.so.1"));
  assert_string_equal(r.steps[r.step_count - 1].source, at("top/libtop.so"));
  cl_resolution_free(&r);
  /* Not in the chain: the executable's DT_RPATH, searched after it. */
  cl_loader_model_set(&m.exe_path, at("exe/prog"));
  cl_loader_model_set(&m.exe_rpath, "$ORIGIN");
  resolve_ok(&m, &mid, "liby.so.1", &r);
  expect(&r, CL_RULE_RPATH, at("exe/liby.so.1"));
  expect_steps(&r, "rpath:absent rpath:taken");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 9, 11: a requester with DT_RUNPATH uses no DT_RPATH at all (its own
 * and its chain's are ignored), and its DT_RUNPATH is not inherited. */
static void test_linux_runpath_turns_rpath_off(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("chain/libz.so.1", 64, 62);
  write_elf("own/libz.so.1", 64, 62);
  cl_binary_info top_info = lists(at("chain"), NULL);
  cl_binary_info req_info = lists(at("chain"), at("own"));
  cl_requester top = {at("top/libtop.so"), &top_info, NULL};
  cl_requester req = {at("req/libreq.so"), &req_info, &top};
  resolve_ok(&m, &req, "libz.so.1", &r);
  expect(&r, CL_RULE_RUNPATH, at("own/libz.so.1"));
  expect_steps(&r, "rpath:skipped runpath:taken");
  cl_resolution_free(&r);
  /* The child of an object with DT_RUNPATH inherits nothing of it. */
  cl_binary_info child_info = lists(NULL, NULL);
  cl_binary_info runpath_only = lists(NULL, at("own"));
  cl_requester parent = {at("p/libp.so"), &runpath_only, NULL};
  cl_requester child = {at("c/libc1.so"), &child_info, &parent};
  resolve_ok(&m, &child, "libz.so.1", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "default-dirs:absent");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 4, 10: DT_RPATH, then LD_LIBRARY_PATH, then DT_RUNPATH. */
static void test_linux_ld_library_path_order(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("rp/liba.so.1", 64, 62);
  write_elf("llp/liba.so.1", 64, 62);
  write_elf("llp/libb.so.1", 64, 62);
  write_elf("run/libb.so.1", 64, 62);
  cl_loader_model_set(&m.ld_library_path, at("llp"));
  cl_binary_info with_rpath = lists(at("rp"), NULL);
  cl_binary_info with_runpath = lists(NULL, at("run"));
  cl_requester a = {at("x/libx.so"), &with_rpath, NULL};
  cl_requester b = {at("x/libx.so"), &with_runpath, NULL};
  resolve_ok(&m, &a, "liba.so.1", &r);
  expect(&r, CL_RULE_RPATH, at("rp/liba.so.1"));
  cl_resolution_free(&r);
  resolve_ok(&m, &b, "libb.so.1", &r);
  expect(&r, CL_RULE_LD_LIBRARY_PATH, at("llp/libb.so.1"));
  cl_resolution_free(&r);
  /* Secure execution: LD_LIBRARY_PATH is ignored. */
  m.secure = 1;
  resolve_ok(&m, &b, "libb.so.1", &r);
  expect(&r, CL_RULE_RUNPATH, at("run/libb.so.1"));
  expect_steps(&r, "ld-library-path:skipped runpath:taken");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

static char *joined(char **dirs, size_t count) {
  static char out[4096];
  out[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    size_t n = strlen(out);
    snprintf(out + n, sizeof out - n, "%s[%s]", i ? " " : "", dirs[i]);
  }
  return out;
}

static void expect_list(cl_loader_model *m, const char *list, const char *sep,
                        const char *object, const char *want) {
  char **dirs = NULL;
  size_t count = 0;
  assert_int_equal(cl_resolve_expand_list(m, list, sep, object, &dirs, &count),
                   CUDALOAD_OK);
  const char *got = joined(dirs, count);
  if (strcmp(got, want) != 0) {
    print_error("%s -> %s, expected %s\n", list, got, want);
    fail();
  }
  for (size_t i = 0; i < count; ++i)
    free(dirs[i]);
  free(dirs);
}

/* Linux 12: token expansion and the shape of search lists. */
static void test_linux_tokens_and_lists(void **state) {
  (void)state;
  cl_loader_model m;
  cl_loader_model_init(&m, CL_NAMING_LINUX);
  cl_loader_model_set(&m.lib_token, "lib/x86_64-linux-gnu");
  cl_loader_model_set(&m.platform_token, "haswell");
  cl_loader_model_set(&m.exe_path, "/opt/app/bin/prog");
  cl_loader_model_set(&m.current_dir, "/srv/app");
  expect_list(&m, "$ORIGIN/../lib:${ORIGIN}", ":", "/a/b/libx.so",
              "[/a/b/../lib] [/a/b]");
  expect_list(&m, "/x/$LIB/$PLATFORM:/y/${LIB}", ":", "/a/libx.so",
              "[/x/lib/x86_64-linux-gnu/haswell] [/y/lib/x86_64-linux-gnu]");
  /* Not tokens: kept as written. */
  expect_list(&m, "/x/$ORIGINAL:/y/$FOO:/z/${ORIGIN", ":", "/a/libx.so",
              "[/x/$ORIGINAL] [/y/$FOO] [/z/${ORIGIN]");
  /* An empty entry is the current folder (""), kept; trailing slashes go;
   * a folder is listed once. */
  expect_list(&m, "/usr/local/cuda-11.8/lib:", ":", "/a/libx.so",
              "[/usr/local/cuda-11.8/lib] []");
  expect_list(&m, "/a//:/a:/:", ":", "/a/libx.so", "[/a] [/] []");
  /* The executable's $ORIGIN; a relative object's is under the current
   * folder; "/" for a file in the root. */
  expect_list(&m, "$ORIGIN/../lib", ":", NULL, "[/opt/app/bin/../lib]");
  expect_list(&m, "$ORIGIN", ":", "sub/libr.so", "[/srv/app/sub]");
  expect_list(&m, "$ORIGIN", ":", "/libroot.so", "[/]");
  /* LD_LIBRARY_PATH: ';' separates too. */
  expect_list(&m, "/p;/q:/r", ":;", NULL, "[/p] [/q] [/r]");
  /* A token with no value drops the entry. */
  cl_loader_model_set(&m.platform_token, NULL);
  expect_list(&m, "/x/$PLATFORM:/y", ":", "/a/libx.so", "[/y]");
  /* Secure: $ORIGIN only as the first thing of an entry, and for the
   * executable only into a trusted (default) folder. */
  m.secure = 1;
  cl_loader_model_append(&m.default_dirs, &m.default_dir_count, "/usr/lib");
  expect_list(&m, "$ORIGIN/lib:/x/$ORIGIN", ":", "/a/libx.so", "[/a/lib]");
  cl_loader_model_set(&m.exe_path, "/usr/lib/app/prog");
  expect_list(&m, "$ORIGIN/../x:$ORIGIN/../../../tmp", ":", NULL,
              "[/usr/lib/app/../x]");
  cl_loader_model_free(&m);
}

/* Linux 11: an empty DT_RUNPATH entry finds files in the current folder. */
static void test_linux_empty_entry_is_current_folder(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("cwd/libcw.so.1", 64, 62);
  cl_loader_model_set(&m.current_dir, at("cwd"));
  cl_binary_info info = lists(NULL, "/nonexistent-h13:");
  cl_requester req = {at("x/libx.so"), &info, NULL};
  resolve_ok(&m, &req, "libcw.so.1", &r);
  expect(&r, CL_RULE_RUNPATH, at("cwd/libcw.so.1"));
  expect_steps(&r, "runpath:absent runpath:taken");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 15: hwcaps subfolders first, in their order, in every folder. */
static void test_linux_hwcaps_subfolders(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  cl_loader_model_append(&m.hwcaps_subdirs, &m.hwcaps_subdir_count,
                         "glibc-hwcaps/x86-64-v3/");
  cl_loader_model_append(&m.hwcaps_subdirs, &m.hwcaps_subdir_count, "tls/");
  cl_loader_model_append(&m.hwcaps_subdirs, &m.hwcaps_subdir_count, "");
  write_elf("sys/libh.so.1", 64, 62);
  write_elf("sys/tls/libh.so.1", 64, 62);
  resolve_ok(&m, NULL, "libh.so.1", &r);
  expect(&r, CL_RULE_DEFAULT_DIRS, at("sys/tls/libh.so.1"));
  cl_resolution_free(&r);
  /* A model remembers the folders it found missing, as the loader does for
   * the life of a process: the folder made now is seen by a new one. */
  write_elf("sys/glibc-hwcaps/x86-64-v3/libh.so.1", 64, 62);
  cl_loader_model_free(&m);
  linux_model(&m);
  cl_loader_model_append(&m.hwcaps_subdirs, &m.hwcaps_subdir_count,
                         "glibc-hwcaps/x86-64-v3/");
  cl_loader_model_append(&m.hwcaps_subdirs, &m.hwcaps_subdir_count, "tls/");
  cl_loader_model_append(&m.hwcaps_subdirs, &m.hwcaps_subdir_count, "");
  resolve_ok(&m, NULL, "libh.so.1", &r);
  expect(&r, CL_RULE_DEFAULT_DIRS, at("sys/glibc-hwcaps/x86-64-v3/libh.so.1"));
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 16: another class or machine is passed over; a file that is not
 * ELF ends the search with the load failing. */
static void test_linux_other_class_machine_and_bad_files(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("a/libw.so.1", 32, 3);
  write_elf("b/libw.so.1", 64, 183);
  write_elf("c/libw.so.1", 64, 62);
  cl_loader_model_set(&m.ld_library_path, "");
  char llp[4096];
  snprintf(llp, sizeof llp, "%s:%s:%s", at("a"), at("b"), at("c"));
  cl_loader_model_set(&m.ld_library_path, llp);
  resolve_ok(&m, NULL, "libw.so.1", &r);
  expect(&r, CL_RULE_LD_LIBRARY_PATH, at("c/libw.so.1"));
  expect_steps(&r, "ld-library-path:skipped ld-library-path:skipped "
                   "ld-library-path:taken");
  assert_non_null(strstr(r.steps[0].outcome, "ELFCLASS32"));
  assert_non_null(strstr(r.steps[1].outcome, "aarch64"));
  cl_resolution_free(&r);
  /* A linker script named like a library, first: the load fails there. */
  write_text("a/libs.so",
             "/* GNU ld script\n   Use the shared library, but "
             "some functions are only in\n   the static library. */"
             "\nGROUP ( libs.so.1 libs_nonshared.a )\n");
  write_elf("c/libs.so", 64, 62);
  resolve_ok(&m, NULL, "libs.so", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "ld-library-path:fatal");
  assert_non_null(strstr(r.detail, "invalid ELF header"));
  cl_resolution_free(&r);
  /* Only other classes: not found, and the detail says why. */
  write_elf("a/libonly32.so", 32, 3);
  resolve_ok(&m, NULL, "libonly32.so", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 2: a file found is the loaded object when it is the same file
 * (st_dev/st_ino) under another name. */
static void test_linux_same_file_as_loaded(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("real/libn.so", 64, 62);
  make_dirs("alias");
  assert_int_equal(symlink(at("real/libn.so"), at("alias/libn.so")), 0);
  cl_loader_model_add_loaded(&m, at("alias/libn.so"), NULL);
  cl_binary_info info = lists(NULL, at("real"));
  cl_requester req = {at("x/libx.so"), &info, NULL};
  resolve_ok(&m, &req, "libn.so", &r);
  expect(&r, CL_RULE_ALREADY_LOADED, at("alias/libn.so"));
  expect_steps(&r, "runpath:taken already-loaded:taken");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* An ld.so.cache with one entry per folder kind (x86-64 flags). */
static void write_cache(const char *rel, const char *const *keys,
                        const char *const *paths, size_t n) {
  unsigned char b[4096];
  memset(b, 0, sizeof b);
  memcpy(b, "glibc-ld.so.cache1.1", 20);
  uint32_t count = (uint32_t)n;
  memcpy(b + 20, &count, 4);
  b[28] = 2; /* little endian */
  size_t strings = 48 + 24 * n, at_off = strings;
  for (size_t i = 0; i < n; ++i) {
    uint32_t flags = 0x0303, key, value;
    key = (uint32_t)at_off;
    memcpy(b + at_off, keys[i], strlen(keys[i]) + 1);
    at_off += strlen(keys[i]) + 1;
    value = (uint32_t)at_off;
    memcpy(b + at_off, paths[i], strlen(paths[i]) + 1);
    at_off += strlen(paths[i]) + 1;
    memcpy(b + 48 + 24 * i, &flags, 4);
    memcpy(b + 48 + 24 * i + 4, &key, 4);
    memcpy(b + 48 + 24 * i + 8, &value, 4);
  }
  uint32_t len = (uint32_t)(at_off - strings);
  memcpy(b + 24, &len, 4);
  write_bytes(rel, b, at_off);
}

/* Linux 13 and 14: the cache, then the default folders; DF_1_NODEFLIB
 * refuses cache entries under a default folder and skips the folders. */
static void test_linux_cache_default_dirs_and_nodeflib(void **state) {
  (void)state;
#if !defined(__x86_64__) || defined(__ILP32__)
  skip();
#endif
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  write_elf("sys/libsys.so.1", 64, 62);
  write_elf("opt/libopt.so.1", 64, 62);
  write_elf("sys/libdef.so.1", 64, 62);
  char sys_path[2048], opt_path[2048];
  snprintf(sys_path, sizeof sys_path, "%s", at("sys/libsys.so.1"));
  snprintf(opt_path, sizeof opt_path, "%s", at("opt/libopt.so.1"));
  const char *keys[] = {"libopt.so.1", "libsys.so.1"};
  const char *paths[] = {opt_path, sys_path};
  write_cache("ld.so.cache", keys, paths, 2);
  cl_loader_model_set(&m.ld_so_cache, at("ld.so.cache"));
  cl_binary_info plain = lists(NULL, NULL);
  cl_binary_info nodef = lists(NULL, NULL);
  nodef.nodeflib = 1;
  cl_requester req = {at("x/libx.so"), &plain, NULL};
  cl_requester strict = {at("x/liby.so"), &nodef, NULL};
  resolve_ok(&m, &req, "libsys.so.1", &r);
  expect(&r, CL_RULE_LD_SO_CACHE, at("sys/libsys.so.1"));
  cl_resolution_free(&r);
  resolve_ok(&m, &req, "libdef.so.1", &r);
  expect(&r, CL_RULE_DEFAULT_DIRS, at("sys/libdef.so.1"));
  expect_steps(&r, "ld-so-cache:absent default-dirs:taken");
  cl_resolution_free(&r);
  resolve_ok(&m, &strict, "libsys.so.1", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "ld-so-cache:skipped default-dirs:skipped");
  cl_resolution_free(&r);
  resolve_ok(&m, &strict, "libopt.so.1", &r);
  expect(&r, CL_RULE_LD_SO_CACHE, at("opt/libopt.so.1"));
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Every place tried is listed, in the loader's order. */
static void test_linux_not_found_lists_every_step(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  linux_model(&m);
  make_dirs("r1");
  make_dirs("r2");
  make_dirs("l1");
  make_dirs("u1");
  write_cache("ld.so.cache", NULL, NULL, 0);
  cl_loader_model_set(&m.ld_so_cache, at("ld.so.cache"));
  cl_loader_model_set(&m.ld_library_path, at("l1"));
  cl_loader_model_set(&m.exe_path, at("bin/prog"));
  cl_loader_model_set(&m.exe_rpath, at("r2"));
  cl_binary_info top_info = lists(at("r1"), NULL);
  cl_binary_info req_info = lists(NULL, NULL);
  cl_requester top = {at("t/libt.so"), &top_info, NULL};
  cl_requester req = {at("q/libq.so"), &req_info, &top};
  resolve_ok(&m, &req, "libnothere.so.1", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "rpath:absent rpath:absent ld-library-path:absent "
                   "ld-so-cache:absent default-dirs:absent");
  assert_string_equal(r.steps[0].folder, at("r1"));
  assert_string_equal(r.steps[0].source, at("t/libt.so"));
  assert_string_equal(r.steps[1].folder, at("r2"));
  assert_string_equal(r.steps[2].folder, at("l1"));
  assert_string_equal(r.steps[4].folder, at("sys"));
  cl_resolution_free(&r);
  /* With DT_RUNPATH: no RPATH steps, RUNPATH after LD_LIBRARY_PATH. */
  cl_binary_info run_info = lists(NULL, at("u1"));
  cl_requester run = {at("q/libq.so"), &run_info, &top};
  resolve_ok(&m, &run, "libnothere.so.1", &r);
  expect_steps(&r, "ld-library-path:absent runpath:absent "
                   "ld-so-cache:absent default-dirs:absent");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Linux 17: the closure: breadth first, each dependency for its requester; a
 * missing dependency fails the open and the model keeps nothing of it. */
static void test_linux_closure_and_failed_open(void **state) {
  (void)state;
  const char *consumer =
      test_fixture_path("preload/consumers/libconsumer_cudnn9.so");
  if (cl_os_stat_kind(consumer, NULL) != CL_KIND_REGULAR)
    skip();
  cl_loader_model m;
  cl_load_tree t;
  assert_int_equal(cl_loader_model_init_system(&m), CUDALOAD_OK);
  /* The host's cache may list a real libcudnn.so.9: search the default
   * folders only. */
  cl_loader_model_set(&m.ld_so_cache, NULL);
  size_t before = m.loaded_count;
  assert_int_equal(cl_resolve_load(&m, consumer, NULL, NULL, &t), CUDALOAD_OK);
  assert_true(t.failed); /* libcudnn.so.9 is nowhere the loader looks */
  assert_int_equal(m.loaded_count, before);
  int saw = 0;
  for (size_t i = 0; i < t.edge_count; ++i)
    if (strcmp(t.edges[i].name, "libcudnn.so.9") == 0) {
      saw = 1;
      assert_int_equal(t.edges[i].how.rule, CL_RULE_NOT_FOUND);
      assert_int_equal(t.edges[i].to, SIZE_MAX);
    }
  assert_true(saw);
  cl_load_tree_free(&t);
  cl_loader_model_set(&m.ld_library_path, test_fixture_path("preload/cudnn9"));
  assert_int_equal(cl_resolve_load(&m, consumer, NULL, NULL, &t), CUDALOAD_OK);
  assert_false(t.failed);
  assert_string_equal(t.objects[0].path, consumer);
  assert_int_equal(t.edges[0].how.rule, CL_RULE_AS_GIVEN);
  saw = 0;
  for (size_t i = 0; i < t.edge_count; ++i)
    if (strcmp(t.edges[i].name, "libcudnn.so.9") == 0) {
      saw = 1;
      assert_int_equal(t.edges[i].how.rule, CL_RULE_LD_LIBRARY_PATH);
      assert_int_equal(t.edges[i].from, 0);
    }
  assert_true(saw);
  assert_true(m.loaded_count > before);
  cl_load_tree_free(&t);
  cl_loader_model_free(&m);
}

/* The host model: this process, its SONAMEs read from memory, and
 * LD_LIBRARY_PATH as the process started with it (Linux 1). */
static void test_linux_host_model(void **state) {
  (void)state;
  cl_loader_model m;
  char *started_with =
      getenv("LD_LIBRARY_PATH") ? strdup(getenv("LD_LIBRARY_PATH")) : NULL;
  setenv("LD_LIBRARY_PATH", "/h13-set-after-start", 1);
  assert_int_equal(cl_loader_model_init_host(&m), CUDALOAD_OK);
  if (started_with) {
    assert_string_equal(m.ld_library_path, started_with);
    setenv("LD_LIBRARY_PATH", started_with, 1);
  } else {
    assert_null(m.ld_library_path);
    unsetenv("LD_LIBRARY_PATH");
  }
  free(started_with);
  assert_true(m.default_dir_count > 0);
  assert_non_null(m.exe_path);
  int libc = 0;
  for (size_t i = 0; i < m.loaded_count; ++i)
    libc |= m.loaded[i].soname && strcmp(m.loaded[i].soname, "libc.so.6") == 0;
#ifdef __GLIBC__
  assert_true(libc);
#endif
  cl_loader_model_free(&m);
}

/* cl_os_loader_find_loaded must not open what LD_LIBRARY_PATH holds: run in a
 * child started with a FIFO named like a library on LD_LIBRARY_PATH (a
 * dlopen(RTLD_NOLOAD) would block opening it). */
static void test_find_loaded_opens_nothing(void **state) {
  (void)state;
  make_dirs("fifo");
  assert_int_equal(mkfifo(at("fifo/libh13fifo.so.1"), 0600), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("LD_LIBRARY_PATH", at("fifo"), 1);
    const char *const args[] = {"--find-loaded", "libh13fifo.so.1", NULL};
    exec_self(args);
  }
  int status = 0;
  for (int waited = 0; waited < 200; ++waited) {
    if (waitpid(pid, &status, WNOHANG) == pid)
      break;
    usleep(50000);
    if (waited == 199) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      print_error("cl_os_loader_find_loaded blocked on the FIFO\n");
      fail();
    }
  }
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}
#endif /* !_WIN32 */

/* ------------------------------------------------------------------------ */
/* Windows                                                                  */
/* ------------------------------------------------------------------------ */

static void windows_model(cl_loader_model *m) {
  cl_loader_model_init(m, CL_NAMING_WINDOWS);
  cl_loader_model_set(&m->app_dir, at("app"));
  cl_loader_model_set(&m->system32, at("win/System32"));
  cl_loader_model_set(&m->system_dir, at("win/System"));
  cl_loader_model_set(&m->windows_dir, at("win"));
  cl_loader_model_set(&m->current_dir, at("cwd"));
  char path[4096];
  snprintf(path, sizeof path, "%s;;%s", at("p1"), at("p2"));
  cl_loader_model_set(&m->path, path);
  make_dirs("app");
  make_dirs("win/System32");
  make_dirs("win/System");
  make_dirs("cwd");
  make_dirs("p1");
  make_dirs("p2");
}

/* Windows 8: the standard order, SafeDllSearchMode on. */
static void test_windows_standard_order(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  windows_model(&m);
  resolve_ok(&m, NULL, "nothere.dll", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "application-folder:absent system32:absent system:absent "
                   "windows-folder:absent current-folder:absent "
                   "path-variable:absent path-variable:absent");
  cl_resolution_free(&r);
  write_pe("p2/one.dll", 0x8664);
  resolve_ok(&m, NULL, "one.dll", &r);
  expect(&r, CL_RULE_PATH_VARIABLE, at("p2/one.dll"));
  cl_resolution_free(&r);
  write_pe("cwd/one.dll", 0x8664);
  resolve_ok(&m, NULL, "one.dll", &r);
  expect(&r, CL_RULE_CURRENT_DIR, at("cwd/one.dll"));
  cl_resolution_free(&r);
  write_pe("win/System32/one.dll", 0x8664);
  resolve_ok(&m, NULL, "one.dll", &r);
  expect(&r, CL_RULE_SYSTEM32, at("win/System32/one.dll"));
  cl_resolution_free(&r);
  write_pe("app/one.dll", 0x8664);
  resolve_ok(&m, NULL, "one", &r); /* ".dll" is appended */
  expect(&r, CL_RULE_APP_DIR, at("app/one.dll"));
  cl_resolution_free(&r);
  /* SafeDllSearchMode off: the current folder right after the
   * application's. */
  m.safe_dll_search_mode = 0;
  write_pe("cwd/two.dll", 0x8664);
  write_pe("win/System32/two.dll", 0x8664);
  resolve_ok(&m, NULL, "two.dll", &r);
  expect(&r, CL_RULE_CURRENT_DIR, at("cwd/two.dll"));
  cl_resolution_free(&r);
  /* SetDllDirectory: second, and the current folder is out. */
  cl_loader_model_set(&m.dll_directory, at("dd"));
  write_pe("dd/two.dll", 0x8664);
  resolve_ok(&m, NULL, "two.dll", &r);
  expect(&r, CL_RULE_USER_DIRS, at("dd/two.dll"));
  cl_resolution_free(&r);
  resolve_ok(&m, NULL, "nothere.dll", &r);
  expect_steps(&r, "application-folder:absent user-folders:absent "
                   "system32:absent system:absent windows-folder:absent "
                   "path-variable:absent path-variable:absent");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Windows 10: loaded modules by base name (any case, wherever they
 * came from), API sets, KnownDLLs. */
static void test_windows_loaded_known_and_api_sets(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  windows_model(&m);
  write_pe("app/cudnn64_8.dll", 0x8664);
  cl_loader_model_add_loaded(&m, at("other/cudnn64_8.dll"), "cudnn64_8.dll");
  resolve_ok(&m, NULL, "CUDNN64_8.dll", &r);
  expect(&r, CL_RULE_ALREADY_LOADED, at("other/cudnn64_8.dll"));
  cl_resolution_free(&r);
  /* A full path is that file, even when a module of its name is loaded. */
  resolve_ok(&m, NULL, at("app/cudnn64_8.dll"), &r);
  expect(&r, CL_RULE_AS_GIVEN, at("app/cudnn64_8.dll"));
  cl_resolution_free(&r);
  cl_loader_model_append(&m.known_dlls, &m.known_dll_count, "kernel32.dll");
  write_pe("app/kernel32.dll", 0x8664);
  resolve_ok(&m, NULL, "KERNEL32.dll", &r);
  expect(&r, CL_RULE_KNOWN_DLL, at("win/System32/KERNEL32.dll"));
  cl_resolution_free(&r);
  resolve_ok(&m, NULL, "api-ms-win-crt-runtime-l1-1-0.dll", &r);
  expect(&r, CL_RULE_API_SET, NULL);
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Windows 9: LOAD_LIBRARY_SEARCH_* flags. */
static void test_windows_search_flags(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  windows_model(&m);
  write_pe("p1/u.dll", 0x8664);
  write_pe("user/u.dll", 0x8664);
  write_pe("deps/dep.dll", 0x8664);
  write_pe("app/dep.dll", 0x8664);
  cl_loader_model_append(&m.user_dirs, &m.user_dir_count, at("user"));
  m.search_flags = CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
  resolve_ok(&m, NULL, "u.dll", &r);
  expect(&r, CL_RULE_USER_DIRS, at("user/u.dll"));
  cl_resolution_free(&r);
  resolve_ok(&m, NULL, "nothere.dll", &r);
  expect_steps(&r, "application-folder:absent user-folders:absent "
                   "system32:absent");
  cl_resolution_free(&r);
  /* The folder of the DLL the load began with, first, for its imports. */
  m.search_flags =
      CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
  cl_binary_info info;
  memset(&info, 0, sizeof info);
  cl_requester top = {at("deps/top.dll"), &info, NULL};
  resolve_ok(&m, &top, "dep.dll", &r);
  expect(&r, CL_RULE_DLL_LOAD_DIR, at("deps/dep.dll"));
  cl_resolution_free(&r);
  /* SYSTEM32 alone. */
  m.search_flags = CL_LOAD_LIBRARY_SEARCH_SYSTEM32;
  resolve_ok(&m, NULL, "dep.dll", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  expect_steps(&r, "system32:absent");
  cl_resolution_free(&r);
  /* LOAD_WITH_ALTERED_SEARCH_PATH: the DLL's folder replaces the
   * application's. */
  m.search_flags = CL_LOAD_WITH_ALTERED_SEARCH_PATH;
  resolve_ok(&m, &top, "dep.dll", &r);
  expect(&r, CL_RULE_DLL_LOAD_DIR, at("deps/dep.dll"));
  cl_resolution_free(&r);
  /* SetDefaultDllDirectories: a plain load takes its flags. */
  m.search_flags = 0;
  m.default_search_flags = CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
  resolve_ok(&m, NULL, "nothere.dll", &r);
  expect_steps(&r, "application-folder:absent user-folders:absent "
                   "system32:absent");
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* Windows 11: a DLL for another machine, first of its name, fails the
 * load (193); a folder of that name is no file. */
static void test_windows_other_machine_stops(void **state) {
  (void)state;
  cl_loader_model m;
  cl_resolution r;
  windows_model(&m);
  write_pe("p1/m.dll", 0xaa64);
  write_pe("p2/m.dll", 0x8664);
  resolve_ok(&m, NULL, "m.dll", &r);
  expect(&r, CL_RULE_NOT_FOUND, NULL);
  assert_int_equal(r.steps[r.step_count - 1].kind, CL_STEP_FATAL);
  assert_non_null(strstr(r.detail, "193"));
  cl_resolution_free(&r);
  m.other_machine_skipped = 1;
  resolve_ok(&m, NULL, "m.dll", &r);
  expect(&r, CL_RULE_PATH_VARIABLE, at("p2/m.dll"));
  cl_resolution_free(&r);
  make_dirs("app/d.dll");
  write_pe("p1/d.dll", 0x8664);
  resolve_ok(&m, NULL, "d.dll", &r);
  expect(&r, CL_RULE_PATH_VARIABLE, at("p1/d.dll"));
  cl_resolution_free(&r);
  cl_loader_model_free(&m);
}

/* The names a file opens later by name, for the tests below: later.dll
 * from top.dll. */
static char **opens_later(const char *path, const cl_binary_info *info,
                          size_t *count, void *opaque) {
  (void)info;
  (void)opaque;
  *count = 0;
  if (strcmp(cl_path_basename(path), "top.dll") != 0)
    return NULL;
  char **names = calloc(1, sizeof *names);
  assert_non_null(names);
  names[0] = strdup("later.dll");
  *count = 1;
  return names;
}

static const cl_load_edge *edge_named(const cl_load_tree *t, const char *name) {
  for (size_t i = 0; i < t->edge_count; ++i)
    if (strcmp(t->edges[i].name, name) == 0)
      return &t->edges[i];
  return NULL;
}

/* Windows 10: an API set import (every DLL built with MSVC has
 * api-ms-win-crt-*) is mapped by the loader, and the open goes on: its
 * DLL loads and opens its names later. The model took it for a missing
 * import, failed the open and modelled none of the later opens, so
 * `explain` of ctranslate2.dll said nothing of what its cuDNN opens
 * (issue 45, item 2). */
static void test_windows_api_set_imports_satisfy_an_open(void **state) {
  (void)state;
  cl_loader_model m;
  cl_load_tree t;
  windows_model(&m);
  write_pe_imports("app/top.dll",
                   (const char *const[]){"api-ms-win-crt-runtime-l1-1-0.dll",
                                         "ext-ms-win-fake-l1-1-0.dll", NULL});
  assert_int_equal(
      cl_resolve_load(&m, at("app/top.dll"), opens_later, NULL, &t),
      CUDALOAD_OK);
  assert_false(t.failed);
  const cl_load_edge *api = edge_named(&t, "api-ms-win-crt-runtime-l1-1-0.dll");
  assert_non_null(api);
  assert_int_equal(api->how.rule, CL_RULE_API_SET);
  assert_non_null(edge_named(&t, "ext-ms-win-fake-l1-1-0.dll"));
  const cl_load_edge *later = edge_named(&t, "later.dll");
  assert_non_null(later); /* the open went on to the later opens */
  assert_true(later->lazy);
  assert_int_equal(later->how.rule, CL_RULE_NOT_FOUND);
  cl_load_tree_free(&t);
  cl_loader_model_free(&m);
}

/* Windows 14: a DLL opened as CPython opens an extension module or
 * ctypes.CDLL(path) (CL_LOAD_BESIDE_ITSELF) finds its imports beside it and
 * in the os.add_dll_directory folders; what it opens by name later does
 * not (a plain LoadLibrary: PATH); opened plainly by path, its imports
 * beside it are not found. */
static void test_windows_python_loads(void **state) {
  (void)state;
  cl_loader_model m;
  cl_load_tree t;
  windows_model(&m);
  write_pe_imports("pkg/top.dll",
                   (const char *const[]){"pydep.dll", "pyadded.dll", NULL});
  write_pe_imports("pkg/pydep.dll", (const char *const[]){NULL});
  write_pe_imports("pkg/later.dll", (const char *const[]){NULL});
  write_pe_imports("added/pyadded.dll", (const char *const[]){NULL});
  write_pe_imports("added/later.dll", (const char *const[]){NULL});
  cl_loader_model_append(&m.user_dirs, &m.user_dir_count, at("added"));
  /* Plainly by path: the standard order, which has no DLL folder. */
  assert_int_equal(
      cl_resolve_load(&m, at("pkg/top.dll"), opens_later, NULL, &t),
      CUDALOAD_OK);
  assert_true(t.failed);
  assert_int_equal(edge_named(&t, "pydep.dll")->how.rule, CL_RULE_NOT_FOUND);
  cl_load_tree_free(&t);
  /* As CPython loads it. */
  assert_int_equal(cl_resolve_load_flags(&m, at("pkg/top.dll"),
                                         CL_LOAD_BESIDE_ITSELF, opens_later,
                                         NULL, &t),
                   CUDALOAD_OK);
  assert_false(t.failed);
  expect(&edge_named(&t, "pydep.dll")->how, CL_RULE_DLL_LOAD_DIR,
         at("pkg/pydep.dll"));
  expect(&edge_named(&t, "pyadded.dll")->how, CL_RULE_USER_DIRS,
         at("added/pyadded.dll"));
  /* later.dll lies beside top.dll and in the added folder: LoadLibrary by
   * name searches neither. */
  const cl_load_edge *later = edge_named(&t, "later.dll");
  assert_non_null(later);
  assert_true(later->lazy);
  assert_int_equal(later->how.rule, CL_RULE_NOT_FOUND);
  cl_load_tree_free(&t);
  cl_loader_model_free(&m);
}

#ifndef _WIN32
int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--find-loaded") == 0) {
    /* The child of test_find_loaded_opens_nothing. */
    alarm(20);
    char *found = cl_os_loader_find_loaded(argv[2]);
    char *by_soname = cl_os_loader_find_loaded("libc.so.6");
    int ok = found == NULL && by_soname != NULL;
    free(found);
    free(by_soname);
    return ok ? 0 : 1;
  }
#else
int main(void) {
#endif
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rule_names),
#ifndef _WIN32
      cmocka_unit_test(test_linux_already_loaded_by_soname),
      cmocka_unit_test(test_linux_as_given),
      cmocka_unit_test(test_linux_rpath_chain),
      cmocka_unit_test(test_linux_runpath_turns_rpath_off),
      cmocka_unit_test(test_linux_ld_library_path_order),
      cmocka_unit_test(test_linux_tokens_and_lists),
      cmocka_unit_test(test_linux_empty_entry_is_current_folder),
      cmocka_unit_test(test_linux_hwcaps_subfolders),
      cmocka_unit_test(test_linux_other_class_machine_and_bad_files),
      cmocka_unit_test(test_linux_same_file_as_loaded),
      cmocka_unit_test(test_linux_cache_default_dirs_and_nodeflib),
      cmocka_unit_test(test_linux_not_found_lists_every_step),
      cmocka_unit_test(test_linux_closure_and_failed_open),
      cmocka_unit_test(test_linux_host_model),
      cmocka_unit_test(test_find_loaded_opens_nothing),
#endif
      cmocka_unit_test(test_windows_standard_order),
      cmocka_unit_test(test_windows_loaded_known_and_api_sets),
      cmocka_unit_test(test_windows_search_flags),
      cmocka_unit_test(test_windows_other_machine_stops),
      cmocka_unit_test(test_windows_api_set_imports_satisfy_an_open),
      cmocka_unit_test(test_windows_python_loads),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
