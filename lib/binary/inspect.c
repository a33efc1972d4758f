/* SPDX-License-Identifier: MIT */
/*
 * inspect.c - the public "File inspection" API: read a file's headers and
 * symbol tables with the ELF or PE readers (through cl_binary_inspect_file,
 * which opens it once with the platform layer) and keep what they found.
 */
#include "binary/binary.h"
#include "binary/binary_symbols.h"
#include "common/error.h"

#include "cudaload.h"

#include <stdlib.h>
#include <string.h>

struct cudaload_file {
  cl_binary_info info;
  cl_binary_symbols symbols;
  /* The version nodes the API lists: indexes into symbols.versions of the
   * real nodes (the base entry, the file's own name, left out), and
   * whether an export has each as its default version. */
  size_t *nodes;
  int *node_default;
  size_t node_count;
};

/* Lists the real version nodes and marks those some export has as its
 * default version (name@@node). The linker also exports each node's name
 * as an absolute symbol of that node (OLD@@OLD): that one says nothing
 * about which versions are defaults. */
static int inspect_index_nodes(cudaload_file *f) {
  const cl_binary_symbols *s = &f->symbols;
  size_t i;
  if (s->version_count == 0) {
    return CUDALOAD_OK;
  }
  f->nodes = calloc(s->version_count, sizeof *f->nodes);
  f->node_default = calloc(s->version_count, sizeof *f->node_default);
  if (f->nodes == NULL || f->node_default == NULL) {
    return CUDALOAD_E_NO_MEMORY;
  }
  for (i = 0; i < s->version_count; i++) {
    if (!s->versions[i].is_base) {
      f->nodes[f->node_count++] = i;
    }
  }
  for (i = 0; i < s->def_count; i++) {
    const cl_symbol_def *d = &s->defs[i];
    size_t k;
    if (d->version < 0 || d->hidden ||
        strcmp(d->name, s->versions[d->version].name) == 0) {
      continue;
    }
    for (k = 0; k < f->node_count; k++) {
      if (f->nodes[k] == (size_t)d->version) {
        f->node_default[k] = 1;
      }
    }
  }
  return CUDALOAD_OK;
}

static void inspect_free(cudaload_file *f) {
  cl_binary_info_free(&f->info);
  cl_binary_symbols_free(&f->symbols);
  free(f->nodes);
  free(f->node_default);
  free(f);
}

CUDALOAD_API int cudaload_inspect(const char *path, cudaload_file **out) {
  cudaload_file *result;
  int status;

  cl_clear_error();
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
  status = cl_binary_inspect_file(path, &result->info, &result->symbols);
  if (status != CUDALOAD_OK) {
    free(result);
    return cl_fail_naming(status, path);
  }
  if (inspect_index_nodes(result) != CUDALOAD_OK) {
    inspect_free(result);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", path);
  }
  *out = result;
  return CUDALOAD_OK;
}

