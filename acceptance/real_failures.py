#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Step 15's failure scenarios (issue 41, item 7), one per class of the
issue, with real wheels from the index, run by acceptance/real_programs.py
(`scripts/acceptance --real-programs=NAME`). Each:

  1. the failure reproduced without cudaload, its text captured;
  2. `cudaload doctor --error "<that text>"` and `cudaload doctor --for
     <program>` each name the cause (the problem's kind and facts);
  3. each printed fix followed exactly as printed (the JSON's steps,
     schema 3: a command runs as its argv, a variable is set or unset, an
     install runs the pip the environment's PATH finds, pointed at the
     cache's wheels; a run-program step runs the program through it);
  4. then the program runs, and acceptance/loader_check.py's child opens
     every name the loaded CUDA libraries open by name (LD_BIND_NOW): each
     found, every symbol bound, none from the wrong place.

  abs-path    an application that loads cuDNN by the absolute path its
              setting names (as Paddle's loader does), whose folder is not
              there: "<app>/lib/libcudnn.so.9: cannot open shared object
              file". The cu12 venv (jax, tensorflow, onnxruntime 1.26,
              ctranslate2 4.8.5) is its environment.
  nvjitlink   the cu12 venv activated, nvJitLink 12.1.105 first on
              LD_LIBRARY_PATH: JAX's plugin cannot load cuSPARSE 12.5
              (undefined symbol __nvJitLink*_12_9, version
              libnvJitLink.so.12) and says "Unable to load cuSPARSE. Is it
              installed?".
  user-site   onnxruntime-gpu[cuda,cudnn] 1.26 installed with `pip install
              --user` (PYTHONUSERBASE in the cache), no venv; the same
              folder on PYTHONPATH; and as the site-packages of a base
              interpreter whose venv has include-system-site-packages =
              true. The CUDA provider cannot load its CUDA 12 libraries.
  same-files  onnxruntime (CPU) 1.26 installed over onnxruntime-gpu
              [cuda,cudnn] 1.26 in a venv made for the run (its NVIDIA
              wheels hard-linked from user-site's user base): the session
              has no CUDA provider. The fix uninstalls the one and reinstalls
              the other; then the provider loads.
  stray-major CuPy 14 (CUDA 12) with CUDA 13 lying around: CUDA_PATH at the
              machine's CUDA 13 toolkit and NVRTC 13.5's wheel installed with
              pip install --target on PYTHONPATH. Nothing fails here; the
              check is that the program's major comes from the program: no
              problem that is not true, no fix of another major, exec --for
              and setup(for_=) run it with the venv's NVRTC 12.9, nothing
              mapped from the toolkit or the stray wheel.
  cuda11      ctranslate2 3.24.0 (CUDA 11, cuDNN 8: the faster-whisper of
              2023) alone in a venv: its first cuBLAS call aborts with
              "Library libcublas.so.11 is not found or cannot be loaded", its
              bundled cuDNN 8.1.1 front with "Could not load library
              libcudnn_ops_infer.so.8". CUDA 11 comes from the program (the
              machine's toolkit is CUDA 13); the fix installs
              nvidia-cublas-cu11 and nvidia-cudnn-cu11==8.9.*, links the
              libnvrtc.so cuBLASLt 11 opens as written to the venv's NVRTC
              11.2 (the toolkit's CUDA 13 one is the loader's answer
              otherwise), then runs the program through cudaload.
"""

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dedupe  # noqa: E402
import program_side  # noqa: E402
from program_side import activated, base_env, doctor_json, run, shown, tail  # noqa: E402

PY = "%d.%d" % sys.version_info[:2]


def fresh_env():
    env = base_env()
    for name in ("CUDA_PATH", "CUDA_HOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE"):
        env.pop(name, None)
    return env


def problems_of(problems, kind):
    return [p for p in problems if p["kind"] == kind]


def fact(problem, name):
    return problem.get("facts", {}).get(name, {}).get("value") or ""


def described(problems):
    return ["%s: %s | fix: %s" % (p["kind"], p["problem"][:400], p["fix_text"][:400])
            for p in problems]


# --------------------------------------------------------------------------
# Following a fix as printed
# --------------------------------------------------------------------------

def run_step(ctx, step, env, log):
    """Run one command or install step as printed; only inside the run's
    own folders (ctx.work) or the pip of an environment made for the run.
    Returns True when it ran and exited 0."""
    argv = list(step.get("argv") or [])
    if not argv:
        log.append("  -> a step with no command")
        return False
    head = os.path.basename(argv[0])
    if head in ("pip", "pip3", "python", "python3"):
        tool = program_side.installer_of(step, env)
        if not tool or not (tool.startswith(ctx.work + "/") or tool.startswith(ctx.scratch + "/")):
            log.append("  -> refused: %s would run %s, outside the environments made for "
                       "this run" % (shown(argv), tool or "nothing found"))
            return False
        argv[0] = tool
    elif head in ("mkdir", "ln"):
        paths = [a for a in argv[1:] if not a.startswith("-")]
        made = paths[-1:]   # mkdir's folder, ln's link
        if not all(os.path.abspath(p).startswith(ctx.work + "/") for p in made):
            log.append("  -> refused: %s writes outside %s" % (shown(argv), ctx.work))
            return False
    else:
        log.append("  -> not a command this check runs: " + shown(argv))
        return False
    ienv = dict(env)
    ienv.update(step.get("env") or {})
    ienv["PIP_FIND_LINKS"] = ctx.house
    ienv["PIP_NO_INDEX"] = "1"
    log.append("$ " + program_side.shown_step(step))
    rc, out, err = run(argv, ienv)
    log.append("  exit %d %s" % (rc, tail(out + err, 2)))
    return rc == 0


def follow(ctx, args, env, rounds=4):
    """The fix of every problem of `cudaload doctor ARGS` (the driver's
    aside), every step of it in order, as printed; then, for a program
    (--for), the doctor again, until it reports nothing or only how to run
    the program (an error message's answer is followed once: the text
    does not change). Returns (ok, env, wrapper, log)."""
    log = []
    for _ in range(rounds):
        doc, problems, cmdline, err = doctor_json(ctx, args, env)
        log.append("$ " + cmdline)
        if doc is None:
            log.append("  no report: " + err)
            return False, env, [], log
        if not problems:
            log.append("  no problem left (the missing driver aside)")
            return True, env, [], log
        changed, wrapper = False, []
        done = set()
        for p in problems:
            log.append("  problem: " + p["problem"][:600])
            log.append("  fix: " + p["fix_text"][:600])
            steps = [s for s in p["fix"] if s["action"] != "note"]
            if not steps:
                log.append("  -> its fix is words only: nothing to follow")
                return False, env, [], log
            for s in steps:
                key = json.dumps(s, sort_keys=True)
                if key in done:
                    continue
                done.add(key)
                if s["action"] == "set-variable":
                    log.append("$ " + program_side.shown_step(s))
                    env = program_side.apply_env(s, env)
                    changed = True
                elif s["action"] == "run-program":
                    wrapper = wrapper or program_side.wrapper_of(ctx, s)
                elif s["action"] in ("install", "command"):
                    if not run_step(ctx, s, env, log):
                        return False, env, [], log
                    changed = True
                else:
                    log.append("  -> a step this check cannot follow: %s" % s["action"])
                    return False, env, [], log
        if changed and "--error" in args:
            # The message stays what it was: its answer is followed once,
            # then the program run again decides.
            log.append("  -> followed; the program is run again")
            return True, env, wrapper, log
        if changed:
            continue
        log.append("  -> the program runs through: " + shown(wrapper) + " PROGRAM")
        return True, env, wrapper, log
    log.append("  the doctor still reports problems after %d rounds" % rounds)
    return False, env, [], log


# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------

class Scenario:
    def __init__(self, ctx, checker, record, key):
        self.ctx, self.checker, self.record, self.key = ctx, checker, record, key

    def ok(self, good, text, details=()):
        self.record(bool(good), "%s: %s" % (self.key, text), details)
        return bool(good)

    def loader(self, python, code, env, allow, forbid, wrapper=(), extra=None, what=""):
        v = self.checker.check(python, code, env, allow, forbid, optional={}, wrapper=wrapper,
                               label=self.key)
        bad = list(v.problems) + (extra(v) if extra else [])
        self.ok(not bad, "%s: every CUDA library mapped and opened by name found and bound, "
                "none from the wrong place (%s)" % (what, v.summary()), bad[:8])
        return not bad


APP = r'''import ctypes, os
# The application's setting: the cuDNN its installer put beside it.
path = os.environ["APP_CUDNN"]
lib = ctypes.CDLL(path, mode=os.RTLD_NOW)
lib.cudnnGetVersion.restype = ctypes.c_size_t
print("CUDNN", lib.cudnnGetVersion(), flush=True)
'''


def abs_path(ctx, checker, record):
    s = Scenario(ctx, checker, record, "abs-path")
    venv = ctx.venv("venv-cu12-programs")
    python, site = os.path.join(venv, "bin", "python"), ctx.site(venv)
    work = os.path.join(ctx.work, "abs-path")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    app = os.path.join(work, "app")
    path = os.path.join(app, "lib", "libcudnn.so.9")
    env = activated(fresh_env(), venv)
    env["APP_CUDNN"] = path
    rc, out, err = run([python, "-c", APP], env)
    line = program_side.found(r"OSError: .*", err) or ""
    if not s.ok(rc != 0 and path + ": cannot open shared object file" in line,
                "without cudaload the application fails: %s" % (line or tail(err, 1))):
        return
    for args, what in ((["--error", line], "doctor --error"),
                       (["--for", python, "--error", line], "doctor --for <the venv's python> "
                        "--error")):
        doc, problems, cmdline, e = doctor_json(ctx, args, env)
        said = [p for p in problems_of(problems, "path-missing") if fact(p, "path") == path
                and p["facts"]["path"]["from"] == "message"
                and program_side.under_folder(fact(p, "better"), site)]
        s.ok(said, "%s names the path the program opens (path-missing, from the message) and "
             "the venv's CUDA 12 cuDNN 9 that would do (%s)"
             % (what, fact(said[0], "better") if said else "none"), ["$ " + cmdline] +
             described(problems))
    ok, fenv, wrapper, log = follow(ctx, ["--error", line], env)
    if not s.ok(ok and os.path.exists(path), "the fix of doctor --error, followed as printed",
                log):
        return
    rc, out, err = run([python, "-c", APP], fenv)
    s.ok(rc == 0 and "CUDNN " in out, "after the fix the application loads cuDNN %s"
         % (program_side.found(r"CUDNN \d+", out) or tail(err, 1)))
    # The names cuDNN opens at run time (the shim its sub-libraries, they
    # theirs), searched as the loader searches for each opener: $ORIGIN is
    # the folder of the path it was opened by (the link), not of the file
    # the link leads to. Each opener's search list is a stub's; the child
    # opens every name with RTLD_NOW.
    pairs, queue, seen = [], [path], set()
    while queue:
        opener = queue.pop()
        if opener in seen:
            continue
        seen.add(opener)
        stub = checker.stub_for(opener)
        for n, versioned in checker.lazy_names(opener):
            if versioned and [stub, n] not in pairs:
                pairs.append([stub, n])
                beside = os.path.join(os.path.dirname(opener), n)
                if os.path.exists(beside):
                    queue.append(beside)
    names = sorted({n for _, n in pairs})
    code = ("import ctypes, os, sys\nctypes.CDLL(%r, mode=os.RTLD_NOW)\n"
            "err = ctypes.CDLL(None).dlerror\nerr.restype = ctypes.c_char_p\n"
            "for stub, n in %r:\n    op = ctypes.CDLL(stub).explain_opener_open\n"
            "    op.argtypes = [ctypes.c_char_p]\n    if not op(n.encode()):\n"
            "        print('NOT', n, (err() or b'').decode(), flush=True)\n"
            "print('MAPS', sorted({l.split(None, 5)[5].strip() for l in open('/proc/self/maps')"
            " if len(l.split(None, 5)) == 6 and 'libcu' in l}), flush=True)\n"
            % (path, pairs))
    rc, out, err = run([python, "-c", code], dict(fenv, LD_BIND_NOW="1"))
    missing = [l for l in out.splitlines() if l.startswith("NOT ")
               and "libcuda.so.1" not in l]
    maps = json.loads(out.split("MAPS ", 1)[1].replace("'", '"')) if "MAPS " in out else []
    wrong = [m for m in maps if os.path.basename(m).startswith("libcudnn")
             and not program_side.under_folder(m, site)]
    s.ok(rc == 0 and names and not missing and not wrong,
         "the %d names cuDNN 9 opens by name (%s), each searched as its opener's loader searches "
         "from the path it was opened by (%s), are found there: the venv's cuDNN 9.28, "
         "nothing of the toolkit's" % (len(names), ", ".join(names), os.path.dirname(path)),
         missing[:5] + ["mapped from elsewhere: " + m for m in wrong[:5]] +
         ["mapped: " + m for m in maps if m not in wrong][:8])


JAX = "import jax\nprint('DEVICES', jax.devices(), flush=True)\n"
# What JAX's plugin does first (jax_plugins/xla_cuda12 _load): cuSPARSE by
# its path in the nvidia wheel; it swallows the error, which is this.
JAX_LOAD = ("import ctypes, os, nvidia.cusparse\n"
            "ctypes.cdll.LoadLibrary(os.path.join(nvidia.cusparse.__path__[0], 'lib', "
            "'libcusparse.so.12'))\n")


def stale_nvjitlink(ctx, checker, record):
    s = Scenario(ctx, checker, record, "nvjitlink")
    venv = ctx.venv("venv-cu12-programs")
    python, site = os.path.join(venv, "bin", "python"), ctx.site(venv)
    stale_root = os.path.join(ctx.cache, "linux", "nvjitlink-12.1.105")
    stale = os.path.join(stale_root, "nvidia", "nvjitlink", "lib")
    if not s.ok(os.path.exists(os.path.join(stale, "libnvJitLink.so.12")),
                "nvJitLink 12.1.105 in %s (scripts/acceptance unpacks it)" % stale):
        return
    env = activated(fresh_env(), venv)
    env["LD_LIBRARY_PATH"] = stale
    rc, out, err = run([python, "-c", JAX], env)
    jax_text = "\n".join(l for l in err.splitlines()
                         if "cuSPARSE" in l or l.startswith("RuntimeError"))
    s.ok("Unable to load cuSPARSE" in err,
         "without cudaload JAX falls back to the CPU: %s"
         % (program_side.found(r"RuntimeError: Unable to load cuSPARSE.*", err) or tail(err, 1)))
    rc, out, err = run([python, "-c", JAX_LOAD], env)
    loader_text = program_side.found(r"OSError: .*", err) or ""
    s.ok(re.search(r"undefined symbol: __nvJitLink\w+_12_\d+, version libnvJitLink\.so\.12",
                   loader_text), "the loader's own words, as JAX's plugin meets them loading "
         "cuSPARSE: %s" % (loader_text or tail(err, 1)))

    def names_it(problems):
        return [p for p in problems_of(problems, "symbols-missing")
                if fact(p, "name") == "libnvJitLink.so.12"
                and program_side.under_folder(fact(p, "taken"), stale)
                and program_side.under_folder(fact(p, "better"), site)]

    for args, what in ((["--error", jax_text], "doctor --error \"<JAX's text>\""),
                       (["--error", loader_text], "doctor --error \"<the loader's text>\""),
                       (["--for", "jax"], "doctor --for jax")):
        if not args[1]:
            s.ok(False, "%s: no text to read (the failure above was not reproduced)" % what)
            continue
        doc, problems, cmdline, e = doctor_json(ctx, args, env)
        said = names_it(problems)
        s.ok(said, "%s names the stale nvJitLink the loader takes by LD_LIBRARY_PATH (symbols-"
             "missing: libnvJitLink.so.12, taken from 12.1.105, the venv's defines them)" % what,
             ["$ " + cmdline] + described(problems))
    for args in (["--for", "jax"], ["--error", loader_text]):
        ok, fenv, wrapper, log = follow(ctx, args, env)
        if not s.ok(ok, "the fix of doctor %s, followed as printed" % args[0], log):
            continue
        s.loader(python, JAX, fenv, [site], [stale_root, ctx.toolkit], wrapper=wrapper,
                 extra=lambda v: (["JAX still cannot load cuSPARSE"]
                                  if "Unable to load cuSPARSE" in v.stderr else []),
                 what="JAX after the fix of doctor %s" % args[0])


def user_base(ctx):
    """onnxruntime-gpu[cuda,cudnn] 1.26 installed with `pip install --user`
    into PYTHONUSERBASE=<cache>/userbase-ort126-X.Y, once; its files
    hard-linked to the cu12 venv's identical ones (the same wheels)."""
    base = os.path.join(ctx.cache, "userbase-ort126-" + PY)
    if os.path.exists(os.path.join(base, ".complete")):
        return base, None
    shutil.rmtree(base, ignore_errors=True)
    env = dict(fresh_env(), PYTHONUSERBASE=base)
    rc, out, err = run([ctx.base_python, "-m", "pip", "install", "-q", "--user", "--no-index",
                        "--find-links", ctx.house, "onnxruntime-gpu[cuda,cudnn]==1.26.0"], env)
    if rc:
        return None, "pip install --user: " + tail(out + err, 4)
    dedupe.dedupe([ctx.venv("venv-cu12-programs"), base], say=lambda t: print("   " + t))
    open(os.path.join(base, ".complete"), "w").close()
    return base, None


def base_prefix_of(ctx, work, site):
    """A base interpreter whose site-packages is `site`: the real one's
    standard library linked into a prefix of its own (as a Docker image's
    system Python is), and a venv of it that includes its site-packages."""
    import sysconfig
    prefix = os.path.join(work, "base")
    lib = os.path.join(prefix, "lib", "python" + PY)
    os.makedirs(lib)
    stdlib = sysconfig.get_paths()["stdlib"]
    for entry in os.listdir(stdlib):
        if entry != "site-packages":
            os.symlink(os.path.join(stdlib, entry), os.path.join(lib, entry))
    os.symlink(site, os.path.join(lib, "site-packages"))
    os.makedirs(os.path.join(prefix, "bin"))
    os.symlink(ctx.base_python, os.path.join(prefix, "bin", "python" + PY))
    venv = os.path.join(work, "venv-system-site")
    rc, out, err = run([ctx.base_python, "-m", "venv", "--without-pip", venv], fresh_env())
    if rc:
        raise program_side.Missing("python -m venv: " + tail(err, 2))
    cfg = os.path.join(venv, "pyvenv.cfg")
    with open(cfg) as f:
        lines = [l for l in f.read().splitlines()
                 if not l.startswith(("home", "include-system-site-packages"))]
    with open(cfg, "w") as f:
        f.write("\n".join(lines + ["home = " + os.path.join(prefix, "bin"),
                                   "include-system-site-packages = true"]) + "\n")
    return venv


def user_site(ctx, checker, record):
    s = Scenario(ctx, checker, record, "user-site")
    base, why = user_base(ctx)
    if not s.ok(base, "onnxruntime-gpu[cuda,cudnn] 1.26 installed with pip install --user "
                "(PYTHONUSERBASE=%s)%s" % (base, ": " + why if why else "")):
        return
    site = os.path.join(base, "lib", "python" + PY, "site-packages")
    work = os.path.join(ctx.work, "user-site")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    plain = fresh_env()
    plain["PATH"] = os.path.dirname(ctx.base_python) + os.pathsep + plain.get("PATH", "")
    venv = base_prefix_of(ctx, work, site)
    variants = (
        ("user site", ctx.base_python, dict(plain, PYTHONUSERBASE=base)),
        ("PYTHONPATH", ctx.base_python, dict(plain, PYTHONPATH=site, PYTHONNOUSERSITE="1")),
        ("include-system-site-packages", os.path.join(venv, "bin", "python"),
         activated(fresh_env(), venv)),
    )
    for label, python, env in variants:
        rc, out, err = run([python, "-c", program_side.ORT], env)
        where = program_side.found(r"ORT \S+", out)
        failed = program_side.found(r"Failed to load library .*", err) or ""
        text = "\n".join(l for l in err.splitlines()
                         if "Failed to load library" in l or "Require cuDNN" in l)
        if not s.ok(failed and "CPUExecutionProvider" in out and
                    run([python, "-c", "import onnxruntime, os, sys; sys.exit(not os.path."
                         "realpath(onnxruntime.__file__).startswith(%r))" % site], env)[0] == 0,
                    "%s: onnxruntime imported from %s; without cudaload its CUDA provider "
                    "fails: %s" % (label, site, failed[-160:] or where or tail(err, 1))):
            continue
        for args, what in ((["--error", text], "doctor --error \"<its text>\""),
                           (["--for", "onnxruntime"], "doctor --for onnxruntime")):
            doc, problems, cmdline, e = doctor_json(ctx, args, env)
            installs = [st for p in problems for st in p["fix"] if st["action"] == "install"]
            planned = [r for r in (doc or {}).get("requirements", [])
                       if r.get("path") and program_side.under_folder(r["path"], site)]
            named = [p for p in problems if "libcublasLt.so.12" in p["problem"]]
            s.ok(doc is not None and not installs and planned and named,
                 "%s: %s finds the CUDA 12 wheels in %s (%d requirement(s) planned there), "
                 "names libcublasLt.so.12 and installs nothing" % (label, what, site,
                                                                  len(planned)),
                 ["$ " + cmdline] + described(problems) +
                 ["install step: " + shown(st["argv"]) for st in installs])
        ok, fenv, wrapper, log = follow(ctx, ["--for", "onnxruntime"], env)
        if s.ok(ok, "%s: the fix of doctor --for onnxruntime, followed as printed" % label, log):
            s.loader(python, program_side.ORT, fenv, [site], [ctx.toolkit], wrapper=wrapper,
                     extra=program_side.ort_ok,
                     what="%s: an onnxruntime session with the CUDA provider" % label)
    shutil.rmtree(work, ignore_errors=True)


def nvidia_wheels_linked(ctx, site):
    """The NVIDIA wheels onnxruntime-gpu[cuda,cudnn] 1.26 pins, as pip
    installed them into the user base (their files and dist-info), hard-
    linked into site: pip then finds them installed and adds only
    onnxruntime's own files (the venv costs no 3 GB copy of cuDNN and
    cuBLAS; nothing in the scenario writes into them). Returns run()'s
    (rc, out, err)."""
    base, why = user_base(ctx)
    if not base:
        return 1, "", why
    source = os.path.join(base, "lib", "python" + PY, "site-packages")
    names = [n for n in os.listdir(source) if n == "nvidia" or n.startswith("nvidia_")]
    if "nvidia" not in names:
        return 1, "", "no nvidia folder in " + source
    return run(["cp", "-al"] + [os.path.join(source, n) for n in sorted(names)] + [site],
               fresh_env())


def same_files(ctx, checker, record):
    s = Scenario(ctx, checker, record, "same-files")
    venv = os.path.join(ctx.scratch, "venv-same-files")
    shutil.rmtree(venv, ignore_errors=True)
    try:
        env = activated(fresh_env(), venv)
        python, site = os.path.join(venv, "bin", "python"), ctx.site(venv)
        made = run([ctx.base_python, "-m", "venv", venv], fresh_env())
        if not made[0]:
            made = nvidia_wheels_linked(ctx, site)
        for spec in ("onnxruntime-gpu[cuda,cudnn]==1.26.0", "onnxruntime==1.26.0"):
            if made[0]:
                break
            made = run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links",
                        ctx.house, spec], env)
        if not s.ok(not made[0], "a venv of onnxruntime-gpu[cuda,cudnn]==1.26.0 (its NVIDIA wheels "
                    "hard-linked from the user base), then "
                    "onnxruntime==1.26.0 installed over it (%s)" % venv,
                    [tail(made[1] + made[2], 4)] if made[0] else []):
            return
        rc, out, err = run([python, "-c", program_side.ORT], env)
        line = program_side.found(r"UserWarning: Specified provider 'CUDAExecutionProvider' "
                                  r"is not in available provider names.*", err) or ""
        if not s.ok(line and "['CPUExecutionProvider']" in out,
                    "without cudaload the session has no CUDA provider: %s"
                    % (line or tail(err, 1))):
            return
        # The fix both entrances give: the one the --for round below
        # follows as printed until the program runs.
        reinstall = [["pip", "uninstall", "-y", "onnxruntime"],
                     ["pip", "install", "--force-reinstall", "--no-deps",
                      "onnxruntime-gpu==1.26.0"]]
        doc, problems, cmdline, e = doctor_json(ctx, ["--error", line], env)
        said = [p for p in problems_of(problems, "cpu-build") if fact(p, "consumer") ==
                "onnxruntime" and [st.get("argv") for st in p["fix"]
                                   if st["action"] != "note"] == reinstall]
        s.ok(said, "doctor --error \"<its warning>\" names onnxruntime's build without CUDA, "
             "with the commands --for gives (the message names no version: the environment's "
             "onnxruntime-gpu 1.26.0 is reinstalled): %s"
             % (said[0]["fix_text"][:200] if said else "none"), ["$ " + cmdline] +
             described(problems))
        doc, problems, cmdline, e = doctor_json(ctx, ["--for", "onnxruntime"], env)
        said = [p for p in problems_of(problems, "same-files")
                if "onnxruntime 1.26.0 and onnxruntime-gpu 1.26.0" in p["problem"]
                and [st.get("argv") for st in p["fix"] if st["action"] != "note"] == reinstall]
        s.ok(said, "doctor --for onnxruntime names the two distributions over one set of "
             "files (same-files) with the uninstall and the reinstall that fix it",
             ["$ " + cmdline] + described(problems))
        ok, fenv, wrapper, log = follow(ctx, ["--for", "onnxruntime"], env)
        if s.ok(ok, "the fix of doctor --for onnxruntime, followed as printed (round after "
                "round)", log):
            s.loader(python, program_side.ORT, fenv, [site], [ctx.toolkit], wrapper=wrapper,
                     extra=program_side.ort_ok,
                     what="an onnxruntime session with the CUDA provider after the fix")
    finally:
        if not ctx.keep:
            shutil.rmtree(venv, ignore_errors=True)


CUPY_NVRTC = ("import cupy\nprint('NVRTC', cupy.cuda.nvrtc.getVersion(), flush=True)\n")


def stray_major(ctx, checker, record):
    """A CUDA 12 CuPy beside what lies around of CUDA 13: the machine's
    toolkit named by CUDA_PATH, and NVRTC 13's wheel installed with pip
    install --target on PYTHONPATH. The program's major comes from the
    program: no problem that is not true, no fix of another major, exec
    and setup() run it, and its NVRTC is the venv's CUDA 12 one."""
    s = Scenario(ctx, checker, record, "stray-major")
    venv = ctx.venv("venv-cupy")
    python, site = os.path.join(venv, "bin", "python"), ctx.site(venv)
    work = os.path.join(ctx.work, "stray-major")
    target = os.path.join(work, "target")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        rc, out, err = run([ctx.base_python, "-m", "pip", "install", "-q", "--no-deps",
                            "--no-index", "--find-links", ctx.house, "--target", target,
                            "nvidia-cuda-nvrtc==13.5.37"], fresh_env())
        if not s.ok(rc == 0 and os.path.exists(os.path.join(target, "nvidia", "cu13", "lib",
                                                            "libnvrtc.so.13")),
                    "NVRTC 13.5.37's wheel installed with pip install --target %s" % target,
                    [tail(out + err, 4)] if rc else []):
            return
        env = activated(fresh_env(), venv)
        env.update(PYTHONPATH=target, CUDA_PATH=ctx.toolkit)
        rc, out, err = run([python, "-c", "import importlib.metadata as m; "
                            "print(m.version('nvidia-cuda-nvrtc'))\n" + CUPY_NVRTC], env)
        s.ok(rc == 0 and "13.5.37" in out and "NVRTC (12, 9)" in out,
             "without cudaload the interpreter sees nvidia-cuda-nvrtc 13.5.37 and CuPy runs "
             "with its own NVRTC 12.9: %s" % (" ".join(out.split()) or tail(err, 1)))
        doc, problems, cmdline, e = doctor_json(ctx, ["--for", "cupy"], env)
        other = [p for p in problems for st in p["fix"]
                 if re.search(r"-cu1[13]\b|nvidia-cuda-nvrtc\b|=13\b",
                              " ".join(st.get("argv") or []))]
        planned = [r for r in (doc or {}).get("requirements", [])
                   if r.get("path") and not program_side.under_folder(r["path"], site)]
        majors = sorted({r.get("spec", "") for r in (doc or {}).get("requirements", [])
                         if r.get("spec", "").startswith(("nvrtc", "cudart", "cublas"))})
        s.ok(doc is not None and not other and not planned and "nvrtc=12" in majors,
             "doctor --for cupy keeps CuPy's CUDA 12 (%s), plans every library from the venv "
             "and fixes nothing with another major's wheel" % ", ".join(majors),
             ["$ " + cmdline] + described(problems) +
             ["planned outside the venv: %s" % r["path"] for r in planned])
        false = []
        for p in problems:
            if p["kind"] in ("not-found", "lazy-not-found") and fact(p, "consumer"):
                stub = checker.stub_for(fact(p, "consumer"))
                names = fact(p, "name").split(", ")
                code = ("import ctypes, sys\nop = ctypes.CDLL(%r).explain_opener_open\n"
                        "op.argtypes = [ctypes.c_char_p]\n"
                        "sys.exit(0 if [n for n in %r if not op(n.encode())] else 1)\n"
                        % (stub, names))
                if run([python, "-c", code], fresh_env())[0] != 0:
                    false.append("%s: %s (the loader finds it)" % (p["kind"], p["problem"][:300]))
        s.ok(not false, "each of its %d problem(s) is true by the real loader" % len(problems),
             false)
        rc, out, err = run([ctx.tool, "exec", "--for", "cupy", "--", python, "-c", CUPY_NVRTC],
                           ctx.tool_env(env))
        s.ok(rc == 0 and "NVRTC (12, 9)" in out,
             "cudaload exec --for cupy -- python -c '<CuPy's NVRTC version>' (exit %d): %s"
             % (rc, " ".join(out.split())), [l for l in err.splitlines()
                                             if l.startswith("cudaload")][:5])
        penv = dict(ctx.py_env(env))
        penv["PYTHONPATH"] = penv["PYTHONPATH"] + os.pathsep + target
        rc, out, err = run([python, "-c", "import cudaload\nr = cudaload.setup(for_='cupy')\n"
                            "print('SETUP', r.ok, flush=True)\n" + CUPY_NVRTC], penv)
        s.ok(rc == 0 and "NVRTC (12, 9)" in out, "cudaload.setup(for_='cupy') then CuPy's "
             "NVRTC (exit %d): %s" % (rc, " ".join(out.split()) or tail(err, 2)))
        s.loader(python, CUPY_NVRTC, env, [site], [target, ctx.toolkit],
                 wrapper=[ctx.tool, "exec", "--for", "cupy", "--"],
                 what="CuPy under exec --for cupy")
    finally:
        if not ctx.keep:
            shutil.rmtree(work, ignore_errors=True)



# ctranslate2 3.x's first cuBLAS call (libctranslate2 opens libcublas.so.11
# by name) and the first call of the cuDNN 8 front its wheel bundles (which
# opens libcudnn_ops_infer.so.8 by name): what faster-whisper's model load
# and first convolution do, reached without a GPU. CT2_STEP=cudnn makes the
# cuDNN call first, to capture its own message.
CT2_CUDA11 = r"""import ctranslate2, ctypes, glob, os
print("CT2", ctranslate2.__version__, flush=True)
_libs = os.path.join(os.path.dirname(os.path.dirname(ctranslate2.__file__)), "ctranslate2.libs")
def _loaded(pattern):
    return ctypes.CDLL(glob.glob(os.path.join(_libs, pattern))[0],
                       mode=os.RTLD_NOLOAD | os.RTLD_NOW)
_h = ctypes.c_void_p()
if os.environ.get("CT2_STEP") != "cudnn":
    print("CUBLAS_CREATE", _loaded("libctranslate2-*.so*").cublasCreate_v2(ctypes.byref(_h)),
          flush=True)
print("CUDNN_CREATE", _loaded("libcudnn-*.so*").cudnnCreate(ctypes.byref(_h)), flush=True)
"""


def wheels_named(problems):
    """Every argv word of every fix step of problems that names a wheel."""
    return sorted({w for p in problems for st in p["fix"] for w in (st.get("argv") or [])
                   if w.startswith("nvidia-")})


def cuda11(ctx, checker, record):
    """ctranslate2 3.24.0, the last CUDA 11 build, with cuDNN 8, alone in a
    venv on this CUDA 13 machine: the program decides CUDA 11, its fix
    installs the CUDA 11 wheels, and after it the program's cuBLAS and cuDNN
    calls reach them."""
    s = Scenario(ctx, checker, record, "cuda11")
    venv = os.path.join(ctx.scratch, "venv-cuda11")
    shutil.rmtree(venv, ignore_errors=True)
    try:
        env = activated(fresh_env(), venv)
        python, site = os.path.join(venv, "bin", "python"), ctx.site(venv)
        made = run([ctx.base_python, "-m", "venv", venv], fresh_env())
        if not made[0]:
            made = run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links",
                        ctx.house, "ctranslate2==3.24.0"], env)
        if not s.ok(not made[0], "a venv of ctranslate2==3.24.0 (CUDA 11, cuDNN 8) and no "
                    "NVIDIA wheel (%s)" % venv, [tail(made[1] + made[2], 4)] if made[0] else []):
            return
        rc, out, err = run([python, "-c", CT2_CUDA11], env)
        cublas_line = program_side.found(
            r"Library libcublas\.so\.11 is not found or cannot be loaded", err) or ""
        s.ok(rc != 0 and cublas_line, "without cudaload its first cuBLAS call aborts: %s"
             % (cublas_line or tail(err, 1)))
        rc, out, err = run([python, "-c", CT2_CUDA11], dict(env, CT2_STEP="cudnn"))
        cudnn_line = program_side.found(r"Could not load library libcudnn_ops_infer\.so\.8\..*",
                                        err) or ""
        s.ok(rc != 0 and cudnn_line, "without cudaload cuDNN 8's first call aborts: %s"
             % (cudnn_line or tail(err, 1)))
        if not (cublas_line and cudnn_line):
            return
        doc, problems, cmdline, e = doctor_json(ctx, ["--error", cublas_line], env)
        said = [p for p in problems_of(problems, "unsatisfied")
                if fact(p, "requirement") == "cublas=11"
                and p["facts"]["requirement"]["from"] == "message"]
        wheels = wheels_named(problems)
        s.ok(said and wheels == ["nvidia-cublas-cu11"], "doctor --error \"<its cuBLAS text>\" "
             "names cuBLAS 11 from the message and fixes with %s" % (wheels or "no wheel"),
             ["$ " + cmdline] + described(problems))
        doc, problems, cmdline, e = doctor_json(ctx, ["--error", cudnn_line], env)
        wheels = wheels_named(problems)
        s.ok(problems_of(problems, "unsatisfied") and "nvidia-cudnn-cu11==8.9.*" in wheels
             and not [w for w in wheels if "-cu13" in w], "doctor --error \"<cuDNN's text>\" "
             "names cuDNN 8; the text tells no CUDA major, so it gives one install per "
             "candidate (%s), CUDA 11's among them, none of this machine's CUDA 13"
             % ", ".join(wheels), ["$ " + cmdline] + described(problems))
        doc, problems, cmdline, e = doctor_json(ctx, ["--for", "ctranslate2", "--error",
                                                      cudnn_line], env)
        wheels = wheels_named(problems)
        s.ok(wheels == ["nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.9.*"],
             "doctor --for ctranslate2 --error \"<cuDNN's text>\": CUDA 11 from the program, "
             "the fix installs %s" % (wheels or "no wheel"), ["$ " + cmdline] +
             described(problems))
        doc, problems, cmdline, e = doctor_json(ctx, ["--for", "ctranslate2"], env)
        needs = sorted(fact(p, "requirement") for p in problems_of(problems, "unsatisfied"))
        wheels = wheels_named(problems)
        s.ok(needs == ["cublas=11", "cudnn=8"] and wheels == ["nvidia-cublas-cu11",
                                                            "nvidia-cudnn-cu11==8.9.*"],
             "doctor --for ctranslate2 names %s missing and installs %s"
             % (", ".join(needs) or "nothing", ", ".join(wheels) or "nothing"),
             ["$ " + cmdline] + described(problems))
        ok, fenv, wrapper, log = follow(ctx, ["--for", "ctranslate2"], env)
        if s.ok(ok, "the fix of doctor --for ctranslate2, followed as printed (round after "
                "round)", log):
            def reached(v):
                calls = [c for c, _ in re.findall(r"(CUBLAS|CUDNN)_CREATE (\d+)", v.stdout)]
                return [] if calls == ["CUBLAS", "CUDNN"] else [
                    "its cuBLAS and cuDNN calls did not both return: %s" % tail(v.stdout, 3)]
            # cuBLASLt 11 opens "libnvrtc.so" as written (LD_DEBUG: "file=
            # libnvrtc.so; dynamically loaded by .../libcublasLt.so.11"),
            # which only the CUDA 13 toolkit's development link has here:
            # the fix links it beside cuBLASLt to the venv's NVRTC 11.2, so
            # nothing may come from the toolkit.
            s.loader(python, CT2_CUDA11, fenv, [site], [ctx.toolkit], wrapper=wrapper,
                     extra=reached, what="ctranslate2 3.24's first cuBLAS and cuDNN calls "
                     "after the fix")
            rc, out, err = run([python, "-c", "import cudaload\n"
                                "r = cudaload.setup(for_='ctranslate2')\n"
                                "print('SETUP', r.ok, flush=True)\n" + CT2_CUDA11],
                               ctx.py_env(env))
            s.ok(rc == 0 and "CUDNN_CREATE" in out, "cudaload.setup(for_='ctranslate2') "
                 "then its cuBLAS and cuDNN calls (exit %d): %s"
                 % (rc, " ".join(out.split()) or tail(err, 2)))
    finally:
        if not ctx.keep:
            shutil.rmtree(venv, ignore_errors=True)


SCENARIOS = {
    "abs-path": abs_path,
    "nvjitlink": stale_nvjitlink,
    "user-site": user_site,
    "same-files": same_files,
    "stray-major": stray_major,
    "cuda11": cuda11,
}
