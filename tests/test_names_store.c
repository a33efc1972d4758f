/* SPDX-License-Identifier: MIT */
/*
 * test_names_store.c - the names a file holds, kept across processes
 * (binary/names_store.c): a later cache answers from the store without
 * searching the file and gives the same names in the same order; a file
 * rewritten since is searched again; the environment switches the store
 * off or moves it; a store that is malformed, too large, a link, a FIFO,
 * writable by others or not a file is ignored whole, never half trusted;
 * writers racing leave a whole store; the oldest entries give way to the
 * bound; a stamp too young to tell a later change apart (a coarse file
 * system's: the same second) is neither kept nor trusted, on a real
 * loop-mounted ext4 with one-second stamps too where the machine allows;
 * root keeps no store where another user's folder or link leads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#endif
#ifndef _WIN32
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#include <time.h>
#include <utime.h>
#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#include <aclapi.h>
#endif

#include "binary/file_cache.h"
#include "binary/names_store.h"
#include "cudaload.h"

static char scratch[512];

/* One second in the units of the stamps' times. */
#define SECOND CL_FILE_TIME_SECOND

static const char *fixture(const char *relative) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", CUDALOAD_FIXTURES_DIR, relative);
  FILE *f = fopen(path, "rb");
  if (!f) {
    printf("SKIP: fixture %s was not built\n", path);
    skip();
  }
  fclose(f);
  return path;
}

