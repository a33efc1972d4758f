#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 14 of scripts/acceptance: issue 32 ("one truth, from the program's
side") against real wheels from the index, one scenario per item.

  a  torch 2.5.1+cu124 in its venv (activated), nvJitLink 12.1.105 (the
     nvidia-nvjitlink-cu12==12.1.105 wheel's folder) first on LD_LIBRARY_PATH.
  b  onnxruntime-gpu 1.26.0 (CUDA 12 build): b1 with its [cuda,cudnn] extras;
     b2 without them, diagnosed with --for onnxruntime; b3 without them,
     diagnosed with the requirement the issue's user gave
     (cudnn=9,cublas=12,cudart=12,cufft=11,curand=10), beside the CUDA 13
     toolkit. b2 and b3 follow the fixes in fresh venvs made for the run.
  c  torch 2.15.0 (CUDA 13) and ctranslate2 4.4.0 in one venv, a folder of
     CUDA 12 wheels (cuDNN 9.28.0.42, cuBLAS 12.9.3.13, NVRTC 12.9.86; pip
     --target) given as a root: torch must keep its own cuDNN 9.26.
  d  a's venv and LD_LIBRARY_PATH, its python run by path without
     activation (VIRTUAL_ENV unset, the venv not on PATH).
  e  a's venv activated, the old libnvJitLink.so.12 put first with LD_PRELOAD.
  f  a's venv activated, NCCL 2.18.1 (no ncclCommRegister) put first with
     LD_PRELOAD (issue 41, item 5): the doctor (--for, --require), exec
     (refuses; --drop-stale-preload), setup() and the fix as printed.
  g  a copy of a's venv (hard links) with NCCL 2.18.1 in its wheel folder,
     which libtorch_cuda.so's DT_RPATH reaches (issue 41, item 6), and
     2.21.5 given as a root: the doctor's run-program step, followed as
     printed, starts the venv's interpreter with the planned NCCL.

Each scenario's steps, each printed as one line:
  reproduce  the failure without libcudaload, and its exact error text
             ("ok" when the real failure is reproduced);
  today      what `cudaload doctor`/`exec`/`setup()`/`explain` print now,
             for the record ("NOTE", never a failure);
  target     the behaviour issue 32 asks for ("ok"/"FAIL"): the doctor's
             diagnosis names the right files, versions and symbols; its fix
             lines are followed exactly as printed (read from its JSON
             output: a `pip install` runs in the scenario's environment, an
             `export`/`unset` changes it, a `cudaload exec ... -- PROGRAM`
             runs the program); then acceptance/loader_check.py runs the
             program and fails on any library not found, any symbol not
             bound, any CUDA library mapped from the wrong place (another
             CUDA major, the stale copy).
A target step whose input is missing (no fix because the diagnosis failed)
fails saying so.

Usage:
  program_side.py --tool TOOL --library LIBSO --bindings DIR --cache DIR
                  --work DIR [--only a,b,...] [--cc CC]
  program_side.py --self-test    (how fix lines are read, on samples)
The cache must hold what scripts/acceptance prepares (it says what is
missing). Exit status 0 when every reproduce and target step passed, 1
otherwise."""

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import loader_check  # noqa: E402

PY = "%d.%d" % sys.version_info[:2]
results = []          # (scenario, step id, kind, ok)


def say(text=""):
    print(text, flush=True)


def record(scenario, step, kind, ok, text, details=()):
    mark = {"reproduce": "ok" if ok else "FAIL", "target": "ok" if ok else "FAIL",
            "today": "NOTE"}[kind]
    say("%-5s %s %s: %s" % (mark, step, kind, text))
    for d in details:
        for line in str(d).splitlines():
            say("        | " + line)
    results.append((scenario, step, kind, ok))


def tail(text, n=12):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[-n:])


def run(argv, env, cwd=None, timeout=1800):
    p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True,
                       errors="replace", timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def shown(argv):
    return " ".join(shlex.quote(a) for a in argv)


# --------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------

def base_env():
    """The user's environment, without what would decide for the tool or
    the loader behind the scenario's back."""
    drop = ("LD_LIBRARY_PATH", "LD_PRELOAD", "VIRTUAL_ENV", "CONDA_PREFIX",
            "PYTHONHOME", "PYTHONPATH", "CUDALOAD_LIBRARY", "LD_DEBUG",
            "LD_BIND_NOW", "PIP_REQUIRE_VIRTUALENV")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def activated(env, venv):
    """What `source VENV/bin/activate` does to the environment."""
    env = dict(env)
    env["VIRTUAL_ENV"] = venv
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    return env


class Context:
    def __init__(self, args):
        self.tool = os.path.abspath(args.tool)
        self.library = os.path.abspath(args.library)
        self.bindings = os.path.abspath(args.bindings)
        self.cache = os.path.abspath(args.cache)
        self.work = os.path.abspath(args.work)
        os.makedirs(self.work, exist_ok=True)
        # What the loader check reads from files (libtorch_cuda.so is 900 MB)
        # is kept in the cache, keyed by path, size and time.
        self.checker = loader_check.Checker(os.path.join(self.work, "loader"), cc=args.cc,
                                            names_cache=os.path.join(self.cache,
                                                                     "loader-check-files.json"))
        self.toolkit = "/usr/local/cuda"
        self.online = None
        self.keep = args.keep

    def venv(self, name):
        return os.path.join(self.cache, "%s-%s" % (name, PY))

    def site(self, venv):
        return os.path.join(venv, "lib", "python" + PY, "site-packages")

    def tool_env(self, env):
        """The scenario's environment, with the cudaload tool on PATH (as an
        installed tool is) and the Python package importable by
        setup() steps."""
        env = dict(env)
        env["PATH"] = os.path.dirname(self.tool) + os.pathsep + env.get("PATH", "")
        return env

    def py_env(self, env):
        env = dict(env)
        env["PYTHONPATH"] = self.bindings
        env["CUDALOAD_LIBRARY"] = self.library
        return env

    def index_reachable(self):
        if self.online is None:
            rc, _, _ = run([sys.executable, "-m", "pip", "index", "versions", "pip"],
                           base_env(), timeout=60)
            self.online = rc == 0
        return self.online


# --------------------------------------------------------------------------
# The tool, and its doctor's problems and fixes
# --------------------------------------------------------------------------

IGNORED = (re.compile(r"^no NVIDIA driver"),)   # no driver on these machines, by design


def cudaload(ctx, args, env):
    return run([ctx.tool] + args, ctx.tool_env(env))


def doctor_json(ctx, args, env):
    """(document or None, problems that are not about the missing driver,
    the command line, error text)."""
    argv = ["doctor"] + args + ["--format", "json"]
    rc, out, err = cudaload(ctx, argv, env)
    try:
        doc = json.loads(out)
    except ValueError:
        return None, [], "cudaload " + shown(argv), (err or out).strip() or "exit %d" % rc
    problems = [p for p in doc.get("problems", [])
                if not any(r.search(p.get("problem", "")) for r in IGNORED)]
    if problems and getattr(ctx, "screens", None) is not None:
        ctx.screens.append(first_screen(ctx, args, env))
    return doc, problems, "cudaload " + shown(argv), ""


SCREEN = 25  # issue 46: the answer fits the first screen, 25 lines at 80 columns


def first_screen(ctx, args, env):
    """Where the default text (the short form a user reads) shows the first
    problem that is not the missing driver, and its first fix line:
    (command line, its line number or None, the lines up to it)."""
    rc, out, err = cudaload(ctx, ["doctor"] + args, env)
    lines = out.splitlines()
    problem = None
    for number, line in enumerate(lines, 1):
        m = re.match(r"^  \d+\. (.*)", line)
        if m:
            problem = None if any(r.search(m.group(1)) for r in IGNORED) else m.group(1)
        elif problem and line.lstrip().startswith("fix:"):
            return "cudaload doctor " + shown(args), number, lines[:number]
    return "cudaload doctor " + shown(args), None, lines[:SCREEN + 5]


def screens_verdict(screens):
    """(ok, text, details) of issue 46's "each failure shows its cause and
    fix within its first 25 lines", over every doctor answer that had a
    problem besides the driver."""
    late = [(cmd, at, lines) for cmd, at, lines in screens if at is None or at > SCREEN]
    worst = max((at or 0) for _, at, _ in screens) if screens else 0
    details = []
    for cmd, at, lines in late[:3]:
        details.append("%s: first fix at line %s of its default text:" % (cmd, at))
        details.extend("  " + l for l in lines[:SCREEN + 5])
    for cmd, at, lines in screens:
        print("        | first fix at line %s: %s" % (at, cmd[:150]))
    return (not late, "the doctor's default text shows the first problem's cause and fix "
            "within %d lines in %d of %d answers with a problem (latest fix line: %d)"
            % (SCREEN, len(screens) - len(late), len(screens), worst), details)


def doctor_text(ctx, args, env, keep=("Plan", "Conflicts", "Environment", "Problems and fixes")):
    """The doctor's text report, only the sections worth recording."""
    rc, out, err = cudaload(ctx, ["doctor", "--verbose"] + args, env)
    lines, on = [], False
    for line in out.splitlines():
        if line and not line.startswith(" "):
            on = line.strip() in keep
        if on:
            lines.append(line)
    if err.strip():
        lines.append("stderr: " + tail(err, 4))
    return "cudaload doctor " + shown(args), "\n".join(lines) or out.strip(), rc


def problems_text(problems):
    return "\n".join("problem: %s\nfix: %s" % (p["problem"], p["fix_text"]) for p in problems) or \
        "no problem (the missing driver left aside)"


def first_command(problem):
    """The first step of a problem's fix that is a command (the doctor's
    JSON, schema 3: each step's action and argv, exactly what the text
    report prints on the step's line), or None when its fix is words
    only."""
    for step in problem["fix"]:
        if step["action"] != "note":
            return step
    return None


def fix_kind(step):
    """What following a step means here: install, env, wrap (run the
    program through cudaload), other."""
    return {"install": "install", "set-variable": "env",
            "run-program": "wrap"}.get(step["action"], "other")


def shown_step(step):
    """The step's command as the doctor's text prints it (sh)."""
    words = ["%s=%s" % (k, shlex.quote(v)) for k, v in step.get("env", {}).items()]
    if not step.get("argv"):
        return "export " + " ".join(words)
    return " ".join(words + [shlex.quote(w) for w in step["argv"]])


def wrapper_of(ctx, step):
    """A run-program step (`cudaload exec ... -- PROGRAM`, or with --for
    `-- COMMAND`, the program's own interpreter or binary) as the argv
    before the program: what follows `--` is the program, which the check
    runs itself (the same interpreter, with its code)."""
    words = list(step["argv"])
    if os.path.basename(words[0]) == "cudaload":
        words[0] = ctx.tool
    if "--" in words:
        words = words[:words.index("--") + 1]
    else:
        words.append("--")
    return words


def installer_of(step, env):
    """The pip or python an install step would run, as its PATH finds it
    (not resolved through links: a venv's python is a link)."""
    head = step["argv"][0]
    if "/" in head:
        return os.path.abspath(head)
    found_at = shutil.which(head, path=env.get("PATH", ""))
    return os.path.abspath(found_at) if found_at else None


def apply_env(step, env):
    """The environment after a set-variable step: its variables set, or
    the one `unset NAME` names dropped."""
    out = dict(env)
    out.update(step.get("env", {}))
    argv = step.get("argv", [])
    if argv[:1] == ["unset"]:
        for name in argv[1:]:
            out.pop(name, None)
    return out


def follow_fixes(ctx, scenario, step, doctor_args, env, allow_install, install_env=None,
                 rounds=4):
    """Follow the doctor's fix lines as printed, round after round, until it
    reports nothing but the driver or only says how to run the program.
    Returns (ok, env, wrapper, log)."""
    log, wrapper = [], []
    extra_roots = []
    for r in range(rounds):
        doc, problems, cmdline, err = doctor_json(ctx, doctor_args + extra_roots, env)
        log.append("$ " + cmdline)
        if doc is None:
            log.append("  the doctor gave no report: " + err)
            return False, env, wrapper, log
        if not problems:
            log.append("  no problem left (the missing driver aside)")
            return True, env, wrapper, log
        installs, envs, wraps = [], [], []
        for p in problems:
            log.append("  problem: " + p["problem"])
            log.append("  fix: " + p["fix_text"])
            step = first_command(p)
            if not step:
                log.append("  -> no command in this fix")
                return False, env, wrapper, log
            kind = fix_kind(step)
            {"install": installs, "env": envs, "wrap": wraps}.get(kind, []).append(step)
            if kind == "other":
                log.append("  -> not a command this check can follow: " + shown_step(step))
                return False, env, wrapper, log
        done = set()
        for step in installs:
            if shown_step(step) in done:
                continue
            done.add(shown_step(step))
            if not allow_install:
                log.append("  -> the fix installs packages (%s) into an environment that already "
                           "holds the right files: not the fix this case needs" % shown_step(step))
                return False, env, wrapper, log
            owner = installer_of(step, env)
            if not owner or not owner.startswith(ctx.work + "/"):
                log.append("  -> refused: %s would install with %s, outside the environments "
                           "made for this run (%s)" % (shown_step(step), owner or "nothing found",
                                                      ctx.work))
                return False, env, wrapper, log
            # The command as printed, its words as the shell would give
            # them; pip takes the wheels from the cache (PIP_FIND_LINKS,
            # PIP_NO_INDEX), and from the index only when the cache cannot
            # satisfy it.
            ienv = dict(install_env or env)
            ienv.update(step.get("env", {}))
            ienv["PIP_FIND_LINKS"] = os.path.join(ctx.cache, "wheels", "ort126")
            ienv["PIP_NO_INDEX"] = "1"
            argv = list(step["argv"])
            if "/" not in argv[0]:
                argv[0] = shutil.which(argv[0], path=env.get("PATH", "")) or argv[0]
            log.append("$ " + shown_step(step))
            rc, out, err = run(argv, ienv)
            if rc and ctx.index_reachable():
                del ienv["PIP_NO_INDEX"]
                log.append("  (not in the cache's wheels: from the index)")
                rc, out, err = run(argv, ienv)
            log.append("  exit %d %s" % (rc, tail(out + err, 3)))
            if rc:
                return False, env, wrapper, log
            if "--target" in step["argv"]:
                extra_roots += ["--root", step["argv"][step["argv"].index("--target") + 1]]
        for step in envs:
            log.append("$ " + shown_step(step))
            env = apply_env(step, env)
        if installs or envs:
            continue
        wrapper = wrapper_of(ctx, wraps[0])
        log.append("  -> the program runs through: " + shown(wrapper) + " PROGRAM")
        return True, env, wrapper, log
    log.append("  the doctor still reports problems after %d rounds" % rounds)
    return False, env, wrapper, log


def verify(ctx, scenario, step, python, code, env, allow, forbid=(), optional=None,
           wrapper=(), expect=None, extra_check=None, what="the program"):
    v = ctx.checker.check(python, code, env, allow, forbid, optional, wrapper,
                          label="%s-%s" % (scenario, step), expect=expect)
    problems = list(v.problems)
    if extra_check:
        problems += extra_check(v)
    details = ["$ " + shown(list(wrapper) + [python, "-c", code.strip().splitlines()[0] + " ..."])]
    details += ["problem: " + p for p in problems]
    details += ["note: " + n for n in v.notes if "optional" in n]
    record(scenario, step, "target", not problems,
           "%s, run under the loader (LD_BIND_NOW, LD_DEBUG=libs,bindings): %s"
           % (what, "every CUDA library it opens found, all symbols bound, from the right "
              "folders (%s)" % v.summary() if not problems else "%d problem(s)" % len(problems)),
           details)
    return v


def under_folder(path, folder):
    return os.path.realpath(path).startswith(os.path.realpath(folder).rstrip("/") + "/")


def need(path, what):
    if not os.path.exists(path):
        raise Missing("%s: %s is missing (scripts/acceptance prepares it)" % (what, path))


class Missing(Exception):
    pass


def program_run(python, code, env, wrapper=()):
    return run(list(wrapper) + [python, "-c", code], env)


def found(pattern, text):
    m = re.search(pattern, text)
    return m.group(0) if m else None


# --------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------

TORCH = """import torch
print("TORCH", torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), flush=True)
"""

# onnxruntime-gpu: a session with the CUDA provider on a one-node model
# (Identity), the model's bytes written by hand (no onnx package needed).
ORT = r'''import onnxruntime as ort
def _v(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)
def _f(num, wire, payload):
    key = _v((num << 3) | wire)
    return key + (_v(payload) if wire == 0 else _v(len(payload)) + payload)
def _s(num, text):
    return _f(num, 2, text.encode())
_t = _f(1, 2, _f(1, 0, 1) + _f(2, 2, _f(1, 2, _f(1, 0, 1))))
_vi = lambda name: _s(1, name) + _f(2, 2, _t)
_graph = _f(1, 2, _s(1, "x") + _s(2, "y") + _s(4, "Identity")) + _s(2, "g") + \
    _f(11, 2, _vi("x")) + _f(12, 2, _vi("y"))
_model = _f(1, 0, 8) + _f(7, 2, _graph) + _f(8, 2, _f(2, 0, 13))
session = ort.InferenceSession(_model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
print("ORT", ort.__version__, session.get_providers(), flush=True)
'''

# torch 2.15 + ctranslate2 4.4.0: torch's cuDNN, then ctranslate2's first
# cuBLAS call through its stub (it opens libcublas.so.12 by name; without a
# GPU, reaching cuBLAS 12 gives CUBLAS_STATUS_NOT_INITIALIZED, 1).
CT2 = r'''import torch, ctranslate2, ctypes, glob, os
print("TORCH_CUDNN", torch.backends.cudnn.version(), flush=True)
_libs = os.path.join(os.path.dirname(os.path.dirname(ctranslate2.__file__)), "ctranslate2.libs")
_core = ctypes.CDLL(glob.glob(os.path.join(_libs, "libctranslate2-*.so*"))[0],
                    mode=os.RTLD_NOLOAD | os.RTLD_NOW)
_h = ctypes.c_void_p()
print("CUBLAS_CREATE", _core.cublasCreate_v2(ctypes.byref(_h)), flush=True)
'''

UNDEFINED_12_4 = ("libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, "
                  "version libnvJitLink.so.12")


# --------------------------------------------------------------------------
# a, d, e: torch 2.5.1 and a stale nvJitLink
# --------------------------------------------------------------------------

class Torch251:
    def __init__(self, ctx):
        self.venv = ctx.venv("venv-torch2.5.1")
        need(os.path.join(self.venv, ".complete"), "the torch 2.5.1 venv")
        self.python = os.path.join(self.venv, "bin", "python")
        self.site = ctx.site(self.venv)
        self.cusparse = os.path.join(self.site, "nvidia/cusparse/lib/libcusparse.so.12")
        self.stale_dir = os.path.join(ctx.cache, "linux", "nvjitlink-12.1.105",
                                      "nvidia", "nvjitlink", "lib")
        self.stale = os.path.join(self.stale_dir, "libnvJitLink.so.12")
        need(self.stale, "nvJitLink 12.1.105")


def names_stale_nvjitlink(t, text):
    """What a right diagnosis of the stale nvJitLink says: the consumer, a
    _12_4 symbol, and the file the loader takes (its path or 12.1.105)."""
    missing = []
    if "libcusparse.so.12" not in text:
        missing.append("the consumer libcusparse.so.12")
    if not re.search(r"__nvJitLink\w+_12_4", text):
        missing.append("a symbol it lacks (__nvJitLink..._12_4)")
    if "12.1.105" not in text and t.stale_dir not in text:
        missing.append("the file the loader takes (12.1.105, %s)" % t.stale)
    return missing


def diagnosis(ctx, sc, step, t, args, env, what):
    doc, problems, cmdline, err = doctor_json(ctx, args, env)
    if doc is None:
        record(sc, step, "target", False, "%s: no report (%s)" % (what, err), ["$ " + cmdline])
        return None
    text = "\n".join(p["problem"] + "\n" + p["fix_text"] for p in problems)
    right = [p for p in problems if not names_stale_nvjitlink(t, p["problem"])]
    missing = names_stale_nvjitlink(t, text)
    record(sc, step, "target", bool(right),
           "%s names the stale nvJitLink (consumer, a _12_4 symbol, the 12.1.105 file)%s"
           % (what, "" if right else ": it does not; missing: " + "; ".join(missing)),
           ["$ " + cmdline, problems_text(problems)])
    return doc if right else None


def scenario_stale(ctx, sc, mode):
    """a (LD_LIBRARY_PATH, activated), d (LD_LIBRARY_PATH, python by path,
    not activated), e (LD_PRELOAD, activated)."""
    t = Torch251(ctx)
    env = base_env()
    if mode == "preload":
        env["LD_PRELOAD"] = t.stale
    else:
        env["LD_LIBRARY_PATH"] = t.stale_dir
    if mode != "by-path":
        env = activated(env, t.venv)
    how = {"ld-library-path": "LD_LIBRARY_PATH=%s, venv activated" % t.stale_dir,
           "by-path": "LD_LIBRARY_PATH=%s, %s run by path, nothing activated"
                      % (t.stale_dir, t.python),
           "preload": "LD_PRELOAD=%s, venv activated" % t.stale}[mode]
    say("   (%s)" % how)
    allow = [t.site]
    forbid = [os.path.dirname(os.path.dirname(os.path.dirname(t.stale_dir))), ctx.toolkit]

    # 1. reproduce
    rc, out, err = program_run(t.python, TORCH, env)
    line = found(r"ImportError: .*", err) or tail(err, 1)
    record(sc, sc + "1", "reproduce", rc != 0 and UNDEFINED_12_4 in err,
           "without cudaload `import torch` fails: %s" % line)

    # 2. today
    args_req = ["--require", "cusparse=12"]
    cmd, text, _ = doctor_text(ctx, args_req, env)
    record(sc, sc + "2", "today", True, "$ " + cmd, [text])
    rc, out, err = cudaload(ctx, ["explain", "--symbols", t.cusparse], env)
    binds = [l.strip() for l in out.splitlines() if "binds" in l and "libnvJitLink" in l]
    probs = out.split("\nProblems", 1)[1].strip() if "\nProblems" in out else "(no Problems section)"
    record(sc, sc + "2", "today", True, "$ cudaload explain --symbols %s" % t.cusparse,
           ["needs: " + (found(r"needs\s+libnvJitLink\.so\.12\s+->.*", out) or "?"),
            "nvJitLink binding lines: %s" % (binds or "none"), "Problems " + probs])
    exec_argv = ["exec", "--require", "cusparse=12", "--", t.python, "-c", TORCH]
    rc, out, err = cudaload(ctx, ["exec", "--dry-run"] + exec_argv[1:], env)
    plan = [l.strip() for l in out.splitlines() if l.strip().startswith(("planned", "LD_"))]
    rc, out, err = cudaload(ctx, exec_argv, env)
    record(sc, sc + "2", "today", True,
           "$ cudaload exec --require cusparse=12 -- %s -c 'import torch ...'" % t.python,
           plan + ["exit %d: %s" % (rc, found(r"TORCH .*|ImportError: .*", out + err) or
                                    tail(out + err, 1))])
    if mode != "by-path":
        setup = "import cudaload\nr = cudaload.setup(require=['cusparse=12'])\n" \
                "print('SETUP ok', r.ok, list(r.warnings))\n" + TORCH
        rc, out, err = program_run(t.python, setup, ctx.py_env(env))
        record(sc, sc + "2", "today", True,
               "cudaload.setup(require=['cusparse=12']) then import torch",
               ["exit %d: %s" % (rc, found(r"TORCH .*|ImportError: .*|\w+Error: .*", out + err)
                                 or tail(out + err, 2)), found(r"SETUP .*", out) or ""])

    # 3. target: the diagnosis, from every command that judges
    for_target = {"ld-library-path": "torch", "preload": "torch", "by-path": t.python}[mode]
    steps = iter(range(3, 100))

    def nxt():
        return "%s%d" % (sc, next(steps))

    right = {}
    if mode == "preload":
        doc, problems, cmdline, err = doctor_json(ctx, args_req, env)
        ok = doc is not None and any("LD_PRELOAD" in p["problem"] and
                                     not names_stale_nvjitlink(t, p["problem"]) for p in problems)
        record(sc, nxt(), "target", ok,
               "doctor --require cusparse=12 says LD_PRELOAD puts the stale nvJitLink first "
               "(LD_PRELOAD, the consumer, a _12_4 symbol, the 12.1.105 file)%s"
               % ("" if ok else ": it does not"), ["$ " + cmdline, problems_text(problems)])
        right["req"] = doc if ok else None
    elif mode == "by-path":
        # Nothing activated and no program named: nothing says this is a
        # CUDA 12 torch, and the toolkit's CUDA 13 cuSPARSE 12 is right for
        # a CUDA 13 program. What names the program (--for, exec -- PROGRAM:
        # its pyvenv.cfg) is the target, below.
        cmd, text, _ = doctor_text(ctx, args_req, env)
        record(sc, nxt(), "today", True,
               "$ %s (no program named, nothing activated: the --for steps below "
               "are the target)" % cmd, [text])
        right["req"] = None
    else:
        right["req"] = diagnosis(ctx, sc, nxt(), t, args_req, env, "doctor --require cusparse=12")
    rc, out, err = cudaload(ctx, ["explain", "--symbols", t.cusparse], env)
    probs = out.split("\nProblems", 1)[1] if "\nProblems" in out else ""
    missing = names_stale_nvjitlink(t, probs)
    if mode == "preload" and "LD_PRELOAD" not in probs:
        missing.append("LD_PRELOAD")
    record(sc, nxt(), "target", not missing,
           "explain --symbols of cuSPARSE reports the stale nvJitLink as a problem%s"
           % ("" if not missing else ": it does not (missing: %s)" % "; ".join(missing)),
           ["needs: " + (found(r"needs\s+libnvJitLink\.so\.12\s+->.*", out) or "?"),
            "Problems " + probs.strip()[:1500]])
    if mode == "preload":
        rc, out, err = cudaload(ctx, ["exec", "--require", "cusparse=12", "--", t.python, "-c",
                                      TORCH], env)
        said = "LD_PRELOAD" in err
        record(sc, nxt(), "target", said or (rc == 0 and "TORCH" in out),
               "exec --require cusparse=12 -- PROGRAM says it keeps a conflicting LD_PRELOAD, "
               "or runs torch without it (exit %d)" % rc,
               [found(r"TORCH .*|ImportError: .*", out + err) or tail(out + err, 3)] +
               [l for l in err.splitlines() if "LD_PRELOAD" in l][:3])
    right["for"] = diagnosis(ctx, sc, nxt(), t, ["--for", for_target], env,
                             "doctor --for %s" % for_target)
    if mode == "by-path":
        for argv, what in ((["exec", "--"], "exec -- PROGRAM (no requirement: the program "
                                            "is CMD, its pyvenv.cfg names the venv)"),
                           (["exec", "--require", "cusparse=12", "--"],
                            "exec --require cusparse=12 -- PROGRAM (the venv from pyvenv.cfg)")):
            verify(ctx, sc, nxt(), t.python, TORCH, env, allow, forbid,
                   wrapper=[ctx.tool] + argv, what=what)
    step = next(steps)

    # 4. target: the fix, as printed, then the program. The fix of the
    # --for diagnosis; when only the --require one is right, its fix (said).
    fix_step = "%s%d" % (sc, step)
    fix_args = ["--for", for_target] if right.get("for") else args_req
    doc = right.get("for") or right.get("req")
    if doc is None:
        record(sc, fix_step, "target", False,
               "follow the doctor's fix: not run (no right diagnosis above)")
        record(sc, "%s%d" % (sc, step + 1), "target", False,
               "the program after the fix: not run (no fix to follow)")
        return
    ok, fenv, wrapper, log = follow_fixes(ctx, sc, fix_step, fix_args, env,
                                          allow_install=False)
    record(sc, fix_step, "target", ok, "the fix lines of doctor %s, followed as printed"
           % shown(fix_args), log)
    if not ok:
        record(sc, "%s%d" % (sc, step + 1), "target", False,
               "the program after the fix: not run (the fix could not be followed)")
        return
    verify(ctx, sc, "%s%d" % (sc, step + 1), t.python, TORCH, fenv, allow, forbid,
           wrapper=wrapper, what="import torch after the fix")


# --------------------------------------------------------------------------
# f, g: torch 2.5.1 and an older NCCL (issue 41, items 5 and 6)
# --------------------------------------------------------------------------

UNDEFINED_NCCL = "libtorch_cuda.so: undefined symbol: ncclCommRegister"


class Nccl218:
    """nvidia-nccl-cu12 2.18.1's libnccl.so.2 (no ncclCommRegister, which
    torch 2.5.1's libtorch_cuda.so takes by plain name), unpacked whole
    (dist-info beside it) by scripts/acceptance."""

    def __init__(self, ctx):
        self.root = os.path.join(ctx.cache, "linux", "nccl-2.18.1")
        self.lib = os.path.join(self.root, "nvidia", "nccl", "lib", "libnccl.so.2")
        need(self.lib, "NCCL 2.18.1")
        self.info = os.path.join(self.root, "nvidia_nccl_cu12-2.18.1.dist-info")


def names_stale_nccl(old, problem):
    """What a right diagnosis says: the consumer, the symbol, the file."""
    text = problem["problem"]
    return ("libtorch_cuda.so" in text and "ncclCommRegister" in text and old in text)


def scenario_nccl_preload(ctx, sc):
    """f: the torch 2.5.1 venv activated, NCCL 2.18.1 put first with
    LD_PRELOAD."""
    t, n = Torch251(ctx), Nccl218(ctx)
    env = activated(dict(base_env(), LD_PRELOAD=n.lib), t.venv)
    say("   (LD_PRELOAD=%s, venv activated)" % n.lib)
    allow, forbid = [t.site], [n.root, ctx.toolkit]
    rc, out, err = program_run(t.python, TORCH, env)
    record(sc, sc + "1", "reproduce", rc != 0 and UNDEFINED_NCCL in err,
           "without cudaload `import torch` fails: %s"
           % (found(r"ImportError: .*", err) or tail(err, 1)))
    cmd, text, _ = doctor_text(ctx, ["--for", "torch"], env)
    record(sc, sc + "2", "today", True, "$ " + cmd, [text])
    right = None
    for step, args in ((sc + "3", ["--for", "torch"]), (sc + "4", ["--require", "nccl=2"])):
        doc, problems, cmdline, err = doctor_json(ctx, args, env)
        said = [p for p in problems if p["kind"] == "preloaded-copy" and
                names_stale_nccl(n.lib, p)]
        record(sc, step, "target", bool(said),
               "doctor %s names the NCCL LD_PRELOAD puts first (preloaded-copy: "
               "libtorch_cuda.so, ncclCommRegister, the 2.18.1 file)%s"
               % (shown(args), "" if said else ": it does not"),
               ["$ " + cmdline, problems_text(problems)])
        right = right or (doc if said and args[0] == "--for" else None)
    rc, out, err = cudaload(ctx, ["exec", "--for", "torch", "--", t.python, "-c", TORCH], env)
    record(sc, sc + "5", "target", rc == 4 and "ncclCommRegister" in err and "TORCH" not in out,
           "exec --for torch refuses (exit 4) naming ncclCommRegister; it ran nothing (exit %d)"
           % rc, [l for l in err.splitlines() if "error" in l][:2])
    verify(ctx, sc, sc + "6", t.python, TORCH, env, allow, forbid,
           wrapper=[ctx.tool, "exec", "--drop-stale-preload", "--for", "torch", "--"],
           what="exec --drop-stale-preload --for torch -- python")
    setup = ("import cudaload\ntry:\n    cudaload.setup(for_='torch')\n    print('SETUP ok')\n"
             "except cudaload.Error as e:\n    print('SETUP', type(e).__name__, str(e)[:4000])\n")
    rc, out, err = program_run(t.python, setup, ctx.py_env(env))
    line = found(r"SETUP .*", out) or tail(out + err, 2)
    record(sc, sc + "7", "target", "ConflictError" in line and "ncclCommRegister" in out,
           "setup(for_='torch') raises a ConflictError naming ncclCommRegister: %s"
           % line[:300])
    if right is None:
        record(sc, sc + "8", "target", False, "follow the doctor's fix: no right diagnosis")
        return
    ok, fenv, wrapper, log = follow_fixes(ctx, sc, sc + "8", ["--for", "torch"], env,
                                          allow_install=False)
    record(sc, sc + "8", "target", ok, "the fix lines of doctor --for torch, followed as printed",
           log)
    if ok:
        verify(ctx, sc, sc + "9", t.python, TORCH, fenv, allow, forbid, wrapper=wrapper,
               what="import torch after the fix")


def scenario_nccl_rpath(ctx, sc):
    """g: a copy of the torch 2.5.1 venv (hard links, in the cache) whose
    wheel folder holds NCCL 2.18.1 (nvidia-nccl-cu12 installed over it),
    which libtorch_cuda.so's DT_RPATH reaches before LD_LIBRARY_PATH, and a
    folder holding 2.21.5, the release torch pins, given as a root."""
    t, n = Torch251(ctx), Nccl218(ctx)
    scratch = os.path.join(ctx.cache, "program-side-g")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    venv = os.path.join(scratch, "venv")
    rc, out, err = run(["cp", "-al", t.venv, venv], base_env())
    if rc:
        raise Missing("a hard-linked copy of %s: %s" % (t.venv, tail(err, 1)))
    try:
        site = ctx.site(venv)
        nccl_dir = os.path.join(site, "nvidia", "nccl", "lib")
        good = os.path.join(scratch, "nccl-2.21.5")
        os.makedirs(os.path.join(good, "nvidia", "nccl", "lib"))
        os.link(os.path.join(nccl_dir, "libnccl.so.2"),
                os.path.join(good, "nvidia", "nccl", "lib", "libnccl.so.2"))
        for info in glob.glob(os.path.join(site, "nvidia_nccl_cu12-*.dist-info")):
            shutil.copytree(info, os.path.join(good, os.path.basename(info)))
            shutil.rmtree(info)  # the copy's links only
        os.unlink(os.path.join(nccl_dir, "libnccl.so.2"))  # a link: the cache keeps its own
        shutil.copy2(n.lib, os.path.join(nccl_dir, "libnccl.so.2"))
        shutil.copytree(n.info, os.path.join(site, os.path.basename(n.info)))
        with open(os.path.join(venv, "pyvenv.cfg")) as f:
            cfg = f.read().replace(t.venv, venv)
        os.unlink(os.path.join(venv, "pyvenv.cfg"))
        with open(os.path.join(venv, "pyvenv.cfg"), "w") as f:
            f.write(cfg)
        python = os.path.join(venv, "bin", "python")
        env = activated(base_env(), venv)
        say("   (%s: NCCL 2.18.1 in its wheel folder; --root %s)" % (venv, good))
        allow, forbid = [site, good], [nccl_dir, ctx.toolkit]
        rc, out, err = program_run(python, TORCH, env)
        record(sc, sc + "1", "reproduce", rc != 0 and UNDEFINED_NCCL in err,
               "without cudaload `import torch` fails: %s"
               % (found(r"ImportError: .*", err) or tail(err, 1)))
        args = ["--for", "torch", "--root", good]
        doc, problems, cmdline, err = doctor_json(ctx, args, env)
        said = [p for p in problems if p["kind"] == "symbols-missing" and
                "ncclCommRegister" in p["problem"] and "libtorch_cuda.so" in p["problem"]]
        steps = [s for p in said for s in p["fix"] if s["action"] == "run-program"]
        command = steps[0]["argv"] if steps else []
        own = command[command.index("--") + 1:] if "--" in command else []
        record(sc, sc + "2", "target", bool(said) and len(own) == 1 and
               os.path.dirname(own[0]) == os.path.join(venv, "bin"),
               "doctor --for torch --root names the 2.18.1 copy the RPATH reaches, and its "
               "run-program step starts the venv's own interpreter (%s)"
               % (shown(command) if command else "no run-program step"),
               ["$ " + cmdline, problems_text(problems)])
        ok, fenv, wrapper, log = follow_fixes(ctx, sc, sc + "3", args, env, allow_install=False)
        record(sc, sc + "3", "target", ok, "the fix lines of doctor %s, followed as printed"
               % shown(args), log)
        if ok:
            verify(ctx, sc, sc + "4", python, TORCH, fenv, allow, forbid, wrapper=wrapper,
                   expect={"libnccl.so.2": os.path.join(good, "nvidia", "nccl", "lib")},
                   what="import torch after the fix (exec preloads the planned NCCL)")
    finally:
        if not ctx.keep:
            shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------
# b: onnxruntime-gpu 1.26
# --------------------------------------------------------------------------

ORT_FAIL = "libcublasLt.so.12: cannot open shared object file"
ORT_NEEDS = ("libcublasLt.so.12", "libcublas.so.12", "libcurand.so.10", "libcufft.so.11",
             "libcudart.so.12", "libcudnn.so.9")
ORT_FAMILIES_CU12 = ("nvidia-cublas-cu12", "nvidia-cudnn-cu12", "nvidia-cufft-cu12",
                     "nvidia-curand-cu12", "nvidia-cuda-runtime-cu12")
ORT_REQUIRE = "cudnn=9,cublas=12,cudart=12,cufft=11,curand=10"


def ort_ok(v):
    """Without a GPU the provider loads and its first CUDA call fails: the
    session falls back to the CPU after a CudaCall error, never after a
    load failure."""
    text = v.stdout + v.stderr
    out = []
    if "Failed to load library" in text:
        out.append("onnxruntime could not load its CUDA provider: " +
                   (found(r"Failed to load library .*", text) or "")[:300])
    if not any("libonnxruntime_providers_cuda.so" in f for f in v.mapped):
        out.append("libonnxruntime_providers_cuda.so is not mapped")
    return out


def scratch_ort_venv(ctx, name):
    """A fresh venv holding onnxruntime-gpu 1.26.0 alone, from the wheels
    in the cache (no index needed)."""
    venv = os.path.join(ctx.work, name)
    shutil.rmtree(venv, ignore_errors=True)
    env = base_env()
    rc, out, err = run([sys.executable, "-m", "venv", venv], env)
    if not rc:
        rc, out, err = run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q",
                            "--no-index", "--find-links",
                            os.path.join(ctx.cache, "wheels", "ort126"),
                            "onnxruntime-gpu==1.26.0"], env)
    if rc:
        raise Missing("making %s: %s" % (venv, tail(out + err, 5)))
    return venv


