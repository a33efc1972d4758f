# SPDX-License-Identifier: MIT
"""What setup() loads and where it looks, each scenario in a fresh
interpreter with each backend (loads cannot be undone):

- all or nothing: an unsatisfied requirement, or a conflict known before
  loading, loads nothing, and the error says so; ``partial=True`` loads
  what it can (CUDALOAD_PRELOAD_PARTIAL);
- ``defaults=False`` leaves out the C library's default roots only, never
  the interpreter's site folders (``site_packages=False`` does that);
- precedence: ``site_packages`` is the environment tier, which wins over
  CUDNN_PATH (the variable tier) even when that holds a newer cuDNN, and
  loses to an explicit root even when that holds an older one.
"""

import json
import os
import shutil
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture libraries are ELF (Linux); /proc/self/maps")

# The child's helper: the files of the process under a folder, from
# /proc/self/maps (what the loader has mapped, whoever asked for it).
MAPPED = """
import os
def mapped(folder):
    folder = os.path.realpath(folder) + "/"
    with open("/proc/self/maps") as f:
        paths = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    return sorted(p for p in paths if os.path.realpath(p).startswith(folder))
"""


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------
# All or nothing
# --------------------------------------------------------------------------


def test_an_unsatisfied_requirement_loads_nothing(run, fixtures):
    """cuDNN 8 is there, cuBLAS 99 is not: before, setup() raised and had
    loaded cuDNN 8 already."""
    out = last_json(run(MAPPED + """
import json, cudaload
F = %r
roots = [F + "/preload/cudnn8", F + "/preload/cublas12"]
res = {}
try:
    cudaload.setup(require=["cudnn=8", "cublas=99"], roots=roots, defaults=False,
                   site_packages=False)
    res["raised"] = None
except cudaload.UnsatisfiedError as exc:
    res["raised"] = [str(exc), exc.detail, [e.state for e in exc.report.plan]]
res["after_setup"] = mapped(F + "/preload/cudnn8")
unchecked = cudaload.preload(["cudnn=8", "cublas=99"], roots=roots, defaults=False,
                             site_packages=False, check=False)
res["preload"] = [unchecked.status, unchecked.error, mapped(F + "/preload/cudnn8")]
print(json.dumps(res))
""" % fixtures))
    assert out["raised"], "setup() did not raise UnsatisfiedError"
    message, detail, states = out["raised"]
    assert detail.startswith("nothing was loaded"), detail
    assert "nothing was loaded" in message and "cublas=99" in message and "fix:" in message
    # Issue 46: the exception leads with the cause and its fix.
    first = message.split("\n")[0]
    assert first.startswith("cudaload.setup: cublas=99: no usable cublas library") and \
        "; fix: " in first, message
    assert states and set(states) == {"planned"}, states
    assert out["after_setup"] == [], "setup() loaded %s before raising" % out["after_setup"]
    status, error, after = out["preload"]
    assert status == 9 and error.startswith("nothing was loaded") and after == []


def test_partial_loads_what_it_can_and_still_raises(run, fixtures):
    out = last_json(run(MAPPED + """
import ctypes, json, cudaload
F = %r
roots = [F + "/preload/cudnn8", F + "/preload/cublas12"]
res = {}
try:
    cudaload.setup(require=["cudnn=8", "cublas=99"], roots=roots, defaults=False,
                   site_packages=False, partial=True)
    res["raised"] = None
except cudaload.UnsatisfiedError as exc:
    res["raised"] = [exc.detail, {e.name: e.state for e in exc.report.plan}]
res["mapped"] = mapped(F + "/preload/cudnn8")
res["version"] = ctypes.CDLL("libcudnn.so.8", mode=os.RTLD_NOLOAD).cudnnGetVersion()
print(json.dumps(res))
""" % fixtures))
    assert out["raised"], "setup(partial=True) did not raise for cublas=99"
    detail, states = out["raised"]
    assert "cublas=99" in detail and "nothing was loaded" not in detail
    assert states["cudnn"] == "loaded"
    assert any(p.endswith("/libcudnn.so.8") for p in out["mapped"]), out["mapped"]
    assert out["version"] == 8907


