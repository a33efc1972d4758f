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
#include "binary/binary.h"
#include "os/platform.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/shell_word.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "scan/roots.h"
#include "common/strutil.h"
#include "scan/inventory.h"
#include "scan/library_cuda_major.h"
#include "load/plan_state.h"
#include "load/spec.h"
#include "problem/fix_words.h"

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

/* The CUDA major a library belongs to: what is known of it
 * (library_cuda_major.h), else what its name tells (a wheel's dist-info is
 * read only when asked, and this must not read the disk). */
static int library_cuda_major(const cl_library *lib) {
  int cuda = cl_library_cuda_major_known(lib);
  return cuda ? cuda : cl_catalog_cuda_major(lib->entry, lib->major);
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

/* The CUDA major a fix installs for, and who says so: the consumer
 * decides (docs/scan-contract.md, "The consumer decides"). The
 * requirement's own major (cublas=12 is CUDA 12's), the plan's pin (cuda=12,
 * or what the program or its error message says), another requirement that
 * names one (cublas=13 beside cudnn=9), else the libraries of the roots
 * given and the active environment, when they are of one CUDA major. Never
 * what else lies on the machine (a toolkit in /usr/local, a default
 * root): a program built for CUDA 11 is not fixed by a CUDA 12 wheel
 * because a CUDA 12 toolkit is installed. 0 in out->major when nothing
 * tells. */
static void decide_cuda(const cudaload_ctx *ctx, const cl_requirement *r,
                        long major, cl_fix_cuda *out) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  memset(out, 0, sizeof *out);
  int cuda = major ? cl_catalog_cuda_major(r->entry, (int)major) : 0;
  if (cuda) {
    out->major = cuda;
    out->source = r->source ? r->source : CUDALOAD_FROM_REQUEST;
    snprintf(out->why, sizeof out->why, CL_NOTE_CUDA_OF_THE_REQUIREMENT,
             r->entry->family, major, cuda);
    return;
  }
  if (ps->cuda_pin) {
    out->major = ps->cuda_pin;
    out->source =
        ps->cuda_pin_source ? ps->cuda_pin_source : CUDALOAD_FROM_REQUEST;
    if (ps->cuda_pin_why)
      snprintf(out->why, sizeof out->why, "%s", ps->cuda_pin_why);
    else
      snprintf(out->why, sizeof out->why, CL_NOTE_CUDA_PINNED, ps->cuda_pin);
    return;
  }
  if (ps->program_cuda_major) {
    out->major = ps->program_cuda_major;
    out->source = CUDALOAD_FROM_PROGRAM;
    snprintf(out->why, sizeof out->why, CL_NOTE_CUDA_OF_THE_PROGRAM,
             ps->program_cuda_reason ? ps->program_cuda_reason : "");
    return;
  }
  for (size_t i = 0; i < ps->requirement_count; ++i) {
    const cl_requirement *q = &ps->requirements[i];
    if (q == r || q->op != CL_OP_EQ ||
        !(cuda = cl_catalog_cuda_major(q->entry, (int)q->version[0])))
      continue;
    out->major = cuda;
    out->source = q->source ? q->source : CUDALOAD_FROM_REQUEST;
    snprintf(out->why, sizeof out->why, CL_NOTE_CUDA_OF_A_REQUIREMENT_BESIDE,
             q->text, cuda);
    return;
  }
  /* The roots the caller gave and the environment they activated: what
   * the program runs in, when all of one CUDA major. */
  int found = 0, several = 0;
  for (size_t i = 0; i < inv->library_count && !several; ++i) {
    const cl_library *lib = &inv->libraries[i];
    if (lib->root >= inv->root_count)
      continue;
    cl_root_tier tier = cl_origin_tier(inv->roots[lib->root].origin);
    int m = library_cuda_major(lib);
    if ((tier != CL_TIER_EXPLICIT && tier != CL_TIER_ENVIRONMENT) || !m)
      continue;
    several = found && m != found;
    found = m;
  }
  if (found && !several) {
    out->major = found;
    out->source = CUDALOAD_FROM_MACHINE;
    snprintf(out->why, sizeof out->why, CL_NOTE_CUDA_OF_THE_ROOTS, found);
  }
}

