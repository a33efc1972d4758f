/* SPDX-License-Identifier: MIT */
/*
 * context.h - what a cudaload_ctx holds: the roots to search and the
 * inventory the last scan produced (roots -> inventory; later stages read
 * the inventory and never the disk again).
 */
#ifndef CUDALOAD_CONTEXT_H
#define CUDALOAD_CONTEXT_H

#include "cudaload.h"
#include "scan/catalog.h"

#include <stddef.h>

/* A folder (or, for "ld.so.cache", a file) the scan searched. */
typedef struct cl_root {
  char *path;
  const char *origin; /* static string: "explicit", "CUDA_PATH", ... */
  int status;         /* CUDALOAD_OK or why it was skipped */
  char *detail;       /* CUDALOAD_E_INSECURE: which folder, who can write */
  char *fix;          /* CUDALOAD_E_INSECURE: the command that makes what
                         detail names private (cl_os_private_fix) */
} cl_root;

/* A library file, or a folder of libraries, the scan refused because other
 * users can write to it (inventory.c): what a requirement may have missed,
 * and the command that makes it private. */
typedef struct cl_refusal {
  char *path;                    /* the file or folder others can write to */
  const cl_catalog_entry *entry; /* the library refused; NULL: a folder */
  int major;
  char *fix; /* chmod go-w / icacls line for path */
} cl_refusal;

/* One real library file. */
typedef struct cl_library {
  const cl_catalog_entry *entry;
  int major;
  int cuda_major;
  char *version;              /* "" when unknown */
  const char *version_source; /* static: "dist-info", "file-name", ... */
  char *version_file;         /* "" when unknown */
  char *path;                 /* real, absolute */
  size_t root;
  /* A wheel's version is looked up on first use (inventory.c): until then
   * the folder the file was listed in, its name there and what the name
   * told; NULL once settled. Read version, version_source, version_file and
   * cuda_major only after cl_library_settle_version. */
  char *pending_folder;
  char *pending_name;
  cl_name_match pending_match;
  /* The machine it was built for (machine.h), read on first use. */
  const char *machine; /* static; NULL when unknown */
  int machine_read;
  /* Its family's include folder (include_dir.h), looked up on first use. */
  char *include_dir;     /* NULL when none */
  char *include_refused; /* why the one beside it is refused, or NULL */
  int include_read;
  /* Why a version source was passed over (others can write to it), so that
   * the plan can say so; NULL when none was (inventory.c). */
  char *version_distrust;
} cl_library;

/* The version sources a scan read (dist-info, headers), kept for versions
 * looked up later (inventory.c). */
typedef struct cl_version_cache cl_version_cache;

/* What was read from library files (binary/file_cache.h), kept for the
 * life of the context. */
typedef struct cl_file_cache cl_file_cache;

/* What the last manifest loaded set (load/manifest.h). */
typedef struct cl_manifest_state cl_manifest_state;

/* The messages the last text read held (load/error_message.h). */
typedef struct cl_error_messages cl_error_messages;

/* A copy of a family's main library that a Python package bundles under a
 * renamed file (auditwheel: site-packages/ctranslate2.libs/
 * libcudnn-463fd6d5.so.8.9.7). The scan notes it but never lists it as a
 * library: nothing requires it by that name. It still opens its
 * sub-libraries by their real SONAMEs, which its folder lacks, so a plan for
 * its family and major preloads them. */
typedef struct cl_bundled_shim {
  const cl_catalog_entry *entry; /* the main library it is a copy of */
  int major;
  char *path;    /* absolute */
  char *package; /* "ctranslate2" (from ctranslate2.libs) */
} cl_bundled_shim;

/* A library of a package that opens CUDA libraries by name at run time
 * (consumers.h: ctranslate2's libctranslate2-<hex>.so.4.4.0), noticed by
 * the scan: a plan holding the family it opens in another major adds its
 * major or warns. */
typedef struct cl_noticed_consumer {
  const char *package; /* consumers.c's table */
  char *path;          /* absolute */
  char version[32];    /* "4.4.0"; "" when neither name nor dist-info tell */
} cl_noticed_consumer;

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
  size_t chosen; /* index into ctx->libraries, SIZE_MAX: unsatisfied */
  char *fix;     /* unsatisfied: one command line that fixes it */
  /* The CUDA major this requirement took when it is not the plan's: named
   * by the requirement (cublas=12), or the only one that satisfies it
   * (cudnn=8 beside CUDA 13). 0 otherwise. */
  int second_major;
} cl_requirement_outcome;

/* A plan's warning, as data for the doctor (a problem and its fix) and as
 * one text for cudaload_plan_warning(). */
typedef struct cl_plan_warning {
  char *problem; /* "cudnn 8 (PATH) opens libcublas.so.12 ... was found" */
  char *fix;     /* "add --require cublas=12 with a root that holds it" */
  char *file;    /* the first file name it is about: "libcublas.so.12" */
  char *text;    /* problem + ": " + fix */
} cl_plan_warning;

