/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - the loader's search rules (resolve.h), portable: the facts of
 * the host (default folders, hwcaps subfolders, $LIB, System32, KnownDLLs,
 * what is loaded) come through the platform seam (cl_os_loader_defaults,
 * cl_os_loader_process), and files are looked at only through platform.h.
 *
 * Every rule here is one of docs/loader.md's, in the loader's own order;
 * the comments name the glibc function or the Microsoft page each follows,
 * and tests/loader_oracle checks the whole against the real loader.
 *
 * This file resolves one name. What the loader makes of a file it meets
 * (its header) is file_verdict.c's, and what an open maps (the DT_NEEDED
 * or import closure, then the names opened lazily) is resolve_open.c's,
 * which asks this file for each name (resolve_internal.h).
 */
#include "loader/resolve.h"

#include "cudaload.h"
#include "binary/file_cache.h"
#include "common/buf.h"
#include "common/error.h"
#include "scan/ldcache.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "loader/resolve_memo.h"
#include "loader/file_verdict.h"
#include "loader/resolve_internal.h"
#include "common/reason_words.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static const char *const rule_names[] = {
    "not-found",       "as-given",
    "already-loaded",  "rpath",
    "ld-library-path", "runpath",
    "ld-so-cache",     "default-dirs",
    "known-dll",       "application-folder",
    "dll-load-folder", "user-folders",
    "system32",        "system",
    "windows-folder",  "current-folder",
    "path-variable",   "api-set"};

const char *cl_resolve_search_variable(cl_naming naming) {
  return naming == CL_NAMING_WINDOWS ? "PATH" : "LD_LIBRARY_PATH";
}

const char *cl_resolve_rule_name(cl_resolve_rule rule) {
  if ((size_t)rule < sizeof rule_names / sizeof rule_names[0])
    return rule_names[rule];
  return "unknown";
}

