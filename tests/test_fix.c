/* SPDX-License-Identifier: MIT */
/*
 * test_fix.c - what `cudaload fix` runs and what it leaves behind, on
 * trees made here in the layout of each system (natively and under Wine):
 * an environment's cudaload.roots read strictly and followed by the scan
 * (scan/recorded_roots.h), its one writer, the judge of each fix step
 * (fix/fix_check.h: only an environment's own pip for the catalog's wheels,
 * into an environment this user owns and no one else can write to) and
 * the seam's program runner. The CLI scenarios (tests/cli/test_cli.py,
 * Fix) run pip itself against a local wheelhouse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/fix_steps.h"
#include "cudaload.h"
#include "fix/fix_check.h"
#include "os/platform.h"
#include "scan/recorded_roots.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#define SEP "\\"
static int make_dir(const char *path) {
  return _mkdir(path);
}
#else
#include <sys/stat.h>
#include <unistd.h>
#define SEP "/"
static int make_dir(const char *path) {
  return mkdir(path, 0755);
}
#endif

static char tree[512];

static int windows(void) {
  return SEP[0] == '\\';
}

/* tree + SEP + relative ('/' becomes SEP), in a ring of buffers. */
static const char *at(const char *relative) {
  static char slots[16][sizeof tree + 1024];
  static unsigned next;
  char *out = slots[next++ % 16];
  snprintf(out, sizeof slots[0], "%s%s%s", tree, *relative ? SEP : "",
           relative);
  for (char *p = out + strlen(tree); *p; ++p)
    if (*p == '/')
      *p = SEP[0];
  return out;
}

static void folders(const char *relative) {
  char path[1024];
  snprintf(path, sizeof path, "%s", at(relative));
  for (char *p = path + strlen(tree) + 1; *p; ++p)
    if (*p == SEP[0]) {
      *p = '\0';
      make_dir(path);
      *p = SEP[0];
    }
  make_dir(path);
}

static void write_bytes(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static void file(const char *relative, const char *text) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s", relative);
  char *slash = strrchr(folder, '/');
  if (slash) {
    *slash = '\0';
    folders(folder);
  }
  write_bytes(at(relative), text, strlen(text));
}

/* The whole file at path (NUL-terminated, malloc'ed); NULL when none. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *data = malloc(1 << 20);
  assert_non_null(data);
  size_t n = fread(data, 1, (1 << 20) - 1, f);
  fclose(f);
  data[n] = '\0';
  if (len)
    *len = n;
  return data;
}

/* Copy the fixture file `from` (fixtures-relative) to relative. */
static void copy_fixture(const char *from, const char *relative) {
  size_t len = 0;
  char *data = slurp(test_fixture_path(from), &len);
  assert_non_null(data);
  char folder[1024];
  snprintf(folder, sizeof folder, "%s", relative);
  char *slash = strrchr(folder, '/');
  assert_non_null(slash);
  *slash = '\0';
  folders(folder);
  write_bytes(at(relative), data, len);
  free(data);
}

static void remove_all(const char *path) {
  char command[1200];
#ifdef _WIN32
  snprintf(command, sizeof command, "rmdir /s /q \"%s\"", path);
#else
  snprintf(command, sizeof command, "chmod -R u+rwx '%s'; rm -rf '%s'", path,
           path);
#endif
  (void)system(command);
}

static int make_tree(void **state) {
  (void)state;
#ifdef _WIN32
  char base[MAX_PATH];
  DWORD n = GetTempPathA(MAX_PATH, base);
  if (n == 0 || n >= MAX_PATH - 64)
    return -1;
  snprintf(tree, sizeof tree, "%scudaload-fix-%lu-%lu", base,
           (unsigned long)GetCurrentProcessId(), (unsigned long)GetTickCount());
  if (make_dir(tree))
    return -1;
#else
  snprintf(tree, sizeof tree, "/tmp/cudaload-fix-XXXXXX");
  if (!mkdtemp(tree))
    return -1;
  chmod(tree, 0755);
#endif
  return 0;
}

static int remove_tree(void **state) {
  (void)state;
  remove_all(tree);
  return 0;
}

/* --- the record's form --------------------------------------------------- */

typedef struct seen {
  char folders[8][1024];
  size_t count;
} seen;

static int note_folder(const char *folder, void *opaque) {
  seen *s = opaque;
  if (s->count < 8)
    snprintf(s->folders[s->count], sizeof s->folders[0], "%s", folder);
  ++s->count;
  return 0;
}

