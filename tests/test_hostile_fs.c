/* SPDX-License-Identifier: MIT */
/*
 * test_hostile_fs.c - scans over hostile file systems, beyond test_hostile.c:
 * folders other users can write to (refused unless allowed), unreadable
 * folders (run as another user when the test runs as root, since root
 * ignores permissions), names that are not UTF-8, device files named like
 * libraries, files replaced and roots removed while scans run, folder
 * symlink cycles, a path longer than PATH_MAX and a 10 GB sparse "ELF".
 * Each case must return with a clear result; a hang fails through ctest's
 * TIMEOUT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cudaload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tree[256];

static const char *at(const char *name) {
  static char slots[8][1024];
  static unsigned next;
  char *out = slots[next++ % 8];
  snprintf(out, sizeof slots[0], "%s/%s", tree, name);
  return out;
}

static void put_file(const char *path, const char *content) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(content, f);
  fclose(f);
}

static void make_dir(const char *path, mode_t mode) {
  assert_int_equal(mkdir(path, mode), 0);
  assert_int_equal(chmod(path, mode), 0); /* whatever the umask */
}

static int make_tree(void **state) {
  (void)state;
  snprintf(tree, sizeof tree, "/tmp/cudaload-hostile-fs-XXXXXX");
  return mkdtemp(tree) ? 0 : -1;
}

/* rm -rf tree, making folders writable first (chmod 000 cases). */
static void remove_all(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path, 0700);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'",
             path, path);
    if (system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", path);
  } else {
    unlink(path);
  }
}

static int remove_tree(void **state) {
  (void)state;
  remove_all(tree);
  return 0;
}

static cudaload_ctx *scan_one(const char *root, unsigned flags, int target) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS | flags);
  assert_non_null(ctx);
  assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
  assert_int_equal(cudaload_set_target(ctx, target), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  return ctx;
}

static int has_library(const cudaload_ctx *ctx, const char *name) {
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    if (strcmp(cudaload_library_name(ctx, i), name) == 0)
      return 1;
  return 0;
}

/* --- folders other users can write to ---------------------------------- */

