/* SPDX-License-Identifier: MIT */
/*
 * fuzz_error_message.c - libFuzzer target: any bytes as an error text
 * through cudaload_read_error_text() (the encodings, NUL bytes, console
 * wrapping, the forms and their facts) on a fresh context. A text read
 * must give at least one message, each with a kind, a quote, a cause and
 * only facts that have a source; a refused one must add nothing.
 */
#include "cudaload.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cudaload_ctx *ctx = cudaload_create(CUDALOAD_NO_DEFAULT_ROOTS);
  if (!ctx)
    return 0;
  int rc = cudaload_read_error_text(ctx, data, size);
  size_t count = cudaload_error_message_count(ctx);
  if (rc != CUDALOAD_OK && (count != 0 || cudaload_requirement_count(ctx)))
    abort(); /* a refused text added something */
  if (rc == CUDALOAD_OK && count == 0)
    abort(); /* read, but no message */
  for (size_t i = 0; i < count; ++i) {
    if (!cudaload_error_message_kind_name(
            cudaload_error_message_kind(ctx, i)) ||
        !cudaload_error_message_quote(ctx, i) ||
        !cudaload_error_message_diagnosis(ctx, i) ||
        !cudaload_error_message_fact(ctx, i, CUDALOAD_MESSAGE_FACT_CAUSE))
      abort();
    for (int f = 1; cudaload_error_message_fact_name(f); ++f) {
      const char *value = cudaload_error_message_fact(ctx, i, f);
      if (value && (!*value || !cudaload_error_message_fact_source(ctx, i, f)))
        abort(); /* a fact is never empty and always says where it was read */
    }
    /* The requirement the message implies is one cudaload_require()
     * takes. */
    const char *req = cudaload_error_message_requirement(ctx, i);
    if (req && cudaload_require(ctx, req) != CUDALOAD_OK)
      abort();
  }
  cudaload_destroy(ctx);
  return 0;
}
