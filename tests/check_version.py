#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that every place that states the project's version agrees with the
one the build reads (docs/versioning.md).

The reference is include/cudaload.h: CUDALOAD_VERSION_MAJOR, _MINOR, _PATCH
(CMakeLists.txt reads them with a regex; the library, the tool, the DLL's
VERSIONINFO, cudaload.pc and the CMake package take it from there). Checked
against it:
  - bindings/python/cudaload/_version.py (`__version__`), the Python
    package's version, which pyproject.toml reads (dynamic, regex provider);
  - pyproject.toml really takes its version from that file;
  - bindings/python/cudaload/_constants.py, the header's constants pinned
    for the Python backends (CUDALOAD_VERSION_MAJOR = ..., as
    tests/python/test_header.py checks every constant when pytest is here);
  - CHANGELOG.md has a section `## [X.Y.Z] - YYYY-MM-DD` for it (the header
    is raised in the release commit that dates its section) and an
    `## [Unreleased]` section above every release;
  - with --expect VERSION (scripts/release), the header says VERSION.

Usage: check_version.py [--source REPO] [--expect X.Y.Z]
Exit status 0 when all agree, 1 with each disagreement named otherwise.
Python standard library only.
"""

import argparse
import datetime
import os
import re
import sys


def read(source, path):
    with open(os.path.join(source, path), encoding="utf-8") as f:
        return f.read()


def header_version(text):
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define CUDALOAD_VERSION_%s ([0-9]+)\s*$" % part, text, re.M)
        if not m:
            return None
        parts.append(m.group(1))
    return ".".join(parts)


def changelog_sections(text):
    """[(name, date or None, line number)] of the '## [...]' headings."""
    sections = []
    for number, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^## \[([^\]]+)\](?:\s+-\s+(\S+))?\s*$", line)
        if m:
            sections.append((m.group(1), m.group(2), number))
        elif line.startswith("## "):
            sections.append((None, None, number))
    return sections


def check_changelog(text, version, problems):
    sections = changelog_sections(text)
    for name, date, number in sections:
        if name is None:
            problems.append("CHANGELOG.md:%d: a section heading must read '## [X.Y.Z] - YYYY-MM-DD' "
                            "or '## [Unreleased]'" % number)
    names = [s[0] for s in sections]
    if "Unreleased" not in names:
        problems.append("CHANGELOG.md: no '## [Unreleased]' section (later changes are listed there)")
    elif names.index("Unreleased") != 0:
        problems.append("CHANGELOG.md: '## [Unreleased]' must come first, above the releases")
    found = [s for s in sections if s[0] == version]
    if not found:
        problems.append("CHANGELOG.md: no section '## [%s] - YYYY-MM-DD' for the header's version"
                        % version)
        return
    date = found[0][1]
    if not date:
        problems.append("CHANGELOG.md:%d: the section of %s has no date ('## [%s] - YYYY-MM-DD')"
                        % (found[0][2], version, version))
        return
    try:
        datetime.date.fromisoformat(date)
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
            raise ValueError(date)
    except ValueError:
        problems.append("CHANGELOG.md:%d: '%s' is not a date as YYYY-MM-DD" % (found[0][2], date))
    # The section must say something.
    lines = text.splitlines()
    start = found[0][2]
    ends = [s[2] for s in sections if s[2] > start]
    body = lines[start:(ends[0] - 1) if ends else len(lines)]
    if not any(line.lstrip().startswith(("- ", "* ")) for line in body):
        problems.append("CHANGELOG.md:%d: the section of %s lists no change" % (start, version))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--expect", help="the version the header must say (X.Y.Z)")
    args = ap.parse_args()
    source = os.path.abspath(args.source)

    problems = []
    version = header_version(read(source, "include/cudaload.h"))
    if version is None:
        print("include/cudaload.h: no '#define CUDALOAD_VERSION_MAJOR/MINOR/PATCH N' lines")
        return 1
    if args.expect and args.expect != version:
        problems.append("include/cudaload.h says %s, not %s: set CUDALOAD_VERSION_MAJOR/MINOR/PATCH "
                        "there (the one place the build reads it)" % (version, args.expect))

    py_file = "bindings/python/cudaload/_version.py"
    m = re.search(r'^__version__ = "([^"]*)"', read(source, py_file), re.M)
    if not m:
        problems.append('%s: no __version__ = "X.Y.Z" line' % py_file)
    elif m.group(1) != version:
        problems.append('%s says __version__ = "%s" but include/cudaload.h says %s: set it to "%s"'
                        % (py_file, m.group(1), version, version))

    constants_file = "bindings/python/cudaload/_constants.py"
    constants = read(source, constants_file)
    pinned = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^CUDALOAD_VERSION_%s = ([0-9]+)\s*$" % part, constants, re.M)
        pinned.append(m.group(1) if m else "?")
    if ".".join(pinned) != version:
        problems.append("%s pins CUDALOAD_VERSION_MAJOR/MINOR/PATCH = %s but include/cudaload.h says %s"
                        % (constants_file, ".".join(pinned), version))

    pyproject = read(source, "bindings/python/pyproject.toml")
    if not re.search(r'^dynamic = \[[^\]]*"version"', pyproject, re.M) or \
            not re.search(r'^input = "cudaload/_version.py"', pyproject, re.M):
        problems.append("bindings/python/pyproject.toml: the version must be dynamic, read from "
                        "cudaload/_version.py ([tool.scikit-build.metadata.version])")

    try:
        check_changelog(read(source, "CHANGELOG.md"), version, problems)
    except OSError:
        problems.append("CHANGELOG.md: missing")

    for problem in problems:
        print(problem)
    if problems:
        print("check_version: FAIL: %d problem(s); include/cudaload.h (%s) is the reference"
              % (len(problems), version))
        return 1
    print("check_version: OK: %s in include/cudaload.h, the Python package (_version.py, _constants.py) "
          "and CHANGELOG.md" % version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
