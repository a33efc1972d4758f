/* SPDX-License-Identifier: MIT */
/*
 * error_message.c - cudaload_read_error_message(): start from the error the
 * user has. A pasted text (one line, a traceback, a log) is searched for
 * the forms in which loaders, frameworks and CUDA itself say that a library
 * is missing or that the GPU cannot run (the table `forms` below;
 * docs/error-messages.md lists them with their sources). Each file name
 * found becomes its family's requirement through the catalog, by the same
 * parse as cudaload_require("libcublasLt.so.12"), so the doctor plans for
 * exactly what the program could not load.
 *
 * This file produces requirements and says what each message means; what
 * this machine makes of it (is the library here after all? is the driver?)
 * is the doctor's part (report/error_message_report.c).
 */
#include "load/error_message.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/spec.h"
#include "scan/catalog.h"
#include "load/plan_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a form names its file. */
typedef enum file_place {
  FILE_NONE,   /* a runtime error: no file */
  FILE_BEFORE, /* the word before the marker ("X: cannot open ...") */
  FILE_AFTER,  /* the word (or quoted text) after it */
} file_place;

typedef struct form {
  const char *marker; /* matched ignoring ASCII case */
  int kind;           /* CUDALOAD_MESSAGE_* */
  file_place place;
  /* 1: the file names the library whose load failed, and the reason may
   * name the file that was missing ("Could not load library A. Error: B:
   * cannot open shared object file"): then B is the message, needed by A. */
  int opener;
  const char *example; /* for the message listing the forms understood */
} form;

static const form forms[] = {
    {": cannot open shared object file", CUDALOAD_MESSAGE_LIBRARY_MISSING,
     FILE_BEFORE, 0, "libX.so.N: cannot open shared object file"},
    {"Could not load library ", CUDALOAD_MESSAGE_LIBRARY_MISSING, FILE_AFTER, 1,
     "Could not load library libX.so.N"},
    {"Could not locate ", CUDALOAD_MESSAGE_LIBRARY_MISSING, FILE_AFTER, 0,
     "Could not locate X64_N.dll"},
    {" is not found", CUDALOAD_MESSAGE_LIBRARY_MISSING, FILE_BEFORE, 0,
     "Library libX.so.N is not found or cannot be loaded, X64_N.dll is not "
     "found"},
    {"Failed to load library ", CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY,
     FILE_AFTER, 1, "Failed to load library X with error: ..."},
    {"Could not find module ", CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY,
     FILE_AFTER, 0,
     "[WinError 126] ... Could not find module 'X' (or one of its "
     "dependencies)"},
    {"Error loading ", CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY, FILE_AFTER, 0,
     "Error loading \"X\" or one of its dependencies"},
    {"when trying to load ", CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY, FILE_AFTER,
     0, "LoadLibrary failed with error 126 when trying to load X"},
    {"CUBLAS_STATUS_NOT_INITIALIZED", CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED,
     FILE_NONE, 0, "CUBLAS_STATUS_NOT_INITIALIZED"},
    {"CUDA driver version is insufficient for CUDA runtime version",
     CUDALOAD_MESSAGE_DRIVER_TOO_OLD, FILE_NONE, 0,
     "CUDA driver version is insufficient for CUDA runtime version"},
    {"cudaErrorInsufficientDriver", CUDALOAD_MESSAGE_DRIVER_TOO_OLD, FILE_NONE,
     0, NULL},
    {"no kernel image is available for execution on the device",
     CUDALOAD_MESSAGE_NO_KERNEL_IMAGE, FILE_NONE, 0,
     "no kernel image is available for execution on the device"},
    {"cudaErrorNoKernelImageForDevice", CUDALOAD_MESSAGE_NO_KERNEL_IMAGE,
     FILE_NONE, 0, NULL},
    {"CUDA_ERROR_NO_BINARY_FOR_GPU", CUDALOAD_MESSAGE_NO_KERNEL_IMAGE,
     FILE_NONE, 0, NULL},
};
#define FORM_COUNT (sizeof forms / sizeof forms[0])

/* At most this many messages from one text: a log repeating one error
 * gives one each, and no paste needs more. */
#define MAX_MESSAGES 32
/* A quoted line longer than this is cut. */
#define QUOTE_MAX 240

const char *cudaload_error_message_kind_name(int kind) {
  switch (kind) {
  case CUDALOAD_MESSAGE_LIBRARY_MISSING:
    return "library-missing";
  case CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY:
    return "library-or-dependency";
  case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
    return "cublas-not-initialized";
  case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
    return "driver-too-old";
  case CUDALOAD_MESSAGE_NO_KERNEL_IMAGE:
    return "no-kernel-image";
  default:
    return NULL;
  }
}