static void world_writable_root_is_refused_unless_allowed(void **state) {
  (void)state;
  const char *root = at("world");
  make_dir(root, 0777);
  put_file(at("world/libcublas.so.12"), "named like a library");

  cudaload_ctx *ctx = scan_one(root, 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_INSECURE);
  assert_int_equal(cudaload_library_count(ctx), 0);
  /* The scan says which folder and who can write to it. */
  const char *why = cudaload_last_error();
  assert_non_null(strstr(why, root));
  assert_non_null(strstr(why, "writable by every user"));
  assert_non_null(strstr(why, "CUDALOAD_ALLOW_WRITABLE_ROOTS"));
  assert_non_null(strstr(cudaload_strerror(CUDALOAD_E_INSECURE),
                         "a folder others can write to"));
  cudaload_destroy(ctx);

  /* The sticky bit (/tmp's) stops removal, not planting: still refused. */
  assert_int_equal(chmod(root, 01777), 0);
  ctx = scan_one(root, 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_INSECURE);
  cudaload_destroy(ctx);

  /* The caller opts in. */
  ctx = scan_one(root, CUDALOAD_ALLOW_WRITABLE_ROOTS, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cublas"));
  assert_string_equal(cudaload_last_error(), "");
  cudaload_destroy(ctx);

  /* Owner-only write: accepted without the flag. */
  assert_int_equal(chmod(root, 0755), 0);
  ctx = scan_one(root, 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cublas"));
  cudaload_destroy(ctx);
}

static void writable_library_folder_under_a_root_is_refused(void **state) {
  (void)state;
  make_dir(at("prefix"), 0755);
  make_dir(at("prefix/lib64"), 0777);
  put_file(at("prefix/lib64/libcudnn.so.9"), "planted");
  put_file(at("prefix/libcublas.so.12"), "in a safe folder");
  cudaload_ctx *ctx = scan_one(at("prefix"), 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_INSECURE);
  assert_false(has_library(ctx, "cudnn"));
  assert_non_null(strstr(cudaload_last_error(), "lib64"));
  cudaload_destroy(ctx);
  ctx = scan_one(at("prefix"), CUDALOAD_ALLOW_WRITABLE_ROOTS,
                 CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cudnn"));
  cudaload_destroy(ctx);
}

static void group_writable_root_of_a_foreign_group_is_refused(void **state) {
  (void)state;
  const char *root = at("group");
  make_dir(root, 0775);
  put_file(at("group/libcublas.so.12"), "x");
  /* A group this process is not in: any gid not ours. */
  gid_t foreign = 54321;
  if (chown(root, (uid_t)-1, foreign) != 0) {
    print_message("skipped: cannot give %s to group %u (%s); needs root or "
                  "CAP_CHOWN\n",
                  root, (unsigned)foreign, strerror(errno));
    skip();
  }
  cudaload_ctx *ctx = scan_one(root, 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_INSECURE);
  assert_non_null(strstr(cudaload_last_error(), "group 54321"));
  cudaload_destroy(ctx);
  /* Group-writable by our own group: accepted. */
  assert_int_equal(chown(root, (uid_t)-1, getegid()), 0);
  ctx = scan_one(root, 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  cudaload_destroy(ctx);
}

/* --- unreadable folders ------------------------------------------------- */

/* The scan of the unreadable cases, as a line: root status, whether the
 * readable library and the one behind chmod 000 were found. */
static void unreadable_scan(char *out, size_t len) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS |
                                      CUDALOAD_ALLOW_WRITABLE_ROOTS);
  cudaload_add_root(ctx, at("unreadable/prefix"));
  cudaload_add_root(ctx, at("unreadable/closed"));
  cudaload_set_target(ctx, CUDALOAD_TARGET_LINUX);
  int rc = cudaload_scan(ctx);
  snprintf(out, len, "rc=%d prefix=%d closed=%d cublas=%d cudnn=%d", rc,
           cudaload_root_status(ctx, 0), cudaload_root_status(ctx, 1),
           has_library(ctx, "cublas"), has_library(ctx, "cudnn"));
  cudaload_destroy(ctx);
}

static void unreadable_folders_are_reported_not_fatal(void **state) {
  (void)state;
  make_dir(at("unreadable"), 0755);
  make_dir(at("unreadable/prefix"), 0755);
  put_file(at("unreadable/prefix/libcublas.so.12"), "readable");
  make_dir(at("unreadable/prefix/lib64"), 0755);
  put_file(at("unreadable/prefix/lib64/libcudnn.so.9"), "behind chmod 000");
  make_dir(at("unreadable/closed"), 0755);
  put_file(at("unreadable/closed/libcufft.so.11"), "behind chmod 000");
  assert_int_equal(chmod(at("unreadable/prefix/lib64"), 0), 0);
  assert_int_equal(chmod(at("unreadable/closed"), 0), 0);
  assert_int_equal(chmod(tree, 0755), 0); /* let another user reach it */

  char line[256];
  if (geteuid() != 0) {
    unreadable_scan(line, sizeof line);
  } else {
    /* Root reads everything: run the scan as "nobody" in a child. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      char result[256];
      if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
        snprintf(result, sizeof result, "no-setuid %s", strerror(errno));
      } else {
        unreadable_scan(result, sizeof result);
      }
      ssize_t n = write(fds[1], result, strlen(result));
      _exit(n > 0 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], line, sizeof line - 1);
    close(fds[0]);
    int wstatus = 0;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus)); /* the scan did not crash */
    line[n > 0 ? n : 0] = '\0';
    if (strncmp(line, "no-setuid", 9) == 0) {
      print_message("skipped: running as root and cannot become nobody "
                    "(%s); root ignores chmod 000\n",
                    line);
      skip();
    }
  }
  /* The readable part is listed; the closed sub-folder hides its own file;
   * a root that cannot be listed is reported as unreadable (E_IO). */
  char want[128];
  snprintf(want, sizeof want, "rc=0 prefix=0 closed=%d cublas=1 cudnn=0",
           CUDALOAD_E_IO);
  assert_string_equal(line, want);
}

/* --- names that are not UTF-8 ------------------------------------------ */

static void non_utf8_names_do_not_break_the_scan(void **state) {
  (void)state;
  make_dir(at("bytes"), 0755);
  make_dir(at("bytes/dir\xff\xfe"), 0755);
  put_file(at("bytes/libcublas.so.12"), "a real name");
  put_file(at("bytes/libcudnn\xff.so.9"), "invalid byte in the name");
  put_file(at("bytes/lib\xc3\x28.so.1"), "a broken two-byte sequence");
  put_file(at("bytes/dir\xff\xfe/libcufft.so.11"), "under a non-UTF-8 root");
  cudaload_ctx *ctx = scan_one(at("bytes"), 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cublas"));
  /* The doctor's JSON report stays producible. */
  char *report = NULL;
  assert_int_equal(cudaload_doctor(ctx, CUDALOAD_FORMAT_JSON, 0, &report),
                   CUDALOAD_OK);
  assert_non_null(report);
  cudaload_free(report);
  cudaload_destroy(ctx);

  /* A root whose own name is not UTF-8: read like any other. */
  ctx = scan_one(at("bytes/dir\xff\xfe"), 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cufft"));
  assert_non_null(strstr(cudaload_library_path(ctx, 0), "dir\xff\xfe"));
  cudaload_destroy(ctx);
}

/* --- device files ------------------------------------------------------- */

static void device_files_named_like_libraries_are_never_read(void **state) {
  (void)state;
  make_dir(at("dev"), 0755);
  /* /dev/zero would never end, /dev/null is empty: both must be skipped as
   * "not a file" without a read. */
  assert_int_equal(symlink("/dev/zero", at("dev/libcudnn.so.9")), 0);
  assert_int_equal(symlink("/dev/null", at("dev/libcublas.so.12")), 0);
  assert_int_equal(symlink("/dev/zero", at("dev/cudnn64_9.dll")), 0);
  int made_node =
      mknod(at("dev/libcufft.so.11"), S_IFCHR | 0600, makedev(1, 5)) == 0;
  if (!made_node)
    print_message("note: mknod not permitted (%s): the device cases use "
                  "symlinks to /dev/zero and /dev/null only\n",
                  strerror(errno));
  cudaload_ctx *ctx = scan_one(at("dev"), 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_library_count(ctx), 0);
  cudaload_destroy(ctx);
  ctx = scan_one(at("dev"), 0, CUDALOAD_TARGET_WINDOWS);
  assert_int_equal(cudaload_library_count(ctx), 0);
  cudaload_destroy(ctx);

  cudaload_file *file = NULL;
  assert_int_equal(cudaload_inspect(at("dev/libcudnn.so.9"), &file),
                   CUDALOAD_E_NOT_A_FILE);
  assert_null(file);
  if (made_node)
    assert_int_equal(cudaload_inspect(at("dev/libcufft.so.11"), &file),
                     CUDALOAD_E_NOT_A_FILE);
}

static void sparse_elf_of_10_gb_is_not_read_whole(void **state) {
  (void)state;
  make_dir(at("sparse"), 0755);
  int fd =
      open(at("sparse/libcublas.so.12"), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd,
                         "\x7f"
                         "ELF\x02\x01\x01",
                         7),
                   7);
  assert_int_equal(ftruncate(fd, (off_t)10 * 1024 * 1024 * 1024), 0);
  close(fd);
  cudaload_file *file = NULL;
  /* Headers only: a status at once (the rest of the file is zeros). */
  int rc = cudaload_inspect(at("sparse/libcublas.so.12"), &file);
  assert_true(rc == CUDALOAD_OK || rc == CUDALOAD_E_MALFORMED);
  if (rc == CUDALOAD_OK)
    assert_string_equal(cudaload_file_soname(file), "");
  cudaload_file_close(file);
  cudaload_ctx *ctx = scan_one(at("sparse"), 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  cudaload_destroy(ctx);
}

/* --- files replaced and roots removed during scans --------------------- */

typedef struct churn {
  volatile int stop;
  int mode; /* 0: replace files, 1: remove and recreate the root */
} churn;

/* Runs beside the scans: no cmocka asserts here, and its own path buffers
 * (at() is not thread-safe). */
static void churn_path(char *out, size_t len, const char *name) {
  snprintf(out, len, "%s/%s", tree, name);
}

static void churn_write(const char *path, const char *content) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(content, f);
    fclose(f);
  }
}

static void churn_pause(void) {
  struct timespec pause = {0, 200 * 1000}; /* 0.2 ms */
  nanosleep(&pause, NULL);
}

static void *churn_thread(void *opaque) {
  churn *c = opaque;
  char tmp[512], lib[512], other[512], root[512], sub[512], file[512];
  churn_path(tmp, sizeof tmp, "churn/tmp");
  churn_path(lib, sizeof lib, "churn/libcublas.so.12");
  churn_path(other, sizeof other, "churn/libcudnn.so.9");
  churn_path(root, sizeof root, "vanish");
  churn_path(sub, sizeof sub, "vanish/lib64");
  churn_path(file, sizeof file, "vanish/lib64/libcublas.so.12");
  for (unsigned n = 0; !c->stop; ++n) {
    if (c->mode == 0) {
      /* Replace by rename, truncate in place, swap in a folder, a link. */
      churn_write(tmp, n % 2 ? "\x7f"
                               "ELF\x02\x01\x01"
                             : "MZ");
      if (rename(tmp, lib) == 0 && n % 4 == 0 && truncate(lib, 0) != 0)
        continue;
      unlink(other);
      if (n % 3 == 0)
        mkdir(other, 0700);
      else if (n % 3 == 1)
        (void)!symlink("libcublas.so.12", other);
      else
        churn_write(other, "back");
      rmdir(other);
    } else {
      mkdir(root, 0755);
      mkdir(sub, 0755);
      churn_write(file, "");
      churn_pause();
      unlink(file);
      rmdir(sub);
      rmdir(root);
      churn_pause();
    }
  }
  return NULL;
}

static void churn_while_scanning(int mode, const char *root) {
  churn c = {0, mode};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, churn_thread, &c), 0);
  int seen_ok = 0, seen_missing = 0;
  /* 300 scans, and more until one has seen the root (it comes and goes). */
  for (int i = 0; i < 300 || (seen_ok == 0 && i < 100000); ++i) {
    cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS |
                                        CUDALOAD_ALLOW_WRITABLE_ROOTS);
    assert_non_null(ctx);
    assert_int_equal(cudaload_add_root(ctx, root), CUDALOAD_OK);
    assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_LINUX),
                     CUDALOAD_OK);
    assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
    int status = cudaload_root_status(ctx, 0);
    if (!(status == CUDALOAD_OK || status == CUDALOAD_E_NOT_FOUND ||
          status == CUDALOAD_E_IO))
      fail_msg("root status %d: %s", status, cudaload_strerror(status));
    seen_ok += status == CUDALOAD_OK;
    seen_missing += status != CUDALOAD_OK;
    assert_true(cudaload_library_count(ctx) <= 2);
    cudaload_require(ctx, "cublas");
    cudaload_plan(ctx, 0); /* planning over a churned inventory: no crash */
    cudaload_destroy(ctx);
  }
  c.stop = 1;
  assert_int_equal(pthread_join(thread, NULL), 0);
  print_message("%d scans found the root, %d did not\n", seen_ok, seen_missing);
}

