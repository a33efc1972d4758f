# SPDX-License-Identifier: MIT
"""Loading scenarios, each in a fresh interpreter, with each backend:
what a user notices is asserted (a consumer loads and calls its own cuDNN
major; a failure names the missing file, where it looked and why)."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import make_venv

FIXTURE_CUDNN8 = 8907    # cudnnGetVersion() of the fixture cuDNN 8.9.7
FIXTURE_CUDNN9 = 90100   # and of the fixture cuDNN 9.1.0
REAL_TOOLKIT_LIB = "/usr/local/cuda/lib64"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture consumers are ELF libraries (Linux)")


def fx(fixtures, *parts):
    return os.path.join(fixtures, *parts)


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_side_by_side_each_consumer_calls_its_own_major(run, fixtures):
    out = last_json(run("""
        import ctypes, json, cudaload
        F = %r
        report = cudaload.setup(require=["cudnn=8", "cudnn=9"],
                                roots=[F + "/preload/cudnn8", F + "/preload/cudnn9"])
        c8 = ctypes.CDLL(F + "/preload/consumers/libconsumer_cudnn8.so")
        c9 = ctypes.CDLL(F + "/preload/consumers/libconsumer_cudnn9.so")
        print(json.dumps({
            "v8": c8.consumer_cudnn_version(), "v9": c9.consumer_cudnn_version(),
            "create8": c8.consumer_cudnn_create(), "create9": c9.consumer_cudnn_create(),
            "backend": cudaload.backend(), "ok": report.ok, "text": str(report),
            "plan": [[e.name, e.major, e.state, e.path, e.reason] for e in report.plan]}))
        """ % fixtures))
    assert out["backend"] == run.backend
    assert out["ok"]
    assert (out["v8"], out["v9"]) == (FIXTURE_CUDNN8, FIXTURE_CUDNN9)
    assert out["create8"] == 0, "cuDNN 8 could not open libcudnn_ops_infer.so.8 after setup()"
    assert out["create9"] == 0
    mains = {e[1]: e for e in out["plan"] if e[0] == "cudnn"}
    assert mains[8][2] == "loaded" and mains[8][3].endswith("/preload/cudnn8/libcudnn.so.8")
    assert mains[9][2] == "loaded" and mains[9][3].endswith("/preload/cudnn9/libcudnn.so.9")
    # The report says why each file is there, not just that it is.
    ops = [e for e in out["plan"] if e[0] == "cudnn_ops_infer"][0]
    assert ops[2] == "loaded" and "RUNPATH" in ops[4]
    assert "required by cudnn=8" in out["text"]


def test_without_setup_the_cudnn8_consumer_fails_naming_libcudnn8(run, fixtures):
    out = last_json(run("""
        import ctypes, json, cudaload
        try:
            ctypes.CDLL(%r)
            print(json.dumps({"error": None}))
        except OSError as exc:
            print(json.dumps({"error": str(exc)}))
        """ % fx(fixtures, "preload", "consumers", "libconsumer_cudnn8.so")))
    assert out["error"] is not None, "the cuDNN 8 consumer loaded without setup()"
    assert "libcudnn.so.8" in out["error"]


def test_site_packages_on_sys_path_is_found_without_roots(run, fixtures):
    site_dir = fx(fixtures, "wheels-cu12", "site-packages")
    out = last_json(run("""
        import ctypes, json, site, cudaload
        site.addsitedir(%r)
        report = cudaload.setup(require=["cudnn=8", "cublas=12"])
        try:
            cudaload.setup(require=["cudnn=8"], site_packages=[], defaults=False)
            without = None
        except cudaload.UnsatisfiedError as exc:
            without = exc.detail
        print(json.dumps({
            "plan": {e.name: e.path for e in report.plan if e.state == "loaded"},
            "versions": {l.name: [l.version, l.version_source, l.path] for l in report.libraries
                         if l.path.startswith(%r)},
            "roots": [[r.path, r.origin, r.tier] for r in report.roots], "without": without}))
        """ % (site_dir, os.path.realpath(site_dir))))
    real = os.path.realpath(site_dir)
    assert out["plan"]["cudnn"] == os.path.join(real, "nvidia", "cudnn", "lib", "libcudnn.so.8")
    assert out["plan"]["cublas"].startswith(real)
    assert out["versions"]["cudnn"][:2] == ["8.9.7.29", "dist-info"]
    # The C library's origin and tier, the same labels as the tool's.
    assert [os.path.realpath(site_dir), "interpreter", "environment"] in [
        [os.path.realpath(p), o, t] for p, o, t in out["roots"]]
    assert out["without"] and "cudnn=8" in out["without"], \
        "with no site-packages the requirement should be unsatisfied, with the reason"


def test_a_venv_with_nvidia_wheels_is_found_with_no_arguments(run, fixtures, tmp_path):
    venv = tmp_path / "venv"
    python = make_venv(venv, pip=False)
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    shutil.copytree(fx(fixtures, "wheels-cu12", "site-packages"), purelib, symlinks=True,
                    dirs_exist_ok=True)
    out = last_json(run("""
        import json, cudaload
        report = cudaload.setup(require=["cudnn=8"])
        print(json.dumps({"cudnn": [e.path for e in report.plan if e.name == "cudnn"][0],
                          "version": [l.version for l in report.libraries
                                      if l.name == "cudnn" and l.major == 8][0]}))
        """, python=python))
    assert out["cudnn"].startswith(os.path.realpath(purelib))
    assert out["version"] == "8.9.7.29"


def _build_extension(fixtures, folder, name):
    """A Python extension module linked to libcudnn.so.8 of the fixture tree
    (no RPATH), whose cudnn_version() returns the cudnnGetVersion() it binds."""
    include = sysconfig.get_paths().get("include", "")
    if not os.path.isfile(os.path.join(include, "Python.h")):
        pytest.skip("Python.h not found in %r: install the Python development headers" % include)
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not compiler:
        pytest.skip("no C compiler (cc) to build the test extension module")
    source = folder / (name + ".c")
    source.write_text("""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
