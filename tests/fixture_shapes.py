#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fixtures of issue 32 behave, under the real loaders, as the real files
do (docs/real-stacks.md), so that they cannot silently lose their shape.

Linux (glibc; --platform linux), fixtures stale_minor/ and cuda_majors/:
  wheel    cuSPARSE 12 loads (RTLD_NOW) with the wheel's nvJitLink 12.4,
           found through its RUNPATH $ORIGIN/../../nvjitlink/lib, and
           __nvJitLinkComplete_12_4 binds to it [libnvJitLink.so.12].
  stale    with the CUDA 12.1 toolkit's lib64 on LD_LIBRARY_PATH the loader
           takes nvJitLink 12.1.105 and dlopen(RTLD_NOW), as Python does,
           fails: "<cusparse>: undefined symbol: __nvJitLink<Name>_12_4,
           version libnvJitLink.so.12" (the real file names
           __nvJitLinkComplete_12_4, the first of its PLT; the fixture's
           linker orders the PLT by its own hash, so the name may be a
           sibling; the same for glibc either way).
  lazy     under lazy binding it loads, and the first JIT call ends the
           process (127): "symbol lookup error: <cusparse>: undefined
           symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12".
  preload  LD_PRELOAD of the stale file, no LD_LIBRARY_PATH: the same
           failure (a preloaded SONAME comes before any RUNPATH).
  shape    one version node (libnvJitLink.so.12) in both minors; 12.1
           defines no _12_4 name, 12.4 every _12_0.._12_4 one; cuSPARSE
           references eight _12_4 names @libnvJitLink.so.12.
  majors   libcusparse.so.12 asked by name with the CUDA 13.0 toolkit's
           lib64 first on LD_LIBRARY_PATH: the loader takes the toolkit's
           CUDA 13 build (and its libnvJitLink.so.13) without a word; the
           CUDA 12 build maps libnvJitLink.so.12; what tells them apart is
           in the files (NEEDED, names held, banners, dist-info).

Windows (--platform windows, under Wine through --wine-run):
  new      cublas64_12.dll loads with its own cublasLt64_12.dll on PATH.
  stale    with the CUDA 12.1 toolkit's bin first on PATH the loader takes
           the older cublasLt64_12.dll, which lacks cublasLt_for_cublas_HSS:
           Windows fails the load, ERROR_PROC_NOT_FOUND (127, Python's
           "[WinError 127] The specified procedure could not be found");
           Wine 8 loads it, says "No implementation for
           cublasLt64_12.dll.cublasLt_for_cublas_HSS imported from ...
           cublas64_12.dll" (WINEDEBUG=warn+module) and aborts at the first
           call ("unimplemented function"). Both are accepted, each on its
           own loader; nothing else is.

Usage: fixture_shapes.py --fixtures DIR --cc CC --work DIR --platform
       linux|windows [--wine-run SCRIPT]
Prints one ok/FAIL line per check; exit 0 when all pass, 1 when one fails,
77 when this host cannot run the platform's loader (said)."""

import argparse
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
failed = 0


def check(ok, text):
    global failed
    print("%-4s %s" % ("ok" if ok else "FAIL", text), flush=True)
    if not ok:
        failed += 1


def run(argv, env=None, cwd=None):
    p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


LINUX_CHILD = r"""
/* fixture_shapes.py's child: dlopen(argv[1]) with RTLD_NOW, or with
 * RTLD_LAZY and then a call of argv[3]; prints the outcome and what is
 * mapped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
static int show(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  if (info->dlpi_name[0])
    printf("MAPPED %s\n", info->dlpi_name);
  return 0;
}
int main(int argc, char **argv) {
  int lazy = argc > 2 && strcmp(argv[2], "lazy") == 0;
  void *h = dlopen(argv[1], lazy ? RTLD_LAZY : RTLD_NOW);
  if (!h) {
    printf("OPEN fail %s\n", dlerror());
    return 1;
  }
  printf("OPEN ok\n");
  dl_iterate_phdr(show, NULL);
  fflush(stdout);
  if (lazy && argc > 3) {
    int (*f)(void);
    *(void **)&f = dlsym(h, argv[3]);
    printf("CALL %d\n", f ? f() : -1);
  }
  return 0;
}
"""

