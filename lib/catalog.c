/*
 * catalog.c - the naming conventions of CUDA libraries, in one table.
 *
 * Sources: the SONAMEs and DLL names NVIDIA ships in its toolkits, wheels
 * and installers (DESIGN.md "Names and places"). Numbers in names are the
 * library's own ABI major, not the CUDA major: cuFFT is 11 on CUDA 12.
 * Matching is exact against these templates, so libcublasLt.so.12 is never
 * taken for cublas and libcudnn_ops_infer.so.8 never for cudnn.
 */
#include "catalog.h"

#include <stdio.h>
#include <string.h>

#define CUDNN8_SUB(n)                                                          \
  {                                                                            \
    "cudnn_" n, "cudnn", CL_ROLE_SUB, 8, 8, {"libcudnn_" n ".so.%M%V", NULL},  \
        {"cudnn_" n "64_%M.dll", NULL}, 0, {                                   \
      { 0, 0 }                                                                 \
    }                                                                          \
  }
#define CUDNN9_SUB(n)                                                          \
  {                                                                            \
    "cudnn_" n, "cudnn", CL_ROLE_SUB, 9, 9, {"libcudnn_" n ".so.%M%V", NULL},  \
        {"cudnn_" n "64_%M.dll", NULL}, 0, {                                   \
      { 0, 0 }                                                                 \
    }                                                                          \
  }

static const cl_catalog_entry catalog[] = {
    {"cudart",
     "cudart",
     CL_ROLE_MAIN,
     11,
     13,
     {"libcudart.so.%M%V", NULL},
     /* CUDA 11 named it after major and minor (cudart64_110.dll). */
     {"cudart64_%M0.dll", "cudart64_%M.dll", NULL},
     1,
     {{0, 0}}},
    {"cublas",
     "cublas",
     CL_ROLE_MAIN,
     11,
     13,
     {"libcublas.so.%M%V", NULL},
     {"cublas64_%M.dll", NULL},
     1,
     {{0, 0}}},
    {"cublasLt",
     "cublas",
     CL_ROLE_SUB,
     11,
     13,
     {"libcublasLt.so.%M%V", NULL},
     {"cublasLt64_%M.dll", NULL},
     1,
     {{0, 0}}},
    {"cudnn",
     "cudnn",
     CL_ROLE_MAIN,
     8,
     9,
     {"libcudnn.so.%M%V", NULL},
     {"cudnn64_%M.dll", NULL},
     0,
     {{0, 0}}},
    CUDNN8_SUB("ops_infer"),
    CUDNN8_SUB("ops_train"),
    CUDNN8_SUB("cnn_infer"),
    CUDNN8_SUB("cnn_train"),
    CUDNN8_SUB("adv_infer"),
    CUDNN8_SUB("adv_train"),
    CUDNN9_SUB("graph"),
    CUDNN9_SUB("ops"),
    CUDNN9_SUB("cnn"),
    CUDNN9_SUB("adv"),
    CUDNN9_SUB("heuristic"),
    CUDNN9_SUB("engines_precompiled"),
    CUDNN9_SUB("engines_runtime_compiled"),
    CUDNN9_SUB("engines_tensor_ir"),
    CUDNN9_SUB("ext"),
    {"nvrtc",
     "nvrtc",
     CL_ROLE_MAIN,
     11,
     13,
     {"libnvrtc.so.%M%V", NULL},
     /* nvrtc64_120_0.dll: major, one digit of minor, then "_0". */
     {"nvrtc64_%M%m_0.dll", NULL},
     1,
     {{0, 0}}},
    {"nvJitLink",
     "nvjitlink",
     CL_ROLE_MAIN,
     12,
     13,
     {"libnvJitLink.so.%M%V", NULL},
     {"nvJitLink_%M%m_0.dll", NULL},
     1,
     {{0, 0}}},
    {"cufft",
     "cufft",
     CL_ROLE_MAIN,
     10,
     12,
     {"libcufft.so.%M%V", NULL},
     {"cufft64_%M.dll", NULL},
     0,
     {{10, 11}, {11, 12}, {12, 13}, {0, 0}}},
    {"curand",
     "curand",
     CL_ROLE_MAIN,
     10,
     10,
     {"libcurand.so.%M%V", NULL},
     {"curand64_%M.dll", NULL},
     0,
     {{0, 0}}},
    /* cuSPARSE 12 ships with CUDA 12 and 13; cuSOLVER 11 with CUDA 11 and
     * 12: the name alone cannot tell those apart. */
    {"cusparse",
     "cusparse",
     CL_ROLE_MAIN,
     11,
     12,
     {"libcusparse.so.%M%V", NULL},
     {"cusparse64_%M.dll", NULL},
     0,
     {{11, 11}, {0, 0}}},
    {"cusolver",
     "cusolver",
     CL_ROLE_MAIN,
     11,
     12,
     {"libcusolver.so.%M%V", NULL},
     {"cusolver64_%M.dll", NULL},
     0,
     {{12, 13}, {0, 0}}},
    {"nccl",
     "nccl",
     CL_ROLE_MAIN,
     2,
     2,
     {"libnccl.so.%M%V", NULL},
     {NULL},
     0,
     {{0, 0}}},
    /* CUPTI on Windows is named after its own year-based version. */
    {"cupti",
     "cupti",
     CL_ROLE_MAIN,
     11,
     13,
     {"libcupti.so.%M%V", NULL},
     {"cupti64_%Y.dll", NULL},
     1,
     {{0, 0}}},
    /* The driver: the real file carries the driver version
     * (libcuda.so.580.65.06) behind the libcuda.so.1 link. */
    {"cuda",
     "driver",
     CL_ROLE_MAIN,
     1,
     1,
     {"libcuda.so.%D", NULL},
     {"nvcuda.dll", NULL},
     0,
     {{0, 0}}},
    {"nvml",
     "driver",
     CL_ROLE_MAIN,
     1,
     1,
     {"libnvidia-ml.so.%D", NULL},
     {"nvml.dll", NULL},
     0,
     {{0, 0}}},
};

