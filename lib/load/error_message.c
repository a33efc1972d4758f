/* SPDX-License-Identifier: MIT */
/*
 * error_message.c - cudaload_read_error_message(): start from the error the
 * user has. A pasted text (one line, a traceback, a whole log, in whatever
 * encoding the terminal wrote) is made readable (error_text.c), searched
 * in one pass for every form in which loaders, Windows, CUDA and the
 * frameworks say that a library did not load (error_forms.c), each form
 * read for its facts (error_facts.c), and each message found given the
 * requirement it implies and what it means (error_meaning.c). The
 * requirements are added to the context, so the doctor plans for exactly
 * what the program could not load.
 *
 * Reading is linear in the text: the forms are found in one pass, a
 * message is compared only with the few kept (a log repeating one error
 * gives it once), and every look around a form is bounded.
 *
 * This file produces requirements and facts and says what each message
 * means; what this machine makes of it (is the library here after all? is
 * the driver?) is the doctor's part (report/error_message_report.c).
 */
#include "load/error_message.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strutil.h"
#include "load/error_forms.h"
#include "load/error_meaning.h"
#include "load/error_text.h"
#include "load/plan_state.h"
#include "load/spec.h"
#include "common/reason_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many messages from one text (a log repeating one error
 * gives it once; no paste needs more), and summaries besides. */
#define MAX_MESSAGES 32
#define MAX_SUMMARIES 16
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
  case CUDALOAD_MESSAGE_SYMBOL_MISSING:
    return "symbol-missing";
  case CUDALOAD_MESSAGE_VERSION_MISMATCH:
    return "version-mismatch";
  case CUDALOAD_MESSAGE_DRIVER_MISSING:
    return "driver-missing";
  case CUDALOAD_MESSAGE_CUDA_UNAVAILABLE:
    return "cuda-unavailable";
  case CUDALOAD_MESSAGE_PACKAGE_CONFLICT:
    return "package-conflict";
  default:
    return NULL;
  }
}

const char *cudaload_error_message_fact_name(int fact) {
  static const char *const names[] = {
      NULL,
      "cause",
      "file-form",
      "file-name",
      "folder",
      "library",
      "family",
      "major",
      "cuda-major",
      "cuda-version",
      "required-version",
      "found-version",
      "driver-cuda-version",
      "symbol",
      "symbol-version",
      "windows-error",
      "candidates",
      "consumer-module",
      "consumer-version",
      "environment",
      "distribution",
      "needed-by",
  };
  return fact > 0 && fact <= CL_ERROR_FACT_LAST ? names[fact] : NULL;
}

/* --- reading a text --------------------------------------------------------
 */

typedef struct reading {
  cl_error_scene scene;
  cl_error_draft kept[MAX_MESSAGES];
  size_t count;
  size_t beyond; /* messages past MAX_MESSAGES, left out */
  cl_error_draft summaries[MAX_SUMMARIES];
  size_t summary_count;
  /* An opener waiting for its reason on its line. */
  cl_error_draft pending;
  int has_pending;
  /* The message drafted last (a Windows code later on its line is its). */
  cl_error_draft *last;
} reading;

static int same_name(cl_error_span a, cl_error_span b);

static cl_error_draft *keep(reading *r, const cl_error_draft *d) {
  for (size_t i = 0; i < r->count; ++i) {
    cl_error_draft *k = &r->kept[i];
    if (cl_error_draft_same(k, d))
      return k;
    /* "X could not be loaded" and, later, "X: cannot open shared object
     * file" (vLLM says both): one message, the more precise kind. */
    if (same_name(k->file, d->file) &&
        ((k->kind == CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY &&
          d->kind == CUDALOAD_MESSAGE_LIBRARY_MISSING) ||
         (d->kind == CUDALOAD_MESSAGE_LIBRARY_OR_DEPENDENCY &&
          k->kind == CUDALOAD_MESSAGE_LIBRARY_MISSING))) {
      k->kind = CUDALOAD_MESSAGE_LIBRARY_MISSING;
      return k;
    }
  }
  if (r->count == MAX_MESSAGES) {
    r->beyond++;
    return NULL;
  }
  r->kept[r->count] = *d;
  return &r->kept[r->count++];
}

static void keep_pending(reading *r) {
  if (!r->has_pending)
    return;
  r->has_pending = 0;
  cl_error_draft *kept = keep(r, &r->pending);
  if (r->last == &r->pending)
    r->last = kept;
}

