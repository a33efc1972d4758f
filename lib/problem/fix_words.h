/* SPDX-License-Identifier: MIT */
/*
 * fix_words.h - the words of every fix note: the sentence a fix step says
 * beside (or instead of) a command, and the fix the probe's summary gives
 * after its reason. The stages choose which note a fix gets and fill its
 * facts; the words are here, so rewording a note is an edit of this file
 * alone (problem sentences are problem_words.c's).
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
/* A name opened as written found as another CUDA major's file
 * (verdict_mixes.c). */
#define CL_NOTE_OPENS_THE_NAME_AS_WRITTEN                                      \
  "%s opens %s as written, a name only a toolkit's development link has: "     \
  "the loader takes this machine's CUDA %d one"
#define CL_NOTE_THE_LINK_ITS_OWN_SEARCH_FINDS                                  \
  "a link beside it to the CUDA %d build, which its own search ($ORIGIN) "     \
  "finds first (pip does not remove it with the wheel)"
#define CL_NOTE_THEN_LINK_IT_AS_THE_NAME "then link its library as %s in %s"
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
#define CL_NOTE_LD_PRELOAD_PUTS_IT_FIRST_OR_THE_PLANNED                        \
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
/* Windows error 127 from a copy loaded first (message_problems.c). */
#define CL_NOTE_LOAD_THE_COPY_BESIDE_FIRST                                     \
  "load the %s beside it first, so that every later import of the name "       \
  "gets that copy: in Python, cudaload.setup() with %s as a root and its "     \
  "requirement, before anything imports the other"
#define CL_NOTE_OR_TAKE_THE_OLDER_COPY_AWAY                                    \
  "or keep %s out of the process: remove it, or its folder from PATH and "     \
  "from os.add_dll_directory() calls"

/* A finding with no fix of its own. */
#define CL_NOTE_EXPLAIN_SAYS_MORE "cudaload explain says more"

/* A requirement nothing satisfies and no fix line covers: the library. */
#define CL_NOTE_ADD_FOLDER_THAT_HOLDS_IT                                       \
  "add the folder that holds %s with --root or in the manifest's roots"

/* After `cudaload inspect FILE` of a file that failed to load: the
 * variable cudaload searches. */
#define CL_NOTE_INSPECT_THEN_PUT_MISSING_BESIDE                                \
  "it lists what the file needs; put the missing libraries beside it or on %s"

/* No NVIDIA driver, by host. */
#define CL_NOTE_INSTALL_DRIVER_WINDOWS                                         \
  "install the NVIDIA driver (https://www.nvidia.com/drivers), then check "    \
  "with nvidia-smi"
#define CL_NOTE_INSTALL_DRIVER_LINUX                                           \
  "install the NVIDIA driver (Ubuntu: sudo ubuntu-drivers install; others: "   \
  "https://www.nvidia.com/drivers), then check with nvidia-smi"

/* A driver branch older than the plan's CUDA major runs on: the oldest
 * branch that does, the CUDA major below. */
#define CL_NOTE_UPDATE_DRIVER_TO_BRANCH                                        \
  "update the NVIDIA driver to %ld or newer, or use CUDA %d builds of the "    \
  "libraries"

/* The probe's failure, by its reason (CUDALOAD_REASON_*). */
#define CL_NOTE_PROBE_DRIVER_BROKEN                                            \
  "reinstall the NVIDIA driver: its libcuda lacks entry points"
#define CL_NOTE_PROBE_INIT_FAILED                                              \
  "run nvidia-smi; if it fails too, reload the driver (reboot after a "        \
  "driver update)"
#define CL_NOTE_PROBE_NO_DEVICE                                                \
  "make a GPU visible: check nvidia-smi and CUDA_VISIBLE_DEVICES; in a "       \
  "container, run it with --gpus all"
#define CL_NOTE_PROBE_DRIVER_TOO_OLD                                           \
  "update the NVIDIA driver to one that supports the planned CUDA runtime, "   \
  "or require an older CUDA major"
