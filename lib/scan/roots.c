/* SPDX-License-Identifier: MIT */
/* roots.c - the default search roots of the host, in search order, and the
 * precedence tier of each origin (docs/scan-contract.md, "Precedence"). */
#include "scan/roots.h"
#include "cudaload.h"
#include "common/error.h"
#include "os/platform.h"
#include "common/strutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct env_root_walk {
  cl_root_visitor visit;
  void *opaque;
} env_root_walk;

static void visit_env(const char *name, cl_root_visitor visit, void *opaque) {
  char *value = cl_os_getenv(name);
  /* A relative value would make the result depend on the current folder:
   * never search it. */
  if (value && *value && cl_os_path_is_absolute(value))
    visit(value, name, opaque);
  free(value);
}

static void visit_versioned_cuda_path(const char *name, const char *value,
                                      void *opaque) {
  env_root_walk *w = opaque;
  if (*value && cl_os_path_is_absolute(value)) {
    /* The origin must outlive the scan: all CUDA_PATH_V* share one. */
    (void)name;
    w->visit(value, "CUDA_PATH_V*", w->opaque);
  }
}

/* The variables that point at one CUDA or cuDNN install, in the order the
 * issue tracker's users expect them to win: a family's own (the catalog
 * rows' path_variable: CUDNN_PATH), then the toolkit's. */
static void variable_roots(cl_root_visitor visit, void *opaque) {
  size_t count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  for (size_t i = 0; i < count; ++i)
    if (rows[i].path_variable)
      visit_env(rows[i].path_variable, visit, opaque);
  visit_env("CUDA_PATH", visit, opaque);
  env_root_walk w = {visit, opaque};
  cl_os_env_each_with_prefix("CUDA_PATH_V", visit_versioned_cuda_path, &w);
  visit_env("CUDA_HOME", visit, opaque);
}

/* Sub-folders of parent whose names start with prefix, newest version first
 * (so /usr/local/cuda-13.0 comes before /usr/local/cuda-12.4). */
static int has_prefix(const char *name, const void *prefix) {
  return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Compare dotted versions numerically, descending: "13.0" < "12.10" is
 * wrong as strings. */
static int newest_first(const void *a, const void *b) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  while (*x || *y) {
    while (*x && (*x < '0' || *x > '9'))
      ++x;
    while (*y && (*y < '0' || *y > '9'))
      ++y;
    char *after_x, *after_y;
    long vx = strtol(x, &after_x, 10), vy = strtol(y, &after_y, 10);
    x = after_x;
    y = after_y;
    if (vx != vy)
      return vx < vy ? 1 : -1;
    if (!*x || !*y)
      break;
  }
  return strcmp(*(char *const *)b, *(char *const *)a);
}

static void versioned_children(const char *parent, const char *prefix,
                               const char *tail, const char *origin,
                               cl_root_visitor visit, void *opaque) {
  cl_name_list p;
  /* Out of memory costs the names not listed, nothing more; a parent that
   * cannot be listed has no roots to give (cl_name_list_read writes no
   * error). */
  (void)cl_name_list_read(parent, has_prefix, prefix, newest_first, &p);
  for (size_t i = 0; i < p.count; ++i) {
    char *child = cl_path_join(parent, p.names[i]);
    char *root = child && tail ? cl_path_join(child, tail) : NULL;
    if (child)
      visit(tail ? (root ? root : child) : child, origin, opaque);
    free(root);
    free(child);
  }
  cl_name_list_free(&p);
}

/* The toolkit and cuDNN installers' folders, and System32 for the driver. */
static void windows_roots(cl_root_visitor visit, void *opaque) {
  char *program_files = cl_os_getenv("ProgramFiles");
  if (program_files && cl_os_path_is_absolute(program_files)) {
    char *toolkits =
        cl_path_join(program_files, "NVIDIA GPU Computing Toolkit\\CUDA");
    char *cudnn = cl_path_join(program_files, "NVIDIA\\CUDNN");
    if (toolkits)
      versioned_children(toolkits, "v", NULL, "toolkit", visit, opaque);
    if (cudnn)
      versioned_children(cudnn, "v", NULL, "cudnn installer", visit, opaque);
    free(toolkits);
    free(cudnn);
  }
  free(program_files);
  char *system_root = cl_os_getenv("SystemRoot");
  if (system_root && cl_os_path_is_absolute(system_root)) {
    char *system32 = cl_path_join(system_root, "System32");
    if (system32)
      visit(system32, "system", opaque);
    free(system32);
  }
  free(system_root);
}

