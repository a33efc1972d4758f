/* SPDX-License-Identifier: MIT */
/*
 * os_error_win32.c - the text of a Windows error code (FormatMessageW), for
 * the last error (common/error.c). Below everything else: it calls nothing
 * of the library, so error.c can use it and every seam file can fail.
 */
#include "os/platform.h"

#include <windows.h>

#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* FORMAT_MESSAGE_IGNORE_INSERTS leaves "%1" where the message names its
 * subject (193: "%1 is not a valid Win32 application."): the caller's
 * text names the file before the message, so "%1" becomes "the file". */
static void replace_inserts(wchar_t *message, DWORD *units, DWORD capacity) {
  static const wchar_t subject[] = L"the file";
  const DWORD extra = (DWORD)(sizeof subject / sizeof subject[0]) - 1 - 2;
  for (DWORD i = 0; i + 1 < *units; ++i) {
    if (message[i] != L'%' || message[i + 1] < L'1' || message[i + 1] > L'9')
      continue;
    if (*units + extra >= capacity)
      return; /* no room: leave the rest as the system wrote it */
    wmemmove(message + i + 2 + extra, message + i + 2, *units - i - 2);
    wmemcpy(message + i, subject, extra + 2);
    *units += extra;
    i += extra + 1;
  }
}

void cl_os_error_text(unsigned long code, char *buf, size_t len) {
  if (len == 0)
    return;
  buf[0] = '\0';

  wchar_t message[512];
  DWORD units = FormatMessageW(
      FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
      (DWORD)code, 0, message, sizeof message / sizeof message[0], NULL);
  /* System messages end in ".\r\n"; the line break would split a one-line
   * error in two. */
  while (units > 0 &&
         (message[units - 1] == L'\r' || message[units - 1] == L'\n' ||
          message[units - 1] == L' '))
    --units;

  replace_inserts(message, &units, sizeof message / sizeof message[0]);

  char utf8[sizeof message / sizeof message[0] * 3 + 1];
  int bytes = 0;
  if (units > 0)
    bytes = WideCharToMultiByte(CP_UTF8, 0, message, (int)units, utf8,
                                (int)sizeof utf8 - 1, NULL, NULL);
  if (bytes <= 0)
    bytes = 0;
  utf8[bytes] = '\0';

  /* The number too: message texts are localised, the number is what a user
   * can search for ("error code 126"). */
  char number[48];
  snprintf(number, sizeof number, "%sWindows error %lu%s", bytes ? " (" : "",
           code, bytes ? ")" : "");

  size_t text_len = (size_t)bytes;
  size_t number_len = strlen(number);
  if (text_len + number_len >= len) {
    /* Cut the text, never in the middle of a UTF-8 sequence. */
    text_len = len - 1 > number_len ? len - 1 - number_len : 0;
    while (text_len > 0 && ((unsigned char)utf8[text_len] & 0xC0) == 0x80)
      --text_len;
  }
  memcpy(buf, utf8, text_len);
  size_t number_copy = len - 1 - text_len;
  if (number_copy > number_len)
    number_copy = number_len;
  memcpy(buf + text_len, number, number_copy);
  buf[text_len + number_copy] = '\0';
}
