/* SPDX-License-Identifier: MIT */
/*
 * import_path.c - an interpreter's import path, read from where it lies
 * (import_path.h).
 *
 * Why not ask the interpreter: nothing of the target is run (a program
 * given to --for may be anyone's, and cudaload must answer the same under
 * sudo as the program would run there). So this follows what CPython's
 * site.py does at start-up, step by step: venv() reads pyvenv.cfg (next to
 * the executable or one folder up; a missing include-system-site-packages
 * means true), adds the venv's site-packages first, and either keeps the
 * base prefix (whose site folders come after the user site) or drops it
 * and the user site; addusersitepackages() and addsitepackages() follow;
 * each site folder's .pth files are read in name order, and a line is a
 * folder to append when it exists, unless it starts with "import".
 * PYTHONPATH comes before all of them.
 */
#include "scan/import_path.h"

#include "cudaload.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/python_pth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A .pth file longer than this is no list of folders anyone wrote; the
 * folders of the path are capped so that a hostile site cannot grow it
 * without end. */
#define PTH_MAX ((size_t)1 << 20)
#define FOLDERS_MAX 4096
#define CFG_MAX ((size_t)64 << 10)

static int windows_layout(void) {
  return cl_os_host_target() == CUDALOAD_TARGET_WINDOWS;
}

static int is_directory(const char *path) {
  return path && cl_os_stat_kind(path, NULL) == CL_KIND_DIRECTORY;
}

/* The folder of the path that is path already, by its spelling or by
 * what it is (a venv's lib64 is a link to its lib: one folder, as site.py,
 * whose getsitepackages() names only one, imports from it once), or
 * NULL. */
static cl_import_folder *known(cl_import_path *p, const char *path) {
  cl_file_identity id, other;
  int have_id = cl_os_file_identity(path, &id) == 1;
  for (size_t i = 0; i < p->count; ++i)
    if (cl_os_same_path(p->folders[i].path, strlen(p->folders[i].path), path,
                        strlen(path)) ||
        (have_id && cl_os_file_identity(p->folders[i].path, &other) == 1 &&
         other.device == id.device && other.inode == id.inode))
      return &p->folders[i];
  return NULL;
}

static void read_pth_files(cl_import_path *p, const char *site);

/* Append a folder that exists, once; a site folder's .pth files after it.
 * A site folder on the path already (a ._pth file lists
 * Lib\site-packages) stays where it is and becomes a site folder, its
 * .pth files read, as site.addsitedir() does. */
static void add_folder(cl_import_path *p, const char *path, const char *origin,
                       const char *pth, int site) {
  if (p->failed || !is_directory(path))
    return;
  cl_import_folder *there = known(p, path);
  if (there) {
    if (site && !there->site) {
      there->site = 1;
      read_pth_files(p, path); /* may move the folders: there is done */
    }
    return;
  }
  if (p->count >= FOLDERS_MAX)
    return;
  if (cl_reserve((void **)&p->folders, &p->capacity, p->count + 1,
                 sizeof *p->folders)) {
    p->failed = 1;
    return;
  }
  cl_import_folder f = {cl_strdup(path), origin, pth ? cl_strdup(pth) : NULL,
                        site};
  if (!f.path || (pth && !f.pth)) {
    free(f.path);
    free(f.pth);
    p->failed = 1;
    return;
  }
  p->folders[p->count++] = f;
  if (site)
    read_pth_files(p, path);
}

static void add_joined(cl_import_path *p, const char *base,
                       const char *relative, const char *origin) {
  char *path = cl_path_join(base, relative);
  if (!path)
    p->failed = 1;
  add_folder(p, path, origin, NULL, 1);
  free(path);
}

/* --- .pth files ---------------------------------------------------------- */

static int is_pth(const char *name, const void *arg) {
  (void)arg;
  return name[0] != '.' && cl_ends_with(name, ".pth");
}

static int separator(char c) {
  return c == '/' || c == CL_DIR_SEP;
}

/* A path with its "." and ".." components resolved as text, as site.py's
 * makepath() does (os.path.abspath, no links followed), in place. */
static void lexical_normal(char *path) {
  size_t root = separator(path[0]) ? 1 : 0;
  if (!root && path[0] && path[1] == ':' && separator(path[2]))
    root = 3; /* C:\ */
  char *out = path + root;
  const char *in = path + root;
  while (*in) {
    size_t n = 0;
    while (in[n] && !separator(in[n]))
      ++n;
    if (n == 0 || (n == 1 && in[0] == '.')) {
      /* nothing */
    } else if (n == 2 && in[0] == '.' && in[1] == '.') {
      /* The last component written goes, with the separator before it. */
      while (out > path + root && !separator(out[-1]))
        --out;
      if (out > path + root)
        --out;
    } else {
      /* Written at or before where it was read: out stays behind in. */
      if (out > path + root)
        *out++ = CL_DIR_SEP;
      memmove(out, in, n);
      out += n;
    }
    in += n;
    while (separator(*in))
      ++in;
  }
  *out = '\0';
}

