/* SPDX-License-Identifier: MIT */
/* distinfo.c - versions from wheels' *.dist-info (their folders' names,
 * METADATA and RECORD). */
#include "scan/distinfo.h"
#include "scan/catalog.h"
#include "scan/catalog_wheels.h"
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "common/reason_words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* METADATA headers come first and are short; RECORD of a CUDA wheel lists a
 * few dozen files, torch's a few thousand. Both caps are far above that. */
#define CL_METADATA_HEAD 16384
#define CL_RECORD_MAX (8u << 20)

static const char *line_end(const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl ? nl : end;
}

static char *trimmed_copy(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t'))
    ++p;
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
    --end;
  return cl_strndup(p, (size_t)(end - p));
}

int cl_metadata_parse(const char *text, size_t len, char **name,
                      char **version) {
  *name = *version = NULL;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = line_end(p, end);
    if (eol == p || (eol == p + 1 && *p == '\r'))
      break; /* the headers end at the first blank line */
    if (!*name && (size_t)(eol - p) > 5 && cl_starts_with_nocase(p, "Name:"))
      *name = trimmed_copy(p + 5, eol);
    else if (!*version && (size_t)(eol - p) > 8 &&
             cl_starts_with_nocase(p, "Version:"))
      *version = trimmed_copy(p + 8, eol);
    p = eol < end ? eol + 1 : end;
  }
  if (*name && *version && **name && **version)
    return CUDALOAD_OK;
  free(*name);
  free(*version);
  *name = *version = NULL;
  return CUDALOAD_E_MALFORMED;
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

/* One Requires-Dist value, from p to eol: "name [extras] (spec) ; marker"
 * or "name spec; marker" (PEP 508, as pip writes METADATA). */
static int requires_line(const char *p, const char *eol,
                         cl_requires_visitor visit, void *opaque) {
  cl_requirement_line line;
  memset(&line, 0, sizeof line);
  while (p < eol && is_space(*p))
    ++p;
  line.name = p;
  while (p < eol &&
         (cl_ascii_is_alnum(*p) || *p == '-' || *p == '_' || *p == '.'))
    ++p;
  line.name_len = (size_t)(p - line.name);
  if (!line.name_len)
    return 0; /* not a requirement we can read: skipped */
  while (p < eol && is_space(*p))
    ++p;
  line.extras = p;
  if (p < eol && *p == '[') { /* the extras it asks of that distribution */
    const char *close = memchr(p, ']', (size_t)(eol - p));
    line.extras = p + 1;
    line.extras_len = close ? (size_t)(close - line.extras) : 0;
    p = close ? close + 1 : eol;
  }
  const char *semicolon = memchr(p, ';', (size_t)(eol - p));
  const char *spec_end = semicolon ? semicolon : eol;
  while (p < spec_end && (is_space(*p) || *p == '('))
    ++p;
  line.specifier = p;
  const char *q = spec_end;
  while (q > p && (is_space(q[-1]) || q[-1] == ')'))
    --q;
  line.spec_len = (size_t)(q - p);
  const char *marker = semicolon ? semicolon + 1 : eol;
  while (marker < eol && is_space(*marker))
    ++marker;
  const char *marker_end = eol;
  while (marker_end > marker && is_space(marker_end[-1]))
    --marker_end;
  line.marker = marker;
  line.marker_len = (size_t)(marker_end - marker);
  return visit(&line, opaque);
}

int cl_requires_dist_parse(const char *text, size_t len,
                           cl_requires_visitor visit, void *opaque) {
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *eol = line_end(p, end);
    if (eol == p || (eol == p + 1 && *p == '\r'))
      break; /* the headers end at the first blank line */
    if ((size_t)(eol - p) > 14 && cl_starts_with_nocase(p, "Requires-Dist:")) {
      int rc = requires_line(p + 14, eol, visit, opaque);
      if (rc)
        return rc;
    }
    p = eol < end ? eol + 1 : end;
  }
  return 0;
}

/* The size column of a RECORD row after the path (",sha256=...,1234"):
 * the field after the next comma; -1 when there is none or it is no
 * number. */
static long long row_size(const char *rest, const char *end) {
  const char *comma = memchr(rest, ',', (size_t)(end - rest));
  if (!comma)
    return -1;
  const char *p = comma + 1, *q = end;
  while (q > p && (q[-1] == '\r' || q[-1] == ' '))
    --q;
  if (p == q || q - p > 18)
    return -1;
  long long size = 0;
  for (; p < q; ++p) {
    if (!cl_ascii_is_digit(*p))
      return -1;
    size = size * 10 + (*p - '0');
  }
  return size;
}

