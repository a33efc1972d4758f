/* SPDX-License-Identifier: MIT */
/*
 * env.c - the library search-path variable for a plan (LD_LIBRARY_PATH on
 * Linux, PATH on Windows): the plan's folders first, the rest after, no
 * duplicates, and never an empty, "." or relative entry (each of those
 * makes the loader search the current folder: DLL planting).
 */
#include "core/context.h"
#include "scan/inventory.h"
#include "scan/machine.h"
#include "scan/catalog.h"
#include "common/buf.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "load/plan_state.h"

#include <stdlib.h>
#include <string.h>

const char *cudaload_env_name(void) {
  return cl_os_library_path_variable();
}

static int same_entry(const char *a, size_t alen, const char *b, size_t blen) {
  /* Trailing separators are ignored; the OS says whether case counts. */
  while (alen > 1 && (a[alen - 1] == '/' || a[alen - 1] == '\\'))
    --alen;
  while (blen > 1 && (b[blen - 1] == '/' || b[blen - 1] == '\\'))
    --blen;
  return cl_os_same_path(a, alen, b, blen);
}

/* The list is a cl_buf of entries joined by CL_LIST_SEP. */
static int contains(const cl_buf *l, const char *entry, size_t len) {
  size_t pos = 0;
  while (pos < l->len) {
    const char *start = l->data + pos;
    const char *sep = memchr(start, CL_LIST_SEP, l->len - pos);
    size_t n = sep ? (size_t)(sep - start) : l->len - pos;
    if (same_entry(start, n, entry, len))
      return 1;
    pos += n + 1;
  }
  return 0;
}

/* Whether an entry may stay: absolute (an empty or relative one makes the
 * loader search the current folder). On Windows an entry may be written in
 * quotes ("C:\q dir"): cmd and CreateProcess read it so when they search
 * for programs, so the user's entry is kept as written, though the DLL
 * loader does not strip the quotes (the plan's folders are written without
 * any, and a quoted copy is not taken for one of them). */
static int usable_entry(char *copy, size_t len) {
  if (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS && len > 2 &&
      copy[0] == '"' && copy[len - 1] == '"') {
    copy[len - 1] = '\0';
    return strchr(copy + 1, '"') == NULL && cl_os_path_is_absolute(copy + 1);
  }
  return cl_os_path_is_absolute(copy);
}

static void add(cl_buf *l, const char *entry, size_t len) {
  if (len == 0 || l->failed)
    return;
  char *copy = cl_strndup(entry, len);
  if (!copy) {
    l->failed = 1;
    return;
  }
  int usable = usable_entry(copy, len);
  free(copy);
  if (!usable || contains(l, entry, len))
    return;
  static const char separator[1] = {CL_LIST_SEP};
  if (l->len)
    cl_buf_append(l, separator, 1);
  cl_buf_append(l, entry, len);
}

/* A folder whose name holds the list separator cannot be an entry: the
 * loader splits "/x/c:o:l" into "/x/c", "o" and "l", and the last two are
 * relative, searched from whatever the current folder is (planting). There
 * is no quoting in these variables, so the folder is refused, naming it. */
static int refuse_separator(const char *folder) {
  return cl_fail(
      CUDALOAD_E_INSECURE,
      "%s: this folder cannot be put on %s: its name holds '%c', which the "
      "loader reads as the separator between entries, so it would also "
      "search the relative folders the name splits into (anyone could plant "
      "a library there). Rename or move the folder, or load the libraries "
      "in this process by absolute path (cudaload_preload)",
      folder, cudaload_env_name(), CL_LIST_SEP);
}

int cudaload_env_value(cudaload_ctx *ctx, const char *current,
                       const char **value) {
  cl_clear_error();
  if (value)
    *value = NULL;
  if (!ctx || !value)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_env_value: NULL %s",
                   ctx ? "value" : "ctx");
  if (!cl_plan_state_of(ctx)->planned) {
    int rc = cudaload_plan(ctx, 0);
    if (rc != CUDALOAD_OK && rc != CUDALOAD_E_UNSATISFIED)
      return rc;
    cl_clear_error();
  }
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  cl_buf l = CL_BUF_INIT;
  for (size_t i = 0; i < ps->plan_count; ++i) {
    char *folder = cl_path_dirname(ps->plan[i].path);
    if (!folder) {
      l.failed = 1;
      break;
    }
    if (strchr(folder, CL_LIST_SEP)) {
      int rc = refuse_separator(folder);
      free(folder);
      cl_buf_free(&l);
      return rc;
    }
    add(&l, folder, strlen(folder));
    free(folder);
  }
  for (const char *p = current; p && *p && !l.failed;) {
    const char *sep = strchr(p, CL_LIST_SEP);
    size_t n = sep ? (size_t)(sep - p) : strlen(p);
    add(&l, p, n);
    p = sep ? sep + 1 : p + n;
  }
  char *composed = cl_buf_take(&l);
  if (!composed)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_env_compose: out of memory");
  free(ps->env_value);
  ps->env_value = composed;
  *value = ps->env_value;
  return CUDALOAD_OK;
}

const char *cudaload_env_compose(cudaload_ctx *ctx, const char *current) {
  const char *value = NULL;
  if (!ctx) {
    cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_env_compose: NULL ctx");
    return NULL;
  }
  cudaload_env_value(ctx, current, &value);
  return value;
}

int cudaload_env_apply(cudaload_ctx *ctx) {
  cl_clear_error();
  if (!ctx)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_env_apply: NULL ctx");
  char *current = cl_os_getenv(cudaload_env_name());
  const char *value;
  int status = cudaload_env_value(ctx, current, &value);
  free(current);
  if (status != CUDALOAD_OK)
    return status;
  return cl_os_set_env(cudaload_env_name(), value);
}
