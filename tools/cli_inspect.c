/* cli_inspect.c - `cudaload inspect`: ELF and PE headers and symbols of
 * files. */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_inspect_help[] =
    "NAME\n"
    "  cudaload inspect - show the ELF or PE headers and symbols of library "
    "files\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload inspect [--format text|json] [--symbols] FILE...\n"
    "\n"
    "DESCRIPTION\n"
    "  Reads each FILE's headers without loading it: for ELF (32/64-bit,\n"
    "  either byte order) the machine, SONAME, NEEDED, RUNPATH, RPATH and\n"
    "  the DT_SYMBOLIC and DF_1_NODEFLIB flags; for PE (PE32/PE32+) the\n"
    "  machine, the DLLs it imports (including delay-loaded ones) and the\n"
    "  VERSIONINFO file version. Then its dynamic symbols: for ELF the\n"
    "  version nodes it defines (and which are default versions), the\n"
    "  versions it requires of each file, and how many symbols it exports\n"
    "  and imports (and how many of them carry a version); for PE its\n"
    "  exports by name (and how many forward to another DLL) and imported\n"
    "  functions. Works on any host: a Linux machine can inspect Windows\n"
    "  DLLs. Folders, FIFOs and devices are refused without blocking;\n"
    "  truncated or malformed files are reported with the reason. Each FILE\n"
    "  is reported as given (a relative one is read from the current\n"
    "  folder).\n"
    "\n"
    "OPTIONS\n"
    "  --format F   text (default) or json\n"
    "  --symbols    list every exported and imported symbol with its\n"
    "               version: name@@node for an export's default version,\n"
    "               name@node for a hidden one and for an import\n"
    "  -h, --help   show this help\n"
    "\n"
    "OUTPUT\n"
    "  json: {\"schema_version\": 1,\n"
    "    \"files\": [{\"path\", \"format\": \"elf\"|\"pe\", \"machine\", "
    "\"bits\",\n"
    "      \"soname\", \"needed\": [...], \"runpath\", \"rpath\", "
    "\"version\",\n"
    "      \"symbolic\", \"nodeflib\", \"versioned\",\n"
    "      \"version_definitions\": [{\"name\", \"default\"}],\n"
    "      \"version_needs\": [{\"file\", \"versions\": [...]}],\n"
    "      \"exports\": {\"count\", \"versioned\", \"forwarders\", "
    "\"symbols\"},\n"
    "      \"imports\": {\"count\", \"versioned\", \"symbols\"}}],\n"
    "    \"errors\": [{\"path\", \"error\"}]}\n"
    "  soname, runpath, rpath and version are null when absent; symbols is\n"
    "  null without --symbols, else [{\"name\", \"version\", \"hidden\",\n"
    "  \"weak\", \"forward\"}] for exports and [{\"name\", \"version\",\n"
    "  \"library\", \"weak\"}] for imports.\n"
    "\n"
    "EXIT STATUS\n"
    "  0  every file was read\n"
    "  1  internal error\n"
    "  2  usage error (no FILE, an empty FILE, unknown option)\n"
    "  3  a file was missing, unreadable, not ELF or PE, or malformed (the\n"
    "     other files are still reported; each error is on stderr)\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload inspect /usr/local/cuda/lib64/libcudnn.so.9\n"
    "  cudaload inspect --symbols /usr/local/cuda/lib64/libcudnn.so.9\n"
    "  cudaload inspect --format json "
    "venv/Lib/site-packages/nvidia/cudnn/bin/*.dll\n";

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
static void print_symbol(const cudaload_file *f, int kind, size_t i) {
  const char *version = cudaload_file_symbol_version(f, kind, i);
  const char *library = cudaload_file_symbol_library(f, kind, i);
  int flags = cudaload_file_symbol_flags(f, kind, i);
  printf("  %-10s%s", kind == CUDALOAD_SYMBOL_EXPORT ? "export" : "import",
         cli_shown(cudaload_file_symbol_name(f, kind, i)));
  if (*version)
    printf("%s%s",
           kind == CUDALOAD_SYMBOL_EXPORT && !(flags & CUDALOAD_SYMBOL_HIDDEN)
               ? "@@"
               : "@",
           cli_shown(version));
  if (kind == CUDALOAD_SYMBOL_EXPORT && *library)
    printf(" -> %s", cli_shown(library));
  if (kind == CUDALOAD_SYMBOL_IMPORT && *library)
    printf(" (%s%s)", cli_shown(library),
           flags & CUDALOAD_SYMBOL_WEAK ? ", weak" : "");
  else if (flags & CUDALOAD_SYMBOL_WEAK)
    printf(" (weak)");
  printf("\n");
}