const cl_catalog_entry *cl_catalog_entries(size_t *count) {
  *count = sizeof catalog / sizeof catalog[0];
  return catalog;
}

const cl_catalog_entry *cl_catalog_find(const char *name) {
  for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; ++i)
    if (strcmp(catalog[i].name, name) == 0)
      return &catalog[i];
  return NULL;
}

int cl_catalog_cuda_major(const cl_catalog_entry *entry, int abi_major) {
  for (const cl_cuda_of_major *m = entry->cuda_of_major; m->abi_major; ++m)
    if (m->abi_major == abi_major)
      return m->cuda_major;
  /* Year-based majors (CUPTI on Windows) are not CUDA majors. */
  if (entry->same_as_cuda && abi_major < 100)
    return abi_major;
  return 0;
}

/* What a template match captured. */
typedef struct captures {
  const char *major;
  size_t major_len;
  const char *tail; /* %V: ".9.7" */
  size_t tail_len;
  const char *dotted; /* %D or %Y */
  size_t dotted_len;
  int have_year;
  int fold_case; /* Windows file names are case-insensitive */
} captures;

static char fold(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Length of a run of 1..max digits starting at s (0 when none). */
static size_t digit_run(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && is_digit(s[n]))
    ++n;
  return n;
}

/* Match template t against the rest of name s, backtracking over the
 * variable-length fields. Templates are short and fixed, names are file
 * names, so the recursion depth is bounded by the template length. */
