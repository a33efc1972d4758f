/* SPDX-License-Identifier: MIT */
/*
 * acl_win32.c - which access control lists let other users plant a library
 * in a folder (acl_win32.h); platform_win32.c reads the DACL and asks here.
 */
#include "win32/acl_win32.h"
#include "common/reason_words.h"
#include "win32/wide.h"

#include <sddl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The rights a group of other users must not have, by what the path is to
 * a library (os/platform.h, cl_trust_use). GENERIC_* bits only appear in
 * ACEs nobody has mapped yet, but they mean the same; WRITE_DAC and
 * WRITE_OWNER let their holder grant himself the rest.
 *
 * A library folder: add a file, add a subfolder (the scan descends into
 * lib\x64, bin\... and would list what a stranger put in a folder he
 * created), delete what it holds (a library, replaced by one from the next
 * folder searched) or delete (rename) the folder itself. FILE_WRITE_DATA
 * and FILE_APPEND_DATA are the same bits as FILE_ADD_FILE and
 * FILE_ADD_SUBDIRECTORY.
 */
#define CL_PLANTING_RIGHTS                                                     \
  (FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | FILE_DELETE_CHILD | DELETE |        \
   WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL)
/* A folder on the way to one: delete (so rename) the folder itself or what
 * it holds, and put another in its place. Adding is harmless there:
 * C:\ lets Authenticated Users add folders, and nothing on the way changes
 * when one does. */
#define CL_REPLACING_RIGHTS                                                    \
  (DELETE | FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER | GENERIC_ALL)
/* The library file: change its bytes, or delete (rename) it. */
#define CL_REWRITING_RIGHTS                                                    \
  (FILE_WRITE_DATA | FILE_APPEND_DATA | DELETE | WRITE_DAC | WRITE_OWNER |     \
   GENERIC_WRITE | GENERIC_ALL)

static ACCESS_MASK forbidden_rights(cl_trust_use use) {
  switch (use) {
  case CL_TRUST_FOLDER_ON_THE_WAY:
    return CL_REPLACING_RIGHTS;
  case CL_TRUST_LIBRARY_FILE:
    return CL_REWRITING_RIGHTS;
  default:
    return CL_PLANTING_RIGHTS;
  }
}

/*
 * Groups whose members are "other users", matched by SID (no look-up: a
 * name is localised, and CreateWellKnownSid does not know every one):
 * every account (Everyone, Authenticated Users, BUILTIN\Users, This
 * Organization, the guests), or whoever logs on in some way (at the console
 * or a local terminal, remotely, as a batch job, a service, over the
 * network or a dial-up line, or anonymously). Not covered, as on POSIX: a
 * folder writable by one other named account (LOCAL SERVICE and NETWORK
 * SERVICE included), or by a domain group such as Domain Users.
 */
static const struct {
  BYTE authority; /* the last byte of the identifier authority */
  BYTE count;     /* sub-authorities */
  DWORD rid[2];
  int in_everyone; /* a deny entry for Everyone reaches its members */
} cl_broad_sids[] = {
    {1, 1, {0, 0}, 1},    /* Everyone, S-1-1-0 (first: see in_everyone) */
    {5, 1, {11, 0}, 1},   /* Authenticated Users, S-1-5-11 */
    {5, 2, {32, 545}, 1}, /* BUILTIN\Users, S-1-5-32-545 */
    {5, 1, {4, 0}, 1},    /* Interactive, S-1-5-4 */
    {2, 1, {0, 0}, 1},    /* LOCAL, S-1-2-0 */
    {2, 1, {1, 0}, 1},    /* CONSOLE LOGON, S-1-2-1 */
    {5, 1, {14, 0}, 1},   /* Remote Interactive Logon, S-1-5-14 */
    {5, 1, {13, 0}, 1},   /* Terminal Server User, S-1-5-13 */
    {5, 1, {3, 0}, 1},    /* BATCH, S-1-5-3 */
    {5, 1, {6, 0}, 1},    /* SERVICE, S-1-5-6 */
    {5, 1, {2, 0}, 1},    /* NETWORK, S-1-5-2 */
    {5, 1, {1, 0}, 1},    /* DIALUP, S-1-5-1 */
    {5, 1, {15, 0}, 1},   /* This Organization, S-1-5-15 */
    {5, 2, {32, 546}, 1}, /* BUILTIN\Guests, S-1-5-32-546 */
    /* Not in Everyone since Windows XP (unless a policy puts it there): a
     * deny entry for Everyone leaves ANONYMOUS LOGON its rights. */
    {5, 1, {7, 0}, 0}, /* ANONYMOUS LOGON, S-1-5-7 */
};
#define CL_BROAD_SID_COUNT (sizeof cl_broad_sids / sizeof cl_broad_sids[0])

