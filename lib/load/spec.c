/* SPDX-License-Identifier: MIT */
/*
 * spec.c - requirement specs: "cudnn=8", "cudnn>=8.9", "cublas=12",
 * "cudart", several separated by commas ("cudnn=8,cudnn=9"). A library is
 * named by its family, its own catalog name ("cudnn_ops_infer=8",
 * "cublasLt=12": its family's requirement) or a file name, as error
 * messages print it ("libcublasLt.so.12", "cudnn_ops_infer64_8.dll").
 */
#include "core/context.h"
#include "load/spec.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "scan/catalog.h"
#include "load/plan_state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cl_version_parse(const char *text, long parts[CL_VERSION_PARTS]) {
  int n = 0;
  for (int i = 0; i < CL_VERSION_PARTS; ++i)
    parts[i] = 0;
  const char *p = text;
  while (n < CL_VERSION_PARTS && cl_ascii_is_digit(*p)) {
    long v = 0;
    /* Leading zeros are skipped: "0000000008" is 8 (counted as digits,
     * they once made it 0, its 8 cut off as a tenth digit). */
    while (*p == '0')
      ++p;
    while (cl_ascii_is_digit(*p)) {
      /* Versions read from files are clamped, not overflowed: a scan must
       * not fail on an absurd number in some METADATA (a spec refuses it,
       * see number_too_large). */
      v = v > CL_VERSION_PART_MAX / 10 ? CL_VERSION_PART_MAX
                                       : v * 10 + (*p - '0');
      ++p;
    }
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

static int same_name(const char *a, const char *name, size_t len) {
  return strlen(a) == len && cl_same_nocase(a, name, len);
}

/* The main library a requirement names: a family's by the family's name
 * ("nvjitlink", "cusolverMg"; a main library's name is its family's), any
 * case; the driver's libraries are not requirable ("cuda" is the CUDA major
 * pin). For a group name ("npp") the group's first main library, with
 * *group set. */
static const cl_catalog_entry *requirement_main(const char *name, size_t len,
                                                const char **group) {
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  *group = NULL;
  const cl_catalog_family *family = cl_catalog_family_named(name, len);
  if (family && !family->is_driver)
    return cl_catalog_family_main(family->name);
  for (size_t i = 0; i < count; ++i)
    if (all[i].group && same_name(all[i].group, name, len)) {
      *group = all[i].group;
      return &all[i];
    }
  return NULL;
}

/* A sub-library's own name ("cudnn_ops_infer", "cublasLt"), any case: the
 * entry itself (its family's main library is what a plan requires). */
static const cl_catalog_entry *sub_library(const char *name, size_t len) {
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  for (size_t i = 0; i < count; ++i)
    if (all[i].role == CL_ROLE_SUB && same_name(all[i].name, name, len))
      return &all[i];
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

/* A piece of the caller's text for a message: at most CL_SPEC_ECHO bytes,
 * with "..." where it was cut. A spec may be a megabyte long (thousands of
 * entries), and echoing all of it would push the reason out of the 8 KiB
 * error buffer. */
#define CL_SPEC_ECHO 64
typedef struct spec_echo {
  char text[CL_SPEC_ECHO + 4];
} spec_echo;

static const char *echo_of(spec_echo *e, const char *s, size_t len) {
  size_t n = cl_quote_length(s, len, CL_SPEC_ECHO);
  memcpy(e->text, s, n);
  memcpy(e->text + n, n < len ? "..." : "", n < len ? 4 : 1);
  return e->text;
}

/* The whole spec, for a message. Called only on error: strlen() of the
 * spec for each entry would make a spec of many entries quadratic. */
static const char *echo_spec(spec_echo *e, const char *spec) {
  return echo_of(e, spec, strlen(spec));
}

/* Where an empty entry is, when the spec has several: "; entry 3 of 5". */
static void entry_position(char *buf, size_t len, size_t index, size_t count) {
  if (count > 1)
    snprintf(buf, len, "; entry %zu of %zu", index + 1, count);
  else if (len)
    buf[0] = '\0';
}

/* The first number of version (digits and dots, well-formed) larger than
 * CL_VERSION_PART_MAX, or NULL; *len is its length. Leading zeros do not
 * count: "0009" is 9. */
static const char *number_too_large(const char *version, size_t *len) {
  for (const char *p = version; *p;) {
    const char *start = p;
    while (*p == '0')
      ++p;
    const char *significant = p;
    while (cl_ascii_is_digit(*p))
      ++p;
    if (p - significant > 9) {
      *len = (size_t)(p - start);
      return start;
    }
    if (*p == '.')
      ++p;
  }
  return NULL;
}

/* The comparison at p ("==" before "=", ">=" before ">"): its length, 0
 * when there is none. */
static size_t parse_op(const char *p, const char *end, cl_version_op *op) {
  if (p + 1 < end && p[0] == '=' && p[1] == '=')
    return *op = CL_OP_EQ, 2;
  if (p + 1 < end && p[0] == '>' && p[1] == '=')
    return *op = CL_OP_GE, 2;
  if (p + 1 < end && p[0] == '<' && p[1] == '=')
    return *op = CL_OP_LE, 2;
  if (*p == '=')
    return *op = CL_OP_EQ, 1;
  if (*p == '>')
    return *op = CL_OP_GT, 1;
  if (*p == '<')
    return *op = CL_OP_LT, 1;
  return 0;
}

/* digits(.digits){0,3} and nothing else; *parts is what cl_version_parse
 * read. */
static int well_formed_version(const char *version, size_t vlen, long *out,
                               int *parts) {
  *parts = cl_version_parse(version, out);
  if (*parts <= 0)
    return 0;
  for (size_t i = 0; i < vlen; ++i)
    if (!cl_ascii_is_digit(version[i]) && version[i] != '.')
      return 0;
  if (version[vlen - 1] == '.' || strstr(version, "..") || version[0] == '.')
    return 0;
  int dots = 0;
  for (size_t i = 0; i < vlen; ++i)
    dots += version[i] == '.';
  return dots + 1 == *parts;
}

/* The version after the comparison, [p, end), into out. */
static int parse_version(const char *p, const char *end, const char *whole,
                         cl_requirement *out) {
  spec_echo w, e;
  char version[64];
  size_t vlen = (size_t)(end - p);
  if (vlen == 0)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": missing version after \"%s\"",
                   echo_spec(&w, whole), op_text(out->op));
  if (vlen >= sizeof version)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": version \"%s\" is longer than %u "
                   "characters, the limit for a version",
                   echo_spec(&w, whole), echo_of(&e, p, vlen),
                   (unsigned)sizeof version - 1);
  memcpy(version, p, vlen);
  version[vlen] = '\0';
  int parts;
  if (!well_formed_version(version, vlen, out->version, &parts))
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": \"%s\" is not a version (expected "
                   "up to four numbers separated by dots, such as 8 or "
                   "8.9.7)",
                   echo_spec(&w, whole), version);
  /* cl_version_parse clamps what it cannot hold; a requirement must not
   * silently become another one ("cudnn=9999999999999999999" would ask
   * for cuDNN 999999999). */
  size_t big_len;
  const char *big = number_too_large(version, &big_len);
  if (big)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": version number %.*s is larger "
                   "than %ld, the largest a version number may be",
                   echo_spec(&w, whole), (int)big_len, big,
                   CL_VERSION_PART_MAX);
  out->version_parts = parts;
  return CUDALOAD_OK;
}

