/*
 * manifest.c - cudaload_load_manifest(): a cudaload.yaml that an
 * application or installer ships beside itself.
 *
 *   schema_version: 1          # optional; only 1 is understood
 *   requirements: [cudnn=8, cublas>=12]   # or "cudnn=8,cublas>=12"
 *   roots: [lib/cuda, /opt/cudnn8]        # relative: to the manifest's folder
 *   policy:
 *     sublibraries: minimal    # or all (CUDALOAD_PRELOAD_ALL_SUBLIBS)
 *     isolation: true          # keep every library RTLD_LOCAL
 *     global: false            # CUDALOAD_PRELOAD_GLOBAL
 *   probe: true                # the doctor runs the GPU probe
 *
 * The file is read whole (bounded), parsed with libyaml's document API, and
 * checked completely into a scratch area before anything is committed to the
 * ctx: a rejected manifest changes nothing. Every error names the file and
 * the line and column of the offending node.
 */
#include "context.h"
#include "error.h"
#include "manifest.h"
#include "platform.h"
#include "strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CUDALOAD_WITH_YAML
#include <yaml.h>
#endif

unsigned cudaload_manifest_preload_flags(const cudaload_ctx *ctx) {
  return ctx ? ctx->manifest_preload_flags : 0;
}

int cudaload_manifest_probe(const cudaload_ctx *ctx) {
  return ctx ? ctx->manifest_probe : 0;
}

#if !CUDALOAD_WITH_YAML

