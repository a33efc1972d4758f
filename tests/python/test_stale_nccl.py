# SPDX-License-Identifier: MIT
"""An older NCCL first (issue 41, item 5), on the stale_nccl fixtures, whose
shape is NCCL's real one (plain names) and torch 2.5.1's (libtorch_cuda.so,
no CUDA library, reached through the extension module, takes
ncclCommRegister by plain name): setup(for_=) judges the program's files as
they will load. Each scenario in a fresh interpreter, with LD_PRELOAD set at
its start."""

import glob
import json
import os
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the stale_nccl tree is ELF (Linux); LD_PRELOAD")


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def tree(fixtures):
    root = os.path.join(fixtures, "stale_nccl")
    if not os.path.isdir(root):
        pytest.skip("the stale_nccl fixture tree is not built in %s" % fixtures)
    return root


def site(venv):
    found = glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))
    assert len(found) == 1, found
    return found[0]


# setup() for the program, then the import that loads its library (RTLD_NOW,
# as Python loads an extension module) and the NCCL version it binds.
SETUP = """
import json, sys, cudaload
VENV, ROOTS = %r, %r
sys.path.insert(0, %r)
res = {}
try:
    cudaload.setup(for_=VENV + "/bin/python3", defaults=False, site_packages=False,
                   roots=ROOTS)
    import torchnccl
    maps = sorted({l.split()[-1] for l in open("/proc/self/maps")
                   if l.rstrip().endswith("libnccl.so.2")})
    res = {"ok": True, "version": torchnccl.nccl_version(), "maps": maps}
except cudaload.Error as exc:
    res = {"ok": False, "type": type(exc).__name__, "text": str(exc)}
print(json.dumps(res))
"""


def test_setup_refuses_an_older_nccl_ld_preload_puts_first(run, fixtures):
    """The process has 2.18.1 (LD_PRELOAD), which libtorchnccl_cuda.so would
    take: setup() raises a ConflictError naming the copy, the symbol and
    LD_PRELOAD, and loads nothing. Before, it refused only because the copy
    is older than the plan's, naming neither the consumer nor the symbol."""
    t = tree(fixtures)
    venv = os.path.join(t, "venv")
    old = os.path.join(t, "nccl-2.18.1", "nvidia", "nccl", "lib", "libnccl.so.2")
    out = last_json(run(SETUP % (venv, [], site(venv)), extra_env={"LD_PRELOAD": old}))
    assert not out["ok"] and out["type"] == "ConflictError", out
    assert "nothing was loaded" in out["text"], out
    assert "ncclCommRegister" in out["text"] and old in out["text"], out
    assert "libtorchnccl_cuda.so" in out["text"], out
    assert "was loaded by LD_PRELOAD" in out["text"], out


def test_setup_preloads_the_planned_nccl_past_the_rpath(run, fixtures):
    """venv-old's wheel folder holds 2.18.1, which the consumer's DT_RPATH
    reaches: setup() loads the planned 2.21.5 first by absolute path, so
    the import binds to it, the only NCCL mapped."""
    t = tree(fixtures)
    venv = os.path.join(t, "venv-old")
    new = os.path.join(t, "nccl-2.21.5")
    out = last_json(run(SETUP % (venv, [new], site(venv))))
    assert out["ok"], out
    assert out["version"] == 22105, out
    assert [os.path.realpath(m) for m in out["maps"]] == [
        os.path.realpath(os.path.join(new, "nvidia", "nccl", "lib", "libnccl.so.2"))], out


CHECK = """
import json, cudaload
VENV, ROOT = %r, %r
ctx = cudaload.Context(roots=[ROOT], site_packages=False, defaults=False)
ctx.require_for(VENV + "/bin/python3")
warnings, changes = ctx.env_check()
print(json.dumps({"warnings": warnings, "changes": changes}))
"""


def test_env_check_gives_the_child_the_planned_nccl_first(run, fixtures):
    """Context.env_check(): what `cudaload exec` sets for its program, for a
    Python launcher to give its child: LD_PRELOAD of the planned NCCL, which
    venv-old's DT_RPATH would miss, with the warning that says why."""
    t = tree(fixtures)
    new = os.path.join(t, "nccl-2.21.5")
    out = last_json(run(CHECK % (os.path.join(t, "venv-old"), new)))
    assert out["changes"].get("LD_PRELOAD") == os.path.join(
        new, "nvidia", "nccl", "lib", "libnccl.so.2"), out
    assert any("by rule rpath" in w for w in out["warnings"]), out
