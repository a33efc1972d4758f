/* SPDX-License-Identifier: MIT */
/*
 * catalog.h - what cudaload knows of NVIDIA's CUDA libraries, in two tables
 * (catalog.c): one row per library (its file names, role, majors), read by
 * the matcher that turns a file name into (library, major); and one row per
 * family (cl_catalog_family: its title, the names its symbols start with,
 * its wheels per CUDA major, its folders, its variable, whether it keeps its
 * major across CUDA majors, whether it is the driver). Every stage asks
 * these rows; adding a family is a row in each table and its test
 * (tests/test_catalog.c walks every family row).
 */
#ifndef CUDALOAD_CATALOG_H
#define CUDALOAD_CATALOG_H

#include <stddef.h>

/* Which naming convention: a scan looks for one of them. */
typedef enum cl_naming {
  CL_NAMING_LINUX = 1,  /* libcublas.so.12 */
  CL_NAMING_WINDOWS = 2 /* cublas64_12.dll */
} cl_naming;

/* Which library of a family a name is: the one applications link, or one it
 * opens for itself (cuDNN's sub-libraries, cuBLASLt under cuBLAS). */
typedef enum cl_role { CL_ROLE_MAIN = 0, CL_ROLE_SUB = 1 } cl_role;

/* A library's ABI major mapped to the CUDA major it ships with. */
typedef struct cl_cuda_of_major {
  int abi_major;
  int cuda_major; /* 0: the same ABI major ships with several CUDA majors */
} cl_cuda_of_major;

typedef struct cl_catalog_entry {
  const char *name;   /* "cudnn_ops_infer", "cublasLt" */
  const char *family; /* "cudnn", "cublas": the name of its family's row */
  cl_role role;
  int min_major, max_major; /* ABI majors we recognise */
  /* Name templates, NULL-terminated. In a template, %M matches the ABI major
   * (digits), %m one digit of minor version, %V an optional tail of
   * ".digits" groups (a full version in a Linux name), %D a dotted driver
   * version (for entries whose ABI major is fixed, min_major == max_major),
   * %Y a dotted year version (CUPTI on Windows: 2025.1.0). */
  const char *linux_names[3];
  const char *windows_names[3];
  /* Sub-libraries: 1 when a plan must find this one beside its main library
   * (cublasLt beside cublas; cuDNN's ops and graph), 0 when optional. */
  int required_beside_main;
  /* Main libraries: a symbol every major exports, used to ask which file
   * the global scope binds a consumer's reference to (plan.c; the symbol
   * version of the planned file's definition decides, docs/loader.md). */
  const char *scope_probe_symbol;
  /* Catalog entries (by name) this library opens lazily, by name, the first
   * time it needs them, of the CUDA major its build targets, which its own
   * name does not tell (cuDNN 8's ops_infer opens cublas and cublasLt).
   * NULL-terminated. A plan adds a library of the dependency's family for
   * that CUDA major (plan.c, "lazy dependencies"), or warns. */
  const char *lazy_opens[3];
  /* The CUDA major those lazy opens take when the chosen file does not tell
   * its own (a cuDNN 8 from a tarball: its last builds target CUDA 12); 0:
   * the plan's. */
  int lazy_cuda_major;
  /* Names of another family it opens exactly as written, with no major, up
   * to its ABI major opens_as_is_until: cuBLASLt 11 opens "libnvrtc.so" at
   * its first call (LD_DEBUG: "file=libnvrtc.so; dynamically loaded by
   * .../libcublasLt.so.11"; cuBLASLt 12 and 13 open libnvrtc.so.12 and
   * .13). Only a toolkit's development link has that name, of whatever CUDA
   * major the machine's toolkit is, so the open is optional (the library
   * goes on without it) and a file found for it must be of the opener's
   * CUDA major. NULL-terminated. */
  const char *opens_as_is[2];
  int opens_as_is_until;
  /* A name that requires every main library of the group at once ("npp":
   * NPP's eleven libraries, which applications link one by one); NULL. */
  const char *group;
  /* Main libraries that ship headers: the one a program includes
   * ("cuda_runtime.h"), which marks the family's include folder
   * (cudaload_library_include_dir); NULL for none. */
  const char *header;
  /* Main libraries whose version a toolkit's include folder tells: the
   * header (beside the library folder) and its macros, major, minor and
   * patch ("cudnn_version.h": CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
   * with one macro, it holds major * 1000 + minor * 10 (CUDART_VERSION
   * 12040 is 12.4). NULL for none (toolkit_headers.c reads them). */
  const char *version_header;
  const char *version_macros[3];
  /* 1: named (by its group, else its family) among the examples the
   * message for an unknown requirement gives, in table order (spec.c):
   * the libraries programs require most, not all of them. */
  int spec_example;
  /* 1: the versions of this library do not start with its ABI major or
   * its CUDA major (NVVM 4 is versioned with the toolkit: 12.4; cuFile's
   * libcufile.so.0 is 1.x), so a version is not checked against them. */
  int version_apart_from_abi;
} cl_catalog_entry;

