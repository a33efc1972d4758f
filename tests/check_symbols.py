#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the symbol reader against binutils on real files.

    check_symbols.py --cli build/tools/cudaload [--fixtures DIR]
                     [--limit N] [--pe-limit N] [--readelf R] [--objdump O]
                     [FILE_OR_DIR...]

ELF: for every ELF file under /usr/local/cuda/lib64 (recursively), the
first N ELF files of /usr/lib/x86_64-linux-gnu (by name; --limit, default
300), the fixture libraries under DIR/symbols and any FILE or DIR given,
`cudaload inspect --symbols --format json` must agree with
`readelf -V -W --dyn-syms`: the version nodes the file defines, the files
and versions it needs (in file order), and the exported and imported
symbols, each with its version (default or hidden for an export) as a
multiset. PE: for the fixture DLLs under DIR/symbols/windows and the first
N DLLs of Wine's x86_64-windows and i386-windows folders (--pe-limit,
default 200; always kernel32.dll, which has forwarders), the exports by name with their
forwarders and the imports per DLL (by name, or "#N" by ordinal) must agree
with `x86_64-w64-mingw32-objdump -p`.

Prints "symbols: N files agree with readelf" and "symbols: N PE files agree
with objdump", or each disagreement with both answers. Exit status 0 when
all agree, 1 on a disagreement, 77 (skipped) when readelf is not installed,
2 on a usage error.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

SKIPPED = 77
CHUNK = 40  # files per cudaload invocation


def is_magic(path, magic):
    try:
        with open(path, "rb") as f:
            return f.read(len(magic)) == magic
    except OSError:
        return False


def regular_files(top, recursive):
    """Regular files (not links) under top, sorted by path."""
    found = []
    if recursive:
        for root, dirs, files in os.walk(top):
            dirs.sort()
            found += [os.path.join(root, f) for f in sorted(files)]
    else:
        found = [os.path.join(top, f) for f in sorted(os.listdir(top))]
    return [p for p in found if os.path.isfile(p) and not os.path.islink(p)]


def collect(tops, magic, limit=None, recursive=True):
    out = []
    for top in tops:
        if os.path.isfile(top):
            candidates = [top]
        elif os.path.isdir(top):
            candidates = regular_files(top, recursive)
        else:
            continue
        taken = 0
        for p in candidates:
            if limit is not None and taken >= limit:
                break
            if is_magic(p, magic):
                out.append(p)
                taken += 1
    seen, unique = set(), []
    for p in out:
        real = os.path.realpath(p)
        if real not in seen:
            seen.add(real)
            unique.append(p)
    return unique


def run(argv):
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), \
        proc.stderr.decode("utf-8", "replace")


def inspect(cli, paths):
    """{path: file object or error text} from cudaload inspect."""
    answers = {}
    for i in range(0, len(paths), CHUNK):
        chunk = paths[i:i + CHUNK]
        rc, out, err = run([cli, "inspect", "--symbols", "--format", "json", "--"] + chunk)
        if rc not in (0, 3):
            raise SystemExit("check_symbols: %s inspect failed (exit %d): %s" % (cli, rc, err.strip()))
        doc = json.loads(out)
        for f in doc["files"]:
            answers[f["path"]] = f
        for e in doc["errors"]:
            answers[e["path"]] = "error: " + e["error"]
    return answers


# ---- ELF: readelf -V -W --dyn-syms ----------------------------------------

# Num: Value Size Type Bind Vis Ndx Name. A type or binding readelf has no
# name for is "<OS specific>: 10" (STB_GNU_UNIQUE in a file whose OSABI is
# not GNU).
FIELD = r"(<[^>]*>: \d+|\S+)"
SYM_LINE = re.compile(r"^\s*\d+:\s+[0-9a-fA-F]+\s+\S+\s+%s\s+%s\s+(\S+)\s+(\S+)(?:\s+(.*))?$"
                      % (FIELD, FIELD))


