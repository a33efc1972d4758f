# SPDX-License-Identifier: MIT
"""Paths and loading as a Windows Python meets them (issue 29, items 1 and
7; issue 27, item 2), against the DLL fixture trees. The Windows Python
tier (scripts/test-windows-python) runs them in the official embeddable
CPython under Wine; on Linux only the platform-neutral ones run, and the
rest skip saying so. Every scenario that loads runs in a fresh
interpreter, with each backend."""

import json
import os
import re
import shutil
import sys

import pytest

WINDOWS = os.name == "nt"
windows_only = pytest.mark.skipif(not WINDOWS, reason="Windows paths and the Windows loader: "
                                  "the Windows Python tier runs these")

CUDNN8_DLLS = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
               "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
               "cudnn_adv_train64_8.dll"]


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def windows_fixture(fixtures, *parts):
    path = os.path.join(fixtures, *parts)
    if not os.path.exists(path):
        pytest.skip("%s was not built (the DLL fixtures need mingw-w64)" % path)
    return path


def test_a_file_given_as_a_root_is_refused(run, tmp_path):
    """A file is no root: searched as one it gave 0 libraries and no word.
    setup() now refuses it before loading anything, naming its folder."""
    a_file = tmp_path / "cudnn64_8.dll"
    a_file.write_bytes(b"not a folder")
    out = last_json(run("""
        import json, cudaload
        try:
            cudaload.setup(require=["cudnn=8"], roots=[%r], defaults=False, site_packages=False)
            print(json.dumps({"raised": None}))
        except cudaload.Error as exc:
            print(json.dumps({"raised": type(exc).__name__, "message": str(exc)}))
        """ % str(a_file)))
    assert out["raised"] == "NotFoundError", out
    assert "is a file, not a folder" in out["message"]
    assert str(tmp_path) in out["message"]


@windows_only
def test_a_quoted_root_is_the_folder_inside_the_quotes(run, fixtures):
    """Explorer's "Copy as path" gives "C:\\...\\bin" with its quotes: one
    pair is taken off, not joined to the current folder."""
    folder = windows_fixture(fixtures, "preload", "windows", "cudnn8")
    out = last_json(run("""
        import json, cudaload
        report = cudaload.scan(roots=[%r], defaults=False, site_packages=False)
        print(json.dumps({"roots": [r.path for r in report.roots],
                          "cudnn": [l.path for l in report.libraries if l.name == "cudnn"]}))
        """ % ('"%s"' % folder)))
    assert out["roots"] == [folder]
    assert out["cudnn"] == [os.path.join(folder, "cudnn64_8.dll")]


@windows_only
def test_windows_paths_use_backslashes_throughout(run, fixtures, tmp_path):
    """A root given with '/' and the folders found under a venv's
    Lib\\site-packages are shown with '\\' only."""
    source = windows_fixture(fixtures, "preload", "windows", "cudnn8")
    venv = tmp_path / "envs" / "A"
    bin_dir = venv / "Lib" / "site-packages" / "nvidia" / "cudnn" / "bin"
    bin_dir.mkdir(parents=True)
    for name in CUDNN8_DLLS:
        shutil.copy(os.path.join(source, name), str(bin_dir / name))
    out = last_json(run("""
        import json, cudaload
        report = cudaload.scan(roots=[%r], defaults=False, site_packages=False)
        print(json.dumps({"roots": [r.path for r in report.roots],
                          "paths": [l.path for l in report.libraries]}))
        """ % str(venv).replace("\\", "/")))
    assert out["roots"] == [str(venv)]
    assert out["paths"] and all("/" not in p for p in out["paths"]), out["paths"]
    assert str(bin_dir / "cudnn64_8.dll") in out["paths"]


@windows_only
def test_setup_then_a_consumer_loads_cudnn8(run, fixtures):
    """The basic case: setup() preloads cuDNN 8; a DLL linked against
    cudnn64_8.dll by name loads, and cuDNN's own LoadLibraryA of its
    sub-library works."""
    folder = windows_fixture(fixtures, "preload", "windows", "cudnn8")
    consumer = windows_fixture(fixtures, "preload", "windows", "consumers", "consumer_cudnn8.dll")
    out = last_json(run("""
        import ctypes, json, cudaload
        report = cudaload.setup(require=["cudnn=8"], roots=[%r], defaults=False, site_packages=False)
        lib = ctypes.CDLL(%r)
        print(json.dumps({"ok": report.ok, "version": lib.consumer_cudnn_version(),
                          "create": lib.consumer_cudnn_create()}))
        """ % (folder, consumer)))
    assert out == {"ok": True, "version": 8907, "create": 0}


