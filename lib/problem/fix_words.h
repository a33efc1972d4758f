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

/* --- the program: what a program needs (lib/load/program*.c) --- */

/* --- the plan and its fix lines (plan*.c, plan_judge.c, fix_lines.c,
 * preload.c) --- */

/* --- the doctor's answers (lib/report/, lib/common/fix_steps.c) --- */
/* Windows error 127 from a copy loaded first (message_problems.c). */
#define CL_NOTE_LOAD_THE_COPY_BESIDE_FIRST                                     \
  "load the %s beside it first, so that every later import of the name "     \
  "gets that copy: in Python, cudaload.setup() with %s as a root and its "   \
  "requirement, before anything imports the other"
#define CL_NOTE_OR_TAKE_THE_OLDER_COPY_AWAY                                    \
  "or keep %s out of the process: remove it, or its folder from PATH and "   \
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
