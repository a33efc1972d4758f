/* SPDX-License-Identifier: MIT */
/*
 * error_message.h - reading the error message a user pasted into the
 * requirements it implies and what it means (error_message.c).
 */
#ifndef CUDALOAD_ERROR_MESSAGE_H
#define CUDALOAD_ERROR_MESSAGE_H

#include "core/context.h"

#include <stddef.h>

/* The messages text holds, in text order, each once: a malloc'ed array of
 * *count (free each field, then the array), or CUDALOAD_E_BAD_SPEC with a
 * last error listing the forms understood when it holds none,
 * CUDALOAD_E_NO_MEMORY. Changes no context. */
int cl_error_messages_read(const char *text, cl_error_message **out,
                           size_t *count);

/* 1 when name (a file name) is the NVIDIA driver's library as messages
 * spell it: libcuda.so, libcuda.so.1, nvcuda.dll. */
int cl_error_message_driver_file(const char *name);

#endif