static void record_is_read_strictly(void **state) {
  (void)state;
  char text[4096];
  /* Comments, an empty line, CR LF and a folder with a blank inside: */
  snprintf(text, sizeof text, "# header\r\n\r\n%s\r\n%s\n# end", at("a"),
           at("b c"));
  seen s = {0};
  size_t bad = 99;
  const char *why = "x";
  assert_int_equal(
      cl_recorded_roots_parse(text, strlen(text), note_folder, &s, &bad, &why),
      CUDALOAD_OK);
  assert_int_equal(s.count, 2);
  assert_string_equal(s.folders[0], at("a"));
  assert_string_equal(s.folders[1], at("b c"));
  assert_int_equal(bad, 0);

  /* Each bad line makes the whole record unusable, naming its line; no
   * folder is given. */
  static const struct {
    const char *before, *after; /* around a good folder, or the line */
    int folder;
    const char *words;
  } bad_lines[] = {{"relative/folder", "", 0, "not an absolute folder"},
                   {" ", "", 1, "blanks"},
                   {"", "\t", 1, "blanks"},
                   {"", "\rx", 1, "carriage return"}};
  for (size_t i = 0; i < sizeof bad_lines / sizeof *bad_lines; ++i) {
    char line[1200];
    snprintf(line, sizeof line, "%s%s%s", bad_lines[i].before,
             bad_lines[i].folder ? at("a") : "", bad_lines[i].after);
    snprintf(text, sizeof text, "# header\n%s\n%s\n", at("first"), line);
    memset(&s, 0, sizeof s);
    assert_int_equal(cl_recorded_roots_parse(text, strlen(text), note_folder,
                                             &s, &bad, &why),
                     CUDALOAD_E_MALFORMED);
    assert_int_equal(bad, 3);
    assert_non_null(strstr(why, bad_lines[i].words));
    assert_int_equal(s.count, 0);
  }
  /* A NUL byte inside a line. */
  char with_nul[] = "/a\0b\n";
  assert_int_equal(cl_recorded_roots_parse(with_nul, sizeof with_nul - 1,
                                           note_folder, &s, &bad, &why),
                   CUDALOAD_E_MALFORMED);
  assert_int_equal(bad, 1);
}