WINDOWS_CHILD = r"""
/* fixture_shapes.py's child: LoadLibraryW(argv[1]); then calls the
 * imports the DLL keeps in its fixture_imports table. */
#include <windows.h>
#include <stdio.h>
int wmain(int argc, wchar_t **argv) {
  SetErrorMode(SEM_FAILCRITICALERRORS);
  if (argc < 2)
    return 2;
  HMODULE h = LoadLibraryW(argv[1]);
  if (!h) {
    printf("OPEN fail %lu\n", (unsigned long)GetLastError());
    return 1;
  }
  printf("OPEN ok\n");
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  printf("WINE %s\n",
         ntdll && GetProcAddress(ntdll, "wine_get_version") ? "yes" : "no");
  fflush(stdout);
  typedef int (*fn)(void);
  const fn *table = (const fn *)(void *)GetProcAddress(h, "fixture_imports");
  if (table) {
    printf("CALL %d\n", table[0]());
    fflush(stdout);
  }
  return 0;
}
"""

UNDEFINED = re.compile(r"undefined symbol: (__nvJitLink[A-Za-z]+_12_4), "
                       r"version libnvJitLink\.so\.12")


def readelf(args, path):
    return run(["readelf"] + args + [path])[1]


def dynamic(path, tag):
    m = re.search(r"\(%s\)\s+[^\[]*\[(.*)\]" % tag, readelf(["-d"], path))
    return m.group(1) if m else None


def needed(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]",
                      readelf(["-d"], path))


def version_nodes(path):
    """The nodes a file defines (DT_VERDEF), BASE excluded."""
    text = readelf(["-V"], path)
    part = text.split("Version definition section", 1)
    if len(part) < 2:
        return []
    part = part[1].split("Version needs section", 1)[0]
    return [m.group(2) for m in re.finditer(r"Flags: (\w+)\s+Index: \d+\s+Cnt: \d+\s+Name: (\S+)",
                                             part) if m.group(1) != "BASE"]


def dynsyms(path):
    """(name, version, defined) of each dynamic symbol (objdump -T)."""
    out = []
    for line in run(["objdump", "-T", path])[1].splitlines():
        part = line.split()
        if len(part) < 5 or not re.match(r"[0-9a-f]{16}$", part[0]):
            continue
        out.append((part[-1], part[-2].strip("()"), "*UND*" not in line))
    return out


