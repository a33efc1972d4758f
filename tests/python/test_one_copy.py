# SPDX-License-Identifier: MIT
"""Issue 42, item 7: the package keeps one copy of each fact. What the C
library or the tool knows (exit statuses, the escaping of text for a
terminal, the text of a plan and of a probe, the names of fix actions,
facts, sources and root statuses) comes from it, or, where Python needs a
value at import, is checked here against it: each test fails when the two
drift apart."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

CLI_HEADER = os.path.join(REPO, "tools", "cli.h")

# The plan's fixtures (preload/) are ELF files: a Windows scan finds none of
# them. tests/test_doctor.c checks cudaload_plan_report() in the windows tier.
linux_fixtures = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the preload/ fixtures are ELF files, which only a Linux scan reads")


def last_json(result):
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_exit_statuses_are_the_tools(run):
    """python -m cudaload exits as the tool does: its EXIT_* are those of
    tools/cli.h, every one, with the same values."""
    if not os.path.isfile(CLI_HEADER):
        pytest.skip("tools/cli.h is not here (an installed package is tested)")
    with open(CLI_HEADER, encoding="utf-8") as f:
        tool = {name: int(value) for name, value in
                re.findall(r"^#define (EXIT_\w+) (\d+)\b", f.read(), re.M)}
    assert tool, "no EXIT_* read from tools/cli.h"
    ours = last_json(run("""
        import json
        from cudaload import _cli
        print(json.dumps({n: getattr(_cli, n) for n in dir(_cli) if n.startswith("EXIT_")}))
        """))
    assert ours == tool


# (text, keep_newlines, what a person is shown): the escaping of
# lib/common/text_escape.c, as the tool shows values from outside.
ESCAPES = [
    ("plain ascii / café", False, "plain ascii / café"),
    ("esc\x1b]0;pwned\x07\rcsi\x9b31m", False, "esc\\x1b]0;pwned\\x07\\x0dcsi\\u009b31m"),
    ("two\nlines\tand del\x7f", False, "two\\x0alines\\x09and del\\x7f"),
    ("two\nlines", True, "two\nlines"),
    ("a NUL\x00inside", False, "a NUL\\x00inside"),  # not cut at the NUL
    ("", False, ""),
]


def test_text_for_people_is_escaped_by_the_library(run):
    """_shown() (str() of the records, python -m cudaload's messages) is the
    library's escaping (cudaload_escape_text), not a copy: every call goes
    to the library, and the result is the tool's."""
    out = last_json(run("""
        import json, os
        from cudaload import _library, _text
        lib = _library.load_default()
        calls = []
        escape = lib.escape_text
        def recording(data, flags):
            calls.append(len(data))
            return escape(data, flags)
        lib.escape_text = recording
        cases = %r
        shown = [_text._shown(text, keep) for text, keep, _ in cases]
        # A name from the disk that is not UTF-8 (the str os.fsdecode()
        # gives for it on POSIX: its bytes surrogate-escaped) and a lone
        # surrogate no byte stands for: shown byte by byte, no exception.
        print(json.dumps({"shown": shown, "calls": len(calls),
                          "not_utf8": _text._shown(b"caf\\xe9".decode("utf-8", "surrogateescape")),
                          "surrogate": _text._shown("x\\ud800y")}))
        """ % (ESCAPES,)))
    assert out["shown"] == [expected for _, _, expected in ESCAPES]
    assert out["calls"] == len(ESCAPES)
    if sys.platform == "win32":  # names are UTF-8 with surrogatepass there
        assert out["not_utf8"] == "caf\\xe9" or out["not_utf8"].startswith("caf\\x")
    else:
        assert out["not_utf8"] == "caf\\xe9"
    assert out["surrogate"] == "x\\xed\\xa0\\x80y"


def test_text_for_people_from_an_older_library_is_still_escaped(run):
    """A libcudaload before CUDALOAD_1.6 has no cudaload_escape_text: _shown()
    (so python -m cudaload's error messages, str(Report)'s error) escapes
    every character that is not printable ASCII itself, and raises
    nothing."""
    out = last_json(run("""
        import json
        from cudaload import _library, _text
        lib = _library.load_default()
        has = lib.has
        lib.has = lambda name: name != "cudaload_escape_text" and has(name)
        print(json.dumps([_text._shown("esc\\x1b[31m\\rcaf\\u00e9\\nnext", keep)
                          for keep in (False, True)]))
        """))
    assert out == ["esc\\x1b[31m\\rcaf\\xe9\\nnext", "esc\\x1b[31m\\rcaf\\xe9\nnext"]


@linux_fixtures
def test_report_text_is_the_librarys_plan_report(run, fixtures):
    """str(Report) is the status, the C library's plan report
    (cudaload_plan_report), the error and the backend: no plan printer of
    its own. setup()'s Report, which reads its fields late, and an eager
    Context.plan() print the same plan."""
    out = last_json(run("""
        import json, cudaload
        from cudaload import _constants as C, _library
        lib = _library.load_default()
        roots = [%r, %r]
        with cudaload.Context(roots, defaults=False, site_packages=False) as ctx:
            report = ctx.require(["cudnn=8", "cudnn=9"]).scan().plan()
            status, text = lib.plan_report(ctx.handle, C.CUDALOAD_FORMAT_TEXT)
            as_json = lib.plan_report(ctx.handle, C.CUDALOAD_FORMAT_JSON)[0]
        made = cudaload.Report(status=0, status_text="success")
        print(json.dumps({"str": str(report), "text": text, "status": status,
                          "json": as_json,
                          "setup": str(cudaload.setup(require=["cudnn=9"], roots=roots[1:],
                                                      defaults=False, site_packages=False)),
                          "by_hand": str(made), "backend": lib.backend, "path": lib.path}))
        """ % (os.path.join(fixtures, "preload", "cudnn8"),
               os.path.join(fixtures, "preload", "cudnn9"))))
    assert out["status"] == 0 and out["text"].endswith("\n")
    assert out["str"] == ("status: success (0)\n" + out["text"]
                          + "backend: %s (%s)" % (out["backend"], out["path"]))
    text = out["text"]
    assert text.startswith("requirements: cudnn=8, cudnn=9\nplan (")
    assert re.search(r"^  STATE +NAME +MAJOR  PATH$", text, re.M)
    assert re.search(r"^  planned +cudnn +8 +\S+libcudnn\.so\.8$", text, re.M)
    assert "why: required by cudnn=8" in text
    assert text.endswith(" libraries found in 2 roots\n")
    assert out["json"] == 1  # INVALID_ARGUMENT: the plan as data is the doctor's
    assert re.search(r"^  loaded +cudnn +9 ", out["setup"], re.M)
    # A Report made by hand has no plan text: the rest of what it holds.
    assert out["by_hand"] == "status: success (0)\nbackend:  ()"


@linux_fixtures
def test_the_tool_prints_the_plan_python_prints(run, fixtures):
    """`cudaload env --dry-run` and str(Report) print one plan text, the
    library's."""
    cli = os.environ.get("CUDALOAD_CLI", "")
    if not cli or not os.path.isfile(cli):
        pytest.skip("CUDALOAD_CLI (the cudaload tool) is not set or not built")
    root = os.path.join(fixtures, "preload", "cudnn8")
    tool = subprocess.run([cli, "env", "--dry-run", "--no-defaults", "--root", root,
                           "--require", "cudnn=8"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert tool.returncode == 0, tool.stderr
    out = last_json(run("""
        import json, cudaload
        with cudaload.Context([%r], defaults=False, site_packages=False) as ctx:
            print(json.dumps(str(ctx.require("cudnn=8").scan().plan())))
        """ % root))
    plan = out.split("\n", 1)[1].rsplit("\nbackend: ", 1)[0] + "\n"
    assert plan.startswith("requirements: cudnn=8\nplan (")
    assert tool.stdout.startswith(plan), (tool.stdout, plan)


def test_probe_text_is_the_tools(run):
    """str(Probe) and python -m cudaload probe are the text the tool
    prints, written once, by the library (cudaload_probe_report, text)."""
    cli = os.environ.get("CUDALOAD_CLI", "")
    out = last_json(run("""
        import json, cudaload
        probe = cudaload.probe(defaults=False, site_packages=False)
        print(json.dumps({"str": str(probe), "summary": probe.summary,
                          "stages": [s.name for s in probe.stages]}))
        """))
    lines = out["str"].splitlines()
    assert lines[0].endswith(": " + out["summary"]) or "\\x" in lines[0]
    assert re.match(r"STAGE +STATUS +MS  MESSAGE$", lines[2])
    assert [line.split()[0] for line in lines[3:3 + len(out["stages"])]] == out["stages"]
    module = run.module(["probe", "--no-defaults"])
    assert module.returncode in (0, 5), module.stderr
    # A stage's time, right-aligned: 100 ms and more (a loaded machine)
    # widens its column, and with it the header's padding: the times and
    # the runs of spaces between columns are not compared.
    timing = re.compile(r" +\d+\.\d\d  ")

    def untimed(text):
        return re.sub(r" +", " ", timing.sub(" MS ", text))

    assert untimed(module.stdout) == untimed(out["str"] + "\n")
    if cli and os.path.isfile(cli):
        tool = subprocess.run([cli, "probe", "--no-defaults"], stdout=subprocess.PIPE,
                              universal_newlines=True, timeout=120)
        assert tool.returncode == module.returncode
        assert untimed(tool.stdout) == untimed(module.stdout)


def test_names_are_the_librarys(run):
    """The names the records carry are the library's: every fix action,
    fact and source the header pins is named by the library and read from
    it (no table of them in Python); an error message's facts are the
    header's, named by the library as their attributes are; the root
    statuses kept for libraries older than CUDALOAD_1.1 are the library's."""
    out = last_json(run("""
        import json
        from cudaload import _api, _constants as C, _library, _results
        lib = _library.load_default()
        def pinned(prefix):
            return {getattr(C, n): n[len(prefix):] for n in dir(C) if n.startswith(prefix)}
        names = {}
        for prefix, function in (("CUDALOAD_FIX_", "cudaload_fix_action_name"),
                                 ("CUDALOAD_FACT_", "cudaload_fact_name"),
                                 ("CUDALOAD_FROM_", "cudaload_fact_source_name"),
                                 ("CUDALOAD_PROBLEM_", "cudaload_problem_kind_name")):
            values = pinned(prefix)
            read = _results._names(lib, function)
            names[function] = [sorted(read) == sorted(values),
                               all(read[v] == lib.call(function, v) for v in read),
                               [n for v, n in values.items() if not lib.call(function, v)]]
        facts = pinned("CUDALOAD_MESSAGE_FACT_")
        message = _api.ErrorMessage("k", "q")
        statuses = {v: n for v, n in pinned("CUDALOAD_E_").items()}
        statuses[C.CUDALOAD_OK] = "OK"
        print(json.dumps({
            "names": names,
            "message_facts": [[n, lib.call("cudaload_error_message_fact_name", v),
                               hasattr(message, n.lower())] for v, n in sorted(facts.items())],
            "roots": [[n, lib.call("cudaload_root_status_name", v),
                       C.ROOT_STATUS_NAMES.get(v, "unreadable")]
                      for v, n in sorted(statuses.items())]}))
        """))
    for function, (same_values, same_names, unnamed) in out["names"].items():
        assert unnamed == [], "%s names none of these: %s" % (function, unnamed)
        assert same_values and same_names, function
    for constant, name, attribute in out["message_facts"]:
        assert name == constant.lower().replace("_", "-"), constant
        assert attribute, "ErrorMessage has no attribute " + constant.lower()
    for constant, library, kept in out["roots"]:
        assert library == kept, constant