static void read_pth(cl_import_path *p, const char *site, const char *file) {
  char *text = NULL;
  size_t len = 0;
  /* unreadable: site.py skips it too */
  int rc = cl_read_file_head_quiet(file, PTH_MAX, &text, &len);
  if (rc)
    return;
  const char *s = text, *end = text + len;
  if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
    s += 3; /* utf-8-sig, as site.py reads it */
  while (s < end && !p->failed) {
    const char *eol = memchr(s, '\n', (size_t)(end - s));
    const char *stop = eol ? eol : end;
    const char *a = s, *b = stop;
    while (b > a && cl_ascii_is_space(b[-1]))
      --b;
    int blank = 1;
    for (const char *q = a; q < b && blank; ++q)
      blank = cl_ascii_is_space(*q);
    if (a < b && *a == '#') {
      /* a comment */
    } else if ((size_t)(b - a) >= 7 &&
               (!strncmp(a, "import ", 7) || !strncmp(a, "import\t", 7))) {
      p->pth_code_lines++; /* code: never run here */
    } else if (!blank && !memchr(a, '\0', (size_t)(b - a))) {
      char *line = cl_strndup(a, (size_t)(b - a));
      char *path = !line                          ? NULL
                   : cl_os_path_is_absolute(line) ? cl_strdup(line)
                                                  : cl_path_join(site, line);
      if (!path) {
        p->failed = 1;
      } else {
        lexical_normal(path);
        add_folder(p, path, CL_IMPORT_PTH, file, 0);
      }
      free(path);
      free(line);
    }
    s = eol ? eol + 1 : end;
  }
  free(text);
}

static void read_pth_files(cl_import_path *p, const char *site) {
  cl_name_list names = {0};
  /* an unreadable folder has no .pth files */
  if (cl_name_list_read(site, is_pth, NULL, NULL, &names))
    p->failed = 1;
  for (size_t i = 0; i < names.count && !p->failed; ++i) {
    char *file = cl_path_join(site, names.names[i]);
    if (!file)
      p->failed = 1;
    else if (cl_os_stat_kind(file, NULL) == CL_KIND_REGULAR)
      read_pth(p, site, file);
    free(file);
  }
  cl_name_list_free(&names);
}

/* --- versions and prefixes ----------------------------------------------- */

/* "3.11" of a version "3.11.7" (or "3.11"), in out; 0 when it is none. */
static int major_minor(const char *version, char *out, size_t size) {
  unsigned major = 0, minor = 0;
  if (!version || sscanf(version, "%u.%u", &major, &minor) != 2 || major > 99 ||
      minor > 999)
    return 0;
  snprintf(out, size, "%u.%u", major, minor);
  return 1;
}

static int is_python_folder(const char *name, const void *arg) {
  (void)arg;
  unsigned major, minor;
  char tail;
  return sscanf(name, "python%u.%u%c", &major, &minor, &tail) == 2;
}

/* The version of the one lib/pythonX.Y folder under prefix, into the
 * path's version when none is known yet. */
static void version_from_prefix(cl_import_path *p, const char *prefix) {
  if (p->python_version[0])
    return;
  char *lib = cl_path_join(prefix, "lib");
  cl_name_list names = {0};
  if (lib)
    cl_name_list_read(lib, is_python_folder, NULL, NULL, &names);
  if (names.count == 1)
    snprintf(p->python_version, sizeof p->python_version, "%s",
             names.names[0] + 6);
  cl_name_list_free(&names);
  free(lib);
}

/* The site folders of a prefix (sys.prefix, or a venv's), as site.py's
 * getsitepackages() names them, Debian's dist-packages too. */