/* Whether CUDA major cuda ships another ABI major of entry than major (CUDA
 * 13's cuSOLVER is 12): its wheel has no release of major, and a pip line
 * pinning "==major.*" to it finds no distribution. Unknown: it may ship it. */
static int cuda_lacks_major(const cl_catalog_entry *entry, int cuda,
                            long major) {
  int another = 0;
  const cl_cuda_of_major *m = cl_catalog_family_of(entry)->cuda_of_major;
  for (; m->abi_major; ++m) {
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

/* The shells a line for this naming is pasted into: sh on Linux, cmd or
 * PowerShell on Windows. */
static cl_shell_kind shell_of(cl_naming naming) {
  return naming == CL_NAMING_WINDOWS ? CL_SHELL_CMD_AND_POWERSHELL
                                     : CL_SHELL_POSIX;
}

/* Whether word is one word that every shell of naming can be given. */
static int spellable(const char *word, cl_naming naming) {
  cl_buf b = CL_BUF_INIT;
  int ok = cl_buf_shell_word(&b, word, shell_of(naming));
  cl_buf_free(&b);
  return ok;
}

/* Whether word is written bare for cmd and PowerShell (no quotes). */
static int spellable_bare(const char *word) {
  cl_buf b = CL_BUF_INIT;
  int ok = cl_buf_shell_word(&b, word, CL_SHELL_CMD_AND_POWERSHELL);
  int bare = ok && b.data && b.data[0] != '"';
  cl_buf_free(&b);
  return bare;
}

/* The word "package" + "spec" ("nvidia-cudnn-cu12==8.9.*"). */
static void add_requirement_word(cl_fix *fix, cl_fix_step *step,
                                 const char *package, const char *spec) {
  char *word = cl_strdup_printf("%s%s", package, spec);
  if (!word) {
    fix->failed = 1;
    return;
  }
  cl_fix_arg(fix, step, word);
  free(word);
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
                   ? cl_strdup_printf(CL_NOTE_WINDOWS_PATH_FIRST, a, b)
                   : NULL;
  free(a);
  free(b);
  return line;
}

/* How pip is run for the environment the scan searched first (an
 * interpreter whose site folder is a root of the environment tier): *out
 * filled and 1, or 0 when there is none. A package it installs lands in a
 * folder the next scan searches. Linux: its own pip. Windows:
 * cl_fix_windows_pip's choice (its own, the launcher's where one is
 * installed, else how to get one), *site its site folder (malloc'ed), for
 * the launcher's --target. A path that no spelling keeps literal (cmd and
 * PowerShell) gives none: the generic pip is named instead. */
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
    if (!spellable(python, naming)) {
      free(python);
      return 0;
    }
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
    if (rc || (*site && !spellable(*site, naming))) {
      cl_pip_command_free(out);
      free(*site);
      *site = NULL;
      return 0;
    }
    return 1;
  }
  return 0;
}

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

/* cuDNN opens cuBLAS of its CUDA major by name: name its wheel too when
 * nothing in the inventory is it (--no-deps keeps pip from bringing it). */
static void add_cublas_companion(cl_fix *fix, cl_fix_step *step,
                                 const cudaload_ctx *ctx, const wheel *w,
                                 cl_naming naming) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const wheel *blas = find_wheel("cublas", w->cuda_major, 0, naming);
  int have = 0;
  for (size_t i = 0; i < inv->library_count && !have; ++i)
    have = strcmp(inv->libraries[i].entry->family, "cublas") == 0 &&
           library_cuda_major(&inv->libraries[i]) == w->cuda_major;
  if (blas && !have)
    add_requirement_word(fix, step, blas->package, "");
}

