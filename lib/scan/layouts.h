/* SPDX-License-Identifier: MIT */
/*
 * layouts.h - which folders under a root can hold CUDA libraries: the
 * layouts of toolkits, conda prefixes, Python site-packages (NVIDIA's
 * wheels, torch, ctranslate2, onnxruntime) and NVIDIA's Windows installers.
 * A scan goes straight to these folders and never walks a tree, so its cost
 * grows with the number of candidate folders, not with unrelated files.
 */
#ifndef CUDALOAD_LAYOUTS_H
#define CUDALOAD_LAYOUTS_H

#include "os/platform.h"
#include "scan/catalog.h"

/* Called with each existing candidate folder and what its stat said (its
 * identity, so that a folder reached by two spellings is known as one);
 * non-zero stops the walk. */
typedef int (*cl_folder_visitor)(const char *folder, const cl_file_stamp *stamp,
                                 void *opaque);

/* 1 when a listing of `folder` (a spelling the walk visited, as visited)
 * said it holds no entry named `name`, ASCII letters in either case; 0
 * when it holds one or no listing tells. A probe of a folder below an entry
 * the listing did not have is left out (no stat of what cannot be there). */
typedef int (*cl_name_absent)(const char *folder, const char *name,
                              void *opaque);

/* The stamp of what folder names, following links: 1, or 0 when it names
 * nothing that can be stat'ed (cl_os_path_stamp(), which the walk asks
 * when none is given: a caller that judges each folder it visits gives its
 * own, so that one look at the file system serves both). */
typedef int (*cl_folder_stamper)(const char *folder, cl_file_stamp *stamp,
                                 void *opaque);

/* Visit root itself, then its known sub-folders, in a fixed order
 * (docs/scan-contract.md "Layouts"). absent (may be NULL) answers from the
 * listings visit made; stamp (may be NULL) stamps each candidate. Returns
 * non-zero if visit stopped it or memory ran out. */
/* 1 when cl_layout_folders() visits root itself, first; 0 for a folder
 * of Python packages (named site-packages), which it never lists. */
int cl_layout_visits_root(const char *root);

/* The Python versions whose lib/pythonX.Y/site-packages a venv or conda
 * prefix is looked into for ("3.8" ... ), NULL-terminated: probed by name,
 * since listing a conda prefix's lib/ costs thousands of entries. */
extern const char *const cl_layout_python_versions[];

int cl_layout_folders(const char *root, cl_naming naming,
                      cl_folder_visitor visit, cl_name_absent absent,
                      cl_folder_stamper stamp, void *opaque);

#endif
