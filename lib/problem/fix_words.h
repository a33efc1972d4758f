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

/* A requirement or a needed library no root holds: add one (the wheel
 * that ships it, when there is one, follows as an install step). */
#define CL_NOTE_REQUIRE_WITH_A_ROOT "add %s %s=%d with a root that holds it%s"
#define CL_NOTE_ADD_A_ROOT_THAT_HOLDS "add a root that holds %s %d%s"
#define CL_NOTE_THE_WHEEL_THAT_SHIPS_IT "; the wheel that ships it:"
/* An optional library the program may open: install or require it only if
 * it is used. */
#define CL_NOTE_ONLY_IF_THE_PROGRAM_USES_IT "only if the program uses it"
#define CL_NOTE_ONLY_IF_USED_REQUIRE_WITH_A_ROOT                               \
  "only if the program uses it: add --require %s=%d with a root that holds "   \
  "it"
/* A version source others can write to; a root refused for it. */
#define CL_NOTE_OWNER_WRITABLE_OR_ALLOW_WRITABLE                               \
  "make it writable only by its owner, or accept it with "                     \
  "--allow-writable-roots (CUDALOAD_ALLOW_WRITABLE_ROOTS)"
#define CL_NOTE_REFUSED_AS_WRITABLE_RUN_AGAIN                                  \
  "%s (others can write to it, so it was refused), then run again; %s"
/* A global symbol another library answers first. */
#define CL_NOTE_OPEN_THE_CONSUMER_ISOLATED                                     \
  "open that consumer with cudaload_open_isolated(ctx, consumer_path, 0), "    \
  "which loads this plan RTLD_LOCAL and then the consumer RTLD_DEEPBIND "      \
  "(Python: setup(..., isolate=True), then "                                   \
  "cudaload.isolated_open(consumer_path) or the import inside "                \
  "cudaload.isolated_import()), or have whoever opens %s use RTLD_LOCAL"
/* Two files whose names differ only in case (Windows). */
#define CL_NOTE_CASE_TWINS_DELETE_THE_OTHER                                    \
  "the plan takes the one spelt as NVIDIA ships it; delete the other"
/* A file two programs need in different copies. */
#define CL_NOTE_RUN_IN_A_PROCESS_OF_ITS_OWN                                    \
  "they cannot share one process: run the program that needs the other "       \
  "copy in a process of its own, or require what each program needs (--for)"
/* A copy already in the process, older than the plan's. */
#define CL_NOTE_BUNDLER_KEEPS_ITS_COPY                                         \
  "nothing to do if %s works with its copy; to run the planned one, call "     \
  "cudaload.setup() before importing %s"
#define CL_NOTE_LOAD_THE_PLAN_FIRST_OR_REMOVE_THE_COPY                         \
  "load the plan before whatever loads %s (call cudaload.setup() or "          \
  "cudaload_preload() first%s), or remove that copy"
#define CL_NOTE_DROP_IT_FROM_LD_PRELOAD "; drop it from LD_PRELOAD"
#define CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST                                       \
  "LD_PRELOAD puts that file first, before anything cudaload loads; or put "   \
  "the planned file there instead; %s has what is needed"
#define CL_NOTE_LOAD_THE_PLAN_FIRST_NEWER_HAS_IT                               \
  "load the plan before whatever loads it (call cudaload.setup() or "          \
  "cudaload_preload() first); %s has what is needed"
#define CL_NOTE_A_NEWER_RELEASE "a newer release"
/* A folder whose sub-libraries were preloaded by absolute path. */
#define CL_NOTE_PRELOADED_BY_ABSOLUTE_PATH                                     \
  "nothing to do for this process: what is opened from it by name was "        \
  "preloaded by absolute path instead (%s). To preload every sub-library "     \
  "up front: all_sublibs=True (Python), CUDALOAD_PRELOAD_ALL_SUBLIBS (C). "    \
  "For processes started later, shorten PATH or rename the folder"
/* Windows: the folders put first on PATH, for cmd and for PowerShell. */
#define CL_NOTE_WINDOWS_PATH_FIRST                                             \
  "set \"PATH=%s%%PATH%%\" (cmd) or $env:PATH = '%s' + $env:PATH "             \
  "(PowerShell)"
/* Environments the user made but did not activate: the words around
 * their names, the pieces chosen by how many there are. */
#define CL_NOTE_ENVIRONMENTS_NOT_ACTIVE                                        \
  " %s not active, so not searched: activate %s or pass --environment %s "     \
  "(C: cudaload_add_environment_root()); if %s the library:"
#define CL_NOTE_IS_AN_ENVIRONMENT_THAT_IS "is an environment that is"
#define CL_NOTE_ARE_ENVIRONMENTS_THAT_ARE "are environments that are"
#define CL_NOTE_ACTIVATE_IT "it"
#define CL_NOTE_ACTIVATE_THE_ONE_YOU_USE "the one you use"
#define CL_NOTE_IT_LACKS "it lacks"
#define CL_NOTE_THEY_LACK "they lack"
/* Run the program through cudaload: how the command is named (one of
 * these), then how the environment is set instead, then how Python does
 * it (the arguments setup() takes are written between these two). */