#define CL_NOTE_PROBE_DEVICE_FAILED                                            \
  "check nvidia-smi for errors and for GPU memory used up by other processes"
#define CL_NOTE_PROBE_MISSING_LIBRARY                                          \
  "add the missing library: see the fix lines of the requirements"
#define CL_NOTE_PROBE_LIBRARY_FAILED                                           \
  "reinstall the library that failed as one release of the CUDA major of "     \
  "the runtime and driver: cuBLAS and cuBLASLt together, cuDNN with its "      \
  "sub-libraries (pip install --force-reinstall of one CUDA major's wheels, "  \
  "or the toolkit's package)"
#define CL_NOTE_PROBE_WRONG_RESULT                                             \
  "check nvidia-smi -q for ECC errors and update the NVIDIA driver"
#define CL_NOTE_PROBE_TIMEOUT                                                  \
  "the driver hung: run nvidia-smi; a reboot usually clears it"
#define CL_NOTE_PROBE_CRASHED                                                  \
  "update the NVIDIA driver; run cudaload doctor --probe in-process under a "  \
  "debugger to see where it crashes"
#define CL_NOTE_PROBE_SEE_ITS_STAGES "see the probe's stages above"

/* The probe's own summary (probe/probe_result.c): the fix after "; ", by
 * its reason (CUDALOAD_REASON_*; the driver's name follows the first). */
#define CL_NOTE_PROBE_SUMMARY_NO_DRIVER                                        \
  "install the NVIDIA driver, or point CUDALOAD_DRIVER (cudaload probe "       \
  "--driver) at its "
#define CL_NOTE_PROBE_SUMMARY_DRIVER_BROKEN                                    \
  "reinstall the NVIDIA driver (its user-space library does not match what "   \
  "CUDA expects)"
#define CL_NOTE_PROBE_SUMMARY_INIT_FAILED                                      \
  "check the driver's state with nvidia-smi and the kernel log (dmesg), then " \
  "reboot or reload the driver"
#define CL_NOTE_PROBE_SUMMARY_NO_DEVICE                                        \
  "check CUDA_VISIBLE_DEVICES, and that the GPU is passed into this "          \
  "container or VM (nvidia-smi lists it)"
#define CL_NOTE_PROBE_SUMMARY_DRIVER_TOO_OLD                                   \
  "update the NVIDIA driver, or use CUDA libraries of the CUDA major the "     \
  "driver supports"
#define CL_NOTE_PROBE_SUMMARY_DEVICE_FAILED                                    \
  "check nvidia-smi for memory in use, an exclusive compute mode or Xid "      \
  "errors"
#define CL_NOTE_PROBE_SUMMARY_LIBRARY_FAILED                                   \
  "check that cuBLAS and cuDNN were built for the CUDA major of the runtime "  \
  "and that the driver supports it (cudaload doctor)"
#define CL_NOTE_PROBE_SUMMARY_WRONG_RESULT                                     \
  "the GPU or its libraries are faulty: check nvidia-smi -q for ECC errors, "  \
  "and the cuBLAS build"
#define CL_NOTE_PROBE_SUMMARY_TIMEOUT                                          \
  "a hung driver or GPU: check nvidia-smi and the kernel log (dmesg)"
#define CL_NOTE_PROBE_SUMMARY_CRASHED                                          \
  "the driver or a CUDA library crashed: check nvidia-smi, the kernel log "    \
  "(dmesg) and the libraries' versions (cudaload doctor)"

/* After `apt-get install zlib1g`: the other distributions' command. */
#define CL_NOTE_ZLIB_ON_OTHER_DISTRIBUTIONS                                    \
  "Fedora/RHEL: dnf install zlib; Alpine: apk add zlib"

/* Windows, what fails only without cudaload: one note in three parts, then
 * the exec line. First setup()'s arguments (require=[...], roots=[...])
 * and the module imported, when known; */
#define CL_NOTE_SETUP_BEFORE_IMPORT_OF                                         \
  "in Python, cudaload.setup(%s) before import %s"
