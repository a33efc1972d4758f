/* SPDX-License-Identifier: MIT */
/* cli_scan.c - `cudaload scan`: the inventory of the search roots. */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_scan_help[] = {
    "NAME\n"
    "  cudaload scan - list the CUDA libraries found under the search roots\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload scan [--root DIR]... [--no-defaults]\n"
    "                [--target TARGET] [--format text|json|yaml]\n"
    "\n"
    "DESCRIPTION\n"
    "  Searches the roots given with --root (first, in the order given), then\n"
    "  the default roots of this host: CUDA_PATH, CUDA_PATH_V*_*, CUDA_HOME,\n"
    "  CUDNN_PATH, CONDA_PREFIX, VIRTUAL_ENV, Python site-packages folders,\n"
    "  CUDA toolkits (/usr/local/cuda*), and the system (/etc/ld.so.cache on\n"
    "  Linux, System32 on Windows). Under each root it looks only in the\n"
    "  folders where toolkits, conda, NVIDIA's pip wheels, torch, "
    "ctranslate2,\n"
    "  onnxruntime and NVIDIA's installers put libraries.\n"
    "\n"
    "  Each real file is listed once (symlinks are resolved), with its\n"
    "  catalog name, family, ABI major and, where anything on disk tells it,\n"
    "  its full version and where that came from: dist-info (a wheel's\n"
    "  METADATA), file-name (libcudnn.so.8.9.7), versioninfo (a DLL's\n"
    "  version resource), header (the toolkit's cudnn_version.h, ...), none.\n"
    "  Nothing is loaded and no process is started.\n"
    "\n"
    "OPTIONS\n"
    "  -r, --root DIR   also search DIR (may be repeated); a relative DIR is\n"
    "                   resolved against the current folder\n"
    "  --environment DIR\n"
    "                   search DIR as the active environment (may be\n"
    "                   repeated), instead of VIRTUAL_ENV, CONDA_PREFIX and\n"
    "                   the python3 on PATH\n"
    "  --no-defaults    search only the roots given with --root\n"
    "  --allow-writable-roots\n"
    "                   accept roots other users can write to\n"
    "  --target T       naming convention: host (default), linux\n"
    "                   (libcublas.so.12) or windows (cublas64_12.dll; lets a\n"
    "                   Linux host scan a Windows installer tree); with an\n"
    "                   architecture, linux-x86_64, linux-aarch64, "
    "windows-x64\n"
    "                   or windows-arm64, for another machine's files\n"
    "  --format F       text (default: an aligned table), json or yaml\n"
    "  -h, --help       show this help\n"
    "\n"
    "OUTPUT\n"
    "  json and yaml: {\"schema_version\": 1, \"target\": "
    "\"linux\"|\"windows\",\n"
    "    \"roots\": [{\"path\", \"origin\", \"tier\", \"status\"}],\n"
    "    \"libraries\": [{\"name\", \"family\", \"major\", \"cuda_major\",\n"
    "      \"version\", \"version_source\", \"version_file\", \"path\",\n"
    "      \"machine\", \"root\"}]}\n"
    "  cuda_major and version are null when unknown; machine is what the\n"
    "  file was built for (x86_64, aarch64, ...; null when unreadable);\n"
    "  root indexes roots.\n"
    "\n"
    "EXIT STATUS\n"
    "  0  success, whether or not anything was found\n"
    "  1  internal error\n"
    "  2  usage error\n"
    "  3  a root given with --root does not exist or cannot be read (the\n"
    "     report is still printed)\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload scan\n"
    "  cudaload scan --no-defaults --root /opt/app/cudnn8 --format json\n"
    "  cudaload scan --target windows --no-defaults --root /srv/win/venv\n",
    NULL};
/* A root's status for a person: the flag that accepts a refused one. */
static const char *root_status_text(int status) {
  return status == CUDALOAD_E_INSECURE
             ? "writable by other users, refused (--allow-writable-roots "
               "accepts it)"
             : cudaload_root_status_name(status);
}

