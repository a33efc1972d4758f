#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 15 of scripts/acceptance: issue 41 with real wheels from the index,
as users meet them (docs/real-stacks.md).

Healthy environments (each program imports, and its CUDA libraries load
under cudaload; there is no GPU and no driver here):
  cu12   one venv of jax[cuda12] 0.10.2, tensorflow[and-cuda] 2.21.0,
         onnxruntime-gpu[cuda,cudnn] 1.26.0 and ctranslate2 4.8.5, their
         CUDA 12 wheels shared (pip resolved one set for all four);
  cupy   cupy-cuda12x[ctk] 14.2.0 (cuda-pathfinder, cuda-toolkit 12.9.2);
  ort13  onnxruntime-gpu[cuda,cudnn] 1.31.1, the CUDA 13 build.
For each program:
  - `cudaload doctor --for MODULE --format json`: every problem but the
    missing driver must be true: the real loader, in a fresh process, must
    fail as the problem says (a needed name: dlopen of the consumer fails;
    a name opened by name: dlopen of it from a stub with the consumer's
    own search list fails). A problem the loader contradicts is a false
    alarm and fails the step;
  - `cudaload exec --for MODULE -- python -c "import MODULE"` exits 0;
  - `cudaload.setup(for_=MODULE)` then the import succeeds;
  - under `cudaload exec --for MODULE`, acceptance/loader_check.py: every
    CUDA library the process maps and every name they open by name is
    found, all symbols bound (LD_BIND_NOW), none from the toolkit.
A failure scenario:
  ort-major  onnxruntime-gpu 1.26 (the CUDA 12 build) on this machine
         (whose toolkit is CUDA 13): without cudaload a session with the
         CUDA provider falls back to the CPU and prints "Require cuDNN 9.*
         and CUDA 12.*"; `doctor --error "<that text>"` names CUDA 12 from
         the message and the provider; `doctor --for onnxruntime` names the
         provider's missing CUDA 12 libraries and says to call
         onnxruntime.preload_dlls(); its fix (exec) followed as printed,
         the provider loads (loader_check).
Failure scenarios of issue 41's classes (acceptance/real_failures.py):
  abs-path, nvjitlink, user-site, same-files, stray-major, cuda11.

Usage: real_programs.py --tool TOOL --library LIBSO --bindings DIR
                        --cache DIR --work DIR [--only NAMES]
