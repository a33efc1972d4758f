#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 9 of scripts/acceptance: choosing what the user means, with real
wheels. A venv of CUDA 12 wheels (cudart, cuBLAS, cuDNN 9 for CUDA 12) on a
machine whose CUDA 13 toolkit is also a default root: the C tool (with
VIRTUAL_ENV, as an activated venv has it) and the Python package (run by the
venv's interpreter, which passes its own site folders) must plan every family
from the venv, for CUDA 12, and agree file by file.

Usage: choice.py TOOL VENV TOOLKIT_LIB
Prints ok/FAIL lines; exit 0 when every check passed."""

import json
import os
import subprocess
import sys

TOOL, VENV, TOOLKIT = sys.argv[1:4]
SPEC = "cudart,cublas,cudnn=9"
failed = 0


def check(ok, text):
    global failed
    print("%-4s %s" % ("ok" if ok else "FAIL", text))
    failed += not ok


def real(path):
    return os.path.realpath(path) if path else path


def choices(doc):
    return {q["spec"]: (real(q["path"]), q["tier"], q["cuda_major"]) for q in doc["requirements"]}


# The C tool, in the activated venv (its VIRTUAL_ENV; PATH as it is).
env = dict(os.environ, VIRTUAL_ENV=VENV)
c = subprocess.run([TOOL, "doctor", "--require", SPEC, "--format", "json"], env=env,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
c_doc = json.loads(c.stdout)
c_choice = choices(c_doc)
toolkit_has = {l["family"] for l in c_doc["libraries"]
               if real(l["path"]).startswith(real(TOOLKIT)) and l["cuda_major"] == 13}
check({"cudart", "cublas", "cudnn"} <= toolkit_has,
      "the CUDA 13 toolkit is a root too and holds cudart, cuBLAS and cuDNN 9 for CUDA 13 (%s)"
      % ", ".join(sorted(toolkit_has)))
for spec, (path, tier, cuda) in sorted(c_choice.items()):
    check(path is not None and path.startswith(real(VENV)) and tier == "environment" and cuda == 12,
          "C tool, VIRTUAL_ENV: %s -> %s (tier %s, CUDA %s)" % (spec, path, tier, cuda))
check(c_doc["cuda_major"] and c_doc["cuda_major"]["major"] == 12,
      "C tool: the plan's CUDA major: %s" % (c_doc["cuda_major"],))

# The Python package, run by the venv's interpreter (no VIRTUAL_ENV: the
# binding passes this interpreter's site folders itself).
env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
py = subprocess.run([os.path.join(VENV, "bin", "python"), "-m", "cudaload", "doctor", "--require",
                     SPEC, "--format", "json"], env=env, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, universal_newlines=True)
try:
    py_doc = json.loads(py.stdout)
except ValueError:
    print(py.stdout, py.stderr)
    check(False, "python -m cudaload doctor printed JSON (exit %d)" % py.returncode)
    sys.exit(1)
py_choice = choices(py_doc)
for spec, (path, tier, cuda) in sorted(py_choice.items()):
    check(path is not None and path.startswith(real(VENV)) and cuda == 12,
          "Python, the venv's interpreter: %s -> %s (tier %s, CUDA %s)" % (spec, path, tier, cuda))
check({s: p for s, (p, _, _) in py_choice.items()} == {s: p for s, (p, _, _) in c_choice.items()},
      "the C tool and the Python package choose the same files")
# cudaload exec in the activated venv: the program's own dlopen of
# libcudnn.so.9 by name (as torch's libtorch_cuda does) gets the venv's
# cuDNN 9.1, and no file of the toolkit's cuDNN is mapped.
PROGRAM = r"""
import ctypes
lib = ctypes.CDLL("libcudnn.so.9")
lib.cudnnGetVersion.restype = ctypes.c_size_t
lib.cudnnCreateTensorDescriptor.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
d = ctypes.c_void_p()
lib.cudnnCreateTensorDescriptor(ctypes.byref(d))   # opens its sub-libraries
print(lib.cudnnGetVersion())
for line in open("/proc/self/maps"):
    path = line.split()[-1]
    if "libcudnn" in path:
        print(path)
"""
env = dict(os.environ, VIRTUAL_ENV=VENV)
env.pop("LD_LIBRARY_PATH", None)
run = subprocess.run([TOOL, "exec", "--require", "cudnn=9", "--", os.path.join(VENV, "bin", "python"),
                      "-c", PROGRAM], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     universal_newlines=True)
lines = run.stdout.split()
mapped = sorted(set(real(p) for p in lines[1:]))
check(run.returncode == 0 and lines[:1] == ["90100"],
      "cudaload exec --require cudnn=9 in the venv: cudnnGetVersion() = %s (the venv's 9.1.0; exit %d)%s"
      % (lines[:1], run.returncode, "" if run.returncode == 0 else "\n" + run.stderr))
check(mapped and all(p.startswith(real(VENV)) for p in mapped),
      "cudaload exec: every cuDNN file mapped is the venv's (%d files; none of the toolkit's)"
      % len(mapped))
sys.exit(1 if failed else 0)
