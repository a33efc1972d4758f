/* SPDX-License-Identifier: MIT */
/*
 * test_loader.c - lib/os/loader.h against the real OS loader, with the fixture
 * libraries (real ELF .so files and PE DLLs exporting cudnnGetVersion and
 * fixture_identity; tests/fixtures/README.md).
 *
 * A load cannot be undone, so every case that loads runs in a process of its
 * own: the program runs itself again as `test_loader --scenario NAME` (a
 * fork and exec of /proc/self/exe on Linux, CreateProcessW of its own file
 * on Windows and under Wine). The parent's cmocka case for NAME passes when
 * that process exits 0, fails on anything else, and is skipped, visibly,
 * when it exits SCENARIO_SKIPPED after printing why. Cases that load nothing
 * run in the parent. `test_loader --scenario NAME` runs one case by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "load/library_open.h"
#include "os/loader.h"
#include "test_paths.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#include <tlhelp32.h>
#include <wchar.h>
#include <wctype.h>
#else
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec_self.h"
#endif

/* Exit status of a scenario process that skipped (as automake's). */
#define SCENARIO_SKIPPED 77

/* Sanitizer runtimes that intercept dlopen (ASan, TSan, MSan) abort the
 * process on RTLD_DEEPBIND; cl_os_loader_open refuses it there instead, and
 * the DEEPBIND cases check that refusal. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define TEST_UNDER_SANITIZER 1
#endif
#endif
#ifndef TEST_UNDER_SANITIZER
#define TEST_UNDER_SANITIZER 0
#endif

/* ------------------------------------------------------------------------ */
/* The fixture libraries                                                    */
/* ------------------------------------------------------------------------ */

#define CUDNN8_VERSION 8907 /* 8.9.7 */
#ifdef _WIN32
#define CUDNN8_FOLDER "windows/cudnn8"
#define CUDNN8_FILE "windows/cudnn8/cudnn64_8.dll"
#define CUDNN8_NAME "cudnn64_8.dll"
#define CUDNN8_WIDE_NAME L"cudnn64_8.dll"
#define CUDNN8_MISSING "windows/cudnn8/cudnn_missing64_8.dll"
#define CUDNN9_FILE "windows/site-packages/nvidia/cudnn/bin/cudnn64_9.dll"
#define CUDNN9_NAME "cudnn64_9.dll"
#define CUDNN9_VERSION 90100 /* 9.1.0 */
#define PRELOAD_CUDNN8_FOLDER "preload/windows/cudnn8"
#define PRELOAD_CUDNN8 "preload/windows/cudnn8/cudnn64_8.dll"
#define PRELOAD_CONSUMER8 "preload/windows/consumers/consumer_cudnn8.dll"
#else
#define CUDNN8_FOLDER "cudnn8_compat"
#define CUDNN8_FILE "cudnn8_compat/libcudnn.so.8"
#define CUDNN8_NAME "libcudnn.so.8"
#define CUDNN8_MISSING "cudnn8_compat/libcudnn_missing.so.8"
#define CUDNN9_FILE "wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9"
#define CUDNN9_NAME "libcudnn.so.9"
#define CUDNN9_VERSION 91900 /* 9.19.0 */
#define PRELOAD_CUDNN8 "preload/cudnn8/libcudnn.so.8"
#define PRELOAD_OPS_INFER8 "preload/cudnn8/libcudnn_ops_infer.so.8"
#define PRELOAD_CUDNN9 "preload/cudnn9/libcudnn.so.9"
#define PRELOAD_CONSUMER8 "preload/consumers/libconsumer_cudnn8.so"
#define PRELOAD_CONSUMER8_DEEPBIND                                             \
  "preload/consumers/libconsumer_cudnn8_deepbind.so"
#endif
#define PRELOAD_CUDNN9_VERSION 90100 /* the preload tree's cuDNN 9.1.0 */

/* Print why and leave the scenario process as skipped. */
static void skip_scenario(const char *reason, const char *detail) {
  print_message("[  SKIPPED ] %s%s%s\n", reason, detail ? ": " : "",
                detail ? detail : "");
  fflush(stdout);
  exit(SCENARIO_SKIPPED);
}

static int file_exists(const char *path) {
#ifdef _WIN32
  wchar_t wide[TEST_PATH_CAPACITY];
  if (!MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, TEST_PATH_CAPACITY))
    return 0;
  return GetFileAttributesW(wide) != INVALID_FILE_ATTRIBUTES;
#else
  return access(path, F_OK) == 0;
#endif
}

/* The host form of a fixture file; skips the scenario when the fixture
 * trees were not built (no compiler for them when configured). */
static const char *fixture(const char *relative) {
  const char *path = test_fixture_path(relative);
  if (!file_exists(path))
    skip_scenario("fixture not built (configure with a host C compiler, "
                  "and x86_64-w64-mingw32-gcc/-windres for DLLs)",
                  path);
  return path;
}

/* ------------------------------------------------------------------------ */
/* The OS, seen without the layer under test                                */
/* ------------------------------------------------------------------------ */

typedef void (*test_function)(void);

static test_function find_function(void *handle, const char *name) {
#ifdef _WIN32
  return (test_function)GetProcAddress((HMODULE)handle, name);
#else
  void *address = dlsym(handle, name);
  test_function function = NULL;
  /* ISO C has no cast from an object pointer to a function pointer. */
  if (address)
    memcpy(&function, &address, sizeof function);
  return function;
#endif
}

static test_function require_function(void *handle, const char *name) {
  test_function function = find_function(handle, name);
  if (!function)
    fail_msg("the loaded library exports no %s", name);
  return function;
}

/* cudnnGetVersion() of the library behind handle (its own definition). */
static size_t cudnn_version_of(void *handle) {
  size_t (*get_version)(void) =
      (size_t(*)(void))require_function(handle, "cudnnGetVersion");
  return get_version();
}

static const char *identity_of(void *handle) {
  const char *(*identity)(void) =
      (const char *(*)(void))require_function(handle, "fixture_identity");
  return identity();
}

static int call_int_function(void *handle, const char *name) {
  int (*function)(void) = (int (*)(void))require_function(handle, name);
  return function();
}

/* The canonical form of a path, for comparing files: Linux resolves
 * symlinks; Windows compares names without regard to case, so it is
 * upper-cased there (ASCII only: the fixture paths are ASCII). */
static void canonical(const char *path, char *out, size_t capacity) {
#ifdef _WIN32
  size_t i = 0;
  for (; path[i] && i + 1 < capacity; ++i)
    out[i] = path[i] == '/'                     ? '\\'
             : path[i] >= 'a' && path[i] <= 'z' ? (char)(path[i] - 32)
                                                : path[i];
  out[i] = '\0';
#else
  char resolved[PATH_MAX];
  snprintf(out, capacity, "%s", realpath(path, resolved) ? resolved : path);
#endif
}

