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
   circle, and no stage needs a later one (common, core, binary, scan, load,
   probe, report). The seam may be called by any stage and may call the data
   functions of the stage it serves, never around a circle.
4. The error idiom: cl_clear_error() is called by public functions
   (cudaload_*) only, on entry or when they succeed after consuming a
   helper's failure, and by the few internal functions that turn a failure
   into data and go on (CLEARS_CONSUMED). Any other caller is a helper that
   wipes what a lookup wrote: the lookup should not write, or its caller
   should keep its own error (cl_save_error/cl_restore_error).
5. The tool uses the library as users do: tools/ includes the public header
   and its own, plus the few utilities it shares with the library for
   showing text and paths (TOOL_UTILITIES), none of the library's stages.
6. Names are compared in ASCII: no file of lib/ or tools/ calls the C
   library's character functions (tolower, isalnum, strcasecmp, ...), which
   follow the locale a host program set (under tr_TR.UTF-8 tolower('I') is
   'I'); common/strutil.h has the ASCII ones (cl_ascii_lower, ...).

Usage: check_architecture.py --source REPO [--objects OBJ;OBJ;...] [--nm NM]
Exit status 0 when the shape holds, 1 with each violation named otherwise.
Python standard library only.
"""

import argparse
import os
import re
import subprocess
import sys

STAGES = ["common", "core", "binary", "scan", "load", "probe", "report"]
SEAM = ["os", "posix", "win32"]
LIB_FILES = {"CMakeLists.txt", "cudaload.def", "cudaload.map",
             "cudaload.rc.in"}
OS_SWITCH = "os/platform.h"
# Internal functions that clear the last error because they have just
# turned a failure into data (a probe stage's message, a preload error kept
# for the stages) or are an entry point of their own (the manifest fuzzer's).
CLEARS_CONSUMED = {"cl_restore_error", "cl_manifest_load_text", "load_text",
                   "ensure_preloaded", "requirement_handle",
                   "cl_probe_run_in_process"}
# What the tool may include besides cudaload.h and its own cli*.h: escaping
# for a terminal, UTF-8 <-> UTF-16 for its arguments, absolute paths and the
# library's environment reader (cl_os_getenv: no narrow getenv on Windows),
# and the quoting of a word in a command it prints (exec --dry-run), which
# the library's fix lines use too.
TOOL_UTILITIES = {"common/text_escape.h", "os/platform.h", "win32/wide.h",
                  "common/shell_word.h"}


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
                        "not write it, or its caller keeps its own "
                        "(cl_save_error/cl_restore_error)")


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the repository")
    parser.add_argument("--objects", default="",
                        help="the library's object files, ';'-separated")
    parser.add_argument("--nm", default="nm")
    args = parser.parse_args()
    lib = os.path.join(args.source, "lib")
    problems = []
    check_platform_rule(lib, problems)
    check_folders(lib, problems)
    check_error_clears(lib, problems)
    check_tool_includes(os.path.join(args.source, "tools"), problems)
    check_ascii_names(args.source, problems)
    summary = ("platform rule, folders, error clears, the tool's includes "
               "and ASCII names checked")
    objects = [o for o in args.objects.split(";") if o]
    if objects:
        files, edges = check_layers(objects, args.nm, problems)
        summary += f"; {files} object files, {edges} dependencies, no circle"
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
