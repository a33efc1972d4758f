/* SPDX-License-Identifier: MIT */
/*
 * fix_lines.c - the command printed to fix a missing requirement: the
 * package that provides the library, for the CUDA major it is built for,
 * and the variable that points at a folder holding it.
 *
 * The line must work where it is printed: the wheel named must exist for
 * that CUDA major (CUDA 13's toolkit wheels dropped the -cuNN suffix, and
 * the suffixed names are 0.0.1 placeholders), and it must not replace a
 * package the environment already pins (cuDNN 8 and 9 are both
 * nvidia-cudnn-cu12 and share site-packages/nvidia/cudnn).
 */
#include "load/fix_lines.h"
#include "os/platform.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/shell_word.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "scan/roots.h"
#include "common/strutil.h"
#include "scan/inventory.h"
#include "load/plan_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The wheels are catalog data (scan/catalog_wheels.c). */
typedef cl_catalog_wheel wheel;

static const wheel *find_wheel(const char *family, int cuda, long abi,
                               cl_naming naming) {
  return cl_catalog_wheel_find(family, cuda, abi, naming);
}

void cl_fix_packages_each(void (*fn)(const char *family, int cuda_major,
                                     const char *package, void *opaque),
                          void *opaque) {
  cl_catalog_wheels_each(fn, opaque);
}

const char *cl_fix_package(const char *family, int cuda_major,
                           cl_naming naming) {
  const wheel *w = find_wheel(family, cuda_major, 0, naming);
  return w ? w->package : NULL;
}

/* The CUDA major a library belongs to: what the scan settled, else what its
 * name tells (a wheel's dist-info is read only when asked, and this must
 * not read the disk). */
static int library_cuda_major(const cl_library *lib) {
  if (!lib->pending_folder && lib->cuda_major)
    return lib->cuda_major;
  return cl_catalog_cuda_major(lib->entry, lib->major);
}

/* Whether a is searched before b: an earlier tier, then an earlier root,
 * as the plan prefers them. */
static int ranks_before(const cudaload_ctx *ctx, const cl_library *a,
                        const cl_library *b) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  cl_root_tier ta = a->root < inv->root_count
                        ? cl_origin_tier(inv->roots[a->root].origin)
                        : CL_TIER_SYSTEM;
  cl_root_tier tb = b->root < inv->root_count
                        ? cl_origin_tier(inv->roots[b->root].origin)
                        : CL_TIER_SYSTEM;
  return ta != tb ? ta < tb : a->root < b->root;
}

/* The CUDA major the rest of the application uses, for a family whose own
 * major does not tell (cuDNN, NCCL): another requirement's ("cublas=13"),
 * else that of the libraries of the best-ranked root (the environment the
 * user activated beats a toolkit in /usr/local), else 0. */
static int environment_cuda_major(const cudaload_ctx *ctx,
                                  const cl_requirement *r) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  for (size_t i = 0; i < ps->requirement_count; ++i) {
    const cl_requirement *q = &ps->requirements[i];
    int cuda = 0;
    if (q != r && q->op == CL_OP_EQ)
      cuda = cl_catalog_cuda_major(q->entry, (int)q->version[0]);
    if (cuda)
      return cuda;
  }
  const cl_library *best = NULL;
  for (size_t i = 0; i < inv->library_count; ++i) {
    const cl_library *lib = &inv->libraries[i];
    if (library_cuda_major(lib) && (!best || ranks_before(ctx, lib, best)))
      best = lib;
  }
  return best ? library_cuda_major(best) : 0;
}

/* Whether CUDA major cuda ships another ABI major of entry than major (CUDA
 * 13's cuSOLVER is 12): its wheel has no release of major, and a pip line
 * pinning "==major.*" to it finds no distribution. Unknown: it may ship it. */
static int cuda_lacks_major(const cl_catalog_entry *entry, int cuda,
                            long major) {
  int another = 0;
  for (const cl_cuda_of_major *m = entry->cuda_of_major; m->abi_major; ++m) {
    if (m->cuda_major != cuda)
      continue;
    if (m->abi_major == major)
      return 0;
    another = 1;
  }
  return another;
}

static int is_separator(char c, cl_naming naming) {
  return c == '/' || (naming == CL_NAMING_WINDOWS && c == '\\');
}