def scenario_ort(ctx, sc, which):
    """b1: the extras installed; b2: without them, --for onnxruntime;
    b3: without them, the issue user's requirement."""
    wheels = os.path.join(ctx.cache, "wheels", "ort126")
    need(wheels, "the onnxruntime-gpu 1.26.0 wheels")
    if which == "extras":
        venv = ctx.venv("venv-ort1.26-extras")
        need(os.path.join(venv, ".complete"), "the onnxruntime-gpu[cuda,cudnn] 1.26.0 venv")
    else:
        venv = scratch_ort_venv(ctx, "venv-ort1.26-%s" % which)
    python = os.path.join(venv, "bin", "python")
    site = ctx.site(venv)
    provider = os.path.join(site, "onnxruntime/capi/libonnxruntime_providers_cuda.so")
    env = activated(base_env(), venv)
    say("   (%s, activated%s)" % (venv, "; made for this run" if which != "extras" else ""))
    allow, forbid = [site], [ctx.toolkit]

    rc, out, err = program_run(python, ORT, env)
    line = found(r"Failed to load library .*", err) or tail(err, 1)
    record(sc, sc + "1", "reproduce", ORT_FAIL in err and "CPUExecutionProvider" in out,
           "without cudaload the session falls back to the CPU: %s" % line)

    req = ["--require", ORT_REQUIRE if which != "for" else "cudnn=9,cublas=12"]
    cmd, text, _ = doctor_text(ctx, req, env)
    record(sc, sc + "2", "today", True, "$ " + cmd, [text])
    if which == "extras":
        rc, out, err = cudaload(ctx, ["explain", provider], env)
        probs = out.split("\nProblems", 1)[1].strip() if "\nProblems" in out else out[-800:]
        record(sc, sc + "2", "today", True, "$ cudaload explain " + provider,
               ["Problems " + probs[:1500]])

    if which == "require":
        # The user: the doctor's fix lines for the requirement, then
        # the same doctor; today it accepts the toolkit's CUDA 13 cuDNN.
        ok, fenv, wrapper, log = follow_fixes(ctx, sc, sc + "3", req, env, allow_install=True)
        record(sc, sc + "3", "today", True,
               "the fix lines of doctor --require %s, followed" % ORT_REQUIRE, log)
        doc, problems, cmdline, err = doctor_json(ctx, req, fenv)
        wrong = []
        for r in (doc or {}).get("requirements", []):
            path = r.get("path") or ""
            if not r.get("satisfied") or not path.startswith(site + "/") or \
                    r.get("second_cuda_major") or (r.get("cuda_major") not in (None, 12)):
                wrong.append("%s -> %s (CUDA %s%s)" % (
                    r.get("spec"), path or "nothing", r.get("cuda_major"),
                    ", a second CUDA major" if r.get("second_cuda_major") else ""))
        planned = ["%s %s (CUDA %s)" % (r.get("spec"), r.get("path"), r.get("cuda_major"))
                   for r in (doc or {}).get("requirements", [])]
        record(sc, sc + "4", "target", doc is not None and not wrong,
               "after the fixes, every requirement is planned from the venv's CUDA 12 files "
               "(never the CUDA 13 toolkit's same-named ones)%s"
               % ("" if not wrong else ": " + "; ".join(wrong)),
               ["$ " + cmdline] + planned + [problems_text(problems)])
        args = req
        next_step = 5
    else:
        doc, problems, cmdline, err = doctor_json(ctx, ["--for", "onnxruntime"], env)
        text = "\n".join(p["problem"] + "\n" + p["fix_text"] for p in problems)
        if which == "extras":
            ok = doc is not None and any("libonnxruntime_providers_cuda.so" in p["problem"] and
                                         "libcublasLt.so.12" in p["problem"] for p in problems)
            why = "names the provider and libcublasLt.so.12, which it cannot find without cudaload"
        else:
            named = [n for n in ORT_NEEDS if n in text]
            fixes = [d for d in ORT_FAMILIES_CU12 if d in text]
            cu13 = found(r"nvidia-(cudnn-cu13|cublas|cufft|curand|cuda-runtime)\b(?!-cu12)[^ ]*",
                         text)
            ok = doc is not None and len(named) == len(ORT_NEEDS) and \
                len(fixes) == len(ORT_FAMILIES_CU12) and not cu13
            why = ("names all six libraries the provider NEEDs (%s) and fixes them with CUDA 12 "
                   "wheels (%s)%s" % (", ".join(named) or "none", ", ".join(fixes) or "none",
                                      "; names a CUDA 13 wheel: " + cu13 if cu13 else ""))
        record(sc, sc + "3", "target", ok,
               "doctor --for onnxruntime " + why if ok else
               "doctor --for onnxruntime: wanted: it " + why.replace("names", "name", 1) +
               (" (%s)" % err if err else ""),
               ["$ " + cmdline, problems_text(problems)])
        args = ["--for", "onnxruntime"]
        next_step = 4
        if not ok:
            record(sc, "%s%d" % (sc, next_step), "target", False,
                   "follow the doctor's fix: not run (no right diagnosis above)")
            record(sc, "%s%d" % (sc, next_step + 1), "target", False,
                   "the program after the fix: not run (no fix to follow)")
            return
        ok, fenv, wrapper, log = follow_fixes(ctx, sc, "%s%d" % (sc, next_step), args, env,
                                              allow_install=which != "extras")
        record(sc, "%s%d" % (sc, next_step), "target", ok,
               "the doctor's fix lines, followed as printed", log)
        next_step += 1
        if not ok:
            record(sc, "%s%d" % (sc, next_step), "target", False,
                   "the program after the fix: not run (the fix could not be followed)")
            return
    verify(ctx, sc, "%s%d" % (sc, next_step), python, ORT, fenv, allow, forbid, wrapper=wrapper,
           extra_check=ort_ok, what="an onnxruntime session with the CUDA provider, after the fix")