CUDALOAD_API void cudaload_file_close(cudaload_file *file) {
  if (file != NULL) {
    inspect_free(file);
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

CUDALOAD_API int cudaload_file_flags(const cudaload_file *file) {
  int flags = 0;
  if (file == NULL) {
    return 0;
  }
  if (file->info.symbolic) {
    flags |= CUDALOAD_FILE_SYMBOLIC;
  }
  if (file->info.nodeflib) {
    flags |= CUDALOAD_FILE_NODEFLIB;
  }
  if (file->symbols.versioned) {
    flags |= CUDALOAD_FILE_VERSIONED;
  }
  return flags;
}

CUDALOAD_API size_t cudaload_file_version_count(const cudaload_file *file) {
  return file != NULL ? file->node_count : 0;
}

CUDALOAD_API const char *cudaload_file_version_name(const cudaload_file *file,
                                                    size_t i) {
  if (file == NULL || i >= file->node_count) {
    return NULL;
  }
  return file->symbols.versions[file->nodes[i]].name;
}

CUDALOAD_API int cudaload_file_version_is_default(const cudaload_file *file,
                                                  size_t i) {
  return file != NULL && i < file->node_count ? file->node_default[i] : 0;
}

CUDALOAD_API size_t cudaload_file_need_count(const cudaload_file *file) {
  return file != NULL ? file->symbols.need_count : 0;
}

CUDALOAD_API const char *cudaload_file_need_file(const cudaload_file *file,
                                                 size_t i) {
  if (file == NULL || i >= file->symbols.need_count) {
    return NULL;
  }
  return file->symbols.needs[i].file;
}

CUDALOAD_API size_t cudaload_file_need_version_count(const cudaload_file *file,
                                                     size_t i) {
  if (file == NULL || i >= file->symbols.need_count) {
    return 0;
  }
  return file->symbols.needs[i].version_count;
}

CUDALOAD_API const char *cudaload_file_need_version(const cudaload_file *file,
                                                    size_t i, size_t j) {
  if (file == NULL || i >= file->symbols.need_count ||
      j >= file->symbols.needs[i].version_count) {
    return NULL;
  }
  return file->symbols.needs[i].versions[j];
}

CUDALOAD_API size_t cudaload_file_symbol_count(const cudaload_file *file,
                                               int kind) {
  if (file == NULL) {
    return 0;
  }
  switch (kind) {
  case CUDALOAD_SYMBOL_EXPORT:
    return file->symbols.def_count;
  case CUDALOAD_SYMBOL_IMPORT:
    return file->symbols.ref_count;
  default:
    return 0;
  }
}

/* Symbol i of a kind, or NULL: exactly one of *def and *ref is set. */
static int inspect_symbol(const cudaload_file *file, int kind, size_t i,
                          const cl_symbol_def **def,
                          const cl_symbol_ref **ref) {
  *def = NULL;
  *ref = NULL;
  if (file == NULL || i >= cudaload_file_symbol_count(file, kind)) {
    return 0;
  }
  if (kind == CUDALOAD_SYMBOL_EXPORT) {
    *def = &file->symbols.defs[i];
  } else {
    *ref = &file->symbols.refs[i];
  }
  return 1;
}

CUDALOAD_API const char *cudaload_file_symbol_name(const cudaload_file *file,
                                                   int kind, size_t i) {
  const cl_symbol_def *d;
  const cl_symbol_ref *r;
  if (!inspect_symbol(file, kind, i, &d, &r)) {
    return NULL;
  }
  return d != NULL ? d->name : r->name;
}

CUDALOAD_API const char *cudaload_file_symbol_version(const cudaload_file *file,
                                                      int kind, size_t i) {
  const cl_symbol_def *d;
  const cl_symbol_ref *r;
  if (!inspect_symbol(file, kind, i, &d, &r)) {
    return NULL;
  }
  if (d != NULL) {
    return d->version >= 0 && (size_t)d->version < file->symbols.version_count
               ? file->symbols.versions[d->version].name
               : "";
  }
  return inspect_or_empty(r->version);
}

CUDALOAD_API const char *cudaload_file_symbol_library(const cudaload_file *file,
                                                      int kind, size_t i) {
  const cl_symbol_def *d;
  const cl_symbol_ref *r;
  if (!inspect_symbol(file, kind, i, &d, &r)) {
    return NULL;
  }
  return inspect_or_empty(d != NULL ? d->forward : r->file);
}

CUDALOAD_API int cudaload_file_symbol_flags(const cudaload_file *file, int kind,
                                            size_t i) {
  const cl_symbol_def *d;
  const cl_symbol_ref *r;
  int flags = 0;
  if (!inspect_symbol(file, kind, i, &d, &r)) {
    return 0;
  }
  if (d != NULL) {
    if (d->hidden) {
      flags |= CUDALOAD_SYMBOL_HIDDEN;
    }
    if (d->weak) {
      flags |= CUDALOAD_SYMBOL_WEAK;
    }
    if (d->forward != NULL) {
      flags |= CUDALOAD_SYMBOL_FORWARDER;
    }
  } else if (r->weak) {
    flags |= CUDALOAD_SYMBOL_WEAK;
  }
  return flags;
}
