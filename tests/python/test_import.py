# SPDX-License-Identifier: MIT
"""What ``import cudaload`` costs and what it leaves for later, with each
backend, each in a fresh interpreter: the import opens the library and
loads nothing else; every public name still works; a Report that setup(),
preload() or scan() returns reads its lists from the C context on first use
and is the Report that would have been read at once."""

import json
import os
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fixture libraries are ELF (Linux)")


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


# Modules ``import cudaload`` must not import: slow ones (typing, json,
# dataclasses, ...) and the package's own, which load on first use.
HEAVY = ["typing", "json", "dataclasses", "threading", "contextlib", "inspect",
         "__future__", "warnings", "cffi", "pycparser",
         "cudaload._api", "cudaload._extra", "cudaload._errors", "cudaload._constants",
         "cudaload._version", "cudaload._cli"]


def test_import_opens_the_library_and_imports_nothing_heavy(run):
    result = run("""
        import sys
        before = set(sys.modules)
        import cudaload
        new = sorted(set(sys.modules) - before)
        lib = cudaload._library.load_default()
        print("\\n".join(new))
        print("BOUND %d" % len([f for f in lib._functions.values() if f is not None])
              if cudaload.backend() == "ctypes" else "BOUND 0")
        """)
    lines = result.stdout.split()
    new = set(lines[:-2])
    assert "cudaload" in new and "cudaload._library" in new
    assert ("cudaload._%s_backend" % run.backend) in new
    assert sorted(new & set(HEAVY)) == [], "import cudaload imported these"
    # The ctypes backend gives a function its prototype on first use only.
    assert lines[-1] == "0"


def test_every_public_name_and_the_backend_still_work(run):
    out = last_json(run("""
        import json, pickle, cudaload
        from cudaload import *  # every name of __all__
        from cudaload import setup, Report, Error, UnsatisfiedError, constants, __version__
        from cudaload import _api, _errors, _extra, _constants, _version
        missing = [n for n in cudaload.__all__ if not hasattr(cudaload, n)]
        try:
            cudaload.no_such_name
            unknown = None
        except AttributeError as exc:
            unknown = str(exc)
        lib = cudaload._library.load_default()
        print(json.dumps({
            "missing": missing,
            "dir": sorted(set(cudaload.__all__) - set(dir(cudaload))),
            "same": [cudaload.Report is _api.Report, cudaload.setup is _api.setup,
                     cudaload.Probe is _extra.Probe, cudaload.Error is _errors.Error,
                     issubclass(UnsatisfiedError, Error), constants is _constants,
                     __version__ == _version.__version__ == cudaload.library_version()],
            "unknown": unknown, "c_missing": lib.missing, "backend": cudaload.backend()}))
        """))
    assert out["missing"] == [] and out["dir"] == []
    assert all(out["same"]), out["same"]
    assert out["unknown"] and "no_such_name" in out["unknown"]
    assert out["c_missing"] == [], "the library lacks functions of the API"
    assert out["backend"] == run.backend


def test_setup_report_reads_lazily_and_matches_an_eager_report(run, fixtures):
    """setup()'s Report keeps the C context until every list is read (or
    the Report goes), and reads what Context.plan() reads at once."""
    out = last_json(run("""
        import copy, gc, json, pickle, threading, cudaload
        from cudaload import _api
        F = %r
        roots = [F + "/preload/cudnn9", F + "/preload/cublas12"]
        lib = cudaload._library.load_default()
        destroyed = []
        call = lib.call
        def recording(name, *args):
            if name == "cudaload_destroy":
                destroyed.append(1)
            return call(name, *args)
        lib.call = recording
        require = ["cudnn=9", "cublas=12"]
        with cudaload.Context(roots, defaults=False, site_packages=False) as ctx:   # eager, loads nothing
            eager = ctx.require(require).scan().plan()
        destroyed.clear()
        report = cudaload.setup(require=require, roots=roots, defaults=False, site_packages=False)
        before = list(destroyed)
        holds = report._reader._ctx is not None
        # Readers in several threads at once get one and the same list.
        seen = []
        threads = [threading.Thread(target=lambda: seen.append(id(report.libraries)))
                   for _ in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        data = report.to_dict()                      # every field
        after_all = list(destroyed)
        def entry(e):
            return [e["name"], e["major"], e["path"], e["reason"]]
        unread = cudaload.setup(require=require, roots=roots, defaults=False, site_packages=False)
        destroyed.clear()
        del unread
        gc.collect()
        freed_unread = list(destroyed)
        print(json.dumps({
            "before": before, "holds": holds, "after_all": after_all,
            "one_list": len(set(seen)) == 1, "freed_unread": freed_unread,
            "same": {k: data[k] == eager.to_dict()[k] for k in
                     ("requirements", "roots", "libraries", "conflicts", "env_name",
                      "target", "backend", "library_path")},
            "plan": [entry(e) for e in data["plan"]] == [entry(e) for e in eager.to_dict()["plan"]],
            "states": sorted({e["state"] for e in data["plan"]}),
            "status": [data["status"], data["status_text"], data["error"]],
            "pickle": pickle.loads(pickle.dumps(report)) == report,
            "copy": copy.copy(report) == report and copy.deepcopy(report) == report,
            "text": "libcudnn.so.9" in str(report) and "NAME" in report.table(),
            "scan": cudaload.scan(roots=roots, defaults=False, site_packages=False).to_dict()
                    == cudaload.Context(roots, defaults=False, site_packages=False).scan().report().to_dict()}))
        """ % fixtures))
    assert out["before"] == [] and out["holds"], "setup() destroyed the context it handed over"
    assert out["after_all"] == [1], "reading every list must destroy the context once"
    assert out["freed_unread"] == [1], "a Report never read must destroy its context when it goes"
    assert out["one_list"]
    assert all(out["same"].values()), out["same"]
    assert out["plan"] and "loaded" in out["states"]
    assert out["status"] == [0, "success", ""]
    assert out["pickle"] and out["copy"] and out["text"] and out["scan"]


def test_errors_of_setup_carry_a_report_that_reads(run, fixtures):
    out = last_json(run("""
        import json, cudaload
        F = %r
        try:
            cudaload.setup(require=["cudnn=7"], roots=[F + "/preload/cudnn8"], defaults=False, site_packages=False)
        except cudaload.Error as exc:
            r = exc.report
            print(json.dumps([type(exc).__name__, r.status_text, [x.path for x in r.roots],
                              len(r.libraries) > 0, r.plan == [] or all(e.state for e in r.plan)]))
        """ % fixtures))
    assert out[0] == "UnsatisfiedError" and out[1]
    assert out[2] == [os.path.join(fixtures, "preload", "cudnn8")]
    assert out[3] and out[4]
