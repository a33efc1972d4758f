/*
 * inspect.c - the public "File inspection" API: read a file's headers with
 * the ELF or PE reader (through cl_binary_parse_file, which opens it with the
 * platform layer) and keep what they found.
 */
#include "binary.h"
#include "error.h"

#include "cudaload.h"

#include <stdlib.h>

struct cudaload_file {
  cl_binary_info info;
};

CUDALOAD_API int cudaload_inspect(const char *path, cudaload_file **out) {
  cudaload_file *result;
  int status;

  if (out == NULL) {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_inspect: out is NULL");
  }
  *out = NULL;
  if (path == NULL || path[0] == '\0') {
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_inspect: no path given");
  }
  result = calloc(1, sizeof *result);
  if (result == NULL) {
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  }
  /* cl_binary_parse_file opens through the platform layer, which refuses
   * folders, FIFOs and devices without blocking; the parsers put the path
   * at the head of every message they set. */
  cl_clear_error();
  status = cl_binary_parse_file(path, &result->info);
  if (status != CUDALOAD_OK) {
    free(result);
    return cl_fail_naming(status, path);
  }
  cl_clear_error();
  *out = result;
  return CUDALOAD_OK;
}

CUDALOAD_API void cudaload_file_close(cudaload_file *file) {
  if (file != NULL) {
    cl_binary_info_free(&file->info);
    free(file);
  }
}

CUDALOAD_API const char *cudaload_file_format(const cudaload_file *file) {
  if (file == NULL) {
    return "";
  }
  switch (file->info.format) {
  case CL_FORMAT_ELF:
    return "elf";
  case CL_FORMAT_PE:
    return "pe";
  default:
    return "";
  }
}

/* The parsers never leave a string NULL after success; this also covers a
 * NULL file, for which the accessors pass NULL. */
static const char *inspect_or_empty(const char *value) {
  return value != NULL ? value : "";
}

CUDALOAD_API const char *cudaload_file_machine(const cudaload_file *file) {
  return inspect_or_empty(file != NULL ? file->info.machine_name : NULL);
}

CUDALOAD_API int cudaload_file_bits(const cudaload_file *file) {
  return file != NULL ? file->info.bits : 0;
}

CUDALOAD_API const char *cudaload_file_soname(const cudaload_file *file) {
  return inspect_or_empty(file != NULL ? file->info.soname : NULL);
}

CUDALOAD_API size_t cudaload_file_needed_count(const cudaload_file *file) {
  return file != NULL ? file->info.needed_count : 0;
}

CUDALOAD_API const char *cudaload_file_needed(const cudaload_file *file,
                                              size_t i) {
  if (file == NULL || i >= file->info.needed_count) {
    return NULL;
  }
  return file->info.needed[i];
}

CUDALOAD_API const char *cudaload_file_runpath(const cudaload_file *file) {
  return inspect_or_empty(file != NULL ? file->info.runpath : NULL);
}

CUDALOAD_API const char *cudaload_file_rpath(const cudaload_file *file) {
  return inspect_or_empty(file != NULL ? file->info.rpath : NULL);
}

CUDALOAD_API const char *cudaload_file_version(const cudaload_file *file) {
  return inspect_or_empty(file != NULL ? file->info.file_version : NULL);
}
