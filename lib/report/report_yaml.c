/* SPDX-License-Identifier: MIT */
/* report_yaml.c - YAML written as libyaml's emitter writes it (block style,
 * unicode on, no line width), so that no build needs libyaml to write a
 * report and every build writes the same bytes. */
#include "report/report_yaml.h"
#include "common/text_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest key written as "key: value"; a longer one (or one with a line
 * break) is a complex key, "? key" then ": value", as libyaml does. */
#define SIMPLE_KEY_MAX 128

static void put(cl_yaml_emitter *e, const char *s, size_t n) {
  cl_buf_append(e->out, s, n);
  /* The column counts characters: UTF-8 continuation bytes add none. */
  for (size_t i = 0; i < n; ++i)
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      e->column++;
}

static void put_break(cl_yaml_emitter *e) {
  cl_buf_append(e->out, "\n", 1);
  e->column = 0;
}

/* Go to column indent: a new line unless only indentation is on this one. */
static void write_indent(cl_yaml_emitter *e, int indent) {
  size_t want = indent < 0 ? 0 : (size_t)indent;
  if (!e->indention || e->column > want ||
      (e->column == want && !e->whitespace))
    put_break(e);
  while (e->column < want)
    put(e, " ", 1);
  e->whitespace = 1;
  e->indention = 1;
}

static void write_indicator(cl_yaml_emitter *e, const char *indicator,
                            int need_whitespace, int is_whitespace,
                            int is_indention) {
  if (need_whitespace && !e->whitespace)
    put(e, " ", 1);
  put(e, indicator, strlen(indicator));
  e->whitespace = is_whitespace;
  e->indention = e->indention && is_indention;
}

/* --- characters, as libyaml classifies them (UTF-8 in, surrogates for
 * bytes that are not UTF-8 already made three-byte sequences) ---------- */

static size_t char_width(unsigned char c) {
  if ((c & 0x80) == 0)
    return 1;
  if ((c & 0xE0) == 0xC0)
    return 2;
  if ((c & 0xF0) == 0xE0)
    return 3;
  if ((c & 0xF8) == 0xF0)
    return 4;
  return 1; /* not reached: the text is well-formed */
}

/* Characters YAML allows raw: '\n', printable ASCII, U+00A0..U+D7FF,
 * U+E000..U+FFFD but the BOM. Not tabs, controls, DEL, C1, surrogates,
 * U+FFFE/U+FFFF, nor (libyaml's choice) anything beyond the BMP. */
static int is_printable(const unsigned char *p, size_t left) {
  unsigned char b1 = left > 1 ? p[1] : 0, b2 = left > 2 ? p[2] : 0;
  return p[0] == 0x0A || (p[0] >= 0x20 && p[0] <= 0x7E) ||
         (p[0] == 0xC2 && b1 >= 0xA0) || (p[0] > 0xC2 && p[0] < 0xED) ||
         (p[0] == 0xED && b1 < 0xA0) || p[0] == 0xEE ||
         (p[0] == 0xEF && !(b1 == 0xBB && b2 == 0xBF) &&
          !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF)));
}

static int is_bom(const unsigned char *p, size_t left) {
  return left >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF;
}

/* Line breaks: CR, LF, NEL, U+2028, U+2029. */
static int is_break(const unsigned char *p, size_t left) {
  return p[0] == '\r' || p[0] == '\n' ||
         (left >= 2 && p[0] == 0xC2 && p[1] == 0x85) ||
         (left >= 3 && p[0] == 0xE2 && p[1] == 0x80 &&
          (p[2] == 0xA8 || p[2] == 0xA9));
}

/* Space, tab, a line break or the end. */
static int is_blankz(const unsigned char *p, size_t left) {
  return left == 0 || p[0] == ' ' || p[0] == '\t' || is_break(p, left);
}

typedef struct analysis {
  int multiline, plain_allowed, single_quoted_allowed;
} analysis;

/* Which styles can write s (len bytes) so that it reads back the same, in
 * block context: the rules libyaml's emitter applies. */
