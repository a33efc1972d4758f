/* SPDX-License-Identifier: MIT */
/*
 * plan_state.h - what the load stage keeps in a context: the requirements,
 * the plan made for them, and what the environment and the preload said of
 * it (plan_state.c makes, clears and frees it; spec.c, program.c, plan.c,
 * preload.c, env.c and env_warnings.c fill it).
 */
#ifndef CUDALOAD_PLAN_STATE_H
#define CUDALOAD_PLAN_STATE_H

#include "common/fix_steps.h"
#include "problem/problem.h"
#include "core/context.h"
#include "scan/catalog.h"

#include <stddef.h>

/* A parsed requirement ("cudnn>=8.9"). */
typedef enum cl_version_op {
  CL_OP_ANY = 0, /* "cudart": any version, newest wins */
  CL_OP_EQ,      /* "=8" (major) or "=8.9" (prefix) */
  CL_OP_GE,
  CL_OP_GT,
  CL_OP_LE,
  CL_OP_LT
} cl_version_op;

#define CL_VERSION_PARTS 4
/* The largest number one part of a version may be (nine digits: fits a
 * 32-bit long). Versions read from files are clamped to it; a requirement
 * naming a larger one is refused. */
#define CL_VERSION_PART_MAX 999999999L
typedef struct cl_requirement {
  char *text;                    /* normalised: "cudnn>=8.9" */
  const cl_catalog_entry *entry; /* the family's main library */
  cl_version_op op;
  long version[CL_VERSION_PARTS]; /* parsed, unused parts 0 */
  int version_parts;              /* how many were given */
  /* While parsing: the group the name required ("npp"), expanded into one
   * requirement per main library of the group (spec.c); NULL after. */
  const char *group;
  /* The least version a program's distribution pins (Requires-Dist:
   * nvidia-cudnn-cu12==9.1.0.70 -> 9.1.0.70), beside op and version;
   * at_least_parts 0: none (program.c). */
  long at_least[CL_VERSION_PARTS];
  int at_least_parts;
  /* Who asked for it (CUDALOAD_FROM_*): the caller's request, the program
   * (--for), the error message (--error); 0 reads as the request. */
  int source;
} cl_requirement;

/* Where a requirement cudaload_require_for() derived came from: "needed by
 * .../libonnxruntime_providers_cuda.so (ELF NEEDED)", "Requires-Dist:
 * nvidia-cudnn-cu12==9.1.0.70 of torch 2.5.1"; by the requirement's text. */
typedef struct cl_requirement_origin {
  char *text;
  char *origin;
} cl_requirement_origin;

/* One file of the plan. */
typedef struct cl_plan_entry {
  const cl_catalog_entry *entry;
  int major;
  char *path;        /* real, absolute */
  char *soname;      /* ELF SONAME or the DLL's file name */
  char *reason;      /* why it is in the plan */
  int state;         /* CUDALOAD_STATE_* */
  char *loaded_path; /* what the process uses, "" before preload */
  size_t requirement;
  int to_load; /* 0 for sub-libraries the main library finds itself */
  /* A lazy dependency's entry (cuBLAS 12 for cuDNN 8): the absolute path of
   * the planned file that opens it by name; NULL for every other entry. */
  char *opened_by;
} cl_plan_entry;

/* A candidate file a requirement did not take, and why. */
typedef struct cl_rejection {
  char *path;
  char *why; /* "version 8.9.7 does not satisfy >=9", "x was preferred" */
} cl_rejection;

/* The plan's outcome for one requirement, as data: the report, the last
 * error, the doctor and the probe are rendered from it (nothing parses the
 * prose back). */
typedef struct cl_requirement_outcome {
  cl_rejection *rejected; /* in inventory order */
  size_t rejected_count, rejected_capacity;
  size_t chosen;    /* index into ctx->libraries, SIZE_MAX: unsatisfied */
  char *fix;        /* unsatisfied: what fixes it, as one line */
  cl_fix fix_steps; /* the same as steps (common/fix_steps.h) */
  /* The CUDA major the fix installs for, who says so (CUDALOAD_FROM_*)
   * and why; 0 and NULL when nothing tells (fix_lines.c). */
  int fix_cuda_major, fix_cuda_source;
  char *fix_cuda_why;
  /* The CUDA major this requirement took when it is not the plan's: named
   * by the requirement (cublas=12), or the only one that satisfies it
   * (cudnn=8 beside CUDA 13). 0 otherwise. */
  int second_major;
} cl_requirement_outcome;

/* A plan's warning, as data for the doctor (a problem record) and as one
 * text for cudaload_plan_warning(). */
typedef struct cl_plan_warning {
  /* Its kind (CUDALOAD_PROBLEM_*), facts and fix as steps
   * (problem/problem.h); problem.text and problem.fix_text are its words
   * (problem/problem_words.c). */
  cl_problem problem;
  char *file; /* the first file name it is about: "libcublas.so.12" */
  char *text; /* problem.text + ": " + problem.fix_text */
} cl_plan_warning;

