/* SPDX-License-Identifier: MIT */
/*
 * explain_report.c - the `cudaload explain` report: text for people, JSON
 * and YAML (report_writer.c) for programs, and a Graphviz graph (consumer ->
 * library name -> file, problems in red). docs/loader.md documents the
 * fields and the rule names.
 */
#include "report/explain.h"

#include "common/error.h"
#include "report/report_text.h"
#include "report/report_writer.h"
#include "common/strutil.h"
#include "common/text_escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The answer first (issue 46): what was asked about, then how many
 * problems and the first of them, or that there are none. */
static void put_verdict(cl_text_report *t, const cudaload_explain *e) {
  size_t consumers = 0;
  const char *first = NULL;
  for (size_t i = 0; i < e->object_count; ++i)
    if (e->objects[i].consumer && !consumers++)
      first = e->objects[i].path;
  if (e->pid)
    cl_text_put(t, "process %ld: %zu CUDA librar%s mapped", e->pid,
                e->object_count, e->object_count == 1 ? "y" : "ies");
  else if (first)
    cl_text_put(t, "%s%s: %zu file%s the loader would open",
                cl_text_shown(t, cl_path_basename(first)),
                consumers > 1 ? " and the others asked about" : "",
                e->object_count, e->object_count == 1 ? "" : "s");
  else
    cl_text_put(t, "%zu file%s the loader would open", e->object_count,
                e->object_count == 1 ? "" : "s");
  if (e->finding_count == 0) {
    cl_text_put(t, "; no problems\n");
    return;
  }
  char *escaped = cl_text_escaped(e->findings[0].text, 0);
  cl_text_put(t, "; %zu problem%s: %s\n", e->finding_count,
              e->finding_count == 1 ? "" : "s", escaped ? escaped : "");
  free(escaped);
}

static void put_problems(cl_text_report *t, const cudaload_explain *e) {
  cl_text_put(t, "\nProblems\n");
  if (e->finding_count == 0)
    cl_text_put(t, "  none\n");
  for (size_t i = 0; i < e->finding_count; ++i) {
    char *escaped = cl_text_escaped(e->findings[i].text, 0);
    cl_text_put(t, "  %zu. %s\n", i + 1, escaped ? escaped : "");
    free(escaped);
    if (e->findings[i].fix) {
      escaped = cl_text_escaped(e->findings[i].fix, 0);
      cl_text_put(t, "     fix: %s\n", escaped ? escaped : "");
      free(escaped);
    }
  }
}

static char *render_text(const cudaload_explain *e) {
  cl_text_report t = CL_TEXT_REPORT_INIT;
  put_verdict(&t, e);
  /* Problems before the tree they were found in: the answer is on the
   * first screen, the evidence after it. */
  if (e->finding_count)
    put_problems(&t, e);
  cl_text_put(&t, "\nWhat the loader would open\n");
  for (size_t i = 0; i < e->object_count; ++i) {
    const cl_explain_object *o = &e->objects[i];
    cl_text_put(&t, "%s%s", i && !e->pid ? "\n" : "",
                cl_text_shown(&t, o->path));
    if (o->family)
      cl_text_put(&t, "  (%s %d%s%s)", o->name, o->major,
                  o->version ? ", " : "",
                  o->version ? cl_text_shown(&t, o->version) : "");
    if (o->put_first_by)
      cl_text_put(&t, "  [put first by %s]", o->put_first_by);
    cl_text_put(&t, "\n");
    for (size_t j = 0; j < o->need_count; ++j) {
      const cl_explain_need *n = &o->needs[j];
      /* Found without a file of its own: an API set (api-ms-win-crt-*.dll,
       * mapped by the loader to a system DLL without a search), the main
       * program an empty DT_NEEDED name matches. */
      const char *fileless =
          !strcmp(n->rule, "api-set") ? "an API set, mapped by the loader"
          : strcmp(n->rule, "not-found") != 0 ? "(no file of its own)"
                                              : "NOT FOUND";
      cl_text_put(&t, "  %-6s %-32s -> %s", n->lazy ? "lazy" : "needs",
                  cl_text_shown(&t, n->name),
                  n->path ? cl_text_shown(&t, n->path) : fileless);
      if (n->version)
        cl_text_put(&t, " (%s)", cl_text_shown(&t, n->version));
      cl_text_put(&t, "  [%s%s%s]\n", n->rule, n->detail ? ": " : "",
                  n->detail ? cl_text_shown(&t, n->detail) : "");
    }
    for (size_t j = 0; j < o->binding_count; ++j) {
      const cl_explain_binding *b = &o->bindings[j];
      cl_text_put(&t, "  binds  %zu symbol%s of %s%s%s -> %s\n", b->symbols,
                  b->symbols == 1 ? "" : "s", cl_text_shown(&t, b->library),
                  b->version ? " @" : "",
                  b->version ? cl_text_shown(&t, b->version) : "",
                  b->provider ? cl_text_shown(&t, b->provider) : "nothing");
      for (size_t k = 0; k < b->each_count; ++k)
        cl_text_put(&t, "         %s -> %s\n",
                    cl_text_shown(&t, b->each_symbol[k]),
                    b->each_provider[k] ? cl_text_shown(&t, b->each_provider[k])
                                        : "nothing");
      if (b->undefined)
        cl_text_put(&t,
                    "         %zu of them defined by nothing in scope, "
                    "e.g. %s\n",
                    b->undefined, cl_text_shown(&t, b->undefined_example));
      if (b->elsewhere)
        cl_text_put(
            &t, "         %zu of them elsewhere than %s, e.g. %s -> %s\n",
            b->elsewhere,
            b->expected ? cl_text_shown(&t, b->expected) : "expected",
            cl_text_shown(&t, b->example),
            b->elsewhere_provider ? cl_text_shown(&t, b->elsewhere_provider)
                                  : "nothing");
    }
  }
  if (!e->finding_count)
    put_problems(&t, e);
  return cl_text_finish(&t);
}

