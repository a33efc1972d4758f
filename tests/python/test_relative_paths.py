# SPDX-License-Identifier: MIT
"""Paths as people type them: relative roots, manifest and driver paths are
resolved against the current folder (os.path.abspath) and reported
absolute, str and os.PathLike alike; a root that does not exist is an error
(NotFoundError) raised before anything is loaded. Each scenario runs in a
fresh interpreter, with each backend, from inside the fixture tree."""

import json
import os
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture libraries are ELF files (Linux)")


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


# Put at the top of each child: work from inside the fixture tree, with a
# PathLike that is not a pathlib.Path (only os.fspath() reads it).
PRELUDE = """
import json, os, pathlib, subprocess, sys
import cudaload
os.chdir(%r)
HERE = os.getcwd()

class Folder:
    def __init__(self, path):
        self.path = path
    def __fspath__(self):
        return self.path

def plan(report):
    return [[e.name, e.major, e.state, e.path] for e in report.plan]
"""


def child(run, fixtures, code, **kwargs):
    return run(PRELUDE % fixtures + code, **kwargs)


def test_setup_relative_root_works_like_the_absolute_one(run, fixtures):
    # Two processes: a preload cannot be undone, so each form loads afresh.
    forms = {
        "relative": 'cudaload.setup(require=["cudnn=8"], roots=["preload/cudnn8"], defaults=False, site_packages=False)',
        "dotted": 'cudaload.setup(require=["cudnn=8"], roots=["./preload//x/../cudnn8/"], defaults=False, site_packages=False)',
        "pathlib": 'cudaload.setup(require=["cudnn=8"], roots=[pathlib.Path("preload") / "cudnn8"], '
                   'defaults=False, site_packages=False)',
        "pathlike": 'cudaload.setup(require=["cudnn=8"], roots=[Folder("preload/cudnn8")], defaults=False, site_packages=False)',
        "absolute": 'cudaload.setup(require=["cudnn=8"], roots=[os.path.join(HERE, "preload", "cudnn8")], '
                    'defaults=False, site_packages=False)',
    }
    out = {}
    for name, call in forms.items():
        out[name] = last_json(child(run, fixtures, """
report = %s
print(json.dumps({"ok": report.ok, "plan": plan(report),
                  "roots": [[r.path, r.origin, r.status] for r in report.roots],
                  "here": HERE}))
""" % call))
    absolute = out["absolute"]
    here = absolute["here"]
    assert absolute["ok"] and absolute["roots"] == [[os.path.join(here, "preload", "cudnn8"), "explicit", "ok"]]
    assert any(e[0] == "cudnn" and e[2] == "loaded" for e in absolute["plan"]), absolute["plan"]
    for name in ("relative", "dotted", "pathlib", "pathlike"):
        assert out[name] == absolute, "setup(roots=[%s form]) differs from the absolute form" % name


def test_scan_context_and_add_root_resolve_relative_roots(run, fixtures):
    out = last_json(child(run, fixtures, """
absolute = os.path.join(HERE, "wheels-cu12", "site-packages")
a = cudaload.scan(roots=[absolute], defaults=False, site_packages=False).scan_dict()
r = cudaload.scan(roots=["wheels-cu12/site-packages"], defaults=False, site_packages=False).scan_dict()
with cudaload.Context(roots=[Folder("wheels-cu12/site-packages")], defaults=False, site_packages=False) as ctx:
    c = ctx.scan().report().scan_dict()
with cudaload.Context(defaults=False, site_packages=False) as ctx:
    ctx.add_root(pathlib.Path("wheels-cu12") / "site-packages")
    d = ctx.scan().report().scan_dict()
print(json.dumps({"a": a, "r": r, "c": c, "d": d, "absolute": absolute}))
"""))
    assert out["a"]["libraries"], "the fixture wheel tree has libraries"
    assert out["a"]["roots"][0]["path"] == out["absolute"]
    assert out["r"] == out["a"] and out["c"] == out["a"] and out["d"] == out["a"]


def test_missing_root_raises_before_loading_anything(run, fixtures):
    out = last_json(child(run, fixtures, """
res = {}
def mapped():
    with open("/proc/self/maps") as maps:
        return sorted({line.split()[-1] for line in maps if "libcudnn" in line})
try:
    # The cuDNN 8 root exists: without the check, setup() would load it.
    cudaload.setup(require=["cudnn=8"], roots=["preload/cudnn8", "/nonexistent"], defaults=False, site_packages=False)
    res["setup"] = "no error"
except cudaload.Error as exc:
    res["setup"] = [type(exc).__name__, exc.status, str(exc), exc.function,
                    [[r.path, r.status] for r in exc.report.roots], plan(exc.report)]
res["mapped_after_setup"] = mapped()
try:
    cudaload.preload(["cudnn=8"], roots=["no-such-folder"], defaults=False, site_packages=False)
    res["preload"] = "no error"
except cudaload.NotFoundError as exc:
    res["preload"] = [str(exc), isinstance(exc, cudaload.Error)]
unchecked = cudaload.setup(require=["cudnn=8"], roots=["/nonexistent"], defaults=False, site_packages=False, check=False)
res["unchecked"] = [unchecked.ok, unchecked.status, unchecked.error, plan(unchecked)]
try:
    cudaload.scan(roots=["no-such-folder"], defaults=False, site_packages=False)
    res["scan"] = "no error"
except cudaload.NotFoundError as exc:
    res["scan"] = [str(exc), exc.report.scan_dict()["roots"]]
with cudaload.Context(roots=["preload/cudnn8", "/nonexistent"], defaults=False, site_packages=False) as ctx:
    ctx.require("cudnn=8")
    try:
        ctx.preload()
        res["context"] = "no error"
    except cudaload.NotFoundError as exc:
        res["context"] = str(exc)
res["mapped_at_end"] = mapped()
print(json.dumps(res))
"""))
    name, status, message, function, roots, planned = out["setup"]
    assert name == "NotFoundError" and status == 5, out["setup"]
    assert "'/nonexistent' does not exist" in message, message
    assert roots[1] == ["/nonexistent", "not found"] and planned == []
    assert out["mapped_after_setup"] == [], "setup() loaded %s before raising" % out["mapped_after_setup"]
    missing = os.path.join(os.path.realpath(fixtures), "no-such-folder")
    assert out["preload"] == ["cudaload_scan: not found: root '%s' does not exist" % missing, True]
    assert out["unchecked"][:2] == [False, 5] and "/nonexistent" in out["unchecked"][2]
    assert out["unchecked"][3] == []
    assert missing in out["scan"][0]
    assert out["scan"][1] == [{"path": missing, "origin": "explicit", "tier": "explicit",
                               "status": "not found"}]
    assert "'/nonexistent' does not exist" in out["context"]
    assert out["mapped_at_end"] == []