int cl_record_parse_rows(const char *text, size_t len,
                         cl_record_row_visitor visit, void *opaque) {
  size_t pos = 0;
  while (pos < len) {
    const char *line = text + pos;
    const char *nl = memchr(line, '\n', len - pos);
    size_t line_len = nl ? (size_t)(nl - line) : len - pos;
    size_t start = 0, stop, after;
    if (line_len > 0 && line[0] == '"') {
      /* A quoted path; "" inside stands for a quote, which no library name
       * contains, so such paths are cut there rather than unescaped. */
      const char *quote = memchr(line + 1, '"', line_len - 1);
      start = 1;
      stop = quote ? (size_t)(quote - line) : 1;
      after = quote ? stop + 1 : line_len;
    } else {
      const char *comma = memchr(line, ',', line_len);
      stop = comma ? (size_t)(comma - line) : line_len;
      after = stop;
    }
    /* after: at the comma that ends the path field (the hash follows). */
    long long size = after < line_len && line[after] == ','
                         ? row_size(line + after + 1, line + line_len)
                         : -1;
    if (stop > start && visit(line + start, stop - start, size, opaque))
      break;
    pos += line_len + 1;
  }
  return CUDALOAD_OK;
}

typedef struct path_only {
  cl_record_visitor visit;
  void *opaque;
} path_only;

static int visit_path_only(const char *path, size_t len, long long size,
                           void *opaque) {
  (void)size;
  path_only *p = opaque;
  return p->visit(path, len, p->opaque);
}

int cl_record_parse(const char *text, size_t len, cl_record_visitor visit,
                    void *opaque) {
  path_only p = {visit, opaque};
  return cl_record_parse_rows(text, len, visit_path_only, &p);
}

/* "nvidia-cudnn-cu12" -> 12; 0 when the name has no -cuNN suffix. */
static int cuda_major_of_distribution(const char *name) {
  size_t n = strlen(name);
  size_t digits = 0;
  while (digits < n && name[n - 1 - digits] >= '0' &&
         name[n - 1 - digits] <= '9')
    ++digits;
  if (digits == 0 || digits > 2 || n < digits + 3)
    return 0;
  const char *cu = name + n - digits - 2;
  if ((cu[0] != 'c' && cu[0] != 'C') || (cu[1] != 'u' && cu[1] != 'U') ||
      (cu[-1] != '-' && cu[-1] != '_'))
    return 0;
  return atoi(name + n - digits);
}

typedef struct record_context {
  cl_distinfo_index *index;
  size_t distribution;
  int failed;
} record_context;

static int keep_record_path(const char *path, size_t len, long long size,
                            void *opaque) {
  record_context *rc = opaque;
  const char *base = path + len;
  while (base > path && base[-1] != '/' && base[-1] != '\\')
    --base;
  char name[256];
  size_t nlen = (size_t)(path + len - base);
  if (nlen == 0 || nlen >= sizeof name)
    return 0;
  memcpy(name, base, nlen);
  name[nlen] = '\0';
  cl_name_match m;
  if (!cl_catalog_match(name, CL_NAMING_LINUX, &m) &&
      !cl_catalog_match(name, CL_NAMING_WINDOWS, &m))
    return 0;
  cl_distinfo_index *index = rc->index;
  if (cl_reserve((void **)&index->files, &index->file_capacity,
                 index->file_count + 1, sizeof(cl_distinfo_file))) {
    rc->failed = 1;
    return 1;
  }
  char *copy = cl_strndup(path, len);
  if (!copy) {
    rc->failed = 1;
    return 1;
  }
  index->files[index->file_count].relpath = copy;
  index->files[index->file_count].distribution = rc->distribution;
  index->files[index->file_count].size = size;
  index->file_count++;
  return 0;
}

static int is_nvidia_distinfo(const char *name, const void *arg) {
  (void)arg;
  return cl_starts_with_nocase(name, "nvidia") &&
         cl_ends_with(name, ".dist-info");
}

static int by_key_then_position(const void *a, const void *b) {
  const cl_distinfo_key *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c)
    return c;
  return x->file < y->file ? -1 : x->file > y->file;
}

/* The files sorted by their RECORD path and by their base name; position
 * breaks ties, so the first file RECORD order lists wins, as it did when
 * the lookups read the files in order. */
