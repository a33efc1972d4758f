/* SPDX-License-Identifier: MIT */
/*
 * reason_words.h - the words of every reason, origin and fact value the
 * stages compose: why a file was passed over or refused, where a folder
 * came from, what a plan entry is, what a search looked at. The stages
 * choose which words a case gets and fill in its facts; the words are
 * here, so rewording a reason is an edit of this file alone (problem
 * sentences are problem/problem_words.c's, fix notes problem/fix_words.h's).
 *
 * Each is a string literal, a printf format where it takes facts, so the
 * compiler still checks every site's arguments against its words. It is in
 * common/ and includes nothing, so the scan and the loader model, stages
 * before problem/, name them too. tests/check_architecture.py (rule 13)
 * fails a sentence of its own in lib/load, lib/loader, lib/scan or
 * lib/report outside the files it allows.
 *
 * The words are grouped by the file that says them.
 */
#ifndef CUDALOAD_REASON_WORDS_H
#define CUDALOAD_REASON_WORDS_H

/* --- load/plan.c --- */
#define CL_WORDS_PINNED_BY_CUDA "pinned by cuda=%d"
#define CL_WORDS_THE_CUDA_MAJOR_OF_THE                                         \
  "the CUDA major of the libraries in the %s %s"
#define CL_WORDS_THE_PROGRAM_S_OWN "the program's own (%.400s)"
#define CL_WORDS_THE_NEWEST_CUDA_MAJOR_THE                                     \
  "the newest CUDA major the driver supports (driver %.32s, up to CUDA "       \
  "%d.%d, read from %.200s)"
#define CL_WORDS_THE_NEWEST_CUDA_MAJOR_FOUND "the newest CUDA major found; %s"
#define CL_WORDS_THE_DRIVER_SUPPORTS_NONE_OF                                   \
  "the driver supports none of those found"
#define CL_WORDS_THE_DRIVER_WAS_NOT_CONSULTED                                  \
  "the driver was not consulted: none found"
#define CL_WORDS_THE_DRIVER_SUPPORTS_CUDA_UP                                   \
  "; the driver (%.32s) supports CUDA up to %d.%d: update it"
#define CL_WORDS_WRITABLE_BY_OTHER_USERS_REFUSED                               \
  "writable by other users: refused"
#define CL_WORDS_MAKE_IT_WRITABLE_ONLY_BY "make it writable only by its owner"
#define CL_WORDS_BELONGS_TO_SAME_FOLDER "belongs to %s (same folder)"
#define CL_WORDS_BUILT_FOR_THIS_PROCESS_RUNS                                   \
  "built for %s; this process runs %s code (the loader would refuse it)"
#define CL_WORDS_BUILT_FOR_CUDA_THE_PLAN                                       \
  "built for CUDA %d; the plan takes CUDA %d (%s), and libraries of two "      \
  "CUDA majors in one process do not mix"
#define CL_WORDS_IS_NOT_IN_THE_SAME "%s %d is not in the same folder"
#define CL_WORDS_BINDS_THROUGH_ITS_OWN_SEARCH                                  \
  "%s binds %s through its own search list; a library of that name loaded "    \
  "first would be used in its place, so that file is kept"

/* --- load/plan_candidates.c --- */
#define CL_WORDS_ITS_VERSION_IS_UNKNOWN_NOTHING                                \
  "its version is unknown (nothing on disk tells more than the major), so "    \
  "the least version its program pins cannot be checked"
#define CL_WORDS_VERSION_IS_OLDER_THAN_WHICH                                   \
  "version %s is older than %s, which its program pins"
#define CL_WORDS_ITS_VERSION_IS_UNKNOWN_NOTHING_ON                             \
  "its version is unknown (nothing on disk tells more than the major), so "    \
  "%s cannot be checked"
#define CL_WORDS_VERSION_DOES_NOT_MATCH "version %s does not match %s"
#define CL_WORDS_ITS_VERSION_IS_UNKNOWN_ONLY                                   \
  "its version is unknown (only major %d), so %s cannot be checked"
#define CL_WORDS_VERSION_IS_OUTSIDE "version %s is outside %s"
#define CL_WORDS_A_SOURCE_OF_ITS_VERSION                                       \
  " (a source of its version was passed over: %s)"

/* --- load/plan_dependencies.c --- */
#define CL_WORDS_OPENED_LAZILY_BY_NEEDS                                        \
  "opened lazily by %s (%s %d needs %s %d)"
#define CL_WORDS_OPENED_BY_NAME_BY_ITS                                         \
  "opened by name by %s (its file names %s), from a root that holds it"
#define CL_WORDS_OPENED_LAZILY_BY_NEEDS_2                                      \
  "opened lazily by %s (%s %s needs %s %d)"

/* --- load/plan_settle.c --- */
#define CL_WORDS_THE_PRELOAD_PUTS_ITS_FOLDER                                   \
  ": the preload puts its folder on PATH and AddDllDirectory"
