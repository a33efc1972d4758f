/* SPDX-License-Identifier: MIT */
/*
 * verdict_binding_findings.h - the symbol-binding judgement
 * (verdict_binding_findings.c): what of a consumer's references fails to
 * bind, or binds to another file than its own dependency.
 */
#ifndef CUDALOAD_VERDICT_BINDING_FINDINGS_H
#define CUDALOAD_VERDICT_BINDING_FINDINGS_H

#include "load/verdict_types.h"

/* Each group of references of o (object k of t) that the file the loader
 * takes does not define: the load fails (ELF: "undefined symbol: X,
 * version V", at load with RTLD_NOW or at the first call; PE: error 127 at
 * load). lazy: t was opened at run time. */
void cl_verdict_undefined_findings(cudaload_explain *e, cudaload_ctx *ctx,
                                   const cl_explain_object *o,
                                   const cl_load_tree *t, size_t k, int lazy);

/* Each group of o's references that binds to another file than the one
 * o's own tree provides them from. */
void cl_verdict_binding_findings(cudaload_explain *e,
                                 const cl_explain_object *o, int lazy);

#endif
