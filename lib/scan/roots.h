/* SPDX-License-Identifier: MIT */
/*
 * roots.h - the default search roots of the host, in search order, by tier
 * (docs/scan-contract.md, "Precedence"): the active environment
 * (VIRTUAL_ENV, CONDA_PREFIX, then the site folders of the python3 on PATH;
 * or the folders the caller gave as its environment), the variables
 * (CUDNN_PATH, CUDA_PATH, CUDA_PATH_V*_*, CUDA_HOME), toolkit folders, then
 * the system (Linux: /etc/ld.so.cache read directly, then the default
 * library folders; Windows: System32 for the driver). Explicit roots come
 * before all of them.
 */
#ifndef CUDALOAD_ROOTS_H
#define CUDALOAD_ROOTS_H

#include "scan/catalog.h"
#include "common/reason_words.h"

/* The origin given to the ld.so.cache pseudo-root, whose "path" is the cache
 * file: the scan reads the cache's entries instead of listing a folder. */
#define CL_ORIGIN_LDCACHE "ld.so.cache"

/* The origins of the environment tier that are not variable names: the
 * folders a binding passes for its own interpreter, and those of the
 * python3 found on PATH. */
#define CL_ORIGIN_INTERPRETER "interpreter"
#define CL_ORIGIN_PYTHON_ON_PATH "python3 on PATH"
/* CL_ORIGIN_NEARBY (the folders near the current one) and
 * CL_ORIGIN_PROGRAM (a folder the loader searches for a program's own
 * needs: its RUNPATH, $ORIGIN, LD_LIBRARY_PATH; the system tier, searched
 * last) are words, common/reason_words.h's. */
/* A folder an environment's cudaload.roots names (scan/recorded_roots.h):
 * the environment's own, so of its tier. */
#define CL_ORIGIN_RECORDED "cudaload.roots"

/* An earlier tier wins over a later one whatever the versions: the
 * environment the user activated is what they mean. */
typedef enum cl_root_tier {
  CL_TIER_EXPLICIT = 0,
  CL_TIER_ENVIRONMENT,
  CL_TIER_VARIABLE,
  CL_TIER_TOOLKIT,
  CL_TIER_SYSTEM
} cl_root_tier;

cl_root_tier cl_origin_tier(const char *origin);
/* "explicit", "environment", "variable", "toolkit", "system". */
const char *cl_tier_name(cl_root_tier tier);

/* origin is a static string naming where the root came from. */
typedef void (*cl_root_visitor)(const char *path, const char *origin,
                                void *opaque);

/* with_environment: 0 when the caller gave the environment's folders
 * itself (cudaload_add_environment_root). */
void cl_default_roots(cl_naming naming, int with_environment,
                      cl_root_visitor visit, void *opaque);

/* The active environment's folders (environment.c): VIRTUAL_ENV,
 * CONDA_PREFIX, then the site folders of the python3 (Windows: python.exe)
 * first on PATH, read from the file system without running it. */
void cl_environment_roots(cl_root_visitor visit, void *opaque);
/* The interpreter a command line's "python3" runs (Windows: python.exe):
 * the first in PATH's absolute folders, malloc'ed; NULL when there is
 * none. */
char *cl_python_on_path(void);
/* The interpreter that runs the programs of an environment, for a command
 * a user can type (environment.c): folder a venv or conda prefix (its
 * bin/python3 or bin/python; Windows: Scripts\python.exe or python.exe), a
 * site-packages folder (the interpreter of the prefix it lies in), or NULL
 * for the active environment (VIRTUAL_ENV, CONDA_PREFIX, else the python3
 * first on PATH). Malloc'ed absolute path of a file that exists, or NULL
 * when none is found. Sets no error. */
char *cl_environment_interpreter(const char *folder);
/* The folders of the interpreter `program` (an absolute path), read without
 * running it, as for the python3 on PATH: its venv root (pyvenv.cfg), its
 * conda prefix, or its site folders. */
void cl_interpreter_roots(const char *program, cl_root_visitor visit,
                          void *opaque);

/* Environments near the current folder, which a scan never searches (the
 * result must not depend on where the caller stands, and a folder someone
 * else made could plant libraries): the current folder itself, ./.venv,
 * ./venv, ./.env, ./env, ./.conda when one is a venv (pyvenv.cfg) or a
 * conda environment (conda-meta/). A fix line names them ("activate it or
 * pass --environment DIR"); origin is CL_ORIGIN_NEARBY. */
void cl_nearby_environments(cl_root_visitor visit, void *opaque);

#endif
