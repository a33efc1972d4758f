/*
 * spec.c - requirement specs: "cudnn=8", "cudnn>=8.9", "cublas=12",
 * "cudart", several separated by commas ("cudnn=8,cudnn=9").
 */
#include "context.h"
#include "error.h"
#include "strutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cl_version_parse(const char *text, long parts[CL_VERSION_PARTS]) {
  int n = 0;
  for (int i = 0; i < CL_VERSION_PARTS; ++i)
    parts[i] = 0;
  const char *p = text;
  while (n < CL_VERSION_PARTS && isdigit((unsigned char)*p)) {
    long v = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p) && digits < 9) {
      v = v * 10 + (*p++ - '0');
      ++digits;
    }
    while (isdigit((unsigned char)*p))
      ++p; /* absurdly long numbers are clamped, not overflowed */
    parts[n++] = v;
    if (*p != '.')
      break;
    ++p;
  }
  return n;
}

int cl_version_compare(const long *a, int a_parts, const long *b, int b_parts) {
  int n = a_parts > b_parts ? a_parts : b_parts;
  for (int i = 0; i < n; ++i) {
    long x = i < a_parts ? a[i] : 0, y = i < b_parts ? b[i] : 0;
    if (x != y)
      return x < y ? -1 : 1;
  }
  return 0;
}

/* The families a requirement may name, by their main library. */
static const cl_catalog_entry *family_main(const char *name, size_t len) {
  static const char *const requirable[] = {
      "cudart", "cublas",   "cudnn",    "nvrtc", "nvJitLink", "cufft",
      "curand", "cusparse", "cusolver", "nccl",  "cupti"};
  for (size_t i = 0; i < sizeof requirable / sizeof *requirable; ++i) {
    const char *r = requirable[i];
    if (strlen(r) != len)
      continue;
    size_t k = 0;
    while (k < len &&
           tolower((unsigned char)r[k]) == tolower((unsigned char)name[k]))
      ++k;
    if (k == len)
      return cl_catalog_find(r);
  }
  return NULL;
}

static const char *op_text(cl_version_op op) {
  switch (op) {
  case CL_OP_EQ:
    return "=";
  case CL_OP_GE:
    return ">=";
  case CL_OP_GT:
    return ">";
  case CL_OP_LE:
    return "<=";
  case CL_OP_LT:
    return "<";
  default:
    return "";
  }
}

