#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of cudaload's win_amd64 wheel for tests/wheels/check-wheels.

    check_windows_wheel.py wheel WHEEL --extract DIR
        A valid wheel: every member listed in RECORD with its sha256 and size
        (RECORD itself excepted) and nothing listed that is absent; WHEEL says
        Root-Is-Purelib: false and Tag: py3-none-win_amd64, as the file name
        does; the package is laid out as a native Windows build lays it out
        (cudaload/_lib/cudaload.dll and cudaload.exe, cudaload/_include/
        cudaload.h, the Python modules, no Linux library). Then extracts it
        into DIR.
    check_windows_wheel.py pe FILE --objdump OBJDUMP
        FILE is a PE32+ image for x86-64 (machine AMD64, 0x8664) whose imports
        (objdump -p, as tests/check_def.py reads them) are only KERNEL32.dll,
        ADVAPI32.dll and msvcrt.dll: system DLLs every Windows has.

Prints one line saying what was found; exit status 0 when the check passes,
1 with the problems otherwise.
"""

import argparse
import base64
import hashlib
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from check_def import dll_imports, objdump_private_headers  # noqa: E402  (tests/)

TAG = "py3-none-win_amd64"
REQUIRED = ("cudaload/__init__.py", "cudaload/_library.py", "cudaload/_version.py",
            "cudaload/py.typed", "cudaload/_lib/cudaload.dll", "cudaload/_lib/cudaload.exe",
            "cudaload/_include/cudaload.h")
ALLOWED_IMPORTS = ("KERNEL32.dll", "ADVAPI32.dll", "msvcrt.dll")
IMAGE_FILE_MACHINE_AMD64 = 0x8664
PE32_PLUS = 0x20B


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def check_wheel(path, extract_dir):
    problems = []
    name = os.path.basename(path)
    match = re.match(r"^([^-]+)-([^-]+)-(.+)\.whl$", name)
    if not match or match.group(3) != TAG:
        problems.append("%s: the file name's tag is not %s" % (name, TAG))
        return problems, ""
    dist_info = "%s-%s.dist-info" % (match.group(1), match.group(2))
    try:
        wheel = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        return ["%s: not a zip file: %s" % (path, exc)], ""
    with wheel:
        names = [n for n in wheel.namelist() if not n.endswith("/")]
        if dist_info + "/RECORD" not in names or dist_info + "/WHEEL" not in names:
            return ["%s: no %s/RECORD or WHEEL" % (name, dist_info)], ""
        record = {}
        for line in wheel.read(dist_info + "/RECORD").decode("utf-8").splitlines():
            if line:
                member, digest, size = line.rsplit(",", 2)
                record[member] = (digest, size)
        for member in names:
            if member == dist_info + "/RECORD":
                continue
            data = wheel.read(member)
            if member not in record:
                problems.append("%s: %s is not in RECORD" % (name, member))
            elif record[member] != (record_hash(data), str(len(data))):
                problems.append("%s: %s does not match its RECORD hash and size" % (name, member))
        for member in sorted(set(record) - set(names)):
            problems.append("%s: RECORD lists %s, which the wheel lacks" % (name, member))
        fields = dict(re.findall(r"^([A-Za-z-]+): *(.*?)\s*$",
                                 wheel.read(dist_info + "/WHEEL").decode("utf-8"), flags=re.M))
        if fields.get("Tag") != TAG or fields.get("Root-Is-Purelib") != "false":
            problems.append("%s: WHEEL says Tag %r, Root-Is-Purelib %r; expected %s, false"
                            % (name, fields.get("Tag"), fields.get("Root-Is-Purelib"), TAG))
        if "%s/METADATA" % dist_info not in names:
            problems.append("%s: no %s/METADATA" % (name, dist_info))
        for member in REQUIRED:
            if member not in names:
                problems.append("%s: %s is missing" % (name, member))
        for member in names:
            if not (member.startswith("cudaload/") or member.startswith(dist_info + "/")):
                problems.append("%s: %s is outside the package and its dist-info" % (name, member))
            if re.search(r"\.so(\.\d+)*$", member):
                problems.append("%s: %s is a Linux library" % (name, member))
        if not problems:
            wheel.extractall(extract_dir)
    modules = sum(1 for n in names if n.endswith(".py"))
    return problems, ("%s: valid wheel, Tag %s, Root-Is-Purelib false, %d files match RECORD"
                      " (cudaload.dll, cudaload.exe, cudaload.h, %d modules)"
                      % (name, TAG, len(names) - 1, modules))


def pe_machine(path):
    """(machine, optional-header magic) from a PE file's headers."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:2] != b"MZ" or len(head) < 0x40:
        raise ValueError("no MZ header")
    offset = int.from_bytes(head[0x3C:0x40], "little")
    if head[offset:offset + 4] != b"PE\0\0":
        raise ValueError("no PE signature at 0x%x" % offset)
    machine = int.from_bytes(head[offset + 4:offset + 6], "little")
    magic = int.from_bytes(head[offset + 24:offset + 26], "little")
    return machine, magic


def check_pe(path, objdump):
    name = os.path.basename(path)
    try:
        machine, magic = pe_machine(path)
    except (OSError, ValueError) as exc:
        return ["%s: not a PE file: %s" % (path, exc)], ""
    problems = []
    if machine != IMAGE_FILE_MACHINE_AMD64 or magic != PE32_PLUS:
        problems.append("%s: machine 0x%04x, optional header 0x%x; expected AMD64 (0x8664), PE32+"
                        % (name, machine, magic))
    imports = dll_imports(objdump_private_headers(path, objdump))
    allowed = {a.lower() for a in ALLOWED_IMPORTS}
    for imported in imports:
        if imported.lower() not in allowed:
            problems.append("%s: imports %s; only %s are allowed"
                            % (name, imported, ", ".join(ALLOWED_IMPORTS)))
    if not imports:
        problems.append("%s: objdump found no import table" % name)
    return problems, "%s: AMD64 (PE32+), imports %s" % (name, ", ".join(imports))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    wheel = sub.add_parser("wheel")
    wheel.add_argument("wheel")
    wheel.add_argument("--extract", required=True)
    pe = sub.add_parser("pe")
    pe.add_argument("file")
    pe.add_argument("--objdump", default="x86_64-w64-mingw32-objdump")
    args = parser.parse_args()
    if args.command == "wheel":
        problems, summary = check_wheel(args.wheel, args.extract)
    elif args.command == "pe":
        problems, summary = check_pe(args.file, args.objdump)
    else:
        parser.error("a command is required: wheel or pe")
    if problems:
        print("; ".join(problems))
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
