#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/check_architecture.py catches an import circle in a Python
package, and finds none in bindings/python/cudaload; it fails a file of
lib/ or tools/ over MAX_LINES lines, but not one of KNOWN_LONG; and it fails
a fix note with words of its own outside lib/problem/ (rule 12), not one
that names a CL_NOTE_* or formats only what it is given; and it fails a
sentence of its own in a saying stage (rule 14: the scan's, the probe's,
the fix layer's, the OS seam's, the binary readers' and common/'s), not a
name, a last error's words (cl_fail, the seam's own_no and cl_os_no what,
the binary readers' malformed-file errors) or a CL_WORDS_*; and it fails a
write to a field of the inventory's records outside lib/scan/ (rule 13),
not a read or a question to the scan.

Each circle case writes a small package into a temporary folder and runs
the check on this repository with --python-package pointing at it: the C
checks pass (this repository's shape), so the exit status and the
message are the package's alone. The length cases run the check on a copy
of lib/ and tools/ with files of MAX_LINES + 1 and MAX_LINES lines added,
and a KNOWN_LONG file made long.

Usage: test_check_architecture.py REPO
Exit status 0 when every case gives what it should, 1 otherwise.
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_architecture import KNOWN_LONG, MAX_LINES  # noqa: E402

# name: ({file: text}, the modules the circle names, or None for no circle)
CASES = {
    # The shape _api and _extra had: each imports the other, one of the
    # two inside a function (a lazy import is still a dependency).
    "lazy import back": ({
        "__init__.py": "",
        "_api.py": "def doctor():\n    from ._extra import DoctorReport\n    return DoctorReport\n",
        "_extra.py": "from ._api import doctor\n\nclass DoctorReport:\n    pass\n",
    }, ["pkg._api", "pkg._extra"]),
    # Three modules around a circle, by absolute, "from . import" and
    # type-checking imports.
    "three around": ({
        "__init__.py": "",
        "a.py": "import pkg.b\n",
        "b.py": "from . import c\n",
        "c.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from .a import x\n",
    }, ["pkg.a", "pkg.b", "pkg.c"]),
    # The package's __init__ importing a module that imports a name of
    # the package.
    "through __init__": ({
        "__init__.py": "def __getattr__(name):\n    from . import _api\n    return _api\n",
        "_api.py": "from . import __version__\n",
    }, ["pkg", "pkg._api"]),
    # One way only, with the same statements: no circle.
    "one way": ({
        "__init__.py": "from ._library import load\n",
        "_library.py": "def load():\n    from . import _backend\n    return _backend\n",
        "_backend.py": "import os\nfrom .. import elsewhere\n",
        "_api.py": "from . import _library\nfrom ._library import load\nimport pkg._backend\n",
    }, None),
}


def run_check(repo, package):
    return subprocess.run(
        [sys.executable, os.path.join(HERE, "check_architecture.py"), "--source", repo,
         "--python-package", package],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)


def length_failures(repo):
    """Rule 11 on a copy of lib/ and tools/: a file of MAX_LINES + 1 lines
    fails, named with its count; one of MAX_LINES passes; a KNOWN_LONG
    file over the limit is a note. Returns what went wrong."""
    too_long, just_right = "lib/scan/too_long.c", "tools/just_right.h"
    known = sorted(KNOWN_LONG)[0] if KNOWN_LONG else None
    with tempfile.TemporaryDirectory() as tmp:
        for top in ("lib", "tools"):
            shutil.copytree(os.path.join(repo, top), os.path.join(tmp, top))
        for rel, lines in ((too_long, MAX_LINES + 1), (just_right, MAX_LINES)) + \
                (((known, MAX_LINES + 1),) if known else ()):
            with open(os.path.join(tmp, rel), "w", encoding="utf-8") as f:
                f.write("/* a line */\n" * lines)
        result = run_check(tmp, os.path.join(repo, "bindings", "python", "cudaload"))
    over = [line for line in result.stdout.splitlines() if "lines, over" in line]
    failures = []
    expected = f"check_architecture: {too_long}: {MAX_LINES + 1} lines, over {MAX_LINES};"
    problems = [line for line in over if ": note: " not in line]
    if result.returncode != 1 or len(problems) != 1 or \
            not problems[0].startswith(expected):
        failures.append(f"a file of {MAX_LINES + 1} lines: expected exit 1 and "
                        f"one problem naming {too_long}, got exit "
                        f"{result.returncode}:\n{result.stdout}")
    if any(just_right in line for line in over):
        failures.append(f"a file of {MAX_LINES} lines reported:\n{result.stdout}")
    if known and not any(line.startswith(f"check_architecture: note: {known}: "
                                         f"{MAX_LINES + 1} lines, over")
                         for line in over):
        failures.append(f"{known} (KNOWN_LONG) not a note:\n{result.stdout}")
    return failures


# Rule 12: fix notes of a file of lib/load/, and whether each is a
# problem (words of its own outside lib/problem/).
NOTES = {
    "cl_fix_add_note(&p->fix, \"install the driver\");": True,
    "cl_fix_note(&p->fix, step,\n            \"PID: the running %s\", who);": True,
    "cl_fix_add_note(&p->fix, CL_NOTE_INSTALL_THE_DRIVER);": False,
    "cl_fix_note(&p->fix, step, \"%s\", words(p, \"a, b\"));": False,
    "cl_fix_add_note(&p->fix, \"%zu: %.*s\", n, k, s);": False,
}


def note_failures(repo):
    """Rule 12 on a copy of lib/: each call of NOTES in a file of its own
    under lib/load/, the check's answer held against what it should be."""
    failures = []
    for call, words in NOTES.items():
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(repo, "lib"), os.path.join(tmp, "lib"))
            shutil.copytree(os.path.join(repo, "tools"), os.path.join(tmp, "tools"))
            with open(os.path.join(tmp, "lib", "load", "a_note.c"), "w",
                      encoding="utf-8") as f:
                f.write("static void f(void) {\n  %s\n}\n" % call)
            result = run_check(tmp, os.path.join(repo, "bindings", "python", "cudaload"))
        said = [line for line in result.stdout.splitlines()
                if "lib/load/a_note.c:2:" in line and "words of its own" in line]
        if words and (result.returncode != 1 or len(said) != 1):
            failures.append(f"a note with words of its own ({call!r}) not failed "
                            f"(exit {result.returncode}):\n{result.stdout}")
        if not words and (result.returncode != 0 or said):
            failures.append(f"a note without words of its own ({call!r}) failed "
                            f"(exit {result.returncode}):\n{result.stdout}")
    return failures


