/* SPDX-License-Identifier: MIT */
/*
 * test_fix_lines.c - the fix a plan prints for a missing requirement names
 * a wheel that exists for the CUDA major it must be built for, and never
 * one that would replace a package the environment pins (lib/load/fix_lines.c).
 * The scenarios plan over the Linux fixture trees (and the Windows tree
 * with Windows naming); the table case lists every name a fix can print.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/shell_word.h"
#include "cudaload.h"
#include "load/fix_lines.h"
#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/stat.h>
#endif

/* --- a word of a printed command (common/shell_word.h) ----------------- */

/* The word as cl_buf_shell_word writes it for kind; NULL when it refuses. */
static char *shell_word(const char *word, cl_shell_kind kind) {
  cl_buf b = CL_BUF_INIT;
  int written = cl_buf_shell_word(&b, word, kind);
  char *text = cl_buf_take(&b);
  assert_non_null(text);
  if (!written) {
    assert_string_equal(text, ""); /* nothing appended */
    free(text);
    return NULL;
  }
  return text;
}

/* Words that mean something to a shell: each must come back as itself. */
static const char *const hostile_words[] = {"v$(touch PWNED)",
                                            "it's",
                                            "`touch PWNED`",
                                            "a b",
                                            "x;touch PWNED",
                                            "a&b|c",
                                            "$HOME",
                                            "~",
                                            "*",
                                            "-n",
                                            "'",
                                            "''",
                                            "\\",
                                            "a\"b",
                                            "!x",
                                            "%PATH%",
                                            "(x)",
                                            "<in",
                                            ">out",
                                            "#c",
                                            "tab\there",
                                            "line\nbreak",
                                            "caf\xc3\xa9",
                                            "",
                                            "nvidia-cudnn-cu12==8.9.*",
                                            "pkg>=9.1"};

static void posix_words_are_plain_or_single_quoted(void **state) {
  (void)state;
  char *w = shell_word("/opt/cuda-13.0/lib64", CL_SHELL_POSIX);
  assert_string_equal(w, "/opt/cuda-13.0/lib64");
  free(w);
  w = shell_word("v$(touch PWNED)", CL_SHELL_POSIX);
  assert_string_equal(w, "'v$(touch PWNED)'");
  free(w);
  w = shell_word("it's", CL_SHELL_POSIX);
  assert_string_equal(w, "'it'\\''s'");
  free(w);
  w = shell_word("", CL_SHELL_POSIX);
  assert_string_equal(w, "''");
  free(w);
  for (size_t i = 0; i < sizeof hostile_words / sizeof *hostile_words; ++i) {
    w = shell_word(hostile_words[i], CL_SHELL_POSIX);
    assert_non_null(w); /* sh can be given any word */
    free(w);
  }
}

/* cmd and PowerShell: plain, or in double quotes with nothing either
 * shell acts on there, or refused. */
static void windows_words_are_double_quoted_or_refused(void **state) {
  (void)state;
  char *w = shell_word("C:\\Program Files\\NVIDIA\\cudnn8",
                       CL_SHELL_CMD_AND_POWERSHELL);
  assert_string_equal(w, "\"C:\\Program Files\\NVIDIA\\cudnn8\"");
  free(w);
  w = shell_word("C:\\venv\\cudnn8", CL_SHELL_CMD_AND_POWERSHELL);
  assert_string_equal(w, "C:\\venv\\cudnn8");
  free(w);
  w = shell_word("C:\\a&b|c^(x)<y>;z,q@r", CL_SHELL_CMD_AND_POWERSHELL);
  assert_string_equal(w, "\"C:\\a&b|c^(x)<y>;z,q@r\"");
  free(w);
  /* What cmd or PowerShell expands even in double quotes. */
  static const char *const refused[] = {"C:\\x$(calc)",
                                        "C:\\x%PATH%",
                                        "C:\\x`n",
                                        "C:\\x!y!",
                                        "a\"b",
                                        "C:\\x\xe2\x80\x9c",
                                        "C:\\x\xe2\x80\x9d",
                                        "C:\\x\xe2\x80\x9e",
                                        "tab\there",
                                        "C:\\x\xc2\x9b"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; ++i)
    if ((w = shell_word(refused[i], CL_SHELL_CMD_AND_POWERSHELL)) != NULL)
      fail_msg("%s was written as %s", refused[i], w);
  /* Typographic single quotes are harmless inside double quotes. */
  w = shell_word("C:\\it\xe2\x80\x99s", CL_SHELL_CMD_AND_POWERSHELL);
  assert_string_equal(w, "\"C:\\it\xe2\x80\x99s\"");
  free(w);
}

