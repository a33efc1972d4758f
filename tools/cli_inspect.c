/* SPDX-License-Identifier: MIT */
/* cli_inspect.c - `cudaload inspect`: ELF and PE headers and symbols of
 * files. */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_inspect_help[] = {
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
    "venv/Lib/site-packages/nvidia/cudnn/bin/*.dll\n",
    NULL};
/* Each file's failure on stderr, as the library words it (without the
 * path it starts with: the line names the file first); the report lists
 * the files that were read. EXIT_INPUT when one could not be, else
 * EXIT_OK. */
static int say_unreadable(char **files, size_t file_count) {
  int rc = EXIT_OK;
  for (size_t i = 0; i < file_count; ++i) {
    cudaload_file *f = NULL;
    int status = cudaload_inspect(files[i], &f);
    cudaload_file_close(f);
    if (status == CUDALOAD_OK)
      continue;
    const char *reason = cudaload_last_error();
    size_t plen = strlen(files[i]);
    if (!*reason)
      reason = cudaload_strerror(status);
    else if (strncmp(reason, files[i], plen) == 0 && reason[plen] == ':' &&
             reason[plen + 1] == ' ')
      reason += plen + 2;
    cli_error("cudaload: inspect: %s: %s\n", files[i], reason);
    rc = EXIT_INPUT;
  }
  return rc;
}

int cli_inspect(int argc, char **argv) {
  const char *cmd = "inspect";
  int format = CUDALOAD_FORMAT_TEXT;
  char **files = calloc((size_t)argc, sizeof *files);
  size_t file_count = 0;
  int options_done = 0;
  unsigned flags = 0;
  if (!files)
    return EXIT_INTERNAL;
  for (int i = 1; i < argc; ++i) {
    const char *value;
    int m;
    if (!options_done && strcmp(argv[i], "--") == 0) {
      options_done = 1;
    } else if (!options_done && strcmp(argv[i], "--symbols") == 0) {
      flags |= CUDALOAD_INSPECT_SYMBOLS;
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
  int rc = say_unreadable(files, file_count);
  char *report = NULL;
  int status = cudaload_inspect_report((const char *const *)files, file_count,
                                       format, flags, &report);
  if (cli_print_report(cmd, status, report) != EXIT_OK)
    rc = EXIT_INTERNAL;
  free(files);
  return rc;
}
