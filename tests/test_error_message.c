/* SPDX-License-Identifier: MIT */
/*
 * test_error_message.c - cudaload_read_error_message(): each form in which
 * a loader, a framework or CUDA says that a library is missing or the GPU
 * cannot run, Linux and Windows spellings, read into the message's file,
 * kind, requirement and diagnosis, with the requirement added to the
 * context; a text in no known form refused with the forms listed; and the
 * doctor judging a message against what this machine has. The messages are
 * quoted as the programs print them (docs/error-messages.md names the
 * source of each).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"
#include "test_paths.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_contains(const char *text, const char *needle) {
  if (!text || !strstr(text, needle))
    fail_msg("expected \"%s\" in:\n%s", needle, text ? text : "(null)");
}

/* What one recognised message must be. */
typedef struct expected {
  int kind;
  const char *file;        /* NULL: none */
  const char *needed_by;   /* NULL: none */
  const char *requirement; /* NULL: none */
  const char *diagnosis;   /* a piece of it */
} expected;

static void assert_same(const char *what, const char *got, const char *want) {
  if (!want && got)
    fail_msg("%s: expected none, got \"%s\"", what, got);
  if (want && (!got || strcmp(got, want) != 0))
    fail_msg("%s: expected \"%s\", got \"%s\"", what, want,
             got ? got : "(null)");
}

/* Read text into a fresh context: exactly one message, as e says, and its
 * requirement (if any) the context's only one. */
static void read_one(const char *text, expected e) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_non_null(ctx);
  int rc = cudaload_read_error_message(ctx, text);
  if (rc != CUDALOAD_OK)
    fail_msg("\"%s\" not read (%d): %s", text, rc, cudaload_last_error());
  if (cudaload_error_message_count(ctx) != 1)
    fail_msg("\"%s\": %lu messages, not 1 (first: %s)", text,
             (unsigned long)cudaload_error_message_count(ctx),
             cudaload_error_message_diagnosis(ctx, 0));
  assert_int_equal(cudaload_error_message_kind(ctx, 0), e.kind);
  assert_same("file", cudaload_error_message_file(ctx, 0), e.file);
  assert_same("needed by", cudaload_error_message_needed_by(ctx, 0),
              e.needed_by);
  assert_same("requirement", cudaload_error_message_requirement(ctx, 0),
              e.requirement);
  assert_contains(cudaload_error_message_diagnosis(ctx, 0), e.diagnosis);
  assert_non_null(cudaload_error_message_quote(ctx, 0));
  if (e.requirement) {
    assert_int_equal(cudaload_requirement_count(ctx), 1);
    assert_string_equal(cudaload_requirement_text(ctx, 0), e.requirement);
  } else {
    assert_int_equal(cudaload_requirement_count(ctx), 0);
  }
  cudaload_destroy(ctx);
}

#define MISSING CUDALOAD_MESSAGE_LIBRARY_MISSING
#define OR_DEPENDENCY CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY
#define NOT_FOUND_ANYWHERE "found it in none of the folders it searches"

/* --- Linux forms --------------------------------------------------------- */

/* glibc's dlopen (and Python's ctypes.CDLL, ImportError of an extension). */
static void dlopen_cannot_open_shared_object_file(void **state) {
  (void)state;
  read_one("ImportError: libcudnn_cnn_infer.so.8: cannot open shared object "
           "file: No such file or directory",
           (expected){
               MISSING, "libcudnn_cnn_infer.so.8", NULL, "cudnn=8",
               "cudnn 8's cudnn_cnn_infer library: the program asked "
               "the loader for it by name and the loader " NOT_FOUND_ANYWHERE});
  read_one("OSError: libcudart.so.12: cannot open shared object file: No "
           "such file or directory",
           (expected){MISSING, "libcudart.so.12", NULL, "cudart=12",
                      "libcudart.so.12 is cudart 12"});
}

/* PyTorch and cuDNN 8 (torch 1.x/2.0 with cuDNN 8): the library it could
 * not load, then dlerror()'s reason. */
