/* SPDX-License-Identifier: MIT */
/*
 * loader.h - the OS loader seam used by preload, isolation and collision
 * detection. lib/posix/loader_posix.c (dlopen, RTLD_NOLOAD,
 * dl_iterate_phdr, dladdr) and lib/win32/loader_win32.c (LoadLibraryExW,
 * GetModuleHandleW, K32EnumProcessModules, AddDllDirectory) implement it.
 * Portable code (preload.c, plan.c) never calls dlopen or LoadLibrary
 * itself.
 */
#ifndef CUDALOAD_LOADER_H
#define CUDALOAD_LOADER_H

#include <stddef.h>

/* How to open a library. */
typedef enum cl_open_mode {
  CL_OPEN_LOCAL = 0,   /* Linux RTLD_NOW | RTLD_LOCAL */
  CL_OPEN_GLOBAL = 1,  /* Linux RTLD_NOW | RTLD_GLOBAL */
  CL_OPEN_DEEPBIND = 2 /* Linux RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND */
} cl_open_mode;

/*
 * Open a library by absolute path (checked by the caller,
 * cl_library_open). Windows: LoadLibraryExW(path, NULL,
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) with
 * SetThreadErrorMode(SEM_FAILCRITICALERRORS) around it (mode ignored).
 * A path that is not a regular file (a FIFO, a folder, a device) never
 * gets here: cl_library_open (load/library_open.c) refuses it first, the
 * same on every OS. Returns the handle, or NULL with the last error set to
 * "<path>: <dlerror() / FormatMessageW text>" and status
 * CUDALOAD_E_LOAD_FAILED. Handles are never closed: loads can't be undone
 * reliably, and the libraries must stay for the life of the process.
 */
void *cl_os_loader_open(const char *path, cl_open_mode mode);
/* The OS's code for this thread's last failed cl_os_loader_open: on
 * Windows LoadLibraryExW's error (126: a DLL of the import closure was not
 * found; 193: a file built for another machine), 0 after a success. POSIX:
 * always 0 (dlerror's text is all glibc says). */
unsigned long cl_os_loader_open_failure(void);

/*
 * Open the NVIDIA driver library by its bare file name ("libcuda.so.1",
 * "nvcuda.dll"): the one library loaded by name rather than by absolute
 * path, because the driver is installed into the system's own folders (the
 * dynamic loader's cache and default folders on Linux, System32 on Windows)
 * and only the system knows where. Refuses a name holding a path separator.
 * Linux: dlopen(name, RTLD_NOW | RTLD_LOCAL); Windows: LoadLibraryExW(name,
 * NULL, LOAD_LIBRARY_SEARCH_SYSTEM32) with error dialogs suppressed, so
 * neither the current folder nor PATH can supply an impostor. Returns the
 * handle, or NULL with the last error set as cl_os_loader_open does.
 */
void *cl_os_loader_open_system(const char *name);

/*
 * The address of an exported function or variable of a loaded library
 * (dlsym / GetProcAddress), or NULL when the library does not export it.
 * Callers turn it into a function pointer with memcpy through
 * void (*)(void), which ISO C allows where a cast would not. Sets no error.
 */
void *cl_os_loader_symbol(void *handle, const char *name);

/*
 * The absolute path of a library the process already has under this name
 * (a SONAME such as "libcudnn.so.8", or a DLL base name such as
 * "cudnn64_8.dll"), malloc'ed; NULL when it has none. Never loads or opens
 * a library (Linux: cl_os_loader_find_loaded_by_soname; Windows:
 * GetModuleHandleW + GetModuleFileNameW). Sets no error.
 */
char *cl_os_loader_find_loaded(const char *name);

/*
 * Linux: the loaded object whose loader name (l_name) or DT_SONAME is
 * `name` (a name holding '/' also matches the object loaded from that
 * file), found by walking dl_iterate_phdr and reading each object's
 * dynamic section in memory: unlike dlopen(name, RTLD_NOLOAD), which
 * searches LD_LIBRARY_PATH and RUNPATH for a name not loaded and opens
 * (and blocks on a FIFO among) the candidates, it opens no file.
 * Its canonical path, malloc'ed, or NULL. Windows: as
 * cl_os_loader_find_loaded. Implemented with the loader model's host facts
 * (lib/posix/resolve_posix.c, lib/win32/resolve_win32.c). Sets no error.
 */
char *cl_os_loader_find_loaded_by_soname(const char *name);

/* Calls visit(path) for every module loaded in the process (Linux:
 * dl_iterate_phdr, skipping the executable's empty name and the vDSO;
 * Windows: K32EnumProcessModules + GetModuleFileNameW). */
typedef void (*cl_module_visitor)(const char *path, void *opaque);
void cl_os_loader_each_loaded(cl_module_visitor visit, void *opaque);

/* How this process reaches a file another process maps (cl_mapped_file). */
typedef enum cl_mapped_reach {
  CL_REACHED_NOT = 0, /* no path here leads to it */
  CL_REACHED_HERE,    /* its name, in this process's view */
  CL_REACHED_IN_ROOT, /* its name in the process's root: another mount
                         namespace (a container) or a chroot */
  CL_REACHED_MAPPING  /* only the mapping itself (map_files) */
} cl_mapped_reach;

/* A file another process has mapped, as that process has it: what
 * `explain --pid` must describe, not whatever its name leads to now. */
