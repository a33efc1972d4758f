/* SPDX-License-Identifier: MIT */
/*
 * verdict_versions.h - the version and CUDA major of the files a verdict
 * meets, as the scan tells them (verdict_versions.c).
 */
#ifndef CUDALOAD_VERDICT_VERSIONS_H
#define CUDALOAD_VERDICT_VERSIONS_H

#include "load/verdict_types.h"
#include "scan/catalog.h"

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

/* The same for a file known to be the catalog's m (NULL: its name is no
 * catalog name, so only the scan tells). defer (NULL: read now): a wheel's
 * file whose version is left unread, recorded in defer
 * (cl_verdict_settle_version), with its CUDA major told by its files. */
char *cl_verdict_version_of_match(cudaload_explain *e, cudaload_ctx *ctx,
                                  const char *path, const cl_name_match *m,
                                  int *cuda_major, cl_explain_object *defer);

/* Read the version of an object the verdict left unread (nothing when it
 * has been read). */
void cl_verdict_settle_version(cl_explain_object *o);

/* cl_os_real_path(path), asked of the file system once per verdict e
 * (each of the plan's files is asked about by the versions and by the
 * plan's judgement): malloc'ed, NULL when it does not resolve (or e is
 * NULL and memory runs out). Sets no error. */
char *cl_verdict_real_path(cudaload_explain *e, const char *path);

/* Free a verdict's real_paths (NULL: nothing). */
void cl_verdict_real_paths_free(void *memo);

#endif
