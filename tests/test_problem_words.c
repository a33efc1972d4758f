/* SPDX-License-Identifier: MIT */
/*
 * test_problem_words.c - the words users read, held against a golden file
 * (tests/golden/problem_words.txt): every problem kind, made from the same
 * facts each time, and each shape of fix in both shells' forms. A change of
 * words is a change of that file, reviewed as text; a new kind without words in
 * it fails here. Run with CUDALOAD_UPDATE_GOLDEN=1 to rewrite the file
 * after a deliberate change (then read the diff).
 *
 * The structure of each report (first line, one line per requirement,
 * problems last) is asserted where the reports are made (test_doctor.c,
 * tests/cli); this file holds only the words (issue 46, item 4).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/fix_steps.h"
#include "cudaload.h"
#include "problem/problem.h"
#include "problem/problem_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUDALOAD_GOLDEN_DIR
#error "CUDALOAD_GOLDEN_DIR must name tests/golden"
#endif

#define GOLDEN_FILE CUDALOAD_GOLDEN_DIR "/problem_words.txt"
#define LAST_KIND CUDALOAD_PROBLEM_UNEXPOSED

/* One fact of a case: which, from where, its value. */
typedef struct case_fact {
  int fact;
  int source;
  const char *value;
} case_fact;

/* A case: a kind, a label for its variant, its facts (ended by fact 0),
 * and whether the stage makes it a note (a kind that is not one by the
 * table: a second copy that serves the process). Every word comes from the
 * kind and the facts: no stage writes a sentence of its own. */
typedef struct words_case {
  int kind;
  const char *variant;
  case_fact facts[12];
  int note;
} words_case;

/* The shapes a fix takes, each printed in both shells' forms. */
enum {
  FIX_PIP,
  FIX_EXEC,
  FIX_CHOICE,
  FIX_CHMOD,
  FIX_ENV,
  FIX_NOTE,
  FIX_SHAPES
};
static const char *const fix_shape_names[FIX_SHAPES] = {
    "install", "run-program", "choice", "command", "set-variable", "note"};

#define M CUDALOAD_FROM_MACHINE
#define P CUDALOAD_FROM_PROGRAM
#define E CUDALOAD_FROM_MESSAGE
#define R CUDALOAD_FROM_REQUEST
#define F(name) CUDALOAD_FACT_##name
#define K(name) CUDALOAD_PROBLEM_##name

