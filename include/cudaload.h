/* SPDX-License-Identifier: MIT */
/*
 * cudaload.h - the one public header of libcudaload.
 *
 * libcudaload finds CUDA libraries (cuBLAS, cuDNN, cudart and their relatives)
 * on disk by their naming conventions, tells their exact versions without
 * loading them, and inspects ELF and PE files with bounds-checked readers.
 *
 * Conventions for every function below:
 * - Strings are UTF-8 and NUL-terminated, on every platform.
 * - A function returning `int` returns a status: CUDALOAD_OK (0) or one of the
 *   CUDALOAD_E_* codes. On failure the calling thread's last-error text
 *   (cudaload_last_error()) names the thing that failed and why.
 * - Strings returned by accessors are owned by the object they came from and
 *   stay valid until that object is destroyed or rescanned.
 * - Lifetimes in a ctx, one rule per object. The inventory (cudaload_library_*,
 *   cudaload_root_*, shims, consumers, refusals) lives until the next
 *   cudaload_scan() or cudaload_destroy(). The plan (cudaload_plan_*, the
 *   requirement outcomes, plan warnings, conflicts) lives until the next
 *   plan, and a plan is also dropped by what changes its inputs: a scan, a
 *   cudaload_require*() (cudaload_require_for() included), a manifest
 *   loaded. These functions plan implicitly, so they too end the previous
 *   plan's strings: cudaload_preload() and cudaload_open_isolated() (always),
 *   cudaload_env_value() and cudaload_env_warnings() (when there is no
 *   plan yet). Copy a string you keep across such a call.
 *   cudaload_doctor() and cudaload_explain_files() plan for themselves and
 *   leave the ctx's plan as it was (explain uses the ctx's plan when there
 *   is one).
 * - Handles returned by cudaload_dlopen_isolated() and
 *   cudaload_open_isolated() belong to the caller: close them with dlclose()
 *   (Windows: FreeLibrary()) when done, or keep them for the life of the
 *   process; libcudaload never closes them. What cudaload_preload() loads
 *   stays loaded for the life of the process (nothing is unloaded).
 * - A cudaload_ctx is not thread-safe: use one per thread, or serialise calls.
 *   That holds for the accessors that take a const ctx too: a library's full
 *   version, machine and include folder are read from disk the first time
 *   they are asked for and kept in the ctx (the ctx is unchanged in what it
 *   answers, not in its memory).
 *   Functions without a ctx argument are thread-safe.
 * - No CUDA header is needed to build against this header, and nothing here
 *   links against CUDA: CUDA libraries are only ever opened at run time.
 */
#ifndef CUDALOAD_H
#define CUDALOAD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Export macro. Define CUDALOAD_STATIC when linking the static library. */
#if defined(CUDALOAD_STATIC)
#define CUDALOAD_API
#elif defined(_WIN32)
#if defined(CUDALOAD_BUILDING)
#define CUDALOAD_API __declspec(dllexport)
#else
#define CUDALOAD_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CUDALOAD_API __attribute__((visibility("default")))
#else
#define CUDALOAD_API
#endif

/* Version of this header. The build reads these lines: one source of truth. */
#define CUDALOAD_VERSION_MAJOR 0
#define CUDALOAD_VERSION_MINOR 2
#define CUDALOAD_VERSION_PATCH 0
/* The ABI major: the shared library's SOVERSION (libcudaload.so.1). */
#define CUDALOAD_ABI_VERSION 1
#define CUDALOAD_VERSION_NUMBER                                                \
  (CUDALOAD_VERSION_MAJOR * 10000 + CUDALOAD_VERSION_MINOR * 100 +             \
   CUDALOAD_VERSION_PATCH)

/** Version of the library actually loaded, as CUDALOAD_VERSION_NUMBER. */
CUDALOAD_API unsigned cudaload_version_number(void);
/** Version of the library actually loaded, as "MAJOR.MINOR.PATCH". */
CUDALOAD_API const char *cudaload_version_string(void);

/* Status codes. Values are pinned and never reused. */
#define CUDALOAD_OK 0
#define CUDALOAD_E_INVALID_ARGUMENT 1 /* NULL or out-of-range argument */
#define CUDALOAD_E_NO_MEMORY 2        /* an allocation failed */
#define CUDALOAD_E_IO 3               /* a file or folder could not be read */
#define CUDALOAD_E_MALFORMED 4        /* a file is truncated or malformed */
#define CUDALOAD_E_NOT_FOUND 5        /* no such file, folder or library */
#define CUDALOAD_E_UNSUPPORTED 6      /* not a format or platform we handle */
#define CUDALOAD_E_NOT_A_FILE 7       /* a folder, FIFO or device, not a file */
#define CUDALOAD_E_BAD_SPEC 8     /* a requirement spec could not be parsed */
#define CUDALOAD_E_UNSATISFIED 9  /* no usable file for a requirement */
#define CUDALOAD_E_LOAD_FAILED 10 /* the OS loader refused a planned file */
#define CUDALOAD_E_CONFLICT                                                    \
  11 /* the process already has a library that conflicts                       \
        with the plan: another major of a required family                      \
        in the global symbol scope, or an older copy */
#define CUDALOAD_E_INSECURE                                                    \
  12 /* refused as a planting hazard: a root writable by                       \
        other users (see CUDALOAD_ALLOW_WRITABLE_ROOTS), or                    \
        a folder a search-path variable cannot hold */

/** A static, one-line English description of a status code; never NULL. */
CUDALOAD_API const char *cudaload_strerror(int status);

/**
 * The detail of the calling thread's most recent failure: the file or folder,
 * the reason and, where the OS gave one, its error text. "" when there is
 * none. Valid until the next cudaload call on this thread.
 */
CUDALOAD_API const char *cudaload_last_error(void);

/* Flags for cudaload_escape_text(). */
#define CUDALOAD_ESCAPE_KEEP_NEWLINES 0x1 /* '\n' stays: a text of lines */

/**
 * Text from outside (a path, a version read from a file, a driver's string,
 * a message that quotes them) as the text reports and the cudaload tool show
 * it to a person (CUDALOAD_1.6): each control character (C0 and DEL) and
 * each byte that is not part of valid UTF-8 as \xNN, each C1 control as
 * \u00NN, so that nothing reaches a terminal that would obey it (an escape
 * sequence, a carriage return hiding a line); valid UTF-8 otherwise stays.
 * With CUDALOAD_ESCAPE_KEEP_NEWLINES, '\n' stays. The length bytes at text
 * are read, NUL bytes included (shown \x00). *out receives a malloc'ed,
 * NUL-terminated text (free with cudaload_free()). CUDALOAD_E_INVALID_ARGUMENT
 * for a NULL text or out, or an unknown flag; CUDALOAD_E_NO_MEMORY.
 */
CUDALOAD_API int cudaload_escape_text(const char *text, size_t length,
                                      unsigned flags, char **out);

/* ------------------------------------------------------------------------ */
/* Context: roots and the scanned inventory                                 */
/* ------------------------------------------------------------------------ */

typedef struct cudaload_ctx cudaload_ctx;

/* Flags for cudaload_create(). */
/** Search only the roots added with cudaload_add_root(). */
#define CUDALOAD_NO_DEFAULT_ROOTS 0x1u
/**
 * Accept roots that other users can write to. By default (POSIX) a scan
 * refuses a root, or a library folder under it, that is writable by every
 * user (sticky bit or not: a sticky folder still lets anyone add a file) or
 * writable by a group the process is not a member of (other than root's
 * group 0): anyone who can write there could plant a library that this
 * process would then load. Links are resolved first: a library whose real
 * file others can write to, whose real folder is such a folder, or that is
 * reached through a folder where others can rename what it holds (writable
 * without the sticky bit) is refused the same way. Such a root is listed
 * with CUDALOAD_E_INSECURE (the refused libraries are not listed, so no
 * plan takes them), and after cudaload_scan() the last error names the
 * folder or file and who can write to it.
 * On Windows the DACL is read instead: an allow entry (conditional ones
 * included) that lets a group of other users (Everyone, Authenticated
 * Users, BUILTIN\Users or Guests, Interactive and the other logon groups;
 * SECURITY.md lists them) add files or subfolders, delete what the folder
 * holds, or change its permissions or owner, or a NULL DACL, refuses it.
 */
#define CUDALOAD_ALLOW_WRITABLE_ROOTS 0x2u
/**
 * Neither read nor write the user's names store. A context keeps the
 * library names each CUDA library holds as text (what it opens by name
 * later: cuDNN's sub-libraries, cuBLASLt, NVRTC), found by reading the
 * library's data, in one small per-user file, keyed by the library's
 * device, inode, size, last write and (POSIX) status change time, so that
 * a later process reads none of that data again. The file is `names-v1` in
 * $CUDALOAD_CACHE_PATH (an absolute path), else in $XDG_CACHE_HOME/cudaload
 * or $HOME/.cache/cudaload (Windows: %LOCALAPPDATA%\cudaload); setting
 * CUDALOAD_CACHE_DISABLE to anything but "" or "0" switches it off for the
 * whole process, as this flag does for one context. It is read once per
 * context, trusted only when it is a regular file of this user's that no
 * one else may write, at most 4 MiB and well formed throughout, and written
 * (a new file renamed over the old) by cudaload_plan(), cudaload_preload()
 * and cudaload_destroy() when they found names it did not hold; a failure
 * to write changes no result. Answers are the same with or without it.
 */
#define CUDALOAD_NO_NAMES_STORE 0x4u

/** Naming conventions a scan recognises (cudaload_set_target()). */
#define CUDALOAD_TARGET_HOST 0    /* the platform this library was built for */
#define CUDALOAD_TARGET_LINUX 1   /* libcublas.so.12, ... */
#define CUDALOAD_TARGET_WINDOWS 2 /* cublas64_12.dll, ... */
/* With an architecture: a plan takes only files built for it (the plain
 * targets take the process's architecture on its own system, any on the
 * other). */
#define CUDALOAD_TARGET_LINUX_X86_64 3
#define CUDALOAD_TARGET_LINUX_AARCH64 4 /* SBSA servers, Jetson */
#define CUDALOAD_TARGET_WINDOWS_X86_64 5
#define CUDALOAD_TARGET_WINDOWS_ARM64 6

/**
 * Create a context. flags: 0, or any of CUDALOAD_NO_DEFAULT_ROOTS,
 * CUDALOAD_ALLOW_WRITABLE_ROOTS and CUDALOAD_NO_NAMES_STORE.
 * Returns NULL on failure (unknown flag, out of memory; see last error).
 */
CUDALOAD_API cudaload_ctx *cudaload_create(unsigned flags);

/** Destroy a context and everything it owns. Accepts NULL. */
CUDALOAD_API void cudaload_destroy(cudaload_ctx *ctx);

/**
 * Add a folder to search. Explicit roots are searched before the default
 * roots, in the order added. A root may be a library folder, a toolkit or
 * conda prefix, a Python site-packages folder or a cuDNN installer folder: the
 * known sub-folders of each layout are searched. The folder need not exist
 * yet; it is read by cudaload_scan(). Returns CUDALOAD_E_INVALID_ARGUMENT for
 * NULL, "" or a relative path: a root must be absolute, so that what a scan
 * finds does not depend on the current folder at the time of the scan. A
 * caller that takes paths from a person (the cudaload tool, the Python
 * bindings) resolves relative ones against the current folder first. On
 * Windows one pair of surrounding double quotes is taken off (Explorer's
 * "Copy as path"; no Windows name holds a '"'), and '/' becomes '\\', so
 * that the root and every path found under it read with '\\' only.
 */
CUDALOAD_API int cudaload_add_root(cudaload_ctx *ctx, const char *dir);

/**
 * Add a folder of the caller's own environment (since 1.1): a binding
 * passes the site folders of the interpreter it runs in. They are searched
 * after the explicit roots and before CUDNN_PATH, CUDA_PATH, the toolkits
 * and the system, in the "environment" tier, and they replace the
 * environment the library would otherwise find itself (VIRTUAL_ENV,
 * CONDA_PREFIX, the python3 first on PATH). Searched even with
 * CUDALOAD_NO_DEFAULT_ROOTS. Same rules for dir as cudaload_add_root().
 */
CUDALOAD_API int cudaload_add_environment_root(cudaload_ctx *ctx,
                                               const char *dir);

/**
 * Choose which naming conventions the scan recognises (CUDALOAD_TARGET_*).
 * CUDALOAD_TARGET_WINDOWS on a Linux host recognises Windows DLL names in
 * explicit roots (a Linux machine building a Windows installer). A target
 * with an architecture (CUDALOAD_TARGET_LINUX_AARCH64, ...) also decides
 * which machine's files a plan may take; the plain ones take the process's
 * on its own system and any machine on the other.
 */
CUDALOAD_API int cudaload_set_target(cudaload_ctx *ctx, int target);

