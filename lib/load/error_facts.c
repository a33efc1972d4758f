/* SPDX-License-Identifier: MIT */
/*
 * error_facts.c - reading what a message says. Each reader takes one
 * form's hit (error_forms.c) and records, as spans of the text, the file as
 * written and what the message says around it: the library that needed it,
 * the symbol and its version node, the versions on either side of a
 * mismatch, the names a program tried. Statements elsewhere in the text
 * (a Windows error code on the same line, the frames of a traceback,
 * "Runtime API Version: 11.7", "+cu121") are kept in the scene and given
 * to the messages they concern.
 *
 * Every fact keeps the piece of text it was read from, so that a report
 * can say which facts the message gave and which the machine did. All
 * looks are bounded (CL_ERROR_WORD_MAX), so a text is read in time linear
 * in its length.
 */
#include "load/error_facts.h"
#include "common/strutil.h"
#include "cudaload.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- facts ----------------------------------------------------------------
 */

static cl_error_span span(const char *s, size_t len) {
  cl_error_span x = {s, len};
  return x;
}

static int has(const cl_error_draft *d, int fact) {
  const cl_error_fact *f = &d->facts[fact];
  return f->value.s || f->own[0];
}

static void set_text(cl_error_draft *d, int fact, cl_error_span value,
                     cl_error_span source) {
  if (!value.s || !value.len)
    return;
  cl_error_fact *f = &d->facts[fact];
  memset(f, 0, sizeof *f);
  f->value = value;
  f->source = source;
}

/* s into out[size], cut to fit (no printf: a cut is expected here). */
static void copy_cut(char *out, size_t size, const char *s) {
  size_t n = strlen(s);
  if (n >= size)
    n = size - 1;
  memcpy(out, s, n);
  out[n] = '\0';
}

static void set_own(cl_error_draft *d, int fact, const char *value,
                    cl_error_span source) {
  cl_error_fact *f = &d->facts[fact];
  memset(f, 0, sizeof *f);
  copy_cut(f->own, sizeof f->own, value);
  f->source = source;
}

void cl_error_fact_text(const cl_error_fact *f, char *out, size_t size) {
  if (!size)
    return;
  out[0] = '\0';
  if (!f->value.s) {
    copy_cut(out, size, f->own);
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < f->value.len && n + 1 < size; ++i) {
    char c = f->value.s[i];
    if (f->list && (c == ' ' || c == '\t'))
      continue;
    out[n++] = c;
  }
  out[n] = '\0';
}

static void set_number(cl_error_draft *d, int fact, int value,
                       cl_error_span source) {
  char text[16];
  snprintf(text, sizeof text, "%d", value);
  set_own(d, fact, text, source);
}

/* --- looking along a line --------------------------------------------------
 */

/* The end of what a hit may look at after from: its line, at most
 * CL_ERROR_WORD_MAX bytes on. */
static size_t look_end(const cl_error_hit *h, size_t from) {
  size_t end = from + CL_ERROR_WORD_MAX;
  return end < h->line_end ? end : h->line_end;
}

/* The first place of needle (lower case) in text[from..to), any letter
 * case; SIZE_MAX when none. */
static size_t find_between(const char *text, size_t from, size_t to,
                           const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = from; i + n <= to; ++i) {
    size_t k = 0;
    while (k < n && cl_ascii_lower(text[i + k]) == needle[k])
      ++k;
    if (k == n)
      return i;
  }
  return (size_t)-1;
}

/* A version written at text[at..), bounded by the hit's line. */
static cl_error_span version_at(const cl_error_hit *h, size_t at) {
  size_t end = look_end(h, at);
  return span(h->text + at, cl_error_version_at(h->text + at, end - at));
}

/* "(8, 9, 2)" at text[at]: "8.9.2" into out. */
static int tuple_at(const cl_error_hit *h, size_t at, char *out, size_t size,
                    size_t *stop) {
  size_t end = look_end(h, at), n = 0;
  if (at >= end || h->text[at] != '(')
    return 0;
  size_t i = at + 1;
  int parts = 0;
  out[0] = '\0';
  while (i < end && h->text[i] != ')') {
    char c = h->text[i++];
    if (cl_ascii_is_digit(c) && n + 2 < size) {
      out[n++] = c;
    } else if (c == ',' && n + 2 < size) {
      out[n++] = '.';
      ++parts;
    } else if (c != ' ') {
      return 0;
    }
  }
  out[n] = '\0';
  *stop = i;
  return n > 0 && parts >= 1 && i < end;
}

/* cuDNN's own encoding of its version, major * 1000 + minor * 100 + patch:
 * 7102 is 7.1.2, 8907 8.9.7. */
static void cudnn_number(const char *digits, size_t len, char *out,
                         size_t size) {
  long v = strtol(digits, NULL, 10);
  (void)len;
  snprintf(out, size, "%ld.%ld.%ld", v / 1000, v % 1000 / 100, v % 100);
}

/* The integer written at the start of s[0..len). */
static int number(const char *s, size_t len) {
  int v = 0;
  for (size_t i = 0; i < len && cl_ascii_is_digit(s[i]) && i < 6; ++i)
    v = v * 10 + (s[i] - '0');
  return v;
}

/* --- names: libraries, families, symbols ------------------------------------
 */

/* The catalog's reading of a file name: Linux or Windows naming, and the
 * unversioned names programs open (libcublas.so). */
static int match_name(const char *name, cl_name_match *m) {
  return cl_catalog_match(name, CL_NAMING_LINUX, m) ||
         cl_catalog_match(name, CL_NAMING_WINDOWS, m) ||
         cl_catalog_match_unversioned(name, m);
}