static void write_text(const char *path, const cudaload_file *f, int symbols) {
  printf("%s\n", cli_shown(path));
  printf("  %-10s%s (%d-bit, %s)\n", "format", cudaload_file_format(f),
         cudaload_file_bits(f), cudaload_file_machine(f));
  if (*cudaload_file_soname(f))
    printf("  %-10s%s\n", "soname", cli_shown(cudaload_file_soname(f)));
  size_t n = cudaload_file_needed_count(f);
  if (n) {
    printf("  %-10s", "needed");
    for (size_t i = 0; i < n; ++i)
      printf("%s%s", i ? ", " : "", cli_shown(cudaload_file_needed(f, i)));
    printf("\n");
  }
  if (*cudaload_file_runpath(f))
    printf("  %-10s%s\n", "runpath", cli_shown(cudaload_file_runpath(f)));
  if (*cudaload_file_rpath(f))
    printf("  %-10s%s\n", "rpath", cli_shown(cudaload_file_rpath(f)));
  if (*cudaload_file_version(f))
    printf("  %-10s%s\n", "version", cli_shown(cudaload_file_version(f)));
  int flags = cudaload_file_flags(f);
  if (flags & (CUDALOAD_FILE_SYMBOLIC | CUDALOAD_FILE_NODEFLIB))
    printf("  %-10s%s%s%s\n", "flags",
           flags & CUDALOAD_FILE_SYMBOLIC ? "symbolic" : "",
           (flags & CUDALOAD_FILE_SYMBOLIC) && (flags & CUDALOAD_FILE_NODEFLIB)
               ? ", "
               : "",
           flags & CUDALOAD_FILE_NODEFLIB ? "nodeflib" : "");
  n = cudaload_file_version_count(f);
  if (n) {
    printf("  %-10s", "defines");
    for (size_t i = 0; i < n; ++i)
      printf("%s%s%s", i ? ", " : "",
             cli_shown(cudaload_file_version_name(f, i)),
             cudaload_file_version_is_default(f, i) ? " (default)" : "");
    printf("\n");
  }
  for (size_t i = 0; i < cudaload_file_need_count(f); ++i) {
    printf("  %-10s%s:", "requires", cli_shown(cudaload_file_need_file(f, i)));
    for (size_t j = 0; j < cudaload_file_need_version_count(f, i); ++j)
      printf("%s %s", j ? "," : "",
             cli_shown(cudaload_file_need_version(f, i, j)));
    printf("\n");
  }
  size_t exports = cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_EXPORT);
  size_t imports = cudaload_file_symbol_count(f, CUDALOAD_SYMBOL_IMPORT);
  if (strcmp(cudaload_file_format(f), "pe") == 0) {
    size_t forwarders = count_with(f, CUDALOAD_SYMBOL_EXPORT, 1);
    printf("  %-10s%zu (%zu forwarder%s)\n", "exports", exports, forwarders,
           forwarders == 1 ? "" : "s");
    printf("  %-10s%zu\n", "imports", imports);
  } else {
    printf("  %-10s%zu (%zu versioned)\n", "exports", exports,
           count_with(f, CUDALOAD_SYMBOL_EXPORT, 0));
    printf("  %-10s%zu (%zu versioned)\n", "imports", imports,
           count_with(f, CUDALOAD_SYMBOL_IMPORT, 0));
  }
  if (symbols) {
    for (size_t i = 0; i < exports; ++i)
      print_symbol(f, CUDALOAD_SYMBOL_EXPORT, i);
    for (size_t i = 0; i < imports; ++i)
      print_symbol(f, CUDALOAD_SYMBOL_IMPORT, i);
  }
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
  cl_report_end_object(w);
}

