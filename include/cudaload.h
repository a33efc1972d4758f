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
 * - A cudaload_ctx is not thread-safe: use one per thread, or serialise calls.
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
#define CUDALOAD_VERSION_MINOR 1
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
#define CUDALOAD_E_NOT_A_FILE 7 /* a folder, FIFO or device, not a file */

/** A static, one-line English description of a status code; never NULL. */
CUDALOAD_API const char *cudaload_strerror(int status);

/**
 * The detail of the calling thread's most recent failure: the file or folder,
 * the reason and, where the OS gave one, its error text. "" when there is
 * none. Valid until the next cudaload call on this thread.
 */
CUDALOAD_API const char *cudaload_last_error(void);

/* ------------------------------------------------------------------------ */
/* Context: roots and the scanned inventory                                 */
/* ------------------------------------------------------------------------ */

typedef struct cudaload_ctx cudaload_ctx;

/* Flags for cudaload_create(). */
/** Search only the roots added with cudaload_add_root(). */
#define CUDALOAD_NO_DEFAULT_ROOTS 0x1u

/** Naming conventions a scan recognises (cudaload_set_target()). */
#define CUDALOAD_TARGET_HOST 0    /* the platform this library was built for */
#define CUDALOAD_TARGET_LINUX 1   /* libcublas.so.12, ... */
#define CUDALOAD_TARGET_WINDOWS 2 /* cublas64_12.dll, ... */

/**
 * Create a context. flags: 0 or CUDALOAD_NO_DEFAULT_ROOTS.
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
 * NULL, "" or a relative path (a root must be absolute).
 */
CUDALOAD_API int cudaload_add_root(cudaload_ctx *ctx, const char *dir);

/**
 * Choose which naming conventions the scan recognises (CUDALOAD_TARGET_*).
 * CUDALOAD_TARGET_WINDOWS on a Linux host recognises Windows DLL names in
 * explicit roots (a Linux machine building a Windows installer).
 */
CUDALOAD_API int cudaload_set_target(cudaload_ctx *ctx, int target);

/**
 * Scan the roots: explicit roots first, then (unless CUDALOAD_NO_DEFAULT_ROOTS)
 * the default roots of the host. Replaces any earlier inventory. Never loads a
 * library and never starts a process. A root that does not exist or cannot be
 * read is skipped and listed by cudaload_root_*(); only a failure that leaves
 * no usable inventory (out of memory, invalid ctx) returns an error.
 */
CUDALOAD_API int cudaload_scan(cudaload_ctx *ctx);

/** Number of roots the last scan searched, explicit and default. */
CUDALOAD_API size_t cudaload_root_count(const cudaload_ctx *ctx);
/** Root i's folder, as given or as found. NULL when i is out of range. */
CUDALOAD_API const char *cudaload_root_path(const cudaload_ctx *ctx, size_t i);
/** Where root i came from: "explicit", "CUDA_PATH", "site-packages",
 *  "toolkit", "ld.so.cache", "system", ... NULL when i is out of range. */
CUDALOAD_API const char *cudaload_root_origin(const cudaload_ctx *ctx,
                                              size_t i);
/** CUDALOAD_OK if root i was read, else the status that made the scan skip
 *  it (CUDALOAD_E_NOT_FOUND, CUDALOAD_E_IO, ...). */
CUDALOAD_API int cudaload_root_status(const cudaload_ctx *ctx, size_t i);

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
/** The CUDA major library i belongs to, 0 when the file does not tell. */
CUDALOAD_API int cudaload_library_cuda_major(const cudaload_ctx *ctx,
                                             size_t i);
/** Library i's full version ("9.19.0.56"), or "" when nothing on disk
 *  tells more than the major. */
CUDALOAD_API const char *cudaload_library_version(const cudaload_ctx *ctx,
                                                  size_t i);
/** Where the version came from: "dist-info", "file-name", "header",
 *  "versioninfo", or "none". */
CUDALOAD_API const char *
cudaload_library_version_source(const cudaload_ctx *ctx, size_t i);
/** The file behind the version: the METADATA, header or library file; ""
 *  for "none". */
CUDALOAD_API const char *
cudaload_library_version_file(const cudaload_ctx *ctx, size_t i);
/** Absolute path of library i's real file (symlinks resolved). */
CUDALOAD_API const char *cudaload_library_path(const cudaload_ctx *ctx,
                                               size_t i);
/** The root (index into cudaload_root_*) under which library i was found. */
CUDALOAD_API size_t cudaload_library_root(const cudaload_ctx *ctx, size_t i);

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

#ifdef __cplusplus
}
#endif
#endif /* CUDALOAD_H */
