/* SPDX-License-Identifier: MIT */
/*
 * resolve.h - the OS loader's search for a library, modelled by its rules
 * (docs/loader.md): for an object and a library name (a DT_NEEDED entry, an
 * import, or a name the object opens lazily), which file the loader would
 * take, and by which rule. One model, used everywhere a decision depends on
 * it (the plan, the doctor, conflicts, `cudaload explain`), and checked
 * against the real loader by the differential tests (tests/loader_oracle).
 *
 * Linux (glibc, elf/dl-load.c _dl_map_object), in its order: an object
 * already loaded under that name or SONAME; a name holding '/' is taken as
 * given; DT_RPATH of the requester and of the objects that loaded it, then
 * of the executable (only when the requester has no DT_RUNPATH);
 * LD_LIBRARY_PATH (not in a secure-execution process); DT_RUNPATH of the
 * requester only; /etc/ld.so.cache (with DF_1_NODEFLIB, no entry under a
 * default folder); the default folders (not with DF_1_NODEFLIB). Each
 * folder is tried with the glibc-hwcaps and legacy hwcaps subfolders first;
 * $ORIGIN, $LIB and $PLATFORM are expanded; a file of another ELF class or
 * machine is skipped, as the loader skips it; a file found that is an
 * object already loaded under another name is that object.
 * Windows ("Dynamic-Link Library Search Order"): a module already loaded
 * under that name, KnownDLLs, then the LOAD_LIBRARY_SEARCH_* set or the
 * standard order (the application's folder, System32, System, the Windows
 * folder, the current folder where SafeDllSearchMode puts it, PATH); the
 * first file of that name is taken, and one for another machine fails the
 * load (193) rather than being passed over.
 */
#ifndef CUDALOAD_RESOLVE_H
#define CUDALOAD_RESOLVE_H

#include "binary/binary.h"
#include "loader/loader_model.h"
#include "scan/catalog.h"

#include <stddef.h>
#include <stdint.h>

/* Why the loader takes a file. Names (cl_resolve_rule_name) are part of
 * `cudaload explain`'s JSON and documented in docs/loader.md. */
typedef enum cl_resolve_rule {
  CL_RULE_NOT_FOUND = 0,   /* "not-found" */
  CL_RULE_AS_GIVEN,        /* "as-given": the name holds a path separator */
  CL_RULE_ALREADY_LOADED,  /* "already-loaded": by name or SONAME, or the
                              file found is a loaded object's file */
  CL_RULE_RPATH,           /* "rpath": DT_RPATH of the requester's chain */
  CL_RULE_LD_LIBRARY_PATH, /* "ld-library-path" */
  CL_RULE_RUNPATH,         /* "runpath": DT_RUNPATH of the requester */
  CL_RULE_LD_SO_CACHE,     /* "ld-so-cache" */
  CL_RULE_DEFAULT_DIRS,    /* "default-dirs" */
  CL_RULE_KNOWN_DLL,       /* "known-dll" */
  CL_RULE_APP_DIR,         /* "application-folder" */
  CL_RULE_DLL_LOAD_DIR,  /* "dll-load-folder": LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
                            or LOAD_WITH_ALTERED_SEARCH_PATH */
  CL_RULE_USER_DIRS,     /* "user-folders": AddDllDirectory, SetDllDirectory */
  CL_RULE_SYSTEM32,      /* "system32" */
  CL_RULE_SYSTEM,        /* "system" (the 16-bit System folder) */
  CL_RULE_WINDOWS_DIR,   /* "windows-folder" */
  CL_RULE_CURRENT_DIR,   /* "current-folder" */
  CL_RULE_PATH_VARIABLE, /* "path-variable": PATH */
  CL_RULE_API_SET        /* "api-set": an API set contract (api-ms-win-*,
                            ext-ms-*), mapped by the loader to a system DLL
                            without a search; path stays NULL */
} cl_resolve_rule;

const char *cl_resolve_rule_name(cl_resolve_rule rule);

/* The variable the loader of `naming` searches: "LD_LIBRARY_PATH" (the
 * ld-library-path rule), "PATH" (path-variable). For a model of either
 * system on any host; the host's own is cl_os_library_path_variable(). */
const char *cl_resolve_search_variable(cl_naming naming);

/* LoadLibraryExW flags the Windows rules read (winbase.h values, so that
 * models of Windows processes can be built on any host). */