static int same_file(const char *a, const char *b) {
  char ca[TEST_PATH_CAPACITY], cb[TEST_PATH_CAPACITY];
  canonical(a, ca, sizeof ca);
  canonical(b, cb, sizeof cb);
  return strcmp(ca, cb) == 0;
}

/* Asserts that got (malloc'ed, freed here) names the file at path. */
static void expect_file(char *got, const char *path, const char *what) {
  if (!got)
    fail_msg("%s: got NULL, expected %s (last error: %s)", what, path,
             cudaload_last_error());
  if (!same_file(got, path))
    fail_msg("%s: got %s, expected %s", what, got, path);
  free(got);
}

static void expect_null(char *got, const char *what) {
  if (got)
    fail_msg("%s: expected NULL, got %s", what, got);
}

/* Whether the process has the file at path loaded, asked of the OS
 * directly: dl_iterate_phdr (Linux), a Toolhelp module snapshot (Windows). */
#ifdef _WIN32
static int process_has_file(const char *path) {
  HANDLE snapshot =
      CreateToolhelp32Snapshot(TH32CS_SNAPMODULE, GetCurrentProcessId());
  assert_true(snapshot != INVALID_HANDLE_VALUE);
  MODULEENTRY32W entry;
  entry.dwSize = sizeof entry;
  int found = 0;
  for (BOOL more = Module32FirstW(snapshot, &entry); more && !found;
       more = Module32NextW(snapshot, &entry)) {
    char utf8[MAX_PATH * 3];
    if (WideCharToMultiByte(CP_UTF8, 0, entry.szExePath, -1, utf8, sizeof utf8,
                            NULL, NULL))
      found = same_file(utf8, path);
  }
  CloseHandle(snapshot);
  return found;
}
#else
typedef struct file_search {
  const char *path;
  int found;
} file_search;

static int match_loaded_file(struct dl_phdr_info *info, size_t size,
                             void *opaque) {
  (void)size;
  file_search *search = opaque;
  if (info->dlpi_name && info->dlpi_name[0] &&
      same_file(info->dlpi_name, search->path))
    search->found = 1;
  return search->found;
}

static int process_has_file(const char *path) {
  file_search search = {path, 0};
  dl_iterate_phdr(match_loaded_file, &search);
  return search.found;
}
#endif

static void *open_or_fail(const char *path, cl_open_mode mode) {
  void *handle = cl_os_loader_open(path, mode);
  if (!handle)
    fail_msg("cl_os_loader_open(%s): %s", path, cudaload_last_error());
  return handle;
}

static void expect_text(const char *text, const char *part) {
  if (!strstr(text, part))
    fail_msg("expected \"%s\" in: %s", part, text);
}

/* ------------------------------------------------------------------------ */
/* Scenarios on every host                                                  */
/* ------------------------------------------------------------------------ */

/* An absolute path loads that very file, whose functions then work. */
static void open_by_absolute_path(void **state) {
  (void)state;
  const char *path = fixture(CUDNN8_FILE);
  void *handle = open_or_fail(path, CL_OPEN_LOCAL);
  assert_int_equal(cudnn_version_of(handle), CUDNN8_VERSION);
  const char *identity = identity_of(handle);
  if (strncmp(identity, CUDNN8_FOLDER "/", strlen(CUDNN8_FOLDER) + 1) != 0)
    fail_msg("loaded %s, expected a file of %s", identity, CUDNN8_FOLDER);
  assert_true(process_has_file(path));
  /* Opening again gives the library already there. */
  assert_ptr_equal(open_or_fail(path, CL_OPEN_LOCAL), handle);
}

#ifdef _WIN32
static void change_folder(const char *path) {
  wchar_t wide[TEST_PATH_CAPACITY];
  assert_true(
      MultiByteToWideChar(CP_UTF8, 0, path, -1, wide, TEST_PATH_CAPACITY) > 0);
  assert_true(SetCurrentDirectoryW(wide));
}
#else
static void change_folder(const char *path) {
  assert_int_equal(chdir(path), 0);
}
#endif

/* A bare name or a relative path is refused even when the current folder
 * holds the library: a search could pick another file. */
static void relative_path_refused(void **state) {
  (void)state;
  const char *path = fixture(CUDNN8_FILE);
  change_folder(test_fixture_path(CUDNN8_FOLDER));
#ifdef _WIN32
  static const char *const names[] = {CUDNN8_NAME, ".\\" CUDNN8_NAME,
                                      "..\\cudnn8\\" CUDNN8_NAME,
                                      "\\" CUDNN8_NAME};
#else
  static const char *const names[] = {CUDNN8_NAME, "./" CUDNN8_NAME,
                                      "../" CUDNN8_FOLDER "/" CUDNN8_NAME};
#endif
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    assert_null(cl_library_open(names[i], CL_OPEN_LOCAL));
    expect_text(cudaload_last_error(), names[i]);
    expect_text(cudaload_last_error(), "not an absolute path");
  }
  assert_null(cl_library_open("", CL_OPEN_LOCAL));
  assert_null(cl_library_open(NULL, CL_OPEN_LOCAL));
  assert_false(process_has_file(path));
}

/* A file that is not there: NULL, and a message that names the path once
 * and gives the OS's reason. */
static void missing_file_fails_with_reason(void **state) {
  (void)state;
  fixture(CUDNN8_FILE); /* the folder exists; the file does not */
  const char *path = test_fixture_path(CUDNN8_MISSING);
  assert_null(cl_os_loader_open(path, CL_OPEN_LOCAL));
  const char *error = cudaload_last_error();
  print_message("message: %s\n", error);
  assert_int_equal(strncmp(error, path, strlen(path)), 0);
  assert_null(strstr(error + strlen(path), path));
#ifdef _WIN32
  expect_text(error, "Windows error 126"); /* ERROR_MOD_NOT_FOUND */
#else
  expect_text(error, "No such file or directory");
#endif
}

/* find_loaded answers from what the process has, and never loads. */
static void find_loaded_never_loads(void **state) {
  (void)state;
  const char *path = fixture(CUDNN8_FILE);
  expect_null(cl_os_loader_find_loaded(CUDNN8_NAME), "before the load");
  expect_null(cl_os_loader_find_loaded(path), "by absolute path, before");
  expect_null(cl_os_loader_find_loaded(""), "an empty name");
  assert_false(process_has_file(path));

  open_or_fail(path, CL_OPEN_LOCAL);
  expect_file(cl_os_loader_find_loaded(CUDNN8_NAME), path, "after the load");
  expect_file(cl_os_loader_find_loaded(path), path, "by absolute path, after");
  expect_null(cl_os_loader_find_loaded(CUDNN9_NAME), "another major");
  assert_false(process_has_file(test_fixture_path(CUDNN9_FILE)));
}