static void files_replaced_during_scans(void **state) {
  (void)state;
  make_dir(at("churn"), 0755);
  churn_while_scanning(0, at("churn"));
}

static void roots_that_vanish_during_scans(void **state) {
  (void)state;
  churn_while_scanning(1, at("vanish"));
}

/* --- symlink cycles and long paths ------------------------------------- */

static void folder_symlink_cycles_end(void **state) {
  (void)state;
  make_dir(at("cycle"), 0755);
  make_dir(at("cycle/a"), 0755);
  make_dir(at("cycle/b"), 0755);
  put_file(at("cycle/a/libcublas.so.12"), "x");
  assert_int_equal(symlink("../b", at("cycle/a/lib64")), 0); /* a -> b */
  assert_int_equal(symlink("../a", at("cycle/b/lib64")), 0); /* b -> a */
  assert_int_equal(symlink(".", at("cycle/a/lib")), 0);      /* onto itself */
  assert_int_equal(symlink("..", at("cycle/b/lib")), 0);
  make_dir(at("cycle/a/targets"), 0755);
  assert_int_equal(symlink("..", at("cycle/a/targets/x86_64-linux")), 0);
  /* Roots that are link loops: x -> y -> x, and a chain of 50 links. */
  assert_int_equal(symlink("y", at("cycle/x")), 0);
  assert_int_equal(symlink("x", at("cycle/y")), 0);
  for (int i = 0; i < 50; ++i) {
    char from[32], to[32];
    snprintf(from, sizeof from, "cycle/l%d", i);
    snprintf(to, sizeof to, "l%d", (i + 1) % 50);
    assert_int_equal(symlink(to, at(from)), 0);
  }

  cudaload_ctx *ctx = scan_one(at("cycle/a"), 0, CUDALOAD_TARGET_LINUX);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  /* Each real file once, however many ways it is reached. */
  assert_int_equal(cudaload_library_count(ctx), 1);
  cudaload_destroy(ctx);

  ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  assert_int_equal(cudaload_add_root(ctx, at("cycle/x")), CUDALOAD_OK);
  assert_int_equal(cudaload_add_root(ctx, at("cycle/l0")), CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  assert_int_not_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_int_not_equal(cudaload_root_status(ctx, 1), CUDALOAD_OK);
  cudaload_destroy(ctx);
}

static void folder_deeper_than_path_max_is_reported(void **state) {
  (void)state;
  /* Build tree/deep/ddd.../ddd... past PATH_MAX with relative mkdirs. */
  int top = open(tree, O_RDONLY | O_DIRECTORY);
  assert_true(top >= 0);
  char name[201];
  memset(name, 'd', 200);
  name[200] = '\0';
  size_t total = strlen(tree);
  int dir = dup(top);
  while (total < PATH_MAX + 200) {
    assert_int_equal(mkdirat(dir, name, 0755), 0);
    int next = openat(dir, name, O_RDONLY | O_DIRECTORY);
    assert_true(next >= 0);
    close(dir);
    dir = next;
    total += 201;
  }
  int fd = openat(dir, "libcublas.so.12", O_CREAT | O_WRONLY, 0600);
  assert_true(fd >= 0);
  close(fd);
  close(dir);
  close(top);

  char *root = malloc(total + 1);
  assert_non_null(root);
  strcpy(root, tree);
  while (strlen(root) + 201 <= total) {
    strcat(root, "/");
    strcat(root, name);
  }
  assert_true(strlen(root) > PATH_MAX);
  cudaload_ctx *ctx = scan_one(root, 0, CUDALOAD_TARGET_LINUX);
  /* The OS refuses the name (ENAMETOOLONG): reported, not fatal. */
  assert_int_not_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_int_equal(cudaload_library_count(ctx), 0);
  cudaload_destroy(ctx);
  free(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(world_writable_root_is_refused_unless_allowed),
      cmocka_unit_test(writable_library_folder_under_a_root_is_refused),
      cmocka_unit_test(group_writable_root_of_a_foreign_group_is_refused),
      cmocka_unit_test(unreadable_folders_are_reported_not_fatal),
      cmocka_unit_test(non_utf8_names_do_not_break_the_scan),
      cmocka_unit_test(device_files_named_like_libraries_are_never_read),
      cmocka_unit_test(sparse_elf_of_10_gb_is_not_read_whole),
      cmocka_unit_test(files_replaced_during_scans),
      cmocka_unit_test(roots_that_vanish_during_scans),
      cmocka_unit_test(folder_symlink_cycles_end),
      cmocka_unit_test(folder_deeper_than_path_max_is_reported),
  };
  return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
#else
/* Windows: the same refusal, decided from the folder's DACL. Wine maps a
 * folder's DACL onto its Unix mode (a grant of add-file rights to Everyone
 * makes it o+w, and reads back as such), so these cases run under Wine too;
 * where a DACL does not read back as written they skip and say why. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

static wchar_t tree[MAX_PATH];

static char *utf8_of(const wchar_t *wide) {
  static char slots[4][MAX_PATH * 3];
  static unsigned next;
  char *out = slots[next++ % 4];
  int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, out, (int)sizeof slots[0],
                              NULL, NULL);
  assert_true(n > 0);
  return out;
}

/* tree\name, created with the default (inherited) ACL, holding one file
 * named like a CUDA library. */
static const wchar_t *make_root(const wchar_t *name) {
  static wchar_t slots[4][MAX_PATH];
  static unsigned next;
  wchar_t *root = slots[next++ % 4];
  swprintf(root, MAX_PATH, L"%ls\\%ls", tree, name);
  assert_true(CreateDirectoryW(root, NULL));
  wchar_t file[MAX_PATH];
  swprintf(file, MAX_PATH, L"%ls\\cublas64_12.dll", root);
  HANDLE h = CreateFileW(file, GENERIC_WRITE, 0, NULL, CREATE_NEW,
                         FILE_ATTRIBUTE_NORMAL, NULL);
  assert_true(h != INVALID_HANDLE_VALUE);
  DWORD written = 0;
  assert_true(WriteFile(h, "named like a library", 20, &written, NULL));
  CloseHandle(h);
  return root;
}

static int make_tree(void **state) {
  (void)state;
  wchar_t base[MAX_PATH];
  DWORD n = GetTempPathW(MAX_PATH, base);
  if (n == 0 || n >= MAX_PATH - 64)
    return -1;
  swprintf(tree, MAX_PATH, L"%lscudaload-hostile-fs-%lu-%lu", base,
           (unsigned long)GetCurrentProcessId(), (unsigned long)GetTickCount());
  return CreateDirectoryW(tree, NULL) ? 0 : -1;
}

/* The test folders are two levels deep: tree\root\file. */
static void remove_all(const wchar_t *path) {
  wchar_t pattern[MAX_PATH];
  swprintf(pattern, MAX_PATH, L"%ls\\*", path);
  WIN32_FIND_DATAW found;
  HANDLE h = FindFirstFileW(pattern, &found);
  if (h != INVALID_HANDLE_VALUE) {
    do {
      if (wcscmp(found.cFileName, L".") == 0 ||
          wcscmp(found.cFileName, L"..") == 0)
        continue;
      wchar_t child[MAX_PATH];
      swprintf(child, MAX_PATH, L"%ls\\%ls", path, found.cFileName);
      if (found.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
        remove_all(child);
      else
        DeleteFileW(child);
    } while (FindNextFileW(h, &found));
    FindClose(h);
  }
  RemoveDirectoryW(path);
}

static int remove_tree(void **state) {
  (void)state;
  remove_all(tree);
  return 0;
}

static cudaload_ctx *scan_one(const wchar_t *root, unsigned flags) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS | flags);
  assert_non_null(ctx);
  assert_int_equal(cudaload_add_root(ctx, utf8_of(root)), CUDALOAD_OK);
  assert_int_equal(cudaload_set_target(ctx, CUDALOAD_TARGET_WINDOWS),
                   CUDALOAD_OK);
  assert_int_equal(cudaload_scan(ctx), CUDALOAD_OK);
  return ctx;
}

static int has_library(const cudaload_ctx *ctx, const char *name) {
  for (size_t i = 0; i < cudaload_library_count(ctx); ++i)
    if (strcmp(cudaload_library_name(ctx, i), name) == 0)
      return 1;
  return 0;
}

/* Whether the DACL of `path` now lets Everyone add files: the check that the
 * file system kept what SetNamedSecurityInfoW was given. */
static int everyone_may_add_files(const wchar_t *path) {
  PACL dacl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  if (GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                            NULL, NULL, &dacl, NULL, &sd) != ERROR_SUCCESS)
    return 0;
  BYTE everyone[SECURITY_MAX_SID_SIZE];
  DWORD size = sizeof everyone;
  int found = 0;
  if (dacl && CreateWellKnownSid(WinWorldSid, NULL, everyone, &size)) {
    for (DWORD i = 0; i < dacl->AceCount && !found; ++i) {
      ACCESS_ALLOWED_ACE *ace = NULL;
      if (GetAce(dacl, i, (LPVOID *)&ace) &&
          ace->Header.AceType == ACCESS_ALLOWED_ACE_TYPE &&
          !(ace->Header.AceFlags & INHERIT_ONLY_ACE) &&
          (ace->Mask & FILE_ADD_FILE) && EqualSid(&ace->SidStart, everyone))
        found = 1;
    }
  }
  LocalFree(sd);
  return found;
}