/* If path's folder is <site-packages>/nvidia/<folder>/lib (Windows: bin, or
 * bin/x86_64 for CUDA 13), the length of <site-packages>, else 0. */
static size_t wheel_site_length(const char *path, const char *folder,
                                cl_naming naming) {
  const char *tails[] = {"lib", NULL, NULL};
  if (naming == CL_NAMING_WINDOWS) {
    tails[0] = "bin";
    tails[1] = "bin/x86_64";
  }
  size_t end = strlen(path);
  while (end > 0 && !is_separator(path[end - 1], naming))
    --end; /* the file name */
  for (int t = 0; tails[t]; ++t) {
    char want[64];
    snprintf(want, sizeof want, "/nvidia/%s/%s/", folder, tails[t]);
    size_t n = strlen(want);
    if (end <= n)
      continue;
    size_t start = end - n, k = 0;
    for (; k < n; ++k) {
      char c = path[start + k], w = want[k];
      if (w == '/' ? !is_separator(c, naming) : c != w)
        break;
    }
    if (k == n)
      return start;
  }
  return 0;
}

/* A fix line is written into a cl_buf (common/buf.h). */
static void add(cl_buf *t, const char *format, ...) CL_PRINTF(2, 3);
static void add(cl_buf *t, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  cl_buf_vprintf(t, format, ap);
  va_end(ap);
}

/* The shells a line for this naming is pasted into: sh on Linux, cmd or
 * PowerShell on Windows. */
static cl_shell_kind shell_of(cl_naming naming) {
  return naming == CL_NAMING_WINDOWS ? CL_SHELL_CMD_AND_POWERSHELL
                                     : CL_SHELL_POSIX;
}

/* Whether the name ends in -cuNN, which pins the CUDA major. */
static int suffixed(const wheel *w) {
  char suffix[16];
  snprintf(suffix, sizeof suffix, "-cu%d", w->cuda_major);
  return cl_ends_with(w->package, suffix);
}

/* The version specifier pip gets: the requirement's own ("==8.9.*" for
 * "=8.9", ">=9.1" for ">=9.1"), "" when the name alone pins the major. */
static void specifier(const cl_requirement *r, const wheel *w, char *out,
                      size_t size) {
  char version[128] = "";
  for (int i = 0; i < r->version_parts; ++i) {
    size_t used = strlen(version);
    snprintf(version + used, sizeof version - used, "%s%ld", i ? "." : "",
             r->version[i]);
  }
  static const char *const ops[] = {"", "==", ">=", ">", "<=", "<"};
  out[0] = '\0';
  if (r->op == CL_OP_ANY)
    return;
  if (r->op != CL_OP_EQ) {
    snprintf(out, size, "%s%s", ops[r->op], version);
  } else if (r->version_parts > 1) {
    snprintf(out, size, "==%s.*", version); /* "=8.9" is a prefix */
  } else if (strcmp(w->family, "cudnn") == 0 && r->version[0] == 8) {
    /* The cuDNN 8 releases every CUDA 11/12 wheel has, Windows too. */
    snprintf(out, size, "==8.9.*");
  } else if (w->min_abi || !suffixed(w)) {
    /* cuDNN's name does not tell its major, nor does an unsuffixed CUDA 13
     * name (a later CUDA may publish under it). */
    snprintf(out, size, "==%s.*", version);
  }
}

/* A folder beside that site-packages (one level up: inside the environment,
 * so it goes with it and has its owner, which a root needs; outside
 * site-packages, so Python and pip see the environment unchanged), named
 * after what it holds ("cudnn8"); NULL when out of memory. */
static char *target_folder(const char *site, size_t site_len,
                           const char *family, long major) {
  char *sp = cl_strndup(site, site_len);
  char *parent = sp ? cl_path_dirname(sp) : NULL;
  char name[64];
  snprintf(name, sizeof name, major ? "%s%ld" : "%s", family, major);
  char *dir = cl_path_join(parent ? parent : "DIR", name);
  if (!parent && dir) {
    free(dir);
    dir = cl_strdup("DIR");
  }
  free(sp);
  free(parent);
  return dir;
}

