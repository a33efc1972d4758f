/* SPDX-License-Identifier: MIT */
/*
 * doctor_text.c - the doctor's report as text for a person (doctor_text.h).
 */
#include "report/doctor_text.h"
#include "scan/roots.h"
#include "load/error_message.h"
#include "load/manifest.h"
#include "load/verdict.h"
#include "report/report_inventory.h"
#include "report/report_plan.h"
#include "report/report_watchdog.h"
#include "report/error_message_report.h"
#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* Where the text of a section lines up: labels, then values. */
#define LABEL_WIDTH 14

/* --- text ------------------------------------------------------------- */

/* The text report (report_text.h), in colour when asked for. */
typedef struct text {
  cl_text_report r;
  int color;
  int wrap; /* the short form: prose fits PROSE_WIDTH columns */
  /* The short form: an environment's folder in prose is "<venv>/…". */
  const cudaload_ctx *ctx;
} text;

/* A value from outside (a path, a version read from a file, a driver's
 * string, spec text) as it may be shown: escaped when it holds control
 * bytes or bytes that are not UTF-8 (text_escape.h). The colours below are
 * the only escape sequences the text report may carry. */
static const char *shown_value(text *t, const char *s, int keep_newlines) {
  return keep_newlines ? cl_text_shown_lines(&t->r, s)
                       : cl_text_shown(&t->r, s);
}

static const char *shown(text *t, const char *s) {
  return shown_value(t, s, 0);
}

static void put(text *t, const char *fmt, ...) CL_PRINTF(2, 3);
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cl_buf_vprintf(&t->r.text, fmt, ap);
  va_end(ap);
}

/* ANSI SGR codes, only when asked for (a terminal that wants colour). */
static const char *sgr(const text *t, const char *code) {
  return t->color ? code : "";
}
#define BOLD "\033[1m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

/* How wide a line of the short form's prose may be (issue 46: one screen
 * of 80 columns). A command is never broken: it is pasted. */
#define PROSE_WIDTH 80

