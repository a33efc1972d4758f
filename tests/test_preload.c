/* SPDX-License-Identifier: MIT */
/*
 * test_preload.c - requirements, plans and preloading, end to end, with the
 * real libraries of the fixture tree preload/ (tests/fixtures/README.md).
 *
 * Loads cannot be undone, so every scenario runs in its own process:
 *
 *   test_preload SCENARIO
 *
 * (tests/preload.cmake registers one ctest per scenario). A scenario that
 * does not apply to this platform, or whose files are missing, prints
 * "[  SKIPPED ]" with the reason and the program exits 77, which ctest shows
 * as skipped.
 *
 * What a user would notice is what is asserted: a consumer that would not
 * load loads after the preload, each consumer calls its own cuDNN major,
 * cuDNN 8's lazy open of its sub-library works, nothing is loaded twice, and
 * a failure says what is missing, where it looked and how to fix it.
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
#include <windows.h>
#else
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

#include "cudaload.h"
#include "scan/catalog.h"
#include "test_paths.h"

#define ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NOT_IN_PLAN ((size_t)-1)

/* cudnnGetVersion() of the fixtures: 8.9.7 and 9.1.0 in their encodings. */
#define FIXTURE_CUDNN8_VERSION 8907
#define FIXTURE_CUDNN9_VERSION 90100

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static const char *or_null(const char *text) {
  return text != NULL ? text : "(null)";
}

static int contains(const char *text, const char *part) {
  return text != NULL && strstr(text, part) != NULL;
}

#ifndef _WIN32
/* The line of a preload's error that says why a file failed (the one after
 * "could not be loaded:") names part exactly once: the loader's message
 * already starts with the path. */
static void expect_once(const char *text, const char *part) {
  const char *intro = strstr(text, "could not be loaded:\n");
  if (!intro)
    fail_msg("\"%s\" lists no file that could not be loaded", text);
  const char *line = intro + strlen("could not be loaded:\n");
  size_t len = strcspn(line, "\n");
  char *copy = malloc(len + 1);
  assert_non_null(copy);
  memcpy(copy, line, len);
  copy[len] = '\0';
  const char *first = strstr(copy, part);
  if (!first)
    fail_msg("\"%s\" does not name \"%s\"", copy, part);
  if (strstr(first + 1, part))
    fail_msg("\"%s\" names \"%s\" more than once", copy, part);
  free(copy);
}
#endif

static int ends_with(const char *text, const char *suffix) {
  if (text == NULL)
    return 0;
  size_t text_len = strlen(text);
  size_t suffix_len = strlen(suffix);
  return text_len >= suffix_len &&
         strcmp(text + text_len - suffix_len, suffix) == 0;
}

/* Print a text of any length (cmocka's print_message cuts at 1 KiB). */
static void print_long(const char *label, const char *text) {
  fflush(stdout);
  printf("  %s:\n%s\n", label, or_null(text));
  fflush(stdout);
}

/* The status has a text of its own: a user reading "unknown status" for a
 * documented code learns nothing. */
static void expect_status_text(int status) {
  const char *text = cudaload_strerror(status);
  if (text == NULL || text[0] == '\0' || strstr(text, "unknown") != NULL)
    fail_msg("cudaload_strerror(%d) = \"%s\": a documented status without "
             "a text of its own",
             status, or_null(text));
}

static int is_file(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG;
}

static const char *state_name(int state) {
  switch (state) {
  case CUDALOAD_STATE_PLANNED:
    return "PLANNED";
  case CUDALOAD_STATE_LOADED:
    return "LOADED";
  case CUDALOAD_STATE_ALREADY_LOADED:
    return "ALREADY_LOADED";
  case CUDALOAD_STATE_LOADED_ELSEWHERE:
    return "LOADED_ELSEWHERE";
  case CUDALOAD_STATE_FAILED:
    return "FAILED";
  case CUDALOAD_STATE_NOT_NEEDED:
    return "NOT_NEEDED";
  default:
    return "(unknown state)";
  }
}

/* Skip (visibly) when the preload fixtures were not built. */
static void require_fixture(const char *relative) {
  const char *path = test_fixture_path(relative);
  if (!is_file(path)) {
    char reason[TEST_PATH_CAPACITY + 128];
    snprintf(reason, sizeof reason,
             "fixture %s was not built (no C compiler for it when "
             "configuring?)",
             path);
    SKIP_SCENARIO(reason);
  }
}

/* ------------------------------------------------------------------------ */
/* Contexts and plans                                                       */
/* ------------------------------------------------------------------------ */

static cudaload_ctx *new_context(void) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  if (ctx == NULL)
    fail_msg("cudaload_create: %s", cudaload_last_error());
  return ctx;
}

static void add_root(cudaload_ctx *ctx, const char *path) {
  int status = cudaload_add_root(ctx, path);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_add_root(%s): %s (%s)", path, cudaload_strerror(status),
             cudaload_last_error());
}

static void add_fixture_root(cudaload_ctx *ctx, const char *relative) {
  add_root(ctx, test_fixture_path(relative));
}

static void require_ok(cudaload_ctx *ctx, const char *spec) {
  int status = cudaload_require(ctx, spec);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_require(\"%s\"): %s (%s)", spec,
             cudaload_strerror(status), cudaload_last_error());
}

static void print_plan(const cudaload_ctx *ctx) {
  size_t count = cudaload_plan_count(ctx);
  print_message("  plan (%lu files):\n", (unsigned long)count);
  for (size_t i = 0; i < count; i++) {
    print_message("  [%lu] %s major=%d state=%s\n       path=%s\n"
                  "       loaded=%s\n       reason=%s\n",
                  (unsigned long)i, or_null(cudaload_plan_name(ctx, i)),
                  cudaload_plan_major(ctx, i),
                  state_name(cudaload_plan_state(ctx, i)),
                  or_null(cudaload_plan_path(ctx, i)),
                  or_null(cudaload_plan_loaded_path(ctx, i)),
                  or_null(cudaload_plan_reason(ctx, i)));
  }
}

static void preload_ok(cudaload_ctx *ctx, unsigned flags) {
  int status = cudaload_preload(ctx, flags);
  if (status != CUDALOAD_OK) {
    print_long("last error", cudaload_last_error());
    print_plan(ctx);
    fail_msg("cudaload_preload(flags=0x%x): %s (%d); last error above", flags,
             cudaload_strerror(status), status);
  }
}

/* The plan entry with this catalog name and major, or NOT_IN_PLAN. */
static size_t plan_find(const cudaload_ctx *ctx, const char *name, int major) {
  size_t count = cudaload_plan_count(ctx);
  for (size_t i = 0; i < count; i++) {
    const char *entry = cudaload_plan_name(ctx, i);
    if (entry != NULL && strcmp(entry, name) == 0 &&
        cudaload_plan_major(ctx, i) == major)
      return i;
  }
  return NOT_IN_PLAN;
}

/* Plan entry `name` (major) must exist, be in `state`, and its file must end
 * with `file_suffix`. Returns its index. */
static size_t expect_entry(const cudaload_ctx *ctx, const char *name, int major,
                           int state, const char *file_suffix) {
  size_t i = plan_find(ctx, name, major);
  if (i == NOT_IN_PLAN) {
    print_plan(ctx);
    fail_msg("the plan has no %s (major %d)", name, major);
  }
  if (cudaload_plan_state(ctx, i) != state) {
    print_plan(ctx);
    fail_msg("plan entry %s (major %d): state %s, expected %s", name, major,
             state_name(cudaload_plan_state(ctx, i)), state_name(state));
  }
  if (!ends_with(cudaload_plan_path(ctx, i), file_suffix)) {
    print_plan(ctx);
    fail_msg("plan entry %s (major %d): path %s, expected one ending in %s",
             name, major, or_null(cudaload_plan_path(ctx, i)), file_suffix);
  }
  return i;
}

/* ======================================================================== */
/* Linux                                                                    */
/* ======================================================================== */
#ifndef _WIN32

static const char *const cudnn8_subs[] = {"ops_infer", "ops_train",
                                          "cnn_infer", "cnn_train",
                                          "adv_infer", "adv_train"};
static const char *const cudnn9_subs[] = {"graph",
                                          "ops",
                                          "cnn",
                                          "adv",
                                          "heuristic",
                                          "engines_precompiled",
                                          "engines_runtime_compiled"};

/* Which cuDNN 8 sub-library needs which (as the fixtures are linked, as
 * the real 8.9.7 files are: make_fixtures.py, CUDNN8_NEEDS). */
static const struct {
  const char *sub;
  const char *needs;
} cudnn8_needs[] = {
    {"ops_train", "ops_infer"}, {"cnn_infer", "ops_infer"},
    {"cnn_train", "ops_infer"}, {"cnn_train", "ops_train"},
    {"cnn_train", "cnn_infer"}, {"adv_infer", "ops_infer"},
    {"adv_train", "ops_infer"}, {"adv_train", "ops_train"},
    {"adv_train", "adv_infer"},
};

static void sub_name(char *out, size_t size, const char *sub) {
  snprintf(out, size, "cudnn_%s", sub);
}

/* The fixture file's real path (the fixtures folder may sit behind a
 * symlink), in a buffer from a small ring. */
static const char *fixture_real(const char *relative) {
  static char slots[8][PATH_MAX];
  static unsigned next;
  char *out = slots[next++ % 8];
  const char *path = test_fixture_path(relative);
  if (realpath(path, out) == NULL)
    fail_msg("realpath(%s) failed: the fixture is missing", path);
  return out;
}

/* Two paths name the same file. */
static int same_file(const char *a, const char *b) {
  char real_a[PATH_MAX], real_b[PATH_MAX];
  if (a == NULL || b == NULL || realpath(a, real_a) == NULL ||
      realpath(b, real_b) == NULL)
    return 0;
  return strcmp(real_a, real_b) == 0;
}

/* dlsym into a function pointer without an object-to-function cast. */
typedef int (*int_fn)(void);
typedef size_t (*size_fn)(void);
typedef int (*property_fn)(int, int *);

static void *symbol_or_fail(void *handle, const char *name) {
  void *symbol = dlsym(handle, name);
  if (symbol == NULL)
    fail_msg("dlsym(%s): %s", name, or_null(dlerror()));
  return symbol;
}

static int call_int(void *handle, const char *name) {
  int_fn fn;
  void *symbol = symbol_or_fail(handle, name);
  memcpy(&fn, &symbol, sizeof fn);
  return fn();
}

static size_t call_size(void *handle, const char *name) {
  size_fn fn;
  void *symbol = symbol_or_fail(handle, name);
  memcpy(&fn, &symbol, sizeof fn);
  return fn();
}

static int call_property(void *handle, const char *name, int type) {
  property_fn fn;
  int value = -1;
  void *symbol = symbol_or_fail(handle, name);
  memcpy(&fn, &symbol, sizeof fn);
  int status = fn(type, &value);
  if (status != 0)
    fail_msg("%s(%d) returned status %d", name, type, status);
  return value;
}

static void *open_or_fail(const char *path, int mode) {
  void *handle = dlopen(path, mode);
  if (handle == NULL)
    fail_msg("dlopen(%s): %s", path, or_null(dlerror()));
  return handle;
}

/* --- the process's modules (dl_iterate_phdr) ---------------------------- */

typedef struct module_list {
  char **paths; /* real paths */
  size_t count;
  size_t capacity;
} module_list;

static int collect_module(struct dl_phdr_info *info, size_t size,
                          void *opaque) {
  module_list *list = opaque;
  (void)size;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
    return 0; /* the executable, the vDSO */
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? list->capacity * 2 : 64;
    char **grown = realloc(list->paths, capacity * sizeof *grown);
    if (grown == NULL)
      return 1;
    list->paths = grown;
    list->capacity = capacity;
  }
  char real[PATH_MAX];
  const char *name =
      realpath(info->dlpi_name, real) != NULL ? real : info->dlpi_name;
  char *copy = malloc(strlen(name) + 1);
  if (copy == NULL)
    return 1;
  strcpy(copy, name);
  list->paths[list->count++] = copy;
  return 0;
}

