/* SPDX-License-Identifier: MIT */
/*
 * report_inspect.c - the report of `cudaload inspect`: what ELF and PE
 * files say about themselves (headers, dependencies, symbol versions,
 * symbols), as text for people or one JSON/YAML document for programs
 * (cudaload_inspect_report(); the schema is in docs/cli.md).
 */
#include "cudaload.h"

#include "common/error.h"
#include "common/strutil.h"
#include "report/report_text.h"
#include "report/report_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *or_null(const char *s) {
  return s && *s ? s : NULL;
}

/* How many symbols of a kind carry a version, and how many exports are
 * forwarders. */
static size_t count_with(const cudaload_file *f, int kind, int forwarders) {
  size_t n = 0;
  for (size_t i = 0; i < cudaload_file_symbol_count(f, kind); ++i) {
    if (forwarders ? (cudaload_file_symbol_flags(f, kind, i) &
                      CUDALOAD_SYMBOL_FORWARDER) != 0
                   : *cudaload_file_symbol_version(f, kind, i) != '\0')
      ++n;
  }
  return n;
}

/* "name@@node", "name@node" or "name", as objdump and the linker write a
 * versioned symbol: @@ only for an export's default version. */
static void print_symbol(cl_text_report *t, const cudaload_file *f, int kind,
                         size_t i) {
  const char *version = cudaload_file_symbol_version(f, kind, i);
  const char *library = cudaload_file_symbol_library(f, kind, i);
  int flags = cudaload_file_symbol_flags(f, kind, i);
  cl_text_put(t, "  %-10s%s",
              kind == CUDALOAD_SYMBOL_EXPORT ? "export" : "import",
              cl_text_shown(t, cudaload_file_symbol_name(f, kind, i)));
  if (*version)
    cl_text_put(t, "%s%s",
                kind == CUDALOAD_SYMBOL_EXPORT &&
                        !(flags & CUDALOAD_SYMBOL_HIDDEN)
                    ? "@@"
                    : "@",
                cl_text_shown(t, version));
  if (kind == CUDALOAD_SYMBOL_EXPORT && *library)
    cl_text_put(t, " -> %s", cl_text_shown(t, library));
  if (kind == CUDALOAD_SYMBOL_IMPORT && *library)
    cl_text_put(t, " (%s%s)", cl_text_shown(t, library),
                flags & CUDALOAD_SYMBOL_WEAK ? ", weak" : "");
  else if (flags & CUDALOAD_SYMBOL_WEAK)
    cl_text_put(t, " (weak)");
  cl_text_put(t, "\n");
}

/* The symbol versions the file defines and those it requires. */
static void text_symbol_versions(cl_text_report *t, const cudaload_file *f) {
  size_t n = cudaload_file_version_count(f);
  if (n) {
    cl_text_put(t, "  %-10s", "defines");
    for (size_t i = 0; i < n; ++i)
      cl_text_put(t, "%s%s%s", i ? ", " : "",
                  cl_text_shown(t, cudaload_file_version_name(f, i)),
                  cudaload_file_version_is_default(f, i) ? " (default)" : "");
    cl_text_put(t, "\n");
  }
  for (size_t i = 0; i < cudaload_file_need_count(f); ++i) {
    cl_text_put(t, "  %-10s%s:", "requires",
                cl_text_shown(t, cudaload_file_need_file(f, i)));
    for (size_t j = 0; j < cudaload_file_need_version_count(f, i); ++j)
      cl_text_put(t, "%s %s", j ? "," : "",
                  cl_text_shown(t, cudaload_file_need_version(f, i, j)));
    cl_text_put(t, "\n");
  }
}