def linux(args):
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    child = os.path.join(work, "child")
    with open(child + ".c", "w") as f:
        f.write(LINUX_CHILD)
    rc, out, err = run([args.cc, "-O1", child + ".c", "-o", child, "-ldl"])
    if rc:
        print(out + err)
        check(False, "build the child with %s" % args.cc)
        return
    fx = os.path.join(os.path.abspath(args.fixtures), "stale_minor")
    sparse = os.path.join(fx, "site-packages/nvidia/cusparse/lib/libcusparse.so.12")
    wheel = os.path.join(fx, "site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12")
    lib64 = os.path.join(fx, "cuda-12.1/lib64")
    stale = os.path.realpath(os.path.join(lib64, "libnvJitLink.so.12"))
    base = {k: v for k, v in os.environ.items()
            if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "LD_DEBUG", "LD_BIND_NOW")}

    def child_run(env_more, *argv):
        env = dict(base, **env_more)
        return run([child] + list(argv), env=env)

    def mapped(out):
        return [os.path.realpath(l[7:]) for l in out.splitlines() if l.startswith("MAPPED ")]

    # wheel
    rc, out, err = child_run({"LD_DEBUG": "libs,bindings"}, sparse)
    bound = re.search(r"binding file %s \[0\] to (\S+) \[0\]: normal symbol "
                      r"`__nvJitLinkComplete_12_4' \[libnvJitLink\.so\.12\]" % re.escape(sparse), err)
    check(rc == 0 and "OPEN ok" in out and os.path.realpath(wheel) in mapped(out) and
          bound and os.path.realpath(bound.group(1)) == os.path.realpath(wheel),
          "wheel: libcusparse.so.12 loads (RTLD_NOW) with the wheel's libnvJitLink.so.12 "
          "(RUNPATH $ORIGIN/../../nvjitlink/lib); __nvJitLinkComplete_12_4 [libnvJitLink.so.12] "
          "binds to %s" % (bound and bound.group(1)))
    # stale
    rc, out, err = child_run({"LD_LIBRARY_PATH": lib64, "LD_DEBUG": "libs"}, sparse)
    m = re.search(r"OPEN fail (.*)", out)
    took = re.search(r"trying file=(\S*libnvJitLink\.so\.12)", err)
    check(rc == 1 and m and m.group(1).startswith(sparse + ": ") and UNDEFINED.search(m.group(1))
          and took and os.path.realpath(took.group(1)) == stale,
          "stale: with %s on LD_LIBRARY_PATH the loader takes %s and dlopen(RTLD_NOW) fails: %s"
          % (lib64, took and took.group(1), m and m.group(1)))
    # lazy
    rc, out, err = child_run({"LD_LIBRARY_PATH": lib64}, sparse, "lazy",
                             "cusparseSpMMOp_createPlan")
    want = ("symbol lookup error: %s: undefined symbol: __nvJitLinkComplete_12_4, "
            "version libnvJitLink.so.12" % sparse)
    check("OPEN ok" in out and rc == 127 and want in err,
          "lazy: RTLD_LAZY loads it, the first JIT call ends the process (exit %d): %s"
          % (rc, err.strip().splitlines()[-1] if err.strip() else "nothing on stderr"))
    # preload
    rc, out, err = child_run({"LD_PRELOAD": stale}, sparse)
    m = re.search(r"OPEN fail (.*)", out)
    check(rc == 1 and m and UNDEFINED.search(m.group(1)),
          "preload: LD_PRELOAD=%s, no LD_LIBRARY_PATH: %s" % (stale, m and m.group(1)))
    # shape
    new_syms = [(n, v) for n, v, d in dynsyms(wheel) if d]
    old_syms = [(n, v) for n, v, d in dynsyms(stale) if d]
    refs = sorted(n for n, v, d in dynsyms(sparse) if not d and v == "libnvJitLink.so.12")
    new_minors = sorted({int(n.rsplit("_", 1)[1]) for n, v in new_syms
                         if re.match(r"__nvJitLink\w+_12_\d+$", n)})
    old_minors = sorted({int(n.rsplit("_", 1)[1]) for n, v in old_syms
                         if re.match(r"__nvJitLink\w+_12_\d+$", n)})
    check(version_nodes(wheel) == ["libnvJitLink.so.12"] == version_nodes(stale) and
          new_minors == [0, 1, 2, 3, 4] and old_minors == [0, 1] and
          all(v == "libnvJitLink.so.12" for n, v in new_syms + old_syms) and
          len(refs) == 8 and all(n.endswith("_12_4") for n in refs) and
          needed(sparse)[:1] == ["libnvJitLink.so.12"] and
          dynamic(sparse, "RUNPATH") == "$ORIGIN:$ORIGIN/../../nvjitlink/lib",
          "shape: one node libnvJitLink.so.12 in 12.4.127 (minors %s) and 12.1.105 (minors %s); "
          "cuSPARSE references %d names @libnvJitLink.so.12 (%s, ...), RUNPATH %s"
          % (new_minors, old_minors, len(refs), refs[:1], dynamic(sparse, "RUNPATH")))
    # majors
    cm = os.path.join(os.path.abspath(args.fixtures), "cuda_majors")
    tk = os.path.join(cm, "cuda-13.0/lib64")
    cu12 = os.path.join(cm, "cu12/site-packages/nvidia")
    cu13 = os.path.join(cm, "cu13/site-packages/nvidia")
    rc, out, err = child_run({"LD_LIBRARY_PATH": tk + ":" + os.path.join(cu12, "cusparse/lib")},
                             "libcusparse.so.12")
    names = [os.path.basename(p) for p in mapped(out)]
    check(rc == 0 and "libcusparse.so.12.6.3.3" in names and "libnvJitLink.so.13.0.88" in names
          and "libnvJitLink.so.12" not in names,
          "majors: dlopen(\"libcusparse.so.12\") with the CUDA 13.0 toolkit first takes its build "
          "(maps %s) without an error" % ", ".join(n for n in names if "cusparse" in n or "JitLink" in n))
    rc, out, err = child_run({}, os.path.join(cu12, "cusparse/lib/libcusparse.so.12"))
    names = [os.path.basename(p) for p in mapped(out)]
    check(rc == 0 and "libnvJitLink.so.12" in names,
          "majors: the CUDA 12 wheel's libcusparse.so.12 maps libnvJitLink.so.12 (%s)"
          % ", ".join(n for n in names if "JitLink" in n))

    def holds(path, text):
        with open(path, "rb") as f:
            return text.encode() in f.read()

    eng12 = os.path.join(cu12, "cudnn/lib/libcudnn_engines_precompiled.so.9")
    eng13 = os.path.join(cu13, "cudnn/lib/libcudnn_engines_precompiled.so.9")
    rand12 = os.path.join(cu12, "curand/lib/libcurand.so.10")
    rand13 = os.path.join(tk, "libcurand.so.10")
    marks = [
        (holds(eng12, "libcublasLt.so.12") and not holds(eng12, "libcublasLt.so.13"),
         "cuDNN 9 (CUDA 12) engines hold libcublasLt.so.12"),
        (holds(eng13, "libcublasLt.so.13") and "cu13/lib" in (dynamic(eng13, "RUNPATH") or ""),
         "cuDNN 9 (CUDA 13) engines hold libcublasLt.so.13, RUNPATH reaches ../../cu13/lib"),
        (not [n for n in needed(os.path.join(cu13, "cu13/lib/libcusparse.so.12")) if "cu" in n
              or "JitLink" in n] and
         holds(os.path.join(cu13, "cu13/lib/libcusparse.so.12"), "libnvJitLink.so\0"),
         "cuSPARSE 12.7 (CUDA 13.2) NEEDs nothing and holds \"libnvJitLink.so\""),
        (not [n for n in needed(rand12) + needed(rand13) if "cu" in n],
         "cuRAND 10 of either CUDA major NEEDs no CUDA library"),
        (holds(os.path.join(cu12, "nccl/lib/libnccl.so.2"), "NCCL version 2.21.5+cuda12.4") and
         holds(os.path.join(tk, "libnccl.so.2"), "NCCL version 2.28.9+cuda13.0") and
         version_nodes(os.path.join(tk, "libnccl.so.2")) == [],
         "NCCL 2 says its CUDA in its banner (+cuda12.4 / +cuda13.0), versions no symbol"),
        (os.path.isdir(os.path.join(cm, "cu12/site-packages/nvidia_curand_cu12-10.3.5.147.dist-info")),
         "the CUDA 12 cuRAND's distribution is nvidia-curand-cu12"),
    ]
    for ok, text in marks:
        check(ok, "majors: " + text)


