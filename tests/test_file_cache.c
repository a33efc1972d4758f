/* SPDX-License-Identifier: MIT */
/*
 * test_file_cache.c - one read of a library serves every question of a run
 * (binary/file_cache.c): headers, symbols and names are each read once,
 * through any path or link to the file; a file changed since is read
 * again; a failure's message names the path it was asked for; names come
 * from the data sections of real ELF and PE fixtures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <unistd.h>
#endif
#ifdef __linux__
#include <dirent.h>
#endif

#include "binary/binary_symbols.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "cudaload.h"

static char scratch[512];

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

static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb");
  FILE *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    assert_int_equal(fwrite(buf, 1, n, out), n);
  fclose(in);
  fclose(out);
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

static void headers_and_symbols_are_read_once(void **state) {
  (void)state;
  const char *path =
      fixture("wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
  cl_file_cache *c = cl_file_cache_new();
  assert_non_null(c);
  for (int round = 0; round < 3; ++round) {
    const cl_binary_info *info;
    assert_int_equal(cl_file_cache_info(c, path, &info), CUDALOAD_OK);
    assert_string_equal(info->soname, "libcudnn.so.9");
    cl_binary_info copy;
    assert_int_equal(cl_file_cache_parse(c, path, &copy), CUDALOAD_OK);
    assert_string_equal(copy.soname, "libcudnn.so.9");
    assert_int_equal(copy.needed_count, info->needed_count);
    cl_binary_info_free(&copy);
    const cl_binary_symbols *symbols;
    assert_int_equal(cl_file_cache_symbols(c, path, &symbols), CUDALOAD_OK);
    assert_true(symbols->def_count > 0);
  }
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.info_reads, 1);
  assert_int_equal(stats.symbol_reads, 1);
  assert_true(stats.hits >= 7);
  cl_file_cache_free(c);
}

/* The shim's names of its sub-libraries (".so", which it completes with
 * its major) and the Windows sub-library's LoadLibrary names of cuBLAS,
 * each found once, from the sections that hold them. */
static void names_come_from_the_data_sections(void **state) {
  (void)state;
  cl_file_cache *c = cl_file_cache_new();
  const char *shim =
      fixture("wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
  names n = {0};
  assert_int_equal(cl_file_cache_names(c, shim, 1u << 30, collect, &n),
                   CUDALOAD_OK);
  assert_true(has(&n, "libcudnn_ops.so"));
  names again = {0};
  assert_int_equal(cl_file_cache_names(c, shim, 1u << 30, collect, &again),
                   CUDALOAD_OK);
  assert_int_equal(again.count, n.count);
  for (size_t i = 0; i < n.count; ++i) /* the same names, in order */
    assert_string_equal(again.list[i], n.list[i]);
  const char *ops = fixture("windows/cudnn8/cudnn_ops_infer64_8.dll");
  names w = {0};
  assert_int_equal(cl_file_cache_names(c, ops, 1u << 30, collect, &w),
                   CUDALOAD_OK);
  assert_true(has(&w, "cublas64_12.dll"));
  assert_true(has(&w, "cublasLt64_12.dll"));
  /* The same answers as a scan of its own, without the cache. */
  names plain = {0};
  assert_int_equal(cl_binary_names(ops, 1u << 30, collect, &plain),
                   CUDALOAD_OK);
  assert_true(has(&plain, "cublas64_12.dll"));
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.name_reads, 2);
  cl_file_cache_free(c);
}

/* A file rewritten with other content is read again by the next call: the
 * stamp (size, last write) tells it from what was read. (Within one call,
 * until the cache is released, the file held open is the one judged; on
 * Windows it cannot be replaced while held.) */
static void a_changed_file_is_read_again(void **state) {
  (void)state;
  char cudnn[1024], ops[1024];
  snprintf(cudnn, sizeof cudnn, "%s",
           fixture("wheels-cu13/site-packages/nvidia/cudnn/lib/"
                   "libcudnn.so.9"));
  snprintf(ops, sizeof ops, "%s",
           fixture("wheels-cu13/site-packages/nvidia/cudnn/lib/"
                   "libcudnn_ops.so.9"));
  char path[600];
  snprintf(path, sizeof path, "%s/libchanging.so", scratch);
  copy_file(cudnn, path);
  cl_file_cache *c = cl_file_cache_new();
  const cl_binary_info *info;
  assert_int_equal(cl_file_cache_info(c, path, &info), CUDALOAD_OK);
  assert_string_equal(info->soname, "libcudnn.so.9");
  cl_file_cache_release(c); /* the call's end: its files are closed */
  remove(path);
  copy_file(ops, path);
  assert_int_equal(cl_file_cache_info(c, path, &info), CUDALOAD_OK);
  assert_string_equal(info->soname, "libcudnn_ops.so.9");
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.info_reads, 2);
  cl_file_cache_free(c);
  remove(path);
}

