/* SPDX-License-Identifier: MIT */
/*
 * predict.c - the prediction side of the differential tests: what the
 * loader model (lib/loader/resolve.h) says a child process will map, and by
 * which rule, given the child's situation. tests/loader_oracle/oracle.py writes
 * the situation, runs this, runs the child under the real loader, and
 * compares. (A later `cudaload explain` takes this program's place behind
 * the same driver function.)
 *
 * Input: one file of tab-separated lines, in order:
 *   exe PATH                  the child program (Linux: its real path)
 *   cwd PATH                  its current folder
 *   ld_library_path VALUE     Linux, as the child starts with it
 *   path VALUE                Windows PATH of the child
 *   preloaded PATH            an object the child starts with (Linux: the
 *                             interpreter; Windows: the modules it reports)
 *   lazy FILE NAME            FILE opens NAME by name from inside itself
 *   start                     Linux: the program starts (its DT_NEEDED)
 *   open FLAGS NAME           dlopen / LoadLibraryExA(NAME, FLAGS) from the
 *                             program
 *   adddir DIR | setdefault FLAGS | setdlldir DIR   Windows settings
 * Output (stdout): JSON, {"facts": ..., "actions": [...], "loaded": [...]}.
 */
#include "binary/binary.h"
#include "cudaload.h"
#include "loader/resolve.h"
#include "os/platform.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_string(const char *s) {
  if (!s) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void json_list(char **items, size_t count) {
  putchar('[');
  for (size_t i = 0; i < count; ++i) {
    if (i)
      putchar(',');
    json_string(items[i]);
  }
  putchar(']');
}

/* The lazy opens of the situation. */
typedef struct lazy_entry {
  char *file;
  char *name;
  cl_file_identity id;
  int have_id;
} lazy_entry;

typedef struct lazy_table {
  lazy_entry *items;
  size_t count;
} lazy_table;

static char **lazy_names(const char *path, const cl_binary_info *info,
                         size_t *count, void *opaque) {
  (void)info;
  lazy_table *t = opaque;
  cl_file_identity id;
  int have = cl_os_file_identity(path, &id);
  char **names = NULL;
  *count = 0;
  for (size_t i = 0; i < t->count; ++i) {
    int same = have && t->items[i].have_id &&
               t->items[i].id.device == id.device &&
               t->items[i].id.inode == id.inode;
    if (!same)
      continue;
    char **grown = realloc(names, (*count + 1) * sizeof *names);
    if (!grown)
      break;
    names = grown;
    names[(*count)++] = strdup(t->items[i].name);
  }
  return names;
}

static const char *step_kind_name(cl_step_kind kind) {
  switch (kind) {
  case CL_STEP_TAKEN:
    return "taken";
  case CL_STEP_SKIPPED:
    return "skipped";
  case CL_STEP_FATAL:
    return "fatal";
  default:
    return "absent";
  }
}

static void print_tree(const cl_load_tree *t, const char *kind) {
  printf("{\"kind\":");
  json_string(kind);
  printf(",\"failed\":%s,\"edges\":[", t->failed ? "true" : "false");
  for (size_t e = 0; e < t->edge_count; ++e) {
    const cl_load_edge *edge = &t->edges[e];
    const cl_resolution *how = &edge->how;
    if (e)
      putchar(',');
    printf("{\"from\":");
    json_string(edge->from == SIZE_MAX ? NULL : t->objects[edge->from].path);
    printf(",\"name\":");
    json_string(edge->name);
    printf(",\"lazy\":%s,\"rule\":", edge->lazy ? "true" : "false");
    json_string(cl_resolve_rule_name(how->rule));
    printf(",\"path\":");
    json_string(how->path);
    /* The file the search found (for an object already loaded, the file
     * whose identity matched), and whose list found it. */
    const char *found = NULL, *found_rule = NULL, *source = NULL;
    int by_name =
        how->step_count > 0 && how->steps[0].rule == CL_RULE_ALREADY_LOADED;
    for (size_t s = 0; s < how->step_count; ++s) {
      if (how->steps[s].kind == CL_STEP_TAKEN &&
          how->steps[s].rule != CL_RULE_ALREADY_LOADED) {
        found = how->steps[s].file;
        found_rule = cl_resolve_rule_name(how->steps[s].rule);
        source = how->steps[s].source;
      }
    }
    printf(",\"found\":");
    json_string(found);
    printf(",\"found_rule\":");
    json_string(found_rule);
    printf(",\"to_dropped\":%s",
           edge->to != SIZE_MAX && t->objects[edge->to].dropped ? "true"
                                                                : "false");
    printf(",\"source\":");
    json_string(source);
    printf(",\"by_name\":%s,\"detail\":", by_name ? "true" : "false");
    json_string(how->detail);
    printf(",\"steps\":[");
    for (size_t s = 0; s < how->step_count; ++s) {
      const cl_resolve_step *st = &how->steps[s];
      if (s)
        putchar(',');
      printf("{\"rule\":");
      json_string(cl_resolve_rule_name(st->rule));
      printf(",\"kind\":");
      json_string(step_kind_name(st->kind));
      printf(",\"folder\":");
      json_string(st->folder);
      printf(",\"file\":");
      json_string(st->file);
      printf(",\"source\":");
      json_string(st->source);
      printf(",\"outcome\":");
      json_string(st->outcome);
      putchar('}');
    }
    printf("]}");
  }
  printf("]}");
}

