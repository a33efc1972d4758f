/* SPDX-License-Identifier: MIT */
/*
 * recorded_roots.c - an environment's cudaload.roots (recorded_roots.h):
 * where it lies beside an environment root, its strict form, the trust it
 * must earn before the scan follows it, and the one writer that adds a
 * folder to it (`cudaload fix`, through lib/fix/).
 */
#include "scan/recorded_roots.h"
#include "cudaload.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/layouts.h"
#include "scan/trust.h"
#include "common/reason_words.h"

#include <stdlib.h>
#include <string.h>

/* A folder's path longer than this is no path a file system takes. */
#define LINE_MAX_BYTES 4096

static const char header[] = CL_WORDS_CUDALOAD_ROOTS_FOLDERS_CUDALOAD_SEARCHES;

char *cl_recorded_roots_path(const char *site_packages) {
  char *parent = cl_path_dirname(site_packages);
  char *path = parent && strcmp(parent, site_packages) != 0
                   ? cl_path_join(parent, CL_RECORDED_ROOTS_NAME)
                   : NULL;
  free(parent);
  return path;
}

/* Why line[0..n) is no folder line, or NULL (a folder, or a line to skip:
 * *skip). */
static const char *judge_line(const char *line, size_t n, int *skip) {
  *skip = n == 0 || line[0] == '#';
  if (*skip)
    return NULL;
  if (memchr(line, '\0', n))
    return CL_WORDS_IT_HOLDS_A_NUL_BYTE;
  if (memchr(line, '\r', n))
    return CL_WORDS_IT_HOLDS_A_CARRIAGE_RETURN;
  if (n > LINE_MAX_BYTES)
    return CL_WORDS_IT_IS_LONGER_THAN_A;
  if (line[0] == ' ' || line[0] == '\t' || line[n - 1] == ' ' ||
      line[n - 1] == '\t')
    return CL_WORDS_BLANKS_BEFORE_OR_AFTER_THE;
  char *copy = cl_strndup(line, n);
  int absolute = copy && cl_os_path_is_absolute(copy);
  free(copy);
  if (!absolute)
    return CL_WORDS_IT_IS_NOT_AN_ABSOLUTE;
  return NULL;
}

/* The lines of text, each without its end ("\n", or "\r\n"); calls
 * each(line, n, number) until it returns non-zero, which is returned. */
typedef int (*line_fn)(const char *line, size_t n, size_t number, void *opaque);
static int each_line(const char *text, size_t len, line_fn each, void *opaque) {
  size_t number = 0;
  for (size_t at = 0; at < len;) {
    const char *end = memchr(text + at, '\n', len - at);
    size_t n = end ? (size_t)(end - (text + at)) : len - at;
    size_t next = at + n + (end ? 1 : 0);
    if (end && n > 0 && text[at + n - 1] == '\r')
      --n;
    int rc = each(text + at, n, ++number, opaque);
    if (rc)
      return rc;
    at = next;
  }
  return 0;
}

typedef struct parse_state {
  cl_recorded_visitor visit;
  void *opaque;
  size_t bad_line;
  const char *why;
} parse_state;

static int check_line(const char *line, size_t n, size_t number, void *opaque) {
  parse_state *p = opaque;
  int skip;
  const char *why = judge_line(line, n, &skip);
  if (!why)
    return 0;
  p->bad_line = number;
  p->why = why;
  return CUDALOAD_E_MALFORMED;
}

static int visit_line(const char *line, size_t n, size_t number, void *opaque) {
  parse_state *p = opaque;
  int skip;
  (void)number;
  if (judge_line(line, n, &skip) || skip)
    return 0;
  char *folder = cl_strndup(line, n);
  if (!folder)
    return CUDALOAD_E_NO_MEMORY;
  int rc = p->visit(folder, p->opaque);
  free(folder);
  return rc;
}

int cl_recorded_roots_parse(const char *text, size_t len,
                            cl_recorded_visitor visit, void *opaque,
                            size_t *bad_line, const char **why) {
  parse_state p = {visit, opaque, 0, NULL};
  *bad_line = 0;
  *why = NULL;
  /* Judged whole first: a record with one bad line gives no folder. */
  int rc = each_line(text, len, check_line, &p);
  if (rc) {
    *bad_line = p.bad_line;
    *why = p.why;
    return rc;
  }
  return visit ? each_line(text, len, visit_line, &p) : 0;
}

/* --- what the scan follows ----------------------------------------------- */

typedef struct sink_call {
  const char *record;
  cl_recorded_sink sink;
  void *opaque;
} sink_call;

static int give_folder(const char *folder, void *opaque) {
  sink_call *c = opaque;
  c->sink(c->record, folder, CUDALOAD_OK, NULL, c->opaque);
  return 0;
}

