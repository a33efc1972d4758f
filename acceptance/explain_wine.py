#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""acceptance/explain_wine.py - step 7 under Wine: `cudaload explain` (the
mingw-w64 cudaload.exe) against Wine's loader, on the real win_amd64 DLLs.

Usage: explain_wine.py WINE_RUN TOOL_EXE CHILD_NAME PATHDIR APP/DLL...

Each APP is a folder holding the child program CHILD_NAME
(win_explain_child.c) and links to the DLLs of one wheel: the program's
folder is the DLL's folder, as explain assumes ("application-folder" is
the file's own folder). Two cases per DLL: PATH with PATHDIR (the cuBLAS
DLLs' folder) and PATH without it. For each:
`cudaload.exe explain APP\\DLL --format json` under scripts/wine-run, then
the child loads DLL and does every lazy open explain lists, in its order,
with WINEDEBUG=+loaddll. Compared, each a prediction:
  - each needed (imported) and lazy edge: the module that answers the name
    in the child (GetModuleHandle, GetModuleFileName) against explain's
    file; the folder it came from against explain's rule
    (application-folder: APP, path-variable: a PATH entry, system32:
    C:\\windows\\system32); "already-loaded": no new "Loaded" line for it in
    that action; "not-found": the load failed and nothing answers;
  - the NVIDIA DLLs were loaded "native" (from the file, not a Wine
    builtin) and the outcome of each load;
  - the DLLs from outside the Wine prefix loaded at the end against
    explain's set.
Wine's pitfalls (see scripts/wine-run and tests/loader_oracle/oracle.py):
its output goes to files, never a pipe; +loaddll lines of other processes
(wineboot, services) are filtered out by the child's process id; Wine
prints paths with doubled backslashes; names compare case-insensitively.

Exit status 0 when every prediction agrees. EXPLAIN_LOADER_SABOTAGE=1
alters one prediction on purpose (it must then be a DISAGREE, exit 1).
"""
import json
import os
import re
import subprocess
import sys

wine_run, tool, child_name, pathdir = sys.argv[1:5]


def win(path):
    return "Z:" + path.replace("/", "\\")


total = agree = 0


def verdict(what, predicted, actual, same=None):
    global total, agree
    total += 1
    ok = (predicted == actual) if same is None else same
    if ok:
        agree += 1
        print("agree     %s: %s" % (what, predicted))
    else:
        print("DISAGREE  %s\n          explain: %s\n          loader:  %s"
              % (what, predicted, actual))


def wine(argv, path, debug):
    """Run a Windows program under scripts/wine-run: (stdout, stderr)."""
    env = dict(os.environ, CUDALOAD_WINEPATH=path)
    if debug:
        env["CUDALOAD_WINEDEBUG"] = debug
    r = subprocess.run([wine_run] + argv, env=env, capture_output=True,
                       text=True, errors="replace", timeout=600)
    return r.returncode, r.stdout, r.stderr


def loaddll(text):
    """The child's +loaddll "Loaded" lines per action: [[(path, kind)]]."""
    pid = None
    for line in text.splitlines():
        m = re.match(r'^([0-9a-f]+):trace:loaddll:\w+ Loaded L"(.*)" at', line)
        if m and m.group(2).lower().endswith(os.path.basename(child).lower()):
            pid = m.group(1)
    segments = [[]]
    for line in text.splitlines():
        if re.match(r"^ACTION \d+ begin$", line):
            segments.append([])
            continue
        m = re.match(r'^([0-9a-f]+):trace:loaddll:\w+ Loaded L"(.*?)" at \S+: (\w+)', line)
        if m and m.group(1) == pid:
            segments[-1].append((m.group(2).replace("\\\\", "\\"), m.group(3)))
    return segments


sabotage = os.environ.get("EXPLAIN_LOADER_SABOTAGE") == "1"
system32 = "c:\\windows\\system32"
cases = [(f, label, path) for f in sys.argv[5:] for label, path in
         (("PATH with the cuBLAS folder", win(pathdir)), ("PATH without it", ""))]