int cli_inspect(int argc, char **argv) {
  const char *cmd = "inspect";
  cl_report_format format = CL_REPORT_TEXT;
  char **files = calloc((size_t)argc, sizeof *files);
  size_t file_count = 0;
  int options_done = 0, symbols = 0;
  if (!files)
    return EXIT_INTERNAL;
  for (int i = 1; i < argc; ++i) {
    const char *value;
    int m;
    if (!options_done && strcmp(argv[i], "--") == 0) {
      options_done = 1;
    } else if (!options_done && strcmp(argv[i], "--symbols") == 0) {
      symbols = 1;
    } else if (!options_done &&
               (m = cli_option_value(cmd, argc, argv, &i, "--format", NULL,
                                     &value))) {
      if (m < 0 || cli_parse_format(cmd, value, 0, &format) != EXIT_OK) {
        free(files);
        return EXIT_USAGE;
      }
    } else if (!options_done && argv[i][0] == '-' && argv[i][1]) {
      free(files);
      return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else if (!argv[i][0]) {
      /* As for the path options of the other commands: "" names no file,
       * and is more likely an unset shell variable than a request. */
      free(files);
      return cli_usage_error(cmd, "FILE: the path is empty");
    } else {
      /* Kept as given: the report names each file the way the user did
       * (the library reads a relative path against the current folder). */
      files[file_count++] = argv[i];
    }
  }
  if (file_count == 0) {
    free(files);
    return cli_usage_error(cmd, "no FILE given");
  }
  int rc = EXIT_OK;
  cudaload_file **parsed = calloc(file_count, sizeof *parsed);
  char **errors = calloc(file_count, sizeof *errors);
  if (!parsed || !errors) {
    free(parsed);
    free(errors);
    free(files);
    return EXIT_INTERNAL;
  }
  for (size_t i = 0; i < file_count; ++i) {
    int status = cudaload_inspect(files[i], &parsed[i]);
    if (status != CUDALOAD_OK) {
      const char *detail = cudaload_last_error();
      size_t len = strlen(detail) + strlen(cudaload_strerror(status)) + 4;
      errors[i] = malloc(len);
      /* The library's detail starts with the path; the report keeps the
       * path in its own field and the reason alone here. */
      size_t plen = strlen(files[i]);
      const char *reason = *detail ? detail : cudaload_strerror(status);
      if (strncmp(reason, files[i], plen) == 0 && reason[plen] == ':' &&
          reason[plen + 1] == ' ')
        reason += plen + 2;
      if (errors[i])
        snprintf(errors[i], len, "%s", reason);
      cli_error("cudaload: inspect: %s: %s\n", files[i], reason);
      rc = EXIT_INPUT;
    }
  }
  if (format == CL_REPORT_TEXT) {
    int first = 1;
    for (size_t i = 0; i < file_count; ++i)
      if (parsed[i]) {
        if (!first)
          printf("\n");
        first = 0;
        write_text(files[i], parsed[i], symbols);
      }
    if (cli_finish_output("inspect") != EXIT_OK)
      rc = EXIT_INTERNAL;
  } else {
    cl_report_writer *w = cl_report_writer_new(format);
    if (!w) {
      rc = EXIT_INTERNAL;
    } else {
      cl_report_begin_object(w);
      cl_report_key(w, "schema_version");
      cl_report_int(w, 1);
      cl_report_key(w, "files");
      cl_report_begin_array(w);
      for (size_t i = 0; i < file_count; ++i)
        if (parsed[i])
          write_entry(w, files[i], parsed[i], symbols);
      cl_report_end_array(w);
      cl_report_key(w, "errors");
      cl_report_begin_array(w);
      for (size_t i = 0; i < file_count; ++i)
        if (!parsed[i]) {
          cl_report_begin_object(w);
          cl_report_key(w, "path");
          cl_report_string(w, files[i]);
          cl_report_key(w, "error");
          cl_report_string(w, errors[i] ? errors[i] : "error");
          cl_report_end_object(w);
        }
      cl_report_end_array(w);
      cl_report_end_object(w);
      if (cli_print_report("inspect", w) != EXIT_OK)
        rc = EXIT_INTERNAL;
    }
  }
  for (size_t i = 0; i < file_count; ++i) {
    cudaload_file_close(parsed[i]);
    free(errors[i]);
  }
  free(parsed);
  free(errors);
  free(files);
  return rc;
}
