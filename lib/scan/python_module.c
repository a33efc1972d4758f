/* SPDX-License-Identifier: MIT */
/*
 * python_module.c - a module as `import` finds it, and the distributions
 * that installed it (python_module.h).
 *
 * Python's path finder takes the first folder of sys.path that holds the
 * name, package before module, and a namespace package only when no
 * folder holds either; a venv's torch shadows the system's, a PYTHONPATH
 * folder's shadows both. The distributions that own a module are read
 * from the RECORDs beside it, those named like it first (torch for
 * torch, onnxruntime_gpu for onnxruntime, cupy_cuda12x for cupy), all of
 * them only when none of those lists it.
 */
#include "scan/python_module.h"
#include "cudaload.h"

#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/distinfo.h"
#include "scan/record_texts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAX CL_RECORD_MAX

int cl_python_module_name(const char *name) {
  if (!name || !(cl_ascii_is_alnum(*name) || *name == '_') ||
      cl_ascii_is_digit(*name))
    return 0;
  for (const char *p = name; *p; ++p)
    if (!cl_ascii_is_alnum(*p) && *p != '_')
      return 0;
  return 1;
}

typedef struct name_filter {
  const char *name;
  size_t len;
} name_filter;

/* NAME itself, or NAME.<anything> (NAME.py, NAME.cpython-311-...so). */
static int is_module_entry(const char *entry, const void *arg) {
  const name_filter *f = arg;
  return !strncmp(entry, f->name, f->len) &&
         (entry[f->len] == '\0' || entry[f->len] == '.');
}

static int exists_as(const char *folder, const char *name, cl_file_kind kind) {
  char *path = cl_path_join(folder, name);
  int yes = path && cl_os_stat_kind(path, NULL) == kind;
  free(path);
  return yes;
}

/* A package's __init__ (source, bytecode or an extension module). */
static int is_init(const char *entry, const void *arg) {
  (void)arg;
  return !strncmp(entry, "__init__.", 9);
}

/* How folder holds name: 2 a package or module, 1 a namespace package
 * only, 0 not at all; *location the path that holds it. */
static int held_in(const char *folder, const char *name, char **location) {
  name_filter f = {name, strlen(name)};
  cl_name_list entries = {0};
  /* an unreadable folder holds nothing */
  cl_name_list_read(folder, is_module_entry, &f, NULL, &entries);
  int how = 0;
  *location = NULL;
  for (size_t i = 0; i < entries.count && how < 2; ++i) {
    const char *entry = entries.names[i];
    char *path = cl_path_join(folder, entry);
    if (!path)
      break;
    if (!strcmp(entry, name) &&
        cl_os_stat_kind(path, NULL) == CL_KIND_DIRECTORY) {
      cl_name_list init = {0};
      cl_name_list_read(path, is_init, NULL, NULL, &init);
      int package = init.count > 0;
      cl_name_list_free(&init);
      if (package || !how) {
        free(*location);
        *location = path;
        path = NULL;
        how = package ? 2 : 1;
      }
    } else if (cl_ends_with(entry, ".py") || cl_ends_with(entry, ".so") ||
               cl_ends_with(entry, ".pyd") || cl_ends_with(entry, ".pyc")) {
      if (exists_as(folder, entry, CL_KIND_REGULAR)) {
        free(*location);
        *location = path;
        path = NULL;
        how = 2;
      }
    }
    free(path);
  }
  cl_name_list_free(&entries);
  return how;
}

/* --- the distributions that own it --------------------------------------- */

static int is_distinfo(const char *name, const void *arg) {
  (void)arg;
  return cl_ends_with(name, ".dist-info");
}

/* Lower case, '-', '_' and '.' dropped: "onnxruntime_gpu" ~ "onnxruntimegpu".
 */
static void squeeze(const char *s, size_t n, char *out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < size; ++i)
    if (s[i] != '-' && s[i] != '_' && s[i] != '.')
      out[k++] = cl_ascii_lower(s[i]);
  out[k] = '\0';
}

/* A distribution named like the module: one name starts with the other. */
static int named_like(const char *distinfo, const char *module) {
  char a[256], b[256];
  squeeze(distinfo, strcspn(distinfo, "-"), a, sizeof a);
  squeeze(module, strlen(module), b, sizeof b);
  return !strncmp(a, b, strlen(b)) || !strncmp(b, a, strlen(a));
}

/* Whether a RECORD path is the module's: "NAME/..." or "NAME.<tag>". */
static int module_path(const char *path, size_t len, const char *name,
                       size_t n) {
  return len > n && !memcmp(path, name, n) &&
         (path[n] == '/' || path[n] == '.');
}

