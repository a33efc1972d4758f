/* SPDX-License-Identifier: MIT */
/*
 * pep440.c - PEP 440 versions and specifier sets (pep440.h).
 *
 * A pin is read as pip reads it: every clause of the set must hold, in
 * whatever order they are written (TensorFlow writes the upper bound
 * first: "nvidia-cudnn-cu12<10.0,>=9.3.0.75"). What a program needs of a
 * pinned wheel is its library's ABI major (cl_pep440_admits_major) and
 * the least version of it (cl_pep440_least_in_major): both follow from the
 * bounds the clauses set, which is why the set is kept as clauses rather
 * than reduced to one comparison.
 */
#include "scan/pep440.h"

#include "common/strutil.h"

#include <string.h>

/* --- versions -------------------------------------------------------------
 */

typedef struct cursor {
  const char *p, *end;
} cursor;

static int at_end(const cursor *c) {
  return c->p >= c->end;
}

/* Whether the text at c starts with word (ASCII, any case); consumes it. */
static int take_word(cursor *c, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(c->end - c->p) < n || !cl_same_nocase(c->p, word, n))
    return 0;
  c->p += n;
  return 1;
}

/* A number of at most CL_PEP440_NUMBER_DIGITS digits: 1, 0 when there is
 * no digit, -1 when it is too long. */
static int take_number(cursor *c, long *out) {
  const char *start = c->p;
  long value = 0;
  while (!at_end(c) && cl_ascii_is_digit(*c->p)) {
    if (c->p - start >= CL_PEP440_NUMBER_DIGITS)
      return -1;
    value = value * 10 + (*c->p - '0');
    ++c->p;
  }
  *out = value;
  return c->p > start ? 1 : 0;
}

static int is_separator(char ch) {
  return ch == '.' || ch == '-' || ch == '_';
}

/* An optional separator, then one of labels; *which is its index. The
 * cursor moves only when a label follows. */
static int take_label(cursor *c, const char *const *labels, size_t count,
                      size_t *which) {
  cursor try = *c;
  if (!at_end(&try) && is_separator(*try.p))
    ++try.p;
  for (size_t i = 0; i < count; ++i)
    if (take_word(&try, labels[i])) {
      *which = i;
      *c = try;
      return 1;
    }
  return 0;
}

/* The number after a label, with an optional separator before it; 0 when
 * none is written (PEP 440: "1.0a" is "1.0a0"). -1 when too long. */
static int take_label_number(cursor *c, long *out) {
  cursor try = *c;
  if (!at_end(&try) && is_separator(*try.p))
    ++try.p;
  int got = take_number(&try, out);
  if (got < 0)
    return -1;
  if (got)
    *c = try;
  else
    *out = 0;
  return 0;
}

static int take_local(cursor *c, char *out, size_t size) {
  size_t n = 0;
  int need_part = 1;
  while (!at_end(c)) {
    char ch = *c->p;
    if (cl_ascii_is_alnum(ch)) {
      need_part = 0;
      if (n + 1 >= size)
        return 0;
      out[n++] = cl_ascii_lower(ch);
    } else if (is_separator(ch) && !need_part) {
      if (n + 1 >= size)
        return 0;
      out[n++] = '.';
      need_part = 1;
    } else {
      break;
    }
    ++c->p;
  }
  out[n] = '\0';
  return n > 0 && !need_part;
}

static void trim(const char **p, const char **end) {
  while (*p < *end && cl_ascii_is_space(**p))
    ++*p;
  while (*end > *p && cl_ascii_is_space((*end)[-1]))
    --*end;
}

/* The release (and epoch) of a version at c; the rest is the caller's. */
static int take_release(cursor *c, cl_pep440_version *v) {
  if (!at_end(c) && (*c->p == 'v' || *c->p == 'V'))
    ++c->p;
  cursor start = *c;
  long n;
  if (take_number(c, &n) != 1)
    return 0;
  if (!at_end(c) && *c->p == '!') {
    v->epoch = n;
    ++c->p;
    if (take_number(c, &n) != 1)
      return 0;
  } else {
    *c = start;
    take_number(c, &n);
  }
  v->release[v->release_count++] = n;
  while (c->end - c->p >= 2 && c->p[0] == '.' && cl_ascii_is_digit(c->p[1])) {
    ++c->p;
    if (v->release_count == CL_PEP440_RELEASE_MAX || take_number(c, &n) != 1)
      return 0;
    v->release[v->release_count++] = n;
  }
  return 1;
}

