/* SPDX-License-Identifier: MIT */
/*
 * acl_win32.c - which access control lists let other users plant a library
 * in a folder (acl_win32.h); platform_win32.c reads the DACL and asks here.
 */
#include "win32/acl_win32.h"
#include "win32/wide.h"

#include <sddl.h>

#include <stdio.h>
#include <stdlib.h>

/*
 * The rights a group of other users must not have, by what the path is to
 * a library (os/platform.h, cl_trust_use). GENERIC_* bits only appear in
 * ACEs nobody has mapped yet, but they mean the same; WRITE_DAC and
 * WRITE_OWNER let their holder grant himself the rest.
 *
 * A library folder: add a file, add a subfolder (the scan descends into
 * lib\x64, bin\... and would list what a stranger put in a folder he
 * created). FILE_WRITE_DATA and FILE_APPEND_DATA are the same bits as
 * FILE_ADD_FILE and FILE_ADD_SUBDIRECTORY.
 */
#define CL_PLANTING_RIGHTS                                                     \
  (FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | WRITE_DAC | WRITE_OWNER |           \
   GENERIC_WRITE | GENERIC_ALL)
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

/* Groups whose members are "other users": every local or domain account
 * (Everyone, Authenticated Users, BUILTIN\Users) or whoever logs on at the
 * console (Interactive). Not covered, as on POSIX: a folder writable by one
 * other named account, or by a domain group such as Domain Users. */
static const WELL_KNOWN_SID_TYPE cl_broad_sids[] = {
    WinWorldSid, WinAuthenticatedUserSid, WinBuiltinUsersSid,
    WinInteractiveSid};
#define CL_BROAD_SID_COUNT (sizeof cl_broad_sids / sizeof cl_broad_sids[0])

/* Index of `sid` in cl_broad_sids, or -1. */
static int broad_sid_index(PSID sid) {
  for (size_t i = 0; i < CL_BROAD_SID_COUNT; ++i) {
    BYTE buf[SECURITY_MAX_SID_SIZE];
    DWORD size = sizeof buf;
    if (CreateWellKnownSid(cl_broad_sids[i], NULL, buf, &size) &&
        EqualSid(sid, buf))
      return (int)i;
  }
  return -1;
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
                        : "a group of users");
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
  } names[] = {{GENERIC_ALL, "full control"},
               {GENERIC_WRITE, "write"},
               {FILE_ADD_FILE, file ? "write data" : "add files"},
               {FILE_ADD_SUBDIRECTORY, file ? "append data" : "add subfolders"},
               {FILE_DELETE_CHILD, "delete what it holds"},
               {DELETE, "delete or rename it"},
               {WRITE_DAC, "change permissions"},
               {WRITE_OWNER, "take ownership"}};
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

/* The first allow ACE of the DACL that gives a broad group a right `use`
 * forbids, one its earlier deny ACEs left it, described in text: 1; 0 when
 * none does. */
int cl_os_dacl_writable_by_others(PACL dacl, cl_trust_use use, char *text,
                                  size_t size) {
  int writable = 0;
  ACCESS_MASK denied[CL_BROAD_SID_COUNT] = {0};
  for (DWORD i = 0; i < dacl->AceCount && !writable; ++i) {
    ACE_HEADER *header = NULL;
    if (!GetAce(dacl, i, (LPVOID *)&header) ||
        (header->AceFlags & INHERIT_ONLY_ACE))
      continue;
    if (header->AceType == ACCESS_DENIED_ACE_TYPE) {
      ACCESS_DENIED_ACE *ace = (ACCESS_DENIED_ACE *)header;
      int k = broad_sid_index((PSID)&ace->SidStart);
      if (k < 0)
        continue;
      for (size_t j = 0; j < CL_BROAD_SID_COUNT; ++j)
        if ((int)j == k || cl_broad_sids[k] == WinWorldSid)
          denied[j] |= ace->Mask;
    } else if (header->AceType == ACCESS_ALLOWED_ACE_TYPE) {
      ACCESS_ALLOWED_ACE *ace = (ACCESS_ALLOWED_ACE *)header;
      int k = broad_sid_index((PSID)&ace->SidStart);
      if (k < 0)
        continue;
      ACCESS_MASK granted = ace->Mask & forbidden_rights(use) & ~denied[k];
      if (!granted)
        continue;
      char who[300], rights[192];
      describe_sid((PSID)&ace->SidStart, who, sizeof who);
      describe_rights(granted, use, rights, sizeof rights);
      snprintf(text, size,
               "writable by %s: its access control list grants %s (access "
               "mask 0x%08lx)%s",
               who, rights, (unsigned long)ace->Mask,
               use == CL_TRUST_FOLDER_ON_THE_WAY
                   ? ": they can rename what it holds and put their own in "
                     "its place"
                   : "");
      writable = 1;
    }
  }
  return writable;
}