# --------------------------------------------------------------------------
# c: torch 2.15 + ctranslate2 4.4.0 and a folder of CUDA 12 wheels
# --------------------------------------------------------------------------

def scenario_ct2(ctx, sc):
    venv = ctx.venv("venv-torch2.15.0-ct2-4.4.0")
    need(os.path.join(venv, ".complete"), "the torch 2.15.0 + ctranslate2 4.4.0 venv")
    cu12 = os.path.join(ctx.cache, "linux", "cu12-cudnn9.28-cublas12.9-nvrtc12.9")
    need(os.path.join(cu12, ".complete"), "the folder of CUDA 12 wheels")
    compat8 = os.path.join(ctx.cache, "linux", "cudnn8_compat")
    need(compat8, "the cuDNN 8 folder")
    python = os.path.join(venv, "bin", "python")
    site = ctx.site(venv)
    env = activated(base_env(), venv)
    say("   (%s activated; CUDA 12 root %s; cuDNN 8 root %s)" % (venv, cu12, compat8))
    torch_cudnn = 92600

    rc, out, err = program_run(python, CT2, env)
    line = found(r"Library libcublas\.so\.12 is not found or cannot be loaded", err)
    record(sc, sc + "1", "reproduce", rc != 0 and bool(line) and
           "TORCH_CUDNN %d" % torch_cudnn in out,
           "without cudaload torch has cuDNN %s and ctranslate2's first cuBLAS call aborts: %s"
           % (found(r"TORCH_CUDNN \d+", out), line or tail(err, 1)))

    setup_req = ("import cudaload\nr = cudaload.setup(require=['cudnn=9', 'cublas=12'], "
                 "roots=[%r])\nprint('SETUP', r.ok, list(r.warnings), flush=True)\n" % cu12)
    rc, out, err = program_run(python, setup_req + CT2, ctx.py_env(env))
    record(sc, sc + "2", "today", True,
           "setup(require=['cudnn=9', 'cublas=12'], roots=[cu12]) then torch and ctranslate2",
           ["exit %d" % rc, tail(out, 4), tail(err, 2)])
    req = ["--require", "cudnn=9,cublas=12", "--root", cu12]
    cmd, text, _ = doctor_text(ctx, req, env)
    record(sc, sc + "2", "today", True, "$ " + cmd, [text])
    libtorch = os.path.join(site, "torch/lib/libtorch_cuda.so")
    rc, out, err = cudaload(ctx, ["explain", libtorch] + req, env)
    cudnn_line = found(r"needs\s+libcudnn\.so\.9\s+->.*", out)
    probs = out.split("\nProblems", 1)[1].strip() if "\nProblems" in out else "(none)"
    record(sc, sc + "2", "today", True, "$ cudaload explain %s %s" % (libtorch, shown(req)),
           ["needs libcudnn.so.9 -> " + (cudnn_line or "?"), "Problems " + probs[:1200]])

    doc, problems, cmdline, err = doctor_json(ctx, req, env)
    text = "\n".join(p["problem"] for p in problems) + "\n" + \
        "\n".join(c.get("text", "") for c in (doc or {}).get("conflicts", []))
    ok = doc is not None and "libcudnn" in text and re.search(r"torch|9\.26|92600", text)
    record(sc, sc + "3", "target", bool(ok),
           "doctor %s: says the plan would take torch's cuDNN 9.26 away (a problem or a "
           "conflict naming torch's cuDNN)%s" % (shown(req), "" if ok else ": it does not"),
           ["$ " + cmdline, problems_text(problems)] +
           ["conflict: " + c.get("text", "") for c in (doc or {}).get("conflicts", [])])

    rc, out, err = program_run(python, setup_req + CT2, ctx.py_env(env))
    got = found(r"TORCH_CUDNN (\d+)", out)
    raised = re.search(r"cudaload\.\w*Error.*(cudnn|cuDNN|torch).*", err)
    kept = got == "TORCH_CUDNN %d" % torch_cudnn
    record(sc, sc + "4", "target", kept or bool(raised),
           "setup(require=['cudnn=9', 'cublas=12'], roots=[cu12]) keeps torch on its cuDNN "
           "9.26 or raises saying they cannot share the process: %s"
           % (got or (raised and raised.group(0)) or tail(err, 1)), [tail(out + err, 3)])

    allow = [site, os.path.join(cu12, "nvidia", "cublas"), os.path.join(cu12, "nvidia", "cuda_nvrtc"),
             compat8]
    forbid = [os.path.join(cu12, "nvidia", "cudnn"), ctx.toolkit]
    expect = {"libcublas.so.12": cu12, "libcudnn.so.9": site}

    def ct2_ok(v):
        out = []
        if "TORCH_CUDNN %d" % torch_cudnn not in v.stdout:
            out.append("torch's cuDNN is %s, not its own %d"
                       % (found(r"TORCH_CUDNN \d+", v.stdout), torch_cudnn))
        m = re.search(r"CUBLAS_CREATE (\d+)", v.stdout)
        if not m or m.group(1) not in ("0", "1"):
            out.append("ctranslate2's cublasCreate_v2 did not reach cuBLAS 12 (%s)"
                       % (m and m.group(0)))
        return out

    setup_for = ("import cudaload\nr = cudaload.setup(for_='ctranslate2', roots=[%r, %r])\n"
                 "print('SETUP', r.ok, list(r.warnings), flush=True)\n" % (cu12, compat8))
    verify(ctx, sc, sc + "5", python, setup_for + CT2, ctx.py_env(env), allow, forbid,
           expect=expect, extra_check=ct2_ok,
           optional={"libnccl.so.2": "ctranslate2 opens NCCL only for tensor parallelism "
                                     "across GPUs"},
           what="setup(for_='ctranslate2', roots=[cu12, cuDNN 8]) then torch and ctranslate2")

    args = ["--for", "ctranslate2", "--root", cu12, "--root", compat8]
    doc, problems, cmdline, err = doctor_json(ctx, args, env)
    text = "\n".join(p["problem"] for p in problems)
    wanted = [n for n in ("libcublas.so.12", "libcudnn_ops_infer.so.8") if n not in text]
    cu12_cudnn = [e.get("path") for e in (doc or {}).get("plan", [])
                  if under_folder(e.get("path") or "", os.path.join(cu12, "nvidia", "cudnn"))]
    ok = doc is not None and not wanted and not cu12_cudnn
    record(sc, sc + "6", "target", ok,
           "doctor --for ctranslate2 --root cu12 --root cuDNN8 says what ctranslate2 cannot open "
           "without cudaload (libcublas.so.12, libcudnn_ops_infer.so.8) and plans no cuDNN 9 of "
           "the CUDA 12 root%s" % ("" if ok else ": " + (
               "no report (%s)" % err if doc is None else
               "; ".join(["does not name " + w for w in wanted] +
                         ["plans " + p for p in cu12_cudnn[:2]]))),
           ["$ " + cmdline, problems_text(problems)])
    if doc is None or not ok:
        record(sc, sc + "7", "target", False,
               "follow the doctor's fix: not run (no right diagnosis above)")
        record(sc, sc + "8", "target", False, "the program after the fix: not run")
        return
    ok, fenv, wrapper, log = follow_fixes(ctx, sc, sc + "7", args, env, allow_install=False)
    record(sc, sc + "7", "target", ok, "the doctor's fix lines, followed as printed", log)
    if not ok:
        record(sc, sc + "8", "target", False,
               "the program after the fix: not run (the fix could not be followed)")
        return
    verify(ctx, sc, sc + "8", python, CT2, fenv, allow, forbid, wrapper=wrapper, expect=expect,
           extra_check=ct2_ok,
           optional={"libnccl.so.2": "ctranslate2 opens NCCL only for tensor parallelism "
                                     "across GPUs"},
           what="torch and ctranslate2 after the fix")