/* An environment the user made but did not activate comes first: the
 * libraries may be there already ("pip install" into the system, or into
 * a venv that is not active, is what sent people searching). */
static void add_nearby_environments(cl_fix *fix, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  if (inv->nearby_count == 0)
    return;
  cl_buf t = CL_BUF_INIT;
  for (size_t i = 0; i < inv->nearby_count; ++i)
    cl_buf_printf(&t, "%s%s",
                  i == 0                       ? ""
                  : i + 1 == inv->nearby_count ? " and "
                                               : ", ",
                  inv->nearby_environments[i]);
  int one = inv->nearby_count == 1;
  cl_buf_printf(&t, CL_NOTE_ENVIRONMENTS_NOT_ACTIVE,
                one ? CL_NOTE_IS_AN_ENVIRONMENT_THAT_IS
                    : CL_NOTE_ARE_ENVIRONMENTS_THAT_ARE,
                one ? CL_NOTE_ACTIVATE_IT : CL_NOTE_ACTIVATE_THE_ONE_YOU_USE,
                inv->nearby_environments[0],
                one ? CL_NOTE_IT_LACKS : CL_NOTE_THEY_LACK);
  char *words = cl_buf_take(&t);
  if (!words) {
    fix->failed = 1;
    return;
  }
  cl_fix_add_note(fix, "%s", words);
  free(words);
}

static void fix_for_missing_here(const cudaload_ctx *ctx,
                                 const cl_requirement *r, cl_fix *fix,
                                 cl_fix_cuda *cuda);

char *cl_fix_drop_from_ld_preload(const char *ld_preload, const char *file) {
  cl_fix fix = CL_FIX_INIT;
  cl_fix_drop_from_ld_preload_steps(ld_preload, file, &fix);
  char *line = cl_fix_line_text(&fix, CL_SHELL_POSIX);
  cl_fix_free(&fix);
  return line;
}

void cl_fix_drop_from_ld_preload_steps(const char *ld_preload, const char *file,
                                       cl_fix *fix) {
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
    cl_fix_step *unset = cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE);
    cl_fix_arg(fix, unset, "unset");
    cl_fix_arg(fix, unset, "LD_PRELOAD");
    return;
  }
  char *kept = cl_buf_take(&rest);
  if (!kept) {
    fix->failed = 1;
    return;
  }
  cl_fix_env(fix, cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE), "LD_PRELOAD",
             kept);
  free(kept);
}

int cl_fix_for_missing_steps(const cudaload_ctx *ctx, const cl_requirement *r,
                             cl_fix *fix, cl_fix_cuda *cuda) {
  cl_fix_cuda ignored;
  add_nearby_environments(fix, ctx);
  fix_for_missing_here(ctx, r, fix, cuda ? cuda : &ignored);
  return fix->failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}

int cl_fix_for_release(const cudaload_ctx *ctx, const char *family, long major,
                       const char *at_least, int source, cl_fix *fix,
                       cl_fix_cuda *cuda) {
  cl_requirement r;
  memset(&r, 0, sizeof r);
  r.entry = cl_catalog_family_main(family);
  if (!r.entry)
    return CUDALOAD_E_NOT_FOUND;
  r.source = source;
  long parts[CL_VERSION_PARTS] = {0};
  int n = at_least ? cl_version_parse(at_least, parts) : 0;
  if (n > 0 && parts[0] == major) {
    r.op = CL_OP_GE;
    memcpy(r.version, parts, sizeof parts);
    r.version_parts = n;
  } else {
    r.op = CL_OP_EQ;
    r.version[0] = major;
    r.version_parts = 1;
  }
  cl_fix_cuda ignored;
  /* The major decides the CUDA major where it is one CUDA major's: "at
   * least 12.4" of nvJitLink 12 is CUDA 12's, whatever the pin. */
  fix_for_missing_here(ctx, &r, fix, cuda ? cuda : &ignored);
  return fix->failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
}

