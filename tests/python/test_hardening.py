# SPDX-License-Identifier: MIT
"""Issue 12 (hardening, second round), the Python side: arguments of the
wrong type or with a NUL character are refused, naming the argument
(item 12); the library lookup never hands a FIFO to the OS loader (item 4)
and refuses a file that is not libcudaload of this package's major
(item 12); folder names that are not UTF-8 come back as the exact bytes,
from the API and from ``python -m cudaload`` (item 8). Every scenario runs
in a fresh interpreter, with each backend."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BINDINGS, child_env, installed_mode

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture libraries are ELF files (Linux)")

# A child that could hang (a FIFO handed to dlopen) is killed after this
# many seconds, and the test fails instead of stalling the suite.
HANG_TIMEOUT = 30


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_bounded(run, code, **kwargs):
    """run(code), failing the test (not stalling it) if the child hangs."""
    try:
        return run(code, timeout=HANG_TIMEOUT, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail("the child (%s backend) still ran after %d s: it hangs"
                    % (run.backend, HANG_TIMEOUT))


# --------------------------------------------------------------------------
# Item 12: bad arguments x entry points
# --------------------------------------------------------------------------

# (call, expected exception, fragment of its message). The calls run in
# one child, in this order, with F the fixture folder and ROOT a root that
# exists. "InvalidArgumentError" is also a ValueError (checked below).
BAD_ARGUMENTS = [
    # require: str or an iterable of str; never bytes; no NUL
    ('cudaload.setup(require="cudnn=9\\x00,cublas=99", roots=[ROOT], defaults=False, site_packages=False)',
     "InvalidArgumentError", "require: embedded NUL character"),
    ('cudaload.setup(require=b"cudnn", roots=[ROOT], defaults=False, site_packages=False)',
     "TypeError", "require: expected a str or an iterable of str, got bytes"),
    ('cudaload.setup(require=[None], roots=[ROOT], defaults=False, site_packages=False)',
     "TypeError", "require[0]: expected a str, got NoneType"),
    ('cudaload.setup(require=[b"cudnn=9"], roots=[ROOT], defaults=False, site_packages=False)',
     "TypeError", "require[0]: expected a str, got bytes"),
    ('cudaload.setup(require=["cudnn=8", "cublas=12\\x00x"], roots=[ROOT], defaults=False, site_packages=False)',
     "InvalidArgumentError", "require[1]: embedded NUL character"),
    ('cudaload.setup(require=8, roots=[ROOT], defaults=False, site_packages=False)',
     "TypeError", "require: expected a str or an iterable of str, got int"),
    ('cudaload.preload(bytearray(b"cudnn=8"), roots=[ROOT], defaults=False, site_packages=False)',
     "TypeError", "require: expected a str or an iterable of str, got bytearray"),
    ('cudaload.probe(require=[1], defaults=False, site_packages=False)',
     "TypeError", "require[0]: expected a str, got int"),
    ('cudaload.doctor(require="cudnn=8\\x00", defaults=False, site_packages=False)',
     "InvalidArgumentError", "require: embedded NUL character"),
    ('cudaload.env_prepend([b"cudnn=8"], roots=[ROOT], defaults=False, site_packages=False)',
     "TypeError", "require[0]: expected a str, got bytes"),
    ('cudaload.Context(defaults=False, site_packages=False).require(b"cudnn=8")',
     "TypeError", "require: expected a str or an iterable of str, got bytes"),
    # roots / site_packages: a list of str, bytes or os.PathLike; no NUL
    ('cudaload.setup(require=["cudnn=8"], roots="/usr/local/cuda", defaults=False, site_packages=False)',
     "TypeError", "roots: expected a list of paths, got a single str (write roots=["),
    ('cudaload.scan(roots=b"/usr/local/cuda", defaults=False, site_packages=False)',
     "TypeError", "roots: expected a list of paths, got a single bytes"),
    ('cudaload.scan(roots=pathlib.Path("/usr/local/cuda"), defaults=False, site_packages=False)',
     "TypeError", "roots: expected a list of paths, got a single PosixPath"),
    ('cudaload.setup(require=["cudnn=8"], roots=[ROOT, "/usr/local/cuda\\x00/evil"], defaults=False, site_packages=False)',
     "InvalidArgumentError", "roots[1]: embedded NUL character"),
    ('cudaload.scan(roots=[b"/usr/local/cuda\\x00/evil"], defaults=False, site_packages=False)',
     "InvalidArgumentError", "roots[0]: embedded NUL character"),
    ('cudaload.scan(roots=[None], defaults=False, site_packages=False)',
     "TypeError", "roots[0]: expected a str, bytes or os.PathLike path, got NoneType"),
    ('cudaload.scan(roots=5, defaults=False, site_packages=False)',
     "TypeError", "roots: expected an iterable of str, bytes or os.PathLike paths, got int"),
    ('cudaload.preload(["cudnn=8"], roots=[ROOT, 3], defaults=False, site_packages=False)',
     "TypeError", "roots[1]: expected a str, bytes or os.PathLike path, got int"),
    ('cudaload.probe(roots="/opt", defaults=False, site_packages=False)',
     "TypeError", "roots: expected a list of paths, got a single str"),
    ('cudaload.doctor(roots=[Folder("/opt\\x00x")], defaults=False, site_packages=False)',
     "InvalidArgumentError", "roots[0]: embedded NUL character"),
    ('cudaload.env_prepend(["cudnn=8"], roots=ROOT, defaults=False, site_packages=False)',
     "TypeError", "roots: expected a list of paths, got a single str"),
    ('cudaload.scan(roots=[ROOT], site_packages="/x")',
     "TypeError", "site_packages: expected a list of paths, got a single str"),
    ('cudaload.scan(roots=[ROOT], site_packages=[ROOT, b"/x\\x00"])',
     "InvalidArgumentError", "site_packages[1]: embedded NUL character"),
    ('cudaload.Context(roots="/usr/local/cuda", defaults=False, site_packages=False)',
     "TypeError", "roots: expected a list of paths, got a single str"),
    ('cudaload.Context(roots=[ROOT], defaults=False, site_packages=False, target=1)',
     "TypeError", "target: expected a str, got int"),
    # single paths: str, bytes or os.PathLike; no NUL
    ('cudaload.Context(defaults=False, site_packages=False).add_root(None)',
     "TypeError", "folder: expected a str, bytes or os.PathLike path, got NoneType"),
    ('cudaload.Context(defaults=False, site_packages=False).add_root("/opt/cuda\\x00/evil")',
     "InvalidArgumentError", "folder: embedded NUL character"),
    ('cudaload.Context(defaults=False, site_packages=False).add_root(ROOT, origin=b"explicit")',
     "TypeError", "origin: expected a str, got bytes"),
    ('cudaload.Context(defaults=False, site_packages=False).set_driver(b"/x/libcuda.so.1\\x00")',
     "InvalidArgumentError", "driver: embedded NUL character"),
    ('cudaload.probe(driver=1, defaults=False, site_packages=False)',
     "TypeError", "driver: expected a str, bytes or os.PathLike path, got int"),
    ('cudaload.Context(defaults=False, site_packages=False).load_manifest("/x/cudaload.yaml\\x00")',
     "InvalidArgumentError", "manifest: embedded NUL character"),
    ('cudaload.Context(defaults=False, site_packages=False).load_manifest(["/x"])',
     "TypeError", "manifest: expected a str, bytes or os.PathLike path, got list"),
    ('cudaload.Context(defaults=False, site_packages=False).env_compose("/a\\x00/b")',
     "InvalidArgumentError", "current: embedded NUL character"),
    ('cudaload.Context(defaults=False, site_packages=False).env_compose(b"/a")',
     "TypeError", "current: expected a str, got bytes"),
    ('cudaload.Context(defaults=False, site_packages=False).doctor(format=["json"])',
     "TypeError", "format: expected a str, got list"),
    ('cudaload.inspect(None)',
     "TypeError", "path: expected a str, bytes or os.PathLike path, got NoneType"),
    ('cudaload.inspect(ROOT + "/libcudnn.so.8\\x00.txt")',
     "InvalidArgumentError", "path: embedded NUL character"),
    ('cudaload.isolated_open(ROOT.encode() + b"/libcudnn.so.8\\x00x")',
     "InvalidArgumentError", "path: embedded NUL character"),
    ('cudaload.isolated_open(5)',
     "TypeError", "path: expected a str, bytes or os.PathLike path, got int"),
    ('cudaload.symbol_provider("libc.so.6", "malloc")',
     "TypeError", "library: expected a ctypes.CDLL or a dlopen handle (int), got str"),
    ('cudaload.symbol_provider(ctypes.CDLL(None), b"malloc")',
     "TypeError", "symbol: expected a str, got bytes"),
    ('cudaload.symbol_provider(ctypes.CDLL(None), "malloc\\x00free")',
     "InvalidArgumentError", "symbol: embedded NUL character"),
    ('cudaload.use_backend(b"ctypes")',
     "TypeError", "name: expected a str, got bytes"),
    ('cudaload.use_backend(BACKEND, "/x/libcudaload.so.1\\x00")',
     "InvalidArgumentError", "path: embedded NUL character"),
    ('cudaload.use_backend(BACKEND, 1)',
     "TypeError", "path: expected a str, bytes or os.PathLike path, got int"),
]

BAD_ARGUMENTS_CHILD = """
import ctypes, json, os, pathlib, cudaload
F = %r
ROOT = os.path.join(F, "preload", "cudnn8")
ROOT9 = os.path.join(F, "preload", "cudnn9")
BACKEND = cudaload.backend()

