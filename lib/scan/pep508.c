/* SPDX-License-Identifier: MIT */
/*
 * pep508.c - PEP 508 environment markers (pep508.h).
 *
 * A Requires-Dist pin holds for the platform the program runs on, which
 * the marker says in a small language: comparisons of variables and
 * strings, joined by "and" and "or", grouped by parentheses. Matching the
 * text for substrings (what cudaload did before) drops a true
 * 'sys_platform == "win32" or platform_system == "Linux"' and keeps a
 * false 'platform_system != "Linux"'. This reads it as packaging does:
 * each comparison is a version comparison when both sides are versions
 * (python_version >= "3.9"), else one of strings; "extra" compares PEP 685
 * normalised names.
 */
#include "scan/pep508.h"

#include "common/strutil.h"
#include "scan/pep440.h"

#include <stdio.h>
#include <string.h>

/* Parentheses deeper than this are no marker anyone writes: refused, so
 * that a hostile METADATA cannot exhaust the stack. */
#define MARKER_DEPTH_MAX 32
/* The extras one evaluation tries. */
#define MARKER_EXTRAS_MAX 32

void cl_marker_env_for(cl_marker_env *env, cl_naming naming,
                       const char *machine, const char *python_version) {
  memset(env, 0, sizeof *env);
  int windows = naming == CL_NAMING_WINDOWS;
  env->os_name = windows ? "nt" : "posix";
  env->sys_platform = windows ? "win32" : "linux";
  env->platform_system = windows ? "Windows" : "Linux";
  if (machine) {
    int x86 = strcmp(machine, "x86_64") == 0;
    int arm = strcmp(machine, "aarch64") == 0;
    /* platform.machine() says what the OS calls it: Windows' names. */
    if (windows)
      env->platform_machine = x86 ? "AMD64" : arm ? "ARM64" : NULL;
    else
      env->platform_machine = x86 || arm ? machine : NULL;
  }
  cl_pep440_version v;
  if (python_version &&
      cl_pep440_parse(python_version, strlen(python_version), &v) &&
      v.release_count >= 2) {
    snprintf(env->python_version, sizeof env->python_version, "%ld.%ld",
             v.release[0], v.release[1]);
    if (v.release_count >= 3)
      snprintf(env->python_full_version, sizeof env->python_full_version,
               "%ld.%ld.%ld", v.release[0], v.release[1], v.release[2]);
  }
}

/* --- tokens ---------------------------------------------------------------
 */

typedef enum token_kind {
  TOK_END,
  TOK_OPEN,
  TOK_CLOSE,
  TOK_STRING,
  TOK_NAME,
  TOK_OP,
  TOK_BAD
} token_kind;

typedef struct token {
  token_kind kind;
  const char *text; /* a string's contents, a name or an operator */
  size_t len;
} token;

typedef struct parser {
  const char *p, *end;
  token look;
  const cl_marker_env *env;
  const char *extra; /* normalised; "" for none */
  int bad;
  int depth;
} parser;

static int is_name_char(char c) {
  return cl_ascii_is_alnum(c) || c == '_' || c == '.';
}

static void next_token(parser *ps) {
  while (ps->p < ps->end && cl_ascii_is_space(*ps->p))
    ++ps->p;
  token t = {TOK_END, ps->p, 0};
  if (ps->p >= ps->end) {
    ps->look = t;
    return;
  }
  char c = *ps->p;
  if (c == '(' || c == ')') {
    t.kind = c == '(' ? TOK_OPEN : TOK_CLOSE;
    t.len = 1;
  } else if (c == '"' || c == '\'') {
    const char *close = memchr(ps->p + 1, c, (size_t)(ps->end - ps->p - 1));
    if (!close) {
      t.kind = TOK_BAD;
    } else {
      t.kind = TOK_STRING;
      t.text = ps->p + 1;
      t.len = (size_t)(close - t.text);
      ps->p = close + 1;
      ps->look = t;
      return;
    }
  } else if (cl_ascii_is_alnum(c) || c == '_') {
    t.kind = TOK_NAME;
    while (ps->p + t.len < ps->end && is_name_char(ps->p[t.len]))
      ++t.len;
  } else {
    static const char *const ops[] = {
        "===", "~=", "==", "!=", "<=", ">=", "<", ">"};
    t.kind = TOK_BAD;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i) {
      size_t n = strlen(ops[i]);
      if ((size_t)(ps->end - ps->p) >= n && !strncmp(ps->p, ops[i], n)) {
        t.kind = TOK_OP;
        t.len = n;
        break;
      }
    }
  }
  if (t.kind == TOK_BAD) {
    ps->bad = 1;
    t.kind = TOK_END;
  }
  ps->p += t.len;
  ps->look = t;
}

