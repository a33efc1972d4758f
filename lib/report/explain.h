/* SPDX-License-Identifier: MIT */
/*
 * explain.h - who binds to what: for consumer files, the tree of what the
 * loader would open for their CUDA dependencies, by which rule, and where
 * their CUDA symbols bind; for a running process, the CUDA libraries it has
 * mapped and what is wrong with them (explain.c). The public entry points
 * are cudaload_explain_* in cudaload.h; `cudaload explain` prints them.
 */
#ifndef CUDALOAD_EXPLAIN_H
#define CUDALOAD_EXPLAIN_H

#include "cudaload.h"

#include <stddef.h>

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
  char *version;  /* NULL: unknown */
  int consumer;   /* one of the files asked about */
  cl_explain_need *needs;
  size_t need_count, need_capacity;
  cl_explain_binding *bindings;
  size_t binding_count, binding_capacity;
} cl_explain_object;

struct cudaload_explain {
  cl_explain_object *objects;
  size_t object_count, object_capacity;
  char **problems;
  size_t problem_count, problem_capacity;
  long pid; /* explain of a running process; 0 for files */
  /* Folders outside the roots (LD_LIBRARY_PATH, RUNPATH targets), each
   * scanned once for the versions of the files found there. */
  cudaload_ctx **folder_scans;
  size_t folder_scan_count, folder_scan_capacity;
  int failed;
};

/* For the doctor: open each main library of ctx's plan in a model of this
 * process with the plan preloaded, and report every CUDA library it needs
 * or opens by name that the loader would not find (how: every place it
 * looked, by rule). 0 or a CUDALOAD_E_* status. */
struct cl_resolution;
typedef void (*cl_missing_fn)(const char *opener, const char *name, int lazy,
                              const struct cl_resolution *how, void *opaque);
int cl_explain_plan_missing(cudaload_ctx *ctx, cl_missing_fn report,
                            void *opaque);

/* The report in a CUDALOAD_FORMAT_*, malloc'ed; NULL with the last error
 * set. */
char *cl_explain_render(const cudaload_explain *e, int format);

#endif