/* A variable's step on Windows: cmd's set "NAME=value" (a folder with & in
 * its name must not run what follows it), PowerShell's $env: beside it; a
 * value cmd cannot hold in quotes is not spelled. */
static char *variable_line(const char *value, int *spelled) {
  cl_fix fix = {0};
  cl_fix_step *s = cl_fix_add(&fix, CUDALOAD_FIX_SET_VARIABLE);
  cl_fix_env(&fix, s, "PATH", value);
  cl_buf b = CL_BUF_INIT;
  *spelled = cl_fix_command_line(&b, s, CL_SHELL_CMD_AND_POWERSHELL);
  cl_fix_free(&fix);
  char *line = cl_buf_take(&b);
  assert_non_null(line);
  return line;
}

static void windows_variables_are_quoted_for_cmd_and_powershell(void **state) {
  (void)state;
  int spelled;
  char *line = variable_line("C:\\R&D\\it's bin", &spelled);
  assert_true(spelled);
  assert_string_equal(line, "set \"PATH=C:\\R&D\\it's bin\" (cmd) or "
                            "$env:PATH = 'C:\\R&D\\it''s bin' (PowerShell)");
  free(line);
  line = variable_line("C:\\100%\\bin", &spelled);
  assert_false(spelled);
  assert_null(strstr(line, "100%"));
  free(line);
}

/* The fix-line scenarios plan over the Linux fixture trees (ELF), which
 * the Windows build (under Wine) does not read as libraries. */
#ifndef _WIN32
static int has_fixtures(void) {
  FILE *f = fopen(test_fixture_path("wheels-cu13/site-packages/nvidia/cu13/"
                                    "lib/libcublas.so.13"),
                  "rb");
  if (f)
    fclose(f);
  return f != NULL;
}

#define REQUIRE_FIXTURES()                                                     \
  do {                                                                         \
    if (!has_fixtures()) {                                                     \
      print_message("skipped: fixture trees not built in %s\n",                \
                    CUDALOAD_FIXTURES_DIR);                                    \
      skip();                                                                  \
    }                                                                          \
  } while (0)

/* The last error of a plan of spec over roots (fixture-relative), which
 * must fail as unsatisfied; malloc'ed. */
static char *unsatisfied(int target, const char *spec, const char *const *roots,
                         size_t n) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_set_target(ctx, target), CUDALOAD_OK);
  for (size_t i = 0; i < n; ++i)
    assert_int_equal(cudaload_add_root(ctx, test_fixture_path(roots[i])),
                     CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, spec), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  char *e = strdup(cudaload_last_error());
  assert_non_null(e);
  cudaload_destroy(ctx);
  return e;
}

static void has(const char *text, const char *needle) {
  if (!strstr(text, needle))
    fail_msg("\"%s\" is not in:\n%s", needle, text);
}

static void lacks(const char *text, const char *needle) {
  if (strstr(text, needle))
    fail_msg("\"%s\" should not be in:\n%s", needle, text);
}

/* wheels-cu13 pins cuDNN 9 (nvidia-cudnn-cu13) in nvidia/cudnn: a plain pip
 * install of cuDNN 8 would mix into that folder; nvidia-cudnn-cu12==8.9.*
 * goes to a folder of its own, with CUDA 12's cuBLAS, which cuDNN 8 opens
 * and the environment lacks. */
