/* SPDX-License-Identifier: MIT */
/* cli_include_dir.c - `cudaload include-dir`: the header folder of the
 * library a plan chooses for a requirement. */
#include "cli.h"
#include "cudaload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_include_dir_help[] = {
    "NAME\n"
    "  cudaload include-dir - print the header folder of a CUDA library\n"
    "\n"
    "SYNOPSIS\n"
    "  cudaload include-dir SPEC [--root DIR]... [--environment DIR]...\n"
    "                       [--no-defaults] [--allow-writable-roots]\n"
    "\n"
    "DESCRIPTION\n"
    "  Chooses the library SPEC asks for as a plan does (the same roots,\n"
    "  precedence and CUDA major as env and doctor) and prints the include\n"
    "  folder of that install on one line: nvidia/<pkg>/include or\n"
    "  nvidia/cu13/include beside a wheel's libraries, include or\n"
    "  targets/<arch>/include in a toolkit or conda prefix, nvvm/include for\n"
    "  NVVM, when it holds the family's header (cuda_runtime.h for cudart,\n"
    "  nvrtc.h, cudnn.h, ...). NVRTC and nvJitLink programs pass it to the\n"
    "  compiler at run time: -I\"$(cudaload include-dir cudart)\".\n"
    "  Nothing is loaded.\n"
    "\n"
    "OPTIONS\n"
    "  SPEC             one requirement, FAMILY[OP VERSION] as for --require\n"
    "                   (cudart, cudart=12, nvrtc, cudnn=9, ...; npp: its\n"
    "                   first library's, where NPP's headers are)\n"
    "  -r, --root DIR   also search DIR (may be repeated)\n"
    "  --environment DIR\n"
    "                   search DIR as the active environment\n"
    "  --no-defaults    search only the roots given with --root\n"
    "  --allow-writable-roots\n"
    "                   accept roots other users can write to\n"
    "  -h, --help       show this help\n"
    "\n"
    "EXIT STATUS\n"
    "  0  the folder was printed\n"
    "  1  internal error\n"
    "  2  usage error (no SPEC, two, a bad one, one that names no library\n"
    "     such as cuda=13, an unknown option)\n"
    "  3  a root given with --root does not exist or cannot be read\n"
    "  4  no library satisfies SPEC, or the one chosen has no include\n"
    "     folder beside it (stderr names the file and where it looked), or\n"
    "     other users can write to that folder, its header or a folder on\n"
    "     the way (stderr says which and who; --allow-writable-roots takes\n"
    "     it all the same)\n"
    "\n"
    "EXAMPLES\n"
    "  cudaload include-dir cudart\n"
    "  cudaload include-dir nvrtc=13 --root \"$VIRTUAL_ENV\"\n",
    NULL};
int cli_include_dir(int argc, char **argv) {
  const char *cmd = "include-dir";
  const char *spec = NULL;
  cli_search_options search;
  int rc = cli_search_options_init(&search, argc);
  for (int i = 1; i < argc && rc == EXIT_OK; ++i) {
    int m = cli_search_option(cmd, argc, argv, &i, &search, 0);
    if (m < 0)
      rc = EXIT_USAGE;
    else if (m > 0)
      continue;
    else if (argv[i][0] == '-')
      rc = cli_usage_error(cmd, "unknown option '%s'", argv[i]);
    else if (spec)
      rc = cli_usage_error(cmd, "one SPEC only ('%s' and '%s')", spec, argv[i]);
    else
      spec = argv[i];
  }
  if (rc == EXIT_OK && !spec)
    rc = cli_usage_error(cmd, "missing SPEC (a library, such as cudart)");
  cudaload_ctx *ctx = NULL;
  if (rc == EXIT_OK)
    rc = cli_search_context(cmd, &search, &ctx);
  if (rc == EXIT_OK && cudaload_require(ctx, spec) != CUDALOAD_OK)
    rc = cli_usage_error(cmd, "%s", cudaload_last_error());
  if (rc == EXIT_OK && strchr(spec, ','))
    rc = cli_usage_error(cmd, "'%s': one SPEC only", spec);
  /* cuda=MAJOR chooses a CUDA major and names no library: there is no
   * header folder to print. */
  if (rc == EXIT_OK && cudaload_requirement_count(ctx) == 0) {
    const char *major = strchr(spec, '=');
    while (major && *major == '=')
      ++major;
    rc = cli_usage_error(cmd,
                         "'%s' names no library (cuda=MAJOR only chooses the "
                         "CUDA major); name the library whose headers you "
                         "want, as in cudart=%s",
                         spec, major && *major ? major : "13");
  }
  if (rc == EXIT_OK) {
    int plan = cudaload_plan(ctx, 0);
    size_t chosen = cudaload_requirement_library(ctx, 0);
    if (plan != CUDALOAD_OK && plan != CUDALOAD_E_UNSATISFIED) {
      cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
      rc = EXIT_INTERNAL;
    } else if (chosen >= cudaload_library_count(ctx)) {
      const char *why = cudaload_last_error();
      if (*why)
        cli_error("cudaload: %s: %s", cmd, why);
      else /* never an empty message */
        cli_error("cudaload: %s: no library satisfies '%s'\n", cmd, spec);
      rc = EXIT_UNSATISFIED;
    } else {
      const char *dir = cudaload_library_include_dir(ctx, chosen);
      if (dir) {
        printf("%s\n", dir);
        rc = cli_finish_output(cmd);
      } else {
        cli_error("cudaload: %s: %s: %s\n", cmd, spec, cudaload_last_error());
        rc = EXIT_UNSATISFIED;
      }
    }
  }
  cudaload_destroy(ctx);
  cli_search_options_free(&search);
  return rc;
}
