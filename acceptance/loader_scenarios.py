# SPDX-License-Identifier: MIT
"""acceptance/loader_scenarios.py - step 6: the loader model against the real files.

Three scenarios where what glibc does with NVIDIA's real libraries decides
whether cudaload's plan is right. Each runs in a fresh process (loads
cannot be undone): the parent mode below starts this script again as a
child ("a-child", "b-child") with the environment the scenario needs, and
judges the child's output; scenario c only runs the cudaload tool.

  a  cuDNN 9 global, then cuDNN 8. The toolkit's cuDNN 9 is preloaded
     RTLD_GLOBAL, then cudaload.setup(require=["cudnn=8"]) runs: it must not
     raise ConflictError, because NVIDIA versions its symbols
     (cudnnCreate@@libcudnn.so.9 beside cudnnCreate@@libcudnn.so.8) and glibc
     binds a cuDNN 8 consumer's cudnnCreate@libcudnn.so.8 past cuDNN 9 in the
     global scope. The consumer is ctranslate2 4.4.0 (libctranslate2 asks for
     cudnn*@libcudnn.so.8, its bundled shim defines them). The child runs
     under LD_DEBUG=bindings; the parent reads glibc's own binding lines
     from its stderr and compares them with cudaload.symbol_provider().
  b  LD_LIBRARY_PATH holds another cuDNN 9 (9.1.0 from the wheel). The
     toolkit's libcudnn.so.9 opens its sub-libraries by name; with
     LD_LIBRARY_PATH searched before its RUNPATH $ORIGIN it would get 9.1's.
     cudaload.setup(require=["cudnn=9"], roots=[toolkit]) must preload the
     toolkit's siblings by absolute path (lib/load/plan.c, sibling_shadowed), so
     that only toolkit cuDNN files end up mapped. `cudaload explain` run
     with that LD_LIBRARY_PATH must name the two versions as a problem.
  c  `cudaload doctor --require cudnn=9` on the toolkit alone: cuDNN 9 opens
     libcublasLt.so.13 by name, which lies beside it, so the doctor must not
     report a libcublasLt problem (it may report the missing driver).

Usage:
  python loader_scenarios.py a COMPAT8 SITE CUDNN9
  python loader_scenarios.py b CUDNN9 OTHER_CUDNN9 TOOL
  python loader_scenarios.py c CUDNN9 TOOL
Needs PYTHONPATH with the bindings (and, for a, SITE) and CUDALOAD_LIBRARY,
as consumer.py does. Prints "ok"/"FAIL" lines labelled 6a/6b/6c and the
evidence; exits 0 when every check passed.
"""

import ctypes
import json
import os
import re
import subprocess
import sys

RTLD_NOLOAD = getattr(os, "RTLD_NOLOAD", 4)
failures = 0


def check(ok, label, what):
    global failures
    print("%-4s %s %s" % ("ok" if ok else "FAIL", label, what), flush=True)
    if not ok:
        failures += 1


def under(path, folder):
    """Whether path lies in folder, both resolved (the toolkit's lib64 is
    a symbolic link to cuda-13.0/lib, the loader reports either name)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.dirname(path) == folder


def mapped(pattern):
    """The files this process has mapped whose names match pattern."""
    found = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and re.match(pattern, os.path.basename(parts[5].strip())):
                found.add(parts[5].strip())
    return sorted(found)


def version_number(version):
    """cudnnGetVersion()'s encoding of a cuDNN 9 version: 9.19.0 -> 91900."""
    major, minor, patch = (int(x) for x in version.split(".")[:3])
    return major * 10000 + minor * 100 + patch


def scanned_version(folder, name):
    """The version cudaload's scan gives the library `name` in folder (from
    the dist-info beside it, or what else the scan can read). Loads nothing."""
    import cudaload
    report = cudaload.scan(roots=[folder], site_packages=[], defaults=False)
    for lib in report.libraries:
        if lib.name == name and under(lib.path, folder):
            return lib.version
    return None


def child(mode, args, env_extra):
    """Run this script as `mode` in a fresh process with env_extra added."""
    env = dict(os.environ)
    env.update(env_extra)
    return subprocess.run([sys.executable, os.path.abspath(__file__), mode] + args,
                          env=env, capture_output=True, text=True, timeout=600)