void cl_fix_drop_from_path_list(const char *variable, const char *value,
                                const char *folder, char separator,
                                cl_fix *fix) {
  cl_buf rest = CL_BUF_INIT;
  size_t folder_len = strlen(folder);
  while (folder_len > 1 &&
         (folder[folder_len - 1] == '/' || folder[folder_len - 1] == '\\'))
    --folder_len;
  const char stop[2] = {separator, '\0'};
  for (const char *p = value ? value : ""; *p;) {
    size_t len = strcspn(p, stop);
    size_t cmp = len;
    while (cmp > 1 && (p[cmp - 1] == '/' || p[cmp - 1] == '\\'))
      --cmp;
    if (len && !(cmp == folder_len && strncmp(p, folder, cmp) == 0)) {
      if (rest.len)
        cl_buf_append(&rest, &separator, 1);
      cl_buf_append(&rest, p, len);
    }
    p += len;
    if (*p)
      ++p;
  }
  if (!rest.len) {
    cl_buf_free(&rest);
    cl_fix_step *unset = cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE);
    cl_fix_arg(fix, unset, "unset");
    cl_fix_arg(fix, unset, variable);
    return;
  }
  char *kept = cl_buf_take(&rest);
  if (!kept) {
    fix->failed = 1;
    return;
  }
  cl_fix_env(fix, cl_fix_add(fix, CUDALOAD_FIX_SET_VARIABLE), variable, kept);
  free(kept);
}

/* Whether requirement r was asked for as a spec (--require, a manifest,
 * the message read by --error), not derived from a --for program: exec
 * --for derives those again. */
static int asked_as_spec(const cl_plan_state *ps, size_t r) {
  return !ps->for_target_count ||
         ps->requirements[r].source != CUDALOAD_FROM_PROGRAM;
}

/* The options that give the tool this doctor's search: --no-defaults and
 * every root given, so that a printed command finds what the doctor found;
 * the environment searched as the active one and the program (--for), so
 * that exec finds and reads it again; then the requirements asked as specs
 * (spec: that one alone). As words of step. */
static void search_words(cl_fix *fix, cl_fix_step *step,
                         const cudaload_ctx *ctx, const char *spec) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS)
    cl_fix_arg(fix, step, "--no-defaults");
  for (size_t i = 0; i < ctx->explicit_count; ++i) {
    cl_fix_arg(fix, step, "--root");
    cl_fix_arg(fix, step, ctx->explicit_roots[i]);
  }
  for (size_t i = 0; i < ctx->environment_count; ++i) {
    cl_fix_arg(fix, step, "--environment");
    cl_fix_arg(fix, step, ctx->environment_roots[i]);
  }
  for (size_t i = 0; i < ps->for_target_count; ++i) {
    cl_fix_arg(fix, step, "--for");
    cl_fix_arg(fix, step, ps->for_targets[i]);
  }
  cl_buf specs = CL_BUF_INIT;
  size_t given = 0;
  if (spec) {
    cl_buf_puts(&specs, spec);
    given = 1;
  }
  for (size_t r = 0; !spec && r < ps->requirement_count; ++r)
    if (asked_as_spec(ps, r))
      cl_buf_printf(&specs, "%s%s", given++ ? "," : "",
                    ps->requirements[r].text);
  char *joined = cl_buf_take(&specs);
  if (given) {
    cl_fix_arg(fix, step, "--require");
    if (joined)
      cl_fix_arg(fix, step, joined);
    else
      fix->failed = 1;
  }
  free(joined);
}

/* The same options as one line of text, for the note that names the other
 * ways (env, Python). */
static void search_text(cl_buf *b, const cudaload_ctx *ctx, const char *spec) {
  cl_fix words = CL_FIX_INIT;
  cl_fix_step *s = cl_fix_add(&words, CUDALOAD_FIX_COMMAND);
  search_words(&words, s, ctx, spec);
  if (s && !words.failed) {
    cl_buf_puts(b, " ");
    /* An unspellable root reads DIR here, as in the command. */
    (void)cl_fix_command_line(b, s, shell_of(cl_ctx_naming(ctx)));
  } else {
    b->failed = 1;
  }
  cl_fix_free(&words);
}

