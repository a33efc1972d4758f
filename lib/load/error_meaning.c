/* SPDX-License-Identifier: MIT */
/*
 * error_meaning.c - from a message's kind and facts to the requirement it
 * implies and one sentence on what went wrong. A file name becomes its
 * family's requirement through the catalog, by the same parse as
 * cudaload_require("libcublasLt.so.12"), so the doctor plans for exactly
 * what the program could not load; a message about a family alone
 * (JAX's "Unable to load cuSPARSE", a version mismatch, a pip pin)
 * requires the family, at the major it states.
 */
#include "load/error_meaning.h"
#include "common/error.h"
#include "common/strutil.h"
#include "cudaload.h"
#include "load/plan_state.h"
#include "load/spec.h"
#include "scan/catalog.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cl_error_message_driver_file(const char *name) {
  return cl_starts_with_nocase(name, "libcuda.so") ||
         cl_starts_with_nocase(name, "nvcuda.dll");
}

/* The fact as text, "" for none. */
static const char *fact(const cl_error_draft *d, int which, char *buf,
                        size_t size) {
  cl_error_fact_text(&d->facts[which], buf, size);
  return buf;
}

/* The file's own name, as a C string. */
static void file_name(const cl_error_draft *d, char *out, size_t size) {
  cl_error_span b = cl_error_basename(d->file.s, d->file.len);
  snprintf(out, size, "%.*s", (int)b.len, b.s ? b.s : "");
}

static void file_written(const cl_error_draft *d, char *out, size_t size) {
  snprintf(out, size, "%.*s", (int)d->file.len, d->file.s ? d->file.s : "");
}

/* The spec's normalised text if cudaload_require() accepts it, else NULL
 * (a major the catalog does not know). */
static char *accepted(const char *spec, int *failed) {
  cl_requirement *parsed;
  size_t n;
  int rc = cl_spec_parse_quiet(spec, &parsed, &n);
  if (rc != CUDALOAD_OK) {
    *failed |= rc == CUDALOAD_E_NO_MEMORY;
    return NULL;
  }
  char *text = n ? parsed[0].text : NULL;
  for (size_t i = 1; i < n; ++i)
    free(parsed[i].text);
  free(parsed);
  *failed |= n && !text;
  return text;
}

char *cl_error_requirement(const cl_error_draft *d, int *failed) {
  char name[512], spec[160], major[40];
  switch (d->kind) {
  case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
    return accepted("cublas", failed);
  case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
    /* The library whose version the driver is too old for. */
    return accepted("cudart", failed);
  case CUDALOAD_MESSAGE_NO_KERNEL_IMAGE:
  case CUDALOAD_MESSAGE_DRIVER_MISSING:
  case CUDALOAD_MESSAGE_CUDA_UNAVAILABLE:
    return NULL;
  default:
    break;
  }
  file_name(d, name, sizeof name);
  cl_name_match m;
  if (name[0]) {
    if (cl_error_message_driver_file(name))
      return NULL;
    if (cl_catalog_match(name, CL_NAMING_LINUX, &m) ||
        cl_catalog_match(name, CL_NAMING_WINDOWS, &m))
      return accepted(name, failed);
  }
  /* A family alone, or a name without its version: the family, at the
   * major the message states. */
  if (!d->family)
    return NULL;
  fact(d, CUDALOAD_MESSAGE_FACT_MAJOR, major, sizeof major);
  if (major[0]) {
    snprintf(spec, sizeof spec, "%s=%s", d->family, major);
    char *text = accepted(spec, failed);
    if (text || *failed)
      return text;
  }
  return accepted(d->family, failed);
}

/* --- the sentence ----------------------------------------------------------
 */

/* What a file is: "cublasLt of cublas 12". */
static void describe_file(const char *name, char *out, size_t size) {
  cl_name_match m;
  if (cl_catalog_match(name, CL_NAMING_LINUX, &m) ||
      cl_catalog_match(name, CL_NAMING_WINDOWS, &m)) {
    if (strcmp(m.entry->name, m.entry->family) == 0)
      snprintf(out, size, "%s is %s %d", name, m.entry->family, m.major);
    else
      snprintf(out, size, "%s is %s %d's %s library", name, m.entry->family,
               m.major, m.entry->name);
  } else if (cl_catalog_match_unversioned(name, &m)) {
    snprintf(out, size, CL_WORDS_IS_S_NAME_WITHOUT_A, name, m.entry->family,
             m.entry->linux_names[0]);
  } else {
    snprintf(out, size, CL_WORDS_IS_NOT_A_CUDA_LIBRARY, name);
  }
}