static void cudnn8_beside_a_cudnn9_wheel_goes_to_its_own_folder(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"wheels-cu13/site-packages"};
  char *e = unsatisfied(CUDALOAD_TARGET_LINUX, "cudnn=8", roots, 1);
  has(e, "python -m pip install --no-deps --target ");
  has(e, "/wheels-cu13/cudnn8 'nvidia-cudnn-cu12==8.9.*' "
         "nvidia-cublas-cu12; not a plain pip install: ");
  has(e, "/wheels-cu13/site-packages already has cudnn 9 in nvidia/cudnn");
  has(e, "then pass that folder as a root");
  /* Without the default roots the variable is not read: the root is the
   * other way, as printed. */
  has(e, "or pass the folder that holds the libraries as a root (--root; "
         "Python: roots=[...]; CUDNN_PATH is not read without the default "
         "roots)");
  lacks(e, "pip install 'nvidia-cudnn");
  lacks(e, "pip install nvidia-cudnn");
  free(e);
}

/* wheels-cu12 pins cuDNN 8.9.7 as nvidia-cudnn-cu12, the very distribution
 * cuDNN 9 for CUDA 12 is: pip would replace it. */
static void
cudnn9_beside_the_same_distribution_goes_to_its_own_folder(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"wheels-cu12/site-packages"};
  char *e = unsatisfied(CUDALOAD_TARGET_LINUX, "cudnn=9", roots, 1);
  /* cuBLAS 12 is there: nothing else to install. */
  has(e, "/wheels-cu12/cudnn9 'nvidia-cudnn-cu12==9.*'; not a plain");
  has(e, "already has cudnn 8 in nvidia/cudnn");
  free(e);
}

/* CUDA 13's toolkit wheels have no suffix (nvidia-cublas-cu13 is a 0.0.1
 * placeholder); cuBLAS 12 in nvidia/cublas is no obstacle to them. */
static void cuda13_toolkit_wheels_have_no_suffix(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"wheels-cu12/site-packages"};
  char *e = unsatisfied(CUDALOAD_TARGET_LINUX, "cublas=13", roots, 1);
  has(e, "pip install 'nvidia-cublas==13.*'; then pass its site-packages");
  lacks(e, "-cu13");
  lacks(e, "--target");
  free(e);
}

/* cudart=12 in a CUDA 13 environment: CUDA 12's own wheel, whose folder
 * (nvidia/cuda_runtime) the CUDA 13 wheels do not use. */
static void cudart12_names_the_cu12_wheel(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *roots[] = {"wheels-cu13/site-packages"};
  char *e = unsatisfied(CUDALOAD_TARGET_LINUX, "cudart=12", roots, 1);
  has(e, "pip install nvidia-cuda-runtime-cu12; then pass");
  free(e);
}

/* cusolver=11 in a CUDA 13 environment: CUDA 13 ships cuSOLVER 12 only, so
 * "nvidia-cusolver==11.*" names no release (pip: "No matching
 * distribution"); CUDA 12's wheel carries libcusolver.so.11. */
static void
an_abi_major_the_environments_cuda_lacks_takes_cuda12(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  const char *cu13[] = {"wheels-cu13/site-packages/nvidia/cu13/lib"};
  char *e = unsatisfied(CUDALOAD_TARGET_LINUX, "cusolver=11", cu13, 1);
  has(e, "pip install nvidia-cusolver-cu12");
  lacks(e, "nvidia-cusolver==11");
  free(e);
  /* The major CUDA 13 does ship keeps CUDA 13's wheel. */
  e = unsatisfied(CUDALOAD_TARGET_LINUX, "cusolver=12", cu13, 1);
  has(e, "pip install 'nvidia-cusolver==12.*'");
  free(e);
}

