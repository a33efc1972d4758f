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
 * before problem/, and both sides of the OS seam name them too.
 * tests/check_architecture.py (rule 14) fails a sentence of its own in any
 * folder of lib/ outside the files it allows.
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
#define CL_WORDS_BINDS_IT_BUT_THE_PLANNED_FILE_IS_USED                         \
  "%s binds it through its own search list, but %s; the planned file, "        \
  "loaded first, is used in its place"

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
#define CL_WORDS_OPENED_LAZILY_BY_NEEDS_VERSION                                \
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

/* --- load/env_child.c --- */
#define CL_WORDS_HOLDS_CUDA_LIBRARIES_AND_THE                                  \
  "%s=%s holds CUDA %d libraries (%s) and the plan is for CUDA %d: the "       \
  "started program goes without %s, so that a program that searches it "       \
  "itself (CuPy, Numba) takes the plan's files, not those"

/* --- load/env_warnings.c --- */
#define CL_WORDS_KEEPS_FIRST_IN_THE_STARTED                                    \
  "%s; %s keeps %s first in the started program (it inherits the "             \
  "variable); fix: drop that entry from %s%s%s%s"
#define CL_WORDS_AND_LET_CUDALOAD_PLAN ", and let cudaload plan "
#define CL_WORDS_CUDALOAD_EXEC_DROP_STALE_PRELOAD                              \
  " (cudaload exec --drop-stale-preload drops it for the started program)"
#define CL_WORDS_WOULD_TAKE_INSTEAD_OF_THE                                     \
  "%s would take %s%s%s instead of the planned %s"
#define CL_WORDS_THE_STARTED_PROGRAM_S_LD                                      \
  "the started program's LD_PRELOAD leaves out %s: a library it needs "        \
  "would take that copy, which lacks what it binds (said above without the "   \
  "flag); this shell's LD_PRELOAD is unchanged"
#define CL_WORDS_THE_STARTED_PROGRAM_GETS_LD                                   \
  "the started program gets LD_PRELOAD=%s%s%s: %s, which LD_LIBRARY_PATH "     \
  "cannot change (a DT_RPATH or a copy already loaded comes first); a file "   \
  "loaded first answers its name (docs/loader.md, Linux 2)"
#define CL_WORDS_A_CONSUMER_WOULD_TAKE_ANOTHER                                 \
  "a consumer would take another copy"

/* --- load/error_meaning.c --- */
#define CL_WORDS_IS_S_NAME_WITHOUT_A                                           \
  "%s is %s's name without a version (the development link a toolkit or a "    \
  "-dev package installs beside %s)"
#define CL_WORDS_IS_NOT_A_CUDA_LIBRARY "%s is not a CUDA library cudaload knows"
#define CL_WORDS_IS_THE_NVIDIA_DRIVER_S                                        \
  "%s is the NVIDIA driver's library%s: the driver is not installed, or "      \
  "the program cannot see it (a container started without the GPU, or WSL "    \
  "without /usr/lib/wsl/lib on the search path)"
#define CL_WORDS_THE_UNVERSIONED_NAME_WHICH_ONLY                               \
  " (the unversioned name, which only the driver's files provide)"
#define CL_WORDS_NEEDS_WHICH_THE_LOADER_FOUND                                  \
  "%s needs %s, which the loader found in none of the folders it searches; "   \
  "%s"
#define CL_WORDS_THE_PROGRAM_OPENED_IT_BY                                      \
  "%s; the program opened it by its path, %s, so the loader looked nowhere "   \
  "else: no file (or none it can read) is at that path"
#define CL_WORDS_THE_PROGRAM_OPENED_IT_BY_A                                    \
  "%s; the program opened it by a relative path, %s, which the loader "        \
  "takes from the program's working folder and nowhere else: no file (or "     \
  "none it can read) is there"
#define CL_WORDS_THE_PROGRAM_TRIED_EACH_OF                                     \
  "%s: the program tried each of %s by name, and the loader found none in "    \
  "the folders it searches"
#define CL_WORDS_THE_PROGRAM_ASKED_THE_LOADER                                  \
  "%s: the program asked the loader for it by name and the loader found it "   \
  "in none of the folders it searches"
#define CL_WORDS_WAS_FOUND_BUT_A_LIBRARY                                       \
  "%s%s was found, but a library it imports lacks a function it needs "        \
  "(Windows error 127, a procedure not found): another version of that "       \
  "library was loaded first, from a folder earlier on the search path or "     \
  "already in the process"
#define CL_WORDS_A_DLL_OF_THE_PROGRAM "a DLL of the program"
#define CL_WORDS_OR_ONE_IT_IMPORTS " (or one it imports)"
#define CL_WORDS_NEEDS_FROM_WHICH_THE_COPY                                     \
  "%s needs %s%s%s%s from %s, which the copy of %s the loader took does "      \
  "not define: that copy is older than %s needs%s%s%s"
#define CL_WORDS_NEEDS_THE_SYMBOL_WHICH_NO                                     \
  "%s needs the symbol %s, which no library loaded defines%s%s%s"
#define CL_WORDS_CUBLAS_COULD_NOT_CREATE_ITS                                   \
  "cuBLAS could not create its handle (cublasCreate): most often the GPU "     \
  "has too little free memory, there is no usable GPU or driver, or the "      \
  "driver is older than this cuBLAS needs"
#define CL_WORDS_THE_PROGRAM_S_CUDA_RUNTIME                                    \
  "the program's CUDA runtime (cudart) is newer than the installed NVIDIA "    \
  "driver supports%s%s%s"