# Rule 14: statements of a file of lib/scan/, and whether each is a problem
# (a sentence, or a fact value with words, outside the words files).
SENTENCES = {
    "const char *why = \"writable by other users\";": True,
    "const char *why = \"its version is unknown \"\n    \"(only major %d)\";": True,
    "cl_problem_factf(l, p, 1, 2, \"%zu %s folders\", n, s);": True,
    "const char *why = CL_WORDS_WRITABLE_BY_OTHER_USERS;": False,
    "const char *name = \"LD_LIBRARY_PATH\";": False,
    "cl_problem_fact(l, p, 1, 2, \"not-found\");": False,
    "int rc = cl_fail(1, \"%s: not an absolute path\", path);": False,
    "const char *bom = \"\\xEF\\xBB\\xBF\";": False,
    "const char *dir = \"NVIDIA GPU Computing Toolkit\\\\CUDA\";": False,
}


# Rule 14 in the probe, the fix layer and the OS seam: a stage's message,
# the verdict's summary and a refusal say words files' words; a last
# error's words and two-word values ("not required") are not sentences.
STAGE_SENTENCES = {
    "probe": {
        "stage_skip(&run, s, \"the driver did not answer in time\");": True,
        "char *s = cl_strdup_printf(\"fall back to CPU, because %s\", why);": True,
        "stage_skip(&run, s, CL_WORDS_AN_EARLIER_STAGE_FAILED);": False,
        "stage_skip(&run, s, \"not required\");": False,
        "int rc = cl_fail(1, \"%s: not an absolute path\", path);": False,
    },
    "fix": {
        "return refuse(c, 1, \"%s is a pip option it does not pass\", w);": True,
        "return refuse(c, 1, CL_WORDS_FIX_PIP_OPTION_NOT_PASSED, w);": False,
    },
    # The OS seam: who may write to a folder and how a probe process ended
    # are words files' words; the answer forms of a last error (own_no, a
    # cl_os_no's what, a maps line's part) are not counted.
    "posix": {
        "snprintf(t, n, \"writable by every user (mode %04o%s)\", m, x);": True,
        "snprintf(t, n, \"died from signal %d (%s)\", s, strsignal(s));": True,
        "snprintf(t, n, CL_WORDS_WRITABLE_BY_EVERY_USER_MODE, m, x);": False,
        "return own_no(no, CUDALOAD_E_NO_MEMORY, 0, \"out of memory\");": False,
        "return maps_malformed(\"the address range\");": False,
    },
    "win32": {
        "snprintf(t, n, \"%s\", name ? name : \"a group of users\");": True,
        "snprintf(t, n, \"died from exception 0x%08lX\", code);": True,
        "snprintf(t, n, \"%s\", name ? name : CL_WORDS_A_GROUP_OF_USERS);": False,
        "no->what = \"cannot resolve the path\";": False,
        "return own_no(no, CUDALOAD_E_NOT_A_FILE, \"not a regular file\");": False,
    },
    # The ELF and PE readers: a malformed-file error and the name of the
    # table it is told are a last error's words; a sentence besides is not.
    "binary": {
        "snprintf(t, n, \"the file is not a library\");": True,
        "return cl_binary_malformed(s, \"%s lies outside its table\", w);": False,
        "return cl_binary_read(s, o, b, n, \"dynamic string table\");": False,
        "const char *what = d ? \"delay-load import descriptor\" : \"x\";": False,
    },
    "common": {
        "snprintf(t, n, \"the file is not a library\");": True,
    },
}