/* One wheel: the PyPI distribution that ships a family's libraries for one
 * CUDA major, and the folder under site-packages/nvidia it installs them to
 * (catalog_wheels.h asks the rows). */
typedef struct cl_catalog_wheel {
  const char *family; /* the row's name (the row's macros write it) */
  int cuda_major;
  const char *package;
  const char *folder;   /* site-packages/nvidia/<folder>/lib (Windows: bin) */
  int min_abi, max_abi; /* the library majors it ships; 0: any */
  int linux_only;
} cl_catalog_wheel;

/* A folder below a root where a family's libraries live and the layouts'
 * own folders (lib64, bin, nvidia/<wheel>/lib, ...) do not reach
 * (layouts.c visits them, in row order, each folder once). */
typedef struct cl_family_folder {
  const char *relative; /* '/' between components */
  int naming;           /* the cl_naming it matters for; 0: both */
} cl_family_folder;

/* The first release of a kept ABI major that shipped with a CUDA major
 * (nvidia-cusparse-cu12 12.0 to 12.5, nvidia-cusparse 12.6 on). */
typedef struct cl_cuda_release {
  int abi_major;
  int minor_from; /* this minor of the ABI major and later */
  int cuda_major;
} cl_cuda_release;

/* Whether a family keeps its major across CUDA majors. A row must say
 * (0 is no answer: tests/test_catalog.c fails on it). */
typedef enum cl_major_rule {
  /* Its ABI major is the CUDA major (cuBLAS 12 is CUDA 12's). */
  CL_MAJOR_IS_CUDA = 1,
  /* It keeps a major of its own (cuDNN 9 ships for CUDA 11, 12 and 13,
   * cuFFT 11 is CUDA 12's): cuda_of_major and releases tell the CUDA
   * major where NVIDIA's releases do, else the name does not. */
  CL_MAJOR_KEPT = 2
} cl_major_rule;

/* The room in a family row for wheels and folders (a list shorter than
 * its room ends at a NULL package or folder). */
#define CL_FAMILY_WHEELS 4
#define CL_FAMILY_TOOLKIT_FOLDERS 5
#define CL_FAMILY_PACKAGE_FOLDERS 3

/* One family: every fact the stages need about it, so that adding a family
 * is this row (beside its libraries' entries) and its test. */
