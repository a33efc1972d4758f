#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""acceptance/explain_loader.py - step 7 (Linux): `cudaload explain` against
glibc's loader, on NVIDIA's real files.

Usage: explain_loader.py TOOL WORK CASE...
  CASE  FILE[=LD_LIBRARY_PATH]  (no "=": LD_LIBRARY_PATH unset)

For each case: `cudaload explain FILE --symbols --format json` with that
LD_LIBRARY_PATH, then a child (acceptance/explain_child.c, built into WORK)
with the same LD_LIBRARY_PATH and LD_DEBUG=libs,bindings that dlopens FILE
(RTLD_NOW | RTLD_LOCAL) and then performs the lazy opens explain predicts.
Compared, each a prediction:
  - every needed edge (DT_NEEDED) of every object explain lists: the file
    taken and the rule (the list in "search path=... (...)" / "search
    cache=" before the last "trying file=", or no search at all for a name
    an object already loaded answers);
  - every lazy edge (a name a CUDA library passes to dlopen itself): the
    child cannot call dlopen from inside that library, so it calls it from
    a stub (explain_opener.c) built with the library's RUNPATH or RPATH,
    $ORIGIN spelled out as the library's folder. glibc searches a dlopen
    with the caller's RUNPATH (or the RPATH chain of the caller), after
    LD_LIBRARY_PATH and before the cache, so the stub searches the same
    folders in the same order; the "RUNPATH from file <stub>" the loader
    prints is read as the library's own. The lazy opens run in explain's
    order (objects, then needs), as the libraries would when first used;
  - the outcome of the open;
  - the set of files mapped at the end (dl_iterate_phdr) against explain's
    (the file, every file its needs resolve to);
  - for each object and library it references, the definitions the
    loader bound its cudnn*/cublas* references to (LD_DEBUG=bindings)
    against explain --symbols.
The objects the child program itself started with (libc.so.6, the
interpreter) are loaded before FILE: explain models a new process that has
nothing loaded, so for those names only the file is compared and the rule
is reported beside it.

Exit status 0 when every prediction agrees with the loader. Set
EXPLAIN_LOADER_SABOTAGE=1 to alter, in the first case, one needed edge,
one lazy edge and one binding on purpose: each must then be a DISAGREE and
the exit status 1 (proof that the comparisons can fail).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The LD_DEBUG parser of the synthetic loader scenarios, reused as is: it
# cuts the trace into search blocks (name, requester, lists, tries).
sys.path.insert(0, os.path.join(HERE, "..", "tests", "loader_oracle"))
from oracle import parse_ld_debug  # noqa: E402

tool, work = sys.argv[1], sys.argv[2]
cases = sys.argv[3:]
os.makedirs(work, exist_ok=True)
cc = os.environ.get("CC", "cc")
child = os.path.join(work, "explain_child")
subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-o", child,
                os.path.join(HERE, "explain_child.c")], check=True)

total = agree = 0


def verdict(what, predicted, actual, same=None):
    """One prediction: print both answers; count it."""
    global total, agree
    total += 1
    ok = (predicted == actual) if same is None else same
    if ok:
        agree += 1
        print("agree     %s: %s" % (what, predicted))
    else:
        print("DISAGREE  %s\n          explain: %s\n          loader:  %s"
              % (what, predicted, actual))


def norm(path):
    return os.path.normpath(path) if path else path


def dynamic(path):
    """RUNPATH and RPATH of a file, as readelf prints them."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True).stdout
    tags = {}
    for tag, value in re.findall(r"\((RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.*)\]",
                                 out):
        tags[tag] = value
    return tags


openers = {}


def relocated(path, cache={}):
    """The symbols a file's relocations name (readelf -r)."""
    if path not in cache:
        out = subprocess.run(["readelf", "-rW", path], capture_output=True,
                             text=True).stdout
        cache[path] = set(m.split("@")[0] for m in re.findall(
            r"^[ \t]*[0-9a-f]+[ \t]+[0-9a-f]+[ \t]+\S+[ \t]+[0-9a-f]+[ \t]+(\S+)", out, re.M))
    return cache[path]


def opener_for(lib):
    """The stub that opens names as lib would (see the module comment)."""
    if lib in openers:
        return openers[lib]
    tags = dynamic(lib)
    folder = os.path.dirname(lib)
    args = [cc, "-shared", "-fPIC", "-O2",
            "-o", os.path.join(work, "opener-%d.so" % len(openers)),
            os.path.join(HERE, "explain_opener.c")]
    for tag, flag in (("RUNPATH", "--enable-new-dtags"), ("RPATH", "--disable-new-dtags")):
        if tag in tags:
            value = tags[tag].replace("${ORIGIN}", folder).replace("$ORIGIN", folder)
            args += ["-Wl," + flag, "-Wl,-rpath," + value]
            break
    subprocess.run(args, check=True)
    openers[lib] = args[5]
    return args[5]