static char *driver_file_meaning(const char *name) {
  return cl_strdup_printf(CL_WORDS_IS_THE_NVIDIA_DRIVER_S, name,
                          cl_ends_with(name, ".so")
                              ? CL_WORDS_THE_UNVERSIONED_NAME_WHICH_ONLY
                              : "");
}

static char *missing_meaning(const cl_error_draft *d, const char *name,
                             const char *what) {
  char written[CL_ERROR_WORD_MAX + 1], buf[CL_ERROR_WORD_MAX + 1];
  file_written(d, written, sizeof written);
  if (d->needed_by.len)
    return cl_strdup_printf(
        CL_WORDS_NEEDS_WHICH_THE_LOADER_FOUND,
        cl_path_basename(
            fact(d, CUDALOAD_MESSAGE_FACT_NEEDED_BY, buf, sizeof buf)),
        name, what);
  cl_error_path_form form = cl_error_path_form_of(d->file.s, d->file.len);
  if (form == CL_ERROR_ABSOLUTE)
    return cl_strdup_printf(CL_WORDS_THE_PROGRAM_OPENED_IT_BY, what, written);
  if (form == CL_ERROR_RELATIVE)
    return cl_strdup_printf(CL_WORDS_THE_PROGRAM_OPENED_IT_BY_A, what, written);
  if (d->facts[CUDALOAD_MESSAGE_FACT_CANDIDATES].value.s)
    return cl_strdup_printf(
        CL_WORDS_THE_PROGRAM_TRIED_EACH_OF, what,
        fact(d, CUDALOAD_MESSAGE_FACT_CANDIDATES, buf, sizeof buf));
  return cl_strdup_printf(CL_WORDS_THE_PROGRAM_ASKED_THE_LOADER, what);
}

static char *symbol_meaning(const cl_error_draft *d, const char *name) {
  char sym[512], node[256], at_least[40], code[8], buf[CL_ERROR_WORD_MAX + 1];
  fact(d, CUDALOAD_MESSAGE_FACT_SYMBOL, sym, sizeof sym);
  fact(d, CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION, node, sizeof node);
  fact(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, at_least, sizeof at_least);
  fact(d, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR, code, sizeof code);
  const char *user =
      d->needed_by.len
          ? cl_path_basename(
                fact(d, CUDALOAD_MESSAGE_FACT_NEEDED_BY, buf, sizeof buf))
          : "the program";
  if (strcmp(code, "127") == 0)
    return cl_strdup_printf(CL_WORDS_WAS_FOUND_BUT_A_LIBRARY,
                            name[0] ? name : CL_WORDS_A_DLL_OF_THE_PROGRAM,
                            name[0] ? "" : CL_WORDS_OR_ONE_IT_IMPORTS);
  if (name[0])
    return cl_strdup_printf(
        CL_WORDS_NEEDS_FROM_WHICH_THE_COPY, user, sym[0] ? sym : "a symbol",
        node[0] ? " (version " : "", node, node[0] ? ")" : "", name, name, user,
        at_least[0] ? " (it needs " : "", at_least, at_least[0] ? ")" : "");
  return cl_strdup_printf(CL_WORDS_NEEDS_THE_SYMBOL_WHICH_NO, user,
                          sym[0] ? sym : "(unnamed)", d->family ? " (a " : "",
                          d->family ? d->family : "",
                          d->family ? " function)" : "");
}