def windows(args):
    if not args.wine_run:
        print("SKIPPED: no Wine (--wine-run) to run the Windows loader")
        return SKIP
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "app"))
    child = os.path.join(work, "app", "child.exe")
    with open(os.path.join(work, "child.c"), "w") as f:
        f.write(WINDOWS_CHILD)
    rc, out, err = run([args.cc, "-O1", "-municode", os.path.join(work, "child.c"), "-o", child,
                        "-static-libgcc"])
    if rc:
        print(out + err)
        check(False, "build the child with %s" % args.cc)
        return None
    fx = os.path.join(os.path.abspath(args.fixtures), "stale_minor", "windows")
    new = os.path.join(fx, "site-packages/nvidia/cublas/bin")
    old = os.path.join(fx, "Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.1/bin")

    def win(path):
        return "Z:" + path.replace("/", "\\")

    def wine(path_folders):
        env = dict(os.environ, CUDALOAD_WINEPATH=";".join(win(p) for p in path_folders),
                   CUDALOAD_WINEDEBUG="warn+module")
        return run([os.path.abspath(args.wine_run), child, win(os.path.join(new, "cublas64_12.dll"))], env=env,
                   cwd=work)

    rc, out, err = wine([new])
    check(rc == 0 and "OPEN ok" in out and "CALL 0" in out,
          "new: cublas64_12.dll loads with its own cublasLt64_12.dll on PATH and its import of "
          "cublasLt_for_cublas_HSS answers")
    rc, out, err = wine([old, new])
    on_wine = "WINE yes" in out
    if "OPEN fail" in out:
        check(not on_wine and "OPEN fail 127" in out,
              "stale: the CUDA 12.1 cublasLt64_12.dll first on PATH: LoadLibrary fails with "
              "ERROR_PROC_NOT_FOUND (%s)" % out.strip().splitlines()[0])
    else:
        said = re.search(r"No implementation for cublasLt64_12\.dll\.cublasLt_for_cublas_HSS "
                         r"imported from \S*cublas64_12\.dll", err)
        aborted = "unimplemented function cublasLt64_12.dll.cublasLt_for_cublas_HSS" in err
        check(on_wine and said and aborted and "CALL" not in out,
              "stale (Wine: Windows fails this load with 127): the CUDA 12.1 cublasLt64_12.dll "
              "first on PATH; Wine says \"%s\" and aborts at the first call"
              % (said.group(0) if said else "nothing"))
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fixtures", required=True)
    p.add_argument("--cc", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--platform", choices=("linux", "windows"), required=True)
    p.add_argument("--wine-run")
    args = p.parse_args()
    if not os.path.isdir(os.path.join(args.fixtures, "stale_minor")):
        print("SKIPPED: no stale_minor fixtures in %s (no host compiler)" % args.fixtures)
        return SKIP
    if args.platform == "linux":
        if not sys.platform.startswith("linux"):
            print("SKIPPED: the glibc loader is needed")
            return SKIP
        linux(args)
    else:
        if not os.path.isdir(os.path.join(args.fixtures, "stale_minor", "windows")):
            print("SKIPPED: no stale_minor/windows fixtures (no mingw-w64)")
            return SKIP
        if windows(args) == SKIP:
            return SKIP
    print("%s: %d check(s) failed" % ("FAIL" if failed else "PASS", failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
