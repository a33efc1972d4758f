# SPDX-License-Identifier: MIT
"""``python -m cudaload scan|doctor|probe`` behaves like the C tool: the
same reports on standard output, warnings on standard error, the same exit
statuses (docs/cli.md)."""

import json
import os
import subprocess
import sys

import pytest

EXPECTED_STAGES = ["driver", "init", "devices", "context", "runtime", "cublas", "cudnn"]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("CUDALOAD_CLI", "")
    if not path or not os.path.isfile(path):
        pytest.skip("CUDALOAD_CLI (the cudaload tool) is not set or not built: the "
                    "comparison with the C tool needs it")
    return path


def tool(cli, args):
    return subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)


def cli_has(cli, command):
    return command in tool(cli, ["--help"]).stdout


def scan_roots(fixtures):
    """A wheel site (versions from dist-info) and a plain cuDNN 8 folder, in
    the host's own names: ELF trees on Linux, the DLL trees on Windows."""
    if os.name == "nt":
        return [os.path.join(fixtures, "windows", "site-packages"),
                os.path.join(fixtures, "windows", "cudnn8")]
    return [os.path.join(fixtures, "wheels-cu12", "site-packages"),
            os.path.join(fixtures, "preload", "cudnn8")]


@pytest.mark.parametrize("fmt", ["text", "json", "yaml"])
def test_scan_prints_what_the_tool_prints(run, fixtures, cli, fmt):
    args = ["scan", "--no-defaults"]
    for root in scan_roots(fixtures) + [os.path.join(fixtures, "no-such-root")]:
        args += ["--root", root]
    args += ["--format", fmt]
    ours, theirs = run.module(args), tool(cli, args)
    assert ours.stdout == theirs.stdout
    assert ours.returncode == theirs.returncode == 3, "an explicit root that does not exist is exit 3"
    assert "no-such-root: not found" in ours.stderr
    if fmt == "json":
        report = json.loads(ours.stdout)
        cudnn = [l for l in report["libraries"] if l["name"] == "cudnn" and l["version"]]
        assert cudnn and cudnn[0]["version_source"] == "dist-info"


def test_report_table_is_the_tools_scan(run, fixtures, cli):
    """Report.table() is the text `cudaload scan` prints, written by the C
    library (cudaload_scan_report()), however the Report was made and
    after every list was read or it was pickled; a Report made by hand
    has none and says so."""
    _skip_unless(run, "cudaload_scan_report")
    roots = scan_roots(fixtures)
    args = ["scan", "--no-defaults"]
    for root in roots:
        args += ["--root", root]
    theirs = tool(cli, args)
    assert theirs.returncode == 0, theirs.stderr
    result = run("""
        import json, pickle, cudaload
        roots = %r
        report = cudaload.scan(roots=roots, defaults=False, site_packages=False)
        tables = [report.table()]
        report = cudaload.scan(roots=roots, defaults=False, site_packages=False)
        report.requirements, report.roots, report.libraries, report.plan, report.conflicts
        tables.append(report.table())
        tables.append(pickle.loads(pickle.dumps(report)).table())
        with cudaload.Context(roots, False, False) as ctx:
            tables.append(ctx.scan().report().table())
        try:
            cudaload.Report(libraries=report.libraries).table()
            by_hand = "no error"
        except ValueError as exc:
            by_hand = str(exc)
        print(json.dumps([tables, by_hand]))
        """ % (roots,))
    assert result.returncode == 0, result.stderr
    tables, by_hand = json.loads(result.stdout)
    assert tables == [theirs.stdout] * 4
    assert "not made by a scan of the C library" in by_hand, by_hand


def test_scan_usage_errors_exit_2_and_print_nothing(run):
    # An empty path names no folder (relative ones are resolved: see
    # test_relative_paths.py).
    result = run.module(["scan", "--root", ""])
    assert result.returncode == 2 and result.stdout == ""
    assert "--root" in result.stderr and "--help" in result.stderr
    assert run.module(["scan", "--format", "xml"]).returncode == 2
    assert run.module(["frobnicate"]).returncode == 2


def test_version(run, library):
    result = run.module(["--version"])
    assert result.returncode == 0 and result.stdout.startswith("cudaload ")


def _skip_unless(run, function):
    """Skip, visibly, when the library lacks ``function`` (the probe and
    doctor land in the C library separately); check the error meanwhile."""
    probe = run("""
        import cudaload
        from cudaload import _api
        print(_api._load_default().has(%r))
        """ % function)
    if probe.stdout.strip() != "True":
        command = "doctor" if "doctor" in function else "probe"
        result = run.module([command, "--no-defaults"])
        assert result.returncode == 1 and ("has no %s" % function) in result.stderr
        pytest.skip("this libcudaload has no %s yet: `python -m cudaload %s` says so "
                    "and exits 1" % (function, command))