/* --- finding the forms -------------------------------------------------- */

/* The first place at or after from where needle occurs in text, ignoring
 * ASCII case; NULL when none. */
static const char *find_nocase(const char *from, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = from; *p; ++p) {
    if (cl_ascii_lower(*p) != cl_ascii_lower(needle[0]))
      continue;
    size_t k = 1;
    while (k < n && p[k] && cl_ascii_lower(p[k]) == cl_ascii_lower(needle[k]))
      ++k;
    if (k == n)
      return p;
  }
  return NULL;
}

/* A character that ends an unquoted file name in a message. */
static int ends_word(char c) {
  return c == '\0' || cl_ascii_is_space(c) || strchr("\"'`()[],;:=", c);
}

static int is_quote(char c) {
  return c == '"' || c == '\'' || c == '`';
}

/* The word just before [at]: from the previous space, quote or colon. */
static void word_before(const char *text, const char *at, const char **start,
                        size_t *len) {
  const char *p = at;
  while (p > text && !ends_word(p[-1]))
    --p;
  *start = p;
  *len = (size_t)(at - p);
}

/* The word (or, after a quote, the quoted text, which may be a Windows path
 * with spaces) starting at p; sentence punctuation after it left out ("...
 * libcudnn_cnn_infer.so.8. Error: ..."). */
static void word_after(const char *p, const char **start, size_t *len) {
  while (*p == ' ')
    ++p;
  if (is_quote(*p)) {
    char quote = *p++;
    const char *end = strchr(p, quote);
    const char *line = strchr(p, '\n');
    if (!end || (line && line < end))
      end = line ? line : p + strlen(p);
    *start = p;
    *len = (size_t)(end - p);
    return;
  }
  const char *end = p;
  while (!ends_word(*end))
    ++end;
  while (end > p && (end[-1] == '.' || end[-1] == '!'))
    --end;
  *start = p;
  *len = (size_t)(end - p);
}

/* Whether a name is a shared library's: "X.dll" or "X.so" with any version
 * after it. Words such as "module" in "module is not found" are not. */
static int library_file_name(const char *name) {
  size_t n = strlen(name);
  if (n > 4 && cl_starts_with_nocase(name + n - 4, ".dll"))
    return 1;
  const char *so = strstr(name, ".so");
  while (so) {
    if (so[3] == '\0' || so[3] == '.')
      return 1;
    so = strstr(so + 1, ".so");
  }
  return 0;
}

/* One form's hit, before the hits are put together. */
typedef struct hit {
  const form *form;
  size_t offset;     /* where the marker is in the text */
  size_t line_start; /* and the line it is on */
  size_t line_end;
  char *file; /* as written; NULL for FILE_NONE */
  char *needed_by;
  int dropped;
} hit;

typedef struct hits {
  hit *items;
  size_t count, capacity;
  int failed;
} hits;

static void add_hit(hits *h, const char *text, const form *f, const char *at,
                    const char *file, size_t file_len) {
  if (h->failed ||
      cl_reserve((void **)&h->items, &h->capacity, h->count + 1, sizeof(hit))) {
    h->failed = 1;
    return;
  }
  hit *x = &h->items[h->count];
  memset(x, 0, sizeof *x);
  x->form = f;
  x->offset = (size_t)(at - text);
  const char *ls = at, *le = at;
  while (ls > text && ls[-1] != '\n')
    --ls;
  while (*le && *le != '\n')
    ++le;
  x->line_start = (size_t)(ls - text);
  x->line_end = (size_t)(le - text);
  if (file) {
    x->file = cl_strndup(file, file_len);
    if (!x->file) {
      h->failed = 1;
      return;
    }
  }
  h->count++;
}

static void find_form(hits *h, const char *text, const form *f) {
  size_t marker_len = strlen(f->marker);
  for (const char *at = find_nocase(text, f->marker); at && !h->failed;
       at = find_nocase(at + marker_len, f->marker)) {
    const char *file = NULL;
    size_t len = 0;
    if (f->place == FILE_BEFORE)
      word_before(text, at, &file, &len);
    else if (f->place == FILE_AFTER)
      word_after(at + marker_len, &file, &len);
    if (f->place != FILE_NONE) {
      char name[512];
      if (len == 0 || len >= sizeof name)
        continue;
      memcpy(name, file, len);
      name[len] = '\0';
      if (!library_file_name(cl_path_basename(name)))
        continue;
    }
    add_hit(h, text, f, at, file, len);
  }
}