typedef struct lists_check {
  const char *name;
  size_t len;
  int found;
} lists_check;

static int visit_lists(const char *path, size_t len, void *opaque) {
  lists_check *c = opaque;
  c->found = module_path(path, len, c->name, c->len);
  return c->found;
}

/* How much of a RECORD is read at a time to find a module's row. */
#define RECORD_CHUNK ((size_t)64 << 10)

/* Whether distinfo's RECORD lists a file of module `name`. A distribution
 * named like the module is most likely its owner, whose RECORD the
 * program's scan reads whole later: it is read whole now, once, through
 * records, and parsed up to the module's first row. Another is read a
 * chunk of whole lines at a time, up to the first row that lists it
 * (torch's RECORD is 1.5 MB and lists torch/ within its first rows),
 * unless records holds it already. A line longer than a chunk is no
 * module's row. */
static int lists_module(const char *folder, const char *distinfo,
                        const char *name, cl_record_texts *records, int whole,
                        int *failed) {
  lists_check c = {name, strlen(name), 0};
  if (whole || cl_record_text_held(records, folder, distinfo)) {
    size_t len = 0;
    const char *text =
        cl_record_text_of(records, folder, distinfo, &len, failed);
    if (text)
      cl_record_parse(text, len, visit_lists, &c);
    return c.found;
  }
  char *dir = cl_path_join(folder, distinfo);
  char *record = dir ? cl_path_join(dir, "RECORD") : NULL;
  free(dir);
  cl_file *f = NULL;
  uint64_t size = 0;
  /* no RECORD: it lists nothing */
  char *buf = record ? malloc(RECORD_CHUNK) : NULL;
  if (buf && cl_os_file_open_quiet(record, &f, &size, NULL) == CUDALOAD_OK) {
    size_t held = 0;
    for (uint64_t at = 0; !c.found && at < RECORD_MAX;) {
      size_t got = 0;
      if (cl_os_file_read_upto_quiet(f, at, buf + held, RECORD_CHUNK - held,
                                     &got, NULL) != CUDALOAD_OK ||
          got == 0) {
        if (held) /* the last line, without its newline */
          cl_record_parse(buf, held, visit_lists, &c);
        break;
      }
      at += got;
      held += got;
      size_t whole_lines = held;
      while (whole_lines > 0 && buf[whole_lines - 1] != '\n')
        --whole_lines;
      if (whole_lines == 0) {
        held = held == RECORD_CHUNK ? 0 : held;
        continue;
      }
      cl_record_parse(buf, whole_lines, visit_lists, &c);
      memmove(buf, buf + whole_lines, held - whole_lines);
      held -= whole_lines;
    }
    cl_os_file_close(f);
  }
  free(buf);
  free(record);
  return c.found;
}

static void add_provider(cl_module_found *out, const char *distinfo) {
  char *copy = cl_strdup(distinfo);
  if (!copy || cl_reserve((void **)&out->providers, &out->provider_capacity,
                          out->provider_count + 1, sizeof *out->providers)) {
    free(copy);
    out->failed = 1;
    return;
  }
  out->providers[out->provider_count++] = copy;
}

static void find_providers(const char *folder, const char *name,
                           cl_record_texts *records, cl_module_found *out) {
  cl_name_list list = {0};
  cl_name_list_read(folder, is_distinfo, NULL, NULL, &list);
  for (int pass = 0; pass < 2 && !out->provider_count; ++pass)
    for (size_t i = 0; i < list.count && !out->failed; ++i)
      if (named_like(list.names[i], name) == !pass &&
          lists_module(folder, list.names[i], name, records, !pass,
                       &out->failed))
        add_provider(out, list.names[i]);
  cl_name_list_free(&list);
}

/* --- two owners of one module -------------------------------------------- */

typedef struct rows {
  const char *name;
  size_t len;
  char **paths;
  long long *sizes;
  size_t count, capacity, size_capacity;
  int failed;
} rows;

static int keep_row(const char *path, size_t len, long long size,
                    void *opaque) {
  rows *r = opaque;
  if (!module_path(path, len, r->name, r->len))
    return 0;
  char *copy = cl_strndup(path, len);
  if (!copy ||
      cl_reserve((void **)&r->paths, &r->capacity, r->count + 1,
                 sizeof *r->paths) ||
      cl_reserve((void **)&r->sizes, &r->size_capacity, r->count + 1,
                 sizeof *r->sizes)) {
    free(copy);
    r->failed = 1;
    return 1;
  }
  r->paths[r->count] = copy;
  r->sizes[r->count++] = size;
  return 0;
}

