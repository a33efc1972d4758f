/* SPDX-License-Identifier: MIT */
/*
 * acl_win32.h - the writable-folder check's decision on a DACL, apart from
 * reading the DACL (platform_win32.c does that), so that a test can hand it
 * an ACL built in memory: Wine keeps on disk only what a Unix mode can say.
 */
#ifndef CUDALOAD_WIN32_ACL_H
#define CUDALOAD_WIN32_ACL_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stddef.h>

#include "os/platform.h"

/* 1 when an allow ACE of dacl gives a group of other users a right that
 * `use` forbids (one its earlier deny ACEs did not take back), with the
 * ACE described in text ("writable by Everyone (S-1-1-0): its access
 * control list grants add files ..."); 0 when none does. dacl is not NULL
 * (a NULL DACL grants everyone everything: the caller's case). */
int cl_os_dacl_writable_by_others(PACL dacl, cl_trust_use use, char *text,
                                  size_t size);

/* icacls's arguments that leave each group of other users that dacl lets
 * do what `use` forbids only read and run (" /grant:r *S-1-1-0:(RX)", with
 * (OI)(CI) for a folder, so that its files get the same), into text; "" when
 * no group does. dacl NULL: the groups Windows' default ACLs name (Users,
 * Authenticated Users, Everyone). */
void cl_os_dacl_private_grants(PACL dacl, cl_trust_use use, char *text,
                               size_t size);

#endif