/* Through a link, the file is the one already read; a failure's message
 * names the path it was asked for, whichever path asked first. */
static void links_share_and_failures_name_their_path(void **state) {
  (void)state;
  cl_file_cache *c = cl_file_cache_new();
  char text[600], other[600];
  snprintf(text, sizeof text, "%s/libtext.so.1", scratch);
  FILE *f = fopen(text, "wb");
  assert_non_null(f);
  fputs("not a library, named like one\n", f);
  fclose(f);
  const cl_binary_info *info;
  for (int round = 0; round < 2; ++round) {
    assert_int_not_equal(cl_file_cache_info(c, text, &info), CUDALOAD_OK);
    assert_non_null(strstr(cudaload_last_error(), text));
  }
#ifndef _WIN32
  snprintf(other, sizeof other, "%s/libother.so.1", scratch);
  assert_int_equal(symlink(text, other), 0);
  assert_int_not_equal(cl_file_cache_info(c, other, &info), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_last_error(), other));
  remove(other);
  const char *cudnn =
      fixture("wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
  snprintf(other, sizeof other, "%s/libcudnn-link.so.9", scratch);
  assert_int_equal(symlink(cudnn, other), 0);
  cl_file_cache_stats before, after;
  cl_file_cache_get_stats(c, &before);
  assert_int_equal(cl_file_cache_info(c, cudnn, &info), CUDALOAD_OK);
  assert_int_equal(cl_file_cache_info(c, other, &info), CUDALOAD_OK);
  cl_file_cache_get_stats(c, &after);
  assert_int_equal(after.info_reads - before.info_reads, 1);
  remove(other);
#else
  (void)other;
#endif
  snprintf(other, sizeof other, "%s/missing.so", scratch);
  assert_int_not_equal(cl_file_cache_info(c, other, &info), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_last_error(), other));
  remove(text);
  cl_file_cache_free(c);
}

/* An answer form (common/error.h) says no without touching the caller's
 * last error, yet the cache keeps why: the failing form asked next says
 * the same reason, naming the path. And an answer asked inside another
 * answer form's scope leaves both scopes as they were. */
static void
answer_forms_leave_the_last_error_and_keep_the_reason(void **state) {
  (void)state;
  cl_file_cache *c = cl_file_cache_new();
  char text[600];
  snprintf(text, sizeof text, "%s/libanswer.so.1", scratch);
  FILE *f = fopen(text, "wb");
  assert_non_null(f);
  fputs("not a library either\n", f);
  fclose(f);
  cl_fail(CUDALOAD_E_IO, "the caller's own error");
  const cl_binary_info *info = NULL;
  const cl_binary_symbols *symbols = NULL;
  cl_binary_info copy;
  assert_int_not_equal(cl_file_cache_info_quiet(c, text, &info), CUDALOAD_OK);
  assert_null(info);
  assert_int_not_equal(cl_file_cache_parse_quiet(c, text, &copy), CUDALOAD_OK);
  assert_int_not_equal(cl_file_cache_references_quiet(c, text, &symbols),
                       CUDALOAD_OK);
  assert_string_equal(cudaload_last_error(), "the caller's own error");
  /* The reason was kept as data: the failing form says it from the
   * cache, and it names the file. */
  assert_int_not_equal(cl_file_cache_info(c, text, &info), CUDALOAD_OK);
  assert_non_null(strstr(cudaload_last_error(), text));
  assert_null(strstr(cudaload_last_error(), "caller's own"));
  /* Scopes nest: the inner one's words are its own. */
  cl_clear_error();
  cl_asking outer, inner;
  cl_asking_begin(&outer);
  cl_fail(CUDALOAD_E_IO, "outer words");
  cl_asking_begin(&inner);
  cl_fail(CUDALOAD_E_IO, "inner words");
  cl_asking_end(&inner);
  assert_string_equal(cudaload_last_error(), "outer words");
  cl_asking_end(&outer);
  assert_string_equal(inner.reason, "inner words");
  assert_string_equal(outer.reason, "outer words");
  assert_string_equal(cudaload_last_error(), "");
  remove(text);
  cl_file_cache_free(c);
}