static void record_is_written_whole(void **state) {
  (void)state;
  folders("w");
  char *record = cl_recorded_roots_path(at("w/site-packages"));
  assert_non_null(record);
  assert_string_equal(record, at("w/cudaload.roots"));
#ifndef _WIN32
  mode_t old = umask(0); /* the file must not follow a loose umask */
#endif
  assert_int_equal(cl_recorded_roots_add(record, at("w/cudnn8")), CUDALOAD_OK);
  assert_int_equal(cl_recorded_roots_add(record, at("w/cudnn8")), CUDALOAD_OK);
  assert_int_equal(cl_recorded_roots_add(record, at("w/cublas12")),
                   CUDALOAD_OK);
#ifndef _WIN32
  umask(old);
  struct stat st;
  assert_int_equal(stat(record, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
#endif
  char *text = slurp(record, NULL);
  assert_non_null(text);
  assert_true(text[0] == '#');
  char *first = strstr(text, at("w/cudnn8"));
  assert_non_null(first);
  assert_null(strstr(first + 1, at("w/cudnn8"))); /* once */
  assert_non_null(strstr(text, at("w/cublas12")));
  free(text);
  /* A record that is not one is left as it is, and the error names the
   * line. */
  file("w/cudaload.roots", "# mine\nnot/absolute\n");
  assert_int_equal(cl_recorded_roots_add(record, at("w/cudnn8")),
                   CUDALOAD_E_MALFORMED);
  assert_non_null(strstr(cudaload_last_error(), "line 2"));
  text = slurp(record, NULL);
  assert_string_equal(text, "# mine\nnot/absolute\n");
  free(text);
  free(record);
}

/* --- the scan follows it -------------------------------------------------- */

/* The site-packages of the environment `env` in this system's layout. */
static const char *site_of(const char *env) {
  static char out[256];
  snprintf(out, sizeof out, "%s/%s", env,
           windows() ? "Lib/site-packages" : "lib/python3.11/site-packages");
  return out;
}

static const char *beside_site(const char *env, const char *name) {
  static char out[2][256];
  static unsigned next;
  char *o = out[next++ % 2];
  snprintf(o, sizeof out[0], "%s/%s/%s", env,
           windows() ? "Lib" : "lib/python3.11", name);
  return o;
}

/* A venv at env whose record names a folder holding cuDNN 8. */
static void make_recorded_env(const char *env) {
  char rel[256];
  snprintf(rel, sizeof rel, "%s/pyvenv.cfg", env);
  file(rel, "home = /usr/bin\n");
  folders(site_of(env));
  /* cuDNN 8 whole: its main library and the six it opens. */
  static const char *const linux_files[] = {
      "libcudnn.so.8",           "libcudnn_adv_infer.so.8",
      "libcudnn_adv_train.so.8", "libcudnn_cnn_infer.so.8",
      "libcudnn_cnn_train.so.8", "libcudnn_ops_infer.so.8",
      "libcudnn_ops_train.so.8"};
  static const char *const windows_files[] = {
      "cudnn64_8.dll",           "cudnn_adv_infer64_8.dll",
      "cudnn_adv_train64_8.dll", "cudnn_cnn_infer64_8.dll",
      "cudnn_cnn_train64_8.dll", "cudnn_ops_infer64_8.dll",
      "cudnn_ops_train64_8.dll"};
  for (size_t i = 0; i < 7; ++i) {
    char from[256], to[256];
    snprintf(from, sizeof from, "%s/%s",
             windows() ? "preload/windows/cudnn8" : "cudnn8_compat",
             windows() ? windows_files[i] : linux_files[i]);
    snprintf(to, sizeof to, "%s/%s", beside_site(env, "cudnn8"),
             windows() ? windows_files[i] : linux_files[i]);
    copy_fixture(from, to);
  }
  char text[1200];
  snprintf(text, sizeof text, "# test\n%s\n", at(beside_site(env, "cudnn8")));
  file(beside_site(env, "cudaload.roots"), text);
}

/* The index of the root at path in ctx's last scan, or SIZE_MAX. */
static size_t root_named(cudaload_ctx *ctx, const char *path) {
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i)
    if (strcmp(cudaload_root_path(ctx, i), path) == 0)
      return i;
  return SIZE_MAX;
}

static void scan_follows_the_record(void **state) {
  (void)state;
  if (!test_fixture_exists(windows() ? "preload/windows/cudnn8/cudnn64_8.dll"
                                     : "cudnn8_compat/libcudnn.so.8"))
    skip();
  make_recorded_env("venv");
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_add_environment_root(ctx, at("venv")), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  size_t r = root_named(ctx, at(beside_site("venv", "cudnn8")));
  assert_true(r != SIZE_MAX);
  assert_string_equal(cudaload_root_origin(ctx, r), "cudaload.roots");
  assert_string_equal(cudaload_root_tier(ctx, r), "environment");
  assert_int_equal(cudaload_root_status(ctx, r), CUDALOAD_OK);
  int found = 0;
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    found |= cudaload_library_root(ctx, i) == r &&
             strcmp(cudaload_library_family(ctx, i), "cudnn") == 0 &&
             cudaload_library_major(ctx, i) == 8;
  assert_true(found);
  /* And the plan takes it, with no root given. */
  assert_int_equal(cudaload_require(ctx, "cudnn=8"), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_plan_path(ctx, 0), "cudnn8"));

  /* A bad line: none of its folders, and the record listed with why. */
  file(beside_site("venv", "cudaload.roots"), "relative\n");
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(root_named(ctx, at(beside_site("venv", "cudnn8"))),
                   SIZE_MAX);
  r = root_named(ctx, at(beside_site("venv", "cudaload.roots")));
  assert_true(r != SIZE_MAX);
  assert_int_equal(cudaload_root_status(ctx, r), CUDALOAD_E_MALFORMED);
#ifndef _WIN32
  /* One others can write to chooses what the environment loads: refused. */
  char text[1200];
  snprintf(text, sizeof text, "%s\n", at(beside_site("venv", "cudnn8")));
  file(beside_site("venv", "cudaload.roots"), text);
  chmod(at(beside_site("venv", "cudaload.roots")), 0666);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_equal(root_named(ctx, at(beside_site("venv", "cudnn8"))),
                   SIZE_MAX);
  r = root_named(ctx, at(beside_site("venv", "cudaload.roots")));
  assert_true(r != SIZE_MAX);
  assert_int_equal(cudaload_root_status(ctx, r), CUDALOAD_E_INSECURE);
  chmod(at(beside_site("venv", "cudaload.roots")), 0644);
#endif
  cudaload_destroy(ctx);
}

/* --- the judge of each step ----------------------------------------------- */