/* Index of `sid` in cl_broad_sids, or -1. */
static int broad_sid_index(PSID sid) {
  const SID_IDENTIFIER_AUTHORITY *auth = GetSidIdentifierAuthority(sid);
  BYTE count = *GetSidSubAuthorityCount(sid);
  for (size_t i = 0; i < CL_BROAD_SID_COUNT; ++i) {
    int same = auth->Value[5] == cl_broad_sids[i].authority &&
               !auth->Value[0] && !auth->Value[1] && !auth->Value[2] &&
               !auth->Value[3] && !auth->Value[4] &&
               count == cl_broad_sids[i].count;
    for (BYTE k = 0; same && k < count; ++k)
      same = *GetSidSubAuthority(sid, k) == cl_broad_sids[i].rid[k];
    if (same)
      return (int)i;
  }
  return -1;
}

/*
 * The SID and rights of an allow or deny entry, read within the entry's
 * size. Every allow type counts, conditional (callback) and object ones
 * included: a condition may hold, and on a file an object entry grants
 * what it says. Only a plain deny entry takes rights away: a conditional
 * one may not apply. The object types put Flags and the GUIDs the flags
 * name before the SID. NULL for any other entry, or a SID that does not fit.
 */
static PSID ace_sid(ACE_HEADER *h, ACCESS_MASK *mask, int *allow,
                    int *conditional) {
  BYTE *ace = (BYTE *)h; /* the SID returned points into it */
  size_t at = sizeof *h + sizeof *mask;
  *allow = h->AceType != ACCESS_DENIED_ACE_TYPE;
  *conditional = h->AceType == ACCESS_ALLOWED_CALLBACK_ACE_TYPE ||
                 h->AceType == ACCESS_ALLOWED_CALLBACK_OBJECT_ACE_TYPE;
  if (h->AceType == ACCESS_ALLOWED_OBJECT_ACE_TYPE ||
      h->AceType == ACCESS_ALLOWED_CALLBACK_OBJECT_ACE_TYPE) {
    DWORD flags = 0;
    if (h->AceSize < at + sizeof flags)
      return NULL;
    memcpy(&flags, ace + at, sizeof flags);
    at += sizeof flags;
    at += (flags & ACE_OBJECT_TYPE_PRESENT) ? sizeof(GUID) : 0;
    at += (flags & ACE_INHERITED_OBJECT_TYPE_PRESENT) ? sizeof(GUID) : 0;
  } else if (h->AceType != ACCESS_ALLOWED_ACE_TYPE &&
             h->AceType != ACCESS_ALLOWED_CALLBACK_ACE_TYPE &&
             h->AceType != ACCESS_DENIED_ACE_TYPE) {
    return NULL;
  }
  /* A SID: revision, count, a 6-byte authority, then count RIDs. */
  if (h->AceSize < at + 8 || h->AceSize < at + 8 + 4u * ace[at + 1])
    return NULL;
  PSID sid = (PSID)(ace + at);
  if (!IsValidSid(sid))
    return NULL;
  memcpy(mask, ace + sizeof *h, sizeof *mask);
  return sid;
}