/* Symbol counts: PE exports may be forwarders, ELF symbols versioned. */
static void text_symbol_counts(cl_text_report *t, const cudaload_file *f) {
  size_t exports = cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_EXPORT);
  size_t imports = cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_IMPORT);
  if (strcmp(cudaload_file_format(f), "pe") == 0) {
    size_t forwarders = count_with(f, CUDALOAD_SYMBOL_EXPORT, 1);
    cl_text_put(t, "  %-10s%zu (%zu forwarder%s)\n", "exports", exports,
                forwarders, forwarders == 1 ? "" : "s");
    cl_text_put(t, "  %-10s%zu\n", "imports", imports);
  } else {
    cl_text_put(t, "  %-10s%zu (%zu versioned)\n", "exports", exports,
                count_with(f, CUDALOAD_SYMBOL_EXPORT, 0));
    cl_text_put(t, "  %-10s%zu (%zu versioned)\n", "imports", imports,
                count_with(f, CUDALOAD_SYMBOL_IMPORT, 0));
  }
}

static void write_text(cl_text_report *t, const char *path,
                       const cudaload_file *f, int symbols) {
  cl_text_put(t, "%s\n", cl_text_shown(t, path));
  cl_text_put(t, "  %-10s%s (%d-bit, %s)\n", "format", cudaload_file_format(f),
              cudaload_file_bits(f), cudaload_file_machine(f));
  if (*cudaload_file_soname(f))
    cl_text_put(t, "  %-10s%s\n", "soname",
                cl_text_shown(t, cudaload_file_soname(f)));
  size_t n = cudaload_file_needed_count(f);
  if (n) {
    cl_text_put(t, "  %-10s", "needed");
    for (size_t i = 0; i < n; ++i)
      cl_text_put(t, "%s%s", i ? ", " : "",
                  cl_text_shown(t, cudaload_file_needed(f, i)));
    cl_text_put(t, "\n");
  }
  if (*cudaload_file_runpath(f))
    cl_text_put(t, "  %-10s%s\n", "runpath",
                cl_text_shown(t, cudaload_file_runpath(f)));
  if (*cudaload_file_rpath(f))
    cl_text_put(t, "  %-10s%s\n", "rpath",
                cl_text_shown(t, cudaload_file_rpath(f)));
  if (*cudaload_file_version(f))
    cl_text_put(t, "  %-10s%s\n", "version",
                cl_text_shown(t, cudaload_file_version(f)));
  int flags = cudaload_file_flags(f);
  if (flags & (CUDALOAD_FILE_SYMBOLIC | CUDALOAD_FILE_NODEFLIB))
    cl_text_put(t, "  %-10s%s%s%s\n", "flags",
                flags & CUDALOAD_FILE_SYMBOLIC ? "symbolic" : "",
                (flags & CUDALOAD_FILE_SYMBOLIC) &&
                        (flags & CUDALOAD_FILE_NODEFLIB)
                    ? ", "
                    : "",
                flags & CUDALOAD_FILE_NODEFLIB ? "nodeflib" : "");
  text_symbol_versions(t, f);
  text_symbol_counts(t, f);
  for (int kind = CUDALOAD_SYMBOL_EXPORT;
       symbols && kind <= CUDALOAD_SYMBOL_IMPORT; ++kind)
    for (size_t i = 0; i < cudaload_file_symbol_count(f, kind); ++i)
      print_symbol(t, f, kind, i);
}

static void write_symbols(cl_report_writer *w, const cudaload_file *f,
                          int kind) {
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_file_symbol_count(f, kind); ++i) {
    int flags = cudaload_file_symbol_flags(f, kind, i);
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, cudaload_file_symbol_name(f, kind, i));
    cl_report_key(w, "version");
    cl_report_string(w, or_null(cudaload_file_symbol_version(f, kind, i)));
    if (kind == CUDALOAD_SYMBOL_EXPORT) {
      cl_report_key(w, "hidden");
      cl_report_bool(w, (flags & CUDALOAD_SYMBOL_HIDDEN) != 0);
    } else {
      cl_report_key(w, "library");
      cl_report_string(w, or_null(cudaload_file_symbol_library(f, kind, i)));
    }
    cl_report_key(w, "weak");
    cl_report_bool(w, (flags & CUDALOAD_SYMBOL_WEAK) != 0);
    if (kind == CUDALOAD_SYMBOL_EXPORT) {
      cl_report_key(w, "forward");
      cl_report_string(w, or_null(cudaload_file_symbol_library(f, kind, i)));
    }
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* "version_definitions" and "version_needs": the symbol versions the
 * file defines and those it requires of each library. */
