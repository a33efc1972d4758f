/* SPDX-License-Identifier: MIT */
/*
 * driver_version.c - the NVIDIA driver's version from files, and the CUDA it
 * supports (see driver_version.h for the sources and their order).
 *
 * Nothing here loads the driver or calls into it: cuDriverGetVersion would
 * answer better, but loading libcuda/nvcuda.dll into the caller's process
 * before the plan is made is what the plan exists to avoid (it pins one
 * driver for good and runs its initialisers). Every file is opened with
 * cl_os_file_open, which refuses FIFOs and devices without blocking, and read
 * with a fixed bound.
 */
#include "scan/driver_version.h"

#include "binary/binary.h"
#include "cudaload.h"
#include "common/error.h"
#include "scan/ldcache.h"
#include "scan/inventory.h"
#include "binary/file_cache.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /proc/driver/nvidia/version is two short lines; reading more than this
 * only happens with something that is not that file. */
#define PROC_READ_LIMIT 4096

/* --- the table ------------------------------------------------------------
 *
 * NVIDIA, "CUDA Toolkit Release Notes", section "CUDA Driver":
 * https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html
 * Table 3 "CUDA Toolkit and Corresponding Driver Versions" (as of CUDA 13.2
 * Update 2): the first (GA) release of each minor, which is the least driver
 * that supports that minor in full. Updates of a minor sometimes ask for a
 * newer driver (12.2 Update 2: 535.104.05), but a build against the minor
 * runs on its GA driver, so the GA row is the one that counts here.
 *
 * Windows: Table 3 lists "N/A" from CUDA 13.0 on (the Windows toolkit no
 * longer bundles a driver); those rows use the Linux driver branch of the
 * same release (R580, R590, R595), since both systems ship one branch.
 */
typedef struct cuda_release {
  int major, minor;
  const char *linux_driver;
  const char *windows_driver;
} cuda_release;

static const cuda_release releases[] = {
    {10, 0, "410.48", "411.31"},    {10, 1, "418.39", "418.96"},
    {10, 2, "440.33", "441.22"},    {11, 0, "450.51.05", "451.48"},
    {11, 1, "455.23", "456.38"},    {11, 2, "460.27.03", "460.82"},
    {11, 3, "465.19.01", "465.89"}, {11, 4, "470.42.01", "471.11"},
    {11, 5, "495.29.05", "496.04"}, {11, 6, "510.39.01", "511.23"},
    {11, 7, "515.43.04", "516.01"}, {11, 8, "520.61.05", "520.06"},
    {12, 0, "525.60.13", "527.41"}, {12, 1, "530.30.02", "531.14"},
    {12, 2, "535.54.03", "536.25"}, {12, 3, "545.23.06", "545.84"},
    {12, 4, "550.54.14", "551.61"}, {12, 5, "555.42.02", "555.85"},
    {12, 6, "560.28.03", "560.76"}, {12, 8, "570.26", "570.65"},
    {12, 9, "575.51.03", "576.02"}, {13, 0, "580.65.06", "580.00"},
    {13, 1, "590.44.01", "590.00"}, {13, 2, "595.45.04", "595.00"},
};

/*
 * Minor-version compatibility: from CUDA 11 on, a build against any minor of
 * a major runs (with a limited feature set) on the major's minimum driver.
 * Same release notes, Table 2 "CUDA Toolkit and Minimum Required Driver
 * Version for CUDA Minor Version Compatibility" (11.x >= 450, 12.x >= 525,
 * 13.x >= 580) with its footnote for 11.x ("by upgrading to Tesla
 * Recommended Drivers 450.80.02 (Linux) / 452.39 (Windows)"); the exact
 * 12.x and 13.x values are the first driver of the branch in Table 3
 * (12.0 GA: 525.60.13 / 527.41; 13.0 GA: 580.65.06, Windows R580).
 * See also https://docs.nvidia.com/deploy/cuda-compatibility/ .
 * CUDA 10 and older have no such compatibility: only the full-support rows.
 */
