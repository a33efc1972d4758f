/* SPDX-License-Identifier: MIT */
/*
 * proc_maps.h - the lines of Linux's /proc/PID/maps, parsed without a limit
 * on their length ("start-end perms offset major:minor inode   path"), for
 * `cudaload explain --pid` (process_posix.c). Pure: text in, entries out,
 * so the fuzzer (fuzz/fuzz_maps.c) can give it anything.
 *
 * What the kernel writes (fs/proc/task_mmu.c, show_map_vma): the range and
 * offset in hex, the device as hex major:minor, the inode in decimal, then
 * for a file its path, in which a newline is written \012 (mangle_path;
 * nothing else is escaped, a backslash included, so "\012" in a name reads
 * back as a newline: the caller checks device and inode), followed by
 * " (deleted)" once the file is unlinked.
 */
#ifndef CUDALOAD_PROC_MAPS_H
#define CUDALOAD_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct cl_maps_entry {
  uint64_t start, end; /* the mapped range: map_files/<start>-<end> */
  unsigned long dev_major, dev_minor;
  uint64_t inode;
  /* The path field with \012 read back as a newline, malloc'ed; NULL for
   * memory that is not a file's (anonymous, [heap], [stack], [vdso]). */
  char *path;
  /* The path ended in " (deleted)", which is cut off: the kernel's mark of
   * an unlinked file, or (rarely) part of the name: the caller decides. */
  int deleted_mark;
} cl_maps_entry;

/* Called for each line in order; the entry (its path too) is the
 * callee's to keep or free (cl_maps_entry_free). Returns non-zero to stop. */
typedef int (*cl_maps_visitor)(cl_maps_entry *entry, void *opaque);

/* Parse one line (without its newline; it may hold NUL bytes, which a
 * kernel never writes: such a line is malformed). 0 with *out filled,
 * CUDALOAD_E_MALFORMED (last error naming the field) or
 * CUDALOAD_E_NO_MEMORY. */
int cl_maps_parse_line(const char *line, size_t len, cl_maps_entry *out);

/* Parse a whole maps text: every line, the last one with or without its
 * newline; a malformed line stops the parse with CUDALOAD_E_MALFORMED. */
int cl_maps_parse(const char *text, size_t len, cl_maps_visitor visit,
                  void *opaque);

void cl_maps_entry_free(cl_maps_entry *entry);

#endif