#define CL_NOTE_SETUP_BEFORE_THE_IMPORT                                        \
  "in Python, cudaload.setup(%s) before the import"
/* then the PATH value with the plan's folders first, */
#define CL_NOTE_OR_PUT_FOLDERS_FIRST_ON_PATH                                   \
  "; or, for any program, put the folders first on PATH before it starts "     \
  "(LoadLibrary by name searches PATH; os.add_dll_directory does not reach "   \
  "it): %s"
/* then what precedes the exec line. */
#define CL_NOTE_OR_RUN_THROUGH_CUDALOAD "; or run the program through cudaload:"

/* A package function that loads by path what is not found (onnxruntime's
 * preload_dlls()): the call, the files it loads, the names it does not. */
#define CL_NOTE_PRELOAD_CALL_NOT_ENOUGH                                        \
  "calling %s in the program before it needs them is not enough: it loads "    \
  "%s by path, but not %s"
#define CL_NOTE_OR_CALL_PRELOAD_FUNCTION                                       \
  "or call %s in the program before it needs them: it loads %s by path"

/* A sub-library without its main library: family, major, the folder (or
 * CL_NOTE_ITS_FOLDER), the stray file. */
#define CL_NOTE_REINSTALL_WHOLE_OR_DELETE_STRAY                                \
  "reinstall %s %d completely into %s, or delete the stray %s"
#define CL_NOTE_ITS_FOLDER "its folder"

/* An environment's record of roots (cudaload.roots) that cannot be used,
 * or a folder it names: the record. */
#define CL_NOTE_CORRECT_ROOTS_RECORD                                           \
  "correct %s (one absolute folder per line; # starts a comment) or remove "   \
  "it, then run cudaload fix again"
#define CL_NOTE_REMOVE_RECORDED_ROOT_LINE                                      \
  "remove the line that names it from %s, or run cudaload fix again to "       \
  "install it anew"

/* A root refused as writable by others: the scan's fix (or the one below),
 * then the other way out with its risk (CL_ALLOW_WRITABLE_RISK, the scan's
 * words, scan/inventory.h). */
#define CL_NOTE_ROOT_FIX_THEN_RISK "%s, %s"
#define CL_NOTE_MAKE_WRITABLE_ONLY_BY_OWNER "make it writable only by its owner"

/* A root given that cannot be searched: a file (the folder that holds
 * it), or a folder not found (or unreadable, CL_NOTE_OR_MAKE_IT_READABLE). */
#define CL_NOTE_ROOT_IS_A_FOLDER                                               \
  "a root is a folder: give the one that holds that file, --root \"%s\" "      \
  "(Python: roots=[...]; or in the manifest's roots)"
#define CL_NOTE_CORRECT_ROOT_FOLDER                                            \
  "correct the folder given with --root or in the manifest's roots%s"
#define CL_NOTE_OR_MAKE_IT_READABLE ", or make it readable"

/* --error: the driver's library named by a program that does not see it;
 * the unversioned name adds CL_NOTE_UNVERSIONED_LIBCUDA_NEEDS_LINK. */
#define CL_NOTE_RUN_WHERE_DRIVER_IS_VISIBLE                                    \
  "run the program where the driver is visible (a container: --gpus all "      \
  "with the NVIDIA container toolkit; WSL: /usr/lib/wsl/lib on "               \
  "LD_LIBRARY_PATH) and check with nvidia-smi%s"
#define CL_NOTE_UNVERSIONED_LIBCUDA_NEEDS_LINK                                 \
  "; a program that opens the unversioned libcuda.so needs the link "          \
  "libcuda.so -> libcuda.so.1 of the driver's development files"

/* --error: cuDNN 8 for Windows needs zlibwapi.dll and does not ship it. */
#define CL_NOTE_PUT_ZLIBWAPI_BESIDE_CUDNN8                                     \
  "put an x64 zlibwapi.dll beside cudnn64_8.dll or in a folder on PATH, or "   \
  "use cuDNN 9, which does not need it"