def test_a_known_conflict_loads_nothing_unless_isolate(run, fixtures):
    """cuDNN 9 (unversioned fixture) is in the global scope: a cuDNN 8
    consumer would bind it. setup() refuses before loading; with
    ``isolate`` (the consumers will be opened isolated) it loads."""
    out = last_json(run(MAPPED + """
import ctypes, json, cudaload
F = %r
ctypes.CDLL(F + "/preload/cudnn9/libcudnn.so.9", mode=ctypes.RTLD_GLOBAL)
kw = dict(require=["cudnn=8"], roots=[F + "/preload/cudnn8"], defaults=False,
          site_packages=False)
res = {}
try:
    cudaload.setup(**kw)
    res["raised"] = None
except cudaload.ConflictError as exc:
    res["raised"] = exc.detail
res["refused"] = mapped(F + "/preload/cudnn8")
report = cudaload.setup(isolate=True, **kw)
res["isolate"] = [report.status, len(report.conflicts),
                  {e.name: e.state for e in report.plan}, mapped(F + "/preload/cudnn8")]
print(json.dumps(res))
""" % fixtures))
    assert out["raised"] and out["raised"].startswith("nothing was loaded"), out["raised"]
    assert "libcudnn.so.9" in out["raised"]
    assert out["refused"] == []
    status, conflicts, states, mapped = out["isolate"]
    assert status == 11 and conflicts >= 1
    assert states["cudnn"] == "loaded" and mapped


# --------------------------------------------------------------------------
# defaults=False keeps the interpreter's site folders
# --------------------------------------------------------------------------


def test_defaults_false_still_searches_the_site_folders(run, fixtures):
    site_dir = os.path.join(fixtures, "wheels-cu12", "site-packages")
    out = last_json(run("""
import json, site, cudaload
site.addsitedir(%r)
res = {}
report = cudaload.setup(require=["cudnn=8"], defaults=False)
res["plan"] = [e.path for e in report.plan if e.name == "cudnn"]
res["roots"] = [[r.path, r.origin, r.tier] for r in report.roots]
with cudaload.Context(defaults=False) as ctx:
    res["context"] = [[r.path, r.origin, r.tier] for r in ctx.scan().roots()]
try:
    cudaload.scan(site_packages=True)
except TypeError as exc:
    res["true"] = str(exc)
without = cudaload.scan(defaults=False, site_packages=False)
res["without"] = [r.path for r in without.roots]
print(json.dumps(res))
""" % site_dir))
    real = os.path.realpath(site_dir)
    assert out["plan"] and out["plan"][0].startswith(real), out["plan"]
    for roots in (out["roots"], out["context"]):
        # Only the site folders: defaults=False leaves out the C library's.
        assert {tuple(r[1:]) for r in roots} == {("interpreter", "environment")}, roots
        assert real in [os.path.realpath(r[0]) for r in roots]
    assert "site_packages" in out["true"]
    assert out["without"] == []


# --------------------------------------------------------------------------
# Precedence: explicit > environment (site_packages) > variable (CUDNN_PATH)
# --------------------------------------------------------------------------


@pytest.fixture
def older_cudnn9(fixtures, tmp_path):
    """wheels-cu13/site-packages with its cuDNN 9 made older (its dist-info
    says 9.2.0.1 instead of 9.19.0.56, in its folder's name, which is the
    version, and in its METADATA, as pip writes them): the same CUDA major,
    so only the tier or the version can decide between the two."""
    newer = os.path.join(fixtures, "wheels-cu13", "site-packages")
    older = tmp_path / "older" / "site-packages"
    shutil.copytree(newer, str(older), symlinks=True)
    dist = older / "nvidia_cudnn_cu13-9.19.0.56.dist-info"
    metadata = dist / "METADATA"
    text = metadata.read_text()
    assert "Version: 9.19.0.56" in text
    os.chmod(str(metadata), 0o644)
    metadata.write_text(text.replace("Version: 9.19.0.56", "Version: 9.2.0.1"))
    dist.rename(older / "nvidia_cudnn_cu13-9.2.0.1.dist-info")
    return str(older), newer