static int ascii_lower(int c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Windows compares module names without case (ASCII folding: the loader's
 * own table folds more, which no DLL name here needs). */
int cl_resolve_names_equal(const cl_loader_model *m, const char *a,
                           const char *b) {
  if (!a || !b)
    return 0;
  if (!cl_resolve_is_windows(m))
    return strcmp(a, b) == 0;
  while (*a && *b &&
         ascii_lower((unsigned char)*a) == ascii_lower((unsigned char)*b)) {
    ++a;
    ++b;
  }
  return *a == '\0' && *b == '\0';
}

static int is_separator(const cl_loader_model *m, char c) {
  return c == '/' || (cl_resolve_is_windows(m) && c == '\\');
}

static int has_separator(const cl_loader_model *m, const char *name) {
  for (; *name; ++name)
    if (is_separator(m, *name))
      return 1;
  return 0;
}

const char *cl_resolve_base_name(const cl_loader_model *m, const char *path) {
  const char *base = path;
  for (const char *p = path; *p; ++p)
    if (is_separator(m, *p))
      base = p + 1;
  return base;
}

/* folder + separator + name, with no doubled separator; "" as the folder
 * gives name itself (glibc's empty search entry). */
/* The parts of a NULL-terminated list written one after another, malloc'ed
 * (NULL when out of memory): what "%s%s..." gives, without formatting, for
 * the texts every resolution makes (a model resolves hundreds of names per
 * verdict). */
static char *concat(const char *const *parts) {
  size_t total = 1;
  for (size_t i = 0; parts[i]; ++i)
    total += strlen(parts[i]);
  char *out = malloc(total);
  if (!out)
    return NULL;
  size_t at = 0;
  for (size_t i = 0; parts[i]; ++i) {
    size_t n = strlen(parts[i]);
    memcpy(out + at, parts[i], n);
    at += n;
  }
  out[at] = '\0';
  return out;
}

static char *join(const cl_loader_model *m, const char *folder,
                  const char *name) {
  size_t n = strlen(folder);
  if (n == 0)
    return cl_strdup(name);
  const char *sep = is_separator(m, folder[n - 1]) ? ""
                    : cl_resolve_is_windows(m)     ? "\\"
                                                   : "/";
  /* A Windows model on a POSIX host (the unit tests) names folders with
   * '/': keep the folder's own separator then. */
  if (cl_resolve_is_windows(m) && sep[0] && strchr(folder, '/') &&
      !strchr(folder, '\\'))
    sep = "/";
  size_t k = strlen(sep), len = strlen(name);
  char *out = malloc(n + k + len + 1);
  if (out) {
    memcpy(out, folder, n);
    memcpy(out + n, sep, k);
    memcpy(out + n + k, name, len + 1);
  }
  return out;
}

/* Whether a Windows-style name is absolute: a drive ("C:\", "C:/"), a UNC
 * or rooted path; on a Linux model, a leading '/'. */
int cl_resolve_is_absolute(const cl_loader_model *m, const char *path) {
  if (path[0] == '/')
    return 1;
  if (!cl_resolve_is_windows(m))
    return 0;
  if (path[0] == '\\')
    return 1;
  return ((path[0] >= 'A' && path[0] <= 'Z') ||
          (path[0] >= 'a' && path[0] <= 'z')) &&
         path[1] == ':' && (path[2] == '\\' || path[2] == '/');
}

/* The path the model looks at for a name relative to the current folder,
 * malloc'ed; NULL when the current folder is unknown (or no memory). */
char *cl_resolve_absolute_for_check(const cl_loader_model *m,
                                    const char *path) {
  if (cl_resolve_is_absolute(m, path))
    return cl_strdup(path);
  if (!m->current_dir)
    return NULL;
  return join(m, m->current_dir, path);
}

/* ------------------------------------------------------------------------ */
/* The model                                                                */
/* ------------------------------------------------------------------------ */

/* One ld.so.cache entry, kept in file order. */
typedef struct cache_entry {
  char *key, *path;
  size_t next; /* the next entry of the same key, or SIZE_MAX */
} cache_entry;

/* A search list as split for one object (glibc keeps an object's
 * decomposed RUNPATH with it, l_runpath_dirs): each name the object asks
 * for is searched in the same folders, and splitting a list of a thousand
 * folders again for each of its thousand names was quadratic. */
typedef struct split_list {
  char *key; /* separators, whose $ORIGIN, and the list */
  struct folder_list *dirs;
} split_list;

typedef struct model_private {
  int cache_read;
  cache_entry *entries;
  size_t entry_count, entry_capacity;
  size_t last_of_key; /* while reading: the previous entry's index */
  cl_str_index index; /* key -> first entry */
  int failed;
  split_list *splits;
  size_t split_count, split_capacity;
  cl_str_index split_index; /* key -> splits[] */
} model_private;

static void folder_list_release(struct folder_list *l);

static void private_free(void *cache) {
  model_private *p = cache;
  if (!p)
    return;
  for (size_t i = 0; i < p->entry_count; ++i) {
    free(p->entries[i].key);
    free(p->entries[i].path);
  }
  free(p->entries);
  cl_str_index_free(&p->index);
  for (size_t i = 0; i < p->split_count; ++i) {
    free(p->splits[i].key);
    folder_list_release(p->splits[i].dirs);
  }
  free(p->splits);
  cl_str_index_free(&p->split_index);
  free(p);
}

/* The model's private part, made on first use (NULL: no memory). */
static model_private *private_of(cl_loader_model *m) {
  model_private *p = m->cache;
  if (!p) {
    p = calloc(1, sizeof *p);
    if (!p)
      return NULL;
    cl_str_index_init(&p->index, 0);
    cl_str_index_init(&p->split_index, 0);
    m->cache = p;
    m->cache_free = private_free;
  }
  return p;
}

/* glibc's add_name_to_object: each name an object was opened by. */
int cl_resolve_add_name(cl_loader_model *m, size_t index, const char *name) {
  cl_loaded_object *o = &m->loaded[index];
  if (cl_resolve_names_equal(m, o->path, name))
    return CUDALOAD_OK;
  for (size_t i = 0; i < o->name_count; ++i)
    if (cl_resolve_names_equal(m, o->names[i], name))
      return CUDALOAD_OK;
  int status = cl_loader_model_append(&o->names, &o->name_count, name);
  if (status == CUDALOAD_OK)
    cl_resolve_memo_name_added(m->memo, index, o->names[o->name_count - 1]);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Resolutions                                                              */
/* ------------------------------------------------------------------------ */

void cl_resolution_free(cl_resolution *r) {
  if (!r)
    return;
  free(r->path);
  free(r->detail);
  for (size_t i = 0; i < r->step_count; ++i) {
    free(r->steps[i].folder);
    free(r->steps[i].file);
    free(r->steps[i].source);
    free(r->steps[i].outcome);
  }
  free(r->steps);
  memset(r, 0, sizeof *r);
  r->loaded_index = SIZE_MAX;
}

/* The state of one resolution in progress. */
typedef struct search {
  cl_loader_model *m;
  cl_resolution *out;
  size_t step_capacity;
  int failed;       /* memory */
  int done;         /* a file was taken, or a fatal file ended the search */
  char *taken_file; /* the file found (before the already-loaded check) */
  cl_resolve_rule taken_rule;
  char *taken_source;
  char *fatal;      /* why the search ended with an error */
  const char *name; /* the name searched for in folders */
} search;

/* Record a step; strings are copied (any may be NULL). */
static void add_step(search *s, cl_resolve_rule rule, cl_step_kind kind,
                     const char *folder, const char *file, const char *source,
                     const char *outcome) {
  if (s->failed)
    return;
  cl_resolve_memo_work(s->m->memo, 1);
  cl_resolution *r = s->out;
  if (cl_reserve((void **)&r->steps, &s->step_capacity, r->step_count + 1,
                 sizeof *r->steps) != CUDALOAD_OK) {
    s->failed = 1;
    return;
  }
  cl_resolve_step *st = &r->steps[r->step_count];
  memset(st, 0, sizeof *st);
  st->rule = rule;
  st->kind = kind;
  st->folder = folder ? cl_strdup(folder) : NULL;
  st->file = file ? cl_strdup(file) : NULL;
  st->source = source ? cl_strdup(source) : NULL;
  st->outcome = cl_strdup(outcome ? outcome : "");
  if ((folder && !st->folder) || (file && !st->file) ||
      (source && !st->source) || !st->outcome) {
    free(st->folder);
    free(st->file);
    free(st->source);
    free(st->outcome);
    s->failed = 1;
    return;
  }
  r->step_count++;
}

/* Whether the folder of `check` (an absolute path) does not exist. */
static int in_absent_folder(const cl_loader_model *m, cl_resolve_memo *memo,
                            const char *check) {
  const char *base = cl_resolve_base_name(m, check);
  if (base == check)
    return 0;
  size_t length = (size_t)(base - check) - 1;
  if (length == 0)
    return 0; /* the root folder */
  char *folder = cl_strndup(check, length);
  int absent = folder && cl_resolve_memo_folder_absent(memo, folder);
  /* Linux names are matched exactly: a folder's listing tells which it
   * does not hold (Windows matches them in any case: looked at). */
  if (folder && !absent && m->naming != CL_NAMING_WINDOWS)
    absent = cl_resolve_memo_name_absent(memo, folder, base);
  free(folder);
  return absent;
}

/*
 * Try one file. A taken file ends the search; a fatal one too, with the
 * load failing. Returns the verdict; `display` is the name the loader
 * gives the file (glibc's realname), `check` the path looked at.
 */
static cl_file_verdict try_file(search *s, cl_resolve_rule rule,
                                const char *folder, const char *display,
                                const char *source) {
  char *check = cl_resolve_absolute_for_check(s->m, display);
  if (!check) {
    /* A relative candidate with no known current folder. */
    add_step(s, rule, CL_STEP_SKIPPED, folder, display, source,
             CL_WORDS_RELATIVE_TO_A_CURRENT_FOLDER);
    return CL_FILE_ABSENT;
  }
  char *why = NULL;
  cl_resolve_memo *memo = cl_resolve_memo_of(s->m);
  cl_resolve_memo_work(memo, 1);
  /* A folder that does not exist holds nothing: it is looked at once per
   * model, as glibc marks a search folder "nonexisting" once, and each
   * name asked for later costs no stat there. */
  cl_file_verdict v = in_absent_folder(s->m, memo, check)
                          ? CL_FILE_ABSENT
                          : cl_file_verdict_of(s->m, check, &why);
  switch (v) {
  case CL_FILE_ABSENT:
    break;
  case CL_FILE_TAKEN:
    add_step(s, rule, CL_STEP_TAKEN, folder, check, source, "taken");
    free(s->taken_file);
    free(s->taken_source);
    s->taken_file = check;
    s->taken_source = source ? cl_strdup(source) : NULL;
    s->taken_rule = rule;
    s->done = 1;
    free(why);
    return v;
  case CL_FILE_SKIPPED:
    add_step(s, rule, CL_STEP_SKIPPED, folder, check, source,
             why ? why : "passed over");
    break;
  case CL_FILE_FATAL:
    add_step(s, rule, CL_STEP_FATAL, folder, check, source,
             why ? why : CL_WORDS_THE_LOAD_FAILS);
    free(s->fatal);
    s->fatal =
        cl_strdup_printf("%s: %s", check, why ? why : CL_WORDS_THE_LOAD_FAILS);
    s->done = 1;
    break;
  }
  free(why);
  free(check);
  return v;
}

/* ------------------------------------------------------------------------ */
/* Linux: dynamic string tokens and search lists                            */
/* ------------------------------------------------------------------------ */

/* glibc's is_dst: the length of the token at input (after '$'), braces
 * included, or 0 when input does not start with ref as a whole token. */
static size_t dst_length(const char *input, const char *ref) {
  int curly = 0;
  if (input[0] == '{') {
    curly = 1;
    ++input;
  }
  size_t len = strlen(ref);
  if (strncmp(input, ref, len) != 0)
    return 0;
  char next = input[len];
  if (curly && next != '}')
    return 0;
  if (!curly && ((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
                 (next >= '0' && next <= '9') || next == '_'))
    return 0;
  return curly ? len + 2 : len;
}

/* $ORIGIN: glibc's l_origin (elf/dl-object.c _dl_new_object): the folder of
 * the name the object was loaded as, not resolved through symlinks ("/"
 * for a file in the root; a relative name joined to the current folder);
 * for the executable, the folder of its real path (_dl_get_origin reads
 * /proc/self/exe). NULL when unknown. */
static char *origin_folder(const cl_loader_model *m, const cl_origin_of *o) {
  const char *path =
      o->is_exe || !o->path || !o->path[0] ? m->exe_path : o->path;
  if (!path)
    return NULL;
  char *full = NULL;
  if (path[0] == '/' || cl_resolve_is_absolute(m, path))
    full = cl_strdup(path);
  else if (m->current_dir)
    full = join(m, m->current_dir, path);
  if (!full)
    return NULL;
  char *cut = NULL;
  for (char *p = full; *p; ++p)
    if (is_separator(m, *p))
      cut = p;
  if (!cut) {
    free(full);
    return NULL;
  }
  if (cut == full)
    cut[1] = '\0'; /* keep the only, leading slash */
  else
    cut[0] = '\0';
  return full;
}

/* glibc's is_trusted_path_normalize: after $ORIGIN in a secure process,
 * the normalised folder must lie in one of the default folders. */
static int trusted_after_normalising(const cl_loader_model *m,
                                     const char *path) {
  if (path[0] != '/')
    return 0;
  size_t n = strlen(path);
  char *norm = malloc(n + 2);
  if (!norm)
    return 0;
  size_t w = 0;
  const char *p = path;
  while (*p) {
    while (*p == '/')
      ++p;
    const char *seg = p;
    while (*p && *p != '/')
      ++p;
    size_t len = (size_t)(p - seg);
    if (len == 0 || (len == 1 && seg[0] == '.'))
      continue;
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      while (w > 0 && norm[w - 1] != '/')
        --w;
      if (w > 0)
        --w;
      continue;
    }
    norm[w++] = '/';
    memcpy(norm + w, seg, len);
    w += len;
  }
  norm[w++] = '/';
  norm[w] = '\0';
  int trusted = 0;
  for (size_t i = 0; i < m->default_dir_count && !trusted; ++i) {
    const char *d = m->default_dirs[i];
    size_t dl = strlen(d);
    while (dl > 1 && d[dl - 1] == '/')
      --dl;
    trusted = strncmp(norm, d, dl) == 0 && (norm[dl] == '/' || dl == 1);
  }
  free(norm);
  return trusted;
}

/*
 * glibc's _dl_dst_substitute (elf/dl-load.c): $ORIGIN, $PLATFORM and $LIB,
 * bare or in braces, followed by no identifier character. A token whose
 * value is unknown, and $ORIGIN anywhere but at the start of the entry in
 * a secure process, discard the whole entry (""); an unknown token such as
 * $FOO stays as written. Returns a malloc'ed string, or NULL for no memory.
 */
char *cl_resolve_expand_dst(const cl_loader_model *m, const char *input,
                            const cl_origin_of *o) {
  cl_buf t = CL_BUF_INIT;
  const char *start = input;
  int check_trusted = 0;
  const char *p = input;
  char *origin = NULL;
  int origin_done = 0;
  while (*p) {
    if (*p != '$') {
      cl_buf_append(&t, p, 1);
      ++p;
      continue;
    }
    ++p;
    size_t len;
    const char *repl = NULL;
    int known = 1;
    if ((len = dst_length(p, "ORIGIN")) != 0) {
      if (m->secure && !(p == start + 1 && (p[len] == '\0' || p[len] == '/'))) {
        repl = NULL;
      } else {
        if (!origin_done) {
          origin = origin_folder(m, o);
          origin_done = 1;
        }
        repl = origin;
      }
      check_trusted = m->secure && o->is_exe;
    } else if ((len = dst_length(p, "PLATFORM")) != 0) {
      repl = m->platform_token;
    } else if ((len = dst_length(p, "LIB")) != 0) {
      repl = m->lib_token;
    } else {
      known = 0;
    }
    if (known && repl) {
      cl_buf_puts(&t, repl);
      p += len;
    } else if (known) {
      free(origin);
      cl_buf_free(&t);
      return cl_strdup("");
    } else {
      cl_buf_puts(&t, "$");
    }
  }
  free(origin);
  char *result = cl_buf_take(&t);
  if (result && check_trusted && !trusted_after_normalising(m, result)) {
    free(result);
    return cl_strdup("");
  }
  return result;
}

/* A search list: folders in order, each once. */
typedef struct folder_list {
  char **dirs;
  size_t count, capacity;
} folder_list;

static void folder_list_free(folder_list *l) {
  for (size_t i = 0; i < l->count; ++i)
    free(l->dirs[i]);
  free(l->dirs);
  memset(l, 0, sizeof *l);
}

static void folder_list_release(folder_list *l) {
  if (l)
    folder_list_free(l);
  free(l);
}

/*
 * glibc's fillin_rpath: split at the separators; an empty entry stays as
 * "" (the current folder: the loader then opens a relative name); tokens
 * expanded; an entry empty after expansion is dropped; trailing slashes
 * removed (except "/"); a folder already in the list is not added again.
 * 0 or CUDALOAD_E_NO_MEMORY.
 */
static int split_search_list(const cl_loader_model *m, const char *list,
                             const char *separators, const cl_origin_of *o,
                             folder_list *out) {
  const char *p = list;
  for (;;) {
    size_t len = strcspn(p, separators);
    char *entry = cl_strndup(p, len);
    if (!entry)
      return CUDALOAD_E_NO_MEMORY;
    char *dir = entry;
    if (entry[0] != '\0') {
      dir = cl_resolve_expand_dst(m, entry, o);
      free(entry);
      if (!dir)
        return CUDALOAD_E_NO_MEMORY;
      size_t n = strlen(dir);
      if (n == 0) {
        free(dir);
        dir = NULL;
      } else {
        while (n > 1 && dir[n - 1] == '/')
          dir[--n] = '\0';
      }
    }
    if (dir) {
      int seen = 0;
      for (size_t i = 0; i < out->count && !seen; ++i)
        seen = strcmp(out->dirs[i], dir) == 0;
      if (seen) {
        free(dir);
      } else if (cl_reserve((void **)&out->dirs, &out->capacity, out->count + 1,
                            sizeof *out->dirs) != CUDALOAD_OK) {
        free(dir);
        return CUDALOAD_E_NO_MEMORY;
      } else {
        out->dirs[out->count++] = dir;
      }
    }
    if (p[len] == '\0')
      break;
    p += len + 1;
  }
  return CUDALOAD_OK;
}

int cl_resolve_expand_list(const cl_loader_model *m, const char *list,
                           const char *separators, const char *object_path,
                           char ***dirs, size_t *count) {
  folder_list l = {0};
  *dirs = NULL;
  *count = 0;
  if (!m || !list || !separators)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no model or list given");
  cl_origin_of o = {object_path,
                    !object_path ||
                        (m->exe_path && strcmp(object_path, m->exe_path) == 0)};
  if (split_search_list(m, list, separators, &o, &l) != CUDALOAD_OK) {
    folder_list_free(&l);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
  }
  *dirs = l.dirs;
  *count = l.count;
  return CUDALOAD_OK;
}

/* How many folders glibc makes of a search list (the seam needs it to find
 * where the default folders begin in what the loader lists). */
static size_t count_search_list(const cl_loader_model *m, const char *list,
                                const char *separators) {
  if (!list || !list[0])
    return 0;
  /* As cl_resolve_expand_list for the executable, which writes no last
   * error: out of memory counts none. */
  cl_origin_of o = {NULL, 1};
  folder_list dirs = {0};
  size_t count =
      split_search_list(m, list, separators, &o, &dirs) == CUDALOAD_OK
          ? dirs.count
          : 0;
  folder_list_free(&dirs);
  return count;
}

int cl_loader_model_init_system(cl_loader_model *m) {
  if (!m)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no model given");
  memset(m, 0, sizeof *m);
  int status = cl_os_loader_defaults(m, count_search_list);
  if (status != CUDALOAD_OK)
    cl_loader_model_free(m);
  return status;
}

int cl_loader_model_init_host(cl_loader_model *m) {
  int status = cl_loader_model_init_system(m);
  if (status == CUDALOAD_OK) {
    status = cl_os_loader_process(m);
    if (status != CUDALOAD_OK)
      cl_loader_model_free(m);
  }
  return status;
}

int cl_loader_model_init_host_quiet(cl_loader_model *m) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_loader_model_init_host(m);
  cl_asking_end(&a);
  return status;
}

int cl_loader_model_init_system_quiet(cl_loader_model *m) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_loader_model_init_system(m);
  cl_asking_end(&a);
  return status;
}