int cudaload_load_manifest(cudaload_ctx *ctx, const char *path) {
  cl_clear_error();
  if (!ctx || !path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_load_manifest: NULL %s", ctx ? "path" : "ctx");
  return cl_fail(CUDALOAD_E_UNSUPPORTED,
                 "%s: this libcudaload was built without libyaml "
                 "(CUDALOAD_WITH_YAML=OFF) and cannot read YAML manifests; "
                 "pass the requirements with cudaload_require() instead",
                 path);
}

int cl_manifest_load_text(cudaload_ctx *ctx, const char *path, const char *text,
                          size_t len) {
  (void)text;
  (void)len;
  return cudaload_load_manifest(ctx, path);
}

#else

/* A manifest is a few lines; anything larger is not one, and reading it
 * whole must stay cheap. */
#define CL_MANIFEST_MAX (1024u * 1024u)

/* Everything a manifest asks for, built aside and committed at the end. */
typedef struct manifest {
  const char *path;
  const char *text;
  size_t len;
  char *folder;          /* absolute folder of the manifest file */
  cudaload_ctx *scratch; /* parsed requirements (cudaload_require's parser) */
  char **roots;
  size_t root_count, root_capacity;
  unsigned preload_flags;
  int isolation, global, probe;
  yaml_mark_t global_mark;
} manifest;

static int manifest_fail(const manifest *m, int status, yaml_mark_t mark,
                         const char *fmt, ...) CL_PRINTF(4, 5);
static int manifest_fail(const manifest *m, int status, yaml_mark_t mark,
                         const char *fmt, ...) {
  char detail[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return cl_fail(status, "%s: line %zu, column %zu: %s", m->path, mark.line + 1,
                 mark.column + 1, detail);
}

/* What a node is, for "expected X, found Y" messages. */
static void describe_node(const yaml_node_t *node, char *buf, size_t len) {
  switch (node->type) {
  case YAML_MAPPING_NODE:
    snprintf(buf, len, "a mapping");
    break;
  case YAML_SEQUENCE_NODE:
    snprintf(buf, len, "a sequence");
    break;
  case YAML_SCALAR_NODE:
    if (node->data.scalar.length == 0 &&
        node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
      snprintf(buf, len, "nothing");
    else
      snprintf(
          buf, len, "\"%.*s\"",
          (int)(node->data.scalar.length > 60 ? 60 : node->data.scalar.length),
          (const char *)node->data.scalar.value);
    break;
  default:
    snprintf(buf, len, "an empty node");
  }
}

static int wrong_type(const manifest *m, const char *key,
                      const yaml_node_t *node, const char *expected) {
  char found[96];
  describe_node(node, found, sizeof found);
  return manifest_fail(m, CUDALOAD_E_MALFORMED, node->start_mark,
                       "%s: expected %s, found %s", key, expected, found);
}

static const char *scalar(const yaml_node_t *node) {
  return (const char *)node->data.scalar.value;
}

static int is_plain(const yaml_node_t *node) {
  return node->type == YAML_SCALAR_NODE &&
         node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML 1.2 core-schema null: an empty value, ~ or null (plain only). */
static int is_null(const yaml_node_t *node) {
  if (!is_plain(node))
    return 0;
  const char *s = scalar(node);
  return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
         !strcmp(s, "NULL");
}

/* A string scalar: any style, but no NUL inside (C strings end there). */
static int string_value(const manifest *m, const char *key,
                        const yaml_node_t *node, const char **out) {
  if (node->type != YAML_SCALAR_NODE || is_null(node))
    return wrong_type(m, key, node, "a string");
  if (strlen(scalar(node)) != node->data.scalar.length)
    return manifest_fail(m, CUDALOAD_E_MALFORMED, node->start_mark,
                         "%s: the value contains a NUL character", key);
  *out = scalar(node);
  return CUDALOAD_OK;
}

/* true/false as YAML 1.2 spells them; a quoted "true" is a string. */
static int bool_value(const manifest *m, const char *key,
                      const yaml_node_t *node, int *out) {
  static const char *const yes[] = {"true", "True", "TRUE"};
  static const char *const no[] = {"false", "False", "FALSE"};
  if (is_plain(node))
    for (int i = 0; i < 3; ++i) {
      if (!strcmp(scalar(node), yes[i]))
        return *out = 1, CUDALOAD_OK;
      if (!strcmp(scalar(node), no[i]))
        return *out = 0, CUDALOAD_OK;
    }
  return wrong_type(m, key, node, "true or false");
}

static int add_requirement(manifest *m, const yaml_node_t *node) {
  const char *spec = NULL;
  int rc = string_value(m, "requirements", node, &spec);
  if (rc)
    return rc;
  rc = cudaload_require(m->scratch, spec);
  if (rc) {
    /* Copy: manifest_fail writes the same per-thread buffer. */
    char why[2048];
    snprintf(why, sizeof why, "%s", cudaload_last_error());
    return manifest_fail(m, rc, node->start_mark, "requirements: %s", why);
  }
  return CUDALOAD_OK;
}

static int parse_requirements(manifest *m, yaml_document_t *doc,
                              const yaml_node_t *node) {
  if (is_null(node))
    return CUDALOAD_OK;
  if (node->type == YAML_SCALAR_NODE)
    return add_requirement(m, node); /* "cudnn=8,cudnn=9" */
  if (node->type != YAML_SEQUENCE_NODE)
    return wrong_type(m, "requirements", node,
                      "a sequence of requirement strings or one string");
  for (yaml_node_item_t *item = node->data.sequence.items.start;
       item < node->data.sequence.items.top; ++item) {
    const yaml_node_t *child = yaml_document_get_node(doc, *item);
    int rc = child ? add_requirement(m, child) : CUDALOAD_E_MALFORMED;
    if (rc)
      return rc;
  }
  return CUDALOAD_OK;
}

/* A root as the ctx keeps it: absolute, relative ones under the manifest's
 * folder (so a manifest shipped beside an application works wherever the
 * application is unpacked and whatever the current folder is). */
static char *resolve_root(const manifest *m, const char *dir) {
  if (cl_path_is_absolute(dir))
    return cl_strdup(dir);
  while (dir[0] == '.' && (dir[1] == '/' || dir[1] == '\\'))
    dir += 2;
  char *joined = cl_path_join(m->folder, *dir ? dir : ".");
  if (joined && CL_DIR_SEP == '\\')
    for (char *p = joined; *p; ++p)
      if (*p == '/')
        *p = '\\';
  return joined;
}

static int parse_roots(manifest *m, yaml_document_t *doc,
                       const yaml_node_t *node) {
  if (is_null(node))
    return CUDALOAD_OK;
  if (node->type != YAML_SEQUENCE_NODE)
    return wrong_type(m, "roots", node, "a sequence of folder names");
  for (yaml_node_item_t *item = node->data.sequence.items.start;
       item < node->data.sequence.items.top; ++item) {
    const yaml_node_t *child = yaml_document_get_node(doc, *item);
    const char *dir = NULL;
    int rc =
        child ? string_value(m, "roots", child, &dir) : CUDALOAD_E_MALFORMED;
    if (rc)
      return rc;
    if (!*dir)
      return manifest_fail(m, CUDALOAD_E_MALFORMED, child->start_mark,
                           "roots: an empty folder name");
    char *resolved = resolve_root(m, dir);
    if (!resolved || cl_reserve((void **)&m->roots, &m->root_capacity,
                                m->root_count + 1, sizeof(char *))) {
      free(resolved);
      return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
    }
    m->roots[m->root_count++] = resolved;
  }
  return CUDALOAD_OK;
}

/* The key of pair *pair, checked to be a scalar that appears only once in
 * its mapping. */
static int pair_key(const manifest *m, yaml_document_t *doc,
                    const yaml_node_t *mapping, const yaml_node_pair_t *pair,
                    const char *where, const yaml_node_t **key) {
  *key = yaml_document_get_node(doc, pair->key);
  if (!*key)
    return cl_fail(CUDALOAD_E_MALFORMED, "%s: malformed document", m->path);
  if ((*key)->type != YAML_SCALAR_NODE)
    return wrong_type(m, where, *key, "a key name");
  for (const yaml_node_pair_t *other = mapping->data.mapping.pairs.start;
       other < pair; ++other) {
    const yaml_node_t *k = yaml_document_get_node(doc, other->key);
    if (k && k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), scalar(*key)))
      return manifest_fail(m, CUDALOAD_E_MALFORMED, (*key)->start_mark,
                           "key \"%s%s\" appears twice (first on line %zu)",
                           where, scalar(*key), k->start_mark.line + 1);
  }
  return CUDALOAD_OK;
}

static int parse_policy(manifest *m, yaml_document_t *doc,
                        const yaml_node_t *node) {
  if (is_null(node))
    return CUDALOAD_OK;
  if (node->type != YAML_MAPPING_NODE)
    return wrong_type(m, "policy", node,
                      "a mapping (sublibraries, isolation, global)");
  for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
       pair < node->data.mapping.pairs.top; ++pair) {
    const yaml_node_t *key, *value = yaml_document_get_node(doc, pair->value);
    int rc = pair_key(m, doc, node, pair, "policy.", &key);
    if (rc)
      return rc;
    if (!value)
      return cl_fail(CUDALOAD_E_MALFORMED, "%s: malformed document", m->path);
    const char *name = scalar(key);
    if (!strcmp(name, "sublibraries")) {
      const char *v = NULL;
      rc = string_value(m, "policy.sublibraries", value, &v);
      if (!rc && !strcmp(v, "all"))
        m->preload_flags |= CUDALOAD_PRELOAD_ALL_SUBLIBS;
      else if (!rc && strcmp(v, "minimal") != 0)
        rc = wrong_type(m, "policy.sublibraries", value, "minimal or all");
    } else if (!strcmp(name, "isolation")) {
      rc = bool_value(m, "policy.isolation", value, &m->isolation);
    } else if (!strcmp(name, "global")) {
      rc = bool_value(m, "policy.global", value, &m->global);
      m->global_mark = key->start_mark;
    } else {
      rc = manifest_fail(m, CUDALOAD_E_MALFORMED, key->start_mark,
                         "unknown key \"policy.%s\" (expected sublibraries, "
                         "isolation or global)",
                         name);
    }
    if (rc)
      return rc;
  }
  if (m->isolation && m->global)
    return manifest_fail(m, CUDALOAD_E_MALFORMED, m->global_mark,
                         "policy: isolation: true and global: true contradict "
                         "each other (isolation keeps every library out of "
                         "the global symbol scope)");
  if (m->global)
    m->preload_flags |= CUDALOAD_PRELOAD_GLOBAL;
  return CUDALOAD_OK;
}

static int parse_top(manifest *m, yaml_document_t *doc,
                     const yaml_node_t *root) {
  if (root->type != YAML_MAPPING_NODE) {
    char found[96];
    describe_node(root, found, sizeof found);
    return manifest_fail(m, CUDALOAD_E_MALFORMED, root->start_mark,
                         "the manifest must be a mapping of requirements, "
                         "roots, policy and probe; found %s",
                         found);
  }
  for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
       pair < root->data.mapping.pairs.top; ++pair) {
    const yaml_node_t *key, *value = yaml_document_get_node(doc, pair->value);
    int rc = pair_key(m, doc, root, pair, "", &key);
    if (rc)
      return rc;
    if (!value)
      return cl_fail(CUDALOAD_E_MALFORMED, "%s: malformed document", m->path);
    const char *name = scalar(key);
    if (!strcmp(name, "requirements")) {
      rc = parse_requirements(m, doc, value);
    } else if (!strcmp(name, "roots")) {
      rc = parse_roots(m, doc, value);
    } else if (!strcmp(name, "policy")) {
      rc = parse_policy(m, doc, value);
    } else if (!strcmp(name, "probe")) {
      rc = bool_value(m, "probe", value, &m->probe);
    } else if (!strcmp(name, "schema_version")) {
      if (!is_plain(value) || !scalar(value)[0] ||
          strspn(scalar(value), "0123456789") != strlen(scalar(value)))
        rc = wrong_type(m, "schema_version", value, "a whole number");
      else if (strcmp(scalar(value), "1") != 0)
        rc = manifest_fail(m, CUDALOAD_E_UNSUPPORTED, value->start_mark,
                           "schema_version %s is not supported (this "
                           "libcudaload %s reads schema_version 1)",
                           scalar(value), cudaload_version_string());
    } else {
      rc = manifest_fail(m, CUDALOAD_E_MALFORMED, key->start_mark,
                         "unknown key \"%s\" (expected requirements, roots, "
                         "policy, probe or schema_version)",
                         name);
    }
    if (rc)
      return rc;
  }
  return CUDALOAD_OK;
}

