/* SPDX-License-Identifier: MIT */
/*
 * acceptance/explain_opener.c - step 7 (Linux): a stub library that calls
 * dlopen(NAME) from inside itself. glibc searches a dlopen by name with
 * the caller's RUNPATH (or the RPATH of the caller and its loaders), so
 * explain_loader.py builds one stub per library that opens names lazily,
 * with that library's RUNPATH/RPATH ($ORIGIN spelled out as its folder):
 * the loader then searches as the library itself would.
 */
#include <dlfcn.h>
#include <stddef.h>

int explain_opener_open(const char *name);

int explain_opener_open(const char *name) {
  return dlopen(name, RTLD_NOW | RTLD_LOCAL) != NULL;
}