/* cuDNN's major does not tell its CUDA major: the environment's does. */
static void cudnn9_follows_the_environments_cuda_major(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  /* CUDA 13's cuBLAS and runtime, no cuDNN. */
  const char *cu13[] = {"wheels-cu13/site-packages/nvidia/cu13/lib"};
  char *e = unsatisfied(CUDALOAD_TARGET_LINUX, "cudnn=9", cu13, 1);
  has(e, "pip install 'nvidia-cudnn-cu13==9.*'");
  free(e);
  /* Another requirement's CUDA major comes first. */
  const char *none[] = {"no-such-folder"};
  e = unsatisfied(CUDALOAD_TARGET_LINUX, "cublas=13,cudnn=9", none, 1);
  has(e, "pip install 'nvidia-cudnn-cu13==9.*'");
  free(e);
  /* Nothing tells: no CUDA major is guessed (the machine's toolkit is not
   * the program); one command per CUDA major that ships cuDNN 9. */
  e = unsatisfied(CUDALOAD_TARGET_LINUX, "cudnn=9", none, 1);
  has(e, "neither the request, the program nor the error message says "
         "which CUDA major the program is built for");
  has(e, "for a program built for CUDA 13: pip install "
         "'nvidia-cudnn-cu13==9.*'");
  has(e, "for a program built for CUDA 12: pip install "
         "'nvidia-cudnn-cu12==9.*'");
  free(e);
  /* No cuDNN 8 for CUDA 13: the environment cannot be what the program
   * that needs cuDNN 8 is built for; the CUDA majors that have it. */
  e = unsatisfied(CUDALOAD_TARGET_LINUX, "cudnn=8", cu13, 1);
  has(e, "CUDA 13 has no cudnn 8");
  has(e, "for a program built for CUDA 12: pip install "
         "'nvidia-cudnn-cu12==8.9.*'");
  has(e, "for a program built for CUDA 11: pip install "
         "'nvidia-cudnn-cu11==8.9.*'");
  lacks(e, "cudnn-cu13==8");
  free(e);
  /* The program's CUDA major, pinned, decides. */
  e = unsatisfied(CUDALOAD_TARGET_LINUX, "cuda=11,cudnn=8", cu13, 1);
  has(e, "pip install 'nvidia-cudnn-cu11==8.9.*'");
  lacks(e, "cudnn-cu12");
  lacks(e, "for a program built for");
  free(e);
}

/* The same on Windows: the wheel's folder is nvidia\cudnn\bin. */
static void windows_wheels_are_recognised_too(void **state) {
  (void)state;
  REQUIRE_FIXTURES();
  SKIP_WITHOUT_FIXTURE("windows/site-packages");
  const char *roots[] = {"windows/site-packages"};
  char *e = unsatisfied(CUDALOAD_TARGET_WINDOWS, "cudnn=8,nccl", roots, 1);
  has(e, "/windows/cudnn8 \"nvidia-cudnn-cu12==8.9.*\"; not a plain");
  has(e, "already has cudnn 9 in nvidia\\cudnn");
  has(e, "the folder that holds the DLLs");
  /* NCCL has no Windows wheel: no pip line. */
  has(e, "fix: pass the folder that holds the DLLs as a root");
  free(e);
}

/* sh gives each word back exactly, and runs nothing: every hostile word
 * is passed to printf through /bin/sh in an empty folder. */
