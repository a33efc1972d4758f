/* SPDX-License-Identifier: MIT */
/*
 * test_import_path.c - an interpreter's import path read from where it
 * lies (scan/import_path.h) and a module found on it as `import` finds it
 * (scan/python_module.h), on trees made here in the layout of each system
 * (Linux: bin/, lib/python3.X/site-packages; Windows: Scripts\,
 * Lib\site-packages, the user site under APPDATA\Python\Python3X), natively
 * and under Wine. The real interpreter is the oracle of the CLI tests
 * (tests/cli/test_cli.py, ImportPath); these hold the rules on both
 * systems.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/error.h"
#include "cudaload.h"
#include "scan/import_path.h"
#include "scan/python_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#define SEP "\\"
#define LIST_SEP ";"
static int make_dir(const char *path) {
  return _mkdir(path);
}
static void set_variable(const char *name, const char *value) {
  SetEnvironmentVariableA(name, value); /* NULL removes it */
}
#else
#include <sys/stat.h>
#include <unistd.h>
#define SEP "/"
#define LIST_SEP ":"
static int make_dir(const char *path) {
  return mkdir(path, 0755);
}
static void set_variable(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}
#endif

static char tree[512];

static int windows(void) {
  return SEP[0] == '\\';
}

/* tree + SEP + relative ('/' in relative becomes SEP), in a ring of
 * buffers. */
static const char *at(const char *relative) {
  static char slots[16][1024];
  static unsigned next;
  char *out = slots[next++ % 16];
  snprintf(out, sizeof slots[0], "%s%s%s", tree, *relative ? SEP : "",
           relative);
  for (char *p = out + strlen(tree); *p; ++p)
    if (*p == '/')
      *p = SEP[0];
  return out;
}

/* Every folder on the way to relative, made. */
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

static void file(const char *relative, const char *text) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s", relative);
  char *slash = strrchr(folder, '/');
  if (slash) {
    *slash = '\0';
    folders(folder);
  }
  FILE *f = fopen(at(relative), "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int make_tree(void **state) {
  (void)state;
#ifdef _WIN32
  char base[MAX_PATH];
  DWORD n = GetTempPathA(MAX_PATH, base);
  if (n == 0 || n >= MAX_PATH - 64)
    return -1;
  snprintf(tree, sizeof tree, "%scudaload-import-path-%lu-%lu", base,
           (unsigned long)GetCurrentProcessId(), (unsigned long)GetTickCount());
  if (make_dir(tree))
    return -1;
#else
  snprintf(tree, sizeof tree, "/tmp/cudaload-import-path-XXXXXX");
  if (!mkdtemp(tree))
    return -1;
#endif
  /* The variables the import path reads, as a test sets them. */
  set_variable("PYTHONPATH", NULL);
  set_variable("PYTHONNOUSERSITE", NULL);
  set_variable("PYTHONUSERBASE", at("userbase"));
  return 0;
}

static void remove_all(const char *path) {
#ifdef _WIN32
  char command[1200];
  snprintf(command, sizeof command, "rmdir /s /q \"%s\"", path);
  (void)system(command);
#else
  char command[1200];
  snprintf(command, sizeof command, "rm -rf '%s'", path);
  (void)system(command);
#endif
}

static int remove_tree(void **state) {
  (void)state;
  remove_all(tree);
  return 0;
}

/* A site folder of prefix (Linux: lib/python3.11/site-packages). */
static const char *site_of(const char *prefix) {
  static char out[4][256];
  static unsigned next;
  char *s = out[next++ % 4];
  snprintf(s, sizeof out[0], "%s/%s", prefix,
           windows() ? "Lib/site-packages" : "lib/python3.11/site-packages");
  return s;
}

/* The index of folder relative on the path, or -1. */
static int index_of(const cl_import_path *p, const char *relative) {
  const char *want = at(relative);
  for (size_t i = 0; i < p->count; ++i)
    if (!strcmp(p->folders[i].path, want))
      return (int)i;
  return -1;
}

