/* SPDX-License-Identifier: MIT */
/*
 * cli_options.c - the options every command that searches roots shares
 * (--root, --environment, --require, --no-defaults, --allow-writable-roots)
 * and the context
 * they describe, parsed and built in one place.
 */
#include "cli.h"
#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_search_options_init(cli_search_options *o, int argc) {
  memset(o, 0, sizeof *o);
  o->roots = calloc((size_t)argc, sizeof *o->roots);
  o->specs = calloc((size_t)argc, sizeof *o->specs);
  o->environments = calloc((size_t)argc, sizeof *o->environments);
  if (!o->roots || !o->specs || !o->environments) {
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
