/* SPDX-License-Identifier: MIT */
/*
 * names_store.c - the names search's answers kept across processes
 * (names_store.h). The file is text, one line per library file and kind:
 *
 *   cudaload-names 2
 *   DEVICE INODE SIZE MTIME CTIME COUNT NAME...
 *   r FILTER DEVICE INODE SIZE MTIME CTIME FLAGS COUNT REF...
 *
 * the five stamp fields in lowercase hex (1 to 16 digits; the times as the
 * 64-bit pattern of the signed value), COUNT in decimal, each name after
 * one space, in the characters a search accepts. A line that starts with
 * "r " is a file's references (names_store.h, "References"): FILTER (8 hex
 * digits) says which references were kept, FLAGS (hex) what else the read
 * found, and each REF is [~]NAME[@VERSION@FILE] ("~": a weak one), in
 * the characters of symbol and version names (ref_char). Text keeps the
 * file readable when someone asks what cudaload remembered; the parser is
 * strict, so one byte out of place makes the whole file untrusted rather
 * than half read. Lines are oldest first: a save appends what it added
 * and drops the oldest beyond the bounds.
 */
#include "binary/names_store.h"

#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "cudaload.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "cudaload-names 2\n"
/* The longest name a search returns (binary_names.c's MAX_NAME). */
#define MAX_NAME_LEN 128u

typedef struct stored {
  uint64_t key[5]; /* device, inode, size, mtime, ctime */
  char **names;
  size_t count;
  int added; /* since the last save */
  /* A references line: its filter and flags, and refs[0 .. count) instead
   * of names. */
  int is_refs;
  uint32_t filter;
  unsigned flags;
  cl_symbol_ref *refs;
} stored;

struct cl_names_store {
  char *dir;
  int loaded;
  stored *entries;
  size_t count, capacity;
};

static void key_of(const cl_file_stamp *s, uint64_t key[5]) {
  key[0] = s->device;
  key[1] = s->inode;
  key[2] = s->size;
  key[3] = (uint64_t)s->mtime_ns;
  key[4] = (uint64_t)s->ctime_ns;
}

static void stored_free(stored *e) {
  for (size_t i = 0; e->names && i < e->count; ++i)
    free(e->names[i]);
  free(e->names);
  for (size_t i = 0; e->refs && i < e->count; ++i) {
    free(e->refs[i].name);
    free(e->refs[i].version);
    free(e->refs[i].file);
  }
  free(e->refs);
  memset(e, 0, sizeof *e);
}

static void clear(cl_names_store *s) {
  for (size_t i = 0; i < s->count; ++i)
    stored_free(&s->entries[i]);
  free(s->entries);
  s->entries = NULL;
  s->count = s->capacity = 0;
}

cl_names_store *cl_names_store_open(const char *dir) {
  cl_names_store *s = calloc(1, sizeof *s);
  if (s && dir && !(s->dir = cl_strdup(dir))) {
    free(s);
    return NULL;
  }
  return s;
}

/* CUDA_CACHE_DISABLE's rule: set to anything but empty or 0. */
static int switched_off(void) {
  char *v = cl_os_getenv("CUDALOAD_CACHE_DISABLE");
  int off = v && v[0] && strcmp(v, "0") != 0;
  free(v);
  return off;
}

cl_names_store *cl_names_store_open_default(void) {
  if (switched_off())
    return NULL;
  char *dir = cl_os_getenv("CUDALOAD_CACHE_PATH");
  if (dir && !dir[0]) {
    free(dir);
    dir = NULL;
  }
  /* A relative folder would follow the current folder from run to run. */
  if (dir && !cl_os_path_is_absolute(dir)) {
    free(dir);
    return NULL;
  }
  if (!dir)
    dir = cl_os_user_cache_dir();
  cl_names_store *s = dir ? cl_names_store_open(dir) : NULL;
  free(dir);
  return s;
}

void cl_names_store_free(cl_names_store *s) {
  if (!s)
    return;
  clear(s);
  free(s->dir);
  free(s);
}

/* --- the text ------------------------------------------------------------- */

static int name_char(char c) {
  return cl_ascii_is_alnum(c) || c == '_' || c == '.' || c == '-' || c == '+';
}