static void torch_could_not_load_library(void **state) {
  (void)state;
  read_one("Could not load library libcudnn_ops_infer.so.8. Error: "
           "libcudnn_ops_infer.so.8: cannot open shared object file: No such "
           "file or directory\nPlease make sure libcudnn_ops_infer.so.8 is in "
           "your library path!",
           (expected){MISSING, "libcudnn_ops_infer.so.8", NULL, "cudnn=8",
                      NOT_FOUND_ANYWHERE});
  /* Without the reason. */
  read_one("Could not load library libcudnn_ops_infer.so.8",
           (expected){MISSING, "libcudnn_ops_infer.so.8", NULL, "cudnn=8",
                      NOT_FOUND_ANYWHERE});
}

/* The reason names another file: that one is missing, needed by the first
 * (cuDNN 8 under WSL opens the unversioned libcuda.so). */
static void torch_could_not_load_library_because_of_another(void **state) {
  (void)state;
  read_one("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: "
           "cannot open shared object file: No such file or directory",
           (expected){MISSING, "libcuda.so", "libcudnn_cnn_infer.so.8", NULL,
                      "the NVIDIA driver's library (the unversioned name"});
}

/* ctranslate2 (faster-whisper) on Linux. */
static void library_is_not_found_or_cannot_be_loaded(void **state) {
  (void)state;
  read_one("RuntimeError: Library libcublas.so.12 is not found or cannot be "
           "loaded",
           (expected){MISSING, "libcublas.so.12", NULL, "cublas=12",
                      "libcublas.so.12 is cublas 12"});
}

/* onnxruntime's CUDA provider: the provider library, then the file it
 * needed. */
static void onnxruntime_failed_to_load_library(void **state) {
  (void)state;
  read_one("[E:onnxruntime:Default, provider_bridge_ort.cc:1862 "
           "TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/"
           "session/provider_bridge_ort.cc:1539 onnxruntime::Provider& "
           "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL "
           ": Failed to load library libonnxruntime_providers_cuda.so with "
           "error: libcublasLt.so.12: cannot open shared object file: No such "
           "file or directory",
           (expected){MISSING, "libcublasLt.so.12",
                      "libonnxruntime_providers_cuda.so", "cublas=12",
                      "libonnxruntime_providers_cuda.so needs "
                      "libcublasLt.so.12, which the loader found in none of "
                      "the folders it searches; libcublasLt.so.12 is cublas "
                      "12's cublasLt library"});
  /* A reason that names no file: the provider is the message. */
  read_one("Failed to load library libonnxruntime_providers_cuda.so with "
           "error: undefined symbol: cudnnGetVersion",
           (expected){OR_DEPENDENCY, "libonnxruntime_providers_cuda.so", NULL,
                      NULL, "not a CUDA library cudaload knows"});
}

/* --- Windows forms ------------------------------------------------------- */

/* ctranslate2 and PyTorch on Windows. */
static void could_not_locate_dll(void **state) {
  (void)state;
  read_one("Could not locate cudnn_ops_infer64_8.dll. Please make sure it is "
           "in your library path!",
           (expected){MISSING, "cudnn_ops_infer64_8.dll", NULL, "cudnn=8",
                      "cudnn 8's cudnn_ops_infer library"});
  read_one("Could not locate zlibwapi.dll. Please make sure it is in your "
           "library path!",
           (expected){MISSING, "zlibwapi.dll", NULL, NULL,
                      "cuDNN 8 for Windows needs"});
}

static void could_not_load_library_dll(void **state) {
  (void)state;
  read_one("Could not load library cudnn_cnn_infer64_8.dll. Error code 126",
           (expected){MISSING, "cudnn_cnn_infer64_8.dll", NULL, "cudnn=8",
                      NOT_FOUND_ANYWHERE});
}

/* ctranslate2 on Windows, whole and as people quote it. */
static void dll_is_not_found(void **state) {
  (void)state;
  read_one("RuntimeError: Library cublas64_12.dll is not found or cannot be "
           "loaded",
           (expected){MISSING, "cublas64_12.dll", NULL, "cublas=12",
                      "cublas64_12.dll is cublas 12"});
  read_one("cublas64_12.dll is not found",
           (expected){MISSING, "cublas64_12.dll", NULL, "cublas=12",
                      NOT_FOUND_ANYWHERE});
}

/* Python's ctypes/os.add_dll_directory on Windows: the DLL or an import
 * of it. */
