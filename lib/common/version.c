/* SPDX-License-Identifier: MIT */
/* version.c - the version of the library actually loaded, and what its
 * build decided (build_facts.h). */
#include "cudaload.h"
#include "common/build_facts.h"

#define CL_STR2(x) #x
#define CL_STR(x) CL_STR2(x)

unsigned cudaload_version_number(void) {
  return CUDALOAD_VERSION_NUMBER;
}

const char *cudaload_version_string(void) {
  return CL_STR(CUDALOAD_VERSION_MAJOR) "." CL_STR(
      CUDALOAD_VERSION_MINOR) "." CL_STR(CUDALOAD_VERSION_PATCH);
}

const char *cl_build_no_yaml_reason(void) {
#ifdef CUDALOAD_NO_YAML_REASON
  return CUDALOAD_NO_YAML_REASON;
#else
  return "";
#endif
}