char *cl_error_diagnosis(const cl_error_draft *d) {
  char name[512], what[1200], a[80], b[80], c[80];
  file_name(d, name, sizeof name);
  const char *family = d->family ? d->family : "the library";
  switch (d->kind) {
  case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
    return cl_strdup(CL_WORDS_CUBLAS_COULD_NOT_CREATE_ITS);
  case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
    fact(d, CUDALOAD_MESSAGE_FACT_DRIVER_CUDA_VERSION, a, sizeof a);
    return cl_strdup_printf(CL_WORDS_THE_PROGRAM_S_CUDA_RUNTIME,
                            a[0] ? CL_WORDS_THE_DRIVER_SUPPORTS_CUDA_UP_TO : "",
                            a, a[0] ? ")" : "");
  case CUDALOAD_MESSAGE_NO_KERNEL_IMAGE:
    return cl_strdup(CL_WORDS_THE_PROGRAM_S_GPU_CODE);
  case CUDALOAD_MESSAGE_DRIVER_MISSING:
    if (strstr(d->form->marker, "device"))
      return cl_strdup(CL_WORDS_THE_CUDA_RUNTIME_FOUND_NO);
    return cl_strdup(CL_WORDS_NO_NVIDIA_DRIVER_IS_VISIBLE);
  case CUDALOAD_MESSAGE_CUDA_UNAVAILABLE:
    fact(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, a, sizeof a);
    return cl_strdup_printf(CL_WORDS_THE_INSTALLED_HAS_NO_CUDA,
                            a[0] ? a : "program");
  case CUDALOAD_MESSAGE_VERSION_MISMATCH:
    fact(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, a, sizeof a);
    fact(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION, b, sizeof b);
    fact(d, CUDALOAD_MESSAGE_FACT_CAUSE, c, sizeof c);
    return cl_strdup_printf(
        CL_WORDS_THE_PROGRAM_WAS_BUILT_AGAINST, family, a, family, b,
        strcmp(c, "older-runtime") == 0 ? CL_WORDS_AN_OLDER_COPY_WAS_FOUND
                                        : CL_WORDS_A_COPY_OF_ANOTHER_RELEASE);
  case CUDALOAD_MESSAGE_PACKAGE_CONFLICT: {
    char dist[80], consumer[80], version[80];
    fact(d, CUDALOAD_MESSAGE_FACT_DISTRIBUTION, dist, sizeof dist);
    fact(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, consumer, sizeof consumer);
    fact(d, CUDALOAD_MESSAGE_FACT_CONSUMER_VERSION, version, sizeof version);
    fact(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, a, sizeof a);
    fact(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION, b, sizeof b);
    if (b[0])
      return cl_strdup_printf(CL_WORDS_PINS_BUT_PIP_INSTALLED_THE,
                              consumer[0] ? consumer : "a package",
                              version[0] ? " " : "", version, dist, a, dist, b,
                              family);
    return cl_strdup_printf(CL_WORDS_REQUIRES_WHICH_IS_NOT_INSTALLED,
                            consumer[0] ? consumer : "a package",
                            version[0] ? " " : "", version, dist, a);
  }
  case CUDALOAD_MESSAGE_SYMBOL_MISSING:
    return symbol_meaning(d, name);
  default:
    break;
  }
  if (!name[0]) {
    /* A family, or a failure the text does not tie to a file. */
    fact(d, CUDALOAD_MESSAGE_FACT_MAJOR, a, sizeof a);
    fact(d, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR, b, sizeof b);
    fact(d, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR, c, sizeof c);
    if (d->family)
      return cl_strdup_printf(CL_WORDS_THE_PROGRAM_COULD_NOT_LOAD, d->family,
                              a[0] ? " " : "", a, b[0] ? " for CUDA " : "", b,
                              d->kind == CUDALOAD_MESSAGE_LIBRARY_MISSING
                                  ? CL_WORDS_NONE_WAS_FOUND_WHERE_IT
                                  : CL_WORDS_IT_OR_A_LIBRARY_IT);
    return cl_strdup_printf(
        CL_WORDS_A_LIBRARY_OF_THE_PROGRAM,
        c[0] ? ": Windows error " : CL_WORDS_THE_TEXT_DOES_NOT_SAY, c);
  }
  if (cl_error_message_driver_file(name))
    return driver_file_meaning(name);
  if (cl_starts_with_nocase(name, "zlibwapi.dll"))
    return cl_strdup(CL_WORDS_ZLIBWAPI_DLL_IS_THE_ZLIB);
  describe_file(name, what, sizeof what);
  if (d->kind == CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY)
    return cl_strdup_printf(CL_WORDS_COULD_NOT_BE_LOADED_THE, name, what);
  return missing_meaning(d, name, what);
}