Exit status 0 when every step passed, 1 otherwise."""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import loader_check  # noqa: E402
import program_side  # noqa: E402
import real_failures  # noqa: E402

PY = "%d.%d" % sys.version_info[:2]
failures = []
passed = [0]


# What the model does not know yet, printed on every run as a GAP line (not
# counted as passed): (module, library name) -> why.
KNOWN_GAPS = {
    # Empty now: ctranslate2's libnccl.so.2 (its tensor-parallel mode), the
    # last entry, is a need "if used" of the model (lib/scan/consumers.c).
}
gaps = []


def known_gap(text, details=()):
    print("GAP   %s" % text, flush=True)
    for d in details:
        print("        | " + str(d)[:400])
    gaps.append(text)


def record(ok, text, details=()):
    print("%-5s %s" % ("ok" if ok else "FAIL", text), flush=True)
    for d in details:
        for line in str(d).splitlines()[:30]:
            print("        | " + line[:400])
    if ok:
        passed[0] += 1
    else:
        failures.append(text)


# Each environment: its venv (in the cache) and its programs: module, the
# code that imports it, and the problems its real wheels truly have, each
# checked against the loader below (none is taken on trust).
ENVIRONMENTS = {
    "cu12": ("venv-cu12-programs", ["jax", "tensorflow", "onnxruntime", "ctranslate2"]),
    "cupy": ("venv-cupy", ["cupy"]),
    "ort13": ("venv-ort131", ["onnxruntime"]),
}


def fresh_env():
    env = program_side.base_env()
    env.pop("CUDA_PATH", None)
    env.pop("CUDA_HOME", None)
    return env


def loader_truth(checker, python, problem, env):
    """Whether the real loader, in a fresh process, fails as the problem
    says. Returns (true, why)."""
    facts = problem.get("facts", {})
    consumer = facts.get("consumer", {}).get("value")
    names = (facts.get("name", {}).get("value") or "").split(", ")
    if not consumer or not names[0]:
        return False, "no consumer or name to check"
    if problem["kind"] == "not-found":
        code = "import ctypes\nctypes.CDLL(%r)\n" % consumer
    else:
        stub = checker.stub_for(consumer)
        code = ("import ctypes, sys\nop = ctypes.CDLL(%r).explain_opener_open\n"
                "op.argtypes = [ctypes.c_char_p]\nbad = [n for n in %r if op(n.encode())]\n"
                "sys.exit(1 if bad else 0)\n" % (stub, names))
    p = subprocess.run([python, "-c", code], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if problem["kind"] == "not-found":
        return p.returncode != 0, (p.stderr.strip().splitlines() or ["loaded"])[-1]
    return p.returncode == 0, "dlopen from its search list %s" % (
        "fails for each name" if p.returncode == 0 else "succeeds for one of them")


def healthy(ctx, checker, key):
    name, modules = ENVIRONMENTS[key]
    venv = os.path.join(ctx.cache, "%s-%s" % (name, PY))
    if not os.path.exists(os.path.join(venv, ".complete")):
        record(False, "%s: %s is not in the cache (scripts/acceptance makes it)" % (key, venv))
        return
    python = os.path.join(venv, "bin", "python")
    site = os.path.join(venv, "lib", "python" + PY, "site-packages")
    env = program_side.activated(fresh_env(), venv)
    for module in modules:
        doc, problems, cmdline, err = program_side.doctor_json(ctx, ["--for", module], env)
        if doc is None:
            record(False, "%s %s: doctor --for gave no report: %s" % (key, module, err))
            continue
        false = []
        for p in problems:
            true, why = loader_truth(checker, python, p, fresh_env())
            if not true:
                false.append("%s: %s (%s)" % (p["kind"], p["problem"][:300], why))
        record(not false, "%s: doctor --for %s: %d problem(s) besides the driver, each true "
               "by the real loader" % (key, module, len(problems)) if not false else
               "%s: doctor --for %s reports what is not true" % (key, module),
               ["$ " + cmdline] + ["%s: %s" % (p["kind"], p["problem"][:300]) for p in problems]
               + false)
        rc, out, errtext = program_side.run(
            [ctx.tool, "exec", "--for", module, "--", python, "-c",
             "import %s; print('IMPORTED')" % module], ctx.tool_env(env))
        record(rc == 0 and "IMPORTED" in out,
               "%s: cudaload exec --for %s -- python -c 'import %s' (exit %d)" % (key, module, module, rc),
               [l for l in errtext.splitlines() if l.startswith("cudaload")][:5])
        code = ("import cudaload\nr = cudaload.setup(for_=%r)\nprint('SETUP', r.ok, flush=True)\n"
                "import %s\nprint('IMPORTED', flush=True)\n" % (module, module))
        rc, out, errtext = program_side.run([python, "-c", code], ctx.py_env(env))
        record(rc == 0 and "IMPORTED" in out,
               "%s: cudaload.setup(for_=%r) then import %s (exit %d)" % (key, module, module, rc),
               [] if rc == 0 else [program_side.tail(errtext, 4)])
        v = checker.check(python, "import %s\n" % module, env, [site], [ctx.toolkit],
                          optional={}, wrapper=[ctx.tool, "exec", "--for", module, "--"],
                          label="%s-%s" % (key, module))
        gap = [(name, why) for (m, name), why in KNOWN_GAPS.items() if m == module]
        problems = [q for q in v.problems if not any(name in q for name, _ in gap)]
        for name, why in gap:
            seen = [q for q in v.problems if name in q]
            if seen:
                known_gap("%s: under exec --for %s, %s: %s" % (key, module, name, why), seen[:4])
        record(not problems, "%s: under exec --for %s every CUDA library mapped and opened by "
               "name is found and bound%s (%s)" % (key, module, ", but for the known gap above"
                                                    if len(problems) < len(v.problems) else "",
                                                    v.summary()), problems[:8])


def ort_major(ctx, checker):
    """onnxruntime-gpu 1.26 (CUDA 12) beside the CUDA 13 toolkit."""
    venv = os.path.join(ctx.cache, "venv-cu12-programs-%s" % PY)
    python = os.path.join(venv, "bin", "python")
    site = os.path.join(venv, "lib", "python" + PY, "site-packages")
    env = program_side.activated(fresh_env(), venv)
    rc, out, err = program_side.program_run(python, program_side.ORT, env)
    m = re.search(r"Require cuDNN 9\.\* and CUDA 12\.\*.*", err)
    line = program_side.found(r".*Failed to load library.*", err)
    record(bool(m) and "CPUExecutionProvider" in out,
           "ort-major: without cudaload the CUDA provider fails and onnxruntime prints %r"
           % (m.group(0)[:120] if m else None), [line or program_side.tail(err, 3)])
    if not m:
        return
    message = "\n".join(l for l in err.splitlines() if "Failed to load library" in l or
                        "Require cuDNN" in l)
    doc, problems, cmdline, errtext = program_side.doctor_json(ctx, ["--error", message], env)
    facts = [p.get("facts", {}) for p in problems]
    said12 = any(f.get("cuda_major", {}).get("value") == "12" and
                 f.get("cuda_major", {}).get("from") == "message" for f in facts)
    no13 = not any("nvidia-cudnn-cu13" in " ".join(s.get("argv") or []) for p in problems
                   for s in p["fix"])
    record(doc is not None and said12 and no13,
           "ort-major: doctor --error \"<its text>\" takes CUDA 12 from the message and fixes "
           "with no CUDA 13 wheel", ["$ " + cmdline] +
           ["%s %s" % (p["kind"], json.dumps(p.get("facts"))[:300]) for p in problems])
    doc, problems, cmdline, errtext = program_side.doctor_json(ctx, ["--for", "onnxruntime"], env)
    provider = [p for p in problems if p["kind"] == "not-found" and
                "libonnxruntime_providers_cuda.so" in p["facts"].get("consumer", {}).get("value", "")]
    names = provider[0]["facts"]["name"]["value"] if provider else ""
    preload = provider and any("onnxruntime.preload_dlls()" in (s.get("note") or "")
                               for s in provider[0]["fix"])
    record(bool(provider) and "libcublasLt.so.12" in names and bool(preload),
           "ort-major: doctor --for onnxruntime names the provider's missing CUDA 12 libraries "
           "(%s) and says to call onnxruntime.preload_dlls()" % names, ["$ " + cmdline])
    ok, fenv, wrapper, log = program_side.follow_fixes(ctx, "ort-major", "fix", ["--for", "onnxruntime"],
                                                       env, allow_install=False)
    record(ok, "ort-major: the fix of doctor --for onnxruntime, followed as printed", log)
    if ok:
        v = checker.check(python, program_side.ORT, fenv, [site], [ctx.toolkit], wrapper=wrapper,
                          label="ort-major")
        bad = list(v.problems) + program_side.ort_ok(v)
        record(not bad, "ort-major: after the fix the CUDA provider loads, every library found and "
               "bound (%s)" % v.summary(), bad[:8])


ALL = list(ENVIRONMENTS) + ["ort-major"] + list(real_failures.SCENARIOS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for a in ("--tool", "--library", "--bindings", "--cache", "--work"):
        ap.add_argument(a, required=True)
    ap.add_argument("--only", default=",".join(ALL))
    ap.add_argument("--cc", default="cc")
    args = ap.parse_args()
    args.keep = False
    ctx = program_side.Context(args)
    ctx.house = os.path.join(ctx.cache, "wheels", "ort126")
    ctx.scratch = ctx.work
    ctx.base_python = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    checker = ctx.checker
    ctx.screens = []  # every doctor answer with a problem, as its text shows it
    started = time.time()
    for key in args.only.split(","):
        print("== " + key, flush=True)
        if key in ENVIRONMENTS:
            healthy(ctx, checker, key)
        elif key == "ort-major":
            ort_major(ctx, checker)
        elif key in real_failures.SCENARIOS:
            try:
                real_failures.SCENARIOS[key](ctx, checker, record)
            except program_side.Missing as e:
                record(False, "%s: cannot run: %s" % (key, e))
        else:
            ap.error("--only takes %s" % ", ".join(ALL))
    if ctx.screens:
        record(*program_side.screens_verdict(ctx.screens))
    print("\nreal programs: %d step(s) ok, %d failed, %d known gap(s), %ds"
          % (passed[0], len(failures), len(gaps), time.time() - started))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