def test_empty_path_is_an_invalid_argument(run, fixtures):
    out = last_json(child(run, fixtures, """
res = []
for call in (lambda: cudaload.scan(roots=[""], defaults=False, site_packages=False),
             lambda: cudaload.Context(defaults=False, site_packages=False).add_root(Folder("")),
             lambda: cudaload.Context(defaults=False, site_packages=False).set_driver("")):
    try:
        call()
        res.append("no error")
    except cudaload.InvalidArgumentError as exc:
        res.append([exc.status, str(exc), isinstance(exc, ValueError)])
print(json.dumps(res))
"""))
    for status, message, is_value_error in out:
        assert status == 1 and "the path is empty" in message and is_value_error, out


def test_relative_driver_and_manifest(run, fixtures):
    out = last_json(child(run, fixtures, """
res = {}
absolute = os.path.join(HERE, "fake_cuda", "driver", "libcuda.so.1")
res["absolute"] = absolute
res["probe"] = cudaload.probe(driver="fake_cuda/driver/libcuda.so.1", defaults=False, site_packages=False).driver_path
with cudaload.Context(defaults=False, site_packages=False) as ctx:
    ctx.set_driver(pathlib.Path("fake_cuda") / "driver" / ".." / "driver" / "libcuda.so.1")
    res["context"] = ctx.probe().driver_path
with open("cudaload-relative-test.yaml", "w") as f:
    f.write("requirements: [cudnn=8]\\nroots: [preload/cudnn8]\\n")
try:
    with cudaload.Context(defaults=False, site_packages=False) as ctx:
        ctx.load_manifest("cudaload-relative-test.yaml")
        doc = ctx.doctor("json").to_dict()
        res["manifest"] = [doc["manifest"]["path"], [r["path"] for r in doc["roots"]],
                           [q["satisfied"] for q in doc["requirements"]]]
except cudaload.UnsupportedError as exc:
    res["manifest"] = "unsupported: %s" % exc
finally:
    os.remove("cudaload-relative-test.yaml")
print(json.dumps(res))
"""))
    assert out["probe"] == out["absolute"] and out["context"] == out["absolute"], out
    if isinstance(out["manifest"], str):
        pytest.skip("this libcudaload is built without libyaml (%s): the manifest part is not "
                    "checked" % out["manifest"])
    here = os.path.dirname(os.path.dirname(os.path.dirname(out["absolute"])))
    assert out["manifest"] == [os.path.join(here, "cudaload-relative-test.yaml"),
                               [os.path.join(here, "preload", "cudnn8")], [True]]


def test_module_cli_resolves_relative_paths(run, fixtures):
    out = last_json(child(run, fixtures, """
def tool(*args):
    r = subprocess.run([sys.executable, "-m", "cudaload"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    return [r.returncode, r.stdout, r.stderr]
res = {
    "relative": tool("scan", "--no-defaults", "--root", "wheels-cu12/site-packages", "--format", "json"),
    "absolute": tool("scan", "--no-defaults", "--root", os.path.join(HERE, "wheels-cu12", "site-packages"),
                     "--format", "json"),
    "missing": tool("scan", "--no-defaults", "-r", "no-such-folder"),
    "empty": tool("scan", "--no-defaults", "--root", ""),
    "probe": tool("probe", "--no-defaults", "--driver", "./fake_cuda/driver/libcuda.so.1", "--format", "json"),
    "here": HERE,
}
print(json.dumps(res))
"""))
    here = out["here"]
    assert out["relative"][0] == 0, out["relative"]
    assert out["relative"][1] == out["absolute"][1]
    assert json.loads(out["relative"][1])["roots"][0]["path"] == os.path.join(here, "wheels-cu12", "site-packages")
    rc, stdout, stderr = out["missing"]
    assert rc == 3 and "root not found: %s" % os.path.join(here, "no-such-folder") in stdout, out["missing"]
    assert "cudaload: warning: root %s: not found" % os.path.join(here, "no-such-folder") in stderr
    rc, stdout, stderr = out["empty"]
    assert rc == 2 and stdout == "" and "--root" in stderr and "the path is empty" in stderr, out["empty"]
    rc, stdout, stderr = out["probe"]
    assert rc in (0, 5), out["probe"]
    assert json.loads(stdout)["driver"]["path"] == os.path.join(here, "fake_cuda", "driver", "libcuda.so.1")