static void rows_free(rows *r) {
  for (size_t i = 0; i < r->count; ++i)
    free(r->paths[i]);
  free(r->paths);
  free(r->sizes);
}

/* Which of the first two providers' files lie in the folder: the files
 * both list are compared with what each RECORD says of them, one whose
 * sizes differ first (it tells which copy is there). */
static void decide_installed(const char *folder, const char *name,
                             cl_record_texts *records, cl_module_found *out) {
  rows a = {name, strlen(name), NULL, NULL, 0, 0, 0, 0};
  rows b = a;
  char *dir_a = cl_path_join(folder, out->providers[0]);
  char *dir_b = cl_path_join(folder, out->providers[1]);
  char *record_a = dir_a ? cl_path_join(dir_a, "RECORD") : NULL;
  char *record_b = dir_b ? cl_path_join(dir_b, "RECORD") : NULL;
  free(dir_a);
  free(dir_b);
  size_t len = 0;
  const char *text =
      cl_record_text_of(records, folder, out->providers[0], &len, &out->failed);
  if (text)
    cl_record_parse_rows(text, len, keep_row, &a);
  text =
      cl_record_text_of(records, folder, out->providers[1], &len, &out->failed);
  if (text)
    cl_record_parse_rows(text, len, keep_row, &b);
  cl_str_index index;
  cl_str_index_init(&index, 0);
  int failed = a.failed || b.failed;
  for (size_t i = 0; i < a.count && !failed; ++i)
    failed = cl_str_index_add(&index, a.paths[i], i) != 0;
  size_t example = SIZE_MAX, example_a = 0;
  int example_differs = 0;
  for (size_t i = 0; i < b.count && !failed; ++i) {
    size_t at;
    if (!cl_str_index_find(&index, b.paths[i], &at))
      continue;
    out->shared++;
    int differs =
        a.sizes[at] >= 0 && b.sizes[i] >= 0 && a.sizes[at] != b.sizes[i];
    if (example == SIZE_MAX || (differs && !example_differs)) {
      example = i;
      example_a = at;
      example_differs = differs;
    }
  }
  if (example != SIZE_MAX && !failed) {
    out->shared_example = cl_strdup(b.paths[example]);
    char *file = cl_path_join(folder, b.paths[example]);
    int which = file
                    ? cl_distinfo_which_installed(file, a.sizes[example_a],
                                                  b.sizes[example], record_a,
                                                  record_b, &out->installed_why)
                    : -1;
    out->installed = which < 0 ? SIZE_MAX : (size_t)which;
    free(file);
    if (!out->shared_example)
      failed = 1;
  }
  out->failed |= failed;
  cl_str_index_free(&index);
  rows_free(&a);
  rows_free(&b);
  free(record_a);
  free(record_b);
}

int cl_python_module_find(const cl_import_path *path, const char *name,
                          cl_record_texts *records, cl_module_found *out) {
  memset(out, 0, sizeof *out);
  out->installed = SIZE_MAX;
  if (!cl_python_module_name(name))
    return 0;
  size_t namespace_at = SIZE_MAX;
  char *namespace_location = NULL;
  for (size_t i = 0; i < path->count; ++i) {
    char *location = NULL;
    int how = held_in(path->folders[i].path, name, &location);
    if (how == 2) {
      out->folder = i;
      out->location = location;
      break;
    }
    if (how == 1 && namespace_at == SIZE_MAX) {
      namespace_at = i;
      namespace_location = location;
      location = NULL;
    }
    free(location);
  }
  if (!out->location && namespace_at != SIZE_MAX) {
    out->folder = namespace_at;
    out->location = namespace_location;
    out->namespace_package = 1;
    namespace_location = NULL;
  }
  free(namespace_location);
  if (!out->location)
    return 0;
  const char *folder = path->folders[out->folder].path;
  find_providers(folder, name, records, out);
  if (out->provider_count >= 2)
    decide_installed(folder, name, records, out);
  return 1;
}

void cl_python_module_owners(const char *folder, const char *name,
                             cl_record_texts *records, cl_module_found *out) {
  memset(out, 0, sizeof *out);
  out->installed = SIZE_MAX;
  if (!cl_python_module_name(name))
    return;
  find_providers(folder, name, records, out);
  if (out->provider_count >= 2)
    decide_installed(folder, name, records, out);
}

void cl_module_found_free(cl_module_found *found) {
  free(found->location);
  for (size_t i = 0; i < found->provider_count; ++i)
    free(found->providers[i]);
  free(found->providers);
  free(found->shared_example);
  memset(found, 0, sizeof *found);
}
