/* SPDX-License-Identifier: MIT */
/*
 * verdict_types.h - the verdict as data: its findings, the objects it
 * records with their needs and bindings, the handle that holds them
 * (struct cudaload_explain) and how a file enters the modelled process.
 * The files of the verdict (verdict*.c) share these types, each with its
 * own header for its functions; verdict.h gives them all to its readers.
 * Types only: no file is this header's own, so every verdict file can
 * include it without including another's.
 */
#ifndef CUDALOAD_VERDICT_TYPES_H
#define CUDALOAD_VERDICT_TYPES_H

#include "cudaload.h"
#include "core/context.h"
#include "loader/bind.h"
#include "loader/resolve.h"
#include "problem/problem.h"

#include <stddef.h>

/* What is wrong, by kind; each finding carries its sentence. */
typedef enum cl_finding_kind {
  /* A DT_NEEDED / import name the loader does not find (the load fails),
   * or a CUDA library's name opened by name at run time (lazy: that call
   * fails later). */
  CL_FINDING_NOT_FOUND = 1,
  /* The file the loader takes does not define every symbol the consumer
   * takes from it (a stale minor: __nvJitLinkComplete_12_4 missing from a
   * 12.1 libnvJitLink.so.12): "undefined symbol", or on Windows error 127,
   * "The specified procedure could not be found". */
  CL_FINDING_UNDEFINED_SYMBOLS,
  /* A name asks for one library and the loader takes another. */
  CL_FINDING_WRONG_LIBRARY,
  /* A CUDA library takes a library of its own family from another folder
   * though a copy lies beside it (likely another version). */
  CL_FINDING_SIBLING_SHADOWED,
  /* References bind to another file than the consumer's own dependency. */
  CL_FINDING_BINDS_ELSEWHERE,
  /* One family and major in two versions in what one process loads. */
  CL_FINDING_TWO_VERSIONS,
  /* CUDA libraries of two CUDA majors in what one process loads. */
  CL_FINDING_CUDA_MAJORS,
  /* A search list with an empty entry (the current folder). */
  CL_FINDING_EMPTY_ENTRY,
  /* The file asked about cannot be read as a library. */
  CL_FINDING_UNREADABLE,
  /* Found only in a running process's maps (explain --pid). */
  CL_FINDING_PROCESS,
  /* A plugin of the program (cl_program_plugin) needs a library no root
   * holds that cudaload does not know (onnxruntime's TensorRT provider:
   * libnvinfer.so.10): the program runs, that plugin cannot load. */
  CL_FINDING_PLUGIN_UNUSABLE,
  /* The loader model gave up on a file naming too many libraries and
   * folders (a hostile file: thousands of DT_NEEDED names and RUNPATH
   * folders); what it needs is not known. */
  CL_FINDING_STOPPED
} cl_finding_kind;

/* Who opens a name no file of the model opened (a finding with no
 * consumer: cl_verdict_open_by_name with no requester, the program's own
 * LoadLibrary): the words of the findings' sentences, and the consumer the
 * doctor's problems name for it. */
#define CL_VERDICT_THE_PROCESS "the process"

/* One finding, as data: the doctor copies its problem record, explain
 * prints its words, cudaload_preload refuses or warns by kind, the plan
 * reads consumer, name and better. */
typedef struct cl_finding {
  cl_finding_kind kind;
  int lazy; /* about a name opened at run time, not at load */
  int note; /* stops nothing loading: a hazard, or a plugin the
               program runs without (the doctor's Notes) */
  /* The finding as a problem record (problem/problem.h): its kind
   * (CUDALOAD_PROBLEM_*), its facts and its fix as steps. text and fix are
   * its words, made from it by the one table (problem/problem_words.c), the
   * same in every report; fix NULL when it has no steps (the caller knows
   * better). Both belong to problem. */
  cl_problem problem;
  const char *text;
  const char *fix;
  char *consumer; /* the file whose need or references it is about; NULL
                     for a name the process itself opens or needs
                     (CL_VERDICT_THE_PROCESS) */
  char *name;     /* the name asked for (libnvJitLink.so.12) */
  char *names;    /* not found, opened by name from one opener: every name of
                     its family ("libcublas.so.12 and libcublasLt.so.12") */
  char *taken;    /* the file the loader takes; NULL: none */
  char *better;   /* a file the inventory holds that would do; NULL */
  cl_resolve_rule rule; /* how taken was found */
} cl_finding;

/* One dependency of an object: a DT_NEEDED name (PE import) or a name it
 * opens lazily. */
