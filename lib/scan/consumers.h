/* SPDX-License-Identifier: MIT */
/*
 * consumers.h - programs known to open CUDA libraries by name at run time,
 * which neither their DT_NEEDED entries nor any catalog entry tell: one data
 * table (consumers.c), matched against the files a scan lists in Python
 * package folders. ctranslate2 4.x carries a cuBLAS stub that opens
 * libcublas.so.12 / cublas64_12.dll at its first cuBLAS call; in a CUDA 13
 * torch environment that file is missing and the program aborts there
 * ("Library libcublas.so.12 is not found"). A plan that holds the family
 * in another major adds the consumer's major, or warns (plan.c, "known
 * consumers").
 */
#ifndef CUDALOAD_CONSUMERS_H
#define CUDALOAD_CONSUMERS_H

#include "scan/catalog.h"

#include <stddef.h>

/* What one release series of a package opens. */
typedef struct cl_known_consumer {
  const char *package; /* "ctranslate2": the Python distribution */
  /* Its library: "lib<stem>-<8 hex>.so.<version>" (auditwheel, in
   * <package>.libs) or "lib<stem>.so[.<version>]" (in <package>/) on Linux,
   * "<windows_name>" in <package>/ on Windows. */
  const char *linux_stem;
  const char *windows_name;
  int first_major, last_major; /* the package versions the row is for */
  /* NULL, or a PEP 440 specifier the version must satisfy too (TensorFlow
   * 2.15 and later are its CUDA 12 builds; 2.14 was CUDA 11's). */
  const char *versions;
  const char *family; /* what it opens: "cublas" */
  int cuda_major;     /* the CUDA major of the build it opens */
  /* The library's own major where its CUDA major does not tell it
   * (cuSOLVER 11 is CUDA 11's and 12's, cuDNN 9 CUDA 12's and 13's); 0:
   * the catalog's major for cuda_major. */
  int library_major;
  const char *evidence; /* how we know: the string in the file */
  /* NULL: opened whenever the package is used; else opened only when this
   * feature is (ctranslate2's NCCL, its tensor-parallel mode): a need "if
   * used", planned where the environment holds it, never required. */
  const char *feature;
} cl_known_consumer;

/* What a known package does with one of its modules that its files do not
 * say, by the module's path in site-packages (a row of the second table
 * of consumers.c, read from the package's own source). */
typedef enum cl_module_kind {
  /* Imported only when a feature is used (CuPy's cuTENSOR and NCCL
   * modules, onnxruntime's TensorRT provider): what it needs, the program
   * needs only if it uses that feature. */
  CL_MODULE_OPTIONAL = 1,
  /* Imported only after the package loaded `family` itself (CuPy asks
   * cuda-pathfinder for libcublas.so.12 before cupy_backends.cuda.libs
   * .cublas): that need is loaded by then, wherever the loader alone
   * would look; the program still needs the library. */
  CL_MODULE_PRELOADED,
  /* Loads `family` by name at its first use (CuPy's NVRTC, through
   * cuda-pathfinder), of the package's own CUDA major: a need no NEEDED
   * entry shows. */
  CL_MODULE_LOADS
} cl_module_kind;

typedef struct cl_module_behaviour {
  /* The start of its path as RECORD lists it, '/' separated, up to the
   * dot before its tag: "cupy_backends/cuda/libs/cutensor." matches the
   * Linux .cpython-311-...so and the Windows .cp311-win_amd64.pyd. */
  const char *path;
  cl_module_kind kind;
  const char *family;   /* PRELOADED, LOADS: the library's family */
  const char *feature;  /* OPTIONAL: what uses it, as the report says */
  const char *evidence; /* where the package's source says so */
} cl_module_behaviour;

/* The row for a file of a distribution, by its RECORD path; NULL for a
 * file no row is about. */
const cl_module_behaviour *cl_consumer_module(const char *relpath, size_t len);

/* The package whose library file_name is, when it lies in a folder named
 * folder_base ("ctranslate2.libs" or "ctranslate2"); NULL otherwise. */
const char *cl_consumer_package_of(const char *folder_base,
                                   const char *file_name, cl_naming naming);

/* The package version a Linux file name carries ("4.4.0" from
 * libctranslate2-0a1b2c3d.so.4.4.0) into out; 0 when it carries none. */
