/* SPDX-License-Identifier: MIT */
/* cli_probe.c - `cudaload probe`: may this machine use the GPU? */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_probe_help[] = {
    "NAME\n"
    "  cudaload probe - tell whether the GPU is usable, stage by stage\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload probe [--driver PATH] [--require SPEC]... [--root DIR]...\n"
    "                 [--no-defaults] [--out-of-process] [--timeout SEC]\n"
    "                 [--format text|json|yaml]\n"
    "\n"
    "DESCRIPTION\n"
    "  Runs the GPU probe and prints its verdict, GPU_OK or CPU_FALLBACK with\n"
    "  a reason, then every stage with its status, time and message:\n"
    "    driver   load the NVIDIA driver library (libcuda.so.1 / nvcuda.dll;\n"
    "             never the CUDA toolkit's link-time stub in lib64/stubs)\n"
    "    init     cuInit and cuDriverGetVersion\n"
    "    devices  each device's name, compute capability, memory, UUID,\n"
    "             driver model (WDDM/TCC), display watchdog, compute mode\n"
    "    context  the primary context of device 0, its free memory, an\n"
    "             allocation and a copy there and back\n"
    "    runtime  with --require cudart: cudaRuntimeGetVersion against the\n"
    "             driver (a newer CUDA major than the driver's is \"driver\n"
    "             too old\"; a newer minor is only a warning)\n"
    "    cublas   with --require cublas: cublasCreate and a tiny SGEMM\n"
    "             checked against the CPU\n"
    "    cudnn    with --require cudnn=N: for each major, its version and\n"
    "             cudnnCreate/cudnnDestroy\n"
    "  The libraries of the requirements are found under the roots as\n"
    "  `cudaload scan` finds them and loaded by absolute path. Without\n"
    "  requirements the last three stages are skipped, and the probe loads\n"
    "  nothing but the driver.\n"
    "\n"
    "OPTIONS\n"
    "  --driver PATH     the driver library to probe (a relative PATH is\n"
    "                    resolved against the current folder); the\n"
    "                    default is $CUDALOAD_DRIVER if set, else\n"
    "                    libcuda.so.1 (nvcuda.dll) where the system keeps it\n"
    "  --require SPEC    also probe the libraries of SPEC (cudart, cublas,\n"
    "                    cudnn=8, \"cudnn=8,cudnn=9\", ...); may be repeated\n"
    "  -r, --root DIR    search DIR for them first (repeatable)\n"
    "  --environment DIR the active environment's folder (repeatable)\n"
    "  --no-defaults     search only the roots given with --root\n"
    "  --allow-writable-roots\n"
    "                    accept roots other users can write to\n"
    "  --out-of-process  probe in a child process, killed after the timeout,\n"
    "                    so a hung driver cannot hang this command (Windows:\n"
    "                    the child is this program, or "
    "$CUDALOAD_PROBE_HELPER)\n"
    "  --timeout SEC     the child's time limit (default 30; with\n"
    "                    --out-of-process only)\n"
    "  --format F        text (default), json or yaml\n"
    "  -h, --help        show this help\n"
    "\n"
    "OUTPUT\n"
    "  text: the verdict line (\"GPU_OK: GPU usable: ...\" or \"CPU_FALLBACK:\n"
    "  fall back to CPU, because ...; <fix>\"), an aligned table STAGE,\n"
    "  STATUS, MS, MESSAGE, then the driver and the devices.\n"
    "  json and yaml (docs/probe.md): {\"schema_version\": 1,\n"
    "    \"verdict\": \"GPU_OK\"|\"CPU_FALLBACK\", \"reason\": "
    "null|\"no_driver\"|\n"
    "    \"driver_broken\"|\"init_failed\"|\"no_device\"|\"driver_too_old\"|\n"
    "    \"device_failed\"|\"missing_library\"|\"library_failed\"|\n"
    "    \"wrong_result\"|\"timeout\"|\"probe_crashed\", \"summary\",\n"
    "    \"driver\": {\"path\", \"version\"}, \"runtime_version\",\n"
    "    \"devices\": [{\"name\", \"compute_capability\": \"9.0\", "
    "\"memory_mib\",\n"
    "      \"uuid\", \"driver_model\", \"kernel_timeout\", \"compute_mode\",\n"
    "      \"integrated\", \"free_memory_mib\"}],\n"
    "    \"stages\": [{\"name\", \"status\": \"ok\"|\"failed\"|\"skipped\"|"
    "\"warning\",\n"
    "      \"ms\", \"message\"}]}\n"
    "  Unknown values are null; versions are CUDA's numbers (12040 = 12.4).\n"
    "\n"
    "ENVIRONMENT\n"
    "  CUDALOAD_DRIVER        the driver library when --driver is not given\n"
    "  CUDALOAD_PROBE_HELPER  Windows: the program that runs an "
    "out-of-process\n"
    "                         probe (default: cudaload.exe beside the "
    "library)\n"
    "\n"
    "EXIT STATUS\n"
    "  0  GPU_OK: the GPU is usable\n"
    "  1  internal error (out of memory, no child process could be started)\n"
    "  2  usage error\n"
    "  5  CPU_FALLBACK: the GPU is not usable; the reason is printed\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload probe\n"
    "  cudaload probe --require cudart,cublas,cudnn=9 --format json\n"
    "  cudaload probe --out-of-process --timeout 10\n"
    "  cudaload probe --driver /usr/lib/x86_64-linux-gnu/libcuda.so.1\n",
    NULL};