typedef struct cl_conflict {
  char *path;    /* the file in the global scope */
  char *problem; /* what will go wrong */
  char *fix;     /* what to do about it */
  char *text;    /* problem + " Fix: " + fix (cudaload_conflict_text) */
} cl_conflict;

struct cudaload_ctx {
  unsigned flags;
  int target; /* CUDALOAD_TARGET_* */
  char **explicit_roots;
  size_t explicit_count, explicit_capacity;
  /* The caller's own environment (a binding's interpreter site folders):
   * they replace VIRTUAL_ENV, CONDA_PREFIX and the python3 on PATH. */
  int cuda_pin; /* cuda=MAJOR: the plan's CUDA major; 0: none */
  /* The plan's CUDA major and what decided it (cudaload_plan). */
  int plan_cuda_major;
  char *plan_cuda_reason;
  char **environment_roots;
  size_t environment_count, environment_capacity;

  cl_root *roots;
  size_t root_count, root_capacity;
  cl_library *libraries;
  size_t library_count, library_capacity;
  cl_version_cache *version_cache;
  /* Frees version_cache: set by the scan that made it (inventory.c), so
   * that the handle frees it without knowing the scan. */
  void (*version_cache_free)(cl_version_cache *cache);
  int scanned;
  /* Headers, symbols and names of the files read so far (file_cache.c),
   * and what frees it, set by the code that makes it. */
  cl_file_cache *file_cache;
  void (*file_cache_free)(cl_file_cache *cache);
  cl_bundled_shim *shims; /* bundled copies the last scan noticed */
  size_t shim_count, shim_capacity;
  cl_noticed_consumer *consumers; /* known consumers the last scan noticed */
  size_t consumer_count, consumer_capacity;
  /* Environments near the current folder that the last scan did not
   * search (scan/environment.c), for the fix lines; absolute. */
  char **nearby_environments;
  /* Folders where the loader finds what a program (cudaload_require_for of
   * a file) needs: its RPATH/RUNPATH, $ORIGIN, LD_LIBRARY_PATH. The scan
   * searches them last (CL_ORIGIN_PROGRAM), defaults or not: the program
   * takes its libraries from there whatever the roots given. */
  char **program_roots;
  size_t program_root_count, program_root_capacity;
  size_t nearby_count, nearby_capacity;
  cl_refusal *refusals; /* what the last scan refused as writable by others */
  size_t refusal_count, refusal_capacity;

  cl_requirement *requirements;
  size_t requirement_count, requirement_capacity;
  cl_requirement_origin *origins; /* of derived requirements (program.c) */
  size_t origin_count, origin_capacity;
  /* The program cudaload_require_for() was given: its own files that use
   * CUDA libraries (a binary, a module's extension libraries), which the
   * loader model opens as the program would (doctor, preload, exec). */
  char **program_files;
  size_t program_file_count, program_file_capacity;
  /* Of those, the plugins: libraries no file of their distribution needs,
   * opened by path when the program asks for one (program.c). */
  char **program_plugins;
  size_t program_plugin_count, program_plugin_capacity;
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
  /* cudaload_read_error_message(): the messages of the last text read,
   * owned by that stage (load/error_message.h); NULL until a text is read.
   * error_messages_free is set by the code that makes them. */
  cl_error_messages *error_messages;
  void (*error_messages_free)(cl_error_messages *messages);
  /* "Problems and fixes" of the last cudaload_doctor() report. */
  size_t doctor_problem_count;

  /* What cudaload_load_manifest() committed, owned by the manifest stage
   * (load/manifest.h, read through cl_manifest_of()); NULL until a manifest
   * is loaded. The requirements and roots it names join the lists above.
   * manifest_free is set by the code that makes it, so that the handle
   * frees it without knowing the stage. */
  cl_manifest_state *manifest;
  void (*manifest_free)(cl_manifest_state *manifest);

  /* probe: what cudaload_set_driver() chose (probe.c). */
  char *probe_driver_path; /* absolute; NULL: the default driver */
};

/* Drop the conflicts the last plan or preload found. */
void cl_ctx_clear_conflicts(cudaload_ctx *ctx);
/* Drop the plan, its warnings and conflicts (requirements stay). */
void cl_ctx_clear_plan(cudaload_ctx *ctx);

/* The naming convention a ctx scans for. */
cl_naming cl_ctx_naming(const cudaload_ctx *ctx);

/* Drop the inventory and the root list of the last scan. */
void cl_ctx_clear_inventory(cudaload_ctx *ctx);

/* Append a root (path copied); returns its index via *index. */
int cl_ctx_add_scanned_root(cudaload_ctx *ctx, const char *path,
                            const char *origin, size_t *index);

#endif
