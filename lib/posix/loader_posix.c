/* SPDX-License-Identifier: MIT */
/*
 * loader_posix.c - lib/os/loader.h for Linux: dlopen by absolute path,
 * RTLD_NOLOAD look-ups, dl_iterate_phdr, dladdr (glibc; musl where noted).
 *
 * How glibc resolves a library's symbols (docs/loader.md, Linux 3), which
 * is what cl_os_loader_global_provider and cl_os_loader_symbol_provider
 * predict:
 * - the global scope is the executable, the libraries it was linked with,
 *   and every library opened RTLD_GLOBAL since, in load order;
 * - a library opened RTLD_LOCAL looks in the global scope first, then in its
 *   own scope (itself and its dependencies, breadth first);
 * - a library opened RTLD_DEEPBIND looks in its own scope first, then in the
 *   global scope. That is decided when the library is loaded: opening an
 *   already loaded library again with other flags does not rebind it.
 */
#include "cudaload.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Handles opened with RTLD_DEEPBIND                                        */
/* ------------------------------------------------------------------------ */

/* The loader does not say how a library was opened, so the handles this file
 * opened with DEEPBIND are remembered. A library some other code opened with
 * DEEPBIND is not known here and is described as if it were LOCAL. Like the
 * handles themselves, the list lives as long as the process. */
static pthread_mutex_t deepbind_mutex = PTHREAD_MUTEX_INITIALIZER;
static void **deepbind_handles;
static size_t deepbind_count;
static size_t deepbind_capacity;

static void remember_deepbind(void *handle) {
  pthread_mutex_lock(&deepbind_mutex);
  /* Without memory the handle goes unrecorded: the library is loaded all the
   * same (that cannot be undone), only its provider answers are then those
   * of a LOCAL library. */
  if (cl_reserve((void **)&deepbind_handles, &deepbind_capacity,
                 deepbind_count + 1, sizeof *deepbind_handles) == CUDALOAD_OK)
    deepbind_handles[deepbind_count++] = handle;
  pthread_mutex_unlock(&deepbind_mutex);
}

static int was_opened_deepbind(void *handle) {
  int found = 0;
  pthread_mutex_lock(&deepbind_mutex);
  for (size_t i = 0; i < deepbind_count && !found; ++i)
    found = deepbind_handles[i] == handle;
  pthread_mutex_unlock(&deepbind_mutex);
  return found;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */
/* ------------------------------------------------------------------------ */

#ifdef RTLD_DEEPBIND
/* AddressSanitizer and the other sanitizers whose runtime intercepts dlopen
 * abort the whole process on RTLD_DEEPBIND (their interposed malloc and
 * friends would be bypassed by the deep-bound library). Refusing with an
 * error is kinder than that. */
static const char *sanitizer_refusing_deepbind(void) {
  static const char *const runtimes[][2] = {
      {"__asan_init", "AddressSanitizer"},
      {"__hwasan_init", "HWAddressSanitizer"},
      {"__msan_init", "MemorySanitizer"},
      {"__tsan_init", "ThreadSanitizer"},
  };
  for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; ++i)
    if (dlsym(RTLD_DEFAULT, runtimes[i][0]))
      return runtimes[i][1];
  return NULL;
}
#endif

/* dlerror() text usually starts with the path it was given; the message
 * built here starts with it already. */
static const char *reason_without_path(const char *reason, const char *path) {
  size_t len = strlen(path);
  if (strncmp(reason, path, len) == 0 && reason[len] == ':' &&
      reason[len + 1] == ' ')
    return reason + len + 2;
  return reason;
}

/* dlopen's flags for mode, RTLD_DEEPBIND not yet among them: *deepbind
 * says whether it is wanted (and this libc has it). */
static int open_flags(cl_open_mode mode, int *deepbind) {
  int flags = RTLD_NOW;
  switch (mode) {
  case CL_OPEN_GLOBAL:
    flags |= RTLD_GLOBAL;
    break;
  case CL_OPEN_DEEPBIND:
    flags |= RTLD_LOCAL;
#ifdef RTLD_DEEPBIND
    *deepbind = 1;
#else
    /* RTLD_DEEPBIND is a glibc extension; musl and the BSDs lack it. The
     * library is opened LOCAL, and cl_os_loader_symbol_provider then reports
     * the global-scope-first binding it really gets. */
    (void)deepbind;
#endif
    break;
  case CL_OPEN_LOCAL:
  default:
    flags |= RTLD_LOCAL;
    break;
  }
  return flags;
}

unsigned long cl_os_loader_open_failure(void) {
  return 0; /* dlerror()'s text, in the last error, is all there is */
}

void *cl_os_loader_open(const char *path, cl_open_mode mode) {
  if (!path || !path[0]) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no library path given");
    return NULL;
  }
  int deepbind = 0;
  int flags = open_flags(mode, &deepbind);