/* What follows the name, [p, end): nothing (any version), or a comparison
 * and a version. */
static int parse_constraint(const char *p, const char *end, const char *whole,
                            const char *name, size_t name_len,
                            cl_requirement *out) {
  while (p < end && cl_ascii_is_space(*p))
    ++p;
  if (p == end) {
    out->op = CL_OP_ANY;
    return CUDALOAD_OK;
  }
  size_t op_len = parse_op(p, end, &out->op);
  if (!op_len) {
    spec_echo w, n, e;
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": expected =, ==, >=, >, <= or < "
                   "after \"%s\", found \"%s\"",
                   echo_spec(&w, whole), echo_of(&n, name, name_len),
                   echo_of(&e, p, (size_t)(end - p)));
  }
  p += op_len;
  while (p < end && cl_ascii_is_space(*p))
    ++p;
  return parse_version(p, end, whole, out);
}

/* The requirement's canonical text ("cudnn>=8.9"), into out->text. */
static int set_requirement_text(const char *whole, int pin,
                                cl_requirement *out) {
  char text[128];
  int n = snprintf(text, sizeof text, "%s%s", pin ? "cuda" : out->entry->family,
                   op_text(out->op));
  for (int i = 0; i < out->version_parts && n > 0 && (size_t)n < sizeof text;
       ++i)
    n += snprintf(text + n, sizeof text - (size_t)n, i ? ".%ld" : "%ld",
                  out->version[i]);
  out->text = cl_strdup(text);
  spec_echo w;
  return out->text ? CUDALOAD_OK
                   : cl_fail(CUDALOAD_E_NO_MEMORY,
                             "requirement \"%s\": out of memory",
                             echo_spec(&w, whole));
}