/* --error: after `cudaload explain FILE` of a library the catalogue does
 * not know; CL_NOTE_FILE_STANDS_FOR_ITS_PATH first where the message gave
 * no path. */
#define CL_NOTE_EXPLAIN_LISTS_WHAT_IS_MISSING                                  \
  "%sit lists each library the file needs, where the loader would find it "    \
  "and what is missing"
#define CL_NOTE_FILE_STANDS_FOR_ITS_PATH "FILE: the path of that file; "

/* --error: a library a file here needs that this process does not find. */
#define CL_NOTE_PUT_NEEDED_BESIDE_OR_EXEC                                      \
  "put the library it needs beside it, or run the program through cudaload "   \
  "with that library required (cudaload exec --require ...)"

/* --error: a path the program names, with no file where a copy here would
 * do: where a link cannot stand in (the copy, its folder, the path's
 * folder), */
#define CL_NOTE_PATH_IS_THE_PROGRAMS_OWN                                       \
  "the path is the program's own (its configuration, a plugin's search "       \
  "list, a path it was built with): "
#define CL_NOTE_SET_PATH_OR_PUT_LIBRARIES_THERE                                \
  CL_NOTE_PATH_IS_THE_PROGRAMS_OWN                                             \
  "set the program's setting that names it to %s, or put the libraries of "    \
  "%s in %s (a link to one file is not enough: a library looks for its "       \
  "companions beside the path it was opened by)"
/* after `ln -s` of the copy's folder: the copy, the folder, the copy; */
#define CL_NOTE_LINKED_FOLDER_HOLDS_COMPANIONS                                 \
  "the program then finds %s's folder, its companions with it, at %s; or "     \
  "set the program's setting that names the path to %s"
/* with no copy here (or a relative path): with a copy, its path. */
#define CL_NOTE_PUT_LIBRARY_AT_THE_PATH                                        \
  CL_NOTE_PATH_IS_THE_PROGRAMS_OWN                                             \
  "put the library at that path, or set the program's setting that names it"
#define CL_NOTE_PUT_LINK_AT_THE_PATH                                           \
  CL_NOTE_PATH_IS_THE_PROGRAMS_OWN                                             \
  "put the library at that path (a link to %s), or set the program's "         \
  "setting that names it"

/* --error: after `cudaload explain FILE` of a file this process loads
 * whole. */
#define CL_NOTE_PROGRAMS_ENVIRONMENT_DIFFERS                                   \
  "the file is here and every library it needs is found by this process as "   \
  "it is: the program's own environment differs (another LD_LIBRARY_PATH or "  \
  "PATH, a container)"

/* --error: a file here the program cannot read. */
#define CL_NOTE_GIVE_READ_ACCESS                                               \
  "give the program's user read access to %s (its folders too)"

/* --error: after the step that drops an LD_LIBRARY_PATH entry: the
 * folder. */
#define CL_NOTE_DROPS_FOLDER_WITH_OLD_COPY "drops %s, which holds the old copy"

/* --error, a symbol missing: what precedes the exec line when a copy here
 * has it (that copy); */
#define CL_NOTE_OR_LOAD_COPY_THAT_HAS_IT                                       \
  "or have cudaload load %s, which has it, before anything else:"
/* no copy of it here (the version node, the requirement or
 * CL_NOTE_ITS_LIBRARY, the release or CL_NOTE_THE_RELEASE_BUILT_WITH); */
#define CL_NOTE_NO_COPY_OF_IT_HERE                                             \
  "no copy of %s is here: the problem of %s says what to install, a release "  \
  "of %s or newer"
#define CL_NOTE_ITS_LIBRARY "its library"
#define CL_NOTE_THE_RELEASE_BUILT_WITH "the one the program was built with"
/* the library unknown. */
#define CL_NOTE_INSTALL_ONE_RELEASE_THAT_DEFINES_IT                            \
  "install one release of the library that defines it, as a whole, where "     \
  "the program loads it from (cudaload explain FILE names the file it takes)"