static int good_name(const char *name, size_t len) {
  if (len == 0 || len > MAX_NAME_LEN)
    return 0;
  for (size_t i = 0; i < len; ++i)
    if (!name_char(name[i]))
      return 0;
  return 1;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

static int read_hex_digits(const char **p, const char *end, size_t max,
                           uint64_t *out) {
  uint64_t v = 0;
  size_t digits = 0;
  int d;
  while (*p < end && (d = hex_value(**p)) >= 0) {
    if (++digits > max)
      return -1;
    v = v << 4 | (uint64_t)d;
    ++*p;
  }
  if (!digits || *p >= end || **p != ' ')
    return -1;
  ++*p;
  *out = v;
  return 0;
}

/* A number at *p in hex (1 to 16 digits) followed by a space. */
static int read_hex(const char **p, const char *end, uint64_t *out) {
  return read_hex_digits(p, end, 16, out);
}

static int read_count(const char **p, const char *end, size_t *out) {
  size_t v = 0, digits = 0;
  while (*p < end && **p >= '0' && **p <= '9') {
    if (++digits > 5)
      return -1;
    v = v * 10 + (size_t)(**p - '0');
    ++*p;
  }
  if (!digits || v > (CL_NAMES_STORE_MAX_NAMES > CL_NAMES_STORE_MAX_REFS
                          ? CL_NAMES_STORE_MAX_NAMES
                          : CL_NAMES_STORE_MAX_REFS))
    return -1;
  *out = v;
  return 0;
}

/* The characters of a symbol's, a version's and a file's name that a
 * references line keeps; a reference with any other is not kept (its
 * file is read again by the next process). */
static int ref_char(char c) {
  return cl_ascii_is_alnum(c) || c == '_' || c == '.' || c == '-' || c == '+' ||
         c == '$';
}

static int good_ref_part(const char *text, size_t len) {
  if (len == 0 || len > CL_NAMES_STORE_MAX_REF_NAME)
    return 0;
  for (size_t i = 0; i < len; ++i)
    if (!ref_char(text[i]))
      return 0;
  return 1;
}

static int good_ref(const cl_symbol_ref *r) {
  return r->name && good_ref_part(r->name, strlen(r->name)) &&
         (!r->version) == (!r->file) &&
         (!r->version || (good_ref_part(r->version, strlen(r->version)) &&
                          good_ref_part(r->file, strlen(r->file))));
}

/* One part of a reference token at *p, ending at '@', ' ' or '\n'. */
static int read_ref_part(const char **p, const char *end, char **out) {
  const char *start = *p;
  while (*p < end && ref_char(**p))
    ++*p;
  size_t len = (size_t)(*p - start);
  /* Every character was checked on the way (good_ref_part's test): its
   * length is all that is left to check. */
  if (len == 0 || len > CL_NAMES_STORE_MAX_REF_NAME ||
      !(*out = cl_strndup(start, len)))
    return -1;
  return 0;
}

static int read_ref(const char **p, const char *end, cl_symbol_ref *r) {
  memset(r, 0, sizeof *r);
  if (*p < end && **p == '~') {
    r->weak = 1;
    ++*p;
  }
  if (read_ref_part(p, end, &r->name))
    return -1;
  if (*p < end && **p == '@') {
    ++*p;
    if (read_ref_part(p, end, &r->version) || *p >= end || **p != '@')
      return -1;
    ++*p;
    if (read_ref_part(p, end, &r->file))
      return -1;
  }
  return 0;
}

/* A number at *p in hex (1 to max digits) followed by a space. */
static int read_hex_digits(const char **p, const char *end, size_t max,
                           uint64_t *out);

static int push(cl_names_store *s, stored *e) {
  if (cl_reserve((void **)&s->entries, &s->capacity, s->count + 1,
                 sizeof *s->entries))
    return -1;
  s->entries[s->count++] = *e;
  return 0;
}

/* A references line after its "r ": filter, stamp, flags, count, refs. */
static int read_refs_line(const char **p, const char *end, stored *e) {
  uint64_t filter, flags;
  e->is_refs = 1;
  if (read_hex_digits(p, end, 8, &filter))
    return -1;
  e->filter = (uint32_t)filter;
  for (int k = 0; k < 5; ++k)
    if (read_hex(p, end, &e->key[k]))
      return -1;
  if (read_hex_digits(p, end, 2, &flags))
    return -1;
  e->flags = (unsigned)flags;
  size_t count;
  if (read_count(p, end, &count) || count > CL_NAMES_STORE_MAX_REFS)
    return -1;
  if (count && !(e->refs = calloc(count, sizeof *e->refs)))
    return -1;
  for (size_t i = 0; i < count; ++i) {
    if (*p >= end || **p != ' ')
      return -1;
    ++*p;
    e->count = i + 1;
    if (read_ref(p, end, &e->refs[i]))
      return -1;
  }
  if (*p >= end || **p != '\n')
    return -1;
  ++*p;
  return 0;
}

/* One line from *p (which it passes) into e. */
static int read_line(const char **p, const char *end, stored *e) {
  memset(e, 0, sizeof *e);
  if (end - *p >= 2 && (*p)[0] == 'r' && (*p)[1] == ' ') {
    *p += 2;
    return read_refs_line(p, end, e);
  }
  for (int k = 0; k < 5; ++k)
    if (read_hex(p, end, &e->key[k]))
      return -1;
  size_t count;
  if (read_count(p, end, &count) || count > CL_NAMES_STORE_MAX_NAMES)
    return -1;
  if (count && !(e->names = calloc(count, sizeof *e->names)))
    return -1;
  for (size_t i = 0; i < count; ++i) {
    if (*p >= end || **p != ' ')
      return -1;
    const char *start = ++*p;
    while (*p < end && name_char(**p))
      ++*p;
    size_t len = (size_t)(*p - start);
    if (!good_name(start, len) || !(e->names[i] = cl_strndup(start, len)))
      return -1;
    e->count = i + 1;
  }
  if (*p >= end || **p != '\n')
    return -1;
  ++*p;
  return 0;
}

int cl_names_store_parse(cl_names_store *s, const char *text, size_t len) {
  clear(s);
  size_t hlen = sizeof HEADER - 1;
  if (!text || len < hlen || len > CL_NAMES_STORE_MAX_BYTES ||
      memcmp(text, HEADER, hlen) != 0)
    return -1;
  const char *p = text + hlen, *end = text + len;
  while (p < end) {
    stored e;
    memset(&e, 0, sizeof e);
    if (s->count >= CL_NAMES_STORE_MAX_ENTRIES || read_line(&p, end, &e) ||
        push(s, &e)) {
      stored_free(&e);
      clear(s);
      return -1;
    }
  }
  return 0;
}

/* The file as it is now, into s; an unreadable, untrusted or malformed
 * file leaves s empty. */
static void read_store(cl_names_store *s) {
  clear(s);
  if (!s->dir)
    return;
  char *path = cl_path_join(s->dir, CL_NAMES_STORE_FILE);
  char *text = NULL;
  size_t len = 0;
  if (path && cl_os_private_file_read(path, CL_NAMES_STORE_MAX_BYTES, &text,
                                      &len) == CUDALOAD_OK)
    (void)cl_names_store_parse(s, text, len);
  free(text);
  free(path);
}

static void ensure_loaded(cl_names_store *s) {
  if (s->loaded)
    return;
  s->loaded = 1;
  read_store(s); /* sets no error: an unreadable store is an empty one */
}

/* --- questions ------------------------------------------------------------ */

/* The entry of key of one kind: names (is_refs 0), or references kept by
 * filter. */
static stored *lookup(cl_names_store *s, const uint64_t key[5], int is_refs,
                      uint32_t filter) {
  for (size_t i = s->count; i-- > 0;)
    if (s->entries[i].is_refs == is_refs &&
        (!is_refs || s->entries[i].filter == filter) &&
        memcmp(s->entries[i].key, key, sizeof s->entries[i].key) == 0)
      return &s->entries[i];
  return NULL;
}

/* The file system's timestamp granularity, in the stamp's units, as the
 * stamp's own times show it: the largest power of ten, up to a second,
 * that divides both (a file system that keeps nanoseconds shows digits
 * there, exFAT's 10 ms stamps end in 7 zeros); whole seconds are taken
 * for FAT's two, the coarsest there is. Asking the file system's type
 * instead would cost a call per file and still not tell what an NFS
 * server or a FUSE file system keeps. A stamp of a fine file system that
 * happens to end in zeros only makes the rule stricter for that file. */
static int64_t granularity_of(const cl_file_stamp *stamp) {
  int64_t grain = 1;
  while (grain < CL_FILE_TIME_SECOND && stamp->mtime_ns % (grain * 10) == 0 &&
         stamp->ctime_ns % (grain * 10) == 0)
    grain *= 10;
  return grain >= CL_FILE_TIME_SECOND ? 2 * CL_FILE_TIME_SECOND : grain;
}

int cl_names_store_settled(const cl_file_stamp *stamp, int64_t when) {
  int64_t margin = granularity_of(stamp) +
                   CL_NAMES_STORE_CLOCK_SLACK_SECONDS * CL_FILE_TIME_SECOND;
  if (when < INT64_MIN + margin)
    return 0;
  int64_t limit = when - margin;
  return stamp->mtime_ns <= limit && stamp->ctime_ns <= limit;
}

int cl_names_store_find(cl_names_store *s, const cl_file_stamp *stamp,
                        int64_t now, char *const **names, size_t *count) {
  if (!s || !cl_names_store_settled(stamp, now))
    return 0;
  ensure_loaded(s);
  uint64_t key[5];
  key_of(stamp, key);
  stored *e = lookup(s, key, 0, 0);
  if (!e)
    return 0;
  *names = e->names;
  *count = e->count;
  return 1;
}

void cl_names_store_add(cl_names_store *s, const cl_file_stamp *stamp,
                        int64_t searched_at, char *const *names, size_t count) {
  if (!s || count > CL_NAMES_STORE_MAX_NAMES ||
      !cl_names_store_settled(stamp, searched_at))
    return;
  for (size_t i = 0; i < count; ++i)
    if (!good_name(names[i], strlen(names[i])))
      return;
  ensure_loaded(s);
  stored e;
  memset(&e, 0, sizeof e);
  key_of(stamp, e.key);
  if (lookup(s, e.key, 0, 0))
    return;
  e.added = 1;
  if (count && !(e.names = calloc(count, sizeof *e.names)))
    return;
  for (size_t i = 0; i < count; ++i) {
    if (!(e.names[i] = cl_strdup(names[i]))) {
      stored_free(&e);
      return;
    }
    e.count = i + 1;
  }
  if (push(s, &e))
    stored_free(&e);
}

int cl_names_store_find_refs(cl_names_store *s, const cl_file_stamp *stamp,
                             int64_t now, uint32_t filter, unsigned *flags,
                             const cl_symbol_ref **refs, size_t *count) {
  if (!s || !cl_names_store_settled(stamp, now))
    return 0;
  ensure_loaded(s);
  uint64_t key[5];
  key_of(stamp, key);
  stored *e = lookup(s, key, 1, filter);
  if (!e)
    return 0;
  *flags = e->flags;
  *refs = e->refs;
  *count = e->count;
  return 1;
}

void cl_names_store_add_refs(cl_names_store *s, const cl_file_stamp *stamp,
                             int64_t searched_at, uint32_t filter,
                             unsigned flags, const cl_symbol_ref *refs,
                             size_t count) {
  if (!s || count > CL_NAMES_STORE_MAX_REFS ||
      !cl_names_store_settled(stamp, searched_at))
    return;
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!good_ref(&refs[i]))
      return;
    bytes +=
        strlen(refs[i].name) + 3 +
        (refs[i].version ? strlen(refs[i].version) + strlen(refs[i].file) + 2
                         : 0);
  }
  if (bytes > CL_NAMES_STORE_MAX_REF_LINE)
    return;
  ensure_loaded(s);
  stored e;
  memset(&e, 0, sizeof e);
  key_of(stamp, e.key);
  if (lookup(s, e.key, 1, filter))
    return;
  e.added = 1;
  e.is_refs = 1;
  e.filter = filter;
  e.flags = flags & 0xffu;
  if (count && !(e.refs = calloc(count, sizeof *e.refs)))
    return;
  for (size_t i = 0; i < count; ++i) {
    cl_symbol_ref *r = &e.refs[i];
    e.count = i + 1;
    r->weak = refs[i].weak;
    if (!(r->name = cl_strdup(refs[i].name)) ||
        (refs[i].version && (!(r->version = cl_strdup(refs[i].version)) ||
                             !(r->file = cl_strdup(refs[i].file))))) {
      stored_free(&e);
      return;
    }
  }
  if (push(s, &e))
    stored_free(&e);
}