static void first_bytes_and_kinds(void **state) {
  (void)state;
  cl_file_cache *c = cl_file_cache_new();
  const char *cudnn =
      fixture("wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
  unsigned char head[64];
  cl_file_head h;
  for (int round = 0; round < 2; ++round) {
    memset(head, 0, sizeof head);
    cl_file_cache_head(c, cudnn, head, sizeof head, &h);
    assert_int_equal(h.kind, CL_KIND_REGULAR);
    assert_true(h.opened && h.read_ok);
    assert_int_equal(h.got, 64);
    assert_memory_equal(head, "\177ELF", 4);
  }
  cl_file_cache_head(c, scratch, head, sizeof head, &h);
  assert_int_equal(h.kind, CL_KIND_DIRECTORY);
  char missing[600];
  snprintf(missing, sizeof missing, "%s/nothing-here", scratch);
  cl_file_cache_head(c, missing, head, sizeof head, &h);
  assert_int_equal(h.kind, CL_KIND_MISSING);
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.head_reads, 1);
  cl_file_cache_free(c);
}

/* --- definitions by name and references alone ----------------------------
 */

static int keep_all(const char *name, const char *file, void *opaque) {
  (void)name;
  (void)file;
  (void)opaque;
  return 1;
}

/* The references binding would ask of a consumer of libfoo/libbar: those
 * whose name starts "foo"/"bar", or whose version need names a file. */
static int keep_some(const char *name, const char *file, void *opaque) {
  (void)opaque;
  return file != NULL || strncmp(name, "foo", 3) == 0 ||
         strncmp(name, "bar", 3) == 0;
}

static const char *version_of(const cl_binary_symbols *s, int v) {
  return v >= 0 && (size_t)v < s->version_count ? s->versions[v].name : "";
}

/* Every name the whole read defines is found by name through the file's
 * hash table with the same definitions (version, hidden, weak) in the same
 * order, without the whole table being read; names it only references, or
 * never holds, are defined nowhere. */
static void lookups_agree_with_the_whole_read(const char *path) {
  cl_binary_symbols whole;
  assert_int_equal(cl_binary_read_symbols_file(path, &whole), CUDALOAD_OK);
  cl_file_cache *c = cl_file_cache_new();
  assert_non_null(c);
  cl_file_cache_set_reference_filter(c, keep_all, NULL, 1);
  size_t asked = 0;
  for (size_t i = 0; i < whole.def_count; ++i) {
    const char *name = whole.defs[i].name;
    if (cl_binary_symbols_first_def(&whole, name) != i)
      continue; /* each name once */
    cl_found_def found[16];
    size_t count = 0;
    const cl_binary_symbols *vs = NULL;
    assert_int_equal(cl_file_cache_defs(c, path, name, found, 16, &count, &vs),
                     CUDALOAD_OK);
    size_t k = 0;
    for (size_t d = i; d != SIZE_MAX;
         d = cl_binary_symbols_next_def(&whole, d), ++k) {
      if (k >= count || k >= 16)
        fail_msg("%s: %s: the lookup found %lu definitions, fewer than the "
                 "whole read",
                 path, name, (unsigned long)count);
      if (strcmp(version_of(&whole, whole.defs[d].version),
                 version_of(vs, found[k].version)) ||
          whole.defs[d].hidden != found[k].hidden ||
          whole.defs[d].weak != found[k].weak)
        fail_msg("%s: %s: definition %lu differs", path, name,
                 (unsigned long)k);
    }
    if (k != count)
      fail_msg("%s: %s: %lu definitions looked up, %lu read", path, name,
               (unsigned long)count, (unsigned long)k);
    ++asked;
  }
  const char *absent[] = {"cudaload_no_such_symbol", "", "_", "foo_barx"};
  for (size_t i = 0; i < sizeof absent / sizeof *absent; ++i) {
    cl_found_def found[4];
    size_t count = 7;
    const cl_binary_symbols *vs;
    if (cl_binary_symbols_first_def(&whole, absent[i]) != SIZE_MAX)
      continue;
    assert_int_equal(
        cl_file_cache_defs(c, path, absent[i], found, 4, &count, &vs),
        CUDALOAD_OK);
    assert_int_equal(count, 0);
  }
  for (size_t r = 0; r < whole.ref_count; ++r) {
    const char *name = whole.refs[r].name;
    if (cl_binary_symbols_first_def(&whole, name) != SIZE_MAX)
      continue;
    cl_found_def found[4];
    size_t count = 7;
    const cl_binary_symbols *vs;
    assert_int_equal(cl_file_cache_defs(c, path, name, found, 4, &count, &vs),
                     CUDALOAD_OK);
    if (count != 0)
      fail_msg("%s: %s is referenced, not defined, yet found", path, name);
  }
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.symbol_reads, 0); /* never the whole table */
  assert_true(stats.lookups >= asked);
  assert_true(asked > 0);
  cl_file_cache_free(c);
  cl_binary_symbols_free(&whole);
}

