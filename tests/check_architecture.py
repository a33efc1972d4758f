#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the library's shape (docs/architecture.md) against its code.

1. The platform rule: `_WIN32` appears in no portable file. Only the seam
   may test the OS: lib/os/platform.h (the one switch) and the folders
   lib/posix/ and lib/win32/.
2. The folders: every source file of lib/ lives in a stage folder, and every
   folder of lib/ is a stage or the seam.
3. The layers (with --objects): from the symbols each object file defines
   and needs (nm), no two files depend on each other, directly or around a
   circle, and no stage needs a later one (common, core, binary, scan, loader,
   problem, load, probe, report, fix). The seam may be called by any stage
   and may call the data functions of the stage it serves, never around a
   circle.
4. The error idiom: cl_clear_error() is called by public functions
   (cudaload_*) only, on entry or when they succeed after consuming a
   helper's failure, and by the few internal functions that turn a failure
   into data and go on (CLEARS_CONSUMED). Any other caller is a helper that
   wipes what a lookup wrote: the lookup should not write (its caller
   asks an answer form, `name_quiet()`).
   Answers without side effects: no file of lib/ or tools/ keeps and puts
   back the last error around a call (cl_save_error/cl_restore_error are
   gone); the code under an answer form that still fails with words is
   asked inside a cl_asking (common/error.h) only where an answer form is
   defined: ASKING_FILES says where and how often, so that no call site
   gains one.
5. The tool uses the library as users do: tools/ includes the public header
   and its own, plus the few utilities it shares with the library for
   showing text and paths (TOOL_UTILITIES), none of the library's stages.
6. Names are compared in ASCII: no file of lib/ or tools/ calls the C
   library's character functions (tolower, isalnum, strcasecmp, ...), which
   follow the locale a host program set (under tr_TR.UTF-8 tolower('I') is
   'I'); common/strutil.h has the ASCII ones (cl_ascii_lower, ...).
7. The includes: from the #include lines of lib/ (each header counted as
   the file of its name beside it: probe/probe_wire.h is probe_wire.c's),
   no two files include each other, directly or around a circle, and no
   stage includes a later stage's header (a later stage including an
   earlier one's is the order). The seam: a stage includes os/ headers,
   never posix/ or win32/ ones; os/ headers include nothing of lib/; posix/
   and win32/ include nothing of each other. The exceptions still open are
   KNOWN_INCLUDES, each named with its issue; they are reported, not failed.
8. One seam: the OS questions are declared in lib/os/ only (no portable
   header declares a cl_os_* function), and portable files ask the seam for
   the host's facts: no architecture or OS macro (__x86_64__, _M_ARM64,
   __linux__, ...) outside posix/ and win32/, and "is this Windows" is
   cl_os_host_target(), not a comparison of CL_DIR_SEP with '\\'.
9. The catalogue row owns its family: outside lib/scan/catalog*, no
   statement compares a family with "driver" (the row's is_driver says it:
   cl_catalog_is_driver()), and no function but the catalogue's
   cl_catalog_family_main() is a family's main library (*family_main*).
10. The Python package (bindings/python/cudaload, or --python-package DIR):
    from the import statements of its modules (every one, those inside a
    function or under `if TYPE_CHECKING:` too: a lazy import is still a
    dependency), no two modules import each other, directly or around a
    circle. `from . import x` is module x where the package has one, else
    the package's __init__; importing a submodule is not counted as
    importing the package.
11. Files stay short: no .c or .h file of lib/ or tools/ is over MAX_LINES
    (1,500) lines; one concept per file, and a file past that holds more
    than one. The files still over it that are being split now are
    KNOWN_LONG, each named with its issue; they are reported, not failed
    (and reported again once short, to be taken off the list).
12. A fix note's words are problem/fix_words.h's: outside lib/problem/, no
    call of cl_fix_add_note or cl_fix_note gives its format words of its
    own (a string literal with a letter outside its conversions): it names
    a CL_NOTE_*, so rewording a note is an edit of that one file.