static int match_template(const char *t, const char *s, captures *cap) {
  if (*t == '\0')
    return *s == '\0';
  if (t[0] != '%') {
    int same = cap->fold_case ? fold(*t) == fold(*s) : *t == *s;
    return same && match_template(t + 1, s + 1, cap);
  }
  switch (t[1]) {
  case 'M': {
    /* Longest first, so "cudart64_%M.dll" takes all digits. */
    for (size_t n = digit_run(s, 4); n >= 1; --n) {
      cap->major = s;
      cap->major_len = n;
      if (match_template(t + 2, s + n, cap))
        return 1;
    }
    return 0;
  }
  case 'm':
    return is_digit(*s) && match_template(t + 2, s + 1, cap);
  case 'V': {
    /* Zero or more ".digits" groups, longest first. */
    size_t ends[8];
    size_t count = 0, pos = 0;
    ends[count++] = 0;
    while (count < 8 && s[pos] == '.') {
      size_t n = digit_run(s + pos + 1, 9);
      if (n == 0)
        break;
      pos += 1 + n;
      ends[count++] = pos;
    }
    while (count-- > 0) {
      cap->tail = s;
      cap->tail_len = ends[count];
      if (match_template(t + 2, s + ends[count], cap))
        return 1;
    }
    return 0;
  }
  case 'D':
  case 'Y': {
    /* digits(.digits)*, the whole dotted run (no backtracking needed: what
     * follows in these templates is never a digit or a dot). */
    size_t pos = digit_run(s, 9);
    if (pos == 0)
      return 0;
    while (s[pos] == '.' && is_digit(s[pos + 1]))
      pos += 1 + digit_run(s + pos + 1, 9);
    cap->dotted = s;
    cap->dotted_len = pos;
    cap->have_year = t[1] == 'Y';
    return match_template(t + 2, s + pos, cap);
  }
  default:
    return 0;
  }
}

static int parse_int(const char *s, size_t len) {
  int v = 0;
  for (size_t i = 0; i < len && i < 9; ++i)
    v = v * 10 + (s[i] - '0');
  return v;
}

static size_t count_components(const char *s) {
  size_t n = *s ? 1 : 0;
  for (; *s; ++s)
    n += *s == '.';
  return n;
}

static int match_entry(const cl_catalog_entry *e, const char *tmpl,
                       const char *file_name, cl_naming naming,
                       cl_name_match *out) {
  captures cap;
  memset(&cap, 0, sizeof cap);
  cap.fold_case = naming == CL_NAMING_WINDOWS;
  if (!match_template(tmpl, file_name, &cap))
    return 0;
  char version[64] = "";
  int major;
  if (cap.major) {
    major = parse_int(cap.major, cap.major_len);
    if (major < e->min_major || major > e->max_major)
      return 0;
    snprintf(version, sizeof version, "%.*s%.*s", (int)cap.major_len, cap.major,
             (int)cap.tail_len, cap.tail ? cap.tail : "");
  } else if (cap.have_year) {
    major = parse_int(cap.dotted, digit_run(cap.dotted, 9));
    snprintf(version, sizeof version, "%.*s", (int)cap.dotted_len, cap.dotted);
  } else {
    major = e->min_major; /* fixed ABI (driver) */
    if (cap.dotted)
      snprintf(version, sizeof version, "%.*s", (int)cap.dotted_len,
               cap.dotted);
  }
  out->entry = e;
  out->major = major;
  out->cuda_major = cl_catalog_cuda_major(e, major);
  /* Only a name carrying major.minor.patch tells more than the SONAME does
   * (libcudart.so.11.0 is CUDA 11's SONAME, not a full version). */
  if (count_components(version) >= 3)
    memcpy(out->name_version, version, sizeof version);
  else
    out->name_version[0] = '\0';
  return 1;
}

int cl_catalog_match(const char *file_name, cl_naming naming,
                     cl_name_match *out) {
  /* Cheap rejections first: scans call this for every file in a folder. */
  size_t len = strlen(file_name);
  if (naming == CL_NAMING_LINUX) {
    if (len < 8 || strncmp(file_name, "lib", 3) != 0 ||
        !strstr(file_name, ".so."))
      return 0;
  } else {
    if (len < 5 || fold(file_name[len - 1]) != 'l' ||
        fold(file_name[len - 2]) != 'l' || fold(file_name[len - 3]) != 'd' ||
        file_name[len - 4] != '.')
      return 0;
  }
  for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; ++i) {
    const cl_catalog_entry *e = &catalog[i];
    const char *const *names =
        naming == CL_NAMING_LINUX ? e->linux_names : e->windows_names;
    for (size_t t = 0; t < 3 && names[t]; ++t)
      if (match_entry(e, names[t], file_name, naming, out))
        return 1;
  }
  return 0;
}