def test_doctor_prints_the_c_report(run, fixtures):
    _skip_unless(run, "cudaload_doctor")
    root = os.path.join(fixtures, "preload", "cudnn8")
    result = run.module(["doctor", "--no-defaults", "--root", root, "--require", "cudnn=8"])
    # 6: the report lists a problem (no NVIDIA driver here, for one).
    assert result.returncode in (0, 6), result.stderr
    # The answer first: its verdict line names the requirement.
    assert result.stdout.startswith("cudnn=8"), result.stdout
    same = run("""
        import cudaload
        print(cudaload.doctor(require=["cudnn=8"], roots=[%r], defaults=False, site_packages=False,
                              short=True), end="")
        """ % root)
    assert same.stdout.rstrip("\n") == result.stdout.rstrip("\n")
    as_json = run.module(["doctor", "--no-defaults", "--root", root, "--format", "json"])
    report = json.loads(as_json.stdout)
    assert "schema_version" in report
    assert as_json.returncode == (6 if report.get("problems") else 0)


def test_probe_answers_with_stages(run):
    _skip_unless(run, "cudaload_probe_run")
    result = run.module(["probe", "--no-defaults", "--format", "json"])
    assert result.returncode in (0, 5), result.stderr
    answer = json.loads(result.stdout)
    assert [s["name"] for s in answer["stages"]] == EXPECTED_STAGES
    if answer["verdict"] == "GPU_OK":
        assert result.returncode == 0 and answer["summary"].startswith("GPU usable")
    else:
        assert result.returncode == 5 and answer["summary"].startswith("fall back to CPU")
        assert answer["reason"] not in (None, "none")


def test_probe_json_is_the_tools_schema(run, cli):
    _skip_unless(run, "cudaload_probe_run")
    if not cli_has(cli, "probe"):
        pytest.skip("this cudaload tool has no probe command")
    args = ["probe", "--no-defaults", "--format", "json"]
    ours, theirs = json.loads(run.module(args).stdout), json.loads(tool(cli, args).stdout)
    for doc in (ours, theirs):
        for stage in doc["stages"]:
            stage.pop("ms")  # timings differ run to run
    assert ours == theirs


def test_probe_names_are_the_librarys(run):
    """Probe.reason and Stage.status are the C library's own names
    (cudaload_probe_reason_name(), cudaload_probe_stage_status_name()), the
    ones the JSON reports write: one table, in C."""
    _skip_unless(run, "cudaload_probe_reason_name")
    result = run("""
        import json, cudaload
        p = cudaload.probe(defaults=False, site_packages=False)
        print(json.dumps([p.reason, [s.status for s in p.stages]]))
        """)
    assert result.returncode == 0, result.stderr
    reason, statuses = json.loads(result.stdout)
    assert reason in ("none", "no_driver", "driver_broken", "init_failed", "no_device",
                      "driver_too_old", "device_failed", "missing_library",
                      "library_failed", "wrong_result", "timeout", "probe_crashed"), reason
    assert set(statuses) <= {"ok", "failed", "skipped", "warning"}, statuses


def test_a_root_writable_by_others_reads_as_the_tool_says(run, cli, tmp_path):
    """Root statuses are the library's names (cudaload_root_status_name()):
    a root other users can write to is "writable by other users" in Python
    as in the tool, not "unreadable"."""
    if os.name == "nt":
        pytest.skip("POSIX permission bits; the Windows check reads ACLs")
    _skip_unless(run, "cudaload_root_status_name")
    root = tmp_path / "planted"
    root.mkdir()
    root.chmod(0o777)
    for fmt in ("json", "text"):
        args = ["scan", "--no-defaults", "--root", str(root), "--format", fmt]
        ours, theirs = run.module(args), tool(cli, args)
        assert ours.stdout == theirs.stdout
        assert ours.returncode == theirs.returncode == 3
        assert "writable by other users" in ours.stdout


@pytest.mark.parametrize("args", [
    ["doctor", "--no-defaults", "--require", "cudnn~8"],
    ["doctor", "--no-defaults", "--error", "Segmentation fault"],
    ["doctor", "--no-defaults", "--require", "libz.so.1"],
])
def test_doctor_usage_errors_exit_as_the_tool_does(run, cli, args):
    """A bad spec or an error message in no known form is the user's input:
    exit 2 from both (python -m cudaload said 1, an internal error)."""
    ours, theirs = run.module(args), tool(cli, args)
    assert theirs.returncode == 2, theirs.stderr
    assert ours.returncode == theirs.returncode, ours.stderr
    assert ours.stdout == theirs.stdout == ""


