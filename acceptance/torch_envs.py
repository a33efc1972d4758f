#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Steps 10 and 11 of scripts/acceptance: torch itself, as users install it.

10. torch 2.5.1 (CUDA 12.4: nvidia-*-cu12 wheels, cuDNN 9.1.0.70) in a venv,
    on a machine whose CUDA 13 toolkit holds a newer cuDNN 9 (9.19):
    `cudaload exec --require cudnn=9` (the venv activated, or only its python3
    first on PATH) and `cudaload.setup(require=["cudnn=9"])` before
    `import torch` leave torch on its own cuDNN: torch.backends.cudnn.version()
    is what it is without cudaload, and no file of the toolkit's cuDNN or
    cuBLAS is mapped. A run with the toolkit on LD_LIBRARY_PATH shows that
    the check can tell: there torch gets the toolkit's cuDNN.

11. The current torch (CUDA 13 wheels, nvidia/cu13/lib) with ctranslate2
    4.4.0 (cuDNN 8.9.7 shim, opens libcublas.so.12) in one venv:
    a. setup(require=["cudnn=8", "cudnn=9"], roots=[cuDNN 8 folder]) warns
       (Report.warnings and one CudaloadWarning) that cuBLAS 12 is needed;
       ctranslate2's first cuBLAS call then fails as the warning said.
    c. setup(require=["cudnn=9"], roots=[cuBLAS 12 folder]): ctranslate2 is
       a known consumer (lib/scan/consumers.c), so the plan adds its cuBLAS 12
       beside torch's cuBLAS 13, and its cuBLAS call reaches it; its library
       holds "libcublas.so.12", as the table says.
    b. With a cuBLAS 12 folder among the roots and cublas=12 required:
       ctranslate2's cuDNN 8 and cuBLAS 12 calls work (cuDNN 8 through its
       bundled shim, its sub-library opened lazily from the cuDNN 8 folder;
       cublasCreate_v2 through its stub reaching cuBLAS 12) beside torch's
       own cuDNN 9 and cuBLAS 13 (cudnnGetVersion, cublasGetProperty), no
       file of the toolkit's mapped. Without a GPU a cuBLAS call cannot
       compute; reaching the right library and getting
       CUBLAS_STATUS_NOT_INITIALIZED (no driver) is what is checked.

Usage:
  torch_envs.py cu12 TOOL VENV TOOLKIT_LIB
  torch_envs.py cu13 VENV COMPAT8 CUBLAS12_DIR TOOLKIT_LIB [README WORKDIR]
    (d. with README and a WORKDIR holding cu12/, made with the README's
    `pip install --no-deps --target cu12 ...` line: the README's Python
    example, verbatim, works as it says.)
PYTHONPATH must hold the cudaload package, CUDALOAD_LIBRARY the library.
Every scenario runs in a fresh process (loads cannot be undone). Prints
ok/FAIL lines; exit 0 when every check passed."""

import json
import os
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


# The child's common part: the CUDA files mapped into it, by base name.
MAPS = r"""
import ctypes, json, os, sys
RTLD_NOLOAD = getattr(os, "RTLD_NOLOAD", 4)
def mapped():
    out = set()
    for line in open("/proc/self/maps"):
        part = line.split(None, 5)
        if len(part) == 6 and ("libcudnn" in part[5] or "libcublas" in part[5]
                               or "libcudart" in part[5]):
            out.add(part[5].strip())
    return sorted(out)
def loaded(name):
    return [p for p in mapped() if os.path.basename(p) == name]
result = {}
def done(**more):
    result.update(more)
    result["mapped"] = mapped()
    print("RESULT " + json.dumps(result), flush=True)
"""

# Step 10's child: optionally cudaload.setup(), then torch; cuDNN's
# sub-libraries opened the way a first convolution would (a tensor
# descriptor), so that every cuDNN file torch would use is mapped.
CU12_CHILD = MAPS + r"""
spec = sys.argv[1] if len(sys.argv) > 1 else ""
if spec:
    import cudaload
    report = cudaload.setup(require=spec.split(","))
    result["report_ok"] = report.ok