/* The Python interpreter whose site folder root is (its environment tier:
 * the binding's own interpreter, VIRTUAL_ENV, CONDA_PREFIX, the python3 on
 * PATH), as a path that exists, malloc'ed; NULL when none can be told.
 * Windows: <prefix>\Lib\site-packages with python.exe in <prefix>
 * (an installation, the embeddable one, conda) or in <prefix>\Scripts (a
 * venv), or a venv or conda prefix given itself. Linux:
 * <prefix>/lib/pythonX.Y/site-packages with <prefix>/bin/pythonX.Y, or a
 * venv given itself (bin/python). */
static char *interpreter_of(const char *root, cl_naming naming) {
  static const char *const windows[] = {"python.exe", "Scripts\\python.exe",
                                        NULL};
  char *prefix = NULL, *site_parent = cl_path_dirname(root);
  const char *version = NULL;
  if (site_parent && !strcmp(cl_path_basename(root), "site-packages")) {
    const char *lib = cl_path_basename(site_parent);
    if (naming == CL_NAMING_WINDOWS && !strcmp(lib, "Lib"))
      prefix = cl_path_dirname(site_parent);
    else if (naming == CL_NAMING_LINUX && !strncmp(lib, "python3.", 8)) {
      version = lib + 6; /* "3.11" */
      char *libdir = cl_path_dirname(site_parent);
      prefix = libdir ? cl_path_dirname(libdir) : NULL;
      free(libdir);
    }
  } else {
    prefix = cl_strdup(root); /* a venv or prefix given itself */
  }
  char *found = NULL;
  for (int i = 0; prefix && !found && i < 2; ++i) {
    char linux_name[32];
    if (naming == CL_NAMING_LINUX)
      snprintf(linux_name, sizeof linux_name, "bin/python%s",
               version && i == 0 ? version : "");
    char *candidate = cl_path_join(
        prefix, naming == CL_NAMING_WINDOWS ? windows[i] : linux_name);
    if (candidate && cl_os_stat_kind(candidate, NULL) == CL_KIND_REGULAR)
      found = candidate;
    else
      free(candidate);
  }
  free(prefix);
  free(site_parent);
  return found;
}

/* --- Windows: which pip (issue 45, item 4) ------------------------------ */

void cl_pip_command_free(cl_pip_command *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->argc; ++i)
    free(c->argv[i]);
  for (size_t k = 0; k < c->before_count; ++k)
    for (size_t i = 0; i < c->before_argc[k]; ++i)
      free(c->before[k][i]);
  memset(c, 0, sizeof *c);
}

/* Append copies of the words (NULL-terminated) to an argv of capacity
 * CL_PIP_WORDS; 0 or CUDALOAD_E_NO_MEMORY. */
static int push_words(char **argv, size_t *argc, const char *const *words) {
  for (; *words; ++words) {
    if (*argc >= CL_PIP_WORDS || !(argv[*argc] = cl_strdup(*words)))
      return CUDALOAD_E_NO_MEMORY;
    ++*argc;
  }
  return CUDALOAD_OK;
}

/* Whether folder (a variable's value; NULL: unset) + tail is a file. */
static int file_under(const char *folder, const char *tail) {
  char *path = folder && folder[0] ? cl_path_join(folder, tail) : NULL;
  int yes = path && cl_os_stat_kind(path, NULL) == CL_KIND_REGULAR;
  free(path);
  return yes;
}

/* Whether the py launcher is installed where its installer puts it (the
 * Windows folder for all users, %LOCALAPPDATA%\Programs\Python\Launcher
 * for one) or on PATH: only then may a fix line start with "py". */
static int py_launcher_installed(void) {
  static const char *const homes[][2] = {
      {"SystemRoot", "py.exe"},
      {"windir", "py.exe"},
      {"LOCALAPPDATA", "Programs/Python/Launcher/py.exe"}};
  int found = 0;
  for (size_t i = 0; !found && i < sizeof homes / sizeof *homes; ++i) {
    char *value = cl_os_getenv(homes[i][0]);
    found = file_under(value, homes[i][1]);
    free(value);
  }
  char *path = found ? NULL : cl_os_getenv("PATH");
  const char separators[] = {CL_LIST_SEP, '\0'};
  for (const char *p = path; p && *p && !found;) {
    size_t n = strcspn(p, separators);
    char *entry = n ? cl_strndup(p, n) : NULL;
    found = file_under(entry, "py.exe");
    free(entry);
    p += n;
    p += *p != '\0';
  }
  free(path);
  return found;
}