/* Whether path names a Python interpreter: a venv's (pyvenv.cfg one folder
 * up) or one named so. */
static int python_file(const char *path) {
  char *bin = cl_path_dirname(path);
  char *root = bin ? cl_path_dirname(bin) : NULL;
  char *cfg = root ? cl_path_join(root, "pyvenv.cfg") : NULL;
  int venv = cfg && cl_os_stat_kind(cfg, NULL) == CL_KIND_REGULAR;
  free(cfg);
  free(root);
  free(bin);
  const char *name = cl_path_basename(path);
  return venv || !strncmp(name, "python", 6) || !strncmp(name, "pypy", 4);
}

/* The command that starts the program a --for target names, as a user
 * types it: a program file itself (an ELF file without a SONAME, a .exe),
 * the interpreter given, the interpreter of the environment given or of
 * the one the module was found in (--environment, else the active one).
 * NULL when the files tell none: a library given as the target (its
 * program loads it), an environment with no interpreter in it. *python: 1
 * for an interpreter (the user's script and arguments follow it). */
static char *program_command(const cudaload_ctx *ctx, const char *target,
                             int *python) {
  *python = 0;
  char *command = NULL;
  if (cl_os_path_is_absolute(target)) {
    cl_file_kind kind = cl_os_stat_kind(target, NULL);
    if (kind == CL_KIND_DIRECTORY) {
      command = cl_environment_interpreter(target);
      *python = command != NULL;
    } else if (kind == CL_KIND_REGULAR && python_file(target)) {
      command = cl_strdup(target);
      *python = 1;
    } else if (kind == CL_KIND_REGULAR) {
      cl_binary_info info;
      if (cl_binary_parse_file_quiet(target, &info) == CUDALOAD_OK) {
        size_t n = strlen(target);
        int program =
            info.format == CL_FORMAT_PE
                ? n > 4 && cl_ascii_equal_nocase(target + n - 4, ".exe")
                : !info.soname || !info.soname[0];
        if (program)
          command = cl_strdup(target);
        cl_binary_info_free(&info);
      }
    }
  } else {
    command = cl_environment_interpreter(
        ctx->environment_count ? ctx->environment_roots[0] : NULL);
    *python = command != NULL;
  }
  return command;
}

/* Whether a requirement came from the error message read (--error). */
static int from_message(const cl_plan_state *ps) {
  for (size_t r = 0; r < ps->requirement_count; ++r)
    if (ps->requirements[r].source == CUDALOAD_FROM_MESSAGE)
      return 1;
  return 0;
}