static void summarise(reading *r, const cl_error_draft *d) {
  for (size_t i = 0; i < r->summary_count; ++i)
    if (cl_error_draft_same(&r->summaries[i], d)) {
      r->last = &r->summaries[i];
      return;
    }
  if (r->summary_count == MAX_SUMMARIES)
    return;
  r->summaries[r->summary_count] = *d;
  r->last = &r->summaries[r->summary_count++];
}

static int same_name(cl_error_span a, cl_error_span b) {
  a = cl_error_basename(a.s, a.len);
  b = cl_error_basename(b.s, b.len);
  return a.len && a.len == b.len && cl_same_nocase(a.s, b.s, a.len);
}

static int on_hit(const cl_error_hit *hit, void *opaque) {
  reading *r = opaque;
  if (r->has_pending && hit->line_start != r->pending.line_start)
    keep_pending(r);
  const cl_error_form *f = hit->form;
  if (f->role == CL_ERROR_STATEMENT || f->role == CL_ERROR_CONSUMER) {
    cl_error_scene_note(&r->scene, hit, r->last);
    return 0;
  }
  cl_error_draft d;
  if (!cl_error_draft_read(&d, hit, &r->scene))
    return 0;
  if (f->reader == CL_READ_WINDOWS_CODE)
    cl_error_scene_note(&r->scene, hit, r->last);
  cl_error_draft_place(&d, &r->scene);
  if (f->role == CL_ERROR_SUMMARY) {
    summarise(r, &d);
    return 0;
  }
  if (r->has_pending && r->pending.line_start == d.line_start) {
    /* The opener's reason: the same file again, more precisely, or the
     * file the opener needed. */
    if (d.file.len && same_name(r->pending.file, d.file)) {
      cl_error_draft reason = d;
      d = r->pending;
      cl_error_draft_merge(&d, &reason);
    } else {
      cl_error_draft_inherit(&d, &r->pending);
    }
    r->has_pending = 0;
    if (r->last == &r->pending)
      r->last = NULL;
    r->last = keep(r, &d);
    return 0;
  }
  if (f->role == CL_ERROR_OPENER) {
    keep_pending(r);
    r->pending = d;
    r->has_pending = 1;
    r->last = &r->pending;
    return 0;
  }
  r->last = keep(r, &d);
  return 0;
}

/* Whether a summary says something the messages do not: it is kept when
 * there are none, or when it concerns a family none of them does. */
static int summary_adds(const reading *r, const cl_error_draft *s) {
  if (!r->count)
    return 1;
  if (!s->family)
    return 0;
  for (size_t i = 0; i < r->count; ++i)
    if (r->kept[i].family && strcmp(r->kept[i].family, s->family) == 0)
      return 0;
  return 1;
}

/* --- the messages kept -----------------------------------------------------
 */

static char *quote_of(const char *text, const cl_error_draft *d) {
  const char *s = text + d->line_start, *e = text + d->line_end;
  while (s < e && cl_ascii_is_space(*s))
    ++s;
  while (e > s && cl_ascii_is_space(e[-1]))
    --e;
  size_t n = cl_quote_length(s, (size_t)(e - s), QUOTE_MAX);
  char *quote =
      cl_strdup_printf("%.*s%s", (int)n, s, n < (size_t)(e - s) ? "..." : "");
  /* A message a logger wrapped is quoted as one line. */
  for (char *q = quote; q && *q; ++q)
    if (*q == '\n')
      *q = ' ';
  return quote;
}

static char *span_copy(cl_error_span s) {
  return s.len ? cl_strndup(s.s, s.len) : NULL;
}

static void free_message(cl_error_message *m) {
  free(m->quote);
  free(m->file);
  free(m->needed_by);
  free(m->requirement);
  free(m->diagnosis);
  for (int f = 0; f <= CL_ERROR_FACT_LAST; ++f) {
    free(m->facts[f]);
    free(m->sources[f]);
  }
}

static void free_messages(cl_error_message *ms, size_t n) {
  for (size_t i = 0; i < n; ++i)
    free_message(&ms[i]);
  free(ms);
}

static void free_kept_messages(cl_error_messages *kept) {
  free_messages(kept->items, kept->count);
  free(kept);
}

