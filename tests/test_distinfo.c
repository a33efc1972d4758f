/* test_distinfo.c - wheel METADATA/RECORD and toolkit header parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "distinfo.h"
#include "toolkit_headers.h"

#include <stdlib.h>
#include <string.h>

static void metadata_gives_name_and_version(void **state) {
  (void)state;
  const char text[] = "Metadata-Version: 2.1\r\n"
                      "Name: nvidia-cudnn-cu12\r\n"
                      "Version:  8.9.7.29 \r\n"
                      "Summary: cuDNN runtime libraries\r\n"
                      "\r\n"
                      "Version: 1.0 (in the description, not a header)\n";
  char *name, *version;
  assert_int_equal(cl_metadata_parse(text, strlen(text), &name, &version), 0);
  assert_string_equal(name, "nvidia-cudnn-cu12");
  assert_string_equal(version, "8.9.7.29");
  free(name);
  free(version);
}

static void metadata_without_version_is_malformed(void **state) {
  (void)state;
  char *name, *version;
  const char *inputs[] = {"", "Name: x\n", "Version: 1\n",
                          "\nName: x\nVersion: 1\n", "Name:\nVersion:\n"};
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; ++i) {
    assert_int_not_equal(
        cl_metadata_parse(inputs[i], strlen(inputs[i]), &name, &version), 0);
    assert_null(name);
    assert_null(version);
  }
}

typedef struct seen {
  char paths[8][128];
  size_t count;
} seen;

static int remember(const char *path, size_t len, void *opaque) {
  seen *s = opaque;
  if (s->count < 8 && len < 128) {
    memcpy(s->paths[s->count], path, len);
    s->paths[s->count][len] = '\0';
    s->count++;
  }
  return 0;
}

static void record_lists_path_column(void **state) {
  (void)state;
  const char text[] = "nvidia/cudnn/lib/libcudnn.so.8,sha256=abc,123\n"
                      "\"nvidia/odd,name/lib.so\",sha256=def,4\r\n"
                      "nvidia_cudnn_cu12-8.9.7.29.dist-info/RECORD,,\n"
                      "\n"
                      "no-comma-line";
  seen s = {0};
  assert_int_equal(cl_record_parse(text, strlen(text), remember, &s), 0);
  assert_int_equal(s.count, 4);
  assert_string_equal(s.paths[0], "nvidia/cudnn/lib/libcudnn.so.8");
  assert_string_equal(s.paths[1], "nvidia/odd,name/lib.so");
  assert_string_equal(s.paths[2],
                      "nvidia_cudnn_cu12-8.9.7.29.dist-info/RECORD");
  assert_string_equal(s.paths[3], "no-comma-line");
}

static void record_with_unterminated_quote_is_survived(void **state) {
  (void)state;
  const char text[] = "\"nvidia/x/lib/libcudnn.so.8,sha256=1,2\n\"";
  seen s = {0};
  assert_int_equal(cl_record_parse(text, strlen(text), remember, &s), 0);
  assert_int_equal(s.count, 0);
}

static void header_defines_are_read(void **state) {
  (void)state;
  const char text[] = "#ifndef CUDNN_VERSION_H\n"
                      "#define CUDNN_MAJOR 9\n"
                      "  #  define CUDNN_MINOR_X 7\n"
                      "#define CUDNN_MINOR\t19\n"
                      "#define CUDNN_PATCHLEVEL 0\n"
                      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000)\n";
  assert_int_equal(cl_header_define(text, strlen(text), "CUDNN_MAJOR"), 9);
  assert_int_equal(cl_header_define(text, strlen(text), "CUDNN_MINOR"), 19);
  assert_int_equal(cl_header_define(text, strlen(text), "CUDNN_PATCHLEVEL"), 0);
  assert_int_equal(cl_header_define(text, strlen(text), "CUDNN_VERSION"), -1);
  assert_int_equal(cl_header_define(text, strlen(text), "CUDNN_MISSING"), -1);
  assert_int_equal(cl_header_define("#define CUDNN_MAJOR", 19, "CUDNN_MAJOR"),
                   -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(metadata_gives_name_and_version),
      cmocka_unit_test(metadata_without_version_is_malformed),
      cmocka_unit_test(record_lists_path_column),
      cmocka_unit_test(record_with_unterminated_quote_is_survived),
      cmocka_unit_test(header_defines_are_read),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