void cl_fix_run_through_cudaload(const cudaload_ctx *ctx, cl_fix *fix,
                                 const char *first, const char *spec) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  if (first)
    cl_fix_add_note(fix, "%s", first);
  /* With --for the step starts the program's own command (the binary, or
   * the interpreter that imports the module); without it the program is
   * known only as PROGRAM, and the note says why. */
  char *command = NULL;
  int python = 0;
  for (size_t i = 0; i < ps->for_target_count && !command; ++i)
    command = program_command(ctx, ps->for_targets[i], &python);
  cl_fix_step *exec = cl_fix_add(fix, CUDALOAD_FIX_RUN_PROGRAM);
  cl_fix_arg(fix, exec, "cudaload");
  cl_fix_arg(fix, exec, "exec");
  search_words(fix, exec, ctx, spec);
  cl_fix_arg(fix, exec, "--");
  cl_fix_arg(fix, exec, command ? command : "PROGRAM");
  cl_buf b = CL_BUF_INIT;
  if (command && python)
    cl_buf_puts(&b, CL_NOTE_RUN_THROUGH_CUDALOAD_INTERPRETER);
  else if (command)
    cl_buf_puts(&b, CL_NOTE_RUN_THROUGH_CUDALOAD_ARGUMENTS);
  else if (ps->for_target_count)
    cl_buf_printf(&b, CL_NOTE_RUN_THROUGH_CUDALOAD_FILES_NAME_NONE,
                  ps->for_targets[0]);
  else if (from_message(ps))
    cl_buf_puts(&b, CL_NOTE_RUN_THROUGH_CUDALOAD_MESSAGE_NAMES_NONE);
  else
    cl_buf_puts(&b, CL_NOTE_RUN_THROUGH_CUDALOAD_PROGRAM);
  free(command);
  if (cl_ctx_naming(ctx) == CL_NAMING_WINDOWS) {
    cl_buf_puts(&b, CL_NOTE_RUN_WHAT_ENV_PRINTS_CMD);
    search_text(&b, ctx, spec);
    cl_buf_puts(&b, CL_NOTE_RUN_WHAT_ENV_PRINTS_CMD_END);
  } else {
    cl_buf_puts(&b, CL_NOTE_EVAL_ENV_POSIX);
    search_text(&b, ctx, spec);
    cl_buf_puts(&b, CL_NOTE_EVAL_ENV_POSIX_END);
  }
  cl_buf_puts(&b, CL_NOTE_IN_PYTHON_SETUP);
  size_t said = 0;
  if (ps->for_target_count) {
    /* setup() takes one program: the first, which the command starts. */
    cl_buf_printf(&b, "for_=r\"%s\"", ps->for_targets[0]);
    said++;
  }
  size_t specs = 0;
  if (spec) {
    cl_buf_printf(&b, "%srequire=[\"%s\"", said ? ", " : "", spec);
    specs = 1;
  }
  for (size_t r = 0; !spec && r < ps->requirement_count; ++r)
    if (asked_as_spec(ps, r))
      cl_buf_printf(&b, "%s\"%s\"",
                    specs++ ? ", "
                    : said  ? ", require=["
                            : "require=[",
                    ps->requirements[r].text);
  if (specs) {
    cl_buf_printf(&b, "]");
    said++;
  }
  if (ctx->explicit_count) {
    cl_buf_printf(&b, "%sroots=[", said ? ", " : "");
    for (size_t i = 0; i < ctx->explicit_count; ++i)
      cl_buf_printf(&b, "%sr\"%s\"", i ? ", " : "", ctx->explicit_roots[i]);
    cl_buf_printf(&b, "]");
  }
  cl_buf_puts(&b, CL_NOTE_IN_PYTHON_SETUP_END);
  char *note = cl_buf_take(&b);
  if (note)
    cl_fix_note(fix, exec, "%s", note);
  else
    fix->failed = 1;
  free(note);
}

char *cl_fix_for_missing(const cudaload_ctx *ctx, const cl_requirement *r) {
  cl_fix fix = CL_FIX_INIT;
  cl_fix_for_missing_steps(ctx, r, &fix, NULL);
  char *line = cl_fix_line_text(&fix, shell_of(cl_ctx_naming(ctx)));
  cl_fix_free(&fix);
  return line;
}

/* The steps that install wheel w for r (its spec in spec) where the next
 * scan finds it, action CUDALOAD_FIX_INSTALL or, one of several,
 * CUDALOAD_FIX_CHOICE; variable is the other way, in words. */