def relay(proc):
    """Show the child's own lines and count its failures here."""
    global failures
    sys.stdout.write(proc.stdout)
    failures += len(re.findall(r"^FAIL ", proc.stdout, re.M))
    if proc.returncode != 0:
        print("child exit status %d; its stderr ends with:" % proc.returncode)
        print("\n".join("  " + l for l in proc.stderr.splitlines()[-15:]))
    return proc.returncode == 0


# --- a: cuDNN 9 global, then cuDNN 8 -------------------------------------------

CUDNN8_FILE = r"libcudnn[-_.\w]*\.so\.8"   # libcudnn.so.8, libcudnn-<hex>.so.8.9.7


def a_child(compat8, site, cudnn9):
    import glob
    import cudaload
    r9 = cudaload.setup(require=["cudnn=9"], roots=[cudnn9], site_packages=[],
                        defaults=False, rtld_global=True)
    # dlsym(RTLD_DEFAULT) sees the global scope: cuDNN 9 must be there, or
    # the scenario proves nothing.
    v = ctypes.CDLL(None).cudnnGetVersion()
    check(r9.ok and v // 10000 == 9, "6a",
          "cudaload.setup(require=['cudnn=9'], rtld_global=True): cudnnGetVersion in the "
          "global scope = %d" % v)
    try:
        # SITE too: the scan must see ctranslate2's bundled shim to preload
        # the cuDNN 8 sub-libraries it opens by name (step 4, minimal plan);
        # with the compat folder alone its first real cuDNN call aborts.
        r8 = cudaload.setup(require=["cudnn=8"], roots=[compat8, site], site_packages=[],
                            defaults=False)
        loaded = [e.loaded_path or e.path for e in r8.loaded if e.name == "cudnn"]
        check(r8.ok, "6a", "then cudaload.setup(require=['cudnn=8']) beside the global "
              "cuDNN 9: no ConflictError (symbol versions keep them apart); loaded %s" % loaded)
    except cudaload.ConflictError as e:
        check(False, "6a", "cudaload.setup(require=['cudnn=8']) raised ConflictError: %s" % e)
    # The real consumer: importing ctranslate2 opens libctranslate2 with
    # RTLD_NOW (Python's default), so every cudnn* reference is bound now,
    # and LD_DEBUG shows it.
    import ctranslate2  # noqa: F401
    core = glob.glob(os.path.join(site, "ctranslate2.libs", "libctranslate2-*.so*"))[0]
    handle = ctypes.CDLL(core, mode=RTLD_NOLOAD | os.RTLD_NOW)
    provider = cudaload.symbol_provider(handle, "cudnnCreate")
    print("provider: %s" % provider, flush=True)
    # Read the provider's version through the provider itself.
    pv = None
    if provider:
        pv = ctypes.CDLL(provider, mode=RTLD_NOLOAD | os.RTLD_NOW).cudnnGetVersion()
    check(bool(provider) and re.match(CUDNN8_FILE, os.path.basename(provider)) is not None
          and pv // 1000 == 8, "6a",
          "cudaload.symbol_provider(libctranslate2, 'cudnnCreate') = %s (cudnnGetVersion %s)"
          % (provider, pv))
    return 0


def a(compat8, site, cudnn9):
    proc = child("a-child", [compat8, site, cudnn9], {"LD_DEBUG": "bindings"})
    relay(proc)
    # glibc: "binding file <consumer> [0] to <provider> [0]: normal symbol
    # `cudnnCreate' [libcudnn.so.8]"
    pattern = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: "
                         r"\w+ symbol `(cudnn\w*)' \[libcudnn\.so\.8\]")
    seen = [m for m in map(pattern.search, proc.stderr.splitlines())
            if m and os.path.basename(m.group(1)).startswith("libctranslate2")]
    wrong = [m.group(0) for m in seen if not re.match(CUDNN8_FILE, os.path.basename(m.group(2)))]
    create = [m for m in seen if m.group(3) == "cudnnCreate"]
    check(bool(create) and not wrong, "6a",
          "LD_DEBUG=bindings: libctranslate2's references to %d cudnn*@libcudnn.so.8 symbols "
          "bind, all to a cuDNN 8 file%s" % (len({m.group(3) for m in seen}),
                                             "; wrong: %s" % wrong[:3] if wrong else ""))
    if create:
        print("  glibc: %s" % create[0].group(0))
    provider = re.search(r"^provider: (.*)$", proc.stdout, re.M)
    same = (create and provider and provider.group(1) != "None" and
            os.path.realpath(provider.group(1)) == os.path.realpath(create[0].group(2)))
    check(bool(same), "6a", "cudaload.symbol_provider names the file glibc bound cudnnCreate to")
    return 1 if failures else 0