/* A read of references alone keeps what its filter keeps, each as the
 * whole read has it, in the same order; whether the file opens libraries
 * by name is the whole read's answer. */
static void references_agree_with_the_whole_read(const char *path,
                                                 cl_ref_filter keep) {
  cl_binary_symbols whole;
  assert_int_equal(cl_binary_read_symbols_file(path, &whole), CUDALOAD_OK);
  cl_file_cache *c = cl_file_cache_new();
  assert_non_null(c);
  cl_file_cache_set_reference_filter(c, keep, NULL, 2);
  const cl_binary_symbols *refs = NULL;
  assert_int_equal(cl_file_cache_references(c, path, &refs), CUDALOAD_OK);
  assert_true(refs->refs_filtered);
  size_t k = 0;
  for (size_t r = 0; r < whole.ref_count; ++r) {
    const cl_symbol_ref *w = &whole.refs[r];
    if (!keep(w->name, w->file, NULL))
      continue;
    if (k >= refs->ref_count)
      fail_msg("%s: %s not kept", path, w->name);
    const cl_symbol_ref *g = &refs->refs[k++];
    assert_string_equal(g->name, w->name);
    assert_int_equal(g->weak, w->weak);
    assert_true(!g->version == !w->version);
    if (w->version) {
      assert_string_equal(g->version, w->version);
      assert_string_equal(g->file, w->file);
    }
  }
  assert_int_equal(k, refs->ref_count);
  assert_int_equal(cl_binary_symbols_open_by_name(refs),
                   cl_binary_symbols_open_by_name(&whole));
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.symbol_reads, 0);
  assert_int_equal(stats.reference_reads, 1);
  cl_file_cache_free(c);
  cl_binary_symbols_free(&whole);
}

static const char *const lookup_fixtures[] = {
    "symbols/versioned/libfoo.so.1",
    "symbols/sysv-hash/libfoo.so.1",
    "symbols/unversioned/libbar.so.1",
    "symbols/consumers/libuses_foo.so",
    "symbols/consumers/libuses_bar.so",
    "wheels-cu13/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
    "opens_by_name/calls/libcudnn_engines_precompiled.so.9",
    "opens_by_name/text/libcudnn_engines_precompiled.so.9",
};

static void definitions_are_found_by_name(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof lookup_fixtures / sizeof *lookup_fixtures;
       ++i) {
    char rel[256];
    snprintf(rel, sizeof rel, "%s", lookup_fixtures[i]);
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", CUDALOAD_FIXTURES_DIR, rel);
    FILE *f = fopen(full, "rb");
    if (!f) {
      printf("note: fixture %s not built, not compared\n", rel);
      continue;
    }
    fclose(f);
    lookups_agree_with_the_whole_read(full);
    references_agree_with_the_whole_read(full, keep_all);
    references_agree_with_the_whole_read(full, keep_some);
  }
#ifndef _WIN32
  /* Real files with thousands of versioned definitions (foo@GLIBC_2.2.5
   * beside foo@@GLIBC_2.x), where present. */
  static const char *const real[] = {
      "/lib/x86_64-linux-gnu/libc.so.6",
      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
      "/lib/aarch64-linux-gnu/libc.so.6",
  };
  for (size_t i = 0; i < sizeof real / sizeof *real; ++i) {
    FILE *f = fopen(real[i], "rb");
    if (!f)
      continue;
    fclose(f);
    lookups_agree_with_the_whole_read(real[i]);
    references_agree_with_the_whole_read(real[i], keep_some);
  }
#endif
}

/* A library whose tables say what is not there (each word of its first 4
 * KiB, where its hash table, symbols and names are, overwritten in turn):
 * every read of references and every lookup gives an answer or a status,
 * never a read outside the file (the clang tier runs this under ASan), and
 * what is found has its version inside the version table. */