static void posix_words_mean_themselves_in_sh(void **state) {
  (void)state;
  char dir[] = "/tmp/cudaload-shell-word-XXXXXX";
  assert_non_null(mkdtemp(dir));
  for (size_t i = 0; i < sizeof hostile_words / sizeof *hostile_words; ++i) {
    char *w = shell_word(hostile_words[i], CL_SHELL_POSIX);
    char *script = NULL;
    size_t n = strlen(w) + 256;
    assert_non_null(script = malloc(n));
    snprintf(script, n, "cd %s && printf '%%s' %s > out", dir, w);
    char path[64];
    snprintf(path, sizeof path, "%s/script", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(script, f);
    fclose(f);
    char command[128];
    snprintf(command, sizeof command, "/bin/sh %s/script", dir);
    assert_int_equal(system(command), 0);
    char out[256] = "";
    snprintf(path, sizeof path, "%s/out", dir);
    f = fopen(path, "rb");
    assert_non_null(f);
    size_t got = fread(out, 1, sizeof out - 1, f);
    fclose(f);
    out[got] = '\0';
    if (strcmp(out, hostile_words[i]) != 0)
      fail_msg("sh made %s of %s (written %s)", out, hostile_words[i], w);
    snprintf(path, sizeof path, "%s/PWNED", dir);
    if (fopen(path, "rb"))
      fail_msg("%s ran a command", w);
    free(script);
    free(w);
  }
  char command[128];
  snprintf(command, sizeof command, "rm -rf %s", dir);
  assert_int_equal(system(command), 0);
}

/* The fix names the pip of the interpreter whose site folder the scan
 * searched (its environment tier: the Python binding's own, VIRTUAL_ENV,
 * the python3 on PATH), which installs where the next scan looks: no
 * "then pass its site-packages folder as a root", and on Windows never a
 * bare "pip" (issue 27, item 2; issue 29, item 7). */
static char *fix_with_environment(int target, const char *environment,
                                  const char *spec) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  assert_int_equal(cudaload_set_target(ctx, target), CUDALOAD_OK);
  if (environment)
    assert_int_equal(cudaload_add_environment_root(ctx, environment),
                     CUDALOAD_OK);
  assert_int_equal(cudaload_require(ctx, spec), CUDALOAD_OK);
  assert_int_equal(cudaload_plan(ctx, 0), CUDALOAD_E_UNSATISFIED);
  char *e = strdup(cudaload_last_error());
  assert_non_null(e);
  cudaload_destroy(ctx);
  return e;
}

static void touch(const char *path) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("an interpreter", f);
  fclose(f);
}

