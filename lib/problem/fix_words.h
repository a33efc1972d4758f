/* SPDX-License-Identifier: MIT */
/*
 * fix_words.h - the words of every fix note: the sentence a fix step says
 * beside (or instead of) a command. The stages choose which note a fix
 * gets and fill its facts; the words are here, so rewording a note is an
 * edit of this file alone (problem sentences are problem_words.c's).
 *
 * Each note is a string literal, a printf format where it takes facts, so
 * the compiler still checks every site's arguments against its words
 * (cl_fix_add_note and cl_fix_note are CL_PRINTF). A site passes a
 * CL_NOTE_* name, never a literal of its own: tests/check_architecture.py
 * checks that no file outside lib/problem/ gives a fix note its words.
 *
 * The notes are grouped by the stage that raises them.
 */
#ifndef CUDALOAD_FIX_WORDS_H
#define CUDALOAD_FIX_WORDS_H

/* --- the verdict: what the loader would take (lib/load/verdict*.c) --- */
/* Beside `cudaload inspect FILE`, for a file that cannot be read as a
 * library. */
#define CL_NOTE_INSPECT_SAYS_WHY "it says why"
/* A plugin of the program needs a library cudaload does not know (%s: its
 * names). */
#define CL_NOTE_PROVIDE_WHAT_THE_PLUGIN_NEEDS                                  \
  "if the program needs this plugin, install what provides %s and add its "    \
  "folder with --root"
/* Symbols missing from the file taken: a file no catalog row knows (%s). */
#define CL_NOTE_INSTALL_THE_RELEASE_BUILT_AGAINST                              \
  "install the release of %s its consumer was built against, or a newer one"
/* The same for a family (%s) and major (%d) no wheel ships... */
#define CL_NOTE_INSTALL_NEWER_OR_PUT_ONE_FIRST                                 \
  "install a newer %s %d, or put the folder of one first"
/* ... and one a wheel ships: this note, the install, then the next one. */
#define CL_NOTE_INSTALL_NEWER "install a newer %s %d:"
#define CL_NOTE_OR_PUT_THE_FOLDER_OF_ONE_FIRST "or put the folder of one first"
/* Symbols missing from a file LD_PRELOAD put first (after the step that
 * drops it from LD_PRELOAD); %s: the file that defines them. */
#define CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST_BETTER                                \
  "LD_PRELOAD puts that file first, before anything cudaload loads; %s "       \
  "defines them"
#define CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST                                       \
  "LD_PRELOAD puts that file first, before anything cudaload loads"
/* Symbols missing from a file taken from LD_LIBRARY_PATH: the file that
 * defines them, the folder to drop. */
#define CL_NOTE_DROP_FROM_LD_LIBRARY_PATH_OR_LOAD_BETTER                       \
  "%s defines them: drop %s from LD_LIBRARY_PATH, or have cudaload load "      \
  "that file first"
#define CL_NOTE_LOAD_THE_FILE_THAT_DEFINES_THEM                                \
  "%s defines them: have cudaload load it first"
/* References that bind to another file (%s, or the words below when it is
 * not known) than the consumer's own (%s). */
#define CL_NOTE_KEEP_IT_OUT_OF_THE_GLOBAL_SCOPE                                \
  "keep %s out of the global scope (open it RTLD_LOCAL), or open %s with "     \
  "cudaload_dlopen_isolated()"
#define CL_NOTE_WORDS_THE_OTHER_FILE "the other file"
/* Windows: the copy of a DLL name loaded first is the older (%s: the
 * name). */
#define CL_NOTE_LOAD_THE_NEWER_COPY_FIRST                                      \
  "load the newer %s first (cudaload.setup() with the requirement it "         \
  "satisfies), or remove the older"
/* The copy loaded first is the newer: before `cudaload explain --pid PID`. */
#define CL_NOTE_NOTHING_NEEDS_DOING_LIST_THE_COPIES                            \
  "nothing needs doing; to list the copies the running program maps:"
