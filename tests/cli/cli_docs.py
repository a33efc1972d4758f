#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Keep the command-line reference true to the tool.

The tool's table of commands (tools/main.c) is the one list: `cudaload
--help` prints every command's synopsis (taken from the command's own help)
and the exit statuses from it. This script compares the copies in the
documents with what the tool prints, and with --write puts the tool's text
into them:

  - docs/cli.md, the block under "## SYNOPSIS": the tool's SYNOPSIS;
  - docs/cli.md, the block under each "### COMMAND": `cudaload help COMMAND`'s
    SYNOPSIS, and a section for every command the tool has (and no other);
  - docs/cli.md, "## EXIT STATUS": the same codes as the tool's;
  - README.md: at most 150 lines, and every document it links exists.

(The README points to docs/cli.md and copies none of it.)

    cli_docs.py --cli build/tools/cudaload [--emulator WORD]... [--write]

Exit status 0 when they agree (or were rewritten), 1 with every difference
printed, 2 on a usage error.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]


def tool_output(cli, *args):
    out = subprocess.run(cli + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         timeout=120, check=True).stdout
    return out.decode("utf-8").replace("\r\n", "\n")


def section(help_text, title):
    """The lines of a help section, without its two-space indent."""
    m = re.search(r"^%s\n(.*?)(?:\n\n|\Z)" % re.escape(title), help_text, re.S | re.M)
    if not m:
        return None
    return "\n".join(line[2:] if line.startswith("  ") else line
                     for line in m.group(1).split("\n")) + "\n"


def commands(main_help):
    names = re.findall(r"^  ([a-z]+)\s", section_raw(main_help, "COMMANDS"), re.M)
    return [n for n in names if n != "help"]


def section_raw(help_text, title):
    m = re.search(r"^%s\n(.*?)(?:\n\n|\Z)" % re.escape(title), help_text, re.S | re.M)
    return m.group(1) if m else ""


def exit_codes(main_help):
    return sorted(set(re.findall(r"^  (\d+)\s", section_raw(main_help, "EXIT STATUS"), re.M)), key=int)


def doc_exit_codes(doc):
    m = re.search(r"^## EXIT STATUS\n(.*?)^## ", doc, re.S | re.M)
    if not m:
        return []
    codes = []
    for row in re.findall(r"^\| ([\d, ]+) \|", m.group(1), re.M):
        codes += [c.strip() for c in row.split(",") if c.strip()]
    return sorted(set(codes), key=int)


def block_after(doc, heading):
    """(start, end) of the first ``` block's body after the heading line."""
    h = re.search(r"^%s\n" % re.escape(heading), doc, re.M)
    if not h:
        return None
    m = re.compile(r"^```[a-z]*\n(.*?)^```$", re.S | re.M).search(doc, h.end())
    if not m:
        return None
    # The block must belong to this heading, not to a later one.
    nxt = re.compile(r"^#{1,3} ", re.M).search(doc, h.end())
    if nxt and nxt.start() < m.start():
        return None
    return m.start(1), m.end(1)


def check(cli, write):
    problems = []
    main_help = tool_output(cli, "--help")
    synopsis = section(main_help, "SYNOPSIS")
    names = commands(main_help)
    wanted = {}  # (file, heading) -> text
    wanted[("docs/cli.md", "## SYNOPSIS")] = synopsis
    for name in names:
        wanted[("docs/cli.md", "### " + name)] = section(tool_output(cli, "help", name), "SYNOPSIS")

    texts = {}
    for (rel, heading), text in wanted.items():
        doc = texts.setdefault(rel, (SOURCE_ROOT / rel).read_text(encoding="utf-8"))
        span = block_after(doc, heading)
        if span is None:
            problems.append("%s: no code block under '%s' (the tool has it)" % (rel, heading))
            continue
        have = doc[span[0]:span[1]]
        if have != text:
            if write:
                texts[rel] = doc[:span[0]] + text + doc[span[1]:]
            else:
                problems.append("%s, '%s': the block differs from the tool's.\n--- %s\n%s--- the tool\n%s"
                                % (rel, heading, rel, have, text))

    doc = texts["docs/cli.md"]
    documented = re.findall(r"^### ([a-z]+)$", doc.split("## OPTIONS")[0], re.M)
    extra = sorted(set(documented) - set(names) - {"help"})
    if extra:
        problems.append("docs/cli.md documents commands the tool does not have: %s" % ", ".join(extra))
    if doc_exit_codes(doc) != exit_codes(main_help):
        problems.append("docs/cli.md EXIT STATUS lists %s; the tool's --help lists %s"
                        % (doc_exit_codes(doc), exit_codes(main_help)))

    # The README a newcomer reads to the end: short, and every document it
    # sends the reader to is there.
    readme = (SOURCE_ROOT / "README.md").read_text(encoding="utf-8")
    if readme.count("\n") > 150:
        problems.append("README.md has %d lines; it should stay within 150 (move detail to docs/)"
                        % readme.count("\n"))
    for target in sorted(set(re.findall(r"\]\(([^)#:]+)\)", readme))):
        if not (SOURCE_ROOT / target).exists():
            problems.append("README.md links to %s, which does not exist" % target)

    if write:
        for rel, text in texts.items():
            path = SOURCE_ROOT / rel
            if path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print("rewrote %s" % rel)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True, help="the cudaload tool")
    ap.add_argument("--emulator", action="append", default=[], help="a word run before the tool")
    ap.add_argument("--write", action="store_true", help="put the tool's text into the documents")
    args = ap.parse_args()
    problems = check(args.emulator + [args.cli], args.write)
    for p in problems:
        print("FAIL " + p)
    if problems:
        print("(tests/cli/cli_docs.py --cli TOOL --write puts the tool's text into the documents)")
        return 1
    print("ok   docs/cli.md agrees with the tool's help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
