/* SPDX-License-Identifier: MIT */
/*
 * catalog_wheels.c - the questions about NVIDIA's pip wheels, answered from
 * the family rows (catalog.c, where each family's wheels are): the wheel of
 * a family for a CUDA major, the family a distribution ships, and the
 * variable that names a family's folder. The fix lines (load/fix_lines.c)
 * and the plan's warnings name packages from here.
 */
#include "scan/catalog_wheels.h"

#include <string.h>

/* Each wheel of each family row, in row order: calls fn(wheel, opaque)
 * until it returns non-zero; returns that wheel, or NULL. */
static const cl_catalog_wheel *each_wheel(int (*fn)(const cl_catalog_wheel *w,
                                                    const void *opaque),
                                          const void *opaque) {
  size_t count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  for (size_t i = 0; i < count; ++i)
    for (const cl_catalog_wheel *w = rows[i].wheels;
         w < rows[i].wheels + CL_FAMILY_WHEELS && w->package; ++w)
      if (fn(w, opaque))
        return w;
  return NULL;
}

void cl_catalog_wheels_each(void (*fn)(const char *family, int cuda_major,
                                       const char *package, void *opaque),
                            void *opaque) {
  size_t count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  for (size_t i = 0; i < count; ++i)
    for (const cl_catalog_wheel *w = rows[i].wheels;
         w < rows[i].wheels + CL_FAMILY_WHEELS && w->package; ++w)
      fn(w->family, w->cuda_major, w->package, opaque);
}

const cl_catalog_wheel *cl_catalog_wheel_find(const char *family, int cuda,
                                              long abi, cl_naming naming) {
  const cl_catalog_family *row = cl_catalog_family_find(family);
  for (const cl_catalog_wheel *w = row ? row->wheels : NULL;
       w && w < row->wheels + CL_FAMILY_WHEELS && w->package; ++w) {
    if (w->cuda_major != cuda)
      continue;
    if (abi && w->min_abi && (abi < w->min_abi || abi > w->max_abi))
      continue;
    if (w->linux_only && naming == CL_NAMING_WINDOWS)
      continue;
    return w;
  }
  return NULL;
}

const char *cl_catalog_path_variable(const char *family) {
  /* A family that ships apart from the toolkit names its own (cuDNN:
   * frameworks read CUDNN_PATH). */
  const cl_catalog_family *row = cl_catalog_family_find(family);
  return row && row->path_variable ? row->path_variable : "CUDA_PATH";
}

/* PEP 503's normalized form compares: letters without case, and runs of
 * '-', '_' and '.' as one '-'. */
static int same_distribution(const char *a, size_t a_len, const char *b) {
  size_t i = 0, j = 0, b_len = strlen(b);
  while (i < a_len && j < b_len) {
    int sa = a[i] == '-' || a[i] == '_' || a[i] == '.';
    int sb = b[j] == '-' || b[j] == '_' || b[j] == '.';
    if (sa != sb)
      return 0;
    if (sa) {
      while (i < a_len && (a[i] == '-' || a[i] == '_' || a[i] == '.'))
        ++i;
      while (j < b_len && (b[j] == '-' || b[j] == '_' || b[j] == '.'))
        ++j;
      continue;
    }
    char ca = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
    char cb = b[j] >= 'A' && b[j] <= 'Z' ? (char)(b[j] - 'A' + 'a') : b[j];
    if (ca != cb)
      return 0;
    ++i;
    ++j;
  }
  return i == a_len && j == b_len;
}

typedef struct package_name {
  const char *name;
  size_t len;
} package_name;

static int is_package(const cl_catalog_wheel *w, const void *opaque) {
  const package_name *p = opaque;
  return same_distribution(p->name, p->len, w->package);
}

const cl_catalog_wheel *cl_catalog_wheel_by_package(const char *package,
                                                    size_t len) {
  package_name p = {package, len};
  return each_wheel(is_package, &p);
}

const cl_catalog_wheel *cl_catalog_wheel_ships(const char *package,
                                               const char *family, long abi,
                                               int cuda, const char *folder) {
  size_t len = strlen(package);
  const cl_catalog_family *row = cl_catalog_family_find(family);
  for (const cl_catalog_wheel *w = row ? row->wheels : NULL;
       w && w < row->wheels + CL_FAMILY_WHEELS && w->package; ++w)
    if ((!cuda || w->cuda_major == cuda) &&
        (!w->min_abi || (abi >= w->min_abi && abi <= w->max_abi)) &&
        (!folder || strcmp(w->folder, folder) == 0) &&
        same_distribution(package, len, w->package))
      return w;
  return NULL;
}
