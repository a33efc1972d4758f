/* SPDX-License-Identifier: MIT */
/*
 * distinfo.h - versions from Python wheels' *.dist-info folders: METADATA
 * gives the distribution's name and version, RECORD lists the files it
 * installed. Only NVIDIA's distributions are read (a torch or ctranslate2
 * dist-info's version is not the version of the CUDA libraries it bundles).
 */
#ifndef CUDALOAD_DISTINFO_H
#define CUDALOAD_DISTINFO_H

#include <stddef.h>

typedef struct cl_distribution {
  char *name;          /* "nvidia-cudnn-cu12" */
  char *version;       /* "8.9.7.29" */
  char *metadata_path; /* .../nvidia_cudnn_cu12-8.9.7.29.dist-info/METADATA */
  int cuda_major;      /* 12 from "-cu12", else 0 */
  /* METADATA is read when a lookup first lands on the distribution (most
   * dist-infos of a toolkit own no library): 0 not yet, 1 read (name and
   * version set), -1 unreadable or malformed, when its RECORD's files do
   * not count, as if the dist-info were not there. */
  int metadata_state;
} cl_distribution;

typedef struct cl_distinfo_file {
  char *relpath; /* as RECORD lists it: "nvidia/cudnn/lib/libcudnn.so.8" */
  size_t distribution;
} cl_distinfo_file;

/* A file of the index under one of its keys (its RECORD path or its base
 * name, pointing into relpath). */
typedef struct cl_distinfo_key {
  const char *key;
  size_t file; /* index into files */
} cl_distinfo_key;

/* Every NVIDIA dist-info folder directly inside one folder. */
typedef struct cl_distinfo_index {
  char *folder;
  cl_distribution *distributions;
  size_t distribution_count, distribution_capacity;
  cl_distinfo_file *files; /* only files named like CUDA libraries */
  size_t file_count, file_capacity;
  /* files sorted by (key, position), for lookups in log time: each library
   * of a scan asks once, and a RECORD can list thousands of files. NULL
   * when there was no memory for them: the lookups then read files in
   * order, with the same answers. */
  cl_distinfo_key *by_path, *by_name;
} cl_distinfo_index;

/* Read the index of `folder` (a site-packages folder, or a toolkit's
 * dist-info folder). A missing folder gives an empty index and 0. Leaves
 * the last error as it was. */
int cl_distinfo_load(const char *folder, cl_distinfo_index *out);
void cl_distinfo_free(cl_distinfo_index *index);

/* The distribution whose RECORD lists exactly relpath ('/' separators):
 * of those with a readable METADATA, the first in folder order. */
const cl_distribution *cl_distinfo_by_path(cl_distinfo_index *index,
                                           const char *relpath);
/* The distribution whose RECORD lists a file with this base name. */
const cl_distribution *cl_distinfo_by_name(cl_distinfo_index *index,
                                           const char *file_name);

/* Parsers, pure (fuzzing targets). METADATA: the first "Name:" and
 * "Version:" header lines, up to the first blank line. */
int cl_metadata_parse(const char *text, size_t len, char **name,
                      char **version);
/* One Requires-Dist value, its parts pointing into METADATA's text: the
 * distribution name, the extras it asks of it ("cublas,cudart" from
 * "cuda-toolkit[cublas,cudart]", "" when none), its version specifier
 * without parentheses ("==9.1.0.70", "~=11.0", "" when none) and its
 * environment marker ("extra == \"cuda\"", "" when none). */
typedef struct cl_requirement_line {
  const char *name, *extras, *specifier, *marker;
  size_t name_len, extras_len, spec_len, marker_len;
} cl_requirement_line;

/* METADATA's Requires-Dist header lines (up to the first blank line): visit
 * gets each. A non-zero return of visit stops the walk and is returned. */
typedef int (*cl_requires_visitor)(const cl_requirement_line *line,
                                   void *opaque);
int cl_requires_dist_parse(const char *text, size_t len,
                           cl_requires_visitor visit, void *opaque);
/* RECORD: calls visit(path, path_len) for the path column of each line
 * (CSV, with the path quoted when it holds a comma). */
typedef int (*cl_record_visitor)(const char *path, size_t len, void *opaque);
int cl_record_parse(const char *text, size_t len, cl_record_visitor visit,
                    void *opaque);

#endif