typedef struct cuda_major_floor {
  int major;
  const char *linux_driver;
  const char *windows_driver;
} cuda_major_floor;

static const cuda_major_floor major_floors[] = {
    {11, "450.80.02", "452.39"},
    {12, "525.60.13", "527.41"},
    {13, "580.65.06", "580.00"},
};

/* --- parsing ------------------------------------------------------------- */

int cl_driver_version_parse(const char *text,
                            long parts[CL_DRIVER_VERSION_PARTS]) {
  for (int i = 0; i < CL_DRIVER_VERSION_PARTS; ++i)
    parts[i] = 0;
  if (!text)
    return 0;
  int count = 0;
  const char *p = text;
  for (;;) {
    /* 1 to 5 digits per part: real ones have 2 or 3 ("535", "104", "05");
     * the bound keeps the value far from overflowing a long. */
    int digits = 0;
    long value = 0;
    while (*p >= '0' && *p <= '9') {
      if (++digits > 5)
        return 0;
      value = value * 10 + (*p - '0');
      ++p;
    }
    if (digits == 0 || count == CL_DRIVER_VERSION_PARTS)
      return 0;
    parts[count++] = value;
    if (*p == '\0')
      break;
    if (*p != '.')
      return 0;
    ++p;
  }
  /* One part is a SONAME major (libcuda.so.1), not a driver version. */
  if (count < 2) {
    parts[0] = 0;
    return 0;
  }
  return count;
}