#define CL_WORDS_THE_DRIVER_SUPPORTS_CUDA_UP_TO                                \
  " (the driver supports CUDA up to "
#define CL_WORDS_THE_PROGRAM_S_GPU_CODE                                        \
  "the program's GPU code was not built for this GPU: its compute "            \
  "capability is not among the architectures the program (or its "             \
  "framework) was compiled for. Not a loading problem: the libraries loaded"
#define CL_WORDS_THE_CUDA_RUNTIME_FOUND_NO                                     \
  "the CUDA runtime found no CUDA-capable device: no GPU, "                    \
  "CUDA_VISIBLE_DEVICES hiding every one, or a driver that does not see it"
#define CL_WORDS_NO_NVIDIA_DRIVER_IS_VISIBLE                                   \
  "no NVIDIA driver is visible to the program: the driver is not "             \
  "installed, or the program runs where it cannot see it (a container "        \
  "started without the GPU, WSL without /usr/lib/wsl/lib)"
#define CL_WORDS_THE_INSTALLED_HAS_NO_CUDA                                     \
  "the installed %s has no CUDA support: a build for the CPU only (for "       \
  "onnxruntime, the onnxruntime package instead of onnxruntime-gpu, or "       \
  "both installed with the CPU one last; for torch, a wheel from the CPU "     \
  "index)"
#define CL_WORDS_THE_PROGRAM_WAS_BUILT_AGAINST                                 \
  "the program was built against %s %s, but the %s it loaded is %s: %s"
#define CL_WORDS_AN_OLDER_COPY_WAS_FOUND                                       \
  "an older copy was found first (another one on the search path, such as "    \
  "LD_LIBRARY_PATH or PATH, or one already loaded)"
#define CL_WORDS_A_COPY_OF_ANOTHER_RELEASE                                     \
  "a copy of another release than it was built for was found first"
#define CL_WORDS_PINS_BUT_PIP_INSTALLED_THE                                    \
  "%s%s%s pins %s %s, but pip installed %s %s: the %s libraries are of "       \
  "another release than the program was built and tested with"
#define CL_WORDS_REQUIRES_WHICH_IS_NOT_INSTALLED                               \
  "%s%s%s requires %s %s, which is not installed"
#define CL_WORDS_THE_PROGRAM_COULD_NOT_LOAD                                    \
  "the program could not load %s%s%s%s%s: %s"
#define CL_WORDS_NONE_WAS_FOUND_WHERE_IT                                       \
  "none was found where it looks, or the one found could not be loaded"
#define CL_WORDS_IT_OR_A_LIBRARY_IT "it, or a library it needs, is missing"
#define CL_WORDS_A_LIBRARY_OF_THE_PROGRAM                                      \
  "a library of the program could not be loaded%s%s"
#define CL_WORDS_THE_TEXT_DOES_NOT_SAY " (the text does not say which)"
#define CL_WORDS_ZLIBWAPI_DLL_IS_THE_ZLIB                                      \
  "zlibwapi.dll is the ZLIB DLL that cuDNN 8 for Windows needs and does "      \
  "not ship: put a zlibwapi.dll beside cudnn64_8.dll or in a folder on PATH"
#define CL_WORDS_COULD_NOT_BE_LOADED_THE                                       \
  "%s could not be loaded: the file is missing, or a library it needs is "     \
  "(Windows and some frameworks do not say which); %s"

/* --- load/error_message.c --- */
#define CL_WORDS_BYTES_IN_THE_MIDDLE_LEFT ", %zu bytes in the middle left out"
#define CL_WORDS_THE_ERROR_MESSAGE_SAYS_CUDA                                   \
  "the error message says CUDA %d: \"%.120s\""

/* --- load/load_failure.c --- */
#define CL_WORDS_IS_BUILT_FOR_AND_THIS                                         \
  "%s is built for %s, and this process runs %s code"
#define CL_WORDS_IS_FOUND_ONLY_AS "is found only as %s, %s"
#define CL_WORDS_WHICH_THE_LOADER_REFUSES "which the loader refuses"
#define CL_WORDS_IS_IN_NONE_OF_THE                                             \
  "is in none of the folders the loader searches"
#define CL_WORDS_NOT_A_VALID_WIN32_APPLICATION                                 \
  "not a valid Win32 application for this process: it"

/* --- load/preload.c --- */
#define CL_WORDS_PLAN_FILE_BY_FILE "plan, file by file:\n"
#define CL_WORDS_NOTHING_WAS_LOADED_AND_A                                      \
  "nothing was loaded: %s, and a preload is all or nothing "                   \
  "(CUDALOAD_PRELOAD_PARTIAL loads what it can)\n"
#define CL_WORDS_A_REQUIREMENT_IS_UNSATISFIED "a requirement is unsatisfied"
#define CL_WORDS_A_CONFLICT_IS_KNOWN_BEFORE "a conflict is known before loading"
#define CL_WORDS_NOTHING_WAS_LOADED_AND_A_PRELOAD                              \
  "nothing was loaded: %s, and a preload is all or nothing "                   \
  "(CUDALOAD_PRELOAD_PARTIAL loads what it can)\n%s"
#define CL_WORDS_THE_PROCESS_ALREADY_HAS_A                                     \
  "the process already has a copy that would be used instead of a planned "    \
  "file, and it would not do"
#define CL_WORDS_THE_LOADER_WOULD_REFUSE_THE                                   \
  "the loader would refuse the plan in this process"