/*
 * glibc's open_path: each folder of the list in order, and in each the
 * hwcaps subfolders first (glibc-hwcaps/<level>/, then the legacy
 * tls/<platform>/... set, then the folder itself), until a file is taken
 * or a fatal one ends the search. A folder where nothing of the name
 * exists is one "absent" step.
 */
static void search_folders(search *s, cl_resolve_rule rule,
                           const folder_list *dirs, const char *source) {
  const cl_loader_model *m = s->m;
  static const char *const no_subdirs[] = {""};
  const char *const *subdirs = m->hwcaps_subdir_count
                                   ? (const char *const *)m->hwcaps_subdirs
                                   : no_subdirs;
  size_t subdir_count = m->hwcaps_subdir_count ? m->hwcaps_subdir_count : 1;
  cl_resolve_memo *memo = cl_resolve_memo_of(s->m);
  for (size_t i = 0; i < dirs->count && !s->done && !s->failed; ++i) {
    size_t steps_before = s->out->step_count;
    /* A folder that does not exist has no hwcaps subfolders either. */
    int absent = cl_resolve_is_absolute(m, dirs->dirs[i]) &&
                 cl_resolve_memo_folder_absent(memo, dirs->dirs[i]);
    cl_resolve_memo_work(memo, 1);
    for (size_t c = 0; c < subdir_count && !absent && !s->done && !s->failed;
         ++c) {
      /* glibc writes dirname + "/" + capstr + name; "" stays relative. */
      char *rel = concat((const char *const[]){subdirs[c], s->name, NULL});
      char *candidate = rel ? join(m, dirs->dirs[i], rel) : NULL;
      free(rel);
      if (!candidate) {
        s->failed = 1;
        break;
      }
      try_file(s, rule, dirs->dirs[i][0] ? dirs->dirs[i] : ".", candidate,
               source);
      free(candidate);
    }
    if (!s->done && !s->failed && s->out->step_count == steps_before)
      add_step(s, rule, CL_STEP_ABSENT, dirs->dirs[i][0] ? dirs->dirs[i] : ".",
               NULL, source, "absent");
  }
}