typedef struct module_list {
  int fixture_seen;
  int executable_seen;
  int bad_names;
  const char *fixture_path;
  const char *executable_path;
} module_list;

static void note_module(const char *path, void *opaque) {
  module_list *list = opaque;
  if (!path[0] || strncmp(path, "linux-vdso", 10) == 0)
    list->bad_names++;
  if (same_file(path, list->fixture_path))
    list->fixture_seen++;
  if (list->executable_path && same_file(path, list->executable_path))
    list->executable_seen++;
}

/* each_loaded lists a library the process loaded, once, by its file. */
static void each_loaded_lists_libraries(void **state) {
  (void)state;
  const char *path = fixture(CUDNN8_FILE);
  module_list list = {0, 0, 0, path, NULL};
  cl_os_loader_each_loaded(note_module, &list);
  assert_int_equal(list.fixture_seen, 0);

  open_or_fail(path, CL_OPEN_LOCAL);
#ifdef _WIN32
  /* Windows lists the executable among the modules. */
  wchar_t self[MAX_PATH];
  char self_utf8[MAX_PATH * 3];
  assert_true(GetModuleFileNameW(NULL, self, MAX_PATH) > 0);
  assert_true(WideCharToMultiByte(CP_UTF8, 0, self, -1, self_utf8,
                                  sizeof self_utf8, NULL, NULL) > 0);
  list.executable_path = self_utf8;
#endif
  list.fixture_seen = 0;
  cl_os_loader_each_loaded(note_module, &list);
  assert_int_equal(list.fixture_seen, 1);
  assert_int_equal(list.bad_names, 0);
#ifdef _WIN32
  assert_int_equal(list.executable_seen, 1);
#endif
}

/* cuDNN 8 and 9 opened LOCAL side by side: each keeps its own functions,
 * and neither is in the global scope (which Windows does not have). */
static void two_majors_side_by_side(void **state) {
  (void)state;
  const char *path8 = fixture(CUDNN8_FILE);
  const char *path9 = fixture(CUDNN9_FILE);
  void *handle8 = open_or_fail(path8, CL_OPEN_LOCAL);
  void *handle9 = open_or_fail(path9, CL_OPEN_LOCAL);
  assert_int_equal(cudnn_version_of(handle8), CUDNN8_VERSION);
  assert_int_equal(cudnn_version_of(handle9), CUDNN9_VERSION);
  expect_file(cl_os_loader_symbol_provider(handle8, "cudnnGetVersion", NULL),
              path8, "provider for cuDNN 8");
  expect_file(cl_os_loader_symbol_provider(handle9, "cudnnGetVersion", NULL),
              path9, "provider for cuDNN 9");
  expect_null(cl_os_loader_symbol_provider(handle8, "noSuchFunction", NULL),
              "an undefined function");
  expect_null(cl_os_loader_global_provider("cudnnGetVersion", NULL),
              "global provider with both majors LOCAL");
}

/* Environment variables as the process (and, on Windows, the C runtime)
 * sees them. */
static char *read_variable(const char *name) {
#ifdef _WIN32
  wchar_t wide_name[64], value[256];
  assert_true(MultiByteToWideChar(CP_UTF8, 0, name, -1, wide_name, 64) > 0);
  DWORD got = GetEnvironmentVariableW(wide_name, value, 256);
  const wchar_t *crt_value = _wgetenv(wide_name);
  if (got == 0) {
    assert_null(crt_value); /* the C runtime agrees */
    return NULL;
  }
  assert_non_null(crt_value);
  assert_int_equal(wcscmp(crt_value, value), 0);
  char *utf8 = malloc(got * 3 + 1);
  assert_non_null(utf8);
  WideCharToMultiByte(CP_UTF8, 0, value, -1, utf8, (int)got * 3 + 1, NULL,
                      NULL);
  return utf8;
#else
  const char *value = getenv(name);
  if (!value)
    return NULL;
  char *copy = malloc(strlen(value) + 1);
  assert_non_null(copy);
  strcpy(copy, value);
  return copy;
#endif
}

static void set_env_sets_and_removes(void **state) {
  (void)state;
  const char *name = "CUDALOAD_TEST_LOADER_VARIABLE";
  const char *value = "caf\xc3\xa9;x"; /* UTF-8 through UTF-16 */
  assert_int_equal(cl_os_set_env(name, value), CUDALOAD_OK);
  char *got = read_variable(name);
  assert_non_null(got);
  assert_string_equal(got, value);
  free(got);
  assert_int_equal(cl_os_set_env(name, NULL), CUDALOAD_OK);
  assert_null(read_variable(name));
  assert_int_equal(cl_os_set_env("A=B", "x"), CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_os_set_env("", "x"), CUDALOAD_E_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------ */
/* The lock (runs in the test process: it loads nothing)                    */
/* ------------------------------------------------------------------------ */

static atomic_int lock_taken_by_other_thread;

#ifdef _WIN32
static DWORD WINAPI take_lock(void *unused) {
  (void)unused;
  cl_os_loader_lock();
  atomic_store(&lock_taken_by_other_thread, 1);
  cl_os_loader_unlock();
  return 0;
}

static void pause_briefly(void) {
  Sleep(200);
}
#else
static void *take_lock(void *unused) {
  (void)unused;
  cl_os_loader_lock();
  atomic_store(&lock_taken_by_other_thread, 1);
  cl_os_loader_unlock();
  return NULL;
}

static void pause_briefly(void) {
  struct timespec delay = {0, 200 * 1000 * 1000};
  nanosleep(&delay, NULL);
}
#endif

/* The holder may take the lock again; another thread waits until it has
 * been released as many times as it was taken. */
static void lock_is_recursive_and_exclusive(void **state) {
  (void)state;
  atomic_store(&lock_taken_by_other_thread, 0);
  cl_os_loader_lock();
  cl_os_loader_lock();
#ifdef _WIN32
  HANDLE thread = CreateThread(NULL, 0, take_lock, NULL, 0, NULL);
  assert_non_null(thread);
#else
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, take_lock, NULL), 0);
#endif
  pause_briefly();
  assert_int_equal(atomic_load(&lock_taken_by_other_thread), 0);
  cl_os_loader_unlock();
  pause_briefly();
  assert_int_equal(atomic_load(&lock_taken_by_other_thread), 0);
  cl_os_loader_unlock();
#ifdef _WIN32
  assert_int_equal(WaitForSingleObject(thread, 10000), WAIT_OBJECT_0);
  CloseHandle(thread);
#else
  assert_int_equal(pthread_join(thread, NULL), 0);
#endif
  assert_int_equal(atomic_load(&lock_taken_by_other_thread), 1);
}