/* --- writing -------------------------------------------------------------- */

static void put_refs_line(cl_buf *b, const stored *e) {
  cl_buf_printf(b, "r %08x %llx %llx %llx %llx %llx %x %u", (unsigned)e->filter,
                (unsigned long long)e->key[0], (unsigned long long)e->key[1],
                (unsigned long long)e->key[2], (unsigned long long)e->key[3],
                (unsigned long long)e->key[4], e->flags, (unsigned)e->count);
  for (size_t i = 0; i < e->count; ++i) {
    const cl_symbol_ref *r = &e->refs[i];
    cl_buf_printf(b, " %s%s", r->weak ? "~" : "", r->name);
    if (r->version)
      cl_buf_printf(b, "@%s@%s", r->version, r->file);
  }
  cl_buf_puts(b, "\n");
}

static void put_line(cl_buf *b, const stored *e) {
  if (e->is_refs) {
    put_refs_line(b, e);
    return;
  }
  cl_buf_printf(b, "%llx %llx %llx %llx %llx %u", (unsigned long long)e->key[0],
                (unsigned long long)e->key[1], (unsigned long long)e->key[2],
                (unsigned long long)e->key[3], (unsigned long long)e->key[4],
                (unsigned)e->count);
  for (size_t i = 0; i < e->count; ++i) {
    cl_buf_puts(b, " ");
    cl_buf_puts(b, e->names[i]);
  }
  cl_buf_puts(b, "\n");
}

