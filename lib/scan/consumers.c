/* SPDX-License-Identifier: MIT */
/* consumers.c - the known consumers table (consumers.h) and its matching. */
#include "scan/consumers.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

/* Read from the wheels on the index: the name each release's library holds
 * as text and opens at run time (strings libctranslate2-*.so.* | grep
 * libcublas; strings ctranslate2.dll | grep cublas64): 3.24.0
 * "libcublas.so.11"; 4.4.0, 4.6.2 and 4.8.5 "libcublas.so.12", and 4.4.0's
 * win_amd64 ctranslate2.dll "cublas64_12.dll". scripts/acceptance checks the
 * row for 4.4.0 against the installed file. */
static const cl_known_consumer consumers[] = {
    {"ctranslate2", "libctranslate2", "ctranslate2.dll", 3, 3, "cublas", 11,
     "its cuBLAS stub opens libcublas.so.11 at the first cuBLAS call"},
    {"ctranslate2", "libctranslate2", "ctranslate2.dll", 4, 4, "cublas", 12,
     "its cuBLAS stub opens libcublas.so.12 at the first cuBLAS call"},
};
#define CONSUMER_COUNT (sizeof consumers / sizeof consumers[0])

static int is_hex8(const char *s) {
  for (int i = 0; i < 8; ++i)
    if (!cl_ascii_is_digit(s[i]) &&
        !(cl_ascii_lower(s[i]) >= 'a' && cl_ascii_lower(s[i]) <= 'f'))
      return 0;
  return 1;
}

/* "lib<stem>-<8 hex>.so<tail>" or "lib<stem>.so<tail>", where tail is empty
 * or ".<version>". */
static int linux_name_is(const char *name, const char *stem) {
  size_t n = strlen(stem);
  if (strncmp(name, stem, n) != 0)
    return 0;
  const char *rest = name + n;
  if (rest[0] == '-' && is_hex8(rest + 1))
    rest += 9;
  return strncmp(rest, ".so", 3) == 0 && (rest[3] == '\0' || rest[3] == '.');
}

const char *cl_consumer_package_of(const char *folder_base,
                                   const char *file_name, cl_naming naming) {
  for (size_t i = 0; i < CONSUMER_COUNT; ++i) {
    const cl_known_consumer *c = &consumers[i];
    size_t n = strlen(c->package);
    int in_package = strcmp(folder_base, c->package) == 0;
    int in_libs = strncmp(folder_base, c->package, n) == 0 &&
                  strcmp(folder_base + n, ".libs") == 0;
    if (naming == CL_NAMING_WINDOWS) {
      if (in_package && strlen(file_name) == strlen(c->windows_name) &&
          cl_starts_with_nocase(file_name, c->windows_name))
        return c->package;
    } else if ((in_package || in_libs) &&
               linux_name_is(file_name, c->linux_stem)) {
      return c->package;
    }
  }
  return NULL;
}

/* Copy a version ("4.4.0") that starts at s and ends at end or at the
 * first character that is neither a digit nor a dot. */
static int copy_version(const char *s, const char *end, char *out,
                        size_t size) {
  size_t n = 0;
  while (s + n < end && (cl_ascii_is_digit(s[n]) || s[n] == '.'))
    ++n;
  if (n == 0 || !cl_ascii_is_digit(s[0]) || n >= size)
    return 0;
  memcpy(out, s, n);
  out[n] = '\0';
  return 1;
}

int cl_consumer_version_from_name(const char *file_name, char *out,
                                  size_t size) {
  const char *so = strstr(file_name, ".so.");
  return so && copy_version(so + 4, so + strlen(so), out, size);
}

typedef struct site_search {
  const char *package;
  char *out;
  size_t size;
  int found;
} site_search;

static int visit_site_entry(const char *name, cl_file_kind kind, void *opaque) {
  site_search *s = opaque;
  (void)kind;
  size_t n = strlen(s->package), len = strlen(name);
  /* "ctranslate2-4.4.0.dist-info"; wheels write the name with '_' for
   * '-', which a package name without either keeps as it is. */
  if (len > n + 11 && cl_starts_with_nocase(name, s->package) &&
      name[n] == '-' && strcmp(name + len - 10, ".dist-info") == 0)
    s->found = copy_version(name + n + 1, name + len - 10, s->out, s->size);
  return s->found;
}

int cl_consumer_version_from_site(const char *site, const char *package,
                                  char *out, size_t size) {
  site_search s = {package, out, size, 0};
  /* An unreadable folder only hides the version: the caller's last error
   * is kept. */
  char *saved = cl_save_error();
  cl_os_list_dir(site, visit_site_entry, &s);
  cl_restore_error(saved);
  return s.found;
}

const cl_known_consumer *cl_consumer_need(const char *package,
                                          const char *version, size_t index) {
  int major = version ? atoi(version) : 0;
  for (size_t i = 0; i < CONSUMER_COUNT; ++i) {
    const cl_known_consumer *c = &consumers[i];
    if (strcmp(c->package, package) != 0 || major < c->first_major ||
        major > c->last_major)
      continue;
    if (index-- == 0)
      return c;
  }
  return NULL;
}

int cl_consumer_version_of(const char *path, const char *package, char *out,
                           size_t size) {
  if (cl_consumer_version_from_name(cl_path_basename(path), out, size))
    return 1;
  char *folder = cl_path_dirname(path);
  char *site = folder ? cl_path_dirname(folder) : NULL;
  int found = site && cl_consumer_version_from_site(site, package, out, size);
  free(site);
  free(folder);
  return found;
}

/* Read from the win_amd64 wheels' ctranslate2/__init__.py: 4.4.0 and 4.8.5
 * call os.add_dll_directory(package_dir), then ctypes.CDLL(library) for
 * each glob("*.dll") of it (ctranslate2.dll, cudnn64_8.dll or cudnn64_9.dll,
 * libiomp5md.dll), then import ctranslate2._ext. */
static const cl_consumer_windows_init windows_inits[] = {
    {"ctranslate2", 4, 4, 1, 1,
     "its __init__ adds its folder with os.add_dll_directory and loads each "
     "DLL of it with ctypes.CDLL"},
};

int cl_consumer_has_windows_init(const char *package) {
  for (size_t i = 0; i < sizeof windows_inits / sizeof *windows_inits; ++i)
    if (strcmp(windows_inits[i].package, package) == 0)
      return 1;
  return 0;
}

const cl_consumer_windows_init *
cl_consumer_windows_init_of(const char *package, const char *version) {
  int major = version ? atoi(version) : 0;
  for (size_t i = 0; i < sizeof windows_inits / sizeof *windows_inits; ++i) {
    const cl_consumer_windows_init *w = &windows_inits[i];
    if (strcmp(w->package, package) == 0 && major >= w->first_major &&
        major <= w->last_major)
      return w;
  }
  return NULL;
}