static int by_offset(const void *a, const void *b) {
  const hit *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int same_file(const char *a, const char *b) {
  return a && b && strcmp(cl_path_basename(a), cl_path_basename(b)) == 0;
}

/* An opener's reason names the file that was missing: that file is the
 * message (needed by the opener), or, when it is the opener's own name,
 * the opener is said twice. */
static void settle_openers(hits *h) {
  for (size_t i = 0; i < h->count && !h->failed; ++i) {
    hit *o = &h->items[i];
    if (!o->form->opener || o->dropped)
      continue;
    for (size_t k = 0; k < h->count; ++k) {
      hit *x = &h->items[k];
      if (k == i || x->dropped || !x->file || x->offset <= o->offset ||
          x->line_start != o->line_start)
        continue;
      o->dropped = 1;
      if (!same_file(x->file, o->file) && !x->needed_by) {
        x->needed_by = cl_strdup(o->file);
        h->failed |= !x->needed_by;
      }
    }
  }
  /* One message per kind and file: a log repeats itself. */
  for (size_t i = 0; i < h->count; ++i)
    for (size_t k = 0; k < i && !h->items[i].dropped; ++k)
      if (!h->items[k].dropped &&
          h->items[k].form->kind == h->items[i].form->kind &&
          (h->items[i].file ? same_file(h->items[k].file, h->items[i].file)
                            : !h->items[k].file))
        h->items[i].dropped = 1;
}

/* --- what each message means ------------------------------------------- */

/* The driver's library in any spelling a message uses: libcuda.so (the
 * development link, which some programs open), libcuda.so.1, nvcuda.dll. */
int cl_error_message_driver_file(const char *name) {
  return cl_starts_with_nocase(name, "libcuda.so") ||
         cl_starts_with_nocase(name, "nvcuda.dll");
}

/* The requirement a file name is (cudaload_require's parse of it), NULL
 * when it is not a catalog library; *failed on out of memory. */
static char *requirement_of(const char *name, int *failed) {
  cl_name_match m;
  if (cl_error_message_driver_file(name) ||
      !(cl_catalog_match(name, CL_NAMING_LINUX, &m) ||
        cl_catalog_match(name, CL_NAMING_WINDOWS, &m)))
    return NULL;
  cl_requirement *parsed;
  size_t n;
  char *kept = cl_save_error();
  if (cl_spec_parse(name, &parsed, &n) != CUDALOAD_OK) {
    cl_restore_error(kept);
    return NULL;
  }
  cl_restore_error(kept);
  char *text = n ? parsed[0].text : NULL;
  for (size_t i = 1; i < n; ++i)
    free(parsed[i].text);
  free(parsed);
  *failed |= !text;
  return text;
}

/* What a missing file is: "cublasLt of cublas 12". */
static void describe_file(const char *name, char *out, size_t size) {
  cl_name_match m;
  if (cl_catalog_match(name, CL_NAMING_LINUX, &m) ||
      cl_catalog_match(name, CL_NAMING_WINDOWS, &m)) {
    if (strcmp(m.entry->name, m.entry->family) == 0)
      snprintf(out, size, "%s is %s %d", name, m.entry->family, m.major);
    else
      snprintf(out, size, "%s is %s %d's %s library", name, m.entry->family,
               m.major, m.entry->name);
  } else {
    snprintf(out, size, "%s is not a CUDA library cudaload knows", name);
  }
}

static char *file_diagnosis(const hit *x, const char *name) {
  if (cl_error_message_driver_file(name))
    return cl_strdup_printf(
        "%s is the NVIDIA driver's library%s: the driver is not installed, "
        "or the program cannot see it (a container started without the "
        "GPU, or WSL without /usr/lib/wsl/lib on the search path)",
        name,
        cl_ends_with(name, ".so") ? " (the unversioned name, which only the "
                                    "driver's files provide)"
                                  : "");
  if (cl_starts_with_nocase(name, "zlibwapi.dll"))
    return cl_strdup(
        "zlibwapi.dll is the ZLIB DLL that cuDNN 8 for Windows needs and "
        "does not ship: put a zlibwapi.dll beside cudnn64_8.dll or in a "
        "folder on PATH");
  char what[320];
  describe_file(name, what, sizeof what);
  if (x->needed_by)
    return cl_strdup_printf("%s needs %s, which the loader found in none of "
                            "the folders it searches; %s",
                            cl_path_basename(x->needed_by), name, what);
  if (x->form->kind == CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY)
    return cl_strdup_printf(
        "%s could not be loaded: the file is missing, or a library it needs "
        "is (Windows and some frameworks do not say which); %s",
        name, what);
  return cl_strdup_printf(
      "%s: the program asked the loader for it by name and the loader found "
      "it in none of the folders it searches",
      what);
}

static char *runtime_diagnosis(int kind) {
  switch (kind) {
  case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
    return cl_strdup(
        "cuBLAS could not create its handle (cublasCreate): most often the "
        "GPU has too little free memory, there is no usable GPU or driver, or "
        "the driver is older than this cuBLAS needs");
  case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
    return cl_strdup("the program's CUDA runtime (cudart) is newer than the "
                     "installed NVIDIA driver supports");
  default: /* CUDALOAD_MESSAGE_NO_KERNEL_IMAGE */
    return cl_strdup(
        "the program's GPU code was not built for this GPU: its compute "
        "capability is not among the architectures the program (or its "
        "framework) was compiled for. Not a loading problem: the libraries "
        "loaded");
  }
}

/* The requirement a runtime error implies: the library whose behaviour it
 * is about, so that the plan shows which one the program would take. */
static const char *runtime_requirement(int kind) {
  switch (kind) {
  case CUDALOAD_MESSAGE_CUBLAS_NOT_INITIALIZED:
    return "cublas";
  case CUDALOAD_MESSAGE_DRIVER_TOO_OLD:
    return "cudart";
  default:
    return NULL;
  }
}

/* The line of the text a hit is on, trimmed and cut. */
static char *quote_of(const char *text, const hit *x) {
  const char *s = text + x->line_start, *e = text + x->line_end;
  while (s < e && cl_ascii_is_space(*s))
    ++s;
  while (e > s && cl_ascii_is_space(e[-1]))
    --e;
  size_t n = cl_quote_length(s, (size_t)(e - s), QUOTE_MAX);
  return cl_strdup_printf("%.*s%s", (int)n, s,
                          n < (size_t)(e - s) ? "..." : "");
}

static int fill_message(cl_error_message *m, const char *text, const hit *x) {
  memset(m, 0, sizeof *m);
  int failed = 0;
  m->kind = x->form->kind;
  m->quote = quote_of(text, x);
  failed |= !m->quote;
  if (x->file) {
    const char *name = cl_path_basename(x->file);
    m->file = cl_strdup(x->file);
    m->needed_by = x->needed_by ? cl_strdup(x->needed_by) : NULL;
    m->requirement = requirement_of(name, &failed);
    m->diagnosis = file_diagnosis(x, name);
    failed |= !m->file || (x->needed_by && !m->needed_by);
  } else {
    const char *r = runtime_requirement(m->kind);
    m->requirement = r ? cl_strdup(r) : NULL;
    m->diagnosis = runtime_diagnosis(m->kind);
    failed |= r && !m->requirement;
  }
  return failed || !m->diagnosis;
}

static void free_messages(cl_error_message *ms, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    free(ms[i].quote);
    free(ms[i].file);
    free(ms[i].needed_by);
    free(ms[i].requirement);
    free(ms[i].diagnosis);
  }
  free(ms);
}

