/* SPDX-License-Identifier: MIT */
/*
 * library_open.h - the one way the library opens a CUDA library: by
 * absolute path, through the seam's cl_os_loader_open (library_open.c).
 */
#ifndef CUDALOAD_LIBRARY_OPEN_H
#define CUDALOAD_LIBRARY_OPEN_H

#include "os/loader.h"

/* Open the library at path, an absolute path, as cl_os_loader_open() does.
 * A bare name would go through the loader's search (LD_LIBRARY_PATH,
 * RUNPATH, the cache; PATH and the current folder on Windows) and a
 * relative one through the current folder: either could load another file
 * than the one planned, so both are refused (CUDALOAD_E_INVALID_ARGUMENT,
 * the last error naming the path). So is anything but a regular file (a
 * FIFO, a folder, a device: CUDALOAD_E_LOAD_FAILED, "<path>: not a regular
 * file (a FIFO): refused ..."), which the loader's open would block on.
 * NULL with the last error set on failure. */
void *cl_library_open(const char *path, cl_open_mode mode);

#endif
