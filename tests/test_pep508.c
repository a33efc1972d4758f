/* SPDX-License-Identifier: MIT */
/*
 * test_pep508.c - PEP 440 versions and specifier sets (scan/pep440.h) and
 * PEP 508 environment markers (scan/pep508.h), as Requires-Dist pins of
 * NVIDIA's wheels write them: TensorFlow's upper bound first, torch's
 * parenthesised "(==9.1.0.70)" and "platform_system == 'Linux' and
 * platform_machine == 'x86_64'", onnxruntime's extras.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scan/pep440.h"
#include "scan/pep508.h"

#include <stdio.h>
#include <string.h>

static cl_pep440_version version(const char *text) {
  cl_pep440_version v;
  if (!cl_pep440_parse(text, strlen(text), &v))
    fail_msg("\"%s\" was not read as a version", text);
  return v;
}

static int order(const char *a, const char *b) {
  cl_pep440_version x = version(a), y = version(b);
  return cl_pep440_compare(&x, &y);
}

static cl_pep440_specifier specifier(const char *text) {
  cl_pep440_specifier s;
  if (!cl_pep440_specifier_parse(text, strlen(text), &s))
    fail_msg("\"%s\" was not read as a specifier set", text);
  return s;
}

static int holds(const char *spec, const char *candidate) {
  cl_pep440_specifier s = specifier(spec);
  cl_pep440_version v = version(candidate);
  return cl_pep440_contains(&s, &v);
}

static int admits(const char *spec, long major) {
  cl_pep440_specifier s = specifier(spec);
  return cl_pep440_admits_major(&s, major);
}

/* The least version in major as text ("11.6.1.9"), "" for none. */
static const char *least(const char *spec, long major) {
  static char out[64];
  cl_pep440_specifier s = specifier(spec);
  cl_pep440_version v;
  out[0] = '\0';
  if (cl_pep440_least_in_major(&s, major, &v)) {
    size_t n = 0;
    for (int i = 0; i < v.release_count; ++i)
      n += (size_t)snprintf(out + n, sizeof out - n, "%s%ld", i ? "." : "",
                            v.release[i]);
  }
  return out;
}

static void versions_are_read_as_pep_440_spells_them(void **state) {
  (void)state;
  assert_int_equal(order("1.0", "1.0.0"), 0);
  assert_int_equal(order("1.0RC1", "1.0rc1"), 0);
  assert_int_equal(order("1.0c1", "1.0-rc.1"), 0);
  assert_int_equal(order("1.0-1", "1.0.post1"), 0);
  assert_int_equal(order("1.0-r1", "1.0.rev1"), 0);
  assert_int_equal(order("1.0.dev", "1.0.dev0"), 0);
  assert_int_equal(order("1.0a", "1.0alpha0"), 0);
  assert_int_equal(order(" v2.5.1+CU124 ", "2.5.1+cu124"), 0);
  cl_pep440_version v = version("1!2.5.1rc2.post3.dev4+ubuntu-1");
  assert_int_equal(v.epoch, 1);
  assert_int_equal(v.release_count, 3);
  assert_int_equal(v.pre_kind, 3);
  assert_int_equal(v.pre, 2);
  assert_int_equal(v.post, 3);
  assert_int_equal(v.dev, 4);
  assert_string_equal(v.local, "ubuntu.1");
  const char *bad[] = {"",         "abc",        "1.0+",
                       "1..0",     "1.0 2",      "1.0-",
                       "+cu1",     "1234567890", "1.2.3.4.5.6.7.8.9.10.11",
                       "1.0+a..b", "1.0x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    cl_pep440_version w;
    if (cl_pep440_parse(bad[i], strlen(bad[i]), &w))
      fail_msg("\"%s\" was read as a version", bad[i]);
  }
}

static void versions_sort_as_pep_440_orders_them(void **state) {
  (void)state;
  const char *ascending[] = {
      "1.0.dev0",       "1.0a1.dev1", "1.0a1",    "1.0a1.post1", "1.0b1",
      "1.0rc1",         "1.0",        "1.0+abc",  "1.0+1",       "1.0+1.a",
      "1.0.post1.dev1", "1.0.post1",  "1.1.dev0", "1.1",         "9.9",
      "9.10",           "1!0.1"};
  size_t n = sizeof ascending / sizeof *ascending;
  for (size_t i = 0; i + 1 < n; ++i)
    if (order(ascending[i], ascending[i + 1]) >= 0)
      fail_msg("\"%s\" does not sort before \"%s\"", ascending[i],
               ascending[i + 1]);
}

/* TensorFlow 2.21's pins, upper bound first: the major and the least
 * version follow from both clauses, in either order. */