#define SHIM "wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9"

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  unsigned char *data = NULL;
  size_t n = 0, cap = 0, got;
  do {
    if (n + 65536 > cap) {
      cap = (n + 65536) * 2;
      data = realloc(data, cap);
      assert_non_null(data);
    }
    got = fread(data + n, 1, 65536, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return data;
}

static void spill(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

static void put_text(const char *path, const char *text) {
  remove(path);
  spill(path, text, strlen(text));
#ifndef _WIN32
  assert_int_equal(chmod(path, 0600), 0);
#endif
}

typedef struct names {
  char list[32][160];
  size_t count;
} names;

static int collect(const char *name, void *opaque) {
  names *n = opaque;
  if (n->count < 32)
    snprintf(n->list[n->count++], sizeof n->list[0], "%s", name);
  return 0;
}

static int has(const names *n, const char *name) {
  for (size_t i = 0; i < n->count; ++i)
    if (strcmp(n->list[i], name) == 0)
      return 1;
  return 0;
}

/* The clock a test sets: what cl_os_file_time_now() would say then. */
static int64_t test_now;
static int64_t test_clock(void) {
  return test_now;
}

/* An hour from now: every file a test just wrote is old enough then for
 * its stamp to be kept and trusted (names_store.h). */
static int64_t an_hour_later(void) {
  return cl_os_file_time_now() + 3600 * CL_FILE_TIME_SECOND;
}

/* The names of path through a new cache with a store in dir, its clock
 * `clock` (NULL: the real one), and what the cache did; the cache is freed
 * (which saves the store). */
static void names_with_store_at(const char *dir, const char *path,
                                cl_clock clock, names *out,
                                cl_file_cache_stats *stats) {
  memset(out, 0, sizeof *out);
  cl_file_cache *c = cl_file_cache_new();
  assert_non_null(c);
  cl_file_cache_set_clock(c, clock);
  cl_file_cache_use_store(c, cl_names_store_open(dir));
  assert_int_equal(cl_file_cache_names(c, path, 1u << 30, collect, out),
                   CUDALOAD_OK);
  cl_file_cache_get_stats(c, stats);
  cl_file_cache_free(c);
}

/* The same an hour later, where how young a stamp is is not the
 * question. */
static void names_with_store(const char *dir, const char *path, names *out,
                             cl_file_cache_stats *stats) {
  names_with_store_at(dir, path, an_hour_later, out, stats);
}

static void make_dir(const char *name, char *out, size_t size) {
#ifdef _WIN32
  /* The fixtures' folder is the build host's path; under Wine a path from
   * the root is on drive Z:, and the store takes only absolute paths. */
  snprintf(out, size, "%s%s/%s", scratch[0] == '/' ? "Z:" : "", scratch, name);
#else
  snprintf(out, size, "%s/%s", scratch, name);
#endif
#ifdef _WIN32
  assert_true(_mkdir(out) == 0);
#else
  assert_true(mkdir(out, 0700) == 0);
#endif
}

static void store_file(const char *dir, char *out, size_t size) {
  snprintf(out, size, "%s/%s", dir, CL_NAMES_STORE_FILE);
}

static void a_second_run_answers_from_the_store(void **state) {
  (void)state;
  const char *shim = fixture(SHIM);
  char dir[600], file[700];
  make_dir("second-run", dir, sizeof dir);
  names first, second;
  cl_file_cache_stats stats;
  names_with_store(dir, shim, &first, &stats);
  assert_int_equal(stats.name_reads, 1);
  assert_int_equal(stats.store_hits, 0);
  assert_true(has(&first, "libcudnn_ops.so"));
  store_file(dir, file, sizeof file);
  FILE *f = fopen(file, "rb");
  assert_non_null(f); /* written when the cache was freed */
  fclose(f);
  names_with_store(dir, shim, &second, &stats);
  assert_int_equal(stats.name_reads, 0);
  assert_int_equal(stats.store_hits, 1);
  assert_int_equal(second.count, first.count);
  for (size_t i = 0; i < first.count; ++i) /* the same names, in order */
    assert_string_equal(second.list[i], first.list[i]);
}

/* Replace the first `from` in data with a name of its length. */
static void rename_inside(unsigned char *data, size_t len, const char *from,
                          const char *to) {
  size_t n = strlen(from);
  assert_int_equal(strlen(to), n);
  for (size_t i = 0; i + n <= len; ++i)
    if (memcmp(data + i, from, n) == 0) {
      memcpy(data + i, to, n);
      return;
    }
  fail_msg("the shim holds no %s", from);
}

static void set_mtime(const char *path, long long when) {
  struct utimbuf t;
  t.actime = (time_t)when;
  t.modtime = (time_t)when;
  assert_int_equal(utime(path, &t), 0);
}

/* Same size, other content, another last write time: searched again, and
 * the new names are the ones answered. */
static void a_rewritten_file_is_searched_again(void **state) {
  (void)state;
  size_t len;
  unsigned char *data = slurp(fixture(SHIM), &len);
  char dir[600], lib[600];
  make_dir("rewritten", dir, sizeof dir);
  snprintf(lib, sizeof lib, "%s/libcudnn.so.9", scratch);
  spill(lib, data, len);
  set_mtime(lib, 1700000000);
  names n;
  cl_file_cache_stats stats;
  names_with_store(dir, lib, &n, &stats);
  assert_true(has(&n, "libcudnn_ops.so"));
  rename_inside(data, len, "libcudnn_ops.so", "libcudnn_xyz.so");
  spill(lib, data, len);
  set_mtime(lib, 1700000100);
  names_with_store(dir, lib, &n, &stats);
  assert_int_equal(stats.name_reads, 1);
  assert_int_equal(stats.store_hits, 0);
  assert_true(has(&n, "libcudnn_xyz.so"));
  assert_false(has(&n, "libcudnn_ops.so"));
#ifndef _WIN32
  /* Rewritten again with its last write time put back (`touch -d`): the
   * status change time, which no program sets, still tells it apart. The
   * rewrite is repeated until the clock the file system stamps with has
   * moved on, so that the change is one a stamp can see. */
  struct stat before, after;
  assert_int_equal(stat(lib, &before), 0);
  rename_inside(data, len, "libcudnn_xyz.so", "libcudnn_abc.so");
  for (long tries = 0;; ++tries) {
    assert_true(tries < 100000000L);
    spill(lib, data, len);
    set_mtime(lib, 1700000100);
    assert_int_equal(stat(lib, &after), 0);
    if (after.st_ctim.tv_sec != before.st_ctim.tv_sec ||
        after.st_ctim.tv_nsec != before.st_ctim.tv_nsec)
      break;
  }
  assert_int_equal(after.st_mtime, before.st_mtime);
  names_with_store(dir, lib, &n, &stats);
  assert_int_equal(stats.name_reads, 1);
  assert_true(has(&n, "libcudnn_abc.so"));
#endif
  free(data);
  remove(lib);
}

static void set_env(const char *name, const char *value) {
#ifdef _WIN32
  assert_int_equal(_putenv_s(name, value ? value : ""), 0);
#else
  if (value)
    assert_int_equal(setenv(name, value, 1), 0);
  else
    assert_int_equal(unsetenv(name), 0);
#endif
}

static void the_environment_moves_or_switches_off_the_store(void **state) {
  (void)state;
  char dir[600];
  make_dir("from-env", dir, sizeof dir);
  set_env("CUDALOAD_CACHE_PATH", dir);
  set_env("CUDALOAD_CACHE_DISABLE", "1");
  assert_null(cl_names_store_open_default());
  set_env("CUDALOAD_CACHE_DISABLE", "0");
  cl_names_store *s = cl_names_store_open_default();
  assert_non_null(s);
  /* The store it opened is the folder's: a cache with it writes there. */
  cl_file_cache *c = cl_file_cache_new();
  cl_file_cache_set_clock(c, an_hour_later);
  cl_file_cache_use_store(c, s);
  names n = {0};
  assert_int_equal(cl_file_cache_names(c, fixture(SHIM), 1u << 30, collect, &n),
                   0);
  assert_int_equal(cl_file_cache_save(c), 1);
  assert_int_equal(cl_file_cache_save(c), 0); /* nothing new since */
  cl_file_cache_free(c);
  char file[700];
  store_file(dir, file, sizeof file);
  FILE *f = fopen(file, "rb");
  assert_non_null(f);
  fclose(f);
  /* A context's cache has the store the environment names, unless the
   * context was made with CUDALOAD_NO_NAMES_STORE. */
  char other[600], other_file[700];
  make_dir("from-context", other, sizeof other);
  set_env("CUDALOAD_CACHE_PATH", other);
  store_file(other, other_file, sizeof other_file);
  for (int flagged = 1; flagged >= 0; --flagged) {
    cudaload_ctx *ctx = cudaload_create(flagged ? CUDALOAD_NO_NAMES_STORE : 0);
    assert_non_null(ctx);
    cl_file_cache *of = cl_file_cache_of(ctx);
    cl_file_cache_set_clock(of, an_hour_later);
    names m = {0};
    assert_int_equal(
        cl_file_cache_names(of, fixture(SHIM), 1u << 30, collect, &m), 0);
    assert_true(has(&m, "libcudnn_ops.so"));
    cudaload_destroy(ctx);
    f = fopen(other_file, "rb");
    if (flagged)
      assert_null(f);
    else
      assert_non_null(f);
    if (f)
      fclose(f);
  }
  /* A relative folder would move with the current folder: none. */
  set_env("CUDALOAD_CACHE_PATH", "relative/folder");
  assert_null(cl_names_store_open_default());
  set_env("CUDALOAD_CACHE_DISABLE", "1");
  set_env("CUDALOAD_CACHE_PATH", NULL);
}

/* A line the store would hold for path's file, naming `name`. */
static void line_for(const char *path, const char *name, char *out,
                     size_t size) {
  cl_file_stamp s;
  assert_true(cl_os_path_stamp(path, &s));
  snprintf(out, size, "%llx %llx %llx %llx %llx 1 %s\n",
           (unsigned long long)s.device, (unsigned long long)s.inode,
           (unsigned long long)s.size, (unsigned long long)s.mtime_ns,
           (unsigned long long)s.ctime_ns, name);
}

/* Each store below holds a well-formed line for the shim that names
 * "libplanted.so", and one fault: trusted in part, it would answer that
 * name; ignored whole, the shim is searched and its own names come. */
static void check_ignored(const char *dir, const char *what) {
  names n;
  cl_file_cache_stats stats;
  cl_names_store *s = cl_names_store_open(dir);
  assert_non_null(s);
  cl_file_stamp stamp;
  assert_true(cl_os_path_stamp(fixture(SHIM), &stamp));
  char *const *found;
  size_t count;
  if (cl_names_store_find(s, &stamp, an_hour_later(), &found, &count))
    fail_msg("store trusted: %s", what);
  cl_names_store_free(s);
  /* Through a cache, whose save may replace the store: last. */
  names_with_store(dir, fixture(SHIM), &n, &stats);
  if (stats.store_hits != 0 || has(&n, "libplanted.so"))
    fail_msg("store trusted: %s", what);
  assert_true(has(&n, "libcudnn_ops.so"));
}

static void bad_stores_are_ignored(void **state) {
  (void)state;
  const char *shim = fixture(SHIM);
  char dir[600], file[700], good[400], text[4096];
  make_dir("bad", dir, sizeof dir);
  store_file(dir, file, sizeof file);
  line_for(shim, "libplanted.so", good, sizeof good);

  /* The control: well formed, it is trusted. */
  snprintf(text, sizeof text, "cudaload-names 2\n%s", good);
  put_text(file, text);
  names n;
  cl_file_cache_stats stats;
  names_with_store(dir, shim, &n, &stats);
  assert_int_equal(stats.store_hits, 1);
  assert_true(has(&n, "libplanted.so"));

  static const char *const faults[] = {
      "",                                            /* empty */
      "cudaload-names 1\n",                          /* another version */
      "cudaload-names 2\nGOOD1 2 3 4 5 0",           /* no newline at the end */
      "cudaload-names 2\nGOOD1 2 3 4 5 2 liba.so\n", /* fewer names */
      "cudaload-names 2\nGOOD1 2 3 4 5 1 lib/a.so\n",        /* not a name */
      "cudaload-names 2\nGOOD1 2 3 4 5 1  liba.so\n",        /* two spaces */
      "cudaload-names 2\nGOOD11111111111111111 2 3 4 5 0\n", /* 17 digits */
      "cudaload-names 2\nGOOD1 2 3 4 5 99999\n", /* too many names */
      "cudaload-names 2\nGOOD1 2 3 4 -5 0\n",    /* a sign */
      "cudaload-names 2\nGOODA 2 3 4 5 0\n",     /* upper case hex */
      "cudaload-names 2\nGOOD1 2 3 4 5 0\r\n",   /* CR LF */
      "cudaload-names 2\nGOOD1 2 3 4 5 1 "
      "a123456789a123456789a123456789a123456789a123456789a123456789a123456789"
      "a123456789a123456789a123456789a123456789a123456789a123456789.so\n",
      "cudaload-names 2\nGOODr 1 2 3 4 5 0 1 cudnnCreate\n", /* a field short */
      "cudaload-names 2\nGOODr 1 2 3 4 5 6 0 1 cudnn/Create\n", /* not a name */
      "cudaload-names 2\nGOODr 1 2 3 4 5 6 0 2 cudnnCreate\n",  /* fewer refs */
      "cudaload-names 2\nGOODr 1 2 3 4 5 6 0 1 a@V\n", /* version, no file */
      "cudaload-names 2\nGOODr 1 2 3 4 5 6 0 99999\n", /* too many refs */
      "cudaload-names 2\nGOODr 123456789 2 3 4 5 6 0 0\n", /* 9 digits */
      "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0",
  };
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; ++i) {
    /* GOOD: the control's line, then the fault. */
    const char *f = faults[i];
    const char *at = strstr(f, "GOOD");
    if (at)
      snprintf(text, sizeof text, "%.*s%s%s", (int)(at - f), f, good, at + 4);
    else
      snprintf(text, sizeof text, "%s", f);
    put_text(file, text);
    check_ignored(dir, text);
  }

  /* A NUL after the good line. */
  snprintf(text, sizeof text, "cudaload-names 2\n%s", good);
  size_t with_nul = strlen(text);
  text[with_nul] = '\0';
  text[with_nul + 1] = '\n';
  remove(file);
  spill(file, text, with_nul + 2);
  check_ignored(dir, "a NUL");

  /* Larger than the bound, though each line is good. */
  size_t big = CL_NAMES_STORE_MAX_BYTES + 4096, line = strlen(good);
  char *huge = malloc(big);
  assert_non_null(huge);
  size_t used = strlen("cudaload-names 2\n");
  memcpy(huge, "cudaload-names 2\n", used);
  while (used + line <= big) {
    memcpy(huge + used, good, line);
    used += line;
  }
  remove(file);
  spill(file, huge, used);
  free(huge);
  check_ignored(dir, "larger than the bound");

#ifndef _WIN32
  snprintf(text, sizeof text, "cudaload-names 2\n%s", good);
  /* Writable by the group. */
  put_text(file, text);
  assert_int_equal(chmod(file, 0620), 0);
  check_ignored(dir, "group-writable");
  /* A link to a good store elsewhere. */
  char elsewhere[700];
  snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", scratch);
  put_text(elsewhere, text);
  remove(file);
  assert_int_equal(symlink(elsewhere, file), 0);
  check_ignored(dir, "a link");
  /* A FIFO: not opened for long, never waited on. */
  remove(file);
  assert_int_equal(mkfifo(file, 0600), 0);
  check_ignored(dir, "a FIFO");
  remove(file);
  /* A folder. */
  assert_int_equal(mkdir(file, 0700), 0);
  check_ignored(dir, "a folder");
  rmdir(file);
  remove(elsewhere);
#endif
}

static void fake_stamp(cl_file_stamp *s, unsigned who, unsigned round) {
  memset(s, 0, sizeof *s);
  s->device = 7;
  s->inode = (uint64_t)who << 32 | round;
  s->size = 100 + round;
  s->mtime_ns = 1;
  s->kind = CL_KIND_REGULAR;
}

/* The oldest entries give way: a save of more than the bound keeps the
 * newest. */
static void the_oldest_entries_give_way(void **state) {
  (void)state;
  char dir[600];
  make_dir("bounded", dir, sizeof dir);
  cl_names_store *s = cl_names_store_open(dir);
  char *const one[] = {(char *)"libcuda.so.1"};
  unsigned total = CL_NAMES_STORE_MAX_ENTRIES + 10;
  cl_file_stamp stamp;
  for (unsigned i = 0; i < total; ++i) {
    fake_stamp(&stamp, 1, i);
    cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  }
  assert_int_equal(cl_names_store_save(s), 1);
  cl_names_store_free(s);
  s = cl_names_store_open(dir);
  char *const *found;
  size_t count;
  fake_stamp(&stamp, 1, 0);
  assert_false(
      cl_names_store_find(s, &stamp, cl_os_file_time_now(), &found, &count));
  fake_stamp(&stamp, 1, total - 1);
  assert_true(
      cl_names_store_find(s, &stamp, cl_os_file_time_now(), &found, &count));
  assert_int_equal(count, 1);
  assert_string_equal(found[0], "libcuda.so.1");
  fake_stamp(&stamp, 1, 10);
  assert_true(
      cl_names_store_find(s, &stamp, cl_os_file_time_now(), &found, &count));
  cl_names_store_free(s);
}

/* A temporary file a killed writer left is removed by the next save once
 * it is old; one a writer may still be writing, and other files, stay. */
static void a_killed_writers_leftover_goes(void **state) {
  (void)state;
  char dir[600], old[700], fresh[700], other[700];
  make_dir("leftovers", dir, sizeof dir);
  snprintf(old, sizeof old, "%s/%s.4242.1.0.tmp", dir, CL_NAMES_STORE_FILE);
  snprintf(fresh, sizeof fresh, "%s/%s.4243.1.0.tmp", dir, CL_NAMES_STORE_FILE);
  snprintf(other, sizeof other, "%s/notes.1.tmp", dir);
  put_text(old, "cudaload-names 2\n");
  put_text(fresh, "cudaload-names 2\n");
  put_text(other, "kept\n");
  long long hour_ago = (long long)time(NULL) - 3600;
  set_mtime(old, hour_ago);
  set_mtime(other, hour_ago);
  cl_names_store *s = cl_names_store_open(dir);
  char *const one[] = {(char *)"libnvrtc.so.13"};
  cl_file_stamp stamp;
  fake_stamp(&stamp, 9, 1);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  assert_int_equal(cl_names_store_save(s), 1);
  cl_names_store_free(s);
  FILE *f = fopen(old, "rb");
  assert_null(f);
  f = fopen(fresh, "rb");
  assert_non_null(f);
  fclose(f);
  f = fopen(other, "rb");
  assert_non_null(f);
  fclose(f);
}

/* A stamp whose times are `whole` seconds and `part` units of the stamp's
 * clock past them (every other field fixed). */
static void stamp_at(cl_file_stamp *s, int64_t whole, int64_t part) {
  fake_stamp(s, 21, 1);
  s->mtime_ns = s->ctime_ns = whole * CL_FILE_TIME_SECOND + part;
}

/* Whether the store keeps, for a stamp `when` units after its times, what
 * a search found: added at `when`, saved, found again an hour on. */
static int kept(const char *dir, const cl_file_stamp *stamp, int64_t when) {
  char file[700];
  store_file(dir, file, sizeof file);
  remove(file);
  cl_names_store *s = cl_names_store_open(dir);
  char *const one[] = {(char *)"libnvrtc.so.13"};
  cl_names_store_add(s, stamp, stamp->mtime_ns + when, one, 1);
  int saved = cl_names_store_save(s);
  cl_names_store_free(s);
  s = cl_names_store_open(dir);
  char *const *found;
  size_t count;
  int got = cl_names_store_find(s, stamp, stamp->mtime_ns + 3600 * SECOND,
                                &found, &count);
  cl_names_store_free(s);
  assert_int_equal(got, saved);
  return got;
}

/* git's "racily clean" rule: a stamp is kept only when it is older than
 * the search by more than its file system's granularity (two seconds where
 * the stamps show whole seconds, FAT's; the power of ten they end in
 * otherwise) and a second for the clocks; and an entry is trusted only
 * when it is as old when asked. */
static void young_stamps_are_neither_kept_nor_trusted(void **state) {
  (void)state;
  char dir[600];
  make_dir("young", dir, sizeof dir);
  const int64_t ms = SECOND / 1000;
  cl_file_stamp stamp;
  /* Whole seconds (ext3, ext4 with 128-byte inodes, FAT, HFS+): three. */
  stamp_at(&stamp, 1700000000, 0);
  assert_false(kept(dir, &stamp, 0));
  assert_false(kept(dir, &stamp, 500 * ms));
  assert_false(kept(dir, &stamp, 2999 * ms));
  assert_true(kept(dir, &stamp, 3000 * ms));
  /* exFAT's 10 ms: a second and 10 ms. */
  stamp_at(&stamp, 1700000000, 120 * ms);
  assert_false(kept(dir, &stamp, 1009 * ms));
  assert_true(kept(dir, &stamp, 1010 * ms));
  /* Fine stamps (ext4, XFS, btrfs, NTFS): a second, the clocks'. */
  stamp_at(&stamp, 1700000000, 123457);
  assert_false(kept(dir, &stamp, SECOND / 2));
  assert_true(kept(dir, &stamp, SECOND + 1));
  /* A stamp from the future (a clock set back, a server's ahead). */
  assert_false(kept(dir, &stamp, -60 * SECOND));
  /* Either time decides: the status change of a file whose last write
   * time was set back (`touch -d`). */
  stamp_at(&stamp, 1700000000, 0);
  stamp.mtime_ns -= 3600 * SECOND;
  assert_false(kept(dir, &stamp, SECOND));
  /* A line already in the store (an older cudaload wrote it) is not
   * trusted while the stamp is young. */
  stamp_at(&stamp, 1700000000, 0);
  assert_true(kept(dir, &stamp, 3600 * SECOND));
  cl_names_store *s = cl_names_store_open(dir);
  char *const *found;
  size_t count;
  assert_false(
      cl_names_store_find(s, &stamp, stamp.mtime_ns + SECOND, &found, &count));
  assert_true(cl_names_store_find(s, &stamp, stamp.mtime_ns + 3 * SECOND,
                                  &found, &count));
  cl_names_store_free(s);
}

/* --- references (names_store.h, "References") ---------------------------
 */

static int keep_every_reference(const char *name, const char *file,
                                void *opaque) {
  (void)name;
  (void)file;
  (void)opaque;
  return 1;
}

/* The references of path through a new cache with a store in dir and the
 * filter numbered `filter`; their names and versions into out. */
static void references_with_store(const char *dir, const char *path,
                                  uint32_t filter, cl_clock clock, names *out,
                                  cl_file_cache_stats *stats) {
  memset(out, 0, sizeof *out);
  cl_file_cache *c = cl_file_cache_new();
  assert_non_null(c);
  cl_file_cache_set_clock(c, clock);
  cl_file_cache_use_store(c, cl_names_store_open(dir));
  cl_file_cache_set_reference_filter(c, keep_every_reference, NULL, filter);
  const cl_binary_symbols *s = NULL;
  assert_int_equal(cl_file_cache_references(c, path, &s), CUDALOAD_OK);
  assert_true(s->refs_filtered);
  for (size_t i = 0; i < s->ref_count; ++i) {
    char one[160];
    snprintf(one, sizeof one, "%s%s@%s@%s", s->refs[i].weak ? "~" : "",
             s->refs[i].name, s->refs[i].version ? s->refs[i].version : "",
             s->refs[i].file ? s->refs[i].file : "");
    collect(one, out);
  }
  /* What binding asks of it after: the store's answer serves as the read's
   * did (the hash table is found on the first lookup). */
  cl_found_def found[4];
  size_t count;
  const cl_binary_symbols *vs;
  assert_int_equal(
      cl_file_cache_defs(c, path, "uses_foo", found, 4, &count, &vs),
      CUDALOAD_OK);
  assert_int_equal(count, 1);
  cl_file_cache_get_stats(c, stats);
  cl_file_cache_free(c);
}

/* A consumer's references are kept beside its names: the second process
 * reads none of its symbol table; another filter's are another answer;
 * a young stamp is neither kept nor trusted (the racily-clean rule). */
static void references_come_from_the_store(void **state) {
  (void)state;
  const char *consumer = fixture("symbols/consumers/libuses_foo.so");
  char dir[600];
  make_dir("references", dir, sizeof dir);
  names first, second, other;
  cl_file_cache_stats stats;
  references_with_store(dir, consumer, 7, an_hour_later, &first, &stats);
  assert_int_equal(stats.reference_reads, 1);
  assert_int_equal(stats.reference_store_hits, 0);
  assert_true(has(&first, "foo_bar@libfoo.so.1@libfoo.so.1"));
  references_with_store(dir, consumer, 7, an_hour_later, &second, &stats);
  assert_int_equal(stats.reference_reads, 0);
  assert_int_equal(stats.reference_store_hits, 1);
  assert_int_equal(stats.symbol_reads, 0);
  assert_int_equal(second.count, first.count);
  for (size_t i = 0; i < first.count; ++i)
    assert_string_equal(second.list[i], first.list[i]);
  references_with_store(dir, consumer, 8, an_hour_later, &other, &stats);
  assert_int_equal(stats.reference_reads, 1);
  assert_int_equal(stats.reference_store_hits, 0);

  /* Kept at a moment a second too soon after the file's last write, it
   * is not; an hour after, it is, and trusted when asked as late. */
  char young[600];
  make_dir("references-young", young, sizeof young);
  cl_names_store *s = cl_names_store_open(young);
  unsigned flags;
  const cl_symbol_ref *refs;
  size_t count;
  cl_symbol_ref one = {(char *)"foo_bar", (char *)"libfoo.so.1",
                       (char *)"libfoo.so.1", 0};
  cl_file_stamp made;
  stamp_at(&made, 1700000000, 0);
  cl_names_store_add_refs(s, &made, made.mtime_ns + SECOND / 2, 7, 0, &one, 1);
  assert_false(cl_names_store_find_refs(s, &made, made.mtime_ns + 3600 * SECOND,
                                        7, &flags, &refs, &count));
  cl_names_store_add_refs(s, &made, made.mtime_ns + 3600 * SECOND, 7, 0, &one,
                          1);
  assert_false(cl_names_store_find_refs(s, &made, made.mtime_ns + SECOND, 7,
                                        &flags, &refs, &count));
  assert_true(cl_names_store_find_refs(s, &made, made.mtime_ns + 7200 * SECOND,
                                       7, &flags, &refs, &count));
  assert_int_equal(count, 1);
  assert_string_equal(refs[0].file, "libfoo.so.1");
  /* Past the bounds, nothing is kept: a name of another alphabet. */
  cl_symbol_ref odd = {(char *)"foo bar", NULL, NULL, 0};
  stamp_at(&made, 1700000100, 0);
  cl_names_store_add_refs(s, &made, made.mtime_ns + 3600 * SECOND, 7, 0, &odd,
                          1);
  assert_false(cl_names_store_find_refs(s, &made, made.mtime_ns + 7200 * SECOND,
                                        7, &flags, &refs, &count));
  cl_names_store_free(s);
}

/* Issue 43, item 1, through the file cache with its clock set: a library
 * searched in the tick its stamp was made is searched again next time,
 * whatever the store holds. Where the stamps of the file before and after
 * its rewrite are equal (Windows, which keeps no status change time, with
 * the last write time put back; a coarse file system), a kept answer
 * would be the old file's. */
static void a_file_searched_in_its_stamps_tick_is_searched_again(void **state) {
  (void)state;
  size_t len;
  unsigned char *data = slurp(fixture(SHIM), &len);
  char dir[600], lib[600], file[700];
  make_dir("same-tick", dir, sizeof dir);
  store_file(dir, file, sizeof file);
  snprintf(lib, sizeof lib, "%s/same-tick/libcudnn.so.9", scratch);
  spill(lib, data, len);
  set_mtime(lib, 1700000000);
  cl_file_stamp before, after;
  assert_true(cl_os_path_stamp(lib, &before));
  /* The search runs half a second after the newer of its times. */
  test_now =
      (before.mtime_ns > before.ctime_ns ? before.mtime_ns : before.ctime_ns) +
      SECOND / 2;
  names n;
  cl_file_cache_stats stats;
  names_with_store_at(dir, lib, test_clock, &n, &stats);
  assert_int_equal(stats.name_reads, 1);
  assert_true(has(&n, "libcudnn_ops.so"));
  /* Rewritten in place, the same size, its last write time put back. */
  rename_inside(data, len, "libcudnn_ops.so", "libcudnn_xyz.so");
  spill(lib, data, len);
  set_mtime(lib, 1700000000);
  assert_true(cl_os_path_stamp(lib, &after));
  printf("the stamps before and after the rewrite are %s (inode %llx %llx, "
         "last write %lld %lld, status change %lld %lld)\n",
         before.device == after.device && before.inode == after.inode &&
                 before.size == after.size &&
                 before.mtime_ns == after.mtime_ns &&
                 before.ctime_ns == after.ctime_ns
             ? "equal"
             : "not equal",
         (unsigned long long)before.inode, (unsigned long long)after.inode,
         (long long)before.mtime_ns, (long long)after.mtime_ns,
         (long long)before.ctime_ns, (long long)after.ctime_ns);
  names_with_store_at(dir, lib, test_clock, &n, &stats);
  assert_int_equal(stats.store_hits, 0);
  assert_true(has(&n, "libcudnn_xyz.so"));
  assert_false(has(&n, "libcudnn_ops.so"));
  FILE *f = fopen(file, "rb");
  assert_null(f); /* neither answer was kept */
  /* Asked an hour on, the stamp is old: kept, and answered from. */
  test_now += 3600 * SECOND;
  names_with_store_at(dir, lib, test_clock, &n, &stats);
  assert_int_equal(stats.name_reads, 1);
  f = fopen(file, "rb");
  assert_non_null(f);
  fclose(f);
  names_with_store_at(dir, lib, test_clock, &n, &stats);
  assert_int_equal(stats.name_reads, 0);
  assert_int_equal(stats.store_hits, 1);
  assert_true(has(&n, "libcudnn_xyz.so"));
  free(data);
  remove(lib);
}

#ifdef __linux__
/* Wait for the start of a second of the real clock (and 20 ms more). */
static void wait_for_a_new_second(void) {
  struct timespec now;
  assert_int_equal(clock_gettime(CLOCK_REALTIME, &now), 0);
  struct timespec wait = {0, 1000000000L - now.tv_nsec + 20000000L};
  if (wait.tv_nsec >= 1000000000L) {
    wait.tv_sec = 1;
    wait.tv_nsec -= 1000000000L;
  }
  nanosleep(&wait, NULL);
}

/* Issue 43, item 1, on a real file system with one-second stamps: an ext4
 * image with 128-byte inodes, loop-mounted in a mount namespace of this
 * process's own (gone with it). A library rewritten in place in the same
 * second, at the same size, keeps every field of its stamp; with the real
 * clock it is searched again, not answered with the old file's names. */
static void a_rewrite_in_the_same_second_on_a_coarse_file_system(void **state) {
  (void)state;
  if (geteuid() != 0) {
    printf("SKIP: mounting an image with one-second stamps needs root\n");
    skip();
  }
  if (system("command -v mkfs.ext4 >/dev/null 2>&1") != 0) {
    printf("SKIP: no mkfs.ext4 to make an image with one-second stamps\n");
    skip();
  }
  if (unshare(CLONE_NEWNS) != 0 ||
      mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    printf("SKIP: no mount namespace of our own here (%s)\n", strerror(errno));
    skip();
  }
  char image[600], mnt[600], command[4096];
  snprintf(image, sizeof image, "%s/coarse.img", scratch);
  snprintf(mnt, sizeof mnt, "%s/coarse", scratch);
  snprintf(
      command, sizeof command,
      "truncate -s 8M '%s' && mkfs.ext4 -q -F -I 128 '%s' >/dev/null 2>&1 && "
      "mkdir '%s' && mount -o loop '%s' '%s'",
      image, image, mnt, image, mnt);
  if (system(command) != 0) {
    printf("SKIP: this machine cannot loop-mount an image (%s)\n", command);
    skip();
  }
  size_t len;
  unsigned char *v1 = slurp(fixture(SHIM), &len);
  unsigned char *v2 = malloc(len);
  assert_non_null(v2);
  memcpy(v2, v1, len);
  rename_inside(v2, len, "libcudnn_ops.so", "libcudnn_xyz.so");
  char dir[600], lib[700];
  make_dir("coarse-store", dir, sizeof dir);
  snprintf(lib, sizeof lib, "%s/libcudnn.so.9", mnt);
  names n;
  cl_file_cache_stats stats;
  int same_stamp = 0;
  for (int tries = 0; !same_stamp && tries < 5; ++tries) {
    struct stat before, after;
    wait_for_a_new_second();
    spill(lib, v1, len);
    assert_int_equal(stat(lib, &before), 0);
    assert_int_equal(before.st_mtim.tv_nsec, 0); /* whole seconds */
    names_with_store_at(dir, lib, NULL, &n, &stats);
    assert_true(has(&n, "libcudnn_ops.so"));
    spill(lib, v2, len); /* in place: the same inode */
    assert_int_equal(stat(lib, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino);
    names_with_store_at(dir, lib, NULL, &n, &stats);
    /* The second may have ended between the writes: then again. */
    same_stamp = after.st_mtime == before.st_mtime &&
                 after.st_ctime == before.st_ctime &&
                 after.st_size == before.st_size;
    if (same_stamp) {
      assert_int_equal(stats.store_hits, 0);
      assert_true(has(&n, "libcudnn_xyz.so"));
      assert_false(has(&n, "libcudnn_ops.so"));
    }
  }
  assert_true(same_stamp);
  /* Three seconds on (two, FAT's granularity, and one for the clocks) the
   * stamp is old enough: kept, and answered from. */
  sleep(3);
  names_with_store_at(dir, lib, NULL, &n, &stats);
  assert_int_equal(stats.name_reads, 1);
  names_with_store_at(dir, lib, NULL, &n, &stats);
  assert_int_equal(stats.store_hits, 1);
  assert_true(has(&n, "libcudnn_xyz.so"));
  free(v1);
  free(v2);
  snprintf(command, sizeof command, "umount '%s'", mnt);
  assert_int_equal(system(command), 0);
}
#endif

#ifdef _WIN32
/* Grant Everyone the right to add files to dir; 1 when the DACL reads back
 * with the grant (Wine keeps only what a Unix mode can say, and some more). */
static int let_everyone_add_files(const char *dir) {
  wchar_t wide[700];
  if (!MultiByteToWideChar(CP_UTF8, 0, dir, -1, wide, 700))
    return 0;
  PACL old_dacl = NULL, new_dacl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  if (GetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                            NULL, NULL, &old_dacl, NULL, &sd) != ERROR_SUCCESS)
    return 0;
  BYTE everyone[SECURITY_MAX_SID_SIZE];
  DWORD size = sizeof everyone;
  EXPLICIT_ACCESS_W grant;
  memset(&grant, 0, sizeof grant);
  grant.grfAccessPermissions = FILE_ADD_FILE;
  grant.grfAccessMode = GRANT_ACCESS;
  grant.grfInheritance = NO_INHERITANCE;
  grant.Trustee.TrusteeForm = TRUSTEE_IS_SID;
  grant.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
  grant.Trustee.ptstrName = (LPWSTR)(void *)everyone;
  int ok =
      CreateWellKnownSid(WinWorldSid, NULL, everyone, &size) &&
      SetEntriesInAclW(1, &grant, old_dacl, &new_dacl) == ERROR_SUCCESS &&
      SetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                            NULL, NULL, new_dacl, NULL) == ERROR_SUCCESS;
  LocalFree(new_dacl);
  LocalFree(sd);
  if (!ok)
    return 0;
  PACL dacl = NULL;
  sd = NULL;
  int kept = 0;
  if (GetNamedSecurityInfoW(wide, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                            NULL, NULL, &dacl, NULL, &sd) == ERROR_SUCCESS &&
      dacl)
    for (DWORD i = 0; i < dacl->AceCount && !kept; ++i) {
      ACCESS_ALLOWED_ACE *ace = NULL;
      kept = GetAce(dacl, i, (LPVOID *)&ace) &&
             ace->Header.AceType == ACCESS_ALLOWED_ACE_TYPE &&
             (ace->Mask & FILE_ADD_FILE) &&
             EqualSid((PSID)&ace->SidStart, (PSID)everyone);
    }
  LocalFree(sd);
  return kept;
}

