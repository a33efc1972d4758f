/* SPDX-License-Identifier: MIT */
/*
 * plan_settle.h - settling a chosen plan (plan_settle.c): which files are
 * loaded, and in which order.
 */
#ifndef CUDALOAD_PLAN_SETTLE_H
#define CUDALOAD_PLAN_SETTLE_H

#include "core/context.h"

/* Read the headers of the chosen files; decide which sub-libraries and
 * lazy dependencies to load (flags: cudaload_plan's); order dependencies
 * first. 0 or a CUDALOAD_E_* status. */
int cl_plan_settle(cudaload_ctx *ctx, unsigned flags);

#endif