static void print_step_only(const char *kind) {
  printf("{\"kind\":");
  json_string(kind);
  printf(",\"failed\":false,\"edges\":[]}");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: loader_predict SITUATION\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (!in) {
    fprintf(stderr, "loader_predict: cannot open %s\n", argv[1]);
    return 2;
  }
  cl_loader_model m;
  if (cl_loader_model_init_system(&m) != CUDALOAD_OK) {
    fprintf(stderr, "loader_predict: %s\n", cudaload_last_error());
    return 2;
  }
  int windows = m.naming == CL_NAMING_WINDOWS;
  cl_binary_info exe_info;
  memset(&exe_info, 0, sizeof exe_info);
  lazy_table lazy = {NULL, 0};
  cl_requester exe_req = {NULL, &exe_info, NULL};

  printf("{\"facts\":{\"default_dirs\":");
  json_list(m.default_dirs, m.default_dir_count);
  printf(",\"hwcaps_subdirs\":");
  json_list(m.hwcaps_subdirs, m.hwcaps_subdir_count);
  printf(",\"lib\":");
  json_string(m.lib_token);
  printf(",\"platform\":");
  json_string(m.platform_token);
  printf(",\"system32\":");
  json_string(m.system32);
  printf(",\"known_dlls\":");
  json_list(m.known_dlls, m.known_dll_count);
  printf("},\"actions\":[");

  static char line[65536];
  int first_action = 1;
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *key = line;
    char *value = strchr(line, '\t');
    if (value)
      *value++ = '\0';
    else
      value = line + strlen(line);
    if (strcmp(key, "exe") == 0) {
      cl_loader_model_set(&m.exe_path, windows ? NULL : value);
      exe_req.path = m.exe_path;
      if (!windows && cl_binary_parse_file(value, &exe_info) == CUDALOAD_OK) {
        if (!(exe_info.runpath && exe_info.runpath[0]) && exe_info.rpath &&
            exe_info.rpath[0])
          cl_loader_model_set(&m.exe_rpath, exe_info.rpath);
      }
      if (windows) {
        char *folder = strdup(value);
        char *cut = strrchr(folder, '\\');
        if (cut)
          *cut = '\0';
        cl_loader_model_set(&m.app_dir, folder);
        free(folder);
      }
    } else if (strcmp(key, "cwd") == 0) {
      cl_loader_model_set(&m.current_dir, value);
    } else if (strcmp(key, "ld_library_path") == 0) {
      cl_loader_model_set(&m.ld_library_path, value);
    } else if (strcmp(key, "path") == 0) {
      cl_loader_model_set(&m.path, value);
    } else if (strcmp(key, "preloaded") == 0) {
      cl_binary_info info;
      memset(&info, 0, sizeof info);
      const char *soname = NULL;
      if (windows) {
        const char *base = strrchr(value, '\\');
        soname = base ? base + 1 : value;
      } else if (cl_binary_parse_file(value, &info) == CUDALOAD_OK) {
        soname = info.soname;
      }
      cl_loader_model_add_loaded(&m, value, soname);
      cl_binary_info_free(&info);
    } else if (strcmp(key, "lazy") == 0) {
      char *name = strchr(value, '\t');
      if (!name)
        continue;
      *name++ = '\0';
      lazy_entry *grown =
          realloc(lazy.items, (lazy.count + 1) * sizeof *lazy.items);
      if (!grown)
        return 2;
      lazy.items = grown;
      lazy_entry *e = &lazy.items[lazy.count++];
      e->file = strdup(value);
      e->name = strdup(name);
      e->have_id = cl_os_file_identity(value, &e->id);
    } else {
      if (!first_action)
        putchar(',');
      first_action = 0;
      if (strcmp(key, "start") == 0) {
        cl_load_tree t;
        if (cl_resolve_open(&m, NULL, m.exe_path, lazy_names, &lazy, &t) !=
            CUDALOAD_OK)
          return 2;
        print_tree(&t, "start");
        cl_load_tree_free(&t);
      } else if (strcmp(key, "open") == 0) {
        char *name = strchr(value, '\t');
        if (!name)
          return 2;
        *name++ = '\0';
        m.search_flags = (unsigned)strtoul(value, NULL, 16);
        /* dlopen of a path has no caller map (elf/dl-open.c): only a bare
         * name is searched as the program's own. */
        const cl_requester *req =
            !windows && !strchr(name, '/') ? &exe_req : NULL;
        cl_load_tree t;
        if (cl_resolve_open(&m, req, name, lazy_names, &lazy, &t) !=
            CUDALOAD_OK)
          return 2;
        print_tree(&t, "open");
        cl_load_tree_free(&t);
        m.search_flags = 0;
      } else if (strcmp(key, "adddir") == 0) {
        cl_loader_model_append(&m.user_dirs, &m.user_dir_count, value);
        print_step_only("adddir");
      } else if (strcmp(key, "setdefault") == 0) {
        m.default_search_flags = (unsigned)strtoul(value, NULL, 16);
        print_step_only("setdefault");
      } else if (strcmp(key, "setdlldir") == 0) {
        cl_loader_model_set(&m.dll_directory, value);
        print_step_only("setdlldir");
      } else {
        fprintf(stderr, "loader_predict: unknown line %s\n", key);
        return 2;
      }
    }
  }
  fclose(in);
  printf("],\"loaded\":[");
  for (size_t i = 0; i < m.loaded_count; ++i) {
    if (i)
      putchar(',');
    json_string(m.loaded[i].path);
  }
  printf("]}\n");
  for (size_t i = 0; i < lazy.count; ++i) {
    free(lazy.items[i].file);
    free(lazy.items[i].name);
  }
  free(lazy.items);
  cl_binary_info_free(&exe_info);
  cl_loader_model_free(&m);
  return 0;
}