/* A venv (or, without pyvenv.cfg, a system-like prefix) at env with an
 * interpreter file; its path. */
static const char *make_interpreter(const char *env, int venv) {
  static char python[512];
  char rel[256];
  snprintf(rel, sizeof rel, "%s/%s", env,
           windows() ? "Scripts/python.exe" : "bin/python3.11");
  file(rel, "not run by these tests\n");
  snprintf(python, sizeof python, "%s", at(rel));
  folders(site_of(env));
  if (venv) {
    snprintf(rel, sizeof rel, "%s/pyvenv.cfg", env);
    file(rel, "home = /usr/bin\n");
  }
  return python;
}

typedef struct step_words {
  const char *words[12];
} step_words;

/* The step of action with words (NULL-terminated) and its judgement. */
static int judge(int action, const char *const *words, cl_fix_command *c) {
  cl_fix fix = CL_FIX_INIT;
  cl_fix_step *step = cl_fix_add(&fix, action);
  for (size_t i = 0; words && words[i]; ++i)
    cl_fix_arg(&fix, step, words[i]);
  assert_false(fix.failed);
  assert_int_equal(cl_fix_command_make(step, c), CUDALOAD_OK);
  cl_fix_free(&fix);
  return c->status;
}

static void only_installs_run(void **state) {
  (void)state;
  static const int never[] = {CUDALOAD_FIX_NOTE, CUDALOAD_FIX_CHOICE,
                              CUDALOAD_FIX_SET_VARIABLE,
                              CUDALOAD_FIX_RUN_PROGRAM, CUDALOAD_FIX_COMMAND};
  const char *python = make_interpreter("steps", 1);
  const char *words[] = {python, "-m", "pip", "install", "nvidia-cublas-cu12",
                         NULL};
  for (size_t i = 0; i < sizeof never / sizeof *never; ++i) {
    cl_fix_command c;
    assert_int_equal(judge(never[i], words, &c), CUDALOAD_E_UNSUPPORTED);
    assert_non_null(c.why);
    assert_null(c.line);
    if (never[i] == CUDALOAD_FIX_CHOICE)
      assert_non_null(strstr(c.why, "--require cuda=12"));
    cl_fix_command_free(&c);
  }
}

static void an_install_runs_with_safety_words(void **state) {
  (void)state;
  const char *python = make_interpreter("env", 1);
  char target[512];
  snprintf(target, sizeof target, "%s", at(beside_site("env", "cudnn8")));
  const char *words[] = {python,
                         "-m",
                         "pip",
                         "install",
                         "--no-deps",
                         "--target",
                         target,
                         "nvidia-cudnn-cu12==8.9.*",
                         "nvidia_cublas_cu12",
                         NULL};
  cl_fix_command c;
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, words, &c), CUDALOAD_OK);
  assert_null(c.why);
  assert_string_equal(c.argv[0], python);
  assert_string_equal(c.argv[3], "install");
  assert_string_equal(c.argv[4], "--only-binary=:all:");
  assert_string_equal(c.argv[5], "--no-input");
  assert_string_equal(c.argv[c.argc - 1], "nvidia_cublas_cu12");
  assert_null(c.argv[c.argc]);
  assert_string_equal(c.environment, at("env"));
  assert_string_equal(c.target, target);
  assert_string_equal(c.record, at(beside_site("env", "cudaload.roots")));
  assert_non_null(strstr(c.line, "--only-binary=:all:"));
  cl_fix_command_free(&c);

  /* No --target: into the venv's site-packages, nothing to record. */
  const char *plain[] = {
      python, "-m", "pip", "install", "nvidia-cuda-runtime-cu12", NULL};
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, plain, &c), CUDALOAD_OK);
  assert_null(c.target);
  assert_null(c.record);
  cl_fix_command_free(&c);
}

