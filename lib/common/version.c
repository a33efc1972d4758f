/* SPDX-License-Identifier: MIT */
/* version.c - the version of the library actually loaded. */
#include "cudaload.h"

#define CL_STR2(x) #x
#define CL_STR(x) CL_STR2(x)

unsigned cudaload_version_number(void) {
  return CUDALOAD_VERSION_NUMBER;
}

const char *cudaload_version_string(void) {
  return CL_STR(CUDALOAD_VERSION_MAJOR) "." CL_STR(
      CUDALOAD_VERSION_MINOR) "." CL_STR(CUDALOAD_VERSION_PATCH);
}