/* "Everyone (S-1-1-0)": the account name is localised ("Jeder"), the SID
 * string is what a user can search for; either may be missing. */
static void describe_sid(PSID sid, char *buf, size_t len) {
  wchar_t name[256], domain[256];
  DWORD name_len = sizeof name / sizeof name[0];
  DWORD domain_len = sizeof domain / sizeof domain[0];
  SID_NAME_USE use;
  char *name_utf8 = NULL;
  if (LookupAccountSidW(NULL, sid, name, &name_len, domain, &domain_len, &use))
    name_utf8 = cl_os_wide_to_utf8(name, -1);
  wchar_t *sid_text = NULL;
  char *sid_utf8 = NULL;
  if (ConvertSidToStringSidW(sid, &sid_text)) {
    sid_utf8 = cl_os_wide_to_utf8(sid_text, -1);
    LocalFree(sid_text);
  }
  if (name_utf8 && sid_utf8)
    snprintf(buf, len, "%s (%s)", name_utf8, sid_utf8);
  else
    snprintf(buf, len, "%s",
             name_utf8  ? name_utf8
             : sid_utf8 ? sid_utf8
                        : CL_WORDS_A_GROUP_OF_USERS);
  free(name_utf8);
  free(sid_utf8);
}

/* "add files, add subfolders" for the forbidden rights in `mask`; a file's
 * bits 0x2 and 0x4 are "write data" and "append data". */
static void describe_rights(ACCESS_MASK mask, cl_trust_use use, char *buf,
                            size_t len) {
  int file = use == CL_TRUST_LIBRARY_FILE;
  const struct {
    ACCESS_MASK bit;
    const char *text;
  } names[] = {{GENERIC_ALL, CL_WORDS_RIGHT_FULL_CONTROL},
               {GENERIC_WRITE, CL_WORDS_RIGHT_WRITE},
               {FILE_ADD_FILE,
                file ? CL_WORDS_RIGHT_WRITE_DATA : CL_WORDS_RIGHT_ADD_FILES},
               {FILE_ADD_SUBDIRECTORY, file ? CL_WORDS_RIGHT_APPEND_DATA
                                            : CL_WORDS_RIGHT_ADD_SUBFOLDERS},
               {FILE_DELETE_CHILD, CL_WORDS_RIGHT_DELETE_WHAT_IT_HOLDS},
               {DELETE, CL_WORDS_RIGHT_DELETE_OR_RENAME_IT},
               {WRITE_DAC, CL_WORDS_RIGHT_CHANGE_PERMISSIONS},
               {WRITE_OWNER, CL_WORDS_RIGHT_TAKE_OWNERSHIP}};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if ((mask & names[i].bit) && used < len) {
      int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                       names[i].text);
      if (n > 0)
        used += (size_t)n;
    }
}

/* Describe the grant in text: who, what, and the entry's mask. */
static void describe_grant(PSID sid, ACCESS_MASK mask, ACCESS_MASK granted,
                           int conditional, cl_trust_use use, char *text,
                           size_t size) {
  char who[300], rights[192];
  describe_sid(sid, who, sizeof who);
  describe_rights(granted, use, rights, sizeof rights);
  snprintf(
      text, size, CL_WORDS_WRITABLE_BY_ACL_GRANTS, who, rights,
      (unsigned long)mask, conditional ? CL_WORDS_IN_A_CONDITIONAL_ENTRY : "",
      use == CL_TRUST_FOLDER_ON_THE_WAY ? CL_WORDS_THEY_CAN_RENAME_WHAT_IT_HOLDS
                                        : "");
}

/* The first allow ACE of the DACL that gives a broad group a right `use`
 * forbids, one its earlier deny ACEs left it, described in text: 1; 0 when
 * none does. */
