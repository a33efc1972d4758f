/* SPDX-License-Identifier: MIT */
/* test_distinfo.c - wheel dist-info folder names, METADATA/RECORD and
 * toolkit header parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/error.h"
#include "cudaload.h"
#include "scan/distinfo.h"
#include "scan/toolkit_headers.h"

#include <stdio.h>
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

/* A dist-info folder's name gives the distribution's name and version
 * (the wheel spec's {name}-{version}.dist-info); names that do not give
 * both leave it to METADATA. */
static void folder_name_gives_name_and_version(void **state) {
  (void)state;
  static const struct {
    const char *folder, *name, *version; /* NULL: not told */
  } cases[] = {
      {"nvidia_cudnn_cu12-8.9.7.29.dist-info", "nvidia_cudnn_cu12", "8.9.7.29"},
      {"nvidia_cublas-13.1.0.3.dist-info", "nvidia_cublas", "13.1.0.3"},
      {"nvidia_nccl_cu13-2.28.9.dist-info", "nvidia_nccl_cu13", "2.28.9"},
      {"nvidia_x-1.0rc1.dist-info", "nvidia_x", "1.0rc1"},
      {"nvidia_cudnn_cu12.dist-info", NULL, NULL},      /* no '-' */
      {"-8.9.7.29.dist-info", NULL, NULL},              /* no name */
      {"nvidia_cudnn_cu12-.dist-info", NULL, NULL},     /* no version */
      {"nvidia_cudnn_cu12-v8.9.dist-info", NULL, NULL}, /* not a digit */
      {"nvidia-cudnn-cu12-8.9.dist-info", NULL, NULL},  /* two '-' */
      {"nvidia_cudnn_cu12-8.9.7.29", NULL, NULL},       /* no suffix */
      {"nvidia_cudnn_cu12-8.9.7.29.egg-info", NULL, NULL},
      {".dist-info", NULL, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *name = (char *)1, *version = (char *)1;
    int told = cl_distinfo_folder_name_parse(cases[i].folder, &name, &version);
    if (cases[i].name == NULL) {
      if (told || name || version)
        fail_msg("%s: told a name and version", cases[i].folder);
      continue;
    }
    if (!told || strcmp(name, cases[i].name) != 0 ||
        strcmp(version, cases[i].version) != 0)
      fail_msg("%s: expected %s %s, got %s %s", cases[i].folder, cases[i].name,
               cases[i].version, name ? name : "-", version ? version : "-");
    free(name);
    free(version);
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

#ifndef _WIN32
static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    fail_msg("cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* A dist-info "nvidia_<name>-<version>.dist-info" in folder whose RECORD
 * lists 2,000 cuBLAS files of package <name>, then the extra lines. */
static void write_distinfo(const char *folder, const char *name,
                           const char *version, const char *extra) {
  char path[512], text[256];
  snprintf(path, sizeof path, "%s/nvidia_%s-%s.dist-info", folder, name,
           version);
  char command[600];
  snprintf(command, sizeof command, "mkdir -p '%s'", path);
  assert_int_equal(system(command), 0);
  snprintf(text, sizeof text,
           "Metadata-Version: 2.1\nName: nvidia-%s\n"
           "Version: %s\n\n",
           name, version);
  snprintf(path + strlen(path), sizeof path - strlen(path), "/METADATA");
  write_text(path, text);
  strcpy(path + strlen(path) - strlen("METADATA"), "RECORD");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (int i = 0; i < 2000; i++)
    fprintf(f, "nvidia/%s/lib/libcublas.so.12.%d.0,sha256=x,1\n", name, i);
  fputs(extra, f);
  fclose(f);
}

/* Lookups in a big index give what reading the files in order gave: the
 * first dist-info (in name order) that lists the file, the first line of
 * its RECORD; nothing for a file no RECORD lists. */
static void lookups_in_a_big_index(void **state) {
  (void)state;
  const char *folder = "test_distinfo-index";
  assert_int_equal(system("rm -rf test_distinfo-index && "
                          "mkdir test_distinfo-index"),
                   0);
  write_distinfo(folder, "a", "1.0",
                 "nvidia/shared/lib/libcudart.so.12,,\n"
                 "nvidia/a/lib/libnvrtc.so.12,,\n");
  write_distinfo(folder, "b", "2.0",
                 "nvidia/a/lib/libcublas.so.12.5.0,,\n"
                 "nvidia/shared/lib/libcudart.so.12,,\n"
                 "nvidia/b/lib/libnvrtc.so.12,,\n"
                 "nvidia/b/lib/libcublasLt.so.12,,\n");
  cl_distinfo_index index;
  assert_int_equal(cl_distinfo_load(folder, &index), 0);
  assert_int_equal(index.distribution_count, 2);
  /* The RECORDs wait for the first lookup that needs them. */
  assert_int_equal(index.file_count, 0);
  static const struct {
    const char *key;
    int by_name;
    const char *version; /* NULL: not found */
  } cases[] = {
      {"nvidia/a/lib/libcublas.so.12.5.0", 0, "1.0"},
      {"nvidia/a/lib/libcublas.so.12.1999.0", 0, "1.0"},
      {"nvidia/b/lib/libcublas.so.12.0.0", 0, "2.0"},
      {"nvidia/b/lib/libcublas.so.12.7.0", 0, "2.0"},
      {"nvidia/shared/lib/libcudart.so.12", 0, "1.0"},
      {"nvidia/b/lib/libcublasLt.so.12", 0, "2.0"},
      {"nvidia/c/lib/libcublas.so.12.0.0", 0, NULL},
      {"nvidia/a/lib/libcublas.so.12.2000.0", 0, NULL},
      {"nvidia/a/lib", 0, NULL},
      {"", 0, NULL},
      {"libcublas.so.12.9.0", 1, "1.0"},
      {"libcudart.so.12", 1, "1.0"},
      {"libnvrtc.so.12", 1, "1.0"},
      {"libcublasLt.so.12", 1, "2.0"},
      {"libcublas.so.12.2000.0", 1, NULL},
      {"nvidia/a/lib/libcublas.so.12.5.0", 1, NULL},
      {"libcublas.so.12", 1, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const cl_distribution *d = cases[i].by_name
                                   ? cl_distinfo_by_name(&index, cases[i].key)
                                   : cl_distinfo_by_path(&index, cases[i].key);
    if (cases[i].version == NULL
            ? d != NULL
            : d == NULL || strcmp(d->version, cases[i].version))
      fail_msg("%s %s: expected %s, got %s",
               cases[i].by_name ? "by name" : "by path", cases[i].key,
               cases[i].version ? cases[i].version : "nothing",
               d ? d->version : "nothing");
  }
  assert_int_equal(index.file_count, 4006);
  cl_distinfo_free(&index);
  assert_int_equal(system("rm -rf test_distinfo-index"), 0);
}

/* The wheel table names the one distribution that ships a library; where
 * two could, or none, it names none (RECORD decides). The version is the
 * folder's name, whatever METADATA holds, and no RECORD is read. */
static void owner_by_the_wheel_table(void **state) {
  (void)state;
  const char *folder = "test_distinfo-wheels";
  assert_int_equal(system("rm -rf test_distinfo-wheels && "
                          "mkdir test_distinfo-wheels && cd "
                          "test_distinfo-wheels && "
                          "mkdir nvidia_cudnn_cu12-9.1.0.70.dist-info "
                          "nvidia_cublas_cu12-12.4.5.8.dist-info "
                          "nvidia_cuda_runtime_cu12.dist-info "
                          "nvidia_cuda_nvrtc_cu12-12.4.127.dist-info "
                          "nvidia_cuda_nvrtc_cu12-12.3.0.dist-info && "
                          "printf 'not metadata' > "
                          "nvidia_cudnn_cu12-9.1.0.70.dist-info/METADATA && "
                          "printf 'Name: nvidia-cuda-runtime-cu12\n"
                          "Version: 12.4.127\n\n' > "
                          "nvidia_cuda_runtime_cu12.dist-info/METADATA"),
                   0);
  cl_distinfo_index index;
  assert_int_equal(cl_distinfo_load(folder, &index), 0);
  assert_int_equal(index.distribution_count, 5);
  static const struct {
    const char *file, *wheel_folder;
    const char *version; /* NULL: the table names no one */
  } cases[] = {
      {"libcudnn.so.9", "cudnn", "9.1.0.70"},
      {"libcudnn.so.9", NULL, "9.1.0.70"},
      {"libcudnn.so.9", "cu13", NULL},     /* not where the wheel puts it */
      {"libcudnn.so.8", NULL, "9.1.0.70"}, /* cu12's cuDNN: 8 and 9 */
      {"libcublasLt.so.12", "cublas", "12.4.5.8"},
      {"libnvblas.so.12", "cublas", "12.4.5.8"},
      {"libcublas.so.13", NULL, NULL}, /* CUDA 13's is another wheel */
      {"libcudart.so.12", "cuda_runtime", "12.4.127"}, /* by its METADATA */
      {"libnvrtc.so.12", "cuda_nvrtc", NULL},          /* two dist-infos */
      {"libcufft.so.11", "cufft", NULL},               /* none */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cl_name_match m;
    assert_true(cl_catalog_match(cases[i].file, CL_NAMING_LINUX, &m));
    int cuda = -1;
    const cl_distribution *d =
        cl_distinfo_by_wheel(&index, &m, cases[i].wheel_folder, &cuda);
    assert_int_equal(cuda, d ? 12 : 0); /* the -cu12 wheels' CUDA major */
    if (cases[i].version == NULL
            ? d != NULL
            : d == NULL || strcmp(d->version, cases[i].version))
      fail_msg("%s in %s: expected %s, got %s", cases[i].file,
               cases[i].wheel_folder ? cases[i].wheel_folder : "any folder",
               cases[i].version ? cases[i].version : "nothing",
               d ? d->version : "nothing");
  }
  /* Only the folder that does not name itself had its METADATA read. */
  for (size_t i = 0; i < index.distribution_count; i++)
    assert_int_equal(index.distributions[i].metadata_read,
                     strstr(index.distributions[i].metadata_path,
                            "runtime_cu12.dist-info") != NULL);
  assert_int_equal(index.records_state, 0);
  cl_distinfo_free(&index);
  assert_int_equal(system("rm -rf test_distinfo-wheels"), 0);
}

/* A RECORD or METADATA that cannot be read (a folder in the file's place)
 * costs the answers it would have given, nothing more: the lookups take
 * that "no" as an answer and write no last error, so the caller's stands
 * (issue 42, item 5). */
static void unreadable_files_are_answers(void **state) {
  (void)state;
  const char *folder = "test_distinfo-unreadable";
  assert_int_equal(system("rm -rf test_distinfo-unreadable && "
                          "mkdir test_distinfo-unreadable"),
                   0);
  write_distinfo(folder, "a", "1.0", "");
  assert_int_equal(
      system("cd test_distinfo-unreadable/nvidia_a-1.0.dist-info && "
             "rm RECORD && mkdir RECORD"),
      0);
  /* A folder whose name does not tell its version: METADATA must. */
  assert_int_equal(system("cd test_distinfo-unreadable && "
                          "mkdir -p nvidia_c.dist-info/METADATA && "
                          "echo 'nvidia/c/lib/libcudart.so.12,,' "
                          "> nvidia_c.dist-info/RECORD"),
                   0);
  cl_fail(CUDALOAD_E_IO, "the caller's own error");
  cl_distinfo_index index;
  assert_int_equal(cl_distinfo_load(folder, &index), 0);
  assert_int_equal(index.distribution_count, 2);
  assert_null(cl_distinfo_by_path(&index, "nvidia/a/lib/libcublas.so.12.1.0"));
  assert_null(cl_distinfo_by_path(&index, "nvidia/c/lib/libcudart.so.12"));
  assert_null(cl_distinfo_by_name(&index, "libcudart.so.12"));
  assert_string_equal(cudaload_last_error(), "the caller's own error");
  cl_distinfo_free(&index);
  assert_int_equal(system("rm -rf test_distinfo-unreadable"), 0);
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(metadata_gives_name_and_version),
      cmocka_unit_test(folder_name_gives_name_and_version),
      cmocka_unit_test(metadata_without_version_is_malformed),
      cmocka_unit_test(record_lists_path_column),
      cmocka_unit_test(record_with_unterminated_quote_is_survived),
      cmocka_unit_test(header_defines_are_read),
#ifndef _WIN32
      cmocka_unit_test(lookups_in_a_big_index),
      cmocka_unit_test(owner_by_the_wheel_table),
      cmocka_unit_test(unreadable_files_are_answers),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