/* Line and column of a byte offset, for errors libyaml reports by offset
 * (bad UTF-8). */
static yaml_mark_t mark_of_offset(const manifest *m, size_t offset) {
  yaml_mark_t mark = {offset, 0, 0};
  for (size_t i = 0; i < offset && i < m->len; ++i) {
    if (m->text[i] == '\n') {
      mark.line++;
      mark.column = 0;
    } else {
      mark.column++;
    }
  }
  return mark;
}

static int syntax_error(const manifest *m, const yaml_parser_t *parser) {
  if (parser->error == YAML_MEMORY_ERROR)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  if (parser->error == YAML_READER_ERROR)
    return manifest_fail(m, CUDALOAD_E_MALFORMED,
                         mark_of_offset(m, parser->problem_offset),
                         "YAML syntax error: %s",
                         parser->problem ? parser->problem : "unreadable");
  char context[256] = "";
  if (parser->context)
    snprintf(context, sizeof context, " (%s, line %zu, column %zu)",
             parser->context, parser->context_mark.line + 1,
             parser->context_mark.column + 1);
  return manifest_fail(
      m, CUDALOAD_E_MALFORMED, parser->problem_mark, "YAML syntax error: %s%s",
      parser->problem ? parser->problem : "malformed", context);
}

/* Parse m->text into m (nothing committed yet). */
static int parse_manifest(manifest *m) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  yaml_parser_set_input_string(&parser, (const unsigned char *)m->text, m->len);
  yaml_document_t doc;
  int rc;
  if (!yaml_parser_load(&parser, &doc)) {
    rc = syntax_error(m, &parser);
    yaml_parser_delete(&parser);
    return rc;
  }
  const yaml_node_t *root = yaml_document_get_root_node(&doc);
  /* An empty file is an empty manifest: it asks for nothing. */
  rc = root ? parse_top(m, &doc, root) : CUDALOAD_OK;
  yaml_document_delete(&doc);
  if (!rc && root) {
    /* One manifest per file: a second document would be ignored silently. */
    yaml_document_t extra;
    if (!yaml_parser_load(&parser, &extra)) {
      rc = syntax_error(m, &parser);
    } else {
      const yaml_node_t *second = yaml_document_get_root_node(&extra);
      if (second)
        rc = manifest_fail(m, CUDALOAD_E_MALFORMED, second->start_mark,
                           "a second YAML document; a manifest is one "
                           "document");
      yaml_document_delete(&extra);
    }
  }
  yaml_parser_delete(&parser);
  return rc;
}