def readelf_view(readelf, path):
    """The same facts as cudaload's JSON, read from readelf's output, or
    None when readelf cannot read the file."""
    rc, out, err = run([readelf, "-V", "-W", "--dyn-syms", path])
    if rc != 0 or "Error:" in err:
        return None
    verdefs, needs, defs, refs = [], [], [], []
    section = None
    for line in out.splitlines():
        if line.startswith("Symbol table '.dynsym'"):
            section = "syms"
            continue
        if line.startswith("Symbol table "):
            section = None  # .symtab: not the dynamic symbols
            continue
        if line.startswith("Version definition section"):
            section = "verdef"
            continue
        if line.startswith("Version needs section"):
            section = "verneed"
            continue
        if line.startswith("Version symbols section"):
            section = None
            continue
        if section == "syms":
            m = SYM_LINE.match(line)
            if not m:
                continue
            typ, bind, vis, ndx, name = m.groups()
            name = re.sub(r"\s+\(\d+\)$", "", name or "")
            at = name.find("@")
            version, hidden = None, False
            if at >= 0:
                hidden = not name.startswith("@@", at)
                version = name[at + (1 if hidden else 2):]
                name = name[:at]
            if ndx == "UND":
                if bind != "LOCAL":
                    refs.append((name, version))
            elif bind in ("GLOBAL", "WEAK", "UNIQUE", "<OS specific>: 10") \
                    and vis in ("DEFAULT", "PROTECTED") \
                    and typ not in ("SECTION", "FILE"):
                defs.append((name, version, hidden))
        elif section == "verdef":
            m = re.search(r"Flags:\s+(\S+)\s+Index:\s+\d+\s+Cnt:\s+\d+\s+Name:\s+(\S+)", line)
            if m and "BASE" not in m.group(1).split("|"):
                verdefs.append(m.group(2))
        elif section == "verneed":
            m = re.search(r"File:\s+(\S+)\s+Cnt:", line)
            if m:
                needs.append((m.group(1), []))
                continue
            m = re.search(r"Name:\s+(\S+)\s+Flags:", line)
            if m and needs:
                needs[-1][1].append(m.group(1))
    # A definition whose version is a needed one (a copy relocation in an
    # executable) has no node of its own: cudaload reports it unversioned.
    nodes = set(verdefs)
    norm_defs = []
    for name, version, hidden in defs:
        if version is not None and version not in nodes:
            version = None
        norm_defs.append((name, version, hidden if version else False))
    return {"verdefs": verdefs, "needs": needs, "defs": norm_defs, "refs": refs}


def cudaload_view(f):
    defs = []
    for s in f["exports"]["symbols"]:
        version = s["version"]
        # The linker exports each version node's name as an absolute
        # symbol of that node (OLD@@OLD); readelf prints it without the
        # version.
        if version == s["name"]:
            version = None
        defs.append((s["name"], version, s["hidden"] if version else False))
    refs = [(s["name"], s["version"]) for s in f["imports"]["symbols"]]
    return {"verdefs": [v["name"] for v in f["version_definitions"]],
            "needs": [(n["file"], n["versions"]) for n in f["version_needs"]],
            "defs": defs, "refs": refs}


def differences(want, got):
    """Lines describing how got differs from want (empty when equal)."""
    lines = []
    for key in ("verdefs", "needs"):
        if want[key] != got[key]:
            lines.append("  %s: readelf %r, cudaload %r" % (key, want[key], got[key]))
    for key in ("defs", "refs"):
        a, b = collections.Counter(want[key]), collections.Counter(got[key])
        if a != b:
            only_a = sorted((a - b).elements(), key=repr)[:8]
            only_b = sorted((b - a).elements(), key=repr)[:8]
            lines.append("  %s: %d in readelf, %d in cudaload; only readelf: %r; only cudaload: %r"
                         % (key, len(want[key]), len(got[key]), only_a, only_b))
    return lines


def per_version(view):
    """Counts of exports and imports per version: the summary line."""
    c = collections.Counter()
    for _, version, _ in view["defs"]:
        c["export", version] += 1
    for _, version in view["refs"]:
        c["import", version] += 1
    return c


# ---- PE: x86_64-w64-mingw32-objdump -p ------------------------------------

def objdump_view(objdump, path):
    rc, out, _ = run([objdump, "-p", path])
    if rc != 0:
        return None
    forwarders, exports, imports = {}, [], []
    section, dll = None, None
    for line in out.splitlines():
        if line.startswith("Export Address Table -- Ordinal Base"):
            section = "eat"
            continue
        if line.startswith("[Ordinal/Name Pointer] Table"):
            section = "names"
            continue
        if line.startswith("The Import Tables"):
            section = "imports"
            continue
        if not line.strip():
            if section in ("eat", "names"):
                section = None
            continue
        if line.startswith("The ") and section == "imports" and "Import" not in line:
            section = None
            continue
        if section == "eat":
            m = re.match(r"^\s*\[\s*(\d+)\].*Forwarder RVA -- (\S+)", line)
            if m:
                forwarders[int(m.group(1))] = m.group(2)
        elif section == "names":
            m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)", line)
            if m:
                exports.append((m.group(2), forwarders.get(int(m.group(1)))))
        elif section == "imports":
            m = re.match(r"^\s*DLL Name:\s*(\S+)", line)
            if m:
                dll = m.group(1)
                continue
            # "\t<thunk>\t <hint> <name>", or "\t<thunk>\t <ordinal in hex>
            # <none>" for an import by ordinal; descriptor lines start with
            # a space.
            m = re.match(r"^\t[0-9a-fA-F]+\t\s*([0-9a-fA-F]+)\s+<none>", line)
            if m and dll:
                imports.append(("#%d" % int(m.group(1), 16), dll))
                continue
            m = re.match(r"^\t[0-9a-fA-F]+\t\s*\d+\s+(\S+)", line)
            if m and dll:
                imports.append((m.group(1), dll))
    return {"defs": exports, "refs": imports, "verdefs": [], "needs": []}