/* ------------------------------------------------------------------------ */
/* Linux: the global scope, DEEPBIND, NEEDED by SONAME                      */
/* ------------------------------------------------------------------------ */

#ifndef _WIN32

/* docs/loader.md, Linux 2: a library loaded by absolute path satisfies a
 * later NEEDED entry for its SONAME, with no search path. */
static void needed_satisfied_by_preload(void **state) {
  (void)state;
  const char *cnn = fixture("cudnn8_compat/libcudnn_cnn_infer.so.8");
  const char *ops = fixture("cudnn8_compat/libcudnn_ops_infer.so.8");
  assert_null(cl_os_loader_open(cnn, CL_OPEN_LOCAL));
  const char *error = cudaload_last_error();
  print_message("message: %s\n", error);
  assert_int_equal(strncmp(error, cnn, strlen(cnn)), 0);
  expect_text(error, "libcudnn_ops_infer.so.8");
  assert_false(process_has_file(cnn));

  open_or_fail(ops, CL_OPEN_LOCAL);
  void *handle = open_or_fail(cnn, CL_OPEN_LOCAL);
  assert_int_equal(cudnn_version_of(handle), CUDNN8_VERSION);
}

/* A library loaded through a symlink (conda's libcudnn.so.8 ->
 * libcudnn.so.8.9.2) is reported as the real file. */
static void loaded_paths_are_real_files(void **state) {
  (void)state;
  const char *link = fixture("conda/env/lib/libcudnn.so.8");
  const char *real = fixture("conda/env/lib/libcudnn.so.8.9.2");
  open_or_fail(link, CL_OPEN_LOCAL);
  char *found = cl_os_loader_find_loaded("libcudnn.so.8");
  assert_non_null(found);
  char resolved[PATH_MAX];
  assert_non_null(realpath(real, resolved));
  assert_string_equal(found, resolved);
  free(found);
  module_list list = {0, 0, 0, real, NULL};
  cl_os_loader_each_loaded(note_module, &list);
  assert_int_equal(list.fixture_seen, 1);
}

/* Opening GLOBAL puts a library's symbols in the global scope. */
static void global_open_enters_global_scope(void **state) {
  (void)state;
  const char *path9 = fixture(CUDNN9_FILE);
  expect_null(cl_os_loader_global_provider("cudnnGetVersion", NULL), "before");
  open_or_fail(path9, CL_OPEN_GLOBAL);
  expect_file(cl_os_loader_global_provider("cudnnGetVersion", NULL), path9,
              "after a GLOBAL open");
  expect_null(cl_os_loader_global_provider("noSuchFunction", NULL),
              "undefined");
  expect_null(cl_os_loader_global_provider("", NULL), "empty name");
}

/* LOCAL keeps it out; a later GLOBAL open of the same file promotes it. */
static void local_open_stays_out_of_global_scope(void **state) {
  (void)state;
  const char *path9 = fixture(CUDNN9_FILE);
  void *handle = open_or_fail(path9, CL_OPEN_LOCAL);
  expect_null(cl_os_loader_global_provider("cudnnGetVersion", NULL),
              "after a LOCAL open");
  assert_ptr_equal(open_or_fail(path9, CL_OPEN_GLOBAL), handle);
  expect_file(cl_os_loader_global_provider("cudnnGetVersion", NULL), path9,
              "after a later GLOBAL open");
}

/* docs/loader.md, Linux 3: with cuDNN 9 GLOBAL, a cuDNN 8 library opened
 * LOCAL has its references bound to cuDNN 9 (the global scope comes first),
 * although dlsym on its handle finds its own definition. */
static void global_major_captures_local_library(void **state) {
  (void)state;
  const char *path8 = fixture(CUDNN8_FILE);
  const char *path9 = fixture(CUDNN9_FILE);
  open_or_fail(path9, CL_OPEN_GLOBAL);
  void *handle8 = open_or_fail(path8, CL_OPEN_LOCAL);
  assert_int_equal(cudnn_version_of(handle8), CUDNN8_VERSION);
  expect_file(cl_os_loader_symbol_provider(handle8, "cudnnGetVersion", NULL),
              path9, "provider for cuDNN 8 opened LOCAL");
  /* Every name both define is taken from cuDNN 9, fixture_identity too. */
  expect_file(cl_os_loader_symbol_provider(handle8, "fixture_identity", NULL),
              path9, "fixture_identity, defined by both");
}

/* Open with DEEPBIND, or, in a sanitizer build, check that cl_os_loader_open
 * refuses (rather than let the sanitizer abort the process) and skip. */
static void *open_deepbind_or_skip(const char *path) {
  /* A library in the process already is opened without the flag, which
   * could not change its binding anyway: sanitizers have nothing to abort
   * on then. */
  int already_loaded = process_has_file(path);
  void *handle = cl_os_loader_open(path, CL_OPEN_DEEPBIND);
  if (TEST_UNDER_SANITIZER && !already_loaded) {
    assert_null(handle);
    expect_text(cudaload_last_error(), "RTLD_DEEPBIND");
    expect_text(cudaload_last_error(), "Sanitizer");
    assert_false(process_has_file(path));
    skip_scenario("sanitizer runtimes abort on RTLD_DEEPBIND; checked that "
                  "cl_os_loader_open refuses it with",
                  cudaload_last_error());
  }
  if (!handle)
    fail_msg("DEEPBIND open of %s: %s", path, cudaload_last_error());
  return handle;
}

/* DEEPBIND: the library binds to its own scope first, so cuDNN 8 keeps its
 * own functions while cuDNN 9 is GLOBAL. */
static void deepbind_binds_own_major(void **state) {
  (void)state;
  const char *path8 = fixture(CUDNN8_FILE);
  const char *path9 = fixture(CUDNN9_FILE);
  open_or_fail(path9, CL_OPEN_GLOBAL);
  void *handle8 = open_deepbind_or_skip(path8);
  expect_file(cl_os_loader_symbol_provider(handle8, "cudnnGetVersion", NULL),
              path8, "provider for cuDNN 8 opened DEEPBIND");
  assert_int_equal(cudnn_version_of(handle8), CUDNN8_VERSION);
  /* The global scope itself is unchanged. */
  expect_file(cl_os_loader_global_provider("cudnnGetVersion", NULL), path9,
              "the global provider");
}