#define CL_WORDS_OF_THE_PLANNED_FILES_COULD                                    \
  "%zu of the planned files could not be loaded:\n%s"
#define CL_WORDS_ALSO_PLANNED_FILES_COULD_NOT                                  \
  "also, %zu planned files could not be loaded:\n%s"
#define CL_WORDS_NOTHING_WAS_LOADED "  (nothing was loaded)\n"

/* --- scan/distinfo.c --- */
#define CL_WORDS_ITS_RECORD_S_SIZE_MATCHES "its RECORD's size matches the file"

/* --- scan/import_path.h: where a folder of Python's path came from --- */
#define CL_IMPORT_VENV_SITE "the venv's site-packages"
#define CL_IMPORT_BASE_SITE                                                    \
  "the base interpreter's site-packages (the venv's pyvenv.cfg says "          \
  "include-system-site-packages = true)"
#define CL_IMPORT_USER_SITE "the user site"
#define CL_IMPORT_PTH_FILE "the interpreter's ._pth file"
#define CL_IMPORT_GIVEN "an environment folder given"

/* --- scan/include_dir.c --- */
#define CL_WORDS_IS_WRITABLE_BY_OTHER_USERS "%s is writable by other users"

/* --- scan/inventory.c --- */
#define CL_WORDS_WRITABLE_BY_OTHER_USERS "writable by other users"
#define CL_WORDS_IS_REACHED_THROUGH " is reached through"

/* --- scan/inventory.h --- */
/* What follows a refusal's fix command in every fix line: the other way
 * out, with its risk said. */
#define CL_ALLOW_WRITABLE_RISK                                                 \
  "or, accepting that whoever can write there can run their own code in "      \
  "this process, --allow-writable-roots (Python: "                             \
  "allow_writable_roots=True; C: CUDALOAD_ALLOW_WRITABLE_ROOTS)"

/* --- scan/recorded_roots.c --- */
#define CL_WORDS_CUDALOAD_ROOTS_FOLDERS_CUDALOAD_SEARCHES                      \
  "# cudaload.roots: folders cudaload searches as part of this "               \
  "environment,\n# one absolute folder per line (docs/scan-contract.md, "      \
  "\"Recorded roots\").\n# cudaload fix adds the folders it installs "         \
  "beside the environment.\n"
#define CL_WORDS_IT_HOLDS_A_NUL_BYTE "it holds a NUL byte"
#define CL_WORDS_IT_HOLDS_A_CARRIAGE_RETURN                                    \
  "it holds a carriage return that does not end it"
#define CL_WORDS_IT_IS_LONGER_THAN_A "it is longer than a folder's path can be"
#define CL_WORDS_BLANKS_BEFORE_OR_AFTER_THE                                    \
  "blanks before or after the folder (a folder per line, as it is spelled)"
#define CL_WORDS_IT_IS_NOT_AN_ABSOLUTE "it is not an absolute folder"
#define CL_WORDS_IT_IS_NOT_A_REGULAR "it is not a regular file"
#define CL_WORDS_WHOEVER_CAN_CHANGE_IT_CHOOSES                                 \
  "%s (whoever can change it chooses folders this environment loads from)"
#define CL_WORDS_OUT_OF_MEMORY "out of memory"
#define CL_WORDS_IT_CANNOT_BE_READ "it cannot be read"
#define CL_WORDS_IT_IS_LONGER_THAN_65536                                       \
  "it is longer than 65536 bytes, more than a record of folders is"

/* --- scan/roots.h: origins of folders --- */
/* Folders near the current one (a venv or conda environment there). */
#define CL_ORIGIN_NEARBY "near the current folder"
/* A folder the loader searches for a program's own needs (its RUNPATH,
 * $ORIGIN, LD_LIBRARY_PATH): the system tier, searched last. */
#define CL_ORIGIN_PROGRAM "the program's own search"

/* --- scan/version_sources.c --- */
#define CL_WORDS_A_VERSION_SOURCE_COULD_NOT                                    \
  "a version source could not be checked (out of memory), so it was passed "   \
  "over"

/* --- scan/driver_version.c --- */
#define CL_WORDS_DOES_NOT_RESOLVE "%s: does not resolve"
#define CL_WORDS_NO_NVIDIA_DRIVER_VERSION_IN                                   \
  "%s: no NVIDIA driver version in its VERSIONINFO"
#define CL_WORDS_ITS_FILE_NAMES_NO_DRIVER                                      \
  "%s: its file %s names no driver version"
#define CL_WORDS_NOT_READABLE_NO_KERNEL_MODULE                                 \
  "%s: not readable (no kernel module loaded?)"
#define CL_WORDS_NO_NVRM_VERSION_LINE "%s: no NVRM version line"
#define CL_WORDS_WSL_DRIVER_STORE "WSL driver store"
#define CL_WORDS_NOT_THERE_NOT_WSL "%s: not there (not WSL)"
#define CL_WORDS_NO_FOLDER_WITH_NVCUDA64_DLL "%s: no folder with nvcuda64.dll"
#define CL_WORDS_THE_TOOLKIT_S_LINK_TIME                                       \
  "%s: the toolkit's link-time stub, not a driver"
#define CL_WORDS_NOT_AN_ABSOLUTE_PATH "%s: not an absolute path"

/* --- report/doctor_facts.c --- */
#define CL_WORDS_A_SECOND_CUDA_MAJOR_NAMED                                     \
  ": a second CUDA major, named by the requirement"
