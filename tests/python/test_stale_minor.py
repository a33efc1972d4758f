# SPDX-License-Identifier: MIT
"""A stale minor first (issue 32, item 1), on the stale_minor fixtures, whose
symbol shapes are the real ones (tests/fixture_shapes.py checks them under
the real loader): cuSPARSE 12 takes __nvJitLink*_12_4@libnvJitLink.so.12,
which the CUDA 12.1 toolkit's libnvJitLink.so.12 (one version node for every
minor) does not define. Each scenario in a fresh interpreter (setup() loads
libraries), with LD_PRELOAD / LD_LIBRARY_PATH set at its start."""

import json
import os
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the stale_minor tree is ELF (Linux); LD_PRELOAD")


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def tree(fixtures):
    root = os.path.join(fixtures, "stale_minor")
    if not os.path.isdir(root):
        pytest.skip("the stale_minor fixture tree is not built in %s" % fixtures)
    return root


SETUP = """
import json, cudaload
T = %r
res = {}
try:
    report = cudaload.setup(require=["cusparse=12"], defaults=False, site_packages=False,
                            roots=[T + "/site-packages"])
    with open("/proc/self/maps") as f:
        maps = f.read()
    res = {"ok": True, "new": "site-packages/nvidia/nvjitlink" in maps, "warnings": report.warnings}
except cudaload.Error as exc:
    res = {"ok": False, "type": type(exc).__name__, "text": str(exc)}
print(json.dumps(res))
"""


def test_setup_preloads_the_right_minor_past_ld_library_path(run, fixtures):
    """The old one first on LD_LIBRARY_PATH: setup() loads the wheel's
    nvJitLink first by absolute path, so cuSPARSE binds its own."""
    t = tree(fixtures)
    out = last_json(run(SETUP % t, extra_env={
        "LD_LIBRARY_PATH": os.path.join(t, "cuda-12.1", "targets", "x86_64-linux", "lib")}))
    assert out["ok"] and out["new"], out


def test_setup_refuses_an_old_copy_put_first_by_ld_preload(run, fixtures):
    """The old one put first with LD_PRELOAD: the process has it, nothing
    can load another of that name, and cuSPARSE would fail; setup() raises
    a ConflictError naming the copy, LD_PRELOAD, and the file that has the
    symbols, and loads nothing."""
    t = tree(fixtures)
    old = os.path.join(t, "cuda-12.1", "targets", "x86_64-linux", "lib", "libnvJitLink.so.12")
    out = last_json(run(SETUP % t, extra_env={"LD_PRELOAD": old}))
    assert not out["ok"] and out["type"] == "ConflictError", out
    assert "nothing was loaded" in out["text"], out
    assert "__nvJitLink" in out["text"] and "_12_4" in out["text"], out
    assert "was loaded by LD_PRELOAD" in out["text"], out
    # The fix is a command: the variable without that file.
    assert "unset LD_PRELOAD; LD_PRELOAD puts that file first" in out["text"], out