static void free_kept_messages(cl_error_messages *kept) {
  free_messages(kept->items, kept->count);
  free(kept);
}

static void free_hits(hits *h) {
  for (size_t i = 0; i < h->count; ++i) {
    free(h->items[i].file);
    free(h->items[i].needed_by);
  }
  free(h->items);
}

/* "... cudaload reads: A; B; ..." for a text it does not recognise. */
static int not_recognised(const char *text) {
  char forms_text[1200] = "";
  size_t used = 0;
  for (size_t i = 0; i < FORM_COUNT && used < sizeof forms_text; ++i) {
    if (!forms[i].example)
      continue;
    int w = snprintf(forms_text + used, sizeof forms_text - used, "%s\"%s\"",
                     used ? "; " : "", forms[i].example);
    if (w < 0)
      break;
    used += (size_t)w;
  }
  size_t len = strlen(text);
  size_t n = cl_quote_length(text, len, 64);
  return cl_fail(CUDALOAD_E_BAD_SPEC,
                 "error message \"%.*s%s\": no form cudaload knows; it reads "
                 "these (docs/error-messages.md): %s",
                 (int)n, text, n < len ? "..." : "", forms_text);
}

/* The messages text holds, in text order, each once: a malloc'ed array of
 * *count (free each field, then the array), or CUDALOAD_E_BAD_SPEC with a
 * last error listing the forms understood when it holds none,
 * CUDALOAD_E_NO_MEMORY. Changes no context. */
