/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - what the loader would do, judged by the one loader model
 * (resolve.c: the search; bind.c: symbol binding). For files opened in a
 * modelled process (cudaload_preload's loads by absolute path, a program's
 * own files, the names they open by name at run time) it records the tree
 * the loader maps, where each CUDA reference binds, and what goes wrong, as
 * data (findings). `cudaload explain` shows it; the doctor lists its
 * findings with their fixes; the plan, cudaload_preload() and `exec` decide
 * with it. There is no second, simpler model anywhere: a question "would the
 * loader find X, and would X do?" is asked here.
 */
#ifndef CUDALOAD_VERDICT_H
#define CUDALOAD_VERDICT_H

#include "cudaload.h"
#include "core/context.h"
#include "loader/bind.h"
#include "load/program.h"
#include "loader/resolve.h"
#include "problem/problem.h"
#include "load/verdict_binding_findings.h"
#include "load/verdict_bindings.h"
#include "load/verdict_cuda_names.h"
#include "load/verdict_finding.h"
#include "load/verdict_mixes.h"
#include "load/verdict_search_findings.h"
#include "load/verdict_types.h"
#include "load/verdict_versions.h"

#include <stddef.h>

/* A new, empty verdict (cudaload_explain_free frees it). */
cudaload_explain *cl_verdict_new(void);

/* Model opening `path` (absolute) in m from no object, with the names each
 * file opens at run time (unless CL_VERDICT_NO_LAZY); record the objects,
 * their needs and bindings and the findings in e. ctx gives the versions
 * (its inventory) and the naming. 0 or a CUDALOAD_E_* status (memory). */
int cl_verdict_open(cudaload_explain *e, cudaload_ctx *ctx, cl_loader_model *m,
                    const char *path, unsigned how);

/* Model a program's own files (cudaload_require_for's, or an
 * environment's: cl_program_files_in) opened as it opens
 * them, with `how`. A plugin whose needs include a library no root holds
 * and cudaload does not know gives one note (CL_FINDING_PLUGIN_UNUSABLE)
 * instead of its findings: the program runs without it. */
int cl_verdict_open_program(cudaload_explain *e, cudaload_ctx *ctx,
                            cl_loader_model *m, const cl_program_set *set,
                            unsigned how);

/* Model `path` as already loaded in m (a plan preloaded before the file
 * asked about is opened; m NULL: it is loaded already): recorded in the
 * model, its folder exposed on
 * Windows (CL_VERDICT_PRELOAD), its symbols in the global scope
 * (CL_VERDICT_GLOBAL); its own tree is not modelled. */
int cl_verdict_assume_loaded(cudaload_explain *e, cl_loader_model *m,
                             const char *path, const char *soname,
                             unsigned how);

/* Expose the folder of `path` as cudaload_preload does for a file it
 * leaves to its opener (Windows: PATH and AddDllDirectory; Linux: none). */
int cl_verdict_expose_folder(cl_loader_model *m, const char *path);

/* Whether e holds a not-found finding for name (one of its names), compared
 * as the naming's loader compares names: a failure already said. */
int cl_verdict_not_found_named(const cudaload_explain *e, const char *name,
                               cl_naming naming);

/* Model `name` opened by name from inside `requester` (a file the model has
 * loaded, or NULL: the program itself), as a run-time dlopen/LoadLibrary. */
int cl_verdict_open_by_name(cudaload_explain *e, cudaload_ctx *ctx,
                            cl_loader_model *m, const char *requester,
                            const char *name, unsigned how);

/* The run-time opens of a file the model has loaded (cuDNN's shim opens its
 * sub-libraries, cuDNN 8's sub-libraries open cuBLAS), each from inside it.
 */
int cl_verdict_open_lazy_of(cudaload_explain *e, cudaload_ctx *ctx,
                            cl_loader_model *m, const char *path, unsigned how);

/* Record the object of `path` (a CUDA library or a consumer) in e; used for
 * a running process's maps. NULL when memory ran out. */
cl_explain_object *cl_verdict_object(cudaload_explain *e, cudaload_ctx *ctx,
                                     const char *path, const char *soname,
                                     int consumer);

/* What LD_PRELOAD and /etc/ld.so.preload (m->ld_preload,
 * m->system_preload) put first, in the global scope: in a process about to
 * start (in_process 0) each is opened; in this process (1) each is found
 * among the loaded objects. Their CUDA libraries join e's objects, so that
 * explain and the doctor show what comes first. */
int cl_verdict_preloads(cudaload_explain *e, cudaload_ctx *ctx,
                        cl_loader_model *m, int in_process);

/* A model of the process a plan's preload runs in, with the plan's files
 * loaded as cudaload_preload loads them (in plan order, by absolute path,
 * their folders exposed on Windows), then the run-time opens of the
 * planned libraries: the verdict every decision of preload, the doctor and
 * exec is made from. m is the process (this one, or a child about to
 * start); flags are the preload's (CUDALOAD_PRELOAD_GLOBAL). */
int cl_verdict_of_plan(cudaload_ctx *ctx, cl_loader_model *m, unsigned flags,
                       cudaload_explain **out);

#endif