/**
 * Scan the roots: explicit roots first, then (unless CUDALOAD_NO_DEFAULT_ROOTS)
 * the default roots of the host. Replaces any earlier inventory. Never loads a
 * library and never starts a process. A root that does not exist or cannot be
 * read is skipped and listed by cudaload_root_*(); only a failure that leaves
 * no usable inventory (out of memory, invalid ctx) returns an error.
 * A scan of the same roots, flags and target made earlier in this process,
 * on any context or thread, answers again (a copy, in microseconds) while
 * every folder, file, link and variable it asked about is unchanged
 * (docs/scan-contract.md, "A second scan in the same process").
 */
CUDALOAD_API int cudaload_scan(cudaload_ctx *ctx);

/** Number of roots the last scan searched, explicit and default. */
CUDALOAD_API size_t cudaload_root_count(const cudaload_ctx *ctx);
/** Root i's folder, as given or as found. NULL when i is out of range. */
CUDALOAD_API const char *cudaload_root_path(const cudaload_ctx *ctx, size_t i);
/** Where root i came from: "explicit", "interpreter", "VIRTUAL_ENV",
 *  "CONDA_PREFIX", "python3 on PATH", "CUDNN_PATH", "CUDA_PATH",
 *  "CUDA_PATH_V*", "CUDA_HOME", "toolkit", "cudnn installer", "ld.so.cache",
 *  "system". NULL when i is out of range. */
CUDALOAD_API const char *cudaload_root_origin(const cudaload_ctx *ctx,
                                              size_t i);
/**
 * Root i's precedence tier (since 1.1): "explicit", "environment",
 * "variable", "toolkit" or "system". When several roots hold a library that
 * satisfies a requirement, the earlier tier wins even over a newer version
 * in a later one (the environment the user activated is what they mean);
 * within a tier, the newest version. NULL when i is out of range.
 */
CUDALOAD_API const char *cudaload_root_tier(const cudaload_ctx *ctx, size_t i);
/** CUDALOAD_OK if root i was read, else the status that made the scan skip
 *  it (CUDALOAD_E_NOT_FOUND, CUDALOAD_E_IO, CUDALOAD_E_INSECURE, ...). */
CUDALOAD_API int cudaload_root_status(const cudaload_ctx *ctx, size_t i);
/** A root status as the reports write it: "ok", "not found", "not a
 *  folder", "malformed", "writable by other users"; "unreadable" for any
 *  other error status. A static string. (CUDALOAD_1.1) */
CUDALOAD_API const char *cudaload_root_status_name(int status);

/** Number of libraries the last scan found. Each real file is listed once. */
CUDALOAD_API size_t cudaload_library_count(const cudaload_ctx *ctx);
/** Library i's catalog name: "cudnn", "cudnn_ops_infer", "cublasLt", ... */
CUDALOAD_API const char *cudaload_library_name(const cudaload_ctx *ctx,
                                               size_t i);
/** Library i's family: "cudnn", "cublas", "cudart", "driver", ... */
CUDALOAD_API const char *cudaload_library_family(const cudaload_ctx *ctx,
                                                 size_t i);
/** Library i's own ABI major (8 for libcudnn.so.8), or -1 if out of range. */
CUDALOAD_API int cudaload_library_major(const cudaload_ctx *ctx, size_t i);
/** The CUDA major library i belongs to, 0 when nothing tells: for a
 *  wheel's library whose name does not tell it, what its files (and those
 *  of its build) need or open, before its dist-info's -cuNN, since the file
 *  is what the process loads. The same answer the plan uses, asked before
 *  or after a plan. */
CUDALOAD_API int cudaload_library_cuda_major(const cudaload_ctx *ctx, size_t i);
/** Library i's full version ("9.19.0.56"), or "" when nothing on disk
 *  tells more than the major. A wheel's version comes from the dist-info
 *  folder that owns the file, which only a listing of site-packages finds:
 *  the scan leaves that for the first call that needs it (this one, the
 *  three below, a requirement finer than a major, a choice between two
 *  files), so a plan for "cudnn=9" does not pay for thousands of unrelated
 *  packages. The answer is the same either way. */
CUDALOAD_API const char *cudaload_library_version(const cudaload_ctx *ctx,
                                                  size_t i);
/** Where the version came from: "dist-info", "file-name", "header",
 *  "versioninfo", or "none". */
CUDALOAD_API const char *
cudaload_library_version_source(const cudaload_ctx *ctx, size_t i);
/** The file behind the version: the METADATA, header or library file; ""
 *  for "none". */
CUDALOAD_API const char *cudaload_library_version_file(const cudaload_ctx *ctx,
                                                       size_t i);
/** Absolute path of library i's real file (symlinks resolved). */
CUDALOAD_API const char *cudaload_library_path(const cudaload_ctx *ctx,
                                               size_t i);
/** The machine library i was built for, read from its header on first
 *  call: "x86_64", "aarch64", "i386", "arm", ... ("unknown" for another);
 *  NULL when the file is neither ELF nor PE or cannot be read. A plan never
 *  chooses a file built for another machine than the one it plans for
 *  (cudaload_set_target()); it says which it rejected and why. */
CUDALOAD_API const char *cudaload_library_machine(const cudaload_ctx *ctx,
                                                  size_t i);
/** The folder of library i's family's headers, found beside it in the same
 *  install (wheels: nvidia/<pkg>/include, nvidia/cu13/include; toolkits
 *  and conda: include, targets/<arch>/include, Library/include; NVVM:
 *  nvvm/include) when it holds the family's header (cuda_runtime.h for
 *  cudart, nvrtc.h, cudnn.h, ...): what an NVRTC or nvJitLink program
 *  passes to the compiler at run time (-I). NULL when there is none, with
 *  the last error naming the header looked for and the library beside
 *  which it looked; NULL too when other users can change what a compiler
 *  would read there (the folder, the header or a folder on the way is
 *  writable by them, as for a library's folders; the last error says which
 *  and who) unless the ctx has CUDALOAD_ALLOW_WRITABLE_ROOTS. `cudaload
 *  include-dir FAMILY` prints it for the library a plan chooses. */
CUDALOAD_API const char *cudaload_library_include_dir(const cudaload_ctx *ctx,
                                                      size_t i);
/** The root (index into cudaload_root_*) under which library i was found. */
CUDALOAD_API size_t cudaload_library_root(const cudaload_ctx *ctx, size_t i);

/**
 * The last scan as one document, as `cudaload scan` prints it (CUDALOAD_1.1):
 * CUDALOAD_FORMAT_TEXT, an aligned table of the libraries (name, family,
 * major, version, version source, path), their count, and the roots given
 * with cudaload_add_root() that could not be searched; CUDALOAD_FORMAT_JSON
 * or _YAML (every build), the schema of docs/cli.md:
 * "schema_version", "target", "roots", "libraries". Values from outside
 * (paths, versions) are escaped in the text, exact in JSON and YAML. *out
 * receives a malloc'ed, NUL-terminated text (free with cudaload_free()).
 * CUDALOAD_E_INVALID_ARGUMENT for another format.
 */
CUDALOAD_API int cudaload_scan_report(const cudaload_ctx *ctx, int format,
                                      char **out);

/* ------------------------------------------------------------------------ */
/* File inspection: ELF and PE, read-only, on any host                      */
/* ------------------------------------------------------------------------ */

typedef struct cudaload_file cudaload_file;

/**
 * Read an ELF (32/64-bit, either byte order) or PE (PE32/PE32+) file's
 * headers without loading it. Never blocks on a FIFO or device and never
 * reads past the end of the file. On success *out receives a new object
 * (free with cudaload_file_close()); on failure *out is NULL and the status
 * is CUDALOAD_E_NOT_FOUND, CUDALOAD_E_IO, CUDALOAD_E_NOT_A_FILE,
 * CUDALOAD_E_UNSUPPORTED (neither ELF nor PE) or CUDALOAD_E_MALFORMED.
 */
CUDALOAD_API int cudaload_inspect(const char *path, cudaload_file **out);
/** Free an object from cudaload_inspect(). Accepts NULL. */
CUDALOAD_API void cudaload_file_close(cudaload_file *file);
/** "elf" or "pe". */
CUDALOAD_API const char *cudaload_file_format(const cudaload_file *file);
/** Machine: "x86_64", "aarch64", "i386", "ppc64le", ... or "unknown(0xNN)". */
CUDALOAD_API const char *cudaload_file_machine(const cudaload_file *file);
/** 32 or 64. */
CUDALOAD_API int cudaload_file_bits(const cudaload_file *file);
/** ELF DT_SONAME; "" when absent and for PE. */
CUDALOAD_API const char *cudaload_file_soname(const cudaload_file *file);
/** Number of ELF DT_NEEDED entries, or of DLLs a PE file imports. */
CUDALOAD_API size_t cudaload_file_needed_count(const cudaload_file *file);
/** Needed entry i, in file order; NULL when out of range. */
CUDALOAD_API const char *cudaload_file_needed(const cudaload_file *file,
                                              size_t i);
/** ELF DT_RUNPATH, ""  when absent. */
CUDALOAD_API const char *cudaload_file_runpath(const cudaload_file *file);
/** ELF DT_RPATH, "" when absent. */
CUDALOAD_API const char *cudaload_file_rpath(const cudaload_file *file);
/** PE VERSIONINFO file version ("9.1.0.70"); "" when absent and for ELF. */
CUDALOAD_API const char *cudaload_file_version(const cudaload_file *file);

/*
 * Symbols and symbol versions (exported under version node CUDALOAD_1.1). An
 * ELF export belongs to a version node (cudnnCreate@@libcudnn.so.9) and an
 * import may require one of another file (cudnnCreate@libcudnn.so.8 from
 * libcudnn.so.8); glibc binds a versioned import only to that version. A PE
 * import names its DLL; a PE export may forward to another DLL.
 */
/** cudaload_file_flags(): ELF DT_SYMBOLIC or DF_SYMBOLIC (the object binds
 *  its own references to its own definitions first). */
#define CUDALOAD_FILE_SYMBOLIC 0x1
/** cudaload_file_flags(): ELF DF_1_NODEFLIB (no ld.so.cache or default
 *  folders for its dependencies). */
#define CUDALOAD_FILE_NODEFLIB 0x2
/** cudaload_file_flags(): ELF DT_VERSYM (the symbols carry versions). */
#define CUDALOAD_FILE_VERSIONED 0x4
/** CUDALOAD_FILE_* bits of a file; 0 for PE. */
CUDALOAD_API int cudaload_file_flags(const cudaload_file *file);
/** Number of version nodes an ELF file defines (DT_VERDEF, without the base
 *  entry that holds the file's own name); 0 for PE. */
CUDALOAD_API size_t cudaload_file_version_count(const cudaload_file *file);
/** Name of version node i ("libcudnn.so.9"); NULL when out of range. */
CUDALOAD_API const char *cudaload_file_version_name(const cudaload_file *file,
                                                    size_t i);
/** 1 when some export has node i as its default version (name@@node); 0
 *  when the node holds only hidden, older versions (name@node). */
CUDALOAD_API int cudaload_file_version_is_default(const cudaload_file *file,
                                                  size_t i);
/** Number of files whose versions an ELF file requires (DT_VERNEED). */
CUDALOAD_API size_t cudaload_file_need_count(const cudaload_file *file);
/** The file of need i ("libcudnn.so.8"); NULL when out of range. */
CUDALOAD_API const char *cudaload_file_need_file(const cudaload_file *file,
                                                 size_t i);
/** Number of versions need i requires. */
CUDALOAD_API size_t cudaload_file_need_version_count(const cudaload_file *file,
                                                     size_t i);
/** Version j of need i ("libcudnn.so.8", "GLIBC_2.34"); NULL when out of
 *  range. */
CUDALOAD_API const char *cudaload_file_need_version(const cudaload_file *file,
                                                    size_t i, size_t j);

/** Symbol kinds: exports (ELF: defined global or weak dynamic symbols of
 *  default or protected visibility; PE: exports by name) and imports (ELF:
 *  undefined dynamic symbols; PE: imported functions, "#N" by ordinal). */
#define CUDALOAD_SYMBOL_EXPORT 0
#define CUDALOAD_SYMBOL_IMPORT 1
/** cudaload_file_symbol_flags(): ELF export under a hidden, non-default
 *  version (name@node: only a reference to that version binds to it). */
#define CUDALOAD_SYMBOL_HIDDEN 0x1
/** cudaload_file_symbol_flags(): ELF weak binding. */
#define CUDALOAD_SYMBOL_WEAK 0x2
/** cudaload_file_symbol_flags(): PE export forwarded to another DLL. */
#define CUDALOAD_SYMBOL_FORWARDER 0x4
/** Number of symbols of a kind, in file order; 0 for an unknown kind. */
CUDALOAD_API size_t cudaload_file_symbol_count(const cudaload_file *file,
                                               int kind);