static void the_environments_own_pip_is_named(void **state) {
  (void)state;
  char tmp[] = "/tmp/cudaload-fix-lines-XXXXXX";
  assert_non_null(mkdtemp(tmp));
  char path[512], site[512], want[2048];
  /* A Windows installation (or the embeddable one): python.exe beside
   * Lib\site-packages. */
  snprintf(path, sizeof path, "%s/win", tmp);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(site, sizeof site, "%s/win/Lib", tmp);
  assert_int_equal(mkdir(site, 0755), 0);
  snprintf(site, sizeof site, "%s/win/Lib/site-packages", tmp);
  assert_int_equal(mkdir(site, 0755), 0);
  snprintf(path, sizeof path, "%s/win/python.exe", tmp);
  touch(path);
  /* The embeddable distribution has no pip, and no py launcher is
   * installed: how to get pip for it, then its own (issue 45, item 4). */
  char *saved_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  char *e = fix_with_environment(CUDALOAD_TARGET_WINDOWS, site, "cufft=11");
  snprintf(want, sizeof want,
           "fix: curl.exe -sSLo get-pip.py "
           "https://bootstrap.pypa.io/get-pip.py; %s get-pip.py; this "
           "Python has no pip (the embeddable distribution has neither pip "
           "nor ensurepip): these give it one; %s -m pip install "
           "nvidia-cufft-cu12; or pass",
           path, path);
  has(e, want);
  lacks(e, "py -m pip");
  lacks(e, "pass its site-packages folder as a root");
  free(e);
  /* A py launcher on PATH: its pip, into this interpreter's folder. */
  char launcher[600];
  snprintf(launcher, sizeof launcher, "%s/launcher", tmp);
  assert_int_equal(mkdir(launcher, 0755), 0);
  snprintf(want, sizeof want, "%s/py.exe", launcher);
  touch(want);
  char with_launcher[4096];
  snprintf(with_launcher, sizeof with_launcher, "%s:%s", launcher,
           saved_path ? saved_path : "/usr/bin:/bin");
  assert_int_equal(setenv("PATH", with_launcher, 1), 0);
  e = fix_with_environment(CUDALOAD_TARGET_WINDOWS, site, "cufft=11");
  snprintf(want, sizeof want,
           "fix: py -m pip install --target %s nvidia-cufft-cu12; or pass",
           site);
  has(e, want);
  lacks(e, "get-pip");
  free(e);
  if (saved_path)
    assert_int_equal(setenv("PATH", saved_path, 1), 0);
  free(saved_path);
  /* An installation with pip: its own. */
  char pip[600];
  snprintf(pip, sizeof pip, "%s/pip", site);
  assert_int_equal(mkdir(pip, 0755), 0);
  e = fix_with_environment(CUDALOAD_TARGET_WINDOWS, site, "cufft=11");
  snprintf(want, sizeof want,
           "fix: %s -m pip install nvidia-cufft-cu12; or pass", path);
  has(e, want);
  lacks(e, "pass its site-packages folder as a root");
  free(e);
  /* An interpreter whose path must be quoted: PowerShell runs a quoted
   * first word only after "&", which cmd does not take: both lines. */
  static const char *const spaced[] = {"Program Files", "Program Files/Lib",
                                       "Program Files/Lib/site-packages",
                                       "Program Files/Lib/site-packages/pip"};
  for (size_t i = 0; i < sizeof spaced / sizeof *spaced; ++i) {
    snprintf(path, sizeof path, "%s/%s", tmp, spaced[i]);
    assert_int_equal(mkdir(path, 0755), 0);
  }
  snprintf(path, sizeof path, "%s/Program Files/python.exe", tmp);
  touch(path);
  snprintf(site, sizeof site, "%s/Program Files/Lib/site-packages", tmp);
  e = fix_with_environment(CUDALOAD_TARGET_WINDOWS, site, "cufft=11");
  snprintf(want, sizeof want,
           "fix: \"%s\" -m pip install nvidia-cufft-cu12; in PowerShell, put "
           "& before the command; or pass",
           path);
  has(e, want);
  free(e);
  /* A Linux venv: bin/python3.X beside lib/python3.X/site-packages. */
  static const char *const dirs[] = {"venv", "venv/bin", "venv/lib",
                                     "venv/lib/python3.12",
                                     "venv/lib/python3.12/site-packages"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; ++i) {
    snprintf(path, sizeof path, "%s/%s", tmp, dirs[i]);
    assert_int_equal(mkdir(path, 0755), 0);
  }
  snprintf(path, sizeof path, "%s/venv/bin/python3.12", tmp);
  touch(path);
  snprintf(site, sizeof site, "%s/venv/lib/python3.12/site-packages", tmp);
  e = fix_with_environment(CUDALOAD_TARGET_LINUX, site, "cufft=11");
  snprintf(want, sizeof want, "fix: %s -m pip install nvidia-cufft-cu12", path);
  has(e, want);
  lacks(e, "pass its site-packages folder as a root");
  free(e);
  /* No interpreter to name and no launcher: the program's Python, and the
   * root to pass; never a "py" that is not installed. */
  e = fix_with_environment(CUDALOAD_TARGET_WINDOWS, NULL, "cufft=11");
  has(e, "fix: python -m pip install nvidia-cufft-cu12; then pass its "
         "site-packages folder as a root");
  free(e);
  char command[600];
  snprintf(command, sizeof command, "rm -rf '%s'", tmp);
  assert_int_equal(system(command), 0);
}
#endif

typedef struct listed {
  size_t count;
  int cuda12[16]; /* per family of `families` */
} listed;

static const char *const families[] = {
    "cudart",   "cublas",   "nvrtc", "nvjitlink", "cufft", "curand",
    "cusparse", "cusolver", "cupti", "nccl",      "cudnn"};

/* Families NVIDIA publishes with -cuNN on CUDA 13 too (outside the
 * toolkit), and those not under nvidia- on the index. */