static void install_steps(const cudaload_ctx *ctx, const cl_requirement *r,
                          const wheel *w, long major, int action,
                          const char *variable, cl_fix *fix) {
  cl_naming naming = cl_ctx_naming(ctx);
  const char *family = r->entry->family;
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
   * or "python" on PATH for sure; the launcher "py" is the usual one. */
  cl_pip_command own;
  char *own_site = NULL;
  int have_own = environment_pip(ctx, naming, &own, &own_site);
  /* An interpreter with no pip (the embeddable distribution) gets one
   * first: those commands are steps of their own, before the install. */
  for (size_t k = 0; have_own && k < own.before_count; ++k) {
    cl_fix_step *before = cl_fix_add(fix, CUDALOAD_FIX_COMMAND);
    for (size_t i = 0; i < own.before_argc[k]; ++i)
      cl_fix_arg(fix, before, own.before[k][i]);
    if (k + 1 == own.before_count)
      cl_fix_note(fix, before, CL_NOTE_THIS_PYTHON_HAS_NO_PIP);
  }
  cl_fix_step *install = cl_fix_add(fix, action);
  for (size_t i = 0; have_own && i < own.argc; ++i)
    cl_fix_arg(fix, install, own.argv[i]);
  if (!have_own) {
    /* No interpreter to name: Windows' launcher where one is installed,
     * else the Python the program runs; on Linux, pip. */
    if (naming == CL_NAMING_WINDOWS)
      cl_fix_arg(fix, install, py_launcher_installed() ? "py" : "python");
    else
      cl_fix_arg(fix, install, pinned ? "python" : "pip");
    if (naming == CL_NAMING_WINDOWS || pinned) {
      cl_fix_arg(fix, install, "-m");
      cl_fix_arg(fix, install, "pip");
    }
    cl_fix_arg(fix, install, "install");
  }
  /* A quoted interpreter ("C:\Program Files\...") is a string to
   * PowerShell, which runs it after "&" only. */
  const char *powershell = naming == CL_NAMING_WINDOWS && install &&
                                   install->argc &&
                                   !spellable_bare(install->argv[0])
                               ? CL_NOTE_POWERSHELL_AMPERSAND
                               : "";
  if (!pinned) {
    if (have_own && own.source == CL_PIP_LAUNCHER) {
      /* The launcher runs another Python: into this one's folder. */
      cl_fix_arg(fix, install, "--target");
      cl_fix_arg(fix, install, own_site);
    }
    add_requirement_word(fix, install, w->package, spec);
    if (have_own)
      cl_fix_note(fix, install, CL_NOTE_OR_THE_VARIABLE, powershell, variable);
    else
      cl_fix_note(fix, install, CL_NOTE_PASS_SITE_PACKAGES_AS_A_ROOT,
                  powershell, variable);
    cl_pip_command_free(&own);
    free(own_site);
    return;
  }
  cl_pip_command_free(&own);
  free(own_site);
  char *dir = target_folder(pinned->path, site_len, family, major);
  if (!dir) {
    fix->failed = 1;
    return;
  }
  /* --target is the folder of its own here. The folder is one word
   * whatever its name holds: a folder named v$(touch PWNED) must not run
   * touch when the line is pasted. One that no spelling keeps literal in
   * both cmd and PowerShell is named apart, after the command. */
  cl_fix_arg(fix, install, "--no-deps");
  cl_fix_arg(fix, install, "--target");
  cl_fix_arg(fix, install, dir);
  add_requirement_word(fix, install, w->package, spec);
  /* --no-deps keeps pip from installing a second copy of what the
   * environment has; cuDNN opens cuBLAS of its CUDA major by name, so that
   * one comes along when nothing in the inventory is it. */
  if (strcmp(family, "cudnn") == 0)
    add_cublas_companion(fix, install, ctx, w, naming);
  cl_buf note = CL_BUF_INIT;
  cl_buf_puts(&note, powershell);
  if (!spellable(dir, naming))
    cl_buf_printf(&note, CL_NOTE_TYPE_THE_FOLDER_AS_YOUR_SHELL_NEEDS, dir);
  cl_buf_printf(&note, CL_NOTE_NOT_A_PLAIN_PIP_INSTALL, (int)site_len,
                pinned->path, pinned->entry->family, pinned->major,
                naming == CL_NAMING_WINDOWS ? '\\' : '/', w->folder, variable);
  char *words = cl_buf_take(&note);
  if (words)
    cl_fix_note(fix, install, "%s", words);
  else
    fix->failed = 1;
  free(words);
  free(dir);
}

/* The CUDA majors NVIDIA ships r's family in ABI major `major` for
 * (a wheel each), newest first; how many (at most `cap`). */
