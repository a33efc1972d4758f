/* SPDX-License-Identifier: MIT */
/*
 * version_sources.c - where a library's version comes from
 * (version_sources.h): the dist-info that installed it (by the wheel
 * table, else its RECORD), its file name, a DLL's VERSIONINFO, the
 * toolkit's headers, and the CUDA major its own file tells; each source
 * read once per run and passed over when other users can write to it
 * (trust.h), the first such reason kept.
 *
 * Its own file because it is a question about one library file that
 * inventory.c asks, at the scan or later on first use for a wheel's
 * library, and answers from what lies beside the file, never from the
 * scan's walk: the scan (inventory.c) lists and classifies, this file
 * reads versions.
 */
#include "scan/version_sources.h"

#include "binary/binary.h"
#include "binary/file_cache.h"
#include "common/error.h"
#include "common/strindex.h"
#include "common/strutil.h"
#include "os/platform.h"
#include "scan/catalog.h"
#include "scan/distinfo.h"
#include "scan/toolkit_headers.h"
#include "scan/trust.h"
#include "common/reason_words.h"

#include <stdlib.h>
#include <string.h>

/* Where versions come from, read once and shared by every library that
 * needs them: dist-info indexes, toolkit headers, and whether the folders
 * they live in exist. It lives in the ctx, beside the inventory, because a
 * wheel's version is looked up on first use (cl_library_settle_version). */
typedef struct headers_cache_entry {
  char *include_dir;
  cl_toolkit_headers headers;
} headers_cache_entry;

typedef struct known_folder {
  char *path;
  int is_directory;
} known_folder;

/* Each list has an index by its key (folder path), because a scan asks
 * about a few folders per library and there are as many entries as roots
 * searched: a linear search made many roots quadratic. */
struct cl_version_cache {
  cl_distinfo_index *distinfo;
  size_t distinfo_count, distinfo_capacity;
  cl_str_index distinfo_by_folder;
  headers_cache_entry *headers;
  size_t headers_count, headers_capacity;
  cl_str_index headers_by_folder;
  known_folder *folders;
  size_t folder_count, folder_capacity;
  cl_str_index folders_by_path;
  int out_of_memory;
  /* CUDALOAD_ALLOW_WRITABLE_ROOTS: version sources others can write to are
   * read all the same. */
  int allow_writable;
  /* The context's file cache (NULL: none): a file read for its CUDA major
   * is read once for the plan and the loader model too. */
  cl_file_cache *files;
  /* What trust.h said of each version source (a METADATA, a header), asked
   * once: every library of a wheel or a toolkit shares its source. */
  struct trusted_source *sources;
  size_t source_count, source_capacity;
  cl_str_index sources_by_path;
  /* The same of each folder that holds dist-info folders, with its real
   * path: a toolkit's or a venv's dist-infos share it. */
  struct trusted_source *holders;
  size_t holder_count, holder_capacity;
  cl_str_index holders_by_path;
  /* The real paths the scan resolved for its roots, by the path as
   * listed: a toolkit's dist-info/ is in its root, so its real path needs
   * no lookup of its own (trust.h's checks take it from there). Kept for
   * the scan only: a version asked later resolves what is there then. */
  struct known_real *reals;
  size_t real_count, real_capacity;
  cl_str_index reals_by_path;
};

typedef struct known_real {
  char *path, *real;
} known_real;

typedef struct trusted_source {
  char *path;
  char *refusal; /* NULL: others cannot write to it */
  int lost;      /* refused, but memory ran out for the reason */
  char *real;    /* a holder's real path (NULL: it does not resolve) */
} trusted_source;

void cl_version_cache_forget_reals(cl_version_cache *c) {
  cl_str_index_free(&c->reals_by_path);
  for (size_t i = 0; i < c->real_count; ++i) {
    free(c->reals[i].path);
    free(c->reals[i].real);
  }
  free(c->reals);
  c->reals = NULL;
  c->real_count = c->real_capacity = 0;
}