typedef struct cl_explain_need {
  char *name;
  int lazy;
  char *path;       /* the file the loader takes; NULL: not found */
  const char *rule; /* cl_resolve_rule_name() */
  char *detail;     /* whose RPATH, which LD_LIBRARY_PATH entry, ... */
  char *version;    /* of the file taken; NULL when unknown */
} cl_explain_need;

/* Where one group of a consumer's references to a CUDA library binds. */
typedef struct cl_explain_binding {
  char *library;    /* the DT_VERNEED file, or the expected provider's name */
  char *version;    /* the version node asked for; NULL: unversioned */
  size_t symbols;   /* references in the group */
  char *expected;   /* the file of the consumer's own tree providing them */
  char *provider;   /* where the first reference binds */
  size_t elsewhere; /* references that bind to another file than expected */
  char *example;    /* one of those, NULL when none */
  char *elsewhere_provider; /* where it binds */
  size_t undefined;         /* references nothing in scope defines */
  char *undefined_example;  /* one of those */
  /* With CUDALOAD_EXPLAIN_SYMBOLS: every reference and where it binds. */
  char **each_symbol;
  char **each_provider; /* NULL: binds nowhere */
  size_t each_count, each_capacity;
} cl_explain_binding;

typedef struct cl_explain_object {
  char *path;
  const char *family; /* NULL: not a CUDA library */
  const char *name;   /* catalog name */
  int major;
  int cuda_major; /* 0: unknown */
  char *version;  /* NULL: unknown (or not read yet, below) */
  /* A wheel's file whose version the verdict left unread (its
   * defer_wheel_versions): the library and the ctx whose inventory holds
   * it, until cl_verdict_settle_version reads it; NULL once read. */
  struct cl_library *version_pending;
  cudaload_ctx *version_ctx;
  int consumer;             /* one of the files asked about */
  const char *put_first_by; /* "LD_PRELOAD", "/etc/ld.so.preload"; NULL */
  cl_explain_need *needs;
  size_t need_count, need_capacity;
  cl_explain_binding *bindings;
  size_t binding_count, binding_capacity;
} cl_explain_object;

/* The verdict: what `cudaload explain` reports (the public handle). */
struct cudaload_explain {
  cl_explain_object *objects;
  size_t object_count, object_capacity;
  cl_finding *findings;
  size_t finding_count, finding_capacity;
  long pid; /* explain of a running process; 0 for files */
  /* Folders outside the roots (LD_LIBRARY_PATH, RUNPATH targets), each
   * scanned once for the versions of the files found there. */
  cudaload_ctx **folder_scans;
  size_t folder_scan_count, folder_scan_capacity;
  /* Symbols of the files met, each read once per verdict. */
  void *symbol_cache;
  /* The names each file opens at run time, each file scanned once. */
  void *lazy_cache;
  /* The real path of each file whose version was asked, resolved once per
   * verdict: every edge that reaches a file asks again. */
  void *real_paths;
  /* The global scope built so far (objects opened CL_VERDICT_GLOBAL, and
   * LD_PRELOAD's), in load order; borrowed from the symbol cache. */
  const cl_bind_object **global;
  size_t global_count, global_capacity;
  cudaload_ctx *ctx; /* the inventory the verdict is judged against (its
                       fixes name what it holds); borrowed */
  /* 1: a wheel's file gets its version only when a finding compares it
   * (cl_verdict_settle_version): finding a wheel's dist-info lists
   * site-packages, and a verdict whose objects are never printed (the env
   * warnings) needs no version of a build's files it does not compare. Its
   * needs then carry no version. 0 (every report): read as met. */
  int defer_wheel_versions;
  int failed;
};

/* How a file enters the modelled process (cl_verdict_open's `how`). */
#define CL_VERDICT_CONSUMER 0x1u /* one of the files asked about */
#define CL_VERDICT_PRELOAD                                                     \
  0x2u                          /* cudaload_preload loads it by absolute       \
                                   path: on Windows its folder is put          \
                                   first on PATH and AddDllDirectory */
#define CL_VERDICT_GLOBAL 0x4u  /* its symbols join the global scope */
#define CL_VERDICT_NO_LAZY 0x8u /* leave its run-time opens for later */
#define CL_VERDICT_LAZY                                                        \
  0x10u                          /* the name is opened at run time (the        \
                                    finding is about a later call) */
#define CL_VERDICT_SYMBOLS 0x20u /* record every reference, not CUDA's */

#endif
