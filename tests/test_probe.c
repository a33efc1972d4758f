/* SPDX-License-Identifier: MIT */
/*
 * test_probe.c - the GPU probe, end to end, against the fake CUDA libraries
 * of the fixture tree fake_cuda/ (tests/fixtures/make_fixtures.py): a fake
 * driver, runtime, cuBLAS and cuDNN whose behaviour FAKE_CUDA_* variables
 * choose at call time.
 *
 * Loaded libraries stay loaded, so every scenario runs in its own process:
 *
 *   test_probe SCENARIO
 *
 * (tests/probe.cmake registers one ctest per scenario). A scenario for the
 * other platform, or whose fixtures are missing, prints "[  SKIPPED ]" with
 * the reason and exits 77 (ctest: skipped).
 *
 * What is asserted is what a user of the probe sees: the verdict and its
 * reason, the summary sentence, which stage failed and what its message
 * names, the device fields, and that a hung driver costs the timeout and no
 * more.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "scenario_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#else
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

#include "cudaload.h"
#include "os/loader.h"
#include "probe/probe_result.h"
#include "probe/probe_wire.h"
#include "test_paths.h"

#define ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum {
  STAGE_DRIVER,
  STAGE_INIT,
  STAGE_DEVICES,
  STAGE_CONTEXT,
  STAGE_RUNTIME,
  STAGE_CUBLAS,
  STAGE_CUDNN
};

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static int contains(const char *text, const char *part) {
  return text != NULL && strstr(text, part) != NULL;
}

static void expect_text(const char *what, const char *text, const char *part) {
  if (!contains(text, part))
    fail_msg("%s does not name \"%s\":\n%s", what, part,
             text ? text : "(null)");
}

static void expect_no_text(const char *what, const char *text,
                           const char *part) {
  if (contains(text, part))
    fail_msg("%s names \"%s\":\n%s", what, part, text);
}

static int is_file(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG;
}

static void set_env(const char *name, const char *value) {
#ifdef _WIN32
  /* The C runtime's copy (the fakes read it with getenv) and the process
   * block (the helper process inherits it). */
  _putenv_s(name, value ? value : "");
  SetEnvironmentVariableA(name, value);
#else
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
#endif
}

static double now_ms(void) {
#ifdef _WIN32
  return (double)GetTickCount64();
#else
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
#endif
}

#ifdef _WIN32
#define FAKE_TREE "fake_cuda/windows/"
#define FAKE_DRIVER FAKE_TREE "driver/nvcuda.dll"
#else
#define FAKE_TREE "fake_cuda/"
#define FAKE_DRIVER FAKE_TREE "driver/libcuda.so.1"
#endif

/* A fake_cuda fixture's path; skips (visibly) when it was not built. */
static const char *fixture(const char *relative) {
  const char *path = test_fixture_path(relative);
  if (!is_file(path)) {
    char reason[TEST_PATH_CAPACITY + 96];
    snprintf(reason, sizeof reason,
             "fixture %s was not built (no compiler for it?)", path);
    SKIP_SCENARIO(reason);
  }
  return path;
}

static void print_probe(const cudaload_probe *p) {
  print_message("  verdict %d reason %d: %s\n", cudaload_probe_verdict(p),
                cudaload_probe_reason(p), cudaload_probe_summary(p));
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i)
    print_message("  %-8s %d %8.3f ms  %s\n", cudaload_probe_stage_name(p, i),
                  cudaload_probe_stage_status(p, i),
                  cudaload_probe_stage_ms(p, i),
                  cudaload_probe_stage_message(p, i));
}

/* A ctx with only explicit roots, the fake driver and requirements. */
static cudaload_ctx *fake_context(const char *driver, const char *spec) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
#ifdef _WIN32
  static const char *const roots[] = {FAKE_TREE "bin", FAKE_TREE "cudnn9"};
#else
  static const char *const roots[] = {FAKE_TREE "lib", FAKE_TREE "cudnn8",
                                      FAKE_TREE "cudnn9"};
#endif
  for (size_t i = 0; i < ARRAY_COUNT(roots); ++i)
    assert_int_equal(cudaload_add_root(ctx, test_fixture_path(roots[i])),
                     CUDALOAD_OK);
  if (spec)
    assert_int_equal(cudaload_require(ctx, spec), CUDALOAD_OK);
  if (driver)
    assert_int_equal(cudaload_set_driver(ctx, driver), CUDALOAD_OK);
  return ctx;
}

static cudaload_probe *probe(cudaload_ctx *ctx, unsigned flags,
                             double timeout) {
  cudaload_probe *p = NULL;
  int status = cudaload_probe_run(ctx, flags, timeout, &p);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_probe_run: %s (%s)", cudaload_strerror(status),
             cudaload_last_error());
  assert_non_null(p);
  print_probe(p);
  assert_int_equal(cudaload_probe_stage_count(p), 7);
  return p;
}

/* The verdict is CPU_FALLBACK for `reason`, stage `failed` failed with a
 * message naming `needle`, and every later stage is skipped or failed. */
static void expect_fallback(const cudaload_probe *p, int reason, size_t failed,
                            const char *needle) {
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_CPU_FALLBACK);
  assert_int_equal(cudaload_probe_reason(p), reason);
  assert_true(contains(cudaload_probe_summary(p), "fall back to CPU"));
  assert_int_equal(cudaload_probe_stage_status(p, failed),
                   CUDALOAD_STAGE_FAILED);
  if (!contains(cudaload_probe_stage_message(p, failed), needle))
    fail_msg("stage %s says \"%s\", which does not name \"%s\"",
             cudaload_probe_stage_name(p, failed),
             cudaload_probe_stage_message(p, failed), needle);
  /* The summary carries the failing stage's detail. */
  assert_true(contains(cudaload_probe_summary(p), needle));
  for (size_t i = 0; i < failed; ++i)
    assert_int_not_equal(cudaload_probe_stage_status(p, i),
                         CUDALOAD_STAGE_FAILED);
}

static void expect_all_ok(const cudaload_probe *p) {
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  assert_int_equal(cudaload_probe_reason(p), CUDALOAD_REASON_NONE);
  assert_true(contains(cudaload_probe_summary(p), "GPU usable"));
  for (size_t i = 0; i < 7; ++i)
    assert_int_equal(cudaload_probe_stage_status(p, i), CUDALOAD_STAGE_OK);
}

#ifdef _WIN32
#define GPU_OK_SPEC "cudart,cublas,cudnn=9"
#else
#define GPU_OK_SPEC "cudart,cublas,cudnn=8,cudnn=9"
#endif

/* A folder of this scenario's own for the files it makes (FIFOs, pid
 * files), made on first use; its files are removed by clean_scratch(). */
static char scratch[1024];

static const char *scratch_path(const char *name) {
  static char slots[4][TEST_PATH_CAPACITY];
  static unsigned next;
  if (!scratch[0]) {
#ifdef _WIN32
    char temp[MAX_PATH];
    if (!GetTempPathA(sizeof temp, temp))
      fail_msg("%s", "GetTempPathA failed");
    snprintf(scratch, sizeof scratch, "%scudaload-probe-%lu", temp,
             (unsigned long)GetCurrentProcessId());
    _mkdir(scratch);
#else
    const char *temp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/cudaload-probe-XXXXXX",
             temp && temp[0] ? temp : "/tmp");
    if (!mkdtemp(scratch))
      fail_msg("mkdtemp %s: %s", scratch, strerror(errno));
#endif
  }
  char *out = slots[next++ % 4];
  snprintf(out, TEST_PATH_CAPACITY, "%s%c%s", scratch,
#ifdef _WIN32
           '\\',
#else
           '/',
#endif
           name);
  return out;
}

