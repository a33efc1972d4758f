/* SPDX-License-Identifier: MIT */
/*
 * cuda_names.c - which names are CUDA's (cuda_names.h): the catalog entry a
 * file is, which of a consumer's references go to a CUDA library (the file
 * cache's reference filter), and the CUDA libraries a file opens by name at
 * run time (the names its file holds as text, or a known consumer's
 * release). Only the catalog and the file cache are asked, so the scan
 * answers a library's CUDA major from its files with what the loader model
 * (load/, a later stage) reads too.
 */
#include "scan/cuda_names.h"

#include "binary/binary_names.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/consumers.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The catalog entry a file is (by its SONAME first: a renamed copy such
 * as ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7 keeps libcudnn.so.8). */
int cl_cuda_catalog_of(const char *path, const char *soname, cl_naming naming,
                       cl_name_match *m) {
  if (soname && soname[0] && cl_catalog_match_renamed(soname, naming, m))
    return 1;
  return cl_catalog_match_renamed(cl_path_basename(path), naming, m);
}

/* --- what CUDA libraries open by name ------------------------------------ */

static int push_name(char ***names, size_t *count, size_t *capacity,
                     const char *name) {
  for (size_t i = 0; i < *count; ++i)
    if (strcmp((*names)[i], name) == 0)
      return CUDALOAD_OK;
  if (cl_reserve((void **)names, capacity, *count + 1, sizeof **names))
    return CUDALOAD_E_NO_MEMORY;
  if (!((*names)[*count] = cl_strdup(name)))
    return CUDALOAD_E_NO_MEMORY;
  ++*count;
  return CUDALOAD_OK;
}

/* What one scan of a file's text collects: names of CUDA libraries it may
 * open by name. */
typedef struct name_scan {
  const cl_name_match *self; /* the scanned file's own entry and major */
  const cl_binary_info *info;
  cl_naming naming;
  char **names;
  size_t count, capacity;
  int failed;
} name_scan;

static int collect_name(const char *text, void *opaque) {
  name_scan *ns = opaque;
  char name[160];
  cl_name_match m;
  size_t len = strlen(text);
  /* cuDNN 9's shim holds "libcudnn_ops.so" and appends its own major. */
  if (ns->naming == CL_NAMING_LINUX && len > 3 &&
      strcmp(text + len - 3, ".so") == 0)
    snprintf(name, sizeof name, "%s.%d", text, ns->self->major);
  else
    snprintf(name, sizeof name, "%s", text);
  if (!cl_catalog_match(name, ns->naming, &m) ||
      cl_catalog_is_driver(m.entry) ||
      (m.entry == ns->self->entry && m.major == ns->self->major))
    return 0; /* not CUDA's, the driver (the probe's concern), or itself */
  /* A stem only counts for the opener's own family: another family's
   * major is not the opener's. */
  if (strcmp(name, text) != 0 &&
      strcmp(m.entry->family, ns->self->entry->family) != 0) {
    /* Unless the opener opens that very name (cuBLASLt 11's libnvrtc.so):
     * the loader then searches it as written. */
    if (cl_catalog_opens_as_is(ns->self->entry, ns->self->major, text) &&
        push_name(&ns->names, &ns->count, &ns->capacity, text))
      ns->failed = 1;
    return 0;
  }
  for (size_t i = 0; ns->info && i < ns->info->needed_count; ++i)
    if (strcmp(ns->info->needed[i], name) == 0)
      return 0; /* a DT_NEEDED name, not a lazy open */
  if (push_name(&ns->names, &ns->count, &ns->capacity, name))
    ns->failed = 1;
  return 0;
}

/* The package of a known consumer (consumers.h: ctranslate2's library,
 * which opens libcublas.so.12 at its first cuBLAS call), or NULL. */
const char *cl_cuda_consumer_package(const char *path, cl_naming naming) {
  char *folder = cl_path_dirname(path);
  const char *package =
      folder ? cl_consumer_package_of(cl_path_basename(folder),
                                      cl_path_basename(path), naming)
             : NULL;
  free(folder);
  return package;
}

/* What a known consumer opens by name: the file names of the families its
 * release opens, of the CUDA major it is built for. */
static char **consumer_names(const char *path, size_t *count,
                             cl_naming naming) {
  *count = 0;
  /* Reached through a search list, the path may run through ".."
   * (TensorFlow's modules' $ORIGIN/../libtensorflow_framework.so.2): its
   * package folder is the real path's. */
  char *real = NULL;
  const char *package = cl_cuda_consumer_package(path, naming);
  if (!package) {
    /* no real path: no package */
    real = cl_os_real_path_quiet(path, NULL);
    package = real ? cl_cuda_consumer_package(real, naming) : NULL;
  }
  if (!package) {
    free(real);
    return NULL;
  }
  char version[32] = "";
  cl_consumer_version_of(real ? real : path, package, version, sizeof version);
  free(real);
  char **names = NULL;
  size_t capacity = 0;
  const cl_known_consumer *c;
  for (size_t k = 0; (c = cl_consumer_need(package, version, naming, k)); ++k) {
    /* What it opens only for a feature is not a load its use makes. */
    if (c->feature)
      continue;
    size_t n;
    const cl_catalog_entry *all = cl_catalog_entries(&n);
    for (size_t e = 0; e < n; ++e) {
      const cl_catalog_entry *entry = &all[e];
      if (entry->role != CL_ROLE_MAIN || strcmp(entry->family, c->family))
        continue;
      for (int major = entry->min_major; major <= entry->max_major; ++major)
        if (c->library_major
                ? major == c->library_major
                : cl_catalog_cuda_major(entry, major) == c->cuda_major) {
          char number[16], file[160];
          snprintf(number, sizeof number, "%d", major);
          cl_catalog_file_name(entry, naming, number, file, sizeof file);
          if (push_name(&names, count, &capacity, file) != CUDALOAD_OK) {
            for (size_t i = 0; i < *count; ++i)
              free(names[i]);
            free(names);
            *count = 0;
            return NULL;
          }
        }
    }
  }
  return names;
}