int cl_fix_windows_pip(const char *python, const char *site,
                       cl_pip_command *out) {
  memset(out, 0, sizeof *out);
  char *own_pip = cl_path_join(site, "pip");
  if (!own_pip)
    return CUDALOAD_E_NO_MEMORY;
  int has_pip = cl_os_stat_kind(own_pip, NULL) == CL_KIND_DIRECTORY;
  free(own_pip);
  int rc;
  if (has_pip) {
    out->source = CL_PIP_OWN;
    rc =
        push_words(out->argv, &out->argc,
                   (const char *const[]){python, "-m", "pip", "install", NULL});
  } else if (py_launcher_installed()) {
    /* The launcher runs another Python: the caller aims --target at this
     * one's folder. NVIDIA's wheels are py3-none, any Python's. */
    out->source = CL_PIP_LAUNCHER;
    rc = push_words(out->argv, &out->argc,
                    (const char *const[]){"py", "-m", "pip", "install", NULL});
  } else {
    /* The embeddable distribution has neither pip nor ensurepip, and no
     * launcher is installed: get-pip.py gives it one. curl.exe is part of
     * Windows 10 and 11 (PowerShell's "curl" is another command). */
    out->source = CL_PIP_MISSING;
    out->before_count = 2;
    rc = push_words(
        out->before[0], &out->before_argc[0],
        (const char *const[]){"curl.exe", "-sSLo", "get-pip.py",
                              "https://bootstrap.pypa.io/get-pip.py", NULL});
    if (!rc)
      rc = push_words(out->before[1], &out->before_argc[1],
                      (const char *const[]){python, "get-pip.py", NULL});
    if (!rc)
      rc = push_words(
          out->argv, &out->argc,
          (const char *const[]){python, "-m", "pip", "install", NULL});
  }
  if (rc)
    cl_pip_command_free(out);
  return rc;
}

/* A command being composed, word by word, then written for the shells of
 * its naming (render_command). */
typedef struct command {
  char *argv[24];
  size_t argc;
  int failed;
} command;

static void push(command *c, const char *word) {
  char *copy = c->argc < sizeof c->argv / sizeof *c->argv && word
                   ? cl_strdup(word)
                   : NULL;
  if (!copy)
    c->failed = 1;
  else
    c->argv[c->argc++] = copy;
}

static void command_free(command *c) {
  for (size_t i = 0; i < c->argc; ++i)
    free(c->argv[i]);
  memset(c, 0, sizeof *c);
}

/* The words joined, each quoted for the shells; 0 when one has no
 * spelling they all keep literal. */
static int join_words(cl_buf *t, char *const *argv, size_t argc,
                      cl_naming naming) {
  int spelled = 1;
  for (size_t i = 0; i < argc && spelled; ++i) {
    if (i)
      cl_buf_puts(t, " ");
    spelled = cl_buf_shell_word(t, argv[i], shell_of(naming));
  }
  return spelled;
}

/* One command as its line. Windows: a first word that must be quoted (an
 * interpreter under "C:\Program Files" or a profile folder) is a string to
 * PowerShell, which runs it only after "&", and "&" starts no command in
 * cmd: the cmd line, then PowerShell's. 0 when a word has no spelling that
 * cmd and PowerShell both keep literal (nothing written). */
static int render_command(cl_buf *t, char *const *argv, size_t argc,
                          cl_naming naming) {
  cl_buf line = CL_BUF_INIT;
  int spelled = join_words(&line, argv, argc, naming);
  char *text = cl_buf_take(&line);
  if (!spelled || !text) {
    t->failed |= spelled && !text;
    free(text);
    return 0;
  }
  cl_buf_puts(t, text);
  if (naming == CL_NAMING_WINDOWS && text[0] == '"')
    add(t, " (PowerShell: & %s)", text);
  free(text);
  return 1;
}

char *cl_fix_windows_path_first(char *const *folders, size_t count) {
  cl_buf cmd = CL_BUF_INIT, ps = CL_BUF_INIT;
  int written = count > 0;
  for (size_t i = 0; i < count && written; ++i) {
    written = folders[i][0] && !strpbrk(folders[i], "%\";");
    cl_buf_printf(&cmd, "%s;", folders[i]);
    for (const char *c = folders[i]; *c; ++c)
      cl_buf_printf(&ps, *c == '\'' ? "''" : "%c", *c);
    cl_buf_puts(&ps, ";");
  }
  char *a = cl_buf_take(&cmd), *b = cl_buf_take(&ps);
  char *line = written && a && b
                   ? cl_strdup_printf("set \"PATH=%s%%PATH%%\" (cmd) or "
                                      "$env:PATH = '%s' + $env:PATH "
                                      "(PowerShell)",
                                      a, b)
                   : NULL;
  free(a);
  free(b);
  return line;
}