int cl_os_dacl_writable_by_others(PACL dacl, cl_trust_use use, char *text,
                                  size_t size) {
  ACCESS_MASK denied[CL_BROAD_SID_COUNT] = {0};
  for (DWORD i = 0; i < dacl->AceCount; ++i) {
    ACE_HEADER *header = NULL;
    ACCESS_MASK mask = 0;
    int allow, conditional;
    if (!GetAce(dacl, i, (LPVOID *)&header) ||
        (header->AceFlags & INHERIT_ONLY_ACE))
      continue;
    PSID sid = ace_sid(header, &mask, &allow, &conditional);
    int k = sid ? broad_sid_index(sid) : -1;
    if (k < 0)
      continue;
    if (!allow) {
      for (size_t j = 0; j < CL_BROAD_SID_COUNT; ++j)
        if ((int)j == k || (k == 0 && cl_broad_sids[j].in_everyone))
          denied[j] |= mask;
      continue;
    }
    ACCESS_MASK granted = mask & forbidden_rights(use) & ~denied[k];
    if (granted) {
      describe_grant(sid, mask, granted, conditional, use, text, size);
      return 1;
    }
  }
  return 0;
}

/* " /grant:r *SID:(RX)" for sid, appended to text when it fits. */
static void append_grant(PSID sid, cl_trust_use use, char *text, size_t size) {
  wchar_t *sid_text = NULL;
  if (!ConvertSidToStringSidW(sid, &sid_text))
    return;
  char *utf8 = cl_os_wide_to_utf8(sid_text, -1);
  LocalFree(sid_text);
  if (!utf8)
    return;
  char grant[128];
  snprintf(grant, sizeof grant, " /grant:r *%s:%s(RX)", utf8,
           use == CL_TRUST_LIBRARY_FILE ? "" : "(OI)(CI)");
  free(utf8);
  size_t used = strlen(text);
  if (!strstr(text, grant) && used + strlen(grant) < size)
    memcpy(text + used, grant, strlen(grant) + 1);
}

void cl_os_dacl_private_grants(PACL dacl, cl_trust_use use, char *text,
                               size_t size) {
  if (size)
    text[0] = '\0';
  if (!dacl) {
    static const struct {
      BYTE authority;
      BYTE count;
      DWORD rid[2];
    } usual[] = {{5, 2, {32, 545}}, {5, 1, {11, 0}}, {1, 1, {0, 0}}};
    for (size_t i = 0; i < sizeof usual / sizeof usual[0]; ++i) {
      SID_IDENTIFIER_AUTHORITY authority = {{0, 0, 0, 0, 0, 0}};
      authority.Value[5] = usual[i].authority;
      PSID sid = NULL;
      if (AllocateAndInitializeSid(&authority, usual[i].count, usual[i].rid[0],
                                   usual[i].rid[1], 0, 0, 0, 0, 0, 0, &sid)) {
        append_grant(sid, use, text, size);
        FreeSid(sid);
      }
    }
    return;
  }
  ACCESS_MASK denied[CL_BROAD_SID_COUNT] = {0};
  for (DWORD i = 0; i < dacl->AceCount; ++i) {
    ACE_HEADER *header = NULL;
    ACCESS_MASK mask = 0;
    int allow, conditional;
    if (!GetAce(dacl, i, (LPVOID *)&header) ||
        (header->AceFlags & INHERIT_ONLY_ACE))
      continue;
    PSID sid = ace_sid(header, &mask, &allow, &conditional);
    int k = sid ? broad_sid_index(sid) : -1;
    if (k < 0)
      continue;
    if (!allow) {
      for (size_t j = 0; j < CL_BROAD_SID_COUNT; ++j)
        if ((int)j == k || (k == 0 && cl_broad_sids[j].in_everyone))
          denied[j] |= mask;
      continue;
    }
    if (mask & forbidden_rights(use) & ~denied[k])
      append_grant(sid, use, text, size);
  }
}
