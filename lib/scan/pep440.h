/* SPDX-License-Identifier: MIT */
/*
 * pep440.h - Python package versions and version specifiers as PEP 440
 * defines them (pep440.c): what a Requires-Dist pin of NVIDIA's wheels
 * says ("nvidia-cusolver-cu12<12.0,>=11.6.1.9", "~=9.0", "!=2.19.*",
 * "===9.1.0.70", in any order), read without running Python. Pure: no
 * file, no allocation (fuzz/fuzz_distinfo.c reaches it through the
 * Requires-Dist reader).
 */
#ifndef CUDALOAD_PEP440_H
#define CUDALOAD_PEP440_H

#include <stddef.h>

/* Release parts kept ("12.4.5.8" has 4); a longer release is refused. */
#define CL_PEP440_RELEASE_MAX 10
/* A number of more digits is refused rather than clamped: a clamped one
 * would compare wrong. */
#define CL_PEP440_NUMBER_DIGITS 9

typedef struct cl_pep440_version {
  long epoch;
  long release[CL_PEP440_RELEASE_MAX];
  int release_count;
  int pre_kind; /* 0 none, 1 a (alpha), 2 b (beta), 3 rc (c, pre, preview) */
  long pre;
  int has_post;
  long post;
  int has_dev;
  long dev;
  /* The local label, normalised ("cu124", "ubuntu.1"); "" when none. */
  char local[48];
} cl_pep440_version;

/* Parse a version ("9.1.0.70", "v2.5.1+cu124", "1!2.0rc1.post3.dev4"),
 * spelled any way PEP 440 normalises (any case, '-', '_' or '.'
 * separators, surrounding blanks). 1 when text[0..len) is one, else 0. */
int cl_pep440_parse(const char *text, size_t len, cl_pep440_version *out);

/* PEP 440's order: <0, 0, >0 ("1.0.dev0" < "1.0a1" < "1.0" < "1.0.post1";
 * "1.0" == "1.0.0"; a local label sorts after none). */
int cl_pep440_compare(const cl_pep440_version *a, const cl_pep440_version *b);

typedef enum cl_pep440_op {
  CL_PEP440_EQ = 0,     /* == */
  CL_PEP440_NE,         /* != */
  CL_PEP440_LE,         /* <= */
  CL_PEP440_GE,         /* >= */
  CL_PEP440_LT,         /* <  */
  CL_PEP440_GT,         /* >  */
  CL_PEP440_COMPATIBLE, /* ~= */
  CL_PEP440_ARBITRARY   /* === */
} cl_pep440_op;

typedef struct cl_pep440_clause {
  cl_pep440_op op;
  cl_pep440_version version;
  int wildcard; /* "==9.*", "!=2.19.*" */
  /* ===: 1 when its text is also a version (then in version). */
  int arbitrary_is_version;
} cl_pep440_clause;

#define CL_PEP440_CLAUSES_MAX 16

/* A specifier set: its clauses all hold. No clause: any version. */
typedef struct cl_pep440_specifier {
  cl_pep440_clause clauses[CL_PEP440_CLAUSES_MAX];
  int count;
} cl_pep440_specifier;

/* Parse a specifier set (">=11.6.1.9,<12.0", "==9.1.0.70", "~=9.0",
 * "" for any), clauses in any order, blanks anywhere between. 1 when it
 * is one, else 0 (the caller says it was not understood). */
int cl_pep440_specifier_parse(const char *text, size_t len,
                              cl_pep440_specifier *out);

/* Whether v satisfies every clause (pre-releases admitted, as pip does
 * for a pin that names one and as markers compare). */
int cl_pep440_contains(const cl_pep440_specifier *s,
                       const cl_pep440_version *v);

/* Whether some version whose first release part is `major` satisfies the
 * set: "<12.0,>=11.6" admits 11 only, ">=8.9,<10" admits 8 and 9. */
int cl_pep440_admits_major(const cl_pep440_specifier *s, long major);

/* The least version the set admits within `major` when a clause bounds it
 * from below there (">=11.6.1.9" in 11: 11.6.1.9; "==9.1.0.70"; "~=9.0");
 * 0 when none does (only an upper bound, or a lower bound below `major`). */
int cl_pep440_least_in_major(const cl_pep440_specifier *s, long major,
                             cl_pep440_version *least);

#endif