/* --error, Windows error 127: after `cudaload explain --pid PID`. */
#define CL_NOTE_EXPLAIN_PID_NAMES_COPIES                                       \
  "PID: the running program's; it names the copies the process has and "       \
  "which one lacks what; load one release of each library (cudaload.setup() "  \
  "before the import loads the plan's first)"

/* --error, a release older or newer than the program's: a copy here new
 * enough (its path, version, the release wanted), before the exec line; */
#define CL_NOTE_COPY_HERE_IS_NEW_ENOUGH                                        \
  "%s (%s) is at least %s: have cudaload load it before anything else:"
/* none here (the family or CL_NOTE_A_COPY, the requirement, the release or
 * CL_NOTE_THE_RELEASE_BUILT_WITH); */
#define CL_NOTE_NO_RELEASE_HERE                                                \
  "no %s is here: the problem of %s says what to install, a release of %s "    \
  "or newer"
#define CL_NOTE_A_COPY "copy"
/* newer than supported, after the install: the family; */
#define CL_NOTE_OR_BUILD_FOR_INSTALLED_RELEASE                                 \
  "or a build of the program made for the %s release installed"
/* the family unknown. */
#define CL_NOTE_INSTALL_RELEASE_BUILT_WITH                                     \
  "install the release the program was built with, or a build of the "         \
  "program for the one installed"

/* --error, the driver too old: the driver's version and what it supports
 * (major, minor, then the major three times), or nothing known of it. */
#define CL_NOTE_DRIVER_SUPPORTS_UP_TO                                          \
  "this driver (%s) supports CUDA up to %d.%d: update it "                     \
  "(https://www.nvidia.com/drivers), or use the program's build for CUDA %d "  \
  "(pip: its CUDA %d wheels; cudaload plans for it with cuda=%d)"
#define CL_NOTE_UPDATE_DRIVER_OR_OLDER_BUILD                                   \
  "update the NVIDIA driver (https://www.nvidia.com/drivers), or use the "     \
  "program's build for the CUDA major the driver supports"

/* --error, cuBLAS not initialized: after `cudaload doctor --probe`; the
 * probe's answer when it ran. */
#define CL_NOTE_PROBE_NAMES_CUBLAS_CAUSE                                       \
  "it creates a cuBLAS handle as the program does and names the cause"
#define CL_NOTE_CUBLAS_WORKS_HERE_FREE_MEMORY                                  \
  "the probe created a cuBLAS handle here, so the program's own use of the "   \
  "GPU is the likely cause: free GPU memory (nvidia-smi lists the processes "  \
  "holding it) or lower its batch size"
#define CL_NOTE_PROBE_FELL_BACK_TO_CPU                                         \
  "the probe fell back to CPU: its problem below names the cause"

/* --error, no kernel image for this GPU: the GPU (CL_NOTE_THIS_GPU_IS, its
 * name and compute capability, or CL_NOTE_THE_PROBE_SHOWS_THE_GPU). */
#define CL_NOTE_INSTALL_BUILD_FOR_THIS_GPU                                     \
  "install a build of the program made for this GPU's compute "                \
  "capability%s; PyTorch: torch.cuda.get_arch_list() lists the "               \
  "architectures a build has, and a newer GPU needs a build for a newer CUDA"
#define CL_NOTE_THIS_GPU_IS " (%.200s: compute %d.%d)"
#define CL_NOTE_THE_PROBE_SHOWS_THE_GPU " (cudaload doctor --probe shows it)"

/* --error, a CPU build: onnxruntime over onnxruntime-gpu (after the
 * uninstall; or, the pair not found here, in words), torch, any other. */
#define CL_NOTE_ONNXRUNTIME_LIES_OVER_GPU_BUILD                                \
  "onnxruntime and onnxruntime-gpu install the same files, and "               \
  "onnxruntime's lie over onnxruntime-gpu's here"