static module_list modules_now(void) {
  module_list list = {NULL, 0, 0};
  if (dl_iterate_phdr(collect_module, &list) != 0)
    fail_msg("%s", "dl_iterate_phdr: out of memory");
  return list;
}

static void modules_free(module_list *list) {
  for (size_t i = 0; i < list->count; i++)
    free(list->paths[i]);
  free(list->paths);
  list->paths = NULL;
  list->count = list->capacity = 0;
}

static size_t modules_count_of(const module_list *list, const char *real) {
  size_t n = 0;
  for (size_t i = 0; i < list->count; i++)
    n += strcmp(list->paths[i], real) == 0;
  return n;
}

/* Modules in `after` that `before` does not have (printed), their count. */
static size_t modules_new(const module_list *before, const module_list *after,
                          const char *what) {
  size_t n = 0;
  for (size_t i = 0; i < after->count; i++) {
    if (modules_count_of(before, after->paths[i]) == 0) {
      print_message("  %s: new module %s\n", what, after->paths[i]);
      n++;
    }
  }
  return n;
}

/* How many modules of the process lie under the fixture folder `relative`
 * (real paths), each printed. */
static size_t modules_under(const char *relative, const char *what) {
  const char *folder = fixture_real(relative);
  size_t length = strlen(folder), n = 0;
  module_list now = modules_now();
  for (size_t i = 0; i < now.count; i++) {
    if (strncmp(now.paths[i], folder, length) == 0 &&
        now.paths[i][length] == '/') {
      print_message("  %s: %s is mapped\n", what, now.paths[i]);
      n++;
    }
  }
  modules_free(&now);
  return n;
}

/* --- hermetic: only the fixtures ------------------------------------------ */

/* After a scenario on the fixture trees: every CUDA library the process has
 * mapped (a catalog name: libcudnn*.so.N, libcublas*, ...) must lie under
 * the fixture folder. A scenario that passed by loading the machine's own
 * cuDNN (through ld.so.cache, as a sanitizer's dlopen interceptor once made
 * the fixtures' lazy opens do) proves nothing, and fails on a machine
 * without a toolkit; /proc/self/maps says what the kernel mapped, whatever
 * loaded it. */
static int only_fixture_libraries(void **state) {
  (void)state;
  char fixtures[PATH_MAX];
  if (realpath(test_fixture_path(""), fixtures) == NULL)
    return 0; /* no fixtures: the scenario skipped */
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) {
    print_error("cannot read /proc/self/maps: the scenario's loads are "
                "unchecked\n");
    return -1;
  }
  char line[PATH_MAX + 256], last[PATH_MAX + 256] = "";
  int outside = 0;
  size_t length = strlen(fixtures);
  while (fgets(line, sizeof line, maps)) {
    char *path = strchr(line, '/');
    if (path == NULL)
      continue;
    path[strcspn(path, "\n")] = '\0';
    const char *name = strrchr(path, '/') + 1;
    cl_name_match match;
    if (!cl_catalog_match(name, CL_NAMING_LINUX, &match) ||
        (strncmp(path, fixtures, length) == 0 && path[length] == '/') ||
        strcmp(path, last) == 0) /* a file is mapped in several pieces */
      continue;
    snprintf(last, sizeof last, "%s", path);
    print_error("%s is mapped: a CUDA library from outside the fixtures (%s) "
                "came into the scenario\n",
                path, fixtures);
    outside = 1;
  }
  fclose(maps);
  return outside ? -1 : 0;
}

/* --- scenarios ------------------------------------------------------------ */

/* Where the machine's own loader, asked by name alone in a child process,
 * finds `name` (ld.so.cache, the default folders): the real path of what it
 * loaded, into out; "" when it finds none. The child keeps whatever it
 * loads away from the scenario's process. */
static void system_library(const char *name, char *out, size_t size) {
  out[0] = '\0';
  int fds[2];
  if (pipe(fds) != 0)
    fail_msg("pipe: %s", strerror(errno));
  pid_t child = fork();
  if (child < 0)
    fail_msg("fork: %s", strerror(errno));
  if (child == 0) {
    close(fds[0]);
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    struct link_map *map = NULL;
    char real[PATH_MAX];
    if (handle && dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map &&
        realpath(map->l_name, real)) {
      ssize_t n = write(fds[1], real, strlen(real));
      _exit(n == (ssize_t)strlen(real) ? 0 : 2);
    }
    _exit(handle ? 2 : 1);
  }
  close(fds[1]);
  size_t got = 0;
  ssize_t n;
  while (got + 1 < size && (n = read(fds[0], out + got, size - 1 - got)) > 0)
    got += (size_t)n;
  out[got] = '\0';
  close(fds[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) == 2)
    fail_msg("the child that asked the loader for %s did not say where it "
             "found it",
             name);
}

/* Without a preload nothing finds the fixtures: the consumers and cuBLAS do
 * not load them, and cuDNN 8 loaded by path cannot open its sub-library (the
 * "Could not load library libcudnn_ops_infer.so.8" users hit). What the
 * machine's own loader finds by name is asked first, in a child: where it
 * finds none, the consumer must fail and dlerror name the file; where it
 * finds one (a toolkit in ld.so.cache), the consumer must load with that
 * very file. Either way the fixture stays unmapped: the negative check holds
 * on every machine, and the two tiers (native with the toolkit, bare
 * without) take both branches. */
static void scenario_no_preload(void **state) {
  (void)state;
  require_fixture("preload/consumers/libconsumer_cudnn8.so");

  static const struct {
    const char *file;
    const char *missing;
    const char *fixture; /* the file of the fixtures it must not reach */
    int fixture_version; /* of the consumer's cuDNN, 0 for cuBLAS */
  } cases[] = {
      {"preload/consumers/libconsumer_cudnn8.so", "libcudnn.so.8",
       "preload/cudnn8/libcudnn.so.8", FIXTURE_CUDNN8_VERSION},
      {"preload/consumers/libconsumer_cudnn9.so", "libcudnn.so.9",
       "preload/cudnn9/libcudnn.so.9", FIXTURE_CUDNN9_VERSION},
      {"preload/cublas12/libcublas.so.12", "libcublasLt.so.12",
       "preload/cublas12/libcublasLt.so.12", 0},
  };
  for (size_t i = 0; i < ARRAY_COUNT(cases); i++) {
    const char *path = fixture_real(cases[i].file);
    char system_copy[PATH_MAX];
    system_library(cases[i].missing, system_copy, sizeof system_copy);
    void *handle = dlopen(path, RTLD_NOW);
    const char *error = dlerror();
    module_list now = modules_now();
    size_t reached = modules_count_of(&now, fixture_real(cases[i].fixture));
    size_t system_mapped =
        system_copy[0] ? modules_count_of(&now, system_copy) : 0;
    modules_free(&now);
    if (reached != 0)
      fail_msg("without a preload, dlopen(%s) mapped the fixture %s: is its "
               "folder on LD_LIBRARY_PATH?",
               path, cases[i].fixture);
    if (system_copy[0]) {
      /* The machine's loader finds its own copy: the consumer loads with
       * that file, not the fixture's. */
      if (handle == NULL)
        fail_msg("the loader finds %s (%s) by name, yet dlopen(%s) failed: "
                 "%s",
                 cases[i].missing, system_copy, path, or_null(error));
      if (system_mapped == 0)
        fail_msg("dlopen(%s) loaded, but not with %s, the %s the loader "
                 "finds by name",
                 path, system_copy, cases[i].missing);
      if (cases[i].fixture_version != 0)
        assert_true(call_int(handle, "consumer_cudnn_version") !=
                    cases[i].fixture_version);
      print_message("  this machine's loader finds %s by itself (%s): %s "
                    "loads with it, not with the fixture\n",
                    cases[i].missing, system_copy, path);
      continue;
    }
    if (handle != NULL)
      fail_msg("dlopen(%s) succeeded without a preload, though the loader "
               "finds no %s by name",
               path, cases[i].missing);
    if (!contains(error, cases[i].missing))
      fail_msg("dlopen(%s) failed, but dlerror does not name %s: %s", path,
               cases[i].missing, or_null(error));
    print_message("  without a preload: %s\n", or_null(error));
  }

  /* cuDNN 8 by absolute path alone: it loads, but its lazy open fails. */
  void *cudnn8 = open_or_fail(fixture_real("preload/cudnn8/libcudnn.so.8"),
                              RTLD_NOW | RTLD_LOCAL);
  assert_int_equal(call_size(cudnn8, "cudnnGetVersion"),
                   FIXTURE_CUDNN8_VERSION);
  void *symbol = symbol_or_fail(cudnn8, "cudnnCreate");
  int (*create)(void **);
  memcpy(&create, &symbol, sizeof create);
  void *handle = NULL;
  int status = create(&handle);
  if (status == 0)
    fail_msg("%s",
             "cuDNN 8's cudnnCreate opened libcudnn_ops_infer.so.8 without a "
             "preload: the fixture must reproduce the lazy-load failure");
}

/* cuDNN 8 and 9 side by side, RTLD_LOCAL; `flags` 0 (minimal plan) or
 * CUDALOAD_PRELOAD_ALL_SUBLIBS. */
static void side_by_side(unsigned flags) {
  require_fixture("preload/consumers/libconsumer_cudnn8.so");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cudnn8");
  add_fixture_root(ctx, "preload/cudnn9");
  require_ok(ctx, "cudnn=8,cudnn=9");
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  preload_ok(ctx, flags);
  print_plan(ctx);

  size_t main8 = expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED,
                              "/cudnn8/libcudnn.so.8");
  size_t main9 = expect_entry(ctx, "cudnn", 9, CUDALOAD_STATE_LOADED,
                              "/cudnn9/libcudnn.so.9");
  assert_true(same_file(cudaload_plan_loaded_path(ctx, main8),
                        fixture_real("preload/cudnn8/libcudnn.so.8")));
  assert_true(same_file(cudaload_plan_loaded_path(ctx, main9),
                        fixture_real("preload/cudnn9/libcudnn.so.9")));

  /* cuDNN 8's main has no RUNPATH $ORIGIN: its sub-libraries are loaded,
   * and the plan says why. */
  char name[64], file[96];
  for (size_t i = 0; i < ARRAY_COUNT(cudnn8_subs); i++) {
    sub_name(name, sizeof name, cudnn8_subs[i]);
    snprintf(file, sizeof file, "/cudnn8/lib%s.so.8", name);
    size_t entry = expect_entry(ctx, name, 8, CUDALOAD_STATE_LOADED, file);
    /* With CUDALOAD_PRELOAD_ALL_SUBLIBS the flag may be the reason. */
    if (flags == 0 && !contains(cudaload_plan_reason(ctx, entry), "RUNPATH"))
      fail_msg("plan entry %s: reason \"%s\" does not say it is there "
               "because libcudnn.so.8 has no RUNPATH",
               name, or_null(cudaload_plan_reason(ctx, entry)));
  }
  /* Dependencies first. */
  for (size_t i = 0; i < ARRAY_COUNT(cudnn8_needs); i++) {
    char dependant[64], dependency[64];
    sub_name(dependant, sizeof dependant, cudnn8_needs[i].sub);
    sub_name(dependency, sizeof dependency, cudnn8_needs[i].needs);
    if (plan_find(ctx, dependency, 8) > plan_find(ctx, dependant, 8))
      fail_msg("plan order: %s comes before %s, which it needs", dependant,
               dependency);
  }
  /* cuDNN 9's main finds its own: minimal plan unless asked for all. */
  int sub9_state = (flags & CUDALOAD_PRELOAD_ALL_SUBLIBS)
                       ? CUDALOAD_STATE_LOADED
                       : CUDALOAD_STATE_NOT_NEEDED;
  module_list loaded = modules_now();
  for (size_t i = 0; i < ARRAY_COUNT(cudnn9_subs); i++) {
    sub_name(name, sizeof name, cudnn9_subs[i]);
    snprintf(file, sizeof file, "/cudnn9/lib%s.so.9", name);
    expect_entry(ctx, name, 9, sub9_state, file);
    snprintf(file, sizeof file, "preload/cudnn9/lib%s.so.9", name);
    size_t present = modules_count_of(&loaded, fixture_real(file));
    if (present != (sub9_state == CUDALOAD_STATE_LOADED ? 1u : 0u))
      fail_msg("%s is %s the process, but its plan state is %s", file,
               present ? "in" : "not in", state_name(sub9_state));
  }
  modules_free(&loaded);

  /* What the user notices: both consumers load by absolute path, each
   * calls its own major, and both cudnnCreate calls work. */
  void *consumer8 =
      open_or_fail(fixture_real("preload/consumers/libconsumer_cudnn8.so"),
                   RTLD_NOW | RTLD_LOCAL);
  void *consumer9 =
      open_or_fail(fixture_real("preload/consumers/libconsumer_cudnn9.so"),
                   RTLD_NOW | RTLD_LOCAL);
  assert_int_equal(call_int(consumer8, "consumer_cudnn_version"),
                   FIXTURE_CUDNN8_VERSION);
  assert_int_equal(call_int(consumer9, "consumer_cudnn_version"),
                   FIXTURE_CUDNN9_VERSION);
  if (call_int(consumer8, "consumer_cudnn_create") != 0)
    fail_msg("%s",
             "cuDNN 8's cudnnCreate could not open libcudnn_ops_infer.so.8 "
             "after the preload");
  assert_int_equal(call_int(consumer9, "consumer_cudnn_create"), 0);
  cudaload_destroy(ctx);
}