SCENARIOS = {
    "a": ("torch 2.5.1, nvJitLink 12.1.105 first on LD_LIBRARY_PATH (issue 32 item 1)",
          lambda ctx: scenario_stale(ctx, "a", "ld-library-path")),
    "b": ("onnxruntime-gpu 1.26 with its [cuda,cudnn] extras, without them, and after the "
          "doctor's fixes (items 2, 4)", None),
    "c": ("ctranslate2 4.4.0 beside torch 2.15, CUDA 12 roots (item 5)",
          lambda ctx: scenario_ct2(ctx, "c")),
    "d": ("a venv's python run by path without activation (item 3)",
          lambda ctx: scenario_stale(ctx, "d", "by-path")),
    "e": ("an older libnvJitLink.so.12 put first with LD_PRELOAD (item 1, LD_PRELOAD)",
          lambda ctx: scenario_stale(ctx, "e", "preload")),
    "f": ("an older libnccl.so.2 put first with LD_PRELOAD (issue 41, item 5)",
          lambda ctx: scenario_nccl_preload(ctx, "f")),
    "g": ("an older libnccl.so.2 in torch's wheel folder, which its DT_RPATH reaches "
          "(issue 41, item 6)", lambda ctx: scenario_nccl_rpath(ctx, "g")),
}


