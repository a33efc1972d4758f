/* SPDX-License-Identifier: MIT */
/*
 * load_failure.c - why Windows refused a DLL, in words. LoadLibraryExW says
 * 126, "The specified module could not be found", when any DLL of the
 * import closure is missing, without naming it, and 193 with a literal
 * "%1" when a file is built for another machine. The loader model
 * (resolve.c) knows the imports and where the loader looks: it names each
 * import that nothing satisfies, who imports it, and the files it passed
 * over; and the file's machine names the other machine. Linux's dlerror()
 * already names the missing library, so this runs only for Windows' codes.
 */
#include "load/load_failure.h"

#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "loader/resolve.h"
#include "os/loader.h"
#include "os/platform.h"
#include "scan/machine.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WINDOWS_MOD_NOT_FOUND 126
#define WINDOWS_BAD_EXE_FORMAT 193
/* Enough named imports for any real case; more are counted, not listed. */
#define MAX_NAMED 8

static const char *base_name(const char *path) {
  const char *name = path;
  for (const char *c = path; *c; ++c)
    if (*c == '/' || *c == '\\')
      name = c + 1;
  return name;
}

/* "not a valid Win32 application for this process: it is built for
 * aarch64, and this process runs x86_64 code", when the file's machine is
 * known and is not this process's; NULL otherwise. */
static char *wrong_machine(const char *path, const char *what) {
  const char *machine = cl_file_machine_name(path);
  const char *host = cl_os_host_machine();
  if (!machine || !host || !strcmp(machine, "unknown") ||
      !strcmp(machine, host))
    return NULL;
  return cl_strdup_printf(CL_WORDS_IS_BUILT_FOR_AND_THIS, what, machine, host);
}

/* The first file the search met and passed over or stopped at (a DLL for
 * another machine), or NULL. */
static const cl_resolve_step *unusable_file(const cl_resolution *how) {
  for (size_t s = 0; s < how->step_count; ++s)
    if (how->steps[s].file && (how->steps[s].kind == CL_STEP_SKIPPED ||
                               how->steps[s].kind == CL_STEP_FATAL))
      return &how->steps[s];
  return NULL;
}

/* The imports of the closure that nothing satisfies, each with who imports
 * it and, when the loader met a file it could not use, that file. */
static void unsatisfied_imports(cl_buf *b, const cl_load_tree *t,
                                const char *path) {
  size_t named = 0, more = 0;
  for (size_t i = 1; i < t->edge_count; ++i) {
    const cl_load_edge *e = &t->edges[i];
    if (e->to != SIZE_MAX)
      continue;
    if (named++ == MAX_NAMED) {
      ++more;
      continue;
    }
    const char *importer =
        e->from < t->object_count ? t->objects[e->from].path : path;
    const cl_resolve_step *met = unusable_file(&e->how);
    cl_buf_printf(b, "%s%s, which %s imports, ", named > 1 ? "; " : "", e->name,
                  base_name(importer));
    if (met)
      cl_buf_printf(b, CL_WORDS_IS_FOUND_ONLY_AS, met->file,
                    met->outcome ? met->outcome
                                 : CL_WORDS_WHICH_THE_LOADER_REFUSES);
    else
      cl_buf_puts(b, CL_WORDS_IS_IN_NONE_OF_THE);
  }
  if (more)
    cl_buf_printf(b, "; and %zu more", more);
}

/* What the model says the open of path lacks, or NULL when it sees
 * nothing missing (or cannot tell). */
static char *missing_imports(const char *path) {
  cl_loader_model m;
  if (cl_loader_model_init_host(&m) != CUDALOAD_OK)
    return NULL;
  /* The flags cl_os_loader_open uses: the DLL's own folder, then the
   * default folders (the application's, System32, AddDllDirectory's). */
  m.search_flags =
      CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
  cl_load_tree t;
  memset(&t, 0, sizeof t);
  cl_buf b = CL_BUF_INIT;
  if (cl_resolve_load(&m, path, NULL, NULL, &t) == CUDALOAD_OK)
    unsatisfied_imports(&b, &t, path);
  cl_load_tree_free(&t);
  cl_loader_model_free(&m);
  return cl_buf_take(&b);
}

void cl_explain_load_failure(const char *path) {
  unsigned long code = cl_os_loader_open_failure();
  if (code != WINDOWS_MOD_NOT_FOUND && code != WINDOWS_BAD_EXE_FORMAT)
    return;
  /* The model's own failures (memory, an unreadable file) leave the
   * loader's message as it was. */
  cl_asking unexplained; /* the model's own failures: no detail */
  cl_asking_begin(&unexplained);
  char *detail =
      code == WINDOWS_BAD_EXE_FORMAT
          ? wrong_machine(path, CL_WORDS_NOT_A_VALID_WIN32_APPLICATION)
          : NULL;
  if (!detail)
    detail = missing_imports(path);
  if (!detail || !*detail) {
    free(detail);
    cl_asking_end(&unexplained);
    return;
  }
  cl_asking_end(&unexplained);
  cl_fail(CUDALOAD_E_LOAD_FAILED, "%s: %s (Windows error %lu)", path, detail,
          code);
  free(detail);
}