/* The columns of s up to end: its UTF-8 characters. */
static size_t columns(const char *s, const char *end) {
  size_t n = 0;
  for (; s < end; ++s)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* Where a line of prose may break: at a space outside a command quoted in
 * it (a "..." span and the word before it, as eval "$(...)"; a call such
 * as setup(...): an opening bracket right after a word), so that what is
 * pasted stays on one line.
 * The last such space of s..end within `room` columns, else the first
 * beyond them; NULL when there is none. */
static const char *prose_break(const char *s, const char *end, size_t room) {
  const char *cut = NULL;
  size_t cols = 0;
  int quoted = 0, depth = 0;
  for (const char *p = s; p < end; ++p) {
    if (*p == '"')
      quoted = !quoted;
    else if (!quoted && depth && (*p == '(' || *p == '['))
      ++depth;
    else if (!quoted && (*p == '(' || *p == '[') && p > s && p[-1] != ' ')
      depth = 1;
    else if (!quoted && depth && (*p == ')' || *p == ']'))
      --depth;
    else if (*p == ' ' && !quoted && !depth && p > s && p[1] != '"') {
      if (cols > room)
        return cut ? cut : p;
      cut = p;
    }
    cols += ((unsigned char)*p & 0xC0) != 0x80;
  }
  return cols > room ? cut : NULL;
}

static const char *origin_word(const char *origin);

/* The length of an environment's site folder at s, after its root:
 * "/lib/python3.X/site-packages/" or "\Lib\site-packages\"; 0 when s
 * holds none. */
static size_t site_folder_length(const char *s) {
  static const char *const forms[] = {"/lib/python3.", "\\Lib\\site-packages\\",
                                      "/Lib/site-packages/"};
  for (size_t i = 0; i < sizeof forms / sizeof *forms; ++i) {
    size_t n = strlen(forms[i]);
    if (strncmp(s, forms[i], n))
      continue;
    if (i > 0)
      return n;
    size_t digits = strspn(s + n, "0123456789");
    if (digits && !strncmp(s + n + digits, "/site-packages/", 15))
      return n + digits + 15;
  }
  return 0;
}

static int is_separator(char c) {
  return c == '/' || c == '\\';
}

/* The rest of a path at p, written to b with each "name/../" dropped
 * (tensorflow/compiler/mlir/lite/python/../../../../libtensorflow_
 * framework.so.2 is tensorflow/libtensorflow_framework.so.2, as the real
 * path a user looks for): a shortened form, for prose only; a ".." with no
 * name before it in the rest is kept. Returns where the path ends (a
 * space, a comma, a bracket, a quote, a colon or the end). */
static const char *collapse_parents(cl_buf *b, const char *p) {
  const char *end = p + strcspn(p, " ,()[]\"':;\n");
  size_t start = b->len;
  for (const char *c = p; c < end;) {
    size_t len = strcspn(c, "/\\");
    const char *next = c + len < end ? c + len + 1 : end;
    if (c + len > end)
      len = (size_t)(end - c);
    /* What was written since start is whole components, each with its
     * separator: the last one is [last, b->len). */
    size_t last = b->len;
    if (last > start)
      for (--last; last > start && !is_separator(b->data[last - 1]);)
        --last;
    int parent = len == 2 && c[0] == '.' && c[1] == '.' && next < end;
    size_t name = b->len - last; /* with its separator */
    if (parent && name > 1 &&
        !(name == 3 && b->data[last] == '.' && b->data[last + 1] == '.')) {
      b->len = last; /* "name/" and this "../" are gone */
      b->data[b->len] = '\0';
    } else {
      cl_buf_printf(b, "%.*s", (int)(next - c), c);
    }
    c = next;
  }
  return end;
}

/* Prose s with each environment root's folder written "<venv>" (its site
 * folder "<venv>/…/"), as the requirement lines write them; malloc'ed,
 * NULL when there is nothing to shorten or no memory (s is then shown). */
static char *short_roots(const text *t, const char *s) {
  const cl_inventory *inv = t->ctx ? cl_inventory_of(t->ctx) : NULL;
  cl_buf b = CL_BUF_INIT;
  int changed = 0;
  for (const char *p = s; inv && *p;) {
    size_t taken = 0;
    for (size_t r = 0; r < inv->root_count && !taken; ++r) {
      const cl_root *root = &inv->roots[r];
      size_t n = strlen(root->path);
      if (cl_origin_tier(root->origin) != CL_TIER_ENVIRONMENT || n < 2 ||
          strncmp(p, root->path, n) || (p[n] != '/' && p[n] != '\\'))
        continue;
      size_t site = site_folder_length(p + n);
      cl_buf_printf(&b, "<%s>%s", origin_word(root->origin),
                    site ? "/\xe2\x80\xa6/" : ""); /* "…" */
      taken = n + site;
    }
    if (taken) {
      p += taken;
      changed = 1;
      p = collapse_parents(&b, p);
    } else {
      cl_buf_printf(&b, "%c", *p++);
    }
  }
  char *out = cl_buf_take(&b);
  if (!changed) {
    free(out);
    return NULL;
  }
  return out;
}

/* Prose s (shown: escaped already), `used` columns of its first line
 * taken by what precedes it, then tail (a colour's end, no columns) and a
 * newline. In the short form a line longer than PROSE_WIDTH is broken
 * (prose_break), its rest indented by hang plus the line's own indent; a
 * word or a quoted command longer than a line stays whole. */
static void put_prose_lines(text *t, size_t used, size_t hang, const char *s,
                            const char *tail) {
  for (;;) {
    const char *end = s + strcspn(s, "\n");
    size_t indent = strspn(s, " ");
    const char *cut;
    while (t->wrap && used + indent < PROSE_WIDTH &&
           used + columns(s, end) > PROSE_WIDTH &&
           (cut = prose_break(s + indent, end, PROSE_WIDTH - used - indent)) !=
               NULL) {
      put(t, "%.*s\n%*s", (int)(cut - s), s, (int)(hang + indent), "");
      s = cut + strspn(cut, " ");
      used = hang + indent;
      indent = 0;
    }
    if (!*end) {
      put(t, "%s%s\n", s, tail);
      return;
    }
    put(t, "%.*s\n", (int)(end - s), s);
    s = end + 1;
    used = 0;
  }
}

static void put_prose(text *t, size_t used, size_t hang, const char *s,
                      const char *tail) {
  put_prose_lines(t, used, hang, s, tail);
}

/* A problem's sentence: prose, its environment folders shortened (a fix's
 * note is not: it may quote a command, which is pasted as it is). */
static void put_problem(text *t, size_t used, size_t hang, const char *s,
                        const char *tail) {
  char *shorter = t->wrap ? short_roots(t, s) : NULL;
  put_prose_lines(t, used, hang, shorter ? shorter : s, tail);
  free(shorter);
}

static void heading(text *t, const char *title) {
  put(t, "\n%s%s%s\n", sgr(t, BOLD), title, sgr(t, RESET));
}

static void field(text *t, const char *label, const char *value) {
  put(t, "  %-*s%s\n", LABEL_WIDTH, label, shown(t, value));
}

/* Column widths of a table: the header's, widened by every cell. */
static void widen(size_t *width, const char *cell) {
  size_t n = strlen(cell);
  if (n > *width)
    *width = n;
}

static void text_libraries(text *t, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  static const cl_library_table_layout doctor_layout = {
      .indent = "  ", .family_first = 1, .header_without_rows = 0};
  heading(t, "Libraries found");
  cl_text_library_table(&t->r, ctx, &doctor_layout);
  size_t missing = 0;
  for (size_t i = 0; i < inv->root_count; ++i)
    missing += inv->roots[i].status != CUDALOAD_OK;
  put(t, "  %zu %s in %zu %s searched (%zu absent or unreadable)%s\n",
      inv->library_count, inv->library_count == 1 ? "library" : "libraries",
      inv->root_count, inv->root_count == 1 ? "root" : "roots", missing,
      inv->root_count ? ":" : "");
  cl_text_roots(&t->r, ctx, "    ");
  cl_text_nearby_environments(&t->r, ctx, "  ");
}

static void text_plan(text *t, const cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  const cl_manifest_state *manifest = cl_manifest_of(ctx);
  heading(t, "Plan");
  if (manifest) {
    char policy[160];
    snprintf(policy, sizeof policy, "%s (sub-libraries %s, %s%s, probe %s)",
             manifest->path,
             manifest->preload_flags & CUDALOAD_PRELOAD_ALL_SUBLIBS ? "all"
                                                                    : "minimal",
             manifest->preload_flags & CUDALOAD_PRELOAD_GLOBAL ? "global"
                                                               : "local",
             manifest->isolation ? ", isolation" : "",
             manifest->probe ? "on" : "off");
    field(t, "manifest", policy);
  }
  if (cl_plan_state_of(ctx)->requirement_count == 0) {
    field(t, "requirements", "none (give --require SPEC or a manifest)");
    return;
  }
  if (cl_plan_state_of(ctx)->plan_cuda_major) {
    char major[700];
    snprintf(major, sizeof major, "%d (%.600s)",
             cl_plan_state_of(ctx)->plan_cuda_major,
             cl_plan_state_of(ctx)->plan_cuda_reason
                 ? cl_plan_state_of(ctx)->plan_cuda_reason
                 : "");
    field(t, "cuda major", major);
  }
  size_t w = 4;
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r)
    widen(&w, shown(t, cl_plan_state_of(ctx)->requirements[r].text));
  for (size_t r = 0; r < cl_plan_state_of(ctx)->requirement_count; ++r) {
    const char *path;
    int ok = cl_doctor_requirement_satisfied(ctx, r, &path);
    put(t, "  %-*s  %s%-7s%s  %s\n", (int)w,
        shown(t, cl_plan_state_of(ctx)->requirements[r].text),
        sgr(t, ok ? GREEN : RED), ok ? "ok" : "MISSING", sgr(t, RESET),
        ok ? shown(t, path) : "no usable library (see Problems and fixes)");
    char decided[256];
    cl_doctor_describe_choice(ctx, r, decided, sizeof decided);
    if (ok && decided[0])
      put(t, "  %-*s           decided by %s\n", (int)w, "", decided);
    const char *from = cl_requirement_origin_of(
        ctx, cl_plan_state_of(ctx)->requirements[r].text);
    if (from)
      put(t, "  %-*s           from %s\n", (int)w, "", shown(t, from));
  }
  if (cl_plan_state_of(ctx)->plan_count == 0)
    return;
  static const cl_plan_table_layout doctor_layout = {.indent = "  "};
  put(t, "\n");
  cl_text_plan_table(&t->r, ctx, &doctor_layout);
}