static int messages_read(const char *text, cl_error_message **out,
                         size_t *count) {
  *out = NULL;
  *count = 0;
  hits h = {NULL, 0, 0, 0};
  for (size_t f = 0; f < FORM_COUNT; ++f)
    find_form(&h, text, &forms[f]);
  if (!h.failed && h.count)
    qsort(h.items, h.count, sizeof(hit), by_offset);
  settle_openers(&h);
  if (h.failed) {
    free_hits(&h);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "error message: out of memory");
  }
  cl_error_message *ms = calloc(MAX_MESSAGES, sizeof *ms);
  size_t n = 0;
  int failed = !ms;
  for (size_t i = 0; i < h.count && !failed && n < MAX_MESSAGES; ++i)
    if (!h.items[i].dropped)
      failed = fill_message(&ms[n++], text, &h.items[i]);
  free_hits(&h);
  if (failed) {
    free_messages(ms, n);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "error message: out of memory");
  }
  if (n == 0) {
    free(ms);
    return not_recognised(text);
  }
  *out = ms;
  *count = n;
  return CUDALOAD_OK;
}

int cudaload_read_error_message(cudaload_ctx *ctx, const char *text) {
  cl_clear_error();
  if (!ctx || !text)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_read_error_message: NULL %s",
                   ctx ? "text" : "ctx");
  cl_error_message *ms;
  size_t n;
  int rc = messages_read(text, &ms, &n);
  if (rc)
    return rc;
  /* The requirements of all of them, or none. */
  char *spec = NULL;
  size_t spec_len = 0;
  for (size_t i = 0; i < n && !rc; ++i) {
    if (!ms[i].requirement)
      continue;
    char *longer = cl_strdup_printf("%s%s%s", spec ? spec : "", spec ? "," : "",
                                    ms[i].requirement);
    free(spec);
    spec = longer;
    rc = spec ? CUDALOAD_OK : CUDALOAD_E_NO_MEMORY;
    spec_len = spec ? strlen(spec) : 0;
  }
  if (!rc && spec_len)
    rc = cl_require_from(ctx, spec, CUDALOAD_FROM_MESSAGE);
  free(spec);
  if (rc) {
    free_messages(ms, n);
    return rc == CUDALOAD_E_NO_MEMORY
               ? cl_fail(rc, "cudaload_read_error_message: out of memory")
               : rc;
  }
  cl_error_messages *kept = ctx->error_messages;
  if (!kept) {
    kept = calloc(1, sizeof *kept);
    if (!kept) {
      free_messages(ms, n);
      return cl_fail(CUDALOAD_E_NO_MEMORY,
                     "cudaload_read_error_message: out of memory");
    }
    /* Set here, by the stage that makes them: the handle frees them
     * without knowing this stage (core/ calls no later one). */
    ctx->error_messages = kept;
    ctx->error_messages_free = free_kept_messages;
  }
  free_messages(kept->items, kept->count);
  kept->items = ms;
  kept->count = n;
  return CUDALOAD_OK;
}

size_t cl_error_message_count(const cudaload_ctx *ctx) {
  return ctx && ctx->error_messages ? ctx->error_messages->count : 0;
}

const cl_error_message *cl_error_message_at(const cudaload_ctx *ctx, size_t i) {
  return i < cl_error_message_count(ctx) ? &ctx->error_messages->items[i]
                                         : NULL;
}

size_t cudaload_error_message_count(const cudaload_ctx *ctx) {
  return cl_error_message_count(ctx);
}

int cudaload_error_message_kind(const cudaload_ctx *ctx, size_t i) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m ? m->kind : 0;
}

const char *cudaload_error_message_quote(const cudaload_ctx *ctx, size_t i) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m ? m->quote : NULL;
}

const char *cudaload_error_message_file(const cudaload_ctx *ctx, size_t i) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m ? m->file : NULL;
}

const char *cudaload_error_message_needed_by(const cudaload_ctx *ctx,
                                             size_t i) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m ? m->needed_by : NULL;
}

const char *cudaload_error_message_requirement(const cudaload_ctx *ctx,
                                               size_t i) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m ? m->requirement : NULL;
}

const char *cudaload_error_message_diagnosis(const cudaload_ctx *ctx,
                                             size_t i) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m ? m->diagnosis : NULL;
}
