#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the exported symbols of the built shared library.

    check_exports.py --lib build/lib/libcudaload.so.0.2.0 \
        [--header include/cudaload.h] [--soname libcudaload.so.1] \
        [--version-node CUDALOAD_1] [--readelf R] [--nm N] [--objdump O]

ELF (libcudaload.so): every defined dynamic symbol must start with
`cudaload_` and carry a default version (`name@@NODE`): the given node
(CUDALOAD_1) or a newer node of it (CUDALOAD_1.1, ...) that the library
defines with the given node among its ancestors, as lib/cudaload.map adds
them; with --map, each symbol the map names in a newer node must carry
that node and every other one the given node. The SONAME must be the
given one. PE (cudaload.dll): every name in the export
table must start with `cudaload_`. With --header, each function the public
header declares must be exported, and nothing else may be: an exported
`cudaload_` symbol the header does not declare is an internal leaking into
the ABI.

Exit status 0 when all checks pass, 1 when one fails, 2 when a tool is
missing or the file cannot be read.
"""

import argparse
import re
import shutil
import subprocess
import sys

PREFIX = "cudaload_"


class ToolError(Exception):
    pass


ELF_NEEDED = []
ELF_PARENTS = {}


def descends_from(node, base, parents, seen=()):
    """Whether version node `node` inherits `base`, directly or through
    other nodes (readelf -V's Parent lines)."""
    if node == base:
        return True
    return any(p not in seen and descends_from(p, base, parents, seen + (node,))
               for p in parents.get(node, []))


def map_nodes(path):
    """{symbol: node} for the names a linker version script lists
    explicitly (no wildcards) in each node."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"#[^\n]*", " ", text)
    listed = {}
    for m in re.finditer(r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*([\w.]*)\s*;", text, flags=re.S):
        node, body = m.group(1), m.group(2)
        body = re.split(r"\blocal\s*:", body)[0]
        body = re.sub(r"\bglobal\s*:", " ", body)
        for name in re.findall(r"([^\s;]+)\s*;", body):
            if not any(c in name for c in "*?["):
                listed[name] = node
    return listed


def run(argv):
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise ToolError("cannot run %s: %s" % (argv[0], e))
    if proc.returncode != 0:
        raise ToolError("%s failed (exit %d): %s" % (" ".join(argv), proc.returncode,
                                                     proc.stderr.decode("utf-8", "replace").strip()))
    return proc.stdout.decode("utf-8", "replace")


def find_tool(given, names):
    if given:
        return given
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise ToolError("none of %s is installed" % ", ".join(names))


def header_functions(path):
    """Names of the functions the public header declares with CUDALOAD_API."""
    text = open(path, encoding="utf-8").read()
    # Join declarations split over lines; drop comments first.
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    names = set(re.findall(r"\bCUDALOAD_API\b[^;{(]*?\b(cudaload_\w+)\s*\(", text))
    if not names:
        raise ToolError("%s declares no CUDALOAD_API function" % path)
    return names


def elf_exports(lib, readelf, nm):
    """({name: version or None} of defined dynamic symbols, set of version
    definition names, soname)."""
    dyn = run([readelf, "--dyn-syms", "-W", lib])
    symbols = {}
    for line in dyn.splitlines():
        # Num: Value Size Type Bind Vis Ndx Name
        m = re.match(r"^\s*\d+:\s+[0-9a-fA-F]+\s+\S+\s+(\w+)\s+(\w+)\s+(\w+)\s+(\S+)\s+(\S+)", line)
        if not m:
            continue
        typ, bind, _vis, ndx, name = m.groups()
        if ndx == "UND" or bind == "LOCAL" or typ in ("SECTION", "FILE"):
            continue
        # readelf may append " (2)" after the name; take name@@VERSION.
        version = None
        if "@@" in name:
            name, version = name.split("@@", 1)
        elif "@" in name:
            name, version = name.split("@", 1)
            version = "@" + version  # a hidden (non-default) version
        symbols[name] = version
    vd = run([readelf, "-V", "-W", lib])
    definitions = vd.split("Version needs section")[0]
    nodes = set(re.findall(r"Name:\s+(\S+)", definitions))
    # "Name: CUDALOAD_1.1" followed by "Parent 1: CUDALOAD_1" lines.
    global ELF_PARENTS
    ELF_PARENTS = {}
    current = None
    for line in definitions.splitlines():
        m = re.search(r"Name:\s+(\S+)", line)
        if m:
            current = m.group(1)
            ELF_PARENTS.setdefault(current, [])
            continue
        m = re.search(r"Parent \d+:\s+(\S+)", line)
        if m and current:
            ELF_PARENTS[current].append(m.group(1))
    d = run([readelf, "-d", "-W", lib])
    m = re.search(r"\(SONAME\)\s+[^\[]*\[(.*)\]", d)
    soname = m.group(1) if m else None
    global ELF_NEEDED
    ELF_NEEDED = re.findall(r"\(NEEDED\)\s+[^\[]*\[(.*)\]", d)
    # Cross-check with nm: both must agree on the defined dynamic names.
    if nm:
        out = run([nm, "-D", "--defined-only", lib])
        nm_names = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 3:
                nm_names.add(parts[2].split("@", 1)[0])
        nm_names -= nodes  # binutils lists version nodes as absolute symbols
        rd_names = set(symbols) - nodes
        if nm_names != rd_names:
            raise ToolError("nm and readelf disagree: only nm %s, only readelf %s"
                            % (sorted(nm_names - rd_names), sorted(rd_names - nm_names)))
    return symbols, nodes, soname


def pe_exports(lib, objdump):
    out = run([objdump, "-p", lib])
    idx = out.find("[Ordinal/Name Pointer] Table")
    if idx < 0:
        if "There is an export table" in out:
            raise ToolError("%s: objdump lists no export name table" % lib)
        return set()
    names = set()
    for line in out[idx:].splitlines()[1:]:
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)", line)
        if not m:
            if line.strip() == "":
                break
            continue
        names.add(m.group(1))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="the built shared library (.so or .dll)")
    ap.add_argument("--header", help="include/cudaload.h: its functions must be exactly the exports")
    ap.add_argument("--soname", default="libcudaload.so.1")
    ap.add_argument("--version-node", default="CUDALOAD_1")
    ap.add_argument("--map", help="lib/cudaload.map: the node of each symbol it names")
    ap.add_argument("--readelf")
    ap.add_argument("--nm")
    ap.add_argument("--objdump")
    args = ap.parse_args()

    try:
        with open(args.lib, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        print("check_exports: %s: %s" % (args.lib, e), file=sys.stderr)
        return 2

    problems = []
    try:
        if magic == b"\x7fELF":
            readelf = find_tool(args.readelf, ["readelf"])
            nm = args.nm or shutil.which("nm")
            symbols, nodes, soname = elf_exports(args.lib, readelf, nm)
            exported = {n for n in symbols if n not in nodes}
            if soname != args.soname:
                problems.append("SONAME is %r, expected %r" % (soname, args.soname))
            if args.version_node not in nodes:
                problems.append("no version node %s (defined: %s)" % (args.version_node, sorted(nodes) or "none"))
            # The core is vendorable: the C runtime and the OS loader, and
            # libyaml only in builds that read YAML manifests. Never CUDA.
            allowed = re.compile(r"^(libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|"
                                 r"ld-linux[-\w.]*\.so\.\d|libyaml-0\.so\.2)$")
            for needed in ELF_NEEDED:
                if not allowed.match(needed):
                    problems.append("depends on %s: the library may need only libc, libdl, "
                                    "pthread (and libyaml for manifests)" % needed)
            newer = re.compile(r"^%s(\.\d+)+$" % re.escape(args.version_node))
            for node in sorted(n for n in nodes if newer.match(n)):
                if not descends_from(node, args.version_node, ELF_PARENTS):
                    problems.append("version node %s does not inherit %s (parents: %s)"
                                    % (node, args.version_node, ELF_PARENTS.get(node) or "none"))
            listed = map_nodes(args.map) if args.map else {}
            for name in sorted(exported):
                version = symbols[name]
                if args.map:
                    expected = listed.get(name, args.version_node)
                    if version != expected:
                        problems.append("%s is exported as version %r, expected @@%s (%s)"
                                        % (name, version, expected, args.map))
                elif version != args.version_node and not (version and newer.match(version)):
                    problems.append("%s is exported as version %r, expected @@%s or a newer node"
                                    % (name, version, args.version_node))
            for name in sorted(n for n in listed if n not in exported):
                problems.append("%s names %s in node %s, but the library does not export it"
                                % (args.map, name, listed[name]))
            kind = "ELF"
        elif magic[:2] == b"MZ":
            objdump = find_tool(args.objdump, ["x86_64-w64-mingw32-objdump", "objdump"])
            exported = pe_exports(args.lib, objdump)
            kind = "PE"
        else:
            print("check_exports: %s is neither ELF nor PE" % args.lib, file=sys.stderr)
            return 2
        declared = header_functions(args.header) if args.header else None
    except ToolError as e:
        print("check_exports: %s" % e, file=sys.stderr)
        return 2

    if not exported:
        problems.append("the library exports nothing")
    for name in sorted(exported):
        if not name.startswith(PREFIX):
            problems.append("exported symbol without the %s prefix: %s" % (PREFIX, name))
    if declared is not None:
        for name in sorted(declared - exported):
            problems.append("declared in the header but not exported: %s" % name)
        for name in sorted(n for n in exported - declared if n.startswith(PREFIX)):
            problems.append("exported but not declared in the header (internal leak): %s" % name)

    print("%s %s: %d exported symbols%s" % (kind, args.lib, len(exported),
                                           "" if declared is None else ", %d declared in the header" % len(declared)))
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