/* How pip is run for the environment the scan searched first (an
 * interpreter whose site folder is a root of the environment tier): *out
 * filled and 1, or 0 when there is none. A package it installs lands in a
 * folder the next scan searches. Linux: its own pip. Windows:
 * cl_fix_windows_pip's choice, *site its site folder (malloc'ed), for the
 * launcher's --target. */
static int environment_pip(const cudaload_ctx *ctx, cl_naming naming,
                           cl_pip_command *out, char **site) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  memset(out, 0, sizeof *out);
  *site = NULL;
  for (size_t i = 0; i < inv->root_count; ++i) {
    const cl_root *r = &inv->roots[i];
    if (r->status != CUDALOAD_OK ||
        cl_origin_tier(r->origin) != CL_TIER_ENVIRONMENT)
      continue;
    char *python = interpreter_of(r->path, naming);
    if (!python)
      continue;
    int rc = CUDALOAD_E_NO_MEMORY;
    if (naming == CL_NAMING_WINDOWS) {
      /* <prefix>\python.exe or <prefix>\Scripts\python.exe (a venv). */
      char *bin = cl_path_dirname(python);
      char *prefix = bin && !strcmp(cl_path_basename(bin), "Scripts")
                         ? cl_path_dirname(bin)
                         : cl_strdup(bin ? bin : "");
      *site = prefix ? cl_path_join(prefix, "Lib/site-packages") : NULL;
      if (*site)
        rc = cl_fix_windows_pip(python, *site, out);
      free(prefix);
      free(bin);
    } else {
      out->source = CL_PIP_OWN;
      rc = push_words(
          out->argv, &out->argc,
          (const char *const[]){python, "-m", "pip", "install", NULL});
    }
    free(python);
    if (rc) {
      cl_pip_command_free(out);
      free(*site);
      *site = NULL;
      return 0;
    }
    return 1;
  }
  return 0;
}

/* What comes before the install: the commands that give the interpreter a
 * pip, each followed by ", then". 0 when one cannot be written. */
static int render_before(cl_buf *t, const cl_pip_command *c, cl_naming naming) {
  for (size_t k = 0; k < c->before_count; ++k) {
    if (!render_command(t, c->before[k], c->before_argc[k], naming))
      return 0;
    add(t, "%s, then ",
        k + 1 < c->before_count
            ? ""
            : " (this Python has no pip: the embeddable distribution has "
              "neither pip nor ensurepip)");
  }
  return 1;
}

/* One concrete command that fixes a missing requirement, malloc'ed. */
/* The library of family that lies in the folder wheel w installs to and
 * that the ctx ranks first (*site_len: the length of its site folder), or
 * NULL when none does. */
static const cl_library *pinned_library(const cudaload_ctx *ctx,
                                        const char *family, const wheel *w,
                                        cl_naming naming, size_t *site_len) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_library *pinned = NULL;
  for (size_t i = 0; i < inv->library_count; ++i) {
    const cl_library *lib = &inv->libraries[i];
    size_t n;
    if (strcmp(lib->entry->family, family) == 0 &&
        (n = wheel_site_length(lib->path, w->folder, naming)) &&
        (!pinned || ranks_before(ctx, lib, pinned))) {
      pinned = lib;
      *site_len = n;
    }
  }
  return pinned;
}

/* cuDNN opens cuBLAS of its CUDA major by name: its wheel, to name too
 * when nothing in the inventory is it (--no-deps keeps pip from bringing
 * it); NULL when something is. */
static const char *cublas_companion(const cudaload_ctx *ctx, const wheel *w,
                                    cl_naming naming) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const wheel *blas = find_wheel("cublas", w->cuda_major, 0, naming);
  int have = 0;
  for (size_t i = 0; i < inv->library_count && !have; ++i)
    have = strcmp(inv->libraries[i].entry->family, "cublas") == 0 &&
           library_cuda_major(&inv->libraries[i]) == w->cuda_major;
  return blas && !have ? blas->package : NULL;
}

