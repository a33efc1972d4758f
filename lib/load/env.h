/* env.h - the search-path variable for a plan (env.c). */
#ifndef CUDALOAD_ENV_H
#define CUDALOAD_ENV_H

#include "cudaload.h"

/* cudaload_env_compose with its status: CUDALOAD_OK and *value (owned by
 * ctx), or a CUDALOAD_E_* status with the last error set and *value NULL
 * (CUDALOAD_E_INSECURE for a planned folder whose name holds the list
 * separator, CUDALOAD_E_NO_MEMORY, or the plan's own failure). */
int cl_env_compose(cudaload_ctx *ctx, const char *current, const char **value);

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