static const words_case cases[] = {
    {K(UNSATISFIED),
     "a file of another major",
     {{F(REQUIREMENT), R, "cudnn=9"},
      {F(FAMILY), M, "cudnn"},
      {F(PATH), M, "/opt/app/lib/libcudnn.so.8"},
      {F(REASON), M, "major 8, not 9"}},
     0},
    {K(UNSATISFIED),
     "nothing named like it",
     {{F(REQUIREMENT), R, "cufft=11"},
      {F(FAMILY), M, "cufft"},
      {F(LIBRARY), M, "cufft"},
      {F(CUDA_MAJOR), R, "12"}},
     0},
    {K(NOT_FOUND),
     "a needed name, where the loader looked",
     {{F(CONSUMER), P,
       "/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"},
      {F(NAME), P, "libcudnn.so.9"},
      {F(RULE), M, "not-found"},
      {F(SEARCHED), M, "rpath (/venv/torch/lib), ld-so-cache, default-dirs"}},
     0},
    {K(NOT_FOUND),
     "the process's own open",
     {{F(NAME), M, "libcudnn.so.9"}, {F(SEARCHED), M, "ld-so-cache"}},
     0},
    {K(NOT_FOUND),
     "the message's name, which is here",
     {{F(NAME), E, "libcudnn_ops_infer.so.8"},
      {F(BETTER), M, "/opt/cudnn8/lib/libcudnn_ops_infer.so.8"}},
     0},
    {K(LAZY_NOT_FOUND),
     "two names opened later",
     {{F(CONSUMER), M, "/opt/cudnn8/lib/libcudnn_ops_infer.so.8"},
      {F(NAME), M, "libcublas.so.12, libcublasLt.so.12"},
      {F(SEARCHED), M, "ld-so-cache, default-dirs (/lib, /usr/lib)"}},
     0},
    {K(LAZY_NOT_FOUND),
     "as it is, without cudaload",
     {{F(CONSUMER), M, "/opt/cudnn8/lib/libcudnn.so.8"},
      {F(NAME), M, "libcudnn_ops_infer.so.8"},
      {F(CONDITION), M, "as-it-is"}},
     0},
    {K(SYMBOLS_MISSING),
     "the file taken, its version and rule",
     {{F(CONSUMER), P,
       "/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"},
      {F(SYMBOL), P, "cublasLtGetVersion"},
      {F(VERSION_NODE), P, "libcublasLt.so.12"},
      {F(TAKEN), M, "/usr/local/cuda-12.1/lib64/libcublasLt.so.12"},
      {F(VERSION), M, "12.1.3.1"},
      {F(RULE), M, "ld-library-path"},
      {F(FAMILY), M, "cublas"},
      {F(WANTED), M, "12.4.5.8"}},
     0},
    {K(SYMBOLS_MISSING),
     "from the message alone",
     {{F(SYMBOL), E, "cudnnGetLibConfig"}, {F(NAME), E, "libcudnn.so.9"}},
     0},
    {K(SYMBOLS_MISSING),
     "the loader model: how the load fails",
     {{F(CONSUMER), M, "/venv/nvidia/cusparse/lib/libcusparse.so.12"},
      {F(COUNT), M, "3"},
      {F(NAME), M, "libnvJitLink.so.12"},
      {F(VERSION_NODE), M, "libnvJitLink.so.12"},
      {F(TAKEN), M, "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12"},
      {F(VERSION), M, "12.1.105"},
      {F(RULE), M, "ld-library-path"},
      {F(SYMBOL), M, "__nvJitLinkComplete_12_4"},
      {F(PLATFORM), M, "linux"},
      {F(BETTER), M, "/venv/nvidia/nvjitlink/lib/libnvJitLink.so.12"}},
     0},
    {K(SYMBOLS_MISSING),
     "the loader model, a copy put first by LD_PRELOAD",
     {{F(CONSUMER), M, "/venv/torch/lib/libtorch_cuda.so"},
      {F(COUNT), M, "1"},
      {F(NAME), M, "libcublasLt.so.12"},
      {F(TAKEN), M, "/opt/old/libcublasLt.so.12"},
      {F(SYMBOL), M, "cublasLtMatmul"},
      {F(PLATFORM), M, "linux"},
      {F(LOADED_BY), M, "LD_PRELOAD"}},
     0},
    {K(SYMBOLS_MISSING),
     "the loader model on Windows",
     {{F(CONSUMER), M, "C:\\app\\ctranslate2.dll"},
      {F(COUNT), M, "2"},
      {F(NAME), M, "cublas64_12.dll"},
      {F(TAKEN), M, "C:\\old\\cublas64_12.dll"},
      {F(RULE), M, "path"},
      {F(SYMBOL), M, "cublasGemmEx"},
      {F(PLATFORM), M, "windows"}},
     0},
    {K(SYMBOLS_MISSING),
     "Windows error 127 in the message",
     {{F(CONSUMER), E, "C:\\app\\ctranslate2.dll"},
      {F(REASON), E, "missing-export"}},
     0},
    {K(WRONG_LIBRARY),
     "a name that takes another library",
     {{F(CONSUMER), M, "/venv/torch/lib/libtorch_cuda.so"},
      {F(NAME), M, "libcublas.so.12"},
      {F(TAKEN), M, "/opt/odd/libcublas.so.12"},
      {F(LIBRARY), M, "cublasLt"},
      {F(MAJOR), M, "12"},
      {F(RULE), M, "ld-library-path"}},
     0},
    {K(SHADOWED),
     "two siblings from another folder",
     {{F(CONSUMER), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(NAME), M, "libcudnn_graph.so.9, libcudnn_ops.so.9"},
      {F(TAKEN), M, "/opt/old/lib/libcudnn_graph.so.9"},
      {F(BETTER), M, "/venv/nvidia/cudnn/lib/libcudnn_graph.so.9"},
      {F(RULE), M, "ld-library-path"}},
     0},
    {K(BINDS_ELSEWHERE),
     "references with a version node",
     {{F(COUNT), M, "12"},
      {F(CONSUMER), M, "/venv/torch/lib/libtorch_cuda.so"},
      {F(TOTAL), M, "40"},
      {F(NAME), M, "libcublasLt.so.12"},
      {F(VERSION_NODE), M, "libcublasLt.so.12"},
      {F(TAKEN), M, "/opt/a/libcublasLt.so.12"},
      {F(BETTER), M, "/venv/nvidia/cublas/lib/libcublasLt.so.12"},
      {F(SYMBOL), M, "cublasLtMatmul"}},
     0},
    {K(TWO_VERSIONS),
     "one library in two folders",
     {{F(FAMILY), M, "cudnn"},
      {F(MAJOR), M, "9"},
      {F(AMONG), M, "program"},
      {F(PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(VERSION), M, "9.1.0.70"},
      {F(OTHER_PATH), M, "/opt/cudnn/lib/libcudnn_ops.so.9"},
      {F(OTHER_VERSION), M, "9.19.0.56"}},
     0},
    {K(TWO_VERSIONS),
     "Windows: a second copy that serves nothing",
     {{F(NAME), M, "cudnn64_9.dll"},
      {F(AMONG), M, "process"},
      {F(TAKEN), M, "C:\\venv\\nvidia\\cudnn\\bin\\cudnn64_9.dll"},
      {F(VERSION), M, "9.28.0.42"},
      {F(OTHER_PATH), M, "C:\\venv\\ctranslate2\\cudnn64_9.dll"},
      {F(OTHER_VERSION), M, "9.10.2.21"},
      {F(CONSUMER), M, "C:\\venv\\ctranslate2\\ctranslate2.dll"},
      {F(PLATFORM), M, "windows"}},
     1},
    {K(TWO_VERSIONS),
     "Windows: the older copy first",
     {{F(NAME), M, "cudnn64_9.dll"},
      {F(AMONG), M, "process"},
      {F(TAKEN), M, "C:\\venv\\ctranslate2\\cudnn64_9.dll"},
      {F(OTHER_PATH), M, "C:\\venv\\nvidia\\cudnn\\bin\\cudnn64_9.dll"},
      {F(OTHER_VERSION), M, "9.28.0.42"},
      {F(PLATFORM), M, "windows"}},
     0},
    {K(CUDA_MAJORS),
     "two CUDA majors in one process",
     {{F(CUDA_MAJOR), M, "12"},
      {F(PATH), M, "/venv/nvidia/cublas/lib/libcublas.so.12"},
      {F(OTHER_CUDA_MAJOR), M, "13"},
      {F(OTHER_PATH), M, "/venv/nvidia/cu13/lib/libcublas.so.13"},
      {F(AMONG), M, "file"}},
     0},
    {K(PRELOADED_COPY),
     "a copy LD_PRELOAD put first lacks symbols",
     {{F(CONSUMER), M, "/venv/torch/lib/libtorch_cuda.so"},
      {F(COUNT), M, "1"},
      {F(NAME), M, "libnccl.so.2"},
      {F(TAKEN), M, "/opt/nccl/libnccl.so.2"},
      {F(VERSION), M, "2.18.1"},
      {F(RULE), M, "already-loaded"},
      {F(SYMBOL), M, "ncclCommInitRankScalable"},
      {F(PLATFORM), M, "linux"},
      {F(CAUSES), M, "symbols-missing"},
      {F(PATH), M, "/opt/nccl/libnccl.so.2"},
      {F(LOADED_BY), M, "LD_PRELOAD"}},
     0},
    {K(LOADED_COPY),
     "an older copy a library of the process needs",
     {{F(NAME), M, "libcudnn.so.9"},
      {F(VERSION), M, "9.1.0"},
      {F(PATH), M, "/opt/other/libcudnn.so.9"},
      {F(OTHER_PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(OTHER_VERSION), M, "9.19.0"},
      {F(LOADED_BY), M, "/opt/other/libother.so"}},
     0},
    {K(LOADED_COPY),
     "the older copy a package ships",
     {{F(NAME), M, "libcudnn.so.9"},
      {F(VERSION), M, "9.1.0"},
      {F(PATH), M, "/venv/ctranslate2.libs/libcudnn.so.9"},
      {F(PACKAGE), M, "ctranslate2"},
      {F(OTHER_PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(OTHER_VERSION), M, "9.19.0"}},
     0},
    {K(CONFLICT),
     "the same version node in the global scope",
     {{F(PATH), M, "/opt/other/libcudnn.so.9"},
      {F(FAMILY), M, "cudnn"},
      {F(MAJOR), M, "9"},
      {F(VERSION_NODE), M, "libcudnn.so.9"},
      {F(OTHER_PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(WANTED), M, "9"},
      {F(SYMBOL), M, "cudnnCreate"}},
     0},
    {K(CONFLICT),
     "another major without symbol versions",
     {{F(PATH), M, "/opt/old/libcudnn.so.8"},
      {F(FAMILY), M, "cudnn"},
      {F(MAJOR), M, "8"},
      {F(OTHER_PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(WANTED), M, "9"},
      {F(SYMBOL), M, "cudnnCreate"}},
     0},
    {K(LOAD_FAILED),
     "a planned file",
     {{F(PATH), M, "/opt/app/lib/libcudnn.so.9"}},
     0},
    {K(ROOT_REFUSED),
     "writable by others",
     {{F(PATH), R, "/srv/open"},
      {F(REASON), M, "writable by every user (mode 0777)"}},
     0},
    {K(ROOT_UNUSABLE),
     "not a folder",
     {{F(PATH), R, "/opt/missing"}, {F(REASON), M, "not found"}},
     0},
    {K(ORPHAN),
     "a sub-library alone",
     {{F(FAMILY), M, "cudnn"},
      {F(MAJOR), M, "8"},
      {F(PATH), M, "/opt/app/lib/libcudnn_ops_infer.so.8"}},
     0},
    {K(LAZY_UNPROVIDED),
     "a planned library's lazy opens",
     {{F(LIBRARY), M, "cudnn_ops_infer"},
      {F(MAJOR), M, "8"},
      {F(CONSUMER), M, "/opt/cudnn8/lib/libcudnn_ops_infer.so.8"},
      {F(NAME), M, "libcublas.so.12, libcublasLt.so.12"},
      {F(FAMILY), M, "cublas"},
      {F(CUDA_MAJOR), M, "12"}},
     0},
    {K(LAZY_UNPROVIDED),
     "a package's library",
     {{F(PACKAGE), M, "ctranslate2"},
      {F(VERSION), M, "4.4.0"},
      {F(CONSUMER), M, "/venv/ctranslate2.libs/libctranslate2.so.4"},
      {F(NAME), M, "libcublas.so.12"},
      {F(FAMILY), M, "cublas"},
      {F(MAJOR), M, "13"},
      {F(CUDA_MAJOR), M, "12"}},
     0},
    {K(DRIVER_ABSENT), "no driver", {{F(NAME), M, "libcuda.so.1"}}, 0},
    {K(DRIVER_TOO_OLD),
     "the machine's driver",
     {{F(DRIVER), M, "525.60.13"},
      {F(CUDA_MAJOR), P, "12"},
      {F(CONSUMER), M, "/venv/nvidia/cuda_runtime/lib/libcudart.so.12"},
      {F(WANTED), M, "527.41"}},
     0},
    {K(DRIVER_TOO_OLD),
     "the message's driver",
     {{F(DRIVER), E, "11.4"}, {F(CUDA_MAJOR), E, "12"}},
     0},
    {K(DRIVER_TOO_OLD), "the message, no version", {{0, 0, NULL}}, 0},
    {K(PROBE_FAILED),
     "a stage failed",
     {{F(REASON), M, "no-device"},
      {F(STAGE), M, "cuInit"},
      {F(QUOTE), M, "CUDA_ERROR_NO_DEVICE"}},
     0},
    {K(PROBE_FAILED),
     "its summary",
     {{F(REASON), M, "no_device"},
      {F(QUOTE), M, "CPU_FALLBACK: no CUDA device is visible"}},
     0},
    {K(PROBE_FAILED),
     "could not run",
     {{F(REASON), M, "the driver could not be loaded"}},
     0},
    {K(ZLIB_MISSING),
     "cuDNN 9",
     {{F(MAJOR), M, "9"}, {F(PATH), M, "/opt/cudnn/lib/libcudnn.so.9"}},
     0},
    {K(DEVICE),
     "Windows' display watchdog",
     {{F(DEVICE), M, "0"},
      {F(NAME), M, "NVIDIA GeForce RTX 4090"},
      {F(REASON), M, "wddm-watchdog"},
      {F(VARIABLE), M, "TdrDelay"},
      {F(VALUE), M, "2"}},
     0},
    {K(DEVICE),
     "a display's watchdog",
     {{F(DEVICE), M, "1"},
      {F(NAME), M, "NVIDIA RTX A4000"},
      {F(REASON), M, "display-watchdog"}},
     0},
    {K(DEVICE),
     "compute mode prohibited",
     {{F(DEVICE), M, "0"},
      {F(NAME), M, "NVIDIA H100"},
      {F(REASON), M, "compute-prohibited"},
      {F(VALUE), M, "prohibited"}},
     0},
    {K(DEVICE),
     "exclusive and busy",
     {{F(DEVICE), M, "0"},
      {F(NAME), M, "NVIDIA H100"},
      {F(REASON), M, "compute-busy"},
      {F(VALUE), M, "exclusive-process"}},
     0},
    {K(DEVICE),
     "little free memory",
     {{F(DEVICE), M, "0"},
      {F(NAME), M, "NVIDIA H100"},
      {F(REASON), M, "memory-low"},
      {F(COUNT), M, "200"},
      {F(TOTAL), M, "81559"}},
     0},
    {K(VARIABLE),
     "no device visible",
     {{F(VARIABLE), M, "CUDA_VISIBLE_DEVICES"},
      {F(VALUE), M, "-1"},
      {F(REASON), M, "hides-every-device"}},
     0},
    {K(VARIABLE),
     "the probe finds none",
     {{F(VARIABLE), M, "CUDA_VISIBLE_DEVICES"},
      {F(VALUE), M, "7"},
      {F(REASON), M, "no-device"}},
     0},
    {K(VARIABLE),
     "every launch waits",
     {{F(VARIABLE), M, "CUDA_LAUNCH_BLOCKING"},
      {F(VALUE), M, "1"},
      {F(REASON), M, "slow"}},
     0},
    {K(MESSAGE),
     "the message's line",
     {{F(QUOTE), E, "CUDA driver version is insufficient"}},
     0},
    {K(UNREADABLE),
     "not a library",
     {{F(CONSUMER), M, "/opt/app/lib/libcudnn.so.9"}},
     0},
    {K(STOPPED),
     "a hostile file",
     {{F(CONSUMER), M, "/tmp/evil/libhuge.so"},
      {F(COUNT), M, "250000"},
      {F(REASON), M, "needs"},
      {F(TOTAL), M, "100000"},
      {F(SEARCHED), M, "5000 RUNPATH folders"}},
     0},
    {K(IN_PROCESS),
     "deleted after it was mapped",
     {{F(PATH), M, "/opt/app/lib/libcublas.so.12"},
      {F(LIBRARY), M, "cublas"},
      {F(MAJOR), M, "12"},
      {F(REASON), M, "deleted"}},
     0},
    {K(IN_PROCESS),
     "another file at its path, unread",
     {{F(PATH), M, "/opt/app/lib/libcublas.so.12"},
      {F(LIBRARY), M, "cublas"},
      {F(MAJOR), M, "12"},
      {F(VERSION), M, "12.4.5.8"},
      {F(REASON), M, "other-file-unread"}},
     0},
    {K(IN_PROCESS),
     "a cuDNN whose sub-libraries are another version's",
     {{F(REASON), M, "sub-library-mix"},
      {F(MAJOR), M, "9"},
      {F(PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(VERSION), M, "9.19.0"},
      {F(LIBRARY), M, "cudnn_ops"},
      {F(OTHER_PATH), M, "/opt/old/libcudnn_ops.so.9"},
      {F(OTHER_VERSION), M, "9.1.0"}},
     0},
    {K(IN_PROCESS),
     "more of them",
     {{F(REASON), M, "more-mixes"}, {F(COUNT), M, "3"}},
     0},
    {K(EMPTY_ENTRY),
     "an empty entry",
     {{F(CONSUMER), M, "/venv/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"},
      {F(PATH), M, "/venv/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"},
      {F(RULE), M, "runpath"},
      {F(VALUE), M, ""}},
     0},
    {K(EMPTY_ENTRY),
     "a relative entry",
     {{F(CONSUMER), M, "/venv/ctranslate2/_ext.so"},
      {F(PATH), M, "/venv/ctranslate2/_ext.so"},
      {F(RULE), M, "rpath"},
      {F(VALUE), M, "ctranslate2.libs"}},
     0},
    {K(PLUGIN_UNUSABLE),
     "a plugin without TensorRT",
     {{F(CONSUMER), M,
       "/venv/onnxruntime/capi/libonnxruntime_providers_tensorrt.so"},
      {F(NAME), M, "libnvinfer.so.10"}},
     0},
    {K(PATH_MISSING),
     "absolute, another would do",
     {{F(PATH), E, "/opt/app/lib/libcudnn.so.8"},
      {F(REASON), M, "missing"},
      {F(BETTER), M, "/opt/cudnn8/lib/libcudnn.so.8"}},
     0},
    {K(PATH_MISSING),
     "relative, unreadable",
     {{F(PATH), E, "lib/libcudnn.so.8"}, {F(REASON), M, "relative"}},
     0},
    {K(OLDER_RELEASE),
     "JAX's words",
     {{F(FAMILY), E, "cudnn"},
      {F(WANTED), E, "8.6.0"},
      {F(VERSION), E, "8.5.0"},
      {F(TAKEN), M, "/opt/cudnn/lib/libcudnn.so.8"}},
     0},
    {K(NEWER_RELEASE),
     "the program's consumer",
     {{F(CONSUMER), P, "tensorflow"},
      {F(FAMILY), E, "cudnn"},
      {F(WANTED), E, "8.6.0"},
      {F(VERSION), E, "9.1.0"}},
     0},
    {K(CPU_BUILD),
     "a package's CPU build",
     {{F(CONSUMER), P, "torch 2.5.1+cpu"}, {F(PACKAGE), P, "torch"}},
     0},
    {K(PIN),
     "another version installed",
     {{F(CONSUMER), P, "torch 2.5.1"},
      {F(PACKAGE), P, "nvidia-cudnn-cu12"},
      {F(WANTED), P, "==9.1.0.70"},
      {F(VERSION), M, "9.19.0.56"}},
     0},
    {K(PIN),
     "not installed",
     {{F(PACKAGE), P, "nvidia-cublas-cu12"}, {F(WANTED), P, "==12.4.5.8"}},
     0},
    {K(DRIVER_HIDDEN),
     "the driver is here",
     {{F(NAME), E, "libcuda.so.1"},
      {F(PATH), M, "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}},
     0},
    {K(UNKNOWN_LIBRARY),
     "not a CUDA library",
     {{F(NAME), E, "libonnxruntime_providers_cuda.so"}},
     0},
    {K(UNKNOWN_LIBRARY),
     "one cuDNN 8 needs and does not ship",
     {{F(NAME), E, "zlibwapi.dll"},
      {F(FAMILY), M, "cudnn"},
      {F(MAJOR), M, "8"},
      {F(PLATFORM), M, "windows"},
      {F(REASON), M, "not-shipped"}},
     0},
    {K(NO_GPU_CODE), "the message", {{F(QUOTE), E, "no kernel image"}}, 0},
    {K(CUBLAS_INIT),
     "the message",
     {{F(QUOTE), E, "CUBLAS_STATUS_NOT_INITIALIZED"}},
     0},
    {K(SAME_FILES),
     "whose files lie there",
     {{F(PACKAGE), P, "nvidia-nccl-cu11"},
      {F(VERSION), P, "2.21.5"},
      {F(OTHER_PACKAGE), P, "nvidia-nccl-cu12"},
      {F(OTHER_VERSION), P, "2.21.5"},
      {F(NAME), P, "nvidia/nccl/lib/libnccl.so.2"},
      {F(COUNT), P, "4"},
      {F(PATH), P, "/venv/lib/python3.11/site-packages"},
      {F(TAKEN), P, "nvidia-nccl-cu11"},
      {F(REASON), P, "its RECORD's hashes match them"},
      {F(WANTED), P, "nvidia-nccl-cu12"}},
     0},
    {K(IF_USED),
     "a feature's library",
     {{F(REASON), P,
       "needed by /venv/cupy_backends/cuda/libs/cutensor.so (ELF NEEDED), "
       "if cuTENSOR (cupy.cuda.cutensor) is used"},
      {F(NAME), M, "libcutensor.so.2"},
      {F(CUDA_MAJOR), M, "12"}},
     0},
    {K(PIN_UNREAD),
     "a pin no PEP 440 text",
     {{F(NAME), P, "nvidia-cudnn-cu12"},
      {F(QUOTE), P, "nvidia-cudnn-cu12 (>=9,<<10)"},
      {F(CONSUMER), P, "torch 2.5.1"},
      {F(REASON), P, "no PEP 440 version specifier"}},
     0},
    {K(VERSION_UNTRUSTED),
     "a dist-info others can write",
     {{F(PATH), M, "/venv/nvidia/cudnn/lib/libcudnn.so.9"},
      {F(VERSION), M, "9"},
      {F(VALUE), M, "file-name"},
      {F(REASON), M,
       "/venv/nvidia_cudnn_cu12-9.1.0.70.dist-info is writable by every "
       "user"}},
     0},
    {K(NEEDED_UNPROVIDED),
     "a library no root holds",
     {{F(CONSUMER), M, "/venv/nvidia/cusolver/lib/libcusolver.so.11"},
      {F(NAME), M, "libnvJitLink.so.12"},
      {F(PLATFORM), M, "linux"},
      {F(FAMILY), M, "nvjitlink"},
      {F(MAJOR), M, "12"}},
     0},
    {K(CASE_TWINS),
     "two spellings of a DLL",
     {{F(PATH), M, "C:\\cuda\\bin\\cudnn64_9.dll"},
      {F(OTHER_PATH), M, "C:\\cuda\\bin\\CUDNN64_9.DLL"}},
     0},
    {K(SHARED_NAME),
     "a program's own copy",
     {{F(PATH), M, "/opt/cudnn8/lib/libcudnn.so.8"},
      {F(REQUIREMENT), R, "cudnn=8"},
      {F(OTHER_PATH), M, "/venv/torch/lib/libcudnn.so.8"},
      {F(CONSUMER), M, "/venv/torch/lib/libtorch_cuda.so"},
      {F(REASON), M, "version 8.5.0 is outside >=8.9"}},
     0},
    {K(UNEXPOSED),
     "a folder PATH cannot take",
     {{F(PATH), M, "C:\\a;b\\cudnn\\bin"},
      {F(REASON), M, "its name holds ';'"},
      {F(NAME), M, "cudnn_ops64_9.dll"}},
     0},
};

/* A fix of each shape, built by the same steps the stages use. */
static void build_fix(cl_fix *fix, int which) {
  cl_fix_step *s;
  switch (which) {
  case FIX_PIP:
    s = cl_fix_add(fix, CUDALOAD_FIX_INSTALL);
    cl_fix_arg(fix, s, "pip");
    cl_fix_arg(fix, s, "install");
    cl_fix_arg(fix, s, "nvidia-cublas-cu12==12.4.*");
    cl_fix_note(fix, s, "then pass its site-packages folder as a root");
    break;
  case FIX_EXEC:
    s = cl_fix_add(fix, CUDALOAD_FIX_RUN_PROGRAM);
    cl_fix_arg(fix, s, "cudaload");
    cl_fix_arg(fix, s, "exec");
    cl_fix_arg(fix, s, "--root");
    cl_fix_arg(fix, s, "/opt/app dir/lib");
    cl_fix_arg(fix, s, "--require");
    cl_fix_arg(fix, s, "cudnn=8");
    cl_fix_arg(fix, s, "--");
    cl_fix_arg(fix, s, "PROGRAM");
    cl_fix_note(fix, s, "PROGRAM: the program's command");
    break;
  case FIX_CHOICE:
    cl_fix_add_note(fix, "nothing says which CUDA major the program is built "
                         "for: install the build for it, one of:");
    for (int major = 13; major >= 12; --major) {
      char spec[64];
      snprintf(spec, sizeof spec, "nvidia-cudnn-cu%d==9.*", major);
      cl_fix_add_note(fix, "for a program built for CUDA %d:", major);
      s = cl_fix_add(fix, CUDALOAD_FIX_CHOICE);
      cl_fix_arg(fix, s, "pip");
      cl_fix_arg(fix, s, "install");
      cl_fix_arg(fix, s, spec);
    }
    break;
  case FIX_CHMOD:
    s = cl_fix_add(fix, CUDALOAD_FIX_COMMAND);
    cl_fix_arg(fix, s, "chmod");
    cl_fix_arg(fix, s, "go-w");
    cl_fix_arg(fix, s, "/srv/open dir");
    cl_fix_note(fix, s, "or, accepting the risk, --allow-writable-roots");
    break;
  case FIX_ENV:
    s = cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE);
    cl_fix_env(fix, s, "LD_LIBRARY_PATH", "/opt/R&D dir/it's/lib");
    cl_fix_note(fix, s, "before the program starts");
    break;
  default:
    cl_fix_add_note(fix, "install the NVIDIA driver, then check with "
                         "nvidia-smi");
    break;
  }
}

/* Every case's words, as the golden file holds them. */
static char *render_all(void) {
  cl_buf out = CL_BUF_INIT;
  cl_buf_printf(&out, "# SPDX-License-Identifier: MIT\n");
  cl_buf_printf(&out,
                "# The words of every problem kind (tests/test_problem_words.c"
                " makes\n# them from fixed facts). Rewrite with "
                "CUDALOAD_UPDATE_GOLDEN=1 and read the diff.\n");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    const words_case *c = &cases[i];
    cl_problem_list list = CL_PROBLEM_LIST_INIT;
    cl_problem *p = cl_problem_add(&list, c->kind);
    assert_non_null(p);
    for (size_t f = 0; f < 12 && c->facts[f].fact; ++f)
      cl_problem_fact(&list, p, c->facts[f].fact, c->facts[f].source,
                      c->facts[f].value);
    p->note = c->note;
    assert_int_equal(cl_problem_words(p, CL_SHELL_POSIX), CUDALOAD_OK);
    cl_buf_printf(&out, "\n[%s: %s]%s\n%s\n",
                  cudaload_problem_kind_name(c->kind), c->variant,
                  p->note ? " (a note)" : "", p->text);
    cl_problem_list_free(&list);
  }
  /* A fix on one line, as the plan's error and env's warnings print it. */
  for (int shape = 0; shape < FIX_SHAPES; ++shape) {
    cl_fix fix = {0};
    build_fix(&fix, shape);
    char *posix = cl_fix_line_text(&fix, CL_SHELL_POSIX);
    char *windows = cl_fix_line_text(&fix, CL_SHELL_CMD_AND_POWERSHELL);
    assert_non_null(posix);
    assert_non_null(windows);
    cl_buf_printf(&out, "\n[fix: %s]\n%s\nWindows: %s\n",
                  fix_shape_names[shape], posix, windows);
    free(posix);
    free(windows);
    cl_fix_free(&fix);
  }
  char *text = cl_buf_take(&out);
  assert_non_null(text);
  return text;
}

static char *read_golden(void) {
  FILE *f = fopen(GOLDEN_FILE, "rb");
  if (!f)
    return NULL;
  cl_buf b = CL_BUF_INIT;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    cl_buf_append(&b, chunk, n);
  fclose(f);
  /* A checkout with CRLF line ends holds the same words. */
  char *text = cl_buf_take(&b);
  char *to = text;
  for (const char *from = text; text && *from; ++from)
    if (!(from[0] == '\r' && from[1] == '\n'))
      *to++ = *from;
  if (text)
    *to = '\0';
  return text;
}

/* The line (1-based) where a and b first differ, and that line of each. */
static void first_difference(const char *a, const char *b) {
  size_t line = 1;
  const char *la = a, *lb = b;
  while (*a && *a == *b) {
    if (*a == '\n') {
      ++line;
      la = a + 1;
      lb = b + 1;
    }
    ++a, ++b;
  }
  print_message("first difference at line %lu:\n  golden: %.*s\n  now:    "
                "%.*s\n",
                (unsigned long)line, (int)strcspn(lb, "\n"), lb,
                (int)strcspn(la, "\n"), la);
}

static void every_kind_has_its_words_in_the_golden_file(void **state) {
  (void)state;
  /* Every kind has a case: a new kind gets words here before it ships. */
  for (int kind = 1; kind <= LAST_KIND; ++kind) {
    int covered = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
      covered |= cases[i].kind == kind;
    if (!covered)
      fail_msg("problem kind %d (%s) has no case in tests/test_problem_words.c",
               kind, cudaload_problem_kind_name(kind));
  }
  assert_null(cudaload_problem_kind_name(LAST_KIND + 1));

  char *now = render_all();
  const char *update = getenv("CUDALOAD_UPDATE_GOLDEN");
  if (update && !strcmp(update, "1")) {
    FILE *f = fopen(GOLDEN_FILE, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(now, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    print_message("wrote %s\n", GOLDEN_FILE);
  }
  char *golden = read_golden();
  if (!golden)
    fail_msg("cannot read %s: make it with CUDALOAD_UPDATE_GOLDEN=1",
             GOLDEN_FILE);
  if (strcmp(golden, now) != 0) {
    first_difference(golden, now);
    fail_msg("the words differ from %s: if the change is meant, rerun with "
             "CUDALOAD_UPDATE_GOLDEN=1 and commit the file",
             GOLDEN_FILE);
  }
  free(golden);
  free(now);
}

/* A problem is said once: one already listed that holds all its facts
 * (and maybe more, the condition) is it; two unreadable pins of one
 * program that differ only in the pin's text are two problems. */
static void a_problem_is_listed_once_by_all_its_facts(void **state) {
  (void)state;
  cl_problem_list list = CL_PROBLEM_LIST_INIT;
  cl_problem *listed = cl_problem_add(&list, CUDALOAD_PROBLEM_PIN_UNREAD);
  assert_non_null(listed);
  cl_problem_fact(&list, listed, CUDALOAD_FACT_CONSUMER, CUDALOAD_FROM_PROGRAM,
                  "torch 2.5.1");
  cl_problem_fact(&list, listed, CUDALOAD_FACT_NAME, CUDALOAD_FROM_PROGRAM,
                  "nvidia-cudnn-cu12");
  cl_problem_fact(&list, listed, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_PROGRAM,
                  "nvidia-cudnn-cu12 (>=9,<<10)");
  cl_problem other;
  cl_problem_init(&other, CUDALOAD_PROBLEM_PIN_UNREAD);
  cl_problem_fact(NULL, &other, CUDALOAD_FACT_CONSUMER, CUDALOAD_FROM_PROGRAM,
                  "torch 2.5.1");
  cl_problem_fact(NULL, &other, CUDALOAD_FACT_NAME, CUDALOAD_FROM_PROGRAM,
                  "nvidia-cudnn-cu12");
  cl_problem_fact(NULL, &other, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_PROGRAM,
                  "nvidia-cudnn-cu12 (~=9.1.*)");
  assert_false(cl_problem_list_has(&list, &other));
  cl_problem_fact(NULL, &other, CUDALOAD_FACT_QUOTE, CUDALOAD_FROM_PROGRAM,
                  "nvidia-cudnn-cu12 (>=9,<<10)");
  assert_true(cl_problem_list_has(&list, &other));
  /* The listed one may say more (as it is, without cudaload)... */
  cl_problem_fact(&list, listed, CUDALOAD_FACT_CONDITION, CUDALOAD_FROM_MACHINE,
                  "as-it-is");
  assert_true(cl_problem_list_has(&list, &other));
  /* ...but a note is not a problem, nor another kind. */
  other.note = 1;
  assert_false(cl_problem_list_has(&list, &other));
  other.note = 0;
  other.kind = CUDALOAD_PROBLEM_PIN;
  assert_false(cl_problem_list_has(&list, &other));
  cl_problem_free(&other);
  cl_problem_list_free(&list);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_kind_has_its_words_in_the_golden_file),
      cmocka_unit_test(a_problem_is_listed_once_by_all_its_facts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
