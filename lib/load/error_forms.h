/* SPDX-License-Identifier: MIT */
/*
 * error_forms.h - the forms in which loaders, Windows, CUDA and the
 * frameworks say that a library did not load, as one table
 * (error_forms.c), and the scan that finds every one of them in a text in
 * a single pass. What each hit means is read elsewhere (error_facts.c).
 */
#ifndef CUDALOAD_ERROR_FORMS_H
#define CUDALOAD_ERROR_FORMS_H

#include <stddef.h>

/* What a form's hit is for. */
typedef enum cl_error_role {
  /* A message. */
  CL_ERROR_MESSAGE,
  /* A message whose reason, later on its line, may name the file that was
   * really missing ("Could not load library A. Error: B: cannot open
   * shared object file"): B is then the message, needed by A; a reason
   * naming A again makes A's message more precise. */
  CL_ERROR_OPENER,
  /* Names the program or library the next message on its line is about
   * ("./llama-server: error while loading shared libraries: ..."). */
  CL_ERROR_CONSUMER,
  /* A message only where the text says nothing more precise: a summary
   * ("Cannot dlopen some GPU libraries", "[WinError 126]" alone), kept
   * when no other message requires what it does. */
  CL_ERROR_SUMMARY,
  /* No message: a fact for the messages around it (a Windows error code, a
   * stated CUDA version, a traceback's module). */
  CL_ERROR_STATEMENT
} cl_error_role;

/* How a form's hit is read (error_facts.c has one reader per value). */
typedef enum cl_error_reader {
  CL_READ_FILE_BEFORE,        /* the file or path before the marker */
  CL_READ_FILE_AFTER,         /* the word or quoted text after it */
  CL_READ_QUOTED_BEFORE,      /* "X" which is missing */
  CL_READ_CONSUMER_BEFORE,    /* any word before: a program, a library */
  CL_READ_NO_FILE,            /* a runtime error, a statement of the form's */
  CL_READ_CANDIDATES,         /* {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9} */
  CL_READ_UNDEFINED_SYMBOL,   /* P: undefined symbol: S, version N */
  CL_READ_SYMBOL_NOT_DEFINED, /* P: symbol S, version N not defined in file F */
  CL_READ_FAMILY_AFTER,       /* Unable to load cuSPARSE. Is it installed? */
  CL_READ_FAMILY_BEFORE,      /* The cuSPARSE library was not found */
  CL_READ_SYMBOL_AFTER,    /* Cannot load symbol cudnnCreateTensorDescriptor */
  CL_READ_LOADED_COMPILED, /* Loaded runtime CuDNN library: X but source
                              was compiled with: Y */
  CL_READ_TORCH_CUDNN,     /* compiled against (8, 9, 2) but found runtime
                              version (8, 8, 1); against 7102 but linked
                              against 7600 */
  CL_READ_DRIVER_FOUND,    /* ... too old (found version 11040) */
  CL_READ_PIP,             /* D V requires P==X; ..., but you have P Y */
  CL_READ_REQUIRE,         /* Require cuDNN 9.* and CUDA 12.* */
  CL_READ_DLL_IMPORT,      /* DLL load failed while importing _C: ... */
  /* Statements. */
  CL_READ_WINDOWS_CODE, /* the form's code: [WinError 126], error 127 */
  CL_READ_RUNTIME_API,  /* Runtime API Version: 11.7 */
  CL_READ_DRIVER_API,   /* Driver API Version: 11.8; nvidia-smi's CUDA
                           Version: 12.2 */
  CL_READ_BUILD_TAG,    /* torch 2.5.1+cu121 */
  CL_READ_CUDA_IN_NAME, /* xla_cuda12, jax_cuda12_plugin (the build's),
                           nvidia-cudnn-cu12 (a wheel's) */
  CL_READ_OPENED,       /* Successfully opened dynamic library X */
  CL_READ_SITE_PACKAGES /* .../site-packages/torch/...: module, venv */
} cl_error_reader;

typedef struct cl_error_form {
  /* Matched with ASCII letters in any case; other bytes as they are (the
   * Windows texts in other languages are matched in UTF-8). */
  const char *marker;
  int kind; /* CUDALOAD_MESSAGE_*; 0 for statements */
  cl_error_role role;
  cl_error_reader reader;
  /* Statements of a Windows error: its code (126, 127). Messages: how
   * strongly a CUDA version they state speaks for the program (3: its
   * own build or requirement, 1: a library seen in passing). */
  int code;
  const char *family;   /* the family the form is about, NULL: its file's */
  const char *consumer; /* the program that prints it ("onnxruntime") */
  const char *source;   /* who prints it, for docs and the message listing */
  const char *example;  /* NULL: not listed in the message */
} cl_error_form;

/* One form found in a text. */
typedef struct cl_error_hit {
  const cl_error_form *form;
  const char *text;  /* the whole text */
  size_t at;         /* the marker's offset */
  size_t end;        /* just after the marker */
  size_t line_start; /* the line it is on: [line_start, line_end) */
  size_t line_end;
} cl_error_hit;

/* Called for every hit, in text order (forms whose markers start at the
 * same offset in table order). Nonzero stops the scan. */
typedef int (*cl_error_hit_fn)(const cl_error_hit *hit, void *opaque);

/* Find every form's marker in text[0..len), in one pass: linear in len
 * whatever the text holds. Returns what fn returned to stop, else 0. */
int cl_error_forms_scan(const char *text, size_t len, cl_error_hit_fn fn,
                        void *opaque);

/* The table, for the message listing what is read, and the tests. */
const cl_error_form *cl_error_forms(size_t *count);

#endif