static void scenario_side_by_side(void **state) {
  (void)state;
  side_by_side(0);
}

static void scenario_side_by_side_all_sublibs(void **state) {
  (void)state;
  side_by_side(CUDALOAD_PRELOAD_ALL_SUBLIBS);
}

/* A package bundling its own cuDNN 8 shim (auditwheel's
 * ctranslate2.libs/libcudnn-0a1b2c3d.so.8.9.7, as ctranslate2 4.4.0 ships):
 * the shim opens libcudnn_ops_infer.so.8 by name, and its RUNPATH $ORIGIN
 * leads to its own folder, which lacks it. The chosen cuDNN 8 has RUNPATH
 * $ORIGIN, so the minimal plan used to leave the sub-libraries out; with the
 * site-packages among the roots, flags 0 now loads them and the shim's
 * cudnnCreate works. */
static void scenario_bundled_shim(void **state) {
  (void)state;
  static const char shim_file[] =
      "preload/bundled/site-packages/ctranslate2.libs/"
      "libcudnn-0a1b2c3d.so.8.9.7";
  require_fixture(shim_file);
  void *shim = open_or_fail(fixture_real(shim_file), RTLD_NOW | RTLD_LOCAL);
  void *symbol = symbol_or_fail(shim, "cudnnCreate");
  int (*create)(void **);
  memcpy(&create, &symbol, sizeof create);
  void *handle = NULL;
  if (create(&handle) == 0)
    fail_msg("%s",
             "the bundled shim's cudnnCreate opened libcudnn_ops_infer.so.8 "
             "without a preload: the fixture must reproduce the failure");

  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/bundled/site-packages");
  add_fixture_root(ctx, "preload/bundled/cudnn8");
  require_ok(ctx, "cudnn=8");
  preload_ok(ctx, 0);
  print_plan(ctx);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED,
               "/bundled/cudnn8/libcudnn.so.8");
  char name[64], file[96];
  for (size_t i = 0; i < ARRAY_COUNT(cudnn8_subs); i++) {
    sub_name(name, sizeof name, cudnn8_subs[i]);
    snprintf(file, sizeof file, "/bundled/cudnn8/lib%s.so.8", name);
    size_t entry = expect_entry(ctx, name, 8, CUDALOAD_STATE_LOADED, file);
    if (!contains(cudaload_plan_reason(ctx, entry),
                  "a copy bundled by ctranslate2"))
      fail_msg("plan entry %s: reason \"%s\" does not name the bundled shim",
               name, or_null(cudaload_plan_reason(ctx, entry)));
  }
  if (create(&handle) != 0)
    fail_msg("%s", "the bundled shim's cudnnCreate could not open "
                   "libcudnn_ops_infer.so.8 after cudaload_preload(ctx, 0)");
  cudaload_destroy(ctx);
}

/* cuDNN 9 in the global scope (someone opened it RTLD_GLOBAL): a consumer of
 * cuDNN 8 binds cuDNN 9's same-named symbols; cudaload reports the conflict
 * and an isolated open fixes it. */
static void scenario_global_conflict(void **state) {
  (void)state;
  require_fixture("preload/consumers/libconsumer_cudnn8_deepbind.so");
  const char *cudnn9 = fixture_real("preload/cudnn9/libcudnn.so.9");
  const char *cudnn8 = fixture_real("preload/cudnn8/libcudnn.so.8");
  open_or_fail(cudnn9, RTLD_NOW | RTLD_GLOBAL);

  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cudnn8");
  require_ok(ctx, "cudnn=8");
  /* The conflict is known before loading: all or nothing loads nothing. */
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_long("last error", error);
  assert_int_equal(status, CUDALOAD_E_CONFLICT);
  if (strncmp(error, "nothing was loaded", strlen("nothing was loaded")) != 0 ||
      !contains(error, "libcudnn.so.9"))
    fail_msg("the last error does not say that nothing was loaded and name "
             "the cuDNN 9 file: %s",
             error);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_PLANNED,
               "/cudnn8/libcudnn.so.8");
  if (modules_under("preload/cudnn8", "after a refused preload") != 0)
    fail_msg("%s", "cuDNN 8 was loaded although the conflict was known");

  /* Best effort: load it anyway, the consumer will be opened isolated. */
  status = cudaload_preload(ctx, CUDALOAD_PRELOAD_PARTIAL);
  error = cudaload_last_error();
  print_message("  cudaload_preload(PARTIAL): %s (%d)\n",
                cudaload_strerror(status), status);
  print_long("last error", error);
  print_plan(ctx);
  /* The header lists CUDALOAD_E_CONFLICT among preload's failures; it
   * leaves open whether a conflict alone fails the preload. */
  if (status != CUDALOAD_OK && status != CUDALOAD_E_CONFLICT)
    fail_msg("cudaload_preload: %s, expected CUDALOAD_OK or "
             "CUDALOAD_E_CONFLICT\n%s",
             cudaload_strerror(status), error);
  if (status == CUDALOAD_E_CONFLICT && !contains(error, "libcudnn.so.9"))
    fail_msg("CUDALOAD_E_CONFLICT, but the last error does not name the "
             "cuDNN 9 file: %s",
             error);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED, "/cudnn8/libcudnn.so.8");

  size_t conflicts = cudaload_conflict_count(ctx);
  if (conflicts < 1)
    fail_msg("cudaload_conflict_count: 0, but %s is in the global scope",
             cudnn9);
  int named = 0;
  for (size_t i = 0; i < conflicts; i++) {
    print_message("  conflict %lu: %s\n    %s\n", (unsigned long)i,
                  or_null(cudaload_conflict_path(ctx, i)),
                  or_null(cudaload_conflict_text(ctx, i)));
    named |= same_file(cudaload_conflict_path(ctx, i), cudnn9);
    const char *text = cudaload_conflict_text(ctx, i);
    assert_true(text != NULL && text[0] != '\0');
  }
  if (!named)
    fail_msg("no conflict names %s", cudnn9);

  /* The bug, as users see it: the cuDNN 8 consumer calls cuDNN 9. */
  void *plain =
      open_or_fail(fixture_real("preload/consumers/libconsumer_cudnn8.so"),
                   RTLD_NOW | RTLD_LOCAL);
  assert_int_equal(call_int(plain, "consumer_cudnn_version"),
                   FIXTURE_CUDNN9_VERSION);
  const char *provider = cudaload_symbol_provider(plain, "cudnnGetVersion");
  if (!same_file(provider, cudnn9))
    fail_msg("cudaload_symbol_provider(plain consumer, cudnnGetVersion): %s, "
             "expected %s (the global scope comes first)",
             or_null(provider), cudnn9);

  /* The fix: the same consumer (another file: a loaded library cannot be
   * re-bound) opened isolated binds its own cuDNN 8. */
  void *isolated = cudaload_dlopen_isolated(
      fixture_real("preload/consumers/libconsumer_cudnn8_deepbind.so"));
  if (isolated == NULL &&
      strstr(cudaload_last_error(), "cannot be opened with RTLD_DEEPBIND")) {
    /* Sanitizer runtimes abort on RTLD_DEEPBIND; cudaload refuses it with a
     * reason instead. Everything before this point was checked. */
    cudaload_destroy(ctx);
    SKIP_SCENARIO("the isolated open under a sanitizer runtime (refused, "
                  "as documented)");
  }
  if (isolated == NULL)
    fail_msg("cudaload_dlopen_isolated: %s", cudaload_last_error());
  assert_int_equal(call_int(isolated, "consumer_cudnn_version"),
                   FIXTURE_CUDNN8_VERSION);
  provider = cudaload_symbol_provider(isolated, "cudnnGetVersion");
  if (!ends_with(provider, "cudnn8/libcudnn.so.8") ||
      !same_file(provider, cudnn8))
    fail_msg("cudaload_symbol_provider(isolated consumer, cudnnGetVersion): "
             "%s, expected %s",
             or_null(provider), cudnn8);
  cudaload_destroy(ctx);
  if (status != CUDALOAD_OK)
    expect_status_text(status);
}

/* The conflict's fix, followed exactly as it reads (issue 27, item 3): with
 * cuDNN 9 in the global scope, cudaload_preload(cudnn=8) loads nothing and
 * the conflict says to open the consumer with cudaload_open_isolated(ctx,
 * consumer_path, 0). The old sentence ("cudaload_dlopen_isolated()") alone
 * fails: nothing of cuDNN 8 was loaded. The new one is one call that works. */
static void scenario_global_conflict_fix_as_printed(void **state) {
  (void)state;
  const char *consumer =
      fixture_real("preload/consumers/libconsumer_cudnn8_deepbind.so");
  const char *cudnn9 = fixture_real("preload/cudnn9/libcudnn.so.9");
  const char *cudnn8 = fixture_real("preload/cudnn8/libcudnn.so.8");
  require_fixture("preload/consumers/libconsumer_cudnn8_deepbind.so");
  open_or_fail(cudnn9, RTLD_NOW | RTLD_GLOBAL);
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cudnn8");
  require_ok(ctx, "cudnn=8");
  assert_int_equal(cudaload_preload(ctx, 0), CUDALOAD_E_CONFLICT);
  assert_true(cudaload_conflict_count(ctx) >= 1);
  const char *text = cudaload_conflict_text(ctx, 0);
  print_long("conflict", text);
  if (!contains(text, "cudaload_open_isolated(ctx, consumer_path, 0)"))
    fail_msg("the conflict's fix does not name the one call: %s", text);
  /* What the old fix said, alone: the consumer does not even open. */
  void *alone = cudaload_dlopen_isolated(consumer);
  if (alone && !strstr(cudaload_last_error(), "RTLD_DEEPBIND"))
    fail_msg("%s opened without cuDNN 8 loaded: the old sentence would have "
             "worked",
             consumer);
  print_message("  cudaload_dlopen_isolated alone: %s\n",
                alone ? "opened" : cudaload_last_error());
  /* The new sentence, as printed. GLOBAL is refused, as documented. */
  void *isolated = NULL;
  assert_int_equal(
      cudaload_open_isolated(ctx, consumer, CUDALOAD_PRELOAD_GLOBAL, &isolated),
      CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(isolated);
  int status = cudaload_open_isolated(ctx, consumer, 0, &isolated);
  if (status != CUDALOAD_OK &&
      strstr(cudaload_last_error(), "cannot be opened with RTLD_DEEPBIND")) {
    cudaload_destroy(ctx);
    SKIP_SCENARIO("the isolated open under a sanitizer runtime (refused, "
                  "as documented)");
  }
  if (status != CUDALOAD_OK || isolated == NULL)
    fail_msg("cudaload_open_isolated: %s", cudaload_last_error());
  assert_int_equal(call_int(isolated, "consumer_cudnn_version"),
                   FIXTURE_CUDNN8_VERSION);
  const char *provider = cudaload_symbol_provider(isolated, "cudnnGetVersion");
  if (!same_file(provider, cudnn8))
    fail_msg("the isolated consumer's cudnnGetVersion comes from %s, not %s",
             or_null(provider), cudnn8);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED, "/cudnn8/libcudnn.so.8");
  /* The conflict is still listed: it is still there. */
  assert_true(cudaload_conflict_count(ctx) >= 1);
  cudaload_destroy(ctx);
  /* An unsatisfied plan loads nothing. */
  ctx = new_context();
  add_fixture_root(ctx, "preload/cudnn9");
  require_ok(ctx, "cudnn=7");
  assert_int_equal(cudaload_open_isolated(ctx, consumer, 0, &isolated),
                   CUDALOAD_E_UNSATISFIED);
  assert_null(isolated);
  cudaload_destroy(ctx);
}