/* Read the record at path, when there is one, and give what it says. */
static void follow_record(const char *path, int allow_writable,
                          cl_recorded_sink sink, void *opaque) {
  cl_file_kind kind = cl_os_stat_kind(path, NULL);
  if (kind == CL_KIND_MISSING)
    return;
  if (kind != CL_KIND_REGULAR) {
    sink(path, NULL, CUDALOAD_E_MALFORMED, CL_WORDS_IT_IS_NOT_A_REGULAR,
         opaque);
    return;
  }
  if (!allow_writable) {
    int out_of_memory = 0;
    char *folder = cl_path_dirname(path);
    char *why = folder
                    ? cl_trust_source_refusal(path, 0, folder, &out_of_memory)
                    : NULL;
    free(folder);
    if (why || out_of_memory || !folder) {
      char *detail =
          why ? cl_strdup_printf(CL_WORDS_WHOEVER_CAN_CHANGE_IT_CHOOSES, why)
              : NULL;
      sink(path, NULL, why ? CUDALOAD_E_INSECURE : CUDALOAD_E_NO_MEMORY,
           detail ? detail : (why ? why : CL_WORDS_OUT_OF_MEMORY), opaque);
      free(detail);
      free(why);
      return;
    }
  }
  char *text = NULL;
  size_t len = 0;
  int rc = cl_read_file_head_quiet(path, CL_RECORDED_ROOTS_MAX_BYTES + 1, &text,
                                   &len);
  if (rc) {
    sink(path, NULL, rc == CUDALOAD_E_NO_MEMORY ? rc : CUDALOAD_E_IO,
         rc == CUDALOAD_E_NO_MEMORY ? CL_WORDS_OUT_OF_MEMORY
                                    : CL_WORDS_IT_CANNOT_BE_READ,
         opaque);
    return;
  }
  size_t bad_line = 0;
  const char *why = NULL;
  if (len > CL_RECORDED_ROOTS_MAX_BYTES) {
    sink(path, NULL, CUDALOAD_E_MALFORMED, CL_WORDS_IT_IS_LONGER_THAN_65536,
         opaque);
  } else if (cl_recorded_roots_parse(text, len, NULL, NULL, &bad_line, &why)) {
    char *detail = cl_strdup_printf("line %zu: %s", bad_line, why);
    sink(path, NULL, CUDALOAD_E_MALFORMED, detail ? detail : why, opaque);
    free(detail);
  } else {
    sink_call c = {path, sink, opaque};
    (void)cl_recorded_roots_parse(text, len, give_folder, &c, &bad_line, &why);
  }
  free(text);
}

static int named_site_folder(const char *root) {
  const char *base = cl_path_basename(root);
  return strcmp(base, "site-packages") == 0 ||
         strcmp(base, "dist-packages") == 0;
}

void cl_recorded_roots_of(const char *root, int allow_writable,
                          cl_recorded_sink sink, void *opaque) {
  if (named_site_folder(root)) {
    char *record = cl_recorded_roots_path(root);
    if (record)
      follow_record(record, allow_writable, sink, opaque);
    free(record);
    return;
  }
  /* A venv or conda prefix: beside each site-packages the layouts search
   * in it (scan/layouts.c), by name, never by listing lib/. */
  for (size_t i = 0; cl_layout_python_versions[i]; ++i) {
    char *relative = cl_strdup_printf("lib/python%s/" CL_RECORDED_ROOTS_NAME,
                                      cl_layout_python_versions[i]);
    char *record = relative ? cl_path_join(root, relative) : NULL;
    if (record)
      follow_record(record, allow_writable, sink, opaque);
    free(record);
    free(relative);
  }
  char *record = cl_path_join(root, "Lib/" CL_RECORDED_ROOTS_NAME);
  if (record)
    follow_record(record, allow_writable, sink, opaque);
  free(record);
}

/* --- the writer ----------------------------------------------------------- */

typedef struct listed_check {
  const char *folder;
  int listed;
} listed_check;

static int note_listed(const char *folder, void *opaque) {
  listed_check *l = opaque;
  size_t a = strlen(folder), b = strlen(l->folder);
  if (cl_os_same_path(folder, a, l->folder, b))
    l->listed = 1;
  return 0;
}

int cl_recorded_roots_add(const char *record, const char *folder) {
  size_t bad_line = 0;
  const char *why = NULL;
  int skip;
  if (judge_line(folder, strlen(folder), &skip) || skip)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "%s: '%s' is not an absolute folder to record", record,
                   folder);
  char *text = NULL;
  size_t len = 0;
  cl_file_kind kind = cl_os_lstat_kind(record);
  if (kind != CL_KIND_MISSING && kind != CL_KIND_REGULAR)
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s is not a regular file: it is left as it is", record);
  if (kind == CL_KIND_REGULAR) {
    int rc =
        cl_read_file_head(record, CL_RECORDED_ROOTS_MAX_BYTES + 1, &text, &len);
    if (rc)
      return cl_fail_naming(rc, record);
    if (len > CL_RECORDED_ROOTS_MAX_BYTES) {
      free(text);
      return cl_fail(CUDALOAD_E_MALFORMED,
                     "%s is longer than 65536 bytes: it is left as it is",
                     record);
    }
  }
  listed_check l = {folder, 0};
  if (text &&
      cl_recorded_roots_parse(text, len, note_listed, &l, &bad_line, &why)) {
    free(text);
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s, line %zu: %s; it is left as it is (correct or "
                   "remove that line)",
                   record, bad_line, why);
  }
  if (l.listed) {
    free(text);
    return CUDALOAD_OK;
  }
  cl_buf b = CL_BUF_INIT;
  if (text) {
    cl_buf_append(&b, text, len);
    if (len && text[len - 1] != '\n')
      cl_buf_puts(&b, "\n");
  } else {
    cl_buf_puts(&b, header);
  }
  cl_buf_printf(&b, "%s\n", folder);
  free(text);
  size_t new_len = b.len;
  char *data = cl_buf_take(&b);
  char *dir = cl_path_dirname(record);
  if (!data || !dir) {
    free(data);
    free(dir);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", record);
  }
  int rc =
      cl_os_shared_file_replace(dir, cl_path_basename(record), data, new_len);
  free(data);
  free(dir);
  return rc;
}
