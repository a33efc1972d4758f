/* SPDX-License-Identifier: MIT */
/*
 * process_win32.c - the modules another process has loaded (loader.h,
 * cl_os_loader_process_modules): OpenProcess with query and read rights, then
 * EnumProcessModulesEx and GetModuleFileNameExW. A process of another user,
 * or an elevated one, refuses those rights to a normal caller.
 */
#include "cudaload.h"
#include "common/error.h"
#include "os/loader.h"
#include "os/platform.h"
#include "common/strutil.h"
#include "win32/wide.h"

#include <windows.h>

#include <psapi.h>
#include <stdlib.h>

static char *module_name(HANDLE process, HMODULE module) {
  for (DWORD capacity = MAX_PATH; capacity <= 65536; capacity *= 2) {
    wchar_t *buffer = malloc((size_t)capacity * sizeof *buffer);
    if (!buffer)
      return NULL;
    DWORD got = K32GetModuleFileNameExW(process, module, buffer, capacity);
    if (got == 0 || got < capacity - 1) {
      char *utf8 = got ? (cl_os_strip_verbatim_prefix(buffer),
                          cl_os_wide_to_utf8(buffer, -1))
                       : NULL;
      free(buffer);
      return utf8;
    }
    free(buffer);
  }
  return NULL;
}

int cl_os_loader_process_modules(long pid, cl_mapped_file_wanted wanted,
                                 cl_mapped_file_visitor visit, void *opaque) {
  HANDLE process = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ,
                               FALSE, (DWORD)pid);
  if (!process) {
    DWORD err = GetLastError();
    if (err == ERROR_INVALID_PARAMETER)
      return cl_fail(CUDALOAD_E_NOT_FOUND, "process %ld: no such process", pid);
    return cl_fail_os(CUDALOAD_E_IO, err,
                      "process %ld: cannot read its modules (a process of "
                      "another user, or an elevated one, needs that user or "
                      "an administrator)",
                      pid);
  }
  HMODULE *modules = NULL;
  DWORD count = 0;
  int status = CUDALOAD_OK;
  for (DWORD capacity = 256; capacity <= 65536; capacity *= 2) {
    HMODULE *grown = realloc(modules, (size_t)capacity * sizeof *modules);
    if (!grown) {
      status = cl_fail(CUDALOAD_E_NO_MEMORY, "process %ld: out of memory", pid);
      break;
    }
    modules = grown;
    DWORD needed = 0;
    if (!K32EnumProcessModulesEx(process, modules,
                                 capacity * (DWORD)sizeof *modules, &needed,
                                 LIST_MODULES_ALL)) {
      status = cl_fail_os(CUDALOAD_E_IO, GetLastError(),
                          "process %ld: its module list cannot be read", pid);
      break;
    }
    if (needed <= capacity * sizeof *modules) {
      count = needed / (DWORD)sizeof *modules;
      break;
    }
  }
  for (DWORD i = 0; i < count && !status; ++i) {
    char *path = module_name(process, modules[i]);
    /* A mapped DLL cannot be deleted or written, and Windows has no mount
     * namespaces: its name is taken to lead to it. Not checked: a DLL
     * renamed while loaded and another put under its name (SECURITY.md). */
    cl_mapped_file f = {path, path, CL_REACHED_HERE, 0};
    if (path && (!wanted || wanted(path, opaque)))
      visit(&f, opaque);
    free(path);
  }
  free(modules);
  CloseHandle(process);
  return status;
}