static void sort_keys(cl_distinfo_index *index) {
  size_t n = index->file_count;
  if (n == 0 || n > SIZE_MAX / sizeof(cl_distinfo_key))
    return;
  index->by_path = malloc(n * sizeof(cl_distinfo_key));
  index->by_name = malloc(n * sizeof(cl_distinfo_key));
  if (!index->by_path || !index->by_name) {
    free(index->by_path);
    free(index->by_name);
    index->by_path = index->by_name = NULL;
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    index->by_path[i].key = index->files[i].relpath;
    index->by_name[i].key = cl_path_basename(index->files[i].relpath);
    index->by_path[i].file = index->by_name[i].file = i;
  }
  qsort(index->by_path, n, sizeof(cl_distinfo_key), by_key_then_position);
  qsort(index->by_name, n, sizeof(cl_distinfo_key), by_key_then_position);
}

int cl_distinfo_folder_name_parse(const char *folder_name, char **name,
                                  char **version) {
  *name = *version = NULL;
  size_t len = strlen(folder_name);
  static const char suffix[] = ".dist-info";
  if (len < sizeof suffix || !cl_ends_with(folder_name, suffix))
    return 0;
  len -= sizeof suffix - 1;
  /* The wheel spec writes a '-' in either part as '_', so the one '-' left
   * splits them; a name with more is not one pip wrote. */
  const char *dash = memchr(folder_name, '-', len);
  if (!dash || dash == folder_name ||
      memchr(dash + 1, '-', len - (size_t)(dash + 1 - folder_name)) ||
      dash + 1 == folder_name + len || !cl_ascii_is_digit(dash[1]))
    return 0;
  *name = cl_strndup(folder_name, (size_t)(dash - folder_name));
  *version = cl_strndup(dash + 1, len - (size_t)(dash + 1 - folder_name));
  if (*name && *version)
    return 1;
  free(*name);
  free(*version);
  *name = *version = NULL;
  return 0;
}

/* Add one dist-info folder to the index, named by its folder where the
 * name tells (METADATA waits for a lookup that lands on it, settle()). */
static int add_distribution(cl_distinfo_index *index, const char *dir,
                            const char *folder_name) {
  if (cl_reserve((void **)&index->distributions, &index->distribution_capacity,
                 index->distribution_count + 1, sizeof(cl_distribution)))
    return CUDALOAD_E_NO_MEMORY;
  cl_distribution *d = &index->distributions[index->distribution_count];
  memset(d, 0, sizeof *d);
  d->metadata_path = cl_path_join(dir, "METADATA");
  if (!d->metadata_path)
    return CUDALOAD_E_NO_MEMORY;
  index->distribution_count++;
  if (cl_distinfo_folder_name_parse(folder_name, &d->name, &d->version)) {
    d->metadata_state = 1;
    d->cuda_major = cuda_major_of_distribution(d->name);
  }
  return CUDALOAD_OK;
}

/* Read every RECORD of the index, once, in folder order. A RECORD that
 * cannot be read only costs the version of its files. */
static void load_records(cl_distinfo_index *index) {
  if (index->records_state != 0)
    return;
  int failed = 0;
  for (size_t i = 0; i < index->distribution_count && !failed; ++i) {
    char *dir = cl_path_dirname(index->distributions[i].metadata_path);
    char *record_path = dir ? cl_path_join(dir, "RECORD") : NULL;
    char *text = NULL;
    size_t len;
    record_context ctx = {index, i, 0};
    if (!record_path)
      failed = 1;
    else if (cl_read_file_head_quiet(record_path, CL_RECORD_MAX, &text, &len) ==
             0)
      cl_record_parse_rows(text, len, keep_record_path, &ctx);
    failed = failed || ctx.failed;
    free(text);
    free(record_path);
    free(dir);
  }
  index->records_state = failed ? -1 : 1;
  if (!failed)
    sort_keys(index);
}

/* Read d's METADATA, once, unless its folder's name told its name and
 * version: 1 when they are known. Sets no error. */
static int settle(cl_distribution *d) {
  if (d->metadata_state == 0) {
    char *text = NULL;
    size_t len;
    d->metadata_read = 1;
    d->metadata_state =
        cl_read_file_head_quiet(d->metadata_path, CL_METADATA_HEAD, &text,
                                &len) == 0 &&
                cl_metadata_parse(text, len, &d->name, &d->version) == 0
            ? 1
            : -1;
    free(text);
    if (d->metadata_state == 1)
      d->cuda_major = cuda_major_of_distribution(d->name);
  }
  return d->metadata_state == 1;
}