static const char *yes_no(int value, const char *yes, const char *no) {
  return value == 1 ? yes : value == 0 ? no : "unknown";
}

/* How device i runs, under its line. */
static void text_device_mode(text *t, const cudaload_probe *p, size_t i) {
  int model = cudaload_probe_device_driver_model(p, i);
  const char *mode = cudaload_probe_compute_mode_name(
      cudaload_probe_device_compute_mode(p, i));
  char free_text[48] = "";
  long long free_mib = cudaload_probe_device_free_mib(p, i);
  if (free_mib >= 0)
    snprintf(free_text, sizeof free_text, ", %lld MiB free", free_mib);
  put(t,
      "  %-*s  driver model %s, display watchdog %s, compute mode %s, %s%s\n",
      LABEL_WIDTH, "",
      model == CUDALOAD_DRIVER_MODEL_NOT_APPLICABLE
          ? "not applicable (Linux)"
          : cudaload_probe_driver_model_name(model),
      yes_no(cudaload_probe_device_kernel_timeout(p, i), "on", "off"),
      mode ? mode : "unknown",
      yes_no(cudaload_probe_device_integrated(p, i), "integrated", "discrete"),
      free_text);
}

static void text_probe(text *t, const cl_doctor *d) {
  heading(t, "Probe");
  if (d->probe_error) {
    field(t, "error", d->probe_error);
    return;
  }
  if (!d->probe) {
    field(t, "not run", "cudaload doctor --probe runs it");
    return;
  }
  const cudaload_probe *p = d->probe;
  int ok = cudaload_probe_verdict(p) == CUDALOAD_GPU_OK;
  put(t, "  %-*s%s%s%s\n", LABEL_WIDTH, "verdict", sgr(t, ok ? GREEN : RED),
      ok ? "GPU usable" : "fall back to CPU", sgr(t, RESET));
  field(t, "summary", cudaload_probe_summary(p));
  for (size_t i = 0; i < cudaload_probe_device_count(p); ++i) {
    /* 0 is "unknown": the driver's answer was out of range. */
    char device[512], capability[32] = "unknown", memory[48] = "unknown";
    int cc = cudaload_probe_device_capability(p, i);
    unsigned long long mib = cudaload_probe_device_memory_mib(p, i);
    if (cc)
      snprintf(capability, sizeof capability, "%d.%d", cc / 10, cc % 10);
    if (mib)
      snprintf(memory, sizeof memory, "%llu MiB", mib);
    snprintf(device, sizeof device, "%s (compute %s, %s, %s)",
             cudaload_probe_device_name(p, i), capability, memory,
             cudaload_probe_device_uuid(p, i));
    field(t, i ? "" : "devices", device);
    text_device_mode(t, p, i);
  }
  size_t wn = 5, wst = 6;
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i) {
    widen(&wn, cudaload_probe_stage_name(p, i));
    widen(&wst,
          cudaload_probe_stage_status_name(cudaload_probe_stage_status(p, i)));
  }
  put(t, "\n  %-*s  %-*s  %9s  MESSAGE\n", (int)wn, "STAGE", (int)wst, "STATUS",
      "MS");
  for (size_t i = 0; i < cudaload_probe_stage_count(p); ++i) {
    int status = cudaload_probe_stage_status(p, i);
    const char *color = status == CUDALOAD_STAGE_OK        ? GREEN
                        : status == CUDALOAD_STAGE_FAILED  ? RED
                        : status == CUDALOAD_STAGE_WARNING ? YELLOW
                                                           : "";
    put(t, "  %-*s  %s%-*s%s  %9.1f  %s\n", (int)wn,
        cudaload_probe_stage_name(p, i), sgr(t, color), (int)wst,
        cudaload_probe_stage_status_name(status), sgr(t, *color ? RESET : ""),
        cudaload_probe_stage_ms(p, i),
        shown(t, cudaload_probe_stage_message(p, i)));
  }
}