static int span_match(cl_error_span s, cl_name_match *m) {
  char name[256];
  cl_error_span b = cl_error_basename(s.s, s.len);
  if (!b.len || b.len >= sizeof name)
    return 0;
  memcpy(name, b.s, b.len);
  name[b.len] = '\0';
  return match_name(name, m);
}

/* The catalog family a word of a message names ("cuSPARSE", "cuDNN",
 * "NCCL"), a static string; NULL for none. */
static const char *family_of_word(const char *w, size_t len) {
  if (len == 4 && cl_same_nocase(w, "cuda", 4))
    return "cudart";
  const cl_catalog_family *f = cl_catalog_family_named(w, len);
  return f && !f->is_driver ? f->name : NULL;
}

/* The family a symbol's name belongs to (cudnnCreate..., __nvJitLink...),
 * NULL for none: the catalog rows' symbol prefixes. */
static const char *family_of_symbol(const char *s, size_t len) {
  const cl_catalog_family *f = cl_catalog_family_of_symbol_word(s, len);
  return f ? f->name : NULL;
}

/* The ABI major of entry that ships with CUDA major cuda, 0 when not one. */
static int abi_of_cuda(const cl_catalog_entry *e, int cuda) {
  int found = 0;
  for (int abi = e->min_major; abi <= e->max_major; ++abi)
    if (cl_catalog_cuda_major(e, abi) == cuda) {
      if (found)
        return 0;
      found = abi;
    }
  return found;
}

/* --- the readers -----------------------------------------------------------
 */

static cl_error_span marker_of(const cl_error_hit *h) {
  return span(h->text + h->at, h->end - h->at);
}

static int library_span(cl_error_span w) {
  return w.len && cl_error_library_file_name(w.s, w.len);
}

static int read_file_before(cl_error_draft *d, const cl_error_hit *h) {
  d->file = cl_error_path_before(h->text + h->line_start, h->text + h->at);
  return library_span(d->file);
}

static int read_file_after(cl_error_draft *d, const cl_error_hit *h) {
  d->file = cl_error_word_after(h->text + h->end, h->text + h->line_end);
  return library_span(d->file);
}

static int read_quoted_before(cl_error_draft *d, const cl_error_hit *h) {
  size_t from = h->at > h->line_start + CL_ERROR_WORD_MAX
                    ? h->at - CL_ERROR_WORD_MAX
                    : h->line_start;
  for (size_t i = h->at; i > from; --i)
    if (h->text[i - 1] == '"') {
      d->file = span(h->text + i, h->at - i);
      break;
    }
  return library_span(d->file);
}

/* "{a, b, c}": the first is the file; all of them the candidates; the
 * version the longest versioned one carries, to its minor, the least the
 * program needs (libcudnn_ops.so.9.1.0: at least 9.1). */
static int read_candidates(cl_error_draft *d, const cl_error_hit *h) {
  size_t end = look_end(h, h->end);
  size_t close = find_between(h->text, h->end, end, "}");
  if (close == (size_t)-1)
    return 0;
  cl_error_span list = span(h->text + h->end, close - h->end);
  set_text(d, CUDALOAD_MESSAGE_FACT_CANDIDATES, list, list);
  d->facts[CUDALOAD_MESSAGE_FACT_CANDIDATES].list = 1;
  size_t comma = find_between(h->text, h->end, close, ",");
  size_t first_end = comma == (size_t)-1 ? close : comma;
  d->file = span(h->text + h->end, first_end - h->end);
  while (d->file.len && d->file.s[d->file.len - 1] == ' ')
    d->file.len--;
  if (!library_span(d->file))
    return 0;
  cl_name_match m;
  if (span_match(d->file, &m) && m.name_version[0]) {
    char at_least[32];
    int major = 0, minor = 0;
    if (sscanf(m.name_version, "%d.%d", &major, &minor) == 2) {
      snprintf(at_least, sizeof at_least, "%d.%d", major, minor);
      set_own(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, at_least, d->file);
    }
  }
  return 1;
}

/* A symbol's name written at text[at..): up to a comma, space or bracket. */
static cl_error_span symbol_at(const cl_error_hit *h, size_t at) {
  size_t end = look_end(h, at), i = at;
  while (i < end && h->text[i] != ',' && !cl_ascii_is_space(h->text[i]) &&
         h->text[i] != '(' && h->text[i] != '\'' && h->text[i] != '"')
    ++i;
  return span(h->text + at, i - at);
}

/* nvJitLink's symbols carry the release that introduced them:
 * __nvJitLinkComplete_12_4 is in 12.4 and later. */
static void symbol_release(cl_error_draft *d, cl_error_span sym) {
  if (sym.len < 6 || !cl_same_nocase(sym.s, "__nvJitLink", 11))
    return;
  size_t i = sym.len;
  while (i > 0 && cl_ascii_is_digit(sym.s[i - 1]))
    --i;
  if (i == sym.len || i < 2 || sym.s[i - 1] != '_')
    return;
  size_t j = i - 1;
  while (j > 0 && cl_ascii_is_digit(sym.s[j - 1]))
    --j;
  if (j == i - 1 || j < 1 || sym.s[j - 1] != '_')
    return;
  char version[32];
  snprintf(version, sizeof version, "%d.%d", number(sym.s + j, i - 1 - j),
           number(sym.s + i, sym.len - i));
  set_own(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, version, sym);
}

