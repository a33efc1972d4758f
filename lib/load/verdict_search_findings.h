/* SPDX-License-Identifier: MIT */
/*
 * verdict_search_findings.h - what the loader's search does wrong in a
 * resolved tree (verdict_search_findings.c).
 */
#ifndef CUDALOAD_VERDICT_SEARCH_FINDINGS_H
#define CUDALOAD_VERDICT_SEARCH_FINDINGS_H

#include "load/verdict_types.h"

/* The findings of the search in t, whose root `opener` opened (NULL for
 * the process): names not found, names that take another library, a
 * sibling taken from another folder, search lists that look in the
 * current folder. lazy: t was opened at run time. */
void cl_verdict_search_findings(cudaload_explain *e, const cl_load_tree *t,
                                const char *opener, cl_naming naming, int lazy);

#endif
