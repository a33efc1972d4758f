/* SPDX-License-Identifier: MIT */
/* env.h - what setting the search-path variable would shadow (env.c). */
#ifndef CUDALOAD_ENV_H
#define CUDALOAD_ENV_H

#include "cudaload.h"

/* Folders holding another version of a planned sub-library (a
 * framework's own cuDNN), whose main library finds them by RUNPATH: with
 * the plan's folder on LD_LIBRARY_PATH, that library would take the plan
 * folder's copies instead (LD_LIBRARY_PATH comes before RUNPATH). report is
 * called once per such folder; versions are "" when unknown. Linux only
 * (on Windows, PATH comes after a DLL's own folder). */
typedef void (*cl_shadow_fn)(const char *folder, const char *family, int major,
                             const char *version, const char *planned_folder,
                             const char *planned_version, void *opaque);
int cl_env_shadows(cudaload_ctx *ctx, cl_shadow_fn report, void *opaque);

#endif
