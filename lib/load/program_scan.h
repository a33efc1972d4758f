/* SPDX-License-Identifier: MIT */
/*
 * program_scan.h - the state of one cudaload_require_for() read and the
 * requirements it derives (program_scan.c), shared by the readers of the
 * program's files (program.c) and of its distributions' pins
 * (program_pins.c).
 */
#ifndef CUDALOAD_PROGRAM_SCAN_H
#define CUDALOAD_PROGRAM_SCAN_H

#include "common/buf.h"
#include "common/strindex.h"
#include "load/plan_state.h"
#include "scan/catalog.h"
#include "scan/pep508.h"

#include <stddef.h>

/* The largest METADATA or RECORD read (torch's RECORD is about 2 MB). */
#define CL_PROGRAM_TEXT_MAX ((size_t)64 << 20)
/* The reasons one requirement's origin lists; more are counted. A
 * distribution of 40,000 modules that each need cudart would otherwise
 * make one origin of megabytes, searched at every addition. */
#define CL_PROGRAM_REASONS_SHOWN 4

/* Where a program's CUDA major was read, the strongest first. */
enum {
  CL_CUDA_FROM_NEEDS = 1,
  CL_CUDA_FROM_PINS,
  CL_CUDA_FROM_NAME,
  CL_CUDA_FROM_ROW
};

/* One requirement derived, before it joins the context. */
typedef struct cl_program_derived {
  char key[72];  /* "cudnn=9", "cudnn=9?" for one needed only if used */
  char text[64]; /* "cudnn=9" */
  const cl_catalog_entry *main;
  int major;
  long at_least[CL_VERSION_PARTS];
  int at_least_parts;
  cl_buf origin; /* "needed by ...; Requires-Dist ..." */
  size_t reasons;
  int optional;
  char *opener;   /* optional: the first file that would load it */
  size_t program; /* the distribution it came from */
} cl_program_derived;

/* One program read: a binary, or a distribution. */
typedef struct cl_program_info {
  char label[256]; /* "torch 2.5.1+cu124" */
  int rank;        /* among an environment's programs (program_find.h) */
  int cuda_major, cuda_from;
  char cuda_reason[512];
} cl_program_info;

/* A family a module loads by name at its first use (consumers.c,
 * CL_MODULE_LOADS), of its program's CUDA major, known at the end. */
typedef struct cl_program_deferred_load {
  size_t program;
  const char *family;
  char *why;
} cl_program_deferred_load;

/* A list of strings, each once, found in constant time. */
typedef struct cl_name_set {
  char **names;
  size_t count, capacity;
  cl_str_index index;
} cl_name_set;

typedef struct cl_program_scan {
  cudaload_ctx *ctx;
  cl_naming naming;
  cl_marker_env markers;
  cl_program_derived *reqs;
  size_t count, capacity;
  cl_str_index req_index; /* by key */
  cl_name_set files;      /* program files kept */
  cl_name_set plugins;    /* of those, the ones no file of theirs needs */
  cl_name_set needed;     /* the names the current distribution needs */
  cl_name_set modules;    /* its extension modules not kept (yet) */
  cl_name_set search_folders;
  /* What the program's packages load by path themselves (consumers.h,
   * cl_package_preload): on their own, in their order; and when the
   * program calls a function, each file with that call (parallel). */
  cl_name_set preloads;
  cl_name_set call_files;
  const char **call_names;
  size_t call_capacity;
  cl_program_info *programs;
  size_t program_count, program_capacity;
  size_t program;      /* the one being read */
  const char *site;    /* the site folder being read */
  const char *extras;  /* a meta-distribution's extras asked for */
  const char *via;     /* that meta-distribution: "cuda-toolkit 12.4.1" */
  int depth;           /* meta-distributions followed */
  const char *feature; /* the file being read is loaded only for this */
  /* The distribution whose METADATA is being read (its pins). */
  const char *dist_name, *dist_version;
  cl_program_deferred_load *loads;
  size_t load_count, load_capacity;
  cl_plan_warning *warnings;
  size_t warning_count, warning_capacity;
  int failed;
} cl_program_scan;

/* --- sets of names ----------------------------------------------------------
 */

/* An empty set; fold_case: names compared in any case (Windows). */
void cl_name_set_init(cl_name_set *s, int fold_case);
/* Add a copy of name once: 1 when added, 0 when there (or out of memory,
 * with *failed set). */
int cl_name_set_add(cl_name_set *s, const char *name, int *failed);
int cl_name_set_has(const cl_name_set *s, const char *name);
/* Empty the set, keeping it usable. */
void cl_name_set_clear(cl_name_set *s);
void cl_name_set_free(cl_name_set *s);

/* --- small things -------------------------------------------------------- */

/* PEP 503 normalized comparison of a distribution name with a dist-info
 * folder's name part ("onnxruntime_gpu" in onnxruntime_gpu-1.26.0...). */
int cl_program_same_name(const char *a, size_t a_len, const char *b,
                         size_t b_len);
/* A name list filter (scan/distinfo.h): the .dist-info folders. */
int cl_program_is_distinfo(const char *name, const void *arg);
/* A whole small text file (at most CL_PROGRAM_TEXT_MAX), malloc'ed; NULL
 * when it cannot be read. */
char *cl_program_read_text(const char *path, size_t *len);
/* A problem of the program's own, a record (taken over: left empty) about
 * file. */
void cl_program_add_warning(cl_program_scan *ps, cl_problem *problem,
                            const char *file);
/* A fact the program's files tell. */
void cl_program_fact(cl_problem *p, int which, const char *value);

/* --- requirements -------------------------------------------------------- */

/* The ABI major of main built for CUDA major cuda, 0 when none says. */
int cl_program_abi_major_for_cuda(const cl_catalog_entry *main, int cuda);
/* The program being read, or NULL. */
cl_program_info *cl_program_current(cl_program_scan *ps);
/* The current program's CUDA major, from the strongest source seen
 * (from: a CL_CUDA_FROM_*). */
void cl_program_note_cuda(cl_program_scan *ps, int cuda, int from,
                          const char *why);
/* Require family's main library of `major`, saying why: a hard need, or
 * one "if used" while a file of a feature is read (ps->feature). opener:
 * the file that would load it, or NULL. NULL when nothing is required
 * (the driver, a major the catalog does not know) or memory ran out. */
cl_program_derived *cl_program_require(cl_program_scan *ps,
                                       const cl_catalog_entry *entry, int major,
                                       const char *why, const char *opener);
/* Raise d's least version to least (parts numbers) when it is higher. */
void cl_program_raise_least(cl_program_derived *d, const long *least,
                            int parts);

#endif