import torch
cudnn9 = loaded("libcudnn.so.9")
if cudnn9:
    h = ctypes.CDLL(cudnn9[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
    d = ctypes.c_void_p()
    result["descriptor"] = h.cudnnCreateTensorDescriptor(ctypes.byref(d))
done(cudnn=torch.backends.cudnn.version(), cuda=torch.version.cuda)
"""

# Step 11's child: MODE warn (cuDNN 8 root only) or works (and cuBLAS 12).
CU13_CHILD = MAPS + r"""
import glob, warnings
mode, compat8, cublas12 = sys.argv[1:4]
import cudaload
if mode == "consumer":
    roots, require = [cublas12], ["cudnn=9"]
else:
    roots = [compat8] + ([cublas12] if mode == "works" else [])
    require = ["cudnn=8", "cudnn=9"] + (["cublas=12"] if mode == "works" else [])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    report = cudaload.setup(require=require, roots=roots)
result.update(report_ok=report.ok, report_warnings=list(report.warnings),
              python_warnings=[str(w.message) for w in caught
                               if w.category.__name__ == "CudaloadWarning"])
import torch
import ctranslate2
result.update(torch=torch.__version__, cuda=torch.version.cuda,
              cudnn=torch.backends.cudnn.version(), ctranslate2=ctranslate2.__version__)
libs = os.path.join(os.path.dirname(os.path.dirname(ctranslate2.__file__)), "ctranslate2.libs")
shim = ctypes.CDLL(glob.glob(os.path.join(libs, "libcudnn-*.so.8*"))[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
core = ctypes.CDLL(glob.glob(os.path.join(libs, "libctranslate2-*.so*"))[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
result["core"] = core._name
if mode != "consumer":   # cuDNN 8 is not planned there
    result["shim_version"] = shim.cudnnGetVersion()
    d = ctypes.c_void_p()
    result["shim_descriptor"] = shim.cudnnCreateTensorDescriptor(ctypes.byref(d))
for name, soname in (("torch_cudnn9", "libcudnn.so.9"), ("torch_cublas13", "libcublas.so.13")):
    files = loaded(soname)
    if files:
        h = ctypes.CDLL(files[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
        if soname.startswith("libcudnn"):
            result[name] = h.cudnnGetVersion()
        else:
            v = ctypes.c_int()
            h.cublasGetProperty(0, ctypes.byref(v))   # MAJOR_VERSION: no GPU needed
            result[name] = v.value
# The stub in libctranslate2 dlopens libcublas.so.12 at its first call and
# aborts the process when that fails: print what is known so far first.
print("BEFORE " + json.dumps(result), flush=True)
handle = ctypes.c_void_p()
result["cublas_create"] = core.cublasCreate_v2(ctypes.byref(handle))
done()
"""


def run(argv, env, what):
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    doc = None
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            doc = json.loads(line[7:])
    before = None
    for line in p.stdout.splitlines():
        if line.startswith("BEFORE "):
            before = json.loads(line[7:])
    if doc is None and before is None:
        print("  %s: exit %d\n%s%s" % (what, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p, doc, before


def base_env(venv, activated):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    if activated:
        env["VIRTUAL_ENV"] = venv
    return env


def describe(files):
    return ", ".join(sorted({os.path.dirname(real(f)) for f in files})) or "nothing"


def cu12(tool, venv, toolkit):
    python = os.path.join(venv, "bin", "python")
    child = [python, "-c", CU12_CHILD]
    # Without cudaload: what torch has by itself.
    _, alone, _ = run(child, base_env(venv, False), "torch alone")
    if not alone:
        check(False, "torch 2.5.1 imports in its venv")
        return
    own = alone["cudnn"]
    check(own == 90100 and all(under(f, venv) for f in alone["mapped"]),
          "without cudaload: torch %s (CUDA %s) uses its own cuDNN %s, every CUDA file from the venv "
          "(%d files)" % ("2.5.1", alone["cuda"], own, len(alone["mapped"])))
    # The check can tell: the toolkit's folder on LD_LIBRARY_PATH hands torch
    # the toolkit's cuDNN.
    env = base_env(venv, False)
    env["LD_LIBRARY_PATH"] = toolkit
    _, shadowed, _ = run(child, env, "LD_LIBRARY_PATH=toolkit")
    took_toolkit = shadowed and any(under(f, toolkit) for f in shadowed["mapped"])
    check(bool(took_toolkit) and shadowed["cudnn"] != own,
          "control: LD_LIBRARY_PATH=%s hands torch the toolkit's cuDNN %s (files from %s): what the "
          "checks below must not see" % (toolkit, shadowed and shadowed["cudnn"],
                                         shadowed and describe(shadowed["mapped"])))
    cases = [
        ("cudaload exec --require cudnn=9, venv activated (VIRTUAL_ENV)",
         [tool, "exec", "--require", "cudnn=9", "--"] + child, base_env(venv, True)),
        ("cudaload exec --require cudnn=9, only the venv's python3 first on PATH",
         [tool, "exec", "--require", "cudnn=9", "--"] + child, base_env(venv, False)),
        ("cudaload exec --require cudart,cublas,cudnn=9, venv activated",
         [tool, "exec", "--require", "cudart,cublas,cudnn=9", "--"] + child, base_env(venv, True)),
        ("cudaload.setup(require=['cudnn=9']) before import torch (the venv's interpreter)",
         child + ["cudnn=9"], base_env(venv, False)),
    ]
    for what, argv, env in cases:
        p, doc, _ = run(argv, env, what)
        if not doc:
            check(False, "%s: exit %d" % (what, p.returncode))
            continue
        toolkit_files = [f for f in doc["mapped"] if under(f, toolkit)]
        check(p.returncode == 0 and doc["cudnn"] == own and not toolkit_files and
              doc.get("report_ok", True) and doc.get("descriptor") == 0,
              "%s: torch.backends.cudnn.version() = %s (unchanged), %d CUDA files mapped, all "
              "from %s%s" % (what, doc["cudnn"], len(doc["mapped"]), describe(doc["mapped"]),
                             "; the toolkit's: %s" % toolkit_files if toolkit_files else ""))


def cu13(venv, compat8, cublas12, toolkit):
    python = os.path.join(venv, "bin", "python")
    env = base_env(venv, False)
    # a. cuDNN 8 without cuBLAS 12.
    p, _, before = run([python, "-c", CU13_CHILD, "warn", compat8, cublas12], env, "warn")
    if not before:
        check(False, "setup(require=[cudnn=8, cudnn=9], roots=[cuDNN 8]) in the CUDA 13 torch venv "
              "(exit %d)" % p.returncode)
    else:
        said = [w for w in before["report_warnings"] if "libcublas.so.12" in w]
        check(before["report_ok"] and said,
              "torch %s (CUDA %s) + ctranslate2 %s: setup(require=['cudnn=8', 'cudnn=9'], "
              "roots=[cuDNN 8]) succeeds and Report.warnings says: %s"
              % (before["torch"], before["cuda"], before["ctranslate2"], said or before["report_warnings"]))
        check(len(before["python_warnings"]) == 1 and "libcublas.so.12" in before["python_warnings"][0],
              "one CudaloadWarning: %s" % before["python_warnings"])
        message = [line for line in (p.stdout + p.stderr).splitlines() if "libcublas.so.12" in line
                   and "not found" in line]
        check(p.returncode != 0 and message,
              "as warned, ctranslate2's first cuBLAS call fails (exit %d): %s"
              % (p.returncode, message[:1]))
    # b. With cuBLAS 12.
    p, doc, before = run([python, "-c", CU13_CHILD, "works", compat8, cublas12], env, "works")
    if not doc:
        check(False, "setup(require=[cudnn=8, cudnn=9, cublas=12], roots=[cuDNN 8, cuBLAS 12]) "
              "then torch and ctranslate2 (exit %d)" % p.returncode)
        return
    m = doc["mapped"]
    base = lambda f: os.path.basename(f)
    check(doc["report_ok"] and not doc["report_warnings"],
          "setup(require=['cudnn=8', 'cudnn=9', 'cublas=12'], roots=[cuDNN 8, cuBLAS 12]): ok, "
          "no warnings %s" % (doc["report_warnings"] or ""))
    ops8 = [f for f in m if base(f) == "libcudnn_ops_infer.so.8"]
    check(doc["shim_version"] // 1000 == 8 and doc["shim_descriptor"] == 0 and ops8 and
          all(under(f, compat8) for f in ops8),
          "ctranslate2's cuDNN 8: cudnnGetVersion() = %d through its bundled shim; "
          "cudnnCreateTensorDescriptor() = %d opens libcudnn_ops_infer.so.8 from %s"
          % (doc["shim_version"], doc["shim_descriptor"], describe(ops8)))
    blas12 = [f for f in m if base(f) == "libcublas.so.12"]
    check(doc["cublas_create"] in (0, 1) and blas12 and all(under(f, cublas12) for f in blas12),
          "ctranslate2's cuBLAS 12: cublasCreate_v2() = %d through its stub (1 = NOT_INITIALIZED: "
          "no GPU), libcublas.so.12 from %s" % (doc["cublas_create"], describe(blas12)))
    cudnn9 = [f for f in m if ".so.9" in base(f) and "cudnn" in base(f)]
    blas13 = [f for f in m if base(f).startswith("libcublas") and base(f).endswith(".so.13")]
    check(doc["cudnn"] == doc.get("torch_cudnn9") and doc["cudnn"] // 10000 == 9 and cudnn9 and
          all(under(f, venv) for f in cudnn9),
          "beside them torch's cuDNN 9: torch.backends.cudnn.version() = %s, cudnnGetVersion() = %s, "
          "from %s" % (doc["cudnn"], doc.get("torch_cudnn9"), describe(cudnn9)))
    check(doc.get("torch_cublas13") == 13 and blas13 and all(under(f, venv) for f in blas13),
          "and torch's cuBLAS 13: cublasGetProperty(MAJOR) = %s, from %s"
          % (doc.get("torch_cublas13"), describe(blas13)))
    toolkit_files = [f for f in m if under(f, toolkit)]
    check(not toolkit_files, "no file of the toolkit (%s) mapped%s"
          % (toolkit, ": %s" % toolkit_files if toolkit_files else ""))
    # c. ctranslate2 as a known consumer (lib/scan/consumers.c): its library holds
    # the name it opens, as the table says; with only cudnn=9 required (the
    # plan holds torch's cuBLAS 13), the plan adds its cuBLAS 12.
    with open(doc["core"], "rb") as f:
        holds = b"libcublas.so.12" in f.read()
    check(holds, "%s holds \"libcublas.so.12\" (lib/scan/consumers.c's row for ctranslate2 4.x)"
          % os.path.basename(doc["core"]))
    p, doc, before = run([python, "-c", CU13_CHILD, "consumer", compat8, cublas12], env, "consumer")
    if not doc:
        check(False, "setup(require=[cudnn=9], roots=[cuBLAS 12]) then ctranslate2's cuBLAS call "
              "(exit %d)" % p.returncode)
        return
    blas12 = [f for f in doc["mapped"] if os.path.basename(f) == "libcublas.so.12"]
    check(doc["report_ok"] and not doc["report_warnings"] and doc["cublas_create"] in (0, 1) and
          blas12 and all(under(f, cublas12) for f in blas12),
          "setup(require=['cudnn=9'], roots=[cuBLAS 12]): ctranslate2 is a known consumer, so its "
          "cuBLAS 12 joins the plan: cublasCreate_v2() = %d through its stub, libcublas.so.12 "
          "from %s; warnings: %s" % (doc["cublas_create"], describe(blas12),
                                     doc["report_warnings"] or "none"))


# Appended to the README's Python example: what it promises ("each finds
# its own cuDNN and cuBLAS"), through ctranslate2's own libraries.
README_CHECKS = MAPS + r"""
import glob
libs = os.path.join(os.path.dirname(os.path.dirname(ctranslate2.__file__)), "ctranslate2.libs")
shim = ctypes.CDLL(glob.glob(os.path.join(libs, "libcudnn-*.so.8*"))[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
core = ctypes.CDLL(glob.glob(os.path.join(libs, "libctranslate2-*.so*"))[0], mode=RTLD_NOLOAD | os.RTLD_NOW)
d = ctypes.c_void_p()
h = ctypes.c_void_p()
done(ok=report.ok, cudnn=torch.backends.cudnn.version(),
     shim_descriptor=shim.cudnnCreateTensorDescriptor(ctypes.byref(d)),
     cublas_create=core.cublasCreate_v2(ctypes.byref(h)))
"""


def readme(venv, readme_path, workdir):
    """The README's Python example, verbatim, run by the venv's interpreter
    in a folder whose cu12/ was made with the pip line it quotes."""
    text = open(readme_path).read()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    example = next((b for b in blocks if "cudaload.setup(" in b), None)
    if not example:
        check(False, "README.md has a Python example calling cudaload.setup(")
        return
    python = os.path.join(venv, "bin", "python")
    p = subprocess.run([python, "-c", example + README_CHECKS], env=base_env(venv, False),
                       cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    doc = next((json.loads(l[7:]) for l in p.stdout.splitlines() if l.startswith("RESULT ")), None)
    if not doc:
        print(p.stdout[-3000:], p.stderr[-3000:])
        check(False, "README.md's Python example in the torch 2.15.0 + ctranslate2 4.4.0 venv "
              "(exit %d)" % p.returncode)
        return
    m = doc["mapped"]
    cu12 = os.path.join(workdir, "cu12")
    ops8 = [f for f in m if os.path.basename(f) == "libcudnn_ops_infer.so.8"]
    blas12 = [f for f in m if os.path.basename(f) == "libcublas.so.12"]
    cudnn9 = [f for f in m if os.path.basename(f) == "libcudnn.so.9"]
    check(p.returncode == 0 and doc["ok"] and doc["cudnn"] // 10000 == 9 and
          doc["shim_descriptor"] == 0 and doc["cublas_create"] in (0, 1) and
          ops8 and all(under(f, cu12) for f in ops8 + blas12) and blas12 and
          cudnn9 and all(under(f, venv) for f in cudnn9),
          "README.md's Python example, verbatim, with cu12/ made by the pip line it quotes: torch's "
          "cuDNN %s from %s; ctranslate2's cuDNN 8 (descriptor %s) and cuBLAS 12 "
          "(cublasCreate_v2 %s) from %s" % (doc["cudnn"], describe(cudnn9), doc["shim_descriptor"],
                                              doc["cublas_create"], describe(ops8 + blas12)))


def main():
    if sys.argv[1] == "cu12":
        cu12(*sys.argv[2:5])
    else:
        cu13(*sys.argv[2:6])
        if len(sys.argv) > 7:
            readme(sys.argv[2], sys.argv[6], sys.argv[7])
    print("%s: %d check(s) failed" % ("FAIL" if failed else "PASS", failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