static void linux_roots(cl_root_visitor visit, void *opaque) {
  visit("/usr/local/cuda", "toolkit", opaque);
  versioned_children("/usr/local", "cuda-", NULL, "toolkit", visit, opaque);
  visit("/opt/cuda", "toolkit", opaque);
  /* What the dynamic loader itself would find, without `ldconfig -p`. */
  visit("/etc/ld.so.cache", CL_ORIGIN_LDCACHE, opaque);
  const char *machine = cl_os_host_machine();
  int x86_64 = machine && strcmp(machine, "x86_64") == 0;
  int aarch64 = machine && strcmp(machine, "aarch64") == 0;
  /* Jetson (L4T) keeps the driver, libnvcudla.so and their relatives in
   * this folder; JetPack lists it in ld.so.conf, but a container that
   * mounts it need not have run ldconfig. A few hundred files. */
  if (aarch64)
    visit("/usr/lib/aarch64-linux-gnu/tegra", "system", opaque);
  /* The cache lists what ldconfig found in the system folders (NVIDIA's apt
   * packages and the driver land there). Only a system without a cache, as
   * some containers are, needs the folders listed: they hold thousands of
   * files. */
  if (cl_os_stat_kind("/etc/ld.so.cache", NULL) == CL_KIND_REGULAR)
    return;
  if (x86_64)
    visit("/usr/lib/x86_64-linux-gnu", "system", opaque);
  else if (aarch64)
    visit("/usr/lib/aarch64-linux-gnu", "system", opaque);
  visit("/usr/lib64", "system", opaque);
}

void cl_default_roots(cl_naming naming, int with_environment,
                      cl_root_visitor visit, void *opaque) {
  (void)naming;
  if (with_environment)
    cl_environment_roots(visit, opaque);
  variable_roots(visit, opaque);
  if (cl_os_host_target() == CUDALOAD_TARGET_WINDOWS)
    windows_roots(visit, opaque);
  else
    linux_roots(visit, opaque);
}

/* --- tiers ---------------------------------------------------------------- */

static const struct {
  const char *origin;
  cl_root_tier tier;
} origin_tiers[] = {
    {"explicit", CL_TIER_EXPLICIT},
    {CL_ORIGIN_INTERPRETER, CL_TIER_ENVIRONMENT},
    {"VIRTUAL_ENV", CL_TIER_ENVIRONMENT},
    {"CONDA_PREFIX", CL_TIER_ENVIRONMENT},
    {CL_ORIGIN_PYTHON_ON_PATH, CL_TIER_ENVIRONMENT},
    {CL_ORIGIN_RECORDED, CL_TIER_ENVIRONMENT},
    /* and a family's own variable (CUDNN_PATH), below */
    {"CUDA_PATH", CL_TIER_VARIABLE},
    {"CUDA_PATH_V*", CL_TIER_VARIABLE},
    {"CUDA_HOME", CL_TIER_VARIABLE},
    {"toolkit", CL_TIER_TOOLKIT},
    {"cudnn installer", CL_TIER_TOOLKIT},
};

cl_root_tier cl_origin_tier(const char *origin) {
  for (size_t i = 0; origin && i < sizeof origin_tiers / sizeof *origin_tiers;
       ++i)
    if (strcmp(origin, origin_tiers[i].origin) == 0)
      return origin_tiers[i].tier;
  size_t count;
  const cl_catalog_family *rows = cl_catalog_families(&count);
  for (size_t i = 0; origin && i < count; ++i)
    if (rows[i].path_variable && strcmp(origin, rows[i].path_variable) == 0)
      return CL_TIER_VARIABLE;
  return CL_TIER_SYSTEM;
}

const char *cl_tier_name(cl_root_tier tier) {
  switch (tier) {
  case CL_TIER_EXPLICIT:
    return "explicit";
  case CL_TIER_ENVIRONMENT:
    return "environment";
  case CL_TIER_VARIABLE:
    return "variable";
  case CL_TIER_TOOLKIT:
    return "toolkit";
  case CL_TIER_SYSTEM:
    break;
  }
  return "system";
}