/* ", version N" at text[at..): the version node. */
static cl_error_span version_node_at(const cl_error_hit *h, size_t at,
                                     size_t *stop) {
  static const char word[] = ", version ";
  size_t end = look_end(h, at);
  cl_error_span none = {NULL, 0};
  if (at + sizeof word - 1 > end ||
      find_between(h->text, at, at + sizeof word - 1, word) != at)
    return none;
  size_t s = at + sizeof word - 1, i = s;
  while (i < end && !cl_ascii_is_space(h->text[i]) && h->text[i] != ',')
    ++i;
  *stop = i;
  return span(h->text + s, i - s);
}

/* The object before ": undefined symbol" (or ": symbol"), when it is one:
 * a library or a path ("... with error: undefined symbol: X" names
 * none). */
static cl_error_span object_before(const cl_error_hit *h) {
  cl_error_span none = {NULL, 0};
  size_t at = h->at;
  if (h->text[at] != ':') {
    if (at < h->line_start + 2 || h->text[at - 2] != ':' ||
        h->text[at - 1] != ' ')
      return none;
    at -= 2;
  }
  cl_error_span w = cl_error_path_before(h->text + h->line_start, h->text + at);
  if (w.len &&
      (library_span(w) || cl_error_path_form_of(w.s, w.len) != CL_ERROR_NAME))
    return w;
  return none;
}

static int read_undefined_symbol(cl_error_draft *d, const cl_error_hit *h) {
  d->needed_by = object_before(h);
  cl_error_span sym = symbol_at(h, h->end);
  if (!sym.len)
    return 0;
  set_text(d, CUDALOAD_MESSAGE_FACT_SYMBOL, sym, sym);
  symbol_release(d, sym);
  size_t stop = 0;
  cl_error_span node = version_node_at(h, h->end + sym.len, &stop);
  if (node.len) {
    set_text(d, CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION, node, node);
    if (library_span(node))
      d->file = node;
  }
  if (!d->file.len)
    d->family = family_of_symbol(sym.s, sym.len);
  return 1;
}

/* "P: symbol S, version N not defined in file F with link time
 * reference": F lacks S@N, which P binds. */
static int read_symbol_not_defined(cl_error_draft *d, const cl_error_hit *h) {
  cl_error_span sym = symbol_at(h, h->end);
  size_t stop = 0;
  cl_error_span node = version_node_at(h, h->end + sym.len, &stop);
  if (!sym.len || !node.len)
    return 0;
  size_t end = look_end(h, stop);
  size_t in_file = find_between(h->text, stop, end, " not defined in file ");
  if (in_file != stop)
    return 0;
  d->file = cl_error_word_after(h->text + in_file + 21, h->text + end);
  if (!library_span(d->file))
    return 0;
  d->needed_by = object_before(h);
  set_text(d, CUDALOAD_MESSAGE_FACT_SYMBOL, sym, sym);
  set_text(d, CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION, node, node);
  return 1;
}

/* A family's name as a word at text[at..) ("cuSPARSE." ends at the dot). */
static int read_family_word(cl_error_draft *d, const cl_error_hit *h,
                            cl_error_span w) {
  while (w.len && (w.s[w.len - 1] == '.' || w.s[w.len - 1] == '!'))
    --w.len;
  d->family = family_of_word(w.s, w.len);
  if (d->family)
    set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, d->family, w);
  (void)h;
  return d->family != NULL;
}

static int read_family_after(cl_error_draft *d, const cl_error_hit *h) {
  return read_family_word(
      d, h, cl_error_word_after(h->text + h->end, h->text + h->line_end));
}

static int read_family_before(cl_error_draft *d, const cl_error_hit *h) {
  size_t i = h->at;
  while (i > h->line_start && h->at - i < 64 &&
         cl_ascii_is_alnum(h->text[i - 1]))
    --i;
  return read_family_word(d, h, span(h->text + i, h->at - i));
}

static int read_symbol_after(cl_error_draft *d, const cl_error_hit *h) {
  cl_error_span sym = symbol_at(h, h->end);
  d->family = sym.len ? family_of_symbol(sym.s, sym.len) : NULL;
  if (!d->family)
    return 0;
  set_text(d, CUDALOAD_MESSAGE_FACT_SYMBOL, sym, sym);
  set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, d->family, sym);
  return 1;
}

/* "Loaded runtime CuDNN library: 8.5.0 but source was compiled with:
 * 8.6.0". */
static int read_loaded_compiled(cl_error_draft *d, const cl_error_hit *h) {
  cl_error_span found = version_at(h, h->end);
  size_t end = look_end(h, h->end);
  size_t with = find_between(h->text, h->end, end, "compiled with: ");
  if (!found.len || with == (size_t)-1)
    return 0;
  cl_error_span needed = version_at(h, with + 15);
  if (!needed.len)
    return 0;
  set_text(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION, found, found);
  set_text(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, needed, needed);
  return 1;
}

/* PyTorch: "compiled  against (8, 9, 2) but found runtime version (8, 8,
 * 1)", "... but linked against (8, 0, 3)", and before 1.8 "compiled against
 * 7102 but linked against 7600". */