/* cuBLAS NEEDs cuBLASLt and has no RUNPATH: cuBLASLt must load first. */
/* Real NVIDIA libraries version their exports (cudnnGetVersion@@libcudnn.so.9)
 * and consumers reference the versioned symbol
 * (cudnnGetVersion@libcudnn.so.8): glibc binds such a reference only to a
 * definition of that version, so a versioned cuDNN 9 in the global scope
 * takes nothing from a cuDNN 8 consumer. No conflict, the consumer gets
 * cuDNN 8, and symbol_provider says so (docs/loader.md, "Linux 3"). */
static void scenario_versioned_global_no_conflict(void **state) {
  (void)state;
  require_fixture("preload/versioned/consumers/libconsumer_cudnn8.so");
  const char *cudnn9 = fixture_real("preload/versioned/cudnn9/libcudnn.so.9");
  const char *cudnn8 = fixture_real("preload/versioned/cudnn8/libcudnn.so.8");
  open_or_fail(cudnn9, RTLD_NOW | RTLD_GLOBAL);

  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/versioned/cudnn8");
  require_ok(ctx, "cudnn=8");
  int status = cudaload_preload(ctx, 0);
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_plan(ctx);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_preload: %s, expected CUDALOAD_OK: a versioned cuDNN "
             "9 cannot take a cuDNN 8 consumer's versioned calls\n%s",
             cudaload_strerror(status), cudaload_last_error());
  if (cudaload_conflict_count(ctx) != 0)
    fail_msg("a conflict was reported: %s",
             or_null(cudaload_conflict_text(ctx, 0)));
  void *consumer = open_or_fail(
      fixture_real("preload/versioned/consumers/libconsumer_cudnn8.so"),
      RTLD_NOW | RTLD_LOCAL);
  assert_int_equal(call_int(consumer, "consumer_cudnn_version"),
                   FIXTURE_CUDNN8_VERSION);
  const char *provider = cudaload_symbol_provider(consumer, "cudnnGetVersion");
  if (!same_file(provider, cudnn8))
    fail_msg("cudaload_symbol_provider(consumer, cudnnGetVersion): %s, "
             "expected %s (its reference asks for version libcudnn.so.8)",
             or_null(provider), cudnn8);
  cudaload_destroy(ctx);
}

/* Two files defining the same version node (two cuDNN 9 of different
 * minors): the first loaded answers every reference of that version, so a
 * plan for the other file is a real conflict, and says it is one node. */
static void scenario_versioned_same_node_conflict(void **state) {
  (void)state;
  require_fixture("preload/versioned/cudnn9b/libcudnn.so.9");
  const char *first = fixture_real("preload/versioned/cudnn9/libcudnn.so.9");
  open_or_fail(first, RTLD_NOW | RTLD_GLOBAL);

  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/versioned/cudnn9b");
  require_ok(ctx, "cudnn=9");
  int status = cudaload_preload(ctx, 0);
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_plan(ctx);
  if (cudaload_conflict_count(ctx) < 1)
    fail_msg("no conflict, but %s defines the planned file's version node "
             "libcudnn.so.9 and is in the global scope",
             first);
  const char *text = cudaload_conflict_text(ctx, 0);
  if (!same_file(cudaload_conflict_path(ctx, 0), first) ||
      !contains(text, "same version node libcudnn.so.9"))
    fail_msg("the conflict does not name %s and the shared node: %s", first,
             or_null(text));
  cudaload_destroy(ctx);
}

static void scenario_dependency_order(void **state) {
  (void)state;
  require_fixture("preload/cublas12/libcublas.so.12");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cublas12");
  require_ok(ctx, "cublas=12");
  preload_ok(ctx, 0);
  print_plan(ctx);
  size_t lt = expect_entry(ctx, "cublasLt", 12, CUDALOAD_STATE_LOADED,
                           "/cublas12/libcublasLt.so.12");
  size_t blas = expect_entry(ctx, "cublas", 12, CUDALOAD_STATE_LOADED,
                             "/cublas12/libcublas.so.12");
  if (lt > blas)
    fail_msg("plan order: libcublas.so.12 (%lu) before libcublasLt.so.12 "
             "(%lu), which it needs",
             (unsigned long)blas, (unsigned long)lt);

  void *handle = dlopen("libcublas.so.12", RTLD_NOW | RTLD_NOLOAD);
  if (handle == NULL)
    fail_msg("libcublas.so.12 is not in the process after the preload: %s",
             or_null(dlerror()));
  assert_int_equal(call_property(handle, "cublasGetProperty", 0), 12);
  assert_int_equal(call_property(handle, "cublasGetProperty", 1), 4);
  assert_int_equal(call_property(handle, "cublasGetProperty", 2), 5);
  cudaload_destroy(ctx);
}

/* What a loaded fixture says it is ("preload/wheels/..."), or NULL. */
static const char *identity_of(void *handle) {
  const char *(*identity)(void);
  void *symbol = dlsym(handle, "fixture_identity");
  if (symbol == NULL)
    return NULL;
  memcpy(&identity, &symbol, sizeof identity);
  return identity();
}

/* cuSOLVER's wheel NEEDs cuBLAS, cuBLASLt and cuSPARSE (which NEEDs
 * nvJitLink), each in its own wheel that cuSOLVER's RUNPATH $ORIGIN does
 * not reach: the plan loads them first, from the wheels, and cuSOLVER
 * loads. Before the plan followed NEEDED across families it held cuSOLVER
 * alone, and its load failed (or took whatever copy the system had). */
static void scenario_needed_dependencies(void **state) {
  (void)state;
  require_fixture("preload/wheels/nvidia/cusolver/lib/libcusolver.so.12");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/wheels");
  require_ok(ctx, "cusolver");
  preload_ok(ctx, 0);
  print_plan(ctx);
  static const struct {
    const char *name;
    int major;
    const char *file;
  } deps[] = {
      {"nvJitLink", 13, "/nvidia/nvjitlink/lib/libnvJitLink.so.13"},
      {"cusparse", 12, "/nvidia/cusparse/lib/libcusparse.so.12"},
      {"cublasLt", 13, "/nvidia/cublas/lib/libcublasLt.so.13"},
      {"cublas", 13, "/nvidia/cublas/lib/libcublas.so.13"},
  };
  size_t solver = expect_entry(ctx, "cusolver", 12, CUDALOAD_STATE_LOADED,
                               "/nvidia/cusolver/lib/libcusolver.so.12");
  size_t at[ARRAY_COUNT(deps)];
  for (size_t d = 0; d < ARRAY_COUNT(deps); ++d) {
    at[d] = expect_entry(ctx, deps[d].name, deps[d].major,
                         CUDALOAD_STATE_LOADED, deps[d].file);
    if (at[d] > solver)
      fail_msg("plan order: %s (%lu) after libcusolver.so.12 (%lu), which "
               "needs it",
               deps[d].file, (unsigned long)at[d], (unsigned long)solver);
  }
  if (at[0] > at[1])
    fail_msg("%s", "plan order: libnvJitLink.so.13 after libcusparse.so.12, "
                   "which needs it");
  const char *reason = cudaload_plan_reason(ctx, at[1]);
  if (!contains(reason, "needed by libcusolver.so.12"))
    fail_msg("cuSPARSE's reason does not name its dependent: %s",
             or_null(reason));
  /* The process bound cuSOLVER to the wheels' cuBLAS, not another copy. */
  void *blas = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (blas == NULL)
    fail_msg("libcublas.so.13 is not in the process: %s", or_null(dlerror()));
  const char *identity = identity_of(blas);
  if (!contains(identity, "preload/wheels/nvidia/cublas/lib/"))
    fail_msg("libcublas.so.13 in the process is %s, not the wheel's",
             or_null(identity));
  cudaload_destroy(ctx);
}

/* cuSOLVER without the wheels it NEEDs: the plan still holds it (the
 * system may have them), and a warning names each missing file and the
 * package that has it. */
static void scenario_needed_dependency_missing(void **state) {
  (void)state;
  require_fixture(
      "preload/cusolver_alone/nvidia/cusolver/lib/libcusolver.so.12");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cusolver_alone");
  require_ok(ctx, "cusolver");
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  print_plan(ctx);
  static const char *const expected[][2] = {
      {"libcublas.so.13", "nvidia-cublas"},
      {"libcusparse.so.12", "nvidia-cusparse"},
  };
  size_t count = cudaload_plan_warning_count(ctx);
  for (size_t e = 0; e < ARRAY_COUNT(expected); ++e) {
    int found = 0;
    for (size_t w = 0; w < count && !found; ++w) {
      const char *text = cudaload_plan_warning(ctx, w);
      found = contains(text, expected[e][0]) &&
              contains(text, expected[e][1]) &&
              contains(text, "libcusolver.so.12");
    }
    if (!found) {
      for (size_t w = 0; w < count; ++w)
        print_long("warning", cudaload_plan_warning(ctx, w));
      fail_msg("no warning names %s and the package %s", expected[e][0],
               expected[e][1]);
    }
  }
  /* Preloaded anyway, it fails, and says why, naming the file once. */
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_long("last error", error);
  assert_int_equal(status, CUDALOAD_E_LOAD_FAILED);
  /* Where this machine's ld.so.cache holds no cuBLAS 13 (no toolkit), the
   * loader model refuses before anything is loaded, naming what is not
   * found; where it holds one, the model's verdict passes and the loader's
   * own refusal is reported. */
  if (contains(error, "could not be loaded:\n"))
    expect_once(error, "/libcusolver.so.12");
  else if (!contains(error, "libcusolver.so.12 needs libcublas.so.13: not "
                            "found") ||
           !contains(error, "nothing was loaded"))
    fail_msg("the refusal does not say what libcusolver.so.12 lacks: %s",
             error);
  cudaload_destroy(ctx);
}

