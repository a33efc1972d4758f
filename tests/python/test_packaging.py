# SPDX-License-Identifier: MIT
"""The package installs and works with nothing set: a wheel built with
scikit-build-core holds the library, and ``pip install ./bindings/python``
builds it. Each install goes into a fresh venv that sees this
interpreter's packages, for scikit-build-core and cffi (conftest.make_venv;
nothing of cudaload is there).
Slow (a CMake build each): set CUDALOAD_TEST_PACKAGING=0 to skip."""

import os
import subprocess
import sys

import pytest

from conftest import BINDINGS, installed_mode, make_venv

pytestmark = [
    pytest.mark.skipif(os.environ.get("CUDALOAD_TEST_PACKAGING") == "0",
                       reason="CUDALOAD_TEST_PACKAGING=0"),
    pytest.mark.skipif(installed_mode(), reason="tests the source tree's packaging"),
]


@pytest.fixture(scope="module")
def build_tools():
    for module in ("scikit_build_core", "pip"):
        try:
            __import__(module)
        except ImportError:
            pytest.skip("%s is not installed (pip install scikit-build-core)" % module)


def _venv(path):
    return make_venv(path)


def _clean_env(backend):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDALOAD_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env["CUDALOAD_BACKEND"] = backend
    return env


CHECK = """
import json, os, cudaload
here = os.path.dirname(cudaload.__file__)
report = cudaload.scan(defaults=False, site_packages=False, roots=[here])
print(json.dumps({"path": cudaload.library_path(), "here": here, "backend": cudaload.backend(),
                  "version": cudaload.library_version(), "pkg": cudaload.__version__,
                  "typed": os.path.isfile(os.path.join(here, "py.typed")),
                  "roots": len(report.roots)}))
"""


def _check(python, backend, tmp_path):
    result = subprocess.run([python, "-c", CHECK], env=_clean_env(backend), cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert result.returncode == 0, result.stderr
    import json
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["backend"] == backend
    assert out["path"].startswith(out["here"]) and "_lib" in out["path"], \
        "the library must come from inside the installed package"
    assert out["version"] == out["pkg"] and out["typed"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, build_tools):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                    "-q", BINDINGS, "-w", str(out)], check=True)
    wheels = [f for f in os.listdir(str(out)) if f.endswith(".whl")]
    assert len(wheels) == 1
    return str(out / wheels[0])


def test_built_wheel_installs_and_imports(backend, wheel, tmp_path):
    import zipfile
    names = zipfile.ZipFile(wheel).namelist()
    lib = "cudaload/_lib/" + ("cudaload.dll" if os.name == "nt" else "libcudaload.so.1")
    assert lib in names and "cudaload/_include/cudaload.h" in names and "cudaload/py.typed" in names
    python = _venv(tmp_path / "venv")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel], check=True)
    _check(python, backend, tmp_path)


@pytest.fixture(scope="module")
def source_install(tmp_path_factory, build_tools):
    """One venv with ``pip install ./bindings/python`` done (a CMake build
    of the library), which each backend then uses."""
    venv = tmp_path_factory.mktemp("source-install") / "venv"
    python = _venv(venv)
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                    BINDINGS], check=True)
    return python


def test_pip_install_of_the_source_folder(backend, source_install, tmp_path):
    _check(source_install, backend, tmp_path)