/* 0, or 1 when memory ran out. */
static int fill_message(cl_error_message *m, const char *text,
                        const cl_error_draft *d) {
  memset(m, 0, sizeof *m);
  int failed = 0;
  m->kind = d->kind;
  m->cuda_strength = d->cuda_strength;
  m->quote = quote_of(text, d);
  m->file = span_copy(d->file);
  m->needed_by = span_copy(d->needed_by);
  m->requirement = cl_error_requirement(d, &failed);
  m->diagnosis = cl_error_diagnosis(d);
  failed |= !m->quote || !m->diagnosis || (d->file.len && !m->file) ||
            (d->needed_by.len && !m->needed_by);
  for (int f = 1; f <= CL_ERROR_FACT_LAST && !failed; ++f) {
    const cl_error_fact *x = &d->facts[f];
    if (!x->value.s && !x->own[0])
      continue;
    size_t size = (x->value.s ? x->value.len : strlen(x->own)) + 1;
    m->facts[f] = malloc(size);
    m->sources[f] = span_copy(x->source);
    failed |= !m->facts[f] || (x->source.len && !m->sources[f]);
    if (m->facts[f])
      cl_error_fact_text(x, m->facts[f], size);
  }
  return failed;
}

/* "... it reads these: A; B; ..." for a text it does not recognise. */
static int not_recognised(const cl_error_text *t) {
  cl_buf forms_text = CL_BUF_INIT;
  size_t count;
  const cl_error_form *all = cl_error_forms(&count);
  for (size_t i = 0; i < count; ++i)
    if (all[i].example)
      cl_buf_printf(&forms_text, "%s\"%s\"", forms_text.len ? "; " : "",
                    all[i].example);
  size_t n = cl_quote_length(t->text, t->len, 64);
  char dropped[96] = "";
  if (t->dropped)
    snprintf(dropped, sizeof dropped, CL_WORDS_BYTES_IN_THE_MIDDLE_LEFT,
             t->dropped);
  int rc =
      cl_fail(CUDALOAD_E_BAD_SPEC,
              "error message \"%.*s%s\": no form cudaload knows in it "
              "(read %zu line%s, %zu byte%s of %s%s); it reads these "
              "(docs/error-messages.md): %s",
              (int)n, t->text, n < t->len ? "..." : "", t->lines,
              t->lines == 1 ? "" : "s", t->size, t->size == 1 ? "" : "s",
              t->encoding, dropped, forms_text.data ? forms_text.data : "");
  cl_buf_free(&forms_text);
  return rc;
}

static void sort_by_place(cl_error_draft **ds, size_t n) {
  for (size_t i = 1; i < n; ++i)
    for (size_t k = i; k > 0 && ds[k]->at < ds[k - 1]->at; --k) {
      cl_error_draft *x = ds[k];
      ds[k] = ds[k - 1];
      ds[k - 1] = x;
    }
}

/* The messages t holds, in text order, each once: a malloc'ed array of
 * *count, or CUDALOAD_E_BAD_SPEC with a last error listing the forms
 * understood when it holds none, CUDALOAD_E_NO_MEMORY. Changes no
 * context. */
static int messages_read(const cl_error_text *t, cl_error_message **out,
                         size_t *count) {
  *out = NULL;
  *count = 0;
  reading *r = calloc(1, sizeof *r);
  if (!r)
    return cl_fail(CUDALOAD_E_NO_MEMORY, "error message: out of memory");
  cl_error_scene_init(&r->scene, t->text);
  cl_error_forms_scan(t->text, t->len, on_hit, r);
  keep_pending(r);
  cl_error_draft *order[MAX_MESSAGES + MAX_SUMMARIES];
  size_t n = 0;
  for (size_t i = 0; i < r->count; ++i) {
    cl_error_draft_complete(&r->kept[i], &r->scene);
    order[n++] = &r->kept[i];
  }
  for (size_t i = 0; i < r->summary_count; ++i) {
    cl_error_draft_complete(&r->summaries[i], &r->scene);
    if (summary_adds(r, &r->summaries[i]))
      order[n++] = &r->summaries[i];
  }
  if (n == 0) {
    free(r);
    return not_recognised(t);
  }
  sort_by_place(order, n);
  cl_error_message *ms = calloc(n, sizeof *ms);
  int failed = !ms;
  size_t made = 0;
  for (; made < n && !failed; ++made)
    failed = fill_message(&ms[made], t->text, order[made]);
  free(r);
  if (failed) {
    free_messages(ms, made);
    return cl_fail(CUDALOAD_E_NO_MEMORY, "error message: out of memory");
  }
  *out = ms;
  *count = n;
  return CUDALOAD_OK;
}

