/* SPDX-License-Identifier: MIT */
/* build_facts.h - what the build decided, for messages (version.c). */
#ifndef CUDALOAD_BUILD_FACTS_H
#define CUDALOAD_BUILD_FACTS_H

/* Why this build cannot read YAML manifests (it writes YAML reports in
 * every build), as a sentence to follow "this libcudaload has no YAML
 * reader, so it cannot read YAML manifests: " ("libyaml was not found when
 * it was configured (...)"); "" in a build that has it. */
const char *cl_build_no_yaml_reason(void);

#endif