#define CL_WORDS_A_SECOND_CUDA_MAJOR_THE                                       \
  ": a second CUDA major, the only one that satisfies the requirement"

/* --- loader/file_verdict.c --- */
#define CL_WORDS_A_FOLDER_CANNOT_READ_FILE                                     \
  "a folder: \"cannot read file data\", the load fails"
#define CL_WORDS_NOT_A_REGULAR_FILE_THE                                        \
  "not a regular file (the loader's open would block or read nothing): the "   \
  "load fails"
#define CL_WORDS_CANNOT_BE_OPENED_THE_LOADER                                   \
  "cannot be opened (the loader goes on)"
#define CL_WORDS_CANNOT_READ_FILE_DATA_THE                                     \
  "\"cannot read file data\": the load fails"
#define CL_WORDS_FILE_TOO_SHORT_THE_LOAD "\"file too short\": the load fails"
#define CL_WORDS_INVALID_ELF_HEADER_THE_LOAD                                   \
  "\"invalid ELF header\": the load fails"
#define CL_WORDS_OTHER_ELF_CLASS_ELFCLASS_PASSED                               \
  "other ELF class (ELFCLASS%s): passed over"
#define CL_WORDS_ELF_FILE_DATA_ENCODING_NOT                                    \
  "\"ELF file data encoding not %s-endian\": the load fails"
#define CL_WORDS_ELF_FILE_VERSION_IDENT_DOES                                   \
  "\"ELF file version ident does not match current one\": the load fails"
#define CL_WORDS_ELF_FILE_OS_ABI_INVALID                                       \
  "\"ELF file OS ABI invalid\": the load fails"
#define CL_WORDS_ELF_FILE_ABI_VERSION_INVALID                                  \
  "\"ELF file ABI version invalid\": the load fails"
#define CL_WORDS_NONZERO_PADDING_IN_E_IDENT                                    \
  "\"nonzero padding in e_ident\": the load fails"
#define CL_WORDS_ELF_FILE_VERSION_DOES_NOT                                     \
  "\"ELF file version does not match current one\": the load fails"
#define CL_WORDS_OTHER_MACHINE_PASSED_OVER "other machine (%s): passed over"
#define CL_WORDS_OTHER_MACHINE_0X_PASSED_OVER                                  \
  "other machine (0x%x): passed over"
#define CL_WORDS_ONLY_ET_DYN_AND_ET                                            \
  "\"only ET_DYN and ET_EXEC can be loaded\": the load fails"
#define CL_WORDS_ELF_FILE_S_PHENTSIZE_NOT                                      \
  "\"ELF file's phentsize not the expected size\": the load fails"
#define CL_WORDS_NOT_A_VALID_IMAGE_THE "not a valid image: the load fails (193)"
#define CL_WORDS_FOR_ANOTHER_MACHINE "for another machine (%s)"
#define CL_WORDS_FOR_ANOTHER_MACHINE_0X "for another machine (0x%x)"
#define CL_WORDS_THE_LOAD_FAILS_193 "%s: the load fails (193)"

/* --- loader/resolve.c --- */
#define CL_WORDS_RELATIVE_TO_A_CURRENT_FOLDER                                  \
  "relative to a current folder the model does not know"
#define CL_WORDS_THE_LOAD_FAILS "the load fails"
#define CL_WORDS_NOT_SEARCHED_THE_REQUESTER_HAS                                \
  "not searched: the requester has DT_RUNPATH"
#define CL_WORDS_ENTRY_UNDER_A_DEFAULT_FOLDER                                  \
  "entry under a default folder, refused: the requester has DF_1_NODEFLIB"
#define CL_WORDS_NOT_SEARCHED_THE_REQUESTER_HAS_DF                             \
  "not searched: the requester has DF_1_NODEFLIB"
#define CL_WORDS_IS_AN_API_SET_CONTRACT                                        \
  "%s is an API set contract: the loader maps it to a system DLL without "     \
  "searching"
#define CL_WORDS_A_MODULE_NAMED_IS_LOADED "a module named %s is loaded: %s"
#define CL_WORDS_IS_A_KNOWNDLL_ITS_SYSTEM32                                    \
  "%s is a KnownDLL: its System32 copy"
#define CL_WORDS_FOUND_BY_IS_THE_FILE                                          \
  "%s (found by %s) is the file of the loaded %s"
#define CL_WORDS_THE_SAME_FILE_IS_LOADED "the same file is loaded"
#define CL_WORDS_THE_LOAD_FAILS_WITH "the load fails: %s"
#define CL_WORDS_NOT_FOUND_FILES_OF_ANOTHER                                    \
  "not found (files of another ELF class or machine were passed over)"

/* --- loader/resolve_open.c --- */
#define CL_WORDS_AN_IMPORT_WITH_AN_EMPTY                                       \
  "an import with an empty DLL name: the load fails"
#define CL_WORDS_AN_EMPTY_NAME_WHICH_GLIBC                                     \
  "an empty name, which glibc matches to the main program (whose link map "    \
  "has an empty name): nothing is searched or loaded"
#define CL_WORDS_EMPTY_DYNAMIC_STRING_TOKEN_SUBSTITUTION                       \
  "%s: empty dynamic string token substitution"

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

/* --- probe/probe_stages.c: what each stage found --- */
/* A stage's message when its own words could not be made. */
#define CL_WORDS_STAGE_OUT_OF_MEMORY "(out of memory)"
/* The driver stage: the library chosen (%s), refused or not found. */
#define CL_WORDS_IS_THE_LINK_TIME_STUB                                         \
  "%s is the CUDA toolkit's link-time stub (a stubs folder), not a driver: "   \
  "refused"