13. Each stage's data in its room (docs/architecture.md, "Const means
    const" and the stages): every field of the handle (struct cudaload_ctx,
    core/context.h) is written by one stage, its owner (HANDLE_FIELDS),
    and by core/, which makes and frees the handle; no file of another
    stage assigns it, steps it or takes its address (to grow it), and no
    stage before its owner reads it. A later stage changes an earlier one's
    data through a function of that stage (cl_ctx_add_program_root(),
    cl_file_cache_forget(), cl_problem_kept_show()). No file of lib/ casts
    to a handle pointer ((cudaload_ctx *)), the way a const handle is made
    writable; -Wcast-qual (lib/CMakeLists.txt) catches every other cast
    that drops a const. The inventory's records (struct cl_library,
    scan/inventory.h) are the scan's in the same way: no file of another
    stage writes a field through a `cl_library *` or an element of
    libraries[] (what a later stage learns of a library, it asks a function
    of the scan: cl_library_cuda_major(), the memos' one door).
14. A sentence's words are the words files': in every folder of lib/ (the
    stages that say things to people: lib/load, lib/loader, lib/scan,
    lib/report, lib/probe's stages and verdict, lib/fix's why cudaload fix
    runs no step; the OS seam, lib/os, lib/posix, lib/win32: who may write
    to a folder, what a path is when it is no regular file, how a probe
    process ended; and lib/common, lib/core, lib/binary, lib/problem), no
    string literal (adjacent literals read as one) has three words or more,
    and no fact's value (cl_problem_fact, cl_problem_factf,
    cl_verdict_fact) has words with a space between them: they name a
    CL_WORDS_* of common/reason_words.h (or a CL_NOTE_* of
    problem/fix_words.h, the probe summary's fix), so rewording a reason is
    an edit of that one file. Not counted: a last error's words, said where
    the failure is found (docs/error-messages.md): the arguments of
    cl_fail, cl_fail_os, cl_fail_os_no, cl_fail_naming; of the seam's
    answer forms of them (own_no, which fills a cl_os_no, an assignment to
    a cl_os_no's what, and proc_maps.c's maps_malformed); and in lib/binary
    of the ELF and PE readers' calls that end in cl_binary_malformed, with
    the name of the table they are told (BINARY_LAST_ERROR_CALL). Nor the
    files of WORDS_ALLOWED, each with its reason (the words files
    themselves, cudaload_strerror's table, renderers' format words, the
    foreign messages read, knowledge tables whose row is the one place).
    KNOWN_WORDS names files still to move, with how many sentences each
    has: reported, not failed, unless the count grows.

The checks read the sources of both sides (posix/ and win32/) on every
build; --objects (a native or a mingw-w64 build's objects, with that
build's nm) adds the layers of the objects that build compiled.

Usage: check_architecture.py --source REPO [--objects OBJ;OBJ;...] [--nm NM]
                            [--python-package DIR]
Exit status 0 when the shape holds, 1 with each violation named otherwise.
Python standard library only.
"""

import argparse
import ast
import os
import re
import subprocess
import sys

STAGES = ["common", "core", "binary", "scan", "loader", "problem", "load", "probe",
          "report", "fix"]
SEAM = ["os", "posix", "win32"]
LIB_FILES = {"CMakeLists.txt", "cudaload.def", "cudaload.map",
             "cudaload.rc.in"}
OS_SWITCH = "os/platform.h"
# Internal functions that clear the last error because they have just
# turned a failure into data (a probe stage's message, a preload error kept
# for the stages) or are an entry point of their own (the manifest fuzzer's).
CLEARS_CONSUMED = {"cl_manifest_load_text", "load_text",
                   "ensure_preloaded", "requirement_handle",
                   "cl_probe_run_in_process",
                   # The bodies of public functions whose public wrapper
                   # closes the files the body held open (file_cache.h,
                   # "Holding files open"): public functions in all but name.
                   "plan_held", "preload_held", "doctor_held",
                   "explain_files_held", "require_for_held",
                   "explain_pid_held", "env_warnings_held"}
# Where a cl_asking may be opened (common/error.h), and how many times:
# the definitions of answer forms over code that still fails with words
# (the binary parsers through cl_reader, the OS loader seam, the public
# calls a scan of one folder makes), and helpers whose whole answer is
# data (a reason kept for the caller, a finding, a version). A new one is
# an answer form's definition, added here with its reason; a call site
# asks an answer form instead.
ASKING_FILES = {
    "common/error.c": 1,          # the scope itself
    "binary/file_cache.c": 9,     # the cache's _quiet forms; its own reads
    "binary/binary_file.c": 2,    # cl_binary_*_file_quiet
    "binary/elf.c": 1,            # a build id is optional
    "binary/elf_symbols.c": 1,    # a hash table is optional
    "binary/binary_names.c": 1,   # no sections: search the file whole
    "scan/ldcache.c": 1,          # cl_ldcache_read_cached_quiet
    "scan/version_sources.c": 1,  # cl_find_version: v says what was found
    "scan/driver_version.c": 1,   # out->why says why there is none
    "loader/resolve.c": 2,        # cl_loader_model_init_*_quiet
    "win32/resolve_win32.c": 1,   # a module that cannot be listed
    "load/spec.c": 1,             # cl_spec_parse_quiet
    "load/preload.c": 1,          # why PATH cannot take a folder: *reason
    "load/verdict_versions.c": 1,  # cl_verdict_folder_scan (public calls)
    "load/env_child.c": 1,        # a scan of one folder (public calls)
    "load/load_failure.c": 1,     # no detail: the loader's message stays
    "report/doctor_problems.c": 1,  # the verdict's findings are the data
    "report/doctor_facts.c": 1,   # the conflicts found are the data
    "report/message_problems.c": 1,  # no target found: the answer in words
}
# What the tool may include besides cudaload.h and its own cli*.h: escaping
# for a terminal, UTF-8 <-> UTF-16 for its arguments, absolute paths and the
# library's environment reader (cl_os_getenv: no narrow getenv on Windows),
# and the quoting of a word in a command it prints (exec --dry-run), which
# the library's fix lines use too.
TOOL_UTILITIES = {"common/text_escape.h", "os/platform.h", "win32/wide.h",
                  "common/shell_word.h"}
# Includes from a stage to a later one that are known and scheduled, each
# with where it is being removed. Reported on every run, never failed.
# None is open: the last, core/context.h including scan/catalog.h, went
# when the inventory moved to scan/inventory.h (issue 34 item 1).
KNOWN_INCLUDES = {}
# The most lines a .c or .h file of lib/ or tools/ may have (11.).
MAX_LINES = 1500
# Files over MAX_LINES that are being split now, each with where. Reported
# on every run, never failed.
KNOWN_LONG = {}
# 14. Files of the saying stages whose sentences are not reasons to move to
# common/reason_words.h, each with why.
# Every folder of lib/: the stages and both sides of the seam.
SENTENCE_STAGES = tuple(name + "/" for name in STAGES + SEAM)
WORDS_ALLOWED = {
    # The words files themselves: where the words are.
    "common/reason_words.h": "the words file of reasons, origins, facts",
    "problem/problem_words.c": "the words file of problem sentences",
    "problem/fix_words.h": "the words file of fix notes",
    # cudaload_strerror()'s table: one line per public status, the public
    # API's words for each code (include/cudaload.h), the one place they are.
    "common/error.c": "cudaload_strerror's table, a line per status",
    # Renderers: the format words of one way to show a result (headings,
    # labels, "none"), not what a problem or a reason says.
    "report/doctor_text.c": "renderer: the doctor's text",
    "report/explain_report.c": "renderer: explain's text and JSON",
    "report/report_inventory.c": "renderer: the scan's inventory",
    "report/report_plan.c": "renderer: the plan, file by file",
    "report/report_probe_text.c": "renderer: the probe's text",
    "report/report_watchdog.c": "renderer: the display watchdog settings",
    # fix_run.c renders the fix report (cudaload_fix_report: its first line
    # and labels); its other functions say only a last error's words. Why
    # a step is not run is fix_check.c's, and so counted.
    "fix/fix_run.c": "renderer: the fix report",
    # Words read, not said: the messages of the loaders and frameworks that
    # cudaload recognizes in a pasted error.
    "load/error_forms.c": "the foreign messages it recognizes",
    "load/error_facts.c": "the foreign messages it reads facts from",
    # The manifest's parse errors are a last error's words, made where the
    # parser finds the fault ("expected X, found Y"), as cl_fail's are.
    "load/manifest.c": "the manifest's parse errors (a last error)",
    # Knowledge tables: one row per consumer or variable is the one place
    # its words are.
    "scan/consumers.c": "the table of what opens a library lazily",
    "scan/cuda_knobs.c": "the table of CUDA's environment variables",
}
# Files with sentences still to move, each with how many (14.): reported on
# every run, failed only when the count grows.
KNOWN_WORDS = {}
# Host facts the seam answers (lib/os/platform.h): a portable file that
# tests one of these macros decides for the host by itself.
HOST_MACROS = re.compile(
    r"\b(__x86_64__|__amd64__|__aarch64__|__i386__|__arm__|__powerpc64__|"
    r"__s390x__|__riscv|_M_X64|_M_AMD64|_M_ARM64|_M_IX86|__linux__|"
    r"__APPLE__|__ILP32__)\b")
ASKS_WINDOWS_BY_SEPARATOR = re.compile(r"CL_DIR_SEP\s*[=!]=\s*'\\\\'")
# The stage that writes each field of struct cudaload_ctx (13.); core/
# may write any. A field missing here fails the check: a new one needs an
# owner.
HANDLE_FIELDS = {
    "flags": "core", "target": "core",
    "explicit_roots": "core", "explicit_count": "core",
    "explicit_capacity": "core",
    "environment_roots": "core", "environment_count": "core",
    "environment_capacity": "core",
    "program_roots": "core", "program_root_count": "core",
    "program_root_capacity": "core",
    "inventory": "scan", "inventory_free": "scan",
    "file_cache": "binary", "file_cache_free": "binary",
    "plan_state": "load", "plan_state_clear": "load",
    "plan_state_free": "load",
    "error_messages": "load", "error_messages_free": "load",
    "doctor_problem_count": "problem", "doctor_problems": "problem",
    "doctor_problems_free": "problem", "doctor_serial": "problem",
    "fix_state": "fix", "fix_state_free": "fix",
    "manifest": "load", "manifest_free": "load",
    "probe_driver_path": "core",
}
HANDLE_STRUCT = re.compile(r"struct cudaload_ctx \{(.*?)\n\};", re.S)
CAST_TO_HANDLE = re.compile(r"\(\s*(?:struct\s+)?cudaload_ctx\s*\*\s*\)")
SEAM_DECLARATION = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(cl_os_\w+)\s*\(")


def check_platform_rule(lib, problems):
    token = re.compile(r"\b_WIN32\b")
    for folder, _, files in os.walk(lib):
        rel_folder = os.path.relpath(folder, lib).replace(os.sep, "/")
        if rel_folder.split("/")[0] in ("posix", "win32"):
            continue
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            rel = name if rel_folder == "." else rel_folder + "/" + name
            if rel == OS_SWITCH:
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if token.search(line):
                        problems.append(
                            f"lib/{rel}:{number}: tests _WIN32; portable code "
                            f"asks the seam (lib/{OS_SWITCH}, cl_os_*)")


def check_folders(lib, problems):
    for name in sorted(os.listdir(lib)):
        path = os.path.join(lib, name)
        if os.path.isdir(path):
            if name not in STAGES + SEAM:
                problems.append(f"lib/{name}/: not a stage ({', '.join(STAGES)}) "
                                f"nor the seam ({', '.join(SEAM)})")
        elif name not in LIB_FILES:
            problems.append(f"lib/{name}: a file outside the stage folders")


def check_error_clears(lib, problems):
    definition = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\(")
    for folder, _, files in os.walk(lib):
        for name in sorted(files):
            if not name.endswith(".c"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), lib)
            function = None
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = definition.match(line)
                    if m and not line.rstrip().endswith(";") and \
                            not line.startswith(("typedef", "static const", "#")):
                        function = m.group(1)
                    if "cl_clear_error()" not in line or \
                            line.lstrip().startswith(("void cl_clear_error", "/*", "*")):
                        continue
                    if function and (function.startswith("cudaload_") or
                                     function in CLEARS_CONSUMED):
                        continue
                    problems.append(
                        f"lib/{rel.replace(os.sep, '/')}:{number}: {function} clears "
                        "the last error; a lookup whose 'no' is an answer should "
                        "not write it: its caller asks an answer form "
                        "(name_quiet)")


def check_answers(source, problems):
    kept = re.compile(r"\bcl_(save|restore)_error\s*\(")
    asking = re.compile(r"\bcl_asking_begin\s*\(")
    counts = {}
    for top in ("lib", "tools"):
        for folder, _, files in os.walk(os.path.join(source, top)):
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.join(source, "lib"))
                rel = rel.replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        if kept.search(line):
                            problems.append(
                                f"{top}/{os.path.relpath(path, os.path.join(source, top)).replace(os.sep, '/')}"
                                f":{number}: keeps and puts back the last "
                                "error; a lookup whose 'no' is an answer is "
                                "asked through its answer form (name_quiet)")
                        if asking.search(line) and \
                                not line.lstrip().startswith(("void", "/*", "*")):
                            counts[rel] = counts.get(rel, 0) + 1
    for rel, n in sorted(counts.items()):
        allowed = ASKING_FILES.get(rel, 0)
        if n > allowed:
            problems.append(
                f"lib/{rel}: opens a cl_asking {n} times, {allowed} allowed "
                "(ASKING_FILES): a call site asks an answer form instead")
    return sum(counts.values())


def check_tool_includes(tools, problems):
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for name in sorted(os.listdir(tools)):
        if not name.endswith((".c", ".h")):
            continue
        with open(os.path.join(tools, name), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = include.match(line)
                if not m:
                    continue
                header = m.group(1)
                if header == "cudaload.h" or header.startswith("cli"):
                    continue
                if header not in TOOL_UTILITIES:
                    problems.append(
                        f"tools/{name}:{number}: includes {header}; the tool "
                        f"uses the public API (include/cudaload.h)")


LOCALE_CTYPE = re.compile(
    r"\b(to(lower|upper)|is(alnum|alpha|blank|cntrl|digit|graph|lower|print|"
    r"punct|space|upper|xdigit)|str(n?casecmp|casestr)|_stri?n?cmp|towlower|"
    r"towupper|_wcsi?n?cmp|_?wcsicmp)\s*\(")


def check_ascii_names(source, problems):
    for top in ("lib", "tools"):
        for folder, _, files in os.walk(os.path.join(source, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, source).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        code = line.split("//")[0]
                        if code.lstrip().startswith(("/*", "*")):
                            continue
                        m = LOCALE_CTYPE.search(code)
                        if m:
                            problems.append(
                                f"{rel}:{number}: calls {m.group(1)}(), which "
                                "follows the process's locale; compare names "
                                "in ASCII (common/strutil.h: cl_ascii_lower, "
                                "cl_same_nocase, ...)")


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def lib_files(lib):
    """lib/'s .c and .h files, as paths relative to lib/ with '/'."""
    found = []
    for folder, _, files in os.walk(lib):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(folder, name), lib)
                found.append(rel.replace(os.sep, "/"))
    return sorted(found)


def unit_of(rel, files):
    """The file a header stands for: x.h is x.c's when x.c is beside it."""
    stem = rel[:-2]
    if rel.endswith(".h") and stem + ".c" in files:
        return stem + ".c"
    return rel


def read_includes(lib, files):
    """{file: [(line number, included file of lib/), ...]}; the public
    header and the C library's are not lib/'s."""
    includes = {}
    for rel in files:
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in files:
                    includes.setdefault(rel, []).append((number, m.group(1)))
    return includes


def check_includes(lib, problems, notes):
    files = set(lib_files(lib))
    includes = read_includes(lib, files)
    graph, why = {}, {}
    for rel, found in sorted(includes.items()):
        a = rel.split("/")[0]
        for number, header in found:
            b = header.split("/")[0]
            where = f"lib/{rel}:{number}: includes {header}"
            if (rel, header) in KNOWN_INCLUDES:
                notes.append(f"{where}, a later stage: known, to be removed "
                             f"by {KNOWN_INCLUDES[(rel, header)]}")
                continue
            if a in STAGES and b in STAGES and \
                    STAGES.index(b) > STAGES.index(a):
                problems.append(f"{where}: {a} includes the later stage {b}")
            elif a in STAGES and b in ("posix", "win32"):
                problems.append(f"{where}: portable code includes one side "
                                "of the seam; it asks lib/os/")
            elif a == "os" and b != "os":
                problems.append(f"{where}: the seam's headers include "
                                "nothing of lib/ but each other")
            elif {a, b} == {"posix", "win32"}:
                problems.append(f"{where}: one side of the seam includes "
                                "the other")
            source, target = unit_of(rel, files), unit_of(header, files)
            if source != target:
                graph.setdefault(source, set()).add(target)
                why.setdefault((source, target), []).append(f"{rel}:{number}")
    for component in circles(graph):
        ties = [f"{a} -> {b} ({', '.join(why[(a, b)][:2])})"
                for a in component for b in component if (a, b) in why]
        problems.append("files that include each other: " +
                        ", ".join(component) + " (" + "; ".join(ties) + ")")
    return len(files), sum(len(t) for t in graph.values())


def check_one_seam(source, problems):
    lib = os.path.join(source, "lib")
    for rel in lib_files(lib):
        side = rel.split("/")[0]
        if side in ("posix", "win32"):
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                code = line.split("//")[0]
                if code.lstrip().startswith(("/*", "*")):
                    continue
                m = HOST_MACROS.search(code)
                if m:
                    problems.append(
                        f"lib/{rel}:{number}: tests {m.group(1)}; the host's "
                        "facts are the seam's (cl_os_host_machine(), "
                        "cl_os_name(), lib/os/platform.h)")
                if ASKS_WINDOWS_BY_SEPARATOR.search(code):
                    problems.append(
                        f"lib/{rel}:{number}: asks whether this is Windows "
                        "through CL_DIR_SEP; ask the seam "
                        "(cl_os_host_target() == CUDALOAD_TARGET_WINDOWS)")
                m = SEAM_DECLARATION.match(line)
                if m and side != "os" and rel.endswith(".h"):
                    problems.append(
                        f"lib/{rel}:{number}: declares {m.group(1)}; the "
                        "OS's questions are declared in lib/os/ only")
    tools = os.path.join(source, "tools")
    for name in sorted(os.listdir(tools)):
        if not name.endswith((".c", ".h")):
            continue
        with open(os.path.join(tools, name), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if ASKS_WINDOWS_BY_SEPARATOR.search(line.split("//")[0]):
                    problems.append(
                        f"tools/{name}:{number}: asks whether this is "
                        "Windows through CL_DIR_SEP; ask cl_os_host_target()")


def check_file_lengths(source, problems, notes):
    """No file of lib/ or tools/ over MAX_LINES lines (11.); returns how
    many files were counted and how many of KNOWN_LONG are still over."""
    counted = known_over = 0
    for top in ("lib", "tools"):
        for folder, _, files in sorted(os.walk(os.path.join(source, top))):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, source).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    lines = sum(1 for _ in f)
                counted += 1
                if rel in KNOWN_LONG:
                    if lines > MAX_LINES:
                        known_over += 1
                        notes.append(f"{rel}: {lines} lines, over {MAX_LINES}: "
                                     f"known, to be split by {KNOWN_LONG[rel]}")
                    else:
                        notes.append(f"{rel}: {lines} lines now, no longer "
                                     f"over {MAX_LINES}: take it off KNOWN_LONG")
                elif lines > MAX_LINES:
                    problems.append(f"{rel}: {lines} lines, over {MAX_LINES}; "
                                    "a file holds one concept: move whole "
                                    "functions to a file named for what they "
                                    "hold")
    for rel in sorted(KNOWN_LONG):
        if not os.path.exists(os.path.join(source, rel)):
            notes.append(f"{rel}: in KNOWN_LONG but gone: take it off")
    return counted, known_over


def python_modules(package):
    """{module name: file} of a package folder's modules: the package
    itself (its __init__.py) by the folder's name, each other .py file as
    NAME.MODULE."""
    name = os.path.basename(os.path.normpath(package))
    modules = {}
    for entry in sorted(os.listdir(package)):
        if entry.endswith(".py"):
            stem = entry[:-3]
            modules[name if stem == "__init__" else f"{name}.{stem}"] = \
                os.path.join(package, entry)
    return name, modules


def python_imports(package):
    """{module: {imported module: [line, ...]}} between a package's own
    modules, from every import statement of each (ast.walk: function
    bodies and TYPE_CHECKING blocks included)."""
    name, modules = python_modules(package)

    def own(dotted):
        """The package's module that a dotted name is or is inside of."""
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if candidate in modules:
                return candidate
        return None

    imports = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        found = imports.setdefault(module, {})
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [own(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    # Relative to the package: its modules are one level
                    # below it (the package has no subpackages).
                    if node.level > 1:
                        continue
                    base = name + ("." + node.module if node.module else "")
                else:
                    base = node.module or ""
                if own(base) is None:
                    continue
                if base == name:  # from . import x: module x, or the package
                    targets = [own(f"{name}.{alias.name}") or name
                               for alias in node.names]
                else:
                    targets = [own(base)]
            for target in targets:
                if target and target != module:
                    found.setdefault(target, []).append(node.lineno)
    return name, modules, imports


def check_python_imports(package, problems):
    """No import circle among the package's modules (10.)."""
    name, modules, imports = python_imports(package)
    graph = {module: set(targets) for module, targets in imports.items()}
    for component in circles(graph):
        ties = [f"{os.path.basename(modules[a])}:"
                f"{','.join(str(n) for n in imports[a][b][:3])} imports {b}"
                for a in component for b in component if b in imports.get(a, {})]
        problems.append(f"{package}: modules that import each other: "
                        + ", ".join(component) + " (" + "; ".join(ties) + ")")
    return len(modules), sum(len(t) for t in graph.values())


CATALOG_FILES = re.compile(r"^scan/catalog[^/]*\.[ch]$")
FAMILY_MAIN_DEFINITION = re.compile(
    r"^[A-Za-z_][\w \t\*]*?\b(\w*family_main\w*)\s*\(", re.M)


def without_comments(text):
    """text with its /* */ and // comments blanked, its lines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def handle_fields(lib):
    """The names of struct cudaload_ctx's fields (core/context.h)."""
    with open(os.path.join(lib, "core", "context.h"), encoding="utf-8") as f:
        body = HANDLE_STRUCT.search(without_comments(f.read()))
    names = []
    for declaration in (body.group(1).split(";") if body else []):
        declaration = declaration.strip()
        if not declaration:
            continue
        # "void (*x_free)(T *)": the name in the parentheses; else each
        # comma-separated declarator's last word.
        pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", declaration)
        if pointer:
            names.append(pointer.group(1))
            continue
        for declarator in declaration.split(","):
            words = re.findall(r"\w+", declarator)
            if words:
                names.append(words[-1])
    return names


def check_handle_fields(lib, problems):
    fields = handle_fields(lib)
    if not fields:
        problems.append("lib/core/context.h: struct cudaload_ctx not found")
        return 0
    for name in fields:
        if name not in HANDLE_FIELDS:
            problems.append(f"lib/core/context.h: the handle's field {name} "
                            "has no owning stage in HANDLE_FIELDS (13.)")
    names = "|".join(sorted(HANDLE_FIELDS, key=len, reverse=True))
    access = re.compile(r"((?<![&\w])&\s*)?(?<![\w.])(?:\w+->)*ctx->(" + names +
                        r")\b")
    write_after = re.compile(r"\s*(?:[-+*/%&|^]?=(?!=)|\+\+|--)")
    for rel in lib_files(lib):
        stage = rel.split("/")[0]
        if stage == "core":
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            code = without_comments(f.read())
        for m in CAST_TO_HANDLE.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            problems.append(f"lib/{rel}:{line}: a cast to (cudaload_ctx *): "
                            "a const handle stays const (13.)")
        for m in access.finditer(code):
            field = m.group(2)
            owner = HANDLE_FIELDS[field]
            line = code.count("\n", 0, m.start()) + 1
            rest = code[m.end():]
            followed = re.match(r"\s*(->|\.|\[)", rest)
            writes = not followed and (
                m.group(1) is not None or write_after.match(rest) or
                re.search(r"(\+\+|--)\s*$", code[:m.start()]))
            if writes and stage != owner:
                problems.append(
                    f"lib/{rel}:{line}: writes the handle's {field}, which "
                    f"is {owner}/'s: call a function of {owner}/ (13.)")
            elif (stage in STAGES and owner in STAGES and
                  STAGES.index(stage) < STAGES.index(owner)):
                problems.append(
                    f"lib/{rel}:{line}: reads the handle's {field}, which "
                    f"{owner}/, a later stage, writes (13.)")
    return len(fields)


def top_level_blocks(code):
    """The (start, end) of each outermost { } of code (comments and string
    literals already blanked): a function's body, or an initializer's."""
    blocks, depth, start = [], 0, 0
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                blocks.append((start, i + 1))
    return blocks


RECORD_POINTER = re.compile(r"(?<![\w.>])cl_library\s*\*\s*(\w+)")
RECORD_WRITE_AFTER = re.compile(r"\s*(?:[-+*/%&|^]?=(?!=)|\+\+|--)")


def check_record_writes(lib, problems):
    """The inventory's records (struct cl_library, scan/inventory.h) are the
    scan's: no file of another stage assigns, steps or takes the address of
    a field through a `cl_library *` (a parameter or a local of the
    function) or an element of `libraries[]`. What a later stage learns of
    a library is asked of a function of the scan (cl_library_cuda_major,
    the memos' one door), which fills the record itself. Returns the
    number of pointers followed."""
    followed = 0
    for rel in lib_files(lib):
        if rel.split("/")[0] in ("scan", "core"):
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            code = without_comments(f.read())
        code = re.sub(r'"(?:[^"\\\n]|\\.)*"',
                      lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)
        blocks = top_level_blocks(code)
        writes = []
        for m in RECORD_POINTER.finditer(code):
            # The body the name lives in: the block around it (a local), or
            # the next one (a parameter of the function it starts).
            body = next((b for b in blocks if b[0] <= m.start() < b[1]), None) \
                or next((b for b in blocks if b[0] > m.start()), None)
            if not body:
                continue
            followed += 1
            field = re.compile(r"((?<![&\w)\]])&\s*)?(?<![\w.>])" + m.group(1) +
                               r"\s*->\s*(\w+)")
            for w in field.finditer(code, max(m.end(), body[0]), body[1]):
                rest = code[w.end():]
                if re.match(r"\s*(->|\.|\[)", rest):
                    continue
                if w.group(1) or RECORD_WRITE_AFTER.match(rest) or \
                        re.search(r"(\+\+|--)\s*$", code[:w.start()]):
                    writes.append((w.start(), w.group(2)))
        for w in re.finditer(r"((?<![&\w)\]])&\s*)?\blibraries\s*\[[^\]]*\]"
                             r"\s*\.\s*(\w+)", code):
            rest = code[w.end():]
            if not re.match(r"\s*(->|\.|\[)", rest) and \
                    (w.group(1) or RECORD_WRITE_AFTER.match(rest)):
                writes.append((w.start(), w.group(2)))
        for start, name in sorted(set(writes)):
            line = code.count("\n", 0, start) + 1
            problems.append(
                f"lib/{rel}:{line}: writes the inventory record's {name}, "
                "which is scan/'s: ask a function of scan/ (13.)")
    return followed


def check_family_facts(lib, problems):
    for rel in lib_files(lib):
        if CATALOG_FILES.match(rel):
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            code = without_comments(f.read())
        for m in re.finditer(r'"driver"', code):
            start = max(code.rfind(c, 0, m.start()) for c in ";{}") + 1
            ends = [e for e in (code.find(c, m.end()) for c in ";{}") if e >= 0]
            statement = code[start:min(ends) if ends else len(code)]
            # a family named in code, not a word in a string ("family",
            # "driver" in a list of fact names)
            names = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', statement)
            if re.search(r"\bfamily\b", names):
                line = code.count("\n", 0, m.start()) + 1
                problems.append(
                    f"lib/{rel}:{line}: compares a family with \"driver\"; "
                    "the catalogue row says it (cl_catalog_is_driver())")
        for m in FAMILY_MAIN_DEFINITION.finditer(code):
            line_end = code.find("\n", m.start())
            if code[m.start():line_end].rstrip().endswith(";"):
                continue  # a declaration
            line = code.count("\n", 0, m.start()) + 1
            problems.append(
                f"lib/{rel}:{line}: defines {m.group(1)}(); a family's main "
                "library is the catalogue's cl_catalog_family_main()")


def symbols(nm, obj):
    out = subprocess.run([nm, obj], capture_output=True, text=True, check=True)
    defined, needed = set(), set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            needed.add(parts[1])
    return defined, needed


def source_of(obj):
    """lib/<stage>/<file>.c for an object file of cudaload_objects."""
    path = obj.replace("\\", "/")
    tail = path.split("cudaload_objects.dir/", 1)[-1]
    return re.sub(r"\.(c\.)?o(bj)?$", ".c", tail)


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def check_layers(objects, nm, problems):
    defined_in, needs = {}, {}
    for obj in objects:
        source = source_of(obj)
        defined, needed = symbols(nm, obj)
        needs[source] = needed
        for name in defined:
            defined_in[name] = source
    graph, why = {}, {}
    for source, needed in needs.items():
        for name in needed:
            target = defined_in.get(name)
            if target and target != source:
                graph.setdefault(source, set()).add(target)
                why.setdefault((source, target), []).append(name)
    for component in circles(graph):
        ties = [f"{a} -> {b}: {', '.join(sorted(why[(a, b)])[:4])}"
                for a in component for b in component if (a, b) in why]
        problems.append("files that need each other: " + ", ".join(component)
                        + " (" + "; ".join(ties) + ")")
    for (source, target), names in sorted(why.items()):
        a, b = source.split("/")[0], target.split("/")[0]
        if a in STAGES and b in STAGES and STAGES.index(b) > STAGES.index(a):
            problems.append(f"{source} ({a}) needs the later stage {b}: "
                            f"{target} ({', '.join(sorted(names)[:4])})")
    return len(needs), sum(len(t) for t in graph.values())


# A fix note's call: its format is the argument after the fix (and, for
# cl_fix_note, after the step).
NOTE_CALL = re.compile(r"\b(cl_fix_add_note|cl_fix_note)\s*\(")


def call_span(code, start):
    """The top-level arguments of the call whose '(' is at start, and the
    index of the ')' that closes it (len(code) when none does)."""
    args, depth, begin, i = [], 0, start + 1, start
    quoted = None
    while i < len(code):
        c = code[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == quoted:
                quoted = None
        elif c in "\"'":
            quoted = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(code[begin:i].strip())
                return args, i
        elif c == "," and depth == 1:
            args.append(code[begin:i].strip())
            begin = i + 1
        i += 1
    return args, len(code)


def call_arguments(code, start):
    """The top-level arguments of the call whose '(' is at start."""
    return call_span(code, start)[0]


def check_fix_words(lib, problems):
    """12. A fix note's words are problem/fix_words.h's: outside lib/problem/
    no call of cl_fix_add_note or cl_fix_note has a format with words of its
    own (a string literal with a letter in it)."""
    for rel in lib_files(lib):
        if rel.startswith("problem/") or rel == "common/fix_steps.c":
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            code = without_comments(f.read())
        for m in NOTE_CALL.finditer(code):
            args = call_arguments(code, m.end() - 1)
            at = 1 if m.group(1) == "cl_fix_add_note" else 2
            if len(args) <= at:
                continue
            literals = re.findall(r'"((?:[^"\\\n]|\\.)*)"', args[at])
            # Words: letters outside the conversions ("%s", "%zu").
            if any(re.search(r"[A-Za-z]", re.sub(
                    r"%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[a-zA-Z]", "", lit))
                   for lit in literals):
                line = code.count("\n", 0, m.start()) + 1
                problems.append(
                    f"lib/{rel}:{line}: {m.group(1)} with words of its own "
                    f"({args[at][:60]}); a fix note's words are a CL_NOTE_* "
                    "of problem/fix_words.h")


SENTENCE_LITERALS = re.compile(
    r'"(?:[^"\\\n]|\\.)*"(?:(?:\s|\\\n)*"(?:[^"\\\n]|\\.)*")*')
# A last error's words: cl_fail and its kin, and the seam's answer forms
# of them (own_no fills a cl_os_no that a caller hands to cl_fail_os_no or
# passes on; proc_maps.c's maps_malformed is cl_fail for one maps line).
LAST_ERROR_CALL = re.compile(
    r"\b(cl_fail|cl_fail_os|cl_fail_os_no|cl_fail_naming|own_no|"
    r"maps_malformed)\s*\(")
# The other answer form: a cl_os_no's words set by hand (no->what = "...").
LAST_ERROR_WHAT = re.compile(r"(?:->|\.)\s*what\s*=(?!=)[^;]*;")
# In lib/binary, the ELF and PE readers' malformed-file errors: the calls
# that end in cl_binary_malformed() ("<file>: malformed <what>: ..."), and
# the name of the table or record they are told (their `what`), said where
# the fault is found.
BINARY_LAST_ERROR_CALL = re.compile(
    r"\b(cl_binary_malformed|cl_binary_read|cl_elf_map_address|"
    r"cl_pe_read_string|elf_check_table|bad|hash_read|sym_table_at|"
    r"sym_read_table|sym_read_record|sym_string)\s*\(")
BINARY_WHAT = re.compile(r"\bwhat\s*=(?!=)[^;]*;")
FACT_CALL = re.compile(r"\b(cl_problem_factf?|cl_verdict_fact)\s*\(")
CONVERSION = re.compile(r"%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[a-zA-Z]")


def call_end(code, start):
    """The index of the ')' closing the call whose '(' is at start."""
    return call_span(code, start)[1]


def literal_text(group):
    """What adjacent literals say as one, escapes and conversions as
    blanks."""
    text = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', group))
    if re.fullmatch(r"[\w .-]*(?:(?:\\\\|/)[\w .-]*)+", text):
        return ""  # a path ("NVIDIA GPU Computing Toolkit\\CUDA"), not words
    return re.sub(r"\\(?:x[0-9A-Fa-f]+|[0-7]{1,3}|.)", " ",
                  CONVERSION.sub(" ", text))


def is_sentence(text):
    """Three words or more, two of them followed by another word."""
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
    return (len(words) >= 3 and
            len(re.findall(r"[A-Za-z]+\s+[A-Za-z(]", text)) >= 2)


def check_sentence_words(lib, problems, notes):
    """14. A sentence's words are common/reason_words.h's (or another words
    file's): no sentence literal in the saying stages outside the files
    allowed, and no fact value with words of its own."""
    counts = {}
    for rel in lib_files(lib):
        if not rel.startswith(SENTENCE_STAGES) or rel in WORDS_ALLOWED:
            continue
        with open(os.path.join(lib, rel), encoding="utf-8") as f:
            code = without_comments(f.read())
        code = re.sub(r"^[ \t]*#[ \t]*include[^\n]*",
                      lambda m: " " * len(m.group(0)), code, flags=re.M)
        said_where_failed = [(m.start(), call_end(code, m.end() - 1))
                             for m in LAST_ERROR_CALL.finditer(code)]
        said_where_failed += [(m.start(), m.end())
                              for m in LAST_ERROR_WHAT.finditer(code)]
        if rel.startswith("binary/"):
            said_where_failed += [
                (m.start(), call_end(code, m.end() - 1))
                for m in BINARY_LAST_ERROR_CALL.finditer(code)]
            said_where_failed += [(m.start(), m.end())
                                  for m in BINARY_WHAT.finditer(code)]
        found = []
        for m in SENTENCE_LITERALS.finditer(code):
            if any(a <= m.start() < b for a, b in said_where_failed):
                continue
            if is_sentence(literal_text(m.group(0))):
                found.append((m.start(), m.group(0)))
        for m in FACT_CALL.finditer(code):
            args = call_arguments(code, m.end() - 1)
            at = 1 if m.group(1) == "cl_verdict_fact" else 4
            if len(args) <= at:
                continue
            for value in re.findall(r'"(?:[^"\\\n]|\\.)*"',
                                    ",".join(args[at:])):
                words = CONVERSION.sub("", value)
                if re.search(r"[A-Za-z]{2,}", words) and " " in value:
                    found.append((m.start(), value))
        if rel in KNOWN_WORDS and len(found) <= KNOWN_WORDS[rel]:
            counts[rel] = len(found)
            continue
        for start, group in found:
            line = code.count("\n", 0, start) + 1
            said = re.sub(r"\s+", " ", group)[:70]
            problems.append(
                f"lib/{rel}:{line}: a sentence of its own ({said}); its words "
                "are a CL_WORDS_* of common/reason_words.h")
    for rel, known in sorted(KNOWN_WORDS.items()):
        now = counts.get(rel, 0)
        notes.append(f"lib/{rel}: {now} sentence(s) still to move to "
                     f"common/reason_words.h (KNOWN_WORDS: {known})"
                     + ("; take it off the list" if now == 0 else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the repository")
    parser.add_argument("--objects", default="",
                        help="the library's object files, ';'-separated")
    parser.add_argument("--nm", default="nm")
    parser.add_argument("--python-package", default="",
                        help="the Python package folder to check (default: "
                             "REPO/bindings/python/cudaload)")
    args = parser.parse_args()
    lib = os.path.join(args.source, "lib")
    problems, notes = [], []
    check_platform_rule(lib, problems)
    check_folders(lib, problems)
    check_error_clears(lib, problems)
    asked = check_answers(args.source, problems)
    check_tool_includes(os.path.join(args.source, "tools"), problems)
    check_ascii_names(args.source, problems)
    check_one_seam(args.source, problems)
    check_family_facts(lib, problems)
    check_fix_words(lib, problems)
    fields = check_handle_fields(lib, problems)
    check_record_writes(lib, problems)
    check_sentence_words(lib, problems, notes)
    sources, includes = check_includes(lib, problems, notes)
    counted, known_over = check_file_lengths(args.source, problems, notes)
    summary = ("platform rule, folders, error clears, answers without side "
               f"effects (no kept last error; {asked} cl_asking scopes, in "
               "answer forms), the tool's includes, "
               "ASCII names, one seam, the catalogue's family facts and the "
               "fix notes' and the reasons' words "
               f"checked; the handle's {fields} fields each written by "
               "their stage, the inventory's records by the scan; "
               f"{sources} source files, "
               f"{includes} includes between them, no circle; "
               f"{counted} files of lib/ and tools/, none over {MAX_LINES} "
               f"lines but {known_over} known (KNOWN_LONG)")
    package = args.python_package or os.path.join(
        args.source, "bindings", "python", "cudaload")
    if os.path.isdir(package):
        modules, imports = check_python_imports(package, problems)
        summary += (f"; the Python package: {modules} modules, {imports} "
                    "imports between them, no circle")
    elif args.python_package:
        problems.append(f"{package}: no such Python package folder")
    objects = [o for o in args.objects.split(";") if o]
    if objects:
        files, edges = check_layers(objects, args.nm, problems)
        summary += f"; {files} object files, {edges} dependencies, no circle"
    for note in notes:
        print("check_architecture: note: " + note)
    for problem in problems:
        print("check_architecture: " + problem)
    if problems:
        print(f"check_architecture: {len(problems)} problem(s) "
              "(docs/architecture.md says what goes where)")
        return 1
    print("check_architecture: " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