int cl_consumer_version_from_name(const char *file_name, char *out,
                                  size_t size);

/* The version of package installed in the site folder site, from its
 * "<package>-<version>.dist-info" folder name; 0 when there is none (an
 * unreadable folder too). Sets no error. */
int cl_consumer_version_from_site(const char *site, const char *package,
                                  char *out, size_t size);

/* The rows for package whose version (its major) they cover, of its build
 * for naming (a row without a windows_name is of its Linux build only), one
 * at a time: index 0, 1, ... until NULL. */
const cl_known_consumer *cl_consumer_need(const char *package,
                                          const char *version, cl_naming naming,
                                          size_t index);

/* The version of package whose library is the file at path, into out: what
 * its name carries (Linux), else its distribution's dist-info in the site
 * folder above the package folder (Windows: ctranslate2\ctranslate2.dll
 * carries none). 0 when neither tells. Sets no error. */
int cl_consumer_version_of(const char *path, const char *package, char *out,
                           size_t size);

/* What a package loads itself, by absolute path, from the NVIDIA wheels of
 * its site-packages: on its own before it loads its CUDA libraries (JAX's
 * CUDA plugin, jax_plugins/xla_cuda12/__init__.py's
 * _load_nvidia_libraries()), or when the program calls `call`
 * (onnxruntime.preload_dlls()). A library so loaded is in the process by
 * its SONAME: a later dlopen by name of that name takes it, wherever the
 * loader alone would look (cuBLASLt's by-name libnvrtc.so.12). One row per
 * release series, read from the package's own source in its wheel. */
typedef struct cl_package_preload {
  const char *package;  /* the distribution, as its METADATA names it */
  const char *versions; /* PEP 440 specifier of the releases read */
  const char *call;     /* NULL: on its own; else what the program calls */
  const char *files;    /* site-packages paths, ' '-separated, in its order */
  const char *evidence; /* where its source says so */
} cl_package_preload;

/* The rows for distribution package (its name compared as PEP 503
 * normalises it) at version, one at a time: index 0, 1, ... until NULL. */
const cl_package_preload *
cl_consumer_preload(const char *package, const char *version, size_t index);

/* A pin of a package (of an NVIDIA wheel, under an extra) that its build
 * for one platform never loads: a need only "if used", not the program's
 * (consumers.c reads why). */
typedef struct cl_unloaded_pin {
  const char *package;  /* the distribution, as its METADATA names it */
  const char *versions; /* PEP 440 specifier of the releases read */
  cl_naming naming;     /* the platform whose build does not load them */
  const char *wheels;   /* the pinned wheels' names, ' '-separated */
  const char *feature;  /* what would load them, as "only if ... is used" */
} cl_unloaded_pin;

/* The feature text of the row saying that package at version, built for
 * naming, never loads the wheel named wheel[0..wheel_len) it pins; NULL
 * when no row says so (the pin is a need). */
const char *cl_consumer_pin_unloaded(const char *package, const char *version,
                                     cl_naming naming, const char *wheel,
                                     size_t wheel_len);

/* What a package's __init__ does on Windows before Python imports its
 * extension module (docs/loader.md, Windows 14), read from its wheels. */
typedef struct cl_consumer_windows_init {
  const char *package;
  int first_major, last_major;
  /* os.add_dll_directory(<its package folder>): the folder its extension
   * modules' and ctypes loads search (not LoadLibrary by name). */
  int adds_own_folder;
  /* ctypes.CDLL of every *.dll of its package folder, in the order the
   * folder lists them, before the extension module: each is loaded by full
   * path, a copy of a name the process has already included. A row that
   * sets it sets adds_own_folder too. */
  int loads_own_dlls;
  const char *evidence;
  /* The folder, under its package folder, that it adds and whose DLLs it
   * loads: NULL for the package folder itself (ctranslate2), "lib" for
   * torch, whose Windows wheels bundle their CUDA DLLs in torch\lib. */
  const char *dll_folder;
} cl_consumer_windows_init;

/* Whether any row is package's (no version asked: finding one lists its
 * site folder). */
int cl_consumer_has_windows_init(const char *package);

/* The row for package at version (its major), NULL when none. */
const cl_consumer_windows_init *
cl_consumer_windows_init_of(const char *package, const char *version);

#endif