/* Make *w from problem (taken over: left empty) and file, its words for
 * shell. 0, or CUDALOAD_E_NO_MEMORY (then w holds nothing). */
int cl_plan_warning_make(cl_plan_warning *w, cl_problem *problem,
                         const char *file, cl_shell_kind shell);
/* A copy of from into to: 0 or CUDALOAD_E_NO_MEMORY. */
int cl_plan_warning_copy(cl_plan_warning *to, const cl_plan_warning *from);

/* Free what a warning holds (not the warning). */
void cl_plan_warning_free(cl_plan_warning *w);

/* A need of the program's only when it uses a feature ("if used": CuPy's
 * cuTENSOR module, onnxruntime's TensorRT provider, another program of
 * the same environment): planned where a root holds it for the plan's
 * CUDA major, else a warning with its fix; never unsatisfied, never what
 * decides the plan's CUDA major (program.c derives them, plan.c plans
 * them). */
typedef struct cl_optional_need {
  const cl_catalog_entry *entry; /* the family's main library */
  int major;
  /* The CUDA major of the program that needs it (a ctranslate2 built for
   * CUDA 11 beside a CUDA 12 torch), 0 when it does not say: its library
   * and its fix are of that major, else of the plan's. */
  int cuda_major;
  char *opener; /* the file that would load it */
  char *why;    /* "needed by .../cutensor...so (ELF NEEDED), if cuTENSOR
                   (cupy.cuda.cutensor) is used" */
} cl_optional_need;

typedef struct cl_conflict {
  char *path; /* the file in the global scope */
  /* What will go wrong (CUDALOAD_PROBLEM_CONFLICT, its facts and fix);
   * problem.text and problem.fix_text its words. */
  cl_problem problem;
  char *text; /* problem.text + " Fix: " + problem.fix_text
                 (cudaload_conflict_text) */
} cl_conflict;

/* Pin the plan's CUDA major from what the consumer says (the program's
 * needs, its error message: source CUDALOAD_FROM_PROGRAM or _MESSAGE),
 * with why in words; a pin the request made (cuda=MAJOR) is kept. 0 or
 * CUDALOAD_E_NO_MEMORY. */
int cl_plan_pin_cuda(cudaload_ctx *ctx, int major, int source, const char *why);

/* The load stage's state. Its invalidation rule:
 *  - the requirements (and their origins, the program's files and plugins,
 *    the CUDA pin) are added by cudaload_require(), cudaload_require_for()
 *    and cudaload_load_manifest(), and stay for the life of the context;
 *  - the plan (entries, outcomes, warnings, conflicts, its CUDA major and
 *    reason) is dropped, its strings with it, by every call that re-plans
 *    or changes what a plan would see: cudaload_scan(), cudaload_require*(),
 *    a manifest, and cudaload_plan() itself, which cudaload_preload() and
 *    cudaload_open_isolated() always call, and cudaload_env_*() when
 *    nothing is planned (the doctor and explain plan in a state of their
 *    own, in a handle of their own: cl_plan_state_own());
 *  - the environment's value and warnings are replaced by the next
 *    cudaload_env_*() call.
 * Freed with the context. */
