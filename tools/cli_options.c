/* SPDX-License-Identifier: MIT */
/*
 * cli_options.c - the options every command that searches roots shares
 * (--root, --environment, --require, --for, --no-defaults,
 * --allow-writable-roots)
 * and the context
 * they describe, parsed and built in one place.
 */
#include "cli.h"
#include "cudaload.h"
#include "os/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_search_options_init(cli_search_options *o, int argc) {
  memset(o, 0, sizeof *o);
  o->roots = calloc((size_t)argc, sizeof *o->roots);
  o->specs = calloc((size_t)argc, sizeof *o->specs);
  o->environments = calloc((size_t)argc, sizeof *o->environments);
  o->programs = calloc((size_t)argc, sizeof *o->programs);
  if (!o->roots || !o->specs || !o->environments || !o->programs) {
    cli_search_options_free(o);
    cli_error("cudaload: out of memory\n");
    return EXIT_INTERNAL;
  }
  return EXIT_OK;
}

void cli_search_options_free(cli_search_options *o) {
  free(o->roots);
  free(o->specs);
  free(o->environments);
  free(o->programs);
  o->programs = NULL;
  o->roots = NULL;
  o->specs = NULL;
  o->environments = NULL;
}

int cli_search_option(const char *cmd, int argc, char **argv, int *i,
                      cli_search_options *o, int takes_requirements) {
  const char *value;
  int m;
  if ((m = cli_option_value(cmd, argc, argv, i, "--root", "-r", &value))) {
    if (m > 0)
      o->roots[o->root_count++] = value;
    return m;
  }
  if ((m = cli_option_value(cmd, argc, argv, i, "--environment", NULL,
                            &value))) {
    if (m > 0)
      o->environments[o->environment_count++] = value;
    return m;
  }
  if (takes_requirements &&
      (m = cli_option_value(cmd, argc, argv, i, "--require", "-q", &value))) {
    if (m > 0)
      o->specs[o->spec_count++] = value;
    return m;
  }
  if (takes_requirements > 1 &&
      (m = cli_option_value(cmd, argc, argv, i, "--for", NULL, &value))) {
    if (m > 0)
      o->programs[o->program_count++] = value;
    return m;
  }
  if (strcmp(argv[*i], "--no-defaults") == 0) {
    o->create_flags |= CUDALOAD_NO_DEFAULT_ROOTS;
    return 1;
  }
  if (strcmp(argv[*i], "--allow-writable-roots") == 0) {
    o->create_flags |= CUDALOAD_ALLOW_WRITABLE_ROOTS;
    return 1;
  }
  return 0;
}

int cli_require_for(const char *cmd, cudaload_ctx *ctx, const char *target) {
  int is_path = strchr(target, '/') != NULL ||
                (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS &&
                 strchr(target, '\\') != NULL) ||
                cl_os_stat_kind(target, NULL) == CL_KIND_REGULAR;
  char *path = NULL;
  int rc = is_path ? cli_absolute_path(cmd, "--for", target, &path) : EXIT_OK;
  if (rc != EXIT_OK)
    return rc;
  int status = cudaload_require_for(ctx, path ? path : target);
  free(path);
  if (status == CUDALOAD_OK)
    return EXIT_OK;
  cli_error("cudaload: %s: --for %s: %s\n", cmd, cli_shown(target),
            cudaload_last_error());
  return status == CUDALOAD_E_NO_MEMORY          ? EXIT_INTERNAL
         : status == CUDALOAD_E_INVALID_ARGUMENT ? EXIT_USAGE
                                                 : EXIT_INPUT;
}

int cli_search_context(const char *cmd, const cli_search_options *o,
                       cudaload_ctx **out) {
  *out = NULL;
  cudaload_ctx *ctx = cudaload_create(o->create_flags);
  if (!ctx) {
    cli_error("cudaload: %s: %s\n", cmd, cudaload_last_error());
    return EXIT_INTERNAL;
  }
  /* Roots are made absolute here, before anything reads them, so that the
   * context, the reports and the messages all name the same folder. What
   * the library still refuses is the user's input: a usage error. */
  for (size_t i = 0; i < o->root_count; ++i) {
    char *root = NULL;
    int rc = cli_absolute_path(cmd, "--root", o->roots[i], &root);
    if (rc == EXIT_OK && cudaload_add_root(ctx, root) != CUDALOAD_OK)
      rc = cli_usage_error(cmd, "%s", cudaload_last_error());
    free(root);
    if (rc != EXIT_OK) {
      cudaload_destroy(ctx);
      return rc;
    }
  }
  for (size_t i = 0; i < o->environment_count; ++i) {
    char *folder = NULL;
    int rc =
        cli_absolute_path(cmd, "--environment", o->environments[i], &folder);
    if (rc == EXIT_OK &&
        cudaload_add_environment_root(ctx, folder) != CUDALOAD_OK)
      rc = cli_usage_error(cmd, "%s", cudaload_last_error());
    free(folder);
    if (rc != EXIT_OK) {
      cudaload_destroy(ctx);
      return rc;
    }
  }
  /* --for: a path (with a separator, or a file of that name here) is made
   * absolute; anything else is a module or distribution name. */
  for (size_t i = 0; i < o->program_count; ++i) {
    int rc = cli_require_for(cmd, ctx, o->programs[i]);
    if (rc != EXIT_OK) {
      cudaload_destroy(ctx);
      return rc;
    }
  }
  /* A bad spec is the user's input too. */
  for (size_t i = 0; i < o->spec_count; ++i)
    if (cudaload_require(ctx, o->specs[i]) != CUDALOAD_OK) {
      int rc = cli_usage_error(cmd, "%s", cudaload_last_error());
      cudaload_destroy(ctx);
      return rc;
    }
  *out = ctx;
  return EXIT_OK;
}