/* A requirement nothing satisfies: one precise message, nothing loaded. */
static void scenario_missing(void **state) {
  (void)state;
  require_fixture("preload/cudnn9/libcudnn.so.9");
  module_list before = modules_now();
  cudaload_ctx *ctx = new_context();
  const char *root = test_fixture_path("preload/cudnn9");
  add_root(ctx, root);
  require_ok(ctx, "cudnn=8");
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_long("last error", error);
  print_plan(ctx);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);

  int errors = 0;
  static const char *const must_name[][2] = {
      {"cudnn=8", "the requirement"},
      {"libcudnn.so.9", "the rejected candidate (cuDNN 9, wrong major)"},
  };
  for (size_t i = 0; i < ARRAY_COUNT(must_name); i++) {
    if (!contains(error, must_name[i][0])) {
      print_error("  the last error does not name %s (\"%s\")\n",
                  must_name[i][1], must_name[i][0]);
      errors++;
    }
  }
  if (!contains(error, root) &&
      !contains(error, fixture_real("preload/cudnn9"))) {
    print_error("  the last error does not name the root searched (%s)\n",
                root);
    errors++;
  }
  if (!contains(error, "pip install") && !contains(error, "CUDNN_PATH")) {
    print_error("  the last error has no fix (\"pip install\" or "
                "\"CUDNN_PATH\")\n");
    errors++;
  }
  if (errors != 0)
    fail_msg("%d part(s) of the message missing (listed above)", errors);

  /* Nothing loaded behind the user's back: a new fixture module must be a
   * file the plan reports as loaded. */
  module_list after = modules_now();
  const char *fixtures = fixture_real("preload");
  for (size_t i = 0; i < after.count; i++) {
    const char *path = after.paths[i];
    if (modules_count_of(&before, path) != 0 ||
        strncmp(path, fixtures, strlen(fixtures)) != 0)
      continue;
    int reported = 0;
    for (size_t j = 0; j < cudaload_plan_count(ctx); j++)
      reported |= same_file(cudaload_plan_path(ctx, j), path) &&
                  cudaload_plan_state(ctx, j) == CUDALOAD_STATE_LOADED;
    if (!reported)
      fail_msg("%s was loaded, but the plan does not report it loaded", path);
  }
  modules_free(&after);
  modules_free(&before);
  cudaload_destroy(ctx);
  expect_status_text(status);
}

/* cuDNN 8 is there, cuBLAS 99 is not. */
static cudaload_ctx *cudnn8_and_missing_cublas(void) {
  require_fixture("preload/cudnn8/libcudnn.so.8");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cudnn8");
  add_fixture_root(ctx, "preload/cublas12");
  require_ok(ctx, "cudnn=8,cublas=99");
  return ctx;
}

/* One requirement unsatisfied: the preload loads nothing at all, not the
 * cuDNN 8 it could have, and says so before it says why. */
static void scenario_all_or_nothing(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudnn8_and_missing_cublas();
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_long("last error", error);
  print_plan(ctx);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);
  if (strncmp(error, "nothing was loaded", strlen("nothing was loaded")) != 0)
    fail_msg("the last error does not start with \"nothing was loaded\": %s",
             error);
  if (!contains(error, "cublas=99") || !contains(error, "fix:"))
    fail_msg("the last error lost the plan's explanation (the requirement "
             "and its fix): %s",
             error);
  /* The plan is kept, for the report, but none of it was touched. */
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_PLANNED,
               "/cudnn8/libcudnn.so.8");
  for (size_t i = 0; i < cudaload_plan_count(ctx); i++)
    if (cudaload_plan_state(ctx, i) != CUDALOAD_STATE_PLANNED)
      fail_msg("plan entry %s: state %s after a refused preload",
               or_null(cudaload_plan_path(ctx, i)),
               state_name(cudaload_plan_state(ctx, i)));
  if (modules_under("preload/cudnn8", "after a refused preload") != 0)
    fail_msg("%s", "a cuDNN 8 file was loaded although a requirement is "
                   "unsatisfied");
  if (dlopen("libcudnn.so.8", RTLD_NOW | RTLD_NOLOAD) != NULL)
    fail_msg("%s", "libcudnn.so.8 is in the process after a refused preload");
  cudaload_destroy(ctx);
  expect_status_text(status);
}

/* The same with CUDALOAD_PRELOAD_PARTIAL: the best effort of before, cuDNN
 * 8 is loaded and the missing cuBLAS still reported. */
static void scenario_partial(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudnn8_and_missing_cublas();
  int status = cudaload_preload(ctx, CUDALOAD_PRELOAD_PARTIAL);
  const char *error = cudaload_last_error();
  print_message("  cudaload_preload(PARTIAL): %s (%d)\n",
                cudaload_strerror(status), status);
  print_long("last error", error);
  print_plan(ctx);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);
  if (!contains(error, "cublas=99"))
    fail_msg("the last error does not name cublas=99: %s", error);
  if (contains(error, "nothing was loaded"))
    fail_msg("a partial preload loaded cuDNN 8 but says: %s", error);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED, "/cudnn8/libcudnn.so.8");
  if (modules_under("preload/cudnn8", "after a partial preload") == 0)
    fail_msg("%s", "no cuDNN 8 file is mapped after a partial preload");
  void *handle = dlopen("libcudnn.so.8", RTLD_NOW | RTLD_NOLOAD);
  if (handle == NULL)
    fail_msg("libcudnn.so.8 is not in the process: %s", or_null(dlerror()));
  assert_int_equal(call_size(handle, "cudnnGetVersion"),
                   FIXTURE_CUDNN8_VERSION);
  /* cudaload_plan() takes the flag too (it loads nothing either way). */
  assert_int_equal(cudaload_plan(ctx, CUDALOAD_PRELOAD_PARTIAL),
                   CUDALOAD_E_UNSATISFIED);
  cudaload_destroy(ctx);
}

/* --- exec: run a program with the search path set ----------------------- */
#ifdef CUDALOAD_CLI_PATH

/* Run argv with LD_LIBRARY_PATH unset, stdout and stderr into a temporary
 * file; returns the exit status (128+signal, or -1 when it could not be
 * started) and the output in out[size]. */
static int run_program(char *const argv[], char *out, size_t size) {
  const char *tmp = getenv("TMPDIR");
  char output_path[PATH_MAX];
  snprintf(output_path, sizeof output_path, "%s/test_preload-XXXXXX",
           tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
  int fd = mkstemp(output_path);
  if (fd < 0)
    fail_msg("mkstemp(%s) failed", output_path);

  size_t env_count = 0;
  while (environ[env_count] != NULL)
    env_count++;
  char **env = calloc(env_count + 1, sizeof *env);
  assert_non_null(env);
  size_t kept = 0;
  for (size_t i = 0; i < env_count; i++)
    if (strncmp(environ[i], "LD_LIBRARY_PATH=", 16) != 0)
      env[kept++] = environ[i];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, fd, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int spawned = posix_spawn(&pid, argv[0], &actions, NULL, argv, env);
  posix_spawn_file_actions_destroy(&actions);
  free(env);
  int status = -1;
  if (spawned == 0) {
    int wait_status;
    while (waitpid(pid, &wait_status, 0) < 0) {
    }
    status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status)
                                    : 128 + WTERMSIG(wait_status);
  }
  size_t length = 0;
  if (lseek(fd, 0, SEEK_SET) == 0) {
    ssize_t n;
    while (length + 1 < size &&
           (n = read(fd, out + length, size - 1 - length)) > 0)
      length += (size_t)n;
  }
  out[length] = '\0';
  close(fd);
  unlink(output_path);
  return status;
}
#endif

static void scenario_exec(void **state) {
  (void)state;
  if (getenv("CUDALOAD_TEST_EMULATOR"))
    SKIP_SCENARIO("under an emulator (the aarch64 tier): cudaload exec starts "
                  "a program of the emulated machine, which the host cannot "
                  "start without binfmt_misc");
#ifndef CUDALOAD_CLI_PATH
  SKIP_SCENARIO("the command-line tool was not built (no CUDALOAD_CLI_PATH)");
#else
  require_fixture("preload/consumers/app_cudnn8");
  char app[PATH_MAX], root[PATH_MAX], cli[PATH_MAX];
  snprintf(app, sizeof app, "%s", fixture_real("preload/consumers/app_cudnn8"));
  snprintf(root, sizeof root, "%s", fixture_real("preload/cudnn8"));
  snprintf(cli, sizeof cli, "%s", CUDALOAD_CLI_PATH);
  if (!is_file(cli))
    SKIP_SCENARIO("the command-line tool " CUDALOAD_CLI_PATH " is missing");
  static char output[16384];

  /* Alone, the program does not even start. */
  char *alone[] = {app, NULL};
  int status = run_program(alone, output, sizeof output);
  print_message("  %s alone: exit %d\n%s", app, status, output);
  if (status == 0 && contains(output, "8907"))
    fail_msg("%s started with the fixture's cuDNN 8 without it on the "
             "search path",
             app);
  if (status == 0)
    print_message("  note: the system's loader finds another libcudnn.so.8 "
                  "by itself (ld.so.cache)\n");
  else
    assert_true(contains(output, "libcudnn.so.8"));

  /* Through cudaload exec it starts and calls cuDNN 8. */
  char arg_exec[] = "exec", arg_nodef[] = "--no-defaults",
       arg_root[] = "--root", arg_req[] = "--require", arg_spec[] = "cudnn=8",
       arg_sep[] = "--";
  char *with_cli[] = {cli,     arg_exec, arg_nodef, arg_root, root,
                      arg_req, arg_spec, arg_sep,   app,      NULL};
  status = run_program(with_cli, output, sizeof output);
  print_message("  cudaload exec ... -- %s: exit %d\n%s", app, status, output);
  if (status != 0)
    fail_msg("cudaload exec --no-defaults --root %s --require cudnn=8 -- %s: "
             "exit %d",
             root, app, status);
  if (!contains(output, "8907"))
    fail_msg("%s", "the program's output does not show cuDNN 8.9.7 (8907)");
#endif
}

/* The machine's real toolkit, where there is one. */
#define REAL_TOOLKIT_LIB "/usr/local/cuda/lib64"

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* The number cudnnGetVersion() returns for "9.19.0[.x]", or -1. */
static long cudnn9_number(const char *version) {
  int major = 0, minor = 0, patch = 0;
  if (version == NULL ||
      sscanf(version, "%d.%d.%d", &major, &minor, &patch) < 3)
    return -1;
  return major * 10000L + minor * 100L + patch;
}

static const char *inventory_version(const cudaload_ctx *ctx, const char *name,
                                     int major) {
  for (size_t i = 0; i < cudaload_library_count(ctx); i++)
    if (strcmp(or_null(cudaload_library_name(ctx, i)), name) == 0 &&
        cudaload_library_major(ctx, i) == major)
      return cudaload_library_version(ctx, i);
  return NULL;
}

static void scenario_real_toolkit(void **state) {
  (void)state;
  if (!is_file(REAL_TOOLKIT_LIB "/libcudnn.so.9"))
    SKIP_SCENARIO("no real toolkit: " REAL_TOOLKIT_LIB
                  "/libcudnn.so.9 is absent");
  if (getenv("CUDALOAD_TEST_EMULATOR"))
    SKIP_SCENARIO("under an emulator (the aarch64 tier): " REAL_TOOLKIT_LIB
                  " holds the host's libraries, of another machine");
  cudaload_ctx *ctx = new_context();
  add_root(ctx, REAL_TOOLKIT_LIB);
  require_ok(ctx, "cudnn=9,cublas=13");
  double start = seconds_now();
  preload_ok(ctx, 0);
  double elapsed = seconds_now() - start;
  print_plan(ctx);
  print_message("  preload of the real cuDNN 9 and cuBLAS 13: %.3f s\n",
                elapsed);

  void *cudnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
  if (cudnn == NULL)
    fail_msg("libcudnn.so.9 is not in the process after the preload: %s",
             or_null(dlerror()));
  size_t version = call_size(cudnn, "cudnnGetVersion");
  const char *disk = inventory_version(ctx, "cudnn", 9);
  print_message("  cudnnGetVersion() = %lu (on disk: \"%s\")\n",
                (unsigned long)version, or_null(disk));
  assert_int_equal(version / 10000, 9);
  if (cudnn9_number(disk) >= 0)
    assert_int_equal(version, cudnn9_number(disk));

  void *cublas = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (cublas == NULL)
    fail_msg("libcublas.so.13 is not in the process after the preload: %s",
             or_null(dlerror()));
  int major = call_property(cublas, "cublasGetProperty", 0);
  int minor = call_property(cublas, "cublasGetProperty", 1);
  disk = inventory_version(ctx, "cublas", 13);
  print_message("  cublasGetProperty: %d.%d (on disk: \"%s\")\n", major, minor,
                or_null(disk));
  assert_int_equal(major, 13);
  int disk_major, disk_minor;
  if (disk != NULL && sscanf(disk, "%d.%d", &disk_major, &disk_minor) == 2)
    assert_int_equal(minor, disk_minor);
  expect_entry(ctx, "cublasLt", 13, CUDALOAD_STATE_LOADED, "libcublasLt.so.13");
  cudaload_destroy(ctx);
}

