#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that every document the repository's Markdown files cite exists.

A reader who follows "(DESIGN.md)" or "see docs/loader.md" must find the
file. Checked in every Markdown file git lists: each Markdown link target
that is a relative path (`[text](docs/cli.md#section)`), and each file name
ending in .md written as a word or in backticks (`SECURITY.md`,
docs/doctor.md). A name resolves when it exists relative to the citing
file's folder or to the repository root, or, for a bare name without a
folder, when exactly one tracked file has that name (bench/README.md may
say README.md).

Usage: check_doc_links.py [--source REPO]
Exit status 0 when every citation resolves, 1 naming each that does not
(file, line, name), 77 when the source tree is not a git checkout.
Python standard library only.
"""

import argparse
import os
import re
import subprocess
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
NAME = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w.-]+\.md)\b")


def tracked_files(source):
    out = subprocess.run(["git", "-C", source, "ls-files", "-z"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True).stdout
    return [p for p in out.decode("utf-8").split("\0") if p]


def cited(line):
    for match in LINK.finditer(line):
        target = match.group(1).split("#", 1)[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            yield target
    for match in NAME.finditer(line):
        yield match.group(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), os.pardir))
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    try:
        files = tracked_files(source)
    except (OSError, subprocess.CalledProcessError):
        print("check_doc_links: SKIPPED: %s is not a git checkout" % source)
        return 77
    existing = set(files)
    by_name = {}
    for path in files:
        by_name.setdefault(os.path.basename(path), []).append(path)

    def resolves(citing, name):
        folder = os.path.dirname(citing)
        for candidate in (os.path.normpath(os.path.join(folder, name)), os.path.normpath(name)):
            if candidate in existing or os.path.isdir(os.path.join(source, candidate)):
                return True
        return "/" not in name and len(by_name.get(name, [])) == 1

    broken = []
    checked = 0
    for path in files:
        if not path.endswith(".md"):
            continue
        with open(os.path.join(source, path), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for name in cited(line):
                    checked += 1
                    if not resolves(path, name):
                        broken.append("%s:%d: cites %s, which is not in the repository"
                                      % (path, number, name))
    for line in broken:
        print(line)
    print("check_doc_links: %d citations checked, %d broken" % (checked, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