def test_doctor_reads_an_error_message_as_the_tool_does(run, cli, fixtures):
    """--error: the same report (the message, what it means, the
    requirement it adds, the problem and its fix) and exit status."""
    if sys.platform == "win32":
        pytest.skip("the cudnn8_compat fixture is a Linux tree (ELF files); the Windows "
                    "tool's --error is checked in tests/cli under Wine")
    if not cli_has(cli, "doctor"):
        pytest.skip("this cudaload tool has no doctor")
    root = os.path.join(fixtures, "cudnn8_compat")
    args = ["doctor", "--no-defaults", "--root", root, "--format", "json", "--error",
            "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: "
            "cannot open shared object file: No such file or directory"]
    ours, theirs = run.module(args), tool(cli, args)
    assert ours.returncode == theirs.returncode == 6, ours.stderr + theirs.stderr
    mine, tools = json.loads(ours.stdout), json.loads(theirs.stdout)
    assert mine["error_messages"] == tools["error_messages"]
    message = mine["error_messages"][0]
    assert message["kind"] == "library-missing" and message["requirement"] == "cudnn=8"
    assert [r["spec"] for r in mine["requirements"]] == ["cudnn=8"]
    assert any("which is here" in p["problem"] and
               any(s["action"] == "run-program" and s["argv"][:2] == ["cudaload", "exec"] and
                   "cudnn=8" in s["argv"] for s in p["fix"])
               for p in mine["problems"]), mine["problems"]


def test_doctor_problems_are_records_as_the_json_has_them(run, fixtures):
    """DoctorReport.problems: each problem's kind, facts with their sources
    and fix steps, read through the C accessors, are what the JSON report
    of the same diagnosis says (issue 42: a program tells one problem from
    another and runs a fix without reading English)."""
    _skip_unless(run, "cudaload_doctor_problem_kind")
    out = json.loads(run("""
        import json, cudaload
        report = cudaload.doctor(require=["cudnn=8", "cublas=12"], roots=[%r], defaults=False,
                                 site_packages=False, format="json")
        print(json.dumps({"records": [p.to_dict() for p in report.problems],
                          "json": report.to_dict()["problems"],
                          "text": str(cudaload.doctor(require=["cudnn=8", "cublas=12"], roots=[%r],
                                                      defaults=False, site_packages=False))}))
        """ % (os.path.join(fixtures, "cudnn8_compat"),
               os.path.join(fixtures, "cudnn8_compat"))).stdout.splitlines()[-1])
    records, doc = out["records"], out["json"]
    assert records and len(records) == len(doc)
    for record, problem in zip(records, doc):
        assert record["kind"] == problem["kind"]
        assert record["text"] == problem["problem"]
        assert record["facts"] == {k: v["value"] for k, v in problem["facts"].items()}
        assert record["sources"] == {k: v["from"] for k, v in problem["facts"].items()}
        assert [s["action"] for s in record["fix"]] == [s["action"] for s in problem["fix"]]
        assert [s["argv"] for s in record["fix"]] == [s.get("argv", []) for s in problem["fix"]]
    unsatisfied = [r for r in records if r["kind"] == "unsatisfied"]
    # cudnn8_compat is ELF: a Windows scan finds no cuDNN 8 in it.
    expected = ["cudnn=8", "cublas=12"] if os.name == "nt" else ["cublas=12"]
    assert [r["facts"]["requirement"] for r in unsatisfied] == expected
    cublas = unsatisfied[-1]
    assert cublas["sources"]["requirement"] == "request"
    install = cublas["fix"][0]
    assert install["action"] == "install" and "nvidia-cublas-cu12" in install["argv"]
    # The text prints that command alone on its line (POSIX sh's words; a
    # Windows build quotes for cmd and PowerShell).
    if os.name != "nt":
        assert ("fix: " + " ".join(install["argv"]) + "\n") in out["text"]


def test_doctor_for_reads_the_program_as_the_tool_does(run, cli, fixtures):
    """--for: the requirements read from the program's files, each with
    where it came from, and the report, as the tool's (issue 45: `python -m
    cudaload doctor --for ctranslate2` in a Windows CPython)."""
    if not cli_has(cli, "doctor"):
        pytest.skip("this cudaload tool has no doctor")
    if sys.platform == "win32":
        program = os.path.join(fixtures, "windows_python", "py312", "Lib", "site-packages")
    else:
        program = os.path.join(fixtures, "programs", "site-packages")
    if not os.path.isdir(program):
        pytest.skip("fixture %s not built" % program)
    args = ["doctor", "--no-defaults", "--for", program, "--format", "json"]
    ours, theirs = run.module(args), tool(cli, args)
    assert ours.returncode == theirs.returncode, ours.stderr + theirs.stderr
    mine, tools = json.loads(ours.stdout), json.loads(theirs.stdout)
    assert mine["requirements"] and mine["requirements"] == tools["requirements"]
    assert [p["problem"] for p in mine["problems"]] == [p["problem"] for p in tools["problems"]]
