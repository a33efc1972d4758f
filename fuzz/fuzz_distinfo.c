/* SPDX-License-Identifier: MIT */
/*
 * fuzz_distinfo.c - libFuzzer target: a wheel's METADATA (name and version,
 * Requires-Dist lines, each one's specifier and marker read as PEP 440 and
 * PEP 508 say) and RECORD readers (every parser gets every input: they
 * never need NUL termination), and the dist-info folder name parser
 * (the input up to its first NUL, as a listing gives a name).
 */
#include "scan/distinfo.h"
#include "scan/pep440.h"
#include "scan/pep508.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int visit(const char *path, size_t len, void *opaque) {
  size_t *total = opaque;
  /* Every byte the parser hands out must be readable. */
  for (size_t i = 0; i < len; ++i)
    *total += (unsigned char)path[i];
  return 0;
}

static void touch(const char *s, size_t len, size_t *total) {
  for (size_t i = 0; i < len; ++i)
    *total += (unsigned char)s[i];
}

static int visit_requirement(const cl_requirement_line *line, void *opaque) {
  touch(line->name, line->name_len, opaque);
  touch(line->extras, line->extras_len, opaque);
  touch(line->specifier, line->spec_len, opaque);
  touch(line->marker, line->marker_len, opaque);
  cl_pep440_specifier spec;
  if (cl_pep440_specifier_parse(line->specifier, line->spec_len, &spec))
    for (long major = 0; major < 4; ++major) {
      cl_pep440_version least;
      *(size_t *)opaque +=
          (size_t)cl_pep440_admits_major(&spec, major) +
          (size_t)cl_pep440_least_in_major(&spec, major, &least);
    }
  cl_marker_env env;
  cl_marker_env_for(&env, CL_NAMING_LINUX, "x86_64", "3.11.7");
  *(size_t *)opaque +=
      (size_t)cl_marker_evaluate(line->marker, line->marker_len, &env, NULL) +
      (size_t)cl_marker_evaluate(line->marker, line->marker_len, &env,
                                 "cuda,and-cuda");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* An exact-size copy, so reading one byte past the input is caught. */
  char *text = malloc(size ? size : 1);
  if (!text)
    return 0;
  if (size)
    memcpy(text, data, size);
  char *name = NULL, *version = NULL;
  if (cl_metadata_parse(text, size, &name, &version) == 0) {
    if (name && strlen(name) == (size_t)-1)
      abort();
    if (version && strlen(version) == (size_t)-1)
      abort();
  }
  free(name);
  free(version);
  size_t total = 0;
  (void)cl_record_parse(text, size, visit, &total);
  (void)cl_requires_dist_parse(text, size, visit_requirement, &total);
  free(text);
  char *folder = malloc(size + 1);
  if (!folder)
    return 0;
  memcpy(folder, data, size);
  folder[size] = '\0';
  if (cl_distinfo_folder_name_parse(folder, &name, &version)) {
    if (!*name || !*version || strlen(name) + strlen(version) > size)
      abort();
    free(name);
    free(version);
  }
  free(folder);
  return 0;
}