/* --child --report-handle H: the hidden helper mode of the Windows
 * out-of-process probe (probe_child_win32.c). The line format of
 * probe_wire.c goes, each stage as soon as it ends, to the channel the
 * parent handed down, never to stdout: what the driver prints there must
 * not mix with the report (cudaload_probe_serve points stdout at stderr). */
static int run_child(cudaload_ctx *ctx, const char *report_handle) {
  if (cudaload_probe_serve(ctx, report_handle) == CUDALOAD_OK)
    return EXIT_OK;
  fprintf(stderr, "cudaload: probe --child: %s\n", cudaload_last_error());
  return EXIT_INTERNAL;
}

static int parse_timeout(const char *cmd, const char *value, double *out) {
  char *end = NULL;
  double seconds = strtod(value, &end);
  if (!value[0] || !end || *end || !(seconds > 0) || seconds > 86400)
    return cli_usage_error(cmd,
                           "--timeout '%s': expected seconds, more than 0 "
                           "and at most 86400",
                           value);
  *out = seconds;
  return EXIT_OK;
}

/* What the command line asks for. */
typedef struct probe_options {
  cli_search_options search;
  unsigned flags; /* CUDALOAD_PROBE_* */
  int child;      /* --child: the helper mode */
  const char *report_handle;
  double timeout;
  int format;
  char *driver; /* absolute (cli_absolute_path) */
} probe_options;

/* Options are kept until the ctx exists, so that their order does not
 * matter. EXIT_OK, or the exit status with the message printed. */
static int parse_probe_options(const char *cmd, int argc, char **argv,
                               probe_options *o) {
  int rc = EXIT_OK;
  for (int i = 1; i < argc && rc == EXIT_OK; ++i) {
    const char *value;
    int m;
    if ((m = cli_search_option(cmd, argc, argv, &i, &o->search, 1))) {
      if (m < 0)
        rc = EXIT_USAGE;
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--driver", NULL,
                                     &value))) {
      if (m < 0) {
        rc = EXIT_USAGE;
      } else {
        free(o->driver); /* the last --driver wins */
        rc = cli_absolute_path(cmd, "--driver", value, &o->driver);
      }
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--timeout", NULL,
                                     &value))) {
      rc = m < 0 ? EXIT_USAGE : parse_timeout(cmd, value, &o->timeout);
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--format", NULL,
                                     &value))) {
      rc = m < 0 ? EXIT_USAGE : cli_parse_format(cmd, value, 1, &o->format);
    } else if (strcmp(argv[i], "--out-of-process") == 0) {
      o->flags |= CUDALOAD_PROBE_OUT_OF_PROCESS;
    } else if (strcmp(argv[i], "--child") == 0) {
      o->child = 1;
    } else if ((m = cli_option_value(cmd, argc, argv, &i, "--report-handle",
                                     NULL, &o->report_handle))) {
      if (m < 0)
        rc = EXIT_USAGE;
    } else if (argv[i][0] == '-') {
      rc = cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else {
      rc = cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
    }
  }
  if (rc == EXIT_OK && o->child != (o->report_handle != NULL))
    rc = cli_usage_error(cmd, "--child and --report-handle go together (the "
                              "out-of-process probe's helper mode)");
  return rc;
}

/* Probe and print the result: EXIT_OK (GPU usable), EXIT_CPU_FALLBACK, or
 * EXIT_INTERNAL with the message printed. */
static int probe_and_print(const char *cmd, cudaload_ctx *ctx,
                           const probe_options *o) {
  cudaload_probe *p = NULL;
  int rc;
  if (cudaload_probe_run(ctx, o->flags, o->timeout, &p) != CUDALOAD_OK) {
    cli_error("cudaload: probe: %s\n", cudaload_last_error());
    return EXIT_INTERNAL;
  }
  /* The library writes the text too (as Python's str(Probe) prints it). */
  char *text = NULL;
  int status = cudaload_probe_report(p, o->format, &text);
  rc = cli_print_report(cmd, status, text);
  if (rc == EXIT_OK && cudaload_probe_verdict(p) != CUDALOAD_GPU_OK)
    rc = EXIT_CPU_FALLBACK;
  cudaload_probe_free(p);
  return rc;
}

int cli_probe(int argc, char **argv) {
  const char *cmd = "probe";
  probe_options o = {.format = CUDALOAD_FORMAT_TEXT};
  int rc = cli_search_options_init(&o.search, argc);
  if (rc == EXIT_OK)
    rc = parse_probe_options(cmd, argc, argv, &o);
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = cli_search_context(cmd, &o.search, &ctx);
  if (rc == EXIT_OK && o.driver && cudaload_set_driver(ctx, o.driver))
    rc = cli_usage_error(cmd, "--driver: %s", cudaload_last_error());
  if (rc == EXIT_OK)
    rc = o.child ? run_child(ctx, o.report_handle)
                 : probe_and_print(cmd, ctx, &o);
  cudaload_destroy(ctx);
  cli_search_options_free(&o.search);
  free(o.driver);
  return rc;
}
