/* cli_inspect.c - `cudaload inspect`: ELF and PE headers of files. */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_inspect_help[] =
    "NAME\n"
    "  cudaload inspect - show the ELF or PE headers of library files\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload inspect [--format text|json] FILE...\n"
    "\n"
    "DESCRIPTION\n"
    "  Reads each FILE's headers without loading it: for ELF (32/64-bit,\n"
    "  either byte order) the machine, SONAME, NEEDED, RUNPATH and RPATH;\n"
    "  for PE (PE32/PE32+) the machine, the DLLs it imports (including\n"
    "  delay-loaded ones) and the VERSIONINFO file version. Works on any\n"
    "  host: a Linux machine can inspect Windows DLLs. Folders, FIFOs and\n"
    "  devices are refused without blocking; truncated or malformed files\n"
    "  are reported with the reason. Each FILE is reported as given (a\n"
    "  relative one is read from the current folder).\n"
    "\n"
    "OPTIONS\n"
    "  --format F   text (default) or json\n"
    "  -h, --help   show this help\n"
    "\n"
    "OUTPUT\n"
    "  json: {\"schema_version\": 1,\n"
    "    \"files\": [{\"path\", \"format\": \"elf\"|\"pe\", \"machine\", "
    "\"bits\",\n"
    "      \"soname\", \"needed\": [...], \"runpath\", \"rpath\", "
    "\"version\"}],\n"
    "    \"errors\": [{\"path\", \"error\"}]}\n"
    "  soname, runpath, rpath and version are null when absent.\n"
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
    "  cudaload inspect --format json "
    "venv/Lib/site-packages/nvidia/cudnn/bin/*.dll\n";

static const char *or_null(const char *s) {
  return s && *s ? s : NULL;
}

static void write_text(const char *path, const cudaload_file *f) {
  printf("%s\n", cli_shown(path));
  printf("  format   %s (%d-bit, %s)\n", cudaload_file_format(f),
         cudaload_file_bits(f), cudaload_file_machine(f));
  if (*cudaload_file_soname(f))
    printf("  soname   %s\n", cli_shown(cudaload_file_soname(f)));
  size_t n = cudaload_file_needed_count(f);
  if (n) {
    printf("  needed   ");
    for (size_t i = 0; i < n; ++i)
      printf("%s%s", i ? ", " : "", cli_shown(cudaload_file_needed(f, i)));
    printf("\n");
  }
  if (*cudaload_file_runpath(f))
    printf("  runpath  %s\n", cli_shown(cudaload_file_runpath(f)));
  if (*cudaload_file_rpath(f))
    printf("  rpath    %s\n", cli_shown(cudaload_file_rpath(f)));
  if (*cudaload_file_version(f))
    printf("  version  %s\n", cli_shown(cudaload_file_version(f)));
}

static void write_entry(cl_report_writer *w, const char *path,
                        const cudaload_file *f) {
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
  cl_report_end_object(w);
}

int cli_inspect(int argc, char **argv) {
  const char *cmd = "inspect";
  cl_report_format format = CL_REPORT_TEXT;
  char **files = calloc((size_t)argc, sizeof *files);
  size_t file_count = 0;
  int options_done = 0;
  if (!files)
    return EXIT_INTERNAL;
  for (int i = 1; i < argc; ++i) {
    const char *value;
    int m;
    if (!options_done && strcmp(argv[i], "--") == 0) {
      options_done = 1;
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
        write_text(files[i], parsed[i]);
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
          write_entry(w, files[i], parsed[i]);
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