static void words_it_does_not_pass(void **state) {
  (void)state;
  const char *python = make_interpreter("words", 1);
  char outside[512], dotted[512];
  snprintf(outside, sizeof outside, "%s", at("elsewhere"));
  snprintf(dotted, sizeof dotted, "%s", at("words/lib/../../elsewhere"));
  const struct {
    const char *word, *option_value;
    int status;
    const char *why;
  } cases[] = {
      /* A name from the pasted text, or a lookalike: not the catalog's. */
      {"evil-package==1.0", NULL, CUDALOAD_E_INVALID_ARGUMENT, "catalog"},
      {"nvidia-cudnn-cu12-evil", NULL, CUDALOAD_E_INVALID_ARGUMENT, "catalog"},
      /* Versions that are not PEP 440, extras, markers, URLs. */
      {"nvidia-cudnn-cu12==banana", NULL, CUDALOAD_E_INVALID_ARGUMENT,
       "PEP 440"},
      {"nvidia-cudnn-cu12[extra]", NULL, CUDALOAD_E_INVALID_ARGUMENT,
       "PEP 440"},
      {"nvidia-cudnn-cu12==8.9.*;os_name=='nt'", NULL,
       CUDALOAD_E_INVALID_ARGUMENT, "PEP 440"},
      {"nvidia-cudnn-cu12@https://example.invalid/x.whl", NULL,
       CUDALOAD_E_INVALID_ARGUMENT, "PEP 440"},
      /* pip options the fix lines never write. */
      {"--index-url", "https://example.invalid/simple",
       CUDALOAD_E_INVALID_ARGUMENT, "pip option"},
      {"--pre", NULL, CUDALOAD_E_INVALID_ARGUMENT, "pip option"},
      /* A --target outside the environment, or through "..". */
      {"--target", outside, CUDALOAD_E_INSECURE, "outside the environment"},
      {"--target", dotted, CUDALOAD_E_INVALID_ARGUMENT, "--target"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const char *words[] = {python,
                           "-m",
                           "pip",
                           "install",
                           cases[i].word,
                           cases[i].option_value ? cases[i].option_value
                                                 : "nvidia-cublas-cu12",
                           cases[i].option_value ? "nvidia-cublas-cu12" : NULL,
                           NULL};
    cl_fix_command c;
    int status = judge(CUDALOAD_FIX_INSTALL, words, &c);
    if (status != cases[i].status || !c.why || !strstr(c.why, cases[i].why))
      fail_msg("%s: status %d, why %s", cases[i].word, status,
               c.why ? c.why : "(none)");
    assert_null(c.line);
    cl_fix_command_free(&c);
  }
  /* No interpreter of an environment: the generic pip, a system Python. */
  const char *bare[] = {"pip", "install", "nvidia-cublas-cu12", "x", NULL};
  cl_fix_command c;
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, bare, &c),
                   CUDALOAD_E_UNSUPPORTED);
  cl_fix_command_free(&c);
  const char *system_python = make_interpreter("system", 0);
  const char *sys_words[] = {system_python,        "-m", "pip", "install",
                             "nvidia-cublas-cu12", NULL};
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, sys_words, &c),
                   CUDALOAD_E_UNSUPPORTED);
  assert_non_null(strstr(c.why, "system interpreter"));
  cl_fix_command_free(&c);
  /* Variables for the command. */
  cl_fix fix = CL_FIX_INIT;
  cl_fix_step *step = cl_fix_add(&fix, CUDALOAD_FIX_INSTALL);
  for (size_t i = 0; sys_words[i]; ++i)
    cl_fix_arg(&fix, step, i ? sys_words[i] : python);
  cl_fix_env(&fix, step, "PIP_INDEX_URL", "https://example.invalid");
  assert_int_equal(cl_fix_command_make(step, &c), CUDALOAD_OK);
  assert_int_equal(c.status, CUDALOAD_E_INVALID_ARGUMENT);
  cl_fix_command_free(&c);
  cl_fix_free(&fix);
}

#ifndef _WIN32
/* A venv others can write to, or another user's: nothing is installed. */
static void whose_environment(void **state) {
  (void)state;
  const char *python = make_interpreter("owned", 1);
  const char *words[] = {python, "-m", "pip", "install", "nvidia-cublas-cu12",
                         NULL};
  cl_fix_command c;
  chmod(at(site_of("owned")), 0777);
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, words, &c), CUDALOAD_E_INSECURE);
  assert_non_null(strstr(c.why, "chmod go-w"));
  cl_fix_command_free(&c);
  chmod(at(site_of("owned")), 0755);
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, words, &c), CUDALOAD_OK);
  cl_fix_command_free(&c);
  if (geteuid() != 0) {
    /* Another user's environment needs root to make: the CLI scenarios run
     * the tool as a user on root's venv (tests/cli/test_cli.py, Fix). */
    print_message("[  SKIPPED ] another user's venv: not root, cannot "
                  "chown one\n");
    return;
  }
  /* As root, into a user's venv: a root-owned file there is one its owner
   * cannot update or remove. */
  assert_int_equal(chown(at("owned"), 65534, 65534), 0);
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, words, &c), CUDALOAD_E_INSECURE);
  assert_non_null(strstr(c.why, "owned by uid 65534"));
  cl_fix_command_free(&c);
  assert_int_equal(chown(at("owned"), 0, 0), 0);
}