PRECEDENCE = """
import json, cudaload
older, newer = %r, %r
def choice(**kw):
    with cudaload.Context(**kw) as ctx:
        report = ctx.require("cudnn=9").plan()
        chosen = [e.path for e in report.plan if e.name == "cudnn"][0]
        version = [l.version for l in report.libraries if l.path == chosen][0]
        tier = [report.roots[l.root].tier for l in report.libraries if l.path == chosen][0]
        return [chosen, version, tier]
res = {}
# site_packages (environment) over CUDNN_PATH (variable), newer or not.
res["environment"] = choice(site_packages=[older])
# An explicit root over site_packages, older or not.
res["explicit"] = choice(roots=[older], site_packages=[newer])
# Within one tier, the newest.
res["same_tier"] = choice(site_packages=[older, newer], defaults=False)
print(json.dumps(res))
"""


def test_site_packages_win_over_a_newer_cudnn_path(run, older_cudnn9):
    older, newer = older_cudnn9
    out = last_json(run(PRECEDENCE % (older, newer), extra_env={"CUDNN_PATH": newer}))
    assert out["environment"][0].startswith(os.path.realpath(older)), out
    assert out["environment"][1:] == ["9.2.0.1", "environment"], out
    assert out["explicit"][0].startswith(os.path.realpath(older)), out
    assert out["explicit"][1:] == ["9.2.0.1", "explicit"], out
    assert out["same_tier"][0].startswith(os.path.realpath(newer)), out
    assert out["same_tier"][1] == "9.19.0.56", out


def test_setup_preloads_the_site_packages_cudnn_over_cudnn_path(run, older_cudnn9):
    """The same choice through setup(), which loads it."""
    older, newer = older_cudnn9
    out = last_json(run(MAPPED + """
import json, cudaload
older, newer = %r, %r
report = cudaload.setup(require=["cudnn=9"], site_packages=[older], check=False)
print(json.dumps({"status": report.status, "error": report.error,
                  "cudnn": [[e.path, e.state] for e in report.plan if e.name == "cudnn"],
                  "older": mapped(older), "newer": mapped(newer)}))
""" % (older, newer), extra_env={"CUDNN_PATH": newer}))
    assert out["status"] == 0, out["error"]
    assert out["cudnn"][0][0].startswith(os.path.realpath(older)), out
    assert out["cudnn"][0][1] == "loaded", out
    assert out["older"] and out["newer"] == [], out


# --------------------------------------------------------------------------
# What the chosen libraries will open later
# --------------------------------------------------------------------------


def test_a_lazily_opened_library_no_root_holds_is_a_warning(run, fixtures):
    """cuDNN 8 opens cuBLAS 12 by name at its first call: setup() of cuDNN 8
    alone used to succeed silently, and the program aborted later with
    "libcublas.so.12 is not found". Now the Report says so, and one
    CudaloadWarning is emitted; with a root that holds cuBLAS 12 neither."""
    out = last_json(run("""
import json, warnings, cudaload
F = %r
res = {}
for name, roots in (("alone", [F + "/cudnn8_compat"]),
                    ("with_cublas", [F + "/cudnn8_compat", F + "/toolkit/cuda-12.4"])):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = cudaload.preload(["cudnn=8"], roots=roots, defaults=False,
                                  site_packages=False)
    res[name] = [report.warnings,
                 [(w.category.__name__, str(w.message), w.filename) for w in caught]]
print(json.dumps(res))
""" % fixtures))
    report_warnings, caught = out["alone"]
    assert len(report_warnings) == 1, report_warnings
    assert "libcublas.so.12" in report_warnings[0] and "nvidia-cublas-cu12" in report_warnings[0]
    assert len(caught) == 1, caught
    category, message, filename = caught[0]
    assert category == "CudaloadWarning" and "libcublas.so.12" in message
    assert filename == "<string>", "the warning names the caller's line, not cudaload's: %s" % filename
    assert out["with_cublas"] == [[], []], out["with_cublas"]