#define CL_WORDS_DRIVER_NOT_AN_ABSOLUTE_PATH                                   \
  "%s: not an absolute path (CUDALOAD_DRIVER must name the driver library by " \
  "absolute path)"
#define CL_WORDS_LACKS_WHAT_EVERY_DRIVER_EXPORTS                               \
  "%s lacks %s, which every CUDA driver since 11.0 exports"
/* No device seen, and CUDA_VISIBLE_DEVICES set (its value). */
#define CL_WORDS_CUDA_VISIBLE_DEVICES_IS_SET                                   \
  "; CUDA_VISIBLE_DEVICES=\"%.200s\" is set, and the driver shows this "       \
  "process only the devices it lists"
/* The init stage: cuInit's error, the driver's CUDA and its number. */
#define CL_WORDS_CUINIT_RETURNED_DRIVER_SUPPORTS                               \
  "cuInit(0) returned %s (the driver supports CUDA %s, cuDriverGetVersion %d)"
#define CL_WORDS_CUINIT_SUCCEEDED_INVALID_VERSION                              \
  "cuInit(0) succeeded, but the driver reported an invalid CUDA version "      \
  "(cuDriverGetVersion %d; %d to %d expected)"
#define CL_WORDS_CUINIT_SUCCEEDED                                              \
  "cuInit(0) succeeded; the driver supports CUDA %s (cuDriverGetVersion %d)"
/* The devices stage: what the driver answered out of range. */
#define CL_WORDS_INVALID_DEVICE_COUNT                                          \
  "the driver reported an invalid device count (cuDeviceGetCount %d; 0 to %d " \
  "expected)"
#define CL_WORDS_CUDEVICEGETCOUNT_FOUND_NO_DEVICE                              \
  "cuDeviceGetCount found no CUDA device"
#define CL_WORDS_INVALID_COMPUTE_CAPABILITY                                    \
  "the driver reported an invalid compute capability (%d.%d) for device %d"
#define CL_WORDS_INVALID_TOTAL_MEMORY                                          \
  "the driver reported an invalid total memory (%llu bytes) for device %d"
/* The context stage: why device 0's mode may refuse a context, after
 * the failure. */
#define CL_WORDS_COMPUTE_MODE_PROHIBITED                                       \
  " (device 0 is in compute mode \"prohibited\": no process may create a "     \
  "context on it)"
#define CL_WORDS_COMPUTE_MODE_EXCLUSIVE_PROCESS                                \
  " (device 0 is in compute mode \"exclusive_process\": while another "        \
  "process uses it, no other may)"
#define CL_WORDS_COMPUTE_MODE_EXCLUSIVE_THREAD                                 \
  " (device 0 is in compute mode \"exclusive_thread\": while another thread "  \
  "uses it, no other may)"
#define CL_WORDS_ROUND_TRIP_CAME_BACK_DIFFERENT                                \
  "the %u bytes copied to device 0 and back came back different"
#define CL_WORDS_MIB_OF_MIB_FREE "; %lld MiB of %llu MiB free"
#define CL_WORDS_PRIMARY_CONTEXT_ROUND_TRIP_INTACT                             \
  "primary context of device 0; %u KiB allocated, copied there and back "      \
  "intact%s"
/* A requirement's library (the requirement, its family, the plan's fix). */
#define CL_WORDS_NO_USABLE_LIBRARY_FIX "%s: no usable %s library; fix: %s"
#define CL_WORDS_NO_USABLE_LIBRARY_WAS_FOUND                                   \
  "%s: no usable %s library was found"
#define CL_WORDS_PLANNED_FILE_COULD_NOT_BE_LOADED                              \
  "%s: %s could not be loaded (%s)"
#define CL_WORDS_SEE_CUDALOAD_DOCTOR "see cudaload doctor"
#define CL_WORDS_NO_REASON_GIVEN "no reason given"
#define CL_WORDS_LACKS_A_DAMAGED_OR_MISMATCHED_LIBRARY                         \
  "%s lacks %s (a damaged or mismatched library)"
/* The runtime stage: its version held against the driver's. */
#define CL_WORDS_RUNTIME_NOT_CHECKED_AGAINST_DRIVER                            \
  "the CUDA runtime %s (cudaRuntimeGetVersion %d) was not checked against "    \
  "the driver: the driver's CUDA version is unknown (it reported an invalid "  \
  "one)"
#define CL_WORDS_DRIVER_TOO_OLD_FOR_THE_RUNTIME                                \
  "driver too old: the CUDA runtime %s (cudaRuntimeGetVersion %d) needs a "    \
  "driver for CUDA %d, but the driver supports CUDA %s (cuDriverGetVersion "   \
  "%d)"
#define CL_WORDS_RUNTIME_NEWER_MINOR_THAN_DRIVER                               \
  "the CUDA runtime %s (%d) is newer than the driver's CUDA %s (%d): it runs " \
  "by minor-version compatibility, but kernels needing a newer PTX JIT will "  \
  "fail; update the driver to remove the doubt"
#define CL_WORDS_RUNTIME_ON_A_DRIVER_FOR_CUDA                                  \
  "CUDA runtime %s (cudaRuntimeGetVersion %d) on a driver for CUDA %s"
#define CL_WORDS_CUDARUNTIMEGETVERSION_RETURNED_ERROR                          \
  "cudaRuntimeGetVersion returned error %d (%s)"