/* The catalog's example requirements ("cudart, cublas, ... npp or
 * cutensor"): each entry marked spec_example, by its group or else its
 * family lower-cased, as a spec names it, each once. */
static const char *example_names(char *out, size_t size) {
  size_t count, len = 0;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  const char *names[64];
  size_t n = 0;
  for (size_t i = 0; i < count && n < sizeof names / sizeof names[0]; ++i) {
    if (!all[i].spec_example)
      continue;
    const char *name = all[i].group ? all[i].group : all[i].family;
    int seen = 0;
    for (size_t k = 0; k < n && !seen; ++k)
      seen = strcmp(names[k], name) == 0;
    if (!seen)
      names[n++] = name;
  }
  out[0] = '\0';
  for (size_t k = 0; k < n && len < size; ++k) {
    int w = snprintf(out + len, size - len, "%s%s",
                     k == 0       ? ""
                     : k + 1 == n ? " or "
                                  : ", ",
                     names[k]);
    if (w < 0)
      break;
    len += (size_t)w;
  }
  return out;
}

/* The end of a file name that starts at p ("libcublasLt.so.12",
 * "cudnn_ops_infer64_8.dll"): up to a space, a comparison or end. */
static const char *file_name_end(const char *p, const char *end) {
  while (p < end && !cl_ascii_is_space(*p) && *p != '=' && *p != '<' &&
         *p != '>')
    ++p;
  return p;
}

/* A library's file name as a requirement: "libcublasLt.so.12" is
 * cublas=12, "cudnn_ops_infer64_8.dll" cudnn=8 (the name carries the
 * major, so nothing may follow it). [name, name_end) is the name, [p, end)
 * what follows it. */
static int parse_file_name(const char *name, const char *name_end,
                           const char *p, const char *end, const char *whole,
                           cl_requirement *out) {
  spec_echo w, e;
  size_t len = (size_t)(name_end - name);
  char file[256];
  cl_name_match m;
  int known = len < sizeof file;
  if (known) {
    memcpy(file, name, len);
    file[len] = '\0';
    known = cl_catalog_match(file, CL_NAMING_LINUX, &m) ||
            cl_catalog_match(file, CL_NAMING_WINDOWS, &m);
  }
  if (!known)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": \"%s\" is not the file name of a "
                   "CUDA library cudaload knows (such as libcublas.so.12, "
                   "libcudnn_ops_infer.so.8 or cudnn64_9.dll; "
                   "docs/scan-contract.md lists them all)",
                   echo_spec(&w, whole), echo_of(&e, name, len));
  if (cl_catalog_is_driver(m.entry))
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": %s is the NVIDIA driver's library, "
                   "which is installed with the driver, not required (cudaload "
                   "doctor says whether it is there)",
                   echo_spec(&w, whole), file);
  while (p < end && cl_ascii_is_space(*p))
    ++p;
  if (p < end)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": a file name carries its major (%s is "
                   "%s %d); write %s and a comparison instead, as in %s>=%d",
                   echo_spec(&w, whole), file, m.entry->family, m.major,
                   m.entry->family, m.entry->family, m.major);
  const char *group;
  out->entry =
      requirement_main(m.entry->family, strlen(m.entry->family), &group);
  out->op = CL_OP_EQ;
  out->version[0] = m.major;
  out->version_parts = 1;
  return CUDALOAD_OK;
}

/* Whether some version of a major in [lo, hi] satisfies req's comparison:
 * "cudnn_graph<9" cannot (cuDNN 9 split the graph library out). */
static int majors_can_satisfy(int lo, int hi, const cl_requirement *req) {
  long low[1] = {lo};
  switch (req->op) {
  case CL_OP_EQ:
    return req->version[0] >= lo && req->version[0] <= hi;
  case CL_OP_LT:
    return cl_version_compare(low, 1, req->version, req->version_parts) < 0;
  case CL_OP_LE:
    return cl_version_compare(low, 1, req->version, req->version_parts) <= 0;
  case CL_OP_GT:
  case CL_OP_GE:
    return hi >= req->version[0];
  default:
    return 1;
  }
}