/* Remove what scratch_path() named (names listed by the scenario). */
static void clean_scratch(const char *const *names, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const char *path = scratch_path(names[i]);
    if (remove(path) != 0)
      rmdir(path);
  }
  rmdir(scratch);
}

/* The pid a fake driver's helper wrote to `path`, or -1. */
static long read_pid(const char *path) {
  long pid = -1;
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%ld", &pid) != 1)
      pid = -1;
    fclose(f);
  }
  return pid;
}

/* Whether process `pid` is gone (a zombie counts: it runs nothing), waiting
 * up to wait_ms for it to go. */
static int process_gone(long pid, double wait_ms) {
  double deadline = now_ms() + wait_ms;
#ifdef _WIN32
  HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
  if (!h)
    return 1;
  DWORD waited = WaitForSingleObject(h, (DWORD)wait_ms);
  CloseHandle(h);
  (void)deadline;
  return waited == WAIT_OBJECT_0;
#else
  for (;;) {
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      return 1;
    char stat_path[64], line[512] = "";
    snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", pid);
    FILE *f = fopen(stat_path, "r");
    if (f) {
      size_t n = fread(line, 1, sizeof line - 1, f);
      line[n] = '\0';
      fclose(f);
      const char *paren = strrchr(line, ')');
      if (paren && paren[1] == ' ' && paren[2] == 'Z')
        return 1;
    }
    if (now_ms() > deadline)
      return 0;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
#endif
}

/* The helper the fake driver started must not outlive the probe. */
static void expect_helper_gone(const char *pid_file) {
  long pid = read_pid(pid_file);
  if (pid <= 0)
    fail_msg("the fake driver wrote no helper pid to %s", pid_file);
  print_message("  the driver's helper process: pid %ld\n", pid);
  if (!process_gone(pid, 3000.0)) {
#ifndef _WIN32
    kill((pid_t)pid, SIGKILL); /* do not leave it to the next test */
#endif
    fail_msg("the driver's helper process %ld still runs after the probe "
             "returned",
             pid);
  }
}

#ifndef _WIN32
/* A probe that blocks for ever would hold the test until ctest's own limit:
 * fail with a message instead. */
static void on_blocked(int sig) {
  (void)sig;
  static const char message[] =
      "\n[  FAILED  ] the probe blocked (the guard's alarm fired)\n";
  if (write(2, message, sizeof message - 1) < 0) {
    /* nothing more to say */
  }
  _exit(1);
}

static void guard(unsigned seconds) {
  signal(SIGALRM, on_blocked);
  alarm(seconds);
}

/* No child of this process is left, reaped or not. */
static void expect_no_children(void) {
  errno = 0;
  assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
  assert_int_equal(errno, ECHILD);
}
#endif

/* ------------------------------------------------------------------------ */
/* Scenarios                                                                */
/* ------------------------------------------------------------------------ */

static void scenario_no_driver(void **state) {
  (void)state;
  set_env("CUDALOAD_DRIVER", NULL);
  /* Arguments first: a relative driver path is refused. */
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_set_driver(ctx, "libcuda.so.1"),
                   CUDALOAD_E_INVALID_ARGUMENT);
  cudaload_probe *p = NULL;
  assert_int_equal(cudaload_probe_run(NULL, 0, 0, &p),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_probe_run(ctx, 0x80, 0, &p),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(p);

  /* A driver path that does not exist. */
  const char *missing = test_fixture_path("fake_cuda/no-such/libcuda.so.1");
  assert_int_equal(cudaload_set_driver(ctx, missing), CUDALOAD_OK);
  p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "no-such");
  assert_true(contains(cudaload_probe_summary(p), "no NVIDIA driver"));
  for (size_t i = STAGE_INIT; i <= STAGE_CUDNN; ++i)
    assert_int_equal(cudaload_probe_stage_status(p, i), CUDALOAD_STAGE_SKIPPED);
  assert_string_equal(cudaload_probe_driver_path(p), "");
  assert_int_equal(cudaload_probe_device_count(p), 0);
  cudaload_probe_free(p);

  /* CUDALOAD_DRIVER is the default when no driver is set. */
  assert_int_equal(cudaload_set_driver(ctx, NULL), CUDALOAD_OK);
  set_env("CUDALOAD_DRIVER", missing);
  p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "no-such");
  cudaload_probe_free(p);
  set_env("CUDALOAD_DRIVER", NULL);

  /* The system's driver by name: this test machine has none. */
  double started = now_ms();
  p = probe(ctx, 0, 0);
  double elapsed = now_ms() - started;
  if (cudaload_probe_verdict(p) == CUDALOAD_GPU_OK ||
      cudaload_probe_reason(p) != CUDALOAD_REASON_NO_DRIVER) {
    cudaload_probe_free(p);
    cudaload_destroy(ctx);
    SKIP_SCENARIO("this machine has an NVIDIA driver: the driver-less "
                  "default cannot be checked here");
  }
#ifdef _WIN32
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "nvcuda.dll");
#else
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "libcuda.so.1");
#endif
  print_message("  driver-less probe: %.3f ms\n", elapsed);
  /* "In under 5 ms" on an idle machine; a loaded CI machine gets slack. */
  assert_true(elapsed < 100.0);
  cudaload_probe_free(p);
  cudaload_probe_free(NULL);
  cudaload_destroy(ctx);
}

static void scenario_stub_refused(void **state) {
  (void)state;
#ifdef _WIN32
  SKIP_SCENARIO("a Linux scenario (the toolkit's lib64/stubs)");
#else
  const char *stub =
      fixture("toolkit/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so");
  cudaload_ctx *ctx = fake_context(stub, NULL);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "stub");
  /* Refused before loading: the process has no libcuda.so.1. */
  char *loaded = cl_os_loader_find_loaded("libcuda.so.1");
  assert_null(loaded);
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
#endif
}