#ifdef RTLD_DEEPBIND
  if (deepbind) {
    /* DEEPBIND changes how a library is bound while it is being loaded; a
     * library in the process already keeps the binding it got then, so the
     * flag is not asked for (nor remembered) for it. */
    void *existing = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (existing) {
      dlclose(existing);
      deepbind = 0;
    } else {
      const char *sanitizer = sanitizer_refusing_deepbind();
      if (sanitizer) {
        cl_fail(CUDALOAD_E_LOAD_FAILED,
                "%s: cannot be opened with RTLD_DEEPBIND in this process: "
                "its %s runtime aborts the process on RTLD_DEEPBIND",
                path, sanitizer);
        return NULL;
      }
      flags |= RTLD_DEEPBIND;
    }
  }
#endif

  dlerror(); /* forget any earlier, unrelated error */
  void *handle = dlopen(path, flags);
  if (!handle) {
    const char *reason = dlerror();
    cl_fail(CUDALOAD_E_LOAD_FAILED, "%s: %s", path,
            reason ? reason_without_path(reason, path)
                   : "the dynamic loader gave no reason");
    return NULL;
  }
  if (deepbind)
    remember_deepbind(handle);
  return handle;
}

void *cl_os_loader_open_system(const char *name) {
  if (!name || !name[0] || strchr(name, '/')) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
            "%s: not a bare library name (only the driver is opened by name)",
            name ? name : "(null)");
    return NULL;
  }
  /* The driver lives where the system put it (ld.so.cache, /usr/lib64,
   * a container runtime's mount): the dynamic loader's own search is the
   * only way to find the one the system intends. */
  dlerror();
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    cl_fail(CUDALOAD_E_LOAD_FAILED, "%s: %s", name,
            reason ? reason_without_path(reason, name)
                   : "the dynamic loader gave no reason");
  }
  return handle;
}

void *cl_os_loader_symbol(void *handle, const char *name) {
  if (!handle || !name || !name[0])
    return NULL;
  dlerror();
  void *address = dlsym(handle, name);
  if (!address)
    dlerror(); /* a missing symbol is an answer, not an error to keep */
  return address;
}

/* ------------------------------------------------------------------------ */
/* What is loaded                                                           */
/* ------------------------------------------------------------------------ */

/* The canonical path of a loaded object's file, malloc'ed: symlinks
 * resolved, so that callers can compare it with the files they planned. The
 * loader's own name is kept when the file no longer resolves (deleted or
 * replaced since it was loaded) or is not a file (the vDSO). */
static char *canonical_or_same(const char *name) {
  char *resolved = realpath(name, NULL);
  return resolved ? resolved : cl_strdup(name);
}

/* The file of a loaded object, given the name the loader keeps for it: the
 * executable has an empty name there. */
static char *file_of_loaded_name(const char *name) {
  return canonical_or_same(name[0] ? name : "/proc/self/exe");
}

char *cl_os_loader_find_loaded(const char *name) {
  /* Not dlopen(name, RTLD_NOLOAD): for a name that is not loaded, glibc
   * searches LD_LIBRARY_PATH, RUNPATH and the cache, opening every
   * candidate file, and blocks on a FIFO planted there. The loaded objects
   * are matched by name and SONAME from memory instead (resolve_posix.c). */
  return cl_os_loader_find_loaded_by_soname(name);
}

/* Names collected by dl_iterate_phdr, visited only after it returns: its
 * callback runs with the loader's lock held, so a visitor that called
 * dlopen there would deadlock. */
typedef struct loaded_names {
  char **names;
  size_t count;
  size_t capacity;
} loaded_names;

static int is_kernel_object(const char *name) {
  /* The vDSO is mapped by the kernel; it has no file. */
  return strncmp(name, "linux-vdso", 10) == 0 ||
         strncmp(name, "linux-gate", 10) == 0;
}

static int collect_loaded_name(struct dl_phdr_info *info, size_t size,
                               void *opaque) {
  (void)size;
  loaded_names *list = opaque;
  const char *name = info->dlpi_name;
  /* The executable's name is empty; it is not a library. */
  if (!name || !name[0] || is_kernel_object(name))
    return 0;
  if (cl_reserve((void **)&list->names, &list->capacity, list->count + 1,
                 sizeof *list->names) != CUDALOAD_OK)
    return 1; /* out of memory: visit what was collected */
  char *copy = cl_strdup(name);
  if (!copy)
    return 1;
  list->names[list->count++] = copy;
  return 0;
}

void cl_os_loader_each_loaded(cl_module_visitor visit, void *opaque) {
  loaded_names list = {NULL, 0, 0};
  dl_iterate_phdr(collect_loaded_name, &list);
  for (size_t i = 0; i < list.count; ++i) {
    char *path = canonical_or_same(list.names[i]);
    visit(path ? path : list.names[i], opaque);
    free(path);
    free(list.names[i]);
  }
  free(list.names);
}

/* ------------------------------------------------------------------------ */
/* Who provides a symbol                                                    */
/* ------------------------------------------------------------------------ */

