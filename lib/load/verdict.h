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

/* The name of a kind in reports: "not-found", "undefined-symbols", ... */
const char *cl_finding_kind_name(cl_finding_kind kind);

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

cudaload_explain *cl_verdict_new(void);

/* Read the version of an object the verdict left unread (nothing when it
 * has been read). */
void cl_verdict_settle_version(cl_explain_object *o);

/* The CUDA major of a library of ctx's inventory, as a plan or a verdict
 * needs it. A wheel's whose name does not tell it (cuDNN 8 is built for
 * CUDA 11 and 12) would otherwise come from its dist-info's name (-cu12),
 * which means listing site-packages, thousands of unrelated distributions
 * perhaps (issue 28). The files tell first, the ones the plan reads
 * anyway: the version in the file's name; what the file needs or names in
 * its search list; the same of the other files of its build (its family
 * and major, in its folder, as the inventory lists them); what the files
 * of its build that the catalog says open CUDA libraries by name open
 * (cuDNN 8's ops_infer holds libcublas.so.12: the real files need nothing
 * of CUDA); only when none tells is its version settled. What the files
 * told is kept (cl_library_note_cuda_major): the file is what the process
 * will load. 0 when nothing tells. */
int cl_verdict_library_cuda_major(cudaload_ctx *ctx, struct cl_library *lib);

/* Model opening `path` (absolute) in m from no object, with the names each
 * file opens at run time (unless CL_VERDICT_NO_LAZY); record the objects,
 * their needs and bindings and the findings in e. ctx gives the versions
 * (its inventory) and the naming. 0 or a CUDALOAD_E_* status (memory). */
/* The CUDA library names the file at path opens by name at run time, as
 * the verdict finds them (its read-only data, through ctx's file cache;
 * info: its header, for the DT_NEEDED names that are no lazy open, or
 * NULL). Malloc'ed names and array; NULL with *count 0 when none. */
/* The context's file cache, its reference filter set to the references
 * binding asks of a consumer (those to CUDA libraries): what the plan and
 * the verdicts read symbols through. NULL without a context. */
cl_file_cache *cl_verdict_files(cudaload_ctx *ctx);

char **cl_verdict_lazy_names_of(cudaload_ctx *ctx, const char *path,
                                const cl_binary_info *info, size_t *count);

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

/* Which files a mix of versions or CUDA majors is among (the finding's
 * CUDALOAD_FACT_AMONG; problem_words.c says it in words). */
#define CL_AMONG_PROCESS "process" /* what the process would load */
#define CL_AMONG_PROGRAM "program" /* what the program would load */
#define CL_AMONG_USER                                                          \
  "program-loading-it" /* what a program that loads the                        \
                          file would run */
#define CL_AMONG_FILE                                                          \
  "file"                     /* what one process would load                    \
                                for the file asked about */
#define CL_AMONG_MAPS "maps" /* what a running process maps */

/* Two versions of one family and major, or two CUDA majors, among the
 * objects from `first` on (among: a CL_AMONG_* word). */
void cl_verdict_mixes(cudaload_explain *e, size_t first, const char *among);
/* The same among the objects e has recorded that m has loaded: what one
 * modelled process holds, whichever open recorded them first. */
void cl_verdict_mixes_in(cudaload_explain *e, const cl_loader_model *m,
                         const char *among);

/* Record the object of `path` (a CUDA library or a consumer) in e; used for
 * a running process's maps. NULL when memory ran out. */
cl_explain_object *cl_verdict_object(cudaload_explain *e, cudaload_ctx *ctx,
                                     const char *path, const char *soname,
                                     int consumer);

/* At most this many folders outside the roots are scanned for one verdict:
 * each is a scan of its own, and a tree's CUDA files sit in a few. */
#define CL_VERDICT_FOLDER_SCANS 32

/* The ctx that scanned the folder of `real` as its only root (made once per
 * verdict, at most CL_VERDICT_FOLDER_SCANS of them), for the versions of
 * files outside the roots; NULL when none can be made. */
cudaload_ctx *cl_verdict_folder_scan(cudaload_explain *e, cudaload_ctx *ctx,
                                     const char *real);

/* The version of a file as the scan tells it (its inventory entry, else a
 * scan of its folder, else its name), malloc'ed or NULL; *cuda_major the
 * CUDA major it belongs to, 0 when unknown. */
char *cl_verdict_version_of(cudaload_explain *e, cudaload_ctx *ctx,
                            const char *path, int *cuda_major);

/* Add a finding whose problem record (its kind, facts and fix steps) is
 * problem, taken over (left empty); its words are made here. The other
 * strings are copied; any may be NULL. The same words are recorded once.
 * Returns the finding, NULL when it was there already or memory ran out. */
cl_finding *cl_verdict_add(cudaload_explain *e, cl_finding_kind kind, int lazy,
                           cl_problem *problem, const char *consumer,
                           const char *name, const char *taken,
                           const char *better);
/* Make f's words again after a change to its record (another name joined
 * it). 0 or CUDALOAD_E_NO_MEMORY (then e->failed). */
int cl_verdict_reword(cudaload_explain *e, cl_finding *f);

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