static void scenario_gpu_ok(void **state) {
  (void)state;
  set_env("FAKE_CUDA_DEVICES", "2");
  set_env("FAKE_CUDA_DEVICE_NAME", "Probe Test GPU");
  set_env("FAKE_CUDA_CC", "86");
  set_env("FAKE_CUDA_MEMORY_MIB", "24576");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), GPU_OK_SPEC);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_all_ok(p);
  assert_int_equal(cudaload_probe_driver_version(p), 12040);
  assert_int_equal(cudaload_probe_runtime_version(p), 12040);
  assert_true(contains(cudaload_probe_driver_path(p), "driver"));
  assert_int_equal(cudaload_probe_device_count(p), 2);
  assert_string_equal(cudaload_probe_device_name(p, 0), "Probe Test GPU");
  assert_int_equal(cudaload_probe_device_capability(p, 0), 86);
  assert_int_equal(cudaload_probe_device_memory_mib(p, 0), 24576);
  assert_string_equal(cudaload_probe_device_uuid(p, 0),
                      "GPU-01122334-4556-6778-899a-abbccddeef00");
  assert_string_equal(cudaload_probe_device_uuid(p, 1),
                      "GPU-11223344-5566-7788-99aa-bbccddeeff10");
  assert_null(cudaload_probe_device_name(p, 2));
  assert_true(contains(cudaload_probe_summary(p), "Probe Test GPU"));
  assert_true(contains(cudaload_probe_summary(p), "8.6"));
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_CUDNN), "9.1.0"));
#ifndef _WIN32
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_CUDNN), "8.9.7"));
#endif
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_CUBLAS), "SGEMM"));
  for (size_t i = 0; i < 7; ++i)
    assert_true(cudaload_probe_stage_ms(p, i) >= 0.0);
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void init_failure(const char *code, int reason, const char *needle) {
  set_env("FAKE_CUDA_INIT", code);
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), GPU_OK_SPEC);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, reason, STAGE_INIT, needle);
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_DRIVER),
                   CUDALOAD_STAGE_OK);
  for (size_t i = STAGE_DEVICES; i <= STAGE_CUDNN; ++i)
    assert_int_equal(cudaload_probe_stage_status(p, i), CUDALOAD_STAGE_SKIPPED);
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_no_device(void **state) {
  (void)state;
  init_failure("100", CUDALOAD_REASON_NO_DEVICE, "CUDA_ERROR_NO_DEVICE");
  /* A driver that initialises but counts no device. */
  set_env("FAKE_CUDA_INIT", "0");
  set_env("FAKE_CUDA_DEVICES", "0");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DEVICE, STAGE_DEVICES,
                  "no CUDA device");
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_insufficient_driver(void **state) {
  (void)state;
  init_failure("35", CUDALOAD_REASON_DRIVER_TOO_OLD,
               "CUDA_ERROR_INSUFFICIENT_DRIVER");
}

static void scenario_unknown_error(void **state) {
  (void)state;
  init_failure("999", CUDALOAD_REASON_INIT_FAILED, "CUDA_ERROR_UNKNOWN");
}

static void scenario_runtime_newer_than_driver(void **state) {
  (void)state;
  set_env("FAKE_CUDA_DRIVER_VERSION", "11080");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cudart");
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_DRIVER_TOO_OLD, STAGE_RUNTIME,
                  "driver too old");
  const char *message = cudaload_probe_stage_message(p, STAGE_RUNTIME);
  assert_true(contains(message, "12.4") && contains(message, "12040"));
  assert_true(contains(message, "11.8") && contains(message, "11080"));
  assert_true(contains(cudaload_probe_summary(p), "update the NVIDIA driver"));
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_older_minor_warns(void **state) {
  (void)state;
  set_env("FAKE_CUDA_DRIVER_VERSION", "12020");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cudart");
  cudaload_probe *p = probe(ctx, 0, 0);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_RUNTIME),
                   CUDALOAD_STAGE_WARNING);
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_RUNTIME), "12.2"));
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_RUNTIME),
                       "minor-version compatibility"));
  assert_true(contains(cudaload_probe_summary(p), "note:"));
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_CUBLAS),
                   CUDALOAD_STAGE_SKIPPED);
  assert_true(
      contains(cudaload_probe_stage_message(p, STAGE_CUBLAS), "not required"));
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_cublas_not_initialized(void **state) {
  (void)state;
  set_env("FAKE_CUBLAS_CREATE", "1");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cublas");
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_LIBRARY_FAILED, STAGE_CUBLAS,
                  "CUBLAS_STATUS_NOT_INITIALIZED");
  /* No fact explains it: the message says which causes were ruled out. */
  expect_text("the cuBLAS stage", cudaload_probe_stage_message(p, STAGE_CUBLAS),
              "none of the causes the probe can see applies (81559 MiB "
              "free");
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_wrong_gemm(void **state) {
  (void)state;
  set_env("FAKE_CUBLAS_WRONG", "1");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cublas");
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_WRONG_RESULT, STAGE_CUBLAS, "SGEMM");
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

/* The device path itself fails (an out-of-memory allocation, as a GPU
 * taken by another process gives). */
static void scenario_device_failed(void **state) {
  (void)state;
  set_env("FAKE_CUDA_ALLOC", "2"); /* CUDA_ERROR_OUT_OF_MEMORY */
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_DEVICE_FAILED, STAGE_CONTEXT,
                  "cuMemAlloc");
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_cudnn_create_failed(void **state) {
  (void)state;
  set_env("FAKE_CUDNN_CREATE", "4"); /* CUDNN_STATUS_INTERNAL_ERROR */
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cudnn=9");
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_LIBRARY_FAILED, STAGE_CUDNN,
                  "cudnnCreate");
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_missing_symbol(void **state) {
  (void)state;
#ifdef _WIN32
  SKIP_SCENARIO("a Linux scenario (the broken fake driver is an ELF file)");
#else
  cudaload_ctx *ctx =
      fake_context(fixture(FAKE_TREE "broken_driver/libcuda.so.1"), NULL);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_DRIVER_BROKEN, STAGE_DRIVER,
                  "cuMemAlloc_v2");
  assert_true(contains(cudaload_probe_summary(p), "reinstall"));
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
#endif
}

static void scenario_missing_library(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(
      cudaload_add_root(ctx, test_fixture_path(FAKE_TREE "cudnn9")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_set_driver(ctx, fixture(FAKE_DRIVER)), CUDALOAD_OK);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_MISSING_LIBRARY, STAGE_CUDNN, "cudnn=8");
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_CUDNN), "fix:"));
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void set_helper(void) {
#ifdef _WIN32
  /* The tool runs the Windows child; its Linux path as Wine sees it. */
  char helper[TEST_PATH_CAPACITY];
  snprintf(helper, sizeof helper, "Z:%s", CUDALOAD_CLI_PATH);
  for (char *c = helper; *c; ++c)
    if (*c == '/')
      *c = '\\';
  if (!is_file(helper))
    SKIP_SCENARIO("the cudaload tool (the Windows probe helper) was not "
                  "built");
  set_env("CUDALOAD_PROBE_HELPER", helper);
#endif
}

static void scenario_hang_out_of_process(void **state) {
  (void)state;
  set_helper();
  set_env("FAKE_CUDA_INIT", "hang");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  double started = now_ms();
  cudaload_probe *p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 1.0);
  double elapsed = now_ms() - started;
  print_message("  out-of-process probe of a hung driver: %.0f ms\n", elapsed);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_CPU_FALLBACK);
  assert_int_equal(cudaload_probe_reason(p), CUDALOAD_REASON_TIMEOUT);
  assert_true(contains(cudaload_probe_summary(p), "did not finish within 1 s"));
  assert_true(contains(cudaload_probe_summary(p), "hung driver"));
  assert_true(elapsed >= 900.0);
#ifdef _WIN32
  assert_true(elapsed < 15000.0); /* Wine starts processes slowly */
#else
  assert_true(elapsed < 3000.0);
  /* The stages before the hang were reported; the hung one is named. */
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_DRIVER),
                   CUDALOAD_STAGE_OK);
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_INIT),
                   CUDALOAD_STAGE_FAILED);
  assert_true(contains(cudaload_probe_driver_path(p), "libcuda.so.1"));
  /* The killed child was reaped: no zombie, no child left at all. */
  errno = 0;
  assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
  assert_int_equal(errno, ECHILD);
#endif
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