static int is_word(const token *t, const char *word) {
  return t->kind == TOK_NAME && t->len == strlen(word) &&
         !strncmp(t->text, word, t->len);
}

/* --- values ---------------------------------------------------------------
 */

typedef struct value {
  const char *text;
  size_t len;
  int known;
  int is_extra;
} value;

/* The variable a name reads (the old dotted spellings too); 0 when the
 * name is no marker variable. */
static int variable(const parser *ps, const token *t, value *out) {
  static const struct {
    const char *name;
    size_t offset;
  } vars[] = {
      {"os_name", offsetof(cl_marker_env, os_name)},
      {"os.name", offsetof(cl_marker_env, os_name)},
      {"sys_platform", offsetof(cl_marker_env, sys_platform)},
      {"sys.platform", offsetof(cl_marker_env, sys_platform)},
      {"platform_system", offsetof(cl_marker_env, platform_system)},
      {"platform_machine", offsetof(cl_marker_env, platform_machine)},
      {"platform.machine", offsetof(cl_marker_env, platform_machine)},
      {"platform_release", offsetof(cl_marker_env, platform_release)},
      {"platform_version", offsetof(cl_marker_env, platform_version)},
      {"platform.version", offsetof(cl_marker_env, platform_version)},
      {"implementation_name", offsetof(cl_marker_env, implementation_name)},
      {"platform_python_implementation",
       offsetof(cl_marker_env, platform_python_implementation)},
      {"platform.python_implementation",
       offsetof(cl_marker_env, platform_python_implementation)},
      {"python_implementation",
       offsetof(cl_marker_env, platform_python_implementation)},
  };
  memset(out, 0, sizeof *out);
  if (is_word(t, "extra")) {
    out->text = ps->extra;
    out->len = strlen(ps->extra);
    out->known = out->is_extra = 1;
    return 1;
  }
  const char *python = is_word(t, "python_version") ? ps->env->python_version
                       : is_word(t, "python_full_version") ||
                               is_word(t, "implementation_version")
                           ? ps->env->python_full_version
                           : NULL;
  if (python) {
    out->text = python;
    out->len = strlen(python);
    out->known = out->len > 0;
    return 1;
  }
  for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
    if (is_word(t, vars[i].name)) {
      const char *v =
          *(const char *const *)((const char *)ps->env + vars[i].offset);
      out->text = v ? v : "";
      out->len = v ? strlen(v) : 0;
      out->known = v != NULL;
      return 1;
    }
  return 0;
}

/* PEP 685: an extra's name in lower case, each run of '-', '_' and '.'
 * one '-'. 0 when it does not fit. */
static int normalise_name(const char *s, size_t n, char *out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    int sep = s[i] == '-' || s[i] == '_' || s[i] == '.';
    if (sep && k && out[k - 1] == '-')
      continue;
    if (k + 1 >= size)
      return 0;
    out[k++] = sep ? '-' : cl_ascii_lower(s[i]);
  }
  out[k] = '\0';
  return 1;
}

static int compare_text(const char *a, size_t na, const char *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = memcmp(a, b, n);
  return c ? c : na < nb ? -1 : na > nb;
}

/* lhs OP rhs: as versions when rhs with OP is a specifier and lhs a
 * version, else as strings; "in" and "not in" test for a substring. */
