/* SPDX-License-Identifier: MIT */
/* test_buf.c - the one growable text buffer (lib/common/buf.h): what is
 * appended comes back whole, and a lost allocation is reported (NULL from
 * cl_buf_take), never a silently shortened text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void appends_come_back_whole(void **state) {
  (void)state;
  cl_buf b = CL_BUF_INIT;
  cl_buf_puts(&b, "cuDNN ");
  cl_buf_printf(&b, "%d.%d", 9, 19);
  cl_buf_append(&b, " and more", 4);
  char *space = cl_buf_space(&b, 8);
  assert_non_null(space);
  memcpy(space, "!", 1);
  cl_buf_grow(&b, 1);
  char *text = cl_buf_take(&b);
  assert_string_equal(text, "cuDNN 9.19 and!");
  free(text);
  /* Taken: the buffer is empty again, and an empty one gives "". */
  assert_null(b.data);
  text = cl_buf_take(&b);
  assert_string_equal(text, "");
  free(text);
}

static void large_text_grows(void **state) {
  (void)state;
  cl_buf b = CL_BUF_INIT;
  for (int i = 0; i < 10000; ++i)
    cl_buf_printf(&b, "%05d\n", i);
  assert_int_equal(b.len, 60000);
  char *text = cl_buf_take(&b);
  assert_non_null(text);
  assert_memory_equal(text + 59994, "09999\n", 6);
  free(text);
}

static void a_lost_append_is_reported(void **state) {
  (void)state;
  cl_buf b = CL_BUF_INIT;
  cl_buf_puts(&b, "first part");
  b.failed = 1; /* what an append that ran out of memory leaves */
  cl_buf_puts(&b, " second part");
  assert_null(cl_buf_space(&b, 16));
  assert_null(cl_buf_take(&b)); /* not "first part": the text is incomplete */
  /* The buffer is usable again afterwards. */
  cl_buf_puts(&b, "again");
  char *text = cl_buf_take(&b);
  assert_string_equal(text, "again");
  free(text);
}

static void an_impossible_size_fails_without_writing(void **state) {
  (void)state;
  cl_buf b = CL_BUF_INIT;
  cl_buf_puts(&b, "x");
  assert_null(cl_buf_space(&b, (size_t)-1));
  assert_true(b.failed);
  cl_buf_free(&b);
  assert_null(b.data);
  assert_false(b.failed);
}

/* cl_strdup_printf() formats short results in a stack buffer once and
 * longer ones in a second pass: both come back whole, at every length
 * around the buffer's size (paths, reasons, long search lists). */
static void formatted_copies_come_back_whole(void **state) {
  (void)state;
  static const size_t lengths[] = {0, 1, 510, 511, 512, 513, 4096, 70000};
  for (size_t i = 0; i < sizeof lengths / sizeof *lengths; ++i) {
    size_t n = lengths[i];
    char *part = malloc(n + 1);
    assert_non_null(part);
    for (size_t k = 0; k < n; ++k)
      part[k] = (char)('a' + k % 26);
    part[n] = '\0';
    char *out = cl_strdup_printf("<%s|%zu>", part, n);
    assert_non_null(out);
    char tail[32];
    snprintf(tail, sizeof tail, "|%zu>", n);
    assert_int_equal(strlen(out), n + 2 + strlen(tail) - 1);
    assert_int_equal(out[0], '<');
    assert_memory_equal(out + 1, part, n);
    assert_string_equal(out + 1 + n, tail);
    free(out);
    free(part);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(appends_come_back_whole),
      cmocka_unit_test(large_text_grows),
      cmocka_unit_test(a_lost_append_is_reported),
      cmocka_unit_test(an_impossible_size_fails_without_writing),
      cmocka_unit_test(formatted_copies_come_back_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