#define CL_NOTE_RUN_THROUGH_CUDALOAD_INTERPRETER                               \
  "run the program through cudaload: its interpreter, then your script and "   \
  "its arguments (python train.py ...); or "
#define CL_NOTE_RUN_THROUGH_CUDALOAD_ARGUMENTS                                 \
  "run the program through cudaload, its arguments after it; or "
#define CL_NOTE_RUN_THROUGH_CUDALOAD_FILES_NAME_NONE                           \
  "run the program through cudaload (PROGRAM: the command that starts the "    \
  "program that loads %s: the files name none); or "
#define CL_NOTE_RUN_THROUGH_CUDALOAD_MESSAGE_NAMES_NONE                        \
  "run the program through cudaload (PROGRAM: the command that printed the "   \
  "message: the message alone does not name it; doctor --for the program "     \
  "names it); or "
#define CL_NOTE_RUN_THROUGH_CUDALOAD_PROGRAM                                   \
  "run the program through cudaload (PROGRAM: the program's command); or "
#define CL_NOTE_RUN_WHAT_ENV_PRINTS_CMD "run what cudaload env --shell cmd"
#define CL_NOTE_RUN_WHAT_ENV_PRINTS_CMD_END                                    \
  " prints (PowerShell: --shell powershell) before it"
#define CL_NOTE_EVAL_ENV_POSIX "eval \"$(cudaload env"
#define CL_NOTE_EVAL_ENV_POSIX_END ")\" before it"
#define CL_NOTE_IN_PYTHON_SETUP "; in Python, cudaload.setup("
#define CL_NOTE_IN_PYTHON_SETUP_END ") before the import"
/* Installing a wheel: an interpreter with no pip, a quoted interpreter in
 * PowerShell, then the other way (variable: the words below). */
#define CL_NOTE_THIS_PYTHON_HAS_NO_PIP                                         \
  "this Python has no pip (the embeddable distribution has neither pip nor "   \
  "ensurepip): these give it one"
#define CL_NOTE_POWERSHELL_AMPERSAND "in PowerShell, put & before the command; "
#define CL_NOTE_OR_THE_VARIABLE "%sor %s"
#define CL_NOTE_PASS_SITE_PACKAGES_AS_A_ROOT                                   \
  "%sthen pass its site-packages folder as a root, or %s"
/* A wheel installed into a folder of its own, beside the one the
 * environment pins. */
#define CL_NOTE_TYPE_THE_FOLDER_AS_YOUR_SHELL_NEEDS                            \
  "(DIR: the folder %s, whose name holds a character cmd or PowerShell "       \
  "expands even in quotes (%%, !, $ or `): type it as your shell needs); "
#define CL_NOTE_NOT_A_PLAIN_PIP_INSTALL                                        \
  "not a plain pip install: %.*s already has %s %d in nvidia%c%s, which "      \
  "that would replace or mix with; then pass that folder as a root "           \
  "(--root; Python: roots=[...]), or %s"
/* The other way than installing: the folder that holds the files. */
#define CL_NOTE_PASS_THE_FOLDER_AS_A_ROOT                                      \
  "pass the folder that holds %s as a root (--root; Python: roots=[...]; %s "  \
  "is not read without the default roots)"
#define CL_NOTE_SET_THE_VARIABLE_TO_THE_FOLDER                                 \
  "set %s to the folder that holds %s"
#define CL_NOTE_THE_DLLS "the DLLs"
#define CL_NOTE_THE_LIBRARIES "the libraries"
/* Why a fix installs for the CUDA major it does (the fix's reason). */
#define CL_NOTE_CUDA_OF_THE_REQUIREMENT "%s %ld is CUDA %d's"
#define CL_NOTE_CUDA_PINNED "pinned by cuda=%d"
#define CL_NOTE_CUDA_OF_THE_PROGRAM "the program's own (%s)"
#define CL_NOTE_CUDA_OF_A_REQUIREMENT_BESIDE                                   \
  "%s, required beside it, is CUDA %d's"
#define CL_NOTE_CUDA_OF_THE_ROOTS                                              \
  "the libraries in the roots given and the active environment are CUDA "      \
  "%d's"
#define CL_NOTE_CUDA_LACKS_THE_MAJOR ", and CUDA %d has no %s %ld"
#define CL_NOTE_CUDA_THE_ONLY_BUILD "%s %ld is built for CUDA %d alone"
/* No CUDA major known: one install per CUDA major that has the library. */
#define CL_NOTE_WHICH_CUDA_MAJOR_UNSAID                                        \
  "%s%sneither the request, the program nor the error message says which "     \
  "CUDA major the program is built for: install the build for that CUDA "      \
  "major, one of:"
#define CL_NOTE_FOR_A_PROGRAM_BUILT_FOR_CUDA "for a program built for CUDA %d:"

/* --- the doctor's answers (lib/report/, lib/common/fix_steps.c) --- */

#endif
