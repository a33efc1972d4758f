/* SPDX-License-Identifier: MIT */
/*
 * test_proc_maps.c - the /proc/PID/maps reader of `explain --pid`
 * (lib/posix/proc_maps.c): whole lines of any length, \012 read back as a
 * newline, the " (deleted)" mark, memory that is no file's, and lines no
 * kernel writes refused with a reason. The lines are the kernel's format
 * (fs/proc/task_mmu.c); the end-to-end cases (a real process mapping a
 * deleted file, a long path, a container) are in tests/cli/test_cli.py,
 * Hardening3.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "posix/proc_maps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "7f1234560000-7f1234570000 r-xp 00001000 fe:01 4242"
/* The kernel pads the path to column 73. */
#define PAD "                      "

static void parse(const char *line, cl_maps_entry *e) {
  assert_int_equal(cl_maps_parse_line(line, strlen(line), e), CUDALOAD_OK);
}

static void fields_and_path(void **state) {
  (void)state;
  cl_maps_entry e;
  parse(HEAD PAD "/usr/lib/libcudnn.so.9", &e);
  assert_true(e.start == 0x7f1234560000ull && e.end == 0x7f1234570000ull);
  assert_int_equal(e.dev_major, 0xfe);
  assert_int_equal(e.dev_minor, 1);
  assert_true(e.inode == 4242);
  assert_string_equal(e.path, "/usr/lib/libcudnn.so.9");
  assert_false(e.deleted_mark);
  cl_maps_entry_free(&e);
  /* A name with spaces is the rest of the line. */
  parse(HEAD PAD "/srv/my libs/libcublas.so.12", &e);
  assert_string_equal(e.path, "/srv/my libs/libcublas.so.12");
  cl_maps_entry_free(&e);
}

static void newline_and_deleted(void **state) {
  (void)state;
  cl_maps_entry e;
  parse(HEAD PAD "/srv/a\\012b/libcublas.so.12", &e);
  assert_string_equal(e.path, "/srv/a\nb/libcublas.so.12");
  cl_maps_entry_free(&e);
  parse(HEAD PAD "/srv/lib/libcudnn.so.9 (deleted)", &e);
  assert_string_equal(e.path, "/srv/lib/libcudnn.so.9");
  assert_true(e.deleted_mark);
  cl_maps_entry_free(&e);
}

static void memory_of_no_file(void **state) {
  (void)state;
  static const char *const lines[] = {
      "7f1234560000-7f1234570000 rw-p 00000000 00:00 0 ",
      "7f1234560000-7f1234570000 rw-p 00000000 00:00 0", HEAD PAD "[heap]",
      HEAD PAD "[vdso]", HEAD PAD "[anon:x]"};
  for (size_t i = 0; i < sizeof lines / sizeof *lines; ++i) {
    cl_maps_entry e;
    parse(lines[i], &e);
    assert_null(e.path);
  }
}

/* A line far longer than any buffer a reader might keep (fgets cut them at
 * 8 KiB, and the rest read as a line of its own). */
static int count_entries(cl_maps_entry *e, void *opaque) {
  char **last = opaque;
  free(*last);
  *last = e->path;
  e->path = NULL;
  return 0;
}

static void long_lines_are_read_whole(void **state) {
  (void)state;
  size_t n = 20000;
  char *text = malloc(n + 256);
  assert_non_null(text);
  int head = snprintf(text, 256, "%s%s/", HEAD, PAD);
  memset(text + head, 'd', n);
  strcpy(text + head + n, "/libcublas.so.12\n" HEAD PAD "/x/libcudnn.so.9\n");
  char *last = NULL;
  assert_int_equal(cl_maps_parse(text, strlen(text), count_entries, &last),
                   CUDALOAD_OK);
  assert_string_equal(last, "/x/libcudnn.so.9");
  free(last);
  /* The long line alone, its path whole. */
  cl_maps_entry e;
  const char *eol = strchr(text, '\n');
  assert_int_equal(cl_maps_parse_line(text, (size_t)(eol - text), &e),
                   CUDALOAD_OK);
  assert_int_equal(strlen(e.path), 1 + n + strlen("/libcublas.so.12"));
  cl_maps_entry_free(&e);
  free(text);
}

static void malformed_lines_say_why(void **state) {
  (void)state;
  static const struct {
    const char *line;
    const char *field;
  } bad[] = {{"", "address range"},
             {"7f00-7e00 r-xp 0 fe:01 1 /x", "address range"},
             {"zz-7f00 r-xp 0 fe:01 1 /x", "address range"},
             {"7f00-7f01 rwq? 0 fe:01 1 /x", "permissions"},
             {"7f00-7f01 r-xp zz fe:01 1 /x", "offset"},
             {"7f00-7f01 r-xp 0 fe01 1 /x", "device"},
             {"7f00-7f01 r-xp 0 fe:01 x /x", "inode"},
             {"7f00-7f01 r-xp 0 fe:01 1/x", "path"},
             {"11111111111111111-2 r-xp 0 fe:01 1 /x", "address range"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    cl_maps_entry e;
    assert_int_equal(cl_maps_parse_line(bad[i].line, strlen(bad[i].line), &e),
                     CUDALOAD_E_MALFORMED);
    if (!strstr(cudaload_last_error(), bad[i].field))
      fail_msg("%s: \"%s\" does not name %s", bad[i].line,
               cudaload_last_error(), bad[i].field);
  }
  /* A NUL byte: no kernel writes one. */
  static const char nul[] = "7f00-7f01 r-xp 0 fe:01 1 /a\0b";
  cl_maps_entry e;
  assert_int_equal(cl_maps_parse_line(nul, sizeof nul - 1, &e),
                   CUDALOAD_E_MALFORMED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fields_and_path),
      cmocka_unit_test(newline_and_deleted),
      cmocka_unit_test(memory_of_no_file),
      cmocka_unit_test(long_lines_are_read_whole),
      cmocka_unit_test(malformed_lines_say_why),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
