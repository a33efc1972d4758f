/*
 * fix_lines.c - the command printed to fix a missing requirement: the
 * package that provides the library, for the CUDA major it is built for,
 * and the variable that points at a folder holding it.
 */
#include "fix_lines.h"
#include "catalog.h"
#include "strutil.h"

#include <stdio.h>
#include <string.h>

/* One concrete command that fixes a missing requirement, malloc'ed. */
char *cl_fix_for_missing(const cudaload_ctx *ctx, const cl_requirement *r) {
  int naming = cl_ctx_naming(ctx);
  const char *family = r->entry->family;
  long major = r->op == CL_OP_ANY ? 0 : r->version[0];
  const char *var = strcmp(family, "cudnn") == 0 ? "CUDNN_PATH" : "CUDA_PATH";
  char pip[160] = "";
  if (strcmp(family, "cudnn") == 0) {
    if (major == 8)
      snprintf(pip, sizeof pip, "pip install \"nvidia-cudnn-cu12==8.9.*\"");
    else
      snprintf(pip, sizeof pip, "pip install \"nvidia-cudnn-cu12==%ld.*\"",
               major ? major : 9);
  } else {
    static const struct {
      const char *family, *package;
    } packages[] = {
        {"cudart", "nvidia-cuda-runtime"}, {"cublas", "nvidia-cublas"},
        {"nvrtc", "nvidia-cuda-nvrtc"},    {"nvjitlink", "nvidia-nvjitlink"},
        {"cufft", "nvidia-cufft"},         {"curand", "nvidia-curand"},
        {"cusparse", "nvidia-cusparse"},   {"cusolver", "nvidia-cusolver"},
        {"nccl", "nvidia-nccl"},           {"cupti", "nvidia-cuda-cupti"}};
    for (size_t i = 0; i < sizeof packages / sizeof *packages; ++i)
      if (strcmp(packages[i].family, family) == 0) {
        /* CUDA 11 and 12 wheels carry a -cuNN suffix; CUDA 13's do not. */
        int cuda =
            (int)(major ? cl_catalog_cuda_major(r->entry, (int)major) : 0);
        if (cuda == 11 || cuda == 12)
          snprintf(pip, sizeof pip, "pip install \"%s-cu%d\"",
                   packages[i].package, cuda);
        else
          snprintf(pip, sizeof pip, "pip install \"%s\"", packages[i].package);
      }
  }
  char fix[512];
  snprintf(fix, sizeof fix,
           "%s (then pass its site-packages folder as a root), or set %s to "
           "the folder that holds %s",
           pip, var,
           naming == CL_NAMING_WINDOWS ? "the DLLs" : "the libraries");
  return cl_strdup(fix);
}