/* A venv at venv/ over a base interpreter at base/ that holds the standard
 * library's landmark; the user site under userbase/. */
static const char *make_venv(const char *name, int system_site) {
  static char interpreter[128];
  char cfg[512], path[160];
  folders("base/bin");
  file(windows() ? "base/Lib/os.py" : "base/lib/python3.11/os.py", "");
  folders(site_of("base"));
  folders(windows() ? "userbase/Python311/site-packages"
                    : "userbase/lib/python3.11/site-packages");
  snprintf(path, sizeof path, "%s", site_of(name));
  folders(path);
  snprintf(cfg, sizeof cfg,
           "home = %s\ninclude-system-site-packages = %s\nversion = 3.11.7\n",
           at(windows() ? "base" : "base/bin"), system_site ? "true" : "false");
  snprintf(path, sizeof path, "%s/pyvenv.cfg", name);
  file(path, cfg);
  snprintf(interpreter, sizeof interpreter, "%s/%s", name,
           windows() ? "Scripts/python.exe" : "bin/python");
  file(interpreter, "");
  return at(interpreter);
}

static const char *user_site(void) {
  return windows() ? "userbase/Python311/site-packages"
                   : "userbase/lib/python3.11/site-packages";
}

/* PEP 405: a venv that includes system site packages imports from its own
 * site-packages, then the user site, then the base interpreter's, as
 * site.py orders them; one that does not, from its own alone. */
static void a_venv_sees_its_base_when_it_says_so(void **state) {
  (void)state;
  cl_import_path p;
  cl_import_path_of_interpreter(make_venv("venv", 1), &p);
  assert_false(p.failed);
  assert_true(p.system_site);
  assert_string_equal(p.python_version, "3.11.7");
  int own = index_of(&p, site_of("venv")), user = index_of(&p, user_site()),
      base = index_of(&p, site_of("base"));
  assert_true(own == 0 && user == 1 && base == 2);
  assert_string_equal(p.folders[own].origin, CL_IMPORT_VENV_SITE);
  assert_string_equal(p.folders[user].origin, CL_IMPORT_USER_SITE);
  assert_string_equal(p.folders[base].origin, CL_IMPORT_BASE_SITE);
  cl_import_path_free(&p);

  cl_import_path_of_interpreter(make_venv("closed", 0), &p);
  assert_int_equal(p.count, 1);
  assert_int_equal(index_of(&p, site_of("closed")), 0);
  cl_import_path_free(&p);

  /* PYTHONNOUSERSITE turns the user site off. */
  set_variable("PYTHONNOUSERSITE", "1");
  cl_import_path_of_interpreter(make_venv("venv", 1), &p);
  assert_int_equal(index_of(&p, user_site()), -1);
  assert_int_not_equal(index_of(&p, site_of("base")), -1);
  cl_import_path_free(&p);
  set_variable("PYTHONNOUSERSITE", NULL);
}

/* PYTHONPATH's absolute folders come first; a relative one, the program's
 * current folder's, is never searched. */
static void pythonpath_comes_first(void **state) {
  (void)state;
  folders("pp");
  char value[600];
  snprintf(value, sizeof value, "%s%srelative%s", at("pp"), LIST_SEP, LIST_SEP);
  set_variable("PYTHONPATH", value);
  cl_import_path p;
  cl_import_path_of_interpreter(make_venv("venv", 0), &p);
  assert_int_equal(index_of(&p, "pp"), 0);
  assert_string_equal(p.folders[0].origin, CL_IMPORT_PYTHONPATH);
  assert_int_equal(p.count, 2);
  cl_import_path_free(&p);
  set_variable("PYTHONPATH", NULL);
}

/* A site folder's .pth files, in name order: a folder line is followed
 * (relative to the site folder, or absolute), a comment is not, a line
 * that runs code is counted and never run. */