/* "cudnn=8,cublas=12", and in *cuda the CUDA major the messages agree on
 * (12) from statements that speak for the program, with *quote the line
 * that says it; 0 when none or they disagree. NULL (with *failed 0) for no
 * requirement. */
static char *requirements_of(cl_error_message *ms, size_t n, int *cuda,
                             const char **quote, int *failed) {
  cl_buf spec = CL_BUF_INIT;
  const char *agreed = NULL;
  int agree = 1;
  *quote = NULL;
  for (size_t i = 0; i < n; ++i) {
    if (ms[i].requirement)
      cl_buf_printf(&spec, "%s%s", spec.len ? "," : "", ms[i].requirement);
    /* A wheel's name seen in passing is a fact, too weak to pin a plan. */
    const char *c = ms[i].cuda_strength >= 2
                        ? ms[i].facts[CUDALOAD_MESSAGE_FACT_CUDA_MAJOR]
                        : NULL;
    if (c && agreed && strcmp(c, agreed) != 0)
      agree = 0;
    if (c && !agreed) {
      agreed = c;
      /* The words that say it ("Require cuDNN 9.* and CUDA 12.*"). */
      *quote = ms[i].sources[CUDALOAD_MESSAGE_FACT_CUDA_MAJOR]
                   ? ms[i].sources[CUDALOAD_MESSAGE_FACT_CUDA_MAJOR]
                   : ms[i].quote;
    }
  }
  *cuda = agreed && agree ? atoi(agreed) : 0;
  *failed = spec.failed;
  return cl_buf_take(&spec);
}

int cudaload_read_error_text(cudaload_ctx *ctx, const void *bytes,
                             size_t size) {
  cl_clear_error();
  if (!ctx || (!bytes && size))
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_read_error_text: NULL %s", ctx ? "bytes" : "ctx");
  cl_error_text t;
  if (cl_error_text_read(bytes ? bytes : "", size, &t))
    return cl_fail(CUDALOAD_E_NO_MEMORY,
                   "cudaload_read_error_text: out of memory");
  cl_error_message *ms;
  size_t n;
  int rc = messages_read(&t, &ms, &n);
  cl_error_text_free(&t);
  if (rc)
    return rc;
  /* The requirements of all of them, or none. */
  int failed = 0, cuda = 0;
  const char *said = NULL;
  char *spec = requirements_of(ms, n, &cuda, &said, &failed);
  rc = failed ? CUDALOAD_E_NO_MEMORY : CUDALOAD_OK;
  if (!rc && spec && spec[0])
    rc = cl_require_from(ctx, spec, CUDALOAD_FROM_MESSAGE);
  /* The program's CUDA major, as its message says it: the plan's pin,
   * unless the caller pinned one (cuda=MAJOR), whose word stands. */
  if (!rc && cuda) {
    char *why = cl_strdup_printf(CL_WORDS_THE_ERROR_MESSAGE_SAYS_CUDA, cuda,
                                 said ? said : "");
    rc = why ? cl_plan_pin_cuda(ctx, cuda, CUDALOAD_FROM_MESSAGE, why)
             : CUDALOAD_E_NO_MEMORY;
    free(why);
  }
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

int cudaload_read_error_message(cudaload_ctx *ctx, const char *text) {
  cl_clear_error();
  if (!ctx || !text)
    return cl_fail(CUDALOAD_E_INVALID_ARGUMENT,
                   "cudaload_read_error_message: NULL %s",
                   ctx ? "text" : "ctx");
  return cudaload_read_error_text(ctx, text, strlen(text));
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

const char *cudaload_error_message_fact(const cudaload_ctx *ctx, size_t i,
                                        int fact) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m && fact > 0 && fact <= CL_ERROR_FACT_LAST ? m->facts[fact] : NULL;
}

const char *cudaload_error_message_fact_source(const cudaload_ctx *ctx,
                                               size_t i, int fact) {
  const cl_error_message *m = cl_error_message_at(ctx, i);
  return m && fact > 0 && fact <= CL_ERROR_FACT_LAST ? m->sources[fact] : NULL;
}