static void hostile_tables_give_a_status(void **state) {
  (void)state;
  const char *good = fixture("symbols/versioned/libfoo.so.1");
  FILE *f = fopen(good, "rb");
  assert_non_null(f);
  /* aarch64's linker aligns segments to 64 KiB: a small library is
   * larger there. */
  static unsigned char image[1 << 20];
  size_t size = fread(image, 1, sizeof image, f);
  fclose(f);
  assert_true(size > 4096 && size < sizeof image);
  char path[600];
  snprintf(path, sizeof path, "%s/hostile-libfoo.so.1", scratch);
  static const uint32_t values[] = {0xffffffffu, 0x7fffffffu, 0x1u, 0x0u};
  size_t refused = 0, answered = 0;
  for (size_t at = 0; at + 4 <= 4096; at += 4) {
    unsigned char saved[4];
    memcpy(saved, image + at, 4);
    uint32_t v = values[(at / 4) % 4];
    memcpy(image + at, &v, 4);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(image, 1, size, out), size);
    fclose(out);
    memcpy(image + at, saved, 4);

    cl_file_cache *c = cl_file_cache_new();
    assert_non_null(c);
    cl_file_cache_set_reference_filter(c, keep_all, NULL, 3);
    const cl_binary_symbols *refs = NULL;
    if (cl_file_cache_references(c, path, &refs) != CUDALOAD_OK)
      ++refused;
    static const char *const asked[] = {"foo_bar", "foo", "foo_baz",
                                        "cudnnCreate"};
    for (size_t i = 0; i < sizeof asked / sizeof *asked; ++i) {
      cl_found_def found[4];
      size_t count = 0;
      const cl_binary_symbols *vs = NULL;
      if (cl_file_cache_defs(c, path, asked[i], found, 4, &count, &vs) !=
          CUDALOAD_OK)
        continue;
      ++answered;
      for (size_t k = 0; k < count && k < 4; ++k)
        assert_true(found[k].version >= -1 &&
                    (vs == NULL || found[k].version < (int)vs->version_count));
    }
    cl_file_cache_free(c);
  }
  remove(path);
  /* Both kinds of answer were met: the words that matter were hit. */
  assert_true(refused > 0);
  assert_true(answered > 0);
}

#ifdef __linux__
static size_t open_descriptors(void) {
  DIR *d = opendir("/proc/self/fd");
  assert_non_null(d);
  size_t n = 0;
  while (readdir(d))
    ++n;
  closedir(d);
  return n;
}

/* A run's questions to one file open it once: the file is held open
 * between lookups (each of which would open it again otherwise) and closed
 * when the cache is released, as the public calls do at their end; what
 * was learnt stays. */
static void files_are_held_until_released(void **state) {
  (void)state;
  const char *path = fixture("symbols/versioned/libfoo.so.1");
  cl_file_cache *c = cl_file_cache_new();
  assert_non_null(c);
  cl_file_cache_set_reference_filter(c, keep_all, NULL, 4);
  size_t before = open_descriptors();
  cl_found_def found[4];
  size_t count;
  const cl_binary_symbols *vs;
  for (int i = 0; i < 3; ++i)
    assert_int_equal(
        cl_file_cache_defs(c, path, "foo_bar", found, 4, &count, &vs),
        CUDALOAD_OK);
  assert_int_equal(count, 1);
  assert_int_equal(open_descriptors(), before + 1);
  cl_file_cache_hold(c);
  cl_file_cache_release(c); /* held by a caller: still open */
  assert_int_equal(open_descriptors(), before + 1);
  cl_file_cache_unhold(c); /* the last unhold releases */
  assert_int_equal(open_descriptors(), before);
  assert_int_equal(
      cl_file_cache_defs(c, path, "foo_bar", found, 4, &count, &vs),
      CUDALOAD_OK);
  assert_int_equal(count, 1);
  cl_file_cache_stats stats;
  cl_file_cache_get_stats(c, &stats);
  assert_int_equal(stats.lookup_preparations, 1); /* the table's place kept */
  cl_file_cache_release(c);
  assert_int_equal(open_descriptors(), before);
  cl_file_cache_free(c);
}
#endif

static int setup(void **state) {
  (void)state;
  snprintf(scratch, sizeof scratch, "%s/file-cache-scratch",
           CUDALOAD_FIXTURES_DIR);
#ifdef _WIN32
  char command[600];
  if ((size_t)snprintf(command, sizeof command, "mkdir \"%s\" 2>NUL", scratch) <
      sizeof command)
    (void)system(command);
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
      cmocka_unit_test(headers_and_symbols_are_read_once),
      cmocka_unit_test(names_come_from_the_data_sections),
      cmocka_unit_test(a_changed_file_is_read_again),
      cmocka_unit_test(links_share_and_failures_name_their_path),
      cmocka_unit_test(answer_forms_leave_the_last_error_and_keep_the_reason),
      cmocka_unit_test(first_bytes_and_kinds),
      cmocka_unit_test(definitions_are_found_by_name),
      cmocka_unit_test(hostile_tables_give_a_status),
#ifdef __linux__
      cmocka_unit_test(files_are_held_until_released),
#endif
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