/* --target's names, as the help lists them. */
static const struct {
  const char *name;
  int target;
} scan_targets[] = {
    {"host", CUDALOAD_TARGET_HOST},
    {"linux", CUDALOAD_TARGET_LINUX},
    {"windows", CUDALOAD_TARGET_WINDOWS},
    {"linux-x86_64", CUDALOAD_TARGET_LINUX_X86_64},
    {"linux-aarch64", CUDALOAD_TARGET_LINUX_AARCH64},
    {"windows-x64", CUDALOAD_TARGET_WINDOWS_X86_64},
    {"windows-x86_64", CUDALOAD_TARGET_WINDOWS_X86_64},
    {"windows-arm64", CUDALOAD_TARGET_WINDOWS_ARM64},
};

static int parse_target(const char *cmd, const char *value, int *target) {
  for (size_t i = 0; i < sizeof scan_targets / sizeof *scan_targets; ++i)
    if (strcmp(value, scan_targets[i].name) == 0) {
      *target = scan_targets[i].target;
      return EXIT_OK;
    }
  return cli_usage_error(cmd,
                         "unknown target '%s' (expected host, linux, "
                         "windows, linux-x86_64, linux-aarch64, "
                         "windows-x64 or windows-arm64)",
                         value);
}

/* Warn about each root given with --root that could not be searched:
 * EXIT_INPUT when there is one. By origin, not by position: a root given
 * twice is listed once, so the first --root count entries may include
 * default roots. For a refused root the scan's last error says which
 * folder or file others can write to (a link may lead out of the root), so
 * it is shown once, under the first: explicit roots come first. */
static int warn_unsearched_roots(const cudaload_ctx *ctx) {
  int rc = EXIT_OK;
  const char *why = cudaload_last_error();
  for (size_t i = 0; i < cudaload_root_count(ctx); ++i)
    if (cudaload_root_status(ctx, i) != CUDALOAD_OK &&
        strcmp(cudaload_root_origin(ctx, i), "explicit") == 0) {
      cli_error("cudaload: warning: root %s: %s\n", cudaload_root_path(ctx, i),
                root_status_text(cudaload_root_status(ctx, i)));
      if (cudaload_root_status(ctx, i) == CUDALOAD_E_INSECURE && *why) {
        cli_error("cudaload: warning: %s\n", why);
        why = "";
      }
      rc = EXIT_INPUT;
    }
  return rc;
}

int cli_scan(int argc, char **argv) {
  const char *cmd = "scan";
  int target = CUDALOAD_TARGET_HOST;
  int format = CUDALOAD_FORMAT_TEXT;
  cli_search_options search;
  int rc = cli_search_options_init(&search, argc);
  for (int i = 1; i < argc && rc == EXIT_OK; ++i) {
    const char *value;
    int m;
    if ((m = cli_search_option(cmd, argc, argv, &i, &search, 0))) {
      if (m < 0)
        rc = EXIT_USAGE;
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--target", NULL,
                                     &value))) {
      rc = m < 0 ? EXIT_USAGE : parse_target(cmd, value, &target);
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--format", NULL,
                                     &value))) {
      rc = m < 0 ? EXIT_USAGE : cli_parse_format(cmd, value, 1, &format);
    } else if (argv[i][0] == '-') {
      rc = cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      rc = cli_usage_error(cmd, "unexpected argument '%s' (use --root DIR)",
                           argv[i]);
    }
  }
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = cli_search_context(cmd, &search, &ctx);
  if (rc == EXIT_OK)
    cudaload_set_target(ctx, target);
  if (rc == EXIT_OK && cudaload_scan(ctx) != CUDALOAD_OK) {
    cli_error("cudaload: scan: %s\n", cudaload_last_error());
    rc = EXIT_INTERNAL;
  }
  if (rc == EXIT_OK) {
    rc = warn_unsearched_roots(ctx);
    char *report = NULL;
    int status = cudaload_scan_report(ctx, format, &report);
    if (cli_print_report(cmd, status, report) != EXIT_OK)
      rc = EXIT_INTERNAL;
  }
  cudaload_destroy(ctx);
  cli_search_options_free(&search);
  return rc;
}