typedef struct cl_mapped_file {
  const char *path; /* the name the process mapped it under */
  /* A path through which this process reads that very file, its device
   * and inode checked against the mapping: `path` itself when it leads to
   * that file here too; else PATH under /proc/PID/root (the process's own root
   * and mount namespace: a container's file of the same name is another
   * file); else /proc/PID/map_files/START-END (the mapping itself, a
   * deleted file's too, where this process may follow it: root); NULL when
   * none does (another user's process, a deleted file without root, a file
   * replaced under the same name). */
  const char *access;
  cl_mapped_reach reach; /* which of those `access` is */
  int deleted; /* the kernel marks the mapping's file deleted: unlinked or
                  replaced since it was mapped */
} cl_mapped_file;
typedef void (*cl_mapped_file_visitor)(const cl_mapped_file *file,
                                       void *opaque);
/* Whether the caller wants a file of this name at all (explain: a CUDA
 * library's): the others are not looked up, which keeps a process mapping
 * thousands of unrelated files cheap. NULL: every file. */
typedef int (*cl_mapped_file_wanted)(const char *path, void *opaque);

/* The regular files another process maps, by id, each once, in the order
 * they were first mapped (Linux: /proc/PID/maps, read whole lines, any
 * length; Windows: EnumProcessModulesEx, where path is access). Costs what
 * the list's length says: a process mapping 14,000 files is read in about
 * the time its maps take (bench/README.md, "explain --pid"). 0, or
 * CUDALOAD_E_NOT_FOUND (no such process), CUDALOAD_E_IO (not allowed to
 * look: another user's process; or maps unreadable), CUDALOAD_E_MALFORMED
 * (a maps line the kernel would not write), CUDALOAD_E_UNSUPPORTED, with
 * the last error naming the process and the reason. */
int cl_os_loader_process_modules(long pid, cl_mapped_file_wanted wanted,
                                 cl_mapped_file_visitor visit, void *opaque);

/*
 * The file that defines `symbol` as the global scope sees it (Linux: dlsym
 * on dlopen(NULL)'s handle, which covers exactly the global scope — the
 * executable, its libraries and everything opened RTLD_GLOBAL, in load
 * order — then dladdr; RTLD_DEFAULT would also search libcudaload's own
 * dependencies), malloc'ed, or NULL when no object in the global scope
 * defines it. With a version, the loader's own versioned lookup (dlvsym):
 * only a definition of that version, or one in an object without version
 * information, answers, as for a versioned reference (docs/loader.md,
 * "Linux: binding"). Windows has no global scope: always NULL. Sets no
 * error.
 */
char *cl_os_loader_global_provider(const char *symbol, const char *version);

/*
 * The file providing `symbol` (of `version`, NULL: unversioned) to the
 * library behind `handle`, as the loader resolves that library's
 * references: for a library opened with DEEPBIND, its own scope
 * (dlsym/dlvsym on the handle); otherwise the global scope first, then its
 * own scope. Windows: GetProcAddress on the handle, then
 * GetModuleHandleExW(FROM_ADDRESS) for the file. malloc'ed, or NULL.
 */
char *cl_os_loader_symbol_provider(void *handle, const char *symbol,
                                   const char *version);

/* The file of a loaded library's handle (Linux: its link map's name;
 * Windows: GetModuleFileNameW), malloc'ed, or NULL. */
char *cl_os_loader_handle_path(void *handle);

/*
 * Make folder visible to later plain LoadLibrary calls made by the loaded
 * libraries themselves (cuDNN 8's lazy LoadLibraryA of its sub-libraries):
 * Windows prepends it to PATH (SetEnvironmentVariableW, and the C runtime's
 * copy via _wputenv_s) and calls AddDllDirectory (for processes that called
 * SetDefaultDllDirectories). Returns 0 or a CUDALOAD_E_* status. When
 * PATH cannot take the folder (it would pass Windows' length limit), PATH
 * is left as it was, AddDllDirectory alone is done, the result is 0, and
 * *warning (when warning is not NULL) receives a malloc'ed sentence saying
 * so; otherwise *warning is NULL. Linux: does nothing and returns 0 (a
 * library's dlopen uses its RUNPATH and what is already loaded by SONAME).
 */
int cl_os_loader_expose_folder(const char *folder, char **warning);

/*
 * The loader model's host facts (lib/posix/resolve_posix.c,
 * lib/win32/resolve_win32.c): what loader/resolve.c models the process's
 * loader with. The model is the loader model's own type
 * (loader/loader_model.h); the seam fills it and calls down only into its data
 * functions (loader_model.c). Where a fact needs a rule of resolve.c (how many
 * folders a search list holds), resolve.c hands the rule over, so that no
 * circle forms.
 */
struct cl_loader_model;
typedef size_t (*cl_search_list_counter)(const struct cl_loader_model *m,
                                         const char *list,
                                         const char *separators);
/* Fill the system's part of m (see cl_loader_model_init_system). */
int cl_os_loader_defaults(struct cl_loader_model *m,
                          cl_search_list_counter count);
/* Fill this process's part of m: loaded objects (with SONAMEs, read
 * without loading anything), LD_LIBRARY_PATH as the loader read it, secure
 * mode, the executable; Windows: application folder, current folder, PATH,
 * SetDllDirectory. */
int cl_os_loader_process(struct cl_loader_model *m);

/* Set an environment variable of this process (Windows: the process block
 * and the C runtime's copy). 0 or a CUDALOAD_E_* status. */
int cl_os_set_env(const char *name, const char *value);

/* A recursive-safe process-wide lock around preloading, so concurrent
 * cudaload_preload() calls load each file once. */
void cl_os_loader_lock(void);
void cl_os_loader_unlock(void);

#endif
