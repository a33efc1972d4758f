#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real loader's verdict on a Python program, without a GPU: is every
CUDA library the program opens found, does it bind all its symbols, and is
each one the file it should be?

The program (Python code) runs in a fresh process of the given interpreter,
through an optional wrapper (`cudaload exec ... --`, `env ...`), with
LD_BIND_NOW=1 (every reference of every object, lazy ones included, is bound
at load, as Python's RTLD_NOW does for extension modules) and
LD_DEBUG=libs,bindings written to files. After the program's code the same
process opens, by name, every CUDA library name the mapped libraries hold as
text (the names they open at run time: cuDNN's sub-libraries, cuBLASLt from
cuDNN, nvJitLink and NVRTC from cuFFT, cuBLAS 12 from ctranslate2, ...),
each from a stub library built with the opener's own RUNPATH or RPATH
(acceptance/explain_opener.c), so the loader searches as that library
would; new libraries may hold more names, so this repeats until nothing new
is mapped (at most four runs). The verdict lists, as problems:

  - any "cannot open shared object file", "undefined symbol" or "symbol
    lookup error" the process printed (ORT prints its provider's load
    failure and carries on), or its exit status when not 0;
  - a name opened lazily that the loader did not find, or could not bind;
  - a mapped CUDA library outside the allowed folders, or inside a
    forbidden one (the stale copy, another CUDA major's toolkit);
  - a binding (LD_DEBUG=bindings) into a CUDA library outside the allowed
    folders.

libcuda.so.1 is never opened, and a library that fails to load only because
it NEEDs libcuda.so.1 (cuDNN 9's engines_runtime_compiled) is a note: there
is no driver on these machines. Names listed as
optional (with the reason) are reported but do not fail; names without a
major (`libnvrtc.so`, `libnvJitLink.so`) are shown as not tried, except in
cuDNN 9's main library, which appends ".9" to its sub-libraries' names.

Used by acceptance/program_side.py; by hand:
  loader_check.py --python VENV/bin/python --code 'import torch' \\
      --allow VENV/lib/python3.11/site-packages [--forbid DIR] \\
      [--optional NAME=REASON] [--work DIR] [-- WRAPPER...]
Exit status 0 when the verdict has no problem, 1 otherwise."""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# File names of CUDA libraries (a bundled, auditwheel-renamed copy
# included: libcudnn-463fd6d5.so.8.9.7).
CUDA_FILE = re.compile(
    r"^lib(cudnn(_[a-z_]+)?|cublasLt|cublas|cudart|nvrtc|nvJitLink|cufftw?|curand|"
    r"cusparse|cusolver(Mg)?|nccl|cupti|nvblas)(-[0-9a-f]{8})?\.so(\.[0-9.]+)?$")
# Names a library opens at run time, as it holds them (NUL-terminated).
LAZY_NAME = re.compile(
    rb"(?<![A-Za-z0-9_./-])(lib(?:cudnn(?:_[a-z_]+)?|cublasLt|cublas|cudart|nvrtc|nvJitLink|"
    rb"cufftw?|curand|cusparse|cusolver|nccl|cupti)\.so(?:\.[0-9]+)?)\x00")
DRIVER = "libcuda.so.1"
ERRORS = ("cannot open shared object file", "undefined symbol", "symbol lookup error")


def driver_missing(text):
    """A load that fails only because the driver (libcuda.so.1) is absent,
    as it is on these machines: libcudnn_engines_runtime_compiled.so.9
    NEEDs it."""
    return re.search(r"(^|[\s/])libcuda\.so\.1: cannot open shared object file", text) is not None


def real(path):
    return os.path.realpath(path)


def under(path, folder):
    return real(path).startswith(real(folder).rstrip("/") + "/")


class Cache:
    """What was read from files, kept across runs (libtorch_cuda.so is
    900 MB): keyed by path, size and modification time."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path) as f:
                self.data = json.load(f)
        except (OSError, ValueError):
            self.data = {}

    def get(self, kind, path, compute):
        st = os.stat(path)
        key = "%s|%s|%d|%d" % (kind, real(path), st.st_size, int(st.st_mtime))
        if key not in self.data:
            self.data[key] = compute(path)
            with open(self.path + ".part", "w") as f:
                json.dump(self.data, f)
            os.replace(self.path + ".part", self.path)
        return self.data[key]


def dynamic_of(path):
    """SONAME, RUNPATH and RPATH as readelf prints them."""
    out = subprocess.run(["readelf", "-d", path], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True).stdout
    found = {}
    for tag in ("SONAME", "RUNPATH", "RPATH"):
        m = re.search(r"\(%s\)\s+[^\[]*\[(.*)\]" % tag, out)
        found[tag] = m.group(1) if m else None
    return found


def names_held(path):
    names = set()
    with open(path, "rb") as f:
        while True:
            chunk = f.read(64 << 20)
            if not chunk:
                break
            # Chunks overlap by a name's length so none is cut.
            names.update(m.group(1).decode() for m in LAZY_NAME.finditer(chunk))
            if len(chunk) == 64 << 20:
                f.seek(-64, 1)
    return sorted(names)


# The program, then the lazy opens, then what is mapped.
WRAPPER = r'''
import ctypes, json, os, sys, traceback
_cl_program = %(code)r
try:
    exec(compile(_cl_program, "<program>", "exec"), {"__name__": "__main__"})
except BaseException as _cl_error:
    traceback.print_exc()
    print("PROGRAM-ERROR " + json.dumps(repr(_cl_error)), flush=True)
_cl_dlerror = ctypes.CDLL(None).dlerror
_cl_dlerror.restype = ctypes.c_char_p
for _cl_stub, _cl_name in json.loads(%(lazy)r):
    _cl_open = ctypes.CDLL(_cl_stub).explain_opener_open
    _cl_open.argtypes = [ctypes.c_char_p]
    _cl_ok = _cl_open(_cl_name.encode())
    _cl_why = b"" if _cl_ok else (_cl_dlerror() or b"")
    print("LAZY " + json.dumps([_cl_stub, _cl_name, bool(_cl_ok), _cl_why.decode("utf-8", "replace")]),
          flush=True)
_cl_seen = set()
for _cl_line in open("/proc/self/maps"):
    _cl_part = _cl_line.split(None, 5)
    if len(_cl_part) == 6 and _cl_part[5].startswith("/") and _cl_part[5] not in _cl_seen:
        _cl_seen.add(_cl_part[5].strip())
print("MAPPED " + json.dumps(sorted(_cl_seen)), flush=True)
'''


class Verdict:
    def __init__(self):
        self.problems = []
        self.notes = []
        self.mapped = []
        self.cuda_mapped = []
        self.lazy = []
        self.stdout = ""
        self.stderr = ""
        self.returncode = None
        self.bindings = 0

    @property
    def ok(self):
        return not self.problems

    def summary(self):
        return ("%d CUDA libraries mapped, %d opened by name, %d bindings into CUDA libraries"
                % (len(self.cuda_mapped), len([l for l in self.lazy if l[2]]), self.bindings))


class Checker:
    def __init__(self, work, cc="cc", names_cache=None):
        self.work = os.path.abspath(work)
        os.makedirs(self.work, exist_ok=True)
        self.cc = cc
        self.cache = Cache(names_cache or os.path.join(self.work, "files.json"))
        self.stubs = {}
        self.runs = 0

    def dynamic(self, path):
        return self.cache.get("dynamic", path, dynamic_of)

    def held(self, path):
        return self.cache.get("names", path, names_held)

    def stub_for(self, lib):
        """A library calling dlopen(name) from inside, with lib's RUNPATH or
        RPATH ($ORIGIN spelled out as lib's folder)."""
        d = self.dynamic(lib)
        key = (d["RUNPATH"] and "RUNPATH", d["RUNPATH"]) if d["RUNPATH"] else \
              ("RPATH", d["RPATH"]) if d["RPATH"] else (None, None)
        origin = os.path.dirname(real(lib))
        value = key[1] and key[1].replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
        if key[0] == "RPATH" and value:
            # A relative RPATH entry is the process's current folder's.
            value = ":".join(p if p.startswith("/") else os.path.join(os.getcwd(), p)
                             for p in value.split(":"))
        ident = (key[0], value)
        if ident not in self.stubs:
            out = os.path.join(self.work, "opener-%d.so" % len(self.stubs))
            args = [self.cc, "-shared", "-fPIC", "-O1", "-o", out,
                    os.path.join(HERE, "explain_opener.c"), "-ldl"]
            if key[0]:
                flag = "--enable-new-dtags" if key[0] == "RUNPATH" else "--disable-new-dtags"
                args += ["-Wl," + flag, "-Wl,-rpath," + value]
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if p.returncode:
                raise RuntimeError("building %s: %s" % (out, p.stdout))
            self.stubs[ident] = out
        return self.stubs[ident]

    def lazy_names(self, lib):
        soname = self.dynamic(lib)["SONAME"] or os.path.basename(lib)
        names = []
        for name in self.held(lib):
            if re.search(r"\.so$", name):
                if re.match(r"libcudnn(_\w+)?\.so\.9$", soname) and name.startswith("libcudnn_"):
                    name += ".9"   # cuDNN 9 appends its major to its own names
                else:
                    names.append((name, False))
                    continue
            if name in (soname, DRIVER):
                continue
            names.append((name, True))
        return names

    def run_once(self, python, code, env, wrapper, lazy, label):
        self.runs += 1
        prefix = os.path.join(self.work, "ld-%s-%d" % (re.sub(r"\W+", "_", label), self.runs))
        for f in os.listdir(self.work):
            if f.startswith(os.path.basename(prefix) + "."):
                os.remove(os.path.join(self.work, f))
        env = dict(env, LD_BIND_NOW="1", LD_DEBUG="libs,bindings", LD_DEBUG_OUTPUT=prefix)
        argv = list(wrapper) + [python, "-c", WRAPPER % {"code": code, "lazy": json.dumps(lazy)}]
        p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, errors="replace")
        debug = [os.path.join(self.work, f) for f in os.listdir(self.work)
                 if f.startswith(os.path.basename(prefix) + ".")]
        return p, debug

    def check(self, python, code, env, allow, forbid=(), optional=None, wrapper=(),
              label="program", expect=None):
        """expect: {basename: folder} files that must come from there."""
        optional = optional or {}
        lazy, tried = [], set()
        v = Verdict()
        for _ in range(4):
            p, debug = self.run_once(python, code, env, wrapper, lazy, label)
            mapped = []
            for line in p.stdout.splitlines():
                if line.startswith("MAPPED "):
                    mapped = json.loads(line[7:])
            more = []
            for f in mapped:
                if not os.path.isfile(f):
                    continue
                base = os.path.basename(f)
                is_cuda = bool(CUDA_FILE.match(base))
                if not is_cuda and not any(under(f, a) for a in allow):
                    continue
                for name, versioned in self.lazy_names(f):
                    if not versioned:
                        if (f, name) not in tried:
                            tried.add((f, name))
                            v.notes.append("%s holds %s (no major: the library adds it at "
                                           "run time): not tried" % (base, name))
                        continue
                    # Openers with the same search path search alike: once.
                    stub = self.stub_for(f)
                    if (stub, name) in tried:
                        continue
                    tried.add((stub, name))
                    more.append([stub, name, f])
            if not more:
                break
            lazy += [[stub, name] for stub, name, _ in more]
            self._openers = getattr(self, "_openers", {})
            for stub, name, f in more:
                self._openers[(stub, name)] = f
        v.stdout, v.stderr, v.returncode = p.stdout, p.stderr, p.returncode
        v.mapped = mapped
        text = p.stdout + "\n" + p.stderr
        for line in text.splitlines():
            if line.startswith(("LAZY ", "MAPPED ", "PROGRAM-ERROR ")):
                continue
            if any(e in line for e in ERRORS) and not driver_missing(line):
                v.problems.append("the process printed: " + line.strip()[:400])
        for line in p.stdout.splitlines():
            if line.startswith("PROGRAM-ERROR "):
                v.problems.append("the program raised " + json.loads(line[14:]))
        if p.returncode != 0:
            lines = p.stderr.strip().splitlines()
            said = [l for l in lines if l.startswith("cudaload")] or lines[-1:]
            v.problems.append("the process exited with status %d%s" % (
                p.returncode, ": " + said[0][:300] if said else ""))
        for line in p.stdout.splitlines():
            if not line.startswith("LAZY "):
                continue
            stub, name, ok, why = json.loads(line[5:])
            opener = os.path.basename(self._openers.get((stub, name), "?"))
            v.lazy.append((opener, name, ok, why))
            if ok:
                continue
            if driver_missing(why):
                v.notes.append("%s opens %s by name: it needs the driver (%s), which this "
                               "machine does not have" % (opener, name, why))
            elif name in optional:
                v.notes.append("%s opens %s by name: not found (%s); optional: %s"
                               % (opener, name, why, optional[name]))
            else:
                v.problems.append("%s opens %s by name: %s" % (opener, name, why or "not found"))
        for f in mapped:
            base = os.path.basename(f)
            if not CUDA_FILE.match(base):
                continue
            v.cuda_mapped.append(f)
            bad = [d for d in forbid if under(f, d)]
            if bad:
                v.problems.append("%s is mapped from %s, which must not be used" % (f, bad[0]))
            elif not any(under(f, a) for a in allow):
                v.problems.append("%s is mapped from outside the allowed folders (%s)"
                                  % (f, ", ".join(allow)))
            if expect and base in expect and not under(f, expect[base]):
                v.problems.append("%s is mapped from %s, expected from %s"
                                  % (base, os.path.dirname(f), expect[base]))
        if expect:
            names = {os.path.basename(f) for f in v.cuda_mapped}
            for base, folder in expect.items():
                if base not in names:
                    v.problems.append("%s (from %s) is not mapped" % (base, folder))
        binding = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^']+)'")
        # A wrapper that execs the program (cudaload exec) leaves its own
        # lines first in the file of that process id: what it loaded (an
        # LD_PRELOAD it leaves out of the program's, say) is not the
        # program's. Its lines end where the loader hands it control.
        handover = ("transferring control: " + os.path.realpath(wrapper[0])) if wrapper else None
        wrong = {}
        for path in debug:
            with open(path, errors="replace") as f:
                lines = f.readlines()
            cut = [i for i, line in enumerate(lines) if handover and line.rstrip().endswith(handover)]
            for line in lines[cut[-1] + 1 if cut else 0:]:
                if "binding file" not in line:
                    continue
                m = binding.search(line)
                if not m or not CUDA_FILE.match(os.path.basename(m.group(2))):
                    continue
                v.bindings += 1
                target = m.group(2)
                if any(under(target, d) for d in forbid) or \
                        not any(under(target, a) for a in allow):
                    wrong.setdefault(target, (m.group(1), m.group(3)))
            os.remove(path)
        for target, (src, sym) in sorted(wrong.items()):
            v.problems.append("%s binds %s to %s (not an allowed file)" % (src, sym, target))
        return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True)
    ap.add_argument("--code", required=True)
    ap.add_argument("--allow", action="append", default=[])
    ap.add_argument("--forbid", action="append", default=[])
    ap.add_argument("--optional", action="append", default=[], help="NAME=REASON")
    ap.add_argument("--work", default="loader-check")
    ap.add_argument("wrapper", nargs="*")
    args = ap.parse_args()
    checker = Checker(args.work)
    optional = dict(o.split("=", 1) for o in args.optional)
    v = checker.check(args.python, args.code, dict(os.environ), args.allow, args.forbid,
                      optional, args.wrapper)
    for opener, name, ok, why in v.lazy:
        print("lazy  %-40s %-28s %s" % (opener, name, "ok" if ok else "FAILED " + why))
    for n in v.notes:
        print("note  " + n)
    for p in v.problems:
        print("FAIL  " + p)
    print(("ok    " if v.ok else "FAIL  ") + v.summary())
    return 0 if v.ok else 1


if __name__ == "__main__":
    sys.exit(main())