/* The RPATH glibc uses for an object: none when it has DT_RUNPATH (elf/
 * get-dynamic-info.h drops DT_RPATH then). */
static const char *effective_rpath(const cl_binary_info *info) {
  if (!info || (info->runpath && info->runpath[0]))
    return NULL;
  return info->rpath && info->rpath[0] ? info->rpath : NULL;
}

int cl_resolve_requester_is_exe(const cl_loader_model *m,
                                const cl_requester *r) {
  return r && m->exe_path && r->path && strcmp(r->path, m->exe_path) == 0;
}

/* ------------------------------------------------------------------------ */
/* Linux: ld.so.cache                                                       */
/* ------------------------------------------------------------------------ */

static void cache_visit(const char *key, const char *path, void *opaque) {
  model_private *p = opaque;
  if (p->failed)
    return;
  if (cl_reserve((void **)&p->entries, &p->entry_capacity, p->entry_count + 1,
                 sizeof *p->entries) != CUDALOAD_OK) {
    p->failed = 1;
    return;
  }
  cache_entry *e = &p->entries[p->entry_count];
  e->key = cl_strdup(key);
  e->path = cl_strdup(path);
  e->next = SIZE_MAX;
  if (!e->key || !e->path) {
    free(e->key);
    free(e->path);
    p->failed = 1;
    return;
  }
  p->entry_count++;
}

