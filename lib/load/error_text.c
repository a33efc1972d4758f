/* SPDX-License-Identifier: MIT */
/*
 * error_text.c - the pasted text as the error reader needs it. Users paste
 * what their terminal or log file holds: PowerShell 5.1's `>` writes
 * UTF-16LE with a BOM, Notepad a UTF-8 BOM, `2>&1 | tee` interleaves NUL
 * bytes and colour codes, tqdm rewrites lines with CR, and the legacy
 * Windows console breaks every line at its width, in the middle of a path
 * ("...\torch\lib\cudnn_cnn_in" / "fer64_8.dll"). Each is undone here, in
 * one pass over the bytes and one over the lines, so that a message reads
 * the same however it arrived.
 *
 * A training log can be gigabytes with its traceback at the very end: a
 * text longer than CUDALOAD_ERROR_TEXT_HEAD + CUDALOAD_ERROR_TEXT_TAIL keeps
 * its beginning (start-up messages: "Could not load dynamic library") and
 * its much longer end, and says how much it left out.
 */
#include "load/error_text.h"
#include "cudaload.h"
#include "load/error_words.h"

#include <stdlib.h>
#include <string.h>

typedef enum encoding { UTF8, UTF16LE, UTF16BE } encoding;

/* The encoding of bytes and the length of its BOM. Without a BOM, UTF-16
 * of mostly ASCII text has a zero in nine of ten byte pairs, on one side;
 * UTF-8 text has none (NUL separators are rarer than that). */
static encoding detect(const unsigned char *b, size_t n, size_t *bom) {
  *bom = 0;
  if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
    *bom = 3;
    return UTF8;
  }
  if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
    *bom = 2;
    return UTF16LE;
  }
  if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF) {
    *bom = 2;
    return UTF16BE;
  }
  size_t pairs = (n < 4096 ? n : 4096) / 2, le = 0, be = 0;
  if (pairs < 4)
    return UTF8;
  for (size_t i = 0; i < pairs; ++i) {
    unsigned char lo = b[2 * i], hi = b[2 * i + 1];
    le += hi == 0 && lo != 0;
    be += lo == 0 && hi != 0;
  }
  if (le * 10 >= pairs * 9)
    return UTF16LE;
  if (be * 10 >= pairs * 9)
    return UTF16BE;
  return UTF8;
}

/* --- the byte filter: line ends, NUL, escape sequences ------------------ */

typedef struct filter {
  char *out;
  size_t len;
  int esc; /* 0: text, 1: after ESC, 2: in CSI, 3: in OSC, 4: OSC's ESC */
  int after_cr;
} filter;

static void put(filter *f, unsigned char c) {
  switch (f->esc) {
  case 1:
    f->esc = c == '[' ? 2 : c == ']' ? 3 : 0;
    if (c != '\n')
      return;
    break;
  case 2: /* parameters, then one final byte: "\x1b[1;31m" */
    if (c >= 0x40 && c <= 0x7E)
      f->esc = 0;
    if (c != '\n')
      return;
    f->esc = 0; /* an escape never spans lines: a stray ESC eats nothing */
    break;
  case 3: /* a title or link: ends with BEL or ESC \ */
  case 4:
    if (c == 0x07 || f->esc == 4)
      f->esc = 0;
    else if (c == 0x1B)
      f->esc = 4;
    if (c != '\n')
      return;
    f->esc = 0;
    break;
  default:
    break;
  }
  if (c == 0x1B) {
    f->esc = 1;
    return;
  }
  if (c == '\n' && f->after_cr) {
    f->after_cr = 0;
    return;
  }
  f->after_cr = c == '\r';
  f->out[f->len++] = (char)(c == '\r' || c == '\0' ? '\n' : c);
}