/* Where the driver is, its version, and the CUDA versions it supports. */
static void text_driver(text *t, const cl_doctor *d) {
  heading(t, "Driver");
  if (d->driver_path) {
    char where[64];
    snprintf(where, sizeof where, "found by the %s", d->driver_source);
    field(t, "path", d->driver_path);
    field(t, "version", d->driver_version ? d->driver_version : "unknown");
    if (d->driver_cuda) {
      char cuda[32];
      snprintf(cuda, sizeof cuda, "%d.%d", d->driver_cuda / 1000,
               d->driver_cuda % 1000 / 10);
      field(t, "CUDA version", cuda);
    }
    field(t, "source", where);
  } else {
    put(t,
        "  %-*s%snone found%s (%s: not in the roots searched, not "
        "loaded)\n",
        LABEL_WIDTH, "path", sgr(t, RED), sgr(t, RESET), cl_os_driver_name());
  }
  if (d->driver_files.found) {
    char support[96];
    snprintf(support, sizeof support, "up to CUDA %d.%d, %d.x (%s)",
             d->driver_files.cuda_major, d->driver_files.cuda_minor,
             d->driver_files.max_major_compat, d->driver_files.source);
    field(t, "supports", support);
  } else {
    field(t, "supports", "driver not consulted: none found");
  }
}

/* The CUDA variables set, each with what it does. */
static void text_environment(text *t, const cl_doctor *d) {
  heading(t, "Environment");
  if (d->knobs.count == 0)
    put(t, "  no CUDA variable set\n");
  for (size_t i = 0; i < d->knobs.count; ++i)
    put(t, "  %s=%s\n    %s\n", d->knobs.items[i].name,
        shown(t, d->knobs.items[i].value), d->knobs.items[i].effect);
}