#define CL_WORDS_IT_WOULD_GET_INSTEAD_RULE "it would get %s instead (rule: %s)"
#define CL_WORDS_IT_WOULD_FIND_NOTHING_RULE "it would find nothing (rule: %s%s)"
#define CL_WORDS_IT_HAS_NO_RUNPATH_OR "; it has no RUNPATH or RPATH"
#define CL_WORDS_PRELOADED_ALL_SUB_LIBRARIES_WERE                              \
  "preloaded: all sub-libraries were asked for"
#define CL_WORDS_ITS_OPENER_FINDS_IT_ITSELF                                    \
  "its opener finds it itself (rule: %s)"
#define CL_WORDS_PRELOADED_BY_ABSOLUTE_PATH_BY                                 \
  "preloaded by absolute path: by its opener's own search %s%s%s"
#define CL_WORDS_IT_WOULD_GET "it would get "
#define CL_WORDS_IT_WOULD_FIND_NOTHING "it would find nothing"
#define CL_WORDS_SUB_LIBRARY_OF_WHICH_FINDS                                    \
  "sub-library of %s, which finds it itself (rule: %s)"
#define CL_WORDS_ITS_MAIN_LIBRARY "its main library"
#define CL_WORDS_NEEDED_BY_ELF_NEEDED_PE "needed by %s (ELF NEEDED / PE import)"
#define CL_WORDS_SUB_LIBRARY_OF_ALL_SUB                                        \
  "sub-library of %s; all sub-libraries were asked for"
#define CL_WORDS_SUB_LIBRARY_A_COPY_BUNDLED                                    \
  "sub-library: %s (a copy bundled by %s) opens it by name: %s"
#define CL_WORDS_SUB_LIBRARY_WHOSE_MAIN_LIBRARY                                \
  "sub-library whose main library is not planned"
#define CL_WORDS_SUB_LIBRARY_OF_PRELOADED_BY                                   \
  "sub-library of %s, preloaded by absolute path: when %s opens it by "        \
  "name, %s"

/* --- load/program.c --- */
#define CL_WORDS_THE_PACKAGE_LOADS_IT_FIRST "; the package loads it first: "
#define CL_WORDS_A_COPY_OF_BUNDLED_AS "a copy of %s bundled as %s"
#define CL_WORDS_LOADED_BY_ITS_PACKAGE_S "%s, loaded by its package's __init__"
#define CL_WORDS_ONLY_IF_IS_USED_IT                                            \
  "only if %s is used: it is built for CUDA %d, the environment's %s for "     \
  "CUDA %d"
#define CL_WORDS_ONLY_IF_IS_USED_ANOTHER                                       \
  "only if %s is used: another program of the environment needs another "      \
  "major"
#define CL_WORDS_NO_ENVIRONMENT_IS_ACTIVE_NO                                   \
  "no environment is active (no VIRTUAL_ENV, no CONDA_PREFIX, no python3 "     \
  "on PATH): activate it, or pass --environment DIR, or give the "             \
  "interpreter's path"
#define CL_WORDS_VIRTUAL_ENV_IS_NOT_SET                                        \
  "; VIRTUAL_ENV is not set (sudo, cron and systemd start programs without "   \
  "it): a venv's program is found by giving its interpreter's path, --for "    \
  "/path/to/venv/bin/python"

/* --- load/program_pins.c --- */
#define CL_WORDS_ITS_ENVIRONMENT_MARKER_IS_NO                                  \
  "its environment marker is no PEP 508 marker"
#define CL_WORDS_ITS_ENVIRONMENT_MARKER_READS_WHAT                             \
  "its environment marker reads what no file here tells (the interpreter's "   \
  "version)"
#define CL_WORDS_ITS_VERSION_SPECIFIER_IS_NO                                   \
  "its version specifier is no PEP 440 one"
#define CL_WORDS_IT_ADMITS_NO_RELEASE_OF                                       \
  "it admits no release of the library that cudaload knows"

/* --- load/program_find.c --- */
#define CL_WORDS_IMPORT_FINDS_IN "import %s finds %s in %s (%s%s%s)"

/* --- load/program_scan.c --- */
#define CL_WORDS_ONLY_IF_IS_USED "%s, only if %s is used"

/* --- load/verdict.c: the lookups-stopped finding --- */
/* Its reason: the file that stopped the model needs (DT_NEEDED) or opens
 * the libraries it was resolving. */
#define CL_WORDS_STOPPED_NEEDS "needs"
#define CL_WORDS_STOPPED_OPENS "opens"
/* What it searched: how many folders of its RUNPATH or RPATH (%s). */
#define CL_WORDS_RUNPATH_FOLDERS "%zu %s folders"

/* --- load/verdict_search_findings.c --- */
/* A not-found finding's places searched when the model looked nowhere. */
#define CL_WORDS_SEARCHED_NOTHING "nothing"

/* --- load/verdict_bindings.c --- */
/* A binding group whose library no reference or file names. */
#define CL_WORDS_LIBRARY_UNKNOWN "(unknown)"

/* --- report/doctor_problems.c --- */
/* A root a cudaload.roots record names, unusable: its status, the
 * record. */
#define CL_WORDS_NAMED_IN_THE_RECORD "%s (named in %s)"

#endif