static const char *const pre_labels[] = {"alpha", "beta", "preview", "pre",
                                         "rc",    "c",    "a",       "b"};
static const int pre_kinds[] = {1, 2, 3, 3, 3, 3, 1, 2};
static const char *const post_labels[] = {"post", "rev", "r"};
static const char *const dev_labels[] = {"dev"};

/* What follows the release: pre, post and dev parts, and a local label. */
static int take_suffixes(cursor *c, cl_pep440_version *v) {
  size_t which;
  if (take_label(c, pre_labels, sizeof pre_labels / sizeof *pre_labels,
                 &which)) {
    v->pre_kind = pre_kinds[which];
    if (take_label_number(c, &v->pre) < 0)
      return 0;
  }
  if (c->end - c->p >= 2 && c->p[0] == '-' && cl_ascii_is_digit(c->p[1])) {
    ++c->p; /* "1.0-1" is "1.0.post1" */
    v->has_post = 1;
    if (take_number(c, &v->post) != 1)
      return 0;
  } else if (take_label(c, post_labels, 3, &which)) {
    v->has_post = 1;
    if (take_label_number(c, &v->post) < 0)
      return 0;
  }
  if (take_label(c, dev_labels, 1, &which)) {
    v->has_dev = 1;
    if (take_label_number(c, &v->dev) < 0)
      return 0;
  }
  if (!at_end(c) && *c->p == '+') {
    ++c->p;
    if (!take_local(c, v->local, sizeof v->local))
      return 0;
  }
  return 1;
}

int cl_pep440_parse(const char *text, size_t len, cl_pep440_version *out) {
  memset(out, 0, sizeof *out);
  const char *p = text, *end = text + len;
  trim(&p, &end);
  cursor c = {p, end};
  if (!take_release(&c, out) || !take_suffixes(&c, out) || !at_end(&c)) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  return 1;
}

/* Above any number a version holds (CL_PEP440_NUMBER_DIGITS digits): a
 * release that is no dev release sorts after its dev releases. */
#define NO_DEV 1000000000L

static int compare_long(long a, long b) {
  return a < b ? -1 : a > b;
}

/* Local labels: part by part, a number above a word, numbers by value,
 * words by their text; the shorter of two equal prefixes first. */
static int compare_local(const char *a, const char *b) {
  while (*a && *b) {
    size_t na = strcspn(a, "."), nb = strcspn(b, ".");
    int da = strspn(a, "0123456789") >= na, db = strspn(b, "0123456789") >= nb;
    int c;
    if (da && db) {
      while (na > 1 && *a == '0')
        ++a, --na;
      while (nb > 1 && *b == '0')
        ++b, --nb;
      c = na != nb ? compare_long((long)na, (long)nb) : strncmp(a, b, na);
    } else if (da != db) {
      c = da ? 1 : -1;
    } else {
      size_t n = na < nb ? na : nb;
      c = strncmp(a, b, n);
      if (!c)
        c = compare_long((long)na, (long)nb);
    }
    if (c)
      return c < 0 ? -1 : 1;
    a += na + (a[na] == '.');
    b += nb + (b[nb] == '.');
  }
  return *a ? 1 : *b ? -1 : 0;
}

/* The pre-release key: a dev release of the final release sorts before
 * its pre-releases, the final release after them. */
static void pre_key(const cl_pep440_version *v, int *kind, long *n) {
  if (!v->pre_kind && !v->has_post && v->has_dev)
    *kind = -1, *n = 0;
  else if (!v->pre_kind)
    *kind = 4, *n = 0;
  else
    *kind = v->pre_kind, *n = v->pre;
}