/* Index the cache once per model: ldconfig sorts the entries, so those of
 * one name lie together; each name points at its first. */
static model_private *model_cache(cl_loader_model *m) {
  model_private *p = private_of(m);
  if (!p || p->cache_read || !m->ld_so_cache)
    return p;
  p->cache_read = 1;
  /* A missing or damaged cache is one the loader cannot use either. */
  cl_ldcache_read_cached_quiet(m->files, m->ld_so_cache, cache_visit, p);
  for (size_t i = 0; i < p->entry_count && !p->failed; ++i) {
    size_t first;
    if (cl_str_index_find(&p->index, p->entries[i].key, &first)) {
      size_t last = first;
      while (p->entries[last].next != SIZE_MAX)
        last = p->entries[last].next;
      p->entries[last].next = i;
    } else if (cl_str_index_add(&p->index, p->entries[i].key, i) !=
               CUDALOAD_OK) {
      p->failed = 1;
    }
  }
  return p;
}

/* The subfolder rank of a glibc-hwcaps cache entry ("/glibc-hwcaps/<x>/"
 * in its path) among the model's subfolders, or SIZE_MAX when the entry is
 * not one or its level is not active. *is_hwcaps tells which. */
static size_t hwcaps_rank(const cl_loader_model *m, const char *path,
                          int *is_hwcaps) {
  const char *at = strstr(path, "/glibc-hwcaps/");
  *is_hwcaps = at != NULL;
  if (!at)
    return SIZE_MAX;
  const char *sub = at + 1;
  const char *end = strchr(at + 14, '/');
  if (!end)
    return SIZE_MAX;
  size_t len = (size_t)(end - sub) + 1;
  for (size_t i = 0; i < m->hwcaps_subdir_count; ++i)
    if (strlen(m->hwcaps_subdirs[i]) == len &&
        strncmp(m->hwcaps_subdirs[i], sub, len) == 0)
      return i;
  return SIZE_MAX;
}

/* glibc's _dl_load_cache_lookup (elf/dl-cache.c): of the entries of the
 * name, the glibc-hwcaps one of the best active level, else the first
 * plain one. NULL when the cache has none. */
static const char *cache_lookup(cl_loader_model *m, const char *name) {
  model_private *p = model_cache(m);
  size_t i;
  if (!p || !cl_str_index_find(&p->index, name, &i))
    return NULL;
  const char *plain = NULL, *best = NULL;
  size_t best_rank = SIZE_MAX;
  for (; i != SIZE_MAX; i = p->entries[i].next) {
    int is_hwcaps;
    size_t rank = hwcaps_rank(m, p->entries[i].path, &is_hwcaps);
    if (!is_hwcaps) {
      if (!plain)
        plain = p->entries[i].path;
    } else if (rank < best_rank) {
      best_rank = rank;
      best = p->entries[i].path;
    }
  }
  return best ? best : plain;
}

/* With DF_1_NODEFLIB, glibc refuses a cache entry whose path starts with a
 * default folder (a plain prefix test on "folder/"). */