/** Name of symbol i of a kind; NULL when out of range. */
CUDALOAD_API const char *cudaload_file_symbol_name(const cudaload_file *file,
                                                   int kind, size_t i);
/** Version of symbol i: an export's node, the version an import requires;
 *  "" when it has none (and for PE); NULL when out of range. */
CUDALOAD_API const char *cudaload_file_symbol_version(const cudaload_file *file,
                                                      int kind, size_t i);
/** Import: the library symbol i comes from (PE: the DLL; ELF: the
 *  DT_VERNEED file of its version, "" when unversioned). Export: where a PE
 *  forwarder sends it ("NTDLL.RtlAllocateHeap"), else "". NULL when out of
 *  range. */
CUDALOAD_API const char *cudaload_file_symbol_library(const cudaload_file *file,
                                                      int kind, size_t i);
/** CUDALOAD_SYMBOL_* bits of symbol i; 0 when out of range. */
CUDALOAD_API int cudaload_file_symbol_flags(const cudaload_file *file, int kind,
                                            size_t i);

/* Flags for cudaload_inspect_report(). */
#define CUDALOAD_INSPECT_SYMBOLS 0x1u /* list every symbol, not only counts */

/**
 * What `cudaload inspect` prints for files (CUDALOAD_1.1), each read with
 * cudaload_inspect() and named as given in paths: CUDALOAD_FORMAT_TEXT,
 * one block per file that could be read (format, machine, SONAME, needed
 * libraries, RUNPATH/RPATH, version, symbol versions defined and required,
 * symbol counts; with CUDALOAD_INSPECT_SYMBOLS every symbol as objdump
 * writes it, name@@VERSION); CUDALOAD_FORMAT_JSON or _YAML, the schema of
 * docs/cli.md: "schema_version", "files", and "errors" with the reason
 * each other file could not be read. *out receives a malloc'ed text (free
 * with cudaload_free()). Returns CUDALOAD_OK when the report was made,
 * whichever files could be read (cudaload_inspect() tells one file's
 * failure); CUDALOAD_E_INVALID_ARGUMENT or _NO_MEMORY otherwise.
 */
CUDALOAD_API int cudaload_inspect_report(const char *const *paths, size_t count,
                                         int format, unsigned flags,
                                         char **out);

/* ------------------------------------------------------------------------ */
/* Requirements, plan and preload                                           */
/* ------------------------------------------------------------------------ */

/**
 * Add requirements. spec: one or more of FAMILY[OP VERSION] separated by
 * commas, where FAMILY is cudart, cublas, cudnn, nvrtc, nvjitlink, cufft,
 * curand, cusparse, cusolver, nccl or cupti, and OP VERSION is "=8" (that
 * ABI major), "=8.9" (a version prefix), ">=8.9", ">8", "<=9", "<10" (a
 * version range; "==" is the same as "="); a version is up to four numbers
 * of at most nine digits each. "cudart" alone takes the newest.
 * "cudnn=8,cudnn=9" asks for two majors of one family side by side. A
 * malformed spec returns CUDALOAD_E_BAD_SPEC with the reason in the last
 * error and adds nothing.
 */
CUDALOAD_API int cudaload_require(cudaload_ctx *ctx, const char *spec);
/** Number of requirements added. */
CUDALOAD_API size_t cudaload_requirement_count(const cudaload_ctx *ctx);
/** Requirement i, normalised ("cudnn=8"). NULL when out of range. */
CUDALOAD_API const char *cudaload_requirement_text(const cudaload_ctx *ctx,
                                                   size_t i);

/**
 * Require what a program needs, read from the program itself rather than a
 * spec (CUDALOAD_1.2). target is one of: the absolute path of a binary
 * (ELF or PE); the path of a Python interpreter, or of a venv, conda or
 * site-packages folder, whose environment then becomes the active one (a
 * venv's python run by path, not activated, still imports from its
 * pyvenv.cfg's environment) and whose installed CUDA-using distributions
 * (torch, onnxruntime-gpu, ctranslate2, the jax CUDA plugins, cupy, ...)
 * are the program; or the name of a Python module or distribution
 * installed in the active environment (cudaload_add_environment_root,
 * else VIRTUAL_ENV, CONDA_PREFIX, the python3 on PATH): "torch",
 * "onnxruntime". Each CUDA library the program's files need (ELF NEEDED, PE
 * imports), each renamed copy of one they bundle (auditwheel's
 * libcudnn-<hex>.so.8.9.7), each name a known consumer opens at run time
 * (ctranslate2 opens libcublas.so.12), and each of NVIDIA's wheels its
 * distribution pins (Requires-Dist: nvidia-nvjitlink-cu12==12.4.127)
 * becomes a requirement of that family and major ("cudnn=9"), a pin also
 * setting the least version a file must have. cudaload_requirement_origin()
 * says where each came from. The program's own files are kept in ctx: the
 * doctor, cudaload_preload() and `cudaload exec` model them as the program
 * opens them. Returns CUDALOAD_OK (also when the program needs no CUDA
 * library: no requirement is added), CUDALOAD_E_NOT_FOUND when target is
 * none of these (the last error says where it looked and how to name the
 * environment), CUDALOAD_E_INVALID_ARGUMENT for a relative path. Clears the
 * plan; a new environment root makes the next plan scan again.
 */
CUDALOAD_API int cudaload_require_for(cudaload_ctx *ctx, const char *target);

/** Where requirement i came from when cudaload_require_for() derived it
 *  ("needed by /.../libonnxruntime_providers_cuda.so (ELF NEEDED);
 *  Requires-Dist: nvidia-cudnn-cu12~=9.0 of onnxruntime-gpu 1.26.0"), NULL
 *  for a requirement given as a spec (CUDALOAD_1.2). Owned by ctx. */
CUDALOAD_API const char *cudaload_requirement_origin(const cudaload_ctx *ctx,
                                                     size_t i);

/** The program's files cudaload_require_for() kept (CUDALOAD_1.2): how
 *  many, and file i (absolute; NULL out of range; owned by ctx). */
CUDALOAD_API size_t cudaload_program_file_count(const cudaload_ctx *ctx);
CUDALOAD_API const char *cudaload_program_file(const cudaload_ctx *ctx,
                                               size_t i);
/** The library (index into cudaload_library_*) the last cudaload_plan()
 *  chose for requirement i, or (size_t)-1 when it chose none or has not
 *  run. (CUDALOAD_1.1) */
CUDALOAD_API size_t cudaload_requirement_library(const cudaload_ctx *ctx,
                                                 size_t i);

/* ------------------------------------------------------------------------ */
/* Error messages: start from the error the user has (CUDALOAD_1.2, 1.3)    */
/* ------------------------------------------------------------------------ */

/* What an error message says went wrong (cudaload_error_message_kind). New
 * kinds are added at the end; a program should treat one it does not know
 * as "some other failure" (cudaload_error_message_kind_name names it). */
/** A library could not be found: dlopen's "libcudnn_ops_infer.so.8: cannot
 *  open shared object file", "Could not load library ...", "Could not
 *  locate cudnn_ops_infer64_8.dll", "Library libcublas.so.12 is not found
 *  or cannot be loaded", "cublas64_12.dll is not found", "Unable to load any
 *  of {...}", JAX's "Unable to load cuSPARSE". */
#define CUDALOAD_MESSAGE_LIBRARY_MISSING 1
/** Windows could not load a DLL or one of the DLLs it imports ("[WinError
 *  126] ... Could not find module '...' (or one of its dependencies)"), or
 *  a library failed to load for a reason the text does not name. */
#define CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY 2
/** CUBLAS_STATUS_NOT_INITIALIZED: cuBLAS could not create its handle. */
#define CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED 3
/** "CUDA driver version is insufficient for CUDA runtime version", "The
 *  NVIDIA driver on your system is too old (found version 11040)". */
#define CUDALOAD_MESSAGE_DRIVER_TOO_OLD 4
/** "no kernel image is available for execution on the device". */
#define CUDALOAD_MESSAGE_NO_KERNEL_IMAGE 5
/** A library was loaded but lacks a symbol its consumer binds (since
 *  CUDALOAD_1.3): "undefined symbol: __nvJitLinkComplete_12_4, version
 *  libnvJitLink.so.12", "symbol S version N not defined in file F with link
 *  time reference", Windows' "[WinError 127] The specified procedure could
 *  not be found": another, older copy of a library was taken. */
#define CUDALOAD_MESSAGE_SYMBOL_MISSING 6
/** The library loaded is another version than the program was built
 *  against (since CUDALOAD_1.3): "Loaded runtime CuDNN library: 8.5.0 but
 *  source was compiled with: 8.6.0", PyTorch's "cuDNN version
 *  incompatibility". */
#define CUDALOAD_MESSAGE_VERSION_MISMATCH 7
/** No NVIDIA driver or no device is visible (since CUDALOAD_1.3): "Found no
 *  NVIDIA driver on your system", "no CUDA-capable device is detected". */
#define CUDALOAD_MESSAGE_DRIVER_MISSING 8
/** The program's installed build has no CUDA support (since CUDALOAD_1.3):
 *  onnxruntime's "Specified provider 'CUDAExecutionProvider' is not in
 *  available provider names", "Torch not compiled with CUDA enabled". */
#define CUDALOAD_MESSAGE_CUDA_UNAVAILABLE 9
/** pip installed an NVIDIA wheel of another version than a package pins
 *  (since CUDALOAD_1.3): "torch 2.5.1+cu124 requires
 *  nvidia-cudnn-cu12==9.1.0.70; ..., but you have nvidia-cudnn-cu12 9.3.0.75
 *  which is incompatible", "... which is not installed". */
#define CUDALOAD_MESSAGE_PACKAGE_CONFLICT 10

/* The facts a message states, for cudaload_error_message_fact() (since
 * CUDALOAD_1.3). Each is a string read from the message itself (or, for
 * library, family and major, from the catalog's reading of a name the
 * message wrote), never from this machine; NULL where the message does not
 * tell. New facts are added at the end. */
/** Why it failed, one word: "not-found" (a name the loader searched for in
 *  every folder it searches), "path-not-found" (the file at the path
 *  written), "file-or-dependency" (the file or a library it imports: Windows
 *  126, a reason not given), "older-library" (a symbol a newer release
 *  defines), "missing-export" (Windows 127: a DLL loaded lacks a function
 *  its importer needs), "undefined-symbol", "older-runtime", "newer-runtime"
 *  (a version mismatch), "driver-too-old", "no-driver", "no-device",
 *  "no-gpu-code", "cublas-init-failed", "cpu-build", "pin-mismatch",
 *  "pin-not-installed". Never NULL for a message read. */
#define CUDALOAD_MESSAGE_FACT_CAUSE 1
/** How the file is written: "name" (looked up by name), "absolute-path"
 *  (that file and no other), "relative-path" (relative to the program's
 *  working folder). NULL for a message about no file. */
#define CUDALOAD_MESSAGE_FACT_FILE_FORM 2
/** The file's own name, its path left out ("libcudnn.so.9"). */
#define CUDALOAD_MESSAGE_FACT_FILE_NAME 3
/** The folder the message's path names: the file's own ("/opt/my app/lib",
 *  "C:\...\torch\lib"), a root worth searching. */
#define CUDALOAD_MESSAGE_FACT_FOLDER 4
/** The catalog library of the file or family ("cudnn_ops", "cublasLt"). */
#define CUDALOAD_MESSAGE_FACT_LIBRARY 5
/** Its family ("cudnn", "cublas", "nvjitlink"). */
#define CUDALOAD_MESSAGE_FACT_FAMILY 6
/** Its ABI major, as the name or stated version tells ("9"). */
#define CUDALOAD_MESSAGE_FACT_MAJOR 7
/** The CUDA major of the program, as the message tells: a file name that
 *  belongs to one CUDA major (libcudart.so.11.0, cublas64_12.dll), else a
 *  statement in the text ("Require cuDNN 9.* and CUDA 12.*", "+cu121",
 *  "Runtime API Version: 11.7", jax_cuda12_plugin, an nvidia-*-cu12 wheel),
 *  the strongest of those that agree ("12"). */
#define CUDALOAD_MESSAGE_FACT_CUDA_MAJOR 8
/** The CUDA version where the text gives its minor too ("12.1" from
 *  "+cu121", "11.7" from "Runtime API Version: 11.7"). */
#define CUDALOAD_MESSAGE_FACT_CUDA_VERSION 9
/** The least version of the library the program needs: "9.1" from
 *  libcudnn_ops.so.9.1.0 in "Unable to load any of {...}", "12.4" from the
 *  symbol __nvJitLinkComplete_12_4, "8.6.0" from "compiled with: 8.6.0",
 *  "9.1.0.70" from a pip pin "==9.1.0.70". */
#define CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION 10
/** The version the message says was loaded or installed ("8.5.0" from
 *  "Loaded runtime CuDNN library: 8.5.0", "9.3.0.75" from pip). */