/* DEEPBIND decides the binding when the library is loaded: asking for it
 * when the library is in the process already changes nothing, and the
 * provider says so. */
static void deepbind_after_local_changes_nothing(void **state) {
  (void)state;
  const char *path8 = fixture(CUDNN8_FILE);
  const char *path9 = fixture(CUDNN9_FILE);
  open_or_fail(path9, CL_OPEN_GLOBAL);
  void *handle8 = open_or_fail(path8, CL_OPEN_LOCAL);
  assert_ptr_equal(open_deepbind_or_skip(path8), handle8);
  expect_file(cl_os_loader_symbol_provider(handle8, "cudnnGetVersion", NULL),
              path9, "provider after a late DEEPBIND open");
}

/* A consumer linked to libcudnn.so.8, with cuDNN 9 GLOBAL: opened LOCAL it
 * calls cuDNN 9, opened DEEPBIND it calls cuDNN 8, and the provider predicts
 * which, as the consumer's own call shows. */
static void consumers_bind_as_predicted(void **state) {
  (void)state;
  const char *cudnn8 = fixture(PRELOAD_CUDNN8);
  const char *cudnn9 = fixture(PRELOAD_CUDNN9);
  const char *consumer = fixture(PRELOAD_CONSUMER8);
  const char *isolated = fixture(PRELOAD_CONSUMER8_DEEPBIND);
  open_or_fail(cudnn8, CL_OPEN_LOCAL);
  open_or_fail(cudnn9, CL_OPEN_GLOBAL);

  void *plain = open_or_fail(consumer, CL_OPEN_LOCAL);
  assert_int_equal(call_int_function(plain, "consumer_cudnn_version"),
                   PRELOAD_CUDNN9_VERSION);
  expect_file(cl_os_loader_symbol_provider(plain, "cudnnGetVersion", NULL),
              cudnn9, "provider for the LOCAL consumer");

  void *deep = open_deepbind_or_skip(isolated);
  assert_int_equal(call_int_function(deep, "consumer_cudnn_version"),
                   CUDNN8_VERSION);
  expect_file(cl_os_loader_symbol_provider(deep, "cudnnGetVersion", NULL),
              cudnn8, "provider for the DEEPBIND consumer");
}

/* cuDNN 8 without RUNPATH opens its sub-library lazily by SONAME: that
 * fails until the sub-library is loaded by absolute path (docs/loader.md,
 * Linux 2 and 4), which is what preloading does. */
static void lazy_sibling_load_needs_preload(void **state) {
  (void)state;
  const char *cudnn8 = fixture(PRELOAD_CUDNN8);
  const char *ops = fixture(PRELOAD_OPS_INFER8);
  const char *consumer = fixture(PRELOAD_CONSUMER8);
  open_or_fail(cudnn8, CL_OPEN_LOCAL);
  void *handle = open_or_fail(consumer, CL_OPEN_LOCAL);
  assert_int_equal(call_int_function(handle, "consumer_cudnn_version"),
                   CUDNN8_VERSION);
  assert_int_not_equal(call_int_function(handle, "consumer_cudnn_create"), 0);
  open_or_fail(ops, CL_OPEN_LOCAL);
  assert_int_equal(call_int_function(handle, "consumer_cudnn_create"), 0);
}

/* Nothing to do on Linux: the search path was read at process start. */
static void expose_folder_changes_nothing(void **state) {
  (void)state;
  const char *before = getenv("LD_LIBRARY_PATH");
  char *saved = before ? strcpy(malloc(strlen(before) + 1), before) : NULL;
  assert_int_equal(
      cl_os_loader_expose_folder(test_fixture_path(CUDNN8_FOLDER), NULL),
      CUDALOAD_OK);
  const char *after = getenv("LD_LIBRARY_PATH");
  if (saved) {
    assert_non_null(after);
    assert_string_equal(after, saved);
  } else {
    assert_null(after);
  }
  free(saved);
}

#endif /* !_WIN32 */

/* ------------------------------------------------------------------------ */
/* Windows: imports, base names, PATH                                       */
/* ------------------------------------------------------------------------ */

#ifdef _WIN32

static wchar_t *widen(const char *utf8) {
  int units = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
  assert_true(units > 0);
  wchar_t *wide = malloc((size_t)units * sizeof *wide);
  assert_non_null(wide);
  MultiByteToWideChar(CP_UTF8, 0, utf8, -1, wide, units);
  return wide;
}

/* PATH of the process environment block, malloc'ed ("" when unset). */
static wchar_t *process_path(void) {
  DWORD units = GetEnvironmentVariableW(L"PATH", NULL, 0);
  wchar_t *value = malloc(((size_t)units + 1) * sizeof *value);
  assert_non_null(value);
  value[0] = L'\0';
  if (units)
    GetEnvironmentVariableW(L"PATH", value, units);
  return value;
}

static void set_process_path(const wchar_t *value) {
  assert_true(SetEnvironmentVariableW(L"PATH", value));
  assert_int_equal(_wputenv_s(L"PATH", value), 0);
}

/* PATH in the block and in the C runtime's copy are both `expected`. */
static void expect_path(const wchar_t *expected) {
  wchar_t *value = process_path();
  if (wcscmp(value, expected) != 0)
    fail_msg("PATH is \"%ls\", expected \"%ls\"", value, expected);
  free(value);
  const wchar_t *crt_value = _wgetenv(L"PATH");
  assert_non_null(crt_value);
  if (wcscmp(crt_value, expected) != 0)
    fail_msg("the C runtime's PATH is \"%ls\", expected \"%ls\"", crt_value,
             expected);
}

/* docs/loader.md, Windows 2: LoadLibraryExW with DLL_LOAD_DIR finds a DLL's
 * imports beside it (cuBLAS imports cuBLASLt) with no search path. */
static void imports_found_beside_dll(void **state) {
  (void)state;
  const char *cublas =
      fixture("windows/site-packages/nvidia/cublas/bin/cublas64_12.dll");
  const char *cublaslt =
      fixture("windows/site-packages/nvidia/cublas/bin/cublasLt64_12.dll");
  expect_null(cl_os_loader_find_loaded("cublasLt64_12.dll"), "before");
  void *handle = open_or_fail(cublas, CL_OPEN_LOCAL);
  expect_file(cl_os_loader_find_loaded("cublasLt64_12.dll"), cublaslt,
              "the import, after");
  size_t (*lt_version)(void) =
      (size_t(*)(void))require_function(handle, "fixture_cublaslt_version");
  assert_int_equal(lt_version(), 120405); /* 12.4.5 */
}