int cl_pep440_compare(const cl_pep440_version *a, const cl_pep440_version *b) {
  int c = compare_long(a->epoch, b->epoch);
  int n =
      a->release_count > b->release_count ? a->release_count : b->release_count;
  for (int i = 0; !c && i < n; ++i)
    c = compare_long(i < a->release_count ? a->release[i] : 0,
                     i < b->release_count ? b->release[i] : 0);
  if (c)
    return c;
  int ka, kb;
  long na, nb;
  pre_key(a, &ka, &na);
  pre_key(b, &kb, &nb);
  if ((c = compare_long(ka, kb)) || (c = compare_long(na, nb)))
    return c;
  /* No post release sorts first; no dev release last. */
  if ((c = compare_long(a->has_post ? a->post : -1,
                        b->has_post ? b->post : -1)))
    return c;
  if ((c = compare_long(a->has_dev ? a->dev : NO_DEV,
                        b->has_dev ? b->dev : NO_DEV)))
    return c;
  if (!a->local[0] || !b->local[0])
    return compare_long(a->local[0] != 0, b->local[0] != 0);
  return compare_local(a->local, b->local);
}

/* --- specifier sets -------------------------------------------------------
 */

static int is_prerelease(const cl_pep440_version *v) {
  return v->pre_kind || v->has_dev;
}

/* The version without its local label. */
static cl_pep440_version public_of(const cl_pep440_version *v) {
  cl_pep440_version p = *v;
  p.local[0] = '\0';
  return p;
}

/* The release alone (epoch kept): "1.0" of "1.0rc1.post2+x". */
static cl_pep440_version base_of(const cl_pep440_version *v) {
  cl_pep440_version b;
  memset(&b, 0, sizeof b);
  b.epoch = v->epoch;
  b.release_count = v->release_count;
  memcpy(b.release, v->release, sizeof b.release);
  return b;
}

/* Whether v's release starts with the first `parts` parts of c's (v's
 * padded with zeros): "==9.*" and the prefix of "~=". */
static int prefix_match(const cl_pep440_version *v, const cl_pep440_version *c,
                        int parts) {
  if (v->epoch != c->epoch)
    return 0;
  for (int i = 0; i < parts; ++i)
    if ((i < v->release_count ? v->release[i] : 0) != c->release[i])
      return 0;
  return 1;
}

static int clause_holds(const cl_pep440_clause *k, const cl_pep440_version *v) {
  cl_pep440_version pub = public_of(v);
  int c = cl_pep440_compare(&pub, &k->version);
  switch (k->op) {
  case CL_PEP440_EQ:
  case CL_PEP440_NE: {
    int same;
    if (k->wildcard)
      same = prefix_match(v, &k->version, k->version.release_count);
    else if (k->version.local[0])
      same = cl_pep440_compare(v, &k->version) == 0;
    else
      same = c == 0;
    return k->op == CL_PEP440_EQ ? same : !same;
  }
  case CL_PEP440_LE:
    return c <= 0;
  case CL_PEP440_GE:
    return c >= 0;
  case CL_PEP440_LT: {
    /* "<10" admits no pre-release of 10 itself. */
    cl_pep440_version bv = base_of(v), bk = base_of(&k->version);
    return c < 0 && !(!is_prerelease(&k->version) && is_prerelease(v) &&
                      cl_pep440_compare(&bv, &bk) == 0);
  }
  case CL_PEP440_GT: {
    /* ">2.19" admits no post-release of 2.19 itself. */
    cl_pep440_version bv = base_of(v), bk = base_of(&k->version);
    return c > 0 && !(!k->version.has_post && v->has_post &&
                      cl_pep440_compare(&bv, &bk) == 0);
  }
  case CL_PEP440_COMPATIBLE:
    return c >= 0 && prefix_match(v, &k->version, k->version.release_count - 1);
  case CL_PEP440_ARBITRARY:
    return k->arbitrary_is_version && cl_pep440_compare(v, &k->version) == 0;
  }
  return 0;
}

int cl_pep440_contains(const cl_pep440_specifier *s,
                       const cl_pep440_version *v) {
  for (int i = 0; i < s->count; ++i)
    if (!clause_holds(&s->clauses[i], v))
      return 0;
  return 1;
}

