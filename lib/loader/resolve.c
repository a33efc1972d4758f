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

static int is_windows(const cl_loader_model *m) {
  return m->naming == CL_NAMING_WINDOWS;
}

static int ascii_lower(int c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Windows compares module names without case (ASCII folding: the loader's
 * own table folds more, which no DLL name here needs). */
static int names_equal(const cl_loader_model *m, const char *a, const char *b) {
  if (!a || !b)
    return 0;
  if (!is_windows(m))
    return strcmp(a, b) == 0;
  while (*a && *b &&
         ascii_lower((unsigned char)*a) == ascii_lower((unsigned char)*b)) {
    ++a;
    ++b;
  }
  return *a == '\0' && *b == '\0';
}

static int is_separator(const cl_loader_model *m, char c) {
  return c == '/' || (is_windows(m) && c == '\\');
}

static int has_separator(const cl_loader_model *m, const char *name) {
  for (; *name; ++name)
    if (is_separator(m, *name))
      return 1;
  return 0;
}

static const char *base_name(const cl_loader_model *m, const char *path) {
  const char *base = path;
  for (const char *p = path; *p; ++p)
    if (is_separator(m, *p))
      base = p + 1;
  return base;
}

/* folder + separator + name, with no doubled separator; "" as the folder
 * gives name itself (glibc's empty search entry). */
static char *join(const cl_loader_model *m, const char *folder,
                  const char *name) {
  size_t n = strlen(folder);
  if (n == 0)
    return cl_strdup(name);
  const char *sep = is_separator(m, folder[n - 1]) ? ""
                    : is_windows(m)                ? "\\"
                                                   : "/";
  /* A Windows model on a POSIX host (the unit tests) names folders with
   * '/': keep the folder's own separator then. */
  if (is_windows(m) && sep[0] && strchr(folder, '/') && !strchr(folder, '\\'))
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
static int is_absolute(const cl_loader_model *m, const char *path) {
  if (path[0] == '/')
    return 1;
  if (!is_windows(m))
    return 0;
  if (path[0] == '\\')
    return 1;
  return ((path[0] >= 'A' && path[0] <= 'Z') ||
          (path[0] >= 'a' && path[0] <= 'z')) &&
         path[1] == ':' && (path[2] == '\\' || path[2] == '/');
}

/* The path the model looks at for a name relative to the current folder,
 * malloc'ed; NULL when the current folder is unknown (or no memory). */
static char *absolute_for_check(const cl_loader_model *m, const char *path) {
  if (is_absolute(m, path))
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
static int add_name(cl_loader_model *m, size_t index, const char *name) {
  cl_loaded_object *o = &m->loaded[index];
  if (names_equal(m, o->path, name))
    return CUDALOAD_OK;
  for (size_t i = 0; i < o->name_count; ++i)
    if (names_equal(m, o->names[i], name))
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

/* ------------------------------------------------------------------------ */
/* What the loader makes of a file it meets                                 */
/* ------------------------------------------------------------------------ */

typedef enum verdict {
  VERDICT_ABSENT = 0, /* nothing there, or not openable: the search goes on */
  VERDICT_TAKEN,
  VERDICT_SKIPPED, /* other class or machine: the search goes on */
  VERDICT_FATAL    /* the load fails here */
} verdict;

static const char *elf_machine_text(unsigned machine) {
  switch (machine) {
  case 3:
    return "i386";
  case 8:
    return "mips";
  case 20:
    return "ppc";
  case 21:
    return "ppc64";
  case 22:
    return "s390";
  case 40:
    return "arm";
  case 62:
    return "x86_64";
  case 183:
    return "aarch64";
  case 243:
    return "riscv";
  default:
    return NULL;
  }
}

static const char *pe_machine_text(unsigned machine) {
  switch (machine) {
  case 0x14c:
    return "i386";
  case 0x8664:
    return "x64";
  case 0xaa64:
    return "arm64";
  case 0x1c4:
    return "arm";
  default:
    return NULL;
  }
}

static unsigned read_u16(const unsigned char *p, int big_endian) {
  return big_endian ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

static uint32_t read_u32(const unsigned char *p, int big_endian) {
  return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                          (uint32_t)p[2] << 8 | p[3]
                    : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
                          (uint32_t)p[1] << 8 | p[0];
}

/* The first bytes of a candidate as the loader reads them (52 for 32-bit,
 * 64 for 64-bit): VERDICT_TAKEN when h holds them, else the file's
 * verdict (missing, a folder, unopenable, short). */
static verdict elf_read_header(const cl_loader_model *m, const char *file,
                               unsigned char h[64], char **why) {
  size_t want = m->bits == 32 ? 52 : 64;
  /* One stat, and the first bytes read once per run (file_cache.c). */
  cl_file_head head;
  cl_file_cache_head(m->files, file, h, want, &head);
  if (head.kind == CL_KIND_MISSING)
    return VERDICT_ABSENT;
  if (head.kind == CL_KIND_DIRECTORY) {
    *why = cl_strdup("a folder: \"cannot read file data\", the load fails");
    return VERDICT_FATAL;
  }
  if (head.kind != CL_KIND_REGULAR) {
    *why = cl_strdup("not a regular file (the loader's open would block or "
                     "read nothing): the load fails");
    return VERDICT_FATAL;
  }
  /* A file that cannot be opened or read is a verdict, not a failure. */
  if (!head.opened) {
    *why = cl_strdup("cannot be opened (the loader goes on)");
    return VERDICT_SKIPPED;
  }
  if (!head.read_ok || head.got < want) {
    *why = cl_strdup(!head.read_ok ? "\"cannot read file data\": the load fails"
                                   : "\"file too short\": the load fails");
    return VERDICT_FATAL;
  }
  return VERDICT_TAKEN;
}

/* e_ident: the magic, then the class (another is passed over), the byte
 * order, the version, the OS ABI and the padding (any wrong one fails the
 * load). VERDICT_TAKEN when all are right. */
static verdict elf_ident_verdict(const cl_loader_model *m,
                                 const unsigned char *h, char **why) {
  if (memcmp(h, "\177ELF", 4) != 0) {
    *why = cl_strdup("\"invalid ELF header\": the load fails");
    return VERDICT_FATAL;
  }
  int bits = h[4] == 1 ? 32 : h[4] == 2 ? 64 : 0;
  if (bits != m->bits) {
    *why = cl_strdup_printf("other ELF class (ELFCLASS%s): passed over",
                            bits == 32   ? "32"
                            : bits == 64 ? "64"
                                         : "NONE");
    return VERDICT_SKIPPED;
  }
  if ((h[5] != 1 && h[5] != 2) || (h[5] == 2) != m->big_endian) {
    *why = cl_strdup_printf(
        "\"ELF file data encoding not %s-endian\": the load fails",
        m->big_endian ? "big" : "little");
    return VERDICT_FATAL;
  }
  if (h[6] != 1) {
    *why = cl_strdup("\"ELF file version ident does not match current "
                     "one\": the load fails");
    return VERDICT_FATAL;
  }
  /* Linux accepts the System V and GNU OS ABIs (MORE_ELF_HEADER_DATA). */
  if (h[7] != 0 && h[7] != 3) {
    *why = cl_strdup("\"ELF file OS ABI invalid\": the load fails");
    return VERDICT_FATAL;
  }
  if (h[7] == 0 && h[8] != 0) {
    *why = cl_strdup("\"ELF file ABI version invalid\": the load fails");
    return VERDICT_FATAL;
  }
  for (int i = 9; i < 16; ++i) {
    if (h[i] != 0) {
      *why = cl_strdup("\"nonzero padding in e_ident\": the load fails");
      return VERDICT_FATAL;
    }
  }
  return VERDICT_TAKEN;
}

/*
 * glibc's open_verify (elf/dl-load.c) on the header of a candidate file:
 * another ELF class, or another machine, is passed over (the search goes
 * on); anything else wrong (not ELF, the other byte order, a bad version,
 * OS ABI or padding, a type other than ET_DYN/ET_EXEC, a short file, a
 * folder) fails the whole load. The header is read here with the
 * platform's non-blocking open; the loader's own open of a FIFO would
 * block, which is reported as fatal rather than modelled.
 */
static verdict elf_verdict(const cl_loader_model *m, const char *file,
                           char **why) {
  unsigned char h[64];
  *why = NULL;
  verdict v = elf_read_header(m, file, h, why);
  if (v == VERDICT_TAKEN)
    v = elf_ident_verdict(m, h, why);
  if (v != VERDICT_TAKEN)
    return v;
  int big = h[5] == 2;
  unsigned type = read_u16(h + 16, big);
  unsigned machine = read_u16(h + 18, big);
  if (read_u32(h + 20, big) != 1) {
    *why = cl_strdup("\"ELF file version does not match current one\": the "
                     "load fails");
    return VERDICT_FATAL;
  }
  if (machine != m->machine) {
    const char *name = elf_machine_text(machine);
    *why = name
               ? cl_strdup_printf("other machine (%s): passed over", name)
               : cl_strdup_printf("other machine (0x%x): passed over", machine);
    return VERDICT_SKIPPED;
  }
  if (type != 2 && type != 3) {
    *why = cl_strdup("\"only ET_DYN and ET_EXEC can be loaded\": the load "
                     "fails");
    return VERDICT_FATAL;
  }
  unsigned phentsize = read_u16(h + (m->bits == 64 ? 54 : 42), big);
  if (phentsize != (m->bits == 64 ? 56u : 32u)) {
    *why = cl_strdup("\"ELF file's phentsize not the expected size\": the "
                     "load fails");
    return VERDICT_FATAL;
  }
  return VERDICT_TAKEN;
}

/*
 * The Windows loader maps the first file of the name it finds: a folder or
 * a device of that name is not a file and the search goes on; a file that
 * is not an image, or one for another machine, ends the load with
 * ERROR_BAD_EXE_FORMAT (193) ("Dynamic-Link Library Search Order" lists
 * places, not checks: docs/loader.md, Windows 11), unless the model says
 * the host's loader passes over other machines (Wine).
 */
static verdict pe_verdict(const cl_loader_model *m, const char *file,
                          char **why) {
  *why = NULL;
  cl_file_kind kind = cl_os_stat_kind(file, NULL);
  if (kind == CL_KIND_MISSING || kind == CL_KIND_DIRECTORY ||
      kind == CL_KIND_OTHER)
    return VERDICT_ABSENT;
  cl_binary_info info;
  memset(&info, 0, sizeof info);
  char *kept = cl_save_error(); /* unreadable is a verdict, not a failure */
  int status = cl_file_cache_parse(m->files, file, &info);
  cl_restore_error(kept);
  if (status != CUDALOAD_OK || info.format != CL_FORMAT_PE) {
    cl_binary_info_free(&info);
    *why = cl_strdup("not a valid image: the load fails (193)");
    return VERDICT_FATAL;
  }
  unsigned machine = info.machine;
  cl_binary_info_free(&info);
  if (machine != m->machine) {
    const char *name = pe_machine_text(machine);
    char *what = name ? cl_strdup_printf("for another machine (%s)", name)
                      : cl_strdup_printf("for another machine (0x%x)", machine);
    if (m->other_machine_skipped) {
      *why = what ? cl_strdup_printf("%s: passed over", what) : NULL;
      free(what);
      return VERDICT_SKIPPED;
    }
    *why = what ? cl_strdup_printf("%s: the load fails (193)", what) : NULL;
    free(what);
    return VERDICT_FATAL;
  }
  return VERDICT_TAKEN;
}

static verdict file_verdict(const cl_loader_model *m, const char *file,
                            char **why) {
  return is_windows(m) ? pe_verdict(m, file, why) : elf_verdict(m, file, why);
}

/* Whether the folder of `check` (an absolute path) does not exist. */
static int in_absent_folder(const cl_loader_model *m, cl_resolve_memo *memo,
                            const char *check) {
  const char *base = base_name(m, check);
  if (base == check)
    return 0;
  size_t length = (size_t)(base - check) - 1;
  if (length == 0)
    return 0; /* the root folder */
  char *folder = cl_strndup(check, length);
  int absent = folder && cl_resolve_memo_folder_absent(memo, folder);
  free(folder);
  return absent;
}

/*
 * Try one file. A taken file ends the search; a fatal one too, with the
 * load failing. Returns the verdict; `display` is the name the loader
 * gives the file (glibc's realname), `check` the path looked at.
 */
static verdict try_file(search *s, cl_resolve_rule rule, const char *folder,
                        const char *display, const char *source) {
  char *check = absolute_for_check(s->m, display);
  if (!check) {
    /* A relative candidate with no known current folder. */
    add_step(s, rule, CL_STEP_SKIPPED, folder, display, source,
             "relative to a current folder the model does not know");
    return VERDICT_ABSENT;
  }
  char *why = NULL;
  cl_resolve_memo *memo = cl_resolve_memo_of(s->m);
  cl_resolve_memo_work(memo, 1);
  /* A folder that does not exist holds nothing: it is looked at once per
   * model, as glibc marks a search folder "nonexisting" once, and each
   * name asked for later costs no stat there. */
  verdict v = in_absent_folder(s->m, memo, check)
                  ? VERDICT_ABSENT
                  : file_verdict(s->m, check, &why);
  switch (v) {
  case VERDICT_ABSENT:
    break;
  case VERDICT_TAKEN:
    add_step(s, rule, CL_STEP_TAKEN, folder, check, source, "taken");
    free(s->taken_file);
    free(s->taken_source);
    s->taken_file = check;
    s->taken_source = source ? cl_strdup(source) : NULL;
    s->taken_rule = rule;
    s->done = 1;
    free(why);
    return v;
  case VERDICT_SKIPPED:
    add_step(s, rule, CL_STEP_SKIPPED, folder, check, source,
             why ? why : "passed over");
    break;
  case VERDICT_FATAL:
    add_step(s, rule, CL_STEP_FATAL, folder, check, source,
             why ? why : "the load fails");
    free(s->fatal);
    s->fatal = cl_strdup_printf("%s: %s", check, why ? why : "the load fails");
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

/* The object whose $ORIGIN a list or name expands with. */
typedef struct origin_of {
  const char *path; /* NULL: the executable */
  int is_exe;
} origin_of;

/* $ORIGIN: glibc's l_origin (elf/dl-object.c _dl_new_object): the folder of
 * the name the object was loaded as, not resolved through symlinks ("/"
 * for a file in the root; a relative name joined to the current folder);
 * for the executable, the folder of its real path (_dl_get_origin reads
 * /proc/self/exe). NULL when unknown. */
static char *origin_folder(const cl_loader_model *m, const origin_of *o) {
  const char *path =
      o->is_exe || !o->path || !o->path[0] ? m->exe_path : o->path;
  if (!path)
    return NULL;
  char *full = NULL;
  if (path[0] == '/' || is_absolute(m, path))
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
static char *expand_dst(const cl_loader_model *m, const char *input,
                        const origin_of *o) {
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
                             const char *separators, const origin_of *o,
                             folder_list *out) {
  const char *p = list;
  for (;;) {
    size_t len = strcspn(p, separators);
    char *entry = cl_strndup(p, len);
    if (!entry)
      return CUDALOAD_E_NO_MEMORY;
    char *dir = entry;
    if (entry[0] != '\0') {
      dir = expand_dst(m, entry, o);
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
  origin_of o = {object_path,
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
  origin_of o = {NULL, 1};
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
    int absent = is_absolute(m, dirs->dirs[i]) &&
                 cl_resolve_memo_folder_absent(memo, dirs->dirs[i]);
    cl_resolve_memo_work(memo, 1);
    for (size_t c = 0; c < subdir_count && !absent && !s->done && !s->failed;
         ++c) {
      /* glibc writes dirname + "/" + capstr + name; "" stays relative. */
      char *rel = cl_strdup_printf("%s%s", subdirs[c], s->name);
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

static int requester_is_exe(const cl_loader_model *m, const cl_requester *r) {
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
  char *kept = cl_save_error();
  cl_ldcache_read_cached(m->files, m->ld_so_cache, cache_visit, p);
  cl_restore_error(kept);
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
                                            absolute_for_check);
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
  out->detail =
      m->loaded[hit].soname && strcmp(m->loaded[hit].soname, name) == 0
          ? cl_strdup_printf("loaded as %s (SONAME %s)", m->loaded[hit].path,
                             m->loaded[hit].soname)
          : cl_strdup_printf("loaded as %s", m->loaded[hit].path);
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
                           const origin_of *req_origin) {
  char *given = req ? expand_dst(s->m, name, req_origin) : cl_strdup(name);
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
                                     const origin_of *origin) {
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
                          const char *separators, const origin_of *origin,
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
               "not searched: the requester has DT_RUNPATH");
    return;
  }
  int did_exe = 0;
  for (const cl_requester *l = req; l && !s->done && !s->failed;
       l = l->loader) {
    const char *rpath = effective_rpath(l->info);
    if (!rpath)
      continue;
    origin_of o = {l->path, requester_is_exe(m, l)};
    if (search_list(s, CL_RULE_RPATH, rpath, ":", &o, l->path))
      did_exe |= requester_is_exe(m, l);
  }
  if (!s->done && !s->failed && !did_exe && m->exe_path && m->exe_rpath &&
      m->exe_rpath[0]) {
    origin_of o = {m->exe_path, 1};
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
  origin_of o = {m->exe_path, 1};
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
             m->ld_so_cache,
             "entry under a default folder, refused: the requester has "
             "DF_1_NODEFLIB");
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
             "not searched: the requester has DF_1_NODEFLIB");
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
  origin_of req_origin = {req ? req->path : NULL, requester_is_exe(s->m, req)};
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
    if (names_equal(m, m->known_dlls[i], name))
      return 1;
  return 0;
}

/* LoadLibrary's name rules: no extension means ".dll" is appended; a
 * trailing '.' means "no extension" and is dropped. */
static char *windows_module_name(const cl_loader_model *m, const char *name) {
  const char *base = base_name(m, name);
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
    if (names_equal(m, m->loaded[i].path, name)) {
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
    out->detail =
        cl_strdup_printf("%s is an API set contract: the loader maps it to "
                         "a system DLL without searching",
                         name);
    add_step(s, CL_RULE_API_SET, CL_STEP_TAKEN, NULL, NULL, NULL, "API set");
    return 1;
  }
  /* The loaded-module list: by module (base) name, wherever it was loaded
   * from. */
  for (size_t i = 0; i < m->loaded_count; ++i) {
    const cl_loaded_object *o = &m->loaded[i];
    if (names_equal(m, base_name(m, o->path), base) ||
        names_equal(m, o->soname, base)) {
      out->rule = CL_RULE_ALREADY_LOADED;
      out->loaded_index = i;
      out->path = cl_strdup(o->path);
      out->detail =
          cl_strdup_printf("a module named %s is loaded: %s", base, o->path);
      add_step(s, CL_RULE_ALREADY_LOADED, CL_STEP_TAKEN, NULL, o->path, NULL,
               out->detail);
      return 1;
    }
  }
  if (m->system32 && is_known_dll(m, base)) {
    out->rule = CL_RULE_KNOWN_DLL;
    out->path = join(m, m->system32, base);
    out->detail = cl_strdup_printf("%s is a KnownDLL: its System32 copy", base);
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
  if (is_absolute(m, name)) {
    windows_full_path(s, name);
  } else if (has_separator(m, name) ||
             !windows_before_folders(s, name, base_name(m, name))) {
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
static char *folder_of(const cl_loader_model *m, const char *path) {
  origin_of o = {path, 0};
  return path ? origin_folder(m, &o) : NULL;
}

/* A file was found: the loader takes it, unless it is the file of an
 * object already loaded (glibc compares st_dev/st_ino). */
static void take_found_file(search *s) {
  cl_loader_model *m = s->m;
  cl_resolution *out = s->out;
  size_t same = is_windows(m) ? SIZE_MAX : loaded_same_file(m, s->taken_file);
  free(out->path);
  free(out->detail);
  out->detail = NULL;
  if (same != SIZE_MAX) {
    out->rule = CL_RULE_ALREADY_LOADED;
    out->loaded_index = same;
    out->path = cl_strdup(m->loaded[same].path);
    out->detail = cl_strdup_printf(
        "%s (found by %s) is the file of the loaded %s", s->taken_file,
        cl_resolve_rule_name(s->taken_rule), m->loaded[same].path);
    add_step(s, CL_RULE_ALREADY_LOADED, CL_STEP_TAKEN, NULL,
             m->loaded[same].path, NULL, "the same file is loaded");
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
    out->detail = cl_strdup_printf("the load fails: %s", s->fatal);
  else if (out->step_count &&
           out->steps[out->step_count - 1].kind == CL_STEP_SKIPPED &&
           !is_windows(s->m))
    out->detail = cl_strdup("not found (files of another ELF class or "
                            "machine were passed over)");
  else
    out->detail = cl_strdup_printf("%s not found", name);
  if (!out->detail)
    s->failed = 1;
}

static int resolve_with(cl_loader_model *m, const cl_requester *req,
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
  if (is_windows(m))
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
  if (m && is_windows(m) && req) {
    const cl_requester *root = req;
    while (root->loader)
      root = root->loader;
    load_dir = folder_of(m, root->path);
  }
  int status =
      resolve_with(m, req, name, m ? m->search_flags : 0, load_dir, out);
  free(load_dir);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Opening an object: the closure                                           */
/* ------------------------------------------------------------------------ */

void cl_load_tree_free(cl_load_tree *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->object_count; ++i) {
    free(t->objects[i].path);
    cl_binary_info_free(&t->objects[i].info);
  }
  free(t->objects);
  for (size_t i = 0; i < t->edge_count; ++i) {
    free(t->edges[i].name);
    cl_resolution_free(&t->edges[i].how);
  }
  free(t->edges);
  memset(t, 0, sizeof *t);
}

typedef struct opener {
  cl_loader_model *m;
  cl_load_tree *t;
  cl_lazy_names_fn lazy;
  void *opaque;
  unsigned char *walked; /* per object: its dependencies were resolved */
  size_t walked_capacity;
  /* The tree's objects by path (the first of a name), so that finding one
   * costs the same in a tree of a thousand; on Windows without case, as
   * names_equal compares. by_path_ok: 0 when memory ran out for it (then
   * each object is compared). */
  cl_str_index by_path;
  int by_path_ok;
} opener;

/* The tree's object for a path (the loader's name for it), or SIZE_MAX. */
static size_t tree_find(const opener *o, const char *path) {
  size_t at;
  if (o->by_path_ok)
    return cl_str_index_find(&o->by_path, path, &at) ? at : SIZE_MAX;
  for (size_t i = 0; i < o->t->object_count; ++i)
    if (names_equal(o->m, o->t->objects[i].path, path))
      return i;
  return SIZE_MAX;
}

static int tree_add(opener *o, const char *path, size_t loader, int preexisting,
                    size_t *index) {
  cl_load_tree *t = o->t;
  if (cl_reserve((void **)&t->objects, &t->object_capacity, t->object_count + 1,
                 sizeof *t->objects) != CUDALOAD_OK ||
      cl_reserve((void **)&o->walked, &o->walked_capacity, t->object_count + 1,
                 1) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  cl_load_object *obj = &t->objects[t->object_count];
  memset(obj, 0, sizeof *obj);
  obj->path = cl_strdup(path);
  if (!obj->path)
    return CUDALOAD_E_NO_MEMORY;
  obj->loader = loader;
  obj->preexisting = preexisting;
  char *check = absolute_for_check(o->m, path);
  char *kept = cl_save_error(); /* an unreadable object is told as such */
  if (check &&
      cl_file_cache_parse(o->m->files, check, &obj->info) == CUDALOAD_OK)
    obj->readable = 1;
  else
    memset(&obj->info, 0, sizeof obj->info);
  cl_restore_error(kept);
  free(check);
  o->walked[t->object_count] = 0;
  if (o->by_path_ok &&
      cl_str_index_add(&o->by_path, obj->path, t->object_count) != CUDALOAD_OK)
    o->by_path_ok = 0;
  *index = t->object_count++;
  return CUDALOAD_OK;
}

/* The requester chain of tree object i (its l_loader links), built into
 * chain[] (capacity object_count); returns &chain[0]. */
static const cl_requester *requester_of(const opener *o, size_t i,
                                        cl_requester *chain) {
  size_t depth = 0;
  size_t at = i;
  while (at != SIZE_MAX && depth < o->t->object_count) {
    chain[depth].path = o->t->objects[at].path;
    chain[depth].info = &o->t->objects[at].info;
    chain[depth].loader = NULL;
    if (depth > 0)
      chain[depth - 1].loader = &chain[depth];
    at = o->t->objects[at].loader;
    ++depth;
  }
  return chain;
}

static int add_edge(opener *o, size_t from, const char *name, int lazy,
                    cl_resolution *how, size_t *index) {
  cl_load_tree *t = o->t;
  if (cl_reserve((void **)&t->edges, &t->edge_capacity, t->edge_count + 1,
                 sizeof *t->edges) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  cl_load_edge *e = &t->edges[t->edge_count];
  e->name = cl_strdup(name);
  if (!e->name)
    return CUDALOAD_E_NO_MEMORY;
  e->from = from;
  e->lazy = lazy;
  e->how = *how;
  e->to = SIZE_MAX;
  *index = t->edge_count++;
  return CUDALOAD_OK;
}

/* The object an edge's resolution names: in the tree already, or added
 * (and, when new to the process, recorded in the model). */
static int place_object(opener *o, size_t edge, size_t loader,
                        const char *name) {
  cl_load_tree *t = o->t;
  cl_resolution *how = &t->edges[edge].how;
  if (!how->path)
    return CUDALOAD_OK;
  size_t at = tree_find(o, how->path);
  int status = CUDALOAD_OK;
  if (at == SIZE_MAX) {
    int preexisting = how->rule == CL_RULE_ALREADY_LOADED;
    status = tree_add(o, how->path, preexisting ? SIZE_MAX : loader,
                      preexisting, &at);
    if (status == CUDALOAD_OK && !preexisting) {
      const char *soname =
          t->objects[at].readable ? t->objects[at].info.soname : NULL;
      /* A DLL's module name is its file name. */
      if (o->m->naming == CL_NAMING_WINDOWS)
        soname = base_name(o->m, how->path);
      status = cl_loader_model_add_loaded(o->m, how->path, soname);
      if (status == CUDALOAD_OK)
        how->loaded_index = o->m->loaded_count - 1;
    }
  }
  if (status == CUDALOAD_OK && how->loaded_index != SIZE_MAX &&
      how->loaded_index < o->m->loaded_count)
    status = add_name(o->m, how->loaded_index, name);
  t->edges[edge].to = at;
  return status;
}

/* A resolution of `name` asked by tree object `from` (SIZE_MAX: the
 * caller): its edge (which takes how over) and the object it names, mapped
 * for `loader`. */
static int add_resolved(opener *o, size_t from, const char *name, int lazy,
                        size_t loader, cl_resolution *how, size_t *edge) {
  int status = add_edge(o, from, name, lazy, how, edge);
  if (status != CUDALOAD_OK) {
    cl_resolution_free(how);
    return status;
  }
  return place_object(o, *edge, loader, name);
}

/* The tree indices of one open, in the order they are met, each once
 * (queued: per tree index, whether it is in items). */
typedef struct object_queue {
  size_t *items;
  size_t count, capacity;
  unsigned char *queued;
  size_t queued_capacity;
} object_queue;

static int queue_once(object_queue *q, size_t index) {
  size_t known = q->queued_capacity;
  if (cl_reserve((void **)&q->queued, &q->queued_capacity, index + 1, 1) !=
      CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  if (q->queued_capacity > known)
    memset(q->queued + known, 0, q->queued_capacity - known);
  if (q->queued[index])
    return CUDALOAD_OK;
  if (cl_reserve((void **)&q->items, &q->capacity, q->count + 1,
                 sizeof *q->items) != CUDALOAD_OK)
    return CUDALOAD_E_NO_MEMORY;
  q->queued[index] = 1;
  q->items[q->count++] = index;
  return CUDALOAD_OK;
}

/* An empty DT_NEEDED name. glibc's _dl_map_object looks among the loaded
 * objects first, and the main program's link map is named "": the name is
 * the program, nothing is searched or opened, and the load goes on. The
 * model has no object for the program (the host's loaded list skips its
 * empty name), so the resolution names none. A PE import with an empty DLL
 * name fails the load. */
static int resolve_empty_needed(const cl_loader_model *m, cl_resolution *how) {
  memset(how, 0, sizeof *how);
  how->loaded_index = SIZE_MAX;
  if (is_windows(m)) {
    how->detail = cl_strdup("an import with an empty DLL name: the load fails");
  } else {
    how->rule = CL_RULE_ALREADY_LOADED;
    how->detail = cl_strdup("an empty name, which glibc matches to the main "
                            "program (whose link map has an empty name): "
                            "nothing is searched or loaded");
  }
  return how->detail ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
}

/* Resolve tree object at's DT_NEEDED entry `needed` for it. DSTs in a
 * DT_NEEDED entry expand for the object naming it (glibc's expand_dst in
 * _dl_map_object_deps); a name holding '/' after that is taken as given. */
static int resolve_needed(opener *o, size_t at, const char *needed,
                          unsigned flags, const char *load_dir,
                          cl_resolution *how) {
  cl_loader_model *m = o->m;
  cl_requester *chain = malloc(o->t->object_count * sizeof *chain);
  if (!chain)
    return CUDALOAD_E_NO_MEMORY;
  const cl_requester *r = requester_of(o, at, chain);
  char *expanded = NULL;
  int status = CUDALOAD_OK;
  if (!is_windows(m) && strchr(needed, '$')) {
    origin_of og = {o->t->objects[at].path, requester_is_exe(m, r)};
    expanded = expand_dst(m, needed, &og);
    if (!expanded)
      status = CUDALOAD_E_NO_MEMORY;
  }
  if (status != CUDALOAD_OK) {
    /* out of memory: nothing resolved */
  } else if (!needed[0]) {
    status = resolve_empty_needed(m, how);
  } else if (expanded && !expanded[0]) {
    /* A token with no value: "empty dynamic string token substitution",
     * and the open fails. */
    memset(how, 0, sizeof *how);
    how->loaded_index = SIZE_MAX;
    how->detail =
        cl_strdup_printf("%s: empty dynamic string token substitution", needed);
    status = how->detail ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
  } else {
    status =
        resolve_with(m, r, expanded ? expanded : needed, flags, load_dir, how);
  }
  free(expanded);
  free(chain);
  return status;
}

/* One dependency of tree object at: resolved, recorded as an edge, its
 * object placed and queued; *missing set when it was not found. */
static int add_dependency(opener *o, size_t at, const char *needed,
                          unsigned flags, const char *load_dir,
                          object_queue *queue, int *missing) {
  cl_resolution how;
  int status = resolve_needed(o, at, needed, flags, load_dir, &how);
  if (status != CUDALOAD_OK)
    return status;
  size_t e;
  status = add_resolved(o, at, needed, 0, at, &how, &e);
  if (status != CUDALOAD_OK)
    return status;
  size_t to = o->t->edges[e].to;
  if (to == SIZE_MAX) {
    /* Already loaded without an object of its own (the main program an
     * empty name matches), or an API set the loader maps itself
     * (api-ms-win-crt-*: every DLL built with MSVC imports them), is
     * satisfied; anything else is missing. */
    cl_resolve_rule rule = o->t->edges[e].how.rule;
    if (rule != CL_RULE_ALREADY_LOADED && rule != CL_RULE_API_SET)
      *missing = 1;
    return CUDALOAD_OK;
  }
  return queue_once(queue, to);
}

/* Whether the model's work is spent: then the tree says so, naming the
 * object whose dependencies (needed: 1) or lazy opens were being resolved,
 * and nothing more is resolved. */
static int work_spent(opener *o, size_t at, int needed) {
  if (cl_resolve_memo_work_done(o->m->memo) <= CL_RESOLVE_MAX_WORK)
    return 0;
  cl_load_tree *t = o->t;
  if (!t->stopped) {
    t->stopped = 1;
    t->stopped_at = at;
    t->stopped_needed = needed;
  }
  return 1;
}

/* glibc's _dl_map_object_deps from tree object first: breadth first, each
 * object's dependencies resolved for it; *missing set when one was not
 * found. */
static int walk_dependencies(opener *o, size_t first, unsigned flags,
                             const char *load_dir, int *missing) {
  object_queue queue = {0};
  int status = queue_once(&queue, first);
  for (size_t q = 0; q < queue.count && status == CUDALOAD_OK; ++q) {
    size_t at = queue.items[q];
    if (o->walked[at])
      continue;
    o->walked[at] = 1;
    if (!o->t->objects[at].readable)
      continue;
    for (size_t k = 0; k < o->t->objects[at].info.needed_count &&
                       status == CUDALOAD_OK && !work_spent(o, at, 1);
         ++k)
      status = add_dependency(o, at, o->t->objects[at].info.needed[k], flags,
                              load_dir, &queue, missing);
  }
  free(queue.items);
  free(queue.queued);
  return status;
}

/* The loader unmaps what a failed open mapped (dlopen fails as a whole). */
static void undo_open(opener *o, size_t loaded_mark, size_t object_mark) {
  cl_loader_model *m = o->m;
  cl_resolve_memo_loaded_dropped(m->memo, loaded_mark);
  for (size_t i = loaded_mark; i < m->loaded_count; ++i)
    cl_loaded_object_free(&m->loaded[i]);
  m->loaded_count = loaded_mark;
  for (size_t i = object_mark; i < o->t->object_count; ++i)
    o->t->objects[i].dropped = 1;
}

/*
 * One open (the object asked for, or a lazy name) and its closure:
 * glibc's _dl_map_object_deps walks a queue that starts with the object
 * and appends each dependency not yet in it, so the objects are mapped
 * breadth first, each dependency resolved for the object that names it.
 * Windows resolves imports with the flags and DLL folder of the load.
 * A dependency not found fails the open: the process keeps nothing of it.
 */
static int open_one(opener *o, const cl_requester *req, size_t from,
                    const char *name, int lazy, unsigned flags,
                    const char *load_dir_in, int *failed) {
  cl_loader_model *m = o->m;
  cl_load_tree *t = o->t;
  size_t loaded_mark = m->loaded_count;
  size_t object_mark = t->object_count;
  cl_resolution how;
  *failed = 0;
  int status = resolve_with(m, req, name, flags, load_dir_in, &how);
  if (status != CUDALOAD_OK)
    return status;
  size_t edge;
  status = add_resolved(o, from, name, lazy, SIZE_MAX, &how, &edge);
  if (status != CUDALOAD_OK)
    return status;
  if (t->edges[edge].to == SIZE_MAX) {
    *failed = 1;
    return CUDALOAD_OK;
  }

  /* Windows: the folder of the DLL opened, for its imports. */
  const char *opened = t->edges[edge].how.path;
  char *load_dir = NULL;
  if (is_windows(m) &&
      (flags & (CL_LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
                CL_LOAD_WITH_ALTERED_SEARCH_PATH)) &&
      is_absolute(m, opened ? opened : ""))
    load_dir = folder_of(m, opened);
  int missing = 0;
  status = walk_dependencies(o, t->edges[edge].to, flags, load_dir, &missing);
  free(load_dir);
  if (status != CUDALOAD_OK)
    return status;
  if (missing) {
    undo_open(o, loaded_mark, object_mark);
    *failed = 1;
  }
  return CUDALOAD_OK;
}

/* Lazy names: each object, in tree order (those opened lazily too, when
 * the walk reaches them), opens its names as dlopen/LoadLibrary from
 * inside itself; on Windows that is a plain LoadLibrary (the process
 * default order). */
static int open_lazy(opener *o) {
  int status = CUDALOAD_OK;
  cl_requester *chain = NULL;
  for (size_t i = 0; i < o->t->object_count && status == CUDALOAD_OK; ++i) {
    if (!o->lazy || o->t->objects[i].dropped)
      continue;
    size_t count = 0;
    char **names =
        o->lazy(o->t->objects[i].path,
                o->t->objects[i].readable ? &o->t->objects[i].info : NULL,
                &count, o->opaque);
    for (size_t k = 0;
         k < count && status == CUDALOAD_OK && !work_spent(o, i, 0); ++k) {
      free(chain);
      chain = malloc(o->t->object_count * sizeof *chain);
      if (!chain) {
        status = CUDALOAD_E_NO_MEMORY;
        break;
      }
      const cl_requester *r = requester_of(o, i, chain);
      int failed;
      status = open_one(o, r, i, names[k], 1, 0, NULL, &failed);
    }
    for (size_t k = 0; k < count; ++k)
      free(names[k]);
    free(names);
  }
  free(chain);
  return status;
}

static int open_with_flags(cl_loader_model *m, const cl_requester *req,
                           const char *name, unsigned flags,
                           cl_lazy_names_fn lazy, void *opaque,
                           cl_load_tree *out) {
  if (!out)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no tree given");
  memset(out, 0, sizeof *out);
  if (!m || !name || !name[0])
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "no model or name given");
  opener o;
  memset(&o, 0, sizeof o);
  o.m = m;
  o.t = out;
  o.lazy = lazy;
  o.opaque = opaque;
  cl_str_index_init(&o.by_path, is_windows(m));
  o.by_path_ok = 1;
  int failed = 0;
  int status = open_one(&o, req, SIZE_MAX, name, 0, flags, NULL, &failed);
  out->failed = failed;
  if (status == CUDALOAD_OK && !failed)
    status = open_lazy(&o);
  free(o.walked);
  cl_str_index_free(&o.by_path);
  if (status != CUDALOAD_OK) {
    cl_load_tree_free(out);
    /* Another failure has its own last error: never called out of memory. */
    return status == CUDALOAD_E_NO_MEMORY ? cl_fail(status, "out of memory")
                                          : status;
  }
  return CUDALOAD_OK;
}

int cl_resolve_open(cl_loader_model *m, const cl_requester *req,
                    const char *name, cl_lazy_names_fn lazy, void *opaque,
                    cl_load_tree *out) {
  return open_with_flags(m, req, name, m ? m->search_flags : 0, lazy, opaque,
                         out);
}

int cl_resolve_load(cl_loader_model *m, const char *path, cl_lazy_names_fn lazy,
                    void *opaque, cl_load_tree *out) {
  return cl_resolve_open(m, NULL, path, lazy, opaque, out);
}

int cl_resolve_load_flags(cl_loader_model *m, const char *path, unsigned flags,
                          cl_lazy_names_fn lazy, void *opaque,
                          cl_load_tree *out) {
  return open_with_flags(m, NULL, path, flags, lazy, opaque, out);
}