static int read_torch_cudnn(cl_error_draft *d, const cl_error_hit *h) {
  size_t end = look_end(h, h->end);
  size_t against = find_between(h->text, h->end, end, "against ");
  if (against == (size_t)-1)
    return 0;
  size_t at = against + 8, stop = 0;
  char needed[32], found[32];
  if (tuple_at(h, at, needed, sizeof needed, &stop)) {
    size_t other = find_between(h->text, stop, end, " (");
    if (other == (size_t)-1 ||
        !tuple_at(h, other + 1, found, sizeof found, &stop))
      return 0;
    set_own(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, needed,
            span(h->text + at, other - at));
    set_own(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION, found,
            span(h->text + other + 1, stop + 1 - other - 1));
    return 1;
  }
  cl_error_span n = version_at(h, at);
  size_t linked = find_between(h->text, at, end, "against ");
  if (!n.len || linked == (size_t)-1 || linked == against)
    return 0;
  size_t second = find_between(h->text, at + n.len, end, "against ");
  if (second == (size_t)-1)
    return 0;
  cl_error_span f = version_at(h, second + 8);
  if (!f.len)
    return 0;
  cudnn_number(n.s, n.len, needed, sizeof needed);
  cudnn_number(f.s, f.len, found, sizeof found);
  set_own(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, needed, n);
  set_own(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION, found, f);
  return 1;
}

/* "(found version 11040)": the driver's CUDA version, major * 1000 + minor
 * * 10. */
static void read_driver_found(cl_error_draft *d, const cl_error_hit *h) {
  size_t end = look_end(h, h->end);
  size_t at = find_between(h->text, h->end, end, "found version ");
  if (at == (size_t)-1)
    return;
  cl_error_span v = version_at(h, at + 14);
  if (!v.len)
    return;
  int n = number(v.s, v.len);
  char text[16];
  snprintf(text, sizeof text, "%d.%d", n / 1000, n % 1000 / 10);
  set_own(d, CUDALOAD_MESSAGE_FACT_DRIVER_CUDA_VERSION, text,
          span(h->text + at, 14 + v.len));
}

static void note_cuda(cl_error_scene *s, int major, int minor, int strength,
                      cl_error_span source);

/* pip: "D V requires P==X; markers, but you have P Y which is
 * incompatible." or "..., which is not installed." */
static int read_pip(cl_error_draft *d, const cl_error_hit *h,
                    cl_error_scene *s) {
  /* The distribution and its version, before the marker. */
  size_t i = h->at;
  while (i > h->line_start && h->at - i < 128 && h->text[i - 1] != ' ')
    --i;
  cl_error_span version = span(h->text + i, h->at - i);
  size_t j = i > h->line_start ? i - 1 : i;
  while (j > h->line_start && i - j < 128 && h->text[j - 1] != ' ')
    --j;
  cl_error_span dist = span(h->text + j, i > j ? i - 1 - j : 0);
  /* The package and its pin, after. */
  size_t p = h->end - 7, end = look_end(h, h->end); /* at "nvidia-" */
  size_t q = p;
  while (q < end && (cl_ascii_is_alnum(h->text[q]) || h->text[q] == '-' ||
                     h->text[q] == '_' || h->text[q] == '.'))
    ++q;
  cl_error_span package = span(h->text + p, q - p);
  const cl_catalog_wheel *wheel =
      cl_catalog_wheel_by_package(package.s, package.len);
  if (!wheel)
    return 0;
  while (q < end && strchr("=<>!~ ", h->text[q]))
    ++q;
  cl_error_span pin = version_at(h, q);
  size_t have = find_between(h->text, q, end, "but you have ");
  if (have != (size_t)-1) {
    size_t k = have + 13;
    while (k < end && h->text[k] != ' ')
      ++k;
    cl_error_span found = version_at(h, k + 1);
    set_text(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION, found,
             span(h->text + have, k + 1 + found.len - have));
  }
  set_text(d, CUDALOAD_MESSAGE_FACT_DISTRIBUTION, package, package);
  set_text(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION, pin, pin);
  if (dist.len && version.len && cl_ascii_is_digit(version.s[0])) {
    set_text(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, dist, dist);
    set_text(d, CUDALOAD_MESSAGE_FACT_CONSUMER_VERSION, version, version);
  }
  d->family = wheel->family;
  set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, wheel->family, package);
  if (pin.len) {
    char major[16];
    snprintf(major, sizeof major, "%d", number(pin.s, pin.len));
    set_own(d, CUDALOAD_MESSAGE_FACT_MAJOR, major, pin);
  }
  char cuda[16];
  snprintf(cuda, sizeof cuda, "%d", wheel->cuda_major);
  set_own(d, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR, cuda, package);
  d->cuda_strength = 3;
  note_cuda(s, wheel->cuda_major, -1, 2, package);
  return 1;
}

/* onnxruntime: "Require cuDNN 9.* and CUDA 12.*". */
static int read_require(cl_error_draft *d, const cl_error_hit *h,
                        cl_error_scene *s) {
  cl_error_span major = version_at(h, h->end);
  if (!major.len)
    return 0;
  size_t end = look_end(h, h->end), stop = h->end + major.len;
  size_t near = stop + 32 < end ? stop + 32 : end;
  size_t cuda = find_between(h->text, stop, near, "cuda ");
  cl_error_span c = {NULL, 0};
  if (cuda != (size_t)-1 && (c = version_at(h, cuda + 5)).len)
    stop = cuda + 5 + c.len;
  if (stop + 1 < end && h->text[stop] == '.' && h->text[stop + 1] == '*')
    stop += 2;
  cl_error_span statement = span(h->text + h->at, stop - h->at);
  d->family = "cudnn";
  set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, "cudnn", statement);
  set_number(d, CUDALOAD_MESSAGE_FACT_MAJOR, number(major.s, major.len),
             statement);
  if (c.len) {
    set_number(d, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR, number(c.s, c.len),
               statement);
    d->cuda_strength = 3;
    note_cuda(s, number(c.s, c.len), -1, 3, statement);
  }
  return 1;
}

