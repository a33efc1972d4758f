/* SPDX-License-Identifier: MIT */
/*
 * distinfo.h - versions from Python wheels' *.dist-info folders. The
 * folder's name, {name}-{version}.dist-info, gives the distribution's name
 * and version (the wheel spec: pip names it after the wheel's own
 * dist-info, so it says what METADATA says); METADATA is read only where
 * the name does not tell. The catalog's wheel table says which
 * distribution ships a library; RECORD, the files a distribution
 * installed, is read only where the table leaves that open. Only NVIDIA's
 * distributions are looked at (a torch or ctranslate2 dist-info's version
 * is not the version of the CUDA libraries it bundles).
 */
#ifndef CUDALOAD_DISTINFO_H
#define CUDALOAD_DISTINFO_H

#include "scan/catalog.h"

#include <stddef.h>

typedef struct cl_distribution {
  char *name;    /* "nvidia_cudnn_cu12" (the folder's), "nvidia-cudnn-cu12" */
  char *version; /* "8.9.7.29" */
  /* .../nvidia_cudnn_cu12-8.9.7.29.dist-info/METADATA: the file a version
   * is reported from, whether or not it was opened (the folder it names is
   * the source, and METADATA in it says the same). */
  char *metadata_path;
  int cuda_major; /* 12 from "-cu12" or "_cu12", else 0 */
  /* 1 when name and version are known (from the folder's name, or from
   * METADATA); 0 when the folder's name does not give both, and METADATA
   * waits for the first lookup that lands on the distribution; -1 when
   * that METADATA was unreadable or malformed: then the distribution
   * counts as not there. */
  int metadata_state;
  /* 1 when name and version were read from METADATA: a file that speaks,
   * whose trust is checked (trust.h). */
  int metadata_read;
} cl_distribution;

typedef struct cl_distinfo_file {
  char *relpath; /* as RECORD lists it: "nvidia/cudnn/lib/libcudnn.so.8" */
  size_t distribution;
  long long size; /* the size RECORD lists, -1 when it lists none */
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
  /* The RECORDs' files, read at the first lookup by path or by name (most
   * scans need none: the wheel table says who ships what): 0 not yet, 1
   * read, -1 memory ran out reading them (then the lookups find nothing). */
  int records_state;
  cl_distinfo_file *files; /* only files named like CUDA libraries */
  size_t file_count, file_capacity;
  /* files sorted by (key, position), for lookups in log time: each library
   * of a scan asks once, and a RECORD can list thousands of files. NULL
   * when there was no memory for them: the lookups then read files in
   * order, with the same answers. */
  cl_distinfo_key *by_path, *by_name;
} cl_distinfo_index;

/* Read the index of `folder` (a site-packages folder, or a toolkit's
 * dist-info folder): its listing, no file in it. A missing folder gives an
 * empty index and 0. Sets no error. */
int cl_distinfo_load(const char *folder, cl_distinfo_index *out);
void cl_distinfo_free(cl_distinfo_index *index);

/* A dist-info folder's name, "nvidia_cudnn_cu12-8.9.7.29.dist-info": 1 and
 * its name and version (malloc'ed) when it gives both, a name and a
 * version that starts with a digit, split at its only '-'; else 0. Pure
 * (fuzz/fuzz_distinfo.c). */
int cl_distinfo_folder_name_parse(const char *folder_name, char **name,
                                  char **version);

/* The one distribution of the index that the catalog's wheel table says
 * ships m's library (its family, its ABI major within the wheel's range,
 * its CUDA major when the name tells it) and, when wheel_folder is not
 * NULL, installs it to site-packages/nvidia/<wheel_folder>; *cuda_major:
 * the CUDA major of that wheel. NULL when none does or several do: then
 * only RECORD can tell. */
const cl_distribution *cl_distinfo_by_wheel(cl_distinfo_index *index,
                                            const cl_name_match *m,
                                            const char *wheel_folder,
                                            int *cuda_major);

/* The distribution whose RECORD lists exactly relpath ('/' separators):
 * of those whose name and version are known, the first in folder order.
 * The RECORDs are read at the first of these lookups. */
const cl_distribution *cl_distinfo_by_path(cl_distinfo_index *index,
                                           const char *relpath);
/* The distribution whose RECORD lists a file with this base name. */
const cl_distribution *cl_distinfo_by_name(cl_distinfo_index *index,
                                           const char *file_name);

/* Files two distributions of the index both list (nvidia-nccl-cu11
 * installed over nvidia-nccl-cu12: both install
 * nvidia/nccl/lib/libnccl.so.2): visit gets each pair of distributions
 * once, with the first such file in path order and how many they share.
 * The RECORDs are read at the first call, as for the lookups, and only
 * where two distributions are one component's wheels for two CUDA majors
 * (their names but for "-cuNN" equal): no other NVIDIA wheels share files. */
typedef void (*cl_distinfo_shared_visitor)(const cl_distinfo_index *index,
                                           size_t a, size_t b,
                                           const cl_distinfo_file *first,
                                           size_t shared, void *opaque);
void cl_distinfo_each_shared(cl_distinfo_index *index,
                             cl_distinfo_shared_visitor visit, void *opaque);

/* The size RECORD lists for relpath in distribution d of the index, -1
 * when it lists none. */
long long cl_distinfo_listed_size(const cl_distinfo_index *index, size_t d,
                                  const char *relpath);

/* Which of two distributions' files lies at `file` now, when both RECORDs
 * list it: 0 for the first, 1 for the second, -1 when nothing tells. The
 * sizes the RECORDs list against the file's own decide first (*why "its
 * RECORD's size matches the file"); else the RECORD written last, since
 * pip writes a distribution's RECORD after its files and the last install
 * overwrites the files (*why "installed last"). Leaves the last error as
 * it was. */
int cl_distinfo_which_installed(const char *file, long long size_a,
                                long long size_b, const char *record_a,
                                const char *record_b, const char **why);

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
/* RECORD with each row's size column too (-1 when the row gives none or
 * it is no number): visit(path, path_len, size). */
typedef int (*cl_record_row_visitor)(const char *path, size_t len,
                                     long long size, void *opaque);
int cl_record_parse_rows(const char *text, size_t len,
                         cl_record_row_visitor visit, void *opaque);

#endif