def cudaload_pe_view(f):
    return {"defs": [(s["name"], s["forward"]) for s in f["exports"]["symbols"]],
            "refs": [(s["name"], s["library"]) for s in f["imports"]["symbols"]],
            "verdefs": [], "needs": []}


def compare(label, paths, reference, answers, ours):
    agree, problems = 0, []
    for p in paths:
        want = reference(p)
        got = answers.get(p)
        if want is None:
            if isinstance(got, str):
                agree += 1  # both refuse the file
            else:
                problems.append("%s: %s cannot read it, cudaload can" % (p, label))
            continue
        if isinstance(got, str) or got is None:
            problems.append("%s: %s reads it, cudaload says %s" % (p, label, got))
            continue
        lines = differences(want, ours(got))
        if lines:
            problems.append("%s: cudaload disagrees with %s\n%s" % (p, label, "\n".join(lines)))
        else:
            agree += 1
    return agree, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True, help="the cudaload tool")
    ap.add_argument("--fixtures", help="the built fixture trees (symbols/ is read)")
    ap.add_argument("--limit", type=int, default=300,
                    help="ELF files taken from /usr/lib/x86_64-linux-gnu (default 300)")
    ap.add_argument("--pe-limit", type=int, default=200,
                    help="DLLs taken from Wine's x86_64-windows folder (default 200)")
    ap.add_argument("--readelf")
    ap.add_argument("--objdump")
    ap.add_argument("paths", nargs="*", help="more files or folders to check")
    args = ap.parse_args()

    readelf = args.readelf or shutil.which("readelf")
    if not readelf:
        print("SKIP: check_symbols: readelf is not installed (apt-get install binutils)")
        return SKIPPED
    objdump = args.objdump or shutil.which("x86_64-w64-mingw32-objdump")

    # The CUDA toolkit's files when this machine has one; what is compared is
    # the reader against readelf on whatever files are there.
    toolkit = "/usr/local/cuda/lib64"
    elf_tops = [toolkit] if os.path.isdir(toolkit) else []
    if not elf_tops:
        print("note: %s is absent (no CUDA toolkit): the system's libraries and the"
              " fixtures are checked" % toolkit)
    fixtures = os.path.join(args.fixtures, "symbols") if args.fixtures else None
    if fixtures:
        elf_tops.append(fixtures)
    elf = collect(elf_tops + args.paths, b"\x7fELF")
    elf += [p for p in collect(["/usr/lib/x86_64-linux-gnu"], b"\x7fELF", args.limit, recursive=False)
            if p not in elf]
    if not elf:
        print("SKIP: check_symbols: no ELF files to check")
        return SKIPPED
    answers = inspect(args.cli, elf)
    agree, problems = compare("readelf", elf, lambda p: readelf_view(readelf, p), answers, cudaload_view)
    totals = collections.Counter()
    for p in elf:
        if isinstance(answers.get(p), dict):
            totals += per_version(cudaload_view(answers[p]))
    versioned = sum(n for (kind, v), n in totals.items() if v is not None)
    print("symbols: %d files agree with readelf (%d exports, %d imports, %d of them versioned)"
          % (agree, sum(n for (k, _), n in totals.items() if k == "export"),
             sum(n for (k, _), n in totals.items() if k == "import"), versioned))

    pe_agree = 0
    if objdump:
        wine = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows"
        pe = collect([os.path.join(fixtures, "windows")] if fixtures else [], b"MZ")
        pe += collect([os.path.join(wine, "kernel32.dll")], b"MZ")
        pe += [p for p in collect([wine], b"MZ", args.pe_limit, recursive=False) if p not in pe]
        # PE32: what Wine's 32-bit folder has.
        pe += [p for p in collect([os.path.join(os.path.dirname(wine), "i386-windows")], b"MZ",
                                  args.pe_limit, recursive=False) if p not in pe]
        pe += [p for p in collect(args.paths, b"MZ") if p not in pe]
        if pe:
            answers = inspect(args.cli, pe)
            pe_agree, pe_problems = compare("objdump", pe, lambda p: objdump_view(objdump, p),
                                            answers, cudaload_pe_view)
            problems += pe_problems
            forwarders = sum(1 for p in pe if isinstance(answers.get(p), dict)
                             for s in answers[p]["exports"]["symbols"] if s["forward"])
            print("symbols: %d PE files agree with objdump (%d forwarders)" % (pe_agree, forwarders))
        else:
            print("symbols: no PE files to check")
    else:
        print("SKIP: check_symbols: x86_64-w64-mingw32-objdump is not installed: PE files not checked")

    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