/* A fix as the user follows it: each command alone on its line, ready to
 * paste, each note on its own line after it. */
static void text_fix(text *t, const cl_fix *fix, int indent) {
  for (size_t i = 0; i < fix->count; ++i) {
    const cl_fix_step *s = &fix->steps[i];
    const char *label = i == 0 ? "fix: " : "     ";
    if (s->argc || s->env_count) {
      cl_buf line = CL_BUF_INIT;
      (void)cl_fix_command_line(&line, s, cl_doctor_host_shell());
      char *command = cl_buf_take(&line);
      put(t, "%*s%s%s\n", indent, "", label, command ? shown(t, command) : "");
      free(command);
      if (s->note) {
        put(t, "%*s     ", indent, "");
        put_prose(t, (size_t)indent + 5, (size_t)indent + 5,
                  shown_value(t, s->note, 1), "");
      }
    } else {
      put(t, "%*s%s", indent, "", label);
      put_prose(t, (size_t)indent + 5, (size_t)indent + 5,
                shown_value(t, s->note ? s->note : "", 1), "");
    }
  }
}

/* Whether the short form shows p after the other problems: the missing
 * driver, a fact of the machine that no library fix changes, would push
 * the answer to what the caller asked about (the program, the message)
 * off the first screen (issue 46). The full report keeps the list's
 * order. */
static int shown_last(const cl_doctor *d, const cl_problem *p) {
  return (d->flags & CUDALOAD_DOCTOR_SHORT) &&
         p->kind == CUDALOAD_PROBLEM_DRIVER_ABSENT;
}

/* The first problem the text shows (not a note); NULL when none. */
static const cl_problem *first_problem_shown(const cl_doctor *d) {
  const cl_problem *later = NULL;
  for (size_t i = 0; i < d->problems.count; ++i) {
    const cl_problem *p = &d->problems.items[i];
    if (p->note)
      continue;
    if (!shown_last(d, p))
      return p;
    if (!later)
      later = p;
  }
  return later;
}

/* Each problem with what fixes it. */
static void text_problems(text *t, const cl_doctor *d) {
  heading(t, "Problems and fixes");
  size_t n = 0;
  for (int last = 0; last < 2; ++last)
    for (size_t i = 0; i < d->problems.count; ++i) {
      const cl_problem *p = &d->problems.items[i];
      if (p->note || shown_last(d, p) != last)
        continue;
      ++n;
      put(t, "  %s%zu. ", sgr(t, RED), n);
      put_problem(t, n >= 10 ? 6 : 5, n >= 10 ? 6 : 5,
                  shown_value(t, p->text, 1), sgr(t, RESET));
      text_fix(t, &p->fix, n >= 10 ? 6 : 5);
    }
  if (n == 0)
    put(t, "  %snone%s\n", sgr(t, GREEN), sgr(t, RESET));
  if (n == d->problems.count)
    return;
  heading(t, "Notes (nothing here stops a library loading)");
  for (size_t i = 0; i < d->problems.count; ++i) {
    const cl_problem *p = &d->problems.items[i];
    if (!p->note)
      continue;
    put(t, "  - ");
    put_prose(t, 4, 4, shown_value(t, p->text, 1), "");
    put(t, "    what to do: ");
    put_prose(t, 16, 6, shown_value(t, p->fix_text, 1), "");
  }
}

/* --- the short form: the answer first, on one screen ------------------- */

/* How wide a line of prose may be before it is shortened (a command never
 * is: it is pasted). */
#define SHORT_WIDTH 80