static void winerror_126_could_not_find_module(void **state) {
  (void)state;
  read_one("FileNotFoundError: Could not find module "
           "'C:\\Users\\me\\venv\\Lib\\site-packages\\nvidia\\cudnn\\bin\\"
           "cudnn_ops_infer64_8.dll' (or one of its dependencies). Try using "
           "the full path with constructor syntax.",
           (expected){OR_DEPENDENCY,
                      "C:\\Users\\me\\venv\\Lib\\site-packages\\nvidia\\cudnn"
                      "\\bin\\cudnn_ops_infer64_8.dll",
                      NULL, "cudnn=8", "the file is missing, or a library it"});
  /* PyTorch's own wording of the same error, a path with spaces. */
  read_one("OSError: [WinError 126] The specified module could not be found. "
           "Error loading \"C:\\Program Files\\Python311\\Lib\\site-packages\\"
           "torch\\lib\\cudnn_adv_infer64_8.dll\" or one of its dependencies.",
           (expected){OR_DEPENDENCY,
                      "C:\\Program Files\\Python311\\Lib\\site-packages\\torch"
                      "\\lib\\cudnn_adv_infer64_8.dll",
                      NULL, "cudnn=8", "cudnn 8's cudnn_adv_infer library"});
}

/* onnxruntime's CUDA provider on Windows. */
static void onnxruntime_loadlibrary_error_126(void **state) {
  (void)state;
  read_one("[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "
           "\"\" when trying to load \"C:\\Python311\\Lib\\site-packages\\"
           "onnxruntime\\capi\\onnxruntime_providers_cuda.dll\"",
           (expected){OR_DEPENDENCY,
                      "C:\\Python311\\Lib\\site-packages\\onnxruntime\\capi\\"
                      "onnxruntime_providers_cuda.dll",
                      NULL, NULL, "not a CUDA library cudaload knows"});
}

/* --- runtime errors ------------------------------------------------------ */

static void cublas_status_not_initialized(void **state) {
  (void)state;
  read_one("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when "
           "calling `cublasCreate(handle)`",
           (expected){CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED, NULL, NULL,
                      "cublas", "cuBLAS could not create its handle"});
}

static void driver_insufficient_for_runtime(void **state) {
  (void)state;
  read_one("RuntimeError: CUDA error: CUDA driver version is insufficient for "
           "CUDA runtime version",
           (expected){CUDALOAD_MESSAGE_DRIVER_TOO_OLD, NULL, NULL, "cudart",
                      "newer than the installed NVIDIA driver supports"});
  read_one("cudaErrorInsufficientDriver",
           (expected){CUDALOAD_MESSAGE_DRIVER_TOO_OLD, NULL, NULL, "cudart",
                      "newer than the installed NVIDIA driver supports"});
}

static void no_kernel_image(void **state) {
  (void)state;
  read_one("RuntimeError: CUDA error: no kernel image is available for "
           "execution on the device\nCUDA kernel errors might be "
           "asynchronously reported at some other API call",
           (expected){CUDALOAD_MESSAGE_NO_KERNEL_IMAGE, NULL, NULL, NULL,
                      "not built for this GPU"});
}

/* --- whole texts ---------------------------------------------------------- */

/* A traceback holding several: each once, in text order; the requirements
 * of all of them added. */
static void a_traceback_gives_each_message_once(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  const char *text =
      "Traceback (most recent call last):\n"
      "  File \"app.py\", line 3, in <module>\n"
      "    model = WhisperModel(\"small\", device=\"cuda\")\n"
      "Could not load library libcudnn_ops_infer.so.8. Error: "
      "libcudnn_ops_infer.so.8: cannot open shared object file: No such file "
      "or directory\n"
      "Could not load library libcudnn_ops_infer.so.8. Error: "
      "libcudnn_ops_infer.so.8: cannot open shared object file: No such file "
      "or directory\n"
      "RuntimeError: Library libcublas.so.12 is not found or cannot be "
      "loaded\n";
  assert_int_equal(cudaload_read_error_message(ctx, text), CUDALOAD_OK);
  assert_int_equal(cudaload_error_message_count(ctx), 2);
  assert_string_equal(cudaload_error_message_file(ctx, 0),
                      "libcudnn_ops_infer.so.8");
  assert_string_equal(cudaload_error_message_file(ctx, 1), "libcublas.so.12");
  assert_string_equal(cudaload_error_message_quote(ctx, 1),
                      "RuntimeError: Library libcublas.so.12 is not found or "
                      "cannot be loaded");
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  assert_string_equal(cudaload_requirement_text(ctx, 0), "cudnn=8");
  assert_string_equal(cudaload_requirement_text(ctx, 1), "cublas=12");
  /* A second text replaces the messages; requirements add up, as
   * cudaload_require()'s do. */
  assert_int_equal(cudaload_read_error_message(ctx, "no kernel image is "
                                                    "available for execution "
                                                    "on the device"),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_error_message_count(ctx), 1);
  assert_int_equal(cudaload_requirement_count(ctx), 2);
  cudaload_destroy(ctx);
}