static void pth_folders_are_followed_never_run(void **state) {
  (void)state;
  const char *interpreter = make_venv("pthvenv", 0);
  folders("pthvenv/extra-b");
  folders("pthvenv/extra-a");
  char text[1024], path[256];
  snprintf(text, sizeof text, "# a comment\n\nimport os; os.system('x')\n%s\n",
           at("pthvenv/extra-a"));
  snprintf(path, sizeof path, "%s/b.pth", site_of("pthvenv"));
  file(path, text);
  snprintf(path, sizeof path, "%s/a.pth", site_of("pthvenv"));
  file(path, windows() ? "..\\..\\extra-b\r\n" : "../../../extra-b\n");
  cl_import_path p;
  cl_import_path_of_interpreter(interpreter, &p);
  assert_int_equal(p.count, 3);
  assert_int_equal(index_of(&p, site_of("pthvenv")), 0);
  assert_int_equal(index_of(&p, "pthvenv/extra-b"), 1); /* a.pth first */
  assert_int_equal(index_of(&p, "pthvenv/extra-a"), 2);
  assert_string_equal(p.folders[2].origin, CL_IMPORT_PTH);
  assert_non_null(strstr(p.folders[2].pth, "b.pth"));
  assert_int_equal(p.pth_code_lines, 1);
  cl_import_path_free(&p);
}

/* A Windows CPython with a ._pth file beside it (the embeddable
 * distribution) imports from what the file lists, each line up to its
 * '#', relative to its folder, and nothing from PYTHONPATH; its
 * Lib\site-packages only with "import site", after the user site (which
 * CPython before 3.15 adds even then: python/cpython#120037, whatever
 * PYTHONNOUSERSITE says). The file named after the DLL beside it wins over
 * the program's own. Elsewhere a ._pth is nothing to CPython. */
static void a_pth_file_is_the_whole_import_path(void **state) {
  (void)state;
  folders("pp");
  set_variable("PYTHONPATH", at("pp"));
  file("embedded/python.exe", "");
  file("embedded/python312.dll", "");
  folders("embedded/packages");
  folders("embedded/Lib/site-packages");
  folders("embedded/extra");
  folders("userbase/Python312/site-packages");
  file("embedded/Lib/site-packages/extra.pth", "..\\..\\extra\n");
  file("embedded/python._pth", "Lib\\site-packages\n");
  file("embedded/python312._pth",
       "python312.zip\r\n.\r\npackages  # ours\r\nimport os\r\n\r\n"
       "# Uncomment to run site.main() automatically\r\n#import site\r\n");
  cl_import_path p;
  cl_import_path_of_interpreter(at("embedded/python.exe"), &p);
  assert_false(p.failed);
  if (!windows()) {
    /* A Linux interpreter's path does not come from a ._pth. */
    assert_int_equal(index_of(&p, "embedded/packages"), -1);
    cl_import_path_free(&p);
    set_variable("PYTHONPATH", NULL);
    return;
  }
  assert_int_equal(p.count, 2);
  assert_int_equal(index_of(&p, "embedded"), 0);
  assert_int_equal(index_of(&p, "embedded/packages"), 1);
  assert_string_equal(p.folders[1].origin, CL_IMPORT_PTH_FILE);
  assert_non_null(strstr(p.folders[1].pth, "python312._pth"));
  assert_string_equal(p.python_version, "3.12");
  cl_import_path_free(&p);

  /* "import site": site's folders after the file's, with their .pth. */
  set_variable("PYTHONNOUSERSITE", "1");
  file("embedded/python312._pth", "python312.zip\n.\npackages\nimport site\n");
  cl_import_path_of_interpreter(at("embedded/python.exe"), &p);
  assert_false(p.failed);
  assert_int_equal(index_of(&p, "pp"), -1);
  assert_int_equal(index_of(&p, "embedded"), 0);
  assert_int_equal(index_of(&p, "embedded/packages"), 1);
  assert_int_equal(index_of(&p, "userbase/Python312/site-packages"), 2);
  assert_int_equal(index_of(&p, "embedded/Lib/site-packages"), 3);
  assert_int_equal(index_of(&p, "embedded/extra"), 4);
  assert_int_equal(p.count, 5);
  cl_import_path_free(&p);
  set_variable("PYTHONNOUSERSITE", NULL);

  /* No DLL named like it: the program's own ._pth, which names no
   * version, so no user site can be named. */
  file("own/python.exe", "");
  folders("own/Lib/site-packages");
  file("own/python._pth", "Lib\\site-packages\nimport site\n");
  cl_import_path_of_interpreter(at("own/python.exe"), &p);
  assert_int_equal(index_of(&p, "own/Lib/site-packages"), 0);
  assert_int_equal(index_of(&p, "own"), 1);
  assert_int_equal(p.count, 2);
  assert_string_equal(p.python_version, "");
  cl_import_path_free(&p);
  set_variable("PYTHONPATH", NULL);
}

