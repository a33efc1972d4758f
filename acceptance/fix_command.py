#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 11b of scripts/acceptance: `cudaload fix` with real wheels (issue 42,
item 3), in copies of step 11's venv (torch 2.15.0 with CUDA 13 wheels,
ctranslate2 4.4.0), pip pointed at the cached wheels (nvidia-cudnn-cu12
8.9.7.29, nvidia-cublas-cu12 12.1.3.1) and offline:

a. The voice application's case (the bootstrap that downloads cuDNN 8 into
   site-packages/cudnn8_compat and side-loads it before `import torch`):
   `cudaload fix --for ctranslate2 --yes` installs what ctranslate2 needs
   with the venv's own pip (--only-binary=:all:), cuDNN 8 in a folder of
   its own beside site-packages, records it in the venv's cudaload.roots;
   then a plain doctor (no roots) finds it, and after a plain
   `cudaload.setup(require=["cudnn=8", "cudnn=9"])` (no roots) in a fresh
   process `import torch, ctranslate2` works: ctranslate2's cuDNN 8 calls
   (cudnnGetVersion through its bundled shim, a tensor descriptor that
   opens libcudnn_ops_infer.so.8) and its cuBLAS 12 call (cublasCreate_v2
   through its stub: 1, NOT_INITIALIZED, without a GPU) reach the files the
   fix installed, beside torch's own cuDNN 9 and cuBLAS 13, and no file of
   the toolkit is mapped.
b. A missing CUDA 12 cuBLAS beside the CUDA 13 torch: `cudaload fix
   --require cublas=12 --yes`; then setup(require=["cublas=12"]) and torch:
   cublasGetProperty says 12 for the cuBLAS the fix installed and 13 for
   torch's.

Usage: fix_command.py TOOL VENV WHEELS WORK TOOLKIT_LIB
PYTHONPATH must hold the cudaload package, CUDALOAD_LIBRARY the library.
The copies are hard links of VENV (`cp -al`: the fix only adds files, so
VENV is never changed) in WORK, removed at the end. Prints ok/FAIL lines;
exit 0 when every check passed."""

import glob
import json
import os
import shlex
import shutil
import subprocess
import sys

failed = 0


def check(ok, text):
    global failed
    print("%-4s %s" % ("ok" if ok else "FAIL", text), flush=True)
    failed += not ok


def real(path):
    return os.path.realpath(path)


def under(path, folder):
    return real(path).startswith(real(folder).rstrip("/") + "/")


def describe(files):
    return ", ".join(sorted({os.path.dirname(real(f)) for f in files})) or "nothing"


# The child: a plain setup() (no roots), then torch and ctranslate2, and
# the calls each makes into its own cuDNN and cuBLAS.
CHILD = r"""
import ctypes, glob, json, os, sys
RTLD_NOLOAD = getattr(os, "RTLD_NOLOAD", 4)
def mapped():
    out = set()
    for line in open("/proc/self/maps"):
        part = line.split(None, 5)
        if len(part) == 6 and ("libcudnn" in part[5] or "libcublas" in part[5]):
            out.add(part[5].strip())
    return sorted(out)
def loaded(name):
    return [p for p in mapped() if os.path.basename(p) == name]
result = {}
import cudaload
report = cudaload.setup(require=sys.argv[1].split(","))
result.update(report_ok=report.ok, warnings=list(report.warnings),
              plan=[e.path for e in report.plan])