# What the child program starts with (so these are no search in the child).
startup = {"libc.so.6", "ld-linux-x86-64.so.2"}
sabotage = os.environ.get("EXPLAIN_LOADER_SABOTAGE") == "1"

for case in cases:
    target, _, ld_path = case.partition("=")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("LD_LIBRARY_PATH", None)
    if ld_path:
        env["LD_LIBRARY_PATH"] = ld_path
    print("--- %s (LD_LIBRARY_PATH %s)" % (target, ld_path or "unset"))
    ex = subprocess.run([tool, "explain", target, "--symbols", "--format", "json"],
                        env=env, capture_output=True, text=True)
    # Exit 6: the report lists problems (a lazily opened name not found is
    # one); that is a prediction like any other, compared below.
    if ex.returncode not in (0, 6):
        verdict("%s: explain runs" % target, "exit 0 or 6", "exit %d: %s" % (
            ex.returncode, ex.stderr.strip()))
        continue
    report = json.loads(ex.stdout)
    objects = report["objects"]
    if sabotage and case == cases[0]:
        # Wrong predictions on purpose, one of each kind compared: a needed
        # edge's file, a lazy edge's rule, a binding's provider.
        done = set()
        for o in objects:
            for n in o["needs"]:
                if n["resolved"] and n["kind"] not in done:
                    done.add(n["kind"])
                    if n["kind"] == "needed":
                        n["resolved"] += ".sabotaged"
                    else:
                        n["rule"] = "default-dirs"
            for b in o["bindings"]:
                for e in b["each"] or []:
                    if "binding" not in done and e["provider"] and \
                            re.search(r"cudnn|cublas", e["symbol"], re.I):
                        done.add("binding")
                        e["provider"] += ".sabotaged"

    # The child's actions: the open, then every lazy open, then queries.
    argv = [child, "open:" + target]
    lazy_action = {}
    for o in objects:
        for n in o["needs"]:
            if n["kind"] == "lazy":
                argv.append("lazy:%s:%s" % (opener_for(o["path"]), n["name"]))
                lazy_action[(o["path"], n["name"])] = len(argv) - 1
    names = sorted({n["name"] for o in objects for n in o["needs"]})
    argv += ["query:" + name for name in names]
    # "files" prints who asked for each name ("needed by" / "dynamically
    # loaded by") and each new link map; "libs" the lists and files tried.
    cenv = dict(env, LD_DEBUG="libs,files,bindings")
    run = subprocess.run(argv, env=cenv, capture_output=True, text=True,
                         errors="replace", timeout=600)
    stdout, stderr = run.stdout, run.stderr
    # The child's trace, kept beside the other logs for a person to read.
    with open(os.path.join(work, "child-%d.log" % cases.index(case)), "w") as log:
        log.write(" ".join(argv) + "\n" + stdout + stderr)
    outcomes = dict(re.findall(r"^ACTION (\d+) (ok|fail)", stdout, re.M))
    loaded_as = dict(re.findall(r"^LOADED (\S+)\t(.*)$", stdout, re.M))
    segments, _ = parse_ld_debug(stderr)
    stub_of = {v: k for k, v in openers.items()}

    def whose(path):
        # A stub stands for the library it opens names for.
        return stub_of.get(path, path)

    open_ok = outcomes.get("1") == "ok"
    predicted_ok = not any(n["kind"] == "needed" and not n["resolved"]
                           for o in objects for n in o["needs"])
    verdict("%s: the open" % target, "ok" if predicted_ok else "fail",
            "ok" if open_ok else "fail (%s)" % stdout.splitlines()[0][len("ACTION 1 fail "):]
            if stdout else "no answer", same=predicted_ok == open_ok)

    # The search blocks of one action, without the opens by path.
    def blocks_of(action):
        seg = segments[action] if action < len(segments) else []
        return [b for b in seg if "/" not in b.name]

    def loader_answer(blocks, name, requester, succeeded):
        """(file, rule, source) the loader took for name asked by requester."""
        hit = [b for b in blocks if b.name == name and b.requester and
               norm(whose(b.requester)) == norm(requester)]
        if not hit:
            got = loaded_as.get(name)
            rule = "loaded with the program" if name in startup and \
                got and os.path.basename(got) == name else "already-loaded"
            return (norm(got), rule, None) if got else (None, "no search, not loaded", None)
        b = hit[0]
        last = b is blocks[-1]
        if not b.mapped and not (succeeded or not last):
            return (None, "not-found", None)
        if not b.tries:
            return (None, "nothing tried", None)
        found, (rule, source) = b.tries[-1][0], b.tries[-1][1] or (None, None)
        if not b.mapped:
            # Found, and the same file (st_dev/st_ino) was already loaded.
            return (norm(loaded_as.get(name, found)), "already-loaded", None)
        return (norm(found), rule, norm(whose(source)) if source else None)

    # Needed and lazy edges.
    failed_before = False
    for o in objects:
        for n in o["needs"]:
            lazy = n["kind"] == "lazy"
            action = lazy_action.get((o["path"], n["name"]), 1) if lazy else None
            if lazy:
                blocks = blocks_of(action)
                succeeded = outcomes.get(str(action)) == "ok"
            else:
                # A needed edge: searched during the open, or during the
                # lazy open that brought its object in.
                blocks = [b for i in range(1, len(segments)) for b in blocks_of(i)]
                succeeded = True
                for i in range(1, len(segments)):
                    if any(b.requester and norm(whose(b.requester)) == norm(o["path"])
                           for b in blocks_of(i)):
                        blocks = blocks_of(i)
                        succeeded = outcomes.get(str(i)) == "ok"
                        break
            what = "%s %s %s" % (o["path"], "opens lazily" if lazy else "needs", n["name"])
            if not lazy and failed_before:
                print("skip      %s: explain %s; glibc stopped at the first missing "
                      "dependency and never searched it" % (what, n["rule"]))
                continue
            src = None
            if n["rule"] in ("runpath", "rpath") and n["detail"]:
                src = norm(n["detail"].split(" of ", 1)[-1])
            model = (norm(n["resolved"]), n["rule"], src)
            got = loader_answer(blocks, n["name"], o["path"], succeeded)
            if got[1] == "loaded with the program":
                # The child started with it; explain's new process did not.
                # The interpreter's name is the program's PT_INTERP
                # (/lib64/...), which explain cannot know: the same file.
                same = bool(model[0] and got[0]) and \
                    os.path.realpath(model[0]) == os.path.realpath(got[0])
                verdict(what + " (the child program loaded it first; explain "
                        "says %s)" % n["rule"], model[0], got[0], same=same)
                continue
            # Compared: the file and the rule. The "RUNPATH from file X"
            # glibc prints names the first object that put that folder in a
            # search list (glibc shares one entry per folder, elf/dl-load.c
            # decompose_rpath), not always the requester: shown, not
            # compared.
            show = lambda t: "%s by %s%s" % (t[0] or "NOT FOUND", t[1],
                                             " of %s" % t[2] if t[2] else "")
            verdict(what, show(model), show(got),
                    same=model[:2] == got[:2])
            if not lazy and got[1] == "not-found":
                failed_before = True

    # The files mapped.
    skip = {child} | set(openers.values())
    mapped = set()
    for p in re.findall(r"^MAPPED (.*)$", stdout, re.M):
        if not p or p.startswith("linux-vdso") or p in skip or \
                os.path.basename(p) in startup:
            continue
        mapped.add(os.path.realpath(p))
    model = set()
    if predicted_ok:
        model.add(os.path.realpath(target))
        for o in objects:
            for n in o["needs"]:
                if n["resolved"] and n["name"] not in startup:
                    model.add(os.path.realpath(n["resolved"]))
    verdict("%s: files mapped (%d)" % (target, len(model)), sorted(model), sorted(mapped))

    # Bindings of cudnn*/cublas* references (LD_DEBUG=bindings).
    bound = {}
    for a, b, sym in re.findall(r"binding file (.*) \[\d+\] to (.*) \[\d+\]: "
                                r"\w+ symbol `([^']*)'", stderr):
        bound.setdefault((os.path.realpath(a), sym), os.path.realpath(b))
    cuda = re.compile(r"cudnn|cublas", re.I)
    for o in objects:
        real_o = os.path.realpath(o["path"])
        for b in o["bindings"]:
            pairs = [(e["symbol"], e["provider"]) for e in (b["each"] or [])
                     if cuda.search(e["symbol"])]
            if not pairs:
                continue
            # A symbol no relocation of the file uses is never looked up
            # (cuDNN 9's libcudnn_cnn.so.9 lists a few such undefined
            # symbols): the loader has nothing to show for it.
            used = relocated(o["path"])
            unused = [sym for sym, _ in pairs if sym not in used]
            pairs = [(sym, p) for sym, p in pairs if sym in used]
            if unused:
                print("skip      %s: %d references to %s no relocation uses (never bound), "
                      "e.g. %s" % (o["path"], len(unused), b["library"], unused[0]))
            if not pairs:
                continue
            bad = []
            for sym, provider in pairs:
                want = os.path.realpath(provider) if provider else None
                got = bound.get((real_o, sym))
                if want != got:
                    bad.append("%s: explain %s, loader %s" % (sym, want, got))
            what = "%s: %d cudnn/cublas references to %s%s" % (
                o["path"], len(pairs), b["library"],
                " @" + b["version"] if b["version"] else "")
            first = pairs[0][1]
            verdict(what, "bind to %s" % first,
                    "bind to %s" % first if not bad else
                    "%d differ, e.g. %s" % (len(bad), "; ".join(bad[:3])),
                    same=not bad)

print("explain: %d of %d predictions agree with the loader" % (agree, total))
sys.exit(0 if agree == total and total else 1)
