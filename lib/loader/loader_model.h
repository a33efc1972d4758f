/* SPDX-License-Identifier: MIT */
/*
 * loader_model.h - the process a loader model describes, as data
 * (loader_model.c): what is loaded, its environment and the system's search
 * places. The rules that read it are resolve.h's; what the model remembers
 * while they run is resolve_memo.h's; the seam fills it from this process
 * (os/loader.h: cl_os_loader_defaults, cl_os_loader_process).
 */
#ifndef CUDALOAD_LOADER_MODEL_H
#define CUDALOAD_LOADER_MODEL_H

#include "scan/catalog.h"

#include <stddef.h>

/* An object in the modelled process. */
typedef struct cl_loaded_object {
  char *path;   /* as the loader has it (glibc's l_name, not canonical: it is
                   what $ORIGIN and name matches see) */
  char *soname; /* ELF DT_SONAME, or the DLL's file name; may be NULL */
  char **names; /* other names the loader matches it by (glibc's l_libname:
                   each name it was opened by) */
  size_t name_count;
} cl_loaded_object;

/* The process whose loader is modelled: what is loaded, its environment,
 * and the system's search places. Filled from this process
 * (cl_loader_model_init_host), from the system alone for another process
 * (cl_loader_model_init_system), or built by hand (tests, `explain` of a
 * hypothetical process, another process's maps). Strings are malloc'ed and
 * owned by the model (cl_loader_model_free frees them). */
typedef struct cl_loader_model {
  cl_naming naming;
  unsigned machine; /* e_machine / PE machine of the process: others skip */
  int bits;         /* 32 or 64 */
  int big_endian;   /* ELF: the other byte order fails the load */
  cl_loaded_object *loaded; /* in load order */
  size_t loaded_count, loaded_capacity;
  char *current_dir; /* Linux: empty and relative search entries and names
                        are relative to it; Windows: the current-folder
                        step. NULL: unknown (such entries find nothing) */
  /* Linux */
  char *exe_path;        /* the executable (its real path: $ORIGIN of its
                            RPATH); NULL: no executable map */
  char *exe_rpath;       /* the executable's DT_RPATH, searched after the
                            requester's chain; NULL when none or when the
                            executable has DT_RUNPATH (then it is ignored) */
  char *ld_library_path; /* as the loader read it at start; NULL: unset */
  char *ld_preload;      /* LD_PRELOAD as the loader read it at start (a
                            process) or as a child inherits it; NULL: unset.
                            Its objects come first, in the global scope */
  char *system_preload;  /* the entries of /etc/ld.so.preload, loaded after
                            LD_PRELOAD's; NULL: none */
  int secure;            /* AT_SECURE: LD_LIBRARY_PATH is ignored, $ORIGIN
                            only in trusted places */
  char *ld_so_cache;     /* the cache file; NULL: none */
  char **default_dirs;   /* the loader's built-in folders, in order */
  size_t default_dir_count;
  char **hwcaps_subdirs; /* subfolders tried in every search folder, in
                            order, each ending in '/' except the last, ""
                            (glibc's capstr: "glibc-hwcaps/x86-64-v3/", ...,
                            "tls/", ""); none: the folder alone */
  size_t hwcaps_subdir_count;
  char *lib_token;      /* what $LIB expands to ("lib/x86_64-linux-gnu") */
  char *platform_token; /* what $PLATFORM expands to ("x86_64") */
  /* Windows */
  char *app_dir;            /* the executable's folder */
  char *system32;           /* C:\Windows\System32 */
  char *system_dir;         /* C:\Windows\System */
  char *windows_dir;        /* C:\Windows */
  char *path;               /* PATH, NULL when unset */
  char *dll_directory;      /* SetDllDirectory's folder; NULL: none */
  int safe_dll_search_mode; /* 1 (the default): current folder after Windows */
  unsigned search_flags;    /* LOAD_LIBRARY_SEARCH_* / ALTERED_SEARCH_PATH of
                               the load cl_resolve and cl_resolve_load model;
                               0: the process default */
  unsigned default_search_flags; /* SetDefaultDllDirectories; 0: none */
  char **user_dirs;              /* AddDllDirectory folders */
  size_t user_dir_count;
  char **known_dlls; /* names in KnownDLLs */
  size_t known_dll_count;
  int other_machine_skipped; /* 1: a DLL for another machine is passed over
                                and the search goes on (Wine); 0: it ends
                                the search with error 193 (Windows) */
  /* What was read from files in this run (binary/file_cache.h), shared
   * with whoever made the model (cl_file_cache_of(ctx)); NULL: each file is
   * read when met. Not owned by the model. */
  struct cl_file_cache *files;
  void *cache; /* private: the ld.so.cache index, read on first use */
  void (*cache_free)(void *cache); /* set with cache, by resolve.c */
  void *memo; /* private: what the model remembers (resolve_memo.h) */
  void (*memo_free)(void *memo);
} cl_loader_model;

/* An empty process of the given naming (nothing loaded, nothing set; an
 * x86-64 / x64 process of 64 bits until machine and bits are set). */
void cl_loader_model_init(cl_loader_model *m, cl_naming naming);
void cl_loader_model_free(cl_loader_model *m);
/* Record an object as loaded (copies both strings; soname may be NULL). */
int cl_loader_model_add_loaded(cl_loader_model *m, const char *path,
                               const char *soname);
/* Free what an object record holds (loader_model.c). */
void cl_loaded_object_free(cl_loaded_object *o);
/* Set a string field of the model to a copy of value (NULL clears it);
 * 0 or CUDALOAD_E_NO_MEMORY. */
int cl_loader_model_set(char **field, const char *value);
/* Append a copy of value to a list field (default_dirs, user_dirs, ...). */
int cl_loader_model_append(char ***list, size_t *count, const char *value);

#endif