class Folder:
    def __init__(self, path):
        self.path = path
    def __fspath__(self):
        return self.path

def mapped():
    with open("/proc/self/maps") as maps:
        return sorted({line.split()[-1] for line in maps if "libcudnn" in line})

out = []
for call in %r:
    try:
        eval(call)
        out.append([call, None, "no error", False])
    except Exception as exc:
        out.append([call, type(exc).__name__, str(exc), isinstance(exc, ValueError)])
good = {}
# What stays accepted: one str for require= (one spec, or several joined
# with commas), any iterable of paths, bytes and os.PathLike paths.
with cudaload.Context(roots=iter([ROOT.encode()]), defaults=False, site_packages=False) as ctx:
    good["requirements"] = ctx.require("cudnn=8,cublas=12").require(("cudnn>=8",)).requirements()
    good["roots"] = [r.path for r in ctx.scan().roots()]
good["scan"] = [r.path for r in cudaload.scan(roots=(p for p in [pathlib.Path(ROOT)]),
                                              site_packages=[Folder(ROOT9.encode())],
                                              defaults=False).roots]
good["mapped"] = mapped()
print(json.dumps({"results": out, "good": good, "root": ROOT, "root9": ROOT9}))
"""


def test_bad_arguments_are_refused_naming_the_argument(run, fixtures):
    calls = [row[0] for row in BAD_ARGUMENTS]
    out = last_json(run(BAD_ARGUMENTS_CHILD % (fixtures, calls)))
    wrong = []
    for (call, kind, fragment), (_, got_kind, message, is_value_error) in zip(BAD_ARGUMENTS, out["results"]):
        if got_kind != kind or fragment not in message:
            wrong.append("%s\n    expected %s containing %r\n    got      %s: %s"
                         % (call, kind, fragment, got_kind, message))
        elif kind == "InvalidArgumentError" and not is_value_error:
            wrong.append("%s: InvalidArgumentError is not a ValueError" % call)
    assert not wrong, "%d of %d bad arguments not refused as expected (%s backend):\n%s" % (
        len(wrong), len(BAD_ARGUMENTS), run.backend, "\n".join(wrong))
    good = out["good"]
    assert good["requirements"] == ["cudnn=8", "cublas=12", "cudnn>=8"], good
    assert good["roots"] == [out["root"]] and good["scan"] == [out["root"], out["root9"]], good
    assert good["mapped"] == [], "a refused call loaded %s" % good["mapped"]


def test_setup_reads_iterators_once_for_the_preload_and_the_probe(run, fixtures):
    """setup(probe=True) makes a second context for the probe: an iterator
    given as require= or roots= must not be empty the second time."""
    out = last_json(run("""
        import json, os, cudaload
        F = %r
        report = cudaload.setup(require=iter(["cudnn=8"]), roots=iter([F + "/preload/cudnn8"]),
                                defaults=False, site_packages=False, probe=True)
        cudnn = [s for s in report.probe.stages if s.name == "cudnn"][0]
        print(json.dumps({"requirements": report.requirements,
                          "cudnn_stage": [cudnn.status, cudnn.message]}))
        """ % fixtures, extra_env={"CUDALOAD_DRIVER": os.path.join(
            fixtures, "fake_cuda", "driver", "libcuda.so.1")}))
    assert out["requirements"] == ["cudnn=8"]
    # The fake driver works, so the probe reaches the cuDNN stage: with the
    # requirement (and the root) it tries the fixture cuDNN 8 (which lacks
    # the functions a real one has); without, it says "not required".
    status, message = out["cudnn_stage"]
    assert status != "skipped" and os.path.join(fixtures, "preload", "cudnn8") in message, \
        out["cudnn_stage"]


def test_probe_devices_say_how_they_run(run, fixtures):
    """Issue 17: the device facts (driver model, display watchdog, compute
    mode, integrated, free memory) reach Python's Device, with the library's
    names for the values."""
    out = last_json(run("""
        import json, cudaload
        probe = cudaload.probe(defaults=False, site_packages=False)
        d = probe.devices[0]
        print(json.dumps([d.driver_model, d.kernel_timeout, d.compute_mode, d.integrated,
                          d.free_memory_mib]))
        """, extra_env={"CUDALOAD_DRIVER": os.path.join(fixtures, "fake_cuda", "driver", "libcuda.so.1"),
                        "FAKE_CUDA_KERNEL_TIMEOUT": "1", "FAKE_CUDA_COMPUTE_MODE": "2",
                        "FAKE_CUDA_INTEGRATED": "0"}))
    # Prohibited: the context is refused, so free memory was not measured.
    assert out == ["not_applicable", True, "prohibited", False, None], out


def test_expected_major_is_the_package_version_major():
    """_library.EXPECTED_MAJOR is a copy (import cudaload must not import
    _version): it must say what _version.py says."""
    sys.path.insert(0, BINDINGS)
    try:
        source = open(os.path.join(BINDINGS, "cudaload", "_library.py")).read()
        version = {}
        exec(open(os.path.join(BINDINGS, "cudaload", "_version.py")).read(), version)
    finally:
        sys.path.remove(BINDINGS)
    assert "EXPECTED_MAJOR = %d\n" % int(version["__version__"].split(".")[0]) in source


# --------------------------------------------------------------------------
# Items 4 and 12: what the library lookup opens
# --------------------------------------------------------------------------

IMPORT_CHILD = """
import json, warnings
res = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        import cudaload
        res["library"] = cudaload.library_path()
        res["calls"] = len(cudaload.scan(defaults=False, site_packages=False).roots) >= 0
    except ImportError as exc:
        res["error"] = str(exc)
    except Exception as exc:
        res["other"] = "%s: %s" % (type(exc).__name__, exc)
    res["warnings"] = [str(w.message) for w in caught]