/* One clause, from p to end (trimmed). */
static int parse_clause(const char *p, const char *end, cl_pep440_clause *k) {
  static const struct {
    const char *text;
    cl_pep440_op op;
  } ops[] = {{"===", CL_PEP440_ARBITRARY}, {"~=", CL_PEP440_COMPATIBLE},
             {"==", CL_PEP440_EQ},         {"!=", CL_PEP440_NE},
             {"<=", CL_PEP440_LE},         {">=", CL_PEP440_GE},
             {"<", CL_PEP440_LT},          {">", CL_PEP440_GT}};
  memset(k, 0, sizeof *k);
  size_t i = 0, n = sizeof ops / sizeof *ops;
  while (i < n && ((size_t)(end - p) < strlen(ops[i].text) ||
                   strncmp(p, ops[i].text, strlen(ops[i].text)) != 0))
    ++i;
  if (i == n)
    return 0;
  k->op = ops[i].op;
  p += strlen(ops[i].text);
  trim(&p, &end);
  if (p == end)
    return 0;
  if (k->op == CL_PEP440_ARBITRARY) {
    for (const char *q = p; q < end; ++q)
      if (cl_ascii_is_space(*q))
        return 0;
    k->arbitrary_is_version =
        cl_pep440_parse(p, (size_t)(end - p), &k->version);
    return 1;
  }
  int wild = (k->op == CL_PEP440_EQ || k->op == CL_PEP440_NE) && end - p >= 2 &&
             end[-2] == '.' && end[-1] == '*';
  if (wild) {
    cursor c = {p, end - 2};
    k->wildcard = 1;
    return take_release(&c, &k->version) && at_end(&c);
  }
  if (!cl_pep440_parse(p, (size_t)(end - p), &k->version))
    return 0;
  /* A local label only beside == and !=; ~= needs two release parts. */
  if (k->version.local[0] && k->op != CL_PEP440_EQ && k->op != CL_PEP440_NE)
    return 0;
  return k->op != CL_PEP440_COMPATIBLE || k->version.release_count >= 2;
}

int cl_pep440_specifier_parse(const char *text, size_t len,
                              cl_pep440_specifier *out) {
  memset(out, 0, sizeof *out);
  const char *p = text, *end = text + len;
  trim(&p, &end);
  if (p == end)
    return 1; /* no clause: any version */
  while (p <= end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    const char *a = p, *b = stop;
    trim(&a, &b);
    if (out->count == CL_PEP440_CLAUSES_MAX ||
        !parse_clause(a, b, &out->clauses[out->count])) {
      memset(out, 0, sizeof *out);
      return 0;
    }
    out->count++;
    if (!comma)
      break;
    p = comma + 1;
  }
  return 1;
}

/* --- bounds ---------------------------------------------------------------
 */

typedef struct bound {
  int set, inclusive;
  cl_pep440_version v;
} bound;

/* The least version of a release prefix: its first dev release
 * ("9.dev0"), below every pre-release of it. */
static cl_pep440_version floor_of(const cl_pep440_version *v, int parts) {
  cl_pep440_version f;
  memset(&f, 0, sizeof f);
  f.epoch = v->epoch;
  f.release_count = parts;
  memcpy(f.release, v->release, sizeof(long) * (size_t)parts);
  f.has_dev = 1;
  return f;
}

/* The floor of the release after a prefix ("10.dev0" after "9.*"). */
static cl_pep440_version ceiling_of(const cl_pep440_version *v, int parts) {
  cl_pep440_version f = floor_of(v, parts);
  f.release[parts - 1]++;
  return f;
}

static void raise_low(bound *low, const cl_pep440_version *v, int inclusive) {
  int c = low->set ? cl_pep440_compare(v, &low->v) : 1;
  if (c > 0 || (c == 0 && !inclusive)) {
    low->set = 1;
    low->v = *v;
    low->inclusive = inclusive;
  }
}

static void lower_high(bound *high, const cl_pep440_version *v, int inclusive) {
  int c = high->set ? cl_pep440_compare(v, &high->v) : -1;
  if (c < 0 || (c == 0 && !inclusive)) {
    high->set = 1;
    high->v = *v;
    high->inclusive = inclusive;
  }
}

/* The range every clause but != admits: [low, high]. 0 when a clause
 * cannot be bounded (=== of a text that is no version: nothing holds). */