static void scenario_out_of_process_matches_in_process(void **state) {
  (void)state;
  set_helper();
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), GPU_OK_SPEC);
  cudaload_probe *outside = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 60.0);
  cudaload_probe *inside = probe(ctx, 0, 0);
  expect_all_ok(outside);
  expect_all_ok(inside);
  assert_string_equal(cudaload_probe_summary(outside),
                      cudaload_probe_summary(inside));
  for (size_t i = 0; i < 7; ++i) {
    assert_int_equal(cudaload_probe_stage_status(outside, i),
                     cudaload_probe_stage_status(inside, i));
    assert_string_equal(cudaload_probe_stage_message(outside, i),
                        cudaload_probe_stage_message(inside, i));
  }
  assert_string_equal(cudaload_probe_driver_path(outside),
                      cudaload_probe_driver_path(inside));
  assert_int_equal(cudaload_probe_driver_version(outside), 12040);
  assert_int_equal(cudaload_probe_runtime_version(outside), 12040);
  assert_int_equal(cudaload_probe_device_count(outside), 1);
  assert_string_equal(cudaload_probe_device_name(outside, 0),
                      cudaload_probe_device_name(inside, 0));
  assert_string_equal(cudaload_probe_device_uuid(outside, 0),
                      cudaload_probe_device_uuid(inside, 0));
  assert_int_equal(cudaload_probe_device_memory_mib(outside, 0),
                   cudaload_probe_device_memory_mib(inside, 0));
  cudaload_probe_free(outside);
  cudaload_probe_free(inside);
  cudaload_destroy(ctx);
}

static void scenario_crash_out_of_process(void **state) {
  (void)state;
#ifdef _WIN32
  SKIP_SCENARIO("a Linux scenario (Wine would start its debugger on a crash)");
#else
  set_env("FAKE_CUDA_INIT", "crash");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 30.0);
  expect_fallback(p, CUDALOAD_REASON_PROBE_CRASHED, STAGE_INIT, "signal 11");
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
#endif
}

/* Issue 12, item 4: a driver path that is not a regular file is refused
 * before the OS loader sees it: dlopen() of a FIFO blocks until a writer
 * comes, for ever. The same for cudaload_dlopen_isolated(). */
static void expect_refused(cudaload_ctx *ctx, const char *path,
                           const char *what) {
  assert_int_equal(cudaload_set_driver(ctx, path), CUDALOAD_OK);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, what);
  assert_true(contains(cudaload_probe_stage_message(p, STAGE_DRIVER), path));
  cudaload_probe_free(p);
  assert_null(cudaload_dlopen_isolated(path));
  if (!contains(cudaload_last_error(), what) ||
      !contains(cudaload_last_error(), path))
    fail_msg("cudaload_dlopen_isolated(%s): \"%s\" does not say \"%s\"", path,
             cudaload_last_error(), what);
}

static void scenario_non_regular_driver(void **state) {
  (void)state;
  cudaload_ctx *ctx = fake_context(NULL, NULL);
#ifdef _WIN32
  const char *folder = scratch_path("nvcuda.dll");
  assert_int_equal(_mkdir(folder), 0);
  expect_refused(ctx, folder, "a directory");
  static const char *const names[] = {"nvcuda.dll"};
#else
  guard(30);
  const char *fifo = scratch_path("libcuda.so.1");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  expect_refused(ctx, fifo, "a FIFO");
  /* Through CUDALOAD_DRIVER, and out of process, too. */
  assert_int_equal(cudaload_set_driver(ctx, NULL), CUDALOAD_OK);
  set_env("CUDALOAD_DRIVER", fifo);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "a FIFO");
  cudaload_probe_free(p);
  p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 20.0);
  expect_fallback(p, CUDALOAD_REASON_NO_DRIVER, STAGE_DRIVER, "a FIFO");
  cudaload_probe_free(p);
  set_env("CUDALOAD_DRIVER", NULL);
  const char *folder = scratch_path("folder");
  assert_int_equal(mkdir(folder, 0700), 0);
  expect_refused(ctx, folder, "a directory");
  expect_refused(ctx, "/dev/null", "a device");
  alarm(0);
  static const char *const names[] = {"libcuda.so.1", "folder"};
#endif
  clean_scratch(names, ARRAY_COUNT(names));
  cudaload_destroy(ctx);
}

/* Issue 12, item 5 (a): cuInit starts a helper that keeps every inherited
 * descriptor (the report pipe too) and lives on. The report was complete:
 * its verdict stands, the probe does not wait for the helper, and the
 * helper does not outlive the probe. */
static void helper_left_behind(const char *kind) {
  set_helper();
  const char *pid_file = scratch_path("helper.pid");
  set_env("FAKE_CUDA_HELPER", kind);
  set_env("FAKE_CUDA_HELPER_PID_FILE", pid_file);
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  double started = now_ms();
  cudaload_probe *p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 30.0);
  double elapsed = now_ms() - started;
  print_message("  out-of-process probe with a %s helper: %.0f ms\n", kind,
                elapsed);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  assert_int_equal(cudaload_probe_reason(p), CUDALOAD_REASON_NONE);
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_CONTEXT),
                   CUDALOAD_STAGE_OK);
  /* Far less than the 30 s limit even on a loaded machine (Wine starts
   * processes slowly). */
  assert_true(elapsed < 15000.0);
  expect_helper_gone(pid_file);
#ifndef _WIN32
  expect_no_children();
#endif
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
  static const char *const names[] = {"helper.pid"};
  clean_scratch(names, ARRAY_COUNT(names));
}

static void scenario_fork_helper_out_of_process(void **state) {
  (void)state;
  helper_left_behind("fork");
}

/* Why a scenario whose fake driver starts a helper program is skipped
 * under an emulator (tests/exec_self.h). */
#define EMULATED_HELPER                                                        \
  "under an emulator (the aarch64 tier): the helper the fake driver execs "    \
  "is a program of the emulated machine, which the host cannot start "         \
  "without binfmt_misc"

static void scenario_daemon_helper_out_of_process(void **state) {
  (void)state;
#if defined(__linux__)
  if (getenv("CUDALOAD_TEST_EMULATOR"))
    SKIP_SCENARIO(EMULATED_HELPER);
  helper_left_behind("setsid");
#else
  SKIP_SCENARIO("setsid()'d descendants are reached on Linux only (a "
                "subreaper; SECURITY.md)");
#endif
}

/* Issue 12, item 5 (b): a hung driver that started a helper: at the deadline
 * the helper is killed with the probe's process. */
static void hung_with_helper(const char *kind) {
  set_helper();
  const char *pid_file = scratch_path("helper.pid");
  set_env("FAKE_CUDA_HELPER", kind);
  set_env("FAKE_CUDA_HELPER_PID_FILE", pid_file);
  set_env("FAKE_CUDA_INIT", "hang");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  double started = now_ms();
  cudaload_probe *p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 1.0);
  double elapsed = now_ms() - started;
  print_message("  hung driver with a %s helper: %.0f ms\n", kind, elapsed);
  expect_fallback(p, CUDALOAD_REASON_TIMEOUT, STAGE_INIT,
                  "did not finish within 1 s");
  assert_true(elapsed >= 900.0);
  assert_true(elapsed < 15000.0);
  expect_helper_gone(pid_file);
#ifndef _WIN32
  expect_no_children();
#endif
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
  static const char *const names[] = {"helper.pid"};
  clean_scratch(names, ARRAY_COUNT(names));
}

static void scenario_hang_fork_helper_out_of_process(void **state) {
  (void)state;
  hung_with_helper("fork");
}

