/* SPDX-License-Identifier: MIT */
/*
 * error_message.h - reading the error message a user pasted into the
 * requirements it implies and what it means (error_message.c).
 */
#ifndef CUDALOAD_ERROR_MESSAGE_H
#define CUDALOAD_ERROR_MESSAGE_H

#include "core/context.h"

#include <stddef.h>

/* 1 when name (a file name) is the NVIDIA driver's library as messages
 * spell it: libcuda.so, libcuda.so.1, nvcuda.dll. */
int cl_error_message_driver_file(const char *name);

#endif