def scenario_b(ctx):
    try:
        scenario_b_parts(ctx)
    finally:
        if not ctx.keep:
            for which in ("for", "require"):
                shutil.rmtree(os.path.join(ctx.work, "venv-ort1.26-%s" % which),
                              ignore_errors=True)


def scenario_b_parts(ctx):
    for sc, which, title in (("b1", "extras", "with the [cuda,cudnn] extras"),
                             ("b2", "for", "without the extras, doctor --for onnxruntime"),
                             ("b3", "require", "without the extras, doctor --require "
                                               + ORT_REQUIRE)):
        say("-- %s. %s" % (sc, title))
        try:
            scenario_ort(ctx, sc + ".", which)
        except Missing as e:
            record(sc, sc + ".0", "target", False, "cannot run: %s" % e)


# Fixes as the doctor's JSON gives them (docs/doctor.md, schema 3), and
# the step and kind this script follows for each: None when there is none.
FIX_SAMPLES = (
    ([{"action": "install", "argv": ["pip", "install", "nvidia-cublas-cu12"], "env": {},
       "note": "then pass its site-packages folder as a root"}],
     "pip install nvidia-cublas-cu12", "install"),
    ([{"action": "note", "note": "/v/libnvJitLink.so.12 defines them"},
      {"action": "run-program", "argv": ["cudaload", "exec", "--require", "cusparse=12", "--",
                                         "PROGRAM"], "env": {}, "note": "or eval ..."}],
     "cudaload exec --require cusparse=12 -- PROGRAM", "wrap"),
    ([{"action": "set-variable", "argv": ["unset", "LD_PRELOAD"], "env": {}}],
     "unset LD_PRELOAD", "env"),
    ([{"action": "set-variable", "argv": [], "env": {"LD_LIBRARY_PATH": "/a b:/c"}}],
     "export LD_LIBRARY_PATH='/a b:/c'", "env"),
    ([{"action": "note", "note": "install the NVIDIA driver"}], None, None),
)