/* What pip made is checked as a root before it is recorded. */
static void the_target_is_checked_before_it_is_recorded(void **state) {
  (void)state;
  const char *python = make_interpreter("made", 1);
  char target[512];
  snprintf(target, sizeof target, "%s", at(beside_site("made", "cudnn8")));
  const char *words[] = {python,
                         "-m",
                         "pip",
                         "install",
                         "--target",
                         target,
                         "nvidia-cudnn-cu12==8.9.*",
                         NULL};
  cl_fix_command c;
  assert_int_equal(judge(CUDALOAD_FIX_INSTALL, words, &c), CUDALOAD_OK);
  assert_int_equal(cl_fix_command_record(&c), CUDALOAD_E_IO); /* none made */
  folders(beside_site("made", "cudnn8"));
  chmod(target, 0777);
  assert_int_equal(cl_fix_command_record(&c), CUDALOAD_E_INSECURE);
  assert_null(slurp(c.record, NULL));
  chmod(target, 0755);
  assert_int_equal(cl_fix_command_record(&c), CUDALOAD_OK);
  char *text = slurp(c.record, NULL);
  assert_non_null(text);
  assert_non_null(strstr(text, target));
  free(text);
  cl_fix_command_free(&c);
}

/* The runner: the program's own words, its exit status, no shell. */
static void a_program_runs_as_its_words(void **state) {
  (void)state;
  char marker[600];
  snprintf(marker, sizeof marker, "%s", at("ran"));
  char script[700];
  snprintf(script, sizeof script, "echo \"$1\" > '%s'; exit 3", marker);
  char *argv[6] = {"/bin/sh", "-c", NULL, "sh", "$(touch PWNED) a b", NULL};
  argv[2] = script;
  int code = 0;
  assert_int_equal(cl_os_run_program(argv, &code), CUDALOAD_OK);
  assert_int_equal(code, 3);
  char *text = slurp(marker, NULL);
  assert_non_null(text);
  assert_string_equal(text, "$(touch PWNED) a b\n");
  free(text);
  char *relative[] = {"sh", "-c", "exit 0", NULL};
  assert_int_equal(cl_os_run_program(relative, &code),
                   CUDALOAD_E_INVALID_ARGUMENT);
  char *missing[] = {"/no/such/program", NULL};
  assert_int_equal(cl_os_run_program(missing, &code), CUDALOAD_E_NOT_FOUND);
}
#else
static void a_program_runs_as_its_words(void **state) {
  (void)state;
  int code = 0;
  char *relative[] = {"cmd.exe", "/c", "exit 0", NULL};
  assert_int_equal(cl_os_run_program(relative, &code),
                   CUDALOAD_E_INVALID_ARGUMENT);
  file("run.bat", "@exit 0\r\n");
  char *batch[] = {(char *)at("run.bat"), NULL};
  assert_int_equal(cl_os_run_program(batch, &code),
                   CUDALOAD_E_INVALID_ARGUMENT);
  /* A .exe by its path, its words quoted into the one command line and
   * read back by it: cmd.exe's exit status comes back. */
  char system[MAX_PATH], cmd[MAX_PATH + 16];
  UINT n = GetSystemDirectoryA(system, MAX_PATH);
  assert_true(n > 0 && n < MAX_PATH);
  snprintf(cmd, sizeof cmd, "%s\\cmd.exe", system);
  char *exits[] = {cmd, "/c", "exit 3", NULL};
  assert_int_equal(cl_os_run_program(exits, &code), CUDALOAD_OK);
  assert_int_equal(code, 3);
  char *missing[] = {"C:\\no\\such\\program.exe", NULL};
  assert_int_equal(cl_os_run_program(missing, &code), CUDALOAD_E_NOT_FOUND);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(record_is_read_strictly),
      cmocka_unit_test(record_is_written_whole),
      cmocka_unit_test(scan_follows_the_record),
      cmocka_unit_test(only_installs_run),
      cmocka_unit_test(an_install_runs_with_safety_words),
      cmocka_unit_test(words_it_does_not_pass),
#ifndef _WIN32
      cmocka_unit_test(whose_environment),
      cmocka_unit_test(the_target_is_checked_before_it_is_recorded),
#endif
      cmocka_unit_test(a_program_runs_as_its_words),
  };
  return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
