/* SPDX-License-Identifier: MIT */
/* shell_word.c - a word of a printed command, safe to paste (shell_word.h). */
#include "common/shell_word.h"

#include <string.h>

/* Characters no shell of the kind treats specially in a word that is not a
 * command's first: sh (globs, expansions, redirections, separators and
 * quotes left out) and, for Windows, both cmd and PowerShell (no comma, an
 * array in PowerShell; no @, splatting; no * or ?, kept quoted though
 * neither shell globs them for a program). */
static const char posix_plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "abcdefghijklmnopqrstuvwxyz"
                                  "0123456789_@%+=:,./-";
static const char windows_plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "abcdefghijklmnopqrstuvwxyz"
                                    "0123456789_+=:./\\-";

static int all_plain(const char *word, const char *plain) {
  return *word && strspn(word, plain) == strlen(word);
}

/* Whether cmd or PowerShell acts on a character of word even inside double
 * quotes. */
static int windows_double_quotes_unsafe(const char *word) {
  for (const unsigned char *p = (const unsigned char *)word; *p; ++p) {
    if (*p < 0x20 || *p == 0x7F || strchr("%!$`\"", *p))
      return 1;
    /* U+201C, U+201D, U+201E: PowerShell's typographic double quotes. */
    if (p[0] == 0xE2 && p[1] == 0x80 && p[2] >= 0x9C && p[2] <= 0x9E)
      return 1;
    /* C1 controls (U+0080..U+009F) */
    if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
      return 1;
  }
  return 0;
}

int cl_buf_shell_word(cl_buf *b, const char *word, cl_shell_kind kind) {
  if (kind == CL_SHELL_CMD_AND_POWERSHELL) {
    if (all_plain(word, windows_plain)) {
      cl_buf_puts(b, word);
      return 1;
    }
    if (windows_double_quotes_unsafe(word))
      return 0;
    cl_buf_printf(b, "\"%s\"", word);
    return 1;
  }
  if (all_plain(word, posix_plain)) {
    cl_buf_puts(b, word);
    return 1;
  }
  /* Nothing is special inside '...'; a ' ends it, so it is written as '\''
   * (end, an escaped quote, start again). */
  cl_buf_puts(b, "'");
  for (const char *p = word; *p; ++p) {
    size_t run = strcspn(p, "'");
    cl_buf_append(b, p, run);
    p += run;
    if (!*p)
      break;
    cl_buf_puts(b, "'\\''");
  }
  cl_buf_puts(b, "'");
  return 1;
}