static void scenario_hang_setsid_helper_out_of_process(void **state) {
  (void)state;
#if defined(__linux__)
  if (getenv("CUDALOAD_TEST_EMULATOR"))
    SKIP_SCENARIO(EMULATED_HELPER);
  hung_with_helper("setsid");
#else
  SKIP_SCENARIO("setsid()'d descendants are reached on Linux only (a "
                "subreaper; SECURITY.md)");
#endif
}

/* Issue 12, item 5 (c): a driver that closes every descriptor (the report
 * pipe ends early) and hangs: the deadline still holds. */
static void scenario_close_fds_out_of_process(void **state) {
  (void)state;
#ifdef _WIN32
  SKIP_SCENARIO("a POSIX scenario (file descriptors)");
#else
  guard(60);
  set_env("FAKE_CUDA_CLOSE_FDS", "1");
  set_env("FAKE_CUDA_INIT", "hang");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  double started = now_ms();
  cudaload_probe *p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 1.0);
  double elapsed = now_ms() - started;
  alarm(0);
  print_message("  hung driver without descriptors: %.0f ms\n", elapsed);
  expect_fallback(p, CUDALOAD_REASON_TIMEOUT, STAGE_INIT,
                  "did not finish within 1 s");
  assert_true(elapsed >= 900.0);
  assert_true(elapsed < 15000.0);
  expect_no_children();
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
#endif
}

/* Issue 12, item 6: what a driver prints on stdout reaches neither the
 * report nor the caller's stdout. */
#define DRIVER_CHATTER "FAKE DRIVER CHATTER ON STDOUT"

static void scenario_stdout_out_of_process(void **state) {
  (void)state;
  set_helper();
  set_env("FAKE_CUDA_PRINT_STDOUT", DRIVER_CHATTER);
#ifndef _WIN32
  const char *captured = scratch_path("stdout.txt");
  fflush(stdout);
  int saved = dup(1);
  int file = open(captured, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(saved >= 0 && file >= 0);
  assert_int_equal(dup2(file, 1), 1);
  close(file);
#endif
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *outside = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 30.0);
#ifndef _WIN32
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  char text[4096] = "";
  FILE *f = fopen(captured, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  if (contains(text, DRIVER_CHATTER))
    fail_msg("the driver's stdout reached the caller's stdout: \"%s\"", text);
  static const char *const names[] = {"stdout.txt"};
  clean_scratch(names, ARRAY_COUNT(names));
#endif
  /* Every record arrived intact: the stages say what an in-process probe
   * says. */
  set_env("FAKE_CUDA_PRINT_STDOUT", NULL);
  cudaload_probe *inside = probe(ctx, 0, 0);
  assert_int_equal(cudaload_probe_verdict(outside), CUDALOAD_GPU_OK);
  for (size_t i = 0; i < 7; ++i) {
    assert_int_equal(cudaload_probe_stage_status(outside, i),
                     cudaload_probe_stage_status(inside, i));
    assert_string_equal(cudaload_probe_stage_message(outside, i),
                        cudaload_probe_stage_message(inside, i));
  }
  cudaload_probe_free(outside);
  cudaload_probe_free(inside);
  cudaload_destroy(ctx);
}

/* Issue 12, item 5: a driver that floods the report channel does not make
 * the caller hold all of it: past 1 MiB the probe process is stopped. */
static void scenario_flood_out_of_process(void **state) {
  (void)state;
  set_helper();
  set_env("FAKE_CUDA_FLOOD_REPORT", "8388608");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  double started = now_ms();
  cudaload_probe *p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 30.0);
  double elapsed = now_ms() - started;
  print_message("  flooding driver: %.0f ms\n", elapsed);
  expect_fallback(p, CUDALOAD_REASON_PROBE_CRASHED, STAGE_INIT,
                  "more than 1048576 bytes");
  assert_true(elapsed < 15000.0);
#ifndef _WIN32
  expect_no_children();
#endif
  cudaload_probe_free(p);
  cudaload_destroy(ctx);
}

/* The stage's status is `status` and its message names every needle. */
static void expect_stage(const cudaload_probe *p, size_t stage, int status,
                         const char *needle, const char *value) {
  const char *message = cudaload_probe_stage_message(p, stage);
  if (cudaload_probe_stage_status(p, stage) != status ||
      !contains(message, needle) || (value && !contains(message, value)))
    fail_msg("stage %s: status %d \"%s\"; expected status %d naming \"%s\" "
             "and \"%s\"",
             cudaload_probe_stage_name(p, stage),
             cudaload_probe_stage_status(p, stage), message, status, needle,
             value ? value : "");
}

/* Issue 12, item 7: numbers the driver and the libraries report are checked
 * before they are used: out of range is a warning or a failure naming the
 * value, never arithmetic on it (UBSan: signed overflow). */
static void scenario_invalid_numbers(void **state) {
  (void)state;
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  static const struct {
    const char *variable, *value, *what;
  } capabilities[] = {
      {"FAKE_CUDA_CC_MAJOR", "2147483647", "compute capability"},
      {"FAKE_CUDA_CC_MAJOR", "-2147483648", "compute capability"},
      {"FAKE_CUDA_CC_MINOR", "10", "compute capability"},
      {"FAKE_CUDA_MEMORY_BYTES", "0", "total memory"},
      {"FAKE_CUDA_MEMORY_BYTES", "18446744073709551615", "total memory"},
  };
  for (size_t i = 0; i < ARRAY_COUNT(capabilities); ++i) {
    set_env(capabilities[i].variable, capabilities[i].value);
    cudaload_probe *p = probe(ctx, 0, 0);
    /* The device works; what it told is wrong: a warning, GPU_OK. */
    assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
    expect_stage(p, STAGE_DEVICES, CUDALOAD_STAGE_WARNING, capabilities[i].what,
                 capabilities[i].value);
    assert_true(contains(cudaload_probe_stage_message(p, STAGE_DEVICES),
                         "the driver reported an invalid"));
    assert_true(contains(cudaload_probe_summary(p), "note:"));
    if (strcmp(capabilities[i].what, "compute capability") == 0)
      assert_int_equal(cudaload_probe_device_capability(p, 0), 0);
    else
      assert_int_equal(cudaload_probe_device_memory_mib(p, 0), 0);
    cudaload_probe_free(p);
    set_env(capabilities[i].variable, NULL);
  }

  static const char *const counts[] = {"-1", "100000", "2147483647"};
  for (size_t i = 0; i < ARRAY_COUNT(counts); ++i) {
    set_env("FAKE_CUDA_DEVICES", counts[i]);
    cudaload_probe *p = probe(ctx, 0, 0);
    expect_fallback(p, CUDALOAD_REASON_DEVICE_FAILED, STAGE_DEVICES,
                    "the driver reported an invalid device count");
    assert_true(
        contains(cudaload_probe_stage_message(p, STAGE_DEVICES), counts[i]));
    assert_int_equal(cudaload_probe_device_count(p), 0);
    cudaload_probe_free(p);
  }
  set_env("FAKE_CUDA_DEVICES", NULL);
  cudaload_destroy(ctx);

  /* The versions: the driver's is a warning (the runtime cannot be checked
   * against it), the runtime's a warning, cuDNN's a failure. */
  ctx = fake_context(fixture(FAKE_DRIVER), "cudart");
  set_env("FAKE_CUDA_DRIVER_VERSION", "-5");
  cudaload_probe *p = probe(ctx, 0, 0);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  expect_stage(p, STAGE_INIT, CUDALOAD_STAGE_WARNING,
               "the driver reported an invalid CUDA version", "-5");
  expect_stage(p, STAGE_RUNTIME, CUDALOAD_STAGE_WARNING, "not checked", "12.4");
  assert_int_equal(cudaload_probe_driver_version(p), 0);
  cudaload_probe_free(p);
  set_env("FAKE_CUDA_DRIVER_VERSION", "2147483647");
  p = probe(ctx, 0, 0);
  expect_stage(p, STAGE_INIT, CUDALOAD_STAGE_WARNING,
               "the driver reported an invalid CUDA version", "2147483647");
  cudaload_probe_free(p);
  set_env("FAKE_CUDA_DRIVER_VERSION", NULL);
  set_env("FAKE_CUDART_VERSION", "2147483647");
  p = probe(ctx, 0, 0);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  expect_stage(p, STAGE_RUNTIME, CUDALOAD_STAGE_WARNING,
               "reported an invalid version", "2147483647");
  assert_int_equal(cudaload_probe_runtime_version(p), 0);
  cudaload_probe_free(p);
  set_env("FAKE_CUDART_VERSION", NULL);
  cudaload_destroy(ctx);

  ctx = fake_context(fixture(FAKE_DRIVER), "cudnn=9");
  static const char *const cudnn_versions[] = {"18446744073709551615", "0"};
  for (size_t i = 0; i < ARRAY_COUNT(cudnn_versions); ++i) {
    set_env("FAKE_CUDNN_VERSION", cudnn_versions[i]);
    p = probe(ctx, 0, 0);
    expect_fallback(p, CUDALOAD_REASON_LIBRARY_FAILED, STAGE_CUDNN,
                    "an invalid version");
    assert_true(contains(cudaload_probe_stage_message(p, STAGE_CUDNN),
                         cudnn_versions[i]));
    cudaload_probe_free(p);
  }
  set_env("FAKE_CUDNN_VERSION", NULL);
  cudaload_destroy(ctx);

  /* Out of process: the warning and the cleared value travel too. */
  set_helper();
  set_env("FAKE_CUDA_CC_MAJOR", "2147483647");
  ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  p = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 30.0);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  expect_stage(p, STAGE_DEVICES, CUDALOAD_STAGE_WARNING, "compute capability",
               "2147483647");
  assert_int_equal(cudaload_probe_device_capability(p, 0), 0);
  cudaload_probe_free(p);
  set_env("FAKE_CUDA_CC_MAJOR", NULL);
  cudaload_destroy(ctx);
}