/* A text in no known form changes nothing and says which forms are read;
 * words that only look like the forms are not taken for file names. */
static void an_unknown_text_lists_the_forms_understood(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_read_error_message(ctx, "cublas64_12.dll is not "
                                                    "found"),
                   CUDALOAD_OK);
  static const char *const unknown[] = {
      "Segmentation fault (core dumped)",
      "",
      "ModuleNotFoundError: module is not found",
      "Could not load library",
      ("Could not find module 'C:\\app\\readme.txt' (or one of its "
       "dependencies)"),
  };
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; ++i) {
    int rc = cudaload_read_error_message(ctx, unknown[i]);
    if (rc != CUDALOAD_E_BAD_SPEC)
      fail_msg("\"%s\" gave %d, not CUDALOAD_E_BAD_SPEC", unknown[i], rc);
    const char *error = cudaload_last_error();
    assert_contains(error, "no form cudaload knows");
    assert_contains(error, "cannot open shared object file");
    assert_contains(error, "Could not load library libX.so.N");
    assert_contains(error, "Could not locate X64_N.dll");
    assert_contains(error, "Could not find module");
    assert_contains(error, "CUBLAS_STATUS_NOT_INITIALIZED");
    assert_contains(error, "CUDA driver version is insufficient");
    assert_contains(error, "no kernel image is available");
    assert_contains(error, "docs/error-messages.md");
    /* What an earlier call read stays. */
    assert_int_equal(cudaload_error_message_count(ctx), 1);
    assert_int_equal(cudaload_requirement_count(ctx), 1);
  }
  assert_int_equal(cudaload_read_error_message(NULL, "x"),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_int_equal(cudaload_read_error_message(ctx, NULL),
                   CUDALOAD_E_INVALID_ARGUMENT);
  assert_null(cudaload_error_message_file(ctx, 1));
  assert_null(cudaload_error_message_diagnosis(NULL, 0));
  assert_int_equal(cudaload_error_message_kind(ctx, 5), 0);
  assert_null(cudaload_error_message_kind_name(0));
  assert_string_equal(
      cudaload_error_message_kind_name(CUDALOAD_MESSAGE_NO_KERNEL_IMAGE),
      "no-kernel-image");
  cudaload_destroy(ctx);
}

/* A long line is quoted in part; a megabyte of log is read whole. */
static void long_texts_are_read_and_quoted_in_part(void **state) {
  (void)state;
  size_t size = 1 << 20;
  char *text = malloc(size + 200);
  assert_non_null(text);
  memset(text, 'x', size);
  strcpy(text + size, " libcufft.so.11: cannot open shared object file");
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_read_error_message(ctx, text), CUDALOAD_OK);
  assert_string_equal(cudaload_error_message_requirement(ctx, 0), "cufft=11");
  const char *quote = cudaload_error_message_quote(ctx, 0);
  assert_true(strlen(quote) <= 243);
  assert_contains(quote, "...");
  free(text);
  cudaload_destroy(ctx);
}

/* --- the doctor ------------------------------------------------------------
 */

static const char *cudnn8_tree(void) {
#ifdef _WIN32
  return test_fixture_path("preload/windows/cudnn8");
#else
  return test_fixture_path("cudnn8_compat");
#endif
}

static char *doctor_text(cudaload_ctx *ctx) {
  char *text = NULL;
  assert_int_equal(cudaload_doctor(ctx, CUDALOAD_FORMAT_TEXT, 0, &text),
                   CUDALOAD_OK);
  return text;
}

/* The library the message names is here: the program's loader does not
 * search its folder, and the fix starts it through cudaload. Found nowhere,
 * it is the plan's missing requirement, with the plan's fix. */