#define CL_WORDS_RUNTIME_REPORTED_AN_INVALID_VERSION                           \
  "the CUDA runtime reported an invalid version (cudaRuntimeGetVersion %d; "   \
  "%d to %d expected) (%s): it was not checked against the driver"
/* The cuBLAS stage. */
#define CL_WORDS_AN_UNKNOWN_CUBLAS_STATUS "an unknown cublasStatus_t"
#define CL_WORDS_SGEMM_GAVE_WHAT_THE_CPU_DOES_NOT                              \
  "a %dx%dx%d SGEMM gave %g at row %d, column %d where the CPU computes %g "   \
  "(%s)"
#define CL_WORDS_CUBLAS_SGEMM_MATCHES_THE_CPU                                  \
  "cuBLAS %d: handle created; a %dx%dx%d SGEMM matches the CPU (%s)"
/* The cuDNN stage. */
#define CL_WORDS_CUDNN_ANSWERED_AN_INVALID_VERSION                             \
  "%s answered cudnnGetVersion() = %zu, an invalid version (1000 to 9999999 "  \
  "expected)"
#define CL_WORDS_CUDNN_ANSWERED_ANOTHER_MAJOR                                  \
  "%s answered cudnnGetVersion() = %zu (cuDNN %s), not cuDNN %d"
#define CL_WORDS_CUDNNCREATE_RETURNED                                          \
  "cuDNN %s: cudnnCreate returned %d (%.160s) (%s)"
#define CL_WORDS_NO_ERROR_TEXT "no error text"
#define CL_WORDS_CUDNNDESTROY_RETURNED "cuDNN %s: cudnnDestroy returned %d (%s)"
#define CL_WORDS_CUDNN_HANDLE_CREATED_AND_DESTROYED                            \
  "cuDNN %s (cudnnGetVersion %zu): handle created and destroyed"
/* A stage not run. */
#define CL_WORDS_AN_EARLIER_STAGE_FAILED "an earlier stage failed"

/* --- probe/probe_result.c: the probe's summary --- */
/* What went wrong, by the probe's reason (CUDALOAD_REASON_*), after
 * "fall back to CPU, because". */
#define CL_WORDS_PROBE_NO_DRIVER "no NVIDIA driver was found"
#define CL_WORDS_PROBE_DRIVER_BROKEN "the NVIDIA driver library is incomplete"
#define CL_WORDS_PROBE_INIT_FAILED "the CUDA driver failed to initialise"
#define CL_WORDS_PROBE_NO_DEVICE "no CUDA device is visible"
#define CL_WORDS_PROBE_DRIVER_TOO_OLD "the NVIDIA driver is too old"
#define CL_WORDS_PROBE_DEVICE_FAILED "the GPU could not be used"
#define CL_WORDS_PROBE_MISSING_LIBRARY "a required CUDA library is missing"
#define CL_WORDS_PROBE_LIBRARY_FAILED "a CUDA library failed to start"
#define CL_WORDS_PROBE_WRONG_RESULT "the GPU computed a wrong result"
#define CL_WORDS_PROBE_TIMEOUT "the probe timed out"
#define CL_WORDS_PROBE_CRASHED "the probe process crashed"
/* The probe's summary: its devices, its driver's CUDA and the verdict. */
#define CL_WORDS_NO_DEVICE_LISTED "no device listed"
#define CL_WORDS_AN_UNKNOWN_CUDA_VERSION "an unknown CUDA version"
/* The device (or the words above), the driver's CUDA, a warning. */
#define CL_WORDS_GPU_USABLE "GPU usable: %s, driver for %s%s%s"
/* Why (CL_WORDS_PROBE_*), the first failed stage's message, and the fix
 * (CL_NOTE_PROBE_SUMMARY_*, the driver's name after the no-driver one). */
#define CL_WORDS_FALL_BACK_TO_CPU_BECAUSE                                      \
  "fall back to CPU, because %s (%s)%s%s%s"
#define CL_WORDS_FALL_BACK_TO_CPU_BECAUSE_OF_REASON                            \
  "fall back to CPU, because of reason %d (%s)"
/* The stages after the one a probe process ended in. */
#define CL_WORDS_NOT_RUN_THE_PROBE_DID_NOT_GET_THIS_FAR                        \
  "not run: the probe process did not get this far"

/* --- probe/cublas_causes.c: why cuBLAS could not set itself up --- */
/* Each cause (after "; " when not the first) or fact (after ", "). */
#define CL_WORDS_CUBLASLT_OF_ANOTHER_RELEASE                                   \
  "%scuBLAS is %s but the cuBLASLt it loads is %s (%s): cuBLAS works only "    \
  "with the cuBLASLt of its own release"
#define CL_WORDS_CUBLAS_AND_CUBLASLT_BOTH "%scuBLAS and cuBLASLt both %s"
#define CL_WORDS_TOO_LITTLE_FREE_FOR_CUBLAS                                    \
  "%sonly %lld MiB of device 0's %llu MiB are free, too little for cuBLAS's "  \
  "workspace: another process holds the rest"
#define CL_WORDS_RUNTIME_NEWER_THAN_THE_DRIVER                                 \
  "%sthe CUDA runtime (%d.%d) is newer than the driver (%d.%d)"
#define CL_WORDS_RUNTIME_NO_NEWER_THAN_THE_DRIVER                              \
  "%sthe runtime no newer than the driver"
#define CL_WORDS_WDDM_WITH_THE_DISPLAY_WATCHDOG_ON                             \
  "%sdevice 0 runs under WDDM with the display watchdog on: when a kernel "    \
  "runs longer than the TDR delay, Windows resets the driver and cuBLAS's "    \
  "context is lost with it"