int cl_distinfo_load(const char *folder, cl_distinfo_index *out) {
  memset(out, 0, sizeof *out);
  out->folder = cl_strdup(folder);
  if (!out->folder)
    return CUDALOAD_E_NO_MEMORY;
  /* An unreadable folder only hides versions: an answer, no error. */
  /* Sorted, so that when two dist-infos claim one file the choice does not
   * depend on the order the file system lists them in. */
  cl_name_list l;
  int rc = cl_name_list_read(folder, is_nvidia_distinfo, NULL, NULL, &l);
  for (size_t i = 0; i < l.count && rc == CUDALOAD_OK; ++i) {
    char *dir = cl_path_join(folder, l.names[i]);
    rc = dir ? add_distribution(out, dir, l.names[i]) : CUDALOAD_E_NO_MEMORY;
    free(dir);
  }
  cl_name_list_free(&l);
  return rc;
}

void cl_distinfo_free(cl_distinfo_index *index) {
  for (size_t i = 0; i < index->distribution_count; ++i) {
    free(index->distributions[i].name);
    free(index->distributions[i].version);
    free(index->distributions[i].metadata_path);
  }
  for (size_t i = 0; i < index->file_count; ++i)
    free(index->files[i].relpath);
  free(index->distributions);
  free(index->files);
  free(index->by_path);
  free(index->by_name);
  free(index->folder);
  memset(index, 0, sizeof *index);
}

/* The distribution of the first file (in RECORD order) whose key is key
 * and whose distribution's METADATA is good: through the equal keys of the
 * sorted array (lowest position first), or, without one, reading the files
 * in order. */
static const cl_distribution *lookup(cl_distinfo_index *index, int by_name,
                                     const char *key) {
  load_records(index);
  if (index->records_state != 1)
    return NULL;
  const cl_distinfo_key *sorted = by_name ? index->by_name : index->by_path;
  if (!sorted) {
    for (size_t i = 0; i < index->file_count; ++i) {
      const char *path = index->files[i].relpath;
      cl_distribution *d = &index->distributions[index->files[i].distribution];
      if (strcmp(by_name ? cl_path_basename(path) : path, key) == 0 &&
          settle(d))
        return d;
    }
    return NULL;
  }
  size_t low = 0, high = index->file_count; /* first key >= key */
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (strcmp(sorted[mid].key, key) < 0)
      low = mid + 1;
    else
      high = mid;
  }
  for (; low < index->file_count && strcmp(sorted[low].key, key) == 0; ++low) {
    cl_distribution *d =
        &index->distributions[index->files[sorted[low].file].distribution];
    if (settle(d))
      return d;
  }
  return NULL;
}

const cl_distribution *cl_distinfo_by_path(cl_distinfo_index *index,
                                           const char *relpath) {
  return lookup(index, 0, relpath);
}

const cl_distribution *cl_distinfo_by_name(cl_distinfo_index *index,
                                           const char *file_name) {
  return lookup(index, 1, file_name);
}

const cl_distribution *cl_distinfo_by_wheel(cl_distinfo_index *index,
                                            const cl_name_match *m,
                                            const char *wheel_folder,
                                            int *cuda_major) {
  const cl_distribution *owner = NULL;
  *cuda_major = 0;
  for (size_t i = 0; i < index->distribution_count; ++i) {
    cl_distribution *d = &index->distributions[i];
    /* A folder whose name does not tell is named by its METADATA. */
    if (!settle(d))
      continue;
    const cl_catalog_wheel *w = cl_catalog_wheel_ships(
        d->name, m->entry->family, m->major, m->cuda_major, wheel_folder);
    if (!w)
      continue;
    if (owner) {
      *cuda_major = 0;
      return NULL; /* two wheels could have installed it: RECORD tells */
    }
    owner = d;
    *cuda_major = w->cuda_major;
  }
  return owner;
}

/* The component a distribution's dist-info folder names, without its CUDA
 * major: "nvidia_nccl_cu12-2.21.5.dist-info" and "nvidia_nccl_cu11-..."
 * are both "nvidia_nccl"; "nvidia_cuda_runtime-13.0.96.dist-info" and
 * "nvidia_cuda_runtime_cu13-..." both "nvidia_cuda_runtime". */
