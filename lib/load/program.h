/* SPDX-License-Identifier: MIT */
/*
 * program.h - requirements from the program itself (cudaload_require_for):
 * the CUDA libraries a binary, an installed Python module or distribution,
 * or an interpreter's environment needs, read from its files (their NEEDED
 * names and imports, the renamed copies they bundle, the names a known
 * consumer opens at run time) and its distribution's Requires-Dist pins,
 * each with where it came from (program.c).
 */
#ifndef CUDALOAD_PROGRAM_H
#define CUDALOAD_PROGRAM_H

#include "core/context.h"
#include "load/plan_state.h"

/* The origin recorded for requirement text in ctx, or NULL. */
const char *cl_requirement_origin_of(const cudaload_ctx *ctx, const char *text);

/* A program's files that use CUDA libraries (a binary, a distribution's
 * libraries), and which of them are plugins: libraries no file of their
 * distribution needs and no import loads, opened by path only when the
 * program asks for one (onnxruntime's TensorRT provider). */
typedef struct cl_program_set {
  char **files;
  size_t file_count;
  char **plugins;
  size_t plugin_count;
  /* Libraries its packages load themselves by absolute path before their
   * files open CUDA libraries (JAX's plugin: consumers.h,
   * cl_package_preload), in their order: in the process by then. */
  char **preloads;
  size_t preload_count;
  /* Libraries a package loads by path only when the program calls
   * call_names[i] (onnxruntime.preload_dlls()): not loaded as it is; a fix
   * may say to call it. */
  char **call_files;
  const char **call_names;
  size_t call_file_count;
} cl_program_set;

/* The set cudaload_require_for() recorded in ctx (borrowed). */
cl_program_set cl_program_set_of(const cudaload_ctx *ctx);

/* Whether path is one of the set's plugins. */
int cl_program_plugin(const cl_program_set *set, const char *path);

/* The programs installed in an environment root (a venv, conda prefix or
 * site-packages folder): the known CUDA-using distributions there and
 * those pinning NVIDIA's wheels, as cudaload_require_for() of an
 * interpreter of that environment finds them. Free with
 * cl_program_set_free. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_program_files_in(cudaload_ctx *ctx, const char *root,
                        cl_program_set *set);

void cl_program_set_free(cl_program_set *set);

#endif