struct cl_plan_state {
  int cuda_pin; /* cuda=MAJOR: the plan's CUDA major; 0: none */
  /* Who pinned it (CUDALOAD_FROM_*: the request's cuda=MAJOR, the program's
   * own needs, the error message) and in words ("libfoo.so needs
   * libcudart.so.12"); NULL for a request's pin. */
  int cuda_pin_source;
  char *cuda_pin_why;
  /* The plan's CUDA major and what decided it (cudaload_plan). */
  int plan_cuda_major;
  /* 1 when nothing of the caller's said it: the newest CUDA major found on
   * the machine, or the newest its driver supports (plan.c). */
  int plan_cuda_guessed;
  char *plan_cuda_reason;
  cl_requirement *requirements;
  size_t requirement_count, requirement_capacity;
  cl_requirement_origin *origins; /* of derived requirements (program.c) */
  size_t origin_count, origin_capacity;
  /* The program cudaload_require_for() was given: its own files that use
   * CUDA libraries (a binary, a module's extension libraries), which the
   * loader model opens as the program would (doctor, preload, exec). */
  char **program_files;
  size_t program_file_count, program_file_capacity;
  /* The targets cudaload_require_for() was given, as given ("torch",
   * "/opt/app/bin/app"), joined by ", "; NULL when none. */
  char *program_targets;
  /* Of those, the plugins: libraries no file of their distribution needs,
   * opened by path when the program asks for one (program.c). */
  char **program_plugins;
  size_t program_plugin_count, program_plugin_capacity;
  /* What the program's packages load by path themselves (program.h,
   * cl_program_set: preloads, call_files and call_names). */
  char **program_preloads;
  size_t program_preload_count, program_preload_capacity;
  char **program_call_files;
  size_t program_call_file_count, program_call_file_capacity;
  const char **program_call_names; /* static text (consumers.c) */
  size_t program_call_name_capacity;
  /* What the program needs only if it uses a feature (above). */
  cl_optional_need *optional_needs;
  size_t optional_need_count, optional_need_capacity;
  /* The CUDA major the program says it is built for (its own needs, its
   * distribution's pins, its build tag) and where that was read; 0 and
   * NULL when nothing says. The plan takes it before the libraries'. */
  int program_cuda_major;
  char *program_cuda_reason;
  /* What cudaload_require_for() found wrong with the program itself (two
   * distributions owning the same files, a pin it could not read), each
   * with its identity: every plan adds them to its warnings. */
  cl_plan_warning *program_warnings;
  size_t program_warning_count, program_warning_capacity;
  /* The targets cudaload_require_for() was given, as given ("torch", a
   * binary's or an interpreter's path, a venv): the doctor's fix runs the
   * program through `cudaload exec --for TARGET -- COMMAND`. */
  char **for_targets;
  size_t for_target_count, for_target_capacity;
  cl_plan_entry *plan;
  size_t plan_count, plan_capacity;
  int planned;
  cl_requirement_outcome *outcomes; /* one per requirement, after a plan */
  size_t outcome_count;
  cl_conflict *conflicts;
  size_t conflict_count, conflict_capacity;
  /* What the plan could not arrange but does not fail for (a library
   * opened lazily that nothing provides): cudaload_plan_warning(). */
  cl_plan_warning *plan_warnings;
  size_t plan_warning_count, plan_warning_capacity;
  char *env_value;
  /* cudaload_env_warnings(): one sentence each (env_warnings.c). */
  char **env_warnings;
  size_t env_warning_count, env_warning_capacity;
  /* per warning: 1 when it makes the child's loads fail (exec stops) */
  unsigned char *env_warning_fatal;
  /* What the child needs beyond the search-path variable, decided by the
   * last cudaload_env_warnings() (env_warnings.c): variables to set
   * (LD_PRELOAD: the planned files a consumer would otherwise take from
   * another copy) or to unset (value NULL: CUDA_PATH naming another CUDA
   * major). cudaload_env_change(). */
  char **env_change_names;
  char **env_change_values;
  size_t env_change_count, env_change_capacity;
};

/* Record a target cudaload_require_for() read (a copy), once. 0 or
 * CUDALOAD_E_NO_MEMORY. */
int cl_plan_state_add_program_target(cudaload_ctx *ctx, const char *target);

/* Append a warning of cudaload_env_check() (text taken over, freed on
 * failure); fatal: it makes the child's loads fail. 0 or
 * CUDALOAD_E_NO_MEMORY (also for a NULL text). */
int cl_plan_state_add_env_warning(cl_plan_state *ps, char *text, int fatal);

/* Drop the child's changes of the last cudaload_env_warnings(). */
void cl_plan_state_clear_env_changes(cl_plan_state *ps);

/* Add a change for the child: set name to value, or unset it (value NULL).
 * 0 or CUDALOAD_E_NO_MEMORY. */
int cl_plan_state_add_env_change(cl_plan_state *ps, const char *name,
                                 const char *value);

/* ctx's state, or an empty one (nothing required, nothing planned) before
 * any was made or for a NULL ctx (the public getters' case): never NULL,
 * for readers. */
const cl_plan_state *cl_plan_state_of(const cudaload_ctx *ctx);
/* ctx's state for a writer, made on first use; NULL (and the last error
 * set) only when out of memory. */
cl_plan_state *cl_plan_state_make(cudaload_ctx *ctx);

/* Give a report's handle (core/context.h, cl_ctx_lend()) a plan state of
 * its own, holding copies of users' requirements (origins, program files
 * and plugins, CUDA pin) and nothing planned, for a call that plans for a
 * report (the doctor, explain): it plans into that state, and the caller's
 * plan and its strings stay as they were, unwritten. cl_ctx_lent_end()
 * frees it. CUDALOAD_OK, or CUDALOAD_E_NO_MEMORY with report unchanged. */
int cl_plan_state_own(cudaload_ctx *report, const cl_plan_state *users);
/* What users' plan loaded (a preload made before the report), carried over
 * by path into the entries of ctx's plan for the same files: their state
 * and the path loaded. CUDALOAD_OK, or CUDALOAD_E_NO_MEMORY. */
int cl_plan_state_take_loads(cudaload_ctx *ctx, const cl_plan_state *users);

/* Drop the conflicts the last plan or preload found. */
void cl_plan_clear_conflicts(cudaload_ctx *ctx);

#endif