/* --- threads ------------------------------------------------------------ */

#define THREAD_COUNT 16

typedef struct thread_job {
  pthread_barrier_t *barrier;
  const char *root8, *root9; /* read-only, prepared before the threads */
  int status;
  char error[1024];
} thread_job;

/* Each thread: its own context, all preloading at once. Nothing shared but
 * the barrier; results go to the thread's own job. */
static void *preload_thread(void *opaque) {
  thread_job *job = opaque;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  job->status = -1;
  if (ctx == NULL) {
    snprintf(job->error, sizeof job->error, "cudaload_create: %s",
             cudaload_last_error());
    pthread_barrier_wait(job->barrier);
    return NULL;
  }
  int status = cudaload_add_root(ctx, job->root8);
  if (status == CUDALOAD_OK)
    status = cudaload_add_root(ctx, job->root9);
  if (status == CUDALOAD_OK)
    status = cudaload_require(ctx, "cudnn=8,cudnn=9");
  pthread_barrier_wait(job->barrier);
  if (status == CUDALOAD_OK)
    status = cudaload_preload(ctx, 0);
  job->status = status;
  if (status != CUDALOAD_OK)
    snprintf(job->error, sizeof job->error, "%s", cudaload_last_error());
  cudaload_destroy(ctx);
  return NULL;
}

static void scenario_threads(void **state) {
  (void)state;
  require_fixture("preload/cudnn8/libcudnn.so.8");
  /* Resolve the paths before the threads start: test_fixture_path's ring
   * is not thread-safe, so the threads only read ready-made strings. */
  static char root8[TEST_PATH_CAPACITY], root9[TEST_PATH_CAPACITY];
  snprintf(root8, sizeof root8, "%s", test_fixture_path("preload/cudnn8"));
  snprintf(root9, sizeof root9, "%s", test_fixture_path("preload/cudnn9"));
  pthread_barrier_t barrier;
  assert_int_equal(pthread_barrier_init(&barrier, NULL, THREAD_COUNT), 0);
  static thread_job jobs[THREAD_COUNT];
  pthread_t threads[THREAD_COUNT];
  for (int i = 0; i < THREAD_COUNT; i++) {
    jobs[i].barrier = &barrier;
    jobs[i].root8 = root8;
    jobs[i].root9 = root9;
    assert_int_equal(
        pthread_create(&threads[i], NULL, preload_thread, &jobs[i]), 0);
  }
  for (int i = 0; i < THREAD_COUNT; i++)
    pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&barrier);
  int failed = 0;
  for (int i = 0; i < THREAD_COUNT; i++) {
    if (jobs[i].status != CUDALOAD_OK) {
      print_error("  thread %d: status %d: %s\n", i, jobs[i].status,
                  jobs[i].error);
      failed++;
    }
  }
  if (failed)
    fail_msg("%d of %d concurrent preloads failed", failed, THREAD_COUNT);

  /* Each file once; the mains and cuDNN 8's sub-libraries present. */
  module_list loaded = modules_now();
  char file[128];
  snprintf(file, sizeof file, "preload/cudnn8/libcudnn.so.8");
  assert_int_equal(modules_count_of(&loaded, fixture_real(file)), 1);
  snprintf(file, sizeof file, "preload/cudnn9/libcudnn.so.9");
  assert_int_equal(modules_count_of(&loaded, fixture_real(file)), 1);
  for (size_t i = 0; i < ARRAY_COUNT(cudnn8_subs); i++) {
    snprintf(file, sizeof file, "preload/cudnn8/libcudnn_%s.so.8",
             cudnn8_subs[i]);
    assert_int_equal(modules_count_of(&loaded, fixture_real(file)), 1);
  }
  for (size_t i = 0; i < ARRAY_COUNT(cudnn9_subs); i++) {
    snprintf(file, sizeof file, "preload/cudnn9/libcudnn_%s.so.9",
             cudnn9_subs[i]);
    assert_true(modules_count_of(&loaded, fixture_real(file)) <= 1);
  }
  modules_free(&loaded);
}

/* Preloading again loads nothing new. */
static void scenario_idempotent(void **state) {
  (void)state;
  require_fixture("preload/cudnn8/libcudnn.so.8");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/cudnn8");
  add_fixture_root(ctx, "preload/cudnn9");
  require_ok(ctx, "cudnn=8,cudnn=9");
  preload_ok(ctx, 0);
  size_t planned = cudaload_plan_count(ctx);
  module_list first = modules_now();
  preload_ok(ctx, 0);
  module_list second = modules_now();
  print_plan(ctx);
  assert_int_equal(cudaload_plan_count(ctx), planned);
  /* The header: "A file that this or an earlier context already loaded is
   * CUDALOAD_STATE_LOADED". */
  for (size_t i = 0; i < planned; i++) {
    int entry_state = cudaload_plan_state(ctx, i);
    if (entry_state != CUDALOAD_STATE_LOADED &&
        entry_state != CUDALOAD_STATE_NOT_NEEDED)
      fail_msg("after the second preload, entry %lu (%s) is %s, not LOADED",
               (unsigned long)i, or_null(cudaload_plan_name(ctx, i)),
               state_name(entry_state));
  }
  assert_int_equal(modules_new(&first, &second, "second preload"), 0);

  /* A fresh context finds the very files an earlier context loaded: LOADED,
   * as the header promises (ALREADY_LOADED is for a file the process had
   * from elsewhere); never a second copy. */
  cudaload_ctx *again = new_context();
  add_fixture_root(again, "preload/cudnn8");
  add_fixture_root(again, "preload/cudnn9");
  require_ok(again, "cudnn=8,cudnn=9");
  preload_ok(again, 0);
  module_list third = modules_now();
  print_plan(again);
  for (int major = 8; major <= 9; major++) {
    size_t i = plan_find(again, "cudnn", major);
    assert_true(i != NOT_IN_PLAN);
    int entry_state = cudaload_plan_state(again, i);
    if (entry_state != CUDALOAD_STATE_LOADED)
      fail_msg("fresh context: cudnn %d is %s, not LOADED (an earlier "
               "context loaded it)",
               major, state_name(entry_state));
  }
  assert_int_equal(modules_new(&second, &third, "fresh context"), 0);
  modules_free(&first);
  modules_free(&second);
  modules_free(&third);
  cudaload_destroy(again);
  cudaload_destroy(ctx);
}

/* --- links into a folder other users can write to (issue 19, 5) --------- */

/* Copy a fixture file to `to`, executable as the original. */
static void copy_fixture(const char *relative, const char *to) {
  FILE *in = fopen(fixture_real(relative), "rb");
  FILE *out = fopen(to, "wb");
  if (in == NULL || out == NULL)
    fail_msg("cannot copy %s to %s", relative, to);
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
    assert_int_equal(fwrite(chunk, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
  assert_int_equal(chmod(to, 0755), 0);
}

/* Modules of the process whose real path lies in `folder` (a real path). */
static size_t modules_in(const char *folder) {
  size_t length = strlen(folder), n = 0;
  module_list now = modules_now();
  for (size_t i = 0; i < now.count; i++)
    n += strncmp(now.paths[i], folder, length) == 0 &&
         now.paths[i][length] == '/';
  modules_free(&now);
  return n;
}

/* tree/owned/lib/libcudnn*.so.8: links into tree/open (mode 0777), which
 * holds copies of the cuDNN 8 fixture; root and the real path of open. */
static void writable_link_tree(const char *tree, char root[64],
                               char open_real[PATH_MAX]) {
  char open_dir[64], lib[80];
  snprintf(open_dir, sizeof open_dir, "%s/open", tree);
  snprintf(root, 64, "%s/owned", tree);
  snprintf(lib, sizeof lib, "%s/lib", root);
  assert_int_equal(mkdir(open_dir, 0777), 0);
  assert_int_equal(chmod(open_dir, 0777), 0); /* whatever the umask */
  assert_int_equal(mkdir(root, 0755), 0);
  assert_int_equal(mkdir(lib, 0755), 0);
  for (size_t i = 0; i <= ARRAY_COUNT(cudnn8_subs); i++) {
    char name[64], fixture[128], file[160], link[160];
    if (i == ARRAY_COUNT(cudnn8_subs))
      snprintf(name, sizeof name, "libcudnn.so.8");
    else
      snprintf(name, sizeof name, "libcudnn_%s.so.8", cudnn8_subs[i]);
    snprintf(fixture, sizeof fixture, "preload/cudnn8/%s", name);
    snprintf(file, sizeof file, "%s/%s", open_dir, name);
    snprintf(link, sizeof link, "%s/%s", lib, name);
    copy_fixture(fixture, file);
    assert_int_equal(symlink(file, link), 0);
  }
  assert_non_null(realpath(open_dir, open_real));
}

/* A root only its owner can write to whose lib/ holds cuDNN 8 as links into
 * a folder every user can write to (mode 0777): the preload loads nothing
 * from there and says why, unless the caller allows writable folders. */
static void scenario_writable_link_folder(void **state) {
  (void)state;
  require_fixture("preload/cudnn8/libcudnn.so.8");
  char tree[] = "/tmp/cudaload-preload-writable-XXXXXX";
  assert_non_null(mkdtemp(tree));
  char root[64], open_real[PATH_MAX];
  writable_link_tree(tree, root, open_real);

  cudaload_ctx *ctx = new_context();
  add_root(ctx, root);
  require_ok(ctx, "cudnn=8");
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_long("last error", error);
  size_t mapped = modules_in(open_real);
  if (mapped != 0)
    fail_msg("%lu file(s) of %s, which every user can write to, were loaded "
             "through the links in %s/lib",
             (unsigned long)mapped, open_real, root);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);
  if (!contains(error, open_real) || !contains(error, "writable by every user"))
    fail_msg("the last error does not say that %s is writable by every "
             "user: %s",
             open_real, error);
  cudaload_destroy(ctx);

  /* The caller allows it: loaded from there. */
  ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS |
                        CUDALOAD_ALLOW_WRITABLE_ROOTS);
  assert_non_null(ctx);
  add_root(ctx, root);
  require_ok(ctx, "cudnn=8");
  preload_ok(ctx, 0);
  assert_true(modules_in(open_real) >= 1);
  cudaload_destroy(ctx);
  char command[PATH_MAX + 16];
  snprintf(command, sizeof command, "rm -rf '%s'", tree);
  assert_int_equal(system(command), 0);
}

#else /* _WIN32 */

#define LINUX_ONLY(name)                                                       \
  static void name(void **state) {                                             \
    (void)state;                                                               \
    SKIP_SCENARIO("a Linux scenario (dlopen, ELF fixtures)");                  \
  }
LINUX_ONLY(scenario_no_preload)
LINUX_ONLY(scenario_side_by_side)
LINUX_ONLY(scenario_side_by_side_all_sublibs)
LINUX_ONLY(scenario_bundled_shim)
LINUX_ONLY(scenario_global_conflict)
LINUX_ONLY(scenario_global_conflict_fix_as_printed)
LINUX_ONLY(scenario_versioned_global_no_conflict)
LINUX_ONLY(scenario_versioned_same_node_conflict)
LINUX_ONLY(scenario_dependency_order)
LINUX_ONLY(scenario_needed_dependencies)
LINUX_ONLY(scenario_needed_dependency_missing)
LINUX_ONLY(scenario_missing)
LINUX_ONLY(scenario_all_or_nothing)
LINUX_ONLY(scenario_partial)
LINUX_ONLY(scenario_exec)
LINUX_ONLY(scenario_real_toolkit)
LINUX_ONLY(scenario_threads)
LINUX_ONLY(scenario_idempotent)
LINUX_ONLY(scenario_writable_link_folder)