/* Move what m holds into ctx. Only allocations can fail, and they all
 * happen before the first change. */
static int commit(cudaload_ctx *ctx, manifest *m) {
  cudaload_ctx *s = m->scratch;
  char *path_copy = cl_strdup(m->path);
  if (!path_copy ||
      cl_reserve((void **)&ctx->explicit_roots, &ctx->explicit_capacity,
                 ctx->explicit_count + m->root_count, sizeof(char *)) ||
      cl_reserve((void **)&ctx->requirements, &ctx->requirement_capacity,
                 ctx->requirement_count + s->requirement_count,
                 sizeof(cl_requirement))) {
    free(path_copy);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m->path);
  }
  size_t added_roots = m->root_count;
  for (size_t i = 0; i < m->root_count; ++i)
    ctx->explicit_roots[ctx->explicit_count++] = m->roots[i];
  m->root_count = 0;
  for (size_t i = 0; i < s->requirement_count; ++i) {
    /* The same requirement twice is one requirement (as cudaload_require). */
    int duplicate = 0;
    for (size_t k = 0; k < ctx->requirement_count && !duplicate; ++k)
      duplicate = !strcmp(ctx->requirements[k].text, s->requirements[i].text);
    if (duplicate)
      free(s->requirements[i].text);
    else
      ctx->requirements[ctx->requirement_count++] = s->requirements[i];
  }
  s->requirement_count = 0;
  free(ctx->manifest_path);
  ctx->manifest_path = path_copy;
  ctx->manifest_preload_flags = m->preload_flags;
  ctx->manifest_isolation = m->isolation;
  ctx->manifest_probe = m->probe;
  /* New requirements or roots make the plan stale, and new roots the
   * inventory: the next plan or doctor must search them. */
  cl_ctx_clear_plan(ctx);
  if (added_roots)
    ctx->scanned = 0;
  return CUDALOAD_OK;
}