static size_t candidate_cudas(const cl_requirement *r, long major,
                              cl_naming naming, int *out, size_t cap) {
  size_t n = 0;
  for (int cuda = 13; cuda >= 11 && n < cap; --cuda)
    if (find_wheel(r->entry->family, cuda, major, naming) &&
        !(major && cuda_lacks_major(r->entry, cuda, major)))
      out[n++] = cuda;
  return n;
}

/* The fix from what the inventory holds: the package to install, where. */
static void fix_for_missing_here(const cudaload_ctx *ctx,
                                 const cl_requirement *r, cl_fix *fix,
                                 cl_fix_cuda *cuda) {
  cl_naming naming = cl_ctx_naming(ctx);
  const char *family = r->entry->family;
  long major = r->op == CL_OP_ANY ? 0 : r->version[0];
  if (r->op == CL_OP_LT && r->version_parts == 1)
    major = major - 1; /* "cudnn<9" wants 8 */
  const char *var = cl_catalog_path_variable(family);
  const char *files =
      naming == CL_NAMING_WINDOWS ? CL_NOTE_THE_DLLS : CL_NOTE_THE_LIBRARIES;
  /* The variable is a default root: where the caller left those out
   * (--no-defaults, defaults=False), setting it would change nothing. */
  char variable[160];
  if (ctx->flags & CUDALOAD_NO_DEFAULT_ROOTS)
    snprintf(variable, sizeof variable, CL_NOTE_PASS_THE_FOLDER_AS_A_ROOT,
             files, var);
  else
    snprintf(variable, sizeof variable, CL_NOTE_SET_THE_VARIABLE_TO_THE_FOLDER,
             var, files);

  decide_cuda(ctx, r, major, cuda);
  int others[4];
  if (cuda->major && major &&
      (cuda_lacks_major(r->entry, cuda->major, major) ||
       (!find_wheel(family, cuda->major, major, naming) &&
        candidate_cudas(r, major, naming, others, 4)))) {
    /* The program's CUDA major has no build of that major (cuDNN 8 on
     * CUDA 13): said, and the fix offers the majors that do. */
    size_t used = strlen(cuda->why);
    snprintf(cuda->why + used, sizeof cuda->why - used,
             CL_NOTE_CUDA_LACKS_THE_MAJOR, cuda->major, family, major);
    cuda->major = 0;
    cuda->source = 0;
  }
  int candidates[4];
  size_t n = cuda->major ? 0 : candidate_cudas(r, major, naming, candidates, 4);
  if (!cuda->major && n == 1) {
    cuda->major = candidates[0];
    cuda->source = CUDALOAD_FROM_MACHINE;
    snprintf(cuda->why, sizeof cuda->why, CL_NOTE_CUDA_THE_ONLY_BUILD, family,
             major, candidates[0]);
  }
  const wheel *w =
      cuda->major ? find_wheel(family, cuda->major, major, naming) : NULL;
  if (w) {
    install_steps(ctx, r, w, major, CUDALOAD_FIX_INSTALL, variable, fix);
    return;
  }
  if (n < 2) {
    /* The driver, or a library no wheel ships here (NCCL on Windows). */
    cl_fix_add_note(fix, "%s", variable);
    return;
  }
  /* Nothing says which CUDA major the program is built for: one command
   * per major that has the library, for the user to choose. */
  cl_fix_add_note(fix, CL_NOTE_WHICH_CUDA_MAJOR_UNSAID,
                  cuda->why[0] ? cuda->why : "", cuda->why[0] ? "; " : "");
  for (size_t i = 0; i < n; ++i) {
    cl_fix_add_note(fix, CL_NOTE_FOR_A_PROGRAM_BUILT_FOR_CUDA, candidates[i]);
    install_steps(ctx, r, find_wheel(family, candidates[i], major, naming),
                  major, CUDALOAD_FIX_CHOICE, variable, fix);
  }
}