#define CL_NOTE_ONNXRUNTIME_GPU_ALONE                                          \
  "onnxruntime and onnxruntime-gpu install the same files: uninstall both, "   \
  "then install onnxruntime-gpu alone (pip uninstall -y onnxruntime "          \
  "onnxruntime-gpu, then pip install onnxruntime-gpu)"
#define CL_NOTE_INSTALL_CUDA_BUILD_OF_TORCH                                    \
  "install a CUDA build of torch (pip install torch --index-url "              \
  "https://download.pytorch.org/whl/cu128, for the CUDA major the driver "     \
  "supports)"
#define CL_NOTE_INSTALL_PROGRAMS_CUDA_BUILD "install the program's CUDA build"

/* --error, a package's pin not met. */
#define CL_NOTE_INSTALL_PIN_OR_KEEP_OTHER_APART                                \
  "install the version it pins into its own environment, or keep the other "   \
  "version in a folder of its own (pip install --no-deps --target DIR ...) "   \
  "and give that folder as a root"

/* The devices (runtime_problems.c): after an nvidia-smi step, */
#define CL_NOTE_AS_ROOT_OR_ADMINISTRATOR "as root or administrator"
#define CL_NOTE_AS_ADMINISTRATOR_THEN_REBOOT "as administrator, then reboot"
/* Windows' watchdog (TDR): before `nvidia-smi -dm 1`, then last (the
 * registry key under HKLM); */
#define CL_NOTE_SPLIT_WORK_OR_SWITCH_TO_TCC                                    \
  "split the work into shorter kernels (shorter sequences, chunked prefill, "  \
  "smaller batches); on data-centre and workstation GPUs, switch the device "  \
  "to TCC:"
#define CL_NOTE_RAISE_TDR_DELAY_LAST_RESORT                                    \
  "only as a last resort raise TdrDelay under HKLM\\%s (a system-wide "        \
  "registry change that needs a reboot)"
/* the X driver's watchdog: before `nvidia-smi -L`, before the text-mode
 * command, then last (the device's UUID); */
#define CL_NOTE_RUN_ON_GPU_WITHOUT_DISPLAY                                     \
  "run the work on a GPU that drives no display (CUDA_VISIBLE_DEVICES "        \
  "naming it by index or UUID, as this lists them):"
#define CL_NOTE_OR_STOP_DISPLAY_SERVER                                         \
  "or stop the display server while it runs:"
#define CL_NOTE_OR_TURN_OFF_X_WATCHDOG                                         \
  "or turn the X driver's watchdog off for %s: Option \"Interactive\" \"0\" "  \
  "in its Device section of xorg.conf, then restart X"
/* a compute mode that keeps processes off: before `nvidia-smi -c DEFAULT`; */
#define CL_NOTE_SET_DEFAULT_COMPUTE_MODE "set the default compute mode:"
#define CL_NOTE_STOP_OTHER_PROCESS_OR_DEFAULT_MODE                             \
  "stop the other process (nvidia-smi lists it), or set the default compute "  \
  "mode:"
/* little free memory: after `nvidia-smi`, after PYTORCH_CUDA_ALLOC_CONF. */
#define CL_NOTE_NVIDIA_SMI_SHOWS_MEMORY_HOLDERS                                \
  "it shows which processes hold GPU memory: stop them, or make this one "     \
  "ask for less (a smaller model or batch)"
#define CL_NOTE_PYTORCH_AGAINST_FRAGMENTATION                                  \
  "with PyTorch, against fragmentation"

/* The CUDA variables: CUDA_VISIBLE_DEVICES hiding every device (after its
 * unset, before `nvidia-smi -L`, after setting it to 0), */
#define CL_NOTE_OR_LIST_DEVICES_TO_USE                                         \
  "or list the devices to use by index or UUID, as this shows them:"
#define CL_NOTE_FOR_EXAMPLE_THE_FIRST "for example, the first"
/* CUDA_LAUNCH_BLOCKING on (after its unset). */
#define CL_NOTE_UNSET_OUTSIDE_DEBUGGING                                        \
  "outside debugging (it is for finding which launch failed, not for "         \
  "production)"

#endif