/* docs/loader.md, Windows 1: a DLL loaded by absolute path is what a later
 * LoadLibrary by its base name gets. */
static void base_name_reuses_preloaded_dll(void **state) {
  (void)state;
  const char *path = fixture(CUDNN8_FILE);
  assert_null(GetModuleHandleW(L"" CUDNN8_NAME));
  void *handle = open_or_fail(path, CL_OPEN_DEEPBIND); /* mode ignored */
  assert_ptr_equal(LoadLibraryW(L"" CUDNN8_NAME), handle);
}

/* docs/loader.md, Windows 2: preloading cudnn64_8.dll does not make its
 * folder searched by a later plain LoadLibrary of a sibling; exposing the
 * folder does, in PATH first, once. */
static void expose_folder_lets_plain_loads_find_siblings(void **state) {
  (void)state;
  const char *main_dll = fixture(CUDNN8_FILE);
  const char *sibling = fixture("windows/cudnn8/cudnn_ops_infer64_8.dll");
  const char *folder = test_fixture_path(CUDNN8_FOLDER);
  const wchar_t *sibling_name = L"cudnn_ops_infer64_8.dll";

  assert_null(LoadLibraryW(sibling_name));
  open_or_fail(main_dll, CL_OPEN_LOCAL);
  assert_null(LoadLibraryW(sibling_name));
  assert_false(process_has_file(sibling));

  wchar_t *before = process_path();
  assert_int_equal(cl_os_loader_expose_folder(folder, NULL), CUDALOAD_OK);
  wchar_t *wide_folder = widen(folder);
  size_t expected_units = wcslen(wide_folder) + 1 + wcslen(before) + 1;
  wchar_t *expected = malloc(expected_units * sizeof *expected);
  assert_non_null(expected);
  swprintf(expected, expected_units, L"%ls;%ls", wide_folder, before);
  expect_path(expected);
  /* Twice changes nothing. */
  assert_int_equal(cl_os_loader_expose_folder(folder, NULL), CUDALOAD_OK);
  expect_path(expected);

  HMODULE module = LoadLibraryW(sibling_name);
  if (!module)
    fail_msg("LoadLibraryW after expose_folder: error %lu",
             (unsigned long)GetLastError());
  expect_file(cl_os_loader_find_loaded("cudnn_ops_infer64_8.dll"), sibling,
              "the sibling");
  assert_int_equal(cudnn_version_of(module), CUDNN8_VERSION);
  free(expected);
  free(wide_folder);
  free(before);
}

/* PATH rules: an entry naming the folder in another spelling (case, '/',
 * trailing '\') is moved first rather than duplicated; empty, relative and
 * missing folders are refused and leave PATH alone. */