#define CUDALOAD_MESSAGE_FACT_FOUND_VERSION 11
/** The CUDA version the driver supports, as the text says ("11.4" from
 *  "found version 11040", "11.8" from "Driver API Version: 11.8",
 *  nvidia-smi's "CUDA Version: 12.2"). */
#define CUDALOAD_MESSAGE_FACT_DRIVER_CUDA_VERSION 12
/** The symbol not found ("__nvJitLinkComplete_12_4"). */
#define CUDALOAD_MESSAGE_FACT_SYMBOL 13
/** Its version node ("libnvJitLink.so.12"). */
#define CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION 14
/** The Windows error: "126" (a module not found), "127" (a procedure not
 *  found), from its number or its text in any of Windows' languages. */
#define CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR 15
/** The names a program tried, in its order, comma-separated
 *  ("libcudnn_ops.so.9.1.0,libcudnn_ops.so.9.1,libcudnn_ops.so.9,..."). */
#define CUDALOAD_MESSAGE_FACT_CANDIDATES 16
/** The Python package the failure happened in ("torch", "onnxruntime",
 *  "ctranslate2"): from the message's path, else the innermost traceback
 *  frame before it, else the framework whose words it is. */
#define CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE 17
/** The consumer's version, where the text gives it ("2.5.1+cu124"). */
#define CUDALOAD_MESSAGE_FACT_CONSUMER_VERSION 18
/** The Python environment the paths run through: its site-packages (or
 *  dist-packages) folder ("/home/u/.venv/lib/python3.12/site-packages"). */
#define CUDALOAD_MESSAGE_FACT_ENVIRONMENT 19
/** The pip distribution the message is about ("nvidia-cudnn-cu12"). */
#define CUDALOAD_MESSAGE_FACT_DISTRIBUTION 20
/** The library or program that needed the file, as the message writes it
 *  (the same text as cudaload_error_message_needed_by()). */
#define CUDALOAD_MESSAGE_FACT_NEEDED_BY 21

/** The most of one text cudaload_read_error_text() reads (since
 *  CUDALOAD_1.3): a longer one is read as its first
 *  CUDALOAD_ERROR_TEXT_HEAD bytes (start-up messages) and its last
 *  CUDALOAD_ERROR_TEXT_TAIL bytes (the traceback), each cut at a line end.
 *  `cudaload doctor --error -` keeps the same while reading standard input
 *  of any size. */
#define CUDALOAD_ERROR_TEXT_HEAD 4194304
#define CUDALOAD_ERROR_TEXT_TAIL 29360128

/**
 * Read an error message a program printed (pasted whole: a traceback or a
 * log is fine) and add the requirements it implies to ctx, as
 * cudaload_require() would: "Could not load library libcudnn_ops_infer.so.8"
 * is cudnn=8, onnxruntime's "... with error: libcublasLt.so.12: cannot open
 * shared object file" cublas=12, CUBLAS_STATUS_NOT_INITIALIZED cublas; a
 * CUDA major the text states ("Require cuDNN 9.* and CUDA 12.*") pins the
 * plan's (cuda=12) unless ctx is already pinned. Each message recognised is
 * kept (it replaces what an earlier call kept) and cudaload_doctor()
 * reports it with a diagnosis and a fix. A text in which no form is
 * recognised returns CUDALOAD_E_BAD_SPEC, the last error saying how much
 * was read and listing the forms understood, and changes nothing.
 * docs/error-messages.md lists the forms. Linear in the text.
 */
CUDALOAD_API int cudaload_read_error_message(cudaload_ctx *ctx,
                                             const char *text);
/**
 * As cudaload_read_error_message(), for size bytes as a file or a pipe
 * holds them (since CUDALOAD_1.3): UTF-8, with or without BOM, or UTF-16LE
 * or BE (by its BOM: what PowerShell 5.1's `>` writes; or by its zero
 * bytes); NUL bytes and CR count as line ends, terminal colour codes are
 * left out, lines a console wrapped at its width are joined again, and a
 * text longer than CUDALOAD_ERROR_TEXT_HEAD + CUDALOAD_ERROR_TEXT_TAIL is
 * read as its first and last bytes of those sizes. bytes may be NULL when
 * size is 0. Returns as cudaload_read_error_message().
 */
CUDALOAD_API int cudaload_read_error_text(cudaload_ctx *ctx, const void *bytes,
                                          size_t size);
/** Number of messages the last cudaload_read_error_message() recognised. */
CUDALOAD_API size_t cudaload_error_message_count(const cudaload_ctx *ctx);
/** Message i's CUDALOAD_MESSAGE_* kind; 0 when out of range. */
CUDALOAD_API int cudaload_error_message_kind(const cudaload_ctx *ctx, size_t i);
/** "library-missing", "library-or-dependency", "cublas-not-initialized",
 *  "driver-too-old", "no-kernel-image", "symbol-missing",
 *  "version-mismatch", "driver-missing", "cuda-unavailable",
 *  "package-conflict"; NULL for another value. */
CUDALOAD_API const char *cudaload_error_message_kind_name(int kind);
/** The line of the text message i was read from (trimmed; cut with "..."
 *  past 240 bytes). NULL when out of range. */
CUDALOAD_API const char *cudaload_error_message_quote(const cudaload_ctx *ctx,
                                                      size_t i);
/** The file the message is about ("libcudnn_ops_infer.so.8"; a path as the
 *  message wrote it, spaces and brackets included), NULL for a message
 *  about no file. */
CUDALOAD_API const char *cudaload_error_message_file(const cudaload_ctx *ctx,
                                                     size_t i);
/** The library that needed that file, when the message says
 *  ("libonnxruntime_providers_cuda.so"), else NULL. */
CUDALOAD_API const char *
cudaload_error_message_needed_by(const cudaload_ctx *ctx, size_t i);
/** The requirement the message implies ("cudnn=8"), NULL when none (a file
 *  that is not a CUDA library, the driver, a missing kernel image). */
CUDALOAD_API const char *
cudaload_error_message_requirement(const cudaload_ctx *ctx, size_t i);
/** What the message means, in a sentence or two. NULL when out of range. */
CUDALOAD_API const char *
cudaload_error_message_diagnosis(const cudaload_ctx *ctx, size_t i);
/** Fact `fact` (CUDALOAD_MESSAGE_FACT_*) of message i (since CUDALOAD_1.3):
 *  a string owned by ctx, valid until the next text is read; NULL when the
 *  message does not tell it, i is out of range or fact is unknown. */
CUDALOAD_API const char *cudaload_error_message_fact(const cudaload_ctx *ctx,
                                                     size_t i, int fact);
/** Where fact `fact` of message i was read (since CUDALOAD_1.3): the piece
 *  of the text that says it ("Require cuDNN 9.* and CUDA 12.*", "+cu121",
 *  "found version 11040", the file name for a fact the catalog read from
 *  it); NULL when the fact is. */
CUDALOAD_API const char *
cudaload_error_message_fact_source(const cudaload_ctx *ctx, size_t i, int fact);
/** The name of a CUDALOAD_MESSAGE_FACT_* value, as reports and bindings
 *  write it ("cause", "file-form", "cuda-major", ...), NULL for another
 *  value: a binding lists every fact by asking from 1 until NULL (since
 *  CUDALOAD_1.3). A static string. */
CUDALOAD_API const char *cudaload_error_message_fact_name(int fact);

/* Flags for cudaload_plan() and cudaload_preload(). */
/** Load with RTLD_GLOBAL (Linux). The default, RTLD_LOCAL, keeps two cuDNN
 *  majors from binding each other's unversioned symbols. */
#define CUDALOAD_PRELOAD_GLOBAL 0x1u
/** Preload every sub-library (cuDNN's), even where the main library would
 *  find them itself through its RUNPATH $ORIGIN. */
#define CUDALOAD_PRELOAD_ALL_SUBLIBS 0x2u
/**
 * cudaload_preload() only (since 1.1): best effort. Load every file of the
 * plan that can be, even when a requirement is unsatisfied or a conflict is
 * known before loading, and report the rest (the behaviour before 1.1).
 * Without it a preload is all or nothing: see cudaload_preload().
 * cudaload_plan() accepts and ignores it (it loads nothing either way).
 */
#define CUDALOAD_PRELOAD_PARTIAL 0x4u

/**
 * Resolve the requirements against the inventory (scanning first if the
 * context has not been scanned) into a plan: one file per requirement, with
 * the files that belong to it (cublasLt beside cublas, cuDNN's
 * sub-libraries) from the same folder, in load order (dependencies first,
 * from ELF NEEDED / PE imports). Loads nothing. Returns CUDALOAD_OK, or
 * CUDALOAD_E_UNSATISFIED with a last error that names each requirement
 * that has no file, every root searched, every candidate rejected and why,
 * and a command that fixes it. The plan of the satisfied requirements is
 * kept either way.
 */
CUDALOAD_API int cudaload_plan(cudaload_ctx *ctx, unsigned flags);

/* What happened to a plan entry. */
#define CUDALOAD_STATE_PLANNED 0 /* not loaded yet */
#define CUDALOAD_STATE_LOADED 1  /* loaded by cudaload, by absolute path */
#define CUDALOAD_STATE_ALREADY_LOADED 2 /* the process had this very file */
#define CUDALOAD_STATE_LOADED_ELSEWHERE                                        \
  3                             /* the process had the same                    \
                                   library and major from another              \
                                   file: that one is used */
#define CUDALOAD_STATE_FAILED 4 /* the OS loader refused it */
#define CUDALOAD_STATE_NOT_NEEDED                                              \
  5 /* a sub-library the main library                                          \
       finds by itself (not preloaded) */

/** A CUDALOAD_STATE_* as the reports, the tool and the bindings write it:
 *  "planned", "loaded", "already-loaded", "loaded-elsewhere", "failed",
 *  "not-needed". NULL for any other value. A static string. */
CUDALOAD_API const char *cudaload_plan_state_name(int state);

/** Number of files in the plan. */
CUDALOAD_API size_t cudaload_plan_count(const cudaload_ctx *ctx);
/** Plan entry i's absolute path. NULL when out of range. */
CUDALOAD_API const char *cudaload_plan_path(const cudaload_ctx *ctx, size_t i);
/** Plan entry i's catalog name ("cudnn_ops_infer"). */
CUDALOAD_API const char *cudaload_plan_name(const cudaload_ctx *ctx, size_t i);
/** Plan entry i's ABI major. */
CUDALOAD_API int cudaload_plan_major(const cudaload_ctx *ctx, size_t i);
/** Why entry i is in the plan ("required by cudnn=8", "needed by
 *  libcublas.so.12", "sub-library: libcudnn.so.8 has no RUNPATH $ORIGIN"). */
CUDALOAD_API const char *cudaload_plan_reason(const cudaload_ctx *ctx,
                                              size_t i);
/** Entry i's CUDALOAD_STATE_*. */
CUDALOAD_API int cudaload_plan_state(const cudaload_ctx *ctx, size_t i);
/** The file the process actually uses for entry i once loaded (differs from
 *  cudaload_plan_path() for CUDALOAD_STATE_LOADED_ELSEWHERE); "" before. */
CUDALOAD_API const char *cudaload_plan_loaded_path(const cudaload_ctx *ctx,
                                                   size_t i);

/**
 * The plan as text for a person (CUDALOAD_1.6), as `cudaload env --dry-run`,
 * `cudaload exec --dry-run` and the Python package's str(Report) print it:
 * the requirements; each file in load order with its state, catalog name,
 * ABI major, path and why it is in the plan, and the file the process uses
 * where that is another (CUDALOAD_STATE_LOADED_ELSEWHERE); the conflicts;
 * how many libraries the scan found in how many roots. Values from outside
 * are escaped as cudaload_escape_text() escapes them. format is
 * CUDALOAD_FORMAT_TEXT (the plan as data is the doctor's "plan" member of
 * its JSON and YAML); another is CUDALOAD_E_INVALID_ARGUMENT. *out receives
 * a malloc'ed, NUL-terminated text (free with cudaload_free()).
 */
CUDALOAD_API int cudaload_plan_report(const cudaload_ctx *ctx, int format,
                                      char **out);

/**
 * The CUDA major the last plan takes its CUDA libraries for (since 1.1):
 * cudart, cuBLAS, NVRTC, nvJitLink, cuFFT, cuRAND, cuSPARSE, cuSOLVER,
 * CUPTI, and the CUDA build of cuDNN and NCCL come from one CUDA major. It is
 * the major pinned by a "cuda=12" or "cudart=12" requirement, else that of
 * the libraries in the strongest tier up to the active environment
 * (cudaload_root_tier()), else the newest the installed driver supports (read
 * from its files, never loaded), else the newest found. A requirement that
 * names another major itself (cublas=12 beside CUDA 13), or that only
 * another major satisfies (cudnn=8 has no CUDA 13 build), takes that one; the
 * doctor shows it. 0 before a plan, or when no candidate says its CUDA
 * major (nothing is then held to one).
 */