/* Compare two versions part by part (missing parts are 0). */
static int version_compare(const long a[CL_DRIVER_VERSION_PARTS],
                           const long b[CL_DRIVER_VERSION_PARTS]) {
  for (int i = 0; i < CL_DRIVER_VERSION_PARTS; ++i)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

static int at_least(const long have[CL_DRIVER_VERSION_PARTS],
                    const char *minimum) {
  long need[CL_DRIVER_VERSION_PARTS];
  if (!cl_driver_version_parse(minimum, need))
    return 0; /* a table typo must not grant support */
  return version_compare(have, need) >= 0;
}

static int copy_version(const char *text, size_t n, char *out, size_t len) {
  if (n == 0 || n >= len || n >= 32)
    return 0;
  char buf[32];
  memcpy(buf, text, n);
  buf[n] = '\0';
  long parts[CL_DRIVER_VERSION_PARTS];
  if (!cl_driver_version_parse(buf, parts))
    return 0;
  memcpy(out, buf, n + 1);
  return 1;
}

int cl_driver_version_from_file_name(const char *name, char *out, size_t len) {
  /* The driver installs its library as libcuda.so.<driver version> with
   * libcuda.so.1 (the SONAME) a symlink to it; only the real name tells. */
  static const char prefix[] = "libcuda.so.";
  if (!name || !out || strncmp(name, prefix, sizeof prefix - 1) != 0)
    return 0;
  const char *version = name + sizeof prefix - 1;
  return copy_version(version, strlen(version), out, len);
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int cl_driver_version_from_proc_text(const char *text, char *out, size_t len) {
  /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug..."
   * (the open modules say "Open Kernel Module for x86_64"): the first word
   * of the NVRM line that is a whole driver version. Architecture names,
   * dates and times never parse as one. */
  if (!text || !out)
    return 0;
  const char *line = strstr(text, "NVRM version:");
  if (!line)
    return 0;
  const char *end = strchr(line, '\n');
  if (!end)
    end = line + strlen(line);
  const char *p = line + strlen("NVRM version:");
  while (p < end) {
    while (p < end && is_space(*p))
      ++p;
    const char *word = p;
    while (p < end && !is_space(*p))
      ++p;
    if (p > word && copy_version(word, (size_t)(p - word), out, len))
      return 1;
  }
  return 0;
}

int cl_driver_version_from_versioninfo(const char *file_version, char *out,
                                       size_t len) {
  /*
   * nvcuda.dll's VERSIONINFO is a WDDM version a.b.c.d whose last five
   * digits are the driver: 32.0.15.6094 is 560.94 (c - 10 is the first digit
   * of the branch, d the other four). The same rule in public code:
   * CaffeineMC/sodium NvidiaDriverVersion.parse ("driver 526.47 is
   * represented as X.Y.15.2647": (c - 10) * 10000 + d) and rex engine's
   * nvidia_unified_version ("9.18.13.4788 -> 347.88").
   */
  if (!file_version || !out)
    return 0;
  long parts[4] = {0, 0, 0, 0};
  int count = 0;
  const char *p = file_version;
  while (count < 4) {
    int digits = 0;
    long value = 0;
    while (*p >= '0' && *p <= '9') {
      if (++digits > 5)
        return 0;
      value = value * 10 + (*p - '0');
      ++p;
    }
    if (digits == 0)
      return 0;
    parts[count++] = value;
    if (*p != '.')
      break;
    ++p;
  }
  /* Exactly four parts, c of two digits from 10 (a CUDA fixture's "12.4.0.0"
   * or a non-NVIDIA numbering is no driver version) and d of four. */
  if (*p != '\0' || count != 4 || parts[2] < 10 || parts[2] > 99 ||
      parts[3] > 9999)
    return 0;
  long merged = (parts[2] - 10) * 10000 + parts[3];
  if (merged / 100 < 100) /* no NVIDIA driver below branch 100 */
    return 0;
  char buf[32];
  snprintf(buf, sizeof buf, "%ld.%02ld", merged / 100, merged % 100);
  return copy_version(buf, strlen(buf), out, len);
}

/* --- mapping ------------------------------------------------------------- */

int cl_driver_cuda_map(cl_naming naming, cl_driver_cuda *d) {
  d->cuda_major = d->cuda_minor = d->max_major_compat = 0;
  long have[CL_DRIVER_VERSION_PARTS];
  if (!cl_driver_version_parse(d->version, have))
    return -1;
  int windows = naming == CL_NAMING_WINDOWS;
  for (size_t i = 0; i < sizeof releases / sizeof *releases; ++i) {
    const cuda_release *r = &releases[i];
    if (at_least(have, windows ? r->windows_driver : r->linux_driver)) {
      /* Rows are in release order: the last match is the newest. */
      d->cuda_major = r->major;
      d->cuda_minor = r->minor;
    }
  }
  d->max_major_compat = d->cuda_major;
  for (size_t i = 0; i < sizeof major_floors / sizeof *major_floors; ++i) {
    const cuda_major_floor *f = &major_floors[i];
    if (f->major > d->max_major_compat &&
        at_least(have, windows ? f->windows_driver : f->linux_driver))
      d->max_major_compat = f->major;
  }
  return 0;
}

int cl_driver_supports_cuda_major(const cl_driver_cuda *d, int major) {
  if (!d || !d->found)
    return -1;
  /* Backward compatibility: a driver runs every older major. */
  return major <= d->max_major_compat;
}

/* --- the sources --------------------------------------------------------- */

static void note_why(cl_driver_cuda *out, const char *fmt, ...) CL_PRINTF(2, 3);
static void note_why(cl_driver_cuda *out, const char *fmt, ...) {
  size_t used = strlen(out->why);
  if (used + 3 >= sizeof out->why)
    return;
  if (used) {
    memcpy(out->why + used, "; ", 3);
    used += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->why + used, sizeof out->why - used, fmt, ap);
  va_end(ap);
}

static void set_found(cl_driver_cuda *out, cl_naming naming,
                      const char *version, const char *source,
                      const char *path) {
  snprintf(out->version, sizeof out->version, "%s", version);
  out->source = source;
  size_t n = path ? strlen(path) : 0;
  if (n < sizeof out->path)
    memcpy(out->path, path ? path : "", n + 1);
  out->found = cl_driver_cuda_map(naming, out) == 0;
}

/* A driver file: Linux reads the version in its real file name, Windows the
 * VERSIONINFO of nvcuda.dll. 1 when found, 0 when not (why noted), -1 out
 * of memory. */
static int from_driver_file(const char *path, cl_naming naming,
                            const char *source, cl_driver_cuda *out) {
  char version[32];
  char *real = cl_os_real_path(path);
  if (!real) {
    /* Missing, or a symlink loop (ELOOP): nothing to read. */
    note_why(out, CL_WORDS_DOES_NOT_RESOLVE, path);
    return 0;
  }
  int ok = 0;
  if (naming == CL_NAMING_WINDOWS) {
    cl_binary_info info;
    memset(&info, 0, sizeof info);
    int rc = cl_binary_parse_file(real, &info);
    if (rc == CUDALOAD_E_NO_MEMORY) {
      free(real);
      return -1;
    }
    ok = rc == CUDALOAD_OK && cl_driver_version_from_versioninfo(
                                  info.file_version, version, sizeof version);
    if (!ok)
      note_why(out, CL_WORDS_NO_NVIDIA_DRIVER_VERSION_IN, path);
    cl_binary_info_free(&info);
  } else {
    /* Only a regular file counts: a FIFO or a folder named libcuda.so.X
     * is not a driver. */
    ok = cl_os_stat_kind(real, NULL) == CL_KIND_REGULAR &&
         cl_driver_version_from_file_name(cl_path_basename(real), version,
                                          sizeof version);
    if (!ok)
      note_why(out, CL_WORDS_ITS_FILE_NAMES_NO_DRIVER, path,
               cl_path_basename(real));
  }
  if (ok)
    set_found(out, naming, version, source, real);
  free(real);
  return ok;
}

typedef struct cache_hit {
  const char *key;
  char *path;
  int no_memory;
} cache_hit;

static void cache_visit(const char *key, const char *path, void *opaque) {
  cache_hit *hit = opaque;
  /* The first entry for the host's ABI is the one the loader takes. */
  if (hit->path || hit->no_memory || strcmp(key, hit->key) != 0)
    return;
  hit->path = cl_strdup(path);
  hit->no_memory = hit->path == NULL;
}

static int from_ldcache(struct cl_file_cache *files, const char *cache,
                        const char *key, cl_driver_cuda *out) {
  cache_hit hit = {key, NULL, 0};
  /* missing: not found */
  (void)cl_ldcache_read_cached(files, cache, cache_visit, &hit);
  if (hit.no_memory)
    return -1;
  if (!hit.path) {
    note_why(out, "%s: no %s", cache, key);
    return 0;
  }
  int rc = from_driver_file(hit.path, CL_NAMING_LINUX, "ld.so.cache", out);
  free(hit.path);
  return rc;
}

static int from_proc(const char *path, cl_driver_cuda *out) {
  cl_file *f = NULL;
  if (cl_os_file_open(path, &f, NULL) != CUDALOAD_OK) {
    note_why(out, CL_WORDS_NOT_READABLE_NO_KERNEL_MODULE, path);
    return 0;
  }
  char *text = malloc(PROC_READ_LIMIT + 1);
  if (!text) {
    cl_os_file_close(f);
    return -1;
  }
  size_t got = 0;
  int rc = cl_os_file_read_upto(f, 0, text, PROC_READ_LIMIT, &got);
  cl_os_file_close(f);
  text[rc == CUDALOAD_OK ? got : 0] = '\0';
  char version[32];
  int ok = cl_driver_version_from_proc_text(text, version, sizeof version);
  free(text);
  if (ok)
    set_found(out, CL_NAMING_LINUX, version, "/proc/driver/nvidia/version",
              path);
  else
    note_why(out, CL_WORDS_NO_NVRM_VERSION_LINE, path);
  return ok;
}

/* WSL 2: the driver store folders (<inf name>_<hash>) WSL mounts; the one
 * holding nvcuda64.dll is NVIDIA's (another vendor's folder may sit
 * beside it). Its VERSIONINFO is the Windows driver's, and the CUDA it
 * supports follows the Windows column: WSL runs the Windows driver. */
typedef struct wsl_store {
  const char *dir;
  cl_driver_cuda *out;
  int rc; /* 1 found, 0 not yet, -1 out of memory */
} wsl_store;

static int visit_wsl_store(const char *name, cl_file_kind kind, void *opaque) {
  wsl_store *w = opaque;
  if (kind != CL_KIND_DIRECTORY && kind != CL_KIND_UNKNOWN)
    return 0;
  char *folder = cl_path_join(w->dir, name);
  char *dll = folder ? cl_path_join(folder, "nvcuda64.dll") : NULL;
  free(folder);
  if (!dll) {
    w->rc = -1;
    return 1;
  }
  if (cl_os_stat_kind(dll, NULL) == CL_KIND_REGULAR) {
    cl_driver_cuda found;
    memset(&found, 0, sizeof found);
    int rc = from_driver_file(dll, CL_NAMING_WINDOWS, CL_WORDS_WSL_DRIVER_STORE,
                              &found);
    /* Two NVIDIA folders (an update not yet cleaned up): the newer. */
    long have[CL_DRIVER_VERSION_PARTS], other[CL_DRIVER_VERSION_PARTS];
    if (rc > 0 &&
        (!w->out->found || (cl_driver_version_parse(found.version, have) &&
                            cl_driver_version_parse(w->out->version, other) &&
                            version_compare(have, other) > 0))) {
      char why[sizeof w->out->why];
      memcpy(why, w->out->why, sizeof why);
      *w->out = found;
      memcpy(w->out->why, why, sizeof why);
      w->rc = 1;
    } else if (rc == 0) {
      note_why(w->out, "%s", found.why);
    } else if (rc < 0) {
      w->rc = -1;
    }
  }
  free(dll);
  return w->rc < 0;
}

static int from_wsl_store(const char *dir, cl_driver_cuda *out) {
  wsl_store w = {dir, out, 0};
  if (cl_os_list_dir(dir, visit_wsl_store, &w) != CUDALOAD_OK) {
    note_why(out, CL_WORDS_NOT_THERE_NOT_WSL, dir);
    return 0;
  }
  if (w.rc == 0 && !out->found)
    note_why(out, CL_WORDS_NO_FOLDER_WITH_NVCUDA64_DLL, dir);
  return w.rc;
}

static int has_separator(const char *path) {
  return strchr(path, '/') || strchr(path, '\\');
}

/* The toolkit's stubs/libcuda.so satisfies the linker only (the probe
 * refuses it too). */
static int is_stub_path(const char *path) {
  return strstr(path, "/stubs/") || strstr(path, "\\stubs\\") ||
         strstr(path, "/stubs\\") || strstr(path, "\\stubs/");
}

static char *join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *out = malloc(a + b + 2);
  if (!out)
    return NULL;
  memcpy(out, dir, a);
  size_t at = a;
  if (a && dir[a - 1] != '/' && dir[a - 1] != '\\')
    out[at++] = CL_DIR_SEP;
  memcpy(out + at, name, b + 1);
  return out;
}

/* The sources in order; the OS's reasons for a "no" (a file missing, a
 * cache that is not one) land in cl_driver_cuda_read_from's cl_asking,
 * never in the last error. */
static int read_sources(const cl_driver_sources *s, cl_driver_cuda *out) {
  memset(out, 0, sizeof *out);
  int windows = s->naming == CL_NAMING_WINDOWS;
  /* The name the system sources look up: the override when it is a bare
   * name (the probe opens it by name, through the same search). */
  const char *name = windows ? "nvcuda.dll" : "libcuda.so.1";
  int rc = 0;
  if (s->driver && s->driver[0]) {
    if (!has_separator(s->driver))
      name = s->driver;
    else if (is_stub_path(s->driver))
      note_why(out, CL_WORDS_THE_TOOLKIT_S_LINK_TIME, s->driver);
    else if (!cl_os_path_is_absolute(s->driver))
      note_why(out, CL_WORDS_NOT_AN_ABSOLUTE_PATH, s->driver);
    else
      rc = from_driver_file(s->driver, s->naming, "CUDALOAD_DRIVER / --driver",
                            out);
  }
  if (rc == 0 && !windows && s->ldcache_path)
    rc = from_ldcache(s->cache, s->ldcache_path, name, out);
  if (rc == 0 && !windows && s->proc_version_path)
    rc = from_proc(s->proc_version_path, out);
  if (rc == 0 && !windows && s->wsl_drivers_dir)
    rc = from_wsl_store(s->wsl_drivers_dir, out);
  if (rc == 0 && windows && s->system_dir) {
    char *path = join(s->system_dir, name);
    if (!path)
      return CUDALOAD_E_NO_MEMORY;
    rc = from_driver_file(path, s->naming, "System32", out);
    free(path);
  }
  if (rc < 0) {
    memset(out, 0, sizeof *out);
    return CUDALOAD_E_NO_MEMORY;
  }
  if (out->found)
    out->why[0] = '\0';
  else
    out->source = NULL;
  return CUDALOAD_OK;
}

int cl_driver_cuda_read_from(const cl_driver_sources *s, cl_driver_cuda *out) {
  /* No driver version is an answer (out->found 0, out->why says why), not
   * a failure: what the sources fail with stays in this scope. */
  cl_asking unread;
  cl_asking_begin(&unread);
  int rc = read_sources(s, out);
  cl_asking_end(&unread);
  return rc;
}

/* The sources of the host as cl_driver_cuda_read asks them. */
static int read_host(cl_naming naming, const char *driver_override,
                     struct cl_file_cache *cache, cl_driver_cuda *out) {
  char *from_environment = NULL;
  if (!driver_override) {
    from_environment = cl_os_getenv("CUDALOAD_DRIVER");
    driver_override = from_environment;
  }
  char *system_dir = naming == CL_NAMING_WINDOWS ? cl_os_system_dir() : NULL;
  cl_driver_sources s = {naming,
                         driver_override,
                         "/etc/ld.so.cache",
                         "/proc/driver/nvidia/version",
                         system_dir,
                         "/usr/lib/wsl/drivers",
                         cache};
  int rc = cl_driver_cuda_read_from(&s, out);
  free(system_dir);
  free(from_environment);
  return rc;
}

int cl_driver_cuda_read(cl_naming naming, const char *driver_override,
                        cl_driver_cuda *out) {
  return read_host(naming, driver_override, NULL, out);
}

/* One answer per naming (CL_NAMING_LINUX, CL_NAMING_WINDOWS), for the
 * driver override it was asked with. */
struct cl_driver_memo {
  int known[3];
  char *override[3]; /* NULL: none (CUDALOAD_DRIVER then) */
  cl_driver_cuda answer[3];
};

void cl_driver_memo_free(cl_driver_memo *memo) {
  if (!memo)
    return;
  for (size_t i = 0; i < 3; ++i)
    free(memo->override[i]);
  free(memo);
}

static int same_override(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int cl_driver_cuda_of(cudaload_ctx *ctx, cl_naming naming,
                      cl_driver_cuda *out) {
  cl_inventory *inv = ctx ? ctx->inventory : NULL;
  const char *override = ctx ? ctx->probe_driver_path : NULL;
  size_t slot = naming == CL_NAMING_WINDOWS ? 2 : 1;
  if (inv && inv->driver_memo && inv->driver_memo->known[slot] &&
      same_override(inv->driver_memo->override[slot], override)) {
    *out = inv->driver_memo->answer[slot];
    return CUDALOAD_OK;
  }
  int rc = read_host(naming, override, ctx ? cl_file_cache_of(ctx) : NULL, out);
  if (rc != CUDALOAD_OK || !inv)
    return rc;
  /* Not kept without memory: asked again next time. */
  if (!inv->driver_memo) {
    inv->driver_memo = calloc(1, sizeof *inv->driver_memo);
    inv->driver_memo_free = cl_driver_memo_free;
  }
  cl_driver_memo *memo = inv->driver_memo;
  char *copy = override ? cl_strdup(override) : NULL;
  if (memo && (!override || copy)) {
    free(memo->override[slot]);
    memo->override[slot] = copy;
    memo->answer[slot] = *out;
    memo->known[slot] = 1;
  } else {
    free(copy);
  }
  return rc;
}