static void prefix_sites(cl_import_path *p, const char *prefix,
                         const char *origin) {
  if (windows_layout()) {
    add_joined(p, prefix, "Lib/site-packages", origin);
    return;
  }
  char xy[16], relative[96];
  if (major_minor(p->python_version, xy, sizeof xy)) {
    snprintf(relative, sizeof relative, "lib/python%s/site-packages", xy);
    add_joined(p, prefix, relative, origin);
    snprintf(relative, sizeof relative, "lib64/python%s/site-packages", xy);
    add_joined(p, prefix, relative, origin);
    snprintf(relative, sizeof relative, "local/lib/python%s/dist-packages", xy);
    add_joined(p, prefix, relative, origin);
    add_joined(p, prefix, "lib/python3/dist-packages", origin);
    snprintf(relative, sizeof relative, "lib/python%s/dist-packages", xy);
    add_joined(p, prefix, relative, origin);
  }
  /* A layout whose version is not known: each lib/python3.X folder's. */
  char *lib = cl_path_join(prefix, "lib");
  cl_name_list names = {0};
  if (lib && !p->python_version[0])
    cl_name_list_read(lib, is_python_folder, NULL, NULL, &names);
  for (size_t i = 0; i < names.count; ++i) {
    snprintf(relative, sizeof relative, "%.40s/site-packages", names.names[i]);
    add_joined(p, lib, relative, origin);
  }
  cl_name_list_free(&names);
  free(lib);
}

/* The user site (site.py's getusersitepackages()): off when
 * PYTHONNOUSERSITE is set (cl_os_getenv answers nothing to a setuid
 * process, where site.py turns it off too), unless the interpreter reads
 * no PYTHON* variables (isolated: `variables` 0). PYTHONUSERBASE is
 * site.py's own read of os.environ, which it makes either way. */
static void user_site(cl_import_path *p, int variables) {
  char *off = variables ? cl_os_getenv("PYTHONNOUSERSITE") : NULL;
  int disabled = off && *off;
  free(off);
  char xy[16];
  if (disabled || !major_minor(p->python_version, xy, sizeof xy))
    return;
  char *base = cl_os_getenv("PYTHONUSERBASE");
  if (!base || !*base || !cl_os_path_is_absolute(base)) {
    free(base);
    char *home = windows_layout() ? cl_os_getenv("APPDATA") : cl_os_home_dir();
    base = home && cl_os_path_is_absolute(home)
               ? cl_path_join(home, windows_layout() ? "Python" : ".local")
               : NULL;
    free(home);
  }
  if (!base)
    return;
  char relative[64];
  if (windows_layout()) {
    unsigned major = 0, minor = 0;
    sscanf(xy, "%u.%u", &major, &minor);
    snprintf(relative, sizeof relative, "Python%u%u/site-packages", major,
             minor);
  } else {
    snprintf(relative, sizeof relative, "lib/python%s/site-packages", xy);
  }
  add_joined(p, base, relative, CL_IMPORT_USER_SITE);
  free(base);
}

/* PYTHONPATH's absolute folders (a relative one is the program's current
 * folder's, which cudaload never searches). */
static void pythonpath(cl_import_path *p) {
  char *value = cl_os_getenv("PYTHONPATH");
  for (char *entry = value; entry && *entry;) {
    char *end = strchr(entry, CL_LIST_SEP);
    if (end)
      *end = '\0';
    if (*entry && cl_os_path_is_absolute(entry))
      add_folder(p, entry, CL_IMPORT_PYTHONPATH, NULL, 0);
    entry = end ? end + 1 : NULL;
  }
  free(value);
}

/* --- venvs --------------------------------------------------------------- */

typedef struct venv_config {
  int system_site; /* include-system-site-packages (default: true) */
  char *home;      /* the base interpreter's folder */
  char version[24];
} venv_config;

static void read_config(const char *cfg, venv_config *out) {
  memset(out, 0, sizeof *out);
  out->system_site = 1;
  char *text = NULL;
  size_t len = 0;
  int rc = cl_read_file_head_quiet(cfg, CFG_MAX, &text, &len);
  if (rc)
    return;
  for (const char *s = text, *end = text + len; s < end;) {
    const char *eol = memchr(s, '\n', (size_t)(end - s));
    const char *stop = eol ? eol : end;
    const char *eq = memchr(s, '=', (size_t)(stop - s));
    if (eq) {
      const char *k = s, *ke = eq, *v = eq + 1, *ve = stop;
      while (k < ke && cl_ascii_is_space(*k))
        ++k;
      while (ke > k && cl_ascii_is_space(ke[-1]))
        --ke;
      while (v < ve && cl_ascii_is_space(*v))
        ++v;
      while (ve > v && cl_ascii_is_space(ve[-1]))
        --ve;
      size_t kn = (size_t)(ke - k), vn = (size_t)(ve - v);
      if (kn == 28 && cl_same_nocase(k, "include-system-site-packages", 28))
        out->system_site = vn == 4 && cl_same_nocase(v, "true", 4);
      else if (kn == 4 && cl_same_nocase(k, "home", 4) && !out->home)
        out->home = cl_strndup(v, vn);
      else if (((kn == 7 && cl_same_nocase(k, "version", 7)) ||
                (kn == 12 && cl_same_nocase(k, "version_info", 12))) &&
               !out->version[0] && vn < sizeof out->version)
        snprintf(out->version, sizeof out->version, "%.*s", (int)vn, v);
    }
    s = eol ? eol + 1 : end;
  }
  free(text);
}