CUDALOAD_API int cudaload_plan_cuda_major(const cudaload_ctx *ctx);
/** Why the plan took that CUDA major ("pinned by cuda=12", "the CUDA major
 *  of the libraries in the active environment's folders", ...); NULL when
 *  cudaload_plan_cuda_major() is 0. Valid until the next plan. */
CUDALOAD_API const char *cudaload_plan_cuda_reason(const cudaload_ctx *ctx);

/**
 * Warnings of the last plan (since 1.1): what it succeeds without but a
 * program would miss later. A chosen library that opens another by name at
 * its first call (cuDNN 8 opens libcublas.so.12 and libcublasLt.so.12;
 * cuDNN 9 opens cuBLASLt and NVRTC of its CUDA build) gets that library in
 * the plan as an entry of its own (its reason says "opened lazily by ...";
 * preloaded when the opener would not find it itself, and its folder is on
 * cudaload_env_compose()'s value); when no root holds one, the plan records
 * a warning naming the files and the package to install. Cleared by the
 * next plan; 0 before one.
 */
CUDALOAD_API size_t cudaload_plan_warning_count(const cudaload_ctx *ctx);
/** Warning i of the last plan, or NULL when i is out of range. Valid until
 *  the next plan. */
CUDALOAD_API const char *cudaload_plan_warning(const cudaload_ctx *ctx,
                                               size_t i);

/**
 * Plan, then load the plan by absolute path (Linux: dlopen RTLD_NOW |
 * RTLD_LOCAL, or RTLD_GLOBAL with CUDALOAD_PRELOAD_GLOBAL; Windows:
 * LoadLibraryExW with LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
 * LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, error dialogs suppressed, and each
 * folder also prepended to PATH and added with AddDllDirectory so the
 * libraries' own later LoadLibrary calls find their siblings). A library the
 * process already has is not loaded again.
 *
 * All or nothing (since 1.1): the whole plan is made before anything is
 * loaded, and when a requirement is unsatisfied (CUDALOAD_E_UNSATISFIED) or
 * a conflict is already known (CUDALOAD_E_CONFLICT: another major of a
 * required family in the global symbol scope, see cudaload_conflict_*),
 * nothing is loaded, every entry stays CUDALOAD_STATE_PLANNED and the last
 * error starts with "nothing was loaded", then the plan's explanation.
 * Before loading, the plan is also judged by the loader model in this
 * process (the same model as cudaload_explain_files()): when a planned
 * file's needs would not be found, or a file the loader would take lacks
 * symbols its consumer takes from it (an older libnvJitLink.so.12 first on
 * LD_LIBRARY_PATH), nothing is loaded and the status is
 * CUDALOAD_E_LOAD_FAILED; when the file taken is a copy the process already
 * has (loaded by LD_PRELOAD or before the call) that lacks such symbols or
 * is older than the planned one, CUDALOAD_E_CONFLICT, naming that copy and
 * what loaded it. What the model finds that fails only later (a name opened
 * at the first call that nothing provides, two versions or two CUDA majors
 * mixed) is a plan warning (cudaload_plan_warning()), in the same words as
 * cudaload_explain_files() and cudaload_doctor(). What
 * only loading can reveal is not all or nothing: a file the OS loader
 * refuses (CUDALOAD_E_LOAD_FAILED; loads cannot be undone, so the files
 * before it stay loaded) and a conflict that appears only once the plan is
 * loaded (CUDALOAD_E_CONFLICT after loading, e.g. a planned library that
 * pulls another major into the global scope). With
 * CUDALOAD_PRELOAD_PARTIAL, every file that can be is loaded regardless.
 *
 * Returns CUDALOAD_OK only when every requirement is satisfied and loaded;
 * otherwise CUDALOAD_E_UNSATISFIED, CUDALOAD_E_LOAD_FAILED or
 * CUDALOAD_E_CONFLICT, with a last error that lists file by file what was
 * loaded and what was not. A file that this or an
 * earlier context already loaded is CUDALOAD_STATE_LOADED; one the process
 * had from elsewhere is CUDALOAD_STATE_ALREADY_LOADED. Loaded libraries stay
 * loaded for the life of the process; calling again with the same plan does
 * nothing. Thread-safe: concurrent calls load each file once.
 */
CUDALOAD_API int cudaload_preload(cudaload_ctx *ctx, unsigned flags);

/* ------------------------------------------------------------------------ */
/* Search-path environment                                                  */
/* ------------------------------------------------------------------------ */

/** The name of the host's library search-path variable: "LD_LIBRARY_PATH"
 *  on Linux, "PATH" on Windows. */
CUDALOAD_API const char *cudaload_env_name(void);

/**
 * The search-path value for the plan (planning first if needed): the
 * plan's folders, in plan order, prepended to `current` (the variable's
 * present value, or NULL), without duplicates and without empty, "." or
 * relative entries. Idempotent: composing onto its own result changes
 * nothing. Owned by ctx, valid until the next call. NULL on failure, with
 * the last error set: a planned folder whose name holds the variable's
 * separator (':' on Linux, ';' on Windows) is refused, naming it, since
 * the loader would split it into relative entries (CUDALOAD_E_INSECURE
 * from cudaload_env_apply); preloading by absolute path is unaffected.
 */
CUDALOAD_API const char *cudaload_env_compose(cudaload_ctx *ctx,
                                              const char *current);
/** As cudaload_env_compose(), with its status (CUDALOAD_1.1): CUDALOAD_OK
 *  and *value (owned by ctx), or CUDALOAD_E_INSECURE for a planned folder
 *  whose name holds the separator, CUDALOAD_E_NO_MEMORY, or the plan's own
 *  failure, with *value NULL and the last error set. An unsatisfied
 *  requirement is no failure here: the value holds the folders planned. */
CUDALOAD_API int cudaload_env_value(cudaload_ctx *ctx, const char *current,
                                    const char **value);

/**
 * Set the composed value in this process's environment. On Linux that
 * reaches child processes only (the loader read LD_LIBRARY_PATH at start);
 * on Windows it changes the process environment block, which later
 * LoadLibrary calls search, and the C runtime's copy.
 */
CUDALOAD_API int cudaload_env_apply(cudaload_ctx *ctx);

/**
 * What a process started with the composed value would get (CUDALOAD_1.1),
 * judged by the loader model in a model of that child (the same model and
 * sentences as cudaload_explain_files()): its search-path variable the
 * composed value, what LD_PRELOAD and /etc/ld.so.preload put first, each
 * required library opened by name as a program opens it, and every other
 * copy of a planned family (a framework's own cuDNN, reached through its
 * RPATH), whose own search the plan's folder may now shadow. One sentence
 * each, with its fix ("...; fix: ..."). Plans first if needed. *count
 * receives the number of warnings. CUDALOAD_OK, or an error status with the
 * last error set.
 */
CUDALOAD_API int cudaload_env_warnings(cudaload_ctx *ctx, size_t *count);
/** Warning i of the last cudaload_env_warnings(); NULL when out of range.
 *  Owned by ctx, valid until the next cudaload_env_warnings(). */
CUDALOAD_API const char *cudaload_env_warning(const cudaload_ctx *ctx,
                                              size_t i);
/** 1 when warning i of the last cudaload_env_warnings() makes a load of the
 *  started program fail (a needed file not found, a file taken that lacks
 *  symbols its consumer takes from it), 0 otherwise or out of range
 *  (CUDALOAD_1.2). `cudaload exec` stops on such a warning unless --force. */
CUDALOAD_API int cudaload_env_warning_fatal(const cudaload_ctx *ctx, size_t i);

/* Flags for cudaload_env_check(). */
/* Leave out of the started program's LD_PRELOAD each entry that puts first
 * a copy the loader model says makes a load fail (an older libnccl.so.2
 * lacking ncclCommRegister), with a warning naming it, instead of a fatal
 * warning (`cudaload exec --drop-stale-preload`). */
#define CUDALOAD_ENV_DROP_STALE_PRELOAD 0x1u

/**
 * As cudaload_env_warnings(), with flags (CUDALOAD_ENV_*; CUDALOAD_1.5),
 * and deciding what the started program needs beyond the search-path
 * variable, read with cudaload_env_change(): on Linux, LD_PRELOAD holding
 * the planned files a file of the program would otherwise take from
 * another copy (a DT_RPATH, which comes before LD_LIBRARY_PATH, reaching
 * the program's own older copy: torch 2.5.1's libtorch_cuda.so reaches
 * ../../nvidia/nccl/lib), in plan order, before what this environment's
 * LD_PRELOAD keeps; and CUDA_PATH, CUDA_HOME or CUDNN_PATH unset where
 * they name a folder of another CUDA major than the plan's (CuPy and Numba
 * search them themselves). Each change is also said in a warning (not
 * fatal), and the warnings are judged in a model of the child with them.
 * CUDALOAD_OK, CUDALOAD_E_INVALID_ARGUMENT for an unknown flag, or another
 * error status with the last error set.
 */
CUDALOAD_API int cudaload_env_check(cudaload_ctx *ctx, unsigned flags,
                                    size_t *count);
/** How many variables the last cudaload_env_check() changes for the
 *  started program (0 after cudaload_env_warnings(): none decided).
 *  (CUDALOAD_1.5) */
CUDALOAD_API size_t cudaload_env_change_count(const cudaload_ctx *ctx);
/** Change i: the variable's name, and in *value (may be NULL) its value
 *  for the started program, NULL to unset it; NULL past the last. Owned by
 *  ctx, valid until the next cudaload_env_check() or cudaload_env_warnings().
 *  `cudaload env` prints them. (CUDALOAD_1.5) */
CUDALOAD_API const char *cudaload_env_change(const cudaload_ctx *ctx, size_t i,
                                             const char **value);
/** Make the changes of the last cudaload_env_check() in this process's
 *  environment, for the programs it starts next (`cudaload exec` calls it
 *  after cudaload_env_apply(), just before it runs its command). On Linux
 *  the loader of this process read LD_PRELOAD at its start: nothing of
 *  this process changes. CUDALOAD_OK, or an error status with the last
 *  error set. (CUDALOAD_1.5) */