#define CL_NOTE_PID_IS_THE_PROCESS_ID "PID: the running program's process id"
#define CL_NOTE_KEEP_ONE_VERSION                                               \
  "keep one %s %d: load the files of one folder (cudaload exec, "              \
  "cudaload.setup()), or take the other off the search path"
/* Libraries of two CUDA majors: the first one's major and the family of
 * the other. */
#define CL_NOTE_INSTALL_THE_BUILD_FOR_THE_CUDA_MAJOR                           \
  "install the CUDA %d build of %s, or require the CUDA major the program "    \
  "needs (--require cuda=N)"
/* A sibling of its own family taken from another folder (%s). */
#define CL_NOTE_TAKE_THE_OTHER_FOLDER_OFF_THE_SEARCH_PATH                      \
  "take %s off the search path, or preload the copies beside it first "        \
  "(cudaload exec, cudaload.setup())"
/* A name not found whose library is installed where the loader does not
 * look: the requirement, family, major, folder, the requirement again,
 * then on Windows the words below and the PATH command (else ""). */
#define CL_NOTE_REQUIRE_WHAT_IS_INSTALLED_ELSEWHERE                            \
  "add --require %s (%s %d is installed in %s, where the loader does not "     \
  "look here; Python: cudaload.setup(require=[\"%s\"]) before the "            \
  "import)%s%s"
#define CL_NOTE_OR_PUT_THAT_FOLDER_FIRST_ON_PATH                               \
  ", or put that folder first on PATH before the program starts: "
/* A name not found that nothing installed holds: the requirement, the
 * names, then the words below when install steps follow (else ""). */
#define CL_NOTE_REQUIRE_IT_WITH_A_ROOT                                         \
  "add --require %s with a root that holds it, or the folder that holds %s "   \
  "with --root%s"
#define CL_NOTE_TO_INSTALL_IT "; to install it:"
/* A name not found that is no CUDA library's. */
#define CL_NOTE_ADD_THE_FOLDER_WITH_ROOT                                       \
  "add the folder that holds %s with --root"
/* The names not found, as a note says them: "a, b" and "c" as "a, b and
 * c". */
#define CL_NOTE_WORDS_NAMES_AND_THE_LAST "%.*s and %s"
/* A search list with a relative entry... */
#define CL_NOTE_MAKE_THE_ENTRY_ABSOLUTE                                        \
  "make the entry absolute ($ORIGIN/...) in the library (patchelf "            \
  "--set-rpath), or run from a folder only you can write to"
/* ... or an empty one (the current folder). */
#define CL_NOTE_DROP_THE_EMPTY_ENTRY                                           \
  "drop the empty entry (a leading, trailing or doubled separator) from "      \
  "that search list (patchelf --set-rpath), or run from a folder only you "    \
  "can write to"
/* A name that takes a file (%s) of another library than its own (%s). */
#define CL_NOTE_REMOVE_THE_MISNAMED_FILE                                       \
  "remove %s, which is misnamed, or put the folder of the right %s first"

/* --- the program: what a program needs (lib/load/program*.c) --- */
/* A Requires-Dist pin that could not be read: the pinned wheel, then the
 * family and major to require... */
#define CL_NOTE_REQUIRE_THE_PINNED_MAJOR                                       \
  "if the program needs %s, add --require %s=%d beside --for"
/* ... or, with no major known, the wheel alone. */
#define CL_NOTE_REQUIRE_THE_PINNED_LIBRARY                                     \
  "if the program needs %s, require its library with --require beside --for"
/* Two distributions own the same files and neither is wanted: this note,
 * then `pip uninstall -y A B` with the next. */
#define CL_NOTE_KEEP_ONE_OF_THE_TWO_DISTRIBUTIONS "keep one of them:"
#define CL_NOTE_THEN_INSTALL_THE_ONE_NEEDED                                    \
  "then pip install the one the program needs"

/* --- the plan and its fix lines (plan*.c, plan_judge.c, fix_lines.c,
 * preload.c) --- */

/* --- the doctor's answers (lib/report/, lib/common/fix_steps.c) --- */

#endif
