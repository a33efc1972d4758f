# SPDX-License-Identifier: MIT
"""acceptance/facts.py - step 2: read the facts from the real files and check
them against what docs/real-libraries.md records.

  python3 facts.py CUDALOAD COMPAT8 SITE CUDNN9_DIR

CUDALOAD    the cudaload tool (its `inspect --format json` reads the ELF
            headers: SONAME, NEEDED, RUNPATH)
COMPAT8     the cuDNN 8 "compat" folder (the wheel's nvidia/cudnn/lib, flat)
SITE        the site folder holding nvidia/cublas/lib (cuBLAS 12 wheel)
CUDNN9_DIR  the folder of libcudnn.so.9 (toolkit or wheel)

Lazy dependencies are names a library passes to dlopen itself; they sit in
its read-only data as plain NUL-terminated strings, so they are read here as
the `lib*.so[.N]` strings of the file that are not its own SONAME or NEEDED
(`strings -a FILE | grep '^lib.*\\.so'` gives the same list).
Prints one "ok"/"FAIL" line per fact and exits 0 when all hold.
"""

import json
import mmap
import os
import re
import subprocess
import sys

failures = 0
SO_NAME = re.compile(rb"lib[A-Za-z0-9_+-]{1,80}\.so(?:\.[0-9]{1,8}){0,4}\x00")
NAME_CHAR = re.compile(rb"[A-Za-z0-9_.+-]")
SYSTEM = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
          "libgcc_s.so.1", "libstdc++.so.6"}


def check(ok, what):
    global failures
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures += 1