int cl_error_draft_read(cl_error_draft *d, const cl_error_hit *h,
                        cl_error_scene *s) {
  memset(d, 0, sizeof *d);
  d->form = h->form;
  d->kind = h->form->kind;
  d->at = h->at;
  d->line_start = h->line_start;
  d->line_end = h->line_end;
  d->family = h->form->family;
  if (d->family)
    set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, d->family, marker_of(h));
  d->marker = marker_of(h);
  switch (h->form->reader) {
  case CL_READ_FILE_BEFORE:
    return read_file_before(d, h);
  case CL_READ_FILE_AFTER:
    return read_file_after(d, h);
  case CL_READ_QUOTED_BEFORE:
    return read_quoted_before(d, h);
  case CL_READ_CANDIDATES:
    return read_candidates(d, h);
  case CL_READ_UNDEFINED_SYMBOL:
    return read_undefined_symbol(d, h);
  case CL_READ_SYMBOL_NOT_DEFINED:
    return read_symbol_not_defined(d, h);
  case CL_READ_FAMILY_AFTER:
    return read_family_after(d, h);
  case CL_READ_FAMILY_BEFORE:
    return read_family_before(d, h);
  case CL_READ_SYMBOL_AFTER:
    return read_symbol_after(d, h);
  case CL_READ_LOADED_COMPILED:
    return read_loaded_compiled(d, h);
  case CL_READ_TORCH_CUDNN:
    return read_torch_cudnn(d, h);
  case CL_READ_DRIVER_FOUND:
    read_driver_found(d, h);
    return 1;
  case CL_READ_PIP:
    return read_pip(d, h, s);
  case CL_READ_REQUIRE:
    return read_require(d, h, s);
  case CL_READ_WINDOWS_CODE:
    set_own(d, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR,
            h->form->code == 127 ? "127" : "126", marker_of(h));
    return 1;
  case CL_READ_NO_FILE:
  case CL_READ_DLL_IMPORT:
    return 1;
  default:
    return 0;
  }
}

/* --- the scene -------------------------------------------------------------
 */

void cl_error_scene_init(cl_error_scene *s, const char *text) {
  memset(s, 0, sizeof *s);
  s->text = text;
  s->cuda_minor = -1;
  s->code_line = s->consumer_line = (size_t)-1;
}

static void note_cuda(cl_error_scene *s, int major, int minor, int strength,
                      cl_error_span source) {
  if (major < 7 || major > 30 || strength < s->cuda_strength)
    return;
  if (strength > s->cuda_strength) {
    s->cuda_strength = strength;
    s->cuda_major = major;
    s->cuda_minor = minor;
    s->cuda_disagree = 0;
    s->cuda_source = source;
  } else if (major != s->cuda_major) {
    s->cuda_disagree = 1;
  } else if (s->cuda_minor < 0 && minor >= 0) {
    s->cuda_minor = minor;
    s->cuda_source = source;
  }
}

/* "12.1" at the hit's end: CUDA major and minor. */
static void note_cuda_version(cl_error_scene *s, const cl_error_hit *h,
                              int strength) {
  cl_error_span v = version_at(h, h->end);
  if (!v.len)
    return;
  int major = number(v.s, v.len), minor = -1;
  const char *dot = memchr(v.s, '.', v.len);
  if (dot)
    minor = number(dot + 1, v.len - (size_t)(dot + 1 - v.s));
  note_cuda(s, major, minor, strength,
            span(h->text + h->at, h->end + v.len - h->at));
}

/* "+cu121", "+cu118", "+cu92": a wheel built for one CUDA version. */
static void note_build_tag(cl_error_scene *s, const cl_error_hit *h) {
  if (h->at == 0 || !cl_ascii_is_digit(h->text[h->at - 1]))
    return;
  size_t i = h->end, end = look_end(h, h->end);
  while (i < end && cl_ascii_is_digit(h->text[i]) && i - h->end < 4)
    ++i;
  size_t n = i - h->end;
  if (n < 2 || n > 3 || (i < end && cl_ascii_is_alnum(h->text[i])))
    return;
  int digits = number(h->text + h->end, n);
  int major = n == 3 ? digits / 10 : digits / 10;
  int minor = digits % 10;
  if (n == 2 && digits >= 10 && digits <= 13) { /* "+cu12": a major alone */
    major = digits;
    minor = -1;
  }
  note_cuda(s, major, minor, h->form->code, span(h->text + h->at, i - h->at));
}

/* "xla_cuda12", "-cu12": the digits right after the marker. */
static void note_cuda_in_name(cl_error_scene *s, const cl_error_hit *h) {
  size_t i = h->end, end = look_end(h, h->end);
  while (i < end && cl_ascii_is_digit(h->text[i]) && i - h->end < 3)
    ++i;
  if (i < end && cl_ascii_is_digit(h->text[i]))
    return;
  /* The markers "-cu1", "_cu1" hold the major's first digit. */
  int lead = h->text[h->end - 1] == '1' ? 1 : 0;
  size_t n = i - h->end;
  if (n == 0 || (lead && n != 1) || (!lead && n != 2))
    return;
  int major = lead ? 10 + (h->text[h->end] - '0') : number(h->text + h->end, n);
  note_cuda(s, major, -1, h->form->code, span(h->text + h->at, i - h->at));
}

/* TensorFlow's "Successfully opened dynamic library libcudart.so.11.0": the
 * CUDA major of what loaded. */
