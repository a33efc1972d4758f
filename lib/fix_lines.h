/* fix_lines.h - the fix printed for a requirement nothing satisfies. */
#ifndef CUDALOAD_FIX_LINES_H
#define CUDALOAD_FIX_LINES_H

#include "context.h"

/* One concrete command that fixes the missing requirement r in ctx's
 * situation, malloc'ed; NULL when out of memory. */
char *cl_fix_for_missing(const cudaload_ctx *ctx, const cl_requirement *r);

#endif