/* Issue 12, item 7, the parent's side: numbers read back from a child's
 * report are checked as well (a driver may write into the channel). */
static void scenario_wire_numbers(void **state) {
  (void)state;
  static const char report[] =
      "cudaload-probe 1\n"
      "stage\t1\t77\t5\tan unknown status\n"
      "stage\t2\t0\t-99999999999999999999\tnegative time\n"
      "driver\t/x/libcuda.so.1\t99999999999\n"
      "runtime\t-99999999999\n"
      "device\tbig\t99999999999\t99999999999999999999\tGPU-x\n"
      "device\tnegative\t-5\t-1\tGPU-y\n"
      "device\tfine\t90\t1024\tGPU-z\n"
      "facts\t9\t7\t99\t-5\t99999999999999\n"
      "device\tfacts\t90\t1024\tGPU-w\n"
      "facts\t2\t1\t3\t0\t512\n"
      "verdict\t0\t0\tGPU usable\n"
      "end\n";
  cudaload_probe *p = cl_probe_new();
  assert_non_null(p);
  int complete = 0;
  assert_int_equal(cl_probe_wire_parse(report, strlen(report), p, &complete),
                   CUDALOAD_OK);
  assert_true(complete);
  /* A status the parent does not know is not taken. */
  assert_int_equal(cudaload_probe_stage_status(p, STAGE_INIT),
                   CUDALOAD_STAGE_SKIPPED);
  assert_true(cudaload_probe_stage_ms(p, STAGE_DEVICES) >= 0.0);
  assert_int_equal(cudaload_probe_driver_version(p), 0);
  assert_int_equal(cudaload_probe_runtime_version(p), 0);
  assert_int_equal(cudaload_probe_device_count(p), 4);
  /* Facts out of range are unknown; those in range are taken. */
  assert_int_equal(cudaload_probe_device_driver_model(p, 2),
                   CUDALOAD_DRIVER_MODEL_UNKNOWN);
  assert_int_equal(cudaload_probe_device_kernel_timeout(p, 2), -1);
  assert_int_equal(cudaload_probe_device_compute_mode(p, 2),
                   CUDALOAD_COMPUTE_MODE_UNKNOWN);
  assert_int_equal(cudaload_probe_device_integrated(p, 2), -1);
  assert_int_equal(cudaload_probe_device_free_mib(p, 2), -1);
  assert_int_equal(cudaload_probe_device_driver_model(p, 3),
                   CUDALOAD_DRIVER_MODEL_WDDM);
  assert_int_equal(cudaload_probe_device_kernel_timeout(p, 3), 1);
  assert_int_equal(cudaload_probe_device_compute_mode(p, 3),
                   CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS);
  assert_int_equal(cudaload_probe_device_integrated(p, 3), 0);
  assert_int_equal(cudaload_probe_device_free_mib(p, 3), 512);
  assert_int_equal(cudaload_probe_device_capability(p, 0), 0);
  assert_int_equal(cudaload_probe_device_memory_mib(p, 0), 0);
  assert_int_equal(cudaload_probe_device_capability(p, 1), 0);
  assert_int_equal(cudaload_probe_device_memory_mib(p, 1), 0);
  assert_int_equal(cudaload_probe_device_capability(p, 2), 90);
  assert_int_equal(cudaload_probe_device_memory_mib(p, 2), 1024);
  cudaload_probe_free(p);

  /* A verdict the parent does not know leaves the report unfinished. */
  static const char bad_verdict[] = "cudaload-probe 1\n"
                                    "verdict\t7\t99999\tnonsense\n"
                                    "end\n";
  p = cl_probe_new();
  assert_int_equal(
      cl_probe_wire_parse(bad_verdict, strlen(bad_verdict), p, &complete),
      CUDALOAD_OK);
  assert_false(complete);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_CPU_FALLBACK);
  cudaload_probe_free(p);
}

/* ------------------------------------------------------------------------ */
/* How the devices run, and the diagnosis built on it                       */
/* ------------------------------------------------------------------------ */

#ifdef _WIN32
#define HOST_DRIVER_MODEL CUDALOAD_DRIVER_MODEL_WDDM
#define HOST_DRIVER_MODEL_JSON "\"driver_model\": \"WDDM\""
#else
#define HOST_DRIVER_MODEL CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE
#define HOST_DRIVER_MODEL_JSON "\"driver_model\": \"not_applicable\""
#endif

/* The doctor's JSON with an in-process probe of ctx (cudaload_free it). */
static char *doctor_json(cudaload_ctx *ctx) {
  char *json = NULL;
  int status =
      cudaload_doctor(ctx, CUDALOAD_FORMAT_JSON, CUDALOAD_DOCTOR_PROBE, &json);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_doctor: %s", cudaload_last_error());
  print_message("%s\n", json);
  return json;
}