import torch
import ctranslate2
result.update(torch=torch.__version__, cudnn=torch.backends.cudnn.version())
for name, soname in (("torch_cudnn9", "libcudnn.so.9"), ("cublas13", "libcublas.so.13"),
                     ("cublas12", "libcublas.so.12")):
    files = loaded(soname)
    if files:
        h = ctypes.CDLL(files[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
        if "cudnn" in soname:
            result[name] = h.cudnnGetVersion()
        else:
            v = ctypes.c_int()
            h.cublasGetProperty(0, ctypes.byref(v))   # MAJOR_VERSION: no GPU needed
            result[name] = v.value
libs = os.path.join(os.path.dirname(os.path.dirname(ctranslate2.__file__)), "ctranslate2.libs")
core = ctypes.CDLL(glob.glob(os.path.join(libs, "libctranslate2-*.so*"))[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
if "cudnn=8" in sys.argv[1]:
    shim = ctypes.CDLL(glob.glob(os.path.join(libs, "libcudnn-*.so.8*"))[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
    result["shim_version"] = shim.cudnnGetVersion()
    d = ctypes.c_void_p()
    result["shim_descriptor"] = shim.cudnnCreateTensorDescriptor(ctypes.byref(d))
print("BEFORE " + json.dumps(result), flush=True)
h = ctypes.c_void_p()
result["cublas_create"] = core.cublasCreate_v2(ctypes.byref(h))
result["mapped"] = mapped()
print("RESULT " + json.dumps(result), flush=True)
"""


def run(argv, env):
    return subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=3600)


def copy_venv(venv, dest):
    """A copy of venv whose files are hard links: the fix adds files (a
    folder, a record, a wheel's files), never rewrites one."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    subprocess.run(["cp", "-al", venv, dest], check=True)
    return dest


def env_for(copy, wheels):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX") and not k.startswith("PIP_")}
    env.update(VIRTUAL_ENV=copy, PATH=os.path.join(copy, "bin") + os.pathsep + env.get("PATH", ""),
               PIP_NO_INDEX="1", PIP_FIND_LINKS=wheels, PIP_NO_CACHE_DIR="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_CONFIG_FILE=os.devnull)
    return env


def fix(tool, args, env, what):
    r = run([tool, "fix"] + args, env)
    commands = [l[2:] for l in r.stdout.splitlines() if l.startswith("$ ")]
    print("  cudaload fix %s: exit %d; ran: %s" % (" ".join(args), r.returncode,
                                                    commands or "nothing"), flush=True)
    if r.returncode not in (0, 6):
        print(r.stdout[-4000:] + r.stderr[-4000:])
    check(r.returncode in (0, 6) and commands and
          all("--only-binary=:all:" in shlex.split(c) for c in commands) and
          all(os.path.dirname(shlex.split(c)[0]) == os.path.join(env["VIRTUAL_ENV"], "bin")
              for c in commands),
          "%s: cudaload fix %s runs the venv's own pip with --only-binary=:all: (exit %d)"
          % (what, " ".join(args), r.returncode))
    return r


def child(copy, spec):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX")}
    r = run([os.path.join(copy, "bin", "python"), "-c", CHILD, spec], env)
    doc = before = None
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            doc = json.loads(line[7:])
        if line.startswith("BEFORE "):
            before = json.loads(line[7:])
    if doc is None:
        print("  child (%s): exit %d\n%s%s" % (spec, r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    return doc or before or {}


def site_of(copy):
    return glob.glob(os.path.join(copy, "lib", "python3.*", "site-packages"))[0]


def voice(tool, venv, wheels, work, toolkit):
    copy = copy_venv(venv, os.path.join(work, "voice"))
    env = env_for(copy, wheels)
    site = site_of(copy)
    record = os.path.join(os.path.dirname(site), "cudaload.roots")
    r = run([tool, "fix", "--for", "ctranslate2", "--dry-run"], env)
    check(r.returncode == 6 and "\n   run " in r.stdout and not os.path.exists(record),
          "a. cudaload fix --for ctranslate2 --dry-run: shows what it runs, runs nothing (exit %d)"
          % r.returncode)
    fix(tool, ["--for", "ctranslate2", "--yes"], env, "a")
    folders = []
    if os.path.exists(record):
        folders = [l for l in open(record).read().splitlines() if l and not l.startswith("#")]
    cudnn8 = [f for d in folders for f in glob.glob(os.path.join(d, "nvidia", "cudnn", "lib",
                                                                 "libcudnn.so.8"))]
    check(len(folders) == 1 and cudnn8 and under(folders[0], copy),
          "a. cuDNN 8 installed into a folder of its own beside site-packages, recorded in %s: %s"
          % (record, folders))
    d = json.loads(run([tool, "doctor", "--for", "ctranslate2", "--format", "json"], env).stdout)
    req = {q["spec"]: q for q in d["requirements"]}
    check(req.get("cudnn=8", {}).get("satisfied") and req.get("cublas=12", {}).get("satisfied") and
          req["cudnn=8"]["origin"] == "cudaload.roots",
          "a. a plain cudaload doctor --for ctranslate2 (no roots) finds cuDNN 8 (%s, origin %s) "
          "and cuBLAS 12 (%s); left: %s"
          % (req.get("cudnn=8", {}).get("path"), req.get("cudnn=8", {}).get("origin"),
             req.get("cublas=12", {}).get("path"), [p["kind"] for p in d["problems"]]))
    doc = child(copy, "cudnn=8,cudnn=9")
    m = doc.get("mapped", [])
    base = os.path.basename
    check(doc.get("report_ok") and not doc.get("warnings"),
          "a. a plain setup(require=['cudnn=8', 'cudnn=9']) (no roots): ok, no warnings %s"
          % (doc.get("warnings") or ""))
    ops8 = [f for f in m if base(f) == "libcudnn_ops_infer.so.8"]
    check(doc.get("shim_version", 0) // 1000 == 8 and doc.get("shim_descriptor") == 0 and ops8 and
          all(under(f, folders[0]) for f in ops8) if folders else False,
          "a. ctranslate2's cuDNN 8: cudnnGetVersion() = %s through its bundled shim; "
          "cudnnCreateTensorDescriptor() = %s opens libcudnn_ops_infer.so.8 from %s (the folder "
          "fix installed)" % (doc.get("shim_version"), doc.get("shim_descriptor"), describe(ops8)))
    blas12 = [f for f in m if base(f) == "libcublas.so.12"]
    check(doc.get("cublas_create") in (0, 1) and blas12 and all(under(f, copy) for f in blas12),
          "a. ctranslate2's cuBLAS 12: cublasCreate_v2() = %s through its stub (1 = NOT_INITIALIZED: "
          "no GPU), libcublas.so.12 from %s" % (doc.get("cublas_create"), describe(blas12)))
    cudnn9 = [f for f in m if "cudnn" in base(f) and base(f).endswith(".so.9")]
    check(doc.get("cudnn") and doc.get("cudnn") == doc.get("torch_cudnn9") and
          doc["cudnn"] // 10000 == 9 and cudnn9 and all(under(f, site) for f in cudnn9),
          "a. beside them torch %s's own cuDNN 9: torch.backends.cudnn.version() = %s, "
          "cudnnGetVersion() = %s, from %s" % (doc.get("torch"), doc.get("cudnn"),
                                                doc.get("torch_cudnn9"), describe(cudnn9)))
    check(doc.get("cublas13") == 13, "a. and torch's cuBLAS 13: cublasGetProperty(MAJOR) = %s"
          % doc.get("cublas13"))
    tk = [f for f in m if under(f, toolkit)]
    check(not tk, "a. no file of the toolkit (%s) mapped%s" % (toolkit, ": %s" % tk if tk else ""))
    shutil.rmtree(copy)


def cublas12(tool, venv, wheels, work, toolkit):
    copy = copy_venv(venv, os.path.join(work, "cublas12"))
    env = env_for(copy, wheels)
    fix(tool, ["--require", "cublas=12", "--yes"], env, "b")
    d = json.loads(run([tool, "doctor", "--require", "cublas=12", "--format", "json"], env).stdout)
    q = d["requirements"][0]
    check(q["satisfied"] and under(q["path"], copy),
          "b. a plain doctor --require cublas=12 finds the cuBLAS 12 fix installed: %s (%s)"
          % (q["path"], q["origin"]))
    doc = child(copy, "cublas=12")
    m = doc.get("mapped", [])
    blas12 = [f for f in m if os.path.basename(f) == "libcublas.so.12"]
    check(doc.get("report_ok") and doc.get("cublas12") == 12 and doc.get("cublas13") == 13 and
          blas12 and all(under(f, copy) for f in blas12) and doc.get("cublas_create") in (0, 1),
          "b. setup(require=['cublas=12']) beside torch %s (CUDA 13): cublasGetProperty(MAJOR) = %s "
          "from %s and %s for torch's; ctranslate2's cublasCreate_v2() = %s"
          % (doc.get("torch"), doc.get("cublas12"), describe(blas12), doc.get("cublas13"),
             doc.get("cublas_create")))
    shutil.rmtree(copy)


def main():
    if len(sys.argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    tool, venv, wheels, work, toolkit = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    voice(tool, venv, wheels, work, toolkit)
    cublas12(tool, venv, wheels, work, toolkit)
    print("%d check(s) failed" % failed if failed else "every check passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