/* The columns a text takes: its UTF-8 characters ("…" is one). */
static size_t text_width(const char *s) {
  size_t n = 0;
  for (; *s; ++s)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* ok or FAIL: marks for a terminal that shows them, else words a script
 * and a plain terminal read. */
static const char *mark(const cl_doctor *d, int ok) {
  if (d->flags & CUDALOAD_DOCTOR_MARKS)
    return ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97"; /* U+2713, U+2717 */
  return ok ? "ok  " : "FAIL";
}

/* Where a root came from, in a word: venv, conda, toolkit, CUDA_PATH... */
static const char *origin_word(const char *origin) {
  static const struct {
    const char *origin, *word;
  } words[] = {{"explicit", "root"},
               {"VIRTUAL_ENV", "venv"},
               {"CONDA_PREFIX", "conda"},
               {CL_ORIGIN_INTERPRETER, "python"},
               {CL_ORIGIN_PYTHON_ON_PATH, "python"},
               {CL_ORIGIN_RECORDED, "recorded"},
               {"toolkit", "toolkit"},
               {"cudnn installer", "cudnn installer"},
               {CL_ORIGIN_LDCACHE, "system"},
               {CL_ORIGIN_PROGRAM, "program"}};
  for (size_t i = 0; i < sizeof words / sizeof *words; ++i)
    if (!strcmp(origin, words[i].origin))
      return words[i].word;
  return cl_origin_tier(origin) == CL_TIER_VARIABLE ? origin : "system";
}

/* The last n components of path (a suffix of it), all when it has fewer. */
static const char *last_components(const char *path, int n) {
  const char *p = path + strlen(path);
  while (p > path) {
    --p;
    if ((*p == '/' || *p == '\\') && --n == 0)
      return p + 1;
  }
  return path;
}

/* A library's folder as prose shows it: inside an environment,
 * "<venv>/.../nvidia/cudnn/lib"; elsewhere the folder, its middle left
 * out when it is long. Appended to b. */
static void short_folder(cl_buf *b, const cudaload_ctx *ctx,
                         const cl_library *lib) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  char *dir = cl_path_dirname(lib->path);
  const char *folder = dir ? dir : lib->path;
  const cl_root *root =
      lib->root < inv->root_count ? &inv->roots[lib->root] : NULL;
  size_t root_len = root ? strlen(root->path) : 0;
  if (root && cl_origin_tier(root->origin) == CL_TIER_ENVIRONMENT &&
      !strncmp(folder, root->path, root_len) &&
      (folder[root_len] == '/' || folder[root_len] == '\\')) {
    const char *rest = folder + root_len;
    const char *tail = last_components(rest, 3);
    cl_buf_printf(b, "<%s>%s%s%s", origin_word(root->origin),
                  tail != rest + 1 ? "/\xe2\x80\xa6" : "", /* "…" */
                  tail != rest + 1 ? "/" : "", tail == rest + 1 ? rest : tail);
  } else if (strlen(folder) > 40) {
    const char *tail = last_components(folder, 3);
    cl_buf_printf(b, "\xe2\x80\xa6/%s", tail);
  } else {
    cl_buf_puts(b, folder);
  }
  free(dir);
}

/* A sentence cut to its first clause, at most max bytes (prose only). */
static void short_clause(cl_buf *b, const char *sentence, size_t max) {
  size_t n = strcspn(sentence, "(\n");
  while (n > 0 && sentence[n - 1] == ' ')
    --n;
  if (n > max) {
    n = max;
    while (n > 0 && (sentence[n] & 0xC0) == 0x80) /* whole UTF-8 chars */
      --n;
    cl_buf_printf(b, "%.*s\xe2\x80\xa6", (int)n, sentence);
    return;
  }
  cl_buf_printf(b, "%.*s", (int)n, sentence);
}

/* Where all chosen libraries came from, as prose ("in the venv", "in
 * CUDA_HOME"), appended to b; nothing when they came from several places. */
static void one_place(cl_buf *b, const cudaload_ctx *ctx) {
  const cl_inventory *inv = cl_inventory_of(ctx);
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  const char *origin = NULL;
  for (size_t r = 0; r < ps->requirement_count; ++r) {
    const cl_library *lib = cl_doctor_chosen_library(ctx, r);
    if (!lib || lib->root >= inv->root_count)
      continue;
    const char *o = inv->roots[lib->root].origin;
    if (origin && strcmp(origin_word(origin), origin_word(o)) != 0)
      return;
    origin = o;
  }
  if (!origin)
    return;
  static const struct {
    const char *word, *place;
  } places[] = {{"root", "the roots given"},
                {"venv", "the venv"},
                {"conda", "the conda environment"},
                {"python", "the Python environment"},
                {"recorded", "the folders the environment records"},
                {"toolkit", "the toolkit"},
                {"cudnn installer", "cuDNN's installer folder"},
                {"system", "the system's folders"},
                {"program", "the program's own search folders"}};
  const char *word = origin_word(origin);
  for (size_t i = 0; i < sizeof places / sizeof *places; ++i)
    if (!strcmp(word, places[i].word)) {
      cl_buf_printf(b, " in %s", places[i].place);
      return;
    }
  cl_buf_printf(b, " in %s", word); /* a variable: CUDA_HOME */
}

/* The first line, which says it all: what was asked, its CUDA major, how
 * much was found and where, and the problems. */
