/* SPDX-License-Identifier: MIT */
/*
 * recorded_roots.h - the folders an environment records as its own
 * (recorded_roots.c): `cudaload fix` installs a library pip must not put
 * into site-packages (cuDNN 8 beside torch's cuDNN 9: both are
 * nvidia-cudnn-cu12) into a folder beside it, and names that folder in the
 * file cudaload.roots beside site-packages (<site-packages>/../
 * cudaload.roots). The scan reads it with the environment: each folder it
 * names is a root of the environment tier, right after the environment's
 * own folders, so that setup(), exec, doctor and explain find what the fix
 * installed with no roots given (docs/scan-contract.md, "Recorded roots").
 *
 * The file is trusted as a root is: it, and the folder that holds it, must
 * be writable by no other user (scan/trust.h), and each folder it names
 * passes a root's checks when it is scanned. Its form is strict: one
 * absolute folder per line, '#' lines and empty lines aside, nothing else.
 */
#ifndef CUDALOAD_RECORDED_ROOTS_H
#define CUDALOAD_RECORDED_ROOTS_H

#include <stddef.h>

/* The file's name; the roots it names have the origin CL_ORIGIN_RECORDED
 * (scan/roots.h: the environment tier). */
#define CL_RECORDED_ROOTS_NAME "cudaload.roots"
/* A record longer than this is refused whole, not cut. */
#define CL_RECORDED_ROOTS_MAX_BYTES 65536

/* The record of the environment whose site folder is `site_packages`:
 * <site_packages>/../cudaload.roots, malloc'ed; NULL when out of memory
 * or site_packages has no parent. */
char *cl_recorded_roots_path(const char *site_packages);

/* Each folder of a record's text, in order; non-zero stops the parse
 * (out of memory: returned as is). */
typedef int (*cl_recorded_visitor)(const char *folder, void *opaque);

/* Parse a record's text[0..len): visit(folder) for each folder line. 0;
 * CUDALOAD_E_MALFORMED with *bad_line (from 1) and *why (a static phrase:
 * "'x' is not an absolute folder") for the first line that is not one,
 * before any folder is visited; or what visit returned. Sets no error. */
int cl_recorded_roots_parse(const char *text, size_t len,
                            cl_recorded_visitor visit, void *opaque,
                            size_t *bad_line, const char **why);

/* What the scan learns from the records of one environment root: a
 * folder a record names (folder set, status 0), or a record that cannot
 * be used (folder NULL; status CUDALOAD_E_MALFORMED, CUDALOAD_E_INSECURE
 * or CUDALOAD_E_IO, detail the reason in words). record is the file. */
typedef void (*cl_recorded_sink)(const char *record, const char *folder,
                                 int status, const char *detail, void *opaque);

/* The records of the environment root `root` (a venv or conda prefix, or
 * a site-packages folder): <root>/../cudaload.roots for a folder named
 * site-packages or dist-packages, else <root>/lib/pythonX.Y/cudaload.roots
 * and <root>/Lib/cudaload.roots. A record others could change is refused
 * (unless allow_writable) and none of its folders is given. Sets no error;
 * a missing record is none. */
void cl_recorded_roots_of(const char *root, int allow_writable,
                          cl_recorded_sink sink, void *opaque);

/* Add `folder` to the record at `record` (made when missing, its header
 * first), keeping the folders it names; nothing when it names it already.
 * The whole file is replaced at once (cl_os_shared_file_replace). 0, or a
 * CUDALOAD_E_* status with the last error set (a record that is not one
 * is left as it is: CUDALOAD_E_MALFORMED naming its line). */
int cl_recorded_roots_add(const char *record, const char *folder);

#endif
