/* SPDX-License-Identifier: MIT */
/*
 * loader_model.c - the loader model as data (loader_model.h): making, filling
 * and freeing a cl_loader_model. The platform seam fills one with the
 * host's facts through these; the rules that read it are resolve.c.
 */
#include "loader/loader_model.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

void cl_loader_model_init(cl_loader_model *m, cl_naming naming) {
  memset(m, 0, sizeof *m);
  m->naming = naming;
  /* A hand-built model is of the common machine until told otherwise. */
  m->machine = naming == CL_NAMING_WINDOWS ? 0x8664u : 62u;
  m->bits = 64;
  m->safe_dll_search_mode = 1;
  /* glibc passes over other classes and machines (elf/dl-load.c
   * open_verify); Windows does not (docs/loader.md, Windows 11). */
  m->other_machine_skipped = naming == CL_NAMING_LINUX;
}

static void free_list(char **list, size_t count) {
  for (size_t i = 0; i < count; ++i)
    free(list[i]);
  free(list);
}

void cl_loaded_object_free(cl_loaded_object *o) {
  free(o->path);
  free(o->soname);
  free_list(o->names, o->name_count);
  memset(o, 0, sizeof *o);
}

void cl_loader_model_free(cl_loader_model *m) {
  if (!m)
    return;
  for (size_t i = 0; i < m->loaded_count; ++i)
    cl_loaded_object_free(&m->loaded[i]);
  free(m->loaded);
  free(m->current_dir);
  free(m->exe_path);
  free(m->exe_rpath);
  free(m->ld_library_path);
  free(m->ld_preload);
  free(m->system_preload);
  free(m->ld_so_cache);
  free_list(m->default_dirs, m->default_dir_count);
  free_list(m->hwcaps_subdirs, m->hwcaps_subdir_count);
  free(m->lib_token);
  free(m->platform_token);
  free(m->app_dir);
  free(m->system32);
  free(m->system_dir);
  free(m->windows_dir);
  free(m->path);
  free(m->dll_directory);
  free_list(m->user_dirs, m->user_dir_count);
  free_list(m->known_dlls, m->known_dll_count);
  if (m->cache)
    m->cache_free(m->cache);
  if (m->memo)
    m->memo_free(m->memo);
  memset(m, 0, sizeof *m);
}

int cl_loader_model_set(char **field, const char *value) {
  char *copy = NULL;
  if (value && !(copy = cl_strdup(value)))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
  free(*field);
  *field = copy;
  return CUDALOAD_OK;
}

int cl_loader_model_append(char ***list, size_t *count, const char *value) {
  size_t capacity = *count; /* lists grow one at a time: no spare room */
  char *copy = cl_strdup(value ? value : "");
  if (!copy || cl_reserve((void **)list, &capacity, *count + 1,
                          sizeof **list) != CUDALOAD_OK) {
    free(copy);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
  }
  (*list)[(*count)++] = copy;
  return CUDALOAD_OK;
}

int cl_loader_model_add_loaded(cl_loader_model *m, const char *path,
                               const char *soname) {
  if (!m || !path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no model or path given");
  cl_loaded_object o;
  memset(&o, 0, sizeof o);
  o.path = cl_strdup(path);
  o.soname = soname && soname[0] ? cl_strdup(soname) : NULL;
  if (!o.path || (soname && soname[0] && !o.soname) ||
      cl_reserve((void **)&m->loaded, &m->loaded_capacity, m->loaded_count + 1,
                 sizeof *m->loaded) != CUDALOAD_OK) {
    cl_loaded_object_free(&o);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
  }
  m->loaded[m->loaded_count++] = o;
  return CUDALOAD_OK;
}