/* The message: the causes, or the facts when no cause applies. */
#define CL_WORDS_CUBLAS_COULD_NOT_SET_UP_BECAUSE                               \
  "cuBLAS could not set itself up, because %s"
#define CL_WORDS_CUBLAS_COULD_NOT_SET_UP_NO_CAUSE                              \
  "cuBLAS could not set itself up, and none of the causes the probe can see "  \
  "applies (%s): an earlier CUDA error in this process "                       \
  "(CUDA_LAUNCH_BLOCKING=1 names it) or a damaged cuBLAS install"

/* --- probe/probe_child_end.c: a probe process that did not finish --- */
/* How a probe process ended before its report was whole. */
#define CL_WORDS_PROBE_PROCESS_FLOODED_ITS_REPORT                              \
  "the probe process wrote more than %d bytes (a driver writing into the "     \
  "probe's report channel?); it was killed"
#define CL_WORDS_PROBE_DID_NOT_FINISH_WITHIN                                   \
  "the probe did not finish within %g s (a hung driver?); its process was "    \
  "killed"
/* The seam's words of how it ended (CL_WORDS_DIED_FROM_SIGNAL and the
 * others of the OS seam's group, below), or those below. */
#define CL_WORDS_THE_PROBE_PROCESS "the probe process %s"
#define CL_WORDS_ENDED_BEFORE_IT_FINISHED "ended before it finished"

/* --- the OS seam (posix/, win32/): what the OS answered --- */
/* What a path that opened is, when it is no regular file: the reason
 * cl_os_file_open gives, which a refusal to load it passes on. */
#define CL_WORDS_NOT_A_REGULAR_FILE_DIRECTORY "not a regular file (a directory)"
#define CL_WORDS_NOT_A_REGULAR_FILE_DEVICE "not a regular file (a device)"
#define CL_WORDS_NOT_A_REGULAR_FILE_SPECIAL                                    \
  "not a regular file (a special file)"
#define CL_WORDS_NOT_A_REGULAR_FILE_FIFO "not a regular file (a FIFO)"
#define CL_WORDS_NOT_A_REGULAR_FILE_PIPE "not a regular file (a pipe)"
/* Who may write to a file or folder (cl_os_path_writable_by_others), from
 * its mode and POSIX access control list ... */
#define CL_WORDS_WRITABLE_BY_EVERY_USER_MODE                                   \
  "writable by every user (mode %04o%s)"
#define CL_WORDS_WRITABLE_BY_GROUP_NOT_IN                                      \
  "writable by group %lu, which this process is not in (mode %04o)"
#define CL_WORDS_WRITABLE_BY_USER_THROUGH_ACL                                  \
  "writable by user %lu through its access control list (mode %04o shows "     \
  "only the ACL's mask)"
#define CL_WORDS_WRITABLE_BY_GROUP_THROUGH_ACL                                 \
  "writable by group %lu, which this process is not in, through its access "   \
  "control list (mode %04o shows only the ACL's mask)"
/* ... or from its Windows access control list: who (a name and SID, or
 * the words below), the rights granted (the names below, ", " between),
 * the entry's mask. */
#define CL_WORDS_WRITABLE_BY_ACL_GRANTS                                        \
  "writable by %s: its access control list grants %s (access mask "            \
  "0x%08lx%s)%s"
#define CL_WORDS_IN_A_CONDITIONAL_ENTRY                                        \
  ", in a conditional entry, whose condition may hold"
#define CL_WORDS_A_GROUP_OF_USERS "a group of users"
#define CL_WORDS_RIGHT_FULL_CONTROL "full control"
#define CL_WORDS_RIGHT_WRITE "write"
#define CL_WORDS_RIGHT_WRITE_DATA "write data"
#define CL_WORDS_RIGHT_ADD_FILES "add files"
#define CL_WORDS_RIGHT_APPEND_DATA "append data"
#define CL_WORDS_RIGHT_ADD_SUBFOLDERS "add subfolders"
#define CL_WORDS_RIGHT_DELETE_WHAT_IT_HOLDS "delete what it holds"
#define CL_WORDS_RIGHT_DELETE_OR_RENAME_IT "delete or rename it"
#define CL_WORDS_RIGHT_CHANGE_PERMISSIONS "change permissions"
#define CL_WORDS_RIGHT_TAKE_OWNERSHIP "take ownership"
#define CL_WORDS_WRITABLE_BY_EVERY_USER_NO_ACL                                 \
  "writable by every user (it has no access control list, which grants "       \
  "everyone full control)"
/* What that means for a folder on the way to a library (both systems). */
#define CL_WORDS_NOT_STICKY ", not sticky"
#define CL_WORDS_THEY_CAN_RENAME_WHAT_IT_HOLDS                                 \
  ": they can rename what it holds and put their own in its place"
#define CL_WORDS_STICKY_BIT_DOES_NOT_STOP_ADDING                               \
  "; the sticky bit does not stop anyone from adding a library"
/* How a probe process ended before its report was whole (the "%s" of
 * CL_WORDS_THE_PROBE_PROCESS): a POSIX wait status ... */
#define CL_WORDS_DIED_FROM_SIGNAL "died from signal %d (%s)"
#define CL_WORDS_EXITED_WITH_STATUS_BEFORE_IT_FINISHED                         \
  "exited with status %d before it finished"