print(json.dumps(res))
"""


def _package_copy_exists():
    """Whether cudaload/_lib holds a library (an installed wheel): the
    lookup then falls back to it, with a warning, when CUDALOAD_LIBRARY is
    not usable."""
    if not installed_mode():
        return False
    result = subprocess.run([sys.executable, "-c", "import os, cudaload._library as L; "
                             "print(any(os.path.isfile(p) for w, p in L.library_candidates() "
                             "if w == 'inside the package'))"],
                            env=child_env("ctypes", None), stdout=subprocess.PIPE,
                            universal_newlines=True, timeout=HANG_TIMEOUT)
    return result.stdout.strip() == "True"


def _refused(out, *fragments):
    """The import refused CUDALOAD_LIBRARY, saying ``fragments``: an
    ImportError, or (an installed wheel) a warning and the package's copy."""
    if "error" in out:
        text = out["error"]
    else:
        assert _package_copy_exists(), "import cudaload used the file: %s" % out
        assert out.get("calls") and len(out["warnings"]) == 1, out
        text = out["warnings"][0]
    for fragment in fragments:
        assert fragment in text, "%r not in:\n%s" % (fragment, text)


def test_import_with_a_fifo_as_library_does_not_hang(run, tmp_path):
    fifo = str(tmp_path / "libcudaload.so.1")
    os.mkfifo(fifo)
    out = last_json(run_bounded(run, IMPORT_CHILD, extra_env={"CUDALOAD_LIBRARY": fifo}))
    _refused(out, "CUDALOAD_LIBRARY: %s: not a regular file (a FIFO)" % fifo)
    # A symbolic link to it, a folder and a character device: not opened
    # either, and each said for what it is.
    link = str(tmp_path / "link.so")
    os.symlink(fifo, link)
    for path, kind in ((link, "a FIFO"), (str(tmp_path), "a directory"),
                       ("/dev/null", "a character device")):
        out = last_json(run_bounded(run, IMPORT_CHILD, extra_env={"CUDALOAD_LIBRARY": path}))
        _refused(out, "%s: not a regular file (%s)" % (path, kind))