static void default_acl_root_is_accepted(void **state) {
  (void)state;
  const wchar_t *root = make_root(L"default");
  cudaload_ctx *ctx = scan_one(root, 0);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cublas"));
  assert_string_equal(cudaload_last_error(), "");
  cudaload_destroy(ctx);
}

static void
root_everyone_may_add_files_to_is_refused_unless_allowed(void **state) {
  (void)state;
  const wchar_t *root = make_root(L"everyone");
  if (everyone_may_add_files(root)) {
    print_message("skipped: a new folder under %s already lets Everyone add "
                  "files, so the grant below would prove nothing\n",
                  utf8_of(tree));
    skip();
  }

  /* Add "Everyone: add files" to the folder's own DACL. */
  PACL old_dacl = NULL, new_dacl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  assert_int_equal(GetNamedSecurityInfoW(root, SE_FILE_OBJECT,
                                         DACL_SECURITY_INFORMATION, NULL, NULL,
                                         &old_dacl, NULL, &sd),
                   ERROR_SUCCESS);
  BYTE everyone[SECURITY_MAX_SID_SIZE];
  DWORD size = sizeof everyone;
  assert_true(CreateWellKnownSid(WinWorldSid, NULL, everyone, &size));
  EXPLICIT_ACCESS_W grant = {0};
  grant.grfAccessPermissions = FILE_ADD_FILE;
  grant.grfAccessMode = GRANT_ACCESS;
  grant.grfInheritance = NO_INHERITANCE;
  grant.Trustee.TrusteeForm = TRUSTEE_IS_SID;
  grant.Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
  grant.Trustee.ptstrName = (LPWSTR)(void *)everyone;
  assert_int_equal(SetEntriesInAclW(1, &grant, old_dacl, &new_dacl),
                   ERROR_SUCCESS);
  DWORD err = SetNamedSecurityInfoW((LPWSTR)root, SE_FILE_OBJECT,
                                    DACL_SECURITY_INFORMATION, NULL, NULL,
                                    new_dacl, NULL);
  LocalFree(new_dacl);
  LocalFree(sd);
  if (err != ERROR_SUCCESS) {
    print_message("skipped: SetNamedSecurityInfoW failed with error %lu; "
                  "this file system keeps no DACL\n",
                  (unsigned long)err);
    skip();
  }
  if (!everyone_may_add_files(root)) {
    print_message("skipped: SetNamedSecurityInfoW succeeded but the DACL "
                  "reads back without the grant; this file system does not "
                  "keep DACLs\n");
    skip();
  }

  cudaload_ctx *ctx = scan_one(root, 0);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_INSECURE);
  assert_int_equal(cudaload_library_count(ctx), 0);
  /* The scan says which folder, who can write to it and what they may do. */
  const char *why = cudaload_last_error();
  assert_non_null(strstr(why, utf8_of(root)));
  assert_non_null(strstr(why, "writable by "));
  assert_non_null(strstr(why, "S-1-1-0"));
  assert_non_null(strstr(why, "add files"));
  assert_non_null(strstr(why, "CUDALOAD_ALLOW_WRITABLE_ROOTS"));
  cudaload_destroy(ctx);

  /* The caller opts in. */
  ctx = scan_one(root, CUDALOAD_ALLOW_WRITABLE_ROOTS);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_OK);
  assert_true(has_library(ctx, "cublas"));
  assert_string_equal(cudaload_last_error(), "");
  cudaload_destroy(ctx);
}

