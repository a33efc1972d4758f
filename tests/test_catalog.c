/* test_catalog.c - exact-name matching of the naming-convention catalog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catalog.h"

#include <string.h>

typedef struct expectation {
  const char *file_name;
  cl_naming naming;
  const char *name; /* NULL: must not match */
  const char *family;
  int major;
  int cuda_major;
  const char *name_version;
} expectation;

static const expectation cases[] = {
    /* Exact names: the family's siblings are never mistaken for it. */
    {"libcublas.so.12", CL_NAMING_LINUX, "cublas", "cublas", 12, 12, ""},
    {"libcublasLt.so.12", CL_NAMING_LINUX, "cublasLt", "cublas", 12, 12, ""},
    {"libcudnn.so.8", CL_NAMING_LINUX, "cudnn", "cudnn", 8, 0, ""},
    {"libcudnn.so.8.9.7", CL_NAMING_LINUX, "cudnn", "cudnn", 8, 0, "8.9.7"},
    {"libcudnn_ops_infer.so.8", CL_NAMING_LINUX, "cudnn_ops_infer", "cudnn", 8,
     0, ""},
    {"libcudnn_adv_train.so.8.9.2", CL_NAMING_LINUX, "cudnn_adv_train", "cudnn",
     8, 0, "8.9.2"},
    {"libcudnn_ops.so.9", CL_NAMING_LINUX, "cudnn_ops", "cudnn", 9, 0, ""},
    {"libcudnn_engines_tensor_ir.so.9", CL_NAMING_LINUX,
     "cudnn_engines_tensor_ir", "cudnn", 9, 0, ""},
    {"libcudnn_ext.so.9", CL_NAMING_LINUX, "cudnn_ext", "cudnn", 9, 0, ""},
    {"libcudart.so.11.0", CL_NAMING_LINUX, "cudart", "cudart", 11, 11, ""},
    {"libcudart.so.12.4.127", CL_NAMING_LINUX, "cudart", "cudart", 12, 12,
     "12.4.127"},
    {"libcudart.so.13", CL_NAMING_LINUX, "cudart", "cudart", 13, 13, ""},
    {"libnvrtc.so.13", CL_NAMING_LINUX, "nvrtc", "nvrtc", 13, 13, ""},
    {"libnvJitLink.so.12", CL_NAMING_LINUX, "nvJitLink", "nvjitlink", 12, 12,
     ""},
    {"libcufft.so.10", CL_NAMING_LINUX, "cufft", "cufft", 10, 11, ""},
    {"libcufft.so.11", CL_NAMING_LINUX, "cufft", "cufft", 11, 12, ""},
    {"libcufft.so.12", CL_NAMING_LINUX, "cufft", "cufft", 12, 13, ""},
    {"libcurand.so.10", CL_NAMING_LINUX, "curand", "curand", 10, 0, ""},
    {"libcusparse.so.12", CL_NAMING_LINUX, "cusparse", "cusparse", 12, 0, ""},
    {"libcusolver.so.11", CL_NAMING_LINUX, "cusolver", "cusolver", 11, 0, ""},
    {"libcusolver.so.12", CL_NAMING_LINUX, "cusolver", "cusolver", 12, 13, ""},
    {"libnccl.so.2", CL_NAMING_LINUX, "nccl", "nccl", 2, 0, ""},
    {"libcupti.so.12", CL_NAMING_LINUX, "cupti", "cupti", 12, 12, ""},
    {"libcuda.so.1", CL_NAMING_LINUX, "cuda", "driver", 1, 0, ""},
    {"libcuda.so.580.65.06", CL_NAMING_LINUX, "cuda", "driver", 1, 0,
     "580.65.06"},
    {"libnvidia-ml.so.1", CL_NAMING_LINUX, "nvml", "driver", 1, 0, ""},
    /* Not CUDA libraries, or not a name any loader asks for. */
    {"libcudnnfake.so.1", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn.so", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn_ops.so.8", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn_ops_infer.so.9", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcudnn.so.7", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libnvrtc.alt.so.13", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libnvrtc-builtins.so.13.0", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcublas.so.12.", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"libcublas.so.12x", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    {"cublas64_12.dll", CL_NAMING_LINUX, NULL, NULL, 0, 0, NULL},
    /* Windows names. */
    {"cudart64_110.dll", CL_NAMING_WINDOWS, "cudart", "cudart", 11, 11, ""},
    {"cudart64_12.dll", CL_NAMING_WINDOWS, "cudart", "cudart", 12, 12, ""},
    {"cudart64_13.dll", CL_NAMING_WINDOWS, "cudart", "cudart", 13, 13, ""},
    {"cublas64_12.dll", CL_NAMING_WINDOWS, "cublas", "cublas", 12, 12, ""},
    {"cublasLt64_13.dll", CL_NAMING_WINDOWS, "cublasLt", "cublas", 13, 13, ""},
    {"CUBLAS64_12.DLL", CL_NAMING_WINDOWS, "cublas", "cublas", 12, 12, ""},
    {"cudnn64_8.dll", CL_NAMING_WINDOWS, "cudnn", "cudnn", 8, 0, ""},
    {"cudnn_cnn_infer64_8.dll", CL_NAMING_WINDOWS, "cudnn_cnn_infer", "cudnn",
     8, 0, ""},
    {"cudnn_engines_precompiled64_9.dll", CL_NAMING_WINDOWS,
     "cudnn_engines_precompiled", "cudnn", 9, 0, ""},
    {"nvrtc64_112_0.dll", CL_NAMING_WINDOWS, "nvrtc", "nvrtc", 11, 11, ""},
    {"nvrtc64_120_0.dll", CL_NAMING_WINDOWS, "nvrtc", "nvrtc", 12, 12, ""},
    {"nvJitLink_130_0.dll", CL_NAMING_WINDOWS, "nvJitLink", "nvjitlink", 13, 13,
     ""},
    {"cufft64_11.dll", CL_NAMING_WINDOWS, "cufft", "cufft", 11, 12, ""},
    {"curand64_10.dll", CL_NAMING_WINDOWS, "curand", "curand", 10, 0, ""},
    {"cupti64_2025.1.0.dll", CL_NAMING_WINDOWS, "cupti", "cupti", 2025, 0,
     "2025.1.0"},
    {"nvcuda.dll", CL_NAMING_WINDOWS, "cuda", "driver", 1, 0, ""},
    {"nvml.dll", CL_NAMING_WINDOWS, "nvml", "driver", 1, 0, ""},
    {"cudnnfake64_9.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    {"cublas64.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    {"cudart64_1100.dll", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
    {"libcublas.so.12", CL_NAMING_WINDOWS, NULL, NULL, 0, 0, NULL},
};

static void every_case_matches_as_documented(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const expectation *e = &cases[i];
    cl_name_match m;
    memset(&m, 0, sizeof m);
    int matched = cl_catalog_match(e->file_name, e->naming, &m);
    if (!e->name) {
      if (matched)
        fail_msg("%s must not match, matched %s", e->file_name, m.entry->name);
      continue;
    }
    if (!matched)
      fail_msg("%s did not match", e->file_name);
    assert_string_equal(m.entry->name, e->name);
    assert_string_equal(m.entry->family, e->family);
    assert_int_equal(m.major, e->major);
    assert_int_equal(m.cuda_major, e->cuda_major);
    assert_string_equal(m.name_version, e->name_version);
  }
}

static void catalog_covers_every_family_and_sub_library(void **state) {
  (void)state;
  static const char *const required[] = {"cudart",
                                         "cublas",
                                         "cublasLt",
                                         "cudnn",
                                         "cudnn_ops_infer",
                                         "cudnn_ops_train",
                                         "cudnn_cnn_infer",
                                         "cudnn_cnn_train",
                                         "cudnn_adv_infer",
                                         "cudnn_adv_train",
                                         "cudnn_graph",
                                         "cudnn_ops",
                                         "cudnn_cnn",
                                         "cudnn_adv",
                                         "cudnn_heuristic",
                                         "cudnn_engines_precompiled",
                                         "cudnn_engines_runtime_compiled",
                                         "cudnn_engines_tensor_ir",
                                         "cudnn_ext",
                                         "nvrtc",
                                         "nvJitLink",
                                         "cufft",
                                         "curand",
                                         "cusparse",
                                         "cusolver",
                                         "nccl",
                                         "cupti",
                                         "cuda",
                                         "nvml"};
  for (size_t i = 0; i < sizeof required / sizeof *required; ++i)
    if (!cl_catalog_find(required[i]))
      fail_msg("catalog lacks %s", required[i]);
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  assert_int_equal(count, sizeof required / sizeof *required);
  for (size_t i = 0; i < count; ++i) {
    assert_non_null(all[i].linux_names[0]);
    assert_true(all[i].min_major <= all[i].max_major);
  }
}

static void long_and_odd_names_are_rejected_quickly(void **state) {
  (void)state;
  char name[5000];
  memset(name, '9', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  memcpy(name, "libcudnn.so.", 12);
  cl_name_match m;
  assert_false(cl_catalog_match(name, CL_NAMING_LINUX, &m));
  memcpy(name, "libcudnn.so.8", 13);
  for (size_t i = 13; i + 2 < sizeof name; i += 2) {
    name[i] = '.';
    name[i + 1] = '1';
  }
  assert_false(cl_catalog_match(name, CL_NAMING_LINUX, &m));
  assert_false(cl_catalog_match("", CL_NAMING_LINUX, &m));
  assert_false(cl_catalog_match("", CL_NAMING_WINDOWS, &m));
  assert_false(cl_catalog_match(".dll", CL_NAMING_WINDOWS, &m));
}

static void nvidia_dll_stamps_are_decoded(void **state) {
  (void)state;
  char out[16] = "untouched";
  /* cublas64_12.dll of cuBLAS 12.1.3 carries 6.14.11.1213. */
  assert_true(cl_catalog_decode_dll_stamp("6.14.11.1213", out, sizeof out));
  assert_string_equal(out, "12.1.3");
  assert_true(cl_catalog_decode_dll_stamp("6.14.11.1245", out, sizeof out));
  assert_string_equal(out, "12.4.5");
  static const char *const kept[] = {"8.9.7.29",      "6.14.11.12",
                                     "6.14.11.12130", "6.14.11.12a3",
                                     "6.14.10.1213",  ""};
  for (size_t i = 0; i < sizeof kept / sizeof *kept; ++i) {
    strcpy(out, "untouched");
    assert_false(cl_catalog_decode_dll_stamp(kept[i], out, sizeof out));
    assert_string_equal(out, "untouched");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_case_matches_as_documented),
      cmocka_unit_test(catalog_covers_every_family_and_sub_library),
      cmocka_unit_test(long_and_odd_names_are_rejected_quickly),
      cmocka_unit_test(nvidia_dll_stamps_are_decoded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