def sentence_failures(repo, stage="scan", sentences=None):
    """Rule 14 on a copy of lib/: each statement of `sentences` (SENTENCES)
    in a file of its own under lib/<stage>/, the check's answer held
    against what it should be."""
    failures = []
    where = "lib/%s/a_reason.c" % stage
    for statement, said in (sentences or SENTENCES).items():
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(repo, "lib"), os.path.join(tmp, "lib"))
            shutil.copytree(os.path.join(repo, "tools"), os.path.join(tmp, "tools"))
            with open(os.path.join(tmp, where), "w", encoding="utf-8") as f:
                f.write("static void f(void) {\n  %s\n}\n" % statement)
            result = run_check(tmp, os.path.join(repo, "bindings", "python", "cudaload"))
        found = [line for line in result.stdout.splitlines()
                 if where + ":2:" in line and "a sentence of its own" in line]
        if said and (result.returncode != 1 or len(found) != 1):
            failures.append(f"a sentence of its own in {where} ({statement!r}) not "
                            f"failed (exit {result.returncode}):\n{result.stdout}")
        if not said and (result.returncode != 0 or found):
            failures.append(f"no sentence of its own in {where} ({statement!r}) "
                            f"failed (exit {result.returncode}):\n{result.stdout}")
    return failures


# Rule 13, the inventory's records: bodies of a function of a file of
# lib/load/, and whether each is a problem (a write to a record's field).
RECORD_WRITES = {
    "cl_library *lib = x;\n  lib->cuda_major = 11;": True,
    "cl_library *lib = x;\n  ++lib->files_asked;": True,
    "cl_inventory *inv = x;\n  inv->libraries[0].cuda_major = 11;": True,
    "cl_library *lib = x;\n  int *p = &lib->cuda_major;": True,
    "const cl_library *lib = x;\n  int c = lib->cuda_major == 11 && lib->major;": False,
    "cl_library *lib = x;\n  int c = cl_library_cuda_major(ctx, lib);": False,
    "cl_library *lib = x;\n  o->cuda_major = lib->cuda_major;": False,
}