static void expect_device_facts(const cudaload_probe *p, int model) {
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  assert_int_equal(cudaload_probe_device_driver_model(p, 0), model);
  assert_int_equal(cudaload_probe_device_kernel_timeout(p, 0), 1);
  assert_int_equal(cudaload_probe_device_compute_mode(p, 0),
                   CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS);
  assert_int_equal(cudaload_probe_device_integrated(p, 0), 1);
  assert_int_equal(cudaload_probe_device_free_mib(p, 0), 70000);
  expect_text("the context stage",
              cudaload_probe_stage_message(p, STAGE_CONTEXT),
              "70000 MiB of 81559 MiB free");
}

/* What the driver says of how a device runs reaches the accessors, the
 * JSON report and, through a child's report, an out-of-process caller. */
static void scenario_device_facts(void **state) {
  (void)state;
  set_helper();
  set_env("FAKE_CUDA_TCC", "0");
  set_env("FAKE_CUDA_KERNEL_TIMEOUT", "1");
  set_env("FAKE_CUDA_COMPUTE_MODE", "3");
  set_env("FAKE_CUDA_INTEGRATED", "1");
  set_env("FAKE_CUDA_FREE_MIB", "70000");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *outside = probe(ctx, CUDALOAD_PROBE_OUT_OF_PROCESS, 60.0);
  cudaload_probe *inside = probe(ctx, 0, 0);
  expect_device_facts(inside, HOST_DRIVER_MODEL);
  expect_device_facts(outside, HOST_DRIVER_MODEL);
  char *json = NULL;
  assert_int_equal(cudaload_probe_report(inside, CUDALOAD_FORMAT_JSON, &json),
                   CUDALOAD_OK);
  static const char *const fields[] = {
      HOST_DRIVER_MODEL_JSON, "\"kernel_timeout\": true",
      "\"compute_mode\": \"exclusive_process\"", "\"integrated\": true",
      "\"free_memory_mib\": 70000"};
  for (size_t i = 0; i < ARRAY_COUNT(fields); ++i)
    expect_text("the probe's JSON", json, fields[i]);
  cudaload_free(json);
  /* The text `cudaload probe` and Python's str(Probe) print: the library's. */
  char *text = NULL;
  assert_int_equal(cudaload_probe_report(inside, CUDALOAD_FORMAT_TEXT, &text),
                   CUDALOAD_OK);
  expect_text("the probe's text", text, "STAGE ");
  expect_text("the probe's text", text,
              "display watchdog on, compute mode exclusive_process, "
              "integrated, 70000 MiB free\n");
  cudaload_free(text);
  assert_int_equal(cudaload_probe_report(inside, CUDALOAD_FORMAT_DOT, &text),
                   CUDALOAD_E_INVALID_ARGUMENT);
  /* No such device: every fact unknown. */
  assert_int_equal(cudaload_probe_device_driver_model(inside, 9),
                   CUDALOAD_DRIVER_MODEL_UNKNOWN);
  assert_int_equal(cudaload_probe_device_kernel_timeout(inside, 9), -1);
  assert_int_equal(cudaload_probe_device_compute_mode(inside, 9),
                   CUDALOAD_COMPUTE_MODE_UNKNOWN);
  assert_int_equal(cudaload_probe_device_integrated(inside, 9), -1);
  assert_int_equal(cudaload_probe_device_free_mib(inside, 9), -1);
  cudaload_probe_free(inside);
  cudaload_probe_free(outside);
  /* TCC is a Windows driver model: Linux's driver answering 1 changes
   * nothing there. */
  set_env("FAKE_CUDA_TCC", "1");
  inside = probe(ctx, 0, 0);
#ifdef _WIN32
  assert_int_equal(cudaload_probe_device_driver_model(inside, 0),
                   CUDALOAD_DRIVER_MODEL_TCC);
#else
  assert_int_equal(cudaload_probe_device_driver_model(inside, 0),
                   CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE);
#endif
  cudaload_probe_free(inside);
  /* An exclusive mode this process got the device in is a fact, not a
   * problem. */
  json = doctor_json(ctx);
  expect_no_text("the doctor", json, "compute mode \\\"exclusive_process\\\"");
  cudaload_free(json);
  cudaload_destroy(ctx);
}

/* WDDM with the display watchdog on: a long kernel resets the driver. On
 * Linux the same driver answer means the device drives a display under the
 * X driver's watchdog: a problem too, with Linux's fix. */
static void scenario_wddm_watchdog(void **state) {
  (void)state;
  set_env("FAKE_CUDA_TCC", "0");
  set_env("FAKE_CUDA_KERNEL_TIMEOUT", "1");
  set_env("FAKE_CUBLAS_CREATE", "1");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cublas");
  char *json = doctor_json(ctx);
  const char *problem = "runs under WDDM with Windows' display watchdog on";
#ifdef _WIN32
  expect_text("the doctor", json, problem);
  expect_text("the doctor", json, "TdrDelay (");
  expect_text("the doctor", json, "nvidia-smi -i GPU-");
  expect_text("the doctor", json, "a system-wide registry change");
  /* cuBLAS's NOT_INITIALIZED names the watchdog as a cause. */
  expect_text("the doctor", json, "Windows resets the driver and cuBLAS's");
#else
  expect_no_text("the doctor", json, problem);
  expect_text("the doctor", json, "none of the causes the probe can see");
  /* Linux: the display's watchdog is the X driver's, and its fix too. */
  expect_text("the doctor", json,
              "device 0 (Fake CUDA Device) drives a display, so its kernels "
              "run under the driver's watchdog");
  expect_text("the doctor", json, "Option \\\"Interactive\\\" \\\"0\\\"");
  expect_text("the doctor", json, "systemctl isolate multi-user.target");
#endif
  cudaload_free(json);
  /* TCC: no display, no watchdog problem. */
  set_env("FAKE_CUDA_TCC", "1");
  json = doctor_json(ctx);
  expect_no_text("the doctor", json, problem);
  /* No display: no watchdog, no problem on either system. */
  set_env("FAKE_CUDA_TCC", "0");
  set_env("FAKE_CUDA_KERNEL_TIMEOUT", "0");
  cudaload_free(json);
  json = doctor_json(ctx);
  expect_no_text("the doctor", json, "drives a display");
  cudaload_free(json);
  cudaload_destroy(ctx);
}

/* Compute mode "prohibited": every context is refused, and the doctor says
 * why instead of a generic device failure. */
static void scenario_compute_mode_prohibited(void **state) {
  (void)state;
  set_env("FAKE_CUDA_COMPUTE_MODE", "2");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_DEVICE_FAILED, STAGE_CONTEXT,
                  "CUDA_ERROR_DEVICE_UNAVAILABLE");
  expect_text("the context stage",
              cudaload_probe_stage_message(p, STAGE_CONTEXT),
              "compute mode \"prohibited\"");
  cudaload_probe_free(p);
  char *json = doctor_json(ctx);
  expect_text("the doctor", json,
              "is in compute mode \\\"prohibited\\\": no process may create");
  expect_text("the doctor", json, "-c DEFAULT");
  expect_no_text("the doctor", json, "the GPU probe falls back to CPU");
  cudaload_free(json);
  /* Exclusive-process with another process on it: why this one is kept
   * off. */
  set_env("FAKE_CUDA_COMPUTE_MODE", "3");
  set_env("FAKE_CUDA_DEVICE_BUSY", "1");
  json = doctor_json(ctx);
  expect_text("the doctor", json,
              "compute mode \\\"exclusive_process\\\" and another process is "
              "using it");
  expect_no_text("the doctor", json, "the GPU probe falls back to CPU");
  cudaload_free(json);
  cudaload_destroy(ctx);
}