/* The base interpreter's prefix: the first folder from `home` up that
 * holds the standard library (getpath's landmark), else home's parent. */
static char *base_prefix(const char *home, const char *xy) {
  char landmark[64];
  if (windows_layout())
    snprintf(landmark, sizeof landmark, "Lib/os.py");
  else
    snprintf(landmark, sizeof landmark, "lib/python%s/os.py", xy);
  char *at = cl_strdup(home);
  for (int depth = 0; at && depth < 8; ++depth) {
    char *probe = cl_path_join(at, landmark);
    int found = probe && cl_os_stat_kind(probe, NULL) == CL_KIND_REGULAR;
    free(probe);
    if (found)
      return at;
    char *up = cl_path_dirname(at);
    if (!up || !strcmp(up, at)) {
      free(up);
      break;
    }
    free(at);
    at = up;
  }
  free(at);
  return windows_layout() ? cl_strdup(home) : cl_path_dirname(home);
}

/* A venv at root whose pyvenv.cfg is cfg: its site folders, then, with
 * its base interpreter's, the user site and the base's. */
static void add_venv(cl_import_path *p, const char *root, const char *cfg,
                     const char *origin) {
  venv_config c;
  read_config(cfg, &c);
  free(p->venv);
  p->venv = cl_strdup(root);
  p->system_site = c.system_site;
  if (!p->python_version[0] && c.version[0])
    snprintf(p->python_version, sizeof p->python_version, "%s", c.version);
  version_from_prefix(p, root);
  prefix_sites(p, root, origin);
  char xy[16];
  if (c.system_site) {
    user_site(p, 1);
    if (c.home && cl_os_path_is_absolute(c.home) &&
        major_minor(p->python_version, xy, sizeof xy)) {
      char *prefix = base_prefix(c.home, xy);
      if (prefix)
        prefix_sites(p, prefix, CL_IMPORT_BASE_SITE);
      free(prefix);
    }
  }
  free(c.home);
}

static char *venv_config_of(const char *root) {
  char *cfg = cl_path_join(root, "pyvenv.cfg");
  if (cfg && cl_os_stat_kind(cfg, NULL) == CL_KIND_REGULAR)
    return cfg;
  free(cfg);
  return NULL;
}

static int holds_distinfo(const char *name, const void *arg) {
  (void)arg;
  return cl_ends_with(name, ".dist-info") || cl_ends_with(name, ".egg-info");
}

static int is_site_folder(const char *folder) {
  const char *base = cl_path_basename(folder);
  if (!strcmp(base, "site-packages") || !strcmp(base, "dist-packages"))
    return 1;
  cl_name_list names = {0};
  cl_name_list_read(folder, holds_distinfo, NULL, NULL, &names);
  int yes = names.count > 0;
  cl_name_list_free(&names);
  return yes;
}

/* "3.11" of a site folder .../lib/python3.11/site-packages. */
static void version_from_site(cl_import_path *p, const char *site) {
  char *parent = p->python_version[0] ? NULL : cl_path_dirname(site);
  if (parent && is_python_folder(cl_path_basename(parent), NULL))
    snprintf(p->python_version, sizeof p->python_version, "%s",
             cl_path_basename(parent) + 6);
  free(parent);
}

/* --- the entry points ---------------------------------------------------- */

void cl_import_path_add_root(cl_import_path *p, const char *root, int given) {
  const char *origin = given ? CL_IMPORT_GIVEN : CL_IMPORT_SITE;
  char *cfg = venv_config_of(root);
  if (cfg)
    add_venv(p, root, cfg, given ? origin : CL_IMPORT_VENV_SITE);
  else if (is_site_folder(root)) {
    version_from_site(p, root);
    add_folder(p, root, origin, NULL, 1);
  } else {
    version_from_prefix(p, root);
    prefix_sites(p, root, origin);
  }
  free(cfg);
}

void cl_import_path_init(cl_import_path *path) {
  memset(path, 0, sizeof *path);
  pythonpath(path);
}

void cl_import_path_of_roots(const char *const *roots, size_t count, int given,
                             cl_import_path *out) {
  cl_import_path_init(out);
  for (size_t i = 0; i < count; ++i)
    cl_import_path_add_root(out, roots[i], given);
}