#endif /* _WIN32 */

/* ======================================================================== */
/* Windows                                                                  */
/* ======================================================================== */
#ifdef _WIN32

static wchar_t *widen(const char *utf8) {
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
  assert_true(n > 0);
  wchar_t *wide = malloc((size_t)n * sizeof *wide);
  assert_non_null(wide);
  MultiByteToWideChar(CP_UTF8, 0, utf8, -1, wide, n);
  return wide;
}

static HMODULE load_wide(const char *path, DWORD *error) {
  wchar_t *wide = widen(path);
  UINT old_mode = SetErrorMode(SEM_FAILCRITICALERRORS);
  HMODULE module = LoadLibraryW(wide);
  *error = module == NULL ? GetLastError() : 0;
  SetErrorMode(old_mode);
  free(wide);
  return module;
}

static int call_export(HMODULE module, const char *name) {
  FARPROC proc = GetProcAddress(module, name);
  if (proc == NULL)
    fail_msg("GetProcAddress(%s): error %lu", name,
             (unsigned long)GetLastError());
  int (*fn)(void);
  memcpy(&fn, &proc, sizeof fn);
  return fn();
}

/* Without a preload the consumers' import of cudnn64_8.dll / cudnn64_9.dll
 * is found nowhere (a different folder, not on PATH). */
static void scenario_windows_no_preload(void **state) {
  (void)state;
  require_fixture("preload/windows/consumers/consumer_cudnn8.dll");
  static const char *const consumers[] = {
      "preload/windows/consumers/consumer_cudnn8.dll",
      "preload/windows/consumers/consumer_cudnn9.dll"};
  for (size_t i = 0; i < ARRAY_COUNT(consumers); i++) {
    DWORD error;
    const char *path = test_fixture_path(consumers[i]);
    HMODULE module = load_wide(path, &error);
    if (module != NULL)
      fail_msg("LoadLibraryW(%s) succeeded without a preload: is the cuDNN "
               "folder on PATH?",
               path);
    print_message("  without a preload: %s: error %lu\n", path,
                  (unsigned long)error);
  }
}

static void scenario_windows(void **state) {
  (void)state;
  require_fixture("preload/windows/consumers/consumer_cudnn8.dll");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/windows/cudnn8");
  add_fixture_root(ctx, "preload/windows/cudnn9");
  require_ok(ctx, "cudnn=8,cudnn=9");
  preload_ok(ctx, 0);
  print_plan(ctx);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED, "\\cudnn64_8.dll");
  expect_entry(ctx, "cudnn", 9, CUDALOAD_STATE_LOADED, "\\cudnn64_9.dll");

  DWORD error;
  const char *path8 =
      test_fixture_path("preload/windows/consumers/consumer_cudnn8.dll");
  HMODULE consumer8 = load_wide(path8, &error);
  if (consumer8 == NULL)
    fail_msg("LoadLibraryW(%s) after the preload: error %lu", path8,
             (unsigned long)error);
  const char *path9 =
      test_fixture_path("preload/windows/consumers/consumer_cudnn9.dll");
  HMODULE consumer9 = load_wide(path9, &error);
  if (consumer9 == NULL)
    fail_msg("LoadLibraryW(%s) after the preload: error %lu", path9,
             (unsigned long)error);
  assert_int_equal(call_export(consumer8, "consumer_cudnn_version"),
                   FIXTURE_CUDNN8_VERSION);
  assert_int_equal(call_export(consumer9, "consumer_cudnn_version"),
                   FIXTURE_CUDNN9_VERSION);
  /* cuDNN 8's lazy LoadLibraryA("cudnn_ops_infer64_8.dll"): PATH. */
  if (call_export(consumer8, "consumer_cudnn_create") != 0)
    fail_msg("%s", "cuDNN 8's cudnnCreate could not LoadLibraryA "
                   "cudnn_ops_infer64_8.dll after the preload");
  assert_int_equal(call_export(consumer9, "consumer_cudnn_create"), 0);
  cudaload_destroy(ctx);
}

/* A root whose folder name holds ';' (issue 29, item 1): PATH cannot take
 * it, so cuDNN 8's later LoadLibraryA("cudnn_ops_infer64_8.dll") would
 * fail after a preload that said nothing. The preload loads what is opened
 * from that folder by name by absolute path instead, says so in a plan
 * warning naming the folder, and leaves PATH as it was. */
static void scenario_windows_semicolon_root(void **state) {
  (void)state;
  require_fixture("preload/windows/consumers/consumer_cudnn8.dll");
  static const char *const files[] = {
      "cudnn64_8.dll",           "cudnn_ops_infer64_8.dll",
      "cudnn_ops_train64_8.dll", "cudnn_cnn_infer64_8.dll",
      "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
      "cudnn_adv_train64_8.dll"};
  wchar_t base[MAX_PATH], folder[MAX_PATH];
  assert_true(GetTempPathW(MAX_PATH, base) > 0);
  /* One fixed folder, refilled by each run: its DLLs stay loaded until the
   * process ends, so it cannot be removed here. */
  swprintf(folder, MAX_PATH, L"%lscudaload-semi;colon", base);
  assert_true(CreateDirectoryW(folder, NULL) ||
              GetLastError() == ERROR_ALREADY_EXISTS);
  for (size_t i = 0; i < ARRAY_COUNT(files); ++i) {
    char rel[128];
    wchar_t from[MAX_PATH], to[MAX_PATH];
    snprintf(rel, sizeof rel, "preload/windows/cudnn8/%s", files[i]);
    MultiByteToWideChar(CP_UTF8, 0, test_fixture_path(rel), -1, from, MAX_PATH);
    swprintf(to, MAX_PATH, L"%ls\\%hs", folder, files[i]);
    assert_true(CopyFileW(from, to, FALSE));
  }
  char root[MAX_PATH * 3];
  WideCharToMultiByte(CP_UTF8, 0, folder, -1, root, (int)sizeof root, NULL,
                      NULL);
  wchar_t before[8192];
  DWORD before_len = GetEnvironmentVariableW(L"PATH", before, 8192);
  assert_true(before_len > 0 && before_len < 8192);

  cudaload_ctx *ctx = new_context();
  add_root(ctx, root);
  require_ok(ctx, "cudnn=8");
  preload_ok(ctx, 0);
  print_plan(ctx);
  /* What cuDNN 8 opens by name was loaded by path, not left for PATH. */
  expect_entry(ctx, "cudnn_ops_infer", 8, CUDALOAD_STATE_LOADED,
               "\\cudnn_ops_infer64_8.dll");
  int warned = 0;
  for (size_t w = 0; w < cudaload_plan_warning_count(ctx); ++w) {
    const char *text = cudaload_plan_warning(ctx, w);
    print_long("warning", text);
    warned |= contains(text, root) &&
              contains(text, "could not be put on PATH") &&
              contains(text, "cudnn_ops_infer64_8.dll") &&
              contains(text, "all_sublibs=True");
  }
  if (!warned)
    fail_msg("no plan warning names %s, why and what was preloaded", root);
  wchar_t after[8192];
  GetEnvironmentVariableW(L"PATH", after, 8192);
  if (wcscmp(before, after) != 0)
    fail_msg("PATH changed: %.300ls", after);
  /* The consumer, linked against cudnn64_8.dll by name, gets the preloaded
   * one; its cudnnCreate's LoadLibraryA finds the sub-library loaded. */
  DWORD error;
  const char *consumer_path =
      test_fixture_path("preload/windows/consumers/consumer_cudnn8.dll");
  HMODULE consumer = load_wide(consumer_path, &error);
  if (consumer == NULL)
    fail_msg("LoadLibraryW(%s) after the preload: error %lu", consumer_path,
             (unsigned long)error);
  if (call_export(consumer, "consumer_cudnn_create") != 0)
    fail_msg("%s", "cuDNN 8's cudnnCreate could not load "
                   "cudnn_ops_infer64_8.dll from the ';' folder");
  cudaload_destroy(ctx);
}

/* cublas64_12.dll imports cublasLt64_12.dll from another folder than the
 * program's: the plan loads cuBLASLt first. */
static void scenario_windows_dependency_order(void **state) {
  (void)state;
  require_fixture("preload/windows/cublas12/cublas64_12.dll");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/windows/cublas12");
  require_ok(ctx, "cublas=12");
  preload_ok(ctx, 0);
  print_plan(ctx);
  size_t lt = expect_entry(ctx, "cublasLt", 12, CUDALOAD_STATE_LOADED,
                           "\\cublasLt64_12.dll");
  size_t blas = expect_entry(ctx, "cublas", 12, CUDALOAD_STATE_LOADED,
                             "\\cublas64_12.dll");
  assert_true(lt < blas);
  HMODULE module = GetModuleHandleW(L"cublas64_12.dll");
  if (module == NULL)
    fail_msg("%s", "cublas64_12.dll is not in the process after the preload");
  FARPROC proc = GetProcAddress(module, "cublasGetProperty");
  assert_non_null(proc);
  int (*get_property)(int, int *);
  memcpy(&get_property, &proc, sizeof get_property);
  int major = 0;
  assert_int_equal(get_property(0, &major), 0);
  assert_int_equal(major, 12);
  cudaload_destroy(ctx);
}

/* cusolver64_12.dll imports cuBLAS, cuBLASLt and cuSPARSE (which imports
 * nvJitLink) from other wheels' bin folders: the plan loads them first, as
 * in the Linux scenario "needed_dependencies". */
static void scenario_windows_needed_dependencies(void **state) {
  (void)state;
  require_fixture("preload/windows/wheels/nvidia/cusolver/bin/"
                  "cusolver64_12.dll");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/windows/wheels");
  require_ok(ctx, "cusolver");
  preload_ok(ctx, 0);
  print_plan(ctx);
  static const struct {
    const char *name;
    int major;
    const char *file;
  } deps[] = {
      {"nvJitLink", 13, "\\nvjitlink\\bin\\nvJitLink_130_0.dll"},
      {"cusparse", 12, "\\cusparse\\bin\\cusparse64_12.dll"},
      {"cublasLt", 13, "\\cublas\\bin\\cublasLt64_13.dll"},
      {"cublas", 13, "\\cublas\\bin\\cublas64_13.dll"},
  };
  size_t solver = expect_entry(ctx, "cusolver", 12, CUDALOAD_STATE_LOADED,
                               "\\cusolver\\bin\\cusolver64_12.dll");
  for (size_t d = 0; d < ARRAY_COUNT(deps); ++d) {
    size_t at = expect_entry(ctx, deps[d].name, deps[d].major,
                             CUDALOAD_STATE_LOADED, deps[d].file);
    if (at > solver)
      fail_msg("plan order: %s (%lu) after cusolver64_12.dll (%lu), which "
               "imports it",
               deps[d].file, (unsigned long)at, (unsigned long)solver);
  }
  if (GetModuleHandleW(L"cusolver64_12.dll") == NULL)
    fail_msg("%s", "cusolver64_12.dll is not in the process after the "
                   "preload");
  cudaload_destroy(ctx);
}

/* cuSOLVER without the DLLs it imports: the loader model says before
 * anything is loaded that the load would fail (all or nothing: nothing is
 * loaded), naming each missing import and who imports it, where Windows
 * would say only "module not found (126)". */