for dll_path, label, path in cases:
    app = os.path.dirname(dll_path)
    child = os.path.join(app, child_name)
    target = win(dll_path)
    print("--- %s (%s)" % (target, label))
    rc, out, err = wine([tool, "explain", target, "--format", "json"], path, None)
    if rc not in (0, 6):  # 6: the report lists problems (compared below)
        verdict("explain runs", "exit 0 or 6", "exit %d: %s" % (rc, err[-2000:]))
        continue
    objects = json.loads(out)["objects"]
    if sabotage and (dll_path, label, path) == cases[0]:
        for o in objects:
            for n in o["needs"]:
                if n["kind"] == "lazy" and n["resolved"]:
                    n["resolved"] = n["resolved"] + ".sabotaged"
                    break
            else:
                continue
            break
    # The PATH the processes see: what wine-run sets (the extra folder
    # first, then the build's own folders), read back from explain's
    # process is not possible; the rule check only needs PATHDIR.
    actions = ["load:" + target]
    lazy_at = {}
    for o in objects:
        for n in o["needs"]:
            if n["kind"] == "lazy":
                actions.append("lazy:" + n["name"])
                lazy_at[(o["path"].lower(), n["name"].lower())] = len(actions)
    names = sorted({n["name"] for o in objects for n in o["needs"]}, key=str.lower)
    rc, cout, cerr = wine([child] + actions + ["--"] + names, path, "+loaddll")
    outcomes = dict(re.findall(r"^ACTION (\d+) (ok|fail \d+)", cout, re.M))
    answer = {k.lower(): v for k, v in re.findall(r"^ANSWER (\S+)\t(.*)$", cout, re.M)}
    segments = loaddll(cerr)
    if not outcomes:
        verdict("the child ran under Wine", "ACTION lines", "%s\n%s" % (cout, cerr[-3000:]))
        continue
    predicted_ok = not any(n["kind"] == "needed" and not n["resolved"]
                           for n in objects[0]["needs"])
    verdict("load %s" % target, "ok" if predicted_ok else "fail",
            outcomes.get("1", "no answer"),
            same=predicted_ok == (outcomes.get("1") == "ok"))

    loaded_in = {}
    for o in objects:
        for n in o["needs"]:
            if n["kind"] == "lazy" and n["resolved"] and n["rule"] != "already-loaded":
                loaded_in.setdefault(n["resolved"].lower(),
                                     lazy_at[(o["path"].lower(), n["name"].lower())])
    for _ in objects:  # an import comes in with its importer
        for o in objects:
            for n in o["needs"]:
                if n["kind"] == "needed" and n["resolved"] and n["rule"] != "already-loaded":
                    loaded_in.setdefault(n["resolved"].lower(),
                                         loaded_in.get(o["path"].lower(), 1))

    def rule_of(p):
        # The folder a module came from, in explain's words.
        folder = p.rsplit("\\", 1)[0].lower()
        if folder == win(app).lower():
            return "application-folder"
        if path and folder == win(pathdir).lower():
            return "path-variable"
        if folder == system32:
            return "system32"
        return "folder " + folder

    for o in objects:
        for n in o["needs"]:
            key = (o["path"].lower(), n["name"].lower())
            # A lazy edge: its own action; an import: the action that
            # brought the importer in (the load, or a lazy open of it).
            action = lazy_at.get(key) if n["kind"] == "lazy" else loaded_in.get(o["path"].lower(), 1)
            what = "%s %s %s" % (o["path"], "opens lazily" if n["kind"] == "lazy"
                                 else "imports", n["name"])
            got = answer.get(n["name"].lower())
            seg = segments[action] if action < len(segments) else []
            fresh = [p for p, _ in seg if p.lower().rsplit("\\", 1)[-1] == n["name"].lower()]
            if n["rule"] == "not-found":
                verdict(what, "not found",
                        "not found" if not got else "%s (%s)" % (got, rule_of(got)))
                continue
            if got is None:
                verdict(what, "%s by %s" % (n["resolved"], n["rule"]), "nothing answers it")
                continue
            if n["rule"] == "already-loaded":
                loader = "%s by already-loaded" % got if not fresh else \
                    "%s loaded in this step" % fresh[0]
            elif n["rule"] in ("system32", "known-dll"):
                # Wine maps its own builtin KERNEL32 and the like; only
                # the file is compared (a KnownDLL is in system32 too).
                loader = "%s by %s" % (got, n["rule"] if rule_of(got) == "system32"
                                       else rule_of(got))
            elif n["kind"] == "needed" and not fresh and action == 1 and \
                    rule_of(got) == "system32":
                loader = "%s by already-loaded" % got
            else:
                loader = "%s by %s" % (got, rule_of(got))
            model = "%s by %s" % (n["resolved"], n["rule"])
            verdict(what, model, loader, same=model.lower() == loader.lower())

    # NVIDIA's DLLs come from the files (native), never a Wine builtin.
    loaded = [(p, kind) for s in segments for p, kind in s]
    ours = [(p, kind) for p, kind in loaded if p.lower().startswith("z:")
            and p.lower() != win(child).lower()]
    verdict("every DLL from outside the prefix loaded native", "native",
            ", ".join(sorted(set(k for _, k in ours))) or "none loaded",
            same=all(k == "native" for _, k in ours))
    modules = set(m.lower() for m in re.findall(r"^MODULE (.*)$", cout, re.M)
                  if m.lower().startswith("z:") and m.lower() != win(child).lower())
    model = set()
    if predicted_ok:
        model.add(target.lower())
        model |= set(n["resolved"].lower() for o in objects for n in o["needs"]
                     if n["resolved"] and n["resolved"].lower().startswith("z:"))
    verdict("DLLs from outside the prefix at the end", sorted(model), sorted(modules))

print("explain (Wine): %d of %d predictions agree with the loader" % (agree, total))
sys.exit(0 if agree == total and total else 1)