/* CUDA_VISIBLE_DEVICES that lists no device: the driver, like the real
 * one, sees none, and both the probe and the doctor name the variable. */
static void scenario_visible_devices_hide_all(void **state) {
  (void)state;
  set_env("CUDA_VISIBLE_DEVICES", "-1");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), NULL);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_NO_DEVICE, STAGE_INIT,
                  "CUDA_VISIBLE_DEVICES=\"-1\" is set");
  cudaload_probe_free(p);
  char *json = doctor_json(ctx);
  expect_text("the doctor", json,
              "the GPU probe finds no device, and CUDA_VISIBLE_DEVICES");
  expect_text("the doctor", json, "nvidia-smi -L");
  expect_no_text("the doctor", json, "the GPU probe falls back to CPU");
  cudaload_free(json);
  /* A list that names a device shows that one. */
  set_env("FAKE_CUDA_DEVICES", "2");
  set_env("CUDA_VISIBLE_DEVICES", "1");
  p = probe(ctx, 0, 0);
  assert_int_equal(cudaload_probe_verdict(p), CUDALOAD_GPU_OK);
  assert_int_equal(cudaload_probe_device_count(p), 1);
  cudaload_probe_free(p);
  json = doctor_json(ctx);
  expect_no_text("the doctor", json, "CUDA_VISIBLE_DEVICES=\\\"1\\\" hides");
  cudaload_free(json);
  set_env("CUDA_VISIBLE_DEVICES", NULL);
  cudaload_destroy(ctx);
}

/* Little free memory: cuBLAS cannot make its workspace, and says only
 * NOT_INITIALIZED; the probe and the doctor say why. */
static void scenario_cublas_low_memory(void **state) {
  (void)state;
  set_env("FAKE_CUDA_FREE_MIB", "32");
  cudaload_ctx *ctx = fake_context(fixture(FAKE_DRIVER), "cublas");
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_LIBRARY_FAILED, STAGE_CUBLAS,
                  "only 32 MiB of device 0's 81559 MiB are free");
  expect_text("the cuBLAS stage", cudaload_probe_stage_message(p, STAGE_CUBLAS),
              "CUBLAS_STATUS_NOT_INITIALIZED");
  cudaload_probe_free(p);
  char *json = doctor_json(ctx);
  expect_text("the doctor", json,
              "only 32 MiB of device 0's 81559 MiB were free");
  expect_text("the doctor", json, "nvidia-smi");
  expect_no_text("the doctor", json, "the GPU probe falls back to CPU");
  cudaload_free(json);
  cudaload_destroy(ctx);
}

/* cuBLAS 12.4 beside the cuBLASLt of 12.1 (a partial update): the versions
 * the scan read name the mismatch. */
static void scenario_cublas_mismatch(void **state) {
  (void)state;
  const char *driver = fixture(FAKE_DRIVER);
#ifdef _WIN32
  fixture(FAKE_TREE "cublas_mismatch/cublas64_12.dll");
#else
  fixture(FAKE_TREE "cublas_mismatch/libcublas.so.12.4.5.8");
#endif
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(
      cudaload_add_root(ctx, test_fixture_path(FAKE_TREE "cublas_mismatch")),
      CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, "cublas"), CUDALOAD_OK);
  assert_int_equal(cudaload_set_driver(ctx, driver), CUDALOAD_OK);
  cudaload_probe *p = probe(ctx, 0, 0);
  expect_fallback(p, CUDALOAD_REASON_LIBRARY_FAILED, STAGE_CUBLAS,
                  "cuBLAS is 12.4.5.8 but the cuBLASLt it loads is 12.1.3.1");
  cudaload_probe_free(p);
  char *json = doctor_json(ctx);
  expect_text("the doctor", json, "cuBLAS and cuBLASLt together");
  cudaload_free(json);
  cudaload_destroy(ctx);
}

/* ======================================================================== */

static const struct CMUnitTest scenarios[] = {
    {"no_driver", scenario_no_driver, NULL, NULL, NULL},
    {"stub_refused", scenario_stub_refused, NULL, NULL, NULL},
    {"gpu_ok", scenario_gpu_ok, NULL, NULL, NULL},
    {"no_device", scenario_no_device, NULL, NULL, NULL},
    {"insufficient_driver", scenario_insufficient_driver, NULL, NULL, NULL},
    {"unknown_error", scenario_unknown_error, NULL, NULL, NULL},
    {"runtime_newer_than_driver", scenario_runtime_newer_than_driver, NULL,
     NULL, NULL},
    {"older_minor_warns", scenario_older_minor_warns, NULL, NULL, NULL},
    {"cublas_not_initialized", scenario_cublas_not_initialized, NULL, NULL,
     NULL},
    {"wrong_gemm", scenario_wrong_gemm, NULL, NULL, NULL},
    {"device_failed", scenario_device_failed, NULL, NULL, NULL},
    {"cudnn_create_failed", scenario_cudnn_create_failed, NULL, NULL, NULL},
    {"missing_symbol", scenario_missing_symbol, NULL, NULL, NULL},
    {"missing_library", scenario_missing_library, NULL, NULL, NULL},
    {"hang_out_of_process", scenario_hang_out_of_process, NULL, NULL, NULL},
    {"out_of_process_matches_in_process",
     scenario_out_of_process_matches_in_process, NULL, NULL, NULL},
    {"crash_out_of_process", scenario_crash_out_of_process, NULL, NULL, NULL},
    {"non_regular_driver", scenario_non_regular_driver, NULL, NULL, NULL},
    {"fork_helper_out_of_process", scenario_fork_helper_out_of_process, NULL,
     NULL, NULL},
    {"daemon_helper_out_of_process", scenario_daemon_helper_out_of_process,
     NULL, NULL, NULL},
    {"hang_fork_helper_out_of_process",
     scenario_hang_fork_helper_out_of_process, NULL, NULL, NULL},
    {"hang_setsid_helper_out_of_process",
     scenario_hang_setsid_helper_out_of_process, NULL, NULL, NULL},
    {"close_fds_out_of_process", scenario_close_fds_out_of_process, NULL, NULL,
     NULL},
    {"stdout_out_of_process", scenario_stdout_out_of_process, NULL, NULL, NULL},
    {"flood_out_of_process", scenario_flood_out_of_process, NULL, NULL, NULL},
    {"invalid_numbers", scenario_invalid_numbers, NULL, NULL, NULL},
    {"wire_numbers", scenario_wire_numbers, NULL, NULL, NULL},
    {"device_facts", scenario_device_facts, NULL, NULL, NULL},
    {"wddm_watchdog", scenario_wddm_watchdog, NULL, NULL, NULL},
    {"compute_mode_prohibited", scenario_compute_mode_prohibited, NULL, NULL,
     NULL},
    {"visible_devices_hide_all", scenario_visible_devices_hide_all, NULL, NULL,
     NULL},
    {"cublas_low_memory", scenario_cublas_low_memory, NULL, NULL, NULL},
    {"cublas_mismatch", scenario_cublas_mismatch, NULL, NULL, NULL},
};

int main(int argc, char **argv) {
  return run_named_scenario("test_probe", scenarios, ARRAY_COUNT(scenarios),
                            argc, argv);
}