/* "3.11" from the real file name of a non-venv interpreter ("python3.11"). */
static void version_from_name(cl_import_path *p, const char *program) {
  char *real = cl_os_real_path_quiet(program, NULL);
  unsigned major, minor;
  char tail;
  if (real && sscanf(cl_path_basename(real), "python%u.%u%c", &major, &minor,
                     &tail) == 2)
    snprintf(p->python_version, sizeof p->python_version, "%u.%u", major,
             minor);
  free(real);
}

/* Drop the folders PYTHONPATH put first: an interpreter that reads no
 * variables does not see them. */
static void drop_pythonpath(cl_import_path *p) {
  size_t kept = 0;
  for (size_t i = 0; i < p->count; ++i) {
    cl_import_folder *f = &p->folders[i];
    if (!strcmp(f->origin, CL_IMPORT_PYTHONPATH)) {
      free(f->path);
      free(f->pth);
    } else {
      p->folders[kept++] = *f;
    }
  }
  p->count = kept;
}

/* A CPython whose ._pth file fixes its import path (python_pth.h): the
 * folders the file lists, in its order, and nothing from PYTHONPATH (the
 * file puts it in isolated mode); with "import site", what site.main()
 * adds after them: the user site (CPython before 3.15 still added it,
 * python/cpython#120037), then each site folder of the prefix (on
 * Windows the prefix itself and its Lib\site-packages) with its .pth
 * files. Returns 0 when no ._pth file governs the interpreter. */
static int add_pth_interpreter(cl_import_path *p, const char *program) {
  cl_python_pth pth;
  int rc = cl_python_pth_read(program, &pth);
  if (rc < 0)
    p->failed = 1;
  if (rc <= 0)
    return rc < 0;
  drop_pythonpath(p);
  if (!p->python_version[0])
    snprintf(p->python_version, sizeof p->python_version, "%s", pth.version);
  for (size_t i = 0; i < pth.count && !p->failed; ++i) {
    /* getpath takes each as abspath(join(its folder, line)). */
    lexical_normal(pth.folders[i]);
    add_folder(p, pth.folders[i], CL_IMPORT_PTH_FILE, pth.file, 0);
  }
  if (pth.site) {
    unsigned major = 0, minor = 0;
    if (sscanf(p->python_version, "%u.%u", &major, &minor) == 2 &&
        (major < 3 || (major == 3 && minor < 15)))
      user_site(p, 0);
    /* site.addsitedir(prefix): on the path already when the file lists
     * ".", its .pth files read either way. */
    add_folder(p, pth.prefix, CL_IMPORT_SITE, NULL, 0);
    read_pth_files(p, pth.prefix);
    prefix_sites(p, pth.prefix, CL_IMPORT_SITE);
  }
  cl_python_pth_free(&pth);
  return 1;
}

void cl_import_path_of_interpreter(const char *program, cl_import_path *out) {
  cl_import_path_init(out);
  cl_import_path_add_interpreter(out, program);
}

void cl_import_path_add_interpreter(cl_import_path *out, const char *program) {
  char *bin = cl_path_dirname(program);
  char *root = bin ? cl_path_dirname(bin) : NULL;
  /* site.py looks for pyvenv.cfg beside the executable, then one up; the
   * venv's prefix is the folder above the executable's either way. */
  char *cfg = bin ? venv_config_of(bin) : NULL;
  if (!cfg && root)
    cfg = venv_config_of(root);
  if (cfg && root) {
    add_venv(out, root, cfg, CL_IMPORT_VENV_SITE);
  } else if (windows_layout() && add_pth_interpreter(out, program)) {
    /* Its ._pth file is its whole import path. */
  } else if (bin && root) {
    /* No venv: its prefix is where its real file lies (/usr/bin/python3
     * -> /usr), a Windows installation's is its own folder. */
    version_from_name(out, program);
    char *real = cl_os_real_path_quiet(program, NULL);
    char *real_bin = real ? cl_path_dirname(real) : NULL;
    char *prefix = !real_bin          ? NULL
                   : windows_layout() ? cl_strdup(real_bin)
                                      : cl_path_dirname(real_bin);
    if (prefix) {
      version_from_prefix(out, prefix);
      user_site(out, 1);
      prefix_sites(out, prefix, CL_IMPORT_SITE);
    }
    free(prefix);
    free(real_bin);
    free(real);
  }
  free(cfg);
  free(root);
  free(bin);
}

void cl_import_path_free(cl_import_path *path) {
  for (size_t i = 0; i < path->count; ++i) {
    free(path->folders[i].path);
    free(path->folders[i].pth);
  }
  free(path->folders);
  free(path->venv);
  memset(path, 0, sizeof *path);
}