def test_use_backend_with_a_fifo_raises_import_error(run, library, tmp_path):
    fifo = str(tmp_path / "fifo.so")
    os.mkfifo(fifo)
    out = last_json(run_bounded(run, """
        import json, cudaload
        try:
            cudaload.use_backend(cudaload.backend(), %r)
            print(json.dumps("no error"))
        except ImportError as exc:
            print(json.dumps(str(exc)))
        """ % fifo))
    assert "the path given: %s: not a regular file (a FIFO)" % fifo in out, out


def test_fifo_on_ld_library_path_is_not_opened(run, tmp_path):
    """With no CUDALOAD_LIBRARY and no copy in the package, the lookup asks
    the loader for libcudaload.so.1 by name: a FIFO of that name on
    LD_LIBRARY_PATH would block it."""
    if _package_copy_exists():
        pytest.skip("the installed package has its own library, which is used first")
    folder = tmp_path / "planted"
    folder.mkdir()
    os.mkfifo(str(folder / "libcudaload.so.1"))
    env = child_env(run.backend, None, {"LD_LIBRARY_PATH": "/nonexistent:%s" % folder})
    try:
        result = subprocess.run([sys.executable, "-c", IMPORT_CHILD], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, universal_newlines=True, timeout=HANG_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail("import cudaload hung on the FIFO on LD_LIBRARY_PATH")
    out = last_json(result)
    assert "%s: not a regular file (a FIFO)" % (folder / "libcudaload.so.1") in out.get("error", ""), out


def test_library_that_is_not_libcudaload_is_an_import_error(run):
    out = last_json(run_bounded(run, IMPORT_CHILD, extra_env={"CUDALOAD_LIBRARY": "libm.so.6"}))
    assert "other" not in out, "the file was used, and failed later: %s" % out["other"]
    _refused(out, "CUDALOAD_LIBRARY: libm.so.6: a shared library, but not libcudaload",
             "exports no cudaload_version_number", "expected libcudaload 0.x")


def test_libcudaload_of_another_major_is_an_import_error(run, tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        pytest.skip("no C compiler to build a libcudaload 7.0.1 stand-in")
    source = tmp_path / "fake.c"
    source.write_text('unsigned cudaload_version_number(void) { return 70001; }\n'
                      'const char *cudaload_version_string(void) { return "7.0.1"; }\n')
    fake = str(tmp_path / "libcudaload.so.1")
    subprocess.run([compiler, "-shared", "-fPIC", "-o", fake, str(source)], check=True)
    out = last_json(run_bounded(run, IMPORT_CHILD, extra_env={"CUDALOAD_LIBRARY": fake}))
    _refused(out, "CUDALOAD_LIBRARY: %s: libcudaload 7.0.1 (major 7), but this cudaload "
                  "package needs libcudaload 0.x" % fake)


# --------------------------------------------------------------------------
# Item 8: folder names that are not UTF-8
# --------------------------------------------------------------------------

NOT_UTF8 = b"caf\xe9"              # Latin-1 "café": not UTF-8
UTF8 = "café".encode("utf-8")       # valid UTF-8, not ASCII


def _fixture_copy(fixtures, tmp_path, name):
    """tmp_path/NAME (bytes) holding a copy of the cuDNN 8 fixture files;
    skips where the file system refuses the name."""
    folder = os.path.join(os.fsencode(str(tmp_path)), name)
    try:
        os.mkdir(folder)
    except (OSError, UnicodeError) as exc:
        pytest.skip("this file system refuses the name %r: %s" % (name, exc))
    source = os.path.join(fixtures, "preload", "cudnn8")
    for entry in sorted(os.listdir(source)):
        shutil.copy2(os.path.join(source, entry), os.path.join(folder, os.fsencode(entry)))
    return folder


ROUND_TRIP_CHILD = """
import ctypes, json, os, pathlib, cudaload
FOLDER = bytes.fromhex(%r)
FILES = sorted(os.path.join(FOLDER, name) for name in os.listdir(FOLDER))
res = {}

def same(paths):
    # Each path a str that os.fsencode() turns into an original file's bytes.
    return [isinstance(p, str) and os.fsencode(p) in FILES and os.path.isfile(p) for p in paths]

for form, root in (("bytes", FOLDER), ("str", os.fsdecode(FOLDER)),
                   ("pathlib", pathlib.Path(os.fsdecode(FOLDER)))):
    report = cudaload.scan(roots=[root], defaults=False, site_packages=False)
    res["scan " + form] = [os.fsencode(report.roots[0].path) == FOLDER, report.roots[0].status,
                           sorted(os.fsencode(l.path) for l in report.libraries) == FILES,
                           same([l.path for l in report.libraries])]
report = cudaload.setup(require=["cudnn=8"], roots=[FOLDER], defaults=False, site_packages=False)
res["setup"] = [report.ok, same([e.path for e in report.plan]),
                same([e.loaded_path for e in report.loaded])]
with open("/proc/self/maps", "rb") as maps:
    mapped = {line.split()[-1] for line in maps if b"libcudnn" in line}
# What the loader mapped: the files of the folder, by their own bytes.
res["mapped"] = bool(mapped) and mapped == {os.fsencode(e.loaded_path) for e in report.loaded} \\
    and mapped <= set(FILES)
main = os.path.join(FOLDER, b"libcudnn.so.8")
info = cudaload.inspect(main)
res["inspect"] = [same([info.path]), os.fsencode(info.path) == main, info.soname,
                  cudaload.inspect(os.fsdecode(main)).path == info.path]
handle = cudaload.isolated_open(main)
res["isolated"] = [handle._name == os.fsdecode(main),
                   same([cudaload.symbol_provider(handle, "cudnnGetVersion")])]
doc = cudaload.doctor(require=["cudnn=8"], roots=[FOLDER], defaults=False, site_packages=False, format="json").to_dict()
res["doctor"] = [os.fsencode(doc["roots"][0]["path"]) == FOLDER]
# Text for people shows a byte that is not UTF-8 as \\xNN, as the tool does.
shown = FOLDER.decode("utf-8", "backslashreplace")
res["text"] = [shown in str(report),
               shown in cudaload.scan(roots=[FOLDER], defaults=False, site_packages=False).table()]
print(json.dumps(res))
"""


@pytest.mark.parametrize("name", [NOT_UTF8, UTF8], ids=["not-utf8", "utf8"])
def test_non_utf8_folder_round_trips_through_the_api(run, fixtures, tmp_path, name):
    folder = _fixture_copy(fixtures, tmp_path, name)
    out = last_json(run(ROUND_TRIP_CHILD % folder.hex()))
    for form in ("bytes", "str", "pathlib"):
        same_root, status, same_files, each = out["scan " + form]
        assert same_root and status == "ok" and same_files and each and all(each), (form, out)
    ok, planned, loaded = out["setup"]
    assert ok and planned and all(planned) and loaded and all(loaded), out["setup"]
    assert out["mapped"], "the loaded files are not the ones in the folder"
    assert out["inspect"] == [[True], True, "libcudnn.so.8", True], out["inspect"]
    assert out["isolated"] == [True, [True]], out["isolated"]
    assert out["doctor"] == [True] and out["text"] == [True, True], out


def _module_cli(backend, library, args):
    """python -m cudaload ARGS under a strict UTF-8 standard output (as under
    an en_US.UTF-8 locale), as bytes."""
    env = child_env(backend, library, {"PYTHONIOENCODING": "utf-8"})
    return subprocess.run([sys.executable, "-m", "cudaload"] + args, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


def _tool(args):
    cli = os.environ.get("CUDALOAD_CLI", "")
    if not cli or not os.path.isfile(cli):
        return None
    return subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


def _scan_args(folder, fmt):
    return ["scan", "--no-defaults", "--root", os.fsdecode(folder), "--format", fmt]


@pytest.mark.parametrize("fmt", ["text", "json", "yaml"])
def test_module_cli_scan_keeps_names_exact(backend, library, fixtures, tmp_path, fmt):
    """python -m cudaload scan, for a folder whose name is not UTF-8 and one
    whose name is UTF-8 but not ASCII: valid output that gives back the
    exact bytes, written as the C tool writes it."""
    for name in (NOT_UTF8, UTF8):
        folder = _fixture_copy(fixtures, tmp_path, name)
        files = sorted(os.path.join(folder, entry) for entry in os.listdir(folder))
        result = _module_cli(backend, library, _scan_args(folder, fmt))
        assert result.returncode == 0, (name, result.stderr.decode("utf-8", "replace"))
        if fmt == "text":
            # As the tool prints it: UTF-8 as it is, a byte that is not
            # UTF-8 as \\xNN (never raw: text is for terminals).
            shown = [f.decode("utf-8", "backslashreplace").encode("utf-8") for f in files]
            assert all(f in result.stdout for f in shown), (name, result.stdout)
            result.stdout.decode("utf-8")
            report = None
        elif fmt == "json":
            report = json.loads(result.stdout.decode("utf-8"))   # valid UTF-8, valid JSON
        else:
            yaml = pytest.importorskip("yaml")
            report = yaml.safe_load(result.stdout.decode("utf-8"))
        if report is not None:
            assert os.fsencode(report["roots"][0]["path"]) == folder, (name, report)
            assert sorted(os.fsencode(entry["path"]) for entry in report["libraries"]) == files
        if name == NOT_UTF8:
            # Each byte that is not UTF-8 is written as an escape: \\udcXX in
            # JSON, \\uDCXX in YAML (libyaml's case), \\xNN in text.
            escape = {"text": b"caf\\xe9", "json": b"caf\\udce9", "yaml": b"caf\\uDCE9"}[fmt]
            assert escape in result.stdout and b"\xe9" not in result.stdout, result.stdout
        theirs = _tool(_scan_args(folder, fmt))
        if theirs is None or name == NOT_UTF8:
            # No tool, or a name that is not UTF-8, which the tool writes
            # the same way only with issue 12 items 2 and 8's C side:
            # test_module_cli_matches_the_tool_on_non_utf8_names.
            continue
        assert result.stdout == theirs.stdout, name


# Folder names that are bytes, not text: control characters (a terminal
# would obey ESC, CR), line breaks (YAML folds them), quotes, C1 controls,
# characters beyond the BMP, and bytes that are not UTF-8.
HOSTILE_NAMES = [NOT_UTF8, b"caf\xe9\xff", b"\xed\xa0\x80surrogate", b"esc\x1b[31mred",
                 b"tab\tx", b"cr\rx", b"nl\nx", b"nl2\n\nx", b"trailing-nl\n", b"sp \nx",
                 b"c1\xc2\x85\xc2\x9bx", b"del\x7fx", b"q'uote", b'dq"x', b"back\\slash",
                 "emoji\U0001F600".encode("utf-8"), b"ls\xe2\x80\xa8x", b"bom\xef\xbb\xbfx"]


@pytest.mark.parametrize("fmt", ["text", "json", "yaml"])
def test_module_cli_matches_the_tool_on_hostile_names(backend, library, fixtures, tmp_path, fmt):
    """The C tool shows a byte that is not UTF-8 and control characters
    escaped in text (\\xNN; issue 12 item 2, C side) and writes such a byte
    as \\udcXX in JSON and YAML (item 8, C side); python -m cudaload writes
    the same, byte for byte, and its JSON and YAML give the exact names
    back."""
    folder = _fixture_copy(fixtures, tmp_path, NOT_UTF8)
    theirs = _tool(_scan_args(folder, fmt))
    if theirs is None:
        pytest.skip("CUDALOAD_CLI (the cudaload tool) is not set or not built")
    try:
        theirs.stdout.decode("utf-8")
        valid = theirs.returncode == 0
    except UnicodeDecodeError:
        valid = False
    if not valid:
        pytest.skip("this cudaload tool does not write %s for names that are not UTF-8 "
                    "yet (exit %d): nothing to compare with" % (fmt, theirs.returncode))
    source = os.path.join(fixtures, "preload", "cudnn8", "libcudnn.so.8")
    different = []
    for name in HOSTILE_NAMES:
        folder = os.path.join(os.fsencode(str(tmp_path)), b"hostile-" + name)
        os.mkdir(folder)
        shutil.copy2(source, os.path.join(folder, b"libcudnn.so.8"))
        args = _scan_args(folder, fmt)
        ours, theirs = _module_cli(backend, library, args), _tool(args)
        if (ours.returncode, ours.stdout, ours.stderr) != (theirs.returncode, theirs.stdout, theirs.stderr):
            different.append("%r:\n  python -m cudaload (exit %d): %r %r\n  cudaload (exit %d): %r %r"
                             % (name, ours.returncode, ours.stdout, ours.stderr,
                                theirs.returncode, theirs.stdout, theirs.stderr))
        if fmt == "json":
            assert os.fsencode(json.loads(ours.stdout.decode("utf-8"))["roots"][0]["path"]) == folder
        elif fmt == "yaml":
            yaml = pytest.importorskip("yaml")
            assert os.fsencode(yaml.safe_load(ours.stdout.decode("utf-8"))["roots"][0]["path"]) == folder
        else:
            assert b"\x1b" not in ours.stdout and b"\r" not in ours.stdout
    assert not different, "\n".join(different)


# --------------------------------------------------------------------------
# Issue 29, item 4: a library others can write to is refused, and the fix
# is the permission, followed here as printed
# --------------------------------------------------------------------------

def test_refused_file_fix_is_the_permission_followed_as_printed(run, fixtures, tmp_path):
    folder = tmp_path / "cudnn8"
    shutil.copytree(os.path.join(fixtures, "cudnn8_compat"), str(folder))
    main = folder / "libcudnn.so.8"
    main.chmod(0o666)
    code = """
        import json, cudaload
        report = cudaload.setup(require=["cudnn=8"], roots=[%r], defaults=False,
                                site_packages=False, check=False)
        allowed = cudaload.scan(roots=[%r], defaults=False, site_packages=False,
                                allow_writable_roots=True)
        print(json.dumps({"ok": report.ok, "error": report.error,
                          "allowed": [l.path for l in allowed.libraries if l.name == "cudnn"]}))
        """ % (str(folder), str(folder))
    out = last_json(run(code))
    assert not out["ok"]
    # The verdict line carries its fix: "<req>: no usable <family> library; fix: ..."
    fixes = [line.split("; fix: ", 1)[1] for line in out["error"].splitlines()
             if "; fix: " in line]
    want = "chmod go-w '%s'" % main
    assert fixes and fixes[0].startswith(want), out["error"]
    assert "pip install" not in fixes[0] and "allow_writable_roots=True" in fixes[0], fixes[0]
    assert out["allowed"] == [str(main)], "allow_writable_roots=True takes the file"
    # The command exactly as printed, then the same setup() works.
    command = fixes[0][:fixes[0].index(" (")]
    subprocess.run(command, shell=True, check=True)
    assert (main.stat().st_mode & 0o022) == 0
    out = last_json(run("""
        import json, cudaload
        report = cudaload.setup(require=["cudnn=8"], roots=[%r], defaults=False,
                                site_packages=False, check=False)
        print(json.dumps({"ok": report.ok, "error": report.error}))
        """ % str(folder)))
    assert out["ok"], out["error"]