void cl_version_cache_free(cl_version_cache *c) {
  if (!c)
    return;
  cl_str_index_free(&c->distinfo_by_folder);
  cl_str_index_free(&c->headers_by_folder);
  cl_str_index_free(&c->folders_by_path);
  cl_str_index_free(&c->sources_by_path);
  for (size_t i = 0; i < c->source_count; ++i) {
    free(c->sources[i].path);
    free(c->sources[i].refusal);
  }
  free(c->sources);
  cl_str_index_free(&c->holders_by_path);
  for (size_t i = 0; i < c->holder_count; ++i) {
    free(c->holders[i].path);
    free(c->holders[i].refusal);
    free(c->holders[i].real);
  }
  free(c->holders);
  cl_version_cache_forget_reals(c);
  for (size_t i = 0; i < c->distinfo_count; ++i)
    cl_distinfo_free(&c->distinfo[i]);
  free(c->distinfo);
  for (size_t i = 0; i < c->headers_count; ++i) {
    free(c->headers[i].include_dir);
    cl_toolkit_headers_free(&c->headers[i].headers);
  }
  free(c->headers);
  for (size_t i = 0; i < c->folder_count; ++i)
    free(c->folders[i].path);
  free(c->folders);
  free(c);
}

/* Whether the dist-info and include folders a library's version may come
 * from exist: asked once per folder, not once per library in it. */
static int is_directory(cl_version_cache *c, const char *path) {
  size_t at;
  if (cl_str_index_find(&c->folders_by_path, path, &at))
    return c->folders[at].is_directory;
  int is_dir = cl_os_stat_kind(path, NULL) == CL_KIND_DIRECTORY;
  char *copy = cl_strdup(path);
  if (!copy ||
      cl_reserve((void **)&c->folders, &c->folder_capacity, c->folder_count + 1,
                 sizeof *c->folders) ||
      cl_str_index_add(&c->folders_by_path, copy, c->folder_count)) {
    free(copy); /* not remembered: asked again next time */
    return is_dir;
  }
  c->folders[c->folder_count].path = copy;
  c->folders[c->folder_count++].is_directory = is_dir;
  return is_dir;
}

static cl_distinfo_index *distinfo_for(cl_version_cache *c,
                                       const char *folder) {
  size_t at;
  if (cl_str_index_find(&c->distinfo_by_folder, folder, &at))
    return &c->distinfo[at];
  if (cl_reserve((void **)&c->distinfo, &c->distinfo_capacity,
                 c->distinfo_count + 1, sizeof *c->distinfo)) {
    c->out_of_memory = 1;
    return NULL;
  }
  cl_distinfo_index *index = &c->distinfo[c->distinfo_count];
  if (cl_distinfo_load(folder, index) ||
      cl_str_index_add(&c->distinfo_by_folder, index->folder,
                       c->distinfo_count)) {
    cl_distinfo_free(index);
    c->out_of_memory = 1;
    return NULL;
  }
  c->distinfo_count++;
  return index;
}

static cl_toolkit_headers *headers_for(cl_version_cache *c,
                                       const char *include_dir) {
  size_t at;
  if (cl_str_index_find(&c->headers_by_folder, include_dir, &at))
    return &c->headers[at].headers;
  char *copy = cl_strdup(include_dir);
  if (!copy ||
      cl_reserve((void **)&c->headers, &c->headers_capacity,
                 c->headers_count + 1, sizeof *c->headers) ||
      cl_str_index_add(&c->headers_by_folder, copy, c->headers_count)) {
    free(copy);
    c->out_of_memory = 1;
    return NULL;
  }
  headers_cache_entry *e = &c->headers[c->headers_count++];
  e->include_dir = copy;
  cl_toolkit_headers_load(include_dir, &e->headers);
  return &e->headers;
}

/* ancestor(folder, 1) is the parent, ancestor(folder, 3) the toolkit prefix
 * above targets/<arch>/lib. malloc'ed; NULL at the top. */
static char *ancestor(const char *folder, int levels) {
  char *p = cl_strdup(folder);
  for (int i = 0; p && i < levels; ++i) {
    char *up = cl_path_dirname(p);
    free(p);
    p = up;
  }
  return p;
}

/* The separator before the "nvidia" package of a folder inside
 * site-packages ("SP/nvidia/cudnn/lib"), or NULL. NVIDIA's wheels always
 * install under a top-level "nvidia" package. */