static void note_opened(cl_error_scene *s, const cl_error_hit *h) {
  cl_error_span w =
      cl_error_word_after(h->text + h->end, h->text + h->line_end);
  cl_name_match m;
  if (library_span(w) && span_match(w, &m) && m.cuda_major)
    note_cuda(s, m.cuda_major, -1, h->form->code, w);
}

static void note_driver(cl_error_scene *s, const cl_error_hit *h) {
  /* nvidia-smi's "CUDA Version" follows its "Driver Version" on one line. */
  size_t from = h->at > h->line_start + 256 ? h->at - 256 : h->line_start;
  if (h->form->marker[0] == 'c' &&
      find_between(h->text, from, h->at, "driver version") == (size_t)-1)
    return;
  cl_error_span v = version_at(h, h->end);
  if (!v.len || s->driver_cuda[0])
    return;
  snprintf(s->driver_cuda, sizeof s->driver_cuda, "%.*s",
           (int)(v.len < 15 ? v.len : 15), v.s);
  s->driver_source = span(h->text + h->at, h->end + v.len - h->at);
}

void cl_error_scene_note(cl_error_scene *s, const cl_error_hit *h,
                         cl_error_draft *last) {
  switch (h->form->reader) {
  case CL_READ_WINDOWS_CODE:
    if (h->end < h->line_end && cl_ascii_is_digit(h->text[h->end]))
      return; /* "error 1260" */
    s->code = h->form->code;
    s->code_line = h->line_start;
    s->code_source = marker_of(h);
    if (last && last->line_start == h->line_start &&
        !has(last, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR))
      set_own(last, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR,
              s->code == 127 ? "127" : "126", s->code_source);
    return;
  case CL_READ_RUNTIME_API:
    note_cuda_version(s, h, h->form->code);
    return;
  case CL_READ_DRIVER_API:
    note_driver(s, h);
    return;
  case CL_READ_BUILD_TAG:
    note_build_tag(s, h);
    return;
  case CL_READ_CUDA_IN_NAME:
    note_cuda_in_name(s, h);
    return;
  case CL_READ_OPENED:
    note_opened(s, h);
    return;
  case CL_READ_SITE_PACKAGES: {
    cl_error_span env, module;
    if (cl_error_site_packages(h->text + h->line_start, h->text + h->at,
                               h->text + h->line_end, &env, &module)) {
      s->module = module;
      s->environment = env;
      s->module_source = span(env.s, (size_t)(module.s + module.len - env.s));
      if (!s->first_module.len) {
        s->first_module = s->module;
        s->first_environment = s->environment;
        s->first_module_source = s->module_source;
      }
    }
    return;
  }
  case CL_READ_CONSUMER_BEFORE: {
    cl_error_span c =
        cl_error_path_before(h->text + h->line_start, h->text + h->at);
    if (c.len) {
      s->consumer = c;
      s->consumer_line = h->line_start;
    }
    return;
  }
  default:
    return;
  }
}

/* The Python package and environment a path of the message runs through. */
static int module_of_path(cl_error_draft *d, cl_error_span path) {
  if (!path.len)
    return 0;
  size_t end = path.len < 13 ? 0 : path.len - 13;
  for (size_t i = 0; i <= end && path.len >= 13; ++i)
    if (cl_same_nocase(path.s + i, "site-packages", 13) ||
        cl_same_nocase(path.s + i, "dist-packages", 13)) {
      cl_error_span env, module;
      if (cl_error_site_packages(path.s, path.s + i, path.s + path.len, &env,
                                 &module)) {
        set_text(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, module, path);
        set_text(d, CUDALOAD_MESSAGE_FACT_ENVIRONMENT, env, path);
        return 1;
      }
      set_text(d, CUDALOAD_MESSAGE_FACT_ENVIRONMENT, env, path);
    }
  return 0;
}

void cl_error_draft_place(cl_error_draft *d, const cl_error_scene *s) {
  if (s->code && s->code_line == d->line_start &&
      !has(d, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR))
    set_own(d, CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR,
            s->code == 127 ? "127" : "126", s->code_source);
  if (s->consumer_line == d->line_start && !d->needed_by.len)
    d->needed_by = s->consumer;
  if (!has(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE) &&
      !module_of_path(d, d->needed_by) && !module_of_path(d, d->file) &&
      s->module.len) {
    set_text(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, s->module,
             s->module_source);
    set_text(d, CUDALOAD_MESSAGE_FACT_ENVIRONMENT, s->environment,
             s->module_source);
  }
}

void cl_error_draft_inherit(cl_error_draft *d, const cl_error_draft *opener) {
  static const int facts[] = {CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE,
                              CUDALOAD_MESSAGE_FACT_CONSUMER_VERSION,
                              CUDALOAD_MESSAGE_FACT_ENVIRONMENT};
  if (!d->needed_by.len)
    d->needed_by = opener->file;
  for (size_t i = 0; i < sizeof facts / sizeof *facts; ++i)
    if (!has(d, facts[i]) && has(opener, facts[i]))
      d->facts[facts[i]] = opener->facts[facts[i]];
  if (!has(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE) && opener->form->consumer)
    set_own(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, opener->form->consumer,
            opener->marker);
}

void cl_error_draft_merge(cl_error_draft *d, const cl_error_draft *reason) {
  /* The reason is the more precise reading ("Could not find module 'X' (or
   * one of its dependencies)" after "CuPy failed to load X"), its file as
   * written a path where the opener's was a name (PaddlePaddle). */
  d->kind = reason->kind;
  d->file = reason->file;
  if (!d->needed_by.len)
    d->needed_by = reason->needed_by;
  for (int f = 1; f <= CL_ERROR_FACT_LAST; ++f)
    if (!has(d, f) && has(reason, f))
      d->facts[f] = reason->facts[f];
}

