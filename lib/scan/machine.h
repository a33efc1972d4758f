/* SPDX-License-Identifier: MIT */
/*
 * machine.h - which machine a library file was built for, read from its
 * header alone (ELF e_machine, PE IMAGE_FILE_HEADER.Machine), and which
 * machine a plan is for: the process's, or the target's (cudaload_set_target
 * with an architecture). NVIDIA ships the same names for x86_64 and aarch64
 * (SBSA servers, Jetson) and for Windows x64 and ARM64: a plan must never
 * choose a file the loader would refuse (machine.c).
 */
#ifndef CUDALOAD_MACHINE_H
#define CUDALOAD_MACHINE_H

#include "scan/inventory.h"

/* The machine a library file was built for ("x86_64", "aarch64", "i386",
 * "arm", ...; static), or NULL when the file cannot be read or is neither
 * ELF nor PE (the last error is left as it was). Reads at most two small
 * pieces of the file; never blocks. */
const char *cl_file_machine_name(const char *path);

/* The machine ctx plans for: the target's architecture when it names one,
 * the process's when the target is the host's system, NULL (any) when it
 * is another system without an architecture. */
const char *cl_ctx_machine(const cudaload_ctx *ctx);

/* lib's machine, read once and kept; NULL when unknown. Read through
 * ctx's file cache when it has one (the scan made it), so that the file is
 * not opened again for this (ctx may be NULL). */
const char *cl_library_machine(const cudaload_ctx *ctx, cl_library *lib);

#endif