size_t cudnnGetVersion(void);
static PyObject *version(PyObject *self, PyObject *unused) {
  (void)self; (void)unused;
  return PyLong_FromSize_t(cudnnGetVersion());
}
static PyMethodDef methods[] = {
  {"cudnn_version", version, METH_NOARGS, "cudnnGetVersion() as bound"},
  {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "%s", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_%s(void) { return PyModule_Create(&module); }
""" % (name, name))
    target = folder / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([compiler, "-shared", "-fPIC", "-I", include, str(source), "-o", str(target),
                    "-L", fx(fixtures, "preload", "cudnn8"), "-l:libcudnn.so.8"], check=True)


def test_isolated_import_binds_cudnn8_beside_a_global_cudnn9(run, fixtures, tmp_path):
    _build_extension(fixtures, tmp_path, "consumer8")
    _build_extension(fixtures, tmp_path, "consumer8_plain")
    out = last_json(run("""
        import ctypes, json, os, sys, cudaload
        F, MODULES = %r, %r
        sys.path.insert(0, MODULES)
        cudaload.setup(require=["cudnn=9"], roots=[F + "/preload/cudnn9"])
        ctypes.CDLL(F + "/preload/consumers/libconsumer_cudnn9.so", mode=os.RTLD_GLOBAL)
        try:
            cudaload.setup(require=["cudnn=8"], roots=[F + "/preload/cudnn8"])
            refused = None
        except cudaload.ConflictError as exc:
            refused = [exc.status, str(exc), [c.path for c in exc.report.conflicts]]
        report = cudaload.setup(require=["cudnn=8"], roots=[F + "/preload/cudnn8"], isolate=True)
        import consumer8_plain
        with cudaload.isolated_import():
            import consumer8
        flags_after = sys.getdlopenflags()
        handle = ctypes.CDLL(consumer8.__file__, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        print(json.dumps({
            "refused": refused, "conflicts": [[c.path, c.text] for c in report.conflicts],
            "plain": consumer8_plain.cudnn_version(), "isolated": consumer8.cudnn_version(),
            "provider": cudaload.symbol_provider(handle, "cudnnGetVersion"),
            "flags_restored": flags_after == os.RTLD_NOW}))
        """ % (fixtures, str(tmp_path))))
    assert out["refused"] is not None, "setup() without isolate=True accepted a cuDNN 9 in the global scope"
    assert out["refused"][0] == 11 and "libcudnn.so.9" in out["refused"][1]
    assert any(p.endswith("/preload/cudnn9/libcudnn.so.9") for p in out["refused"][2])
    assert out["conflicts"] and all(text for _, text in out["conflicts"])
    assert out["plain"] == FIXTURE_CUDNN9, "precondition: a plain import binds the global cuDNN 9"
    assert out["isolated"] == FIXTURE_CUDNN8
    # Not asserted: cudaload_symbol_provider() answers for a handle that
    # cudaload_dlopen_isolated() opened, and does not yet see that a module
    # imported under sys.setdlopenflags(RTLD_DEEPBIND) binds deep; it then
    # names the global scope's file. The call must still answer.
    assert out["provider"].endswith(".so.8") or out["provider"].endswith(".so.9")
    assert out["flags_restored"]


def test_isolated_open_binds_its_own_major(run, fixtures):
    out = last_json(run("""
        import ctypes, json, os, cudaload
        F = %r
        cudaload.setup(require=["cudnn=9"], roots=[F + "/preload/cudnn9"])
        ctypes.CDLL(F + "/preload/consumers/libconsumer_cudnn9.so", mode=os.RTLD_GLOBAL)
        cudaload.setup(require=["cudnn=8"], roots=[F + "/preload/cudnn8"], isolate=True)
        lib = cudaload.isolated_open(F + "/preload/consumers/libconsumer_cudnn8_deepbind.so")
        print(json.dumps({"v": lib.consumer_cudnn_version(),
                          "provider": cudaload.symbol_provider(lib, "cudnnGetVersion")}))
        """ % fixtures))
    assert out["v"] == FIXTURE_CUDNN8
    assert out["provider"].endswith("/preload/cudnn8/libcudnn.so.8")


def test_conflict_fix_in_one_call_as_printed(run, fixtures):
    """Issue 27, item 3: the conflict's fix names cudaload_open_isolated(ctx,
    consumer_path, 0); Python's Context.open_isolated() is that call, and
    does what the sentence says: the plan loaded RTLD_LOCAL, the consumer
    bound to it with RTLD_DEEPBIND, although cuDNN 9 is in the global scope."""
    out = last_json(run("""
        import ctypes, json, os, cudaload
        F = %r
        cudaload.setup(require=["cudnn=9"], roots=[F + "/preload/cudnn9"])
        ctypes.CDLL(F + "/preload/consumers/libconsumer_cudnn9.so", mode=os.RTLD_GLOBAL)
        ctx = cudaload.Context(roots=[F + "/preload/cudnn8"], defaults=False, site_packages=False)
        ctx.require(["cudnn=8"])
        report = ctx.preload(check=False)
        lib = ctx.open_isolated(F + "/preload/consumers/libconsumer_cudnn8_deepbind.so")
        print(json.dumps({"status": report.status, "texts": [c.text for c in report.conflicts],
                          "v": lib.consumer_cudnn_version(),
                          "provider": cudaload.symbol_provider(lib, "cudnnGetVersion")}))
        """ % fixtures))
    assert out["status"] == 11, "precondition: the preload refuses, naming the conflict"
    assert any("cudaload_open_isolated(ctx, consumer_path, 0)" in t for t in out["texts"]), out["texts"]
    assert out["v"] == FIXTURE_CUDNN8
    assert out["provider"].endswith("/preload/cudnn8/libcudnn.so.8")


def toolkit_major(stem):
    """The highest N of REAL_TOOLKIT_LIB/<stem>.so.N, or None (no toolkit, or
    none of that library): whatever toolkit the machine has, not this
    machine's numbers."""
    prefix = stem + ".so."
    try:
        names = os.listdir(REAL_TOOLKIT_LIB)
    except OSError:
        return None
    majors = [int(n[len(prefix):]) for n in names
              if n.startswith(prefix) and n[len(prefix):].isdigit()]
    return max(majors) if majors else None


def test_real_toolkit_versions_through_the_loaded_libraries(run):
    cudnn_major, cublas_major = toolkit_major("libcudnn"), toolkit_major("libcublas")
    if cudnn_major is None or cublas_major is None:
        pytest.skip("no real toolkit with cuDNN and cuBLAS: %s has no libcudnn.so.N or "
                    "libcublas.so.N" % REAL_TOOLKIT_LIB)
    out = last_json(run("""
        import ctypes, json, os, cudaload
        cudnn_major, cublas_major = %d, %d
        report = cudaload.setup(require=["cudnn=%%d" %% cudnn_major, "cublas=%%d" %% cublas_major],
                                roots=[%r])
        mode = os.RTLD_NOLOAD | os.RTLD_NOW
        # only if setup() loaded them
        cudnn = ctypes.CDLL("libcudnn.so.%%d" %% cudnn_major, mode=mode)
        cudnn.cudnnGetVersion.restype = ctypes.c_size_t
        v = cudnn.cudnnGetVersion()
        cublas = ctypes.CDLL("libcublas.so.%%d" %% cublas_major, mode=mode)
        def prop(i):
            value = ctypes.c_int(-1)
            assert cublas.cublasGetProperty(i, ctypes.byref(value)) == 0
            return value.value
        disk = {(l.family, l.major): l.version for l in report.libraries if l.name in ("cudnn", "cublas")}
        # cuDNN 8 encodes its version as M*1000+m*100+p, cuDNN 9 as M*10000+m*100+p.
        div = 10000 if cudnn_major >= 9 else 1000
        print(json.dumps({
            "cudnn": "%%d.%%d.%%d" %% (v // div, v %% div // 100, v %% 100),
            "cublas": "%%d.%%d.%%d" %% (prop(0), prop(1), prop(2)),
            "disk_cudnn": disk.get(("cudnn", cudnn_major)),
            "disk_cublas": disk.get(("cublas", cublas_major)),
            "lt": [e.state for e in report.plan if e.name == "cublasLt"]}))
        """ % (cudnn_major, cublas_major, REAL_TOOLKIT_LIB), timeout=300))
    print("loaded: cuDNN %s, cuBLAS %s (on disk: %s, %s)"
          % (out["cudnn"], out["cublas"], out["disk_cudnn"], out["disk_cublas"]))
    assert out["cudnn"].startswith("%d." % cudnn_major)
    assert out["cublas"].startswith("%d." % cublas_major)
    for loaded, disk in ((out["cudnn"], out["disk_cudnn"]), (out["cublas"], out["disk_cublas"])):
        if disk:
            assert disk.startswith(loaded + ".") or disk == loaded
    assert out["lt"] == ["loaded"]


def test_env_prepend_updates_os_environ_and_children(run, fixtures):
    app = fx(fixtures, "preload", "consumers", "app_cudnn8")
    out = last_json(run("""
        import ctypes, json, os, subprocess, cudaload
        F, APP = %r, %r
        before = subprocess.run([APP], stdout=subprocess.PIPE, stderr=subprocess.PIPE).returncode
        value = cudaload.env_prepend(["cudnn=8"], roots=[F + "/preload/cudnn8"], defaults=False, site_packages=False)
        again = cudaload.env_prepend(["cudnn=8"], roots=[F + "/preload/cudnn8"], defaults=False, site_packages=False)
        libc = ctypes.CDLL(None)
        libc.getenv.restype = ctypes.c_char_p
        child = subprocess.run([APP], stdout=subprocess.PIPE, universal_newlines=True)
        print(json.dumps({"before": before, "value": value, "again": again,
                          "environ": os.environ.get("LD_LIBRARY_PATH"),
                          "c": libc.getenv(b"LD_LIBRARY_PATH").decode(),
                          "rc": child.returncode, "out": child.stdout}))
        """ % (fixtures, app), extra_env={"LD_LIBRARY_PATH": "/opt/elsewhere/lib"}))
    assert out["before"] == 127, "precondition: app_cudnn8 does not start without the variable"
    folder = os.path.realpath(fx(fixtures, "preload", "cudnn8"))
    assert out["value"].split(":")[0] == folder and out["value"].endswith(":/opt/elsewhere/lib")
    assert out["again"] == out["value"], "composing twice must change nothing"
    assert out["environ"] == out["value"] == out["c"]
    assert out["rc"] == 0 and "8907" in out["out"]


def test_errors_carry_status_paths_and_reasons(run, fixtures):
    out = last_json(run("""
        import json, cudaload
        F = %r
        res = {}
        try:
            cudaload.setup(require=["cudnn=7"], roots=[F + "/preload/cudnn8"], defaults=False, site_packages=False)
        except cudaload.UnsatisfiedError as exc:
            res["unsatisfied"] = [exc.status, exc.detail, str(exc),
                                  [r.path for r in exc.report.roots], exc.report.ok]
        try:
            cudaload.setup(require=["cudnn~8"], defaults=False, site_packages=False)
        except cudaload.BadSpecError as exc:
            res["badspec"] = [exc.status, str(exc), isinstance(exc, ValueError)]
        try:
            cudaload.scan(roots=[""], defaults=False, site_packages=False)
        except cudaload.InvalidArgumentError as exc:
            res["empty"] = [exc.status, str(exc)]
        try:
            cudaload.scan(roots=[F + "/no-such-root"], defaults=False, site_packages=False)
        except cudaload.NotFoundError as exc:
            res["missing"] = [exc.status, str(exc)]
        r = cudaload.setup(require=["cudnn=7"], roots=[F + "/preload/cudnn8"], defaults=False, site_packages=False, check=False)
        res["unchecked"] = [r.ok, r.status, r.error]
        print(json.dumps(res))
        """ % fixtures))
    status, detail, message, roots, ok = out["unsatisfied"]
    assert status == 9 and not ok
    assert "cudnn=7" in detail and fx(fixtures, "preload", "cudnn8") in detail, \
        "the reason must name the requirement and where it looked"
    # The message holds all of it, the cause and its fix first (issue 46).
    assert all(line in message for line in detail.split("\n")), message
    assert message.split("\n")[0].startswith("cudaload.setup: cudnn=7: no usable cudnn "), message
    assert roots == [fx(fixtures, "preload", "cudnn8")]
    assert out["badspec"][0] == 8 and "cudnn~8" in out["badspec"][1] and out["badspec"][2]
    assert out["empty"][0] == 1 and "empty" in out["empty"][1]
    assert out["missing"][0] == 5 and fx(fixtures, "no-such-root") + "' does not exist" in out["missing"][1]
    assert out["unchecked"][:2] == [False, 9] and "cudnn=7" in out["unchecked"][2]


def test_import_error_lists_every_place_looked(run):
    result = run("""
        import warnings
        warnings.simplefilter("always")
        try:
            import cudaload
            print("loaded", cudaload.library_path())
        except ImportError as exc:
            print("IMPORTERROR", exc)
        """, extra_env={"CUDALOAD_LIBRARY": "/nonexistent/libcudaload.so.1"}, expect_ok=False)
    text = result.stdout + result.stderr
    if "IMPORTERROR" in text:
        for place in ("CUDALOAD_LIBRARY", "/nonexistent/libcudaload.so.1", "inside the package",
                      "_lib", "the system loader", "libcudaload.so.1"):
            assert place in text
    else:  # an installed package: its own copy is used, with a warning
        assert "loaded" in text and "CUDALOAD_LIBRARY could not be used" in text


def test_missing_c_function_degrades_to_a_clear_error(run):
    out = last_json(run("""
        import json, cudaload
        from cudaload import _api
        # A library without cudaload_doctor, as an older build is: the
        # backend looks functions up on first use, so hide it from has().
        lib = _api._load_default()
        exports = lib.has
        lib.has = lambda name: name != "cudaload_doctor" and exports(name)
        try:
            cudaload.doctor()
            print(json.dumps(None))
        except cudaload.MissingFunctionError as exc:
            print(json.dumps([str(exc), exc.status, isinstance(exc, cudaload.Error)]))
        """))
    assert out is not None
    assert "has no cudaload_doctor" in out[0] and out[1] == 6 and out[2]


def test_doctor_and_context_read_an_error_message(run, fixtures):
    """cudaload.doctor(error=...) and Context.read_error_message(): the
    requirement the message implies, what it means, and the forms listed
    for a text in none of them."""
    out = last_json(run("""
        import json, cudaload
        root = %r
        with cudaload.Context(roots=[root], defaults=False, site_packages=False) as ctx:
            messages = ctx.read_error_message(
                "Failed to load library libonnxruntime_providers_cuda.so with error: "
                "libcublasLt.so.12: cannot open shared object file: No such file or directory")
            requirements = ctx.requirements()
        report = cudaload.doctor(roots=[root], defaults=False, site_packages=False, format="json",
                                 error="Could not locate cudnn_ops_infer64_8.dll. Please make "
                                       "sure it is in your library path!").to_dict()
        try:
            cudaload.doctor(defaults=False, site_packages=False, error="Segmentation fault")
            refused = ""
        except cudaload.BadSpecError as exc:
            refused = str(exc)
        print(json.dumps({"messages": [m.to_dict() for m in messages], "requirements": requirements,
                          "doctor": report["error_messages"], "problems": report["problems"],
                          "refused": refused}))
        """ % os.path.join(fixtures, "cudnn8_compat")))
    assert len(out["messages"]) == 1
    message = out["messages"][0]
    assert {k: message[k] for k in ("kind", "quote", "file", "needed_by", "requirement")} == {
        "kind": "library-missing",
        "quote": "Failed to load library libonnxruntime_providers_cuda.so "
                 "with error: libcublasLt.so.12: cannot open shared object "
                 "file: No such file or directory",
        "file": "libcublasLt.so.12",
        "needed_by": "libonnxruntime_providers_cuda.so",
        "requirement": "cublas=12"}
    assert "libonnxruntime_providers_cuda.so needs libcublasLt.so.12" in out["messages"][0]["diagnosis"]
    assert out["requirements"] == ["cublas=12"]
    assert out["doctor"][0]["requirement"] == "cudnn=8"
    assert any("cudnn_ops_infer64_8.dll, which is here" in p["problem"] for p in out["problems"])
    assert "no form cudaload knows" in out["refused"] and "Could not locate" in out["refused"]


def test_read_error_message_gives_every_fact(run):
    """Context.read_error_message(): each fact the message states, with
    the words it was read from, through either backend; bytes as a log file
    holds them (UTF-16 from PowerShell's `>`, NUL bytes); an unreadable text
    raises UnreadableMessageError, still a BadSpecError, not "malformed
    requirement spec"; a text over the size policy warns and is read."""
    out = last_json(run("""
        import json, warnings, cudaload
        facts = {}
        with cudaload.Context(defaults=False, site_packages=False) as ctx:
            m = ctx.read_error_message(
                "ImportError: /opt/my app/lib/python3.12/site-packages/torch/lib/../../nvidia/"
                "cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, "
                "version libnvJitLink.so.12")[0]
            facts["symbol"] = [m.kind, m.file, m.cause, m.symbol, m.symbol_version,
                               m.required_version, m.cuda_major, m.consumer_module,
                               m.environment, m.sources["required-version"],
                               m.facts["cuda-major"]]
            text = "[WinError 126] x\\r\\nUnable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9}"
            m = ctx.read_error_message(b"\\xff\\xfe" + text.encode("utf-16-le"))[0]
            facts["utf16"] = [m.kind, m.candidates, m.required_version, m.requirement]
            m = ctx.read_error_message(b"step 1\\0\\0libcufft.so.11: cannot open shared object file")[0]
            facts["nul"] = [m.file, m.quote, m.file_form, m.cuda_major]
            try:
                ctx.read_error_message("Segmentation fault (core dumped)")
                facts["refused"] = None
            except cudaload.UnreadableMessageError as exc:
                facts["refused"] = [isinstance(exc, cudaload.BadSpecError), str(exc)]
            big = b"x" * (cudaload.constants.CUDALOAD_ERROR_TEXT_HEAD +
                          cudaload.constants.CUDALOAD_ERROR_TEXT_TAIL) + \
                b"\\nlibcudart.so.12: cannot open shared object file\\n"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                m = ctx.read_error_message(big)[0]
            facts["big"] = [m.file, [str(w.message) for w in caught]]
        print(json.dumps(facts))
        """))
    assert out["symbol"] == ["symbol-missing", "libnvJitLink.so.12", "older-library",
                             "__nvJitLinkComplete_12_4", "libnvJitLink.so.12", "12.4", "12",
                             "torch", "/opt/my app/lib/python3.12/site-packages",
                             "__nvJitLinkComplete_12_4", "12"]
    assert out["utf16"] == ["library-missing", ["libcudnn_ops.so.9.1.0", "libcudnn_ops.so.9"],
                            "9.1", "cudnn=9"]
    assert out["nul"] == ["libcufft.so.11", "libcufft.so.11: cannot open shared object file",
                          "name", "12"]
    assert out["refused"][0] is True
    assert "no form cudaload knows" in out["refused"][1]
    assert "malformed requirement spec" not in out["refused"][1]
    assert out["big"][0] == "libcudart.so.12"
    assert out["big"][1] and "read are its first" in out["big"][1][0]


def test_setup_keeps_the_names_for_the_next_process(run, fixtures, tmp_path):
    """A setup() process leaves what its plan searched for in the names
    store, though it exits without destroying its context (the report holds
    it), and the next process plans the same from the store."""
    store = tmp_path / "store"
    code = """
        import json, os, cudaload
        report = cudaload.setup(require=["cudnn=9"], roots=[%r], defaults=False)
        print(json.dumps({"ok": report.ok,
                          "plan": [[e.name, e.state, e.path] for e in report.plan]}),
              flush=True)  # os._exit() flushes no buffer: stdout is a pipe
        os._exit(0)
        """ % fx(fixtures, "preload", "cudnn9")
    env = {"CUDALOAD_CACHE_PATH": str(store), "CUDALOAD_CACHE_DISABLE": "0"}
    first = last_json(run(code, extra_env=env))
    assert first["ok"]
    text = (store / "names-v2").read_text()
    assert text.startswith("cudaload-names 2\n")
    assert "libcudnn_graph.so.9" in text
    second = last_json(run(code, extra_env=env))
    assert second == first
    # Switched off, nothing is written.
    off = tmp_path / "off"
    run(code, extra_env={"CUDALOAD_CACHE_PATH": str(off), "CUDALOAD_CACHE_DISABLE": "1"})
    assert not off.exists()
