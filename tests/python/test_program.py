# SPDX-License-Identifier: MIT
"""setup(for_=...) and doctor(for_=...): the requirements come from the
program (a module installed in the environment), each saying where it came
from, on the "programs" fixture tree; each scenario in a fresh interpreter
with each backend (setup() loads libraries)."""

import json
import os
import sys

import pytest

from conftest import BINDINGS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the programs fixture tree is ELF (Linux)")


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_doctor_for_a_module_names_where_each_requirement_came_from(run, fixtures):
    out = last_json(run("""
import json, cudaload
F = %r + "/programs"
doc = json.loads(str(cudaload.doctor(for_="ortlike", format="json", defaults=False,
                                     site_packages=[F + "/site-packages"],
                                     roots=[F + "/wheels/site-packages"])))
print(json.dumps({q["spec"]: [q["satisfied"], q["from"]] for q in doc["requirements"]}))
""" % fixtures))
    assert sorted(out) == ["cublas=12", "cudart=12", "cudnn=9", "cufft=11", "curand=10",
                           "nvrtc=12"], out
    assert all(sat for sat, _ in out.values()), out
    assert "Requires-Dist: nvidia-cudnn-cu12 ~=9.0 of ortlike-gpu 1.0" in out["cudnn=9"][1]


def test_setup_for_a_module_loads_what_it_pins(run, fixtures):
    """torchlike pins nvJitLink 12.4.127 that no file of its own needs: an
    older one first (an explicit root) is passed over, and the wheel's is
    what gets loaded."""
    out = last_json(run("""
import json, os, cudaload
F = %r + "/programs"
ctx_report = cudaload.setup(for_="torchlike", defaults=False,
                            site_packages=[F + "/site-packages"],
                            roots=[F + "/old-toolkit", F + "/wheels/site-packages"])
with open("/proc/self/maps") as f:
    maps = f.read()
print(json.dumps({"requirements": ctx_report.requirements,
                  "new": "wheels/site-packages/nvidia/nvjitlink/lib" in maps,
                  "old": "old-toolkit/lib64/libnvJitLink" in maps}))
""" % fixtures))
    assert "nvjitlink=12" in out["requirements"], out
    assert out["new"] and not out["old"], out


def test_for_what_is_not_installed_raises_not_found(run, fixtures):
    out = last_json(run("""
import json, cudaload
F = %r + "/programs"
try:
    cudaload.setup(for_="no_such_module", defaults=False, site_packages=[F + "/site-packages"])
    print(json.dumps(None))
except cudaload.NotFoundError as exc:
    print(json.dumps(str(exc)))
""" % fixtures))
    assert out and "no_such_module" in out and "programs/site-packages" in out, out


def test_setup_for_cupy_runs_without_what_it_uses_only_for_a_feature(run, fixtures):
    """Issue 41, item 4: CuPy's cuTENSOR and NCCL modules are imported
    only when used: setup(for_="cupy") plans cuBLAS and succeeds, and the
    warnings say what each feature would need, for CuPy's CUDA 12 (a
    cuTENSOR built for CUDA 13 lies in another root)."""
    out = last_json(run("""
import json, warnings, cudaload
F = %r + "/programs"
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    report = cudaload.setup(for_="cupy", defaults=False,
                            site_packages=[F + "/cupy/site-packages"],
                            roots=[F + "/wheels/site-packages", F + "/cutensor13/site-packages"])
print(json.dumps({"requirements": report.requirements, "warnings": report.warnings,
                  "planned": [p.path for p in report.plan]}))
""" % fixtures))
    assert sorted(out["requirements"]) == ["cublas=12", "cudart=12"], out
    assert not [p for p in out["planned"] if "cutensor13" in p], out
    cutensor = [w for w in out["warnings"] if "only if cuTENSOR" in w]
    assert len(cutensor) == 1 and "pip install cutensor-cu12" in cutensor[0], out
    assert not [w for w in out["warnings"] if "cutensor-cu13" in w], out


def test_for_finds_a_module_on_this_interpreters_sys_path(run, fixtures, tmp_path):
    """A distribution installed with pip install --target into a folder on
    PYTHONPATH is this interpreter's: for_= finds it there, with the
    default site_packages."""
    import shutil
    target = tmp_path / "target"
    for name in ("torchlike", "torchlike-2.5.1.dist-info"):
        shutil.copytree(os.path.join(fixtures, "programs", "site-packages", name),
                        str(target / name))
    out = last_json(run("""
import json, cudaload
doc = json.loads(str(cudaload.doctor(for_="torchlike", format="json", defaults=False)))
print(json.dumps({q["spec"]: q["from"] for q in doc["requirements"]}))
""", extra_env={"PYTHONPATH": os.pathsep.join([BINDINGS, str(target)])}))
    assert "cusparse=12" in out and str(target) in out["cusparse=12"], out
