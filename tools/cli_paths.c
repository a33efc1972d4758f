/* SPDX-License-Identifier: MIT */
/*
 * cli_paths.c - path arguments of the command line (--root, --driver,
 * --manifest) made absolute once, when they are parsed. People type
 * relative paths; the library takes only absolute ones (what it finds must
 * not depend on when it looks), and the reports should name a file the same
 * way wherever they are read. So the tool resolves against the current
 * folder, uses the absolute path from then on and prints it.
 */
#include "cli.h"
#include "os/platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include "win32/wide.h"

#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

static char *copy_of(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = malloc(n);
  if (copy)
    memcpy(copy, s, n);
  return copy;
}

#ifdef _WIN32
/* GetFullPathNameW does what the POSIX side below does by hand: it joins
 * to the current folder (of the drive, for "C:x" and "\x") and drops "."
 * and ".." lexically. */
static int resolve(const char *value, char **out, const char **why) {
  int status = 0;
  wchar_t *wide = cl_os_utf8_to_wide(value, &status);
  if (!wide) {
    *why = status == CUDALOAD_E_NO_MEMORY ? NULL : "not valid UTF-8";
    return status == CUDALOAD_E_NO_MEMORY ? EXIT_INTERNAL : EXIT_USAGE;
  }
  DWORD size = GetFullPathNameW(wide, 0, NULL, NULL);
  wchar_t *full = size ? malloc(size * sizeof *full) : NULL;
  DWORD len = full ? GetFullPathNameW(wide, size, full, NULL) : 0;
  free(wide);
  if (size && !full)
    return EXIT_INTERNAL;
  /* "dir\" keeps its separator there; drop it, as the POSIX side does, but
   * not the one of a drive's root ("C:\"). */
  while (len > 3 && len < size &&
         (full[len - 1] == L'\\' || full[len - 1] == L'/'))
    --len;
  *out = len && len < size ? cl_os_wide_to_utf8(full, (int)len) : NULL;
  free(full);
  if (*out)
    return EXIT_OK;
  *why = "Windows could not make it a full path";
  return EXIT_INPUT;
}
#else
/* Whether path has a "." or ".." component: such a $PWD is not the
 * shell's logical path, and normalising it could name another folder. */
static int has_dot_component(const char *path) {
  for (const char *p = path; *p; ++p)
    if (*p == '.' && p[-1] == '/' &&
        (p[1] == '/' || !p[1] || (p[1] == '.' && (p[2] == '/' || !p[2]))))
      return 1;
  return 0;
}

/* The current folder as the user's shell shows it: $PWD keeps the symbolic
 * links the user went through (cd -L), getcwd() resolves them. $PWD is
 * trusted only when it names this very folder (it may be stale: a parent
 * did not update it, or the folder was replaced). NULL with errno set. */
static char *current_folder(void) {
  const char *pwd = getenv("PWD");
  struct stat named, here;
  if (pwd && pwd[0] == '/' && !has_dot_component(pwd) &&
      stat(pwd, &named) == 0 && stat(".", &here) == 0 &&
      named.st_dev == here.st_dev && named.st_ino == here.st_ino)
    return copy_of(pwd);
  for (size_t size = 256;; size *= 2) {
    char *buffer = malloc(size);
    if (!buffer)
      return NULL;
    if (getcwd(buffer, size))
      return buffer;
    int err = errno;
    free(buffer);
    if (err != ERANGE) {
      errno = err;
      return NULL;
    }
  }
}

/* base (absolute) joined to rel, with empty and "." components dropped and
 * ".." taking the previous component away: lexically, as the shell's cd
 * does, so "../x" from a folder reached through a link stays beside it. */
static char *join_normalised(const char *base, const char *rel) {
  char *out = malloc(strlen(base) + strlen(rel) + 3);
  if (!out)
    return NULL;
  size_t len = 0; /* out[0..len) is "/a/b", or "" for the root */
  const char *parts[2] = {base, rel};
  for (int k = 0; k < 2; ++k) {
    const char *p = parts[k];
    while (*p) {
      while (*p == '/')
        ++p;
      const char *start = p;
      while (*p && *p != '/')
        ++p;
      size_t n = (size_t)(p - start);
      if (n == 0 || (n == 1 && start[0] == '.'))
        continue;
      if (n == 2 && start[0] == '.' && start[1] == '.') {
        while (len > 0 && out[--len] != '/')
          ;
        continue;
      }
      out[len++] = '/';
      memcpy(out + len, start, n);
      len += n;
    }
  }
  if (len == 0)
    out[len++] = '/';
  out[len] = '\0';
  return out;
}

static int resolve(const char *value, char **out, const char **why) {
  char *here = current_folder();
  if (!here) {
    int err = errno;
    *why = strerror(err);
    return err == ENOMEM ? EXIT_INTERNAL : EXIT_INPUT;
  }
  *out = join_normalised(here, value);
  free(here);
  *why = NULL;
  return *out ? EXIT_OK : EXIT_INTERNAL;
}
#endif

int cli_absolute_path(const char *command, const char *option,
                      const char *value, char **out) {
  *out = NULL;
  if (!value[0])
    return cli_usage_error(command, "option '%s': the path is empty", option);
  /* Windows: a path pasted with its quotes (Explorer's "Copy as path",
   * then quoted again for PowerShell) keeps them; no Windows name holds a
   * '"', so one surrounding pair is taken off. */
  size_t length = strlen(value);
  char *unquoted = NULL;
  if (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS && length > 2 &&
      value[0] == '"' && value[length - 1] == '"') {
    unquoted = malloc(length - 1);
    if (!unquoted) {
      cli_error("cudaload: %s: out of memory\n", command);
      return EXIT_INTERNAL;
    }
    memcpy(unquoted, value + 1, length - 2);
    unquoted[length - 2] = '\0';
    int rc = cli_absolute_path(command, option, unquoted, out);
    free(unquoted);
    return rc;
  }
  /* An absolute path is the user's exact choice: kept, even its "..". */
  if (cl_os_path_is_absolute(value)) {
    *out = copy_of(value);
    if (*out)
      return EXIT_OK;
    cli_error("cudaload: %s: out of memory\n", command);
    return EXIT_INTERNAL;
  }
  const char *why = NULL;
  int rc = resolve(value, out, &why);
  if (rc == EXIT_USAGE)
    return cli_usage_error(command, "option '%s': '%s': %s", option, value,
                           why);
  if (rc == EXIT_INPUT)
    cli_error("cudaload: %s: %s '%s': cannot resolve it against the current "
              "folder: %s\n",
              command, option, value, why);
  else if (rc != EXIT_OK)
    cli_error("cudaload: %s: out of memory\n", command);
  return rc;
}