static void string_or_null(cl_report_writer *w, const char *key,
                           const char *value) {
  cl_report_key(w, key);
  cl_report_string(w, value);
}

/* "needs": what the object's loader entries name, resolved or not. */
static void write_needs(cl_report_writer *w, const cl_explain_object *o) {
  cl_report_key(w, "needs");
  cl_report_begin_array(w);
  for (size_t j = 0; j < o->need_count; ++j) {
    const cl_explain_need *n = &o->needs[j];
    cl_report_begin_object(w);
    string_or_null(w, "name", n->name);
    string_or_null(w, "kind", n->lazy ? "lazy" : "needed");
    string_or_null(w, "resolved", n->path);
    string_or_null(w, "rule", n->rule);
    string_or_null(w, "detail", n->detail);
    string_or_null(w, "version", n->version);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* One binding's "each": symbol by symbol with --symbols, else null. */
static void write_each_symbol(cl_report_writer *w,
                              const cl_explain_binding *b) {
  cl_report_key(w, "each");
  if (!b->each_count && !b->each_symbol) {
    cl_report_null(w);
    return;
  }
  cl_report_begin_array(w);
  for (size_t k = 0; k < b->each_count; ++k) {
    cl_report_begin_object(w);
    string_or_null(w, "symbol", b->each_symbol[k]);
    string_or_null(w, "provider", b->each_provider[k]);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* "bindings": which library each versioned import binds to. */
static void write_bindings(cl_report_writer *w, const cl_explain_object *o) {
  cl_report_key(w, "bindings");
  cl_report_begin_array(w);
  for (size_t j = 0; j < o->binding_count; ++j) {
    const cl_explain_binding *b = &o->bindings[j];
    cl_report_begin_object(w);
    string_or_null(w, "library", b->library);
    string_or_null(w, "version", b->version);
    cl_report_key(w, "symbols");
    cl_report_int(w, (long long)b->symbols);
    string_or_null(w, "expected", b->expected);
    string_or_null(w, "provider", b->provider);
    cl_report_key(w, "elsewhere");
    cl_report_int(w, (long long)b->elsewhere);
    string_or_null(w, "example", b->example);
    string_or_null(w, "example_provider", b->elsewhere_provider);
    cl_report_key(w, "undefined");
    cl_report_int(w, (long long)b->undefined);
    string_or_null(w, "undefined_example", b->undefined_example);
    write_each_symbol(w, b);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
}

/* An int, or null when it is unknown (known false). */
static void int_or_null(cl_report_writer *w, const char *key, int known,
                        long long value) {
  cl_report_key(w, key);
  if (known)
    cl_report_int(w, value);
  else
    cl_report_null(w);
}

static void write_object(cl_report_writer *w, const cl_explain_object *o) {
  cl_report_begin_object(w);
  string_or_null(w, "path", o->path);
  string_or_null(w, "family", o->family);
  string_or_null(w, "name", o->name);
  int_or_null(w, "major", o->family != NULL, o->major);
  int_or_null(w, "cuda_major", o->cuda_major != 0, o->cuda_major);
  string_or_null(w, "version", o->version);
  cl_report_key(w, "consumer");
  cl_report_bool(w, o->consumer);
  string_or_null(w, "put_first_by", o->put_first_by);
  write_needs(w, o);
  write_bindings(w, o);
  cl_report_end_object(w);
}

static char *render_structured(const cudaload_explain *e, int format) {
  cl_report_writer *w = cl_report_writer_new(
      format == CUDALOAD_FORMAT_YAML ? CL_REPORT_YAML : CL_REPORT_JSON);
  if (!w)
    return NULL;
  cl_report_begin_object(w);
  cl_report_key(w, "schema_version");
  cl_report_int(w, 1);
  int_or_null(w, "pid", e->pid != 0, e->pid);
  cl_report_key(w, "objects");
  cl_report_begin_array(w);
  for (size_t i = 0; i < e->object_count; ++i)
    write_object(w, &e->objects[i]);
  cl_report_end_array(w);
  cl_report_key(w, "problems");
  cl_report_begin_array(w);
  for (size_t i = 0; i < e->finding_count; ++i)
    cl_report_string(w, e->findings[i].text);
  cl_report_end_array(w);
  /* The same problems as data: what kind, whether it fails a later call
   * (lazy) or the load, the fix, and the files. */
  cl_report_key(w, "findings");
  cl_report_begin_array(w);
  for (size_t i = 0; i < e->finding_count; ++i) {
    const cl_finding *f = &e->findings[i];
    cl_report_begin_object(w);
    string_or_null(w, "kind", cl_finding_kind_name(f->kind));
    cl_report_key(w, "lazy");
    cl_report_bool(w, f->lazy);
    string_or_null(w, "problem", f->text);
    string_or_null(w, "fix", f->fix);
    string_or_null(w, "consumer", f->consumer);
    string_or_null(w, "name", f->names ? f->names : f->name);
    string_or_null(w, "taken", f->taken);
    string_or_null(w, "better", f->better);
    cl_report_end_object(w);
  }
  cl_report_end_array(w);
  cl_report_end_object(w);
  return cl_report_writer_finish(w, NULL);
}

/* A DOT string: quotes and backslashes escaped, controls shown escaped. */
static void dot_string(cl_text_report *t, const char *s) {
  char *escaped = cl_text_escaped(s ? s : "", 1);
  cl_text_put(t, "\"");
  for (const char *p = escaped ? escaped : ""; *p; ++p) {
    if (*p == '"' || *p == '\\')
      cl_text_put(t, "\\%c", *p);
    else if (*p == '\n')
      cl_text_put(t, "\\n");
    else
      cl_text_put(t, "%c", *p);
  }
  cl_text_put(t, "\"");
  free(escaped);
}

/* Whether a problem names a path (to colour that file's node). */
static int has_problem(const cudaload_explain *e, const char *path) {
  for (size_t i = 0; path && i < e->finding_count; ++i)
    if (strstr(e->findings[i].text, path))
      return 1;
  return 0;
}

static char *render_dot(const cudaload_explain *e) {
  cl_text_report t = CL_TEXT_REPORT_INIT;
  cl_text_put(&t, "digraph cudaload_explain {\n  rankdir=LR;\n"
                  "  node [shape=box, fontname=\"Helvetica\"];\n");
  for (size_t i = 0; i < e->object_count; ++i) {
    const cl_explain_object *o = &e->objects[i];
    cl_text_put(&t, "  ");
    dot_string(&t, o->path);
    cl_text_put(&t, " [label=");
    char label[512];
    snprintf(label, sizeof label, "%s%s%s%s", cl_path_basename(o->path),
             o->version ? "\n" : "", o->version ? o->version : "",
             o->consumer ? "\n(consumer)" : "");
    dot_string(&t, label);
    if (o->consumer)
      cl_text_put(&t, ", style=bold");
    if (has_problem(e, o->path))
      cl_text_put(&t, ", color=red, fontcolor=red");
    cl_text_put(&t, "];\n");
    for (size_t j = 0; j < o->need_count; ++j) {
      const cl_explain_need *n = &o->needs[j];
      int missing = !n->path && strcmp(n->rule, "not-found") == 0;
      const char *target = n->path   ? n->path
                           : missing ? "not found"
                                     : "no file of its own";
      const char *red = missing ? ", color=red, fontcolor=red" : "";
      char name_node[600];
      snprintf(name_node, sizeof name_node, "%s|%s", o->path, n->name);
      cl_text_put(&t, "  ");
      dot_string(&t, name_node);
      cl_text_put(&t, " [shape=ellipse, label=");
      dot_string(&t, n->name);
      cl_text_put(&t, "%s%s];\n  ", n->lazy ? ", style=dashed" : "", red);
      dot_string(&t, o->path);
      cl_text_put(&t, " -> ");
      dot_string(&t, name_node);
      cl_text_put(&t, "%s;\n", n->lazy ? " [style=dashed]" : "");
      cl_text_put(&t, "  ");
      dot_string(&t, name_node);
      cl_text_put(&t, " -> ");
      dot_string(&t, target);
      cl_text_put(&t, " [label=");
      dot_string(&t, n->rule);
      cl_text_put(&t, "%s];\n", red);
      if (missing) {
        cl_text_put(&t, "  ");
        dot_string(&t, "not found");
        cl_text_put(&t, " [color=red, fontcolor=red];\n");
      }
    }
  }
  for (size_t i = 0; i < e->finding_count; ++i) {
    char id[32];
    snprintf(id, sizeof id, "problem %zu", i + 1);
    cl_text_put(&t, "  ");
    dot_string(&t, id);
    cl_text_put(&t, " [shape=note, color=red, fontcolor=red, label=");
    dot_string(&t, e->findings[i].text);
    cl_text_put(&t, "];\n");
  }
  cl_text_put(&t, "}\n");
  return cl_text_finish(&t);
}

char *cl_explain_render(const cudaload_explain *e, int format) {
  switch (format) {
  case CUDALOAD_FORMAT_TEXT:
    return render_text(e);
  case CUDALOAD_FORMAT_DOT:
    return render_dot(e);
  default:
    return render_structured(e, format);
  }
}