def record_failures(repo):
    """Rule 13 on a copy of lib/: each body of RECORD_WRITES in a function
    of a file of its own under lib/load/, the check's answer held against
    what it should be."""
    failures = []
    for body, written in RECORD_WRITES.items():
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(repo, "lib"), os.path.join(tmp, "lib"))
            shutil.copytree(os.path.join(repo, "tools"), os.path.join(tmp, "tools"))
            with open(os.path.join(tmp, "lib", "load", "a_record.c"), "w",
                      encoding="utf-8") as f:
                f.write("static void f(void) {\n  %s\n}\n" % body)
            result = run_check(tmp, os.path.join(repo, "bindings", "python", "cudaload"))
        found = [line for line in result.stdout.splitlines()
                 if "lib/load/a_record.c:3:" in line and "inventory record" in line]
        if written and (result.returncode != 1 or len(found) != 1):
            failures.append(f"a write to a record ({body!r}) not failed "
                            f"(exit {result.returncode}):\n{result.stdout}")
        if not written and (result.returncode != 0 or found):
            failures.append(f"no write to a record ({body!r}) failed "
                            f"(exit {result.returncode}):\n{result.stdout}")
    return failures


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(HERE)
    failures = []
    for case, (files, circle) in CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            package = os.path.join(tmp, "pkg")
            os.mkdir(package)
            for name, text in files.items():
                with open(os.path.join(package, name), "w", encoding="utf-8") as f:
                    f.write(text)
            result = run_check(repo, package)
        found = [line for line in result.stdout.splitlines()
                 if "modules that import each other" in line]
        if circle is None:
            if result.returncode != 0 or found:
                failures.append(f"{case}: a circle reported where there is none "
                                f"(exit {result.returncode}):\n{result.stdout}")
        elif result.returncode != 1 or len(found) != 1 or \
                not found[0].split(": modules that import each other: ")[1] \
                .startswith(", ".join(circle) + " ("):
            failures.append(f"{case}: expected exit 1 and one circle of "
                            f"{', '.join(circle)}, got exit {result.returncode}:\n"
                            f"{result.stdout}")
    # The package itself: no circle, and the summary says it was checked.
    result = run_check(repo, os.path.join(repo, "bindings", "python", "cudaload"))
    if result.returncode != 0 or "the Python package:" not in result.stdout:
        failures.append(f"bindings/python/cudaload: exit {result.returncode}:\n"
                        f"{result.stdout}")
    failures += length_failures(repo)
    failures += note_failures(repo)
    failures += sentence_failures(repo)
    for stage, sentences in STAGE_SENTENCES.items():
        failures += sentence_failures(repo, stage, sentences)
    failures += record_failures(repo)
    for failure in failures:
        print("test_check_architecture: FAIL: " + failure)
    if failures:
        return 1
    print(f"test_check_architecture: {len(CASES)} packages judged as they should be; "
          "bindings/python/cudaload has no import circle; a file over "
          f"{MAX_LINES} lines fails, a known one is a note; a fix note with words "
          f"of its own outside lib/problem/ fails ({len(NOTES)} calls judged); a "
          f"sentence of its own in a saying stage fails ({len(SENTENCES)} "
          "statements judged in lib/scan/, "
          f"{sum(len(s) for s in STAGE_SENTENCES.values())} in lib/probe/, "
          "lib/fix/, lib/posix/, lib/win32/, lib/binary/ and lib/common/); a "
          "write to an inventory record outside the "
          f"scan fails ({len(RECORD_WRITES)} bodies judged)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
