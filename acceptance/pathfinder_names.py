#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 12 of scripts/acceptance: every library name NVIDIA's cuda-pathfinder
knows is one cudaload recognises, as the same library.

The installed package's own table is read (cuda/pathfinder/_dynamic_libs/
descriptor_catalog.py, DESCRIPTOR_CATALOG: name, linux_sonames,
windows_dlls), so a pathfinder release that adds a name shows up here as a
failure to fix, not as a silent gap. Each file name becomes an empty file in
a scratch folder (lib64/ for Linux names, bin/ for Windows names: a scan
recognises libraries by name) and `cudaload scan --format json` (with
--target windows for the DLLs) must list it as the library pathfinder names.

Usage: pathfinder_names.py TOOL PATHFINDER_SITE WORK
PATHFINDER_SITE: a folder holding the cuda/pathfinder package (an unpacked
wheel). Prints ok/FAIL lines; exit 0 when every name is recognised."""

import json
import os
import shutil
import subprocess
import sys

TOOL, SITE, WORK = sys.argv[1:4]
sys.path.insert(0, SITE)
from cuda.pathfinder._dynamic_libs.descriptor_catalog import DESCRIPTOR_CATALOG  # noqa: E402
try:
    from cuda.pathfinder import __version__ as pathfinder_version
except ImportError:
    pathfinder_version = "unknown"

failed = 0


def check(ok, text):
    global failed
    print("%-4s %s" % ("ok" if ok else "FAIL", text))
    failed += not ok


def scan(folder, target):
    argv = [TOOL, "scan", "--no-defaults", "--root", folder, "--format", "json"]
    if target:
        argv[2:2] = ["--target", target]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        print(p.stderr)
        return {}
    return {os.path.basename(l["path"]): l for l in json.loads(p.stdout)["libraries"]}


print("cuda-pathfinder %s: %d libraries" % (pathfinder_version, len(DESCRIPTOR_CATALOG)))
shutil.rmtree(WORK, ignore_errors=True)
for platform, attr, sub, target in (("Linux", "linux_sonames", "lib64", None),
                                    ("Windows", "windows_dlls", "bin", "windows")):
    folder = os.path.join(WORK, platform.lower())
    os.makedirs(os.path.join(folder, sub))
    wanted = {}
    for d in DESCRIPTOR_CATALOG:
        for name in getattr(d, attr):
            wanted[name] = d.name
            open(os.path.join(folder, sub, name), "w").close()
    found = scan(folder, target)
    bad = []
    for name, library in sorted(wanted.items()):
        lib = found.get(name)
        if not lib or lib["name"] != library:
            bad.append("%s (pathfinder: %s; cudaload: %s)"
                       % (name, library, lib["name"] if lib else "not recognised"))
    majors = sorted({"%s %s" % (found[n]["name"], found[n]["major"]) for n in wanted if n in found})
    check(not bad, "%s: %d of %d names pathfinder lists are recognised as its libraries%s"
          % (platform, len(wanted) - len(bad), len(wanted),
             "; missing or different: " + ", ".join(bad) if bad else ""))
    print("     %s: %s" % (platform, ", ".join(majors)))
sys.exit(1 if failed else 0)