/* An entry of the file on disk that what this run added makes stale: the
 * same key, or the same file (device and inode) since changed. */
static int replaced(const cl_names_store *s, const stored *old) {
  for (size_t i = 0; i < s->count; ++i)
    if (s->entries[i].added && s->entries[i].is_refs == old->is_refs &&
        s->entries[i].key[0] == old->key[0] &&
        s->entries[i].key[1] == old->key[1])
      return 1;
  return 0;
}

int cl_names_store_save(cl_names_store *s) {
  if (!s || !s->dir)
    return 0;
  size_t added = 0;
  for (size_t i = 0; i < s->count; ++i)
    added += s->entries[i].added != 0;
  if (!added)
    return 0;
  /* What other processes wrote since this one read the file is kept. The
   * store's reads and writes set no error: a store that cannot be written
   * only costs the next run a search. */
  cl_names_store *now = cl_names_store_open(s->dir);
  const stored **order = NULL;
  size_t n = 0, cap = 0;
  int written = 0;
  if (now) {
    now->loaded = 1;
    read_store(now);
    if (!cl_reserve((void **)&order, &cap, now->count + added + 1,
                    sizeof *order)) {
      for (size_t i = 0; i < now->count; ++i)
        if (!replaced(s, &now->entries[i]))
          order[n++] = &now->entries[i];
      for (size_t i = 0; i < s->count; ++i)
        if (s->entries[i].added)
          order[n++] = &s->entries[i];
    } else {
      n = 0;
    }
  }
  /* The newest lines that fit the bounds. */
  cl_buf lines = CL_BUF_INIT;
  size_t first = n, bytes = sizeof HEADER - 1;
  while (first > 0 && n - first < CL_NAMES_STORE_MAX_ENTRIES) {
    cl_buf one = CL_BUF_INIT;
    put_line(&one, order[first - 1]);
    size_t len = one.len;
    cl_buf_free(&one);
    if (bytes + len > CL_NAMES_STORE_MAX_BYTES)
      break;
    bytes += len;
    --first;
  }
  if (order && n) {
    cl_buf_puts(&lines, HEADER);
    for (size_t i = first; i < n; ++i)
      put_line(&lines, order[i]);
    if (!lines.failed &&
        cl_os_private_file_replace(s->dir, CL_NAMES_STORE_FILE, lines.data,
                                   lines.len) == CUDALOAD_OK)
      written = 1;
  }
  cl_buf_free(&lines);
  free(order);
  cl_names_store_free(now);
  for (size_t i = 0; i < s->count; ++i)
    s->entries[i].added = 0;
  return written;
}