/* A sub-library named with a version it does not have
 * ("cudnn_ops_infer=9": cuDNN 9 split it) fails; without a version, a
 * sub-library of one major only requires that major ("cudnn_ops_infer" is
 * cudnn=8). */
static int check_sub_library_major(const cl_catalog_entry *sub,
                                   const char *whole, cl_requirement *out) {
  if (out->op == CL_OP_ANY && sub->min_major == sub->max_major) {
    out->op = CL_OP_EQ;
    out->version[0] = sub->min_major;
    out->version_parts = 1;
    return CUDALOAD_OK;
  }
  if (majors_can_satisfy(sub->min_major, sub->max_major, out))
    return CUDALOAD_OK;
  spec_echo w;
  if (sub->min_major == sub->max_major)
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": %s is a library of %s %d only, "
                   "which the version asked for excludes",
                   echo_spec(&w, whole), sub->name, sub->family,
                   sub->min_major);
  return cl_fail(CUDALOAD_E_BAD_SPEC,
                 "requirement \"%s\": %s exists in %s %d to %d only, which "
                 "the version asked for excludes",
                 echo_spec(&w, whole), sub->name, sub->family, sub->min_major,
                 sub->max_major);
}

/* Parse entry `index` of `count`, [p, end) of the spec `whole`; trims
 * spaces. */
static int parse_one(const char *p, const char *end, const char *whole,
                     size_t index, size_t count, cl_requirement *out) {
  spec_echo w, e;
  while (p < end && cl_ascii_is_space(*p))
    ++p;
  while (end > p && cl_ascii_is_space(end[-1]))
    --end;
  if (p == end) {
    char where[64];
    entry_position(where, sizeof where, index, count);
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": empty entry (two commas in a row, or "
                   "a comma at an end%s)",
                   echo_spec(&w, whole), where);
  }
  /* A name is letters, digits and '_'; a byte of a UTF-8 character
   * belongs to it too, so that "cüdnn" is refused as a whole, not as "c"
   * followed by a comparison. */
  const char *name = p;
  while (p < end &&
         (cl_ascii_is_alnum(*p) || *p == '_' || (unsigned char)*p >= 0x80))
    ++p;
  size_t name_len = (size_t)(p - name);
  memset(out, 0, sizeof *out);
  if (p < end && *p == '.') { /* a file name: "libcublasLt.so.12" */
    const char *name_end = file_name_end(p, end);
    int status = parse_file_name(name, name_end, name_end, end, whole, out);
    return status ? status : set_requirement_text(whole, 0, out);
  }
  out->entry = requirement_main(name, name_len, &out->group);
  const cl_catalog_entry *sub = NULL;
  if (!out->entry && (sub = sub_library(name, name_len)) != NULL)
    out->entry =
        requirement_main(sub->family, strlen(sub->family), &out->group);
  /* "cuda=12" pins the plan's CUDA major (no library of its own). */
  int pin = name_len == 4 && cl_same_nocase(name, "cuda", 4);
  if (!out->entry && !pin) {
    char examples[256];
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": unknown library \"%s\" (expected "
                   "a library such as %s (docs/scan-contract.md lists them "
                   "all), or its file name; or cuda=MAJOR)",
                   echo_spec(&w, whole), echo_of(&e, name, name_len),
                   example_names(examples, sizeof examples));
  }
  int status = parse_constraint(p, end, whole, name, name_len, out);
  if (status == CUDALOAD_OK && sub)
    status = check_sub_library_major(sub, whole, out);
  if (status != CUDALOAD_OK)
    return status;
  if (pin && (out->op != CL_OP_EQ || out->version_parts != 1 ||
              out->version[0] < 1 || out->version[0] > 99))
    return cl_fail(CUDALOAD_E_BAD_SPEC,
                   "requirement \"%s\": cuda takes one CUDA major, as in "
                   "cuda=12 (it chooses which CUDA major's libraries the plan "
                   "takes)",
                   echo_spec(&w, whole));
  return set_requirement_text(whole, pin, out);
}

/* The cuda=MAJOR pin among reqs (0: none); CUDALOAD_E_BAD_SPEC when two
 * differ. Changes nothing. */