/* --- once the whole text is read -------------------------------------------
 */

/* What the catalog reads from the file's name: library, family, major and
 * the CUDA major the name belongs to. */
static void name_facts(cl_error_draft *d, const cl_error_scene *s) {
  cl_error_span name = d->file;
  if (!name.len && has(d, CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION))
    name = d->facts[CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION].value;
  cl_name_match m;
  if (!name.len || !span_match(name, &m)) {
    /* A family alone: its main library; its major from what is stated. */
    const cl_catalog_entry *e =
        d->family ? cl_catalog_family_main(d->family) : NULL;
    cl_error_span from = d->facts[CUDALOAD_MESSAGE_FACT_FAMILY].source;
    if (e && !has(d, CUDALOAD_MESSAGE_FACT_FAMILY)) {
      from = d->facts[CUDALOAD_MESSAGE_FACT_SYMBOL].value.s
                 ? d->facts[CUDALOAD_MESSAGE_FACT_SYMBOL].value
                 : d->marker;
      set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, e->family, from);
    }
    if (e && !has(d, CUDALOAD_MESSAGE_FACT_LIBRARY))
      set_own(d, CUDALOAD_MESSAGE_FACT_LIBRARY, e->name, from);
    if (e && !has(d, CUDALOAD_MESSAGE_FACT_MAJOR) &&
        has(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION)) {
      const cl_error_fact *v =
          &d->facts[CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION];
      char text[40];
      cl_error_fact_text(v, text, sizeof text);
      set_number(d, CUDALOAD_MESSAGE_FACT_MAJOR, atoi(text), v->source);
    }
    /* A major that is a CUDA major (nvJitLink 12.4) tells that too. */
    if (e && cl_catalog_family_of(e)->major_rule == CL_MAJOR_IS_CUDA &&
        has(d, CUDALOAD_MESSAGE_FACT_MAJOR) && d->cuda_strength < 2) {
      char text[40];
      cl_error_fact_text(&d->facts[CUDALOAD_MESSAGE_FACT_MAJOR], text,
                         sizeof text);
      int cuda = cl_catalog_cuda_major(e, atoi(text));
      if (cuda) {
        set_number(d, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR, cuda,
                   d->facts[CUDALOAD_MESSAGE_FACT_MAJOR].source);
        d->cuda_strength = 2;
      }
    }
    return;
  }
  cl_error_span written = cl_error_basename(name.s, name.len);
  d->family = m.entry->family;
  set_own(d, CUDALOAD_MESSAGE_FACT_LIBRARY, m.entry->name, written);
  set_own(d, CUDALOAD_MESSAGE_FACT_FAMILY, m.entry->family, written);
  if (m.major > 0 || m.entry->min_major == 0) {
    if (!(m.major == 0 && m.entry->min_major > 0))
      set_number(d, CUDALOAD_MESSAGE_FACT_MAJOR, m.major, written);
  }
  if (m.cuda_major && d->cuda_strength < 2) {
    set_number(d, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR, m.cuda_major, written);
    d->cuda_strength = 2;
  }
  /* An unversioned name (libcublas.so) takes the major of the CUDA major
   * the text states. */
  if (m.major == 0 && m.entry->min_major > 0 && s->cuda_strength &&
      !s->cuda_disagree) {
    int abi = abi_of_cuda(m.entry, s->cuda_major);
    if (abi)
      set_number(d, CUDALOAD_MESSAGE_FACT_MAJOR, abi, s->cuda_source);
  }
}

/* The Windows code makes the kind precise: 127 is an export missing from a
 * DLL that loaded, 126 a DLL (the one named or one it imports) not found. */
static void windows_kind(cl_error_draft *d) {
  char code[8];
  cl_error_fact_text(&d->facts[CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR], code,
                     sizeof code);
  if (strcmp(code, "127") == 0 &&
      (d->kind == CUDALOAD_MESSAGE_LIBRARY_MISSING ||
       d->kind == CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY))
    d->kind = CUDALOAD_MESSAGE_SYMBOL_MISSING;
  else if (strcmp(code, "126") == 0 &&
           d->kind == CUDALOAD_MESSAGE_LIBRARY_MISSING &&
           d->form->role == CL_ERROR_OPENER)
    d->kind = CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY;
}

static int compare_versions(const char *a, const char *b) {
  while (*a || *b) {
    char *after_a, *after_b;
    long x = strtol(a, &after_a, 10), y = strtol(b, &after_b, 10);
    a = after_a;
    b = after_b;
    if (x != y)
      return x < y ? -1 : 1;
    a += *a == '.';
    b += *b == '.';
    if (!cl_ascii_is_digit(*a) && !cl_ascii_is_digit(*b))
      break;
  }
  return 0;
}