static cl_marker_value compare(const value *lhs, const char *op, size_t op_len,
                               const value *rhs) {
  if (!lhs->known || !rhs->known)
    return CL_MARKER_UNKNOWN;
  int in = op_len == 2 && !strncmp(op, "in", 2);
  int not_in = op_len == 6 && !strncmp(op, "not in", 6);
  if (in || not_in) {
    int found = 0;
    for (size_t i = 0; !found && i + lhs->len <= rhs->len; ++i)
      found = !memcmp(rhs->text + i, lhs->text, lhs->len);
    return (cl_marker_value)(in ? found : !found);
  }
  char a[128], b[128];
  const char *l = lhs->text, *r = rhs->text;
  size_t ln = lhs->len, rn = rhs->len;
  if (lhs->is_extra || rhs->is_extra) {
    if (!normalise_name(l, ln, a, sizeof a) ||
        !normalise_name(r, rn, b, sizeof b))
      return CL_MARKER_UNKNOWN;
    l = a, ln = strlen(a), r = b, rn = strlen(b);
  } else {
    char spec[160];
    cl_pep440_specifier s;
    cl_pep440_version v;
    if (op_len + rn < sizeof spec) {
      memcpy(spec, op, op_len);
      memcpy(spec + op_len, r, rn);
      if (cl_pep440_specifier_parse(spec, op_len + rn, &s) && s.count == 1 &&
          cl_pep440_parse(l, ln, &v))
        return (cl_marker_value)cl_pep440_contains(&s, &v);
    }
  }
  int c = compare_text(l, ln, r, rn);
  if (op_len == 2 && !strncmp(op, "==", 2))
    return (cl_marker_value)(c == 0);
  if (op_len == 3 && !strncmp(op, "===", 3))
    return (cl_marker_value)(c == 0);
  if (op_len == 2 && !strncmp(op, "!=", 2))
    return (cl_marker_value)(c != 0);
  if (op_len == 2 && !strncmp(op, "<=", 2))
    return (cl_marker_value)(c <= 0);
  if (op_len == 2 && !strncmp(op, ">=", 2))
    return (cl_marker_value)(c >= 0);
  if (op_len == 1 && *op == '<')
    return (cl_marker_value)(c < 0);
  if (op_len == 1 && *op == '>')
    return (cl_marker_value)(c > 0);
  return CL_MARKER_UNKNOWN; /* ~= of strings: packaging refuses it too */
}

/* --- the grammar ----------------------------------------------------------
 */

static cl_marker_value or_expr(parser *ps);

static cl_marker_value and3(cl_marker_value a, cl_marker_value b) {
  if (a == CL_MARKER_FALSE || b == CL_MARKER_FALSE)
    return CL_MARKER_FALSE;
  return a == CL_MARKER_UNKNOWN || b == CL_MARKER_UNKNOWN ? CL_MARKER_UNKNOWN
                                                          : CL_MARKER_TRUE;
}

static cl_marker_value or3(cl_marker_value a, cl_marker_value b) {
  if (a == CL_MARKER_TRUE || b == CL_MARKER_TRUE)
    return CL_MARKER_TRUE;
  return a == CL_MARKER_UNKNOWN || b == CL_MARKER_UNKNOWN ? CL_MARKER_UNKNOWN
                                                          : CL_MARKER_FALSE;
}

/* A string or a variable. */
static int operand(parser *ps, value *out) {
  token t = ps->look;
  if (t.kind == TOK_STRING) {
    memset(out, 0, sizeof *out);
    out->text = t.text;
    out->len = t.len;
    out->known = 1;
  } else if (t.kind != TOK_NAME || !variable(ps, &t, out)) {
    ps->bad = 1;
    return 0;
  }
  next_token(ps);
  return 1;
}

