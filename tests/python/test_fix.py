# SPDX-License-Identifier: MIT
"""cudaload.fix() and ``python -m cudaload fix`` (issue 42, item 3): the
library's judgement of each step (cudaload_fix_step_check), its report and
its runner, through both backends; in a venv made here, pip offline against
a local wheelhouse of NVIDIA-shaped wheels (tests/fixtures/wheelhouse.py);
then a plain setup(), in a fresh process, finds what the fix installed
beside the environment, with no roots given."""

import glob
import os
import shutil
import sys

import pytest

from conftest import REPO, make_venv

sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import wheelhouse  # noqa: E402

sys.path.pop(0)

pytestmark = pytest.mark.skipif(os.name == "nt", reason="a Linux venv's layout and pip")


@pytest.fixture
def venv(tmp_path, fixtures):
    """A venv whose site-packages holds a CUDA 12 torch's wheels (cuDNN 9,
    cuBLAS 12, cudart 12); (its python, its site-packages)."""
    python = make_venv(tmp_path / "venv")
    site = glob.glob(str(tmp_path / "venv" / "lib" / "python3.*" / "site-packages"))[0]
    tree = os.path.join(fixtures, "wheels-cu12-cudnn9", "site-packages")
    for name in os.listdir(tree):
        src = os.path.join(tree, name)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(site, name))
    return python, site


@pytest.fixture
def pip_env(tmp_path, fixtures):
    house = tmp_path / "wheels"
    wheelhouse.make_wheelhouse(fixtures, str(house))
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(house), "PIP_NO_CACHE_DIR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_CONFIG_FILE": os.devnull,
            "VIRTUAL_ENV": ""}


def test_fix_installs_beside_torch_and_a_plain_setup_finds_it(run, venv, pip_env):
    python, site = venv
    target = os.path.join(os.path.dirname(site), "cudnn8")
    out = run("""
        import cudaload
        result = cudaload.fix(require=["cudnn=8"], yes=True)
        print("RESULT", result.ok, result.failed, len(result.ran), len(result.commands))
        assert result.failed is None, result.error
        assert result.ran and "--only-binary=:all:" in result.ran[0], result.ran
        assert "--target" in result.ran[0]
        assert result.left is not None
        assert not [p for p in result.left.problems if p.kind == "unsatisfied"], \\
            [p.text for p in result.left.problems]
        """, extra_env=pip_env, python=python).stdout
    assert "RESULT" in out
    assert "\n$ %s" % python in out or "\n$ " in out, out
    assert os.path.isfile(os.path.join(target, "nvidia", "cudnn", "lib", "libcudnn.so.8"))
    with open(os.path.join(os.path.dirname(site), "cudaload.roots")) as f:
        assert target in f.read().splitlines()
    # torch's cuDNN 9 is where it was.
    assert os.path.isfile(os.path.join(site, "nvidia", "cudnn", "lib", "libcudnn.so.9"))
    # A plain setup() in a fresh process: no roots, cuDNN 8 from the folder.
    out = run("""
        import cudaload
        report = cudaload.setup(require=["cudnn=8"])
        print("PLAN", report.plan[0].path)
        """, python=python, extra_env={"VIRTUAL_ENV": ""}).stdout
    plan = out.split("PLAN ", 1)[1].strip()
    assert plan.startswith(target + os.sep), out


def test_dry_run_and_no_terminal(run, venv, pip_env):
    python, site = venv
    out = run("""
        import cudaload
        result = cudaload.fix(require=["cudnn=8"], dry_run=True)
        assert not result.ran and result.left is None and not result.ok
        assert len(result.commands) == 1 and "--only-binary=:all:" in result.commands[0]
        assert str(result) == result.plan and "   run " in result.plan
        try:
            cudaload.fix(require=["cudnn=8"])
        except cudaload.InvalidArgumentError as exc:
            assert "no terminal to ask" in str(exc), exc
            print("REFUSED")
        """, extra_env=pip_env, python=python).stdout
    assert "REFUSED" in out
    assert not os.path.exists(os.path.join(os.path.dirname(site), "cudnn8"))


def test_a_failing_pip_stops_with_what_was_done(run, venv, pip_env):
    """The wheelhouse has no CUDA 11 runtime: pip fails, the fix stops
    there, and says so."""
    python, _ = venv
    out = run("""
        import cudaload
        result = cudaload.fix(require=["cudart=11"], yes=True)
        print("FAILED", result.failed is not None, result.ran, "exited with status" in result.error)
        """, extra_env=pip_env, python=python).stdout
    assert "FAILED True [] True" in out, out


def test_python_m_cudaload_fix(run, venv, pip_env):
    """python -m cudaload fix runs the same fix with the tool's exit
    statuses; run again, it has nothing to run, so it asks nothing."""
    import subprocess
    from conftest import child_env
    python, site = venv

    def fix(*args):
        return subprocess.run([python, "-m", "cudaload", "fix"] + list(args),
                              env=child_env(run.backend, run.library, pip_env),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300)

    r = fix("--require", "cudnn=8")
    assert r.returncode == 2 and "no terminal to ask" in r.stderr, r.stdout + r.stderr
    r = fix("--require", "cudnn=8", "--dry-run")
    assert r.returncode == 6 and "\n$ " not in r.stdout, r.stdout + r.stderr
    r = fix("--require", "cudnn=8", "--yes")
    assert r.returncode in (0, 6), r.stdout + r.stderr
    assert "--only-binary=:all:" in r.stdout
    assert os.path.isdir(os.path.join(os.path.dirname(site), "cudnn8"))
    r = fix("--require", "cudnn=8")
    assert r.returncode in (0, 6) and "\n$ " not in r.stdout, r.stdout + r.stderr
    r = fix("--require", "cudart=11", "--yes")
    assert r.returncode == 7 and "stopped at command 1 of 1" in r.stderr, r.stdout + r.stderr
