/* env.h - the search-path variable for a plan (env.c). */
#ifndef CUDALOAD_ENV_H
#define CUDALOAD_ENV_H

#include "cudaload.h"

/* cudaload_env_compose with its status: CUDALOAD_OK and *value (owned by
 * ctx), or a CUDALOAD_E_* status with the last error set and *value NULL
 * (CUDALOAD_E_INSECURE for a planned folder whose name holds the list
 * separator, CUDALOAD_E_NO_MEMORY, or the plan's own failure). */
int cl_env_compose(cudaload_ctx *ctx, const char *current, const char **value);

#endif