const char *cl_wheel_package_start(const char *folder) {
  const char *hit = NULL;
  for (const char *p = folder; *p; ++p)
    if ((*p == '/' || *p == '\\') && strncmp(p + 1, "nvidia", 6) == 0 &&
        (p[7] == '/' || p[7] == '\\'))
      hit = p;
  return hit;
}

/* For a folder inside site-packages, the site-packages folder and the
 * RECORD path of name ("nvidia/cudnn/lib/x"). */
static int wheel_position(const char *folder, const char *name,
                          char **site_packages, char **relpath) {
  const char *hit = cl_wheel_package_start(folder);
  if (!hit)
    return 0;
  *site_packages = cl_strndup(folder, (size_t)(hit - folder));
  char *rel_folder = cl_strdup(hit + 1);
  *relpath = rel_folder ? cl_path_join(rel_folder, name) : NULL;
  free(rel_folder);
  if (!*site_packages || !*relpath) {
    free(*site_packages);
    free(*relpath);
    return -1;
  }
  for (char *c = *relpath; *c; ++c)
    if (*c == '\\')
      *c = '/';
  return 1;
}

/* The folder a wheel installs a file to, from its RECORD path
 * ("nvidia/cu13/lib/x" -> "cu13"), malloc'ed; NULL when memory ran out. */