/* A NULL DACL (not an empty one) grants everyone full control. */
static void root_without_a_dacl_is_refused(void **state) {
  (void)state;
  const wchar_t *root = make_root(L"nulldacl");
  DWORD err =
      SetNamedSecurityInfoW((LPWSTR)root, SE_FILE_OBJECT,
                            DACL_SECURITY_INFORMATION, NULL, NULL, NULL, NULL);
  PACL dacl = NULL;
  PSECURITY_DESCRIPTOR sd = NULL;
  DWORD read_err =
      GetNamedSecurityInfoW(root, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                            NULL, NULL, &dacl, NULL, &sd);
  int kept = err == ERROR_SUCCESS && read_err == ERROR_SUCCESS && !dacl;
  LocalFree(sd);
  if (!kept) {
    print_message("skipped: setting a NULL DACL did not stick (set: error "
                  "%lu, read back: error %lu, %s DACL); Wine keeps the DACL "
                  "it derives from the Unix mode\n",
                  (unsigned long)err, (unsigned long)read_err,
                  dacl ? "a" : "no");
    skip();
  }
  cudaload_ctx *ctx = scan_one(root, 0);
  assert_int_equal(cudaload_root_status(ctx, 0), CUDALOAD_E_INSECURE);
  assert_non_null(strstr(cudaload_last_error(), "no access control list"));
  cudaload_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(default_acl_root_is_accepted),
      cmocka_unit_test(
          root_everyone_may_add_files_to_is_refused_unless_allowed),
      cmocka_unit_test(root_without_a_dacl_is_refused),
  };
  return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
#endif
