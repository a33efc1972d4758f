#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that lib/cudaload.def exports exactly the CUDALOAD_API functions of
include/cudaload.h, and optionally that a built cudaload.dll agrees.

    check_def.py HEADER DEF
    check_def.py HEADER DEF --dll cudaload.dll --objdump x86_64-w64-mingw32-objdump
                 [--version 0.2.0]

The .def is kept by hand (a Windows build exports what it lists), so a
function added to the header and forgotten there would be missing from the
DLL only; this test catches that on every build. With --dll it also reads the
DLL's export table (objdump -p), checks that it imports no toolchain runtime
DLL (libgcc_s_seh-1.dll, libwinpthread-1.dll) and reads its VERSIONINFO
strings.

Exit status: 0 when everything agrees, 1 with a list of differences otherwise.
"""

import argparse
import re
import subprocess
import sys

EXPORT_PREFIX = "cudaload_"


def header_functions(header_text):
    """Names of the functions declared with CUDALOAD_API."""
    # Comments could mention CUDALOAD_API; preprocessor lines define it.
    text = re.sub(r"/\*.*?\*/", " ", header_text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = "\n".join(
        line for line in text.splitlines() if not line.lstrip().startswith("#")
    )
    names = []
    # A declaration runs from CUDALOAD_API to the first '(' (its return type
    # may break across lines); the name is the last identifier before it.
    for match in re.finditer(r"\bCUDALOAD_API\b([^;(]*)\(", text):
        identifiers = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", match.group(1))
        if identifiers:
            names.append(identifiers[-1])
    return names


def def_exports(def_text):
    """Names listed under EXPORTS in a module-definition file."""
    names = []
    in_exports = False
    for raw in def_text.splitlines():
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        keyword = line.split()[0].upper()
        if keyword == "EXPORTS":
            in_exports = True
            rest = line[len("EXPORTS"):].strip()
            if rest:
                names.append(rest.split()[0])
            continue
        if keyword in ("LIBRARY", "NAME", "DESCRIPTION", "VERSION",
                       "HEAPSIZE", "STACKSIZE", "SECTIONS"):
            in_exports = False
            continue
        if in_exports:
            # "name", "name @ordinal", "name=internal" and "name DATA".
            names.append(re.split(r"[\s=@]", line, maxsplit=1)[0])
    return names


def objdump_private_headers(dll, objdump):
    """objdump -p of a PE file: its import and export tables among others."""
    return subprocess.run([objdump, "-p", dll], check=True,
                          stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def dll_exports(objdump_output):
    """Names in the export table of objdump -p output."""
    names = []
    in_table = False
    for line in objdump_output.splitlines():
        if line.startswith("[Ordinal/Name Pointer] Table"):
            in_table = True
            continue
        if in_table:
            # "\t[   0] cudaload_create"
            match = re.match(r"\s*\[\s*\d+\]\s+(\S+)", line)
            if not match:
                break
            names.append(match.group(1))
    return names


def dll_imports(objdump_output):
    """Names of the DLLs a PE file imports, from objdump -p output."""
    return re.findall(r"^\s*DLL Name:\s*(\S+)", objdump_output, flags=re.M)


# Runtime DLLs of the GNU toolchain: users of cudaload.dll do not have them,
# so the DLL must link them statically (-static-libgcc).
TOOLCHAIN_RUNTIME = re.compile(
    r"^lib(gcc_s|winpthread|stdc\+\+|ssp|atomic|gomp|quadmath)", re.I)


def version_strings(dll):
    """VERSIONINFO string values (FileVersion, ProductName, ...) of a PE."""
    data = open(dll, "rb").read()
    values = {}
    for key in ("CompanyName", "FileDescription", "FileVersion",
                "LegalCopyright", "OriginalFilename", "ProductName",
                "ProductVersion"):
        encoded = (key + "\0").encode("utf-16-le")
        at = data.find(encoded)
        if at < 0:
            continue
        # The value follows the key, aligned on 4 bytes, NUL-terminated.
        start = at + len(encoded)
        start += (4 - start % 4) % 4
        end = start
        while end + 1 < len(data) and data[end:end + 2] != b"\0\0":
            end += 2
        values[key] = data[start:end].decode("utf-16-le", "replace")
    return values


def compare(what, expected, actual, problems):
    expected_set, actual_set = set(expected), set(actual)
    for name in sorted(expected_set - actual_set):
        problems.append("%s: missing %s" % (what, name))
    for name in sorted(actual_set - expected_set):
        problems.append("%s: has %s, which the header does not declare"
                        % (what, name))
    for name in sorted({n for n in actual if actual.count(n) > 1}):
        problems.append("%s: lists %s more than once" % (what, name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("header")
    parser.add_argument("def_file")
    parser.add_argument("--dll", help="a built cudaload.dll to check too")
    parser.add_argument("--objdump", default="objdump",
                        help="an objdump that reads PE files")
    parser.add_argument("--version",
                        help="the expected VERSIONINFO version, a.b.c")
    args = parser.parse_args()

    with open(args.header, encoding="utf-8") as f:
        declared = header_functions(f.read())
    with open(args.def_file, encoding="utf-8") as f:
        listed = def_exports(f.read())

    problems = []
    if not declared:
        problems.append("%s: no CUDALOAD_API function found" % args.header)
    for name in declared:
        if not name.startswith(EXPORT_PREFIX):
            problems.append("%s: %s does not start with %s"
                            % (args.header, name, EXPORT_PREFIX))
    compare(args.def_file, declared, listed, problems)

    if args.dll:
        headers = objdump_private_headers(args.dll, args.objdump)
        compare(args.dll + " (export table)", declared, dll_exports(headers),
                problems)
        for imported in dll_imports(headers):
            if TOOLCHAIN_RUNTIME.match(imported):
                problems.append("%s: imports %s, a toolchain runtime DLL users"
                                " do not have (link with -static-libgcc)"
                                % (args.dll, imported))
        strings = version_strings(args.dll)
        expected = {"CompanyName": "libcudaload developers",
                    "LegalCopyright": "Copyright (c) 2026 the libcudaload"
                                      " authors. MIT License.",
                    "OriginalFilename": "cudaload.dll",
                    "ProductName": "libcudaload"}
        if args.version:
            expected["FileVersion"] = args.version + ".0"
            expected["ProductVersion"] = args.version + ".0"
        for key, value in sorted(expected.items()):
            if strings.get(key) != value:
                problems.append("%s: VERSIONINFO %s is %r, expected %r"
                                % (args.dll, key, strings.get(key), value))

    for problem in problems:
        print(problem)
    if problems:
        print("check_def: %d problem(s); the header %s is the reference"
              % (len(problems), args.header))
        return 1
    print("check_def: %d functions; %s matches %s%s"
          % (len(declared), args.def_file, args.header,
             " and " + args.dll if args.dll else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