@windows_only
def test_a_root_whose_name_holds_a_semicolon_is_no_silent_success(run, fixtures, tmp_path):
    """Issue 29, item 1: PATH cannot take a folder named "semi;colon". setup()
    returned with no error and no warning, and cuDNN then could not find its
    sub-library. Now what is opened from that folder by name is preloaded
    by absolute path, a CudaloadWarning names the folder, and it works."""
    source = windows_fixture(fixtures, "preload", "windows", "cudnn8")
    consumer = windows_fixture(fixtures, "preload", "windows", "consumers", "consumer_cudnn8.dll")
    folder = tmp_path / "semi;colon"
    folder.mkdir()
    for name in CUDNN8_DLLS:
        shutil.copy(os.path.join(source, name), str(folder / name))
    out = last_json(run("""
        import ctypes, json, os, warnings, cudaload
        path_before = os.environ["PATH"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = cudaload.setup(require=["cudnn=8"], roots=[%r], defaults=False,
                                    site_packages=False)
        lib = ctypes.CDLL(%r)
        print(json.dumps({"ok": report.ok, "warnings": [str(w.message) for w in caught],
                          "states": {e.name: e.state for e in report.plan},
                          "create": lib.consumer_cudnn_create(),
                          "path_kept": os.environ["PATH"] == path_before}))
        """ % (str(folder), consumer)))
    assert out["ok"]
    assert out["create"] == 0, "cuDNN could not load its sub-library from the ';' folder"
    assert out["states"]["cudnn_ops_infer"] == "loaded", out["states"]
    warned = [w for w in out["warnings"] if str(folder) in w]
    assert warned and "could not be put on PATH" in warned[0] and "all_sublibs=True" in warned[0], \
        out["warnings"]


@windows_only
def test_the_long_path_warning_names_all_sublibs(run, fixtures):
    """Issue 29, item 7: with PATH at Windows' limit the planned folder
    cannot go in front; the warning names Python's all_sublibs=True (and
    what was preloaded instead), not only the C flag."""
    folder = windows_fixture(fixtures, "preload", "windows", "cudnn8")
    consumer = windows_fixture(fixtures, "preload", "windows", "consumers", "consumer_cudnn8.dll")
    out = last_json(run("""
        import ctypes, json, os, warnings, cudaload
        # Within 8 characters of the longest PATH cudaload writes (32761,
        # CL_PATH_VALUE_MAX in loader_win32.c): no folder fits in front, however
        # short the checkout's path (at [:32700] a short work folder fitted,
        # and the test passed or failed by where it ran).
        long_path = ";".join("C:\\\\entry-%%06d" %% n for n in range(2800))[:32754]
        os.environ["PATH"] = long_path
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = cudaload.setup(require=["cudnn=8"], roots=[%r], defaults=False,
                                    site_packages=False)
        lib = ctypes.CDLL(%r)
        print(json.dumps({"ok": report.ok, "warnings": [str(w.message) for w in caught],
                          "create": lib.consumer_cudnn_create()}))
        """ % (folder, consumer)))
    assert out["ok"] and out["create"] == 0
    assert any("PATH was left as it is" in w and "all_sublibs=True" in w for w in out["warnings"]), \
        out["warnings"]


@windows_only
def test_a_missing_library_names_this_interpreters_pip(run, fixtures):
    """Issue 27 item 2 and 29 item 7: the fix line for a library this
    interpreter lacks is its own pip ("<python.exe>" -m pip install ...,
    or, without pip, py -m pip install --target <its site-packages>), and
    does not ask to pass its own site-packages as a root."""
    folder = windows_fixture(fixtures, "preload", "windows", "cudnn8")
    out = last_json(run("""
        import importlib.util, json, os, sys, cudaload
        report = cudaload.setup(require=["cudnn=8", "cufft=11"], roots=[%r], check=False)
        fixes = [l.split("; fix: ", 1)[1] for l in (report.error or "").splitlines() if "; fix: " in l]
        print(json.dumps({"ok": report.ok, "fixes": fixes, "python": sys.executable,
                          "has_pip": importlib.util.find_spec("pip") is not None,
                          "site": os.path.join(sys.prefix, "Lib", "site-packages")}))
        """ % folder))
    assert not out["ok"]
    cufft = [f for f in out["fixes"] if "cufft" in f]
    assert cufft, out
    # Its own pip; the embeddable distribution has none (nor ensurepip):
    # then the launcher's, into its site folder, where one is installed,
    # else get-pip.py first, then its own (issue 45, item 4).
    # Each path one word for cmd and PowerShell: as it is when it holds
    # nothing either shell acts on, else in double quotes.
    def word(w):
        return w if re.fullmatch(r"[A-Za-z0-9_+=:./\\-]+", w) else '"%s"' % w
    launcher = shutil.which("py.exe") or os.path.isfile(os.path.join(
        os.environ.get("LOCALAPPDATA", ""), "Programs", "Python", "Launcher", "py.exe"))
    if out["has_pip"]:
        want = '%s -m pip install nvidia-cufft-cu12' % word(out["python"])
    elif launcher:
        want = 'py -m pip install --target %s nvidia-cufft-cu12' % word(out["site"])
    else:
        # The fix's steps in order: the download, get-pip.py run by this
        # interpreter, then its own pip.
        want = "curl.exe -sSLo get-pip.py https://bootstrap.pypa.io/get-pip.py"
        run_get_pip = "%s get-pip.py" % word(out["python"])
        install = '%s -m pip install nvidia-cufft-cu12' % word(out["python"])
        assert run_get_pip in cufft[0] and install in cufft[0], cufft[0]
        assert cufft[0].index(run_get_pip) < cufft[0].index(install), cufft[0]
    assert cufft[0].startswith(want), cufft[0]
    assert "pass its site-packages folder as a root" not in cufft[0]
    assert "apt" not in " ".join(out["fixes"]).split()