static analysis analyze(const unsigned char *s, size_t len) {
  analysis a = {0, 1, 1};
  if (len == 0)
    return a;
  int indicators = 0, special = 0, line_breaks = 0;
  int leading = 0, trailing = 0, break_space = 0, space_break = 0;
  int previous_space = 0, previous_break = 0;
  /* A document marker at the start reads as one. */
  if (len >= 3 && ((s[0] == '-' && s[1] == '-' && s[2] == '-') ||
                   (s[0] == '.' && s[1] == '.' && s[2] == '.')))
    indicators = 1;
  int preceded_by_whitespace = 1;
  for (size_t i = 0; i < len;) {
    size_t w = char_width(s[i]);
    if (w > len - i)
      w = len - i;
    const unsigned char *p = s + i, *next = s + i + w;
    size_t left = len - i;
    int followed_by_whitespace = is_blankz(next, len - i - w);
    if (i == 0) {
      if (strchr("#,[]{}&*!|>'\"%@`", p[0]))
        indicators = 1;
      if ((p[0] == '?' || p[0] == ':' || p[0] == '-') && followed_by_whitespace)
        indicators = 1;
    } else {
      if (p[0] == ':' && followed_by_whitespace)
        indicators = 1;
      if (p[0] == '#' && preceded_by_whitespace)
        indicators = 1;
    }
    if (!is_printable(p, left))
      special = 1;
    int brk = is_break(p, left);
    if (brk)
      line_breaks = 1;
    if (p[0] == ' ' || brk) {
      leading |= i == 0;
      trailing |= i + w == len;
    }
    if (p[0] == ' ') {
      if (previous_break)
        break_space = 1;
      previous_space = 1;
      previous_break = 0;
    } else if (brk) {
      if (previous_space)
        space_break = 1;
      previous_space = 0;
      previous_break = 1;
    } else {
      previous_space = 0;
      previous_break = 0;
    }
    preceded_by_whitespace = is_blankz(p, left);
    i += w;
  }
  a.multiline = line_breaks;
  if (leading || trailing || line_breaks || indicators)
    a.plain_allowed = 0;
  if (break_space || space_break || special) {
    a.plain_allowed = 0;
    a.single_quoted_allowed = 0;
  }
  return a;
}

/* --- the three scalar styles ------------------------------------------- */

static void write_plain(cl_yaml_emitter *e, const char *s, size_t len) {
  if (!e->whitespace && len)
    put(e, " ", 1);
  put(e, s, len);
  e->whitespace = 0;
  e->indention = 0;
}

/* ' doubled; a "\n" written twice (a single line break folds to a space
 * when read back), the text after line breaks indented to indent. */
static void write_single_quoted(cl_yaml_emitter *e, const unsigned char *s,
                                size_t len, int indent) {
  write_indicator(e, "'", 1, 0, 0);
  int breaks = 0;
  for (size_t i = 0; i < len;) {
    size_t w = char_width(s[i]);
    if (w > len - i)
      w = len - i;
    if (is_break(s + i, len - i)) {
      if (!breaks && s[i] == '\n')
        put_break(e);
      if (s[i] == '\n')
        put_break(e);
      else {
        cl_buf_append(e->out, (const char *)s + i, w);
        e->column = 0;
      }
      e->indention = 1;
      breaks = 1;
    } else {
      if (breaks)
        write_indent(e, indent);
      put(e, (const char *)s + i, w);
      if (s[i] == '\'')
        put(e, "'", 1);
      e->indention = 0;
      breaks = 0;
    }
    i += w;
  }
  if (breaks)
    write_indent(e, indent);
  write_indicator(e, "'", 0, 0, 0);
}

/* Everything YAML does not allow raw, line breaks, '"' and '\\' escaped:
 * the short escapes where YAML has one, else \xXX, \uXXXX or \UXXXXXXXX
 * (upper-case hex; a byte that is not UTF-8 comes out as \uDCXX). */