/* A folder others may add files to gets no store: the file could be
 * swapped for another after it is written. */
static void no_store_is_written_where_others_add_files(void **state) {
  (void)state;
  char dir[600], file[700];
  make_dir("open-to-everyone", dir, sizeof dir);
  if (!let_everyone_add_files(dir)) {
    printf("SKIP: this file system did not keep a grant of add-file rights "
           "to Everyone on %s\n",
           dir);
    skip();
  }
  cl_names_store *s = cl_names_store_open(dir);
  char *const one[] = {(char *)"libnvrtc.so.13"};
  cl_file_stamp stamp;
  fake_stamp(&stamp, 11, 1);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  assert_int_equal(cl_names_store_save(s), 0);
  cl_names_store_free(s);
  store_file(dir, file, sizeof file);
  FILE *f = fopen(file, "rb");
  assert_null(f);
}

/* Issue 43, item 2 on Windows: no component of the store's folder may be a
 * reparse point (a symbolic link or junction), where an unelevated process
 * could send an elevated one's write. */
static void no_store_is_kept_through_a_reparse_point(void **state) {
  (void)state;
  char target[600], link[700], dir[800], file[900];
  make_dir("reparse-target", target, sizeof target);
  snprintf(link, sizeof link, "%s%s/reparse-link",
           scratch[0] == '/' ? "Z:" : "", scratch);
  wchar_t wlink[700], wtarget[600];
  if (!MultiByteToWideChar(CP_UTF8, 0, link, -1, wlink, 700) ||
      !MultiByteToWideChar(CP_UTF8, 0, target, -1, wtarget, 600))
    fail_msg("not UTF-8: %s", link);
  for (wchar_t *p = wlink; *p; ++p)
    if (*p == L'/')
      *p = L'\\';
  for (wchar_t *p = wtarget; *p; ++p)
    if (*p == L'/')
      *p = L'\\';
  /* 0x2: SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE (developer mode). */
  DWORD attrs = INVALID_FILE_ATTRIBUTES;
  if (CreateSymbolicLinkW(wlink, wtarget, SYMBOLIC_LINK_FLAG_DIRECTORY | 0x2))
    attrs = GetFileAttributesW(wlink);
  if (attrs == INVALID_FILE_ATTRIBUTES ||
      !(attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {
    printf("SKIP: no folder link that reads back as a reparse point could be "
           "made here (error %lu)\n",
           (unsigned long)GetLastError());
    skip();
  }
  snprintf(dir, sizeof dir, "%s/cudaload", link);
  cl_names_store *s = cl_names_store_open(dir);
  char *const one[] = {(char *)"libnvrtc.so.13"};
  cl_file_stamp stamp;
  fake_stamp(&stamp, 12, 1);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  assert_int_equal(cl_names_store_save(s), 0);
  cl_names_store_free(s);
  snprintf(file, sizeof file, "%s/cudaload", target);
  assert_true(GetFileAttributesA(file) == INVALID_FILE_ATTRIBUTES);
  /* Straight to the folder, it is kept. */
  snprintf(dir, sizeof dir, "%s/cudaload", target);
  s = cl_names_store_open(dir);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  assert_int_equal(cl_names_store_save(s), 1);
  cl_names_store_free(s);
}
#endif

#ifndef _WIN32
/* Processes saving at once leave a store that parses whole, holding the
 * last entry of at least one of them, and no temporary file behind. */
static void racing_writers_leave_a_whole_store(void **state) {
  (void)state;
  char dir[600], file[700];
  make_dir("racing", dir, sizeof dir);
  store_file(dir, file, sizeof file);
  enum { WRITERS = 4, ROUNDS = 40 };
  pid_t pids[WRITERS];
  for (unsigned w = 0; w < WRITERS; ++w) {
    pids[w] = fork();
    assert_true(pids[w] >= 0);
    if (pids[w] == 0) {
      char *const two[] = {(char *)"libcublasLt.so.13",
                           (char *)"libnvrtc.so.13"};
      for (unsigned r = 0; r < ROUNDS; ++r) {
        cl_names_store *s = cl_names_store_open(dir);
        cl_file_stamp stamp;
        fake_stamp(&stamp, w + 1, r);
        cl_names_store_add(s, &stamp, cl_os_file_time_now(), two, 2);
        (void)cl_names_store_save(s);
        cl_names_store_free(s);
      }
      _exit(0);
    }
  }
  for (unsigned w = 0; w < WRITERS; ++w) {
    int status;
    assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  size_t len;
  unsigned char *text = slurp(file, &len);
  cl_names_store *s = cl_names_store_open(NULL);
  assert_int_equal(cl_names_store_parse(s, (const char *)text, len), 0);
  cl_names_store_free(s);
  free(text);
  s = cl_names_store_open(dir);
  unsigned last_kept = 0;
  for (unsigned w = 0; w < WRITERS; ++w) {
    cl_file_stamp stamp;
    char *const *found;
    size_t count;
    fake_stamp(&stamp, w + 1, ROUNDS - 1);
    last_kept += (unsigned)cl_names_store_find(s, &stamp, cl_os_file_time_now(),
                                               &found, &count);
  }
  assert_true(last_kept >= 1);
  cl_names_store_free(s);
  char command[800];
  snprintf(command, sizeof command, "test \"$(ls -A '%s')\" = '%s'", dir,
           CL_NAMES_STORE_FILE);
  assert_int_equal(system(command), 0);
}
#endif

#ifndef _WIN32
/* root (a `sudo` that kept the user's HOME) makes no store folder inside a
 * folder of another user's: the user's own runs could neither trust nor
 * write a folder of root's there. */
static void root_makes_no_store_in_another_users_folder(void **state) {
  (void)state;
  if (geteuid() != 0) {
    printf("SKIP: only root can be the process this is about\n");
    skip();
  }
  char home[600], dir[700];
  make_dir("users-home", home, sizeof home);
  assert_int_equal(chown(home, 65534, 65534), 0);
  snprintf(dir, sizeof dir, "%s/.cache/cudaload", home);
  cl_names_store *s = cl_names_store_open(dir);
  char *const one[] = {(char *)"libnvrtc.so.13"};
  cl_file_stamp stamp;
  fake_stamp(&stamp, 7, 1);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  assert_int_equal(cl_names_store_save(s), 0);
  cl_names_store_free(s);
  char cache[700];
  snprintf(cache, sizeof cache, "%s/.cache", home);
  struct stat st;
  assert_int_not_equal(stat(cache, &st), 0);
  /* In a folder of root's own it does make one. */
  char own[600], own_dir[700];
  make_dir("roots-home", own, sizeof own);
  snprintf(own_dir, sizeof own_dir, "%s/.cache/cudaload", own);
  s = cl_names_store_open(own_dir);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  assert_int_equal(cl_names_store_save(s), 1);
  cl_names_store_free(s);
}

/* A store with one entry, saved in the store the environment names now:
 * what cl_names_store_save says (1: written). */
static int save_default_store(void) {
  cl_names_store *s = cl_names_store_open_default();
  if (!s)
    return 0;
  char *const one[] = {(char *)"libnvrtc.so.13"};
  cl_file_stamp stamp;
  fake_stamp(&stamp, 31, 1);
  cl_names_store_add(s, &stamp, cl_os_file_time_now(), one, 1);
  int saved = cl_names_store_save(s);
  cl_names_store_free(s);
  return saved;
}

/* The environment that names the store: HOME, XDG_CACHE_HOME and
 * CUDALOAD_CACHE_PATH as given (NULL: unset), the store switched on. */
static void store_env(const char *home, const char *xdg, const char *path) {
  set_env("HOME", home);
  set_env("XDG_CACHE_HOME", xdg);
  set_env("CUDALOAD_CACHE_PATH", path);
  set_env("CUDALOAD_CACHE_DISABLE", "0");
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* Issue 43, item 2: root, run with a user's HOME (a `sudo` that kept it)
 * where the user made ~/.cache a link to a folder of root's, writes
 * nothing there: no cudaload/ folder made, no names-v2, no leftover of
 * root's removed. Nor through a link of the user's in a folder of root's;
 * root's own link is followed. */
static void root_keeps_no_store_where_a_users_link_points(void **state) {
  (void)state;
  if (geteuid() != 0) {
    printf("SKIP: only root can be the process this is about\n");
    skip();
  }
  char *home_was = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  char home[600], target[600], link[700], made[700], leftover[800];
  make_dir("a-users-home", home, sizeof home);
  assert_int_equal(chown(home, 65534, 65534), 0);
  make_dir("roots-folder", target, sizeof target);
  assert_int_equal(chmod(target, 0755), 0);
  snprintf(link, sizeof link, "%s/.cache", home);
  assert_int_equal(symlink(target, link), 0);
  assert_int_equal(lchown(link, 65534, 65534), 0);
  snprintf(made, sizeof made, "%s/cudaload", target);
  /* Through HOME, and through XDG_CACHE_HOME: no folder made. */
  store_env(home, NULL, NULL);
  assert_int_equal(save_default_store(), 0);
  assert_false(exists(made));
  store_env(home, link, NULL);
  assert_int_equal(save_default_store(), 0);
  assert_false(exists(made));
  /* The folder there already, root's, with a leftover of root's: neither
   * written in nor cleaned. */
  assert_int_equal(mkdir(made, 0700), 0);
  snprintf(leftover, sizeof leftover, "%s/%s.4242.1.0.tmp", made,
           CL_NAMES_STORE_FILE);
  put_text(leftover, "cudaload-names 2\n");
  set_mtime(leftover, (long long)time(NULL) - 3600);
  store_env(home, NULL, NULL);
  assert_int_equal(save_default_store(), 0);
  assert_true(exists(leftover));
  char written[800];
  snprintf(written, sizeof written, "%s/%s", made, CL_NAMES_STORE_FILE);
  assert_false(exists(written));
  /* A link of the user's in a folder of root's, named outright. */
  char roots[600], users_link[700], path[800];
  make_dir("roots-own", roots, sizeof roots);
  snprintf(users_link, sizeof users_link, "%s/cache", roots);
  assert_int_equal(symlink(target, users_link), 0);
  assert_int_equal(lchown(users_link, 65534, 65534), 0);
  snprintf(path, sizeof path, "%s/cudaload", users_link);
  store_env(home, NULL, path);
  assert_int_equal(save_default_store(), 0);
  assert_false(exists(written));
  assert_true(exists(leftover));
  /* The same link, root's: followed, and the store written where it
   * leads (the leftover, an hour old and root's, goes). */
  assert_int_equal(lchown(users_link, 0, 0), 0);
  assert_int_equal(save_default_store(), 1);
  assert_true(exists(written));
  assert_false(exists(leftover));
  store_env(home_was, NULL, NULL);
  set_env("CUDALOAD_CACHE_DISABLE", "1");
  free(home_was);
}

/* A user's own links on the way are followed; another user's are not:
 * run as nobody (65534) in a child. */
static void a_users_own_link_is_followed_anothers_is_not(void **state) {
  (void)state;
  if (geteuid() != 0) {
    printf("SKIP: becoming another user needs root\n");
    skip();
  }
  /* Under /tmp: the build folder may be closed to other users. */
  char top[64] = "/tmp/cudaload-names-store-XXXXXX";
  assert_non_null(mkdtemp(top));
  assert_int_equal(chmod(top, 0755), 0);
  char area[600], real[700], own[700], theirs[700], written[900];
  snprintf(area, sizeof area, "%s/nobodys", top);
  assert_int_equal(mkdir(area, 0700), 0);
  assert_int_equal(chown(area, 65534, 65534), 0);
  snprintf(real, sizeof real, "%s/real", area);
  assert_int_equal(mkdir(real, 0700), 0);
  assert_int_equal(chown(real, 65534, 65534), 0);
  snprintf(own, sizeof own, "%s/own", area);
  assert_int_equal(symlink(real, own), 0);
  assert_int_equal(lchown(own, 65534, 65534), 0);
  snprintf(theirs, sizeof theirs, "%s/theirs", area);
  assert_int_equal(symlink(real, theirs), 0);
  assert_int_equal(lchown(theirs, 4242, 4242), 0);
  snprintf(written, sizeof written, "%s/cudaload/%s", real,
           CL_NAMES_STORE_FILE);
  for (int mine = 0; mine <= 1; ++mine) {
    char path[800];
    snprintf(path, sizeof path, "%s/cudaload", mine ? own : theirs);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0)
        _exit(3);
      if (access(area, X_OK) != 0)
        _exit(77); /* the build folder is closed to other users */
      store_env("/nonexistent", NULL, path);
      _exit(save_default_store() ? 1 : 0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
      printf("SKIP: user nobody cannot reach %s\n", area);
      skip();
    }
    assert_int_equal(WEXITSTATUS(status), mine);
    assert_int_equal(exists(written), mine);
  }
  char command[200];
  snprintf(command, sizeof command, "rm -rf '%s'", top);
  assert_int_equal(system(command), 0);
}
#endif

static int setup(void **state) {
  (void)state;
  snprintf(scratch, sizeof scratch, "%s/names-store-scratch",
           CUDALOAD_FIXTURES_DIR);
#ifdef _WIN32
  /* cmd takes a path from the root as a switch: Z: and backslashes. The
   * folder must start empty, or a store of an earlier run would answer. */
  char native[600], command[1400];
  snprintf(native, sizeof native, "%s%s", scratch[0] == '/' ? "Z:" : "",
           scratch);
  for (char *p = native; *p; ++p)
    if (*p == '/')
      *p = '\\';
  if ((size_t)snprintf(command, sizeof command, "rmdir /s /q \"%s\" 2>NUL",
                       native) < sizeof command)
    (void)system(command);
  if (_mkdir(native) != 0)
    return -1;
#else
  char command[1100];
  if ((size_t)snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'",
                       scratch, scratch) >= sizeof command ||
      system(command) != 0)
    return -1;
#endif
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_second_run_answers_from_the_store),
      cmocka_unit_test(a_rewritten_file_is_searched_again),
      cmocka_unit_test(the_environment_moves_or_switches_off_the_store),
      cmocka_unit_test(bad_stores_are_ignored),
      cmocka_unit_test(the_oldest_entries_give_way),
      cmocka_unit_test(a_killed_writers_leftover_goes),
      cmocka_unit_test(young_stamps_are_neither_kept_nor_trusted),
      cmocka_unit_test(references_come_from_the_store),
      cmocka_unit_test(a_file_searched_in_its_stamps_tick_is_searched_again),
#ifdef __linux__
      cmocka_unit_test(a_rewrite_in_the_same_second_on_a_coarse_file_system),
#endif
#ifdef _WIN32
      cmocka_unit_test(no_store_is_written_where_others_add_files),
      cmocka_unit_test(no_store_is_kept_through_a_reparse_point),
#else
      cmocka_unit_test(racing_writers_leave_a_whole_store),
      cmocka_unit_test(root_makes_no_store_in_another_users_folder),
      cmocka_unit_test(root_keeps_no_store_where_a_users_link_points),
      cmocka_unit_test(a_users_own_link_is_followed_anothers_is_not),
#endif
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