static void write_symbol_versions(cl_report_writer *w, const cudaload_file *f) {
  cl_report_key(w, "version_definitions");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_file_version_count(f); ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "name");
    cl_report_string(w, cudaload_file_version_name(f, i));
    cl_report_key(w, "default");
    cl_report_bool(w, cudaload_file_version_is_default(f, i));
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
  cl_report_key(w, "version_needs");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_file_need_count(f); ++i) {
    cl_report_begin_object(w);
    cl_report_key(w, "file");
    cl_report_string(w, cudaload_file_need_file(f, i));
    cl_report_key(w, "versions");
    cl_report_begin_array(w);
    for (size_t j = 0; j < cudaload_file_need_version_count(f, i); ++j)
      cl_report_string(w, cudaload_file_need_version(f, i, j));
    cl_report_end_array(w);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* "exports" and "imports": counts, and every symbol when asked. */
static void write_symbol_summaries(cl_report_writer *w, const cudaload_file *f,
                                   int symbols) {
  for (int kind = CUDALOAD_SYMBOL_EXPORT; kind <= CUDALOAD_SYMBOL_IMPORT;
       ++kind) {
    cl_report_key(w, kind == CUDALOAD_SYMBOL_EXPORT ? "exports" : "imports");
    cl_report_begin_object(w);
    cl_report_key(w, "count");
    cl_report_int(w, (long long)cudaload_file_symbol_count(f, kind));
    cl_report_key(w, "versioned");
    cl_report_int(w, (long long)count_with(f, kind, 0));
    if (kind == CUDALOAD_SYMBOL_EXPORT) {
      cl_report_key(w, "forwarders");
      cl_report_int(w, (long long)count_with(f, kind, 1));
    }
    cl_report_key(w, "symbols");
    if (symbols)
      write_symbols(w, f, kind);
    else
      cl_report_null(w);
    cl_report_end_object(w);
  }
}

static void write_entry(cl_report_writer *w, const char *path,
                        const cudaload_file *f, int symbols) {
  int flags = cudaload_file_flags(f);
  cl_report_begin_object(w);
  cl_report_key(w, "path");
  cl_report_string(w, path);
  cl_report_key(w, "format");
  cl_report_string(w, cudaload_file_format(f));
  cl_report_key(w, "machine");
  cl_report_string(w, cudaload_file_machine(f));
  cl_report_key(w, "bits");
  cl_report_int(w, cudaload_file_bits(f));
  cl_report_key(w, "soname");
  cl_report_string(w, or_null(cudaload_file_soname(f)));
  cl_report_key(w, "needed");
  cl_report_begin_array(w);
  for (size_t i = 0; i < cudaload_file_needed_count(f); ++i)
    cl_report_string(w, cudaload_file_needed(f, i));
  cl_report_end_array(w);
  cl_report_key(w, "runpath");
  cl_report_string(w, or_null(cudaload_file_runpath(f)));
  cl_report_key(w, "rpath");
  cl_report_string(w, or_null(cudaload_file_rpath(f)));
  cl_report_key(w, "version");
  cl_report_string(w, or_null(cudaload_file_version(f)));
  cl_report_key(w, "symbolic");
  cl_report_bool(w, (flags & CUDALOAD_FILE_SYMBOLIC) != 0);
  cl_report_key(w, "nodeflib");
  cl_report_bool(w, (flags & CUDALOAD_FILE_NODEFLIB) != 0);
  cl_report_key(w, "versioned");
  cl_report_bool(w, (flags & CUDALOAD_FILE_VERSIONED) != 0);
  write_symbol_versions(w, f);
  write_symbol_summaries(w, f, symbols);
  cl_report_end_object(w);
}

/* The reason a file could not be read, without the path the library's
 * message starts with: the report keeps the path in a field of its own. */
static const char *failure_reason(const char *path, int status) {
  const char *detail = cudaload_last_error();
  const char *reason = *detail ? detail : cudaload_strerror(status);
  size_t plen = strlen(path);
  if (strncmp(reason, path, plen) == 0 && reason[plen] == ':' &&
      reason[plen + 1] == ' ')
    reason += plen + 2;
  return reason;
}

static char *inspect_text(const char *const *paths, size_t count, int symbols) {
  cl_text_report t = CL_TEXT_REPORT_INIT;
  int first = 1;
  for (size_t i = 0; i < count; ++i) {
    cudaload_file *f = NULL;
    if (cudaload_inspect(paths[i], &f) != CUDALOAD_OK)
      continue;
    if (!first)
      cl_text_put(&t, "\n");
    first = 0;
    write_text(&t, paths[i], f, symbols);
    cudaload_file_close(f);
  }
  return cl_text_finish(&t);
}

/* A file that could not be read, kept for "errors". */
typedef struct inspect_failure {
  int failed;
  char *reason; /* NULL when memory ran out: the entry says "error" */
} inspect_failure;

/* Each file is read once: its entry goes in "files" at once, why it could
 * not be read is kept for "errors". */
static char *inspect_structured(const char *const *paths, size_t count,
                                int format, int symbols) {
  inspect_failure *failures = calloc(count ? count : 1, sizeof *failures);
  cl_report_writer *w =
      failures ? cl_report_writer_new((cl_report_format)format) : NULL;
  if (!w) {
    free(failures);
    return NULL;
  }
  cl_report_begin_object(w);
  cl_report_key(w, "schema_version");
  cl_report_int(w, 1);
  cl_report_key(w, "files");
  cl_report_begin_array(w);
  for (size_t i = 0; i < count; ++i) {
    cudaload_file *f = NULL;
    int status = cudaload_inspect(paths[i], &f);
    if (status == CUDALOAD_OK) {
      write_entry(w, paths[i], f, symbols);
    } else {
      failures[i].failed = 1;
      failures[i].reason = cl_strdup(failure_reason(paths[i], status));
    }
    cudaload_file_close(f);
  }
  cl_report_end_array(w);
  cl_report_key(w, "errors");
  cl_report_begin_array(w);
  for (size_t i = 0; i < count; ++i) {
    if (!failures[i].failed)
      continue;
    cl_report_begin_object(w);
    cl_report_key(w, "path");
    cl_report_string(w, paths[i]);
    cl_report_key(w, "error");
    cl_report_string(w, failures[i].reason ? failures[i].reason : "error");
    cl_report_end_object(w);
    free(failures[i].reason);
  }
  cl_report_end_array(w);
  cl_report_end_object(w);
  free(failures);
  size_t len = 0;
  return cl_report_writer_finish(w, &len);
}

int cudaload_inspect_report(const char *const *paths, size_t count, int format,
                            unsigned flags, char **out) {
  cl_clear_error();
  if (out)
    *out = NULL;
  if (!out || (count && !paths))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_inspect_report: NULL argument");
  for (size_t i = 0; i < count; ++i)
    if (!paths[i])
      return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                     "cudaload_inspect_report: path %zu is NULL", i);
  if (flags & ~CUDALOAD_INSPECT_SYMBOLS)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_inspect_report: unknown flags 0x%x",
                   flags & ~CUDALOAD_INSPECT_SYMBOLS);
  if (format != CUDALOAD_FORMAT_TEXT && format != CUDALOAD_FORMAT_JSON &&
      format != CUDALOAD_FORMAT_YAML)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_inspect_report: format %d is not text, JSON or "
                   "YAML",
                   format);
  int symbols = (flags & CUDALOAD_INSPECT_SYMBOLS) != 0;
  *out = format == CUDALOAD_FORMAT_TEXT
             ? inspect_text(paths, count, symbols)
             : inspect_structured(paths, count, format, symbols);
  cl_clear_error(); /* the files that could not be read are in the report */
  return *out ? CUDALOAD_OK
              : cl_fail(CUDALOAD_E_NO_MEMORY,
                        "cudaload_inspect_report: out of memory");
}