static void expose_folder_path_rules(void **state) {
  (void)state;
  fixture(CUDNN8_FILE);
  const char *folder = test_fixture_path(CUDNN8_FOLDER);
  wchar_t *wide_folder = widen(folder);
  /* The same folder spelled differently: lower case, '/', trailing '/'. */
  size_t units = wcslen(wide_folder);
  wchar_t *respelled = malloc((units + 2) * sizeof *respelled);
  assert_non_null(respelled);
  for (size_t i = 0; i < units; ++i)
    respelled[i] = wide_folder[i] == L'\\' ? L'/' : towlower(wide_folder[i]);
  respelled[units] = L'/';
  respelled[units + 1] = L'\0';

  size_t path_units = units * 2 + 64;
  wchar_t *start = malloc(path_units * sizeof *start);
  wchar_t *expected = malloc(path_units * sizeof *expected);
  assert_non_null(start);
  assert_non_null(expected);
  swprintf(start, path_units, L"C:\\windows\\system32;%ls;;Z:\\elsewhere",
           respelled);
  swprintf(expected, path_units, L"%ls;C:\\windows\\system32;;Z:\\elsewhere",
           wide_folder);
  set_process_path(start);

  assert_int_equal(cl_os_loader_expose_folder("", NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_os_loader_expose_folder(NULL, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_os_loader_expose_folder("relative\\bin", NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_os_loader_expose_folder("C:relative", NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_os_loader_expose_folder("C:\\a;b", NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cl_os_loader_expose_folder(
                       test_fixture_path("no-such-folder-here"), NULL),
                   CUDALOAD_E_NOT_FOUND);
  expect_text(cudaload_last_error(), "no-such-folder-here");
  expect_path(start);

  /* Given with '/' separators: PATH gets the clean form. */
  char slashed[TEST_PATH_CAPACITY];
  snprintf(slashed, sizeof slashed, "%s", folder);
  for (char *p = slashed; *p; ++p)
    if (*p == '\\')
      *p = '/';
  assert_int_equal(cl_os_loader_expose_folder(slashed, NULL), CUDALOAD_OK);
  expect_path(expected);
  assert_int_equal(cl_os_loader_expose_folder(folder, NULL), CUDALOAD_OK);
  expect_path(expected);

  /* An unset PATH becomes the folder alone. */
  set_process_path(L"");
  assert_int_equal(cl_os_loader_expose_folder(folder, NULL), CUDALOAD_OK);
  expect_path(wide_folder);
  free(start);
  free(expected);
  free(respelled);
  free(wide_folder);
}

/* The real case: cuDNN 8's cudnnCreate LoadLibraryA's its sub-library by
 * base name; preloading the main DLL is not enough, exposing its folder is
 * (docs/loader.md, Windows 2 and 3). */
static void lazy_sibling_load_needs_exposed_folder(void **state) {
  (void)state;
  const char *cudnn8 = fixture(PRELOAD_CUDNN8);
  const char *consumer = fixture(PRELOAD_CONSUMER8);
  open_or_fail(cudnn8, CL_OPEN_LOCAL);
  void *handle = open_or_fail(consumer, CL_OPEN_LOCAL);
  /* The consumer's import of cudnn64_8.dll went to the preloaded file. */
  assert_int_equal(call_int_function(handle, "consumer_cudnn_version"),
                   CUDNN8_VERSION);
  assert_int_not_equal(call_int_function(handle, "consumer_cudnn_create"), 0);
  assert_int_equal(cl_os_loader_expose_folder(
                       test_fixture_path(PRELOAD_CUDNN8_FOLDER), NULL),
                   CUDALOAD_OK);
  assert_int_equal(call_int_function(handle, "consumer_cudnn_create"), 0);
}

/* A path outside ASCII reaches LoadLibraryExW intact (UTF-8 to UTF-16):
 * the DLL is copied into a scratch folder named in three scripts. */
static void open_unicode_path(void **state) {
  (void)state;
  const char *source = fixture(CUDNN8_FILE);
  char folder[TEST_PATH_CAPACITY], target[TEST_PATH_CAPACITY];
  wchar_t current[MAX_PATH];
  assert_true(GetCurrentDirectoryW(MAX_PATH, current) > 0);
  char current_utf8[MAX_PATH * 3];
  assert_true(WideCharToMultiByte(CP_UTF8, 0, current, -1, current_utf8,
                                  sizeof current_utf8, NULL, NULL) > 0);
  snprintf(folder, sizeof folder,
           "%s\\test_loader-\xc3\xa9t\xc3\xa9-\xce\xb1-%lu", current_utf8,
           (unsigned long)GetCurrentProcessId());
  snprintf(target, sizeof target, "%s\\" CUDNN8_NAME, folder);
  wchar_t *wide_folder = widen(folder);
  wchar_t *wide_source = widen(source);
  wchar_t *wide_target = widen(target);
  CreateDirectoryW(wide_folder, NULL);
  assert_true(CopyFileW(wide_source, wide_target, FALSE));
  void *handle = open_or_fail(target, CL_OPEN_LOCAL);
  assert_int_equal(cudnn_version_of(handle), CUDNN8_VERSION);
  expect_file(cl_os_loader_find_loaded(CUDNN8_NAME), target, "the copy");
  /* Cleaned up here: the DLL goes once unloaded (an exception to "never
   * unload", for the test's own scratch copy). */
  assert_true(FreeLibrary((HMODULE)handle));
  DeleteFileW(wide_target);
  RemoveDirectoryW(wide_folder);
  free(wide_folder);
  free(wide_source);
  free(wide_target);
}

#endif /* _WIN32 */

/* ------------------------------------------------------------------------ */
/* Running scenarios in their own processes                                 */
/* ------------------------------------------------------------------------ */

typedef struct scenario {
  const char *name;
  CMUnitTestFunction run;
  int own_process; /* it loads: run it in a fresh process */
} scenario;

#define SCENARIO(f)                                                            \
  { #f, f, 1 }
#define IN_PROCESS(f)                                                          \
  { #f, f, 0 }

#ifdef _WIN32
/* PATH starting with the folder in quotes: the DLL loader does not strip
 * them, so that entry is not the folder; the folder goes first, unquoted,
 * and the user's quoted entry stays. */
static void expose_folder_quoted_entry(void **state) {
  (void)state;
  fixture(CUDNN8_FILE);
  const char *folder = test_fixture_path(CUDNN8_FOLDER);
  wchar_t *wide_folder = widen(folder);
  size_t units = wcslen(wide_folder) * 3 + 64;
  wchar_t *start = malloc(units * sizeof *start);
  wchar_t *expected = malloc(units * sizeof *expected);
  assert_non_null(start);
  assert_non_null(expected);
  swprintf(start, units, L"\"%ls\";C:\\windows\\system32", wide_folder);
  swprintf(expected, units, L"%ls;%ls", wide_folder, start);
  set_process_path(start);
  assert_int_equal(cl_os_loader_expose_folder(folder, NULL), CUDALOAD_OK);
  expect_path(expected);
  free(start);
  free(expected);
  free(wide_folder);
}

/* PATH so long that the folder in front would pass Windows' limit of
 * 32,767 characters: PATH stays as it was, entry for entry (nothing
 * truncated, nothing dropped), the caller gets a warning saying so, and
 * AddDllDirectory is still done, so a load that searches the user folders
 * finds the folder's DLLs. */
static void expose_folder_path_at_its_limit(void **state) {
  (void)state;
  fixture(CUDNN8_FILE);
  const char *folder = test_fixture_path(CUDNN8_FOLDER);
  size_t units = 32740;
  wchar_t *start = malloc((units + 1) * sizeof *start);
  assert_non_null(start);
  size_t used = 0;
  for (unsigned n = 0; used + 24 < units; ++n)
    used +=
        (size_t)swprintf(start + used, units + 1 - used, L"C:\\entry-%06u;", n);
  wcscpy(start + used, L"C:\\last");
  set_process_path(start);
  char *warning = NULL;
  assert_int_equal(cl_os_loader_expose_folder(folder, &warning), CUDALOAD_OK);
  print_message("warning: %s\n", warning ? warning : "(none)");
  expect_path(start);
  if (!warning || !strstr(warning, "PATH was left as it is") ||
      !strstr(warning, folder))
    fail_msg("no warning naming %s", folder);
  free(warning);
  HMODULE found =
      LoadLibraryExW(CUDNN8_WIDE_NAME, NULL, LOAD_LIBRARY_SEARCH_USER_DIRS);
  if (!found)
    fail_msg("%s", "AddDllDirectory was not done: the user folders do not "
                   "hold " CUDNN8_NAME);
  free(start);
}

/* A DLL whose path is longer than MAX_PATH (260) loads, as the scanner
 * reads such files: in the \\?\ form. */
static void open_long_path(void **state) {
  (void)state;
  const char *source = fixture(CUDNN8_FILE);
  wchar_t current[MAX_PATH];
  assert_true(GetCurrentDirectoryW(MAX_PATH, current) > 0);
  char base[MAX_PATH * 3];
  assert_true(WideCharToMultiByte(CP_UTF8, 0, current, -1, base, sizeof base,
                                  NULL, NULL) > 0);
  /* Six folders of 60 characters: well past 260 in all. */
  char folders[6][TEST_PATH_CAPACITY];
  char at[TEST_PATH_CAPACITY];
  snprintf(at, sizeof at, "%s\\test_loader-long-%lu", base,
           (unsigned long)GetCurrentProcessId());
  for (int i = 0; i < 6; ++i) {
    if (i)
      snprintf(at + strlen(at), sizeof at - strlen(at), "\\%0*d", 60, i);
    snprintf(folders[i], sizeof folders[i], "\\\\?\\%s", at);
    wchar_t *wide = widen(folders[i]);
    CreateDirectoryW(wide, NULL);
    free(wide);
  }
  char target[TEST_PATH_CAPACITY];
  snprintf(target, sizeof target, "%s\\" CUDNN8_NAME, at);
  assert_true(strlen(target) > MAX_PATH);
  char verbatim_target[TEST_PATH_CAPACITY];
  snprintf(verbatim_target, sizeof verbatim_target, "\\\\?\\%s", target);
  wchar_t *wide_source = widen(source);
  wchar_t *wide_target = widen(verbatim_target);
  assert_true(CopyFileW(wide_source, wide_target, FALSE));
  void *handle = cl_library_open(target, CL_OPEN_LOCAL);
  if (!handle)
    fail_msg("%s", cudaload_last_error());
  assert_int_equal(cudnn_version_of(handle), CUDNN8_VERSION);
  assert_true(FreeLibrary((HMODULE)handle));
  DeleteFileW(wide_target);
  for (int i = 5; i >= 0; --i) {
    wchar_t *wide = widen(folders[i]);
    RemoveDirectoryW(wide);
    free(wide);
  }
  free(wide_source);
  free(wide_target);
}

/* A DLL built for another machine, opened by path: the error says which
 * machine, not "%1 is not a valid Win32 application". */
static void other_machine_is_named(void **state) {
  (void)state;
  const char *path = fixture("machines/windows/arm64/cublas64_13.dll");
  assert_null(cl_library_open(path, CL_OPEN_LOCAL));
  const char *error = cudaload_last_error();
  print_message("message: %s\n", error);
  expect_text(error, path);
  assert_null(strstr(error, "%1"));
  expect_text(error, "not a valid Win32 application for this process: it is "
                     "built for aarch64, and this process runs x86_64 code");
}

/* An x64 DLL whose import beside it is an ARM64 build: the error names the
 * import and what the loader found there. */
static void import_of_other_machine_is_named(void **state) {
  (void)state;
  const char *path = fixture("machines/windows/mixed/cublas64_13.dll");
  assert_null(cl_library_open(path, CL_OPEN_LOCAL));
  const char *error = cudaload_last_error();
  print_message("message: %s\n", error);
  expect_text(error, path);
  assert_null(strstr(error, "%1"));
  expect_text(error,
              "cublasLt64_13.dll, which cublas64_13.dll imports, is found "
              "only as ");
  expect_text(error, "another machine (arm64)");
}
#endif

static const scenario scenarios[] = {
    SCENARIO(open_by_absolute_path),
    SCENARIO(relative_path_refused),
    SCENARIO(missing_file_fails_with_reason),
    SCENARIO(find_loaded_never_loads),
    SCENARIO(each_loaded_lists_libraries),
    SCENARIO(two_majors_side_by_side),
    SCENARIO(set_env_sets_and_removes),
    IN_PROCESS(lock_is_recursive_and_exclusive),
#ifndef _WIN32
    SCENARIO(needed_satisfied_by_preload),
    SCENARIO(loaded_paths_are_real_files),
    SCENARIO(global_open_enters_global_scope),
    SCENARIO(local_open_stays_out_of_global_scope),
    SCENARIO(global_major_captures_local_library),
    SCENARIO(deepbind_binds_own_major),
    SCENARIO(deepbind_after_local_changes_nothing),
    SCENARIO(consumers_bind_as_predicted),
    SCENARIO(lazy_sibling_load_needs_preload),
    SCENARIO(expose_folder_changes_nothing),
#else
    SCENARIO(imports_found_beside_dll),
    SCENARIO(base_name_reuses_preloaded_dll),
    SCENARIO(expose_folder_lets_plain_loads_find_siblings),
    SCENARIO(expose_folder_path_rules),
    SCENARIO(lazy_sibling_load_needs_exposed_folder),
    SCENARIO(open_unicode_path),
    SCENARIO(open_long_path),
    SCENARIO(expose_folder_quoted_entry),
    SCENARIO(expose_folder_path_at_its_limit),
    SCENARIO(other_machine_is_named),
    SCENARIO(import_of_other_machine_is_named),
#endif
};
#define SCENARIO_COUNT (sizeof scenarios / sizeof scenarios[0])

/* Run `self --scenario name`; returns its exit status. */
#ifdef _WIN32
static unsigned long run_scenario_process(const char *name) {
  wchar_t self[MAX_PATH];
  DWORD units = GetModuleFileNameW(NULL, self, MAX_PATH);
  assert_true(units > 0 && units < MAX_PATH);
  wchar_t *wide_name = widen(name);
  wchar_t command[MAX_PATH + 128];
  swprintf(command, sizeof command / sizeof command[0],
           L"\"%ls\" --scenario %ls", self, wide_name);
  free(wide_name);
  STARTUPINFOW startup;
  memset(&startup, 0, sizeof startup);
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  startup.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
  startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION process;
  fflush(stdout);
  fflush(stderr);
  if (!CreateProcessW(self, command, NULL, NULL, TRUE, 0, NULL, NULL, &startup,
                      &process))
    fail_msg("CreateProcessW: error %lu", (unsigned long)GetLastError());
  CloseHandle(process.hThread);
  if (WaitForSingleObject(process.hProcess, 120000) != WAIT_OBJECT_0) {
    TerminateProcess(process.hProcess, 1);
    CloseHandle(process.hProcess);
    fail_msg("scenario %s did not finish within 120 s", name);
  }
  DWORD code = 1;
  GetExitCodeProcess(process.hProcess, &code);
  CloseHandle(process.hProcess);
  return code;
}
#else
static unsigned long run_scenario_process(const char *name) {
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    const char *const args[] = {"--scenario", name, NULL};
    exec_self(args);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  if (WIFSIGNALED(status))
    fail_msg("scenario %s was killed by signal %d", name, WTERMSIG(status));
  return WIFEXITED(status) ? (unsigned long)WEXITSTATUS(status) : 1;
}
#endif

/* The parent's case for one scenario. */
static void run_scenario(void **state) {
  const scenario *s = *state;
  if (!s->own_process) {
    s->run(state);
    return;
  }
  unsigned long code = run_scenario_process(s->name);
  if (code == SCENARIO_SKIPPED)
    skip();
  if (code != 0)
    fail_msg("scenario %s exited with status %lu (0x%lx); its output is "
             "above",
             s->name, code, code);
}

/* In a scenario process: run that one scenario as a cmocka group. */
static int run_one_scenario(const char *name) {
  for (size_t i = 0; i < SCENARIO_COUNT; ++i) {
    if (strcmp(scenarios[i].name, name) != 0)
      continue;
    const struct CMUnitTest one[] = {
        {scenarios[i].name, scenarios[i].run, NULL, NULL, NULL}};
    return cmocka_run_group_tests_name(name, one, NULL, NULL) ? 1 : 0;
  }
  fprintf(stderr, "test_loader: no scenario named %s\n", name);
  return 2;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--scenario") == 0)
    return run_one_scenario(argv[2]);
  if (argc != 1) {
    fprintf(stderr, "usage: test_loader [--scenario NAME]\n");
    return 2;
  }
  struct CMUnitTest tests[SCENARIO_COUNT];
  for (size_t i = 0; i < SCENARIO_COUNT; ++i) {
    tests[i].name = scenarios[i].name;
    tests[i].test_func = run_scenario;
    tests[i].setup_func = NULL;
    tests[i].teardown_func = NULL;
    tests[i].initial_state = (void *)&scenarios[i];
  }
  return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