static const char *cause_of(const cl_error_draft *d) {
  char text[40];
  switch (d->kind) {
  case CUDALOAD_MESSAGE_LIBRARY_MISSING:
    return d->file.len && cl_error_path_form_of(d->file.s, d->file.len) !=
                              CL_ERROR_NAME
               ? "path-not-found"
               : "not-found";
  case CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY:
    return "file-or-dependency";
  case CUDALOAD_MESSAGE_SYMBOL_MISSING:
    cl_error_fact_text(&d->facts[CUDALOAD_MESSAGE_FACT_WINDOWS_ERROR], text,
                       sizeof text);
    if (strcmp(text, "127") == 0)
      return "missing-export";
    return has(d, CUDALOAD_MESSAGE_FACT_SYMBOL_VERSION) ||
                   has(d, CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION)
               ? "older-library"
               : "undefined-symbol";
  case CUDALOAD_MESSAGE_VERSION_MISMATCH: {
    char found[40];
    cl_error_fact_text(&d->facts[CUDALOAD_MESSAGE_FACT_FOUND_VERSION], found,
                       sizeof found);
    cl_error_fact_text(&d->facts[CUDALOAD_MESSAGE_FACT_REQUIRED_VERSION], text,
                       sizeof text);
    return compare_versions(found, text) < 0 ? "older-runtime"
                                             : "newer-runtime";
  }
  case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
    return "driver-too-old";
  case CUDALOAD_MESSAGE_DRIVER_MISSING:
    return strstr(d->form->marker, "device") ? "no-device" : "no-driver";
  case CUDALOAD_MESSAGE_NO_KERNEL_IMAGE:
    return "no-gpu-code";
  case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
    return "cublas-init-failed";
  case CUDALOAD_MESSAGE_CUDA_UNAVAILABLE:
    return "cpu-build";
  case CUDALOAD_MESSAGE_PACKAGE_CONFLICT:
    return has(d, CUDALOAD_MESSAGE_FACT_FOUND_VERSION) ? "pin-mismatch"
                                                       : "pin-not-installed";
  default:
    return "not-found";
  }
}

void cl_error_draft_complete(cl_error_draft *d, const cl_error_scene *s) {
  cl_error_span quote = {s->text + d->line_start, d->line_end - d->line_start};
  if (d->file.len) {
    cl_error_path_form form = cl_error_path_form_of(d->file.s, d->file.len);
    cl_error_span base = cl_error_basename(d->file.s, d->file.len);
    set_own(d, CUDALOAD_MESSAGE_FACT_FILE_FORM,
            form == CL_ERROR_ABSOLUTE   ? "absolute-path"
            : form == CL_ERROR_RELATIVE ? "relative-path"
                                        : "name",
            d->file);
    set_text(d, CUDALOAD_MESSAGE_FACT_FILE_NAME, base, d->file);
    if (form != CL_ERROR_NAME && base.s > d->file.s + 1)
      set_text(d, CUDALOAD_MESSAGE_FACT_FOLDER,
               span(d->file.s, (size_t)(base.s - 1 - d->file.s)), d->file);
  }
  if (d->needed_by.len)
    set_text(d, CUDALOAD_MESSAGE_FACT_NEEDED_BY, d->needed_by, d->needed_by);
  /* The consumer: its path's package, else the innermost frame before it
   * (cl_error_draft_place), else the framework whose words these are, else
   * a package a path after it goes through (a traceback printed after the
   * error). */
  if (!has(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE) && d->form->consumer)
    set_own(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, d->form->consumer,
            d->marker);
  if (!has(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE) && s->first_module.len) {
    set_text(d, CUDALOAD_MESSAGE_FACT_CONSUMER_MODULE, s->first_module,
             s->first_module_source);
    set_text(d, CUDALOAD_MESSAGE_FACT_ENVIRONMENT, s->first_environment,
             s->first_module_source);
  }
  windows_kind(d);
  name_facts(d, s);
  /* The program's CUDA major: its own names' first, else the text's. */
  if (!d->cuda_strength && s->cuda_strength && !s->cuda_disagree) {
    set_number(d, CUDALOAD_MESSAGE_FACT_CUDA_MAJOR, s->cuda_major,
               s->cuda_source);
    d->cuda_strength = s->cuda_strength;
    if (s->cuda_minor >= 0) {
      char v[16];
      snprintf(v, sizeof v, "%d.%d", s->cuda_major, s->cuda_minor);
      set_own(d, CUDALOAD_MESSAGE_FACT_CUDA_VERSION, v, s->cuda_source);
    }
  }
  if (!has(d, CUDALOAD_MESSAGE_FACT_DRIVER_CUDA_VERSION) && s->driver_cuda[0])
    set_own(d, CUDALOAD_MESSAGE_FACT_DRIVER_CUDA_VERSION, s->driver_cuda,
            s->driver_source);
  set_own(d, CUDALOAD_MESSAGE_FACT_CAUSE, cause_of(d), quote);
}

/* --- the same message again ------------------------------------------------
 */

static int same_span_nocase(cl_error_span a, cl_error_span b) {
  return a.len == b.len && (a.len == 0 || cl_same_nocase(a.s, b.s, a.len));
}

static int same_fact(const cl_error_draft *d, const cl_error_draft *e,
                     int fact) {
  char a[80], b[80];
  cl_error_fact_text(&d->facts[fact], a, sizeof a);
  cl_error_fact_text(&e->facts[fact], b, sizeof b);
  return strcmp(a, b) == 0;
}

int cl_error_draft_same(const cl_error_draft *d, const cl_error_draft *e) {
  if (d->kind != e->kind)
    return 0;
  cl_error_span a = cl_error_basename(d->file.s, d->file.len);
  cl_error_span b = cl_error_basename(e->file.s, e->file.len);
  if (a.len || b.len)
    return same_span_nocase(a, b);
  return (d->family == e->family ||
          (d->family && e->family && strcmp(d->family, e->family) == 0)) &&
         same_fact(d, e, CUDALOAD_MESSAGE_FACT_DISTRIBUTION) &&
         same_fact(d, e, CUDALOAD_MESSAGE_FACT_SYMBOL);
}