static void write_double_quoted(cl_yaml_emitter *e, const unsigned char *s,
                                size_t len) {
  write_indicator(e, "\"", 1, 0, 0);
  for (size_t i = 0; i < len;) {
    size_t w = char_width(s[i]);
    if (w > len - i)
      w = len - i;
    const unsigned char *p = s + i;
    if (!is_printable(p, len - i) || is_bom(p, len - i) ||
        is_break(p, len - i) || p[0] == '"' || p[0] == '\\') {
      static const unsigned char masks[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
      unsigned value = p[0] & masks[w];
      for (size_t k = 1; k < w; ++k)
        value = (value << 6) | (p[k] & 0x3F);
      char esc[16];
      const char *shorthand = NULL;
      switch (value) {
      case 0x00:
        shorthand = "\\0";
        break;
      case 0x07:
        shorthand = "\\a";
        break;
      case 0x08:
        shorthand = "\\b";
        break;
      case 0x09:
        shorthand = "\\t";
        break;
      case 0x0A:
        shorthand = "\\n";
        break;
      case 0x0B:
        shorthand = "\\v";
        break;
      case 0x0C:
        shorthand = "\\f";
        break;
      case 0x0D:
        shorthand = "\\r";
        break;
      case 0x1B:
        shorthand = "\\e";
        break;
      case 0x22:
        shorthand = "\\\"";
        break;
      case 0x5C:
        shorthand = "\\\\";
        break;
      case 0x85:
        shorthand = "\\N";
        break;
      case 0xA0:
        shorthand = "\\_";
        break;
      case 0x2028:
        shorthand = "\\L";
        break;
      case 0x2029:
        shorthand = "\\P";
        break;
      default:
        if (value <= 0xFF)
          snprintf(esc, sizeof esc, "\\x%02X", value);
        else if (value <= 0xFFFF)
          snprintf(esc, sizeof esc, "\\u%04X", value);
        else
          snprintf(esc, sizeof esc, "\\U%08X", value);
        shorthand = esc;
      }
      put(e, shorthand, strlen(shorthand));
    } else {
      put(e, (const char *)p, w);
    }
    i += w;
  }
  write_indicator(e, "\"", 0, 0, 0);
}

/* --- nodes --------------------------------------------------------------- */

/* What the enclosing collection writes before a node: "- " for an item,
 * the indentation (and "? " for a complex key) before a key, ": " before
 * a value. simple: for a key, whether it can be a simple key. Returns
 * whether the node sits in a mapping (libyaml's "mapping context"). */
static int before_node(cl_yaml_emitter *e, int simple) {
  if (e->depth == 0)
    return 0;
  cl_yaml_level *parent = &e->level[e->depth - 1];
  if (!parent->mapping) {
    write_indent(e, parent->indent);
    write_indicator(e, "-", 1, 0, 1);
  } else if (parent->items % 2 == 0) {
    write_indent(e, parent->indent);
    parent->simple_key = simple;
    if (!simple)
      write_indicator(e, "?", 1, 0, 1);
  } else if (parent->simple_key) {
    write_indicator(e, ":", 0, 0, 0);
  } else {
    write_indent(e, parent->indent);
    write_indicator(e, ":", 1, 0, 1);
  }
  parent->items++;
  return 1;
}

/* The indentation of the innermost collection; -1 at the top. */
static int current_indent(const cl_yaml_emitter *e) {
  return e->depth ? e->level[e->depth - 1].indent : -1;
}

static int is_key(const cl_yaml_emitter *e) {
  return e->depth && e->level[e->depth - 1].mapping &&
         e->level[e->depth - 1].items % 2 == 0;
}

void cl_yaml_begin(cl_yaml_emitter *e, cl_buf *out) {
  memset(e, 0, sizeof *e);
  e->out = out;
  e->whitespace = 1;
  e->indention = 1;
  write_indent(e, -1);
  write_indicator(e, "---", 1, 0, 0);
}

void cl_yaml_end(cl_yaml_emitter *e) {
  if (e->depth != 0)
    e->out->failed = 1;
  write_indent(e, -1);
}

void cl_yaml_open(cl_yaml_emitter *e, int mapping) {
  if (e->depth >= CL_YAML_MAX_DEPTH) {
    e->out->failed = 1;
    return;
  }
  /* A collection is never a key here: keys are strings. */
  int parent_indent = current_indent(e);
  int in_mapping = before_node(e, 1);
  /* A sequence that is a mapping's value starts at the key's column
   * ("key:\n- item"); everything else nests two columns deeper. */
  int indentless = !mapping && in_mapping && !e->indention;
  cl_yaml_level *level = &e->level[e->depth++];
  level->mapping = mapping;
  level->indent = parent_indent < 0 ? 0
                  : indentless      ? parent_indent
                                    : parent_indent + 2;
  level->items = 0;
  level->simple_key = 1;
}

void cl_yaml_close(cl_yaml_emitter *e) {
  if (e->depth == 0) {
    e->out->failed = 1;
    return;
  }
  cl_yaml_level *level = &e->level[--e->depth];
  if (level->items == 0) {
    /* An empty collection is written in flow style. */
    write_indicator(e, level->mapping ? "{" : "[", 1, 1, 0);
    write_indicator(e, level->mapping ? "}" : "]", 0, 0, 0);
  } else if (level->mapping && level->items % 2) {
    e->out->failed = 1; /* a key without its value */
  }
}

void cl_yaml_scalar(cl_yaml_emitter *e, const char *value, int plain_ok) {
  /* A byte that is not UTF-8 goes in as the lone surrogate U+DC00+byte,
   * written as \uDCXX in double quotes (text_escape.h). */
  char *text = cl_text_surrogate_escaped(value);
  if (!text) {
    e->out->failed = 1;
    return;
  }
  const unsigned char *s = (const unsigned char *)text;
  size_t len = strlen(text);
  analysis a = analyze(s, len);
  int key = is_key(e);
  int simple = !a.multiline && len <= SIMPLE_KEY_MAX;
  int indent = current_indent(e);
  before_node(e, simple);
  int simple_key_context = key && simple;
  /* Plain where allowed and asked for; an empty simple key is ''. */
  int style = plain_ok && a.plain_allowed && !(len == 0 && simple_key_context)
                  ? 'p'
              : a.single_quoted_allowed ? '\''
                                        : '"';
  int scalar_indent = indent < 0 ? 2 : indent + 2;
  if (plain_ok && style != 'p') {
    /* A key that must be quoted gets the non-specific tag "!", as libyaml
     * marks a scalar it was told may only be read as plain. */
    if (!e->whitespace)
      put(e, " ", 1);
    put(e, "!", 1);
    e->whitespace = 0;
    e->indention = 0;
  }
  if (style == 'p')
    write_plain(e, text, len);
  else if (style == '\'')
    write_single_quoted(e, s, len, scalar_indent);
  else
    write_double_quoted(e, s, len);
  free(text);
}
