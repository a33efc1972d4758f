/* SPDX-License-Identifier: MIT */
/*
 * python_loads.h - how CPython on Windows loads a package's DLLs, for the
 * loader model (docs/loader.md, Windows 14; python_loads.c). An extension
 * module (.pyd) is imported, and a package opens its own DLLs with
 * ctypes.CDLL(path), both with LoadLibraryExW(path,
 * LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR): their
 * imports come from the file's own folder, the interpreter's folder (the
 * application's), the os.add_dll_directory folders and System32, never from
 * PATH. What such a DLL opens later by name (LoadLibraryA("cublas64_12.dll"))
 * is a plain LoadLibrary: the standard order, PATH included, without the
 * os.add_dll_directory folders (CPython never calls
 * SetDefaultDllDirectories). A package's __init__ may add folders and open
 * its own DLLs first (scan/consumers.h, cl_consumer_windows_init).
 */
#ifndef CUDALOAD_PYTHON_LOADS_H
#define CUDALOAD_PYTHON_LOADS_H

#include "scan/consumers.h"

struct cl_loader_model;

#include <stddef.h>

/* A file of a Python package, as CPython loads it. */
typedef struct cl_python_load {
  char *site;        /* the site-packages folder it lies under */
  char *package_dir; /* <site>\<top-level package>: its folder (NULL for a
                        file at the top of site-packages) */
  char *package;     /* that package's name ("ctranslate2"), or NULL */
  char *home;        /* the interpreter's folder, the application folder of
                        the process (<prefix> with python.exe, or a venv's
                        pyvenv.cfg "home"); NULL when nothing tells */
  /* What the package's __init__ does first (its version's row), NULL when
   * nothing is known. */
  const cl_consumer_windows_init *init;
  /* The folder init adds and loads the DLLs of: package_dir, or its
   * init->dll_folder (torch\lib); NULL without init. */
  char *init_dir;
} cl_python_load;

/* Whether CPython loads the file at path with CL_LOAD_BESIDE_ITSELF: an
 * extension module (.pyd), or a DLL inside a site-packages folder (what a
 * package opens with ctypes.CDLL, or its extension modules import). *is
 * 1 and *out filled, or 0 and *out zeroed. 0 or CUDALOAD_E_NO_MEMORY. */
int cl_python_load_of(const char *path, cl_python_load *out, int *is);
void cl_python_load_free(cl_python_load *p);

/* Make model m the process that loads a file of py, as CPython does: the
 * interpreter's folder is the application's (when py tells it); the first
 * time py's package __init__ runs in m (py->init), the folder it adds with
 * os.add_dll_directory joins m's AddDllDirectory folders and *dlls lists
 * the DLLs it then opens with ctypes.CDLL, in order (full paths, for the
 * caller to open with CL_LOAD_BESIDE_ITSELF before the file). 0 or
 * CUDALOAD_E_NO_MEMORY; free each of *dlls and the array. */
int cl_python_prepare_model(struct cl_loader_model *m, const cl_python_load *py,
                            char ***dlls, size_t *count);

/* Whether the DLL at path is one its package's __init__ opens itself
 * (ctypes.CDLL of each DLL of its folder, cl_consumer_windows_init): then
 * the program loads it whether or not another of its files imports it
 * (ctranslate2 4.8.5's bundled cudnn64_9.dll, which ctranslate2.dll does
 * not import). */
int cl_python_loaded_by_init(const char *path);

/* The interpreter's folder of a site-packages folder (<prefix>\Lib\
 * site-packages): <prefix> when it holds python.exe (an installation, the
 * embeddable distribution), else the "home" of <prefix>\pyvenv.cfg when
 * that holds python.exe (a venv, whose Scripts\python.exe starts the base
 * interpreter). Malloc'ed; NULL when none tells (or out of memory). */
char *cl_python_home_of_site(const char *site);

/* The *.dll files of folder, as full paths in the order a Windows folder
 * lists them (NTFS: by upper-case name), which is the order of
 * glob.glob("*.dll") and so of a package's ctypes.CDLL loop. 0 or
 * CUDALOAD_E_NO_MEMORY; free each and the array. */
int cl_python_folder_dlls(const char *folder, char ***paths, size_t *count);

#endif
