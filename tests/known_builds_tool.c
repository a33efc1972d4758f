/* SPDX-License-Identifier: MIT */
/*
 * known_builds_tool.c - what scripts/known-builds asks of real library
 * files, answered by the library's own code: each file's build identity
 * (cl_binary_info.build_id), whether the library would search it for names
 * (a CUDA library by its name or SONAME that imports a loader function),
 * the names that search finds (binary_names.h, the table left out), and
 * what the table of known builds says of it (known_builds.h).
 *
 *   known_builds_tool FILE...
 *
 * One JSON object per line and file: {"path", "build_id", "size",
 * "searched", "names", "known", "table"}; "known" and "table" are the
 * table's answer for the file's identity at its size (known_builds.h),
 * "names" and "table" null where they do not apply. Exit status 0, or 2
 * for no arguments.
 */
#include "binary/binary.h"
#include "binary/binary_names.h"
#include "binary/binary_symbols.h"
#include "binary/known_builds.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct name_list {
  char **names;
  size_t count, capacity;
} name_list;

static int keep(const char *name, void *opaque) {
  name_list *l = opaque;
  for (size_t i = 0; i < l->count; ++i)
    if (strcmp(l->names[i], name) == 0)
      return 0;
  if (cl_reserve((void **)&l->names, &l->capacity, l->count + 1,
                 sizeof *l->names))
    return 1;
  if (!(l->names[l->count] = cl_strdup(name)))
    return 1;
  l->count++;
  return 0;
}

/* A JSON string: names are letters, digits and "._-+" (binary_names.c);
 * a path's bytes from 0x80 up go out as they are (UTF-8 where the file
 * system's names are; the script reads them so). */
static void json_string(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static void json_names(const char *const *names, size_t count) {
  putchar('[');
  for (size_t i = 0; i < count; ++i) {
    if (i)
      putchar(',');
    json_string(names[i]);
  }
  putchar(']');
}

static int is_cuda_library(const char *path, const cl_binary_info *info) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  cl_naming naming =
      info->format == CL_FORMAT_PE ? CL_NAMING_WINDOWS : CL_NAMING_LINUX;
  cl_name_match m;
  return (info->soname && cl_catalog_match_renamed(info->soname, naming, &m)) ||
         cl_catalog_match_renamed(base, naming, &m);
}

static void report(const char *path) {
  cl_binary_info info;
  cl_binary_symbols symbols;
  printf("{\"path\":");
  json_string(path);
  if (cl_binary_inspect_file(path, &info, &symbols) != 0) {
    printf(",\"build_id\":\"\",\"size\":0,\"searched\":false,\"names\":null,"
           "\"known\":false,\"table\":null}\n");
    return;
  }
  int searched =
      is_cuda_library(path, &info) && cl_binary_symbols_open_by_name(&symbols);
  cl_file_stamp stamp;
  uint64_t size = cl_os_path_stamp(path, &stamp) ? stamp.size : 0;
  printf(",\"build_id\":");
  json_string(info.build_id);
  printf(",\"size\":%llu", (unsigned long long)size);
  printf(",\"searched\":%s,\"names\":", searched ? "true" : "false");
  name_list found = {NULL, 0, 0};
  if (searched && cl_binary_names(path, (uint64_t)2 << 30, keep, &found) == 0)
    json_names((const char *const *)found.names, found.count);
  else
    printf("null");
  const char *const *table;
  size_t count;
  int known = cl_known_build_names(info.build_id, size, &table, &count);
  printf(",\"known\":%s,\"table\":", known ? "true" : "false");
  if (known)
    json_names(table, count);
  else
    printf("null");
  printf("}\n");
  for (size_t i = 0; i < found.count; ++i)
    free(found.names[i]);
  free(found.names);
  cl_binary_info_free(&info);
  cl_binary_symbols_free(&symbols);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: known_builds_tool FILE...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i)
    report(argv[i]);
  return 0;
}