/* The manifest's folder, absolute, so relative roots do not depend on the
 * current folder at the time of the scan. */
static int manifest_folder(manifest *m) {
  char *dir = cl_path_dirname(m->path);
  char *real = cl_real_path(dir ? dir : ".");
  free(dir);
  if (!real)
    return cl_fail(CUDALOAD_E_IO, "%s: cannot resolve the manifest's folder",
                   m->path);
  m->folder = real;
  return CUDALOAD_OK;
}

static int load_text(cudaload_ctx *ctx, manifest *m);

static int read_manifest(manifest *m, char **text) {
  size_t len = 0;
  int rc = cl_read_file_head(m->path, CL_MANIFEST_MAX + 1, text, &len);
  switch (rc) {
  case CUDALOAD_OK:
    break;
  case CUDALOAD_E_NOT_FOUND:
    return cl_fail(rc, "%s: no such manifest file", m->path);
  case CUDALOAD_E_NOT_A_FILE:
    return cl_fail(rc,
                   "%s: not a regular file (a folder, FIFO or device); a "
                   "manifest must be a YAML file",
                   m->path);
  case CUDALOAD_E_NO_MEMORY:
    return cl_fail(rc, "%s: out of memory", m->path);
  default: {
    char why[2048];
    snprintf(why, sizeof why, "%s", cudaload_last_error());
    return cl_fail(rc, "%s: cannot read the manifest: %s", m->path, why);
  }
  }
  if (len > CL_MANIFEST_MAX) {
    free(*text);
    *text = NULL;
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: larger than %u KiB; a manifest is a short YAML file",
                   m->path, CL_MANIFEST_MAX / 1024u);
  }
  m->text = *text;
  m->len = len;
  return CUDALOAD_OK;
}

int cudaload_load_manifest(cudaload_ctx *ctx, const char *path) {
  cl_clear_error();
  if (!ctx || !path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_load_manifest: NULL %s", ctx ? "path" : "ctx");
  if (!*path)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_load_manifest: empty file name");
  manifest m;
  memset(&m, 0, sizeof m);
  m.path = path;
  char *text = NULL;
  int rc = read_manifest(&m, &text);
  if (!rc)
    rc = load_text(ctx, &m);
  free(text);
  return rc;
}

/* From memory (the fuzzer's entry): path names the file in messages and
 * gives the folder relative roots are resolved against. */
int cl_manifest_load_text(cudaload_ctx *ctx, const char *path, const char *text,
                          size_t len) {
  cl_clear_error();
  if (!ctx || !path || !*path || (!text && len))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cl_manifest_load_text: NULL or empty argument");
  if (len > CL_MANIFEST_MAX)
    return cl_fail(CUDALOAD_E_MALFORMED,
                   "%s: larger than %u KiB; a manifest is a short YAML file",
                   path, CL_MANIFEST_MAX / 1024u);
  manifest m;
  memset(&m, 0, sizeof m);
  m.path = path;
  m.text = text ? text : "";
  m.len = len;
  return load_text(ctx, &m);
}

/* Everything after the read: m->path, m->text and m->len are set. */
static int load_text(cudaload_ctx *ctx, manifest *mp) {
  manifest m = *mp;
  int rc = manifest_folder(&m);
  if (!rc && !(m.scratch = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS)))
    rc = cl_fail(CUDALOAD_E_NO_MEMORY, "%s: out of memory", m.path);
  if (!rc)
    rc = parse_manifest(&m);
  if (!rc)
    rc = commit(ctx, &m);
  for (size_t i = 0; i < m.root_count; ++i)
    free(m.roots[i]);
  free(m.roots);
  free(m.folder);
  cudaload_destroy(m.scratch);
  if (!rc)
    cl_clear_error();
  return rc;
}

#endif /* CUDALOAD_WITH_YAML */