static void the_doctor_judges_a_message_against_this_machine(void **state) {
  (void)state;
  DIR *d = opendir(cudnn8_tree());
  if (!d) {
    print_message("skipped: fixture trees not built in %s\n",
                  CUDALOAD_FIXTURES_DIR);
    skip();
  }
  closedir(d);
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_add_root(ctx, cudnn8_tree()), CUDALOAD_OK);
  assert_int_equal(cudaload_read_error_message(
                       ctx, "Could not locate cudnn_ops_infer64_8.dll. Please "
                            "make sure it is in your library path!"),
                   CUDALOAD_OK);
  char *text = doctor_text(ctx);
  assert_contains(text, "cudaload doctor ");
  assert_contains(text, "\nError message\n  read          Could not locate "
                        "cudnn_ops_infer64_8.dll.");
  assert_contains(text, "  requires      cudnn=8 (see Plan)\n");
  assert_contains(text, "1. the error message names cudnn_ops_infer64_8.dll, "
                        "which is here (");
  assert_contains(text, "the program's loader does not search its folder");
  assert_contains(text, "fix: start the program ");
  assert_contains(text, "cudaload exec --require cudnn=8 -- PROGRAM");
  assert_contains(text, "cudaload.setup(require=[\"cudnn=8\"])");
  assert_true(cudaload_doctor_problem_count(ctx) >= 1);
  cudaload_free(text);

  char *json = NULL;
  assert_int_equal(cudaload_doctor(ctx, CUDALOAD_FORMAT_JSON, 0, &json),
                   CUDALOAD_OK);
  assert_contains(json, "\"error_messages\": [\n    {\n      \"kind\": "
                        "\"library-missing\",");
  assert_contains(json, "\"requirement\": \"cudnn=8\"");
  cudaload_free(json);
  cudaload_destroy(ctx);

  /* Nowhere to be found: the requirement's own problem and fix. */
  ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_read_error_message(
                       ctx, "libcublasLt.so.12: cannot open shared object "
                            "file: No such file or directory"),
                   CUDALOAD_OK);
  text = doctor_text(ctx);
  assert_contains(text, "cublas=12: no usable cublas library");
  assert_contains(text, "nvidia-cublas-cu12");
  if (strstr(text, "which is here"))
    fail_msg("a library found nowhere is said to be here:\n%s", text);
  cudaload_free(text);
  cudaload_destroy(ctx);
}

/* A runtime error gets its own problem and fix. */
static void the_doctor_gives_runtime_errors_a_fix(void **state) {
  (void)state;
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(
      cudaload_read_error_message(ctx, "CUDA error: no kernel image is "
                                       "available for execution on the "
                                       "device\nCUBLAS_STATUS_NOT_INITIALIZED"),
      CUDALOAD_OK);
  char *text = doctor_text(ctx);
  assert_contains(text, "the error message says the program has no GPU code "
                        "for this GPU");
  assert_contains(text, "fix: install a build of the program made for this "
                        "GPU's compute capability (cudaload doctor --probe "
                        "shows it)");
  assert_contains(text, "the error message is CUBLAS_STATUS_NOT_INITIALIZED");
  assert_contains(text, "fix: run cudaload doctor --probe");
  cudaload_free(text);
  cudaload_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dlopen_cannot_open_shared_object_file),
      cmocka_unit_test(torch_could_not_load_library),
      cmocka_unit_test(torch_could_not_load_library_because_of_another),
      cmocka_unit_test(library_is_not_found_or_cannot_be_loaded),
      cmocka_unit_test(onnxruntime_failed_to_load_library),
      cmocka_unit_test(could_not_locate_dll),
      cmocka_unit_test(could_not_load_library_dll),
      cmocka_unit_test(dll_is_not_found),
      cmocka_unit_test(winerror_126_could_not_find_module),
      cmocka_unit_test(onnxruntime_loadlibrary_error_126),
      cmocka_unit_test(cublas_status_not_initialized),
      cmocka_unit_test(driver_insufficient_for_runtime),
      cmocka_unit_test(no_kernel_image),
      cmocka_unit_test(a_traceback_gives_each_message_once),
      cmocka_unit_test(an_unknown_text_lists_the_forms_understood),
      cmocka_unit_test(long_texts_are_read_and_quoted_in_part),
      cmocka_unit_test(the_doctor_judges_a_message_against_this_machine),
      cmocka_unit_test(the_doctor_gives_runtime_errors_a_fix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