static cl_marker_value atom(parser *ps) {
  if (ps->look.kind == TOK_OPEN) {
    if (++ps->depth > MARKER_DEPTH_MAX) {
      ps->bad = 1;
      return CL_MARKER_UNKNOWN;
    }
    next_token(ps);
    cl_marker_value v = or_expr(ps);
    if (ps->look.kind != TOK_CLOSE)
      ps->bad = 1;
    else
      next_token(ps);
    --ps->depth;
    return v;
  }
  value lhs, rhs;
  if (!operand(ps, &lhs))
    return CL_MARKER_UNKNOWN;
  const char *op;
  size_t op_len;
  if (ps->look.kind == TOK_OP) {
    op = ps->look.text;
    op_len = ps->look.len;
  } else if (is_word(&ps->look, "in")) {
    op = "in";
    op_len = 2;
  } else if (is_word(&ps->look, "not")) {
    next_token(ps);
    if (!is_word(&ps->look, "in")) {
      ps->bad = 1;
      return CL_MARKER_UNKNOWN;
    }
    op = "not in";
    op_len = 6;
  } else {
    ps->bad = 1;
    return CL_MARKER_UNKNOWN;
  }
  next_token(ps);
  if (!operand(ps, &rhs))
    return CL_MARKER_UNKNOWN;
  return compare(&lhs, op, op_len, &rhs);
}

static cl_marker_value and_expr(parser *ps) {
  cl_marker_value v = atom(ps);
  while (!ps->bad && is_word(&ps->look, "and")) {
    next_token(ps);
    v = and3(v, atom(ps));
  }
  return v;
}

static cl_marker_value or_expr(parser *ps) {
  cl_marker_value v = and_expr(ps);
  while (!ps->bad && is_word(&ps->look, "or")) {
    next_token(ps);
    v = or3(v, and_expr(ps));
  }
  return v;
}

static cl_marker_value evaluate_once(const char *text, size_t len,
                                     const cl_marker_env *env,
                                     const char *extra) {
  parser ps = {text, text + len, {TOK_END, text, 0}, env, extra, 0, 0};
  next_token(&ps);
  if (ps.look.kind == TOK_END && !ps.bad)
    return CL_MARKER_TRUE; /* no marker */
  cl_marker_value v = or_expr(&ps);
  if (ps.bad || ps.look.kind != TOK_END)
    return CL_MARKER_MALFORMED;
  return v;
}

/* The values "extra" takes: "" and each extra asked, or, for every extra,
 * each string the marker holds (one of them is the extra it names). */
static size_t extra_candidates(const char *text, size_t len, const char *extras,
                               char out[][64], size_t max) {
  size_t n = 0;
  out[n++][0] = '\0';
  if (extras) {
    for (const char *e = extras; *e && n < max;) {
      size_t k = strcspn(e, ",");
      const char *a = e, *b = e + k;
      while (a < b && cl_ascii_is_space(*a))
        ++a;
      while (b > a && cl_ascii_is_space(b[-1]))
        --b;
      if (b > a && normalise_name(a, (size_t)(b - a), out[n], 64))
        ++n;
      e += k + (e[k] == ',');
    }
    return n;
  }
  for (const char *p = text, *end = text + len; p < end && n < max; ++p) {
    if (*p != '"' && *p != '\'')
      continue;
    const char *close = memchr(p + 1, *p, (size_t)(end - p - 1));
    if (!close)
      break;
    if (normalise_name(p + 1, (size_t)(close - p - 1), out[n], 64))
      ++n;
    p = close;
  }
  return n;
}

cl_marker_value cl_marker_evaluate(const char *text, size_t len,
                                   const cl_marker_env *env,
                                   const char *extras) {
  char candidates[MARKER_EXTRAS_MAX][64];
  size_t n = extra_candidates(text, len, extras, candidates, MARKER_EXTRAS_MAX);
  cl_marker_value result = CL_MARKER_FALSE;
  for (size_t i = 0; i < n && result != CL_MARKER_TRUE; ++i) {
    cl_marker_value v = evaluate_once(text, len, env, candidates[i]);
    if (v == CL_MARKER_MALFORMED)
      return v;
    result = or3(result, v);
  }
  return result;
}