def self_test():
    bad = 0
    for fix, command, kind in FIX_SAMPLES:
        step = first_command({"fix": fix})
        got, got_kind = (shown_step(step), fix_kind(step)) if step else (None, None)
        if (got, got_kind) != (command, kind):
            print("FAIL  %r\n      read %r (%s), wanted %r (%s)" % (fix, got, got_kind, command, kind))
            bad += 1
    env = apply_env({"action": "set-variable", "argv": ["unset", "LD_PRELOAD"], "env": {}},
                    {"LD_PRELOAD": "/x", "A": "b"})
    if env != {"A": "b"}:
        print("FAIL  unset LD_PRELOAD left %r" % env)
        bad += 1
    print("%s: %d fix sample(s) read as wanted" % ("FAIL" if bad else "ok", len(FIX_SAMPLES) - bad))
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--bindings", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", default="abcdefg", help="scenarios to run: letters, e.g. a or a,c")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--keep", action="store_true",
                    help="keep the venvs made for the run (3 GB each) in --work")
    args = ap.parse_args()
    ctx = Context(args)
    only = [c for c in args.only if c in SCENARIOS]
    bad = [c for c in args.only if c not in SCENARIOS and c not in ", "]
    if bad or not only:
        ap.error("--only takes letters among %s" % "".join(SCENARIOS))
    started = time.time()
    for letter in only:
        title, fn = SCENARIOS[letter]
        say("== %s. %s" % (letter, title))
        try:
            if letter == "b":
                scenario_b(ctx)
            else:
                fn(ctx)
        except Missing as e:
            record(letter, letter + "0", "target", False, "cannot run: %s" % e)
    failed = [s for s in results if s[2] != "today" and not s[3]]
    passed = [s for s in results if s[2] != "today" and s[3]]
    say()
    say("program side: %d step(s) ok, %d failed, %d noted, %ds"
        % (len(passed), len(failed), len([s for s in results if s[2] == "today"]),
           time.time() - started))
    if failed:
        say("failed: " + ", ".join(s[1] for s in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