/* An environment the user made but did not activate comes first: the
 * libraries may be there already ("pip install" into the system, or into
 * a venv that is not active, is what sent people searching). */
static void add_nearby_environments(cl_buf *t, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  if (inv->nearby_count == 0)
    return;
  for (size_t i = 0; i < inv->nearby_count; ++i)
    add(t, "%s%s",
        i == 0                       ? ""
        : i + 1 == inv->nearby_count ? " and "
                                     : ", ",
        inv->nearby_environments[i]);
  int one = inv->nearby_count == 1;
  add(t,
      " %s not active, so not searched: activate %s or pass --environment "
      "%s (C: cudaload_add_environment_root()); if %s the library: ",
      one ? "is an environment that is" : "are environments that are",
      one ? "it" : "the one you use", inv->nearby_environments[0],
      one ? "it lacks" : "they lack");
}

static char *fix_for_missing_here(const cudaload_ctx *ctx,
                                  const cl_requirement *r);

char *cl_fix_drop_from_ld_preload(const char *ld_preload, const char *file) {
  cl_buf rest = CL_BUF_INIT;
  for (const char *p = ld_preload ? ld_preload : ""; *p;) {
    size_t len = strcspn(p, ": \t");
    if (len && !(strlen(file) == len && strncmp(p, file, len) == 0)) {
      if (rest.len)
        cl_buf_puts(&rest, ":");
      cl_buf_append(&rest, p, len);
    }
    p += len;
    if (*p)
      ++p;
  }
  if (!rest.len) {
    cl_buf_free(&rest);
    return cl_strdup("unset LD_PRELOAD");
  }
  char *kept = cl_buf_take(&rest);
  if (!kept)
    return NULL;
  cl_buf line = CL_BUF_INIT;
  cl_buf_puts(&line, "export LD_PRELOAD=");
  cl_buf_shell_word(&line, kept, CL_SHELL_POSIX);
  free(kept);
  return cl_buf_take(&line);
}

char *cl_fix_for_missing(const cudaload_ctx *ctx, const cl_requirement *r) {
  char *here = fix_for_missing_here(ctx, r);
  if (!here || cl_inventory_of(ctx)->nearby_count == 0)
    return here;
  cl_buf t = CL_BUF_INIT;
  add_nearby_environments(&t, ctx);
  add(&t, "%s", here);
  free(here);
  return cl_buf_take(&t);
}