static void verdict_line(text *t, const cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  cl_buf b = CL_BUF_INIT;
  size_t n = ps->requirement_count, found = 0;
  for (size_t r = 0; r < n; ++r)
    found += cl_doctor_requirement_satisfied(ctx, r, NULL);
  const cl_error_message *message =
      cl_error_message_count(ctx) ? cl_error_message_at(ctx, 0) : NULL;
  if (ps->program_targets)
    cl_buf_printf(&b, "%s", ps->program_targets);
  else if (message && message->file)
    cl_buf_printf(&b, "%s (from the error message)",
                  cl_path_basename(message->file));
  else if (message)
    cl_buf_printf(&b, "the error message");
  else if (n && n <= 3)
    for (size_t r = 0; r < n; ++r)
      cl_buf_printf(&b, "%s%s", r ? ", " : "", ps->requirements[r].text);
  else if (n)
    cl_buf_printf(&b, "%zu requirements", n);
  else
    cl_buf_printf(&b, "this machine");
  /* The CUDA major only when something of the caller's said it: the
   * newest toolkit on the machine is not the program's. */
  if (ps->plan_cuda_major && !ps->plan_cuda_guessed)
    cl_buf_printf(&b, " (CUDA %d)", ps->plan_cuda_major);
  if (n == 0) {
    cl_buf_printf(&b, ": nothing required");
  } else if (found == n) {
    if (n == 1)
      cl_buf_printf(&b, ": found");
    else
      cl_buf_printf(&b, ": all %zu found", n);
    one_place(&b, ctx);
  } else if (n == 1) {
    cl_buf_printf(&b, ": not found");
  } else {
    cl_buf_printf(&b, ": %zu of %zu found", found, n);
  }
  size_t problems = cl_problem_list_problems(&d->problems);
  const cl_problem *first = first_problem_shown(d);
  if (!first) {
    cl_buf_printf(&b, "; no problem");
  } else {
    cl_buf_printf(&b, "; %zu problem%s: ", problems, problems == 1 ? "" : "s");
    /* The first problem in what is left of 80 columns, but enough of it
     * to say what it is. */
    size_t used = b.data ? text_width(b.data) : 0;
    size_t room = used + 40 < SHORT_WIDTH ? SHORT_WIDTH - used : 40;
    const char *name = first->facts[CUDALOAD_FACT_NAME];
    const char *condition = first->facts[CUDALOAD_FACT_CONDITION];
    /* A name not found is said by its name: the sentence starts with the
     * condition, or with the path of the file that looks for it. */
    size_t first_name = name ? strcspn(name, ",") : 0, more = 0;
    for (const char *c = name ? name + first_name : NULL; c && *c; ++c)
      more += *c == ',';
    if (name && first_name + (more ? 9 : 0) + 10 <= room &&
        (first->kind == CUDALOAD_PROBLEM_NOT_FOUND ||
         first->kind == CUDALOAD_PROBLEM_LAZY_NOT_FOUND ||
         first->kind == CUDALOAD_PROBLEM_LAZY_UNPROVIDED ||
         first->kind == CUDALOAD_PROBLEM_NEEDED_UNPROVIDED)) {
      cl_buf_printf(&b, "%.*s", (int)first_name, name);
      if (more)
        cl_buf_printf(&b, " and %zu more", more);
      size_t said = b.data ? text_width(b.data) - used : 0;
      cl_buf_printf(&b, " not found%s",
                    condition && !strcmp(condition, "as-it-is") &&
                            said + 27 <= room
                        ? " without cudaload"
                        : "");
    } else
      short_clause(&b, first->text, room);
  }
  char *line = cl_buf_take(&b);
  put(t, "%s%s%s\n", sgr(t, BOLD), line ? shown(t, line) : "", sgr(t, RESET));
  free(line);
}

/* One line per requirement: the mark, the requirement, the version, the
 * folder (shortened) and where it came from in a word. */