/* import takes the first folder that holds the name: a package or a
 * module before a namespace package of an earlier folder; its
 * distribution is the dist-info beside it whose RECORD lists it. */
static void a_module_is_found_as_import_finds_it(void **state) {
  (void)state;
  folders("first/mod"); /* a namespace package */
  file("second/mod/__init__.py", "");
  file("second/mod-1.0.dist-info/RECORD", "mod/__init__.py,,\n");
  file("second/other-1.0.dist-info/RECORD", "other/__init__.py,,\n");
  file("third/mod.py", "");
  char value[600];
  snprintf(value, sizeof value, "%s%s%s%s%s", at("first"), LIST_SEP,
           at("second"), LIST_SEP, at("third"));
  set_variable("PYTHONPATH", value);
  cl_import_path p;
  cl_import_path_of_roots(NULL, 0, 1, &p);
  set_variable("PYTHONPATH", NULL);
  assert_int_equal(p.count, 3);
  cl_module_found m;
  cl_record_texts records = {0};
  assert_int_equal(cl_python_module_find(&p, "mod", &records, &m), 1);
  assert_int_equal(m.folder, 1);
  assert_false(m.namespace_package);
  assert_int_equal(m.provider_count, 1);
  assert_string_equal(m.providers[0], "mod-1.0.dist-info");
  cl_module_found_free(&m);
  assert_int_equal(cl_python_module_find(&p, "absent", &records, &m), 0);
  assert_int_equal(cl_python_module_find(&p, "no-module", &records, &m), 0);
  cl_record_texts_free(&records);
  cl_import_path_free(&p);
}

/* A RECORD or an interpreter's real file that cannot be read (a folder in
 * the file's place, a program that is not there) is what import makes of
 * it: nothing. The lookups take that "no" as
 * an answer and write no last error; the caller's stands (issue 42, item
 * 5). */
static void unreadable_files_are_answers(void **state) {
  (void)state;
  const char *interpreter = make_venv("quietvenv", 0);
  char path[256];
  snprintf(path, sizeof path, "%s/quietmod/__init__.py", site_of("quietvenv"));
  file(path, "");
  snprintf(path, sizeof path, "%s/quietmod-1.0.dist-info/RECORD",
           site_of("quietvenv"));
  folders(path);
  cl_fail(CUDALOAD_E_IO, "the caller's own error");
  cl_import_path p;
  cl_import_path_of_interpreter(interpreter, &p);
  assert_false(p.failed);
  assert_int_equal(index_of(&p, site_of("quietvenv")), 0);
  cl_module_found m;
  cl_record_texts records = {0};
  assert_int_equal(cl_python_module_find(&p, "quietmod", &records, &m), 1);
  cl_module_found_free(&m);
  cl_record_texts_free(&records);
  cl_import_path_free(&p);
  cl_import_path_of_interpreter(at("nowhere/bin/python3.11"), &p);
  cl_import_path_free(&p);
  assert_string_equal(cudaload_last_error(), "the caller's own error");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_venv_sees_its_base_when_it_says_so),
      cmocka_unit_test(pythonpath_comes_first),
      cmocka_unit_test(pth_folders_are_followed_never_run),
      cmocka_unit_test(a_pth_file_is_the_whole_import_path),
      cmocka_unit_test(a_module_is_found_as_import_finds_it),
      cmocka_unit_test(unreadable_files_are_answers),
  };
  return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
