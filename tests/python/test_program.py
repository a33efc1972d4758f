# SPDX-License-Identifier: MIT
"""setup(for_=...) and doctor(for_=...): the requirements come from the
program (a module installed in the environment), each saying where it came
from, on the "programs" fixture tree; each scenario in a fresh interpreter
with each backend (setup() loads libraries)."""

import json
import sys

import pytest

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
