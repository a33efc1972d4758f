/* SPDX-License-Identifier: MIT */
/*
 * context.h - what a cudaload_ctx holds: the roots to search and the
 * inventory the last scan produced (roots -> inventory; later stages read
 * the inventory and never the disk again).
 */
#ifndef CUDALOAD_CONTEXT_H
#define CUDALOAD_CONTEXT_H

#include "cudaload.h"

#include <stddef.h>

/* The roots the last scan searched and what it found there
 * (scan/inventory.h). */
typedef struct cl_inventory cl_inventory;

/* The requirements, the plan made for them and what the environment and
 * preload said of it (load/plan_state.h). */
typedef struct cl_plan_state cl_plan_state;

/* What was read from library files (binary/file_cache.h), kept for the
 * life of the context. */
typedef struct cl_file_cache cl_file_cache;

/* What the last manifest loaded set (load/manifest.h). */
typedef struct cl_manifest_state cl_manifest_state;

/* The messages the last text read held (load/error_message.h). */
typedef struct cl_error_messages cl_error_messages;

/* Problems as records (problem/problem.h). */
typedef struct cl_problem_list cl_problem_list;

/* What cudaload fix worked out of the last report's steps (fix/fix_check.h). */
typedef struct cl_fix_state cl_fix_state;

struct cudaload_ctx {
  unsigned flags;
  int target; /* CUDALOAD_TARGET_* */
  char **explicit_roots;
  size_t explicit_count, explicit_capacity;
  /* The caller's own environment (a binding's interpreter site folders):
   * they replace VIRTUAL_ENV, CONDA_PREFIX and the python3 on PATH. */
  char **environment_roots;
  size_t environment_count, environment_capacity;

  /* What the last scan found, owned by the scan (scan/inventory.h, read
   * through cl_inventory_of()); NULL until the first scan. inventory_free
   * is set by the code that makes it, so that the handle frees it without
   * knowing the stage. */
  cl_inventory *inventory;
  void (*inventory_free)(cl_inventory *inventory);

  /* Headers, symbols and names of the files read so far (file_cache.c),
   * and what frees it, set by the code that makes it. */
  cl_file_cache *file_cache;
  void (*file_cache_free)(cl_file_cache *cache);
  /* Folders where the loader finds what a program (cudaload_require_for of
   * a file) needs: its RPATH/RUNPATH, $ORIGIN, LD_LIBRARY_PATH. The scan
   * searches them last (CL_ORIGIN_PROGRAM), defaults or not: the program
   * takes its libraries from there whatever the roots given. Roots of the
   * handle, as the roots given are: added only through
   * cl_ctx_add_program_root() (naming a program names them), read by the
   * scan. */
  char **program_roots;
  size_t program_root_count, program_root_capacity;

  /* The requirements and the plan, owned by the load stage
   * (load/plan_state.h, read through cl_plan_state_of()); NULL until a
   * requirement or a plan is made. plan_state_clear and plan_state_free are
   * set by the code that makes it: cl_ctx_clear_plan() drops the plan for
   * the scan, which comes before the plan and so cannot call it. */
  cl_plan_state *plan_state;
  void (*plan_state_clear)(cl_plan_state *state);
  void (*plan_state_free)(cl_plan_state *state);

  /* cudaload_read_error_message(): the messages of the last text read,
   * owned by that stage (load/error_message.h); NULL until a text is read.
   * error_messages_free is set by the code that makes them. */
  cl_error_messages *error_messages;
  void (*error_messages_free)(cl_error_messages *messages);
  /* "Problems and fixes" of the last cudaload_doctor() report: how many,
   * and the records (problem/problem.h), owned by the problem stage, which
   * sets doctor_problems_free; NULL before the first report. */
  size_t doctor_problem_count;
  cl_problem_list *doctor_problems;
  void (*doctor_problems_free)(cl_problem_list *list);
  /* Counted up each time those records are replaced, so that what a later
   * stage worked out of them knows when it is stale. */
  unsigned long doctor_serial;
  /* cudaload fix: the command it made of one step of those records, owned
   * by the fix stage (fix/fix_check.h), which sets fix_state_free; NULL
   * until asked. */
  cl_fix_state *fix_state;
  void (*fix_state_free)(cl_fix_state *state);

  /* What cudaload_load_manifest() committed, owned by the manifest stage
   * (load/manifest.h, read through cl_manifest_of()); NULL until a manifest
   * is loaded. The requirements and roots it names join the lists above.
   * manifest_free is set by the code that makes it, so that the handle
   * frees it without knowing the stage. */
  cl_manifest_state *manifest;
  void (*manifest_free)(cl_manifest_state *manifest);

  /* What cudaload_set_driver() chose (context.c): read by the plan and the
   * probe. */
  char *probe_driver_path; /* absolute; NULL: the default driver */
};

/* Drop the plan, its warnings and conflicts (requirements stay), through
 * the function the load stage set; nothing when no plan state was made. */
void cl_ctx_clear_plan(cudaload_ctx *ctx);

/* Add folder to the roots a named program brings (program_roots), taking
 * it (freed with the handle; at once when already there). 0, or
 * CUDALOAD_E_NO_MEMORY (folder freed). */
int cl_ctx_add_program_root(cudaload_ctx *ctx, char *folder);

/* A handle for one report of ctx's (the doctor; explain when nothing is
 * planned): a copy of ctx's fields, lending it ctx's roots, inventory, file
 * cache and the stages' state, so that the report plans and judges in a
 * plan state of its own (load/plan_state.h, cl_plan_state_own()) and ctx is
 * read, never written. Lent, not given: the report must not scan or add
 * roots through it (the report scans ctx first), and ends it with
 * cl_ctx_lent_end(), which frees what it made of its own, nothing of ctx's.
 * Nothing made through it may outlive that (an explain object's handle is
 * ctx again before it is returned). */
void cl_ctx_lend(const cudaload_ctx *ctx, cudaload_ctx *lent);
void cl_ctx_lent_end(const cudaload_ctx *ctx, cudaload_ctx *lent);

/* Make room for count more roots given (explicit_roots), so that
 * cl_ctx_take_roots() cannot fail: a manifest commits all or nothing. 0, or
 * CUDALOAD_E_NO_MEMORY with ctx unchanged. */
int cl_ctx_reserve_roots(cudaload_ctx *ctx, size_t count);
/* Add roots[0..count) to the roots given, taking them (absolute, with the
 * host's separators), after cl_ctx_reserve_roots() made room. */
void cl_ctx_take_roots(cudaload_ctx *ctx, char **roots, size_t count);

#endif