static void a_set_is_read_in_any_order(void **state) {
  (void)state;
  for (int i = 0; i < 2; ++i) {
    const char *spec = i ? ">=11.6.1.9,<12.0" : "<12.0,>=11.6.1.9";
    assert_true(admits(spec, 11));
    assert_false(admits(spec, 12));
    assert_false(admits(spec, 10));
    assert_string_equal(least(spec, 11), "11.6.1.9");
    assert_true(holds(spec, "11.7.5.82"));
    assert_false(holds(spec, "12.0.0"));
    assert_false(holds(spec, "12.0rc1")); /* < admits no pre-release of it */
    assert_false(holds(spec, "11.6.0"));
  }
  assert_true(admits(" < 10.0 , >= 9.3.0.75 ", 9));
  assert_string_equal(least("<10.0,>=9.3.0.75", 9), "9.3.0.75");
  /* A range over two majors admits both; a least version only where the
   * bound lies. */
  assert_true(admits(">=8.9,<10", 8));
  assert_true(admits(">=8.9,<10", 9));
  assert_string_equal(least(">=8.9,<10", 8), "8.9");
  assert_string_equal(least(">=8.9,<10", 9), "");
  /* No lower bound: no least version. */
  assert_true(admits("<13", 12));
  assert_string_equal(least("<13", 12), "");
  assert_true(admits("", 2));
}

static void each_operator_means_what_pep_440_says(void **state) {
  (void)state;
  /* ~= */
  assert_true(admits("~=9.0", 9));
  assert_false(admits("~=9.0", 10));
  assert_string_equal(least("~=9.0", 9), "9.0");
  assert_true(holds("~=9.1.0", "9.1.5"));
  assert_false(holds("~=9.1.0", "9.2"));
  assert_true(holds("~=11.0", "11.7"));
  assert_false(holds("~=11.0", "12.0"));
  /* == and wildcards; a local label */
  assert_string_equal(least("==9.1.0.70", 9), "9.1.0.70");
  assert_true(holds("==9.1.0.70", "9.1.0.70"));
  assert_true(holds("==2.5.1", "2.5.1+cu124"));
  assert_false(holds("==2.5.1+cu124", "2.5.1"));
  assert_true(holds("==12.*", "12.4.127"));
  assert_false(holds("==12.*", "13.0"));
  assert_true(admits("==12.*", 12));
  assert_false(admits("==12.*", 13));
  /* === */
  assert_true(admits("===9.1.0.70", 9));
  assert_true(holds("===9.1.0.70", "9.1.0.70"));
  /* != */
  assert_true(holds("!=2.19.*", "2.18.3"));
  assert_false(holds("!=2.19.*", "2.19.1"));
  assert_true(admits("!=2.19.*", 2));
  assert_false(admits("!=9.*,>=8.9", 9));
  assert_true(admits("!=9.*,>=8.9", 8));
  assert_false(admits("==9.1,!=9.1", 9));
  /* < and > */
  assert_false(holds(">2.19", "2.19.post1"));
  assert_true(holds(">2.19", "2.19.1"));
  assert_true(holds("<=2.19", "2.19"));
  assert_false(holds("<2.19", "2.19"));
  const char *bad[] = {"~=9",     ">=",      "=>9",      ">=9.0+local",
                       "==9.*.1", "9.0",     ">=9,,<10", ">=9,",
                       "=== a b", "~=9.0.*", "<9.*"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    cl_pep440_specifier s;
    if (cl_pep440_specifier_parse(bad[i], strlen(bad[i]), &s))
      fail_msg("\"%s\" was read as a specifier set", bad[i]);
  }
}

static cl_marker_env linux_env(const char *machine, const char *python) {
  cl_marker_env env;
  cl_marker_env_for(&env, CL_NAMING_LINUX, machine, python);
  return env;
}

static cl_marker_value eval(const char *marker, const cl_marker_env *env,
                            const char *extras) {
  return cl_marker_evaluate(marker, strlen(marker), env, extras);
}

/* Issue 43, item 8: substrings dropped a true marker and kept a false
 * one. */
static void markers_are_evaluated_not_matched(void **state) {
  (void)state;
  cl_marker_env env = linux_env("x86_64", "3.11.7");
  assert_int_equal(
      eval("sys_platform == \"win32\" or platform_system == \"Linux\"", &env,
           NULL),
      CL_MARKER_TRUE);
  assert_int_equal(eval("platform_system != \"Linux\"", &env, NULL),
                   CL_MARKER_FALSE);
  assert_int_equal(eval("platform_system == 'Linux' and platform_machine == "
                        "'x86_64'",
                        &env, NULL),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("(sys_platform == \"linux\" or sys_platform == "
                        "\"darwin\") and python_version >= \"3.9\"",
                        &env, NULL),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("sys_platform == \"linux\" or sys_platform == "
                        "\"darwin\" and python_version >= \"3.12\"",
                        &env, NULL),
                   CL_MARKER_TRUE); /* "and" binds first */
  assert_int_equal(eval("(sys_platform == \"linux\" or sys_platform == "
                        "\"darwin\") and python_version >= \"3.12\"",
                        &env, NULL),
                   CL_MARKER_FALSE);
  /* As versions, not as strings ("3.11" < "3.9" as text). */
  assert_int_equal(eval("python_version > \"3.9\"", &env, NULL),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("python_full_version >= '3.11.2'", &env, NULL),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("python_full_version < '3.11.2'", &env, NULL),
                   CL_MARKER_FALSE);
  assert_int_equal(eval("\"linux\" in sys_platform", &env, NULL),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("'x86' not in platform_machine", &env, NULL),
                   CL_MARKER_FALSE);
  assert_int_equal(eval("os.name == 'posix'", &env, NULL), CL_MARKER_TRUE);
  assert_int_equal(eval("", &env, NULL), CL_MARKER_TRUE);
}