#define CL_WORDS_COULD_NOT_BE_STARTED_FORK_FAILED                              \
  "could not be started (fork failed)"
/* ... or a Windows exit code (an NTSTATUS exception code when it crashed). */
#define CL_WORDS_DIED_FROM_EXCEPTION "died from exception 0x%08lX"
#define CL_WORDS_EXITED_WITH_EXIT_CODE_BEFORE_IT_FINISHED                      \
  "exited with status %lu before it finished"
/* Why the preload left PATH as it is (win32/loader_win32.c). */
#define CL_WORDS_PATH_WOULD_PASS_WINDOWS_LIMIT                                 \
  "PATH is %lu characters long, and with %s in front it would pass "           \
  "Windows' limit of 32,767: PATH was left as it is, and the folder was "      \
  "given to AddDllDirectory only, which a library's own later LoadLibrary "    \
  "searches only in a process that called SetDefaultDllDirectories"
/* A display watchdog (TDR) value in the registry that could not be read
 * (win32/display_watchdog_win32.c). */
#define CL_WORDS_TDR_VALUE_COULD_NOT_BE_READ                                   \
  "%s could not be read (error %lu%s); the default applies"
#define CL_WORDS_NOT_A_REG_DWORD ": not a REG_DWORD"

/* --- fix/fix_check.c: why cudaload fix does not run a step --- */
/* Why a step of its action is never run. */
#define CL_WORDS_FIX_ONE_INSTALL_OF_SEVERAL                                    \
  "one install of several, one per CUDA major: cudaload fix runs none of "     \
  "them; say which CUDA major the program is built for (--require cuda=12) "   \
  "or name the program (--for PROGRAM), and run it again"
#define CL_WORDS_FIX_SETS_A_VARIABLE_IN_YOUR_SHELL                             \
  "it sets a variable in your shell, which cudaload fix cannot do for you"
#define CL_WORDS_FIX_IS_HOW_TO_RUN_YOUR_PROGRAM                                \
  "it is how to run your program, not an install"
#define CL_WORDS_FIX_NOT_AN_INSTALL_OF_WHEELS                                  \
  "not an install of NVIDIA's wheels, the only commands cudaload fix runs"
#define CL_WORDS_FIX_WORDS_FOR_YOU "words for you: nothing to run"
#define CL_WORDS_FIX_STEP_UNKNOWN "a step cudaload fix does not know"
/* Why a requirement word is refused. */
#define CL_WORDS_NOT_A_PACKAGE_REQUIREMENT "'%s' is not a package requirement"
#define CL_WORDS_NOT_A_WHEEL_THE_CATALOG_KNOWS                                 \
  "%.*s is not one of NVIDIA's wheels the catalog knows, the only packages "   \
  "cudaload fix installs"
#define CL_WORDS_HAS_NO_WINDOWS_WHEEL "%s has no Windows wheel"
#define CL_WORDS_NOT_A_PEP_440_SPECIFIER                                       \
  "'%s' is not a PEP 440 version specifier for %s (extras, markers and URLs "  \
  "are not passed either)"
/* Why a folder or file the command writes to is refused: its owner
 * and this user, or what others may do there and the fix. */
#define CL_WORDS_FIX_OWNED_BY_ANOTHER_USER                                     \
  "%s is owned by %s, and cudaload runs as %s: it writes only into an "        \
  "environment its user owns (a file it left there would be one the owner "    \
  "cannot update or remove); run it as the environment's owner"
#define CL_WORDS_FIX_REFUSED_AS_A_ROOT                                         \
  "%s is %s: cudaload refuses to load from there, so it installs nothing "     \
  "there; make it private first (%s)"
#define CL_WORDS_WRITABLE_ONLY_BY_ITS_OWNER "writable only by its owner"
/* Why an install step's words are refused. */
#define CL_WORDS_FIX_SETS_VARIABLES_FOR_THE_COMMAND                            \
  "it sets variables for the command, which cudaload fix does not"
#define CL_WORDS_FIX_NAMES_NO_INTERPRETER                                      \
  "it names no environment's interpreter (%s): cudaload fix runs only the "    \
  "pip of an environment it found, by its path"
#define CL_WORDS_FIX_TARGET_NEEDS_ONE_FOLDER                                   \
  "--target needs one absolute folder, once"
#define CL_WORDS_FIX_PIP_OPTION_NOT_PASSED                                     \
  "%s is a pip option cudaload fix does not pass"
#define CL_WORDS_FIX_INSTALLS_NO_PACKAGE "it installs no package"
/* Why where the command writes is refused. */
#define CL_WORDS_IS_NOT_THERE "%s is not there"
#define CL_WORDS_FIX_NOT_AN_EXE "%s is not a program cudaload runs (a .exe)"
#define CL_WORDS_FIX_SYSTEM_INTERPRETER                                        \
  "%s is a system interpreter (%s is no venv or conda environment): cudaload " \
  "fix never installs into the system's Python; make an environment (python3 " \
  "-m venv ENV), or run the command yourself if you mean it"
#define CL_WORDS_FIX_IN_NO_ENVIRONMENT                                         \
  "%s is in no venv or conda environment: cudaload fix never installs into "   \
  "the system's Python"
#define CL_WORDS_FIX_TARGET_OUTSIDE_THE_ENVIRONMENT                            \
  "its --target folder %s is outside the environment %s"
#define CL_WORDS_FIX_NO_SITE_PACKAGES_FOLDER                                   \
  "cannot tell the site-packages folder of %s, beside which the folder %s is " \
  "to be recorded"

#endif