static int find_pin(const cl_requirement *reqs, size_t n, long *pin) {
  *pin = 0;
  for (size_t i = 0; i < n; ++i) {
    if (reqs[i].entry)
      continue;
    if (*pin && *pin != reqs[i].version[0])
      return cl_fail(CUDALOAD_E_BAD_SPEC,
                     "requirements cuda=%ld and cuda=%ld: one plan takes one "
                     "CUDA major (a library of another, such as cublas=12, "
                     "is required by name)",
                     *pin, reqs[i].version[0]);
    *pin = reqs[i].version[0];
  }
  return CUDALOAD_OK;
}

/* Move the pins out of reqs (their text freed, ctx pinned): what is left
 * are library requirements, *n of them. Cannot fail. */
static void take_pins(cl_plan_state *ps, cl_requirement *reqs, size_t *n,
                      long pin) {
  size_t kept = 0;
  for (size_t i = 0; i < *n; ++i) {
    if (reqs[i].entry)
      reqs[kept++] = reqs[i];
    else
      free(reqs[i].text);
  }
  *n = kept;
  if (pin) {
    ps->cuda_pin = (int)pin;
    ps->cuda_pin_source = CUDALOAD_FROM_REQUEST;
    free(ps->cuda_pin_why);
    ps->cuda_pin_why = NULL;
  }
}

int cl_requirements_add(cudaload_ctx *ctx, cl_requirement *reqs, size_t n) {
  cl_plan_state *ps = cl_plan_state_make(ctx);
  if (!ps)
    return CUDALOAD_E_NO_MEMORY;
  long pin;
  int pin_rc = find_pin(reqs, n, &pin);
  if (pin_rc)
    return pin_rc;
  if (cl_reserve((void **)&ps->requirements, &ps->requirement_capacity,
                 ps->requirement_count + n, sizeof(cl_requirement)))
    return CUDALOAD_E_NO_MEMORY;
  take_pins(ps, reqs, &n, pin);
  if (n <= 8) {
    /* The usual call: a few new ones against what ctx holds. */
    for (size_t i = 0; i < n; ++i) {
      int duplicate = 0;
      for (size_t k = 0; k < ps->requirement_count && !duplicate; ++k)
        duplicate = !strcmp(ps->requirements[k].text, reqs[i].text);
      if (duplicate)
        free(reqs[i].text);
      else
        ps->requirements[ps->requirement_count++] = reqs[i];
    }
    return CUDALOAD_OK;
  }
  /* Many: a scan per new requirement made a spec or manifest of thousands
   * of entries quadratic. Texts already held map to SIZE_MAX, each new text
   * to its first place in reqs: reqs[i] is kept when its text maps to i. */
  cl_str_index seen;
  cl_str_index_init(&seen, 0);
  int rc = CUDALOAD_OK;
  for (size_t k = 0; !rc && k < ps->requirement_count; ++k)
    rc = cl_str_index_add(&seen, ps->requirements[k].text, SIZE_MAX);
  for (size_t i = 0; !rc && i < n; ++i)
    rc = cl_str_index_add(&seen, reqs[i].text, i);
  if (rc) {
    cl_str_index_free(&seen);
    return CUDALOAD_E_NO_MEMORY;
  }
  /* Nothing can fail from here on. */
  for (size_t i = 0; i < n; ++i) {
    size_t first = SIZE_MAX;
    cl_str_index_find(&seen, reqs[i].text, &first);
    if (first == i)
      ps->requirements[ps->requirement_count++] = reqs[i];
    else
      free(reqs[i].text);
  }
  cl_str_index_free(&seen);
  return CUDALOAD_OK;
}

/* The requirement text of entry with req's operator and version:
 * "nppig=12". */
static char *requirement_text(const char *family, const cl_requirement *req) {
  char text[128];
  int n = snprintf(text, sizeof text, "%s%s", family, op_text(req->op));
  for (int i = 0; i < req->version_parts && n > 0 && (size_t)n < sizeof text;
       ++i)
    n += snprintf(text + n, sizeof text - (size_t)n, i ? ".%ld" : "%ld",
                  req->version[i]);
  return cl_strdup(text);
}

/* The last of reqs[0, *n) named a group ("npp=12"): add the same
 * requirement for every other main library of the group (reqs has room for
 * one per catalog entry). */