typedef struct cl_catalog_family {
  const char *name;  /* "cudnn": the family of its libraries' entries */
  const char *title; /* "cuDNN": as its documentation spells it, for the
                        plan's reasons and warnings */
  /* 1 for the NVIDIA driver's libraries (libcuda, NVML): installed with the
   * driver, never required, planned or fixed by a pip line; the probe's
   * concern. Exactly one row. */
  int is_driver;
  /* 1 when its main library is a front that runs the family's functions in
   * its sub-libraries, found by name (dlsym) when first called: a front no
   * newer than its parts runs with them (they define everything it
   * forwards), so it is not two versions of the family. cuDNN 8 and 9,
   * measured: cuDNN's own checks (cudnnGetVersion, cudnn*VersionCheck)
   * through ctranslate2 3.24.0's bundled 8.1.1 front answer for
   * nvidia-cudnn-cu11 8.9.6.50's parts (8906, success), and a 9.19 front
   * for 9.26 parts. */
  int main_fronts_parts;
  cl_major_rule major_rule;
  /* CUDA major per ABI major, terminated by {0, 0}. An ABI major not
   * listed is its own CUDA major under CL_MAJOR_IS_CUDA, else unknown (0). */
  cl_cuda_of_major cuda_of_major[4];
  /* A kept ABI major's CUDA major by its version, in ascending order,
   * terminated by {0, 0, 0} (cl_catalog_cuda_major_of_version). */
  cl_cuda_release releases[4];
  /* What the names of its API's symbols start with, letter for letter
   * ("cudnn": cudnnCreate; "cuda" for the runtime's cudaMalloc); NULL-
   * terminated, none for a family whose symbols are not told apart. */
  const char *symbol_prefixes[2];
  /* The prefix its header maps the API's names to (nvJitLink.h:
   * __nvJitLinkCreate_12_4), which a message may quote; NULL for none. */
  const char *internal_symbol_prefix;
  /* The variable that names the folder of its libraries when it ships
   * apart from the toolkit (CUDNN_PATH: frameworks read it); a default
   * root, and what a fix line says to set. NULL: the toolkit's, CUDA_PATH. */
  const char *path_variable;
  /* Its wheels, one per CUDA major (and ABI range), in ascending CUDA
   * major; terminated by a NULL package. None: no wheel ships it. */
  cl_catalog_wheel wheels[CL_FAMILY_WHEELS];
  /* Folders of a toolkit or conda prefix (nvvm/lib64), then of a folder of
   * Python packages (cutensor/lib), that hold its libraries: NULL-
   * terminated. */
  cl_family_folder toolkit_folders[CL_FAMILY_TOOLKIT_FOLDERS];
  cl_family_folder package_folders[CL_FAMILY_PACKAGE_FOLDERS];
} cl_catalog_family;

typedef struct cl_catalog_match {
  const cl_catalog_entry *entry;
  int major;      /* the library's own ABI major */
  int cuda_major; /* 0 when the name alone does not tell */
  /* Full version the name carries ("8.9.7" from libcudnn.so.8.9.7), "" when
   * the name has no more than major.minor. */
  char name_version[64];
} cl_name_match;

/* Match a bare file name. Returns 1 and fills *out when the name is one of
 * the catalog's, 0 otherwise. */
int cl_catalog_match(const char *file_name, cl_naming naming,
                     cl_name_match *out);

/* The unversioned name a program may open ("libcublas.so", "libcudnn.so":
 * the development link, which only a toolkit or a -dev package installs)
 * read as its library, with major 0: 1 and *out filled when name is one
 * of a catalog library's Linux names without its version. Never a scan's
 * match (a link beside the versioned file is not another library); error
 * messages name them (PaddlePaddle opens them). */
int cl_catalog_match_unversioned(const char *name, cl_name_match *out);

/* The same answer, found by trying every template in table order without
 * the index cl_catalog_match uses (for the tests that compare the two). */
int cl_catalog_match_unindexed(const char *file_name, cl_naming naming,
                               cl_name_match *out);

/* 1 when file_name is spelt as entry's template, letter case included
 * ("cudnn64_9.dll", not "CUDNN64_9.DLL", which Windows takes for the same
 * name and cl_catalog_match accepts). */
int cl_catalog_canonical_name(const cl_catalog_entry *entry,
                              const char *file_name, cl_naming naming);

/* The CUDA major an entry's ABI major belongs to, 0 when unknown. */
int cl_catalog_cuda_major(const cl_catalog_entry *entry, int abi_major);

/* The CUDA major a full version of a library whose ABI major ships with
 * several CUDA majors belongs to, from the releases NVIDIA shipped with
 * each (cuSPARSE 12.0-12.5 with CUDA 12, 12.6 on with CUDA 13; cuRAND 10.3
 * with CUDA 12, 10.4 on with CUDA 13); 0 when the version does not tell
 * (cuDNN 9 and NCCL 2 are built for several from one version). */
int cl_catalog_cuda_major_of_version(const cl_catalog_entry *entry,
                                     int abi_major, const char *version);

/* NVIDIA stamps the toolkit's DLLs (cuBLAS, cuBLASLt, ...) with a
 * driver-style VERSIONINFO, 6.14.11.MMmp: cublas64_12.dll of cuBLAS 12.1.3
 * says 6.14.11.1213. Decode that form into "M.m.p" in out and return 1;
 * return 0 (out untouched) for any other version, which is taken as is. */