static int bounds_of(const cl_pep440_specifier *s, bound *low, bound *high) {
  memset(low, 0, sizeof *low);
  memset(high, 0, sizeof *high);
  for (int i = 0; i < s->count; ++i) {
    const cl_pep440_clause *k = &s->clauses[i];
    cl_pep440_version v = public_of(&k->version);
    int parts = v.release_count;
    switch (k->op) {
    case CL_PEP440_EQ:
      if (k->wildcard) {
        cl_pep440_version f = floor_of(&v, parts), t = ceiling_of(&v, parts);
        raise_low(low, &f, 1);
        lower_high(high, &t, 0);
      } else {
        raise_low(low, &v, 1);
        lower_high(high, &v, 1);
      }
      break;
    case CL_PEP440_ARBITRARY:
      if (!k->arbitrary_is_version)
        return 0;
      raise_low(low, &v, 1);
      lower_high(high, &v, 1);
      break;
    case CL_PEP440_COMPATIBLE: {
      cl_pep440_version t = ceiling_of(&v, parts - 1);
      raise_low(low, &v, 1);
      lower_high(high, &t, 0);
      break;
    }
    case CL_PEP440_GE:
      raise_low(low, &v, 1);
      break;
    case CL_PEP440_GT:
      raise_low(low, &v, 0);
      break;
    case CL_PEP440_LE:
      lower_high(high, &v, 1);
      break;
    case CL_PEP440_LT:
      if (is_prerelease(&v)) {
        lower_high(high, &v, 0);
      } else { /* below every pre-release of it too */
        cl_pep440_version f = floor_of(&v, parts);
        lower_high(high, &f, 0);
      }
      break;
    case CL_PEP440_NE:
      break;
    }
  }
  return 1;
}

/* The part of [low, high] within `major` (its floor up to the next
 * major's floor), in *lo and *hi; 0 when it is empty or an != clause
 * takes all of it. */
static int range_in_major(const cl_pep440_specifier *s, long major, bound *lo,
                          bound *hi) {
  bound low, high;
  if (!bounds_of(s, &low, &high))
    return 0;
  cl_pep440_version m;
  memset(&m, 0, sizeof m);
  m.release_count = 1;
  m.release[0] = major;
  /* Only epoch 0: NVIDIA's wheels have no other. */
  cl_pep440_version f = floor_of(&m, 1), t = ceiling_of(&m, 1);
  *lo = low;
  *hi = high;
  raise_low(lo, &f, 1);
  lower_high(hi, &t, 0);
  int c = cl_pep440_compare(&lo->v, &hi->v);
  if (c > 0 || (c == 0 && !(lo->inclusive && hi->inclusive)))
    return 0;
  for (int i = 0; i < s->count; ++i) {
    const cl_pep440_clause *k = &s->clauses[i];
    if (k->op != CL_PEP440_NE)
      continue;
    cl_pep440_version v = public_of(&k->version);
    if (k->wildcard) { /* "!=9.*" takes [9.dev0, 10.dev0) */
      cl_pep440_version a = floor_of(&v, v.release_count),
                        b = ceiling_of(&v, v.release_count);
      if (cl_pep440_compare(&a, &lo->v) <= 0 &&
          cl_pep440_compare(&hi->v, &b) <= 0 &&
          !(cl_pep440_compare(&hi->v, &b) == 0 && hi->inclusive))
        return 0;
    } else if (c == 0 && cl_pep440_compare(&v, &lo->v) == 0) {
      return 0; /* the one version left is the one excluded */
    }
  }
  return 1;
}

int cl_pep440_admits_major(const cl_pep440_specifier *s, long major) {
  bound lo, hi;
  return range_in_major(s, major, &lo, &hi);
}

int cl_pep440_least_in_major(const cl_pep440_specifier *s, long major,
                             cl_pep440_version *least) {
  bound lo, hi, low, high;
  memset(least, 0, sizeof *least);
  if (!range_in_major(s, major, &lo, &hi) || !bounds_of(s, &low, &high) ||
      !low.set || low.v.release_count < 1 || low.v.release[0] != major)
    return 0;
  *least = low.v;
  return 1;
}
