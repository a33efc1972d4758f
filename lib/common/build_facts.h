/* SPDX-License-Identifier: MIT */
/* build_facts.h - what the build decided, for messages (version.c). */
#ifndef CUDALOAD_BUILD_FACTS_H
#define CUDALOAD_BUILD_FACTS_H

/* Why this build has no YAML support, as a sentence to follow "this
 * libcudaload has no YAML support: " ("libyaml was not found when it was
 * configured (...)"); "" in a build that has it. */
const char *cl_build_no_yaml_reason(void);

#endif