/* The fix from what the inventory holds: the package to install, where. */
static char *fix_for_missing_here(const cudaload_ctx *ctx,
                                  const cl_requirement *r) {
  cl_naming naming = cl_ctx_naming(ctx);
  const char *family = r->entry->family;
  long major = r->op == CL_OP_ANY ? 0 : r->version[0];
  if (r->op == CL_OP_LT && r->version_parts == 1)
    major = major - 1; /* "cudnn<9" wants 8 */
  const char *var = cl_catalog_path_variable(family);
  const char *files =
      naming == CL_NAMING_WINDOWS ? "the DLLs" : "the libraries";
  /* The variable is a default root: where the caller left those out
   * (--no-defaults, defaults=False), setting it would change nothing. */
  char variable[160];
  if (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS)
    snprintf(variable, sizeof variable,
             "pass the folder that holds %s as a root (--root; Python: "
             "roots=[...]; %s is not read without the default roots)",
             files, var);
  else
    snprintf(variable, sizeof variable, "set %s to the folder that holds %s",
             var, files);

  /* The requirement's own CUDA major (cublas=12), else the plan's, else the
   * application's,
   * else 12, the one every family has a wheel for; a family with no wheel
   * for that major (cuDNN 8 on CUDA 13) takes CUDA 12's. */
  int cuda = major ? cl_catalog_cuda_major(r->entry, (int)major) : 0;
  if (!cuda)
    cuda = cl_plan_state_of(ctx)->plan_cuda_major;
  if (!cuda)
    cuda = environment_cuda_major(ctx, r);
  if (cuda && major && cuda_lacks_major(r->entry, cuda, major))
    cuda = 0;
  const wheel *w = find_wheel(family, cuda ? cuda : 12, major, naming);
  if (!w)
    w = find_wheel(family, 12, major, naming);
  cl_buf t = CL_BUF_INIT;
  if (!w) {
    /* The driver, or a library no wheel ships here (NCCL on Windows). */
    add(&t, "%s", variable);
    return cl_buf_take(&t);
  }
  char spec[160];
  specifier(r, w, spec, sizeof spec);

  /* A library of the family already in the folder the wheel installs to
   * does not satisfy the requirement; pip would replace it (the same
   * distribution: cuDNN 9 for cuDNN 8) or mix two distributions' files in
   * one folder, whose uninstall removes the other's. Either breaks what
   * the environment pinned it for: install into a folder of its own. */
  size_t site_len = 0;
  const cl_library *pinned = pinned_library(ctx, family, w, naming, &site_len);
  /* The interpreter whose site folder is searched: its pip installs where
   * the next scan looks, so nothing more is needed. Windows has no "pip"
   * or "python" on PATH for sure: its own, the launcher only where one is
   * installed, else how to get one (cl_fix_windows_pip). */
  cl_pip_command own;
  char *own_site = NULL;
  int have_own = environment_pip(ctx, naming, &own, &own_site);
  command c = {0};
  for (size_t i = 0; have_own && i < own.argc; ++i)
    push(&c, own.argv[i]);
  if (!have_own && naming == CL_NAMING_LINUX && !pinned) {
    push(&c, "pip");
  } else if (!have_own) {
    /* No interpreter to name: Windows' launcher where one is installed,
     * else the Python the program runs. */
    push(&c, naming == CL_NAMING_WINDOWS && py_launcher_installed() ? "py"
                                                                    : "python");
    push(&c, "-m");
    push(&c, "pip");
  }
  if (!have_own)
    push(&c, "install");
  char *word = cl_strdup_printf("%s%s", w->package, spec);
  if (!pinned) {
    if (have_own && own.source == CL_PIP_LAUNCHER) {
      push(&c, "--target");
      push(&c, own_site);
    }
    push(&c, word);
    if (!c.failed && (!have_own || render_before(&t, &own, naming)) &&
        render_command(&t, c.argv, c.argc, naming)) {
      add(&t, "%s, or %s",
          have_own ? "" : " (then pass its site-packages folder as a root)",
          variable);
    } else {
      t.failed = 1;
    }
    free(word);
    command_free(&c);
    cl_pip_command_free(&own);
    free(own_site);
    return cl_buf_take(&t);
  }
  free(own_site);
  char *dir = target_folder(pinned->path, site_len, family, major);
  if (!dir) {
    free(word);
    command_free(&c);
    cl_pip_command_free(&own);
    return NULL;
  }
  /* --target is the folder of its own here. The folder is quoted for the
   * shell, whatever its name holds: a folder named v$(touch PWNED) must not
   * run touch when the line is pasted. One that no spelling keeps literal
   * in both cmd and PowerShell is named apart, after the command. */
  cl_buf probe = CL_BUF_INIT;
  int quoted = cl_buf_shell_word(&probe, dir, shell_of(naming));
  cl_buf_free(&probe);
  push(&c, "--no-deps");
  push(&c, "--target");
  push(&c, quoted ? dir : "DIR");
  push(&c, word);
  free(word);
  /* --no-deps keeps pip from installing a second copy of what the
   * environment has; cuDNN opens cuBLAS of its CUDA major by name, so that
   * one comes along when nothing in the inventory is it. */
  const char *blas =
      strcmp(family, "cudnn") == 0 ? cublas_companion(ctx, w, naming) : NULL;
  if (blas)
    push(&c, blas);
  if (c.failed || (have_own && !render_before(&t, &own, naming)) ||
      !render_command(&t, c.argv, c.argc, naming))
    t.failed = 1;
  command_free(&c);
  cl_pip_command_free(&own);
  if (!quoted)
    add(&t,
        " (DIR: the folder %s, whose name holds a character cmd or "
        "PowerShell expands even in quotes (%%, !, $ or `): type it as your "
        "shell needs)",
        dir);
  add(&t,
      " (not a plain pip install: %.*s already has %s %d in nvidia%c%s, "
      "which that would replace or mix with), then pass that folder as a "
      "root (--root; Python: roots=[...]), or %s",
      (int)site_len, pinned->path, pinned->entry->family, pinned->major,
      naming == CL_NAMING_WINDOWS ? '\\' : '/', w->folder, variable);
  free(dir);
  return cl_buf_take(&t);
}