def inspect(tool, path):
    out = subprocess.run([tool, "inspect", "--format", "json", path],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["files"][0]


def string_names(path):
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        # A name starts a string: the byte before it is no name character.
        return sorted({x.group()[:-1].decode() for x in SO_NAME.finditer(m)
                       if x.start() == 0 or not NAME_CHAR.match(m[x.start() - 1:x.start()])})


def lazy(tool, path):
    info = inspect(tool, path)
    own = {info.get("soname") or ""} | set(info.get("needed") or [])
    return info, [n for n in string_names(path) if n not in own and n not in SYSTEM]


def main():
    tool, compat8, site, cudnn9 = sys.argv[1:5]
    cublas_dir = os.path.join(site, "nvidia", "cublas", "lib")
    wheel_runpath8 = "$ORIGIN:$ORIGIN/../../cublas/lib:$ORIGIN/../../nvrtc/lib"
    subs8 = ["libcudnn_%s_%s.so.8" % (k, m) for k in ("ops", "cnn", "adv")
             for m in ("infer", "train")]

    # cuDNN 8 main library.
    info, names = lazy(tool, os.path.join(compat8, "libcudnn.so.8"))
    print("fact libcudnn.so.8 (8.9.7.29): RUNPATH %r, NEEDED %s, names it opens lazily: %s"
          % (info.get("runpath"), info.get("needed"), names))
    check(info.get("runpath") == "$ORIGIN", "libcudnn.so.8 RUNPATH is $ORIGIN")
    check(not [n for n in info.get("needed") or [] if n not in SYSTEM],
          "libcudnn.so.8 NEEDs nothing but the system's C/C++ runtime")
    check(all(s in names for s in subs8),
          "libcudnn.so.8 opens its six sub-libraries lazily, by SONAME (%s)" % ", ".join(subs8))

    # cuDNN 8 sub-libraries.
    for sub in subs8:
        info, names = lazy(tool, os.path.join(compat8, sub))
        needed = [n for n in info.get("needed") or [] if n not in SYSTEM]
        print("fact %s: RUNPATH %r, NEEDED (non-system) %s, lazy %s"
              % (sub, info.get("runpath"), needed, names))
        check(info.get("runpath") == wheel_runpath8, "%s RUNPATH is %s" % (sub, wheel_runpath8))
    info, names = lazy(tool, os.path.join(compat8, "libcudnn_ops_infer.so.8"))
    check({"libcublas.so.12", "libcublasLt.so.12"} <= set(names),
          "libcudnn_ops_infer.so.8 opens libcublas.so.12 and libcublasLt.so.12 lazily")
    check("libnvrtc.so" in names,
          "libcudnn_ops_infer.so.8 opens libnvrtc.so (unversioned) lazily")
    info, _ = lazy(tool, os.path.join(compat8, "libcudnn_cnn_infer.so.8"))
    check("libz.so.1" in (info.get("needed") or []), "libcudnn_cnn_infer.so.8 NEEDs libz.so.1")

    # cuDNN 9.
    info, names = lazy(tool, os.path.join(cudnn9, "libcudnn.so.9"))
    print("fact libcudnn.so.9 (%s): RUNPATH %r, NEEDED %s, lazy %s"
          % (cudnn9, info.get("runpath"), info.get("needed"), names))
    check(info.get("runpath") == "$ORIGIN", "libcudnn.so.9 RUNPATH is $ORIGIN")
    check(not [n for n in info.get("needed") or [] if n not in SYSTEM],
          "libcudnn.so.9 NEEDs nothing but the system's C/C++ runtime")
    check(any(n.startswith("libcudnn_graph.so") for n in names),
          "libcudnn.so.9 opens its sub-libraries lazily (libcudnn_graph.so... in its strings)")
    for sub in ("libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_engines_precompiled.so.9"):
        p = os.path.join(cudnn9, sub)
        if os.path.exists(p):
            info, names = lazy(tool, p)
            print("fact %s: RUNPATH %r, NEEDED %s, lazy %s"
                  % (sub, info.get("runpath"),
                     [n for n in info.get("needed") or [] if n not in SYSTEM], names))

    # cuBLAS 12.
    for name, want_needed in (("libcublas.so.12", ["libcublasLt.so.12"]), ("libcublasLt.so.12", [])):
        info, names = lazy(tool, os.path.join(cublas_dir, name))
        needed = [n for n in info.get("needed") or [] if n not in SYSTEM and
                  not n.startswith("ld-linux")]
        print("fact %s (12.1.3.1): RUNPATH %r, NEEDED (non-system) %s, lazy %s"
              % (name, info.get("runpath"), needed, names))
        check(needed == want_needed, "%s NEEDs %s" % (name, want_needed or "no CUDA library"))
        check(info.get("runpath") == "$ORIGIN", "%s RUNPATH is $ORIGIN" % name)

    # The plan cudaload makes for them.
    out = subprocess.run([tool, "exec", "--no-defaults", "--root", compat8, "--root", site,
                          "--root", cudnn9, "--require", "cudnn=8,cudnn=9,cublas=12",
                          "--dry-run", "--", "true"], capture_output=True, text=True)
    print(out.stdout, end="")
    preload = [line.split()[3] for line in out.stdout.splitlines()
               if line.split()[:1] == ["planned"]]
    # The site holds ctranslate2.libs/libcudnn-<hex>.so.8.9.7, a bundled
    # cuDNN 8 shim that opens the sub-libraries by name: cuDNN 8's are
    # preloaded for it; cuDNN 9's stay not-needed (RUNPATH $ORIGIN).
    subs8 = ["libcudnn_%s.so.8" % s for s in ("ops_infer", "ops_train", "cnn_infer",
                                               "cnn_train", "adv_infer", "adv_train")]
    names = [os.path.basename(p) for p in preload]
    shim_reasons = out.stdout.count("(a copy bundled by ctranslate2) opens it by name")
    check(out.returncode == 0 and names[0] == "libcudnn.so.8" and
          sorted(names[1:7]) == sorted(subs8) and shim_reasons == 6 and
          names[7:] == ["libcudnn.so.9", "libcublasLt.so.12", "libcublas.so.12"],
          "plan for cudnn=8,cudnn=9,cublas=12 preloads libcudnn.so.8 and its six "
          "sub-libraries (for ctranslate2's bundled shim), libcudnn.so.9 (its "
          "sub-libraries not-needed, RUNPATH $ORIGIN), libcublasLt.so.12, libcublas.so.12")
    print("%s: %d fact(s) differ" % ("FAIL" if failures else "PASS", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