static void component_of(const char *metadata_path, char *out, size_t size) {
  char *dir = cl_path_dirname(metadata_path);
  const char *base = dir ? cl_path_basename(dir) : "";
  size_t n = 0;
  for (; base[n] && base[n] != '-' && n + 1 < size; ++n)
    out[n] = base[n] == '.' ? '_' : cl_ascii_lower(base[n]);
  out[n] = '\0';
  size_t digits = 0;
  while (digits < n && cl_ascii_is_digit(out[n - 1 - digits]))
    ++digits;
  if (digits && n > digits + 3 && !strncmp(out + n - digits - 3, "_cu", 3))
    out[n - digits - 3] = '\0';
  free(dir);
}

/* Whether two distributions of the index are one component's wheels for
 * two CUDA majors, the only NVIDIA wheels that install the same files:
 * without such a pair no RECORD need be read (nvidia-cuda-cccl's alone is
 * 270 KB). */
static int may_share_files(const cl_distinfo_index *index) {
  size_t n = index->distribution_count;
  char(*names)[128] = n ? calloc(n, sizeof *names) : NULL;
  if (!names)
    return n > 1; /* out of memory: read them, as before */
  int pair = 0;
  for (size_t i = 0; i < n && !pair; ++i) {
    component_of(index->distributions[i].metadata_path, names[i],
                 sizeof names[i]);
    for (size_t k = 0; k < i && !pair; ++k)
      pair = names[i][0] && !strcmp(names[i], names[k]);
  }
  free(names);
  return pair;
}

void cl_distinfo_each_shared(cl_distinfo_index *index,
                             cl_distinfo_shared_visitor visit, void *opaque) {
  if (!may_share_files(index))
    return;
  load_records(index);
  if (index->records_state != 1 || !index->by_path)
    return;
  /* Pairs are few (a folder holds a few dozen NVIDIA wheels): counted in a
   * small table of the pairs seen, each reported once at the end. */
  typedef struct pair {
    size_t a, b, shared;
    const cl_distinfo_file *first;
  } pair;
  pair *pairs = NULL;
  size_t count = 0, capacity = 0;
  size_t n = index->file_count;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && !strcmp(index->by_path[j].key, index->by_path[i].key))
      ++j;
    /* Files i..j-1 share one path: each pair of their distributions. */
    for (size_t x = i; x < j; ++x)
      for (size_t y = x + 1; y < j; ++y) {
        size_t a = index->files[index->by_path[x].file].distribution;
        size_t b = index->files[index->by_path[y].file].distribution;
        if (a == b)
          continue;
        if (a > b) {
          size_t t = a;
          a = b;
          b = t;
        }
        size_t k = 0;
        while (k < count && !(pairs[k].a == a && pairs[k].b == b))
          ++k;
        if (k == count) {
          if (cl_reserve((void **)&pairs, &capacity, count + 1,
                         sizeof *pairs)) {
            free(pairs);
            return;
          }
          pairs[count++] =
              (pair){a, b, 0, &index->files[index->by_path[x].file]};
        }
        pairs[k].shared++;
      }
    i = j;
  }
  for (size_t k = 0; k < count; ++k)
    visit(index, pairs[k].a, pairs[k].b, pairs[k].first, pairs[k].shared,
          opaque);
  free(pairs);
}

long long cl_distinfo_listed_size(const cl_distinfo_index *index, size_t d,
                                  const char *relpath) {
  for (size_t i = 0; i < index->file_count; ++i)
    if (index->files[i].distribution == d &&
        !strcmp(index->files[i].relpath, relpath))
      return index->files[i].size;
  return -1;
}

int cl_distinfo_which_installed(const char *file, long long size_a,
                                long long size_b, const char *record_a,
                                const char *record_b, const char **why) {
  *why = NULL;
  cl_file_stamp now, ra, rb;
  if (size_a >= 0 && size_b >= 0 && size_a != size_b &&
      cl_os_path_stamp(file, &now)) {
    if ((long long)now.size == size_a) {
      *why = CL_WORDS_ITS_RECORD_S_SIZE_MATCHES;
      return 0;
    }
    if ((long long)now.size == size_b) {
      *why = CL_WORDS_ITS_RECORD_S_SIZE_MATCHES;
      return 1;
    }
  }
  if (cl_os_path_stamp(record_a, &ra) && cl_os_path_stamp(record_b, &rb)) {
    int64_t a = ra.ctime_ns > ra.mtime_ns ? ra.ctime_ns : ra.mtime_ns;
    int64_t b = rb.ctime_ns > rb.mtime_ns ? rb.ctime_ns : rb.mtime_ns;
    if (a != b) {
      *why = "installed last";
      return a > b ? 0 : 1;
    }
  }
  return -1;
}