static int expand_group(cl_requirement *reqs, size_t *n) {
  cl_requirement first = reqs[*n - 1];
  reqs[*n - 1].group = NULL;
  size_t count;
  const cl_catalog_entry *all = cl_catalog_entries(&count);
  for (size_t i = 0; i < count; ++i) {
    if (!all[i].group || strcmp(all[i].group, first.group) != 0 ||
        all[i].role != CL_ROLE_MAIN || &all[i] == first.entry)
      continue;
    cl_requirement r = first;
    r.group = NULL;
    r.entry = &all[i];
    r.text = requirement_text(all[i].family, &first);
    if (!r.text)
      return cl_fail(CUDALOAD_E_NO_MEMORY, "requirement %s: out of memory",
                     first.text);
    reqs[(*n)++] = r;
  }
  return CUDALOAD_OK;
}

int cl_spec_parse(const char *spec, cl_requirement **parsed, size_t *count) {
  *parsed = NULL;
  *count = 0;
  size_t entries = 1;
  for (const char *c = spec; *c; ++c)
    entries += *c == ',';
  size_t capacity = entries;
  cl_requirement *reqs = calloc(capacity, sizeof *reqs);
  if (!reqs) {
    spec_echo w;
    return cl_fail(CUDALOAD_E_NO_MEMORY, "requirement \"%s\": out of memory",
                   echo_spec(&w, spec));
  }
  int rc = CUDALOAD_OK;
  size_t n = 0, index = 0;
  const char *start = spec;
  for (;;) {
    const char *comma = strchr(start, ',');
    const char *end = comma ? comma : start + strlen(start);
    /* A group takes a slot per main library (at most one per catalog
     * entry); the entries after it still need theirs. */
    size_t catalog_size;
    cl_catalog_entries(&catalog_size);
    if (cl_reserve((void **)&reqs, &capacity,
                   n + catalog_size + (entries - index), sizeof *reqs)) {
      spec_echo w;
      rc = cl_fail(CUDALOAD_E_NO_MEMORY, "requirement \"%s\": out of memory",
                   echo_spec(&w, spec));
      break;
    }
    rc = parse_one(start, end, spec, index, entries, &reqs[n]);
    if (rc)
      break;
    ++n;
    if (reqs[n - 1].group)
      rc = expand_group(reqs, &n);
    if (rc)
      break;
    ++index;
    if (!comma)
      break;
    start = comma + 1;
  }
  if (rc) {
    for (size_t i = 0; i < n; ++i)
      free(reqs[i].text);
    free(reqs);
    return rc;
  }
  *parsed = reqs;
  *count = n;
  return CUDALOAD_OK;
}

int cl_require_from(cudaload_ctx *ctx, const char *spec, int source) {
  /* Parse everything first: a bad spec adds nothing. */
  cl_requirement *parsed;
  size_t n;
  int rc = cl_spec_parse(spec, &parsed, &n);
  if (rc)
    return rc;
  for (size_t i = 0; i < n; ++i)
    parsed[i].source = source;
  rc = cl_requirements_add(ctx, parsed, n);
  if (rc) {
    for (size_t i = 0; i < n; ++i)
      free(parsed[i].text);
    free(parsed);
    return rc == CUDALOAD_E_NO_MEMORY
               ? cl_fail(rc, "cudaload_require: out of memory")
               : rc;
  }
  free(parsed);
  cl_ctx_clear_plan(ctx);
  return CUDALOAD_OK;
}

int cudaload_require(cudaload_ctx *ctx, const char *spec) {
  cl_clear_error();
  if (!ctx || !spec)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT, "cudaload_require: NULL %s",
                   ctx ? "spec" : "ctx");
  return cl_require_from(ctx, spec, CUDALOAD_FROM_REQUEST);
}

size_t cudaload_requirement_count(const cudaload_ctx *ctx) {
  return ctx ? cl_plan_state_of(ctx)->requirement_count : 0;
}

const char *cudaload_requirement_text(const cudaload_ctx *ctx, size_t i) {
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  return ctx && i < ps->requirement_count ? ps->requirements[i].text : NULL;
}

int cl_spec_parse_quiet(const char *spec, cl_requirement **parsed,
                        size_t *count) {
  cl_asking a;
  cl_asking_begin(&a);
  int status = cl_spec_parse(spec, parsed, count);
  cl_asking_end(&a);
  return status;
}