static void requirement_lines(text *t, const cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  const cl_plan_state *ps = cl_plan_state_of(ctx);
  const cl_inventory *inv = cl_inventory_of(ctx);
  size_t w = 4, wv = 1, wf = 1;
  char **folders = calloc(ps->requirement_count + 1, sizeof *folders);
  for (size_t r = 0; r < ps->requirement_count; ++r) {
    widen(&w, shown(t, ps->requirements[r].text));
    const cl_library *lib = cl_doctor_chosen_library(ctx, r);
    if (!lib || !folders)
      continue;
    widen(&wv, lib->version);
    cl_buf folder = CL_BUF_INIT;
    short_folder(&folder, ctx, lib);
    folders[r] = cl_buf_take(&folder);
    if (folders[r])
      wf = wf > text_width(folders[r]) ? wf : text_width(folders[r]);
  }
  for (size_t r = 0; r < ps->requirement_count; ++r) {
    const cl_library *lib = cl_doctor_chosen_library(ctx, r);
    int ok = cl_doctor_requirement_satisfied(ctx, r, NULL) && lib;
    put(t, "  %s%s%s %-*s", sgr(t, ok ? GREEN : RED), mark(d, ok),
        sgr(t, RESET), (int)w, shown(t, ps->requirements[r].text));
    if (!ok) {
      put(t, "  missing\n");
      continue;
    }
    const char *where = folders && folders[r] ? shown(t, folders[r]) : "";
    put(t, "  %-*s  %s%*s  %s\n", (int)wv,
        lib->version[0] ? shown(t, lib->version) : "-", where,
        (int)(wf - text_width(where)), "",
        lib->root < inv->root_count ? origin_word(inv->roots[lib->root].origin)
                                    : "");
  }
  for (size_t r = 0; folders && r < ps->requirement_count; ++r)
    free(folders[r]);
  free(folders);
}

/* What the error messages read say, one line each. */
static void message_lines(text *t, const cudaload_ctx *ctx) {
  for (size_t i = 0; i < cl_error_message_count(ctx); ++i) {
    const cl_error_message *m = cl_error_message_at(ctx, i);
    cl_buf b = CL_BUF_INIT;
    short_clause(&b, m->quote ? m->quote : "", SHORT_WIDTH - 12);
    char *quote = cl_buf_take(&b);
    put(t, "  read     %s\n", quote ? shown(t, quote) : "");
    free(quote);
  }
}

/* The short form (CUDALOAD_DOCTOR_SHORT): the verdict, the requirements,
 * the problems with their fixes; nothing a healthy answer does not need. */
static char *summary_text(const cl_doctor *d) {
  const cudaload_ctx *ctx = d->ctx;
  text t = {CL_TEXT_REPORT_INIT, 0, 1, ctx};
  t.color = (d->flags & CUDALOAD_DOCTOR_COLOR) != 0;
  verdict_line(&t, d);
  if (cl_error_message_count(ctx) || cl_plan_state_of(ctx)->requirement_count)
    put(&t, "\n");
  message_lines(&t, ctx);
  requirement_lines(&t, d);
  if (cl_problem_list_problems(&d->problems))
    text_problems(&t, d);
  put(&t, "\nthe whole report: cudaload doctor --verbose\n");
  return cl_text_finish(&t.r);
}

char *cl_doctor_text(const cl_doctor *d) {
  if (d->flags & CUDALOAD_DOCTOR_SHORT)
    return summary_text(d);
  const cudaload_ctx *ctx = d->ctx;
  text t = {CL_TEXT_REPORT_INIT, 0, 0, NULL};
  t.color = (d->flags & CUDALOAD_DOCTOR_COLOR) != 0;
  put(&t, "%scudaload doctor%s %s\n", sgr(&t, BOLD), sgr(&t, RESET),
      cudaload_version_string());

  if (cl_error_message_count(ctx)) {
    heading(&t, "Error message");
    cl_text_error_messages(&t.r, LABEL_WIDTH, ctx);
  }

  heading(&t, "Platform");
  field(&t, "os", cl_os_name());
  field(&t, "arch", cl_doctor_host_arch());
  field(&t, "cudaload", cudaload_version_string());

  text_driver(&t, d);
  text_libraries(&t, ctx);
  text_plan(&t, d);

  heading(&t, "Loaded in this process");
  if (d->loaded_count == 0)
    put(&t, "  none\n");
  for (size_t i = 0; i < d->loaded_count; ++i)
    put(&t, "  %s\n", shown(&t, d->loaded[i]));

  heading(&t, "Conflicts");
  if (cl_plan_state_of(ctx)->conflict_count == 0)
    put(&t, "  none\n");
  for (size_t i = 0; i < cl_plan_state_of(ctx)->conflict_count; ++i)
    put(&t, "  %s\n", shown(&t, cl_plan_state_of(ctx)->conflicts[i].text));

  text_probe(&t, d);
  if (d->watchdog.applies) { /* Windows only: nothing to say elsewhere */
    heading(&t, "Display watchdog");
    cl_text_watchdog(&t.r, LABEL_WIDTH, &d->watchdog);
  }
  text_environment(&t, d);

  text_problems(&t, d);
  return cl_text_finish(&t.r); /* NULL: out of memory, said by the caller */
}
