# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python binding tests.

Environment (ctest sets these; see tests/python.cmake):
  CUDALOAD_LIBRARY       the built libcudaload.so.1 / cudaload.dll
  CUDALOAD_FIXTURES_DIR  the fixture trees (cmake build folder's fixtures/)
  CUDALOAD_CLI           the cudaload command-line tool (optional: the
                         tests comparing reports with it skip without it)
  CUDALOAD_TEST_INSTALLED=1  test the installed package instead of the
                         source tree's bindings/python

Every test runs once per backend (ctypes, cffi). Anything that loads a
library runs in a fresh interpreter (subprocess), since loads cannot be
undone.
"""

import os
import subprocess
import sys
import textwrap
from typing import Dict, Optional

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
BINDINGS = os.path.join(REPO, "bindings", "python")
HEADER = os.path.join(REPO, "include", "cudaload.h")
BACKENDS = ("ctypes", "cffi")


def installed_mode() -> bool:
    return os.environ.get("CUDALOAD_TEST_INSTALLED") == "1"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each test runs with each backend."""
    if request.param == "cffi":
        try:
            import cffi  # noqa: F401
        except ImportError:
            pytest.skip("the cffi backend needs the cffi package (pip install cffi)")
    return request.param


@pytest.fixture(scope="session")
def library() -> str:
    path = os.environ.get("CUDALOAD_LIBRARY", "")
    if not path and not installed_mode():
        pytest.skip("CUDALOAD_LIBRARY is not set: run through ctest, or point it at "
                    "the built libcudaload.so.1")
    if path and not os.path.isfile(path):
        pytest.skip("CUDALOAD_LIBRARY=%s does not exist (build the library first)" % path)
    return path


@pytest.fixture(scope="session")
def fixtures() -> str:
    path = os.environ.get("CUDALOAD_FIXTURES_DIR", "")
    if not path or not os.path.isdir(os.path.join(path, "preload")):
        pytest.skip("CUDALOAD_FIXTURES_DIR (the built fixture trees with preload/) is "
                    "not set or not built: run through ctest after building "
                    "the cudaload_fixtures target")
    return path


def child_env(backend: str, library: Optional[str], extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    env = dict(os.environ)
    env["CUDALOAD_BACKEND"] = backend
    for name in ("LD_LIBRARY_PATH", "LD_PRELOAD"):
        env.pop(name, None)
    if library:
        env["CUDALOAD_LIBRARY"] = library
    else:
        env.pop("CUDALOAD_LIBRARY", None)
    if not installed_mode():
        env["PYTHONPATH"] = BINDINGS + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra or {})
    return env


class Runner:
    """Runs Python code in a fresh interpreter with one backend."""

    def __init__(self, backend: str, library: str) -> None:
        self.backend = backend
        self.library = library

    def __call__(self, code: str, extra_env: Optional[Dict[str, str]] = None,
                 python: Optional[str] = None, expect_ok: bool = True,
                 timeout: float = 120) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [python or sys.executable, "-c", textwrap.dedent(code)],
            env=child_env(self.backend, self.library, extra_env),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
            timeout=timeout)
        if expect_ok and result.returncode != 0:
            pytest.fail("child (%s backend) exited %d\n--- stdout\n%s\n--- stderr\n%s"
                        % (self.backend, result.returncode, result.stdout, result.stderr))
        return result

    def module(self, args: list, extra_env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        """python -m cudaload ARGS."""
        return subprocess.run([sys.executable, "-m", "cudaload"] + args,
                              env=child_env(self.backend, self.library, extra_env),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=120)


def make_venv(path, pip: bool = True) -> str:
    """A new venv at ``path`` that sees the packages this interpreter has
    (cffi, scikit-build-core, ...), whether or not this interpreter is
    itself a venv's; returns its python. ``--system-site-packages`` alone
    reaches the base interpreter's packages only, so from inside a venv (as
    scripts/test runs, PEP 668 forbidding pip in the system's Python) the
    new one could not import them: a .pth file adds this interpreter's site
    folders after the new venv's own."""
    import site
    args = [sys.executable, "-m", "venv", "--system-site-packages"]
    subprocess.run(args + ([] if pip else ["--without-pip"]) + [str(path)], check=True)
    python = os.path.join(str(path), "Scripts", "python.exe") if os.name == "nt" \
        else os.path.join(str(path), "bin", "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    folders = site.getsitepackages() + [site.getusersitepackages()]
    with open(os.path.join(purelib, "_cudaload_tests_outer_site.pth"), "w") as pth:
        pth.write("".join(f + "\n" for f in folders if os.path.isdir(f)))
    return python


@pytest.fixture
def run(backend: str, library: str) -> Runner:
    return Runner(backend, library)