int cl_catalog_decode_dll_stamp(const char *file_version, char *out,
                                size_t size);

/* 1 when a version a file claims for itself (its VERSIONINFO) can be the
 * version of entry at ABI major `major`: its first number is that major,
 * or the CUDA major that ABI major belongs to (cuBLAS 12.4 in
 * cublas64_12.dll), or the entry is versioned apart from its ABI major. 0
 * for a version the file's own name contradicts: ctranslate2 4.4.0's
 * cudnn64_8.dll says 6.14.11.6050 ("NVIDIA CUDA 6.5.0 CUDNN Library"),
 * which the stamp rule reads as 60.5.0. */
int cl_catalog_version_agrees(const cl_catalog_entry *entry, int major,
                              const char *version);

/* The file name of an entry for a major given as text ("9", or "N" as a
 * placeholder): the first name template of the naming, its version tail
 * left out and a minor digit written 0 ("libcudnn_ops.so.9",
 * "cudnn_ops64_9.dll", "nvrtc64_120_0.dll"). */
void cl_catalog_file_name(const cl_catalog_entry *entry, cl_naming naming,
                          const char *major, char *out, size_t size);

/* auditwheel renames what it bundles lib<name>-<8 hex>.so<tail>
 * (libcudnn-463fd6d5.so.8.9.7, SONAME included); write the original name
 * (libcudnn.so.8.9.7) into out. Returns 0 for any other name. */
int cl_catalog_auditwheel_original(const char *name, char *out, size_t size);

/* cl_catalog_match, also through auditwheel's renaming: what a renamed
 * bundled copy is (libcudnn-463fd6d5.so.8.9.7 is cuDNN 8, 8.9.7). */
int cl_catalog_match_renamed(const char *file_name, cl_naming naming,
                             cl_name_match *out);

/* The whole table, for listing and tests. */
const cl_catalog_entry *cl_catalog_entries(size_t *count);

/* The entry with this name, or NULL. */
const cl_catalog_entry *cl_catalog_find(const char *name);

/* The main library of a family ("cudnn" for cudnn_ops_infer's), the one a
 * requirement names; NULL for no family the catalog knows. The only
 * answer to "the main library of a family". */
const cl_catalog_entry *cl_catalog_family_main(const char *family);

/* The family rows, in table order (which matters where two rows share a
 * wheel or a folder: the first answers). */
const cl_catalog_family *cl_catalog_families(size_t *count);

/* The row of this family name ("cudnn"), or NULL. */
const cl_catalog_family *cl_catalog_family_find(const char *family);

/* The row whose name is name[0..len) in any letter case ("cuDNN",
 * "NVJITLINK"), or NULL. */
const cl_catalog_family *cl_catalog_family_named(const char *name, size_t len);

/* The row of a catalog entry's family; every entry has one (the catalog's
 * test walks them). */
const cl_catalog_family *cl_catalog_family_of(const cl_catalog_entry *entry);

/* 1 when entry is one of the NVIDIA driver's libraries (its row's
 * is_driver): the one way a stage asks. */
int cl_catalog_is_driver(const cl_catalog_entry *entry);

/* 1 when the library of entry and ABI major opens name exactly as
 * written (opens_as_is), 0 otherwise (entry may be NULL). */
int cl_catalog_opens_as_is(const cl_catalog_entry *entry, int major,
                           const char *name);

/* 1 when entry is the main library of a family whose main library is a
 * front to its sub-libraries (the row's main_fronts_parts). */
int cl_catalog_is_front(const cl_catalog_entry *entry);

/* A family as its documentation spells it ("cuDNN"); the name itself for
 * a family the catalog does not know. */
const char *cl_catalog_family_title(const char *family);

/* The family whose API a binary's symbol belongs to, by its rows'
 * symbol_prefixes, letter for letter ("cudnnCreate": cuDNN's); NULL for
 * none. */
const cl_catalog_family *cl_catalog_family_of_symbol(const char *name);

/* The family a symbol quoted in a message belongs to: name[0..len), longer
 * than the prefix, in any letter case, the internal prefixes too
 * ("__nvjitlinkcreate_12_4"); NULL for none. */
const cl_catalog_family *cl_catalog_family_of_symbol_word(const char *name,
                                                          size_t len);

#endif