/* The target's platform, not this host's. */
static void markers_are_evaluated_for_the_target(void **state) {
  (void)state;
  const char *torch = "platform_system == \"Linux\" and platform_machine == "
                      "\"x86_64\"";
  cl_marker_env arm = linux_env("aarch64", "3.11");
  assert_int_equal(eval(torch, &arm, NULL), CL_MARKER_FALSE);
  assert_int_equal(eval("platform_machine == \"aarch64\"", &arm, NULL),
                   CL_MARKER_TRUE);
  cl_marker_env win;
  cl_marker_env_for(&win, CL_NAMING_WINDOWS, "x86_64", "3.12.1");
  assert_int_equal(eval(torch, &win, NULL), CL_MARKER_FALSE);
  assert_int_equal(eval("platform_system == 'Windows' and platform_machine "
                        "== 'AMD64' and sys_platform == 'win32'",
                        &win, NULL),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("python_version == '3.12'", &win, NULL),
                   CL_MARKER_TRUE);
}

/* What no file tells is unknown, and says so unless the rest decides. */
static void an_unknown_variable_is_unknown(void **state) {
  (void)state;
  cl_marker_env env = linux_env("x86_64", NULL);
  assert_int_equal(eval("python_version >= \"3.9\"", &env, NULL),
                   CL_MARKER_UNKNOWN);
  assert_int_equal(
      eval("platform_system == \"Windows\" and python_version >= \"3.9\"", &env,
           NULL),
      CL_MARKER_FALSE);
  assert_int_equal(
      eval("platform_system == \"Linux\" or python_version >= \"3.9\"", &env,
           NULL),
      CL_MARKER_TRUE);
  assert_int_equal(eval("platform_release >= '5.0'", &env, NULL),
                   CL_MARKER_UNKNOWN);
}

static void extras_hold_for_those_asked(void **state) {
  (void)state;
  cl_marker_env env = linux_env("x86_64", "3.11");
  /* A program's own pins: every extra counts. */
  assert_int_equal(eval("extra == \"and-cuda\"", &env, NULL), CL_MARKER_TRUE);
  assert_int_equal(
      eval("extra == 'cudnn' and platform_system == 'Windows'", &env, NULL),
      CL_MARKER_FALSE);
  /* A meta-distribution's: the extras the requirer asked. */
  assert_int_equal(eval("extra == \"and-cuda\"", &env, "cublas,cudart"),
                   CL_MARKER_FALSE);
  assert_int_equal(eval("extra == \"cudart\"", &env, "cublas, cudart"),
                   CL_MARKER_TRUE);
  assert_int_equal(eval("extra == 'and_cuda'", &env, "And.Cuda"),
                   CL_MARKER_TRUE); /* PEP 685 names */
  assert_int_equal(eval("extra != 'cpu'", &env, ""), CL_MARKER_TRUE);
}

static void what_is_no_marker_is_malformed(void **state) {
  (void)state;
  cl_marker_env env = linux_env("x86_64", "3.11");
  const char *bad[] = {"platform_system = \"Linux\"",
                       "foo == \"x\"",
                       "platform_system == \"Linux\" and",
                       "(platform_system == \"Linux\"",
                       "platform_system == \"Linux",
                       "platform_system == \"Linux\")",
                       "platform_system \"Linux\"",
                       "platform_system not \"Linux\"",
                       "and",
                       "platform_system == \"Linux\" \x01"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i)
    if (eval(bad[i], &env, NULL) != CL_MARKER_MALFORMED)
      fail_msg("\"%s\" was read as a marker", bad[i]);
  char deep[200] = "";
  for (int i = 0; i < 40; ++i)
    strcat(deep, "(");
  strcat(deep, "os_name == 'posix'");
  for (int i = 0; i < 40; ++i)
    strcat(deep, ")");
  assert_int_equal(eval(deep, &env, NULL), CL_MARKER_MALFORMED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(versions_are_read_as_pep_440_spells_them),
      cmocka_unit_test(versions_sort_as_pep_440_orders_them),
      cmocka_unit_test(a_set_is_read_in_any_order),
      cmocka_unit_test(each_operator_means_what_pep_440_says),
      cmocka_unit_test(markers_are_evaluated_not_matched),
      cmocka_unit_test(markers_are_evaluated_for_the_target),
      cmocka_unit_test(an_unknown_variable_is_unknown),
      cmocka_unit_test(extras_hold_for_those_asked),
      cmocka_unit_test(what_is_no_marker_is_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