CUDALOAD_API int cudaload_env_apply_changes(cudaload_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* Collisions and isolation                                                 */
/* ------------------------------------------------------------------------ */

/**
 * After cudaload_plan()/cudaload_preload(): libraries of another major of a
 * required family that are visible in the process's global symbol scope
 * (opened RTLD_GLOBAL by someone, or linked by the executable). Such a
 * library's unversioned symbols (cuDNN 8 and 9 share names) would be bound
 * by a consumer of the required major. Linux only; 0 elsewhere.
 */
CUDALOAD_API size_t cudaload_conflict_count(const cudaload_ctx *ctx);
/** Conflict i's file path. */
CUDALOAD_API const char *cudaload_conflict_path(const cudaload_ctx *ctx,
                                                size_t i);
/** Conflict i as one sentence, with the fix. */
CUDALOAD_API const char *cudaload_conflict_text(const cudaload_ctx *ctx,
                                                size_t i);

/**
 * Open a library so that it binds to its own dependencies before the global
 * scope (Linux: dlopen RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND; Windows: as
 * cudaload_preload loads). For a consumer that must use its own cuDNN major
 * while another major is in the global scope. Returns the handle, or NULL
 * with the last error set. See README "DEEPBIND caveats".
 */
CUDALOAD_API void *cudaload_dlopen_isolated(const char *path);

/**
 * The fix a conflict names, in one call (CUDALOAD_1.2): load this plan so
 * that a consumer opened isolated finds it, then open that consumer
 * isolated. Plans if needed; when a requirement is unsatisfied nothing is
 * loaded and NULL is returned (the plan's last error). Otherwise loads the
 * plan by absolute path with RTLD_LOCAL, as cudaload_preload() does, also
 * when another major of a required family is in the global symbol scope
 * (that conflict is what isolation is for), then opens `path` (absolute) as
 * cudaload_dlopen_isolated() does (Linux: RTLD_DEEPBIND, so it binds the
 * plan's files before the global scope). flags: 0 or
 * CUDALOAD_PRELOAD_ALL_SUBLIBS; CUDALOAD_PRELOAD_GLOBAL is refused
 * (CUDALOAD_E_INVALID_ARGUMENT: it would put the plan in the global scope
 * the consumer is to be isolated from). Returns CUDALOAD_OK with the
 * consumer's handle in *handle, or CUDALOAD_E_UNSATISFIED (nothing loaded),
 * CUDALOAD_E_LOAD_FAILED (a plan file or the consumer the OS loader
 * refused: the files loaded before it stay loaded) or
 * CUDALOAD_E_INVALID_ARGUMENT, with *handle NULL and the last error set.
 * The conflicts stay listed by cudaload_conflict_*().
 */
CUDALOAD_API int cudaload_open_isolated(cudaload_ctx *ctx, const char *path,
                                        unsigned flags, void **handle);

/**
 * The file that provides `symbol` to the loaded library `handle` (as the
 * dynamic loader would resolve it for that library: the global scope first,
 * unless the library was opened with DEEPBIND, then its own dependencies).
 * Returns a path valid until the next call on this thread, or NULL.
 */
CUDALOAD_API const char *cudaload_symbol_provider(void *handle,
                                                  const char *symbol);

/* ------------------------------------------------------------------------ */
/* GPU probe                                                                */
/* ------------------------------------------------------------------------ */

typedef struct cudaload_probe cudaload_probe;

/* Verdicts. */
#define CUDALOAD_GPU_OK 0
#define CUDALOAD_CPU_FALLBACK 1

/* Reasons for CUDALOAD_CPU_FALLBACK (pinned values). */
#define CUDALOAD_REASON_NONE 0            /* GPU_OK */
#define CUDALOAD_REASON_NO_DRIVER 1       /* no libcuda.so.1 / nvcuda.dll */
#define CUDALOAD_REASON_DRIVER_BROKEN 2   /* driver lacks a needed symbol */
#define CUDALOAD_REASON_INIT_FAILED 3     /* cuInit failed (other codes) */
#define CUDALOAD_REASON_NO_DEVICE 4       /* cuInit 100 or 0 devices */
#define CUDALOAD_REASON_DRIVER_TOO_OLD 5  /* cuInit 35, or runtime > driver */
#define CUDALOAD_REASON_DEVICE_FAILED 6   /* context/alloc/copy failed */
#define CUDALOAD_REASON_MISSING_LIBRARY 7 /* a required library is missing */
#define CUDALOAD_REASON_LIBRARY_FAILED 8  /* cublasCreate/cudnnCreate failed */
#define CUDALOAD_REASON_WRONG_RESULT 9    /* the GEMM result was wrong */
#define CUDALOAD_REASON_TIMEOUT 10        /* out-of-process probe timed out */
#define CUDALOAD_REASON_PROBE_CRASHED 11  /* out-of-process probe died */

/* Stage statuses. */
#define CUDALOAD_STAGE_OK 0
#define CUDALOAD_STAGE_FAILED 1
#define CUDALOAD_STAGE_SKIPPED                                                 \
  2 /* not required, or an earlier stage failed                                \
     */
#define CUDALOAD_STAGE_WARNING                                                 \
  3 /* passed with a caveat (older driver minor)                               \
     */

/** A verdict as the reports write it: "GPU_OK", "CPU_FALLBACK"; NULL for
 *  any other value. A static string, as are the names below. */
CUDALOAD_API const char *cudaload_probe_verdict_name(int verdict);
/** A CUDALOAD_REASON_* as the reports write it: "none", "no_driver",
 *  "driver_broken", "init_failed", "no_device", "driver_too_old",
 *  "device_failed", "missing_library", "library_failed", "wrong_result",
 *  "timeout", "probe_crashed"; NULL for any other value. */
CUDALOAD_API const char *cudaload_probe_reason_name(int reason);
/** A CUDALOAD_STAGE_* as the reports write it: "ok", "failed", "skipped",
 *  "warning"; NULL for any other value. */
CUDALOAD_API const char *cudaload_probe_stage_status_name(int status);

/* Flags for cudaload_probe_run(). */
/** Run the probe in a child process, killed after the timeout, so a hung
 *  driver cannot hang the caller. POSIX forks the calling process. Windows
 *  has no fork: the child is the cudaload tool, cudaload.exe, found in the
 *  folder of the module that holds the library (cudaload.dll, or the
 *  program that links the static library), or the program the environment
 *  variable CUDALOAD_PROBE_HELPER names; ship cudaload.exe beside
 *  cudaload.dll to use this flag there (the Python wheel does). Without it
 *  cudaload_probe_run() fails with CUDALOAD_E_NOT_FOUND naming where it
 *  looked. */
#define CUDALOAD_PROBE_OUT_OF_PROCESS 0x1u

/**
 * Choose the driver library the probe opens (an absolute path; NULL goes
 * back to the default: CUDALOAD_DRIVER from the environment if set, else
 * libcuda.so.1 / nvcuda.dll by name, never the link-time stub in
 * lib64/stubs). Returns CUDALOAD_E_INVALID_ARGUMENT for "" or a relative
 * path, as cudaload_add_root() does for roots.
 */
CUDALOAD_API int cudaload_set_driver(cudaload_ctx *ctx, const char *path);

/**
 * Answer "may I use the GPU?" in stages, each with a status, a message and
 * its elapsed time: 1 driver library, 2 cuInit and cuDriverGetVersion,
 * 3 devices (name, compute capability, memory, UUID), 4 primary context, a
 * small allocation and a copy round trip, 5 the required cudart's
 * cudaRuntimeGetVersion against the driver, 6 cuBLAS: cublasCreate and a
 * tiny SGEMM checked against the CPU, 7 cuDNN: for each required major, its
 * version and cudnnCreate/cudnnDestroy. Stages 5-7 use the files of the
 * ctx's plan (preloading them in-process; the requirements decide which
 * run). The probe itself succeeding is CUDALOAD_OK, whatever the verdict;
 * *out receives the result (free with cudaload_probe_free()). timeout_s
 * applies to CUDALOAD_PROBE_OUT_OF_PROCESS only (0: 30 seconds).
 */
CUDALOAD_API int cudaload_probe_run(cudaload_ctx *ctx, unsigned flags,
                                    double timeout_s, cudaload_probe **out);
/** Free a probe result. Accepts NULL. */
CUDALOAD_API void cudaload_probe_free(cudaload_probe *probe);
/** CUDALOAD_GPU_OK or CUDALOAD_CPU_FALLBACK. */
CUDALOAD_API int cudaload_probe_verdict(const cudaload_probe *probe);
/** CUDALOAD_REASON_*. */
CUDALOAD_API int cudaload_probe_reason(const cudaload_probe *probe);
/** The verdict as one sentence: "GPU usable: ..." or "fall back to CPU,
 *  because ...", with the fix where there is one. */
CUDALOAD_API const char *cudaload_probe_summary(const cudaload_probe *probe);
/** Number of stages reported (always 7). */
CUDALOAD_API size_t cudaload_probe_stage_count(const cudaload_probe *probe);
/** Stage i's name: "driver", "init", "devices", "context", "runtime",
 *  "cublas", "cudnn". */
CUDALOAD_API const char *cudaload_probe_stage_name(const cudaload_probe *probe,
                                                   size_t i);
/** Stage i's CUDALOAD_STAGE_*. */
CUDALOAD_API int cudaload_probe_stage_status(const cudaload_probe *probe,
                                             size_t i);
/** Stage i's message. */
CUDALOAD_API const char *
cudaload_probe_stage_message(const cudaload_probe *probe, size_t i);
/** Stage i's elapsed time in milliseconds. */
CUDALOAD_API double cudaload_probe_stage_ms(const cudaload_probe *probe,
                                            size_t i);
/** The driver library's path ("" when none was found). */
CUDALOAD_API const char *
cudaload_probe_driver_path(const cudaload_probe *probe);
/** cuDriverGetVersion (12040 = 12.4), 0 when unknown. */
CUDALOAD_API int cudaload_probe_driver_version(const cudaload_probe *probe);
/** The required cudart's cudaRuntimeGetVersion, 0 when not probed. */
CUDALOAD_API int cudaload_probe_runtime_version(const cudaload_probe *probe);
/** Number of CUDA devices seen. */
CUDALOAD_API size_t cudaload_probe_device_count(const cudaload_probe *probe);
/** Device i's name. */
CUDALOAD_API const char *cudaload_probe_device_name(const cudaload_probe *probe,
                                                    size_t i);
/** Device i's compute capability as major*10+minor (90 for 9.0). */
CUDALOAD_API int cudaload_probe_device_capability(const cudaload_probe *probe,
                                                  size_t i);
/** Device i's total memory in MiB. */
CUDALOAD_API unsigned long long
cudaload_probe_device_memory_mib(const cudaload_probe *probe, size_t i);
/** Device i's UUID ("GPU-xxxxxxxx-xxxx-..."). */
CUDALOAD_API const char *cudaload_probe_device_uuid(const cudaload_probe *probe,
                                                    size_t i);

/*
 * What the driver says of how a device runs (CUDALOAD_1.1): cheap
 * attributes, read without running a kernel, that explain a driver reset or
 * a GPU another process cannot use. docs/probe.md and docs/doctor.md say
 * which problems they point to.
 */
/* Driver models (cudaload_probe_device_driver_model()): unknown (the
 * driver did not say), not applicable (Linux has neither model), Windows'
 * display driver model (WDDM) and its compute-only one (TCC). */
#define CUDALOAD_DRIVER_MODEL_UNKNOWN 0
#define CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE 1
#define CUDALOAD_DRIVER_MODEL_WDDM 2
#define CUDALOAD_DRIVER_MODEL_TCC 3
/* Compute modes: the driver's CUcomputemode values, -1 when unknown. */
#define CUDALOAD_COMPUTE_MODE_UNKNOWN (-1)
#define CUDALOAD_COMPUTE_MODE_DEFAULT 0           /* any number of processes */
#define CUDALOAD_COMPUTE_MODE_EXCLUSIVE_THREAD 1  /* drivers before CUDA 11 */
#define CUDALOAD_COMPUTE_MODE_PROHIBITED 2        /* no process may use it */
#define CUDALOAD_COMPUTE_MODE_EXCLUSIVE_PROCESS 3 /* one process at a time */

/** Device i's driver model, CUDALOAD_DRIVER_MODEL_*: on Windows from
 *  CU_DEVICE_ATTRIBUTE_TCC_DRIVER (TCC or WDDM); on Linux always
 *  NOT_APPLICABLE. */
CUDALOAD_API int cudaload_probe_device_driver_model(const cudaload_probe *probe,
                                                    size_t i);
/** A CUDALOAD_DRIVER_MODEL_* as the reports write it: "unknown",
 *  "not_applicable", "WDDM", "TCC"; NULL for any other value. */
CUDALOAD_API const char *cudaload_probe_driver_model_name(int model);
/** 1 when a display watchdog limits how long device i's kernels may run
 *  (CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: a display is attached; on
 *  Windows under WDDM, the TDR), 0 when not, -1 when unknown. */
CUDALOAD_API int
cudaload_probe_device_kernel_timeout(const cudaload_probe *probe, size_t i);
/** Device i's CUDALOAD_COMPUTE_MODE_* (CU_DEVICE_ATTRIBUTE_COMPUTE_MODE). */
CUDALOAD_API int cudaload_probe_device_compute_mode(const cudaload_probe *probe,
                                                    size_t i);
/** A CUDALOAD_COMPUTE_MODE_* as the reports write it: "default",
 *  "exclusive_thread", "prohibited", "exclusive_process"; NULL for any other
 *  value (unknown included). */
CUDALOAD_API const char *cudaload_probe_compute_mode_name(int mode);
/** 1 when device i is integrated with the host (shares its memory:
 *  CU_DEVICE_ATTRIBUTE_INTEGRATED), 0 when discrete, -1 when unknown. */
CUDALOAD_API int cudaload_probe_device_integrated(const cudaload_probe *probe,
                                                  size_t i);
/** Device i's free memory in MiB when the probe ran (cuMemGetInfo_v2 in the
 *  probe's context, after its own allocation was freed), -1 when not
 *  measured: only device 0, the one the probe uses, is measured, and only
 *  when its context stage got a context. */
CUDALOAD_API long long
cudaload_probe_device_free_mib(const cudaload_probe *probe, size_t i);
/**
 * The probe's result as one document, CUDALOAD_FORMAT_JSON or _YAML:
 * "schema_version", "verdict", "reason", "summary",
 * "driver", "runtime_version", "devices", "stages", as docs/probe.md
 * documents them; the doctor's "probe" field holds the same fields.
 * CUDALOAD_FORMAT_TEXT (since CUDALOAD_1.6; refused before): the verdict and
 * cudaload_probe_summary(), the stages as a table, the driver and each
 * device, as `cudaload probe` and the Python package's str(Probe) print it.
 * *out receives a malloc'ed, NUL-terminated text (free with
 * cudaload_free()). CUDALOAD_E_INVALID_ARGUMENT for another format.
 */
CUDALOAD_API int cudaload_probe_report(const cudaload_probe *probe, int format,
                                       char **out);

/**
 * The helper's side of an out-of-process probe (CUDALOAD_1.1). On Windows
 * CUDALOAD_PROBE_OUT_OF_PROCESS starts a helper program (cudaload.exe
 * beside the DLL, or CUDALOAD_PROBE_HELPER) with the arguments `probe
 * --child [--no-defaults] [--root DIR]... [--environment DIR]...
 * [--require SPEC]... [--driver PATH] --report-handle H`; a program that
 * is its own helper builds ctx from those arguments and calls this with
 * H. It points stdout at stderr (what a driver prints must not mix with
 * the report), runs the probe of ctx in this process and writes each stage
 * as it ends to the channel H names (Windows: an inherited pipe handle's
 * value; POSIX: a file descriptor number), in the line format the parent
 * reads. CUDALOAD_OK, or CUDALOAD_E_INVALID_ARGUMENT when H names no open
 * channel, or the status of a report that could not be made or written.
 */
CUDALOAD_API int cudaload_probe_serve(cudaload_ctx *ctx, const char *channel);

/* ------------------------------------------------------------------------ */
/* Doctor and manifest                                                      */
/* ------------------------------------------------------------------------ */

/* Report formats. */
#define CUDALOAD_FORMAT_TEXT 0
#define CUDALOAD_FORMAT_JSON 1
#define CUDALOAD_FORMAT_YAML 2 /* every build; libyaml only reads manifests */
#define CUDALOAD_FORMAT_DOT 3  /* Graphviz; cudaload_explain_report() only */

/** 1 when this build can write reports in format (CUDALOAD_FORMAT_*):
 *  text, JSON, YAML and DOT, in every build (up to 0.2.0, YAML needed
 *  libyaml); else 0.
 *  (CUDALOAD_1.1) */
CUDALOAD_API int cudaload_format_supported(int format);

/* Flags for cudaload_doctor(). */
#define CUDALOAD_DOCTOR_PROBE 0x1u /* run the GPU probe (in-process) */
#define CUDALOAD_DOCTOR_COLOR 0x2u /* ANSI colour in the text format */
#define CUDALOAD_DOCTOR_PROBE_OUT_OF_PROCESS 0x4u /* probe in a child */
/* The text's short form, the answer first on one screen: a verdict line, a
 * line per requirement, the problems and their fixes (the tool's default;
 * the documented sections are the long form). (CUDALOAD_1.3) */
#define CUDALOAD_DOCTOR_SHORT 0x8u
/* Marks a person reads at a glance (U+2713, U+2717) for ok and FAIL in the
 * short form: for a terminal that shows UTF-8. (CUDALOAD_1.3) */
#define CUDALOAD_DOCTOR_MARKS 0x10u

/**
 * The whole diagnosis as one report: platform and driver; the libraries
 * found (family, major, version, version source, path); the plan for the
 * requirements; the CUDA libraries already loaded in this process;
 * conflicts; the probe (with CUDALOAD_DOCTOR_PROBE); and for every problem
 * one line that fixes it. Text is sections, aligned; JSON and YAML follow
 * one documented schema with "schema_version". *out receives a malloc'ed,
 * NUL-terminated text (free with cudaload_free()). Returns CUDALOAD_OK when
 * the report was produced, whatever it says.
 */
CUDALOAD_API int cudaload_doctor(cudaload_ctx *ctx, int format, unsigned flags,
                                 char **out);
/** The number of entries under "Problems and fixes" in the last report
 *  cudaload_doctor() made for ctx; 0 before one. (CUDALOAD_1.1) */
CUDALOAD_API size_t cudaload_doctor_problem_count(const cudaload_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* Problems as records (version node CUDALOAD_1.3)                          */
/* ------------------------------------------------------------------------ */
/*
 * Every problem the last cudaload_doctor() call reported, as data: its kind,
 * its facts (each with where it came from) and its fix as steps, so that a
 * program (an installer, a CI check) tells one problem from another and
 * runs a fix without reading English. Problem i is the i-th under
 * "Problems and fixes" (0 <= i < cudaload_doctor_problem_count()); the
 * strings belong to ctx and stay valid until its next cudaload_doctor()
 * call or cudaload_destroy(). docs/doctor.md lists the kinds and facts.
 */

/* Problem kinds: pinned values, never reused. */
#define CUDALOAD_PROBLEM_UNSATISFIED 1     /* no usable library found */
#define CUDALOAD_PROBLEM_NOT_FOUND 2       /* a needed name is not found */
#define CUDALOAD_PROBLEM_LAZY_NOT_FOUND 3  /* a name opened later, not found */
#define CUDALOAD_PROBLEM_SYMBOLS_MISSING 4 /* the file taken lacks symbols */
#define CUDALOAD_PROBLEM_WRONG_LIBRARY 5   /* a name takes another library */
#define CUDALOAD_PROBLEM_SHADOWED 6        /* a copy elsewhere beats its own */
#define CUDALOAD_PROBLEM_BINDS_ELSEWHERE                                       \
  7                                        /* references bind to another file  \
                                            */
#define CUDALOAD_PROBLEM_TWO_VERSIONS 8    /* one library in two versions */
#define CUDALOAD_PROBLEM_CUDA_MAJORS 9     /* two CUDA majors in one process */
#define CUDALOAD_PROBLEM_PRELOADED_COPY 10 /* LD_PRELOAD put a copy first */
#define CUDALOAD_PROBLEM_LOADED_COPY 11    /* this process has a copy loaded */
#define CUDALOAD_PROBLEM_CONFLICT 12       /* the plan collides in the scope */
#define CUDALOAD_PROBLEM_LOAD_FAILED 13    /* a planned file failed to load */
#define CUDALOAD_PROBLEM_ROOT_REFUSED 14   /* a folder others may write */
#define CUDALOAD_PROBLEM_ROOT_UNUSABLE 15  /* a root not found, not a folder */
#define CUDALOAD_PROBLEM_ORPHAN 16         /* a sub-library without its main */
#define CUDALOAD_PROBLEM_LAZY_UNPROVIDED                                       \
  17                                       /* a planned file opens a library   \
                                              no root provides */
#define CUDALOAD_PROBLEM_DRIVER_ABSENT 18  /* no NVIDIA driver */
#define CUDALOAD_PROBLEM_DRIVER_TOO_OLD 19 /* driver older than the CUDA */
#define CUDALOAD_PROBLEM_PROBE_FAILED 20   /* the GPU probe fell back */
#define CUDALOAD_PROBLEM_ZLIB_MISSING 21   /* cuDNN 9 needs libz.so.1 */
#define CUDALOAD_PROBLEM_DEVICE 22         /* a device cannot be used */
#define CUDALOAD_PROBLEM_VARIABLE 23       /* a CUDA variable set badly */
#define CUDALOAD_PROBLEM_MESSAGE 24        /* what an error message shows */
#define CUDALOAD_PROBLEM_UNREADABLE 25     /* a file is not a library */
#define CUDALOAD_PROBLEM_STOPPED 26     /* a hostile file stopped the model */
#define CUDALOAD_PROBLEM_IN_PROCESS 27  /* found only in a running process */
#define CUDALOAD_PROBLEM_EMPTY_ENTRY 28 /* a search list holds "." (note) */
#define CUDALOAD_PROBLEM_PLUGIN_UNUSABLE 29 /* a plugin cannot load (note) */
/* What an error message read with --error shows on this machine: */
#define CUDALOAD_PROBLEM_PATH_MISSING 30    /* a file loaded by its path */
#define CUDALOAD_PROBLEM_OLDER_RELEASE 31   /* loaded older than built with */
#define CUDALOAD_PROBLEM_NEWER_RELEASE 32   /* loaded newer than supported */
#define CUDALOAD_PROBLEM_CPU_BUILD 33       /* the program has no CUDA build */
#define CUDALOAD_PROBLEM_PIN 34             /* a pip pin that does not hold */
#define CUDALOAD_PROBLEM_DRIVER_HIDDEN 35   /* the driver is here, not seen */
#define CUDALOAD_PROBLEM_UNKNOWN_LIBRARY 36 /* not a CUDA library, failed */
#define CUDALOAD_PROBLEM_NO_GPU_CODE 37     /* no GPU code for this GPU */
#define CUDALOAD_PROBLEM_CUBLAS_INIT 38     /* cuBLAS could not start */
/* What --for reads in the program itself: */
#define CUDALOAD_PROBLEM_SAME_FILES                                            \
  39                                /* two distributions, one set of files     \
                                     */
#define CUDALOAD_PROBLEM_IF_USED 40 /* a need of a feature only (note) */
#define CUDALOAD_PROBLEM_PIN_UNREAD                                            \
  41 /* a Requires-Dist pin not understood                                     \
      */
/* What the plan warns of: */
#define CUDALOAD_PROBLEM_VERSION_UNTRUSTED                                     \
  42 /* a version source others can write to was passed over */
#define CUDALOAD_PROBLEM_NEEDED_UNPROVIDED                                     \
  43 /* a planned file needs a library no root provides */
#define CUDALOAD_PROBLEM_CASE_TWINS 44 /* two names differ only in case */
#define CUDALOAD_PROBLEM_SHARED_NAME                                           \
  45                                  /* a program's own copy has the name     \
                                         of a planned file */
#define CUDALOAD_PROBLEM_UNEXPOSED 46 /* a folder could not go on PATH */

/** The kind's name in reports ("unsatisfied", "symbols-missing", ...);
 *  NULL for a value that is no kind. (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_problem_kind_name(int kind);

/* Facts a problem may carry (cudaload_doctor_problem_fact): pinned values. */
#define CUDALOAD_FACT_REQUIREMENT 1   /* "cudnn=8" */
#define CUDALOAD_FACT_FAMILY 2        /* "cudnn" */
#define CUDALOAD_FACT_LIBRARY 3       /* the catalog name: "cudnn_ops_infer" */
#define CUDALOAD_FACT_MAJOR 4         /* the library's ABI major: "8" */
#define CUDALOAD_FACT_CUDA_MAJOR 5    /* the CUDA major that decides: "12" */
#define CUDALOAD_FACT_CONSUMER 6      /* the file whose need it is */
#define CUDALOAD_FACT_NAME 7          /* the name asked for: "libcudnn.so.8" */
#define CUDALOAD_FACT_TAKEN 8         /* the file the loader takes */
#define CUDALOAD_FACT_BETTER 9        /* a file here that would do */
#define CUDALOAD_FACT_PATH 10         /* the file or folder it is about */
#define CUDALOAD_FACT_VERSION 11      /* the version found */
#define CUDALOAD_FACT_WANTED 12       /* the version wanted */
#define CUDALOAD_FACT_SYMBOL 13       /* a symbol missing: "cudnnCreate" */
#define CUDALOAD_FACT_VERSION_NODE 14 /* its version node */
#define CUDALOAD_FACT_RULE 15         /* how the loader found the file taken */
#define CUDALOAD_FACT_REASON 16       /* why, in a word or a phrase */
#define CUDALOAD_FACT_DRIVER 17       /* the driver's version */
#define CUDALOAD_FACT_QUOTE 18        /* the line of the error message */
#define CUDALOAD_FACT_PACKAGE 19      /* the distribution a fix installs */
#define CUDALOAD_FACT_VARIABLE 20     /* an environment variable */
#define CUDALOAD_FACT_STAGE 21        /* the probe's stage that failed */
#define CUDALOAD_FACT_CONDITION                                                \
  22                            /* "as-it-is": true without cudaload;          \
                                   none: true with the plan loaded */
#define CUDALOAD_FACT_DEVICE 23 /* a device's index */
#define CUDALOAD_FACT_COUNT                                                    \
  24                           /* how many: symbols undefined, references      \
                                  bound elsewhere, MiB free */
#define CUDALOAD_FACT_TOTAL 25 /* out of how many */
#define CUDALOAD_FACT_SEARCHED                                                 \
  26 /* where the loader looked: "rpath (/a), ld-so-cache" */
#define CUDALOAD_FACT_OTHER_PATH 27       /* the other file of a pair */
#define CUDALOAD_FACT_OTHER_VERSION 28    /* the other file's version */
#define CUDALOAD_FACT_OTHER_CUDA_MAJOR 29 /* the other file's CUDA major */
#define CUDALOAD_FACT_AMONG                                                    \
  30 /* which files a mix is among: "program", "process", "maps", ... */
#define CUDALOAD_FACT_LOADED_BY                                                \
  31 /* who loaded a copy: "LD_PRELOAD", a file, "program" */
#define CUDALOAD_FACT_CAUSES                                                   \
  32 /* what a loaded copy causes: a kind's name ("symbols-missing") */
#define CUDALOAD_FACT_PLATFORM                                                 \
  33 /* whose loader rules apply: "linux", "windows" */
#define CUDALOAD_FACT_VALUE                                                    \
  34 /* a value: a variable's, a search list's entry, a compute mode, where    \
        a version was read */
#define CUDALOAD_FACT_OTHER_PACKAGE 35 /* the other distribution of a pair */

/** The fact's name in reports ("requirement", "cuda_major", ...); NULL for
 *  a value that is no fact. (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_fact_name(int fact);

/* Where a fact came from. */
#define CUDALOAD_FROM_MACHINE 1 /* the files on this machine, this process */
#define CUDALOAD_FROM_PROGRAM 2 /* the program (--for): its files, its pins */
#define CUDALOAD_FROM_MESSAGE 3 /* the error message read (--error) */
#define CUDALOAD_FROM_REQUEST 4 /* what the caller asked (--require, roots) */

/** The source's name ("machine", "program", "message", "request"); NULL
 *  for a value that is none. (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_fact_source_name(int source);

/* What a fix step does (cudaload_doctor_fix_step_action). */
#define CUDALOAD_FIX_NOTE 1         /* words only: nothing to run */
#define CUDALOAD_FIX_INSTALL 2      /* installs packages (pip) */
#define CUDALOAD_FIX_SET_VARIABLE 3 /* sets variables in the user's shell */
#define CUDALOAD_FIX_RUN_PROGRAM                                               \
  4                            /* starts the user's program through            \
                                  cudaload (exec): how to run it */
#define CUDALOAD_FIX_COMMAND 5 /* any other command (chmod, inspect) */
/* Installs packages only where the note before it holds ("for a CUDA 12
 * program:"): one of several for the user to choose; never run unasked. */
#define CUDALOAD_FIX_CHOICE 6

/** The action's name in reports ("note", "install", "set-variable",
 *  "run-program", "command", "choice"); NULL for a value that is no action.
 *  (CUDALOAD_1.6) */
CUDALOAD_API const char *cudaload_fix_action_name(int action);

/** Problem i's CUDALOAD_PROBLEM_* kind; 0 out of range. (CUDALOAD_1.3) */
CUDALOAD_API int cudaload_doctor_problem_kind(const cudaload_ctx *ctx,
                                              size_t i);
/** Problem i's sentence, as the text report prints it; NULL out of range.
 *  (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_doctor_problem_text(const cudaload_ctx *ctx,
                                                      size_t i);
/** Problem i's fact (CUDALOAD_FACT_*), NULL when it has none; *source (may
 *  be NULL) receives its CUDALOAD_FROM_* value, 0 for none.
 *  (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_doctor_problem_fact(const cudaload_ctx *ctx,
                                                      size_t i, int fact,
                                                      int *source);
/** How many steps problem i's fix has (0 out of range). (CUDALOAD_1.3) */
CUDALOAD_API size_t cudaload_doctor_fix_step_count(const cudaload_ctx *ctx,
                                                   size_t i);
/** Step s of problem i's fix: its CUDALOAD_FIX_* action, 0 out of range.
 *  (CUDALOAD_1.3) */
CUDALOAD_API int cudaload_doctor_fix_step_action(const cudaload_ctx *ctx,
                                                 size_t i, size_t s);
/** Word k of step s's command (argv[k], unquoted: what the program is
 *  given), NULL past the last. (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_doctor_fix_step_arg(const cudaload_ctx *ctx,
                                                      size_t i, size_t s,
                                                      size_t k);
/** Variable k the step sets, "NAME=value", NULL past the last.
 *  (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_doctor_fix_step_env(const cudaload_ctx *ctx,
                                                      size_t i, size_t s,
                                                      size_t k);
/** The step's words for a person (after its command, or the step itself);
 *  NULL for none. (CUDALOAD_1.3) */
CUDALOAD_API const char *cudaload_doctor_fix_step_note(const cudaload_ctx *ctx,
                                                       size_t i, size_t s);

/* ------------------------------------------------------------------------ */
/* Fix: what `cudaload fix` runs (version node CUDALOAD_1.4)                */
/* ------------------------------------------------------------------------ */
/*
 * `cudaload fix` and cudaload.fix() run the installs of the last
 * cudaload_doctor() report that are safe by construction, and nothing
 * else: a step CUDALOAD_FIX_INSTALL that runs an environment's own pip
 * (<venv>/bin/python -m pip install, Windows ...\python.exe) for packages
 * the catalog's table of NVIDIA's wheels names, with PEP 440 versions,
 * into a venv or conda environment (or a --target folder inside one) that
 * the user this process runs as owns and no other user can write to; pip
 * gets --only-binary=:all: (no source build runs code) and --no-input, and
 * runs without a shell. A folder it installs into beside the environment
 * (pip's --target) is recorded in the environment's cudaload.roots
 * (docs/scan-contract.md, "Recorded roots"), so that later scans find it
 * with no roots given. A choice, a variable, a program to run, any other
 * command and a note are shown, never run. docs/cli.md, "fix", has the
 * rules; (i, s) are as for cudaload_doctor_fix_step_*().
 */

/** Whether `cudaload fix` runs step s of problem i of ctx's last doctor
 *  report: CUDALOAD_OK, or why not in cudaload_last_error():
 *  CUDALOAD_E_UNSUPPORTED for a step it never runs (a note, a choice, a
 *  variable, a program to run, another command) or an interpreter in no
 *  venv or conda environment; CUDALOAD_E_INVALID_ARGUMENT for words it
 *  does not pass (a package not in the catalog's wheel table, a version
 *  that is not PEP 440, another pip option); CUDALOAD_E_INSECURE for an
 *  environment another user owns or others can write to;
 *  CUDALOAD_E_NOT_FOUND for an interpreter that is not there or (i, s) out
 *  of range. (CUDALOAD_1.4) */
CUDALOAD_API int cudaload_fix_step_check(cudaload_ctx *ctx, size_t i, size_t s);
/** The command `cudaload fix` runs for step s of problem i, as one line
 *  for this system's shell (POSIX sh; Windows cmd and PowerShell), to
 *  show before it runs; NULL when it runs none (cudaload_fix_step_check()
 *  says why). Valid until the next call of a cudaload_fix_* function or
 *  cudaload_doctor() on ctx. (CUDALOAD_1.4) */
CUDALOAD_API const char *cudaload_fix_step_command(cudaload_ctx *ctx, size_t i,
                                                   size_t s);
/** Run step s of problem i: checked again, then its command run (no shell;
 *  this process's environment, standard streams and current folder) and
 *  waited for; when it exits 0 and installed into a folder beside the
 *  environment, that folder is checked as a root would be and recorded in
 *  the environment's cudaload.roots. CUDALOAD_OK; the check's status when
 *  it does not run; CUDALOAD_E_IO when the command could not start or
 *  exited with another status, or the folder could not be recorded
 *  (cudaload_last_error() says which, with the exit status).
 *  (CUDALOAD_1.4) */
CUDALOAD_API int cudaload_fix_step_run(cudaload_ctx *ctx, size_t i, size_t s);
/** What `cudaload fix` would do with ctx's last doctor report, as text:
 *  each problem with its steps, each marked as what it does: "run" (with
 *  the command, and the folder it records), "yours" (a variable to set, a
 *  program to run, a command to judge), "choice" (one install per CUDA
 *  major: pass the major), "refused" (with why) or "note". format is
 *  CUDALOAD_FORMAT_TEXT (others: CUDALOAD_E_UNSUPPORTED). *out receives a
 *  malloc'ed text (free with cudaload_free()). (CUDALOAD_1.4) */
CUDALOAD_API int cudaload_fix_report(cudaload_ctx *ctx, int format, char **out);

/** Free memory the library handed out (cudaload_doctor's text). NULL ok. */
CUDALOAD_API void cudaload_free(void *memory);

/* ------------------------------------------------------------------------ */
/* Explain: who binds to what (version node CUDALOAD_1.1)                   */
/* ------------------------------------------------------------------------ */

/** The tree of what the loader would open for consumer files, or what a
 *  running process has mapped (cudaload_explain_files, _pid). */
typedef struct cudaload_explain cudaload_explain;

/**
 * Explain consumer files (absolute paths: an application, a framework's
 * library such as libtorch_cuda.so or libctranslate2.so, a cuDNN shim, a
 * DLL) as if each were opened into a new process with this environment
 * (LD_LIBRARY_PATH / PATH) and, when ctx has requirements, the plan
 * already preloaded: for each file and every CUDA library in its tree, the
 * libraries it needs (DT_NEEDED / imports) and opens lazily by name, the
 * file the OS loader would take for each and by which rule (the rule
 * names of docs/loader.md: "already-loaded", "rpath", "ld-library-path",
 * "runpath", "ld-so-cache", "default-dirs", "not-found", ...), their
 * versions, where its references to CUDA symbols bind (honouring symbol
 * versions), and the problems: a dependency not found, another major taken,
 * two versions of one family, a cuDNN whose sub-libraries come from another
 * version, CUDA majors mixed, references that bind to another file than the
 * one the consumer was linked against, a search list that includes the
 * current folder. Nothing is loaded. flags: CUDALOAD_PRELOAD_GLOBAL puts
 * the plan's files in the global scope (as RTLD_GLOBAL would);
 * CUDALOAD_EXPLAIN_SYMBOLS records each reference's binding. *out:
 * free with cudaload_explain_free().
 */
/** cudaload_explain_files(): record where each reference binds, not only
 *  per group (the JSON report's "each" lists; `explain --symbols`). */
#define CUDALOAD_EXPLAIN_SYMBOLS 0x100u
CUDALOAD_API int cudaload_explain_files(cudaload_ctx *ctx,
                                        const char *const *paths, size_t count,
                                        unsigned flags, cudaload_explain **out);
/**
 * The CUDA libraries process `pid` has mapped (Linux /proc/PID/maps,
 * Windows its module list), with families and versions, and the problems
 * visible from outside: one family and major in two versions, a cuDNN whose
 * sub-libraries come from another version, CUDA majors mixed. A version is
 * the mapped file's (on Linux its device and inode are checked, and a
 * process in another mount namespace is read through /proc/PID/root): a
 * library deleted or replaced on disk since it was mapped is a problem of
 * its own, without the replacement's version.
 * CUDALOAD_E_NOT_FOUND for no such process, CUDALOAD_E_IO when this
 * process may not look (another user's), with the reason in the last
 * error.
 */
CUDALOAD_API int cudaload_explain_pid(cudaload_ctx *ctx, long pid,
                                      cudaload_explain **out);
/** Free an explanation. NULL is ignored. */
CUDALOAD_API void cudaload_explain_free(cudaload_explain *e);
/** The objects explained: the consumer files and the CUDA libraries of
 *  their trees (system libraries appear only as needs), or the CUDA
 *  libraries a process has mapped. */
CUDALOAD_API size_t cudaload_explain_object_count(const cudaload_explain *e);
CUDALOAD_API const char *cudaload_explain_object_path(const cudaload_explain *e,
                                                      size_t i);
/** Catalog family ("cudnn"); NULL when the object is not a CUDA library. */
CUDALOAD_API const char *
cudaload_explain_object_family(const cudaload_explain *e, size_t i);
/** Full version ("9.19.0.56"); NULL when nothing on disk tells it. */
CUDALOAD_API const char *
cudaload_explain_object_version(const cudaload_explain *e, size_t i);
/** The dependencies of object i, in the order the loader resolves them. */
CUDALOAD_API size_t cudaload_explain_need_count(const cudaload_explain *e,
                                                size_t i);
CUDALOAD_API const char *cudaload_explain_need_name(const cudaload_explain *e,
                                                    size_t i, size_t j);
/** 1: opened lazily by name at run time; 0: DT_NEEDED / import; -1: out of
 *  range. */
CUDALOAD_API int cudaload_explain_need_lazy(const cudaload_explain *e, size_t i,
                                            size_t j);
/** The file the loader takes; NULL when it finds none. */
CUDALOAD_API const char *cudaload_explain_need_path(const cudaload_explain *e,
                                                    size_t i, size_t j);
/** The rule that decided (docs/loader.md). */
CUDALOAD_API const char *cudaload_explain_need_rule(const cudaload_explain *e,
                                                    size_t i, size_t j);
/** The problems found, one sentence each. */
CUDALOAD_API size_t cudaload_explain_problem_count(const cudaload_explain *e);
CUDALOAD_API const char *cudaload_explain_problem(const cudaload_explain *e,
                                                  size_t i);
/** The report: CUDALOAD_FORMAT_TEXT, _JSON, _YAML or
 *  _DOT (a Graphviz graph); *out free with cudaload_free(). */
CUDALOAD_API int cudaload_explain_report(const cudaload_explain *e, int format,
                                         char **out);

/**
 * Read a cudaload.yaml requirements manifest into ctx: requirements, extra
 * roots (relative paths are relative to the manifest's folder), policy
 * (sub-libraries minimal|all, isolation, global) and probe on/off. A YAML
 * syntax error is reported with line and column, an unknown key with its
 * name and line, a value of the wrong type with its key and line. A
 * rejected manifest changes nothing in ctx. CUDALOAD_E_UNSUPPORTED in
 * builds without libyaml.
 */
CUDALOAD_API int cudaload_load_manifest(cudaload_ctx *ctx, const char *path);
/** The preload flags the loaded manifest's policy asks for
 *  (CUDALOAD_PRELOAD_*), 0 without a manifest. */
CUDALOAD_API unsigned cudaload_manifest_preload_flags(const cudaload_ctx *ctx);
/** 1 when the loaded manifest asks for the probe, 0 otherwise. */
CUDALOAD_API int cudaload_manifest_probe(const cudaload_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* CUDALOAD_H */