/* Whether a reference goes to a CUDA library: its version's file is a
 * catalog name, or (unversioned) its name has a CUDA library's prefix. */
static int cuda_reference(const char *name, const char *file,
                          cl_naming naming) {
  cl_name_match m;
  if (file)
    return cl_catalog_match(file, naming, &m);
  return cl_catalog_family_of_symbol(name) != NULL;
}

int cl_cuda_reference(const cl_symbol_ref *r, cl_naming naming) {
  return cuda_reference(r->name, r->file, naming);
}

/* The reference filter of a context's file cache (file_cache.h): a
 * consumer's references to CUDA libraries are what binding asks of it. */
static int keep_cuda_reference(const char *name, const char *file,
                               void *opaque) {
  return cuda_reference(name, file, (cl_naming)(uintptr_t)opaque);
}

/* The number the names store knows the filter by: it changes with the
 * catalog's file names and symbol prefixes (what cuda_reference keeps) and
 * the naming. Bump
 * FILTER_RULES when cuda_reference's rules change. */
#define FILTER_RULES 1u
static uint32_t cuda_reference_filter_id(cl_naming naming) {
  uint32_t h = 2166136261u ^ FILTER_RULES;
  size_t n;
  const cl_catalog_entry *all = cl_catalog_entries(&n);
  for (size_t e = 0; e < n; ++e) {
    const char *const *names = all[e].linux_names;
    for (int w = 0; w < 2; ++w, names = all[e].windows_names)
      for (size_t k = 0; k < 3 && names[k]; ++k)
        for (const char *c = names[k]; *c; ++c)
          h = (h ^ (unsigned char)*c) * 16777619u;
    h = (h ^ (uint32_t)all[e].min_major) * 16777619u;
    h = (h ^ (uint32_t)all[e].max_major) * 16777619u;
  }
  size_t families;
  const cl_catalog_family *rows = cl_catalog_families(&families);
  for (size_t f = 0; f < families; ++f)
    for (size_t k = 0; k < 2 && rows[f].symbol_prefixes[k]; ++k) {
      for (const char *c = rows[f].symbol_prefixes[k]; *c; ++c)
        h = (h ^ (unsigned char)*c) * 16777619u;
      h = (h ^ 0xffu) * 16777619u;
    }
  return (h ^ (uint32_t)naming) * 16777619u;
}

/* The filter's number, worked out once per naming: it hashes the whole
 * catalog, and the verdict asks for the file cache at every open and every
 * file it binds. 0 until worked out (a number that is 0 is worked out each
 * time: still right). */
static atomic_uint filter_ids[2];

static uint32_t filter_id_of(cl_naming naming) {
  atomic_uint *known = &filter_ids[naming == CL_NAMING_WINDOWS];
  uint32_t id = atomic_load_explicit(known, memory_order_relaxed);
  if (!id) {
    id = cuda_reference_filter_id(naming);
    atomic_store_explicit(known, id, memory_order_relaxed);
  }
  return id;
}

cl_file_cache *cl_cuda_files(cl_file_cache *files, cl_naming naming) {
  if (files)
    cl_file_cache_set_reference_filter(files, keep_cuda_reference,
                                       (void *)(uintptr_t)naming,
                                       filter_id_of(naming));
  return files;
}

/* The CUDA libraries a CUDA library opens by name when it needs them: the
 * names its file holds as text (binary_names.c), each checked against the
 * catalog. cuDNN's shim opens its sub-libraries this way, the
 * sub-libraries cuBLASLt and NVRTC (docs/real-libraries.md). */
char **cl_cuda_opens_by_name(cl_file_cache *files, cl_naming naming,
                             const char *path, const cl_binary_info *info,
                             size_t *count) {
  *count = 0;
  cl_name_match m;
  if (!cl_cuda_catalog_of(path, info ? info->soname : NULL, naming, &m))
    return consumer_names(path, count, naming);
  if (cl_catalog_is_driver(m.entry))
    return NULL;
  name_scan ns = {&m, info, naming, NULL, 0, 0, 0};
  cl_file_cache *cache = cl_cuda_files(files, naming);
  /* A file that imports no loader function opens nothing by name: its
   * symbols (read once, for the bindings too) spare reading its text. A
   * file whose symbols cannot be read is searched. */
  const cl_binary_symbols *symbols = NULL;
  if (cache &&
      cl_file_cache_references_quiet(cache, path, &symbols) == CUDALOAD_OK &&
      !cl_binary_symbols_open_by_name(symbols)) {
    return NULL;
  }
  /* The largest CUDA library (cuBLASLt) is about 550 MB. A file whose
   * names cannot be read opens nothing lazily that we can tell. */
  int unread = cl_file_cache_names_quiet(cache, path, (uint64_t)2 << 30,
                                         collect_name, &ns);
  if (unread || ns.failed) {
    for (size_t i = 0; i < ns.count; ++i)
      free(ns.names[i]);
    free(ns.names);
    return NULL;
  }
  *count = ns.count;
  return ns.names;
}