#define CL_LOAD_WITH_ALTERED_SEARCH_PATH 0x00000008u
#define CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100u
#define CL_LOAD_LIBRARY_SEARCH_APPLICATION_DIR 0x00000200u
#define CL_LOAD_LIBRARY_SEARCH_USER_DIRS 0x00000400u
#define CL_LOAD_LIBRARY_SEARCH_SYSTEM32 0x00000800u
#define CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS 0x00001000u
/* The flags of a DLL opened by full path so that its imports come from its
 * own folder (docs/loader.md, Windows 14): CPython's import of an extension
 * module and ctypes.CDLL(path) (3.8 and later), torch's loop over its
 * DLLs, and cudaload_preload (loader_win32.c). */
#define CL_LOAD_BESIDE_ITSELF                                                  \
  (CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)

/* A model of this process as it is now. 0 or a CUDALOAD_E_* status. */
int cl_loader_model_init_host(cl_loader_model *m);
/* The answer forms (common/error.h) of cl_loader_model_init_host and
 * cl_loader_model_init_system, for a caller to whom no model is an answer
 * (the loader itself will judge; nothing to note): the same status, no
 * last error written. */
int cl_loader_model_init_host_quiet(cl_loader_model *m);
int cl_loader_model_init_system_quiet(cl_loader_model *m);
/* The system's part only (naming, machine, default folders, hwcaps
 * subfolders, $LIB, $PLATFORM, the cache; System32, the Windows folder,
 * KnownDLLs, SafeDllSearchMode): a process about to start, whose
 * environment and loaded objects the caller fills in. */
int cl_loader_model_init_system(cl_loader_model *m);
/* The object whose dependency is looked up, with the chain of objects that
 * loaded it (DT_RPATH is inherited along it). */
typedef struct cl_requester {
  const char *path;                  /* as loaded ($ORIGIN is its folder) */
  const cl_binary_info *info;        /* its RPATH, RUNPATH, flags */
  const struct cl_requester *loader; /* who loaded it; NULL: the executable
                                        or a dlopen from outside the chain */
} cl_requester;

/* What happened at one place looked at. */
typedef enum cl_step_kind {
  CL_STEP_ABSENT = 0, /* nothing of that name there */
  CL_STEP_TAKEN,      /* the file the loader takes */
  CL_STEP_SKIPPED,    /* a file the loader passes over (another ELF class or
                         machine) or a place it does not use here */
  CL_STEP_FATAL       /* a file that ends the search with an error */
} cl_step_kind;

/* One place looked at, for `explain` and the doctor. */
typedef struct cl_resolve_step {
  cl_resolve_rule rule;
  cl_step_kind kind;
  char *folder;  /* the folder tried (NULL for already-loaded, cache) */
  char *file;    /* the file met there (NULL when absent) */
  char *source;  /* whose list: the object of an RPATH/RUNPATH, NULL */
  char *outcome; /* "taken", "absent", "other ELF class (ELFCLASS32)", ... */
} cl_resolve_step;

typedef struct cl_resolution {
  char *path; /* the file the loader would take (for already-loaded, the
                 loaded object's path); NULL when none */
  cl_resolve_rule rule;
  char *detail; /* which object's RPATH, which LD_LIBRARY_PATH entry, ... */
  cl_resolve_step *steps; /* every place tried, in order */
  size_t step_count;
  size_t loaded_index; /* already-loaded: index in the model's list */
} cl_resolution;

/* Resolve `name` for `req` (NULL: no requester, as for LD_PRELOAD) in
 * model m. Returns 0 (with out->rule CL_RULE_NOT_FOUND when nothing
 * matched) or a CUDALOAD_E_* status for a failure of the model itself
 * (memory). Free with cl_resolution_free. */
int cl_resolve(cl_loader_model *m, const cl_requester *req, const char *name,
               cl_resolution *out);
void cl_resolution_free(cl_resolution *r);

/* What the loader would map for one object opened into the process: its
 * DT_NEEDED (PE: import) closure, breadth first as the loader maps it
 * (glibc's _dl_map_object_deps), each dependency resolved for the object
 * that names it, then the names each object opens lazily (dlopen or
 * LoadLibrary by name from inside it), which the caller supplies, each
 * with its own closure. The model gains every object mapped, as the
 * process would, except those of an open that fails (a dependency not
 * found), which the loader unmaps again. */
