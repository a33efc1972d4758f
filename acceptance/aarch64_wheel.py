#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 13 of scripts/acceptance: a real aarch64 wheel (NVIDIA's
nvidia-cuda-runtime-cu12 for manylinux2014_aarch64, as Grace/SBSA servers
and Jetson install it), unpacked on this x86_64 machine: `cudaload scan`
recognises libcudart.so.12 with its wheel's version and machine "aarch64"
(the same as readelf's e_machine), and a plan for this process refuses it,
saying why, instead of handing the loader a file it cannot load.

Usage: aarch64_wheel.py TOOL SITE
Prints ok/FAIL lines; exit 0 when every check passed."""

import json
import os
import platform
import subprocess
import sys

TOOL, SITE = sys.argv[1:3]
failed = 0


def check(ok, text):
    global failed
    print("%-4s %s" % ("ok" if ok else "FAIL", text))
    failed += not ok


def run(*args):
    return subprocess.run([TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


lib_path = os.path.join(SITE, "nvidia", "cuda_runtime", "lib", "libcudart.so.12")
with open(lib_path, "rb") as f:
    head = f.read(20)
e_machine = int.from_bytes(head[18:20], "little")
check(e_machine == 183, "the wheel's libcudart.so.12 is an aarch64 ELF (e_machine %d, EM_AARCH64 = 183)"
      % e_machine)
for target in (None, "linux-aarch64"):
    argv = ["scan", "--no-defaults", "--root", SITE, "--format", "json"]
    if target:
        argv += ["--target", target]
    p = run(*argv)
    libs = [l for l in json.loads(p.stdout)["libraries"] if l["name"] == "cudart"] if p.returncode == 0 else []
    lib = libs[0] if libs else {}
    check(lib.get("major") == 12 and lib.get("cuda_major") == 12 and lib.get("version") == "12.4.127"
          and lib.get("version_source") == "dist-info" and lib.get("machine") == "aarch64",
          "scan%s: cudart 12, CUDA %s, version %s (%s), machine %s"
          % (" --target " + target if target else "", lib.get("cuda_major"), lib.get("version"),
             lib.get("version_source"), lib.get("machine")))
if platform.machine() in ("x86_64", "AMD64"):
    p = run("env", "--no-defaults", "--root", SITE, "--require", "cudart=12", "--dry-run")
    said = [l.strip() for l in p.stderr.splitlines() if "built for aarch64" in l]
    check(p.returncode == 4 and said,
          "cudaload env --require cudart=12 for this x86_64 process: exit %d, %s"
          % (p.returncode, said[:1] or p.stderr.strip()[-300:]))
sys.exit(1 if failed else 0)
