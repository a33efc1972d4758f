/* SPDX-License-Identifier: MIT */
/*
 * acceptance/explain_child.c - step 7 (Linux): the process whose loader
 * `cudaload explain` is compared with (acceptance/explain_loader.py runs it
 * with LD_DEBUG=libs,bindings). Each argument is one action, in order:
 *   open:PATH          dlopen(PATH, RTLD_NOW | RTLD_LOCAL)
 *   lazy:OPENER:NAME   dlopen(NAME) from inside OPENER, a stub library
 *                      (acceptance/explain_opener.c) built with the RUNPATH
 *                      or RPATH of the library that opens NAME lazily
 *   query:NAME         which loaded object answers NAME (RTLD_NOLOAD)
 * Before each action "ACTION <n> begin" goes to stderr (to cut the LD_DEBUG
 * trace); its outcome, "ACTION <n> ok|fail", to stdout. At the end, after
 * the opens and before the queries, every mapped object as "MAPPED <path>".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static int show(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  printf("MAPPED %s\n", info->dlpi_name);
  return 0;
}

typedef int (*open_fn)(const char *);

int main(int argc, char **argv) {
  int mapped_shown = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strncmp(a, "query:", 6) == 0 && !mapped_shown) {
      dl_iterate_phdr(show, NULL);
      mapped_shown = 1;
    }
    fflush(stdout);
    fprintf(stderr, "ACTION %d begin\n", i);
    if (strncmp(a, "open:", 5) == 0) {
      void *h = dlopen(a + 5, RTLD_NOW | RTLD_LOCAL);
      printf("ACTION %d %s %s\n", i, h ? "ok" : "fail", h ? "" : dlerror());
    } else if (strncmp(a, "lazy:", 5) == 0) {
      char opener[4096];
      const char *colon = strchr(a + 5, ':');
      if (!colon || (size_t)(colon - a - 5) >= sizeof opener) {
        printf("ACTION %d fail bad argument\n", i);
        continue;
      }
      memcpy(opener, a + 5, (size_t)(colon - a - 5));
      opener[colon - a - 5] = '\0';
      void *o = dlopen(opener, RTLD_NOW | RTLD_LOCAL);
      open_fn fn =
          o ? (open_fn)(void (*)(void))dlsym(o, "explain_opener_open") : NULL;
      if (!fn) {
        printf("ACTION %d fail opener: %s\n", i, dlerror());
        continue;
      }
      int ok = fn(colon + 1);
      printf("ACTION %d %s %s\n", i, ok ? "ok" : "fail", ok ? "" : dlerror());
    } else if (strncmp(a, "query:", 6) == 0) {
      void *h = dlopen(a + 6, RTLD_LAZY | RTLD_NOLOAD);
      struct link_map *lm = NULL;
      if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
        printf("LOADED %s\t%s\n", a + 6, lm->l_name);
      if (h)
        dlclose(h);
    }
  }
  if (!mapped_shown)
    dl_iterate_phdr(show, NULL);
  return 0;
}