static char *wheel_folder_of(const char *relpath) {
  const char *start = relpath + strlen("nvidia/");
  const char *end = strchr(start, '/');
  return cl_strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* How the owner of a file was found. */
typedef struct ownership {
  int by_record;  /* 1: a RECORD lists the file; 0: the wheel table says */
  int cuda_major; /* the table's wheel's CUDA major; 0: unknown */
} ownership;

/* The owner of a file among the dist-infos of one holder: the one the
 * wheel table names, else the one whose RECORD lists it (key: its RECORD
 * path, or with by_name its base name). */
static const cl_distribution *
owner_in(cl_version_cache *c, cl_distinfo_index *index, const cl_name_match *m,
         const char *wheel_folder, const char *key, int by_name,
         ownership *how) {
  const cl_distribution *d =
      cl_distinfo_by_wheel(index, m, wheel_folder, &how->cuda_major);
  if (d)
    return d;
  d = by_name ? cl_distinfo_by_name(index, key)
              : cl_distinfo_by_path(index, key);
  if (index->records_state < 0)
    c->out_of_memory = 1;
  how->by_record = d != NULL;
  return d;
}

/* The dist-info that installed this file: in the site-packages of a
 * wheel's folder (by the wheel table, else the exact path its RECORD
 * lists), else in a toolkit's dist-info folder beside its lib folder (by
 * the table, else the name its RECORD lists). */
static const cl_distribution *
distribution_of(cl_version_cache *c, const char *folder, const char *name,
                const cl_name_match *m, ownership *how) {
  char *site_packages = NULL, *relpath = NULL;
  int in_wheel = wheel_position(folder, name, &site_packages, &relpath);
  const cl_distribution *d = NULL;
  how->by_record = how->cuda_major = 0;
  if (in_wheel < 0) {
    c->out_of_memory = 1;
    return NULL;
  }
  if (in_wheel) {
    cl_distinfo_index *index = distinfo_for(c, site_packages);
    char *wheel_folder = wheel_folder_of(relpath);
    if (!wheel_folder)
      c->out_of_memory = 1;
    else if (index)
      d = owner_in(c, index, m, wheel_folder, relpath, 0, how);
    free(wheel_folder);
    free(site_packages);
    free(relpath);
    if (d)
      return d;
  }
  for (int levels = 1; levels <= 3 && !d; levels += 2) {
    char *prefix = ancestor(folder, levels);
    char *dist_folder = prefix ? cl_path_join(prefix, "dist-info") : NULL;
    /* Listed without a look of its own first: a missing folder's listing
     * fails, and is remembered as empty. */
    cl_distinfo_index *index =
        dist_folder ? distinfo_for(c, dist_folder) : NULL;
    if (index)
      d = owner_in(c, index, m, NULL, name, 1, how);
    free(dist_folder);
    free(prefix);
  }
  return d;
}

static const cl_header_version *header_of(cl_version_cache *c,
                                          const char *folder,
                                          const char *family, int major) {
  for (int levels = 1; levels <= 3; levels += 2) {
    char *prefix = ancestor(folder, levels);
    char *include_dir = prefix ? cl_path_join(prefix, "include") : NULL;
    const cl_header_version *v = NULL;
    if (include_dir && is_directory(c, include_dir)) {
      cl_toolkit_headers *h = headers_for(c, include_dir);
      v = h ? cl_toolkit_headers_for(h, family) : NULL;
    }
    free(include_dir);
    free(prefix);
    if (v && v->major == major)
      return v;
  }
  return NULL;
}

int cl_binary_info_cuda_major(const cl_binary_info *info, cl_naming naming) {
  int cuda = 0;
  for (size_t d = 0; d < info->needed_count && !cuda; ++d) {
    cl_name_match m;
    if (cl_catalog_match(info->needed[d], naming, &m))
      cuda = m.cuda_major;
  }
  const char *lists[2] = {info->runpath, info->rpath};
  for (int k = 0; k < 2 && !cuda; ++k) {
    const char *cu = lists[k] ? strstr(lists[k], "/cu1") : NULL;
    if (cu && cu[4] >= '0' && cu[4] <= '9' &&
        (cu[5] == '/' || cu[5] == ':' || cu[5] == '\0'))
      cuda = 10 + (cu[4] - '0');
  }
  return cuda;
}

/* The CUDA major a library file was built for, from what it needs
 * (libcusparse.so.12 of CUDA 13 needs libnvJitLink.so.13, a CUDA 12 cuDNN
 * 9 sub-library libcublasLt.so.12) or the wheel folders its search list
 * names ($ORIGIN/../../cu13/lib); 0 when it tells nothing. Read only for
 * libraries whose major and version leave it open. */
static int cuda_major_from_file(cl_file_cache *files, const char *path,
                                cl_naming naming) {
  const cl_binary_info *cached = NULL;
  if (files)
    return cl_file_cache_info(files, path, &cached) == CUDALOAD_OK
               ? cl_binary_info_cuda_major(cached, naming)
               : 0;
  cl_binary_info info;
  if (cl_binary_parse_file(path, &info) != CUDALOAD_OK)
    return 0;
  int cuda = cl_binary_info_cuda_major(&info, naming);
  cl_binary_info_free(&info);
  return cuda;
}

/* The real path the scan resolved for `path` (a root), or NULL. */
static const char *known_real_of(const cl_version_cache *c, const char *path) {
  size_t at;
  return path && cl_str_index_find(&c->reals_by_path, path, &at)
             ? c->reals[at].real
             : NULL;
}

/* Remember a root's real path (not remembered when memory runs out: it is
 * then looked up again where needed). */
void cl_version_cache_note_real(cl_version_cache *c, const char *path,
                                const char *real) {
  if (!c || cl_str_index_find(&c->reals_by_path, path, NULL))
    return;
  known_real k = {cl_strdup(path), cl_strdup(real)};
  if (!k.path || !k.real ||
      cl_reserve((void **)&c->reals, &c->real_capacity, c->real_count + 1,
                 sizeof *c->reals) ||
      cl_str_index_add(&c->reals_by_path, k.path, c->real_count)) {
    free(k.path);
    free(k.real);
    return;
  }
  c->reals[c->real_count++] = k;
}

/* The folder that holds dist-info folders as trust.h sees it, asked of the
 * file system once per run (its real path and its refusal), or NULL when
 * memory ran out. Where the scan resolved the holder (a site-packages
 * root) or the folder it is in (a toolkit root), that real path serves. */
static const trusted_source *holder_trust(cl_version_cache *c,
                                          const char *holder) {
  size_t at;
  if (cl_str_index_find(&c->holders_by_path, holder, &at))
    return &c->holders[at];
  trusted_source t = {cl_strdup(holder), NULL, 0, NULL};
  char *parent = cl_path_dirname(holder);
  const char *real = known_real_of(c, holder);
  const char *parent_real = real ? NULL : known_real_of(c, parent);
  t.refusal = cl_trust_distinfo_holder_refusal_known(holder, real, parent_real,
                                                     &t.real, &t.lost);
  free(parent);
  if (!t.path || t.lost ||
      cl_reserve((void **)&c->holders, &c->holder_capacity, c->holder_count + 1,
                 sizeof *c->holders) ||
      cl_str_index_add(&c->holders_by_path, t.path, c->holder_count)) {
    free(t.path);
    free(t.refusal);
    free(t.real);
    return NULL;
  }
  c->holders[c->holder_count] = t;
  return &c->holders[c->holder_count++];
}

/* What of a dist-info spoke for a library, so what must be trusted: the
 * folder that holds the dist-info folders always (whoever can write there
 * can add or rename one, and its name is the version), the dist-info
 * folder and the files in it that were read. */
#define SPOKE_METADATA 1u
#define SPOKE_RECORD 2u

/* cl_trust_distinfo_refusal() with the holder's half remembered, for what
 * spoke. */
static char *distinfo_refusal(cl_version_cache *c, const char *metadata_path,
                              unsigned spoke, int *lost) {
  *lost = 0;
  char *dist = cl_path_dirname(metadata_path);
  char *holder = dist ? cl_path_dirname(dist) : NULL;
  const trusted_source *h = holder ? holder_trust(c, holder) : NULL;
  char *refusal = NULL;
  if (!h) {
    refusal = cl_trust_distinfo_refusal(metadata_path, lost);
  } else if (h->refusal) {
    refusal = cl_strdup(h->refusal);
    *lost = !refusal; /* refused, the sentence lost */
  } else if (h->real && spoke) {
    refusal = cl_trust_distinfo_entry_refusal(
        metadata_path, h->real, (spoke & SPOKE_METADATA) != 0,
        (spoke & SPOKE_RECORD) != 0, lost);
  }
  free(holder);
  free(dist);
  return refusal;
}

/* Why others can change a version source (trust.h: a dist-info by its
 * METADATA path and what of it spoke, or, with include, a header in that
 * include folder), a malloc'ed copy, or NULL; asked of the file system
 * once per source. */
static char *source_refusal(cl_version_cache *c, const char *path,
                            const char *include, unsigned spoke, int *lost) {
  size_t at;
  *lost = 0;
  /* A dist-info is remembered per what spoke: its name alone asks less
   * than its RECORD. */
  char *key = NULL;
  if (include) {
    key = cl_strdup(path);
  } else if ((key = malloc(strlen(path) + 3)) != NULL) {
    key[0] = (char)('0' + spoke);
    key[1] = ':';
    strcpy(key + 2, path);
  }
  if (key && cl_str_index_find(&c->sources_by_path, key, &at)) {
    free(key);
    *lost = c->sources[at].lost;
    return c->sources[at].refusal ? cl_strdup(c->sources[at].refusal) : NULL;
  }
  char *refusal = include ? cl_trust_include_refusal(include, path, lost)
                          : distinfo_refusal(c, path, spoke, lost);
  if (!key ||
      cl_reserve((void **)&c->sources, &c->source_capacity, c->source_count + 1,
                 sizeof *c->sources) ||
      cl_str_index_add(&c->sources_by_path, key, c->source_count)) {
    free(key); /* not remembered: asked again next time */
    return refusal;
  }
  trusted_source *t = &c->sources[c->source_count++];
  t->path = key;
  t->real = NULL;
  t->refusal = refusal ? cl_strdup(refusal) : NULL;
  t->lost = *lost || (refusal && !t->refusal);
  return refusal;
}

/* Whether a version source (its refusal from trust.h) is others' to change:
 * then it is passed over for the next, and the first reason is kept for the
 * plan to say. */
static int distrusted(cl_found_version *v, char *refusal, int lost) {
  if (!refusal && !lost)
    return 0;
  if (v->distrust)
    free(refusal);
  else
    v->distrust =
        refusal ? refusal : cl_strdup(CL_WORDS_A_VERSION_SOURCE_COULD_NOT);
  return 1;
}

/* A DLL's VERSIONINFO version (NVIDIA's 6.14.11.MMmp stamp decoded), or
 * NULL when it has none or one its own name contradicts (a cudnn64_8.dll
 * that says 60.5.0): a false version is never reported. */
static const char *dll_version(const char *real_path, const cl_name_match *m,
                               cl_found_version *v) {
  if (cl_binary_parse_file(real_path, &v->pe) != CUDALOAD_OK ||
      !v->pe.file_version || !v->pe.file_version[0])
    return NULL;
  const char *version =
      cl_catalog_decode_dll_stamp(v->pe.file_version, v->stamp, sizeof v->stamp)
          ? v->stamp
          : v->pe.file_version;
  return cl_catalog_version_agrees(m->entry, m->major, version) ? version
                                                                : NULL;
}

/* The first source that tells: the owning dist-info, the file name, a
 * DLL's VERSIONINFO, the toolkit's headers. Asking for a version is not a
 * failure (a DLL without VERSIONINFO, an unreadable header): whatever the
 * sources leave in the last error, the caller's is kept. */
void cl_find_version(cl_version_cache *c, cl_naming naming, const char *folder,
                     const char *name, const char *real_path,
                     const cl_name_match *m, cl_found_version *v) {
  /* Each source that cannot be read is an answer (v says what was
   * found): its words stay in this scope, not the last error. */
  cl_asking unread;
  cl_asking_begin(&unread);
  memset(&v->pe, 0, sizeof v->pe);
  v->distrust = NULL;
  v->version = "";
  v->source = "none";
  v->file = "";
  v->cuda_major = m->cuda_major;
  ownership how;
  const cl_distribution *d = distribution_of(c, folder, name, m, &how);
  int lost = 0;
  unsigned spoke = d ? (d->metadata_read ? SPOKE_METADATA : 0u) |
                           (how.by_record ? SPOKE_RECORD : 0u)
                     : 0u;
  if (d && !c->allow_writable &&
      distrusted(v, source_refusal(c, d->metadata_path, NULL, spoke, &lost),
                 lost))
    d = NULL;
  if (d) {
    v->version = d->version;
    v->source = "dist-info";
    v->file = d->metadata_path;
    if (!v->cuda_major)
      v->cuda_major = d->cuda_major;
    /* The wheel the table took it for is built for one CUDA major (a
     * CUDA 13 wheel's name has no -cu13): no need to read the file. */
    if (!v->cuda_major)
      v->cuda_major = how.cuda_major;
  } else if (m->name_version[0]) {
    v->version = m->name_version;
    v->source = "file-name";
    v->file = real_path;
  } else if (naming == CL_NAMING_WINDOWS &&
             (v->version = dll_version(real_path, m, v)) != NULL) {
    v->source = "versioninfo";
    v->file = real_path;
  } else {
    v->version = "";
    const cl_header_version *h =
        header_of(c, folder, m->entry->family, m->major);
    char *include = h ? cl_path_dirname(h->header_path) : NULL;
    if (h && !c->allow_writable &&
        (!include ||
         distrusted(v, source_refusal(c, h->header_path, include, 0, &lost),
                    lost)))
      h = NULL;
    free(include);
    if (h) {
      v->version = h->version;
      v->source = "header";
      v->file = h->header_path;
    }
  }
  if (!v->cuda_major)
    v->cuda_major =
        cl_catalog_cuda_major_of_version(m->entry, m->major, v->version);
  if (!v->cuda_major)
    v->cuda_major = cuda_major_from_file(c->files, real_path, naming);
  cl_asking_end(&unread);
}

cl_version_cache *cl_version_cache_make(cudaload_ctx *ctx) {
  cl_version_cache *c = calloc(1, sizeof *c);
  if (c) {
    c->allow_writable = (ctx->flags & CUDALOAD_ALLOW_WRITABLE_ROOTS) != 0;
    c->files = cl_file_cache_of(ctx);
  }
  return c;
}

int cl_version_cache_out_of_memory(const cl_version_cache *c) {
  return c->out_of_memory;
}

cl_file_cache *cl_version_cache_files(const cl_version_cache *c) {
  return c->files;
}