static int keeps_suffix(const char *family, const char *package) {
  return strcmp(family, "cudnn") == 0 || strcmp(family, "nccl") == 0 ||
         strncmp(package, "nvidia-", 7) != 0 || strstr(package, "mp-cu") ||
         strstr(package, "-libmathdx-") || strstr(package, "-cudss-") ||
         strstr(package, "-cusparselt-") || strstr(package, "-nvshmem-");
}

/* Catalog families no wheel ships (the driver's, cuDLA with JetPack, NVPL
 * with its own installers): no pip line, only the variable. */
static int has_no_wheel(const char *family) {
  return strcmp(family, "driver") == 0 || strcmp(family, "cudla") == 0 ||
         strcmp(family, "nvpl_fftw") == 0;
}

static void note(const char *family, int cuda_major, const char *package,
                 void *opaque) {
  listed *l = opaque;
  print_message("%-10s CUDA %d  %s\n", family, cuda_major, package);
  ++l->count;
  assert_true(cuda_major >= 11 && cuda_major <= 13);
  size_t n = strlen(package);
  char suffix[8];
  snprintf(suffix, sizeof suffix, "-cu%d", cuda_major);
  int suffixed = n > 5 && strcmp(package + n - 5, suffix) == 0;
  if (cuda_major < 13 || keeps_suffix(family, package)) {
    if (!suffixed)
      fail_msg("%s for CUDA %d: %s lacks %s", family, cuda_major, package,
               suffix);
  } else if (suffixed) {
    /* The toolkit's -cu13 names are placeholders on PyPI. */
    fail_msg("%s for CUDA 13: %s is a placeholder name", family, package);
  }
  for (size_t i = 0; i < sizeof families / sizeof *families; ++i)
    if (strcmp(families[i], family) == 0 && cuda_major == 12)
      l->cuda12[i] = 1;
}

/* Every family a requirement can name (the catalog's, less the driver,
 * which no wheel ships) has a CUDA 12 wheel, and the names follow each
 * CUDA major's convention. scripts/acceptance asks the index about each. */
static void every_family_has_a_wheel(void **state) {
  (void)state;
  listed l = {0};
  cl_fix_packages_each(note, &l);
  assert_true(l.count >= 30);
  for (size_t i = 0; i < sizeof families / sizeof *families; ++i)
    if (!l.cuda12[i])
      fail_msg("no CUDA 12 wheel for %s", families[i]);
  size_t n = 0;
  const cl_catalog_entry *entries = cl_catalog_entries(&n);
  for (size_t i = 0; i < n; ++i) {
    if (entries[i].role != CL_ROLE_MAIN || has_no_wheel(entries[i].family))
      continue;
    if (!cl_fix_package(entries[i].family, 12, CL_NAMING_LINUX) &&
        !cl_fix_package(entries[i].family, 13, CL_NAMING_LINUX))
      fail_msg("the catalog's %s has no wheel in lib/load/fix_lines.c",
               entries[i].family);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_family_has_a_wheel),
      cmocka_unit_test(posix_words_are_plain_or_single_quoted),
      cmocka_unit_test(windows_words_are_double_quoted_or_refused),
      cmocka_unit_test(windows_variables_are_quoted_for_cmd_and_powershell),
#ifndef _WIN32
      cmocka_unit_test(posix_words_mean_themselves_in_sh),
      cmocka_unit_test(cudnn8_beside_a_cudnn9_wheel_goes_to_its_own_folder),
      cmocka_unit_test(
          cudnn9_beside_the_same_distribution_goes_to_its_own_folder),
      cmocka_unit_test(cuda13_toolkit_wheels_have_no_suffix),
      cmocka_unit_test(cudart12_names_the_cu12_wheel),
      cmocka_unit_test(cudnn9_follows_the_environments_cuda_major),
      cmocka_unit_test(an_abi_major_the_environments_cuda_lacks_takes_cuda12),
      cmocka_unit_test(windows_wheels_are_recognised_too),
      cmocka_unit_test(the_environments_own_pip_is_named),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