/* Parse one requirement from [p, end); trims spaces. */
static int parse_one(const char *p, const char *end, const char *whole,
                     cl_requirement *out) {
  while (p < end && isspace((unsigned char)*p))
    ++p;
  while (end > p && isspace((unsigned char)end[-1]))
    --end;
  if (p == end)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": empty entry (two commas in a row, or "
                   "a comma at an end)",
                   whole);
  const char *name = p;
  while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
    ++p;
  size_t name_len = (size_t)(p - name);
  memset(out, 0, sizeof *out);
  out->entry = family_main(name, name_len);
  if (!out->entry)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": unknown library \"%.*s\" (expected "
                   "cudart, cublas, cudnn, nvrtc, nvjitlink, cufft, curand, "
                   "cusparse, cusolver, nccl or cupti)",
                   whole, (int)name_len, name);
  while (p < end && isspace((unsigned char)*p))
    ++p;
  if (p == end) {
    out->op = CL_OP_ANY;
  } else {
    if (p + 1 < end && p[0] == '=' && p[1] == '=')
      out->op = CL_OP_EQ, p += 2;
    else if (p + 1 < end && p[0] == '>' && p[1] == '=')
      out->op = CL_OP_GE, p += 2;
    else if (p + 1 < end && p[0] == '<' && p[1] == '=')
      out->op = CL_OP_LE, p += 2;
    else if (*p == '=')
      out->op = CL_OP_EQ, p += 1;
    else if (*p == '>')
      out->op = CL_OP_GT, p += 1;
    else if (*p == '<')
      out->op = CL_OP_LT, p += 1;
    else
      return cl_fail(CUDALOAD_E_BAD_SPEC,
                     "requirement \"%s\": expected =, ==, >=, >, <= or < "
                     "after \"%.*s\", found \"%.*s\"",
                     whole, (int)name_len, name, (int)(end - p), p);
    while (p < end && isspace((unsigned char)*p))
      ++p;
    char version[64];
    size_t vlen = (size_t)(end - p);
    if (vlen == 0 || vlen >= sizeof version)
      return cl_fail(CUDALOAD_E_BAD_SPEC,
                     "requirement \"%s\": missing or overlong version after "
                     "\"%s\"",
                     whole, op_text(out->op));
    memcpy(version, p, vlen);
    version[vlen] = '\0';
    /* digits(.digits){0,3} and nothing else */
    int parts = cl_version_parse(version, out->version);
    int well_formed = parts > 0;
    for (size_t i = 0; well_formed && i < vlen; ++i)
      if (!isdigit((unsigned char)version[i]) && version[i] != '.')
        well_formed = 0;
    if (well_formed && (version[vlen - 1] == '.' || strstr(version, "..") ||
                        version[0] == '.'))
      well_formed = 0;
    if (well_formed) {
      int dots = 0;
      for (size_t i = 0; i < vlen; ++i)
        dots += version[i] == '.';
      well_formed = dots + 1 == parts;
    }
    if (!well_formed)
      return cl_fail(CUDALOAD_E_BAD_SPEC,
                     "requirement \"%s\": \"%s\" is not a version (expected "
                     "up to four numbers separated by dots, such as 8 or "
                     "8.9.7)",
                     whole, version);
    out->version_parts = parts;
  }
  char text[128];
  int n =
      snprintf(text, sizeof text, "%s%s", out->entry->family, op_text(out->op));
  for (int i = 0; i < out->version_parts && n > 0 && (size_t)n < sizeof text;
       ++i)
    n += snprintf(text + n, sizeof text - (size_t)n, i ? ".%ld" : "%ld",
                  out->version[i]);
  out->text = cl_strdup(text);
  return out->text ? CUDALOAD_OK
                   : cl_fail(CUDALOAD_E_NO_MEMORY, "out of memory");
}

int cudaload_require(cudaload_ctx *ctx, const char *spec) {
  cl_clear_error();
  if (!ctx || !spec)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_require: NULL %s",
                   ctx ? "spec" : "ctx");
  /* Parse everything first: a bad spec adds nothing. */
  size_t count = 1;
  for (const char *c = spec; *c; ++c)
    count += *c == ',';
  cl_requirement *parsed = calloc(count, sizeof *parsed);
  if (!parsed)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_require: out of memory");
  int rc = CUDALOAD_OK;
  size_t n = 0;
  const char *start = spec;
  for (;;) {
    const char *comma = strchr(start, ',');
    const char *end = comma ? comma : start + strlen(start);
    rc = parse_one(start, end, spec, &parsed[n]);
    if (rc)
      break;
    ++n;
    if (!comma)
      break;
    start = comma + 1;
  }
  if (rc == CUDALOAD_OK &&
      cl_reserve((void **)&ctx->requirements, &ctx->requirement_capacity,
                 ctx->requirement_count + n, sizeof(cl_requirement)))
    rc = cl_fail(CUDALOAD_E_NO_MEMORY, "cudaload_require: out of memory");
  if (rc) {
    for (size_t i = 0; i < n; ++i)
      free(parsed[i].text);
    free(parsed);
    return rc;
  }
  for (size_t i = 0; i < n; ++i) {
    /* The same requirement twice is one requirement. */
    int duplicate = 0;
    for (size_t k = 0; k < ctx->requirement_count; ++k)
      if (strcmp(ctx->requirements[k].text, parsed[i].text) == 0)
        duplicate = 1;
    if (duplicate)
      free(parsed[i].text);
    else
      ctx->requirements[ctx->requirement_count++] = parsed[i];
  }
  free(parsed);
  cl_ctx_clear_plan(ctx);
  return CUDALOAD_OK;
}

size_t cudaload_requirement_count(const cudaload_ctx *ctx) {
  return ctx ? ctx->requirement_count : 0;
}

const char *cudaload_requirement_text(const cudaload_ctx *ctx, size_t i) {
  return ctx && i < ctx->requirement_count ? ctx->requirements[i].text : NULL;
}