typedef struct cl_load_object {
  char *path;          /* as loaded */
  cl_binary_info info; /* read from the file; zeroed when unreadable */
  int readable;        /* 0: the file could not be read (info empty) */
  size_t loader;       /* the object whose DT_NEEDED brought it in (glibc's
                          l_loader, whose DT_RPATH chain its own
                          dependencies inherit); SIZE_MAX for an object
                          opened by dlopen/LoadLibrary (the one opened and
                          the lazy ones: dlopen leaves l_loader empty) */
  int preexisting;     /* it was already loaded in the model */
  int dropped;         /* the open that brought it in failed: unmapped */
} cl_load_object;

typedef struct cl_load_edge {
  size_t from; /* the object whose dependency this is; SIZE_MAX for the
                  open itself (tree->objects[0]) */
  char *name;  /* the DT_NEEDED / import / lazy name */
  int lazy;    /* 1: opened at run time by name, not DT_NEEDED */
  cl_resolution how;
  size_t to; /* the object it resolved to, or SIZE_MAX: not found */
} cl_load_edge;

typedef struct cl_load_tree {
  cl_load_object *objects; /* [0] is the object opened (when found) */
  size_t object_count, object_capacity;
  cl_load_edge *edges; /* in the order the loader resolves them; [0] is the
                          open itself */
  size_t edge_count, edge_capacity;
  int failed; /* 1: the open itself failed (not found, or a DT_NEEDED
                 dependency not found): the process keeps nothing of it */
  /* 1: the model stopped before the closure was complete, resolving what
   * object stopped_at needs (stopped_needed 1: its DT_NEEDED names) or
   * opens by name (0). A model does at most CL_RESOLVE_MAX_WORK lookups,
   * so that a file with thousands of NEEDED names and RUNPATH folders
   * costs seconds, not hours; real trees need a few thousand
   * (libtorch_cuda.so: 2,812). */
  int stopped;
  size_t stopped_at;
  int stopped_needed;
} cl_load_tree;

#define CL_RESOLVE_MAX_WORK 250000u

/* The names an object opens lazily (e.g. cuDNN's sub-libraries and
 * cuBLASLt), as a list of *count malloc'ed strings the caller frees; may
 * be NULL. */
typedef char **(*cl_lazy_names_fn)(const char *path, const cl_binary_info *info,
                                   size_t *count, void *opaque);

/* Model opening `path` (absolute) in m, from outside any object; `lazy`
 * may be NULL. 0 or a CUDALOAD_E_* status (memory; an unreadable object is
 * recorded, not an error). Free with cl_load_tree_free. */
int cl_resolve_load(cl_loader_model *m, const char *path, cl_lazy_names_fn lazy,
                    void *opaque, cl_load_tree *out);
/* The same with the LoadLibraryExW flags of this one open (Windows: the
 * opener's own choice, CL_LOAD_BESIDE_ITSELF for a Python extension module;
 * its imports resolve with them too), whatever m->search_flags says; the
 * names opened lazily stay plain LoadLibrary calls. Linux ignores flags. */
int cl_resolve_load_flags(cl_loader_model *m, const char *path, unsigned flags,
                          cl_lazy_names_fn lazy, void *opaque,
                          cl_load_tree *out);
/* Model dlopen(name) / LoadLibrary(name) called from inside `req` (NULL:
 * from no object, as for LD_PRELOAD: on Linux only the executable's
 * DT_RPATH then stands for a requester's lists; pass the executable as
 * `req` for a dlopen made by the program itself). Windows: the open uses
 * m->search_flags, its imports too; lazy names are plain LoadLibrary
 * calls (the process default order). */
int cl_resolve_open(cl_loader_model *m, const cl_requester *req,
                    const char *name, cl_lazy_names_fn lazy, void *opaque,
                    cl_load_tree *out);
void cl_load_tree_free(cl_load_tree *t);

/* A search list (DT_RPATH, DT_RUNPATH, LD_LIBRARY_PATH) as glibc reads it
 * (fillin_rpath): split at `separators`, $ORIGIN/$LIB/$PLATFORM expanded
 * for the object loaded as `object_path` (NULL: the executable), an entry
 * empty after expansion dropped, "" kept for an empty entry (the current
 * folder), trailing slashes removed, each folder once. The list is
 * malloc'ed (free each string and the array). 0 or CUDALOAD_E_NO_MEMORY. */
int cl_resolve_expand_list(const cl_loader_model *m, const char *list,
                           const char *separators, const char *object_path,
                           char ***dirs, size_t *count);

#endif