static void put_code_point(filter *f, unsigned long cp) {
  if (cp < 0x80) {
    put(f, (unsigned char)cp);
  } else if (cp < 0x800) {
    put(f, (unsigned char)(0xC0 | (cp >> 6)));
    put(f, (unsigned char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    put(f, (unsigned char)(0xE0 | (cp >> 12)));
    put(f, (unsigned char)(0x80 | ((cp >> 6) & 0x3F)));
    put(f, (unsigned char)(0x80 | (cp & 0x3F)));
  } else {
    put(f, (unsigned char)(0xF0 | (cp >> 18)));
    put(f, (unsigned char)(0x80 | ((cp >> 12) & 0x3F)));
    put(f, (unsigned char)(0x80 | ((cp >> 6) & 0x3F)));
    put(f, (unsigned char)(0x80 | (cp & 0x3F)));
  }
}

/* Decode b[0..n) into the filter. UTF-8 passes byte by byte (every byte
 * the filter acts on is ASCII, which UTF-8 never uses inside a character);
 * UTF-16 is decoded, an unpaired surrogate becoming U+FFFD. */
static void decode(filter *f, const unsigned char *b, size_t n, encoding e) {
  if (e == UTF8) {
    for (size_t i = 0; i < n; ++i)
      put(f, b[i]);
    return;
  }
  int le = e == UTF16LE;
  for (size_t i = 0; i + 1 < n; i += 2) {
    unsigned long u = le ? (unsigned long)(b[i] | b[i + 1] << 8)
                         : (unsigned long)(b[i] << 8 | b[i + 1]);
    if (u >= 0xD800 && u < 0xDC00 && i + 3 < n) {
      unsigned long v = le ? (unsigned long)(b[i + 2] | b[i + 3] << 8)
                           : (unsigned long)(b[i + 2] << 8 | b[i + 3]);
      if (v >= 0xDC00 && v < 0xE000) {
        put_code_point(f, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
        i += 2;
        continue;
      }
    }
    put_code_point(f, u >= 0xD800 && u < 0xE000 ? 0xFFFD : u);
  }
}

/* --- console width ------------------------------------------------------ */

static int wide(unsigned long cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || cp >= 0x1F300;
}

size_t cl_error_text_columns(const char *s, size_t len) {
  const unsigned char *b = (const unsigned char *)s;
  size_t cols = 0;
  for (size_t i = 0; i < len;) {
    unsigned char c = b[i];
    size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    unsigned long cp = c;
    if (n == 3 && i + 2 < len)
      cp = (unsigned long)(c & 0x0F) << 12 |
           (unsigned long)(b[i + 1] & 0x3F) << 6 | (b[i + 2] & 0x3F);
    else if (n == 4)
      cp = 0x10000;
    cols += n > 1 && wide(cp) ? 2 : 1;
    i += n;
  }
  return cols;
}

/* Whether a line a console ended at its width goes on in the next one. It
 * does unless the line ends with a whole library name and the next starts
 * something new (a capital, a digit, a bracket or indentation): a message
 * that happens to fill the width ("... libcudnn.so.8" / "Aborted") keeps
 * its name whole. */
static int continues(const char *line, size_t len, const char *next) {
  if (*next == '\0' || *next == '\n')
    return 0;
  size_t start = len;
  while (start > 0 && !cl_error_word_ends(line[start - 1]))
    --start;
  if (start == len || !cl_error_library_file_name(line + start, len - start))
    return 1;
  char c = *next;
  return !((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '[' ||
           c == '(' || c == ' ' || c == '\t');
}

static int word_char(char c) {
  return cl_error_word_ends(c) == 0 || c == '.';
}

/* Join the lines a console wrapped. Its width is the longest line's when
 * that length is a console's default (80 or 120 columns), or when two
 * different lines reach it and one of them breaks inside a word (a console
 * set to another width: a log repeating one long line is not wrapped);
 * each line of exactly that width continues in the next. Lines are joined
 * as they are: the console kept every character, a space at the break
 * included. */
static void rejoin(cl_error_text *t) {
  size_t widest = 0, at_widest = 0, different = 0, mid_word = 0;
  const char *previous = NULL;
  size_t previous_len = 0;
  for (size_t i = 0; i < t->len;) {
    const char *nl = memchr(t->text + i, '\n', t->len - i);
    size_t end = nl ? (size_t)(nl - t->text) : t->len;
    size_t cols = cl_error_text_columns(t->text + i, end - i);
    if (cols > widest) {
      widest = cols;
      at_widest = different = mid_word = 0;
      previous = NULL;
    }
    if (cols == widest) {
      ++at_widest;
      if (!previous || previous_len != end - i ||
          memcmp(previous, t->text + i, end - i) != 0)
        ++different;
      previous = t->text + i;
      previous_len = end - i;
      mid_word += nl && end > i && word_char(t->text[end - 1]) &&
                  word_char(nl[1]) && nl[1] != '\0';
    }
    i = end + 1;
  }
  if (widest < 60 ||
      (widest != 80 && widest != 120 && (different < 2 || mid_word == 0)))
    return;
  t->console_width = (int)widest;
  size_t w = 0;
  for (size_t i = 0; i < t->len;) {
    const char *nl = memchr(t->text + i, '\n', t->len - i);
    size_t end = nl ? (size_t)(nl - t->text) : t->len;
    int join = nl && cl_error_text_columns(t->text + i, end - i) == widest &&
               continues(t->text + i, end - i, t->text + end + 1);
    memmove(t->text + w, t->text + i, end - i);
    w += end - i;
    if (nl && !join)
      t->text[w++] = '\n';
    t->rejoined += join;
    i = end + 1;
  }
  t->len = w;
  t->text[w] = '\0';
}

/* --- the whole ----------------------------------------------------------- */

int cl_error_text_read(const void *bytes, size_t size, cl_error_text *out) {
  memset(out, 0, sizeof *out);
  const unsigned char *b = bytes;
  size_t bom;
  encoding e = detect(b, size, &bom);
  out->encoding = e == UTF8 ? "UTF-8" : e == UTF16LE ? "UTF-16LE" : "UTF-16BE";
  out->size = size;
  size_t body = size - bom;
  size_t head = body, tail_at = size, tail = 0;
  const size_t max_head = CUDALOAD_ERROR_TEXT_HEAD,
               max_tail = CUDALOAD_ERROR_TEXT_TAIL;
  if (body > max_head + max_tail) {
    head = max_head;
    tail = max_tail;
    tail_at = size - tail;
    if (e != UTF8 && (tail_at - bom) % 2) { /* stay on a code unit */
      ++tail_at;
      --tail;
    }
    out->dropped = tail_at - bom - head;
  }
  /* UTF-16 grows to at most 3 bytes per 2; the join adds one '\n'. */
  size_t room = (e == UTF8 ? head + tail : (head + tail) / 2 * 3) + 2;
  filter f = {malloc(room), 0, 0, 0};
  if (!f.out)
    return CUDALOAD_E_NO_MEMORY;
  decode(&f, b + bom, head, e);
  if (tail) {
    /* Both cut lines left out: half a line reads as another message. */
    char *nl = NULL;
    for (size_t i = f.len; i > 0 && !nl; --i)
      if (f.out[i - 1] == '\n')
        nl = f.out + i - 1;
    if (nl)
      f.len = (size_t)(nl - f.out);
    f.out[f.len++] = '\n';
    size_t tail_start = f.len;
    f.esc = f.after_cr = 0;
    decode(&f, b + tail_at, tail, e);
    nl = memchr(f.out + tail_start, '\n', f.len - tail_start);
    size_t skip = nl ? (size_t)(nl - (f.out + tail_start)) + 1 : 0;
    memmove(f.out + tail_start, f.out + tail_start + skip,
            f.len - tail_start - skip);
    f.len -= skip;
  }
  f.out[f.len] = '\0';
  out->text = f.out;
  out->len = f.len;
  rejoin(out);
  for (size_t i = 0; i < out->len; ++i)
    out->lines += out->text[i] == '\n';
  out->lines += out->len && out->text[out->len - 1] != '\n';
  return 0;
}

void cl_error_text_free(cl_error_text *t) {
  free(t->text);
  memset(t, 0, sizeof *t);
}