# --- b: LD_LIBRARY_PATH holds another cuDNN 9 ----------------------------------

def b_child(cudnn9, other9):
    import cudaload
    report = cudaload.setup(require=["cudnn=9"], roots=[cudnn9], site_packages=[],
                            defaults=False)
    print("\n".join("  " + l for l in str(report).splitlines() if "why:" in l)[:2000])
    check(report.ok, "6b", "cudaload.setup(require=['cudnn=9'], roots=[toolkit]) with "
          "LD_LIBRARY_PATH=%s" % other9)
    main = ctypes.CDLL(os.path.join(cudnn9, "libcudnn.so.9"), mode=RTLD_NOLOAD | os.RTLD_NOW)
    # A call that makes libcudnn.so.9 open a sub-library by name (the
    # descriptor functions live in libcudnn_graph.so.9); without a GPU it
    # still returns 0, as cuDNN 8's does in consumer.py.
    desc = ctypes.c_void_p()
    status = main.cudnnCreateTensorDescriptor(ctypes.byref(desc))
    if status == 0:
        main.cudnnDestroyTensorDescriptor(desc)
    files = mapped(r"libcudnn.*\.so\.9")
    foreign = [f for f in files if not under(f, cudnn9)]
    check(len(files) > 1 and not foreign, "6b",
          "/proc/self/maps after cudnnCreateTensorDescriptor (= %d): %d libcudnn*.so.9 mapped, "
          "all from the toolkit folder%s" % (status, len(files),
                                             "; from elsewhere: %s" % foreign if foreign else ""))
    want = scanned_version(cudnn9, "cudnn")
    got = main.cudnnGetVersion()
    check(want is not None and got == version_number(want), "6b",
          "cudnnGetVersion() = %d (the toolkit's cuDNN is %s)" % (got, want))
    return 0


def b(cudnn9, other9, tool):
    relay(child("b-child", [cudnn9, other9], {"LD_LIBRARY_PATH": other9}))
    # What explain says for the toolkit's cuDNN run as-is with that
    # LD_LIBRARY_PATH: its sub-libraries would come from the other version.
    v_toolkit, v_other = scanned_version(cudnn9, "cudnn"), scanned_version(other9, "cudnn")
    env = dict(os.environ, LD_LIBRARY_PATH=other9)
    for extra in ([], ["--root", other9]):
        cmd = [tool, "explain", os.path.join(cudnn9, "libcudnn.so.9"), "--format", "json"] + extra
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        try:
            problems = json.loads(proc.stdout)["problems"]
        except (ValueError, KeyError):
            problems = []
        named = [p for p in problems if v_toolkit and v_other and v_toolkit in p and v_other in p]
        shown = "cudaload explain libcudnn.so.9 --format json%s" % (
            " --root <9.1 folder>" if extra else "")
        check(bool(named), "6b", "%s (exit %d) with LD_LIBRARY_PATH: a problem names %s and %s"
              % (shown, proc.returncode, v_toolkit, v_other))
        for p in (named or problems)[:3]:
            print("  problem: %s" % p)
    return 1 if failures else 0


# --- c: the toolkit's doctor ---------------------------------------------------

def c(cudnn9, tool):
    cmd = [tool, "doctor", "--require", "cudnn=9", "--no-defaults", "--root", cudnn9,
           "--format", "json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    try:
        problems = [p["problem"] for p in json.loads(proc.stdout)["problems"]]
    except (ValueError, KeyError, TypeError):
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        check(False, "6c", "cudaload doctor: no JSON report (exit %d)" % proc.returncode)
        return 1
    cublaslt = [p for p in problems if "libcublasLt" in p]
    check(not cublaslt, "6c", "cudaload doctor --require cudnn=9 --no-defaults --root <toolkit> "
          "(exit %d): no libcublasLt problem (cuDNN 9 finds libcublasLt.so.13 beside it)%s"
          % (proc.returncode, "; found: %s" % cublaslt if cublaslt else ""))
    for p in problems:
        print("  doctor also reports: %s" % p)
    return 1 if failures else 0


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    run = {"a": a, "a-child": a_child, "b": b, "b-child": b_child, "c": c}[mode]
    rc = run(*args)
    return 1 if failures else rc


if __name__ == "__main__":
    sys.exit(main())