/* The file of the object that holds address, malloc'ed, or NULL. */
static char *file_at_address(const void *address) {
  Dl_info info;
#ifdef RTLD_DL_LINKMAP
  /* glibc: the link map's name, which is empty for the executable (dladdr
   * itself would give argv[0], which may be relative or wrong). */
  struct link_map *map = NULL;
  if (!dladdr1(address, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
    return NULL;
  return file_of_loaded_name(map->l_name);
#else
  if (!dladdr(address, &info) || !info.dli_fname)
    return NULL;
  return file_of_loaded_name(info.dli_fname);
#endif
}

/*
 * The global scope is searched through the executable's handle, dlopen(NULL):
 * for it, dlsym searches the executable, its libraries and everything opened
 * RTLD_GLOBAL, in load order, and nothing else. dlsym(RTLD_DEFAULT) would
 * search from the caller's place instead: the global scope and then this
 * library's own dependencies when libcudaload was opened RTLD_LOCAL (as
 * ctypes does), and those dependencies first when it was opened DEEPBIND.
 */
/* dlsym, or dlvsym when a version is asked for. */
static void *lookup(void *handle, const char *symbol, const char *version) {
  dlerror();
  return version ? dlvsym(handle, symbol, version) : dlsym(handle, symbol);
}

char *cl_os_loader_global_provider(const char *symbol, const char *version) {
  if (!symbol || !symbol[0])
    return NULL;
  void *global_scope = dlopen(NULL, RTLD_NOW);
  if (!global_scope) {
    dlerror();
    return NULL;
  }
  void *address = lookup(global_scope, symbol, version);
  char *path = NULL;
  if (address)
    path = file_at_address(address);
  else
    dlerror();           /* "undefined symbol" is the answer, not an error */
  dlclose(global_scope); /* the executable stays; this drops the count */
  return path;
}

/* The file that provides symbol from handle's own scope (the library and
 * its dependencies, breadth first), or NULL. */
static char *own_scope_provider(void *handle, const char *symbol,
                                const char *version) {
  void *address = lookup(handle, symbol, version);
  if (!address) {
    dlerror();
    return NULL;
  }
  return file_at_address(address);
}

char *cl_os_loader_symbol_provider(void *handle, const char *symbol,
                                   const char *version) {
  if (!handle || !symbol || !symbol[0])
    return NULL;
  if (was_opened_deepbind(handle)) {
    char *own = own_scope_provider(handle, symbol, version);
    return own ? own : cl_os_loader_global_provider(symbol, version);
  }
  char *global = cl_os_loader_global_provider(symbol, version);
  return global ? global : own_scope_provider(handle, symbol, version);
}

char *cl_os_loader_handle_path(void *handle) {
  struct link_map *map = NULL;
  if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) {
    dlerror();
    return NULL;
  }
  return file_of_loaded_name(map->l_name);
}

/* ------------------------------------------------------------------------ */
/* Search path and environment                                              */
/* ------------------------------------------------------------------------ */

/* A library's own dlopen uses its RUNPATH and finds what is already loaded
 * by SONAME (docs/loader.md, Linux 2 and 4); LD_LIBRARY_PATH was read at
 * process start. There is nothing to change in this process. */
int cl_os_loader_expose_folder(const char *folder, char **warning) {
  (void)folder;
  if (warning)
    *warning = NULL;
  return CUDALOAD_OK;
}

/* value NULL removes the variable. */
int cl_os_set_env(const char *name, const char *value) {
  if (!name || !name[0] || strchr(name, '='))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "'%s' is not an environment variable name",
                   name ? name : "(null)");
  int result = value ? setenv(name, value, 1) : unsetenv(name);
  if (result != 0) {
    int err = errno;
    return cl_fail_os(err == ENOMEM ? CUDALOAD_E_NO_MEMORY
                                    : CUDALOAD_E_INVALID_ARGUMENT,
                      (unsigned long)err, "cannot set %s", name);
  }
  return CUDALOAD_OK;
}

/* ------------------------------------------------------------------------ */
/* The preload lock                                                         */
/* ------------------------------------------------------------------------ */

/* Recursive, so that code holding it may call functions that take it. */
#ifdef PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
static pthread_mutex_t loader_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void loader_mutex_ready(void) {}
#else
/* musl and others have no static initialiser for a recursive mutex. */
static pthread_mutex_t loader_mutex;
static pthread_once_t loader_mutex_once = PTHREAD_ONCE_INIT;

static void init_loader_mutex(void) {
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&loader_mutex, &attributes);
  pthread_mutexattr_destroy(&attributes);
}

static void loader_mutex_ready(void) {
  pthread_once(&loader_mutex_once, init_loader_mutex);
}
#endif

void cl_os_loader_lock(void) {
  loader_mutex_ready();
  pthread_mutex_lock(&loader_mutex);
}

void cl_os_loader_unlock(void) {
  pthread_mutex_unlock(&loader_mutex);
}