static void scenario_windows_missing_import(void **state) {
  (void)state;
  require_fixture("preload/windows/cusolver_alone/nvidia/cusolver/bin/"
                  "cusolver64_12.dll");
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/windows/cusolver_alone");
  require_ok(ctx, "cusolver");
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_long("last error", error);
  assert_int_equal(status, CUDALOAD_E_LOAD_FAILED);
  assert_true(contains(error, "nothing was loaded: the loader would refuse"));
  static const char *const missing[] = {"cublas64_13.dll", "cublasLt64_13.dll",
                                        "cusparse64_12.dll"};
  for (size_t i = 0; i < ARRAY_COUNT(missing); ++i) {
    char needle[96];
    snprintf(needle, sizeof needle,
             "cusolver64_12.dll needs %s: not found, so loading it fails",
             missing[i]);
    if (!contains(error, needle))
      fail_msg("the error does not say \"%s\"", needle);
  }
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    assert_int_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_PLANNED);
  cudaload_destroy(ctx);
}

/* PATH too long to take the planned folder: the preload still succeeds
 * (AddDllDirectory), leaves PATH as it was, and says so in a plan warning
 * the caller can read. */
static void scenario_windows_path_at_its_limit(void **state) {
  (void)state;
  require_fixture("preload/windows/cudnn8/cudnn64_8.dll");
  size_t units = 32740, used = 0;
  wchar_t *start = malloc((units + 1) * sizeof *start);
  assert_non_null(start);
  for (unsigned n = 0; used + 24 < units; ++n)
    used +=
        (size_t)swprintf(start + used, units + 1 - used, L"C:\\entry-%06u;", n);
  wcscpy(start + used, L"C:\\last");
  assert_true(SetEnvironmentVariableW(L"PATH", start));
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/windows/cudnn8");
  require_ok(ctx, "cudnn=8");
  preload_ok(ctx, 0);
  int warned = 0;
  for (size_t w = 0; w < cudaload_plan_warning_count(ctx); ++w) {
    print_long("warning", cudaload_plan_warning(ctx, w));
    warned |= contains(cudaload_plan_warning(ctx, w), "PATH was left as it is");
  }
  if (!warned)
    fail_msg("%s", "no plan warning says PATH could not take the folder");
  wchar_t *now = malloc(32768 * sizeof *now);
  assert_non_null(now);
  DWORD got = GetEnvironmentVariableW(L"PATH", now, 32768);
  if (got == 0 || got >= 32768 || wcscmp(now, start) != 0)
    fail_msg("PATH changed: %lu characters, starting %.200ls",
             (unsigned long)got, now);
  free(now);
  free(start);
  cudaload_destroy(ctx);
}

/* A requirement nothing satisfies, as in the Linux scenario "missing". */
static void scenario_windows_missing(void **state) {
  (void)state;
  require_fixture("preload/windows/cudnn9/cudnn64_9.dll");
  cudaload_ctx *ctx = new_context();
  const char *root = test_fixture_path("preload/windows/cudnn9");
  add_root(ctx, root);
  require_ok(ctx, "cudnn=8");
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_message("  cudaload_preload: %s (%d)\n", cudaload_strerror(status),
                status);
  print_long("last error", error);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);
  assert_true(contains(error, "cudnn=8"));
  assert_true(contains(error, "cudnn64_9.dll"));
  assert_true(contains(error, root));
  assert_true(contains(error, "pip install") || contains(error, "CUDNN_PATH"));
  assert_null(GetModuleHandleW(L"cudnn64_9.dll"));
  cudaload_destroy(ctx);
  expect_status_text(status);
}

/* All or nothing, then CUDALOAD_PRELOAD_PARTIAL, as the Linux scenarios
 * "all_or_nothing" and "partial" (one process: the refused preload leaves
 * nothing that the partial one would find). */
static void scenario_windows_all_or_nothing(void **state) {
  (void)state;
  require_fixture("preload/windows/cudnn8/cudnn64_8.dll");
  assert_null(GetModuleHandleW(L"cudnn64_8.dll"));
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "preload/windows/cudnn8");
  require_ok(ctx, "cudnn=8,cublas=99");
  int status = cudaload_preload(ctx, 0);
  const char *error = cudaload_last_error();
  print_long("last error", error);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);
  if (strncmp(error, "nothing was loaded", strlen("nothing was loaded")) != 0 ||
      !contains(error, "cublas=99"))
    fail_msg("the last error does not say that nothing was loaded, and why: "
             "%s",
             error);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_PLANNED, "\\cudnn64_8.dll");
  if (GetModuleHandleW(L"cudnn64_8.dll") != NULL)
    fail_msg("%s", "cudnn64_8.dll was loaded although a requirement is "
                   "unsatisfied");

  status = cudaload_preload(ctx, CUDALOAD_PRELOAD_PARTIAL);
  print_long("last error (partial)", cudaload_last_error());
  print_plan(ctx);
  assert_int_equal(status, CUDALOAD_E_UNSATISFIED);
  expect_entry(ctx, "cudnn", 8, CUDALOAD_STATE_LOADED, "\\cudnn64_8.dll");
  if (GetModuleHandleW(L"cudnn64_8.dll") == NULL)
    fail_msg("%s", "cudnn64_8.dll is not in the process after a partial "
                   "preload");
  cudaload_destroy(ctx);
}

/* Issue 41, item 5, the Windows analogue of an older libnccl.so.2 put
 * first: this process has an older cublasLt64_12.dll loaded by name, which
 * lacks cublasLt_for_cublas_HSS; the program's torchlt_cuda.dll (no CUDA
 * library, imported by torchlt_C.dll and found on PATH) imports it, and
 * Windows binds an import to the module loaded under its name: the load
 * would fail with error 127. cudaload_preload() (Python's setup()) refuses
 * with a conflict naming that consumer, the copy and the symbol, and loads
 * nothing. Before, only the CUDA libraries of the tree were judged, and
 * torchlt_cuda.dll's import went unseen. */
static void scenario_windows_loaded_copy_lacks_an_import(void **state) {
  (void)state;
  require_fixture("stale_nccl/windows/app/torchlt_C.dll");
  char path[4096];
  const char *app = test_fixture_path("stale_nccl/windows/app");
  DWORD got = GetEnvironmentVariableA("PATH", path, sizeof path);
  char *value = malloc(strlen(app) + 2 + (got < sizeof path ? got : 0));
  assert_non_null(value);
  sprintf(value, "%s;%s", app, got < sizeof path ? path : "");
  assert_true(SetEnvironmentVariableA("PATH", value));
  free(value);
  DWORD error;
  const char *old =
      test_fixture_path("stale_nccl/windows/old/cublasLt64_12.dll");
  if (load_wide(old, &error) == NULL)
    fail_msg("LoadLibraryW(%s): error %lu", old, (unsigned long)error);
  cudaload_ctx *ctx = new_context();
  add_fixture_root(ctx, "stale_nccl/windows/new");
  require_ok(ctx, "cublas=12");
  const char *program =
      test_fixture_path("stale_nccl/windows/app/torchlt_C.dll");
  int status = cudaload_require_for(ctx, program);
  if (status != CUDALOAD_OK)
    fail_msg("cudaload_require_for(%s): %s", program, cudaload_last_error());
  status = cudaload_preload(ctx, 0);
  const char *text = cudaload_last_error();
  print_long("last error", text);
  assert_int_equal(status, CUDALOAD_E_CONFLICT);
  assert_true(contains(text, "nothing was loaded"));
  if (!contains(text,
                "torchlt_cuda.dll takes 1 symbol from cublasLt64_12.dll") ||
      !contains(text, "cublasLt_for_cublas_HSS") ||
      !contains(text, "old\\cublasLt64_12.dll"))
    fail_msg("%s", "the error does not name torchlt_cuda.dll, the old "
                   "cublasLt64_12.dll and the import it lacks");
  for (size_t i = 0; i < cudaload_plan_count(ctx); ++i)
    assert_int_not_equal(cudaload_plan_state(ctx, i), CUDALOAD_STATE_LOADED);
  cudaload_destroy(ctx);
}

#else

#define WINDOWS_ONLY(name)                                                     \
  static void name(void **state) {                                             \
    (void)state;                                                               \
    SKIP_SCENARIO("a Windows scenario (LoadLibraryW, PE fixtures; run it "     \
                  "with scripts/test-windows)");                               \
  }
WINDOWS_ONLY(scenario_windows_no_preload)
WINDOWS_ONLY(scenario_windows)
WINDOWS_ONLY(scenario_windows_dependency_order)
WINDOWS_ONLY(scenario_windows_needed_dependencies)
WINDOWS_ONLY(scenario_windows_missing)
WINDOWS_ONLY(scenario_windows_all_or_nothing)
WINDOWS_ONLY(scenario_windows_missing_import)
WINDOWS_ONLY(scenario_windows_path_at_its_limit)
WINDOWS_ONLY(scenario_windows_semicolon_root)
WINDOWS_ONLY(scenario_windows_loaded_copy_lacks_an_import)

#endif /* _WIN32 */

/* ======================================================================== */

/* The scenarios on the fixture trees alone (not no_preload, which may meet
 * the machine's own cuDNN through ld.so.cache by design, nor real_toolkit,
 * exec, which runs the tool, or writable_link_folder, which copies files
 * out): each is checked by only_fixture_libraries. */
#ifdef _WIN32
#define HERMETIC NULL
#else
#define HERMETIC only_fixture_libraries
#endif

static const struct CMUnitTest scenarios[] = {
    {"no_preload", scenario_no_preload, NULL, NULL, NULL},
    {"side_by_side", scenario_side_by_side, NULL, HERMETIC, NULL},
    {"side_by_side_all_sublibs", scenario_side_by_side_all_sublibs, NULL,
     HERMETIC, NULL},
    {"bundled_shim", scenario_bundled_shim, NULL, HERMETIC, NULL},
    {"global_conflict", scenario_global_conflict, NULL, HERMETIC, NULL},
    {"global_conflict_fix_as_printed", scenario_global_conflict_fix_as_printed,
     NULL, HERMETIC, NULL},
    {"versioned_global_no_conflict", scenario_versioned_global_no_conflict,
     NULL, HERMETIC, NULL},
    {"versioned_same_node_conflict", scenario_versioned_same_node_conflict,
     NULL, HERMETIC, NULL},
    {"dependency_order", scenario_dependency_order, NULL, HERMETIC, NULL},
    {"needed_dependencies", scenario_needed_dependencies, NULL, HERMETIC, NULL},
    {"needed_dependency_missing", scenario_needed_dependency_missing, NULL,
     HERMETIC, NULL},
    {"missing", scenario_missing, NULL, HERMETIC, NULL},
    {"all_or_nothing", scenario_all_or_nothing, NULL, HERMETIC, NULL},
    {"partial", scenario_partial, NULL, HERMETIC, NULL},
    {"exec", scenario_exec, NULL, NULL, NULL},
    {"real_toolkit", scenario_real_toolkit, NULL, NULL, NULL},
    {"threads", scenario_threads, NULL, HERMETIC, NULL},
    {"idempotent", scenario_idempotent, NULL, HERMETIC, NULL},
    {"writable_link_folder", scenario_writable_link_folder, NULL, NULL, NULL},
    {"windows_no_preload", scenario_windows_no_preload, NULL, NULL, NULL},
    {"windows", scenario_windows, NULL, NULL, NULL},
    {"windows_dependency_order", scenario_windows_dependency_order, NULL, NULL,
     NULL},
    {"windows_needed_dependencies", scenario_windows_needed_dependencies, NULL,
     NULL, NULL},
    {"windows_missing", scenario_windows_missing, NULL, NULL, NULL},
    {"windows_semicolon_root", scenario_windows_semicolon_root, NULL, NULL,
     NULL},
    {"windows_missing_import", scenario_windows_missing_import, NULL, NULL,
     NULL},
    {"windows_path_at_its_limit", scenario_windows_path_at_its_limit, NULL,
     NULL, NULL},
    {"windows_all_or_nothing", scenario_windows_all_or_nothing, NULL, NULL,
     NULL},
    {"windows_loaded_copy_lacks_an_import",
     scenario_windows_loaded_copy_lacks_an_import, NULL, NULL, NULL},
};

int main(int argc, char **argv) {
  return run_named_scenario("test_preload", scenarios, ARRAY_COUNT(scenarios),
                            argc, argv);
}