static const char *under_default_dir(const cl_loader_model *m,
                                     const char *path) {
  for (size_t i = 0; i < m->default_dir_count; ++i) {
    const char *d = m->default_dirs[i];
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
      --n;
    if (strncmp(path, d, n) == 0 && (path[n] == '/' || n == 1))
      return d;
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Already loaded                                                           */
/* ------------------------------------------------------------------------ */

/* glibc's _dl_map_object starts here: a loaded object whose l_name, one of
 * its l_libname names, or its SONAME is the name asked for. */
static size_t loaded_by_name_linux(cl_loader_model *m, const char *name) {
  /* An index of every name, kept in step with the list (resolve_memo.c). */
  return cl_resolve_memo_loaded_by_name(cl_resolve_memo_of(m), m, name);
}

/* After the file is found: glibc compares its st_dev/st_ino with every
 * loaded object's (_dl_map_object_from_fd, "Look again to see if the real
 * name matched another already loaded"). Each loaded object is stat'ed
 * once per model, not once per file found. */
static size_t loaded_same_file(cl_loader_model *m, const char *file) {
  cl_file_identity id;
  if (!cl_os_file_identity(file, &id))
    return SIZE_MAX;
  return cl_resolve_memo_loaded_by_identity(cl_resolve_memo_of(m), m, &id,
                                            cl_resolve_absolute_for_check);
}

/* ------------------------------------------------------------------------ */
/* Linux: the search                                                        */
/* ------------------------------------------------------------------------ */

/* The loaded-object list first: an object loaded under that name (or
 * SONAME) is reused. Returns 1 when it answered. */
static int linux_already_loaded(search *s, const char *name) {
  cl_loader_model *m = s->m;
  cl_resolution *out = s->out;
  size_t hit = loaded_by_name_linux(m, name);
  if (hit == SIZE_MAX)
    return 0;
  out->rule = CL_RULE_ALREADY_LOADED;
  out->loaded_index = hit;
  out->path = cl_strdup(m->loaded[hit].path);
  const char *path = m->loaded[hit].path, *soname = m->loaded[hit].soname;
  if (soname && strcmp(soname, name) == 0)
    out->detail = concat((const char *const[]){"loaded as ", path, " (SONAME ",
                                               soname, ")", NULL});
  else
    out->detail = concat((const char *const[]){"loaded as ", path, NULL});
  add_step(s, CL_RULE_ALREADY_LOADED, CL_STEP_TAKEN, NULL, m->loaded[hit].path,
           NULL, out->detail);
  if (!out->path || !out->detail)
    s->failed = 1;
  return 1;
}

/* A name with a '/': "The path may contain dynamic string tokens":
 * expanded for the requester; then opened as written (relative: from the
 * current folder). */
static void linux_as_given(search *s, const cl_requester *req, const char *name,
                           const cl_origin_of *req_origin) {
  char *given =
      req ? cl_resolve_expand_dst(s->m, name, req_origin) : cl_strdup(name);
  if (!given) {
    s->failed = 1;
    return;
  }
  try_file(s, CL_RULE_AS_GIVEN, NULL, given, NULL);
  if (!s->done)
    add_step(s, CL_RULE_AS_GIVEN, CL_STEP_ABSENT, NULL, given, NULL, "absent");
  free(given);
}

/* Split `list` (tokens expanding for `origin`) and search its folders under
 * `rule`; a list that cannot be split fails the search. Returns how many
 * folders the list held. */
/* The folders of `list` for `origin`, split once per model and kept
 * there; NULL when out of memory. */
static const folder_list *split_once(cl_loader_model *m, const char *list,
                                     const char *separators,
                                     const cl_origin_of *origin) {
  model_private *p = private_of(m);
  char *key = cl_strdup_printf("%s\n%d\n%s\n%s", separators, origin->is_exe,
                               origin->path ? origin->path : "", list);
  size_t at;
  if (!p || !key) {
    free(key);
    return NULL;
  }
  if (cl_str_index_find(&p->split_index, key, &at)) {
    free(key);
    return p->splits[at].dirs;
  }
  folder_list *dirs = calloc(1, sizeof *dirs);
  if (!dirs || split_search_list(m, list, separators, origin, dirs) ||
      cl_reserve((void **)&p->splits, &p->split_capacity, p->split_count + 1,
                 sizeof *p->splits) ||
      cl_str_index_add(&p->split_index, key, p->split_count)) {
    folder_list_release(dirs);
    free(key);
    return NULL;
  }
  p->splits[p->split_count].key = key;
  p->splits[p->split_count].dirs = dirs;
  p->split_count++;
  return dirs;
}

static size_t search_list(search *s, cl_resolve_rule rule, const char *list,
                          const char *separators, const cl_origin_of *origin,
                          const char *source) {
  const folder_list *dirs = split_once(s->m, list, separators, origin);
  if (!dirs)
    s->failed = 1;
  else
    search_folders(s, rule, dirs, source);
  return s->failed ? 0 : dirs->count;
}

/* 1. DT_RPATH along the loader chain, then the executable's (unless the
 *    chain already held it); only when the requester has no DT_RUNPATH. */
static void search_rpath(search *s, const cl_requester *req, int has_runpath) {
  cl_loader_model *m = s->m;
  if (has_runpath) {
    if (req->info->rpath && req->info->rpath[0])
      add_step(s, CL_RULE_RPATH, CL_STEP_SKIPPED, NULL, NULL, req->path,
               CL_WORDS_NOT_SEARCHED_THE_REQUESTER_HAS);
    return;
  }
  int did_exe = 0;
  for (const cl_requester *l = req; l && !s->done && !s->failed;
       l = l->loader) {
    const char *rpath = effective_rpath(l->info);
    if (!rpath)
      continue;
    cl_origin_of o = {l->path, cl_resolve_requester_is_exe(m, l)};
    if (search_list(s, CL_RULE_RPATH, rpath, ":", &o, l->path))
      did_exe |= cl_resolve_requester_is_exe(m, l);
  }
  if (!s->done && !s->failed && !did_exe && m->exe_path && m->exe_rpath &&
      m->exe_rpath[0]) {
    cl_origin_of o = {m->exe_path, 1};
    search_list(s, CL_RULE_RPATH, m->exe_rpath, ":", &o, m->exe_path);
  }
}

/* 2. LD_LIBRARY_PATH (':' and ';' both separate), unless secure. Its
 *    tokens expand for the executable. */
static void search_ld_library_path(search *s) {
  cl_loader_model *m = s->m;
  if (s->done || s->failed || !m->ld_library_path || !m->ld_library_path[0])
    return;
  if (m->secure) {
    add_step(s, CL_RULE_LD_LIBRARY_PATH, CL_STEP_SKIPPED, NULL, NULL, NULL,
             "ignored: secure-execution process");
    return;
  }
  cl_origin_of o = {m->exe_path, 1};
  search_list(s, CL_RULE_LD_LIBRARY_PATH, m->ld_library_path, ":;", &o, NULL);
}

/* 4. /etc/ld.so.cache; an entry under a default folder is refused when the
 *    requester has DF_1_NODEFLIB. */
static void search_ld_so_cache(search *s, const char *name, int nodeflib) {
  cl_loader_model *m = s->m;
  if (s->done || s->failed || !m->ld_so_cache)
    return;
  const char *cached = cache_lookup(m, name);
  if (!cached) {
    add_step(s, CL_RULE_LD_SO_CACHE, CL_STEP_ABSENT, NULL, NULL, m->ld_so_cache,
             "no entry");
  } else if (nodeflib && under_default_dir(m, cached)) {
    add_step(s, CL_RULE_LD_SO_CACHE, CL_STEP_SKIPPED, NULL, cached,
             m->ld_so_cache, CL_WORDS_ENTRY_UNDER_A_DEFAULT_FOLDER);
  } else {
    char *copy = cl_strdup(cached); /* the index may not outlive a step */
    if (!copy)
      s->failed = 1;
    else
      try_file(s, CL_RULE_LD_SO_CACHE, NULL, copy, m->ld_so_cache);
    free(copy);
  }
}

/* 5. The default folders, unless DF_1_NODEFLIB. */
static void search_default_dirs(search *s, int nodeflib) {
  if (s->done || s->failed)
    return;
  if (nodeflib) {
    add_step(s, CL_RULE_DEFAULT_DIRS, CL_STEP_SKIPPED, NULL, NULL, NULL,
             CL_WORDS_NOT_SEARCHED_THE_REQUESTER_HAS_DF);
    return;
  }
  folder_list dirs = {s->m->default_dirs, s->m->default_dir_count, 0};
  search_folders(s, CL_RULE_DEFAULT_DIRS, &dirs, NULL);
}

/* glibc's _dl_map_object: what is loaded, a name with a '/', then the
 * search in the loader's order. */
static void resolve_linux(search *s, const cl_requester *req,
                          const char *name) {
  if (linux_already_loaded(s, name))
    return;
  cl_origin_of req_origin = {req ? req->path : NULL,
                             cl_resolve_requester_is_exe(s->m, req)};
  if (strchr(name, '/')) {
    linux_as_given(s, req, name, &req_origin);
    return;
  }
  s->name = name;
  int nodeflib = req && req->info ? req->info->nodeflib : 0;
  int has_runpath =
      req && req->info && req->info->runpath && req->info->runpath[0];
  search_rpath(s, req, has_runpath);
  search_ld_library_path(s);
  /* 3. DT_RUNPATH of the requester itself (never inherited). */
  if (!s->done && !s->failed && has_runpath)
    search_list(s, CL_RULE_RUNPATH, req->info->runpath, ":", &req_origin,
                req->path);
  search_ld_so_cache(s, name, nodeflib);
  search_default_dirs(s, nodeflib);
}

/* ------------------------------------------------------------------------ */
/* Windows: the search                                                      */
/* ------------------------------------------------------------------------ */

#define CL_SEARCH_MASK                                                         \
  (CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |                                       \
   CL_LOAD_LIBRARY_SEARCH_APPLICATION_DIR | CL_LOAD_LIBRARY_SEARCH_USER_DIRS | \
   CL_LOAD_LIBRARY_SEARCH_SYSTEM32 | CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS)

/* Try `name` in one folder (a missing folder setting is skipped). */
static void search_one_folder(search *s, cl_resolve_rule rule,
                              const char *folder, const char *name,
                              const char *source) {
  if (s->done || s->failed || !folder || !folder[0])
    return;
  char *candidate = join(s->m, folder, name);
  if (!candidate) {
    s->failed = 1;
    return;
  }
  size_t before = s->out->step_count;
  try_file(s, rule, folder, candidate, source);
  if (!s->done && s->out->step_count == before)
    add_step(s, rule, CL_STEP_ABSENT, folder, NULL, source, "absent");
  free(candidate);
}

static int is_known_dll(const cl_loader_model *m, const char *name) {
  for (size_t i = 0; i < m->known_dll_count; ++i)
    if (cl_resolve_names_equal(m, m->known_dlls[i], name))
      return 1;
  return 0;
}

/* LoadLibrary's name rules: no extension means ".dll" is appended; a
 * trailing '.' means "no extension" and is dropped. */
static char *windows_module_name(const cl_loader_model *m, const char *name) {
  const char *base = cl_resolve_base_name(m, name);
  size_t n = strlen(name);
  if (n && name[n - 1] == '.')
    return cl_strndup(name, n - 1);
  if (!strchr(base, '.'))
    return cl_strdup_printf("%s.dll", name);
  return cl_strdup(name);
}

/* A full path: that file; a module loaded from that very path is reused,
 * one of the same base name from elsewhere is not. */
static void windows_full_path(search *s, const char *name) {
  cl_loader_model *m = s->m;
  cl_resolution *out = s->out;
  for (size_t i = 0; i < m->loaded_count; ++i) {
    if (cl_resolve_names_equal(m, m->loaded[i].path, name)) {
      out->rule = CL_RULE_ALREADY_LOADED;
      out->loaded_index = i;
      out->path = cl_strdup(m->loaded[i].path);
      out->detail = cl_strdup_printf("loaded as %s", m->loaded[i].path);
      add_step(s, CL_RULE_ALREADY_LOADED, CL_STEP_TAKEN, NULL,
               m->loaded[i].path, NULL, out->detail);
      return;
    }
  }
  try_file(s, CL_RULE_AS_GIVEN, NULL, name, NULL);
  if (!s->done)
    add_step(s, CL_RULE_AS_GIVEN, CL_STEP_ABSENT, NULL, name, NULL, "absent");
}

/* What answers a bare module name before any folder is searched: an API
 * set, a loaded module of that base name, a KnownDLL. Returns 1 when one
 * answered. */
static int windows_before_folders(search *s, const char *name,
                                  const char *base) {
  cl_loader_model *m = s->m;
  cl_resolution *out = s->out;
  /* API sets come before everything ("Dynamic-Link Library Search Order",
   * "Factors that affect searching"). */
  if (cl_starts_with_nocase(name, "api-") ||
      cl_starts_with_nocase(name, "ext-")) {
    out->rule = CL_RULE_API_SET;
    out->detail = cl_strdup_printf(CL_WORDS_IS_AN_API_SET_CONTRACT, name);
    add_step(s, CL_RULE_API_SET, CL_STEP_TAKEN, NULL, NULL, NULL, "API set");
    return 1;
  }
  /* The loaded-module list: by module (base) name, wherever it was loaded
   * from. */
  for (size_t i = 0; i < m->loaded_count; ++i) {
    const cl_loaded_object *o = &m->loaded[i];
    if (cl_resolve_names_equal(m, cl_resolve_base_name(m, o->path), base) ||
        cl_resolve_names_equal(m, o->soname, base)) {
      out->rule = CL_RULE_ALREADY_LOADED;
      out->loaded_index = i;
      out->path = cl_strdup(o->path);
      out->detail =
          cl_strdup_printf(CL_WORDS_A_MODULE_NAMED_IS_LOADED, base, o->path);
      add_step(s, CL_RULE_ALREADY_LOADED, CL_STEP_TAKEN, NULL, o->path, NULL,
               out->detail);
      return 1;
    }
  }
  if (m->system32 && is_known_dll(m, base)) {
    out->rule = CL_RULE_KNOWN_DLL;
    out->path = join(m, m->system32, base);
    out->detail = cl_strdup_printf(CL_WORDS_IS_A_KNOWNDLL_ITS_SYSTEM32, base);
    add_step(s, CL_RULE_KNOWN_DLL, CL_STEP_TAKEN, m->system32, out->path, NULL,
             "taken");
    return 1;
  }
  return 0;
}

/* "Search order using LOAD_LIBRARY_SEARCH flags". */
static void search_by_flags(search *s, const char *name, unsigned effective,
                            const char *load_dir) {
  cl_loader_model *m = s->m;
  if (effective & CL_LOAD_LIBRARY_SEARCH_DEFAULT_DIRS)
    effective |= CL_LOAD_LIBRARY_SEARCH_APPLICATION_DIR |
                 CL_LOAD_LIBRARY_SEARCH_USER_DIRS |
                 CL_LOAD_LIBRARY_SEARCH_SYSTEM32;
  if (effective & CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)
    search_one_folder(s, CL_RULE_DLL_LOAD_DIR, load_dir, name, NULL);
  if (effective & CL_LOAD_LIBRARY_SEARCH_APPLICATION_DIR)
    search_one_folder(s, CL_RULE_APP_DIR, m->app_dir, name, NULL);
  if (effective & CL_LOAD_LIBRARY_SEARCH_USER_DIRS) {
    for (size_t i = 0; i < m->user_dir_count; ++i)
      search_one_folder(s, CL_RULE_USER_DIRS, m->user_dirs[i], name,
                        "AddDllDirectory");
    search_one_folder(s, CL_RULE_USER_DIRS, m->dll_directory, name,
                      "SetDllDirectory");
  }
  if (effective & CL_LOAD_LIBRARY_SEARCH_SYSTEM32)
    search_one_folder(s, CL_RULE_SYSTEM32, m->system32, name, NULL);
}

/* The folders of PATH, in order (';' separates). */
static void search_path_variable(search *s, const char *name) {
  const char *p = s->m->path;
  while (!s->done && !s->failed) {
    size_t len = strcspn(p, ";");
    if (len > 0) {
      char *entry = cl_strndup(p, len);
      if (!entry) {
        s->failed = 1;
        break;
      }
      search_one_folder(s, CL_RULE_PATH_VARIABLE, entry, name,
                        cl_resolve_search_variable(CL_NAMING_WINDOWS));
      free(entry);
    }
    if (p[len] == '\0')
      break;
    p += len + 1;
  }
}

/* "Standard search order for unpackaged apps"; with
 * LOAD_WITH_ALTERED_SEARCH_PATH the DLL's own folder takes the application
 * folder's place; SetDllDirectory puts its folder second and removes the
 * current folder. */
static void search_standard_order(search *s, const char *name, unsigned flags,
                                  const char *load_dir) {
  cl_loader_model *m = s->m;
  if ((flags & CL_LOAD_WITH_ALTERED_SEARCH_PATH) && load_dir)
    search_one_folder(s, CL_RULE_DLL_LOAD_DIR, load_dir, name, NULL);
  else
    search_one_folder(s, CL_RULE_APP_DIR, m->app_dir, name, NULL);
  if (m->dll_directory)
    search_one_folder(s, CL_RULE_USER_DIRS, m->dll_directory, name,
                      "SetDllDirectory");
  else if (!m->safe_dll_search_mode)
    search_one_folder(s, CL_RULE_CURRENT_DIR, m->current_dir, name, NULL);
  search_one_folder(s, CL_RULE_SYSTEM32, m->system32, name, NULL);
  search_one_folder(s, CL_RULE_SYSTEM, m->system_dir, name, NULL);
  search_one_folder(s, CL_RULE_WINDOWS_DIR, m->windows_dir, name, NULL);
  if (!m->dll_directory && m->safe_dll_search_mode)
    search_one_folder(s, CL_RULE_CURRENT_DIR, m->current_dir, name, NULL);
  if (m->path)
    search_path_variable(s, name);
}

/* LoadLibraryEx: a full path, what answers before the folders, then the
 * folders the flags (or the process's default flags) choose. */
static void resolve_windows(search *s, const char *name_in, unsigned flags,
                            const char *load_dir) {
  cl_loader_model *m = s->m;
  char *name = windows_module_name(m, name_in);
  if (!name) {
    s->failed = 1;
    return;
  }
  if (cl_resolve_is_absolute(m, name)) {
    windows_full_path(s, name);
  } else if (has_separator(m, name) ||
             !windows_before_folders(s, name, cl_resolve_base_name(m, name))) {
    unsigned effective = flags;
    if (!(effective & CL_SEARCH_MASK) && m->default_search_flags)
      effective = m->default_search_flags | (flags & ~CL_SEARCH_MASK);
    if (effective & CL_SEARCH_MASK)
      search_by_flags(s, name, effective, load_dir);
    else
      search_standard_order(s, name, flags, load_dir);
  }
  free(name);
}

/* ------------------------------------------------------------------------ */
/* One resolution                                                           */
/* ------------------------------------------------------------------------ */

/* The folder of the DLL at the root of a Windows load (the one
 * LoadLibraryEx was given), whose static imports may search it. */
char *cl_resolve_folder_of(const cl_loader_model *m, const char *path) {
  cl_origin_of o = {path, 0};
  return path ? origin_folder(m, &o) : NULL;
}

/* A file was found: the loader takes it, unless it is the file of an
 * object already loaded (glibc compares st_dev/st_ino). */
static void take_found_file(search *s) {
  cl_loader_model *m = s->m;
  cl_resolution *out = s->out;
  size_t same =
      cl_resolve_is_windows(m) ? SIZE_MAX : loaded_same_file(m, s->taken_file);
  free(out->path);
  free(out->detail);
  out->detail = NULL;
  if (same != SIZE_MAX) {
    out->rule = CL_RULE_ALREADY_LOADED;
    out->loaded_index = same;
    out->path = cl_strdup(m->loaded[same].path);
    out->detail = cl_strdup_printf(CL_WORDS_FOUND_BY_IS_THE_FILE, s->taken_file,
                                   cl_resolve_rule_name(s->taken_rule),
                                   m->loaded[same].path);
    add_step(s, CL_RULE_ALREADY_LOADED, CL_STEP_TAKEN, NULL,
             m->loaded[same].path, NULL, CL_WORDS_THE_SAME_FILE_IS_LOADED);
  } else {
    out->rule = s->taken_rule;
    out->path = cl_strdup(s->taken_file);
    out->detail =
        s->taken_source
            ? cl_strdup_printf("%s of %s", cl_resolve_rule_name(s->taken_rule),
                               s->taken_source)
            : cl_strdup(cl_resolve_rule_name(s->taken_rule));
  }
  if (!out->path || !out->detail)
    s->failed = 1;
}

/* Nothing taken: why (a fatal file, only files passed over, none). */
static void explain_not_found(search *s, const char *name) {
  cl_resolution *out = s->out;
  free(out->path);
  out->path = NULL;
  free(out->detail);
  if (s->fatal)
    out->detail = cl_strdup_printf(CL_WORDS_THE_LOAD_FAILS_WITH, s->fatal);
  else if (out->step_count &&
           out->steps[out->step_count - 1].kind == CL_STEP_SKIPPED &&
           !cl_resolve_is_windows(s->m))
    out->detail = cl_strdup(CL_WORDS_NOT_FOUND_FILES_OF_ANOTHER);
  else
    out->detail = cl_strdup_printf("%s not found", name);
  if (!out->detail)
    s->failed = 1;
}

int cl_resolve_with(cl_loader_model *m, const cl_requester *req,
                    const char *name, unsigned flags, const char *load_dir,
                    cl_resolution *out) {
  memset(out, 0, sizeof *out);
  out->loaded_index = SIZE_MAX;
  if (!m || !name || !name[0])
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no model or name given");
  search s;
  memset(&s, 0, sizeof s);
  s.m = m;
  s.out = out;
  if (cl_resolve_is_windows(m))
    resolve_windows(&s, name, flags, load_dir);
  else
    resolve_linux(&s, req, name);
  if (!s.failed && out->rule == CL_RULE_NOT_FOUND && s.taken_file)
    take_found_file(&s);
  else if (!s.failed && out->rule == CL_RULE_NOT_FOUND)
    explain_not_found(&s, name);
  free(s.taken_file);
  free(s.taken_source);
  free(s.fatal);
  if (s.failed) {
    cl_resolution_free(out);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
  }
  return CUDALOAD_OK;
}

int cl_resolve(cl_loader_model *m, const cl_requester *req, const char *name,
               cl_resolution *out) {
  if (!out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no resolution given");
  char *load_dir = NULL;
  if (m && cl_resolve_is_windows(m) && req) {
    const cl_requester *root = req;
    while (root->loader)
      root = root->loader;
    load_dir = cl_resolve_folder_of(m, root->path);
  }
  int status =
      cl_resolve_with(m, req, name, m ? m->search_flags : 0, load_dir, out);
  free(load_dir);
  return status;
}
